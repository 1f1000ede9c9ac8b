// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cray-gemini device core: the BTE's registers.
 *
 * The kernel queues a block transfer by writing a TX descriptor (six
 * qwords) into a slot of a channel's ring and moving the channel's write
 * index past it; the device works through the ring from its read index.
 * RX descriptors and channels receive SENDs the same way.  Layouts are in
 * uapi/gemini_nic.h; every register is the kernel's (no page of them is
 * mapped into a process).
 *
 * What this file decides (vgemini, where the references give the layout
 * only):
 *  - A channel's ring is ring_count slots from ring_base (the u16 of its
 *    VC in the ring registers).  Enabling a channel checks its ring: at
 *    least 2 slots (1 for RX), inside the descriptors (GEMINI_NUM_BTE_TX
 *    or GEMINI_NUM_BTE_RX), not overlapping another enabled channel's,
 *    and a CPU copy address set; otherwise the channel stays disabled and
 *    the refusal is a guest error.  An enabled channel's ring registers
 *    and CPU copy address do not change: a write to them is a guest
 *    error, and the values stay.
 *  - RESET is an action, not a state: it sets the channel's indices (and
 *    the TX channel's ssid_in_use) to 0 and reads back 0.  With ENABLE in
 *    the same write the channel is reset first, then enabled.
 *  - The write index is the kernel's doorbell: a value past the ring is
 *    a guest error and is ignored.  The read index and ssid_in_use are
 *    the device's: writes leave them alone.
 *  - The TX channels' performance counters (+0x20 in each channel's
 *    64 bytes) and the RX sequence counters have no known layout: they
 *    are not registers here (UNKNOWN, read 0).
 */
#include <string.h>

#include "gemini_core.h"
#include "gemini_reg.h"

#define TX	GEMINI_BTE_DIR_TX
#define RX	GEMINI_BTE_DIR_RX

static struct gemini_bte_chans *chans(struct gemini_nic *nic, int dir)
{
	return dir == TX ? &nic->bte.txc : &nic->bte.rxc;
}

bool gemini_bte_chan_enabled(const struct gemini_nic *nic,
			     enum gemini_bte_dir dir, unsigned int vc)
{
	if (dir == TX)
		return gemini_field(nic->bte.txc.qw[vc][0],
				    GEMINI_BTE_TXC_FLAGS_SHIFT,
				    GEMINI_BTE_TXC_FLAGS_MASK) &
		       GEMINI_BTE_TXC_ENABLE;
	return gemini_field(nic->bte.rxc.qw[vc][0], GEMINI_BTE_RXC_FLAGS_SHIFT,
			    GEMINI_BTE_RXC_FLAGS_MASK) & GEMINI_BTE_RXC_ENABLE;
}

/* May channel @vc be enabled with the ring its registers name now? */
static bool ring_ok(struct gemini_nic *nic, int dir, unsigned int vc)
{
	struct gemini_bte_chans *c = chans(nic, dir);
	unsigned int base = gemini_bte_ring(c->ring_base, vc);
	unsigned int count = gemini_bte_ring(c->ring_count, vc);
	unsigned int slots = dir == TX ? GEMINI_NUM_BTE_TX : GEMINI_NUM_BTE_RX;
	unsigned int v;

	if (count < (dir == TX ? 2u : 1u) || base + count > slots ||
	    !c->qw[vc][1])
		return false;
	for (v = 0; v < GEMINI_NUM_BTE_VC; v++) {
		unsigned int b = gemini_bte_ring(c->ring_base, v);

		if (v != vc && gemini_bte_chan_enabled(nic, dir, v) &&
		    base < b + gemini_bte_ring(c->ring_count, v) &&
		    b < base + count)
			return false;
	}
	return true;
}

/* A new QW1 for channel @vc: RESET acts, ENABLE is checked. */
static void chan_qw1(struct gemini_nic *nic, int dir, unsigned int vc,
		     uint64_t val)
{
	struct gemini_bte_chans *c = chans(nic, dir);
	unsigned int shift = dir == TX ? GEMINI_BTE_TXC_FLAGS_SHIFT :
					 GEMINI_BTE_RXC_FLAGS_SHIFT;
	uint64_t mask = dir == TX ? GEMINI_BTE_TXC_FLAGS_MASK :
				    GEMINI_BTE_RXC_FLAGS_MASK;
	uint64_t reset = dir == TX ? GEMINI_BTE_TXC_RESET : GEMINI_BTE_RXC_RESET;
	uint64_t enable = dir == TX ? GEMINI_BTE_TXC_ENABLE :
				      GEMINI_BTE_RXC_ENABLE;
	uint64_t flags = gemini_field(val, shift, mask);
	bool was = gemini_bte_chan_enabled(nic, dir, vc);

	if (flags & reset) {
		/* The indices and the TX transfers in use start again. */
		c->qw[vc][2] = dir == TX ?
			       c->qw[vc][2] & (GEMINI_BTE_TXC_SSID_MAX_MASK <<
					       GEMINI_BTE_TXC_SSID_MAX_SHIFT) :
			       c->qw[vc][2] & (GEMINI_BTE_RXC_RMT_MASK <<
					       GEMINI_BTE_RXC_RMT_SHIFT);
		c->qw[vc][3] = 0;
		flags &= ~reset;
		if (dir == TX)
			gemini_bte_chan_reset(nic, vc);
		else
			gemini_bte_rx_reset(nic, vc);
	}
	c->qw[vc][0] = gemini_set_field(val, shift, mask, flags &
					~(was ? 0 : enable));
	if ((flags & enable) && !was) {
		if (ring_ok(nic, dir, vc)) {
			c->qw[vc][0] = gemini_set_field(c->qw[vc][0], shift,
							mask, flags);
			/* The engine goes on from the read index. */
			if (dir == TX)
				nic->bte.run[vc].next = (uint16_t)
					(c->qw[vc][2] & GEMINI_BTE_TXC_RD_MASK);
		} else {
			GEMINI_GUEST_ERROR(nic, BTE_RING, vc, dir,
					   gemini_bte_ring(c->ring_count, vc),
					   gemini_bte_ring(c->ring_base, vc));
		}
	}
}

static enum gemini_access chan_access(struct gemini_nic *nic, int dir,
				      uint64_t rel, unsigned int size,
				      uint64_t *val, bool write)
{
	static const uint64_t masks[2][GEMINI_BTE_CHAN_QWORDS] = {
		[TX] = { GEMINI_BTE_TXC_QW1_MASK, GEMINI_BTE_CPU_RING_MASK,
			 GEMINI_BTE_TXC_QW3_MASK, GEMINI_BTE_WR_INDEX_MASK },
		[RX] = { GEMINI_BTE_RXC_QW1_MASK, GEMINI_BTE_CPU_RING_MASK,
			 GEMINI_BTE_RXC_QW3_MASK, GEMINI_BTE_WR_INDEX_MASK },
	};
	struct gemini_bte_chans *c = chans(nic, dir);
	unsigned int vc = (unsigned int)(rel / GEMINI_BTE_CHAN_BYTES);
	unsigned int qw = (unsigned int)(rel % GEMINI_BTE_CHAN_BYTES) / 8;
	unsigned int at = rel & 4;
	uint64_t mask, neu;

	if (qw >= GEMINI_BTE_CHAN_QWORDS) {
		if (!write)
			*val = 0;
		return GEMINI_ACCESS_UNKNOWN;
	}
	mask = masks[dir][qw];
	if (!write) {
		gemini_reg_access(&c->qw[vc][qw], mask, at, size, val, false);
		return GEMINI_ACCESS_OK;
	}
	neu = c->qw[vc][qw];
	gemini_reg_access(&neu, mask, at, size, val, true);
	switch (qw) {
	case 0:
		chan_qw1(nic, dir, vc, neu);
		break;
	case 1:
		if (neu != c->qw[vc][1] &&
		    gemini_bte_chan_enabled(nic, dir, vc))
			GEMINI_GUEST_ERROR(nic, BTE_BUSY, vc, dir);
		else
			c->qw[vc][1] = neu;
		break;
	case 2: {
		/* Only ssid_max_num (TX) or rmt_entries (RX) is the kernel's. */
		uint64_t mine = dir == TX ?
				GEMINI_BTE_TXC_SSID_MAX_MASK <<
				GEMINI_BTE_TXC_SSID_MAX_SHIFT :
				GEMINI_BTE_RXC_RMT_MASK << GEMINI_BTE_RXC_RMT_SHIFT;

		c->qw[vc][2] = (c->qw[vc][2] & ~mine) | (neu & mine);
		break;
	}
	default:
		if (neu >= gemini_bte_ring(c->ring_count, vc) && neu)
			GEMINI_GUEST_ERROR(nic, BTE_WR_INDEX, vc, dir, neu,
					   gemini_bte_ring(c->ring_count, vc));
		else
			c->qw[vc][3] = neu;
		break;
	}
	return GEMINI_ACCESS_OK;
}

/* A ring base or count register: enabled channels' u16s stay. */
static enum gemini_access ring_access(struct gemini_nic *nic, int dir,
				      uint64_t *reg, unsigned int at,
				      unsigned int size, uint64_t *val,
				      bool write)
{
	uint64_t neu = *reg;
	unsigned int vc;

	if (!write) {
		gemini_reg_access(reg, UINT64_MAX, at, size, val, false);
		return GEMINI_ACCESS_OK;
	}
	gemini_reg_access(&neu, UINT64_MAX, at, size, val, true);
	for (vc = 0; vc < GEMINI_NUM_BTE_VC; vc++) {
		unsigned int sh = GEMINI_BTE_RING_FIELD(vc);

		if (gemini_bte_ring(neu, vc) == gemini_bte_ring(*reg, vc) ||
		    !gemini_bte_chan_enabled(nic, dir, vc))
			continue;
		GEMINI_GUEST_ERROR(nic, BTE_BUSY, vc, dir);
		neu = gemini_set_field(neu, sh, 0xffff,
				       gemini_bte_ring(*reg, vc));
	}
	*reg = neu;
	return GEMINI_ACCESS_OK;
}

static enum gemini_access tx_desc_access(struct gemini_nic *nic, uint64_t rel,
					 unsigned int size, uint64_t *val,
					 bool write)
{
	static const uint64_t tx_mask[GEMINI_BTE_TX_DESC_QWORDS] = {
		GEMINI_BTE_QW1_MASK, GEMINI_BTE_QW2_MASK, GEMINI_BTE_QW3_MASK,
		GEMINI_BTE_QW4_MASK, GEMINI_BTE_QW5_MASK, GEMINI_BTE_QW6_MASK,
	};
	unsigned int i = (unsigned int)(rel / GEMINI_BTE_TX_DESC_BYTES);
	unsigned int qw = (unsigned int)(rel % GEMINI_BTE_TX_DESC_BYTES) / 8;

	if (qw >= GEMINI_BTE_TX_DESC_QWORDS) {
		if (!write)
			*val = 0;
		return GEMINI_ACCESS_UNKNOWN;
	}
	gemini_reg_access(&nic->bte.tx[i][qw], tx_mask[qw], rel & 4, size, val,
			  write);
	return GEMINI_ACCESS_OK;
}

static enum gemini_access tx_chan_access(struct gemini_nic *nic, uint64_t rel,
					 unsigned int size, uint64_t *val,
					 bool write)
{
	return chan_access(nic, TX, rel, size, val, write);
}

static enum gemini_access rx_chan_access(struct gemini_nic *nic, uint64_t rel,
					 unsigned int size, uint64_t *val,
					 bool write)
{
	return chan_access(nic, RX, rel, size, val, write);
}

/* The ring base register, then the ring count register. */
static enum gemini_access tx_ring_access(struct gemini_nic *nic, uint64_t rel,
					 unsigned int size, uint64_t *val,
					 bool write)
{
	struct gemini_bte_chans *c = &nic->bte.txc;

	return ring_access(nic, TX, rel < 8 ? &c->ring_base : &c->ring_count,
			   rel & 4, size, val, write);
}

static enum gemini_access rx_ring_access(struct gemini_nic *nic, uint64_t rel,
					 unsigned int size, uint64_t *val,
					 bool write)
{
	struct gemini_bte_chans *c = &nic->bte.rxc;

	return ring_access(nic, RX, rel < 8 ? &c->ring_base : &c->ring_count,
			   rel & 4, size, val, write);
}

static enum gemini_access np_ctrl_access(struct gemini_nic *nic, uint64_t rel,
					 unsigned int size, uint64_t *val,
					 bool write)
{
	gemini_reg_access(&nic->bte.np_ctrl[rel / 8], GEMINI_BTE_NP_CTRL_MASK,
			  rel & 4, size, val, write);
	return GEMINI_ACCESS_OK;
}

static enum gemini_access rx_desc_access(struct gemini_nic *nic, uint64_t rel,
					 unsigned int size, uint64_t *val,
					 bool write)
{
	gemini_reg_access(&nic->bte.rx[rel / 8], UINT64_MAX, rel & 4, size,
			  val, write);
	return GEMINI_ACCESS_OK;
}

#define CHAN_SPAN	(GEMINI_NUM_BTE_VC * GEMINI_BTE_CHAN_BYTES)

const struct gemini_window_region gemini_bte_tx_desc_region = {
	GEMINI_MMR_BTE_TX_DESC,
	GEMINI_MMR_BTE_TX_ENTRY(GEMINI_NUM_BTE_TX) - GEMINI_MMR_BTE_TX_DESC,
	"BTE_TX_DESC", tx_desc_access,
};

const struct gemini_window_region gemini_bte_tx_chan_region = {
	GEMINI_MMR_BTE_TX_CHAN, CHAN_SPAN, "BTE_TX_CHAN", tx_chan_access,
};

const struct gemini_window_region gemini_bte_tx_ring_region = {
	GEMINI_MMR_BTE_TX_RING_BASE, 16, "BTE_TX_RING", tx_ring_access,
};

const struct gemini_window_region gemini_bte_np_ctrl_region = {
	GEMINI_MMR_BTE_NP_CTRL, 8 * GEMINI_NUM_BTE_VC, "BTE_NP_CTRL",
	np_ctrl_access,
};

const struct gemini_window_region gemini_bte_rx_desc_region = {
	GEMINI_MMR_BTE_RX_DESC,
	GEMINI_MMR_BTE_RX_ENTRY(GEMINI_NUM_BTE_RX) - GEMINI_MMR_BTE_RX_DESC,
	"BTE_RX_DESC", rx_desc_access,
};

const struct gemini_window_region gemini_bte_rx_chan_region = {
	GEMINI_MMR_BTE_RX_CHAN, CHAN_SPAN, "BTE_RX_CHAN", rx_chan_access,
};

const struct gemini_window_region gemini_bte_rx_ring_region = {
	GEMINI_MMR_BTE_RX_RING_BASE, 16, "BTE_RX_RING", rx_ring_access,
};

enum gemini_access gemini_bte_access(struct gemini_nic *nic, uint64_t off,
				     unsigned int size, uint64_t *val,
				     bool write)
{
	static const struct gemini_window_region *const regions[] = {
		&gemini_bte_tx_desc_region, &gemini_bte_tx_chan_region,
		&gemini_bte_tx_ring_region, &gemini_bte_np_ctrl_region,
		&gemini_bte_rx_desc_region, &gemini_bte_rx_chan_region,
		&gemini_bte_rx_ring_region,
	};

	return gemini_window_regions_access(regions, sizeof(regions) /
					    sizeof(regions[0]), nic, off,
					    size, val, write);
}

bool gemini_bte_busy(const struct gemini_nic *nic)
{
	return nic->bte.next_timeout;
}

void gemini_bte_reset(struct gemini_nic *nic)
{
	unsigned int vc;

	memset(&nic->bte, 0, sizeof(nic->bte));
	for (vc = 0; vc < GEMINI_NUM_BTE_VC; vc++)
		nic->bte.np_ctrl[vc] = GEMINI_BTE_NP_CTRL_DEFAULT;
}

void gemini_bte_chan_irq(struct gemini_nic *nic, enum gemini_bte_dir dir,
			 unsigned int vc)
{
	uint64_t qw1 = chans(nic, dir)->qw[vc][0];
	unsigned int idx, on;

	if (dir == TX) {
		idx = (unsigned int)gemini_field(qw1, GEMINI_BTE_TXC_IRQ_SHIFT,
						 GEMINI_BTE_TXC_IRQ_MASK);
		on = gemini_field(qw1, GEMINI_BTE_TXC_FLAGS_SHIFT,
				  GEMINI_BTE_TXC_FLAGS_MASK) &
		     GEMINI_BTE_TXC_IRQ_ENABLE;
	} else {
		idx = (unsigned int)gemini_field(qw1, GEMINI_BTE_RXC_IRQ_SHIFT,
						 GEMINI_BTE_RXC_IRQ_MASK);
		on = gemini_field(qw1, GEMINI_BTE_RXC_FLAGS_SHIFT,
				  GEMINI_BTE_RXC_FLAGS_MASK) &
		     GEMINI_BTE_RXC_IRQ_ENABLE;
	}
	if (!on)
		return;
	if (!idx)
		idx = GEMINI_IRQ_FIRST + 2 * vc + (dir == TX);
	if (idx < GEMINI_IRQ_FIRST)
		GEMINI_GUEST_ERROR(nic, IRQ_VECTOR, idx, nic->cfg.num_vectors);
	else
		gemini_nic_raise_irq(nic, idx - GEMINI_IRQ_FIRST);
}
