// SPDX-License-Identifier: GPL-2.0-only
/*
 * kgni: registrations of user memory (KGNI_IOC_MEM_REGISTER,
 * _REGISTER_SEGMENTS, _DEREGISTER).
 *
 * A file's registration pins the pages of one or more user ranges,
 * charged to the caller's RLIMIT_MEMLOCK, and hands them to the
 * registration core (kgni_mem.c) with what a user registration adds: the
 * address and length asked for, and a vMDH index (uapi/kgni_ioctl.h,
 * KGNI_VMDH_MDH()).  A segmented one pins several user ranges into one
 * run of GART entries under one MDD.  Kept apart from the core so that
 * each file stays under 800 lines; a kernel client's pages come from
 * kgni_kmem.c instead.
 */
#include <linux/capability.h>
#include <linux/mm.h>
#include <linux/nospec.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "kgni_dp.h"

/* Pin the @n pages from user address @va into @pages; all or none. */
static int kgni_pin(u64 va, unsigned long n, bool writable,
		    struct page **pages)
{
	unsigned int gup_flags = FOLL_LONGTERM | (writable ? FOLL_WRITE : 0);
	unsigned long done = 0;
	int ret;

	while (done < n) {
		ret = pin_user_pages_fast(va + done * PAGE_SIZE,
					  min_t(unsigned long, n - done,
						PAGE_SIZE / sizeof(struct page *)),
					  gup_flags, pages + done);
		if (ret <= 0) {
			unpin_user_pages(pages, done);
			return ret ? ret : -EFAULT;
		}
		done += ret;
		if (fatal_signal_pending(current)) {
			unpin_user_pages(pages, done);
			return -EINTR;
		}
	}
	return 0;
}

/* The whole pages that hold segment @seg */
static unsigned long kgni_seg_pages(const struct kgni_mem_segment *seg)
{
	return (PAGE_ALIGN(seg->addr + seg->len) - (seg->addr & PAGE_MASK)) >>
	       PAGE_SHIFT;
}

/*
 * The user page source: pin the pages of @nsegs checked segments (@npages
 * in all) one after the other into a new array *@pages, charged to the
 * caller's RLIMIT_MEMLOCK (as drivers/infiniband/core/umem.c counts it),
 * its mm into *@mm, referenced; all or none.
 */
static int kgni_mem_pin_user(const struct kgni_mem_segment *segs,
			     unsigned int nsegs, unsigned long npages,
			     bool writable, struct page ***pages,
			     struct mm_struct **mm)
{
	struct mm_struct *cur = current->mm;
	unsigned long lock_limit, done = 0;
	struct page **p;
	unsigned int k;
	s64 pinned;
	int ret;

	p = kvcalloc(npages, sizeof(*p), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	mmgrab(cur);
	lock_limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	pinned = atomic64_add_return(npages, &cur->pinned_vm);
	if (pinned > lock_limit && !capable(CAP_IPC_LOCK)) {
		ret = -ENOMEM;
		goto err_unpin;
	}
	for (k = 0; k < nsegs; k++) {
		unsigned long n = kgni_seg_pages(&segs[k]);

		ret = kgni_pin(segs[k].addr & PAGE_MASK, n, writable, p + done);
		if (ret)
			goto err_unpin;
		done += n;
	}
	*pages = p;
	*mm = cur;
	return 0;

err_unpin:
	unpin_user_pages(p, done);
	atomic64_sub(npages, &cur->pinned_vm);
	mmdrop(cur);
	kvfree(p);
	return ret;
}

/*
 * The vMDH fields of a registration into @u: 0 without KGNI_MEM_VMDH;
 * with it a block of 1 to KGNI_VMDH_ENTRIES entries and an index in it,
 * or KGNI_VMDH_ANY.  0 or -EINVAL.
 */
static int kgni_vmdh_args(u32 flags, u32 index, u32 count,
			  struct kgni_mem_user *u)
{
	if (!(flags & KGNI_MEM_VMDH))
		return index || count ? -EINVAL : 0;
	if (!count || count > KGNI_VMDH_ENTRIES)
		return -EINVAL;
	if (index != KGNI_VMDH_ANY) {
		if (index >= count)
			return -EINVAL;
		index = array_index_nospec(index, KGNI_VMDH_ENTRIES);
	}
	u->vmdh = true;
	u->vmdh_index = index;
	u->vmdh_count = count;
	return 0;
}

/*
 * The user side of kgni_mem_create(): after a first look at the domain
 * and the CQ, pin the pages of @nsegs checked segments (@npages in all)
 * with kgni_mem_pin_user(), register them from handle VA @va as @u asks,
 * and give them back if that fails; the handle into @hndl.
 */
static int kgni_mem_register_user(struct kgni_ucmd *ucmd, u32 flags,
				  u32 cq_id,
				  const struct kgni_mem_segment *segs,
				  unsigned int nsegs, unsigned long npages,
				  u64 va, const struct kgni_mem_user *u,
				  u64 hndl[2])
{
	struct kgni_dom *dom = &ucmd->kfile->dom;
	struct kgni_dev *kdev = ucmd->kdev;
	struct mm_struct *mm;
	struct page **pages;
	int ret;

	/* Checked again by kgni_mem_create(): it may go meanwhile. */
	mutex_lock(&kdev->dp.lock);
	ret = kgni_dom_usable(dom);
	if (!ret && cq_id && !kgni_cq_find(dom, cq_id))
		ret = -EINVAL;
	mutex_unlock(&kdev->dp.lock);
	if (ret)
		return ret;

	ret = kgni_mem_pin_user(segs, nsegs, npages,
				!(flags & KGNI_MEM_READONLY), &pages, &mm);
	if (ret)
		return ret;
	/* Segments are mapped through the GART, but for one alone. */
	if (nsegs > 1)
		flags |= KGNI_MEM_USE_GART;
	ret = kgni_mem_make(kdev, dom, flags & ~KGNI_MEM_VMDH, cq_id, pages,
			    npages, va, mm, hndl, false, u);
	if (ret)
		kgni_mem_put_pages(pages, npages, mm, false);
	return ret;
}

/**
 * kgni_ioctl_mem_register() - KGNI_IOC_MEM_REGISTER
 * @ucmd: the call; @ucmd->cmd is a struct kgni_mem_register
 *
 * Return: 0 with the memory handle written back, -EINVAL, -EPERM without
 * a CDM, -ENOLINK once its job was released, -ENOMEM (RLIMIT_MEMLOCK too),
 * -ENOSPC without a free MDD or run of MRT or GART entries (or vMDH entry
 * of the block), -EBUSY for a vMDH entry taken, an errno of the pinning,
 * or -EFAULT.
 */
int kgni_ioctl_mem_register(struct kgni_ucmd *ucmd)
{
	struct kgni_mem_register *cmd = ucmd->cmd;
	struct kgni_mem_segment seg = { .addr = cmd->addr, .len = cmd->len };
	struct kgni_mem_user u = { .addr = cmd->addr, .len = cmd->len };
	u64 end;
	int ret;

	if (cmd->flags & ~(KGNI_MEM_READONLY | KGNI_MEM_USE_GART |
			   KGNI_MEM_VMDH) ||
	    cmd->mem_hndl[0] || cmd->mem_hndl[1] || cmd->reserved)
		return -EINVAL;
	ret = kgni_vmdh_args(cmd->flags, cmd->vmdh_index, cmd->vmdh_count, &u);
	if (ret)
		return ret;
	if (!cmd->len || check_add_overflow(cmd->addr, cmd->len, &end) ||
	    end > TASK_SIZE)
		return -EINVAL;
	if (kgni_seg_pages(&seg) > KGNI_MEM_MAX_PAGES)
		return -EINVAL;
	ret = kgni_mem_register_user(ucmd, cmd->flags, cmd->cq_id, &seg, 1,
				     kgni_seg_pages(&seg), cmd->addr & PAGE_MASK,
				     &u, cmd->mem_hndl);
	if (ret)
		return ret;
	/*
	 * On EFAULT here the registration stays, owned by the file, and is
	 * undone when the file is released.
	 */
	return kgni_ucmd_respond(ucmd, sizeof(*cmd));
}

/*
 * Segments that concatenate: every one but the first starts on a page,
 * every one but the last ends on one.  Their pages into *@npages.
 */
static int kgni_segs_check(const struct kgni_mem_segment *segs,
			   unsigned int n, unsigned long *npages)
{
	unsigned long total = 0;
	unsigned int k;
	u64 end;

	for (k = 0; k < n; k++) {
		if (!segs[k].len ||
		    check_add_overflow(segs[k].addr, segs[k].len, &end) ||
		    end > TASK_SIZE)
			return -EINVAL;
		if ((k > 0 && offset_in_page(segs[k].addr)) ||
		    (k < n - 1 && offset_in_page(end)))
			return -EINVAL;
		total += kgni_seg_pages(&segs[k]);
		if (total > KGNI_MEM_MAX_PAGES)
			return -EINVAL;
	}
	*npages = total;
	return 0;
}

/**
 * kgni_ioctl_mem_register_segments() - KGNI_IOC_MEM_REGISTER_SEGMENTS
 * @ucmd: the call; @ucmd->cmd is a struct kgni_mem_register_segments
 *
 * Registers the segments as KGNI_IOC_MEM_REGISTER registers one buffer,
 * as one run of GART entries under one MDD; the handle's VA is 0.
 *
 * Return: as kgni_ioctl_mem_register(), and -EFAULT when the segments
 * cannot be read.
 */
int kgni_ioctl_mem_register_segments(struct kgni_ucmd *ucmd)
{
	struct kgni_mem_register_segments *cmd = ucmd->cmd;
	struct kgni_mem_user u = { };
	struct kgni_mem_segment *segs;
	unsigned long npages;
	unsigned int k;
	int ret;

	if (cmd->flags & ~(KGNI_MEM_READONLY | KGNI_MEM_VMDH) ||
	    cmd->mem_hndl[0] || cmd->mem_hndl[1] || cmd->reserved)
		return -EINVAL;
	ret = kgni_vmdh_args(cmd->flags, cmd->vmdh_index, cmd->vmdh_count, &u);
	if (ret)
		return ret;
	if (!cmd->nsegs || cmd->nsegs > KGNI_MEM_MAX_SEGMENTS)
		return -EINVAL;
	segs = kvmalloc_array(cmd->nsegs, sizeof(*segs), GFP_KERNEL);
	if (!segs)
		return -ENOMEM;
	if (copy_from_user(segs, u64_to_user_ptr(cmd->segments),
			   (size_t)cmd->nsegs * sizeof(*segs)))
		ret = -EFAULT;
	if (!ret)
		ret = kgni_segs_check(segs, cmd->nsegs, &npages);
	if (!ret) {
		/* Each below TASK_SIZE, at most 4096 of them: no overflow */
		u.addr = segs[0].addr;
		for (k = 0; k < cmd->nsegs; k++)
			u.len += segs[k].len;
		ret = kgni_mem_register_user(ucmd, cmd->flags, cmd->cq_id,
					     segs, cmd->nsegs, npages, 0, &u,
					     cmd->mem_hndl);
	}
	kvfree(segs);
	if (ret)
		return ret;
	/* As for KGNI_IOC_MEM_REGISTER: on EFAULT the registration stays. */
	return kgni_ucmd_respond(ucmd, sizeof(*cmd));
}

/**
 * kgni_ioctl_mem_deregister() - KGNI_IOC_MEM_DEREGISTER
 * @ucmd: the call; @ucmd->cmd is a struct kgni_mem_deregister
 *
 * Return: 0, -EINVAL for flags not 0, or an errno of
 * kgni_mem_deregister().
 */
int kgni_ioctl_mem_deregister(struct kgni_ucmd *ucmd)
{
	struct kgni_mem_deregister *cmd = ucmd->cmd;

	if (cmd->flags)
		return -EINVAL;
	return kgni_mem_deregister(ucmd->kdev, &ucmd->kfile->dom,
				   cmd->mem_hndl, NULL);
}
