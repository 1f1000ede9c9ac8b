// SPDX-License-Identifier: GPL-2.0-only
/*
 * kgni: memory registration, its core (KGNI_IOC_MEM_QUERY).
 *
 * A registration is an MDD over pinned pages, a file's (kgni_mem_user.c)
 * or a kernel client's (kgni_kmem.c), mapped through the NIC's MRT or
 * GART (kgni_mem_map.c); its owner gets a uGNI memory handle for it.  One
 * asked for at a vMDH index takes that index's MDD (uapi/kgni_ioctl.h,
 * KGNI_VMDH_MDH()).  This file holds what both kinds share: making one,
 * finding one by its handle, undoing one at once or, for a kernel client
 * that cannot sleep, invalidating it now and freeing it later; the two
 * other roles have their own files so that each stays under 800 lines.
 */
#include <linux/bitmap.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "gemini_mh.h"
#include "kgni_dp.h"

/* Handles give the address in 4 KiB pages (uapi/gemini_mh.h). */
static_assert(PAGE_SHIFT == GEMINI_MH_VA_SHIFT);
/* A vMDH index names one of the NIC's MDDs (uapi/kgni_ioctl.h). */
static_assert(KGNI_VMDH_ENTRIES == GEMINI_NUM_MDD);

/**
 * kgni_mem_cq_refs() - how many of a domain's registrations send @cq events
 * @dom: the domain
 * @cq: one of its CQs
 *
 * Context: dp.lock held.
 */
unsigned int kgni_mem_cq_refs(struct kgni_dom *dom, struct kgni_cq *cq)
{
	struct kgni_mem *mem;
	unsigned int n = 0;

	list_for_each_entry(mem, &dom->mems, node)
		n += mem->cq == cq;
	return n;
}

/**
 * kgni_mem_cq_detach() - no more remote events into @cq
 * @kdev: the device, live
 * @dom: the domain
 * @cq: one of its CQs, about to be destroyed
 *
 * The registrations stay usable; their MDDs name no CQ from now on.  One
 * 64-bit write of QW2 each (QW1 is unchanged), so the MDD is never seen
 * invalid; read back, so that no later request finds the old CQ.
 * uGNI lets a CQ go while registrations still name it (only endpoints
 * keep it): Open MPI destroys its SMSG CQ before its mailboxes.
 *
 * Context: dp.lock held.
 */
void kgni_mem_cq_detach(struct kgni_dev *kdev, struct kgni_dom *dom,
			struct kgni_cq *cq)
{
	struct kgni_mem *mem;

	list_for_each_entry(mem, &dom->mems, node) {
		void __iomem *p;

		if (mem->cq != cq)
			continue;
		p = kgni_mmr(kdev, GEMINI_MMR_MDD_ENTRY(mem->mdh));
		writeq(mem->mdd_qw2_no_cq, p + 8);
		readq(p + 8);
		mem->cq = NULL;
		cq->users--;
	}
}

/**
 * kgni_mem_put_pages() - give registered pages back to their source
 * @pages: the pages (kvmalloc'ed, freed)
 * @npages: how many
 * @mm: user pages (kgni_mem_pin_user()): the mm they are charged to,
 *      whose reference is dropped; NULL for a kernel client's pages, each
 *      referenced with get_page() (kgni_kmem.c)
 * @dirty: user pages: the network may have written them
 */
void kgni_mem_put_pages(struct page **pages, unsigned long npages,
			struct mm_struct *mm, bool dirty)
{
	unsigned long i;

	if (mm) {
		unpin_user_pages_dirty_lock(pages, npages, dirty);
		atomic64_sub(npages, &mm->pinned_vm);
		mmdrop(mm);
	} else {
		for (i = 0; i < npages; i++)
			put_page(pages[i]);
	}
	kvfree(pages);
}

/**
 * kgni_mem_free() - undo a registration
 * @kdev: the device
 * @mem: the registration; freed
 * @live: the device may be touched: its MDD and GART entries are reset
 *
 * Context: dp.lock held.
 */
void kgni_mem_free(struct kgni_dev *kdev, struct kgni_mem *mem, bool live)
{
	unsigned long flags;

	if (live) {
		kgni_mdd_write(kdev, mem->mdh, 0, 0);
		/* Flush: no request uses the entries or pages after this. */
		readq(kgni_mmr(kdev, GEMINI_MMR_MDD_ENTRY(mem->mdh)) + 8);
		kgni_mem_unmap(kdev, mem);
	}
	/*
	 * Not live: remove has taken the GART from the device and freed it,
	 * and invalidated the MRT entries.
	 */
	clear_bit(mem->mdh, kdev->mem.mdd_map);
	mem->dom->nmdd--;
	if (!mem->mrt_count)
		mem->dom->ngart -= mem->npages;
	if (mem->cq)
		mem->cq->users--;
	kgni_mem_put_pages(mem->pages, mem->npages, mem->mm, true);
	spin_lock_irqsave(&kdev->mem.lock, flags);
	list_del(&mem->node);
	spin_unlock_irqrestore(&kdev->mem.lock, flags);
	kfree(mem);
}

/*
 * The MDD of the vMDH entry that @u asks for, into *@mdh: its index, or
 * with KGNI_VMDH_ANY the lowest free index of its block.  -EBUSY if the
 * index is taken, -ENOSPC if the block has no free one.  The entries are
 * the NIC's, whoever holds them (uapi/kgni_ioctl.h).  Context: dp.lock
 * held.
 */
static int kgni_vmdh_mdh(struct kgni_dev *kdev, const struct kgni_mem_user *u,
			 u32 *mdh)
{
	u32 i;

	if (u->vmdh_index != KGNI_VMDH_ANY) {
		*mdh = KGNI_VMDH_MDH(u->vmdh_index);
		return test_bit(*mdh, kdev->mem.mdd_map) ? -EBUSY : 0;
	}
	for (i = 0; i < u->vmdh_count; i++) {
		if (!test_bit(KGNI_VMDH_MDH(i), kdev->mem.mdd_map)) {
			*mdh = KGNI_VMDH_MDH(i);
			return 0;
		}
	}
	return -ENOSPC;
}

/*
 * kgni_mem_create() with what a user registration adds: @u, or NULL for a
 * kernel client's (the lowest free MDD; @addr and @len its pages).  Also
 * -EBUSY or -ENOSPC for @u's vMDH entry (kgni_vmdh_mdh()).
 */
int kgni_mem_make(struct kgni_dev *kdev, struct kgni_dom *dom, u32 flags,
		  u32 cq_id, struct page **pages, unsigned long npages, u64 va,
		  struct mm_struct *mm, u64 hndl[2], bool atomic,
		  const struct kgni_mem_user *u)
{
	bool writable = !(flags & KGNI_MEM_READONLY);
	struct kgni_cq *cq = NULL;
	struct kgni_job_use use;
	unsigned long irqflags;
	bool gart_ok = true;
	u32 mrt_pages = 0;
	struct kgni_mem *mem;
	u64 base, modes;
	int ret;
	u32 mdh;

	mem = kzalloc(sizeof(*mem), atomic ? GFP_ATOMIC : GFP_KERNEL);
	if (!mem)
		return -ENOMEM;
	mem->va = va;
	mem->addr = u ? u->addr : va;
	mem->len = u ? u->len : (u64)npages << PAGE_SHIFT;
	mem->npages = npages;
	mem->readonly = !writable;
	mem->pages = pages;
	mem->mm = mm;
	if (!(flags & KGNI_MEM_USE_GART))
		mrt_pages = kgni_mrt_pages(mem->pages, npages, va);

	if (!atomic) {
		mutex_lock(&kdev->dp.lock);
	} else if (!mutex_trylock(&kdev->dp.lock)) {
		kfree(mem);
		return -EBUSY;
	}
	/*
	 * What atomic deregistrations left counts against the quotas; an
	 * atomic caller leaves it to the work (freeing may sleep).
	 */
	if (!atomic)
		kgni_mem_reap(kdev);
	/* The job may have been released while the pages were pinned. */
	ret = kgni_dom_usable(dom);
	if (ret)
		goto err_unlock;
	if (cq_id) {
		cq = kgni_cq_find(dom, cq_id);
		if (!cq) {
			ret = -EINVAL;
			goto err_unlock;
		}
	}
	if (!dom->kernel) {
		kgni_job_use(kdev, dom, &use);
		if (use.mdd >= kgni_job_mdds) {
			ret = -EDQUOT;
			goto err_unlock;
		}
		gart_ok = use.gart + npages <= kgni_job_gart;
	}
	if (u && u->vmdh) {
		ret = kgni_vmdh_mdh(kdev, u, &mdh);
		if (ret)
			goto err_unlock;
	} else {
		mdh = find_first_zero_bit(kdev->mem.mdd_map, GEMINI_NUM_MDD);
		if (mdh >= GEMINI_NUM_MDD) {
			ret = -ENOSPC;
			goto err_unlock;
		}
	}
	/* The entries first, then the MDD (writeq orders them before it) */
	ret = kgni_mem_map(kdev, mem, mrt_pages, gart_ok, &base);
	if (ret)
		goto err_unlock;
	set_bit(mdh, kdev->mem.mdd_map);
	mem->mdh = mdh;
	mem->dom = dom;
	dom->nmdd++;
	if (!mem->mrt_count)
		dom->ngart += npages;
	mem->cq = cq;
	if (cq)
		cq->users++;
	modes = GEMINI_MDD_MODE_VALID |
		(writable ? GEMINI_MDD_MODE_WRITABLE : 0);
	mem->mdd_qw2_no_cq = GEMINI_MDD_QW2(modes,
					    base + mem->npages * PAGE_SIZE - 1,
					    0);
	kgni_mdd_write(kdev, mdh,
		       GEMINI_MDD_QW1(dom->ptag, base, mem->mrt_count),
		       GEMINI_MDD_QW2(modes,
				      base + mem->npages * PAGE_SIZE - 1,
				      cq ? cq->id : 0));

	mem->hndl[0] = ((mem->va >> PAGE_SHIFT) & GEMINI_MH_VA_MASK) |
		       ((u64)mdh << GEMINI_MH_MDH_SHIFT);
	mem->hndl[1] = (mem->npages & GEMINI_MH_NPAGES_MASK) |
		       ((u64)PAGE_SHIFT << GEMINI_MH_PSIZE_SHIFT) |
		       ((u64)((mem->mrt_count ? GEMINI_MH_FLAG_MRT :
					       GEMINI_MH_FLAG_GART) |
			      (writable ? 0 : GEMINI_MH_FLAG_READONLY)) <<
			GEMINI_MH_FLAGS_SHIFT);
	mem->hndl[1] |= (u64)gemini_mh_crc(mem->hndl[0], mem->hndl[1]) <<
			GEMINI_MH_CRC_SHIFT;
	spin_lock_irqsave(&kdev->mem.lock, irqflags);
	list_add_tail(&mem->node, &dom->mems);
	spin_unlock_irqrestore(&kdev->mem.lock, irqflags);
	hndl[0] = mem->hndl[0];
	hndl[1] = mem->hndl[1];
	mutex_unlock(&kdev->dp.lock);
	return 0;

err_unlock:
	mutex_unlock(&kdev->dp.lock);
	kfree(mem);
	return ret;
}

/**
 * kgni_mem_create() - register pages as a memory domain of the domain
 * @kdev: the device
 * @dom: the domain
 * @flags: KGNI_MEM_READONLY for pages the network may only read;
 *         KGNI_MEM_USE_GART to map them through the GART even if the MRT
 *         could
 * @cq_id: 0, or a CQ of the domain for the remote events
 * @pages: the pages, in the order of the MDD's offsets (kvmalloc'ed)
 * @npages: how many, 1 to KGNI_MEM_MAX_PAGES
 * @va: the handle's VA (page-aligned): offsets into the MDD count from it,
 *      and the MRT maps the pages only if every 2 MiB piece of the VA
 *      range lies in one huge page, at the offset it has there
 * @mm: where the pages come from: user pages pinned and charged to @mm's
 *      RLIMIT_MEMLOCK, @mm referenced (kgni_mem_pin_user()); NULL for a
 *      kernel client's pages, each referenced (kgni_kmem.c)
 * @hndl: the memory handle
 * @atomic: the caller may not sleep (a kernel client under a spinlock of
 *          its own): dp.lock is only tried
 *
 * The pages are mapped (through the MRT if it can, else one run of GART
 * entries) and given one MDD of the domain's ptag.  On success the
 * registration owns @pages, their pins and charge and the reference on
 * @mm, until kgni_mem_free(); on failure the caller keeps them.
 *
 * Context: process context; ctl_rwsem held for reading with the device
 * alive; takes dp.lock, or with @atomic tries it and does not sleep.
 * Return: 0, -EPERM without a CDM, -ENOLINK once the domain's job was
 * released, -EINVAL for a CQ that is not the domain's, -ENOMEM, -EDQUOT
 * past the job's kgni_job_mdds registrations or kgni_job_gart GART
 * entries (a file's), -ENOSPC without a free MDD or run of MRT or GART
 * entries, -EBUSY if @atomic and dp.lock is held.
 */
int kgni_mem_create(struct kgni_dev *kdev, struct kgni_dom *dom, u32 flags,
		    u32 cq_id, struct page **pages, unsigned long npages,
		    u64 va, struct mm_struct *mm, u64 hndl[2], bool atomic)
{
	return kgni_mem_make(kdev, dom, flags, cq_id, pages, npages, va, mm,
			     hndl, atomic, NULL);
}

/**
 * kgni_mem_find() - a registration of the domain, by its handle
 * @dom: the domain
 * @h: the handle
 *
 * Context: dp.lock held (or mem.lock).
 * Return: the registration, or NULL (also once kgni_mem_kill() took it).
 */
struct kgni_mem *kgni_mem_find(struct kgni_dom *dom, const u64 h[2])
{
	struct kgni_mem *mem;

	list_for_each_entry(mem, &dom->mems, node)
		if (mem->hndl[0] == h[0] && mem->hndl[1] == h[1] &&
		    !READ_ONCE(mem->dying))
			return mem;
	return NULL;
}

/**
 * kgni_mem_find_local() - the registration a post names as its local memory
 * @kdev: the device
 * @dom: the posting domain
 * @h: the handle
 *
 * The domain's own, or one of another domain of its job and of the
 * calling process: a process may hold several CDMs of one ptag (UCX
 * registers buffers through one and posts through another), and on a
 * Gemini they share the NIC's MDDs.  Another process's registration is
 * never found: its addresses are not the caller's.
 *
 * Context: dp.lock held; process context of the poster.
 * Return: the registration, or NULL.
 */
struct kgni_mem *kgni_mem_find_local(struct kgni_dev *kdev,
				     struct kgni_dom *dom, const u64 h[2])
{
	struct kgni_mem *mem = kgni_mem_find(dom, h);
	struct kgni_dom *d;

	if (mem || dom->kernel)
		return mem;
	list_for_each_entry(d, &kdev->dp.doms, node) {
		if (d == dom || d->ptag != dom->ptag ||
		    !kgni_dom_same_job(d, dom))
			continue;
		mem = kgni_mem_find(d, h);
		if (mem && mem->mm == current->mm)
			return mem;
	}
	return NULL;
}

/**
 * kgni_mem_deregister() - undo a registration of the domain
 * @kdev: the device
 * @dom: the domain
 * @hndl: its memory handle
 * @hold: NULL, or a hold to keep the MDH number with (a kernel client's
 *        deregistration with a hold timeout, kgni_mdh_hold_add()); not
 *        used without the device
 *
 * The MDD is invalidated and read back, its MRT or GART entries cleared,
 * and the pages given back to their source.  After remove only the
 * pages are given back.
 *
 * Context: process context, may sleep; ctl_rwsem held for reading; takes
 * dp.lock.
 * Return: 0, 1 if @hold was used (it belongs to the device's hold list
 * from then on), -EINVAL for a handle with a bad CRC or that is not one
 * of the domain's, -ENOLINK once the domain's job was released.
 */
int kgni_mem_deregister(struct kgni_dev *kdev, struct kgni_dom *dom,
			const u64 hndl[2], struct kgni_mdh_hold *hold)
{
	bool live = !READ_ONCE(kdev->gone);
	struct kgni_mem *mem;
	unsigned long flags;
	u64 h[2];
	int ret = -EINVAL;

	h[0] = hndl[0];
	h[1] = hndl[1] & ~(0xffull << GEMINI_MH_CRC_SHIFT);
	if (gemini_mh_crc(h[0], h[1]) != hndl[1] >> GEMINI_MH_CRC_SHIFT)
		return -EINVAL;

	mutex_lock(&kdev->dp.lock);
	if (dom->revoked)
		ret = -ENOLINK;
	mem = kgni_mem_find(dom, hndl);
	if (mem) {
		u32 mdh = mem->mdh;

		kgni_mem_free(kdev, mem, live);
		ret = 0;
		/* Nobody took the number meanwhile: dp.lock is held. */
		if (hold && live) {
			spin_lock_irqsave(&kdev->mem.lock, flags);
			kgni_mdh_hold_add(kdev, mdh, hndl, hold);
			spin_unlock_irqrestore(&kdev->mem.lock, flags);
			ret = 1;
		}
	}
	mutex_unlock(&kdev->dp.lock);
	return ret;
}

/**
 * kgni_ioctl_mem_query() - KGNI_IOC_MEM_QUERY
 * @ucmd: the call; @ucmd->cmd is a struct kgni_mem_query
 *
 * The registration of the file after the one named, or its first: the
 * domain's list is in the order of registration (kgni_mem_create() adds
 * at its tail).  Those kgni_mem_kill() took are skipped (a kernel
 * client's; a file has none).
 *
 * Return: 0 with the registration written back, -ENOENT for none,
 * -EINVAL for bad flags or out fields, a handle with a bad CRC or that no
 * registration of the file has, -EFAULT.
 */
int kgni_ioctl_mem_query(struct kgni_ucmd *ucmd)
{
	struct kgni_mem_query *cmd = ucmd->cmd;
	struct kgni_dom *dom = &ucmd->kfile->dom;
	struct kgni_dev *kdev = ucmd->kdev;
	bool first = !cmd->mem_hndl[0] && !cmd->mem_hndl[1];
	struct kgni_mem *mem, *found = NULL;
	bool after;
	u64 q2;

	if (cmd->flags || cmd->addr || cmd->len)
		return -EINVAL;
	q2 = cmd->mem_hndl[1] & ~(GEMINI_MH_CRC_MASK << GEMINI_MH_CRC_SHIFT);
	if (!first && gemini_mh_crc(cmd->mem_hndl[0], q2) !=
		      cmd->mem_hndl[1] >> GEMINI_MH_CRC_SHIFT)
		return -EINVAL;

	mutex_lock(&kdev->dp.lock);
	after = first;
	list_for_each_entry(mem, &dom->mems, node) {
		if (READ_ONCE(mem->dying))
			continue;
		if (after) {
			found = mem;
			break;
		}
		after = mem->hndl[0] == cmd->mem_hndl[0] &&
			mem->hndl[1] == cmd->mem_hndl[1];
	}
	if (found) {
		cmd->mem_hndl[0] = found->hndl[0];
		cmd->mem_hndl[1] = found->hndl[1];
		cmd->addr = found->addr;
		cmd->len = found->len;
	}
	mutex_unlock(&kdev->dp.lock);
	if (!found)
		return after ? -ENOENT : -EINVAL;
	return kgni_ucmd_respond(ucmd, sizeof(*cmd));
}

/**
 * kgni_mem_kill() - invalidate a registration of the domain in any context
 * @kdev: the device
 * @dom: the domain
 * @hndl: its memory handle
 * @hold: as for kgni_mem_deregister(); kept with the registration until
 *        kgni_mem_reap() makes it a hold
 *
 * What kgni_mem_deregister() does at once, done under mem.lock alone, for
 * a kernel client that holds a spinlock of its own: the MDD is
 * invalidated and read back, so that no request reaches the pages after
 * this returns, and the registration is no longer found.  Its entries,
 * pages and counts are given back by kgni_mem_reap(), which the work, the
 * next registration and the domain's teardown run before anything could
 * tell they were still taken.  After remove nothing touches the device.
 *
 * Context: any; takes mem.lock.
 * Return: 0, -EINVAL for a handle with a bad CRC or that is not one of
 * the domain's.
 */
int kgni_mem_kill(struct kgni_dev *kdev, struct kgni_dom *dom,
		  const u64 hndl[2], struct kgni_mdh_hold *hold)
{
	struct kgni_mem *mem;
	unsigned long flags;
	bool queued;
	u64 h[2];

	h[0] = hndl[0];
	h[1] = hndl[1] & ~(0xffull << GEMINI_MH_CRC_SHIFT);
	if (gemini_mh_crc(h[0], h[1]) != hndl[1] >> GEMINI_MH_CRC_SHIFT)
		return -EINVAL;

	spin_lock_irqsave(&kdev->mem.lock, flags);
	mem = kgni_mem_find(dom, hndl);
	if (!mem) {
		spin_unlock_irqrestore(&kdev->mem.lock, flags);
		return -EINVAL;
	}
	WRITE_ONCE(mem->dying, true);
	mem->dead_hold = hold;
	list_add_tail(&mem->dead, &kdev->mem.dead);
	if (kdev->mmr && !READ_ONCE(kdev->gone)) {
		kgni_mdd_write(kdev, mem->mdh, 0, 0);
		readq(kgni_mmr(kdev, GEMINI_MMR_MDD_ENTRY(mem->mdh)) + 8);
	}
	/* The work's reference: the caller's NIC holds one meanwhile. */
	get_device(&kdev->dev);
	queued = queue_work(system_wq, &kdev->mem.reap_work);
	spin_unlock_irqrestore(&kdev->mem.lock, flags);
	if (!queued)
		put_device(&kdev->dev);
	return 0;
}

/**
 * kgni_mem_reap() - free the registrations kgni_mem_kill() invalidated
 * @kdev: the device
 *
 * Each one's hold becomes a hold of the device's list under mem.lock, so
 * that gni_mem_mdd_release() finds it in one place or the other.
 *
 * Context: dp.lock held.
 */
void kgni_mem_reap(struct kgni_dev *kdev)
{
	bool live = !READ_ONCE(kdev->gone);
	struct kgni_mdh_hold *hold;
	struct kgni_mem *mem;
	unsigned long flags;
	u32 mdh;

	for (;;) {
		spin_lock_irqsave(&kdev->mem.lock, flags);
		mem = list_first_entry_or_null(&kdev->mem.dead,
					       struct kgni_mem, dead);
		if (!mem) {
			spin_unlock_irqrestore(&kdev->mem.lock, flags);
			return;
		}
		list_del(&mem->dead);
		hold = mem->dead_hold;
		mdh = mem->mdh;
		/* Nobody takes the number meanwhile: dp.lock is held. */
		if (hold && live)
			kgni_mdh_hold_add(kdev, mdh, mem->hndl, hold);
		spin_unlock_irqrestore(&kdev->mem.lock, flags);
		if (hold && !live)
			kfree(hold);
		kgni_mem_free(kdev, mem, live);
		/* The hold keeps the number kgni_mem_free() cleared. */
		if (hold && live)
			set_bit(mdh, kdev->mem.mdd_map);
	}
}

/* The work that kgni_mem_kill() queues */
void kgni_mem_reap_work(struct work_struct *work)
{
	struct kgni_dev *kdev = container_of(work, struct kgni_dev,
					     mem.reap_work);

	mutex_lock(&kdev->dp.lock);
	kgni_mem_reap(kdev);
	mutex_unlock(&kdev->dp.lock);
	put_device(&kdev->dev);
}
