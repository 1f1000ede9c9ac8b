/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kgni: what the files of the datagram service share (kgni_dgram.c
 * describes the service): its state, its posts, and the calls from one
 * role to another.
 *
 *   kgni_dgram_proto.c  the messages (uapi/kgni_dgram_wire.h) and the
 *                       matching protocol: tie-break, tombstones, the
 *                       queue of early REQs, cancel, answers
 *   kgni_dgram_xport.c  their transport on the kernel's BTE channel: TX
 *                       slots, the backlog, the RX ring, the work, the
 *                       interrupts; the service's start and end
 *   kgni_dgram.c        what clients call: post, test, probe, cancel,
 *                       drop, a domain's release, and the ioctls
 */
#ifndef KGNI_DGRAM_H
#define KGNI_DGRAM_H

#include "kgni_dp.h"
#include "kgni_dgram_wire.h"

/* Queued REQs and remembered retired ones, per device */
#define KGNI_DG_MAX_QUEUED	1024
#define KGNI_DG_TOMBSTONES	1024

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

/**
 * struct kgni_dgrams - the device's datagram state (kdev->dg.svc)
 * @posts: every pending or uncollected post of every domain
 * @queued: REQs that matched nothing yet
 * @nqueued: their number
 * @backlog: messages waiting for the work to send them (struct
 *           kgni_dg_out), in the order they were made
 * @pe: this node's PE
 * @stopped: remove has begun: nothing is sent, nor the work scheduled
 * @dp_held: the holder of dg.lock holds dp.lock too: kgni_dg_send() may
 *           write the TX ring
 * @tomb: REQs retired, cancelled or answered: (PE, xid), a ring
 * @tomb_next: the next place in @tomb
 * @tx: the TX channel's slots (dp.lock)
 * @tx_buf: a KGNI_DG_BUF buffer per TX slot (dp.lock)
 * @tx_dma: its bus address
 * @rx_buf: a KGNI_DG_BUF buffer per RX descriptor (dp.lock)
 * @rx_dma: its bus address
 * @rx_copy: the RX descriptors' CPU copies (GEMINI_BTE_RX_COPY_BYTES
 *           each; dp.lock)
 * @rx_copy_dma: its bus address
 * @rx_next: the next RX ring index to read (dp.lock)
 * @next_xid: the last xid given
 * @dropped: messages dropped (malformed, forged, no memory)
 * @forged: of those, messages whose source PE is not the one the network
 *          delivered them from
 * @refused: REQs refused with a NAK (a share of the queue was full)
 *
 * All but what says dp.lock is under &kgni_dg_state.lock; @stopped is set
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
 * Take dg.lock, interrupts off; the service, or NULL if there is none
 * (not set up, or removed: kgni_dg_fini()).  @dp: the caller holds
 * dp.lock too, so that its sends may write the TX ring.
 */
static inline struct kgni_dgrams *kgni_dg_lock(struct kgni_dev *kdev,
					       bool dp, unsigned long *flags)
	__acquires(&kdev->dg.lock)
{
	struct kgni_dgrams *dg;

	spin_lock_irqsave(&kdev->dg.lock, *flags);
	dg = kdev->dg.svc;
	if (dg)
		dg->dp_held = dp;
	return dg;
}

static inline void kgni_dg_unlock(struct kgni_dev *kdev, unsigned long flags)
	__releases(&kdev->dg.lock)
{
	if (kdev->dg.svc)
		kdev->dg.svc->dp_held = false;
	spin_unlock_irqrestore(&kdev->dg.lock, flags);
}

/*
 * kgni_dgram_proto.c.  The transport hands the protocol what arrives
 * (kgni_dg_decode(), kgni_dg_receive()) and what could not be delivered
 * (kgni_dg_undelivered()), and has it encode what leaves
 * (kgni_dg_encode()); the calls of clients make a post's messages
 * (kgni_dg_msg_of()), end posts (kgni_dg_end()), and match a new post
 * against the REQs that came before it (kgni_dg_dequeue(),
 * kgni_dg_answer()) by the same rules as the messages that come after.
 */
bool kgni_dg_decode(const void *buf, size_t n, struct kgni_dg_in *m);
size_t kgni_dg_encode(const struct kgni_dg_in *m, void *buf);
void kgni_dg_receive(struct kgni_dev *kdev, const struct kgni_dg_in *m);
void kgni_dg_undelivered(struct kgni_dev *kdev, const struct kgni_dg_tx *t);
void kgni_dg_msg_of(struct kgni_dev *kdev, const struct kgni_dg *p,
		    enum kgni_dg_type type, u32 dst_inst,
		    struct kgni_dg_in *m);
void kgni_dg_end(struct kgni_dev *kdev, struct kgni_dg *p, u32 state);
void kgni_dg_answer(struct kgni_dev *kdev, struct kgni_dg *p,
		    const struct kgni_dg_in *m);
struct kgni_dg_req *kgni_dg_dequeue(struct kgni_dev *kdev,
				    const struct kgni_dg *p);

/*
 * kgni_dgram_xport.c.  Every message, the protocol's answers and the
 * clients' REQs and CANCELs alike, leaves by the one kgni_dg_send(), so
 * that messages to a node keep the order they were made in.
 */
void kgni_dg_send(struct kgni_dev *kdev, u32 pe,
		  const struct kgni_dg_in *m, unsigned int tries);

#endif /* KGNI_DGRAM_H */
