/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The Gemini network packet as vgemini puts it on a link.
 *
 * A packet is a run of 24-bit phits.  On a link and in memory each phit is
 * 3 bytes, least significant byte first, phit 0 first; bit n below is bit n
 * of the 24-bit phit value.  Positions marked (spec) follow the Gemini
 * field positions derived from the GPCD tile-filter masks; the others are
 * vgemini's choice.  Every bit marked "0" is reserved: the encoder writes
 * zero and the decoder rejects a packet where it is not.
 *
 * Gemini moves data in 64-byte packets described by a 16-bit word mask;
 * the emulation moves byte ranges instead, so a request carries a 40-bit
 * byte address and a byte length (1..64) where Gemini had the mask.
 *
 * Request header (request VC), 7 phits:
 *
 *   phit  bits    field
 *   0     23      vclass: dateline class of the VC
 *         22      vc = 0 (request)                          (spec, 23..22)
 *         21..6   dst: destination Gemini id               (spec)
 *         5..4    dst_nic: destination NIC id
 *         3..0    type: enum gemini_pkt_type, 1..5
 *   1     23..6   address[23:6]                             (spec)
 *         5..0    address[5:0]
 *   2     23..16  ptag                                      (spec)
 *         15..0   address[39:24]                            (spec)
 *   3     23..8   src: source Gemini id                     (spec)
 *         7..6    src_nic: source NIC id
 *         5       r: source routed (GEMINI_PKT_F_ROUTED, DIAG only)
 *         4       a: adaptive routing (GEMINI_PKT_F_ADAPT)
 *         3       h: hash the address too (GEMINI_PKT_F_HASH)
 *         2..0    0
 *   4     23..12  mdh: memory domain handle at the target
 *         11..7   amo_op: enum gemini_amo_op (AMO), else 0
 *         6..0    len: data bytes; for GET the bytes requested
 *   5     23..19  hops: routers passed (saturates at 31)
 *         18      fetch: fetching AMO (GEMINI_PKT_F_FETCH, AMO), or
 *                 a sequence's flag (GEMINI_PKT_F_FLAG, PUT)
 *         17      remote event (GEMINI_PKT_F_REMOTE_EVENT)
 *         16      last packet of the transaction (GEMINI_PKT_F_LAST)
 *         15..0   seq[15:0]: the FMA sequence, 0 for none
 *   6     23..22  tag[9:8]
 *         21..14  tag[7:0]: SSID / transaction tag low bits (spec)
 *         13..6   seq[23:16]
 *         5..0    0
 *   then the data groups, then the end phit.
 *
 * Response header (response VC), 2 phits:
 *
 *   phit  bits    field
 *   0     23      vclass
 *         22      vc = 1 (response)
 *         21..6   dst: the requester's Gemini id
 *         5..4    dst_nic: the requester's NIC id
 *         3..2    type - GEMINI_PKT_ACK (0 ACK, 1 ERR, 2 DATA, 3 DIAG_RSP)
 *         1..0    tag[9:8]
 *   1     23..16  tag[7:0]
 *    ACK: 15..0   CRC-16; the ACK ends here (2 phits, no end phit)
 *    else:15..12  status: 1..15 for ERR, 0 for DATA and DIAG_RSP
 *         11..7   hops
 *         6..0    len: data bytes (0 for ERR)
 *   then, for DATA and DIAG_RSP, the data groups; then the end phit
 *   (an ERR is thus 3 phits: header and end phit).
 *
 * Data: a group of 3 phits (9 bytes) carries 8 data bytes, so len bytes
 * take GEMINI_DATA_PHITS(len) = 3 * ceil(len / 8) phits.  In group g,
 * bytes 0..7 are data[8g..8g+7] (byte i of the group is bits 8i+7..8i of
 * the run of phits, i.e. phit 3g bits 7..0 is data[8g]) and byte 8 (bits
 * 23..16 of the group's third phit) is a side-band byte that must be 0.
 * Data bytes past len in the last group must be 0.
 *
 * End phit (EOP), last phit of every packet but the ACK:
 *
 *         23..16  GEMINI_EOP_MARKER (0xa5)
 *         15..0   CRC-16
 *
 * Sizes: PUT, AMO, CQWRITE and DIAG requests are 7 + data + 1 phits (an
 * 8-byte put 11, a 64-byte put 32, a 0-byte DIAG 8); a GET request is 8;
 * ACK 2; ERR 3; DATA and DIAG_RSP 2 + data + 1 (a 64-byte GET response 27).
 *
 * CRC: CRC-16/CCITT-FALSE (polynomial 0x1021, initial value 0xffff, bits
 * not reflected, no final XOR; check value 0x29b1 over "123456789") over
 * every byte of the packet, with the two bytes of the CRC field taken as
 * zero.  The field is stored like any other phit bits: CRC bits 7..0 in
 * the first byte of the last phit, bits 15..8 in the second.
 */
#ifndef VGEMINI_GEMINI_PKT_H
#define VGEMINI_GEMINI_PKT_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdint.h>
#endif

#define GEMINI_PHIT_BYTES		3
#define GEMINI_PKT_MAX_DATA		64
#define GEMINI_PKT_MAX_PHITS		32
#define GEMINI_PKT_MAX_BYTES		(GEMINI_PKT_MAX_PHITS * GEMINI_PHIT_BYTES)
#define GEMINI_PKT_MIN_PHITS		2

/* Virtual channels: phit 0 bit 22 */
#define GEMINI_VC_REQ			0
#define GEMINI_VC_RSP			1

/* Sizes in phits */
#define GEMINI_REQ_HDR_PHITS		7
#define GEMINI_RSP_HDR_PHITS		2
#define GEMINI_EOP_PHITS		1
#define GEMINI_DATA_GROUP_PHITS		3
#define GEMINI_DATA_GROUP_BYTES		8
#define GEMINI_DATA_PHITS(len) \
	(GEMINI_DATA_GROUP_PHITS * (((len) + GEMINI_DATA_GROUP_BYTES - 1) / \
				    GEMINI_DATA_GROUP_BYTES))
/* PUT, AMO, CQWRITE, DIAG; a GET request carries no data */
#define GEMINI_REQ_PHITS(len) \
	(GEMINI_REQ_HDR_PHITS + GEMINI_DATA_PHITS(len) + GEMINI_EOP_PHITS)
#define GEMINI_GET_REQ_PHITS		GEMINI_REQ_PHITS(0)
/* DATA, DIAG_RSP */
#define GEMINI_RSP_PHITS(len) \
	(GEMINI_RSP_HDR_PHITS + GEMINI_DATA_PHITS(len) + GEMINI_EOP_PHITS)
#define GEMINI_ACK_PHITS		2
#define GEMINI_ERR_PHITS		3

/* CRC-16/CCITT-FALSE */
#define GEMINI_CRC16_POLY		0x1021
#define GEMINI_CRC16_INIT		0xffff
#define GEMINI_CRC16_CHECK		0x29b1	/* of "123456789" */

/**
 * enum gemini_pkt_type - what a packet is; bit 3 is its VC
 * @GEMINI_PKT_PUT: write len (1..64) bytes at addr; with GEMINI_PKT_F_FLAG
 *	an FMA sequence's flag (len GEMINI_PKT_FLAG_LEN): data[0..7] the
 *	flag, written at addr; data[8..15] the data of the sequence's
 *	remote event, raised then if GEMINI_PKT_F_REMOTE_EVENT; data[16..23]
 *	how many requests of the sequence (its seq) the target executes
 *	first, 0 for none: the flag may arrive before them
 * @GEMINI_PKT_GET: read len (1..64) bytes at addr; answered by DATA
 * @GEMINI_PKT_AMO: atomic op amo_op at addr; data = 8 bytes of operand, or
 *	16 (operand 1, operand 2) for AX and CSWAP; answered by DATA (8 bytes)
 *	if GEMINI_PKT_F_FETCH, else by ACK
 * @GEMINI_PKT_CQWRITE: 8 bytes for the target's CQ named by mdh
 * @GEMINI_PKT_DIAG: diagnostic request, 0..64 bytes; answered by DIAG_RSP
 * @GEMINI_PKT_SEND: a BTE SEND's piece (vgemini's encoding): amo_op the
 *	RX channel, mdh the message's 12-bit sequence; without
 *	GEMINI_PKT_F_LAST len (1..64) bytes at offset addr of the message,
 *	with it the message's end: addr its length, data its immediate
 *	data (8 bytes) or none
 * @GEMINI_PKT_ACK: request done (2 phits)
 * @GEMINI_PKT_ERR: request failed with status 1..15 (3 phits)
 * @GEMINI_PKT_DATA: GET or fetching-AMO data, 1..64 bytes
 * @GEMINI_PKT_DIAG_RSP: diagnostic response, 0..64 bytes
 *
 * On the wire a request type is its value (4 bits), a response type its
 * value minus GEMINI_PKT_ACK (2 bits).  0 and 7 are not types.
 */
enum gemini_pkt_type {
	GEMINI_PKT_PUT = 1,
	GEMINI_PKT_GET = 2,
	GEMINI_PKT_AMO = 3,
	GEMINI_PKT_CQWRITE = 4,
	GEMINI_PKT_DIAG = 5,
	GEMINI_PKT_SEND = 6,
	GEMINI_PKT_ACK = 8,
	GEMINI_PKT_ERR = 9,
	GEMINI_PKT_DATA = 10,
	GEMINI_PKT_DIAG_RSP = 11,
};

#define GEMINI_PKT_TYPE_VC(type)	(((type) >> 3) & 1)

/**
 * enum gemini_amo_op - Gemini AMOs on the 8-byte target T
 * @GEMINI_AMO_ADD: ``T += op1``
 * @GEMINI_AMO_AND: ``T &= op1``
 * @GEMINI_AMO_OR: ``T |= op1``
 * @GEMINI_AMO_XOR: ``T ^= op1``
 * @GEMINI_AMO_AX: ``T = (T & op1) ^ op2``
 * @GEMINI_AMO_CSWAP: ``if (T == op1) T = op2``
 *
 * The values are the low 5 bits of the Gemini command codes.  Each may be
 * fetching (GEMINI_PKT_F_FETCH) or not, except CSWAP, which always fetches.
 */
enum gemini_amo_op {
	GEMINI_AMO_ADD = 0x08,
	GEMINI_AMO_AND = 0x09,
	GEMINI_AMO_OR = 0x0a,
	GEMINI_AMO_XOR = 0x0b,
	GEMINI_AMO_AX = 0x0c,
	GEMINI_AMO_CSWAP = 0x0d,
};

#define GEMINI_AMO_OPERAND_BYTES	8
/* operand bytes an AMO request carries (evaluates op twice) */
#define GEMINI_AMO_LEN(op) \
	(((op) == GEMINI_AMO_AX || (op) == GEMINI_AMO_CSWAP) ? 16 : 8)

/* struct gemini_pkt flags; the header bit each one travels in */
#define GEMINI_PKT_F_ROUTED		0x01	/* phit 3 bit 5 (r) */
#define GEMINI_PKT_F_ADAPT		0x02	/* phit 3 bit 4 (a) */
#define GEMINI_PKT_F_HASH		0x04	/* phit 3 bit 3 (h) */
#define GEMINI_PKT_F_FETCH		0x08	/* phit 5 bit 18 */
#define GEMINI_PKT_F_REMOTE_EVENT	0x10	/* phit 5 bit 17 */
#define GEMINI_PKT_F_LAST		0x20	/* phit 5 bit 16 */
/* The bit of GEMINI_PKT_F_FETCH, in a PUT: an FMA sequence's flag */
#define GEMINI_PKT_F_FLAG		GEMINI_PKT_F_FETCH

/* A sequence's flag (a PUT with GEMINI_PKT_F_FLAG): its length, fields */
#define GEMINI_PKT_FLAG_LEN		24
#define GEMINI_PKT_FLAG_BYTES		8	/* written at addr */
#define GEMINI_PKT_FLAG_EVENT_OFF	8	/* the remote event's data */
#define GEMINI_PKT_FLAG_COUNT_OFF	16	/* requests to wait for */

/*
 * Field positions: value = (phit >> SHIFT) & MASK.  P<n> is the phit
 * index.  _RSVD masks are the reserved bits of a phit.
 */
#define GEMINI_PHIT_MASK		0xffffffu

#define GEMINI_P0_VCLASS_SHIFT		23
#define GEMINI_P0_VC_SHIFT		22
#define GEMINI_P0_DST_SHIFT		6
#define GEMINI_P0_DST_MASK		0xffffu
#define GEMINI_P0_DST_NIC_SHIFT		4
#define GEMINI_P0_DST_NIC_MASK		0x3u
#define GEMINI_P0_REQ_TYPE_SHIFT	0
#define GEMINI_P0_REQ_TYPE_MASK		0xfu
#define GEMINI_P0_RSP_TYPE_SHIFT	2
#define GEMINI_P0_RSP_TYPE_MASK		0x3u
#define GEMINI_P0_RSP_TAG_HI_SHIFT	0
#define GEMINI_P0_RSP_TAG_HI_MASK	0x3u

#define GEMINI_REQ_P1_ADDR_MASK		0xffffffu	/* address[23:0] */
#define GEMINI_REQ_P2_PTAG_SHIFT	16
#define GEMINI_REQ_P2_PTAG_MASK		0xffu
#define GEMINI_REQ_P2_ADDR_MASK		0xffffu		/* address[39:24] */
#define GEMINI_REQ_P2_ADDR_POS		24		/* its place in addr */
#define GEMINI_REQ_P3_SRC_SHIFT		8
#define GEMINI_REQ_P3_SRC_MASK		0xffffu
#define GEMINI_REQ_P3_SRC_NIC_SHIFT	6
#define GEMINI_REQ_P3_SRC_NIC_MASK	0x3u
#define GEMINI_REQ_P3_ROUTED		(1u << 5)
#define GEMINI_REQ_P3_ADAPT		(1u << 4)
#define GEMINI_REQ_P3_HASH		(1u << 3)
#define GEMINI_REQ_P3_RSVD		0x000007u
#define GEMINI_REQ_P4_MDH_SHIFT		12
#define GEMINI_REQ_P4_MDH_MASK		0xfffu
#define GEMINI_REQ_P4_AMO_OP_SHIFT	7
#define GEMINI_REQ_P4_AMO_OP_MASK	0x1fu
#define GEMINI_REQ_P4_LEN_SHIFT		0
#define GEMINI_REQ_P4_LEN_MASK		0x7fu
#define GEMINI_REQ_P5_HOPS_SHIFT	19
#define GEMINI_REQ_P5_HOPS_MASK		0x1fu
#define GEMINI_REQ_P5_FETCH		(1u << 18)
#define GEMINI_REQ_P5_REMOTE_EVENT	(1u << 17)
#define GEMINI_REQ_P5_LAST		(1u << 16)
#define GEMINI_REQ_P5_SEQ_MASK		0x00ffffu
#define GEMINI_REQ_P6_TAG_SHIFT		14
#define GEMINI_REQ_P6_TAG_MASK		0x3ffu
#define GEMINI_REQ_P6_SEQ_SHIFT		6
#define GEMINI_REQ_P6_SEQ_MASK		0xffu
#define GEMINI_REQ_P6_RSVD		0x00003fu
/* seq: a request's FMA sequence (GEMINI_PKT_SEQ_MAX: 24 bits), 0 none */
#define GEMINI_REQ_P5_SEQ_BITS		16
#define GEMINI_PKT_SEQ_MAX		0xffffffu

#define GEMINI_RSP_P1_TAG_LO_SHIFT	16
#define GEMINI_RSP_P1_TAG_LO_MASK	0xffu
#define GEMINI_RSP_P1_STATUS_SHIFT	12
#define GEMINI_RSP_P1_STATUS_MASK	0xfu
#define GEMINI_RSP_P1_HOPS_SHIFT	7
#define GEMINI_RSP_P1_HOPS_MASK		0x1fu
#define GEMINI_RSP_P1_LEN_SHIFT		0
#define GEMINI_RSP_P1_LEN_MASK		0x7fu

#define GEMINI_EOP_MARKER_SHIFT		16
#define GEMINI_EOP_MARKER_MASK		0xffu
#define GEMINI_EOP_MARKER		0xa5u
#define GEMINI_CRC_MASK			0xffffu		/* last phit 15..0 */

/* Bounds of the struct gemini_pkt fields */
#define GEMINI_PKT_ADDR_BITS		40
#define GEMINI_PKT_MDH_MAX		0xfffu
#define GEMINI_PKT_TAG_MAX		0x3ffu
#define GEMINI_PKT_HOPS_MAX		31u
#define GEMINI_PKT_NIC_MAX		3u

/*
 * Response status: the 4-bit CQ status codes.  Several codes mean
 * different things depending on the CQ event source; the name given is
 * the one for a request-side (SSID) completion.
 */
#define GEMINI_STATUS_OK		0x0
#define GEMINI_STATUS_MISROUTED		0x1
#define GEMINI_STATUS_UNCORRECTABLE	0x2
#define GEMINI_STATUS_INV_CMD		0x3
#define GEMINI_STATUS_MALFORMED		0x4
#define GEMINI_STATUS_TRANSLATION	0x5
#define GEMINI_STATUS_VMDH_INV		0x6
#define GEMINI_STATUS_MDD_INV		0x7
#define GEMINI_STATUS_PROTECTION	0x8
#define GEMINI_STATUS_BOUNDS		0x9
#define GEMINI_STATUS_WRITE_PERM	0xa
#define GEMINI_STATUS_TIMEOUT		0xb
#define GEMINI_STATUS_SSID_STATE	0xc	/* RX_DESC_VC_INV for DREQ */
#define GEMINI_STATUS_HT_DATA		0xd	/* STALE_SSID for SRSP */
#define GEMINI_STATUS_NPES		0xe	/* BTE/RX send miss, protocol */
#define GEMINI_STATUS_OVERRUN		0xf	/* RX buffer overrun, CQ error */
#define GEMINI_STATUS_MAX		0xf

#endif /* VGEMINI_GEMINI_PKT_H */
