// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Host tests of the BTE's transfers (gemini_bte_xfer.c: PUT, GET, IMMED): several cores
 * cabled and routed as in test_fabric.c, a kernel's work done by hand
 * (rings, descriptors, write index), data checked byte for byte at the
 * target, the events and the descriptor's write-back at the source, and
 * the packets on the links counted.  Prints TAP.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemini_core.h"
#include "routes.h"
#include "tap.h"
#include "nic_harness.h"

#define MDH		9		/* the data domain on every node */
#define LCQ		5		/* the source's events */
#define CQ_MAX		63
#define LCQ_BASE	(MEM_BASE + 0x1000)
#define COPY_BASE	(MEM_BASE + 0x4000)	/* the CPU copy of the ring */
#define DOM_BASE	(MEM_BASE + 0x10000)
#define DOM_LAST	(MEM_BASE + MEM_SIZE - 1)
#define SRC_OFF		0x1000ull	/* in the domain */
#define DST_OFF		0x80000ull
#define VC		1		/* the TX channel the tests use */
#define RING_BASE	100
#define RING_COUNT	8

#define TXC(vc, qw)	(GEMINI_MMR_BTE_TX_CHAN_ENTRY(vc) + 8 * (qw))

static uint32_t ev_rd;		/* LCQ events consumed on node 0 */
static unsigned int ring_wr;	/* the kernel's write index */

static void node_setup(struct gemini_nic *nic)
{
	struct cq_cfg l = { .base = LCQ_BASE, .max_index = CQ_MAX,
			    .enable = true };

	mdd_set(nic, MDH, PTAG, DOM_BASE, DOM_LAST, false, RW, LCQ);
	cq_set(nic, LCQ, &l);
}

/* The kernel's set-up of TX channel VC on node @nic. */
static void chan_setup(struct gemini_nic *nic)
{
	win_wr(nic, GEMINI_MMR_BTE_TX_RING_BASE, 8,
	       (uint64_t)RING_BASE << GEMINI_BTE_RING_FIELD(VC));
	win_wr(nic, GEMINI_MMR_BTE_TX_RING_COUNT, 8,
	       (uint64_t)RING_COUNT << GEMINI_BTE_RING_FIELD(VC));
	win_wr(nic, TXC(VC, 1), 8, COPY_BASE);
	win_wr(nic, TXC(VC, 0), 8, (uint64_t)(GEMINI_BTE_TXC_RESET |
					      GEMINI_BTE_TXC_ENABLE |
					      GEMINI_BTE_TXC_IRQ_ENABLE) <<
	       GEMINI_BTE_TXC_FLAGS_SHIFT);
}

static struct fabric *bte_fabric(unsigned int dx, unsigned int dy,
				 unsigned int dz)
{
	struct fabric *f = fab_new(dx, dy, dz);
	uint32_t i;

	ev_rd = 0;
	ring_wr = 0;
	for (i = 0; i < f->n; i++)
		node_setup(nic_of(f, i));
	chan_setup(nic_of(f, 0));
	return f;
}

struct post {
	uint32_t pe;
	unsigned int mode1;
	unsigned int dst_mdh, src_mdh, ptag;
	uint64_t dst_off, src_off, len;
	uint64_t local, global;
};

/* Queue @p on node 0's channel VC as a kernel does; its ring slot. */
static unsigned int post(struct fabric *f, const struct post *p)
{
	struct gemini_nic *nic = nic_of(f, 0);
	unsigned int slot = RING_BASE + ring_wr;
	uint64_t d = GEMINI_MMR_BTE_TX_ENTRY(slot);

	win_wr(nic, d, 8, (uint64_t)p->mode1 << GEMINI_BTE_MODE1_SHIFT |
	       p->pe);
	win_wr(nic, d + 8, 8, (uint64_t)GEMINI_BTE_IRQ_ENABLE <<
	       GEMINI_BTE_MODE2_SHIFT | (uint64_t)p->dst_mdh <<
	       GEMINI_BTE_DEST_MDH_SHIFT | p->dst_off);
	win_wr(nic, d + 16, 8, p->len << GEMINI_BTE_LEN_SHIFT |
	       (uint64_t)p->ptag << GEMINI_BTE_SRC_PTAG_SHIFT |
	       (uint64_t)p->ptag << GEMINI_BTE_DEST_PTAG_SHIFT | LCQ);
	win_wr(nic, d + 24, 8, (uint64_t)GEMINI_BTE_NAT_ENABLE <<
	       GEMINI_BTE_MODE4_SHIFT | (uint64_t)p->src_mdh <<
	       GEMINI_BTE_SRC_MDH_SHIFT | p->src_off);
	win_wr(nic, d + 32, 8, p->local);
	win_wr(nic, d + 40, 8, p->global);
	ring_wr = (ring_wr + 1) % RING_COUNT;
	win_wr(nic, TXC(VC, 3), 8, ring_wr);
	return slot;
}

static struct post put_of(uint32_t pe, uint64_t len)
{
	struct post p = {
		.pe = pe, .mode1 = GEMINI_BTE_PUT | GEMINI_BTE_CQ_LOCAL |
				   GEMINI_BTE_CQ_GLOBAL,
		.dst_mdh = MDH, .src_mdh = MDH, .ptag = PTAG,
		.dst_off = DST_OFF, .src_off = SRC_OFF, .len = len,
		.local = 0x10cal, .global = 0x6106a1,
	};

	return p;
}

static uint64_t next_event(struct fabric *f)
{
	struct node *nd = &f->node[0];
	uint64_t e;

	if (cq_wr_index(&nd->nic, LCQ) == ev_rd)
		return 0;
	e = mem_le64(nd, LCQ_BASE + 8ull * ev_rd);
	ev_rd = (ev_rd + 1) % (CQ_MAX + 1);
	cq_consume(&nd->nic, LCQ, ev_rd);
	return e;
}

#define CHECK_EVENT(e, st, data)					\
	do {								\
		uint64_t e_ = (e);					\
		CHECK_EQ((e_ >> GEMINI_CQE_SOURCE_SHIFT) &		\
			 GEMINI_CQE_SOURCE_MASK, GEMINI_CQE_SRC_BTE);	\
		CHECK_EQ((e_ >> GEMINI_CQE_STATUS_SHIFT) &		\
			 GEMINI_CQE_STATUS_MASK, (st));			\
		CHECK_EQ(e_ & GEMINI_CQE_DATA_MASK, (data));		\
	} while (0)

/* The status and flags the device wrote into the CPU copy of @slot. */
static unsigned int copy_status(struct fabric *f, unsigned int slot)
{
	uint64_t qw5 = mem_le64(&f->node[0], COPY_BASE +
				64ull * (slot - RING_BASE) + 32);

	return (unsigned int)(qw5 >> GEMINI_BTE_STATUS_SHIFT &
			      GEMINI_BTE_STATUS_MASK);
}

static unsigned int copy_flags(struct fabric *f, unsigned int slot)
{
	uint64_t qw2 = mem_le64(&f->node[0], COPY_BASE +
				64ull * (slot - RING_BASE) + 8);

	return (unsigned int)(qw2 >> GEMINI_BTE_FLAGS_SHIFT &
			      GEMINI_BTE_FLAGS_MASK);
}

static uint8_t *dom(struct fabric *f, uint32_t node, uint64_t off)
{
	return f->node[node].mem + (DOM_BASE - MEM_BASE) + off;
}

static void fill(uint8_t *p, uint64_t len, unsigned int seed)
{
	uint64_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(i * 7 + seed + (i >> 8));
}

/* Sum of port counter @idx over @nic's ports. */
static uint64_t ports_sum(struct gemini_nic *nic, unsigned int idx)
{
	uint64_t s = 0;
	unsigned int p;

	for (p = 0; p < GEMINI_NUM_TORUS_PORTS; p++)
		s += gemini_port_counter(nic, p, idx);
	return s;
}

/* Run until the clock has advanced @ns. */
static void run_for(struct fabric *f, uint64_t ns)
{
	uint64_t end = clock_ns + ns;

	while (clock_ns < end)
		step(f);
	run(f);
}

/*
 * 64 KiB to the neighbour, 64-byte aligned: the data arrives, the links
 * carry exactly 1024 write requests and 1024 responses, the events and
 * the descriptor's write-back say OK.
 */
static void test_put_64k(void)
{
	const uint64_t len = 65536;
	struct fabric *f = bte_fabric(2, 1, 1);
	struct gemini_pkt put = { .vc = GEMINI_VC_REQ, .type = GEMINI_PKT_PUT,
				  .len = 64 };
	struct gemini_pkt ack = { .vc = GEMINI_VC_RSP, .type = GEMINI_PKT_ACK };
	struct post p = put_of(GEMINI_PE(1, 0), len);
	uint64_t rx0 = ports_sum(nic_of(f, 1), VGEMINI_PC_VC0_PKTS);
	uint64_t rxp0 = ports_sum(nic_of(f, 1), VGEMINI_PC_VC0_PHITS);
	uint64_t ack0 = ports_sum(nic_of(f, 0), VGEMINI_PC_VC1_PKTS);
	uint64_t ackp0 = ports_sum(nic_of(f, 0), VGEMINI_PC_VC1_PHITS);
	unsigned int slot, nirq = f->node[0].nirq;

	fill(dom(f, 0, SRC_OFF), len, 1);
	slot = post(f, &p);
	run(f);
	CHECK(!memcmp(dom(f, 1, DST_OFF), dom(f, 0, SRC_OFF), len));
	CHECK_EQ(dom(f, 1, DST_OFF + len)[0], 0);
	CHECK_EQ(dom(f, 1, DST_OFF - 1)[0], 0);
	CHECK_EQ(ports_sum(nic_of(f, 1), VGEMINI_PC_VC0_PKTS) - rx0, 1024);
	CHECK_EQ(ports_sum(nic_of(f, 1), VGEMINI_PC_VC0_PHITS) - rxp0,
		 1024ull * gemini_pkt_phits(&put));
	CHECK_EQ(ports_sum(nic_of(f, 0), VGEMINI_PC_VC1_PKTS) - ack0, 1024);
	CHECK_EQ(ports_sum(nic_of(f, 0), VGEMINI_PC_VC1_PHITS) - ackp0,
		 1024ull * gemini_pkt_phits(&ack));
	CHECK_EVENT(next_event(f), 0, 0x10ca);
	CHECK_EVENT(next_event(f), 0, 0x6106a1);
	CHECK_EQ(next_event(f), 0);
	CHECK_EQ(copy_status(f, slot), 0);
	CHECK_EQ(copy_flags(f, slot), GEMINI_BTE_FLAG_COMPLETE);
	/* The read index followed; the channel's interrupt (index 0: TX's) */
	CHECK_EQ(win_rd(nic_of(f, 0), TXC(VC, 2), 8) & GEMINI_BTE_TXC_RD_MASK,
		 1);
	CHECK_EQ(f->node[0].nirq, nirq + 1);
	CHECK_EQ(f->node[0].irqs[nirq], 2 * VC + 1);
	CHECK_EQ(f->node[0].guest_errors, 0);
	/* The NIC's engine counters: 1024 BTE PUTs, nothing else */
	CHECK_EQ(gemini_nic_counter(nic_of(f, 0), VGEMINI_NC_BTE_PUT_PKTS),
		 1024);
	CHECK_EQ(gemini_nic_counter(nic_of(f, 0), VGEMINI_NC_BTE_GET_PKTS) +
		 gemini_nic_counter(nic_of(f, 0), VGEMINI_NC_FMA_PUT_PKTS), 0);
	fab_free(f);
}

/*
 * 64 KiB from (0,0) to (1,1) on a 4x3x1 torus: the 1024 write requests
 * take the dimension-order path, X+ then Y+, and only it: exactly 1024
 * requests of 32 phits enter node 1 by X- and node 5 by Y-, none enter
 * anywhere else; the 1024 answers come back.
 */
static void test_put_path(void)
{
	struct fabric *f = bte_fabric(4, 3, 1);
	struct gemini_pkt put = { .vc = GEMINI_VC_REQ, .type = GEMINI_PKT_PUT,
				  .len = 64 };
	uint64_t pkts[12][GEMINI_NUM_TORUS_PORTS];
	uint64_t phits[12][GEMINI_NUM_TORUS_PORTS];
	uint64_t acks = ports_sum(nic_of(f, 0), VGEMINI_PC_VC1_PKTS);
	struct post p = put_of(GEMINI_PE(5, 0), 65536);
	unsigned int n, port;

	for (n = 0; n < f->n; n++)
		for (port = 0; port < GEMINI_NUM_TORUS_PORTS; port++) {
			pkts[n][port] = gemini_port_counter(nic_of(f, n), port,
							    VGEMINI_PC_VC0_PKTS);
			phits[n][port] = gemini_port_counter(nic_of(f, n), port,
							     VGEMINI_PC_VC0_PHITS);
		}
	fill(dom(f, 0, SRC_OFF), 65536, 8);
	post(f, &p);
	run(f);
	CHECK(!memcmp(dom(f, 5, DST_OFF), dom(f, 0, SRC_OFF), 65536));
	for (n = 0; n < f->n; n++)
		for (port = 0; port < GEMINI_NUM_TORUS_PORTS; port++) {
			bool on = (n == 1 && port == GEMINI_PORT_XM) ||
				  (n == 5 && port == GEMINI_PORT_YM);

			CHECK_EQ(gemini_port_counter(nic_of(f, n), port,
						     VGEMINI_PC_VC0_PKTS) -
				 pkts[n][port], on ? 1024 : 0);
			CHECK_EQ(gemini_port_counter(nic_of(f, n), port,
						     VGEMINI_PC_VC0_PHITS) -
				 phits[n][port],
				 on ? 1024ull * gemini_pkt_phits(&put) : 0);
		}
	CHECK_EQ(ports_sum(nic_of(f, 0), VGEMINI_PC_VC1_PKTS) - acks, 1024);
	CHECK_EVENT(next_event(f), 0, 0x10ca);
	CHECK_EVENT(next_event(f), 0, 0x6106a1);
	fab_free(f);
}

/* Any length at an unaligned source and target: cut at 64-byte lines. */
static void test_put_unaligned(void)
{
	static const uint64_t lens[] = { 1, 3, 63, 64, 65, 127, 200, 4097 };
	struct fabric *f = bte_fabric(3, 1, 1);
	unsigned int i;

	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		struct post p = put_of(GEMINI_PE(2, 0), lens[i]);
		uint64_t before = ports_sum(nic_of(f, 2), VGEMINI_PC_VC0_PKTS);
		uint64_t first = 64 - (DST_OFF + 61) % 64, pkts;

		p.src_off = SRC_OFF + 3;
		p.dst_off = DST_OFF + 61;
		p.mode1 = GEMINI_BTE_PUT | GEMINI_BTE_CQ_GLOBAL;
		p.global = i;
		memset(dom(f, 2, DST_OFF), 0xee, 8192);
		fill(dom(f, 0, SRC_OFF + 3), lens[i], i);
		post(f, &p);
		run(f);
		CHECK(!memcmp(dom(f, 2, DST_OFF + 61), dom(f, 0, SRC_OFF + 3),
			      lens[i]));
		CHECK_EQ(dom(f, 2, DST_OFF + 60)[0], 0xee);
		CHECK_EQ(dom(f, 2, DST_OFF + 61 + lens[i])[0], 0xee);
		pkts = lens[i] <= first ? 1 :
		       1 + (lens[i] - first + 63) / 64;
		CHECK_EQ(ports_sum(nic_of(f, 2), VGEMINI_PC_VC0_PKTS) - before,
			 pkts);
		CHECK_EVENT(next_event(f), 0, i);
		CHECK_EQ(next_event(f), 0);
	}
	fab_free(f);
}

/* The transfer of @slot ended once, with TIMEOUT and its flag. */
static void check_timed_out(struct fabric *f, unsigned int slot)
{
	CHECK_EVENT(next_event(f), GEMINI_STATUS_TIMEOUT, 0x6106a1);
	CHECK_EQ(next_event(f), 0);
	CHECK_EQ(copy_status(f, slot), GEMINI_STATUS_TIMEOUT);
	CHECK_EQ(copy_flags(f, slot), GEMINI_BTE_FLAG_COMPLETE |
		 GEMINI_BTE_FLAG_TIMEOUT);
}

/*
 * Errors end a transfer with exactly one event, carrying the status, and
 * its write-back; the target's memory is untouched.
 */
static void test_errors(void)
{
	struct fabric *f = bte_fabric(2, 1, 1);
	struct post p;
	unsigned int slot;
	char err[64];

	/* The target has no such domain: its ERR status comes back. */
	p = put_of(GEMINI_PE(1, 0), 256);
	p.dst_mdh = MDH + 1;
	memset(dom(f, 1, DST_OFF), 0xee, 512);
	slot = post(f, &p);
	run(f);
	CHECK_EVENT(next_event(f), GEMINI_STATUS_MDD_INV, 0x6106a1);
	CHECK_EQ(next_event(f), 0);
	CHECK_EQ(copy_status(f, slot), GEMINI_STATUS_MDD_INV);
	CHECK_EQ(copy_flags(f, slot), GEMINI_BTE_FLAG_COMPLETE);
	CHECK_EQ(dom(f, 1, DST_OFF)[0], 0xee);
	/* Past the target domain's end: BOUNDS */
	p = put_of(GEMINI_PE(1, 0), 256);
	p.dst_off = DOM_LAST - DOM_BASE - 100;
	slot = post(f, &p);
	run(f);
	CHECK_EVENT(next_event(f), GEMINI_STATUS_BOUNDS, 0x6106a1);
	CHECK_EQ(next_event(f), 0);
	/* The source is not ours to read: nothing is sent */
	p = put_of(GEMINI_PE(1, 0), 256);
	p.src_mdh = MDH + 2;
	p.mode1 = GEMINI_BTE_PUT | GEMINI_BTE_CQ_LOCAL;
	slot = post(f, &p);
	run(f);
	/* Only CQ_LOCAL asked: the error carries its data. */
	CHECK_EVENT(next_event(f), GEMINI_STATUS_MDD_INV, 0x10ca);
	CHECK_EQ(next_event(f), 0);
	/* Not yet: CONCATENATE; never: a length of 0, both PUT and GET */
	p = put_of(GEMINI_PE(1, 0), 256);
	p.mode1 = GEMINI_BTE_PUT | GEMINI_BTE_CONCATENATE |
		  GEMINI_BTE_CQ_GLOBAL;
	post(f, &p);
	p.mode1 = GEMINI_BTE_PUT | GEMINI_BTE_GET;
	post(f, &p);
	p = put_of(GEMINI_PE(1, 0), 0);
	post(f, &p);
	p = put_of(GEMINI_PE(1, 0), 8);
	p.mode1 |= GEMINI_BTE_VMDH_ENABLE;
	post(f, &p);
	run(f);
	CHECK_EVENT(next_event(f), GEMINI_STATUS_INV_CMD, 0x6106a1);
	CHECK_EVENT(next_event(f), GEMINI_STATUS_INV_CMD, 0x6106a1);
	CHECK_EVENT(next_event(f), GEMINI_STATUS_INV_CMD, 0x6106a1);
	CHECK_EVENT(next_event(f), GEMINI_STATUS_VMDH_INV, 0x6106a1);
	CHECK_EQ(next_event(f), 0);
	CHECK_EQ(dom(f, 1, DST_OFF)[0], 0xee);

	/* A dead link: the transfer times out, once, with the flag. */
	CHECK_EQ(gemini_fault_set(nic_of(f, 0), GEMINI_PORT_XP, "down=1", err,
				  sizeof(err)), 0);
	CHECK_EQ(gemini_fault_set(nic_of(f, 0), GEMINI_PORT_XM, "down=1", err,
				  sizeof(err)), 0);
	p = put_of(GEMINI_PE(1, 0), 1024);
	slot = post(f, &p);
	run_for(f, MS(GEMINI_FMA_TIMEOUT_MS) + MS(100));
	check_timed_out(f, slot);
	fab_free(f);
}

static struct post get_of(uint32_t pe, uint64_t len)
{
	struct post p = put_of(pe, len);

	p.mode1 = GEMINI_BTE_GET | GEMINI_BTE_CQ_LOCAL | GEMINI_BTE_CQ_GLOBAL;
	return p;
}

/*
 * 64 KiB from the neighbour: the data lands in the local domain, the
 * links carry 1024 GET requests of 8 phits and 1024 DATA responses of 27.
 */
static void test_get_64k(void)
{
	const uint64_t len = 65536;
	struct fabric *f = bte_fabric(2, 1, 1);
	struct gemini_pkt get = { .vc = GEMINI_VC_REQ, .type = GEMINI_PKT_GET,
				  .len = 64 };
	struct gemini_pkt data = { .vc = GEMINI_VC_RSP,
				   .type = GEMINI_PKT_DATA, .len = 64 };
	struct post p = get_of(GEMINI_PE(1, 0), len);
	uint64_t rx0 = ports_sum(nic_of(f, 1), VGEMINI_PC_VC0_PKTS);
	uint64_t rxp0 = ports_sum(nic_of(f, 1), VGEMINI_PC_VC0_PHITS);
	uint64_t dat0 = ports_sum(nic_of(f, 0), VGEMINI_PC_VC1_PKTS);
	uint64_t datp0 = ports_sum(nic_of(f, 0), VGEMINI_PC_VC1_PHITS);
	unsigned int slot;

	CHECK_EQ(gemini_pkt_phits(&get), 8);
	CHECK_EQ(gemini_pkt_phits(&data), 27);
	/* Remote DST_OFF is read into local SRC_OFF. */
	fill(dom(f, 1, DST_OFF), len, 4);
	memset(dom(f, 0, SRC_OFF - 64), 0xee, len + 128);
	slot = post(f, &p);
	run(f);
	CHECK(!memcmp(dom(f, 0, SRC_OFF), dom(f, 1, DST_OFF), len));
	CHECK_EQ(dom(f, 0, SRC_OFF - 1)[0], 0xee);
	CHECK_EQ(dom(f, 0, SRC_OFF + len)[0], 0xee);
	CHECK_EQ(ports_sum(nic_of(f, 1), VGEMINI_PC_VC0_PKTS) - rx0, 1024);
	CHECK_EQ(ports_sum(nic_of(f, 1), VGEMINI_PC_VC0_PHITS) - rxp0,
		 1024ull * 8);
	CHECK_EQ(ports_sum(nic_of(f, 0), VGEMINI_PC_VC1_PKTS) - dat0, 1024);
	CHECK_EQ(ports_sum(nic_of(f, 0), VGEMINI_PC_VC1_PHITS) - datp0,
		 1024ull * 27);
	CHECK_EQ(gemini_nic_counter(nic_of(f, 0), VGEMINI_NC_BTE_GET_PKTS),
		 1024);
	CHECK_EQ(gemini_nic_counter(nic_of(f, 0), VGEMINI_NC_BTE_PUT_PKTS), 0);
	CHECK_EVENT(next_event(f), 0, 0x10ca);
	CHECK_EVENT(next_event(f), 0, 0x6106a1);
	CHECK_EQ(next_event(f), 0);
	CHECK_EQ(copy_status(f, slot), 0);
	CHECK_EQ(copy_flags(f, slot), GEMINI_BTE_FLAG_COMPLETE);
	CHECK_EQ(f->node[0].guest_errors, 0);
	fab_free(f);
}

/* GETs of 4-byte words at 4-aligned places, two hops away; to itself */
static void test_get_words(void)
{
	static const uint64_t lens[] = { 4, 8, 60, 64, 68, 200, 4100 };
	struct fabric *f = bte_fabric(4, 1, 1);
	unsigned int i;

	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		unsigned int node = i % 2 ? 2 : 0;
		struct post p = get_of(GEMINI_PE(node, 0), lens[i]);

		p.src_off = SRC_OFF + 4;
		p.dst_off = DST_OFF + 60;
		p.mode1 = GEMINI_BTE_GET | GEMINI_BTE_CQ_GLOBAL;
		p.global = i;
		memset(dom(f, 0, SRC_OFF), 0xee, 8192);
		fill(dom(f, node, DST_OFF + 60), lens[i], i);
		post(f, &p);
		run(f);
		CHECK(!memcmp(dom(f, 0, SRC_OFF + 4), dom(f, node, DST_OFF + 60),
			      lens[i]));
		CHECK_EQ(dom(f, 0, SRC_OFF + 3)[0], 0xee);
		CHECK_EQ(dom(f, 0, SRC_OFF + 4 + lens[i])[0], 0xee);
		CHECK_EVENT(next_event(f), 0, i);
		CHECK_EQ(next_event(f), 0);
	}
	fab_free(f);
}

/*
 * A GET's refusals: misaligned (any of local, remote, length), into a
 * read-only or foreign local domain: one event each, before any packet;
 * the local domain invalidated mid-transfer: one event, MDD_INV, and no
 * byte written after.
 */
static void test_get_errors(void)
{
	struct fabric *f = bte_fabric(2, 1, 1);
	uint64_t req0 = ports_sum(nic_of(f, 1), VGEMINI_PC_VC0_PKTS);
	struct post p;
	unsigned int slot, i;

	for (i = 0; i < 3; i++) {
		p = get_of(GEMINI_PE(1, 0), 64 + (i == 2));
		p.src_off += i == 0 ? 2 : 0;
		p.dst_off += i == 1 ? 1 : 0;
		slot = post(f, &p);
		run(f);
		CHECK_EVENT(next_event(f), GEMINI_STATUS_INV_CMD, 0x6106a1);
		CHECK_EQ(copy_status(f, slot), GEMINI_STATUS_INV_CMD);
	}
	/* Only the local data word: the error carries it. */
	mdd_set(nic_of(f, 0), MDH + 1, PTAG, DOM_BASE, DOM_LAST, false, RO,
		LCQ);
	p = get_of(GEMINI_PE(1, 0), 64);
	p.src_mdh = MDH + 1;
	p.mode1 = GEMINI_BTE_GET | GEMINI_BTE_CQ_LOCAL;
	post(f, &p);
	p.src_mdh = MDH + 2;
	post(f, &p);
	p = get_of(GEMINI_PE(1, 0), 64);
	p.src_off = DOM_LAST - DOM_BASE - 31;
	post(f, &p);
	run(f);
	CHECK_EVENT(next_event(f), GEMINI_STATUS_WRITE_PERM, 0x10ca);
	CHECK_EVENT(next_event(f), GEMINI_STATUS_MDD_INV, 0x10ca);
	CHECK_EVENT(next_event(f), GEMINI_STATUS_BOUNDS, 0x6106a1);
	CHECK_EQ(next_event(f), 0);
	/* None of them sent a request. */
	CHECK_EQ(ports_sum(nic_of(f, 1), VGEMINI_PC_VC0_PKTS) - req0, 0);
	CHECK_EQ(f->node[0].guest_errors, 0);

	/* The domain goes away while 64 KiB come. */
	p = get_of(GEMINI_PE(1, 0), 65536);
	fill(dom(f, 1, DST_OFF), 65536, 3);
	memset(dom(f, 0, SRC_OFF), 0xee, 65536);
	slot = post(f, &p);
	/* Until the first data is in */
	for (i = 0; i < 1000 && dom(f, 0, SRC_OFF)[0] == 0xee; i++)
		step(f);
	mdd_set(nic_of(f, 0), MDH, PTAG, DOM_BASE, DOM_LAST, false, 0, LCQ);
	run(f);
	CHECK_EVENT(next_event(f), GEMINI_STATUS_MDD_INV, 0x6106a1);
	CHECK_EQ(next_event(f), 0);
	CHECK_EQ(copy_status(f, slot), GEMINI_STATUS_MDD_INV);
	/* What came before is in place; nothing after: the tail is as was */
	CHECK_EQ(dom(f, 0, SRC_OFF)[0], dom(f, 1, DST_OFF)[0]);
	CHECK_EQ(dom(f, 0, SRC_OFF + 65535)[0], 0xee);
	CHECK(f->node[0].guest_errors > 0);
	fab_free(f);
}

/*
 * IMMED: the remote event (user_data, source RMT_SREQ) reaches the target
 * domain's CQ after the data, for PUT and GET; a target CQ that cannot
 * take it ends the transfer with its status.  FENCE runs in order.
 */
static void test_immed_fence(void)
{
	struct fabric *f = bte_fabric(2, 1, 1);
	struct gemini_nic *t = nic_of(f, 1);
	struct cq_cfg off = { 0 };
	uint32_t t_rd = 0;
	struct post p;
	unsigned int slot, i;
	uint64_t e;

	for (i = 0; i < 2; i++) {
		p = i ? get_of(GEMINI_PE(1, 0), 256) :
			put_of(GEMINI_PE(1, 0), 256);
		p.mode1 |= GEMINI_BTE_IMMED | GEMINI_BTE_FENCE;
		p.global = 0x5e0000 + i;
		fill(dom(f, 0, SRC_OFF), 256, i);
		post(f, &p);
		run(f);
		CHECK(!memcmp(dom(f, 1, DST_OFF), dom(f, 0, SRC_OFF), 256));
		CHECK_EVENT(next_event(f), 0, 0x10ca);
		CHECK_EVENT(next_event(f), 0, 0x5e0000 + i);
		CHECK_EQ(cq_wr_index(t, LCQ), t_rd + 1);
		e = mem_le64(&f->node[1], LCQ_BASE + 8ull * t_rd);
		CHECK_EQ((e >> GEMINI_CQE_SOURCE_SHIFT) & GEMINI_CQE_SOURCE_MASK,
			 GEMINI_CQE_SRC_RMT_SREQ);
		CHECK_EQ(e & GEMINI_CQE_DATA_MASK, 0x5e0000 + i);
		t_rd++;
		cq_consume(t, LCQ, t_rd);
	}
	/* The target's CQ is off: the data moved, the event could not. */
	off.base = LCQ_BASE;
	off.max_index = CQ_MAX;
	cq_set(t, LCQ, &off);
	p = put_of(GEMINI_PE(1, 0), 64);
	p.mode1 |= GEMINI_BTE_IMMED;
	slot = post(f, &p);
	run(f);
	CHECK_EVENT(next_event(f), GEMINI_STATUS_OVERRUN, 0x6106a1);
	CHECK_EQ(next_event(f), 0);
	CHECK_EQ(copy_status(f, slot), GEMINI_STATUS_OVERRUN);
	fab_free(f);
}

#define RXC(ch, qw)	(GEMINI_MMR_BTE_RX_CHAN_ENTRY(ch) + 8 * (qw))
#define RX_COPY		(MEM_BASE + 0x3000)	/* CPU copies of RX */
#define RX_BUF(i)	(MEM_BASE + 0x8000 + 0x2000ull * (i))
#define RX_BASE		10
#define RX_COUNT	4
#define RX_SIZE		4096

/* RX channel VC of node @nic: 4 buffers of RX_SIZE, @posted of them. */
static void rx_setup(struct gemini_nic *nic, unsigned int posted)
{
	unsigned int i;

	win_wr(nic, GEMINI_MMR_BTE_RX_RING_BASE, 8,
	       (uint64_t)RX_BASE << GEMINI_BTE_RING_FIELD(VC));
	win_wr(nic, GEMINI_MMR_BTE_RX_RING_COUNT, 8,
	       (uint64_t)RX_COUNT << GEMINI_BTE_RING_FIELD(VC));
	win_wr(nic, RXC(VC, 1), 8, RX_COPY);
	for (i = 0; i < RX_COUNT; i++)
		win_wr(nic, GEMINI_MMR_BTE_RX_ENTRY(RX_BASE + i), 8,
		       RX_BUF(i) | (uint64_t)GEMINI_BTE_RX_IRQ_ENABLE <<
		       GEMINI_BTE_RX_MODE_SHIFT);
	win_wr(nic, RXC(VC, 0), 8, RX_SIZE | (uint64_t)(GEMINI_BTE_RXC_RESET |
						       GEMINI_BTE_RXC_ENABLE |
						       GEMINI_BTE_RXC_IRQ_ENABLE)
	       << GEMINI_BTE_RXC_FLAGS_SHIFT);
	win_wr(nic, RXC(VC, 3), 8, posted);
}

/* QW @qw of the CPU copy of RX ring index @i on node @node */
static uint64_t rx_copy(struct fabric *f, uint32_t node, unsigned int i,
			unsigned int qw)
{
	return mem_le64(&f->node[node], RX_COPY + 32ull * i + 8 * qw);
}

static uint8_t *rx_buf(struct fabric *f, uint32_t node, unsigned int i)
{
	return f->node[node].mem + (RX_BUF(i) - MEM_BASE);
}

/*
 * SEND: messages land in the target's posted RX buffers in ring order,
 * with their length, immediate data and interrupt; one past its buffer
 * is refused (OVERRUN at both ends) and writes nothing past it; with no
 * buffer posted, NPES; a disabled RX channel, SSID_STATE.
 */
static void test_send(void)
{
	struct fabric *f = bte_fabric(2, 1, 1);
	struct gemini_nic *t = nic_of(f, 1);
	unsigned int nirq = f->node[1].nirq, slot;
	struct post p;
	uint64_t qw2;

	rx_setup(t, 3);
	/* 1000 bytes from an odd source, with immediate data */
	p = put_of(GEMINI_PE(1, 0), 1000);
	p.mode1 = GEMINI_BTE_SEND | GEMINI_BTE_IMMED | GEMINI_BTE_CQ_GLOBAL;
	p.src_off = SRC_OFF + 5;
	fill(dom(f, 0, SRC_OFF + 5), 1000, 2);
	memset(rx_buf(f, 1, 0), 0xee, RX_SIZE + 64);
	post(f, &p);
	run(f);
	CHECK_EVENT(next_event(f), 0, 0x6106a1);
	CHECK(!memcmp(rx_buf(f, 1, 0), dom(f, 0, SRC_OFF + 5), 1000));
	CHECK_EQ(rx_buf(f, 1, 0)[1000], 0xee);
	qw2 = rx_copy(f, 1, 0, 1);
	CHECK_EQ(qw2 & GEMINI_BTE_RXCPY_FLAGS_MASK,
		 GEMINI_BTE_RX_FLAG_COMPLETE | GEMINI_BTE_RX_FLAG_IMM);
	CHECK_EQ(qw2 >> GEMINI_BTE_RXCPY_LEN_SHIFT, 1000);
	CHECK_EQ(rx_copy(f, 1, 0, 2), 0x6106a1);
	/* vgemini's QW4: the source PE as the network saw it */
	CHECK_EQ(rx_copy(f, 1, 0, 3),
		 GEMINI_BTE_RXCPY_SRC_VALID | GEMINI_PE(0, 0));
	CHECK_EQ(rx_copy(f, 1, 0, 0) & GEMINI_BTE_RX_ADDR_MASK, RX_BUF(0));
	CHECK_EQ(win_rd(t, RXC(VC, 2), 8) & GEMINI_BTE_RXC_RD_MASK, 1);
	CHECK_EQ(f->node[1].nirq, nirq + 1);
	CHECK_EQ(f->node[1].irqs[nirq], 2 * VC);
	/* Exactly the buffer: no immediate data */
	p.mode1 = GEMINI_BTE_SEND | GEMINI_BTE_CQ_GLOBAL;
	p.len = RX_SIZE;
	p.src_off = SRC_OFF;
	fill(dom(f, 0, SRC_OFF), RX_SIZE, 6);
	post(f, &p);
	run(f);
	CHECK_EVENT(next_event(f), 0, 0x6106a1);
	CHECK(!memcmp(rx_buf(f, 1, 1), dom(f, 0, SRC_OFF), RX_SIZE));
	CHECK_EQ(rx_copy(f, 1, 1, 1), GEMINI_BTE_RX_FLAG_COMPLETE |
		 (uint64_t)RX_SIZE << GEMINI_BTE_RXCPY_LEN_SHIFT);
	/* One byte more than the buffer: refused, nothing past it */
	p.len = RX_SIZE + 1;
	memset(rx_buf(f, 1, 2), 0xee, RX_SIZE + 64);
	slot = post(f, &p);
	run(f);
	CHECK_EVENT(next_event(f), GEMINI_STATUS_OVERRUN, 0x6106a1);
	CHECK_EQ(next_event(f), 0);
	CHECK_EQ(copy_status(f, slot), GEMINI_STATUS_OVERRUN);
	CHECK_EQ(rx_buf(f, 1, 2)[RX_SIZE], 0xee);
	CHECK_EQ(rx_copy(f, 1, 2, 1) & GEMINI_BTE_RXCPY_FLAGS_MASK,
		 GEMINI_BTE_RX_FLAG_COMPLETE | (uint64_t)GEMINI_STATUS_OVERRUN <<
		 GEMINI_BTE_RX_ERR_STATUS_SHIFT);
	/* Nothing posted any more */
	p.len = 8;
	post(f, &p);
	run(f);
	CHECK_EVENT(next_event(f), GEMINI_STATUS_NPES, 0x6106a1);
	/* Posted again, the ring goes on; a disabled channel refuses */
	win_wr(t, RXC(VC, 3), 8, 0);
	post(f, &p);
	run(f);
	CHECK_EVENT(next_event(f), 0, 0x6106a1);
	CHECK_EQ(rx_copy(f, 1, 3, 1) >> GEMINI_BTE_RXCPY_LEN_SHIFT, 8);
	win_wr(t, RXC(VC, 0), 8, RX_SIZE);
	post(f, &p);
	run(f);
	CHECK_EVENT(next_event(f), GEMINI_STATUS_SSID_STATE, 0x6106a1);
	CHECK_EQ(next_event(f), 0);
	CHECK_EQ(f->node[1].guest_errors, 0);
	fab_free(f);
}

/*
 * A message whose source goes quiet ends after twice the timeout with
 * TIMEOUT in its flags, and its entry is free again.
 */
static void test_send_stale(void)
{
	struct fabric *f = bte_fabric(2, 1, 1);
	struct gemini_nic *t = nic_of(f, 1);
	struct gemini_pkt piece = {
		.vc = GEMINI_VC_REQ, .type = GEMINI_PKT_SEND, .len = 16,
		.src = 0, .amo_op = VC, .mdh = 77,
	};
	unsigned int i;

	rx_setup(t, 2);
	CHECK_EQ(gemini_bte_rx_deliver(t, &piece), GEMINI_STATUS_OK);
	piece.addr = 16;
	CHECK_EQ(gemini_bte_rx_deliver(t, &piece), GEMINI_STATUS_OK);
	/* An end for a message that never began */
	piece.mdh = 78;
	piece.flags = GEMINI_PKT_F_LAST;
	piece.len = 0;
	CHECK_EQ(gemini_bte_rx_deliver(t, &piece), GEMINI_STATUS_NPES);
	CHECK_EQ(rx_copy(f, 1, 0, 1), 0);
	run_for(f, 2 * MS(GEMINI_FMA_TIMEOUT_MS) + MS(10));
	CHECK_EQ(rx_copy(f, 1, 0, 1), GEMINI_BTE_RX_FLAG_COMPLETE |
		 (uint64_t)GEMINI_STATUS_TIMEOUT <<
		 GEMINI_BTE_RX_ERR_STATUS_SHIFT);
	for (i = 0; i < GEMINI_BTE_RX_MSGS; i++)
		CHECK(!t->bte.rx_msg[VC][i].used);
	fab_free(f);
}

#define BIG_MDH		12	/* a domain of 64 MiB over aliased MRT pages */
#define BIG_LEN		(64ull << 20)
#define FDI		2	/* the FMA descriptor of the fairness test */

/* BIG_MDH on @nic: MRT pages of 128 KiB, all within 1 MiB of memory. */
static void big_setup(struct gemini_nic *nic)
{
	unsigned int i;

	for (i = 0; i < BIG_LEN >> 17; i++)
		win_wr(nic, GEMINI_MMR_MRT_ENTRY(i), 4,
		       GEMINI_MRT_ENCODE(MEM_BASE + (1 << 20) +
					 (i % 8) * (1u << 17)));
	mdd_set(nic, BIG_MDH, PTAG, 0, BIG_LEN - 1, true, RW, LCQ);
}

/*
 * 64 MiB to the neighbour (2^20 requests, over MRT pages aliasing 1 MiB):
 * FMA PUTs issued all through it each complete within a bounded number
 * of rounds, pings are never refused, and the transfer ends OK.  A second
 * 64 MiB transfer loses its link on the way: exactly one event, TIMEOUT,
 * and nothing else.
 */
static void test_big_fair(void)
{
	struct fabric *f = bte_fabric(2, 1, 1);
	struct gemini_nic *src = nic_of(f, 0);
	const struct gemini_diag *d = &src->diag[GEMINI_DIAG_HOST];
	unsigned int rounds = 0, issued_at = 0, worst = 0, puts = 0, pings = 0;
	uint64_t req0 = ports_sum(nic_of(f, 1), VGEMINI_PC_VC0_PKTS), e;
	bool fma_busy = false, done = false;
	struct post p = put_of(GEMINI_PE(1, 0), BIG_LEN);
	char err[64];
	unsigned int slot;

	big_setup(src);
	big_setup(nic_of(f, 1));
	fma_setup(src, FDI, PTAG, LCQ, 0);
	fma_set_cmd(src, FDI, GEMINI_FMA_CMD_PUT, MDH, 0);
	fma_base(src, FDI, GEMINI_PE(1, 0), DST_OFF);
	p.src_mdh = BIG_MDH;
	p.dst_mdh = BIG_MDH;
	p.src_off = 0;
	p.dst_off = 0;
	p.mode1 = GEMINI_BTE_PUT | GEMINI_BTE_CQ_GLOBAL;
	slot = post(f, &p);
	while (!done && rounds++ < 4000000) {
		if (!fma_busy && rounds % 64 == 0) {
			put8(src, FDI, 8 * (puts % 64), 8, puts);
			fma_sync(src, FDI, GEMINI_FMA_SYNC_LOCAL_EVENT, puts);
			fma_busy = true;
			issued_at = rounds;
		}
		if (!gemini_diag_busy(src, GEMINI_DIAG_HOST) &&
		    rounds % 256 == 0) {
			CHECK(d->status == VGEMINI_DIAG_IDLE ||
			      d->status == VGEMINI_DIAG_DONE);
			gemini_diag_start(src, GEMINI_DIAG_HOST, 1, 16, 1);
			pings++;
		}
		step(f);
		while ((e = next_event(f)) != 0) {
			if (((e >> GEMINI_CQE_SOURCE_SHIFT) &
			     GEMINI_CQE_SOURCE_MASK) == GEMINI_CQE_SRC_BTE) {
				CHECK_EVENT(e, 0, 0x6106a1);
				done = true;
				continue;
			}
			CHECK_EQ(e & GEMINI_CQE_DATA_MASK, puts);
			if (rounds - issued_at > worst)
				worst = rounds - issued_at;
			puts++;
			fma_busy = false;
		}
	}
	run(f);
	printf("#   %u rounds, %u FMA PUTs (slowest %u rounds), %u pings\n",
	       rounds, puts, worst, pings);
	CHECK(done);
	CHECK_EQ(copy_status(f, slot), 0);
	/* Requests on the link: the transfer's, the PUTs' and the pings' */
	CHECK_EQ(ports_sum(nic_of(f, 1), VGEMINI_PC_VC0_PKTS) - req0 -
		 puts - pings, BIG_LEN / 64);
	CHECK(puts > 100);
	CHECK(worst < 16);
	CHECK_EQ(d->failed, 0);

	/* Again, and the link goes down on the way. */
	slot = post(f, &p);
	for (rounds = 0; rounds < 500; rounds++)
		step(f);
	CHECK_EQ(next_event(f), 0);
	CHECK_EQ(gemini_fault_set(src, GEMINI_PORT_XP, "down=1", err,
				  sizeof(err)), 0);
	CHECK_EQ(gemini_fault_set(src, GEMINI_PORT_XM, "down=1", err,
				  sizeof(err)), 0);
	/* What was on the link stays unacknowledged: no run() to settle */
	for (e = clock_ns + MS(GEMINI_FMA_TIMEOUT_MS) + MS(100);
	     clock_ns < e;)
		step(f);
	check_timed_out(f, slot);
	fab_free(f);
}

#ifdef TEST_BTE_4G
/*
 * The longest transfer there is, 2^32 - 1 bytes (2^26 requests, the last
 * of 63 bytes), over MRT pages of 512 KiB that alias the same 1 MiB at
 * both ends: it ends with one event, OK, after exactly 2^26 requests, and
 * the target's aliased megabyte holds the source's.
 */
static void test_4g(void)
{
	const uint64_t len = 0xffffffffull, page = 1ull << 19;
	struct fabric *f = bte_fabric(2, 1, 1);
	struct post p = put_of(GEMINI_PE(1, 0), len);
	uint64_t req0 = ports_sum(nic_of(f, 1), VGEMINI_PC_VC0_PKTS), e = 0;
	unsigned int n, i, slot;

	for (n = 0; n < 2; n++) {
		struct gemini_nic *nic = nic_of(f, n);

		win_wr(nic, GEMINI_MMR_MRT_PAGE_SIZE, 8, GEMINI_MRT_PS_512K);
		for (i = 0; i < (len + 1) / page; i++)
			win_wr(nic, GEMINI_MMR_MRT_ENTRY(i), 4,
			       GEMINI_MRT_ENCODE(MEM_BASE + (1 << 20) +
						 (i % 2) * page));
		mdd_set(nic, BIG_MDH, PTAG, 0, len - 1, true, RW, LCQ);
	}
	fill(f->node[0].mem + (1 << 20), 1 << 20, 44);
	p.src_mdh = BIG_MDH;
	p.dst_mdh = BIG_MDH;
	p.src_off = 0;
	p.dst_off = 0;
	p.mode1 = GEMINI_BTE_PUT | GEMINI_BTE_CQ_GLOBAL;
	slot = post(f, &p);
	while (!e && clock_ns < MS(3600 * 1000)) {
		for (i = 0; i < 1024; i++) {
			gemini_nic_poll(nic_of(f, 0));
			gemini_nic_poll(nic_of(f, 1));
			advance(f, STEP_NS);
		}
		e = next_event(f);
	}
	CHECK_EVENT(e, 0, 0x6106a1);
	CHECK_EQ(copy_status(f, slot), 0);
	CHECK_EQ(ports_sum(nic_of(f, 1), VGEMINI_PC_VC0_PKTS) - req0,
		 1ull << 26);
	CHECK(!memcmp(f->node[1].mem + (1 << 20), f->node[0].mem + (1 << 20),
		      1 << 20));
	run(f);
	CHECK_EQ(next_event(f), 0);
	fab_free(f);
}

#endif

/* Run until node 0 has an event; it, consumed (0 if none came). */
static uint64_t wait_event(struct fabric *f)
{
	unsigned int i;
	uint64_t e = 0;

	for (i = 0; i < 100000 && !e; i++) {
		step(f);
		e = next_event(f);
	}
	return e;
}

/*
 * One channel runs several transfers at once: an 8-byte PUT posted after
 * a 256 KiB one ends first, while the read index waits at the big one and
 * ssid_in_use counts both; with ssid_max_num 1 they end in ring order.
 * After a FENCE transfer starts nothing starts until it and the earlier
 * ones have ended.
 */
static void test_concurrent(void)
{
	struct fabric *f = bte_fabric(2, 1, 1);
	struct gemini_nic *nic = nic_of(f, 0);
	struct post big = put_of(GEMINI_PE(1, 0), 256 << 10);
	struct post small = put_of(GEMINI_PE(1, 0), 8);
	uint64_t qw3;

	big.mode1 = GEMINI_BTE_PUT | GEMINI_BTE_CQ_GLOBAL;
	small.mode1 = big.mode1;
	big.global = 0xb16;
	small.global = 0x5;
	small.dst_off = DST_OFF + (512 << 10);
	post(f, &big);
	post(f, &small);
	CHECK_EVENT(wait_event(f), 0, 0x5);
	qw3 = win_rd(nic, TXC(VC, 2), 8);
	CHECK_EQ(qw3 & GEMINI_BTE_TXC_RD_MASK, 0);
	CHECK_EQ(qw3 >> GEMINI_BTE_TXC_INUSE_SHIFT & GEMINI_BTE_TXC_INUSE_MASK,
		 1);
	CHECK_EQ(copy_flags(f, RING_BASE + 1), GEMINI_BTE_FLAG_COMPLETE);
	CHECK_EQ(copy_flags(f, RING_BASE), 0);
	CHECK_EVENT(wait_event(f), 0, 0xb16);
	CHECK_EQ(win_rd(nic, TXC(VC, 2), 8) & GEMINI_BTE_TXC_RD_MASK, 2);

	/* ssid_max_num 1: one at a time */
	win_wr(nic, TXC(VC, 2), 8, 1ull << GEMINI_BTE_TXC_SSID_MAX_SHIFT);
	post(f, &big);
	post(f, &small);
	CHECK_EVENT(wait_event(f), 0, 0xb16);
	CHECK_EVENT(wait_event(f), 0, 0x5);

	/*
	 * A FENCE after the big one: the one after it waits for both; the
	 * channel's count of transfers wraps on the way.
	 */
	win_wr(nic, TXC(VC, 2), 8, 0);
	nic->bte.run[VC].started = UINT32_MAX - 1;
	post(f, &big);
	small.mode1 |= GEMINI_BTE_FENCE;
	post(f, &small);
	small.mode1 &= ~GEMINI_BTE_FENCE;
	small.global = 0x6;
	post(f, &small);
	CHECK_EVENT(wait_event(f), 0, 0x5);
	CHECK_EVENT(wait_event(f), 0, 0xb16);
	CHECK_EVENT(wait_event(f), 0, 0x6);
	run(f);
	CHECK_EQ(next_event(f), 0);
	CHECK_EQ(win_rd(nic, TXC(VC, 2), 8) & GEMINI_BTE_TXC_RD_MASK,
		 7 % RING_COUNT);
	CHECK_EQ(f->node[0].guest_errors, 0);
	fab_free(f);
}

/* RESET ends the transfer in progress as terminated; late answers stale. */
static void test_reset(void)
{
	struct fabric *f = bte_fabric(2, 1, 1);
	struct post p = put_of(GEMINI_PE(1, 0), 65536);
	uint64_t stale = gemini_nic_counter(nic_of(f, 0),
					    VGEMINI_NC_STALE_RSP);
	unsigned int slot;

	slot = post(f, &p);
	gemini_nic_poll(nic_of(f, 0));	/* the first requests leave */
	win_wr(nic_of(f, 0), TXC(VC, 0), 8,
	       (uint64_t)(GEMINI_BTE_TXC_RESET | GEMINI_BTE_TXC_ENABLE) <<
	       GEMINI_BTE_TXC_FLAGS_SHIFT);
	CHECK_EVENT(next_event(f), GEMINI_BTE_ST_TERMINATED, 0x6106a1);
	CHECK_EQ(copy_status(f, slot), GEMINI_BTE_ST_TERMINATED);
	ring_wr = 0;
	run(f);
	CHECK_EQ(next_event(f), 0);
	CHECK(gemini_nic_counter(nic_of(f, 0), VGEMINI_NC_STALE_RSP) > stale);
	/* The channel goes on from slot 0 of its ring. */
	p = put_of(GEMINI_PE(1, 0), 64);
	CHECK_EQ(post(f, &p), RING_BASE);
	run(f);
	CHECK_EVENT(next_event(f), 0, 0x10ca);
	CHECK_EVENT(next_event(f), 0, 0x6106a1);
	fab_free(f);
}

/*
 * A 1 MiB transfer keeps the injection buffer busy, but leaves room for
 * others: pings sent all through it are never refused as busy, and the
 * transfer still arrives whole.
 */
static void test_room_for_others(void)
{
	const uint64_t len = 1 << 20;
	struct fabric *f = bte_fabric(2, 1, 1);
	struct post p = put_of(GEMINI_PE(1, 0), len);
	const struct gemini_diag *d = &nic_of(f, 0)->diag[GEMINI_DIAG_HOST];
	unsigned int pings = 0, rounds = 0;

	fill(dom(f, 0, SRC_OFF), len, 9);
	post(f, &p);
	while (next_event(f) == 0 && rounds++ < 200000) {
		if (!gemini_diag_busy(nic_of(f, 0), GEMINI_DIAG_HOST) &&
		    rounds % 5 == 0) {
			CHECK(d->status == VGEMINI_DIAG_IDLE ||
			      d->status == VGEMINI_DIAG_DONE);
			gemini_diag_start(nic_of(f, 0), GEMINI_DIAG_HOST, 1, 16,
					  1);
			pings++;
		}
		step(f);
	}
	run(f);
	printf("#   %u pings, %u rounds\n", pings, rounds);
	CHECK(pings > 10);
	CHECK_EQ(d->failed, 0);
	CHECK(!memcmp(dom(f, 1, DST_OFF), dom(f, 0, SRC_OFF), len));
	/* The second of the transfer's two events */
	CHECK_EVENT(next_event(f), 0, 0x6106a1);
	fab_free(f);
}

/*
 * A transfer to this very node (its router hands the requests to its own
 * NIC), on a NIC with no links; a disabled channel ignores its ring.
 */
static void test_solo(void)
{
	struct node *nd = solo_new(GEMINI_NUM_IRQ);
	struct gemini_nic *nic = &nd->nic;
	struct fabric f = { .n = 1, .node = nd };
	struct post p = put_of(GEMINI_PE(0, 0), 100);
	uint64_t e;

	node_setup(nic);
	chan_setup(nic);
	ev_rd = 0;
	ring_wr = 0;
	fill(dom(&f, 0, SRC_OFF), 100, 5);
	mem_set64(nd, DOM_BASE + DST_OFF + 96, ~0ull);
	/* No routing table: nothing moves; the request times out. */
	post(&f, &p);
	gemini_nic_poll(nic);
	CHECK_EQ(next_event(&f), 0);
	clock_ns += MS(GEMINI_FMA_TIMEOUT_MS) + MS(1);
	gemini_nic_poll(nic);
	e = next_event(&f);
	CHECK_EVENT(e, GEMINI_STATUS_TIMEOUT, 0x6106a1);
	CHECK_EQ(mem_le64(nd, DOM_BASE + DST_OFF + 96), ~0ull);
	/* Disabled: the write index moves, nothing starts. */
	win_wr(nic, TXC(VC, 0), 8, 0);
	post(&f, &p);
	clock_ns += MS(GEMINI_FMA_TIMEOUT_MS) * 3;
	gemini_nic_poll(nic);
	CHECK_EQ(next_event(&f), 0);
	solo_free(nd);
}

#ifdef TEST_BTE_4G
/*
 * The longest transfer is too slow under the sanitizers: it has a binary
 * of its own, built -O2 without them (Documentation/testing.rst,
 * core-bte-4g).
 */
static const struct tap_test tests[] = {
	{ "4 GiB - 1 byte, the longest transfer: 2^26 requests, OK",
	  test_4g },
};
#else
static const struct tap_test tests[] = {
	{ "64 KiB PUT: the data, 1024 requests and responses, OK events",
	  test_put_64k },
	{ "64 KiB over 2 hops: requests on the dimension-order path only",
	  test_put_path },
	{ "unaligned PUTs of 1 to 4097 bytes, cut at 64-byte lines",
	  test_put_unaligned },
	{ "errors end a transfer once, with its status, target untouched",
	  test_errors },
	{ "64 KiB GET: the data, requests of 8 phits, responses of 27",
	  test_get_64k },
	{ "GETs of 4 to 4100 bytes, from a node 2 hops away and itself",
	  test_get_words },
	{ "GET refusals before any packet; the domain gone mid-transfer",
	  test_get_errors },
	{ "IMMED's remote event after the data; a CQ that refuses it; FENCE",
	  test_immed_fence },
	{ "SEND into posted RX buffers: data, length, imm, IRQ; refusals",
	  test_send },
	{ "a SEND whose source goes quiet ends with TIMEOUT at the target",
	  test_send_stale },
	{ "64 MiB: FMA PUTs and pings keep completing; the link dies: TIMEOUT",
	  test_big_fair },
	{ "several transfers per channel: out of order, ssid_max_num, FENCE",
	  test_concurrent },
	{ "RESET terminates the transfer in progress", test_reset },
	{ "a 1 MiB transfer leaves room: pings through it never busy",
	  test_room_for_others },
	{ "a lone NIC: no table, a timeout; a disabled channel waits",
	  test_solo },
};
#endif

int main(void)
{
	return TAP_RUN(tests);
}
