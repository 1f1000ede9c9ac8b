// SPDX-License-Identifier: GPL-2.0-only
/*
 * kgni: the kernel API's endpoints (Documentation/kernel-api.rst).
 *
 * An endpoint records its NIC, the CQ of its local events, its peer and
 * its event data; the CQ it names cannot be destroyed before it.  Posts,
 * SMSG and datagrams on it come in a later step.
 *
 * gni_ep_create() and gni_ep_destroy() may sleep; bind, unbind and the
 * event data may be set in any context.
 */
#include <linux/export.h>
#include <linux/slab.h>

#include "kgni_kapi.h"

/**
 * gni_ep_create() - make an endpoint
 * @nic_hndl: the NIC
 * @src_cq_hndl: a CQ of the NIC for its local events, or NULL
 * @ep_hndl: the new endpoint, not bound
 *
 * Context: process context, may sleep.
 * Return: SUCCESS, INVALID_PARAM, ERROR_NOMEM.
 */
gni_return_t gni_ep_create(gni_nic_handle_t nic_hndl,
			   gni_cq_handle_t src_cq_hndl, gni_ep_handle_t *ep_hndl)
{
	struct gni_nic *nic = nic_hndl;
	struct gni_cq *cq = src_cq_hndl;
	unsigned long flags;
	struct gni_ep *ep;
	bool ok;

	if (!kgni_may_sleep() || !kgni_is(nic, KGNI_TAG_NIC) || !ep_hndl ||
	    (cq && !kgni_is(cq, KGNI_TAG_CQ)))
		return kgni_kapi_ret(gni_ep_create, GNI_RC_INVALID_PARAM,
				     EINVAL, 0);
	ep = kzalloc(sizeof(*ep), GFP_KERNEL);
	if (!ep)
		return kgni_kapi_ret(gni_ep_create, GNI_RC_ERROR_NOMEM, ENOMEM,
				     0);
	ep->tag = KGNI_TAG_EP;
	ep->nic = nic;
	ep->src_cq = cq;
	spin_lock_irqsave(&nic->obj_lock, flags);
	/* The CQ is the NIC's and not being destroyed. */
	ok = !cq || (cq->nic == nic && READ_ONCE(cq->tag) == KGNI_TAG_CQ);
	if (ok) {
		if (cq)
			cq->eps++;
		list_add_tail(&ep->node, &nic->eps);
	}
	spin_unlock_irqrestore(&nic->obj_lock, flags);
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
 * A bound endpoint may be bound again, to another peer.
 *
 * Context: any.
 * Return: SUCCESS, INVALID_PARAM (NOT_DONE, in the list, is never
 * returned: binding waits for nothing).
 */
gni_return_t gni_ep_bind(gni_ep_handle_t ep_hndl, u32 remote_addr,
			 u32 remote_id)
{
	struct gni_ep *ep = ep_hndl;
	unsigned long flags;

	if (!kgni_is(ep, KGNI_TAG_EP))
		return kgni_kapi_ret(gni_ep_bind, GNI_RC_INVALID_PARAM, EINVAL,
				     0);
	spin_lock_irqsave(&ep->nic->obj_lock, flags);
	ep->remote_addr = remote_addr;
	ep->remote_id = remote_id;
	ep->bound = true;
	spin_unlock_irqrestore(&ep->nic->obj_lock, flags);
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
	spin_lock_irqsave(&ep->nic->obj_lock, flags);
	ep->local_event = local_event;
	ep->remote_event = remote_event;
	spin_unlock_irqrestore(&ep->nic->obj_lock, flags);
	return kgni_kapi_ret(gni_ep_set_eventdata, GNI_RC_SUCCESS, 0, 0);
}
EXPORT_SYMBOL(gni_ep_set_eventdata);

/**
 * gni_ep_unbind() - forget an endpoint's peer
 * @ep_hndl: the endpoint, bound or not
 *
 * Context: any.
 * Return: SUCCESS, INVALID_PARAM (NOT_DONE, for posts still running, comes
 * with posts).
 */
gni_return_t gni_ep_unbind(gni_ep_handle_t ep_hndl)
{
	struct gni_ep *ep = ep_hndl;
	unsigned long flags;

	if (!kgni_is(ep, KGNI_TAG_EP))
		return kgni_kapi_ret(gni_ep_unbind, GNI_RC_INVALID_PARAM,
				     EINVAL, 0);
	spin_lock_irqsave(&ep->nic->obj_lock, flags);
	ep->bound = false;
	ep->remote_addr = 0;
	ep->remote_id = 0;
	spin_unlock_irqrestore(&ep->nic->obj_lock, flags);
	return kgni_kapi_ret(gni_ep_unbind, GNI_RC_SUCCESS, 0, 0);
}
EXPORT_SYMBOL(gni_ep_unbind);

/* Unlist @ep and let go of its CQ (obj_lock held). */
static void kgni_kep_unlink(struct gni_ep *ep)
{
	WRITE_ONCE(ep->tag, KGNI_TAG_INVALID);
	list_del(&ep->node);
	if (ep->src_cq)
		ep->src_cq->eps--;
}

/**
 * gni_ep_destroy() - destroy an endpoint
 * @ep_hndl: the endpoint
 *
 * Its CQ may be destroyed afterwards.
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
	spin_lock_irqsave(&ep->nic->obj_lock, flags);
	kgni_kep_unlink(ep);
	spin_unlock_irqrestore(&ep->nic->obj_lock, flags);
	kfree(ep);
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
	list_for_each_entry_safe(ep, next, &left, node)
		kfree(ep);
	return n;
}
