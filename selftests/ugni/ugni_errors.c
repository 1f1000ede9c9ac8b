// SPDX-License-Identifier: GPL-2.0-only
/*
 * ugni_errors: user-level error subscription (GNI_SubscribeErrors and the
 * calls on its handle), through gni_pub.h and pmi.h alone.
 *
 *     vgemini run -n 2 ugni_errors
 *
 *  1. Each rank subscribes on its NIC (EEQ_size 0: Cray's 64) to
 *     TRANSACTION and CRITICAL events; GNI_GetErrorMask says so.  With
 *     nothing pending GNI_GetErrorEvent is NOT_DONE and
 *     GNI_WaitErrorEvents blocks until a signal ends it (NOT_DONE after
 *     the 300 ms timer).  The refusals: NULL arguments (INVALID_PARAM),
 *     a subscription without a NIC by a user that is not root
 *     (INVALID_PARAM), GNI_SetErrorPtag to another ptag or to 0 (every
 *     ptag) PERMISSION_ERROR, to the job's own SUCCESS.
 *  2. Rank 1 registers a buffer, publishes its handle and deregisters it;
 *     rank 0 RDMA-PUTs (BTE) into the stale handle on a CQ of its own:
 *     the PUT ends in an error completion, and once the CQ is destroyed
 *     (kgni takes the transfer's slot back) the device's error status is
 *     a TRANSACTION error event of the job's ptag in rank 0's
 *     subscription: GNI_GetErrorEvent takes it, then NOT_DONE.  A second
 *     such PUT: GNI_WaitErrorEvents(4 events, timeout 100 ms) takes it,
 *     TIMEOUT since no more came.  Rank 1 (on another node) saw none.
 *  3. GNI_SetErrorMask(CRITICAL) answers the mask before; a third failed
 *     PUT is no event then.  GNI_ReleaseErrors: SUCCESS.
 */
#include "ugni_job.h"

#include <signal.h>
#include <sys/time.h>

#define MASK	(GNI_ERRMASK_TRANSACTION | GNI_ERRMASK_CRITICAL)
#define PUT_LEN	64

static void on_alarm(int sig)
{
	(void)sig;
}

/* GNI_WaitErrorEvents with nothing pending, ended by a signal */
static void wait_none(gni_err_handle_t h)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	struct itimerval it = { .it_value = { 0, 300 * 1000 } };
	gni_error_event_t ev[2];
	uint32_t n = 77;
	gni_return_t rc;
	double t;

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGALRM, &sa, NULL) || setitimer(ITIMER_REAL, &it, NULL))
		job_bail("no timer");
	t = now();
	rc = GNI_WaitErrorEvents(h, ev, 2, 0, &n);
	t = now() - t;
	check(rc == GNI_RC_NOT_DONE && n == 0 && t > 0.25 && t < 10,
	      "GNI_WaitErrorEvents with nothing pending blocks until a "
	      "signal: %s, %u events after %.3f s", rc_str(rc), n, t);
}

static void refusals(gni_err_handle_t h)
{
	gni_err_handle_t h2 = NULL;
	gni_error_event_t ev;
	gni_error_mask_t m;
	gni_return_t rc;
	uint32_t n;
	uint8_t other = job.ptag == 200 ? 201 : 200;

	check(GNI_SubscribeErrors(job.nic, job.dev_id, MASK, 0, NULL) ==
	      GNI_RC_INVALID_PARAM, "GNI_SubscribeErrors(NULL err_handle): "
	      "INVALID_PARAM");
	rc = GNI_SubscribeErrors(NULL, job.dev_id, MASK, 0, &h2);
	check(geteuid() == 0 || (rc == GNI_RC_INVALID_PARAM && !h2),
	      "GNI_SubscribeErrors(NULL nic) by uid %u: %s (a user needs a "
	      "CDM)", (unsigned int)geteuid(), rc_str(rc));
	if (rc == GNI_RC_SUCCESS)
		GNI_ReleaseErrors(h2);
	check(GNI_GetErrorMask(h, NULL) == GNI_RC_INVALID_PARAM &&
	      GNI_SetErrorMask(h, 1, NULL) == GNI_RC_INVALID_PARAM &&
	      GNI_GetErrorMask(NULL, &m) == GNI_RC_INVALID_PARAM &&
	      GNI_GetErrorEvent(h, NULL) == GNI_RC_INVALID_PARAM &&
	      GNI_WaitErrorEvents(h, NULL, 1, 0, &n) ==
	      GNI_RC_INVALID_PARAM &&
	      GNI_WaitErrorEvents(h, &ev, 0, 0, &n) == GNI_RC_INVALID_PARAM &&
	      GNI_WaitErrorEvents(h, &ev, 1, 0, NULL) ==
	      GNI_RC_INVALID_PARAM &&
	      GNI_SetErrorPtag(NULL, job.ptag) == GNI_RC_INVALID_PARAM &&
	      GNI_ReleaseErrors(NULL) == GNI_RC_INVALID_PARAM,
	      "NULL handles, masks, events, counts: INVALID_PARAM");
	if (geteuid() != 0) {
		rc = GNI_SetErrorPtag(h, other);
		check(rc == GNI_RC_PERMISSION_ERROR, "GNI_SetErrorPtag(%u), "
		      "another job's: %s", other, rc_str(rc));
		rc = GNI_SetErrorPtag(h, 0);
		check(rc == GNI_RC_PERMISSION_ERROR, "GNI_SetErrorPtag(0), "
		      "every ptag: %s", rc_str(rc));
	}
	rc = GNI_SetErrorPtag(h, job.ptag);
	check(rc == GNI_RC_SUCCESS, "GNI_SetErrorPtag(%u), the job's: %s",
	      job.ptag, rc_str(rc));
}

/*
 * Rank 0: an RDMA PUT into rank 1's stale handle @stale on a CQ and
 * endpoint of its own, then both destroyed; the completion must be an
 * error.
 */
static void failed_put(void *src, gni_mem_handle_t *smh,
		       const struct job_buf *stale, const char *what)
{
	gni_post_descriptor_t d, *pd = NULL;
	gni_cq_handle_t cq;
	gni_ep_handle_t ep;
	gni_cq_entry_t ev = 0;
	gni_return_t rc, ev_rc = GNI_RC_NOT_DONE;

	rc = GNI_CqCreate(job.nic, 16, 0, GNI_CQ_NOBLOCK, NULL, NULL, &cq);
	if (rc == GNI_RC_SUCCESS)
		rc = GNI_EpCreate(job.nic, cq, &ep);
	if (rc == GNI_RC_SUCCESS)
		rc = GNI_EpBind(ep, job.addrs[1], 1);
	if (!check(rc == GNI_RC_SUCCESS, "%s: a CQ and an endpoint to rank 1: "
		   "%s", what, rc_str(rc)))
		job_bail("no endpoint");
	desc_rw(&d, GNI_POST_RDMA_PUT, src, smh, stale->addr, &stale->mh,
		PUT_LEN);
	d.cq_mode = GNI_CQMODE_LOCAL_EVENT;
	rc = GNI_PostRdma(ep, &d);
	if (rc == GNI_RC_SUCCESS) {
		ev_rc = wait_event(cq, &ev);
		if (ev_rc != GNI_RC_NOT_DONE)
			GNI_GetCompleted(cq, ev, &pd);
	}
	check(rc == GNI_RC_SUCCESS && ev_rc == GNI_RC_TRANSACTION_ERROR &&
	      !GNI_CQ_STATUS_OK(ev) && pd == &d, "%s: RDMA PUT into the "
	      "deregistered handle: post %s, event %s (status %" PRIu64 ")",
	      what, rc_str(rc), rc_str(ev_rc),
	      (uint64_t)GNI_CQ_GET_STATUS(ev));
	rc = GNI_EpUnbind(ep);
	if (rc == GNI_RC_SUCCESS)
		rc = GNI_EpDestroy(ep);
	if (rc == GNI_RC_SUCCESS)
		rc = GNI_CqDestroy(cq);
	check(rc == GNI_RC_SUCCESS, "%s: endpoint and CQ destroyed (the "
	      "transfer's slot taken back): %s", what, rc_str(rc));
}

static int is_put_error(const gni_error_event_t *e)
{
	return e->error_category == GNI_ERRMASK_TRANSACTION &&
	       e->ptag == job.ptag && e->error_code == 0x0401 &&
	       e->info_mmrs[0] != 0 && e->timestamp != 0;
}

int main(void)
{
	gni_error_event_t ev, evs[4];
	gni_err_handle_t h = NULL;
	gni_mem_handle_t smh, dmh;
	struct job_buf *all;
	gni_error_mask_t m = 0;
	gni_return_t rc;
	uint8_t *src, *dst;
	uint32_t n = 0;

	job_init("ugni_errors", 2);

	/* 1 */
	rc = GNI_SubscribeErrors(job.nic, job.dev_id, MASK, 0, &h);
	if (!check(rc == GNI_RC_SUCCESS && h, "GNI_SubscribeErrors(nic, "
		   "TRANSACTION | CRITICAL, EEQ_size 0): %s", rc_str(rc)))
		job_bail("no subscription");
	rc = GNI_GetErrorMask(h, &m);
	check(rc == GNI_RC_SUCCESS && m == MASK, "GNI_GetErrorMask: %s, "
	      "0x%x", rc_str(rc), m);
	rc = GNI_GetErrorEvent(h, &ev);
	check(rc == GNI_RC_NOT_DONE, "GNI_GetErrorEvent with nothing "
	      "pending: %s", rc_str(rc));
	wait_none(h);
	refusals(h);

	/* 2: rank 1's handle, stale */
	src = alloc_aligned(PAGE, PAGE);
	dst = alloc_aligned(PAGE, PAGE);
	memset(src, 0x5a, PAGE);
	smh = reg(job.nic, src, PAGE, NULL, GNI_MEM_READWRITE, "the source");
	dmh = reg(job.nic, dst, PAGE, NULL, GNI_MEM_READWRITE, "the target");
	all = publish(dst, &dmh);
	rc = GNI_MemDeregister(job.nic, &dmh);
	check(rc == GNI_RC_SUCCESS, "GNI_MemDeregister of the target: %s",
	      rc_str(rc));
	barrier();
	if (job.rank == 0) {
		failed_put(src, &smh, &all[1], "first");
		rc = GNI_GetErrorEvent(h, &ev);
		check(rc == GNI_RC_SUCCESS && is_put_error(&ev),
		      "GNI_GetErrorEvent: %s, code 0x%x, class 0x%x, ptag %u "
		      "(the job's %u), serial %u, status %" PRIu64,
		      rc_str(rc), ev.error_code, ev.error_category, ev.ptag,
		      job.ptag, ev.serial_number, ev.info_mmrs[0]);
		rc = GNI_GetErrorEvent(h, &ev);
		check(rc == GNI_RC_NOT_DONE, "then GNI_GetErrorEvent: %s",
		      rc_str(rc));
		failed_put(src, &smh, &all[1], "second");
		memset(evs, 0, sizeof(evs));
		rc = GNI_WaitErrorEvents(h, evs, 4, 100, &n);
		check(rc == GNI_RC_TIMEOUT && n == 1 && is_put_error(&evs[0]),
		      "GNI_WaitErrorEvents(4, 100 ms): %s, %u events, code "
		      "0x%x, ptag %u", rc_str(rc), n, evs[0].error_code,
		      evs[0].ptag);
		/* 3 */
		rc = GNI_SetErrorMask(h, GNI_ERRMASK_CRITICAL, &m);
		check(rc == GNI_RC_SUCCESS && m == MASK, "GNI_SetErrorMask("
		      "CRITICAL): %s, before 0x%x", rc_str(rc), m);
		failed_put(src, &smh, &all[1], "third");
		rc = GNI_GetErrorEvent(h, &ev);
		check(rc == GNI_RC_NOT_DONE, "masked: no event (%s)",
		      rc_str(rc));
	}
	barrier();
	/* A rank on rank 0's node shares its device and ptag: it saw them. */
	if (job.rank != 0 && job.addrs[job.rank] != job.addrs[0]) {
		rc = GNI_GetErrorEvent(h, &ev);
		check(rc == GNI_RC_NOT_DONE, "rank %d: no event (%s, code "
		      "0x%x)", job.rank, rc_str(rc), ev.error_code);
	}
	rc = GNI_ReleaseErrors(h);
	check(rc == GNI_RC_SUCCESS, "GNI_ReleaseErrors: %s", rc_str(rc));
	GNI_MemDeregister(job.nic, &smh);
	free(all);
	job_fini();
	return job_finish();
}
