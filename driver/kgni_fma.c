// SPDX-License-Identifier: GPL-2.0-only
/*
 * kgni: FMA descriptors (KGNI_IOC_FMA_ALLOC, _FREE).
 *
 * The kernel programs a descriptor's privileged fields (its CQ, the CDM's
 * ptag) through the descriptor's privileged page; user space maps its user
 * page and its windows and drives it without syscalls.  The kernel API's
 * descriptors come from the same allocator (kgni_kfma.c maps them in the
 * kernel instead), the OS descriptors first.
 */
#include <linux/jiffies.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>

#include "kgni_dp.h"

static void __iomem *kgni_fma_reg(struct kgni_dev *kdev, u32 d,
				  unsigned int reg)
{
	return kdev->fma_priv + ((unsigned long)d << 12) + reg;
}

/* Status word bits that clear both counters and every flag */
#define KGNI_FMA_STAT_CLEAR \
	((GEMINI_FMA_STAT_COUNT_MASK << GEMINI_FMA_STAT_WC_SHIFT) | \
	 (GEMINI_FMA_STAT_COUNT_MASK << GEMINI_FMA_STAT_RC_SHIFT) | \
	 (GEMINI_FMA_STAT_FLAGS_MASK << GEMINI_FMA_STAT_FLAGS_SHIFT))

/**
 * kgni_fma_program() - reset an FMA descriptor and program it
 * @kdev: the device
 * @d: the descriptor
 * @qw3: its QW3 (CQ and ptags)
 * @mode2: its mode bits
 *
 * Disable descriptor @d and return it to its reset state, then program
 * @qw3 and @mode2 (0 and 0 leave it disabled).
 */
void kgni_fma_program(struct kgni_dev *kdev, u32 d, u64 qw3, u64 mode2)
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

/**
 * kgni_fma_find() - an FMA descriptor of the domain
 * @dom: the domain
 * @id: the descriptor
 *
 * Context: dp.lock held.
 * Return: the descriptor, or NULL.
 */
struct kgni_fma *kgni_fma_find(struct kgni_dom *dom, u32 id)
{
	struct kgni_fma *fma;

	list_for_each_entry(fma, &dom->fmas, node)
		if (fma->id == id)
			return fma;
	return NULL;
}

/**
 * kgni_fma_put() - drop a reference on an FMA descriptor
 * @fma: the descriptor
 *
 * The last reference gives the number back, unless the descriptor is
 * stuck.
 */
void kgni_fma_put(struct kgni_fma *fma)
{
	if (!refcount_dec_and_test(&fma->ref))
		return;
	if (!fma->stuck)
		clear_bit(fma->id, fma->kdev->fma.map);
	kfree(fma);
}

/* The SSIDs descriptor @d holds: sequences not ended yet */
static unsigned int kgni_fma_ssids(struct kgni_dev *kdev, u32 d)
{
	u64 st = readq(kgni_fma_reg(kdev, d, GEMINI_FMA_QW_STATUS));

	return (st >> GEMINI_FMA_STAT_SSID_SHIFT) & GEMINI_FMA_STAT_SSID_MASK;
}

/**
 * kgni_fma_requests() - does an FMA descriptor have requests outstanding?
 * @kdev: the device
 * @d: the descriptor
 *
 * Return: true while the PUT-like or GET-like count of its status word
 * is not 0: requests sent whose responses have not come back.
 */
bool kgni_fma_requests(struct kgni_dev *kdev, u32 d)
{
	u64 st = readq(kgni_fma_reg(kdev, d, GEMINI_FMA_QW_STATUS));

	return ((st >> GEMINI_FMA_STAT_WC_SHIFT) & GEMINI_FMA_STAT_COUNT_MASK) ||
	       ((st >> GEMINI_FMA_STAT_RC_SHIFT) & GEMINI_FMA_STAT_COUNT_MASK);
}

/**
 * kgni_fma_zap() - remove every user mapping of an FMA descriptor
 * @dom: its domain
 * @fma: the descriptor
 *
 * Its user page and windows; a retired descriptor's are not mapped again
 * (SIGBUS), a suspended job's are mapped again by the fault handler once
 * the job is resumed (kgni_mmap.c).
 */
void kgni_fma_zap(struct kgni_dom *dom, struct kgni_fma *fma)
{
	static const enum kgni_map_kind win[] = {
		KGNI_MAP_FMA_PUT_WC, KGNI_MAP_FMA_PUT_UC, KGNI_MAP_FMA_GET,
	};
	unsigned int k;

	kgni_zap(dom->file, kgni_map_offset(KGNI_MAP_FMA_USER, fma->id),
		 PAGE_SIZE);
	for (k = 0; k < ARRAY_SIZE(win); k++)
		kgni_zap(dom->file, kgni_map_offset(win[k], fma->id),
			 KGNI_FMA_MAP_SIZE);
}

/* How often the drain work looks at descriptors that are not idle yet */
#define KGNI_DRAIN_POLL_MS	2

/*
 * How long a freed descriptor may stay busy before it is given up as
 * stuck.  The device ends a disabled descriptor's sequences within
 * GEMINI_FMA_TIMEOUT_MS; a test makes it shorter to see a stuck one.
 */
static unsigned int kgni_fma_drain_ms = GEMINI_FMA_TIMEOUT_MS + 1000;
module_param_named(fma_drain_ms, kgni_fma_drain_ms, uint, 0644);
MODULE_PARM_DESC(fma_drain_ms,
		 "ms a freed FMA descriptor may stay busy before it and its CQ are never used again (default 3000)");

/* Give back a drained descriptor: its number and its CQ's (dp.lock held). */
static void kgni_fma_release(struct kgni_fma *fma)
{
	list_del(&fma->node);
	kgni_cq_put(fma->cq);
	kgni_fma_put(fma);
}

/*
 * Free descriptor @fma of @dom (dp.lock held): remove its mappings and
 * disable it.  No completion of the old owner may reach a later owner of
 * the descriptor or of the CQ it names, so it keeps both numbers until
 * the device has ended its sequences, which it does for a disabled
 * descriptor within GEMINI_FMA_TIMEOUT_MS.  That is waited for by the
 * drain work, not here: the caller holds dp.lock, which every other
 * file's data path needs (a PUT to an unreachable PE takes the whole
 * timeout).  Until then it still counts in its job's quota.
 */
static void kgni_fma_retire(struct kgni_dev *kdev, struct kgni_dom *dom,
			    struct kgni_fma *fma, bool live)
{
	kgni_fma_zap(dom, fma);
	list_del(&fma->node);
	dom->nfma--;
	fma->cq->users--;
	if (live)
		kgni_fma_program(kdev, fma->id, 0, 0);
	if (!live || !kgni_fma_ssids(kdev, fma->id)) {
		kgni_fma_put(fma);
		return;
	}
	/* The drain list takes the domain's reference; the CQ one more */
	refcount_inc(&fma->cq->ref);
	fma->job = dom->kernel ? -1 : (int)dom->job;
	fma->job_gen = dom->job_gen;
	fma->deadline = jiffies +
			msecs_to_jiffies(READ_ONCE(kgni_fma_drain_ms));
	list_add_tail(&fma->node, &kdev->fma.drain);
	mod_delayed_work(system_wq, &kdev->fma.drain_work,
			 msecs_to_jiffies(KGNI_DRAIN_POLL_MS));
}

/*
 * Give back the draining descriptors that went idle; one still busy past
 * its deadline is stuck: it keeps its number and its CQ's for good (the
 * device may still end its sequence into that CQ).  Without the device
 * they all go.  dp.lock held.  Whether any is left to look at.
 */
static bool kgni_fma_drain(struct kgni_dev *kdev, bool live)
{
	struct kgni_fma *fma, *next;
	bool left = false;

	list_for_each_entry_safe(fma, next, &kdev->fma.drain, node) {
		if (!live) {
			kgni_fma_release(fma);
			continue;
		}
		if (fma->stuck)
			continue;
		if (!kgni_fma_ssids(kdev, fma->id)) {
			kgni_fma_release(fma);
		} else if (time_after(jiffies, fma->deadline)) {
			dev_warn(&kdev->pdev->dev,
				 "FMA descriptor %u still busy after it was disabled: neither it nor CQ %u is used again\n",
				 fma->id, fma->cq->id);
			fma->stuck = true;
		} else {
			left = true;
		}
	}
	return left;
}

/**
 * kgni_drain_work() - give back what waited for the device to go idle
 * @work: &kgni_fma_state.drain_work
 *
 * Freed FMA descriptors (kgni_fma_retire()) and the BTE's orphans
 * (kgni_bte_drain()) end on the device's time, not their owner's: this
 * looks at them every KGNI_DRAIN_POLL_MS while any is left, holding
 * dp.lock only to look.
 */
void kgni_drain_work(struct work_struct *work)
{
	struct kgni_dev *kdev = container_of(to_delayed_work(work),
					     struct kgni_dev, fma.drain_work);
	bool live, again;

	mutex_lock(&kdev->dp.lock);
	/* Remove clears fma_priv under dp.lock, after marking the device gone */
	live = kdev->fma_priv && !READ_ONCE(kdev->gone);
	again = kgni_fma_drain(kdev, live);
	if (live) {
		kgni_bte_reclaim(kdev);
		again |= !kdev->bte.stopped && kgni_bte_orphans(kdev);
	}
	mutex_unlock(&kdev->dp.lock);
	if (again)
		queue_delayed_work(system_wq, &kdev->fma.drain_work,
				   msecs_to_jiffies(KGNI_DRAIN_POLL_MS));
}

/**
 * kgni_fma_drain_fini() - give back every draining descriptor, at remove
 * @kdev: the device, after kgni_ioctl_shutdown(): nothing retires one
 *        on a live device any more
 *
 * The stuck ones too: the device will not write anything again.
 *
 * Context: takes dp.lock.
 */
void kgni_fma_drain_fini(struct kgni_dev *kdev)
{
	cancel_delayed_work_sync(&kdev->fma.drain_work);
	mutex_lock(&kdev->dp.lock);
	kgni_fma_drain(kdev, false);
	mutex_unlock(&kdev->dp.lock);
}

/**
 * kgni_fmas_free_all() - free every FMA descriptor of a domain
 * @kdev: the device
 * @dom: the domain
 * @live: the device may be touched: the descriptors are disabled and
 *        drained (kgni_fma_retire())
 *
 * Context: dp.lock held; does not sleep.
 */
void kgni_fmas_free_all(struct kgni_dev *kdev, struct kgni_dom *dom,
			bool live)
{
	struct kgni_fma *fma, *next;

	list_for_each_entry_safe(fma, next, &dom->fmas, node)
		kgni_fma_retire(kdev, dom, fma, live);
}

/**
 * kgni_dom_same_job() - whether two domains are files of one job
 * @a: a domain
 * @b: another
 *
 * Kernel domains are of no job: they are held to no quota.
 */
bool kgni_dom_same_job(const struct kgni_dom *a, const struct kgni_dom *b)
{
	return a->attached && b->attached && !a->kernel && !b->kernel &&
	       a->job == b->job && a->job_gen == b->job_gen;
}

/**
 * kgni_job_use() - what the job of a domain holds on the NIC
 * @kdev: the device
 * @dom: an attached file's domain
 * @use: the sums over the job's domains, and its draining descriptors
 *
 * Context: dp.lock held.
 */
void kgni_job_use(struct kgni_dev *kdev, const struct kgni_dom *dom,
		  struct kgni_job_use *use)
{
	const struct kgni_dom *d;
	const struct kgni_fma *fma;

	memset(use, 0, sizeof(*use));
	list_for_each_entry(d, &kdev->dp.doms, node) {
		if (!kgni_dom_same_job(d, dom))
			continue;
		use->fma += d->nfma;
		use->mdd += d->nmdd;
		use->gart += d->ngart;
	}
	list_for_each_entry(fma, &kdev->fma.drain, node)
		use->fma += fma->job == (int)dom->job &&
			    fma->job_gen == dom->job_gen;
}

/*
 * A free descriptor for @dom (dp.lock held), GEMINI_FMA_NUM_DESC if none:
 * a kernel domain takes the OS descriptors first, which no file can have,
 * so that processes cannot starve kernel clients (gni_post_fma(), SMSG).
 */
static u32 kgni_fma_pick(struct kgni_dev *kdev, const struct kgni_dom *dom)
{
	u32 d;

	if (dom->kernel) {
		d = find_next_zero_bit(kdev->fma.map, GEMINI_FMA_NUM_DESC,
				       GEMINI_FMA_OS_FIRST);
		if (d < GEMINI_FMA_NUM_DESC)
			return d;
	}
	d = find_first_zero_bit(kdev->fma.map, GEMINI_NUM_FMA);
	return d < GEMINI_NUM_FMA ? d : GEMINI_FMA_NUM_DESC;
}

/**
 * kgni_fma_alloc() - take an FMA descriptor for the domain
 * @kdev: the device
 * @dom: the domain
 * @cq_id: a CQ of the domain, the descriptor's cq_hndl
 * @fma_id: the descriptor
 *
 * Its privileged fields are programmed: the domain's ptag, @cq_id, FMA
 * enable.  A kernel domain gets an OS descriptor while one is free.
 *
 * Context: process context, may sleep; ctl_rwsem held for reading with
 * the device alive; takes dp.lock.
 * Return: 0, -EINVAL for a CQ that is not the domain's, -EPERM without a
 * CDM, -ENOLINK once the domain's job was released, -ENOMEM, -EDQUOT
 * past the job's FMA quota (a file's; freed ones count until they
 * have drained), -ENOSPC without a free descriptor.
 */
int kgni_fma_alloc(struct kgni_dev *kdev, struct kgni_dom *dom, u32 cq_id,
		   u32 *fma_id)
{
	struct kgni_fma *fma;
	struct kgni_cq *cq;
	int ret = 0;
	u64 qw3;
	u32 d;

	fma = kzalloc(sizeof(*fma), GFP_KERNEL);
	if (!fma)
		return -ENOMEM;
	refcount_set(&fma->ref, 1);
	fma->kdev = kdev;
	mutex_lock(&kdev->dp.lock);
	ret = kgni_dom_usable(dom);
	if (ret)
		goto err_unlock;
	cq = kgni_cq_find(dom, cq_id);
	if (!cq) {
		ret = -EINVAL;
		goto err_unlock;
	}
	if (!dom->kernel) {
		struct kgni_job_use use;

		kgni_job_use(kdev, dom, &use);
		if (use.fma >= kgni_job_limit(kdev, dom, KGNI_LIMIT_FMA)) {
			ret = -EDQUOT;
			goto err_unlock;
		}
	}
	d = kgni_fma_pick(kdev, dom);
	if (d >= GEMINI_FMA_NUM_DESC) {
		ret = -ENOSPC;
		goto err_unlock;
	}
	set_bit(d, kdev->fma.map);
	fma->id = d;
	fma->cq = cq;
	cq->users++;
	qw3 = ((u64)cq->id << GEMINI_FMA_CQH_SHIFT) |
	      ((u64)dom->ptag << GEMINI_FMA_SRC_PTAG_SHIFT) |
	      ((u64)dom->ptag << GEMINI_FMA_DEST_PTAG_SHIFT) |
	      kgni_ntt_fma_qw3(kdev, dom);
	kgni_fma_program(kdev, d, qw3, GEMINI_FMA_MODE2_FMA_ENABLE);
	list_add_tail(&fma->node, &dom->fmas);
	dom->nfma++;
	*fma_id = d;
	mutex_unlock(&kdev->dp.lock);
	return 0;

err_unlock:
	mutex_unlock(&kdev->dp.lock);
	kfree(fma);
	return ret;
}

/**
 * kgni_ioctl_fma_alloc() - KGNI_IOC_FMA_ALLOC
 * @ucmd: the call; @ucmd->cmd is a struct kgni_fma_alloc
 *
 * Return: 0 with the descriptor's number and mmap offsets written back,
 * -EINVAL for flags or an out field not 0, an errno of kgni_fma_alloc(),
 * or -EFAULT.
 */
int kgni_ioctl_fma_alloc(struct kgni_ucmd *ucmd)
{
	struct kgni_fma_alloc *cmd = ucmd->cmd;
	int ret;
	u32 d;

	if (cmd->flags || cmd->fma_id || cmd->user_offset ||
	    cmd->put_wc_offset || cmd->put_uc_offset || cmd->get_offset ||
	    cmd->window_size)
		return -EINVAL;
	ret = kgni_fma_alloc(ucmd->kdev, &ucmd->kfile->dom, cmd->cq_id, &d);
	if (ret)
		return ret;
	cmd->fma_id = d;
	cmd->user_offset = kgni_map_offset(KGNI_MAP_FMA_USER, d);
	cmd->put_wc_offset = kgni_map_offset(KGNI_MAP_FMA_PUT_WC, d);
	cmd->put_uc_offset = kgni_map_offset(KGNI_MAP_FMA_PUT_UC, d);
	cmd->get_offset = kgni_map_offset(KGNI_MAP_FMA_GET, d);
	cmd->window_size = KGNI_FMA_MAP_SIZE;
	return kgni_ucmd_respond(ucmd, sizeof(*cmd));
}

/**
 * kgni_fma_free() - free an FMA descriptor of the domain
 * @kdev: the device
 * @dom: the domain
 * @fma_id: the descriptor
 * @live: the device may be touched (not removed)
 *
 * Its mappings are removed, and it is disabled and drained as at a
 * domain's teardown (kgni_fmas_free_all()): its number and its CQ's are
 * given back once the device has ended its sequences, not before this
 * returns.
 *
 * Context: process context; ctl_rwsem held for reading; takes dp.lock.
 * Return: 0, -EINVAL for a descriptor that is not the domain's, -ENOLINK
 * once the domain's job was released.
 */
int kgni_fma_free(struct kgni_dev *kdev, struct kgni_dom *dom, u32 fma_id,
		  bool live)
{
	struct kgni_fma *fma;
	int ret = -EINVAL;

	mutex_lock(&kdev->dp.lock);
	if (dom->revoked)
		ret = -ENOLINK;
	list_for_each_entry(fma, &dom->fmas, node) {
		if (fma->id == fma_id) {
			kgni_fma_retire(kdev, dom, fma, live);
			ret = 0;
			break;
		}
	}
	mutex_unlock(&kdev->dp.lock);
	return ret;
}

/**
 * kgni_ioctl_fma_free() - KGNI_IOC_FMA_FREE
 * @ucmd: the call; @ucmd->cmd is a struct kgni_fma_free
 *
 * Return: 0, -EINVAL for flags or reserved not 0, or an errno of
 * kgni_fma_free().
 */
int kgni_ioctl_fma_free(struct kgni_ucmd *ucmd)
{
	struct kgni_fma_free *cmd = ucmd->cmd;

	if (cmd->flags || cmd->reserved)
		return -EINVAL;
	return kgni_fma_free(ucmd->kdev, &ucmd->kfile->dom, cmd->fma_id, true);
}
