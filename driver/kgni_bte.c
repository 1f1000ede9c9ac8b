// SPDX-License-Identifier: GPL-2.0-only
/*
 * kgni: the BTE, the NIC's block transfer engine (KGNI_IOC_RDMA_POST).
 *
 * Every BTE register is the kernel's.  Probe gives each TX channel a ring
 * of TX descriptors and a CPU copy of it in node memory: channels 0 to 2
 * (256 slots each) carry the posts of user space, channel 3 (255 slots)
 * is the kernel's own (datagrams, kgni_dgram_xport.c, which also owns
 * RX channel 3), and descriptor 1023 is the HSS's.  A post
 * checks the request against the file's domain and registrations, fills
 * a descriptor as Cray's driver does, writes it into the next slot of a
 * channel, mirrors it into the CPU copy and moves the channel's write
 * index past it.  When a transfer has ended (its events sent) the device
 * writes its status and COMPLETE flag into the slot's CPU copy and moves
 * the channel's read index on.
 *
 * The channels raise no interrupt: the kernel takes completed slots back
 * lazily, when a ring or a file's quota looks full, when a CQ that posts
 * still name is destroyed, and when a file is released.  Each slot keeps
 * its CQ busy (CQ_DESTROY is EBUSY) until it is taken back.  A file being
 * released waits for its transfers, which end soon since its memory
 * domains are already invalid; one still running after the BTE timeout
 * and a second keeps its CQ's and its MDD's numbers from being given out
 * again until it ends, so that no completion reaches a later owner.
 */
#include <linux/bitmap.h>
#include <linux/dma-mapping.h>
#include <linux/jiffies.h>
#include <linux/slab.h>

#include "gemini_mh.h"
#include "gni_pub.h"
#include "kgni_dp.h"

/* Channels 0..2 for user space, 3 for kernel clients */
#define KGNI_BTE_USER_CHANS	3
#define KGNI_BTE_USER_SLOTS	256
#define KGNI_BTE_KERNEL_SLOTS	(GEMINI_NUM_BTE_TX - \
				 KGNI_BTE_USER_CHANS * KGNI_BTE_USER_SLOTS)
static_assert(KGNI_BTE_USER_CHANS + 1 == GEMINI_NUM_BTE_VC);
static_assert(KGNI_BTE_KERNEL_VC == KGNI_BTE_USER_CHANS);
static_assert(KGNI_BTE_KERNEL_SLOTS == 255);

/* Bytes of a channel's CPU copy (the largest ring's) */
#define KGNI_BTE_RING_BYTES	(KGNI_BTE_USER_SLOTS * GEMINI_BTE_TX_DESC_BYTES)

/* Transfers a channel runs at once (ssid_max_num) */
#define KGNI_BTE_SSID_MAX	8

/* No response for this long ends a transfer (the channel's timeout) */
#define KGNI_BTE_TIMEOUT_MS	GEMINI_FMA_TIMEOUT_MS

/* A GET's addresses and length: multiples of this */
#define KGNI_BTE_GET_ALIGN	4

/* The BTE's registers kgni maps: TX up to NP control, RX up to its rings */
#define KGNI_BTE_TX_MAP_SIZE	(GEMINI_MMR_BTE_NP_CTRL + \
				 8 * GEMINI_NUM_BTE_VC - GEMINI_MMR_BTE_TX_DESC)
#define KGNI_BTE_RX_MAP_SIZE	(GEMINI_MMR_BTE_RX_RING_COUNT + 8 - \
				 GEMINI_MMR_BTE_RX_DESC)

#define KGNI_RDMA_FLAGS		(KGNI_RDMA_FENCE | KGNI_RDMA_SINGLE_CHANNEL)
#define KGNI_RDMA_EVENTS	(KGNI_RDMA_EV_LOCAL | KGNI_RDMA_EV_GLOBAL | \
				 KGNI_RDMA_EV_REMOTE)
#define KGNI_RDMA_DLVR		(KGNI_RDMA_DLVR_NO_ADAPT | \
				 KGNI_RDMA_DLVR_NO_HASH | \
				 KGNI_RDMA_DLVR_NO_RADAPT)

/* Offsets are 40 bits wide in a descriptor */
#define KGNI_BTE_OFF_LIMIT	(GEMINI_BTE_DEST_OFF_MASK + 1)

enum kgni_bte_slot_state {
	KGNI_BTE_FREE = 0,
	KGNI_BTE_POSTED,
	KGNI_BTE_ORPHAN,
};

/**
 * struct kgni_bte_slot - what the kernel knows of one TX descriptor
 * @dom: the domain that posted it, while POSTED
 * @cq: its CQ: POSTED, counted in @cq->users; ORPHAN, a reference held so
 *      that the CQ's number is not given out before the transfer ends
 * @mdh: the local MDD the transfer uses
 * @state: enum kgni_bte_slot_state: FREE (the kernel may write the slot),
 *         POSTED (a transfer not taken back yet), ORPHAN (its domain
 *         was torn down before the transfer ended)
 * @holds_mdh: ORPHAN: it keeps @mdh's number from being given out
 */
struct kgni_bte_slot {
	struct kgni_dom *dom;
	struct kgni_cq *cq;
	u16 mdh;
	u8 state;
	bool holds_mdh;
};

static void __iomem *kgni_bte_reg(struct kgni_dev *kdev, u64 off)
{
	return kdev->bte.tx + (off - GEMINI_MMR_BTE_TX_DESC);
}

/* QW @qw of TX channel @vc's descriptor */
static void __iomem *kgni_bte_txc(struct kgni_dev *kdev, unsigned int vc,
				  unsigned int qw)
{
	return kgni_bte_reg(kdev, GEMINI_MMR_BTE_TX_CHAN_ENTRY(vc) + 8 * qw);
}

static void __iomem *kgni_bte_rxc(struct kgni_dev *kdev, unsigned int vc)
{
	return kdev->bte.rx +
	       (GEMINI_MMR_BTE_RX_CHAN_ENTRY(vc) - GEMINI_MMR_BTE_RX_DESC);
}

/* A TX channel's QW1: our timeout, no interrupt, @flags */
static u64 kgni_bte_txc_qw1(u64 flags)
{
	return ((u64)KGNI_BTE_TIMEOUT_MS << GEMINI_BTE_TXC_TIMEOUT_SHIFT) |
	       (flags << GEMINI_BTE_TXC_FLAGS_SHIFT);
}

/*
 * Reset and disable every channel: the TX channels end their transfer
 * with "sequence terminated" and forget the rest; the device writes
 * nothing into the CPU copies after this.
 */
static void kgni_bte_reset(struct kgni_dev *kdev)
{
	unsigned int vc;

	for (vc = 0; vc < GEMINI_NUM_BTE_VC; vc++) {
		writeq(kgni_bte_txc_qw1(GEMINI_BTE_TXC_RESET),
		       kgni_bte_txc(kdev, vc, 0));
		writeq((u64)GEMINI_BTE_RXC_RESET << GEMINI_BTE_RXC_FLAGS_SHIFT,
		       kgni_bte_rxc(kdev, vc));
	}
	/* Flush */
	readq(kgni_bte_txc(kdev, 0, 0));
}

bool kgni_bte_full(const struct kgni_bte_chan *ch)
{
	/* One slot stays empty: write index = read index means "none". */
	return (ch->head + 1) % ch->count == ch->tail;
}

/* Make an orphan of MDD @mdh other than @except keep its number. */
static bool kgni_bte_orphan_keep_mdh(struct kgni_dev *kdev, u32 mdh,
				     const struct kgni_bte_slot *except)
{
	struct kgni_bte_slot *t;
	unsigned int i;

	if (!kdev->bte.slots)
		return false;
	for (i = 0; i < GEMINI_NUM_BTE_TX; i++) {
		t = &kdev->bte.slots[i];
		if (t != except && t->state == KGNI_BTE_ORPHAN &&
		    t->mdh == mdh) {
			t->holds_mdh = true;
			return true;
		}
	}
	return false;
}

/**
 * kgni_bte_keep_mdh() - let an orphan keep an MDH number, if one has it
 * @kdev: the device
 * @mdh: the number, whose deregistration hold ends
 *
 * Context: dp.lock held.
 * Return: true if an orphan keeps it (it is not free yet).
 */
bool kgni_bte_keep_mdh(struct kgni_dev *kdev, u32 mdh)
{
	return kgni_bte_orphan_keep_mdh(kdev, mdh, NULL);
}

/*
 * An orphan that held @s->mdh's number has ended: another orphan of the
 * same MDD or a deregistration hold keeps it, else it is free again.
 */
static void kgni_bte_pass_mdh(struct kgni_dev *kdev, struct kgni_bte_slot *s)
{
	if (!kgni_bte_orphan_keep_mdh(kdev, s->mdh, s) &&
	    !kgni_mdh_held(kdev, s->mdh))
		clear_bit(s->mdh, kdev->mem.mdd_map);
}

/* Take slot @s back: its transfer has ended, or never will. */
static void kgni_bte_release(struct kgni_dev *kdev, struct kgni_bte_slot *s)
{
	if (s->state == KGNI_BTE_POSTED) {
		s->cq->users--;
		s->dom->bte_posts--;
	} else if (s->state == KGNI_BTE_ORPHAN) {
		if (s->holds_mdh)
			kgni_bte_pass_mdh(kdev, s);
		kgni_cq_put(s->cq);
	}
	memset(s, 0, sizeof(*s));
}

/*
 * A user's transfer that the device ended with an error status is, besides
 * its error completion, a TRANSACTION error event of its domain's ptag
 * (kgni_err.c): status, channel, slot.  Posted when the slot is taken
 * back, so later than the completion.
 */
static void kgni_bte_report(struct kgni_dev *kdev, unsigned int vc,
			    unsigned int i, u64 qw2)
{
	struct kgni_bte_chan *ch = &kdev->bte.chan[vc];
	struct kgni_bte_slot *s = &ch->slot[i];
	u64 st;

	if (s->state != KGNI_BTE_POSTED ||
	    !((qw2 >> GEMINI_BTE_FLAGS_SHIFT) & GEMINI_BTE_FLAG_COMPLETE))
		return;
	dma_rmb();	/* the status the COMPLETE flag vouches for */
	st = le64_to_cpu(READ_ONCE(ch->ring[i * KGNI_BTE_SLOT_QWORDS + 4]));
	st = (st >> GEMINI_BTE_STATUS_SHIFT) & GEMINI_BTE_STATUS_MASK;
	if (st != GEMINI_BTE_ST_OK)
		kgni_err_post(kdev, GNI_ERRMASK_TRANSACTION,
			      KGNI_ERR_BTE_STATUS, s->dom->ptag, st, vc, i);
}

/* Take back the slots of channel @vc whose transfers have ended. */
static void kgni_bte_chan_reclaim(struct kgni_dev *kdev, unsigned int vc)
{
	struct kgni_bte_chan *ch = &kdev->bte.chan[vc];
	unsigned int used, done, rd, i, k;
	u64 qw2;

	if (ch->tail == ch->head)
		return;
	used = (ch->head + ch->count - ch->tail) % ch->count;
	/*
	 * Every slot before the read index has ended, whether or not its
	 * CPU copy could be written; after it, transfers may end out of
	 * order and their COMPLETE flag tells.
	 */
	rd = readq(kgni_bte_txc(kdev, vc, 2)) & GEMINI_BTE_TXC_RD_MASK;
	done = rd < ch->count ? (rd + ch->count - ch->tail) % ch->count : 0;
	if (done > used)
		done = 0;
	for (i = ch->tail, k = 0; i != ch->head; i = (i + 1) % ch->count, k++) {
		if (ch->slot[i].state == KGNI_BTE_FREE)
			continue;
		qw2 = le64_to_cpu(READ_ONCE(ch->ring[i * KGNI_BTE_SLOT_QWORDS +
						     1]));
		if (k < done || ((qw2 >> GEMINI_BTE_FLAGS_SHIFT) &
				 GEMINI_BTE_FLAG_COMPLETE)) {
			kgni_bte_report(kdev, vc, i, qw2);
			kgni_bte_release(kdev, &ch->slot[i]);
		}
	}
	while (ch->tail != ch->head && ch->slot[ch->tail].state == KGNI_BTE_FREE)
		ch->tail = (ch->tail + 1) % ch->count;
}

/**
 * kgni_bte_reclaim() - take back every slot whose transfer has ended
 * @kdev: the device
 *
 * Context: dp.lock held; the device is alive.
 */
void kgni_bte_reclaim(struct kgni_dev *kdev)
{
	unsigned int vc;

	if (!kdev->bte.slots || kdev->bte.stopped)
		return;
	for (vc = 0; vc < KGNI_BTE_USER_CHANS; vc++)
		kgni_bte_chan_reclaim(kdev, vc);
}

/**
 * kgni_bte_orphans() - whether an orphan is left
 * @kdev: the device
 *
 * Context: dp.lock held.
 */
bool kgni_bte_orphans(struct kgni_dev *kdev)
{
	unsigned int i;

	for (i = 0; kdev->bte.slots && i < GEMINI_NUM_BTE_TX; i++)
		if (kdev->bte.slots[i].state == KGNI_BTE_ORPHAN)
			return true;
	return false;
}

/**
 * kgni_bte_drain() - let a domain's transfers outlive it
 * @kdev: the device
 * @dom: the domain being torn down; its registrations are gone already,
 *       so that its transfers fail at their next request
 * @live: the device may be touched
 *
 * Takes back the slots whose transfers have ended.  Each one still
 * running becomes an orphan that keeps its CQ's number (and its local
 * MDD's, if free) from being given out until it ends, as a draining FMA
 * descriptor keeps its own; the drain work takes it back then
 * (kgni_drain_work()).  Nothing waits here: the caller holds dp.lock,
 * which every other file's data path needs, and a transfer may take the
 * BTE's whole timeout.  Without the device, or once remove has reset the
 * channels, the slots are simply taken back.
 *
 * Context: dp.lock held; does not sleep.
 */
void kgni_bte_drain(struct kgni_dev *kdev, struct kgni_dom *dom,
		    bool live)
{
	struct kgni_bte_slot *s;
	unsigned int i;

	if (!dom->bte_posts || !kdev->bte.slots)
		return;
	live = live && !kdev->bte.stopped;
	if (live)
		kgni_bte_reclaim(kdev);
	if (!dom->bte_posts)
		return;
	for (i = 0; i < GEMINI_NUM_BTE_TX; i++) {
		s = &kdev->bte.slots[i];
		if (s->state != KGNI_BTE_POSTED || s->dom != dom)
			continue;
		if (!live) {
			kgni_bte_release(kdev, s);
			continue;
		}
		refcount_inc(&s->cq->ref);
		s->cq->users--;
		dom->bte_posts--;
		s->dom = NULL;
		s->state = KGNI_BTE_ORPHAN;
		/* Freed with the domain's registrations just before */
		s->holds_mdh = !test_and_set_bit(s->mdh, kdev->mem.mdd_map);
	}
	if (live)
		mod_delayed_work(system_wq, &kdev->fma.drain_work, 0);
}

/**
 * kgni_bte_map() - map the BTE's registers and start its TX channels
 * @kdev: the device, at probe (from kgni_dp_map())
 *
 * Whatever an earlier driver left, every channel is reset; then each TX
 * channel gets its ring, its CPU copy, its timeout and ssid_max_num and
 * is enabled, without interrupts.  RX channels stay disabled.  On failure
 * the caller undoes it with kgni_bte_unmap().
 *
 * Return: 0, -ENOMEM, or -ENODEV if the device refuses a ring.
 */
int kgni_bte_map(struct kgni_dev *kdev)
{
	struct pci_dev *pdev = kdev->pdev;
	struct kgni_bte_chan *ch;
	unsigned int vc, first = 0;
	u64 base = 0, count = 0;

	kdev->bte.tx = pci_iomap_range(pdev, GEMINI_BAR_NIC,
				       GEMINI_MMR_BTE_TX_DESC,
				       KGNI_BTE_TX_MAP_SIZE);
	kdev->bte.rx = pci_iomap_range(pdev, GEMINI_BAR_NIC,
				       GEMINI_MMR_BTE_RX_DESC,
				       KGNI_BTE_RX_MAP_SIZE);
	if (!kdev->bte.tx || !kdev->bte.rx) {
		dev_err(&pdev->dev, "cannot map the BTE's registers\n");
		return -ENOMEM;
	}
	kdev->bte.slots = kcalloc(GEMINI_NUM_BTE_TX, sizeof(*kdev->bte.slots),
				  GFP_KERNEL);
	if (!kdev->bte.slots)
		return -ENOMEM;
	kdev->bte.stopped = false;
	kgni_bte_reset(kdev);

	for (vc = 0; vc < GEMINI_NUM_BTE_VC; vc++) {
		ch = &kdev->bte.chan[vc];
		ch->base = first;
		ch->count = vc < KGNI_BTE_USER_CHANS ? KGNI_BTE_USER_SLOTS :
						       KGNI_BTE_KERNEL_SLOTS;
		ch->head = 0;
		ch->tail = 0;
		ch->slot = kdev->bte.slots + first;
		first += ch->count;
		/* Zeroed, page-aligned: 64-byte aligned as cpu_ring_addr */
		ch->ring = dma_alloc_coherent(&pdev->dev, KGNI_BTE_RING_BYTES,
					      &ch->ring_dma, GFP_KERNEL);
		if (!ch->ring)
			return -ENOMEM;
		if (ch->ring_dma & ~GEMINI_BTE_CPU_RING_MASK) {
			dev_err(&pdev->dev,
				"BTE ring copy at %pad, beyond the device's 48 bits\n",
				&ch->ring_dma);
			return -ENODEV;
		}
		base |= (u64)ch->base << GEMINI_BTE_RING_FIELD(vc);
		count |= (u64)ch->count << GEMINI_BTE_RING_FIELD(vc);
	}
	writeq(base, kgni_bte_reg(kdev, GEMINI_MMR_BTE_TX_RING_BASE));
	writeq(count, kgni_bte_reg(kdev, GEMINI_MMR_BTE_TX_RING_COUNT));
	for (vc = 0; vc < GEMINI_NUM_BTE_VC; vc++) {
		ch = &kdev->bte.chan[vc];
		writeq(ch->ring_dma, kgni_bte_txc(kdev, vc, 1));
		writeq((u64)KGNI_BTE_SSID_MAX << GEMINI_BTE_TXC_SSID_MAX_SHIFT,
		       kgni_bte_txc(kdev, vc, 2));
		writeq(GEMINI_BTE_NP_CTRL_DEFAULT,
		       kgni_bte_reg(kdev, GEMINI_MMR_BTE_NP_CTRL + 8 * vc));
		/* The kernel's channel interrupts when a SEND ends. */
		writeq(kgni_bte_txc_qw1(GEMINI_BTE_TXC_ENABLE |
					(vc == KGNI_BTE_KERNEL_VC ?
					 GEMINI_BTE_TXC_IRQ_ENABLE : 0)),
		       kgni_bte_txc(kdev, vc, 0));
		if (!((readq(kgni_bte_txc(kdev, vc, 0)) >>
		       GEMINI_BTE_TXC_FLAGS_SHIFT) & GEMINI_BTE_TXC_ENABLE)) {
			dev_err(&pdev->dev,
				"BTE channel %u refused its ring (%u slots from %u)\n",
				vc, ch->count, ch->base);
			return -ENODEV;
		}
	}
	return 0;
}

/**
 * kgni_bte_stop() - reset the BTE's channels
 * @kdev: the device, at remove, before the GART is turned off
 *
 * The transfer each channel runs ends (its events still reach the CQs,
 * which are still enabled); the others are dropped.  Later posts fail
 * with -ENODEV.
 */
void kgni_bte_stop(struct kgni_dev *kdev)
{
	mutex_lock(&kdev->dp.lock);
	if (kdev->bte.tx && kdev->bte.rx && !kdev->bte.stopped)
		kgni_bte_reset(kdev);
	kdev->bte.stopped = true;
	mutex_unlock(&kdev->dp.lock);
}

/**
 * kgni_bte_unmap() - take every slot back, free the rings, unmap
 * @kdev: the device, at remove once kgni_bte_stop() ran, or at a failed
 *        probe
 *
 * Context: dp.lock held.
 */
void kgni_bte_unmap(struct kgni_dev *kdev)
{
	struct kgni_bte_chan *ch;
	unsigned int vc, i;

	if (kdev->bte.tx && kdev->bte.rx && !kdev->bte.stopped)
		kgni_bte_reset(kdev);
	kdev->bte.stopped = true;
	if (kdev->bte.slots) {
		for (i = 0; i < GEMINI_NUM_BTE_TX; i++)
			kgni_bte_release(kdev, &kdev->bte.slots[i]);
	}
	for (vc = 0; vc < GEMINI_NUM_BTE_VC; vc++) {
		ch = &kdev->bte.chan[vc];
		if (ch->ring)
			dma_free_coherent(&kdev->pdev->dev, KGNI_BTE_RING_BYTES,
					  ch->ring, ch->ring_dma);
		memset(ch, 0, sizeof(*ch));
	}
	kfree(kdev->bte.slots);
	kdev->bte.slots = NULL;
	if (kdev->bte.tx)
		pci_iounmap(kdev->pdev, kdev->bte.tx);
	if (kdev->bte.rx)
		pci_iounmap(kdev->pdev, kdev->bte.rx);
	kdev->bte.tx = NULL;
	kdev->bte.rx = NULL;
}

/**
 * kgni_bte_dom_init() - give a new domain its home channel
 * @kdev: the device
 * @dom: the domain, being set up (a file's, at open)
 *
 * Domains take the user channels in turn.
 *
 * Context: dp.lock held.
 */
void kgni_bte_dom_init(struct kgni_dev *kdev, struct kgni_dom *dom)
{
	dom->bte_home = kdev->bte.home_next;
	kdev->bte.home_next = (kdev->bte.home_next + 1) % KGNI_BTE_USER_CHANS;
}

/* Is the CRC of handle @h right? */
static bool kgni_mh_crc_ok(const u64 h[2])
{
	return gemini_mh_crc(h[0], h[1]) == h[1] >> GEMINI_MH_CRC_SHIFT;
}

static u64 kgni_mh_va(const u64 h[2])
{
	return (h[0] & GEMINI_MH_VA_MASK) << GEMINI_MH_VA_SHIFT;
}

static unsigned int kgni_mh_flags(const u64 h[2])
{
	return (h[1] >> GEMINI_MH_FLAGS_SHIFT) & GEMINI_MH_FLAGS_MASK;
}

/*
 * The checks that need nothing but the request; the remote offset into
 * *@rem_off.
 */
static int kgni_rdma_check(const struct kgni_rdma_req *cmd, u64 *rem_off)
{
	const u64 *rh = cmd->remote_mem_hndl;
	u64 va;

	if (cmd->flags & ~KGNI_RDMA_FLAGS)
		return -EINVAL;
	/* uGNI: FENCE only in a BTE single-channel domain */
	if ((cmd->flags & KGNI_RDMA_FENCE) &&
	    !(cmd->flags & KGNI_RDMA_SINGLE_CHANNEL))
		return -EINVAL;
	if ((cmd->type != KGNI_RDMA_PUT && cmd->type != KGNI_RDMA_GET) ||
	    cmd->events & ~KGNI_RDMA_EVENTS || cmd->dlvr_mode & ~KGNI_RDMA_DLVR)
		return -EINVAL;
	if (!cmd->length || cmd->length > KGNI_RDMA_MAX_LENGTH ||
	    cmd->remote_pe > GEMINI_PE_MASK ||
	    (cmd->local_data | cmd->global_data) & ~GEMINI_BTE_SRC_CQ_DATA_MASK)
		return -EINVAL;
	if (cmd->type == KGNI_RDMA_GET &&
	    (cmd->local_addr | cmd->remote_addr | cmd->length) &
	    (KGNI_BTE_GET_ALIGN - 1))
		return -EINVAL;
	if (!kgni_mh_crc_ok(cmd->local_mem_hndl) || !kgni_mh_crc_ok(rh))
		return -EINVAL;
	/* No vMDH table, and only the old format's MDH is ours. */
	if (kgni_mh_flags(rh) & (GEMINI_MH_FLAG_VMDH | GEMINI_MH_FLAG_NEW_FRMT))
		return -EINVAL;
	va = kgni_mh_va(rh);
	if (cmd->remote_addr < va || cmd->remote_addr - va >= KGNI_BTE_OFF_LIMIT ||
	    cmd->length > KGNI_BTE_OFF_LIMIT - (cmd->remote_addr - va))
		return -EINVAL;
	*rem_off = cmd->remote_addr - va;
	return 0;
}

/* The channel of a post, a slot free there; -ENOSPC if full. */
static int kgni_bte_pick(struct kgni_dev *kdev, struct kgni_dom *dom,
			 bool single)
{
	unsigned int i, vc;

	for (i = 0; i < (single ? 1 : KGNI_BTE_USER_CHANS); i++) {
		vc = single ? dom->bte_home :
			      (kdev->bte.rr + i) % KGNI_BTE_USER_CHANS;
		if (kgni_bte_full(&kdev->bte.chan[vc]))
			kgni_bte_chan_reclaim(kdev, vc);
		if (kgni_bte_full(&kdev->bte.chan[vc]))
			continue;
		if (!single)
			kdev->bte.rr = (vc + 1) % KGNI_BTE_USER_CHANS;
		return vc;
	}
	return -ENOSPC;
}

/*
 * Write descriptor @qw into the next slot of channel @vc, mirror it into
 * the CPU copy, and ring; the slot's ring index.
 */
unsigned int kgni_bte_ring(struct kgni_dev *kdev, unsigned int vc,
			   const u64 *qw)
{
	struct kgni_bte_chan *ch = &kdev->bte.chan[vc];
	unsigned int idx = ch->head, q;
	void __iomem *p = kgni_bte_reg(kdev,
				       GEMINI_MMR_BTE_TX_ENTRY(ch->base + idx));
	__le64 *copy = ch->ring + idx * KGNI_BTE_SLOT_QWORDS;

	/* The NIC's slot is what the device runs. */
	for (q = 0; q < GEMINI_BTE_TX_DESC_QWORDS; q++)
		writeq(qw[q], p + 8 * q);
	/* Flags and status clear: the device sets them at the end. */
	for (q = 0; q < GEMINI_BTE_TX_DESC_QWORDS; q++)
		WRITE_ONCE(copy[q], cpu_to_le64(qw[q]));
	wmb();	/* the copy before the doorbell */
	ch->head = (idx + 1) % ch->count;
	writeq(ch->head, kgni_bte_txc(kdev, vc, 3));
	return idx;
}

/* mode1 of a post: Cray's recipe */
static u64 kgni_rdma_mode1(const struct kgni_rdma_req *cmd)
{
	u64 m = cmd->type == KGNI_RDMA_PUT ? GEMINI_BTE_PUT : GEMINI_BTE_GET;

	if (cmd->events & KGNI_RDMA_EV_LOCAL)
		m |= GEMINI_BTE_CQ_LOCAL;
	if (cmd->events & KGNI_RDMA_EV_GLOBAL)
		m |= GEMINI_BTE_CQ_GLOBAL;
	/* The remote event is the immediate data, user_data */
	if (cmd->events & KGNI_RDMA_EV_REMOTE)
		m |= GEMINI_BTE_IMMED;
	if (cmd->flags & KGNI_RDMA_FENCE)
		m |= GEMINI_BTE_FENCE;
	if (!(cmd->dlvr_mode & KGNI_RDMA_DLVR_NO_ADAPT))
		m |= GEMINI_BTE_ADP_ENABLE;
	if (!(cmd->dlvr_mode & KGNI_RDMA_DLVR_NO_RADAPT))
		m |= GEMINI_BTE_RADP_ENABLE;
	if (!(cmd->dlvr_mode & KGNI_RDMA_DLVR_NO_HASH))
		m |= GEMINI_BTE_HASH_ENABLE;
	return m;
}

/**
 * kgni_rdma_post() - post an RDMA transfer of the domain on the BTE
 * @kdev: the device
 * @dom: the domain
 * @cmd: the request
 * @channel: the BTE channel it went to
 * @slot: its TX descriptor
 *
 * The slot is the domain's, and keeps its CQ busy, until the kernel takes
 * it back after the transfer has ended.
 *
 * Context: process context, may sleep; ctl_rwsem held for reading with
 * the device alive; takes dp.lock.
 * @cmd's remote PE is an index into the NTT block of the domain's job if
 * it has one (kgni_ntt_to_phys()).
 *
 * Return: 0, -EINVAL for a bad request, a CQ or local registration that
 * is not the domain's, or a PE outside its job's NTT block, -EPERM
 * without a CDM, -ENOLINK once the
 * domain's job was released, -EACCES for a transfer into read-only
 * memory, -ENOSPC with the ring full or the domain's KGNI_RDMA_MAX_POSTS
 * in flight, -ENODEV once remove has reset the BTE, -EAGAIN while the
 * domain's job is suspended (KGNI_IOC_JOB_SUSPEND; never a kernel
 * domain's).
 */
int kgni_rdma_post(struct kgni_dev *kdev, struct kgni_dom *dom,
		   const struct kgni_rdma_req *cmd, u32 *channel, u32 *slot)
{
	u64 qw[GEMINI_BTE_TX_DESC_QWORDS];
	u64 rem_off, loc_off, size;
	struct kgni_bte_slot *s;
	struct kgni_mem *mem;
	struct kgni_cq *cq;
	unsigned int idx;
	u32 remote_pe;
	int ret, vc;

	ret = kgni_rdma_check(cmd, &rem_off);
	if (ret)
		return ret;

	mutex_lock(&kdev->dp.lock);
	ret = kgni_dom_usable(dom);
	if (ret)
		goto out;
	ret = -EAGAIN;
	if (kgni_dom_suspended(kdev, dom))
		goto out;
	if (!kdev->bte.slots || kdev->bte.stopped) {
		ret = -ENODEV;
		goto out;
	}
	cq = kgni_cq_find(dom, cmd->cq_id);
	mem = kgni_mem_find_local(kdev, dom, cmd->local_mem_hndl);
	ret = -EINVAL;
	if (!cq || !mem || cmd->local_addr < mem->va ||
	    kgni_ntt_to_phys(kdev, dom, cmd->remote_pe, &remote_pe))
		goto out;
	loc_off = cmd->local_addr - mem->va;
	size = (u64)mem->npages << PAGE_SHIFT;
	if (loc_off > size || cmd->length > size - loc_off)
		goto out;
	ret = -EACCES;
	if (cmd->type == KGNI_RDMA_GET ? mem->readonly :
	    kgni_mh_flags(cmd->remote_mem_hndl) & GEMINI_MH_FLAG_READONLY)
		goto out;
	ret = -ENOSPC;
	if (dom->bte_posts >= KGNI_RDMA_MAX_POSTS)
		kgni_bte_reclaim(kdev);
	if (dom->bte_posts >= KGNI_RDMA_MAX_POSTS)
		goto out;
	vc = kgni_bte_pick(kdev, dom, cmd->flags & KGNI_RDMA_SINGLE_CHANNEL);
	if (vc < 0)
		goto out;

	qw[0] = ((u64)remote_pe << GEMINI_BTE_DEST_PE_SHIFT) |
		(kgni_rdma_mode1(cmd) << GEMINI_BTE_MODE1_SHIFT);
	qw[1] = (rem_off << GEMINI_BTE_DEST_OFF_SHIFT) |
		(((cmd->remote_mem_hndl[0] >> GEMINI_MH_MDH_SHIFT) &
		  GEMINI_MH_MDH_MASK) << GEMINI_BTE_DEST_MDH_SHIFT) |
		((u64)(GEMINI_BTE_IRQ_ENABLE | GEMINI_BTE_IRQ_DELAY_ENABLE) <<
		 GEMINI_BTE_MODE2_SHIFT);
	qw[2] = ((u64)cq->id << GEMINI_BTE_SRC_CQ_SHIFT) |
		((u64)dom->ptag << GEMINI_BTE_DEST_PTAG_SHIFT) |
		((u64)dom->ptag << GEMINI_BTE_SRC_PTAG_SHIFT) |
		(cmd->length << GEMINI_BTE_LEN_SHIFT);
	qw[3] = (loc_off << GEMINI_BTE_SRC_OFF_SHIFT) |
		((u64)mem->mdh << GEMINI_BTE_SRC_MDH_SHIFT) |
		((u64)(GEMINI_BTE_COHERENT | GEMINI_BTE_NP_PASSPW |
		       GEMINI_BTE_NAT_ENABLE) << GEMINI_BTE_MODE4_SHIFT);
	qw[4] = cmd->local_data << GEMINI_BTE_SRC_CQ_DATA_SHIFT;
	qw[5] = cmd->global_data;
	idx = kgni_bte_ring(kdev, vc, qw);

	s = &kdev->bte.chan[vc].slot[idx];
	s->state = KGNI_BTE_POSTED;
	s->dom = dom;
	s->cq = cq;
	s->mdh = mem->mdh;
	s->holds_mdh = false;
	cq->users++;
	dom->bte_posts++;
	*channel = vc;
	*slot = kdev->bte.chan[vc].base + idx;
	mutex_unlock(&kdev->dp.lock);
	return 0;

out:
	mutex_unlock(&kdev->dp.lock);
	return ret;
}

/**
 * kgni_rdma_req_init() - the request of a struct kgni_rdma_post
 * @req: filled
 * @p: an ioctl's post, or gnicore's (the kernel API)
 */
void kgni_rdma_req_init(struct kgni_rdma_req *req,
			const struct kgni_rdma_post *p)
{
	*req = (struct kgni_rdma_req){
		.flags = p->flags,
		.type = p->type,
		.events = p->events,
		.remote_pe = p->remote_pe,
		.cq_id = p->cq_id,
		.dlvr_mode = p->dlvr_mode,
		.local_addr = p->local_addr,
		.local_mem_hndl = { p->local_mem_hndl[0],
				    p->local_mem_hndl[1] },
		.remote_addr = p->remote_addr,
		.remote_mem_hndl = { p->remote_mem_hndl[0],
				     p->remote_mem_hndl[1] },
		.length = p->length,
		.local_data = p->local_data,
		.global_data = p->global_data,
	};
}

/**
 * kgni_ioctl_rdma_post() - KGNI_IOC_RDMA_POST
 * @ucmd: the call; @ucmd->cmd is a struct kgni_rdma_post
 *
 * Return: 0 with the channel and slot written back, -EINVAL for reserved,
 * channel or slot not 0, an errno of kgni_rdma_post(), or -EFAULT (the
 * transfer was posted).
 */
int kgni_ioctl_rdma_post(struct kgni_ucmd *ucmd)
{
	struct kgni_rdma_post *cmd = ucmd->cmd;
	struct kgni_rdma_req req;
	int ret;

	if (cmd->reserved || cmd->channel || cmd->slot)
		return -EINVAL;
	kgni_rdma_req_init(&req, cmd);
	/* A suspended job's post waits for its resumption. */
	do {
		ret = kgni_dom_wait_resumed(ucmd->kdev, &ucmd->kfile->dom);
		if (ret)
			return ret;
		ret = kgni_rdma_post(ucmd->kdev, &ucmd->kfile->dom, &req,
				     &cmd->channel, &cmd->slot);
	} while (ret == -EAGAIN);
	if (ret)
		return ret;
	/* On EFAULT here the transfer runs all the same. */
	return kgni_ucmd_respond(ucmd, sizeof(*cmd));
}
