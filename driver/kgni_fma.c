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
#include <linux/delay.h>
#include <linux/jiffies.h>
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
 * Context: dp_lock held.
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
static void kgni_fmas_free(struct kgni_dev *kdev, struct kgni_dom *dom,
			   struct kgni_fma **fma, unsigned int n, bool live)
{
	static const enum kgni_map_kind win[] = {
		KGNI_MAP_FMA_PUT_WC, KGNI_MAP_FMA_PUT_UC, KGNI_MAP_FMA_GET,
	};
	unsigned long deadline = jiffies +
		msecs_to_jiffies(GEMINI_FMA_TIMEOUT_MS + 1000);
	unsigned int i, k, busy;

	for (i = 0; i < n; i++) {
		kgni_zap(dom->file,
			 kgni_map_offset(KGNI_MAP_FMA_USER, fma[i]->id),
			 PAGE_SIZE);
		for (k = 0; k < ARRAY_SIZE(win); k++)
			kgni_zap(dom->file,
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

/**
 * kgni_fmas_free_all() - free every FMA descriptor of a domain
 * @kdev: the device
 * @dom: the domain
 * @live: the device may be touched: the descriptors are disabled and
 *        waited for
 *
 * Context: dp_lock held.
 */
void kgni_fmas_free_all(struct kgni_dev *kdev, struct kgni_dom *dom,
			bool live)
{
	struct kgni_fma *batch[16], *fma;
	unsigned int n;

	do {
		n = 0;
		list_for_each_entry(fma, &dom->fmas, node) {
			batch[n++] = fma;
			if (n == ARRAY_SIZE(batch))
				break;
		}
		if (n)
			kgni_fmas_free(kdev, dom, batch, n, live);
	} while (n);
}

/*
 * A free descriptor for @dom (dp_lock held), GEMINI_FMA_NUM_DESC if none:
 * a kernel domain takes the OS descriptors first, which no file can have,
 * so that processes cannot starve kernel clients (gni_post_fma(), SMSG).
 */
static u32 kgni_fma_pick(struct kgni_dev *kdev, const struct kgni_dom *dom)
{
	u32 d;

	if (dom->kernel) {
		d = find_next_zero_bit(kdev->fma_map, GEMINI_FMA_NUM_DESC,
				       GEMINI_FMA_OS_FIRST);
		if (d < GEMINI_FMA_NUM_DESC)
			return d;
	}
	d = find_first_zero_bit(kdev->fma_map, GEMINI_NUM_FMA);
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
 * the device alive; takes dp_lock.
 * Return: 0, -EINVAL for a CQ that is not the domain's, -EPERM without a
 * CDM, -ENOLINK once the domain's job was released, -ENOMEM, -ENOSPC
 * without a free descriptor.
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
	mutex_lock(&kdev->dp_lock);
	ret = kgni_dom_usable(dom);
	if (ret)
		goto err_unlock;
	cq = kgni_cq_find(dom, cq_id);
	if (!cq) {
		ret = -EINVAL;
		goto err_unlock;
	}
	d = kgni_fma_pick(kdev, dom);
	if (d >= GEMINI_FMA_NUM_DESC) {
		ret = -ENOSPC;
		goto err_unlock;
	}
	set_bit(d, kdev->fma_map);
	fma->id = d;
	fma->cq = cq;
	cq->users++;
	qw3 = ((u64)cq->id << GEMINI_FMA_CQH_SHIFT) |
	      ((u64)dom->ptag << GEMINI_FMA_SRC_PTAG_SHIFT) |
	      ((u64)dom->ptag << GEMINI_FMA_DEST_PTAG_SHIFT);
	kgni_fma_program(kdev, d, qw3, GEMINI_FMA_MODE2_FMA_ENABLE);
	list_add_tail(&fma->node, &dom->fmas);
	*fma_id = d;
	mutex_unlock(&kdev->dp_lock);
	return 0;

err_unlock:
	mutex_unlock(&kdev->dp_lock);
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
 * Its mappings are removed, and it is disabled and waited for as at a
 * domain's teardown (kgni_fmas_free_all()).
 *
 * Context: process context, may sleep; ctl_rwsem held for reading; takes
 * dp_lock.
 * Return: 0, -EINVAL for a descriptor that is not the domain's, -ENOLINK
 * once the domain's job was released.
 */
int kgni_fma_free(struct kgni_dev *kdev, struct kgni_dom *dom, u32 fma_id,
		  bool live)
{
	struct kgni_fma *fma;
	int ret = -EINVAL;

	mutex_lock(&kdev->dp_lock);
	if (dom->revoked)
		ret = -ENOLINK;
	list_for_each_entry(fma, &dom->fmas, node) {
		if (fma->id == fma_id) {
			kgni_fmas_free(kdev, dom, &fma, 1, live);
			ret = 0;
			break;
		}
	}
	mutex_unlock(&kdev->dp_lock);
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
