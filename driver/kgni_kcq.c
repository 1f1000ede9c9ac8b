// SPDX-License-Identifier: GPL-2.0-only
/*
 * kgni: the kernel API's completion queues (Documentation/kernel-api.rst).
 *
 * A kernel CQ is a data-path CQ of the NIC's domain (kgni_cq_make() with
 * KGNI_CQ_KERNEL: charged to no RLIMIT) whose events, if it has a
 * handler, interrupt on vector 9 or 10 (kgni_cq_kernel_vector()).  The
 * interrupt handler calls kgni_kcq_irq(), which calls the handler of each
 * of that vector's CQs whose ring holds an unread entry, in hard-IRQ
 * context; the client then takes the events with gni_cq_get_event(),
 * which consumes the ring as libugni does and writes the read index into
 * the CQ's descriptor.
 *
 * gni_cq_create() and gni_cq_destroy() may sleep; gni_cq_get_event(),
 * gni_get_completed(), the error strings and the entry accessors may be called in any context.
 */
#include <linux/export.h>
#include <linux/rculist.h>
#include <linux/slab.h>

#include "gni_wire.h"
#include "kgni_kapi.h"

/* delay_index: events before an interrupt, 0 and 1 both "every event" */
#define KGNI_KCQ_MAX_DELAY	(GEMINI_CQ_IRQ_THRESH_MASK + 1)

/* A new device: no kernel CQ with a handler yet. */
void kgni_kcq_dev_init(struct kgni_dev *kdev)
{
	spin_lock_init(&kdev->kcq.lock);
	INIT_LIST_HEAD(&kdev->kcq.list);
}

/**
 * kgni_kcq_irq() - call the handlers of a vector's kernel CQs
 * @kdev: the device
 * @vector: the MSI-X vector that interrupted
 *
 * Each CQ of @vector whose next entry has been written gets one call.  A
 * call too many is harmless to the clients (they take events until
 * NOT_DONE); a call missed would not be.
 *
 * Context: hard IRQ (kgni_irq()).
 */
void kgni_kcq_irq(struct kgni_dev *kdev, unsigned int vector)
{
	struct gni_cq *cq;

	rcu_read_lock();
	list_for_each_entry_rcu(cq, &kdev->kcq.list, irq_node) {
		u64 e;

		if (cq->vector != vector)
			continue;
		e = READ_ONCE(cq->core.ring[READ_ONCE(cq->core.rd)]);
		if (ugni_cqe_source(e))
			cq->handler(kdev->minor, cq->usr_event_data);
	}
	rcu_read_unlock();
}

/*
 * No handler of @cq runs any more, nor will: unlinked, then every
 * interrupt handler that may have seen it has returned (a hard-IRQ
 * handler is an RCU reader; unlike synchronize_irq(), this also holds
 * while remove frees the vectors).
 */
static void kgni_kcq_unlink(struct gni_cq *cq)
{
	struct kgni_dev *kdev = cq->nic->kdev;
	unsigned long flags;

	if (!cq->handler)
		return;
	spin_lock_irqsave(&kdev->kcq.lock, flags);
	list_del_rcu(&cq->irq_node);
	spin_unlock_irqrestore(&kdev->kcq.lock, flags);
	synchronize_rcu();
}

/* The return code for an errno of kgni_cq_make() */
static gni_return_t kgni_kcq_rc(int err)
{
	return err == -EINVAL ? GNI_RC_INVALID_PARAM : GNI_RC_ERROR_RESOURCE;
}

/**
 * gni_cq_create() - make a kernel CQ
 * @nic_hndl: the NIC
 * @entry_count: events it holds, 1 to KGNI_CQ_MAX_ENTRIES - 1 (the ring
 *               has one entry more, which stays empty)
 * @delay_index: events before the handler is called, 0 to 0x2000 (0 and
 *               1: every event); the device counts them per CQ
 * @event_handler: called as event_handler(device_id, @usr_event_data) in
 *                 hard-IRQ context when the CQ holds an event; NULL for a
 *                 CQ that is only polled
 * @usr_event_data: the handler's second argument
 * @cq_hndl: the new CQ
 *
 * Context: process context, may sleep.
 * Return: SUCCESS, INVALID_PARAM, ERROR_RESOURCE (no memory, no free CQ,
 * the NIC's 64 CQs, the device removed).
 */
gni_return_t gni_cq_create(gni_nic_handle_t nic_hndl, u32 entry_count,
			   u32 delay_index, gni_cq_event_hndlr_f *event_handler,
			   u64 usr_event_data, gni_cq_handle_t *cq_hndl)
{
	struct gni_nic *nic = nic_hndl;
	u32 flags = KGNI_CQ_KERNEL;
	struct kgni_dev *kdev;
	unsigned long irqflags;
	struct kgni_cq *kcq;
	struct gni_cq *cq;
	size_t ring_size;
	int err;
	u32 id;

	if (!kgni_may_sleep() || !kgni_is(nic, KGNI_TAG_NIC) || !cq_hndl)
		return kgni_kapi_ret(gni_cq_create, GNI_RC_INVALID_PARAM,
				     EINVAL, 0);
	if (!entry_count || entry_count >= KGNI_CQ_MAX_ENTRIES)
		return kgni_kapi_ret(gni_cq_create, GNI_RC_INVALID_PARAM,
				     EINVAL, entry_count);
	if (delay_index > KGNI_KCQ_MAX_DELAY)
		return kgni_kapi_ret(gni_cq_create, GNI_RC_INVALID_PARAM,
				     EINVAL, delay_index);
	cq = kzalloc(sizeof(*cq), GFP_KERNEL);
	if (!cq)
		return kgni_kapi_ret(gni_cq_create, GNI_RC_ERROR_RESOURCE,
				     ENOMEM, 0);
	if (event_handler)
		flags |= KGNI_CQ_BLOCKING;
	kdev = nic->kdev;
	down_read(&kdev->ctl_rwsem);
	if (READ_ONCE(kdev->gone))
		err = -ENODEV;
	else
		err = kgni_cq_make(kdev, &nic->dom, entry_count + 1, flags,
				   delay_index ? delay_index - 1 : 0, &kcq, &id,
				   &ring_size);
	up_read(&kdev->ctl_rwsem);
	if (err) {
		kfree(cq);
		return kgni_kapi_ret(gni_cq_create, kgni_kcq_rc(err), -err,
				     entry_count);
	}

	cq->tag = KGNI_TAG_CQ;
	cq->nic = nic;
	cq->cq = kcq;
	cq->handler = event_handler;
	cq->usr_event_data = usr_event_data;
	cq->vector = kgni_cq_kernel_vector(kdev, id);
	cq->id = id;
	gnicore_cq_init(&cq->core, &nic->core, id, entry_count + 1);
	cq->core.ring = kcq->ring;
	spin_lock_irqsave(&nic->obj_lock, irqflags);
	list_add_tail(&cq->node, &nic->cqs);
	spin_unlock_irqrestore(&nic->obj_lock, irqflags);
	if (event_handler) {
		spin_lock_irqsave(&kdev->kcq.lock, irqflags);
		list_add_tail_rcu(&cq->irq_node, &kdev->kcq.list);
		spin_unlock_irqrestore(&kdev->kcq.lock, irqflags);
	}
	*cq_hndl = cq;
	return kgni_kapi_ret(gni_cq_create, GNI_RC_SUCCESS, 0, 0);
}
EXPORT_SYMBOL(gni_cq_create);

/**
 * gni_cq_destroy() - destroy a kernel CQ
 * @cq_hndl: the CQ
 *
 * Refused while an endpoint or a registration names it, or an RDMA post
 * that has not ended.  Its FMA descriptor goes first (kgni_kfma_free()):
 * its sequences end, their events written, before the ring goes.  No
 * handler of it runs once this returns.
 *
 * Context: process context, may sleep.
 * Return: SUCCESS, INVALID_PARAM, ERROR_RESOURCE (named still).
 */
gni_return_t gni_cq_destroy(gni_cq_handle_t cq_hndl)
{
	struct gni_cq *cq = cq_hndl;
	unsigned long flags;
	struct kgni_dev *kdev;
	struct gni_nic *nic;
	bool live, busy;

	if (!kgni_may_sleep() || !kgni_is(cq, KGNI_TAG_CQ))
		return kgni_kapi_ret(gni_cq_destroy, GNI_RC_INVALID_PARAM,
				     EINVAL, 0);
	nic = cq->nic;
	kdev = nic->kdev;
	/* No endpoint takes the descriptor again until the CQ is gone. */
	mutex_lock(&nic->fma_lock);
	spin_lock_irqsave(&nic->obj_lock, flags);
	busy = cq->eps;
	spin_unlock_irqrestore(&nic->obj_lock, flags);
	if (!busy)
		kgni_kfma_free(cq);
	down_read(&kdev->ctl_rwsem);
	live = !READ_ONCE(kdev->gone);
	mutex_lock(&kdev->dp.lock);
	/* Posts that have ended hold it until their slots are taken back. */
	if (cq->cq->users && live)
		kgni_bte_reclaim(kdev);
	spin_lock_irqsave(&nic->obj_lock, flags);
	busy = cq->eps || cq->cq->users;
	if (!busy) {
		list_del(&cq->node);
		WRITE_ONCE(cq->tag, KGNI_TAG_INVALID);
	}
	spin_unlock_irqrestore(&nic->obj_lock, flags);
	if (!busy) {
		kgni_kcq_unlink(cq);
		kgni_cq_free(kdev, &nic->dom, cq->cq, live);
	}
	mutex_unlock(&kdev->dp.lock);
	up_read(&kdev->ctl_rwsem);
	mutex_unlock(&nic->fma_lock);
	if (busy)
		return kgni_kapi_ret(gni_cq_destroy, GNI_RC_ERROR_RESOURCE,
				     EBUSY, cq->id);
	kfree(cq);
	return kgni_kapi_ret(gni_cq_destroy, GNI_RC_SUCCESS, 0, 0);
}
EXPORT_SYMBOL(gni_cq_destroy);

/**
 * kgni_kcq_nic_free() - destroy a NIC's CQs left at its destruction
 * @nic: the NIC, whose endpoints are gone already
 *
 * Their handlers stop and their FMA descriptors go; the data-path CQs go
 * with the NIC's domain (kgni_dom_release()).
 *
 * Context: process context, may sleep.
 * Return: how many there were.
 */
unsigned int kgni_kcq_nic_free(struct gni_nic *nic)
{
	struct gni_cq *cq, *next;
	unsigned int n = 0;
	unsigned long flags;
	LIST_HEAD(left);

	spin_lock_irqsave(&nic->obj_lock, flags);
	list_splice_init(&nic->cqs, &left);
	spin_unlock_irqrestore(&nic->obj_lock, flags);
	mutex_lock(&nic->fma_lock);
	list_for_each_entry_safe(cq, next, &left, node) {
		WRITE_ONCE(cq->tag, KGNI_TAG_INVALID);
		kgni_kcq_unlink(cq);
		kgni_kfma_free(cq);
		kfree(cq);
		n++;
	}
	mutex_unlock(&nic->fma_lock);
	return n;
}

/**
 * kgni_kcq_core_set_rd() - tell the device a kernel CQ's read index
 * @core: the CQ's gnicore part, whose rd has moved on
 *
 * gnicore_env_cq_set_rd() of the kernel: every entry before rd has been
 * consumed.
 *
 * Context: any; @core->lock held (gnicore_cq_take()).
 */
void kgni_kcq_core_set_rd(struct gnicore_cq *core)
{
	struct gni_cq *cq = container_of(core, struct gni_cq, core);
	struct kgni_dev *kdev = cq->nic->kdev;

	/*
	 * Remove unmaps the tables only after synchronize_rcu() has
	 * followed gone (kgni_ioctl_shutdown()); a 4-byte write at the
	 * descriptor's QW1 moves the read index alone (gemini_nic.h).
	 */
	rcu_read_lock();
	if (!READ_ONCE(kdev->gone))
		writel(core->rd, kgni_mmr(kdev,
					  GEMINI_MMR_CQ_DESC_ENTRY(core->id)));
	rcu_read_unlock();
}

/**
 * gni_cq_get_event() - take the next event of a kernel CQ
 * @cq_hndl: the CQ
 * @event_data: the event
 *
 * A post's local event shows the inst_id of its endpoint's local event
 * data (gni_ep_set_eventdata()), an SMSG send's its msg_id, as libugni's
 * GNI_CqGetEvent() does; a failed SMSG send is sent again, unseen.
 *
 * Context: any.
 * Return: SUCCESS, NOT_DONE (no event), TRANSACTION_ERROR (the event
 * says the transaction failed: gni_cq_error_str()), ERROR_RESOURCE (the
 * CQ overran: GNI_CQ_OVERRUN() of the event is true, events were lost),
 * INVALID_PARAM.
 */
gni_return_t gni_cq_get_event(gni_cq_handle_t cq_hndl,
			      gni_cq_entry_t *event_data)
{
	struct gni_cq *cq = cq_hndl;
	void *client;
	gni_return_t rc;
	u64 e;

	if (!kgni_is(cq, KGNI_TAG_CQ) || !event_data)
		return kgni_kapi_ret(gni_cq_get_event, GNI_RC_INVALID_PARAM,
				     EINVAL, 0);
	/* The endpoint of a failed SMSG send stays while its taker runs. */
	rcu_read_lock();
	rc = gnicore_cq_take(&cq->core, &e, &client);
	rcu_read_unlock();
	if (rc == GNI_RC_NOT_DONE)
		return kgni_kapi_ret(gni_cq_get_event, GNI_RC_NOT_DONE, 0, 0);
	*event_data = e;
	/* The event's gnicore_cqe_rc() */
	if (rc == GNI_RC_ERROR_RESOURCE)
		return kgni_kapi_ret(gni_cq_get_event, rc, ENOSPC, cq->id);
	if (rc == GNI_RC_TRANSACTION_ERROR)
		return kgni_kapi_ret(gni_cq_get_event, rc, EIO, e);
	return kgni_kapi_ret(gni_cq_get_event, rc, 0, 0);
}
EXPORT_SYMBOL(gni_cq_get_event);

/**
 * gni_get_completed() - the post of a local event
 * @cq_hndl: the CQ the event came from
 * @event_data: the event (gni_cq_get_event())
 * @post_descr: the post's descriptor, its status and cq_mode_complete set
 *
 * An RDMA post that asked for both a local and a global event hands its
 * descriptor back at each; the last, or an error event, ends it (its
 * endpoint's posts outstanding drop).  gnicore's GNI_GetCompleted().
 *
 * Context: any.
 * Return: SUCCESS, TRANSACTION_ERROR (the post failed: the descriptor is
 * still handed back), DESCRIPTOR_ERROR (the event names no post: a
 * remote event, a silent post's error), INVALID_PARAM.
 */
gni_return_t gni_get_completed(gni_cq_handle_t cq_hndl,
			       gni_cq_entry_t event_data,
			       gni_post_descriptor_t **post_descr)
{
	struct gni_cq *cq = cq_hndl;
	gni_return_t rc;

	if (!kgni_is(cq, KGNI_TAG_CQ) || !post_descr)
		return kgni_kapi_ret(gni_get_completed, GNI_RC_INVALID_PARAM,
				     EINVAL, 0);
	rc = gnicore_get_completed(&cq->core, event_data, post_descr);
	return kgni_kapi_ret(gni_get_completed, rc,
			     rc == GNI_RC_SUCCESS ? 0 :
			     rc == GNI_RC_TRANSACTION_ERROR ? EIO : EINVAL,
			     event_data);
}
EXPORT_SYMBOL(gni_get_completed);

/**
 * gni_cq_error_str() - the name of a CQ entry's error
 * @entry: the entry
 * @buffer: where "SOURCE:STATUS" goes, NUL-terminated
 * @len: its bytes
 *
 * The texts of libugni's GNI_CqErrorStr(), from the same tables
 * (gnicore_cq.c).
 *
 * Context: any.
 * Return: SUCCESS, SIZE_ERROR (@len too short), INVALID_PARAM.
 */
gni_return_t gni_cq_error_str(gni_cq_entry_t entry, void *buffer, u32 len)
{
	gni_return_t rc = gnicore_cq_error_str(entry, buffer, len);

	if (rc == GNI_RC_INVALID_PARAM)
		return kgni_kapi_ret(gni_cq_error_str, rc, EINVAL, 0);
	if (rc == GNI_RC_SIZE_ERROR)
		return kgni_kapi_ret(gni_cq_error_str, rc, ENOSPC,
				     gnicore_cq_error_len(entry));
	return kgni_kapi_ret(gni_cq_error_str, rc, 0, 0);
}
EXPORT_SYMBOL(gni_cq_error_str);

/**
 * gni_cq_error_recoverable() - may a CQ entry's error be recovered from?
 * @entry: the entry
 * @recoverable: 1 if it may, else 0
 *
 * libugni's GNI_CqErrorRecoverable(), from the same table (gnicore_cq.c).
 *
 * Context: any.
 * Return: SUCCESS, INVALID_STATE (no error, or an undefined one),
 * INVALID_PARAM.
 */
gni_return_t gni_cq_error_recoverable(gni_cq_entry_t entry, u32 *recoverable)
{
	gni_return_t rc = gnicore_cq_error_recoverable(entry, recoverable);

	if (rc == GNI_RC_INVALID_PARAM)
		return kgni_kapi_ret(gni_cq_error_recoverable, rc, EINVAL, 0);
	if (rc == GNI_RC_INVALID_STATE)
		return kgni_kapi_ret(gni_cq_error_recoverable, rc, EINVAL,
				     entry);
	return kgni_kapi_ret(gni_cq_error_recoverable, rc, 0, 0);
}
EXPORT_SYMBOL(gni_cq_error_recoverable);

/*
 * The CQ entry accessors that gni_pub.h's GNI_CQ_* macros call, those
 * with a meaning on Gemini (the Aries-only fields are not exported: a
 * client reading one fails at modpost, rather than reading a 0 that means
 * nothing).
 */

/* The entry's 56 bits of data */
u64 gni_cq_get_data(gni_cq_entry_t entry)
{
	return entry & GEMINI_CQE_DATA_MASK;
}
EXPORT_SYMBOL(gni_cq_get_data);

/* Its source, GEMINI_CQE_SRC_* */
u64 gni_cq_get_source(gni_cq_entry_t entry)
{
	return ugni_cqe_source(entry);
}
EXPORT_SYMBOL(gni_cq_get_source);

/* Its status: 0 for success */
u64 gni_cq_get_status(gni_cq_entry_t entry)
{
	return ugni_cqe_status(entry);
}
EXPORT_SYMBOL(gni_cq_get_status);

/* 1 if the CQ overran before it */
u64 gni_cq_overrun(gni_cq_entry_t entry)
{
	return (entry & GEMINI_CQE_OVERRUN) != 0;
}
EXPORT_SYMBOL(gni_cq_overrun);

/* A post's or message's inst_id (the sender's remote event data) */
u64 gni_cq_get_inst_id(gni_cq_entry_t entry)
{
	return ugni_cqe_id(entry);
}
EXPORT_SYMBOL(gni_cq_get_inst_id);

/* The same bits, named for remote events */
u64 gni_cq_get_rem_inst_id(gni_cq_entry_t entry)
{
	return ugni_cqe_id(entry);
}
EXPORT_SYMBOL(gni_cq_get_rem_inst_id);

/* A local SMSG event's msg_id (the same bits) */
u64 gni_cq_get_msg_id(gni_cq_entry_t entry)
{
	return ugni_cqe_id(entry);
}
EXPORT_SYMBOL(gni_cq_get_msg_id);

/* The request a POST event names (UGNI_TID_NONE: none) */
u64 gni_cq_get_tid(gni_cq_entry_t entry)
{
	return ugni_cqe_tid(entry);
}
EXPORT_SYMBOL(gni_cq_get_tid);

/* Its event type, GNI_CQ_EVENT_TYPE_* */
u64 gni_cq_get_type(gni_cq_entry_t entry)
{
	return ugni_cqe_type(entry);
}
EXPORT_SYMBOL(gni_cq_get_type);

/*
 * The setters the GNI_CQ_SET_* macros call (a client making entries of
 * its own, or rewriting one it took): a NULL entry is ignored, as in
 * libugni.
 */
static void kgni_cqe_set(gni_cq_entry_t *entry, unsigned int shift,
			 u64 mask, u64 value)
{
	if (entry)
		ugni_cqe_set_field(entry, shift, mask, value);
}

void gni_cq_set_inst_id(gni_cq_entry_t *entry, u64 value)
{
	kgni_cqe_set(entry, UGNI_CQE_ID_SHIFT, UGNI_CQE_ID_MASK, value);
}
EXPORT_SYMBOL(gni_cq_set_inst_id);

void gni_cq_set_rem_inst_id(gni_cq_entry_t *entry, u64 value)
{
	kgni_cqe_set(entry, UGNI_CQE_ID_SHIFT, UGNI_CQE_ID_MASK, value);
}
EXPORT_SYMBOL(gni_cq_set_rem_inst_id);

void gni_cq_set_msg_id(gni_cq_entry_t *entry, u64 value)
{
	kgni_cqe_set(entry, UGNI_CQE_ID_SHIFT, UGNI_CQE_ID_MASK, value);
}
EXPORT_SYMBOL(gni_cq_set_msg_id);

void gni_cq_set_tid(gni_cq_entry_t *entry, u64 value)
{
	kgni_cqe_set(entry, UGNI_CQE_TID_SHIFT, UGNI_CQE_TID_MASK, value);
}
EXPORT_SYMBOL(gni_cq_set_tid);

void gni_cq_set_type(gni_cq_entry_t *entry, u64 value)
{
	kgni_cqe_set(entry, UGNI_CQE_TYPE_SHIFT, UGNI_CQE_TYPE_MASK, value);
}
EXPORT_SYMBOL(gni_cq_set_type);

/* Make an error entry a success */
void gni_cq_clr_status(gni_cq_entry_t *entry)
{
	kgni_cqe_set(entry, GEMINI_CQE_STATUS_SHIFT, GEMINI_CQE_STATUS_MASK,
		     0);
}
EXPORT_SYMBOL(gni_cq_clr_status);
