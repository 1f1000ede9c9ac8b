// SPDX-License-Identifier: GPL-2.0-only
/*
 * ugni_isolation: what a rank must not be able to do to another one's
 * memory, through gni_pub.h and pmi.h alone.
 *
 *     vgemini run -n 2 --alt-domain ugni_isolation
 *
 * Rank 0 registers a page V (between two unregistered guard pages), a
 * page registered GNI_MEM_READ_ONLY and a page whose registration it
 * drops again, and publishes the handles.  Rank 1 then tries, each ending
 * in an error completion (GNI_CqGetEvent and GNI_GetCompleted
 * GNI_RC_TRANSACTION_ERROR, the event's status not OK), or a refusal by
 * the library where it can tell from the handle:
 *
 *  - a PUT and a GET through the deregistered handle;
 *  - a PUT through V's handle with a bit of its CRC flipped: refused by
 *    the library (GNI_RC_INVALID_PARAM), no event;
 *  - a PUT through a handle with a valid CRC but an MDH rank 0 never had;
 *  - a PUT and a GET just past the end of V and just before it (the guard
 *    pages): an error completion, or GNI_RC_INVALID_PARAM;
 *  - a PUT and a FADD into the read-only page (error completion, or
 *    GNI_RC_PERMISSION_ERROR); a GET from it works;
 *  - with --alt-domain (VGEMINI_ALT_PTAG, VGEMINI_ALT_COOKIE): a second
 *    CDM of the other domain in the same process, attached to the same
 *    NIC; its PUT, GET and FADD into V (main domain) fail, and the main
 *    domain's PUT into rank 0's memory of the other domain fails, while
 *    each domain reaches its own memory;
 *  - GNI_CdmAttach with a cookie nobody configured, and with the other
 *    domain's ptag and the job's cookie: GNI_RC_PERMISSION_ERROR.
 *
 * After a barrier rank 0 checks that every page holds exactly what it
 * held, but for the bytes of the PUTs that were allowed (the controls).
 */
#include "ugni_job.h"

#define FILL_V		0x11
#define FILL_RO		0x22
#define FILL_D		0x33
#define FILL_ALT	0x44
#define CTRL_OFF	64	/* the control PUT's offset in V */
#define CTRL_ALT_OFF	128	/* in the other domain's page */

#define MH_MDH_SHIFT	52
#define MH_MDH_MASK	0xfffull
#define MH_CRC_SHIFT	56

/* The handle's CRC-8 (ugni-api.md 18.4): what a user can compute too */
static uint8_t mh_crc(const gni_mem_handle_t *h)
{
	static const uint8_t bit[8] = {
		0x5e, 0xbc, 0x61, 0xc2, 0x9d, 0x23, 0x46, 0x8c,
	};
	uint8_t crc = 0, b, t;
	int i, k;

	for (i = 0; i < 15; i++) {
		b = i < 8 ? h->qword1 >> (8 * i) : h->qword2 >> (8 * (i - 8));
		b ^= crc;
		for (t = 0, k = 0; k < 8; k++)
			if (b & (1u << k))
				t ^= bit[k];
		crc = t;
	}
	return crc;
}

static unsigned int mh_mdh(const gni_mem_handle_t *h)
{
	return h->qword1 >> MH_MDH_SHIFT & MH_MDH_MASK;
}

/* What every rank publishes */
struct victim {
	struct job_buf v, ro, d, alt;
};

static gni_mem_handle_t lmh;
static uint8_t *lbuf;

enum allowed { ERROR_ONLY, OR_INVALID_PARAM, OR_PERMISSION_ERROR };

/* One forbidden post: how it must end. */
static void forbidden(gni_ep_handle_t ep, gni_cq_handle_t cq,
		      gni_post_descriptor_t *d, enum allowed also,
		      const char *what)
{
	struct completion c;
	int ok;

	memset(lbuf, 0xee, 64);
	post_wait(ep, cq, d, &c);
	if (c.post_rc != GNI_RC_SUCCESS)
		ok = (also == OR_INVALID_PARAM &&
		      c.post_rc == GNI_RC_INVALID_PARAM) ||
		     (also == OR_PERMISSION_ERROR &&
		      c.post_rc == GNI_RC_PERMISSION_ERROR);
	else
		ok = completed_error(&c, d);
	if (d->type == GNI_POST_FMA_GET || d->type == GNI_POST_AMO) {
		int i;

		for (i = 0; i < 64 && lbuf[i] == 0xee; i++)
			;
		if (i < 64) {
			diag("%s: local byte %d changed to 0x%02x", what, i,
			     lbuf[i]);
			ok = 0;
		}
	}
	check(ok, "%s: %s", what, describe(&c));
}

static void rw(gni_post_descriptor_t *d, gni_post_type_t type, uint64_t r,
	       const gni_mem_handle_t *rmh, uint64_t len)
{
	desc_rw(d, type, lbuf, &lmh, r, rmh, len);
}

/* A page's bytes all @fill but [skip, skip + n); the first bad one, or -1 */
static int bad_byte(const uint8_t *p, size_t len, uint8_t fill, size_t skip,
		    size_t n, const uint8_t *want)
{
	size_t i;

	for (i = 0; i < len; i++) {
		uint8_t w = i >= skip && i < skip + n ? want[i - skip] : fill;

		if (p[i] != w)
			return (int)i;
	}
	return -1;
}

static const uint8_t ctrl[8] = { 'c', 'o', 'n', 't', 'r', 'o', 'l', '!' };

static void attach_refused(uint8_t ptag, uint32_t cookie, const char *what)
{
	gni_cdm_handle_t cdm;
	gni_nic_handle_t nic;
	uint32_t addr;
	gni_return_t rc;

	rc = GNI_CdmCreate(3000 + job.rank, ptag, cookie, 0, &cdm);
	if (!check(rc == GNI_RC_SUCCESS, "GNI_CdmCreate(ptag %u, cookie 0x%x) "
		   "(%s): %s", ptag, cookie, what, rc_str(rc)))
		return;
	rc = GNI_CdmAttach(cdm, job.dev_id, &addr, &nic);
	check(rc == GNI_RC_PERMISSION_ERROR, "GNI_CdmAttach of it: %s (want "
	      "GNI_RC_PERMISSION_ERROR)", rc_str(rc));
	rc = GNI_CdmDestroy(cdm);
	check(rc == GNI_RC_SUCCESS, "GNI_CdmDestroy of it: %s", rc_str(rc));
}

int main(void)
{
	unsigned long long alt_ptag = 0, alt_cookie = 0;
	gni_cdm_handle_t cdm2 = NULL;
	gni_nic_handle_t nic2 = NULL;
	gni_cq_handle_t cq2 = NULL;
	gni_ep_handle_t ep2 = NULL;
	gni_mem_handle_t lmh2;
	struct victim mine, *all;
	gni_post_descriptor_t d;
	struct completion c;
	uint8_t *area, *v, *ro, *dpg, *altpg, *lbuf2;
	gni_mem_handle_t h;
	uint32_t addr2;
	gni_return_t rc;
	int have_alt, ok;

	job_init("ugni_isolation", 2);
	have_alt = !env_number("VGEMINI_ALT_PTAG", 255, &alt_ptag) &&
		   !env_number("VGEMINI_ALT_COOKIE", 0xffffffffu, &alt_cookie);

	/* guard | V | guard | RO | D | ALT */
	area = alloc_aligned(PAGE, 6 * PAGE);
	v = area + PAGE;
	ro = area + 3 * PAGE;
	dpg = area + 4 * PAGE;
	altpg = area + 5 * PAGE;
	memset(area, FILL_V, 3 * PAGE);
	memset(ro, FILL_RO, PAGE);
	memset(dpg, FILL_D, PAGE);
	memset(altpg, FILL_ALT, PAGE);
	lbuf = malloc(128);
	lbuf2 = malloc(128);
	if (!lbuf || !lbuf2)
		job_bail("out of memory");
	lmh = reg(job.nic, lbuf, 128, NULL, GNI_MEM_READWRITE,
		  "the local buffer");
	memset(&mine, 0, sizeof(mine));
	if (job.rank == 0) {
		mine.v.addr = (uintptr_t)v;
		mine.v.mh = reg(job.nic, v, PAGE, NULL, GNI_MEM_READWRITE,
				"V, between two guard pages");
		mine.ro.addr = (uintptr_t)ro;
		mine.ro.mh = reg(job.nic, ro, PAGE, NULL, GNI_MEM_READ_ONLY,
				 "a page read-only");
		mine.d.addr = (uintptr_t)dpg;
		mine.d.mh = reg(job.nic, dpg, PAGE, NULL, GNI_MEM_READWRITE,
				"a page to deregister");
	}

	/* The other domain: a second CDM, NIC handle, CQ and endpoint. */
	if (have_alt && job.rank <= 1) {
		rc = GNI_CdmCreate(1000 + job.rank, alt_ptag, alt_cookie, 0,
				   &cdm2);
		if (rc == GNI_RC_SUCCESS)
			rc = GNI_CdmAttach(cdm2, job.dev_id, &addr2, &nic2);
		check(rc == GNI_RC_SUCCESS && nic2 != job.nic &&
		      addr2 == job.addr, "a second CDM (ptag %llu, cookie "
		      "0x%llx) attached in the same process: %s, NIC handle "
		      "%p (the job's %p), address 0x%x", alt_ptag, alt_cookie,
		      rc_str(rc), (void *)nic2, (void *)job.nic,
		      rc == GNI_RC_SUCCESS ? addr2 : 0);
		if (rc != GNI_RC_SUCCESS)
			job_bail("no CDM in the other domain");
		rc = GNI_CqCreate(nic2, 64, 0, GNI_CQ_NOBLOCK, NULL, NULL,
				  &cq2);
		if (rc == GNI_RC_SUCCESS)
			rc = GNI_EpCreate(nic2, cq2, &ep2);
		if (rc == GNI_RC_SUCCESS)
			rc = GNI_EpBind(ep2, job.addrs[0], 1000);
		if (!check(rc == GNI_RC_SUCCESS, "its CQ, and an endpoint "
			   "bound to rank 0's CDM of that domain: %s",
			   rc_str(rc)))
			job_bail("no endpoint in the other domain");
		lmh2 = reg(nic2, lbuf2, 128, NULL, GNI_MEM_READWRITE,
			   "a local buffer in the other domain");
		if (job.rank == 0) {
			mine.alt.addr = (uintptr_t)altpg;
			mine.alt.mh = reg(nic2, altpg, PAGE, NULL,
					  GNI_MEM_READWRITE,
					  "a page in the other domain");
		}
	} else if (!have_alt) {
		skip("the other domain: no VGEMINI_ALT_PTAG/VGEMINI_ALT_COOKIE "
		     "(vgemini run --alt-domain)");
	}

	all = calloc(job.size, sizeof(*all));
	if (!all)
		job_bail("out of memory");
	allgather(&mine, all, sizeof(mine));
	if (job.rank == 0) {
		h = mine.d.mh;
		rc = GNI_MemDeregister(job.nic, &h);
		check(rc == GNI_RC_SUCCESS, "GNI_MemDeregister of the page "
		      "whose handle rank 1 has: %s", rc_str(rc));
	}
	barrier();

	if (job.rank == 1) {
		const struct victim *r0 = &all[0];

		rw(&d, GNI_POST_FMA_PUT, r0->d.addr, &r0->d.mh, 8);
		forbidden(job.ep[0], job.cq, &d, ERROR_ONLY,
			  "PUT through a deregistered handle");
		rw(&d, GNI_POST_FMA_GET, r0->d.addr, &r0->d.mh, 8);
		forbidden(job.ep[0], job.cq, &d, ERROR_ONLY,
			  "GET through a deregistered handle");

		h = r0->v.mh;
		h.qword2 ^= 1ull << MH_CRC_SHIFT;
		rw(&d, GNI_POST_FMA_PUT, r0->v.addr, &h, 8);
		memset(&c, 0, sizeof(c));
		c.post_rc = GNI_PostFma(job.ep[0], &d);
		check(c.post_rc == GNI_RC_INVALID_PARAM, "PUT through V's "
		      "handle with a CRC bit flipped: %s (want "
		      "GNI_RC_INVALID_PARAM)", rc_str(c.post_rc));
		if (c.post_rc == GNI_RC_SUCCESS)
			wait_event(job.cq, &c.ev);

		h = r0->v.mh;
		h.qword1 &= ~(MH_MDH_MASK << MH_MDH_SHIFT);
		h.qword1 |= (uint64_t)((mh_mdh(&r0->v.mh) + 0x7a5) &
				       MH_MDH_MASK) << MH_MDH_SHIFT;
		h.qword2 &= ~(0xffull << MH_CRC_SHIFT);
		h.qword2 |= (uint64_t)mh_crc(&h) << MH_CRC_SHIFT;
		if (mh_mdh(&h) == mh_mdh(&r0->ro.mh) ||
		    mh_mdh(&h) == mh_mdh(&r0->d.mh))
			diag("the forged MDH is one of rank 0's");
		rw(&d, GNI_POST_FMA_PUT, r0->v.addr, &h, 8);
		forbidden(job.ep[0], job.cq, &d, ERROR_ONLY,
			  "PUT through a handle with a valid CRC and an MDH "
			  "rank 0 never had");

		rw(&d, GNI_POST_FMA_PUT, r0->v.addr + PAGE, &r0->v.mh, 8);
		forbidden(job.ep[0], job.cq, &d, OR_INVALID_PARAM,
			  "PUT just past the end of V");
		rw(&d, GNI_POST_FMA_PUT, r0->v.addr - 8, &r0->v.mh, 8);
		forbidden(job.ep[0], job.cq, &d, OR_INVALID_PARAM,
			  "PUT just before V");
		rw(&d, GNI_POST_FMA_GET, r0->v.addr + PAGE, &r0->v.mh, 8);
		forbidden(job.ep[0], job.cq, &d, OR_INVALID_PARAM,
			  "GET just past the end of V");

		rw(&d, GNI_POST_FMA_PUT, r0->ro.addr, &r0->ro.mh, 8);
		forbidden(job.ep[0], job.cq, &d, OR_PERMISSION_ERROR,
			  "PUT into the read-only page");
		desc_amo(&d, GNI_FMA_ATOMIC_FADD, lbuf, &lmh, r0->ro.addr,
			 &r0->ro.mh, 1, 0);
		forbidden(job.ep[0], job.cq, &d, OR_PERMISSION_ERROR,
			  "FADD into the read-only page");
		memset(lbuf, 0, 64);
		rw(&d, GNI_POST_FMA_GET, r0->ro.addr + 8, &r0->ro.mh, 16);
		ok = post_wait(job.ep[0], job.cq, &d, &c);
		check(ok &&
		      lbuf[0] == FILL_RO && lbuf[15] == FILL_RO,
		      "GET from the read-only page works: %s", describe(&c));

		if (have_alt) {
			desc_rw(&d, GNI_POST_FMA_PUT, lbuf2, &lmh2, r0->v.addr,
				&r0->v.mh, 8);
			forbidden(ep2, cq2, &d, ERROR_ONLY, "the other "
				  "domain's PUT into V (the job's domain)");
			desc_rw(&d, GNI_POST_FMA_GET, lbuf2, &lmh2,
				r0->v.addr, &r0->v.mh, 8);
			memset(lbuf2, 0xee, 64);
			forbidden(ep2, cq2, &d, ERROR_ONLY, "the other "
				  "domain's GET from V");
			check(lbuf2[0] == 0xee, "... and it read nothing "
			      "(0x%02x)", lbuf2[0]);
			desc_amo(&d, GNI_FMA_ATOMIC_FADD, lbuf2, &lmh2,
				 r0->v.addr, &r0->v.mh, 1, 0);
			forbidden(ep2, cq2, &d, ERROR_ONLY, "the other "
				  "domain's FADD on V");
			rw(&d, GNI_POST_FMA_PUT, r0->alt.addr, &r0->alt.mh,
			   8);
			forbidden(job.ep[0], job.cq, &d, ERROR_ONLY, "the "
				  "job's PUT into rank 0's page of the other "
				  "domain");
			/* each domain reaches its own memory */
			memcpy(lbuf2, ctrl, sizeof(ctrl));
			desc_rw(&d, GNI_POST_FMA_PUT, lbuf2, &lmh2,
				r0->alt.addr + CTRL_ALT_OFF, &r0->alt.mh, 8);
			ok = post_wait(ep2, cq2, &d, &c);
			check(ok, "the other domain's "
			      "PUT into its own page of rank 0: %s",
			      describe(&c));
		}
		/* and after all that, the job's endpoint still works */
		memcpy(lbuf, ctrl, sizeof(ctrl));
		rw(&d, GNI_POST_FMA_PUT, r0->v.addr + CTRL_OFF, &r0->v.mh, 8);
		ok = post_wait(job.ep[0], job.cq, &d, &c);
		check(ok, "a PUT into V at %d "
		      "after the errors: %s", CTRL_OFF, describe(&c));
	}
	barrier();

	if (job.rank == 0) {
		int b;

		b = bad_byte(area, PAGE, FILL_V, 0, 0, NULL);
		check(b < 0, "the guard page before V is untouched (byte %d)",
		      b);
		b = bad_byte(v, PAGE, FILL_V, CTRL_OFF, sizeof(ctrl), ctrl);
		check(b < 0, "V holds only the control PUT (byte %d)", b);
		b = bad_byte(v + PAGE, PAGE, FILL_V, 0, 0, NULL);
		check(b < 0, "the guard page after V is untouched (byte %d)",
		      b);
		b = bad_byte(ro, PAGE, FILL_RO, 0, 0, NULL);
		check(b < 0, "the read-only page is untouched (byte %d)", b);
		b = bad_byte(dpg, PAGE, FILL_D, 0, 0, NULL);
		check(b < 0, "the deregistered page is untouched (byte %d)",
		      b);
		if (have_alt) {
			b = bad_byte(altpg, PAGE, FILL_ALT, CTRL_ALT_OFF,
				     sizeof(ctrl), ctrl);
			check(b < 0, "the other domain's page holds only its "
			      "own domain's PUT (byte %d)", b);
		}
	}

	/* Attaching to domains nobody configured */
	attach_refused(job.ptag, job.cookie ^ 0x5a5a0000u,
		       "the job's ptag, a cookie nobody configured");
	if (have_alt && alt_cookie != job.cookie)
		attach_refused(alt_ptag, job.cookie,
			       "the other domain's ptag, the job's cookie");
	barrier();

	if (cdm2) {
		if (job.rank == 0) {
			h = mine.alt.mh;
			GNI_MemDeregister(nic2, &h);
		}
		GNI_MemDeregister(nic2, &lmh2);
		GNI_EpUnbind(ep2);
		GNI_EpDestroy(ep2);
		GNI_CqDestroy(cq2);
		rc = GNI_CdmDestroy(cdm2);
		check(rc == GNI_RC_SUCCESS, "the other domain's CDM destroyed: "
		      "%s", rc_str(rc));
	}
	if (job.rank == 0) {
		h = mine.v.mh;
		GNI_MemDeregister(job.nic, &h);
		h = mine.ro.mh;
		GNI_MemDeregister(job.nic, &h);
	}
	GNI_MemDeregister(job.nic, &lmh);
	job_fini();
	free(all);
	return job_finish();
}
