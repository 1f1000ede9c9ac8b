// SPDX-License-Identifier: GPL-2.0-only
/*
 * kgni: the data path (uapi/kgni_ioctl.h, Documentation/abi.rst).
 *
 * A job set-up allows (ptag, cookie) pairs on the NIC; a file attaches to
 * one of them (its CDM), then registers memory (an MDD over pinned user
 * pages, mapped page by page through the NIC's GART), makes CQs (a ring in
 * kernel memory the device writes; a blocking one interrupts, and
 * KGNI_IOC_CQ_WAIT sleeps on it) and takes FMA descriptors whose
 * privileged fields the kernel programs.  User space maps the objects'
 * pages with mmap and drives the FMA without syscalls.
 *
 * Every object belongs to the file that made it and is undone when the
 * file is released or its job is (a released job's files are revoked):
 * the device entry is reset first (so that a later owner starts clean and
 * the device stops using the memory), then the memory is unpinned or
 * freed.
 *
 * Who may attach: a job set-up names the user and the cgroup of the job's
 * ranks; knowing (ptag, cookie) is not enough (Documentation/jobs.rst).
 *
 * mmap offsets encode the object: bits 47..40 its kind, 39..24 its id,
 * 23..0 the offset inside it.  The same offsets are used for every file of
 * the device, so freeing an object removes every mapping of it with
 * unmap_mapping_range() before the device entry is reset.  A mapping that
 * mmap() was still setting up is not in the file's mapping tree yet and
 * escapes that; so every mapping holds a reference on its object, and a
 * CQ's ring and the CQ and FMA numbers (whose MMIO pages it may map) are
 * given back only when the last mapping has gone.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/capability.h>
#include <linux/cgroup.h>
#include <linux/cred.h>
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/mm.h>
#include <linux/refcount.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include "kgni.h"

/* mmap offsets */
#define KGNI_MAP_KIND_SHIFT	40
#define KGNI_MAP_ID_SHIFT	24
#define KGNI_MAP_ID_MASK	0xffffull
#define KGNI_MAP_REL_MASK	((1ull << KGNI_MAP_ID_SHIFT) - 1)

enum kgni_map_kind {
	KGNI_MAP_CQ_RING = 1,
	KGNI_MAP_CQ_USER = 2,
	KGNI_MAP_FMA_USER = 3,
	KGNI_MAP_FMA_PUT_WC = 4,
	KGNI_MAP_FMA_PUT_UC = 5,
	KGNI_MAP_FMA_GET = 6,
};

static u64 kgni_map_offset(enum kgni_map_kind kind, u32 id)
{
	return ((u64)kind << KGNI_MAP_KIND_SHIFT) |
	       ((u64)id << KGNI_MAP_ID_SHIFT);
}

/* Memory handle, uGNI's version 1 layout (spec: ugni-api.md section 18) */
#define KGNI_MH_VA_MASK		0x000fffffffffffffull
#define KGNI_MH_MDH_SHIFT	52
#define KGNI_MH_NPAGES_MASK	0xfffffffull
#define KGNI_MH_PSIZE_SHIFT	28
#define KGNI_MH_FLAGS_SHIFT	34
#define KGNI_MH_FLAG_READONLY	0x01ull
#define KGNI_MH_FLAG_GART	0x08ull
#define KGNI_MH_CRC_SHIFT	56

/*
 * The GART table: 64 Ki entries (512 KiB) map 256 MiB of registrations at
 * once, a whole guest's memory.  If that much contiguous DMA memory cannot
 * be had, a smaller table down to 1 Ki entries (4 MiB) is taken.
 */
#define KGNI_GART_ENTRIES	(1u << 16)
#define KGNI_GART_MIN_ENTRIES	(1u << 10)

/**
 * struct kgni_mem - a registration
 * @node: in the file's list
 * @mdh: its MDD
 * @gart_first: its first GART entry; page i is entry @gart_first + i
 * @va: user address of its first page
 * @npages: pages pinned
 * @pages: the pages
 * @mm: the mm charged for them
 * @cq: the CQ of its remote events, or NULL
 * @hndl: the memory handle given to user space
 */
struct kgni_mem {
	struct list_head node;
	u32 mdh;
	u32 gart_first;
	u64 va;
	unsigned long npages;
	struct page **pages;
	struct mm_struct *mm;
	struct kgni_cq *cq;
	u64 hndl[2];
};

/**
 * struct kgni_cq - a completion queue
 * @node: in the file's list
 * @id: the device's CQ number
 * @entries: ring entries
 * @ring: the ring, kernel address
 * @dma: the ring, device address
 * @ring_size: bytes allocated for the ring (whole pages)
 * @users: FMA descriptors and registrations of the file that name it
 * @blocking: made with KGNI_CQ_BLOCKING: its events interrupt
 * @dead: destroyed; only waiters and mappings still hold the structure
 * @ref: the file's list holds one, each KGNI_IOC_CQ_WAIT and each mapping
 *       one; the last frees the ring and gives the number back
 * @kdev: the device
 * @mm: the mm whose RLIMIT_MEMLOCK the ring is charged to
 */
struct kgni_cq {
	struct list_head node;
	struct kgni_dev *kdev;
	struct mm_struct *mm;
	u32 id;
	u32 entries;
	void *ring;
	dma_addr_t dma;
	size_t ring_size;
	unsigned int users;
	bool blocking;
	bool dead;
	refcount_t ref;
};

/**
 * struct kgni_fma - a general FMA descriptor
 * @node: in the file's list
 * @id: the descriptor, 0 to GEMINI_NUM_FMA - 1
 * @cq: its cq_hndl
 * @ref: the file's list holds one, each mapping one; the last gives the
 *       number back, unless @stuck
 * @stuck: it did not go idle after being disabled: never handed out again
 * @kdev: the device
 */
struct kgni_fma {
	struct list_head node;
	u32 id;
	struct kgni_cq *cq;
	refcount_t ref;
	bool stuck;
	struct kgni_dev *kdev;
};

/* CRC-8/MAXIM: reflected polynomial 0x8c, initial 0, no final xor. */
static u8 kgni_crc8(const u8 *p, size_t len)
{
	u8 crc = 0;
	int i;

	while (len--) {
		crc ^= *p++;
		for (i = 0; i < 8; i++)
			crc = (crc & 1) ? (crc >> 1) ^ 0x8c : crc >> 1;
	}
	return crc;
}

/* The CRC of a handle: qword1's 8 bytes, then qword2's low 7, LSB first. */
static u8 kgni_mh_crc(const u64 hndl[2])
{
	u8 b[15];
	int i;

	for (i = 0; i < 8; i++)
		b[i] = hndl[0] >> (8 * i);
	for (i = 0; i < 7; i++)
		b[8 + i] = hndl[1] >> (8 * i);
	return kgni_crc8(b, sizeof(b));
}

/* MMIO of the tables; the caller holds ctl_rwsem and the device is alive */
static void __iomem *kgni_mmr(struct kgni_dev *kdev, u64 off)
{
	return kdev->mmr + (off - GEMINI_MMR_MRT);
}

static void __iomem *kgni_fma_reg(struct kgni_dev *kdev, u32 d,
				  unsigned int reg)
{
	return kdev->fma_priv + ((unsigned long)d << 12) + reg;
}

static void kgni_mdd_write(struct kgni_dev *kdev, u32 mdh, u64 qw1, u64 qw2)
{
	void __iomem *p = kgni_mmr(kdev, GEMINI_MMR_MDD_ENTRY(mdh));

	/* QW2 holds VALID: clear it first, set it last. */
	writeq(0, p + 8);
	writeq(qw1, p);
	writeq(qw2, p + 8);
}

static void kgni_cq_write(struct kgni_dev *kdev, u32 cq, u64 base,
			  u64 qw2, u64 qw3_flags)
{
	void __iomem *p = kgni_mmr(kdev, GEMINI_MMR_CQ_DESC_ENTRY(cq));

	writeq(0, p + 8);		/* disable */
	writeq(base | qw3_flags, p + 16);
	writeq(0, p);			/* indices */
	writeq(qw2, p + 8);
}

/* Status word bits that clear both counters and every flag */
#define KGNI_FMA_STAT_CLEAR \
	((GEMINI_FMA_STAT_COUNT_MASK << GEMINI_FMA_STAT_WC_SHIFT) | \
	 (GEMINI_FMA_STAT_COUNT_MASK << GEMINI_FMA_STAT_RC_SHIFT) | \
	 (GEMINI_FMA_STAT_FLAGS_MASK << GEMINI_FMA_STAT_FLAGS_SHIFT))

/*
 * Disable descriptor @d and return it to its reset state, then program
 * @qw3 and @mode2 (0 and 0 leave it disabled).
 */
static void kgni_fma_program(struct kgni_dev *kdev, u32 d, u64 qw3,
			     u64 mode2)
{
	writeq(0, kgni_fma_reg(kdev, d, GEMINI_FMA_QW_CMD));
	writeq(GEMINI_FMA_PRIV_DEFAULT,
	       kgni_fma_reg(kdev, d, GEMINI_FMA_PRIV_MASK_REG));
	writeq(0, kgni_fma_reg(kdev, d, GEMINI_FMA_QW_BASE_OFFSET));
	writeq(qw3, kgni_fma_reg(kdev, d, GEMINI_FMA_QW_PE));
	writeq(0, kgni_fma_reg(kdev, d, GEMINI_FMA_QW_SCRATCH0));
	writeq(0, kgni_fma_reg(kdev, d, GEMINI_FMA_QW_SCRATCH1));
	writeq(KGNI_FMA_STAT_CLEAR,
	       kgni_fma_reg(kdev, d, GEMINI_FMA_QW_STATUS));
	writeq(mode2 << GEMINI_FMA_MODE2_SHIFT,
	       kgni_fma_reg(kdev, d, GEMINI_FMA_QW_CMD));
}

/* Point the device at the GART table (@n entries at @dma; 0: off). */
static void kgni_gart_program(struct kgni_dev *kdev, dma_addr_t dma, u32 n)
{
	kgni_wr(kdev, VGEMINI_CTL_GART_ENTRIES, 0);
	kgni_wr(kdev, VGEMINI_CTL_GART_BASE, lower_32_bits(dma));
	kgni_wr(kdev, VGEMINI_CTL_GART_BASE + 4, upper_32_bits(dma));
	kgni_wr(kdev, VGEMINI_CTL_GART_ENTRIES, n);
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
 * Whatever an earlier driver left: every MDD invalid, every CQ and general
 * FMA descriptor disabled.  Then the GART table is allocated and given to
 * the device.
 *
 * Return: 0, -ENOMEM, or -ENODEV for a device without a GART.
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
	for (i = 0; i < GEMINI_NUM_FMA; i++)
		kgni_fma_program(kdev, i, 0, 0);
	set_bit(0, kdev->cq_map);	/* MDDs' cqh 0: never a live CQ */
	ret = kgni_gart_init(kdev);
	if (ret)
		kgni_dp_unmap(kdev);
	return ret;
}

/**
 * kgni_dp_stop() - stop the device's access to registered memory
 * @kdev: the device, at remove, before kgni_ioctl_shutdown()
 *
 * Turns the GART off: from then on a request into any registration fails
 * its translation, so files released after the device is marked gone
 * (which no longer touch it) can unpin their pages safely.
 */
void kgni_dp_stop(struct kgni_dev *kdev)
{
	kgni_wr(kdev, VGEMINI_CTL_GART_ENTRIES, 0);
	kgni_rd(kdev, VGEMINI_CTL_GART_ENTRIES);
}

/*
 * Unmap the tables and free the GART (remove, after kgni_ioctl_shutdown():
 * registrations that files still hold no longer touch the GART).
 */
void kgni_dp_unmap(struct kgni_dev *kdev)
{
	mutex_lock(&kdev->dp_lock);
	kgni_gart_fini(kdev);
	if (kdev->mmr)
		pci_iounmap(kdev->pdev, kdev->mmr);
	if (kdev->fma_priv)
		pci_iounmap(kdev->pdev, kdev->fma_priv);
	kdev->mmr = NULL;
	kdev->fma_priv = NULL;
	mutex_unlock(&kdev->dp_lock);
}

/* Remove every user mapping of [off, off + len) of the device's files. */
static void kgni_zap(struct file *file, u64 off, u64 len)
{
	if (file)
		unmap_mapping_range(file->f_mapping, off, len, 1);
}

/* A CQ of the file (dp_lock held); CQ 0 is nobody's. */
static struct kgni_cq *kgni_cq_find(struct kgni_file *kfile, u32 id)
{
	struct kgni_cq *cq;

	list_for_each_entry(cq, &kfile->cqs, node)
		if (cq->id == id)
			return cq;
	return NULL;
}

/* Object teardown; dp_lock held; @live: the device may be touched */

static void kgni_mem_free(struct kgni_dev *kdev, struct kgni_mem *mem,
			  bool live)
{
	unsigned long i;

	if (live) {
		kgni_mdd_write(kdev, mem->mdh, 0, 0);
		/* Flush: no request uses the entries or pages after this. */
		readq(kgni_mmr(kdev, GEMINI_MMR_MDD_ENTRY(mem->mdh)) + 8);
		for (i = 0; i < mem->npages; i++)
			kdev->gart[mem->gart_first + i] = 0;
		bitmap_clear(kdev->gart_map, mem->gart_first, mem->npages);
	}
	/* Not live: remove has taken the GART from the device and freed it. */
	clear_bit(mem->mdh, kdev->mdd_map);
	if (mem->cq)
		mem->cq->users--;
	unpin_user_pages_dirty_lock(mem->pages, mem->npages, true);
	atomic64_sub(mem->npages, &mem->mm->pinned_vm);
	mmdrop(mem->mm);
	kvfree(mem->pages);
	list_del(&mem->node);
	kfree(mem);
}

static unsigned long kgni_cq_pages(const struct kgni_cq *cq)
{
	return cq->ring_size >> PAGE_SHIFT;
}

/*
 * The last reference: the device has not used the ring since the CQ was
 * destroyed, and no mapping is left of the ring or of the CQ's user page.
 */
static void kgni_cq_put(struct kgni_cq *cq)
{
	struct kgni_dev *kdev = cq->kdev;

	if (!refcount_dec_and_test(&cq->ref))
		return;
	dma_free_coherent(&kdev->pdev->dev, cq->ring_size, cq->ring, cq->dma);
	atomic64_sub(kgni_cq_pages(cq), &cq->mm->pinned_vm);
	mmdrop(cq->mm);
	clear_bit(cq->id, kdev->cq_map);
	kfree(cq);
}

static void kgni_cq_free(struct kgni_dev *kdev, struct kgni_file *kfile,
			 struct kgni_cq *cq, bool live)
{
	kgni_zap(kfile->file, kgni_map_offset(KGNI_MAP_CQ_RING, cq->id),
		 cq->ring_size);
	kgni_zap(kfile->file, kgni_map_offset(KGNI_MAP_CQ_USER, cq->id),
		 PAGE_SIZE);
	if (live) {
		kgni_cq_write(kdev, cq->id, 0, 0, 0);
		/* Flush: the device writes no entry into the ring after this. */
		readq(kgni_mmr(kdev, GEMINI_MMR_CQ_DESC_ENTRY(cq->id)) + 8);
	}
	list_del(&cq->node);
	kfile->ncq--;
	if (kfile->attached)
		kdev->jobs[kfile->job].ncq--;
	/* A waiter sees it dead and lets go of it. */
	WRITE_ONCE(cq->dead, true);
	if (cq->blocking)
		wake_up_all(&kdev->cq_wq);
	kgni_cq_put(cq);
}

static void kgni_fma_put(struct kgni_fma *fma)
{
	if (!refcount_dec_and_test(&fma->ref))
		return;
	if (!fma->stuck)
		clear_bit(fma->id, fma->kdev->fma_map);
	kfree(fma);
}

/* The SSIDs descriptor @d holds: sequences not ended yet */
static unsigned int kgni_fma_ssids(struct kgni_dev *kdev, u32 d)
{
	u64 st = readq(kgni_fma_reg(kdev, d, GEMINI_FMA_QW_STATUS));

	return (st >> GEMINI_FMA_STAT_SSID_SHIFT) & GEMINI_FMA_STAT_SSID_MASK;
}

/*
 * Free FMA descriptors @fma[0..n-1] (dp_lock held): remove their mappings,
 * disable them, then wait until their sequences have ended, so that no
 * completion of the old owner can reach a later owner of the descriptor
 * or of the CQ it names.  The device ends every sequence of a disabled
 * descriptor within GEMINI_FMA_TIMEOUT_MS; one still busy after that is
 * never given out again.
 */
static void kgni_fmas_free(struct kgni_dev *kdev, struct kgni_file *kfile,
			   struct kgni_fma **fma, unsigned int n, bool live)
{
	static const enum kgni_map_kind win[] = {
		KGNI_MAP_FMA_PUT_WC, KGNI_MAP_FMA_PUT_UC, KGNI_MAP_FMA_GET,
	};
	unsigned long deadline = jiffies +
		msecs_to_jiffies(GEMINI_FMA_TIMEOUT_MS + 1000);
	unsigned int i, k, busy;

	for (i = 0; i < n; i++) {
		kgni_zap(kfile->file,
			 kgni_map_offset(KGNI_MAP_FMA_USER, fma[i]->id),
			 PAGE_SIZE);
		for (k = 0; k < ARRAY_SIZE(win); k++)
			kgni_zap(kfile->file,
				 kgni_map_offset(win[k], fma[i]->id),
				 KGNI_FMA_MAP_SIZE);
		if (live)
			kgni_fma_program(kdev, fma[i]->id, 0, 0);
	}
	for (;;) {
		busy = 0;
		for (i = 0; live && i < n; i++)
			busy += !!kgni_fma_ssids(kdev, fma[i]->id);
		if (!busy || time_after(jiffies, deadline))
			break;
		usleep_range(200, 2000);
	}
	for (i = 0; i < n; i++) {
		if (busy && kgni_fma_ssids(kdev, fma[i]->id)) {
			dev_warn(&kdev->pdev->dev,
				 "FMA descriptor %u still busy %u ms after it was disabled: not used again\n",
				 fma[i]->id, GEMINI_FMA_TIMEOUT_MS + 1000);
			fma[i]->stuck = true;
		}
		fma[i]->cq->users--;
		list_del(&fma[i]->node);
		kgni_fma_put(fma[i]);
	}
}

/* Every FMA descriptor of @kfile (dp_lock held) */
static void kgni_fmas_free_all(struct kgni_dev *kdev, struct kgni_file *kfile,
			       bool live)
{
	struct kgni_fma *batch[16], *fma;
	unsigned int n;

	do {
		n = 0;
		list_for_each_entry(fma, &kfile->fmas, node) {
			batch[n++] = fma;
			if (n == ARRAY_SIZE(batch))
				break;
		}
		if (n)
			kgni_fmas_free(kdev, kfile, batch, n, live);
	} while (n);
}

/*
 * Undo every object of @kfile (dp_lock held): descriptors and
 * registrations before the CQs they name.
 */
static void kgni_file_teardown(struct kgni_dev *kdev, struct kgni_file *kfile,
			       bool live)
{
	struct kgni_mem *mem, *mem_next;
	struct kgni_cq *cq, *cq_next;

	kgni_fmas_free_all(kdev, kfile, live);
	list_for_each_entry_safe(mem, mem_next, &kfile->mems, node)
		kgni_mem_free(kdev, mem, live);
	list_for_each_entry_safe(cq, cq_next, &kfile->cqs, node)
		kgni_cq_free(kdev, kfile, cq, live);
}

/**
 * kgni_file_release() - undo every object of a file
 * @kfile: the file being released
 * @file: its struct file
 *
 * No mapping of the file is left (each holds the file).  After remove the
 * device is not touched; the memory is still unpinned and freed.
 */
void kgni_file_release(struct kgni_file *kfile, struct file *file)
{
	struct kgni_dev *kdev = kfile->kdev;
	bool live;

	down_read(&kdev->ctl_rwsem);
	live = !READ_ONCE(kdev->gone);
	mutex_lock(&kdev->dp_lock);
	kgni_file_teardown(kdev, kfile, live);
	list_del(&kfile->node);
	mutex_unlock(&kdev->dp_lock);
	up_read(&kdev->ctl_rwsem);
}

/**
 * kgni_dp_free_jobs() - drop the jobs' cgroups (the device's last put)
 * @kdev: the device
 */
void kgni_dp_free_jobs(struct kgni_dev *kdev)
{
	int i;

	for (i = 0; i < KGNI_MAX_JOBS; i++)
		if (kdev->jobs[i].used)
			cgroup_put(kdev->jobs[i].cgrp);
}

/*
 * What the data path allows @kfile (dp_lock held): 0, -EPERM without a
 * CDM, -ENOLINK once its job was released.
 */
static int kgni_file_usable(const struct kgni_file *kfile)
{
	if (kfile->revoked)
		return -ENOLINK;
	return kfile->attached ? 0 : -EPERM;
}

/* Jobs and CDMs */

/* Revoke every attachment to job @i (dp_lock held; the slot is freed). */
static void kgni_job_revoke(struct kgni_dev *kdev, int i)
{
	struct kgni_job *job = &kdev->jobs[i];
	struct kgni_file *kfile;
	bool live = !READ_ONCE(kdev->gone);

	list_for_each_entry(kfile, &kdev->files, node) {
		if (!kfile->attached || kfile->revoked || kfile->job != i ||
		    kfile->job_gen != job->gen)
			continue;
		kgni_file_teardown(kdev, kfile, live);
		kfile->revoked = true;
	}
	cgroup_put(job->cgrp);
	job->cgrp = NULL;
	job->used = false;
}

int kgni_ioctl_job_configure(struct kgni_ucmd *ucmd)
{
	struct kgni_job_configure *cmd = ucmd->cmd;
	struct kgni_dev *kdev = ucmd->kdev;
	struct kgni_job *job, *free = NULL;
	struct cgroup *cgrp = NULL;
	kuid_t uid = INVALID_UID;
	int i, ret = 0;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (cmd->flags & ~KGNI_JOB_RELEASE || cmd->reserved || cmd->reserved2)
		return -EINVAL;
	if (cmd->ptag == 0 || cmd->ptag >= GEMINI_NUM_PTAG)
		return -EINVAL;
	if (!(cmd->flags & KGNI_JOB_RELEASE)) {
		uid = make_kuid(current_user_ns(), cmd->uid);
		if (!uid_valid(uid))
			return -EINVAL;
		cgrp = cgroup_get_from_fd(cmd->cgroup_fd);
		if (IS_ERR(cgrp))
			return -EBADF;
	}

	mutex_lock(&kdev->dp_lock);
	for (i = 0; i < KGNI_MAX_JOBS; i++) {
		job = &kdev->jobs[i];
		if (!job->used) {
			if (!free)
				free = job;
			continue;
		}
		if (job->ptag == cmd->ptag && job->cookie == cmd->cookie)
			break;
	}
	if (cmd->flags & KGNI_JOB_RELEASE) {
		if (i < KGNI_MAX_JOBS)
			kgni_job_revoke(kdev, i);
		else
			ret = -EINVAL;
	} else if (i < KGNI_MAX_JOBS) {
		/* Its ranks are bound already: no second binding. */
		ret = -EBUSY;
	} else if (free) {
		free->ptag = cmd->ptag;
		free->cookie = cmd->cookie;
		free->uid = uid;
		free->cgrp = cgrp;
		free->ncq = 0;
		free->gen = ++kdev->job_gen ? kdev->job_gen : ++kdev->job_gen;
		free->used = true;
		cgrp = NULL;
	} else {
		ret = -ENOSPC;
	}
	mutex_unlock(&kdev->dp_lock);
	if (cgrp)
		cgroup_put(cgrp);
	return ret;
}

/* Is the calling process one of @job's ranks: its user, in its cgroup? */
static bool kgni_job_member(const struct kgni_job *job)
{
	bool in;

	if (!uid_eq(current_euid(), job->uid) ||
	    !uid_eq(current_uid(), job->uid))
		return false;
	rcu_read_lock();
	in = cgroup_is_descendant(task_dfl_cgroup(current), job->cgrp);
	rcu_read_unlock();
	return in;
}

int kgni_ioctl_cdm_attach(struct kgni_ucmd *ucmd)
{
	struct kgni_cdm_attach *cmd = ucmd->cmd;
	struct kgni_file *kfile = ucmd->kfile;
	struct kgni_dev *kdev = ucmd->kdev;
	int i, ret = -EPERM;

	if (cmd->flags)
		return -EINVAL;
	if (cmd->ptag == 0 || cmd->ptag >= GEMINI_NUM_PTAG)
		return -EINVAL;

	mutex_lock(&kdev->dp_lock);
	if (kfile->attached) {
		ret = kfile->revoked ? -ENOLINK : -EBUSY;
		goto out;
	}
	for (i = 0; i < KGNI_MAX_JOBS; i++) {
		if (kdev->jobs[i].used && kdev->jobs[i].ptag == cmd->ptag &&
		    kdev->jobs[i].cookie == cmd->cookie)
			break;
	}
	/* Not told apart from a pair no job has: no probing for pairs. */
	if (i == KGNI_MAX_JOBS || !kgni_job_member(&kdev->jobs[i]))
		goto out;
	kfile->attached = true;
	kfile->job = i;
	kfile->job_gen = kdev->jobs[i].gen;
	kfile->ptag = cmd->ptag;
	kfile->cookie = cmd->cookie;
	kfile->inst_id = cmd->inst_id;
	ret = 0;
out:
	mutex_unlock(&kdev->dp_lock);
	if (ret)
		return ret;
	cmd->nic_pe = kgni_rd(kdev, VGEMINI_CTL_NODE_PE);
	return kgni_ucmd_respond(ucmd, sizeof(*cmd));
}

/* Memory registration */

static int kgni_pin(struct kgni_mem *mem, bool writable)
{
	unsigned int gup_flags = FOLL_LONGTERM | (writable ? FOLL_WRITE : 0);
	unsigned long done = 0;
	int ret;

	while (done < mem->npages) {
		ret = pin_user_pages_fast(mem->va + done * PAGE_SIZE,
					  min_t(unsigned long,
						mem->npages - done,
						PAGE_SIZE / sizeof(struct page *)),
					  gup_flags, mem->pages + done);
		if (ret <= 0) {
			unpin_user_pages(mem->pages, done);
			return ret ? ret : -EFAULT;
		}
		done += ret;
		if (fatal_signal_pending(current)) {
			unpin_user_pages(mem->pages, done);
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

int kgni_ioctl_mem_register(struct kgni_ucmd *ucmd)
{
	struct kgni_mem_register *cmd = ucmd->cmd;
	struct kgni_file *kfile = ucmd->kfile;
	struct kgni_dev *kdev = ucmd->kdev;
	bool writable = !(cmd->flags & KGNI_MEM_READONLY);
	unsigned long lock_limit, i;
	struct kgni_cq *cq = NULL;
	struct kgni_mem *mem;
	u64 end, base, modes;
	s64 pinned;
	int ret;
	u32 mdh;

	if (cmd->flags & ~KGNI_MEM_READONLY || cmd->mem_hndl[0] ||
	    cmd->mem_hndl[1] || cmd->reserved)
		return -EINVAL;
	if (!cmd->len || check_add_overflow(cmd->addr, cmd->len, &end) ||
	    end > TASK_SIZE)
		return -EINVAL;
	if ((PAGE_ALIGN(end) - (cmd->addr & PAGE_MASK)) >> PAGE_SHIFT >
	    KGNI_MEM_MAX_PAGES)
		return -EINVAL;
	/* Checked again below, when it is taken: it may go meanwhile. */
	mutex_lock(&kdev->dp_lock);
	ret = kgni_file_usable(kfile);
	if (!ret && cmd->cq_id && !kgni_cq_find(kfile, cmd->cq_id))
		ret = -EINVAL;
	mutex_unlock(&kdev->dp_lock);
	if (ret)
		return ret;

	mem = kzalloc(sizeof(*mem), GFP_KERNEL);
	if (!mem)
		return -ENOMEM;
	mem->va = cmd->addr & PAGE_MASK;
	mem->npages = (PAGE_ALIGN(end) - mem->va) >> PAGE_SHIFT;
	mem->pages = kvcalloc(mem->npages, sizeof(*mem->pages), GFP_KERNEL);
	if (!mem->pages) {
		ret = -ENOMEM;
		goto err_free;
	}

	/* RLIMIT_MEMLOCK, as drivers/infiniband/core/umem.c counts it */
	mem->mm = current->mm;
	mmgrab(mem->mm);
	lock_limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	pinned = atomic64_add_return(mem->npages, &mem->mm->pinned_vm);
	if (pinned > lock_limit && !capable(CAP_IPC_LOCK)) {
		ret = -ENOMEM;
		goto err_unaccount;
	}

	ret = kgni_pin(mem, writable);
	if (ret)
		goto err_unaccount;

	mutex_lock(&kdev->dp_lock);
	/* The job may have been released while the pages were pinned. */
	ret = kgni_file_usable(kfile);
	if (ret)
		goto err_unlock;
	if (cmd->cq_id) {
		cq = kgni_cq_find(kfile, cmd->cq_id);
		if (!cq) {
			ret = -EINVAL;
			goto err_unlock;
		}
	}
	mdh = find_first_zero_bit(kdev->mdd_map, GEMINI_NUM_MDD);
	if (mdh >= GEMINI_NUM_MDD ||
	    !kgni_gart_alloc(kdev, mem->npages, &mem->gart_first)) {
		ret = -ENOSPC;
		goto err_unlock;
	}
	set_bit(mdh, kdev->mdd_map);
	mem->mdh = mdh;
	mem->cq = cq;
	if (cq)
		cq->users++;
	/*
	 * One GART entry per page, then the MDD over them (writeq orders the
	 * entries before it).  No IOMMU in front of the device: bus address
	 * = physical address.
	 */
	for (i = 0; i < mem->npages; i++) {
		phys_addr_t phys = page_to_phys(mem->pages[i]);

		kdev->gart[mem->gart_first + i] =
			cpu_to_le64(VGEMINI_GART_ENTRY(phys));
	}
	base = VGEMINI_GART_ADDR(mem->gart_first);
	modes = GEMINI_MDD_MODE_VALID |
		(writable ? GEMINI_MDD_MODE_WRITABLE : 0);
	kgni_mdd_write(kdev, mdh, GEMINI_MDD_QW1(kfile->ptag, base, 0),
		       GEMINI_MDD_QW2(modes,
				      base + mem->npages * PAGE_SIZE - 1,
				      cq ? cq->id : 0));

	mem->hndl[0] = ((mem->va >> PAGE_SHIFT) & KGNI_MH_VA_MASK) |
		       ((u64)mdh << KGNI_MH_MDH_SHIFT);
	mem->hndl[1] = (mem->npages & KGNI_MH_NPAGES_MASK) |
		       ((u64)PAGE_SHIFT << KGNI_MH_PSIZE_SHIFT) |
		       ((KGNI_MH_FLAG_GART |
			 (writable ? 0 : KGNI_MH_FLAG_READONLY)) <<
			KGNI_MH_FLAGS_SHIFT);
	mem->hndl[1] |= (u64)kgni_mh_crc(mem->hndl) << KGNI_MH_CRC_SHIFT;
	list_add_tail(&mem->node, &kfile->mems);
	cmd->mem_hndl[0] = mem->hndl[0];
	cmd->mem_hndl[1] = mem->hndl[1];
	mutex_unlock(&kdev->dp_lock);
	/*
	 * On EFAULT here the registration stays, owned by the file, and is
	 * undone when the file is released.
	 */
	return kgni_ucmd_respond(ucmd, sizeof(*cmd));

err_unlock:
	mutex_unlock(&kdev->dp_lock);
	unpin_user_pages(mem->pages, mem->npages);
err_unaccount:
	atomic64_sub(mem->npages, &mem->mm->pinned_vm);
	mmdrop(mem->mm);
	kvfree(mem->pages);
err_free:
	kfree(mem);
	return ret;
}

int kgni_ioctl_mem_deregister(struct kgni_ucmd *ucmd)
{
	struct kgni_mem_deregister *cmd = ucmd->cmd;
	struct kgni_file *kfile = ucmd->kfile;
	struct kgni_dev *kdev = ucmd->kdev;
	struct kgni_mem *mem;
	u64 h[2];
	int ret = -EINVAL;

	if (cmd->flags)
		return -EINVAL;
	h[0] = cmd->mem_hndl[0];
	h[1] = cmd->mem_hndl[1] & ~(0xffull << KGNI_MH_CRC_SHIFT);
	if (kgni_mh_crc(h) != cmd->mem_hndl[1] >> KGNI_MH_CRC_SHIFT)
		return -EINVAL;

	mutex_lock(&kdev->dp_lock);
	if (kfile->revoked)
		ret = -ENOLINK;
	list_for_each_entry(mem, &kfile->mems, node) {
		if (mem->hndl[0] == cmd->mem_hndl[0] &&
		    mem->hndl[1] == cmd->mem_hndl[1]) {
			kgni_mem_free(kdev, mem, true);
			ret = 0;
			break;
		}
	}
	mutex_unlock(&kdev->dp_lock);
	return ret;
}

/* Completion queues */

int kgni_ioctl_cq_create(struct kgni_ucmd *ucmd)
{
	struct kgni_cq_create *cmd = ucmd->cmd;
	struct kgni_file *kfile = ucmd->kfile;
	struct kgni_dev *kdev = ucmd->kdev;
	u64 qw2, qw3_flags = 0;
	unsigned long lock_limit;
	struct kgni_cq *cq;
	s64 pinned;
	int ret;
	u32 id;

	if (cmd->flags & ~KGNI_CQ_BLOCKING || cmd->cq_id || cmd->ring_offset ||
	    cmd->ring_size || cmd->user_offset)
		return -EINVAL;
	if (cmd->entries < GEMINI_CQ_MIN_MAX_INDEX + 1 ||
	    cmd->entries > KGNI_CQ_MAX_ENTRIES)
		return -EINVAL;

	cq = kzalloc(sizeof(*cq), GFP_KERNEL);
	if (!cq)
		return -ENOMEM;
	cq->kdev = kdev;
	cq->entries = cmd->entries;
	cq->blocking = cmd->flags & KGNI_CQ_BLOCKING;
	refcount_set(&cq->ref, 1);
	cq->ring_size = PAGE_ALIGN((size_t)cmd->entries * GEMINI_CQ_ENTRY_BYTES);

	/* The ring is pinned kernel memory: charged as registrations are. */
	cq->mm = current->mm;
	mmgrab(cq->mm);
	lock_limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	pinned = atomic64_add_return(kgni_cq_pages(cq), &cq->mm->pinned_vm);
	if (pinned > lock_limit && !capable(CAP_IPC_LOCK)) {
		ret = -ENOMEM;
		goto err_unaccount;
	}
	/* Page-aligned, so GEMINI_CQ_ALIGN-aligned; zeroed. */
	cq->ring = dma_alloc_coherent(&kdev->pdev->dev, cq->ring_size,
				      &cq->dma, GFP_KERNEL | __GFP_NOWARN);
	if (!cq->ring) {
		ret = -ENOMEM;
		goto err_unaccount;
	}

	mutex_lock(&kdev->dp_lock);
	ret = kgni_file_usable(kfile);
	if (ret)
		goto err_unlock;
	if (kfile->ncq >= KGNI_MAX_CQS_PER_FILE ||
	    kdev->jobs[kfile->job].ncq >= KGNI_MAX_CQS_PER_JOB) {
		ret = -EDQUOT;
		goto err_unlock;
	}
	id = find_first_zero_bit(kdev->cq_map, GEMINI_NUM_CQ);
	if (id >= GEMINI_NUM_CQ) {
		ret = -ENOSPC;
		goto err_unlock;
	}
	set_bit(id, kdev->cq_map);
	cq->id = id;
	kfile->ncq++;
	kdev->jobs[kfile->job].ncq++;
	qw2 = ((u64)(cq->entries - 1) << GEMINI_CQ_MAX_INDEX_SHIFT) |
	      GEMINI_CQ_ENABLE;
	if (cq->blocking) {
		/* Threshold 0: an interrupt for every entry written. */
		qw2 |= (u64)(GEMINI_IRQ_FIRST + kdev->cq_vector) <<
		       GEMINI_CQ_IRQ_INDEX_SHIFT;
		qw3_flags = GEMINI_CQ_IRQ_REQ;
	}
	kgni_cq_write(kdev, id, cq->dma & GEMINI_CQ_BASE_MASK, qw2, qw3_flags);
	list_add_tail(&cq->node, &kfile->cqs);
	cmd->cq_id = id;
	cmd->ring_offset = kgni_map_offset(KGNI_MAP_CQ_RING, id);
	cmd->ring_size = cq->ring_size;
	cmd->user_offset = kgni_map_offset(KGNI_MAP_CQ_USER, id);
	mutex_unlock(&kdev->dp_lock);
	return kgni_ucmd_respond(ucmd, sizeof(*cmd));

err_unlock:
	mutex_unlock(&kdev->dp_lock);
	dma_free_coherent(&kdev->pdev->dev, cq->ring_size, cq->ring, cq->dma);
err_unaccount:
	atomic64_sub(kgni_cq_pages(cq), &cq->mm->pinned_vm);
	mmdrop(cq->mm);
	kfree(cq);
	return ret;
}

int kgni_ioctl_cq_destroy(struct kgni_ucmd *ucmd)
{
	struct kgni_cq_destroy *cmd = ucmd->cmd;
	struct kgni_file *kfile = ucmd->kfile;
	struct kgni_dev *kdev = ucmd->kdev;
	struct kgni_cq *cq;
	int ret = 0;

	if (cmd->flags || cmd->reserved)
		return -EINVAL;
	mutex_lock(&kdev->dp_lock);
	cq = kgni_cq_find(kfile, cmd->cq_id);
	if (kfile->revoked)
		ret = -ENOLINK;
	else if (!cq)
		ret = -EINVAL;
	else if (cq->users)
		ret = -EBUSY;
	else
		kgni_cq_free(kdev, kfile, cq, true);
	mutex_unlock(&kdev->dp_lock);
	return ret;
}

/*
 * Has the CQ an event the consumer has not taken?  Its descriptor's QW1
 * holds the consumer's rd_index and the device's wr_index, live.  Once the
 * CQ is dead or the device gone, the caller's checks decide.
 */
static bool kgni_cq_wait_done(struct kgni_dev *kdev, struct kgni_cq *cq)
{
	u64 qw1;

	if (READ_ONCE(cq->dead) || READ_ONCE(kdev->gone))
		return true;
	qw1 = readq(kgni_mmr(kdev, GEMINI_MMR_CQ_DESC_ENTRY(cq->id)));
	return ((qw1 >> GEMINI_CQ_RD_INDEX_SHIFT) & GEMINI_CQ_INDEX_MASK) !=
	       ((qw1 >> GEMINI_CQ_WR_INDEX_SHIFT) & GEMINI_CQ_INDEX_MASK);
}

int kgni_ioctl_cq_wait(struct kgni_ucmd *ucmd)
{
	struct kgni_cq_wait *cmd = ucmd->cmd;
	struct kgni_file *kfile = ucmd->kfile;
	struct kgni_dev *kdev = ucmd->kdev;
	struct kgni_cq *cq;
	long left;
	int ret;

	if (cmd->flags)
		return -EINVAL;
	mutex_lock(&kdev->dp_lock);
	cq = kgni_cq_find(kfile, cmd->cq_id);
	if (!cq || !cq->blocking) {
		mutex_unlock(&kdev->dp_lock);
		return kfile->revoked ? -ENOLINK : -EINVAL;
	}
	/* Destruction may free the CQ meanwhile; the structure stays ours. */
	refcount_inc(&cq->ref);
	mutex_unlock(&kdev->dp_lock);

	/*
	 * Sleeps with ctl_rwsem held for reading, as a ping does: remove
	 * wakes it (gone) before it waits for the ioctls.  The interrupt
	 * comes after the device has moved wr_index.
	 */
	if (cmd->timeout_ms == KGNI_CQ_WAIT_FOREVER) {
		ret = wait_event_interruptible(kdev->cq_wq,
					       kgni_cq_wait_done(kdev, cq));
		left = ret ? ret : 1;
	} else {
		left = msecs_to_jiffies(cmd->timeout_ms);
		left = wait_event_interruptible_timeout(kdev->cq_wq,
				kgni_cq_wait_done(kdev, cq), left);
	}
	if (READ_ONCE(cq->dead))
		ret = -EINVAL;
	else if (READ_ONCE(kdev->gone))
		ret = -ENODEV;
	else if (left < 0)
		ret = -EINTR;
	else if (!left)
		ret = -ETIMEDOUT;
	else
		ret = 0;
	kgni_cq_put(cq);
	return ret;
}

/* FMA descriptors */

int kgni_ioctl_fma_alloc(struct kgni_ucmd *ucmd)
{
	struct kgni_fma_alloc *cmd = ucmd->cmd;
	struct kgni_file *kfile = ucmd->kfile;
	struct kgni_dev *kdev = ucmd->kdev;
	struct kgni_fma *fma;
	struct kgni_cq *cq;
	int ret = 0;
	u64 qw3;
	u32 d;

	if (cmd->flags || cmd->fma_id || cmd->user_offset ||
	    cmd->put_wc_offset || cmd->put_uc_offset || cmd->get_offset ||
	    cmd->window_size)
		return -EINVAL;

	fma = kzalloc(sizeof(*fma), GFP_KERNEL);
	if (!fma)
		return -ENOMEM;
	refcount_set(&fma->ref, 1);
	fma->kdev = kdev;
	mutex_lock(&kdev->dp_lock);
	ret = kgni_file_usable(kfile);
	if (ret)
		goto err_unlock;
	cq = kgni_cq_find(kfile, cmd->cq_id);
	if (!cq) {
		ret = -EINVAL;
		goto err_unlock;
	}
	d = find_first_zero_bit(kdev->fma_map, GEMINI_NUM_FMA);
	if (d >= GEMINI_NUM_FMA) {
		ret = -ENOSPC;
		goto err_unlock;
	}
	set_bit(d, kdev->fma_map);
	fma->id = d;
	fma->cq = cq;
	cq->users++;
	qw3 = ((u64)cq->id << GEMINI_FMA_CQH_SHIFT) |
	      ((u64)kfile->ptag << GEMINI_FMA_SRC_PTAG_SHIFT) |
	      ((u64)kfile->ptag << GEMINI_FMA_DEST_PTAG_SHIFT);
	kgni_fma_program(kdev, d, qw3, GEMINI_FMA_MODE2_FMA_ENABLE);
	list_add_tail(&fma->node, &kfile->fmas);
	cmd->fma_id = d;
	cmd->user_offset = kgni_map_offset(KGNI_MAP_FMA_USER, d);
	cmd->put_wc_offset = kgni_map_offset(KGNI_MAP_FMA_PUT_WC, d);
	cmd->put_uc_offset = kgni_map_offset(KGNI_MAP_FMA_PUT_UC, d);
	cmd->get_offset = kgni_map_offset(KGNI_MAP_FMA_GET, d);
	cmd->window_size = KGNI_FMA_MAP_SIZE;
	mutex_unlock(&kdev->dp_lock);
	return kgni_ucmd_respond(ucmd, sizeof(*cmd));

err_unlock:
	mutex_unlock(&kdev->dp_lock);
	kfree(fma);
	return ret;
}

int kgni_ioctl_fma_free(struct kgni_ucmd *ucmd)
{
	struct kgni_fma_free *cmd = ucmd->cmd;
	struct kgni_file *kfile = ucmd->kfile;
	struct kgni_dev *kdev = ucmd->kdev;
	struct kgni_fma *fma;
	int ret = -EINVAL;

	if (cmd->flags || cmd->reserved)
		return -EINVAL;
	mutex_lock(&kdev->dp_lock);
	if (kfile->revoked)
		ret = -ENOLINK;
	list_for_each_entry(fma, &kfile->fmas, node) {
		if (fma->id == cmd->fma_id) {
			kgni_fmas_free(kdev, kfile, &fma, 1, true);
			ret = 0;
			break;
		}
	}
	mutex_unlock(&kdev->dp_lock);
	return ret;
}

/* mmap */

/*
 * Each mapping holds a reference on its object (see the top of the file),
 * its copies too (fork, split).  No fault handler: a page of a mapping
 * that kgni_zap() removed is not mapped again, its access is SIGBUS.
 */
static void kgni_cq_vm_open(struct vm_area_struct *vma)
{
	struct kgni_cq *cq = vma->vm_private_data;

	refcount_inc(&cq->ref);
}

static void kgni_cq_vm_close(struct vm_area_struct *vma)
{
	kgni_cq_put(vma->vm_private_data);
}

static const struct vm_operations_struct kgni_cq_vm_ops = {
	.open = kgni_cq_vm_open,
	.close = kgni_cq_vm_close,
};

static void kgni_fma_vm_open(struct vm_area_struct *vma)
{
	struct kgni_fma *fma = vma->vm_private_data;

	refcount_inc(&fma->ref);
}

static void kgni_fma_vm_close(struct vm_area_struct *vma)
{
	kgni_fma_put(vma->vm_private_data);
}

static const struct vm_operations_struct kgni_fma_vm_ops = {
	.open = kgni_fma_vm_open,
	.close = kgni_fma_vm_close,
};

static struct kgni_fma *kgni_fma_find(struct kgni_file *kfile, u32 id)
{
	struct kgni_fma *fma;

	list_for_each_entry(fma, &kfile->fmas, node)
		if (fma->id == id)
			return fma;
	return NULL;
}

static int kgni_mmap_locked(struct kgni_file *kfile,
			    struct vm_area_struct *vma)
{
	struct kgni_dev *kdev = kfile->kdev;
	u64 off = (u64)vma->vm_pgoff << PAGE_SHIFT;
	u64 len = vma->vm_end - vma->vm_start;
	u32 kind = off >> KGNI_MAP_KIND_SHIFT;
	u32 id = (off >> KGNI_MAP_ID_SHIFT) & KGNI_MAP_ID_MASK;
	u64 rel = off & KGNI_MAP_REL_MASK;
	pgprot_t prot = pgprot_noncached(vma->vm_page_prot);
	struct kgni_fma *fma = NULL;
	struct kgni_cq *cq = NULL;
	unsigned long pgoff;
	u64 bar_off, size;
	int ret;

	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	if (kfile->revoked)
		return -ENOLINK;

	switch (kind) {
	case KGNI_MAP_CQ_RING:
		cq = kgni_cq_find(kfile, id);
		if (!cq || rel >= cq->ring_size || len > cq->ring_size - rel)
			return -EINVAL;
		/*
		 * Writable: the consumer zeroes each entry it takes, which is
		 * how it tells new entries from old ones after a lap.  The
		 * device only writes the ring, so the owner can hurt nobody.
		 */
		/* dma_mmap_coherent() takes vm_pgoff as the offset in it */
		pgoff = vma->vm_pgoff;
		vma->vm_pgoff = rel >> PAGE_SHIFT;
		ret = dma_mmap_coherent(&kdev->pdev->dev, vma, cq->ring,
					cq->dma, cq->ring_size);
		vma->vm_pgoff = pgoff;
		goto out;
	case KGNI_MAP_CQ_USER:
		cq = kgni_cq_find(kfile, id);
		if (!cq)
			return -EINVAL;
		bar_off = GEMINI_CQ_USER_PAGE(id);
		size = PAGE_SIZE;
		break;
	case KGNI_MAP_FMA_USER:
		fma = kgni_fma_find(kfile, id);
		if (!fma)
			return -EINVAL;
		bar_off = GEMINI_FMA_USER_PAGE(id);
		size = PAGE_SIZE;
		break;
	case KGNI_MAP_FMA_PUT_WC:
	case KGNI_MAP_FMA_PUT_UC:
	case KGNI_MAP_FMA_GET:
		fma = kgni_fma_find(kfile, id);
		if (!fma)
			return -EINVAL;
		bar_off = GEMINI_FMA_WINDOW(kind == KGNI_MAP_FMA_PUT_WC ?
					    GEMINI_FMA_PUT_WC :
					    kind == KGNI_MAP_FMA_PUT_UC ?
					    GEMINI_FMA_PUT_UC : GEMINI_FMA_GET,
					    id);
		size = KGNI_FMA_MAP_SIZE;
		if (kind == KGNI_MAP_FMA_PUT_WC)
			prot = pgprot_writecombine(vma->vm_page_prot);
		break;
	default:
		return -EINVAL;
	}
	if (rel >= size || len > size - rel)
		return -EINVAL;
	vma->vm_page_prot = prot;
	ret = io_remap_pfn_range(vma, vma->vm_start,
				 (kdev->nic_phys + bar_off + rel) >> PAGE_SHIFT,
				 len, prot);
out:
	if (ret)
		return ret;
	/* On failure mmap() calls no ->close: take the reference last. */
	if (fma) {
		refcount_inc(&fma->ref);
		vma->vm_private_data = fma;
		vma->vm_ops = &kgni_fma_vm_ops;
	} else {
		refcount_inc(&cq->ref);
		vma->vm_private_data = cq;
		vma->vm_ops = &kgni_cq_vm_ops;
	}
	return 0;
}

/**
 * kgni_mmap() - map a page range of an object of the file
 * @file: the file
 * @vma: the mapping; its offset is one KGNI_IOC_*_CREATE/ALLOC gave
 *
 * Return: 0, -ENODEV after remove, -EINVAL for an offset or size outside
 * an object of the file or a private mapping.
 */
int kgni_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct kgni_file *kfile = file->private_data;
	struct kgni_dev *kdev = kfile->kdev;
	int ret;

	/*
	 * mmap_lock is held: waiting here for ctl_rwsem behind remove's
	 * writer could deadlock with an ioctl that faults while holding it
	 * for reading.  Only remove takes it for writing, so failing to get
	 * it means the device is going.
	 */
	if (!down_read_trylock(&kdev->ctl_rwsem))
		return -ENODEV;
	if (READ_ONCE(kdev->gone)) {
		up_read(&kdev->ctl_rwsem);
		return -ENODEV;
	}
	mutex_lock(&kdev->dp_lock);
	ret = kgni_mmap_locked(kfile, vma);
	mutex_unlock(&kdev->dp_lock);
	up_read(&kdev->ctl_rwsem);
	return ret;
}
