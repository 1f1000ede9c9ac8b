// SPDX-License-Identifier: GPL-2.0-only
/*
 * kgni_ktest's cross-node part: connections to the same client on other
 * nodes, short messages and RDMA over them, through gni_pub.h and
 * krca_lib.h alone, as a network driver such as Lustre's gnilnd would
 * (its connection set-up, event handling and node-down handling are the
 * model).
 *
 * Commands (kgni_ktest/ctl, "peer ..."):
 *   peer listen       make the context: a CDM of its own (ptag 1, its own
 *                     cookie, inst_id KTEST_PEER_INST on every node), three
 *                     CQs with an event handler, a registration of
 *                     KTEST_PEER_CONNS mailboxes, an RCA registration, and
 *                     a wildcard datagram posted, so that any node may
 *                     connect; EBUSY if made already
 *   peer connect TARGET...
 *                     make the context if need be, then connect to each
 *                     TARGET (a NID in decimal, or a NIC address 0x...):
 *                     a bound datagram to its wildcard, waited for up to
 *                     KTEST_PEER_CONNECT_MS
 *   peer smsg N [TARGET...]
 *                     N more messages of the stream of every connection
 *                     that is up (of those to the TARGETs, if given): the
 *                     peer checks each and echoes it, and at most
 *                     KTEST_PEER_WINDOW wait for their echo; returns at
 *                     once (peer wait)
 *   peer rdma SIZE [COUNT [TARGET...]]
 *                     COUNT (default 1) rounds on every connection that is
 *                     up (to the TARGETs): PUT SIZE bytes (4 to 1 MiB, a
 *                     multiple of 4) into the peer's window, which the
 *                     peer checks, then GET what the peer wrote there
 *                     back; returns at once
 *   peer halt [TARGET...]
 *                     end the streams and rounds early: what was sent is
 *                     still answered
 *   peer wait [S]     wait up to S seconds (default 60, at most 600) until
 *                     nothing is left to do: streams answered, rounds done,
 *                     every send and post ended (its event taken)
 *   peer status       the counters
 *   peer stop         tear the context down (also at unload)
 * smsg, rdma, halt, wait, status and stop fail with ENOENT without a
 * context; a bad argument with EINVAL.
 *
 * Results (kgni_ktest/result):
 *   listen      "rc N" (0, or the failing call's gni_return_t or errno,
 *               and its name)
 *   connect     per TARGET "connect NID pe 0xPE up conn SLOT", or
 *               "... failed WHY" (timeout, terminated, a refused call,
 *               ...), or "... busy" (a connection to it is up or on its
 *               way; a connection to it the TARGET made does not count)
 *   smsg, rdma, halt
 *               "rc 0 conns K": the connections it applies to
 *   wait        "wait done MS" or "wait timeout MS", then what status
 *               gives
 *   status      "peer pe 0xPE nid NID tx_calls N rx_calls N rdma_calls N
 *               bad_calls N overruns N stray N lost N rca_down N
 *               rca_up N" (the handlers' calls, those not in hard IRQ or
 *               for another device, events lost or naming nothing,
 *               connections lost, RCA events), then a
 *               line per connection slot in use, "conn SLOT" and pairs
 *               "KEY VALUE": nid, pe, state (listen, connecting, up, lost,
 *               failed), why (why lost or failed, "-"), want/sent/echoed
 *               (my stream: its length, the messages sent, their echoes
 *               back, checked), rx/echo_sent (the peer's stream: checked,
 *               echoed), bytes_tx/bytes_rx (SMSG bytes), bad (messages
 *               with other bytes), order (out of order or repeated),
 *               outstanding (sends and posts whose event has not come),
 *               errors (TRANSACTION_ERROR events), timeouts (those that
 *               timed out), puts/gets/rdma_bytes (rounds' posts done),
 *               rdma_bad (PUTs the peer found wrong, GETs I did),
 *               win_checked/win_bad (the peer's PUTs into my window),
 *               rdma_left, ms (the stream's duration), lasterr (the last
 *               error, gni_cq_error_str()'s "SOURCE:STATUS")
 *   stop        "rc N left N": the first failed call's gni_return_t, the
 *               posts that never ended
 *
 * Events: every CQ's handler runs in hard IRQ.  The RDMA CQ's takes its
 * events and gni_get_completed()'s descriptors there; the others only
 * schedule the context's work, as gnilnd's wakes its scheduler thread.
 * The work (process context: gni_post_rdma() may sleep) takes the SMSG
 * events, reads the mailboxes, answers and sends on; it runs again a jiffy
 * later only while a send found no credit (credits return silently).  A
 * kthread waits for datagrams (gni_postdata_probe_wait_by_id()) and
 * collects them, another for RCA events: a connected node reported
 * unavailable is lost at once (its endpoint destroyed: what was in flight
 * ends with error events), as is one whose SMSG fails past kgni's
 * retransmissions.
 *
 * The wire: a datagram carries struct ktest_peer_hello both ways (the
 * mailbox and window each side offers); every message starts with struct
 * ktest_peer_hdr.  A stream message's data is a pattern of its sequence
 * number; RDMA data a pattern of a seed the messages carry.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/io.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include <gni_pub.h>
#include <krca_lib.h>

#include "kgni_ktest.h"

#define KTEST_PEER_COOKIE	(KTEST_COOKIE + 0x300)
/* Every node's: a bound datagram names the peer's (NIC address, inst_id) */
#define KTEST_PEER_INST		0x70
/* Connection slots, the wildcard's included */
#define KTEST_PEER_CONNS	16
#define KTEST_PEER_CREDITS	16
/* A stream's messages not yet echoed: its echoes cannot fall behind */
#define KTEST_PEER_WINDOW	KTEST_PEER_CREDITS
#define KTEST_PEER_MSG_MAX	256	/* msg_maxsize: header and data */
#define KTEST_PEER_RDMA_MAX	SZ_1M
#define KTEST_PEER_WIN_PAGES	(KTEST_PEER_RDMA_MAX / PAGE_SIZE)
#define KTEST_PEER_CQ_ENTRIES	1024
#define KTEST_PEER_PROBE_MS	1000
#define KTEST_PEER_CONNECT_MS	20000
#define KTEST_PEER_WAIT_S	60
#define KTEST_PEER_WAIT_MAX_S	600
/* A post outlives neither the BTE's timeout nor this, at teardown */
#define KTEST_PEER_DRAIN_MS	10000
/* A window's number held past its deregistration: late writes refused */
#define KTEST_PEER_HOLD_MS	3000
/* Messages or events per connection and run of the work */
#define KTEST_PEER_BUDGET	64

#define KTEST_PEER_MAGIC	0x6b747065u	/* "ktpe" */
#define KTEST_PEER_VERSION	1
#define KTEST_PEER_HDR_MAGIC	0x6b70
#define KTEST_PEER_GET_XOR	0x5a5a5a5au

/* The CQ a handler call is for, in the low bits of its usr_event_data */
enum { KTEST_PEER_TX_CQ, KTEST_PEER_RX_CQ, KTEST_PEER_RDMA_CQ };
#define KTEST_PEER_CQ_MASK	3ull

/*
 * A connection's id: its slot and generation.  The peer's remote events
 * carry it as inst_id, its datagram as id; my sends carry it with the
 * message type as msg_id.
 */
#define KTEST_ID(slot, gen)	((u32)(gen) << 8 | (slot))
#define KTEST_ID_SLOT(id)	((id) & 0xff)
#define KTEST_ID_GEN(id)	(((id) >> 8) & 0xffff)
#define KTEST_DG_ID(id)		(0x6b70000000000000ull | (id))

/* What a datagram carries, both ways */
struct ktest_peer_hello {
	u32 magic;
	u32 version;
	u32 pe;			/* the sender's NIC address */
	u32 id;			/* its connection: my remote events' inst_id */
	u64 mbox;		/* msg_buffer of its mailboxes */
	gni_mem_handle_t mbox_mh;
	u32 mbox_offset;	/* the mailbox it gives me */
	u32 mbox_size;
	u32 credits;
	u32 msg_max;
	gni_mem_handle_t win_mh;	/* its window: offsets from 0 */
	u32 win_size;
	u32 reserved;
};

enum ktest_msg_type {
	KTEST_MSG_DATA = 1,	/* a stream's message seq, size bytes of data */
	KTEST_MSG_ECHO,		/* the same back */
	KTEST_MSG_PUT_DONE,	/* round seq's PUT of size bytes (seed) is in */
	KTEST_MSG_CHECKED,	/* checked (ok); seed's bytes there to GET */
};

/* Every message's first bytes */
struct ktest_peer_hdr {
	u16 magic;
	u8 type;
	u8 ok;
	u32 seq;
	u32 size;
	u32 seed;
};

#define KTEST_PEER_DATA_MAX	(KTEST_PEER_MSG_MAX - sizeof(struct ktest_peer_hdr))

enum ktest_conn_state {
	KTEST_FREE,
	KTEST_LISTEN,		/* its wildcard datagram posted */
	KTEST_CONNECTING,	/* its bound datagram posted */
	KTEST_UP,
	KTEST_LOST,		/* was up: its endpoint is gone */
	KTEST_FAILED,		/* never came up */
};

static const char *const ktest_state_names[] = {
	[KTEST_FREE] = "free", [KTEST_LISTEN] = "listen",
	[KTEST_CONNECTING] = "connecting", [KTEST_UP] = "up",
	[KTEST_LOST] = "lost", [KTEST_FAILED] = "failed",
};

/* An RDMA round: PUT, the peer's check, GET */
enum ktest_rdma_state {
	KTEST_RDMA_IDLE,
	KTEST_RDMA_PUT,		/* the PUT posted */
	KTEST_RDMA_CHECK,	/* waiting for KTEST_MSG_CHECKED */
	KTEST_RDMA_GET_DUE,	/* checked: the GET to post */
	KTEST_RDMA_GET,		/* the GET posted */
};

/* A post and its end, which the RDMA CQ's handler records */
struct ktest_post {
	gni_post_descriptor_t d;
	bool busy;		/* posted, its end not yet handled */
	bool done;		/* ended: under ctx->rdma_lock */
	gni_return_t rc;	/* gni_get_completed()'s */
	gni_cq_entry_t cqe;
};

struct ktest_conn_stats {
	u64 want, sent, echoed;		/* my stream */
	u64 rx, echo_sent;		/* the peer's */
	u64 bytes_tx, bytes_rx;
	u64 bad, order;
	u64 outstanding;		/* sends whose local event is due */
	u64 errors, timeouts;
	u64 puts, gets, rdma_bytes, rdma_bad;
	u64 win_checked, win_bad;
	u64 remote_smsg, remote_rdma;	/* remote events (at least once) */
	u32 rdma_left;
	ktime_t start, end;		/* the stream's */
	char lasterr[48];
};

struct ktest_peer;

struct ktest_conn {
	struct ktest_peer *ctx;
	unsigned int slot;
	u32 gen, id;
	enum ktest_conn_state state;
	const char *why;
	gni_ep_handle_t ep;
	u32 pe, nid;
	bool dg_posted;
	bool accepted;			/* its wildcard met the peer's */
	struct ktest_peer_hello hello, peer_hello;
	/* The window the peer PUTs into and GETs from: pages as segments */
	struct page **pages;
	gni_mem_handle_t win_mh;
	bool win_reg;
	/* What I PUT from and GET into */
	u8 *buf;
	gni_mem_handle_t buf_mh;
	bool buf_reg;
	/* Messages due besides the streams */
	bool put_done_due, checked_due;
	struct ktest_peer_hdr checked;
	bool backlog;			/* a send or post to try again */
	bool echo_turn;			/* an echo goes before my next one */
	enum ktest_rdma_state rdma;
	u32 rdma_size, round, seed;
	u32 rdma_next;			/* the size of rounds to come */
	struct ktest_post put, get;
	struct ktest_conn_stats st;
};

struct ktest_peer {
	struct mutex lock;		/* everything but the below */
	gni_cdm_handle_t cdm;
	gni_nic_handle_t nic;
	u32 pe, nid;
	gni_cq_handle_t tx_cq, rx_cq, rdma_cq;
	u8 *mbox;
	u32 mbox_size;			/* one mailbox */
	gni_mem_handle_t mbox_mh;
	bool mbox_reg;
	struct ktest_conn conns[KTEST_PEER_CONNS];
	unsigned int next_slot;
	struct ktest_conn *listener;
	gni_return_t listen_rc;
	struct workqueue_struct *wq;
	struct delayed_work work;
	struct task_struct *cm, *rca;
	bool rca_stop;
	krca_ticket_t ticket;
	rca_ticket_t subs[3];
	unsigned int nsubs;
	wait_queue_head_t waitq;	/* quiet, connections, posts */
	bool quiet;
	bool stopping;
	spinlock_t rdma_lock;		/* the posts' done, rc, cqe */
	/* Counted in the handlers too */
	atomic_t calls[3], bad_calls, overruns, stray;
	u64 lost, rca_down, rca_up;
	u8 scratch[KTEST_PEER_MSG_MAX];
};

static struct ktest_peer *ktest_peer;

static const rs_event_code_t ktest_peer_rca_codes[] = {
	ec_node_unavailable, ec_node_available, ec_node_failed,
};

/* My send's msg_id: its connection's generation and slot, its type */
static u32 ktest_msg_id(const struct ktest_conn *c, u8 type)
{
	return c->gen << 16 | type << 8 | c->slot;
}

/* Patterns */

static u32 ktest_msg_len(u32 seq)
{
	return (seq * 37) % (KTEST_PEER_DATA_MAX + 1);
}

static u8 ktest_msg_byte(u32 seq, u32 i)
{
	return (u8)(seq * 151 + i * 13 + 7);
}

static void ktest_msg_fill(u8 *p, u32 seq, u32 len)
{
	u32 i;

	for (i = 0; i < len; i++)
		p[i] = ktest_msg_byte(seq, i);
}

static bool ktest_msg_ok(const u8 *p, u32 seq, u32 len)
{
	u32 i;

	for (i = 0; i < len; i++)
		if (p[i] != ktest_msg_byte(seq, i))
			return false;
	return true;
}

/* Word @j of RDMA pattern @seed */
static u32 ktest_rdma_word(u32 seed, u32 j)
{
	return seed * 0x9e3779b1u + j * 0x85ebca77u + (j >> 7);
}

/*
 * Fill (@check false) or check @c's window's first @size bytes with
 * pattern @seed; the check is true if they all match.
 */
static bool ktest_win_pattern(struct ktest_conn *c, u32 size, u32 seed,
			      bool check)
{
	u32 words = size / 4, per = PAGE_SIZE / 4, j = 0, n, k;
	unsigned int p;

	for (p = 0; j < words; p++) {
		u32 *w = page_address(c->pages[p]);

		n = min(per, words - j);
		for (k = 0; k < n; k++, j++) {
			if (!check)
				w[k] = ktest_rdma_word(seed, j);
			else if (w[k] != ktest_rdma_word(seed, j))
				return false;
		}
	}
	return true;
}

static void ktest_buf_fill(struct ktest_conn *c, u32 size, u32 seed)
{
	u32 *w = (u32 *)c->buf, j;

	for (j = 0; j < size / 4; j++)
		w[j] = ktest_rdma_word(seed, j);
}

static bool ktest_buf_ok(struct ktest_conn *c, u32 size, u32 seed)
{
	const u32 *w = (const u32 *)c->buf;
	u32 j;

	for (j = 0; j < size / 4; j++)
		if (w[j] != ktest_rdma_word(seed, j))
			return false;
	return true;
}

/* Connections */

static struct ktest_conn *ktest_conn_of(struct ktest_peer *ctx, u32 slot,
					u32 gen)
{
	struct ktest_conn *c;

	if (slot >= KTEST_PEER_CONNS)
		return NULL;
	c = &ctx->conns[slot];
	return c->state != KTEST_FREE && (c->gen & 0xffff) == gen ? c : NULL;
}

/* Nothing of @c's in flight: its slot may go */
static bool ktest_conn_idle(struct ktest_conn *c)
{
	return !c->st.outstanding && !c->put.busy && !c->get.busy;
}

static bool ktest_conn_quiet(struct ktest_conn *c)
{
	struct ktest_conn_stats *st = &c->st;

	if (c->state == KTEST_CONNECTING || !ktest_conn_idle(c))
		return false;
	if (c->state != KTEST_UP)
		return true;
	return st->echoed >= st->want && st->echo_sent >= st->rx &&
	       c->rdma == KTEST_RDMA_IDLE && !st->rdma_left &&
	       !c->put_done_due && !c->checked_due;
}

/* After a change: the quiet flag, and whoever waits for it or for a state */
static void ktest_peer_update(struct ktest_peer *ctx)
{
	bool quiet = true;
	unsigned int i;

	for (i = 0; i < KTEST_PEER_CONNS; i++)
		quiet &= ktest_conn_quiet(&ctx->conns[i]);
	WRITE_ONCE(ctx->quiet, quiet);
	wake_up_all(&ctx->waitq);
}

static void ktest_conn_error(struct ktest_conn *c, gni_cq_entry_t e,
			     gni_return_t rc)
{
	c->st.errors++;
	if (gni_cq_error_str(e, c->st.lasterr, sizeof(c->st.lasterr)) !=
	    GNI_RC_SUCCESS)
		strscpy(c->st.lasterr, ktest_rc_name(rc),
			sizeof(c->st.lasterr));
	if (strstr(c->st.lasterr, "TIMEOUT"))
		c->st.timeouts++;
}

static void ktest_conn_refused(struct ktest_conn *c, gni_return_t rc)
{
	c->st.errors++;
	strscpy(c->st.lasterr, ktest_rc_name(rc), sizeof(c->st.lasterr));
}

/*
 * @c is lost (@why): its endpoint goes, which ends its SMSG connection;
 * what it has in flight still ends, with events the work takes.
 */
static void ktest_conn_lost(struct ktest_conn *c, const char *why)
{
	if (c->state != KTEST_UP)
		return;
	c->state = KTEST_LOST;
	c->why = why;
	c->ctx->lost++;
	gni_ep_destroy(c->ep);
	c->ep = NULL;
	c->put_done_due = false;
	c->checked_due = false;
	c->st.rdma_left = 0;
	if (c->rdma == KTEST_RDMA_CHECK || c->rdma == KTEST_RDMA_GET_DUE)
		c->rdma = KTEST_RDMA_IDLE;
	if (!c->st.end)
		c->st.end = ktime_get();
	pr_info("connection %u to node %u (0x%x) lost: %s\n", c->slot, c->nid,
		c->pe, why);
}

/* Give back what ktest_conn_prepare() took; the pages and buffer stay */
static gni_return_t ktest_conn_release(struct ktest_conn *c)
{
	struct ktest_peer *ctx = c->ctx;
	gni_return_t rc = GNI_RC_SUCCESS, r;

	if (c->ep) {
		rc = gni_ep_destroy(c->ep);
		c->ep = NULL;
	}
	c->dg_posted = false;
	if (c->win_reg) {
		r = gni_mem_deregister(ctx->nic, &c->win_mh, KTEST_PEER_HOLD_MS);
		rc = rc ?: r;
		c->win_reg = false;
	}
	if (c->buf_reg) {
		r = gni_mem_deregister(ctx->nic, &c->buf_mh, 0);
		rc = rc ?: r;
		c->buf_reg = false;
	}
	return rc;
}

static void ktest_conn_free(struct ktest_conn *c)
{
	ktest_conn_release(c);
	if (c->ctx->listener == c)
		c->ctx->listener = NULL;
	c->state = KTEST_FREE;
}

/*
 * A slot for a new connection: a free one, else one lost or failed with
 * nothing in flight, the one after the last taken first.
 */
static struct ktest_conn *ktest_slot_get(struct ktest_peer *ctx)
{
	unsigned int i, pass;
	struct ktest_conn *c;

	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < KTEST_PEER_CONNS; i++) {
			c = &ctx->conns[(ctx->next_slot + i) % KTEST_PEER_CONNS];
			if (c->state == KTEST_FREE ||
			    (pass && (c->state == KTEST_LOST ||
				      c->state == KTEST_FAILED) &&
			     ktest_conn_idle(c))) {
				ktest_conn_free(c);
				ctx->next_slot = (c->slot + 1) % KTEST_PEER_CONNS;
				return c;
			}
		}
	}
	return NULL;
}

/* The window's pages as segments, registered with the remote events' CQ */
static gni_return_t ktest_win_register(struct ktest_conn *c)
{
	struct ktest_peer *ctx = c->ctx;
	gni_mem_segment_t *seg;
	gni_return_t rc;
	unsigned int i;

	if (!c->pages) {
		c->pages = kcalloc(KTEST_PEER_WIN_PAGES, sizeof(*c->pages),
				   GFP_KERNEL);
		if (!c->pages)
			return GNI_RC_ERROR_NOMEM;
	}
	seg = kcalloc(KTEST_PEER_WIN_PAGES, sizeof(*seg), GFP_KERNEL);
	if (!seg)
		return GNI_RC_ERROR_NOMEM;
	for (i = 0; i < KTEST_PEER_WIN_PAGES; i++) {
		if (!c->pages[i])
			c->pages[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (!c->pages[i]) {
			kfree(seg);
			return GNI_RC_ERROR_NOMEM;
		}
		seg[i].address = page_to_phys(c->pages[i]);
		seg[i].length = PAGE_SIZE;
	}
	rc = gni_mem_register_segments(ctx->nic, seg, KTEST_PEER_WIN_PAGES,
				       ctx->rx_cq,
				       GNI_MEM_READWRITE |
				       GNI_MEM_PHYS_SEGMENTS |
				       GNI_MEM_RELAXED_PI_ORDERING,
				       &c->win_mh);
	kfree(seg);
	c->win_reg = rc == GNI_RC_SUCCESS;
	return rc;
}

/*
 * Make @c a new connection: its generation, counters, mailbox (zeroed:
 * the peer writes there once the datagrams meet), window, buffer,
 * endpoint and hello.
 */
static gni_return_t ktest_conn_prepare(struct ktest_conn *c)
{
	struct ktest_peer *ctx = c->ctx;
	struct ktest_peer_hello *h = &c->hello;
	gni_return_t rc;

	c->gen = (c->gen + 1) & 0xffff ?: 1;
	c->id = KTEST_ID(c->slot, c->gen);
	c->why = "-";
	c->accepted = false;
	c->pe = 0;
	c->nid = U32_MAX;
	c->put_done_due = false;
	c->checked_due = false;
	c->backlog = false;
	c->rdma = KTEST_RDMA_IDLE;
	c->round = 0;
	memset(&c->st, 0, sizeof(c->st));
	strscpy(c->st.lasterr, "-", sizeof(c->st.lasterr));
	memset(ctx->mbox + c->slot * ctx->mbox_size, 0, ctx->mbox_size);
	rc = ktest_win_register(c);
	if (rc != GNI_RC_SUCCESS)
		goto fail;
	if (!c->buf)
		c->buf = vzalloc(KTEST_PEER_RDMA_MAX);
	rc = GNI_RC_ERROR_NOMEM;
	if (!c->buf)
		goto fail;
	rc = gni_mem_register(ctx->nic, (u64)(unsigned long)c->buf,
			      KTEST_PEER_RDMA_MAX, NULL, GNI_MEM_READWRITE,
			      &c->buf_mh);
	if (rc != GNI_RC_SUCCESS)
		goto fail;
	c->buf_reg = true;
	rc = gni_ep_create(ctx->nic, ctx->tx_cq, &c->ep);
	if (rc != GNI_RC_SUCCESS) {
		c->ep = NULL;
		goto fail;
	}
	memset(h, 0, sizeof(*h));
	h->magic = KTEST_PEER_MAGIC;
	h->version = KTEST_PEER_VERSION;
	h->pe = ctx->pe;
	h->id = c->id;
	h->mbox = (u64)(unsigned long)ctx->mbox;
	h->mbox_mh = ctx->mbox_mh;
	h->mbox_offset = c->slot * ctx->mbox_size;
	h->mbox_size = ctx->mbox_size;
	h->credits = KTEST_PEER_CREDITS;
	h->msg_max = KTEST_PEER_MSG_MAX;
	h->win_mh = c->win_mh;
	h->win_size = KTEST_PEER_RDMA_MAX;
	memset(&c->peer_hello, 0, sizeof(c->peer_hello));
	return GNI_RC_SUCCESS;
fail:
	ktest_conn_release(c);
	return rc;
}

/* The peer's hello, if it is one this client can talk to */
static bool ktest_hello_ok(const struct ktest_peer_hello *h, u32 pe)
{
	return h->magic == KTEST_PEER_MAGIC &&
	       h->version == KTEST_PEER_VERSION && h->pe == pe &&
	       h->msg_max == KTEST_PEER_MSG_MAX && h->credits &&
	       h->credits <= U16_MAX && h->win_size == KTEST_PEER_RDMA_MAX;
}

/* @c's datagram met the peer's (@pe, @inst): its SMSG connection opens */
static void ktest_conn_up(struct ktest_conn *c, u32 pe, u32 inst)
{
	struct ktest_peer *ctx = c->ctx;
	const struct ktest_peer_hello *h = &c->peer_hello;
	gni_smsg_attr_t mine = {
		.msg_type = GNI_SMSG_TYPE_MBOX_AUTO_RETRANSMIT,
		.msg_buffer = ctx->mbox,
		.buff_size = ctx->mbox_size,
		.mem_hndl = ctx->mbox_mh,
		.mbox_offset = c->hello.mbox_offset,
		.mbox_maxcredit = KTEST_PEER_CREDITS,
		.msg_maxsize = KTEST_PEER_MSG_MAX,
	}, theirs = {
		.msg_type = GNI_SMSG_TYPE_MBOX_AUTO_RETRANSMIT,
		.msg_buffer = (void *)(unsigned long)h->mbox,
		.buff_size = h->mbox_size,
		.mem_hndl = h->mbox_mh,
		.mbox_offset = h->mbox_offset,
		.mbox_maxcredit = h->credits,
		.msg_maxsize = h->msg_max,
	};
	gni_return_t rc = GNI_RC_SUCCESS;
	unsigned int i;
	rca_nid_t nid;

	c->pe = pe;
	if (!krca_nicaddr_to_nid(pe, &nid))
		c->nid = nid;
	if (!ktest_hello_ok(h, pe)) {
		c->why = "hello";
		goto failed;
	}
	if (c->state == KTEST_LISTEN) {
		c->accepted = true;
		rc = gni_ep_bind(c->ep, pe, inst);
	}
	if (rc == GNI_RC_SUCCESS)
		rc = gni_ep_set_eventdata(c->ep, c->id, h->id);
	if (rc == GNI_RC_SUCCESS)
		rc = gni_smsg_init(c->ep, &mine, &theirs);
	if (rc != GNI_RC_SUCCESS) {
		c->why = ktest_rc_name(rc);
		goto failed;
	}
	/*
	 * A connection from a node replaces what was left of the last one
	 * it made (not those made to it: two nodes may connect both ways,
	 * and a node to itself)
	 */
	for (i = 0; c->accepted && i < KTEST_PEER_CONNS; i++) {
		struct ktest_conn *old = &ctx->conns[i];

		if (old != c && old->accepted && old->pe == pe &&
		    (old->state == KTEST_LOST || old->state == KTEST_FAILED ||
		     old->state == KTEST_UP) && ktest_conn_idle(old)) {
			ktest_conn_lost(old, "replaced");
			ktest_conn_free(old);
		}
	}
	c->state = KTEST_UP;
	return;
failed:
	c->state = KTEST_FAILED;
	ktest_conn_release(c);
}

/* Post a wildcard datagram, unless one is posted (or no slot is free) */
static void ktest_peer_listen(struct ktest_peer *ctx)
{
	struct ktest_conn *c;
	gni_return_t rc;

	if (ctx->listener || ctx->stopping)
		return;
	c = ktest_slot_get(ctx);
	if (!c) {
		ctx->listen_rc = GNI_RC_ERROR_RESOURCE;
		return;
	}
	rc = ktest_conn_prepare(c);
	if (rc == GNI_RC_SUCCESS)
		rc = gni_ep_postdata_w_id(c->ep, &c->hello, sizeof(c->hello),
					  &c->peer_hello,
					  sizeof(c->peer_hello),
					  KTEST_DG_ID(c->id));
	ctx->listen_rc = rc;
	if (rc != GNI_RC_SUCCESS) {
		ktest_conn_free(c);
		return;
	}
	c->state = KTEST_LISTEN;
	c->dg_posted = true;
	ctx->listener = c;
}

/*
 * The datagram @id ended: collect it.  False if it is none of ours, which
 * the caller must not probe again at once.
 */
static bool ktest_peer_dgram(struct ktest_peer *ctx, u64 id)
{
	struct ktest_conn *c;
	gni_post_state_t state = GNI_POST_PENDING;
	u32 pe = 0, inst = 0;
	gni_return_t rc;
	bool up = false;

	mutex_lock(&ctx->lock);
	c = (id >> 32) == (KTEST_DG_ID(0) >> 32) ?
	    ktest_conn_of(ctx, KTEST_ID_SLOT((u32)id), KTEST_ID_GEN((u32)id)) :
	    NULL;
	if (!c || !c->dg_posted || KTEST_DG_ID(c->id) != id) {
		atomic_inc(&ctx->stray);
		mutex_unlock(&ctx->lock);
		return false;
	}
	rc = gni_ep_postdata_test_by_id(c->ep, id, &state, &pe, &inst);
	if (rc == GNI_RC_SUCCESS && state == GNI_POST_PENDING) {
		mutex_unlock(&ctx->lock);
		return false;
	}
	c->dg_posted = false;
	if (ctx->listener == c)
		ctx->listener = NULL;
	if (rc == GNI_RC_SUCCESS && state == GNI_POST_COMPLETED) {
		ktest_conn_up(c, pe, inst);
		up = c->state == KTEST_UP;
	} else if (c->state == KTEST_LISTEN) {
		ktest_conn_free(c);	/* cancelled */
	} else {
		c->state = KTEST_FAILED;
		c->why = rc != GNI_RC_SUCCESS ? ktest_rc_name(rc) :
			 state == GNI_POST_TIMEOUT ? "timeout" :
			 state == GNI_POST_TERMINATED ? "terminated" : "error";
		ktest_conn_release(c);
	}
	ktest_peer_listen(ctx);
	ktest_peer_update(ctx);
	mutex_unlock(&ctx->lock);
	/* The peer may have sent already: read the mailbox */
	if (up)
		mod_delayed_work(ctx->wq, &ctx->work, 0);
	return true;
}

/* Datagrams: wait for one to end, collect it */
static int ktest_peer_cm(void *arg)
{
	struct ktest_peer *ctx = arg;
	gni_return_t rc;
	u64 id;

	while (!kthread_should_stop()) {
		rc = gni_postdata_probe_wait_by_id(ctx->nic, KTEST_PEER_PROBE_MS,
						   &id);
		if (rc == GNI_RC_SUCCESS && ktest_peer_dgram(ctx, id))
			continue;
		if (rc != GNI_RC_TIMEOUT)
			schedule_timeout_idle(HZ / 10);
	}
	return 0;
}

/* RCA: a node reported down loses its connections at once */
static void ktest_peer_rca_event(struct ktest_peer *ctx, const rs_event_t *ev)
{
	u64 nid = RSN_GET_FLD(ev->ev_gen.svid_node.rs_node_flat, NID);
	unsigned int i;

	mutex_lock(&ctx->lock);
	if (ev->ev_id == ec_node_available) {
		ctx->rca_up++;
	} else {
		ctx->rca_down++;
		for (i = 0; i < KTEST_PEER_CONNS; i++)
			if (ctx->conns[i].state == KTEST_UP &&
			    ctx->conns[i].nid == nid)
				ktest_conn_lost(&ctx->conns[i], "rca");
		ktest_peer_update(ctx);
	}
	mutex_unlock(&ctx->lock);
}

static int ktest_peer_rca(void *arg)
{
	struct ktest_peer *ctx = arg;
	rs_event_t ev;

	while (!READ_ONCE(ctx->rca_stop) && krca_wait_event(&ctx->ticket) >= 0)
		while (!krca_get_message(&ctx->ticket, &ev))
			ktest_peer_rca_event(ctx, &ev);
	/* Stopped (or the registration failed): until kthread_stop() */
	set_current_state(TASK_IDLE);
	while (!kthread_should_stop()) {
		schedule();
		set_current_state(TASK_IDLE);
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

/* CQ events */

/* The RDMA CQ's events, taken in its handler (hard IRQ) */
static void ktest_peer_rdma_events(struct ktest_peer *ctx)
{
	gni_post_descriptor_t *d;
	struct ktest_post *p;
	unsigned long flags;
	gni_return_t rc, grc;
	gni_cq_entry_t e;
	u64 slot;

	spin_lock_irqsave(&ctx->rdma_lock, flags);
	for (;;) {
		rc = gni_cq_get_event(ctx->rdma_cq, &e);
		if (rc == GNI_RC_NOT_DONE || rc == GNI_RC_INVALID_PARAM)
			break;
		if (rc == GNI_RC_ERROR_RESOURCE)
			atomic_inc(&ctx->overruns);
		d = NULL;
		grc = gni_get_completed(ctx->rdma_cq, e, &d);
		slot = d ? d->post_id >> 1 : KTEST_PEER_CONNS;
		if ((grc != GNI_RC_SUCCESS &&
		     grc != GNI_RC_TRANSACTION_ERROR) ||
		    slot >= KTEST_PEER_CONNS) {
			atomic_inc(&ctx->stray);
			continue;
		}
		p = d->post_id & 1 ? &ctx->conns[slot].get :
				     &ctx->conns[slot].put;
		if (d != &p->d) {
			atomic_inc(&ctx->stray);
			continue;
		}
		p->done = true;
		p->rc = grc;
		p->cqe = e;
	}
	spin_unlock_irqrestore(&ctx->rdma_lock, flags);
	wake_up_all(&ctx->waitq);
}

static void ktest_peer_handler(u32 device_id, u64 data)
{
	struct ktest_peer *ctx = (void *)(unsigned long)
				 (data & ~KTEST_PEER_CQ_MASK);
	unsigned int which = data & KTEST_PEER_CQ_MASK;

	if (which > KTEST_PEER_RDMA_CQ)
		return;
	atomic_inc(&ctx->calls[which]);
	if (!in_hardirq() || device_id != KTEST_DEVICE)
		atomic_inc(&ctx->bad_calls);
	if (which == KTEST_PEER_RDMA_CQ)
		ktest_peer_rdma_events(ctx);
	mod_delayed_work(ctx->wq, &ctx->work, 0);
}

/* The local events of my sends; true if the budget ran out */
static bool ktest_peer_take_tx(struct ktest_peer *ctx)
{
	struct ktest_conn *c;
	gni_cq_entry_t e;
	gni_return_t rc;
	unsigned int n;
	u32 id;

	for (n = 0; n < 4 * KTEST_PEER_BUDGET; n++) {
		rc = gni_cq_get_event(ctx->tx_cq, &e);
		if (rc == GNI_RC_NOT_DONE || rc == GNI_RC_INVALID_PARAM)
			return false;
		if (rc == GNI_RC_ERROR_RESOURCE)
			atomic_inc(&ctx->overruns);
		id = GNI_CQ_GET_MSG_ID(e);
		c = GNI_CQ_GET_TYPE(e) == GNI_CQ_EVENT_TYPE_SMSG ?
		    ktest_conn_of(ctx, id & 0xff, id >> 16) : NULL;
		if (!c) {
			atomic_inc(&ctx->stray);
			continue;
		}
		if (c->st.outstanding)
			c->st.outstanding--;
		if (rc == GNI_RC_TRANSACTION_ERROR || !GNI_CQ_STATUS_OK(e)) {
			/* Past kgni's retransmissions: the connection broke */
			ktest_conn_error(c, e, rc);
			ktest_conn_lost(c, "error");
		}
	}
	return true;
}

/* The remote events: counted (they are at least once); true if more */
static bool ktest_peer_take_rx(struct ktest_peer *ctx)
{
	struct ktest_conn *c;
	gni_cq_entry_t e;
	gni_return_t rc;
	unsigned int n;
	u32 id;

	for (n = 0; n < 4 * KTEST_PEER_BUDGET; n++) {
		rc = gni_cq_get_event(ctx->rx_cq, &e);
		if (rc == GNI_RC_NOT_DONE || rc == GNI_RC_INVALID_PARAM)
			return false;
		if (rc == GNI_RC_ERROR_RESOURCE)
			atomic_inc(&ctx->overruns);
		id = GNI_CQ_GET_INST_ID(e);
		c = ktest_conn_of(ctx, KTEST_ID_SLOT(id), KTEST_ID_GEN(id));
		if (!c)
			atomic_inc(&ctx->stray);
		else if (GNI_CQ_GET_TYPE(e) == GNI_CQ_EVENT_TYPE_POST)
			c->st.remote_rdma++;
		else
			c->st.remote_smsg++;
	}
	return true;
}

/* Traffic */

/* Send one message; data from ctx->scratch */
static gni_return_t ktest_conn_msg(struct ktest_conn *c, u8 type, u32 seq,
				   u32 size, u32 seed, bool ok)
{
	struct ktest_peer_hdr h = {
		.magic = KTEST_PEER_HDR_MAGIC, .type = type, .ok = ok,
		.seq = seq, .size = size, .seed = seed,
	};
	u32 dlen = type == KTEST_MSG_DATA || type == KTEST_MSG_ECHO ? size : 0;
	gni_return_t rc;

	if (dlen)
		ktest_msg_fill(c->ctx->scratch, seq, dlen);
	rc = gni_smsg_send(c->ep, &h, sizeof(h), dlen ? c->ctx->scratch : NULL,
			   dlen, ktest_msg_id(c, type));
	if (rc == GNI_RC_SUCCESS) {
		c->st.outstanding++;
		c->st.bytes_tx += sizeof(h) + dlen;
	}
	return rc;
}

static bool echo_due(const struct ktest_conn_stats *st)
{
	return st->echo_sent < st->rx;
}

static bool data_due(const struct ktest_conn_stats *st)
{
	return st->sent < st->want && st->sent - st->echoed < KTEST_PEER_WINDOW;
}

/*
 * What @c has to send: the RDMA rounds' messages first, then echoes and
 * the stream in turn (a peer's stream must not starve mine).  True if
 * the budget ran out.
 */
static bool ktest_conn_send(struct ktest_conn *c)
{
	struct ktest_conn_stats *st = &c->st;
	gni_return_t rc;
	unsigned int n;
	u32 seq;

	c->backlog = false;
	for (n = 0; n < KTEST_PEER_BUDGET; n++) {
		if (c->put_done_due) {
			rc = ktest_conn_msg(c, KTEST_MSG_PUT_DONE, c->round,
					    c->rdma_size, c->seed, true);
			if (rc == GNI_RC_SUCCESS)
				c->put_done_due = false;
		} else if (c->checked_due) {
			rc = ktest_conn_msg(c, KTEST_MSG_CHECKED, c->checked.seq,
					    c->checked.size, c->checked.seed,
					    c->checked.ok);
			if (rc == GNI_RC_SUCCESS)
				c->checked_due = false;
		} else if (echo_due(st) && (c->echo_turn || !data_due(st))) {
			seq = st->echo_sent + 1;
			rc = ktest_conn_msg(c, KTEST_MSG_ECHO, seq,
					    ktest_msg_len(seq), 0, true);
			if (rc == GNI_RC_SUCCESS) {
				st->echo_sent++;
				c->echo_turn = false;
			}
		} else if (data_due(st)) {
			seq = st->sent + 1;
			rc = ktest_conn_msg(c, KTEST_MSG_DATA, seq,
					    ktest_msg_len(seq), 0, true);
			if (rc == GNI_RC_SUCCESS) {
				st->sent++;
				c->echo_turn = true;
			}
		} else {
			return false;
		}
		if (rc == GNI_RC_SUCCESS)
			continue;
		/* No credit (they return silently), no tid: a jiffy later */
		if (rc == GNI_RC_NOT_DONE || rc == GNI_RC_ERROR_RESOURCE) {
			c->backlog = true;
			return false;
		}
		ktest_conn_refused(c, rc);
		ktest_conn_lost(c, "send");
		return false;
	}
	return true;
}

/* One message received: checked, and what it asks for done */
static void ktest_conn_got(struct ktest_conn *c,
			   const struct ktest_peer_hdr *h, const u8 *data)
{
	struct ktest_conn_stats *st = &c->st;
	bool stream = h->type == KTEST_MSG_DATA || h->type == KTEST_MSG_ECHO;
	u64 *count = h->type == KTEST_MSG_DATA ? &st->rx : &st->echoed;
	u32 seed;
	bool ok;

	if (h->magic != KTEST_PEER_HDR_MAGIC ||
	    (stream && h->size > KTEST_PEER_DATA_MAX)) {
		st->bad++;
		return;
	}
	st->bytes_rx += sizeof(*h) + (stream ? h->size : 0);
	switch (h->type) {
	case KTEST_MSG_DATA:
	case KTEST_MSG_ECHO:
		if (h->seq != *count + 1)
			st->order++;
		(*count)++;
		if (h->size != ktest_msg_len(h->seq) ||
		    !ktest_msg_ok(data, h->seq, h->size))
			st->bad++;
		if (h->type == KTEST_MSG_ECHO && st->echoed == st->want)
			st->end = ktime_get();
		break;
	case KTEST_MSG_PUT_DONE:
		if (h->size > KTEST_PEER_RDMA_MAX || h->size % 4 ||
		    c->checked_due) {
			st->bad++;
			break;
		}
		ok = ktest_win_pattern(c, h->size, h->seed, true);
		if (ok)
			st->win_checked++;
		else
			st->win_bad++;
		/* What the peer's GET is to find there */
		seed = h->seed ^ KTEST_PEER_GET_XOR;
		ktest_win_pattern(c, h->size, seed, false);
		c->checked = *h;
		c->checked.seed = seed;
		c->checked.ok = ok;
		c->checked_due = true;
		break;
	case KTEST_MSG_CHECKED:
		if (c->rdma != KTEST_RDMA_CHECK || h->seq != c->round ||
		    h->size != c->rdma_size) {
			st->order++;
			break;
		}
		if (!h->ok)
			st->rdma_bad++;
		c->seed = h->seed;
		c->rdma = KTEST_RDMA_GET_DUE;
		break;
	default:
		st->bad++;
	}
}

/* @c's mailbox, read and released; true if the budget ran out */
static bool ktest_conn_receive(struct ktest_conn *c)
{
	struct ktest_peer_hdr h;
	gni_return_t rc;
	unsigned int n;
	u8 *msg;

	for (n = 0; n < KTEST_PEER_BUDGET; n++) {
		rc = gni_smsg_getnext(c->ep, (void **)&msg);
		if (rc == GNI_RC_NOT_DONE)
			return false;
		if (rc != GNI_RC_SUCCESS) {
			ktest_conn_refused(c, rc);
			ktest_conn_lost(c, "broken");
			return false;
		}
		memcpy(&h, msg, sizeof(h));
		ktest_conn_got(c, &h, msg + sizeof(h));
		rc = gni_smsg_release(c->ep);
		if (rc != GNI_RC_SUCCESS) {
			ktest_conn_refused(c, rc);
			ktest_conn_lost(c, "broken");
			return false;
		}
	}
	return true;
}

/* Post @p of @c: a PUT into the peer's window or a GET from it */
static gni_return_t ktest_conn_post(struct ktest_conn *c, struct ktest_post *p,
				    gni_post_type_t type, u16 cq_mode)
{
	struct ktest_peer *ctx = c->ctx;
	gni_return_t rc;

	memset(&p->d, 0, sizeof(p->d));
	p->d.type = type;
	p->d.cq_mode = cq_mode;
	p->d.dlvr_mode = GNI_DLVMODE_PERFORMANCE;
	p->d.local_addr = (u64)(unsigned long)c->buf;
	p->d.local_mem_hndl = c->buf_mh;
	p->d.remote_addr = 0;	/* segments: offsets from the first page */
	p->d.remote_mem_hndl = c->peer_hello.win_mh;
	p->d.length = c->rdma_size;
	p->d.post_id = (u64)c->slot << 1 | (type == GNI_POST_RDMA_GET);
	p->d.src_cq_hndl = ctx->rdma_cq;
	spin_lock_irq(&ctx->rdma_lock);
	p->done = false;
	spin_unlock_irq(&ctx->rdma_lock);
	p->busy = true;
	rc = gni_post_rdma(c->ep, &p->d);
	if (rc != GNI_RC_SUCCESS)
		p->busy = false;
	return rc;
}

/* Start @c's next round, or its GET; what cannot go now, a jiffy later */
static void ktest_conn_rdma_next(struct ktest_conn *c)
{
	gni_return_t rc;
	u32 seed;

	if (c->rdma == KTEST_RDMA_IDLE && c->st.rdma_left) {
		seed = c->id * 0x10001u + (c->round + 1) * 0x3c6ef35fu;
		c->rdma_size = c->rdma_next;
		ktest_buf_fill(c, c->rdma_size, seed);
		rc = ktest_conn_post(c, &c->put, GNI_POST_RDMA_PUT,
				     GNI_CQMODE_GLOBAL_EVENT |
				     GNI_CQMODE_REMOTE_EVENT);
		if (rc == GNI_RC_SUCCESS) {
			c->round++;
			c->seed = seed;
			c->st.rdma_left--;
			c->rdma = KTEST_RDMA_PUT;
		}
	} else if (c->rdma == KTEST_RDMA_GET_DUE) {
		memset(c->buf, 0, c->rdma_size);
		rc = ktest_conn_post(c, &c->get, GNI_POST_RDMA_GET,
				     GNI_CQMODE_GLOBAL_EVENT);
		if (rc == GNI_RC_SUCCESS)
			c->rdma = KTEST_RDMA_GET;
	} else {
		return;
	}
	if (rc == GNI_RC_ERROR_RESOURCE) {
		c->backlog = true;
	} else if (rc != GNI_RC_SUCCESS) {
		ktest_conn_refused(c, rc);
		c->rdma = KTEST_RDMA_IDLE;
		c->st.rdma_left = 0;
	}
}

/* @c's posts that the handler saw end */
static void ktest_conn_rdma_done(struct ktest_conn *c)
{
	struct ktest_peer *ctx = c->ctx;
	struct ktest_post *p;
	gni_cq_entry_t e;
	gni_return_t rc;
	unsigned int i;
	bool done;

	for (i = 0; i < 2; i++) {
		p = i ? &c->get : &c->put;
		if (!p->busy)
			continue;
		spin_lock_irq(&ctx->rdma_lock);
		done = p->done;
		rc = p->rc;
		e = p->cqe;
		spin_unlock_irq(&ctx->rdma_lock);
		if (!done)
			continue;
		p->busy = false;
		if (rc != GNI_RC_SUCCESS) {
			ktest_conn_error(c, e, rc);
			c->rdma = KTEST_RDMA_IDLE;
			c->st.rdma_left = 0;
			continue;
		}
		c->st.rdma_bytes += c->rdma_size;
		if (p == &c->put) {
			c->st.puts++;
			c->rdma = KTEST_RDMA_IDLE;
			if (c->state == KTEST_UP) {
				c->put_done_due = true;
				c->rdma = KTEST_RDMA_CHECK;
			}
		} else {
			c->st.gets++;
			if (!ktest_buf_ok(c, c->rdma_size, c->seed))
				c->st.rdma_bad++;
			c->rdma = KTEST_RDMA_IDLE;
		}
	}
}

/*
 * The context's work: events, mailboxes, sends and posts.  Again at once
 * if a budget ran out, a jiffy later if something must be tried again.
 */
static void ktest_peer_work(struct work_struct *work)
{
	struct ktest_peer *ctx = container_of(to_delayed_work(work),
					      struct ktest_peer, work);
	bool more = false, backlog = false;
	struct ktest_conn *c;
	unsigned int i;

	mutex_lock(&ctx->lock);
	if (ctx->stopping) {
		mutex_unlock(&ctx->lock);
		return;
	}
	more |= ktest_peer_take_tx(ctx);
	more |= ktest_peer_take_rx(ctx);
	for (i = 0; i < KTEST_PEER_CONNS; i++) {
		c = &ctx->conns[i];
		ktest_conn_rdma_done(c);
		if (c->state != KTEST_UP)
			continue;
		more |= ktest_conn_receive(c);
		if (c->state == KTEST_UP)
			more |= ktest_conn_send(c);
		if (c->state == KTEST_UP)
			ktest_conn_rdma_next(c);
		backlog |= c->state == KTEST_UP && c->backlog;
	}
	ktest_peer_update(ctx);
	mutex_unlock(&ctx->lock);
	if (more)
		mod_delayed_work(ctx->wq, &ctx->work, 0);
	else if (backlog)
		queue_delayed_work(ctx->wq, &ctx->work, 1);
}

/* The context */

static bool ktest_peer_posts_ended(struct ktest_peer *ctx)
{
	bool ended = true;
	unsigned int i;

	spin_lock_irq(&ctx->rdma_lock);
	for (i = 0; i < KTEST_PEER_CONNS; i++)
		ended &= (!ctx->conns[i].put.busy || ctx->conns[i].put.done) &&
			 (!ctx->conns[i].get.busy || ctx->conns[i].get.done);
	spin_unlock_irq(&ctx->rdma_lock);
	return ended;
}

/*
 * Undo whatever of ktest_peer_start() was done, in order: no new
 * datagram, event or work; the threads; the endpoints; the posts' ends
 * (KTEST_PEER_DRAIN_MS at most); memory; CQs; the CDM.  The first
 * failed call's code, and in *@left the posts that never ended.
 */
static gni_return_t ktest_peer_teardown(struct ktest_peer *ctx,
					unsigned int *left)
{
	gni_return_t rc = GNI_RC_SUCCESS, r;
	struct ktest_conn *c;
	unsigned int i, j;

	*left = 0;
	mutex_lock(&ctx->lock);
	ctx->stopping = true;
	/* A wildcard is gone at once; kthread_stop() ends the thread's wait */
	for (i = 0; i < KTEST_PEER_CONNS; i++)
		if (ctx->conns[i].dg_posted)
			gni_ep_postdata_cancel_by_id(ctx->conns[i].ep,
						     KTEST_DG_ID(ctx->conns[i].id));
	mutex_unlock(&ctx->lock);
	if (ctx->rca) {
		WRITE_ONCE(ctx->rca_stop, true);
		krca_wakeup_wait_event(&ctx->ticket);
		kthread_stop(ctx->rca);
	}
	if (ctx->cm)
		kthread_stop(ctx->cm);
	for (i = 0; i < ctx->nsubs; i++)
		krca_unsubscribe(&ctx->ticket, ctx->subs[i]);
	if (ctx->ticket)
		krca_unregister(&ctx->ticket);
	if (ctx->wq)
		cancel_delayed_work_sync(&ctx->work);

	mutex_lock(&ctx->lock);
	for (i = 0; i < KTEST_PEER_CONNS; i++) {
		c = &ctx->conns[i];
		if (c->ep) {
			r = gni_ep_destroy(c->ep);
			rc = rc ?: r;
			c->ep = NULL;
		}
	}
	mutex_unlock(&ctx->lock);
	if (ctx->rdma_cq)
		wait_event_timeout(ctx->waitq, ktest_peer_posts_ended(ctx),
				   msecs_to_jiffies(KTEST_PEER_DRAIN_MS));
	mutex_lock(&ctx->lock);
	for (i = 0; i < KTEST_PEER_CONNS; i++) {
		c = &ctx->conns[i];
		*left += (c->put.busy && !c->put.done) +
			 (c->get.busy && !c->get.done);
		r = ktest_conn_release(c);
		rc = rc ?: r;
	}
	if (ctx->mbox_reg) {
		r = gni_mem_deregister(ctx->nic, &ctx->mbox_mh, 0);
		rc = rc ?: r;
	}
	if (ctx->rdma_cq) {
		r = gni_cq_destroy(ctx->rdma_cq);
		rc = rc ?: r;
	}
	if (ctx->rx_cq) {
		r = gni_cq_destroy(ctx->rx_cq);
		rc = rc ?: r;
	}
	if (ctx->tx_cq) {
		r = gni_cq_destroy(ctx->tx_cq);
		rc = rc ?: r;
	}
	mutex_unlock(&ctx->lock);
	/* What is left, the CDM frees; no handler runs after it */
	if (ctx->cdm) {
		r = gni_cdm_destroy(ctx->cdm);
		rc = rc ?: r;
	}
	if (ctx->wq) {
		cancel_delayed_work_sync(&ctx->work);
		destroy_workqueue(ctx->wq);
	}
	for (i = 0; i < KTEST_PEER_CONNS; i++) {
		c = &ctx->conns[i];
		for (j = 0; c->pages && j < KTEST_PEER_WIN_PAGES; j++)
			if (c->pages[j])
				__free_page(c->pages[j]);
		kfree(c->pages);
		vfree(c->buf);
	}
	vfree(ctx->mbox);
	kfree(ctx);
	return rc;
}

/*
 * The context, listening: on failure NULL, with the failing call's
 * gni_return_t (or, for RCA and kernel calls, errno) and name.
 */
static struct ktest_peer *ktest_peer_start(int *rc, const char **what)
{
	gni_smsg_attr_t attr = {
		.msg_type = GNI_SMSG_TYPE_MBOX_AUTO_RETRANSMIT,
		.mbox_maxcredit = KTEST_PEER_CREDITS,
		.msg_maxsize = KTEST_PEER_MSG_MAX,
	};
	gni_cq_handle_t *cqs[3];
	struct ktest_peer *ctx;
	unsigned int i, size;
	rca_nid_t nid;
	u64 data;

	*what = "kzalloc";
	*rc = -ENOMEM;
	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return NULL;
	mutex_init(&ctx->lock);
	spin_lock_init(&ctx->rdma_lock);
	init_waitqueue_head(&ctx->waitq);
	INIT_DELAYED_WORK(&ctx->work, ktest_peer_work);
	ctx->quiet = true;
	for (i = 0; i < KTEST_PEER_CONNS; i++) {
		ctx->conns[i].ctx = ctx;
		ctx->conns[i].slot = i;
	}

	*what = "alloc_ordered_workqueue";
	ctx->wq = alloc_ordered_workqueue("kgni_ktest_peer", 0);
	if (!ctx->wq)
		goto fail;
	*what = "gni_cdm_create";
	*rc = gni_cdm_create(KTEST_PEER_INST, KTEST_PTAG, KTEST_PEER_COOKIE, 0,
			     &ctx->cdm);
	if (*rc != GNI_RC_SUCCESS) {
		ctx->cdm = NULL;
		goto fail;
	}
	*what = "gni_cdm_attach";
	*rc = gni_cdm_attach(ctx->cdm, KTEST_DEVICE, &ctx->pe, &ctx->nic);
	if (*rc != GNI_RC_SUCCESS)
		goto fail;
	*what = "krca_nicaddr_to_nid";
	*rc = krca_nicaddr_to_nid(ctx->pe, &nid);
	if (*rc)
		goto fail;
	ctx->nid = nid;

	*what = "gni_cq_create";
	cqs[KTEST_PEER_TX_CQ] = &ctx->tx_cq;
	cqs[KTEST_PEER_RX_CQ] = &ctx->rx_cq;
	cqs[KTEST_PEER_RDMA_CQ] = &ctx->rdma_cq;
	for (i = 0; i < ARRAY_SIZE(cqs); i++) {
		data = (u64)(unsigned long)ctx | i;
		*rc = gni_cq_create(ctx->nic, KTEST_PEER_CQ_ENTRIES, 0,
				    ktest_peer_handler, data, cqs[i]);
		if (*rc != GNI_RC_SUCCESS) {
			*cqs[i] = NULL;
			goto fail;
		}
	}

	/* The mailboxes, one per slot, in one registration */
	*what = "gni_smsg_buff_size_needed";
	*rc = gni_smsg_buff_size_needed(&attr, &size);
	if (*rc != GNI_RC_SUCCESS)
		goto fail;
	ctx->mbox_size = ALIGN(size, 64);
	*what = "vzalloc";
	*rc = -ENOMEM;
	ctx->mbox = vzalloc(KTEST_PEER_CONNS * ctx->mbox_size);
	if (!ctx->mbox)
		goto fail;
	*what = "gni_mem_register";
	*rc = gni_mem_register(ctx->nic, (u64)(unsigned long)ctx->mbox,
			       KTEST_PEER_CONNS * ctx->mbox_size, ctx->rx_cq,
			       GNI_MEM_READWRITE, &ctx->mbox_mh);
	if (*rc != GNI_RC_SUCCESS)
		goto fail;
	ctx->mbox_reg = true;

	/* Node events, as gnilnd registers for them */
	*what = "krca_register";
	*rc = krca_register(&ctx->ticket, RCA_SVCTYPE_GNILND, current->pid, 0);
	if (*rc)
		goto fail;
	*what = "krca_subscribe";
	for (i = 0; i < ARRAY_SIZE(ktest_peer_rca_codes); i++) {
		*rc = krca_subscribe(&ctx->ticket, ktest_peer_rca_codes[i],
				     RCA_RX_SVC_ANY, &ctx->subs[i]);
		if (*rc)
			goto fail;
		ctx->nsubs++;
	}

	*what = "kthread_run";
	ctx->cm = kthread_run(ktest_peer_cm, ctx, "kgni_ktest_cm");
	if (IS_ERR(ctx->cm)) {
		*rc = PTR_ERR(ctx->cm);
		ctx->cm = NULL;
		goto fail;
	}
	ctx->rca = kthread_run(ktest_peer_rca, ctx, "kgni_ktest_rca");
	if (IS_ERR(ctx->rca)) {
		*rc = PTR_ERR(ctx->rca);
		ctx->rca = NULL;
		goto fail;
	}

	*what = "gni_ep_postdata_w_id";
	mutex_lock(&ctx->lock);
	ktest_peer_listen(ctx);
	*rc = ctx->listen_rc;
	mutex_unlock(&ctx->lock);
	if (*rc != GNI_RC_SUCCESS)
		goto fail;
	*what = "";
	return ctx;
fail:
	ktest_peer_teardown(ctx, &i);
	return NULL;
}

/* Commands */

static void ktest_peer_status(struct ktest_peer *ctx)
{
	const struct ktest_conn_stats *st;
	const struct ktest_conn *c;
	unsigned int i;
	s64 ms;

	ktest_print("peer pe 0x%x nid %u tx_calls %d rx_calls %d rdma_calls %d bad_calls %d",
		    ctx->pe, ctx->nid, atomic_read(&ctx->calls[0]),
		    atomic_read(&ctx->calls[1]), atomic_read(&ctx->calls[2]),
		    atomic_read(&ctx->bad_calls));
	ktest_print(" overruns %d stray %d lost %llu rca_down %llu rca_up %llu\n",
		    atomic_read(&ctx->overruns), atomic_read(&ctx->stray),
		    ctx->lost, ctx->rca_down, ctx->rca_up);
	for (i = 0; i < KTEST_PEER_CONNS; i++) {
		c = &ctx->conns[i];
		st = &c->st;
		if (c->state == KTEST_FREE)
			continue;
		ms = st->start ? ktime_ms_delta(st->end ?: ktime_get(),
						st->start) : 0;
		ktest_print("conn %u nid %d pe 0x%x state %s why %s", c->slot,
			    (int)c->nid, c->pe, ktest_state_names[c->state],
			    c->why);
		ktest_print(" want %llu sent %llu echoed %llu rx %llu echo_sent %llu",
			    st->want, st->sent, st->echoed, st->rx,
			    st->echo_sent);
		ktest_print(" bytes_tx %llu bytes_rx %llu bad %llu order %llu",
			    st->bytes_tx, st->bytes_rx, st->bad, st->order);
		ktest_print(" outstanding %llu errors %llu timeouts %llu",
			    st->outstanding + c->put.busy + c->get.busy,
			    st->errors, st->timeouts);
		ktest_print(" puts %llu gets %llu rdma_bytes %llu rdma_bad %llu",
			    st->puts, st->gets, st->rdma_bytes, st->rdma_bad);
		ktest_print(" win_checked %llu win_bad %llu rdma_left %u",
			    st->win_checked, st->win_bad, st->rdma_left);
		ktest_print(" remote_smsg %llu remote_rdma %llu ms %lld lasterr %s\n",
			    st->remote_smsg, st->remote_rdma, ms, st->lasterr);
	}
}

/* A TARGET of connect: a NID, or a NIC address (0x...) */
static int ktest_peer_target(const char *s, u32 *pe, u32 *nid)
{
	nic_addr_t addr;
	rca_nid_t n;
	u32 v;

	if (!strncmp(s, "0x", 2) || !strncmp(s, "0X", 2)) {
		if (kstrtou32(s, 16, &v))
			return -EINVAL;
		*pe = v;
		*nid = krca_nicaddr_to_nid(v, &n) ? U32_MAX : n;
		return 0;
	}
	if (kstrtou32(s, 10, &v))
		return -EINVAL;
	*pe = 0;
	*nid = v;
	if (krca_nid_to_nicaddrs(v, 1, &addr) != 1)
		return -ESRCH;
	*pe = addr;
	return 0;
}

/* Post a bound datagram to @pe; the connection, or NULL and why not */
static struct ktest_conn *ktest_peer_connect_one(struct ktest_peer *ctx,
						 u32 pe, u32 nid,
						 const char **why)
{
	struct ktest_conn *c;
	gni_return_t rc;
	unsigned int i;

	/* What is left of my last connection to @pe goes (not its to me) */
	for (i = 0; i < KTEST_PEER_CONNS; i++) {
		c = &ctx->conns[i];
		if (c->pe != pe || c->accepted || c->state == KTEST_FREE ||
		    c->state == KTEST_LISTEN)
			continue;
		if (c->state == KTEST_UP || c->state == KTEST_CONNECTING ||
		    !ktest_conn_idle(c)) {
			*why = "busy";
			return NULL;
		}
		ktest_conn_free(c);
	}
	*why = "failed noslot";
	c = ktest_slot_get(ctx);
	if (!c)
		return NULL;
	rc = ktest_conn_prepare(c);
	if (rc == GNI_RC_SUCCESS)
		rc = gni_ep_bind(c->ep, pe, KTEST_PEER_INST);
	if (rc == GNI_RC_SUCCESS)
		rc = gni_ep_postdata_w_id(c->ep, &c->hello, sizeof(c->hello),
					  &c->peer_hello,
					  sizeof(c->peer_hello),
					  KTEST_DG_ID(c->id));
	if (rc != GNI_RC_SUCCESS) {
		ktest_conn_free(c);
		*why = ktest_rc_name(rc);
		return NULL;
	}
	c->state = KTEST_CONNECTING;
	c->dg_posted = true;
	c->pe = pe;
	c->nid = nid;
	return c;
}

#define KTEST_PEER_TARGETS	8

struct ktest_target {
	u32 pe, nid, id;
	struct ktest_conn *c;
	const char *why;
};

static bool ktest_peer_connected(struct ktest_target *t, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (t[i].c && READ_ONCE(t[i].c->state) == KTEST_CONNECTING)
			return false;
	return true;
}

static int ktest_peer_connect(struct ktest_peer *ctx, char *args)
{
	struct ktest_target t[KTEST_PEER_TARGETS];
	unsigned int n = 0, i;
	struct ktest_conn *c;
	char *tok;
	int err;

	while ((tok = strsep(&args, " "))) {
		if (!*tok)
			continue;
		if (n == KTEST_PEER_TARGETS)
			return -EINVAL;
		memset(&t[n], 0, sizeof(t[n]));
		err = ktest_peer_target(tok, &t[n].pe, &t[n].nid);
		if (err == -EINVAL)
			return err;
		t[n].why = err ? "failed unknown" : NULL;
		n++;
	}
	if (!n)
		return -EINVAL;
	mutex_lock(&ctx->lock);
	for (i = 0; i < n; i++) {
		if (t[i].why)
			continue;
		t[i].c = ktest_peer_connect_one(ctx, t[i].pe, t[i].nid,
						&t[i].why);
		if (t[i].c)
			t[i].id = t[i].c->id;
	}
	ktest_peer_update(ctx);
	mutex_unlock(&ctx->lock);
	wait_event_timeout(ctx->waitq, ktest_peer_connected(t, n),
			   msecs_to_jiffies(KTEST_PEER_CONNECT_MS));

	mutex_lock(&ctx->lock);
	for (i = 0; i < n; i++) {
		c = t[i].c;
		ktest_print("connect %d pe 0x%x ", (int)t[i].nid, t[i].pe);
		if (!c) {
			ktest_print("%s\n", t[i].why);
		} else if (c->id != t[i].id) {
			ktest_print("failed gone\n");
		} else if (c->state == KTEST_UP) {
			ktest_print("up conn %u\n", c->slot);
		} else if (c->state == KTEST_CONNECTING) {
			/* The datagram thread collects it, TERMINATED */
			gni_ep_postdata_cancel_by_id(c->ep, KTEST_DG_ID(c->id));
			ktest_print("failed timeout\n");
		} else {
			ktest_print("failed %s\n", c->why);
		}
	}
	mutex_unlock(&ctx->lock);
	return 0;
}

/* @c is one of @n targets @pes (every connection if none) */
static bool ktest_peer_targeted(const struct ktest_conn *c, const u32 *pes,
				unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (pes[i] == c->pe)
			return true;
	return !n;
}

/*
 * Apply @fn to every connection that is up, of @npes targets @pes if
 * any; their number
 */
static unsigned int ktest_peer_each_up(struct ktest_peer *ctx,
				       void (*fn)(struct ktest_conn *c,
						  u32 a, u32 b),
				       u32 a, u32 b, const u32 *pes,
				       unsigned int npes)
{
	unsigned int i, n = 0;

	mutex_lock(&ctx->lock);
	for (i = 0; i < KTEST_PEER_CONNS; i++) {
		if (ctx->conns[i].state != KTEST_UP ||
		    !ktest_peer_targeted(&ctx->conns[i], pes, npes))
			continue;
		fn(&ctx->conns[i], a, b);
		n++;
	}
	ktest_peer_update(ctx);
	mutex_unlock(&ctx->lock);
	mod_delayed_work(ctx->wq, &ctx->work, 0);
	return n;
}

static void ktest_conn_smsg(struct ktest_conn *c, u32 n, u32 unused)
{
	if (c->st.echoed >= c->st.want) {
		c->st.start = ktime_get();
		c->st.end = 0;
	}
	c->st.want += n;
}

static void ktest_conn_rdma(struct ktest_conn *c, u32 size, u32 count)
{
	c->rdma_next = size;
	c->st.rdma_left += count;
}

static void ktest_conn_halt(struct ktest_conn *c, u32 unused, u32 unused2)
{
	c->st.want = c->st.sent;
	c->st.rdma_left = 0;
	if (c->st.echoed >= c->st.want && !c->st.end)
		c->st.end = ktime_get();
}

static int ktest_peer_wait(struct ktest_peer *ctx, char *args)
{
	unsigned int s = KTEST_PEER_WAIT_S;
	ktime_t t0 = ktime_get();
	long left;

	if (args && (kstrtouint(args, 0, &s) || s > KTEST_PEER_WAIT_MAX_S))
		return -EINVAL;
	left = wait_event_timeout(ctx->waitq, READ_ONCE(ctx->quiet),
				  msecs_to_jiffies(s * 1000));
	mutex_lock(&ctx->lock);
	ktest_print("wait %s %lld\n", left ? "done" : "timeout",
		    ktime_ms_delta(ktime_get(), t0));
	ktest_peer_status(ctx);
	mutex_unlock(&ctx->lock);
	return 0;
}

/* peer listen, peer connect TARGET...: the context made if need be */
static int ktest_peer_open(const char *cmd, char *args)
{
	struct ktest_peer *ctx = ktest_peer;
	const char *what;
	int rc;

	if (!strcmp(cmd, "listen") && (args || ctx))
		return args ? -EINVAL : -EBUSY;
	if (!strcmp(cmd, "connect") && !args)
		return -EINVAL;
	ktest_result_clear();
	if (!ctx) {
		ctx = ktest_peer_start(&rc, &what);
		if (!ctx) {
			ktest_print("rc %d %s\n", rc, what);
			return 0;
		}
		ktest_peer = ctx;
	}
	if (!args) {
		ktest_print("rc 0 pe 0x%x nid %u\n", ctx->pe, ctx->nid);
		return 0;
	}
	return ktest_peer_connect(ctx, args);
}

/*
 * peer smsg N [TARGET...], peer rdma SIZE [COUNT [TARGET...]],
 * peer halt [TARGET...]
 */
static int ktest_peer_traffic(struct ktest_peer *ctx, const char *cmd,
			      char *args)
{
	void (*fn)(struct ktest_conn *c, u32 a, u32 b) = ktest_conn_halt;
	u32 pes[KTEST_PEER_TARGETS], a = 0, b = 1, nid;
	char *tok = NULL;
	unsigned int n = 0;

	if (strcmp(cmd, "halt")) {
		tok = strsep(&args, " ");
		if (!tok || kstrtou32(tok, 0, &a) || !a)
			return -EINVAL;
		fn = ktest_conn_smsg;
	}
	if (!strcmp(cmd, "rdma")) {
		if (a < 4 || a % 4 || a > KTEST_PEER_RDMA_MAX)
			return -EINVAL;
		tok = strsep(&args, " ");
		if (tok && (kstrtou32(tok, 0, &b) || !b))
			return -EINVAL;
		fn = ktest_conn_rdma;
	}
	while ((tok = strsep(&args, " "))) {
		if (!*tok)
			continue;
		if (n == KTEST_PEER_TARGETS ||
		    ktest_peer_target(tok, &pes[n], &nid))
			return -EINVAL;
		n++;
	}
	ktest_result_clear();
	ktest_print("rc 0 conns %u\n",
		    ktest_peer_each_up(ctx, fn, a, b, pes, n));
	return 0;
}

int ktest_peer_cmd(char *args)
{
	char *cmd = strsep(&args, " ");
	struct ktest_peer *ctx = ktest_peer;
	unsigned int left;
	int rc;

	if (!strcmp(cmd, "listen") || !strcmp(cmd, "connect"))
		return ktest_peer_open(cmd, args);
	if (strcmp(cmd, "smsg") && strcmp(cmd, "rdma") &&
	    strcmp(cmd, "halt") && strcmp(cmd, "wait") &&
	    strcmp(cmd, "status") && strcmp(cmd, "stop"))
		return -EINVAL;
	if (!ctx)
		return -ENOENT;
	if (!strcmp(cmd, "smsg") || !strcmp(cmd, "rdma") ||
	    !strcmp(cmd, "halt"))
		return ktest_peer_traffic(ctx, cmd, args);
	if (!strcmp(cmd, "wait")) {
		ktest_result_clear();
		return ktest_peer_wait(ctx, args);
	}
	if (args)
		return -EINVAL;
	ktest_result_clear();
	if (!strcmp(cmd, "status")) {
		mutex_lock(&ctx->lock);
		ktest_peer_status(ctx);
		mutex_unlock(&ctx->lock);
		return 0;
	}
	ktest_peer = NULL;
	rc = ktest_peer_teardown(ctx, &left);
	ktest_print("rc %d left %u\n", rc, left);
	return 0;
}

void ktest_peer_exit(void)
{
	unsigned int left;

	if (ktest_peer)
		ktest_peer_teardown(ktest_peer, &left);
	ktest_peer = NULL;
}
