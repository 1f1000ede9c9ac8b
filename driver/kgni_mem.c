// SPDX-License-Identifier: GPL-2.0-only
/*
 * kgni: memory registration (KGNI_IOC_MEM_REGISTER, _REGISTER_SEGMENTS,
 * _DEREGISTER, _QUERY) and the NIC's tables (KGNI_IOC_NTT_QUERY reads
 * the NTT's configuration).
 *
 * A registration is an MDD over pinned user pages, mapped 2 MiB at a
 * time through the NIC's MRT when they are huge pages, else page by page
 * through its GART; user space gets a uGNI memory handle for it.  A
 * segmented one pins several user ranges into one run of GART entries
 * under one MDD; one asked for at a vMDH index takes that index's MDD
 * (uapi/kgni_ioctl.h, KGNI_VMDH_MDH()).  Probe maps the tables of the NIC
 * window (MDDs, CQ descriptors, the FMA descriptors' privileged pages),
 * resets their entries, sets the MRT's page size, gives the device the
 * GART table and starts the BTE; remove takes them back.
 */
#include <linux/bitmap.h>
#include <linux/capability.h>
#include <linux/dma-mapping.h>
#include <linux/mm.h>
#include <linux/nospec.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "gemini_mh.h"
#include "kgni_dp.h"

/* Handles give the address in 4 KiB pages (uapi/gemini_mh.h). */
static_assert(PAGE_SHIFT == GEMINI_MH_VA_SHIFT);
/* A vMDH index names one of the NIC's MDDs (uapi/kgni_ioctl.h). */
static_assert(KGNI_VMDH_ENTRIES == GEMINI_NUM_MDD);

/*
 * The GART table: 64 Ki entries (512 KiB) map 256 MiB of registrations at
 * once, a whole guest's memory.  If that much contiguous DMA memory cannot
 * be had, a smaller table down to 1 Ki entries (4 MiB) is taken.
 */
#define KGNI_GART_ENTRIES	BIT(16)
#define KGNI_GART_MIN_ENTRIES	BIT(10)

/*
 * The MRT's pages are 2 MiB, the x86 huge page (the usual setting on a
 * Cray XE): 16 Ki entries map 32 GiB of huge-page registrations.
 */
#define KGNI_MRT_CODE		GEMINI_MRT_PS_2M
#define KGNI_MRT_SHIFT		21
#define KGNI_MRT_SIZE		BIT_ULL(KGNI_MRT_SHIFT)
static_assert(GEMINI_MRT_PAGE_SHIFT(KGNI_MRT_CODE) == KGNI_MRT_SHIFT);

static void kgni_mdd_write(struct kgni_dev *kdev, u32 mdh, u64 qw1, u64 qw2)
{
	void __iomem *p = kgni_mmr(kdev, GEMINI_MMR_MDD_ENTRY(mdh));

	/* QW2 holds VALID: clear it first, set it last. */
	writeq(0, p + 8);
	writeq(qw1, p);
	writeq(qw2, p + 8);
}

/* Point the device at the GART table (@n entries at @dma; 0: off). */
static void kgni_gart_program(struct kgni_dev *kdev, dma_addr_t dma, u32 n)
{
	kgni_wr(kdev, VGEMINI_CTL_GART_ENTRIES, 0);
	kgni_wr(kdev, VGEMINI_CTL_GART_BASE, lower_32_bits(dma));
	kgni_wr(kdev, VGEMINI_CTL_GART_BASE + 4, upper_32_bits(dma));
	kgni_wr(kdev, VGEMINI_CTL_GART_ENTRIES, n);
}

static void kgni_mrt_write(struct kgni_dev *kdev, u32 i, u32 entry)
{
	writel(entry, kgni_mmr(kdev, GEMINI_MMR_MRT + i * GEMINI_MRT_BYTES));
}

/*
 * Set the MRT's page size.  No entry needs clearing: every MDD is invalid,
 * and an entry is written before the MDD that uses it.  A device that
 * does not keep the size gets no MRT registrations (not an error).
 */
static void kgni_mrt_init(struct kgni_dev *kdev)
{
	writeq(KGNI_MRT_CODE, kgni_mmr(kdev, GEMINI_MMR_MRT_PAGE_SIZE));
	if ((readq(kgni_mmr(kdev, GEMINI_MMR_MRT_PAGE_SIZE)) &
	     GEMINI_MRT_PAGE_SIZE_MASK) != KGNI_MRT_CODE) {
		dev_warn(&kdev->pdev->dev, "no MRT: registrations use the GART only\n");
		return;
	}
	kdev->mrt_map = bitmap_zalloc(GEMINI_NUM_MRT, GFP_KERNEL);
}

/* Allocate the GART table, all entries invalid, and give it the device. */
static int kgni_gart_init(struct kgni_dev *kdev)
{
	struct device *dev = &kdev->pdev->dev;
	int ret = -ENOMEM;
	u32 n;

	/* One entry per page: the GART's pages are the kernel's. */
	BUILD_BUG_ON(PAGE_SIZE != VGEMINI_GART_PAGE_SIZE);
	for (n = KGNI_GART_ENTRIES; n >= KGNI_GART_MIN_ENTRIES; n /= 2) {
		/* Zeroed and page-aligned, as GART_BASE needs. */
		kdev->gart = dma_alloc_coherent(dev, (size_t)n * sizeof(__le64),
						&kdev->gart_dma,
						GFP_KERNEL | __GFP_NOWARN);
		if (kdev->gart)
			break;
	}
	if (!kdev->gart) {
		dev_err(dev, "cannot allocate a GART table\n");
		return -ENOMEM;
	}
	kdev->gart_entries = n;
	kdev->gart_map = bitmap_zalloc(n, GFP_KERNEL);
	if (!kdev->gart_map)
		goto err_free;
	kgni_gart_program(kdev, kdev->gart_dma, n);
	if (kgni_rd(kdev, VGEMINI_CTL_GART_ENTRIES) != n ||
	    kgni_rd(kdev, VGEMINI_CTL_GART_BASE) !=
	    lower_32_bits(kdev->gart_dma)) {
		dev_err(dev, "the device has no GART (GART_ENTRIES reads %u, wrote %u)\n",
			kgni_rd(kdev, VGEMINI_CTL_GART_ENTRIES), n);
		kgni_gart_program(kdev, 0, 0);
		ret = -ENODEV;
		goto err_free;
	}
	if (n < KGNI_GART_ENTRIES)
		dev_warn(dev, "GART of %u entries only: %u MiB registrable\n",
			 n, n >> (20 - PAGE_SHIFT));
	return 0;

err_free:
	bitmap_free(kdev->gart_map);
	kdev->gart_map = NULL;
	dma_free_coherent(dev, (size_t)n * sizeof(__le64), kdev->gart,
			  kdev->gart_dma);
	kdev->gart = NULL;
	return ret;
}

/* Take the table from the device (flushed), then free it. */
static void kgni_gart_fini(struct kgni_dev *kdev)
{
	if (!kdev->gart)
		return;
	kgni_gart_program(kdev, 0, 0);
	kgni_rd(kdev, VGEMINI_CTL_GART_ENTRIES);
	dma_free_coherent(&kdev->pdev->dev,
			  (size_t)kdev->gart_entries * sizeof(__le64),
			  kdev->gart, kdev->gart_dma);
	bitmap_free(kdev->gart_map);
	kdev->gart = NULL;
	kdev->gart_map = NULL;
	kdev->gart_entries = 0;
}

/**
 * kgni_dp_map() - map the NIC tables and reset the data-path entries
 * @kdev: the device, at probe
 *
 * Whatever an earlier driver left: every MDD invalid, every CQ and FMA
 * descriptor (the OS ones too) disabled.  Then the GART table is allocated and given to
 * the device, and the BTE's channels are started (kgni_bte_map()).
 *
 * Return: 0, -ENOMEM, or -ENODEV for a device without a GART or whose
 * BTE refuses its rings.
 */
int kgni_dp_map(struct kgni_dev *kdev)
{
	struct pci_dev *pdev = kdev->pdev;
	int ret;
	u32 i;

	kdev->nic_phys = pci_resource_start(pdev, GEMINI_BAR_NIC);
	kdev->mmr = pci_iomap_range(pdev, GEMINI_BAR_NIC, GEMINI_MMR_MRT,
				    GEMINI_MMR_CQ_DESC_ENTRY(GEMINI_NUM_CQ) -
				    GEMINI_MMR_MRT);
	kdev->fma_priv = pci_iomap_range(pdev, GEMINI_BAR_NIC, GEMINI_FMA_PRIV,
					 GEMINI_FMA_NUM_DESC *
					 GEMINI_FMA_CTRL_SIZE);
	if (!kdev->mmr || !kdev->fma_priv) {
		dev_err(&pdev->dev, "cannot map the NIC window's tables\n");
		kgni_dp_unmap(kdev);
		return -ENOMEM;
	}
	for (i = 0; i < GEMINI_NUM_MDD; i++)
		kgni_mdd_write(kdev, i, 0, 0);
	for (i = 0; i < GEMINI_NUM_CQ; i++)
		kgni_cq_write(kdev, i, 0, 0, 0);
	for (i = 0; i < GEMINI_FMA_NUM_DESC; i++)
		kgni_fma_program(kdev, i, 0, 0);
	set_bit(0, kdev->cq_map);	/* MDDs' cqh 0: never a live CQ */
	kgni_mrt_init(kdev);
	ret = kgni_gart_init(kdev);
	if (!ret)
		ret = kgni_bte_map(kdev);
	if (!ret) {
		mutex_lock(&kdev->dp_lock);
		ret = kgni_dg_init(kdev);
		mutex_unlock(&kdev->dp_lock);
	}
	if (ret)
		kgni_dp_unmap(kdev);
	return ret;
}

/**
 * kgni_dp_stop() - stop the device's access to registered memory
 * @kdev: the device, at remove before kgni_ioctl_shutdown(), or at a
 *        failed probe before kgni_dp_unmap()
 *
 * Resets the BTE's channels, then turns the GART off and invalidates the
 * MRT entries in use: from then on a request into any registration fails
 * its translation, so files released after the device is marked gone
 * (which no longer touch it) can unpin their pages safely.
 */
void kgni_dp_stop(struct kgni_dev *kdev)
{
	unsigned int i;

	kgni_dg_stop(kdev);
	kgni_bte_stop(kdev);
	kgni_wr(kdev, VGEMINI_CTL_GART_ENTRIES, 0);
	kgni_rd(kdev, VGEMINI_CTL_GART_ENTRIES);
	mutex_lock(&kdev->dp_lock);
	if (kdev->mrt_map) {
		for_each_set_bit(i, kdev->mrt_map, GEMINI_NUM_MRT)
			kgni_mrt_write(kdev, i, 0);
		readl(kgni_mmr(kdev, GEMINI_MMR_MRT));
	}
	mutex_unlock(&kdev->dp_lock);
}

/**
 * kgni_dp_unmap() - unmap the NIC tables and the BTE, free the GART
 * @kdev: the device, at remove after kgni_ioctl_shutdown() (registrations
 *        that files still hold no longer touch the GART), or at a failed
 *        probe
 */
void kgni_dp_unmap(struct kgni_dev *kdev)
{
	void __iomem *mmr;
	unsigned long flags;

	kgni_fma_drain_fini(kdev);
	mutex_lock(&kdev->dp_lock);
	kgni_dg_fini(kdev);
	kgni_bte_unmap(kdev);
	kgni_gart_fini(kdev);
	bitmap_free(kdev->mrt_map);
	kdev->mrt_map = NULL;
	kgni_mem_reap(kdev);
	spin_lock_irqsave(&kdev->mem_lock, flags);
	mmr = kdev->mmr;
	kdev->mmr = NULL;
	spin_unlock_irqrestore(&kdev->mem_lock, flags);
	if (mmr)
		pci_iounmap(kdev->pdev, mmr);
	if (kdev->fma_priv)
		pci_iounmap(kdev->pdev, kdev->fma_priv);
	kdev->fma_priv = NULL;
	mutex_unlock(&kdev->dp_lock);
}

/**
 * kgni_mem_cq_refs() - how many of a domain's registrations send @cq events
 * @dom: the domain
 * @cq: one of its CQs
 *
 * Context: dp_lock held.
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
 * Context: dp_lock held.
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
 * Context: dp_lock held.
 */
void kgni_mem_free(struct kgni_dev *kdev, struct kgni_mem *mem, bool live)
{
	unsigned long i, flags;

	if (live) {
		kgni_mdd_write(kdev, mem->mdh, 0, 0);
		/* Flush: no request uses the entries or pages after this. */
		readq(kgni_mmr(kdev, GEMINI_MMR_MDD_ENTRY(mem->mdh)) + 8);
		if (mem->mrt_count) {
			for (i = 0; i < mem->mrt_count; i++)
				kgni_mrt_write(kdev, mem->mrt_first + i, 0);
			bitmap_clear(kdev->mrt_map, mem->mrt_first,
				     mem->mrt_count);
		} else {
			for (i = 0; i < mem->npages; i++)
				kdev->gart[mem->gart_first + i] = 0;
			bitmap_clear(kdev->gart_map, mem->gart_first,
				     mem->npages);
		}
	}
	/*
	 * Not live: remove has taken the GART from the device and freed it,
	 * and invalidated the MRT entries.
	 */
	clear_bit(mem->mdh, kdev->mdd_map);
	mem->dom->nmdd--;
	if (!mem->mrt_count)
		mem->dom->ngart -= mem->npages;
	if (mem->cq)
		mem->cq->users--;
	kgni_mem_put_pages(mem->pages, mem->npages, mem->mm, true);
	spin_lock_irqsave(&kdev->mem_lock, flags);
	list_del(&mem->node);
	spin_unlock_irqrestore(&kdev->mem_lock, flags);
	kfree(mem);
}

/* Memory registration */

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

/* Take a run of @n GART entries (dp_lock held); false if there is none. */
static bool kgni_gart_alloc(struct kgni_dev *kdev, unsigned long n,
			    u32 *first)
{
	unsigned long i;

	i = bitmap_find_next_zero_area(kdev->gart_map, kdev->gart_entries, 0,
				       n, 0);
	if (i >= kdev->gart_entries)
		return false;
	bitmap_set(kdev->gart_map, i, n);
	*first = i;
	return true;
}

/*
 * How many MRT pages map the @n pinned pages of the buffer whose first
 * page is at user address @va: every 2 MiB piece of it must lie in one
 * huge page (a folio of 2 MiB or more), at the offset it has in user
 * space.  0 if it does not.  Only the pinned pages are in the MDD's
 * bounds; the rest of a huge page stays out of the network's reach.
 * Ordinary pages never qualify, even when they happen to sit at the
 * right physical offset: the handle's flag tells clients which table
 * maps them, and GART is what they expect for small pages.
 */
static u32 kgni_mrt_pages(struct page **pages, unsigned long n, u64 va)
{
	phys_addr_t base = 0;
	unsigned long i;

	for (i = 0; i < n; i++) {
		u64 off = (va + i * PAGE_SIZE) & (KGNI_MRT_SIZE - 1);
		phys_addr_t phys = page_to_phys(pages[i]);

		if (folio_order(page_folio(pages[i])) <
		    KGNI_MRT_SHIFT - PAGE_SHIFT)
			return 0;
		if (i == 0 || off == 0) {
			if ((phys - off) & (KGNI_MRT_SIZE - 1))
				return 0;
			base = phys - off;
		} else if (phys != base + off) {
			return 0;
		}
	}
	return ((va + n * PAGE_SIZE - 1) >> KGNI_MRT_SHIFT) -
	       (va >> KGNI_MRT_SHIFT) + 1;
}

/* Take a run of @n MRT entries (dp_lock held); false if there is none. */
static bool kgni_mrt_alloc(struct kgni_dev *kdev, u32 n, u32 *first)
{
	unsigned long i;

	if (!kdev->mrt_map || !n)
		return false;
	i = bitmap_find_next_zero_area(kdev->mrt_map, GEMINI_NUM_MRT, 0, n, 0);
	if (i >= GEMINI_NUM_MRT)
		return false;
	bitmap_set(kdev->mrt_map, i, n);
	*first = i;
	return true;
}

/*
 * Map @mem's pages for the device and return the MDD's base: through the
 * MRT if @mrt_pages (its page count, from kgni_mrt_pages()) and entries
 * are free, else through the GART if @gart_ok (within the job's quota);
 * 0, -EDQUOT, or -ENOSPC if neither has room.  Context: dp_lock held.
 * No IOMMU in front of the device: bus address = physical address.
 */
static int kgni_mem_map(struct kgni_dev *kdev, struct kgni_mem *mem,
			u32 mrt_pages, bool gart_ok, u64 *base)
{
	unsigned long i;

	if (kgni_mrt_alloc(kdev, mrt_pages, &mem->mrt_first)) {
		mem->mrt_count = mrt_pages;
		for (i = 0; i < mrt_pages; i++) {
			u64 start = ((mem->va >> KGNI_MRT_SHIFT) + i) <<
				    KGNI_MRT_SHIFT;
			/* The buffer's first page in huge page i */
			unsigned long k = i ? (start - mem->va) >> PAGE_SHIFT
					    : 0;
			phys_addr_t phys = page_to_phys(mem->pages[k]);

			kgni_mrt_write(kdev, mem->mrt_first + i,
				       GEMINI_MRT_ENCODE(phys &
							 ~(KGNI_MRT_SIZE - 1)));
		}
		*base = ((u64)mem->mrt_first << KGNI_MRT_SHIFT) +
			(mem->va & (KGNI_MRT_SIZE - 1));
		return 0;
	}
	if (!gart_ok)
		return -EDQUOT;
	if (!kgni_gart_alloc(kdev, mem->npages, &mem->gart_first))
		return -ENOSPC;
	for (i = 0; i < mem->npages; i++) {
		phys_addr_t phys = page_to_phys(mem->pages[i]);

		kdev->gart[mem->gart_first + i] =
			cpu_to_le64(VGEMINI_GART_ENTRY(phys));
	}
	*base = VGEMINI_GART_ADDR(mem->gart_first);
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

/**
 * struct kgni_mem_user - what a user registration adds to a kernel client's
 * @addr: the address it was asked for (KGNI_IOC_MEM_QUERY gives it back)
 * @len: the bytes asked for
 * @vmdh: KGNI_MEM_VMDH: at a vMDH entry, not the lowest free MDD
 * @vmdh_index: the entry, or KGNI_VMDH_ANY
 * @vmdh_count: the caller's block: KGNI_VMDH_ANY's entries
 */
struct kgni_mem_user {
	u64 addr;
	u64 len;
	bool vmdh;
	u32 vmdh_index;
	u32 vmdh_count;
};

/*
 * The MDD of the vMDH entry that @u asks for, into *@mdh: its index, or
 * with KGNI_VMDH_ANY the lowest free index of its block.  -EBUSY if the
 * index is taken, -ENOSPC if the block has no free one.  The entries are
 * the NIC's, whoever holds them (uapi/kgni_ioctl.h).  Context: dp_lock
 * held.
 */
static int kgni_vmdh_mdh(struct kgni_dev *kdev, const struct kgni_mem_user *u,
			 u32 *mdh)
{
	u32 i;

	if (u->vmdh_index != KGNI_VMDH_ANY) {
		*mdh = KGNI_VMDH_MDH(u->vmdh_index);
		return test_bit(*mdh, kdev->mdd_map) ? -EBUSY : 0;
	}
	for (i = 0; i < u->vmdh_count; i++) {
		if (!test_bit(KGNI_VMDH_MDH(i), kdev->mdd_map)) {
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
static int kgni_mem_make(struct kgni_dev *kdev, struct kgni_dom *dom,
			 u32 flags, u32 cq_id, struct page **pages,
			 unsigned long npages, u64 va, struct mm_struct *mm,
			 u64 hndl[2], bool atomic,
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
		mutex_lock(&kdev->dp_lock);
	} else if (!mutex_trylock(&kdev->dp_lock)) {
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
		mdh = find_first_zero_bit(kdev->mdd_map, GEMINI_NUM_MDD);
		if (mdh >= GEMINI_NUM_MDD) {
			ret = -ENOSPC;
			goto err_unlock;
		}
	}
	/* The entries first, then the MDD (writeq orders them before it) */
	ret = kgni_mem_map(kdev, mem, mrt_pages, gart_ok, &base);
	if (ret)
		goto err_unlock;
	set_bit(mdh, kdev->mdd_map);
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
	spin_lock_irqsave(&kdev->mem_lock, irqflags);
	list_add_tail(&mem->node, &dom->mems);
	spin_unlock_irqrestore(&kdev->mem_lock, irqflags);
	hndl[0] = mem->hndl[0];
	hndl[1] = mem->hndl[1];
	mutex_unlock(&kdev->dp_lock);
	return 0;

err_unlock:
	mutex_unlock(&kdev->dp_lock);
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
 *          its own): dp_lock is only tried
 *
 * The pages are mapped (through the MRT if it can, else one run of GART
 * entries) and given one MDD of the domain's ptag.  On success the
 * registration owns @pages, their pins and charge and the reference on
 * @mm, until kgni_mem_free(); on failure the caller keeps them.
 *
 * Context: process context; ctl_rwsem held for reading with the device
 * alive; takes dp_lock, or with @atomic tries it and does not sleep.
 * Return: 0, -EPERM without a CDM, -ENOLINK once the domain's job was
 * released, -EINVAL for a CQ that is not the domain's, -ENOMEM, -EDQUOT
 * past the job's kgni_job_mdds registrations or kgni_job_gart GART
 * entries (a file's), -ENOSPC without a free MDD or run of MRT or GART
 * entries, -EBUSY if @atomic and dp_lock is held.
 */
int kgni_mem_create(struct kgni_dev *kdev, struct kgni_dom *dom, u32 flags,
		    u32 cq_id, struct page **pages, unsigned long npages,
		    u64 va, struct mm_struct *mm, u64 hndl[2], bool atomic)
{
	return kgni_mem_make(kdev, dom, flags, cq_id, pages, npages, va, mm,
			     hndl, atomic, NULL);
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
	mutex_lock(&kdev->dp_lock);
	ret = kgni_dom_usable(dom);
	if (!ret && cq_id && !kgni_cq_find(dom, cq_id))
		ret = -EINVAL;
	mutex_unlock(&kdev->dp_lock);
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
 * kgni_mem_find() - a registration of the domain, by its handle
 * @dom: the domain
 * @h: the handle
 *
 * Context: dp_lock held (or mem_lock).
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
 * Context: dp_lock held; process context of the poster.
 * Return: the registration, or NULL.
 */
struct kgni_mem *kgni_mem_find_local(struct kgni_dev *kdev,
				     struct kgni_dom *dom, const u64 h[2])
{
	struct kgni_mem *mem = kgni_mem_find(dom, h);
	struct kgni_dom *d;

	if (mem || dom->kernel)
		return mem;
	list_for_each_entry(d, &kdev->doms, node) {
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
 * dp_lock.
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

	mutex_lock(&kdev->dp_lock);
	if (dom->revoked)
		ret = -ENOLINK;
	mem = kgni_mem_find(dom, hndl);
	if (mem) {
		u32 mdh = mem->mdh;

		kgni_mem_free(kdev, mem, live);
		ret = 0;
		/* Nobody took the number meanwhile: dp_lock is held. */
		if (hold && live) {
			spin_lock_irqsave(&kdev->mem_lock, flags);
			kgni_mdh_hold_add(kdev, mdh, hndl, hold);
			spin_unlock_irqrestore(&kdev->mem_lock, flags);
			ret = 1;
		}
	}
	mutex_unlock(&kdev->dp_lock);
	return ret;
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

	mutex_lock(&kdev->dp_lock);
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
	mutex_unlock(&kdev->dp_lock);
	if (!found)
		return after ? -ENOENT : -EINVAL;
	return kgni_ucmd_respond(ucmd, sizeof(*cmd));
}

/**
 * kgni_ioctl_ntt_query() - KGNI_IOC_NTT_QUERY
 * @ucmd: the call; @ucmd->cmd is a struct kgni_ntt_query
 *
 * Reads the NIC's NTT config register, which no table mapping of kgni
 * covers: mapped for the call (the query is rare).
 *
 * Return: 0 with the granularity written back, -EINVAL for bad flags or
 * fields, -ENOMEM if the register cannot be mapped, -EFAULT.
 */
int kgni_ioctl_ntt_query(struct kgni_ucmd *ucmd)
{
	struct kgni_ntt_query *cmd = ucmd->cmd;
	struct pci_dev *pdev = ucmd->kdev->pdev;
	void __iomem *reg;
	u64 cfg;

	if (cmd->flags || cmd->gran || cmd->reserved)
		return -EINVAL;
	reg = pci_iomap_range(pdev, GEMINI_BAR_NIC, GEMINI_MMR_NTT_CONFIG,
			      sizeof(u64));
	if (!reg)
		return -ENOMEM;
	cfg = readq(reg);
	pci_iounmap(pdev, reg);
	cmd->gran = (cfg >> GEMINI_NTT_CFG_GRAN0_SHIFT) &
		    GEMINI_NTT_CFG_GRAN_MASK;
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
 * What kgni_mem_deregister() does at once, done under mem_lock alone, for
 * a kernel client that holds a spinlock of its own: the MDD is
 * invalidated and read back, so that no request reaches the pages after
 * this returns, and the registration is no longer found.  Its entries,
 * pages and counts are given back by kgni_mem_reap(), which the work, the
 * next registration and the domain's teardown run before anything could
 * tell they were still taken.  After remove nothing touches the device.
 *
 * Context: any; takes mem_lock.
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

	spin_lock_irqsave(&kdev->mem_lock, flags);
	mem = kgni_mem_find(dom, hndl);
	if (!mem) {
		spin_unlock_irqrestore(&kdev->mem_lock, flags);
		return -EINVAL;
	}
	WRITE_ONCE(mem->dying, true);
	mem->dead_hold = hold;
	list_add_tail(&mem->dead, &kdev->mem_dead);
	if (kdev->mmr && !READ_ONCE(kdev->gone)) {
		kgni_mdd_write(kdev, mem->mdh, 0, 0);
		readq(kgni_mmr(kdev, GEMINI_MMR_MDD_ENTRY(mem->mdh)) + 8);
	}
	/* The work's reference: the caller's NIC holds one meanwhile. */
	get_device(&kdev->dev);
	queued = queue_work(system_wq, &kdev->mem_reap_work);
	spin_unlock_irqrestore(&kdev->mem_lock, flags);
	if (!queued)
		put_device(&kdev->dev);
	return 0;
}

/**
 * kgni_mem_reap() - free the registrations kgni_mem_kill() invalidated
 * @kdev: the device
 *
 * Each one's hold becomes a hold of the device's list under mem_lock, so
 * that gni_mem_mdd_release() finds it in one place or the other.
 *
 * Context: dp_lock held.
 */
void kgni_mem_reap(struct kgni_dev *kdev)
{
	bool live = !READ_ONCE(kdev->gone);
	struct kgni_mdh_hold *hold;
	struct kgni_mem *mem;
	unsigned long flags;
	u32 mdh;

	for (;;) {
		spin_lock_irqsave(&kdev->mem_lock, flags);
		mem = list_first_entry_or_null(&kdev->mem_dead,
					       struct kgni_mem, dead);
		if (!mem) {
			spin_unlock_irqrestore(&kdev->mem_lock, flags);
			return;
		}
		list_del(&mem->dead);
		hold = mem->dead_hold;
		mdh = mem->mdh;
		/* Nobody takes the number meanwhile: dp_lock is held. */
		if (hold && live)
			kgni_mdh_hold_add(kdev, mdh, mem->hndl, hold);
		spin_unlock_irqrestore(&kdev->mem_lock, flags);
		if (hold && !live)
			kfree(hold);
		kgni_mem_free(kdev, mem, live);
		/* The hold keeps the number kgni_mem_free() cleared. */
		if (hold && live)
			set_bit(mdh, kdev->mdd_map);
	}
}

/* The work that kgni_mem_kill() queues */
void kgni_mem_reap_work(struct work_struct *work)
{
	struct kgni_dev *kdev = container_of(work, struct kgni_dev,
					     mem_reap_work);

	mutex_lock(&kdev->dp_lock);
	kgni_mem_reap(kdev);
	mutex_unlock(&kdev->dp_lock);
	put_device(&kdev->dev);
}
