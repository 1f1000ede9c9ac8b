// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cray-gemini device core: encoding, decoding and CRC of network packets.
 *
 * The wire layout is in uapi/gemini_pkt.h.  Packets come from other QEMU
 * processes, so decode trusts nothing: it finds the length the header
 * implies before anything else, checks the CRC before it interprets the
 * fields, and accepts only the one canonical encoding of each packet
 * (reserved bits, side-band bytes and padding zero), so that every packet
 * it accepts re-encodes to the same bytes.
 */
#include <stdbool.h>
#include <string.h>

#include "gemini_hw.h"
#include "gemini_packet.h"
#include "vgemini_le.h"

/* A data group: 8 data bytes and a side-band byte in 3 phits. */
#define GROUP_WIRE	(GEMINI_DATA_GROUP_PHITS * GEMINI_PHIT_BYTES)
#define GROUP_DATA	GEMINI_DATA_GROUP_BYTES

/* A response splits its tag: tag[9:8] in phit 0, tag[7:0] in phit 1. */
#define RSP_TAG_LO_BITS	8

#define REQ_FLAGS	(GEMINI_PKT_F_ADAPT | GEMINI_PKT_F_HASH | \
			 GEMINI_PKT_F_REMOTE_EVENT | GEMINI_PKT_F_LAST)

/* What each type may carry; a NULL name is not a type. */
static const struct {
	const char *name;
	uint8_t vc;
	uint8_t min_len;
	uint8_t max_len;
	uint8_t flags;		/* GEMINI_PKT_F_* allowed */
} types[] = {
	[GEMINI_PKT_PUT] = { "PUT", GEMINI_VC_REQ, 1, GEMINI_PKT_MAX_DATA,
			     REQ_FLAGS | GEMINI_PKT_F_FLAG },
	[GEMINI_PKT_GET] = { "GET", GEMINI_VC_REQ, 1, GEMINI_PKT_MAX_DATA,
			     REQ_FLAGS },
	/* exact length per op checked apart */
	[GEMINI_PKT_AMO] = { "AMO", GEMINI_VC_REQ, 8, 16,
			     REQ_FLAGS | GEMINI_PKT_F_FETCH },
	[GEMINI_PKT_CQWRITE] = { "CQWRITE", GEMINI_VC_REQ, 8, 8, REQ_FLAGS },
	/* source routing is for diagnostics only */
	[GEMINI_PKT_DIAG] = { "DIAG", GEMINI_VC_REQ, 0, GEMINI_PKT_MAX_DATA,
			      REQ_FLAGS | GEMINI_PKT_F_ROUTED },
	/* length per piece checked apart */
	[GEMINI_PKT_SEND] = { "SEND", GEMINI_VC_REQ, 0, GEMINI_PKT_MAX_DATA,
			      REQ_FLAGS },
	[GEMINI_PKT_ACK] = { "ACK", GEMINI_VC_RSP, 0, 0, 0 },
	[GEMINI_PKT_ERR] = { "ERR", GEMINI_VC_RSP, 0, 0, 0 },
	[GEMINI_PKT_DATA] = { "DATA", GEMINI_VC_RSP, 1, GEMINI_PKT_MAX_DATA,
			      0 },
	[GEMINI_PKT_DIAG_RSP] = { "DIAG_RSP", GEMINI_VC_RSP, 0,
				  GEMINI_PKT_MAX_DATA, 0 },
};

static bool type_valid(unsigned int type)
{
	return type < sizeof(types) / sizeof(types[0]) && types[type].name;
}

/* Phits on the wire of a valid type with len <= GEMINI_PKT_MAX_DATA. */
static unsigned int wire_phits(unsigned int type, unsigned int len)
{
	switch (type) {
	case GEMINI_PKT_GET:
		return GEMINI_GET_REQ_PHITS;
	case GEMINI_PKT_ACK:
		return GEMINI_ACK_PHITS;
	case GEMINI_PKT_ERR:
		return GEMINI_ERR_PHITS;
	case GEMINI_PKT_DATA:
	case GEMINI_PKT_DIAG_RSP:
		return GEMINI_RSP_PHITS(len);
	default:
		return GEMINI_REQ_PHITS(len);
	}
}

static bool has_data(unsigned int type)
{
	return type != GEMINI_PKT_GET && type != GEMINI_PKT_ACK &&
	       type != GEMINI_PKT_ERR;
}

static bool amo_op_valid(unsigned int op)
{
	return op >= GEMINI_AMO_ADD && op <= GEMINI_AMO_CSWAP;
}

unsigned int gemini_pkt_phits(const struct gemini_pkt *pkt)
{
	if (!type_valid(pkt->type) || pkt->len > GEMINI_PKT_MAX_DATA)
		return 0;
	return wire_phits(pkt->type, pkt->len);
}

/*
 * Is @p a packet the wire can carry?  0, or the GEMINI_PKT_ERR_* that
 * decode reports for the same fault.  Decode reaches this only with
 * fields that fit their wire bits; encode can get anything.
 */
static int check_pkt(const struct gemini_pkt *p)
{
	bool req;

	if (!type_valid(p->type) || p->vc != types[p->type].vc)
		return GEMINI_PKT_ERR_TYPE;
	req = p->vc == GEMINI_VC_REQ;

	if (p->type == GEMINI_PKT_AMO) {
		if (!amo_op_valid(p->amo_op))
			return GEMINI_PKT_ERR_FIELD;
		if (p->len != GEMINI_AMO_LEN(p->amo_op))
			return GEMINI_PKT_ERR_LEN;
		/* a compare-and-swap that returns nothing is useless */
		if (p->amo_op == GEMINI_AMO_CSWAP &&
		    !(p->flags & GEMINI_PKT_F_FETCH))
			return GEMINI_PKT_ERR_FIELD;
	} else if (p->type == GEMINI_PKT_SEND) {
		/* amo_op names the RX channel */
		if (p->amo_op >= GEMINI_NUM_BTE_VC)
			return GEMINI_PKT_ERR_FIELD;
		if (p->flags & GEMINI_PKT_F_LAST ?
		    p->len != 0 && p->len != GEMINI_AMO_OPERAND_BYTES : !p->len)
			return GEMINI_PKT_ERR_LEN;
	} else if (p->amo_op) {
		return GEMINI_PKT_ERR_FIELD;
	} else if (p->type == GEMINI_PKT_PUT && (p->flags & GEMINI_PKT_F_FLAG)) {
		/* a sequence's flag, and the data of its remote event */
		if (p->len != GEMINI_PKT_FLAG_LEN)
			return GEMINI_PKT_ERR_LEN;
	}
	if (p->len < types[p->type].min_len || p->len > types[p->type].max_len)
		return GEMINI_PKT_ERR_LEN;

	if (p->flags & ~types[p->type].flags)
		return GEMINI_PKT_ERR_FIELD;
	if (p->vclass > 1 || p->dst_nic > GEMINI_PKT_NIC_MAX ||
	    p->tag > GEMINI_PKT_TAG_MAX || p->hops > GEMINI_PKT_HOPS_MAX)
		return GEMINI_PKT_ERR_FIELD;
	if (p->type == GEMINI_PKT_ERR ?
	    p->status == 0 || p->status > GEMINI_STATUS_MAX : p->status != 0)
		return GEMINI_PKT_ERR_FIELD;
	/* the ACK has no room for a hop count */
	if (p->type == GEMINI_PKT_ACK && p->hops)
		return GEMINI_PKT_ERR_FIELD;

	if (req) {
		if (p->src_nic > GEMINI_PKT_NIC_MAX ||
		    p->mdh > GEMINI_PKT_MDH_MAX ||
		    p->addr >> GEMINI_PKT_ADDR_BITS ||
		    p->seq > GEMINI_PKT_SEQ_MAX)
			return GEMINI_PKT_ERR_FIELD;
	} else {
		/* responses find their way back by dst and tag alone */
		if (p->src || p->src_nic || p->ptag || p->mdh || p->addr ||
		    p->seq)
			return GEMINI_PKT_ERR_FIELD;
	}
	return 0;
}

static uint32_t get_phit(const uint8_t *wire, unsigned int i)
{
	return vgemini_get_le24(wire + i * GEMINI_PHIT_BYTES);
}

static void put_phit(uint8_t *wire, unsigned int i, uint32_t v)
{
	vgemini_put_le24(wire + i * GEMINI_PHIT_BYTES, v);
}

/* CRC-16/CCITT-FALSE, one byte at a time: crc_table[i] = i * x^16 mod P. */
static const uint16_t crc_table[256] = {
	0x0000, 0x1021, 0x2042, 0x3063, 0x4084, 0x50a5, 0x60c6, 0x70e7,
	0x8108, 0x9129, 0xa14a, 0xb16b, 0xc18c, 0xd1ad, 0xe1ce, 0xf1ef,
	0x1231, 0x0210, 0x3273, 0x2252, 0x52b5, 0x4294, 0x72f7, 0x62d6,
	0x9339, 0x8318, 0xb37b, 0xa35a, 0xd3bd, 0xc39c, 0xf3ff, 0xe3de,
	0x2462, 0x3443, 0x0420, 0x1401, 0x64e6, 0x74c7, 0x44a4, 0x5485,
	0xa56a, 0xb54b, 0x8528, 0x9509, 0xe5ee, 0xf5cf, 0xc5ac, 0xd58d,
	0x3653, 0x2672, 0x1611, 0x0630, 0x76d7, 0x66f6, 0x5695, 0x46b4,
	0xb75b, 0xa77a, 0x9719, 0x8738, 0xf7df, 0xe7fe, 0xd79d, 0xc7bc,
	0x48c4, 0x58e5, 0x6886, 0x78a7, 0x0840, 0x1861, 0x2802, 0x3823,
	0xc9cc, 0xd9ed, 0xe98e, 0xf9af, 0x8948, 0x9969, 0xa90a, 0xb92b,
	0x5af5, 0x4ad4, 0x7ab7, 0x6a96, 0x1a71, 0x0a50, 0x3a33, 0x2a12,
	0xdbfd, 0xcbdc, 0xfbbf, 0xeb9e, 0x9b79, 0x8b58, 0xbb3b, 0xab1a,
	0x6ca6, 0x7c87, 0x4ce4, 0x5cc5, 0x2c22, 0x3c03, 0x0c60, 0x1c41,
	0xedae, 0xfd8f, 0xcdec, 0xddcd, 0xad2a, 0xbd0b, 0x8d68, 0x9d49,
	0x7e97, 0x6eb6, 0x5ed5, 0x4ef4, 0x3e13, 0x2e32, 0x1e51, 0x0e70,
	0xff9f, 0xefbe, 0xdfdd, 0xcffc, 0xbf1b, 0xaf3a, 0x9f59, 0x8f78,
	0x9188, 0x81a9, 0xb1ca, 0xa1eb, 0xd10c, 0xc12d, 0xf14e, 0xe16f,
	0x1080, 0x00a1, 0x30c2, 0x20e3, 0x5004, 0x4025, 0x7046, 0x6067,
	0x83b9, 0x9398, 0xa3fb, 0xb3da, 0xc33d, 0xd31c, 0xe37f, 0xf35e,
	0x02b1, 0x1290, 0x22f3, 0x32d2, 0x4235, 0x5214, 0x6277, 0x7256,
	0xb5ea, 0xa5cb, 0x95a8, 0x8589, 0xf56e, 0xe54f, 0xd52c, 0xc50d,
	0x34e2, 0x24c3, 0x14a0, 0x0481, 0x7466, 0x6447, 0x5424, 0x4405,
	0xa7db, 0xb7fa, 0x8799, 0x97b8, 0xe75f, 0xf77e, 0xc71d, 0xd73c,
	0x26d3, 0x36f2, 0x0691, 0x16b0, 0x6657, 0x7676, 0x4615, 0x5634,
	0xd94c, 0xc96d, 0xf90e, 0xe92f, 0x99c8, 0x89e9, 0xb98a, 0xa9ab,
	0x5844, 0x4865, 0x7806, 0x6827, 0x18c0, 0x08e1, 0x3882, 0x28a3,
	0xcb7d, 0xdb5c, 0xeb3f, 0xfb1e, 0x8bf9, 0x9bd8, 0xabbb, 0xbb9a,
	0x4a75, 0x5a54, 0x6a37, 0x7a16, 0x0af1, 0x1ad0, 0x2ab3, 0x3a92,
	0xfd2e, 0xed0f, 0xdd6c, 0xcd4d, 0xbdaa, 0xad8b, 0x9de8, 0x8dc9,
	0x7c26, 0x6c07, 0x5c64, 0x4c45, 0x3ca2, 0x2c83, 0x1ce0, 0x0cc1,
	0xef1f, 0xff3e, 0xcf5d, 0xdf7c, 0xaf9b, 0xbfba, 0x8fd9, 0x9ff8,
	0x6e17, 0x7e36, 0x4e55, 0x5e74, 0x2e93, 0x3eb2, 0x0ed1, 0x1ef0,
};

/*
 * Four bytes at a time (slicing): crc_slice[k][i] is the CRC of byte i
 * followed by k + 1 zero bytes, made from crc_table at first use.  Every
 * packet is checked on each hop, so the CRC is a good part of a packet's
 * cost.
 */
static uint16_t crc_slice[3][256];
static bool crc_slice_ready;

static void crc_slice_init(void)
{
	unsigned int k, i;

	for (i = 0; i < 256; i++) {
		uint16_t c = crc_table[i];

		for (k = 0; k < 3; k++) {
			c = (uint16_t)(c << 8) ^ crc_table[c >> 8];
			crc_slice[k][i] = c;
		}
	}
	crc_slice_ready = true;
}

static uint16_t crc16_update(uint16_t crc, const uint8_t *buf, size_t len)
{
	size_t i = 0;

	if (!crc_slice_ready)
		crc_slice_init();
	for (; i + 4 <= len; i += 4)
		crc = crc_slice[2][(crc >> 8) ^ buf[i]] ^
		      crc_slice[1][(crc & 0xff) ^ buf[i + 1]] ^
		      crc_slice[0][buf[i + 2]] ^ crc_table[buf[i + 3]];
	for (; i < len; i++)
		crc = (uint16_t)(crc << 8) ^ crc_table[(crc >> 8) ^ buf[i]];
	return crc;
}

uint16_t gemini_crc16(const uint8_t *buf, size_t len)
{
	return crc16_update(GEMINI_CRC16_INIT, buf, len);
}

/*
 * The CRC of a packet of @bytes bytes: the CRC field (first two bytes of
 * the last phit) counts as zero.
 */
static uint16_t pkt_crc(const uint8_t *wire, size_t bytes)
{
	static const uint8_t zero[2];
	uint16_t crc;

	crc = crc16_update(GEMINI_CRC16_INIT, wire, bytes - GEMINI_PHIT_BYTES);
	crc = crc16_update(crc, zero, sizeof(zero));
	return crc16_update(crc, wire + bytes - 1, 1);
}

bool gemini_pkt_valid(const struct gemini_pkt *pkt)
{
	return pkt && !check_pkt(pkt);
}

int gemini_pkt_encode(const struct gemini_pkt *pkt, uint8_t *wire,
		      size_t cap)
{
	unsigned int nphits, hdr, g, groups;
	size_t bytes;
	uint16_t crc;
	uint32_t v;

	if (!pkt || !wire || check_pkt(pkt))
		return -GEMINI_PKT_ERR_ARG;
	nphits = wire_phits(pkt->type, pkt->len);
	bytes = (size_t)nphits * GEMINI_PHIT_BYTES;
	if (cap < bytes)
		return -GEMINI_PKT_ERR_ARG;

	v = (uint32_t)pkt->vclass << GEMINI_P0_VCLASS_SHIFT |
	    (uint32_t)pkt->vc << GEMINI_P0_VC_SHIFT |
	    (uint32_t)pkt->dst << GEMINI_P0_DST_SHIFT |
	    (uint32_t)pkt->dst_nic << GEMINI_P0_DST_NIC_SHIFT;
	if (pkt->vc == GEMINI_VC_REQ) {
		hdr = GEMINI_REQ_HDR_PHITS;
		put_phit(wire, 0, v | pkt->type);
		put_phit(wire, 1, pkt->addr & GEMINI_REQ_P1_ADDR_MASK);
		put_phit(wire, 2, (uint32_t)pkt->ptag << GEMINI_REQ_P2_PTAG_SHIFT |
			 (uint32_t)(pkt->addr >> GEMINI_REQ_P2_ADDR_POS));
		put_phit(wire, 3,
			 (uint32_t)pkt->src << GEMINI_REQ_P3_SRC_SHIFT |
			 (uint32_t)pkt->src_nic << GEMINI_REQ_P3_SRC_NIC_SHIFT |
			 (pkt->flags & GEMINI_PKT_F_ROUTED ?
			  GEMINI_REQ_P3_ROUTED : 0) |
			 (pkt->flags & GEMINI_PKT_F_ADAPT ?
			  GEMINI_REQ_P3_ADAPT : 0) |
			 (pkt->flags & GEMINI_PKT_F_HASH ?
			  GEMINI_REQ_P3_HASH : 0));
		put_phit(wire, 4,
			 (uint32_t)pkt->mdh << GEMINI_REQ_P4_MDH_SHIFT |
			 (uint32_t)pkt->amo_op << GEMINI_REQ_P4_AMO_OP_SHIFT |
			 (uint32_t)pkt->len << GEMINI_REQ_P4_LEN_SHIFT);
		put_phit(wire, 5,
			 (uint32_t)pkt->hops << GEMINI_REQ_P5_HOPS_SHIFT |
			 (pkt->flags & GEMINI_PKT_F_FETCH ?
			  GEMINI_REQ_P5_FETCH : 0) |
			 (pkt->flags & GEMINI_PKT_F_REMOTE_EVENT ?
			  GEMINI_REQ_P5_REMOTE_EVENT : 0) |
			 (pkt->flags & GEMINI_PKT_F_LAST ?
			  GEMINI_REQ_P5_LAST : 0) |
			 (pkt->seq & GEMINI_REQ_P5_SEQ_MASK));
		put_phit(wire, 6,
			 (uint32_t)pkt->tag << GEMINI_REQ_P6_TAG_SHIFT |
			 (pkt->seq >> GEMINI_REQ_P5_SEQ_BITS) <<
			 GEMINI_REQ_P6_SEQ_SHIFT);
	} else {
		hdr = GEMINI_RSP_HDR_PHITS;
		put_phit(wire, 0, v |
			 (uint32_t)(pkt->type - GEMINI_PKT_ACK) <<
			 GEMINI_P0_RSP_TYPE_SHIFT |
			 (uint32_t)(pkt->tag >> RSP_TAG_LO_BITS) <<
			 GEMINI_P0_RSP_TAG_HI_SHIFT);
		v = (uint32_t)(pkt->tag & GEMINI_RSP_P1_TAG_LO_MASK) <<
		    GEMINI_RSP_P1_TAG_LO_SHIFT;
		if (pkt->type != GEMINI_PKT_ACK)
			v |= (uint32_t)pkt->status << GEMINI_RSP_P1_STATUS_SHIFT |
			     (uint32_t)pkt->hops << GEMINI_RSP_P1_HOPS_SHIFT |
			     (uint32_t)pkt->len << GEMINI_RSP_P1_LEN_SHIFT;
		put_phit(wire, 1, v);
	}

	if (has_data(pkt->type)) {
		uint8_t *d = wire + hdr * GEMINI_PHIT_BYTES;

		groups = GEMINI_DATA_PHITS(pkt->len) / GEMINI_DATA_GROUP_PHITS;
		for (g = 0; g < groups; g++, d += GROUP_WIRE) {
			unsigned int n = pkt->len - g * GROUP_DATA;

			if (n > GROUP_DATA)
				n = GROUP_DATA;
			memcpy(d, pkt->data + g * GROUP_DATA, n);
			/* padding and the side-band byte */
			memset(d + n, 0, GROUP_WIRE - n);
		}
	}

	if (pkt->type != GEMINI_PKT_ACK)
		put_phit(wire, nphits - 1,
			 GEMINI_EOP_MARKER << GEMINI_EOP_MARKER_SHIFT);
	crc = pkt_crc(wire, bytes);
	vgemini_put_le16(wire + bytes - 3, crc);
	return (int)bytes;
}

/* Unpack the data groups; the side-band bytes and padding must be zero. */
static int get_data(const uint8_t *d, struct gemini_pkt *pkt)
{
	unsigned int g, i, groups, n;

	groups = GEMINI_DATA_PHITS(pkt->len) / GEMINI_DATA_GROUP_PHITS;
	for (g = 0; g < groups; g++, d += GROUP_WIRE) {
		n = pkt->len - g * GROUP_DATA;
		if (n > GROUP_DATA)
			n = GROUP_DATA;
		memcpy(pkt->data + g * GROUP_DATA, d, n);
		for (i = n; i < GROUP_WIRE; i++)
			if (d[i])
				return GEMINI_PKT_ERR_FIELD;
	}
	return 0;
}

int gemini_pkt_decode(const uint8_t *wire, size_t len, struct gemini_pkt *pkt)
{
	unsigned int nphits, want, type, dlen;
	uint32_t p0, p1, eop;
	uint16_t crc;
	int err;

	if (len % GEMINI_PHIT_BYTES)
		return -GEMINI_PKT_ERR_PHIT;
	if (len < GEMINI_PKT_MIN_PHITS * GEMINI_PHIT_BYTES)
		return -GEMINI_PKT_ERR_SHORT;
	if (len > GEMINI_PKT_MAX_BYTES)
		return -GEMINI_PKT_ERR_LONG;
	nphits = len / GEMINI_PHIT_BYTES;

	/* How long the header says the packet is: type, then len. */
	p0 = get_phit(wire, 0);
	p1 = get_phit(wire, 1);
	if (!(p0 >> GEMINI_P0_VC_SHIFT & 1)) {
		type = p0 >> GEMINI_P0_REQ_TYPE_SHIFT & GEMINI_P0_REQ_TYPE_MASK;
		if (!type_valid(type) || types[type].vc != GEMINI_VC_REQ)
			return -GEMINI_PKT_ERR_TYPE;
		if (nphits < GEMINI_REQ_HDR_PHITS)
			return -GEMINI_PKT_ERR_SHORT;
		dlen = get_phit(wire, 4) >> GEMINI_REQ_P4_LEN_SHIFT &
		       GEMINI_REQ_P4_LEN_MASK;
	} else {
		type = GEMINI_PKT_ACK + (p0 >> GEMINI_P0_RSP_TYPE_SHIFT &
					 GEMINI_P0_RSP_TYPE_MASK);
		dlen = type == GEMINI_PKT_ACK ? 0 :
		       p1 >> GEMINI_RSP_P1_LEN_SHIFT & GEMINI_RSP_P1_LEN_MASK;
	}
	if (dlen > GEMINI_PKT_MAX_DATA)
		return -GEMINI_PKT_ERR_LEN;
	want = wire_phits(type, dlen);
	if (nphits < want)
		return -GEMINI_PKT_ERR_SHORT;
	if (nphits > want)
		return -GEMINI_PKT_ERR_LONG;

	/* Corruption shows here, before any field means anything. */
	crc = wire[len - 3] | wire[len - 2] << 8;
	if (crc != pkt_crc(wire, len))
		return -GEMINI_PKT_ERR_CRC;
	eop = get_phit(wire, nphits - 1);
	if (type != GEMINI_PKT_ACK &&
	    (eop >> GEMINI_EOP_MARKER_SHIFT & GEMINI_EOP_MARKER_MASK) !=
	    GEMINI_EOP_MARKER)
		return -GEMINI_PKT_ERR_EOP;

	memset(pkt, 0, sizeof(*pkt));
	pkt->type = type;
	pkt->len = dlen;
	pkt->vclass = p0 >> GEMINI_P0_VCLASS_SHIFT & 1;
	pkt->vc = p0 >> GEMINI_P0_VC_SHIFT & 1;
	pkt->dst = p0 >> GEMINI_P0_DST_SHIFT & GEMINI_P0_DST_MASK;
	pkt->dst_nic = p0 >> GEMINI_P0_DST_NIC_SHIFT & GEMINI_P0_DST_NIC_MASK;

	if (pkt->vc == GEMINI_VC_REQ) {
		uint32_t p2 = get_phit(wire, 2), p3 = get_phit(wire, 3);
		uint32_t p4 = get_phit(wire, 4), p5 = get_phit(wire, 5);
		uint32_t p6 = get_phit(wire, 6);

		if ((p3 & GEMINI_REQ_P3_RSVD) || (p6 & GEMINI_REQ_P6_RSVD))
			return -GEMINI_PKT_ERR_FIELD;
		pkt->addr = (uint64_t)(p2 & GEMINI_REQ_P2_ADDR_MASK) <<
			    GEMINI_REQ_P2_ADDR_POS | p1;
		pkt->ptag = p2 >> GEMINI_REQ_P2_PTAG_SHIFT;
		pkt->src = p3 >> GEMINI_REQ_P3_SRC_SHIFT;
		pkt->src_nic = p3 >> GEMINI_REQ_P3_SRC_NIC_SHIFT &
			       GEMINI_REQ_P3_SRC_NIC_MASK;
		pkt->flags = (p3 & GEMINI_REQ_P3_ROUTED ?
			      GEMINI_PKT_F_ROUTED : 0) |
			     (p3 & GEMINI_REQ_P3_ADAPT ?
			      GEMINI_PKT_F_ADAPT : 0) |
			     (p3 & GEMINI_REQ_P3_HASH ?
			      GEMINI_PKT_F_HASH : 0) |
			     (p5 & GEMINI_REQ_P5_FETCH ?
			      GEMINI_PKT_F_FETCH : 0) |
			     (p5 & GEMINI_REQ_P5_REMOTE_EVENT ?
			      GEMINI_PKT_F_REMOTE_EVENT : 0) |
			     (p5 & GEMINI_REQ_P5_LAST ?
			      GEMINI_PKT_F_LAST : 0);
		pkt->mdh = p4 >> GEMINI_REQ_P4_MDH_SHIFT;
		pkt->amo_op = p4 >> GEMINI_REQ_P4_AMO_OP_SHIFT &
			      GEMINI_REQ_P4_AMO_OP_MASK;
		pkt->hops = p5 >> GEMINI_REQ_P5_HOPS_SHIFT;
		pkt->tag = p6 >> GEMINI_REQ_P6_TAG_SHIFT;
		pkt->seq = (p6 >> GEMINI_REQ_P6_SEQ_SHIFT &
			    GEMINI_REQ_P6_SEQ_MASK) << GEMINI_REQ_P5_SEQ_BITS |
			   (p5 & GEMINI_REQ_P5_SEQ_MASK);
	} else {
		pkt->tag = (p0 >> GEMINI_P0_RSP_TAG_HI_SHIFT &
			    GEMINI_P0_RSP_TAG_HI_MASK) << RSP_TAG_LO_BITS |
			   (p1 >> GEMINI_RSP_P1_TAG_LO_SHIFT &
			    GEMINI_RSP_P1_TAG_LO_MASK);
		if (type != GEMINI_PKT_ACK) {
			pkt->status = p1 >> GEMINI_RSP_P1_STATUS_SHIFT &
				      GEMINI_RSP_P1_STATUS_MASK;
			pkt->hops = p1 >> GEMINI_RSP_P1_HOPS_SHIFT &
				    GEMINI_RSP_P1_HOPS_MASK;
		}
	}

	err = check_pkt(pkt);
	if (!err && has_data(type))
		err = get_data(wire + (pkt->vc == GEMINI_VC_REQ ?
				       GEMINI_REQ_HDR_PHITS :
				       GEMINI_RSP_HDR_PHITS) * GEMINI_PHIT_BYTES,
			       pkt);
	return -err;
}

const char *gemini_pkt_error_name(int err)
{
	static const char *const names[] = {
		[GEMINI_PKT_OK] = "ok",
		[GEMINI_PKT_ERR_SHORT] = "short",
		[GEMINI_PKT_ERR_LONG] = "long",
		[GEMINI_PKT_ERR_PHIT] = "partial phit",
		[GEMINI_PKT_ERR_CRC] = "CRC",
		[GEMINI_PKT_ERR_TYPE] = "type",
		[GEMINI_PKT_ERR_LEN] = "length",
		[GEMINI_PKT_ERR_EOP] = "end phit",
		[GEMINI_PKT_ERR_FIELD] = "reserved field",
		[GEMINI_PKT_ERR_ARG] = "invalid packet",
	};

	const int n = sizeof(names) / sizeof(names[0]);

	/* the negative returns of decode and encode as they are */
	if (err < 0 && err > -n)
		err = -err;
	if (err < 0 || err >= n)
		return "?";
	return names[err];
}

const char *gemini_pkt_type_name(unsigned int type)
{
	return type_valid(type) ? types[type].name : "?";
}
