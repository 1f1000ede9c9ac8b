// SPDX-License-Identifier: GPL-2.0-only
/*
 * kgni: the node translation table (KGNI_IOC_NTT_CONFIG, KGNI_IOC_NTT_QUERY).
 *
 * A privileged launcher (uGNI's GNI_ConfigureNTT) takes a block of NTT
 * entries and fills it with physical PEs; a job then uses the block
 * (KGNI_IOC_JOB_CONFIGURE's ntt_base and ntt_size, GNI_ConfigureJob), and
 * its endpoints name their peers by index into it, as ALPS had ranks do.
 * The NIC translates FMA requests itself (the descriptor's NTT enable,
 * pe_base and num_pes, kgni_fma.c); what kgni sends for a domain, RDMA
 * posts and datagrams, it translates from its own copy of the table, the
 * same way (kgni_ntt_to_phys()).
 *
 * One granularity for the NIC (its config register's gran_ntt0): the low
 * @gran bits of an index pass through untranslated, and an entry stands
 * for 2^@gran PEs; a job's block of @size entries covers @size << @gran
 * indices.  Everything here is protected by dp.lock.
 */
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "kgni_dp.h"

/**
 * struct kgni_ntt_block - entries one configuration took
 * @node: in &kgni_ntt.blocks
 * @base: its first entry
 * @size: its entries
 * @jobs: jobs that use it (KGNI_IOC_JOB_CONFIGURE)
 */
struct kgni_ntt_block {
	struct list_head node;
	u32 base;
	u32 size;
	unsigned int jobs;
};

/**
 * struct kgni_ntt - kgni's copy of the NIC's NTT
 * @pe: the physical PE of each entry, as written to both banks
 * @used: entries some block holds
 * @blocks: struct kgni_ntt_block, in the order taken
 * @gran: the NIC's granularity
 */
struct kgni_ntt {
	u32 pe[GEMINI_NUM_NTT];
	DECLARE_BITMAP(used, GEMINI_NUM_NTT);
	struct list_head blocks;
	unsigned int gran;
};

/* Every index of the table fits an FMA descriptor's 18-bit pe_base. */
#define KGNI_NTT_GRAN_MAX	5
static_assert(((u64)GEMINI_NUM_NTT << KGNI_NTT_GRAN_MAX) ==
	      GEMINI_FMA_NPES_MASK + 1);

/* The NTT's registers, config included: mapped for a call (rare calls). */
#define KGNI_NTT_MAP_LEN	(GEMINI_MMR_NTT_CONFIG + 8 - GEMINI_MMR_NTT0)

static void __iomem *kgni_ntt_map(struct kgni_dev *kdev)
{
	return pci_iomap_range(kdev->pdev, GEMINI_BAR_NIC, GEMINI_MMR_NTT0,
			       KGNI_NTT_MAP_LEN);
}

/* Write entries [@first, @first + @n) of the copy to both banks. */
static void kgni_ntt_write(struct kgni_ntt *ntt, void __iomem *regs,
			   u32 first, u32 n)
{
	u32 e;

	for (e = first & ~1u; e < first + n; e += 2) {
		u64 qw = ((u64)ntt->pe[e] << GEMINI_NTT_PE0_SHIFT) |
			 ((u64)ntt->pe[e + 1] << GEMINI_NTT_PE1_SHIFT);

		writeq(qw, regs + (GEMINI_MMR_NTT_ENTRY(0, e / 2) |
				   GEMINI_NTT_WRITE_BOTH) - GEMINI_MMR_NTT0);
	}
}

static void kgni_ntt_set_gran(void __iomem *regs, unsigned int gran)
{
	writeq(((u64)gran << GEMINI_NTT_CFG_GRAN0_SHIFT) |
	       GEMINI_NTT_CFG_WRITE_GRN0,
	       regs + GEMINI_MMR_NTT_CONFIG - GEMINI_MMR_NTT0);
}

static struct kgni_ntt_block *kgni_ntt_find(struct kgni_ntt *ntt, u32 base,
					    u32 size)
{
	struct kgni_ntt_block *b;

	list_for_each_entry(b, &ntt->blocks, node)
		if (b->base == base && b->size == size)
			return b;
	return NULL;
}

/* Zero a block's entries and give them back. */
static void kgni_ntt_block_free(struct kgni_ntt *ntt, void __iomem *regs,
				struct kgni_ntt_block *b)
{
	memset(&ntt->pe[b->base], 0, b->size * sizeof(ntt->pe[0]));
	if (regs)
		kgni_ntt_write(ntt, regs, b->base, b->size);
	bitmap_clear(ntt->used, b->base, b->size);
	list_del(&b->node);
	kfree(b);
}

/* Take @size free entries, the lowest that fit; -ENOSPC if none do. */
static int kgni_ntt_take(struct kgni_ntt *ntt, u32 size, u32 *base)
{
	unsigned long e;

	e = bitmap_find_next_zero_area(ntt->used, GEMINI_NUM_NTT, 0, size, 0);
	if (e >= GEMINI_NUM_NTT)
		return -ENOSPC;
	bitmap_set(ntt->used, e, size);
	*base = e;
	return 0;
}

/* A new block of @cmd->group_size entries from user table @pes. */
static int kgni_ntt_add(struct kgni_dev *kdev, struct kgni_ntt *ntt,
			void __iomem *regs, struct kgni_ntt_config *cmd,
			const u32 *pes)
{
	struct kgni_ntt_block *b;
	u32 i, base;
	int ret;

	/* One granularity for the NIC, set by the first block. */
	if (!list_empty(&ntt->blocks) && cmd->gran != ntt->gran)
		return -EINVAL;
	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	ret = kgni_ntt_take(ntt, cmd->group_size, &base);
	if (ret) {
		kfree(b);
		return ret;
	}
	if (list_empty(&ntt->blocks) && cmd->gran != ntt->gran) {
		kgni_ntt_set_gran(regs, cmd->gran);
		ntt->gran = cmd->gran;
	}
	for (i = 0; i < cmd->group_size; i++)
		ntt->pe[base + i] = pes[i];
	kgni_ntt_write(ntt, regs, base, cmd->group_size);
	b->base = base;
	b->size = cmd->group_size;
	list_add_tail(&b->node, &ntt->blocks);
	cmd->base = base;
	return 0;
}

/* Free every block no job uses. */
static void kgni_ntt_clear_unused(struct kgni_ntt *ntt, void __iomem *regs)
{
	struct kgni_ntt_block *b, *next;

	list_for_each_entry_safe(b, next, &ntt->blocks, node)
		if (!b->jobs)
			kgni_ntt_block_free(ntt, regs, b);
}

/**
 * kgni_ioctl_ntt_config() - KGNI_IOC_NTT_CONFIG
 * @ucmd: the call; @ucmd->cmd is a struct kgni_ntt_config
 *
 * Return: 0 (with @base written back for a new block), -EPERM without
 * CAP_SYS_ADMIN, -EINVAL for bad flags or fields, a PE out of range, a
 * granularity that differs from the NIC's while blocks exist, or no block
 * at (@base, @group_size) to clear; -EBUSY to clear a block a job uses,
 * -ENOSPC without @group_size free consecutive entries, -ENOMEM, -EFAULT.
 */
int kgni_ioctl_ntt_config(struct kgni_ucmd *ucmd)
{
	struct kgni_ntt_config *cmd = ucmd->cmd;
	struct kgni_dev *kdev = ucmd->kdev;
	struct kgni_ntt_block *b;
	void __iomem *regs;
	u32 *pes = NULL;
	u32 i;
	int ret;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (cmd->reserved || (cmd->flags & ~(KGNI_NTT_CLEAR |
					     KGNI_NTT_CLEAR_UNUSED)))
		return -EINVAL;
	if (cmd->flags == KGNI_NTT_CLEAR_UNUSED) {
		if (cmd->table || cmd->group_size || cmd->gran)
			return -EINVAL;
	} else if (cmd->flags == KGNI_NTT_CLEAR) {
		if (cmd->table || cmd->gran || !cmd->group_size)
			return -EINVAL;
	} else if (!cmd->flags) {
		if (!cmd->group_size || cmd->group_size > GEMINI_NUM_NTT ||
		    cmd->gran > KGNI_NTT_GRAN_MAX || cmd->base)
			return -EINVAL;
		pes = memdup_user(u64_to_user_ptr(cmd->table),
				  cmd->group_size * sizeof(*pes));
		if (IS_ERR(pes))
			return PTR_ERR(pes);
		for (i = 0; i < cmd->group_size; i++) {
			if (pes[i] > GEMINI_NTT_PE_MASK) {
				kfree(pes);
				return -EINVAL;
			}
		}
	} else {
		return -EINVAL;
	}

	regs = kgni_ntt_map(kdev);
	if (!regs) {
		kfree(pes);
		return -ENOMEM;
	}
	mutex_lock(&kdev->dp.lock);
	if (!kdev->ntt) {
		kdev->ntt = kzalloc(sizeof(*kdev->ntt), GFP_KERNEL);
		if (!kdev->ntt) {
			ret = -ENOMEM;
			goto out;
		}
		INIT_LIST_HEAD(&kdev->ntt->blocks);
	}
	ret = 0;
	if (cmd->flags == KGNI_NTT_CLEAR_UNUSED) {
		kgni_ntt_clear_unused(kdev->ntt, regs);
	} else if (cmd->flags == KGNI_NTT_CLEAR) {
		b = kgni_ntt_find(kdev->ntt, cmd->base, cmd->group_size);
		if (!b)
			ret = -EINVAL;
		else if (b->jobs)
			ret = -EBUSY;
		else
			kgni_ntt_block_free(kdev->ntt, regs, b);
	} else {
		ret = kgni_ntt_add(kdev, kdev->ntt, regs, cmd, pes);
	}
out:
	mutex_unlock(&kdev->dp.lock);
	pci_iounmap(kdev->pdev, regs);
	kfree(pes);
	if (ret)
		return ret;
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
 * kgni_ntt_use() - a job takes a block for its domains (dp.lock held)
 * @kdev: the device
 * @base: the block's first entry
 * @size: its entries
 *
 * Return: 0, or -ENXIO if no block is (@base, @size).
 */
int kgni_ntt_use(struct kgni_dev *kdev, u32 base, u32 size)
{
	struct kgni_ntt_block *b;

	b = kdev->ntt ? kgni_ntt_find(kdev->ntt, base, size) : NULL;
	if (!b)
		return -ENXIO;
	b->jobs++;
	return 0;
}

/**
 * kgni_ntt_unuse() - a job no longer uses its block (dp.lock held)
 * @kdev: the device
 * @base: the block's first entry
 * @size: its entries
 * @cleanup: free the block if no other job uses it (GNI_JOB_CTRL_NTT_CLEANUP)
 */
void kgni_ntt_unuse(struct kgni_dev *kdev, u32 base, u32 size, bool cleanup)
{
	struct kgni_ntt_block *b;
	void __iomem *regs;

	b = kdev->ntt ? kgni_ntt_find(kdev->ntt, base, size) : NULL;
	if (!b || !b->jobs)
		return;
	if (--b->jobs || !cleanup)
		return;
	/* After remove the registers are gone: forget the block alone. */
	regs = READ_ONCE(kdev->gone) ? NULL : kgni_ntt_map(kdev);
	kgni_ntt_block_free(kdev->ntt, regs, b);
	if (regs)
		pci_iounmap(kdev->pdev, regs);
}

/**
 * kgni_ntt_fma_qw3() - the NTT fields of a domain's FMA descriptors
 * @kdev: the device
 * @dom: the domain (dp.lock held)
 *
 * Return: NTT enable, pe_base and num_pes for QW3 if the domain's job has
 * a block, else 0.
 */
u64 kgni_ntt_fma_qw3(struct kgni_dev *kdev, const struct kgni_dom *dom)
{
	const struct kgni_job *job;
	unsigned int gran;

	if (dom->kernel || !kdev->ntt)
		return 0;
	job = &kdev->dp.jobs[dom->job];
	if (!job->ntt_size)
		return 0;
	gran = kdev->ntt->gran;
	return (((u64)job->ntt_size << gran) << GEMINI_FMA_NUM_PES_SHIFT) |
	       (((u64)job->ntt_base << gran) << GEMINI_FMA_PE_BASE_SHIFT) |
	       (GEMINI_FMA_MODE3_NTT_ENABLE << GEMINI_FMA_MODE3_SHIFT);
}

/**
 * kgni_ntt_to_phys() - the physical PE a domain means by @pe
 * @kdev: the device
 * @dom: the domain (dp.lock held)
 * @pe: what it named: an index into its job's block if the job has one,
 *      else a physical PE
 * @phys: out: the physical PE
 *
 * Translates as the NIC does for FMA (gemini_nat_ntt_lookup()).
 * Return: 0, or -EINVAL for an index outside the job's block.
 */
int kgni_ntt_to_phys(struct kgni_dev *kdev, const struct kgni_dom *dom,
		     u32 pe, u32 *phys)
{
	const struct kgni_job *job;
	u32 idx, mask;

	*phys = pe;
	if (dom->kernel || !kdev->ntt)
		return 0;
	job = &kdev->dp.jobs[dom->job];
	if (!job->ntt_size)
		return 0;
	if (pe >= (job->ntt_size << kdev->ntt->gran))
		return -EINVAL;
	mask = (1u << kdev->ntt->gran) - 1;
	idx = (job->ntt_base << kdev->ntt->gran) + pe;
	*phys = (kdev->ntt->pe[idx >> kdev->ntt->gran] & ~mask) | (idx & mask);
	return 0;
}

/**
 * kgni_ntt_to_virt() - how a domain names physical PE @phys
 * @kdev: the device
 * @dom: the domain (dp.lock held)
 * @phys: a physical PE
 *
 * Return: the lowest index of the domain's job's block that translates to
 * @phys; @phys itself if the job has no block or none of its indices
 * does (a peer outside the job).
 */
u32 kgni_ntt_to_virt(struct kgni_dev *kdev, const struct kgni_dom *dom,
		     u32 phys)
{
	const struct kgni_job *job;
	u32 e, mask;

	if (dom->kernel || !kdev->ntt)
		return phys;
	job = &kdev->dp.jobs[dom->job];
	mask = (1u << kdev->ntt->gran) - 1;
	for (e = job->ntt_base; e < job->ntt_base + job->ntt_size; e++)
		if ((kdev->ntt->pe[e] & ~mask) == (phys & ~mask))
			return ((e - job->ntt_base) << kdev->ntt->gran) |
			       (phys & mask);
	return phys;
}

/* Free kgni's copy when the device goes (its blocks with it). */
void kgni_ntt_free(struct kgni_dev *kdev)
{
	struct kgni_ntt_block *b, *next;

	if (!kdev->ntt)
		return;
	list_for_each_entry_safe(b, next, &kdev->ntt->blocks, node)
		kfree(b);
	kfree(kdev->ntt);
	kdev->ntt = NULL;
}
