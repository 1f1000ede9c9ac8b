// SPDX-License-Identifier: GPL-2.0-only
/*
 * kgni: mmap of the data path's objects, and the mappings' lifetime.
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
#include <linux/dma-mapping.h>
#include <linux/mm.h>

#include "kgni_dp.h"

/**
 * kgni_zap() - remove every user mapping of [off, off + len) of the
 *              device's files
 * @file: a file of the device, or NULL
 * @off: the mmap offset
 * @len: bytes
 */
void kgni_zap(struct file *file, u64 off, u64 len)
{
	if (file)
		unmap_mapping_range(file->f_mapping, off, len, 1);
}

/*
 * Each mapping holds a reference on its object (see the top of the file),
 * its copies too (fork, split).  A page of a mapping that kgni_zap()
 * removed is not mapped again, its access is SIGBUS; but for the FMA
 * pages of a suspended job (KGNI_IOC_JOB_SUSPEND), whose access waits
 * until the job is resumed and then maps the page again.
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

/* Where the FMA page of mmap offset @off is in the NIC's window */
static u64 kgni_fma_map_bar(u64 off)
{
	u32 kind = off >> KGNI_MAP_KIND_SHIFT;
	u32 id = (off >> KGNI_MAP_ID_SHIFT) & KGNI_MAP_ID_MASK;

	if (kind == KGNI_MAP_FMA_USER)
		return GEMINI_FMA_USER_PAGE(id);
	return GEMINI_FMA_WINDOW(kind == KGNI_MAP_FMA_PUT_WC ?
				 GEMINI_FMA_PUT_WC :
				 kind == KGNI_MAP_FMA_PUT_UC ?
				 GEMINI_FMA_PUT_UC : GEMINI_FMA_GET, id);
}

/*
 * An access to an FMA page that kgni_zap() removed: SIGBUS if the
 * descriptor was freed, its job released or the device is gone; if its job is suspended,
 * wait (killable, mmap_lock held for reading) until it is resumed; then
 * map the page again.  The page is mapped under dp.lock, so a suspension
 * that comes meanwhile (which zaps under dp.lock) removes it again.
 */
static vm_fault_t kgni_fma_vm_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct kgni_fma *fma = vma->vm_private_data;
	struct kgni_file *kfile = vma->vm_file->private_data;
	struct kgni_dev *kdev = kfile->kdev;
	struct kgni_dom *dom = &kfile->dom;
	u64 off = (u64)vma->vm_pgoff << PAGE_SHIFT;
	unsigned long pfn;
	vm_fault_t ret;

	for (;;) {
		mutex_lock(&kdev->dp.lock);
		if (READ_ONCE(kdev->gone) || dom->revoked ||
		    kgni_fma_find(dom, fma->id) != fma) {
			mutex_unlock(&kdev->dp.lock);
			return VM_FAULT_SIGBUS;
		}
		if (!kgni_dom_suspended(kdev, dom))
			break;
		mutex_unlock(&kdev->dp.lock);
		/* A fatal signal: the task dies without retrying the access. */
		if (wait_event_killable(kdev->dp.job_wq,
					!kgni_dom_suspended(kdev, dom) ||
					READ_ONCE(kdev->gone)))
			return VM_FAULT_NOPAGE;
	}
	pfn = (kdev->nic_phys + kgni_fma_map_bar(off) +
	       (off & KGNI_MAP_REL_MASK)) >> PAGE_SHIFT;
	pfn += (vmf->address - vma->vm_start) >> PAGE_SHIFT;
	ret = vmf_insert_pfn_prot(vma, vmf->address, pfn, vma->vm_page_prot);
	mutex_unlock(&kdev->dp.lock);
	return ret;
}

static const struct vm_operations_struct kgni_fma_vm_ops = {
	.open = kgni_fma_vm_open,
	.close = kgni_fma_vm_close,
	.fault = kgni_fma_vm_fault,
};

static int kgni_mmap_locked(struct kgni_file *kfile,
			    struct vm_area_struct *vma)
{
	struct kgni_dom *dom = &kfile->dom;
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
	if (dom->revoked)
		return -ENOLINK;

	switch (kind) {
	case KGNI_MAP_CQ_RING:
		cq = kgni_cq_find(dom, id);
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
		cq = kgni_cq_find(dom, id);
		if (!cq)
			return -EINVAL;
		bar_off = GEMINI_CQ_USER_PAGE(id);
		size = PAGE_SIZE;
		break;
	case KGNI_MAP_FMA_USER:
		fma = kgni_fma_find(dom, id);
		if (!fma)
			return -EINVAL;
		bar_off = GEMINI_FMA_USER_PAGE(id);
		size = PAGE_SIZE;
		break;
	case KGNI_MAP_FMA_PUT_WC:
	case KGNI_MAP_FMA_PUT_UC:
	case KGNI_MAP_FMA_GET:
		fma = kgni_fma_find(dom, id);
		if (!fma)
			return -EINVAL;
		bar_off = kgni_fma_map_bar(off);
		size = KGNI_FMA_MAP_SIZE;
		if (kind == KGNI_MAP_FMA_PUT_WC)
			prot = pgprot_writecombine(vma->vm_page_prot);
		break;
	default:
		return -EINVAL;
	}
	if (rel >= size || len > size - rel)
		return -EINVAL;
	/* A suspended job's FMA is not mapped (kgni_fma_vm_fault()). */
	if (fma && kgni_dom_suspended(kdev, dom))
		return -EAGAIN;
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
	mutex_lock(&kdev->dp.lock);
	ret = kgni_mmap_locked(kfile, vma);
	mutex_unlock(&kdev->dp.lock);
	up_read(&kdev->ctl_rwsem);
	return ret;
}
