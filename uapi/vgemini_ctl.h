/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The vgemini control block: BAR0 of the cray-gemini device.
 *
 * Real Gemini learned its place in the torus from the hardware supervisor
 * and the HT configuration space; vgemini gives the driver one small block
 * with the node's identity, its torus place, the state of each router port
 * and test registers that the driver exercises at probe (in the manner of
 * rocker's test registers).  All registers are little-endian and accept
 * 4- and 8-byte aligned accesses; 64-bit registers may be accessed as two
 * 4-byte halves.  Reads of unknown offsets return 0 and writes to them or to
 * read-only registers are ignored (and traced).
 */
#ifndef VGEMINI_CTL_H
#define VGEMINI_CTL_H

#define VGEMINI_CTL_MAGIC_VALUE		0x4d454756u	/* "VGEM" */
#define VGEMINI_CTL_VERSION_VALUE	3u

/* Identity and place (read-only, 32-bit) */
#define VGEMINI_CTL_MAGIC		0x000
#define VGEMINI_CTL_VERSION		0x004	/* layout version of this block */
#define VGEMINI_CTL_NODE_PE		0x008	/* 18-bit PE of this NIC */
#define VGEMINI_CTL_COORD		0x00c	/* x [7:0], y [15:8], z [23:16] */
#define VGEMINI_CTL_DIMS		0x010	/* X [7:0], Y [15:8], Z [23:16] */
#define VGEMINI_CTL_NUM_PORTS		0x014	/* torus ports: 6 */
#define VGEMINI_CTL_NUM_VECTORS		0x018	/* MSI-X vectors */

#define VGEMINI_COORD_X(v)		((v) & 0xff)
#define VGEMINI_COORD_Y(v)		(((v) >> 8) & 0xff)
#define VGEMINI_COORD_Z(v)		(((v) >> 16) & 0xff)
#define VGEMINI_COORD(x, y, z)		(((x) & 0xff) | (((y) & 0xff) << 8) | \
					 (((z) & 0xff) << 16))
#define VGEMINI_MAX_DIM			255

/* Test registers */
#define VGEMINI_CTL_SCRATCH		0x020	/* RW 64: no effect */
#define VGEMINI_CTL_IRQ_RAISE		0x028	/* WO 32: raise MSI-X vector n */
#define VGEMINI_CTL_DMA_ADDR		0x030	/* RW 64: source/target address */
#define VGEMINI_CTL_DMA_DST		0x038	/* RW 64: COPY destination */
#define VGEMINI_CTL_DMA_LEN		0x040	/* RW 32: bytes, <= DMA_MAX_LEN */
#define VGEMINI_CTL_DMA_PATTERN		0x044	/* RW 32: FILL byte (low 8 bits) */
#define VGEMINI_CTL_DMA_CMD		0x048	/* WO 32: start a test DMA */
#define VGEMINI_CTL_DMA_STATUS		0x04c	/* RO 32: result of the last one */
#define VGEMINI_CTL_DMA_IRQ		0x050	/* RW 32: vector on completion */

#define VGEMINI_DMA_MAX_LEN		0x10000u
#define VGEMINI_IRQ_NONE		0xffffffffu

/* DMA_CMD values */
#define VGEMINI_DMA_CMD_FILL		1	/* write PATTERN to [ADDR, ADDR+LEN) */
#define VGEMINI_DMA_CMD_COPY		2	/* copy [ADDR..) to [DST..) */
#define VGEMINI_DMA_CMD_INVERT		3	/* invert each byte of [ADDR..) */

/* DMA_STATUS values */
#define VGEMINI_DMA_IDLE		0
#define VGEMINI_DMA_DONE		1
#define VGEMINI_DMA_ERR_LEN		2	/* LEN is 0 or over DMA_MAX_LEN */
#define VGEMINI_DMA_ERR_CMD		3	/* unknown command */
#define VGEMINI_DMA_ERR_BUS		4	/* the bus refused an access */

/* Port state change interrupt: vector, or VGEMINI_IRQ_NONE (reset value) */
#define VGEMINI_CTL_LINK_IRQ		0x058	/* RW 32 */

/*
 * Router ports: one 16-byte block each, in enum gemini_port order, at
 * PORT_BASE + port * PORT_STRIDE.
 */
#define VGEMINI_CTL_PORT_BASE		0x100
#define VGEMINI_CTL_PORT_STRIDE		0x10
#define VGEMINI_CTL_PORT(port)		(VGEMINI_CTL_PORT_BASE + \
					 (port) * VGEMINI_CTL_PORT_STRIDE)
#define VGEMINI_PORT_STATE		0x0	/* RO 32: enum vgemini_port_state */
#define VGEMINI_PORT_PEER		0x4	/* RO 32: PE learnt by handshake */
#define VGEMINI_PORT_EXPECTED		0x8	/* RO 32: PE the topology expects */
#define VGEMINI_PORT_CHANGES		0xc	/* RO 32: state changes since reset */

/**
 * enum vgemini_port_state - a router port's state (VGEMINI_PORT_STATE)
 * @VGEMINI_PORT_UNUSED: no link attached to this port
 * @VGEMINI_PORT_DOWN: attached, no live neighbour
 * @VGEMINI_PORT_UP: neighbour answered and is alive
 * @VGEMINI_PORT_MISWIRED: neighbour alive but not the expected one
 */
enum vgemini_port_state {
	VGEMINI_PORT_UNUSED = 0,
	VGEMINI_PORT_DOWN = 1,
	VGEMINI_PORT_UP = 2,
	VGEMINI_PORT_MISWIRED = 3,
};

#define VGEMINI_PEER_NONE		0xffffffffu

/*
 * Fabric state (read-only).  The supervisor loads routing tables through
 * QMP; until then the router forwards nothing.
 */
#define VGEMINI_CTL_ROUTE_GEN		0x060	/* RO 32: table generation, 0 = none */
#define VGEMINI_CTL_FABRIC_STATE	0x064	/* RO 32: enum vgemini_fabric_state */
/*
 * RO 32: routing tables loaded, quiesces and resumes since the device
 * started (a reset keeps it, as it keeps the table); each raises LINK_IRQ
 */
#define VGEMINI_CTL_FABRIC_CHANGES	0x068

/*
 * Reachability (read-only, since version 3): bit n % 32 of word n / 32 is
 * set while the loaded routing table has a route from this NIC to node n
 * (this node included); all clear without a table.  The supervisor routes
 * no packet towards a node it cannot reach, so a node whose links are all
 * down reads clear everywhere once the tables avoiding it are loaded.
 */
#define VGEMINI_CTL_REACH		0x2000	/* RO 32 x VGEMINI_CTL_REACH_WORDS */
#define VGEMINI_CTL_REACH_WORDS		2048	/* GEMINI_MAX_NODES / 32 */

/**
 * enum vgemini_fabric_state - the router's state (VGEMINI_CTL_FABRIC_STATE)
 * @VGEMINI_FABRIC_NO_TABLE: no routing table loaded
 * @VGEMINI_FABRIC_RUNNING: a table is loaded and the router forwards
 * @VGEMINI_FABRIC_QUIESCED: the supervisor holds all traffic
 */
enum vgemini_fabric_state {
	VGEMINI_FABRIC_NO_TABLE = 0,
	VGEMINI_FABRIC_RUNNING = 1,
	VGEMINI_FABRIC_QUIESCED = 2,
};

/*
 * Diagnostic ping: the fabric's own request/response exchange with any
 * node, recording the path it takes (Documentation/fabric.rst).  Write
 * DEST and LEN, then DIAG_CMD_PING to CMD; STATUS reads PENDING until the
 * response comes back or VGEMINI_DIAG_TIMEOUT_MS pass.  The result stays
 * until the next ping.  A CMD while a ping is pending is ignored (and
 * logged as a guest error); the pending ping goes on.
 */
#define VGEMINI_CTL_DIAG_DEST		0x070	/* RW 32: destination Gemini id */
#define VGEMINI_CTL_DIAG_LEN		0x074	/* RW 32: payload bytes 0..64 */
#define VGEMINI_CTL_DIAG_CMD		0x078	/* WO 32: VGEMINI_DIAG_CMD_PING */
#define VGEMINI_CTL_DIAG_STATUS		0x07c	/* RO 32: enum vgemini_diag_status */
#define VGEMINI_CTL_DIAG_HOPS		0x080	/* RO 32: request [7:0], response [15:8] */
#define VGEMINI_CTL_DIAG_RTT_NS		0x084	/* RO 32: round trip, ns (saturates) */
#define VGEMINI_CTL_DIAG_IRQ		0x088	/* RW 32: vector on completion */
#define VGEMINI_CTL_DIAG_SEQ		0x08c	/* RO 32: pings started since reset */
/* Records in DIAG_TRACE: as many as the hops, if LEN had room for them. */
#define VGEMINI_CTL_DIAG_NTRACE		0x090	/* RO 32: 0..VGEMINI_DIAG_MAX_TRACE */
/* Path records, request path first then response path: one per link. */
#define VGEMINI_CTL_DIAG_TRACE		0x0c0	/* RO 32 x VGEMINI_DIAG_MAX_TRACE */
#define VGEMINI_DIAG_MAX_TRACE		15

#define VGEMINI_DIAG_CMD_PING		1
#define VGEMINI_DIAG_TIMEOUT_MS		2000u

/**
 * enum vgemini_diag_status - state or result of the last diagnostic ping
 * @VGEMINI_DIAG_IDLE: no ping since reset
 * @VGEMINI_DIAG_PENDING: a ping is in flight
 * @VGEMINI_DIAG_DONE: the response came back
 * @VGEMINI_DIAG_ERR_TIMEOUT: no response in time: lost or unreachable
 * @VGEMINI_DIAG_ERR_DEST: no such node in this torus
 * @VGEMINI_DIAG_ERR_LEN: LEN over 64
 * @VGEMINI_DIAG_ERR_BUSY: no room to inject the request
 * @VGEMINI_DIAG_ERR_NO_ROUTE: no routing table, or the table has no route
 */
enum vgemini_diag_status {
	VGEMINI_DIAG_IDLE = 0,
	VGEMINI_DIAG_PENDING = 1,
	VGEMINI_DIAG_DONE = 2,
	VGEMINI_DIAG_ERR_TIMEOUT = 3,
	VGEMINI_DIAG_ERR_DEST = 4,
	VGEMINI_DIAG_ERR_LEN = 5,
	VGEMINI_DIAG_ERR_BUSY = 6,
	VGEMINI_DIAG_ERR_NO_ROUTE = 7,
};

/* DIAG_HOPS fields */
#define VGEMINI_DIAG_HOPS_REQ(v)	((v) & 0xff)
#define VGEMINI_DIAG_HOPS_RSP(v)	(((v) >> 8) & 0xff)
/* Path records a payload of @len bytes has room for (4-byte header). */
#define VGEMINI_DIAG_TRACE_ROOM(len)	((len) >= 4 ? ((len) - 4) / 4 : 0)

/* A path record: the router a packet left and through which port. */
#define VGEMINI_TRACE_NODE_MASK		0xffffu		/* Gemini id */
#define VGEMINI_TRACE_OUT_SHIFT		16		/* enum gemini_port */
#define VGEMINI_TRACE_IN_SHIFT		20		/* port, 6 = NIC */
#define VGEMINI_TRACE_PORT_MASK		0xfu
#define VGEMINI_TRACE_CLASS_SHIFT	24		/* dateline class */
#define VGEMINI_TRACE_RSP_SHIFT		25		/* response path */
#define VGEMINI_TRACE_NODE(r)		((r) & VGEMINI_TRACE_NODE_MASK)
#define VGEMINI_TRACE_OUT(r) \
	(((r) >> VGEMINI_TRACE_OUT_SHIFT) & VGEMINI_TRACE_PORT_MASK)
#define VGEMINI_TRACE_IN(r) \
	(((r) >> VGEMINI_TRACE_IN_SHIFT) & VGEMINI_TRACE_PORT_MASK)
#define VGEMINI_TRACE_CLASS(r)		(((r) >> VGEMINI_TRACE_CLASS_SHIFT) & 0x1)
#define VGEMINI_TRACE_RSP(r)		(((r) >> VGEMINI_TRACE_RSP_SHIFT) & 0x1)
/* The record of router @node sending through @out what came in on @in. */
#define VGEMINI_TRACE_RECORD(node, out, in, vclass, rsp) \
	((uint32_t)((node) & VGEMINI_TRACE_NODE_MASK) | \
	 (uint32_t)((out) & VGEMINI_TRACE_PORT_MASK) << VGEMINI_TRACE_OUT_SHIFT | \
	 (uint32_t)((in) & VGEMINI_TRACE_PORT_MASK) << VGEMINI_TRACE_IN_SHIFT | \
	 (uint32_t)((vclass) & 1) << VGEMINI_TRACE_CLASS_SHIFT | \
	 (uint32_t)((rsp) & 1) << VGEMINI_TRACE_RSP_SHIFT)

/*
 * GART: the page table that, on a Cray XE, the Opteron's GART provided to
 * translate Gemini's addresses 4 KiB at a time.  vgemini models it in the
 * device: a table of GART_ENTRIES 8-byte little-endian entries in node
 * memory at GART_BASE.  An MDD without mrt_enable whose domain addresses
 * are at or above VGEMINI_GART_APERTURE goes through it: domain address a
 * is in the page of entry (a - VGEMINI_GART_APERTURE) >> 12, at the same
 * offset in that page.  An index at or past GART_ENTRIES, an entry the
 * bus refuses to read or an entry without VALID is a translation error.
 * The device reads the entries from memory on every request: no cache to
 * flush.  GART_BASE keeps bits 51..12 of what is written (the others read
 * 0); a write of ENTRIES above VGEMINI_GART_MAX_ENTRIES keeps the maximum
 * (and is a guest error).  Both reset to 0: GART off.
 */
#define VGEMINI_CTL_GART_BASE		0x098	/* RW 64: table address */
#define VGEMINI_CTL_GART_ENTRIES	0x0a0	/* RW 32: entries, 0 = off */

/*
 * Balanced injection: how many FMA requests the NIC keeps in flight (sent,
 * not yet answered) at most; the others wait in the ORB, in order, and
 * go as answers come.  0 (reset): no limit but the ORB's size.  A write
 * above the ORB's size keeps 0.  kgni sets it from uGNI's
 * GNI_SetBIConfig (Documentation/device.rst, "Balanced injection").
 */
#define VGEMINI_CTL_ORB_LIMIT		0x0a4	/* RW 32: requests in flight */

#define VGEMINI_GART_BASE_MASK		0x000ffffffffff000ull	/* 4 KiB aligned */
#define VGEMINI_GART_MAX_ENTRIES	(1u << 20)
#define VGEMINI_GART_APERTURE		(1ull << 47)
#define VGEMINI_GART_PAGE_SHIFT		12
#define VGEMINI_GART_PAGE_SIZE		(1ull << VGEMINI_GART_PAGE_SHIFT)
#define VGEMINI_GART_ENTRY_BYTES	8

/* An entry: the page's node-physical address in bits 51..12, VALID bit 0 */
#define VGEMINI_GART_VALID		0x1ull
#define VGEMINI_GART_ADDR_MASK		0x000ffffffffff000ull
#define VGEMINI_GART_ENTRY(phys)	(((unsigned long long)(phys) & \
					  VGEMINI_GART_ADDR_MASK) | \
					 VGEMINI_GART_VALID)
/* Domain address of the first byte of entry @idx's page */
#define VGEMINI_GART_ADDR(idx)		(VGEMINI_GART_APERTURE + \
					 ((unsigned long long)(idx) << \
					  VGEMINI_GART_PAGE_SHIFT))

/*
 * Counters (read-only, 64-bit, readable as two 32-bit halves, low first).
 * Router port p's block is at COUNTERS + p * COUNTER_STRIDE; the NIC's
 * block follows the six ports.  Phits and packets are counted on input,
 * as Gemini's tile counters are: traffic that leaves through X+ shows in
 * the X- counters of the neighbour.
 */
#define VGEMINI_CTL_COUNTERS		0x400
#define VGEMINI_CTL_COUNTER_STRIDE	0x80
#define VGEMINI_CTL_COUNTER(blk, idx)	(VGEMINI_CTL_COUNTERS + \
					 (blk) * VGEMINI_CTL_COUNTER_STRIDE + \
					 (idx) * 8)
#define VGEMINI_COUNTER_BLK_NIC		6
#define VGEMINI_COUNTER_BLOCKS		7
#define VGEMINI_COUNTERS_PER_BLK	16

/**
 * enum vgemini_port_counter - the counters of a router port's block
 * @VGEMINI_PC_VC0_PHITS: request-VC phits received
 * @VGEMINI_PC_VC1_PHITS: response-VC phits received
 * @VGEMINI_PC_VC0_PKTS: request-VC packets received
 * @VGEMINI_PC_VC1_PKTS: response-VC packets received
 * @VGEMINI_PC_INQ_STALL: 800 MHz cycles an input waited for an output
 * @VGEMINI_PC_CREDIT_STALL: 800 MHz cycles an output waited for credits
 * @VGEMINI_PC_RETRY: packets this port sent again (link retry)
 * @VGEMINI_PC_CRC_ERR: packets received with a bad CRC
 * @VGEMINI_PC_SEQ_ERR: gaps seen: packets lost on the way in
 * @VGEMINI_PC_NAK: retransmission requests sent
 * @VGEMINI_PC_FAULTS: packets this port's fault injector hit
 * @VGEMINI_PC_DOWN_DROP: packets dropped: this port down
 * @VGEMINI_PC_TX_PKTS: packets sent (first transmissions)
 * @VGEMINI_PC_NUM: the number of port counters
 *
 * The six static tile counters come first, in Gemini's order.
 */
enum vgemini_port_counter {
	VGEMINI_PC_VC0_PHITS = 0,
	VGEMINI_PC_VC1_PHITS = 1,
	VGEMINI_PC_VC0_PKTS = 2,
	VGEMINI_PC_VC1_PKTS = 3,
	VGEMINI_PC_INQ_STALL = 4,
	VGEMINI_PC_CREDIT_STALL = 5,
	VGEMINI_PC_RETRY = 6,
	VGEMINI_PC_CRC_ERR = 7,
	VGEMINI_PC_SEQ_ERR = 8,
	VGEMINI_PC_NAK = 9,
	VGEMINI_PC_FAULTS = 10,
	VGEMINI_PC_DOWN_DROP = 11,
	VGEMINI_PC_TX_PKTS = 12,
	VGEMINI_PC_NUM = 13,
};

/**
 * enum vgemini_nic_counter - the counters of the NIC's block
 * @VGEMINI_NC_REQ_PKTS_OUT: request packets the NIC injected
 * @VGEMINI_NC_REQ_PHITS_OUT: their phits
 * @VGEMINI_NC_RSP_PKTS_OUT: response packets the NIC injected
 * @VGEMINI_NC_RSP_PHITS_OUT: their phits
 * @VGEMINI_NC_REQ_PKTS_IN: request packets delivered to the NIC
 * @VGEMINI_NC_RSP_PKTS_IN: response packets delivered to the NIC
 * @VGEMINI_NC_NO_ROUTE: packets this router dropped: no route
 * @VGEMINI_NC_MALFORMED: packets dropped: malformed (after CRC)
 * @VGEMINI_NC_STALE_RSP: responses matching no outstanding request
 * @VGEMINI_NC_DIAG_PINGS: diagnostic requests answered
 * @VGEMINI_NC_DIAG_TIMEOUTS: diagnostic requests timed out
 * @VGEMINI_NC_FMA_PUT_PKTS: PUT request packets the FMA injected
 * @VGEMINI_NC_FMA_GET_PKTS: GET request packets the FMA injected
 * @VGEMINI_NC_FMA_AMO_PKTS: AMO request packets the FMA injected
 * @VGEMINI_NC_BTE_PUT_PKTS: PUT (and SEND) request packets the BTE injected
 * @VGEMINI_NC_BTE_GET_PKTS: GET request packets the BTE injected
 * @VGEMINI_NC_NUM: the number of NIC counters
 */
enum vgemini_nic_counter {
	VGEMINI_NC_REQ_PKTS_OUT = 0,
	VGEMINI_NC_REQ_PHITS_OUT = 1,
	VGEMINI_NC_RSP_PKTS_OUT = 2,
	VGEMINI_NC_RSP_PHITS_OUT = 3,
	VGEMINI_NC_REQ_PKTS_IN = 4,
	VGEMINI_NC_RSP_PKTS_IN = 5,
	VGEMINI_NC_NO_ROUTE = 6,
	VGEMINI_NC_MALFORMED = 7,
	VGEMINI_NC_STALE_RSP = 8,
	VGEMINI_NC_DIAG_PINGS = 9,
	VGEMINI_NC_DIAG_TIMEOUTS = 10,
	VGEMINI_NC_FMA_PUT_PKTS = 11,
	VGEMINI_NC_FMA_GET_PKTS = 12,
	VGEMINI_NC_FMA_AMO_PKTS = 13,
	VGEMINI_NC_BTE_PUT_PKTS = 14,
	VGEMINI_NC_BTE_GET_PKTS = 15,
	VGEMINI_NC_NUM = 16,
};

#endif /* VGEMINI_CTL_H */
