// SPDX-License-Identifier: GPL-2.0-only
/*
 * ugni_memcalls: the memory calls a program uses to address a peer's
 * memory without being sent its handle, and to list its own
 * registrations; through gni_pub.h and pmi.h alone.
 *
 *     vgemini run -n 2 ugni_memcalls
 *
 *  1. GNI_GetNttGran of the job's device: SUCCESS, granularity 0 (no
 *     NTT is configured); NULL and a device the node lacks:
 *     INVALID_PARAM.
 *  2. GNI_SetMddResources: NULL NIC, 0 and 4097 entries INVALID_PARAM; a
 *     block of 16.  GNI_MEM_USE_VMDH past the block INVALID_PARAM, -1
 *     takes a free index.
 *  3. Ranks 0 and 1 (on two nodes) each map a buffer at the same fixed
 *     address and register it with GNI_MEM_USE_VMDH at index 9; a second
 *     registration at index 9 is ERROR_RESOURCE.  Rank 0 builds rank 1's
 *     handle with GNI_RebuildMemHndl from its own (same address and
 *     length, index 9): it equals the handle rank 1 got, which is
 *     gathered only to compare.  With the rebuilt handle rank 0 PUTs
 *     through the FMA and through the BTE (GNI_PostRdma) into rank 1's
 *     buffer and GETs from it; each checked byte for byte.  A handle
 *     rebuilt with an index nobody registered at ends the PUT in an error
 *     event.  GNI_RebuildMemHndl's refusals: NULL, a handle never set
 *     (INVALID_STATE), index 4096.
 *  4. GNI_MemQueryHndls walks each rank's registrations from the zero
 *     handle: the vMDH buffer, a source, a destination and a segmented
 *     one, in that order, with the address and length each was
 *     registered with (a segmented one: its first segment's address, the
 *     segments' lengths added up), then NO_MATCH; one deregistered in
 *     between is not listed.  Its refusals: a NIC and a file, neither,
 *     NULL, a file that is not a NIC's (INVALID_PARAM), after a peer's,
 *     a deregistered or a corrupted handle (INVALID_STATE); address and
 *     length 0 on every error.  A /dev/kgniN file of its own, with no
 *     registration: NO_MATCH.
 */
#include "ugni_job.h"

#include <fcntl.h>
#include <sys/mman.h>

/* The vMDH buffer: at one address in every rank, 64 KiB */
#define VMDH_VA		((uint64_t)0x5a5a00000000)
#define VMDH_LEN	(64u << 10)
#define VMDH_BLOCK	16
#define VMDH_INDEX	9
#define VMDH_UNUSED	10	/* an index nobody registers at */
#define VMDH_ENTRIES	4096	/* a Gemini's MDDs */

/* Where rank 0 writes and reads in rank 1's buffer */
#define FMA_OFF		256		/* FMA PUT, 4 KiB */
#define FMA_LEN		4096
#define RDMA_OFF	8192		/* BTE PUT, 16 KiB */
#define RDMA_LEN	16384
#define GET_OFF		32768		/* FMA GET, 4 KiB */
#define GET_LEN		4096
#define BAD_OFF		49152		/* the PUT with a wrong index */
#define BUF_LEN		(64u << 10)	/* source and destination */

static uint8_t pat(int who, uint64_t i)
{
	return (uint8_t)(i * 7 + 13 * (uint64_t)who + 1);
}

static int same_mh(const gni_mem_handle_t *a, const gni_mem_handle_t *b)
{
	return a->qword1 == b->qword1 && a->qword2 == b->qword2;
}

static const char *mh_str(const gni_mem_handle_t *h)
{
	static char buf[2][48];
	static int k;

	k ^= 1;
	snprintf(buf[k], sizeof(buf[k]), "0x%016" PRIx64 ":0x%016" PRIx64,
		 h->qword1, h->qword2);
	return buf[k];
}

/* A registration this rank holds, as GNI_MemQueryHndls must list it */
struct held {
	gni_mem_handle_t mh;
	uint64_t addr, len;
	const char *what;
};

static void ntt_gran(void)
{
	uint32_t gran = 77;
	gni_return_t rc;

	rc = GNI_GetNttGran(job.dev_id, &gran);
	check(rc == GNI_RC_SUCCESS && gran == 0, "GNI_GetNttGran(dev %u): %s, "
	      "granularity %u (no NTT is configured: 0)", job.dev_id,
	      rc_str(rc), gran);
	rc = GNI_GetNttGran(job.dev_id, NULL);
	check(rc == GNI_RC_INVALID_PARAM, "GNI_GetNttGran(NULL): %s",
	      rc_str(rc));
	gran = 77;
	rc = GNI_GetNttGran(7, &gran);
	check(rc == GNI_RC_INVALID_PARAM && gran == 77,
	      "GNI_GetNttGran(dev 7), which the node lacks: %s", rc_str(rc));
}

static void mdd_resources(void *scratch)
{
	gni_mem_handle_t h;
	gni_return_t rc;

	check(GNI_SetMddResources(NULL, 4) == GNI_RC_INVALID_PARAM &&
	      GNI_SetMddResources(job.nic, 0) == GNI_RC_INVALID_PARAM &&
	      GNI_SetMddResources(job.nic, VMDH_ENTRIES + 1) ==
	      GNI_RC_INVALID_PARAM,
	      "GNI_SetMddResources: NULL NIC, 0 and 4097 entries: "
	      "INVALID_PARAM");
	rc = GNI_SetMddResources(job.nic, VMDH_BLOCK);
	if (!check(rc == GNI_RC_SUCCESS, "GNI_SetMddResources(%d): %s",
		   VMDH_BLOCK, rc_str(rc)))
		job_bail("no vMDH block");
	memset(&h, 0, sizeof(h));
	rc = GNI_MemRegister(job.nic, (uint64_t)(uintptr_t)scratch, 64, NULL,
			     GNI_MEM_USE_VMDH, VMDH_BLOCK, &h);
	check(rc == GNI_RC_INVALID_PARAM && !h.qword1 && !h.qword2,
	      "GNI_MEM_USE_VMDH at index %d of a block of %d: %s, handle "
	      "untouched", VMDH_BLOCK, VMDH_BLOCK, rc_str(rc));
	rc = GNI_MemRegister(job.nic, (uint64_t)(uintptr_t)scratch, 64, NULL,
			     GNI_MEM_USE_VMDH, (uint32_t)-1, &h);
	if (check(rc == GNI_RC_SUCCESS, "GNI_MEM_USE_VMDH at index -1 (any "
		  "free one): %s", rc_str(rc))) {
		rc = GNI_MemDeregister(job.nic, &h);
		check(rc == GNI_RC_SUCCESS, "... and GNI_MemDeregister: %s",
		      rc_str(rc));
	}
}

static void rebuild_refusals(const gni_mem_handle_t *own)
{
	gni_mem_handle_t zero, d, keep;
	gni_return_t rc;

	memset(&zero, 0, sizeof(zero));
	memset(&d, 0x5a, sizeof(d));
	keep = d;
	rc = GNI_RebuildMemHndl(NULL, VMDH_INDEX, &d);
	check(rc == GNI_RC_INVALID_PARAM && same_mh(&d, &keep),
	      "GNI_RebuildMemHndl(NULL source): %s", rc_str(rc));
	rc = GNI_RebuildMemHndl((gni_mem_handle_t *)own, VMDH_INDEX, NULL);
	check(rc == GNI_RC_INVALID_PARAM, "GNI_RebuildMemHndl(NULL "
	      "destination): %s", rc_str(rc));
	rc = GNI_RebuildMemHndl(&zero, VMDH_INDEX, &d);
	check(rc == GNI_RC_INVALID_STATE && same_mh(&d, &keep),
	      "GNI_RebuildMemHndl of a handle never set: %s", rc_str(rc));
	rc = GNI_RebuildMemHndl((gni_mem_handle_t *)own, VMDH_ENTRIES, &d);
	check(rc == GNI_RC_INVALID_PARAM && same_mh(&d, &keep),
	      "GNI_RebuildMemHndl to index %d: %s", VMDH_ENTRIES, rc_str(rc));
}

/* GNI_PostRdma on the endpoint to rank 1, and its one event */
static int rdma_wait(gni_post_descriptor_t *d, struct completion *c)
{
	memset(c, 0, sizeof(*c));
	c->ev_rc = c->gc_rc = GNI_RC_NOT_DONE;
	c->post_rc = GNI_PostRdma(job.ep[1], d);
	if (c->post_rc != GNI_RC_SUCCESS)
		return 0;
	c->ev_rc = wait_event(job.cq, &c->ev);
	if (c->ev_rc == GNI_RC_NOT_DONE)
		return 0;
	if (!GNI_CQ_STATUS_OK(c->ev))
		GNI_CqErrorStr(c->ev, c->err, sizeof(c->err));
	c->gc_rc = GNI_GetCompleted(job.cq, c->ev, &c->pd);
	return completed_ok(c, d);
}

/* Bytes [off, off + len) of @p against pat(@who, i); the first bad one */
static int pattern_ok(const volatile uint8_t *p, uint64_t off, uint64_t len,
		      int who, uint64_t *bad)
{
	uint64_t i;

	for (i = 0; i < len; i++) {
		if (p[off + i] != pat(who, i)) {
			*bad = i;
			return 0;
		}
	}
	return 1;
}

/*
 * Rank 0's side of part 3: rank 1's handle rebuilt from its own; PUTs
 * and a GET through it.
 */
static void rank0_data(const gni_mem_handle_t *own,
		       const gni_mem_handle_t *peer_real, uint8_t *src,
		       const gni_mem_handle_t *src_mh, uint8_t *dst,
		       const gni_mem_handle_t *dst_mh)
{
	gni_post_descriptor_t d;
	struct completion c;
	gni_mem_handle_t rmh, wrong;
	gni_return_t rc;
	uint64_t i, bad = 0;
	int ok;

	rc = GNI_RebuildMemHndl((gni_mem_handle_t *)own, VMDH_INDEX, &rmh);
	check(rc == GNI_RC_SUCCESS, "GNI_RebuildMemHndl(own handle, index "
	      "%d): %s", VMDH_INDEX, rc_str(rc));
	check(same_mh(&rmh, peer_real), "the rebuilt handle %s is the one "
	      "rank 1's registration at index %d gave, %s (gathered only to "
	      "compare)", mh_str(&rmh), VMDH_INDEX, mh_str(peer_real));

	for (i = 0; i < BUF_LEN; i++)
		src[i] = pat(0, i);
	desc_rw(&d, GNI_POST_FMA_PUT, src, src_mh, VMDH_VA + FMA_OFF, &rmh,
		FMA_LEN);
	/* the post before describe(): arguments have no order */
	ok = post_wait(job.ep[1], job.cq, &d, &c);
	check(ok, "FMA PUT of %d bytes to rank 1 through the rebuilt handle: "
	      "%s", FMA_LEN, describe(&c));
	desc_rw(&d, GNI_POST_RDMA_PUT, src, src_mh, VMDH_VA + RDMA_OFF, &rmh,
		RDMA_LEN);
	ok = rdma_wait(&d, &c);
	check(ok, "RDMA PUT of %d bytes to rank 1 through the rebuilt handle: "
	      "%s", RDMA_LEN, describe(&c));
	memset(dst, 0, GET_LEN);
	desc_rw(&d, GNI_POST_FMA_GET, dst, dst_mh, VMDH_VA + GET_OFF, &rmh,
		GET_LEN);
	ok = post_wait(job.ep[1], job.cq, &d, &c);
	if (check(ok, "FMA GET of %d bytes from rank 1 through the rebuilt "
		  "handle: %s", GET_LEN, describe(&c)))
		check(pattern_ok(dst, 0, GET_LEN, 1, &bad), "the GET brought "
		      "rank 1's bytes (first bad at %" PRIu64 ")", bad);

	/* an index nobody registered at: the target refuses */
	rc = GNI_RebuildMemHndl((gni_mem_handle_t *)own, VMDH_UNUSED, &wrong);
	check(rc == GNI_RC_SUCCESS && !same_mh(&wrong, &rmh),
	      "GNI_RebuildMemHndl(own handle, index %d): %s, another handle",
	      VMDH_UNUSED, rc_str(rc));
	desc_rw(&d, GNI_POST_FMA_PUT, src, src_mh, VMDH_VA + BAD_OFF, &wrong,
		64);
	post_wait(job.ep[1], job.cq, &d, &c);
	check(completed_error(&c, &d), "FMA PUT through a handle of index %d, "
	      "where rank 1 registered nothing: one error event (%s)",
	      VMDH_UNUSED, describe(&c));
}

/* Rank 1's side of part 3, after rank 0 is done */
static void rank1_check(const volatile uint8_t *buf)
{
	uint64_t bad = 0, i;
	int untouched = 1;

	check(pattern_ok(buf, FMA_OFF, FMA_LEN, 0, &bad), "rank 0's FMA PUT "
	      "landed at offset %d of my index %d buffer (first bad at %"
	      PRIu64 ")", FMA_OFF, VMDH_INDEX, bad);
	check(pattern_ok(buf, RDMA_OFF, RDMA_LEN, 0, &bad), "rank 0's RDMA "
	      "PUT landed at offset %d (first bad at %" PRIu64 ")", RDMA_OFF,
	      bad);
	for (i = 0; i < FMA_OFF; i++)
		untouched &= buf[i] == 0xee;
	for (i = FMA_OFF + FMA_LEN; i < RDMA_OFF; i++)
		untouched &= buf[i] == 0xee;
	for (i = BAD_OFF; i < BAD_OFF + 64; i++)
		untouched &= buf[i] == 0xee;
	check(untouched, "the bytes around them, and where the PUT with a "
	      "wrong index aimed, are untouched");
}

/* Walk the NIC's registrations: @n of them, in this order */
static void query_walk(const struct held *h, int n)
{
	gni_mem_handle_t mh;
	uint64_t addr, len;
	gni_return_t rc;
	int i;

	memset(&mh, 0, sizeof(mh));
	for (i = 0; i < n; i++) {
		addr = len = 1;
		rc = GNI_MemQueryHndls(job.nic, -1, &mh, &addr, &len);
		if (!check(rc == GNI_RC_SUCCESS && same_mh(&mh, &h[i].mh) &&
			   addr == h[i].addr && len == h[i].len,
			   "GNI_MemQueryHndls, registration %d: %s, %s at 0x%"
			   PRIx64 ", %" PRIu64 " bytes (want the %s: %s at "
			   "0x%" PRIx64 ", %" PRIu64 ")", i, rc_str(rc),
			   mh_str(&mh), addr, len, h[i].what,
			   mh_str(&h[i].mh), h[i].addr, h[i].len))
			return;
	}
	addr = len = 1;
	rc = GNI_MemQueryHndls(job.nic, -1, &mh, &addr, &len);
	check(rc == GNI_RC_NO_MATCH && !addr && !len, "GNI_MemQueryHndls "
	      "after the last: %s, address %" PRIu64 ", length %" PRIu64, rc_str(rc),
	      addr, len);
}

/* One call that must fail with @want, address and length 0 */
static void query_refused(gni_nic_handle_t nic, int fd, gni_mem_handle_t *mh,
			  gni_return_t want, const char *what)
{
	uint64_t addr = 1, len = 1;
	gni_return_t rc = GNI_MemQueryHndls(nic, fd, mh, &addr, &len);

	check(rc == want && !addr && !len, "GNI_MemQueryHndls %s: %s (want "
	      "%s), address %" PRIu64 ", length %" PRIu64, what, rc_str(rc),
	      rc_str(want), addr, len);
}

static void query_refusals(const gni_mem_handle_t *peer,
			   const gni_mem_handle_t *gone,
			   const gni_mem_handle_t *mine)
{
	gni_mem_handle_t mh, zero;
	uint64_t addr = 1, len = 1;
	char dev[32];
	int fd;

	memset(&zero, 0, sizeof(zero));
	mh = zero;
	query_refused(job.nic, 0, &mh, GNI_RC_INVALID_PARAM,
		      "with a NIC and a file");
	query_refused(NULL, -1, &mh, GNI_RC_INVALID_PARAM,
		      "with neither a NIC nor a file");
	check(GNI_MemQueryHndls(job.nic, -1, NULL, &addr, &len) ==
	      GNI_RC_INVALID_PARAM && !addr && !len &&
	      GNI_MemQueryHndls(job.nic, -1, &mh, NULL, &len) ==
	      GNI_RC_INVALID_PARAM &&
	      GNI_MemQueryHndls(job.nic, -1, &mh, &addr, NULL) ==
	      GNI_RC_INVALID_PARAM, "GNI_MemQueryHndls with a NULL handle, "
	      "address or length: INVALID_PARAM");
	fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (fd >= 0) {
		query_refused(NULL, fd, &mh, GNI_RC_INVALID_PARAM,
			      "of /dev/null");
		close(fd);
	}
	snprintf(dev, sizeof(dev), "/dev/kgni%u",
		 job.dev_id == (uint32_t)-1 ? 0 : job.dev_id);
	fd = open(dev, O_RDWR | O_CLOEXEC);
	if (check(fd >= 0, "open %s of my own", dev)) {
		mh = zero;
		query_refused(NULL, fd, &mh, GNI_RC_NO_MATCH,
			      "of that file, with no registration");
		mh = *mine;
		query_refused(NULL, fd, &mh, GNI_RC_INVALID_STATE,
			      "of that file after my NIC's handle");
		close(fd);
	}
	mh = *peer;
	query_refused(job.nic, -1, &mh, GNI_RC_INVALID_STATE,
		      "after the peer's handle");
	check(same_mh(&mh, peer), "... the handle untouched");
	mh = *gone;
	query_refused(job.nic, -1, &mh, GNI_RC_INVALID_STATE,
		      "after a deregistered handle");
	mh = *mine;
	mh.qword2 ^= 1ull << 56;
	query_refused(job.nic, -1, &mh, GNI_RC_INVALID_STATE,
		      "after a handle with a bad CRC");
}

int main(void)
{
	struct held held[4];
	gni_mem_handle_t vmh, dup, src_mh, dst_mh, seg_mh, gone_mh;
	gni_mem_handle_t *all_vmh, *all_src;
	gni_mem_segment_t seg[2];
	volatile uint8_t *vbuf;
	uint8_t *src, *dst, *scratch;
	gni_return_t rc;
	int pair, same_node;
	void *p;

	job_init("ugni_memcalls", 2);
	/* ranks 0 and 1 do part 3; the others (if any) the local parts */
	pair = job.rank < 2;
	same_node = job.addrs[0] == job.addrs[1];

	ntt_gran();
	scratch = alloc_aligned(PAGE, PAGE);
	mdd_resources(scratch);

	/* the buffer at one address in every rank */
	p = mmap((void *)(uintptr_t)VMDH_VA, VMDH_LEN, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (!check(p == (void *)(uintptr_t)VMDH_VA, "mmap of %u bytes at 0x%"
		   PRIx64 ": %p", VMDH_LEN, VMDH_VA, p))
		job_bail("no buffer at the fixed address");
	vbuf = p;
	memset((void *)vbuf, 0xee, VMDH_LEN);
	if (job.rank == 1)
		for (uint64_t i = 0; i < GET_LEN; i++)
			vbuf[GET_OFF + i] = pat(1, i);

	memset(&vmh, 0, sizeof(vmh));
	if (pair && same_node) {
		skip("ranks 0 and 1 share a NIC: one vMDH index cannot hold "
		     "both buffers (run one rank per node)");
		pair = 0;
	}
	if (pair) {
		rc = GNI_MemRegister(job.nic, VMDH_VA, VMDH_LEN, NULL,
				     GNI_MEM_USE_VMDH, VMDH_INDEX, &vmh);
		if (!check(rc == GNI_RC_SUCCESS, "GNI_MemRegister of %u bytes "
			   "at 0x%" PRIx64 " with GNI_MEM_USE_VMDH, index %d: "
			   "%s", VMDH_LEN, VMDH_VA, VMDH_INDEX, rc_str(rc)))
			job_bail("no registration at the vMDH index");
		memset(&dup, 0, sizeof(dup));
		rc = GNI_MemRegister(job.nic, (uint64_t)(uintptr_t)scratch, 64,
				     NULL, GNI_MEM_USE_VMDH, VMDH_INDEX, &dup);
		check(rc == GNI_RC_ERROR_RESOURCE, "a second registration at "
		      "index %d: %s", VMDH_INDEX, rc_str(rc));
		rebuild_refusals(&vmh);
	} else {
		/* the same walk below: a registration of its own instead */
		vmh = reg(job.nic, (void *)vbuf, VMDH_LEN, NULL, 0,
			  "the fixed-address buffer");
	}

	src = alloc_aligned(PAGE, BUF_LEN);
	dst = alloc_aligned(PAGE, BUF_LEN);
	memset(src, 0, BUF_LEN);
	memset(dst, 0, BUF_LEN);
	src_mh = reg(job.nic, src, BUF_LEN, NULL, 0, "the source");
	gone_mh = reg(job.nic, scratch, 100, NULL, 0, "a scratch page");
	dst_mh = reg(job.nic, dst, BUF_LEN / 2, NULL, 0, "the destination");
	rc = GNI_MemDeregister(job.nic, &gone_mh);
	check(rc == GNI_RC_SUCCESS, "GNI_MemDeregister of the scratch page: "
	      "%s", rc_str(rc));
	seg[0].address = (uint64_t)(uintptr_t)dst + BUF_LEN / 2 + 100;
	seg[0].length = PAGE - 100;
	seg[1].address = (uint64_t)(uintptr_t)dst + BUF_LEN / 2 + 2 * PAGE;
	seg[1].length = 10;
	rc = GNI_MemRegisterSegments(job.nic, seg, 2, NULL, 0, (uint32_t)-1,
				     &seg_mh);
	if (!check(rc == GNI_RC_SUCCESS, "GNI_MemRegisterSegments of 2 "
		   "pieces: %s", rc_str(rc)))
		job_bail("cannot register segments");

	/* part 3: no handle is exchanged; these are gathered to compare */
	all_vmh = calloc(job.size, sizeof(*all_vmh));
	all_src = calloc(job.size, sizeof(*all_src));
	if (!all_vmh || !all_src)
		job_bail("out of memory");
	allgather(&vmh, all_vmh, sizeof(vmh));
	allgather(&src_mh, all_src, sizeof(src_mh));
	barrier();
	if (pair && job.rank == 0)
		rank0_data(&vmh, &all_vmh[1], src, &src_mh, dst, &dst_mh);
	barrier();
	if (pair && job.rank == 1)
		rank1_check(vbuf);

	/* part 4: the NIC's registrations, in the order made */
	held[0] = (struct held){ vmh, VMDH_VA, VMDH_LEN, "vMDH buffer" };
	held[1] = (struct held){ src_mh, (uint64_t)(uintptr_t)src, BUF_LEN,
				 "source" };
	held[2] = (struct held){ dst_mh, (uint64_t)(uintptr_t)dst,
				 BUF_LEN / 2, "destination" };
	held[3] = (struct held){ seg_mh, seg[0].address,
				 seg[0].length + seg[1].length, "segments" };
	query_walk(held, 4);
	query_refusals(&all_src[job.rank == 0 ? 1 : 0], &gone_mh, &src_mh);

	barrier();
	rc = GNI_MemDeregister(job.nic, &seg_mh);
	if (rc == GNI_RC_SUCCESS)
		rc = GNI_MemDeregister(job.nic, &dst_mh);
	if (rc == GNI_RC_SUCCESS)
		rc = GNI_MemDeregister(job.nic, &src_mh);
	if (rc == GNI_RC_SUCCESS)
		rc = GNI_MemDeregister(job.nic, &vmh);
	check(rc == GNI_RC_SUCCESS, "GNI_MemDeregister of everything: %s",
	      rc_str(rc));
	job_fini();
	free(all_vmh);
	free(all_src);
	return job_finish();
}
