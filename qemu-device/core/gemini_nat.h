/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cray-gemini device core: NAT, the NIC's address translation
 * (gemini_nat.c).  The memory domain descriptors, the MRT, the node's
 * GART (control registers) and the NTT: what a request may touch and
 * where it lies, and which PE a source-side NTT index names.
 */
#ifndef GEMINI_NAT_H
#define GEMINI_NAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gemini_nic.h"
#include "gemini_reg.h"

/* The tables as the driver wrote them (bits no field names are kept 0). */
struct gemini_nat {
	uint64_t mdd[GEMINI_NUM_MDD][2];
	uint32_t mrt[GEMINI_NUM_MRT];
	uint64_t mrt_page_size;		/* GEMINI_MRT_PS_* code */
	uint64_t ntt[GEMINI_NTT_BANKS][GEMINI_NTT_BANK_ENTRIES];
	uint64_t ntt_config;
	/* The node's GART (control block registers, vgemini_ctl.h) */
	uint64_t gart_base;		/* VGEMINI_GART_BASE_MASK bits */
	uint32_t gart_entries;		/* 0 = off */
};

/* A run of node-physical memory that one request touches. */
struct gemini_dma_piece {
	uint64_t addr;
	uint64_t len;
};

/*
 * A packet (at most 64 bytes) spans at most two MRT or GART pages, or the
 * last physical page below the GART aperture and the first GART page.
 */
#define GEMINI_NAT_MAX_PIECES	2

struct gemini_nic;

/* The NAT's regions of the NIC window (gemini_reg.h). */
extern const struct gemini_window_region gemini_nat_ntt_region;
extern const struct gemini_window_region gemini_nat_ntt_config_region;
extern const struct gemini_window_region gemini_nat_mrt_region;
extern const struct gemini_window_region gemini_nat_mdd_region;
extern const struct gemini_window_region gemini_nat_mrt_page_size_region;
/*
 * MDD, MRT, MRT page size, NTT and NTT config registers, at their offsets
 * in the window; @val is read or written as @write says.
 * GEMINI_ACCESS_UNKNOWN if @off is none of them.  @size is 4 or 8 and
 * @off aligned to it (the window checked).
 */
enum gemini_access gemini_nat_access(struct gemini_nic *nic, uint64_t off,
				     unsigned int size, uint64_t *val,
				     bool write);
/*
 * May a request with @ptag use memory domain @mdh at all?  Returns
 * GEMINI_STATUS_OK, MDD_INV or PROTECTION.
 */
unsigned int gemini_nat_check(const struct gemini_nic *nic, unsigned int ptag,
			      unsigned int mdh);
/*
 * Check a request with @ptag for [@offset, @offset + @len) of memory domain
 * @mdh (@write: it modifies memory) and translate the range into node-
 * physical pieces, at most @max.  Returns GEMINI_STATUS_OK with the pieces
 * in @piece[0..*npieces), or the status of the first check that failed
 * (MDD_INV, PROTECTION, BOUNDS, WRITE_PERM, TRANSLATION; MALFORMED for
 * @len 0 or a range needing more than @max pieces).  Writes no memory; it
 * reads the GART entries the range needs.
 */
unsigned int gemini_nat_translate(const struct gemini_nic *nic,
				  unsigned int ptag, unsigned int mdh,
				  uint64_t offset, uint64_t len, bool write,
				  struct gemini_dma_piece *piece,
				  unsigned int max, unsigned int *npieces);
/* The CQ handle of remote events of memory domain @mdh. */
unsigned int gemini_nat_cqh(const struct gemini_nic *nic, unsigned int mdh);
/* The physical PE of NTT index @idx, or -1 past the table. */
int64_t gemini_nat_ntt_lookup(const struct gemini_nic *nic, uint64_t idx);
/* Copy between @buf and the pieces, in order; 0, or -1 if the bus refused. */
int gemini_nat_dma_read(struct gemini_nic *nic,
			const struct gemini_dma_piece *piece, unsigned int n,
			void *buf);
int gemini_nat_dma_write(struct gemini_nic *nic,
			 const struct gemini_dma_piece *piece, unsigned int n,
			 const void *buf);
void gemini_nat_reset(struct gemini_nic *nic);
/* GART_BASE and GART_ENTRIES. */
extern const struct gemini_ctl_table gemini_nat_ctl_table;

#endif /* GEMINI_NAT_H */
