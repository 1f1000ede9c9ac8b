// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Short messages (SMSG): gnicore's (gnicore_smsg.c, the mailbox format in
 * uapi/gni_wire.h), with the NIC's settings and statistics.
 */
#include "ugni_priv.h"

UGNI_EXPORT gni_return_t GNI_SmsgBufferSizeNeeded(gni_smsg_attr_t *smsg_attr,
						  unsigned int *size)
{
	return gnicore_smsg_buff_size(smsg_attr, size);
}

UGNI_EXPORT gni_return_t GNI_SmsgSetDeliveryMode(gni_nic_handle_t nic_handle,
						 uint16_t dlvr_mode)
{
	if (!nic_handle)
		return GNI_RC_INVALID_PARAM;
	nic_handle->core.smsg_dlvr_mode = dlvr_mode;
	return GNI_RC_SUCCESS;
}

UGNI_EXPORT gni_return_t GNI_SmsgSetMaxRetrans(gni_nic_handle_t nic_handle,
					       uint16_t max_retrans)
{
	if (!nic_handle)
		return GNI_RC_INVALID_PARAM;
	nic_handle->core.smsg_max_retrans = max_retrans;
	return GNI_RC_SUCCESS;
}

/*
 * The NIC's SMSG statistics: MBOX_CREDITS_STALL counts sends refused for
 * want of the peer's credit, REQ_STALL those refused for want of a
 * request slot, RETRANS_COUNT messages sent again.  The others (shared
 * buffer credits, the DLA, stalls behind a retransmission) have nothing
 * to count in this design and stay 0.
 */
UGNI_EXPORT gni_return_t GNI_GetNicStat(gni_nic_handle_t nic_hndl,
					gni_statistic_t stat, uint32_t *value)
{
	if (!nic_hndl || !value || (unsigned int)stat >= GNI_NUM_STATS)
		return GNI_RC_INVALID_PARAM;
	*value = __atomic_load_n(&nic_hndl->core.stats[stat], __ATOMIC_RELAXED);
	return GNI_RC_SUCCESS;
}

UGNI_EXPORT gni_return_t GNI_ResetNicStat(gni_nic_handle_t nic_hndl,
					  gni_statistic_t stat)
{
	if (!nic_hndl || (unsigned int)stat >= GNI_NUM_STATS)
		return GNI_RC_INVALID_PARAM;
	__atomic_store_n(&nic_hndl->core.stats[stat], 0, __ATOMIC_RELAXED);
	return GNI_RC_SUCCESS;
}

UGNI_EXPORT gni_return_t GNI_SmsgInit(gni_ep_handle_t ep_hndl,
				      gni_smsg_attr_t *local_smsg_attr,
				      gni_smsg_attr_t *remote_smsg_attr)
{
	if (!ep_hndl)
		return GNI_RC_INVALID_PARAM;
	return gnicore_smsg_init(&ep_hndl->core, local_smsg_attr,
				 remote_smsg_attr);
}

UGNI_EXPORT gni_return_t GNI_SmsgSend(gni_ep_handle_t ep_hndl, void *header,
				      uint32_t header_length, void *data,
				      uint32_t data_length, uint32_t msg_id)
{
	if (!ep_hndl)
		return GNI_RC_INVALID_PARAM;
	return gnicore_smsg_send(&ep_hndl->core, header, header_length, data,
				 data_length, msg_id, 0);
}

UGNI_EXPORT gni_return_t GNI_SmsgSendWTag(gni_ep_handle_t ep_hndl,
					  void *header, uint32_t header_length,
					  void *data, uint32_t data_length,
					  uint32_t msg_id, uint8_t tag)
{
	if (!ep_hndl)
		return GNI_RC_INVALID_PARAM;
	return gnicore_smsg_send(&ep_hndl->core, header, header_length, data,
				 data_length, msg_id, tag);
}

/*
 * A mailbox polled empty counts as a CQ does (ugni_cq.c): a program that
 * polls GNI_SmsgGetNext alone, without its CQ, lets its vCPU wait a
 * little too, in the idle register of the endpoint's CQ (or its FMA
 * descriptor's).
 */
static gni_return_t smsg_polled(gni_ep_handle_t ep, gni_return_t rc)
{
	if (rc == GNI_RC_NOT_DONE)
		ugni_idle_poll(ep->core.cq ? ep->core.cq :
			       ep->core.fma ? ep->core.fma->cq : NULL,
			       &ep->empty_polls);
	else
		__atomic_store_n(&ep->empty_polls, 0, __ATOMIC_RELAXED);
	return rc;
}

UGNI_EXPORT gni_return_t GNI_SmsgGetNext(gni_ep_handle_t ep_hndl,
					 void **header)
{
	if (!ep_hndl)
		return GNI_RC_INVALID_PARAM;
	return smsg_polled(ep_hndl, gnicore_smsg_get_next(&ep_hndl->core,
							   header, NULL));
}

UGNI_EXPORT gni_return_t GNI_SmsgGetNextWTag(gni_ep_handle_t ep_hndl,
					     void **header, uint8_t *tag)
{
	if (!ep_hndl || !tag)
		return GNI_RC_INVALID_PARAM;
	return smsg_polled(ep_hndl, gnicore_smsg_get_next(&ep_hndl->core,
							   header, tag));
}

UGNI_EXPORT gni_return_t GNI_SmsgRelease(gni_ep_handle_t ep_hndl)
{
	if (!ep_hndl)
		return GNI_RC_INVALID_PARAM;
	return gnicore_smsg_release(&ep_hndl->core);
}
