// SPDX-License-Identifier: GPL-2.0-only
/*
 * kgni: the kernel API's memory registration (the deregistration
 * holds are kgni_mem_hold.c's) (Documentation/kernel-api.rst).
 *
 * A kernel client registers kernel pages: linear-map or vmalloc addresses
 * (gni_mem_register(), GNI_MEM_PHYS_CONT too), or physical pages
 * (gni_mem_register_segments() with GNI_MEM_PHYS_SEGMENTS).  The page
 * source takes a reference on each page (refusing a page nothing counts),
 * charges no RLIMIT, and hands
 * them to the data path's core (kgni_mem_create()), which gives them back
 * with put_page() when the registration goes (kgni_mem_put_pages()).
 *
 * gni_mem_deregister() with a hold timeout keeps the MDH number from
 * being given out again (peers' late requests to it keep failing at the
 * invalid MDD, and reach nobody else's memory) until the timeout expires
 * or gni_mem_mdd_release() releases it.  The holds are the device's: they
 * outlive the client's NIC and go at remove.  A number is free only when
 * neither a hold nor a BTE orphan (kgni_bte.c) keeps it.
 *
 * Registration may sleep; under a spinlock or with interrupts off (not
 * in interrupt context) it tries the data path's mutex instead, as
 * gnilnd registers its mailbox blocks again under that spinlock after a
 * stack reset, and answers ERROR_RESOURCE if another thread holds it.
 * Lustre's gnilnd deregisters its mailbox
 * blocks and releases their holds under a spinlock of its own, as Cray's
 * kgni let it, so gni_mem_deregister() and gni_mem_mdd_release() work in
 * any context: there, the MDD is invalidated at once under mem.lock and
 * the rest is left to work that runs before anything could tell
 * (kgni_mem_kill()), and a released hold is marked for the hold work.
 */
#include <linux/export.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "kgni_kapi.h"

/* Flags a kernel registration may have; ordering flags change nothing */
#define KGNI_KMEM_FLAGS \
	(GNI_MEM_READ_ONLY | GNI_MEM_USE_GART | GNI_MEM_PHYS_CONT | \
	 GNI_MEM_STRICT_PI_ORDERING | GNI_MEM_PI_FLUSH | \
	 GNI_MEM_RELAXED_PI_ORDERING)

/* The page of kernel address @va, or NULL if it has none kgni takes */
static struct page *kgni_kmem_page(unsigned long va)
{
	if (is_vmalloc_addr((void *)va))
		return vmalloc_to_page((void *)va);
	if (virt_addr_valid((void *)va))
		return virt_to_page((void *)va);
	return NULL;
}

/*
 * Take a reference on @page's folio, as get_page() would, unless nothing
 * counts it: a page past the first of a high-order allocation made
 * without __GFP_COMP has no count of its own, and put_page() would free
 * it (the network stack's sendpage_ok() refuses such pages too).
 */
static bool kgni_kmem_get(struct page *page)
{
	return page && folio_try_get(page_folio(page));
}

/*
 * The number of the dst_cq @cq for @nic (0 for none), or -EINVAL if it is
 * not one of @nic's CQs.
 */
static int kgni_kmem_cq(struct gni_nic *nic, struct gni_cq *cq, u32 *cq_id)
{
	*cq_id = 0;
	if (!cq)
		return 0;
	if (!kgni_is(cq, KGNI_TAG_CQ) || cq->nic != nic)
		return -EINVAL;
	*cq_id = cq->id;
	return 0;
}

/*
 * Register the @npages referenced pages of @pages from handle VA @va:
 * the handle into @mem_hndl on success, else the pages are put back.
 * 0 or an errno of kgni_mem_create() (-ENODEV after remove, -EBUSY if
 * @atomic and a remove or another thread holds what it needs).
 */
static int kgni_kmem_create(struct gni_nic *nic, struct page **pages,
			    unsigned long npages, u64 va, u32 cq_id,
			    u32 gni_flags, gni_mem_handle_t *mem_hndl,
			    bool atomic)
{
	struct kgni_dev *kdev = nic->kdev;
	u32 flags = 0;
	int err = 0;
	u64 h[2];

	if (gni_flags & GNI_MEM_READ_ONLY)
		flags |= KGNI_MEM_READONLY;
	if (gni_flags & GNI_MEM_USE_GART)
		flags |= KGNI_MEM_USE_GART;
	if (!atomic)
		down_read(&kdev->ctl_rwsem);
	else if (!down_read_trylock(&kdev->ctl_rwsem))
		err = -EBUSY;
	if (!err) {
		if (READ_ONCE(kdev->gone))
			err = -ENODEV;
		else
			err = kgni_mem_create(kdev, &nic->dom, flags, cq_id,
					      pages, npages, va, NULL, h,
					      atomic);
		up_read(&kdev->ctl_rwsem);
	}
	if (err) {
		kgni_mem_put_pages(pages, npages, NULL, false);
		return err;
	}
	mem_hndl->qword1 = h[0];
	mem_hndl->qword2 = h[1];
	return 0;
}

/* The return code of a registration's errno: kgni section 3.6 */
static gni_return_t kgni_kmem_rc(int err)
{
	return err == -EINVAL ? GNI_RC_INVALID_PARAM : GNI_RC_ERROR_RESOURCE;
}

/**
 * gni_mem_register() - register kernel memory
 * @nic_hndl: the NIC
 * @address: a kernel address: linear map (kmalloc, pages) or vmalloc;
 *           with GNI_MEM_PHYS_CONT, physically contiguous memory (the
 *           same pages)
 * @length: bytes, at least 1; at most KGNI_MEM_MAX_PAGES pages in all
 * @dst_cq_hndl: a CQ of the NIC for the remote events, or NULL
 * @flags: GNI_MEM_READWRITE or GNI_MEM_READ_ONLY, with GNI_MEM_USE_GART,
 *         GNI_MEM_PHYS_CONT and the ordering flags (which change nothing)
 * @mem_hndl: the handle, written only on success
 *
 * Each page is referenced until the registration goes; no RLIMIT is
 * charged.  The handle's VA is the page-aligned @address.  A page that
 * no reference counts (past the first of a high-order allocation made
 * without __GFP_COMP) is refused.
 *
 * Context: process context; may sleep, except under a spinlock or with
 * interrupts off, where it answers ERROR_RESOURCE if the data path is
 * busy rather than wait (not in interrupt context: INVALID_PARAM).
 * Return: SUCCESS, INVALID_PARAM (also for an address with no page, or
 * other flags), ERROR_RESOURCE (no memory, no free MDD or GART entries,
 * the device removed).
 */
gni_return_t gni_mem_register(gni_nic_handle_t nic_hndl, u64 address,
			      u64 length, gni_cq_handle_t dst_cq_hndl,
			      u32 flags, gni_mem_handle_t *mem_hndl)
{
	struct gni_nic *nic = nic_hndl;
	unsigned long npages, i;
	struct page **pages;
	u64 start, end;
	bool atomic;
	u32 cq_id;
	int err;

	atomic = !kgni_can_sleep();
	if ((!in_task() && !kgni_may_sleep()) ||
	    !kgni_is(nic, KGNI_TAG_NIC) || !mem_hndl ||
	    kgni_kmem_cq(nic, dst_cq_hndl, &cq_id))
		return kgni_kapi_ret(gni_mem_register, GNI_RC_INVALID_PARAM,
				     EINVAL, 0);
	if (flags & ~KGNI_KMEM_FLAGS)
		return kgni_kapi_ret(gni_mem_register, GNI_RC_INVALID_PARAM,
				     EINVAL, flags);
	if (!length || check_add_overflow(address, length, &end) ||
	    end > ULONG_MAX - PAGE_SIZE)
		return kgni_kapi_ret(gni_mem_register, GNI_RC_INVALID_PARAM,
				     EINVAL, length);
	start = address & PAGE_MASK;
	npages = (PAGE_ALIGN(end) - start) >> PAGE_SHIFT;
	if (npages > KGNI_MEM_MAX_PAGES)
		return kgni_kapi_ret(gni_mem_register, GNI_RC_INVALID_PARAM,
				     EINVAL, length);
	pages = kvcalloc(npages, sizeof(*pages),
			 atomic ? GFP_ATOMIC : GFP_KERNEL);
	if (!pages)
		return kgni_kapi_ret(gni_mem_register, GNI_RC_ERROR_RESOURCE,
				     ENOMEM, npages);
	for (i = 0; i < npages; i++) {
		pages[i] = kgni_kmem_page(start + i * PAGE_SIZE);
		if (!kgni_kmem_get(pages[i]))
			break;
	}
	if (i < npages) {
		kgni_mem_put_pages(pages, i, NULL, false);
		return kgni_kapi_ret(gni_mem_register, GNI_RC_INVALID_PARAM,
				     EFAULT, start + i * PAGE_SIZE);
	}
	err = kgni_kmem_create(nic, pages, npages, start, cq_id, flags,
			       mem_hndl, atomic);
	return kgni_kapi_ret(gni_mem_register,
			     err ? kgni_kmem_rc(err) : GNI_RC_SUCCESS, -err,
			     npages);
}
EXPORT_SYMBOL(gni_mem_register);

/**
 * gni_mem_register_segments() - register physical pages
 * @nic_hndl: the NIC
 * @mem_segments: the segments: each one page, its .address the page's
 *                physical address, page-aligned (.length is not read:
 *                gnilnd sets .address alone)
 * @segments_cnt: how many, 1 to KGNI_MEM_MAX_PAGES
 * @dst_cq_hndl: a CQ of the NIC for the remote events, or NULL
 * @flags: GNI_MEM_PHYS_SEGMENTS, with gni_mem_register()'s flags but
 *         GNI_MEM_PHYS_CONT
 * @mem_hndl: the handle, written only on success
 *
 * The pages are mapped through the GART in their order, under one MDD
 * whose handle has VA 0: offsets count from the first page.
 *
 * Context: as gni_mem_register().
 * Return: SUCCESS, INVALID_PARAM, ERROR_RESOURCE.
 */
gni_return_t gni_mem_register_segments(gni_nic_handle_t nic_hndl,
				       gni_mem_segment_t *mem_segments,
				       u32 segments_cnt,
				       gni_cq_handle_t dst_cq_hndl, u32 flags,
				       gni_mem_handle_t *mem_hndl)
{
	struct gni_nic *nic = nic_hndl;
	struct page **pages;
	u32 cq_id, i;
	bool atomic;
	int err;

	atomic = !kgni_can_sleep();
	if ((!in_task() && !kgni_may_sleep()) ||
	    !kgni_is(nic, KGNI_TAG_NIC) || !mem_hndl || !mem_segments ||
	    kgni_kmem_cq(nic, dst_cq_hndl, &cq_id))
		return kgni_kapi_ret(gni_mem_register_segments,
				     GNI_RC_INVALID_PARAM, EINVAL, 0);
	if (!(flags & GNI_MEM_PHYS_SEGMENTS) ||
	    (flags & ~(KGNI_KMEM_FLAGS | GNI_MEM_PHYS_SEGMENTS)) ||
	    (flags & GNI_MEM_PHYS_CONT))
		return kgni_kapi_ret(gni_mem_register_segments,
				     GNI_RC_INVALID_PARAM, EINVAL, flags);
	if (!segments_cnt || segments_cnt > KGNI_MEM_MAX_PAGES)
		return kgni_kapi_ret(gni_mem_register_segments,
				     GNI_RC_INVALID_PARAM, EINVAL,
				     segments_cnt);
	pages = kvcalloc(segments_cnt, sizeof(*pages),
			 atomic ? GFP_ATOMIC : GFP_KERNEL);
	if (!pages)
		return kgni_kapi_ret(gni_mem_register_segments,
				     GNI_RC_ERROR_RESOURCE, ENOMEM,
				     segments_cnt);
	for (i = 0; i < segments_cnt; i++) {
		u64 pa = mem_segments[i].address;

		if (offset_in_page(pa) || !pfn_valid(PHYS_PFN(pa)))
			break;
		pages[i] = pfn_to_page(PHYS_PFN(pa));
		if (!kgni_kmem_get(pages[i]))
			break;
	}
	if (i < segments_cnt) {
		kgni_mem_put_pages(pages, i, NULL, false);
		return kgni_kapi_ret(gni_mem_register_segments,
				     GNI_RC_INVALID_PARAM, EFAULT, i);
	}
	err = kgni_kmem_create(nic, pages, segments_cnt, 0, cq_id,
			       flags | GNI_MEM_USE_GART, mem_hndl, atomic);
	return kgni_kapi_ret(gni_mem_register_segments,
			     err ? kgni_kmem_rc(err) : GNI_RC_SUCCESS, -err,
			     segments_cnt);
}
EXPORT_SYMBOL(gni_mem_register_segments);

/**
 * gni_mem_deregister() - undo a registration
 * @nic_hndl: the NIC
 * @mem_hndl: the registration's handle (left as it is)
 * @hold_timeout: 0, or ms during which the MDH number stays held (not
 *                given to a new registration) after the MDD is
 *                invalidated, unless gni_mem_mdd_release() releases it
 *
 * The MDD is invalidated at once and the pages are given back: with a
 * hold, only the number waits.  In atomic context the pages, entries and
 * counts are given back by work that runs before the NIC's next
 * registration (kgni_mem_kill()).
 *
 * Context: any.
 * Return: SUCCESS, INVALID_PARAM (a handle that is not a registration of
 * the NIC, a negative timeout, no memory for the hold).
 */
gni_return_t gni_mem_deregister(gni_nic_handle_t nic_hndl,
				gni_mem_handle_t *mem_hndl, int hold_timeout)
{
	struct kgni_mdh_hold *hold = NULL;
	struct gni_nic *nic = nic_hndl;
	struct kgni_dev *kdev;
	u64 h[2];
	int ret;

	bool atomic = !kgni_can_sleep();

	if (!kgni_is(nic, KGNI_TAG_NIC) || !mem_hndl || hold_timeout < 0)
		return kgni_kapi_ret(gni_mem_deregister, GNI_RC_INVALID_PARAM,
				     EINVAL, hold_timeout);
	if (hold_timeout) {
		hold = kzalloc(sizeof(*hold), atomic ? GFP_ATOMIC : GFP_KERNEL);
		if (!hold)
			return kgni_kapi_ret(gni_mem_deregister,
					     GNI_RC_INVALID_PARAM, ENOMEM, 0);
		hold->expires = jiffies + msecs_to_jiffies(hold_timeout);
	}
	kdev = nic->kdev;
	h[0] = mem_hndl->qword1;
	h[1] = mem_hndl->qword2;
	if (atomic) {
		ret = kgni_mem_kill(kdev, &nic->dom, h, hold);
		if (ret)
			kfree(hold);
	} else {
		down_read(&kdev->ctl_rwsem);
		ret = kgni_mem_deregister(kdev, &nic->dom, h, hold);
		up_read(&kdev->ctl_rwsem);
		if (ret != 1)
			kfree(hold);
	}
	if (ret < 0)
		return kgni_kapi_ret(gni_mem_deregister, GNI_RC_INVALID_PARAM,
				     -ret, h[0]);
	return kgni_kapi_ret(gni_mem_deregister, GNI_RC_SUCCESS, 0, 0);
}
EXPORT_SYMBOL(gni_mem_deregister);

/*
 * Release the hold of handle @mh: at once if the caller may sleep (what
 * atomic deregistrations left is reaped first, so that their holds are
 * in the list); else mark it for the hold work, or drop the hold a
 * deregistration not reaped yet asked for.  Whether there was one.
 */
static bool kgni_mdh_release(struct kgni_dev *kdev,
			     const gni_mem_handle_t *mh, bool can_sleep)
{
	struct kgni_mdh_hold *h;
	struct kgni_mem *mem;
	unsigned long flags;
	bool found = false;

	if (can_sleep) {
		mutex_lock(&kdev->dp.lock);
		kgni_mem_reap(kdev);
		list_for_each_entry(h, &kdev->hold.list, node) {
			if (h->hndl[0] == mh->qword1 &&
			    h->hndl[1] == mh->qword2 && !h->released) {
				kgni_mdh_unhold(kdev, h);
				found = true;
				break;
			}
		}
		mutex_unlock(&kdev->dp.lock);
		return found;
	}
	spin_lock_irqsave(&kdev->mem.lock, flags);
	list_for_each_entry(h, &kdev->hold.list, node) {
		if (h->hndl[0] == mh->qword1 && h->hndl[1] == mh->qword2 &&
		    !h->released) {
			WRITE_ONCE(h->released, true);
			mod_delayed_work(system_wq, &kdev->hold.work, 0);
			found = true;
			break;
		}
	}
	list_for_each_entry(mem, &kdev->mem.dead, dead) {
		if (found)
			break;
		if (mem->dead_hold && mem->hndl[0] == mh->qword1 &&
		    mem->hndl[1] == mh->qword2) {
			kfree(mem->dead_hold);
			mem->dead_hold = NULL;
			found = true;
		}
	}
	spin_unlock_irqrestore(&kdev->mem.lock, flags);
	return found;
}

/**
 * gni_mem_mdd_release() - release a deregistration's hold early
 * @nic_hndl: a NIC of the device
 * @mem_hndl: the handle that was deregistered with a hold
 *
 * In atomic context the hold is marked released under mem.lock, and
 * the hold work lets the number go.
 *
 * Context: any.
 * Return: SUCCESS; NO_MATCH if the handle is not held (never was, or the
 * hold expired or was released), and for a bad argument (the function
 * has no other code).
 */
gni_return_t gni_mem_mdd_release(gni_nic_handle_t nic_hndl,
				 gni_mem_handle_t *mem_hndl)
{
	struct gni_nic *nic = nic_hndl;
	bool found;

	if (!kgni_is(nic, KGNI_TAG_NIC) || !mem_hndl)
		return kgni_kapi_ret(gni_mem_mdd_release, GNI_RC_NO_MATCH,
				     EINVAL, 0);
	found = kgni_mdh_release(nic->kdev, mem_hndl, kgni_can_sleep());
	if (!found)
		return kgni_kapi_ret(gni_mem_mdd_release, GNI_RC_NO_MATCH,
				     ENOENT, mem_hndl->qword1);
	return kgni_kapi_ret(gni_mem_mdd_release, GNI_RC_SUCCESS, 0, 0);
}
EXPORT_SYMBOL(gni_mem_mdd_release);
