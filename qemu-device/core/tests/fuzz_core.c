// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for the whole device core (every .c file of
 * qemu-device/core): two NICs, node A (Gemini 0) and node B (Gemini 1)
 * of a 2x1x1 torus, cabled back to back in memory as the launcher
 * cables link files, and driven by a program the fuzzer writes (the
 * language is in fuzz_core.h):
 * the guests' MMIO to BAR0 and BAR2 at any offset, size and value, the
 * guests' stores into node memory (CQ rings, GART table, data), frames a
 * hostile neighbour writes into a link, the supervisor's calls (routing
 * tables, faults, quiesce, pings, attach, JSON), and the clock.
 *
 * Cabling: X+ of each node goes to X- of the other (two honest links);
 * Y+ and Y- of each node share one link (the ring of a dimension of one);
 * Z+ of each node goes to a link whose far side is played by this harness,
 * a hostile neighbour that claims to be the expected peer, heartbeats,
 * acknowledges what it receives and forges whatever the program says.
 *
 * Node memory is FZ_MEM_SIZE bytes at FZ_MEM_BASE on each node; every DMA
 * callback checks its range and refuses what lies outside (as a bus
 * would), after the oracle below has judged it.
 *
 * THE ORACLE (abort() on violation).  Node memory is partitioned by the
 * seeds into a system area (CQ rings, GART table), a region of ptag
 * FZ_PTAG1, a region of ptag FZ_PTAG2 and a shared area, each ptag's
 * domains (MDDs) covering its own region only; but the program may
 * reprogram any table, so ownership is not a fixed map: it is what the
 * memory domain descriptors say at the moment of the access.  The core
 * does not tell a DMA callback which request caused it, so the rule is
 * stated over the requests that can be executing at that moment, which
 * the harness reads from the public device state:
 *
 *   A DMA WRITE of [addr, addr + len) by node N's core is legitimate only
 *   if one of these holds:
 *    (a) it is the 8-byte entry at base + 8 * wr_index of a CQ of N that
 *        is enabled and well programmed (base 4 KiB aligned, max_index at
 *        least 1, both indices at most max_index): a CQ event;
 *    (b) it happens inside a control-block write that starts the test DMA
 *        and lies within [DMA_ADDR, +DMA_LEN) or [DMA_DST, +DMA_LEN);
 *    (c) it happens while N polls (or inside a direct call of a core
 *        entry point), and the packet being delivered - the head of one
 *        of N's input buffers, or the packet of the direct call - may
 *        write there: a request (PUT, GET, AMO, CQWRITE) with ptag P and
 *        MDH M, or a DATA response whose tag names a fetching FMA
 *        request of N, with that request's source ptag P and source MDH
 *        M.  "May write" means: MDD M is VALID and WRITABLE, its ptag is
 *        P (never 0), and some domain address a with [a, a + len) inside
 *        the domain [mem_base, last byte], a - mem_base + len <= 2^40,
 *        translates byte for byte to [addr, addr + len) - node-physical
 *        below the GART aperture, through a valid GART entry (read from
 *        memory now) above it, or through a valid MRT entry with the MRT
 *        page size if mrt_enable.  (The router delivers the head of an
 *        input buffer and removes it only afterwards; so a request with
 *        a wrong ptag is not excused by a good one queued behind it.)
 *   A DMA READ is legitimate under (b) (the DMA_ADDR range only), under
 *   (c) without the WRITABLE condition, or if it is an 8-byte GART entry
 *   at GART_BASE + 8 * i with i < GART_ENTRIES.
 *   And whatever else holds, no DMA may touch one of the device's own
 *   windows (its BARs, gemini_nic_set_own_window()): the core refuses it
 *   before the bus sees it.
 *   Anything else - in particular a write into the memory of a ptag whose
 *   domains the executing requests cannot name, any data DMA during a
 *   guest MMIO access or a tick - is a finding.  The translation is
 *   computed backwards, independently of gemini_nat.c, from the tables.
 *
 * Also checked: every MSI-X vector raised is below the vectors the glue
 * gave; a stale response is on the response VC; JSON and fault texts are
 * NUL-terminated within their buffer; the ORB, SSID and queue counters
 * agree with the entries; a direct gemini_nat_translate() returns pieces
 * that the oracle's translation covers, of the length asked; and at the
 * end, after the clock has run long enough for every timeout, no
 * synchronised FMA sequence and no ping is left unfinished ("nothing is
 * lost silently").
 *
 * Polling follows the glue: a node polls when a doorbell rang (the
 * kick_peer callback of its neighbour), after an MMIO write, a tick or a
 * supervisor call, and when the deadline its last poll returned has come;
 * FZ_POLL can also force polls.
 *
 *   make fuzz FUZZ_TIME=600      (qemu-device/core/tests/fuzz.mk)
 *   FUZZ_CORE_TRACE=1|2          print what each input did (2: with the
 *                                guest errors); FUZZ_CORE_NO_LIVENESS=1
 *                                skips the final timeout run
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemini_core.h"
#include "vgemini_crc32.h"
#include "fuzz_core.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MEM_BASE	FZ_MEM_BASE
#define MEM_SIZE	FZ_MEM_SIZE
#define NNODES		2
#define STEP_NS		2000u
#define IDLE_NS		((uint64_t)VGEMINI_LINK_RETRY_MS * 1000000)
#define MS(x)		((uint64_t)(x) * 1000000u)
#define SHM_BYTES	sizeof(struct vgemini_link_shm)
#define AP		VGEMINI_GART_APERTURE
#define BUDGET		4000	/* work per input (see cost()) */

struct fnode {
	struct gemini_nic nic;
	unsigned int id;
	uint64_t irqs, guest_errors, stale, kicks;
	/* CQ descriptors the program wrote: the only ones that can be on */
	uint16_t cq_list[GEMINI_NUM_CQ];
	unsigned int ncq;
	bool cq_seen[GEMINI_NUM_CQ];
	uint64_t epoch[GEMINI_NUM_TORUS_PORTS];
	uint32_t dirty_lo, dirty_hi;	/* of mem, to clear next time */
	/* As the glue polls: a doorbell or new work, or the deadline */
	bool wake;
	uint64_t deadline;
	uint8_t mem[MEM_SIZE];
};

static struct fnode nodes[NNODES];
static uint8_t links[FZ_NLINKS][VGEMINI_LINK_FILE_SIZE]
	__attribute__((aligned(4096)));
static uint64_t now_ns;
static uint64_t next_tick_ms;
static unsigned int budget;
static int trace;	/* FUZZ_CORE_TRACE: 1 a summary, 2 errors too */

/* The hostile far end of each node's Z+ link (side 1 of FZ_L_ZA + n). */
struct hostile {
	uint64_t epoch;
	uint64_t heartbeat;
	bool silent;
	bool passive;
};

static struct hostile hostile[NNODES];

/* Frames forged into a link: the next number per writer side, channel. */
struct forge {
	uint32_t session;
	uint32_t next;
};

static struct forge forge[FZ_NLINKS][2][VGEMINI_LINK_CHANS];

/* --- the input ----------------------------------------------------------- */

struct rd {
	const uint8_t *p;
	size_t n;
};

static uint8_t g8(struct rd *r)
{
	if (!r->n)
		return 0;
	r->n--;
	return *r->p++;
}

static uint16_t g16(struct rd *r)
{
	uint16_t v = g8(r);

	return v | (uint16_t)(g8(r) << 8);
}

static uint32_t g32(struct rd *r)
{
	uint32_t v = g16(r);

	return v | (uint32_t)g16(r) << 16;
}

static uint64_t g64(struct rd *r)
{
	uint64_t v = g32(r);

	return v | (uint64_t)g32(r) << 32;
}

static const unsigned int sizes[8] = FZ_SIZES;

/* Round of the FZ_REPEAT in progress (0 outside one). */
static uint32_t rep_i, rep_stride;

/* --- the oracle ---------------------------------------------------------- */

enum ctx { CTX_NONE, CTX_CTL, CTX_WIN, CTX_POLL, CTX_DIRECT };

static struct {
	enum ctx ctx;
	struct fnode *node;
	bool dma_cmd;		/* this write starts the test DMA */
	const struct gemini_pkt *pkt;	/* a request executed directly */
} oc;

static const char *const ctx_names[] = {
	"no call", "control-block access", "NIC-window access", "poll",
	"direct call",
};

static void enter(enum ctx ctx, struct fnode *n)
{
	oc.ctx = ctx;
	oc.node = n;
	oc.dma_cmd = false;
	oc.pkt = NULL;
}

static void leave(void)
{
	enter(CTX_NONE, NULL);
}

static void finding(const struct fnode *n, const char *what, uint64_t addr,
		    uint64_t len)
{
	fprintf(stderr,
		"fuzz_core ORACLE: node %c: %s: 0x%llx, %llu bytes, during %s\n",
		n ? 'A' + n->id : '?', what, (unsigned long long)addr,
		(unsigned long long)len, ctx_names[oc.ctx]);
	abort();
}

static void broken(const struct fnode *n, const char *what)
{
	fprintf(stderr, "fuzz_core INVARIANT: node %c: %s\n",
		n ? 'A' + n->id : '?', what);
	abort();
}

/* [addr, addr + len) inside [lo, lo + size)? */
static bool within(uint64_t addr, uint64_t len, uint64_t lo, uint64_t size)
{
	return addr >= lo && addr - lo <= size && len <= size - (addr - lo);
}

/* (a): the entry a CQ event goes to. */
static bool cq_entry_ok(const struct fnode *n, uint64_t addr, uint64_t len)
{
	unsigned int k;

	if (len != GEMINI_CQ_ENTRY_BYTES)
		return false;
	for (k = 0; k < n->ncq; k++) {
		const struct gemini_cq *cq = &n->nic.cq[n->cq_list[k]];
		uint64_t base = cq->qw[2] & GEMINI_CQ_BASE_MASK;
		uint64_t max = cq->qw[1] & GEMINI_CQ_INDEX_MASK;
		uint64_t rd = cq->qw[0] & GEMINI_CQ_INDEX_MASK;
		uint64_t wr = (cq->qw[0] >> GEMINI_CQ_WR_INDEX_SHIFT) &
			      GEMINI_CQ_INDEX_MASK;

		if (!(cq->qw[1] & GEMINI_CQ_ENABLE) ||
		    (base & (GEMINI_CQ_ALIGN - 1)) ||
		    max < GEMINI_CQ_MIN_MAX_INDEX || rd > max || wr > max ||
		    base + (max + 1) * GEMINI_CQ_ENTRY_BYTES - 1 >
		    GEMINI_CQ_BASE_MASK)
			continue;
		if (addr == base + wr * GEMINI_CQ_ENTRY_BYTES)
			return true;
	}
	return false;
}

/* The GART entry a translation reads. */
static bool gart_read_ok(const struct fnode *n, uint64_t addr, uint64_t len)
{
	const struct gemini_nat *nat = &n->nic.nat;

	return len == VGEMINI_GART_ENTRY_BYTES && addr >= nat->gart_base &&
	       !((addr - nat->gart_base) % VGEMINI_GART_ENTRY_BYTES) &&
	       (addr - nat->gart_base) / VGEMINI_GART_ENTRY_BYTES <
	       nat->gart_entries;
}

/* (b): inside the test DMA a control write started. */
static bool test_dma_ok(const struct fnode *n, uint64_t addr, uint64_t len,
			bool write)
{
	const struct gemini_nic *nic = &n->nic;

	if (oc.ctx != CTX_CTL || !oc.dma_cmd ||
	    nic->ctl.dma_len > VGEMINI_DMA_MAX_LEN)
		return false;
	return within(addr, len, nic->ctl.dma_addr, nic->ctl.dma_len) ||
	       (write && within(addr, len, nic->ctl.dma_dst, nic->ctl.dma_len));
}

/*
 * (c) for one (ptag, MDH): may a request write (or read) node-physical
 * [addr, addr + len), a run that one translation step produced?
 */
static bool mdd_covers(const struct fnode *n, unsigned int ptag,
		       unsigned int mdh, uint64_t addr, uint64_t len,
		       bool write)
{
	const struct gemini_nat *nat = &n->nic.nat;
	uint64_t q1, q2, modes, lo, hi, last;

	if (mdh >= GEMINI_NUM_MDD || !ptag || !len)
		return false;
	q1 = nat->mdd[mdh][0];
	q2 = nat->mdd[mdh][1];
	modes = (q2 >> GEMINI_MDD_MODES_SHIFT) & GEMINI_MDD_MODES_MASK;
	if (!(modes & GEMINI_MDD_MODE_VALID) ||
	    ((q1 >> GEMINI_MDD_PTAG_SHIFT) & GEMINI_MDD_PTAG_MASK) != ptag ||
	    (write && !(modes & GEMINI_MDD_MODE_WRITABLE)))
		return false;
	lo = ((q1 >> GEMINI_MDD_MEM_BASE_SHIFT) & GEMINI_MDD_MEM_BASE_MASK) <<
	     GEMINI_MDD_ADDR_SHIFT;
	last = (((q2 >> GEMINI_MDD_MAX_BASE_SHIFT) & GEMINI_MDD_MAX_BASE_MASK)
		<< GEMINI_MDD_ADDR_SHIFT) | 0xfff;
	/* Offsets are 40 bits. */
	hi = lo + (1ull << GEMINI_PKT_ADDR_BITS) - 1;
	if (last < hi)
		hi = last;
	if (hi < lo)
		return false;

	if (q1 & GEMINI_MDD_MRT_ENABLE) {
		unsigned int code = nat->mrt_page_size &
				    GEMINI_MRT_PAGE_SIZE_MASK;
		unsigned int shift = GEMINI_MRT_PAGE_SHIFT(code);
		uint64_t page = 1ull << shift, in = addr & (page - 1), i, imax;

		/* A run never crosses an MRT page. */
		if (in + len > page)
			return false;
		imax = hi >> shift;
		if (imax >= GEMINI_NUM_MRT)
			imax = GEMINI_NUM_MRT - 1;
		for (i = lo >> shift; i <= imax; i++) {
			uint32_t e = nat->mrt[i];
			uint64_t a;

			if (!(e & GEMINI_MRT_VALID) ||
			    (GEMINI_MRT_DECODE(e) & ~(page - 1)) != addr - in)
				continue;
			a = (i << shift) | in;
			if (a >= lo && a + len - 1 <= hi)
				return true;
		}
		return false;
	}
	/* Below the aperture the domain address is node-physical. */
	if (addr >= lo && addr + len - 1 <= hi && addr + len - 1 < AP)
		return true;
	/* From the aperture up: a GART page, its entry read from memory. */
	{
		uint64_t in = addr & (VGEMINI_GART_PAGE_SIZE - 1);
		uint64_t i, imin, imax;
		uint64_t gb = nat->gart_base, end = MEM_BASE + MEM_SIZE;

		if (in + len > VGEMINI_GART_PAGE_SIZE || hi < AP ||
		    !nat->gart_entries || gb >= end)
			return false;
		imin = (lo > AP ? lo - AP : 0) >> VGEMINI_GART_PAGE_SHIFT;
		imax = (hi - AP) >> VGEMINI_GART_PAGE_SHIFT;
		if (imax >= nat->gart_entries)
			imax = nat->gart_entries - 1;
		/* Entries outside node memory cannot be read: no page. */
		if (gb < MEM_BASE && imin < (MEM_BASE - gb) / 8)
			imin = (MEM_BASE - gb) / 8;
		if ((end - gb) / 8 == 0)
			return false;
		if (imax > (end - gb) / 8 - 1)
			imax = (end - gb) / 8 - 1;
		for (i = imin; i <= imax; i++) {
			uint64_t e = vgemini_get_le64(n->mem + (gb + 8 * i - MEM_BASE)), a;

			if (!(e & VGEMINI_GART_VALID) ||
			    (e & VGEMINI_GART_ADDR_MASK) != addr - in)
				continue;
			a = AP + (i << VGEMINI_GART_PAGE_SHIFT) + in;
			if (a >= lo && a + len - 1 <= hi)
				return true;
		}
	}
	return false;
}

static bool is_mem_request(const struct gemini_pkt *p)
{
	return p->vc == GEMINI_VC_REQ &&
	       (p->type == GEMINI_PKT_PUT || p->type == GEMINI_PKT_GET ||
		p->type == GEMINI_PKT_AMO || p->type == GEMINI_PKT_CQWRITE);
}

/*
 * May packet @p, being delivered to N's NIC, touch the range?  A request
 * with its own ptag and MDH; a DATA response with those of the fetching
 * FMA request its tag names (its data goes to the local buffer).
 */
static bool packet_covers(const struct fnode *n, const struct gemini_pkt *p,
			  uint64_t addr, uint64_t len, bool write)
{
	const struct gemini_fma_orb *o;

	if (is_mem_request(p))
		return mdd_covers(n, p->ptag, p->mdh, addr, len, write);
	if (p->vc != GEMINI_VC_RSP || p->type != GEMINI_PKT_DATA ||
	    p->tag >= GEMINI_ORB_SIZE)
		return false;
	o = &n->nic.fma.orb[p->tag];
	return o->state == GEMINI_ORB_SENT && o->fetch &&
	       mdd_covers(n, o->src_ptag, o->src_mdh, addr, len, write);
}

/*
 * (c): the packet being delivered may touch the range.  The router
 * delivers the head of an input buffer and takes it out only after
 * (gemini_router.c gemini_router_forward), so the packet is one of the heads.
 */
static bool pending_ok(const struct fnode *n, uint64_t addr, uint64_t len,
		       bool write)
{
	const struct gemini_nic *nic = &n->nic;
	unsigned int p, c;

	if (oc.ctx != CTX_POLL && oc.ctx != CTX_DIRECT)
		return false;
	if (oc.pkt && packet_covers(n, oc.pkt, addr, len, write))
		return true;
	for (p = 0; p < GEMINI_NUM_TORUS_PORTS; p++)
		for (c = 0; c < VGEMINI_LINK_CHANS; c++) {
			const struct gemini_pktq *q = &nic->router.in[p][c];

			if (q->count && packet_covers(n, &q->pkt[q->head], addr,
						      len, write))
				return true;
		}
	for (c = 0; c < 2; c++) {
		const struct gemini_pktq *q = &nic->router.inject[c];

		if (q->count && packet_covers(n, &q->pkt[q->head], addr, len,
					      write))
			return true;
	}
	return false;
}

/*
 * A SEND arriving: its RX descriptor's buffer, within the channel's
 * buf_size, while its message is open; the CPU copies of an enabled RX
 * channel's ring.
 */
static bool rx_ok(const struct fnode *n, uint64_t addr, uint64_t len)
{
	const struct gemini_bte *b = &n->nic.bte;
	unsigned int ch, i;

	for (ch = 0; ch < GEMINI_NUM_BTE_VC; ch++) {
		uint64_t qw1 = b->rxc.qw[ch][0];
		uint64_t copy = b->rxc.qw[ch][1];
		uint64_t count = (b->rxc.ring_count >>
				  GEMINI_BTE_RING_FIELD(ch)) & 0xffff;

		if (!((qw1 >> GEMINI_BTE_RXC_FLAGS_SHIFT) &
		      GEMINI_BTE_RXC_ENABLE))
			continue;
		if (len == 8 && addr >= copy &&
		    addr - copy < count * GEMINI_BTE_RX_COPY_BYTES &&
		    (addr - copy) % 8 == 0)
			return true;
		for (i = 0; i < GEMINI_BTE_RX_MSGS; i++) {
			const struct gemini_bte_rx_msg *m = &b->rx_msg[ch][i];

			if (m->used &&
			    within(addr, len, b->rx[m->slot] &
				   GEMINI_BTE_RX_ADDR_MASK,
				   qw1 & GEMINI_BTE_RXC_BUF_SIZE_MASK))
				return true;
		}
	}
	return false;
}

/*
 * (d): the BTE, while the device polls: the local side of a TX channel's
 * transfer (through its ptag and MDH, or at its physical address), read
 * by a PUT and written by a GET, and the status and flags written back
 * into the CPU copy of a slot of an enabled channel's ring.
 */
/* May transfer @x read (or, @write, write) [@addr, @addr + @len)? */
static bool xfer_ok(const struct fnode *n, const struct gemini_bte_xfer *x,
		    uint64_t addr, uint64_t len, bool write)
{
	/* The copy of the transfer that ends, where it was at start */
	if (write && len == 8 && x->active &&
	    (addr == x->copy + 8 || addr == x->copy + 32))
		return true;
	if (!x->active ||
	    write != !!((x->qw[0] >> GEMINI_BTE_MODE1_SHIFT) & GEMINI_BTE_GET))
		return false;
	if (!((x->qw[3] >> GEMINI_BTE_MODE4_SHIFT) & GEMINI_BTE_NAT_ENABLE))
		return within(addr, len, (x->qw[3] >> GEMINI_BTE_SRC_PHYS_SHIFT) &
			      GEMINI_BTE_SRC_PHYS_MASK,
			      (x->qw[2] >> GEMINI_BTE_LEN_SHIFT) &
			      GEMINI_BTE_LEN_MASK);
	return mdd_covers(n, (x->qw[2] >> GEMINI_BTE_SRC_PTAG_SHIFT) &
			  GEMINI_BTE_SRC_PTAG_MASK,
			  (x->qw[3] >> GEMINI_BTE_SRC_MDH_SHIFT) &
			  GEMINI_BTE_SRC_MDH_MASK, addr, len, write);
}

static bool bte_ok(const struct fnode *n, uint64_t addr, uint64_t len,
		   bool write)
{
	const struct gemini_bte *b = &n->nic.bte;
	unsigned int vc, i;

	/* A poll, or a channel RESET written to the window */
	if (oc.ctx != CTX_POLL && oc.ctx != CTX_WIN && oc.ctx != CTX_DIRECT)
		return false;
	for (vc = 0; vc < GEMINI_NUM_BTE_VC; vc++) {
		uint64_t copy = b->txc.qw[vc][1];
		uint64_t count = (b->txc.ring_count >>
				  GEMINI_BTE_RING_FIELD(vc)) & 0xffff;
		uint64_t in = addr - copy;

		if (write && len == 8 && addr >= copy &&
		    in < count * GEMINI_BTE_TX_DESC_BYTES &&
		    (in % GEMINI_BTE_TX_DESC_BYTES == 8 ||
		     in % GEMINI_BTE_TX_DESC_BYTES == 32))
			return true;
		for (i = 0; i < GEMINI_BTE_XFERS; i++)
			if (xfer_ok(n, &b->run[vc].x[i], addr, len, write))
				return true;
	}
	return write && rx_ok(n, addr, len);
}

/* Does the range touch one of the device's own windows? */
static bool own_window(const struct fnode *n, uint64_t addr, uint64_t len)
{
	unsigned int i;

	for (i = 0; i < GEMINI_OWN_WINDOWS; i++) {
		const struct gemini_own_window *w = &n->nic.own[i];

		if (w->size && addr <= w->base + (w->size - 1) &&
		    addr + len - 1 >= w->base)
			return true;
	}
	return false;
}

static void judge(struct fnode *n, uint64_t addr, size_t len, bool write)
{
	if (oc.node != n)
		finding(n, write ? "write into a node outside the call" :
			"read of a node outside the call", addr, len);
	if (!len)
		return;
	if (addr + len < addr)
		finding(n, "DMA range wraps", addr, len);
	if (own_window(n, addr, len))
		finding(n, write ? "DMA write into the device's own window" :
			"DMA read of the device's own window", addr, len);
	if (write ? cq_entry_ok(n, addr, len) : gart_read_ok(n, addr, len))
		return;
	if (test_dma_ok(n, addr, len, write))
		return;
	if (pending_ok(n, addr, len, write))
		return;
	if (bte_ok(n, addr, len, write))
		return;
	finding(n, write ? "DMA write no executing request may make" :
		"DMA read no executing request may make", addr, len);
}

static void mark_dirty(struct fnode *n, uint64_t off, uint64_t len)
{
	if (!len)
		return;
	if (off < n->dirty_lo)
		n->dirty_lo = (uint32_t)off;
	if (off + len > n->dirty_hi)
		n->dirty_hi = (uint32_t)(off + len);
}

/* --- the bus ------------------------------------------------------------- */

static int bus_read(void *opaque, uint64_t addr, void *buf, size_t len)
{
	struct fnode *n = opaque;

	judge(n, addr, len, false);
	if (!within(addr, len, MEM_BASE, MEM_SIZE))
		return -1;
	memcpy(buf, n->mem + (addr - MEM_BASE), len);
	return 0;
}

static int bus_write(void *opaque, uint64_t addr, const void *buf, size_t len)
{
	struct fnode *n = opaque;

	judge(n, addr, len, true);
	if (!within(addr, len, MEM_BASE, MEM_SIZE))
		return -1;
	memcpy(n->mem + (addr - MEM_BASE), buf, len);
	mark_dirty(n, addr - MEM_BASE, len);
	return 0;
}

static void bus_irq(void *opaque, unsigned int vector)
{
	struct fnode *n = opaque;

	if (vector >= n->nic.cfg.num_vectors)
		broken(n, "interrupt vector past the vectors given");
	n->irqs++;
}

static void bus_guest_error(void *opaque, unsigned int kind,
			    const uint64_t args[4])
{
	struct fnode *n = opaque;
	char msg[160];

	if (kind >= GEMINI_GE_COUNT || !args)
		broken(n, "guest error of no kind");
	if (trace > 1) {
		gemini_guest_error_format(kind, args, msg, sizeof(msg));
		fprintf(stderr, "  %c: %s\n", 'A' + n->id, msg);
	}
	n->guest_errors++;
}

static void bus_port_changed(void *opaque, unsigned int port,
			     enum vgemini_port_state state, uint32_t peer)
{
	(void)peer;
	if (port >= GEMINI_NUM_TORUS_PORTS || state > VGEMINI_PORT_MISWIRED)
		broken(opaque, "port change out of range");
}

static uint64_t bus_clock(void *opaque)
{
	(void)opaque;
	return now_ns;
}

static void bus_kick(void *opaque, unsigned int port)
{
	struct fnode *n = opaque;

	if (port >= GEMINI_NUM_TORUS_PORTS)
		broken(n, "kick of no port");
	n->kicks++;
	/* The doorbell of the node at the far end of the port's link. */
	if (port == GEMINI_PORT_XP || port == GEMINI_PORT_XM)
		nodes[!n->id].wake = true;
	else if (port == GEMINI_PORT_YP || port == GEMINI_PORT_YM)
		n->wake = true;
}

static void bus_stale(void *opaque, const struct gemini_pkt *pkt)
{
	struct fnode *n = opaque;

	if (pkt->vc != GEMINI_VC_RSP)
		broken(n, "a stale 'response' on the request VC");
	n->stale++;
}

static const struct gemini_ops ops = {
	.dma_read = bus_read,
	.dma_write = bus_write,
	.raise_irq = bus_irq,
	.guest_error = bus_guest_error,
	.port_changed = bus_port_changed,
	.clock_ns = bus_clock,
	.kick_peer = bus_kick,
	.stale_rsp = bus_stale,
};

/* What a glue must give; the optional callbacks left NULL. */
static const struct gemini_ops minimal_ops = {
	.dma_read = bus_read,
	.dma_write = bus_write,
	.raise_irq = bus_irq,
	.clock_ns = bus_clock,
};

/* --- links and the hostile neighbour ------------------------------------- */

static volatile struct vgemini_link_shm *shm(unsigned int link)
{
	return (volatile struct vgemini_link_shm *)links[link];
}

/* The session both ends of @link count packets in (gemini_lcb.c). */
static uint32_t link_session(unsigned int link)
{
	volatile struct vgemini_link_shm *s = shm(link);
	uint64_t x = s->side[0].epoch ^ s->side[1].epoch;
	uint32_t session = (uint32_t)(x ^ (x >> 32));

	return session ? session : 0x80000000u;
}

static void hostile_publish(unsigned int n)
{
	volatile struct vgemini_link_side *h = &shm(FZ_L_ZA + n)->side[1];

	h->magic = 0;
	h->version = VGEMINI_LINK_VERSION;
	/* A dimension of one: the Z+ neighbour is the node itself. */
	h->pe = nodes[n].nic.pe;
	h->port = GEMINI_PORT_ZM;
	h->epoch = hostile[n].epoch;
	h->heartbeat = hostile[n].heartbeat;
	h->magic = VGEMINI_LINK_MAGIC;
}

/*
 * The hostile end takes what node @n sent it, as an honest end would;
 * true if it acknowledged anything (and so would ring the doorbell).
 */
static bool hostile_rx(unsigned int n)
{
	volatile struct vgemini_link_shm *s = shm(FZ_L_ZA + n);
	volatile struct vgemini_link_side *h = &s->side[1];
	uint32_t session = link_session(FZ_L_ZA + n);
	unsigned int c, k;
	bool moved = false;

	if (hostile[n].passive)
		return false;
	for (c = 0; c < VGEMINI_LINK_CHANS; c++) {
		uint32_t ack;

		if (h->rx_epoch[c] != session) {
			h->ack[c] = 0;
			h->freed[c] = 0;
			h->nak[c] = 0;
			h->rx_epoch[c] = session;
		}
		ack = h->ack[c];
		for (k = 0; k < VGEMINI_LINK_SLOTS; k++) {
			volatile struct vgemini_link_slot *sl =
				&s->chan[0][c][ack % VGEMINI_LINK_SLOTS];

			if ((sl->gen & 1) || sl->seq != ack ||
			    sl->epoch != session)
				break;
			ack++;
		}
		moved |= h->ack[c] != ack;
		h->ack[c] = ack;
		h->freed[c] = ack;
	}
	return moved;
}

static void fix_crc(uint8_t *b, size_t len)
{
	uint16_t crc;

	if (len < GEMINI_PHIT_BYTES)
		return;
	b[len - 3] = 0;
	b[len - 2] = 0;
	crc = gemini_crc16(b, len);
	b[len - 3] = crc & 0xff;
	b[len - 2] = crc >> 8;
}

/* Write a frame into @link as its side @w would, on channel @c. */
static void forge_frame(unsigned int link, unsigned int w, unsigned int c,
			int8_t adj, const uint8_t *bytes, unsigned int len,
			bool raw_slot, uint32_t epoch_xor, uint32_t gen,
			uint16_t slot_len)
{
	volatile struct vgemini_link_shm *s = shm(link);
	volatile struct vgemini_link_side *rx = &s->side[!w];
	volatile struct vgemini_link_slot *sl;
	struct forge *f = &forge[link][w][c];
	uint32_t session = link_session(link), seq, g;
	unsigned int k;

	if (f->session != session) {
		f->session = session;
		f->next = 0;
	}
	/* Where the receiver says it is, if it counts in this session. */
	if (rx->rx_epoch[c] == session && (int32_t)(rx->ack[c] - f->next) > 0)
		f->next = rx->ack[c];
	seq = f->next + (uint32_t)(int32_t)adj;
	f->next = seq + 1;
	sl = &s->chan[w][c][seq % VGEMINI_LINK_SLOTS];
	g = sl->gen | 1;
	sl->gen = g;
	sl->seq = seq;
	sl->epoch = session ^ epoch_xor;
	sl->len = raw_slot ? slot_len : (uint16_t)len;
	for (k = 0; k < len && k < VGEMINI_LINK_SLOT_DATA; k++)
		sl->bytes[k] = bytes[k];
	sl->gen = raw_slot ? gen : g + 1;
}

/* --- routing tables ------------------------------------------------------ */

/* Entry of table @v of node @id for input @ip, class @cl, dest @d. */
static uint8_t route_variant(unsigned int id, unsigned int v, unsigned int ip,
			     unsigned int cl, unsigned int d, uint32_t gen)
{
	if (d == id && !(v == 2 && ip == VGEMINI_ROUTE_IN_NIC))
		return VGEMINI_ROUTE_ENTRY(VGEMINI_ROUTE_OUT_NIC, 0);
	switch (v) {
	case 0:		/* the short way */
		return VGEMINI_ROUTE_ENTRY(GEMINI_PORT_XP, 0);
	case 1:		/* the other link, class 1 */
		return VGEMINI_ROUTE_ENTRY(GEMINI_PORT_XM, 1);
	case 2:		/* from the NIC once round the Y ring */
		if (ip == VGEMINI_ROUTE_IN_NIC)
			return VGEMINI_ROUTE_ENTRY(GEMINI_PORT_YP, 0);
		return VGEMINI_ROUTE_ENTRY(GEMINI_PORT_XP,
					   ip == GEMINI_PORT_YM);
	case 3:		/* from the NIC to the hostile neighbour */
		return ip == VGEMINI_ROUTE_IN_NIC ?
		       VGEMINI_ROUTE_ENTRY(GEMINI_PORT_ZP, cl) :
		       VGEMINI_ROUTE_ENTRY(GEMINI_PORT_XP, 0);
	case 4:		/* nowhere */
		return VGEMINI_ROUTE_NONE;
	default: {	/* anything, loops included */
		uint32_t h = (gen ^ (ip * 131 + cl * 31 + d * 7)) * 2654435761u;

		return (uint8_t)((h >> 24) & 0x0f);
	}
	}
}

#define IMG_MAX	(VGEMINI_ROUTE_HDR_SIZE + VGEMINI_ROUTE_IN_PORTS * \
		 VGEMINI_ROUTE_CLASSES * NNODES + 16)

static size_t route_image(unsigned int id, unsigned int v, uint32_t gen,
			  uint8_t *img, uint16_t at, uint8_t x)
{
	const size_t n = VGEMINI_ROUTE_ENTRIES(NNODES);
	uint8_t *e = img + VGEMINI_ROUTE_HDR_SIZE;
	unsigned int ip, cl, d;

	memset(img, 0, IMG_MAX);
	for (ip = 0; ip < VGEMINI_ROUTE_IN_PORTS; ip++)
		for (cl = 0; cl < VGEMINI_ROUTE_CLASSES; cl++)
			for (d = 0; d < NNODES; d++)
				e[(ip * VGEMINI_ROUTE_CLASSES + cl) * NNODES +
				  d] = route_variant(id, v, ip, cl, d, gen);
	/* A bad entry the CRC vouches for (the supervisor's own mistake). */
	if (x)
		e[at % n] ^= x;
#define PUT_HDR32(field, v) \
	vgemini_put_le32(img + VGEMINI_ROUTE_HDR_OFF(field), (v))
	PUT_HDR32(magic, VGEMINI_ROUTE_MAGIC);
	PUT_HDR32(version, VGEMINI_ROUTE_VERSION);
	PUT_HDR32(hdr_size, VGEMINI_ROUTE_HDR_SIZE);
	PUT_HDR32(gemini_id, id);
	img[VGEMINI_ROUTE_HDR_OFF(dims)] = NNODES;
	img[VGEMINI_ROUTE_HDR_OFF(dims) + 1] = 1;
	img[VGEMINI_ROUTE_HDR_OFF(dims) + 2] = 1;
	PUT_HDR32(num_nodes, NNODES);
	PUT_HDR32(generation, gen);
	PUT_HDR32(entries_crc32, vgemini_crc32(0, e, n));
#undef PUT_HDR32
	return VGEMINI_ROUTE_HDR_SIZE + n;
}

static void load_table(struct fnode *n, unsigned int v, uint32_t gen,
		       uint16_t at, uint8_t x, int8_t adj)
{
	uint8_t img[IMG_MAX];
	char err[160];
	bool early = v & 0x80;
	size_t len = route_image(n->id, (v & 0x7f) % FZ_NTABLES, gen, img,
				 at, early ? x : 0);
	long l = (long)len + adj;

	if (x && !early)
		img[at % len] ^= x;
	if (l < 0)
		l = 0;
	if (l > (long)sizeof(img))
		l = sizeof(img);
	enter(CTX_NONE, n);
	(void)gemini_router_load(&n->nic, img, (size_t)l, err, sizeof(err));
	leave();
}

/* --- time ---------------------------------------------------------------- */

static void poll_node(struct fnode *n);
static bool hostile_rx(unsigned int n);

static void tick_all(void)
{
	uint64_t ms = now_ns / 1000000;
	unsigned int n;

	for (n = 0; n < NNODES; n++) {
		if (!hostile[n].silent)
			shm(FZ_L_ZA + n)->side[1].heartbeat =
				++hostile[n].heartbeat;
	}
	for (n = 0; n < NNODES; n++) {
		enter(CTX_NONE, &nodes[n]);
		gemini_nic_tick(&nodes[n].nic, ms);
		leave();
		nodes[n].wake = true;
	}
}

/* Move the clock; heartbeats on the way unless the VMs stalled. */
/*
 * Move the clock.  Unless the VMs stalled, the glue runs on the way: its
 * heartbeat timer, and for each device a poll when a doorbell rang or
 * new work came, and when the deadline its last poll returned has come
 * (at most POLLS_PER_STEP polls, the rest of the way as if starved).
 */
#define POLLS_PER_STEP	64

static void advance(uint64_t ns, bool stall)
{
	uint64_t target = now_ns + ns;
	unsigned int polls_here = 0, n;

	while (!stall) {
		uint64_t t = next_tick_ms * 1000000;
		struct fnode *due = NULL;

		for (n = 0; n < NNODES && polls_here < POLLS_PER_STEP; n++) {
			uint64_t d = nodes[n].wake ? now_ns : nodes[n].deadline;

			if (d < t) {
				t = d;
				due = &nodes[n];
			}
		}
		if (t > target)
			break;
		if (t > now_ns)
			now_ns = t;
		if (due) {
			for (n = 0; n < NNODES; n++)
				if (hostile_rx(n))
					nodes[n].wake = true;
			poll_node(due);
			polls_here++;
			budget = budget > 20 ? budget - 20 : 0;
			continue;
		}
		tick_all();
		next_tick_ms += VGEMINI_LINK_HEARTBEAT_MS;
	}
	now_ns = target;
	if (now_ns / 1000000 >= next_tick_ms) {
		tick_all();
		next_tick_ms = now_ns / 1000000 + VGEMINI_LINK_HEARTBEAT_MS;
	}
}

/* --- polling ------------------------------------------------------------- */

static unsigned long polls;	/* for FUZZ_CORE_TRACE */

static void poll_node(struct fnode *n)
{
	polls++;
	n->wake = false;
	enter(CTX_POLL, n);
	n->deadline = gemini_nic_poll(&n->nic);
	leave();
}

enum { ROUND_BOTH, ROUND_A, ROUND_B, ROUND_GLUE };

/*
 * One round: the hostile ends read, then the nodes poll - both, one, or
 * (ROUND_GLUE) as the glue does: those woken by a doorbell or by new work
 * and those whose deadline has come.
 */
static void round_(unsigned int which)
{
	unsigned int n;

	for (n = 0; n < NNODES; n++)
		if (hostile_rx(n))
			nodes[n].wake = true;
	for (n = 0; n < NNODES; n++) {
		struct fnode *nd = &nodes[n];

		if (which == ROUND_BOTH || which == n + 1 ||
		    (which == ROUND_GLUE &&
		     (nd->wake || now_ns >= nd->deadline)))
			poll_node(nd);
	}
	advance(STEP_NS, false);
}

static uint64_t signature(void)
{
	uint64_t h = 0xcbf29ce484222325ull;
	unsigned int n, p, c, k;

#define MIX(v)	(h = (h ^ (uint64_t)(v)) * 0x100000001b3ull)
	for (n = 0; n < NNODES; n++) {
		const struct gemini_nic *nic = &nodes[n].nic;

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
		MIX(nic->fma.qcount);
		MIX(nic->fma.stats.requests);
		MIX(nic->fma.stats.responses);
		MIX(nic->rmt.req_waits);
	}
#undef MIX
	return h;
}

static bool busy(void)
{
	unsigned int n, p, c;

	for (n = 0; n < NNODES; n++) {
		const struct gemini_nic *nic = &nodes[n].nic;

		if (nic->router.inject[0].count ||
		    nic->router.inject[1].count || nic->fma.qcount)
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

/*
 * Poll until nothing moves and nothing is in flight, or until a few
 * link retry periods brought nothing (a dead link, a passive neighbour).
 */
static void run(void)
{
	unsigned int r, idle = 0;

	for (r = 0; r < 60 && budget && idle < 3; r++) {
		uint64_t before = signature();

		round_(ROUND_GLUE);
		budget = budget > 20 ? budget - 20 : 0;
		if (signature() != before) {
			idle = 0;
			continue;
		}
		if (!busy())
			return;
		idle++;
		advance(IDLE_NS, false);
	}
}

/* --- setup --------------------------------------------------------------- */

static const unsigned int vector_choice[4] = { GEMINI_NUM_IRQ, 4, 1, 24 };

/* The link file of port @port of node @id, as cabled at the start. */
static unsigned int port_link(unsigned int id, unsigned int port)
{
	switch (port) {
	case GEMINI_PORT_XP:
		return FZ_L_X0 + id;
	case GEMINI_PORT_XM:
		return FZ_L_X0 + !id;
	case GEMINI_PORT_YP:
	case GEMINI_PORT_YM:
		return FZ_L_YA + id;
	case GEMINI_PORT_ZP:
		return FZ_L_ZA + id;
	default:
		return FZ_L_SPARE_A + id;
	}
}

static void attach(struct fnode *n, unsigned int port)
{
	struct gemini_link_view v;
	char err[128];

	enter(CTX_NONE, n);
	if (gemini_link_view_shm(&v, links[port_link(n->id, port)],
				 VGEMINI_LINK_FILE_SIZE,
				 GEMINI_PORT_IS_MINUS(port)) ||
	    gemini_port_attach(&n->nic, port, &v, ++n->epoch[port], err,
			       sizeof(err)))
		broken(n, "attaching a good link failed");
	leave();
}

static void setup(uint8_t cfg)
{
	unsigned int n, l, p, k;

	for (l = 0; l < FZ_NLINKS; l++)
		memset(links[l], 0, SHM_BYTES);
	memset(forge, 0, sizeof(forge));
	now_ns = 1000000000ull;
	next_tick_ms = now_ns / 1000000;
	for (n = 0; n < NNODES; n++) {
		struct fnode *nd = &nodes[n];
		struct gemini_config c = {
			.coord = { n, 0, 0 },
			.dims = { NNODES, 1, 1 },
			.num_vectors = vector_choice[FZ_CFG_VECTORS(cfg)],
		};
		char err[128];

		if (nd->dirty_hi > nd->dirty_lo)
			memset(nd->mem + nd->dirty_lo, 0,
			       nd->dirty_hi - nd->dirty_lo);
		nd->dirty_lo = MEM_SIZE;
		nd->dirty_hi = 0;
		for (k = 0; k < nd->ncq; k++)
			nd->cq_seen[nd->cq_list[k]] = false;
		nd->ncq = 0;
		nd->id = n;
		nd->irqs = 0;
		nd->guest_errors = 0;
		nd->stale = 0;
		nd->kicks = 0;
		for (p = 0; p < GEMINI_NUM_TORUS_PORTS; p++)
			nd->epoch[p] = ((uint64_t)(n + 1) << 32) | p << 8 |
				       0x51;
		enter(CTX_NONE, nd);
		if (gemini_nic_init(&nd->nic, &c,
				    n && (cfg & FZ_CFG_MINIMAL_OPS) ?
				    &minimal_ops : &ops, nd, err, sizeof(err)))
			broken(nd, err);
		/* Where the glue says the BARs are: in memory, past it. */
		gemini_nic_set_own_window(&nd->nic, 0, FZ_OWN0, FZ_OWN0_SIZE);
		gemini_nic_set_own_window(&nd->nic, 1, FZ_OWN1, FZ_OWN1_SIZE);
		leave();
		hostile[n] = (struct hostile){ .epoch = 0x4057000ull + n };
	}
	for (n = 0; n < NNODES; n++) {
		for (p = GEMINI_PORT_XP; p <= GEMINI_PORT_ZP; p++)
			attach(&nodes[n], p);
		hostile_publish(n);
	}
	for (k = 0; k < 3; k++)
		advance(MS(VGEMINI_LINK_HEARTBEAT_MS), false);
	for (n = 0; n < NNODES && !(cfg & FZ_CFG_NO_TABLE); n++)
		load_table(&nodes[n], FZ_CFG_TABLE(cfg), 1, 0, 0, 0);
	/* Two rounds: both ends of every link in the new session. */
	for (k = 0; k < 2; k++)
		round_(ROUND_BOTH);
}

/* --- operations ---------------------------------------------------------- */

static void note_cq(struct fnode *n, uint64_t off)
{
	uint64_t idx;

	if (off < GEMINI_MMR_CQ_DESC ||
	    off >= GEMINI_MMR_CQ_DESC_ENTRY(GEMINI_NUM_CQ))
		return;
	idx = (off - GEMINI_MMR_CQ_DESC) / GEMINI_CQ_DESC_BYTES;
	if (!n->cq_seen[idx]) {
		n->cq_seen[idx] = true;
		n->cq_list[n->ncq++] = (uint16_t)idx;
	}
}

static uint64_t win_offset(unsigned int region, unsigned int idx,
			   uint32_t sub)
{
	const uint64_t wmask = GEMINI_FMA_WINDOW_SIZE - 1;

	switch (region % FZ_NREGIONS) {
	case FZ_R_MDD:
		return GEMINI_MMR_MDD_ENTRY(idx % GEMINI_NUM_MDD) + sub % 16;
	case FZ_R_MRT:
		return GEMINI_MMR_MRT_ENTRY(idx % GEMINI_NUM_MRT) + sub % 8;
	case FZ_R_MRT_PS:
		return GEMINI_MMR_MRT_PAGE_SIZE + sub % 16;
	case FZ_R_NTT:
		return GEMINI_MMR_NTT_ENTRY((sub >> 16) & 1,
					    idx % GEMINI_NTT_BANK_ENTRIES) +
		       ((sub >> 17) & 1 ? GEMINI_NTT_WRITE_BOTH : 0) + sub % 8;
	case FZ_R_NL:
		return GEMINI_MMR_NL_NODE_ID + sub % 32;
	case FZ_R_CQ_DESC:
		return GEMINI_MMR_CQ_DESC_ENTRY(idx % GEMINI_NUM_CQ) + sub % 32;
	case FZ_R_CQ_USER:
		return GEMINI_CQ_USER_PAGE(idx % GEMINI_NUM_CQ) +
		       (sub & 0x10000 ? sub % 4096 : sub % 16);
	case FZ_R_FMA_PRIV:
		return GEMINI_FMA_PRIV_PAGE(idx % GEMINI_FMA_NUM_DESC) +
		       (sub & 0x10000 ? sub % 4096 : sub % 256);
	case FZ_R_FMA_USER:
		return GEMINI_FMA_USER_PAGE(idx % GEMINI_FMA_NUM_DESC) +
		       (sub & 0x10000 ? sub % 4096 : sub % 256);
	case FZ_R_PUT_WC:
		return GEMINI_FMA_WINDOW(GEMINI_FMA_PUT_WC,
					 idx % GEMINI_NUM_FMA) + (sub & wmask);
	case FZ_R_PUT_UC:
		return GEMINI_FMA_WINDOW(GEMINI_FMA_PUT_UC,
					 idx % GEMINI_NUM_FMA) + (sub & wmask);
	case FZ_R_GET:
		return GEMINI_FMA_WINDOW(GEMINI_FMA_GET, idx % GEMINI_NUM_FMA) +
		       (sub & wmask);
	case FZ_R_OS_PUT_WC:
		return GEMINI_FMA_WINDOW(GEMINI_OS_FMA_PUT_WC,
					 idx % GEMINI_NUM_FMA_OS) +
		       (sub & wmask);
	case FZ_R_OS_GET:
		return GEMINI_FMA_WINDOW(GEMINI_OS_FMA_GET,
					 idx % GEMINI_NUM_FMA_OS) +
		       (sub & wmask);
	case FZ_R_OS_PUT_UC:
		return GEMINI_FMA_WINDOW(GEMINI_OS_FMA_PUT_UC,
					 idx % GEMINI_NUM_FMA_OS) +
		       (sub & wmask);
	case FZ_R_BTE_TX:
		return GEMINI_MMR_BTE_TX_ENTRY(idx % (GEMINI_NUM_BTE_TX + 1)) +
		       sub % GEMINI_BTE_TX_DESC_BYTES;
	case FZ_R_BTE_CHAN:
		switch ((sub >> 16) % 4) {
		case 0:
			return GEMINI_MMR_BTE_TX_CHAN + sub % 256;
		case 1:
			return GEMINI_MMR_BTE_RX_CHAN + sub % 256;
		case 2:
			return ((sub >> 8) & 1 ? GEMINI_MMR_BTE_RX_RING_BASE :
				GEMINI_MMR_BTE_TX_RING_BASE) + sub % 16;
		default:
			return GEMINI_MMR_BTE_NP_CTRL + sub % 32;
		}
	case FZ_R_BTE_RX:
		return GEMINI_MMR_BTE_RX_ENTRY(idx % GEMINI_NUM_BTE_RX) +
		       sub % 8;
	default:
		return (((uint64_t)idx << 22) ^ sub) &
		       ((GEMINI_BAR_NIC_SIZE << 1) - 1);
	}
}

static void op_ctl(struct fnode *n, struct rd *r, bool write)
{
	uint16_t off = g16(r);
	unsigned int size = sizes[g8(r) & 7];
	uint64_t val = 0;
	enum gemini_access a;

	enter(CTX_CTL, n);
	if (write) {
		val = g64(r);
		oc.dma_cmd = off <= VGEMINI_CTL_DMA_CMD &&
			     off + size > VGEMINI_CTL_DMA_CMD;
		a = gemini_ctl_write(&n->nic, off, size, val);
	} else {
		a = gemini_ctl_read(&n->nic, off, size, &val);
		if (a == GEMINI_ACCESS_BAD_SIZE && val)
			broken(n, "a refused control read returned data");
	}
	if (a > GEMINI_ACCESS_WRITE_ONLY)
		broken(n, "control access result out of range");
	leave();
}

static void op_win(struct fnode *n, struct rd *r, bool write)
{
	unsigned int region = g8(r) % FZ_NREGIONS, idx = g16(r);
	/* Repeated stores walk through an FMA window; registers stay put. */
	bool walk = region >= FZ_R_PUT_WC && region <= FZ_R_OS_PUT_UC;
	uint32_t sub = g32(r) + (walk ? rep_i * rep_stride : 0);
	unsigned int size = sizes[g8(r) & 7];
	uint64_t off = win_offset(region, idx, sub), val = 0;
	enum gemini_access a;

	enter(CTX_WIN, n);
	if (write) {
		val = g64(r) + (walk ? rep_i : 0);
		note_cq(n, off);
		a = gemini_window_write(&n->nic, off, size, val);
	} else {
		a = gemini_window_read(&n->nic, off, size, &val);
		if (a != GEMINI_ACCESS_OK && val)
			broken(n, "a failed window read returned data");
	}
	if (a > GEMINI_ACCESS_WRITE_ONLY)
		broken(n, "window access result out of range");
	leave();
}

static void op_mem(struct fnode *n, struct rd *r, bool le)
{
	uint32_t off = (g32(r) + rep_i * rep_stride) % MEM_SIZE;
	unsigned int len, k;

	if (le) {
		off &= ~7u;
		vgemini_put_le64(n->mem + off, g64(r));
		mark_dirty(n, off, 8);
		return;
	}
	len = g8(r) % (GEMINI_PKT_MAX_DATA + 1);
	for (k = 0; k < len; k++) {
		uint8_t b = g8(r);

		if (off + k < MEM_SIZE)
			n->mem[off + k] = b;
	}
	mark_dirty(n, off, off + len > MEM_SIZE ? MEM_SIZE - off : len);
}

/* Packet fields as FZ_INJECT kind 0 gives them. */
static void read_pkt(struct rd *r, struct gemini_pkt *p)
{
	static const uint8_t types[FZ_NTYPES] = FZ_TYPES;
	uint8_t t = g8(r);
	unsigned int k;

	memset(p, 0, sizeof(*p));
	p->type = t < 0x80 ? types[t % FZ_NTYPES] : (t & 0x7f);
	p->vc = GEMINI_PKT_TYPE_VC(p->type);
	p->flags = g8(r);
	p->dst = g16(r);
	p->dst_nic = g8(r);
	p->src = g16(r);
	p->src_nic = g8(r);
	p->ptag = g8(r);
	p->amo_op = g8(r);
	p->mdh = g16(r);
	p->tag = g16(r);
	p->addr = g64(r);
	p->status = g8(r);
	p->hops = g8(r);
	p->len = g8(r);
	p->vclass = g8(r);
	for (k = 0; k < p->len && k < GEMINI_PKT_MAX_DATA; k++)
		p->data[k] = g8(r);
}

/* Bend the fields into a packet the wire can carry (mostly). */
static void normalize(struct gemini_pkt *p)
{
	static const uint8_t types[FZ_NTYPES] = FZ_TYPES;
	const uint8_t req_flags = GEMINI_PKT_F_ADAPT | GEMINI_PKT_F_HASH |
				  GEMINI_PKT_F_REMOTE_EVENT | GEMINI_PKT_F_LAST;
	unsigned int k;

	if (!(p->type >= GEMINI_PKT_PUT && p->type <= GEMINI_PKT_DIAG) &&
	    !(p->type >= GEMINI_PKT_ACK && p->type <= GEMINI_PKT_DIAG_RSP))
		p->type = types[p->type % FZ_NTYPES];
	p->vc = GEMINI_PKT_TYPE_VC(p->type);
	p->vclass &= 1;
	p->dst_nic &= GEMINI_PKT_NIC_MAX;
	p->tag &= GEMINI_PKT_TAG_MAX;
	p->hops &= GEMINI_PKT_HOPS_MAX;
	if (p->vc == GEMINI_VC_REQ) {
		p->src_nic &= GEMINI_PKT_NIC_MAX;
		p->mdh &= GEMINI_PKT_MDH_MAX;
		p->addr &= (1ull << GEMINI_PKT_ADDR_BITS) - 1;
		/* A few sequences (status is not a request's), often shared */
		p->seq = p->status & 3;
		p->status = 0;
		switch (p->type) {
		case GEMINI_PKT_AMO:
			p->amo_op = GEMINI_AMO_ADD + p->amo_op % 6;
			p->len = GEMINI_AMO_LEN(p->amo_op);
			p->flags &= req_flags | GEMINI_PKT_F_FETCH;
			if (p->amo_op == GEMINI_AMO_CSWAP)
				p->flags |= GEMINI_PKT_F_FETCH;
			break;
		case GEMINI_PKT_CQWRITE:
			p->amo_op = 0;
			p->len = 8;
			p->flags &= req_flags;
			break;
		case GEMINI_PKT_DIAG:
			p->amo_op = 0;
			p->len %= GEMINI_PKT_MAX_DATA + 1;
			p->flags &= req_flags | GEMINI_PKT_F_ROUTED;
			break;
		default:
			p->amo_op = 0;
			if (!p->len || p->len > GEMINI_PKT_MAX_DATA)
				p->len = p->len % GEMINI_PKT_MAX_DATA + 1;
			/* a PUT may be a sequence's flag */
			if (p->type == GEMINI_PKT_PUT &&
			    (p->flags & GEMINI_PKT_F_FLAG)) {
				p->flags &= req_flags | GEMINI_PKT_F_FLAG;
				p->len = GEMINI_PKT_FLAG_LEN;
				break;
			}
			p->flags &= req_flags;
			break;
		}
	} else {
		p->src = 0;
		p->src_nic = 0;
		p->ptag = 0;
		p->mdh = 0;
		p->addr = 0;
		p->amo_op = 0;
		p->flags = 0;
		if (p->type == GEMINI_PKT_ACK || p->type == GEMINI_PKT_ERR) {
			p->len = 0;
			p->hops = p->type == GEMINI_PKT_ACK ? 0 : p->hops;
			p->status = p->type == GEMINI_PKT_ERR ?
				    p->status % GEMINI_STATUS_MAX + 1 : 0;
		} else {
			p->status = 0;
			p->len %= GEMINI_PKT_MAX_DATA + 1;
			if (p->type == GEMINI_PKT_DATA && !p->len)
				p->len = 1;
		}
	}
	for (k = p->len; k < GEMINI_PKT_MAX_DATA; k++)
		p->data[k] = 0;
}

static void op_inject(struct fnode *n, struct rd *r)
{
	uint8_t mode = g8(r), chan = g8(r);
	int8_t adj = (int8_t)g8(r);
	unsigned int kind = mode & 3, link, w, c, len = 0, k;
	uint8_t bytes[VGEMINI_LINK_SLOT_DATA];
	uint32_t epoch_xor = 0, gen = 0;
	uint16_t slot_len = 0;

	switch ((mode >> 4) & 7) {
	case 1:		/* the X link in, as the other's X+ */
		link = FZ_L_X0 + !n->id;
		w = 0;
		break;
	case 2:		/* this node's Y ring, as its own Y+ */
		link = FZ_L_YA + n->id;
		w = 0;
		break;
	case 3:		/* the other X link, as the other's X- */
		link = FZ_L_X0 + n->id;
		w = 1;
		break;
	default:	/* the hostile Z neighbour */
		link = FZ_L_ZA + n->id;
		w = 1;
		break;
	}
	c = chan % VGEMINI_LINK_CHANS;
	if (kind == 0 || kind == 3) {
		struct gemini_pkt p;
		int e;

		read_pkt(r, &p);
		if (!(mode & 0x80))
			normalize(&p);
		e = gemini_pkt_encode(&p, bytes, sizeof(bytes));
		if (e < 0)
			return;
		len = (unsigned int)e;
		if (!(mode & 8))
			c = VGEMINI_LINK_CHAN(p.vc & 1, p.vclass & 1);
	} else {
		if (kind == 2) {
			epoch_xor = g32(r);
			gen = g32(r);
			slot_len = g16(r);
		}
		len = g8(r) % (VGEMINI_LINK_SLOT_DATA + 1);
		for (k = 0; k < len; k++)
			bytes[k] = g8(r);
		if (mode & 4)
			fix_crc(bytes, len);
	}
	forge_frame(link, w, c, adj, bytes, len, kind == 2, epoch_xor, gen,
		    slot_len);
}

static void op_side(struct fnode *n, struct rd *r)
{
	unsigned int link = g8(r) % FZ_NLINKS, side = g8(r) & 1;
	unsigned int field = g8(r) % FZ_NFIELDS, c = g8(r) % VGEMINI_LINK_CHANS;
	uint64_t val = g64(r);
	volatile struct vgemini_link_side *s = &shm(link)->side[side];
	struct hostile *h = &hostile[link == FZ_L_ZA || link == FZ_L_ZB ?
				     link - FZ_L_ZA : n->id];

	switch (field) {
	case FZ_F_MAGIC:
		s->magic = (uint32_t)val;
		break;
	case FZ_F_VERSION:
		s->version = (uint32_t)val;
		break;
	case FZ_F_PE:
		s->pe = (uint32_t)val;
		break;
	case FZ_F_PORT:
		s->port = (uint32_t)val;
		break;
	case FZ_F_EPOCH:
		s->epoch = val;
		break;
	case FZ_F_HEARTBEAT:
		s->heartbeat = val;
		break;
	case FZ_F_ARMED:
		s->armed = (uint32_t)val;
		break;
	case FZ_F_ACK:
		s->ack[c] = (uint32_t)val;
		break;
	case FZ_F_FREED:
		s->freed[c] = (uint32_t)val;
		break;
	case FZ_F_NAK:
		s->nak[c] = (uint32_t)val;
		break;
	case FZ_F_RX_EPOCH:
		s->rx_epoch[c] = (uint32_t)val;
		break;
	case FZ_F_SILENT:
		h->silent = val & 1;
		break;
	case FZ_F_PASSIVE:
		h->passive = val & 1;
		break;
	default:
		h->epoch += val | 1;
		hostile_publish((unsigned int)(h - hostile));
		break;
	}
}

static void op_poke(struct rd *r)
{
	unsigned int link = g8(r) % FZ_NLINKS;
	uint16_t off = g16(r);

	links[link][off % SHM_BYTES] = g8(r);
}

static void op_clock(struct rd *r)
{
	uint8_t sel = g8(r);
	uint32_t val = g32(r);
	uint64_t ns;

	switch ((sel & 7) % FZ_NCLOCK) {
	case FZ_C_US:
		ns = (uint64_t)(val % 65536) * 1000;
		break;
	case FZ_C_MS:
		ns = MS(val % 5000);
		break;
	case FZ_C_RETRY:
		ns = MS(VGEMINI_LINK_RETRY_MS);
		break;
	case FZ_C_HEARTBEAT:
		ns = MS(VGEMINI_LINK_HEARTBEAT_MS);
		break;
	case FZ_C_FMA_TIMEOUT:
		ns = MS(GEMINI_FMA_TIMEOUT_MS + 1);
		break;
	default:
		ns = MS(VGEMINI_LINK_TIMEOUT_MS + 1);
		break;
	}
	advance(ns, sel & FZ_C_STALL);
	budget = budget > 10 ? budget - 10 : 0;
}

static const char *const fault_presets[] = {
	"", "none", "corrupt=0.3", "drop=0.2", "delay=0.5,delay-ms=3",
	"down=1", "down=0", "corrupt=0.1,drop=0.1,delay=0.1,delay-ms=1,seed=5",
	"corrupt=1", "drop=1", "delay=1,delay-ms=0", "seed=0,corrupt=0.5",
	"bogus=1", "corrupt=2", "delay-ms=x", ",", "corrupt", "down=2",
	"delay-ms=10001", "seed=-1", "corrupt=nan", "drop=0x",
};

static void op_fault(struct fnode *n, struct rd *r)
{
	unsigned int port = g8(r) % (GEMINI_NUM_TORUS_PORTS + 1);
	uint8_t preset = g8(r);
	char spec[300], err[160], out[160];
	const char *s;

	if (preset < 0x80) {
		s = fault_presets[preset % (sizeof(fault_presets) /
					    sizeof(fault_presets[0]))];
	} else if (preset == 0xff) {
		/* longer than the parser takes */
		memset(spec, 'x', sizeof(spec) - 1);
		spec[sizeof(spec) - 1] = 0;
		s = spec;
	} else {
		unsigned int len = g8(r) % 64, k;

		for (k = 0; k < len; k++) {
			spec[k] = (char)g8(r);
			if (!spec[k])
				spec[k] = ',';
		}
		spec[len] = 0;
		s = spec;
	}
	enter(CTX_NONE, n);
	(void)gemini_fault_set(&n->nic, port, s, err, sizeof(err));
	memset(out, 'X', sizeof(out));
	gemini_fault_get(&n->nic, port, out, sizeof(out));
	if (!memchr(out, 0, sizeof(out)))
		broken(n, "fault text not terminated");
	leave();
}

static void op_diag(struct fnode *n, struct rd *r)
{
	unsigned int slot = g8(r) % (GEMINI_DIAG_SLOTS + 1);
	uint32_t dest = g32(r), len = g32(r);
	unsigned int count = g8(r);

	if (!(dest & 0x80000000u))
		dest %= NNODES + 2;
	if (!(len & 0x80000000u))
		len %= GEMINI_PKT_MAX_DATA + 8;
	enter(CTX_NONE, n);
	gemini_diag_start(&n->nic, slot, dest, len, count);
	leave();
}

static void check_text(const struct fnode *n, const char *buf, size_t len)
{
	if (len && !memchr(buf, 0, len))
		broken(n, "JSON text not terminated within its buffer");
}

static void op_report(struct fnode *n, struct rd *r)
{
	static char buf[8192];
	unsigned int what = g8(r) % FZ_NREPORTS;
	uint32_t arg = g32(r);
	size_t len;

	memset(buf, 'X', sizeof(buf));
	enter(CTX_NONE, n);
	switch (what) {
	case FZ_P_COUNTERS:
		len = arg % (sizeof(buf) + 1);
		gemini_counters_json(&n->nic, buf, len);
		check_text(n, buf, len);
		break;
	case FZ_P_PORTS:
		len = arg % (sizeof(buf) + 1);
		gemini_ports_json(&n->nic, buf, len);
		check_text(n, buf, len);
		break;
	case FZ_P_DIAG:
		len = (arg >> 8) % (sizeof(buf) + 1);
		gemini_diag_json(&n->nic, arg & 0xff, buf, len);
		check_text(n, buf, len);
		break;
	case FZ_P_FAULT:
		gemini_fault_get(&n->nic, arg % 8, buf, sizeof(buf));
		check_text(n, buf, sizeof(buf));
		break;
	case FZ_P_NAMES:
		(void)gemini_port_counter_name(arg % 32);
		(void)gemini_nic_counter_name(arg % 32);
		if (!gemini_port_name(arg % 8) ||
		    !gemini_port_state_name((enum vgemini_port_state)
					    (arg % 5)) ||
		    !gemini_pkt_error_name((int)(int8_t)arg) ||
		    !gemini_pkt_type_name(arg % 16))
			broken(n, "a name function returned NULL");
		(void)gemini_fabric_state(&n->nic);
		(void)gemini_neighbour_pe(&n->nic, arg % 8);
		break;
	case FZ_P_STATE:
		len = arg % (sizeof(buf) + 1);
		gemini_state_json(&n->nic, buf, len);
		check_text(n, buf, len);
		break;
	default:
		(void)gemini_router_first_hop(&n->nic, arg);
		break;
	}
	leave();
}

static void op_attach(struct fnode *n, struct rd *r)
{
	unsigned int port = g8(r) % (GEMINI_NUM_TORUS_PORTS + 1);
	unsigned int mode = g8(r) % FZ_NATTACH;
	struct gemini_link_view v;
	char err[128];

	enter(CTX_NONE, n);
	switch (mode) {
	case FZ_A_DETACH:
		gemini_port_detach(&n->nic, port);
		break;
	case FZ_A_REATTACH:
		if (port < GEMINI_NUM_TORUS_PORTS) {
			leave();
			attach(n, port);
		}
		break;
	case FZ_A_SHORT:
		/* No view of a short (or no) link, and no attach without one. */
		if (!gemini_link_view_shm(&v, port == GEMINI_NUM_TORUS_PORTS ?
					  NULL : links[FZ_L_SPARE_A + n->id],
					  VGEMINI_LINK_FILE_SIZE - 1, 0) ||
		    !gemini_port_attach(&n->nic, port % GEMINI_NUM_TORUS_PORTS,
					&v, 1, err, sizeof(err)))
			broken(n, "a short link was attached");
		break;
	default:
		if (gemini_link_view_shm(&v, links[FZ_L_SPARE_A + n->id],
					 VGEMINI_LINK_FILE_SIZE, 0) ||
		    !gemini_port_attach(&n->nic, GEMINI_NUM_TORUS_PORTS + port,
					&v, 1, err, sizeof(err)))
			broken(n, "a port past the six was attached");
		break;
	}
	leave();
}

/* Make @p a packet decode would have produced; false if it cannot be. */
static bool make_valid(struct gemini_pkt *p)
{
	uint8_t wire[GEMINI_PKT_MAX_BYTES];
	int e;

	normalize(p);
	e = gemini_pkt_encode(p, wire, sizeof(wire));
	return e > 0 && !gemini_pkt_decode(wire, (size_t)e, p);
}

static void op_direct(struct fnode *n, struct rd *r)
{
	unsigned int what = g8(r) % FZ_NDIRECT;
	struct gemini_pkt p;

	enter(CTX_DIRECT, n);
	switch (what) {
	case FZ_D_RMT:
		read_pkt(r, &p);
		/* What decode guarantees; the lengths rmt checks itself. */
		p.vc = GEMINI_VC_REQ;
		p.vclass &= 1;
		p.dst_nic &= GEMINI_PKT_NIC_MAX;
		p.src_nic &= GEMINI_PKT_NIC_MAX;
		p.tag &= GEMINI_PKT_TAG_MAX;
		p.hops &= GEMINI_PKT_HOPS_MAX;
		p.mdh &= GEMINI_PKT_MDH_MAX;
		p.addr &= (1ull << GEMINI_PKT_ADDR_BITS) - 1;
		p.status = 0;
		oc.pkt = &p;
		(void)gemini_rmt_deliver(&n->nic, &p);
		break;
	case FZ_D_INJECT:
		read_pkt(r, &p);
		(void)gemini_router_inject(&n->nic, &p);
		break;
	case FZ_D_CQ_EVENT: {
		unsigned int cqh = g16(r) % (2 * GEMINI_NUM_CQ);
		unsigned int source = g8(r), status = g8(r);

		(void)gemini_cq_event(&n->nic, cqh, source, status, g64(r));
		break;
	}
	case FZ_D_TRANSLATE: {
		struct gemini_dma_piece piece[GEMINI_NAT_MAX_PIECES];
		unsigned int ptag = g8(r), mdh = g16(r), k, np = 0, st, max;
		uint64_t off = g64(r), len = g64(r), sum = 0;
		bool write = g8(r) & 1;

		max = g8(r) % (GEMINI_NAT_MAX_PIECES + 1);
		if (!(len >> 63))
			len %= 2 * GEMINI_PKT_MAX_DATA + 1;
		st = gemini_nat_translate(&n->nic, ptag, mdh, off, len, write,
					  piece, max, &np);
		if (trace > 1)
			fprintf(stderr,
				"  translate ptag %u mdh %u 0x%llx+%llu: status %u, %u pieces\n",
				ptag, mdh, (unsigned long long)off,
				(unsigned long long)len, st, np);
		if (st > GEMINI_STATUS_MAX)
			broken(n, "translation status out of range");
		if (st != GEMINI_STATUS_OK)
			break;
		if (np > max || !np)
			broken(n, "translation pieces out of range");
		for (k = 0; k < np; k++) {
			if (!mdd_covers(n, ptag, mdh, piece[k].addr,
					piece[k].len, write))
				finding(n, "translation outside the domain",
					piece[k].addr, piece[k].len);
			sum += piece[k].len;
		}
		if (sum != len)
			broken(n, "translation pieces do not add up");
		break;
	}
	case FZ_D_CHECK: {
		unsigned int ptag = g8(r), mdh = g16(r);
		const uint64_t *m = n->nic.nat.mdd[mdh % GEMINI_NUM_MDD];

		if (gemini_nat_check(&n->nic, ptag, mdh) == GEMINI_STATUS_OK &&
		    (mdh >= GEMINI_NUM_MDD || !ptag ||
		     (m[0] & GEMINI_MDD_PTAG_MASK) != ptag ||
		     !(m[1] & GEMINI_MDD_MODE_VALID)))
			finding(n, "check passed a request it must refuse",
				mdh, ptag);
		(void)gemini_nat_cqh(&n->nic, mdh);
		break;
	}
	case FZ_D_FMA_RSP:
		read_pkt(r, &p);
		if (p.vc == GEMINI_VC_REQ)
			p.type = GEMINI_PKT_ACK + p.type % 3;
		oc.pkt = &p;
		if (make_valid(&p) && p.vc == GEMINI_VC_RSP &&
		    p.type != GEMINI_PKT_DIAG_RSP)
			gemini_fma_response(&n->nic, &p);
		break;
	case FZ_D_DIAG:
		read_pkt(r, &p);
		if (p.type != GEMINI_PKT_DIAG_RSP)
			p.type = GEMINI_PKT_DIAG;
		if (make_valid(&p))
			(void)gemini_diag_deliver(&n->nic, &p);
		break;
	case FZ_D_OWN: {
		unsigned int i = g8(r) % (GEMINI_OWN_WINDOWS + 1);
		uint64_t base = g64(r), size = g64(r);

		/* Mostly somewhere in node memory, a page or so. */
		if (!(base >> 63))
			base = MEM_BASE + base % MEM_SIZE;
		if (!(size >> 63))
			size %= 0x4000;
		gemini_nic_set_own_window(&n->nic, i, base, size);
		break;
	}
	default: {
		/* The glue's checks of its properties, on a spare device. */
		static struct gemini_nic spare;
		static const struct gemini_ops none = { 0 };
		static const struct gemini_ops no_clock = {
			.dma_read = bus_read, .dma_write = bus_write,
			.raise_irq = bus_irq,
		};
		const struct gemini_ops *const choice[4] = {
			&ops, NULL, &none, &no_clock,
		};
		struct gemini_config c;
		unsigned int d;
		char err[128];

		for (d = 0; d < 3; d++)
			c.dims[d] = g8(r);
		for (d = 0; d < 3; d++)
			c.coord[d] = g8(r);
		c.num_vectors = g8(r);
		if (!gemini_nic_init(&spare, &c, choice[g8(r) % 4], n, err,
				     sizeof(err)))
			gemini_nic_fini(&spare);
		break;
	}
	}
	leave();
}

/* Work units an operation costs (a poll round is about 20). */
static unsigned int cost(unsigned int op)
{
	switch (op) {
	case FZ_POLL:
	case FZ_RUN:
	case FZ_CLOCK:
		return 0;	/* charged as they go */
	default:
		return 1;
	}
}

static void exec_op(struct rd *r, bool nested);

static void op_repeat(struct rd *r)
{
	unsigned int count = g16(r) % 1024 + 1, nops = g8(r) % 8 + 1, i, k;
	uint32_t stride = g32(r);
	struct rd start;

	/* Each round reads the same operations again. */
	start = *r;
	for (i = 0; i < count && budget; i++) {
		*r = start;
		rep_i = i;
		rep_stride = stride;
		for (k = 0; k < nops && r->n && budget; k++)
			exec_op(r, true);
	}
	rep_i = 0;
	rep_stride = 0;
}

static void exec_op(struct rd *r, bool nested)
{
	uint8_t b = g8(r);
	struct fnode *n = &nodes[b >> 7];
	unsigned int op = (b & 0x7f) % FZ_NOPS, k;

	budget = budget > cost(op) ? budget - cost(op) : 0;
	switch (op) {
	case FZ_CTL_WRITE:
		op_ctl(n, r, true);
		break;
	case FZ_CTL_READ:
		op_ctl(n, r, false);
		break;
	case FZ_WIN_WRITE:
		op_win(n, r, true);
		break;
	case FZ_WIN_READ:
		op_win(n, r, false);
		break;
	case FZ_MEM_WRITE:
		op_mem(n, r, false);
		break;
	case FZ_MEM_LE64:
		op_mem(n, r, true);
		break;
	case FZ_INJECT:
		op_inject(n, r);
		break;
	case FZ_SIDE:
		op_side(n, r);
		break;
	case FZ_LINK_POKE:
		op_poke(r);
		break;
	case FZ_POLL: {
		unsigned int rounds = g8(r) % 8 + 1, which = g8(r) % 4;

		for (k = 0; k < rounds && budget; k++) {
			round_(which == 0 ? ROUND_BOTH :
			       which == 1 ? n->id + 1 :
			       which == 2 ? 2 - n->id : ROUND_GLUE);
			budget = budget > 20 ? budget - 20 : 0;
		}
		break;
	}
	case FZ_RUN:
		run();
		break;
	case FZ_CLOCK:
		op_clock(r);
		break;
	case FZ_FAULT:
		op_fault(n, r);
		break;
	case FZ_QUIESCE:
		gemini_router_quiesce(&n->nic, g8(r) & 1);
		break;
	case FZ_LOAD_TABLE: {
		unsigned int v = g8(r);
		uint32_t gen = g32(r);
		uint16_t at = g16(r);
		uint8_t x = g8(r);

		load_table(n, v, gen, at, x, (int8_t)g8(r));
		break;
	}
	case FZ_DIAG_HOST:
		op_diag(n, r);
		break;
	case FZ_REPORT:
		op_report(n, r);
		break;
	case FZ_ATTACH:
		op_attach(n, r);
		break;
	case FZ_RESET:
		enter(CTX_NONE, n);
		gemini_nic_reset(&n->nic);
		leave();
		break;
	case FZ_DIRECT:
		op_direct(n, r);
		break;
	case FZ_REPEAT:
		if (nested) {
			/* no nesting: skip the arguments */
			(void)g16(r);
			(void)g8(r);
			(void)g32(r);
		} else {
			op_repeat(r);
		}
		break;
	}
	/* The glue polls after what may have given a device work. */
	switch (op) {
	case FZ_CTL_READ:
	case FZ_WIN_READ:
	case FZ_MEM_WRITE:
	case FZ_MEM_LE64:
	case FZ_POLL:
	case FZ_RUN:
	case FZ_CLOCK:
	case FZ_REPORT:
	case FZ_REPEAT:
		break;
	case FZ_INJECT:
	case FZ_SIDE:
	case FZ_LINK_POKE:
		for (k = 0; k < NNODES; k++)
			nodes[k].wake = true;
		break;
	default:
		n->wake = true;
		break;
	}
}

/* --- invariants at the end ----------------------------------------------- */

static void check_counts(const struct fnode *n)
{
	const struct gemini_nic *nic = &n->nic;
	const struct gemini_fma *f = &nic->fma;
	unsigned int used = 0, t, s, d, p, c;
	unsigned int held[GEMINI_FMA_NUM_DESC] = { 0 };

	for (t = 0; t < GEMINI_ORB_SIZE; t++)
		used += f->orb[t].state != GEMINI_ORB_FREE;
	if (used != f->orb_used)
		broken(n, "ORB entries in use differ from orb_used");
	if (f->qcount > GEMINI_ORB_SIZE)
		broken(n, "FMA queue count past the ORB");
	for (s = 0; s < GEMINI_NUM_SSID; s++)
		if (f->ssid[s].used && f->ssid[s].desc < GEMINI_FMA_NUM_DESC)
			held[f->ssid[s].desc]++;
	for (d = 0; d < GEMINI_FMA_NUM_DESC; d++)
		if (held[d] != f->desc[d].ssid_inuse)
			broken(n, "SSIDs held differ from the status word");
	for (c = 0; c < 2; c++)
		if (nic->router.inject[c].count > GEMINI_PKTQ_DEPTH)
			broken(n, "injection buffer past its depth");
	for (p = 0; p < GEMINI_NUM_TORUS_PORTS; p++)
		for (c = 0; c < VGEMINI_LINK_CHANS; c++)
			if (nic->router.in[p][c].count > GEMINI_PKTQ_DEPTH)
				broken(n, "input buffer past its depth");
}

static bool liveness = true;

static void summary(void)
{
	unsigned int n;

	fprintf(stderr, "polls %lu\n", polls);
	polls = 0;
	for (n = 0; n < NNODES; n++) {
		const struct fnode *nd = &nodes[n];
		const struct gemini_nic *nic = &nd->nic;

		fprintf(stderr,
			"node %c: rmt done %llu refused %llu waits %llu; ",
			'A' + n, (unsigned long long)nic->rmt.req_done,
			(unsigned long long)nic->rmt.req_refused,
			(unsigned long long)nic->rmt.req_waits);
		fprintf(stderr, "cq events %llu overruns %llu lost %llu; ",
			(unsigned long long)nic->cq_stats.events,
			(unsigned long long)nic->cq_stats.overruns,
			(unsigned long long)nic->cq_stats.lost);
		fprintf(stderr, "fma requests %llu responses %llu errors %llu ",
			(unsigned long long)nic->fma.stats.requests,
			(unsigned long long)nic->fma.stats.responses,
			(unsigned long long)nic->fma.stats.errors);
		fprintf(stderr, "timeouts %llu stale %llu refused %llu ",
			(unsigned long long)nic->fma.stats.timeouts,
			(unsigned long long)nic->fma.stats.stale,
			(unsigned long long)nic->fma.stats.refused);
		fprintf(stderr, "completions %llu local events %llu; ",
			(unsigned long long)nic->fma.stats.completions,
			(unsigned long long)nic->fma.stats.local_events);
		fprintf(stderr, "guest errors %llu irqs %llu stale %llu\n",
			(unsigned long long)nd->guest_errors,
			(unsigned long long)nd->irqs,
			(unsigned long long)nd->stale);
	}
}

/*
 * After a poll at @now nothing may be older than its timeout: no request
 * waiting for its response or for room, no ping in flight.
 */
static void check_timeouts(const struct fnode *n, uint64_t now)
{
	const struct gemini_nic *nic = &n->nic;
	const uint64_t fma_ns = MS(GEMINI_FMA_TIMEOUT_MS);
	const uint64_t diag_ns = MS(VGEMINI_DIAG_TIMEOUT_MS);
	unsigned int t, s;

	for (t = 0; t < GEMINI_ORB_SIZE; t++) {
		const struct gemini_fma_orb *o = &nic->fma.orb[t];

		if ((o->state == GEMINI_ORB_SENT ||
		     o->state == GEMINI_ORB_QUEUED) &&
		    gemini_elapsed(now, o->since_ns) >= fma_ns)
			broken(n, "an FMA request outlived its timeout");
	}
	for (s = 0; s < GEMINI_DIAG_SLOTS; s++)
		if (nic->diag[s].status == VGEMINI_DIAG_PENDING &&
		    gemini_elapsed(now, nic->diag[s].sent_ns) >= diag_ns)
			broken(n, "a ping outlived its timeout");
}

/*
 * Anything of the FMA that a timeout must end still under way?  (Pings
 * are not waited for: a burst may go on for minutes; check_timeouts()
 * sees that each one ends in time.)
 */
static bool unfinished(void)
{
	unsigned int n, s;

	for (n = 0; n < NNODES; n++) {
		const struct gemini_nic *nic = &nodes[n].nic;

		if (nic->fma.orb_used)
			return true;
		for (s = 0; s < GEMINI_NUM_SSID; s++)
			if (nic->fma.ssid[s].used && nic->fma.ssid[s].synced)
				return true;
	}
	return false;
}

/* The earliest FMA deadline of any node, UINT64_MAX if none. */
static uint64_t next_timer(void)
{
	uint64_t t = UINT64_MAX;
	unsigned int n;

	for (n = 0; n < NNODES; n++) {
		const struct gemini_nic *nic = &nodes[n].nic;

		if (nic->fma.orb_used && nic->fma.next_timeout < t)
			t = nic->fma.next_timeout;
	}
	return t;
}

/*
 * Let every timeout run out (a sequence may wait for its requests, then
 * its flag, then its remote event, and tags rest before reuse), the
 * clock moving from deadline to deadline as the glue's timer does - each
 * step at most 99 ms past the earliest one, so that the FMA never takes
 * the wait for a pause of the device (GEMINI_FMA_PAUSE_MS) - and the
 * heartbeats going on: no synchronised sequence may be left unfinished.
 */
static void drain(void)
{
	const uint64_t slack = MS(GEMINI_FMA_PAUSE_MS) - MS(1);
	unsigned int k, n, s;

	for (k = 0; k < 1024 && unfinished(); k++) {
		uint64_t t = next_timer(), at;

		if (t != UINT64_MAX && t + slack > now_ns)
			advance(t + slack - now_ns, false);
		at = now_ns;
		/* A node not polled says its deadline has not come. */
		round_(ROUND_GLUE);
		for (n = 0; n < NNODES; n++)
			check_timeouts(&nodes[n], at);
	}
	for (n = 0; n < NNODES; n++) {
		const struct gemini_nic *nic = &nodes[n].nic;

		for (s = 0; s < GEMINI_NUM_SSID; s++)
			if (nic->fma.ssid[s].used && nic->fma.ssid[s].synced)
				broken(&nodes[n],
				       "a synchronised FMA sequence never completed");
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rd r = { data, size };
	unsigned int n;
	static bool inited;

	if (!inited) {
		inited = true;
		liveness = !getenv("FUZZ_CORE_NO_LIVENESS");
		trace = getenv("FUZZ_CORE_TRACE") ?
			atoi(getenv("FUZZ_CORE_TRACE")) : 0;
		for (n = 0; n < NNODES; n++) {
			nodes[n].dirty_lo = 0;
			nodes[n].dirty_hi = MEM_SIZE;
		}
	}
	if (!size)
		return 0;
	setup(g8(&r));
	budget = BUDGET;
	while (r.n && budget)
		exec_op(&r, false);
	for (n = 0; n < NNODES; n++)
		check_counts(&nodes[n]);
	if (liveness)
		drain();
	if (trace)
		summary();
	for (n = 0; n < NNODES; n++) {
		check_counts(&nodes[n]);
		gemini_nic_fini(&nodes[n].nic);
	}
	return 0;
}
