// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Host unit tests of the NIC's target side: the MDD, MRT, NTT and CQ
 * registers as a driver programs them through the NIC window, address
 * translation, PUT, GET, AMO and CQWRITE requests executed at the target,
 * their error responses, and completion-queue events.
 *
 * Requests are crafted here and injected at a source NIC with
 * gemini_router_inject(); they travel through real routers and links
 * (cabled in memory, routed with the firmware's tables, as test_fabric.c
 * does) to the target, whose node memory is a fake.  Responses come back
 * to the source, where no source engine waits for them yet: the
 * stale_rsp hook shows them to the test.  Prints TAP; run under ASan and
 * UBSan.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemini_core.h"
#include "routes.h"
#include "tap.h"

#include "nic_harness.h"

/* --- requests ----------------------------------------------------------- */

static struct gemini_pkt request(unsigned int type, uint32_t src, uint32_t dst,
				 unsigned int ptag, unsigned int mdh,
				 uint64_t addr, unsigned int len)
{
	static uint16_t next_tag;
	struct gemini_pkt p = {
		.vc = GEMINI_VC_REQ,
		.type = (uint8_t)type,
		.src = (uint16_t)src,
		.dst = (uint16_t)dst,
		.ptag = (uint8_t)ptag,
		.mdh = (uint16_t)mdh,
		.addr = addr,
		.len = (uint8_t)len,
	};

	p.tag = next_tag++ & GEMINI_PKT_TAG_MAX;
	return p;
}

static struct gemini_pkt amo(uint32_t src, uint32_t dst, unsigned int mdh,
			     uint64_t addr, unsigned int op, bool fetch,
			     uint64_t op1, uint64_t op2)
{
	struct gemini_pkt p = request(GEMINI_PKT_AMO, src, dst, PTAG, mdh,
				      addr, GEMINI_AMO_LEN(op));

	p.amo_op = (uint8_t)op;
	p.flags = fetch ? GEMINI_PKT_F_FETCH : 0;
	le64(p.data, op1);
	if (p.len == 16)
		le64(p.data + 8, op2);
	return p;
}

/*
 * Send @req from its source, let the fabric settle, and return the one
 * response that came back to the source (type 0 if none or several).
 */
static struct gemini_pkt transact(struct fabric *f, const struct gemini_pkt *req)
{
	struct node *src = &f->node[req->src];
	struct gemini_pkt none = { 0 };
	unsigned int before = src->nrsp;

	CHECK_EQ(gemini_router_inject(nic_of(f, req->src), req), 0);
	run(f);
	if (src->nrsp != before + 1 || src->nrsp > RSP_LOG) {
		printf("#   %u responses to one request\n", src->nrsp - before);
		failures_in_test++;
		src->nrsp = 0;
		return none;
	}
	CHECK_EQ(src->rsp[before].tag, req->tag);
	CHECK_EQ(src->rsp[before].dst, req->src);
	if (src->nrsp >= RSP_LOG / 2)
		src->nrsp = 0;
	return src->rsp[before];
}

/* Expect an ERR with @status, 3 phits. */
#define CHECK_ERR(rsp, st)						\
	do {								\
		const struct gemini_pkt *rsp_ = &(rsp);			\
									\
		CHECK_EQ(rsp_->type, GEMINI_PKT_ERR);			\
		CHECK_EQ(rsp_->status, (st));				\
		CHECK_EQ(gemini_pkt_phits(rsp_), GEMINI_ERR_PHITS);	\
	} while (0)

#define CHECK_ACK(rsp)							\
	do {								\
		const struct gemini_pkt *rsp_ = &(rsp);			\
									\
		CHECK_EQ(rsp_->type, GEMINI_PKT_ACK);			\
		CHECK_EQ(gemini_pkt_phits(rsp_), GEMINI_ACK_PHITS);	\
	} while (0)

/* --- tests -------------------------------------------------------------- */

static void test_layouts(void)
{
	unsigned int code;

	/* Each mask is exactly its fields. */
	CHECK_EQ(GEMINI_MDD_QW1_MASK,
		 GEMINI_MDD_PTAG_MASK << GEMINI_MDD_PTAG_SHIFT |
		 GEMINI_MDD_MEM_BASE_MASK << GEMINI_MDD_MEM_BASE_SHIFT |
		 GEMINI_MDD_MRT_ENABLE);
	CHECK_EQ(GEMINI_MDD_QW2_MASK,
		 (uint64_t)GEMINI_MDD_MODES_DEFINED << GEMINI_MDD_MODES_SHIFT |
		 GEMINI_MDD_MAX_BASE_MASK << GEMINI_MDD_MAX_BASE_SHIFT |
		 GEMINI_MDD_CQH_MASK << GEMINI_MDD_CQH_SHIFT);
	CHECK_EQ(GEMINI_MDD_QW1(0xff, ~0ull, 1), GEMINI_MDD_QW1_MASK);
	CHECK_EQ(GEMINI_MDD_QW2(~0u, ~0ull, ~0u), GEMINI_MDD_QW2_MASK);
	CHECK_EQ(GEMINI_MDD_QW1(5, 0x123456789000ull, 0), 0x123456789005ull);
	CHECK_EQ(GEMINI_MMR_MDD_ENTRY(4095) + GEMINI_MDD_BYTES,
		 GEMINI_MMR_MRT_PAGE_SIZE - 0x400);
	CHECK_EQ(GEMINI_MMR_MRT_ENTRY(GEMINI_NUM_MRT), GEMINI_MMR_MDD);
	CHECK_EQ(GEMINI_NTT_ENTRY_MASK,
		 GEMINI_NTT_PE_MASK << GEMINI_NTT_PE0_SHIFT |
		 GEMINI_NTT_PE_MASK << GEMINI_NTT_PE1_SHIFT |
		 GEMINI_NTT_CHECK_MASK << GEMINI_NTT_CHECK_SHIFT |
		 GEMINI_NTT_WR_CHECKBITS);
	CHECK_EQ(GEMINI_MMR_NTT_ENTRY(1, 0), GEMINI_MMR_NTT1);
	CHECK_EQ(GEMINI_MMR_NTT_ENTRY(0, GEMINI_NTT_BANK_ENTRIES),
		 GEMINI_MMR_NTT0 + GEMINI_NTT_WRITE_BOTH);
	CHECK_EQ(GEMINI_CQ_QW1_MASK,
		 GEMINI_CQ_INDEX_MASK << GEMINI_CQ_RD_INDEX_SHIFT |
		 GEMINI_CQ_INDEX_MASK << GEMINI_CQ_WR_INDEX_SHIFT);
	CHECK_EQ(GEMINI_CQ_QW2_MASK,
		 GEMINI_CQ_INDEX_MASK << GEMINI_CQ_MAX_INDEX_SHIFT |
		 GEMINI_CQ_IRQ_THRESH_MASK << GEMINI_CQ_IRQ_THRESH_SHIFT |
		 GEMINI_CQ_IRQ_INDEX_MASK << GEMINI_CQ_IRQ_INDEX_SHIFT |
		 GEMINI_CQ_ENABLE);
	CHECK_EQ(GEMINI_CQ_QW3_MASK, GEMINI_CQ_BASE_MASK | GEMINI_CQ_IRQ_REQ);
	CHECK_EQ(GEMINI_CQ_USER_PAGE(GEMINI_NUM_CQ), GEMINI_FMA_USER_ALIAS);
	CHECK_EQ(GEMINI_MMR_CQ_DESC_ENTRY(GEMINI_NUM_CQ),
		 GEMINI_MMR_CQ_DESC + 0x8000);
	CHECK_EQ(GEMINI_IRQ_FIRST_CQ, 29);
	CHECK_EQ(GEMINI_IRQ_VECTOR(GEMINI_IRQ_FIRST_CQ), 8);

	/* MRT entries and page sizes (spec §7.2). */
	CHECK_EQ(GEMINI_MRT_ENCODE(0x7fffe0000ull), 0xffffd);
	CHECK_EQ(GEMINI_MRT_DECODE(0xffffdu), 0x7fffe0000ull);
	CHECK_EQ(GEMINI_MRT_ENCODE(0x20000ull), 0x5);
	CHECK_EQ(GEMINI_MRT_DECODE(GEMINI_MRT_ENCODE(0x7fffffe0000ull)),
		 0x7fffffe0000ull);
	for (code = 0; code < 8; code++) {
		static const unsigned int shift[8] = {
			17, 19, 21, 23, 24, 26, 28, 30,
		};

		CHECK_EQ(GEMINI_MRT_PAGE_SHIFT(code), shift[code]);
	}

	/* CQ entries (spec §8.2). */
	CHECK_EQ(GEMINI_CQE(GEMINI_CQE_SRC_RMT_SREQ, GEMINI_STATUS_BOUNDS,
			    0xffabcdef01234567ull),
		 0x4dabcdef01234567ull);
	CHECK_EQ(GEMINI_CQE(7, 15, ~0ull) | GEMINI_CQE_OVERRUN, ~0ull);
}

static void test_registers(void)
{
	struct node *nd = solo_new(GEMINI_NUM_IRQ);
	struct gemini_nic *nic = &nd->nic;
	const uint64_t cq7 = GEMINI_MMR_CQ_DESC_ENTRY(7);
	uint64_t v, off;
	unsigned int i;

	/* MDD: what was written, unused bits clear; two halves make one. */
	win_wr(nic, GEMINI_MMR_MDD_ENTRY(3), 8, ~0ull);
	win_wr(nic, GEMINI_MMR_MDD_ENTRY(3) + 8, 8, ~0ull);
	CHECK_EQ(win_rd(nic, GEMINI_MMR_MDD_ENTRY(3), 8), GEMINI_MDD_QW1_MASK);
	CHECK_EQ(win_rd(nic, GEMINI_MMR_MDD_ENTRY(3) + 8, 8),
		 GEMINI_MDD_QW2_MASK);
	win_wr(nic, GEMINI_MMR_MDD_ENTRY(4095), 4, 0x12345678);
	win_wr(nic, GEMINI_MMR_MDD_ENTRY(4095) + 4, 4, 0x9abcdef0);
	CHECK_EQ(win_rd(nic, GEMINI_MMR_MDD_ENTRY(4095), 8),
		 0x9abcdef012345678ull & GEMINI_MDD_QW1_MASK);
	CHECK_EQ(win_rd(nic, GEMINI_MMR_MDD_ENTRY(4095) + 4, 4),
		 (0x9abcdef012345678ull & GEMINI_MDD_QW1_MASK) >> 32);
	CHECK_EQ(win_rd(nic, GEMINI_MMR_MDD_ENTRY(0), 8), 0);

	/* MRT: 4-byte entries, two per qword, bit 1 unused. */
	win_wr(nic, GEMINI_MMR_MRT_ENTRY(10), 4, 0xffffffff);
	CHECK_EQ(win_rd(nic, GEMINI_MMR_MRT_ENTRY(10), 4), 0xfffffffd);
	CHECK_EQ(win_rd(nic, GEMINI_MMR_MRT_ENTRY(10), 8), 0xfffffffd);
	win_wr(nic, GEMINI_MMR_MRT_ENTRY(16382), 8, 0x0000000300000005ull);
	CHECK_EQ(win_rd(nic, GEMINI_MMR_MRT_ENTRY(16382), 4), 5);
	CHECK_EQ(win_rd(nic, GEMINI_MMR_MRT_ENTRY(16383), 4), 1);
	CHECK_EQ(nic->nat.mrt[16383], 1);
	win_wr(nic, GEMINI_MMR_MRT_PAGE_SIZE, 8, ~0ull);
	CHECK_EQ(win_rd(nic, GEMINI_MMR_MRT_PAGE_SIZE, 8), 7);
	CHECK_EQ(win_rd(nic, GEMINI_MMR_MRT_PAGE_SIZE + 4, 4), 0);

	/* NTT: two banks; the write-both alias; the config register. */
	win_wr(nic, GEMINI_MMR_NTT_ENTRY(0, 5), 8, ~0ull);
	CHECK_EQ(win_rd(nic, GEMINI_MMR_NTT_ENTRY(0, 5), 8),
		 GEMINI_NTT_ENTRY_MASK);
	CHECK_EQ(win_rd(nic, GEMINI_MMR_NTT_ENTRY(1, 5), 8), 0);
	win_wr(nic, GEMINI_MMR_NTT_ENTRY(0, 4095) + GEMINI_NTT_WRITE_BOTH, 8,
	       0x123456789ull);
	CHECK_EQ(win_rd(nic, GEMINI_MMR_NTT_ENTRY(0, 4095), 8), 0x123456789ull);
	CHECK_EQ(win_rd(nic, GEMINI_MMR_NTT_ENTRY(1, 4095), 8), 0x123456789ull);
	win_wr(nic, GEMINI_MMR_NTT_ENTRY(1, 4095) + GEMINI_NTT_WRITE_BOTH + 4,
	       4, 0x8);
	CHECK_EQ(win_rd(nic, GEMINI_MMR_NTT_ENTRY(0, 4095), 8),
		 0x823456789ull);
	CHECK_EQ(win_rd(nic, GEMINI_MMR_NTT_ENTRY(1, 4095) +
			GEMINI_NTT_WRITE_BOTH, 8), 0x823456789ull);
	win_wr(nic, GEMINI_MMR_NTT_CONFIG, 8, ~0ull);
	CHECK_EQ(win_rd(nic, GEMINI_MMR_NTT_CONFIG, 8), GEMINI_NTT_CFG_MASK);

	/* CQ descriptor: masks, the empty fourth qword. */
	for (i = 0; i < 3; i++)
		win_wr(nic, cq7 + 8 * i, 8, ~0ull);
	CHECK_EQ(win_rd(nic, cq7, 8), GEMINI_CQ_QW1_MASK);
	CHECK_EQ(win_rd(nic, cq7 + 8, 8), GEMINI_CQ_QW2_MASK);
	CHECK_EQ(win_rd(nic, cq7 + 16, 8), GEMINI_CQ_QW3_MASK);
	CHECK_EQ(gemini_window_read(nic, cq7 + 24, 8, &v),
		 GEMINI_ACCESS_UNKNOWN);
	CHECK_EQ(v, 0);
	CHECK_EQ(gemini_window_write(nic, cq7 + 28, 4, 1),
		 GEMINI_ACCESS_UNKNOWN);
	/* 4-byte halves of QW1: rd_index, wr_index. */
	win_wr(nic, cq7, 4, 0x22);
	win_wr(nic, cq7 + 4, 4, 0x33);
	CHECK_EQ(win_rd(nic, cq7, 8), 0x0000003300000022ull);

	/* The user page: reads QW1, writes rd_index, wr_index read-only. */
	CHECK_EQ(win_rd(nic, GEMINI_CQ_USER_PAGE(7), 8), 0x0000003300000022ull);
	CHECK_EQ(win_rd(nic, GEMINI_CQ_USER_PAGE(7), 4), 0x22);
	CHECK_EQ(win_rd(nic, GEMINI_CQ_USER_PAGE(7) + 4, 4), 0x33);
	win_wr(nic, GEMINI_CQ_USER_PAGE(7), 8, 0xffffffffffffff05ull);
	CHECK_EQ(win_rd(nic, cq7, 8), 0x000000331fffff05ull);
	win_wr(nic, GEMINI_CQ_USER_PAGE(7), 4, 6);
	CHECK_EQ(win_rd(nic, cq7, 8), 0x0000003300000006ull);
	CHECK_EQ(gemini_window_write(nic, GEMINI_CQ_USER_PAGE(7) + 4, 4, 9),
		 GEMINI_ACCESS_READ_ONLY);
	CHECK_EQ(gemini_window_read(nic, GEMINI_CQ_USER_PAGE(7) + 8, 8, &v),
		 GEMINI_ACCESS_UNKNOWN);
	CHECK_EQ(gemini_window_write(nic, GEMINI_CQ_USER_PAGE(1023) + 0xff8,
				     8, 1), GEMINI_ACCESS_UNKNOWN);
	CHECK_EQ(win_rd(nic, cq7, 8), 0x0000003300000006ull);
	win_wr(nic, GEMINI_CQ_USER_PAGE(1023), 8, 1);
	CHECK_EQ(win_rd(nic, GEMINI_MMR_CQ_DESC_ENTRY(1023), 8), 1);

	/* Offsets next to the tables hold nothing; bad sizes are refused. */
	{
		static const uint64_t none[] = {
			GEMINI_MMR_MRT - 8, GEMINI_MMR_MRT_PAGE_SIZE - 8,
			GEMINI_MMR_MRT_PAGE_SIZE + 8,
			GEMINI_MMR_NTT0 - 8, GEMINI_MMR_NL_PARAMS,
			GEMINI_MMR_NTT_CONFIG + 8, GEMINI_MMR_CQ_DESC - 8,
			GEMINI_MMR_CQ_DESC_ENTRY(GEMINI_NUM_CQ),
			GEMINI_CQ_USER_ALIAS - 8,
			/* the FMA user alias follows the CQ pages at once */
			GEMINI_FMA_USER_PAGE(GEMINI_FMA_NUM_DESC),
		};

		for (i = 0; i < sizeof(none) / sizeof(none[0]); i++) {
			CHECK_EQ(gemini_window_read(nic, none[i], 8, &v),
				 GEMINI_ACCESS_UNKNOWN);
			CHECK_EQ(v, 0);
			CHECK_EQ(gemini_window_write(nic, none[i], 8, ~0ull),
				 GEMINI_ACCESS_UNKNOWN);
		}
	}
	CHECK_EQ(gemini_window_write(nic, GEMINI_MMR_MDD_ENTRY(1) + 4, 8, 1),
		 GEMINI_ACCESS_BAD_SIZE);
	CHECK_EQ(gemini_window_write(nic, GEMINI_MMR_MDD_ENTRY(1), 2, 1),
		 GEMINI_ACCESS_BAD_SIZE);
	CHECK_EQ(gemini_window_read(nic, GEMINI_MMR_CQ_DESC + 2, 4, &v),
		 GEMINI_ACCESS_BAD_SIZE);
	CHECK_EQ(win_rd(nic, GEMINI_MMR_MDD_ENTRY(1), 8), 0);
	CHECK_EQ(win_rd(nic, GEMINI_MMR_NL_NODE_ID, 8), 0);

	/* Device reset clears every table. */
	gemini_nic_reset(nic);
	for (off = GEMINI_MMR_MRT; off < GEMINI_MMR_MRT_PAGE_SIZE + 8;
	     off += 8) {
		if (off >= GEMINI_MMR_MDD + GEMINI_NUM_MDD * GEMINI_MDD_BYTES &&
		    off < GEMINI_MMR_MRT_PAGE_SIZE)
			continue;
		if (win_rd(nic, off, 8)) {
			printf("#   0x%llx not clear after reset\n",
			       (unsigned long long)off);
			failures_in_test++;
			break;
		}
	}
	CHECK_EQ(win_rd(nic, GEMINI_MMR_NTT_ENTRY(1, 4095), 8), 0);
	CHECK_EQ(win_rd(nic, GEMINI_MMR_NTT_CONFIG, 8), 0);
	CHECK_EQ(win_rd(nic, cq7, 8), 0);
	CHECK_EQ(win_rd(nic, cq7 + 8, 8), 0);
	CHECK_EQ(win_rd(nic, GEMINI_MMR_CQ_DESC_ENTRY(1023), 8), 0);
	CHECK_EQ(nd->guest_errors, 0);
	solo_free(nd);
}

/* B's plain domain: 64 KiB of node memory at MEM_BASE + 0x10000. */
#define DOM		(MEM_BASE + 0x10000)
#define DOM_SIZE	0x10000u
#define MDH_RW		5
#define MDH_RO		6

static void test_put(void)
{
	struct fabric *f = fab_new(2, 1, 1);
	struct node *b = &f->node[1];
	uint8_t *shadow = malloc(MEM_SIZE);
	unsigned int len, i;

	if (!shadow)
		abort();
	mdd_set(nic_of(f, 1), MDH_RW, PTAG, DOM, DOM + DOM_SIZE - 1, false,
		RW, 0);
	memcpy(shadow, b->mem, MEM_SIZE);
	for (len = 1; len <= GEMINI_PKT_MAX_DATA; len++) {
		/* Every alignment, and the very end of the domain. */
		uint64_t off = len == GEMINI_PKT_MAX_DATA ? DOM_SIZE - len :
			       (len * 37) % 512 + len % 8;
		struct gemini_pkt req = request(GEMINI_PKT_PUT, 0, 1, PTAG,
						MDH_RW, off, len);
		struct gemini_pkt rsp;

		for (i = 0; i < len; i++)
			req.data[i] = (uint8_t)(len * 13 + i * 7 + 1);
		memcpy(shadow + (DOM - MEM_BASE) + off, req.data, len);
		rsp = transact(f, &req);
		CHECK_ACK(rsp);
		if (memcmp(shadow, b->mem, MEM_SIZE)) {
			printf("#   PUT of %u bytes at 0x%llx: memory differs\n",
			       len, (unsigned long long)off);
			failures_in_test++;
		}
	}
	CHECK_EQ(nic_of(f, 1)->rmt.req_done, GEMINI_PKT_MAX_DATA);
	CHECK_EQ(nic_of(f, 1)->rmt.req_refused, 0);
	CHECK_EQ(nic_of(f, 1)->nic_ctr[VGEMINI_NC_REQ_PKTS_IN],
		 GEMINI_PKT_MAX_DATA);
	CHECK_EQ(nic_of(f, 0)->nic_ctr[VGEMINI_NC_STALE_RSP],
		 GEMINI_PKT_MAX_DATA);
	CHECK_EQ(b->guest_errors, 0);
	free(shadow);
	fab_free(f);
}

static void test_get(void)
{
	struct fabric *f = fab_new(2, 1, 1);
	struct node *b = &f->node[1];
	uint8_t *snap = malloc(MEM_SIZE);
	unsigned int len, i;

	if (!snap)
		abort();
	for (i = 0; i < MEM_SIZE; i++)
		b->mem[i] = (uint8_t)(i * 31 + (i >> 8));
	memcpy(snap, b->mem, MEM_SIZE);
	mdd_set(nic_of(f, 1), MDH_RO, PTAG, DOM, DOM + DOM_SIZE - 1, false,
		RO, 0);
	for (len = 1; len <= GEMINI_PKT_MAX_DATA; len++) {
		uint64_t off = len == 1 ? DOM_SIZE - 1 : (len * 101) % 4000 + 3;
		struct gemini_pkt req = request(GEMINI_PKT_GET, 0, 1, PTAG,
						MDH_RO, off, len);
		struct gemini_pkt rsp = transact(f, &req);

		CHECK_EQ(rsp.type, GEMINI_PKT_DATA);
		CHECK_EQ(rsp.status, 0);
		CHECK_EQ(rsp.len, len);
		CHECK_EQ(gemini_pkt_phits(&rsp), GEMINI_RSP_PHITS(len));
		CHECK(!memcmp(rsp.data, b->mem + (DOM - MEM_BASE) + off, len));
	}
	CHECK(!memcmp(snap, b->mem, MEM_SIZE));
	/* From node B to itself, through its own router. */
	{
		struct gemini_pkt req = request(GEMINI_PKT_GET, 1, 1, PTAG,
						MDH_RO, 8, 16);
		struct gemini_pkt rsp = transact(f, &req);

		CHECK_EQ(rsp.type, GEMINI_PKT_DATA);
		CHECK(!memcmp(rsp.data, b->mem + (DOM - MEM_BASE) + 8, 16));
	}
	free(snap);
	fab_free(f);
}

/*
 * MRT translation: 128 KiB pages, a domain over MRT entries 3 and 4 that
 * starts 8 KiB into entry 3; entry 3 maps the 14th physical page of B's
 * memory, entry 4 the 3rd.
 */
#define PG		0x20000ull
#define MDH_MRT		9
#define MRT_DOM		(3 * PG + 0x2000)

static void test_mrt(void)
{
	struct fabric *f = fab_new(2, 1, 1);
	struct gemini_nic *nb = nic_of(f, 1);
	struct node *b = &f->node[1];
	uint8_t *shadow = malloc(MEM_SIZE);
	struct gemini_pkt req, rsp;
	uint64_t off;
	unsigned int i;

	if (!shadow)
		abort();
	win_wr(nb, GEMINI_MMR_MRT_PAGE_SIZE, 8, GEMINI_MRT_PS_128K);
	win_wr(nb, GEMINI_MMR_MRT_ENTRY(3), 4,
	       GEMINI_MRT_ENCODE(MEM_BASE + 13 * PG));
	win_wr(nb, GEMINI_MMR_MRT_ENTRY(4), 4,
	       GEMINI_MRT_ENCODE(MEM_BASE + 2 * PG));
	mdd_set(nb, MDH_MRT, PTAG, MRT_DOM, 5 * PG - 1, true, RW, 0);
	memcpy(shadow, b->mem, MEM_SIZE);

	/* 20 bytes at the end of entry 3's page, 44 at the start of 4's. */
	off = PG - 0x2000 - 20;
	req = request(GEMINI_PKT_PUT, 0, 1, PTAG, MDH_MRT, off, 64);
	for (i = 0; i < 64; i++)
		req.data[i] = (uint8_t)(0xa0 + i);
	memcpy(shadow + 14 * PG - 20, req.data, 20);
	memcpy(shadow + 2 * PG, req.data + 20, 44);
	rsp = transact(f, &req);
	CHECK_ACK(rsp);
	CHECK(!memcmp(shadow, b->mem, MEM_SIZE));
	req = request(GEMINI_PKT_GET, 0, 1, PTAG, MDH_MRT, off, 64);
	rsp = transact(f, &req);
	CHECK_EQ(rsp.type, GEMINI_PKT_DATA);
	for (i = 0; i < 64; i++)
		CHECK_EQ(rsp.data[i], 0xa0 + i);
	/* Offset 0 of the domain is 8 KiB into the page of entry 3. */
	req = request(GEMINI_PKT_PUT, 0, 1, PTAG, MDH_MRT, 0, 4);
	memcpy(req.data, "\x11\x22\x33\x44", 4);
	memcpy(shadow + 13 * PG + 0x2000, req.data, 4);
	rsp = transact(f, &req);
	CHECK_ACK(rsp);
	CHECK(!memcmp(shadow, b->mem, MEM_SIZE));

	/* The domain ends with entry 4's page. */
	req = request(GEMINI_PKT_PUT, 0, 1, PTAG, MDH_MRT, 2 * PG - 0x2000 - 8,
		      9);
	rsp = transact(f, &req);
	CHECK_ERR(rsp, GEMINI_STATUS_BOUNDS);

	/* Entry 4 invalid: the whole PUT is refused, page 3's part too. */
	win_wr(nb, GEMINI_MMR_MRT_ENTRY(4), 4, 0);
	req = request(GEMINI_PKT_PUT, 0, 1, PTAG, MDH_MRT, off, 64);
	memset(req.data, 0xee, 64);
	rsp = transact(f, &req);
	CHECK_ERR(rsp, GEMINI_STATUS_TRANSLATION);
	req = request(GEMINI_PKT_GET, 0, 1, PTAG, MDH_MRT, off + 20, 1);
	rsp = transact(f, &req);
	CHECK_ERR(rsp, GEMINI_STATUS_TRANSLATION);
	CHECK(!memcmp(shadow, b->mem, MEM_SIZE));

	/* A domain past the table's last entry: a translation error. */
	mdd_set(nb, MDH_MRT + 1, PTAG, (GEMINI_NUM_MRT - 1) * PG,
		(GEMINI_NUM_MRT + 1) * PG - 1, true, RW, 0);
	win_wr(nb, GEMINI_MMR_MRT_ENTRY(GEMINI_NUM_MRT - 1), 4,
	       GEMINI_MRT_ENCODE(MEM_BASE));
	req = request(GEMINI_PKT_PUT, 0, 1, PTAG, MDH_MRT + 1, PG - 4, 8);
	rsp = transact(f, &req);
	CHECK_ERR(rsp, GEMINI_STATUS_TRANSLATION);
	req = request(GEMINI_PKT_PUT, 0, 1, PTAG, MDH_MRT + 1, PG - 8, 8);
	memset(req.data, 0x5a, 8);
	memset(shadow + PG - 8, 0x5a, 8);
	rsp = transact(f, &req);
	CHECK_ACK(rsp);
	CHECK(!memcmp(shadow, b->mem, MEM_SIZE));

	/*
	 * 2 MiB pages: entry 1 maps all of B's memory; its bits below the
	 * page size are ignored.
	 */
	win_wr(nb, GEMINI_MMR_MRT_PAGE_SIZE, 4, GEMINI_MRT_PS_2M);
	win_wr(nb, GEMINI_MMR_MRT_ENTRY(1), 4,
	       GEMINI_MRT_ENCODE(MEM_BASE + 0x60000));
	mdd_set(nb, MDH_MRT + 2, PTAG, (1ull << 21) + 0x3000,
		(2ull << 21) - 1, true, RW, 0);
	req = request(GEMINI_PKT_PUT, 0, 1, PTAG, MDH_MRT + 2, 0x100, 3);
	memcpy(req.data, "\x01\x02\x03", 3);
	memcpy(shadow + 0x3100, req.data, 3);
	rsp = transact(f, &req);
	CHECK_ACK(rsp);
	CHECK(!memcmp(shadow, b->mem, MEM_SIZE));
	CHECK_EQ(b->guest_errors, 0);
	free(shadow);
	fab_free(f);
}

/*
 * GART translation: a table of 8 entries at GART_TAB in B's memory; a
 * domain over entries 2 and 3, which map two pages far apart, the second
 * below the first.
 */
#define GART_TAB	(MEM_BASE + 0x100000)
#define GART_PG2	(MEM_BASE + 0x50000)
#define GART_PG3	(MEM_BASE + 0x23000)
#define MDH_GART	12

static void gart_ctl(struct gemini_nic *nic, uint64_t base, uint32_t n)
{
	CHECK_EQ(gemini_ctl_write(nic, VGEMINI_CTL_GART_BASE, 8, base),
		 GEMINI_ACCESS_OK);
	CHECK_EQ(gemini_ctl_write(nic, VGEMINI_CTL_GART_ENTRIES, 4, n),
		 GEMINI_ACCESS_OK);
}

static uint64_t ctl_rd(struct gemini_nic *nic, uint64_t off, unsigned int size)
{
	uint64_t v;

	CHECK_EQ(gemini_ctl_read(nic, off, size, &v), GEMINI_ACCESS_OK);
	return v;
}

static void test_gart(void)
{
	struct fabric *f = fab_new(2, 1, 1);
	struct gemini_nic *nb = nic_of(f, 1);
	struct node *b = &f->node[1];
	uint8_t *shadow = malloc(MEM_SIZE);
	struct gemini_pkt req, rsp;
	uint64_t off = VGEMINI_GART_PAGE_SIZE - 20;
	unsigned int i, errs;

	if (!shadow)
		abort();
	/* The registers: low bits of the base dropped, entries capped. */
	CHECK_EQ(ctl_rd(nb, VGEMINI_CTL_GART_BASE, 8), 0);
	CHECK_EQ(ctl_rd(nb, VGEMINI_CTL_GART_ENTRIES, 4), 0);
	gart_ctl(nb, ~0ull, 0);
	CHECK_EQ(ctl_rd(nb, VGEMINI_CTL_GART_BASE, 8), VGEMINI_GART_BASE_MASK);
	CHECK_EQ(ctl_rd(nb, VGEMINI_CTL_GART_BASE + 4, 4),
		 VGEMINI_GART_BASE_MASK >> 32);
	errs = b->guest_errors;
	CHECK_EQ(gemini_ctl_write(nb, VGEMINI_CTL_GART_ENTRIES, 4,
				  VGEMINI_GART_MAX_ENTRIES + 1),
		 GEMINI_ACCESS_OK);
	CHECK_EQ(ctl_rd(nb, VGEMINI_CTL_GART_ENTRIES, 4),
		 VGEMINI_GART_MAX_ENTRIES);
	CHECK_EQ(b->guest_errors, errs + 1);
	gemini_nic_reset(nb);
	CHECK_EQ(ctl_rd(nb, VGEMINI_CTL_GART_BASE, 8), 0);
	CHECK_EQ(ctl_rd(nb, VGEMINI_CTL_GART_ENTRIES, 4), 0);
	CHECK_EQ(gemini_ctl_write(nb, VGEMINI_CTL_GART_BASE, 4,
				  (uint32_t)GART_TAB | 0xabc),
		 GEMINI_ACCESS_OK);
	CHECK_EQ(gemini_ctl_write(nb, VGEMINI_CTL_GART_BASE + 4, 4, 0),
		 GEMINI_ACCESS_OK);
	CHECK_EQ(ctl_rd(nb, VGEMINI_CTL_GART_BASE, 8), GART_TAB);
	gart_ctl(nb, GART_TAB, 8);
	CHECK_EQ(ctl_rd(nb, VGEMINI_CTL_GART_ENTRIES, 4), 8);

	/* Entry bits other than the address and VALID are ignored. */
	mem_set64(b, GART_TAB + 2 * 8, VGEMINI_GART_ENTRY(GART_PG2) |
		  0xfff0000000000ffeull);
	mem_set64(b, GART_TAB + 3 * 8, VGEMINI_GART_ENTRY(GART_PG3));
	mdd_set(nb, MDH_GART, PTAG, VGEMINI_GART_ADDR(2),
		VGEMINI_GART_ADDR(4) - 1, false, RW, 0);
	memcpy(shadow, b->mem, MEM_SIZE);

	/* 20 bytes at the end of entry 2's page, 44 at the start of 3's. */
	req = request(GEMINI_PKT_PUT, 0, 1, PTAG, MDH_GART, off, 64);
	for (i = 0; i < 64; i++)
		req.data[i] = (uint8_t)(0x30 + i);
	memcpy(shadow + (GART_PG2 - MEM_BASE) + off, req.data, 20);
	memcpy(shadow + (GART_PG3 - MEM_BASE), req.data + 20, 44);
	rsp = transact(f, &req);
	CHECK_ACK(rsp);
	CHECK(!memcmp(shadow, b->mem, MEM_SIZE));
	req = request(GEMINI_PKT_GET, 0, 1, PTAG, MDH_GART, off, 64);
	rsp = transact(f, &req);
	CHECK_EQ(rsp.type, GEMINI_PKT_DATA);
	for (i = 0; i < 64; i++)
		CHECK_EQ(rsp.data[i], 0x30 + i);
	/* An AMO in the second page. */
	req = amo(0, 1, MDH_GART, VGEMINI_GART_PAGE_SIZE + 0x100,
		  GEMINI_AMO_ADD, true, 5, 0);
	rsp = transact(f, &req);
	CHECK_EQ(rsp.type, GEMINI_PKT_DATA);
	CHECK_EQ(mem_le64(b, GART_PG3 + 0x100), 5);
	mem_set64(b, GART_PG3 + 0x100, 0);
	/* The domain ends with entry 3's page. */
	req = request(GEMINI_PKT_PUT, 0, 1, PTAG, MDH_GART,
		      2 * VGEMINI_GART_PAGE_SIZE - 4, 8);
	rsp = transact(f, &req);
	CHECK_ERR(rsp, GEMINI_STATUS_BOUNDS);

	/* Entry 3 not valid: the whole PUT is refused, page 2's part too. */
	mem_set64(b, GART_TAB + 3 * 8, GART_PG3);
	memcpy(shadow, b->mem, MEM_SIZE);
	req = request(GEMINI_PKT_PUT, 0, 1, PTAG, MDH_GART, off, 64);
	memset(req.data, 0xee, 64);
	rsp = transact(f, &req);
	CHECK_ERR(rsp, GEMINI_STATUS_TRANSLATION);
	req = request(GEMINI_PKT_GET, 0, 1, PTAG, MDH_GART,
		      VGEMINI_GART_PAGE_SIZE, 4);
	rsp = transact(f, &req);
	CHECK_ERR(rsp, GEMINI_STATUS_TRANSLATION);
	CHECK(!memcmp(shadow, b->mem, MEM_SIZE));

	/* Entry 3 valid again but past GART_ENTRIES. */
	mem_set64(b, GART_TAB + 3 * 8, VGEMINI_GART_ENTRY(GART_PG3));
	memcpy(shadow, b->mem, MEM_SIZE);
	gart_ctl(nb, GART_TAB, 3);
	req = request(GEMINI_PKT_PUT, 0, 1, PTAG, MDH_GART, off, 64);
	memset(req.data, 0xdd, 64);
	rsp = transact(f, &req);
	CHECK_ERR(rsp, GEMINI_STATUS_TRANSLATION);
	CHECK(!memcmp(shadow, b->mem, MEM_SIZE));
	req = request(GEMINI_PKT_PUT, 0, 1, PTAG, MDH_GART, 0, 4);
	memcpy(req.data, "gart", 4);
	memcpy(shadow + (GART_PG2 - MEM_BASE), "gart", 4);
	rsp = transact(f, &req);
	CHECK_ACK(rsp);
	CHECK(!memcmp(shadow, b->mem, MEM_SIZE));

	/* GART off; a table where the bus refuses to read. */
	gart_ctl(nb, GART_TAB, 0);
	req = request(GEMINI_PKT_GET, 0, 1, PTAG, MDH_GART, 0, 4);
	rsp = transact(f, &req);
	CHECK_ERR(rsp, GEMINI_STATUS_TRANSLATION);
	gart_ctl(nb, 0x40000000, 8);
	rsp = transact(f, &req);
	CHECK_ERR(rsp, GEMINI_STATUS_TRANSLATION);
	gart_ctl(nb, GART_TAB, 8);
	rsp = transact(f, &req);
	CHECK_EQ(rsp.type, GEMINI_PKT_DATA);
	CHECK(!memcmp(rsp.data, "gart", 4));

	/*
	 * The last entry of a full-size table, at the top of the aperture:
	 * its domain address fits the MDD, and its entry, read past B's
	 * memory, is refused by the bus.
	 */
	mdd_set(nb, MDH_GART + 1, PTAG,
		VGEMINI_GART_ADDR(VGEMINI_GART_MAX_ENTRIES - 1),
		VGEMINI_GART_ADDR(VGEMINI_GART_MAX_ENTRIES) - 1, false, RW, 0);
	gart_ctl(nb, GART_TAB, VGEMINI_GART_MAX_ENTRIES);
	req = request(GEMINI_PKT_PUT, 0, 1, PTAG, MDH_GART + 1, 0xff8, 8);
	rsp = transact(f, &req);
	CHECK_ERR(rsp, GEMINI_STATUS_TRANSLATION);
	CHECK(!memcmp(shadow, b->mem, MEM_SIZE));
	CHECK_EQ(b->guest_errors, errs + 1);
	free(shadow);
	fab_free(f);
}

#define WORD		(DOM + 0x100)		/* 16-byte aligned */

static void test_amo(void)
{
	static const struct {
		unsigned int op;
		uint64_t old, op1, op2, result;
	} cases[] = {
		{ GEMINI_AMO_ADD, 0xfffffffffffffffeull, 3, 0, 1 },
		{ GEMINI_AMO_ADD, 100, 0x8000000000000000ull, 0,
		  0x8000000000000064ull },
		{ GEMINI_AMO_AND, 0xff00ff00ff00ff00ull, 0x0ff00ff00ff00ff0ull,
		  0, 0x0f000f000f000f00ull },
		{ GEMINI_AMO_OR, 0xff00000000000001ull, 0x00f0000000000010ull,
		  0, 0xfff0000000000011ull },
		{ GEMINI_AMO_XOR, 0xaaaaaaaaaaaaaaaaull, 0xffffffff00000000ull,
		  0, 0x55555555aaaaaaaaull },
		{ GEMINI_AMO_AX, 0x1234567890abcdefull, 0xffff0000ffff0000ull,
		  0x00000000000000ffull, 0x1234000090ab00ffull },
		{ GEMINI_AMO_CSWAP, 42, 42, 0xdeadbeefcafef00dull,
		  0xdeadbeefcafef00dull },		/* matches: swapped */
		{ GEMINI_AMO_CSWAP, 43, 42, 0xdeadbeefcafef00dull, 43 },
	};
	struct fabric *f = fab_new(2, 1, 1);
	struct node *b = &f->node[1];
	uint8_t *shadow = malloc(MEM_SIZE);
	unsigned int i, fetch;

	if (!shadow)
		abort();
	mdd_set(nic_of(f, 1), MDH_RW, PTAG, DOM, DOM + DOM_SIZE - 1, false,
		RW, 0);
	memset(b->mem, 0x77, MEM_SIZE);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (fetch = 0; fetch < 2; fetch++) {
			struct gemini_pkt req, rsp;

			if (cases[i].op == GEMINI_AMO_CSWAP && !fetch)
				continue;	/* always fetches */
			mem_set64(b, WORD, cases[i].old);
			memcpy(shadow, b->mem, MEM_SIZE);
			le64(shadow + (WORD - MEM_BASE), cases[i].result);
			req = amo(0, 1, MDH_RW, WORD - DOM, cases[i].op, fetch,
				  cases[i].op1, cases[i].op2);
			rsp = transact(f, &req);
			if (fetch) {
				CHECK_EQ(rsp.type, GEMINI_PKT_DATA);
				CHECK_EQ(rsp.len, 8);
				CHECK_EQ(get64(rsp.data), cases[i].old);
			} else {
				CHECK_ACK(rsp);
			}
			CHECK_EQ(mem_le64(b, WORD), cases[i].result);
			CHECK(!memcmp(shadow, b->mem, MEM_SIZE));
		}
	}
	/* Any 8-byte-aligned word for the others, from the node itself. */
	{
		struct gemini_pkt req = amo(1, 1, MDH_RW, 0x18, GEMINI_AMO_ADD,
					    true, 5, 0);
		struct gemini_pkt rsp;

		mem_set64(b, DOM + 0x18, 10);
		rsp = transact(f, &req);
		CHECK_EQ(rsp.type, GEMINI_PKT_DATA);
		CHECK_EQ(get64(rsp.data), 10);
		CHECK_EQ(mem_le64(b, DOM + 0x18), 15);
	}
	CHECK_EQ(b->guest_errors, 0);
	free(shadow);
	fab_free(f);
}

/* Every node hammers one word of node 0 with fetch-and-add 1. */
#define HAMMER_EACH	40

static void test_amo_hammer(void)
{
	struct fabric *f = fab_new(2, 2, 2);
	unsigned int sent[8] = { 0 }, total = 0, i, r;
	uint8_t seen[8 * HAMMER_EACH] = { 0 };
	uint64_t word = DOM + 0x40;

	mdd_set(nic_of(f, 0), MDH_RW, PTAG, DOM, DOM + DOM_SIZE - 1, false,
		RW, 0);
	mem_set64(&f->node[0], word, 0);
	for (i = 0; i < f->n; i++)
		f->node[i].nrsp = 0;
	for (r = 0; r < 100000 && total < f->n * HAMMER_EACH; r++) {
		total = 0;
		for (i = 0; i < f->n; i++) {
			while (sent[i] < HAMMER_EACH) {
				struct gemini_pkt req = amo(i, 0, MDH_RW,
							    word - DOM,
							    GEMINI_AMO_ADD,
							    true, 1, 0);

				if (gemini_router_inject(nic_of(f, i), &req))
					break;
				sent[i]++;
			}
			total += f->node[i].nrsp;
		}
		step(f);
	}
	run(f);
	CHECK_EQ(mem_le64(&f->node[0], word), f->n * HAMMER_EACH);
	/* The old values fetched: each of 0 .. N-1 exactly once. */
	for (i = 0; i < f->n; i++) {
		unsigned int k;

		CHECK_EQ(f->node[i].nrsp, HAMMER_EACH);
		for (k = 0; k < f->node[i].nrsp && k < RSP_LOG; k++) {
			const struct gemini_pkt *p = &f->node[i].rsp[k];
			uint64_t old = get64(p->data);

			CHECK_EQ(p->type, GEMINI_PKT_DATA);
			if (old < sizeof(seen))
				seen[old]++;
			else
				CHECK(old < sizeof(seen));
		}
	}
	for (i = 0; i < sizeof(seen); i++)
		CHECK_EQ(seen[i], 1);
	CHECK_EQ(nic_of(f, 0)->rmt.req_done, f->n * HAMMER_EACH);
	{
		char json[8192], want[64];

		gemini_counters_json(nic_of(f, 0), json, sizeof(json));
		snprintf(want, sizeof(want), "\"rmt\": {\"req_done\": %u, ",
			 f->n * HAMMER_EACH);
		CHECK(strstr(json, want));
		CHECK(strstr(json, "\"cq_lost\": 0}"));
		/* Whole: the buffer held all of it. */
		CHECK(strlen(json) < sizeof(json) - 1 &&
		      json[strlen(json) - 1] == '}');
	}
	printf("#   deliveries postponed for room to answer: %llu\n",
	       (unsigned long long)nic_of(f, 0)->rmt.req_waits);
	fab_free(f);
}

static void test_errors(void)
{
	struct fabric *f = fab_new(2, 1, 1);
	struct gemini_nic *nb = nic_of(f, 1);
	struct node *b = &f->node[1];
	uint8_t *snap = malloc(MEM_SIZE);
	struct gemini_pkt req, rsp;
	unsigned int i, guest_errors;

	if (!snap)
		abort();
	for (i = 0; i < MEM_SIZE; i++)
		b->mem[i] = (uint8_t)(i ^ (i >> 9));
	memcpy(snap, b->mem, MEM_SIZE);
	mdd_set(nb, MDH_RW, PTAG, DOM, DOM + DOM_SIZE - 1, false, RW, 0);
	mdd_set(nb, MDH_RO, PTAG, DOM, DOM + DOM_SIZE - 1, false, RO, 0);
	/* Everything but VALID. */
	mdd_set(nb, 20, PTAG, DOM, DOM + DOM_SIZE - 1, false,
		GEMINI_MDD_MODE_WRITABLE | GEMINI_MDD_MODE_COHERENT, 0);
	/* Ptag 0 is nobody's, even in a valid MDD. */
	mdd_set(nb, 21, 0, DOM, DOM + DOM_SIZE - 1, false, RW, 0);
	/* A max_base below mem_base: an empty domain. */
	mdd_set(nb, 22, PTAG, DOM + 0x2000, DOM, false, RW, 0);
	/* A domain where the node has no memory: a bus error. */
	mdd_set(nb, 23, PTAG, 0x40000000, 0x4000ffff, false, RW, 0);
	/* MRT on, no entry valid. */
	mdd_set(nb, 24, PTAG, 0, PG - 1, true, RW, 0);
	/* All 48 bits of address: only the 40-bit offset limits it. */
	mdd_set(nb, 25, PTAG, 0, (1ull << 48) - 1, false, RO, 0);

	static const struct {
		unsigned int type, ptag, mdh;
		uint64_t addr;
		unsigned int len, status;
	} bad[] = {
		{ GEMINI_PKT_PUT, PTAG + 1, MDH_RW, 0, 8, GEMINI_STATUS_PROTECTION },
		{ GEMINI_PKT_GET, 0xff, MDH_RW, 0, 8, GEMINI_STATUS_PROTECTION },
		{ GEMINI_PKT_PUT, 0, 21, 0, 8, GEMINI_STATUS_PROTECTION },
		{ GEMINI_PKT_PUT, PTAG, 20, 0, 8, GEMINI_STATUS_MDD_INV },
		{ GEMINI_PKT_GET, PTAG, 4000, 0, 8, GEMINI_STATUS_MDD_INV },
		{ GEMINI_PKT_CQWRITE, PTAG, 4095, 0, 8, GEMINI_STATUS_MDD_INV },
		{ GEMINI_PKT_CQWRITE, PTAG + 1, MDH_RW, 0, 8,
		  GEMINI_STATUS_PROTECTION },
		{ GEMINI_PKT_PUT, PTAG, MDH_RW, DOM_SIZE - 4, 8,
		  GEMINI_STATUS_BOUNDS },
		{ GEMINI_PKT_PUT, PTAG, MDH_RW, DOM_SIZE, 1,
		  GEMINI_STATUS_BOUNDS },
		{ GEMINI_PKT_GET, PTAG, MDH_RW, DOM_SIZE - 63, 64,
		  GEMINI_STATUS_BOUNDS },
		/* offset + len past 40 bits */
		{ GEMINI_PKT_PUT, PTAG, MDH_RW, (1ull << 40) - 4, 8,
		  GEMINI_STATUS_BOUNDS },
		{ GEMINI_PKT_GET, PTAG, MDH_RW, (1ull << 40) - 1, 64,
		  GEMINI_STATUS_BOUNDS },
		{ GEMINI_PKT_GET, PTAG, 25, (1ull << 40) - 4, 8,
		  GEMINI_STATUS_BOUNDS },
		{ GEMINI_PKT_GET, PTAG, 25, (1ull << 40) - 1, 2,
		  GEMINI_STATUS_BOUNDS },
		{ GEMINI_PKT_PUT, PTAG, 22, 0, 1, GEMINI_STATUS_BOUNDS },
		{ GEMINI_PKT_PUT, PTAG, MDH_RO, 0, 8, GEMINI_STATUS_WRITE_PERM },
		{ GEMINI_PKT_PUT, PTAG, 24, 0, 8, GEMINI_STATUS_TRANSLATION },
		{ GEMINI_PKT_GET, PTAG, 24, PG - 8, 8,
		  GEMINI_STATUS_TRANSLATION },
		{ GEMINI_PKT_PUT, PTAG, 23, 0, 8, GEMINI_STATUS_HT_DATA },
		{ GEMINI_PKT_GET, PTAG, 23, 0, 8, GEMINI_STATUS_HT_DATA },
	};

	guest_errors = b->guest_errors;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		req = request(bad[i].type, 0, 1, bad[i].ptag, bad[i].mdh,
			      bad[i].addr, bad[i].len);
		memset(req.data, 0xcc, req.type == GEMINI_PKT_GET ? 0 : req.len);
		rsp = transact(f, &req);
		if (rsp.type != GEMINI_PKT_ERR || rsp.status != bad[i].status)
			printf("#   case %u\n", i);
		CHECK_ERR(rsp, bad[i].status);
	}
	/* Only the bus errors are the target's guest errors. */
	CHECK_EQ(b->guest_errors - guest_errors, 2);

	/* AMOs: protection, bounds, write permission, alignment. */
	{
		const struct {
			struct gemini_pkt req;
			unsigned int status;
		} amos[] = {
			{ amo(0, 1, MDH_RO, 0x100, GEMINI_AMO_ADD, false, 1, 0),
			  GEMINI_STATUS_WRITE_PERM },
			{ amo(0, 1, MDH_RO, 0x100, GEMINI_AMO_CSWAP, true, 0, 1),
			  GEMINI_STATUS_WRITE_PERM },
			{ amo(0, 1, 20, 0x100, GEMINI_AMO_OR, true, 1, 0),
			  GEMINI_STATUS_MDD_INV },
			{ amo(0, 1, MDH_RW, DOM_SIZE, GEMINI_AMO_ADD, true, 1,
			      0), GEMINI_STATUS_BOUNDS },
			{ amo(0, 1, MDH_RW, 0x104, GEMINI_AMO_ADD, true, 1, 0),
			  GEMINI_STATUS_MALFORMED },
			{ amo(0, 1, MDH_RW, 0x101, GEMINI_AMO_XOR, false, 1, 0),
			  GEMINI_STATUS_MALFORMED },
			{ amo(0, 1, MDH_RW, 0x108, GEMINI_AMO_AX, true, 1, 2),
			  GEMINI_STATUS_MALFORMED },
			{ amo(0, 1, MDH_RW, 0x10c, GEMINI_AMO_CSWAP, true, 0,
			      1), GEMINI_STATUS_MALFORMED },
			{ amo(0, 1, 23, 0x100, GEMINI_AMO_ADD, true, 1, 0),
			  GEMINI_STATUS_HT_DATA },
		};

		for (i = 0; i < sizeof(amos) / sizeof(amos[0]); i++) {
			req = amos[i].req;
			rsp = transact(f, &req);
			CHECK_ERR(rsp, amos[i].status);
		}
		req = amo(0, 1, MDH_RW, 0x100, GEMINI_AMO_ADD, true, 1, 0);
		req.ptag = PTAG + 1;
		rsp = transact(f, &req);
		CHECK_ERR(rsp, GEMINI_STATUS_PROTECTION);
		CHECK_EQ(b->guest_errors - guest_errors, 3);
		CHECK_EQ(nb->rmt.req_refused, sizeof(bad) / sizeof(bad[0]) +
			 sizeof(amos) / sizeof(amos[0]) + 1);
		CHECK_EQ(nb->rmt.req_done, 0);
	}
	CHECK(!memcmp(snap, b->mem, MEM_SIZE));

	/* Read-only domains can be read; reads touch nothing either. */
	req = request(GEMINI_PKT_GET, 0, 1, PTAG, MDH_RO, DOM_SIZE - 64, 64);
	rsp = transact(f, &req);
	CHECK_EQ(rsp.type, GEMINI_PKT_DATA);
	CHECK(!memcmp(rsp.data, snap + (DOM - MEM_BASE) + DOM_SIZE - 64, 64));
	CHECK(!memcmp(snap, b->mem, MEM_SIZE));
	free(snap);
	fab_free(f);
}

#define CQ_BASE		(MEM_BASE + 0x8000)
#define SREQ		GEMINI_CQE_SRC_RMT_SREQ
#define CQ_VEC		GEMINI_IRQ_VECTOR(GEMINI_IRQ_FIRST_CQ)

static void test_cq(void)
{
	struct node *nd = solo_new(GEMINI_NUM_IRQ);
	struct gemini_nic *nic = &nd->nic;
	struct cq_cfg c = {
		.base = CQ_BASE, .max_index = 3, .thresh = 0,
		.irq_index = GEMINI_IRQ_FIRST_CQ, .irq = true, .enable = true,
	};
	uint64_t slot[4];
	unsigned int k, errs;

	cq_set(nic, 5, &c);
	/* Three events fill slots 0..2; wr_index reads live. */
	for (k = 0; k < 3; k++) {
		CHECK(gemini_cq_event(nic, 5, SREQ, GEMINI_STATUS_OK, 0x100 + k));
		CHECK_EQ(mem_le64(nd, CQ_BASE + 8 * k),
			 GEMINI_CQE(SREQ, 0, 0x100 + k));
		CHECK_EQ(cq_wr_index(nic, 5), k + 1);
		CHECK_EQ(win_rd(nic, GEMINI_CQ_USER_PAGE(5) + 4, 4), k + 1);
	}
	CHECK_EQ(nd->nirq, 3);
	for (k = 0; k < 3; k++)
		CHECK_EQ(nd->irqs[k], CQ_VEC);
	/* Full: the fourth goes in the last slot with the overrun bit. */
	CHECK(gemini_cq_event(nic, 5, SREQ, GEMINI_STATUS_BOUNDS, 0x103));
	CHECK_EQ(mem_le64(nd, CQ_BASE + 24),
		 GEMINI_CQE(SREQ, GEMINI_STATUS_BOUNDS, 0x103) |
		 GEMINI_CQE_OVERRUN);
	CHECK_EQ(cq_wr_index(nic, 5), 3);
	CHECK_EQ(nic->cq_stats.overruns, 1);
	/* Then events are lost until the consumer moves. */
	for (k = 0; k < 4; k++)
		slot[k] = mem_le64(nd, CQ_BASE + 8 * k);
	CHECK(!gemini_cq_event(nic, 5, SREQ, 0, 0x104));
	cq_consume(nic, 5, 0);		/* no progress: still held */
	CHECK(!gemini_cq_event(nic, 5, SREQ, 0, 0x105));
	for (k = 0; k < 4; k++)
		CHECK_EQ(mem_le64(nd, CQ_BASE + 8 * k), slot[k]);
	CHECK_EQ(nic->cq_stats.lost, 2);
	CHECK_EQ(nic->cq_stats.overruns, 3);
	CHECK_EQ(nd->guest_errors, 0);
	CHECK_EQ(nd->nirq, 4);
	/* Two consumed: the ring carries on past the overrun entry. */
	cq_consume(nic, 5, 2);
	CHECK_EQ(cq_wr_index(nic, 5), 0);
	CHECK(gemini_cq_event(nic, 5, SREQ, 0, 0x200));
	CHECK_EQ(mem_le64(nd, CQ_BASE), GEMINI_CQE(SREQ, 0, 0x200));
	CHECK_EQ(cq_wr_index(nic, 5), 1);
	/* Wrapped around and full again at slot 1. */
	CHECK(gemini_cq_event(nic, 5, SREQ, 0, 0x201));
	CHECK_EQ(mem_le64(nd, CQ_BASE + 8),
		 GEMINI_CQE(SREQ, 0, 0x201) | GEMINI_CQE_OVERRUN);
	CHECK_EQ(cq_wr_index(nic, 5), 1);
	/* The consumer reports each entry: 3, 0, 1, 2 -> empty. */
	cq_consume(nic, 5, 3);
	CHECK_EQ(cq_wr_index(nic, 5), 2);
	cq_consume(nic, 5, 0);
	cq_consume(nic, 5, 1);
	cq_consume(nic, 5, 2);
	CHECK(gemini_cq_event(nic, 5, GEMINI_CQE_SRC_RMT_SRSP, 0xf, ~0ull));
	CHECK_EQ(mem_le64(nd, CQ_BASE + 16), GEMINI_CQE(7, 0xf, ~0ull));
	CHECK_EQ(mem_le64(nd, CQ_BASE + 16), 0x7fffffffffffffffull);
	CHECK_EQ(cq_wr_index(nic, 5), 3);
	/* The driver rewriting QW1 starts the ring afresh. */
	CHECK(gemini_cq_event(nic, 5, SREQ, 0, 0x300));
	CHECK(gemini_cq_event(nic, 5, SREQ, 0, 0x301));
	CHECK(gemini_cq_event(nic, 5, SREQ, 0, 0x302));	/* full: overrun */
	CHECK_EQ(mem_le64(nd, CQ_BASE + 8),
		 GEMINI_CQE(SREQ, 0, 0x302) | GEMINI_CQE_OVERRUN);
	CHECK(!gemini_cq_event(nic, 5, SREQ, 0, 0x303));
	win_wr(nic, GEMINI_MMR_CQ_DESC_ENTRY(5), 8, 0);
	CHECK(gemini_cq_event(nic, 5, SREQ, 0, 0x304));
	CHECK_EQ(mem_le64(nd, CQ_BASE), GEMINI_CQE(SREQ, 0, 0x304));
	CHECK_EQ(cq_wr_index(nic, 5), 1);

	/* Interrupt threshold: every third event. */
	c.thresh = 2;
	c.max_index = 1023;
	cq_set(nic, 6, &c);
	nd->nirq = 0;
	for (k = 0; k < 7; k++)
		CHECK(gemini_cq_event(nic, 6, SREQ, 0, k));
	CHECK_EQ(nd->nirq, 2);
	/* No interrupts without irq_req. */
	c.irq = false;
	cq_set(nic, 6, &c);
	for (k = 0; k < 7; k++)
		CHECK(gemini_cq_event(nic, 6, SREQ, 0, k));
	CHECK_EQ(nd->nirq, 2);
	/* The last in-band index is vector 10; index 5 has no vector. */
	c.irq = true;
	c.thresh = 0;
	c.irq_index = 31;
	cq_set(nic, 6, &c);
	CHECK(gemini_cq_event(nic, 6, SREQ, 0, 1));
	CHECK_EQ(nd->nirq, 3);
	CHECK_EQ(nd->irqs[2], 10);
	c.irq_index = 5;
	cq_set(nic, 6, &c);
	CHECK(gemini_cq_event(nic, 6, SREQ, 0, 1));
	CHECK_EQ(nd->nirq, 3);
	CHECK_EQ(nd->guest_errors, 1);

	/* Descriptors the device will not use: events lost, reported. */
	errs = nd->guest_errors;
	{
		struct cq_cfg badc[] = {
			{ CQ_BASE, 3, 0, 29, true, false },	/* disabled */
			{ CQ_BASE + 8, 3, 0, 29, true, true },	/* unaligned */
			{ CQ_BASE, 0, 0, 29, true, true },	/* 1 entry */
			{ 0xfffffffff000ull, 512, 0, 29, true, true },
			{ 0x10000000, 3, 0, 29, true, true },	/* no memory */
		};

		for (k = 0; k < sizeof(badc) / sizeof(badc[0]); k++) {
			uint64_t lost = nic->cq_stats.lost;

			cq_set(nic, 9, &badc[k]);
			CHECK(!gemini_cq_event(nic, 9, SREQ, 0, 1));
			CHECK_EQ(nic->cq_stats.lost, lost + 1);
			CHECK_EQ(nd->guest_errors, errs + k + 1);
			CHECK_EQ(nd->last_guest_error,
				 k == 0 ? GEMINI_GE_CQ_DISABLED :
				 k == 4 ? GEMINI_GE_CQ_BUS :
				 GEMINI_GE_CQ_BAD_DESC);
		}
	}
	/* Indices past max_index, written by the driver or the consumer. */
	errs = nd->guest_errors;
	c.irq = false;
	c.max_index = 3;
	cq_set(nic, 9, &c);
	win_wr(nic, GEMINI_MMR_CQ_DESC_ENTRY(9) + 4, 4, 4);
	CHECK(!gemini_cq_event(nic, 9, SREQ, 0, 1));
	cq_set(nic, 9, &c);
	cq_consume(nic, 9, 9);
	CHECK(!gemini_cq_event(nic, 9, SREQ, 0, 1));
	cq_consume(nic, 9, 0);
	CHECK(gemini_cq_event(nic, 9, SREQ, 0, 1));
	CHECK_EQ(nd->guest_errors, errs + 2);
	CHECK(!gemini_cq_event(nic, GEMINI_NUM_CQ, SREQ, 0, 1));
	CHECK_EQ(nd->guest_errors, errs + 3);
	CHECK_EQ(nd->last_guest_error, GEMINI_GE_CQ_NONE);

	/* Too few vectors for the CQ's interrupt: reported, not raised. */
	{
		struct node *small = solo_new(4);

		c.irq = true;
		c.irq_index = GEMINI_IRQ_FIRST_CQ;
		cq_set(&small->nic, 0, &c);
		CHECK(gemini_cq_event(&small->nic, 0, SREQ, 0, 1));
		CHECK_EQ(small->nirq, 0);
		CHECK_EQ(small->guest_errors, 1);
		c.irq_index = GEMINI_IRQ_FIRST + 3;
		cq_set(&small->nic, 0, &c);
		CHECK(gemini_cq_event(&small->nic, 0, SREQ, 0, 1));
		CHECK_EQ(small->nirq, 1);
		CHECK_EQ(small->irqs[0], 3);
		solo_free(small);
	}
	solo_free(nd);
}

/* CQWRITE and remote events at node B, CQ 5 of 8 entries. */
static void test_remote_events(void)
{
	struct fabric *f = fab_new(2, 1, 1);
	struct gemini_nic *nb = nic_of(f, 1);
	struct node *b = &f->node[1];
	struct cq_cfg c = {
		.base = CQ_BASE, .max_index = 7, .thresh = 0,
		.irq_index = GEMINI_IRQ_FIRST_CQ, .irq = true, .enable = true,
	};
	struct gemini_pkt req, rsp;
	uint64_t lost;
	unsigned int errs;

	cq_set(nb, 5, &c);
	mdd_set(nb, 9, PTAG, DOM, DOM + DOM_SIZE - 1, false, RO, 5);
	mdd_set(nb, 10, PTAG, DOM, DOM + DOM_SIZE - 1, false, RW, 5);
	mdd_set(nb, 11, PTAG, DOM, DOM + DOM_SIZE - 1, false, RW, 6);

	/* CQWRITE: the low 56 bits of its payload, to the MDD's CQ. */
	req = request(GEMINI_PKT_CQWRITE, 0, 1, PTAG, 9, 0, 8);
	le64(req.data, 0xfedcba9876543210ull);
	rsp = transact(f, &req);
	CHECK_ACK(rsp);
	CHECK_EQ(mem_le64(b, CQ_BASE), GEMINI_CQE(SREQ, 0, 0xdcba9876543210ull));
	CHECK_EQ(mem_le64(b, CQ_BASE), 0x05dcba9876543210ull);
	CHECK_EQ(b->nirq, 1);
	CHECK_EQ(b->irqs[0], CQ_VEC);

	/* Requests asking for a remote event: data 0 (provisional). */
	req = request(GEMINI_PKT_PUT, 0, 1, PTAG, 10, 0x40, 4);
	req.flags = GEMINI_PKT_F_REMOTE_EVENT;
	memcpy(req.data, "abcd", 4);
	rsp = transact(f, &req);
	CHECK_ACK(rsp);
	CHECK(!memcmp(b->mem + (DOM - MEM_BASE) + 0x40, "abcd", 4));
	CHECK_EQ(mem_le64(b, CQ_BASE + 8), GEMINI_CQE(SREQ, 0, 0));
	req = amo(0, 1, 10, 0x48, GEMINI_AMO_ADD, false, 2, 0);
	req.flags |= GEMINI_PKT_F_REMOTE_EVENT;
	rsp = transact(f, &req);
	CHECK_ACK(rsp);
	req = request(GEMINI_PKT_GET, 0, 1, PTAG, 9, 0x40, 4);
	req.flags = GEMINI_PKT_F_REMOTE_EVENT;
	rsp = transact(f, &req);
	CHECK_EQ(rsp.type, GEMINI_PKT_DATA);
	CHECK_EQ(win_rd(nb, GEMINI_MMR_CQ_DESC_ENTRY(5) + 4, 4), 4);
	CHECK_EQ(mem_le64(b, CQ_BASE + 16), GEMINI_CQE(SREQ, 0, 0));
	CHECK_EQ(mem_le64(b, CQ_BASE + 24), GEMINI_CQE(SREQ, 0, 0));
	/* Without the flag, or refused: no event. */
	req = request(GEMINI_PKT_PUT, 0, 1, PTAG, 10, 0x40, 4);
	rsp = transact(f, &req);
	CHECK_ACK(rsp);
	req.flags = GEMINI_PKT_F_REMOTE_EVENT;
	req.addr = DOM_SIZE;
	rsp = transact(f, &req);
	CHECK_ERR(rsp, GEMINI_STATUS_BOUNDS);
	CHECK_EQ(win_rd(nb, GEMINI_MMR_CQ_DESC_ENTRY(5) + 4, 4), 4);
	CHECK_EQ(mem_le64(b, CQ_BASE + 32), 0);

	/*
	 * CQ 6 is disabled: a remote event is lost at the target (the PUT
	 * itself succeeded), a CQWRITE is answered with a CQ error.
	 */
	errs = b->guest_errors;
	lost = nb->cq_stats.lost;
	req = request(GEMINI_PKT_PUT, 0, 1, PTAG, 11, 0x40, 1);
	req.flags = GEMINI_PKT_F_REMOTE_EVENT;
	req.data[0] = 'z';
	rsp = transact(f, &req);
	CHECK_ACK(rsp);
	CHECK_EQ(b->mem[DOM - MEM_BASE + 0x40], 'z');
	req = request(GEMINI_PKT_CQWRITE, 0, 1, PTAG, 11, 0, 8);
	rsp = transact(f, &req);
	CHECK_ERR(rsp, GEMINI_STATUS_OVERRUN);
	CHECK_EQ(nb->cq_stats.lost, lost + 2);
	CHECK_EQ(b->guest_errors, errs + 2);

	/* A two-entry CQ: the second CQWRITE overruns, the third is lost. */
	c.max_index = 1;
	cq_set(nb, 6, &c);
	req = request(GEMINI_PKT_CQWRITE, 0, 1, PTAG, 11, 0, 8);
	req.data[0] = 1;
	rsp = transact(f, &req);
	CHECK_ACK(rsp);
	req.data[0] = 2;
	rsp = transact(f, &req);
	CHECK_ACK(rsp);
	CHECK_EQ(mem_le64(b, CQ_BASE + 8), GEMINI_CQE(SREQ, 0, 2) |
		 GEMINI_CQE_OVERRUN);
	req.data[0] = 3;
	rsp = transact(f, &req);
	CHECK_ERR(rsp, GEMINI_STATUS_OVERRUN);
	CHECK_EQ(mem_le64(b, CQ_BASE + 8), GEMINI_CQE(SREQ, 0, 2) |
		 GEMINI_CQE_OVERRUN);
	CHECK_EQ(nb->cq_stats.lost, lost + 3);
	fab_free(f);
}

/*
 * A request whose response has no room waits, untouched, and is executed
 * exactly once when room comes: first called directly, then through the
 * router, with node B sending to itself.
 */
static void test_inject_full(void)
{
	struct fabric *f = fab_new(2, 1, 1);
	struct gemini_nic *nb = nic_of(f, 1);
	struct node *a = &f->node[0], *b = &f->node[1];
	struct gemini_pkt ack = {
		.vc = GEMINI_VC_RSP, .type = GEMINI_PKT_ACK, .dst = 0,
	};
	struct gemini_pkt req;
	uint64_t word = DOM + 0x80;
	unsigned int k;

	mdd_set(nb, MDH_RW, PTAG, DOM, DOM + DOM_SIZE - 1, false, RW, 0);
	mem_set64(b, word, 1000);
	for (k = 0; k < GEMINI_PKTQ_DEPTH; k++)
		CHECK_EQ(gemini_router_inject(nb, &ack), 0);
	CHECK(!gemini_router_can_inject(nb, GEMINI_VC_RSP));
	CHECK(gemini_router_can_inject(nb, GEMINI_VC_REQ));
	CHECK(!gemini_router_can_inject(nb, 2));
	req = amo(0, 1, MDH_RW, word - DOM, GEMINI_AMO_ADD, true, 1, 0);
	CHECK(!gemini_rmt_deliver(nb, &req));
	CHECK(!gemini_rmt_deliver(nb, &req));
	CHECK_EQ(mem_le64(b, word), 1000);
	CHECK_EQ(nb->rmt.req_waits, 2);
	CHECK_EQ(nb->rmt.req_done + nb->rmt.req_refused, 0);
	a->nrsp = 0;
	run(f);
	CHECK_EQ(a->nrsp, GEMINI_PKTQ_DEPTH);
	CHECK(gemini_rmt_deliver(nb, &req));
	CHECK_EQ(mem_le64(b, word), 1001);
	run(f);
	CHECK_EQ(a->nrsp, GEMINI_PKTQ_DEPTH + 1);
	CHECK_EQ(a->rsp[GEMINI_PKTQ_DEPTH].type, GEMINI_PKT_DATA);
	CHECK_EQ(get64(a->rsp[GEMINI_PKTQ_DEPTH].data), 1000);

	/*
	 * Through the router: B's response buffer full of ACKs to itself,
	 * and its request buffer visited first.
	 */
	ack.dst = 1;
	for (k = 0; k < GEMINI_PKTQ_DEPTH; k++)
		CHECK_EQ(gemini_router_inject(nb, &ack), 0);
	req = amo(1, 1, MDH_RW, word - DOM, GEMINI_AMO_ADD, true, 1, 0);
	CHECK_EQ(gemini_router_inject(nb, &req), 0);
	nb->router.rr = GEMINI_NUM_TORUS_PORTS * VGEMINI_LINK_CHANS;
	b->nrsp = 0;
	k = (unsigned int)nb->rmt.req_waits;
	run(f);
	CHECK(nb->rmt.req_waits > k);
	CHECK_EQ(mem_le64(b, word), 1002);
	CHECK_EQ(b->nrsp, GEMINI_PKTQ_DEPTH + 1);
	CHECK_EQ(b->rsp[GEMINI_PKTQ_DEPTH].type, GEMINI_PKT_DATA);
	CHECK_EQ(get64(b->rsp[GEMINI_PKTQ_DEPTH].data), 1001);
	CHECK_EQ(nb->rmt.req_done, 2);

	/* Packets the decoder would refuse are refused here too. */
	req = request(GEMINI_PKT_GET, 1, 1, PTAG, MDH_RW, 0, 200);
	CHECK(gemini_rmt_deliver(nb, &req));
	req = amo(1, 1, MDH_RW, 0, GEMINI_AMO_CSWAP, true, 0, 0);
	req.len = 8;
	CHECK(gemini_rmt_deliver(nb, &req));
	b->nrsp = 0;
	run(f);
	CHECK_EQ(b->nrsp, 2);
	CHECK_ERR(b->rsp[0], GEMINI_STATUS_MALFORMED);
	CHECK_ERR(b->rsp[1], GEMINI_STATUS_MALFORMED);
	CHECK_EQ(mem_le64(b, word), 1002);
	fab_free(f);
}

/* More sequences than the target's cache holds */
#define MANY_SEQS	(2 * GEMINI_RMT_SEQ_SETS * GEMINI_RMT_SEQ_WAYS)

/* A sequence's flag: @seq, @count requests to wait for, value @v */
static struct gemini_pkt seq_flag(uint32_t seq, uint64_t count, uint64_t v)
{
	struct gemini_pkt p = request(GEMINI_PKT_PUT, 0, 1, PTAG, 10, 0x100,
				      GEMINI_PKT_FLAG_LEN);

	p.flags = GEMINI_PKT_F_FLAG | GEMINI_PKT_F_REMOTE_EVENT;
	p.seq = seq;
	le64(p.data, v);
	le64(p.data + GEMINI_PKT_FLAG_EVENT_OFF, 0xe0 + seq);
	le64(p.data + GEMINI_PKT_FLAG_COUNT_OFF, count);
	return p;
}

static struct gemini_pkt seq_put(uint32_t seq, uint64_t addr)
{
	struct gemini_pkt p = request(GEMINI_PKT_PUT, 0, 1, PTAG, 10, addr, 8);

	p.seq = seq;
	le64(p.data, 0xd0 + seq);
	return p;
}

/*
 * A flag sent with its sequence's requests is written, with its remote
 * event, once the target executed them all, whichever comes first; one
 * of them refused refuses the flag with its error; a flag whose requests
 * never come is given up unanswered.
 */
static void test_seq_flags(void)
{
	struct fabric *f = fab_new(2, 1, 1);
	struct gemini_nic *na = nic_of(f, 0), *nb = nic_of(f, 1);
	struct node *a = &f->node[0], *b = &f->node[1];
	struct cq_cfg c = {
		.base = CQ_BASE, .max_index = 15, .thresh = 0,
		.irq_index = GEMINI_IRQ_FIRST_CQ, .irq = false, .enable = true,
	};
	struct gemini_pkt req, rsp, flag;
	uint64_t held, dropped, written;
	unsigned int k;

	cq_set(nb, 5, &c);
	mdd_set(nb, 10, PTAG, DOM, DOM + DOM_SIZE - 1, false, RW, 5);

	/* The flag first: held until both its PUTs are in. */
	flag = seq_flag(5, 2, 0x77);
	CHECK_EQ(gemini_router_inject(na, &flag), 0);
	a->nrsp = 0;
	run(f);
	CHECK_EQ(a->nrsp, 0);
	CHECK_EQ(nb->rmt.flags_held, 1);
	CHECK_EQ(mem_le64(b, DOM + 0x100), 0);
	rsp = transact(f, (req = seq_put(5, 0x40), &req));
	CHECK_ACK(rsp);
	CHECK_EQ(mem_le64(b, DOM + 0x100), 0);
	CHECK_EQ(mem_le64(b, CQ_BASE), 0);
	a->nrsp = 0;
	req = seq_put(5, 0x48);
	CHECK_EQ(gemini_router_inject(na, &req), 0);
	run(f);
	CHECK_EQ(a->nrsp, 2);
	CHECK_EQ(a->rsp[0].tag, req.tag);
	CHECK_EQ(a->rsp[1].tag, flag.tag);
	CHECK_ACK(a->rsp[1]);
	CHECK_EQ(mem_le64(b, DOM + 0x48), 0xd5);
	CHECK_EQ(mem_le64(b, DOM + 0x100), 0x77);
	CHECK_EQ(mem_le64(b, CQ_BASE), GEMINI_CQE(SREQ, 0, 0xe5));

	/* After its request: written at once. */
	rsp = transact(f, (req = seq_put(6, 0x50), &req));
	CHECK_ACK(rsp);
	rsp = transact(f, (req = seq_flag(6, 1, 0x66), &req));
	CHECK_ACK(rsp);
	CHECK_EQ(mem_le64(b, DOM + 0x100), 0x66);
	CHECK_EQ(mem_le64(b, CQ_BASE + 8), GEMINI_CQE(SREQ, 0, 0xe6));

	/* A refused request refuses its flag, before or after it. */
	rsp = transact(f, (req = seq_put(7, DOM_SIZE), &req));
	CHECK_ERR(rsp, GEMINI_STATUS_BOUNDS);
	rsp = transact(f, (req = seq_flag(7, 1, 0x55), &req));
	CHECK_ERR(rsp, GEMINI_STATUS_BOUNDS);
	flag = seq_flag(8, 2, 0x44);
	CHECK_EQ(gemini_router_inject(na, &flag), 0);
	run(f);
	rsp = transact(f, (req = seq_put(8, 0x58), &req));
	CHECK_ACK(rsp);
	a->nrsp = 0;
	req = seq_put(8, DOM_SIZE);
	CHECK_EQ(gemini_router_inject(na, &req), 0);
	run(f);
	CHECK_EQ(a->nrsp, 2);
	CHECK_ERR(a->rsp[0], GEMINI_STATUS_BOUNDS);
	CHECK_EQ(a->rsp[1].tag, flag.tag);
	CHECK_ERR(a->rsp[1], GEMINI_STATUS_BOUNDS);
	CHECK_EQ(mem_le64(b, DOM + 0x100), 0x66);
	CHECK_EQ(mem_le64(b, CQ_BASE + 16), 0);

	/* Counted without a flag to wait for: 0 means "at once". */
	rsp = transact(f, (req = seq_flag(9, 0, 0x33), &req));
	CHECK_ACK(rsp);
	CHECK_EQ(mem_le64(b, DOM + 0x100), 0x33);

	/* Requests that never come: given up, unanswered, unwritten. */
	flag = seq_flag(10, 1, 0x22);
	CHECK_EQ(gemini_router_inject(na, &flag), 0);
	a->nrsp = 0;
	run(f);
	advance(f, (uint64_t)GEMINI_FMA_TIMEOUT_MS * 1000000 + 1);
	run(f);
	CHECK_EQ(nb->rmt.flags_dropped, 1);
	rsp = transact(f, (req = seq_put(10, 0x60), &req));
	CHECK_ACK(rsp);
	run(f);
	CHECK_EQ(a->nrsp, 1);
	CHECK_EQ(mem_le64(b, DOM + 0x100), 0x33);

	/*
	 * More sequences than the cache holds, their flags first: each is
	 * written when its request comes, or given up (never early).
	 */
	held = nb->rmt.flags_held;
	dropped = nb->rmt.flags_dropped;
	for (k = 0; k < MANY_SEQS; k++) {
		flag = seq_flag(100 + k, 1, 0x1000 + k);
		flag.addr = 0x1000 + 8 * k;
		CHECK_EQ(gemini_router_inject(na, &flag), 0);
		run(f);
	}
	CHECK_EQ(nb->rmt.flags_held - held, MANY_SEQS);
	dropped = nb->rmt.flags_dropped - dropped;
	CHECK(dropped > 0);
	a->nrsp = 0;
	written = 0;
	for (k = 0; k < MANY_SEQS; k++) {
		uint64_t v;

		CHECK_EQ(mem_le64(b, DOM + 0x1000 + 8 * k), 0);
		req = seq_put(100 + k, 0x3000 + 8 * k);
		CHECK_EQ(gemini_router_inject(na, &req), 0);
		run(f);
		v = mem_le64(b, DOM + 0x1000 + 8 * k);
		CHECK(v == 0 || v == 0x1000 + k);
		written += v != 0;
	}
	CHECK_EQ(written, MANY_SEQS - dropped);
	CHECK_EQ(a->nrsp, 2 * MANY_SEQS - dropped);
	fab_free(f);
}

static const struct tap_test tests[] = {
	{ "layouts of MDD, MRT, NTT, CQ descriptor and CQ entry", test_layouts },
	{ "MDD, MRT, NTT and CQ registers through the NIC window",
	  test_registers },
	{ "PUT of every length at every alignment, byte for byte", test_put },
	{ "GET returns the data in its DATA response", test_get },
	{ "MRT translation, pages split, invalid entries refused", test_mrt },
	{ "GART translation: scattered 4 KiB pages, misses refused",
	  test_gart },
	{ "every AMO, fetching and not, CSWAP success and failure", test_amo },
	{ "8 NICs fetch-and-add one word: an exact total", test_amo_hammer },
	{ "errors answer ERR with their status and touch nothing",
	  test_errors },
	{ "CQ events: layout, wrap-around, overrun, interrupts, bad CQs",
	  test_cq },
	{ "CQWRITE and remote events reach the MDD's CQ",
	  test_remote_events },
	{ "a request waiting for room to answer runs exactly once",
	  test_inject_full },
	{ "a sequence's flag waits for its requests at the target",
	  test_seq_flags },
};

int main(void)
{
	return TAP_RUN(tests);
}
