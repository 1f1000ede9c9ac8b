// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Completion queues.  The ring the device writes is mapped into the
 * process: an entry with a non-zero source is new; the consumer zeroes it
 * and writes its read index to the CQ's user page (an MMIO store, no
 * system call), which frees the slot for the device.  Only a blocking
 * wait on an empty CQ enters the kernel (KGNI_IOC_CQ_WAIT).
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#include "kgni_ioctl.h"
#include "ugni_priv.h"

gni_return_t ugni_cq_make(struct gni_nic *nic, uint32_t entries,
			  gni_cq_mode_t mode, bool internal,
			  struct gni_cq **out)
{
	struct kgni_cq_create c = { .size = sizeof(c) };
	struct kgni_cq_destroy d = { .size = sizeof(d) };
	struct gni_cq *cq;
	int err;

	/* One slot stays free, so entries events need entries + 1 slots. */
	if (!entries || entries >= KGNI_CQ_MAX_ENTRIES)
		return GNI_RC_INVALID_PARAM;
	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return GNI_RC_ERROR_NOMEM;
	c.entries = entries + 1;
	c.flags = GNI_CQ_IS_BLOCKING(mode) ? KGNI_CQ_BLOCKING : 0;
	err = ugni_ioctl(nic, KGNI_IOC_CQ_CREATE, &c);
	if (err) {
		free(cq);
		return ugni_errno_rc(err);
	}
	cq->nic = nic;
	cq->id = c.cq_id;
	cq->entries = c.entries;
	cq->mode = mode;
	cq->internal = internal;
	cq->ring_size = c.ring_size;
	cq->ring = ugni_map(nic, c.ring_offset, c.ring_size,
			    PROT_READ | PROT_WRITE);
	cq->user = ugni_map(nic, c.user_offset, UGNI_PAGE,
			    PROT_READ | PROT_WRITE);
	if (!cq->ring || !cq->user) {
		err = errno;
		if (cq->ring)
			munmap((void *)cq->ring, cq->ring_size);
		if (cq->user)
			munmap((void *)cq->user, UGNI_PAGE);
		d.cq_id = cq->id;
		ugni_ioctl(nic, KGNI_IOC_CQ_DESTROY, &d);
		free(cq);
		return ugni_errno_rc(err);
	}
	pthread_mutex_init(&cq->lock, NULL);
	pthread_mutex_lock(&nic->lock);
	cq->next = nic->cqs;
	nic->cqs = cq;
	pthread_mutex_unlock(&nic->lock);
	*out = cq;
	return GNI_RC_SUCCESS;
}

/* Unmap and free @cq and the FMA descriptors bound to it. */
void ugni_cq_unmake(struct gni_cq *cq)
{
	struct kgni_cq_destroy d = { .size = sizeof(d), .cq_id = cq->id };
	struct gni_nic *nic = cq->nic;
	struct ugni_fma *f, *next;
	struct gni_cq **pp;

	pthread_mutex_lock(&nic->lock);
	for (pp = &nic->cqs; *pp; pp = &(*pp)->next) {
		if (*pp == cq) {
			*pp = cq->next;
			break;
		}
	}
	for (f = nic->fmas; f; f = next) {
		next = f->next;
		if (f->cq == cq) {
			f->ep_refs = 1;
			ugni_fma_put(nic, f);
		}
	}
	if (nic->null_cq == cq)
		nic->null_cq = NULL;
	pthread_mutex_unlock(&nic->lock);
	munmap((void *)cq->ring, cq->ring_size);
	munmap((void *)cq->user, UGNI_PAGE);
	ugni_ioctl(nic, KGNI_IOC_CQ_DESTROY, &d);
	pthread_mutex_destroy(&cq->lock);
	free(cq);
}

UGNI_EXPORT gni_return_t GNI_CqCreate(gni_nic_handle_t nic_hndl,
				      uint32_t entry_count,
				      uint32_t delay_count,
				      gni_cq_mode_t mode,
				      void (*handler)(gni_cq_entry_t *, void *),
				      void *context, gni_cq_handle_t *cq_hndl)
{
	gni_return_t rc;
	struct gni_cq *cq;

	(void)delay_count;	/* the device interrupts on every event */
	if (!nic_hndl || !cq_hndl || GNI_CQ_IS_EMULATED(mode) ||
	    (mode & ~(gni_cq_mode_t)(GNI_CQ_BLOCKING | GNI_CQ_PHYS_PAGES |
				     GNI_CQ_UNMANAGED)))
		return GNI_RC_INVALID_PARAM;
	rc = ugni_cq_make(nic_hndl, entry_count, mode, false, &cq);
	if (rc != GNI_RC_SUCCESS)
		return rc;
	cq->handler = handler;
	cq->context = context;
	*cq_hndl = cq;
	return GNI_RC_SUCCESS;
}

UGNI_EXPORT gni_return_t GNI_CqDestroy(gni_cq_handle_t cq_hndl)
{
	struct gni_nic *nic;
	bool busy;

	if (!cq_hndl || cq_hndl->internal)
		return GNI_RC_INVALID_PARAM;
	nic = cq_hndl->nic;
	pthread_mutex_lock(&nic->lock);
	/*
	 * Endpoints keep a CQ (§17.4); registrations do not: kgni detaches
	 * them, and their remote events stop.
	 */
	busy = cq_hndl->ep_refs;
	if (!busy)
		ugni_mem_cq_gone(nic, cq_hndl);
	pthread_mutex_unlock(&nic->lock);
	if (busy)
		return GNI_RC_ERROR_RESOURCE;
	ugni_cq_unmake(cq_hndl);
	return GNI_RC_SUCCESS;
}

static gni_return_t cq_take(struct gni_cq *cq, gni_cq_entry_t *out,
			    bool consume)
{
	struct gni_nic *nic = cq->nic;
	struct gni_ep *smsg_ep;
	struct msgq_tx *msgq_tx;
	uint64_t e, tid, seq;
	unsigned int tries;

again:
	smsg_ep = NULL;
	msgq_tx = NULL;
	seq = 0;
	tries = 0;
	pthread_mutex_lock(&cq->lock);
	e = __atomic_load_n(&cq->ring[cq->rd], __ATOMIC_ACQUIRE);
	if (!ugni_cqe_source(e)) {
		pthread_mutex_unlock(&cq->lock);
		return GNI_RC_NOT_DONE;
	}
	if (consume) {
		cq->ring[cq->rd] = 0;
		cq->rd = (cq->rd + 1) % cq->entries;
		/* An MMIO store: the device may use the slot again. */
		cq->user[GEMINI_CQ_READ_INDEX_OFFSET / 8] = cq->rd;
	}
	pthread_mutex_unlock(&cq->lock);
	if (!consume)
		return e & GEMINI_CQE_OVERRUN ? GNI_RC_ERROR_RESOURCE :
		       GNI_RC_SUCCESS;

	/*
	 * A local event shows its endpoint's local_event as inst_id; an
	 * SMSG send's, its msg_id (the same bits), and its tid goes back:
	 * nobody calls GNI_GetCompleted for it.
	 */
	tid = ugni_cqe_tid(e);
	if (ugni_cqe_local(e) && tid != UGNI_TID_NONE) {
		pthread_mutex_lock(&nic->lock);
		if (nic->req[tid].used) {
			ugni_cqe_set_field(&e, UGNI_CQE_ID_SHIFT,
					   UGNI_CQE_ID_MASK,
					   nic->req[tid].local_event);
			if (nic->req[tid].smsg_seq) {
				smsg_ep = nic->req[tid].ep;
				seq = nic->req[tid].smsg_seq;
				tries = nic->req[tid].smsg_tries;
				nic->req[tid].smsg_seq = 0;
				ugni_req_free(nic, (uint32_t)tid);
			} else if (!nic->req[tid].desc) {
				/* A MSGQ send's */
				msgq_tx = nic->req[tid].msgq;
				ugni_req_free(nic, (uint32_t)tid);
			}
		}
		pthread_mutex_unlock(&nic->lock);
		/* A failed send goes again: the caller never sees it. */
		if (seq && ugni_smsg_event(smsg_ep, &e, seq, tries))
			goto again;
		if (msgq_tx && ugni_msgq_event(nic, msgq_tx, &e))
			goto again;
	} else if (ugni_cqe_local(e) &&
		   (ugni_cqe_type(e) == GNI_CQ_EVENT_TYPE_SMSG ||
		    ugni_cqe_type(e) == GNI_CQ_EVENT_TYPE_MSGQ)) {
		/*
		 * A credit return or a read of the count (SMSG, MSGQ) that
		 * failed: the next one makes up for it.
		 */
		goto again;
	}
	if (cq->handler)
		cq->handler(&e, cq->context);
	*out = e;
	if (e & GEMINI_CQE_OVERRUN)
		return GNI_RC_ERROR_RESOURCE;
	if (e >> GEMINI_CQE_STATUS_SHIFT & GEMINI_CQE_STATUS_MASK)
		return GNI_RC_TRANSACTION_ERROR;
	return GNI_RC_SUCCESS;
}

UGNI_EXPORT gni_return_t GNI_CqGetEvent(gni_cq_handle_t cq_hndl,
					gni_cq_entry_t *event_data)
{
	if (!cq_hndl || !event_data)
		return GNI_RC_INVALID_PARAM;
	return cq_take(cq_hndl, event_data, true);
}

UGNI_EXPORT gni_return_t GNI_CqTestEvent(gni_cq_handle_t cq_hndl)
{
	gni_cq_entry_t e;

	if (!cq_hndl)
		return GNI_RC_INVALID_PARAM;
	return cq_take(cq_hndl, &e, false);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/*
 * Sleep until @cq may hold an event or @deadline (ms, UINT64_MAX: none)
 * passes.  GNI_RC_SUCCESS to look again, GNI_RC_TIMEOUT, or an error.
 */
static gni_return_t cq_sleep(struct gni_cq *cq, uint64_t deadline)
{
	struct kgni_cq_wait w = { .size = sizeof(w), .cq_id = cq->id };
	uint64_t now = now_ms();
	int err;

	if (deadline != UINT64_MAX && now >= deadline)
		return GNI_RC_TIMEOUT;
	w.timeout_ms = deadline == UINT64_MAX ? KGNI_CQ_WAIT_FOREVER :
		       deadline - now >= KGNI_CQ_WAIT_FOREVER ?
		       KGNI_CQ_WAIT_FOREVER - 1 : (uint32_t)(deadline - now);
	err = ugni_ioctl(cq->nic, KGNI_IOC_CQ_WAIT, &w);
	if (!err || err == EINTR || err == ETIMEDOUT)
		return GNI_RC_SUCCESS;	/* look (once more) */
	return ugni_errno_rc(err);
}

static uint64_t deadline_of(uint64_t timeout)
{
	if (timeout == (uint64_t)-1 || timeout == (uint32_t)-1)
		return UINT64_MAX;
	return now_ms() + timeout;
}

UGNI_EXPORT gni_return_t GNI_CqWaitEvent(gni_cq_handle_t cq_hndl,
					 uint64_t timeout,
					 gni_cq_entry_t *event_data)
{
	uint64_t deadline;
	gni_return_t rc;

	if (!cq_hndl || !event_data)
		return GNI_RC_INVALID_PARAM;
	if (!GNI_CQ_IS_BLOCKING(cq_hndl->mode))
		return GNI_RC_ERROR_RESOURCE;
	deadline = deadline_of(timeout);
	for (;;) {
		rc = cq_take(cq_hndl, event_data, true);
		if (rc != GNI_RC_NOT_DONE)
			return rc;
		rc = cq_sleep(cq_hndl, deadline);
		if (rc != GNI_RC_SUCCESS)
			return rc;
	}
}

UGNI_EXPORT gni_return_t GNI_CqVectorWaitEvent(gni_cq_handle_t *cq_hndls,
					       uint32_t num_cqs,
					       uint64_t timeout,
					       gni_cq_entry_t *event_data,
					       uint32_t *which)
{
	uint64_t deadline;
	gni_return_t rc;
	uint32_t i;

	if (!cq_hndls || !num_cqs || !event_data || !which)
		return GNI_RC_INVALID_PARAM;
	for (i = 0; i < num_cqs; i++)
		if (!cq_hndls[i] || !GNI_CQ_IS_BLOCKING(cq_hndls[i]->mode))
			return GNI_RC_INVALID_PARAM;
	deadline = deadline_of(timeout);
	for (;;) {
		for (i = 0; i < num_cqs; i++) {
			rc = cq_take(cq_hndls[i], event_data, true);
			if (rc != GNI_RC_NOT_DONE) {
				*which = i;
				return rc;
			}
		}
		/*
		 * One wait covers one CQ: sleep on the first in short
		 * slices so the others are looked at too.
		 */
		if (deadline != UINT64_MAX && now_ms() >= deadline)
			return GNI_RC_TIMEOUT;
		rc = cq_sleep(cq_hndls[0], num_cqs == 1 ? deadline :
			      deadline == UINT64_MAX ? now_ms() + 10 :
			      deadline < now_ms() + 10 ? deadline :
			      now_ms() + 10);
		if (rc != GNI_RC_SUCCESS && rc != GNI_RC_TIMEOUT)
			return rc;
	}
}

UGNI_EXPORT gni_return_t GNI_CqVectorMonitor(gni_cq_handle_t *cq_hndls,
					     uint32_t num_cqs,
					     uint64_t timeout,
					     uint32_t *which)
{
	uint64_t deadline;
	gni_return_t rc;
	uint32_t i;

	if (!cq_hndls || !num_cqs || !which)
		return GNI_RC_INVALID_PARAM;
	for (i = 0; i < num_cqs; i++)
		if (!cq_hndls[i] || !GNI_CQ_IS_BLOCKING(cq_hndls[i]->mode))
			return GNI_RC_INVALID_PARAM;
	deadline = deadline_of(timeout);
	for (;;) {
		for (i = 0; i < num_cqs; i++) {
			if (GNI_CqTestEvent(cq_hndls[i]) != GNI_RC_NOT_DONE) {
				*which = i;
				return GNI_RC_SUCCESS;
			}
		}
		if (deadline != UINT64_MAX && now_ms() >= deadline)
			return GNI_RC_TIMEOUT;
		rc = cq_sleep(cq_hndls[0], deadline == UINT64_MAX ?
			      now_ms() + 10 : deadline < now_ms() + 10 ?
			      deadline : now_ms() + 10);
		if (rc != GNI_RC_SUCCESS && rc != GNI_RC_TIMEOUT)
			return rc;
	}
}

/*
 * The mask is a count (§17.4).  The device interrupts on every event and
 * a wait always re-checks the ring, so masking only keeps the count.
 */
UGNI_EXPORT gni_return_t GNI_CqInterruptMask(gni_cq_handle_t cq_hndl)
{
	if (!cq_hndl || !GNI_CQ_IS_BLOCKING(cq_hndl->mode))
		return GNI_RC_INVALID_PARAM;
	__atomic_add_fetch(&cq_hndl->irq_mask, 1, __ATOMIC_RELAXED);
	return GNI_RC_SUCCESS;
}

UGNI_EXPORT gni_return_t GNI_CqInterruptUnmask(gni_cq_handle_t cq_hndl)
{
	if (!cq_hndl || !GNI_CQ_IS_BLOCKING(cq_hndl->mode) ||
	    !cq_hndl->irq_mask)
		return GNI_RC_INVALID_PARAM;
	__atomic_sub_fetch(&cq_hndl->irq_mask, 1, __ATOMIC_RELAXED);
	return GNI_RC_SUCCESS;
}

/*
 * The post of a local event.  An FMA post has one event; an RDMA post one
 * per event it asked for (LOCAL, told by UGNI_CQE_LOCAL_FLAG, and
 * GLOBAL), each handing the descriptor back with cq_mode_complete saying
 * which came so far, the last one releasing it.  A failed transfer makes
 * exactly one event, with its status: that one releases the post.
 */
UGNI_EXPORT gni_return_t GNI_GetCompleted(gni_cq_handle_t cq_hndl,
					  gni_cq_entry_t event_data,
					  gni_post_descriptor_t **post_descr)
{
	const uint16_t ev = GNI_CQMODE_LOCAL_EVENT | GNI_CQMODE_GLOBAL_EVENT;
	uint64_t tid = ugni_cqe_tid(event_data);
	uint64_t status = ugni_cqe_status(event_data);
	struct gni_nic *nic;
	struct ugni_req *r;
	gni_post_descriptor_t *d;
	uint16_t seen;
	bool done;

	if (!cq_hndl || !post_descr)
		return GNI_RC_INVALID_PARAM;
	if (!ugni_cqe_local(event_data) ||
	    ugni_cqe_type(event_data) != GNI_CQ_EVENT_TYPE_POST ||
	    tid == UGNI_TID_NONE) {
		/* An event without a post: a silent post's error, SMSG... */
		*post_descr = NULL;
		return GNI_RC_DESCRIPTOR_ERROR;
	}
	nic = cq_hndl->nic;
	pthread_mutex_lock(&nic->lock);
	r = &nic->req[tid];
	if (!r->used) {
		pthread_mutex_unlock(&nic->lock);
		return GNI_RC_INVALID_PARAM;
	}
	d = r->desc;
	if (r->want) {
		r->seen |= event_data & UGNI_CQE_LOCAL_FLAG ?
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
		ugni_req_free(nic, (uint32_t)tid);
	}
	pthread_mutex_unlock(&nic->lock);
	*post_descr = d;
	return status ? GNI_RC_TRANSACTION_ERROR : GNI_RC_SUCCESS;
}
