// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Short messages (SMSG): mailboxes in registered memory, written by the
 * peer with FMA PUTs; no system call on send or receive.  The mailbox
 * format is uapi/gni_wire.h's (ugni-api.md §17.6 leaves it to the
 * library).
 *
 * A send is one FMA sequence: a PUT of words 1.. and
 * the payload, then the flag (GEMINI_FMA_SYNC_WITH_FLAG: the device sends
 * it once every PUT of the sequence is answered, so a flag never shows
 * before its message), then the remote event (type SMSG, inst_id = the
 * sender's remote_event) on the mailbox's CQ, then the local event (type
 * SMSG, msg_id) on the endpoint's CQ.  A sender may have as many
 * messages unreleased as the peer's mailbox has slots; GNI_SmsgRelease
 * writes the new count into the sender's credit word with an 8-byte PUT.
 *
 * A send whose sequence fails (its local event carries an error) is sent
 * again from the copy kept of it, up to the NIC's max_retrans times
 * (GNI_SmsgSetMaxRetrans); the slot and the flag make a repeat harmless.
 * One the peer has released already did arrive: its send succeeds, and
 * its remote event, if the device never sent it, goes alone (a CQ write).
 * Past max_retrans the connection is
 * broken: sends and GetNext return GNI_RC_INVALID_STATE.  That happens
 * in GNI_CqGetEvent (ugni_smsg_event()), where the error event would
 * otherwise have surfaced; an endpoint without a CQ gets no local events
 * and so no second sending.  A credit return is a silent 8-byte PUT of
 * the absolute count; one that fails is not sent again (its error event
 * is dropped).  Instead a sender that keeps finding no credit reads the
 * count itself: every UGNI_SMSG_PULL_EVERY refusals in a row it GETs
 * bytes 8..15 of the peer's mailbox into its credit word, so a credit
 * lost on a dead link cannot stall it for ever.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ugni_priv.h"

#define UGNI_SMSG_PULL_EVERY	256u

static bool attr_ok(const gni_smsg_attr_t *a)
{
	return a && (a->msg_type == GNI_SMSG_TYPE_MBOX ||
		     a->msg_type == GNI_SMSG_TYPE_MBOX_AUTO_RETRANSMIT) &&
	       a->mbox_maxcredit && a->msg_maxsize &&
	       a->msg_maxsize <= UGNI_SMSG_MAX_SIZE;
}

static uint32_t mbox_size(const gni_smsg_attr_t *a)
{
	return ugni_smsg_mbox_size(a->mbox_maxcredit, a->msg_maxsize);
}

UGNI_EXPORT gni_return_t GNI_SmsgBufferSizeNeeded(gni_smsg_attr_t *smsg_attr,
						  unsigned int *size)
{
	if (!attr_ok(smsg_attr) || !size)
		return GNI_RC_INVALID_PARAM;
	*size = mbox_size(smsg_attr);
	return GNI_RC_SUCCESS;
}

UGNI_EXPORT gni_return_t GNI_SmsgSetDeliveryMode(gni_nic_handle_t nic_handle,
						 uint16_t dlvr_mode)
{
	if (!nic_handle)
		return GNI_RC_INVALID_PARAM;
	nic_handle->smsg_dlvr_mode = dlvr_mode;
	return GNI_RC_SUCCESS;
}

UGNI_EXPORT gni_return_t GNI_SmsgSetMaxRetrans(gni_nic_handle_t nic_handle,
					       uint16_t max_retrans)
{
	if (!nic_handle)
		return GNI_RC_INVALID_PARAM;
	nic_handle->smsg_max_retrans = max_retrans;
	return GNI_RC_SUCCESS;
}

/*
 * The NIC's SMSG statistics: MBOX_CREDITS_STALL counts sends refused for
 * want of the peer's credit, REQ_STALL those refused for want of a
 * request slot, RETRANS_COUNT messages sent again.  The others (shared
 * buffer credits, the DLA, stalls behind a retransmission) have nothing
 * to count in this design and stay 0.
 */
UGNI_EXPORT gni_return_t GNI_GetNicStat(gni_nic_handle_t nic_hndl,
					gni_statistic_t stat, uint32_t *value)
{
	if (!nic_hndl || !value || (unsigned int)stat >= GNI_NUM_STATS)
		return GNI_RC_INVALID_PARAM;
	*value = __atomic_load_n(&nic_hndl->stats[stat], __ATOMIC_RELAXED);
	return GNI_RC_SUCCESS;
}

UGNI_EXPORT gni_return_t GNI_ResetNicStat(gni_nic_handle_t nic_hndl,
					  gni_statistic_t stat)
{
	if (!nic_hndl || (unsigned int)stat >= GNI_NUM_STATS)
		return GNI_RC_INVALID_PARAM;
	__atomic_store_n(&nic_hndl->stats[stat], 0, __ATOMIC_RELAXED);
	return GNI_RC_SUCCESS;
}

/* Offset of @addr in @h's domain; false if outside. */
static bool mbox_offset_of(const gni_mem_handle_t *h, uint64_t addr,
			   uint64_t len, uint64_t *off)
{
	uint64_t va = GNI_MEMHNDL_GET_VA(*h);
	uint64_t size = GNI_MEMHNDL_GET_NPAGES(*h) * (uint64_t)UGNI_PAGE;

	if (addr < va || addr - va > size || len > size - (addr - va))
		return false;
	*off = addr - va;
	return true;
}

UGNI_EXPORT gni_return_t GNI_SmsgInit(gni_ep_handle_t ep_hndl,
				      gni_smsg_attr_t *local_smsg_attr,
				      gni_smsg_attr_t *remote_smsg_attr)
{
	const gni_smsg_attr_t *l = local_smsg_attr, *r = remote_smsg_attr;
	struct gni_ep *ep = ep_hndl;
	struct ugni_smsg *s;
	uint64_t roff;

	if (!ep || !attr_ok(l) || !attr_ok(r) || !l->msg_buffer)
		return GNI_RC_INVALID_PARAM;
	if (!ep->bound)
		return GNI_RC_INVALID_STATE;
	/*
	 * buff_size is one mailbox's size to some clients (Open MPI puts
	 * many mailboxes in one registration, mbox_offset into it) and the
	 * whole buffer's to others: it must hold a mailbox.  The memory
	 * handles bound where the mailboxes may lie.
	 */
	if (l->msg_maxsize != r->msg_maxsize || mbox_size(l) > l->buff_size)
		return GNI_RC_INVALID_PARAM;
	if (GNI_MEMHNDL_GET_CRC(r->mem_hndl) != ugni_memhndl_crc(&r->mem_hndl) ||
	    !mbox_offset_of(&r->mem_hndl,
			    (uint64_t)(uintptr_t)r->msg_buffer + r->mbox_offset,
			    mbox_size(r), &roff))
		return GNI_RC_INVALID_PARAM;
	s = calloc(1, sizeof(*s));
	if (!s)
		return GNI_RC_ERROR_NOMEM;
	pthread_mutex_init(&s->lock, NULL);
	s->slot = UGNI_SMSG_SLOT(l->msg_maxsize);
	s->copies = calloc(r->mbox_maxcredit, s->slot);
	if (!s->copies) {
		free(s);
		return GNI_RC_ERROR_NOMEM;
	}
	s->mbox = (uint8_t *)l->msg_buffer + l->mbox_offset;
	/*
	 * The peer writes our credit word only for messages we sent: none
	 * yet.  The slots stay as they are: the peer may have sent already.
	 */
	__atomic_store_n((uint64_t *)s->mbox, 0, __ATOMIC_RELEASE);
	__atomic_store_n((uint64_t *)(s->mbox + 8), 0, __ATOMIC_RELEASE);
	s->rx_slots = l->mbox_maxcredit;
	s->tx_slots = r->mbox_maxcredit;
	s->maxsize = l->msg_maxsize;
	s->retransmit = l->msg_type == GNI_SMSG_TYPE_MBOX_AUTO_RETRANSMIT;
	s->rem_mdh = GNI_MEMHNDL_GET_MDH(r->mem_hndl);
	s->roff = roff;
	if (GNI_MEMHNDL_GET_CRC(l->mem_hndl) !=
	    ugni_memhndl_crc(&l->mem_hndl) ||
	    !mbox_offset_of(&l->mem_hndl,
			    (uint64_t)(uintptr_t)l->msg_buffer + l->mbox_offset,
			    mbox_size(l), &s->loff)) {
		free(s->copies);
		free(s);
		return GNI_RC_INVALID_PARAM;
	}
	s->loc_mdh = GNI_MEMHNDL_GET_MDH(l->mem_hndl);
	pthread_mutex_lock(&ep->nic->lock);
	if (ep->smsg) {
		pthread_mutex_unlock(&ep->nic->lock);
		free(s->copies);
		free(s);
		return GNI_RC_INVALID_STATE;
	}
	ep->smsg = s;
	pthread_mutex_unlock(&ep->nic->lock);
	return GNI_RC_SUCCESS;
}

/* The SMSG state of @ep, or NULL; locks @ep's smsg lock when not NULL. */
static struct ugni_smsg *smsg_of(struct gni_ep *ep)
{
	struct ugni_smsg *s;

	pthread_mutex_lock(&ep->nic->lock);
	s = ep->smsg;
	pthread_mutex_unlock(&ep->nic->lock);
	return s;
}

/* Our messages the peer released: never more than we sent */
static uint64_t credit_word(const struct ugni_smsg *s)
{
	uint64_t c = __atomic_load_n((const uint64_t *)s->mbox,
				     __ATOMIC_ACQUIRE);

	return c < s->sent ? c : s->sent;
}

/*
 * Send slot image @seq (already in s->copies) to the peer: its payload,
 * then the flag, with a remote event and, if @tid names one, a local
 * event.  s->lock held.
 */
static void smsg_put(struct gni_ep *ep, struct ugni_smsg *s, uint64_t seq,
		     uint32_t tid)
{
	uint32_t slot = ugni_smsg_slot(seq, s->tx_slots);
	const uint8_t *img = s->copies + (size_t)slot * s->slot;
	uint64_t at = s->roff + ugni_smsg_slot_offset(slot, s->slot);
	uint64_t flag, len, data;
	unsigned int sync = GEMINI_FMA_SYNC_WITH_FLAG |
			    GEMINI_FMA_SYNC_REMOTE_EVENT;

	memcpy(&flag, img, 8);
	memcpy(&len, img + 8, 8);
	len = ugni_smsg_put_length(len);
	if (tid != UGNI_TID_NONE)
		sync |= GEMINI_FMA_SYNC_LOCAL_EVENT;
	data = ugni_cqe_data(GNI_CQ_EVENT_TYPE_SMSG, ep->remote_event, tid);
	ugni_fma_put_flag(ep, img + 8, len, at + 8, s->rem_mdh, at, flag,
			  sync, data, ep->nic->smsg_dlvr_mode);
}

static gni_return_t smsg_send(gni_ep_handle_t ep_hndl, void *header,
			      uint32_t header_length, void *data,
			      uint32_t data_length, uint32_t msg_id,
			      uint8_t tag)
{
	struct gni_ep *ep = ep_hndl;
	struct ugni_smsg *s;
	struct gni_nic *nic;
	uint64_t seq, word;
	uint32_t slot;
	uint8_t *img;
	int tid = UGNI_TID_NONE;

	if (!ep || (header_length && !header) || (data_length && !data))
		return GNI_RC_INVALID_PARAM;
	s = smsg_of(ep);
	if (!s)
		return GNI_RC_INVALID_STATE;
	if ((uint64_t)header_length + data_length > s->maxsize)
		return GNI_RC_INVALID_PARAM;
	nic = ep->nic;
	pthread_mutex_lock(&s->lock);
	if (s->broken) {
		pthread_mutex_unlock(&s->lock);
		return GNI_RC_INVALID_STATE;
	}
	/* No credit: the peer has not released enough of our messages. */
	if (s->sent - credit_word(s) >= s->tx_slots) {
		/* Now and then read the count: its PUT may have been lost. */
		if (++s->starved % UGNI_SMSG_PULL_EVERY == 0)
			ugni_fma_get8(ep, s->loff + UGNI_SMSG_CREDIT_OFF,
				      s->loc_mdh,
				      s->roff + UGNI_SMSG_RELEASED_OFF,
				      s->rem_mdh,
				      ugni_cqe_data(GNI_CQ_EVENT_TYPE_SMSG, 0,
						    UGNI_TID_NONE),
				      nic->smsg_dlvr_mode);
		pthread_mutex_unlock(&s->lock);
		ugni_stat(nic, GNI_STAT_SMSG_MBOX_CREDITS_STALL);
		return GNI_RC_NOT_DONE;
	}
	s->starved = 0;
	if (ep->cq) {
		pthread_mutex_lock(&nic->lock);
		tid = ugni_req_alloc(nic, NULL, ep, 0);
		if (tid >= 0) {
			nic->req[tid].local_event = msg_id;
			nic->req[tid].smsg_seq = s->sent + 1;
			nic->req[tid].smsg_tries = 0;
		}
		pthread_mutex_unlock(&nic->lock);
		if (tid < 0) {
			pthread_mutex_unlock(&s->lock);
			ugni_stat(nic, GNI_STAT_SMSG_REQ_STALL);
			return GNI_RC_ERROR_RESOURCE;
		}
	}
	seq = ++s->sent;
	slot = ugni_smsg_slot(seq, s->tx_slots);
	img = s->copies + (size_t)slot * s->slot;
	word = ugni_smsg_flag(seq, tag);
	memcpy(img, &word, 8);
	word = ugni_smsg_lengths(header_length, data_length);
	memcpy(img + 8, &word, 8);
	if (header_length)
		memcpy(img + UGNI_SMSG_HDR, header, header_length);
	if (data_length)
		memcpy(img + UGNI_SMSG_HDR + header_length, data, data_length);
	smsg_put(ep, s, seq, (uint32_t)tid);
	pthread_mutex_unlock(&s->lock);
	return GNI_RC_SUCCESS;
}

UGNI_EXPORT gni_return_t GNI_SmsgSend(gni_ep_handle_t ep_hndl, void *header,
				      uint32_t header_length, void *data,
				      uint32_t data_length, uint32_t msg_id)
{
	return smsg_send(ep_hndl, header, header_length, data, data_length,
			 msg_id, 0);
}

UGNI_EXPORT gni_return_t GNI_SmsgSendWTag(gni_ep_handle_t ep_hndl,
					  void *header, uint32_t header_length,
					  void *data, uint32_t data_length,
					  uint32_t msg_id, uint8_t tag)
{
	return smsg_send(ep_hndl, header, header_length, data, data_length,
			 msg_id, tag);
}

/* The flag of the next message due, or 0 if it is not there yet. */
static uint64_t next_flag(struct ugni_smsg *s, uint8_t **slotp)
{
	uint32_t slot = (uint32_t)(s->received % s->rx_slots);
	uint8_t *p = s->mbox + ugni_smsg_slot_offset(slot, s->slot);
	uint64_t flag = __atomic_load_n((uint64_t *)p, __ATOMIC_ACQUIRE);

	if (!ugni_smsg_flag_is(flag, s->received + 1))
		return 0;
	*slotp = p;
	return flag;
}

static gni_return_t smsg_get_next(gni_ep_handle_t ep_hndl, void **header,
				  uint8_t *tag)
{
	struct gni_ep *ep = ep_hndl;
	struct ugni_smsg *s;
	gni_return_t rc = GNI_RC_SUCCESS;
	uint8_t *p = NULL, t;
	uint64_t flag;

	if (!ep || !header)
		return GNI_RC_INVALID_PARAM;
	s = smsg_of(ep);
	if (!s)
		return GNI_RC_INVALID_STATE;
	pthread_mutex_lock(&s->lock);
	flag = s->broken ? 0 : next_flag(s, &p);
	if (s->broken) {
		rc = GNI_RC_INVALID_STATE;
	} else if (!flag) {
		rc = GNI_RC_NOT_DONE;
	} else {
		t = ugni_smsg_flag_tag(flag);
		if (tag && *tag != GNI_SMSG_ANY_TAG && *tag != t)
			rc = GNI_RC_NO_MATCH;
		else
			*header = p + UGNI_SMSG_HDR;
		if (tag)
			*tag = t;
		if (rc == GNI_RC_SUCCESS)
			s->current = true;
	}
	pthread_mutex_unlock(&s->lock);
	return rc;
}

UGNI_EXPORT gni_return_t GNI_SmsgGetNext(gni_ep_handle_t ep_hndl,
					 void **header)
{
	return smsg_get_next(ep_hndl, header, NULL);
}

UGNI_EXPORT gni_return_t GNI_SmsgGetNextWTag(gni_ep_handle_t ep_hndl,
					     void **header, uint8_t *tag)
{
	if (!tag)
		return GNI_RC_INVALID_PARAM;
	return smsg_get_next(ep_hndl, header, tag);
}

/* Tell the peer how many of its messages we released.  s->lock held. */
static void credit_return(struct gni_ep *ep, struct ugni_smsg *s)
{
	uint64_t data = ugni_cqe_data(GNI_CQ_EVENT_TYPE_SMSG, 0, UGNI_TID_NONE);

	ugni_fma_put_flag(ep, &s->received, 8, s->roff + UGNI_SMSG_CREDIT_OFF,
			  s->rem_mdh, 0, 0, 0, data, ep->nic->smsg_dlvr_mode);
}

UGNI_EXPORT gni_return_t GNI_SmsgRelease(gni_ep_handle_t ep_hndl)
{
	struct gni_ep *ep = ep_hndl;
	struct ugni_smsg *s;
	uint8_t *p = NULL;
	gni_return_t rc = GNI_RC_SUCCESS;

	if (!ep)
		return GNI_RC_INVALID_PARAM;
	s = smsg_of(ep);
	if (!s)
		return GNI_RC_INVALID_STATE;
	pthread_mutex_lock(&s->lock);
	if (!s->current || !next_flag(s, &p)) {
		rc = GNI_RC_NOT_DONE;
	} else {
		/* The slot is free: its flag goes, the peer gets the credit. */
		__atomic_store_n((uint64_t *)p, 0, __ATOMIC_RELEASE);
		s->received++;
		__atomic_store_n((uint64_t *)(s->mbox + UGNI_SMSG_RELEASED_OFF),
				 s->received, __ATOMIC_RELEASE);
		s->current = false;
		credit_return(ep, s);
	}
	pthread_mutex_unlock(&s->lock);
	return rc;
}

/*
 * The local event @e of SMSG message @seq of @ep (its @tries-th sending),
 * seen by GNI_CqGetEvent (nic->lock not held): a failure is sent again,
 * or breaks the connection.  True when the event must not reach the
 * caller.
 *
 * A message the peer has released arrived whole, flag and all: only an
 * answer was lost, the flag's or the remote event's.  After a lost flag
 * answer the device sent no remote event, so it goes now, alone; after a
 * lost remote-event answer the peer sees that event twice (remote events
 * are at least once when links fail, as a retransmission's are).  The
 * caller sees the send succeed.
 */
bool ugni_smsg_event(struct gni_ep *ep, gni_cq_entry_t *e, uint64_t seq,
		     unsigned int tries)
{
	unsigned int st = ugni_cqe_status(*e);
	struct ugni_smsg *s;
	bool swallow = false;
	int tid;

	if (!st || !ep)
		return false;
	s = smsg_of(ep);
	if (!s)
		return false;
	pthread_mutex_lock(&s->lock);
	if (credit_word(s) >= seq) {
		ugni_fma_cqwrite(ep, s->rem_mdh,
				 ugni_cqe_data(GNI_CQ_EVENT_TYPE_SMSG,
					       ep->remote_event, UGNI_TID_NONE),
				 ugni_cqe_data(GNI_CQ_EVENT_TYPE_SMSG, 0,
					       UGNI_TID_NONE),
				 ep->nic->smsg_dlvr_mode);
		ugni_cqe_set_field(e, GEMINI_CQE_STATUS_SHIFT,
				   GEMINI_CQE_STATUS_MASK, 0);
		pthread_mutex_unlock(&s->lock);
		return false;
	}
	if (s->retransmit && !s->broken &&
	    tries < ep->nic->smsg_max_retrans) {
		pthread_mutex_lock(&ep->nic->lock);
		tid = ugni_req_alloc(ep->nic, NULL, ep, 0);
		if (tid >= 0) {
			ep->nic->req[tid].local_event =
				(uint32_t)ugni_cqe_id(*e);
			ep->nic->req[tid].smsg_seq = seq;
			ep->nic->req[tid].smsg_tries = tries + 1;
		}
		pthread_mutex_unlock(&ep->nic->lock);
		if (tid >= 0) {
			smsg_put(ep, s, seq, (uint32_t)tid);
			ugni_stat(ep->nic, GNI_STAT_SMSG_RETRANS_COUNT);
			swallow = true;
		}
	}
	if (!swallow)
		s->broken = true;
	pthread_mutex_unlock(&s->lock);
	return swallow;
}

/* Forget @ep's SMSG state (GNI_EpUnbind, GNI_EpDestroy). */
void ugni_smsg_release(struct gni_ep *ep)
{
	struct ugni_smsg *s;

	pthread_mutex_lock(&ep->nic->lock);
	s = ep->smsg;
	ep->smsg = NULL;
	pthread_mutex_unlock(&ep->nic->lock);
	if (!s)
		return;
	pthread_mutex_destroy(&s->lock);
	free(s->copies);
	free(s);
}
