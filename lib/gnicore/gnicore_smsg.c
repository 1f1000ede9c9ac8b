// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Short messages (SMSG): mailboxes in registered memory, written by the
 * peer with FMA PUTs; no system call on send or receive.  The mailbox
 * format is uapi/gni_wire.h's (ugni-api.md §17.6 leaves it to the
 * library).
 *
 * A send is one FMA sequence: a PUT of words 1.. of its slot and the
 * payload, then the flag (GEMINI_FMA_SYNC_WITH_FLAG: the device sends it
 * once every PUT of the sequence is answered, so a flag never shows before
 * its message), then the remote event (type SMSG, inst_id = the sender's
 * remote_event) on the mailbox's CQ, then the local event (type SMSG,
 * msg_id) on the endpoint's CQ.  A sender may have as many messages
 * unreleased as the peer's mailbox has slots; GNI_SmsgRelease writes the
 * new count into the sender's credit word with an 8-byte PUT.
 *
 * A send whose sequence fails (its local event carries an error) is sent
 * again from the copy kept of it, up to the NIC's max_retrans times
 * (GNI_SmsgSetMaxRetrans); the slot and the flag make a repeat harmless.
 * One the peer has released already did arrive: its send succeeds, and
 * its remote event, if the device never sent it, goes alone (a CQ write).
 * Past max_retrans the connection is broken: sends and GetNext return
 * GNI_RC_INVALID_STATE.  That happens when the event is taken
 * (gnicore_cq_take(), gnicore_smsg_event()), where the error event would
 * otherwise have surfaced; an endpoint without a CQ gets no local events
 * and so no second sending.  A credit return is a silent 8-byte PUT of
 * the absolute count; one that fails is not sent again (its error event
 * is dropped).  Instead a sender that keeps finding no credit reads the
 * count itself: every SMSG_PULL_EVERY refusals in a row it GETs bytes
 * 8..15 of the peer's mailbox into its credit word, so a credit lost on a
 * dead link cannot stall it for ever.
 *
 * Where a full FMA descriptor cannot be waited for (the kernel), a send
 * is refused with GNI_RC_ERROR_RESOURCE, a read of the count is skipped
 * (the next makes up for it), and a remote event that could not go alone
 * is lost.  A credit return that finds no room is owed: it goes with the
 * next call on the connection that finds room (a send, GetNext, Release),
 * so that a receiver that answers its peer returns its credit at once.
 * A sender that cannot wait reads the count every SMSG_PULL_EVERY_NOWAIT
 * refusals: such callers retry from a timer or an event, not a spin, and
 * a credit owed by an idle receiver would otherwise stall them for
 * SMSG_PULL_EVERY of their retries (a second or more).  A second sending may use twice the
 * descriptor's share (GNICORE_SYNC_AGAIN): the sequences a dead link
 * holds until they time out, as long as the one that failed, would
 * otherwise leave it no room and break the connection at once; one that
 * still cannot go breaks it.
 */
#include "gnicore_priv.h"

#define SMSG_PULL_EVERY		256u
#define SMSG_PULL_EVERY_NOWAIT	8u

/*
 * Most slots of a peer's mailbox: a copy of each is kept here, so the
 * peer's connect data would otherwise choose what a connection costs
 * (65535 slots of our msg_maxsize).  Real clients use tens to a few
 * hundred (Open MPI's btl/ugni 32, ipogif up to 256, gnilnd 256).
 */
#define SMSG_MAX_PEER_CREDIT	1024u

/*
 * An endpoint's SMSG connection: its own mailbox, where the peer writes,
 * and the place of the peer's, where it writes.
 */
struct gnicore_smsg {
	gnicore_lock_t lock;		/* everything below */
	uint8_t *mbox;			/* my mailbox: credit word, slots */
	uint32_t rx_slots;		/* its slots (my mbox_maxcredit) */
	uint32_t tx_slots;		/* the peer's mailbox's slots */
	uint32_t slot;			/* bytes per slot */
	uint32_t maxsize;		/* msg_maxsize */
	uint32_t rem_mdh;		/* the peer's mailbox registration */
	uint64_t roff;			/* its mailbox's offset in it */
	uint32_t loc_mdh;		/* my mailbox's registration */
	uint64_t loff;			/* my mailbox's offset in it */
	uint32_t starved;		/* sends refused for credit in a row */
	uint64_t sent;			/* messages sent: the last seq */
	uint64_t received;		/* messages released */
	uint8_t *copies;		/* a slot image per message in flight */
	bool handed_out;		/* GetNext handed one out */
	bool credit_owed;		/* a credit return found no room */
	bool retransmit;		/* MBOX_AUTO_RETRANSMIT */
	bool broken;
};

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

/* GNI_SmsgBufferSizeNeeded */
gni_return_t gnicore_smsg_buff_size(const gni_smsg_attr_t *attr,
				    unsigned int *size)
{
	if (!attr_ok(attr) || !size)
		return GNI_RC_INVALID_PARAM;
	*size = mbox_size(attr);
	return GNI_RC_SUCCESS;
}

/* Offset of @addr in @h's domain; false if outside. */
static bool mbox_offset_of(const gni_mem_handle_t *h, uint64_t addr,
			   uint64_t len, uint64_t *off)
{
	uint64_t va = GNI_MEMHNDL_GET_VA(*h);
	/* The handle counts the 4 KiB pages its VA is in. */
	uint64_t size = (uint64_t)GNI_MEMHNDL_GET_NPAGES(*h) <<
			GEMINI_MH_VA_SHIFT;

	if (addr < va || addr - va > size || len > size - (addr - va))
		return false;
	*off = addr - va;
	return true;
}

static void smsg_free(struct gnicore_smsg *s)
{
	gnicore_lock_destroy(&s->lock);
	gnicore_free(s->copies);
	gnicore_free(s);
}

/*
 * Take @ep's SMSG state from it, for the caller to free
 * (gnicore_smsg_free()) once nobody can be using it: in the kernel
 * another CPU may be taking a failed send's event and sending it again
 * through it (gnicore_cq_take()).  NULL if none.
 */
struct gnicore_smsg *gnicore_smsg_detach(struct gnicore_ep *ep)
{
	struct gnicore_smsg *s;
	unsigned long flags;

	flags = gnicore_lock(&ep->nic->lock);
	s = ep->smsg;
	ep->smsg = NULL;
	gnicore_unlock(&ep->nic->lock, flags);
	return s;
}

/* Free SMSG state gnicore_smsg_detach() took; NULL is nothing. */
void gnicore_smsg_free(struct gnicore_smsg *s)
{
	if (s)
		smsg_free(s);
}

/* GNI_SmsgInit */
gni_return_t gnicore_smsg_init(struct gnicore_ep *ep,
			       const gni_smsg_attr_t *local,
			       const gni_smsg_attr_t *remote)
{
	const gni_smsg_attr_t *l = local, *r = remote;
	struct gnicore_smsg *s;
	unsigned long flags;
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
	if (l->msg_maxsize != r->msg_maxsize || mbox_size(l) > l->buff_size ||
	    r->mbox_maxcredit > SMSG_MAX_PEER_CREDIT)
		return GNI_RC_INVALID_PARAM;
	if (GNI_MEMHNDL_GET_CRC(r->mem_hndl) !=
	    gnicore_memhndl_crc(&r->mem_hndl) ||
	    !mbox_offset_of(&r->mem_hndl,
			    (uint64_t)(uintptr_t)r->msg_buffer + r->mbox_offset,
			    mbox_size(r), &roff))
		return GNI_RC_INVALID_PARAM;
	s = gnicore_calloc(1, sizeof(*s));
	if (!s)
		return GNI_RC_ERROR_NOMEM;
	gnicore_lock_init(&s->lock);
	s->slot = UGNI_SMSG_SLOT(l->msg_maxsize);
	s->copies = gnicore_calloc(r->mbox_maxcredit, s->slot);
	if (!s->copies) {
		smsg_free(s);
		return GNI_RC_ERROR_NOMEM;
	}
	s->mbox = (uint8_t *)l->msg_buffer + l->mbox_offset;
	/*
	 * The peer writes our credit word only for messages we sent: none
	 * yet.  The slots stay as they are: the peer may have sent already.
	 */
	gnicore_store_release((uint64_t *)(s->mbox + UGNI_SMSG_CREDIT_OFF), 0);
	gnicore_store_release((uint64_t *)(s->mbox + UGNI_SMSG_RELEASED_OFF),
			      0);
	s->rx_slots = l->mbox_maxcredit;
	s->tx_slots = r->mbox_maxcredit;
	s->maxsize = l->msg_maxsize;
	s->retransmit = l->msg_type == GNI_SMSG_TYPE_MBOX_AUTO_RETRANSMIT;
	s->rem_mdh = GNI_MEMHNDL_GET_MDH(r->mem_hndl);
	s->roff = roff;
	if (GNI_MEMHNDL_GET_CRC(l->mem_hndl) !=
	    gnicore_memhndl_crc(&l->mem_hndl) ||
	    !mbox_offset_of(&l->mem_hndl,
			    (uint64_t)(uintptr_t)l->msg_buffer + l->mbox_offset,
			    mbox_size(l), &s->loff)) {
		smsg_free(s);
		return GNI_RC_INVALID_PARAM;
	}
	s->loc_mdh = GNI_MEMHNDL_GET_MDH(l->mem_hndl);
	flags = gnicore_lock(&ep->nic->lock);
	if (ep->smsg) {
		gnicore_unlock(&ep->nic->lock, flags);
		smsg_free(s);
		return GNI_RC_INVALID_STATE;
	}
	ep->smsg = s;
	gnicore_unlock(&ep->nic->lock, flags);
	return GNI_RC_SUCCESS;
}

/* The SMSG state of @ep, or NULL. */
static struct gnicore_smsg *smsg_of(struct gnicore_ep *ep)
{
	struct gnicore_smsg *s;
	unsigned long flags;

	flags = gnicore_lock(&ep->nic->lock);
	s = ep->smsg;
	gnicore_unlock(&ep->nic->lock, flags);
	return s;
}

/* Our messages the peer released: never more than we sent */
static uint64_t credit_word(const struct gnicore_smsg *s)
{
	uint64_t c = gnicore_load_acquire((const uint64_t *)
					  (s->mbox + UGNI_SMSG_CREDIT_OFF));

	return c < s->sent ? c : s->sent;
}

/*
 * Send slot image @seq (already in s->copies) to the peer: its payload,
 * then the flag, with a remote event and, if @tid names one, a local
 * event; @again: a sending again (GNICORE_SYNC_AGAIN).  False if it could
 * not go.  s->lock held.
 */
static bool smsg_put(struct gnicore_ep *ep, struct gnicore_smsg *s,
		     uint64_t seq, uint32_t tid, bool again)
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
	if (again)
		sync |= GNICORE_SYNC_AGAIN;
	data = ugni_cqe_data(GNI_CQ_EVENT_TYPE_SMSG, ep->remote_event, tid);
	return gnicore_fma_put_flag(ep, img + 8, len, at + 8, s->rem_mdh, at,
				    flag, sync, data,
				    ep->nic->smsg_dlvr_mode);
}

/*
 * Tell the peer how many of its messages we released.  One that finds no
 * room is owed, sent by the next call that finds room; one that fails is
 * made up for by the next, or by the peer's read of the count.  s->lock
 * held.
 */
static void credit_return(struct gnicore_ep *ep, struct gnicore_smsg *s)
{
	uint64_t data = ugni_cqe_data(GNI_CQ_EVENT_TYPE_SMSG, 0, UGNI_TID_NONE);

	s->credit_owed = !gnicore_fma_put_flag(ep, &s->received, 8,
					       s->roff + UGNI_SMSG_CREDIT_OFF,
					       s->rem_mdh, 0, 0, 0, data,
					       ep->nic->smsg_dlvr_mode);
}

/* GNI_SmsgSend (@tag 0) and GNI_SmsgSendWTag */
gni_return_t gnicore_smsg_send(struct gnicore_ep *ep, const void *header,
			       uint32_t header_length, const void *data,
			       uint32_t data_length, uint32_t msg_id,
			       uint8_t tag)
{
	struct gnicore_smsg *s;
	struct gnicore_nic *nic;
	unsigned long flags, nflags;
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
	flags = gnicore_lock(&s->lock);
	if (s->broken) {
		gnicore_unlock(&s->lock, flags);
		return GNI_RC_INVALID_STATE;
	}
	if (s->credit_owed)
		credit_return(ep, s);
	/* No credit: the peer has not released enough of our messages. */
	if (s->sent - credit_word(s) >= s->tx_slots) {
		/* Now and then read the count: its PUT may have been lost. */
		if (++s->starved % (gnicore_may_wait() ? SMSG_PULL_EVERY :
				    SMSG_PULL_EVERY_NOWAIT) == 0)
			gnicore_fma_get8(ep, s->loff + UGNI_SMSG_CREDIT_OFF,
					 s->loc_mdh,
					 s->roff + UGNI_SMSG_RELEASED_OFF,
					 s->rem_mdh,
					 ugni_cqe_data(GNI_CQ_EVENT_TYPE_SMSG,
						       0, UGNI_TID_NONE),
					 nic->smsg_dlvr_mode);
		gnicore_unlock(&s->lock, flags);
		gnicore_stat(nic, GNI_STAT_SMSG_MBOX_CREDITS_STALL);
		return GNI_RC_NOT_DONE;
	}
	s->starved = 0;
	if (ep->cq) {
		nflags = gnicore_lock(&nic->lock);
		tid = gnicore_req_alloc(nic, NULL, ep, 0);
		if (tid >= 0) {
			nic->req[tid].local_event = msg_id;
			nic->req[tid].smsg_seq = s->sent + 1;
			nic->req[tid].smsg_tries = 0;
		}
		gnicore_unlock(&nic->lock, nflags);
		if (tid < 0) {
			gnicore_unlock(&s->lock, flags);
			gnicore_stat(nic, GNI_STAT_SMSG_REQ_STALL);
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
	if (!smsg_put(ep, s, seq, (uint32_t)tid, false)) {
		/* Not sent (a full descriptor, not waited for): not sent. */
		s->sent--;
		if (tid != UGNI_TID_NONE) {
			nflags = gnicore_lock(&nic->lock);
			gnicore_req_free(nic, (uint32_t)tid);
			gnicore_unlock(&nic->lock, nflags);
		}
		gnicore_unlock(&s->lock, flags);
		return GNI_RC_ERROR_RESOURCE;
	}
	gnicore_unlock(&s->lock, flags);
	return GNI_RC_SUCCESS;
}

/* The flag of the next message due, or 0 if it is not there yet. */
static uint64_t next_flag(struct gnicore_smsg *s, uint8_t **slotp)
{
	uint32_t slot = (uint32_t)(s->received % s->rx_slots);
	uint8_t *p = s->mbox + ugni_smsg_slot_offset(slot, s->slot);
	uint64_t flag = gnicore_load_acquire((const uint64_t *)p);

	if (!ugni_smsg_flag_is(flag, s->received + 1))
		return 0;
	*slotp = p;
	return flag;
}

/*
 * GNI_SmsgGetNext (@tag NULL) and GNI_SmsgGetNextWTag (@tag: the tag
 * wanted or GNI_SMSG_ANY_TAG, set to the message's)
 */
gni_return_t gnicore_smsg_get_next(struct gnicore_ep *ep, void **header,
				   uint8_t *tag)
{
	struct gnicore_smsg *s;
	gni_return_t rc = GNI_RC_SUCCESS;
	uint8_t *p = NULL, t;
	unsigned long flags;
	uint64_t flag;

	if (!ep || !header)
		return GNI_RC_INVALID_PARAM;
	s = smsg_of(ep);
	if (!s)
		return GNI_RC_INVALID_STATE;
	flags = gnicore_lock(&s->lock);
	if (s->credit_owed && !s->broken)
		credit_return(ep, s);
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
			s->handed_out = true;
	}
	gnicore_unlock(&s->lock, flags);
	return rc;
}

/* GNI_SmsgRelease */
gni_return_t gnicore_smsg_release(struct gnicore_ep *ep)
{
	struct gnicore_smsg *s;
	uint8_t *p = NULL;
	gni_return_t rc = GNI_RC_SUCCESS;
	unsigned long flags;

	if (!ep)
		return GNI_RC_INVALID_PARAM;
	s = smsg_of(ep);
	if (!s)
		return GNI_RC_INVALID_STATE;
	flags = gnicore_lock(&s->lock);
	if (!s->handed_out || !next_flag(s, &p)) {
		rc = GNI_RC_NOT_DONE;
	} else {
		/* The slot is free: its flag goes, the peer gets the credit. */
		gnicore_store_release((uint64_t *)p, 0);
		s->received++;
		gnicore_store_release((uint64_t *)
				      (s->mbox + UGNI_SMSG_RELEASED_OFF),
				      s->received);
		s->handed_out = false;
		credit_return(ep, s);
	}
	gnicore_unlock(&s->lock, flags);
	return rc;
}

/*
 * Send message @seq of @ep again after its failed local event @e (its
 * @tries-th sending): the whole message, or (@event_only: the peer has it)
 * its remote event alone, as a new request that keeps @e's msg_id.  True
 * if it went.  s->lock held.
 */
static bool smsg_resend(struct gnicore_ep *ep, struct gnicore_smsg *s,
			uint64_t e, uint64_t seq, unsigned int tries,
			bool event_only)
{
	struct gnicore_nic *nic = ep->nic;
	unsigned long nflags;
	bool sent;
	int tid;

	nflags = gnicore_lock(&nic->lock);
	tid = gnicore_req_alloc(nic, NULL, ep, 0);
	if (tid >= 0) {
		nic->req[tid].local_event = (uint32_t)ugni_cqe_id(e);
		nic->req[tid].smsg_seq = seq;
		nic->req[tid].smsg_tries = tries + 1;
	}
	gnicore_unlock(&nic->lock, nflags);
	if (tid < 0)
		return false;
	if (event_only)
		sent = gnicore_fma_cqwrite(ep, s->rem_mdh,
					   ugni_cqe_data(GNI_CQ_EVENT_TYPE_SMSG,
							 ep->remote_event,
							 UGNI_TID_NONE),
					   GEMINI_FMA_SYNC_LOCAL_EVENT |
					   GNICORE_SYNC_AGAIN,
					   ugni_cqe_data(GNI_CQ_EVENT_TYPE_SMSG,
							 ep->remote_event,
							 (uint32_t)tid),
					   nic->smsg_dlvr_mode);
	else
		sent = smsg_put(ep, s, seq, (uint32_t)tid, true);
	if (sent) {
		gnicore_stat(nic, GNI_STAT_SMSG_RETRANS_COUNT);
		return true;
	}
	/* It could not go (the kernel): as if no tid */
	nflags = gnicore_lock(&nic->lock);
	gnicore_req_free(nic, (uint32_t)tid);
	gnicore_unlock(&nic->lock, nflags);
	return false;
}

/*
 * The local event @e of SMSG message @seq of @ep (its @tries-th sending),
 * being taken (nic->lock not held): a failure is sent again, or breaks
 * the connection.  True when the event must not reach the caller.
 *
 * A message the peer has released arrived whole, flag and all: only an
 * answer was lost, the flag's or the remote event's.  After a lost flag
 * answer the device sent no remote event, so it goes now, alone, as a
 * request of its own whose failure is sent again in turn (until
 * max_retrans + 1 sendings in all): a remote event lost with it would be
 * lost for good.  After a lost remote-event answer the peer sees that event
 * twice (remote events are at least once when links fail, as a
 * retransmission's are).  The caller sees the send succeed once the
 * remote event is answered, or when no sending is left.
 */
bool gnicore_smsg_event(struct gnicore_ep *ep, uint64_t *e, uint64_t seq,
			unsigned int tries)
{
	struct gnicore_nic *nic;
	struct gnicore_smsg *s;
	unsigned long flags;
	bool swallow = false;

	if (!ugni_cqe_status(*e) || !ep)
		return false;
	nic = ep->nic;
	s = smsg_of(ep);
	if (!s)
		return false;
	flags = gnicore_lock(&s->lock);
	if (credit_word(s) >= seq) {
		/* One sending more than a message gets: it arrived. */
		if (tries <= nic->smsg_max_retrans)
			swallow = smsg_resend(ep, s, *e, seq, tries, true);
		if (!swallow)
			ugni_cqe_set_field(e, GEMINI_CQE_STATUS_SHIFT,
					   GEMINI_CQE_STATUS_MASK, 0);
		gnicore_unlock(&s->lock, flags);
		return swallow;
	}
	if (s->retransmit && !s->broken && tries < nic->smsg_max_retrans)
		swallow = smsg_resend(ep, s, *e, seq, tries, false);
	if (!swallow)
		s->broken = true;
	gnicore_unlock(&s->lock, flags);
	return swallow;
}

/* Forget @ep's SMSG state (GNI_EpUnbind, GNI_EpDestroy). */
void gnicore_smsg_fini(struct gnicore_ep *ep)
{
	gnicore_smsg_free(gnicore_smsg_detach(ep));
}
