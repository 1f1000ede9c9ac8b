// SPDX-License-Identifier: GPL-2.0-only
/*
 * kgni: the kernel API's endpoints (Documentation/kernel-api.rst).
 *
 * An endpoint is a gnicore endpoint (its NIC's request table, its peer,
 * its event data, its posts outstanding, its SMSG state) and the CQ of its
 * local events, which cannot be destroyed before it and whose FMA
 * descriptor it uses (kgni_kfma.c).  gni_post_rdma() makes the checks
 * and the event data of libugni's GNI_PostRdma() (gnicore_post_rdma()),
 * whose kernel hook, kgni_kep_rdma_post(), queues the transfer with
 * kgni_rdma_post() for the NIC's kernel domain.  Datagrams are
 * kgni_kdgram.c's, FMA posts kgni_kfma.c's, SMSG kgni_ksmsg.c's.
 *
 * gni_ep_create(), gni_ep_destroy() and gni_post_rdma() may sleep (the
 * post takes dp.lock); bind, unbind and the event data may be set in any
 * context.  An endpoint is freed after an RCU grace period:
 * gni_cq_get_event() may hold it, taking the event of one of its failed
 * short messages on another CPU.
 */
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/slab.h>

#include "kgni_kapi.h"

/**
 * gni_ep_create() - make an endpoint
 * @nic_hndl: the NIC
 * @src_cq_hndl: a CQ of the NIC for its local events, or NULL (then it
 *               can post RDMA with a src_cq_hndl, but neither FMA posts
 *               nor short messages)
 * @ep_hndl: the new endpoint, not bound
 *
 * The CQ's first endpoint takes the CQ's FMA descriptor (kgni_kfma.c).
 *
 * Context: process context, may sleep.
 * Return: SUCCESS, INVALID_PARAM, ERROR_NOMEM (no memory, no free FMA
 * descriptor, the device removed).
 */
gni_return_t gni_ep_create(gni_nic_handle_t nic_hndl,
			   gni_cq_handle_t src_cq_hndl, gni_ep_handle_t *ep_hndl)
{
	struct gni_nic *nic = nic_hndl;
	struct gni_cq *cq = src_cq_hndl;
	unsigned long flags;
	struct gni_ep *ep;
	bool ok;
	int err;

	if (!kgni_may_sleep() || !kgni_is(nic, KGNI_TAG_NIC) || !ep_hndl ||
	    (cq && (!kgni_is(cq, KGNI_TAG_CQ) || cq->nic != nic)))
		return kgni_kapi_ret(gni_ep_create, GNI_RC_INVALID_PARAM,
				     EINVAL, 0);
	ep = kzalloc(sizeof(*ep), GFP_KERNEL);
	if (!ep)
		return kgni_kapi_ret(gni_ep_create, GNI_RC_ERROR_NOMEM, ENOMEM,
				     0);
	ep->tag = KGNI_TAG_EP;
	ep->nic = nic;
	ep->src_cq = cq;
	ep->core.nic = &nic->core;
	/* ugni-api's default: remote events name the sender's inst_id */
	ep->core.remote_event = nic->cdm->inst_id;
	ep->core.cq = cq ? &cq->core : NULL;
	if (cq) {
		/* Held until counted: the CQ's destruction frees it. */
		mutex_lock(&nic->fma_lock);
		err = kgni_kfma_get(cq, &ep->core.fma);
		if (err) {
			mutex_unlock(&nic->fma_lock);
			kfree(ep);
			return kgni_kapi_ret(gni_ep_create,
					     err == -EINVAL ?
					     GNI_RC_INVALID_PARAM :
					     GNI_RC_ERROR_NOMEM, -err, 0);
		}
	}
	spin_lock_irqsave(&nic->obj_lock, flags);
	/* The CQ is the NIC's and not being destroyed. */
	ok = !cq || (cq->nic == nic && READ_ONCE(cq->tag) == KGNI_TAG_CQ);
	if (ok) {
		if (cq)
			cq->eps++;
		list_add_tail(&ep->node, &nic->eps);
	}
	spin_unlock_irqrestore(&nic->obj_lock, flags);
	if (cq)
		mutex_unlock(&nic->fma_lock);
	if (!ok) {
		kfree(ep);
		return kgni_kapi_ret(gni_ep_create, GNI_RC_INVALID_PARAM,
				     EINVAL, 0);
	}
	*ep_hndl = ep;
	return kgni_kapi_ret(gni_ep_create, GNI_RC_SUCCESS, 0, 0);
}
EXPORT_SYMBOL(gni_ep_create);

/**
 * gni_ep_bind() - give an endpoint its peer
 * @ep_hndl: the endpoint
 * @remote_addr: the peer's NIC address
 * @remote_id: the peer's instance id
 *
 * A bound endpoint may be bound again, to another peer, once its posts
 * have completed.
 *
 * Context: any.
 * Return: SUCCESS, NOT_DONE (posts of the endpoint outstanding: libugni's
 * GNI_EpBind() says INVALID_STATE, not in kgni's list), INVALID_PARAM.
 */
gni_return_t gni_ep_bind(gni_ep_handle_t ep_hndl, u32 remote_addr,
			 u32 remote_id)
{
	struct gni_ep *ep = ep_hndl;
	unsigned long flags;
	bool busy;

	if (!kgni_is(ep, KGNI_TAG_EP))
		return kgni_kapi_ret(gni_ep_bind, GNI_RC_INVALID_PARAM, EINVAL,
				     0);
	flags = gnicore_lock(&ep->nic->core.lock);
	busy = ep->core.outstanding;
	if (!busy) {
		ep->core.remote_pe = remote_addr;
		ep->core.remote_id = remote_id;
		/* ugni-api's default: local events name the peer's inst_id */
		ep->core.local_event = remote_id;
		ep->core.bound = true;
	}
	gnicore_unlock(&ep->nic->core.lock, flags);
	if (busy)
		return kgni_kapi_ret(gni_ep_bind, GNI_RC_NOT_DONE, 0, 0);
	return kgni_kapi_ret(gni_ep_bind, GNI_RC_SUCCESS, 0, 0);
}
EXPORT_SYMBOL(gni_ep_bind);

/**
 * gni_ep_set_eventdata() - an endpoint's event data
 * @ep_hndl: the endpoint
 * @local_event: the inst_id of its posts' local events
 * @remote_event: the inst_id of their remote and global events (the
 *                peer's CQ sees it)
 *
 * Context: any.
 * Return: SUCCESS, INVALID_PARAM.
 */
gni_return_t gni_ep_set_eventdata(gni_ep_handle_t ep_hndl, u32 local_event,
				  u32 remote_event)
{
	struct gni_ep *ep = ep_hndl;
	unsigned long flags;

	if (!kgni_is(ep, KGNI_TAG_EP))
		return kgni_kapi_ret(gni_ep_set_eventdata,
				     GNI_RC_INVALID_PARAM, EINVAL, 0);
	flags = gnicore_lock(&ep->nic->core.lock);
	ep->core.local_event = local_event;
	ep->core.remote_event = remote_event;
	gnicore_unlock(&ep->nic->core.lock, flags);
	return kgni_kapi_ret(gni_ep_set_eventdata, GNI_RC_SUCCESS, 0, 0);
}
EXPORT_SYMBOL(gni_ep_set_eventdata);

/**
 * gni_ep_unbind() - forget an endpoint's peer
 * @ep_hndl: the endpoint, bound or not
 *
 * A datagram of the endpoint is left as it is, with the peer it was
 * posted to (libugni's GNI_EpUnbind() cancels it, which sleeps; this may
 * be called in any context).  gni_ep_destroy() drops it.  Its SMSG
 * connection goes (kgni_ksmsg_release()), as in libugni's
 * GNI_EpUnbind(); events of messages sent still come, with their msg_id.
 *
 * Context: any.
 * Return: SUCCESS, NOT_DONE (posts of the endpoint have not completed:
 * their events not all taken with gni_get_completed(); still bound),
 * INVALID_PARAM.
 */
gni_return_t gni_ep_unbind(gni_ep_handle_t ep_hndl)
{
	struct gni_ep *ep = ep_hndl;
	unsigned long flags;
	bool busy;

	if (!kgni_is(ep, KGNI_TAG_EP))
		return kgni_kapi_ret(gni_ep_unbind, GNI_RC_INVALID_PARAM,
				     EINVAL, 0);
	flags = gnicore_lock(&ep->nic->core.lock);
	busy = ep->core.outstanding;
	if (!busy) {
		ep->core.bound = false;
		ep->core.remote_pe = 0;
		ep->core.remote_id = 0;
	}
	gnicore_unlock(&ep->nic->core.lock, flags);
	if (busy)
		return kgni_kapi_ret(gni_ep_unbind, GNI_RC_NOT_DONE, 0, 0);
	kgni_ksmsg_release(ep);
	return kgni_kapi_ret(gni_ep_unbind, GNI_RC_SUCCESS, 0, 0);
}
EXPORT_SYMBOL(gni_ep_unbind);

/*
 * Unlist @ep and let go of its CQ (obj_lock held); its posts still in the
 * request table lose it, as in libugni's GNI_EpDestroy(): their events
 * still come and gni_get_completed() still hands their descriptors back.
 */
static void kgni_kep_unlink(struct gni_ep *ep)
{
	unsigned long flags;

	WRITE_ONCE(ep->tag, KGNI_TAG_INVALID);
	list_del(&ep->node);
	if (ep->src_cq)
		ep->src_cq->eps--;
	flags = gnicore_lock(&ep->nic->core.lock);
	gnicore_req_forget_ep(&ep->nic->core, &ep->core);
	gnicore_unlock(&ep->nic->core.lock, flags);
}

/**
 * gni_ep_destroy() - destroy an endpoint
 * @ep_hndl: the endpoint
 *
 * Its CQ may be destroyed afterwards, once the transfers of its posts
 * have ended.  Posts outstanding do not stop it (libugni's
 * GNI_EpDestroy() neither): they lose their endpoint, their events still
 * come and gni_get_completed() still hands their descriptors back.  Its
 * datagram, if not collected, is dropped (cancelled at its peer if its
 * message went out): its out_buf is not written afterwards.  Its SMSG
 * connection goes (a failed message is not sent again).
 *
 * Context: process context, may sleep.
 * Return: SUCCESS, INVALID_PARAM.
 */
gni_return_t gni_ep_destroy(gni_ep_handle_t ep_hndl)
{
	struct gni_ep *ep = ep_hndl;
	unsigned long flags;

	if (!kgni_may_sleep() || !kgni_is(ep, KGNI_TAG_EP))
		return kgni_kapi_ret(gni_ep_destroy, GNI_RC_INVALID_PARAM,
				     EINVAL, 0);
	kgni_kdg_ep_release(ep);
	spin_lock_irqsave(&ep->nic->obj_lock, flags);
	kgni_kep_unlink(ep);
	spin_unlock_irqrestore(&ep->nic->obj_lock, flags);
	kgni_ksmsg_release(ep);
	kfree_rcu(ep, rcu);
	return kgni_kapi_ret(gni_ep_destroy, GNI_RC_SUCCESS, 0, 0);
}
EXPORT_SYMBOL(gni_ep_destroy);

/**
 * kgni_kep_nic_free() - destroy a NIC's endpoints left at its destruction
 * @nic: the NIC
 *
 * Context: process context.
 * Return: how many there were.
 */
unsigned int kgni_kep_nic_free(struct gni_nic *nic)
{
	struct gni_ep *ep, *next;
	unsigned int n = 0;
	unsigned long flags;
	LIST_HEAD(left);

	spin_lock_irqsave(&nic->obj_lock, flags);
	list_for_each_entry_safe(ep, next, &nic->eps, node) {
		kgni_kep_unlink(ep);
		list_add_tail(&ep->node, &left);
		n++;
	}
	spin_unlock_irqrestore(&nic->obj_lock, flags);
	list_for_each_entry_safe(ep, next, &left, node) {
		kgni_ksmsg_release(ep);
		kfree_rcu(ep, rcu);
	}
	return n;
}

/**
 * kgni_kep_rdma_post() - queue a kernel endpoint's RDMA transfer
 * @core: the endpoint's gnicore part
 * @r: the transfer gnicore_post_rdma() made (event data, handles, CQ)
 *
 * gnicore_env_rdma_post() of the kernel: kgni_rdma_post() for the NIC's
 * kernel domain, on the BTE channels of user posts (0 to 2 in turn, the
 * domain's home channel with GNI_CDM_MODE_BTE_SINGLE_CHANNEL); channel 3
 * stays the datagrams'.
 *
 * Context: process context, may sleep (dp.lock).
 * Return: SUCCESS, ERROR_RESOURCE (the rings or the domain's quota full,
 * the device removed), INVALID_PARAM (a handle or CQ that is not the
 * NIC's, a range outside its registration, a transfer into read-only
 * memory, the job released).
 */
gni_return_t kgni_kep_rdma_post(struct gnicore_ep *core,
				struct kgni_rdma_post *r)
{
	struct gni_ep *ep = container_of(core, struct gni_ep, core);
	struct kgni_dev *kdev = ep->nic->kdev;
	struct kgni_rdma_req req;
	u32 channel, slot;
	int err;

	kgni_rdma_req_init(&req, r);
	down_read(&kdev->ctl_rwsem);
	if (READ_ONCE(kdev->gone))
		err = -ENODEV;
	else
		err = kgni_rdma_post(kdev, &ep->nic->dom, &req, &channel,
				     &slot);
	up_read(&kdev->ctl_rwsem);
	switch (err) {
	case 0:
		return GNI_RC_SUCCESS;
	case -ENOSPC:
	case -ENODEV:
		return GNI_RC_ERROR_RESOURCE;
	default:	/* EINVAL, EACCES, EPERM, ENOLINK */
		return GNI_RC_INVALID_PARAM;
	}
}

/* gnicore_post_rdma()'s codes outside kgni section 3.5's list */
static gni_return_t kgni_kep_rdma_rc(gni_return_t rc)
{
	switch (rc) {
	case GNI_RC_SUCCESS:
	case GNI_RC_ALIGNMENT_ERROR:
	case GNI_RC_INVALID_PARAM:
	case GNI_RC_ERROR_RESOURCE:
		return rc;
	default:	/* PERMISSION_ERROR (read-only), INVALID_STATE (unbound) */
		return GNI_RC_INVALID_PARAM;
	}
}

/**
 * gni_post_rdma() - post an RDMA PUT or GET
 * @ep_hndl: the endpoint, bound
 * @post_descr: the post; it must stay until gni_get_completed() has
 *              handed it back for the last event it asked for
 *
 * libugni's GNI_PostRdma(): the same checks (type, cq_mode, dual events,
 * FENCE only with GNI_CDM_MODE_BTE_SINGLE_CHANNEL, GET alignment, the
 * handles' CRC and ranges) and the same event data (gnicore_post_rdma()):
 * the local and global events go to src_cq_hndl, else to the endpoint's
 * CQ, and show the endpoint's local event data once taken; the remote
 * event goes to the CQ of the target's registration with the endpoint's
 * remote event data as inst_id.  The transfer goes on the BTE channels of
 * user posts (kgni_kep_rdma_post()).  A post with neither src_cq_hndl nor
 * an endpoint CQ is refused: its error event would have nowhere to go.
 *
 * Context: process context, may sleep (the BTE's dp.lock; a post from
 * atomic context is refused with INVALID_PARAM until the data path has
 * per-channel spinlocks).
 * Return: SUCCESS, ALIGNMENT_ERROR (a GET's addresses or length not
 * multiples of 4), INVALID_PARAM (a bad handle or descriptor, an unbound
 * endpoint, a transfer into read-only memory, atomic context),
 * ERROR_RESOURCE (no tid, the BTE rings or the domain's quota full, the
 * device removed: try again later).
 */
gni_return_t gni_post_rdma(gni_ep_handle_t ep_hndl,
			   gni_post_descriptor_t *post_descr)
{
	struct gni_ep *ep = ep_hndl;
	struct gni_cq *src_cq;
	gni_return_t rc;

	if (!kgni_may_sleep() || !kgni_is(ep, KGNI_TAG_EP) || !post_descr)
		return kgni_kapi_ret(gni_post_rdma, GNI_RC_INVALID_PARAM,
				     EINVAL, 0);
	src_cq = post_descr->src_cq_hndl;
	if ((src_cq && !kgni_is(src_cq, KGNI_TAG_CQ)) ||
	    (!src_cq && !ep->src_cq))
		return kgni_kapi_ret(gni_post_rdma, GNI_RC_INVALID_PARAM,
				     EINVAL, 0);
	rc = kgni_kep_rdma_rc(gnicore_post_rdma(&ep->core, post_descr,
						src_cq ? &src_cq->core : NULL));
	return kgni_kapi_ret(gni_post_rdma, rc,
			     rc == GNI_RC_SUCCESS ? 0 :
			     rc == GNI_RC_ERROR_RESOURCE ? ENOSPC : EINVAL,
			     post_descr->type);
}
EXPORT_SYMBOL(gni_post_rdma);
