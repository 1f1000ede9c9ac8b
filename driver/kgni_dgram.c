// SPDX-License-Identifier: GPL-2.0-only
/*
 * kgni: datagrams (KGNI_IOC_DGRAM_*), uGNI's connection set-up channel.
 *
 * Each side of an exchange posts its data and room for the other's.  The
 * kgnis of the nodes talk in messages of their own (struct kgni_dg_msg),
 * carried by the BTE: a SEND on the kernel's TX channel 3 lands in a
 * buffer of the target kgni's RX channel 3, whose interrupt schedules
 * the work that reads it.  A message to this node's own PE is handled
 * at once, without the device, by whoever makes it.
 *
 * A bound post sends a REQ with its data to its peer.  The target
 * matches a REQ against its pending posts; if one matches, that post
 * completes with the REQ's data and a REPLY carries its own data back,
 * which completes the sender's post.  A REQ that matches nothing waits
 * in a queue for a later post (a datagram that arrives before the local
 * post).  Two bound posts to each other both send a REQ; the one of the
 * lower (PE, inst_id, xid) answers, so that each side completes exactly
 * once.  A REPLY also names the replier's own REQ, which the target then
 * forgets (it may still arrive).  The REQ the higher one got waits in
 * its queue until that REPLY retires it, so that a later post still
 * finds it if the higher one is cancelled; while the higher post is
 * pending, no other post takes it (kgni_dg_tie_waits()).
 *
 * A cancelled post whose REQ was sent sends a CANCEL and waits: the
 * target removes the REQ from its queue and answers CANCEL_ACK, saying
 * whether it had answered the REQ already.  The post ends TERMINATED on
 * an ACK that says no, or COMPLETED by the REPLY (which travels ahead of
 * the ACK), so that both sides agree on whether the exchange happened.
 * A REQ or REPLY the BTE cannot deliver (the node is down or
 * unreachable: the transfer times out) ends its post with TIMEOUT (a
 * CANCEL: TERMINATED); one refused for want of an RX buffer is sent again.
 *
 * The queue of early REQs is the node's, shared by every job and kernel
 * client, so one sender may not fill it: it keeps at most
 * kgni_dg_src_reqs REQs of one (PE, ptag, cookie) and, of its
 * KGNI_DG_MAX_QUEUED, the last kgni_dg_kernel_reqs for kernel clients'.
 * A REQ past that is refused with a NAK, which ends the sender's post
 * ERROR (uGNI's GNI_POST_ERROR), so that no REQ is lost silently.  A REQ
 * that waits for the tie-break is kept whatever the shares: our own post
 * bounds those.  A malformed message is still dropped: it names no post.
 *
 * A message's source PE is the one the network delivered it from (the RX
 * copy's QW4, which the NIC writes), not what its sender wrote: another
 * node's kernel cannot speak for a third node.  Its ptag and cookie are
 * still the sender kernel's word (Documentation/abi.rst, "Trust").
 *
 * A kernel client's datagrams (kgni_kdgram.c) are posts of its NIC's kernel
 * domain, in the same lists and the same protocol; their messages say
 * they are a kernel's, and match only a kernel's (kgni_dg_accepts()).
 *
 * Locking.  Lustre's gnilnd probes, tests and cancels its datagrams with
 * a spinlock of its own held, so those calls may not sleep.  The
 * datagram state (the posts, the queued REQs, the tombstones, the backlog
 * of messages to send, the xids, the ended count waiters watch) is
 * therefore under the device's dg_lock, a spinlock taken with interrupts
 * off, and the calls that neither post nor wait take nothing else:
 * kgni_dg_test() and kgni_dg_probe() without a timeout, kgni_dg_cancel()
 * and kgni_dg_drop() run in any context.  dp_lock, the data path's mutex,
 * stays for what touches the device: writing the TX ring of the kernel's
 * BTE channel and its slots (&kgni_dgrams.tx), reaping them, reading the
 * RX ring.  A post and the work hold it, and take dg_lock inside it for
 * each change of the state.  Nothing sleeps under dg_lock: allocations
 * are GFP_ATOMIC, and beside the state only dg_wq is woken, the work
 * scheduled and, by a holder of dp_lock, the TX ring written.
 *
 * Sending.  kgni_dg_send() runs under dg_lock.  A message to this node
 * is handled there and then.  One to another node goes into a TX slot at
 * once if the caller holds dp_lock too and the backlog is empty; else it
 * joins the tail of the backlog and the work, scheduled (any context may
 * schedule it), sends the backlog in order under dp_lock.  So a call
 * that cannot touch the device (a cancel under the caller's spinlock)
 * leaves its CANCEL to the work.  The order the protocol relies on holds:
 * the backlog is one FIFO, and a message skips it only when it is empty,
 * so messages to a node reach the TX ring in the order they were made,
 * whoever made them; a post's REQ is made in the same hold of dg_lock
 * that lists the post, before any cancel can find it, so its CANCEL
 * follows it; a REPLY is made when its REQ is answered, before the
 * CANCEL that the ACK answers can be handled, so it goes ahead of the
 * ACK.  Messages to this node never wait in the backlog: each handler
 * makes at most one message, as its last step, so handling them at once
 * (depth first) is their order too.  Only a message refused for want of
 * an RX buffer is sent again from the tail, as before (the REPLY case is
 * in the CANCEL_ACK's handler).
 *
 * Removal.  kgni_dg_stop() sets stopped under dg_lock, so nothing is
 * sent and the work is not scheduled any more, then waits for the work.
 * kgni_dg_fini() takes kdev->dg away under dg_lock before it frees
 * anything.  A kernel client's call holds the device (its NIC's
 * reference), not the service: it finds kdev->dg under dg_lock, or NULL
 * once the service is gone, and never blocks on remove.  Waiters sleep
 * on dg_wq, woken at each end and at remove.
 */
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "kgni_dp.h"

/* The kernel's BTE channel: TX 3 sends, RX 3 receives. */
#define KGNI_DG_VC		KGNI_BTE_KERNEL_VC
#define KGNI_DG_RX_SLOTS	128
#define KGNI_DG_BUF		256	/* RX buf_size and TX buffer stride */
#define KGNI_DG_MAGIC		0x4b474432u	/* "KGD2" */
/* In the type byte: the message is a kernel domain's */
#define KGNI_DG_KERNEL		0x80

/* Queued REQs and remembered retired ones, per device */
#define KGNI_DG_MAX_QUEUED	1024
#define KGNI_DG_TOMBSTONES	1024

/* A message refused for want of an RX buffer is sent again, this often. */
#define KGNI_DG_MAX_RETRIES	200
#define KGNI_DG_ST_NPES		0xe	/* the target's "send miss" */
#define KGNI_DG_POLL_MS		20

enum kgni_dg_type {
	KGNI_DG_REQ = 1,
	KGNI_DG_REPLY = 2,
	KGNI_DG_CANCEL = 3,
	KGNI_DG_CANCEL_ACK = 4,
	KGNI_DG_NAK = 5,
};

/**
 * struct kgni_dg_msg - what one kgni sends another (little-endian)
 * @magic: KGNI_DG_MAGIC
 * @type: enum kgni_dg_type, with KGNI_DG_KERNEL if the sender's domain is
 *        a kernel client's
 * @ptag: the sender's CDM's ptag
 * @len: bytes of @data
 * @src_pe: the sender's PE
 * @src_inst: the sender's inst_id
 * @dst_inst: the inst_id it is for
 * @cookie: the sender's cookie
 * @xid: REQ, CANCEL: the sender's post; REPLY, CANCEL_ACK, NAK: the REQ
 *       it answers (a NAK: refuses)
 * @xid2: REPLY: the replier's own REQ, now retired, or 0; CANCEL_ACK: 1
 *        if the REQ had been answered (its REPLY went ahead), else 0
 * @data: the datagram's data
 */
struct kgni_dg_msg {
	__le32 magic;
	u8 type;
	u8 ptag;
	__le16 len;
	__le32 src_pe;
	__le32 src_inst;
	__le32 dst_inst;
	__le32 cookie;
	__le64 xid;
	__le64 xid2;
	u8 data[KGNI_DGRAM_MAX_DATA];
};

#define KGNI_DG_HDR	offsetof(struct kgni_dg_msg, data)
static_assert(sizeof(struct kgni_dg_msg) <= KGNI_DG_BUF);

/* A message as this kgni handles it, fields in CPU order */
struct kgni_dg_in {
	enum kgni_dg_type type;
	bool kernel;
	u8 ptag;
	u16 len;
	u32 src_pe, src_inst, dst_inst, cookie;
	u64 xid, xid2;
	u8 data[KGNI_DGRAM_MAX_DATA];
};

/**
 * struct kgni_dg - a posted datagram
 * @node: in the device's list of posts
 * @dom: its domain
 * @key: the endpoint key it was posted with
 * @id: its datagram id (~0: none)
 * @bound: only @peer_pe and @peer_inst match
 * @peer_pe: @bound: the peer's PE, where its REQ goes
 * @peer_inst: @bound: the peer's inst_id
 * @state: KGNI_DGRAM_*
 * @xid: its number on this node (never 0)
 * @req_sent: a REQ went to the peer
 * @cancelling: cancelled, its CANCEL sent: it matches nothing and ends
 *              on the CANCEL_ACK, or with the REPLY that went ahead of it
 * @ended: when it ended, in the device's order (for PROBE)
 * @len: bytes of @data
 * @recv_len: bytes of @recv
 * @buf_size: bytes of @recv the caller takes
 * @out_buf: a kernel client's post: where the test that collects it
 *           copies those bytes; NULL for a file's
 * @remote_pe: COMPLETED: the peer
 * @remote_inst: COMPLETED: the peer's inst_id
 * @data: what it sends
 * @recv: what it received
 */
struct kgni_dg {
	struct list_head node;
	struct kgni_dom *dom;
	u64 key;
	u64 id;
	bool bound;
	u32 peer_pe, peer_inst;
	u32 state;
	u64 xid;
	bool req_sent;
	bool cancelling;
	u64 ended;
	u16 len, recv_len, buf_size;
	void *out_buf;
	u32 remote_pe, remote_inst;
	u8 data[KGNI_DGRAM_MAX_DATA];
	u8 recv[KGNI_DGRAM_MAX_DATA];
};

/* A REQ that arrived before any post matched it */
struct kgni_dg_req {
	struct list_head node;
	struct kgni_dg_in m;
};

/* One TX slot of the kernel channel: the message it carries */
struct kgni_dg_tx {
	bool busy;
	u32 pe;
	unsigned int tries;	/* times it was refused for want of a buffer */
	struct kgni_dg_in m;
};

/* A message waiting for a TX slot */
struct kgni_dg_out {
	struct list_head node;
	u32 pe;
	unsigned int tries;
	struct kgni_dg_in m;
};

/**
 * struct kgni_dgrams - the device's datagram state (kdev->dg)
 * @posts: every pending or uncollected post of every domain
 * @queued: REQs that matched nothing yet
 * @nqueued: their number
 * @backlog: messages waiting for the work to send them (struct
 *           kgni_dg_out), in the order they were made
 * @pe: this node's PE
 * @stopped: remove has begun: nothing is sent, nor the work scheduled
 * @dp_held: the holder of dg_lock holds dp_lock too: kgni_dg_send() may
 *           write the TX ring
 * @tomb: REQs retired, cancelled or answered: (PE, xid), a ring
 * @tomb_next: the next place in @tomb
 * @tx: the TX channel's slots (dp_lock)
 * @tx_buf: a KGNI_DG_BUF buffer per TX slot (dp_lock)
 * @tx_dma: its bus address
 * @rx_buf: a KGNI_DG_BUF buffer per RX descriptor (dp_lock)
 * @rx_dma: its bus address
 * @rx_copy: the RX descriptors' CPU copies (GEMINI_BTE_RX_COPY_BYTES
 *           each; dp_lock)
 * @rx_copy_dma: its bus address
 * @rx_next: the next RX ring index to read (dp_lock)
 * @next_xid: the last xid given
 * @dropped: messages dropped (malformed, forged, no memory)
 * @forged: of those, messages whose source PE is not the one the network
 *          delivered them from
 * @refused: REQs refused with a NAK (a share of the queue was full)
 *
 * All but what says dp_lock is under &kgni_dev.dg_lock; @stopped is set
 * under both, and may be read under either.
 */
struct kgni_dgrams {
	struct list_head posts;
	struct list_head queued;
	unsigned int nqueued;
	struct list_head backlog;
	u32 pe;
	bool stopped;
	bool dp_held;
	struct { u32 pe; bool answered; u64 xid; } tomb[KGNI_DG_TOMBSTONES];
	unsigned int tomb_next;
	struct kgni_dg_tx tx[GEMINI_NUM_BTE_TX];
	void *tx_buf;
	dma_addr_t tx_dma;
	void *rx_buf;
	dma_addr_t rx_dma;
	__le64 *rx_copy;
	dma_addr_t rx_copy_dma;
	unsigned int rx_next;
	u64 next_xid;
	unsigned long dropped;
	unsigned long forged;
	unsigned long refused;
};

/*
 * Take dg_lock, interrupts off; the service, or NULL if there is none
 * (not set up, or removed: kgni_dg_fini()).  @dp: the caller holds
 * dp_lock too, so that its sends may write the TX ring.
 */
static struct kgni_dgrams *kgni_dg_lock(struct kgni_dev *kdev, bool dp,
					unsigned long *flags)
	__acquires(&kdev->dg_lock)
{
	struct kgni_dgrams *dg;

	spin_lock_irqsave(&kdev->dg_lock, *flags);
	dg = kdev->dg;
	if (dg)
		dg->dp_held = dp;
	return dg;
}

static void kgni_dg_unlock(struct kgni_dev *kdev, unsigned long flags)
	__releases(&kdev->dg_lock)
{
	if (kdev->dg)
		kdev->dg->dp_held = false;
	spin_unlock_irqrestore(&kdev->dg_lock, flags);
}

/* Decode and check a message of @n bytes; false if it is malformed. */
static bool kgni_dg_decode(const void *buf, size_t n, struct kgni_dg_in *m)
{
	const struct kgni_dg_msg *w = buf;

	if (n < KGNI_DG_HDR || le32_to_cpu(w->magic) != KGNI_DG_MAGIC)
		return false;
	m->type = w->type & ~KGNI_DG_KERNEL;
	m->kernel = w->type & KGNI_DG_KERNEL;
	m->ptag = w->ptag;
	m->len = le16_to_cpu(w->len);
	if (m->type < KGNI_DG_REQ || m->type > KGNI_DG_NAK ||
	    m->len > KGNI_DGRAM_MAX_DATA || n < KGNI_DG_HDR + m->len)
		return false;
	m->src_pe = le32_to_cpu(w->src_pe);
	m->src_inst = le32_to_cpu(w->src_inst);
	m->dst_inst = le32_to_cpu(w->dst_inst);
	m->cookie = le32_to_cpu(w->cookie);
	m->xid = le64_to_cpu(w->xid);
	m->xid2 = le64_to_cpu(w->xid2);
	memcpy(m->data, w->data, m->len);
	return true;
}

static size_t kgni_dg_encode(const struct kgni_dg_in *m, void *buf)
{
	struct kgni_dg_msg *w = buf;

	w->magic = cpu_to_le32(KGNI_DG_MAGIC);
	w->type = m->type | (m->kernel ? KGNI_DG_KERNEL : 0);
	w->ptag = m->ptag;
	w->len = cpu_to_le16(m->len);
	w->src_pe = cpu_to_le32(m->src_pe);
	w->src_inst = cpu_to_le32(m->src_inst);
	w->dst_inst = cpu_to_le32(m->dst_inst);
	w->cookie = cpu_to_le32(m->cookie);
	w->xid = cpu_to_le64(m->xid);
	w->xid2 = cpu_to_le64(m->xid2);
	memcpy(w->data, m->data, m->len);
	return KGNI_DG_HDR + m->len;
}

static void kgni_dg_receive(struct kgni_dev *kdev, const struct kgni_dg_in *m);

/*
 * A message to another node @pe, written into the next TX slot of the
 * kernel channel as a SEND (dp_lock and dg_lock held).  false if no slot
 * is free (the caller keeps it for later).
 */
static bool kgni_dg_xmit(struct kgni_dev *kdev, u32 pe,
			 const struct kgni_dg_in *m, unsigned int tries)
{
	struct kgni_dgrams *dg = kdev->dg;
	struct kgni_bte_chan *ch = &kdev->bte[KGNI_DG_VC];
	u64 qw[GEMINI_BTE_TX_DESC_QWORDS] = { 0 };
	unsigned int idx = ch->head;
	size_t n;

	lockdep_assert_held(&kdev->dp_lock);
	if (kgni_bte_full(ch) || dg->tx[idx].busy)
		return false;
	n = kgni_dg_encode(m, dg->tx_buf + idx * KGNI_DG_BUF);
	/* Deterministic routes: messages between two nodes stay in order. */
	qw[0] = ((u64)pe << GEMINI_BTE_DEST_PE_SHIFT) |
		((u64)GEMINI_BTE_SEND << GEMINI_BTE_MODE1_SHIFT);
	qw[1] = (u64)GEMINI_BTE_IRQ_ENABLE << GEMINI_BTE_MODE2_SHIFT;
	qw[2] = (u64)n << GEMINI_BTE_LEN_SHIFT;
	qw[3] = ((dg->tx_dma + idx * KGNI_DG_BUF) & GEMINI_BTE_SRC_PHYS_MASK) |
		((u64)GEMINI_BTE_COHERENT << GEMINI_BTE_MODE4_SHIFT);
	dg->tx[idx].busy = true;
	dg->tx[idx].pe = pe;
	dg->tx[idx].tries = tries;
	dg->tx[idx].m = *m;
	kgni_bte_ring(kdev, KGNI_DG_VC, qw);
	return true;
}

/*
 * Send @m to @pe (dg_lock held, any context): handled now if @pe is this
 * node; else into a TX slot now if the caller holds dp_lock and nothing
 * waits before it, or into the backlog for the work, in order (the
 * header comment tells why the order holds).
 */
static void kgni_dg_send(struct kgni_dev *kdev, u32 pe,
			 const struct kgni_dg_in *m, unsigned int tries)
{
	struct kgni_dgrams *dg = kdev->dg;
	struct kgni_dg_out *o;

	lockdep_assert_held(&kdev->dg_lock);
	if (dg->stopped)
		return;
	if (pe == dg->pe) {
		kgni_dg_receive(kdev, m);
		return;
	}
	if (dg->dp_held && list_empty(&dg->backlog) &&
	    kgni_dg_xmit(kdev, pe, m, tries))
		return;
	o = kmalloc(sizeof(*o), GFP_ATOMIC);
	if (!o) {
		dg->dropped++;
		return;
	}
	o->pe = pe;
	o->tries = tries;
	o->m = *m;
	list_add_tail(&o->node, &dg->backlog);
	mod_delayed_work(system_wq, &kdev->dg_work, 0);
}

/* The fields of a message from post @p, for @dst_inst */
static void kgni_dg_msg_of(struct kgni_dev *kdev, const struct kgni_dg *p,
			   enum kgni_dg_type type, u32 dst_inst,
			   struct kgni_dg_in *m)
{
	memset(m, 0, offsetof(struct kgni_dg_in, data));
	m->type = type;
	m->kernel = p->dom->kernel;
	m->ptag = p->dom->ptag;
	m->cookie = p->dom->cookie;
	m->src_pe = kdev->dg->pe;
	m->src_inst = p->dom->inst_id;
	m->dst_inst = dst_inst;
	m->len = type == KGNI_DG_REQ || type == KGNI_DG_REPLY ? p->len : 0;
	memcpy(m->data, p->data, m->len);
}

static void kgni_dg_end(struct kgni_dev *kdev, struct kgni_dg *p, u32 state)
{
	p->state = state;
	p->ended = kdev->dg_ended + 1;
	WRITE_ONCE(kdev->dg_ended, p->ended);
	wake_up_all(&kdev->dg_wq);
}

/* Post @p takes the data of @m (a REQ or REPLY from its peer). */
static void kgni_dg_complete(struct kgni_dev *kdev, struct kgni_dg *p,
			     const struct kgni_dg_in *m)
{
	p->remote_pe = m->src_pe;
	p->remote_inst = m->src_inst;
	p->recv_len = m->len;
	memcpy(p->recv, m->data, m->len);
	kgni_dg_end(kdev, p, KGNI_DGRAM_COMPLETED);
}

/* The tombstone of REQ (@pe, @xid), or -1 */
static int kgni_dg_tomb_find(struct kgni_dgrams *dg, u32 pe, u64 xid)
{
	unsigned int i;

	for (i = 0; i < KGNI_DG_TOMBSTONES; i++)
		if (dg->tomb[i].xid == xid && dg->tomb[i].pe == pe)
			return i;
	return -1;
}

static void kgni_dg_tomb_add(struct kgni_dgrams *dg, u32 pe, u64 xid,
			     bool answered)
{
	dg->tomb[dg->tomb_next].pe = pe;
	dg->tomb[dg->tomb_next].xid = xid;
	dg->tomb[dg->tomb_next].answered = answered;
	dg->tomb_next = (dg->tomb_next + 1) % KGNI_DG_TOMBSTONES;
}

/*
 * Answer REQ @m with post @p's data; @p completes with @m's.  A REQ of
 * this node's own is answered first, so that its post ends before @p:
 * a node connecting to itself collects the datagram it sent before the
 * one that took it, as Lustre's gnilnd needs (it keeps a connection
 * made by the taker only if the sender's exists already).
 */
static void kgni_dg_answer(struct kgni_dev *kdev, struct kgni_dg *p,
			   const struct kgni_dg_in *m)
{
	bool own = m->src_pe == kdev->dg->pe;
	struct kgni_dg_in r;

	/* A CANCEL that comes after this must not undo it. */
	kgni_dg_tomb_add(kdev->dg, m->src_pe, m->xid, true);
	if (!own)
		kgni_dg_complete(kdev, p, m);
	kgni_dg_msg_of(kdev, p, KGNI_DG_REPLY, m->src_inst, &r);
	r.xid = m->xid;
	r.xid2 = p->req_sent ? p->xid : 0;
	kgni_dg_send(kdev, m->src_pe, &r, 0);
	if (own)
		kgni_dg_complete(kdev, p, m);
}

/*
 * Whether pending post @p takes REQ @m.  This is where domains are kept
 * apart: the ptag and cookie must be the post's CDM's, and a kernel
 * client's post takes only a kernel's REQ, a file's only a file's.  On a
 * node a kernel CDM's ptag is never a job's (kgni_job.c), but another
 * node's job may have it; the kernel bit keeps the two apart there too.
 * A REPLY and a CANCEL_ACK name a REQ of this node (its xid), which only
 * such a match answered.
 */
static bool kgni_dg_accepts(struct kgni_dev *kdev, const struct kgni_dg *p,
			    const struct kgni_dg_in *m)
{
	const struct kgni_dom *dom = p->dom;

	if (p->state != KGNI_DGRAM_PENDING || p->cancelling ||
	    dom->kernel != m->kernel || dom->ptag != m->ptag ||
	    dom->cookie != m->cookie || dom->inst_id != m->dst_inst)
		return false;
	if (p->bound && (p->peer_pe != m->src_pe || p->peer_inst != m->src_inst))
		return false;
	/* Not its own REQ, to itself */
	return !(m->src_pe == kdev->dg->pe && m->xid == p->xid);
}

/* Forget REQ (@pe, @xid): out of the queue, and refused if it comes. */
static void kgni_dg_retire(struct kgni_dgrams *dg, u32 pe, u64 xid)
{
	struct kgni_dg_req *q, *next;

	list_for_each_entry_safe(q, next, &dg->queued, node) {
		if (q->m.src_pe == pe && q->m.xid == xid) {
			list_del(&q->node);
			dg->nqueued--;
			kfree(q);
		}
	}
	kgni_dg_tomb_add(dg, pe, xid, false);
}

/* -1, 0 or 1 as (pe, inst, xid) of @a is below, equal to or above @b's */
static int kgni_dg_cmp(u32 pe_a, u32 inst_a, u64 xid_a, u32 pe_b,
		       u32 inst_b, u64 xid_b)
{
	if (pe_a != pe_b)
		return pe_a < pe_b ? -1 : 1;
	if (inst_a != inst_b)
		return inst_a < inst_b ? -1 : 1;
	if (xid_a != xid_b)
		return xid_a < xid_b ? -1 : 1;
	return 0;
}

/*
 * Whether REQ @m waits for the tie-break: a pending bound post of ours to
 * its sender, whose own REQ went, is above it, so the sender's post
 * answers ours and its REPLY retires @m.  Until then no other post may
 * take @m (a wildcard posted meanwhile would: the sender's post would
 * then complete twice, once with each of ours, and we would hold two
 * connections to its one).
 */
static bool kgni_dg_tie_waits(struct kgni_dev *kdev,
			      const struct kgni_dg_in *m)
{
	struct kgni_dg *p;

	list_for_each_entry(p, &kdev->dg->posts, node)
		if (p->bound && p->req_sent && kgni_dg_accepts(kdev, p, m) &&
		    kgni_dg_cmp(kdev->dg->pe, p->dom->inst_id, p->xid,
				m->src_pe, m->src_inst, m->xid) > 0)
			return true;
	return false;
}

/*
 * Whether REQ @m, which matched nothing, may wait in the queue: within
 * its sender's share, and out of the kernel's reserve unless a kernel
 * client's (dg_lock held).
 */
static bool kgni_dg_may_queue(struct kgni_dgrams *dg,
			      const struct kgni_dg_in *m)
{
	unsigned int room = KGNI_DG_MAX_QUEUED, same = 0;
	struct kgni_dg_req *q;

	if (!m->kernel)
		room -= min_t(unsigned int, READ_ONCE(kgni_dg_kernel_reqs),
			      KGNI_DG_MAX_QUEUED);
	if (dg->nqueued >= room)
		return false;
	list_for_each_entry(q, &dg->queued, node)
		same += q->m.src_pe == m->src_pe && q->m.ptag == m->ptag &&
			q->m.cookie == m->cookie && q->m.kernel == m->kernel;
	return same < READ_ONCE(kgni_dg_src_reqs);
}

/* @a: a message of @type, without data, that answers @m to its sender */
static void kgni_dg_answer_of(const struct kgni_dgrams *dg,
			      const struct kgni_dg_in *m,
			      enum kgni_dg_type type, struct kgni_dg_in *a)
{
	memset(a, 0, offsetof(struct kgni_dg_in, data));
	a->type = type;
	a->kernel = m->kernel;
	a->ptag = m->ptag;
	a->cookie = m->cookie;
	a->src_pe = dg->pe;
	a->src_inst = m->dst_inst;
	a->dst_inst = m->src_inst;
	a->xid = m->xid;
}

/* Refuse REQ @m: its sender's post ends ERROR (dg_lock held). */
static void kgni_dg_refuse(struct kgni_dev *kdev, const struct kgni_dg_in *m)
{
	struct kgni_dgrams *dg = kdev->dg;
	struct kgni_dg_in a;

	dg->refused++;
	kgni_dg_answer_of(dg, m, KGNI_DG_NAK, &a);
	kgni_dg_send(kdev, m->src_pe, &a, 0);
}

static void kgni_dg_on_req(struct kgni_dev *kdev, const struct kgni_dg_in *m)
{
	struct kgni_dgrams *dg = kdev->dg;
	struct kgni_dg *p, *hit = NULL;
	struct kgni_dg_req *q;

	if (kgni_dg_tomb_find(dg, m->src_pe, m->xid) >= 0)
		return;
	/* A post bound to the sender first, else a wildcard */
	list_for_each_entry(p, &dg->posts, node) {
		if (!kgni_dg_accepts(kdev, p, m))
			continue;
		if (p->bound) {
			hit = p;
			break;
		}
		if (!hit)
			hit = p;
	}
	/*
	 * Both sent a REQ: the lower (PE, inst_id, xid) answers; the other
	 * keeps the REQ it got queued until the REPLY retires it.
	 */
	if (hit && !(hit->bound && hit->req_sent &&
		     kgni_dg_cmp(dg->pe, hit->dom->inst_id, hit->xid,
				 m->src_pe, m->src_inst, m->xid) > 0)) {
		kgni_dg_answer(kdev, hit, m);
		return;
	}
	if (dg->nqueued >= KGNI_DG_MAX_QUEUED ||
	    (!hit && !kgni_dg_may_queue(dg, m))) {
		kgni_dg_refuse(kdev, m);
		return;
	}
	q = kmalloc(sizeof(*q), GFP_ATOMIC);
	if (!q) {
		dg->dropped++;
		return;
	}
	q->m = *m;
	list_add_tail(&q->node, &dg->queued);
	dg->nqueued++;
}

/* The pending post whose REQ @m answers (a REPLY or a NAK), or NULL */
static struct kgni_dg *kgni_dg_answered(struct kgni_dgrams *dg,
					const struct kgni_dg_in *m)
{
	struct kgni_dg *p;

	list_for_each_entry(p, &dg->posts, node) {
		if (p->state == KGNI_DGRAM_PENDING && p->req_sent &&
		    p->xid == m->xid && p->peer_pe == m->src_pe &&
		    p->peer_inst == m->src_inst &&
		    p->dom->inst_id == m->dst_inst &&
		    p->dom->kernel == m->kernel &&
		    p->dom->cookie == m->cookie)
			return p;
	}
	return NULL;
}

static void kgni_dg_on_reply(struct kgni_dev *kdev, const struct kgni_dg_in *m)
{
	struct kgni_dgrams *dg = kdev->dg;
	struct kgni_dg *p;

	if (m->xid2)
		kgni_dg_retire(dg, m->src_pe, m->xid2);
	p = kgni_dg_answered(dg, m);
	if (p)
		kgni_dg_complete(kdev, p, m);
}

/* Drop the REQ @m cancels, unless it was answered; say which. */
static void kgni_dg_on_cancel(struct kgni_dev *kdev,
			      const struct kgni_dg_in *m)
{
	struct kgni_dgrams *dg = kdev->dg;
	struct kgni_dg_in a;
	int t = kgni_dg_tomb_find(dg, m->src_pe, m->xid);

	if (t < 0 || !dg->tomb[t].answered)
		kgni_dg_retire(dg, m->src_pe, m->xid);
	kgni_dg_answer_of(dg, m, KGNI_DG_CANCEL_ACK, &a);
	a.xid2 = t >= 0 && dg->tomb[t].answered;
	kgni_dg_send(kdev, m->src_pe, &a, 0);
}

/* The cancelling post whose REQ (this node's @xid) went to @pe, or NULL */
static struct kgni_dg *kgni_dg_cancelling(struct kgni_dev *kdev, u32 pe,
					  u64 xid)
{
	struct kgni_dg *p;

	list_for_each_entry(p, &kdev->dg->posts, node)
		if (p->state == KGNI_DGRAM_PENDING && p->cancelling &&
		    p->xid == xid && p->peer_pe == pe)
			return p;
	return NULL;
}

static void kgni_dg_on_cancel_ack(struct kgni_dev *kdev,
				  const struct kgni_dg_in *m)
{
	struct kgni_dg *p = kgni_dg_cancelling(kdev, m->src_pe, m->xid);

	/* Answered: the REPLY completes it (it went first unless refused). */
	if (p && !m->xid2)
		kgni_dg_end(kdev, p, KGNI_DGRAM_TERMINATED);
}

/* Our REQ @m->xid was refused: its post ends ERROR (cancelled: TERMINATED) */
static void kgni_dg_on_nak(struct kgni_dev *kdev, const struct kgni_dg_in *m)
{
	struct kgni_dg *p = kgni_dg_answered(kdev->dg, m);

	if (p)
		kgni_dg_end(kdev, p, p->cancelling ?
			    KGNI_DGRAM_TERMINATED : KGNI_DGRAM_ERROR);
}

static void kgni_dg_receive(struct kgni_dev *kdev, const struct kgni_dg_in *m)
{
	switch (m->type) {
	case KGNI_DG_REQ:
		kgni_dg_on_req(kdev, m);
		break;
	case KGNI_DG_REPLY:
		kgni_dg_on_reply(kdev, m);
		break;
	case KGNI_DG_CANCEL:
		kgni_dg_on_cancel(kdev, m);
		break;
	case KGNI_DG_CANCEL_ACK:
		kgni_dg_on_cancel_ack(kdev, m);
		break;
	case KGNI_DG_NAK:
		kgni_dg_on_nak(kdev, m);
		break;
	}
}

/*
 * A message the BTE could not deliver: its post times out, or, being
 * cancelled, ends TERMINATED.
 */
static void kgni_dg_undelivered(struct kgni_dev *kdev,
				const struct kgni_dg_tx *t)
{
	struct kgni_dg *p;

	if (t->m.type != KGNI_DG_REQ && t->m.type != KGNI_DG_CANCEL)
		return;
	list_for_each_entry(p, &kdev->dg->posts, node) {
		if (p->state == KGNI_DGRAM_PENDING && p->req_sent &&
		    p->xid == t->m.xid && p->peer_pe == t->pe) {
			kgni_dg_end(kdev, p, p->cancelling ?
				    KGNI_DGRAM_TERMINATED : KGNI_DGRAM_TIMEOUT);
			return;
		}
	}
}

/*
 * Take back the TX slots whose SEND has ended; count those still out
 * (dp_lock and dg_lock held).
 */
static unsigned int kgni_dg_tx_reap(struct kgni_dev *kdev)
{
	struct kgni_dgrams *dg = kdev->dg;
	struct kgni_bte_chan *ch = &kdev->bte[KGNI_DG_VC];
	unsigned int i, status, out = 0;
	struct kgni_dg_tx *t;
	u64 qw2, qw5;

	for (i = ch->tail; i != ch->head; i = (i + 1) % ch->count) {
		t = &dg->tx[i];
		if (!t->busy)
			continue;
		qw2 = le64_to_cpu(READ_ONCE(ch->ring[i * KGNI_BTE_SLOT_QWORDS +
						     1]));
		if (!((qw2 >> GEMINI_BTE_FLAGS_SHIFT) & GEMINI_BTE_FLAG_COMPLETE)) {
			out++;
			continue;
		}
		rmb();	/* the status is written before COMPLETE */
		qw5 = le64_to_cpu(READ_ONCE(ch->ring[i * KGNI_BTE_SLOT_QWORDS +
						     4]));
		status = (qw5 >> GEMINI_BTE_STATUS_SHIFT) &
			 GEMINI_BTE_STATUS_MASK;
		t->busy = false;
		if (status == KGNI_DG_ST_NPES &&
		    t->tries < KGNI_DG_MAX_RETRIES) {
			/* No RX buffer free at the target: again, later */
			kgni_dg_send(kdev, t->pe, &t->m, t->tries + 1);
		} else if (status != GEMINI_BTE_ST_OK) {
			kgni_dg_undelivered(kdev, t);
		}
	}
	while (ch->tail != ch->head && !dg->tx[ch->tail].busy)
		ch->tail = (ch->tail + 1) % ch->count;
	return out;
}

/*
 * Send the backlog, in order, as far as TX slots are free (dp_lock and
 * dg_lock held).
 */
static void kgni_dg_flush(struct kgni_dev *kdev)
{
	struct kgni_dgrams *dg = kdev->dg;
	struct kgni_dg_out *o, *next;

	list_for_each_entry_safe(o, next, &dg->backlog, node) {
		if (!kgni_dg_xmit(kdev, o->pe, &o->m, o->tries))
			return;
		list_del(&o->node);
		kfree(o);
	}
}

static void __iomem *kgni_dg_rxc(struct kgni_dev *kdev, unsigned int qw)
{
	return kdev->bte_rx + (GEMINI_MMR_BTE_RX_CHAN_ENTRY(KGNI_DG_VC) -
			       GEMINI_MMR_BTE_RX_DESC) + 8 * qw;
}

/*
 * Read the messages the RX ring received, and give their buffers back
 * (dp_lock held).  Each is handled under dg_lock, taken for it alone.
 */
static void kgni_dg_rx(struct kgni_dev *kdev)
{
	struct kgni_dgrams *dg = kdev->dg;
	unsigned long flags;
	struct kgni_dg_in m;
	unsigned int n, i;
	__le64 *copy;
	u64 qw2, src, len;
	bool ok;

	for (n = 0; n < KGNI_DG_RX_SLOTS; n++) {
		i = dg->rx_next;
		copy = dg->rx_copy + i * (GEMINI_BTE_RX_COPY_BYTES / 8);
		qw2 = le64_to_cpu(READ_ONCE(copy[1]));
		if (!(qw2 & GEMINI_BTE_RX_FLAG_COMPLETE))
			break;
		rmb();	/* the buffer is written before COMPLETE */
		len = qw2 >> GEMINI_BTE_RXCPY_LEN_SHIFT;
		src = le64_to_cpu(READ_ONCE(copy[3]));
		ok = !((qw2 >> GEMINI_BTE_RX_ERR_STATUS_SHIFT) &
		       GEMINI_BTE_RX_ERR_STATUS_MASK) &&
		     len <= KGNI_DG_BUF &&
		     kgni_dg_decode(dg->rx_buf + i * KGNI_DG_BUF, len, &m);
		kgni_dg_lock(kdev, true, &flags);
		/*
		 * The message says who sent it; the network says it too.  A
		 * node's kernel that names another PE is not believed.
		 */
		if (ok && (!(src & GEMINI_BTE_RXCPY_SRC_VALID) ||
			   (src & GEMINI_PE_MASK) != m.src_pe)) {
			dg->forged++;
			ok = false;
			dev_warn_ratelimited(&kdev->pdev->dev,
					     "datagram from PE %#llx says it is from PE %#x: dropped\n",
					     src & GEMINI_PE_MASK, m.src_pe);
		} else if (ok) {
			kgni_dg_receive(kdev, &m);
		}
		if (!ok)
			dg->dropped++;
		kgni_dg_unlock(kdev, flags);
		WRITE_ONCE(copy[1], 0);
		dg->rx_next = (i + 1) % KGNI_DG_RX_SLOTS;
		/* Descriptor i is free again: post up to it. */
		writeq(i, kgni_dg_rxc(kdev, 3));
	}
}

void kgni_dg_work(struct work_struct *work)
{
	struct kgni_dev *kdev = container_of(to_delayed_work(work),
					     struct kgni_dev, dg_work);
	struct kgni_dgrams *dg;
	unsigned long flags;
	unsigned int out;
	bool again;

	mutex_lock(&kdev->dp_lock);
	/* Set under dp_lock too: either lock may read them. */
	if (!kdev->dg || kdev->dg->stopped) {
		mutex_unlock(&kdev->dp_lock);
		return;
	}
	kgni_dg_rx(kdev);
	dg = kgni_dg_lock(kdev, true, &flags);
	out = kgni_dg_tx_reap(kdev);
	kgni_dg_flush(kdev);
	again = out || !list_empty(&dg->backlog);
	kgni_dg_unlock(kdev, flags);
	mutex_unlock(&kdev->dp_lock);
	/*
	 * Interrupts tell of ends; a slow poll covers the rest.  Queued, not
	 * modified: a send made meanwhile may have asked for a run at once.
	 */
	if (again)
		queue_delayed_work(system_wq, &kdev->dg_work,
				   msecs_to_jiffies(KGNI_DG_POLL_MS));
}

/**
 * kgni_dg_irq() - an interrupt of the kernel's BTE channel
 * @kdev: the device
 * @vector: the MSI-X vector
 *
 * Schedules the work unless the service has stopped, which is looked at
 * under dg_lock: once kgni_dg_stop() has set it, nothing schedules the
 * work again, so its wait for the work is the last.
 *
 * Context: hard interrupt.
 */
void kgni_dg_irq(struct kgni_dev *kdev, unsigned int vector)
{
	struct kgni_dgrams *dg;
	unsigned long flags;

	if (vector != KGNI_DG_RX_VECTOR && vector != KGNI_DG_TX_VECTOR)
		return;
	dg = kgni_dg_lock(kdev, false, &flags);
	if (dg && !dg->stopped)
		mod_delayed_work(system_wq, &kdev->dg_work, 0);
	kgni_dg_unlock(kdev, flags);
}

/**
 * kgni_dg_init() - start the datagram service
 * @kdev: the device, at probe, its BTE started (kgni_bte_map())
 *
 * Gives RX channel 3 its ring of buffers and turns on the interrupts of
 * the kernel's channel.
 *
 * Context: dp_lock held; takes dg_lock.
 * Return: 0 or -ENOMEM.
 */
int kgni_dg_init(struct kgni_dev *kdev)
{
	struct device *dev = &kdev->pdev->dev;
	struct kgni_dgrams *dg;
	unsigned int i;

	dg = kzalloc(sizeof(*dg), GFP_KERNEL);
	if (!dg)
		return -ENOMEM;
	INIT_LIST_HEAD(&dg->posts);
	INIT_LIST_HEAD(&dg->queued);
	INIT_LIST_HEAD(&dg->backlog);
	dg->pe = kgni_rd(kdev, VGEMINI_CTL_NODE_PE);
	spin_lock_irq(&kdev->dg_lock);
	kdev->dg = dg;
	spin_unlock_irq(&kdev->dg_lock);
	dg->tx_buf = dma_alloc_coherent(dev, GEMINI_NUM_BTE_TX * KGNI_DG_BUF,
					&dg->tx_dma, GFP_KERNEL);
	dg->rx_buf = dma_alloc_coherent(dev, KGNI_DG_RX_SLOTS * KGNI_DG_BUF,
					&dg->rx_dma, GFP_KERNEL);
	dg->rx_copy = dma_alloc_coherent(dev, KGNI_DG_RX_SLOTS *
					 GEMINI_BTE_RX_COPY_BYTES,
					 &dg->rx_copy_dma, GFP_KERNEL);
	if (!dg->tx_buf || !dg->rx_buf || !dg->rx_copy)
		return -ENOMEM;

	writeq((u64)KGNI_DG_RX_SLOTS << GEMINI_BTE_RING_FIELD(KGNI_DG_VC),
	       kdev->bte_rx + (GEMINI_MMR_BTE_RX_RING_COUNT -
			       GEMINI_MMR_BTE_RX_DESC));
	writeq(0, kdev->bte_rx + (GEMINI_MMR_BTE_RX_RING_BASE -
				  GEMINI_MMR_BTE_RX_DESC));
	writeq(dg->rx_copy_dma, kgni_dg_rxc(kdev, 1));
	for (i = 0; i < KGNI_DG_RX_SLOTS; i++)
		writeq((dg->rx_dma + i * KGNI_DG_BUF) |
		       ((u64)GEMINI_BTE_RX_IRQ_ENABLE << GEMINI_BTE_RX_MODE_SHIFT),
		       kdev->bte_rx + (GEMINI_MMR_BTE_RX_ENTRY(i) -
				       GEMINI_MMR_BTE_RX_DESC));
	writeq(KGNI_DG_BUF |
	       ((u64)(GEMINI_BTE_RXC_RESET | GEMINI_BTE_RXC_ENABLE |
		      GEMINI_BTE_RXC_IRQ_ENABLE) << GEMINI_BTE_RXC_FLAGS_SHIFT),
	       kgni_dg_rxc(kdev, 0));
	/* Every descriptor but the one before the read index */
	writeq(KGNI_DG_RX_SLOTS - 1, kgni_dg_rxc(kdev, 3));
	WRITE_ONCE(kdev->dg_on, true);
	return 0;
}

/**
 * kgni_dg_stop() - stop sending and receiving, at remove
 * @kdev: the device
 *
 * Once stopped (under dg_lock), no message is sent and nothing schedules
 * the work; the work ends and every waiter is woken.  The datagrams stay
 * until kgni_dg_fini(): a cancel ends its datagram TERMINATED at once.
 *
 * Context: process context; takes dp_lock and dg_lock.
 */
void kgni_dg_stop(struct kgni_dev *kdev)
{
	struct kgni_dgrams *dg;
	unsigned long flags;

	mutex_lock(&kdev->dp_lock);
	dg = kgni_dg_lock(kdev, true, &flags);
	WRITE_ONCE(kdev->dg_on, false);
	if (dg)
		dg->stopped = true;
	kgni_dg_unlock(kdev, flags);
	mutex_unlock(&kdev->dp_lock);
	cancel_delayed_work_sync(&kdev->dg_work);
	wake_up_all(&kdev->dg_wq);
}

/**
 * kgni_dg_fini() - free the datagram service
 * @kdev: the device, at remove after kgni_dg_stop() (no file holds a
 *        post any more) or at a failed probe
 *
 * The service leaves kdev->dg under dg_lock before anything is freed: a
 * kernel client's call that holds dg_lock meanwhile is done with it
 * first, and those that come after find none (-ENODEV).
 *
 * Context: dp_lock held; takes dg_lock.
 */
void kgni_dg_fini(struct kgni_dev *kdev)
{
	struct device *dev = &kdev->pdev->dev;
	struct kgni_dg_req *q, *qn;
	struct kgni_dg_out *o, *on;
	struct kgni_dgrams *dg;
	struct kgni_dg *p, *pn;
	unsigned long flags;

	dg = kgni_dg_lock(kdev, true, &flags);
	WRITE_ONCE(kdev->dg_on, false);
	if (dg)
		dg->stopped = true;
	kdev->dg = NULL;
	kgni_dg_unlock(kdev, flags);
	if (!dg)
		return;
	list_for_each_entry_safe(p, pn, &dg->posts, node) {
		list_del(&p->node);
		kfree(p);
	}
	list_for_each_entry_safe(q, qn, &dg->queued, node)
		kfree(q);
	list_for_each_entry_safe(o, on, &dg->backlog, node)
		kfree(o);
	if (dg->tx_buf)
		dma_free_coherent(dev, GEMINI_NUM_BTE_TX * KGNI_DG_BUF,
				  dg->tx_buf, dg->tx_dma);
	if (dg->rx_buf)
		dma_free_coherent(dev, KGNI_DG_RX_SLOTS * KGNI_DG_BUF,
				  dg->rx_buf, dg->rx_dma);
	if (dg->rx_copy)
		dma_free_coherent(dev, KGNI_DG_RX_SLOTS *
				  GEMINI_BTE_RX_COPY_BYTES, dg->rx_copy,
				  dg->rx_copy_dma);
	kfree(dg);
}

/*
 * Drop post @p without waiting (dg_lock held): a pending one whose REQ
 * went out is cancelled at its peer, whose answer then finds nothing.
 */
static void kgni_dg_discard(struct kgni_dev *kdev, struct kgni_dg *p)
{
	struct kgni_dg_in m;

	if (p->state == KGNI_DGRAM_PENDING && p->req_sent && !p->cancelling) {
		kgni_dg_msg_of(kdev, p, KGNI_DG_CANCEL, p->peer_inst, &m);
		m.xid = p->xid;
		kgni_dg_send(kdev, p->peer_pe, &m, 0);
	}
	list_del(&p->node);
	kfree(p);
}

/**
 * kgni_dg_dom_release() - drop a domain's datagrams
 * @kdev: the device
 * @dom: the domain, being torn down
 *
 * A pending one whose REQ went out is cancelled at its peer.
 *
 * Context: dp_lock held; takes dg_lock.
 */
void kgni_dg_dom_release(struct kgni_dev *kdev, struct kgni_dom *dom)
{
	struct kgni_dg *p, *next;
	struct kgni_dgrams *dg;
	unsigned long flags;

	dg = kgni_dg_lock(kdev, true, &flags);
	if (dg) {
		list_for_each_entry_safe(p, next, &dg->posts, node)
			if (p->dom == dom)
				kgni_dg_discard(kdev, p);
	}
	kgni_dg_unlock(kdev, flags);
	wake_up_all(&kdev->dg_wq);
}

/* Ioctls */

/* What an ioctl's KGNI_DGRAM_BY_ID flag names a datagram by */
static unsigned int kgni_dg_by(u32 flags)
{
	return flags & KGNI_DGRAM_BY_ID ? KGNI_DG_BY_ID : KGNI_DG_BY_KEY;
}

/*
 * The domain's datagram named by @key, by @id or by both, as @by says
 * (KGNI_DG_BY_*); NULL if none.  Keys and ids are the domain's: another
 * domain's datagram is never found.  dg_lock held.
 */
static struct kgni_dg *kgni_dg_find(struct kgni_dev *kdev,
				    struct kgni_dom *dom, unsigned int by,
				    u64 key, u64 id)
{
	struct kgni_dg *p;

	if ((by & KGNI_DG_BY_ID) && id == ~0ull)
		return NULL;
	list_for_each_entry(p, &kdev->dg->posts, node)
		if (p->dom == dom &&
		    (!(by & KGNI_DG_BY_KEY) || p->key == key) &&
		    (!(by & KGNI_DG_BY_ID) || p->id == id))
			return p;
	return NULL;
}

/*
 * The first queued REQ post @p takes, out of the queue; NULL if none
 * (dg_lock held).
 */
static struct kgni_dg_req *kgni_dg_dequeue(struct kgni_dev *kdev,
					   const struct kgni_dg *p)
{
	struct kgni_dg_req *q;

	list_for_each_entry(q, &kdev->dg->queued, node) {
		if (kgni_dg_accepts(kdev, p, &q->m) &&
		    !kgni_dg_tie_waits(kdev, &q->m)) {
			list_del(&q->node);
			kdev->dg->nqueued--;
			return q;
		}
	}
	return NULL;
}

/**
 * kgni_dg_post() - post a datagram of the domain's CDM
 * @kdev: the device
 * @dom: the domain
 * @key: the caller's name for its endpoint: at most one datagram per key
 *       until it is collected
 * @id: the caller's datagram id, or ~0 for none
 * @bound: only (@peer_pe, @peer_inst) matches, and the datagram is sent
 *         there at once; else a wildcard
 * @peer_pe: @bound: the peer's PE
 * @peer_inst: @bound: the peer's inst_id
 * @data: the data to send, copied
 * @len: its bytes, 0 to KGNI_DGRAM_MAX_DATA
 * @out_buf: a kernel client's buffer of @buf_size bytes, which the
 *           kgni_dg_test() that collects the datagram fills; NULL for a
 *           file, whose test names a buffer of its own
 * @buf_size: bytes of the peer's data the caller will take
 *
 * A bound post's REQ goes into a TX slot before this returns, unless
 * earlier messages wait for the work (the backlog) or the ring is full.
 *
 * Context: process context, may sleep; ctl_rwsem held for reading with
 * the device alive; takes dp_lock, then dg_lock.
 * Return: 0, -EMSGSIZE past KGNI_DGRAM_MAX_DATA, -ENOMEM, -EPERM without
 * a CDM, -ENOLINK once the domain's job was released, -ENODEV without
 * the datagram service, -EBUSY while @key has a datagram not collected,
 * -ENOSPC past the domain's KGNI_DGRAM_MAX_POSTS, -EDQUOT past its job's
 * kgni_job_dgrams (a file's).
 */
int kgni_dg_post(struct kgni_dev *kdev, struct kgni_dom *dom, u64 key,
		 u64 id, bool bound, u32 peer_pe, u32 peer_inst,
		 const void *data, u16 len, void *out_buf, u16 buf_size)
{
	struct kgni_dgrams *dg;
	unsigned int mine = 0, job = 0;
	struct kgni_dg *p, *o;
	struct kgni_dg_req *q;
	unsigned long flags;
	struct kgni_dg_in m;
	int ret;

	if (len > KGNI_DGRAM_MAX_DATA)
		return -EMSGSIZE;
	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	memcpy(p->data, data, len);
	p->len = len;
	p->buf_size = buf_size;
	p->out_buf = out_buf;
	p->key = key;
	p->id = id;
	p->bound = bound;
	p->peer_pe = peer_pe;
	p->peer_inst = peer_inst;
	p->state = KGNI_DGRAM_PENDING;
	p->dom = dom;

	mutex_lock(&kdev->dp_lock);
	dg = kgni_dg_lock(kdev, true, &flags);
	ret = kgni_dom_usable(dom);
	if (!ret && (!dg || dg->stopped))
		ret = -ENODEV;
	if (ret)
		goto err;
	ret = -EBUSY;
	if (kgni_dg_find(kdev, dom, KGNI_DG_BY_KEY, key, 0))
		goto err;
	list_for_each_entry(o, &dg->posts, node) {
		mine += o->dom == dom;
		job += kgni_dom_same_job(o->dom, dom);
	}
	ret = -ENOSPC;
	if (mine >= KGNI_DGRAM_MAX_POSTS)
		goto err;
	ret = -EDQUOT;
	if (!dom->kernel && job >= READ_ONCE(kgni_job_dgrams))
		goto err;
	p->xid = ++dg->next_xid;
	list_add_tail(&p->node, &dg->posts);
	q = kgni_dg_dequeue(kdev, p);
	if (q) {
		/* Its peer's datagram came first. */
		kgni_dg_answer(kdev, p, &q->m);
		kfree(q);
	} else if (p->bound) {
		p->req_sent = true;
		kgni_dg_msg_of(kdev, p, KGNI_DG_REQ, p->peer_inst, &m);
		m.xid = p->xid;
		kgni_dg_send(kdev, p->peer_pe, &m, 0);
	}
	kgni_dg_unlock(kdev, flags);
	mutex_unlock(&kdev->dp_lock);
	return 0;

err:
	kgni_dg_unlock(kdev, flags);
	mutex_unlock(&kdev->dp_lock);
	kfree(p);
	return ret;
}

/**
 * kgni_ioctl_dgram_post() - KGNI_IOC_DGRAM_POST
 * @ucmd: the call; @ucmd->cmd is a struct kgni_dgram_post
 *
 * Return: 0, or an errno of the kernel-doc of struct kgni_dgram_post.
 */
int kgni_ioctl_dgram_post(struct kgni_ucmd *ucmd)
{
	struct kgni_dgram_post *cmd = ucmd->cmd;
	u8 data[KGNI_DGRAM_MAX_DATA];

	if (cmd->flags & ~KGNI_DGRAM_BOUND || cmd->reserved)
		return -EINVAL;
	if (cmd->data_len > KGNI_DGRAM_MAX_DATA)
		return -EMSGSIZE;
	if (copy_from_user(data, u64_to_user_ptr(cmd->data), cmd->data_len))
		return -EFAULT;
	return kgni_dg_post(ucmd->kdev, &ucmd->kfile->dom, cmd->ep_key,
			    cmd->id, cmd->flags & KGNI_DGRAM_BOUND,
			    cmd->peer_pe, cmd->peer_inst, data, cmd->data_len,
			    NULL, cmd->buf_size);
}

static bool kgni_dg_changed(struct kgni_dev *kdev, u64 seen)
{
	return READ_ONCE(kdev->dg_ended) != seen || READ_ONCE(kdev->gone) ||
	       !READ_ONCE(kdev->dg_on);
}

/*
 * A kernel thread that kthread_stop() is stopping: its wait ends, as a
 * timeout, so that a client whose teardown cancels its wildcard (which
 * then ends no wait: kgni_dg_cancel()) and stops the thread waiting in
 * gni_postdata_probe_wait_by_id() is not left waiting for ever.
 */
static bool kgni_dg_kthread_stops(void)
{
	return (current->flags & PF_KTHREAD) && kthread_should_stop();
}

/*
 * With dg_lock held (taken with @flags): drop it and wait up to *@left
 * jiffies (MAX_SCHEDULE_TIMEOUT: for ever) for any datagram of the device
 * to end, or for remove.  0 (look again, after taking dg_lock), -EINTR,
 * -ENODEV, or -ETIMEDOUT for a kernel thread being stopped; *@left what
 * is left.  A kernel client (@dom->kernel) waits
 * without signals, as TASK_IDLE: its thread's signals are not its
 * caller's to take, and a wait for ever is not a hung task.  The count
 * is read under dg_lock, so no end after it is missed.
 */
static int kgni_dg_unlock_wait(struct kgni_dev *kdev,
			       const struct kgni_dom *dom, long *left,
			       unsigned long flags)
	__releases(&kdev->dg_lock)
{
	u64 seen = kdev->dg_ended;
	bool kernel = dom->kernel;
	long r;

	kgni_dg_unlock(kdev, flags);
	might_sleep();
	if (READ_ONCE(kdev->gone) || !READ_ONCE(kdev->dg_on))
		return -ENODEV;
	if (kernel) {
		r = wait_event_idle_timeout(kdev->dg_wq,
					    kgni_dg_changed(kdev, seen) ||
					    kgni_dg_kthread_stops(),
					    *left);
		if (kgni_dg_kthread_stops())
			return -ETIMEDOUT;
	} else {
		r = wait_event_interruptible_timeout(kdev->dg_wq,
						     kgni_dg_changed(kdev,
								     seen),
						     *left);
	}
	if (r < 0)
		return -EINTR;
	*left = *left == MAX_SCHEDULE_TIMEOUT ? *left : r;
	return 0;
}

static long kgni_dg_timeout(u32 ms)
{
	return ms == KGNI_DGRAM_FOREVER ? MAX_SCHEDULE_TIMEOUT :
					  (long)msecs_to_jiffies(ms);
}

/* What a test or probe tells of datagram @p (dg_lock held) */
static void kgni_dg_result_of(const struct kgni_dg *p,
			      struct kgni_dg_result *res)
{
	bool done = p->state == KGNI_DGRAM_COMPLETED;

	res->state = p->state;
	res->key = p->key;
	res->id = p->id;
	res->remote_pe = done ? p->remote_pe : 0;
	res->remote_inst = done ? p->remote_inst : 0;
	res->recv_len = done ? p->recv_len : 0;
	res->copied = 0;
	res->bound = p->bound;
	res->peer_pe = p->peer_pe;
	res->peer_inst = p->peer_inst;
}

/**
 * kgni_dg_test() - the state of a datagram of the domain; collect it if ended
 * @kdev: the device
 * @dom: the domain
 * @by: KGNI_DG_BY_KEY, KGNI_DG_BY_ID or both: what names the datagram
 * @key: as posted
 * @id: as posted (KGNI_DG_BY_ID; ~0 names none)
 * @timeout_ms: 0 to look at once, else wait up to this long for the
 *              datagram to end (KGNI_DGRAM_FOREVER: no limit)
 * @res: its state; COMPLETED: its peer and the length of the peer's data
 * @buf: room for KGNI_DGRAM_MAX_DATA bytes; COMPLETED: the first
 *       @res->copied bytes of the peer's data (at most the post's
 *       buf_size), unless the post has an out_buf, which gets them
 *       instead (@buf may then be NULL)
 *
 * A datagram that has ended (COMPLETED, TIMEOUT, TERMINATED) is collected:
 * its key is free again.
 *
 * Context: with @timeout_ms 0 any context (the device referenced: a file
 * or a kernel NIC holds it); else process context, may sleep (dropping
 * dg_lock while it waits), ctl_rwsem held for reading with the device
 * alive.  Takes dg_lock.
 * Return: 0, -ENOENT if there is no such datagram, -ETIMEDOUT when the
 * wait ran out (the datagram is still PENDING), -EINTR, -ENODEV without
 * the datagram service or once remove has begun.
 */
int kgni_dg_test(struct kgni_dev *kdev, struct kgni_dom *dom,
		 unsigned int by, u64 key, u64 id, u32 timeout_ms,
		 struct kgni_dg_result *res, void *buf)
{
	long left = kgni_dg_timeout(timeout_ms);
	struct kgni_dgrams *dg;
	unsigned long flags;
	struct kgni_dg *p;
	int ret;

	for (;;) {
		dg = kgni_dg_lock(kdev, false, &flags);
		ret = dg ? 0 : -ENODEV;
		p = ret ? NULL : kgni_dg_find(kdev, dom, by, key, id);
		if (!ret && !p)
			ret = -ENOENT;
		if (ret || p->state != KGNI_DGRAM_PENDING || !timeout_ms ||
		    !left)
			break;
		ret = kgni_dg_unlock_wait(kdev, dom, &left, flags);
		if (ret)
			return ret;
	}
	if (ret) {
		kgni_dg_unlock(kdev, flags);
		return ret;
	}
	kgni_dg_result_of(p, res);
	if (p->state == KGNI_DGRAM_COMPLETED) {
		res->copied = min(p->recv_len, p->buf_size);
		if (res->copied)
			memcpy(p->out_buf ?: buf, p->recv, res->copied);
	}
	if (p->state != KGNI_DGRAM_PENDING) {
		/* Collected */
		list_del(&p->node);
		kfree(p);
	}
	kgni_dg_unlock(kdev, flags);
	if (res->state == KGNI_DGRAM_PENDING && timeout_ms)
		return -ETIMEDOUT;
	return 0;
}

/**
 * kgni_ioctl_dgram_test() - KGNI_IOC_DGRAM_TEST
 * @ucmd: the call; @ucmd->cmd is a struct kgni_dgram_test
 *
 * Return: 0, or an errno of the kernel-doc of struct kgni_dgram_test.
 */
int kgni_ioctl_dgram_test(struct kgni_ucmd *ucmd)
{
	struct kgni_dgram_test *cmd = ucmd->cmd;
	u8 recv[KGNI_DGRAM_MAX_DATA];
	struct kgni_dg_result res;
	int ret;

	if (cmd->flags & ~KGNI_DGRAM_BY_ID || cmd->reserved ||
	    cmd->reserved16)
		return -EINVAL;
	ret = kgni_dg_test(ucmd->kdev, &ucmd->kfile->dom,
			   kgni_dg_by(cmd->flags), cmd->ep_key, cmd->id,
			   cmd->timeout_ms, &res, recv);
	if (ret)
		return ret;
	if (res.copied &&
	    copy_to_user(u64_to_user_ptr(cmd->buf), recv, res.copied))
		return -EFAULT;
	cmd->state = res.state;
	cmd->remote_pe = res.remote_pe;
	cmd->remote_inst = res.remote_inst;
	cmd->recv_len = res.recv_len;
	return kgni_ucmd_respond(ucmd, sizeof(*cmd));
}

/**
 * kgni_dg_probe() - the domain's first datagram that has ended
 * @kdev: the device
 * @dom: the domain
 * @timeout_ms: as for kgni_dg_test()
 * @res: its state, key and id; COMPLETED: its peer and the length of the
 *       peer's data
 *
 * The first in the order they ended of those not collected yet; it stays
 * until kgni_dg_test() collects it.
 *
 * Context: as kgni_dg_test(): any with @timeout_ms 0.  Takes dg_lock.
 * Return: 0, -ENOENT if there is none, -ETIMEDOUT when the wait ran out,
 * -EINTR, -ENODEV without the datagram service or once remove has begun.
 */
int kgni_dg_probe(struct kgni_dev *kdev, struct kgni_dom *dom,
		  u32 timeout_ms, struct kgni_dg_result *res)
{
	long left = kgni_dg_timeout(timeout_ms);
	struct kgni_dg *p, *first;
	struct kgni_dgrams *dg;
	unsigned long flags;
	int ret;

	for (;;) {
		first = NULL;
		dg = kgni_dg_lock(kdev, false, &flags);
		if (!dg) {
			kgni_dg_unlock(kdev, flags);
			return -ENODEV;
		}
		list_for_each_entry(p, &dg->posts, node)
			if (p->dom == dom &&
			    p->state != KGNI_DGRAM_PENDING &&
			    (!first || p->ended < first->ended))
				first = p;
		if (first || !timeout_ms || !left)
			break;
		ret = kgni_dg_unlock_wait(kdev, dom, &left, flags);
		if (ret)
			return ret;
	}
	if (first)
		kgni_dg_result_of(first, res);
	kgni_dg_unlock(kdev, flags);
	if (!first)
		return timeout_ms ? -ETIMEDOUT : -ENOENT;
	return 0;
}

/**
 * kgni_ioctl_dgram_probe() - KGNI_IOC_DGRAM_PROBE
 * @ucmd: the call; @ucmd->cmd is a struct kgni_dgram_probe
 *
 * Return: 0, or an errno of the kernel-doc of struct kgni_dgram_probe.
 */
int kgni_ioctl_dgram_probe(struct kgni_ucmd *ucmd)
{
	struct kgni_dgram_probe *cmd = ucmd->cmd;
	struct kgni_dg_result res;
	int ret;

	if (cmd->flags)
		return -EINVAL;
	ret = kgni_dg_probe(ucmd->kdev, &ucmd->kfile->dom, cmd->timeout_ms,
			    &res);
	if (ret)
		return ret;
	cmd->state = res.state;
	cmd->ep_key = res.key;
	cmd->id = res.id;
	cmd->remote_pe = res.remote_pe;
	cmd->remote_inst = res.remote_inst;
	return kgni_ucmd_respond(ucmd, sizeof(*cmd));
}

/**
 * kgni_dg_cancel() - cancel a pending datagram of the domain
 * @kdev: the device
 * @dom: the domain
 * @by: as for kgni_dg_test()
 * @key: as posted
 * @id: as posted (KGNI_DG_BY_ID; ~0 names none)
 * @drop_unsent: a wildcard that nothing matched is dropped at once, not
 *               ended: no test or probe finds it any more (a kernel
 *               client's, as Cray's kgni does: gnilnd counts on it)
 *
 * It ends TERMINATED, to be collected by kgni_dg_test().  If it sent a
 * REQ, it ends once its peer has dropped the REQ (TERMINATED), or with
 * the peer's data (COMPLETED) if the peer had matched the REQ already:
 * until then a test sees it PENDING.  To this node's own PE that is over
 * before this returns (the messages are handled at once); to another the
 * CANCEL is left to the work, which sends it after whatever was sent
 * before it.
 *
 * Context: any (the device referenced: a file or a kernel NIC holds it).
 * Takes dg_lock.
 * Return: 0, -ENOENT if there is no such datagram, -EALREADY if it has
 * ended (not collected yet) or was cancelled already, -ENODEV without the
 * datagram service.
 */
int kgni_dg_cancel(struct kgni_dev *kdev, struct kgni_dom *dom,
		   unsigned int by, u64 key, u64 id, bool drop_unsent)
{
	struct kgni_dgrams *dg;
	unsigned long flags;
	struct kgni_dg_in m;
	struct kgni_dg *p;
	int ret = -ENOENT;

	dg = kgni_dg_lock(kdev, false, &flags);
	if (!dg) {
		ret = -ENODEV;
		goto out;
	}
	p = kgni_dg_find(kdev, dom, by, key, id);
	if (!p)
		goto out;
	ret = -EALREADY;
	if (p->state != KGNI_DGRAM_PENDING || p->cancelling)
		goto out;
	ret = 0;
	if (!p->req_sent && drop_unsent) {
		kgni_dg_discard(kdev, p);
		goto out;
	}
	if (!p->req_sent || dg->stopped) {
		kgni_dg_end(kdev, p, KGNI_DGRAM_TERMINATED);
		goto out;
	}
	/* To itself, the ACK comes back at once and ends it. */
	p->cancelling = true;
	kgni_dg_msg_of(kdev, p, KGNI_DG_CANCEL, p->peer_inst, &m);
	m.xid = p->xid;
	kgni_dg_send(kdev, p->peer_pe, &m, 0);
out:
	kgni_dg_unlock(kdev, flags);
	return ret;
}

/**
 * kgni_dg_drop() - drop the datagram a key names, whatever its state
 * @kdev: the device
 * @dom: the domain
 * @key: as posted
 *
 * For a kernel endpoint's destruction, after which nothing may collect
 * its datagram or write its out_buf: a pending one whose REQ went out is
 * cancelled at its peer without waiting for the answer, as when a domain
 * is torn down.
 *
 * Context: any (the device referenced); takes dg_lock.
 */
void kgni_dg_drop(struct kgni_dev *kdev, struct kgni_dom *dom, u64 key)
{
	struct kgni_dgrams *dg;
	struct kgni_dg *p = NULL;
	unsigned long flags;

	dg = kgni_dg_lock(kdev, false, &flags);
	if (dg)
		p = kgni_dg_find(kdev, dom, KGNI_DG_BY_KEY, key, 0);
	if (p)
		kgni_dg_discard(kdev, p);
	kgni_dg_unlock(kdev, flags);
}

/**
 * kgni_ioctl_dgram_cancel() - KGNI_IOC_DGRAM_CANCEL
 * @ucmd: the call; @ucmd->cmd is a struct kgni_dgram_cancel
 *
 * Return: 0, -EINVAL, or an errno of kgni_dg_cancel() (-ENOENT for its
 * -EALREADY).
 */
int kgni_ioctl_dgram_cancel(struct kgni_ucmd *ucmd)
{
	struct kgni_dgram_cancel *cmd = ucmd->cmd;

	int ret;

	if (cmd->flags & ~KGNI_DGRAM_BY_ID)
		return -EINVAL;
	ret = kgni_dg_cancel(ucmd->kdev, &ucmd->kfile->dom,
			     kgni_dg_by(cmd->flags), cmd->ep_key, cmd->id,
			     false);
	/* The ABI's ENOENT: nothing pending to cancel */
	return ret == -EALREADY ? -ENOENT : ret;
}
