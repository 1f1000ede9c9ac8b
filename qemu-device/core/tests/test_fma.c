// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Host unit tests of the NIC's source side, FMA: descriptors programmed
 * through the NIC window as the kernel (privileged page) and libugni (user
 * alias) would, stores into the PUT and GET windows, AMOs, sync-complete
 * with local and remote events, CQ writes, and the ways a transaction can
 * fail: protection, NTT group, ORB and SSID exhaustion, dead links, stale
 * and out-of-order responses.
 *
 * Several NICs are cabled in memory and routed with the firmware's tables
 * (the harness of test_nic.c); node memory is a fake.  Prints TAP; run
 * under ASan and UBSan.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemini_core.h"
#include "gemini_ctl.h"
#include "routes.h"
#include "tap.h"

#include "nic_harness.h"

/* --- the kernel's and the library's side of an FMA descriptor ----------- */

#define MDH		9		/* the data domain on every node */
#define BAD_PTAG	8
#define LCQ		5		/* local (source) events */
#define RCQ		6		/* remote (target) events */
#define CQ_MAX		63
#define LCQ_BASE	(MEM_BASE + 0x1000)
#define RCQ_BASE	(MEM_BASE + 0x2000)
#define DOM_BASE	(MEM_BASE + 0x10000)
#define DOM_LAST	(MEM_BASE + MEM_SIZE - 1)
#define DI		3		/* the descriptor most tests use */
#define MODE2_MASK	(GEMINI_FMA_MODE2_MASK << GEMINI_FMA_MODE2_SHIFT)

/* Memory domain and completion queues of a node, as the driver sets them. */
static void node_setup(struct gemini_nic *nic)
{
	struct cq_cfg l = { .base = LCQ_BASE, .max_index = CQ_MAX,
			    .enable = true };
	struct cq_cfg r = { .base = RCQ_BASE, .max_index = CQ_MAX,
			    .enable = true };

	mdd_set(nic, MDH, PTAG, DOM_BASE, DOM_LAST, false, RW, RCQ);
	cq_set(nic, LCQ, &l);
	cq_set(nic, RCQ, &r);
}

static uint64_t priv_qw(unsigned int di, unsigned int qw)
{
	return GEMINI_FMA_PRIV_PAGE(di) + qw;
}

static uint64_t user_qw(unsigned int di, unsigned int qw)
{
	return GEMINI_FMA_USER_PAGE(di) + qw;
}

/* The kernel: bind the descriptor to a ptag and LCQ, enable it. */
static void fma_kernel(struct gemini_nic *nic, unsigned int di,
		       unsigned int ptag, uint64_t extra_qw3)
{
	fma_setup(nic, di, ptag, LCQ, extra_qw3);
}

/* The library: command, MDH, PE mask mode, keeping the mode bits. */
static void fma_cmd(struct gemini_nic *nic, unsigned int di, unsigned int cmd,
		    unsigned int pe_mask_mode)
{
	fma_set_cmd(nic, di, cmd, MDH, pe_mask_mode);
}

#define WC(st)		((st) & 0xffff)
#define RC(st)		(((st) >> 16) & 0xffff)
#define SSIDS(st)	(((st) >> 32) & 0xff)
#define FLAGS(st)	(((st) >> 48) & 7)

static void gcw(struct gemini_nic *nic, unsigned int di, uint64_t x,
		uint64_t word)
{
	CHECK_EQ(gemini_window_write(nic, GEMINI_FMA_WINDOW(GEMINI_FMA_GET,
							    di) + x, 8, word),
		 GEMINI_ACCESS_OK);
}

/* Events consumed so far per node and CQ. */
static uint32_t ev_rd[8][2];

/* The next event of @cq on node @id (0 if none), consumed. */
static uint64_t next_event(struct fabric *f, uint32_t id, unsigned int cq)
{
	struct node *nd = &f->node[id];
	uint64_t base = cq == LCQ ? LCQ_BASE : RCQ_BASE;
	uint32_t *rd = &ev_rd[id][cq == RCQ];
	uint64_t e;

	if (cq_wr_index(&nd->nic, cq) == *rd)
		return 0;
	e = mem_le64(nd, base + 8ull * *rd);
	*rd = (*rd + 1) % (CQ_MAX + 1);
	cq_consume(&nd->nic, cq, *rd);
	return e;
}

#define CHECK_EVENT(e, src, st, data)					\
	do {								\
		uint64_t e_ = (e);					\
		CHECK_EQ((e_ >> GEMINI_CQE_SOURCE_SHIFT) &		\
			 GEMINI_CQE_SOURCE_MASK, (src));		\
		CHECK_EQ((e_ >> GEMINI_CQE_STATUS_SHIFT) &		\
			 GEMINI_CQE_STATUS_MASK, (st));			\
		CHECK_EQ(e_ & GEMINI_CQE_DATA_MASK, (data));		\
		CHECK(!(e_ & GEMINI_CQE_OVERRUN));			\
	} while (0)

static struct fabric *fma_fabric(unsigned int dx, unsigned int dy,
				 unsigned int dz)
{
	struct fabric *f = fab_new(dx, dy, dz);
	uint32_t i;

	memset(ev_rd, 0, sizeof(ev_rd));
	for (i = 0; i < f->n; i++) {
		node_setup(nic_of(f, i));
		fma_kernel(nic_of(f, i), DI, PTAG, 0);
	}
	return f;
}

/* Run until the clock has advanced @ns. */
static void run_for(struct fabric *f, uint64_t ns)
{
	uint64_t end = clock_ns + ns;

	while (clock_ns < end)
		step(f);
	run(f);
}

static uint64_t xrand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* --- tests -------------------------------------------------------------- */

static void test_layouts(void)
{
	CHECK_EQ(GEMINI_FMA_PRIV_DEFAULT,
		 GEMINI_FMA_PRIV_CQWRITE | GEMINI_FMA_PRIV_SYNCCMP |
		 GEMINI_FMA_PRIV_ALLOCSYNCID | GEMINI_FMA_PRIV_SCRATCH1 |
		 GEMINI_FMA_PRIV_SCRATCH0 | GEMINI_FMA_PRIV_CMD |
		 GEMINI_FMA_PRIV_REMOTEMDH | GEMINI_FMA_PRIV_SOURCEMDH |
		 GEMINI_FMA_PRIV_BASEOFFSET | GEMINI_FMA_PRIV_VMDHENABLE |
		 GEMINI_FMA_PRIV_HARA | GEMINI_FMA_PRIV_PEMASKMODE);
	CHECK_EQ(GEMINI_FMA_USER_PAGE(GEMINI_FMA_NUM_DESC) <= GEMINI_FMA_PRIV,
		 1);
	CHECK_EQ(GEMINI_FMA_WINDOW(GEMINI_FMA_PUT_UC, GEMINI_NUM_FMA),
		 GEMINI_BAR_NIC_SIZE);
	CHECK_EQ(GEMINI_GCW_GET(64, 0x40), 0x000f000000000040ull);
	CHECK_EQ(GEMINI_GCW_GET(4, 0x40), 0x0000000000000040ull);
	CHECK_EQ(GEMINI_GCW(GEMINI_AMO_CSWAP, 0, 8), 0x6800000000000008ull);
	/* The three tag ranges: FMA, BTE, diagnostics, disjoint, all used */
	CHECK_EQ(GEMINI_ORB_SIZE, GEMINI_TAG_BTE_FIRST);
	CHECK_EQ(GEMINI_TAG_BTE_FIRST + GEMINI_TAG_BTE_COUNT, GEMINI_TAG_DIAG);
	CHECK_EQ(GEMINI_TAG_DIAG | GEMINI_TAG_DIAG_SLOT | GEMINI_TAG_DIAG_SEQ,
		 0x3ffu);
	CHECK(!(GEMINI_TAG_DIAG & (GEMINI_TAG_DIAG_SLOT | GEMINI_TAG_DIAG_SEQ)));
	CHECK(!gemini_tag_is_bte(GEMINI_ORB_SIZE - 1));
	CHECK(gemini_tag_is_bte(GEMINI_TAG_BTE_FIRST));
	CHECK(gemini_tag_is_bte(GEMINI_TAG_DIAG - 1));
	CHECK(!gemini_tag_is_diag(GEMINI_TAG_DIAG - 1));
	CHECK(gemini_tag_is_diag(0x3ff));
}

static void test_registers(void)
{
	struct node *nd = solo_new(4);
	struct gemini_nic *nic = &nd->nic;
	const uint64_t qw3 = 0x5ull << GEMINI_FMA_NUM_PES_SHIFT |
			     0x7ull << GEMINI_FMA_PE_BASE_SHIFT |
			     (uint64_t)LCQ << GEMINI_FMA_CQH_SHIFT |
			     (uint64_t)PTAG << GEMINI_FMA_SRC_PTAG_SHIFT |
			     (uint64_t)PTAG << GEMINI_FMA_DEST_PTAG_SHIFT;
	uint64_t v, m2, held;
	unsigned int errs;

	/* The kernel sees and sets everything. */
	CHECK_EQ(win_rd(nic, priv_qw(DI, GEMINI_FMA_PRIV_MASK_REG), 8),
		 GEMINI_FMA_PRIV_DEFAULT);
	win_wr(nic, priv_qw(DI, GEMINI_FMA_QW_PE), 8, qw3);
	CHECK_EQ(win_rd(nic, priv_qw(DI, GEMINI_FMA_QW_PE), 8), qw3);
	CHECK_EQ(win_rd(nic, user_qw(DI, GEMINI_FMA_QW_PE), 8), qw3);
	win_wr(nic, priv_qw(DI, GEMINI_FMA_QW_BASE_OFFSET), 8, ~0ull);
	CHECK_EQ(win_rd(nic, priv_qw(DI, GEMINI_FMA_QW_BASE_OFFSET), 8),
		 GEMINI_FMA_BASE_OFFSET_MASK);
	win_wr(nic, priv_qw(DI, GEMINI_FMA_QW_CMD), 4, 0xffffffff);
	CHECK_EQ(win_rd(nic, priv_qw(DI, GEMINI_FMA_QW_CMD), 8), 0xffffff1f);
	m2 = (uint64_t)GEMINI_FMA_MODE2_FMA_ENABLE << GEMINI_FMA_MODE2_SHIFT;
	win_wr(nic, priv_qw(DI, GEMINI_FMA_QW_CMD), 8, m2);

	/* The user writes what the mask gives it... */
	errs = nd->guest_errors;
	win_wr(nic, user_qw(DI, GEMINI_FMA_QW_CMD), 8, m2 | 0x10 |
	       (uint64_t)MDH << GEMINI_FMA_REM_MDH_SHIFT |
	       (uint64_t)(GEMINI_FMA_MODE2_ADP | GEMINI_FMA_MODE2_HASH) <<
	       GEMINI_FMA_MODE2_SHIFT);
	win_wr(nic, user_qw(DI, GEMINI_FMA_QW_SCRATCH0), 8, 0x1234);
	win_wr(nic, user_qw(DI, GEMINI_FMA_QW_SCRATCH1), 4, 0x5678);
	win_wr(nic, user_qw(DI, GEMINI_FMA_QW_BASE_OFFSET), 8, 0x40);
	CHECK_EQ(nd->guest_errors, errs);
	CHECK_EQ(win_rd(nic, user_qw(DI, GEMINI_FMA_QW_SCRATCH0), 8), 0x1234);
	CHECK_EQ(win_rd(nic, user_qw(DI, GEMINI_FMA_QW_SCRATCH1), 8), 0x5678);
	CHECK_EQ(win_rd(nic, priv_qw(DI, GEMINI_FMA_QW_BASE_OFFSET), 8), 0x40);

	/* ...and nothing of the kernel's: ptag, CQ, NTT group, enables. */
	CHECK_EQ(gemini_window_write(nic, user_qw(DI, GEMINI_FMA_QW_PE), 8,
				     qw3 ^ (0xffull << GEMINI_FMA_DEST_PTAG_SHIFT)),
		 GEMINI_ACCESS_READ_ONLY);
	CHECK_EQ(gemini_window_write(nic, user_qw(DI, GEMINI_FMA_QW_PE), 8,
				     qw3 ^ 0xff), GEMINI_ACCESS_READ_ONLY);
	CHECK_EQ(gemini_window_write(nic, user_qw(DI, GEMINI_FMA_QW_PE), 4,
				     (uint32_t)(qw3 >> 32) ^ 0x10),
		 GEMINI_ACCESS_READ_ONLY);
	CHECK_EQ(win_rd(nic, priv_qw(DI, GEMINI_FMA_QW_PE), 8), qw3);
	v = win_rd(nic, user_qw(DI, GEMINI_FMA_QW_CMD), 8);
	CHECK_EQ(gemini_window_write(nic, user_qw(DI, GEMINI_FMA_QW_CMD), 8,
				     v & ~m2), GEMINI_ACCESS_READ_ONLY);
	CHECK_EQ(win_rd(nic, user_qw(DI, GEMINI_FMA_QW_CMD), 8), v);
	/* A mixed write keeps its allowed part. */
	CHECK_EQ(gemini_window_write(nic, user_qw(DI, GEMINI_FMA_QW_CMD), 8,
				     (v & ~m2 & ~0x1full) | 0x0c),
		 GEMINI_ACCESS_READ_ONLY);
	CHECK_EQ(win_rd(nic, user_qw(DI, GEMINI_FMA_QW_CMD), 8),
		 (v & ~0x1full) | 0x0c);
	CHECK_EQ(nic->fma.stats.priv_refused, 5);
	CHECK_EQ(nd->guest_errors, errs + 5);
	/* The mask is not reachable from the user alias. */
	CHECK_EQ(gemini_window_write(nic, user_qw(DI, GEMINI_FMA_PRIV_MASK_REG),
				     8, GEMINI_FMA_PRIV_ALL),
		 GEMINI_ACCESS_UNKNOWN);
	CHECK_EQ(gemini_window_read(nic, user_qw(DI, GEMINI_FMA_PRIV_MASK_REG),
				    8, &v), GEMINI_ACCESS_UNKNOWN);
	CHECK_EQ(win_rd(nic, priv_qw(DI, GEMINI_FMA_PRIV_MASK_REG), 8),
		 GEMINI_FMA_PRIV_DEFAULT);
	/* A kernel that gives the user the CQ handle lets it write it. */
	win_wr(nic, priv_qw(DI, GEMINI_FMA_PRIV_MASK_REG), 8,
	       GEMINI_FMA_PRIV_DEFAULT | GEMINI_FMA_PRIV_CQHNDL);
	win_wr(nic, user_qw(DI, GEMINI_FMA_QW_PE), 8,
	       qw3 ^ (1ull << GEMINI_FMA_CQH_SHIFT));
	CHECK_EQ(win_rd(nic, priv_qw(DI, GEMINI_FMA_QW_PE), 8),
		 qw3 ^ (1ull << GEMINI_FMA_CQH_SHIFT));
	/* A doorbell the mask does not give is not rung. */
	win_wr(nic, priv_qw(DI, GEMINI_FMA_PRIV_MASK_REG), 8, 0);
	CHECK_EQ(gemini_window_write(nic, user_qw(DI, GEMINI_FMA_QW_SYNCCMP), 8,
				     1ull << 56 | 77), GEMINI_ACCESS_READ_ONLY);
	CHECK_EQ(nic->fma.stats.completions, 0);
	/* Writing the value a withheld doorbell holds does not ring it. */
	held = win_rd(nic, priv_qw(DI, GEMINI_FMA_QW_CQ_WRITE), 8);
	CHECK_EQ(gemini_window_write(nic, user_qw(DI, GEMINI_FMA_QW_CQ_WRITE),
				     8, held),
		 GEMINI_ACCESS_READ_ONLY);
	held = win_rd(nic, priv_qw(DI, GEMINI_FMA_QW_SYNCCMP), 8);
	CHECK_EQ(gemini_window_write(nic, user_qw(DI, GEMINI_FMA_QW_SYNCCMP),
				     8, held),
		 GEMINI_ACCESS_READ_ONLY);
	held = win_rd(nic, priv_qw(DI, GEMINI_FMA_QW_ALLOC_SYNCID), 8);
	CHECK_EQ(gemini_window_write(nic,
				     user_qw(DI, GEMINI_FMA_QW_ALLOC_SYNCID),
				     8, held),
		 GEMINI_ACCESS_READ_ONLY);
	CHECK_EQ(nic->fma.stats.completions, 0);
	CHECK_EQ(nic->fma.stats.requests, 0);
	CHECK_EQ(SSIDS(fma_status(nic, DI)), 0);
	/* Doorbells take 8-byte writes only. */
	CHECK_EQ(gemini_window_write(nic, priv_qw(DI, GEMINI_FMA_QW_SYNCCMP), 4,
				     1), GEMINI_ACCESS_BAD_SIZE);
	CHECK_EQ(nic->fma.stats.completions, 0);

	/* Status word: live counters, write-1-to-clear flags. */
	nic->fma.desc[DI].wc = 3;
	nic->fma.desc[DI].rc = 2;
	nic->fma.desc[DI].flags = 7;
	v = win_rd(nic, priv_qw(DI, GEMINI_FMA_QW_STATUS), 8);
	CHECK_EQ(WC(v), 3);
	CHECK_EQ(RC(v), 2);
	CHECK_EQ(FLAGS(v), 7);
	CHECK_EQ(win_rd(nic, user_qw(DI, GEMINI_FMA_QW_STATUS) + 4, 4) >> 16,
		 7);
	win_wr(nic, user_qw(DI, GEMINI_FMA_QW_STATUS), 8,
	       (uint64_t)GEMINI_FMA_FLAG_NPES << GEMINI_FMA_STAT_FLAGS_SHIFT |
	       1ull << GEMINI_FMA_STAT_RC_SHIFT);
	v = fma_status(nic, DI);
	CHECK_EQ(WC(v), 3);
	CHECK_EQ(RC(v), 0);
	CHECK_EQ(FLAGS(v), 5);
	win_wr(nic, user_qw(DI, GEMINI_FMA_QW_STATUS), 8, ~0ull);
	CHECK_EQ(fma_status(nic, DI), 0);

	/* Holes and every descriptor's pages. */
	CHECK_EQ(gemini_window_read(nic, priv_qw(DI, 0x48), 8, &v),
		 GEMINI_ACCESS_UNKNOWN);
	CHECK_EQ(gemini_window_read(nic, priv_qw(GEMINI_FMA_NUM_DESC, 0), 8,
				    &v), GEMINI_ACCESS_UNKNOWN);
	win_wr(nic, priv_qw(GEMINI_FMA_NUM_DESC - 1, GEMINI_FMA_QW_SCRATCH0),
	       8, 9);
	CHECK_EQ(win_rd(nic, user_qw(GEMINI_FMA_NUM_DESC - 1,
				     GEMINI_FMA_QW_SCRATCH0), 8), 9);
	/* Windows cannot be read; odd window stores are refused. */
	CHECK_EQ(gemini_window_read(nic, GEMINI_FMA_WINDOW(GEMINI_FMA_GET, 1),
				    8, &v), GEMINI_ACCESS_UNKNOWN);
	CHECK_EQ(gemini_window_write(nic, GEMINI_FMA_WINDOW(GEMINI_FMA_GET, 1),
				     4, 0), GEMINI_ACCESS_BAD_SIZE);
	CHECK_EQ(gemini_window_write(nic, GEMINI_FMA_WINDOW(GEMINI_FMA_PUT_WC,
							    1), 3, 0),
		 GEMINI_ACCESS_BAD_SIZE);
	CHECK_EQ(gemini_window_write(nic, GEMINI_FMA_WINDOW(GEMINI_FMA_PUT_WC,
							    2) - 4, 8, 0),
		 GEMINI_ACCESS_BAD_SIZE);
	CHECK(FLAGS(fma_status(nic, 1)) & GEMINI_FMA_FLAG_HT_REQ);
	/* Reset: back to the defaults. */
	gemini_nic_reset(nic);
	CHECK_EQ(win_rd(nic, priv_qw(DI, GEMINI_FMA_PRIV_MASK_REG), 8),
		 GEMINI_FMA_PRIV_DEFAULT);
	CHECK_EQ(win_rd(nic, priv_qw(DI, GEMINI_FMA_QW_PE), 8), 0);
	solo_free(nd);
}

/* Puts of every size at many offsets, byte for byte; UC and OS windows. */
static void test_put(void)
{
	struct fabric *f = fma_fabric(2, 1, 1);
	struct gemini_nic *src = nic_of(f, 0);
	static uint8_t shadow[4096];
	static const unsigned int sizes[4] = { 1, 2, 4, 8 };
	const uint64_t area = 0x4000;		/* domain offset */
	const uint64_t os_win = GEMINI_FMA_WINDOW(GEMINI_OS_FMA_PUT_WC, 2);
	uint64_t seed = 0x9e3779b97f4a7c15ull, st;
	unsigned int i, k, n = 0, ev = 0;

	memcpy(shadow, f->node[1].mem + (DOM_BASE - MEM_BASE) + area,
	       sizeof(shadow));
	fma_cmd(src, DI, GEMINI_FMA_CMD_PUT, 0);
	fma_base(src, DI, GEMINI_PE(1, 0), area);
	for (i = 0; i < 600; i++) {
		unsigned int size = sizes[i % 4];
		uint64_t x = xrand(&seed) % (sizeof(shadow) - 8);
		uint64_t v = xrand(&seed);
		uint64_t win = i & 1 ? GEMINI_FMA_PUT_UC : GEMINI_FMA_PUT_WC;

		/* every alignment, in both WC and UC windows */
		CHECK_EQ(gemini_window_write(src,
					     GEMINI_FMA_WINDOW(win, DI) + x,
					     size, v), GEMINI_ACCESS_OK);
		for (k = 0; k < size; k++)
			shadow[x + k] = (uint8_t)(v >> (8 * k));
		n++;
		if (i % 50 == 49) {
			st = fma_status(src, DI);
			CHECK(WC(st) > 0);
			CHECK_EQ(SSIDS(st), 1);
			fma_sync(src, DI, GEMINI_FMA_SYNC_LOCAL_EVENT, 0xabc000 + i);
			run(f);
			CHECK_EVENT(next_event(f, 0, LCQ),
				    GEMINI_CQE_SRC_SSID_SREQ, 0, 0xabc000 + i);
			ev++;
			CHECK_EQ(fma_status(src, DI), 0);
		}
	}
	CHECK_EQ(memcmp(shadow, f->node[1].mem + (DOM_BASE - MEM_BASE) + area,
			sizeof(shadow)), 0);
	CHECK_EQ(next_event(f, 0, LCQ), 0);
	CHECK_EQ(next_event(f, 1, RCQ), 0);
	CHECK_EQ(src->fma.stats.requests, n);
	CHECK_EQ(src->fma.stats.responses, n);
	CHECK_EQ(src->fma.stats.completions, ev);
	CHECK_EQ(src->nic_ctr[VGEMINI_NC_STALE_RSP], 0);
	/* The engine counters see n PUT requests and nothing else. */
	CHECK_EQ(src->nic_ctr[VGEMINI_NC_FMA_PUT_PKTS], n);
	CHECK_EQ(src->nic_ctr[VGEMINI_NC_FMA_GET_PKTS] +
		 src->nic_ctr[VGEMINI_NC_FMA_AMO_PKTS] +
		 src->nic_ctr[VGEMINI_NC_BTE_PUT_PKTS] +
		 src->nic_ctr[VGEMINI_NC_BTE_GET_PKTS], 0);
	CHECK_EQ(f->node[0].guest_errors, 0);

	/* An OS descriptor through the OS window, to itself (loopback). */
	fma_kernel(src, GEMINI_FMA_OS_FIRST + 2, PTAG, 0);
	fma_cmd(src, GEMINI_FMA_OS_FIRST + 2, GEMINI_FMA_CMD_PUT_MSG, 0);
	fma_base(src, GEMINI_FMA_OS_FIRST + 2, GEMINI_PE(0, 0), 0x8000);
	CHECK_EQ(gemini_window_write(src, os_win + 0x10, 8,
				     0x1122334455667788ull),
		 GEMINI_ACCESS_OK);
	fma_sync(src, GEMINI_FMA_OS_FIRST + 2, GEMINI_FMA_SYNC_LOCAL_EVENT, 5);
	run(f);
	CHECK_EQ(mem_le64(&f->node[0], DOM_BASE + 0x8010), 0x1122334455667788ull);
	CHECK_EVENT(next_event(f, 0, LCQ), GEMINI_CQE_SRC_SSID_SREQ, 0, 5);
	fab_free(f);
}

/* GETs of every length 4..64 at many offsets; rc while in flight. */
static void test_get(void)
{
	struct fabric *f = fma_fabric(3, 1, 1);
	struct gemini_nic *src = nic_of(f, 0);
	uint64_t seed = 12345, remote = 0x20000, local = 0x30000;
	unsigned int len, i, k;

	for (i = 0; i < 8192; i++)
		f->node[2].mem[(DOM_BASE - MEM_BASE) + remote + i] =
			(uint8_t)xrand(&seed);
	fma_cmd(src, DI, GEMINI_FMA_CMD_GET, 0);
	fma_base(src, DI, GEMINI_PE(2, 0), remote);
	for (len = 4; len <= 64; len += 4) {
		for (k = 0; k < 6; k++) {
			uint64_t x = (xrand(&seed) % 4000) & ~3ull;
			uint64_t l = (xrand(&seed) % 4000) & ~3ull;
			const uint8_t *want = f->node[2].mem +
				(DOM_BASE - MEM_BASE) + remote + x;
			uint8_t *got = f->node[0].mem + (DOM_BASE - MEM_BASE) +
				local + l;

			memset(got, 0xee, 72);
			/* As a CPU must: 8-aligned, +4 for the odd words. */
			if (x & 4)
				gcw(src, DI, x - 4, GEMINI_GCW_GET(len, local + l) |
				    GEMINI_GCW_REMOTE_PLUS4);
			else
				gcw(src, DI, x, GEMINI_GCW_GET(len, local + l));
			CHECK_EQ(RC(fma_status(src, DI)), 1);
			fma_sync(src, DI, GEMINI_FMA_SYNC_LOCAL_EVENT, len);
			run(f);
			CHECK_EQ(memcmp(got, want, len), 0);
			CHECK_EQ(got[len], 0xee);
			CHECK_EVENT(next_event(f, 0, LCQ),
				    GEMINI_CQE_SRC_SSID_SREQ, 0, len);
			CHECK_EQ(fma_status(src, DI), 0);
		}
	}
	/* Misaligned, or a local buffer the source may not write: refused. */
	gcw(src, DI, 2, GEMINI_GCW_GET(8, local));
	fma_sync(src, DI, GEMINI_FMA_SYNC_LOCAL_EVENT, 1);
	run(f);
	CHECK_EVENT(next_event(f, 0, LCQ), GEMINI_CQE_SRC_SSID_SREQ,
		    GEMINI_STATUS_MALFORMED, 1);
	CHECK(FLAGS(fma_status(src, DI)) & GEMINI_FMA_FLAG_HT_REQ);
	gcw(src, DI, 0, GEMINI_GCW_GET(8, MEM_SIZE));
	fma_sync(src, DI, GEMINI_FMA_SYNC_LOCAL_EVENT, 2);
	run(f);
	CHECK_EVENT(next_event(f, 0, LCQ), GEMINI_CQE_SRC_SSID_SREQ,
		    GEMINI_STATUS_BOUNDS, 2);
	/* +4 only from an 8-aligned store, and only for a GET. */
	gcw(src, DI, 4, GEMINI_GCW_GET(8, local) | GEMINI_GCW_REMOTE_PLUS4);
	fma_sync(src, DI, GEMINI_FMA_SYNC_LOCAL_EVENT, 3);
	run(f);
	CHECK_EVENT(next_event(f, 0, LCQ), GEMINI_CQE_SRC_SSID_SREQ,
		    GEMINI_STATUS_MALFORMED, 3);
	fma_cmd(src, DI, GEMINI_FMA_CMD_GET, 0);
	gcw(src, DI, 8, GEMINI_GCW(GEMINI_AMO_ADD, 0, local) |
	    GEMINI_GCW_REMOTE_PLUS4);
	fma_sync(src, DI, GEMINI_FMA_SYNC_LOCAL_EVENT, 4);
	run(f);
	CHECK_EVENT(next_event(f, 0, LCQ), GEMINI_CQE_SRC_SSID_SREQ,
		    GEMINI_STATUS_MALFORMED, 4);
	CHECK_EQ(f->node[2].nic.rmt.req_done, 16 * 6);
	/* Every request that left was a GET, counted as one. */
	CHECK(src->nic_ctr[VGEMINI_NC_FMA_GET_PKTS] >= 16 * 6);
	CHECK_EQ(src->nic_ctr[VGEMINI_NC_FMA_PUT_PKTS] +
		 src->nic_ctr[VGEMINI_NC_FMA_AMO_PKTS], 0);
	fab_free(f);
}

/* Every AMO: non-fetching through the PUT window, fetching through GET. */
static void test_amo(void)
{
	static const struct {
		unsigned int op;
		uint64_t t, op1, op2, want;
	} c[] = {
		{ GEMINI_AMO_ADD, 40, 2, 0, 42 },
		{ GEMINI_AMO_AND, 0xff0f, 0x0ff0, 0, 0x0f00 },
		{ GEMINI_AMO_OR, 0xf000, 0x000f, 0, 0xf00f },
		{ GEMINI_AMO_XOR, 0xff, 0x0f, 0, 0xf0 },
		{ GEMINI_AMO_AX, 0xabcd, 0xff00, 0x0011, 0xab11 },
		{ GEMINI_AMO_CSWAP, 5, 5, 9, 9 },
		{ GEMINI_AMO_CSWAP, 5, 6, 9, 5 },
	};
	struct fabric *f = fma_fabric(2, 1, 1);
	struct gemini_nic *src = nic_of(f, 0);
	struct node *tgt = &f->node[1];
	const uint64_t t = DOM_BASE + 0x100, res = DOM_BASE + 0x200;
	unsigned int i, fetch, cached;

	fma_base(src, DI, GEMINI_PE(1, 0), 0x100);
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		for (fetch = 0; fetch < 2; fetch++) {
			for (cached = 0; cached < 2; cached++) {
				unsigned int cmd = c[i].op |
					(cached ? GEMINI_FMA_CMD_CACHED : 0);

				if (!fetch && c[i].op == GEMINI_AMO_CSWAP)
					continue;
				mem_set64(tgt, t, c[i].t);
				mem_set64(&f->node[0], res, 0xdead);
				win_wr(src, user_qw(DI, GEMINI_FMA_QW_SCRATCH0),
				       8, c[i].op1);
				win_wr(src, user_qw(DI, GEMINI_FMA_QW_SCRATCH1),
				       8, c[i].op2);
				if (fetch) {
					fma_cmd(src, DI, GEMINI_FMA_CMD_GET, 0);
					gcw(src, DI, 0,
					    GEMINI_GCW(cmd, 0, 0x200));
				} else {
					fma_cmd(src, DI, cmd, 0);
					put8(src, DI, 0, 8, 0);
				}
				fma_sync(src, DI, GEMINI_FMA_SYNC_LOCAL_EVENT,
					 i);
				run(f);
				CHECK_EQ(mem_le64(tgt, t), c[i].want);
				CHECK_EQ(mem_le64(&f->node[0], res),
					 fetch ? c[i].t : 0xdead);
				CHECK_EVENT(next_event(f, 0, LCQ),
					    GEMINI_CQE_SRC_SSID_SREQ, 0, i);
			}
		}
	}
	/* CSWAP through the PUT window has nowhere to return: refused. */
	fma_cmd(src, DI, GEMINI_AMO_CSWAP, 0);
	put8(src, DI, 0, 8, 0);
	fma_sync(src, DI, GEMINI_FMA_SYNC_NO_EVENT, 3);
	run(f);
	CHECK_EVENT(next_event(f, 0, LCQ), GEMINI_CQE_SRC_SSID_SREQ,
		    GEMINI_STATUS_INV_CMD, 3);
	/* A misaligned AMO is refused by the target. */
	fma_cmd(src, DI, GEMINI_AMO_ADD, 0);
	put8(src, DI, 4, 8, 0);
	fma_sync(src, DI, GEMINI_FMA_SYNC_LOCAL_EVENT, 4);
	run(f);
	CHECK_EVENT(next_event(f, 0, LCQ), GEMINI_CQE_SRC_SSID_SREQ,
		    GEMINI_STATUS_MALFORMED, 4);
	fab_free(f);
}

/* Remote events, flags and CQ writes at the target. */
static void test_sync_remote(void)
{
	struct fabric *f = fma_fabric(3, 1, 1);
	struct gemini_nic *src = nic_of(f, 0);
	struct node *tgt = &f->node[2];
	unsigned int i;

	fma_cmd(src, DI, GEMINI_FMA_CMD_PUT, 0);
	fma_base(src, DI, GEMINI_PE(2, 0), 0x1000);
	/* The library's way: alloc, puts, flag operands, sync. */
	win_wr(src, user_qw(DI, GEMINI_FMA_QW_ALLOC_SYNCID), 8, 0xff);
	CHECK_EQ(SSIDS(fma_status(src, DI)), 1);
	for (i = 0; i < 8; i++)
		put8(src, DI, 8 * i, 8, 0x100 + i);
	win_wr(src, user_qw(DI, GEMINI_FMA_QW_SCRATCH0), 8, 0xf1a9);
	win_wr(src, user_qw(DI, GEMINI_FMA_QW_SCRATCH1), 8, 0x2000);
	fma_sync(src, DI, GEMINI_FMA_SYNC_LOCAL_EVENT |
		 GEMINI_FMA_SYNC_REMOTE_EVENT | GEMINI_FMA_SYNC_WITH_FLAG,
		 0x00aabbccddeeffull);
	/* Nothing reaches the target CQ before all data is in. */
	CHECK_EQ(next_event(f, 2, RCQ), 0);
	run(f);
	for (i = 0; i < 8; i++)
		CHECK_EQ(mem_le64(tgt, DOM_BASE + 0x1000 + 8 * i), 0x100 + i);
	CHECK_EQ(mem_le64(tgt, DOM_BASE + 0x2000), 0xf1a9);
	CHECK_EVENT(next_event(f, 2, RCQ), GEMINI_CQE_SRC_RMT_SREQ, 0,
		    0x00aabbccddeeffull);
	CHECK_EQ(next_event(f, 2, RCQ), 0);
	CHECK_EVENT(next_event(f, 0, LCQ), GEMINI_CQE_SRC_SSID_SREQ, 0,
		    0x00aabbccddeeffull);
	CHECK_EQ(next_event(f, 0, LCQ), 0);
	CHECK_EQ(fma_status(src, DI), 0);

	/* A sync with nothing in flight: the window base is the target. */
	fma_sync(src, DI, GEMINI_FMA_SYNC_REMOTE_EVENT, 0x77);
	run(f);
	CHECK_EVENT(next_event(f, 2, RCQ), GEMINI_CQE_SRC_RMT_SREQ, 0, 0x77);
	CHECK_EQ(next_event(f, 0, LCQ), 0);	/* no local event asked */

	/* PostCqWrite: the CQ-write doorbell, then a sync. */
	win_wr(src, user_qw(DI, GEMINI_FMA_QW_CQ_WRITE), 8, 0xffff123456789abcull);
	fma_sync(src, DI, GEMINI_FMA_SYNC_LOCAL_EVENT, 0x99);
	run(f);
	CHECK_EVENT(next_event(f, 2, RCQ), GEMINI_CQE_SRC_RMT_SREQ, 0,
		    0xffff123456789abcull & GEMINI_CQE_DATA_MASK);
	CHECK_EVENT(next_event(f, 0, LCQ), GEMINI_CQE_SRC_SSID_SREQ, 0, 0x99);
	CHECK_EQ(f->node[0].guest_errors, 0);
	fab_free(f);
}

/* gemini_window_store(@off, 8 bytes, @v): OK, and whether it moved */
static bool stored(struct gemini_nic *nic, uint64_t off, uint64_t v)
{
	enum gemini_access r;
	bool moved = gemini_window_store(nic, off, 8, v, &r);

	CHECK_EQ(r, GEMINI_ACCESS_OK);
	return moved;
}

/*
 * What a store tells its caller: a poll is due after one that issued a
 * request or went to another block than FMA, and not after an FMA store
 * that issued nothing (the glue skips the poll then).
 */
static void test_store_moved(void)
{
	struct fabric *f = fma_fabric(2, 1, 1);
	struct gemini_nic *src = nic_of(f, 0);
	const uint64_t sync = (uint64_t)GEMINI_FMA_SYNC_LOCAL_EVENT <<
			      GEMINI_FMA_SYNC_TYPE_SHIFT | 0x5;

	fma_cmd(src, DI, GEMINI_FMA_CMD_PUT, 0);
	fma_base(src, DI, GEMINI_PE(1, 0), 0x1000);
	CHECK(!stored(src, user_qw(DI, GEMINI_FMA_QW_SCRATCH0), 1));
	CHECK(!stored(src, priv_qw(DI, GEMINI_FMA_QW_SCRATCH1), 2));
	CHECK(stored(src, GEMINI_FMA_WINDOW(GEMINI_FMA_PUT_UC, DI), 0x42));
	/*
	 * The first sync to ask for an event: until then the ACK could wait
	 * and may be in unrung (gemini_nic_publish_acks()), so it moved.
	 */
	CHECK(gemini_nic_acks_lazy(src));
	CHECK(stored(src, user_qw(DI, GEMINI_FMA_QW_SYNCCMP), sync));
	CHECK(!gemini_nic_acks_lazy(src));
	/* The next one, its answer not in yet, only closes its sequence. */
	CHECK(stored(src, GEMINI_FMA_WINDOW(GEMINI_FMA_PUT_UC, DI) + 0x10,
		     0x44));
	CHECK(!stored(src, user_qw(DI, GEMINI_FMA_QW_SYNCCMP), sync + 8));
	run(f);
	CHECK_EQ(mem_le64(&f->node[1], DOM_BASE + 0x1000), 0x42);
	CHECK_EQ(mem_le64(&f->node[1], DOM_BASE + 0x1010), 0x44);
	CHECK_EVENT(next_event(f, 0, LCQ), GEMINI_CQE_SRC_SSID_SREQ, 0, 0x5);
	CHECK_EVENT(next_event(f, 0, LCQ), GEMINI_CQE_SRC_SSID_SREQ, 0, 0xd);
	CHECK(gemini_nic_acks_lazy(src));
	/* A write-combined store opens a line; the sync sends it. */
	CHECK(!stored(src, GEMINI_FMA_WINDOW(GEMINI_FMA_PUT_WC, DI) + 8, 0x43));
	CHECK(gemini_fma_wc_open(src));
	CHECK(stored(src, user_qw(DI, GEMINI_FMA_QW_SYNCCMP), sync + 2));
	CHECK(!gemini_fma_wc_open(src));
	run(f);
	CHECK_EQ(mem_le64(&f->node[1], DOM_BASE + 0x1008), 0x43);
	CHECK_EVENT(next_event(f, 0, LCQ), GEMINI_CQE_SRC_SSID_SREQ, 0, 0x7);
	/* A sync that sends (the remote event) moved. */
	CHECK(stored(src, user_qw(DI, GEMINI_FMA_QW_SYNCCMP),
		     (uint64_t)GEMINI_FMA_SYNC_REMOTE_EVENT <<
		     GEMINI_FMA_SYNC_TYPE_SHIFT | 0x6));
	run(f);
	CHECK_EVENT(next_event(f, 1, RCQ), GEMINI_CQE_SRC_RMT_SREQ, 0, 0x6);
	/* Another block's register: the glue polls, whatever it did. */
	CHECK(stored(src, GEMINI_CQ_USER_PAGE(LCQ), 0));
	CHECK_EQ(f->node[0].guest_errors, 0);
	fab_free(f);
}

/*
 * ACKs that may wait: while no sequence of the source asks for an event
 * or a flag, the target does not ring it for an ACK, and the source's
 * poll asks to come back within 500 us while its requests are out; a
 * sequence that asks for an event has its ACK rung.
 */
static void test_lazy_acks(void)
{
	struct fabric *f = fma_fabric(2, 1, 1);
	struct gemini_nic *src = nic_of(f, 0), *tgt = nic_of(f, 1);
	const uint64_t put = GEMINI_FMA_WINDOW(GEMINI_FMA_PUT_UC, DI);
	unsigned long kicks;
	uint64_t deadline;

	fma_cmd(src, DI, GEMINI_FMA_CMD_PUT, 0);
	fma_base(src, DI, GEMINI_PE(1, 0), 0x2000);
	/* A silent PUT: sent and armed for by a full poll of the source */
	CHECK(stored(src, put, 0x51));
	CHECK(!stored(src, user_qw(DI, GEMINI_FMA_QW_SYNCCMP), 0));
	deadline = gemini_nic_poll(src);
	CHECK(gemini_nic_acks_lazy(src));
	CHECK(deadline <= clock_ns + 500000);
	kicks = f->node[1].kicks;
	gemini_nic_poll(tgt);
	CHECK_EQ(mem_le64(&f->node[1], DOM_BASE + 0x2000), 0x51);
	CHECK_EQ(f->node[1].kicks, kicks);		/* the ACK unrung */
	CHECK_EQ(SSIDS(fma_status(src, DI)), 1);	/* and not taken */
	gemini_nic_poll(src);
	CHECK_EQ(fma_status(src, DI), 0);
	CHECK_EQ(gemini_nic_poll(src), UINT64_MAX);	/* nothing out */
	/* The same with a local event: its ACK rings the source. */
	CHECK(stored(src, put + 8, 0x52));
	CHECK(stored(src, user_qw(DI, GEMINI_FMA_QW_SYNCCMP),
		     (uint64_t)GEMINI_FMA_SYNC_LOCAL_EVENT <<
		     GEMINI_FMA_SYNC_TYPE_SHIFT | 0x9));
	gemini_nic_poll(src);
	CHECK(!gemini_nic_acks_lazy(src));
	kicks = f->node[1].kicks;
	gemini_nic_poll(tgt);
	CHECK_EQ(f->node[1].kicks, kicks + 1);
	gemini_nic_poll(src);
	CHECK_EVENT(next_event(f, 0, LCQ), GEMINI_CQE_SRC_SSID_SREQ, 0, 0x9);
	CHECK(gemini_nic_acks_lazy(src));
	CHECK_EQ(src->fma.stats.responses, 2);
	CHECK_EQ(f->node[0].guest_errors + f->node[1].guest_errors, 0);
	fab_free(f);
}

/*
 * The write-combining window: contiguous stores within a 64-byte line
 * make one request, sent when the line fills, when another store or
 * register access comes, or on the poll; the data lands byte for byte.
 */
static void test_write_combining(void)
{
	struct fabric *f = fma_fabric(2, 1, 1);
	struct gemini_nic *src = nic_of(f, 0);
	struct node *tgt = &f->node[1];
	uint64_t req0 = src->fma.stats.requests;
	unsigned int i;

	fma_cmd(src, DI, GEMINI_FMA_CMD_PUT, 0);
	fma_base(src, DI, GEMINI_PE(1, 0), 0x2000);
	/* A full line of 8-byte stores: one request of 64 bytes. */
	for (i = 0; i < 8; i++)
		put_wc(src, DI, 64 + 8 * i, 8, 0x1111111111111111ull * (i + 1));
	CHECK(!gemini_fma_wc_open(src));
	CHECK_EQ(src->fma.stats.requests - req0, 1);
	CHECK_EQ(src->fma.stats.wc_merged, 7);
	/* Byte, half and word stores merge too; a gap sends the line. */
	put_wc(src, DI, 128, 1, 0xa1);
	put_wc(src, DI, 129, 1, 0xa2);
	put_wc(src, DI, 130, 2, 0xa4a3);
	put_wc(src, DI, 132, 4, 0xa8a7a6a5);
	CHECK_EQ(src->fma.stats.requests - req0, 1);
	put_wc(src, DI, 144, 8, 0xb0);		/* not 136: a new line */
	CHECK_EQ(src->fma.stats.requests - req0, 2);
	CHECK(gemini_fma_wc_open(src));
	/* The poll sends a line left open. */
	gemini_nic_poll(src);
	CHECK(!gemini_fma_wc_open(src));
	CHECK_EQ(src->fma.stats.requests - req0, 3);
	/* A store that would cross the line's end is its own request. */
	put_wc(src, DI, 188, 8, 0xc0c0c0c0c0c0c0c0ull);
	CHECK(!gemini_fma_wc_open(src));
	CHECK_EQ(src->fma.stats.requests - req0, 4);
	/* Another descriptor's store sends the open line first. */
	fma_kernel(src, DI + 1, PTAG, 0);
	fma_cmd(src, DI + 1, GEMINI_FMA_CMD_PUT, 0);
	fma_base(src, DI + 1, GEMINI_PE(1, 0), 0x3000);
	put_wc(src, DI, 256, 8, 0xd0);
	put_wc(src, DI + 1, 264, 8, 0xe0);
	CHECK_EQ(src->fma.stats.requests - req0, 5);
	put8(src, DI + 1, 272, 8, 0xf0);	/* uncached: at once */
	CHECK_EQ(src->fma.stats.requests - req0, 7);
	run(f);
	for (i = 0; i < 8; i++)
		CHECK_EQ(mem_le64(tgt, DOM_BASE + 0x2040 + 8 * i),
			 0x1111111111111111ull * (i + 1));
	CHECK_EQ(mem_le64(tgt, DOM_BASE + 0x2080), 0xa8a7a6a5a4a3a2a1ull);
	CHECK_EQ(mem_le64(tgt, DOM_BASE + 0x2090), 0xb0);
	CHECK_EQ(mem_le64(tgt, DOM_BASE + 0x20bc), 0xc0c0c0c0c0c0c0c0ull);
	CHECK_EQ(mem_le64(tgt, DOM_BASE + 0x2100), 0xd0);
	CHECK_EQ(mem_le64(tgt, DOM_BASE + 0x3108), 0xe0);
	CHECK_EQ(mem_le64(tgt, DOM_BASE + 0x3110), 0xf0);
	CHECK_EQ(src->fma.stats.refused, 0);
	CHECK_EQ(f->node[0].guest_errors, 0);
	fab_free(f);
}

/* A wrong ptag: PROTECTION in the local event, target untouched. */
static void test_protection(void)
{
	struct fabric *f = fma_fabric(2, 1, 1);
	struct gemini_nic *src = nic_of(f, 0);
	struct node *tgt = &f->node[1];
	uint8_t before[256];

	memcpy(before, tgt->mem + (DOM_BASE - MEM_BASE), sizeof(before));
	fma_kernel(src, 7, BAD_PTAG, 0);
	fma_cmd(src, 7, GEMINI_FMA_CMD_PUT, 0);
	fma_base(src, 7, GEMINI_PE(1, 0), 0);
	put8(src, 7, 0, 8, ~0ull);
	put8(src, 7, 64, 4, ~0ull);
	win_wr(src, user_qw(7, GEMINI_FMA_QW_SCRATCH0), 8, 1);
	win_wr(src, user_qw(7, GEMINI_FMA_QW_SCRATCH1), 8, 128);
	fma_sync(src, 7, GEMINI_FMA_SYNC_LOCAL_EVENT |
		 GEMINI_FMA_SYNC_REMOTE_EVENT | GEMINI_FMA_SYNC_WITH_FLAG, 0x42);
	run(f);
	CHECK_EQ(memcmp(before, tgt->mem + (DOM_BASE - MEM_BASE),
			sizeof(before)), 0);
	CHECK_EVENT(next_event(f, 0, LCQ), GEMINI_CQE_SRC_SSID_SREQ,
		    GEMINI_STATUS_PROTECTION, 0x42);
	/*
	 * A failed sequence writes no flag and raises no remote event: its
	 * flag, sent with its requests, is refused with their error.
	 */
	CHECK_EQ(next_event(f, 1, RCQ), 0);
	CHECK_EQ(src->fma.stats.flags_early, 1);
	CHECK_EQ(tgt->nic.rmt.req_refused, 3);
	CHECK_EQ(src->fma.stats.errors, 3);
	/* A failure is reported even when no event was asked for. */
	put8(src, 7, 0, 8, 1);
	fma_sync(src, 7, GEMINI_FMA_SYNC_NO_EVENT, 0x43);
	run(f);
	CHECK_EVENT(next_event(f, 0, LCQ), GEMINI_CQE_SRC_SSID_SREQ,
		    GEMINI_STATUS_PROTECTION, 0x43);
	/* The descriptor is not enabled: refused at the source. */
	win_wr(src, priv_qw(8, GEMINI_FMA_QW_PE), 8,
	       (uint64_t)LCQ << GEMINI_FMA_CQH_SHIFT);
	put8(src, 8, 0, 8, 1);
	CHECK(FLAGS(fma_status(src, 8)) & GEMINI_FMA_FLAG_HT_REQ);
	fma_sync(src, 8, GEMINI_FMA_SYNC_LOCAL_EVENT, 0x44);
	run(f);
	CHECK_EVENT(next_event(f, 0, LCQ), GEMINI_CQE_SRC_SSID_SREQ,
		    GEMINI_STATUS_INV_CMD, 0x44);
	CHECK_EQ(tgt->nic.rmt.req_done + tgt->nic.rmt.req_refused, 4);
	fab_free(f);
}

/* NTT translation of virtual PEs, and the group bound. */
static void test_ntt(void)
{
	struct fabric *f = fma_fabric(4, 1, 1);
	struct gemini_nic *src = nic_of(f, 0);
	const unsigned int base = 10, npes = 3;
	unsigned int v;

	/* Ranks 0, 1, 2 of the group are nodes 3, 1, 2. */
	win_wr(src, GEMINI_MMR_NTT_ENTRY(0, 5) + GEMINI_NTT_WRITE_BOTH, 8,
	       (uint64_t)GEMINI_PE(9, 0) | (uint64_t)GEMINI_PE(3, 0) << 18);
	win_wr(src, GEMINI_MMR_NTT_ENTRY(0, 6) + GEMINI_NTT_WRITE_BOTH, 8,
	       (uint64_t)GEMINI_PE(1, 0) | (uint64_t)GEMINI_PE(2, 0) << 18);
	fma_kernel(src, DI, PTAG, (uint64_t)npes << GEMINI_FMA_NUM_PES_SHIFT |
		   (uint64_t)(base + 1) << GEMINI_FMA_PE_BASE_SHIFT |
		   GEMINI_FMA_MODE3_NTT_ENABLE << GEMINI_FMA_MODE3_SHIFT);
	fma_cmd(src, DI, GEMINI_FMA_CMD_PUT, 0);
	for (v = 0; v < npes; v++) {
		fma_base(src, DI, v, 0x3000);
		put8(src, DI, 8, 8, 0x5000 + v);
	}
	fma_sync(src, DI, GEMINI_FMA_SYNC_LOCAL_EVENT, 1);
	run(f);
	CHECK_EVENT(next_event(f, 0, LCQ), GEMINI_CQE_SRC_SSID_SREQ, 0, 1);
	CHECK_EQ(mem_le64(&f->node[3], DOM_BASE + 0x3008), 0x5000);
	CHECK_EQ(mem_le64(&f->node[1], DOM_BASE + 0x3008), 0x5001);
	CHECK_EQ(mem_le64(&f->node[2], DOM_BASE + 0x3008), 0x5002);
	/* Rank 3 is outside the group of 3: NPES, nothing sent. */
	fma_base(src, DI, npes, 0x3000);
	put8(src, DI, 16, 8, 0x6000);
	CHECK_EQ(FLAGS(fma_status(src, DI)), GEMINI_FMA_FLAG_NPES);
	CHECK_EQ(WC(fma_status(src, DI)), 0);
	fma_sync(src, DI, GEMINI_FMA_SYNC_LOCAL_EVENT, 2);
	run(f);
	CHECK_EVENT(next_event(f, 0, LCQ), GEMINI_CQE_SRC_SSID_SREQ,
		    GEMINI_STATUS_NPES, 2);
	for (v = 0; v < 4; v++)
		CHECK_EQ(mem_le64(&f->node[v], DOM_BASE + 0x3010), 0);
	/* The user cannot widen its group. */
	CHECK_EQ(gemini_window_write(src, user_qw(DI, GEMINI_FMA_QW_PE), 8,
				     win_rd(src, user_qw(DI, GEMINI_FMA_QW_PE),
					    8) | 0xff), GEMINI_ACCESS_READ_ONLY);
	CHECK_EQ(win_rd(src, priv_qw(DI, GEMINI_FMA_QW_PE), 8) & 0x3ffff, npes);
	fab_free(f);
}

/* PE mask mode 7: one 64-byte block per PE across the window. */
static void test_pe_mask_mode(void)
{
	struct fabric *f = fma_fabric(4, 1, 1);
	struct gemini_nic *src = nic_of(f, 0);
	/* mode 7 (shift 6): offset 0x1000 = bits 5..0, then PE, then the rest */
	const uint64_t base = (0x1000ull >> 6) << (6 + GEMINI_PE_BITS);
	unsigned int k;

	fma_cmd(src, DI, GEMINI_FMA_CMD_PUT, 7);
	win_wr(src, user_qw(DI, GEMINI_FMA_QW_BASE_OFFSET), 8, base);
	for (k = 0; k < 4; k++)
		put8(src, DI, ((uint64_t)GEMINI_PE(k, 0) << 6) + 8, 8,
		     0x7700 + k);
	fma_sync(src, DI, GEMINI_FMA_SYNC_LOCAL_EVENT, 7);
	run(f);
	CHECK_EVENT(next_event(f, 0, LCQ), GEMINI_CQE_SRC_SSID_SREQ, 0, 7);
	for (k = 0; k < 4; k++)
		CHECK_EQ(mem_le64(&f->node[k], DOM_BASE + 0x1008), 0x7700 + k);
	fab_free(f);
}

/* Responses in any order; the sequence ends after the last one. */
static void test_out_of_order(void)
{
	struct fabric *f = fma_fabric(5, 1, 1);
	struct gemini_nic *src = nic_of(f, 0);
	unsigned int far_tag, r;

	/* A GET two hops away, then a PUT one hop away, one sequence. */
	fma_cmd(src, DI, GEMINI_FMA_CMD_GET, 0);
	fma_base(src, DI, GEMINI_PE(2, 0), 0x100);
	mem_set64(&f->node[2], DOM_BASE + 0x100, 0xfa5);
	far_tag = src->fma.next_tag;
	gcw(src, DI, 0, GEMINI_GCW_GET(8, 0x500));
	fma_cmd(src, DI, GEMINI_FMA_CMD_PUT, 0);
	fma_base(src, DI, GEMINI_PE(1, 0), 0x100);
	put8(src, DI, 0, 8, 0xea5);
	fma_sync(src, DI, GEMINI_FMA_SYNC_LOCAL_EVENT, 0x0d);
	/* The near PUT is answered first; the GET is still out. */
	for (r = 0; r < 1000 && WC(fma_status(src, DI)); r++)
		step(f);
	CHECK_EQ(WC(fma_status(src, DI)), 0);
	CHECK_EQ(RC(fma_status(src, DI)), 1);
	CHECK_EQ(src->fma.orb[far_tag].state, GEMINI_ORB_SENT);
	CHECK_EQ(next_event(f, 0, LCQ), 0);
	run(f);
	CHECK_EQ(mem_le64(&f->node[0], DOM_BASE + 0x500), 0xfa5);
	CHECK_EQ(mem_le64(&f->node[1], DOM_BASE + 0x100), 0xea5);
	CHECK_EVENT(next_event(f, 0, LCQ), GEMINI_CQE_SRC_SSID_SREQ, 0, 0x0d);
	CHECK_EQ(fma_status(src, DI), 0);

	/* Many sequences of several descriptors interleaved, delayed links. */
	{
		char err[128];
		unsigned int i, d;

		CHECK_EQ(gemini_fault_set(nic_of(f, 1), GEMINI_PORT_XM,
					  "delay=0.3,delay-ms=3,seed=7", err,
					  sizeof(err)), 0);
		for (d = 10; d < 14; d++) {
			fma_kernel(src, d, PTAG, 0);
			fma_cmd(src, d, GEMINI_FMA_CMD_PUT, 0);
			fma_base(src, d, GEMINI_PE(1 + d % 4, 0), 0x800);
		}
		for (i = 0; i < 40; i++)
			for (d = 10; d < 14; d++) {
				put8(src, d, 8 * i, 8, d << 16 | i);
				if (i % 10 == 9)
					fma_sync(src, d,
						 GEMINI_FMA_SYNC_LOCAL_EVENT,
						 d << 8 | i);
			}
		run_for(f, MS(50));
		for (d = 10; d < 14; d++)
			for (i = 0; i < 40; i++)
				CHECK_EQ(mem_le64(&f->node[1 + d % 4],
						  DOM_BASE + 0x800 + 8 * i),
					 d << 16 | i);
		for (i = 0; i < 16; i++) {
			uint64_t e = next_event(f, 0, LCQ);

			CHECK_EQ((e >> GEMINI_CQE_STATUS_SHIFT) & 0xf, 0);
			CHECK_EQ((e >> GEMINI_CQE_SOURCE_SHIFT) & 7,
				 GEMINI_CQE_SRC_SSID_SREQ);
		}
		CHECK_EQ(next_event(f, 0, LCQ), 0);
		CHECK_EQ(src->fma.stats.stale, 0);
		CHECK_EQ(src->fma.stats.timeouts, 0);
	}
	fab_free(f);
}

/* A dead link: REQUEST_TIMEOUT; a late or unknown response is stale. */
static void test_timeout_stale(void)
{
	struct fabric *f = fma_fabric(3, 1, 1);
	struct gemini_nic *src = nic_of(f, 0);
	struct gemini_pkt ack = {
		.vc = GEMINI_VC_RSP, .type = GEMINI_PKT_ACK, .dst = 0,
	};
	char err[128];
	uint64_t stale;
	unsigned int tag;

	CHECK_EQ(gemini_fault_set(src, GEMINI_PORT_XP, "down=1", err,
				  sizeof(err)), 0);
	fma_cmd(src, DI, GEMINI_FMA_CMD_PUT, 0);
	fma_base(src, DI, GEMINI_PE(1, 0), 0);
	tag = src->fma.next_tag;
	put8(src, DI, 0, 8, 1);
	fma_cmd(src, DI, GEMINI_FMA_CMD_GET, 0);
	gcw(src, DI, 0, GEMINI_GCW_GET(8, 0x100));
	fma_sync(src, DI, GEMINI_FMA_SYNC_LOCAL_EVENT, 0x7e);
	run(f);
	CHECK_EQ(next_event(f, 0, LCQ), 0);
	CHECK_EQ(WC(fma_status(src, DI)), 1);
	CHECK_EQ(RC(fma_status(src, DI)), 1);
	/* The deadline the core asks for is the timeout. */
	CHECK(gemini_nic_poll(src) <= clock_ns + MS(GEMINI_FMA_TIMEOUT_MS));
	run_for(f, MS(GEMINI_FMA_TIMEOUT_MS) + MS(10));
	CHECK_EVENT(next_event(f, 0, LCQ), GEMINI_CQE_SRC_SSID_SREQ,
		    GEMINI_STATUS_TIMEOUT, 0x7e);
	CHECK_EQ(next_event(f, 0, LCQ), 0);
	CHECK_EQ(fma_status(src, DI) & 0xffffffffffffull, 0);
	CHECK_EQ(src->fma.stats.timeouts, 2);
	CHECK_EQ(src->fma.orb[tag].state, GEMINI_ORB_RESTING);

	/* A late response to the timed-out tag, and one nobody sent. */
	CHECK_EQ(gemini_fault_set(src, GEMINI_PORT_XP, "", err, sizeof(err)),
		 0);
	stale = src->nic_ctr[VGEMINI_NC_STALE_RSP];
	ack.tag = (uint16_t)tag;
	CHECK_EQ(gemini_router_inject(nic_of(f, 1), &ack), 0);
	ack.tag = 400;
	CHECK_EQ(gemini_router_inject(nic_of(f, 1), &ack), 0);
	ack.tag = GEMINI_TAG_DIAG | 3;
	CHECK_EQ(gemini_router_inject(nic_of(f, 1), &ack), 0);
	/* A BTE tag while the BTE has no request out */
	ack.tag = GEMINI_TAG_BTE_FIRST + 5;
	CHECK_EQ(gemini_router_inject(nic_of(f, 1), &ack), 0);
	run(f);
	CHECK_EQ(src->nic_ctr[VGEMINI_NC_STALE_RSP], stale + 4);
	CHECK_EQ(src->fma.stats.stale, 2);
	CHECK_EQ(next_event(f, 0, LCQ), 0);
	CHECK_EQ(fma_status(src, DI) & 0xffffffffffffull, 0);
	/* The link is back: the descriptor works again. */
	fma_cmd(src, DI, GEMINI_FMA_CMD_PUT, 0);
	put8(src, DI, 0x40, 8, 0x600d);
	fma_sync(src, DI, GEMINI_FMA_SYNC_LOCAL_EVENT, 0x7f);
	run(f);
	CHECK_EVENT(next_event(f, 0, LCQ), GEMINI_CQE_SRC_SSID_SREQ, 0, 0x7f);
	CHECK_EQ(mem_le64(&f->node[1], DOM_BASE + 0x40), 0x600d);
	/* The timed-out tag rests, then is free again. */
	run_for(f, MS(GEMINI_FMA_TIMEOUT_MS) + MS(10));
	put8(src, DI, 0x48, 8, 1);
	fma_sync(src, DI, GEMINI_FMA_SYNC_NO_EVENT, 0);
	run(f);
	CHECK_EQ(src->fma.orb_used, 0);
	fab_free(f);
}

/*
 * The sender's QEMU stops for 3 s (no poll, no tick) while its request's
 * answer waits in the link: on resume the request completes OK instead of
 * timing out; a request whose answer never comes still times out, 2 s of
 * running time later.
 */
static void test_pause(void)
{
	struct fabric *f = fma_fabric(2, 1, 1);
	struct gemini_nic *src = nic_of(f, 0);
	char err[128];
	uint32_t i;

	fma_cmd(src, DI, GEMINI_FMA_CMD_PUT, 0);
	fma_base(src, DI, GEMINI_PE(1, 0), 0x100);
	put8(src, DI, 0, 8, 0x5a5a);
	fma_sync(src, DI, GEMINI_FMA_SYNC_LOCAL_EVENT, 0x51);
	gemini_nic_poll(src);			/* the request leaves */
	for (i = 0; i < 200; i++) {		/* only node 1 runs */
		gemini_nic_poll(nic_of(f, 1));
		clock_ns += MS(15);
	}
	run(f);
	CHECK_EVENT(next_event(f, 0, LCQ), GEMINI_CQE_SRC_SSID_SREQ, 0, 0x51);
	CHECK_EQ(mem_le64(&f->node[1], DOM_BASE + 0x100), 0x5a5a);
	CHECK_EQ(src->fma.stats.timeouts, 0);
	CHECK_EQ(src->fma.stats.paused, 1);

	/* A link that is really dead still times out. */
	CHECK_EQ(gemini_fault_set(src, GEMINI_PORT_XP, "down=1", err,
				  sizeof(err)), 0);
	CHECK_EQ(gemini_fault_set(src, GEMINI_PORT_XM, "down=1", err,
				  sizeof(err)), 0);
	put8(src, DI, 8, 8, 1);
	fma_sync(src, DI, GEMINI_FMA_SYNC_LOCAL_EVENT, 0x52);
	run_for(f, MS(GEMINI_FMA_TIMEOUT_MS) + MS(50));
	CHECK_EVENT(next_event(f, 0, LCQ), GEMINI_CQE_SRC_SSID_SREQ,
		    GEMINI_STATUS_TIMEOUT, 0x52);
	fab_free(f);
}

/* ORB and SSIDs run out: the stores are refused, visibly; none is lost. */
static void test_exhaustion(void)
{
	struct fabric *f = fma_fabric(2, 1, 1);
	struct gemini_nic *src = nic_of(f, 0);
	const unsigned int n = GEMINI_ORB_SIZE + 20;
	unsigned int i, ok = 0, failed = 0;
	uint64_t st, e;

	fma_cmd(src, DI, GEMINI_FMA_CMD_PUT, 0);
	fma_base(src, DI, GEMINI_PE(1, 0), 0);
	/* Hold the fabric: requests pile up in the router and the FMA. */
	gemini_router_quiesce(src, true);
	for (i = 0; i < n; i++)
		put8(src, DI, 8 * i, 8, 0xc0de0000 + i);
	st = fma_status(src, DI);
	CHECK_EQ(WC(st), GEMINI_ORB_SIZE);
	CHECK(FLAGS(st) & GEMINI_FMA_FLAG_HT_REQ);
	CHECK_EQ(src->fma.stats.orb_full, 20);
	CHECK_EQ(src->fma.qcount + src->router.inject[0].count,
		 GEMINI_ORB_SIZE);
	fma_sync(src, DI, GEMINI_FMA_SYNC_LOCAL_EVENT, 0x5);
	gemini_router_quiesce(src, false);
	run(f);
	for (i = 0; i < GEMINI_ORB_SIZE; i++)
		CHECK_EQ(mem_le64(&f->node[1], DOM_BASE + 8 * i),
			 0xc0de0000 + i);
	CHECK_EQ(mem_le64(&f->node[1], DOM_BASE + 8 * GEMINI_ORB_SIZE), 0);
	CHECK_EVENT(next_event(f, 0, LCQ), GEMINI_CQE_SRC_SSID_SREQ,
		    GEMINI_STATUS_SSID_STATE, 0x5);
	win_wr(src, user_qw(DI, GEMINI_FMA_QW_STATUS), 8, ~0ull);

	/* SSIDs: 255 sequences in flight at once, then one too many. */
	{
		struct cq_cfg big = { .base = LCQ_BASE, .max_index = 511,
				      .enable = true };

		cq_set(src, LCQ, &big);
	}
	gemini_router_quiesce(src, true);
	for (i = 0; i < GEMINI_NUM_SSID + 1; i++) {
		put8(src, DI, 8 * i, 4, i);
		fma_sync(src, DI, GEMINI_FMA_SYNC_LOCAL_EVENT, i);
	}
	st = fma_status(src, DI);
	CHECK_EQ(SSIDS(st), GEMINI_NUM_SSID);
	CHECK(FLAGS(st) & GEMINI_FMA_FLAG_SYNCID_ALLOC);
	CHECK_EQ(src->fma.stats.ssid_full, 2);
	gemini_router_quiesce(src, false);
	run(f);
	/* Events come in completion order; count them by status. */
	CHECK_EQ(cq_wr_index(src, LCQ), GEMINI_NUM_SSID + 1);
	for (i = 0; i < GEMINI_NUM_SSID + 1; i++) {
		e = mem_le64(&f->node[0], LCQ_BASE + 8 * i);
		CHECK(!(e & GEMINI_CQE_OVERRUN));
		if ((e >> GEMINI_CQE_STATUS_SHIFT & 0xf) == 0)
			ok++;
		else if ((e >> GEMINI_CQE_STATUS_SHIFT & 0xf) ==
			 GEMINI_STATUS_SSID_STATE &&
			 (e & GEMINI_CQE_DATA_MASK) == GEMINI_NUM_SSID)
			failed++;
	}
	CHECK_EQ(ok, GEMINI_NUM_SSID);
	CHECK_EQ(failed, 1);
	CHECK_EQ(SSIDS(fma_status(src, DI)), 0);
	fab_free(f);
}

/*
 * Balanced injection (VGEMINI_CTL_ORB_LIMIT): with a limit of 2, at most
 * two requests are in flight and the others wait in the ORB, in order;
 * every PUT lands and the sequence completes.  A value above the ORB's
 * size lifts the limit.
 */
static void test_balanced_injection(void)
{
	struct fabric *f = fma_fabric(2, 1, 1);
	struct gemini_nic *src = nic_of(f, 0);
	const unsigned int n = 32;
	unsigned int i;
	uint64_t v = 1;

	CHECK_EQ(gemini_ctl_read(src, VGEMINI_CTL_ORB_LIMIT, 4, &v),
		 GEMINI_ACCESS_OK);
	CHECK_EQ(v, 0);
	CHECK_EQ(gemini_ctl_write(src, VGEMINI_CTL_ORB_LIMIT, 4, 2),
		 GEMINI_ACCESS_OK);
	fma_cmd(src, DI, GEMINI_FMA_CMD_PUT, 0);
	fma_base(src, DI, GEMINI_PE(1, 0), 0);
	for (i = 0; i < n; i++)
		put8(src, DI, 8 * i, 8, 0xb1000000 + i);
	CHECK(src->fma.orb_sent <= 2);
	CHECK_EQ(src->fma.qcount + src->fma.orb_sent, n);
	fma_sync(src, DI, GEMINI_FMA_SYNC_LOCAL_EVENT, 0x77);
	run(f);
	for (i = 0; i < n; i++)
		CHECK_EQ(mem_le64(&f->node[1], DOM_BASE + 8 * i),
			 0xb1000000 + i);
	CHECK_EVENT(next_event(f, 0, LCQ), GEMINI_CQE_SRC_SSID_SREQ, 0, 0x77);
	CHECK(src->fma.stats.bi_held > 0);
	CHECK_EQ(src->fma.orb_sent, 0);
	CHECK_EQ(src->fma.stats.requests, src->fma.stats.responses);
	CHECK_EQ(gemini_ctl_write(src, VGEMINI_CTL_ORB_LIMIT, 4,
				  GEMINI_ORB_SIZE + 1), GEMINI_ACCESS_OK);
	CHECK_EQ(gemini_ctl_read(src, VGEMINI_CTL_ORB_LIMIT, 4, &v),
		 GEMINI_ACCESS_OK);
	CHECK_EQ(v, 0);
	fab_free(f);
}

/*
 * Every tag taken and then timed out: a timed-out tag rests for the
 * timeout before reuse, so stores are refused until the oldest have
 * rested, and then exactly those are taken again (the core answers a
 * store to a full ORB without looking at every entry; this is what that
 * shortcut must keep).
 */
static void test_orb_rest(void)
{
	const unsigned int half = GEMINI_ORB_SIZE / 2;
	struct fabric *f = fma_fabric(2, 1, 1);
	struct gemini_nic *src = nic_of(f, 0);
	uint64_t t0, full;
	char err[128];
	unsigned int i;

	CHECK_EQ(gemini_fault_set(src, GEMINI_PORT_XP, "down=1", err,
				  sizeof(err)), 0);
	CHECK_EQ(gemini_fault_set(src, GEMINI_PORT_XM, "down=1", err,
				  sizeof(err)), 0);
	fma_cmd(src, DI, GEMINI_FMA_CMD_PUT, 0);
	fma_base(src, DI, GEMINI_PE(1, 0), 0);
	/* Two halves of the ORB, 500 ms apart. */
	t0 = clock_ns;
	for (i = 0; i < half; i++)
		put8(src, DI, 8 * i, 8, i);
	run_for(f, MS(500));
	for (i = half; i < GEMINI_ORB_SIZE; i++)
		put8(src, DI, 8 * i, 8, i);
	CHECK_EQ(src->fma.orb_used, GEMINI_ORB_SIZE);
	full = src->fma.stats.orb_full;
	put8(src, DI, 0, 8, 1);
	CHECK_EQ(src->fma.stats.orb_full, full + 1);
	/* Both halves time out and rest; their tags stay taken. */
	run_for(f, MS(GEMINI_FMA_TIMEOUT_MS) + MS(10));
	CHECK_EQ(src->fma.stats.timeouts, GEMINI_ORB_SIZE);
	CHECK_EQ(src->fma.orb_used, GEMINI_ORB_SIZE);
	for (i = 0; i < 100; i++)
		put8(src, DI, 0, 8, 1);
	CHECK_EQ(src->fma.stats.orb_full, full + 101);
	/* Just before the first half has rested: still refused. */
	run_for(f, t0 + 2 * MS(GEMINI_FMA_TIMEOUT_MS) - clock_ns - MS(20));
	put8(src, DI, 0, 8, 1);
	CHECK_EQ(src->fma.stats.orb_full, full + 102);
	CHECK_EQ(src->fma.stats.requests, GEMINI_ORB_SIZE);
	/*
	 * Once it has: that half is taken again, and no more.  No poll in
	 * between: the store itself finds the rested tags.
	 */
	clock_ns += MS(100);
	for (i = 0; i < half + 10; i++)
		put8(src, DI, 8 * i, 8, i);
	CHECK_EQ(src->fma.stats.requests, GEMINI_ORB_SIZE + half);
	CHECK_EQ(src->fma.stats.orb_full, full + 112);
	CHECK_EQ(src->fma.orb_used, GEMINI_ORB_SIZE);
	fab_free(f);
}

/*
 * The kernel frees a descriptor with a request in flight and gives it to
 * another job: the old sequence's events stay the old owner's, the new
 * owner inherits no error, and the SSID count drains to 0 for the kernel.
 */
static void test_reuse(void)
{
	struct fabric *f = fma_fabric(3, 1, 1);
	struct gemini_nic *src = nic_of(f, 0);
	const unsigned int cq_b = 7;
	const uint64_t cq_b_base = MEM_BASE + 0x3000;
	struct cq_cfg b = { .base = cq_b_base, .max_index = CQ_MAX,
			    .enable = true };
	char err[128];
	unsigned int round;

	cq_set(src, cq_b, &b);
	CHECK_EQ(gemini_fault_set(src, GEMINI_PORT_XP, "down=1", err,
				  sizeof(err)), 0);
	for (round = 0; round < 2; round++) {
		/* Job A: one sequence synced with an event, one left open. */
		fma_kernel(src, DI, PTAG, 0);
		fma_cmd(src, DI, GEMINI_FMA_CMD_PUT, 0);
		fma_base(src, DI, GEMINI_PE(1, 0), 0);
		put8(src, DI, 0, 8, 0xa);
		fma_sync(src, DI, GEMINI_FMA_SYNC_LOCAL_EVENT, 0xa0 + round);
		put8(src, DI, 8, 8, 0xb);
		run(f);
		CHECK_EQ(SSIDS(fma_status(src, DI)), 2);

		/* The kernel frees it (as kgni_fma_program) and gives it to B. */
		win_wr(src, priv_qw(DI, GEMINI_FMA_QW_CMD), 8, 0);
		win_wr(src, priv_qw(DI, GEMINI_FMA_QW_PE), 8,
		       (uint64_t)cq_b << GEMINI_FMA_CQH_SHIFT |
		       (uint64_t)BAD_PTAG << GEMINI_FMA_SRC_PTAG_SHIFT |
		       (uint64_t)BAD_PTAG << GEMINI_FMA_DEST_PTAG_SHIFT);
		win_wr(src, priv_qw(DI, GEMINI_FMA_QW_CMD), 8,
		       (uint64_t)GEMINI_FMA_MODE2_FMA_ENABLE <<
		       GEMINI_FMA_MODE2_SHIFT);
		run_for(f, MS(GEMINI_FMA_TIMEOUT_MS) + MS(10));

		/* A's two timeouts reach A's CQ, not B's. */
		CHECK_EVENT(next_event(f, 0, LCQ), GEMINI_CQE_SRC_SSID_SREQ,
			    GEMINI_STATUS_TIMEOUT, 0xa0 + round);
		CHECK_EVENT(next_event(f, 0, LCQ), GEMINI_CQE_SRC_SSID_SREQ,
			    GEMINI_STATUS_TIMEOUT, 0);
		CHECK_EQ(next_event(f, 0, LCQ), 0);
		CHECK_EQ(cq_wr_index(src, cq_b), round);
		CHECK_EQ(SSIDS(fma_status(src, DI)), 0);

		/* B's first sequence starts clean: loopback, no error. */
		fma_cmd(src, DI, GEMINI_FMA_CMD_PUT, 0);
		fma_base(src, DI, GEMINI_PE(0, 0), 0);
		win_wr(src, priv_qw(DI, GEMINI_FMA_QW_CMD), 8, 0);
		win_wr(src, priv_qw(DI, GEMINI_FMA_QW_PE), 8,
		       (uint64_t)cq_b << GEMINI_FMA_CQH_SHIFT |
		       (uint64_t)PTAG << GEMINI_FMA_SRC_PTAG_SHIFT |
		       (uint64_t)PTAG << GEMINI_FMA_DEST_PTAG_SHIFT);
		win_wr(src, priv_qw(DI, GEMINI_FMA_QW_CMD), 8,
		       (uint64_t)GEMINI_FMA_MODE2_FMA_ENABLE <<
		       GEMINI_FMA_MODE2_SHIFT);
		fma_cmd(src, DI, GEMINI_FMA_CMD_PUT, 0);
		fma_base(src, DI, GEMINI_PE(0, 0), 0x100);
		put8(src, DI, 0, 8, 0xb0b);
		fma_sync(src, DI, GEMINI_FMA_SYNC_LOCAL_EVENT, 0xb1);
		run(f);
		CHECK_EQ(cq_wr_index(src, cq_b), round + 1);
		CHECK_EVENT(mem_le64(&f->node[0], cq_b_base + 8ull * round),
			    GEMINI_CQE_SRC_SSID_SREQ, 0, 0xb1);
		CHECK_EQ(mem_le64(&f->node[0], DOM_BASE + 0x100), 0xb0b);
	}
	fab_free(f);
}

/*
 * The soak of scripts/tests/soak.py, on the host: every node of a 2x2x2
 * torus keeps SOAK_SLOTS sequences in flight (a PUT store or a GET of
 * 4..64 bytes into a block of a random node that only it writes, each
 * synced with a local event whose data names it), while links corrupt,
 * drop and delay and one node stops polling for a while now and then.
 * Every sequence must end exactly once, within the FMA timeout, with OK
 * (the link layer recovers every fault), and every GET must return the
 * bytes PUT there.  SOAK_SEQS in the environment sets the length.
 */
#define SOAK_SLOTS	4
#define SOAK_BLOCKS	0x40000		/* domain offsets of the blocks */
#define SOAK_LANDING	0xc0000		/* local GET buffers */

struct soak_slot {
	bool busy;
	bool get;
	uint32_t dst;
	unsigned int off, len;
	uint64_t id;
	uint64_t since;
};

struct soak {
	struct fabric *f;
	struct soak_slot slot[8][SOAK_SLOTS];
	uint8_t shadow[8][8][SOAK_SLOTS][64];	/* [dst][src][slot] */
	uint64_t rng, next_id, done, lost, dups, bad_status, data_errors;
	uint64_t late;
	int paused;
	uint64_t pause_end;
};

static uint64_t soak_block(uint32_t src, unsigned int s)
{
	return SOAK_BLOCKS + ((uint64_t)src * SOAK_SLOTS + s) * 64;
}

static void soak_issue(struct soak *k, uint32_t i, unsigned int s)
{
	struct gemini_nic *nic = nic_of(k->f, i);
	struct soak_slot *sl = &k->slot[i][s];
	static const unsigned int sizes[4] = { 1, 2, 4, 8 };

	sl->dst = (uint32_t)(xrand(&k->rng) % k->f->n);
	sl->get = xrand(&k->rng) & 1;
	sl->id = ++k->next_id & GEMINI_FMA_SYNC_DATA_MASK;
	sl->since = clock_ns;
	sl->busy = true;
	fma_cmd(nic, DI, sl->get ? GEMINI_FMA_CMD_GET : GEMINI_FMA_CMD_PUT, 0);
	fma_base(nic, DI, GEMINI_PE(sl->dst, 0), soak_block(i, s));
	if (sl->get) {
		uint64_t w;

		sl->len = 4 * (1 + (unsigned int)(xrand(&k->rng) % 16));
		sl->off = 4 * (unsigned int)(xrand(&k->rng) %
					     ((64 - sl->len) / 4 + 1));
		w = GEMINI_GCW_GET(sl->len, SOAK_LANDING + s * 64);
		memset(k->f->node[i].mem + (DOM_BASE - MEM_BASE) +
		       SOAK_LANDING + s * 64, 0xee, 64);
		if (sl->off & 4)
			gcw(nic, DI, sl->off - 4, w | GEMINI_GCW_REMOTE_PLUS4);
		else
			gcw(nic, DI, sl->off, w);
	} else {
		uint64_t v = xrand(&k->rng);
		unsigned int b;

		sl->len = sizes[xrand(&k->rng) % 4];
		sl->off = sl->len * (unsigned int)(xrand(&k->rng) %
						   (64 / sl->len));
		put8(nic, DI, sl->off, sl->len, v);
		for (b = 0; b < sl->len; b++)
			k->shadow[sl->dst][i][s][sl->off + b] =
				(uint8_t)(v >> (8 * b));
	}
	fma_sync(nic, DI, GEMINI_FMA_SYNC_LOCAL_EVENT, sl->id);
}

static void soak_reap(struct soak *k, uint32_t i)
{
	uint64_t e;
	unsigned int s;

	while ((e = next_event(k->f, i, LCQ))) {
		uint64_t id = e & GEMINI_CQE_DATA_MASK;
		struct soak_slot *sl = NULL;

		for (s = 0; s < SOAK_SLOTS; s++)
			if (k->slot[i][s].busy && k->slot[i][s].id == id)
				sl = &k->slot[i][s];
		if (!sl) {
			k->dups++;
			printf("#   node %u: event for nothing: 0x%016llx\n", i,
			       (unsigned long long)e);
			continue;
		}
		s = (unsigned int)(sl - k->slot[i]);
		sl->busy = false;
		k->done++;
		if (clock_ns - sl->since > MS(GEMINI_FMA_TIMEOUT_MS) + MS(100))
			k->late++;
		if ((e >> GEMINI_CQE_STATUS_SHIFT) & GEMINI_CQE_STATUS_MASK) {
			k->bad_status++;
			if (k->bad_status < 5)
				printf("#   node %u: %s %u bytes at %u of node %u: status %llu\n",
				       i, sl->get ? "GET" : "PUT", sl->len,
				       sl->off, sl->dst,
				       (unsigned long long)(e >>
				       GEMINI_CQE_STATUS_SHIFT &
				       GEMINI_CQE_STATUS_MASK));
			continue;
		}
		if (sl->get &&
		    memcmp(k->f->node[i].mem + (DOM_BASE - MEM_BASE) +
			   SOAK_LANDING + s * 64,
			   &k->shadow[sl->dst][i][s][sl->off], sl->len)) {
			k->data_errors++;
			printf("#   node %u slot %u: GET %u bytes at %u of node %u: wrong data\n",
			       i, s, sl->len, sl->off, sl->dst);
		}
	}
}

/* One round: every running node polls; the clock and heartbeats move. */
static void soak_round(struct soak *k)
{
	struct fabric *f = k->f;
	uint64_t before = signature(f), now_ms;
	uint32_t i;

	if (k->paused >= 0 && clock_ns >= k->pause_end)
		k->paused = -1;
	for (i = 0; i < f->n; i++)
		if ((int)i != k->paused)
			gemini_nic_poll(nic_of(f, i));
	clock_ns += signature(f) != before ? STEP_NS : 20 * STEP_NS;
	now_ms = clock_ns / 1000000;
	if (now_ms >= f->next_tick_ms) {
		for (i = 0; i < f->n; i++)
			if ((int)i != k->paused)
				gemini_nic_tick(nic_of(f, i), now_ms);
		f->next_tick_ms = now_ms + VGEMINI_LINK_HEARTBEAT_MS;
	}
}

static void test_soak(void)
{
	static struct soak k;
	const char *env = getenv("SOAK_SEQS");
	uint64_t seqs = env ? strtoull(env, NULL, 0) : 20000, deadline;
	uint64_t next_pause;
	char err[128];
	uint32_t i;
	unsigned int s;

	memset(&k, 0, sizeof(k));
	k.f = fma_fabric(2, 2, 2);
	k.rng = 0x5eed;
	k.paused = -1;
	CHECK_EQ(gemini_fault_set(nic_of(k.f, 0), GEMINI_PORT_XP,
				  "corrupt=0.1,seed=1", err, sizeof(err)), 0);
	CHECK_EQ(gemini_fault_set(nic_of(k.f, 3), GEMINI_PORT_YM,
				  "drop=0.05,seed=2", err, sizeof(err)), 0);
	CHECK_EQ(gemini_fault_set(nic_of(k.f, 1), GEMINI_PORT_YP,
				  "delay=0.05,delay-ms=2,seed=3", err,
				  sizeof(err)), 0);
	next_pause = clock_ns + MS(3000);
	while (k.next_id < seqs) {
		for (i = 0; i < k.f->n; i++) {
			if ((int)i == k.paused)
				continue;
			soak_reap(&k, i);
			for (s = 0; s < SOAK_SLOTS; s++)
				if (!k.slot[i][s].busy && k.next_id < seqs)
					soak_issue(&k, i, s);
		}
		soak_round(&k);
		if (clock_ns >= next_pause) {
			/* Node 5 stops: it neither polls nor ticks. */
			k.paused = 5;
			k.pause_end = clock_ns + MS(400);
			next_pause = clock_ns + MS(3000);
		}
	}
	deadline = clock_ns + MS(GEMINI_FMA_TIMEOUT_MS) * 3;
	for (;;) {
		bool busy = false;

		for (i = 0; i < k.f->n; i++) {
			soak_reap(&k, i);
			for (s = 0; s < SOAK_SLOTS; s++)
				busy |= k.slot[i][s].busy;
		}
		if (!busy || clock_ns > deadline)
			break;
		soak_round(&k);
	}
	for (i = 0; i < k.f->n; i++)
		for (s = 0; s < SOAK_SLOTS; s++)
			if (k.slot[i][s].busy) {
				k.lost++;
				printf("#   node %u slot %u: %s to node %u never ended\n",
				       i, s, k.slot[i][s].get ? "GET" : "PUT",
				       k.slot[i][s].dst);
			}
	printf("#   %llu sequences: %llu ended, %llu lost, %llu for nothing, ",
	       (unsigned long long)k.next_id, (unsigned long long)k.done,
	       (unsigned long long)k.lost, (unsigned long long)k.dups);
	printf("%llu not OK, %llu late, %llu data errors; %llu link retries\n",
	       (unsigned long long)k.bad_status, (unsigned long long)k.late,
	       (unsigned long long)k.data_errors,
	       (unsigned long long)(nic_of(k.f, 0)->port[GEMINI_PORT_XP]
				    .ctr[VGEMINI_PC_RETRY]));
	CHECK_EQ(k.done, k.next_id);
	CHECK_EQ(k.lost, 0);
	CHECK_EQ(k.dups, 0);
	CHECK_EQ(k.bad_status, 0);
	CHECK_EQ(k.late, 0);
	CHECK_EQ(k.data_errors, 0);
	fab_free(k.f);
}

static const struct tap_test tests[] = {
	{ "FMA layouts, default privilege mask, tag space", test_layouts },
	{ "descriptor registers: kernel page, user alias, privilege mask",
	  test_registers },
	{ "PUT window stores of 1, 2, 4, 8 bytes, byte for byte", test_put },
	{ "GET control words of 4..64 bytes into local memory", test_get },
	{ "every AMO through the PUT and GET windows", test_amo },
	{ "sync-complete: local and remote events, flag, CQ write",
	  test_sync_remote },
	{ "a store says whether it left work for the poll", test_store_moved },
	{ "ACKs of silent sequences unrung, of one with an event rung",
	  test_lazy_acks },
	{ "the write-combining window merges a line's stores",
	  test_write_combining },
	{ "wrong ptag: PROTECTION, target untouched, errors always report",
	  test_protection },
	{ "NTT translation and NPES group violations", test_ntt },
	{ "PE mask mode 7 scatters across PEs", test_pe_mask_mode },
	{ "out-of-order responses and interleaved sequences",
	  test_out_of_order },
	{ "dead link times out; late and unknown responses are stale",
	  test_timeout_stale },
	{ "ORB and SSID exhaustion refuse visibly, lose nothing",
	  test_exhaustion },
	{ "a paused sender completes on resume; a dead link still times out",
	  test_pause },
	{ "a full ORB of resting tags: refused until they have rested",
	  test_orb_rest },
	{ "balanced injection holds requests in the ORB, loses none",
	  test_balanced_injection },
	{ "a reused descriptor: old events stay the old owner's",
	  test_reuse },
	{
		"soak under link faults and a paused node: every sequence ends once, OK, with the right data",
		test_soak
	},
};

int main(void)
{
	return TAP_RUN(tests);
}
