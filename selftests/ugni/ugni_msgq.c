// SPDX-License-Identifier: GPL-2.0-only
/*
 * ugni_msgq: the shared message queue (GNI_Msgq*) as Cray's msgq example
 * uses it, through gni_pub.h and pmi.h alone.
 *
 *     vgemini run -n 4 --ppn 2 ugni_msgq [--count K]
 *
 * For two or more nodes with several ranks each.  The ranks of a node
 * (PMI_Get_clique_ranks) share one queue; only the lowest rank of a node
 * connects it to each other node: GNI_MsgqGetConnAttrs, its used prefix
 * shipped in datagrams of at most 128 bytes to that node's lowest rank
 * (both post each chunk), GNI_MsgqConnect with what came back.  Each phase
 * opens a queue of its own and ends with GNI_MsgqConnRelease and GNI_MsgqRelease.
 *
 *  0. Before anything of uGNI, rank 0 forks a child that detaches every
 *     hugetlbfs mount in a mount namespace of its own, attaches a CDM with
 *     an inst_id no rank has and must get GNI_RC_PERMISSION_ERROR from
 *     GNI_MsgqInit; its exit status is checked at the end.
 *  1. GNI_MsgqInit refuses each bad attribute and NULL arguments;
 *     GNI_MsgqSize is a nonzero multiple of the 2 MiB huge page, growing
 *     with smsg_q_sz x nloc_insts x num_msgq_eps.
 *  2. All to all (smsg_q_sz 8): a send before the nodes are connected and
 *     after ConnRelease is GNI_RC_INVALID_STATE; GetConnAttrs gives my PE,
 *     my node's rank count and offsetof(insts) + that many insts; refusals
 *     on the connected queue.  Then every rank sends K (--count, 200)
 *     messages to every rank of the other nodes: total sizes 0..128
 *     cycling, split between header and message in varying ways, tags
 *     varying, every byte derived from (sender, receiver, seq), the first
 *     four seq, total and header length.  A sender told GNI_RC_NOT_DONE
 *     progresses and tries again.  Receivers check sender id and PE, tag
 *     and bytes, each sender's in order and once; each send raised one
 *     local MSGQ event with its msg_id.
 *  3. A full queue (smsg_q_sz 2): rank 0 streams 50 messages to a rank of
 *     another node, which does not progress until rank 0 was told
 *     GNI_RC_NOT_DONE (a barrier); then all 50 arrive, in order.
 *  4. Blocking mode (max_msg_sz 40, no snd_cq): a Progress of 200 ms with
 *     nothing sent gives GNI_RC_SUCCESS (all of none processed, as
 *     gni_pub.h says) after about that long; with a callback returning 0
 *     each Progress delivers one of three messages and says
 *     GNI_RC_NOT_DONE (more may wait); then one finds nothing: SUCCESS.
 *     A drain loop on NOT_DONE, as real programs write, ends.
 */
#include "ugni_job.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/mount.h>
#include <sys/wait.h>

#define HUGE_PAGE	(2u << 20)
#define WAIT_MS		30000u	/* for the peer's datagram */
#define MAX_COUNT	10000u
#define FULL_MSGS	50u	/* phase 3 */
#define BLOCK_MAX	40u	/* phase 4's max_msg_sz */
#define BLOCK_MSGS	3u
#define META		4	/* seq (2 bytes), total, header length */
/* A send's msg_id: phase, destination rank, seq */
#define MSG_ID(ph, to, seq) \
	((uint32_t)(ph) << 28 | (uint32_t)(to) << 16 | (uint32_t)(seq))
#define ATTR_SIZE(n)	(offsetof(gni_msgq_ep_attr_t, insts) + \
			 (n) * sizeof(gni_msgq_rem_inst_t))
#define REMOTE(r)	(lead[r] != lead[job.rank])

/* What a rank receives in the current phase (the callback's cb_data) */
static struct rx {
	uint32_t max;		/* the queue's max_msg_sz */
	uint32_t *want;		/* by sender: how many messages */
	uint32_t *next;		/* by sender: the next seq */
	uint64_t calls, bad, prog_err;
	int stop;		/* the callback returns 0 */
} rx;

/* What a rank sent in the current phase, and its local events */
static struct tx {
	uint32_t phase, count, max;
	uint8_t *sent, *evs;	/* [to * count + seq] */
	uint64_t nsent, events, bad, not_done;
} tx;

static gni_cq_handle_t scq;	/* snd_cq of phases 2 and 3 */
static int csize;		/* ranks on my node */
static int *lead;		/* by rank: the lowest rank of its node */
static int *csz;		/* by rank: its node's rank count */
static int *node_lead, nnodes;	/* the lowest rank of each node */
static int first_remote;	/* the first rank on another node */
static int far;			/* the last rank not on rank 0's node */
static uint32_t prog_to = (uint32_t)-1;	/* Progress while sending */
static uint8_t hbuf[GNI_MSGQ_MSG_SZ_MAX + 32], mbuf[GNI_MSGQ_MSG_SZ_MAX + 32];
static pid_t child = -1;	/* phase 0 */
static int child_fd = -1, fork_errno;

/*
 * Message @seq from @from to @to in a queue of @max bytes: its @hl bytes
 * of header and the rest, into @b; its total length and tag.  The first
 * META bytes say seq, total and @hl (as many as fit).
 */
static uint32_t gen(int from, int to, uint32_t seq, uint32_t max, uint8_t *b,
		    uint32_t *hl, uint8_t *tag)
{
	uint32_t t = (seq + from * 11 + to * 3) % (max + 1), i;
	uint8_t meta[META];

	*hl = t ? (seq * 7 + from + to * 5) % (t + 1) : 0;
	*tag = (uint8_t)(seq * 29 + from * 7 + to);
	meta[0] = (uint8_t)seq;
	meta[1] = (uint8_t)(seq >> 8);
	meta[2] = (uint8_t)t;
	meta[3] = (uint8_t)*hl;
	for (i = 0; i < t; i++)
		b[i] = i < META ? meta[i] :
		       (uint8_t)(from * 31 + to * 17 + seq * 13 + i * 7 + 1);
	return t;
}

/* Each message must be the next one of its sender, byte for byte. */
static int rcv_cb(uint32_t snd_id, uint32_t snd_pe, void *msg, uint8_t tag,
		  void *cb_data)
{
	uint8_t want[GNI_MSGQ_MSG_SZ_MAX], wtag, *p = msg;
	uint32_t t, hl, seq, i = 0;

	rx.calls++;
	if (cb_data != &rx) {
		if (rx.bad++ < 5)
			diag("cb_data %p, not %p", cb_data, (void *)&rx);
		return !rx.stop;
	}
	if (snd_id >= (uint32_t)job.size || !REMOTE(snd_id) ||
	    snd_pe != job.addrs[snd_id] ||
	    rx.next[snd_id] >= rx.want[snd_id]) {
		if (rx.bad++ < 5)
			diag("a message from inst %u, PE 0x%x, tag %u: not "
			     "from a rank that owes me one", snd_id, snd_pe,
			     tag);
		return !rx.stop;
	}
	seq = rx.next[snd_id]++;
	t = gen(snd_id, job.rank, seq, rx.max, want, &hl, &wtag);
	if (t && !p)
		i = t + 1;
	else
		while (i < t && p[i] == want[i])
			i++;
	if ((tag != wtag || i != t) && rx.bad++ < 5)
		diag("message %u from rank %u (%u bytes, header %u): tag %u "
		     "(want %u), byte %u is 0x%02x (want 0x%02x)", seq, snd_id,
		     t, hl, tag, wtag, i, i < t && p ? p[i] : 0,
		     i < t ? want[i] : 0);
	return !rx.stop;
}

/* A phase starts: nothing expected yet, nothing sent */
static void phase_reset(uint32_t phase, uint32_t max, uint32_t count)
{
	free(rx.want);
	free(rx.next);
	free(tx.sent);
	free(tx.evs);
	memset(&rx, 0, sizeof(rx));
	memset(&tx, 0, sizeof(tx));
	rx.max = tx.max = max;
	tx.phase = phase;
	tx.count = count;
	rx.want = calloc(job.size, sizeof(*rx.want));
	rx.next = calloc(job.size, sizeof(*rx.next));
	tx.sent = calloc((size_t)job.size * count, 1);
	tx.evs = calloc((size_t)job.size * count, 1);
	if (!rx.want || !rx.next || !tx.sent || !tx.evs)
		job_bail("out of memory");
}

static uint64_t rx_missing(void)
{
	uint64_t n = 0;
	int r;

	for (r = 0; r < job.size; r++)
		n += rx.want[r] - rx.next[r];
	return n;
}

/* Every local event of snd_cq: MSGQ, a msg_id of this phase, counted. */
static void drain_snd(void)
{
	gni_cq_entry_t e = 0;
	gni_return_t rc;
	uint64_t id, to, seq;

	while ((rc = GNI_CqGetEvent(scq, &e)) != GNI_RC_NOT_DONE) {
		id = GNI_CQ_GET_MSG_ID(e);
		to = id >> 16 & 0xfff;
		seq = id & 0xffff;
		if (rc != GNI_RC_SUCCESS ||
		    GNI_CQ_GET_TYPE(e) != GNI_CQ_EVENT_TYPE_MSGQ ||
		    id >> 28 != tx.phase || to >= (uint64_t)job.size ||
		    seq >= tx.count) {
			if (!tx.bad++)
				diag("local event %s 0x%016" PRIx64 ": type %"
				     PRIu64 ", msg_id 0x%" PRIx64, rc_str(rc),
				     (uint64_t)e, (uint64_t)GNI_CQ_GET_TYPE(e),
				     id);
			if (rc != GNI_RC_SUCCESS)
				break;
			continue;
		}
		tx.evs[to * tx.count + seq]++;
		tx.events++;
	}
}

static gni_return_t progress(gni_msgq_handle_t h, uint32_t timeout)
{
	gni_return_t rc = GNI_MsgqProgress(h, timeout);

	if (rc != GNI_RC_SUCCESS && rc != GNI_RC_NOT_DONE && !rx.prog_err++)
		diag("GNI_MsgqProgress(%u): %s", timeout, rc_str(rc));
	return rc;
}

/*
 * Message @seq to rank @to; with @retry, a full queue (NOT_DONE) is tried
 * again for up to EVENT_TIMEOUT_S, progressing meanwhile: the receivers
 * here may be what the other node's senders wait for.
 */
static gni_return_t send_msg(gni_msgq_handle_t h, int to, uint32_t seq,
			     bool retry)
{
	uint8_t s[GNI_MSGQ_MSG_SZ_MAX], tag;
	/* separate buffers, at changing alignments: the library joins them */
	uint8_t *hp = hbuf + (seq & 3), *mp = mbuf + 1 + (seq & 7);
	double deadline = now() + EVENT_TIMEOUT_S;
	uint32_t t, hl;
	gni_return_t rc;

	t = gen(job.rank, to, seq, tx.max, s, &hl, &tag);
	memcpy(hp, s, hl);
	memcpy(mp, s + hl, t - hl);
	for (;;) {
		rc = GNI_MsgqSend(h, job.ep[to], hp, hl, mp, t - hl,
				  MSG_ID(tx.phase, to, seq), tag);
		if (rc == GNI_RC_SUCCESS) {
			tx.sent[to * tx.count + seq]++;
			tx.nsent++;
		}
		if (rc != GNI_RC_NOT_DONE)
			return rc;
		tx.not_done++;
		if (!retry || now() > deadline)
			return rc;
		progress(h, prog_to);
		drain_snd();
		usleep(20);
	}
}

/* Progress and collect events until everything came, or nothing for long */
static void wait_all(gni_msgq_handle_t h)
{
	double stall = now() + EVENT_TIMEOUT_S;
	uint64_t before;

	while (rx_missing() || tx.events < tx.nsent) {
		before = rx.calls + tx.events;
		progress(h, prog_to);
		drain_snd();
		if (rx.calls + tx.events != before) {
			stall = now() + EVENT_TIMEOUT_S;
		} else if (now() > stall) {
			diag("nothing new for %.0f s: %" PRIu64 " messages and "
			     "%" PRIu64 " events missing", EVENT_TIMEOUT_S,
			     rx_missing(), tx.nsent - tx.events);
			break;
		} else {
			usleep(50);
		}
	}
}

static void rx_check(const char *what)
{
	uint64_t exp = 0;
	int r, from = 0;

	for (r = 0; r < job.size; r++) {
		exp += rx.want[r];
		from += rx.want[r] > 0;
	}
	check(!rx_missing() && !rx.bad && !rx.prog_err && rx.calls == exp,
	      "%s: %" PRIu64 " messages from %d ranks of other nodes: sender "
	      "id and PE, tag, length and bytes right, each sender's in order "
	      "and once (%" PRIu64 " callbacks, %" PRIu64 " wrong, %" PRIu64
	      " missing, %" PRIu64 " Progress errors)", what, exp, from,
	      rx.calls, rx.bad, rx_missing(), rx.prog_err);
}

static void tx_check(const char *what)
{
	size_t i, n = (size_t)job.size * tx.count;
	uint64_t odd = 0;

	for (i = 0; i < n; i++)
		odd += tx.sent[i] > 1 || tx.evs[i] != tx.sent[i];
	check(!odd && !tx.bad && tx.events == tx.nsent, "%s: %" PRIu64
	      " local MSGQ events on snd_cq for %" PRIu64 " messages sent, "
	      "each msg_id once (%" PRIu64 " wrong, %" PRIu64 " not as sent)",
	      what, tx.events, tx.nsent, tx.bad, odd);
}

static gni_msgq_attr_t attrs_of(uint32_t max, uint32_t q, uint8_t modes)
{
	gni_msgq_attr_t a = { .max_msg_sz = max, .smsg_q_sz = q,
			      .rcv_pool_sz = 64 /* ignored */,
			      .num_msgq_eps = nnodes - 1, .nloc_insts = csize,
			      .modes = modes, .rcv_cq_sz = 1024 };

	return a;
}

/* My @my bytes at @mine to rank @l, @n bytes of its into @theirs */
static int ship_attrs(int l, const void *mine, uint32_t my, void *theirs,
		      uint32_t n, unsigned int *chunks)
{
	gni_post_state_t st = GNI_POST_PENDING;
	uint32_t off, out, in, ra = 0, rid = 0;
	gni_return_t rc;

	*chunks = 0;
	for (off = 0; off < n; off += GNI_DATAGRAM_MAXSIZE) {
		out = off >= my ? 0 : my - off > GNI_DATAGRAM_MAXSIZE ?
		      GNI_DATAGRAM_MAXSIZE : my - off;
		in = sizeof(gni_msgq_ep_attr_t) - off;
		if (in > GNI_DATAGRAM_MAXSIZE)
			in = GNI_DATAGRAM_MAXSIZE;
		rc = GNI_EpPostData(job.ep[l], (uint8_t *)mine + off, out,
				    (uint8_t *)theirs + off, in);
		if (rc == GNI_RC_SUCCESS)
			rc = GNI_EpPostDataWait(job.ep[l], WAIT_MS, &st, &ra,
						&rid);
		if (rc != GNI_RC_SUCCESS || st != GNI_POST_COMPLETED ||
		    ra != job.addrs[l] || rid != (uint32_t)l) {
			diag("datagram at offset %u with rank %d: %s, state %d "
			     "from (0x%x, %u)", off, l, rc_str(rc), st, ra,
			     rid);
			GNI_EpPostDataCancel(job.ep[l]);
			GNI_EpPostDataWait(job.ep[l], 1000, &st, &ra, &rid);
			return 0;
		}
		++*chunks;
	}
	return 1;
}

/* The lowest rank of my node connects it to the node of rank @l. */
static void connect_node(gni_msgq_handle_t h, int l, const char *what)
{
	gni_msgq_ep_attr_t mine, theirs;
	uint32_t sz = 0, want = ATTR_SIZE(csize), n = ATTR_SIZE(csz[l]);
	unsigned int chunks;
	gni_return_t rc;
	int ok;

	memset(&mine, 0, sizeof(mine));
	memset(&theirs, 0, sizeof(theirs));
	rc = GNI_MsgqGetConnAttrs(h, job.addrs[l], &mine, &sz);
	check(rc == GNI_RC_SUCCESS && mine.pe_addr == job.addr &&
	      mine.num_insts == (uint32_t)csize && sz == want,
	      "%s: GNI_MsgqGetConnAttrs for the node of rank %d (PE 0x%x): "
	      "%s, pe_addr 0x%x (mine 0x%x), num_insts %u (my node's ranks "
	      "%d), %u bytes (want %u)", what, l, job.addrs[l], rc_str(rc),
	      mine.pe_addr, job.addr, mine.num_insts, csize, sz, want);
	if (rc != GNI_RC_SUCCESS || sz > sizeof(mine))
		sz = 0;
	/* Both sides must post as many chunks: the longer one's */
	ok = ship_attrs(l, &mine, sz, &theirs, sz > n ? sz : n, &chunks);
	check(ok && theirs.pe_addr == job.addrs[l] &&
	      theirs.num_insts == (uint32_t)csz[l], "%s: attributes "
	      "exchanged with rank %d in %u datagrams: its pe_addr 0x%x, "
	      "num_insts %u (want 0x%x, %d)", what, l, chunks,
	      theirs.pe_addr, theirs.num_insts, job.addrs[l], csz[l]);
	rc = GNI_MsgqConnect(h, job.addrs[l], &theirs);
	check(rc == GNI_RC_SUCCESS, "%s: GNI_MsgqConnect to PE 0x%x: %s", what,
	      job.addrs[l], rc_str(rc));
}

static void unconnected_send(gni_msgq_handle_t h, const char *what,
			     const char *when)
{
	gni_return_t rc = GNI_MsgqSend(h, job.ep[first_remote], hbuf, 4, mbuf,
				       4, MSG_ID(0, 0, 0), 0);

	check(rc == GNI_RC_NO_MATCH, "%s: a send to rank %d %s: %s (want "
	      "GNI_RC_NO_MATCH: no connection)", what, first_remote, when,
	      rc_str(rc));
}

/*
 * Every rank attaches, the lowest ranks connect their nodes (in the same
 * order everywhere: no two wait on each other), a barrier.  With
 * @unconnected, a send before the connections first.
 */
static gni_msgq_handle_t msgq_open(gni_msgq_attr_t *a, gni_cq_handle_t cq,
				   const char *what, bool unconnected)
{
	gni_msgq_handle_t h = NULL;
	gni_return_t rc;
	int n;

	rc = GNI_MsgqInit(job.nic, rcv_cb, &rx, cq, a, &h);
	if (!check(rc == GNI_RC_SUCCESS && h, "%s: GNI_MsgqInit(max_msg_sz "
		   "%u, smsg_q_sz %u, num_msgq_eps %u, nloc_insts %u, modes "
		   "0x%x, snd_cq %s): %s", what, a->max_msg_sz, a->smsg_q_sz,
		   a->num_msgq_eps, a->nloc_insts, a->modes,
		   cq ? "yes" : "NULL", rc_str(rc)))
		job_bail("no queue");
	/* every rank of the node attached: num_insts counts them all */
	barrier();
	if (unconnected) {
		unconnected_send(h, what, "before the nodes are connected");
		barrier();
	}
	if (lead[job.rank] == job.rank)
		for (n = 0; n < nnodes; n++)
			if (node_lead[n] != job.rank)
				connect_node(h, node_lead[n], what);
	barrier();
	return h;
}

static void msgq_close(gni_msgq_handle_t h, const char *what,
		       bool unconnected)
{
	gni_return_t rc;
	int n;

	barrier();
	if (lead[job.rank] == job.rank) {
		for (n = 0; n < nnodes; n++) {
			if (node_lead[n] == job.rank)
				continue;
			rc = GNI_MsgqConnRelease(h, job.addrs[node_lead[n]]);
			check(rc == GNI_RC_SUCCESS, "%s: GNI_MsgqConnRelease "
			      "of PE 0x%x: %s", what, job.addrs[node_lead[n]],
			      rc_str(rc));
		}
	}
	barrier();
	if (unconnected)
		unconnected_send(h, what, "after GNI_MsgqConnRelease");
	rc = GNI_MsgqRelease(h);
	check(rc == GNI_RC_SUCCESS, "%s: GNI_MsgqRelease: %s", what,
	      rc_str(rc));
	barrier();
}

/* 1: what GNI_MsgqInit refuses, and GNI_MsgqSize */
static void refusals_init(void)
{
	static const char *const bad[] = {
		"max_msg_sz 129", "max_msg_sz 0", "smsg_q_sz 3",
		"nloc_insts 0", "nloc_insts 49", "num_msgq_eps 0",
		"modes 0x80",
	};
	gni_msgq_attr_t base = attrs_of(GNI_MSGQ_MSG_SZ_MAX, 8, 0), a, big;
	gni_return_t rc, r[4];
	gni_msgq_handle_t h;
	uint32_t s = 0, s2 = 0;
	unsigned int k;

	for (k = 0; k < ARRAY_SIZE(bad); k++) {
		a = base;
		switch (k) {
		case 0: a.max_msg_sz = GNI_MSGQ_MSG_SZ_MAX + 1; break;
		case 1: a.max_msg_sz = 0; break;
		case 2: a.smsg_q_sz = 3; break;
		case 3: a.nloc_insts = 0; break;
		case 4: a.nloc_insts = GNI_MSGQ_NODE_INSTS_MAX + 1; break;
		case 5: a.num_msgq_eps = 0; break;
		case 6: a.modes = 0x80; break;
		}
		h = NULL;
		rc = GNI_MsgqInit(job.nic, rcv_cb, &rx, scq, &a, &h);
		check(rc == GNI_RC_INVALID_PARAM, "GNI_MsgqInit with %s: %s "
		      "(want GNI_RC_INVALID_PARAM)", bad[k], rc_str(rc));
		if (rc == GNI_RC_SUCCESS)
			GNI_MsgqRelease(h);
	}
	a = base;
	h = NULL;
	r[0] = GNI_MsgqInit(job.nic, NULL, &rx, scq, &a, &h);
	if (r[0] == GNI_RC_SUCCESS)
		GNI_MsgqRelease(h);
	r[1] = GNI_MsgqInit(NULL, rcv_cb, &rx, scq, &a, &h);
	r[2] = GNI_MsgqInit(job.nic, rcv_cb, &rx, scq, NULL, &h);
	r[3] = GNI_MsgqInit(job.nic, rcv_cb, &rx, scq, &a, NULL);
	check(r[0] == GNI_RC_INVALID_PARAM && r[1] == GNI_RC_INVALID_PARAM &&
	      r[2] == GNI_RC_INVALID_PARAM && r[3] == GNI_RC_INVALID_PARAM,
	      "GNI_MsgqInit without a callback: %s, a NIC: %s, attributes: "
	      "%s, a handle to fill: %s (want GNI_RC_INVALID_PARAM)",
	      rc_str(r[0]), rc_str(r[1]), rc_str(r[2]), rc_str(r[3]));

	rc = GNI_MsgqSize(&a, &s);
	check(rc == GNI_RC_SUCCESS && s && s % HUGE_PAGE == 0, "GNI_MsgqSize "
	      "of phase 2's queue: %s, %u bytes, a nonzero multiple of 2 MiB",
	      rc_str(rc), s);
	/* 2 x 1 x 1 slots, then 256 x 48 x 8 = 98304: past any 2 MiB */
	a.smsg_q_sz = 2;
	a.nloc_insts = 1;
	a.num_msgq_eps = 1;
	big = a;
	big.smsg_q_sz = 256;
	big.nloc_insts = GNI_MSGQ_NODE_INSTS_MAX;
	big.num_msgq_eps = 8;
	s = s2 = 0;
	rc = GNI_MsgqSize(&a, &s);
	if (rc == GNI_RC_SUCCESS)
		rc = GNI_MsgqSize(&big, &s2);
	check(rc == GNI_RC_SUCCESS && s && s % HUGE_PAGE == 0 &&
	      s2 % HUGE_PAGE == 0 && s2 > s, "GNI_MsgqSize of 2 x 1 x 1 "
	      "slots: %u, of 256 x 48 x 8: %u (multiples of 2 MiB, the second "
	      "bigger): %s", s, s2, rc_str(rc));
	r[0] = GNI_MsgqSize(NULL, &s);
	r[1] = GNI_MsgqSize(&a, NULL);
	check(r[0] == GNI_RC_INVALID_PARAM && r[1] == GNI_RC_INVALID_PARAM,
	      "GNI_MsgqSize without attributes: %s, a size to fill: %s (want "
	      "GNI_RC_INVALID_PARAM)", rc_str(r[0]), rc_str(r[1]));
	barrier();
}

/* 2: what a connected queue refuses; none of it raises an event */
static void refusals_connected(gni_msgq_handle_t h, const gni_msgq_attr_t *a)
{
	const uint32_t over = a->max_msg_sz + 1;
	const uint32_t hls[] = { 0, 1, over / 2, over };
	gni_return_t rc, r[7];
	gni_msgq_ep_attr_t ea;
	gni_cq_entry_t e;
	unsigned int k;
	uint32_t sz;
	int q;

	memset(&ea, 0, sizeof(ea));
	for (k = 0; k < ARRAY_SIZE(hls); k++) {
		rc = GNI_MsgqSend(h, job.ep[first_remote], hbuf, hls[k], mbuf,
				  over - hls[k], MSG_ID(0, 0, 0), 0);
		check(rc == GNI_RC_SIZE_ERROR, "%u + %u bytes, max_msg_sz "
		      "%u: %s (want GNI_RC_SIZE_ERROR)", hls[k],
		      over - hls[k], a->max_msg_sz, rc_str(rc));
	}
	for (q = 0; q < job.size; q++) {
		if (REMOTE(q))
			continue;
		rc = GNI_MsgqSend(h, job.ep[q], hbuf, 4, mbuf, 4,
				  MSG_ID(0, 0, 0), 0);
		check(rc == GNI_RC_NO_MATCH, "a send to rank %d, on my "
		      "node%s: %s (want GNI_RC_NO_MATCH: no connection)", q,
		      q == job.rank ? " (myself)" : "", rc_str(rc));
	}
	rc = GNI_MsgqProgress(h, 0);
	check(rc == GNI_RC_INVALID_PARAM, "non-blocking GNI_MsgqProgress with "
	      "timeout 0: %s (want GNI_RC_INVALID_PARAM)", rc_str(rc));
	rc = GNI_MsgqProgress(h, 200);
	check(rc == GNI_RC_INVALID_PARAM, "non-blocking GNI_MsgqProgress with "
	      "timeout 200: %s (want GNI_RC_INVALID_PARAM)", rc_str(rc));
	r[0] = GNI_MsgqSend(NULL, job.ep[first_remote], hbuf, 4, mbuf, 4, 0, 0);
	r[1] = GNI_MsgqSend(h, NULL, hbuf, 4, mbuf, 4, 0, 0);
	r[2] = GNI_MsgqProgress(NULL, (uint32_t)-1);
	r[3] = GNI_MsgqGetConnAttrs(NULL, job.addrs[first_remote], &ea, &sz);
	r[4] = GNI_MsgqConnect(NULL, job.addrs[first_remote], &ea);
	r[5] = GNI_MsgqConnRelease(NULL, job.addrs[first_remote]);
	r[6] = GNI_MsgqRelease(NULL);
	for (k = 0; k < ARRAY_SIZE(r) && r[k] == GNI_RC_INVALID_PARAM; k++)
		;
	check(k == ARRAY_SIZE(r), "NULL handles: GNI_MsgqSend %s, with a NULL "
	      "endpoint %s, GNI_MsgqProgress %s, GNI_MsgqGetConnAttrs %s, "
	      "GNI_MsgqConnect %s, GNI_MsgqConnRelease %s, GNI_MsgqRelease %s "
	      "(want GNI_RC_INVALID_PARAM)", rc_str(r[0]), rc_str(r[1]),
	      rc_str(r[2]), rc_str(r[3]), rc_str(r[4]), rc_str(r[5]),
	      rc_str(r[6]));
	rc = GNI_CqGetEvent(scq, &e);
	check(rc == GNI_RC_NOT_DONE, "no local event from the refused sends: "
	      "%s", rc_str(rc));
	barrier();
}

/* 2: every rank to every rank of the other nodes */
static void all_to_all(uint32_t count)
{
	gni_msgq_attr_t a = attrs_of(GNI_MSGQ_MSG_SZ_MAX, 8, 0);
	const char *what = "all to all";
	gni_msgq_handle_t h;
	uint32_t seq, fails = 0, again = 0;
	gni_return_t rc;
	int k, r, nrem = 0;
	double t0;

	h = msgq_open(&a, scq, what, true);
	refusals_connected(h, &a);
	phase_reset(2, a.max_msg_sz, count);
	for (r = 0; r < job.size; r++) {
		rx.want[r] = REMOTE(r) ? count : 0;
		nrem += REMOTE(r);
	}
	barrier();
	t0 = now();
	for (seq = 0; seq < count; seq++) {
		for (k = 1; k < job.size; k++) {
			/* each rank starts with another destination */
			r = (job.rank + k) % job.size;
			if (!REMOTE(r))
				continue;
			rc = send_msg(h, r, seq, true);
			if (rc != GNI_RC_SUCCESS && !fails++)
				diag("message %u to rank %d: %s", seq, r,
				     rc_str(rc));
			progress(h, prog_to);
			drain_snd();
		}
	}
	wait_all(h);
	check(!fails, "%s: %u messages of 0..%u bytes to each of the %d ranks "
	      "on other nodes taken (%u refused; GNI_RC_NOT_DONE %" PRIu64
	      " times, sent again while progressing)", what, count,
	      a.max_msg_sz, nrem, fails, tx.not_done);
	rx_check(what);
	tx_check(what);
	GNI_GetNicStat(job.nic, GNI_STAT_SMSG_RETRANS_COUNT, &again);
	diag("%s: %.2f s; messages sent again after a failed sequence "
	     "(GNI_STAT_SMSG_RETRANS_COUNT): %u", what, now() - t0, again);
	msgq_close(h, what, true);
}

/* 3: rank 0 fills a receiver's queue; it progresses only after NOT_DONE */
static void queue_full(void)
{
	gni_msgq_attr_t a = attrs_of(GNI_MSGQ_MSG_SZ_MAX, 2, 0);
	const char *what = "full queue";
	gni_return_t rc = GNI_RC_SUCCESS;
	gni_msgq_handle_t h;
	uint32_t n = 0, seq, fails = 0;

	h = msgq_open(&a, scq, what, false);
	phase_reset(3, a.max_msg_sz, FULL_MSGS);
	if (job.rank == far)
		rx.want[0] = FULL_MSGS;
	barrier();
	if (job.rank == 0) {
		for (n = 0; n < FULL_MSGS; n++) {
			rc = send_msg(h, far, n, false);
			if (rc != GNI_RC_SUCCESS)
				break;
			drain_snd();
		}
		check(rc == GNI_RC_NOT_DONE && n >= 1 && n <= a.smsg_q_sz,
		      "%s: %u sends to rank %d, which does not progress, "
		      "taken, then %s (want GNI_RC_NOT_DONE after 1..%u)",
		      what, n, far, rc_str(rc), a.smsg_q_sz);
	}
	/* rank 0 was told NOT_DONE (or never will be): now far receives */
	barrier();
	if (job.rank == 0) {
		for (seq = n; seq < FULL_MSGS; seq++)
			fails += send_msg(h, far, seq, true) != GNI_RC_SUCCESS;
		wait_all(h);
		check(!fails, "%s: the other %u sends, once rank %d "
		      "progressed: %u refused (GNI_RC_NOT_DONE %" PRIu64
		      " times in all)", what, FULL_MSGS - n, far, fails,
		      tx.not_done);
		tx_check(what);
	} else if (job.rank == far) {
		wait_all(h);
		rx_check(what);
	}
	msgq_close(h, what, false);
}

/* 4: blocking mode: a timed wait, and a callback that stops Progress */
static void blocking(void)
{
	gni_msgq_attr_t a = attrs_of(BLOCK_MAX, 4, GNI_MSGQ_MODE_BLOCKING);
	const char *what = "blocking";
	gni_msgq_handle_t h;
	uint64_t calls;
	uint32_t seq, fails = 0, k;
	gni_return_t rc;
	double t0, ms;

	h = msgq_open(&a, NULL, what, false);
	phase_reset(4, a.max_msg_sz, BLOCK_MSGS);
	prog_to = 1;
	calls = rx.calls;
	t0 = now();
	rc = GNI_MsgqProgress(h, 200);
	ms = (now() - t0) * 1000;
	check(rc == GNI_RC_SUCCESS && ms >= 150 && rx.calls == calls,
	      "%s: GNI_MsgqProgress(200 ms) with nothing sent: %s after %.0f "
	      "ms (want GNI_RC_SUCCESS, all of none processed, after about "
	      "200)", what, rc_str(rc), ms);
	rc = GNI_MsgqSend(h, job.ep[first_remote], hbuf, 20, mbuf,
			  a.max_msg_sz + 1 - 20, MSG_ID(0, 0, 0), 0);
	check(rc == GNI_RC_SIZE_ERROR, "%s: %u bytes, max_msg_sz %u: %s "
	      "(want GNI_RC_SIZE_ERROR)", what, a.max_msg_sz + 1,
	      a.max_msg_sz, rc_str(rc));
	if (job.rank == far) {
		rx.want[0] = BLOCK_MSGS;
		rx.stop = 1;
	}
	barrier();
	if (job.rank == 0) {
		for (seq = 0; seq < BLOCK_MSGS; seq++)
			fails += send_msg(h, far, seq, true) != GNI_RC_SUCCESS;
		check(!fails, "%s: %u messages to rank %d taken (%u refused)",
		      what, BLOCK_MSGS, far, fails);
	}
	barrier();
	if (job.rank == far) {
		/* let all three arrive: each Progress finds more than one */
		usleep(300 * 1000);
		for (k = 0; k < BLOCK_MSGS; k++) {
			calls = rx.calls;
			rc = progress(h, 10000);
			check(rc == GNI_RC_NOT_DONE && rx.calls == calls + 1,
			      "%s: the callback returns 0: GNI_MsgqProgress %u "
			      "delivered %" PRIu64 " message(s): %s (want 1, "
			      "GNI_RC_NOT_DONE: more may wait)", what, k + 1,
			      rx.calls - calls, rc_str(rc));
		}
		rx_check(what);
		calls = rx.calls;
		rc = GNI_MsgqProgress(h, 200);
		check(rc == GNI_RC_SUCCESS && rx.calls == calls, "%s: then "
		      "nothing more: %s (want GNI_RC_SUCCESS)", what,
		      rc_str(rc));
	}
	rx.stop = 0;
	prog_to = (uint32_t)-1;
	msgq_close(h, what, false);
}

/* Detach hugetlbfs mounts (stacked ones too) one by one: how many, or -1 */
static int detach_hugetlbfs(char *dir)
{
	char line[512], type[64], at[256];
	int n = 0, hit;
	FILE *f;

	do {
		f = fopen("/proc/mounts", "r");
		if (!f)
			return -1;
		hit = 0;
		while (!hit && fgets(line, sizeof(line), f))
			hit = sscanf(line, "%*s %255s %63s", at, type) == 2 &&
			      !strcmp(type, "hugetlbfs");
		fclose(f);
		if (hit)
			strcpy(dir, at);
		if (hit && umount2(dir, MNT_DETACH))
			return -1;
		n += hit;
	} while (hit && n < 16);
	return hit ? -1 : n;
}

/*
 * A rank is not root: in a user namespace of its own, with a mount
 * namespace, cover this process's /proc/PID/mounts (what /proc/mounts
 * shows it) with a copy without the hugetlbfs lines, which a less
 * privileged mount namespace cannot unmount.  How many it hid, or -1.
 */
static int hide_hugetlbfs(char *dir)
{
	char line[512], type[64], at[256], tmp[64], own[64];
	FILE *in, *out;
	int n = 0;

	snprintf(tmp, sizeof(tmp), "/tmp/ugni_msgq-mounts.%d", (int)getpid());
	snprintf(own, sizeof(own), "/proc/%d/mounts", (int)getpid());
	in = fopen("/proc/self/mounts", "r");
	out = fopen(tmp, "w");
	if (!in || !out)
		goto fail;
	while (fgets(line, sizeof(line), in)) {
		if (sscanf(line, "%*s %255s %63s", at, type) == 2 &&
		    !strcmp(type, "hugetlbfs")) {
			strcpy(dir, at);
			n++;
			continue;
		}
		fputs(line, out);
	}
	fclose(in);
	in = NULL;
	if (fclose(out)) {
		out = NULL;
		goto fail;
	}
	out = NULL;
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount(tmp, own, NULL, MS_BIND, NULL))
		goto fail;
	unlink(tmp);
	return n;
fail:
	if (in)
		fclose(in);
	if (out)
		fclose(out);
	unlink(tmp);
	return -1;
}

/* 0: the child's whole life; its exit status is 0 if it went right */
static int hidden_init(int fd, int size)
{
	unsigned long long ptag, cookie, dev = 0;
	const uint32_t inst = 1000 + size;	/* no rank has it */
	gni_msgq_attr_t a = { .max_msg_sz = 64, .smsg_q_sz = 4,
			      .rcv_pool_sz = 64, .num_msgq_eps = 1,
			      .nloc_insts = 1, .rcv_cq_sz = 64 };
	gni_msgq_handle_t h = NULL;
	gni_cdm_handle_t cdm;
	gni_nic_handle_t nic;
	char dir[256] = "";
	gni_return_t rc;
	uint32_t addr;
	int n;

	if (unshare(CLONE_NEWNS)) {
		n = errno;
		if (n != EPERM) {
			dprintf(fd, "unshare(CLONE_NEWNS): %s", strerror(n));
			return 3;
		}
		n = hide_hugetlbfs(dir);
		if (n < 0) {
			dprintf(fd, "hiding hugetlbfs in a user namespace "
				"(%s): %s", dir, strerror(errno));
			return 2;
		}
	} else if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) {
		/* else the unmounts would reach the node's other processes */
		dprintf(fd, "making / private: %s", strerror(errno));
		return 4;
	} else {
		n = detach_hugetlbfs(dir);
	}
	if (n < 0) {
		dprintf(fd, "detaching hugetlbfs (%s): %s", dir,
			strerror(errno));
		return 5;
	}
	if (env_number("PMI_GNI_PTAG", 255, &ptag) ||
	    env_number("PMI_GNI_COOKIE", 0xffffffffu, &cookie) ||
	    (getenv("PMI_GNI_DEV_ID") &&
	     env_number("PMI_GNI_DEV_ID", 0xffffffffu, &dev))) {
		dprintf(fd, "no PMI_GNI_PTAG, PMI_GNI_COOKIE or "
			"PMI_GNI_DEV_ID");
		return 6;
	}
	rc = GNI_CdmCreate(inst, ptag, cookie, 0, &cdm);
	if (rc == GNI_RC_SUCCESS &&
	    (rc = GNI_CdmAttach(cdm, dev, &addr, &nic)) != GNI_RC_SUCCESS)
		GNI_CdmDestroy(cdm);
	if (rc != GNI_RC_SUCCESS) {
		dprintf(fd, "a CDM as inst %u: %s", inst, rc_str(rc));
		return 7;
	}
	rc = GNI_MsgqInit(nic, rcv_cb, &rx, NULL, &a, &h);
	dprintf(fd, "%d hugetlbfs mount(s) detached (the last %s); "
		"GNI_MsgqInit as inst %u: %s (want GNI_RC_PERMISSION_ERROR)",
		n, n ? dir : "-", inst, rc_str(rc));
	if (rc == GNI_RC_SUCCESS)
		GNI_MsgqRelease(h);
	GNI_CdmDestroy(cdm);
	return rc == GNI_RC_PERMISSION_ERROR ? 0 : 8;
}

/* 0: rank 0, before anything of uGNI (the child must share none of it) */
static void fork_hidden(int size)
{
	int p[2];

	fflush(stdout);
	if (pipe(p)) {
		fork_errno = errno;
		return;
	}
	child = fork();
	if (child == 0) {
		close(p[0]);
		_exit(hidden_init(p[1], size));
	}
	if (child < 0) {
		fork_errno = errno;
		close(p[0]);
	} else {
		child_fd = p[0];
	}
	close(p[1]);
}

static void reap_hidden(void)
{
	double deadline = now() + EVENT_TIMEOUT_S;
	char s[400] = "no word from it";
	int st = -1, w = 0;
	ssize_t k;

	if (child > 0) {
		while (!(w = waitpid(child, &st, WNOHANG)) && now() < deadline)
			usleep(10000);
		if (!w) {	/* hung: no verdict */
			kill(child, SIGKILL);
			waitpid(child, NULL, 0);
			st = -1;
		}
		k = read(child_fd, s, sizeof(s) - 1);
		if (k > 0)
			s[k] = 0;
		close(child_fd);
	} else {
		snprintf(s, sizeof(s), "pipe or fork: %s",
			 strerror(fork_errno));
	}
	check(w == child && st >= 0 && WIFEXITED(st) && !WEXITSTATUS(st),
	      "no hugetlbfs: a child of rank 0 in a mount namespace of its "
	      "own: %s (exit status %d)", s,
	      st >= 0 && WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

/* Who is on my node, who leads each node, and its address */
static void topology(void)
{
	int *ranks, r, n = 0, mine = 0;

	if (PMI_Get_clique_size(&csize) != PMI_SUCCESS || csize < 1 ||
	    csize > GNI_MSGQ_NODE_INSTS_MAX)
		job_bail("PMI_Get_clique_size: none, or more than 48");
	ranks = calloc(csize, sizeof(*ranks));
	lead = calloc(job.size, sizeof(*lead));
	csz = calloc(job.size, sizeof(*csz));
	node_lead = calloc(job.size, sizeof(*node_lead));
	if (!ranks || !lead || !csz || !node_lead)
		job_bail("out of memory");
	if (PMI_Get_clique_ranks(ranks, csize) != PMI_SUCCESS)
		job_bail("PMI_Get_clique_ranks");
	for (r = 0; r < csize; r++)
		mine += ranks[r] == job.rank;
	allgather(&ranks[0], lead, sizeof(*lead));
	allgather(&csize, csz, sizeof(*csz));
	for (r = 0; r < job.size; r++) {
		if (lead[r] == r)
			node_lead[nnodes++] = r;
		n += !REMOTE(r) && job.addrs[r] == job.addr;
	}
	check(mine == 1 && n == csize, "my node's %d ranks (lowest %d) share "
	      "my PE 0x%x; %d nodes in the job", csize, lead[job.rank],
	      job.addr, nnodes);
	for (first_remote = 0; first_remote < job.size &&
	     !REMOTE(first_remote); first_remote++)
		;
	for (far = job.size - 1; far > 0 && lead[far] == lead[0]; far--)
		;
	free(ranks);
}

int main(int argc, char **argv)
{
	int spawned = 0, rank = -1, size = 0, i;
	unsigned long count = 200;
	gni_return_t rc;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--count") && i + 1 < argc) {
			count = strtoul(argv[++i], NULL, 10);
		} else {
			fprintf(stderr, "usage: ugni_msgq [--count K]\n");
			return 2;
		}
	}
	if (count < 1 || count > MAX_COUNT) {
		fprintf(stderr, "ugni_msgq: --count 1..%u\n", MAX_COUNT);
		return 2;
	}
	/* 0: fork before the CDM, the NIC and the CQ exist */
	if (PMI_Init(&spawned) == PMI_SUCCESS &&
	    PMI_Get_rank(&rank) == PMI_SUCCESS &&
	    PMI_Get_size(&size) == PMI_SUCCESS && rank == 0)
		fork_hidden(size);

	job_init("ugni_msgq", 2);
	if (job.size > 4096)
		job_bail("more than 4096 ranks: msg_ids have 12 bits for them");
	topology();
	if (nnodes < 2) {
		skip("ugni_msgq needs at least 2 nodes, the job has 1");
	} else {
		rc = GNI_CqCreate(job.nic, LOCAL_CQ_ENTRIES, 0, GNI_CQ_NOBLOCK,
				  NULL, NULL, &scq);
		if (!check(rc == GNI_RC_SUCCESS, "snd_cq: %s", rc_str(rc)))
			job_bail("no CQ");
		refusals_init();
		all_to_all((uint32_t)count);
		queue_full();
		blocking();
		GNI_CqDestroy(scq);
	}
	if (job.rank == 0)
		reap_hidden();
	barrier();
	job_fini();
	return job_finish();
}
