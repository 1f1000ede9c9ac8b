// SPDX-License-Identifier: GPL-2.0-only
/*
 * Seed inputs for fuzz_core and fuzz_packet: programs (fuzz_core.h) that
 * program a consistent domain on both nodes - memory domains, completion
 * queues and FMA descriptors with matching ptags - and then use it the
 * ways a driver, a uGNI program, a hostile neighbour and the supervisor
 * would, so that the fuzzer starts from requests that reach the target
 * and translate, and mutates from there.
 *
 *   fuzz_core_seeds CORE_CORPUS_DIR [PACKET_CORPUS_DIR]
 *
 * writes seed-<name> files (replacing those of the same name).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemini_core.h"
#include "fuzz_core.h"

#define A	0
#define B	1

/* The domain every seed programs (see domain()). */
#define MDH1		1	/* ptag 1: its region, read-write */
#define MDH2		2	/* ptag 2: its region, read-write */
#define MDH1_RO		3	/* ptag 1: its region, read-only */
#define MDH_MRT		10	/* ptag 1 through the MRT */
#define MDH_GART	11	/* ptag 1 through the GART */
#define LCQ1		5	/* local events of ptag 1's descriptor */
#define RCQ1		6	/* remote events of ptag 1's domains */
#define LCQ2		7
#define RCQ2		8
#define CQ_MAX		63
#define D1		3	/* FMA descriptor of ptag 1 */
#define D2		4	/* FMA descriptor of ptag 2 */
#define GART_TABLE	(FZ_SYS + 0x8000)
#define GART_N		64
#define CQ_IRQ		(GEMINI_IRQ_FIRST_CQ)

/* Sizes: the size byte is an index into FZ_SIZES. */
#define S8	0
#define S4	1
#define S1	2
#define S2	3
#define S3	4

/* Type indices into FZ_TYPES. */
enum {
	T_PUT, T_GET, T_AMO, T_CQWRITE, T_DIAG, T_ACK, T_ERR, T_DATA,
	T_DIAG_RSP
};

struct prog {
	uint8_t b[65536];
	size_t n;
};

static void e8(struct prog *p, unsigned int v)
{
	if (p->n >= sizeof(p->b)) {
		fprintf(stderr, "seed too long\n");
		exit(1);
	}
	p->b[p->n++] = (uint8_t)v;
}

static void e16(struct prog *p, unsigned int v)
{
	e8(p, v & 0xff);
	e8(p, (v >> 8) & 0xff);
}

static void e32(struct prog *p, uint32_t v)
{
	e16(p, v & 0xffff);
	e16(p, v >> 16);
}

static void e64(struct prog *p, uint64_t v)
{
	e32(p, (uint32_t)v);
	e32(p, (uint32_t)(v >> 32));
}

static void op(struct prog *p, unsigned int node, enum fz_op o)
{
	e8(p, node << 7 | o);
}

static void ctl(struct prog *p, unsigned int node, unsigned int off,
		unsigned int size, uint64_t val)
{
	op(p, node, FZ_CTL_WRITE);
	e16(p, off);
	e8(p, size);
	e64(p, val);
}

static void ctl_rd(struct prog *p, unsigned int node, unsigned int off,
		   unsigned int size)
{
	op(p, node, FZ_CTL_READ);
	e16(p, off);
	e8(p, size);
}

static void win(struct prog *p, unsigned int node, enum fz_region r,
		unsigned int idx, uint32_t sub, unsigned int size, uint64_t val)
{
	op(p, node, FZ_WIN_WRITE);
	e8(p, r);
	e16(p, idx);
	e32(p, sub);
	e8(p, size);
	e64(p, val);
}

static void win_rd(struct prog *p, unsigned int node, enum fz_region r,
		   unsigned int idx, uint32_t sub, unsigned int size)
{
	op(p, node, FZ_WIN_READ);
	e8(p, r);
	e16(p, idx);
	e32(p, sub);
	e8(p, size);
}

static void mem64(struct prog *p, unsigned int node, uint64_t addr,
		  uint64_t val)
{
	op(p, node, FZ_MEM_LE64);
	e32(p, (uint32_t)(addr - FZ_MEM_BASE));
	e64(p, val);
}

static void mem_bytes(struct prog *p, unsigned int node, uint64_t addr,
		      const char *s)
{
	size_t k, len = strlen(s);

	op(p, node, FZ_MEM_WRITE);
	e32(p, (uint32_t)(addr - FZ_MEM_BASE));
	e8(p, (unsigned int)len);
	for (k = 0; k < len; k++)
		e8(p, (unsigned char)s[k]);
}

static void poll_(struct prog *p, unsigned int rounds)
{
	op(p, A, FZ_POLL);
	e8(p, rounds - 1);
	e8(p, 0);
}

static void run(struct prog *p)
{
	op(p, A, FZ_RUN);
}

static void clock_(struct prog *p, unsigned int sel, uint32_t val)
{
	op(p, A, FZ_CLOCK);
	e8(p, sel);
	e32(p, val);
}

static void repeat(struct prog *p, unsigned int count, unsigned int nops,
		   uint32_t stride)
{
	op(p, A, FZ_REPEAT);
	e16(p, count - 1);
	e8(p, nops - 1);
	e32(p, stride);
}

/* --- the domain ---------------------------------------------------------- */

static void mdd(struct prog *p, unsigned int node, unsigned int mdh,
		unsigned int ptag, uint64_t base, uint64_t last, int mrt,
		unsigned int modes, unsigned int cqh)
{
	win(p, node, FZ_R_MDD, mdh, 0, S8, GEMINI_MDD_QW1(ptag, base, mrt));
	win(p, node, FZ_R_MDD, mdh, 8, S8, GEMINI_MDD_QW2(modes, last, cqh));
}

static void cq(struct prog *p, unsigned int node, unsigned int idx,
	       uint64_t base, unsigned int max, int irq, unsigned int thresh)
{
	win(p, node, FZ_R_CQ_DESC, idx, 16, S8,
	    base | (irq ? GEMINI_CQ_IRQ_REQ : 0));
	win(p, node, FZ_R_CQ_DESC, idx, 0, S8, 0);
	win(p, node, FZ_R_CQ_DESC, idx, 8, S8, (uint64_t)max |
	    (uint64_t)thresh << GEMINI_CQ_IRQ_THRESH_SHIFT |
	    (uint64_t)CQ_IRQ << GEMINI_CQ_IRQ_INDEX_SHIFT | GEMINI_CQ_ENABLE);
}

#define RW	(GEMINI_MDD_MODE_VALID | GEMINI_MDD_MODE_WRITABLE)
#define RO	GEMINI_MDD_MODE_VALID

static uint64_t cq_base(unsigned int idx)
{
	return FZ_SYS + 0x1000ull * idx;
}

static void fma_kernel(struct prog *p, unsigned int node, unsigned int di,
		       unsigned int ptag, unsigned int cqh, uint64_t extra)
{
	win(p, node, FZ_R_FMA_PRIV, di, GEMINI_FMA_QW_PE, S8,
	    (uint64_t)cqh << GEMINI_FMA_CQH_SHIFT |
	    (uint64_t)ptag << GEMINI_FMA_SRC_PTAG_SHIFT |
	    (uint64_t)ptag << GEMINI_FMA_DEST_PTAG_SHIFT | extra);
	win(p, node, FZ_R_FMA_PRIV, di, GEMINI_FMA_QW_CMD, S8,
	    (uint64_t)GEMINI_FMA_MODE2_FMA_ENABLE << GEMINI_FMA_MODE2_SHIFT);
}

/* The library's part: command and MDHs, PE mask mode, keeping enable. */
static void fma_cmd(struct prog *p, unsigned int node, unsigned int di,
		    unsigned int cmd, unsigned int rmdh, unsigned int smdh,
		    unsigned int pemode)
{
	win(p, node, FZ_R_FMA_USER, di, GEMINI_FMA_QW_CMD, S8,
	    (uint64_t)GEMINI_FMA_MODE2_FMA_ENABLE << GEMINI_FMA_MODE2_SHIFT |
	    cmd | (uint64_t)rmdh << GEMINI_FMA_REM_MDH_SHIFT |
	    (uint64_t)smdh << GEMINI_FMA_SRC_MDH_SHIFT |
	    (uint64_t)pemode << GEMINI_FMA_PE_MASK_MODE_SHIFT);
}

static void fma_base(struct prog *p, unsigned int node, unsigned int di,
		     unsigned int gemini, uint64_t off)
{
	win(p, node, FZ_R_FMA_USER, di, GEMINI_FMA_QW_BASE_OFFSET, S8,
	    (uint64_t)GEMINI_PE(gemini, 0) << 40 | off);
}

static void fma_sync(struct prog *p, unsigned int node, unsigned int di,
		     unsigned int type, uint64_t data)
{
	win(p, node, FZ_R_FMA_USER, di, GEMINI_FMA_QW_SYNCCMP, S8,
	    (uint64_t)type << GEMINI_FMA_SYNC_TYPE_SHIFT | data);
}

static void fma_scratch(struct prog *p, unsigned int node, unsigned int di,
			uint64_t s0, uint64_t s1)
{
	win(p, node, FZ_R_FMA_USER, di, GEMINI_FMA_QW_SCRATCH0, S8, s0);
	win(p, node, FZ_R_FMA_USER, di, GEMINI_FMA_QW_SCRATCH1, S8, s1);
}

static void put(struct prog *p, unsigned int node, unsigned int di,
		uint32_t x, unsigned int size, uint64_t v)
{
	win(p, node, FZ_R_PUT_WC, di, x, size, v);
}

static void gcw(struct prog *p, unsigned int node, unsigned int di,
		uint32_t x, uint64_t word)
{
	win(p, node, FZ_R_GET, di, x, S8, word);
}

/*
 * Both nodes: ptag 1 owns region 1 (MDH1, MDH1_RO), ptag 2 region 2
 * (MDH2); each has a local and a remote CQ; descriptor D1 is ptag 1's,
 * D2 ptag 2's, both aimed at the other node's region of their ptag.
 */
static void domain(struct prog *p)
{
	unsigned int n;

	for (n = 0; n < 2; n++) {
		mdd(p, n, MDH1, FZ_PTAG1, FZ_REGION1,
		    FZ_REGION1 + FZ_REGION_SIZE - 1, 0, RW, RCQ1);
		mdd(p, n, MDH2, FZ_PTAG2, FZ_REGION2,
		    FZ_REGION2 + FZ_REGION_SIZE - 1, 0, RW, RCQ2);
		mdd(p, n, MDH1_RO, FZ_PTAG1, FZ_REGION1,
		    FZ_REGION1 + FZ_REGION_SIZE - 1, 0, RO, RCQ1);
		cq(p, n, LCQ1, cq_base(LCQ1), CQ_MAX, 1, 0);
		cq(p, n, RCQ1, cq_base(RCQ1), CQ_MAX, 1, 0);
		cq(p, n, LCQ2, cq_base(LCQ2), CQ_MAX, 0, 0);
		cq(p, n, RCQ2, cq_base(RCQ2), CQ_MAX, 1, 3);
		fma_kernel(p, n, D1, FZ_PTAG1, LCQ1, 0);
		fma_kernel(p, n, D2, FZ_PTAG2, LCQ2, 0);
		fma_cmd(p, n, D1, GEMINI_FMA_CMD_PUT, MDH1, MDH1, 0);
		fma_cmd(p, n, D2, GEMINI_FMA_CMD_PUT, MDH2, MDH2, 0);
		fma_base(p, n, D1, !n, 0x100);
		fma_base(p, n, D2, !n, 0x100);
	}
}

/* --- hostile frames ------------------------------------------------------ */

struct pk {
	unsigned int type, flags, dst, dst_nic, src, src_nic, ptag, amo, mdh;
	unsigned int tag, status, hops, len, vclass;
	uint64_t addr;
	uint8_t data[64];
};

static void pk_fields(struct prog *p, const struct pk *k)
{
	unsigned int i, len = k->len > 64 ? 64 : k->len;

	e8(p, k->type);
	e8(p, k->flags);
	e16(p, k->dst);
	e8(p, k->dst_nic);
	e16(p, k->src);
	e8(p, k->src_nic);
	e8(p, k->ptag);
	e8(p, k->amo);
	e16(p, k->mdh);
	e16(p, k->tag);
	e64(p, k->addr);
	e8(p, k->status);
	e8(p, k->hops);
	e8(p, k->len);
	e8(p, k->vclass);
	for (i = 0; i < len; i++)
		e8(p, k->data[i]);
}

/* A frame from @node's hostile neighbour (link selector @link). */
static void inject(struct prog *p, unsigned int node, unsigned int link,
		   const struct pk *k)
{
	op(p, node, FZ_INJECT);
	e8(p, link << 4);
	e8(p, 0);
	e8(p, 0);
	pk_fields(p, k);
}

static struct pk req(unsigned int type, unsigned int dst, unsigned int ptag,
		     unsigned int mdh, uint64_t addr, unsigned int len)
{
	struct pk k = {
		.type = type, .dst = dst, .src = !dst, .ptag = ptag, .mdh = mdh,
		.addr = addr, .len = len,
	};
	unsigned int i;

	for (i = 0; i < 64; i++)
		k.data[i] = (uint8_t)(i * 7 + type);
	return k;
}

/* --- the seeds ----------------------------------------------------------- */

static void seed_put(struct prog *p)
{
	static const unsigned int sz[4] = { S1, S2, S4, S8 };
	unsigned int i;

	domain(p);
	for (i = 0; i < 12; i++)
		put(p, A, D1, 8 * i + (i & 7), sz[i & 3],
		    0x1111111111111111ull * i);
	fma_sync(p, A, D1, GEMINI_FMA_SYNC_LOCAL_EVENT, 0xabc);
	run(p);
	/* ptag 2 into its own region, with a flag and a remote event */
	put(p, A, D2, 0x40, S8, 0x2222);
	fma_scratch(p, A, D2, 0xf1a9, 0x800);
	fma_sync(p, A, D2, GEMINI_FMA_SYNC_LOCAL_EVENT |
		 GEMINI_FMA_SYNC_REMOTE_EVENT | GEMINI_FMA_SYNC_WITH_FLAG,
		 0x77);
	run(p);
	/* the consumer moves on */
	win(p, A, FZ_R_CQ_USER, LCQ1, 0, S8, 1);
	win_rd(p, A, FZ_R_CQ_USER, LCQ1, 4, S4);
	win(p, B, FZ_R_CQ_USER, RCQ2, 0, S4, 1);
	win_rd(p, A, FZ_R_FMA_USER, D1, GEMINI_FMA_QW_STATUS, S8);
	/* B to A, UC window, PUT_MSG */
	fma_cmd(p, B, D1, GEMINI_FMA_CMD_PUT_MSG, MDH1, MDH1, 0);
	win(p, B, FZ_R_PUT_UC, D1, 0x80, S8, 0x5555);
	fma_sync(p, B, D1, GEMINI_FMA_SYNC_LOCAL_EVENT, 1);
	run(p);
}

static void seed_get(struct prog *p)
{
	unsigned int i;

	domain(p);
	mem_bytes(p, B, FZ_REGION1 + 0x100, "the data that A gets from B");
	fma_cmd(p, A, D1, GEMINI_FMA_CMD_GET, MDH1, MDH1, 0);
	for (i = 0; i < 4; i++)
		gcw(p, A, D1, 16 * i, GEMINI_GCW_GET(4 << i, 0x1000 + 64 * i));
	gcw(p, A, D1, 2, GEMINI_GCW_GET(8, 0x2000));	/* misaligned */
	gcw(p, A, D1, 0, GEMINI_GCW_GET(64, FZ_REGION_SIZE - 32)); /* past */
	fma_sync(p, A, D1, GEMINI_FMA_SYNC_LOCAL_EVENT, 2);
	run(p);
	/* a GET into a read-only local domain */
	fma_cmd(p, A, D1, GEMINI_FMA_CMD_GET, MDH1, MDH1_RO, 0);
	gcw(p, A, D1, 0, GEMINI_GCW_GET(8, 0x3000));
	fma_sync(p, A, D1, GEMINI_FMA_SYNC_NO_EVENT, 3);
	run(p);
	/* OS descriptor, OS GET window, to itself */
	fma_kernel(p, A, GEMINI_FMA_OS_FIRST + 1, FZ_PTAG2, LCQ2, 0);
	fma_cmd(p, A, GEMINI_FMA_OS_FIRST + 1, GEMINI_FMA_CMD_GET, MDH2, MDH2,
		0);
	fma_base(p, A, GEMINI_FMA_OS_FIRST + 1, A, 0x40);
	win(p, A, FZ_R_OS_GET, 1, 8, S8, GEMINI_GCW_GET(16, 0x500));
	fma_sync(p, A, GEMINI_FMA_OS_FIRST + 1, GEMINI_FMA_SYNC_LOCAL_EVENT, 4);
	run(p);
}

static void seed_amo(struct prog *p)
{
	unsigned int op_;

	domain(p);
	mem64(p, B, FZ_REGION1 + 0x100, 1000);
	fma_scratch(p, A, D1, 5, 7);
	for (op_ = GEMINI_AMO_ADD; op_ <= GEMINI_AMO_CSWAP; op_++) {
		/* non-fetching through the PUT window (not CSWAP) */
		fma_cmd(p, A, D1, op_, MDH1, MDH1, 0);
		put(p, A, D1, 0, S8, 0);
		/* fetching through the GET window */
		gcw(p, A, D1, 0, GEMINI_GCW(op_, 0, 0x200 + 8 * op_));
	}
	fma_cmd(p, A, D1, GEMINI_AMO_AX, MDH1, MDH1, 0);
	put(p, A, D1, 8, S8, 0);		/* AX misaligned */
	gcw(p, A, D1, 0, GEMINI_GCW(GEMINI_AMO_ADD, 0, 0x204)); /* local */
	gcw(p, A, D1, 0, GEMINI_GCW(0x1f, 0, 0x200));	/* no command */
	fma_cmd(p, A, D1, 0x1f, MDH1, MDH1, 0);
	put(p, A, D1, 0, S8, 0);
	fma_sync(p, A, D1, GEMINI_FMA_SYNC_LOCAL_EVENT, 5);
	run(p);
	/* cached variants (0x10 | op) */
	fma_cmd(p, A, D1, GEMINI_FMA_CMD_CACHED | GEMINI_AMO_OR, MDH1, MDH1, 0);
	put(p, A, D1, 0, S8, 0);
	fma_sync(p, A, D1, GEMINI_FMA_SYNC_LOCAL_EVENT, 6);
	run(p);
}

static void seed_cqwrite(struct prog *p)
{
	domain(p);
	win(p, A, FZ_R_FMA_USER, D1, GEMINI_FMA_QW_ALLOC_SYNCID, S8, 0xff);
	win(p, A, FZ_R_FMA_USER, D1, GEMINI_FMA_QW_CQ_WRITE, S8,
	    0xffff123456789abcull);
	fma_sync(p, A, D1, GEMINI_FMA_SYNC_LOCAL_EVENT, 0x99);
	run(p);
	/* a sync with nothing sent: the window base is the target */
	fma_sync(p, A, D2, GEMINI_FMA_SYNC_REMOTE_EVENT |
		 GEMINI_FMA_SYNC_WITH_FLAG, 0x55);
	/* alloc with a wrong value, a 4-byte doorbell, unknown sync bits */
	win(p, A, FZ_R_FMA_USER, D1, GEMINI_FMA_QW_ALLOC_SYNCID, S8, 0x12);
	win(p, A, FZ_R_FMA_USER, D1, GEMINI_FMA_QW_SYNCCMP, S4, 1);
	fma_sync(p, A, D1, 0xf9, 0x11);
	run(p);
	/* a full remote CQ: two entries */
	cq(p, B, RCQ1, cq_base(RCQ1), 1, 1, 0);
	repeat(p, 4, 2, 0);
	win(p, A, FZ_R_FMA_USER, D1, GEMINI_FMA_QW_CQ_WRITE, S8, 1);
	fma_sync(p, A, D1, GEMINI_FMA_SYNC_LOCAL_EVENT, 0x98);
	run(p);
	win(p, B, FZ_R_CQ_USER, RCQ1, 0, S8, 1);
	win(p, B, FZ_R_CQ_DESC, RCQ1, 0, S4, 0);
	win(p, B, FZ_R_CQ_DESC, RCQ1, 4, S4, 1);
	run(p);
}

/* Ptag 2 aims at ptag 1's domain; the user tries kernel fields. */
static void seed_cross(struct prog *p)
{
	domain(p);
	fma_cmd(p, A, D2, GEMINI_FMA_CMD_PUT, MDH1, MDH2, 0);
	put(p, A, D2, 0, S8, ~0ull);
	fma_cmd(p, A, D2, GEMINI_FMA_CMD_GET, MDH1, MDH2, 0);
	gcw(p, A, D2, 0, GEMINI_GCW_GET(8, 0));
	fma_cmd(p, A, D2, GEMINI_AMO_ADD, MDH1, MDH2, 0);
	gcw(p, A, D2, 0, GEMINI_GCW(GEMINI_AMO_ADD, 0, 8));
	win(p, A, FZ_R_FMA_USER, D2, GEMINI_FMA_QW_CQ_WRITE, S8, 3);
	fma_sync(p, A, D2, GEMINI_FMA_SYNC_LOCAL_EVENT |
		 GEMINI_FMA_SYNC_REMOTE_EVENT | GEMINI_FMA_SYNC_WITH_FLAG, 9);
	run(p);
	/* the user alias may not change the ptag, the kernel page may */
	win(p, A, FZ_R_FMA_USER, D2, GEMINI_FMA_QW_PE, S8,
	    (uint64_t)FZ_PTAG1 << GEMINI_FMA_DEST_PTAG_SHIFT);
	win(p, A, FZ_R_FMA_USER, D2, GEMINI_FMA_QW_PE + 4, S4, 0x1234);
	win(p, A, FZ_R_FMA_PRIV, D2, GEMINI_FMA_PRIV_MASK_REG, S8,
	    GEMINI_FMA_PRIV_ALL);
	win(p, A, FZ_R_FMA_USER, D2, GEMINI_FMA_QW_PE, S8,
	    (uint64_t)LCQ2 << GEMINI_FMA_CQH_SHIFT |
	    (uint64_t)FZ_PTAG2 << GEMINI_FMA_SRC_PTAG_SHIFT |
	    (uint64_t)FZ_PTAG1 << GEMINI_FMA_DEST_PTAG_SHIFT);
	win_rd(p, A, FZ_R_FMA_PRIV, D2, GEMINI_FMA_PRIV_MASK_REG, S8);
	win_rd(p, A, FZ_R_FMA_USER, D2, GEMINI_FMA_PRIV_MASK_REG, S8);
	win(p, A, FZ_R_FMA_USER, D2, GEMINI_FMA_PRIV_MASK_REG, S8, 0);
	put(p, A, D2, 0x10, S8, 0x33);
	fma_sync(p, A, D2, GEMINI_FMA_SYNC_LOCAL_EVENT, 10);
	/* a descriptor that is not enabled, and vMDH */
	put(p, A, 9, 0, S8, 1);
	win(p, A, FZ_R_FMA_PRIV, 9, GEMINI_FMA_QW_CMD, S8,
	    (uint64_t)(GEMINI_FMA_MODE2_FMA_ENABLE | GEMINI_FMA_MODE2_VMDH) <<
	    GEMINI_FMA_MODE2_SHIFT);
	put(p, A, 9, 0, S8, 1);
	fma_sync(p, A, 9, GEMINI_FMA_SYNC_LOCAL_EVENT, 11);
	win(p, A, FZ_R_FMA_USER, D1, GEMINI_FMA_QW_STATUS, S8, ~0ull);
	win(p, A, FZ_R_FMA_USER, D1, GEMINI_FMA_QW_STATUS + 4, S4, ~0u);
	run(p);
}

static void seed_mrt(struct prog *p)
{
	unsigned int n;

	domain(p);
	for (n = 0; n < 2; n++) {
		win(p, n, FZ_R_MRT_PS, 0, 0, S8, GEMINI_MRT_PS_128K);
		/* MRT pages 1 and 2 are the pages of region 1 and 2 */
		win(p, n, FZ_R_MRT, 1, 0, S4, GEMINI_MRT_ENCODE(FZ_REGION1));
		win(p, n, FZ_R_MRT, 2, 0, S8,
		    GEMINI_MRT_ENCODE(FZ_REGION1 + FZ_REGION_SIZE) |
		    (uint64_t)GEMINI_MRT_ENCODE(FZ_REGION2) << 32);
		mdd(p, n, MDH_MRT, FZ_PTAG1, 1ull << 17 | 0x1000,
		    (2ull << 17) - 1, 1, RW, RCQ1);
	}
	fma_cmd(p, A, D1, GEMINI_FMA_CMD_PUT, MDH_MRT, MDH_MRT, 0);
	put(p, A, D1, 0x20, S8, 0x3232);
	put(p, A, D1, 0x1ee00 - 0x100, S8, 0x3333);	/* the end */
	put(p, A, D1, 0x1f000 - 0x100, S8, 0x3434);	/* past it */
	fma_cmd(p, A, D1, GEMINI_FMA_CMD_GET, MDH_MRT, MDH_MRT, 0);
	gcw(p, A, D1, 0x20, GEMINI_GCW_GET(32, 0x40));
	fma_sync(p, A, D1, GEMINI_FMA_SYNC_LOCAL_EVENT, 0x12);
	run(p);
	/* another page size; an invalid entry */
	win(p, B, FZ_R_MRT_PS, 0, 4, S4, 0);
	win(p, B, FZ_R_MRT_PS, 0, 0, S4, GEMINI_MRT_PS_512K);
	win(p, B, FZ_R_MRT, 1, 0, S4, 0);
	put(p, A, D1, 0x28, S8, 0x3535);
	win_rd(p, B, FZ_R_MRT, 1, 0, S8);
	win_rd(p, B, FZ_R_MRT_PS, 0, 0, S8);
	fma_sync(p, A, D1, GEMINI_FMA_SYNC_LOCAL_EVENT, 0x13);
	run(p);
}

static void seed_gart(struct prog *p)
{
	unsigned int n, i;

	domain(p);
	for (n = 0; n < 2; n++) {
		ctl(p, n, VGEMINI_CTL_GART_BASE, S8, GART_TABLE);
		ctl(p, n, VGEMINI_CTL_GART_ENTRIES, S4, GART_N);
		/* entries 0..15: region 1, pages in reverse */
		for (i = 0; i < 16; i++)
			mem64(p, n, GART_TABLE + 8 * i,
			      VGEMINI_GART_ENTRY(FZ_REGION1 +
						 0x1000 * (15 - i)));
		mdd(p, n, MDH_GART, FZ_PTAG1, VGEMINI_GART_ADDR(0),
		    VGEMINI_GART_ADDR(16) - 1, 0, RW, RCQ1);
	}
	fma_cmd(p, A, D1, GEMINI_FMA_CMD_PUT, MDH_GART, MDH_GART, 0);
	fma_base(p, A, D1, B, 0);
	put(p, A, D1, 0xff8, S8, 0x4141);
	put(p, A, D1, 0xffc, S8, 0x4242);		/* across two pages */
	put(p, A, D1, 0x10000, S8, 0x4343);		/* past the domain */
	fma_cmd(p, A, D1, GEMINI_FMA_CMD_GET, MDH_GART, MDH_GART, 0);
	gcw(p, A, D1, 0x1ff0, GEMINI_GCW_GET(32, 0x2ff0));
	fma_sync(p, A, D1, GEMINI_FMA_SYNC_LOCAL_EVENT, 0x14);
	run(p);
	/* an invalid entry, entries off, a table outside memory */
	mem64(p, B, GART_TABLE + 8, 0);
	put(p, A, D1, 0x1000, S8, 1);
	ctl(p, B, VGEMINI_CTL_GART_ENTRIES, S4, 2u << 20);
	ctl_rd(p, B, VGEMINI_CTL_GART_ENTRIES, S4);
	ctl(p, B, VGEMINI_CTL_GART_BASE + 4, S4, 0x10);
	put(p, A, D1, 0x10, S8, 2);
	ctl(p, B, VGEMINI_CTL_GART_BASE, S4, 0x123);
	ctl_rd(p, B, VGEMINI_CTL_GART_BASE, S8);
	ctl(p, B, VGEMINI_CTL_GART_ENTRIES, S4, 0);
	put(p, A, D1, 0x18, S8, 3);
	fma_sync(p, A, D1, GEMINI_FMA_SYNC_LOCAL_EVENT, 0x15);
	run(p);
	/* a domain across the aperture */
	mdd(p, B, 12, FZ_PTAG1, VGEMINI_GART_APERTURE - 0x1000,
	    VGEMINI_GART_ADDR(4) - 1, 0, RW, RCQ1);
	ctl(p, B, VGEMINI_CTL_GART_BASE, S8, GART_TABLE);
	ctl(p, B, VGEMINI_CTL_GART_ENTRIES, S4, GART_N);
	fma_cmd(p, A, D1, GEMINI_FMA_CMD_PUT, 12, MDH1, 0);
	put(p, A, D1, 0xffc, S8, 0x4444);
	fma_sync(p, A, D1, GEMINI_FMA_SYNC_LOCAL_EVENT, 0x16);
	run(p);
}

static void seed_ntt(struct prog *p)
{
	domain(p);
	/* ranks 0, 1 of the group are nodes B and A */
	win(p, A, FZ_R_NTT, 5, 1u << 17, S8,
	    (uint64_t)GEMINI_PE(B, 0) | (uint64_t)GEMINI_PE(A, 0) << 18);
	win(p, A, FZ_R_NTT, 6, 1u << 16, S8, 0x123);
	win(p, A, FZ_R_NL, 0, 8, S8, 0x101);		/* NTT config */
	win(p, A, FZ_R_NL, 0, 8, S8, 0);
	fma_kernel(p, A, D1, FZ_PTAG1, LCQ1,
		   2ull << GEMINI_FMA_NUM_PES_SHIFT |
		   10ull << GEMINI_FMA_PE_BASE_SHIFT |
		   (uint64_t)GEMINI_FMA_MODE3_NTT_ENABLE <<
		   GEMINI_FMA_MODE3_SHIFT);
	fma_cmd(p, A, D1, GEMINI_FMA_CMD_PUT, MDH1, MDH1, 0);
	fma_base(p, A, D1, 0, 0x300);
	put(p, A, D1, 8, S8, 0x5000);
	fma_base(p, A, D1, 1, 0x300);
	put(p, A, D1, 8, S8, 0x5001);
	fma_base(p, A, D1, 2, 0x300);		/* outside the group */
	put(p, A, D1, 8, S8, 0x5002);
	fma_sync(p, A, D1, GEMINI_FMA_SYNC_LOCAL_EVENT |
		 GEMINI_FMA_SYNC_REMOTE_EVENT, 0x17);
	run(p);
	win_rd(p, A, FZ_R_NTT, 5, 0, S8);
	win_rd(p, A, FZ_R_NTT, 5, 1u << 16, S4);
	win_rd(p, A, FZ_R_NL, 0, 0, S8);
	win_rd(p, A, FZ_R_NL, 0, 16, S8);
}

static void seed_pe_modes(struct prog *p)
{
	static const unsigned int shift[8] = GEMINI_FMA_PE_SHIFTS;
	unsigned int m;

	domain(p);
	for (m = 1; m < 8; m++) {
		/* offset 0x800 + 0x48 m of node B, spread as mode m wants */
		uint64_t off = 0x800 + 0x48 * m, s = shift[m];
		uint64_t a = (uint64_t)GEMINI_PE(B, 0) << s |
			     (off >> s) << (s + GEMINI_PE_BITS) | (off & ((1ull << s) - 1));
		uint64_t base = a & GEMINI_FMA_BASE_OFFSET_MASK;

		fma_cmd(p, A, D1, GEMINI_FMA_CMD_PUT, MDH1, MDH1, m);
		win(p, A, FZ_R_FMA_USER, D1, GEMINI_FMA_QW_BASE_OFFSET, S8,
		    base);
		put(p, A, D1, (uint32_t)(a - base), S8, 0x7700 + m);
	}
	/* adaptive and hashed requests */
	win(p, A, FZ_R_FMA_USER, D1, GEMINI_FMA_QW_CMD, S8,
	    (uint64_t)(GEMINI_FMA_MODE2_FMA_ENABLE | GEMINI_FMA_MODE2_ADP |
		       GEMINI_FMA_MODE2_HASH) << GEMINI_FMA_MODE2_SHIFT |
	    (uint64_t)MDH1 << GEMINI_FMA_REM_MDH_SHIFT);
	fma_base(p, A, D1, B, 0x40);
	put(p, A, D1, 0, S8, 0x7777);
	fma_sync(p, A, D1, GEMINI_FMA_SYNC_LOCAL_EVENT, 0x18);
	run(p);
}

/* A hostile neighbour's requests and responses, into A. */
static void seed_inject(struct prog *p)
{
	struct pk k;
	unsigned int op_;

	domain(p);
	k = req(T_PUT, A, FZ_PTAG1, MDH1, 0x40, 24);
	inject(p, A, 0, &k);
	k = req(T_GET, A, FZ_PTAG1, MDH1, 0x40, 16);
	inject(p, A, 0, &k);
	k = req(T_PUT, A, FZ_PTAG1, MDH1, 0x80, 8);
	k.flags = GEMINI_PKT_F_REMOTE_EVENT;
	inject(p, A, 0, &k);
	for (op_ = 0; op_ < 6; op_++) {
		k = req(T_AMO, A, FZ_PTAG1, MDH1, 0x100 + 16 * op_, 0);
		k.amo = op_;
		k.flags = op_ & 1 ? GEMINI_PKT_F_FETCH : 0;
		inject(p, A, 0, &k);
	}
	k = req(T_CQWRITE, A, FZ_PTAG1, MDH1, 0, 8);
	inject(p, A, 0, &k);
	poll_(p, 4);
	/* the wrong ptag, a read-only domain, out of bounds, no MDD */
	k = req(T_PUT, A, FZ_PTAG2, MDH1, 0x40, 8);
	inject(p, A, 0, &k);
	k = req(T_PUT, A, FZ_PTAG1, MDH1_RO, 0x40, 8);
	inject(p, A, 0, &k);
	k = req(T_PUT, A, FZ_PTAG1, MDH1, FZ_REGION_SIZE - 4, 8);
	inject(p, A, 0, &k);
	k = req(T_GET, A, FZ_PTAG1, 99, 0, 8);
	inject(p, A, 0, &k);
	k = req(T_PUT, A, 0, 0, 0, 8);
	inject(p, A, 0, &k);
	/* on to B, and a DIAG */
	k = req(T_PUT, B, FZ_PTAG2, MDH2, 0x40, 64);
	inject(p, A, 0, &k);
	k = req(T_DIAG, A, 0, 0, 0, 20);
	inject(p, A, 0, &k);
	k = req(T_DIAG, B, 0, 0, 0, 64);
	inject(p, A, 0, &k);
	k = req(T_DIAG, 7, 0, 0, 0, 4);		/* no such node */
	inject(p, A, 0, &k);
	run(p);
	/* responses nobody waits for */
	k = (struct pk){ .type = T_ACK, .dst = A, .tag = 5 };
	inject(p, A, 0, &k);
	k = (struct pk){ .type = T_ERR, .dst = A, .tag = 6, .status = 3 };
	inject(p, A, 0, &k);
	k = (struct pk){ .type = T_DATA, .dst = A, .tag = 7, .len = 8 };
	inject(p, A, 0, &k);
	k = (struct pk){ .type = T_DIAG_RSP, .dst = A, .tag = 0x201, .len = 8 };
	inject(p, A, 0, &k);
	k = (struct pk){ .type = T_DIAG_RSP, .dst = A, .tag = 0x5, .len = 8 };
	inject(p, A, 0, &k);
	k = (struct pk){ .type = T_ACK, .dst = A, .tag = 0x205 };
	inject(p, A, 0, &k);
	poll_(p, 4);
	/* raw frames: garbage, a bad CRC, a fixed CRC, a broken slot */
	op(p, A, FZ_INJECT);
	e8(p, 1);
	e8(p, 0);
	e8(p, 0);
	e8(p, 9);
	e32(p, 0x01020304);
	e32(p, 0x05060708);
	e8(p, 0);
	op(p, A, FZ_INJECT);
	e8(p, 1 | 4);
	e8(p, 1);
	e8(p, 0);
	e8(p, 6);
	e32(p, 0x00400000);
	e16(p, 0xa500);
	op(p, A, FZ_INJECT);
	e8(p, 2);
	e8(p, 0);
	e8(p, 3);
	e32(p, 0);
	e32(p, 2);
	e16(p, 200);
	e8(p, 0);
	poll_(p, 8);
	/* a packet on the wrong channel, a future sequence number */
	k = req(T_PUT, A, FZ_PTAG1, MDH1, 0x40, 8);
	op(p, A, FZ_INJECT);
	e8(p, 8);
	e8(p, 2);
	e8(p, 0);
	pk_fields(p, &k);
	op(p, A, FZ_INJECT);
	e8(p, 0);
	e8(p, 0);
	e8(p, 3);
	pk_fields(p, &k);
	poll_(p, 8);
}

/* Forged frames into the honest links, and raw link corruption. */
static void seed_forge(struct prog *p)
{
	struct pk k;

	domain(p);
	k = req(T_PUT, B, FZ_PTAG1, MDH1, 0x40, 8);
	inject(p, B, 1, &k);
	k = req(T_GET, A, FZ_PTAG2, MDH2, 0x40, 8);
	inject(p, A, 3, &k);
	k = req(T_PUT, A, FZ_PTAG2, MDH2, 0x40, 8);
	inject(p, A, 2, &k);
	put(p, A, D1, 0, S8, 1);
	run(p);
	/* slot bytes, side fields */
	op(p, A, FZ_LINK_POKE);
	e8(p, FZ_L_X0);
	e16(p, 4096 + 16 + 3);
	e8(p, 0x5a);
	op(p, A, FZ_LINK_POKE);
	e8(p, FZ_L_X1);
	e16(p, 4096 + 4 * 16 * 128 + 8);
	e8(p, 0xff);
	put(p, A, D1, 8, S8, 2);
	put(p, B, D1, 8, S8, 3);
	fma_sync(p, A, D1, GEMINI_FMA_SYNC_LOCAL_EVENT, 0x19);
	run(p);
}

static void side(struct prog *p, unsigned int link, unsigned int s,
		 unsigned int field, unsigned int chan, uint64_t val)
{
	op(p, A, FZ_SIDE);
	e8(p, link);
	e8(p, s);
	e8(p, field);
	e8(p, chan);
	e64(p, val);
}

/* The hostile neighbour misbehaves at the link level. */
static void seed_hostile(struct prog *p)
{
	domain(p);
	/* send to it (table 3), acknowledge nothing */
	op(p, A, FZ_LOAD_TABLE);
	e8(p, 3);
	e32(p, 2);
	e16(p, 0);
	e8(p, 0);
	e8(p, 0);
	side(p, FZ_L_ZA, 1, FZ_F_PASSIVE, 0, 1);
	put(p, A, D1, 0, S8, 1);
	put(p, A, D1, 8, S8, 1);
	poll_(p, 4);
	clock_(p, FZ_C_RETRY, 0);
	poll_(p, 4);
	side(p, FZ_L_ZA, 1, FZ_F_NAK, 0, 1);
	side(p, FZ_L_ZA, 1, FZ_F_ACK, 0, 1);
	side(p, FZ_L_ZA, 1, FZ_F_FREED, 0, 1);
	poll_(p, 4);
	side(p, FZ_L_ZA, 1, FZ_F_ACK, 0, 100);	/* impossible */
	side(p, FZ_L_ZA, 1, FZ_F_PASSIVE, 0, 0);
	poll_(p, 4);
	side(p, FZ_L_ZA, 1, FZ_F_RETRAIN, 0, 1);
	poll_(p, 4);
	side(p, FZ_L_ZA, 1, FZ_F_PE, 0, 0x1234);		/* miswired */
	clock_(p, FZ_C_HEARTBEAT, 0);
	poll_(p, 2);
	side(p, FZ_L_ZA, 1, FZ_F_PE, 0, 0);
	side(p, FZ_L_ZA, 1, FZ_F_VERSION, 0, 1);
	clock_(p, FZ_C_HEARTBEAT, 0);
	side(p, FZ_L_ZA, 1, FZ_F_VERSION, 0, VGEMINI_LINK_VERSION);
	side(p, FZ_L_ZA, 1, FZ_F_SILENT, 0, 1);
	clock_(p, FZ_C_LINK_TIMEOUT, 0);
	poll_(p, 2);
	side(p, FZ_L_ZA, 1, FZ_F_SILENT, 0, 0);
	side(p, FZ_L_ZA, 1, FZ_F_RX_EPOCH, 1, 5);
	side(p, FZ_L_ZA, 1, FZ_F_ARMED, 0, 1);
	clock_(p, FZ_C_HEARTBEAT, 0);
	clock_(p, FZ_C_HEARTBEAT, 0);
	put(p, A, D1, 16, S8, 1);
	fma_sync(p, A, D1, GEMINI_FMA_SYNC_LOCAL_EVENT, 0x1a);
	run(p);
	/* an honest side's magic, epoch and heartbeat */
	side(p, FZ_L_X0, 0, FZ_F_EPOCH, 0, 77);
	side(p, FZ_L_X1, 1, FZ_F_MAGIC, 0, 0);
	side(p, FZ_L_X1, 1, FZ_F_HEARTBEAT, 0, 3);
	side(p, FZ_L_X1, 1, FZ_F_PORT, 0, 3);
	clock_(p, FZ_C_HEARTBEAT, 0);
	put(p, B, D1, 0, S8, 1);
	fma_sync(p, B, D1, GEMINI_FMA_SYNC_LOCAL_EVENT, 0x1b);
	run(p);
}

static void seed_diag(struct prog *p)
{
	unsigned int n;

	for (n = 0; n < 2; n++) {
		ctl(p, n, VGEMINI_CTL_DIAG_DEST, S4, !n);
		ctl(p, n, VGEMINI_CTL_DIAG_LEN, S4, 64);
		ctl(p, n, VGEMINI_CTL_DIAG_IRQ, S4, 2);
		ctl(p, n, VGEMINI_CTL_DIAG_CMD, S4, VGEMINI_DIAG_CMD_PING);
		ctl(p, n, VGEMINI_CTL_DIAG_CMD, S4, VGEMINI_DIAG_CMD_PING);
	}
	run(p);
	for (n = 0; n < 15; n++)
		ctl_rd(p, A, VGEMINI_CTL_DIAG_TRACE + 4 * n, S4);
	ctl_rd(p, A, VGEMINI_CTL_DIAG_STATUS, S8);
	ctl_rd(p, A, VGEMINI_CTL_DIAG_SEQ, S8);
	ctl_rd(p, A, VGEMINI_CTL_DIAG_NTRACE, S4);
	/* bad command, bad dest, bad len, short */
	ctl(p, A, VGEMINI_CTL_DIAG_CMD, S4, 7);
	ctl(p, A, VGEMINI_CTL_DIAG_DEST, S4, 5);
	ctl(p, A, VGEMINI_CTL_DIAG_CMD, S4, VGEMINI_DIAG_CMD_PING);
	ctl(p, A, VGEMINI_CTL_DIAG_DEST, S4, 0);
	ctl(p, A, VGEMINI_CTL_DIAG_LEN, S4, 65);
	ctl(p, A, VGEMINI_CTL_DIAG_CMD, S4, VGEMINI_DIAG_CMD_PING);
	ctl(p, A, VGEMINI_CTL_DIAG_LEN, S4, 2);
	ctl(p, A, VGEMINI_CTL_DIAG_IRQ, S4, 40);
	ctl(p, A, VGEMINI_CTL_DIAG_CMD, S4, VGEMINI_DIAG_CMD_PING);
	run(p);
	/* the host's engine: bursts, through the Y ring (table 2) */
	op(p, B, FZ_DIAG_HOST);
	e8(p, 1);
	e32(p, 0);
	e32(p, 40);
	e8(p, 5);
	run(p);
	op(p, A, FZ_LOAD_TABLE);
	e8(p, 2);
	e32(p, 3);
	e16(p, 0);
	e8(p, 0);
	e8(p, 0);
	op(p, A, FZ_DIAG_HOST);
	e8(p, 1);
	e32(p, 1);
	e32(p, 12);
	e8(p, 3);
	run(p);
	op(p, A, FZ_REPORT);
	e8(p, FZ_P_DIAG);
	e32(p, 1 | 4000 << 8);
	op(p, A, FZ_REPORT);
	e8(p, FZ_P_DIAG);
	e32(p, 0 | 50 << 8);
	/* a ping that times out: the link is down */
	op(p, A, FZ_FAULT);
	e8(p, GEMINI_PORT_YP);
	e8(p, 5);
	op(p, A, FZ_DIAG_HOST);
	e8(p, 1);
	e32(p, 1);
	e32(p, 8);
	e8(p, 2);
	run(p);
	clock_(p, FZ_C_FMA_TIMEOUT, 0);
	poll_(p, 2);
	op(p, A, FZ_REPORT);
	e8(p, FZ_P_DIAG);
	e32(p, 1 | 4000 << 8);
}

static void seed_dma(struct prog *p)
{
	ctl(p, A, VGEMINI_CTL_SCRATCH, S8, 0x1234567890abcdefull);
	ctl_rd(p, A, VGEMINI_CTL_SCRATCH, S8);
	ctl(p, A, VGEMINI_CTL_DMA_ADDR, S8, FZ_SHARED);
	ctl(p, A, VGEMINI_CTL_DMA_LEN, S4, 0x1800);
	ctl(p, A, VGEMINI_CTL_DMA_PATTERN, S4, 0xa5);
	ctl(p, A, VGEMINI_CTL_DMA_IRQ, S4, 3);
	ctl(p, A, VGEMINI_CTL_DMA_CMD, S4, VGEMINI_DMA_CMD_FILL);
	ctl(p, A, VGEMINI_CTL_DMA_DST, S8, FZ_SHARED + 0x4000);
	ctl(p, A, VGEMINI_CTL_DMA_CMD, S4, VGEMINI_DMA_CMD_COPY);
	ctl(p, A, VGEMINI_CTL_DMA_CMD, S4, VGEMINI_DMA_CMD_INVERT);
	ctl(p, A, VGEMINI_CTL_DMA_CMD, S4, 9);
	ctl(p, A, VGEMINI_CTL_DMA_LEN, S4, 0);
	ctl(p, A, VGEMINI_CTL_DMA_CMD, S4, VGEMINI_DMA_CMD_FILL);
	ctl(p, A, VGEMINI_CTL_DMA_LEN, S4, 0x100);
	ctl(p, A, VGEMINI_CTL_DMA_ADDR + 4, S4, 0xffffffff);
	ctl(p, A, VGEMINI_CTL_DMA_CMD, S4, VGEMINI_DMA_CMD_FILL);
	ctl(p, A, VGEMINI_CTL_DMA_ADDR, S8, 0x10);
	ctl(p, A, VGEMINI_CTL_DMA_CMD, S4, VGEMINI_DMA_CMD_COPY);
	ctl(p, A, VGEMINI_CTL_DMA_DST + 4, S4, 0xffffffff);
	ctl(p, A, VGEMINI_CTL_DMA_ADDR, S8, FZ_SHARED);
	ctl(p, A, VGEMINI_CTL_DMA_CMD, S4, VGEMINI_DMA_CMD_COPY);
	ctl(p, A, VGEMINI_CTL_DMA_DST, S8, 0);
	ctl(p, A, VGEMINI_CTL_DMA_CMD, S8, VGEMINI_DMA_CMD_COPY);
	ctl_rd(p, A, VGEMINI_CTL_DMA_STATUS, S4);
	ctl(p, A, VGEMINI_CTL_IRQ_RAISE, S4, 1);
	ctl(p, A, VGEMINI_CTL_IRQ_RAISE, S4, 99);
	ctl(p, A, VGEMINI_CTL_IRQ_RAISE, S4, VGEMINI_IRQ_NONE);
	ctl(p, A, VGEMINI_CTL_LINK_IRQ, S4, 0);
}

static void seed_ctl(struct prog *p)
{
	unsigned int off;

	for (off = 0; off < 0xc0; off += 4)
		ctl_rd(p, A, off, S4);
	for (off = 0; off < 0x180; off += 8)
		ctl_rd(p, B, off, S8);
	ctl_rd(p, A, VGEMINI_CTL_COUNTER(0, 0), S8);
	ctl_rd(p, A, VGEMINI_CTL_COUNTER(6, 10) + 4, S4);
	ctl_rd(p, A, VGEMINI_CTL_COUNTER(6, 12), S4);
	ctl_rd(p, A, VGEMINI_CTL_COUNTER(0, 14), S8);
	ctl_rd(p, A, 0x2, S4);
	ctl_rd(p, A, 0x1234, S2);
	ctl_rd(p, A, 0xfffc, S8);
	ctl(p, A, VGEMINI_CTL_MAGIC, S4, 1);
	ctl(p, A, VGEMINI_CTL_PORT(0), S8, 1);
	ctl(p, A, 0x500, S4, 1);
	ctl(p, A, 0x3000, S4, 1);
	ctl(p, A, VGEMINI_CTL_LINK_IRQ, S4, 1);
	ctl(p, A, VGEMINI_CTL_SCRATCH + 4, S4, 7);
	/* port state changes raise the link interrupt */
	op(p, A, FZ_ATTACH);
	e8(p, GEMINI_PORT_XP);
	e8(p, FZ_A_DETACH);
	op(p, A, FZ_ATTACH);
	e8(p, GEMINI_PORT_XP);
	e8(p, FZ_A_REATTACH);
	clock_(p, FZ_C_HEARTBEAT, 0);
	clock_(p, FZ_C_HEARTBEAT, 0);
	clock_(p, FZ_C_HEARTBEAT, 0);
	ctl_rd(p, A, VGEMINI_CTL_PORT(0) + 4, S4);
	ctl_rd(p, A, VGEMINI_CTL_PORT(1) + 12, S4);
}

static void seed_regs(struct prog *p)
{
	unsigned int r;

	win(p, A, FZ_R_MDD, 4095, 4, S4, 0x12345678);
	win(p, A, FZ_R_MDD, 4095, 12, S4, ~0u);
	win_rd(p, A, FZ_R_MDD, 4095, 0, S8);
	win_rd(p, A, FZ_R_MDD, 4095, 12, S4);
	win(p, A, FZ_R_MDD, 1, 4, S8, 1);
	win(p, A, FZ_R_MRT, 16383, 0, S4, ~0u);
	win(p, A, FZ_R_NTT, 4095, 3u << 16 | 4, S4, 8);
	win(p, A, FZ_R_NL, 0, 0, S8, 1);
	win(p, A, FZ_R_NL, 0, 12, S4, 0xffff);
	win(p, A, FZ_R_CQ_DESC, 1023, 24, S8, 1);
	win_rd(p, A, FZ_R_CQ_DESC, 1023, 28, S4);
	win(p, A, FZ_R_CQ_DESC, 7, 8, S4, 3);
	win(p, A, FZ_R_CQ_DESC, 7, 12, S4, 1u << 21);
	win(p, A, FZ_R_CQ_USER, 7, 4, S4, 1);
	win(p, A, FZ_R_CQ_USER, 7, 8, S8, 1);
	win_rd(p, A, FZ_R_CQ_USER, 7, 0x10008, S8);
	win_rd(p, A, FZ_R_CQ_USER, 7, 0, S8);
	win(p, A, FZ_R_FMA_PRIV, 67, 0x48, S8, 1);
	win_rd(p, A, FZ_R_FMA_PRIV, 67, 0x48, S8);
	win_rd(p, A, FZ_R_FMA_PRIV, 67, 0x84, S4);
	win(p, A, FZ_R_FMA_PRIV, 67, 0x84, S4, 0xff);
	win(p, A, FZ_R_FMA_USER, 67, 0x18, S4, 0xffff);
	win_rd(p, A, FZ_R_FMA_USER, 67, 0x1c, S4);
	for (r = 0; r < FZ_NREGIONS; r++) {
		win_rd(p, B, (enum fz_region)r, 1, 0x10, S8);
		win_rd(p, B, (enum fz_region)r, 1, 0x11, S4);
		win(p, B, (enum fz_region)r, 1, 0x13, S2, 0);
		win(p, B, (enum fz_region)r, 1, 0x10, S3, 0);
	}
	win(p, B, FZ_R_RAW, 0x10000, 0, S8, 0);
	win_rd(p, B, FZ_R_RAW, 0xffff, 0xfffffff8, S8);
	win(p, B, FZ_R_PUT_WC, 2, 0x3ffffffc, S8, 0);
	win(p, B, FZ_R_GET, 2, 0, S4, 0);
	op(p, B, FZ_RESET);
	win_rd(p, B, FZ_R_FMA_PRIV, 3, GEMINI_FMA_PRIV_MASK_REG, S8);
}

/* Faults on the honest links while traffic flows. */
static void seed_faults(struct prog *p)
{
	static const unsigned int presets[] = { 2, 3, 4, 7, 8, 9, 10, 11 };
	unsigned int i;

	domain(p);
	for (i = 0; i < 8; i++) {
		op(p, i & 1, FZ_FAULT);
		e8(p, GEMINI_PORT_XP);
		e8(p, presets[i]);
		put(p, A, D1, 8 * i, S8, i);
		put(p, B, D1, 8 * i, S8, i);
		fma_cmd(p, A, D1, GEMINI_FMA_CMD_GET, MDH1, MDH1, 0);
		gcw(p, A, D1, 0x100, GEMINI_GCW_GET(64, 0x200));
		fma_cmd(p, A, D1, GEMINI_FMA_CMD_PUT, MDH1, MDH1, 0);
		fma_sync(p, A, D1, GEMINI_FMA_SYNC_LOCAL_EVENT, i);
		run(p);
		clock_(p, FZ_C_RETRY, 0);
		run(p);
	}
	for (i = 12; i < 22; i++) {
		op(p, A, FZ_FAULT);
		e8(p, i & 1);
		e8(p, i);
	}
	op(p, A, FZ_FAULT);
	e8(p, 6);
	e8(p, 1);
	op(p, A, FZ_FAULT);
	e8(p, 0);
	e8(p, 0xff);
	op(p, A, FZ_FAULT);
	e8(p, 1);
	e8(p, 0x80);
	e8(p, 11);
	e8(p, 'd');
	e8(p, 'r');
	e8(p, 'o');
	e8(p, 'p');
	e8(p, '=');
	e8(p, '0');
	e8(p, '.');
	e8(p, '5');
	e8(p, 0);
	e8(p, 'x');
	e8(p, '=');
	op(p, A, FZ_REPORT);
	e8(p, FZ_P_FAULT);
	e32(p, 0);
	op(p, A, FZ_REPORT);
	e8(p, FZ_P_FAULT);
	e32(p, 7);
}

/* Requests that get no answer: the link is down; late responses. */
static void seed_timeout(struct prog *p)
{
	struct pk k;

	domain(p);
	op(p, A, FZ_FAULT);
	e8(p, GEMINI_PORT_XP);
	e8(p, 5);
	put(p, A, D1, 0, S8, 1);
	fma_cmd(p, A, D1, GEMINI_FMA_CMD_GET, MDH1, MDH1, 0);
	gcw(p, A, D1, 0, GEMINI_GCW_GET(8, 0x100));
	fma_scratch(p, A, D1, 1, 0x10);
	fma_sync(p, A, D1, GEMINI_FMA_SYNC_LOCAL_EVENT |
		 GEMINI_FMA_SYNC_WITH_FLAG | GEMINI_FMA_SYNC_REMOTE_EVENT,
		 0x7e);
	run(p);
	clock_(p, FZ_C_FMA_TIMEOUT, 0);
	poll_(p, 2);
	op(p, A, FZ_FAULT);
	e8(p, GEMINI_PORT_XP);
	e8(p, 6);
	/* the late answers, and one for a resting tag */
	k = (struct pk){ .type = T_ACK, .dst = A, .tag = 0 };
	inject(p, A, 0, &k);
	k = (struct pk){ .type = T_DATA, .dst = A, .tag = 1, .len = 8 };
	inject(p, A, 0, &k);
	poll_(p, 4);
	fma_cmd(p, A, D1, GEMINI_FMA_CMD_PUT, MDH1, MDH1, 0);
	put(p, A, D1, 0x40, S8, 0x600d);
	fma_sync(p, A, D1, GEMINI_FMA_SYNC_LOCAL_EVENT, 0x7f);
	run(p);
	clock_(p, FZ_C_FMA_TIMEOUT | FZ_C_STALL, 0);
	put(p, A, D1, 0x48, S8, 1);
	fma_sync(p, A, D1, GEMINI_FMA_SYNC_NO_EVENT, 0);
	run(p);
	/* the router holds everything: requests time out in the queue */
	op(p, A, FZ_QUIESCE);
	e8(p, 1);
	put(p, A, D1, 0x50, S8, 1);
	fma_sync(p, A, D1, GEMINI_FMA_SYNC_LOCAL_EVENT, 0x80);
	poll_(p, 2);
	clock_(p, FZ_C_FMA_TIMEOUT, 0);
	poll_(p, 2);
	op(p, A, FZ_QUIESCE);
	e8(p, 0);
	run(p);
}

static void seed_attach(struct prog *p)
{
	unsigned int port;

	domain(p);
	put(p, A, D1, 0, S8, 1);
	poll_(p, 1);
	op(p, A, FZ_ATTACH);
	e8(p, GEMINI_PORT_XP);
	e8(p, FZ_A_DETACH);
	op(p, B, FZ_ATTACH);
	e8(p, GEMINI_PORT_XP);
	e8(p, FZ_A_REATTACH);
	put(p, A, D1, 8, S8, 2);
	fma_sync(p, A, D1, GEMINI_FMA_SYNC_LOCAL_EVENT, 1);
	run(p);
	op(p, A, FZ_ATTACH);
	e8(p, GEMINI_PORT_XP);
	e8(p, FZ_A_REATTACH);
	op(p, A, FZ_ATTACH);
	e8(p, GEMINI_PORT_ZM);
	e8(p, FZ_A_REATTACH);
	for (port = 0; port < 7; port += 3) {
		op(p, A, FZ_ATTACH);
		e8(p, port);
		e8(p, FZ_A_SHORT);
		op(p, A, FZ_ATTACH);
		e8(p, port);
		e8(p, FZ_A_BAD_PORT);
	}
	op(p, A, FZ_ATTACH);
	e8(p, 6);
	e8(p, FZ_A_DETACH);
	clock_(p, FZ_C_HEARTBEAT, 0);
	clock_(p, FZ_C_HEARTBEAT, 0);
	put(p, A, D1, 16, S8, 3);
	fma_sync(p, A, D1, GEMINI_FMA_SYNC_LOCAL_EVENT, 2);
	run(p);
	/* the peer goes quiet: its heartbeat stops (a stalled VM) */
	clock_(p, FZ_C_LINK_TIMEOUT | FZ_C_STALL, 0);
	poll_(p, 2);
	op(p, A, FZ_REPORT);
	e8(p, FZ_P_PORTS);
	e32(p, 4000);
	op(p, A, FZ_REPORT);
	e8(p, FZ_P_COUNTERS);
	e32(p, 8000);
}

static void seed_tables(struct prog *p)
{
	unsigned int v;

	domain(p);
	for (v = 0; v < FZ_NTABLES; v++) {
		op(p, A, FZ_LOAD_TABLE);
		e8(p, v);
		e32(p, 10 + v);
		e16(p, 0);
		e8(p, 0);
		e8(p, 0);
		op(p, B, FZ_LOAD_TABLE);
		e8(p, v);
		e32(p, 10 + v);
		e16(p, 0);
		e8(p, 0);
		e8(p, 0);
		put(p, A, D1, 8 * v, S8, v);
		put(p, B, D2, 8 * v, S8, v);
		win(p, A, FZ_R_FMA_USER, D1, GEMINI_FMA_QW_CQ_WRITE, S8, v);
		fma_sync(p, A, D1, GEMINI_FMA_SYNC_LOCAL_EVENT, v);
		run(p);
	}
	/* broken images: every check of the loader */
	{
		static const struct { unsigned int at, x; int adj; } bad[] = {
			{ 0, 1, 0 }, { 4, 1, 0 }, { 8, 1, 0 }, { 12, 1, 0 },
			{ 16, 1, 0 }, { 19, 1, 0 }, { 20, 1, 0 }, { 40, 1, 0 },
			{ 64, 1, 0 }, { 64, 0x10, 0 }, { 0, 0, -1 },
			{ 0, 0, -80 },
			{ 0, 0, 1 }, { 28, 1, 0 },
		};

		for (v = 0; v < sizeof(bad) / sizeof(bad[0]); v++) {
			op(p, A, FZ_LOAD_TABLE);
			e8(p, 0);
			e32(p, 20);
			e16(p, bad[v].at);
			e8(p, bad[v].x);
			e8(p, (uint8_t)(int8_t)bad[v].adj);
		}
		op(p, A, FZ_LOAD_TABLE);
		e8(p, 0);
		e32(p, 0);
		e16(p, 0);
		e8(p, 0);
		e8(p, 0);
	}
	op(p, A, FZ_REPORT);
	e8(p, FZ_P_FIRST_HOP);
	e32(p, 1);
	op(p, A, FZ_REPORT);
	e8(p, FZ_P_FIRST_HOP);
	e32(p, 9);
}

static void seed_reports(struct prog *p)
{
	static const uint32_t lens[] = { 0, 1, 2, 10, 100, 300, 700, 8192 };
	unsigned int i, w;

	domain(p);
	put(p, A, D1, 0, S8, 1);
	run(p);
	for (w = 0; w < FZ_NREPORTS; w++)
		for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
			op(p, i & 1, FZ_REPORT);
			e8(p, w);
			e32(p, w == FZ_P_DIAG ? (lens[i] << 8 | (i & 1)) :
			    w == FZ_P_NAMES ? i * 37 : lens[i]);
		}
	for (i = 0; i < 40; i++) {
		op(p, A, FZ_REPORT);
		e8(p, FZ_P_NAMES);
		e32(p, i * 0x01010101u + (i > 20 ? 0xf0 : 0));
	}
}

static void direct_pkt(struct prog *p, unsigned int node, unsigned int what,
		       const struct pk *k)
{
	op(p, node, FZ_DIRECT);
	e8(p, what);
	pk_fields(p, k);
}

static void seed_direct(struct prog *p)
{
	struct pk k;

	domain(p);
	/* the rmt's own checks: lengths decode would refuse */
	k = req(T_PUT, A, FZ_PTAG1, MDH1, 0x40, 200);
	direct_pkt(p, A, FZ_D_RMT, &k);
	k = req(T_AMO, A, FZ_PTAG1, MDH1, 0x40, 8);
	k.amo = GEMINI_AMO_CSWAP;
	direct_pkt(p, A, FZ_D_RMT, &k);
	k.amo = 0x1f;
	direct_pkt(p, A, FZ_D_RMT, &k);
	k = req(T_CQWRITE, A, FZ_PTAG1, MDH1, 0, 16);
	direct_pkt(p, A, FZ_D_RMT, &k);
	k = req(T_DIAG, A, FZ_PTAG1, MDH1, 0, 8);
	direct_pkt(p, A, FZ_D_RMT, &k);
	k = req(T_PUT, A, FZ_PTAG1, MDH1, 0x40, 8);
	direct_pkt(p, A, FZ_D_RMT, &k);
	direct_pkt(p, A, FZ_D_INJECT, &k);
	k.vclass = 1;
	direct_pkt(p, A, FZ_D_INJECT, &k);
	/* CQ events: no such CQ, a disabled one, a good one */
	op(p, A, FZ_DIRECT);
	e8(p, FZ_D_CQ_EVENT);
	e16(p, 1500);
	e8(p, 5);
	e8(p, 0);
	e64(p, 1);
	op(p, A, FZ_DIRECT);
	e8(p, FZ_D_CQ_EVENT);
	e16(p, 900);
	e8(p, 5);
	e8(p, 0);
	e64(p, 1);
	op(p, A, FZ_DIRECT);
	e8(p, FZ_D_CQ_EVENT);
	e16(p, LCQ1);
	e8(p, 5);
	e8(p, 3);
	e64(p, ~0ull);
	/* translations: the checks and the pieces */
	{
		static const struct {
			unsigned int ptag, mdh;
			uint64_t off, len;
			unsigned int write, max;
		} t[] = {
			{ FZ_PTAG1, MDH1, 0x40, 64, 1, 2 },
			{ FZ_PTAG1, MDH1, 0x40, 0, 1, 2 },
			{ FZ_PTAG1, MDH1, 0x40, 8, 1, 0 },
			{ FZ_PTAG1, MDH1_RO, 0x40, 8, 1, 2 },
			{ FZ_PTAG1, MDH1, 1ull << 40, 8, 0, 2 },
			{ FZ_PTAG1, 5000, 0, 8, 0, 2 },
			{ 0, MDH1, 0, 8, 0, 2 },
			{ FZ_PTAG2, MDH1, 0, 8, 0, 2 },
			{ FZ_PTAG1, MDH_GART, 0xff0, 64, 1, 2 },
			{ FZ_PTAG1, MDH_GART, 0xff0, 64, 1, 1 },
		};
		unsigned int i;

		ctl(p, A, VGEMINI_CTL_GART_BASE, S8, GART_TABLE);
		ctl(p, A, VGEMINI_CTL_GART_ENTRIES, S4, GART_N);
		mem64(p, A, GART_TABLE, VGEMINI_GART_ENTRY(FZ_REGION1));
		mem64(p, A, GART_TABLE + 8, VGEMINI_GART_ENTRY(FZ_REGION1 +
							       0x5000));
		mdd(p, A, MDH_GART, FZ_PTAG1, VGEMINI_GART_ADDR(0),
		    VGEMINI_GART_ADDR(2) - 1, 0, RW, RCQ1);
		for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
			op(p, A, FZ_DIRECT);
			e8(p, FZ_D_TRANSLATE);
			e8(p, t[i].ptag);
			e16(p, t[i].mdh);
			e64(p, t[i].off);
			e64(p, t[i].len);
			e8(p, t[i].write);
			e8(p, t[i].max);
			op(p, A, FZ_DIRECT);
			e8(p, FZ_D_CHECK);
			e8(p, t[i].ptag);
			e16(p, t[i].mdh);
		}
	}
	/* responses and pings handed straight to their engines */
	fma_cmd(p, A, D1, GEMINI_FMA_CMD_GET, MDH1, MDH1, 0);
	op(p, A, FZ_QUIESCE);
	e8(p, 1);
	gcw(p, A, D1, 0, GEMINI_GCW_GET(8, 0x100));
	k = (struct pk){ .type = T_DATA, .dst = A, .tag = 0, .len = 8 };
	direct_pkt(p, A, FZ_D_FMA_RSP, &k);
	k = (struct pk){ .type = T_DATA, .dst = A, .tag = 0, .len = 4 };
	direct_pkt(p, A, FZ_D_FMA_RSP, &k);
	k = (struct pk){ .type = T_ACK, .dst = A, .tag = 1 };
	direct_pkt(p, A, FZ_D_FMA_RSP, &k);
	k = (struct pk){ .type = T_ERR, .dst = A, .tag = 1, .status = 0 };
	direct_pkt(p, A, FZ_D_FMA_RSP, &k);
	k = (struct pk){ .type = T_DIAG, .dst = A, .src = B, .tag = 0x201,
			 .len = 3 };
	direct_pkt(p, A, FZ_D_DIAG, &k);
	k = (struct pk){ .type = T_DIAG_RSP, .dst = A, .tag = 0x201, .len = 3 };
	direct_pkt(p, A, FZ_D_DIAG, &k);
	op(p, A, FZ_QUIESCE);
	e8(p, 0);
	run(p);
}

/* Everything at once: the ORB fills, then the SSIDs run out. */
static void seed_exhaust(struct prog *p)
{
	domain(p);
	op(p, A, FZ_QUIESCE);
	e8(p, 1);
	repeat(p, GEMINI_ORB_SIZE + 10, 1, 8);
	put(p, A, D1, 0, S8, 0xc0de0000);
	fma_sync(p, A, D1, GEMINI_FMA_SYNC_LOCAL_EVENT, 5);
	op(p, A, FZ_QUIESCE);
	e8(p, 0);
	run(p);
	cq(p, A, LCQ1, cq_base(LCQ1), 511, 0, 0);
	op(p, A, FZ_QUIESCE);
	e8(p, 1);
	repeat(p, GEMINI_NUM_SSID + 2, 2, 8);
	put(p, A, D1, 0, S4, 0);
	fma_sync(p, A, D1, GEMINI_FMA_SYNC_LOCAL_EVENT |
		 GEMINI_FMA_SYNC_WITH_FLAG, 0);
	win(p, A, FZ_R_FMA_USER, D1, GEMINI_FMA_QW_ALLOC_SYNCID, S8, 0xff);
	fma_sync(p, A, D2, GEMINI_FMA_SYNC_REMOTE_EVENT, 1);
	op(p, A, FZ_QUIESCE);
	e8(p, 0);
	run(p);
	/* a reset with everything in flight; the answers come late */
	repeat(p, 40, 1, 8);
	put(p, A, D1, 0, S8, 1);
	poll_(p, 2);
	op(p, A, FZ_RESET);
	domain(p);
	put(p, A, D1, 0, S8, 1);
	run(p);
}

/* A CQ that overruns, irq thresholds, bad descriptors. */
static void seed_cq(struct prog *p)
{
	domain(p);
	cq(p, B, RCQ1, cq_base(RCQ1), 3, 1, 1);
	repeat(p, 6, 1, 0);
	put(p, A, D1, 0, S1, 1);
	fma_sync(p, A, D1, GEMINI_FMA_SYNC_REMOTE_EVENT, 0x21);
	run(p);
	win(p, B, FZ_R_CQ_USER, RCQ1, 0, S4, 2);
	win(p, B, FZ_R_CQ_USER, RCQ1, 0, S4, 2);
	fma_sync(p, A, D1, GEMINI_FMA_SYNC_REMOTE_EVENT, 0x22);
	run(p);
	/* unaligned base, rd past max, no memory, 1 entry */
	win(p, B, FZ_R_CQ_DESC, RCQ1, 16, S8, cq_base(RCQ1) + 8);
	fma_sync(p, A, D1, GEMINI_FMA_SYNC_REMOTE_EVENT, 0x23);
	run(p);
	win(p, B, FZ_R_CQ_DESC, RCQ1, 16, S8, 0x7ffffffff000ull);
	fma_sync(p, A, D1, GEMINI_FMA_SYNC_REMOTE_EVENT, 0x24);
	run(p);
	cq(p, B, RCQ1, cq_base(RCQ1), 3, 1, 0);
	win(p, B, FZ_R_CQ_USER, RCQ1, 0, S4, 9);
	fma_sync(p, A, D1, GEMINI_FMA_SYNC_REMOTE_EVENT, 0x25);
	run(p);
	cq(p, B, RCQ1, 0xfffffffff000ull, 1023, 1, 0);
	fma_sync(p, A, D1, GEMINI_FMA_SYNC_REMOTE_EVENT, 0x26);
	run(p);
	cq(p, B, RCQ1, cq_base(RCQ1), 0, 1, 0);
	fma_sync(p, A, D1, GEMINI_FMA_SYNC_REMOTE_EVENT, 0x27);
	run(p);
	/* interrupt indices: no vector, the last vector */
	win(p, A, FZ_R_CQ_DESC, LCQ1, 8, S8, 63 | 5ull << 48 |
	    GEMINI_CQ_ENABLE);
	fma_sync(p, A, D1, GEMINI_FMA_SYNC_LOCAL_EVENT, 0x28);
	win(p, A, FZ_R_CQ_DESC, LCQ1, 8, S8, 63 | 31ull << 48 |
	    GEMINI_CQ_ENABLE);
	fma_sync(p, A, D1, GEMINI_FMA_SYNC_LOCAL_EVENT, 0x29);
	/* the local CQ disabled: the local event is lost */
	win(p, A, FZ_R_CQ_DESC, LCQ1, 8, S8, 63);
	put(p, A, D1, 0, S1, 1);
	fma_sync(p, A, D1, GEMINI_FMA_SYNC_LOCAL_EVENT, 0x2a);
	run(p);
}

/*
 * Raw bytes of @k (to A) with byte @at xor @x and the CRC fixed; @again:
 * in place of the last frame, which A refused.
 */
static void raw_frame(struct prog *p, const struct gemini_pkt *k,
		      unsigned int at, unsigned int x, int again)
{
	uint8_t w[GEMINI_PKT_MAX_BYTES];
	int n = gemini_pkt_encode(k, w, sizeof(w)), i;

	if (n < 0) {
		fprintf(stderr, "raw frame does not encode\n");
		exit(1);
	}
	w[at % n] ^= (uint8_t)x;
	op(p, A, FZ_INJECT);
	e8(p, 1 | 4);			/* raw bytes, fix the CRC */
	e8(p, k->vc == GEMINI_VC_REQ ? 0 : 2);
	/* A refused copy is sent again under its number: the next goes there */
	e8(p, again ? 0xff : 0);
	e8(p, n);
	for (i = 0; i < n; i++)
		e8(p, w[i]);
	poll_(p, 1);
}

/* Frames whose CRC is right and whose fields are not. */
static void seed_raw_frames(struct prog *p)
{
	struct gemini_pkt k = {
		.vc = GEMINI_VC_REQ, .type = GEMINI_PKT_PUT, .dst = A, .src = B,
		.ptag = FZ_PTAG1, .mdh = MDH1, .addr = 0x40, .len = 5,
	};

	domain(p);
	raw_frame(p, &k, 0, 0, 0);		/* as it is */
	raw_frame(p, &k, 3 * 3, 0x01, 0);	/* phit 3 reserved bit */
	raw_frame(p, &k, 3 * 5, 0x01, 1);	/* phit 5 reserved bit */
	raw_frame(p, &k, 3 * 7 + 6, 0x01, 1);	/* data padding */
	raw_frame(p, &k, 3 * 7 + 8, 0x01, 1);	/* side-band byte */
	raw_frame(p, &k, 3 * 10 + 2, 0x01, 1);	/* end marker */
	k.type = GEMINI_PKT_AMO;
	k.amo_op = GEMINI_AMO_CSWAP;
	k.len = 16;
	k.flags = GEMINI_PKT_F_FETCH;
	raw_frame(p, &k, 3 * 5 + 2, 0x04, 1);	/* CSWAP without fetch */
	raw_frame(p, &k, 3 * 4 + 1, 0x08, 1);	/* an op that is none */
	k.type = GEMINI_PKT_GET;
	k.amo_op = 0;
	k.flags = 0;
	k.len = 8;
	raw_frame(p, &k, 3 * 4, 0x40, 1);	/* GET of 72 bytes */
	raw_frame(p, &k, 3 * 6, 0x01, 1);	/* phit 6 reserved bit */
	raw_frame(p, &k, 0, 0x07, 1);		/* type 7 */
	raw_frame(p, &k, 2, 0x40, 1);		/* VC 1, request layout */
	raw_frame(p, &k, 0, 0, 1);		/* and a good one at last */
	poll_(p, 4);
	/* MRT translations needing more pieces than allowed */
	win(p, A, FZ_R_MRT_PS, 0, 0, S8, GEMINI_MRT_PS_128K);
	win(p, A, FZ_R_MRT, 2, 0, S8, GEMINI_MRT_ENCODE(FZ_REGION1) |
	    (uint64_t)GEMINI_MRT_ENCODE(FZ_REGION2) << 32);
	mdd(p, A, MDH_MRT, FZ_PTAG1, 2ull << 17, (4ull << 17) - 1, 1, RW, RCQ1);
	op(p, A, FZ_DIRECT);
	e8(p, FZ_D_TRANSLATE);
	e8(p, FZ_PTAG1);
	e16(p, MDH_MRT);
	e64(p, (1ull << 17) - 8);
	e64(p, 16);
	e8(p, 1);
	e8(p, 1);
	op(p, A, FZ_DIRECT);
	e8(p, FZ_D_TRANSLATE);
	e8(p, FZ_PTAG1);
	e16(p, MDH_MRT);
	e64(p, (1ull << 17) - 8);
	e64(p, 16);
	e8(p, 0);
	e8(p, 2);
}

/* A descriptor's life: disabled mid-sequence, queues that time out. */
static void seed_fma_life(struct prog *p)
{
	domain(p);
	/* the kernel disables a descriptor whose sequence is open */
	put(p, A, D1, 0, S8, 1);
	put(p, A, D1, 8, S8, 2);
	win(p, A, FZ_R_FMA_PRIV, D1, GEMINI_FMA_QW_CMD, S8, 0);
	put(p, A, D1, 16, S8, 3);		/* refused: not enabled */
	fma_kernel(p, A, D1, FZ_PTAG1, LCQ1, 0);
	fma_cmd(p, A, D1, GEMINI_FMA_CMD_PUT, MDH1, MDH1, 0);
	put(p, A, D1, 24, S8, 4);
	fma_sync(p, A, D1, GEMINI_FMA_SYNC_LOCAL_EVENT, 0x30);
	run(p);
	/* requests still in the FMA's queue time out there */
	op(p, A, FZ_QUIESCE);
	e8(p, 1);
	repeat(p, 40, 1, 8);
	put(p, A, D2, 0, S8, 0x100);
	fma_sync(p, A, D2, GEMINI_FMA_SYNC_LOCAL_EVENT, 0x31);
	clock_(p, FZ_C_FMA_TIMEOUT, 0);
	poll_(p, 2);
	op(p, A, FZ_QUIESCE);
	e8(p, 0);
	run(p);
	clock_(p, FZ_C_FMA_TIMEOUT, 0);
	run(p);
	/* a sequence's flag finds the ORB full of another's requests */
	op(p, A, FZ_QUIESCE);
	e8(p, 1);
	put(p, A, D1, 0, S8, 5);
	fma_scratch(p, A, D1, 0xf1a9, 0x100);
	fma_sync(p, A, D1, GEMINI_FMA_SYNC_LOCAL_EVENT |
		 GEMINI_FMA_SYNC_WITH_FLAG | GEMINI_FMA_SYNC_REMOTE_EVENT,
		 0x32);
	repeat(p, GEMINI_ORB_SIZE - 1, 1, 8);
	put(p, A, D2, 0, S8, 0x200);
	op(p, A, FZ_QUIESCE);
	e8(p, 0);
	run(p);
	fma_sync(p, A, D2, GEMINI_FMA_SYNC_LOCAL_EVENT, 0x33);
	run(p);
}

/* DMA aimed at the device's own registers (its BARs) is refused. */
static void seed_own(struct prog *p)
{
	domain(p);
	/* a domain over the shared area, where own window 0 lies */
	mdd(p, B, 20, FZ_PTAG1, FZ_SHARED, FZ_SHARED + FZ_REGION_SIZE - 1, 0,
	    RW, RCQ1);
	fma_cmd(p, A, D1, GEMINI_FMA_CMD_PUT, 20, MDH1, 0);
	fma_base(p, A, D1, B, FZ_OWN0 - FZ_SHARED - 8);
	put(p, A, D1, 0, S8, 1);		/* just before */
	put(p, A, D1, 4, S8, 2);		/* across its start */
	put(p, A, D1, 8, S8, 3);		/* inside */
	fma_cmd(p, A, D1, GEMINI_FMA_CMD_GET, 20, MDH1, 0);
	gcw(p, A, D1, 8, GEMINI_GCW_GET(16, 0x100));
	fma_sync(p, A, D1, GEMINI_FMA_SYNC_LOCAL_EVENT, 0x40);
	run(p);
	/* the test DMA, a CQ ring and a GART table there */
	ctl(p, A, VGEMINI_CTL_DMA_ADDR, S8, FZ_OWN0 - 0x100);
	ctl(p, A, VGEMINI_CTL_DMA_LEN, S4, 0x200);
	ctl(p, A, VGEMINI_CTL_DMA_CMD, S4, VGEMINI_DMA_CMD_FILL);
	ctl(p, A, VGEMINI_CTL_DMA_DST, S8, FZ_OWN1 - 8);
	ctl(p, A, VGEMINI_CTL_DMA_ADDR, S8, FZ_SHARED);
	ctl(p, A, VGEMINI_CTL_DMA_CMD, S4, VGEMINI_DMA_CMD_COPY);
	cq(p, B, RCQ1, FZ_OWN0, CQ_MAX, 1, 0);
	fma_sync(p, A, D1, GEMINI_FMA_SYNC_REMOTE_EVENT, 0x41);
	run(p);
	ctl(p, B, VGEMINI_CTL_GART_BASE, S8, FZ_OWN0);
	ctl(p, B, VGEMINI_CTL_GART_ENTRIES, S4, 4);
	mdd(p, B, MDH_GART, FZ_PTAG1, VGEMINI_GART_ADDR(0),
	    VGEMINI_GART_ADDR(4) - 1, 0, RW, RCQ1);
	fma_cmd(p, A, D1, GEMINI_FMA_CMD_PUT, MDH_GART, MDH1, 0);
	put(p, A, D1, 0, S8, 4);
	fma_sync(p, A, D1, GEMINI_FMA_SYNC_LOCAL_EVENT, 0x42);
	run(p);
	/* the guest moves the BARs; one of them to address 0, one wraps */
	op(p, B, FZ_DIRECT);
	e8(p, FZ_D_OWN);
	e8(p, 0);
	e64(p, FZ_REGION1 - FZ_MEM_BASE);
	e64(p, 0x1000);
	op(p, B, FZ_DIRECT);
	e8(p, FZ_D_OWN);
	e8(p, 2);
	e64(p, ~0ull - 0xfff);
	e64(p, ~0ull);
	op(p, B, FZ_DIRECT);
	e8(p, FZ_D_OWN);
	e8(p, GEMINI_OWN_WINDOWS);
	e64(p, 0);
	e64(p, 0x1000);
	fma_cmd(p, A, D1, GEMINI_FMA_CMD_PUT, MDH1, MDH1, 0);
	fma_base(p, A, D1, B, 0);
	put(p, A, D1, 0x10, S8, 5);
	fma_sync(p, A, D1, GEMINI_FMA_SYNC_LOCAL_EVENT, 0x43);
	run(p);
	op(p, A, FZ_REPORT);
	e8(p, FZ_P_STATE);
	e32(p, 8000);
	op(p, B, FZ_REPORT);
	e8(p, FZ_P_STATE);
	e32(p, 30);
}

/* The glue's checks of the device properties. */
static void seed_init(struct prog *p)
{
	static const uint8_t cfg[][8] = {
		{ 2, 1, 1, 1, 0, 0, 32, 0 },	/* fine */
		{ 0, 1, 1, 0, 0, 0, 32, 0 },	/* a dimension of 0 */
		{ 2, 2, 2, 0, 2, 0, 32, 0 },	/* a coordinate past it */
		{ 255, 255, 255, 0, 0, 0, 32, 0 },	/* too many nodes */
		{ 2, 1, 1, 0, 0, 0, 0, 0 },	/* no vectors */
		{ 2, 1, 1, 0, 0, 0, 33, 0 },	/* too many */
		{ 2, 1, 1, 0, 0, 0, 8, 1 },	/* no ops */
		{ 2, 1, 1, 0, 0, 0, 8, 2 },	/* empty ops */
		{ 2, 1, 1, 0, 0, 0, 8, 3 },	/* no clock */
	};
	unsigned int i, k;

	for (i = 0; i < sizeof(cfg) / sizeof(cfg[0]); i++) {
		op(p, A, FZ_DIRECT);
		e8(p, FZ_D_INIT);
		for (k = 0; k < 8; k++)
			e8(p, cfg[i][k]);
	}
}

/* Node B's glue gives none of the optional callbacks (config bit 5). */
static void seed_minimal(struct prog *p)
{
	struct pk k;

	domain(p);
	put(p, A, D1, 0, S8, 1);
	put(p, B, D1, 0, S8, 1);
	fma_sync(p, B, D1, GEMINI_FMA_SYNC_LOCAL_EVENT, 1);
	win(p, B, FZ_R_FMA_USER, D1, GEMINI_FMA_QW_PE, S8, 0);
	run(p);
	k = (struct pk){ .type = T_ACK, .dst = B, .tag = 77 };
	inject(p, B, 0, &k);
	ctl(p, B, VGEMINI_CTL_DIAG_DEST, S4, 9);
	ctl(p, B, VGEMINI_CTL_DIAG_CMD, S4, VGEMINI_DIAG_CMD_PING);
	ctl(p, B, VGEMINI_CTL_DIAG_DEST, S4, 0);
	ctl(p, B, VGEMINI_CTL_DIAG_IRQ, S4, 200);
	ctl(p, B, VGEMINI_CTL_DIAG_CMD, S4, VGEMINI_DIAG_CMD_PING);
	run(p);
	op(p, B, FZ_ATTACH);
	e8(p, GEMINI_PORT_XP);
	e8(p, FZ_A_DETACH);
	clock_(p, FZ_C_LINK_TIMEOUT, 0);
	run(p);
}

/* No routing table yet (config bit 6): nothing moves until one comes. */
static void seed_no_table(struct prog *p)
{
	domain(p);
	ctl_rd(p, A, VGEMINI_CTL_FABRIC_STATE, S4);
	ctl(p, A, VGEMINI_CTL_DIAG_DEST, S4, 1);
	ctl(p, A, VGEMINI_CTL_DIAG_CMD, S4, VGEMINI_DIAG_CMD_PING);
	put(p, A, D1, 0, S8, 1);
	fma_sync(p, A, D1, GEMINI_FMA_SYNC_LOCAL_EVENT, 1);
	run(p);
	op(p, A, FZ_LOAD_TABLE);
	e8(p, 0);
	e32(p, 5);
	e16(p, 0);
	e8(p, 0);
	e8(p, 0);
	op(p, B, FZ_LOAD_TABLE);
	e8(p, 4);
	e32(p, 5);
	e16(p, 0);
	e8(p, 0);
	e8(p, 0);
	run(p);
	op(p, B, FZ_DIAG_HOST);
	e8(p, 1);
	e32(p, 0);
	e32(p, 8);
	e8(p, 1);
	op(p, B, FZ_LOAD_TABLE);
	e8(p, 0);
	e32(p, 6);
	e16(p, 0);
	e8(p, 0);
	e8(p, 0);
	run(p);
	/* a table whose CRC vouches for a reserved bit */
	op(p, A, FZ_LOAD_TABLE);
	e8(p, 0x80);
	e32(p, 7);
	e16(p, 3);
	e8(p, 0x10);
	e8(p, 0);
	ctl_rd(p, A, VGEMINI_CTL_ROUTE_GEN, S8);
	/* the injection buffer full: a ping finds no room */
	op(p, A, FZ_QUIESCE);
	e8(p, 1);
	repeat(p, 20, 1, 8);
	put(p, A, D1, 0, S8, 1);
	op(p, A, FZ_DIAG_HOST);
	e8(p, 1);
	e32(p, 1);
	e32(p, 8);
	e8(p, 1);
	ctl_rd(p, A, VGEMINI_CTL_FABRIC_STATE, S4);
	op(p, A, FZ_QUIESCE);
	e8(p, 0);
	run(p);
}

/* Packet seeds for fuzz_packet: mode byte 1 = "fix the CRC". */
static void packet_seeds(const char *dir)
{
	static const struct gemini_pkt pk[] = {
		{ .vc = 0, .type = GEMINI_PKT_PUT, .dst = 1, .src = 2,
		  .ptag = 7, .mdh = 5, .addr = 0x1234, .len = 13, .tag = 9,
		  .flags = GEMINI_PKT_F_REMOTE_EVENT },
		{ .vc = 0, .type = GEMINI_PKT_GET, .dst = 3, .ptag = 1,
		  .len = 64, .addr = 0xffffffffffull },
		{ .vc = 0, .type = GEMINI_PKT_AMO, .amo_op = GEMINI_AMO_CSWAP,
		  .len = 16, .flags = GEMINI_PKT_F_FETCH, .vclass = 1 },
		{ .vc = 0, .type = GEMINI_PKT_CQWRITE, .len = 8, .hops = 31 },
		{ .vc = 0, .type = GEMINI_PKT_DIAG, .len = 0,
		  .flags = GEMINI_PKT_F_ROUTED },
		{ .vc = 1, .type = GEMINI_PKT_ACK, .tag = 0x3ff },
		{ .vc = 1, .type = GEMINI_PKT_ERR, .status = 15, .hops = 3 },
		{ .vc = 1, .type = GEMINI_PKT_DATA, .len = 64, .tag = 0x155 },
		{ .vc = 1, .type = GEMINI_PKT_DIAG_RSP, .len = 20 },
	};
	unsigned int i;

	for (i = 0; i < sizeof(pk) / sizeof(pk[0]); i++) {
		uint8_t wire[1 + GEMINI_PKT_MAX_BYTES];
		char path[512];
		FILE *f;
		int n;

		wire[0] = 1;	/* fuzz_packet: fix the CRC, then decode */
		n = gemini_pkt_encode(&pk[i], wire + 1, sizeof(wire) - 1);
		if (n < 0) {
			fprintf(stderr, "packet seed %u does not encode\n", i);
			exit(1);
		}
		snprintf(path, sizeof(path), "%s/seed-%02u", dir, i);
		f = fopen(path, "wb");
		if (!f || fwrite(wire, 1, (size_t)n + 1, f) != (size_t)n + 1 ||
		    fclose(f)) {
			perror(path);
			exit(1);
		}
	}
}

/* The BTE's registers: rings, enable (refused and taken), indices, reset */
static void seed_bte(struct prog *p)
{
	const uint32_t chan = 0u << 16, rxchan = 1u << 16;
	const uint32_t ring = 2u << 16, np = 3u << 16;

	win(p, A, FZ_R_BTE_TX, 5, 0, S8, 0x0020000000000001ull);
	win(p, A, FZ_R_BTE_TX, 5, 16, S8, ~0ull);
	win_rd(p, A, FZ_R_BTE_TX, 5, 16, S8);
	win(p, A, FZ_R_BTE_TX, 1023, 0, S8, 1);
	/* TX VC 0: enable refused without a ring, then a ring of 8 at 16 */
	win(p, A, FZ_R_BTE_CHAN, 0, chan | 0, S8, 2ull << 61);
	win(p, A, FZ_R_BTE_CHAN, 0, ring | 0, S8, 16);
	win(p, A, FZ_R_BTE_CHAN, 0, ring | 8, S8, 8);
	win(p, A, FZ_R_BTE_CHAN, 0, chan | 8, S8, 0x100040);
	win(p, A, FZ_R_BTE_CHAN, 0, chan | 0, S8, 2ull << 61);
	win(p, A, FZ_R_BTE_CHAN, 0, chan | 24, S8, 3);
	win(p, A, FZ_R_BTE_CHAN, 0, chan | 24, S4, 9);
	win(p, A, FZ_R_BTE_CHAN, 0, ring | 0, S4, 0);
	win(p, A, FZ_R_BTE_CHAN, 0, chan | 16, S8, ~0ull);
	win(p, A, FZ_R_BTE_CHAN, 0, chan | 0, S8, 3ull << 61);
	win_rd(p, A, FZ_R_BTE_CHAN, 0, chan | 16, S8);
	win_rd(p, A, FZ_R_BTE_CHAN, 0, chan | 32, S8);
	/* TX VC 1 overlapping VC 0's ring */
	win(p, A, FZ_R_BTE_CHAN, 0, ring | 2, S2, 20);
	win(p, A, FZ_R_BTE_CHAN, 0, ring | 10, S2, 4);
	win(p, A, FZ_R_BTE_CHAN, 0, chan | 72, S8, 0x2000);
	win(p, A, FZ_R_BTE_CHAN, 0, chan | 64, S8, 2ull << 61);
	/* RX VC 3: one slot at 1023 */
	win(p, A, FZ_R_BTE_CHAN, 0, ring | 0x100 | 6, S2, 1023);
	win(p, A, FZ_R_BTE_CHAN, 0, ring | 0x100 | 14, S2, 1);
	win(p, A, FZ_R_BTE_CHAN, 0, rxchan | 200, S8, 0x4000);
	win(p, A, FZ_R_BTE_CHAN, 0, rxchan | 192, S8, 4ull << 60);
	win(p, A, FZ_R_BTE_RX, 1023, 0, S8, ~0ull);
	win(p, A, FZ_R_BTE_CHAN, 0, np | 8, S8, ~0ull);
	win_rd(p, A, FZ_R_BTE_CHAN, 0, np | 8, S8);
}

/* TX descriptor @slot on @node: one transfer of ptag 1, NAT on */
static void bte_desc(struct prog *p, unsigned int node, unsigned int slot,
		     unsigned int mode1, unsigned int dmdh, uint64_t doff,
		     uint64_t len, unsigned int smdh, uint64_t soff)
{
	win(p, node, FZ_R_BTE_TX, slot, 0, S8,
	    (uint64_t)mode1 << GEMINI_BTE_MODE1_SHIFT | GEMINI_PE(!node, 0));
	win(p, node, FZ_R_BTE_TX, slot, 8, S8,
	    (uint64_t)GEMINI_BTE_IRQ_ENABLE << GEMINI_BTE_MODE2_SHIFT |
	    (uint64_t)dmdh << GEMINI_BTE_DEST_MDH_SHIFT | doff);
	win(p, node, FZ_R_BTE_TX, slot, 16, S8,
	    len << GEMINI_BTE_LEN_SHIFT |
	    (uint64_t)FZ_PTAG1 << GEMINI_BTE_SRC_PTAG_SHIFT |
	    (uint64_t)FZ_PTAG1 << GEMINI_BTE_DEST_PTAG_SHIFT | LCQ1);
	win(p, node, FZ_R_BTE_TX, slot, 24, S8,
	    (uint64_t)GEMINI_BTE_NAT_ENABLE << GEMINI_BTE_MODE4_SHIFT |
	    (uint64_t)smdh << GEMINI_BTE_SRC_MDH_SHIFT | soff);
	win(p, node, FZ_R_BTE_TX, slot, 32, S8, 0x10ca + slot);
	win(p, node, FZ_R_BTE_TX, slot, 40, S8, 0x6106a1 + slot);
}

/*
 * The BTE's transfers: A's TX channel 1 runs a PUT with IMMED, a GET, a
 * SEND into B's posted RX buffers, a GET into a read-only domain and a
 * PUT to a domain B does not have.
 */
static void seed_bte_xfer(struct prog *p)
{
	const uint32_t chan = 0u << 16, rxchan = 1u << 16, ring = 2u << 16;
	const unsigned int cq = GEMINI_BTE_CQ_LOCAL | GEMINI_BTE_CQ_GLOBAL;
	unsigned int i;

	domain(p);
	mem_bytes(p, A, FZ_REGION1 + 0x100, "the data A sends");
	mem_bytes(p, B, FZ_REGION1 + 0x800, "the data A gets");
	/* B: RX channel 1, four buffers of 4 KiB, three posted */
	win(p, B, FZ_R_BTE_CHAN, 0, ring | 0x100 | 0, S8, 10ull << 16);
	win(p, B, FZ_R_BTE_CHAN, 0, ring | 0x100 | 8, S8, 4ull << 16);
	win(p, B, FZ_R_BTE_CHAN, 0, rxchan | 72, S8, FZ_SHARED + 0x3000);
	for (i = 0; i < 4; i++)
		win(p, B, FZ_R_BTE_RX, 10 + i, 0, S8,
		    (FZ_SHARED + 0x4000 + 0x1000 * i) |
		    (uint64_t)GEMINI_BTE_RX_IRQ_ENABLE <<
		    GEMINI_BTE_RX_MODE_SHIFT);
	win(p, B, FZ_R_BTE_CHAN, 0, rxchan | 64, S8, 0x1000 |
	    (uint64_t)(GEMINI_BTE_RXC_ENABLE | GEMINI_BTE_RXC_IRQ_ENABLE) <<
	    GEMINI_BTE_RXC_FLAGS_SHIFT);
	win(p, B, FZ_R_BTE_CHAN, 0, rxchan | 88, S8, 3);
	/* A: TX channel 1, a ring of 8 at 100 */
	win(p, A, FZ_R_BTE_CHAN, 0, ring | 0, S8, 100ull << 16);
	win(p, A, FZ_R_BTE_CHAN, 0, ring | 8, S8, 8ull << 16);
	win(p, A, FZ_R_BTE_CHAN, 0, chan | 72, S8, FZ_SHARED + 0x2000);
	win(p, A, FZ_R_BTE_CHAN, 0, chan | 64, S8,
	    (uint64_t)(GEMINI_BTE_TXC_ENABLE | GEMINI_BTE_TXC_IRQ_ENABLE) <<
	    GEMINI_BTE_TXC_FLAGS_SHIFT);
	bte_desc(p, A, 100, GEMINI_BTE_PUT | GEMINI_BTE_IMMED | cq, MDH1,
		 0x2003, 1000, MDH1, 0x100);
	bte_desc(p, A, 101, GEMINI_BTE_GET | cq, MDH1, 0x800, 256, MDH1,
		 0x4000);
	bte_desc(p, A, 102, GEMINI_BTE_SEND | GEMINI_BTE_IMMED | cq, 0, 0, 300,
		 MDH1, 0x100);
	bte_desc(p, A, 103, GEMINI_BTE_GET | cq, MDH1, 0x800, 64, MDH1_RO,
		 0x4000);
	bte_desc(p, A, 104, GEMINI_BTE_PUT | cq, MDH2, 0x100, 64, MDH1, 0);
	win(p, A, FZ_R_BTE_CHAN, 0, chan | 88, S8, 5);
	run(p);
	win_rd(p, A, FZ_R_BTE_CHAN, 0, chan | 80, S8);
	win_rd(p, B, FZ_R_BTE_CHAN, 0, rxchan | 80, S8);
}

static const struct {
	const char *name;
	void (*fn)(struct prog *p);
	uint8_t cfg;
} seeds[] = {
	{ "put", seed_put, 0x00 },
	{ "get", seed_get, 0x00 },
	{ "amo", seed_amo, 0x00 },
	{ "cqwrite", seed_cqwrite, 0x00 },
	{ "cross-ptag", seed_cross, 0x00 },
	{ "mrt", seed_mrt, 0x00 },
	{ "gart", seed_gart, 0x00 },
	{ "ntt", seed_ntt, 0x00 },
	{ "pe-modes", seed_pe_modes, 0x04 },
	{ "inject", seed_inject, 0x00 },
	{ "forge", seed_forge, 0x08 },
	{ "hostile", seed_hostile, 0x00 },
	{ "diag", seed_diag, 0x01 },
	{ "dma", seed_dma, 0x02 },
	{ "ctl", seed_ctl, 0x03 },
	{ "regs", seed_regs, 0x00 },
	{ "faults", seed_faults, 0x00 },
	{ "timeout", seed_timeout, 0x00 },
	{ "attach", seed_attach, 0x00 },
	{ "tables", seed_tables, 0x14 },
	{ "reports", seed_reports, 0x00 },
	{ "direct", seed_direct, 0x00 },
	{ "exhaust", seed_exhaust, 0x00 },
	{ "cq", seed_cq, 0x01 },
	{ "init", seed_init, 0x00 },
	{ "fma-life", seed_fma_life, 0x00 },
	{ "raw-frames", seed_raw_frames, 0x00 },
	{ "own", seed_own, 0x00 },
	{ "bte", seed_bte, 0x00 },
	{ "bte-xfer", seed_bte_xfer, 0x00 },
	{ "minimal-ops", seed_minimal, FZ_CFG_MINIMAL_OPS },
	{ "no-table", seed_no_table, FZ_CFG_NO_TABLE },
};

int main(int argc, char **argv)
{
	static struct prog p;
	unsigned int i;

	if (argc < 2) {
		fprintf(stderr,
			"usage: %s CORE_CORPUS_DIR [PACKET_CORPUS_DIR]\n",
			argv[0]);
		return 2;
	}
	for (i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
		char path[512];
		FILE *f;

		p.n = 0;
		e8(&p, seeds[i].cfg);
		seeds[i].fn(&p);
		snprintf(path, sizeof(path), "%s/seed-%s", argv[1],
			 seeds[i].name);
		f = fopen(path, "wb");
		if (!f || fwrite(p.b, 1, p.n, f) != p.n || fclose(f)) {
			perror(path);
			return 1;
		}
	}
	if (argc > 2)
		packet_seeds(argv[2]);
	return 0;
}
