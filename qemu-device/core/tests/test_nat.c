// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Host unit tests of the NAT block alone (gemini_nat.c): the MDD, MRT,
 * NTT and GART registers, the order of the checks, translation through
 * physical memory, the MRT and the GART, the DMA of the pieces and the
 * NTT lookup.  The expected values come from the specification at the
 * top of gemini_nat.c and from the layouts in uapi/.  Links only
 * gemini_nat.c and gemini_bus.c: the NIC is set up by hand, not by
 * gemini_nic_init().  Prints TAP; run under ASan and UBSan.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemini_core.h"
#include "fake_bus.h"
#include "tap.h"

/* 16 MiB of node memory: room for a GART table of 2^20 entries and one. */
#define MEM_BASE	0x100000ull
#define MEM_SIZE	0x1000000u
#define IRQ_LOG		4

struct node {
	uint8_t *mem;
	unsigned int irqs[IRQ_LOG];
	unsigned int nirq;
	unsigned int guest_errors;
	unsigned int last_guest_error;
	uint64_t last_guest_args[4];
};

FAKE_BUS_CALLBACKS(struct node)

static const struct gemini_ops fake_ops = {
	.dma_read = fake_dma_read,
	.dma_write = fake_dma_write,
	.raise_irq = fake_irq,
	.guest_error = fake_guest_error,
};

#define PTAG		0x2a
#define RW		(GEMINI_MDD_MODE_VALID | GEMINI_MDD_MODE_WRITABLE)
#define RO		GEMINI_MDD_MODE_VALID
#define APERTURE	VGEMINI_GART_APERTURE
#define GART_TAB	(MEM_BASE + 0x100000)
/* Target pages of 4 KiB; B lies below A. */
#define PG_A		(MEM_BASE + 0x9000)
#define PG_B		(MEM_BASE + 0x2000)
#define PG_C		(MEM_BASE + 0x5000)

struct fixture {
	struct gemini_nic nic;
	struct node node;
};

static struct fixture *fx;

/* A NIC with only the NAT state and node memory behind the fake bus. */
static struct gemini_nic *setup(void)
{
	fx = calloc(1, sizeof(*fx));
	if (!fx)
		abort();
	fx->node.mem = calloc(1, MEM_SIZE);
	if (!fx->node.mem)
		abort();
	memset(&fx->nic, 0, sizeof(fx->nic));
	fx->nic.ops = &fake_ops;
	fx->nic.opaque = &fx->node;
	fx->nic.cfg.num_vectors = GEMINI_NUM_IRQ;
	gemini_nat_reset(&fx->nic);
	return &fx->nic;
}

static void teardown(void)
{
	free(fx->node.mem);
	free(fx);
	fx = NULL;
}

static uint8_t *mem(uint64_t addr)
{
	return fx->node.mem + (addr - MEM_BASE);
}

/* GART entries are little-endian in node memory. */
static void mem_set64(uint64_t addr, uint64_t v)
{
	unsigned int i;

	for (i = 0; i < 8; i++)
		mem(addr)[i] = (uint8_t)(v >> (8 * i));
}

/* --- the NIC window, as a driver uses it -------------------------------- */

static void nat_wr(struct gemini_nic *nic, uint64_t off, unsigned int size,
		   uint64_t v)
{
	CHECK_EQ(gemini_nat_access(nic, off, size, &v, true),
		 GEMINI_ACCESS_OK);
}

/* A 4-byte read must leave no bits above 32 of the poison. */
static uint64_t nat_rd(struct gemini_nic *nic, uint64_t off,
		       unsigned int size)
{
	uint64_t v = 0x5a5a5a5a5a5a5a5aull;

	CHECK_EQ(gemini_nat_access(nic, off, size, &v, false),
		 GEMINI_ACCESS_OK);
	return v;
}

/* QW2 holds VALID: written last, as the driver does. */
static void mdd_set(struct gemini_nic *nic, unsigned int mdh,
		    unsigned int ptag, uint64_t base, uint64_t last, bool mrt,
		    unsigned int modes, unsigned int cqh)
{
	nat_wr(nic, GEMINI_MMR_MDD_ENTRY(mdh), 8,
	       GEMINI_MDD_QW1(ptag, base, mrt));
	nat_wr(nic, GEMINI_MMR_MDD_ENTRY(mdh) + 8, 8,
	       GEMINI_MDD_QW2(modes, last, cqh));
}

static void mrt_set(struct gemini_nic *nic, unsigned int idx, uint32_t e)
{
	nat_wr(nic, GEMINI_MMR_MRT_ENTRY(idx), 4, e);
}

/* Qwords of the NAT's registers that do not read 0. */
static unsigned int nonzero_regs(struct gemini_nic *nic)
{
	unsigned int n = 0, i, b;

	for (i = 0; i < GEMINI_NUM_MDD * 2; i++)
		n += !!nat_rd(nic, GEMINI_MMR_MDD + 8ull * i, 8);
	for (i = 0; i < GEMINI_NUM_MRT; i += 2)
		n += !!nat_rd(nic, GEMINI_MMR_MRT_ENTRY(i), 8);
	for (b = 0; b < GEMINI_NTT_BANKS; b++)
		for (i = 0; i < GEMINI_NTT_BANK_ENTRIES; i++)
			n += !!nat_rd(nic, GEMINI_MMR_NTT_ENTRY(b, i), 8);
	n += !!nat_rd(nic, GEMINI_MMR_MRT_PAGE_SIZE, 8);
	n += !!nat_rd(nic, GEMINI_MMR_NTT_CONFIG, 8);
	return n;
}

/* --- the control registers, applied as gemini_ctl.c does ----------------- */

static const struct gemini_ctl_reg *ctl_reg(const char *name)
{
	const struct gemini_ctl_table *t = &gemini_nat_ctl_table;
	unsigned int i;

	for (i = 0; i < t->count; i++)
		if (!strcmp(t->regs[i].name, name))
			return &t->regs[i];
	printf("#   no control register %s\n", name);
	failures_in_test++;
	return NULL;
}

static uint64_t ctl_rd(struct gemini_nic *nic, const char *name)
{
	const struct gemini_ctl_reg *r = ctl_reg(name);
	char *p = (char *)nic + (r ? r->field : 0);

	if (!r)
		return 0;
	if (r->read)
		return r->read(nic, 0);
	return r->size == 8 ? *(uint64_t *)p : *(uint32_t *)p;
}

/* A 32-bit write at byte @at of @name: a half of a 64-bit one merges. */
static void ctl_write32(struct gemini_nic *nic, const char *name,
			unsigned int at, uint32_t val)
{
	const struct gemini_ctl_reg *r = ctl_reg(name);
	uint64_t v = val, other;
	char *p;

	if (!r)
		return;
	CHECK_EQ(r->access, GEMINI_CTL_RW);
	p = (char *)nic + r->field;
	if (r->size == 8) {
		other = at ? 0xffffffffull : 0xffffffffull << 32;
		v = (ctl_rd(nic, name) & other) | v << (8 * at);
	}
	if (r->write)
		r->write(nic, v);
	else if (r->size == 8)
		*(uint64_t *)p = v & r->mask;
	else
		*(uint32_t *)p = (uint32_t)(v & r->mask);
}

/* A whole-register write: an 8-byte one is two words, low first. */
static void ctl_wr(struct gemini_nic *nic, const char *name, uint64_t val)
{
	const struct gemini_ctl_reg *r = ctl_reg(name);

	ctl_write32(nic, name, 0, (uint32_t)val);
	if (r && r->size == 8)
		ctl_write32(nic, name, 4, (uint32_t)(val >> 32));
}

static void gart_set(struct gemini_nic *nic, uint64_t base, uint32_t n)
{
	ctl_wr(nic, "GART_BASE", base);
	ctl_wr(nic, "GART_ENTRIES", n);
}

/* --- translation --------------------------------------------------------- */

#define MAX_PC	4
static struct gemini_dma_piece pc[MAX_PC];
static unsigned int npc;

static unsigned int xl(const struct gemini_nic *nic, unsigned int ptag,
		       unsigned int mdh, uint64_t off, uint64_t len, bool write,
		       unsigned int max)
{
	if (max > MAX_PC)
		abort();
	memset(pc, 0xee, sizeof(pc));
	return gemini_nat_translate(nic, ptag, mdh, off, len, write, pc, max,
				    &npc);
}

#define ST(name)	GEMINI_STATUS_##name

/* The request was OK, in @n pieces. */
#define CHECK_OK(st, n)							\
	do {								\
		CHECK_EQ((st), GEMINI_STATUS_OK);			\
		CHECK_EQ(npc, (n));					\
	} while (0)

#define CHECK_PIECE(i, a, l)						\
	do {								\
		const struct gemini_dma_piece *p_ = &pc[i];		\
									\
		CHECK_EQ(p_->addr, (a));				\
		CHECK_EQ(p_->len, (l));					\
	} while (0)

/* --- tests --------------------------------------------------------------- */

static void test_registers(void)
{
	static const uint64_t none[] = {
		0, GEMINI_MMR_MRT - 8, GEMINI_MMR_MRT - 4,
		GEMINI_MMR_MDD + GEMINI_NUM_MDD * GEMINI_MDD_BYTES,
		GEMINI_MMR_MRT_PAGE_SIZE - 8, GEMINI_MMR_MRT_PAGE_SIZE + 8,
		GEMINI_MMR_NTT0 - 8, GEMINI_MMR_NL_NODE_ID,
		GEMINI_MMR_NTT_CONFIG - 4, GEMINI_MMR_NTT_CONFIG + 8,
		GEMINI_MMR_CQ_DESC, GEMINI_FMA_PUT_WC,
	};
	struct gemini_nic *nic = setup();
	const uint64_t mdd = GEMINI_MMR_MDD_ENTRY(4095);
	const uint64_t qw1 = (GEMINI_MDD_PTAG_MASK << GEMINI_MDD_PTAG_SHIFT) |
		(GEMINI_MDD_MEM_BASE_MASK << GEMINI_MDD_MEM_BASE_SHIFT) |
		GEMINI_MDD_MRT_ENABLE;
	const uint64_t qw2 = GEMINI_MDD_MODES_DEFINED |
		(GEMINI_MDD_MAX_BASE_MASK << GEMINI_MDD_MAX_BASE_SHIFT) |
		(GEMINI_MDD_CQH_MASK << GEMINI_MDD_CQH_SHIFT);
	const uint64_t ntt = GEMINI_NTT_PE_MASK |
		(GEMINI_NTT_PE_MASK << GEMINI_NTT_PE1_SHIFT) |
		(GEMINI_NTT_CHECK_MASK << GEMINI_NTT_CHECK_SHIFT) |
		GEMINI_NTT_WR_CHECKBITS;
	unsigned int i, size;
	uint64_t v;

	/* Offsets around the tables are not NAT's: writes land nowhere. */
	for (i = 0; i < sizeof(none) / sizeof(none[0]); i++) {
		for (size = 4; size <= 8; size += 4) {
			v = ~0ull;
			CHECK_EQ(gemini_nat_access(nic, none[i], size, &v,
						   true),
				 GEMINI_ACCESS_UNKNOWN);
			CHECK_EQ(gemini_nat_access(nic, none[i], size, &v,
						   false),
				 GEMINI_ACCESS_UNKNOWN);
		}
	}
	CHECK_EQ(nonzero_regs(nic), 0);

	/* MDD: the named fields only (bits 11..8, 55..48, 63..57 of QW1). */
	CHECK_EQ(qw1, 0x0100fffffffff0ffull);
	CHECK_EQ(qw2, 0xffc0fffffffff03full);
	nat_wr(nic, GEMINI_MMR_MDD_ENTRY(3), 8, ~0ull);
	nat_wr(nic, GEMINI_MMR_MDD_ENTRY(3) + 8, 8, ~0ull);
	CHECK_EQ(nat_rd(nic, GEMINI_MMR_MDD_ENTRY(3), 8), qw1);
	CHECK_EQ(nat_rd(nic, GEMINI_MMR_MDD_ENTRY(3) + 8, 8), qw2);
	CHECK_EQ(nat_rd(nic, GEMINI_MMR_MDD_ENTRY(2) + 8, 8), 0);
	CHECK_EQ(nat_rd(nic, GEMINI_MMR_MDD_ENTRY(4), 8), 0);
	/* Two halves make a qword; a half write keeps the other half. */
	nat_wr(nic, mdd, 4, 0x12345678);
	nat_wr(nic, mdd + 4, 4, 0x9abcdef0);
	CHECK_EQ(nat_rd(nic, mdd, 8), 0x0000def012345078ull);
	CHECK_EQ(nat_rd(nic, mdd, 4), 0x12345078);
	CHECK_EQ(nat_rd(nic, mdd + 4, 4), 0xdef0);
	nat_wr(nic, mdd + 4, 4, 0xff000000);
	CHECK_EQ(nat_rd(nic, mdd, 8), 0x0100000012345078ull);
	nat_wr(nic, mdd + 8, 4, 0xffffffff);
	CHECK_EQ(nat_rd(nic, mdd + 8, 8), 0xfffff03f);
	nat_wr(nic, mdd + 12, 4, 0xffffffff);
	CHECK_EQ(nat_rd(nic, mdd + 8, 8), qw2);

	/* MRT: bit 1 unused; an aligned qword is two entries, low first. */
	mrt_set(nic, 10, 0xffffffff);
	CHECK_EQ(nat_rd(nic, GEMINI_MMR_MRT_ENTRY(10), 4), 0xfffffffd);
	CHECK_EQ(nat_rd(nic, GEMINI_MMR_MRT_ENTRY(10), 8), 0xfffffffd);
	mrt_set(nic, 11, 0x12345679);
	CHECK_EQ(nat_rd(nic, GEMINI_MMR_MRT_ENTRY(10), 8),
		 0x12345679fffffffdull);
	nat_wr(nic, GEMINI_MMR_MRT_ENTRY(16382), 8, 0x0000000300000005ull);
	CHECK_EQ(nat_rd(nic, GEMINI_MMR_MRT_ENTRY(16382), 4), 5);
	CHECK_EQ(nat_rd(nic, GEMINI_MMR_MRT_ENTRY(16383), 4), 1);
	CHECK_EQ(nat_rd(nic, GEMINI_MMR_MRT_ENTRY(16382), 8),
		 0x0000000100000005ull);

	/* MRT page size: a 3-bit code. */
	nat_wr(nic, GEMINI_MMR_MRT_PAGE_SIZE, 8, ~0ull);
	CHECK_EQ(nat_rd(nic, GEMINI_MMR_MRT_PAGE_SIZE, 8), 7);
	CHECK_EQ(nat_rd(nic, GEMINI_MMR_MRT_PAGE_SIZE + 4, 4), 0);
	nat_wr(nic, GEMINI_MMR_MRT_PAGE_SIZE, 4, 0xfffffff5);
	nat_wr(nic, GEMINI_MMR_MRT_PAGE_SIZE + 4, 4, 0xffffffff);
	CHECK_EQ(nat_rd(nic, GEMINI_MMR_MRT_PAGE_SIZE, 8), 5);

	/* NTT: the syndrome (51..44) and bits 62..52 read 0. */
	CHECK_EQ(ntt, 0x80000fffffffffffull);
	nat_wr(nic, GEMINI_MMR_NTT_ENTRY(0, 5), 8, ~0ull);
	CHECK_EQ(nat_rd(nic, GEMINI_MMR_NTT_ENTRY(0, 5), 8), ntt);
	CHECK_EQ(nat_rd(nic, GEMINI_MMR_NTT_ENTRY(1, 5), 8), 0);
	nat_wr(nic, GEMINI_MMR_NTT_ENTRY(0, 6) + 4, 4, 0xffffffff);
	CHECK_EQ(nat_rd(nic, GEMINI_MMR_NTT_ENTRY(0, 6), 8),
		 0x80000fff00000000ull);
	/* The write-both alias writes both banks; a read reads its own. */
	nat_wr(nic, GEMINI_MMR_NTT_ENTRY(0, 4095) + GEMINI_NTT_WRITE_BOTH, 8,
	       0x123456789ull);
	CHECK_EQ(nat_rd(nic, GEMINI_MMR_NTT_ENTRY(0, 4095), 8), 0x123456789ull);
	CHECK_EQ(nat_rd(nic, GEMINI_MMR_NTT_ENTRY(1, 4095), 8), 0x123456789ull);
	nat_wr(nic, GEMINI_MMR_NTT_ENTRY(1, 4095) + GEMINI_NTT_WRITE_BOTH + 4,
	       4, 0x8);
	nat_wr(nic, GEMINI_MMR_NTT_ENTRY(1, 7), 8, 0xabc);
	CHECK_EQ(nat_rd(nic, GEMINI_MMR_NTT_ENTRY(0, 4095), 8), 0x823456789ull);
	CHECK_EQ(nat_rd(nic, GEMINI_MMR_NTT_ENTRY(1, 4095) +
			GEMINI_NTT_WRITE_BOTH, 8), 0x823456789ull);
	CHECK_EQ(nat_rd(nic, GEMINI_MMR_NTT_ENTRY(0, 7), 8), 0);
	CHECK_EQ(nat_rd(nic, GEMINI_MMR_NTT_ENTRY(0, 7) +
			GEMINI_NTT_WRITE_BOTH, 8), 0);
	CHECK_EQ(nat_rd(nic, GEMINI_MMR_NTT_ENTRY(1, 7), 8), 0xabc);

	/* NTT config: gran_ntt0 3..0, write_grn 4, gran_ntt1 11..8, 12. */
	nat_wr(nic, GEMINI_MMR_NTT_CONFIG, 8, ~0ull);
	CHECK_EQ(nat_rd(nic, GEMINI_MMR_NTT_CONFIG, 8), 0x1f1f);
	CHECK_EQ(nat_rd(nic, GEMINI_MMR_NTT_CONFIG + 4, 4), 0);
	nat_wr(nic, GEMINI_MMR_NTT_CONFIG, 4, 0xa03);
	CHECK_EQ(nat_rd(nic, GEMINI_MMR_NTT_CONFIG, 8), 0xa03);
	teardown();
}

static void test_status_order(void)
{
	struct gemini_nic *nic = setup();
	unsigned int mdh;

	/* MRT on, no entry valid, read-only: every later check fails. */
	mdd_set(nic, 1, PTAG, 0, 0xffff, true, RO, 0);
	/* Every mode but VALID. */
	mdd_set(nic, 2, PTAG, 0, 0xffff, true, GEMINI_MDD_MODES_DEFINED &
		~GEMINI_MDD_MODE_VALID, 0);
	/* Ptag 0 in a valid MDD: nobody's. */
	mdd_set(nic, 3, 0, MEM_BASE, MEM_BASE + 0xffff, false, RW, 0);

	CHECK_EQ(gemini_nat_check(nic, PTAG, 1), GEMINI_STATUS_OK);
	CHECK_EQ(xl(nic, PTAG, 1, 0, 8, false, 2), ST(TRANSLATION));
	CHECK_EQ(xl(nic, PTAG, 1, 0, 8, true, 2), ST(WRITE_PERM));
	CHECK_EQ(xl(nic, PTAG, 1, 0x10000, 8, true, 2), ST(BOUNDS));
	CHECK_EQ(xl(nic, PTAG, 1, 0xfffc, 8, false, 2), ST(BOUNDS));
	CHECK_EQ(xl(nic, PTAG + 1, 1, 0x10000, 8, true, 2), ST(PROTECTION));
	CHECK_EQ(xl(nic, 0, 1, 0, 8, false, 2), ST(PROTECTION));
	CHECK_EQ(xl(nic, PTAG | 0x100, 1, 0, 8, false, 2), ST(PROTECTION));
	CHECK_EQ(gemini_nat_check(nic, PTAG + 1, 1), ST(PROTECTION));
	CHECK_EQ(gemini_nat_check(nic, 0, 1), ST(PROTECTION));

	CHECK_EQ(gemini_nat_check(nic, PTAG, 2), ST(MDD_INV));
	CHECK_EQ(gemini_nat_check(nic, PTAG + 1, 2), ST(MDD_INV));
	CHECK_EQ(xl(nic, PTAG + 1, 2, 0x10000, 8, true, 2), ST(MDD_INV));
	CHECK_EQ(xl(nic, PTAG, 2, 0, 8, false, 2), ST(MDD_INV));

	CHECK_EQ(gemini_nat_check(nic, 0, 3), ST(PROTECTION));
	CHECK_EQ(gemini_nat_check(nic, PTAG, 3), ST(PROTECTION));
	CHECK_EQ(xl(nic, 0, 3, 0, 1, false, 2), ST(PROTECTION));

	/* Never written, or no such MDH. */
	for (mdh = 0; mdh < 5; mdh += 4) {
		CHECK_EQ(gemini_nat_check(nic, 0, mdh), ST(MDD_INV));
		CHECK_EQ(xl(nic, 0, mdh, 0, 1, false, 2), ST(MDD_INV));
	}
	CHECK_EQ(gemini_nat_check(nic, PTAG, 4096), ST(MDD_INV));
	CHECK_EQ(gemini_nat_check(nic, PTAG, ~0u), ST(MDD_INV));
	CHECK_EQ(xl(nic, PTAG, 4096, 0, 1, false, 2), ST(MDD_INV));

	/* Clearing VALID alone takes the domain away. */
	nat_wr(nic, GEMINI_MMR_MDD_ENTRY(1) + 8, 4,
	       nat_rd(nic, GEMINI_MMR_MDD_ENTRY(1) + 8, 4) &
	       ~GEMINI_MDD_MODE_VALID);
	CHECK_EQ(gemini_nat_check(nic, PTAG, 1), ST(MDD_INV));
	teardown();
}

static void test_bounds(void)
{
	struct gemini_nic *nic = setup();
	const uint64_t lim = 1ull << 40, top = 1ull << 48;

	/* max_base names its page: the domain ends at MEM_BASE + 0x7fff. */
	mdd_set(nic, 1, PTAG, MEM_BASE + 0x4000, MEM_BASE + 0x7000, false,
		RW, 0);
	CHECK_OK(xl(nic, PTAG, 1, 0x3fff, 1, true, 1), 1);
	CHECK_PIECE(0, MEM_BASE + 0x7fff, 1);
	CHECK_OK(xl(nic, PTAG, 1, 0, 0x4000, true, 1), 1);
	CHECK_PIECE(0, MEM_BASE + 0x4000, 0x4000);
	CHECK_EQ(xl(nic, PTAG, 1, 0x3fff, 2, false, 2), ST(BOUNDS));
	CHECK_EQ(xl(nic, PTAG, 1, 0x4000, 1, false, 2), ST(BOUNDS));
	CHECK_EQ(xl(nic, PTAG, 1, 0, 0x4001, false, 2), ST(BOUNDS));

	/* One page; then max_base below mem_base: no valid byte. */
	mdd_set(nic, 2, PTAG, MEM_BASE, MEM_BASE, false, RW, 0);
	CHECK_OK(xl(nic, PTAG, 2, 0xfff, 1, false, 1), 1);
	CHECK_EQ(xl(nic, PTAG, 2, 0x1000, 1, false, 1), ST(BOUNDS));
	mdd_set(nic, 3, PTAG, MEM_BASE + 0x2000, MEM_BASE + 0x1fff, false,
		RW, 0);
	CHECK_EQ(xl(nic, PTAG, 3, 0, 1, false, 1), ST(BOUNDS));
	mdd_set(nic, 3, PTAG, top - 0x1000, 0, false, RW, 0);
	CHECK_EQ(xl(nic, PTAG, 3, 0, 1, false, 1), ST(BOUNDS));

	/* All 48 bits, physical: only offset + len <= 2^40 limits it. */
	mdd_set(nic, 4, PTAG, 0, top - 1, false, RO, 0);
	CHECK_OK(xl(nic, PTAG, 4, lim - 8, 8, false, 1), 1);
	CHECK_PIECE(0, lim - 8, 8);
	CHECK_OK(xl(nic, PTAG, 4, lim - 1, 1, false, 1), 1);
	CHECK_OK(xl(nic, PTAG, 4, 0, lim, false, 1), 1);
	CHECK_PIECE(0, 0, lim);
	CHECK_OK(xl(nic, PTAG, 4, 8, lim - 8, false, 1), 1);
	CHECK_PIECE(0, 8, lim - 8);
	CHECK_EQ(xl(nic, PTAG, 4, lim - 4, 8, false, 1), ST(BOUNDS));
	CHECK_EQ(xl(nic, PTAG, 4, lim, 1, false, 1), ST(BOUNDS));
	CHECK_EQ(xl(nic, PTAG, 4, 0, lim + 1, false, 1), ST(BOUNDS));
	CHECK_EQ(xl(nic, PTAG, 4, ~0ull, 1, false, 1), ST(BOUNDS));
	CHECK_EQ(xl(nic, PTAG, 4, 1, ~0ull, false, 1), ST(BOUNDS));
	CHECK_EQ(xl(nic, PTAG, 4, lim, 1, true, 1), ST(BOUNDS));
	CHECK_EQ(xl(nic, PTAG, 4, 0, 1, true, 1), ST(WRITE_PERM));

	/*
	 * At the top of the 48-bit space the last byte is in bounds (and in
	 * the GART's part, where no entry maps it), the next one is not.
	 */
	mdd_set(nic, 5, PTAG, top - lim, top - 1, false, RO, 0);
	CHECK_EQ(xl(nic, PTAG, 5, lim - 1, 1, false, 1), ST(TRANSLATION));
	CHECK_EQ(xl(nic, PTAG, 5, lim - 1, 2, false, 2), ST(BOUNDS));
	mdd_set(nic, 6, PTAG, top - 0x1000, top - 1, false, RO, 0);
	CHECK_EQ(xl(nic, PTAG, 6, 0xfff, 1, false, 1), ST(TRANSLATION));
	CHECK_EQ(xl(nic, PTAG, 6, 0x1000, 1, false, 1), ST(BOUNDS));
	CHECK_EQ(xl(nic, PTAG, 6, lim - 1, 1, false, 1), ST(BOUNDS));
	teardown();
}

static void test_malformed(void)
{
	struct gemini_nic *nic = setup();

	mdd_set(nic, 1, PTAG, MEM_BASE, MEM_BASE + 0xffff, false, RW, 0);
	CHECK_EQ(xl(nic, PTAG, 1, 0, 0, false, 2), ST(MALFORMED));
	CHECK_EQ(xl(nic, PTAG, 1, 0x100, 0, true, 2), ST(MALFORMED));
	CHECK_EQ(xl(nic, PTAG, 1, 0, 1, false, 0), ST(MALFORMED));

	/* Three 128 KiB MRT pages: MALFORMED unless there is room. */
	nat_wr(nic, GEMINI_MMR_MRT_PAGE_SIZE, 8, 0);
	mrt_set(nic, 0, GEMINI_MRT_ENCODE(0x20000000));
	mrt_set(nic, 1, GEMINI_MRT_ENCODE(0x40000000));
	mrt_set(nic, 2, GEMINI_MRT_ENCODE(0x60000000));
	mdd_set(nic, 2, PTAG, 0, 3 * 0x20000 - 1, true, RW, 0);
	CHECK_EQ(xl(nic, PTAG, 2, 0x1fff0, 0x20020, true, 2), ST(MALFORMED));
	CHECK_OK(xl(nic, PTAG, 2, 0x1fff0, 0x20020, true, 3), 3);
	CHECK_PIECE(0, 0x2001fff0, 0x10);
	CHECK_PIECE(1, 0x40000000, 0x20000);
	CHECK_PIECE(2, 0x60000000, 0x10);
	CHECK_EQ(xl(nic, PTAG, 2, 0x1fff0, 0x11, true, 1), ST(MALFORMED));
	CHECK_OK(xl(nic, PTAG, 2, 0x1fff0, 0x10, true, 1), 1);
	teardown();
}

static void test_physical(void)
{
	struct gemini_nic *nic = setup();

	/* Below the aperture the GART is not consulted, even if set. */
	gart_set(nic, 0x40000000, 16);
	mdd_set(nic, 1, PTAG, MEM_BASE + 0x1000, MEM_BASE + 0x10fff, false,
		RW, 7);
	CHECK_OK(xl(nic, PTAG, 1, 0x10, 0x8000, true, 1), 1);
	CHECK_PIECE(0, MEM_BASE + 0x1010, 0x8000);
	CHECK_OK(xl(nic, PTAG, 1, 0xffff, 1, false, 1), 1);
	CHECK_PIECE(0, MEM_BASE + 0x10fff, 1);

	/* A GiB right below the aperture: one piece, however long. */
	mdd_set(nic, 2, PTAG, APERTURE - 0x40000000, APERTURE - 1, false,
		RW, 0);
	CHECK_OK(xl(nic, PTAG, 2, 0, 0x40000000, true, 1), 1);
	CHECK_PIECE(0, APERTURE - 0x40000000, 0x40000000);
	CHECK_OK(xl(nic, PTAG, 2, 0x3fffffc1, 0x3f, false, 1), 1);
	CHECK_PIECE(0, APERTURE - 0x3f, 0x3f);
	CHECK_EQ(xl(nic, PTAG, 2, 0x3fffffc1, 0x40, false, 2), ST(BOUNDS));
	CHECK_EQ(fx->node.guest_errors, 0);

	/* Across the aperture: the last physical page, the first GART one. */
	gart_set(nic, GART_TAB, 1);
	mem_set64(GART_TAB, VGEMINI_GART_ENTRY(PG_A));
	mdd_set(nic, 1, PTAG, APERTURE - 0x1000, APERTURE + 0xfff, false,
		RW, 0);
	CHECK_OK(xl(nic, PTAG, 1, 0xff8, 16, true, 2), 2);
	CHECK_PIECE(0, APERTURE - 8, 8);
	CHECK_PIECE(1, PG_A, 8);
	CHECK_OK(xl(nic, PTAG, 1, 0xfff, 1, true, 2), 1);
	CHECK_PIECE(0, APERTURE - 1, 1);
	CHECK_OK(xl(nic, PTAG, 1, 0x1000, 1, true, 2), 1);
	CHECK_PIECE(0, PG_A, 1);
	CHECK_OK(xl(nic, PTAG, 1, 0, 0x2000, false, 2), 2);
	CHECK_PIECE(0, APERTURE - 0x1000, 0x1000);
	CHECK_PIECE(1, PG_A, 0x1000);
	CHECK_EQ(xl(nic, PTAG, 1, 0xff8, 16, true, 1), ST(MALFORMED));

	/* The physical part is one piece however many pages it covers. */
	mdd_set(nic, 2, PTAG, APERTURE - 0x40000000, APERTURE + 0xfff, false,
		RW, 0);
	CHECK_OK(xl(nic, PTAG, 2, 0, 0x40000008, false, 2), 2);
	CHECK_PIECE(0, APERTURE - 0x40000000, 0x40000000);
	CHECK_PIECE(1, PG_A, 8);

	/* Without the GART page only the physical part is reachable. */
	mem_set64(GART_TAB, PG_A);
	CHECK_EQ(xl(nic, PTAG, 1, 0xff8, 16, true, 2), ST(TRANSLATION));
	CHECK_OK(xl(nic, PTAG, 1, 0xff8, 8, true, 2), 1);
	teardown();
}

static void test_mrt_sizes(void)
{
	/* log2 of the page of codes 0..7: 128K .. 1G */
	static const unsigned int shift[8] = { 17, 19, 21, 23, 24, 26, 28, 30 };
	struct gemini_nic *nic = setup();
	unsigned int code;

	for (code = 0; code < 8; code++) {
		unsigned int s = shift[code];
		uint64_t pg = 1ull << s, in = 0x3000;
		/* Address bits from 17 to the page size: ignored. */
		uint64_t junk = (pg - 1) & ~0x1ffffull;
		uint64_t p5 = 7ull << s, p6 = 3ull << s, p7 = 12ull << s;

		nat_wr(nic, GEMINI_MMR_MRT_PAGE_SIZE, 4, 0xfffffff8 | code);
		CHECK_EQ(nat_rd(nic, GEMINI_MMR_MRT_PAGE_SIZE, 8), code);
		mrt_set(nic, 5, GEMINI_MRT_ENCODE(p5 | junk));
		mrt_set(nic, 6, GEMINI_MRT_ENCODE(p6 | junk));
		mrt_set(nic, 7, GEMINI_MRT_ENCODE(p7 | junk));
		/* Entries 5..7, the buffer 12 KiB into the first page. */
		mdd_set(nic, 30, PTAG, (5ull << s) + in, (8ull << s) - 1, true,
			RW, 0);

		CHECK_OK(xl(nic, PTAG, 30, 0, 1, true, 2), 1);
		CHECK_PIECE(0, p5 + in, 1);
		CHECK_OK(xl(nic, PTAG, 30, pg - in - 8, 24, true, 2), 2);
		CHECK_PIECE(0, p5 + pg - 8, 8);
		CHECK_PIECE(1, p6, 16);
		CHECK_OK(xl(nic, PTAG, 30, 2 * pg - in - 4, 8, false, 2), 2);
		CHECK_PIECE(0, p6 + pg - 4, 4);
		CHECK_PIECE(1, p7, 4);
		CHECK_OK(xl(nic, PTAG, 30, pg - in - 1, pg + 2, false, 3), 3);
		CHECK_PIECE(0, p5 + pg - 1, 1);
		CHECK_PIECE(1, p6, pg);
		CHECK_PIECE(2, p7, 1);
		CHECK_OK(xl(nic, PTAG, 30, 3 * pg - in - 1, 1, false, 2), 1);
		CHECK_PIECE(0, p7 + pg - 1, 1);
		CHECK_EQ(xl(nic, PTAG, 30, 3 * pg - in, 1, false, 2),
			 ST(BOUNDS));
		if (failures_in_test)
			NOTE("page size code %u\n", code);
	}
	teardown();
}

static void test_mrt_misses(void)
{
	static const unsigned int codes[] = { 0, 7 };
	struct gemini_nic *nic = setup();
	const uint64_t pg = 0x20000;
	unsigned int i;

	mrt_set(nic, 5, GEMINI_MRT_ENCODE(0x200000));
	mrt_set(nic, 7, GEMINI_MRT_ENCODE(0x400000) & ~GEMINI_MRT_VALID);
	mrt_set(nic, 8, 0xfffffffe);
	mdd_set(nic, 1, PTAG, 5 * pg, 9 * pg - 1, true, RW, 0);
	CHECK_OK(xl(nic, PTAG, 1, pg - 8, 8, true, 2), 1);
	CHECK_PIECE(0, 0x200000 + pg - 8, 8);
	CHECK_EQ(xl(nic, PTAG, 1, pg - 8, 9, true, 2), ST(TRANSLATION));
	CHECK_EQ(xl(nic, PTAG, 1, 2 * pg, 1, false, 2), ST(TRANSLATION));
	CHECK_EQ(xl(nic, PTAG, 1, 3 * pg, 1, false, 2), ST(TRANSLATION));
	/* The table is read at each request: a new entry counts at once. */
	mrt_set(nic, 6, GEMINI_MRT_ENCODE(0x600000));
	CHECK_OK(xl(nic, PTAG, 1, pg - 8, 9, true, 2), 2);
	CHECK_PIECE(1, 0x600000, 1);

	/* Entry 16383 is the last: its page maps, the next one does not. */
	for (i = 0; i < 2; i++) {
		unsigned int s = codes[i] ? 30 : 17;
		uint64_t p = 1ull << s;

		nat_wr(nic, GEMINI_MMR_MRT_PAGE_SIZE, 8, codes[i]);
		mrt_set(nic, 16383, GEMINI_MRT_ENCODE(0x40000000));
		mdd_set(nic, 2, PTAG, 16383ull << s, (16385ull << s) - 1,
			true, RW, 0);
		CHECK_OK(xl(nic, PTAG, 2, p - 8, 8, true, 2), 1);
		CHECK_PIECE(0, 0x40000000 + p - 8, 8);
		CHECK_EQ(xl(nic, PTAG, 2, p - 8, 16, true, 2), ST(TRANSLATION));
		CHECK_EQ(xl(nic, PTAG, 2, p, 1, false, 2), ST(TRANSLATION));
	}

	/* With mrt_enable the GART is never used, even at the aperture. */
	gart_set(nic, GART_TAB, 4);
	mem_set64(GART_TAB, VGEMINI_GART_ENTRY(PG_A));
	mdd_set(nic, 3, PTAG, APERTURE, APERTURE + 0xfff, true, RW, 0);
	CHECK_EQ(xl(nic, PTAG, 3, 0, 1, false, 2), ST(TRANSLATION));
	teardown();
}

/* Set a GART entry in memory and in the snapshot that memory must match. */
static void entry_set(uint8_t *snap, uint64_t addr, uint64_t v)
{
	mem_set64(addr, v);
	memcpy(snap + (addr - MEM_BASE), mem(addr), 8);
}

static void test_gart(void)
{
	struct gemini_nic *nic = setup();
	struct node *nd = &fx->node;
	uint8_t *snap = malloc(MEM_SIZE);
	const uint64_t hi = 0x000ffffffffff000ull;
	const uint64_t end = MEM_BASE + MEM_SIZE;
	unsigned int i;

	if (!snap)
		abort();
	for (i = 0; i < MEM_SIZE; i++)
		nd->mem[i] = (uint8_t)(i * 7 + (i >> 12));
	memcpy(snap, nd->mem, MEM_SIZE);
	gart_set(nic, GART_TAB, 8);
	/* Bits other than 51..12 and VALID are ignored. */
	entry_set(snap, GART_TAB + 2 * 8, VGEMINI_GART_ENTRY(PG_A) |
		  0xfff0000000000ffeull);
	entry_set(snap, GART_TAB + 3 * 8, VGEMINI_GART_ENTRY(PG_B));
	entry_set(snap, GART_TAB + 4 * 8, VGEMINI_GART_ENTRY(hi));
	entry_set(snap, GART_TAB + 5 * 8, ~VGEMINI_GART_VALID);
	/* Entries 2..5: domain offsets 0 to 0x3fff. */
	mdd_set(nic, 12, PTAG, VGEMINI_GART_ADDR(2), VGEMINI_GART_ADDR(6) - 1,
		false, RW, 0);

	CHECK_OK(xl(nic, PTAG, 12, 0x1000 - 20, 64, true, 2), 2);
	CHECK_PIECE(0, PG_A + 0xfec, 20);
	CHECK_PIECE(1, PG_B, 44);
	CHECK_OK(xl(nic, PTAG, 12, 0, 0x1000, true, 2), 1);
	CHECK_PIECE(0, PG_A, 0x1000);
	CHECK_OK(xl(nic, PTAG, 12, 0x1fff, 1, true, 2), 1);
	CHECK_PIECE(0, PG_B + 0xfff, 1);
	CHECK_OK(xl(nic, PTAG, 12, 0x1ffc, 0x1004, false, 2), 2);
	CHECK_PIECE(0, PG_B + 0xffc, 4);
	CHECK_PIECE(1, hi, 0x1000);
	CHECK_EQ(xl(nic, PTAG, 12, 0x1ffc, 0x1004, false, 1), ST(MALFORMED));
	CHECK_EQ(xl(nic, PTAG, 12, 0x3000, 1, false, 2), ST(TRANSLATION));
	CHECK_EQ(xl(nic, PTAG, 12, 0x2fff, 2, false, 2), ST(TRANSLATION));
	CHECK_EQ(xl(nic, PTAG, 12, 0x3000, 0x1000, false, 2), ST(TRANSLATION));
	CHECK_EQ(xl(nic, PTAG, 12, 0x4000, 1, false, 2), ST(BOUNDS));

	/* The entries are read at each request; VALID clear is a miss. */
	entry_set(snap, GART_TAB + 3 * 8, VGEMINI_GART_ENTRY(PG_C));
	CHECK_OK(xl(nic, PTAG, 12, 0x1000, 1, false, 2), 1);
	CHECK_PIECE(0, PG_C, 1);
	entry_set(snap, GART_TAB + 3 * 8, PG_C);
	CHECK_EQ(xl(nic, PTAG, 12, 0x1000 - 20, 64, true, 2), ST(TRANSLATION));
	CHECK_OK(xl(nic, PTAG, 12, 0xfff, 1, true, 2), 1);
	entry_set(snap, GART_TAB + 3 * 8, VGEMINI_GART_ENTRY(PG_B));

	/* GART_ENTRIES 3: entry 3 is at the limit; 4: inside; 0: off. */
	gart_set(nic, GART_TAB, 3);
	CHECK_EQ(xl(nic, PTAG, 12, 0x1000 - 20, 64, true, 2), ST(TRANSLATION));
	CHECK_OK(xl(nic, PTAG, 12, 0, 4, true, 2), 1);
	gart_set(nic, GART_TAB, 4);
	CHECK_OK(xl(nic, PTAG, 12, 0x1000 - 20, 64, true, 2), 2);
	gart_set(nic, GART_TAB, 0);
	CHECK_EQ(xl(nic, PTAG, 12, 0, 4, false, 2), ST(TRANSLATION));

	/*
	 * Entries the bus refuses: a table where the node has no memory, or
	 * one whose entry 512 is past the end of memory and 511 is not.
	 */
	gart_set(nic, 0x40000000, 8);
	CHECK_EQ(xl(nic, PTAG, 12, 0, 4, false, 2), ST(TRANSLATION));
	gart_set(nic, end - 0x1000, 1024);
	entry_set(snap, end - 8, VGEMINI_GART_ENTRY(PG_A));
	mdd_set(nic, 13, PTAG, VGEMINI_GART_ADDR(511),
		VGEMINI_GART_ADDR(513) - 1, false, RW, 0);
	CHECK_OK(xl(nic, PTAG, 13, 0xffc, 4, false, 2), 1);
	CHECK_PIECE(0, PG_A + 0xffc, 4);
	CHECK_EQ(xl(nic, PTAG, 13, 0xffc, 5, false, 2), ST(TRANSLATION));
	CHECK_EQ(xl(nic, PTAG, 13, 0x1000, 1, false, 2), ST(TRANSLATION));
	CHECK_EQ(nd->guest_errors, 0);

	/* A table in the device's own window is refused as well. */
	gart_set(nic, GART_TAB, 8);
	gemini_nic_set_own_window(nic, 1, GART_TAB, 0x1000);
	CHECK_EQ(xl(nic, PTAG, 12, 0, 4, false, 2), ST(TRANSLATION));
	CHECK_EQ(nd->guest_errors, 1);
	CHECK_EQ(nd->last_guest_error, GEMINI_GE_DMA_READ_SELF);
	CHECK_EQ(nd->last_guest_args[0], GART_TAB + 2 * 8);
	CHECK_EQ(nd->last_guest_args[1], 8);
	gemini_nic_set_own_window(nic, 1, 0, 0);
	CHECK_OK(xl(nic, PTAG, 12, 0, 4, false, 2), 1);
	CHECK_PIECE(0, PG_A, 4);

	/* Translations, refused or not, read the table and wrote nothing. */
	CHECK(!memcmp(snap, nd->mem, MEM_SIZE));
	free(snap);
	teardown();
}

static void test_gart_regs(void)
{
	struct gemini_nic *nic = setup();
	struct node *nd = &fx->node;
	const uint32_t max = 1u << 20;
	const struct gemini_ctl_reg *base = ctl_reg("GART_BASE");
	const struct gemini_ctl_reg *ents = ctl_reg("GART_ENTRIES");

	CHECK_EQ(gemini_nat_ctl_table.count, 2);
	if (!base || !ents)
		goto out;
	CHECK_EQ(base->offset, 0x098);
	CHECK_EQ(base->size, 8);
	CHECK_EQ(base->access, GEMINI_CTL_RW);
	CHECK_EQ(ents->offset, 0x0a0);
	CHECK_EQ(ents->size, 4);
	CHECK_EQ(ents->access, GEMINI_CTL_RW);
	CHECK_EQ(ctl_rd(nic, "GART_BASE"), 0);
	CHECK_EQ(ctl_rd(nic, "GART_ENTRIES"), 0);

	/* GART_BASE keeps bits 51..12; a half write keeps the other half. */
	ctl_wr(nic, "GART_BASE", ~0ull);
	CHECK_EQ(ctl_rd(nic, "GART_BASE"), 0x000ffffffffff000ull);
	ctl_wr(nic, "GART_BASE", 0);
	ctl_write32(nic, "GART_BASE", 0, 0x12345abc);
	CHECK_EQ(ctl_rd(nic, "GART_BASE"), 0x12345000);
	ctl_write32(nic, "GART_BASE", 4, 0xfff00001);
	CHECK_EQ(ctl_rd(nic, "GART_BASE"), 0x0000000112345000ull);
	ctl_write32(nic, "GART_BASE", 0, 0);
	CHECK_EQ(ctl_rd(nic, "GART_BASE"), 0x0000000100000000ull);
	ctl_wr(nic, "GART_ENTRIES", 5);
	CHECK_EQ(ctl_rd(nic, "GART_ENTRIES"), 5);

	/* ENTRIES: at most 2^20, more is clamped and a guest error. */
	ctl_wr(nic, "GART_ENTRIES", max);
	CHECK_EQ(ctl_rd(nic, "GART_ENTRIES"), max);
	CHECK_EQ(nd->guest_errors, 0);
	ctl_wr(nic, "GART_ENTRIES", max + 1);
	CHECK_EQ(ctl_rd(nic, "GART_ENTRIES"), max);
	CHECK_EQ(nd->guest_errors, 1);
	CHECK_EQ(nd->last_guest_error, GEMINI_GE_GART_ENTRIES);
	CHECK_EQ(nd->last_guest_args[0], max + 1);
	CHECK_EQ(nd->last_guest_args[1], max);
	ctl_wr(nic, "GART_ENTRIES", 0xffffffff);
	CHECK_EQ(ctl_rd(nic, "GART_ENTRIES"), max);
	CHECK_EQ(nd->guest_errors, 2);
	CHECK_EQ(nd->last_guest_args[0], 0xffffffff);

	/* The clamped table ends at entry 2^20 - 1, whatever lies after. */
	ctl_wr(nic, "GART_BASE", GART_TAB);
	mem_set64(GART_TAB + 8ull * (max - 1), VGEMINI_GART_ENTRY(PG_A));
	mem_set64(GART_TAB + 8ull * max, VGEMINI_GART_ENTRY(PG_B));
	mdd_set(nic, 1, PTAG, VGEMINI_GART_ADDR(max - 1),
		VGEMINI_GART_ADDR(max + 1) - 1, false, RW, 0);
	CHECK_OK(xl(nic, PTAG, 1, 0xff8, 8, true, 2), 1);
	CHECK_PIECE(0, PG_A + 0xff8, 8);
	CHECK_EQ(xl(nic, PTAG, 1, 0x1000, 1, false, 2), ST(TRANSLATION));
	CHECK_EQ(xl(nic, PTAG, 1, 0xff8, 16, false, 2), ST(TRANSLATION));
	ctl_wr(nic, "GART_ENTRIES", max - 1);
	CHECK_EQ(xl(nic, PTAG, 1, 0, 1, false, 2), ST(TRANSLATION));
	CHECK_EQ(nd->guest_errors, 2);
out:
	teardown();
}

static void test_dma(void)
{
	struct gemini_nic *nic = setup();
	struct node *nd = &fx->node;
	uint8_t *shadow = malloc(MEM_SIZE), buf[64], back[64];
	unsigned int len, i, st;
	uint64_t start, o;

	if (!shadow)
		abort();
	for (i = 0; i < MEM_SIZE; i++)
		nd->mem[i] = (uint8_t)(i ^ (i >> 9));
	gart_set(nic, GART_TAB, 4);
	mem_set64(GART_TAB + 2 * 8, VGEMINI_GART_ENTRY(PG_A));
	mem_set64(GART_TAB + 3 * 8, VGEMINI_GART_ENTRY(PG_B));
	mdd_set(nic, 1, PTAG, VGEMINI_GART_ADDR(2), VGEMINI_GART_ADDR(4) - 1,
		false, RW, 0);
	memcpy(shadow, nd->mem, MEM_SIZE);

	/* Every length across the page boundary, byte for byte. */
	for (len = 1; len <= 64; len++) {
		start = 0x1000 - len / 2;
		for (i = 0; i < len; i++) {
			buf[i] = (uint8_t)(len * 13 + i);
			o = start + i;
			if (o < 0x1000)
				shadow[PG_A - MEM_BASE + o] = buf[i];
			else
				shadow[PG_B - MEM_BASE + o - 0x1000] = buf[i];
		}
		st = xl(nic, PTAG, 1, start, len, true, 2);
		CHECK_OK(st, len > 1 ? 2 : 1);
		CHECK_EQ(gemini_nat_dma_write(nic, pc, npc, buf), 0);
		CHECK(!memcmp(shadow + (PG_B - MEM_BASE), mem(PG_B), 0x1000));
		CHECK(!memcmp(shadow + (PG_A - MEM_BASE), mem(PG_A), 0x1000));
		memset(back, 0, sizeof(back));
		CHECK_EQ(gemini_nat_dma_read(nic, pc, npc, back), 0);
		CHECK(!memcmp(back, buf, len));
		if (failures_in_test) {
			NOTE("length %u\n", len);
			break;
		}
	}
	CHECK(!memcmp(shadow, nd->mem, MEM_SIZE));

	/* Reads come back in the pieces' order. */
	CHECK_OK(xl(nic, PTAG, 1, 0x1000 - 20, 64, false, 2), 2);
	CHECK_EQ(gemini_nat_dma_read(nic, pc, npc, back), 0);
	CHECK(!memcmp(back, mem(PG_A + 0xfec), 20));
	CHECK(!memcmp(back + 20, mem(PG_B), 44));
	CHECK_EQ(gemini_nat_dma_write(nic, pc, 0, buf), 0);

	/* The device's own window: refused, the guest told, nothing moved. */
	memset(buf, 0xcc, sizeof(buf));
	gemini_nic_set_own_window(nic, 0, PG_A, 0x1000);
	CHECK_EQ(gemini_nat_dma_write(nic, pc, npc, buf), -1);
	CHECK_EQ(nd->guest_errors, 1);
	CHECK_EQ(nd->last_guest_error, GEMINI_GE_DMA_WRITE_SELF);
	CHECK_EQ(nd->last_guest_args[0], PG_A + 0xfec);
	CHECK_EQ(nd->last_guest_args[1], 20);
	CHECK(!memcmp(shadow, nd->mem, MEM_SIZE));
	CHECK_EQ(gemini_nat_dma_read(nic, pc, npc, back), -1);
	CHECK_EQ(nd->last_guest_error, GEMINI_GE_DMA_READ_SELF);
	/*
	 * The second piece in the window: its page stays as it was (the
	 * first piece may have been written, device.rst says).
	 */
	gemini_nic_set_own_window(nic, 0, PG_B, 0x1000);
	CHECK_EQ(gemini_nat_dma_write(nic, pc, npc, buf), -1);
	CHECK(!memcmp(shadow + (PG_B - MEM_BASE), mem(PG_B), 0x1000));
	CHECK_EQ(nd->guest_errors, 3);
	/* A window that starts right after a piece does not refuse it. */
	gemini_nic_set_own_window(nic, 0, PG_A + 0x1000, 0x1000);
	CHECK_OK(xl(nic, PTAG, 1, 0xfec, 20, true, 2), 1);
	CHECK_EQ(gemini_nat_dma_write(nic, pc, npc, buf), 0);
	CHECK(!memcmp(mem(PG_A + 0xfec), buf, 20));
	gemini_nic_set_own_window(nic, 0, 0, 0);

	/* Where the node has no memory the bus refuses: not a guest error. */
	mdd_set(nic, 2, PTAG, 0x40000000, 0x4000ffff, false, RW, 0);
	CHECK_OK(xl(nic, PTAG, 2, 0, 8, true, 2), 1);
	CHECK_EQ(gemini_nat_dma_write(nic, pc, npc, buf), -1);
	CHECK_EQ(gemini_nat_dma_read(nic, pc, npc, back), -1);
	CHECK_EQ(nd->guest_errors, 3);
	free(shadow);
	teardown();
}

static void ntt_set(struct gemini_nic *nic, unsigned int bank,
		    unsigned int e, uint64_t pe0, uint64_t pe1)
{
	nat_wr(nic, GEMINI_MMR_NTT_ENTRY(bank, e), 8,
	       (pe0 << GEMINI_NTT_PE0_SHIFT) | (pe1 << GEMINI_NTT_PE1_SHIFT));
}

static void test_cqh_ntt(void)
{
	struct gemini_nic *nic = setup();

	mdd_set(nic, 4095, PTAG, 0, 0xfff, false, RW, 0x3ff);
	mdd_set(nic, 7, PTAG, 0, 0xfff, false, RO, 0x155);
	CHECK_EQ(gemini_nat_cqh(nic, 4095), 0x3ff);
	CHECK_EQ(gemini_nat_cqh(nic, 7), 0x155);
	CHECK_EQ(gemini_nat_cqh(nic, 8), 0);
	/* No such domain: no CQ handle (gemini_nat.c's choice: 0). */
	CHECK_EQ(gemini_nat_cqh(nic, 4096), 0);

	/* Bank 0 holds two PEs an entry; bank 1 is not looked at. */
	ntt_set(nic, 0, 0, 0x00011, 0x3ffff);
	ntt_set(nic, 0, 1, 0x12345, 0x2abcd);
	ntt_set(nic, 0, 4095, 0x00777, 0x3fffe);
	ntt_set(nic, 1, 0, 0x1, 0x2);
	/* Check bits and wr_checkbits are not part of a PE. */
	nat_wr(nic, GEMINI_MMR_NTT_ENTRY(0, 2), 8, GEMINI_NTT_WR_CHECKBITS |
	       (0x55ull << GEMINI_NTT_CHECK_SHIFT) | (0xabcull << 18) | 0xdef);
	CHECK_EQ(gemini_nat_ntt_lookup(nic, 0), 0x11);
	CHECK_EQ(gemini_nat_ntt_lookup(nic, 1), 0x3ffff);
	CHECK_EQ(gemini_nat_ntt_lookup(nic, 2), 0x12345);
	CHECK_EQ(gemini_nat_ntt_lookup(nic, 3), 0x2abcd);
	CHECK_EQ(gemini_nat_ntt_lookup(nic, 4), 0xdef);
	CHECK_EQ(gemini_nat_ntt_lookup(nic, 5), 0xabc);
	CHECK_EQ(gemini_nat_ntt_lookup(nic, 8190), 0x777);
	CHECK_EQ(gemini_nat_ntt_lookup(nic, 8191), 0x3fffe);
	CHECK_EQ(gemini_nat_ntt_lookup(nic, 8192), -1);
	CHECK_EQ(gemini_nat_ntt_lookup(nic, 1ull << 32), -1);
	CHECK_EQ(gemini_nat_ntt_lookup(nic, ~0ull), -1);

	/* Granularity 2: index >> 2 picks the PE, its low 2 bits stay. */
	nat_wr(nic, GEMINI_MMR_NTT_CONFIG, 8, 2);
	CHECK_EQ(gemini_nat_ntt_lookup(nic, 0), 0x10);
	CHECK_EQ(gemini_nat_ntt_lookup(nic, 1), 0x11);
	CHECK_EQ(gemini_nat_ntt_lookup(nic, 3), 0x13);
	CHECK_EQ(gemini_nat_ntt_lookup(nic, 4), 0x3fffc);
	CHECK_EQ(gemini_nat_ntt_lookup(nic, 7), 0x3ffff);
	CHECK_EQ(gemini_nat_ntt_lookup(nic, 10), 0x12346);
	CHECK_EQ(gemini_nat_ntt_lookup(nic, 4 * 8191 + 3), 0x3ffff);
	CHECK_EQ(gemini_nat_ntt_lookup(nic, 4 * 8192), -1);
	/* The largest granularity, 15. */
	nat_wr(nic, GEMINI_MMR_NTT_CONFIG, 8, 0xf);
	CHECK_EQ(gemini_nat_ntt_lookup(nic, (3ull << 15) + 0x1234), 0x29234);
	CHECK_EQ(gemini_nat_ntt_lookup(nic, (8192ull << 15) - 1), 0x3ffff);
	CHECK_EQ(gemini_nat_ntt_lookup(nic, 8192ull << 15), -1);
	teardown();
}

static void test_reset(void)
{
	struct gemini_nic *nic = setup();

	mdd_set(nic, 9, PTAG, MEM_BASE, MEM_BASE + 0xfff, false, RW, 0x3ff);
	nat_wr(nic, GEMINI_MMR_MDD_ENTRY(4095), 8, ~0ull);
	nat_wr(nic, GEMINI_MMR_MDD_ENTRY(4095) + 8, 8, ~0ull);
	mrt_set(nic, 0, ~0u);
	mrt_set(nic, 16383, ~0u);
	nat_wr(nic, GEMINI_MMR_MRT_PAGE_SIZE, 8, 7);
	nat_wr(nic, GEMINI_MMR_NTT_ENTRY(0, 0) + GEMINI_NTT_WRITE_BOTH, 8,
	       ~0ull);
	nat_wr(nic, GEMINI_MMR_NTT_ENTRY(1, 4095), 8, ~0ull);
	nat_wr(nic, GEMINI_MMR_NTT_CONFIG, 8, ~0ull);
	gart_set(nic, GART_TAB, 8);
	CHECK_EQ(nonzero_regs(nic), 11);
	CHECK_OK(xl(nic, PTAG, 9, 0, 1, true, 1), 1);

	gemini_nat_reset(nic);
	CHECK_EQ(nonzero_regs(nic), 0);
	CHECK_EQ(ctl_rd(nic, "GART_BASE"), 0);
	CHECK_EQ(ctl_rd(nic, "GART_ENTRIES"), 0);
	CHECK_EQ(gemini_nat_check(nic, PTAG, 9), ST(MDD_INV));
	CHECK_EQ(xl(nic, PTAG, 9, 0, 1, false, 1), ST(MDD_INV));
	CHECK_EQ(gemini_nat_cqh(nic, 9), 0);
	CHECK_EQ(gemini_nat_ntt_lookup(nic, 1), 0);
	CHECK_EQ(fx->node.guest_errors, 0);
	teardown();
}

static const struct tap_test tests[] = {
	{ "MDD, MRT, page size, NTT, NTT config: masks, halves, not NAT's",
	  test_registers },
	{ "MDD_INV, PROTECTION, BOUNDS, WRITE_PERM, TRANSLATION in order",
	  test_status_order },
	{ "bounds: last byte, one past, 40-bit offsets, empty domains",
	  test_bounds },
	{ "MALFORMED: length 0, no room, more pieces than allowed",
	  test_malformed },
	{ "physical: one contiguous piece, then GART pages from the aperture",
	  test_physical },
	{ "MRT: every page size splits at its pages, low entry bits ignored",
	  test_mrt_sizes },
	{ "MRT: invalid entries and pages past the table refused",
	  test_mrt_misses },
	{ "GART: entries read from memory at each request, misses refused",
	  test_gart },
	{ "GART registers: base mask, halves, ENTRIES clamped and obeyed",
	  test_gart_regs },
	{ "DMA of the pieces in order, byte for byte; own window refused",
	  test_dma },
	{ "CQ handle; NTT lookup at granularity 0, 2 and 15", test_cqh_ntt },
	{ "reset clears every table and the GART registers", test_reset },
};

int main(void)
{
	return TAP_RUN(tests);
}
