// SPDX-License-Identifier: GPL-2.0-only
/*
 * ugni_bench: 8-byte FMA PUT figures between ranks 0 and 1 (neighbours
 * when they are on nodes 0 and 1), through gni_pub.h and pmi.h alone.
 *
 *     vgemini run -n 2 ugni_bench [--iters N] [--rate-iters M]
 *     vgemini run -n N ugni_bench --peer R --pingpong-only
 *     vgemini run -n 2 ugni_bench --rate-only --iters N
 *
 * The pair is ranks 0 and R (1 unless --peer says otherwise; the other
 * ranks take part only in the barriers), so that the figures can be
 * taken at 1, 2 or 3 hops; --pingpong-only stops after the PUT
 * ping-pong (the per-hop figures of `make bench`); --rate-only runs the
 * two issue rates alone (to profile them).  The latencies take N
 * rounds (1000), the rates M posts or messages (N): a rate is worth
 * taking over longer than a latency, since a few tens of milliseconds
 * catch a slow spell of the host or miss it.
 *
 * Prints, on rank 0, lines "bench: <what>: <value> <unit>":
 *
 *  - put8 ping-pong half round trip: rank 0 PUTs i into a word of rank 1,
 *    which waits for it in its memory and PUTs i back (posts without
 *    events): half the round trip, in us;
 *  - put8 with GLOBAL event: post, then wait for the local GLOBAL event
 *    (the data is at the target), in us per PUT;
 *  - put8 issue rate, silent: N PUTs without events back to back, then
 *    one with a GLOBAL event, in posts/s;
 *  - put8 issue rate, GLOBAL events reaped every 64 posts, in posts/s;
 *  - smsg8 ping-pong half round trip: 8-byte SMSG messages (mailboxes of
 *    64 credits x 64 bytes, endpoints without a CQ), each answered once
 *    GNI_SmsgGetNext sees it, in us;
 *  - smsg8 message rate: rank 0 sends 8-byte messages as fast as its
 *    credits allow while rank 1 takes and releases them, in messages/s.
 *
 * Nothing is asserted about the figures; the checks are only that every
 * post and every wait ended well.
 */
#include "ugni_job.h"

#define BATCH		64

static struct job_buf *flag_all;
static gni_mem_handle_t lmh;
static uint64_t *lbuf;

static int put8(int peer, uint64_t off, uint64_t val, uint16_t cq_mode)
{
	gni_post_descriptor_t *d = (gni_post_descriptor_t *)(lbuf + 64);
	struct completion c;

	lbuf[0] = val;
	desc_rw(d, GNI_POST_FMA_PUT, &lbuf[0], &lmh,
		flag_all[peer].addr + off, &flag_all[peer].mh, 8);
	d->cq_mode = cq_mode;
	return post_wait(job.ep[peer], job.cq, d, &c);
}

static void result(const char *what, double v, const char *unit)
{
	if (job.rank == 0) {
		printf("bench: %s: %.1f %s\n", what, v, unit);
		fflush(stdout);
	}
}

#define SMSG_CREDITS	64
#define SMSG_SIZE	64

static gni_ep_handle_t smsg_ep;
static gni_cq_handle_t rcq;	/* the mailbox's remote events */

/* SMSG between ranks 0 and 1: endpoints without a CQ, mailboxes here. */
static void smsg_connect(int peer)
{
	gni_smsg_attr_t l = { .msg_type = GNI_SMSG_TYPE_MBOX_AUTO_RETRANSMIT,
			      .mbox_maxcredit = SMSG_CREDITS,
			      .msg_maxsize = SMSG_SIZE };
	gni_smsg_attr_t r;
	struct job_buf *all;
	gni_mem_handle_t mh;
	unsigned int size = 0;
	gni_return_t rc;
	void *mbox;

	GNI_SmsgBufferSizeNeeded(&l, &size);
	mbox = alloc_aligned(PAGE, size);
	memset(mbox, 0, size);
	mh = reg(job.nic, mbox, size, rcq, GNI_MEM_READWRITE, "a mailbox");
	all = publish(mbox, &mh);
	l.msg_buffer = mbox;
	l.buff_size = size;
	l.mem_hndl = mh;
	r = l;
	r.msg_buffer = (void *)(uintptr_t)all[peer].addr;
	r.mem_hndl = all[peer].mh;
	rc = GNI_EpCreate(job.nic, NULL, &smsg_ep);
	if (rc == GNI_RC_SUCCESS)
		rc = GNI_EpBind(smsg_ep, job.addrs[peer], peer);
	if (rc == GNI_RC_SUCCESS)
		rc = GNI_SmsgInit(smsg_ep, &l, &r);
	check(rc == GNI_RC_SUCCESS, "SMSG to rank %d: %s", peer, rc_str(rc));
	free(all);
}

/* Take the next message (spinning); its first 8 bytes, released. */
static int smsg_take(uint64_t *val)
{
	double deadline = now() + EVENT_TIMEOUT_S;
	unsigned int spins = 0;
	gni_cq_entry_t ev;
	gni_return_t rc;
	void *msg;

	while ((rc = GNI_SmsgGetNext(smsg_ep, &msg)) == GNI_RC_NOT_DONE)
		if (++spins % 64 == 0 && now() > deadline)
			return 0;
	if (rc != GNI_RC_SUCCESS)
		return 0;
	memcpy(val, msg, 8);
	/* Its remote event, as a client reads it (it may come just after) */
	GNI_CqGetEvent(rcq, &ev);
	return GNI_SmsgRelease(smsg_ep) == GNI_RC_SUCCESS;
}

static int smsg_give(uint64_t val)
{
	double deadline = now() + EVENT_TIMEOUT_S;
	unsigned int spins = 0;
	gni_return_t rc;

	while ((rc = GNI_SmsgSend(smsg_ep, &val, 8, NULL, 0, 0)) ==
	       GNI_RC_NOT_DONE)
		if (++spins % 64 == 0 && now() > deadline)
			return 0;
	return rc == GNI_RC_SUCCESS;
}

/* The SMSG figures of ranks 0 and 1: @iters ping-pongs, @rate_iters sent */
static void smsg_bench(int iters, int rate_iters)
{
	uint64_t v = 0;
	double t0 = 0;
	int i, ok = 1;

	for (i = 1; i <= iters + 10 && ok; i++) {
		if (i == 11)
			t0 = now();
		if (job.rank == 0)
			ok = smsg_give(i) && smsg_take(&v) && v == (uint64_t)i;
		else
			ok = smsg_take(&v) && v == (uint64_t)i && smsg_give(i);
	}
	check(ok, "%d ping-pongs of 8-byte SMSG messages", iters);
	result("smsg8 ping-pong half round trip",
	       (now() - t0) * 1e6 / iters / 2, "us");
	barrier();
	t0 = now();
	for (i = 1; i <= rate_iters && ok; i++)
		ok = job.rank == 0 ? smsg_give(i) :
		     smsg_take(&v) && v == (uint64_t)i;
	check(ok, "%d 8-byte SMSG messages streamed, in order", rate_iters);
	result("smsg8 message rate", rate_iters / (now() - t0), "messages/s");
}

static int wait_word(volatile uint64_t *w, uint64_t val)
{
	double deadline = now() + EVENT_TIMEOUT_S;
	unsigned int spins = 0;

	while (__atomic_load_n(w, __ATOMIC_ACQUIRE) != val)
		if (++spins % 64 == 0) {
			if (now() > deadline)
				return 0;
			sched_yield();
		}
	return 1;
}

int main(int argc, char **argv)
{
	int iters = 1000, i, ok, peer, pair = 1, pingpong_only = 0;
	int rate_only = 0, rate_iters = -1;
	gni_post_descriptor_t *descs;
	uint64_t *flag;
	gni_mem_handle_t fmh;
	gni_cq_entry_t ev;
	gni_post_descriptor_t *pd;
	double t0 = 0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--iters") && i + 1 < argc) {
			iters = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--rate-iters") && i + 1 < argc) {
			rate_iters = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--peer") && i + 1 < argc) {
			pair = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--pingpong-only")) {
			pingpong_only = 1;
		} else if (!strcmp(argv[i], "--rate-only")) {
			rate_only = 1;
		} else {
			fprintf(stderr, "usage: ugni_bench [--iters N] "
				"[--rate-iters M] [--peer R] "
				"[--pingpong-only | --rate-only]\n");
			return 2;
		}
	}
	if (rate_iters == -1)
		rate_iters = iters;
	if (iters < BATCH || iters > 1000000 || rate_iters < BATCH ||
	    rate_iters > 1000000) {
		fprintf(stderr, "ugni_bench: --iters and --rate-iters "
			"%d..1000000\n", BATCH);
		return 2;
	}
	job_init("ugni_bench", 2);
	if (pair < 1 || pair >= job.size)
		job_bail("--peer: not a rank of this job other than 0");
	wait_spins_only = 1;	/* latency, not politeness */
	peer = job.rank == 0 ? pair : 0;
	flag = alloc_aligned(PAGE, PAGE);
	memset(flag, 0, PAGE);
	lbuf = alloc_aligned(64, PAGE);
	descs = calloc(BATCH, sizeof(*descs));
	if (!descs)
		job_bail("out of memory");
	fmh = reg(job.nic, flag, PAGE, NULL, GNI_MEM_READWRITE, "the flags");
	lmh = reg(job.nic, lbuf, 64, NULL, GNI_MEM_READWRITE, "the source");
	flag_all = publish(flag, &fmh);
	if (GNI_CqCreate(job.nic, 4 * SMSG_CREDITS, 0, GNI_CQ_NOBLOCK, NULL,
			 NULL, &rcq) != GNI_RC_SUCCESS)
		job_bail("no CQ");
	if (!pingpong_only && (job.rank == 0 || job.rank == pair))
		smsg_connect(peer);
	barrier();

	/* Ping-pong on flag[0]: silent PUTs, the data is the signal. */
	if ((job.rank == 0 || job.rank == pair) && !rate_only) {
		ok = 1;
		t0 = 0;
		for (i = 1; i <= iters + 10 && ok; i++) {
			if (i == 11)
				t0 = now();
			if (job.rank == 0)
				ok = put8(peer, 0, i, GNI_CQMODE_SILENT) &&
				     wait_word(&flag[0], i);
			else
				ok = wait_word(&flag[0], i) &&
				     put8(peer, 0, i, GNI_CQMODE_SILENT);
		}
		check(ok, "%d ping-pongs of 8-byte PUTs", iters);
		result("put8 ping-pong half round trip",
		       (now() - t0) * 1e6 / iters / 2, "us");
	}
	barrier();
	if (pingpong_only)
		goto out;

	if (job.rank == 0) {
		/* PUT, wait for its GLOBAL event */
		for (i = 0, ok = 1; i < (rate_only ? 0 : iters + 10) && ok;
		     i++) {
			if (i == 10)
				t0 = now();
			ok = put8(peer, 8, i, GNI_CQMODE_GLOBAL_EVENT);
		}
		if (!rate_only) {
			check(ok, "%d PUTs each waited for", iters);
			result("put8 with GLOBAL event, one at a time",
			       (now() - t0) * 1e6 / iters, "us");
		}

		/* Issue rate, silent, one event at the end */
		t0 = now();
		for (i = 0, ok = 1; i < rate_iters && ok; i++)
			ok = put8(peer, 16, i, GNI_CQMODE_SILENT);
		ok = ok && put8(peer, 16, i, GNI_CQMODE_GLOBAL_EVENT);
		check(ok, "%d silent PUTs and a last one with an event",
		      rate_iters);
		result("put8 issue rate, silent", rate_iters / (now() - t0),
		       "posts/s");

		/* Issue rate, events reaped in batches */
		t0 = now();
		for (i = 0, ok = 1; i < rate_iters && ok; i += BATCH) {
			int k, got;

			for (k = 0; k < BATCH && ok; k++) {
				lbuf[1 + k % 8] = i + k;
				desc_rw(&descs[k], GNI_POST_FMA_PUT,
					&lbuf[1 + k % 8], &lmh,
					flag_all[peer].addr + 24,
					&flag_all[peer].mh, 8);
				ok = GNI_PostFma(job.ep[peer], &descs[k]) ==
				     GNI_RC_SUCCESS;
			}
			for (got = 0; got < k && ok; got++)
				ok = wait_event(job.cq, &ev) ==
				     GNI_RC_SUCCESS &&
				     GNI_GetCompleted(job.cq, ev, &pd) ==
				     GNI_RC_SUCCESS;
		}
		check(ok, "%d PUTs with GLOBAL events reaped %d at a time",
		      rate_iters, BATCH);
		result("put8 issue rate, events reaped in batches of 64",
		       rate_iters / (now() - t0), "posts/s");
	}
	barrier();
	/* SMSG: each message's remote event taken after the message */
	if ((job.rank == 0 || job.rank == pair) && !rate_only)
		smsg_bench(iters, rate_iters);
	barrier();
out:
	GNI_MemDeregister(job.nic, &lmh);
	GNI_MemDeregister(job.nic, &fmh);
	job_fini();
	return job_finish();
}
