/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The shared message queue (MSGQ, ugni-api.md §15.8, §16.7, §17.7): the
 * ranks of a node share one queue in hugetlbfs memory; a remote node's
 * ranks write messages into it with FMA PUTs, and GNI_MsgqProgress hands
 * each to its rank's callback.  No system call on send or receive (but
 * a blocking GNI_MsgqProgress that finds nothing sleeps on a CQ).
 *
 * The segment is the file vgemini-msgq-<ptag>-<cookie> of the first
 * hugetlbfs mount in /proc/mounts, made by the node's first rank, mapped
 * MAP_SHARED by every rank and registered by each (huge pages go through
 * the MRT: no GART entry) with a receive CQ of its own.  Its layout, and
 * a slot's, are in uapi/ugni_msgq_wire.h.
 *
 * To send, a rank takes the next ticket of the destination rank's inbox,
 * a compare-and-swap in its own node's segment (all senders into that
 * inbox are on this node), if fewer than smsg_q_sz tickets are
 * unreleased; then PUTs words 1.. and the payload into slot
 * ticket % smsg_q_sz through the destination rank's registration, and
 * the flag with GEMINI_FMA_SYNC_WITH_FLAG (the device writes it once the
 * payload is answered), with a remote event (it wakes a blocking
 * receiver) and a local event of type MSGQ carrying msg_id, on the
 * snd_cq or on the queue's own CQ.  A send whose sequence failed goes
 * again into the same slot (struct msgq_tx, ugni_msgq_event()): its
 * ticket is taken, and the inbox waits for that slot's flag.  A sender
 * that finds the inbox full reads its count (an 8-byte FMA GET into the
 * connection record) and returns GNI_RC_NOT_DONE.  The receiver takes
 * its inbox's slots in ticket order.
 *
 * The lowest rank of a node calls GNI_MsgqGetConnAttrs for a remote node,
 * which reserves a connection record, and GNI_MsgqConnect with what that
 * node's GetConnAttrs said; the other ranks find both in the segment.
 * The segment's file lock (flock) serialises attaching and connecting;
 * a file left by ranks that are all dead is made again.
 *
 * ugni_msgq.c makes the queue and its connections; ugni_msgq_io.c sends
 * and receives.
 */
#ifndef UGNI_MSGQ_H
#define UGNI_MSGQ_H

#include <assert.h>

#include "ugni_msgq_wire.h"
#include "ugni_priv.h"

#define MSGQ_NAME_MAX		256

static_assert(sizeof(struct ugni_msgq_seg) <= UGNI_MSGQ_HDR, "segment header");
static_assert(sizeof(struct ugni_msgq_conn) <= UGNI_MSGQ_CONN_SIZE,
	      "connection");
static_assert(UGNI_MSGQ_INSTS_MAX == GNI_MSGQ_NODE_INSTS_MAX, "ranks");
static_assert(sizeof(((struct ugni_msgq_inst *)0)->mdh) ==
	      sizeof(gni_mem_handle_t), "memory handle");

struct gni_msgq {
	struct gni_nic *nic;
	gni_msgq_rcv_cb_func *cb;
	void *cb_data;
	struct gni_cq *snd_cq;		/* the caller's, or NULL */
	struct gni_cq *own_cq;		/* local events without a snd_cq */
	struct gni_cq *rcv_cq;		/* remote events: wakes Progress */
	struct ugni_fma *fma;		/* local events to snd_cq/own_cq */
	int fd;
	char path[MSGQ_NAME_MAX];
	uint8_t *base;
	struct ugni_msgq_seg *seg;
	uint32_t size;
	uint32_t me;			/* my index in seg->inst */
	gni_mem_handle_t mdh;
	uint32_t slot;			/* bytes per slot of my inboxes */
	uint32_t inbox;			/* bytes per inbox */
	pthread_mutex_t lock;		/* receiving, and the file lock */
	uint32_t next_conn;		/* where the next scan starts */
	uint32_t starved;		/* sends refused for a full inbox */
	struct msgq_tx *txs;		/* sends in flight (nic's lock) */
	uint32_t ntx;
};

/* Offset of connection @c's inbox of local rank @i */
static inline uint64_t inbox_off(const struct gni_msgq *q, uint32_t c,
				 uint32_t i)
{
	return UGNI_MSGQ_HDR + (uint64_t)q->seg->num_eps * UGNI_MSGQ_CONN_SIZE +
	       ((uint64_t)c * q->seg->nloc_insts + i) * q->inbox;
}

static inline struct ugni_msgq_conn *conn_at(const struct gni_msgq *q,
					     uint32_t c)
{
	return (struct ugni_msgq_conn *)(q->base + UGNI_MSGQ_HDR +
					 (uint64_t)c * UGNI_MSGQ_CONN_SIZE);
}

static inline uint32_t conn_state(const struct ugni_msgq_conn *c)
{
	return __atomic_load_n(&c->state, __ATOMIC_ACQUIRE);
}

/* ugni_msgq.c */
int ugni_msgq_conn_find(const struct gni_msgq *q, uint32_t pe,
			uint32_t state);

/* ugni_msgq_io.c */
void ugni_msgq_tx_forget(struct gni_msgq *q);
void ugni_msgq_own_drain(struct gni_msgq *q);

#endif /* UGNI_MSGQ_H */
