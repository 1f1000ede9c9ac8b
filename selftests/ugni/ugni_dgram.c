// SPDX-License-Identifier: GPL-2.0-only
/*
 * ugni_dgram: datagrams (GNI_EpPostData and its family) between the ranks
 * of a job, through gni_pub.h and pmi.h alone.
 *
 *     vgemini run -n 8 ugni_dgram
 *
 * Every rank has the job's CDM (inst_id = rank, with
 * GNI_CDM_MODE_FAST_DATAGRAM_POLL as libfabric sets it) and an endpoint
 * bound to every rank (ugni_job.h).  Ranks pair up (0 with 1, 2 with 3,
 * ...) where a phase needs a peer.  Every phase collects each datagram it
 * posted, on both sides, and ends with a barrier, so that the next one
 * starts with nothing pending anywhere:
 *
 *  1. Connection set-up: each rank posts GNI_EpPostData on its endpoint
 *     to every other rank (its rank, the target's and its address in the
 *     data), finds the datagrams that completed with GNI_PostDataProbe and
 *     collects each with GNI_EpPostDataTest on the endpoint of the
 *     (remote_addr, remote_id) the probe gave: every ordered pair, each
 *     exactly once, each with the peer's data.
 *  2. Bound to bound: both ranks of a pair post with GNI_EpPostDataWId,
 *     each with an id of its own, 0 to 128 bytes, a different size each
 *     way; GNI_EpPostDataWaitById: COMPLETED, remote_addr and remote_id
 *     the peer's, its bytes byte for byte and nothing after them.
 *  3. Bound to wildcard: rank 0 posts on an unbound endpoint (a wildcard,
 *     with an id), every other rank a datagram bound to rank 0; rank 0
 *     finds each completed id with GNI_PostDataProbeById or
 *     GNI_PostdataProbeWaitById, collects it and posts the wildcard again
 *     until every rank's came, each exactly once; each sender gets rank
 *     0's answer, numbered.
 *  4. Early: the even rank of a pair posts, then a barrier, then its peer
 *     sleeps and posts: the datagram waited at the target for the post
 *     (the sender's GNI_EpPostDataTest said PENDING before); both
 *     GNI_EpPostDataWait: COMPLETED with each other's data.
 *  5. Cancel, and 6. a short wait: one rank of a pair posts to its peer,
 *     which posts nothing: PENDING; GNI_EpPostDataCancelById: SUCCESS,
 *     and again: NO_MATCH; GNI_EpPostDataWaitById: TERMINATED (once the
 *     peer dropped it), and a test: NO_MATCH.  Then the peer, which forgot the cancelled datagram,
 *     posts to the first rank, which posts nothing: a wait of 500 ms
 *     ends in GNI_RC_TIMEOUT after 500 ms; cancelled and collected.  Each
 *     rank of the pair does each part once.
 *  7. To oneself: an endpoint bound to my own address and inst_id and a
 *     wildcard endpoint of the same CDM complete with each other's data.
 *  8. A datagram bound to the next rank's address but an inst_id nobody
 *     has never completes: its wait times out (or the kernel ends it as
 *     GNI_POST_TIMEOUT), then it is cancelled.
 *  9. 128 bytes each way; the odd rank's buffer takes 16: the even rank
 *     gets all 128, the odd one GNI_RC_SIZE_ERROR with the first 16 bytes
 *     and nothing after them; the datagram is collected either way.
 * 10. Refusals: 129 bytes (GNI_RC_SIZE_ERROR); a second post on an
 *     endpoint whose datagram is pending (GNI_RC_ERROR_RESOURCE, with or
 *     without an id); datagram_id -1, a post without an id on an unbound
 *     endpoint and a wait of 0 ms (GNI_RC_INVALID_PARAM).
 * 11. GNI_EpDestroy of an endpoint whose datagram is pending takes it
 *     along: nothing is left to probe at the end.
 * 12. A cancel racing the peer's post, 16 rounds: the even rank of a pair
 *     posts, a barrier, then it cancels while its peer posts; either both
 *     complete with each other's data or neither does (the cancel ends
 *     TERMINATED, the peer's wait times out and is cancelled).
 */
#include "ugni_job.h"

#define MAGIC		0x6467726du		/* "dgrm" */
#define WAIT_MS		30000u	/* for a datagram whose peer posts */
#define SHORT_MS	500u	/* for one whose peer never does */
#define SETTLE_US	(200 * 1000)	/* for a datagram on its way */
#define BUF		(GNI_DATAGRAM_MAXSIZE + 16)
#define NOBODY(r)	(0x7000u + (r))	/* an inst_id no CDM has */
#define ANY		0xffffffffu

/* Local tags: the two sides of one datagram use different ones. */
#define ID(phase, k)	((uint64_t)(job.rank + 1) << 32 | (phase) << 16 | (k))
#define WILD_ID(n)	(0xa11000000ull + (n))

struct msg {
	uint32_t magic;
	uint32_t from;		/* the sender's rank */
	uint32_t to;		/* its target's, or ANY */
	uint32_t addr;		/* the sender's address */
	uint32_t seq;
};

static int peer;		/* the other rank of my pair, or -1 */

static const char *state_str(gni_post_state_t s)
{
	static const char *const names[] = {
		"PENDING", "COMPLETED", "ERROR", "TIMEOUT", "TERMINATED",
		"REMOTE_DATA",
	};

	return (unsigned int)s < ARRAY_SIZE(names) ? names[s] : "?";
}

/* Byte @i of the @k-th payload of rank @from */
static uint8_t pat(int from, int k, unsigned int i)
{
	return (uint8_t)(from * 53 + k * 17 + i * 5 + 3);
}

static void fill(uint8_t *p, int k, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		p[i] = pat(job.rank, k, i);
}

/* @buf holds rank @from's @n bytes of payload @k, then 0xee to BUF */
static int holds(const uint8_t *buf, int from, int k, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < BUF; i++) {
		if (buf[i] != (i < n ? pat(from, k, i) : 0xee)) {
			diag("byte %u is 0x%02x, want 0x%02x", i, buf[i],
			     i < n ? pat(from, k, i) : 0xee);
			return 0;
		}
	}
	return 1;
}

static struct msg msg_of(int to, uint32_t seq)
{
	struct msg m = { MAGIC, (uint32_t)job.rank, (uint32_t)to, job.addr,
			 seq };

	return m;
}

static int msg_is(const struct msg *m, int from, int to)
{
	if (m->magic == MAGIC && m->from == (uint32_t)from &&
	    m->to == (uint32_t)to && m->addr == job.addrs[from])
		return 1;
	diag("data: magic 0x%x from %u to %u addr 0x%x (want rank %d to %d, "
	     "0x%x)", m->magic, m->from, m->to, m->addr, from, to,
	     job.addrs[from]);
	return 0;
}

/*
 * After a check failed: cancel whatever @ep still has and collect it, so
 * that the next phase does not meet it.
 */
static void drop(gni_ep_handle_t ep)
{
	gni_post_state_t st;
	uint32_t a, id;

	GNI_EpPostDataCancel(ep);
	GNI_EpPostDataWait(ep, SHORT_MS, &st, &a, &id);
}

/* 1: every ordered pair, found by probing */
static void connect_all(void)
{
	struct msg *out = calloc(job.size, sizeof(*out));
	struct msg *in = calloc(job.size, sizeof(*in));
	int *done = calloc(job.size, sizeof(*done));
	uint32_t ra, rid, ra2, rid2;
	gni_post_state_t st;
	gni_return_t rc;
	int r, left = 0;
	double deadline;

	if (!out || !in || !done)
		job_bail("out of memory");
	for (r = 0; r < job.size; r++) {
		if (r == job.rank)
			continue;
		out[r] = msg_of(r, 1);
		rc = GNI_EpPostData(job.ep[r], &out[r], sizeof(out[r]), &in[r],
				    sizeof(in[r]));
		if (check(rc == GNI_RC_SUCCESS, "GNI_EpPostData to rank %d: %s",
			  r, rc_str(rc)))
			left++;
		else
			done[r] = 1;
	}
	deadline = now() + WAIT_MS / 1000.0;
	while (left && now() < deadline) {
		rc = GNI_PostDataProbe(job.nic, &ra, &rid);
		if (rc == GNI_RC_NO_MATCH) {
			usleep(1000);
			continue;
		}
		r = (int)rid;
		if (rc != GNI_RC_SUCCESS || rid >= (uint32_t)job.size ||
		    r == job.rank || done[r] || job.addrs[r] != ra) {
			check(0, "GNI_PostDataProbe: %s, (0x%x, %u): no rank "
			      "whose datagram I wait for", rc_str(rc), ra, rid);
			break;
		}
		rc = GNI_EpPostDataTest(job.ep[r], &st, &ra2, &rid2);
		done[r] = 1;
		left--;
		check(rc == GNI_RC_SUCCESS && st == GNI_POST_COMPLETED &&
		      ra2 == job.addrs[r] && rid2 == (uint32_t)r &&
		      msg_is(&in[r], r, job.rank), "datagram with rank %d: "
		      "GNI_EpPostDataTest %s, %s from (0x%x, %u), its data",
		      r, rc_str(rc), state_str(st), ra2, rid2);
	}
	for (r = 0; r < job.size; r++) {
		if (r == job.rank || done[r])
			continue;
		check(0, "datagram with rank %d: not completed in %u ms", r,
		      WAIT_MS);
		drop(job.ep[r]);
	}
	rc = GNI_PostDataProbe(job.nic, &ra, &rid);
	check(rc == GNI_RC_NO_MATCH, "every one collected: GNI_PostDataProbe "
	      "finds no more (%s)", rc_str(rc));
	free(out);
	free(in);
	free(done);
}

/* 2: both sides bound, ids, 0 to 128 bytes */
static void bound_sizes(void)
{
	static const unsigned int sizes[] = { 0, 1, 2, 3, 7, 8, 31, 64, 100,
					      127, 128 };
	const unsigned int n = ARRAY_SIZE(sizes);
	uint8_t out[GNI_DATAGRAM_MAXSIZE], in[BUF];
	uint32_t ra = 0, rid = 0;
	unsigned int k, mine, theirs;
	gni_post_state_t st = GNI_POST_PENDING;
	gni_return_t rc;
	uint64_t id;
	int ok;

	for (k = 0; k < n; k++) {
		if (peer < 0) {
			skip("bound to bound: no peer");
			barrier();
			continue;
		}
		mine = sizes[job.rank < peer ? k : n - 1 - k];
		theirs = sizes[job.rank < peer ? n - 1 - k : k];
		id = ID(2, k);
		fill(out, (int)k, mine);
		memset(in, 0xee, sizeof(in));
		rc = GNI_EpPostDataWId(job.ep[peer], out, mine, in,
				       GNI_DATAGRAM_MAXSIZE, id);
		if (rc == GNI_RC_SUCCESS)
			rc = GNI_EpPostDataWaitById(job.ep[peer], id, WAIT_MS,
						    &st, &ra, &rid);
		ok = rc == GNI_RC_SUCCESS && st == GNI_POST_COMPLETED &&
		     ra == job.addrs[peer] && rid == (uint32_t)peer;
		check(ok && holds(in, peer, (int)k, theirs), "bound to bound, "
		      "id 0x%" PRIx64 ": %u bytes to rank %d, %u back: %s, "
		      "%s from (0x%x, %u), byte for byte", id, mine, peer,
		      theirs, rc_str(rc), state_str(st), ra, rid);
		if (!ok)
			drop(job.ep[peer]);
		barrier();
	}
}

/* 3, rank 0: the wildcard, posted again until every rank's came */
static void wildcard_target(void)
{
	int *count = calloc(job.size, sizeof(*count));
	struct msg out, in;
	gni_ep_handle_t wep;
	gni_post_state_t st = GNI_POST_PENDING;
	uint32_t ra = 0, rid = 0;
	gni_return_t rc;
	uint64_t id = 0;
	int n, r, ok;

	if (!count)
		job_bail("out of memory");
	rc = GNI_EpCreate(job.nic, NULL, &wep);
	if (!check(rc == GNI_RC_SUCCESS, "GNI_EpCreate of the wildcard "
		   "endpoint: %s", rc_str(rc)))
		job_bail("no endpoint");
	for (n = 0; n < job.size - 1; n++) {
		out = msg_of(ANY, n);
		memset(&in, 0, sizeof(in));
		rc = GNI_EpPostDataWId(wep, &out, sizeof(out), &in, sizeof(in),
				       WILD_ID(n));
		if (!check(rc == GNI_RC_SUCCESS, "wildcard %d: "
			   "GNI_EpPostDataWId (id 0x%llx): %s", n,
			   WILD_ID(n), rc_str(rc)))
			break;
		rc = GNI_PostDataProbeById(job.nic, &id);
		if (rc == GNI_RC_NO_MATCH)
			rc = GNI_PostdataProbeWaitById(job.nic, WAIT_MS, &id);
		if (!check(rc == GNI_RC_SUCCESS && id == WILD_ID(n),
			   "wildcard %d: GNI_PostDataProbeById / "
			   "GNI_PostdataProbeWaitById: %s, id 0x%" PRIx64
			   " (want 0x%llx)", n, rc_str(rc), id, WILD_ID(n)))
			break;
		rc = GNI_EpPostDataTestById(wep, id, &st, &ra, &rid);
		r = (int)rid;
		ok = rc == GNI_RC_SUCCESS && st == GNI_POST_COMPLETED &&
		     rid > 0 && rid < (uint32_t)job.size &&
		     ra == job.addrs[r] && msg_is(&in, r, 0);
		check(ok, "wildcard %d: GNI_EpPostDataTestById %s, %s from "
		      "(0x%x, %u), that rank's data", n, rc_str(rc),
		      state_str(st), ra, rid);
		if (ok)
			count[r]++;
	}
	for (r = 1; r < job.size; r++)
		check(count[r] == 1, "rank %d's datagram reached the wildcard "
		      "exactly once (%d times)", r, count[r]);
	rc = GNI_PostDataProbeById(job.nic, &id);
	check(rc == GNI_RC_NO_MATCH, "then nothing more to probe (%s)",
	      rc_str(rc));
	/* a wildcard still posted after a failure goes with it */
	rc = GNI_EpDestroy(wep);
	check(rc == GNI_RC_SUCCESS, "GNI_EpDestroy of the wildcard endpoint: "
	      "%s", rc_str(rc));
	free(count);
}

/* 3, the other ranks: bound to rank 0 */
static void wildcard_sender(void)
{
	const uint64_t id = ID(3, 0);
	gni_post_state_t st = GNI_POST_PENDING;
	uint32_t ra = 0, rid = 0;
	struct msg out = msg_of(0, 0), in;
	gni_return_t rc;
	int ok;

	memset(&in, 0, sizeof(in));
	rc = GNI_EpPostDataWId(job.ep[0], &out, sizeof(out), &in, sizeof(in),
			       id);
	if (rc == GNI_RC_SUCCESS)
		rc = GNI_EpPostDataWaitById(job.ep[0], id, 2 * WAIT_MS, &st,
					    &ra, &rid);
	ok = rc == GNI_RC_SUCCESS && st == GNI_POST_COMPLETED &&
	     ra == job.addrs[0] && rid == 0 && msg_is(&in, 0, ANY) &&
	     in.seq < (uint32_t)job.size - 1;
	check(ok, "bound to rank 0, which posts a wildcard: %s, %s from "
	      "(0x%x, %u), its wildcard number %u", rc_str(rc), state_str(st),
	      ra, rid, in.seq);
	if (!ok)
		drop(job.ep[0]);
}

/* 4: the datagram is there before its target posts */
static void early(void)
{
	gni_post_state_t st = GNI_POST_COMPLETED;
	uint32_t ra = 0, rid = 0;
	struct msg out, in;
	gni_return_t rc = GNI_RC_SUCCESS;
	int ok;

	if (peer < 0) {
		skip("early datagram: no peer");
		/* the two barriers of the others */
		barrier();
		barrier();
		return;
	}
	out = msg_of(peer, 4);
	memset(&in, 0, sizeof(in));
	if (job.rank < peer) {
		rc = GNI_EpPostData(job.ep[peer], &out, sizeof(out), &in,
				    sizeof(in));
		if (rc == GNI_RC_SUCCESS)
			rc = GNI_EpPostDataTest(job.ep[peer], &st, &ra, &rid);
		check(rc == GNI_RC_SUCCESS && st == GNI_POST_PENDING,
		      "posted to rank %d before it posts: GNI_EpPostDataTest "
		      "%s, %s", peer, rc_str(rc), state_str(st));
	}
	barrier();
	if (job.rank > peer) {
		usleep(300 * 1000);
		rc = GNI_EpPostData(job.ep[peer], &out, sizeof(out), &in,
				    sizeof(in));
	}
	if (rc == GNI_RC_SUCCESS)
		rc = GNI_EpPostDataWait(job.ep[peer], WAIT_MS, &st, &ra, &rid);
	ok = rc == GNI_RC_SUCCESS && st == GNI_POST_COMPLETED &&
	     ra == job.addrs[peer] && rid == (uint32_t)peer;
	check(ok && msg_is(&in, peer, job.rank), "%s rank %d's %s: "
	      "GNI_EpPostDataWait %s, %s from (0x%x, %u), its data",
	      job.rank < peer ? "my datagram waited for" :
	      "my post found", peer, job.rank < peer ? "post" :
	      "datagram, there before it", rc_str(rc), state_str(st), ra,
	      rid);
	if (!ok)
		drop(job.ep[peer]);
	barrier();
}

/* 5: I post to my peer, which posts nothing; I cancel */
static void cancel_mine(void)
{
	const uint64_t id = ID(5, 0);
	gni_post_state_t st = GNI_POST_COMPLETED;
	uint32_t ra = UINT32_MAX, rid = UINT32_MAX;
	struct msg out = msg_of(peer, 5), in;
	gni_return_t rc;

	rc = GNI_EpPostDataWId(job.ep[peer], &out, sizeof(out), &in,
			       sizeof(in), id);
	check(rc == GNI_RC_SUCCESS, "cancel: GNI_EpPostDataWId to rank %d, "
	      "which posts nothing: %s", peer, rc_str(rc));
	usleep(SETTLE_US);
	rc = GNI_EpPostDataTestById(job.ep[peer], id, &st, &ra, &rid);
	check(rc == GNI_RC_SUCCESS && st == GNI_POST_PENDING,
	      "cancel: GNI_EpPostDataTestById before: %s, %s", rc_str(rc),
	      state_str(st));
	rc = GNI_EpPostDataCancelById(job.ep[peer], id);
	check(rc == GNI_RC_SUCCESS, "cancel: GNI_EpPostDataCancelById: %s",
	      rc_str(rc));
	rc = GNI_EpPostDataCancelById(job.ep[peer], id);
	check(rc == GNI_RC_NO_MATCH, "cancel: GNI_EpPostDataCancelById again: "
	      "%s (want GNI_RC_NO_MATCH)", rc_str(rc));
	/* It ends once the peer has dropped it. */
	rc = GNI_EpPostDataWaitById(job.ep[peer], id, WAIT_MS, &st, &ra, &rid);
	check(rc == GNI_RC_SUCCESS && st == GNI_POST_TERMINATED,
	      "cancel: GNI_EpPostDataWaitById after: %s, %s (want "
	      "TERMINATED)", rc_str(rc), state_str(st));
	rc = GNI_EpPostDataTestById(job.ep[peer], id, &st, &ra, &rid);
	check(rc == GNI_RC_NO_MATCH, "cancel: collected: "
	      "GNI_EpPostDataTestById again: %s (want GNI_RC_NO_MATCH)",
	      rc_str(rc));
	drop(job.ep[peer]);
}

/* 6: I post to my peer, which posts nothing; my wait runs out */
static void wait_short(void)
{
	const uint64_t id = ID(6, 0);
	gni_post_state_t st = GNI_POST_COMPLETED;
	uint32_t ra = UINT32_MAX, rid = UINT32_MAX;
	struct msg out = msg_of(peer, 6), in;
	gni_return_t rc;
	double t0, ms;

	/* the peer's cancelled datagram is forgotten: nothing matches this */
	rc = GNI_EpPostDataWId(job.ep[peer], &out, sizeof(out), &in,
			       sizeof(in), id);
	t0 = now();
	if (rc == GNI_RC_SUCCESS)
		rc = GNI_EpPostDataWaitById(job.ep[peer], id, SHORT_MS, &st,
					    &ra, &rid);
	ms = (now() - t0) * 1000;
	check(rc == GNI_RC_TIMEOUT && ms >= SHORT_MS * 0.9,
	      "a wait of %u ms for rank %d, which posts nothing (and "
	      "forgot the datagram it was sent and that was cancelled): %s "
	      "after %.0f ms (want GNI_RC_TIMEOUT)", SHORT_MS, peer,
	      rc_str(rc), ms);
	rc = GNI_EpPostDataCancelById(job.ep[peer], id);
	if (rc == GNI_RC_SUCCESS)
		rc = GNI_EpPostDataWaitById(job.ep[peer], id, WAIT_MS, &st,
					    &ra, &rid);
	check(rc == GNI_RC_SUCCESS && st == GNI_POST_TERMINATED,
	      "then cancelled and collected: %s, %s", rc_str(rc),
	      state_str(st));
	drop(job.ep[peer]);
}

/* 5 and 6: each rank of a pair cancels once and times out once */
static void cancel_and_timeout(void)
{
	int turn;

	for (turn = 0; turn < 2; turn++) {
		if (peer < 0)
			skip("cancel and timeout: no peer");
		else if ((job.rank & 1) == turn)
			cancel_mine();
		barrier();
		if (peer >= 0 && (job.rank & 1) != turn)
			wait_short();
		barrier();
	}
}

/* 7: an endpoint bound to myself and a wildcard of the same CDM */
static void to_myself(void)
{
	const uint64_t bid = ID(7, 1), wid = ID(7, 2);
	gni_ep_handle_t self = job.ep[job.rank], wep;
	gni_post_state_t bst = GNI_POST_PENDING, wst = GNI_POST_PENDING;
	uint32_t bra = 0, brid = 0, wra = 0, wrid = 0;
	struct msg bout = msg_of(job.rank, 71), wout = msg_of(ANY, 72);
	struct msg bin, win;
	gni_return_t brc, wrc;

	memset(&bin, 0, sizeof(bin));
	memset(&win, 0, sizeof(win));
	wrc = GNI_EpCreate(job.nic, NULL, &wep);
	if (!check(wrc == GNI_RC_SUCCESS, "GNI_EpCreate of a wildcard "
		   "endpoint: %s", rc_str(wrc)))
		job_bail("no endpoint");
	wrc = GNI_EpPostDataWId(wep, &wout, sizeof(wout), &win, sizeof(win),
				wid);
	brc = GNI_EpPostDataWId(self, &bout, sizeof(bout), &bin, sizeof(bin),
				bid);
	if (brc == GNI_RC_SUCCESS)
		brc = GNI_EpPostDataWaitById(self, bid, WAIT_MS, &bst, &bra,
					     &brid);
	if (wrc == GNI_RC_SUCCESS)
		wrc = GNI_EpPostDataWaitById(wep, wid, WAIT_MS, &wst, &wra,
					     &wrid);
	check(brc == GNI_RC_SUCCESS && bst == GNI_POST_COMPLETED &&
	      bra == job.addr && brid == (uint32_t)job.rank &&
	      msg_is(&bin, job.rank, ANY) && bin.seq == 72,
	      "to myself, bound to (0x%x, %d): %s, %s from (0x%x, %u), the "
	      "wildcard's data", job.addr, job.rank, rc_str(brc),
	      state_str(bst), bra, brid);
	check(wrc == GNI_RC_SUCCESS && wst == GNI_POST_COMPLETED &&
	      wra == job.addr && wrid == (uint32_t)job.rank &&
	      msg_is(&win, job.rank, job.rank) && win.seq == 71,
	      "to myself, the wildcard: %s, %s from (0x%x, %u), the bound "
	      "endpoint's data", rc_str(wrc), state_str(wst), wra, wrid);
	if (brc != GNI_RC_SUCCESS)
		drop(self);
	wrc = GNI_EpDestroy(wep);
	check(wrc == GNI_RC_SUCCESS, "GNI_EpDestroy of the wildcard endpoint: "
	      "%s", rc_str(wrc));
	barrier();
}

/* 8: the right PE, an inst_id nobody has */
static void wrong_inst(void)
{
	const int next = (job.rank + 1) % job.size;
	const uint64_t id = ID(8, 0);
	gni_post_state_t st = GNI_POST_COMPLETED;
	uint32_t ra = 0, rid = 0;
	struct msg out = msg_of(next, 8), in;
	gni_ep_handle_t ep;
	gni_return_t rc;

	rc = GNI_EpCreate(job.nic, NULL, &ep);
	if (rc == GNI_RC_SUCCESS)
		rc = GNI_EpBind(ep, job.addrs[next], NOBODY(next));
	if (!check(rc == GNI_RC_SUCCESS, "an endpoint bound to rank %d's "
		   "address 0x%x and inst_id 0x%x, which no CDM has: %s", next,
		   job.addrs[next], NOBODY(next), rc_str(rc)))
		job_bail("no endpoint");
	rc = GNI_EpPostDataWId(ep, &out, sizeof(out), &in, sizeof(in), id);
	if (rc == GNI_RC_SUCCESS)
		rc = GNI_EpPostDataWaitById(ep, id, SHORT_MS, &st, &ra, &rid);
	if (rc == GNI_RC_SUCCESS && st == GNI_POST_TIMEOUT) {
		/* the kernel may give up on a peer that cannot be reached */
		check(1, "a wrong inst_id never matches: GNI_POST_TIMEOUT, "
		      "collected");
	} else {
		check(rc == GNI_RC_TIMEOUT, "a wrong inst_id never matches: a "
		      "wait of %u ms: %s, %s (want GNI_RC_TIMEOUT)", SHORT_MS,
		      rc_str(rc), state_str(st));
		rc = GNI_EpPostDataCancelById(ep, id);
		if (rc == GNI_RC_SUCCESS)
			rc = GNI_EpPostDataWaitById(ep, id, WAIT_MS, &st, &ra,
						    &rid);
		check(rc == GNI_RC_SUCCESS && st == GNI_POST_TERMINATED,
		      "then cancelled: %s, %s", rc_str(rc), state_str(st));
	}
	GNI_EpUnbind(ep);
	rc = GNI_EpDestroy(ep);
	check(rc == GNI_RC_SUCCESS, "GNI_EpDestroy of it: %s", rc_str(rc));
	barrier();
}

/* 9: 128 bytes each way, into 128 bytes and into 16 */
static void too_small(void)
{
	const uint64_t id = ID(9, 0);
	const uint16_t room = job.rank & 1 ? 16 : GNI_DATAGRAM_MAXSIZE;
	uint8_t out[GNI_DATAGRAM_MAXSIZE], in[BUF];
	gni_post_state_t st = GNI_POST_PENDING;
	uint32_t ra = 0, rid = 0;
	gni_return_t rc;

	if (peer < 0) {
		skip("128 bytes: no peer");
		barrier();
		return;
	}
	fill(out, 9, sizeof(out));
	memset(in, 0xee, sizeof(in));
	rc = GNI_EpPostDataWId(job.ep[peer], out, sizeof(out), in, room, id);
	if (rc == GNI_RC_SUCCESS)
		rc = GNI_EpPostDataWaitById(job.ep[peer], id, WAIT_MS, &st, &ra,
					    &rid);
	if (room == GNI_DATAGRAM_MAXSIZE)
		check(rc == GNI_RC_SUCCESS && st == GNI_POST_COMPLETED &&
		      ra == job.addrs[peer] && rid == (uint32_t)peer &&
		      holds(in, peer, 9, GNI_DATAGRAM_MAXSIZE),
		      "128 bytes from rank %d into 128: %s, %s, byte for byte",
		      peer, rc_str(rc), state_str(st));
	else
		check(rc == GNI_RC_SIZE_ERROR && holds(in, peer, 9, room),
		      "128 bytes from rank %d into %u: %s (want "
		      "GNI_RC_SIZE_ERROR), the first %u bytes and nothing "
		      "after them", peer, room, rc_str(rc), room);
	rc = GNI_EpPostDataTestById(job.ep[peer], id, &st, &ra, &rid);
	check(rc == GNI_RC_NO_MATCH, "collected: GNI_EpPostDataTestById "
	      "after: %s (want GNI_RC_NO_MATCH)", rc_str(rc));
	drop(job.ep[peer]);
	barrier();
}

/* 10: what the library refuses */
static void refusals(void)
{
	const uint64_t id = ID(10, 0);
	uint8_t out[GNI_DATAGRAM_MAXSIZE + 1], in[BUF];
	gni_post_state_t st = GNI_POST_PENDING;
	uint32_t ra = 0, rid = 0;
	gni_ep_handle_t ep, unbound;
	gni_return_t rc, wrc;

	fill(out, 10, sizeof(out));
	rc = GNI_EpPostDataWId(job.ep[job.rank], out, sizeof(out), in,
			       GNI_DATAGRAM_MAXSIZE, id);
	check(rc == GNI_RC_SIZE_ERROR, "129 bytes: %s (want "
	      "GNI_RC_SIZE_ERROR)", rc_str(rc));

	rc = GNI_EpCreate(job.nic, NULL, &ep);
	if (rc == GNI_RC_SUCCESS)
		rc = GNI_EpBind(ep, job.addr, NOBODY(job.rank));
	if (rc == GNI_RC_SUCCESS)
		rc = GNI_EpCreate(job.nic, NULL, &unbound);
	if (!check(rc == GNI_RC_SUCCESS, "two more endpoints, one bound to "
		   "an inst_id nobody has: %s", rc_str(rc)))
		job_bail("no endpoint");
	rc = GNI_EpPostDataWId(ep, out, 8, in, sizeof(in), id);
	check(rc == GNI_RC_SUCCESS, "a datagram that will not complete: %s",
	      rc_str(rc));
	rc = GNI_EpPostDataWId(ep, out, 8, in, sizeof(in), id + 1);
	check(rc == GNI_RC_ERROR_RESOURCE, "a second GNI_EpPostDataWId on its "
	      "endpoint: %s (want GNI_RC_ERROR_RESOURCE)", rc_str(rc));
	rc = GNI_EpPostData(ep, out, 8, in, sizeof(in));
	check(rc == GNI_RC_ERROR_RESOURCE, "a GNI_EpPostData on it: %s (want "
	      "GNI_RC_ERROR_RESOURCE)", rc_str(rc));
	rc = GNI_EpPostDataWait(ep, 0, &st, &ra, &rid);
	check(rc == GNI_RC_INVALID_PARAM, "GNI_EpPostDataWait of 0 ms: %s "
	      "(want GNI_RC_INVALID_PARAM)", rc_str(rc));
	/* NO_MATCH: the kernel had given up on it (GNI_POST_TIMEOUT) */
	rc = GNI_EpPostDataCancel(ep);
	wrc = GNI_EpPostDataWait(ep, WAIT_MS, &st, &ra, &rid);
	check(wrc == GNI_RC_SUCCESS &&
	      ((rc == GNI_RC_SUCCESS && st == GNI_POST_TERMINATED) ||
	       (rc == GNI_RC_NO_MATCH && st == GNI_POST_TIMEOUT)),
	      "GNI_EpPostDataCancel: %s; GNI_EpPostDataWait: %s, %s",
	      rc_str(rc), rc_str(wrc), state_str(st));
	rc = GNI_EpPostDataWId(ep, out, 8, in, sizeof(in), (uint64_t)-1);
	check(rc == GNI_RC_INVALID_PARAM, "datagram_id -1: %s (want "
	      "GNI_RC_INVALID_PARAM)", rc_str(rc));
	rc = GNI_EpPostData(unbound, out, 8, in, sizeof(in));
	check(rc == GNI_RC_INVALID_PARAM, "GNI_EpPostData on an unbound "
	      "endpoint: %s (want GNI_RC_INVALID_PARAM)", rc_str(rc));

	/* 11: GNI_EpDestroy takes a pending datagram along */
	rc = GNI_EpPostDataWId(ep, out, 8, in, sizeof(in), id + 2);
	if (rc == GNI_RC_SUCCESS)
		rc = GNI_EpDestroy(ep);
	check(rc == GNI_RC_SUCCESS, "GNI_EpDestroy of an endpoint whose "
	      "datagram is pending: %s", rc_str(rc));
	rc = GNI_EpDestroy(unbound);
	check(rc == GNI_RC_SUCCESS, "GNI_EpDestroy of the unbound one: %s",
	      rc_str(rc));
	barrier();
}

/* 12: one round; 1 if my datagram completed with my peer's data, else 0 */
static int cancel_race_round(int k)
{
	const uint64_t id = ID(12, k);
	gni_post_state_t st = GNI_POST_PENDING;
	struct msg out = msg_of(peer, 1200 + k), in;
	uint32_t ra = 0, rid = 0;
	gni_return_t rc;
	int even = job.rank < peer;

	memset(&in, 0, sizeof(in));
	if (even) {
		rc = GNI_EpPostDataWId(job.ep[peer], &out, sizeof(out), &in,
				       sizeof(in), id);
		check(rc == GNI_RC_SUCCESS, "cancel race %d: post: %s", k,
		      rc_str(rc));
	}
	barrier();
	if (even) {
		rc = GNI_EpPostDataCancelById(job.ep[peer], id);
		if (rc == GNI_RC_SUCCESS || rc == GNI_RC_NO_MATCH)
			rc = GNI_EpPostDataWaitById(job.ep[peer], id, WAIT_MS,
						    &st, &ra, &rid);
	} else {
		rc = GNI_EpPostDataWId(job.ep[peer], &out, sizeof(out), &in,
				       sizeof(in), id);
		if (rc == GNI_RC_SUCCESS)
			rc = GNI_EpPostDataWaitById(job.ep[peer], id, 300,
						    &st, &ra, &rid);
		if (rc == GNI_RC_TIMEOUT) {
			GNI_EpPostDataCancelById(job.ep[peer], id);
			rc = GNI_EpPostDataWaitById(job.ep[peer], id, WAIT_MS,
						    &st, &ra, &rid);
		}
	}
	if (!check(rc == GNI_RC_SUCCESS && (st == GNI_POST_COMPLETED ||
					    st == GNI_POST_TERMINATED),
		   "cancel race %d: %s, %s (want COMPLETED or TERMINATED)",
		   k, rc_str(rc), state_str(st))) {
		drop(job.ep[peer]);
		return -1;
	}
	if (st == GNI_POST_COMPLETED &&
	    !check(msg_is(&in, peer, job.rank) && in.seq == 1200u + k,
		   "cancel race %d: completed with rank %d's data", k, peer))
		return -1;
	return st == GNI_POST_COMPLETED;
}

/* 12: both sides of every round agree */
static void cancel_race(void)
{
	int k, mine, both = 0, neither = 0, bad = 0;
	int *all = calloc(job.size, sizeof(*all));

	if (!all)
		job_bail("no memory");
	for (k = 0; k < 16; k++) {
		mine = 0;
		if (peer < 0)
			barrier();	/* the round's */
		else
			mine = cancel_race_round(k);
		allgather(&mine, all, sizeof(mine));
		if (peer < 0)
			continue;
		if (mine < 0 || all[peer] < 0 || mine != all[peer])
			bad++;
		else if (mine)
			both++;
		else
			neither++;
	}
	if (peer < 0)
		skip("cancel race: no peer");
	else
		check(!bad, "a cancel racing its peer's post, 16 rounds: both "
		      "sides agree (%d completed on both, %d on neither, %d "
		      "disagree)", both, neither, bad);
	free(all);
}

int main(void)
{
	uint32_t ra, rid;
	gni_return_t rc;

	job_cdm_modes = GNI_CDM_MODE_FAST_DATAGRAM_POLL;
	job_init("ugni_dgram", 2);
	peer = (job.rank ^ 1) < job.size ? job.rank ^ 1 : -1;
	diag("rank %d pairs with rank %d", job.rank, peer);
	barrier();

	connect_all();
	barrier();
	bound_sizes();
	if (job.rank == 0)
		wildcard_target();
	else
		wildcard_sender();
	barrier();
	early();
	cancel_and_timeout();
	to_myself();
	wrong_inst();
	too_small();
	refusals();
	cancel_race();

	rc = GNI_PostDataProbe(job.nic, &ra, &rid);
	check(rc == GNI_RC_NO_MATCH, "no datagram of mine left to probe at "
	      "the end: %s", rc_str(rc));
	barrier();
	job_fini();
	return job_finish();
}
