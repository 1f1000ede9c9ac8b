/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cray-gemini device core: the control block, BAR0 (gemini_ctl.c).  Its
 * own registers (identity, scratch, the test DMA engine) and the walk over
 * every block's register table: the ports', the router's, the
 * diagnostics', the GART's and the NIC counters' (gemini_reg.h).
 */
#ifndef GEMINI_CTL_H
#define GEMINI_CTL_H

#include <stdint.h>

#include "gemini_reg.h"

/* The control block's own registers. */
struct gemini_ctl {
	uint64_t scratch;
	uint64_t dma_addr;
	uint64_t dma_dst;
	uint32_t dma_len;
	uint32_t dma_pattern;
	uint32_t dma_status;
	uint32_t dma_irq;
};

struct gemini_nic;

/* BAR0.  @size is the guest's access size. */
enum gemini_access gemini_ctl_read(struct gemini_nic *nic, uint64_t offset,
				   unsigned int size, uint64_t *val);
enum gemini_access gemini_ctl_write(struct gemini_nic *nic, uint64_t offset,
				    unsigned int size, uint64_t val);
/*
 * The name of the control register that byte @offset of BAR0 is in, as
 * vgemini_ctl.h names it without VGEMINI_CTL_ ("SCRATCH", "PORT_STATE",
 * "PC_VC0_PHITS"), for traces and logs; "?" where there is none.  Never
 * NULL.  An 8-byte access is named by its first word's register.
 */
const char *gemini_ctl_reg_name(uint64_t offset);
void gemini_ctl_reset(struct gemini_nic *nic);

#endif /* GEMINI_CTL_H */
