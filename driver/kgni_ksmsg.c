// SPDX-License-Identifier: GPL-2.0-only
/*
 * kgni: the kernel API's short messages (Documentation/kernel-api.rst,
 * "Short messages").
 *
 * gnicore's SMSG (lib/gnicore/gnicore_smsg.c), libugni's: the same
 * mailbox format and protocol, credits, retransmission and event data.
 * The mailboxes are in kernel memory the client registered; a send is one
 * sequence of the endpoint's FMA descriptor (its CQ's, kgni_kfma.c), so an
 * endpoint made without a CQ cannot have SMSG.  The local event of a send
 * goes to the endpoint's CQ with the msg_id; the remote event to the CQ
 * of the peer's mailbox registration with the sender's remote event data
 * as inst_id; with GNI_SMSG_TYPE_MBOX_AUTO_RETRANSMIT a send whose
 * sequence fails is sent again when gni_cq_get_event() takes its event,
 * up to the NIC's max_retrans times.
 *
 * gnicore's codes become those of kgni section 3.3's table: ERROR_NOMEM
 * is ERROR_RESOURCE; INVALID_STATE (no SMSG state, a connection broken
 * past max_retrans) stays for gni_smsg_getnext() and gni_smsg_init(), and
 * is INVALID_PARAM for gni_smsg_send() and gni_smsg_release(), whose
 * lists lack it.
 *
 * An endpoint's SMSG state goes at gni_ep_unbind() and gni_ep_destroy()
 * (kgni_ksmsg_release()): detached at once, freed after an RCU grace
 * period, because gni_cq_get_event() on another CPU, under
 * rcu_read_lock(), may be sending a failed message again through it.
 */
#include <linux/export.h>
#include <linux/preempt.h>
#include <linux/slab.h>

#include "kgni_kapi.h"

/**
 * struct kgni_ksmsg - what frees an endpoint's SMSG state
 * @rcu: the grace period it waits for
 * @s: the state, once detached from the endpoint
 *
 * Allocated by gni_smsg_init(), so that the release, in any context,
 * needs no memory.
 */
struct kgni_ksmsg {
	struct rcu_head rcu;
	struct gnicore_smsg *s;
};

static void kgni_ksmsg_free_rcu(struct rcu_head *rcu)
{
	struct kgni_ksmsg *k = container_of(rcu, struct kgni_ksmsg, rcu);

	gnicore_smsg_free(k->s);
	kfree(k);
}

/**
 * kgni_ksmsg_release() - let an endpoint's SMSG state go
 * @ep: the endpoint, unbound or being destroyed
 *
 * The state is detached now and freed after a grace period (the module's
 * exit waits for it, rcu_barrier()).
 *
 * Context: any.
 */
void kgni_ksmsg_release(struct gni_ep *ep)
{
	struct kgni_ksmsg *k = ep->smsg;

	if (!k)
		return;
	ep->smsg = NULL;
	k->s = gnicore_smsg_detach(&ep->core);
	call_rcu(&k->rcu, kgni_ksmsg_free_rcu);
}

/**
 * gni_smsg_buff_size_needed() - the bytes of one mailbox
 * @smsg_attr: its msg_type, mbox_maxcredit and msg_maxsize (the others
 *             are not read)
 * @size: the size: mbox_maxcredit slots of msg_maxsize bytes and their
 *        headers, and the credit words (uapi/gni_wire.h)
 *
 * Context: any.
 * Return: SUCCESS; INVALID_PARAM (no attributes or @size, a type other
 * than GNI_SMSG_TYPE_MBOX and GNI_SMSG_TYPE_MBOX_AUTO_RETRANSMIT, 0
 * credits, msg_maxsize 0 or above UGNI_SMSG_MAX_SIZE, 1 MiB), @size
 * unwritten.
 */
gni_return_t gni_smsg_buff_size_needed(gni_smsg_attr_t *smsg_attr,
				       unsigned int *size)
{
	gni_return_t rc = gnicore_smsg_buff_size(smsg_attr, size);

	return kgni_kapi_ret(gni_smsg_buff_size_needed, rc,
			     kgni_core_errno(rc), 0);
}
EXPORT_SYMBOL(gni_smsg_buff_size_needed);

/**
 * gni_smsg_init() - open an endpoint's SMSG connection
 * @ep_hndl: the endpoint, bound to the peer, made with a CQ
 * @local_smsg_attr: its mailbox: msg_buffer (a kernel address) +
 *                   mbox_offset, in the registration mem_hndl of the
 *                   endpoint's NIC (whose CQ gets the peer's remote
 *                   events), buff_size at least one mailbox
 * @remote_smsg_attr: the peer's, as the peer gave it (its msg_buffer is
 *                    an address in the peer's mem_hndl, never read here)
 *
 * Both must have the same msg_maxsize; the credits may differ.  The
 * mailbox's credit words are cleared; its slots are left, since the peer
 * may have sent already.
 *
 * Context: any (atomic context allocates with GFP_ATOMIC).
 * Return: SUCCESS; INVALID_PARAM (a bad handle or attributes, an endpoint
 * without a CQ, different msg_maxsize, a mailbox outside its handle or
 * bigger than buff_size, a handle with a bad CRC); INVALID_STATE (the
 * endpoint is not bound, or has SMSG already); ERROR_RESOURCE (no
 * memory).
 */
gni_return_t gni_smsg_init(gni_ep_handle_t ep_hndl,
			   gni_smsg_attr_t *local_smsg_attr,
			   gni_smsg_attr_t *remote_smsg_attr)
{
	struct gni_ep *ep = ep_hndl;
	struct kgni_ksmsg *k;
	gni_return_t rc;

	if (!kgni_is(ep, KGNI_TAG_EP) || !ep->core.fma)
		return kgni_kapi_ret(gni_smsg_init, GNI_RC_INVALID_PARAM,
				     EINVAL, 0);
	k = kzalloc(sizeof(*k), preemptible() ? GFP_KERNEL : GFP_ATOMIC);
	if (!k)
		return kgni_kapi_ret(gni_smsg_init, GNI_RC_ERROR_RESOURCE,
				     ENOMEM, 0);
	rc = gnicore_smsg_init(&ep->core, local_smsg_attr, remote_smsg_attr);
	if (rc != GNI_RC_SUCCESS) {
		kfree(k);
		return kgni_kapi_ret(gni_smsg_init,
				     rc == GNI_RC_ERROR_NOMEM ?
				     GNI_RC_ERROR_RESOURCE : rc,
				     kgni_core_errno(rc), 0);
	}
	ep->smsg = k;
	return kgni_kapi_ret(gni_smsg_init, GNI_RC_SUCCESS, 0, 0);
}
EXPORT_SYMBOL(gni_smsg_init);

/**
 * gni_smsg_send() - send a short message
 * @ep_hndl: the endpoint, its SMSG connection open
 * @header: @header_length bytes, copied first
 * @header_length: bytes of @header
 * @data: @data_length bytes, copied after them
 * @data_length: bytes of @data; with @header_length at most msg_maxsize
 * @msg_id: the msg_id of the send's local event
 *
 * The message is copied (a copy is kept for a second sending) and put
 * into the peer's mailbox with one FMA sequence before this returns.
 *
 * Context: any: spinlocks only, no allocation, no waiting.
 * Return: SUCCESS; NOT_DONE (no credit: the peer has not released enough
 * of the messages sent; try again after its next remote event or later);
 * INVALID_PARAM (a bad handle, a length without its buffer, a message
 * longer than msg_maxsize, no SMSG connection, a connection broken
 * past max_retrans); ERROR_RESOURCE (no tid, the FMA descriptor full,
 * the device removed: try again later).
 */
gni_return_t gni_smsg_send(gni_ep_handle_t ep_hndl, void *header,
			   u32 header_length, void *data, u32 data_length,
			   u32 msg_id)
{
	struct gni_ep *ep = ep_hndl;
	gni_return_t rc;

	if (!kgni_is(ep, KGNI_TAG_EP))
		return kgni_kapi_ret(gni_smsg_send, GNI_RC_INVALID_PARAM,
				     EINVAL, 0);
	if (READ_ONCE(ep->nic->kdev->gone))
		return kgni_kapi_ret(gni_smsg_send, GNI_RC_ERROR_RESOURCE,
				     ENODEV, 0);
	rc = gnicore_smsg_send(&ep->core, header, header_length, data,
			       data_length, msg_id, 0);
	return kgni_kapi_ret(gni_smsg_send,
			     rc == GNI_RC_INVALID_STATE ?
			     GNI_RC_INVALID_PARAM : rc,
			     kgni_core_errno(rc),
			     (u64)header_length + data_length);
}
EXPORT_SYMBOL(gni_smsg_send);

/**
 * gni_smsg_getnext() - the next message in an endpoint's mailbox
 * @ep_hndl: the endpoint, its SMSG connection open
 * @header: the message: its header, its data right after; it stays in
 *          the mailbox until gni_smsg_release()
 *
 * A remote event may come before its message is seen: a client takes
 * messages until NOT_DONE after each.
 *
 * Context: any.
 * Return: SUCCESS; NOT_DONE (no message); INVALID_STATE (no SMSG
 * connection, or it broke past max_retrans); INVALID_PARAM.
 */
gni_return_t gni_smsg_getnext(gni_ep_handle_t ep_hndl, void **header)
{
	struct gni_ep *ep = ep_hndl;
	gni_return_t rc;

	if (!kgni_is(ep, KGNI_TAG_EP))
		return kgni_kapi_ret(gni_smsg_getnext, GNI_RC_INVALID_PARAM,
				     EINVAL, 0);
	rc = gnicore_smsg_get_next(&ep->core, header, NULL);
	return kgni_kapi_ret(gni_smsg_getnext, rc, kgni_core_errno(rc), 0);
}
EXPORT_SYMBOL(gni_smsg_getnext);

/**
 * gni_smsg_release() - free the message gni_smsg_getnext() handed out
 * @ep_hndl: the endpoint
 *
 * Its slot is free again and the peer gets the credit (a silent 8-byte
 * PUT of the count released; one that cannot go now goes with the next).
 *
 * Context: any.
 * Return: SUCCESS; NOT_DONE (no message handed out); INVALID_PARAM (a bad
 * handle, no SMSG connection).
 */
gni_return_t gni_smsg_release(gni_ep_handle_t ep_hndl)
{
	struct gni_ep *ep = ep_hndl;
	gni_return_t rc;

	if (!kgni_is(ep, KGNI_TAG_EP))
		return kgni_kapi_ret(gni_smsg_release, GNI_RC_INVALID_PARAM,
				     EINVAL, 0);
	rc = gnicore_smsg_release(&ep->core);
	return kgni_kapi_ret(gni_smsg_release,
			     rc == GNI_RC_INVALID_STATE ?
			     GNI_RC_INVALID_PARAM : rc,
			     kgni_core_errno(rc), 0);
}
EXPORT_SYMBOL(gni_smsg_release);

/* A NIC's SMSG setting: @retrans ? max_retrans : the delivery mode */
static gni_return_t kgni_ksmsg_set(gni_nic_handle_t nic_handle, bool retrans,
				   u16 v)
{
	struct gni_nic *nic = nic_handle;

	if (!kgni_is(nic, KGNI_TAG_NIC))
		return GNI_RC_INVALID_PARAM;
	if (retrans)
		WRITE_ONCE(nic->core.smsg_max_retrans, v);
	else
		WRITE_ONCE(nic->core.smsg_dlvr_mode, v);
	return GNI_RC_SUCCESS;
}

/**
 * gni_smsg_set_delivery_mode() - the routing of a NIC's SMSG sequences
 * @nic_handle: the NIC
 * @dlvr_mode: GNI_DLVMODE_* bits; Gemini's NO_ADAPT, NO_HASH and
 *             NO_RADAPT count, the others (Aries') change nothing
 *
 * For the sends and credit returns that follow, of every endpoint of the
 * NIC (libugni's GNI_SmsgSetDeliveryMode()).
 *
 * Context: any.
 * Return: SUCCESS, INVALID_PARAM.
 */
gni_return_t gni_smsg_set_delivery_mode(gni_nic_handle_t nic_handle,
					u16 dlvr_mode)
{
	gni_return_t rc = kgni_ksmsg_set(nic_handle, false, dlvr_mode);

	return kgni_kapi_ret(gni_smsg_set_delivery_mode, rc,
			     kgni_core_errno(rc), 0);
}
EXPORT_SYMBOL(gni_smsg_set_delivery_mode);

/**
 * gni_smsg_set_max_retrans() - how often a failed message is sent again
 * @nic_handle: the NIC
 * @max_retrans: sendings after the first, for each message of an
 *               endpoint of type GNI_SMSG_TYPE_MBOX_AUTO_RETRANSMIT
 *               (FMA_SMSG_MAX_RETRANS_DEFAULT at attach); 0: none
 *
 * A message that fails that often more breaks its connection: its local
 * event reaches gni_cq_get_event() as TRANSACTION_ERROR, and the
 * connection's calls fail (libugni's GNI_SmsgSetMaxRetrans()).
 *
 * Context: any.
 * Return: SUCCESS, INVALID_PARAM.
 */
gni_return_t gni_smsg_set_max_retrans(gni_nic_handle_t nic_handle,
				      u16 max_retrans)
{
	gni_return_t rc = kgni_ksmsg_set(nic_handle, true, max_retrans);

	return kgni_kapi_ret(gni_smsg_set_max_retrans, rc,
			     kgni_core_errno(rc), 0);
}
EXPORT_SYMBOL(gni_smsg_set_max_retrans);
