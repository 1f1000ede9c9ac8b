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
 * A subscription of user space (KGNI_IOC_ERR_SUBSCRIBE, uGNI's
 * GNI_SubscribeErrors()) is the same structure with no NIC and no
 * callbacks: it belongs to an open file, which names it by an id, and is
 * freed with the file at the latest.  Its filter is the ptag of the
 * file's CDM unless CAP_SYS_ADMIN chose another, and once that CDM's job
 * is released it takes events of no ptag: a job learns of no other
 * job's errors.
 *
 * A subscriber is referenced by its device's list, by each queued run of
 * its work and by each thread waiting in gni_wait_error_events(); the
 * last reference frees it, so that a callback may release its own
 * subscription.
 */
#include <linux/capability.h>
#include <linux/debugfs.h>
#include <linux/export.h>
#include <linux/fs.h>
#include <linux/kref.h>
#include <linux/ktime.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "kgni_kapi.h"

/* gni_wait_error_events()'s timeout that waits for ever */
#define KGNI_ERR_FOREVER	U32_MAX

static void kgni_err_free(struct kref *ref)
{
	struct gni_err *err = container_of(ref, struct gni_err, ref);

	kvfree(err->ring);
	kfree(err);
}

/* Call the callbacks the events since the last run asked for. */
static void kgni_err_work(struct work_struct *work)
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

/* Queue @ev for @err if it matches; &kgni_dev.kapi_lock held. */
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
 * Context: any; takes &kgni_dev.kapi_lock, calls no callback.
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

	spin_lock_irqsave(&kdev->kapi_lock, flags);
	list_for_each_entry(err, &kdev->errs, node)
		kgni_err_deliver(err, &ev);
	spin_unlock_irqrestore(&kdev->kapi_lock, flags);
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
static void kgni_err_finish(struct gni_err *err)
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

	spin_lock_irqsave(&kdev->kapi_lock, flags);
	list_for_each_entry_safe(err, tmp, &kdev->errs, node) {
		if (err->nic != nic)
			continue;
		spin_lock(&err->lock);
		err->dead = true;
		spin_unlock(&err->lock);
		list_move(&err->node, &left);
		kdev->nerrs--;
	}
	spin_unlock_irqrestore(&kdev->kapi_lock, flags);
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
	spin_lock_irqsave(&kdev->kapi_lock, flags);
	if (READ_ONCE(kdev->gone)) {
		rc = GNI_RC_ERROR_RESOURCE;
		why = ENODEV;
	} else if (kdev->nerrs >= KGNI_ERR_MAX_SUBS) {
		rc = GNI_RC_ERROR_RESOURCE;
		why = ENOSPC;
	} else {
		list_add_tail(&err->node, &kdev->errs);
		kdev->nerrs++;
	}
	spin_unlock_irqrestore(&kdev->kapi_lock, flags);
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
	spin_lock_irqsave(&kdev->kapi_lock, flags);
	spin_lock(&err->lock);
	waiters = err->waiters;
	if (!waiters) {
		err->dead = true;
		list_del(&err->node);
		kdev->nerrs--;
	}
	spin_unlock(&err->lock);
	spin_unlock_irqrestore(&kdev->kapi_lock, flags);
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
static u32 kgni_err_take(struct gni_err *err, gni_error_event_t *events,
			 u32 n)
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

/* Files' subscriptions: KGNI_IOC_ERR_* */

static_assert(sizeof(struct kgni_err_event) == sizeof(gni_error_event_t));
static_assert(offsetof(struct kgni_err_event, serial_number) ==
	      offsetof(gni_error_event_t, serial_number));
static_assert(offsetof(struct kgni_err_event, info_mmrs) ==
	      offsetof(gni_error_event_t, info_mmrs));

/*
 * Ids: each subscription of a file gets the next value of the device's
 * counter (&kgni_dev.err_last_id), so an id names one subscription of the
 * device, and no id is given twice while the device lives: the id of
 * another file's subscription, or of a released one, names none of this
 * file's.
 */

/* The entry of &kgni_file.errs that holds @id; kapi_lock held. */
static int kgni_uerr_slot(struct kgni_file *kfile, u32 id)
{
	unsigned int slot;

	if (!id)
		return -1;
	for (slot = 0; slot < KGNI_ERR_FILE_SUBS; slot++)
		if (kfile->errs[slot] && kfile->errs[slot]->id == id)
			return slot;
	return -1;
}

/* Subscription @id of @kfile, with a reference; NULL if it has none. */
static struct gni_err *kgni_uerr_get(struct kgni_file *kfile, u32 id)
{
	struct kgni_dev *kdev = kfile->kdev;
	struct gni_err *err = NULL;
	unsigned long flags;
	int slot;

	spin_lock_irqsave(&kdev->kapi_lock, flags);
	slot = kgni_uerr_slot(kfile, id);
	if (slot >= 0) {
		err = kfile->errs[slot];
		kref_get(&err->ref);
	}
	spin_unlock_irqrestore(&kdev->kapi_lock, flags);
	return err;
}

/* Take @err, dead already, out of its file and device; kapi_lock held. */
static void kgni_uerr_unlink(struct gni_err *err)
{
	int slot = kgni_uerr_slot(err->kfile, err->id);

	if (!WARN_ON_ONCE(slot < 0))
		err->kfile->errs[slot] = NULL;
	list_del(&err->node);
	err->kdev->nuerrs--;
}

/* Mark @err dead unless a thread waits on it; kapi_lock held. */
static int kgni_uerr_kill(struct gni_err *err)
{
	int ret = 0;

	spin_lock(&err->lock);
	if (err->dead)
		ret = -EINVAL;
	else if (err->waiters)
		ret = -EBUSY;
	else
		err->dead = true;
	spin_unlock(&err->lock);
	return ret;
}

/**
 * kgni_ioctl_err_subscribe() - KGNI_IOC_ERR_SUBSCRIBE
 * @ucmd: the call
 *
 * Return: 0, -EINVAL, -EPERM, -ENOLINK, -ENOSPC, -ENOMEM, -EFAULT.
 */
int kgni_ioctl_err_subscribe(struct kgni_ucmd *ucmd)
{
	struct kgni_err_subscribe *cmd = ucmd->cmd;
	struct kgni_file *kfile = ucmd->kfile;
	struct kgni_dev *kdev = ucmd->kdev;
	bool all = cmd->flags & KGNI_ERR_ALL_PTAGS;
	struct gni_err *err;
	unsigned long flags;
	unsigned int slot;
	u8 ptag = 0;
	int ret = 0;

	if ((cmd->flags & ~KGNI_ERR_ALL_PTAGS) || cmd->reserved || cmd->id ||
	    cmd->mask > KGNI_ERR_MASK_ALL || !cmd->eeq_size ||
	    cmd->eeq_size > KGNI_ERR_USER_MAX_EEQ)
		return -EINVAL;
	if (all) {
		if (!capable(CAP_SYS_ADMIN))
			return -EPERM;
	} else {
		mutex_lock(&kdev->dp_lock);
		if (!kfile->dom.attached)
			ret = -EPERM;
		else if (kfile->dom.revoked)
			ret = -ENOLINK;
		ptag = kfile->dom.ptag;
		mutex_unlock(&kdev->dp_lock);
		if (ret)
			return ret;
	}
	err = kzalloc(sizeof(*err), GFP_KERNEL_ACCOUNT);
	if (err)
		err->ring = kvcalloc(cmd->eeq_size, sizeof(*err->ring),
				     GFP_KERNEL_ACCOUNT);
	if (!err || !err->ring) {
		kfree(err);
		return -ENOMEM;
	}
	err->tag = KGNI_TAG_ERR;
	err->kdev = kdev;
	err->kfile = kfile;
	err->own = !all;
	spin_lock_init(&err->lock);
	err->mask = cmd->mask;
	err->ptag = ptag;
	err->size = cmd->eeq_size;
	init_waitqueue_head(&err->wq);
	INIT_WORK(&err->work, kgni_err_work);
	kref_init(&err->ref);

	spin_lock_irqsave(&kdev->kapi_lock, flags);
	for (slot = 0; slot < KGNI_ERR_FILE_SUBS; slot++)
		if (!kfile->errs[slot])
			break;
	/* U32_MAX ids given: no new one (none is given twice) */
	if (slot == KGNI_ERR_FILE_SUBS || kdev->nuerrs >= KGNI_ERR_USER_SUBS ||
	    kdev->err_last_id == U32_MAX) {
		ret = -ENOSPC;
	} else {
		err->id = ++kdev->err_last_id;
		kfile->errs[slot] = err;
		list_add_tail(&err->node, &kdev->errs);
		kdev->nuerrs++;
	}
	spin_unlock_irqrestore(&kdev->kapi_lock, flags);
	if (ret) {
		kgni_err_free(&err->ref);
		return ret;
	}
	cmd->id = err->id;
	ret = kgni_ucmd_respond(ucmd, sizeof(*cmd));
	if (ret) {
		/* Nobody should know its id: undo it, waiters or not. */
		spin_lock_irqsave(&kdev->kapi_lock, flags);
		spin_lock(&err->lock);
		err->dead = true;
		spin_unlock(&err->lock);
		kgni_uerr_unlink(err);
		spin_unlock_irqrestore(&kdev->kapi_lock, flags);
		kgni_err_finish(err);
	}
	return ret;
}

/**
 * kgni_ioctl_err_release() - KGNI_IOC_ERR_RELEASE
 * @ucmd: the call
 *
 * Return: 0, -EINVAL, -EBUSY (a thread waits on it).
 */
int kgni_ioctl_err_release(struct kgni_ucmd *ucmd)
{
	struct kgni_err_release *cmd = ucmd->cmd;
	struct kgni_dev *kdev = ucmd->kdev;
	struct gni_err *err;
	unsigned long flags;
	int ret;

	if (cmd->flags || cmd->reserved)
		return -EINVAL;
	err = kgni_uerr_get(ucmd->kfile, cmd->id);
	if (!err)
		return -EINVAL;
	spin_lock_irqsave(&kdev->kapi_lock, flags);
	ret = kgni_uerr_kill(err);
	if (!ret)
		kgni_uerr_unlink(err);
	spin_unlock_irqrestore(&kdev->kapi_lock, flags);
	if (!ret)
		kgni_err_finish(err);
	kref_put(&err->ref, kgni_err_free);
	return ret;
}

/**
 * kgni_ioctl_err_mask() - KGNI_IOC_ERR_MASK
 * @ucmd: the call
 *
 * Return: 0, -EINVAL, -EFAULT.
 */
int kgni_ioctl_err_mask(struct kgni_ucmd *ucmd)
{
	struct kgni_err_mask *cmd = ucmd->cmd;
	bool set = cmd->flags & KGNI_ERR_MASK_SET;
	struct gni_err *err;
	unsigned long flags;

	if ((cmd->flags & ~KGNI_ERR_MASK_SET) || cmd->reserved ||
	    cmd->old_mask || cmd->mask > KGNI_ERR_MASK_ALL ||
	    (!set && cmd->mask))
		return -EINVAL;
	err = kgni_uerr_get(ucmd->kfile, cmd->id);
	if (!err)
		return -EINVAL;
	spin_lock_irqsave(&err->lock, flags);
	cmd->old_mask = err->mask;
	if (set)
		WRITE_ONCE(err->mask, cmd->mask);
	spin_unlock_irqrestore(&err->lock, flags);
	kref_put(&err->ref, kgni_err_free);
	return kgni_ucmd_respond(ucmd, sizeof(*cmd));
}

/**
 * kgni_ioctl_err_ptag() - KGNI_IOC_ERR_PTAG
 * @ucmd: the call
 *
 * Return: 0, -EINVAL, -EPERM (another ptag than the file's CDM's without
 * CAP_SYS_ADMIN).
 */
int kgni_ioctl_err_ptag(struct kgni_ucmd *ucmd)
{
	struct kgni_err_ptag *cmd = ucmd->cmd;
	struct kgni_dev *kdev = ucmd->kdev;
	struct kgni_dom *dom = &ucmd->kfile->dom;
	struct gni_err *err;
	unsigned long flags;
	bool own, priv;

	if (cmd->flags || cmd->ptag > U8_MAX)
		return -EINVAL;
	err = kgni_uerr_get(ucmd->kfile, cmd->id);
	if (!err)
		return -EINVAL;
	mutex_lock(&kdev->dp_lock);
	own = dom->attached && !dom->revoked && cmd->ptag == dom->ptag;
	mutex_unlock(&kdev->dp_lock);
	priv = capable(CAP_SYS_ADMIN);
	if (own || priv) {
		spin_lock_irqsave(&err->lock, flags);
		err->ptag = cmd->ptag;
		err->own = !priv;
		spin_unlock_irqrestore(&err->lock, flags);
	}
	kref_put(&err->ref, kgni_err_free);
	return own || priv ? 0 : -EPERM;
}

static bool kgni_uerr_ready(struct gni_err *err)
{
	return READ_ONCE(err->count) || READ_ONCE(err->dead) ||
	       READ_ONCE(err->kdev->gone);
}

/* Take up to @n events into @events; *@gone: the device went. */
static u32 kgni_uerr_take(struct gni_err *err, gni_error_event_t *events,
			  u32 n, bool *gone)
{
	unsigned long flags;
	u32 got;

	spin_lock_irqsave(&err->lock, flags);
	got = kgni_err_take(err, events, n);
	spin_unlock_irqrestore(&err->lock, flags);
	*gone = READ_ONCE(err->kdev->gone);
	return got;
}

/* After the first events, wait up to @ms for more, until @want in all. */
static u32 kgni_uerr_coalesce(struct gni_err *err, gni_error_event_t *buf,
			      u32 n, u32 want, u32 ms, u32 *state)
{
	long left = msecs_to_jiffies(ms);
	bool came = false, gone = false;
	u32 m;

	/* dead keeps kgni_uerr_ready() true: stop, or this would spin */
	while (n < want && left > 0 && !gone && !READ_ONCE(err->dead)) {
		left = wait_event_interruptible_timeout(err->wq,
							kgni_uerr_ready(err),
							left);
		if (left < 0)
			return n;	/* a signal: what came so far */
		m = kgni_uerr_take(err, buf + n, want - n, &gone);
		came |= m > 0;
		n += m;
	}
	if (n < want && !left && !came)
		*state |= KGNI_ERR_WAIT_TIMED_OUT;
	return n;
}

/**
 * kgni_ioctl_err_wait() - KGNI_IOC_ERR_WAIT
 * @ucmd: the call
 *
 * Holds a reference and counts as a waiter (KGNI_IOC_ERR_RELEASE is
 * EBUSY meanwhile); remove wakes it (kgni_err_shutdown()).
 *
 * Return: 0, -EINVAL, -EFAULT, -ENOMEM, -EINTR, -ENODEV.
 */
int kgni_ioctl_err_wait(struct kgni_ucmd *ucmd)
{
	struct kgni_err_wait *cmd = ucmd->cmd;
	void __user *uev = u64_to_user_ptr(cmd->events);
	bool block = cmd->flags & KGNI_ERR_WAIT_BLOCK;
	gni_error_event_t *buf = NULL;
	bool dead, gone = false;
	struct gni_err *err;
	unsigned long flags;
	u32 n = 0, want;
	int ret = 0;

	if ((cmd->flags & ~KGNI_ERR_WAIT_BLOCK) || cmd->reserved ||
	    cmd->num_events || cmd->state || !cmd->events_size ||
	    cmd->events_size > KGNI_ERR_USER_MAX_EEQ ||
	    (!block && cmd->timeout_ms))
		return -EINVAL;
	err = kgni_uerr_get(ucmd->kfile, cmd->id);
	if (!err)
		return -EINVAL;
	want = min(cmd->events_size, err->size);
	/* Written before any event is taken: a bad pointer loses none. */
	if (clear_user(uev, (size_t)cmd->events_size * sizeof(*buf))) {
		ret = -EFAULT;
		goto out_put;
	}
	buf = kvcalloc(want, sizeof(*buf), GFP_KERNEL);
	if (!buf) {
		ret = -ENOMEM;
		goto out_put;
	}
	spin_lock_irqsave(&err->lock, flags);
	dead = err->dead;
	if (!dead)
		err->waiters++;
	spin_unlock_irqrestore(&err->lock, flags);
	if (dead) {
		ret = -EINVAL;
		goto out_put;
	}

	if (block && wait_event_interruptible(err->wq, kgni_uerr_ready(err)))
		ret = -EINTR;
	if (!ret)
		n = kgni_uerr_take(err, buf, want, &gone);
	if (!ret && n && block && cmd->timeout_ms && !gone)
		n = kgni_uerr_coalesce(err, buf, n, want, cmd->timeout_ms,
				       &cmd->state);
	spin_lock_irqsave(&err->lock, flags);
	err->waiters--;
	dead = err->dead;
	spin_unlock_irqrestore(&err->lock, flags);
	if (!n && !ret && gone)
		ret = -ENODEV;
	else if (!n && !ret && dead)
		ret = -EINVAL;	/* ended meanwhile */
	if (ret)
		goto out_put;
	if (copy_to_user(uev, buf, n * sizeof(*buf))) {
		ret = -EFAULT;
		goto out_put;
	}
	cmd->num_events = n;
	ret = kgni_ucmd_respond(ucmd, sizeof(*cmd));
out_put:
	kvfree(buf);
	kref_put(&err->ref, kgni_err_free);
	return ret;
}

/**
 * kgni_err_file_release() - end the subscriptions of a file
 * @kfile: the file, being released: no ioctl of it runs
 */
void kgni_err_file_release(struct kgni_file *kfile)
{
	struct kgni_dev *kdev = kfile->kdev;
	struct gni_err *gone[KGNI_ERR_FILE_SUBS];
	unsigned int slot, n = 0;
	unsigned long flags;

	spin_lock_irqsave(&kdev->kapi_lock, flags);
	for (slot = 0; slot < KGNI_ERR_FILE_SUBS; slot++) {
		struct gni_err *err = kfile->errs[slot];

		if (!err)
			continue;
		spin_lock(&err->lock);
		err->dead = true;
		spin_unlock(&err->lock);
		kgni_uerr_unlink(err);
		gone[n++] = err;
	}
	spin_unlock_irqrestore(&kdev->kapi_lock, flags);
	while (n)
		kgni_err_finish(gone[--n]);
}

/**
 * kgni_err_shutdown() - wake the files' waiters: the device goes
 * @kdev: the device, gone already
 */
void kgni_err_shutdown(struct kgni_dev *kdev)
{
	struct gni_err *err;
	unsigned long flags;

	spin_lock_irqsave(&kdev->kapi_lock, flags);
	list_for_each_entry(err, &kdev->errs, node)
		if (err->kfile)
			wake_up(&err->wq);
	spin_unlock_irqrestore(&kdev->kapi_lock, flags);
}

/* Injection, for tests */

/* The longest line inject_error takes */
#define KGNI_ERR_INJECT_MAX	48

static const char * const kgni_err_class_names[8] = {
	"CORRECTABLE_MEMORY", "CRITICAL", "TRANSACTION",
	"ADDRESS_TRANSLATION", "TRANSIENT", "INFORMATIONAL", "DIAG_ONLY",
	"UNKNOWN_TRANSACTION",
};

/* A class: its name (GNI_ERRMASK_ optional) or a one-bit mask; 0 if none. */
static u8 kgni_err_parse_class(const char *s)
{
	unsigned int i;
	u8 mask;

	if (!kstrtou8(s, 0, &mask))
		return is_power_of_2(mask) ? mask : 0;
	if (!strncasecmp(s, "GNI_ERRMASK_", 12))
		s += 12;
	for (i = 0; i < ARRAY_SIZE(kgni_err_class_names); i++)
		if (!strcasecmp(s, kgni_err_class_names[i]))
			return BIT(i);
	return 0;
}

/*
 * "CLASS [PTAG]": one event of code KGNI_ERR_INJECTED, of no ptag
 * unless given, info_mmrs[0] the injection's number.
 */
static ssize_t kgni_err_inject_write(struct file *file,
				     const char __user *ubuf, size_t len,
				     loff_t *ppos)
{
	static atomic_t injected = ATOMIC_INIT(0);
	struct kgni_dev *kdev = file->private_data;
	char *buf, *args, *name;
	u8 class, ptag = 0;
	ssize_t ret = len;

	if (len > KGNI_ERR_INJECT_MAX)
		return -EINVAL;
	buf = memdup_user_nul(ubuf, len);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	args = strim(buf);
	name = strsep(&args, " ");
	class = kgni_err_parse_class(name);
	if (!class || (args && kstrtou8(strim(args), 0, &ptag)))
		ret = -EINVAL;
	else
		kgni_err_post(kdev, class, KGNI_ERR_INJECTED, ptag,
			      atomic_inc_return(&injected), 0, 0);
	kfree(buf);
	return ret;
}

static const struct file_operations kgni_err_inject_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = kgni_err_inject_write,
	.llseek = noop_llseek,
};

/* debugfs kgniN/inject_error, removed with the directory */
void kgni_err_debugfs_add(struct kgni_dev *kdev)
{
	debugfs_create_file("inject_error", 0200, kdev->debugfs, kdev,
			    &kgni_err_inject_fops);
}
