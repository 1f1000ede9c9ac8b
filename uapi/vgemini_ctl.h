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
#define VGEMINI_CTL_VERSION_VALUE	1u

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

enum vgemini_port_state {
	VGEMINI_PORT_UNUSED = 0,	/* no link attached to this port */
	VGEMINI_PORT_DOWN = 1,		/* attached, no live neighbour */
	VGEMINI_PORT_UP = 2,		/* neighbour answered and is alive */
	VGEMINI_PORT_MISWIRED = 3,	/* neighbour alive but not the expected one */
};

#define VGEMINI_PEER_NONE		0xffffffffu

#endif /* VGEMINI_CTL_H */
