// SPDX-License-Identifier: GPL-2.0-only
/*
 * ugni_soak: all-to-all FMA traffic for a long time, every completion
 * accounted for and every byte checked, through gni_pub.h and pmi.h.
 *
 *     vgemini run -n 8 ugni_soak [--seconds S] [--inflight K] [--seed N]
 *                               [--wait]
 *
 * Each rank keeps K posts in flight (K slots), each slot a loop of
 *
 *   1. PUT of 8..64 bytes (a multiple of 4, at a 4-byte aligned offset)
 *      into the slot's own 64-byte block at a random peer: only this rank
 *      and slot ever write that block;
 *   2. GET of the same bytes back, compared byte for byte with what was
 *      PUT (only after both succeeded);
 *   3. FADD of 1 (fetching) on the slot's own counter at that peer, whose
 *      fetched value must be the number of earlier FADDs of the slot to
 *      that peer (known until an FADD ends in error, after which the next
 *      fetched value is taken as the new count);
 *
 * every post with a GLOBAL event, taken back with GNI_GetCompleted.  A
 * transaction may end in an error completion (links are being corrupted
 * and dropped): that is counted, and the slot starts over.  Failures are
 * only: a completion for a slot that waits for none (duplicated), a post
 * that gets no completion within LATE_S (late) or never (lost), and a GET
 * or FADD that returns wrong data (data errors).
 *
 * With nothing to reap a rank spins (sched_yield); with --wait it sleeps
 * in GNI_CqWaitEvent on a blocking CQ instead (see idle()).
 *
 * Prints "# soak: rank R t=T ops=N ok=N err=N rate=R/s" every 5 s and, at
 * the end, "soak: rank R: ops N ok N errors N lost N duplicated N late N
 * data_errors N rate_first R rate_last R" (rates in ops/s over the first
 * and the last 10 s), then the usual checks and summary line.
 */
#include <stdbool.h>

#include "ugni_job.h"

#define BLOCK		64
#define MAX_INFLIGHT	64
#define LATE_S		10.0	/* 2 s request timeout, link retries, TCG */
#define DRAIN_S		30.0
#define REPORT_S	5.0
#define WINDOW_S	10.0
#define ERRORS_SHOWN	5	/* error completions described, per rank */
#define WAIT_MS		20	/* --wait: longest sleep between looks */

enum step { IDLE, PUT, GET, FADD };

struct slot {
	gni_post_descriptor_t d;	/* first: GetCompleted gives it back */
	enum step step;
	int peer;
	unsigned int off, len;
	double posted;
	uint8_t *src, *dst;		/* 64 bytes each, registered */
	uint64_t *fetch;		/* 8 bytes, registered */
	uint64_t *count;		/* FADDs done to each peer */
	uint8_t *count_known;
};

static struct slot slot[MAX_INFLIGHT];
static int inflight = 16;
static uint64_t rng;
static struct job_buf *blocks_all, *counters_all;
static gni_mem_handle_t local_mh;
static unsigned long ops, ok, errs, dups, late, data_errors;

static uint64_t xrand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Where slot @s of this rank writes at a peer: its own block */
static uint64_t block_addr(int peer, int s)
{
	return blocks_all[peer].addr +
	       ((uint64_t)job.rank * inflight + s) * BLOCK;
}

static uint64_t counter_addr(int peer, int s)
{
	return counters_all[peer].addr +
	       ((uint64_t)job.rank * inflight + s) * 8;
}

static void post(struct slot *sl, enum step step)
{
	gni_post_descriptor_t *d = &sl->d;
	int s = (int)(sl - slot);
	gni_return_t rc;

	switch (step) {
	case PUT:
		sl->peer = (int)(xrand() % job.size);
		sl->len = 8 + 4 * (unsigned int)(xrand() % 15);
		sl->off = 4 * (unsigned int)(xrand() % ((BLOCK - sl->len) / 4 + 1));
		for (unsigned int k = 0; k < sl->len; k++)
			sl->src[k] = (uint8_t)xrand();
		desc_rw(d, GNI_POST_FMA_PUT, sl->src, &local_mh,
			block_addr(sl->peer, s) + sl->off,
			&blocks_all[sl->peer].mh, sl->len);
		break;
	case GET:
		memset(sl->dst, 0xee, BLOCK);
		desc_rw(d, GNI_POST_FMA_GET, sl->dst, &local_mh,
			block_addr(sl->peer, s) + sl->off,
			&blocks_all[sl->peer].mh, sl->len);
		break;
	case FADD:
		*sl->fetch = ~0ull;
		desc_amo(d, GNI_FMA_ATOMIC_FADD, sl->fetch, &local_mh,
			 counter_addr(sl->peer, s), &counters_all[sl->peer].mh,
			 1, 0);
		break;
	case IDLE:
		return;
	}
	sl->step = step;
	sl->posted = now();
	rc = GNI_PostFma(job.ep[sl->peer], d);
	ops++;
	if (rc != GNI_RC_SUCCESS) {
		/* Refused at once: an error completion of its own kind. */
		diag("rank %d slot %d: GNI_PostFma: %s", job.rank, s,
		     rc_str(rc));
		errs++;
		sl->step = IDLE;
	}
}

/* Slot @sl's post ended, well (@good) or not: check it, move it on. */
static void done(struct slot *sl, bool good)
{
	int s = (int)(sl - slot);

	if (!good) {
		errs++;
		/* The FADD may or may not have counted. */
		if (sl->step == FADD)
			sl->count_known[sl->peer] = 0;
		sl->step = IDLE;
		return;
	}
	ok++;
	switch (sl->step) {
	case PUT:
		post(sl, GET);
		return;
	case GET:
		if (memcmp(sl->src, sl->dst, sl->len)) {
			data_errors++;
			diag("rank %d slot %d: GET of %u bytes at offset %u of "
			     "rank %d differs from what was PUT there", job.rank,
			     s, sl->len, sl->off, sl->peer);
		}
		post(sl, FADD);
		return;
	case FADD:
		if (sl->count_known[sl->peer] &&
		    *sl->fetch != sl->count[sl->peer]) {
			data_errors++;
			diag("rank %d slot %d: FADD at rank %d fetched %" PRIu64
			     ", want %" PRIu64, job.rank, s, sl->peer,
			     *sl->fetch, sl->count[sl->peer]);
		}
		sl->count[sl->peer] = *sl->fetch + 1;
		sl->count_known[sl->peer] = 1;
		sl->step = IDLE;
		return;
	case IDLE:
		break;
	}
}

/* One event taken from the CQ (@rc from GNI_CqGetEvent or WaitEvent). */
static void handle(gni_return_t rc, gni_cq_entry_t ev)
{
	gni_post_descriptor_t *pd;
	gni_return_t gc;

	if (rc != GNI_RC_SUCCESS && rc != GNI_RC_TRANSACTION_ERROR) {
		/* Overrun: events were lost; the slots will say. */
		diag("rank %d: GNI_CqGetEvent: %s", job.rank, rc_str(rc));
		return;
	}
	pd = NULL;
	gc = GNI_GetCompleted(job.cq, ev, &pd);
	if (!pd || (gc != GNI_RC_SUCCESS && gc != GNI_RC_TRANSACTION_ERROR)) {
		diag("rank %d: GNI_GetCompleted: %s", job.rank, rc_str(gc));
		return;
	}
	struct slot *sl = (struct slot *)pd;

	if (sl < slot || sl >= slot + inflight || sl->step == IDLE) {
		dups++;
		diag("rank %d: a completion for no post in flight (%p)",
		     job.rank, (void *)pd);
		return;
	}
	if (now() - sl->posted > LATE_S)
		late++;
	if ((rc != GNI_RC_SUCCESS || !GNI_CQ_STATUS_OK(ev)) &&
	    errs < ERRORS_SHOWN) {
		char why[256] = "";

		GNI_CqErrorStr(ev, why, sizeof(why));
		diag("rank %d slot %d: step %d to rank %d ended in error after "
		     "%.3f s: %s", job.rank, (int)(sl - slot), sl->step,
		     sl->peer, now() - sl->posted, why);
	}
	done(sl, rc == GNI_RC_SUCCESS && gc == GNI_RC_SUCCESS &&
	     GNI_CQ_STATUS_OK(ev));
}

/* Take every event there is; false if none. */
static bool reap(void)
{
	gni_cq_entry_t ev;
	gni_return_t rc;
	bool any = false;

	for (;;) {
		rc = GNI_CqGetEvent(job.cq, &ev);
		if (rc == GNI_RC_NOT_DONE)
			return any;
		any = true;
		handle(rc, ev);
	}
}

/*
 * Nothing to reap: spin (sched_yield) or, with --wait, sleep in the
 * kernel until the CQ's interrupt or WAIT_MS.  Spinning is the harder
 * load; sleeping leaves the host's cores to the device, so that a
 * throughput figure measures the fabric and not how 8 spinning TCG
 * guests happen to share 2 host cores (run to run that varies tenfold).
 */
static void idle(bool wait)
{
	gni_cq_entry_t ev;
	gni_return_t rc;

	if (!wait) {
		sched_yield();
		return;
	}
	rc = GNI_CqWaitEvent(job.cq, WAIT_MS, &ev);
	if (rc == GNI_RC_TIMEOUT || rc == GNI_RC_NOT_DONE)
		return;
	handle(rc, ev);
}

int main(int argc, char **argv)
{
	double seconds = 30, t0, t, next_report, end, first_rate = -1;
	bool wait = false;
	unsigned long w_ops = 0, lost = 0;
	double w_start;
	double rate_last = 0;
	uint64_t seed = 1;
	uint8_t *local;
	void *blocks, *counters;
	gni_mem_handle_t bmh, cmh;
	size_t local_len;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			seconds = atof(argv[++i]);
		else if (!strcmp(argv[i], "--inflight") && i + 1 < argc)
			inflight = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--wait"))
			wait = true;
		else {
			fprintf(stderr, "usage: ugni_soak [--seconds S] "
				"[--inflight K] [--seed N] [--wait]\n");
			return 2;
		}
	}
	if (inflight < 1 || inflight > MAX_INFLIGHT || seconds <= 0) {
		fprintf(stderr, "ugni_soak: --inflight 1..%d, --seconds > 0\n",
			MAX_INFLIGHT);
		return 2;
	}
	if (wait)
		job_cq_mode = GNI_CQ_BLOCKING;
	job_init("ugni_soak", 1);
	rng = seed * 0x9e3779b97f4a7c15ull + (uint64_t)job.rank + 1;

	/* Every rank's block and counter for each (rank, slot) */
	blocks = alloc_aligned(PAGE, (size_t)job.size * inflight * BLOCK);
	counters = alloc_aligned(PAGE, (size_t)job.size * inflight * 8);
	memset(blocks, 0, (size_t)job.size * inflight * BLOCK);
	memset(counters, 0, (size_t)job.size * inflight * 8);
	bmh = reg(job.nic, blocks, (uint64_t)job.size * inflight * BLOCK, NULL,
		  GNI_MEM_READWRITE, "the blocks");
	cmh = reg(job.nic, counters, (uint64_t)job.size * inflight * 8, NULL,
		  GNI_MEM_READWRITE, "the counters");
	blocks_all = publish(blocks, &bmh);
	counters_all = publish(counters, &cmh);
	local_len = (size_t)inflight * (2 * BLOCK + 8);
	local = alloc_aligned(PAGE, local_len);
	local_mh = reg(job.nic, local, local_len, NULL, GNI_MEM_READWRITE,
		       "the local buffers");
	for (i = 0; i < inflight; i++) {
		slot[i].src = local + (size_t)i * (2 * BLOCK + 8);
		slot[i].dst = slot[i].src + BLOCK;
		slot[i].fetch = (uint64_t *)(slot[i].dst + BLOCK);
		slot[i].count = calloc(job.size, sizeof(uint64_t));
		slot[i].count_known = calloc(job.size, 1);
		if (!slot[i].count || !slot[i].count_known)
			job_bail("out of memory");
		memset(slot[i].count_known, 1, job.size);
	}
	barrier();

	t0 = now();
	end = t0 + seconds;
	next_report = t0 + REPORT_S;
	w_start = t0;
	for (;;) {
		t = now();
		if (t < end)
			for (i = 0; i < inflight; i++)
				if (slot[i].step == IDLE)
					post(&slot[i], PUT);
		if (!reap()) {
			bool busy = false;

			for (i = 0; i < inflight; i++)
				busy |= slot[i].step != IDLE;
			if (t >= end && !busy)
				break;
			if (t >= end + DRAIN_S)
				break;
			idle(wait);
		}
		if (t >= w_start + WINDOW_S && t < end) {
			rate_last = (ops - w_ops) / (t - w_start);
			if (first_rate < 0)
				first_rate = rate_last;
			w_ops = ops;
			w_start = t;
		}
		if (t >= next_report) {
			diag("soak: rank %d t=%.0f ops=%lu ok=%lu err=%lu "
			     "rate=%.0f/s", job.rank, t - t0, ops, ok, errs,
			     ops / (t - t0));
			next_report += REPORT_S;
		}
	}
	for (i = 0; i < inflight; i++)
		if (slot[i].step != IDLE) {
			lost++;
			diag("rank %d slot %d: post (step %d to rank %d) not "
			     "completed %.0f s after it was posted", job.rank, i,
			     slot[i].step, slot[i].peer,
			     now() - slot[i].posted);
		}
	if (first_rate < 0)
		first_rate = rate_last = ops / (now() - t0);
	printf("soak: rank %d: ops %lu ok %lu errors %lu lost %lu duplicated "
	       "%lu late %lu data_errors %lu rate_first %.0f rate_last %.0f\n",
	       job.rank, ops, ok, errs, lost, dups, late, data_errors,
	       first_rate, rate_last);
	check(ops > 0, "%lu posts in %.0f s", ops, seconds);
	check(lost == 0, "every post completed (%lu lost)", lost);
	check(dups == 0, "no completion twice or for nothing (%lu)", dups);
	check(late == 0, "every completion within %.0f s (%lu late)", LATE_S,
	      late);
	check(data_errors == 0, "every GET and FADD returned the right data "
	      "(%lu wrong)", data_errors);
	barrier();
	job_fini();
	return job_finish();
}
