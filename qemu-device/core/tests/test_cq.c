// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Host unit tests of the completion-queue block on its own (gemini_cq.c):
 * CQ descriptors and user alias pages as a driver and a user library reach
 * them, the entries events leave in node memory, wrap-around, overrun and
 * lost events, descriptors the device refuses, interrupts, the
 * supervisor's view and reset.  The expected values come from the spec
 * (the top comment of gemini_cq.c, "Completion queues" in
 * Documentation/device.rst), not from running the code.
 *
 * Links gemini_cq.c, gemini_bus.c (DMA with the own-window check,
 * interrupts, guest errors) and gemini_json.c only: the NIC is set up by
 * hand, not by gemini_nic_init().  Prints TAP; run under ASan and UBSan.
 */
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemini_core.h"
#include "fake_bus.h"
#include "tap.h"

/*
 * A fake node: 64 KiB of memory at 4 GiB (so that the last entry of a
 * ring of 2^29 entries can be in it), logs of what the NIC did.
 */
#define MEM_BASE	0x100000000ull
#define MEM_SIZE	0x10000u
#define IRQ_LOG		64
#define GE_LOG		16

/* What the fake memory holds where the device wrote nothing. */
#define POISON		0xa5

/* Ring @i sits in the @i-th 4 KiB page of the fake memory. */
#define RING(i)		(MEM_BASE + 0x1000ull * (i))
#define MEM_OFF(addr)	((size_t)((addr) - MEM_BASE))

/* The descriptor's qwords by byte offset (device.rst's QW1..QW3). */
#define QW1		0
#define QW2		8
#define QW3		16
#define DESC(cq)	GEMINI_MMR_CQ_DESC_ENTRY(cq)
#define PAGE(cq)	GEMINI_CQ_USER_PAGE(cq)

#define SREQ		GEMINI_CQE_SRC_RMT_SREQ
/* Gemini's first CQ interrupt index, 29, is MSI-X vector 29 - 21. */
#define CQ_IRQ		29
#define CQ_VEC		8

struct node {
	struct gemini_nic nic;
	uint8_t mem[MEM_SIZE];
	unsigned int irqs[IRQ_LOG];
	unsigned int nirq;
	unsigned int guest_errors;
	unsigned int last_guest_error;
	uint64_t last_guest_args[4];
	/* Every guest error's kind, in the order reported. */
	unsigned int ge[GE_LOG];
	/* The wr_index of CQ @watch_cq as each interrupt was raised. */
	unsigned int watch_cq;
	uint32_t irq_wr[IRQ_LOG];
};

FAKE_BUS_CALLBACKS(struct node)

/* The device must raise a CQ's interrupt after it has moved wr_index. */
static void log_irq(void *opaque, unsigned int vector)
{
	struct node *n = opaque;
	uint64_t v = ~0ull;

	gemini_cq_access(&n->nic, PAGE(n->watch_cq) + 4, 4, &v, false);
	if (n->nirq < IRQ_LOG)
		n->irq_wr[n->nirq] = (uint32_t)v;
	fake_irq(opaque, vector);
}

/* fake_bus.h keeps the last guest error; some events report two. */
static void log_guest_error(void *opaque, unsigned int kind,
			    const uint64_t args[4])
{
	struct node *n = opaque;

	if (n->guest_errors < GE_LOG)
		n->ge[n->guest_errors] = kind;
	fake_guest_error(opaque, kind, args);
}

static const struct gemini_ops fake_ops = {
	.dma_read = fake_dma_read,
	.dma_write = fake_dma_write,
	.raise_irq = log_irq,
	.guest_error = log_guest_error,
};

/*
 * What gemini_nic_init() would do for this block alone: the identity the
 * block reads (ops, opaque, the number of vectors) and a CQ reset.
 */
static struct node *node_new(unsigned int num_vectors)
{
	struct node *n = calloc(1, sizeof(*n));

	if (!n) {
		perror("calloc");
		exit(2);
	}
	n->nic.ops = &fake_ops;
	n->nic.opaque = n;
	n->nic.cfg.num_vectors = num_vectors;
	memset(n->mem, POISON, sizeof(n->mem));
	gemini_cq_reset(&n->nic);
	return n;
}

/* --- the driver's and the library's side --------------------------------- */

/* An access to the NIC window that the block must take. */
static uint64_t win_rd(struct node *n, uint64_t off, unsigned int size)
{
	uint64_t v = 0x5a5a5a5a5a5a5a5aull;

	CHECK_EQ(gemini_cq_access(&n->nic, off, size, &v, false),
		 GEMINI_ACCESS_OK);
	return v;
}

static void win_wr(struct node *n, uint64_t off, unsigned int size,
		   uint64_t v)
{
	CHECK_EQ(gemini_cq_access(&n->nic, off, size, &v, true),
		 GEMINI_ACCESS_OK);
}

/* A read the block answers with @want; inside its range it reads as 0. */
static void check_read(struct node *n, uint64_t off, unsigned int size,
		       enum gemini_access want, bool zero)
{
	uint64_t v = 0x5a5a5a5a5a5a5a5aull;

	CHECK_EQ(gemini_cq_access(&n->nic, off, size, &v, false), want);
	if (zero)
		CHECK_EQ(v, 0);
}

static void check_write(struct node *n, uint64_t off, unsigned int size,
			uint64_t v, enum gemini_access want)
{
	CHECK_EQ(gemini_cq_access(&n->nic, off, size, &v, true), want);
}

struct cq_cfg {
	uint64_t base;
	uint32_t max_index;
	uint32_t thresh;
	unsigned int irq_index;
	bool irq;
	bool enable;
};

/* The driver's order (device.rst): QW3, QW1 (indices 0), QW2. */
static void cq_program(struct node *n, unsigned int cq,
		       const struct cq_cfg *c)
{
	win_wr(n, DESC(cq) + QW3, 8,
	       c->base | (c->irq ? GEMINI_CQ_IRQ_REQ : 0));
	win_wr(n, DESC(cq) + QW1, 8, 0);
	win_wr(n, DESC(cq) + QW2, 8, (uint64_t)c->max_index |
	       (uint64_t)c->thresh << GEMINI_CQ_IRQ_THRESH_SHIFT |
	       (uint64_t)c->irq_index << GEMINI_CQ_IRQ_INDEX_SHIFT |
	       (c->enable ? GEMINI_CQ_ENABLE : 0));
}

/* The library's view through the CQ's user page. */
static uint32_t cq_wr_index(struct node *n, unsigned int cq)
{
	return (uint32_t)win_rd(n, PAGE(cq) + 4, 4);
}

static uint32_t cq_rd_index(struct node *n, unsigned int cq)
{
	return (uint32_t)win_rd(n, PAGE(cq), 4);
}

/* The consumer reports that every entry before @rd has been read. */
static void cq_consume(struct node *n, unsigned int cq, uint32_t rd)
{
	win_wr(n, PAGE(cq), 8, rd);
}

static bool event(struct node *n, unsigned int cq, uint64_t data)
{
	return gemini_cq_event(&n->nic, cq, SREQ, GEMINI_STATUS_OK, data);
}

/* The little-endian qword of node memory at @addr. */
static uint64_t mem64(const struct node *n, uint64_t addr)
{
	const uint8_t *p = n->mem + MEM_OFF(addr);
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/*
 * An entry as device.rst lays it out, spelled out here rather than taken
 * from GEMINI_CQE(): bit 63 overrun, 62..59 status, 58..56 source, 55..0
 * data.
 */
static uint64_t cqe(unsigned int src, unsigned int status, uint64_t data,
		    bool overrun)
{
	return (overrun ? 1ull << 63 : 0) | (uint64_t)status << 59 |
	       (uint64_t)src << 56 | (data & 0x00ffffffffffffffull);
}

static void check_stats(struct node *n, uint64_t events, uint64_t overruns,
			uint64_t lost)
{
	const struct gemini_cq_stats *s = gemini_cq_stats(&n->nic);

	CHECK_EQ(s->events, events);
	CHECK_EQ(s->overruns, overruns);
	CHECK_EQ(s->lost, lost);
}

/* The node memory, to show that a lost event wrote nothing. */
static uint8_t snap[MEM_SIZE];

static void mem_snap(const struct node *n)
{
	memcpy(snap, n->mem, sizeof(snap));
}

static bool mem_same(const struct node *n)
{
	return !memcmp(snap, n->mem, sizeof(snap));
}

/* --- tests ---------------------------------------------------------------- */

/* Each qword keeps its defined bits only, whole or by halves. */
static void test_desc_registers(void)
{
	static const unsigned int cqs[] = { 0, 1, 500, GEMINI_NUM_CQ - 1 };
	struct node *n = node_new(GEMINI_NUM_IRQ);
	unsigned int i;

	for (i = 0; i < sizeof(cqs) / sizeof(cqs[0]); i++) {
		uint64_t d = DESC(cqs[i]);

		win_wr(n, d + QW1, 8, ~0ull);
		win_wr(n, d + QW2, 8, ~0ull);
		win_wr(n, d + QW3, 8, ~0ull);
		/* rd_index 28..0, wr_index 60..32 */
		CHECK_EQ(win_rd(n, d + QW1, 8), 0x1fffffff1fffffffull);
		/* max_index 28..0, thresh 44..32, irq index 52..48, enable */
		CHECK_EQ(win_rd(n, d + QW2, 8), 0x003f1fff1fffffffull);
		/* base_addr 47..0, irq_req 48 */
		CHECK_EQ(win_rd(n, d + QW3, 8), 0x0001ffffffffffffull);
		/* The masks of the header are the spec's. */
		CHECK_EQ(GEMINI_CQ_QW1_MASK, 0x1fffffff1fffffffull);
		CHECK_EQ(GEMINI_CQ_QW2_MASK, 0x003f1fff1fffffffull);
		CHECK_EQ(GEMINI_CQ_QW3_MASK, 0x0001ffffffffffffull);

		/* 4-byte reads give each half. */
		CHECK_EQ(win_rd(n, d + QW1, 4), 0x1fffffff);
		CHECK_EQ(win_rd(n, d + QW1 + 4, 4), 0x1fffffff);
		CHECK_EQ(win_rd(n, d + QW2, 4), 0x1fffffff);
		CHECK_EQ(win_rd(n, d + QW2 + 4, 4), 0x003f1fff);
		CHECK_EQ(win_rd(n, d + QW3, 4), 0xffffffff);
		CHECK_EQ(win_rd(n, d + QW3 + 4, 4), 0x0001ffff);

		/* A 4-byte write changes its half only, under the mask. */
		win_wr(n, d + QW2, 4, 7);
		CHECK_EQ(win_rd(n, d + QW2, 8), 0x003f1fff00000007ull);
		win_wr(n, d + QW2 + 4, 4, 0xffe00001);
		CHECK_EQ(win_rd(n, d + QW2, 8), 0x0020000100000007ull);
		win_wr(n, d + QW3 + 4, 4, 0);
		CHECK_EQ(win_rd(n, d + QW3, 8), 0x00000000ffffffffull);
		win_wr(n, d + QW3, 4, 0x12345000);
		win_wr(n, d + QW3 + 4, 4, 0xffff0abc);
		CHECK_EQ(win_rd(n, d + QW3, 8), 0x00010abc12345000ull);

		/* QW1's halves are rd_index and wr_index. */
		win_wr(n, d + QW1, 8, 0x0000000500000003ull);
		CHECK_EQ(win_rd(n, d + QW1, 4), 3);
		CHECK_EQ(win_rd(n, d + QW1 + 4, 4), 5);
		win_wr(n, d + QW1, 4, 0xffffffff);
		CHECK_EQ(win_rd(n, d + QW1, 8), 0x000000051fffffffull);
		win_wr(n, d + QW1 + 4, 4, 0xe0000009);
		CHECK_EQ(win_rd(n, d + QW1, 8), 0x000000091fffffffull);

		/* The slot's fourth qword holds nothing. */
		check_read(n, d + 24, 8, GEMINI_ACCESS_UNKNOWN, true);
		check_read(n, d + 24, 4, GEMINI_ACCESS_UNKNOWN, true);
		check_read(n, d + 28, 4, GEMINI_ACCESS_UNKNOWN, true);
		check_write(n, d + 24, 8, ~0ull, GEMINI_ACCESS_UNKNOWN);
		check_write(n, d + 28, 4, ~0ull, GEMINI_ACCESS_UNKNOWN);
		CHECK_EQ(win_rd(n, d + QW1, 8), 0x000000091fffffffull);
		CHECK_EQ(win_rd(n, d + QW2, 8), 0x0020000100000007ull);
		CHECK_EQ(win_rd(n, d + QW3, 8), 0x00010abc12345000ull);
	}

	/* Each CQ has its own slot: a neighbour's writes do not show. */
	gemini_cq_reset(&n->nic);
	for (i = 0; i < sizeof(cqs) / sizeof(cqs[0]); i++)
		win_wr(n, DESC(cqs[i]) + QW2, 8, cqs[i] + 1);
	for (i = 0; i < sizeof(cqs) / sizeof(cqs[0]); i++) {
		CHECK_EQ(win_rd(n, DESC(cqs[i]) + QW1, 8), 0);
		CHECK_EQ(win_rd(n, DESC(cqs[i]) + QW2, 8), cqs[i] + 1);
		CHECK_EQ(win_rd(n, DESC(cqs[i]) + QW3, 8), 0);
	}
	CHECK_EQ(win_rd(n, DESC(2) + QW2, 8), 0);
	CHECK_EQ(win_rd(n, DESC(499) + QW2, 8), 0);
	CHECK_EQ(win_rd(n, DESC(GEMINI_NUM_CQ - 2) + QW2, 8), 0);
	CHECK_EQ(n->guest_errors, 0);
	free(n);
}

/* The CQ user page: QW1 to read, rd_index to write, nothing else. */
static void test_alias_page(void)
{
	struct node *n = node_new(GEMINI_NUM_IRQ);
	const uint64_t d = DESC(5), p = PAGE(5);
	static const uint64_t empty[] = { 8, 12, 16, 0x800, 0xff8, 0xffc };
	unsigned int i;

	win_wr(n, d + QW2, 8, 0x1234);
	win_wr(n, d + QW3, 8, 0x5000);
	win_wr(n, d + QW1, 8, 0x0000000700000002ull);
	CHECK_EQ(win_rd(n, p, 8), 0x0000000700000002ull);
	CHECK_EQ(win_rd(n, p, 4), 2);
	CHECK_EQ(win_rd(n, p + 4, 4), 7);

	/* Bits 28..0 of an 8-byte write are the new rd_index. */
	win_wr(n, p, 8, 0xffffffffe0000004ull);
	CHECK_EQ(win_rd(n, d + QW1, 8), 0x0000000700000004ull);
	win_wr(n, p, 8, 0x3fffffff);
	CHECK_EQ(win_rd(n, d + QW1, 8), 0x000000071fffffffull);
	/* A 4-byte write at +0 does the same. */
	win_wr(n, p, 4, 6);
	CHECK_EQ(win_rd(n, d + QW1, 8), 0x0000000700000006ull);
	CHECK_EQ(win_rd(n, p, 8), 0x0000000700000006ull);

	/* +4, the write index, is read-only. */
	check_write(n, p + 4, 4, 1, GEMINI_ACCESS_READ_ONLY);
	check_write(n, p + 4, 4, 0, GEMINI_ACCESS_READ_ONLY);
	CHECK_EQ(win_rd(n, d + QW1, 8), 0x0000000700000006ull);

	/* The rest of the page holds nothing. */
	for (i = 0; i < sizeof(empty) / sizeof(empty[0]); i++) {
		check_read(n, p + empty[i], 4, GEMINI_ACCESS_UNKNOWN, true);
		check_write(n, p + empty[i], 4, ~0ull, GEMINI_ACCESS_UNKNOWN);
		if (empty[i] & 4)
			continue;
		check_write(n, p + empty[i], 8, ~0ull, GEMINI_ACCESS_UNKNOWN);
		/* vgemini's idle register: an 8-byte read of 0 */
		if (empty[i] == GEMINI_CQ_IDLE_OFFSET) {
			check_read(n, p + empty[i], 8, GEMINI_ACCESS_OK, true);
			continue;
		}
		check_read(n, p + empty[i], 8, GEMINI_ACCESS_UNKNOWN, true);
	}
	/* The page reaches QW1's rd_index and nothing more of the slot. */
	CHECK_EQ(win_rd(n, d + QW1, 8), 0x0000000700000006ull);
	CHECK_EQ(win_rd(n, d + QW2, 8), 0x1234);
	CHECK_EQ(win_rd(n, d + QW3, 8), 0x5000);
	/* And only its own CQ's. */
	CHECK_EQ(win_rd(n, PAGE(4), 8), 0);
	CHECK_EQ(win_rd(n, PAGE(6), 8), 0);
	win_wr(n, PAGE(6), 8, 1);
	CHECK_EQ(win_rd(n, DESC(6) + QW1, 8), 1);
	CHECK_EQ(win_rd(n, d + QW1, 8), 0x0000000700000006ull);
	CHECK_EQ(n->guest_errors, 0);
	free(n);
}

/* Entries land at base + 8 * wr_index, little-endian, in layout order. */
static void test_entry_layout(void)
{
	struct node *n = node_new(GEMINI_NUM_IRQ);
	const struct cq_cfg c = { RING(1), 7, 0, 0, false, true };
	const struct cq_cfg big = { RING(2), 1023, 0, 0, false, true };
	static const uint8_t e0[8] = {
		0xef, 0xcd, 0xab, 0x89, 0x67, 0x45, 0x23, 0x55,
	};
	static const uint8_t e1[8] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f,
	};
	static const uint8_t e2[8] = { 0, 0, 0, 0, 0, 0, 0, 0x01 };
	static const uint8_t e3[8] = { 0x80, 0, 0, 0, 0, 0, 0, 0x0c };
	const uint8_t *ring = n->mem + MEM_OFF(RING(1));
	unsigned int src, status, k;
	size_t i;

	cq_program(n, 3, &c);
	/* Source 5, status 0xa, and data whose top byte must be cut. */
	CHECK(gemini_cq_event(&n->nic, 3, 5, 0xa, 0x0123456789abcdefull));
	CHECK(!memcmp(ring, e0, 8));
	/* Every field full. */
	CHECK(gemini_cq_event(&n->nic, 3, 7, 0xf, ~0ull));
	CHECK(!memcmp(ring + 8, e1, 8));
	/* The data's top byte does not leak into source or status. */
	CHECK(gemini_cq_event(&n->nic, 3, 1, 0, 0xff00000000000000ull));
	CHECK(!memcmp(ring + 16, e2, 8));
	CHECK(gemini_cq_event(&n->nic, 3, GEMINI_CQE_SRC_BTE,
			      GEMINI_STATUS_MISROUTED, 0x80));
	CHECK(!memcmp(ring + 24, e3, 8));
	CHECK_EQ(cq_wr_index(n, 3), 4);
	/* Nothing around the four entries was written. */
	for (i = 32; i < 0x1000; i++)
		if (ring[i] != POISON) {
			NOTE("ring byte %zu written\n", i);
			CHECK(ring[i] == POISON);
			break;
		}
	CHECK_EQ(ring[-1], POISON);
	check_stats(n, 4, 0, 0);

	/* Every source and status in its place; GEMINI_CQE() agrees. */
	cq_program(n, 3, &big);
	k = 0;
	for (src = 1; src <= 7; src++) {
		for (status = 0; status <= 15; status++, k++) {
			uint64_t data = 0x00a5c3e1f0123456ull * (k + 1);

			CHECK(gemini_cq_event(&n->nic, 3, src, status, data));
			CHECK_EQ(mem64(n, RING(2) + 8 * k),
				 cqe(src, status, data, false));
			CHECK_EQ(GEMINI_CQE(src, status, data),
				 cqe(src, status, data, false));
		}
	}
	CHECK_EQ(cq_wr_index(n, 3), k);
	CHECK_EQ(GEMINI_CQE_OVERRUN, 1ull << 63);
	check_stats(n, 4 + k, 0, 0);
	CHECK_EQ(n->guest_errors, 0);
	CHECK_EQ(n->nirq, 0);
	free(n);
}

/* wr_index goes round the ring; the consumer keeping pace sees no overrun. */
static void test_wrap_around(void)
{
	struct node *n = node_new(GEMINI_NUM_IRQ);
	const struct cq_cfg c = { RING(2), 7, 0, 0, false, true };
	const uint8_t *ring = n->mem + MEM_OFF(RING(2));
	/* 2^29 entries from 0x4000: the last is at MEM_BASE + 0x3ff8. */
	const struct cq_cfg huge = { 0x4000, 0x1fffffff, 0, 0, false, true };
	unsigned int k;
	size_t i;

	cq_program(n, 9, &c);
	for (k = 0; k < 24; k++) {
		CHECK(event(n, 9, 0x1000 + k));
		CHECK_EQ(mem64(n, RING(2) + 8 * (k % 8)),
			 cqe(SREQ, 0, 0x1000 + k, false));
		CHECK_EQ(cq_wr_index(n, 9), (k + 1) % 8);
		cq_consume(n, 9, (k + 1) % 8);
		CHECK_EQ(cq_rd_index(n, 9), (k + 1) % 8);
	}
	/* The ring is 8 entries, not a byte more. */
	for (i = 64; i < 0x1000; i++)
		if (ring[i] != POISON) {
			NOTE("byte %zu past the ring written\n", i);
			CHECK(ring[i] == POISON);
			break;
		}
	CHECK_EQ(ring[-1], POISON);
	check_stats(n, 24, 0, 0);

	/* A consumer that lags: max_index entries fit, the last free. */
	for (k = 0; k < 7; k++)
		CHECK(event(n, 9, 0x2000 + k));
	for (k = 0; k < 7; k++)
		CHECK_EQ(mem64(n, RING(2) + 8 * k),
			 cqe(SREQ, 0, 0x2000 + k, false));
	CHECK_EQ(cq_wr_index(n, 9), 7);
	check_stats(n, 31, 0, 0);

	/*
	 * The largest ring, 2^29 entries: wr_index at max_index wraps to 0.
	 * Only its last entry is in the fake memory, so that entry 0 then
	 * meets a bus error whose report shows where it went.
	 */
	CHECK_EQ(huge.base + 8ull * 0x1fffffff, MEM_BASE + 0x3ff8);
	cq_program(n, 10, &huge);
	win_wr(n, DESC(10) + QW1, 8, 0x1fffffff00000005ull);
	CHECK(event(n, 10, 0x77));
	CHECK_EQ(mem64(n, huge.base + 8ull * 0x1fffffff),
		 cqe(SREQ, 0, 0x77, false));
	CHECK_EQ(cq_wr_index(n, 10), 0);
	CHECK(!event(n, 10, 0x78));
	CHECK_EQ(n->last_guest_error, GEMINI_GE_CQ_BUS);
	CHECK_EQ(n->last_guest_args[0], 10);
	CHECK_EQ(n->last_guest_args[1], 0);
	CHECK_EQ(n->last_guest_args[2], huge.base);
	CHECK_EQ(n->guest_errors, 1);
	check_stats(n, 32, 0, 1);
	free(n);
}

/* A full ring takes one overrun entry, then loses events until read. */
static void test_overrun_and_lost(void)
{
	struct node *n = node_new(GEMINI_NUM_IRQ);
	const struct cq_cfg c = { RING(3), 3, 0, 0, false, true };
	const struct cq_cfg two = { RING(4), 1, 0, 0, false, true };
	unsigned int k;

	cq_program(n, 4, &c);
	for (k = 0; k < 3; k++)
		CHECK(event(n, 4, k));
	CHECK_EQ(cq_wr_index(n, 4), 3);
	check_stats(n, 3, 0, 0);
	/* (3 + 1) mod 4 == rd_index 0: full; slot 3 gets the overrun bit. */
	CHECK(gemini_cq_event(&n->nic, 4, SREQ, GEMINI_STATUS_BOUNDS, 3));
	CHECK_EQ(mem64(n, RING(3) + 24),
		 cqe(SREQ, GEMINI_STATUS_BOUNDS, 3, true));
	CHECK_EQ(cq_wr_index(n, 4), 3);
	check_stats(n, 4, 1, 0);

	/* Lost from now on: nothing written, no guest error. */
	mem_snap(n);
	CHECK(!event(n, 4, 4));
	CHECK(!event(n, 4, 5));
	CHECK(mem_same(n));
	check_stats(n, 4, 3, 2);
	CHECK_EQ(n->guest_errors, 0);

	/* Rewriting the rd_index in place, in any way, releases nothing. */
	cq_consume(n, 4, 0);
	win_wr(n, PAGE(4), 4, 0);
	win_wr(n, DESC(4) + QW1, 4, 0);
	CHECK(!event(n, 4, 6));
	CHECK(mem_same(n));
	CHECK_EQ(cq_wr_index(n, 4), 3);
	check_stats(n, 4, 4, 3);

	/*
	 * The consumer read slots 0..2: wr_index moves past the overrun
	 * entry to 0 and events flow.  Slots 0 and 1 are free, slot 2 is
	 * the one kept free, so it gets the next overrun entry.
	 */
	cq_consume(n, 4, 3);
	CHECK_EQ(cq_wr_index(n, 4), 0);
	CHECK(event(n, 4, 7));
	CHECK(event(n, 4, 8));
	CHECK(event(n, 4, 9));
	CHECK_EQ(mem64(n, RING(3)), cqe(SREQ, 0, 7, false));
	CHECK_EQ(mem64(n, RING(3) + 8), cqe(SREQ, 0, 8, false));
	CHECK_EQ(mem64(n, RING(3) + 16), cqe(SREQ, 0, 9, true));
	CHECK_EQ(cq_wr_index(n, 4), 2);
	CHECK(!event(n, 4, 10));
	/* The unread overrun entry in slot 3 was not overwritten. */
	CHECK_EQ(mem64(n, RING(3) + 24),
		 cqe(SREQ, GEMINI_STATUS_BOUNDS, 3, true));
	check_stats(n, 7, 6, 4);

	/*
	 * The consumer reads slot 3 (rd 0), then 0, 1, 2 (rd 1, 2, 3): the
	 * first of these writes releases the overrun entry in slot 2.
	 */
	cq_consume(n, 4, 0);
	CHECK_EQ(cq_wr_index(n, 4), 3);
	cq_consume(n, 4, 1);
	cq_consume(n, 4, 2);
	cq_consume(n, 4, 3);
	CHECK_EQ(cq_wr_index(n, 4), 3);
	/* Empty now (rd == wr): three plain entries, 3, 0, 1. */
	for (k = 0; k < 3; k++)
		CHECK(event(n, 4, 0x100 + k));
	CHECK_EQ(mem64(n, RING(3) + 24), cqe(SREQ, 0, 0x100, false));
	CHECK_EQ(mem64(n, RING(3)), cqe(SREQ, 0, 0x101, false));
	CHECK_EQ(mem64(n, RING(3) + 8), cqe(SREQ, 0, 0x102, false));
	CHECK_EQ(cq_wr_index(n, 4), 2);
	check_stats(n, 10, 6, 4);

	/* The consumer's half of the descriptor releases it too. */
	CHECK(event(n, 4, 0x103));
	CHECK_EQ(mem64(n, RING(3) + 16), cqe(SREQ, 0, 0x103, true));
	CHECK(!event(n, 4, 0x104));
	win_wr(n, DESC(4) + QW1, 4, 0);
	CHECK_EQ(cq_wr_index(n, 4), 3);
	CHECK_EQ(cq_rd_index(n, 4), 0);
	CHECK(event(n, 4, 0x105));
	CHECK_EQ(mem64(n, RING(3) + 24), cqe(SREQ, 0, 0x105, true));
	check_stats(n, 12, 9, 5);

	/* The smallest ring, max_index 1: one usable entry, then overrun. */
	cq_program(n, 6, &two);
	CHECK(event(n, 6, 1));
	CHECK(event(n, 6, 2));
	CHECK_EQ(mem64(n, RING(4)), cqe(SREQ, 0, 1, false));
	CHECK_EQ(mem64(n, RING(4) + 8), cqe(SREQ, 0, 2, true));
	CHECK_EQ(cq_wr_index(n, 6), 1);
	CHECK(!event(n, 6, 3));
	cq_consume(n, 6, 1);
	CHECK_EQ(cq_wr_index(n, 6), 0);
	cq_consume(n, 6, 0);
	CHECK(event(n, 6, 4));
	CHECK_EQ(mem64(n, RING(4)), cqe(SREQ, 0, 4, false));
	CHECK_EQ(cq_wr_index(n, 6), 1);
	check_stats(n, 15, 11, 6);
	CHECK_EQ(n->guest_errors, 0);
	free(n);
}

/* QW1 whole, its wr_index half or QW2 start the history afresh; QW3 not. */
static void test_driver_restart(void)
{
	struct node *n = node_new(GEMINI_NUM_IRQ);
	const struct cq_cfg c = { RING(5), 3, 0, 0, false, true };
	uint64_t qw2, qw3;
	unsigned int k;

	cq_program(n, 2, &c);
	qw2 = win_rd(n, DESC(2) + QW2, 8);
	qw3 = win_rd(n, DESC(2) + QW3, 8);
	for (k = 0; k < 4; k++)
		CHECK(event(n, 2, k));
	CHECK(!event(n, 2, 4));
	check_stats(n, 4, 2, 1);

	/* QW3 is not in the list: the overrun entry still holds. */
	win_wr(n, DESC(2) + QW3, 8, qw3);
	CHECK(!event(n, 2, 5));
	check_stats(n, 4, 3, 2);

	/*
	 * QW2, even unchanged, forgets the overrun entry.  The indices still
	 * say full (wr 3, rd 0), so the next event is an overrun entry again,
	 * in the same slot.
	 */
	win_wr(n, DESC(2) + QW2, 8, qw2);
	CHECK(event(n, 2, 6));
	CHECK_EQ(mem64(n, RING(5) + 24), cqe(SREQ, 0, 6, true));
	CHECK_EQ(cq_wr_index(n, 2), 3);
	CHECK(!event(n, 2, 7));
	check_stats(n, 5, 5, 3);

	/* A half write of QW2 is a write of QW2. */
	win_wr(n, DESC(2) + QW2 + 4, 4, qw2 >> 32);
	CHECK(event(n, 2, 8));
	CHECK_EQ(mem64(n, RING(5) + 24), cqe(SREQ, 0, 8, true));
	check_stats(n, 6, 6, 3);

	/* QW1 whole, indices 0: an empty ring. */
	win_wr(n, DESC(2) + QW1, 8, 0);
	CHECK(event(n, 2, 9));
	CHECK_EQ(mem64(n, RING(5)), cqe(SREQ, 0, 9, false));
	CHECK_EQ(cq_wr_index(n, 2), 1);

	/* Full again; the driver's wr_index half puts wr_index at 1. */
	for (k = 0; k < 3; k++)
		CHECK(event(n, 2, 10 + k));
	CHECK_EQ(mem64(n, RING(5) + 24), cqe(SREQ, 0, 12, true));
	CHECK(!event(n, 2, 13));
	check_stats(n, 10, 8, 4);
	win_wr(n, DESC(2) + QW1 + 4, 4, 1);
	CHECK_EQ(cq_wr_index(n, 2), 1);
	CHECK(event(n, 2, 14));
	CHECK_EQ(mem64(n, RING(5) + 8), cqe(SREQ, 0, 14, false));
	CHECK_EQ(cq_wr_index(n, 2), 2);
	check_stats(n, 11, 8, 4);
	CHECK_EQ(n->guest_errors, 0);
	free(n);
}

/* Descriptors the device will not use: lost, counted, reported. */
static void test_bad_descriptors(void)
{
	static const struct {
		uint64_t base;
		uint32_t max, rd, wr;
		bool enable;
		unsigned int kind;
	} bad[] = {
		{ RING(1), 3, 0, 0, false, GEMINI_GE_CQ_DISABLED },
		{ RING(1) + 8, 3, 0, 0, true, GEMINI_GE_CQ_BAD_DESC },
		{ RING(1) + 0x800, 3, 0, 0, true, GEMINI_GE_CQ_BAD_DESC },
		{ RING(1), 0, 0, 0, true, GEMINI_GE_CQ_BAD_DESC },
		/* the last entry's last byte at 2^48 + 7 */
		{ 0xfffffffff000ull, 512, 0, 0, true, GEMINI_GE_CQ_BAD_DESC },
		{ RING(1), 3, 4, 0, true, GEMINI_GE_CQ_BAD_DESC },
		{ RING(1), 3, 0, 4, true, GEMINI_GE_CQ_BAD_DESC },
		{ RING(1), 3, 0x1fffffff, 0x1fffffff, true,
		  GEMINI_GE_CQ_BAD_DESC },
	};
	struct node *n = node_new(GEMINI_NUM_IRQ);
	struct cq_cfg c = { 0, 0, 0, CQ_IRQ, true, true };
	unsigned int k;

	for (k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		c.base = bad[k].base;
		c.max_index = bad[k].max;
		c.enable = bad[k].enable;
		cq_program(n, 11, &c);
		/* rd_index as the consumer writes it, wr_index the driver */
		if (bad[k].rd)
			cq_consume(n, 11, bad[k].rd);
		if (bad[k].wr)
			win_wr(n, DESC(11) + QW1 + 4, 4, bad[k].wr);
		mem_snap(n);
		CHECK(!event(n, 11, k));
		CHECK(mem_same(n));
		check_stats(n, 0, 0, k + 1);
		CHECK_EQ(n->guest_errors, k + 1);
		CHECK_EQ(n->last_guest_error, bad[k].kind);
		CHECK_EQ(n->last_guest_args[0], 11);
		if (bad[k].kind == GEMINI_GE_CQ_BAD_DESC) {
			CHECK_EQ(n->last_guest_args[1], bad[k].base);
			CHECK_EQ(n->last_guest_args[2], bad[k].max);
			CHECK_EQ(n->last_guest_args[3],
				 (uint64_t)bad[k].rd << 32 | bad[k].wr);
		}
		/* Lost events raise nothing. */
		CHECK_EQ(n->nirq, 0);
		CHECK_EQ(cq_wr_index(n, 11), bad[k].wr);
	}

	/* Both indices may be max_index: rd == wr, empty. */
	c.base = RING(1);
	c.max_index = 3;
	cq_program(n, 11, &c);
	win_wr(n, DESC(11) + QW1, 8, 0x0000000300000003ull);
	CHECK(event(n, 11, 0x33));
	CHECK_EQ(mem64(n, RING(1) + 24), cqe(SREQ, 0, 0x33, false));
	CHECK_EQ(cq_wr_index(n, 11), 0);
	CHECK_EQ(n->nirq, 1);
	check_stats(n, 1, 0, k);
	CHECK_EQ(n->guest_errors, k);
	free(n);
}

/* The bus refuses the entry: no memory there, or the device's own BAR. */
static void test_bus_refused(void)
{
	struct node *n = node_new(GEMINI_NUM_IRQ);
	struct cq_cfg c = { 0x10000000, 3, 0, CQ_IRQ, true, true };

	/* No memory at the ring. */
	cq_program(n, 12, &c);
	mem_snap(n);
	CHECK(!event(n, 12, 1));
	CHECK(mem_same(n));
	CHECK_EQ(n->last_guest_error, GEMINI_GE_CQ_BUS);
	CHECK_EQ(n->last_guest_args[0], 12);
	CHECK_EQ(n->last_guest_args[1], 0);
	CHECK_EQ(n->last_guest_args[2], 0x10000000);
	CHECK_EQ(cq_wr_index(n, 12), 0);
	check_stats(n, 0, 0, 1);

	/* A ring that ends at the last byte of 48 bits is a good one. */
	c.base = 0xfffffffff000ull;
	c.max_index = 511;
	cq_program(n, 13, &c);
	CHECK(!event(n, 13, 1));
	CHECK_EQ(n->last_guest_error, GEMINI_GE_CQ_BUS);
	CHECK_EQ(n->last_guest_args[2], 0xfffffffff000ull);
	CHECK_EQ(n->guest_errors, 2);
	check_stats(n, 0, 0, 2);
	CHECK_EQ(n->nirq, 0);

	/* The ring in the device's own window: refused before the bus. */
	c.base = RING(3);
	c.max_index = 3;
	cq_program(n, 14, &c);
	gemini_nic_set_own_window(&n->nic, 0, RING(3), 0x1000);
	mem_snap(n);
	CHECK(!event(n, 14, 1));
	CHECK(mem_same(n));
	CHECK_EQ(n->guest_errors, 4);
	CHECK_EQ(n->ge[2], GEMINI_GE_DMA_WRITE_SELF);
	CHECK_EQ(n->ge[3], GEMINI_GE_CQ_BUS);
	CHECK_EQ(n->last_guest_args[0], 14);
	CHECK_EQ(n->last_guest_args[1], 0);
	CHECK_EQ(n->last_guest_args[2], RING(3));
	CHECK_EQ(cq_wr_index(n, 14), 0);
	check_stats(n, 0, 0, 3);
	CHECK_EQ(n->nirq, 0);

	/* A window over slot 1 only: slot 0 is written, slot 1 is not. */
	gemini_nic_set_own_window(&n->nic, 0, RING(3) + 8, 8);
	CHECK(event(n, 14, 2));
	CHECK_EQ(mem64(n, RING(3)), cqe(SREQ, 0, 2, false));
	CHECK_EQ(n->nirq, 1);
	mem_snap(n);
	CHECK(!event(n, 14, 3));
	CHECK(mem_same(n));
	CHECK_EQ(cq_wr_index(n, 14), 1);
	CHECK_EQ(n->last_guest_error, GEMINI_GE_CQ_BUS);
	CHECK_EQ(n->last_guest_args[1], 1);
	CHECK_EQ(n->nirq, 1);
	check_stats(n, 1, 0, 4);

	/* A window right after the slot does not touch it. */
	gemini_nic_set_own_window(&n->nic, 0, RING(3) + 16, 8);
	CHECK(event(n, 14, 4));
	CHECK_EQ(mem64(n, RING(3) + 8), cqe(SREQ, 0, 4, false));
	CHECK(!event(n, 14, 5));
	/* Size 0 forgets the window. */
	gemini_nic_set_own_window(&n->nic, 0, RING(3) + 16, 0);
	CHECK(event(n, 14, 6));
	CHECK_EQ(mem64(n, RING(3) + 16), cqe(SREQ, 0, 6, false));
	CHECK_EQ(cq_wr_index(n, 14), 3);
	CHECK_EQ(n->nirq, 3);
	check_stats(n, 3, 0, 5);
	free(n);
}

/* Every (irq_thresh_index + 1)-th entry while armed; restarts. */
static void test_irq_threshold(void)
{
	struct node *n = node_new(GEMINI_NUM_IRQ);
	struct cq_cfg c = { RING(6), 1023, 0, CQ_IRQ, true, true };
	const struct cq_cfg small = { RING(9), 3, 1, CQ_IRQ, true, true };
	uint64_t v;
	unsigned int k, irqs;

	n->watch_cq = 20;
	/* Threshold 0: every entry, after wr_index has moved. */
	cq_program(n, 20, &c);
	for (k = 0; k < 3; k++)
		CHECK(event(n, 20, k));
	CHECK_EQ(n->nirq, 3);
	for (k = 0; k < 3; k++) {
		CHECK_EQ(n->irqs[k], CQ_VEC);
		CHECK_EQ(n->irq_wr[k], k + 1);
	}

	/* Not armed: nothing. */
	c.irq = false;
	cq_program(n, 20, &c);
	for (k = 0; k < 5; k++)
		CHECK(event(n, 20, k));
	CHECK_EQ(n->nirq, 3);

	/* Threshold 2: the 3rd and the 6th entry. */
	c.irq = true;
	c.thresh = 2;
	cq_program(n, 20, &c);
	for (k = 0; k < 7; k++)
		CHECK(event(n, 20, k));
	CHECK_EQ(n->nirq, 5);
	CHECK_EQ(n->irq_wr[3], 3);
	CHECK_EQ(n->irq_wr[4], 6);

	/*
	 * One entry counted.  Each driver write below restarts the count,
	 * so it takes three more entries; without a restart one or two
	 * would do.
	 */
	irqs = n->nirq;
	v = win_rd(n, DESC(20) + QW2, 8);
	win_wr(n, DESC(20) + QW2, 8, v);
	CHECK(event(n, 20, 0));
	CHECK(event(n, 20, 0));
	CHECK_EQ(n->nirq, irqs);
	CHECK(event(n, 20, 0));
	CHECK_EQ(n->nirq, irqs + 1);

	CHECK(event(n, 20, 0));
	CHECK(event(n, 20, 0));
	v = win_rd(n, DESC(20) + QW1, 8);
	win_wr(n, DESC(20) + QW1, 8, v);
	CHECK(event(n, 20, 0));
	CHECK(event(n, 20, 0));
	CHECK_EQ(n->nirq, irqs + 1);
	CHECK(event(n, 20, 0));
	CHECK_EQ(n->nirq, irqs + 2);

	CHECK(event(n, 20, 0));
	CHECK(event(n, 20, 0));
	win_wr(n, DESC(20) + QW1 + 4, 4, cq_wr_index(n, 20));
	CHECK(event(n, 20, 0));
	CHECK(event(n, 20, 0));
	CHECK_EQ(n->nirq, irqs + 2);
	CHECK(event(n, 20, 0));
	CHECK_EQ(n->nirq, irqs + 3);

	/* The consumer's rd_index writes and QW3 do not restart it. */
	CHECK(event(n, 20, 0));
	CHECK(event(n, 20, 0));
	cq_consume(n, 20, cq_wr_index(n, 20));
	CHECK(event(n, 20, 0));
	CHECK_EQ(n->nirq, irqs + 4);
	CHECK(event(n, 20, 0));
	CHECK(event(n, 20, 0));
	win_wr(n, DESC(20) + QW1, 4, cq_wr_index(n, 20));
	CHECK(event(n, 20, 0));
	CHECK_EQ(n->nirq, irqs + 5);
	CHECK(event(n, 20, 0));
	CHECK(event(n, 20, 0));
	v = win_rd(n, DESC(20) + QW3, 8);
	win_wr(n, DESC(20) + QW3, 8, v);
	CHECK(event(n, 20, 0));
	CHECK_EQ(n->nirq, irqs + 6);
	for (k = 0; k < n->nirq && k < IRQ_LOG; k++)
		CHECK_EQ(n->irqs[k], CQ_VEC);

	/* Overrun entries count, lost events do not (every 2nd entry). */
	irqs = n->nirq;
	n->watch_cq = 21;
	cq_program(n, 21, &small);
	CHECK(event(n, 21, 1));
	CHECK_EQ(n->nirq, irqs);
	CHECK(event(n, 21, 2));
	CHECK_EQ(n->nirq, irqs + 1);
	CHECK(event(n, 21, 3));
	CHECK(event(n, 21, 4));		/* the overrun entry */
	CHECK_EQ(n->nirq, irqs + 2);
	CHECK_EQ(n->irq_wr[irqs + 1], 3);
	CHECK(!event(n, 21, 5));
	CHECK(!event(n, 21, 6));
	CHECK_EQ(n->nirq, irqs + 2);
	cq_consume(n, 21, 2);
	CHECK(event(n, 21, 7));
	CHECK_EQ(n->nirq, irqs + 2);
	CHECK(event(n, 21, 8));		/* slot 1: overrun again */
	CHECK_EQ(mem64(n, RING(9) + 8), cqe(SREQ, 0, 8, true));
	CHECK_EQ(n->nirq, irqs + 3);
	CHECK_EQ(n->guest_errors, 0);
	free(n);
}

/* irq_req_index - 21 is the vector; one that does not exist is an error. */
static void test_irq_vectors(void)
{
	static const struct {
		unsigned int num_vectors, index;
		int vector;		/* -1: a guest error */
	} v[] = {
		{ 32, 21, 0 }, { 32, 29, 8 }, { 32, 30, 9 }, { 32, 31, 10 },
		{ 32, 20, -1 }, { 32, 0, -1 },
		{ 11, 31, 10 }, { 10, 30, 9 }, { 10, 31, -1 },
		{ 1, 21, 0 }, { 1, 22, -1 },
	};
	unsigned int k;

	for (k = 0; k < sizeof(v) / sizeof(v[0]); k++) {
		struct node *n = node_new(v[k].num_vectors);
		const struct cq_cfg c = {
			RING(1), 3, 0, v[k].index, true, true,
		};

		cq_program(n, 7, &c);
		/* The entry is written whatever becomes of the interrupt. */
		CHECK(event(n, 7, 0x42));
		CHECK_EQ(mem64(n, RING(1)), cqe(SREQ, 0, 0x42, false));
		check_stats(n, 1, 0, 0);
		if (v[k].vector >= 0) {
			CHECK_EQ(n->nirq, 1);
			CHECK_EQ(n->irqs[0], v[k].vector);
			CHECK_EQ(n->guest_errors, 0);
		} else {
			CHECK_EQ(n->nirq, 0);
			CHECK_EQ(n->guest_errors, 1);
			CHECK_EQ(n->last_guest_error, GEMINI_GE_CQ_IRQ_INDEX);
			CHECK_EQ(n->last_guest_args[0], 7);
			CHECK_EQ(n->last_guest_args[1], v[k].index);
		}
		if (failures_in_test)
			NOTE("%u vectors, index %u\n", v[k].num_vectors,
			     v[k].index);
		free(n);
	}
}

/*
 * The expected JSON objects are written with ' for " to keep them short:
 * join @n of them as the elements of an array, turning ' into ".
 */
static void json_join(char *out, size_t len, const char *const *obj,
		      unsigned int n)
{
	unsigned int i;
	char *p;

	out[0] = 0;
	for (i = 0; i < n; i++) {
		if (i)
			strncat(out, ", ", len - strlen(out) - 1);
		strncat(out, obj[i], len - strlen(out) - 1);
	}
	for (p = out; *p; p++)
		if (*p == '\'')
			*p = '"';
}

/* Compare what the block wrote into @j (over @buf) with @want. */
static void check_json(const struct gemini_json *j, const char *buf,
		       const char *want)
{
	CHECK(!j->cut);
	CHECK(!strcmp(buf, want));
	if (strcmp(buf, want))
		NOTE("got %s\n", buf);
	CHECK_EQ(j->p - buf, strlen(want));
}

/* The supervisor's view: one object per enabled CQ, none for the rest. */
static void test_state_json(void)
{
	static const char *const obj[] = {
		"{'cq': 0, 'rd': 0, 'wr': 3, 'max': 3, 'overrun': true}",
		"{'cq': 7, 'rd': 0, 'wr': 0, 'max': 0, 'overrun': false}",
		"{'cq': 1023, 'rd': 1, 'wr': 2, 'max': 7, 'overrun': false}",
		/* CQ 0 once read past its overrun entry */
		"{'cq': 0, 'rd': 3, 'wr': 0, 'max': 3, 'overrun': false}",
	};
	const char *const released[] = { obj[3], obj[1], obj[2] };
	struct node *n = node_new(GEMINI_NUM_IRQ);
	struct cq_cfg c = { RING(1), 3, 0, 0, false, true };
	char buf[512], want[512], small[30];
	struct gemini_json j = { buf, sizeof(buf), false };
	unsigned int k;

	/* After reset no CQ is enabled: not a byte. */
	memset(buf, 'x', sizeof(buf));
	gemini_cq_state_json(&n->nic, &j);
	CHECK(j.p == buf);
	CHECK_EQ(j.left, sizeof(buf));
	CHECK(!j.cut);
	CHECK_EQ(buf[0], 'x');

	cq_program(n, 0, &c);
	for (k = 0; k < 4; k++)
		CHECK(event(n, 0, k));
	/* Programmed but disabled: not shown. */
	c.enable = false;
	cq_program(n, 5, &c);
	/* Enabled with a descriptor the device refuses: shown. */
	c.enable = true;
	c.max_index = 0;
	cq_program(n, 7, &c);
	c.base = RING(2);
	c.max_index = 7;
	cq_program(n, GEMINI_NUM_CQ - 1, &c);
	CHECK(event(n, GEMINI_NUM_CQ - 1, 1));
	CHECK(event(n, GEMINI_NUM_CQ - 1, 2));
	cq_consume(n, GEMINI_NUM_CQ - 1, 1);

	json_join(want, sizeof(want), obj, 3);
	j = (struct gemini_json){ buf, sizeof(buf), false };
	gemini_cq_state_json(&n->nic, &j);
	check_json(&j, buf, want);

	/* What does not fit is cut, and the text still ends. */
	j = (struct gemini_json){ small, sizeof(small), false };
	gemini_cq_state_json(&n->nic, &j);
	CHECK(j.cut);
	CHECK_EQ(strlen(small), sizeof(small) - 1);
	CHECK(!strncmp(small, want, sizeof(small) - 1));

	/* Reading releases the overrun entry. */
	cq_consume(n, 0, 3);
	json_join(want, sizeof(want), released, 3);
	j = (struct gemini_json){ buf, sizeof(buf), false };
	gemini_cq_state_json(&n->nic, &j);
	check_json(&j, buf, want);

	/* Disabled, CQ 0 is gone. */
	win_wr(n, DESC(0) + QW2, 8, 3);
	json_join(want, sizeof(want), obj + 1, 2);
	j = (struct gemini_json){ buf, sizeof(buf), false };
	gemini_cq_state_json(&n->nic, &j);
	check_json(&j, buf, want);
	free(n);
}

/* Reset clears every descriptor and the ring's history; not the counters. */
static void test_reset(void)
{
	struct node *n = node_new(GEMINI_NUM_IRQ);
	struct cq_cfg c = { RING(1), 3, 2, CQ_IRQ, true, true };
	char buf[64] = "";
	struct gemini_json j = { buf, sizeof(buf), false };
	unsigned int cq, qw, k;
	bool clear = true;

	cq_program(n, 0, &c);
	c.base = RING(2);
	cq_program(n, GEMINI_NUM_CQ - 1, &c);
	for (k = 0; k < 5; k++) {
		event(n, 0, k);
		event(n, GEMINI_NUM_CQ - 1, k);
	}
	cq_consume(n, GEMINI_NUM_CQ - 1, 2);
	check_stats(n, 8, 4, 2);
	CHECK_EQ(n->nirq, 2);

	gemini_cq_reset(&n->nic);
	for (cq = 0; cq < GEMINI_NUM_CQ; cq++)
		for (qw = 0; qw < 3; qw++)
			if (win_rd(n, DESC(cq) + 8 * qw, 8))
				clear = false;
	CHECK(clear);
	CHECK_EQ(win_rd(n, PAGE(GEMINI_NUM_CQ - 1), 8), 0);
	gemini_cq_state_json(&n->nic, &j);
	CHECK(j.p == buf);
	/* The counters count since the start, across resets. */
	check_stats(n, 8, 4, 2);
	/* No CQ is enabled. */
	mem_snap(n);
	CHECK(!event(n, 0, 1));
	CHECK(mem_same(n));
	CHECK_EQ(n->last_guest_error, GEMINI_GE_CQ_DISABLED);
	check_stats(n, 8, 4, 3);

	/* Programmed again, the CQ starts from slot 0, nothing pending. */
	c.base = RING(1);
	cq_program(n, 0, &c);
	CHECK(event(n, 0, 0x10));
	CHECK_EQ(mem64(n, RING(1)), cqe(SREQ, 0, 0x10, false));
	CHECK_EQ(cq_wr_index(n, 0), 1);
	CHECK_EQ(n->nirq, 2);
	free(n);
}

/* CQ 0 and GEMINI_NUM_CQ - 1 work; GEMINI_NUM_CQ is no CQ. */
static void test_handle_edges(void)
{
	static const unsigned int cqs[] = { 0, GEMINI_NUM_CQ - 1 };
	static const uint64_t none[] = {
		GEMINI_MMR_CQ_DESC - 8, GEMINI_MMR_CQ_DESC - 4,
		GEMINI_MMR_CQ_DESC + GEMINI_NUM_CQ * 32ull,
		GEMINI_MMR_CQ_DESC + GEMINI_NUM_CQ * 32ull + 8,
		GEMINI_MMR_CQ_DESC + GEMINI_NUM_CQ * 32ull + 16,
		GEMINI_CQ_USER_ALIAS - 8, GEMINI_CQ_USER_ALIAS - 4,
		GEMINI_CQ_USER_ALIAS + GEMINI_NUM_CQ * 4096ull,
		GEMINI_CQ_USER_ALIAS + GEMINI_NUM_CQ * 4096ull + 4,
		0,
	};
	struct node *n = node_new(GEMINI_NUM_IRQ);
	uint64_t before[2][3];
	unsigned int i, qw;

	/* The offsets of uapi/gemini_nic.h are device.rst's. */
	CHECK_EQ(DESC(1) - DESC(0), 32);
	CHECK_EQ(DESC(0), GEMINI_MMR_CQ_DESC);
	CHECK_EQ(PAGE(0), 0x800000000ull);
	CHECK_EQ(PAGE(3), 0x800003000ull);

	for (i = 0; i < 2; i++) {
		const struct cq_cfg c = {
			RING(1 + i), 3, 0, CQ_IRQ, true, true,
		};

		cq_program(n, cqs[i], &c);
		CHECK(event(n, cqs[i], 0x100 + i));
		CHECK_EQ(mem64(n, RING(1 + i)), cqe(SREQ, 0, 0x100 + i, false));
		CHECK_EQ(cq_wr_index(n, cqs[i]), 1);
		cq_consume(n, cqs[i], 1);
		CHECK_EQ(win_rd(n, DESC(cqs[i]) + QW1, 8),
			 0x0000000100000001ull);
		CHECK_EQ(n->nirq, i + 1);
		CHECK_EQ(n->irqs[i], CQ_VEC);
	}
	check_stats(n, 2, 0, 0);

	/* No CQ GEMINI_NUM_CQ, nor any beyond. */
	mem_snap(n);
	CHECK(!event(n, GEMINI_NUM_CQ, 1));
	CHECK_EQ(n->last_guest_error, GEMINI_GE_CQ_NONE);
	CHECK_EQ(n->last_guest_args[0], GEMINI_NUM_CQ);
	CHECK(!event(n, UINT_MAX, 1));
	CHECK_EQ(n->last_guest_error, GEMINI_GE_CQ_NONE);
	CHECK_EQ(n->last_guest_args[0], UINT_MAX);
	CHECK(mem_same(n));
	CHECK_EQ(n->nirq, 2);
	CHECK_EQ(n->guest_errors, 2);
	check_stats(n, 2, 0, 2);

	/* Offsets around the two ranges are not the block's. */
	for (i = 0; i < 2; i++)
		for (qw = 0; qw < 3; qw++)
			before[i][qw] = win_rd(n, DESC(cqs[i]) + 8 * qw, 8);
	for (i = 0; i < sizeof(none) / sizeof(none[0]); i++) {
		check_read(n, none[i], 4, GEMINI_ACCESS_UNKNOWN, false);
		check_write(n, none[i], 4, ~0ull, GEMINI_ACCESS_UNKNOWN);
		if (none[i] & 4)
			continue;
		check_read(n, none[i], 8, GEMINI_ACCESS_UNKNOWN, false);
		check_write(n, none[i], 8, ~0ull, GEMINI_ACCESS_UNKNOWN);
	}
	for (i = 0; i < 2; i++)
		for (qw = 0; qw < 3; qw++)
			CHECK_EQ(win_rd(n, DESC(cqs[i]) + 8 * qw, 8),
				 before[i][qw]);
	/* The last qword of the last slot and of the last page answer. */
	check_read(n, DESC(GEMINI_NUM_CQ - 1) + 24, 8, GEMINI_ACCESS_UNKNOWN,
		   true);
	check_read(n, PAGE(GEMINI_NUM_CQ - 1) + 0xff0, 8,
		   GEMINI_ACCESS_UNKNOWN, true);
	check_read(n, PAGE(GEMINI_NUM_CQ - 1) + GEMINI_CQ_IDLE_OFFSET, 8,
		   GEMINI_ACCESS_OK, true);
	CHECK_EQ(n->guest_errors, 2);
	free(n);
}

static const struct tap_test tests[] = {
	{ "descriptor registers: masks and halves", test_desc_registers },
	{ "user alias page", test_alias_page },
	{ "entry layout, byte for byte", test_entry_layout },
	{ "wrap-around", test_wrap_around },
	{ "overrun entry, lost events, release", test_overrun_and_lost },
	{ "driver rewrites restart the ring", test_driver_restart },
	{ "bad descriptors lose events", test_bad_descriptors },
	{ "bus refusals: no memory, own window", test_bus_refused },
	{ "interrupt threshold and restarts", test_irq_threshold },
	{ "interrupt vectors", test_irq_vectors },
	{ "state JSON", test_state_json },
	{ "reset", test_reset },
	{ "CQ handle edges", test_handle_edges },
};

int main(void)
{
	return TAP_RUN(tests);
}
