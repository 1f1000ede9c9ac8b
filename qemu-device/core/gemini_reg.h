/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cray-gemini device core: what every register file shares.  How an
 * access went, the qword helpers of the NIC window's tables and of the
 * fields in registers and descriptors, the regions of the NIC window
 * (BAR2), which each block that decodes part of it declares
 * (gemini_core.c tables them), and the entry of the control block's
 * register tables (BAR0), which each block that has control registers
 * declares over its own state (gemini_ctl.c walks them).
 */
#ifndef GEMINI_REG_H
#define GEMINI_REG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vgemini_ctl.h"

struct gemini_nic;

/* How an access to a register window went; the glue traces all but OK. */
enum gemini_access {
	GEMINI_ACCESS_OK = 0,
	GEMINI_ACCESS_BAD_SIZE,		/* not 4 or 8 bytes, or unaligned */
	GEMINI_ACCESS_UNKNOWN,		/* no register at that offset */
	GEMINI_ACCESS_READ_ONLY,	/* write to a read-only register */
	GEMINI_ACCESS_WRITE_ONLY,	/* read of a write-only register */
};

/* A 4- or 8-byte access at @offset, aligned, inside a window of @limit. */
static inline bool gemini_access_size_ok(uint64_t offset, unsigned int size,
					 uint64_t limit)
{
	return (size == 4 || size == 8) && !(offset & (size - 1)) &&
	       offset < limit && size <= limit - offset;
}

/*
 * A 4- or 8-byte access (@size, already checked aligned) at byte @at (0
 * or 4) of the 64-bit register @reg whose defined bits are @mask: a read
 * fills *@val, a write merges *@val into the half or whole qword.
 */
static inline void gemini_reg_access(uint64_t *reg, uint64_t mask,
				     unsigned int at, unsigned int size,
				     uint64_t *val, bool write)
{
	unsigned int shift = at * 8;

	if (size == 8) {
		if (write)
			*reg = *val & mask;
		else
			*val = *reg;
	} else if (write) {
		*reg = ((*reg & ~(0xffffffffull << shift)) |
			((*val & 0xffffffffull) << shift)) & mask;
	} else {
		*val = (*reg >> shift) & 0xffffffffull;
	}
}

/* The field of @qw at bit @shift, @mask wide (the mask not shifted). */
static inline uint64_t gemini_field(uint64_t qw, unsigned int shift,
				    uint64_t mask)
{
	return (qw >> shift) & mask;
}

/* @qw with its field at @shift, @mask wide, set to @v (cut to @mask). */
static inline uint64_t gemini_set_field(uint64_t qw, unsigned int shift,
					uint64_t mask, uint64_t v)
{
	return (qw & ~(mask << shift)) | ((v & mask) << shift);
}

/* --- NIC window regions (BAR2) ----------------------------------------- */

/*
 * Bytes [@base, @base + @span) of the NIC window, which one block decodes:
 * @access gets the offset from @base (@size 4 or 8, the offset aligned to
 * it) and answers GEMINI_ACCESS_UNKNOWN for a hole, zeroing *@val on a
 * read.  @base and @span are multiples of 8, so an access never straddles
 * two regions.  A block declares its regions in its header; gemini_core.c
 * puts them in one table, by @base.
 */
struct gemini_window_region {
	uint64_t base;
	uint64_t span;
	const char *name;
	enum gemini_access (*access)(struct gemini_nic *nic, uint64_t rel,
				     unsigned int size, uint64_t *val,
				     bool write);
};

/*
 * An access at @off to the first of the @n regions @tab that holds it;
 * GEMINI_ACCESS_UNKNOWN if none does.  A block's own registers at their
 * offsets in the window (gemini_nat_access() and the like).
 */
static inline enum gemini_access
gemini_window_regions_access(const struct gemini_window_region *const *tab,
			     unsigned int n, struct gemini_nic *nic,
			     uint64_t off, unsigned int size, uint64_t *val,
			     bool write)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (off >= tab[i]->base && off - tab[i]->base < tab[i]->span)
			return tab[i]->access(nic, off - tab[i]->base, size,
					      val, write);
	return GEMINI_ACCESS_UNKNOWN;
}

/* --- Control block registers (BAR0) ------------------------------------ */

/* What the guest may do with a control register. */
enum gemini_ctl_access {
	GEMINI_CTL_RO,		/* a write is refused (READ_ONLY) */
	GEMINI_CTL_RW,
	GEMINI_CTL_WO,		/* a read is refused (WRITE_ONLY) */
};

/*
 * A register, or an array of @count alike ones (register @i at @offset +
 * @i * @stride; @stride only for an array).  Its value is kept in struct
 * gemini_nic at @field (the array's at @field + @i * @fstride), or is
 * computed by @read, or is constant (@value: no @read and @field 0, where
 * struct gemini_nic has no register); a write stores it there under @mask
 * unless @write takes it.  A block names only fields of its own state.
 *
 * @offset, @name: VGEMINI_CTL_<name> of vgemini_ctl.h (the array's first);
 *	in a port's block VGEMINI_<name>, among the counters VGEMINI_PC_<id>
 *	(named PC_<id>) and VGEMINI_NC_<id> (NC_<id>)
 * @size: 4 or 8 bytes; the field is a u32 or a u64 to match
 * @access: enum gemini_ctl_access
 * @mask: the bits a write keeps (an RW register without @write)
 * @read: the value of register @i
 * @write: a write of @val, the register's new value (with a half write,
 *	merged with the other half)
 */
struct gemini_ctl_reg {
	uint16_t offset;
	uint8_t size;
	uint8_t access;
	uint16_t count;
	uint16_t stride;
	const char *name;
	size_t field;
	size_t fstride;
	uint64_t value;
	uint64_t mask;
	uint64_t (*read)(const struct gemini_nic *nic, unsigned int i);
	void (*write)(struct gemini_nic *nic, uint64_t val);
};

/* One block's control registers. */
struct gemini_ctl_table {
	const struct gemini_ctl_reg *regs;
	unsigned int count;
};

#define GEMINI_CTL_TABLE(regs)						\
	{ (regs), sizeof(regs) / sizeof((regs)[0]) }

/* Register VGEMINI_CTL_@id, one of @sz bytes, with access GEMINI_CTL_@acc. */
#define GEMINI_CTL(id, sz, acc)						\
	.offset = VGEMINI_CTL_##id, .name = #id, .size = (sz),		\
	.access = GEMINI_CTL_##acc, .count = 1
/* Kept in nic->@f, a u32 or a u64 as the register's size. */
#define GEMINI_CTL_FIELD(f)	.field = offsetof(struct gemini_nic, f)

#endif /* GEMINI_REG_H */
