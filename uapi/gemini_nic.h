/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Cray Gemini NIC tables shared by the cray-gemini device model, the kgni
 * driver and libugni: memory domain descriptors (MDD), the memory
 * relocation table (MRT), the node translation table (NTT), completion
 * queue (CQ) descriptors and CQ entries.
 *
 * Every table is programmed through the NIC address window (BAR2, see
 * gemini_hw.h) at the Gemini offsets below, with 4- or 8-byte accesses
 * aligned to their size, little-endian; a qword may be written as two
 * 32-bit halves.  A field is (qword >> SHIFT) & MASK; bits that no field
 * names read 0 and are ignored when written.  Where vgemini had to choose
 * a meaning the references do not give, the comment says "vgemini";
 * Documentation/device.rst describes the semantics.
 */
#ifndef VGEMINI_GEMINI_NIC_H
#define VGEMINI_GEMINI_NIC_H

#include "gemini_hw.h"

/* --- MDD: memory domain descriptor, 16 bytes (2 qwords) per MDH ---------- */

#define GEMINI_MDD_BYTES		16
#define GEMINI_MMR_MDD_ENTRY(mdh)	(GEMINI_MMR_MDD + \
					 ((unsigned long long)(mdh) << 4))

/* QW1 (byte 0) */
#define GEMINI_MDD_PTAG_SHIFT		0
#define GEMINI_MDD_PTAG_MASK		0xffull
#define GEMINI_MDD_MEM_BASE_SHIFT	12	/* bits 47..12 of the base */
#define GEMINI_MDD_MEM_BASE_MASK	0xfffffffffull
#define GEMINI_MDD_MRT_ENABLE		(1ull << 56)
#define GEMINI_MDD_QW1_MASK		0x0100fffffffff0ffull

/* QW2 (byte 8) */
#define GEMINI_MDD_MODES_SHIFT		0
#define GEMINI_MDD_MODES_MASK		0xfffull	/* the 12-bit field */
#define GEMINI_MDD_MAX_BASE_SHIFT	12	/* bits 47..12 of the last byte */
#define GEMINI_MDD_MAX_BASE_MASK	0xfffffffffull
#define GEMINI_MDD_CQH_SHIFT		54	/* CQ of remote events */
#define GEMINI_MDD_CQH_MASK		0x3ffull
/* only the defined modes are kept; the other mode bits read 0 */
#define GEMINI_MDD_QW2_MASK		0xffc0fffffffff03full

/* MDD modes (QW2 bits 11..0) */
#define GEMINI_MDD_MODE_COHERENT	0x0001
#define GEMINI_MDD_MODE_P_PASSPW	0x0002	/* relaxed posted writes */
#define GEMINI_MDD_MODE_NP_PASSPW	0x0004	/* relaxed non-posted */
#define GEMINI_MDD_MODE_FLUSH		0x0008	/* flush before responding */
#define GEMINI_MDD_MODE_VALID		0x0010
#define GEMINI_MDD_MODE_WRITABLE	0x0020
#define GEMINI_MDD_MODES_DEFINED	0x003f

/* Addresses in mem_base and max_base have 4 KiB granularity. */
#define GEMINI_MDD_ADDR_SHIFT		12
#define GEMINI_MDD_ADDR_BITS		48

/* Build the two qwords of an MDD (arguments are byte addresses). */
#define GEMINI_MDD_QW1(ptag, mem_base, mrt) \
	((((unsigned long long)(ptag) & GEMINI_MDD_PTAG_MASK) << \
	  GEMINI_MDD_PTAG_SHIFT) | \
	 ((((unsigned long long)(mem_base) >> GEMINI_MDD_ADDR_SHIFT) & \
	   GEMINI_MDD_MEM_BASE_MASK) << GEMINI_MDD_MEM_BASE_SHIFT) | \
	 ((mrt) ? GEMINI_MDD_MRT_ENABLE : 0))
#define GEMINI_MDD_QW2(modes, max_addr, cqh) \
	((((unsigned long long)(modes) & GEMINI_MDD_MODES_DEFINED) << \
	  GEMINI_MDD_MODES_SHIFT) | \
	 ((((unsigned long long)(max_addr) >> GEMINI_MDD_ADDR_SHIFT) & \
	   GEMINI_MDD_MAX_BASE_MASK) << GEMINI_MDD_MAX_BASE_SHIFT) | \
	 (((unsigned long long)(cqh) & GEMINI_MDD_CQH_MASK) << \
	  GEMINI_MDD_CQH_SHIFT))

/* --- MRT: memory relocation table, 4 bytes per entry -------------------- */

#define GEMINI_MRT_BYTES		4
#define GEMINI_MMR_MRT_ENTRY(idx)	(GEMINI_MMR_MRT + \
					 ((unsigned long long)(idx) << 2))

/*
 * An entry holds bits 46..17 of a node-physical page address in its bits
 * 31..2, and the valid bit 0; bit 1 is unused.
 */
#define GEMINI_MRT_VALID		0x1u
#define GEMINI_MRT_ADDR_SHIFT		15
#define GEMINI_MRT_ADDR_MASK		0xfffffffcu	/* entry bits */
#define GEMINI_MRT_ENTRY_MASK		0xfffffffdu
#define GEMINI_MRT_ENCODE(addr) \
	((unsigned int)(((unsigned long long)(addr) >> \
			 GEMINI_MRT_ADDR_SHIFT) & GEMINI_MRT_ADDR_MASK) | \
	 GEMINI_MRT_VALID)
#define GEMINI_MRT_DECODE(entry) \
	((unsigned long long)((entry) & GEMINI_MRT_ADDR_MASK) << \
	 GEMINI_MRT_ADDR_SHIFT)

/* MRT page-size register (GEMINI_MMR_MRT_PAGE_SIZE): a 3-bit code */
#define GEMINI_MRT_PAGE_SIZE_MASK	0x7ull
#define GEMINI_MRT_PS_128K		0	/* 1 << 17 */
#define GEMINI_MRT_PS_512K		1	/* 1 << 19 */
#define GEMINI_MRT_PS_2M		2	/* 1 << 21 */
#define GEMINI_MRT_PS_8M		3	/* 1 << 23 */
#define GEMINI_MRT_PS_16M		4	/* 1 << 24 */
#define GEMINI_MRT_PS_64M		5	/* 1 << 26 */
#define GEMINI_MRT_PS_256M		6	/* 1 << 28 */
#define GEMINI_MRT_PS_1G		7	/* 1 << 30 */
/* log2 of the page size of a code: 17, 19, 21, 23, 24, 26, 28, 30 */
#define GEMINI_MRT_PAGE_SHIFT(code) \
	((code) == 0 ? 17 : (code) == 1 ? 19 : (code) == 2 ? 21 : \
	 (code) == 3 ? 23 : (code) == 4 ? 24 : (code) == 5 ? 26 : \
	 (code) == 6 ? 28 : 30)

/* --- NTT: node translation table ---------------------------------------- */

/*
 * Two banks of GEMINI_NTT_BANK_ENTRIES 8-byte entries; an entry holds the
 * physical PEs of two consecutive virtual indices (nic_pe0, nic_pe1).  A
 * write at an entry's offset plus GEMINI_NTT_WRITE_BOTH writes the entry
 * of both banks; a read there reads the bank addressed.  The device only
 * stores the NTT: it translates PEs at the source.
 */
#define GEMINI_NTT_BANKS		2
#define GEMINI_NTT_BANK_ENTRIES		(GEMINI_NUM_NTT / GEMINI_NTT_BANKS)
#define GEMINI_NTT_BANK_STRIDE		(GEMINI_MMR_NTT1 - GEMINI_MMR_NTT0)
#define GEMINI_NTT_WRITE_BOTH		0x8000ull
#define GEMINI_MMR_NTT_ENTRY(bank, idx) \
	(GEMINI_MMR_NTT0 + (bank) * GEMINI_NTT_BANK_STRIDE + \
	 ((unsigned long long)(idx) << 3))

#define GEMINI_NTT_PE0_SHIFT		0	/* nic_pe0 */
#define GEMINI_NTT_PE1_SHIFT		18	/* nic_pe1: the next index's PE */
#define GEMINI_NTT_PE_MASK		0x3ffffull
#define GEMINI_NTT_CHECK_SHIFT		36
#define GEMINI_NTT_CHECK_MASK		0xffull
#define GEMINI_NTT_SYNDROME_SHIFT	44	/* read-only: reads 0 (vgemini) */
#define GEMINI_NTT_SYNDROME_MASK	0xffull
#define GEMINI_NTT_WR_CHECKBITS		(1ull << 63)
#define GEMINI_NTT_ENTRY_MASK		0x80000fffffffffffull

/* NTT config register (GEMINI_MMR_NTT_CONFIG) */
#define GEMINI_NTT_CFG_GRAN0_SHIFT	0
#define GEMINI_NTT_CFG_GRAN1_SHIFT	8
#define GEMINI_NTT_CFG_GRAN_MASK	0xfull
#define GEMINI_NTT_CFG_WRITE_GRN0	(1ull << 4)
#define GEMINI_NTT_CFG_WRITE_GRN1	(1ull << 12)
#define GEMINI_NTT_CFG_MASK		0x1f1full

/* --- CQ descriptor: 3 qwords in a 32-byte slot per CQ ------------------- */

#define GEMINI_CQ_DESC_BYTES		32
#define GEMINI_CQ_DESC_QWORDS		3
#define GEMINI_MMR_CQ_DESC_ENTRY(cq)	(GEMINI_MMR_CQ_DESC + \
					 ((unsigned long long)(cq) << 5))

/* QW1 (byte 0): the ring indices */
#define GEMINI_CQ_RD_INDEX_SHIFT	0
#define GEMINI_CQ_WR_INDEX_SHIFT	32	/* the device's; reads live */
#define GEMINI_CQ_INDEX_MASK		0x1fffffffull
#define GEMINI_CQ_QW1_MASK		0x1fffffff1fffffffull

/* QW2 (byte 8) */
#define GEMINI_CQ_MAX_INDEX_SHIFT	0	/* last index: max_index + 1 entries */
#define GEMINI_CQ_IRQ_THRESH_SHIFT	32	/* events before an interrupt, - 1 */
#define GEMINI_CQ_IRQ_THRESH_MASK	0x1fffull
#define GEMINI_CQ_IRQ_INDEX_SHIFT	48	/* Gemini IRQ index to raise */
#define GEMINI_CQ_IRQ_INDEX_MASK	0x1full
#define GEMINI_CQ_ENABLE		(1ull << 53)
#define GEMINI_CQ_QW2_MASK		0x003f1fff1fffffffull

/* QW3 (byte 16) */
#define GEMINI_CQ_BASE_SHIFT		0	/* node address of entry 0 */
#define GEMINI_CQ_BASE_MASK		0xffffffffffffull
#define GEMINI_CQ_IRQ_REQ		(1ull << 48)	/* interrupts enabled */
#define GEMINI_CQ_QW3_MASK		0x0001ffffffffffffull

#define GEMINI_CQ_ALIGN			4096	/* base_addr alignment */
#define GEMINI_CQ_ENTRY_BYTES		8
/* vgemini: a ring has at least 2 entries (max_index >= 1) */
#define GEMINI_CQ_MIN_MAX_INDEX		1

/*
 * CQ user alias: one 4 KiB page per CQ.  Its first qword reads as QW1 of
 * the descriptor; the consumer writes its read index into bits 28..0
 * (a 4-byte write at +0 does the same; +4, the write index, is read-only).
 */
#define GEMINI_CQ_USER_PAGE(cq)		(GEMINI_CQ_USER_ALIAS + \
					 ((unsigned long long)(cq) << 12))
#define GEMINI_CQ_READ_INDEX_OFFSET	0

/*
 * vgemini: a read of a CQ page's last qword returns 0, and may take up to
 * GEMINI_CQ_IDLE_MAX_US while the NIC writes nothing into the node's
 * memory.  A consumer that has found its CQ empty many times in a row
 * reads it (libugni does) so that, on a host with more vCPUs than cores,
 * its vCPU leaves the host's CPU to the one it waits for
 * (Documentation/device.rst, "Idle polls").  A Gemini has no such
 * register; on one the read would cost a round trip to the NIC.
 */
#define GEMINI_CQ_IDLE_OFFSET		0xff8
#define GEMINI_CQ_IDLE_MAX_US		200

/*
 * CQ interrupts: a CQ raises Gemini in-band IRQ irq_req_index, which is
 * MSI-X vector irq_req_index - GEMINI_IRQ_FIRST (gemini_hw.h).  Gemini
 * gives CQs indices 29 to 31, after the BTE channels' 21 to 28 (32 is
 * flow control); vgemini accepts any index from 21 whose vector exists.
 */
#define GEMINI_IRQ_FIRST_CQ		(GEMINI_IRQ_FIRST + 2 * GEMINI_NUM_BTE_VC)
#define GEMINI_IRQ_NUM_CQ		3
#define GEMINI_IRQ_VECTOR(index)	((index) - GEMINI_IRQ_FIRST)

/* --- CQ entry: 8 bytes ------------------------------------------------- */

#define GEMINI_CQE_OVERRUN		(1ull << 63)
#define GEMINI_CQE_STATUS_SHIFT		59
#define GEMINI_CQE_STATUS_MASK		0xfull	/* GEMINI_STATUS_*, gemini_pkt.h */
#define GEMINI_CQE_SOURCE_SHIFT		56
#define GEMINI_CQE_SOURCE_MASK		0x7ull
#define GEMINI_CQE_DATA_MASK		0x00ffffffffffffffull	/* 56 bits */

#define GEMINI_CQE(source, status, data) \
	((((unsigned long long)(source) & GEMINI_CQE_SOURCE_MASK) << \
	  GEMINI_CQE_SOURCE_SHIFT) | \
	 (((unsigned long long)(status) & GEMINI_CQE_STATUS_MASK) << \
	  GEMINI_CQE_STATUS_SHIFT) | \
	 ((unsigned long long)(data) & GEMINI_CQE_DATA_MASK))

/* CQ entry sources; 0 means the entry has not been written */
#define GEMINI_CQE_SRC_NONE		0
#define GEMINI_CQE_SRC_SSID_SREQ	1	/* local: request side */
#define GEMINI_CQE_SRC_SSID_DREQ	2	/* local: destination request */
#define GEMINI_CQE_SRC_SSID_SRSP	3	/* local: response */
#define GEMINI_CQE_SRC_BTE		4
#define GEMINI_CQE_SRC_RMT_SREQ		5	/* remote: PUT/GET/AMO/CQWRITE */
#define GEMINI_CQE_SRC_RMT_DREQ		6	/* remote: BTE SEND (later) */
#define GEMINI_CQE_SRC_RMT_SRSP		7

/* --- FMA descriptors ---------------------------------------------------- */

/*
 * GEMINI_NUM_FMA general descriptors (ids 0..63) and GEMINI_NUM_FMA_OS
 * descriptors for the OS (vgemini: ids 64..67).  Each has a 4 KiB control
 * page twice: the privileged page (the kernel's view, every field, and the
 * privilege mask at +0x80) and the user alias (what libugni maps; fields
 * the privilege mask does not give to the user cannot be changed there).
 * General descriptor d has PUT (WC and UC) and GET windows of 1 GiB at
 * GEMINI_FMA_PUT_WC + (d << 30) etc.; OS descriptor 64 + k has them at
 * GEMINI_OS_FMA_PUT_WC + (k << 30) etc.
 */
#define GEMINI_FMA_NUM_DESC		(GEMINI_NUM_FMA + GEMINI_NUM_FMA_OS)
#define GEMINI_FMA_OS_FIRST		GEMINI_NUM_FMA	/* vgemini */
#define GEMINI_FMA_PRIV_PAGE(d)		(GEMINI_FMA_PRIV + \
					 ((unsigned long long)(d) << 12))
#define GEMINI_FMA_USER_PAGE(d)		(GEMINI_FMA_USER_ALIAS + \
					 ((unsigned long long)(d) << 12))
#define GEMINI_FMA_WINDOW_SHIFT		30
#define GEMINI_FMA_WINDOW(base, d)	((base) + ((unsigned long long)(d) << \
					 GEMINI_FMA_WINDOW_SHIFT))

/*
 * An FMA request that gets no response within GEMINI_FMA_TIMEOUT_MS ends
 * with REQUEST_TIMEOUT; its tag then rests as long again before reuse,
 * so a late response to it is recognised as stale.  A disabled
 * descriptor's sequences have all ended (SSID count 0) by then.
 */
#define GEMINI_FMA_TIMEOUT_MS		2000u
/*
 * vgemini: the timeout counts the time the device runs.  A poll that comes
 * more than GEMINI_FMA_PAUSE_MS after the earliest deadline means the QEMU
 * process was stopped or starved; the outstanding requests' clocks are
 * moved on by the gap, so that their answers, which may be waiting in the
 * link, are taken first.
 */
#define GEMINI_FMA_PAUSE_MS		100u

/* Byte offsets of the qwords in a control page (QW1 is at 0) */
#define GEMINI_FMA_QW_BASE_OFFSET	0x00	/* QW1 */
#define GEMINI_FMA_QW_CMD		0x08	/* QW2 */
#define GEMINI_FMA_QW_PE		0x10	/* QW3 */
#define GEMINI_FMA_QW_STATUS		0x18	/* QW4 */
#define GEMINI_FMA_QW_SCRATCH0		0x20	/* QW5 */
#define GEMINI_FMA_QW_SCRATCH1		0x28	/* QW6 */
#define GEMINI_FMA_QW_ALLOC_SYNCID	0x30	/* QW7, doorbell */
#define GEMINI_FMA_QW_SYNCCMP		0x38	/* QW8, doorbell */
#define GEMINI_FMA_QW_CQ_WRITE		0x40	/* QW9, doorbell */
#define GEMINI_FMA_PRIV_MASK_REG	0x80	/* privileged page only */

/* QW1: base offset, remote PE and offset interleaved (bits 5..0 unused) */
#define GEMINI_FMA_BASE_OFFSET_MASK	0x03ffffffffffffc0ull
#define GEMINI_FMA_ADDR_BITS		58

/* QW2 */
#define GEMINI_FMA_CMD_SHIFT		0
#define GEMINI_FMA_CMD_MASK		0x1full
#define GEMINI_FMA_REM_MDH_SHIFT	8
#define GEMINI_FMA_SRC_MDH_SHIFT	20
#define GEMINI_FMA_MDH_MASK		0xfffull
#define GEMINI_FMA_PE_MASK_MODE_SHIFT	32
#define GEMINI_FMA_PE_MASK_MODE_MASK	0x7ull
/*
 * Where the 18-bit PE field starts in a window address (QW1 base offset
 * plus the offset into the window), for PE mask modes 0 to 7; the offset
 * bits above it move down to close the gap.  An array initialiser:
 * static const unsigned int shift[8] = GEMINI_FMA_PE_SHIFTS;
 */
#define GEMINI_FMA_PE_SHIFT_MODE0	40
#define GEMINI_FMA_PE_SHIFTS \
	{ GEMINI_FMA_PE_SHIFT_MODE0, 35, 21, 12, 10, 9, 8, 6 }
#define GEMINI_FMA_MODE2_SHIFT		58
#define GEMINI_FMA_MODE2_MASK		0x3full
#define GEMINI_FMA_QW2_MASK		0xfc000007ffffff1full

/* mode2 bits (QW2 bits 63..58) */
#define GEMINI_FMA_MODE2_VMDH		0x01
#define GEMINI_FMA_MODE2_DT		0x02
#define GEMINI_FMA_MODE2_FMA_ENABLE	0x04
#define GEMINI_FMA_MODE2_RADP		0x08	/* response adaptive */
#define GEMINI_FMA_MODE2_ADP		0x10	/* request adaptive */
#define GEMINI_FMA_MODE2_HASH		0x20

/* QW3 */
#define GEMINI_FMA_NUM_PES_SHIFT	0
#define GEMINI_FMA_PE_BASE_SHIFT	18
#define GEMINI_FMA_NPES_MASK		0x3ffffull	/* num_pes and pe_base */
#define GEMINI_FMA_CQH_SHIFT		36
#define GEMINI_FMA_CQH_MASK		0x3ffull
#define GEMINI_FMA_SRC_PTAG_SHIFT	46
#define GEMINI_FMA_DEST_PTAG_SHIFT	54
#define GEMINI_FMA_PTAG_MASK		0xffull
#define GEMINI_FMA_MODE3_SHIFT		62
#define GEMINI_FMA_MODE3_NTT_ENABLE	0x1ull
#define GEMINI_FMA_QW3_MASK		0x7fffffffffffffffull	/* mode3 bit 1 undefined */

/* QW4: the status word */
#define GEMINI_FMA_STAT_WC_SHIFT	0	/* outstanding PUT-like requests */
#define GEMINI_FMA_STAT_RC_SHIFT	16	/* outstanding GET-like requests */
#define GEMINI_FMA_STAT_COUNT_MASK	0xffffull
#define GEMINI_FMA_STAT_SSID_SHIFT	32	/* SSIDs this descriptor holds */
#define GEMINI_FMA_STAT_SSID_MASK	0xffull
#define GEMINI_FMA_STAT_FLAGS_SHIFT	48
#define GEMINI_FMA_STAT_FLAGS_MASK	0x7ull
#define GEMINI_FMA_FLAG_SYNCID_ALLOC	0x1	/* no SSID could be had */
#define GEMINI_FMA_FLAG_NPES		0x2	/* NTT group violation */
#define GEMINI_FMA_FLAG_HT_REQ		0x4	/* a store was refused */

/* QW7: the value that allocates an SSID */
#define GEMINI_FMA_ALLOC_SYNCID_VALUE	0xffull

/* QW8: sync-complete */
#define GEMINI_FMA_SYNC_DATA_MASK	0x00ffffffffffffffull
#define GEMINI_FMA_SYNC_TYPE_SHIFT	56
#define GEMINI_FMA_SYNC_NO_EVENT	0x00
#define GEMINI_FMA_SYNC_LOCAL_EVENT	0x01
#define GEMINI_FMA_SYNC_REMOTE_EVENT	0x02
#define GEMINI_FMA_SYNC_WITH_FLAG	0x04
#define GEMINI_FMA_SYNC_TYPES		0x07

/* Commands (QW2 command, GCW cmd): the low 5 bits of the HAL's codes */
#define GEMINI_FMA_CMD_GET		0x00	/* GET window */
#define GEMINI_FMA_CMD_PUT		0x00	/* PUT window */
#define GEMINI_FMA_CMD_PUT_MSG		0x10	/* PUT window */
#define GEMINI_FMA_CMD_CACHED		0x10	/* AMO codes: cached variant */
#define GEMINI_FMA_CMD_AMO_MASK		0x0f	/* enum gemini_amo_op */

/* The privilege mask (+0x80 of the privileged page): 1 = user may write */
#define GEMINI_FMA_PRIV_CQWRITE		0x00001
#define GEMINI_FMA_PRIV_SYNCCMP		0x00002
#define GEMINI_FMA_PRIV_ALLOCSYNCID	0x00004
#define GEMINI_FMA_PRIV_SCRATCH1	0x00008
#define GEMINI_FMA_PRIV_SCRATCH0	0x00010
#define GEMINI_FMA_PRIV_NPES		0x00020
#define GEMINI_FMA_PRIV_PEBASE		0x00040
#define GEMINI_FMA_PRIV_CQHNDL		0x00080
#define GEMINI_FMA_PRIV_PTAG		0x00100	/* src_ptag and dest_ptag */
#define GEMINI_FMA_PRIV_NTTENABLE	0x00200
#define GEMINI_FMA_PRIV_VMDHENABLE	0x00400
#define GEMINI_FMA_PRIV_CMD		0x00800
#define GEMINI_FMA_PRIV_REMOTEMDH	0x01000
#define GEMINI_FMA_PRIV_SOURCEMDH	0x02000
#define GEMINI_FMA_PRIV_PEMASKMODE	0x04000
#define GEMINI_FMA_PRIV_FMAENABLE	0x08000	/* and DT_ENABLE (vgemini) */
#define GEMINI_FMA_PRIV_HARA		0x10000	/* hash, req/rsp adaptive */
#define GEMINI_FMA_PRIV_BASEOFFSET	0x20000
#define GEMINI_FMA_PRIV_ALL		0x3ffffull
/* Gemini's default: NPES, PE base, CQ handle, PTAG, NTT and FMA enable
 * are the kernel's. */
#define GEMINI_FMA_PRIV_DEFAULT		0x37c1full

/* --- GET control word: the 8-byte store into a GET window ------------- */

#define GEMINI_GCW_LOCAL_OFFSET_MASK	0xffffffffffull	/* bits 39..0 */
#define GEMINI_GCW_COUNT_SHIFT		48
#define GEMINI_GCW_COUNT_MASK		0xfull
#define GEMINI_GCW_GB			(1ull << 58)	/* ignored (vgemini) */
/*
 * vgemini: the GET reads from the store's window offset + 4.  A CPU cannot
 * store 8 bytes at an offset that is 4 mod 8 as one access (QEMU's TCG
 * splits it into bytes), so a GET of a 4-byte aligned remote address
 * stores its GCW at the 8-byte aligned offset below it with this bit.
 * Refused (MALFORMED) for AMOs and for a store that is not 8-aligned.
 */
#define GEMINI_GCW_REMOTE_PLUS4		(1ull << 52)
#define GEMINI_GCW_CMD_SHIFT		59
#define GEMINI_GCW_CMD_MASK		0x1full
/*
 * vgemini: count is the length of a GET in 4-byte words minus one, so a
 * GET moves 4..64 bytes, a multiple of 4 (Gemini's 4-byte granularity);
 * it is ignored for AMOs, which always fetch 8 bytes.
 */
#define GEMINI_GCW_GRAIN		4
#define GEMINI_GCW(cmd, count, local_offset) \
	((((unsigned long long)(cmd) & GEMINI_GCW_CMD_MASK) << \
	  GEMINI_GCW_CMD_SHIFT) | \
	 (((unsigned long long)(count) & GEMINI_GCW_COUNT_MASK) << \
	  GEMINI_GCW_COUNT_SHIFT) | \
	 ((unsigned long long)(local_offset) & GEMINI_GCW_LOCAL_OFFSET_MASK))
#define GEMINI_GCW_GET(len, local_offset) \
	GEMINI_GCW(GEMINI_FMA_CMD_GET, ((len) / GEMINI_GCW_GRAIN) - 1, \
		   (local_offset))

/* Alignment the FMA requires (GHAL_ADDR_ALIGNMENT and friends) */
#define GEMINI_FMA_GET_ALIGN		4	/* GET: remote, local, length */

/* --- BTE: block transfer engine ---------------------------------------- */

/*
 * The kernel queues block transfers on GEMINI_NUM_BTE_VC channels: a TX
 * descriptor (6 qwords in a 64-byte slot, GEMINI_NUM_BTE_TX slots) per
 * transfer, a ring of slots per channel (its base and count in the ring
 * registers), a CPU copy of the ring in node memory (cpu_ring_addr) where
 * the device writes each descriptor's status and flags back, and a write
 * index that the kernel advances.  RX descriptors (one qword each, with a
 * 4-qword CPU copy) receive SENDs.  Every BTE register is the kernel's.
 * Documentation/device.rst says what the device does with them.
 */
#define GEMINI_BTE_TX_DESC_BYTES	64
#define GEMINI_BTE_TX_DESC_QWORDS	6
#define GEMINI_MMR_BTE_TX_ENTRY(i)	(GEMINI_MMR_BTE_TX_DESC + \
					 ((unsigned long long)(i) << 6))

/* TX descriptor QW1 (byte 0) */
#define GEMINI_BTE_DEST_PE_SHIFT	0
#define GEMINI_BTE_DEST_PE_MASK		0x3ffffull
#define GEMINI_BTE_MODE1_SHIFT		52
#define GEMINI_BTE_MODE1_MASK		0xfffull
/* QW2 (byte 8) */
#define GEMINI_BTE_DEST_OFF_SHIFT	0
#define GEMINI_BTE_DEST_OFF_MASK	0xffffffffffull	/* 40 bits */
#define GEMINI_BTE_DEST_MDH_SHIFT	48
#define GEMINI_BTE_DEST_MDH_MASK	0xfffull
#define GEMINI_BTE_FLAGS_SHIFT		60	/* written back by the device */
#define GEMINI_BTE_FLAGS_MASK		0x3ull
#define GEMINI_BTE_MODE2_SHIFT		62
#define GEMINI_BTE_MODE2_MASK		0x3ull
/* QW3 (byte 16) */
#define GEMINI_BTE_SRC_CQ_SHIFT		0
#define GEMINI_BTE_SRC_CQ_MASK		0x3ffull
#define GEMINI_BTE_DEST_PTAG_SHIFT	16
#define GEMINI_BTE_DEST_PTAG_MASK	0xffull
#define GEMINI_BTE_SRC_PTAG_SHIFT	24
#define GEMINI_BTE_SRC_PTAG_MASK	0xffull
#define GEMINI_BTE_LEN_SHIFT		32
#define GEMINI_BTE_LEN_MASK		0xffffffffull
/* QW4 (byte 24): the source, by MDH and offset with NAT, else physical */
#define GEMINI_BTE_SRC_OFF_SHIFT	0
#define GEMINI_BTE_SRC_OFF_MASK		0xffffffffffull	/* 40 bits */
#define GEMINI_BTE_SRC_MDH_SHIFT	40
#define GEMINI_BTE_SRC_MDH_MASK		0xfffull
#define GEMINI_BTE_SRC_PHYS_SHIFT	0
#define GEMINI_BTE_SRC_PHYS_MASK	0xffffffffffffull	/* 48 bits */
#define GEMINI_BTE_MODE4_SHIFT		61
#define GEMINI_BTE_MODE4_MASK		0x7ull
/* QW5 (byte 32) */
#define GEMINI_BTE_SRC_CQ_DATA_SHIFT	0
#define GEMINI_BTE_SRC_CQ_DATA_MASK	0x00ffffffffffffffull	/* 56 bits */
#define GEMINI_BTE_STATUS_SHIFT		59	/* written back by the device */
#define GEMINI_BTE_STATUS_MASK		0xfull
/* QW6 (byte 40): user_data, 64 bits */

/* The bits of each qword that name a field; the others read 0 */
#define GEMINI_BTE_QW1_MASK		0xfff000000003ffffull
#define GEMINI_BTE_QW2_MASK		0xffff00ffffffffffull
#define GEMINI_BTE_QW3_MASK		0xffffffffffff03ffull
#define GEMINI_BTE_QW4_MASK		0xe00fffffffffffffull
#define GEMINI_BTE_QW5_MASK		0x78ffffffffffffffull
#define GEMINI_BTE_QW6_MASK		0xffffffffffffffffull

/* mode1: the operation (SEND 0, PUT, GET) and its options */
#define GEMINI_BTE_SEND			0x000
#define GEMINI_BTE_CONCATENATE		0x001
#define GEMINI_BTE_PUT			0x002
#define GEMINI_BTE_GET			0x004
#define GEMINI_BTE_IMMED		0x008	/* immediate data, remote event */
#define GEMINI_BTE_FENCE		0x010
#define GEMINI_BTE_CQ_LOCAL		0x020	/* event when processed */
#define GEMINI_BTE_CQ_GLOBAL		0x040	/* event when delivered */
#define GEMINI_BTE_DT_ENABLE		0x080
#define GEMINI_BTE_RADP_ENABLE		0x100	/* adaptive responses */
#define GEMINI_BTE_ADP_ENABLE		0x200	/* adaptive data */
#define GEMINI_BTE_HASH_ENABLE		0x400
#define GEMINI_BTE_VMDH_ENABLE		0x800
/* mode2 */
#define GEMINI_BTE_IRQ_ENABLE		0x1
#define GEMINI_BTE_IRQ_DELAY_ENABLE	0x2
/* mode4 */
#define GEMINI_BTE_COHERENT		0x1
#define GEMINI_BTE_NP_PASSPW		0x2
#define GEMINI_BTE_NAT_ENABLE		0x4
/* flags, in the CPU copy */
#define GEMINI_BTE_FLAG_COMPLETE	0x1
#define GEMINI_BTE_FLAG_TIMEOUT		0x2

/* TX completion status (QW5 bits 62..59) */
#define GEMINI_BTE_ST_OK		0x0
#define GEMINI_BTE_ST_UNCORRECTABLE	0x2
#define GEMINI_BTE_ST_INV_CMD		0x3
#define GEMINI_BTE_ST_TRANSLATION	0x5
#define GEMINI_BTE_ST_VMDH_INV		0x6
#define GEMINI_BTE_ST_MDD_INV		0x7
#define GEMINI_BTE_ST_PROTECTION	0x8
#define GEMINI_BTE_ST_BOUNDS		0x9
#define GEMINI_BTE_ST_TERMINATED	0xa	/* sequence terminated */
#define GEMINI_BTE_ST_TIMEOUT		0xb
#define GEMINI_BTE_ST_HT_DATA		0xd

/* TX channel descriptor: 4 qwords at a 64-byte pitch, one per VC */
#define GEMINI_BTE_CHAN_BYTES		64
#define GEMINI_BTE_CHAN_QWORDS		4
#define GEMINI_MMR_BTE_TX_CHAN_ENTRY(vc) (GEMINI_MMR_BTE_TX_CHAN + \
					  ((unsigned long long)(vc) << 6))
/* QW1 */
#define GEMINI_BTE_TXC_IDV_SHIFT	0	/* interrupt delay value */
#define GEMINI_BTE_TXC_IDV_MASK		0xffull
#define GEMINI_BTE_TXC_IRQ_SHIFT	8	/* irq_req_index */
#define GEMINI_BTE_TXC_IRQ_MASK		0x1full
#define GEMINI_BTE_TXC_TIMEOUT_SHIFT	32
#define GEMINI_BTE_TXC_TIMEOUT_MASK	0x7ffffull
#define GEMINI_BTE_TXC_FLAGS_SHIFT	61
#define GEMINI_BTE_TXC_FLAGS_MASK	0x7ull
#define GEMINI_BTE_TXC_RESET		0x1
#define GEMINI_BTE_TXC_ENABLE		0x2
#define GEMINI_BTE_TXC_IRQ_ENABLE	0x4
#define GEMINI_BTE_TXC_QW1_MASK		0xe007ffff00001fffull
/* QW2: the CPU copy of the ring, 64-byte aligned */
#define GEMINI_BTE_CPU_RING_MASK	0x0000ffffffffffc0ull
/* QW3 */
#define GEMINI_BTE_TXC_RD_SHIFT		0	/* read_index, the device's */
#define GEMINI_BTE_TXC_RD_MASK		0xffffull
#define GEMINI_BTE_TXC_INUSE_SHIFT	32	/* ssid_in_use, the device's */
#define GEMINI_BTE_TXC_INUSE_MASK	0x1ffull
#define GEMINI_BTE_TXC_SSID_MAX_SHIFT	48	/* ssid_max_num */
#define GEMINI_BTE_TXC_SSID_MAX_MASK	0x3ffull
#define GEMINI_BTE_TXC_QW3_MASK		0x03ff01ff0000ffffull
/* QW4: write_index, the kernel's */
#define GEMINI_BTE_WR_INDEX_MASK	0xffffull

/* Ring base and count registers: one u16 per VC, VC v at bits 16v+15..16v */
#define GEMINI_BTE_RING_FIELD(vc)	(16 * (vc))

/*
 * Non-posted operation control, one qword per VC: max_get_request 768,
 * get_quiesce_count 512, get_delay 5, max_ht_np_request 32,
 * ht_np_quiesce_count 24, ht_np_delay 5 after a reset.
 */
#define GEMINI_BTE_NP_MAX_GET_SHIFT	0
#define GEMINI_BTE_NP_MAX_GET_MASK	0x7ffull
#define GEMINI_BTE_NP_CTRL_MASK		0x80ffffffff3fffffull
#define GEMINI_BTE_NP_CTRL_DEFAULT	0x0005182005100300ull

/* RX descriptor, NIC side: one qword each */
#define GEMINI_MMR_BTE_RX_ENTRY(i)	(GEMINI_MMR_BTE_RX_DESC + \
					 ((unsigned long long)(i) << 3))
#define GEMINI_BTE_RX_ADDR_MASK		0xffffffffffffull	/* 48 bits */
#define GEMINI_BTE_RX_MODE_SHIFT	48
#define GEMINI_BTE_RX_PASSPW		0x0001
#define GEMINI_BTE_RX_COHERENT		0x0002
#define GEMINI_BTE_RX_IRQ_DELAY_ENABLE	0x4000
#define GEMINI_BTE_RX_IRQ_ENABLE	0x8000
/* RX descriptor, CPU copy: 4 qwords */
#define GEMINI_BTE_RX_COPY_BYTES	32
#define GEMINI_BTE_RXCPY_FLAGS_MASK	0x1ffull	/* QW2 bits 8..0 */
#define GEMINI_BTE_RXCPY_LEN_SHIFT	32		/* QW2 bits 63..32 */
#define GEMINI_BTE_RX_FLAG_COMPLETE	0x001
#define GEMINI_BTE_RX_FLAG_IMM		0x002
#define GEMINI_BTE_RX_ERR_LOC_SHIFT	2
#define GEMINI_BTE_RX_ERR_LOC_MASK	0x7ull
#define GEMINI_BTE_RX_ERR_STATUS_SHIFT	5
#define GEMINI_BTE_RX_ERR_STATUS_MASK	0xfull
/*
 * QW4, unused on Gemini, is vgemini's: the PE the message came from, as the
 * network saw it (the packet's source node and NIC, not what the sender
 * wrote in the message), with SRC_VALID set.
 */
#define GEMINI_BTE_RXCPY_SRC_VALID	(1ull << 63)

/* RX channel descriptor: 4 qwords at a 64-byte pitch, one per VC */
#define GEMINI_MMR_BTE_RX_CHAN_ENTRY(vc) (GEMINI_MMR_BTE_RX_CHAN + \
					  ((unsigned long long)(vc) << 6))
/* QW1 */
#define GEMINI_BTE_RXC_BUF_SIZE_MASK	0xffffffffull
#define GEMINI_BTE_RXC_IDV_SHIFT	32
#define GEMINI_BTE_RXC_IRQ_SHIFT	55	/* irq_req_index */
#define GEMINI_BTE_RXC_IRQ_MASK		0x1full
#define GEMINI_BTE_RXC_FLAGS_SHIFT	60
#define GEMINI_BTE_RXC_FLAGS_MASK	0xfull
#define GEMINI_BTE_RXC_OVRPROTECT	0x1
#define GEMINI_BTE_RXC_RESET		0x2
#define GEMINI_BTE_RXC_ENABLE		0x4
#define GEMINI_BTE_RXC_IRQ_ENABLE	0x8
#define GEMINI_BTE_RXC_QW1_MASK		0xff8000ffffffffffull
/* QW2: cpu_ring_addr (GEMINI_BTE_CPU_RING_MASK); QW3 */
#define GEMINI_BTE_RXC_RD_MASK		0xffffull	/* read_index, the device's */
#define GEMINI_BTE_RXC_RMT_SHIFT	32		/* rmt_entries */
#define GEMINI_BTE_RXC_RMT_MASK		0x3ffull
#define GEMINI_BTE_RXC_QW3_MASK		0x000003ff0000ffffull
/* QW4: write_index (GEMINI_BTE_WR_INDEX_MASK) */

/* --- Alignment of AMO targets ------------------------------------------- */

#define GEMINI_AMO_ALIGN		8
#define GEMINI_AMO_AX_ALIGN		16	/* GHAL_AAX_ALIGNMENT */

#endif /* VGEMINI_GEMINI_NIC_H */
