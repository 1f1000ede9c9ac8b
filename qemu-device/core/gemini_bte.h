/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cray-gemini device core: the BTE, the NIC's block transfer engine
 * (gemini_bte.c).  Its registers in the NIC window: TX descriptors, TX
 * channel descriptors and their rings, non-posted operation control, RX
 * descriptors and RX channel descriptors (uapi/gemini_nic.h).  The engine
 * that carries out the transfers is built on them step by step
 * (Documentation/plans/bte.md); until it is, a transfer queued on an
 * enabled channel waits.
 */
#ifndef GEMINI_BTE_H
#define GEMINI_BTE_H

#include <stdbool.h>
#include <stdint.h>

#include "gemini_hw.h"
#include "gemini_nic.h"
#include "gemini_reg.h"

/* One direction's channel descriptors and rings. */
struct gemini_bte_chans {
	uint64_t qw[GEMINI_NUM_BTE_VC][GEMINI_BTE_CHAN_QWORDS];
	uint64_t ring_base;		/* one u16 per VC */
	uint64_t ring_count;
};

struct gemini_bte {
	uint64_t tx[GEMINI_NUM_BTE_TX][GEMINI_BTE_TX_DESC_QWORDS];
	struct gemini_bte_chans txc;
	uint64_t np_ctrl[GEMINI_NUM_BTE_VC];
	uint64_t rx[GEMINI_NUM_BTE_RX];
	struct gemini_bte_chans rxc;
};

struct gemini_nic;

/*
 * The BTE's registers: UNKNOWN if @off is none of them.  @size is 4 or 8
 * and @off aligned to it (the window checked).
 */
enum gemini_access gemini_bte_access(struct gemini_nic *nic, uint64_t off,
				     unsigned int size, uint64_t *val,
				     bool write);
/* Device reset: channels disabled, rings and descriptors cleared. */
void gemini_bte_reset(struct gemini_nic *nic);

#endif /* GEMINI_BTE_H */
