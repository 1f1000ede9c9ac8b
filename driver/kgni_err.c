// SPDX-License-Identifier: GPL-2.0-only
/*
 * kgni: the kernel API's error subscription (gni_subscribe_errors() and
 * the calls on its handle; Documentation/kernel-api.rst, "Errors").
 *
 * A subscriber holds a mask of GNI_ERRMASK_* classes, a ptag filter, a
 * ring of events (none with EEQ_size 0: callbacks only) and its two
 * callbacks.  kgni_err_post() hands an event to every subscriber of the
 * device whose mask and ptag filter it matches; the callbacks are called
 * later from the subscriber's work item on the system workqueue, in
 * process context with no kgni lock held, so that a client may call any
 * kgni function from them.  The event sources are the link-change work
 * (ports, routing tables, quiesce), device removal and the debugfs file
 * kgniN/inject_error.
 *
 * A subscriber is referenced by its device's list, by each queued run of
 * its work and by each thread waiting in gni_wait_error_events(); the
 * last reference frees it, so that a callback may release its own
 * subscription.
 *
 * The subscriptions of user space (KGNI_IOC_ERR_*) and the debugfs file
 * kgniN/inject_error are in kgni_err_user.c; kgni_err.h holds what the
 * two files share: a subscriber's end, free and work, and the taking of
 * queued events.
 */
#include <linux/export.h>
#include <linux/kref.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "kgni_err.h"

/* gni_wait_error_events()'s timeout that waits for ever */
#define KGNI_ERR_FOREVER	U32_MAX

void kgni_err_free(struct kref *ref)
{
	struct gni_err *err = container_of(ref, struct gni_err, ref);

	kvfree(err->ring);
	kfree(err);
}

/* Call the callbacks the events since the last run asked for. */
void kgni_err_work(struct work_struct *work)
{
	struct gni_err *err = container_of(work, struct gni_err, work);
	unsigned int news, crits;

	spin_lock_irq(&err->lock);
	news = err->new_calls;
	crits = err->crit_calls;
	err->new_calls = 0;
	err->crit_calls = 0;
	spin_unlock_irq(&err->lock);
	/* A callback may release the subscription: no call after that. */
	while (news-- && !READ_ONCE(err->dead))
		err->new_event(err);
	while (crits-- && !READ_ONCE(err->dead))
		err->crit(err);
	kref_put(&err->ref, kgni_err_free);
}

/* Queue @ev for @err if it matches; &kgni_kapi_state.lock held. */
static void kgni_err_deliver(struct gni_err *err, const gni_error_event_t *ev)
{
	bool crit = ev->error_category == GNI_ERRMASK_CRITICAL;
	gni_error_event_t *slot;
	bool match, queue;

	spin_lock(&err->lock);
	match = (err->mask & ev->error_category) &&
		(!ev->ptag || !err->ptag || ev->ptag == err->ptag);
	/* A released job's ptag may be another job's now. */
	if (match && ev->ptag && err->own &&
	    READ_ONCE(err->kfile->dom.revoked))
		match = false;
	if (match) {
		err->serial++;
		if (err->size) {
			/* Full: the oldest goes, a gap in the serials. */
			slot = &err->ring[(err->head + err->count) % err->size];
			if (err->count == err->size) {
				err->head = (err->head + 1) % err->size;
				err->overruns++;
			} else {
				err->count++;
			}
			*slot = *ev;
			slot->serial_number = err->serial;
		}
		if (err->new_event)
			err->new_calls++;
	}
	/* A critical error concerns every subscriber, whatever its mask. */
	if (crit && err->crit)
		err->crit_calls++;
	queue = err->new_calls || err->crit_calls;
	spin_unlock(&err->lock);
	if (match && err->size)
		wake_up(&err->wq);
	if (!queue)
		return;
	/* The list's reference keeps @err: this put never frees it. */
	kref_get(&err->ref);
	if (!schedule_work(&err->work))
		kref_put(&err->ref, kgni_err_free);
}

/**
 * kgni_err_post() - deliver one error event to a device's subscribers
 * @kdev: the device
 * @category: its class, one GNI_ERRMASK_* bit
 * @code: its KGNI_ERR_* code
 * @ptag: the ptag it concerns, or 0 for every subscriber
 * @i0: info_mmrs[0]
 * @i1: info_mmrs[1]
 * @i2: info_mmrs[2]
 *
 * Context: any; takes &kgni_kapi_state.lock, calls no callback.
 */
void kgni_err_post(struct kgni_dev *kdev, u8 category, u16 code, u8 ptag,
		   u64 i0, u64 i1, u64 i2)
{
	gni_error_event_t ev = {
		.error_code = code,
		.error_category = category,
		.ptag = ptag,
		.timestamp = ktime_get_real_ns(),
		.info_mmrs = { i0, i1, i2, 0 },
	};
	struct gni_err *err;
	unsigned long flags;

	spin_lock_irqsave(&kdev->kapi.lock, flags);
	list_for_each_entry(err, &kdev->err.list, node)
		kgni_err_deliver(err, &ev);
	spin_unlock_irqrestore(&kdev->kapi.lock, flags);
}

/* A new device: no subscription yet. */
void kgni_err_dev_init(struct kgni_dev *kdev)
{
	INIT_LIST_HEAD(&kdev->err.list);
}

/* Remove: the critical event that tells the clients to reset. */
void kgni_err_dev_remove(struct kgni_dev *kdev)
{
	kgni_err_post(kdev, GNI_ERRMASK_CRITICAL, KGNI_ERR_DEV_REMOVED, 0,
		      kdev->minor, 0, 0);
}

/*
 * After @err left its device's list: no callback runs once this returns
 * (but the one calling it, if called from @err's callback).  Drops the
 * list's reference.
 */
void kgni_err_finish(struct gni_err *err)
{
	WRITE_ONCE(err->tag, KGNI_TAG_INVALID);
	wake_up(&err->wq);
	if (current_work() != &err->work)
		flush_work(&err->work);
	kref_put(&err->ref, kgni_err_free);
}

/**
 * kgni_err_nic_free() - free the subscriptions a NIC's client left
 * @nic: the NIC, being destroyed
 *
 * A thread still waiting in gni_wait_error_events() on one is woken and
 * gets INVALID_PARAM.
 *
 * Context: process context, may sleep.
 * Return: the subscriptions freed.
 */
unsigned int kgni_err_nic_free(struct gni_nic *nic)
{
	struct kgni_dev *kdev = nic->kdev;
	struct gni_err *err, *tmp;
	unsigned int n = 0;
	unsigned long flags;
	LIST_HEAD(left);

	spin_lock_irqsave(&kdev->kapi.lock, flags);
	list_for_each_entry_safe(err, tmp, &kdev->err.list, node) {
		if (err->nic != nic)
			continue;
		spin_lock(&err->lock);
		err->dead = true;
		spin_unlock(&err->lock);
		list_move(&err->node, &left);
		kdev->err.nkernel--;
	}
	spin_unlock_irqrestore(&kdev->kapi.lock, flags);
	list_for_each_entry_safe(err, tmp, &left, node) {
		kgni_err_finish(err);
		n++;
	}
	return n;
}

/**
 * gni_subscribe_errors() - subscribe to a device's error events
 * @nic_handle: the NIC; its device's events are delivered
 * @mask: the GNI_ERRMASK_* classes wanted
 * @EEQ_size: events the subscription's queue holds (at most
 *            KGNI_ERR_MAX_EEQ); 0: no queue, callbacks only
 * @EQ_new_event: called once for each event that matches, or NULL
 * @app_crit_err: called once for each CRITICAL event of the device,
 *                whatever @mask and the ptag filter, or NULL
 * @err_handle: the new subscription
 *
 * Both callbacks are called from a work item of the system workqueue, in
 * process context, with no kgni lock held: they may sleep and call kgni,
 * gni_release_errors() of their own subscription included.  The ptag
 * filter is the NIC's ptag (gni_set_error_ptag() changes it).  A device
 * takes KGNI_ERR_MAX_SUBS subscriptions.
 *
 * Context: process context, may sleep.
 * Return: SUCCESS, INVALID_PARAM (@EEQ_size too), ERROR_RESOURCE (no
 * memory, as many subscriptions as the device takes, or the device was
 * removed).
 */
gni_return_t gni_subscribe_errors(gni_nic_handle_t nic_handle,
				  gni_error_mask_t mask, u32 EEQ_size,
				  void (*EQ_new_event)(gni_err_handle_t),
				  void (*app_crit_err)(gni_err_handle_t),
				  gni_err_handle_t *err_handle)
{
	struct gni_nic *nic = nic_handle;
	gni_return_t rc = GNI_RC_SUCCESS;
	struct kgni_dev *kdev;
	unsigned long flags;
	struct gni_err *err;
	int why = 0;

	if (!kgni_may_sleep() || !kgni_is(nic, KGNI_TAG_NIC) || !err_handle)
		return kgni_kapi_ret(gni_subscribe_errors,
				     GNI_RC_INVALID_PARAM, EINVAL, 0);
	if (EEQ_size > KGNI_ERR_MAX_EEQ)
		return kgni_kapi_ret(gni_subscribe_errors,
				     GNI_RC_INVALID_PARAM, EINVAL, EEQ_size);
	err = kzalloc(sizeof(*err), GFP_KERNEL);
	if (err && EEQ_size)
		err->ring = kvcalloc(EEQ_size, sizeof(*err->ring),
				     GFP_KERNEL);
	if (!err || (EEQ_size && !err->ring)) {
		kfree(err);
		return kgni_kapi_ret(gni_subscribe_errors,
				     GNI_RC_ERROR_RESOURCE, ENOMEM, 0);
	}
	kdev = nic->kdev;
	err->tag = KGNI_TAG_ERR;
	err->nic = nic;
	err->kdev = kdev;
	spin_lock_init(&err->lock);
	err->mask = mask;
	err->ptag = nic->dom.ptag;
	err->size = EEQ_size;
	init_waitqueue_head(&err->wq);
	err->new_event = EQ_new_event;
	err->crit = app_crit_err;
	INIT_WORK(&err->work, kgni_err_work);
	kref_init(&err->ref);

	/* Remove sets gone before it posts its event under this lock. */
	spin_lock_irqsave(&kdev->kapi.lock, flags);
	if (READ_ONCE(kdev->gone)) {
		rc = GNI_RC_ERROR_RESOURCE;
		why = ENODEV;
	} else if (kdev->err.nkernel >= KGNI_ERR_MAX_SUBS) {
		rc = GNI_RC_ERROR_RESOURCE;
		why = ENOSPC;
	} else {
		list_add_tail(&err->node, &kdev->err.list);
		kdev->err.nkernel++;
	}
	spin_unlock_irqrestore(&kdev->kapi.lock, flags);
	if (rc) {
		kgni_err_free(&err->ref);
		return kgni_kapi_ret(gni_subscribe_errors, rc, why,
				     KGNI_ERR_MAX_SUBS);
	}
	*err_handle = err;
	return kgni_kapi_ret(gni_subscribe_errors, GNI_RC_SUCCESS, 0, 0);
}
EXPORT_SYMBOL(gni_subscribe_errors);

/**
 * gni_release_errors() - end a subscription
 * @err_handle: the subscription
 *
 * Events still queued are dropped.  Once it returns no callback of the
 * subscription runs (called from one of them: none after that one).
 *
 * Context: process context, may sleep.
 * Return: SUCCESS, INVALID_PARAM, NOT_DONE (a thread is waiting in
 * gni_wait_error_events() on it: the subscription stays).
 */
gni_return_t gni_release_errors(gni_err_handle_t err_handle)
{
	struct gni_err *err = err_handle;
	struct kgni_dev *kdev;
	unsigned int waiters;
	unsigned long flags;

	if (!kgni_may_sleep() || !kgni_is(err, KGNI_TAG_ERR))
		return kgni_kapi_ret(gni_release_errors, GNI_RC_INVALID_PARAM,
				     EINVAL, 0);
	kdev = err->nic->kdev;
	spin_lock_irqsave(&kdev->kapi.lock, flags);
	spin_lock(&err->lock);
	waiters = err->waiters;
	if (!waiters) {
		err->dead = true;
		list_del(&err->node);
		kdev->err.nkernel--;
	}
	spin_unlock(&err->lock);
	spin_unlock_irqrestore(&kdev->kapi.lock, flags);
	if (waiters)
		return kgni_kapi_ret(gni_release_errors, GNI_RC_NOT_DONE, 0,
				     waiters);
	kgni_err_finish(err);
	return kgni_kapi_ret(gni_release_errors, GNI_RC_SUCCESS, 0, 0);
}
EXPORT_SYMBOL(gni_release_errors);

/**
 * gni_get_error_mask() - the classes a subscription takes
 * @err_handle: the subscription
 * @mask: its GNI_ERRMASK_* mask
 *
 * Context: any.
 * Return: SUCCESS, INVALID_PARAM.
 */
gni_return_t gni_get_error_mask(gni_err_handle_t err_handle,
				gni_error_mask_t *mask)
{
	if (!kgni_is(err_handle, KGNI_TAG_ERR) || !mask)
		return kgni_kapi_ret(gni_get_error_mask, GNI_RC_INVALID_PARAM,
				     EINVAL, 0);
	*mask = READ_ONCE(err_handle->mask);
	return kgni_kapi_ret(gni_get_error_mask, GNI_RC_SUCCESS, 0, 0);
}
EXPORT_SYMBOL(gni_get_error_mask);

/**
 * gni_set_error_mask() - change the classes a subscription takes
 * @err_handle: the subscription
 * @mask_in: the new GNI_ERRMASK_* mask, for the events after this call
 * @mask_out: the mask it replaces
 *
 * Events queued already stay.
 *
 * Context: any.
 * Return: SUCCESS, INVALID_PARAM.
 */
gni_return_t gni_set_error_mask(gni_err_handle_t err_handle,
				gni_error_mask_t mask_in,
				gni_error_mask_t *mask_out)
{
	struct gni_err *err = err_handle;
	unsigned long flags;

	if (!kgni_is(err, KGNI_TAG_ERR) || !mask_out)
		return kgni_kapi_ret(gni_set_error_mask, GNI_RC_INVALID_PARAM,
				     EINVAL, 0);
	spin_lock_irqsave(&err->lock, flags);
	*mask_out = err->mask;
	WRITE_ONCE(err->mask, mask_in);
	spin_unlock_irqrestore(&err->lock, flags);
	return kgni_kapi_ret(gni_set_error_mask, GNI_RC_SUCCESS, 0, 0);
}
EXPORT_SYMBOL(gni_set_error_mask);

/*
 * Take up to @n queued events, oldest first, into @events; @err->lock
 * held.
 */
u32 kgni_err_take(struct gni_err *err, gni_error_event_t *events, u32 n)
{
	u32 i;

	for (i = 0; i < n && err->count; i++) {
		events[i] = err->ring[err->head];
		err->head = (err->head + 1) % err->size;
		err->count--;
	}
	return i;
}

/**
 * gni_get_error_event() - take the oldest queued event
 * @err_handle: the subscription, with a queue (EEQ_size > 0)
 * @event: the event
 *
 * Context: any.
 * Return: SUCCESS, NOT_DONE (none queued), INVALID_PARAM (a subscription
 * without a queue too).
 */
gni_return_t gni_get_error_event(gni_err_handle_t err_handle,
				 gni_error_event_t *event)
{
	struct gni_err *err = err_handle;
	unsigned long flags;
	u32 n;

	if (!kgni_is(err, KGNI_TAG_ERR) || !event || !err->size)
		return kgni_kapi_ret(gni_get_error_event, GNI_RC_INVALID_PARAM,
				     EINVAL, 0);
	spin_lock_irqsave(&err->lock, flags);
	n = kgni_err_take(err, event, 1);
	spin_unlock_irqrestore(&err->lock, flags);
	return kgni_kapi_ret(gni_get_error_event,
			     n ? GNI_RC_SUCCESS : GNI_RC_NOT_DONE, 0, 0);
}
EXPORT_SYMBOL(gni_get_error_event);

static bool kgni_err_ready(struct gni_err *err)
{
	return READ_ONCE(err->count) || READ_ONCE(err->dead);
}

/**
 * gni_wait_error_events() - wait for queued events and take them
 * @err_handle: the subscription, with a queue (EEQ_size > 0)
 * @events: room for @events_size events
 * @events_size: at least 1
 * @timeout: ms to wait for the first event; 0: look once; -1: for ever
 * @num_events: the events taken, oldest first
 *
 * Waits without signals (TASK_IDLE), as the kernel API's other waits.
 *
 * Context: process context, may sleep.
 * Return: SUCCESS, TIMEOUT (none came), INVALID_PARAM (a subscription
 * without a queue, or one whose CDM was destroyed meanwhile, too).
 */
gni_return_t gni_wait_error_events(gni_err_handle_t err_handle,
				   gni_error_event_t *events, u32 events_size,
				   u32 timeout, u32 *num_events)
{
	struct gni_err *err = err_handle;
	unsigned long flags;
	bool dead;
	u32 n;

	if (!kgni_may_sleep() || !kgni_is(err, KGNI_TAG_ERR) || !events ||
	    !events_size || !num_events || !err->size)
		return kgni_kapi_ret(gni_wait_error_events,
				     GNI_RC_INVALID_PARAM, EINVAL, 0);
	spin_lock_irqsave(&err->lock, flags);
	dead = err->dead;
	if (!dead) {
		err->waiters++;
		kref_get(&err->ref);
	}
	spin_unlock_irqrestore(&err->lock, flags);
	if (dead)
		return kgni_kapi_ret(gni_wait_error_events,
				     GNI_RC_INVALID_PARAM, ENODEV, 0);

	if (timeout == KGNI_ERR_FOREVER)
		wait_event_idle(err->wq, kgni_err_ready(err));
	else if (timeout)
		wait_event_idle_timeout(err->wq, kgni_err_ready(err),
					msecs_to_jiffies(timeout));
	spin_lock_irqsave(&err->lock, flags);
	dead = err->dead;
	n = dead ? 0 : kgni_err_take(err, events, events_size);
	err->waiters--;
	spin_unlock_irqrestore(&err->lock, flags);
	kref_put(&err->ref, kgni_err_free);
	if (dead)
		return kgni_kapi_ret(gni_wait_error_events,
				     GNI_RC_INVALID_PARAM, ENODEV, 0);
	*num_events = n;
	return kgni_kapi_ret(gni_wait_error_events,
			     n ? GNI_RC_SUCCESS : GNI_RC_TIMEOUT, 0, timeout);
}
EXPORT_SYMBOL(gni_wait_error_events);

/**
 * gni_set_error_ptag() - change a subscription's ptag filter
 * @err_handle: the subscription
 * @ptag: the ptag whose events it takes besides those of no ptag; 0:
 *        every ptag's (kernel clients are privileged)
 *
 * Context: any.
 * Return: SUCCESS, INVALID_PARAM.
 */
gni_return_t gni_set_error_ptag(gni_err_handle_t err_handle, u8 ptag)
{
	struct gni_err *err = err_handle;
	unsigned long flags;

	if (!kgni_is(err, KGNI_TAG_ERR))
		return kgni_kapi_ret(gni_set_error_ptag, GNI_RC_INVALID_PARAM,
				     EINVAL, 0);
	spin_lock_irqsave(&err->lock, flags);
	err->ptag = ptag;
	spin_unlock_irqrestore(&err->lock, flags);
	return kgni_kapi_ret(gni_set_error_ptag, GNI_RC_SUCCESS, 0, 0);
}
EXPORT_SYMBOL(gni_set_error_ptag);
