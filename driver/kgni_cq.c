// SPDX-License-Identifier: GPL-2.0-only
/*
 * kgni: completion queues (KGNI_IOC_CQ_CREATE, _DESTROY, _WAIT).
 *
 * A CQ is a ring in kernel memory the device writes, mapped into the
 * process; a blocking one interrupts on cq_vector, and KGNI_IOC_CQ_WAIT
 * sleeps on cq_wq until it holds an event.
 */
#include <linux/capability.h>
#include <linux/dma-mapping.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/wait.h>

#include "kgni_dp.h"

/**
 * kgni_cq_write() - program a CQ descriptor
 * @kdev: the device
 * @cq: the CQ number
 * @base: the ring's device address
 * @qw2: the descriptor's QW2 (0: disabled)
 * @qw3_flags: flags of QW3, beside @base
 *
 * The descriptor is disabled first and its indices are reset.
 */
void kgni_cq_write(struct kgni_dev *kdev, u32 cq, u64 base, u64 qw2,
		   u64 qw3_flags)
{
	void __iomem *p = kgni_mmr(kdev, GEMINI_MMR_CQ_DESC_ENTRY(cq));

	writeq(0, p + 8);		/* disable */
	writeq(base | qw3_flags, p + 16);
	writeq(0, p);			/* indices */
	writeq(qw2, p + 8);
}

/**
 * kgni_cq_find() - a CQ of the domain; CQ 0 is nobody's
 * @dom: the domain
 * @id: the CQ number
 *
 * Context: dp.lock held.
 * Return: the CQ, or NULL.
 */
struct kgni_cq *kgni_cq_find(struct kgni_dom *dom, u32 id)
{
	struct kgni_cq *cq;

	list_for_each_entry(cq, &dom->cqs, node)
		if (cq->id == id)
			return cq;
	return NULL;
}

static unsigned long kgni_cq_pages(const struct kgni_cq *cq)
{
	return cq->ring_size >> PAGE_SHIFT;
}

/* Give back the ring's charge to its mm, if it was charged (user CQs). */
static void kgni_cq_uncharge(struct kgni_cq *cq)
{
	if (!cq->mm)
		return;
	atomic64_sub(kgni_cq_pages(cq), &cq->mm->pinned_vm);
	mmdrop(cq->mm);
}

/**
 * kgni_cq_kernel_vector() - the MSI-X vector of a kernel CQ's interrupts
 * @kdev: the device
 * @id: the CQ's number
 *
 * Kernel CQs take Gemini's second and third CQ interrupts (IRQs 30 and
 * 31, vectors 9 and 10) by the parity of their number; a device with too
 * few vectors for them gives them cq_vector, which blocking user CQs use.
 *
 * Return: the vector.
 */
unsigned int kgni_cq_kernel_vector(const struct kgni_dev *kdev, u32 id)
{
	unsigned int v = GEMINI_IRQ_VECTOR(GEMINI_IRQ_FIRST_CQ) + 1 + (id & 1);

	return v < kdev->irq.diag ? v : kdev->irq.cq;
}

/**
 * kgni_cq_put() - drop a reference on a CQ
 * @cq: the CQ
 *
 * The last reference: the device has not used the ring since the CQ was
 * destroyed, and no mapping is left of the ring or of the CQ's user page.
 * It frees the ring and gives the number back.
 */
void kgni_cq_put(struct kgni_cq *cq)
{
	struct kgni_dev *kdev = cq->kdev;

	if (!refcount_dec_and_test(&cq->ref))
		return;
	dma_free_coherent(&kdev->pdev->dev, cq->ring_size, cq->ring, cq->dma);
	kgni_cq_uncharge(cq);
	clear_bit(cq->id, kdev->cq.map);
	kfree(cq);
}

/**
 * kgni_cq_free() - destroy a CQ of the domain
 * @kdev: the device
 * @dom: the domain
 * @cq: the CQ; no descriptor, registration or RDMA post names it any more
 * @live: the device may be touched: the descriptor is disabled
 *
 * Its mappings are removed and its waiters woken; the last reference
 * frees it.
 *
 * Context: dp.lock held.
 */
void kgni_cq_free(struct kgni_dev *kdev, struct kgni_dom *dom,
		  struct kgni_cq *cq, bool live)
{
	kgni_zap(dom->file, kgni_map_offset(KGNI_MAP_CQ_RING, cq->id),
		 cq->ring_size);
	kgni_zap(dom->file, kgni_map_offset(KGNI_MAP_CQ_USER, cq->id),
		 PAGE_SIZE);
	if (live) {
		kgni_cq_write(kdev, cq->id, 0, 0, 0);
		/* Flush: the device writes no entry into the ring after this. */
		readq(kgni_mmr(kdev, GEMINI_MMR_CQ_DESC_ENTRY(cq->id)) + 8);
	}
	list_del(&cq->node);
	dom->ncq--;
	if (dom->attached)
		kdev->dp.jobs[dom->job].ncq--;
	/* A waiter sees it dead and lets go of it. */
	WRITE_ONCE(cq->dead, true);
	if (cq->blocking)
		wake_up_all(&kdev->cq.wq);
	kgni_cq_put(cq);
}

/**
 * kgni_cq_make() - make a CQ of the domain, a user's or a kernel client's
 * @kdev: the device
 * @dom: the domain
 * @entries: ring entries, 2 to KGNI_CQ_MAX_ENTRIES
 * @flags: KGNI_CQ_BLOCKING for a CQ whose events interrupt; KGNI_CQ_KERNEL
 *         for a kernel client's: its ring is charged to no RLIMIT and its
 *         interrupts go to kgni_cq_kernel_vector(), not cq_vector
 * @thresh: KGNI_CQ_BLOCKING: the descriptor's IRQ threshold, events
 *          before an interrupt minus one (0 to GEMINI_CQ_IRQ_THRESH_MASK)
 * @cqp: the CQ (a kernel client's only: a user's may be destroyed as soon
 *       as dp.lock is dropped), or NULL
 * @cq_id: the CQ's number
 * @ring_size: bytes of its ring (whole pages)
 *
 * A user CQ's ring is charged to the RLIMIT_MEMLOCK of the calling
 * process.
 *
 * Context: process context, may sleep; ctl_rwsem held for reading with
 * the device alive; takes dp.lock.
 * Return: as kgni_cq_create().
 */
int kgni_cq_make(struct kgni_dev *kdev, struct kgni_dom *dom, u32 entries,
		 u32 flags, u32 thresh, struct kgni_cq **cqp, u32 *cq_id,
		 size_t *ring_size)
{
	bool irq = flags & KGNI_CQ_BLOCKING;
	u64 qw2, qw3_flags = 0;
	unsigned long lock_limit;
	unsigned int vector;
	struct kgni_cq *cq;
	s64 pinned;
	int ret;
	u32 id;

	if (flags & ~(KGNI_CQ_BLOCKING | KGNI_CQ_KERNEL) ||
	    thresh > GEMINI_CQ_IRQ_THRESH_MASK)
		return -EINVAL;
	if (entries < GEMINI_CQ_MIN_MAX_INDEX + 1 ||
	    entries > KGNI_CQ_MAX_ENTRIES)
		return -EINVAL;

	cq = kzalloc(sizeof(*cq), GFP_KERNEL);
	if (!cq)
		return -ENOMEM;
	cq->kdev = kdev;
	cq->entries = entries;
	/* Only a user's blocking CQ has waiters (KGNI_IOC_CQ_WAIT). */
	cq->blocking = irq && !(flags & KGNI_CQ_KERNEL);
	refcount_set(&cq->ref, 1);
	cq->ring_size = PAGE_ALIGN((size_t)entries * GEMINI_CQ_ENTRY_BYTES);

	/* A user's ring is pinned memory: charged as registrations are. */
	if (!(flags & KGNI_CQ_KERNEL)) {
		cq->mm = current->mm;
		mmgrab(cq->mm);
		lock_limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
		pinned = atomic64_add_return(kgni_cq_pages(cq),
					     &cq->mm->pinned_vm);
		if (pinned > lock_limit && !capable(CAP_IPC_LOCK)) {
			ret = -ENOMEM;
			goto err_unaccount;
		}
	}
	/* Page-aligned, so GEMINI_CQ_ALIGN-aligned; zeroed. */
	cq->ring = dma_alloc_coherent(&kdev->pdev->dev, cq->ring_size,
				      &cq->dma, GFP_KERNEL | __GFP_NOWARN);
	if (!cq->ring) {
		ret = -ENOMEM;
		goto err_unaccount;
	}

	mutex_lock(&kdev->dp.lock);
	ret = kgni_dom_usable(dom);
	if (ret)
		goto err_unlock;
	if (dom->ncq >= KGNI_MAX_CQS_PER_FILE ||
	    kdev->dp.jobs[dom->job].ncq >=
	    kgni_job_limit(kdev, dom, KGNI_LIMIT_CQ)) {
		ret = -EDQUOT;
		goto err_unlock;
	}
	id = find_first_zero_bit(kdev->cq.map, GEMINI_NUM_CQ);
	if (id >= GEMINI_NUM_CQ) {
		ret = -ENOSPC;
		goto err_unlock;
	}
	set_bit(id, kdev->cq.map);
	cq->id = id;
	dom->ncq++;
	kdev->dp.jobs[dom->job].ncq++;
	qw2 = ((u64)(cq->entries - 1) << GEMINI_CQ_MAX_INDEX_SHIFT) |
	      GEMINI_CQ_ENABLE;
	if (irq) {
		/* Threshold 0: an interrupt for every entry written. */
		vector = flags & KGNI_CQ_KERNEL ?
			 kgni_cq_kernel_vector(kdev, id) : kdev->irq.cq;
		qw2 |= (u64)(GEMINI_IRQ_FIRST + vector) <<
		       GEMINI_CQ_IRQ_INDEX_SHIFT |
		       (u64)thresh << GEMINI_CQ_IRQ_THRESH_SHIFT;
		qw3_flags = GEMINI_CQ_IRQ_REQ;
	}
	kgni_cq_write(kdev, id, cq->dma & GEMINI_CQ_BASE_MASK, qw2, qw3_flags);
	list_add_tail(&cq->node, &dom->cqs);
	/* Not read from a user's @cq once unlocked: it may go at once. */
	*cq_id = id;
	*ring_size = cq->ring_size;
	if (cqp)
		*cqp = cq;
	mutex_unlock(&kdev->dp.lock);
	return 0;

err_unlock:
	mutex_unlock(&kdev->dp.lock);
	dma_free_coherent(&kdev->pdev->dev, cq->ring_size, cq->ring, cq->dma);
err_unaccount:
	kgni_cq_uncharge(cq);
	kfree(cq);
	return ret;
}

/**
 * kgni_cq_create() - make a CQ of a file's domain
 * @kdev: the device
 * @dom: the domain
 * @entries: ring entries, 2 to KGNI_CQ_MAX_ENTRIES
 * @flags: 0, or KGNI_CQ_BLOCKING for a CQ whose events interrupt
 * @cq_id: the CQ's number
 * @ring_size: bytes of its ring (whole pages)
 *
 * The ring is charged to the RLIMIT_MEMLOCK of the calling process.
 *
 * Context: process context, may sleep; ctl_rwsem held for reading with
 * the device alive; takes dp.lock.
 * Return: 0, -EINVAL, -EPERM without a CDM, -ENOLINK once the domain's
 * job was released, -ENOMEM (RLIMIT_MEMLOCK too), -EDQUOT past the
 * domain's or the job's CQs, -ENOSPC without a free CQ.
 */
int kgni_cq_create(struct kgni_dev *kdev, struct kgni_dom *dom, u32 entries,
		   u32 flags, u32 *cq_id, size_t *ring_size)
{
	if (flags & ~KGNI_CQ_BLOCKING)
		return -EINVAL;
	return kgni_cq_make(kdev, dom, entries, flags, 0, NULL, cq_id,
			    ring_size);
}

/**
 * kgni_ioctl_cq_create() - KGNI_IOC_CQ_CREATE
 * @ucmd: the call; @ucmd->cmd is a struct kgni_cq_create
 *
 * Return: 0 with the CQ's number and mmap offsets written back, an errno
 * of kgni_cq_create(), -EINVAL for an out field that is not 0, or -EFAULT.
 */
int kgni_ioctl_cq_create(struct kgni_ucmd *ucmd)
{
	struct kgni_cq_create *cmd = ucmd->cmd;
	size_t ring_size;
	int ret;

	if (cmd->cq_id || cmd->ring_offset || cmd->ring_size ||
	    cmd->user_offset)
		return -EINVAL;
	ret = kgni_cq_create(ucmd->kdev, &ucmd->kfile->dom, cmd->entries,
			     cmd->flags, &cmd->cq_id, &ring_size);
	if (ret)
		return ret;
	cmd->ring_offset = kgni_map_offset(KGNI_MAP_CQ_RING, cmd->cq_id);
	cmd->ring_size = ring_size;
	cmd->user_offset = kgni_map_offset(KGNI_MAP_CQ_USER, cmd->cq_id);
	return kgni_ucmd_respond(ucmd, sizeof(*cmd));
}

/**
 * kgni_cq_destroy() - destroy a CQ of the domain
 * @kdev: the device
 * @dom: the domain
 * @cq_id: the CQ's number
 *
 * Registrations that name the CQ for their remote events are detached
 * from it (their MDDs name no CQ from then on, kgni_mem_cq_detach()).
 *
 * Context: process context, may sleep; ctl_rwsem held for reading with
 * the device alive; takes dp.lock.
 * Return: 0, -EINVAL for a CQ that is not the domain's, -EBUSY for one
 * that a descriptor or running RDMA post names, -ENOLINK once the
 * domain's job was released.
 */
int kgni_cq_destroy(struct kgni_dev *kdev, struct kgni_dom *dom, u32 cq_id)
{
	struct kgni_cq *cq;
	int ret = 0;

	mutex_lock(&kdev->dp.lock);
	cq = kgni_cq_find(dom, cq_id);
	/* Posts that have ended hold it until their slots are taken back. */
	if (cq && cq->users)
		kgni_bte_reclaim(kdev);
	if (dom->revoked)
		ret = -ENOLINK;
	else if (!cq)
		ret = -EINVAL;
	else if (cq->users > kgni_mem_cq_refs(dom, cq))
		ret = -EBUSY;
	else
		kgni_mem_cq_detach(kdev, dom, cq);
	if (!ret)
		kgni_cq_free(kdev, dom, cq, true);
	mutex_unlock(&kdev->dp.lock);
	return ret;
}

/**
 * kgni_ioctl_cq_destroy() - KGNI_IOC_CQ_DESTROY
 * @ucmd: the call; @ucmd->cmd is a struct kgni_cq_destroy
 *
 * Return: 0, -EINVAL for flags or reserved not 0, or an errno of
 * kgni_cq_destroy().
 */
int kgni_ioctl_cq_destroy(struct kgni_ucmd *ucmd)
{
	struct kgni_cq_destroy *cmd = ucmd->cmd;

	if (cmd->flags || cmd->reserved)
		return -EINVAL;
	return kgni_cq_destroy(ucmd->kdev, &ucmd->kfile->dom, cmd->cq_id);
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

/**
 * kgni_ioctl_cq_wait() - KGNI_IOC_CQ_WAIT
 * @ucmd: the call; @ucmd->cmd is a struct kgni_cq_wait
 *
 * Sleeps until the blocking CQ holds an event, for at most the timeout.
 *
 * Return: 0, -EINVAL for a CQ that is not a blocking one of the file or
 * that was destroyed meanwhile, -ENOLINK once its job was released,
 * -ENODEV after remove, -EINTR, -ETIMEDOUT.
 */
int kgni_ioctl_cq_wait(struct kgni_ucmd *ucmd)
{
	struct kgni_cq_wait *cmd = ucmd->cmd;
	struct kgni_dom *dom = &ucmd->kfile->dom;
	struct kgni_dev *kdev = ucmd->kdev;
	struct kgni_cq *cq;
	long left;
	int ret;

	if (cmd->flags)
		return -EINVAL;
	mutex_lock(&kdev->dp.lock);
	cq = kgni_cq_find(dom, cmd->cq_id);
	if (!cq || !cq->blocking) {
		mutex_unlock(&kdev->dp.lock);
		return dom->revoked ? -ENOLINK : -EINVAL;
	}
	/* Destruction may free the CQ meanwhile; the structure stays ours. */
	refcount_inc(&cq->ref);
	mutex_unlock(&kdev->dp.lock);

	/*
	 * Sleeps with ctl_rwsem held for reading, as a ping does: remove
	 * wakes it (gone) before it waits for the ioctls.  The interrupt
	 * comes after the device has moved wr_index.
	 */
	if (cmd->timeout_ms == KGNI_CQ_WAIT_FOREVER) {
		ret = wait_event_interruptible(kdev->cq.wq,
					       kgni_cq_wait_done(kdev, cq));
		left = ret ? ret : 1;
	} else {
		left = msecs_to_jiffies(cmd->timeout_ms);
		left = wait_event_interruptible_timeout(kdev->cq.wq,
							kgni_cq_wait_done(kdev, cq),
							left);
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
