// SPDX-License-Identifier: GPL-2.0-only
/*
 * kgni: the datagram protocol (kgni_dgram.c tells the service): the
 * messages the kgnis of the nodes send each other
 * (uapi/kgni_dgram_wire.h), and how they match the posts.
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
 * A kernel client's datagrams (kgni_kdgram.c) are posts of its NIC's kernel
 * domain, in the same lists and the same protocol; their messages say
 * they are a kernel's, and match only a kernel's (kgni_dg_accepts()).
 *
 * The transport (kgni_dgram_xport.c) decodes each message that arrives
 * and hands it to kgni_dg_receive(), under dg.lock as every handler here
 * runs; the protocol's answers leave by kgni_dg_send().  The transport
 * checks a message's source PE (kgni_dgram_xport.c tells why).
 */
#include <linux/slab.h>

#include "kgni_dgram.h"

/* Decode and check a message of @n bytes; false if it is malformed. */
bool kgni_dg_decode(const void *buf, size_t n, struct kgni_dg_in *m)
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

size_t kgni_dg_encode(const struct kgni_dg_in *m, void *buf)
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

/* The fields of a message from post @p, for @dst_inst */
void kgni_dg_msg_of(struct kgni_dev *kdev, const struct kgni_dg *p,
		    enum kgni_dg_type type, u32 dst_inst,
		    struct kgni_dg_in *m)
{
	memset(m, 0, offsetof(struct kgni_dg_in, data));
	m->type = type;
	m->kernel = p->dom->kernel;
	m->ptag = p->dom->ptag;
	m->cookie = p->dom->cookie;
	m->src_pe = kdev->dg.svc->pe;
	m->src_inst = p->dom->inst_id;
	m->dst_inst = dst_inst;
	m->len = type == KGNI_DG_REQ || type == KGNI_DG_REPLY ? p->len : 0;
	memcpy(m->data, p->data, m->len);
}

void kgni_dg_end(struct kgni_dev *kdev, struct kgni_dg *p, u32 state)
{
	p->state = state;
	p->ended = kdev->dg.ended + 1;
	WRITE_ONCE(kdev->dg.ended, p->ended);
	wake_up_all(&kdev->dg.wq);
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
void kgni_dg_answer(struct kgni_dev *kdev, struct kgni_dg *p,
		    const struct kgni_dg_in *m)
{
	bool own = m->src_pe == kdev->dg.svc->pe;
	struct kgni_dg_in r;

	/* A CANCEL that comes after this must not undo it. */
	kgni_dg_tomb_add(kdev->dg.svc, m->src_pe, m->xid, true);
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
	return !(m->src_pe == kdev->dg.svc->pe && m->xid == p->xid);
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

	list_for_each_entry(p, &kdev->dg.svc->posts, node)
		if (p->bound && p->req_sent && kgni_dg_accepts(kdev, p, m) &&
		    kgni_dg_cmp(kdev->dg.svc->pe, p->dom->inst_id, p->xid,
				m->src_pe, m->src_inst, m->xid) > 0)
			return true;
	return false;
}

/*
 * Whether REQ @m, which matched nothing, may wait in the queue: within
 * its sender's share, and out of the kernel's reserve unless a kernel
 * client's (dg.lock held).
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

/* Refuse REQ @m: its sender's post ends ERROR (dg.lock held). */
static void kgni_dg_refuse(struct kgni_dev *kdev, const struct kgni_dg_in *m)
{
	struct kgni_dgrams *dg = kdev->dg.svc;
	struct kgni_dg_in a;

	dg->refused++;
	kgni_dg_answer_of(dg, m, KGNI_DG_NAK, &a);
	kgni_dg_send(kdev, m->src_pe, &a, 0);
}

static void kgni_dg_on_req(struct kgni_dev *kdev, const struct kgni_dg_in *m)
{
	struct kgni_dgrams *dg = kdev->dg.svc;
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
	struct kgni_dgrams *dg = kdev->dg.svc;
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
	struct kgni_dgrams *dg = kdev->dg.svc;
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

	list_for_each_entry(p, &kdev->dg.svc->posts, node)
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
	struct kgni_dg *p = kgni_dg_answered(kdev->dg.svc, m);

	if (p)
		kgni_dg_end(kdev, p, p->cancelling ?
			    KGNI_DGRAM_TERMINATED : KGNI_DGRAM_ERROR);
}

void kgni_dg_receive(struct kgni_dev *kdev, const struct kgni_dg_in *m)
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
void kgni_dg_undelivered(struct kgni_dev *kdev, const struct kgni_dg_tx *t)
{
	struct kgni_dg *p;

	if (t->m.type != KGNI_DG_REQ && t->m.type != KGNI_DG_CANCEL)
		return;
	list_for_each_entry(p, &kdev->dg.svc->posts, node) {
		if (p->state == KGNI_DGRAM_PENDING && p->req_sent &&
		    p->xid == t->m.xid && p->peer_pe == t->pe) {
			kgni_dg_end(kdev, p, p->cancelling ?
				    KGNI_DGRAM_TERMINATED : KGNI_DGRAM_TIMEOUT);
			return;
		}
	}
}

/*
 * The first queued REQ post @p takes, out of the queue; NULL if none
 * (dg.lock held).
 */
struct kgni_dg_req *kgni_dg_dequeue(struct kgni_dev *kdev,
				    const struct kgni_dg *p)
{
	struct kgni_dg_req *q;

	list_for_each_entry(q, &kdev->dg.svc->queued, node) {
		if (kgni_dg_accepts(kdev, p, &q->m) &&
		    !kgni_dg_tie_waits(kdev, &q->m)) {
			list_del(&q->node);
			kdev->dg.svc->nqueued--;
			return q;
		}
	}
	return NULL;
}
