// SPDX-License-Identifier: GPL-2.0-only
/*
 * kgni: the NIC's translation tables, the MDDs, the MRT and the GART, and
 * how a registration's pages are mapped through them.
 *
 * Probe maps the tables of the NIC window (MDDs, CQ descriptors, the FMA
 * descriptors' privileged pages), resets their entries, sets the MRT's
 * page size, gives the device the GART table and starts the BTE; remove
 * takes them back.  A registration (kgni_mem.c) is mapped 2 MiB at a time
 * through the MRT when its pages are huge pages, else page by page
 * through the GART, and its MDD written over them.  Kept apart from the
 * registrations' lifecycle so that each file stays under 800 lines, and
 * so that the tables' entries are written through this file alone.
 */
#include <linux/bitmap.h>
#include <linux/dma-mapping.h>
#include <linux/mm.h>

#include "kgni_dp.h"

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

/* Write MDD @mdh, never seen valid with half its fields. */
void kgni_mdd_write(struct kgni_dev *kdev, u32 mdh, u64 qw1, u64 qw2)
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
	kdev->mem.mrt_map = bitmap_zalloc(GEMINI_NUM_MRT, GFP_KERNEL);
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
		kdev->mem.gart = dma_alloc_coherent(dev,
						    (size_t)n * sizeof(__le64),
						    &kdev->mem.gart_dma,
						    GFP_KERNEL | __GFP_NOWARN);
		if (kdev->mem.gart)
			break;
	}
	if (!kdev->mem.gart) {
		dev_err(dev, "cannot allocate a GART table\n");
		return -ENOMEM;
	}
	kdev->mem.gart_entries = n;
	kdev->mem.gart_map = bitmap_zalloc(n, GFP_KERNEL);
	if (!kdev->mem.gart_map)
		goto err_free;
	kgni_gart_program(kdev, kdev->mem.gart_dma, n);
	if (kgni_rd(kdev, VGEMINI_CTL_GART_ENTRIES) != n ||
	    kgni_rd(kdev, VGEMINI_CTL_GART_BASE) !=
	    lower_32_bits(kdev->mem.gart_dma)) {
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
	bitmap_free(kdev->mem.gart_map);
	kdev->mem.gart_map = NULL;
	dma_free_coherent(dev, (size_t)n * sizeof(__le64), kdev->mem.gart,
			  kdev->mem.gart_dma);
	kdev->mem.gart = NULL;
	return ret;
}

/* Take the table from the device (flushed), then free it. */
static void kgni_gart_fini(struct kgni_dev *kdev)
{
	if (!kdev->mem.gart)
		return;
	kgni_gart_program(kdev, 0, 0);
	kgni_rd(kdev, VGEMINI_CTL_GART_ENTRIES);
	dma_free_coherent(&kdev->pdev->dev,
			  (size_t)kdev->mem.gart_entries * sizeof(__le64),
			  kdev->mem.gart, kdev->mem.gart_dma);
	bitmap_free(kdev->mem.gart_map);
	kdev->mem.gart = NULL;
	kdev->mem.gart_map = NULL;
	kdev->mem.gart_entries = 0;
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
	set_bit(0, kdev->cq.map);	/* MDDs' cqh 0: never a live CQ */
	kgni_mrt_init(kdev);
	ret = kgni_gart_init(kdev);
	if (!ret)
		ret = kgni_bte_map(kdev);
	if (!ret) {
		mutex_lock(&kdev->dp.lock);
		ret = kgni_dg_init(kdev);
		mutex_unlock(&kdev->dp.lock);
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
	mutex_lock(&kdev->dp.lock);
	if (kdev->mem.mrt_map) {
		for_each_set_bit(i, kdev->mem.mrt_map, GEMINI_NUM_MRT)
			kgni_mrt_write(kdev, i, 0);
		readl(kgni_mmr(kdev, GEMINI_MMR_MRT));
	}
	mutex_unlock(&kdev->dp.lock);
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
	mutex_lock(&kdev->dp.lock);
	kgni_dg_fini(kdev);
	kgni_bte_unmap(kdev);
	kgni_gart_fini(kdev);
	bitmap_free(kdev->mem.mrt_map);
	kdev->mem.mrt_map = NULL;
	kgni_mem_reap(kdev);
	spin_lock_irqsave(&kdev->mem.lock, flags);
	mmr = kdev->mmr;
	kdev->mmr = NULL;
	spin_unlock_irqrestore(&kdev->mem.lock, flags);
	if (mmr)
		pci_iounmap(kdev->pdev, mmr);
	if (kdev->fma_priv)
		pci_iounmap(kdev->pdev, kdev->fma_priv);
	kdev->fma_priv = NULL;
	mutex_unlock(&kdev->dp.lock);
}

/* Take a run of @n GART entries (dp.lock held); false if there is none. */
static bool kgni_gart_alloc(struct kgni_dev *kdev, unsigned long n,
			    u32 *first)
{
	unsigned long i;

	i = bitmap_find_next_zero_area(kdev->mem.gart_map,
				       kdev->mem.gart_entries, 0, n, 0);
	if (i >= kdev->mem.gart_entries)
		return false;
	bitmap_set(kdev->mem.gart_map, i, n);
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
u32 kgni_mrt_pages(struct page **pages, unsigned long n, u64 va)
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

/* Take a run of @n MRT entries (dp.lock held); false if there is none. */
static bool kgni_mrt_alloc(struct kgni_dev *kdev, u32 n, u32 *first)
{
	unsigned long i;

	if (!kdev->mem.mrt_map || !n)
		return false;
	i = bitmap_find_next_zero_area(kdev->mem.mrt_map, GEMINI_NUM_MRT, 0,
				       n, 0);
	if (i >= GEMINI_NUM_MRT)
		return false;
	bitmap_set(kdev->mem.mrt_map, i, n);
	*first = i;
	return true;
}

/*
 * Map @mem's pages for the device and return the MDD's base: through the
 * MRT if @mrt_pages (its page count, from kgni_mrt_pages()) and entries
 * are free, else through the GART if @gart_ok (within the job's quota);
 * 0, -EDQUOT, or -ENOSPC if neither has room.  Context: dp.lock held.
 * No IOMMU in front of the device: bus address = physical address.
 */
int kgni_mem_map(struct kgni_dev *kdev, struct kgni_mem *mem, u32 mrt_pages,
		 bool gart_ok, u64 *base)
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

		kdev->mem.gart[mem->gart_first + i] =
			cpu_to_le64(VGEMINI_GART_ENTRY(phys));
	}
	*base = VGEMINI_GART_ADDR(mem->gart_first);
	return 0;
}

/*
 * Clear and give back the MRT or GART entries kgni_mem_map() took for
 * @mem, once its MDD is invalid and flushed.  Context: dp.lock held.
 */
void kgni_mem_unmap(struct kgni_dev *kdev, struct kgni_mem *mem)
{
	unsigned long i;

	if (mem->mrt_count) {
		for (i = 0; i < mem->mrt_count; i++)
			kgni_mrt_write(kdev, mem->mrt_first + i, 0);
		bitmap_clear(kdev->mem.mrt_map, mem->mrt_first, mem->mrt_count);
	} else {
		for (i = 0; i < mem->npages; i++)
			kdev->mem.gart[mem->gart_first + i] = 0;
		bitmap_clear(kdev->mem.gart_map, mem->gart_first, mem->npages);
	}
}
