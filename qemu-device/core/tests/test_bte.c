// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Host unit tests of the BTE block's registers (gemini_bte.c), on a NIC
 * that gemini_nic_init() did not set up (only the BTE's state is used;
 * the BTE sends through the router, so the whole core is linked): the
 * descriptors and channels read
 * back what the kernel wrote under their masks, the device's fields stay
 * the device's, RESET and ENABLE act as gemini_bte.c says, and every ring
 * a hostile kernel could name is refused.  Prints TAP.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemini_core.h"
#include "fake_bus.h"
#include "tap.h"

#define MEM_BASE	0x100000ull
#define MEM_SIZE	0x1000u
#define IRQ_LOG		8

struct node {
	struct gemini_nic nic;
	uint8_t mem[MEM_SIZE];
	unsigned int irqs[IRQ_LOG];
	unsigned int nirq;
	unsigned int guest_errors;
	unsigned int last_guest_error;
	uint64_t last_guest_args[4];
};

FAKE_BUS_CALLBACKS(struct node)

static uint64_t fake_clock(void *opaque)
{
	(void)opaque;
	return 1000000000ull;
}

static const struct gemini_ops fake_ops = {
	.dma_read = fake_dma_read,
	.dma_write = fake_dma_write,
	.raise_irq = fake_irq,
	.guest_error = fake_guest_error,
	.clock_ns = fake_clock,
};

/* gemini_nic_init() is not linked: the BTE needs only its own state. */
static struct node *node_new(void)
{
	struct node *n = calloc(1, sizeof(*n));

	if (!n) {
		perror("calloc");
		exit(2);
	}
	n->nic.ops = &fake_ops;
	n->nic.opaque = n;
	n->nic.cfg.num_vectors = GEMINI_NUM_IRQ;
	gemini_bte_reset(&n->nic);
	return n;
}

static void wr(struct node *n, uint64_t off, unsigned int size, uint64_t v)
{
	CHECK_EQ(gemini_bte_access(&n->nic, off, size, &v, true),
		 GEMINI_ACCESS_OK);
}

static uint64_t rd(struct node *n, uint64_t off, unsigned int size)
{
	uint64_t v = 0x5a5a5a5a5a5a5a5aull;

	CHECK_EQ(gemini_bte_access(&n->nic, off, size, &v, false),
		 GEMINI_ACCESS_OK);
	return v;
}

#define TXC(vc, qw)	(GEMINI_MMR_BTE_TX_CHAN_ENTRY(vc) + 8 * (qw))
#define RXC(vc, qw)	(GEMINI_MMR_BTE_RX_CHAN_ENTRY(vc) + 8 * (qw))
#define TX_FLAGS(f)	((uint64_t)(f) << GEMINI_BTE_TXC_FLAGS_SHIFT)
#define RX_FLAGS(f)	((uint64_t)(f) << GEMINI_BTE_RXC_FLAGS_SHIFT)
#define U16(vc, v)	((uint64_t)(v) << GEMINI_BTE_RING_FIELD(vc))
#define CPU_RING	(MEM_BASE + 0x40)

static bool tx_enabled(struct node *n, unsigned int vc)
{
	return rd(n, TXC(vc, 0), 8) & TX_FLAGS(GEMINI_BTE_TXC_ENABLE);
}

/* Give TX channel @vc the ring [@base, @base + @count) and enable it. */
static void tx_ring(struct node *n, unsigned int vc, unsigned int base,
		    unsigned int count)
{
	uint64_t b = rd(n, GEMINI_MMR_BTE_TX_RING_BASE, 8);
	uint64_t c = rd(n, GEMINI_MMR_BTE_TX_RING_COUNT, 8);

	b = (b & ~U16(vc, 0xffff)) | U16(vc, base);
	c = (c & ~U16(vc, 0xffff)) | U16(vc, count);
	wr(n, GEMINI_MMR_BTE_TX_RING_BASE, 8, b);
	wr(n, GEMINI_MMR_BTE_TX_RING_COUNT, 8, c);
	wr(n, TXC(vc, 1), 8, CPU_RING);
	wr(n, TXC(vc, 0), 8, TX_FLAGS(GEMINI_BTE_TXC_ENABLE));
}

/* Every qword of a TX descriptor keeps exactly its fields' bits. */
static void test_tx_desc(void)
{
	static const uint64_t mask[GEMINI_BTE_TX_DESC_QWORDS] = {
		GEMINI_BTE_QW1_MASK, GEMINI_BTE_QW2_MASK, GEMINI_BTE_QW3_MASK,
		GEMINI_BTE_QW4_MASK, GEMINI_BTE_QW5_MASK, GEMINI_BTE_QW6_MASK,
	};
	struct node *n = node_new();
	const unsigned int slots[] = { 0, 1, 511, GEMINI_NUM_BTE_TX - 1 };
	unsigned int s, q;
	uint64_t v;

	/* The masks are the fields of uapi/gemini_nic.h, no more. */
	CHECK_EQ(mask[0], (GEMINI_BTE_MODE1_MASK << GEMINI_BTE_MODE1_SHIFT) |
		 GEMINI_BTE_DEST_PE_MASK);
	CHECK_EQ(mask[2], (GEMINI_BTE_LEN_MASK << GEMINI_BTE_LEN_SHIFT) |
		 (GEMINI_BTE_SRC_PTAG_MASK << GEMINI_BTE_SRC_PTAG_SHIFT) |
		 (GEMINI_BTE_DEST_PTAG_MASK << GEMINI_BTE_DEST_PTAG_SHIFT) |
		 GEMINI_BTE_SRC_CQ_MASK);
	CHECK_EQ(mask[4], GEMINI_BTE_SRC_CQ_DATA_MASK |
		 (GEMINI_BTE_STATUS_MASK << GEMINI_BTE_STATUS_SHIFT));
	for (s = 0; s < sizeof(slots) / sizeof(slots[0]); s++) {
		uint64_t base = GEMINI_MMR_BTE_TX_ENTRY(slots[s]);

		for (q = 0; q < GEMINI_BTE_TX_DESC_QWORDS; q++) {
			wr(n, base + 8 * q, 8, ~0ull);
			CHECK_EQ(rd(n, base + 8 * q, 8), mask[q]);
			wr(n, base + 8 * q, 8, 0);
			/* Halves: the other half stays. */
			wr(n, base + 8 * q + 4, 4, 0xffffffff);
			CHECK_EQ(rd(n, base + 8 * q, 8), mask[q] & ~0xffffffffull);
			CHECK_EQ(rd(n, base + 8 * q, 4), 0);
			CHECK_EQ(rd(n, base + 8 * q + 4, 4), mask[q] >> 32);
			wr(n, base + 8 * q, 8, 0);
		}
		/* The slot's last two qwords hold nothing. */
		v = 7;
		CHECK_EQ(gemini_bte_access(&n->nic, base + 0x30, 8, &v, false),
			 GEMINI_ACCESS_UNKNOWN);
		CHECK_EQ(v, 0);
		CHECK_EQ(gemini_bte_access(&n->nic, base + 0x38, 8, &v, true),
			 GEMINI_ACCESS_UNKNOWN);
	}
	/* Slot 1023 is not a descriptor (the spec gives 1023). */
	CHECK_EQ(gemini_bte_access(&n->nic,
				   GEMINI_MMR_BTE_TX_ENTRY(GEMINI_NUM_BTE_TX),
				   8, &v, false), GEMINI_ACCESS_UNKNOWN);
	/* Neighbours of the BTE's ranges are not its. */
	CHECK_EQ(gemini_bte_access(&n->nic, GEMINI_MMR_BTE_TX_DESC - 8, 8, &v,
				   false), GEMINI_ACCESS_UNKNOWN);
	CHECK_EQ(gemini_bte_access(&n->nic, GEMINI_MMR_CQ_DESC, 8, &v, false),
		 GEMINI_ACCESS_UNKNOWN);
	/* After the RX channels comes the RMT: not the BTE's */
	v = GEMINI_MMR_BTE_RX_CHAN_ENTRY(GEMINI_NUM_BTE_VC);
	CHECK_EQ(gemini_bte_access(&n->nic, v, 8, &v, false),
		 GEMINI_ACCESS_UNKNOWN);
	CHECK_EQ(n->guest_errors, 0);
	free(n);
}

/* Channel registers: masks, the device's fields, the counters' hole. */
static void test_chan_regs(void)
{
	struct node *n = node_new();
	unsigned int vc;
	uint64_t v;

	for (vc = 0; vc < GEMINI_NUM_BTE_VC; vc++) {
		/* QW1 without RESET or ENABLE: idv, irq index, timeout */
		wr(n, TXC(vc, 0), 8, ~0ull & ~TX_FLAGS(GEMINI_BTE_TXC_RESET |
							 GEMINI_BTE_TXC_ENABLE));
		CHECK_EQ(rd(n, TXC(vc, 0), 8), GEMINI_BTE_TXC_QW1_MASK &
			 ~TX_FLAGS(GEMINI_BTE_TXC_RESET | GEMINI_BTE_TXC_ENABLE));
		wr(n, TXC(vc, 0), 8, 0);
		wr(n, TXC(vc, 1), 8, ~0ull);
		CHECK_EQ(rd(n, TXC(vc, 1), 8), GEMINI_BTE_CPU_RING_MASK);
		/* QW3: only ssid_max_num is the kernel's */
		wr(n, TXC(vc, 2), 8, ~0ull);
		CHECK_EQ(rd(n, TXC(vc, 2), 8), GEMINI_BTE_TXC_SSID_MAX_MASK <<
			 GEMINI_BTE_TXC_SSID_MAX_SHIFT);
		wr(n, RXC(vc, 0), 8, ~0ull & ~RX_FLAGS(GEMINI_BTE_RXC_RESET |
							 GEMINI_BTE_RXC_ENABLE));
		CHECK_EQ(rd(n, RXC(vc, 0), 8), GEMINI_BTE_RXC_QW1_MASK &
			 ~RX_FLAGS(GEMINI_BTE_RXC_RESET | GEMINI_BTE_RXC_ENABLE));
		wr(n, RXC(vc, 2), 8, ~0ull);
		CHECK_EQ(rd(n, RXC(vc, 2), 8), GEMINI_BTE_RXC_RMT_MASK <<
			 GEMINI_BTE_RXC_RMT_SHIFT);
		/* Past the four qwords: no register */
		CHECK_EQ(gemini_bte_access(&n->nic, TXC(vc, 4), 8, &v, false),
			 GEMINI_ACCESS_UNKNOWN);
		CHECK_EQ(gemini_bte_access(&n->nic, RXC(vc, 7) + 4, 4, &v,
					   true), GEMINI_ACCESS_UNKNOWN);
		/* Non-posted control: reset values, then its mask */
		CHECK_EQ(rd(n, GEMINI_MMR_BTE_NP_CTRL + 8 * vc, 8),
			 GEMINI_BTE_NP_CTRL_DEFAULT);
		CHECK_EQ(rd(n, GEMINI_MMR_BTE_NP_CTRL + 8 * vc, 8) &
			 GEMINI_BTE_NP_MAX_GET_MASK, 768);
		wr(n, GEMINI_MMR_BTE_NP_CTRL + 8 * vc, 8, ~0ull);
		CHECK_EQ(rd(n, GEMINI_MMR_BTE_NP_CTRL + 8 * vc, 8),
			 GEMINI_BTE_NP_CTRL_MASK);
	}
	/* RX descriptors keep all 64 bits (address and mode) */
	wr(n, GEMINI_MMR_BTE_RX_ENTRY(GEMINI_NUM_BTE_RX - 1), 8,
	   0x8000123456789abcull);
	CHECK_EQ(rd(n, GEMINI_MMR_BTE_RX_ENTRY(GEMINI_NUM_BTE_RX - 1), 8),
		 0x8000123456789abcull);
	/* A reset brings every register back. */
	gemini_bte_reset(&n->nic);
	CHECK_EQ(rd(n, TXC(3, 1), 8), 0);
	CHECK_EQ(rd(n, GEMINI_MMR_BTE_RX_ENTRY(GEMINI_NUM_BTE_RX - 1), 8), 0);
	CHECK_EQ(rd(n, GEMINI_MMR_BTE_NP_CTRL + 24, 8),
		 GEMINI_BTE_NP_CTRL_DEFAULT);
	CHECK_EQ(n->guest_errors, 0);
	free(n);
}

/* ENABLE takes only a ring that fits, has no neighbour in it, and a copy. */
static void test_enable(void)
{
	struct node *n = node_new();
	unsigned int errs;

	/* No ring at all */
	wr(n, TXC(0, 0), 8, TX_FLAGS(GEMINI_BTE_TXC_ENABLE));
	CHECK(!tx_enabled(n, 0));
	CHECK_EQ(n->last_guest_error, GEMINI_GE_BTE_RING);
	CHECK_EQ(n->last_guest_args[0], 0);
	CHECK_EQ(n->last_guest_args[1], 0);	/* TX */
	/* Too small, past the slots, no CPU copy */
	tx_ring(n, 0, 0, 1);
	CHECK(!tx_enabled(n, 0));
	tx_ring(n, 0, GEMINI_NUM_BTE_TX - 10, 11);
	CHECK(!tx_enabled(n, 0));
	CHECK_EQ(n->last_guest_args[2], 11);
	CHECK_EQ(n->last_guest_args[3], GEMINI_NUM_BTE_TX - 10);
	wr(n, TXC(1, 1), 8, 0);
	wr(n, GEMINI_MMR_BTE_TX_RING_COUNT, 8, U16(1, 4));
	wr(n, TXC(1, 0), 8, TX_FLAGS(GEMINI_BTE_TXC_ENABLE));
	CHECK(!tx_enabled(n, 1));
	errs = n->guest_errors;
	CHECK_EQ(errs, 4);
	/* The last slot exactly, then a neighbour overlapping it */
	tx_ring(n, 0, GEMINI_NUM_BTE_TX - 10, 10);
	CHECK(tx_enabled(n, 0));
	tx_ring(n, 1, GEMINI_NUM_BTE_TX - 11, 2);
	CHECK(!tx_enabled(n, 1));
	tx_ring(n, 1, 0, GEMINI_NUM_BTE_TX - 10);
	CHECK(tx_enabled(n, 1));
	CHECK_EQ(n->guest_errors, errs + 1);
	/* An enabled channel's ring and copy stay as they were. */
	wr(n, GEMINI_MMR_BTE_TX_RING_BASE, 8, 0);
	CHECK_EQ(rd(n, GEMINI_MMR_BTE_TX_RING_BASE, 8) & U16(0, 0xffff),
		 U16(0, GEMINI_NUM_BTE_TX - 10));
	CHECK_EQ(n->last_guest_error, GEMINI_GE_BTE_BUSY);
	wr(n, GEMINI_MMR_BTE_TX_RING_COUNT + 4, 4, 0);	/* VCs 2, 3: free */
	wr(n, TXC(0, 1), 8, CPU_RING + 0x1000);
	CHECK_EQ(rd(n, TXC(0, 1), 8), CPU_RING);
	/* Disabled, they change again. */
	wr(n, TXC(0, 0), 8, 0);
	CHECK(!tx_enabled(n, 0));
	wr(n, TXC(0, 1), 8, CPU_RING + 0x1000);
	CHECK_EQ(rd(n, TXC(0, 1), 8), CPU_RING + 0x1000);
	/* RX rings: one slot is enough, 1024 slots at most */
	wr(n, GEMINI_MMR_BTE_RX_RING_BASE, 8, U16(2, 1023));
	wr(n, GEMINI_MMR_BTE_RX_RING_COUNT, 8, U16(2, 1));
	wr(n, RXC(2, 1), 8, CPU_RING);
	wr(n, RXC(2, 0), 8, RX_FLAGS(GEMINI_BTE_RXC_ENABLE));
	CHECK(rd(n, RXC(2, 0), 8) & RX_FLAGS(GEMINI_BTE_RXC_ENABLE));
	wr(n, GEMINI_MMR_BTE_RX_RING_COUNT, 8, U16(3, 2) | U16(2, 1));
	wr(n, GEMINI_MMR_BTE_RX_RING_BASE, 8, U16(3, 1023) | U16(2, 1023));
	wr(n, RXC(3, 1), 8, CPU_RING);
	wr(n, RXC(3, 0), 8, RX_FLAGS(GEMINI_BTE_RXC_ENABLE));
	CHECK(!(rd(n, RXC(3, 0), 8) & RX_FLAGS(GEMINI_BTE_RXC_ENABLE)));
	CHECK_EQ(n->last_guest_error, GEMINI_GE_BTE_RING);
	CHECK_EQ(n->last_guest_args[1], 1);	/* RX */
	free(n);
}

/* The write index is the kernel's, within the ring; RESET clears both. */
static void test_indices(void)
{
	struct node *n = node_new();
	unsigned int errs;

	tx_ring(n, 2, 100, 8);
	CHECK(tx_enabled(n, 2));
	wr(n, TXC(2, 3), 8, 7);
	CHECK_EQ(rd(n, TXC(2, 3), 8), 7);
	errs = n->guest_errors;
	wr(n, TXC(2, 3), 8, 8);
	CHECK_EQ(rd(n, TXC(2, 3), 8), 7);
	CHECK_EQ(n->guest_errors, errs + 1);
	CHECK_EQ(n->last_guest_error, GEMINI_GE_BTE_WR_INDEX);
	CHECK_EQ(n->last_guest_args[2], 8);
	CHECK_EQ(n->last_guest_args[3], 8);
	wr(n, TXC(2, 3), 8, 0xffffffffffffffffull);
	CHECK_EQ(rd(n, TXC(2, 3), 8), 7);
	CHECK_EQ(n->guest_errors, errs + 2);
	/* The read index and ssid_in_use are the device's. */
	wr(n, TXC(2, 2), 8, 0x3ull << GEMINI_BTE_TXC_SSID_MAX_SHIFT | 5 |
	   (7ull << GEMINI_BTE_TXC_INUSE_SHIFT));
	CHECK_EQ(rd(n, TXC(2, 2), 8), 0x3ull << GEMINI_BTE_TXC_SSID_MAX_SHIFT);
	/* RESET: indices 0, reads back 0, the rest stays; still enabled */
	wr(n, TXC(2, 0), 8, TX_FLAGS(GEMINI_BTE_TXC_RESET |
				     GEMINI_BTE_TXC_ENABLE) | 0x42);
	CHECK_EQ(rd(n, TXC(2, 3), 8), 0);
	CHECK_EQ(rd(n, TXC(2, 0), 8), TX_FLAGS(GEMINI_BTE_TXC_ENABLE) | 0x42);
	CHECK_EQ(rd(n, TXC(2, 2), 8), 0x3ull << GEMINI_BTE_TXC_SSID_MAX_SHIFT);
	/* Disabled with no ring: only 0 is a write index. */
	wr(n, TXC(3, 3), 8, 0);
	CHECK_EQ(n->guest_errors, errs + 2);
	wr(n, TXC(3, 3), 4, 1);
	CHECK_EQ(rd(n, TXC(3, 3), 8), 0);
	CHECK_EQ(n->guest_errors, errs + 3);
	free(n);
}

static const struct tap_test tests[] = {
	{ "TX descriptors: every field's bits, halves, no slot 1023",
	  test_tx_desc },
	{ "channel registers, non-posted control, RX descriptors, reset",
	  test_chan_regs },
	{ "ENABLE takes only a ring that fits, alone, with a CPU copy",
	  test_enable },
	{ "write index within the ring; device fields; RESET", test_indices },
};

int main(void)
{
	return TAP_RUN(tests);
}
