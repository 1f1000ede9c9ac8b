// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cray-gemini device core: NAT, the NIC's address translation.
 *
 * A request names memory by (ptag, MDH, 40-bit offset).  The MDH selects a
 * memory domain descriptor (MDD) that the driver programmed; the MDD says
 * which ptag may use the domain, where it lies and whether it may be
 * written.  Layouts are in uapi/gemini_nic.h.  How vgemini reads the MDD
 * (the references give the fields, not the arithmetic):
 *
 *  - The domain is a range of a 48-bit "domain address" space:
 *    byte @offset of the domain is at domain address mem_base + @offset,
 *    where mem_base is the MDD field << 12.  The last valid byte is
 *    (max_base << 12) | 0xfff: max_base holds bits 47..12 of the highest
 *    valid address, so the domain ends at the end of that 4 KiB page.  A
 *    request for [offset, offset + len) is within bounds when offset + len
 *    <= 2^40 (the last byte has a 40-bit offset) and
 *    mem_base + offset + len - 1 <= that last byte;
 *    a domain whose max_base is below its mem_base has no valid byte.
 *  - Without mrt_enable, domain addresses below VGEMINI_GART_APERTURE
 *    (2^47) are node-physical addresses: that part of the domain is
 *    physically contiguous.  From the aperture up they go through the
 *    node's GART (vgemini_ctl.h), a table of 8-byte entries in node memory
 *    that the driver places with the control block's GART_BASE and
 *    GART_ENTRIES: domain address a is at offset a & 0xfff of the 4 KiB
 *    page that entry (a - aperture) >> 12 holds.  An index at or past
 *    GART_ENTRIES, an entry the bus refuses to read, or one without its
 *    valid bit is a translation error.  So the driver places a
 *    registration at GART entries i..j by setting mem_base to
 *    aperture + (i << 12) and max_base to the address of its last byte,
 *    and any pinned pages qualify.  The entries are read at every request,
 *    as a GART walks its table in memory.
 *  - With mrt_enable, domain addresses are addresses in the MRT's space:
 *    the MRT cuts that space into pages of the global MRT page size, and
 *    entry i maps page i (domain addresses [i << shift, (i + 1) << shift))
 *    to the node-physical page the entry holds.  So the driver places a
 *    registration at MRT entries i..j by setting mem_base to
 *    (i << shift) plus the 4 KiB-aligned start of the buffer in its first
 *    page, and max_base to the address of its last byte.  An entry without
 *    its valid bit, or a page index past the table, is a translation
 *    error.  Entry bits below the page size are ignored (the page address
 *    is the entry's address rounded down to the page size).
 *
 * Every check is made, and every page translated, before anything moves:
 * a refused request leaves memory untouched.  Checks run in this order and
 * the first failure is the status: MDD not valid (MDD_INV), ptag 0 or not
 * the MDD's (PROTECTION), out of bounds (BOUNDS), a write to a domain
 * without WRITABLE (WRITE_PERM), an MRT or GART miss (TRANSLATION).
 *
 * The NTT translates PEs on output, at the source: FMA asks
 * gemini_nat_ntt_lookup() when a descriptor enables it.
 */
#include <string.h>

#include "gemini_core.h"
#include "gemini_reg.h"

#define OFFSET_LIMIT	(1ull << GEMINI_PKT_ADDR_BITS)
#define PAGE_4K_MASK	((1ull << GEMINI_MDD_ADDR_SHIFT) - 1)

/* --- Registers ---------------------------------------------------------- */

static enum gemini_access mdd_access(struct gemini_nic *nic, uint64_t rel,
				     unsigned int size, uint64_t *val,
				     bool write)
{
	uint64_t *mdd = nic->nat.mdd[rel / GEMINI_MDD_BYTES];
	unsigned int qw = (rel % GEMINI_MDD_BYTES) / 8;

	gemini_reg_access(&mdd[qw], qw ? GEMINI_MDD_QW2_MASK :
			  GEMINI_MDD_QW1_MASK, rel & 4, size, val, write);
	return GEMINI_ACCESS_OK;
}

static enum gemini_access mrt_access(struct gemini_nic *nic, uint64_t rel,
				     unsigned int size, uint64_t *val,
				     bool write)
{
	uint32_t *e = &nic->nat.mrt[rel / GEMINI_MRT_BYTES];

	/* An aligned qword covers two entries, the lower one first. */
	if (write) {
		e[0] = (uint32_t)*val & GEMINI_MRT_ENTRY_MASK;
		if (size == 8)
			e[1] = (uint32_t)(*val >> 32) & GEMINI_MRT_ENTRY_MASK;
	} else {
		*val = e[0] | (size == 8 ? (uint64_t)e[1] << 32 : 0);
	}
	return GEMINI_ACCESS_OK;
}

/* Both banks: a write with GEMINI_NTT_WRITE_BOTH sets the entry in each. */
static enum gemini_access ntt_access(struct gemini_nic *nic, uint64_t off,
				     unsigned int size, uint64_t *val,
				     bool write)
{
	unsigned int bank = (unsigned int)(off / GEMINI_NTT_BANK_STRIDE);
	uint64_t rel = off % GEMINI_NTT_BANK_STRIDE;
	unsigned int idx = (rel & (GEMINI_NTT_WRITE_BOTH - 1)) / 8;
	unsigned int b;

	if (!write || !(rel & GEMINI_NTT_WRITE_BOTH)) {
		gemini_reg_access(&nic->nat.ntt[bank][idx],
				  GEMINI_NTT_ENTRY_MASK, rel & 4, size, val,
				  write);
		return GEMINI_ACCESS_OK;
	}
	for (b = 0; b < GEMINI_NTT_BANKS; b++) {
		uint64_t v = *val;

		gemini_reg_access(&nic->nat.ntt[b][idx], GEMINI_NTT_ENTRY_MASK,
				  rel & 4, size, &v, true);
	}
	return GEMINI_ACCESS_OK;
}

static enum gemini_access ntt_config_access(struct gemini_nic *nic,
					    uint64_t rel, unsigned int size,
					    uint64_t *val, bool write)
{
	gemini_reg_access(&nic->nat.ntt_config, GEMINI_NTT_CFG_MASK, rel & 4,
			  size, val, write);
	return GEMINI_ACCESS_OK;
}

static enum gemini_access mrt_page_size_access(struct gemini_nic *nic,
					       uint64_t rel, unsigned int size,
					       uint64_t *val, bool write)
{
	gemini_reg_access(&nic->nat.mrt_page_size, GEMINI_MRT_PAGE_SIZE_MASK,
			  rel & 4, size, val, write);
	return GEMINI_ACCESS_OK;
}

const struct gemini_window_region gemini_nat_ntt_region = {
	GEMINI_MMR_NTT0, GEMINI_NTT_BANKS * GEMINI_NTT_BANK_STRIDE, "NTT",
	ntt_access,
};

const struct gemini_window_region gemini_nat_ntt_config_region = {
	GEMINI_MMR_NTT_CONFIG, 8, "NTT_CONFIG", ntt_config_access,
};

const struct gemini_window_region gemini_nat_mrt_region = {
	GEMINI_MMR_MRT, (uint64_t)GEMINI_NUM_MRT * GEMINI_MRT_BYTES, "MRT",
	mrt_access,
};

const struct gemini_window_region gemini_nat_mdd_region = {
	GEMINI_MMR_MDD, (uint64_t)GEMINI_NUM_MDD * GEMINI_MDD_BYTES, "MDD",
	mdd_access,
};

const struct gemini_window_region gemini_nat_mrt_page_size_region = {
	GEMINI_MMR_MRT_PAGE_SIZE, 8, "MRT_PAGE_SIZE", mrt_page_size_access,
};

enum gemini_access gemini_nat_access(struct gemini_nic *nic, uint64_t off,
				     unsigned int size, uint64_t *val,
				     bool write)
{
	static const struct gemini_window_region *const regions[] = {
		&gemini_nat_ntt_region, &gemini_nat_ntt_config_region,
		&gemini_nat_mrt_region, &gemini_nat_mdd_region,
		&gemini_nat_mrt_page_size_region,
	};

	return gemini_window_regions_access(regions, sizeof(regions) /
					    sizeof(regions[0]), nic, off,
					    size, val, write);
}

void gemini_nat_reset(struct gemini_nic *nic)
{
	memset(&nic->nat, 0, sizeof(nic->nat));
}

/* --- Translation -------------------------------------------------------- */

int64_t gemini_nat_ntt_lookup(const struct gemini_nic *nic, uint64_t idx)
{
	unsigned int gran;
	uint64_t low, e, qw;

	gran = (unsigned int)gemini_field(nic->nat.ntt_config,
					  GEMINI_NTT_CFG_GRAN0_SHIFT,
					  GEMINI_NTT_CFG_GRAN_MASK);
	low = idx & ((1ull << gran) - 1);
	e = idx >> gran;
	if (e >= GEMINI_NUM_NTT)
		return -1;
	qw = nic->nat.ntt[0][e / 2];
	qw = gemini_field(qw,
			  e & 1 ? GEMINI_NTT_PE1_SHIFT : GEMINI_NTT_PE0_SHIFT,
			  GEMINI_NTT_PE_MASK);
	/* (interpretation) the low gran bits of the index pass through */
	return (int64_t)((qw & ~((1ull << gran) - 1)) | low);
}

unsigned int gemini_nat_check(const struct gemini_nic *nic, unsigned int ptag,
			      unsigned int mdh)
{
	const uint64_t *mdd;

	if (mdh >= GEMINI_NUM_MDD)
		return GEMINI_STATUS_MDD_INV;
	mdd = nic->nat.mdd[mdh];
	if (!(gemini_field(mdd[1], GEMINI_MDD_MODES_SHIFT,
			   GEMINI_MDD_MODES_MASK) & GEMINI_MDD_MODE_VALID))
		return GEMINI_STATUS_MDD_INV;
	/* Ptag 0 is no job's: it never matches, even a zeroed MDD. */
	if (!ptag || ptag != gemini_field(mdd[0], GEMINI_MDD_PTAG_SHIFT,
					  GEMINI_MDD_PTAG_MASK))
		return GEMINI_STATUS_PROTECTION;
	return GEMINI_STATUS_OK;
}

unsigned int gemini_nat_cqh(const struct gemini_nic *nic, unsigned int mdh)
{
	if (mdh >= GEMINI_NUM_MDD)
		return 0;
	return (unsigned int)gemini_field(nic->nat.mdd[mdh][1],
					  GEMINI_MDD_CQH_SHIFT,
					  GEMINI_MDD_CQH_MASK);
}

/* The GART entry of domain address @addr (at or above the aperture). */
static bool gart_lookup(const struct gemini_nic *nic, uint64_t addr,
			uint64_t *page)
{
	uint64_t idx = (addr - VGEMINI_GART_APERTURE) >>
		       VGEMINI_GART_PAGE_SHIFT;
	uint8_t le[VGEMINI_GART_ENTRY_BYTES];
	uint64_t e = 0;
	int i;

	if (idx >= nic->nat.gart_entries)
		return false;
	/* Base below 2^52, idx below 2^20: no overflow. */
	if (gemini_dma_read(nic, nic->nat.gart_base +
			    idx * VGEMINI_GART_ENTRY_BYTES, le, sizeof(le)))
		return false;
	for (i = VGEMINI_GART_ENTRY_BYTES - 1; i >= 0; i--)
		e = e << 8 | le[i];
	if (!(e & VGEMINI_GART_VALID))
		return false;
	*page = e & VGEMINI_GART_ADDR_MASK;
	return true;
}

/* Without the MRT: physical below the GART aperture, the GART above. */
static unsigned int direct_translate(const struct gemini_nic *nic,
				     uint64_t addr, uint64_t len,
				     struct gemini_dma_piece *piece,
				     unsigned int max, unsigned int *npieces)
{
	unsigned int n = 0;

	while (len) {
		uint64_t chunk, page;

		if (addr < VGEMINI_GART_APERTURE) {
			chunk = VGEMINI_GART_APERTURE - addr;
			page = addr & ~PAGE_4K_MASK;
		} else {
			chunk = VGEMINI_GART_PAGE_SIZE - (addr & PAGE_4K_MASK);
			if (!gart_lookup(nic, addr, &page))
				return GEMINI_STATUS_TRANSLATION;
		}
		if (chunk > len)
			chunk = len;
		if (n == max)
			return GEMINI_STATUS_MALFORMED;
		piece[n].addr = page | (addr & PAGE_4K_MASK);
		piece[n].len = chunk;
		n++;
		addr += chunk;
		len -= chunk;
	}
	*npieces = n;
	return GEMINI_STATUS_OK;
}

unsigned int gemini_nat_translate(const struct gemini_nic *nic,
				  unsigned int ptag, unsigned int mdh,
				  uint64_t offset, uint64_t len, bool write,
				  struct gemini_dma_piece *piece,
				  unsigned int max, unsigned int *npieces)
{
	const uint64_t *mdd;
	uint64_t base, last, addr, page, left;
	unsigned int status, shift, n = 0;

	*npieces = 0;
	status = gemini_nat_check(nic, ptag, mdh);
	if (status != GEMINI_STATUS_OK)
		return status;
	if (!len || !max)
		return GEMINI_STATUS_MALFORMED;
	mdd = nic->nat.mdd[mdh];

	/* Both are below 2^48 and offset + len below 2^40: no overflow. */
	if (offset >= OFFSET_LIMIT || len > OFFSET_LIMIT - offset)
		return GEMINI_STATUS_BOUNDS;
	base = gemini_field(mdd[0], GEMINI_MDD_MEM_BASE_SHIFT,
			    GEMINI_MDD_MEM_BASE_MASK) << GEMINI_MDD_ADDR_SHIFT;
	last = (gemini_field(mdd[1], GEMINI_MDD_MAX_BASE_SHIFT,
			     GEMINI_MDD_MAX_BASE_MASK) <<
		GEMINI_MDD_ADDR_SHIFT) | PAGE_4K_MASK;
	addr = base + offset;
	if (addr + len - 1 > last)
		return GEMINI_STATUS_BOUNDS;

	if (write && !(gemini_field(mdd[1], GEMINI_MDD_MODES_SHIFT,
				    GEMINI_MDD_MODES_MASK) &
		       GEMINI_MDD_MODE_WRITABLE))
		return GEMINI_STATUS_WRITE_PERM;

	if (!(mdd[0] & GEMINI_MDD_MRT_ENABLE))
		return direct_translate(nic, addr, len, piece, max, npieces);

	shift = GEMINI_MRT_PAGE_SHIFT(nic->nat.mrt_page_size &
				      GEMINI_MRT_PAGE_SIZE_MASK);
	page = 1ull << shift;
	for (left = len; left; ) {
		uint64_t idx = addr >> shift, in = addr & (page - 1);
		uint64_t chunk = page - in < left ? page - in : left;
		uint32_t e;

		if (idx >= GEMINI_NUM_MRT)
			return GEMINI_STATUS_TRANSLATION;
		e = nic->nat.mrt[idx];
		if (!(e & GEMINI_MRT_VALID))
			return GEMINI_STATUS_TRANSLATION;
		if (n == max)
			return GEMINI_STATUS_MALFORMED;
		piece[n].addr = (GEMINI_MRT_DECODE(e) & ~(page - 1)) | in;
		piece[n].len = chunk;
		n++;
		addr += chunk;
		left -= chunk;
	}
	*npieces = n;
	return GEMINI_STATUS_OK;
}

int gemini_nat_dma_read(struct gemini_nic *nic,
			const struct gemini_dma_piece *piece, unsigned int n,
			void *buf)
{
	uint8_t *p = buf;
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (gemini_dma_read(nic, piece[i].addr, p, piece[i].len))
			return -1;
		p += piece[i].len;
	}
	return 0;
}

int gemini_nat_dma_write(struct gemini_nic *nic,
			 const struct gemini_dma_piece *piece, unsigned int n,
			 const void *buf)
{
	const uint8_t *p = buf;
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (gemini_dma_write(nic, piece[i].addr, p, piece[i].len))
			return -1;
		p += piece[i].len;
	}
	return 0;
}

/* --- Control registers: the GART ---------------------------------------- */

static void ctl_gart_entries(struct gemini_nic *nic, uint64_t val)
{
	if (val > VGEMINI_GART_MAX_ENTRIES) {
		GEMINI_GUEST_ERROR(nic, GART_ENTRIES, (uint32_t)val,
				   VGEMINI_GART_MAX_ENTRIES);
		val = VGEMINI_GART_MAX_ENTRIES;
	}
	nic->nat.gart_entries = (uint32_t)val;
}

static const struct gemini_ctl_reg nat_regs[] = {
	{ GEMINI_CTL(GART_BASE, 8, RW), GEMINI_CTL_FIELD(nat.gart_base),
	  .mask = VGEMINI_GART_BASE_MASK },
	{ GEMINI_CTL(GART_ENTRIES, 4, RW),
	  GEMINI_CTL_FIELD(nat.gart_entries), .write = ctl_gart_entries },
};

const struct gemini_ctl_table gemini_nat_ctl_table =
	GEMINI_CTL_TABLE(nat_regs);
