// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Host unit tests of the cray-gemini device core.  Prints TAP; run under
 * ASan and UBSan by `make test-core`.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemini_core.h"
#include "fake_bus.h"
#include "tap.h"

/* A fake node: 64 KiB of memory at MEM_BASE, a log of interrupts. */
#define MEM_BASE	0x100000ull
#define MEM_SIZE	0x10000u
#define IRQ_LOG		64

struct fake_node {
	uint8_t mem[MEM_SIZE];
	unsigned int irqs[IRQ_LOG];
	unsigned int nirq;
	unsigned int guest_errors;
	unsigned int last_guest_error;
	uint64_t last_guest_args[4];
	unsigned int port_events;
};

FAKE_BUS_CALLBACKS(struct fake_node)

static void fake_port_changed(void *opaque, unsigned int port,
			      enum vgemini_port_state state, uint32_t peer)
{
	struct fake_node *n = opaque;

	(void)port;
	(void)state;
	(void)peer;
	n->port_events++;
}

static uint64_t fake_now_ns = 1000000000ull;

static uint64_t fake_clock(void *opaque)
{
	(void)opaque;
	return fake_now_ns;
}

static const struct gemini_ops fake_ops = {
	.dma_read = fake_dma_read,
	.dma_write = fake_dma_write,
	.raise_irq = fake_irq,
	.guest_error = fake_guest_error,
	.port_changed = fake_port_changed,
	.clock_ns = fake_clock,
};

static void make_nic(struct gemini_nic *nic, struct fake_node *node,
		     uint32_t x, uint32_t y, uint32_t z,
		     uint32_t dx, uint32_t dy, uint32_t dz)
{
	struct gemini_config cfg = {
		.coord = { x, y, z }, .dims = { dx, dy, dz },
		.num_vectors = GEMINI_NUM_IRQ,
	};
	char err[128];

	memset(node, 0, sizeof(*node));
	if (gemini_nic_init(nic, &cfg, &fake_ops, node, err, sizeof(err))) {
		printf("#   init failed: %s\n", err);
		failures_in_test++;
	}
}

static uint64_t rd(struct gemini_nic *nic, uint64_t off, unsigned int size)
{
	uint64_t v;

	CHECK_EQ(gemini_ctl_read(nic, off, size, &v), GEMINI_ACCESS_OK);
	return v;
}

static void wr(struct gemini_nic *nic, uint64_t off, unsigned int size,
	       uint64_t v)
{
	CHECK_EQ(gemini_ctl_write(nic, off, size, v), GEMINI_ACCESS_OK);
}

/* ---------------------------------------------------------------------- */

static void test_init_rejects_bad_config(void)
{
	static const struct {
		uint32_t c[3], d[3];
		unsigned int vec;
	} bad[] = {
		{ { 0, 0, 0 }, { 0, 1, 1 }, 32 },
		{ { 0, 0, 0 }, { 1, 256, 1 }, 32 },
		{ { 2, 0, 0 }, { 2, 1, 1 }, 32 },
		{ { 0, 0, 5 }, { 1, 1, 5 }, 32 },
		{ { 0, 0, 0 }, { 255, 255, 2 }, 32 },
		{ { 0, 0, 0 }, { 1, 1, 1 }, 0 },
		{ { 0, 0, 0 }, { 1, 1, 1 }, 33 },
	};
	struct gemini_ops no_dma = fake_ops;
	struct gemini_nic nic;
	struct gemini_config cfg;
	char err[128];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memcpy(cfg.coord, bad[i].c, sizeof(cfg.coord));
		memcpy(cfg.dims, bad[i].d, sizeof(cfg.dims));
		cfg.num_vectors = bad[i].vec;
		err[0] = 0;
		CHECK(gemini_nic_init(&nic, &cfg, &fake_ops, NULL, err,
				      sizeof(err)) == -1);
		CHECK(err[0] != 0);
	}
	cfg = (struct gemini_config){ { 0, 0, 0 }, { 1, 1, 1 }, 32 };
	no_dma.dma_write = NULL;
	CHECK(gemini_nic_init(&nic, &cfg, &no_dma, NULL, err, sizeof(err)) == -1);
	/* The largest torus that fits 16-bit Gemini ids is fine. */
	cfg = (struct gemini_config){ { 254, 254, 0 }, { 255, 255, 1 }, 32 };
	CHECK(gemini_nic_init(&nic, &cfg, &fake_ops, NULL, err, sizeof(err)) == 0);
}

static void test_identity(void)
{
	struct fake_node node;
	struct gemini_nic nic;

	make_nic(&nic, &node, 1, 2, 3, 4, 5, 6);
	CHECK_EQ(rd(&nic, VGEMINI_CTL_MAGIC, 4), VGEMINI_CTL_MAGIC_VALUE);
	CHECK_EQ(rd(&nic, VGEMINI_CTL_VERSION, 4), VGEMINI_CTL_VERSION_VALUE);
	CHECK_EQ(rd(&nic, VGEMINI_CTL_MAGIC, 8),
		 VGEMINI_CTL_MAGIC_VALUE |
		 ((uint64_t)VGEMINI_CTL_VERSION_VALUE << 32));
	/* id = x + X * (y + Y * z) = 1 + 4 * (2 + 5 * 3) = 69 */
	CHECK_EQ(nic.gemini_id, 69);
	CHECK_EQ(rd(&nic, VGEMINI_CTL_NODE_PE, 4), 69 << 2);
	CHECK_EQ(rd(&nic, VGEMINI_CTL_COORD, 4), 0x030201);
	CHECK_EQ(rd(&nic, VGEMINI_CTL_DIMS, 4), 0x060504);
	CHECK_EQ(rd(&nic, VGEMINI_CTL_NUM_PORTS, 4), 6);
	CHECK_EQ(rd(&nic, VGEMINI_CTL_NUM_VECTORS, 4), GEMINI_NUM_IRQ);
	CHECK_EQ(node.guest_errors, 0);
}

static void test_neighbours(void)
{
	struct fake_node node;
	struct gemini_nic nic;

	/* 2x2x2, node (1,0,1) = id 5: both X ports reach (0,0,1) = id 4. */
	make_nic(&nic, &node, 1, 0, 1, 2, 2, 2);
	CHECK_EQ(gemini_neighbour_pe(&nic, GEMINI_PORT_XP), GEMINI_PE(4, 0));
	CHECK_EQ(gemini_neighbour_pe(&nic, GEMINI_PORT_XM), GEMINI_PE(4, 0));
	CHECK_EQ(gemini_neighbour_pe(&nic, GEMINI_PORT_YP), GEMINI_PE(7, 0));
	CHECK_EQ(gemini_neighbour_pe(&nic, GEMINI_PORT_YM), GEMINI_PE(7, 0));
	CHECK_EQ(gemini_neighbour_pe(&nic, GEMINI_PORT_ZP), GEMINI_PE(1, 0));
	CHECK_EQ(gemini_neighbour_pe(&nic, GEMINI_PORT_ZM), GEMINI_PE(1, 0));

	/* 3x2x1, node (0,1,0) = id 3: X+ is 4, X- wraps to 5, Z is itself. */
	make_nic(&nic, &node, 0, 1, 0, 3, 2, 1);
	CHECK_EQ(gemini_neighbour_pe(&nic, GEMINI_PORT_XP), GEMINI_PE(4, 0));
	CHECK_EQ(gemini_neighbour_pe(&nic, GEMINI_PORT_XM), GEMINI_PE(5, 0));
	CHECK_EQ(gemini_neighbour_pe(&nic, GEMINI_PORT_YP), GEMINI_PE(0, 0));
	CHECK_EQ(gemini_neighbour_pe(&nic, GEMINI_PORT_ZP), GEMINI_PE(3, 0));
	CHECK_EQ(gemini_neighbour_pe(&nic, GEMINI_PORT_ZM), GEMINI_PE(3, 0));
	CHECK_EQ(gemini_neighbour_pe(&nic, 6), VGEMINI_PEER_NONE);
	CHECK_EQ(rd(&nic, VGEMINI_CTL_PORT(GEMINI_PORT_XM) +
		    VGEMINI_PORT_EXPECTED, 4), GEMINI_PE(5, 0));
	CHECK_EQ(rd(&nic, VGEMINI_CTL_PORT(GEMINI_PORT_XM) +
		    VGEMINI_PORT_STATE, 4), VGEMINI_PORT_UNUSED);
	CHECK_EQ(rd(&nic, VGEMINI_CTL_PORT(GEMINI_PORT_XM) +
		    VGEMINI_PORT_PEER, 4), VGEMINI_PEER_NONE);
}

static void test_scratch(void)
{
	struct fake_node node;
	struct gemini_nic nic;

	make_nic(&nic, &node, 0, 0, 0, 1, 1, 1);
	wr(&nic, VGEMINI_CTL_SCRATCH, 8, 0x0123456789abcdefull);
	CHECK_EQ(rd(&nic, VGEMINI_CTL_SCRATCH, 8), 0x0123456789abcdefull);
	CHECK_EQ(rd(&nic, VGEMINI_CTL_SCRATCH, 4), 0x89abcdef);
	CHECK_EQ(rd(&nic, VGEMINI_CTL_SCRATCH + 4, 4), 0x01234567);
	wr(&nic, VGEMINI_CTL_SCRATCH + 4, 4, 0xffffffff);
	CHECK_EQ(rd(&nic, VGEMINI_CTL_SCRATCH, 8), 0xffffffff89abcdefull);
	wr(&nic, VGEMINI_CTL_SCRATCH, 4, 0);
	CHECK_EQ(rd(&nic, VGEMINI_CTL_SCRATCH, 8), 0xffffffff00000000ull);
	gemini_nic_reset(&nic);
	CHECK_EQ(rd(&nic, VGEMINI_CTL_SCRATCH, 8), 0);
}

static void test_irq_raise(void)
{
	struct fake_node node;
	struct gemini_nic nic;

	make_nic(&nic, &node, 0, 0, 0, 1, 1, 1);
	wr(&nic, VGEMINI_CTL_IRQ_RAISE, 4, 0);
	wr(&nic, VGEMINI_CTL_IRQ_RAISE, 4, 31);
	CHECK_EQ(node.nirq, 2);
	CHECK_EQ(node.irqs[0], 0);
	CHECK_EQ(node.irqs[1], 31);
	/* Out of range: a guest error, no interrupt, no crash. */
	wr(&nic, VGEMINI_CTL_IRQ_RAISE, 4, 32);
	wr(&nic, VGEMINI_CTL_IRQ_RAISE, 4, 0x7fffffff);
	CHECK_EQ(node.nirq, 2);
	CHECK_EQ(node.guest_errors, 2);
	CHECK_EQ(node.last_guest_error, GEMINI_GE_IRQ_VECTOR);
	CHECK_EQ(node.last_guest_args[0], 0x7fffffff);
	CHECK_EQ(node.last_guest_args[1], 32);
	{
		unsigned int k;
		char msg[160], want[48];

		gemini_guest_error_format(node.last_guest_error,
					  node.last_guest_args, msg,
					  sizeof(msg));
		CHECK(!strcmp(msg, "interrupt vector 2147483647 out of range (32 vectors)"));
		CHECK(!strcmp(gemini_guest_error_name(GEMINI_GE_IRQ_VECTOR),
			      "irq_vector"));
		CHECK(!gemini_guest_error_name(GEMINI_GE_COUNT));
		/* Every kind has a name and a format of its numbers alone. */
		for (k = 0; k < GEMINI_GE_COUNT; k++) {
			CHECK(gemini_guest_error_name(k));
			CHECK(gemini_guest_error_format(k, node.last_guest_args,
							msg, sizeof(msg)) > 0);
			CHECK(!strchr(msg, '%'));
		}
		gemini_guest_error_format(GEMINI_GE_COUNT,
					  node.last_guest_args, msg,
					  sizeof(msg));
		snprintf(want, sizeof(want), "unknown guest error %u",
			 (unsigned int)GEMINI_GE_COUNT);
		CHECK(!strcmp(msg, want));
	}
	/* IRQ_NONE means none, silently. */
	wr(&nic, VGEMINI_CTL_IRQ_RAISE, 4, VGEMINI_IRQ_NONE);
	CHECK_EQ(node.nirq, 2);
	CHECK_EQ(node.guest_errors, 2);
	/* Write-only: reads give 0 and say so. */
	{
		uint64_t v = 1;

		CHECK_EQ(gemini_ctl_read(&nic, VGEMINI_CTL_IRQ_RAISE, 4, &v),
			 GEMINI_ACCESS_WRITE_ONLY);
		CHECK_EQ(v, 0);
	}
}

static void dma(struct gemini_nic *nic, uint64_t addr, uint64_t dst,
		uint32_t len, uint32_t pattern, uint32_t cmd)
{
	wr(nic, VGEMINI_CTL_DMA_ADDR, 8, addr);
	wr(nic, VGEMINI_CTL_DMA_DST, 8, dst);
	wr(nic, VGEMINI_CTL_DMA_LEN, 4, len);
	wr(nic, VGEMINI_CTL_DMA_PATTERN, 4, pattern);
	wr(nic, VGEMINI_CTL_DMA_CMD, 4, cmd);
}

static void test_dma(void)
{
	struct fake_node node;
	struct gemini_nic nic;
	unsigned int i, bad = 0;

	make_nic(&nic, &node, 0, 0, 0, 1, 1, 1);
	CHECK_EQ(rd(&nic, VGEMINI_CTL_DMA_STATUS, 4), VGEMINI_DMA_IDLE);
	CHECK_EQ(rd(&nic, VGEMINI_CTL_DMA_IRQ, 4), VGEMINI_IRQ_NONE);

	/* FILL 5000 bytes (more than a chunk) at an odd address. */
	dma(&nic, MEM_BASE + 3, 0, 5000, 0x1a5, VGEMINI_DMA_CMD_FILL);
	CHECK_EQ(rd(&nic, VGEMINI_CTL_DMA_STATUS, 4), VGEMINI_DMA_DONE);
	for (i = 0; i < MEM_SIZE; i++)
		bad += node.mem[i] != (i >= 3 && i < 5003 ? 0xa5 : 0);
	CHECK_EQ(bad, 0);

	/* COPY it elsewhere, with a completion interrupt. */
	for (i = 0; i < 5000; i++)
		node.mem[3 + i] = (uint8_t)(i * 7);
	wr(&nic, VGEMINI_CTL_DMA_IRQ, 4, 5);
	dma(&nic, MEM_BASE + 3, MEM_BASE + 0x8001, 5000, 0, VGEMINI_DMA_CMD_COPY);
	CHECK_EQ(rd(&nic, VGEMINI_CTL_DMA_STATUS, 4), VGEMINI_DMA_DONE);
	CHECK(memcmp(node.mem + 3, node.mem + 0x8001, 5000) == 0);
	CHECK_EQ(node.nirq, 1);
	CHECK_EQ(node.irqs[0], 5);

	/* INVERT in place. */
	dma(&nic, MEM_BASE + 0x8001, 0, 5000, 0, VGEMINI_DMA_CMD_INVERT);
	CHECK_EQ(rd(&nic, VGEMINI_CTL_DMA_STATUS, 4), VGEMINI_DMA_DONE);
	for (i = 0, bad = 0; i < 5000; i++)
		bad += node.mem[0x8001 + i] != (uint8_t)~(uint8_t)(i * 7);
	CHECK_EQ(bad, 0);

	/* The whole maximum length. */
	dma(&nic, MEM_BASE, 0, VGEMINI_DMA_MAX_LEN, 0x3c, VGEMINI_DMA_CMD_FILL);
	CHECK_EQ(rd(&nic, VGEMINI_CTL_DMA_STATUS, 4), VGEMINI_DMA_DONE);
	CHECK_EQ(node.mem[MEM_SIZE - 1], 0x3c);
	CHECK_EQ(node.guest_errors, 0);
}

static void test_dma_errors(void)
{
	struct fake_node node;
	struct gemini_nic nic;

	make_nic(&nic, &node, 0, 0, 0, 1, 1, 1);
	wr(&nic, VGEMINI_CTL_DMA_IRQ, 4, 1);

	dma(&nic, MEM_BASE, 0, 0, 0xff, VGEMINI_DMA_CMD_FILL);
	CHECK_EQ(rd(&nic, VGEMINI_CTL_DMA_STATUS, 4), VGEMINI_DMA_ERR_LEN);
	dma(&nic, MEM_BASE, 0, VGEMINI_DMA_MAX_LEN + 1, 0xff,
	    VGEMINI_DMA_CMD_FILL);
	CHECK_EQ(rd(&nic, VGEMINI_CTL_DMA_STATUS, 4), VGEMINI_DMA_ERR_LEN);
	dma(&nic, MEM_BASE, 0, 16, 0xff, 0);
	CHECK_EQ(rd(&nic, VGEMINI_CTL_DMA_STATUS, 4), VGEMINI_DMA_ERR_CMD);
	dma(&nic, MEM_BASE, 0, 16, 0xff, 0xdeadbeef);
	CHECK_EQ(rd(&nic, VGEMINI_CTL_DMA_STATUS, 4), VGEMINI_DMA_ERR_CMD);
	/* Outside node memory, across its end, wrapping the address space. */
	dma(&nic, 0x10, 0, 16, 0xff, VGEMINI_DMA_CMD_FILL);
	CHECK_EQ(rd(&nic, VGEMINI_CTL_DMA_STATUS, 4), VGEMINI_DMA_ERR_BUS);
	dma(&nic, MEM_BASE + MEM_SIZE - 8, 0, 4096, 0xff, VGEMINI_DMA_CMD_FILL);
	CHECK_EQ(rd(&nic, VGEMINI_CTL_DMA_STATUS, 4), VGEMINI_DMA_ERR_BUS);
	dma(&nic, ~0ull - 7, 0, 16, 0xff, VGEMINI_DMA_CMD_INVERT);
	CHECK_EQ(rd(&nic, VGEMINI_CTL_DMA_STATUS, 4), VGEMINI_DMA_ERR_BUS);
	dma(&nic, MEM_BASE, ~0ull - 7, 16, 0, VGEMINI_DMA_CMD_COPY);
	CHECK_EQ(rd(&nic, VGEMINI_CTL_DMA_STATUS, 4), VGEMINI_DMA_ERR_BUS);
	dma(&nic, MEM_BASE, 0x20, 16, 0, VGEMINI_DMA_CMD_COPY);
	CHECK_EQ(rd(&nic, VGEMINI_CTL_DMA_STATUS, 4), VGEMINI_DMA_ERR_BUS);
	/*
	 * Into or out of the device's own registers (a BAR the glue placed,
	 * here over fake memory so that the bus alone would allow it).
	 */
	gemini_nic_set_own_window(&nic, 1, MEM_BASE + 0x1000, 0x1000);
	dma(&nic, MEM_BASE + 0xff8, 0, 16, 0xff, VGEMINI_DMA_CMD_FILL);
	CHECK_EQ(rd(&nic, VGEMINI_CTL_DMA_STATUS, 4), VGEMINI_DMA_ERR_BUS);
	dma(&nic, MEM_BASE + 0x1ff8, MEM_BASE, 8, 0, VGEMINI_DMA_CMD_COPY);
	CHECK_EQ(rd(&nic, VGEMINI_CTL_DMA_STATUS, 4), VGEMINI_DMA_ERR_BUS);
	CHECK_EQ(node.mem[0xff8], 0);
	CHECK_EQ(node.mem[0x1000], 0);
	gemini_nic_set_own_window(&nic, 1, 0, 0);
	dma(&nic, MEM_BASE + 0x1000, 0, 16, 0xff, VGEMINI_DMA_CMD_FILL);
	CHECK_EQ(rd(&nic, VGEMINI_CTL_DMA_STATUS, 4), VGEMINI_DMA_DONE);
	CHECK_EQ(node.mem[0x1000], 0xff);
	/*
	 * Each ended in a completion interrupt; each error was logged, the
	 * two refusals by the core's DMA check too.
	 */
	CHECK_EQ(node.nirq, 12);
	CHECK_EQ(node.guest_errors, 13);
	/* A bad completion vector is itself a guest error, not a crash. */
	wr(&nic, VGEMINI_CTL_DMA_IRQ, 4, 99);
	dma(&nic, MEM_BASE, 0, 16, 0, VGEMINI_DMA_CMD_FILL);
	CHECK_EQ(rd(&nic, VGEMINI_CTL_DMA_STATUS, 4), VGEMINI_DMA_DONE);
	CHECK_EQ(node.nirq, 12);
	CHECK_EQ(node.guest_errors, 14);
	CHECK_EQ(node.last_guest_error, GEMINI_GE_IRQ_VECTOR);
	/* Nothing outside what the good FILL touched was written. */
	CHECK_EQ(node.mem[16], 0);
}

static void test_garbage_accesses(void)
{
	static const unsigned int sizes[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 16 };
	struct fake_node node;
	struct gemini_nic nic;
	uint64_t off, v;
	size_t s;
	unsigned int ok = 0, unknown = 0;

	make_nic(&nic, &node, 0, 0, 0, 1, 1, 1);
	/* Every offset of the control block, every size, read and write. */
	for (off = 0; off < GEMINI_BAR_CTL_SIZE + 16; off++) {
		for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
			enum gemini_access r;

			r = gemini_ctl_read(&nic, off, sizes[s], &v);
			if (r == GEMINI_ACCESS_BAD_SIZE) {
				CHECK_EQ(v, 0);
				continue;
			}
			CHECK(sizes[s] == 4 || sizes[s] == 8);
			CHECK(!(off & (sizes[s] - 1)));
			ok += r == GEMINI_ACCESS_OK;
			unknown += r == GEMINI_ACCESS_UNKNOWN;
			/* Writes of all-ones, except to the doorbells. */
			if (off != VGEMINI_CTL_DMA_CMD &&
			    off != VGEMINI_CTL_DMA_CMD - 4)
				gemini_ctl_write(&nic, off, sizes[s], ~0ull);
		}
	}
	CHECK(ok > 0);
	CHECK(unknown > 0);
	CHECK_EQ(gemini_ctl_read(&nic, GEMINI_BAR_CTL_SIZE - 4, 8, &v),
		 GEMINI_ACCESS_BAD_SIZE);
	CHECK_EQ(gemini_ctl_write(&nic, VGEMINI_CTL_MAGIC, 4, 0),
		 GEMINI_ACCESS_READ_ONLY);
	CHECK_EQ(rd(&nic, VGEMINI_CTL_MAGIC, 4), VGEMINI_CTL_MAGIC_VALUE);
	CHECK_EQ(gemini_ctl_write(&nic, 0x1000, 4, 0), GEMINI_ACCESS_UNKNOWN);

	/* The NIC window: the node id register and nothing else yet. */
	CHECK_EQ(gemini_window_read(&nic, GEMINI_MMR_NL_NODE_ID, 8, &v),
		 GEMINI_ACCESS_OK);
	CHECK_EQ(v, 0);
	CHECK_EQ(gemini_window_write(&nic, GEMINI_MMR_NL_NODE_ID, 8, 5),
		 GEMINI_ACCESS_READ_ONLY);
	CHECK_EQ(gemini_window_read(&nic, GEMINI_FMA_PUT_WC, 8, &v),
		 GEMINI_ACCESS_UNKNOWN);
	CHECK_EQ(gemini_window_read(&nic, GEMINI_BAR_NIC_SIZE - 8, 8, &v),
		 GEMINI_ACCESS_UNKNOWN);
	CHECK_EQ(gemini_window_read(&nic, GEMINI_BAR_NIC_SIZE, 8, &v),
		 GEMINI_ACCESS_BAD_SIZE);
	CHECK_EQ(gemini_window_read(&nic, ~0ull - 3, 4, &v),
		 GEMINI_ACCESS_BAD_SIZE);
	CHECK_EQ(gemini_window_write(&nic, 3, 4, 5), GEMINI_ACCESS_BAD_SIZE);
}

/*
 * The window's regions (gemini_window_regions()): sorted, apart, whole
 * qwords, below the FMA windows; each answers inside and nothing answers
 * in the gaps between them.
 */
static void test_window_regions(void)
{
	const struct gemini_window_region *const *tab;
	struct fake_node node;
	struct gemini_nic nic;
	unsigned int n, i;
	uint64_t v, end;

	make_nic(&nic, &node, 0, 0, 0, 1, 1, 1);
	tab = gemini_window_regions(&n);
	CHECK(n > 0);
	for (i = 0; i < n; i++) {
		const struct gemini_window_region *r = tab[i];

		CHECK(r->name && r->access);
		CHECK(r->span > 0);
		CHECK_EQ(r->base % 8, 0);
		CHECK_EQ(r->span % 8, 0);
		end = r->base + r->span;
		CHECK(end > r->base);
		CHECK(end <= GEMINI_FMA_PUT_WC);
		CHECK(!gemini_fma_is_window(r->base));
		CHECK(!gemini_fma_is_window(end - 8));
		if (i + 1 < n)
			CHECK(end <= tab[i + 1]->base);
		/* The qword before the region is its neighbour's or nobody's. */
		if (r->base >= 8 && (!i || tab[i - 1]->base +
				     tab[i - 1]->span < r->base))
			CHECK_EQ(gemini_window_read(&nic, r->base - 8, 8, &v),
				 GEMINI_ACCESS_UNKNOWN);
		if (i + 1 == n || end < tab[i + 1]->base)
			CHECK_EQ(gemini_window_read(&nic, end, 8, &v),
				 GEMINI_ACCESS_UNKNOWN);
	}
	/* Each has its first register where its table says. */
	CHECK_EQ(gemini_window_read(&nic, GEMINI_MMR_NL_NODE_ID, 4, &v),
		 GEMINI_ACCESS_OK);
	CHECK_EQ(gemini_window_read(&nic, GEMINI_MMR_NTT_CONFIG, 8, &v),
		 GEMINI_ACCESS_OK);
	CHECK_EQ(gemini_window_read(&nic, GEMINI_MMR_MRT_PAGE_SIZE + 4, 4, &v),
		 GEMINI_ACCESS_OK);
	CHECK_EQ(gemini_window_read(&nic, GEMINI_MMR_BTE_RX_RING_COUNT, 8, &v),
		 GEMINI_ACCESS_OK);
	CHECK_EQ(gemini_window_read(&nic, GEMINI_MMR_BTE_TX_RING_BASE, 8, &v),
		 GEMINI_ACCESS_OK);
}

/* --- links -------------------------------------------------------------- */

static void *new_link(void)
{
	void *m = calloc(1, VGEMINI_LINK_FILE_SIZE);

	if (!m)
		abort();
	return m;
}

static uint32_t port_state(struct gemini_nic *nic, unsigned int port)
{
	return rd(nic, VGEMINI_CTL_PORT(port) + VGEMINI_PORT_STATE, 4);
}

static uint32_t port_peer(struct gemini_nic *nic, unsigned int port)
{
	return rd(nic, VGEMINI_CTL_PORT(port) + VGEMINI_PORT_PEER, 4);
}

static void attach(struct gemini_nic *nic, unsigned int port, void *mem,
		   uint64_t epoch)
{
	struct gemini_link_view v;
	char err[128];

	CHECK(gemini_link_view_shm(&v, mem, VGEMINI_LINK_FILE_SIZE,
				   GEMINI_PORT_IS_MINUS(port)) == 0);
	CHECK(gemini_port_attach(nic, port, &v, epoch, err, sizeof(err)) == 0);
}

static void test_link_handshake_and_death(void)
{
	struct fake_node na, nb;
	struct gemini_nic a, b;
	struct gemini_link_view v;
	void *lx = new_link();
	uint64_t t = 1000;
	char err[128];
	unsigned int i;

	/* Nodes 0 and 1 of a 2x1x1 torus, one link (A's X+ to B's X-). */
	make_nic(&a, &na, 0, 0, 0, 2, 1, 1);
	make_nic(&b, &nb, 1, 0, 0, 2, 1, 1);
	CHECK(gemini_link_view_shm(&v, lx, VGEMINI_LINK_FILE_SIZE, 0) == 0);
	CHECK(gemini_port_attach(&a, 6, &v, 1, err, sizeof(err)) == -1);
	CHECK(gemini_link_view_shm(&v, lx, 100, 0) == -1);
	CHECK(gemini_link_view_shm(&v, lx, VGEMINI_LINK_FILE_SIZE, 2) == -1);
	CHECK(gemini_port_attach(&a, 0, &v, 1, err, sizeof(err)) == -1);
	CHECK(gemini_port_attach(&a, 0, NULL, 1, err, sizeof(err)) == -1);
	attach(&a, GEMINI_PORT_XP, lx, 11);
	CHECK_EQ(port_state(&a, GEMINI_PORT_XP), VGEMINI_PORT_DOWN);
	wr(&a, VGEMINI_CTL_LINK_IRQ, 4, 31);

	/* B not there yet: A stays down. */
	gemini_nic_tick(&a, t += 500);
	gemini_nic_tick(&a, t += 500);
	CHECK_EQ(port_state(&a, GEMINI_PORT_XP), VGEMINI_PORT_DOWN);

	attach(&b, GEMINI_PORT_XM, lx, 22);
	gemini_nic_tick(&a, t += 500);
	gemini_nic_tick(&b, t);
	gemini_nic_tick(&a, t += 500);
	gemini_nic_tick(&b, t);
	CHECK_EQ(port_state(&a, GEMINI_PORT_XP), VGEMINI_PORT_UP);
	CHECK_EQ(port_peer(&a, GEMINI_PORT_XP), GEMINI_PE(1, 0));
	CHECK_EQ(port_state(&b, GEMINI_PORT_XM), VGEMINI_PORT_UP);
	CHECK_EQ(port_peer(&b, GEMINI_PORT_XM), GEMINI_PE(0, 0));
	CHECK_EQ(na.nirq, 1);
	CHECK_EQ(na.irqs[0], 31);
	CHECK_EQ(nb.nirq, 0);		/* B left its link IRQ off */

	/* B dies without a word: A notices after the timeout, not before. */
	for (i = 1; i < 20; i++) {
		gemini_nic_tick(&a, t += VGEMINI_LINK_HEARTBEAT_MS);
		if (port_state(&a, GEMINI_PORT_XP) != VGEMINI_PORT_UP)
			break;
	}
	CHECK(i * VGEMINI_LINK_HEARTBEAT_MS >= VGEMINI_LINK_TIMEOUT_MS);
	CHECK(i * VGEMINI_LINK_HEARTBEAT_MS <=
	      VGEMINI_LINK_TIMEOUT_MS + 2 * VGEMINI_LINK_HEARTBEAT_MS);
	CHECK_EQ(port_state(&a, GEMINI_PORT_XP), VGEMINI_PORT_DOWN);
	CHECK_EQ(port_peer(&a, GEMINI_PORT_XP), VGEMINI_PEER_NONE);
	CHECK_EQ(na.nirq, 2);

	/* B comes back (new process, new epoch, heartbeat from 0). */
	make_nic(&b, &nb, 1, 0, 0, 2, 1, 1);
	attach(&b, GEMINI_PORT_XM, lx, 23);
	gemini_nic_tick(&b, t);
	gemini_nic_tick(&a, t += 500);
	gemini_nic_tick(&b, t);
	gemini_nic_tick(&a, t += 500);
	CHECK_EQ(port_state(&a, GEMINI_PORT_XP), VGEMINI_PORT_UP);
	CHECK_EQ(rd(&a, VGEMINI_CTL_PORT(GEMINI_PORT_XP) + VGEMINI_PORT_CHANGES,
		    4), 3);

	/* A clean detach is seen at the next tick. */
	gemini_port_detach(&b, GEMINI_PORT_XM);
	CHECK_EQ(port_state(&b, GEMINI_PORT_XM), VGEMINI_PORT_UNUSED);
	gemini_nic_tick(&a, t += 500);
	CHECK_EQ(port_state(&a, GEMINI_PORT_XP), VGEMINI_PORT_DOWN);
	gemini_port_detach(&a, GEMINI_PORT_XP);
	gemini_port_detach(&a, GEMINI_PORT_XP);	/* twice is harmless */
	free(lx);
}

static void test_link_self_loop_and_size_two(void)
{
	struct fake_node na, nb;
	struct gemini_nic a, b;
	void *l0 = new_link(), *l1 = new_link(), *lz = new_link();
	unsigned int p;
	uint64_t t = 0;

	/*
	 * 2x1x1 with Z of size 1: X+ and X- both reach the other node over
	 * two distinct links; Y and Z are self-loops.
	 */
	make_nic(&a, &na, 0, 0, 0, 2, 1, 1);
	make_nic(&b, &nb, 1, 0, 0, 2, 1, 1);
	attach(&a, GEMINI_PORT_XP, l0, 1);
	attach(&b, GEMINI_PORT_XM, l0, 2);
	attach(&b, GEMINI_PORT_XP, l1, 2);
	attach(&a, GEMINI_PORT_XM, l1, 1);
	attach(&a, GEMINI_PORT_ZP, lz, 1);
	attach(&a, GEMINI_PORT_ZM, lz, 1);
	for (p = 0; p < 3; p++) {
		gemini_nic_tick(&a, t += 500);
		gemini_nic_tick(&b, t);
	}
	CHECK_EQ(port_state(&a, GEMINI_PORT_XP), VGEMINI_PORT_UP);
	CHECK_EQ(port_state(&a, GEMINI_PORT_XM), VGEMINI_PORT_UP);
	CHECK_EQ(port_peer(&a, GEMINI_PORT_XM), GEMINI_PE(1, 0));
	CHECK_EQ(port_state(&b, GEMINI_PORT_XP), VGEMINI_PORT_UP);
	CHECK_EQ(port_peer(&b, GEMINI_PORT_XP), GEMINI_PE(0, 0));
	CHECK_EQ(port_state(&a, GEMINI_PORT_ZP), VGEMINI_PORT_UP);
	CHECK_EQ(port_peer(&a, GEMINI_PORT_ZP), GEMINI_PE(0, 0));
	CHECK_EQ(port_state(&a, GEMINI_PORT_ZM), VGEMINI_PORT_UP);
	CHECK_EQ(port_state(&a, GEMINI_PORT_YP), VGEMINI_PORT_UNUSED);
	free(l0);
	free(l1);
	free(lz);
}

static void test_link_miswired_and_hostile_peer(void)
{
	struct fake_node na, nc;
	struct gemini_nic a, c;
	struct vgemini_link_shm *shm = new_link();
	uint64_t t = 0;
	unsigned int i;

	/* A (0,0,0) of 3x1x1 expects (1,0,0) on X+, but (2,0,0) answers. */
	make_nic(&a, &na, 0, 0, 0, 3, 1, 1);
	make_nic(&c, &nc, 2, 0, 0, 3, 1, 1);
	attach(&a, GEMINI_PORT_XP, shm, 1);
	attach(&c, GEMINI_PORT_XM, shm, 2);
	for (i = 0; i < 3; i++) {
		gemini_nic_tick(&a, t += 500);
		gemini_nic_tick(&c, t);
	}
	CHECK_EQ(port_state(&a, GEMINI_PORT_XP), VGEMINI_PORT_MISWIRED);
	CHECK_EQ(port_peer(&a, GEMINI_PORT_XP), GEMINI_PE(2, 0));
	/* C's X- expects (1,0,0) too, and sees (0,0,0). */
	CHECK_EQ(port_state(&c, GEMINI_PORT_XM), VGEMINI_PORT_MISWIRED);

	/* A peer of another link version is not believed. */
	shm->side[1].version = 99;
	gemini_nic_tick(&a, t += 500);
	CHECK_EQ(port_state(&a, GEMINI_PORT_XP), VGEMINI_PORT_DOWN);

	/* Random bytes where the peer should be: no crash, PE masked. */
	srand(7);
	for (i = 0; i < 2000; i++) {
		unsigned char *raw = (unsigned char *)&shm->side[1];
		size_t k;

		for (k = 0; k < sizeof(shm->side[1]); k++)
			raw[k] = (unsigned char)rand();
		if (i & 1) {
			shm->side[1].magic = VGEMINI_LINK_MAGIC;
			shm->side[1].version = VGEMINI_LINK_VERSION;
		}
		gemini_nic_tick(&a, t += 500);
		CHECK(port_state(&a, GEMINI_PORT_XP) != VGEMINI_PORT_UNUSED);
		CHECK(port_peer(&a, GEMINI_PORT_XP) == VGEMINI_PEER_NONE ||
		      port_peer(&a, GEMINI_PORT_XP) <= GEMINI_PE_MASK);
	}
	/* Our own side was never disturbed by reading the peer's. */
	CHECK_EQ(shm->side[0].magic, VGEMINI_LINK_MAGIC);
	CHECK_EQ(shm->side[0].pe, GEMINI_PE(0, 0));
	free(shm);
}

static void test_reset_keeps_links(void)
{
	struct fake_node na;
	struct gemini_nic a;
	void *lz = new_link();
	uint64_t t = 0;
	int i;

	make_nic(&a, &na, 0, 0, 0, 1, 1, 1);
	attach(&a, GEMINI_PORT_XP, lz, 1);
	attach(&a, GEMINI_PORT_XM, lz, 1);
	wr(&a, VGEMINI_CTL_LINK_IRQ, 4, 3);
	for (i = 0; i < 3; i++)
		gemini_nic_tick(&a, t += 500);
	CHECK_EQ(port_state(&a, GEMINI_PORT_XP), VGEMINI_PORT_UP);
	gemini_nic_reset(&a);
	CHECK_EQ(rd(&a, VGEMINI_CTL_LINK_IRQ, 4), VGEMINI_IRQ_NONE);
	CHECK_EQ(port_state(&a, GEMINI_PORT_XP), VGEMINI_PORT_UP);
	free(lz);
}

/* ---------------------------------------------------------------------- */

static const struct tap_test tests[] = {
	{ "init rejects bad configuration", test_init_rejects_bad_config },
	{ "identity registers", test_identity },
	{ "torus neighbours", test_neighbours },
	{ "scratch register", test_scratch },
	{ "interrupt raise", test_irq_raise },
	{ "test DMA fill, copy, invert", test_dma },
	{ "test DMA errors", test_dma_errors },
	{ "garbage register accesses", test_garbage_accesses },
	{ "link handshake, death and return", test_link_handshake_and_death },
	{ "links in dimensions of size 1 and 2",
	  test_link_self_loop_and_size_two },
	{ "miswired and hostile link peers",
	  test_link_miswired_and_hostile_peer },
	{ "reset keeps links", test_reset_keeps_links },
	{ "the NIC window's regions: sorted, apart, each answers",
	  test_window_regions },
};

int main(void)
{
	return TAP_RUN(tests);
}
