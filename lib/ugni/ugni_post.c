// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Posts, made by gnicore: FMA posts (PUT, GET, AMO, CQ write) are stores
 * into the FMA descriptor's mapped pages, without a system call
 * (gnicore_fma.c); an RDMA post is one KGNI_IOC_RDMA_POST, below, after
 * gnicore's checks (gnicore_req.c).
 */
#include "kgni_ioctl.h"
#include "ugni_priv.h"

UGNI_EXPORT gni_return_t GNI_PostFma(gni_ep_handle_t ep_hndl,
				     gni_post_descriptor_t *post_descr)
{
	if (!ep_hndl)
		return GNI_RC_INVALID_PARAM;
	return gnicore_post_fma(&ep_hndl->core, post_descr);
}

UGNI_EXPORT gni_return_t GNI_PostCqWrite(gni_ep_handle_t ep_hndl,
					 gni_post_descriptor_t *post_descr)
{
	if (!ep_hndl)
		return GNI_RC_INVALID_PARAM;
	return gnicore_post_cqwrite(&ep_hndl->core, post_descr);
}

UGNI_EXPORT gni_return_t GNI_PostRdma(gni_ep_handle_t ep_hndl,
				      gni_post_descriptor_t *post_descr)
{
	if (!ep_hndl || !post_descr)
		return GNI_RC_INVALID_PARAM;
	return gnicore_post_rdma(&ep_hndl->core, post_descr,
				 post_descr->src_cq_hndl ?
				 &post_descr->src_cq_hndl->core : NULL);
}

/*
 * gnicore's RDMA post: the kernel queues it on a BTE channel of the file.
 * ENOSPC: the channel's ring is full (GNI_RC_ERROR_RESOURCE).
 */
gni_return_t gnicore_env_rdma_post(struct gnicore_ep *ep,
				   struct kgni_rdma_post *r)
{
	return ugni_errno_rc(ugni_ioctl(ugni_nic(ep->nic), KGNI_IOC_RDMA_POST,
					r));
}
