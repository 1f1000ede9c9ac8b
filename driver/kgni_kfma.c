// SPDX-License-Identifier: GPL-2.0-only
/*
 * kgni: the kernel API's FMA descriptors and gni_post_fma()
 * (Documentation/kernel-api.rst, "FMA posts").
 *
 * One descriptor per kernel CQ that endpoints name, shared by those
 * endpoints: a descriptor's cq_hndl (QW3) is where its local events go,
 * and an endpoint's FMA local events go to its CQ, so endpoints of one CQ
 * can share one and those of two cannot (libugni shares the same way).
 * It is taken when the first endpoint naming the CQ is made
 * (gni_ep_create(), process context) and kept until the CQ is destroyed,
 * not freed with its last endpoint: gnilnd and ipogif make and destroy an
 * endpoint per connection, and freeing waits for the descriptor's
 * sequences; and since a CQ outlives its endpoints, no post can race the
 * freeing.  An endpoint made without a CQ has none: its FMA posts and
 * short messages are refused (their error events would have nowhere to
 * go; libugni gives such endpoints a hidden CQ instead).
 *
 * The descriptor comes from KGNI_IOC_FMA_ALLOC's allocator
 * (kgni_fma_alloc()): an OS descriptor, 64 to 67, while one is free, else
 * a general one; QW3 names the CQ and the domain's ptag as for a process.
 * Its user page and its PUT (write-combining) and GET windows are mapped
 * here, KGNI_FMA_MAP_SIZE each, as libugni maps them, so that gnicore
 * drives it unchanged: each sequence under the descriptor's spinlock with
 * interrupts off, a full descriptor refused at the start of a post
 * (GNI_RC_ERROR_RESOURCE), never waited for (gnicore_env_kernel.h).  It
 * is freed as a process's is: disabled, its sequences waited for, kept
 * out of use if they do not end (kgni_fma_free()).
 */
#include <linux/export.h>
#include <linux/io.h>
#include <linux/pci.h>
#include <linux/slab.h>

#include "kgni_kapi.h"

/**
 * struct kgni_kfma - a kernel CQ's FMA descriptor
 * @core: gnicore's descriptor: its pages mapped, its lock, its CQ
 * @id: the descriptor
 */
struct kgni_kfma {
	struct gnicore_fma core;
	u32 id;
};

static void kgni_kfma_unmap(struct kgni_kfma *f)
{
	if (f->core.user)
		iounmap(f->core.user);
	if (f->core.put)
		iounmap(f->core.put);
	if (f->core.get)
		iounmap(f->core.get);
}

/* BAR2 from @off, @len bytes, @wc: write-combining; NULL if outside */
static void __iomem *kgni_kfma_ioremap(struct kgni_dev *kdev, u64 off,
				       u64 len, bool wc)
{
	if (off + len > pci_resource_len(kdev->pdev, GEMINI_BAR_NIC))
		return NULL;
	return wc ? ioremap_wc(kdev->nic_phys + off, len) :
		    ioremap(kdev->nic_phys + off, len);
}

/*
 * Map @f's user page and windows as libugni maps them (the user page, not
 * the privileged one: gnicore's stores keep to what the privilege mask
 * gives, as a process's must).  ctl_rwsem held, the device alive.
 */
static int kgni_kfma_map(struct kgni_dev *kdev, struct kgni_kfma *f)
{
	u64 put, get;

	if (f->id >= GEMINI_FMA_OS_FIRST) {
		put = GEMINI_FMA_WINDOW(GEMINI_OS_FMA_PUT_WC,
					f->id - GEMINI_FMA_OS_FIRST);
		get = GEMINI_FMA_WINDOW(GEMINI_OS_FMA_GET,
					f->id - GEMINI_FMA_OS_FIRST);
	} else {
		put = GEMINI_FMA_WINDOW(GEMINI_FMA_PUT_WC, f->id);
		get = GEMINI_FMA_WINDOW(GEMINI_FMA_GET, f->id);
	}
	f->core.user = kgni_kfma_ioremap(kdev, GEMINI_FMA_USER_PAGE(f->id),
					 GEMINI_FMA_CTRL_SIZE, false);
	f->core.put = kgni_kfma_ioremap(kdev, put, KGNI_FMA_MAP_SIZE, true);
	f->core.get = kgni_kfma_ioremap(kdev, get, KGNI_FMA_MAP_SIZE, false);
	if (f->core.user && f->core.put && f->core.get)
		return 0;
	kgni_kfma_unmap(f);
	return -ENOMEM;
}

/**
 * kgni_kfma_get() - the FMA descriptor of a CQ's endpoints
 * @cq: the CQ, of the endpoint being made
 * @fma: its descriptor, taken now if the CQ had none
 *
 * Context: process context, may sleep; &gni_nic.fma_lock held.
 * Return: 0, -EINVAL for a CQ being destroyed, -ENOSPC without a free
 * descriptor, -ENOMEM, -ENODEV once the device is removed, or another
 * errno of kgni_fma_alloc().
 */
int kgni_kfma_get(struct gni_cq *cq, struct gnicore_fma **fma)
{
	struct gni_nic *nic = cq->nic;
	struct kgni_dev *kdev = nic->kdev;
	struct kgni_kfma *f;
	int err;

	lockdep_assert_held(&nic->fma_lock);
	if (READ_ONCE(cq->tag) != KGNI_TAG_CQ)
		return -EINVAL;
	if (cq->fma) {
		*fma = &cq->fma->core;
		return 0;
	}
	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	down_read(&kdev->ctl_rwsem);
	if (READ_ONCE(kdev->gone))
		err = -ENODEV;
	else
		err = kgni_fma_alloc(kdev, &nic->dom, cq->id, &f->id);
	if (!err) {
		err = kgni_kfma_map(kdev, f);
		if (err)
			kgni_fma_free(kdev, &nic->dom, f->id, true);
	}
	up_read(&kdev->ctl_rwsem);
	if (err) {
		kfree(f);
		return err;
	}
	gnicore_fma_init(&f->core, &cq->core);
	cq->fma = f;
	*fma = &f->core;
	return 0;
}

/**
 * kgni_kfma_free() - free a CQ's FMA descriptor, if it has one
 * @cq: the CQ, which no endpoint names
 *
 * The descriptor is disabled and its sequences are waited for (their
 * events written) before its pages are unmapped; after remove the device
 * is not touched.
 *
 * Context: process context, may sleep; &gni_nic.fma_lock held.
 */
void kgni_kfma_free(struct gni_cq *cq)
{
	struct gni_nic *nic = cq->nic;
	struct kgni_dev *kdev = nic->kdev;
	struct kgni_kfma *f = cq->fma;

	lockdep_assert_held(&nic->fma_lock);
	if (!f)
		return;
	cq->fma = NULL;
	down_read(&kdev->ctl_rwsem);
	kgni_fma_free(kdev, &nic->dom, f->id, !READ_ONCE(kdev->gone));
	up_read(&kdev->ctl_rwsem);
	kgni_kfma_unmap(f);
	gnicore_fma_fini(&f->core);
	kfree(f);
}

/**
 * gni_post_fma() - post an FMA PUT, GET, AMO or CQ write
 * @ep_hndl: the endpoint, bound, made with a CQ
 * @post_descr: the post; it must stay until gni_get_completed() has
 *              handed it back, if it asked for a local event
 *
 * libugni's GNI_PostFma() and, for type GNI_POST_CQWRITE, GNI_PostCqWrite()
 * (gnicore_post_fma(), gnicore_post_cqwrite()): the same checks, the same
 * stores into the endpoint's CQ's descriptor and the same event data.
 * The post's one local event (LOCAL or GLOBAL, not both) goes to the
 * endpoint's CQ with its local event data as inst_id (src_cq_hndl is not
 * read, as in libugni); the remote event to the CQ of the target's
 * registration with its remote event data; a CQ write's value (48 bits)
 * to the CQ of remote_mem_hndl's registration.  The data is moved by CPU
 * stores before the call returns, and a descriptor that already holds its
 * share of requests in flight refuses the post: FMA is for short
 * transfers (gni_post_rdma() moves bulk data).
 *
 * Context: any: spinlocks only, no allocation, no waiting.
 * Return: SUCCESS; INVALID_PARAM (a bad handle or descriptor, an endpoint
 * without a CQ, a type FMA does not post, an unknown cq_mode bit, dual
 * events, a handle with a bad CRC, a range outside a handle, a zero-length
 * GET or AMO); ALIGNMENT_ERROR (a GET not 4-byte aligned, an AMO not
 * 8-byte aligned); PERMISSION_ERROR (a GET or fetching AMO into read-only
 * memory); INVALID_STATE (the endpoint is not bound); ILLEGAL_OP
 * (GET_W_FLAG, AMO_W_FLAG); ERROR_RESOURCE (no tid, the descriptor full,
 * the device removed: try again later).
 */
gni_return_t gni_post_fma(gni_ep_handle_t ep_hndl,
			  gni_post_descriptor_t *post_descr)
{
	struct gni_ep *ep = ep_hndl;
	gni_return_t rc;

	if (!kgni_is(ep, KGNI_TAG_EP) || !post_descr || !ep->core.fma)
		return kgni_kapi_ret(gni_post_fma, GNI_RC_INVALID_PARAM, EINVAL,
				     0);
	/* Our mappings stay: a post racing remove stores into a dead BAR. */
	if (READ_ONCE(ep->nic->kdev->gone))
		return kgni_kapi_ret(gni_post_fma, GNI_RC_ERROR_RESOURCE,
				     ENODEV, 0);
	if (post_descr->type == GNI_POST_CQWRITE)
		rc = gnicore_post_cqwrite(&ep->core, post_descr);
	else
		rc = gnicore_post_fma(&ep->core, post_descr);
	return kgni_kapi_ret(gni_post_fma, rc, kgni_core_errno(rc),
			     post_descr->type);
}
EXPORT_SYMBOL(gni_post_fma);
