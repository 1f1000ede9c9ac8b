/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ugni_job.h: what the uGNI job tests share.  Written against gni_pub.h
 * and pmi.h only, the way a Cray user writes a uGNI program: the job's
 * credentials from PMI_GNI_PTAG, PMI_GNI_COOKIE and PMI_GNI_DEV_ID, one
 * CDM per rank (inst_id = rank), a CQ for local events, an endpoint bound
 * to every rank, and addresses, memory handles and buffer addresses
 * exchanged with PMI_Allgather.
 *
 * Each program prints TAP-style lines ("ok N - what", "not ok N - what",
 * "# ..." for diagnostics) and ends with
 *
 *     <prog>: rank R of N: K checks passed
 *
 * or "<prog>: rank R of N: F of K checks FAILED", exiting 0 only when
 * every check passed.
 */
#ifndef UGNI_JOB_H
#define UGNI_JOB_H

#define _GNU_SOURCE
#include <inttypes.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gni_pub.h>
#include <pmi.h>

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define PAGE			4096
/* Longest wait for one completion: TCG guests are slow, not that slow. */
#define EVENT_TIMEOUT_S		20.0
#define LOCAL_CQ_ENTRIES	1024
#define LOW48			((1ull << 48) - 1)

/* What every rank publishes about one registered buffer */
struct job_buf {
	uint64_t addr;
	gni_mem_handle_t mh;
};

struct job {
	const char *prog;
	int rank, size;
	uint8_t ptag;
	uint32_t cookie;
	uint32_t dev_id;
	gni_cdm_handle_t cdm;
	gni_nic_handle_t nic;
	uint32_t addr;		/* this rank's PE (GNI_CdmAttach) */
	uint32_t *addrs;	/* every rank's, by rank */
	gni_cq_handle_t cq;	/* local events of every endpoint */
	gni_ep_handle_t *ep;	/* ep[r] bound to rank r (remote_id r) */
};

static int checks, failures;
static struct job job;
static int wait_spins_only;	/* wait_event() never sleeps (ugni_bench) */
/* job.cq's mode: GNI_CQ_BLOCKING for a program that GNI_CqWaitEvent()s */
static gni_cq_mode_t job_cq_mode = GNI_CQ_NOBLOCK;
/* job.cdm's modes: GNI_CDM_MODE_DUAL_EVENTS for ugni_rdma */
static uint32_t job_cdm_modes;

static inline int check(int cond, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static inline int check(int cond, const char *fmt, ...)
{
	va_list ap;

	checks++;
	if (!cond)
		failures++;
	printf("%s %d - ", cond ? "ok" : "not ok", checks);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	return cond;
}

static inline void skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline void skip(const char *fmt, ...)
{
	va_list ap;

	checks++;
	printf("ok %d - # SKIP ", checks);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static inline void diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline void diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static inline const char *rc_str(gni_return_t rc)
{
	return (unsigned int)rc <= GNI_RC_ERROR_NOMEM ? gni_err_str[rc] : "?";
}

static inline double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The last line, and the exit status. */
static inline int job_finish(void)
{
	if (failures)
		printf("%s: rank %d of %d: %d of %d checks FAILED\n", job.prog,
		       job.rank, job.size, failures, checks);
	else
		printf("%s: rank %d of %d: %d checks passed\n", job.prog,
		       job.rank, job.size, checks);
	fflush(stdout);
	PMI_Finalize();
	return failures ? 1 : 0;
}

/* Give up: the checks after this one cannot mean anything. */
static inline void job_bail(const char *why)
{
	printf("# bail out: %s\n", why);
	failures++;
	exit(job_finish());
}

static inline void barrier(void)
{
	if (PMI_Barrier() != PMI_SUCCESS)
		job_bail("PMI_Barrier failed");
}

static inline void allgather(void *in, void *out, int len)
{
	if (PMI_Allgather(in, out, len) != PMI_SUCCESS)
		job_bail("PMI_Allgather failed");
}

/*
 * The first entry of a colon-separated PMI_GNI_* list (one entry here;
 * Open MPI reads the first, the Cray examples the last: the same).
 */
static inline int env_number(const char *name, unsigned long long max,
		      unsigned long long *v)
{
	const char *s = getenv(name);
	char *end;

	if (!s || !*s)
		return -1;
	*v = strtoull(s, &end, 0);
	if ((*end && *end != ':') || *v > max)
		return -1;
	return 0;
}

/*
 * Poll @cq until it has an event (or EVENT_TIMEOUT_S passed: then
 * GNI_RC_NOT_DONE).  Spins a little, then sleeps 50 us between polls:
 * with --ppn 2 the other rank of the node may be the one to answer, and
 * under TCG a guest that spins holds a host core the other guests need
 * (8 spinning guests on 2 cores make every completion take ms).
 */
static inline gni_return_t wait_event(gni_cq_handle_t cq, gni_cq_entry_t *ev)
{
	double deadline = now() + EVENT_TIMEOUT_S;
	gni_return_t rc;
	unsigned int spins = 0;

	for (;;) {
		rc = GNI_CqGetEvent(cq, ev);
		if (rc != GNI_RC_NOT_DONE)
			return rc;
		if (++spins % 64 == 0 && now() > deadline)
			return GNI_RC_NOT_DONE;
		if (spins > 256 && !wait_spins_only)
			usleep(50);
	}
}

/* How one post ended, for the checks to look at */
struct completion {
	gni_return_t post_rc;	/* GNI_PostFma / GNI_PostCqWrite */
	gni_return_t ev_rc;	/* GNI_CqGetEvent of its event */
	gni_return_t gc_rc;	/* GNI_GetCompleted */
	gni_cq_entry_t ev;
	gni_post_descriptor_t *pd;
	char err[256];		/* GNI_CqErrorStr of an error event */
};

/* A successful completion of @d, described in @c. */
static inline int completed_ok(const struct completion *c,
			const gni_post_descriptor_t *d)
{
	return c->post_rc == GNI_RC_SUCCESS && c->ev_rc == GNI_RC_SUCCESS &&
	       c->gc_rc == GNI_RC_SUCCESS && c->pd == d &&
	       GNI_CQ_STATUS_OK(c->ev) && d->status == GNI_RC_SUCCESS;
}

/* An error completion of @d: event and descriptor both say so. */
static inline int completed_error(const struct completion *c,
			   const gni_post_descriptor_t *d)
{
	return c->post_rc == GNI_RC_SUCCESS &&
	       c->ev_rc == GNI_RC_TRANSACTION_ERROR &&
	       !GNI_CQ_STATUS_OK(c->ev) &&
	       c->gc_rc == GNI_RC_TRANSACTION_ERROR && c->pd == d &&
	       d->status != GNI_RC_SUCCESS;
}

static inline const char *describe(const struct completion *c)
{
	static char buf[512];

	snprintf(buf, sizeof(buf), "post %s, event %s 0x%016" PRIx64
		 " (status %" PRIu64 "%s%s), GetCompleted %s, desc %p, "
		 "desc status %" PRIu64,
		 rc_str(c->post_rc), rc_str(c->ev_rc), (uint64_t)c->ev,
		 (uint64_t)GNI_CQ_GET_STATUS(c->ev), c->err[0] ? ": " : "",
		 c->err, rc_str(c->gc_rc), (void *)c->pd,
		 c->pd ? (uint64_t)c->pd->status : 0);
	return buf;
}

/*
 * Post @d on @ep (FMA, or a CQ write when @d->type says so) and, when it
 * asks for a local event, wait for it on @cq and take the descriptor
 * back.  The outcome goes into @c; returns completed_ok().
 */
static inline int post_wait(gni_ep_handle_t ep, gni_cq_handle_t cq,
		     gni_post_descriptor_t *d, struct completion *c)
{
	memset(c, 0, sizeof(*c));
	c->ev_rc = c->gc_rc = GNI_RC_NOT_DONE;
	c->post_rc = d->type == GNI_POST_CQWRITE ? GNI_PostCqWrite(ep, d) :
		     GNI_PostFma(ep, d);
	if (c->post_rc != GNI_RC_SUCCESS ||
	    !(d->cq_mode & (GNI_CQMODE_LOCAL_EVENT | GNI_CQMODE_GLOBAL_EVENT)))
		return c->post_rc == GNI_RC_SUCCESS;
	c->ev_rc = wait_event(cq, &c->ev);
	if (c->ev_rc == GNI_RC_NOT_DONE)
		return 0;
	if (!GNI_CQ_STATUS_OK(c->ev))
		GNI_CqErrorStr(c->ev, c->err, sizeof(c->err));
	c->gc_rc = GNI_GetCompleted(cq, c->ev, &c->pd);
	return completed_ok(c, d);
}

static inline void desc_init(gni_post_descriptor_t *d, gni_post_type_t type,
		      uint16_t cq_mode)
{
	memset(d, 0, sizeof(*d));
	d->type = type;
	d->cq_mode = cq_mode;
	d->dlvr_mode = GNI_DLVMODE_PERFORMANCE;
}

/* A PUT or GET of @len bytes between local @l and remote @r. */
static inline void desc_rw(gni_post_descriptor_t *d, gni_post_type_t type,
		    void *l, const gni_mem_handle_t *lmh, uint64_t r,
		    const gni_mem_handle_t *rmh, uint64_t len)
{
	desc_init(d, type, GNI_CQMODE_GLOBAL_EVENT);
	d->local_addr = (uint64_t)(uintptr_t)l;
	d->local_mem_hndl = *lmh;
	d->remote_addr = r;
	d->remote_mem_hndl = *rmh;
	d->length = len;
}

static inline void desc_amo(gni_post_descriptor_t *d, gni_fma_cmd_type_t cmd,
		     void *l, const gni_mem_handle_t *lmh, uint64_t r,
		     const gni_mem_handle_t *rmh, uint64_t op1, uint64_t op2)
{
	desc_rw(d, GNI_POST_AMO, l, lmh, r, rmh, 8);
	d->amo_cmd = cmd;
	d->first_operand = op1;
	d->second_operand = op2;
}

static inline void *alloc_aligned(size_t align, size_t len)
{
	void *p = NULL;

	if (posix_memalign(&p, align, len))
		job_bail("out of memory");
	return p;
}

/* Register [p, p + len) on @nic with @dst_cq and @flags, or bail. */
static inline gni_mem_handle_t reg(gni_nic_handle_t nic, void *p, uint64_t len,
			    gni_cq_handle_t dst_cq, uint32_t flags,
			    const char *what)
{
	gni_mem_handle_t mh;
	gni_return_t rc;

	memset(&mh, 0, sizeof(mh));
	rc = GNI_MemRegister(nic, (uint64_t)(uintptr_t)p, len, dst_cq, flags,
			     (uint32_t)-1, &mh);
	if (!check(rc == GNI_RC_SUCCESS, "GNI_MemRegister of %s (%" PRIu64
		   " bytes at %p): %s", what, len, p, rc_str(rc)))
		job_bail("cannot register memory");
	return mh;
}

/* Every rank's (addr, mh) of one buffer, by rank. */
static inline struct job_buf *publish(void *p, const gni_mem_handle_t *mh)
{
	struct job_buf mine = { (uint64_t)(uintptr_t)p, *mh };
	struct job_buf *all = calloc(job.size, sizeof(*all));

	if (!all)
		job_bail("out of memory");
	allgather(&mine, all, sizeof(mine));
	return all;
}

/*
 * An FMA PUT of @len bytes (pattern @seed) into the next rank's buffer and
 * a GET of them back, checked byte for byte; every rank at once, @what
 * naming the moment in the checks.
 */
static inline void put_get_next(size_t len, unsigned int seed,
				const char *what)
{
	int peer = (job.rank + 1) % job.size;
	gni_post_descriptor_t d;
	struct completion c;
	gni_mem_handle_t mh;
	struct job_buf *all;
	size_t i, bad = 0;
	uint8_t *buf;
	int ok;

	/* [0, len): the source; [len, 2 len): the peer writes; then GET */
	buf = alloc_aligned(PAGE, 3 * len);
	for (i = 0; i < len; i++) {
		buf[i] = (uint8_t)(job.rank * seed + i * 7);
		buf[len + i] = 0;
		buf[2 * len + i] = 0;
	}
	mh = reg(job.nic, buf, 3 * len, NULL, GNI_MEM_READWRITE, "the buffer");
	all = publish(buf, &mh);
	barrier();
	desc_rw(&d, GNI_POST_FMA_PUT, buf, &mh, all[peer].addr + len,
		&all[peer].mh, len);
	/* post_wait() before describe(): arguments have no order */
	ok = post_wait(job.ep[peer], job.cq, &d, &c);
	check(ok, "%s an FMA PUT of %zu bytes to rank %d: %s", what, len, peer,
	      describe(&c));
	desc_rw(&d, GNI_POST_FMA_GET, buf + 2 * len, &mh, all[peer].addr + len,
		&all[peer].mh, len);
	ok = post_wait(job.ep[peer], job.cq, &d, &c);
	check(ok, "and an FMA GET of it back: %s", describe(&c));
	for (i = 0; i < len; i++)
		bad += buf[2 * len + i] != buf[i];
	check(!bad, "the bytes read back are those written (%zu differ)", bad);
	barrier();
	GNI_MemDeregister(job.nic, &mh);
	free(all);
	free(buf);
}

/*
 * PMI, the credentials, the CDM, the NIC, the local CQ, and an endpoint
 * bound to every rank (itself included).  @min_size: fewer ranks skip the
 * whole program.
 */
static inline void job_init(const char *prog, int min_size)
{
	unsigned long long ptag, cookie, dev = 0;
	int spawned = 0, r;
	gni_return_t rc;

	setvbuf(stdout, NULL, _IOLBF, 0);
	job.prog = prog;
	job.rank = -1;
	if (PMI_Init(&spawned) != PMI_SUCCESS ||
	    PMI_Get_rank(&job.rank) != PMI_SUCCESS ||
	    PMI_Get_size(&job.size) != PMI_SUCCESS)
		job_bail("PMI_Init");
	if (job.size < min_size) {
		skip("%s needs at least %d ranks, the job has %d", prog,
		     min_size, job.size);
		exit(job_finish());
	}
	if (env_number("PMI_GNI_PTAG", 255, &ptag) ||
	    env_number("PMI_GNI_COOKIE", 0xffffffffu, &cookie) ||
	    (getenv("PMI_GNI_DEV_ID") &&
	     env_number("PMI_GNI_DEV_ID", 0xffffffffu, &dev)))
		job_bail("no PMI_GNI_PTAG / PMI_GNI_COOKIE / PMI_GNI_DEV_ID");
	job.ptag = ptag;
	job.cookie = cookie;
	job.dev_id = dev;

	rc = GNI_CdmCreate(job.rank, job.ptag, job.cookie, job_cdm_modes,
			   &job.cdm);
	if (!check(rc == GNI_RC_SUCCESS, "GNI_CdmCreate(inst %d, ptag %u, "
		   "cookie 0x%x, modes 0x%x): %s", job.rank, job.ptag,
		   job.cookie, job_cdm_modes, rc_str(rc)))
		job_bail("no CDM");
	rc = GNI_CdmAttach(job.cdm, job.dev_id, &job.addr, &job.nic);
	if (!check(rc == GNI_RC_SUCCESS, "GNI_CdmAttach(dev %u): %s, "
		   "address 0x%x", job.dev_id, rc_str(rc), job.addr))
		job_bail("not attached");
	rc = GNI_CqCreate(job.nic, LOCAL_CQ_ENTRIES, 0, job_cq_mode, NULL,
			  NULL, &job.cq);
	if (!check(rc == GNI_RC_SUCCESS, "GNI_CqCreate(%d entries): %s",
		   LOCAL_CQ_ENTRIES, rc_str(rc)))
		job_bail("no CQ");

	job.addrs = calloc(job.size, sizeof(*job.addrs));
	job.ep = calloc(job.size, sizeof(*job.ep));
	if (!job.addrs || !job.ep)
		job_bail("out of memory");
	allgather(&job.addr, job.addrs, sizeof(job.addr));
	for (r = 0; r < job.size; r++) {
		rc = GNI_EpCreate(job.nic, job.cq, &job.ep[r]);
		if (rc == GNI_RC_SUCCESS)
			rc = GNI_EpBind(job.ep[r], job.addrs[r], r);
		if (rc != GNI_RC_SUCCESS) {
			check(0, "GNI_EpCreate and GNI_EpBind to rank %d "
			      "(address 0x%x): %s", r, job.addrs[r],
			      rc_str(rc));
			job_bail("no endpoint");
		}
	}
	check(1, "an endpoint bound to each of the %d ranks", job.size);
}

/* Endpoints, CQ, CDM: in that order. */
static inline void job_fini(void)
{
	gni_return_t rc, bad = GNI_RC_SUCCESS;
	int r;

	for (r = 0; r < job.size; r++) {
		rc = GNI_EpUnbind(job.ep[r]);
		if (rc == GNI_RC_SUCCESS)
			rc = GNI_EpDestroy(job.ep[r]);
		if (rc != GNI_RC_SUCCESS)
			bad = rc;
	}
	check(bad == GNI_RC_SUCCESS, "GNI_EpUnbind and GNI_EpDestroy of "
	      "every endpoint: %s", rc_str(bad));
	rc = GNI_CqDestroy(job.cq);
	check(rc == GNI_RC_SUCCESS, "GNI_CqDestroy: %s", rc_str(rc));
	rc = GNI_CdmDestroy(job.cdm);
	check(rc == GNI_RC_SUCCESS, "GNI_CdmDestroy: %s", rc_str(rc));
}

#endif /* UGNI_JOB_H */
