/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Cray Gemini hardware facts shared by the cray-gemini device model, the
 * kgni driver and libugni: identity, resource counts and the NIC address
 * window.  Values follow the Gemini hardware description; where the
 * emulation had to choose (BAR placement), the choice is marked "vgemini".
 */
#ifndef VGEMINI_GEMINI_HW_H
#define VGEMINI_GEMINI_HW_H

/* Identity */
#define GEMINI_PCI_VENDOR_ID		0x17db	/* PCI_VENDOR_ID_CRAY */
#define GEMINI_PCI_DEVICE_ID		0x0201	/* PCI_DEVICE_ID_CRAY_GEMINI_1 */
#define GEMINI_PCI_REVISION		0x01	/* vgemini: first emulated revision */
#define GEMINI_PCI_CLASS		0x0280	/* network controller, other */

/*
 * A PE (NIC address) is 18 bits: the 16-bit Gemini id and the 2-bit NIC id
 * of the NIC on that Gemini.  vgemini has one NIC per node, NIC id 0, and
 * numbers Geminis by torus coordinates: id = x + X * (y + Y * z).
 */
#define GEMINI_PE_BITS			18
#define GEMINI_PE_MASK			0x3ffffu
#define GEMINI_NIC_ID_BITS		2
#define GEMINI_NIC_ID_MASK		0x3u
#define GEMINI_ID_MASK			0xffffu
#define GEMINI_MAX_NODES		65536u
#define GEMINI_PE(gemini_id, nic_id) \
	((((gemini_id) & GEMINI_ID_MASK) << GEMINI_NIC_ID_BITS) | \
	 ((nic_id) & GEMINI_NIC_ID_MASK))
#define GEMINI_PE_GEMINI_ID(pe)		(((pe) >> GEMINI_NIC_ID_BITS) & GEMINI_ID_MASK)
#define GEMINI_PE_NIC_ID(pe)		((pe) & GEMINI_NIC_ID_MASK)

/**
 * enum gemini_port - the router's six torus ports
 * @GEMINI_PORT_XP: X+
 * @GEMINI_PORT_XM: X-
 * @GEMINI_PORT_YP: Y+
 * @GEMINI_PORT_YM: Y-
 * @GEMINI_PORT_ZP: Z+
 * @GEMINI_PORT_ZM: Z-
 * @GEMINI_NUM_TORUS_PORTS: the number of torus ports
 *
 * In this order everywhere in vgemini.
 */
enum gemini_port {
	GEMINI_PORT_XP = 0,
	GEMINI_PORT_XM = 1,
	GEMINI_PORT_YP = 2,
	GEMINI_PORT_YM = 3,
	GEMINI_PORT_ZP = 4,
	GEMINI_PORT_ZM = 5,
	GEMINI_NUM_TORUS_PORTS = 6,
};
#define GEMINI_PORT_DIM(port)		((port) >> 1)	/* 0 = X, 1 = Y, 2 = Z */
#define GEMINI_PORT_IS_MINUS(port)	((port) & 1)

/* Resource counts */
#define GEMINI_NUM_CQ			1024
#define GEMINI_NUM_FMA			64
#define GEMINI_NUM_FMA_OS		4
#define GEMINI_NUM_BTE_TX		1023
#define GEMINI_NUM_BTE_RX		1024
#define GEMINI_NUM_BTE_VC		4
#define GEMINI_NUM_MDD			4096
#define GEMINI_NUM_MRT			16384
#define GEMINI_NUM_NTT			8192
#define GEMINI_NUM_VMDH			256
#define GEMINI_NUM_PTAG			256
#define GEMINI_NUM_ORB			1024
#define GEMINI_NUM_SSID			255

/* In-band interrupts: Gemini IRQ index 21 + n is MSI-X vector n. */
#define GEMINI_IRQ_FIRST		21
#define GEMINI_NUM_IRQ			32

/*
 * PCI BARs (vgemini).  BAR0 is the emulation's control block (see
 * vgemini_ctl.h).  BAR2 is Gemini's NIC address window, 1:1 with the
 * hardware map below.  BAR4 holds the MSI-X table and PBA.
 */
#define GEMINI_BAR_CTL			0
#define GEMINI_BAR_CTL_SIZE		0x10000ull
#define GEMINI_BAR_NIC			2
#define GEMINI_BAR_NIC_SIZE		0x4000000000ull	/* 256 GiB */
#define GEMINI_BAR_MSIX			4

/* NIC address window (offsets from the start of BAR2) */
#define GEMINI_LOCAL_BLOCK		0x0000000000ull
#define GEMINI_LOCAL_BLOCK_SIZE		0x0006100000ull
#define GEMINI_CQ_USER_ALIAS		0x0800000000ull
#define GEMINI_FMA_USER_ALIAS		0x0800400000ull
#define GEMINI_FMA_PRIV			0x0800480000ull
#define GEMINI_OS_FMA_PUT_WC		0x0d00000000ull
#define GEMINI_OS_FMA_GET		0x0e00000000ull
#define GEMINI_OS_FMA_PUT_UC		0x0f00000000ull
#define GEMINI_FMA_PUT_WC		0x1000000000ull
#define GEMINI_FMA_GET			0x2000000000ull
#define GEMINI_FMA_PUT_UC		0x3000000000ull
#define GEMINI_FMA_WINDOW_SIZE		0x0040000000ull	/* 1 GiB each */
#define GEMINI_FMA_CTRL_SIZE		0x1000ull

/* NIC MMRs inside the local block */
#define GEMINI_MMR_TILE_BASE		0x2000000ull
#define GEMINI_MMR_NTT0			0x2100000ull
#define GEMINI_MMR_NTT1			0x2110000ull
#define GEMINI_MMR_NL_NODE_ID		0x2120000ull	/* Gemini id of this node */
#define GEMINI_MMR_NTT_CONFIG		0x2120008ull
#define GEMINI_MMR_NL_PARAMS		0x2120010ull
#define GEMINI_MMR_BTE_TX_DESC		0x4000000ull
#define GEMINI_MMR_BTE_TX_CHAN		0x4020000ull	/* 64 bytes per VC */
#define GEMINI_MMR_BTE_TX_RING_BASE	0x4040050ull	/* four u16, by VC */
#define GEMINI_MMR_BTE_TX_RING_COUNT	0x4040058ull	/* four u16, by VC */
#define GEMINI_MMR_BTE_NP_CTRL		0x40400e0ull	/* 8 bytes per VC */
#define GEMINI_MMR_MRT			0x4400000ull
#define GEMINI_MMR_MDD			0x4410000ull
#define GEMINI_MMR_MRT_PAGE_SIZE	0x4420400ull
#define GEMINI_MMR_CQ_DESC		0x4800000ull
#define GEMINI_MMR_BTE_RX_DESC		0x4c00000ull
#define GEMINI_MMR_BTE_RX_CHAN		0x4c02000ull	/* 64 bytes per VC */
#define GEMINI_MMR_BTE_RX_RING_BASE	0x4c04060ull	/* four u16, by VC */
#define GEMINI_MMR_BTE_RX_RING_COUNT	0x4c04068ull	/* four u16, by VC */
#define GEMINI_MMR_ORB			0x5000000ull
#define GEMINI_MMR_SSID			0x5600000ull
#define GEMINI_MMR_RAT			0x5980000ull

#endif /* VGEMINI_GEMINI_HW_H */
