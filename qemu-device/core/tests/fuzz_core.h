/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The input language of fuzz_core.c, shared with the seed generator
 * (fuzz_core_seeds.c) so that both read and write the same programs.
 *
 * An input is one configuration byte, then operations until the input
 * ends.  An operation is an opcode byte (bit 7: which node, A or B; bits
 * 6..0 modulo FZ_NOPS: the operation) followed by its arguments, all
 * little-endian; an argument past the end of the input reads as 0.
 */
#ifndef FUZZ_CORE_H
#define FUZZ_CORE_H

/* Node memory: the same layout on both nodes (see DESIGN at fuzz_core.c). */
#define FZ_MEM_BASE	0x100000ull
#define FZ_MEM_SIZE	0x80000u
#define FZ_SYS		(FZ_MEM_BASE + 0x00000)	/* CQs, GART */
#define FZ_REGION1	(FZ_MEM_BASE + 0x20000)	/* FZ_PTAG1's */
#define FZ_REGION2	(FZ_MEM_BASE + 0x40000)	/* FZ_PTAG2's */
#define FZ_SHARED	(FZ_MEM_BASE + 0x60000)	/* nobody's */
#define FZ_REGION_SIZE	0x20000u
/* The device's own windows at the start: a page of memory, and past it. */
#define FZ_OWN0		(FZ_SHARED + 0x10000)
#define FZ_OWN0_SIZE	0x1000u
#define FZ_OWN1		(FZ_MEM_BASE + FZ_MEM_SIZE)
#define FZ_OWN1_SIZE	0x10000u
#define FZ_PTAG1	7
#define FZ_PTAG2	9

/*
 * Config byte: bits 1..0 vectors, bits 4..2 the first routing table,
 * bit 5: node B's ops table has none of the optional callbacks, bit 6:
 * no routing table loaded at the start.
 */
#define FZ_CFG_VECTORS(c)	((c) & 3)
#define FZ_CFG_TABLE(c)		(((c) >> 2) & 7)
#define FZ_CFG_MINIMAL_OPS	0x20
#define FZ_CFG_NO_TABLE		0x40

enum fz_op {
	FZ_CTL_WRITE,	/* off u16, size u8, val u64 */
	FZ_CTL_READ,	/* off u16, size u8 */
	FZ_WIN_WRITE,	/* region u8, idx u16, sub u32, size u8, val u64 */
	FZ_WIN_READ,	/* region u8, idx u16, sub u32, size u8 */
	FZ_MEM_WRITE,	/* off u32, len u8, bytes */
	FZ_MEM_LE64,	/* off u32 (rounded down to 8), val u64 */
	FZ_INJECT,	/* see enum fz_inject */
	FZ_SIDE,	/* link u8, side u8, field u8, chan u8, val u64 */
	FZ_LINK_POKE,	/* link u8, off u16, val u8 */
	/*
	 * rounds u8 (% 8 + 1), which u8 (0 both, 1 this node, 2 the other,
	 * 3 as the glue would)
	 */
	FZ_POLL,
	FZ_RUN,		/* (settle: poll until nothing moves) */
	FZ_CLOCK,	/* sel u8, val u32 */
	FZ_FAULT,	/* port u8, preset u8 [, len u8, spec bytes] */
	FZ_QUIESCE,	/* on u8 */
	FZ_LOAD_TABLE,	/* variant u8, gen u32, at u16, xor u8, adj u8 */
	FZ_DIAG_HOST,	/* slot u8, dest u32, len u32, count u8 */
	FZ_REPORT,	/* what u8, arg u32 */
	FZ_ATTACH,	/* port u8, mode u8 */
	FZ_RESET,	/* (device reset) */
	FZ_DIRECT,	/* what u8, then as enum fz_direct */
	FZ_REPEAT,	/* count u16, nops u8, stride u32: see below */
	FZ_NOPS
};

/*
 * FZ_REPEAT runs the next (nops % 8 + 1) operations (count % 1024 + 1)
 * times; in round i the offset of a store into an FMA window and of a
 * write into node memory grow by i * stride, and the value of a window
 * store by i.  Repeats do not nest.
 */

/* WIN_WRITE / WIN_READ regions of the NIC window (BAR2). */
enum fz_region {
	FZ_R_MDD,	/* idx: MDH, sub: byte in the 16-byte entry */
	FZ_R_MRT,	/* idx: entry, sub: byte in the 4-byte entry */
	FZ_R_MRT_PS,	/* sub: byte of the page-size register */
	FZ_R_NTT,	/* idx: entry; sub bit 16: bank 1, 17: write-both */
	FZ_R_NL,	/* sub: byte from NL_NODE_ID (NTT config, params) */
	FZ_R_CQ_DESC,	/* idx: CQ, sub: byte in the 32-byte slot */
	FZ_R_CQ_USER,	/* idx: CQ, sub: byte in its user page */
	FZ_R_FMA_PRIV,	/* idx: descriptor, sub: byte of its page */
	FZ_R_FMA_USER,
	FZ_R_PUT_WC,	/* idx: descriptor, sub: offset in the window */
	FZ_R_PUT_UC,
	FZ_R_GET,
	FZ_R_OS_PUT_WC,	/* idx: OS descriptor 0..3 */
	FZ_R_OS_GET,
	FZ_R_OS_PUT_UC,
	FZ_R_BTE_TX,	/* idx: TX descriptor, sub: byte in its slot */
	FZ_R_BTE_CHAN,	/* sub: a byte of the channel and ring registers */
	FZ_R_BTE_RX,	/* idx: RX descriptor, sub: byte */
	FZ_R_RAW,	/* idx << 24 ^ sub, anywhere in BAR2 */
	FZ_NREGIONS
};

/* Access sizes: the size byte indexes this table (modulo 8). */
#define FZ_SIZES	{ 8, 4, 1, 2, 3, 16, 0, 5 }

/* Links: which of the harness's link files. */
enum fz_link {
	FZ_L_X0,	/* A's X+ (side 0) and B's X- (side 1) */
	FZ_L_X1,	/* B's X+ and A's X- */
	FZ_L_YA,	/* A's Y+ and Y-: a ring of one */
	FZ_L_YB,
	FZ_L_ZA,	/* A's Z+ (side 0); side 1 is the hostile neighbour */
	FZ_L_ZB,
	FZ_L_SPARE_A,	/* Z- when attached by FZ_ATTACH: nobody there */
	FZ_L_SPARE_B,
	FZ_NLINKS
};

/*
 * FZ_INJECT: a frame written into a link as its other end would.
 *   mode u8: bits 1..0 kind (0 packet from fields, 1 raw bytes, 2 raw
 *            bytes with a raw slot header); bit 2: fix the CRC of raw
 *            bytes; bit 3: channel from the chan byte; bits 6..4: link
 *            (0: this node's hostile Z link, 1: the X link into this
 *            node, 2: this node's Y ring, others as 0)
 *   chan u8, seq_adj u8 (added to the sequence number)
 *   kind 0: type u8 (index into FZ_TYPES if < 0x80, else raw & 0x7f),
 *           flags u8, dst u16, dst_nic u8, src u16, src_nic u8, ptag u8,
 *           amo_op u8, mdh u16, tag u16, addr u64, status u8, hops u8,
 *           len u8, vclass u8, then min(len, 64) data bytes
 *   kind 1: len u8, then len bytes (at most 96)
 *   kind 2: epoch_xor u32, gen u32, slot_len u16, then as kind 1
 */
#define FZ_TYPES	{ GEMINI_PKT_PUT, GEMINI_PKT_GET, GEMINI_PKT_AMO, \
			  GEMINI_PKT_CQWRITE, GEMINI_PKT_DIAG, GEMINI_PKT_ACK, \
			  GEMINI_PKT_ERR, GEMINI_PKT_DATA, GEMINI_PKT_DIAG_RSP }
#define FZ_NTYPES	9

/* FZ_SIDE fields of a link side. */
enum fz_side_field {
	FZ_F_MAGIC, FZ_F_VERSION, FZ_F_PE, FZ_F_PORT, FZ_F_EPOCH,
	FZ_F_HEARTBEAT, FZ_F_ARMED, FZ_F_ACK, FZ_F_FREED, FZ_F_NAK,
	FZ_F_RX_EPOCH,
	FZ_F_SILENT,	/* hostile: stop (val odd) or resume heartbeats */
	FZ_F_PASSIVE,	/* hostile: stop (val odd) or resume acking */
	FZ_F_RETRAIN,	/* hostile: a new epoch */
	FZ_NFIELDS
};

/* FZ_CLOCK selectors. */
enum fz_clock {
	FZ_C_US,	/* val % 65536 microseconds */
	FZ_C_MS,	/* val % 5000 milliseconds */
	FZ_C_RETRY,	/* the link retry time */
	FZ_C_HEARTBEAT,
	FZ_C_FMA_TIMEOUT,
	FZ_C_LINK_TIMEOUT,
	FZ_NCLOCK
};

/* sel bit 3: one jump, with no heartbeats on the way (a stalled VM). */
#define FZ_C_STALL	0x08

/* FZ_DIRECT: core entry points called as their in-core callers would. */
enum fz_direct {
	FZ_D_RMT,	/* pkt fields (FZ_INJECT kind 0): rmt_deliver */
	FZ_D_INJECT,	/* same: gemini_router_inject */
	FZ_D_CQ_EVENT,	/* cqh u16, source u8, status u8, data u64 */
	/* ptag u8, mdh u16, off u64, len u64, write u8, max u8 */
	FZ_D_TRANSLATE,
	FZ_D_CHECK,	/* ptag u8, mdh u16 */
	FZ_D_FMA_RSP,	/* pkt fields, made a valid packet first */
	FZ_D_DIAG,	/* pkt fields, made a valid packet first */
	FZ_D_INIT,	/* dims 3 x u8, coord 3 x u8, vectors u8, ops u8 */
	FZ_D_OWN,	/* i u8, base u64, size u64: where the BARs are */
	FZ_NDIRECT
};

/* FZ_REPORT: the supervisor's read-outs (QMP in the glue). */
enum fz_report {
	FZ_P_COUNTERS,	/* arg: buffer length */
	FZ_P_PORTS,
	FZ_P_DIAG,	/* arg: slot, buffer length << 8 */
	FZ_P_FAULT,	/* arg: port */
	FZ_P_NAMES,	/* arg: index */
	FZ_P_FIRST_HOP,	/* arg: destination */
	FZ_P_STATE,	/* arg: buffer length */
	FZ_NREPORTS
};

/* FZ_ATTACH modes. */
enum fz_attach {
	FZ_A_DETACH,
	FZ_A_REATTACH,	/* its own link again, with a new epoch */
	FZ_A_SHORT,	/* a mapping too small */
	FZ_A_BAD_PORT,
	FZ_NATTACH
};

/*
 * FZ_LOAD_TABLE variants (see fuzz_core.c route_variant()); variant bit 7:
 * the xor is applied before the CRC is computed, so the CRC matches.
 */
#define FZ_NTABLES	6

#endif /* FUZZ_CORE_H */
