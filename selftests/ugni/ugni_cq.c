// SPDX-License-Identifier: GPL-2.0-only
/*
 * ugni_cq: completion-queue events through gni_pub.h and pmi.h alone.
 *
 *     vgemini run -n 8 ugni_cq
 *
 * 1. Local events: a PUT with GNI_CQMODE_GLOBAL_EVENT to every rank makes
 *    one POST event on the endpoint's CQ whose inst_id is the remote_id
 *    given to GNI_EpBind (ugni-api.md 10.4), and GNI_GetCompleted gives
 *    the descriptor back.
 * 2. Remote events: every rank registers a buffer with a CQ of its own as
 *    dst_cq_hndl; every rank PUTs into every rank's buffer with
 *    GNI_CQMODE_REMOTE_EVENT too.  Each rank gets one event per sender on
 *    that CQ, inst_id the sender's CDM inst_id, the data there when the
 *    event is.  Then again after GNI_EpSetEventData(ep, L, R): local
 *    events carry L, remote events R.
 * 3. GNI_PostCqWrite to every rank: the target's CQ (the dst_cq_hndl of
 *    the handle posted to) gets an event whose GNI_CQ_GET_DATA is the
 *    48-bit cqwrite_value.
 * 4. Overrun: a CQ of 4 entries on rank 0 receives 16 remote events from
 *    rank 1 without being polled: GNI_CqGetEvent gives the events it
 *    held (at least 4), then GNI_RC_ERROR_RESOURCE with GNI_CQ_OVERRUN
 *    set (ugni-api.md 17.4); the data of all 16 PUTs is there; the CQ can
 *    still be destroyed.
 * 5. A blocking CQ (GNI_CQ_BLOCKING) on rank 0: GNI_CqWaitEvent times
 *    out on it while idle (GNI_RC_TIMEOUT, after the timeout), and sleeps
 *    until rank 1's remote event comes; on a polled CQ it is refused
 *    (GNI_RC_ERROR_RESOURCE).
 * 6. Laps (--laps N, default 4000): N CQ writes to myself, one at a time:
 *    each makes exactly one local event (its own descriptor back) and one
 *    remote event carrying its own value, through many laps of both rings
 *    (the consumer clears each entry it takes); no other event is left.
 *    An entry the device wrote twice, brought back after its consumer had
 *    cleared it, shows up a lap later as a value out of sequence.
 */
#include "ugni_job.h"

#define RCQ_ENTRIES	128
#define OVR_ENTRIES	4
#define OVR_EVENTS	16
#define SLOT		8

/* Poll @cq for @n events (or the time-out); the number got. */
static int collect(gni_cq_handle_t cq, int n, gni_cq_entry_t *evs,
		   gni_return_t *rcs)
{
	int got;

	for (got = 0; got < n; got++) {
		rcs[got] = wait_event(cq, &evs[got]);
		if (rcs[got] == GNI_RC_NOT_DONE)
			break;
	}
	return got;
}

static struct job_buf *rb_all;
static gni_mem_handle_t lmh;
static uint64_t *lbuf;

/* Every rank PUTs its value into slot (rank) of every rank's buffer. */
static void remote_round(const char *what, uint64_t value_base,
			 uint64_t (*want_local)(int peer))
{
	gni_post_descriptor_t d;
	struct completion c;
	int peer, bad = 0;

	for (peer = 0; peer < job.size; peer++) {
		lbuf[peer] = value_base + job.rank;
		desc_rw(&d, GNI_POST_FMA_PUT, &lbuf[peer], &lmh,
			rb_all[peer].addr + SLOT * job.rank, &rb_all[peer].mh,
			8);
		d.cq_mode |= GNI_CQMODE_REMOTE_EVENT;
		if (!post_wait(job.ep[peer], job.cq, &d, &c) ||
		    GNI_CQ_GET_INST_ID(c.ev) != want_local(peer)) {
			if (bad++ < 3)
				diag("PUT to rank %d: %s, inst_id %" PRIu64
				     " (want %" PRIu64 ")", peer,
				     describe(&c),
				     (uint64_t)GNI_CQ_GET_INST_ID(c.ev),
				     want_local(peer));
		}
	}
	check(!bad, "%s: a PUT with GLOBAL | REMOTE_EVENT to each rank, "
	      "local events as expected", what);
}

static uint64_t local_default(int peer)
{
	return peer;
}

static uint64_t local_set(int peer)
{
	return 1000 + peer;
}

/* The remote events of one round: one per sender, with its data. */
static void remote_events(gni_cq_handle_t rcq, const uint64_t *rbuf,
			  const char *what, uint64_t value_base,
			  uint64_t inst_base)
{
	gni_cq_entry_t *evs = calloc(job.size, sizeof(*evs));
	gni_return_t *rcs = calloc(job.size, sizeof(*rcs));
	int *seen = calloc(job.size, sizeof(*seen));
	int got, i, bad = 0, sender;
	gni_cq_entry_t extra;
	gni_return_t rc;

	if (!evs || !rcs || !seen)
		job_bail("out of memory");
	got = collect(rcq, job.size, evs, rcs);
	for (i = 0; i < got; i++) {
		sender = (int)(GNI_CQ_GET_INST_ID(evs[i]) - inst_base);
		if (rcs[i] != GNI_RC_SUCCESS || !GNI_CQ_STATUS_OK(evs[i]) ||
		    GNI_CQ_GET_TYPE(evs[i]) != GNI_CQ_EVENT_TYPE_POST ||
		    sender < 0 || sender >= job.size || seen[sender]++ ||
		    __atomic_load_n(&rbuf[sender], __ATOMIC_ACQUIRE) !=
		    value_base + sender) {
			if (bad++ < 3)
				diag("%s: remote event %d: %s 0x%016" PRIx64
				     ", inst_id %" PRIu64 ", data there 0x%"
				     PRIx64, what, i, rc_str(rcs[i]),
				     (uint64_t)evs[i],
				     (uint64_t)GNI_CQ_GET_INST_ID(evs[i]),
				     sender >= 0 && sender < job.size ?
				     rbuf[sender] : 0);
		}
	}
	check(got == job.size && !bad, "%s: %d remote events of %d, each a "
	      "POST event with the sender's inst_id + %" PRIu64 ", its data "
	      "in place", what, got, job.size, inst_base);
	barrier();
	rc = GNI_CqGetEvent(rcq, &extra);
	check(rc == GNI_RC_NOT_DONE, "%s: no more events on the remote CQ: %s",
	      what, rc_str(rc));
	barrier();	/* before anyone starts the next round */
	free(evs);
	free(rcs);
	free(seen);
}

/* 6: @n CQ writes to myself, each event seen exactly once, in order */
static void laps(gni_cq_handle_t rcq, const struct job_buf *mine, int n)
{
	gni_post_descriptor_t d;
	struct completion c;
	gni_cq_entry_t ev;
	gni_return_t rc;
	int i, bad_local = 0, bad_remote = 0, extra = 0;
	uint64_t want;

	for (i = 0; i < n; i++) {
		want = 0x1a9000000000ull | (uint64_t)job.rank << 24 | i;
		desc_init(&d, GNI_POST_CQWRITE, GNI_CQMODE_GLOBAL_EVENT);
		d.remote_mem_hndl = mine->mh;
		d.cqwrite_value = want;
		d.post_id = 0x1a90000 + i;
		if (!post_wait(job.ep[job.rank], job.cq, &d, &c) ||
		    d.post_id != 0x1a90000u + i) {
			if (bad_local++ < 3)
				diag("lap write %d: %s", i, describe(&c));
			break;
		}
		rc = wait_event(rcq, &ev);
		if (rc != GNI_RC_SUCCESS || GNI_CQ_GET_DATA(ev) != want) {
			if (bad_remote++ < 3)
				diag("lap write %d: remote event %s 0x%016" PRIx64
				     ", want data 0x%" PRIx64, i, rc_str(rc),
				     (uint64_t)ev, want);
			break;
		}
	}
	while (GNI_CqGetEvent(job.cq, &ev) != GNI_RC_NOT_DONE ||
	       GNI_CqGetEvent(rcq, &ev) != GNI_RC_NOT_DONE)
		if (extra++ > 2 * n)
			break;
	check(i == n && !bad_local && !bad_remote && !extra, "%d CQ writes to "
	      "myself through %d laps of the local and %d of the remote CQ: "
	      "each event once, in order, none left over (%d done, %d extra)",
	      n, n / (LOCAL_CQ_ENTRIES + 1), n / (RCQ_ENTRIES + 1), i, extra);
}

int main(int argc, char **argv)
{
	gni_cq_handle_t rcq, ocq = NULL, bcq = NULL;
	gni_mem_handle_t rmh, omh, bmh;
	struct job_buf *ob_all, *bb_all;
	uint64_t *rbuf, *obuf, *bbuf;
	gni_post_descriptor_t d;
	struct completion c;
	gni_cq_entry_t ev, *evs;
	gni_return_t rc, *rcs;
	int peer, i, got, bad, ok;
	double t0, t;

	int nlaps = 4000;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--laps") && i + 1 < argc) {
			nlaps = atoi(argv[++i]);
		} else {
			fprintf(stderr, "usage: ugni_cq [--laps N]\n");
			return 2;
		}
	}
	job_init("ugni_cq", 1);
	lbuf = malloc(64 * sizeof(*lbuf) + job.size * sizeof(*lbuf));
	rbuf = alloc_aligned(PAGE, PAGE);
	obuf = alloc_aligned(64, PAGE);
	bbuf = calloc(1, 64);
	evs = calloc(OVR_EVENTS + job.size, sizeof(*evs));
	rcs = calloc(OVR_EVENTS + job.size, sizeof(*rcs));
	if (!lbuf || !bbuf || !evs || !rcs || job.size * SLOT > PAGE)
		job_bail("out of memory, or too many ranks");
	memset(rbuf, 0, PAGE);
	memset(obuf, 0, PAGE);
	lmh = reg(job.nic, lbuf, 64 * sizeof(*lbuf) + job.size * sizeof(*lbuf),
		  NULL, GNI_MEM_READWRITE, "the local buffer");

	/* 1. The local event of a PUT to myself (to the others: in 2). */
	bad = 0;
	lbuf[0] = 0x1000 + job.rank;
	desc_rw(&d, GNI_POST_FMA_PUT, &lbuf[0], &lmh,
		(uint64_t)(uintptr_t)&lbuf[8], &lmh, 8);
	d.post_id = 77;
	if (!post_wait(job.ep[job.rank], job.cq, &d, &c) ||
	    GNI_CQ_GET_INST_ID(c.ev) != (uint64_t)job.rank ||
	    GNI_CQ_GET_TYPE(c.ev) != GNI_CQ_EVENT_TYPE_POST ||
	    d.post_id != 77 || lbuf[8] != 0x1000u + job.rank) {
		bad++;
		diag("PUT to myself: %s, inst_id %" PRIu64 ", type %" PRIu64
		     ", post_id %" PRIu64, describe(&c),
		     (uint64_t)GNI_CQ_GET_INST_ID(c.ev),
		     (uint64_t)GNI_CQ_GET_TYPE(c.ev), d.post_id);
	}
	check(!bad, "a PUT to myself: one POST event, inst_id my remote_id, "
	      "the descriptor back with its post_id, the data there");

	/* 2. Remote events on a CQ of the registration. */
	rc = GNI_CqCreate(job.nic, RCQ_ENTRIES, 0, GNI_CQ_NOBLOCK, NULL, NULL,
			  &rcq);
	if (!check(rc == GNI_RC_SUCCESS, "GNI_CqCreate of the remote-event "
		   "CQ: %s", rc_str(rc)))
		job_bail("no CQ");
	rmh = reg(job.nic, rbuf, PAGE, rcq, GNI_MEM_READWRITE,
		  "a buffer with the remote-event CQ");
	rb_all = publish(rbuf, &rmh);
	barrier();
	remote_round("default event data", 0x100000, local_default);
	remote_events(rcq, rbuf, "default event data", 0x100000, 0);
	for (peer = 0, bad = 0; peer < job.size; peer++) {
		rc = GNI_EpSetEventData(job.ep[peer], 1000 + peer,
					2000 + job.rank);
		if (rc != GNI_RC_SUCCESS)
			bad++;
	}
	check(!bad, "GNI_EpSetEventData(ep, 1000 + peer, 2000 + me) on every "
	      "endpoint");
	remote_round("GNI_EpSetEventData", 0x200000, local_set);
	remote_events(rcq, rbuf, "GNI_EpSetEventData", 0x200000, 2000);

	/* 3. GNI_PostCqWrite: 48 bits on the target's remote-event CQ. */
	bad = 0;
	for (peer = 0; peer < job.size; peer++) {
		desc_init(&d, GNI_POST_CQWRITE, GNI_CQMODE_GLOBAL_EVENT);
		d.remote_mem_hndl = rb_all[peer].mh;
		d.cqwrite_value = 0xc0de00000000ull |
				  (uint64_t)job.rank << 16 | peer;
		d.post_id = 0xcc00 + peer;
		if (!post_wait(job.ep[peer], job.cq, &d, &c) && bad++ < 3)
			diag("CQ write to rank %d: %s", peer, describe(&c));
	}
	check(!bad, "GNI_PostCqWrite to every rank: each completed locally");
	got = collect(rcq, job.size, evs, rcs);
	for (i = 0, bad = 0; i < got; i++) {
		uint64_t data = GNI_CQ_GET_DATA(evs[i]);

		if (rcs[i] != GNI_RC_SUCCESS ||
		    (data & ~0xffff0000ull) != (0xc0de00000000ull | job.rank)) {
			if (bad++ < 3)
				diag("CQ write event %d: %s 0x%016" PRIx64
				     ", data 0x%" PRIx64, i, rc_str(rcs[i]),
				     (uint64_t)evs[i], data);
		}
	}
	check(got == job.size && !bad, "%d CQ-write events of %d on my "
	      "remote-event CQ, GNI_CQ_GET_DATA = the 48-bit value", got,
	      job.size);
	barrier();

	/* 4. Overrun of a 4-entry CQ on rank 0, fed by rank 1. */
	if (job.size >= 2 && job.rank == 0) {
		rc = GNI_CqCreate(job.nic, OVR_ENTRIES, 0, GNI_CQ_NOBLOCK, NULL,
				  NULL, &ocq);
		check(rc == GNI_RC_SUCCESS, "GNI_CqCreate of %d entries: %s",
		      OVR_ENTRIES, rc_str(rc));
		omh = reg(job.nic, obuf, PAGE, ocq, GNI_MEM_READWRITE,
			  "a buffer with the 4-entry CQ");
	} else {
		memset(&omh, 0, sizeof(omh));
	}
	ob_all = publish(obuf, &omh);
	barrier();
	if (job.size >= 2 && job.rank == 1) {
		for (i = 0, bad = 0; i < OVR_EVENTS; i++) {
			lbuf[0] = 0x0e0e0000 + i;
			desc_rw(&d, GNI_POST_FMA_PUT, &lbuf[0], &lmh,
				ob_all[0].addr + 8 * i, &ob_all[0].mh, 8);
			d.cq_mode |= GNI_CQMODE_REMOTE_EVENT;
			post_wait(job.ep[0], job.cq, &d, &c);
			if (c.ev_rc == GNI_RC_NOT_DONE && bad++ < 3)
				diag("PUT %d: no local event", i);
		}
		check(!bad, "%d PUTs with remote events into rank 0's 4-entry "
		      "CQ: each completed locally", OVR_EVENTS);
	}
	barrier();
	if (job.size >= 2 && job.rank == 0) {
		/* the events it held, then the one that found it full */
		for (i = 0; i <= OVR_EVENTS; i++) {
			memset(&ev, 0, sizeof(ev));
			rc = GNI_CqGetEvent(ocq, &ev);
			if (rc != GNI_RC_SUCCESS || GNI_CQ_OVERRUN(ev))
				break;
		}
		check(i >= OVR_ENTRIES && i < OVR_EVENTS &&
		      rc == GNI_RC_ERROR_RESOURCE && GNI_CQ_OVERRUN(ev),
		      "after %d remote events into a CQ of %d: %d events, "
		      "then GNI_CqGetEvent %s (want GNI_RC_ERROR_RESOURCE), "
		      "GNI_CQ_OVERRUN %" PRIu64 " (want 1), event 0x%016"
		      PRIx64, OVR_EVENTS, OVR_ENTRIES, i, rc_str(rc),
		      (uint64_t)GNI_CQ_OVERRUN(ev), (uint64_t)ev);
		for (i = 0; i < OVR_EVENTS && obuf[i] == 0x0e0e0000u + i; i++)
			;
		check(i == OVR_EVENTS, "the data of the %d PUTs is there all "
		      "the same", OVR_EVENTS);
		rc = GNI_MemDeregister(job.nic, &omh);
		check(rc == GNI_RC_SUCCESS, "GNI_MemDeregister of the buffer "
		      "of the overrun CQ: %s", rc_str(rc));
		rc = GNI_CqDestroy(ocq);
		check(rc == GNI_RC_SUCCESS, "GNI_CqDestroy of the overrun CQ: "
		      "%s", rc_str(rc));
	}
	if (job.size < 2)
		skip("overrun: needs 2 ranks");
	barrier();

	/* 5. A blocking CQ on rank 0, woken by rank 1. */
	rc = GNI_CqWaitEvent(job.cq, 10, &ev);
	check(rc == GNI_RC_ERROR_RESOURCE, "GNI_CqWaitEvent on a polled CQ: %s "
	      "(want GNI_RC_ERROR_RESOURCE)", rc_str(rc));
	if (job.size >= 2 && job.rank == 0) {
		rc = GNI_CqCreate(job.nic, 16, 0, GNI_CQ_BLOCKING, NULL, NULL,
				  &bcq);
		check(rc == GNI_RC_SUCCESS, "GNI_CqCreate(GNI_CQ_BLOCKING): %s",
		      rc_str(rc));
		bmh = reg(job.nic, bbuf, 64, bcq, GNI_MEM_READWRITE,
			  "a buffer with the blocking CQ");
		t0 = now();
		rc = GNI_CqWaitEvent(bcq, 300, &ev);
		t = now() - t0;
		check(rc == GNI_RC_TIMEOUT && t >= 0.25 && t < 10,
		      "GNI_CqWaitEvent(300 ms) on an idle blocking CQ: %s "
		      "after %.3f s (want GNI_RC_TIMEOUT after 0.3 s)",
		      rc_str(rc), t);
	} else {
		memset(&bmh, 0, sizeof(bmh));
	}
	bb_all = publish(bbuf, &bmh);
	barrier();
	if (job.size >= 2 && job.rank == 1) {
		usleep(500 * 1000);
		lbuf[0] = 0xb10cb10cull;
		desc_rw(&d, GNI_POST_FMA_PUT, &lbuf[0], &lmh, bb_all[0].addr,
			&bb_all[0].mh, 8);
		d.cq_mode |= GNI_CQMODE_REMOTE_EVENT;
		ok = post_wait(job.ep[0], job.cq, &d, &c);
		check(ok, "a PUT with a "
		      "remote event to rank 0's blocking CQ, 0.5 s late: %s",
		      describe(&c));
	}
	if (job.size >= 2 && job.rank == 0) {
		t0 = now();
		rc = GNI_CqWaitEvent(bcq, 30000, &ev);
		t = now() - t0;
		/* rank 1's endpoint has remote_event 2001 (part 2) */
		check(rc == GNI_RC_SUCCESS && GNI_CQ_GET_INST_ID(ev) == 2001 &&
		      bbuf[0] == 0xb10cb10cull && t > 0.2,
		      "GNI_CqWaitEvent slept %.3f s until rank 1's remote "
		      "event: %s, inst_id %" PRIu64 ", data 0x%" PRIx64, t,
		      rc_str(rc), (uint64_t)GNI_CQ_GET_INST_ID(ev), bbuf[0]);
	}
	if (job.size < 2)
		skip("blocking CQ: needs 2 ranks");
	barrier();
	laps(rcq, &rb_all[job.rank], nlaps);
	barrier();
	if (bcq) {
		rc = GNI_MemDeregister(job.nic, &bmh);
		if (rc == GNI_RC_SUCCESS)
			rc = GNI_CqDestroy(bcq);
		check(rc == GNI_RC_SUCCESS, "the blocking CQ and its buffer "
		      "released: %s", rc_str(rc));
	}
	rc = GNI_MemDeregister(job.nic, &rmh);
	if (rc == GNI_RC_SUCCESS)
		rc = GNI_CqDestroy(rcq);
	check(rc == GNI_RC_SUCCESS, "the remote-event CQ and its buffer "
	      "released: %s", rc_str(rc));
	rc = GNI_MemDeregister(job.nic, &lmh);
	check(rc == GNI_RC_SUCCESS, "GNI_MemDeregister of the local buffer: %s",
	      rc_str(rc));
	job_fini();
	return job_finish();
}
