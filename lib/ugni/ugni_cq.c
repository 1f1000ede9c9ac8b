// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Completion queues.  The ring the device writes is mapped into the
 * process, and so is the CQ's user page: gnicore takes the events
 * (gnicore_cq.c) without a system call.  Only a blocking wait on an empty
 * CQ enters the kernel (KGNI_IOC_CQ_WAIT).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
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
	cq->mode = mode;
	cq->internal = internal;
	cq->ring_size = c.ring_size;
	cq->core.ring = ugni_map(nic, c.ring_offset, c.ring_size,
				 PROT_READ | PROT_WRITE);
	cq->core.user = ugni_map(nic, c.user_offset, UGNI_PAGE,
				 PROT_READ | PROT_WRITE);
	if (!cq->core.ring || !cq->core.user) {
		err = errno;
		if (cq->core.ring)
			munmap(cq->core.ring, cq->ring_size);
		if (cq->core.user)
			munmap((void *)cq->core.user, UGNI_PAGE);
		d.cq_id = c.cq_id;
		ugni_ioctl(nic, KGNI_IOC_CQ_DESTROY, &d);
		free(cq);
		return ugni_errno_rc(err);
	}
	gnicore_cq_init(&cq->core, &nic->core, c.cq_id, c.entries);
	pthread_mutex_lock(&nic->core.lock);
	cq->next = nic->cqs;
	nic->cqs = cq;
	pthread_mutex_unlock(&nic->core.lock);
	*out = cq;
	return GNI_RC_SUCCESS;
}

/* Unmap and free @cq and the FMA descriptors bound to it. */
void ugni_cq_unmake(struct gni_cq *cq)
{
	struct kgni_cq_destroy d = { .size = sizeof(d), .cq_id = cq->core.id };
	struct gni_nic *nic = ugni_cq_nic(cq);
	struct ugni_fma *f, *next;
	struct gni_cq **pp;

	pthread_mutex_lock(&nic->core.lock);
	for (pp = &nic->cqs; *pp; pp = &(*pp)->next) {
		if (*pp == cq) {
			*pp = cq->next;
			break;
		}
	}
	for (f = nic->fmas; f; f = next) {
		next = f->next;
		if (f->core.cq == &cq->core) {
			f->ep_refs = 1;
			ugni_fma_put(nic, f);
		}
	}
	if (nic->null_cq == cq)
		nic->null_cq = NULL;
	pthread_mutex_unlock(&nic->core.lock);
	ugni_unmap(nic, cq->core.ring, cq->ring_size);
	ugni_unmap(nic, (void *)cq->core.user, UGNI_PAGE);
	ugni_ioctl(nic, KGNI_IOC_CQ_DESTROY, &d);
	gnicore_cq_fini(&cq->core);
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
	nic = ugni_cq_nic(cq_hndl);
	pthread_mutex_lock(&nic->core.lock);
	/*
	 * Endpoints keep a CQ (§17.4); registrations do not: kgni detaches
	 * them, and their remote events stop.
	 */
	busy = cq_hndl->ep_refs;
	if (!busy)
		ugni_mem_cq_gone(nic, cq_hndl);
	pthread_mutex_unlock(&nic->core.lock);
	if (busy)
		return GNI_RC_ERROR_RESOURCE;
	ugni_cq_unmake(cq_hndl);
	return GNI_RC_SUCCESS;
}

/*
 * Take @cq's next event (gnicore_cq_take()); a MSGQ send's goes to
 * ugni_msgq_event(), which sends a failed one again unseen, then the
 * CQ's handler sees it.
 */
static gni_return_t cq_take(struct gni_cq *cq, gni_cq_entry_t *out)
{
	gni_cq_entry_t e;
	void *tx;

	do {
		if (gnicore_cq_take(&cq->core, &e, &tx) == GNI_RC_NOT_DONE)
			return GNI_RC_NOT_DONE;
	} while (tx && ugni_msgq_event(ugni_cq_nic(cq), tx, &e));
	if (cq->handler)
		cq->handler(&e, cq->context);
	*out = e;
	return gnicore_cqe_rc(e);
}

/*
 * Every UGNI_IDLE_POLLS-th empty poll in a row reads the CQ page's idle
 * register, where the vCPU may wait a little for the NIC to write
 * instead of holding a host CPU that the rank it waits for may need
 * (Documentation/device.rst, "Idle polls").  VGEMINI_IDLE_POLLS=0 turns
 * it off.
 */
#define UGNI_IDLE_POLLS 32

static bool idle_polls(void)
{
	static int on = -1;
	int v = __atomic_load_n(&on, __ATOMIC_RELAXED);

	if (v < 0) {
		const char *e = getenv("VGEMINI_IDLE_POLLS");

		v = !(e && !strcmp(e, "0"));
		__atomic_store_n(&on, v, __ATOMIC_RELAXED);
	}
	return v;
}

void ugni_idle_poll(struct gnicore_cq *cq, unsigned int *empty_polls)
{
	if (__atomic_add_fetch(empty_polls, 1, __ATOMIC_RELAXED) %
	    UGNI_IDLE_POLLS)
		return;
	if (idle_polls() && cq && cq->user)
		(void)gnicore_read64(&cq->user[GEMINI_CQ_IDLE_OFFSET / 8]);
}

UGNI_EXPORT gni_return_t GNI_CqGetEvent(gni_cq_handle_t cq_hndl,
					gni_cq_entry_t *event_data)
{
	gni_return_t rc;

	if (!cq_hndl || !event_data)
		return GNI_RC_INVALID_PARAM;
	rc = cq_take(cq_hndl, event_data);
	if (rc == GNI_RC_NOT_DONE)
		ugni_idle_poll(&cq_hndl->core, &cq_hndl->empty_polls);
	else
		__atomic_store_n(&cq_hndl->empty_polls, 0, __ATOMIC_RELAXED);
	return rc;
}

UGNI_EXPORT gni_return_t GNI_CqTestEvent(gni_cq_handle_t cq_hndl)
{
	if (!cq_hndl)
		return GNI_RC_INVALID_PARAM;
	return gnicore_cq_test(&cq_hndl->core);
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
	struct kgni_cq_wait w = { .size = sizeof(w), .cq_id = cq->core.id };
	uint64_t now = now_ms();
	int err;

	if (deadline != UINT64_MAX && now >= deadline)
		return GNI_RC_TIMEOUT;
	w.timeout_ms = deadline == UINT64_MAX ? KGNI_CQ_WAIT_FOREVER :
		       deadline - now >= KGNI_CQ_WAIT_FOREVER ?
		       KGNI_CQ_WAIT_FOREVER - 1 : (uint32_t)(deadline - now);
	err = ugni_ioctl(ugni_cq_nic(cq), KGNI_IOC_CQ_WAIT, &w);
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
		rc = cq_take(cq_hndl, event_data);
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
			rc = cq_take(cq_hndls[i], event_data);
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

/* The post of a local event (gnicore_get_completed()) */
UGNI_EXPORT gni_return_t GNI_GetCompleted(gni_cq_handle_t cq_hndl,
					  gni_cq_entry_t event_data,
					  gni_post_descriptor_t **post_descr)
{
	if (!cq_hndl)
		return GNI_RC_INVALID_PARAM;
	return gnicore_get_completed(&cq_hndl->core, event_data, post_descr);
}
