/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The harness the NIC tests share (test_nic.c, test_fma.c): fake node
 * memory and interrupt log behind struct gemini_ops, a fake clock, several
 * NICs cabled in memory exactly as the launcher cables link files and
 * routed with the firmware's tables, a run loop, and helpers to program
 * MDD, MRT and CQ registers through the NIC window as a driver would.
 * Include after tap.h.
 */
#ifndef GEMINI_TESTS_NIC_HARNESS_H
#define GEMINI_TESTS_NIC_HARNESS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemini_core.h"
#include "routes.h"
#include "fake_bus.h"
#include "tap.h"

#define MS(x)		((uint64_t)(x) * 1000000u)
#define STEP_NS		2000u
#define IDLE_STEP_NS	MS(VGEMINI_LINK_RETRY_MS)

/* --- fake nodes --------------------------------------------------------- */

/* 2 MiB of node memory at 2 MiB: whole MRT pages of 128 KiB and 2 MiB. */
#define MEM_BASE	0x200000ull
#define MEM_SIZE	0x200000u
#define IRQ_LOG		256
#define RSP_LOG		512

struct node {
	struct gemini_nic nic;
	uint8_t *mem;
	unsigned int irqs[IRQ_LOG];
	unsigned int nirq;
	unsigned int guest_errors;
	unsigned int last_guest_error;
	uint64_t last_guest_args[4];
	struct gemini_pkt rsp[RSP_LOG];	/* responses seen by stale_rsp */
	unsigned int nrsp;
	unsigned long kicks;		/* doorbells it rang, any port */
};

static uint64_t clock_ns = 1000000000ull;

FAKE_BUS_CALLBACKS(struct node)

static uint64_t fake_clock(void *opaque)
{
	(void)opaque;
	return clock_ns;
}

static void fake_stale_rsp(void *opaque, const struct gemini_pkt *pkt)
{
	struct node *n = opaque;

	if (n->nrsp < RSP_LOG)
		n->rsp[n->nrsp] = *pkt;
	n->nrsp++;
}

static void fake_kick(void *opaque, unsigned int port)
{
	struct node *n = opaque;

	(void)port;
	n->kicks++;
}

static const struct gemini_ops fake_ops = {
	.dma_read = fake_dma_read,
	.dma_write = fake_dma_write,
	.raise_irq = fake_irq,
	.guest_error = fake_guest_error,
	.clock_ns = fake_clock,
	.stale_rsp = fake_stale_rsp,
	.kick_peer = fake_kick,
};

/* --- the fabric (the pattern of test_fabric.c, cut down) ---------------- */

struct fabric {
	struct torus t;
	uint32_t n;
	struct node *node;
	void **link;			/* [n * 3 + dim] */
	uint64_t next_tick_ms;
};

static struct gemini_nic *nic_of(struct fabric *f, uint32_t id)
{
	return &f->node[id].nic;
}

static void node_init(struct node *nd, const unsigned int coord[3],
		      const unsigned int dims[3], unsigned int vectors)
{
	struct gemini_config cfg = { .num_vectors = vectors };
	char err[128];
	unsigned int d;

	for (d = 0; d < 3; d++) {
		cfg.coord[d] = coord[d];
		cfg.dims[d] = dims[d];
	}
	nd->mem = calloc(1, MEM_SIZE);
	if (!nd->mem)
		abort();
	if (gemini_nic_init(&nd->nic, &cfg, &fake_ops, nd, err, sizeof(err))) {
		printf("#   init failed: %s\n", err);
		failures_in_test++;
	}
}

static void advance(struct fabric *f, uint64_t ns)
{
	uint64_t now_ms;
	uint32_t i;

	clock_ns += ns;
	now_ms = clock_ns / 1000000;
	if (now_ms >= f->next_tick_ms) {
		for (i = 0; i < f->n; i++)
			gemini_nic_tick(nic_of(f, i), now_ms);
		f->next_tick_ms = now_ms + VGEMINI_LINK_HEARTBEAT_MS;
	}
}

static uint64_t signature(const struct fabric *f)
{
	uint64_t h = 0xcbf29ce484222325ull;
	unsigned int p, c, k;
	uint32_t i;

#define MIX(v)	(h = (h ^ (uint64_t)(v)) * 0x100000001b3ull)
	for (i = 0; i < f->n; i++) {
		const struct gemini_nic *nic = &f->node[i].nic;

		for (p = 0; p < GEMINI_NUM_TORUS_PORTS; p++)
			for (c = 0; c < VGEMINI_LINK_CHANS; c++) {
				MIX(nic->port[p].tx[c].next);
				MIX(nic->port[p].tx[c].acked);
				MIX(nic->port[p].tx[c].freed);
				MIX(nic->port[p].rx[c].ack);
				MIX(nic->port[p].rx[c].freed);
			}
		for (k = 0; k < VGEMINI_COUNTERS_PER_BLK; k++)
			MIX(nic->nic_ctr[k]);
		MIX(nic->router.inject[0].count);
		MIX(nic->router.inject[1].count);
		MIX(nic->rmt.req_waits);
	}
#undef MIX
	return h;
}

static bool busy(const struct fabric *f)
{
	unsigned int p, c;
	uint32_t i;

	for (i = 0; i < f->n; i++) {
		const struct gemini_nic *nic = &f->node[i].nic;

		if (nic->router.inject[0].count || nic->router.inject[1].count)
			return true;
		for (p = 0; p < GEMINI_NUM_TORUS_PORTS; p++)
			for (c = 0; c < VGEMINI_LINK_CHANS; c++)
				if (nic->router.in[p][c].count ||
				    nic->port[p].tx[c].next !=
				    nic->port[p].tx[c].freed)
					return true;
	}
	return false;
}

/* One round: every node polls once. */
static void step(struct fabric *f)
{
	uint64_t before = signature(f);
	uint32_t i;

	for (i = 0; i < f->n; i++)
		gemini_nic_poll(nic_of(f, i));
	advance(f, signature(f) != before ? STEP_NS : IDLE_STEP_NS);
}

/* Poll until nothing moves and nothing is in flight. */
static void run(struct fabric *f)
{
	unsigned int r;

	for (r = 0; r < 20000; r++) {
		uint64_t before = signature(f);
		uint32_t i;

		for (i = 0; i < f->n; i++)
			gemini_nic_poll(nic_of(f, i));
		if (signature(f) != before) {
			advance(f, STEP_NS);
			continue;
		}
		if (!busy(f))
			return;
		advance(f, IDLE_STEP_NS);
	}
	printf("#   the fabric did not settle\n");
	failures_in_test++;
}

static struct fabric *fab_new(unsigned int dx, unsigned int dy,
			      unsigned int dz)
{
	const unsigned int dims[3] = { dx, dy, dz };
	char err[ROUTES_ERR_LEN];
	struct check_result res;
	struct route_plan plan;
	struct fabric *f = calloc(1, sizeof(*f));
	unsigned int c[3], d;
	uint32_t i;

	if (!f || torus_init(&f->t, dims, err))
		abort();
	f->n = f->t.num_nodes;
	f->node = calloc(f->n, sizeof(*f->node));
	f->link = calloc((size_t)f->n * 3, sizeof(*f->link));
	if (!f->node || !f->link)
		abort();
	for (i = 0; i < f->n * 3; i++) {
		f->link[i] = calloc(1, VGEMINI_LINK_FILE_SIZE);
		if (!f->link[i])
			abort();
	}
	for (i = 0; i < f->n; i++) {
		torus_coords(&f->t, i, c);
		node_init(&f->node[i], c, dims, GEMINI_NUM_IRQ);
	}
	/* Cable as the launcher does: node n's "+" and its neighbour's "-". */
	for (i = 0; i < f->n; i++) {
		for (d = 0; d < 3; d++) {
			uint32_t minus = torus_neighbour(&f->t, i, 2 * d + 1);
			uint64_t epoch = ((uint64_t)(i + 1) << 32) | 0x51;
			struct gemini_link_view vp, vm;

			if (gemini_link_view_shm(&vp, f->link[i * 3 + d],
						 VGEMINI_LINK_FILE_SIZE, 0) ||
			    gemini_link_view_shm(&vm, f->link[minus * 3 + d],
						 VGEMINI_LINK_FILE_SIZE, 1) ||
			    gemini_port_attach(nic_of(f, i), 2 * d, &vp, epoch,
					       err, sizeof(err)) ||
			    gemini_port_attach(nic_of(f, i), 2 * d + 1, &vm,
					       epoch, err, sizeof(err)))
				abort();
		}
	}
	f->next_tick_ms = clock_ns / 1000000;
	for (i = 0; i < 3; i++)
		advance(f, MS(VGEMINI_LINK_HEARTBEAT_MS));

	if (plan_choose(&plan, &f->t, &res, err)) {
		printf("#   plan_choose: %s\n", err);
		abort();
	}
	for (i = 0; i < f->n; i++) {
		size_t len = image_size(f->n);
		uint8_t *img = calloc(1, len);

		if (!img)
			abort();
		plan_fill(&plan, i, img + VGEMINI_ROUTE_HDR_SIZE);
		image_build(img, &f->t, i, 1);
		if (gemini_router_load(nic_of(f, i), img, len, err,
				       sizeof(err))) {
			printf("#   load %u: %s\n", i, err);
			failures_in_test++;
		}
		free(img);
	}
	plan_free(&plan);
	run(f);
	return f;
}

static void fab_free(struct fabric *f)
{
	uint32_t i;

	for (i = 0; i < f->n; i++) {
		gemini_nic_fini(nic_of(f, i));
		free(f->node[i].mem);
	}
	for (i = 0; i < f->n * 3; i++)
		free(f->link[i]);
	free(f->link);
	free(f->node);
	torus_free(&f->t);
	free(f);
}

/* A NIC on its own (1x1x1, no links) for register and CQ tests. */
static struct node *solo_new(unsigned int vectors)
{
	static const unsigned int zero[3] = { 0, 0, 0 }, one[3] = { 1, 1, 1 };
	struct node *nd = calloc(1, sizeof(*nd));

	if (!nd)
		abort();
	node_init(nd, zero, one, vectors);
	return nd;
}

static void solo_free(struct node *nd)
{
	gemini_nic_fini(&nd->nic);
	free(nd->mem);
	free(nd);
}

/* --- the driver's side: the NIC window ---------------------------------- */

static void win_wr(struct gemini_nic *nic, uint64_t off, unsigned int size,
		   uint64_t v)
{
	CHECK_EQ(gemini_window_write(nic, off, size, v), GEMINI_ACCESS_OK);
}

static uint64_t win_rd(struct gemini_nic *nic, uint64_t off, unsigned int size)
{
	uint64_t v;

	CHECK_EQ(gemini_window_read(nic, off, size, &v), GEMINI_ACCESS_OK);
	return v;
}

#define PTAG		7
#define RW		(GEMINI_MDD_MODE_VALID | GEMINI_MDD_MODE_WRITABLE)
#define RO		GEMINI_MDD_MODE_VALID

/* Register memory domain @mdh: bytes [@base, @last] of domain space. */
static void mdd_set(struct gemini_nic *nic, unsigned int mdh,
		    unsigned int ptag, uint64_t base, uint64_t last, bool mrt,
		    unsigned int modes, unsigned int cqh)
{
	/* The second qword holds VALID: written last, as a driver does. */
	win_wr(nic, GEMINI_MMR_MDD_ENTRY(mdh), 8,
	       GEMINI_MDD_QW1(ptag, base, mrt));
	win_wr(nic, GEMINI_MMR_MDD_ENTRY(mdh) + 8, 8,
	       GEMINI_MDD_QW2(modes, last, cqh));
}

struct cq_cfg {
	uint64_t base;
	uint32_t max_index;
	uint32_t thresh;
	uint32_t irq_index;
	bool irq;
	bool enable;
};

static void cq_set(struct gemini_nic *nic, unsigned int cq,
		   const struct cq_cfg *c)
{
	uint64_t d = GEMINI_MMR_CQ_DESC_ENTRY(cq);

	win_wr(nic, d + 16, 8, c->base | (c->irq ? GEMINI_CQ_IRQ_REQ : 0));
	win_wr(nic, d, 8, 0);
	win_wr(nic, d + 8, 8, (uint64_t)c->max_index |
	       (uint64_t)c->thresh << GEMINI_CQ_IRQ_THRESH_SHIFT |
	       (uint64_t)c->irq_index << GEMINI_CQ_IRQ_INDEX_SHIFT |
	       (c->enable ? GEMINI_CQ_ENABLE : 0));
}

static uint32_t cq_wr_index(struct gemini_nic *nic, unsigned int cq)
{
	return (uint32_t)win_rd(nic, GEMINI_MMR_CQ_DESC_ENTRY(cq) + 4, 4);
}

/* The consumer's read-index update through the CQ's user page. */
static void cq_consume(struct gemini_nic *nic, unsigned int cq, uint32_t rd)
{
	win_wr(nic, GEMINI_CQ_USER_PAGE(cq), 8, rd);
}

static void le64(uint8_t *p, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* The little-endian word at node address @addr of @nd's memory. */
static uint64_t mem_le64(const struct node *nd, uint64_t addr)
{
	return get64(nd->mem + (addr - MEM_BASE));
}

static void mem_set64(struct node *nd, uint64_t addr, uint64_t v)
{
	le64(nd->mem + (addr - MEM_BASE), v);
}

/*
 * FMA descriptor @di as its kernel and library set it (static inline:
 * not every test uses them).  The kernel's part: ptag, local CQ, extra
 * bits of the PE qword, enable.
 */
static inline void fma_setup(struct gemini_nic *nic, unsigned int di,
			     unsigned int ptag, unsigned int cq,
			     uint64_t extra_qw3)
{
	win_wr(nic, GEMINI_FMA_PRIV_PAGE(di) + GEMINI_FMA_QW_PE, 8,
	       (uint64_t)cq << GEMINI_FMA_CQH_SHIFT |
	       (uint64_t)ptag << GEMINI_FMA_SRC_PTAG_SHIFT |
	       (uint64_t)ptag << GEMINI_FMA_DEST_PTAG_SHIFT | extra_qw3);
	win_wr(nic, GEMINI_FMA_PRIV_PAGE(di) + GEMINI_FMA_QW_CMD, 8,
	       (uint64_t)GEMINI_FMA_MODE2_FMA_ENABLE << GEMINI_FMA_MODE2_SHIFT);
}

/* The library's part: command, both MDHs, PE mask mode; mode bits kept. */
static inline void fma_set_cmd(struct gemini_nic *nic, unsigned int di,
			       unsigned int cmd, unsigned int mdh,
			       unsigned int pe_mask_mode)
{
	uint64_t at = GEMINI_FMA_USER_PAGE(di) + GEMINI_FMA_QW_CMD;
	uint64_t mode2 = GEMINI_FMA_MODE2_MASK << GEMINI_FMA_MODE2_SHIFT;

	win_wr(nic, at, 8, (win_rd(nic, at, 8) & mode2) | cmd |
	       (uint64_t)mdh << GEMINI_FMA_REM_MDH_SHIFT |
	       (uint64_t)mdh << GEMINI_FMA_SRC_MDH_SHIFT |
	       (uint64_t)pe_mask_mode << GEMINI_FMA_PE_MASK_MODE_SHIFT);
}

/* The window base, PE mask mode 0. */
static inline void fma_base(struct gemini_nic *nic, unsigned int di,
			    uint32_t pe, uint64_t offset)
{
	win_wr(nic, GEMINI_FMA_USER_PAGE(di) + GEMINI_FMA_QW_BASE_OFFSET, 8,
	       (uint64_t)pe << 40 | offset);
}

static inline void fma_sync(struct gemini_nic *nic, unsigned int di,
			    unsigned int type, uint64_t data)
{
	win_wr(nic, GEMINI_FMA_USER_PAGE(di) + GEMINI_FMA_QW_SYNCCMP, 8,
	       (uint64_t)type << GEMINI_FMA_SYNC_TYPE_SHIFT | data);
}

static inline uint64_t fma_status(struct gemini_nic *nic, unsigned int di)
{
	return win_rd(nic, GEMINI_FMA_USER_PAGE(di) + GEMINI_FMA_QW_STATUS, 8);
}

/*
 * A store of @size bytes at @x of descriptor @di's uncached PUT window:
 * one request per store (the write-combining window merges them).
 */
static inline void put8(struct gemini_nic *nic, unsigned int di, uint64_t x,
			unsigned int size, uint64_t v)
{
	CHECK_EQ(gemini_window_write(nic, GEMINI_FMA_WINDOW(GEMINI_FMA_PUT_UC,
							    di) + x, size, v),
		 GEMINI_ACCESS_OK);
}

/* The same store into the write-combining PUT window. */
static inline void put_wc(struct gemini_nic *nic, unsigned int di,
			  uint64_t x, unsigned int size, uint64_t v)
{
	CHECK_EQ(gemini_window_write(nic, GEMINI_FMA_WINDOW(GEMINI_FMA_PUT_WC,
							    di) + x, size, v),
		 GEMINI_ACCESS_OK);
}

#endif /* GEMINI_TESTS_NIC_HARNESS_H */
