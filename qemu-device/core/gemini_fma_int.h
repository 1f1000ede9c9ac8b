/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cray-gemini device core: what the FMA's three files share, private to
 * them (the rest of the device sees the FMA through gemini_core.h).
 *
 * gemini_fma.c turns window stores and doorbells into requests,
 * gemini_fma_seq.c keeps their sequences and ORB entries and takes their
 * responses, gemini_fma_regs.c serves the descriptors' control pages.
 */
#ifndef GEMINI_FMA_INT_H
#define GEMINI_FMA_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "gemini_core.h"
#include "gemini_reg.h"

#define OFFSET_MASK	((1ull << GEMINI_PKT_ADDR_BITS) - 1)
#define SSID_NONE	(-1)

/* --- descriptor fields -------------------------------------------------- */

static inline unsigned int d_cmd(const struct gemini_fma_desc *d)
{
	return (unsigned int)gemini_field(d->cmd, GEMINI_FMA_CMD_SHIFT,
					  GEMINI_FMA_CMD_MASK);
}

static inline unsigned int d_rem_mdh(const struct gemini_fma_desc *d)
{
	return (unsigned int)gemini_field(d->cmd, GEMINI_FMA_REM_MDH_SHIFT,
					  GEMINI_FMA_MDH_MASK);
}

static inline unsigned int d_src_mdh(const struct gemini_fma_desc *d)
{
	return (unsigned int)gemini_field(d->cmd, GEMINI_FMA_SRC_MDH_SHIFT,
					  GEMINI_FMA_MDH_MASK);
}

static inline unsigned int d_mode2(const struct gemini_fma_desc *d)
{
	return (unsigned int)gemini_field(d->cmd, GEMINI_FMA_MODE2_SHIFT,
					  GEMINI_FMA_MODE2_MASK);
}

static inline unsigned int d_cqh(const struct gemini_fma_desc *d)
{
	return (unsigned int)gemini_field(d->pe, GEMINI_FMA_CQH_SHIFT,
					  GEMINI_FMA_CQH_MASK);
}

static inline unsigned int d_src_ptag(const struct gemini_fma_desc *d)
{
	return (unsigned int)gemini_field(d->pe, GEMINI_FMA_SRC_PTAG_SHIFT,
					  GEMINI_FMA_PTAG_MASK);
}

static inline unsigned int d_dest_ptag(const struct gemini_fma_desc *d)
{
	return (unsigned int)gemini_field(d->pe, GEMINI_FMA_DEST_PTAG_SHIFT,
					  GEMINI_FMA_PTAG_MASK);
}

/* --- requests (gemini_fma.c) -------------------------------------------- */

/*
 * Point @pkt at window offset @x of descriptor @di: base_offset + @x split
 * by the PE mask mode, the PE translated by the NTT if enabled.  Returns
 * GEMINI_STATUS_OK, or NPES (NTT group violation) with @pkt untouched.
 */
unsigned int gemini_fma_target(struct gemini_nic *nic, unsigned int di,
			       uint64_t x, struct gemini_pkt *pkt);
/* The alloc-SyncId doorbell: open a sequence now; refused if none is free. */
void gemini_fma_alloc_syncid(struct gemini_nic *nic, unsigned int di);
/* The CQ-write doorbell: a CQWRITE of @val to the window base's target. */
void gemini_fma_cq_write(struct gemini_nic *nic, unsigned int di, uint64_t val);

/* --- sequences and the ORB (gemini_fma_seq.c) --------------------------- */

/* The descriptor's open sequence, opened if need be; SSID_NONE if full. */
int gemini_fma_seq_open(struct gemini_nic *nic, unsigned int di);
/*
 * Issue @pkt for sequence @si of descriptor @di; @fetch: its DATA goes to
 * @local_offset of the source domain.  Returns false if the ORB is full.
 */
bool gemini_fma_orb_issue(struct gemini_nic *nic, unsigned int si,
			  unsigned int di, struct gemini_pkt *pkt, bool fetch,
			  uint64_t local_offset);
/* The sync-complete doorbell of descriptor @di, written @val. */
void gemini_fma_sync_complete(struct gemini_nic *nic, unsigned int di,
			      uint64_t val);
/*
 * The kernel disabled descriptor @di (to free it or hand it on): its open
 * sequence is closed as if synced with no event, so that it ends once its
 * requests are answered or time out, and the SSID count the kernel polls
 * drops to 0.  An error pending for the old owner is not the new one's.
 */
void gemini_fma_disabled(struct gemini_nic *nic, unsigned int di);

#endif /* GEMINI_FMA_INT_H */
