// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Taking events from a CQ.  The device writes an entry with a non-zero
 * source into the ring; the consumer zeroes it and writes its read index
 * to the CQ's page of the device, which frees the slot for the device (a
 * store, no system call).  A local event finds its request by the tid in
 * its data: it shows the request's local_event, an SMSG send's failure
 * is sent again, and the client's own requests are handed back.  Then
 * GNI_GetCompleted (a post's descriptor) and GNI_CqErrorStr and
 * GNI_CqErrorRecoverable (gemini-hw.md §8.3, §8.4).
 */
#include "gnicore_priv.h"

/* @cq, the device's CQ @id of @entries slots, its ring and page mapped */
void gnicore_cq_init(struct gnicore_cq *cq, struct gnicore_nic *nic,
		     uint32_t id, uint32_t entries)
{
	cq->nic = nic;
	cq->id = id;
	cq->entries = entries;
	cq->rd = 0;
	cq->mem_refs = 0;
	gnicore_lock_init(&cq->lock);
}

void gnicore_cq_fini(struct gnicore_cq *cq)
{
	gnicore_lock_destroy(&cq->lock);
}

/*
 * Take the next event of @cq into @e: GNI_RC_NOT_DONE if there is none,
 * else the event's gnicore_cqe_rc().  A local event shows its endpoint's
 * local_event as inst_id; an SMSG send's, its msg_id (the same bits), and
 * its tid goes back: nobody calls GNI_GetCompleted for it.  A failed
 * SMSG send is sent again and a failed credit return or read of the count
 * dropped, unseen: the next event is taken instead.  The event of a
 * client's own request comes back with its gnicore_req.client in
 * @client (its tid freed); else @client is NULL.
 */
gni_return_t gnicore_cq_take(struct gnicore_cq *cq, uint64_t *e,
			     void **client)
{
	struct gnicore_nic *nic = cq->nic;
	struct gnicore_ep *smsg_ep;
	struct gnicore_req *r;
	unsigned long flags;
	uint64_t ev, tid, seq;
	unsigned int tries;

again:
	smsg_ep = NULL;
	seq = 0;
	tries = 0;
	*client = NULL;
	flags = gnicore_lock(&cq->lock);
	ev = gnicore_load_acquire(&cq->ring[cq->rd]);
	if (!ugni_cqe_source(ev)) {
		gnicore_unlock(&cq->lock, flags);
		return GNI_RC_NOT_DONE;
	}
	gnicore_write_once(&cq->ring[cq->rd], 0);
	cq->rd = (cq->rd + 1) % cq->entries;
	/* A store to the device: it may use the slot again. */
	gnicore_env_cq_set_rd(cq);
	gnicore_unlock(&cq->lock, flags);

	tid = ugni_cqe_tid(ev);
	if (ugni_cqe_local(ev) && tid != UGNI_TID_NONE) {
		flags = gnicore_lock(&nic->lock);
		r = tid < nic->nreqs ? &nic->req[tid] : NULL;
		if (r && r->used) {
			ugni_cqe_set_field(&ev, UGNI_CQE_ID_SHIFT,
					   UGNI_CQE_ID_MASK, r->local_event);
			if (r->smsg_seq) {
				smsg_ep = r->ep;
				seq = r->smsg_seq;
				tries = r->smsg_tries;
				r->smsg_seq = 0;
				gnicore_req_free(nic, (uint32_t)tid);
			} else if (!r->desc) {
				*client = r->client;
				gnicore_req_free(nic, (uint32_t)tid);
			}
		}
		gnicore_unlock(&nic->lock, flags);
		/* A failed send goes again: the caller never sees it. */
		if (seq && gnicore_smsg_event(smsg_ep, &ev, seq, tries))
			goto again;
	} else if (ugni_cqe_local(ev) &&
		   (ugni_cqe_type(ev) == GNI_CQ_EVENT_TYPE_SMSG ||
		    ugni_cqe_type(ev) == GNI_CQ_EVENT_TYPE_MSGQ)) {
		/*
		 * A credit return or a read of the count (SMSG, MSGQ) that
		 * failed: the next one makes up for it.
		 */
		goto again;
	}
	*e = ev;
	return gnicore_cqe_rc(ev);
}

/* GNI_CqTestEvent: whether @cq holds an event, without taking it */
gni_return_t gnicore_cq_test(struct gnicore_cq *cq)
{
	unsigned long flags;
	uint64_t ev;

	flags = gnicore_lock(&cq->lock);
	ev = gnicore_load_acquire(&cq->ring[cq->rd]);
	gnicore_unlock(&cq->lock, flags);
	if (!ugni_cqe_source(ev))
		return GNI_RC_NOT_DONE;
	return ev & GEMINI_CQE_OVERRUN ? GNI_RC_ERROR_RESOURCE :
	       GNI_RC_SUCCESS;
}

/*
 * GNI_GetCompleted: the post of local event @e.  An FMA post has one
 * event; an RDMA post one per event it asked for (LOCAL, told by
 * UGNI_CQE_LOCAL_FLAG, and GLOBAL), each handing the descriptor back with
 * cq_mode_complete saying which came so far, the last one releasing it.
 * A failed transfer makes exactly one event, with its status: that one
 * releases the post.
 */
gni_return_t gnicore_get_completed(struct gnicore_cq *cq, uint64_t e,
				   gni_post_descriptor_t **post_descr)
{
	const uint16_t ev = GNI_CQMODE_LOCAL_EVENT | GNI_CQMODE_GLOBAL_EVENT;
	uint64_t tid = ugni_cqe_tid(e);
	unsigned int status = ugni_cqe_status(e);
	struct gnicore_nic *nic;
	struct gnicore_req *r;
	gni_post_descriptor_t *d;
	unsigned long flags;
	uint16_t seen;
	bool done;

	if (!cq || !post_descr)
		return GNI_RC_INVALID_PARAM;
	if (!ugni_cqe_local(e) || ugni_cqe_type(e) != GNI_CQ_EVENT_TYPE_POST ||
	    tid == UGNI_TID_NONE) {
		/* An event without a post: a silent post's error, SMSG... */
		*post_descr = NULL;
		return GNI_RC_DESCRIPTOR_ERROR;
	}
	nic = cq->nic;
	flags = gnicore_lock(&nic->lock);
	r = tid < nic->nreqs ? &nic->req[tid] : NULL;
	if (!r || !r->used) {
		gnicore_unlock(&nic->lock, flags);
		return GNI_RC_INVALID_PARAM;
	}
	d = r->desc;
	if (r->want) {
		r->seen |= e & UGNI_CQE_LOCAL_FLAG ?
			   GNI_CQMODE_LOCAL_EVENT : GNI_CQMODE_GLOBAL_EVENT;
		seen = r->seen;
		done = status || (seen & r->want) == r->want;
	} else {
		seen = d->cq_mode & ev;
		done = true;
	}
	/* Under the lock: another thread may take the post's other event. */
	d->status = status ? GNI_RC_TRANSACTION_ERROR : GNI_RC_SUCCESS;
	d->cq_mode_complete = seen;
	if (done) {
		if (r->ep && r->ep->outstanding)
			r->ep->outstanding--;
		gnicore_req_free(nic, (uint32_t)tid);
	}
	gnicore_unlock(&nic->lock, flags);
	*post_descr = d;
	return status ? GNI_RC_TRANSACTION_ERROR : GNI_RC_SUCCESS;
}

/* --- CQ errors (gemini-hw.md §8.3, §8.4) --------------------------------- */

/* Designated initialisers from the lists of gni_wire.h */
#define SOURCE_NAME(source, name) \
	[source] = name,
#define STATUS_NAME(status, name) \
	[status] = name,
#define STATUS_BY_SOURCE(status, n0, n1, n2, n3, n4, n5, n6, n7) \
	[status] = { n0, n1, n2, n3, n4, n5, n6, n7 },
#define RECOVERABLE(source, row) \
	[(source) - 1] = row,

static const char *const cqe_source_name[8] = {
	UGNI_CQE_SOURCE_LIST(SOURCE_NAME)
};

static const char *const cqe_status_name[16] = {
	UGNI_CQE_STATUS_LIST(STATUS_NAME)
};

/* By [status][source], for the statuses whose name depends on the source */
static const char *const cqe_status_source_name[16][8] = {
	UGNI_CQE_STATUS_BY_SOURCE_LIST(STATUS_BY_SOURCE)
};

/* By [source - 1], a character per status 1..F */
static const char cqe_recoverable[7][16] = {
	UGNI_CQE_RECOVERABLE_LIST(RECOVERABLE)
};

static const char *cqe_status_str(unsigned int status, unsigned int source)
{
	if (cqe_status_source_name[status][0])
		return cqe_status_source_name[status][source];
	return cqe_status_name[status];
}

/* "<source>:<status>" of entry @e, as snprintf() into @buf of @size */
static int cqe_error_text(uint64_t e, char *buf, size_t size)
{
	unsigned int status = ugni_cqe_status(e);
	unsigned int source = ugni_cqe_source(e);

	return snprintf(buf, size, "%s:%s", cqe_source_name[source],
			cqe_status_str(status, source));
}

/* The bytes GNI_CqErrorStr needs for entry @e: its text and the NUL */
uint32_t gnicore_cq_error_len(uint64_t e)
{
	return (uint32_t)cqe_error_text(e, NULL, 0) + 1;
}

/* GNI_CqErrorStr: "<source>:<status>" of entry @e into @buffer */
gni_return_t gnicore_cq_error_str(uint64_t e, void *buffer, uint32_t len)
{
	char text[96];
	int n;

	if (!buffer)
		return GNI_RC_INVALID_PARAM;
	n = cqe_error_text(e, text, sizeof(text));
	if (n < 0 || (uint32_t)n >= len)
		return GNI_RC_SIZE_ERROR;
	memcpy(buffer, text, (size_t)n + 1);
	return GNI_RC_SUCCESS;
}

/* GNI_CqErrorRecoverable: whether the error of entry @e is recoverable */
gni_return_t gnicore_cq_error_recoverable(uint64_t e, uint32_t *recoverable)
{
	unsigned int status = ugni_cqe_status(e);
	unsigned int source = ugni_cqe_source(e);
	char c;

	if (!recoverable)
		return GNI_RC_INVALID_PARAM;
	if (status == 0 || source == 0)
		return GNI_RC_INVALID_STATE;
	c = cqe_recoverable[source - 1][status - 1];
	if (c == '-')
		return GNI_RC_INVALID_STATE;
	*recoverable = c == 'R';
	return GNI_RC_SUCCESS;
}
