// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The shared message queue's messages (ugni_msgq.h describes the queue):
 * sending, the sends in flight and their events, and receiving.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gemini_pkt.h"
#include "ugni_msgq.h"

#define MSGQ_OWN_INFLIGHT	128u	/* sends in flight without a snd_cq */
#define MSGQ_PULL_EVERY		8u

/*
 * A send in flight, on its queue's txs list and named by its request
 * (nic->core.lock): what sending it again needs, should its sequence fail.
 */
struct msgq_tx {
	struct msgq_tx *next, *prev;
	struct gni_msgq *q;		/* NULL once the queue is released */
	struct gnicore_ep via;		/* the queue's FMA to the peer */
	uint32_t tid;
	uint32_t conn, rinst;		/* the destination's record */
	uint32_t rem_mdh;
	uint32_t len;			/* bytes of img after the flag */
	uint32_t tries;			/* times sent again */
	uint64_t ticket;
	uint64_t at;			/* its slot, in rem_mdh */
	uint64_t flag;
	uint8_t img[UGNI_MSGQ_SLOT(GNI_MSGQ_MSG_SZ_MAX)];
};

/* --- sends in flight ---------------------------------------------------- */

/* Put @tx on its queue's list.  nic->core.lock held. */
static void tx_link(struct gni_msgq *q, struct msgq_tx *tx)
{
	tx->q = q;
	tx->prev = NULL;
	tx->next = q->txs;
	if (q->txs)
		q->txs->prev = tx;
	q->txs = tx;
	q->ntx++;
}

/* Take @tx off its queue's list, if it is on one.  nic->core.lock held. */
static void tx_unlink(struct msgq_tx *tx)
{
	struct gni_msgq *q = tx->q;

	if (!q)
		return;
	if (tx->prev)
		tx->prev->next = tx->next;
	else
		q->txs = tx->next;
	if (tx->next)
		tx->next->prev = tx->prev;
	q->ntx--;
	tx->q = NULL;
}

/*
 * The queue goes: its sends' requests forget them.  Their events still
 * come to a snd_cq (and free the requests there); own_cq goes with the
 * queue, so the requests of its sends are freed here.
 */
void ugni_msgq_tx_forget(struct gni_msgq *q)
{
	struct gni_nic *nic = q->nic;
	struct msgq_tx *tx;

	pthread_mutex_lock(&nic->core.lock);
	while ((tx = q->txs)) {
		tx_unlink(tx);
		nic->core.req[tx->tid].client = NULL;
		if (!q->snd_cq)
			gnicore_req_free(&nic->core, tx->tid);
		free(tx);
	}
	pthread_mutex_unlock(&nic->core.lock);
}

/* One sending of @tx: its slot's words 1.., then the flag, then events */
static void tx_put(struct msgq_tx *tx)
{
	gnicore_fma_put_flag(&tx->via, tx->img + 8, tx->len, tx->at + 8,
			     tx->rem_mdh, tx->at, tx->flag,
			     GEMINI_FMA_SYNC_WITH_FLAG |
			     GEMINI_FMA_SYNC_REMOTE_EVENT |
			     GEMINI_FMA_SYNC_LOCAL_EVENT,
			     ugni_cqe_data(GNI_CQ_EVENT_TYPE_MSGQ, 0, tx->tid),
			     0);
}

/*
 * The local event @e of send @tx came (GNI_CqGetEvent, its request
 * freed): true if it is not to be seen because the message went again.
 *
 * A failed sequence sends no flag, so its ticket's slot stays empty and
 * the destination's inbox would wait for it for ever: the message goes
 * again into the same slot, up to the NIC's max_retrans times (as SMSG,
 * GNI_SmsgSetMaxRetrans).  Unless it arrived after all: a "CQ error"
 * (OVERRUN) is the remote event's, sent after the flag, and a count read
 * past the ticket says it was taken; then the event reports success.
 * Past max_retrans the inbox is broken: later sends to it are refused
 * with GNI_RC_INVALID_STATE, and the event shows the error.
 */
bool ugni_msgq_event(struct gni_nic *nic, struct msgq_tx *tx,
		     gni_cq_entry_t *e)
{
	unsigned int st = (unsigned int)(*e >> GEMINI_CQE_STATUS_SHIFT &
					 GEMINI_CQE_STATUS_MASK);
	struct gni_msgq *q;
	struct ugni_msgq_rinst *r = NULL;
	bool again = false, arrived = false;
	int tid;

	pthread_mutex_lock(&nic->core.lock);
	q = tx->q;
	if (st && q) {
		r = &conn_at(q, tx->conn)->rem[tx->rinst];
		arrived = st == GEMINI_STATUS_OVERRUN ||
			  __atomic_load_n(&r->released, __ATOMIC_ACQUIRE) >
			  tx->ticket;
		if (!arrived && tx->tries < nic->core.smsg_max_retrans) {
			tid = gnicore_req_alloc(&nic->core, NULL, &tx->via, 0);
			if (tid >= 0) {
				nic->core.req[tid].client = tx;
				tx->tid = (uint32_t)tid;
				tx->tries++;
				again = true;
			}
		}
	}
	if (!again)
		tx_unlink(tx);
	pthread_mutex_unlock(&nic->core.lock);
	if (again) {
		gnicore_stat(&nic->core, GNI_STAT_SMSG_RETRANS_COUNT);
		tx_put(tx);
		return true;
	}
	if (arrived)
		*e &= ~((uint64_t)GEMINI_CQE_STATUS_MASK <<
			GEMINI_CQE_STATUS_SHIFT);
	else if (r)
		__atomic_store_n(&r->broken, 1, __ATOMIC_RELEASE);
	free(tx);
	return false;
}

/* Without a snd_cq: take own_cq's events (sending failed ones again) */
void ugni_msgq_own_drain(struct gni_msgq *q)
{
	gni_cq_entry_t e;

	if (!q->own_cq)
		return;
	while (GNI_CqGetEvent(q->own_cq, &e) != GNI_RC_NOT_DONE)
		;
}

/* Take a ticket of @r, whose inbox has @slots slots; false if it is full */
static bool ticket_take(struct ugni_msgq_rinst *r, uint32_t slots, uint64_t *t)
{
	uint64_t cur = __atomic_load_n(&r->ticket, __ATOMIC_ACQUIRE);

	for (;;) {
		uint64_t rel = __atomic_load_n(&r->released, __ATOMIC_ACQUIRE);

		if (cur - rel >= slots && cur >= rel)
			return false;
		if (__atomic_compare_exchange_n(&r->ticket, &cur, cur + 1,
						false, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE)) {
			*t = cur;
			return true;
		}
	}
}

UGNI_EXPORT gni_return_t GNI_MsgqSend(gni_msgq_handle_t msgq_hndl,
				      gni_ep_handle_t ep_hndl, void *hdr,
				      uint32_t hdr_len, void *msg,
				      uint32_t msg_len, uint32_t msg_id,
				      uint8_t msg_tag)
{
	struct gni_msgq *q = msgq_hndl;
	struct gni_ep *ep = ep_hndl;
	uint64_t total = (uint64_t)hdr_len + msg_len, word;
	struct gni_nic *nic;
	struct ugni_msgq_conn *k;
	struct ugni_msgq_rinst *r;
	struct msgq_tx *tx;
	bool room;
	uint32_t j;
	int c, tid;

	/* The codes as gni_pub.h gives them */
	if (!q || !ep || ugni_ep_nic(ep) != q->nic || (hdr_len && !hdr) ||
	    (msg_len && !msg))
		return GNI_RC_INVALID_PARAM;
	if (total > q->seg->max_msg_sz)
		return GNI_RC_SIZE_ERROR;
	if (!ep->core.bound)
		return GNI_RC_NO_MATCH;
	c = ugni_msgq_conn_find(q, ep->core.remote_pe,
				UGNI_MSGQ_CONN_CONNECTED);
	if (c < 0)	/* being connected: resources, not active yet */
		return ugni_msgq_conn_find(q, ep->core.remote_pe,
					   UGNI_MSGQ_CONN_RESERVED) < 0 ?
		       GNI_RC_NO_MATCH : GNI_RC_INVALID_STATE;
	k = conn_at(q, (uint32_t)c);
	if (total > k->rem_max)
		return GNI_RC_SIZE_ERROR;
	for (j = 0; j < k->nrem && j < GNI_MSGQ_NODE_INSTS_MAX; j++)
		if (k->rem[j].id == ep->core.remote_id)
			break;
	if (j == k->nrem || j == GNI_MSGQ_NODE_INSTS_MAX)
		return GNI_RC_NO_MATCH;	/* not a rank of its queue */
	r = &k->rem[j];
	if (__atomic_load_n(&r->broken, __ATOMIC_ACQUIRE))
		return GNI_RC_INVALID_STATE;
	nic = q->nic;
	ugni_msgq_own_drain(q);
	tx = malloc(sizeof(*tx));
	if (!tx)
		return GNI_RC_ERROR_NOMEM;
	/* The FMA of the MSGQ's CQ, to the endpoint's peer */
	tx->via = (struct gnicore_ep){ .nic = &nic->core, .fma = &q->fma->core,
				       .remote_pe = ep->core.remote_pe,
				       .remote_id = ep->core.remote_id,
				       .local_event = msg_id, .bound = true };
	pthread_mutex_lock(&nic->core.lock);
	/* own_cq must not overrun: its events free the requests */
	room = q->snd_cq || q->ntx < MSGQ_OWN_INFLIGHT;
	tid = room ? gnicore_req_alloc(&nic->core, NULL, &tx->via, 0) : -1;
	if (tid >= 0) {
		nic->core.req[tid].client = tx;
		tx->tid = (uint32_t)tid;
		tx_link(q, tx);
	}
	pthread_mutex_unlock(&nic->core.lock);
	if (tid < 0) {
		free(tx);
		return room ? GNI_RC_ERROR_RESOURCE : GNI_RC_NOT_DONE;
	}
	if (!ticket_take(r, k->rem_q, &tx->ticket)) {
		pthread_mutex_lock(&nic->core.lock);
		tx_unlink(tx);
		gnicore_req_free(&nic->core, tx->tid);
		pthread_mutex_unlock(&nic->core.lock);
		/* Read how many it released, now and then. */
		if (__atomic_fetch_add(&q->starved, 1, __ATOMIC_RELAXED) %
		    MSGQ_PULL_EVERY == 0)
			gnicore_fma_get8(&tx->via,
					 (uint64_t)((uint8_t *)&r->released -
						    q->base),
					 GNI_MEMHNDL_GET_MDH(q->mdh), r->off,
					 r->mdh,
					 ugni_cqe_data(GNI_CQ_EVENT_TYPE_MSGQ,
						       0, UGNI_TID_NONE), 0);
		free(tx);
		return GNI_RC_NOT_DONE;
	}
	tx->conn = (uint32_t)c;
	tx->rinst = j;
	tx->rem_mdh = r->mdh;
	tx->len = (uint32_t)(8 + total);
	tx->tries = 0;
	tx->flag = (tx->ticket + 1) << 32 | (uint64_t)msg_tag << 8 |
		   UGNI_MSGQ_MAGIC;
	tx->at = r->off + UGNI_MSGQ_INBOX_HDR +
		 tx->ticket % k->rem_q * UGNI_MSGQ_SLOT(k->rem_max);
	word = hdr_len | (uint64_t)msg_len << 16 |
	       (uint64_t)nic->inst_id << 32;
	memcpy(tx->img, &tx->flag, 8);
	memcpy(tx->img + 8, &word, 8);
	if (hdr_len)
		memcpy(tx->img + UGNI_MSGQ_SLOT_HDR, hdr, hdr_len);
	if (msg_len)
		memcpy(tx->img + UGNI_MSGQ_SLOT_HDR + hdr_len, msg, msg_len);
	tx_put(tx);
	return GNI_RC_SUCCESS;
}

/*
 * My next message of connection @c, copied to @buf, its slot freed; false
 * if none.  q->lock held.
 */
static bool take_one(struct gni_msgq *q, uint32_t c, uint8_t *buf,
		     uint32_t *snd_id, uint32_t *snd_pe, uint8_t *tag,
		     bool peek)
{
	uint8_t *box = q->base + inbox_off(q, c, q->me);
	uint64_t *count = (uint64_t *)box, n, flag, word;
	uint32_t hlen, mlen;
	uint8_t *p;

	n = __atomic_load_n(count, __ATOMIC_RELAXED);
	p = box + UGNI_MSGQ_INBOX_HDR + n % q->seg->smsg_q_sz * q->slot;
	flag = __atomic_load_n((uint64_t *)p, __ATOMIC_ACQUIRE);
	if ((flag & 0xff) != UGNI_MSGQ_MAGIC || flag >> 32 != (uint32_t)(n + 1))
		return false;
	if (peek)
		return true;
	memcpy(&word, p + 8, 8);
	hlen = word & 0xffff;
	mlen = word >> 16 & 0xffff;
	*snd_id = (uint32_t)(word >> 32);
	*snd_pe = conn_at(q, c)->pe;
	*tag = (uint8_t)(flag >> 8);
	/* A length past the slot is the sender's bug: pass what fits. */
	if (hlen + mlen > q->seg->max_msg_sz)
		mlen = hlen > q->seg->max_msg_sz ? 0 :
		       q->seg->max_msg_sz - hlen;
	memcpy(buf, p + UGNI_MSGQ_SLOT_HDR,
	       hlen + mlen < q->seg->max_msg_sz ? hlen + mlen :
	       q->seg->max_msg_sz);
	__atomic_store_n((uint64_t *)p, 0, __ATOMIC_RELAXED);
	/* The slot is free once the count says so: senders GET it. */
	__atomic_store_n(count, n + 1, __ATOMIC_RELEASE);
	return true;
}

/*
 * Deliver what has come until a callback says stop; how many.  *@stopped:
 * a callback said stop.
 */
static int deliver(struct gni_msgq *q, bool *stopped)
{
	uint8_t buf[GNI_MSGQ_MSG_SZ_MAX];
	uint32_t snd_id, snd_pe, c, i;
	uint8_t tag;
	int n = 0;
	bool got;

	for (i = 0; i < q->seg->num_eps; i++) {
		pthread_mutex_lock(&q->lock);
		c = (q->next_conn + i) % q->seg->num_eps;
		got = conn_state(conn_at(q, c)) != UGNI_MSGQ_CONN_FREE &&
		      take_one(q, c, buf, &snd_id, &snd_pe, &tag, false);
		pthread_mutex_unlock(&q->lock);
		if (!got)
			continue;
		n++;
		if (!q->cb(snd_id, snd_pe, buf, tag, q->cb_data)) {
			q->next_conn = (c + 1) % q->seg->num_eps;
			*stopped = true;
			return n;
		}
		i--;	/* the same connection again */
	}
	return n;
}

/* Take the receive CQ's events: they only say a message came. */
static void drain(struct gni_msgq *q)
{
	gni_cq_entry_t e;
	gni_return_t rc;

	do {
		rc = GNI_CqGetEvent(q->rcv_cq, &e);
	} while (rc != GNI_RC_NOT_DONE && rc != GNI_RC_INVALID_PARAM);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/*
 * Blocking mode waits up to @timeout ms ((uint32_t)-1: for ever) for a
 * message; non-blocking mode only looks, and takes no other timeout.
 * As gni_pub.h says: SUCCESS once every message that came was processed
 * (none came, in time or at all, included), NOT_DONE when a callback
 * returned false and more may wait.
 */
UGNI_EXPORT gni_return_t GNI_MsgqProgress(gni_msgq_handle_t msgq_hndl,
					  uint32_t timeout)
{
	struct gni_msgq *q = msgq_hndl;
	uint64_t deadline = UINT64_MAX, now;
	bool blocking, stopped = false;
	gni_cq_entry_t e;
	gni_return_t rc;

	if (!q)
		return GNI_RC_INVALID_PARAM;
	blocking = q->seg->modes & GNI_MSGQ_MODE_BLOCKING;
	if (!blocking && timeout != (uint32_t)-1)
		return GNI_RC_INVALID_PARAM;
	if (timeout != (uint32_t)-1)
		deadline = now_ms() + timeout;
	ugni_msgq_own_drain(q);
	for (;;) {
		drain(q);
		if (deliver(q, &stopped))
			return stopped ? GNI_RC_NOT_DONE : GNI_RC_SUCCESS;
		if (!blocking)
			return GNI_RC_SUCCESS;
		now = now_ms();
		if (now >= deadline)
			return GNI_RC_SUCCESS;
		/* A message's remote event comes after its flag. */
		rc = GNI_CqWaitEvent(q->rcv_cq, deadline == UINT64_MAX ?
				     (uint64_t)-1 : deadline - now, &e);
		if (rc != GNI_RC_SUCCESS && rc != GNI_RC_TIMEOUT &&
		    rc != GNI_RC_ERROR_RESOURCE &&
		    rc != GNI_RC_TRANSACTION_ERROR)
			return rc;
	}
}

/* GNI_RC_SUCCESS when no message waits for this rank, else NOT_DONE */
UGNI_EXPORT gni_return_t GNI_MsgqIdle(gni_msgq_handle_t msgq_hndl)
{
	struct gni_msgq *q = msgq_hndl;
	uint32_t c;
	bool busy = false;

	if (!q)
		return GNI_RC_INVALID_PARAM;
	pthread_mutex_lock(&q->lock);
	for (c = 0; c < q->seg->num_eps && !busy; c++)
		busy = conn_state(conn_at(q, c)) != UGNI_MSGQ_CONN_FREE &&
		       take_one(q, c, NULL, NULL, NULL, NULL, true);
	pthread_mutex_unlock(&q->lock);
	return busy ? GNI_RC_NOT_DONE : GNI_RC_SUCCESS;
}
