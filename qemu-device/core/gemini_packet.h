/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cray-gemini device core: Gemini network packets, decoded.
 *
 * On a link a packet is a run of 24-bit phits (uapi/gemini_pkt.h gives the
 * wire layout); inside the device it is a struct gemini_pkt.  Decoding
 * checks everything a peer could get wrong, so the router and NIC only
 * ever see well-formed packets.
 */
#ifndef GEMINI_PACKET_H
#define GEMINI_PACKET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gemini_pkt.h"

/**
 * struct gemini_pkt - a decoded packet
 * @vc: GEMINI_VC_REQ or GEMINI_VC_RSP
 * @vclass: dateline class of the virtual channel, 0 or 1 (router's)
 * @type: enum gemini_pkt_type; implies the VC and the header size
 * @flags: GEMINI_PKT_F_* (source routed, adaptive, hash, event bits)
 * @dst: destination Gemini id
 * @dst_nic: destination NIC id on that Gemini (2 bits)
 * @src: source Gemini id (requests only; 0 in responses)
 * @src_nic: source NIC id (requests only)
 * @ptag: protection tag (requests only)
 * @amo_op: enum gemini_amo_op, for GEMINI_PKT_AMO
 * @mdh: memory domain handle at the target (12 bits, requests)
 * @addr: byte offset in the target's memory domain (40 bits, requests)
 * @tag: transaction tag the response carries back (10 bits)
 * @seq: the FMA sequence of a request (24 bits), 0 for none; counted at
 *       the target so that the sequence's flag may overtake its requests
 * @status: response status (4 bits, CQ status codes), 0 = OK
 * @hops: routers passed so far (5 bits, saturating)
 * @len: data bytes, 0..GEMINI_PKT_MAX_DATA; for GEMINI_PKT_GET the bytes
 *       requested (1..64), no data travels
 * @data: the data; bytes past @len are zero after decode
 */
struct gemini_pkt {
	uint8_t vc;
	uint8_t vclass;
	uint8_t type;
	uint8_t flags;
	uint16_t dst;
	uint8_t dst_nic;
	uint8_t src_nic;
	uint16_t src;
	uint8_t ptag;
	uint8_t amo_op;
	uint16_t mdh;
	uint16_t tag;
	uint32_t seq;
	uint64_t addr;
	uint8_t status;
	uint8_t hops;
	uint8_t len;
	uint8_t data[GEMINI_PKT_MAX_DATA];
};

/* Why a run of bytes is not a packet (negative returns of decode). */
enum gemini_pkt_error {
	GEMINI_PKT_OK = 0,
	GEMINI_PKT_ERR_SHORT = 1,	/* fewer bytes than the header says */
	GEMINI_PKT_ERR_LONG = 2,	/* more bytes than the header says */
	GEMINI_PKT_ERR_PHIT = 3,	/* not a whole number of phits */
	GEMINI_PKT_ERR_CRC = 4,		/* CRC-16 mismatch */
	GEMINI_PKT_ERR_TYPE = 5,	/* unknown type, or type on wrong VC */
	GEMINI_PKT_ERR_LEN = 6,		/* data length invalid for the type */
	GEMINI_PKT_ERR_EOP = 7,		/* missing or malformed end phit */
	GEMINI_PKT_ERR_FIELD = 8,	/* a reserved bit or field is set */
	GEMINI_PKT_ERR_ARG = 9,		/* encode: the struct is not valid */
};

/* Phits the packet takes on the wire (header + data + end phit). */
unsigned int gemini_pkt_phits(const struct gemini_pkt *pkt);

/* Could @pkt be encoded?  True if gemini_pkt_encode() would take it. */
bool gemini_pkt_valid(const struct gemini_pkt *pkt);

/*
 * Encode @pkt into @wire (@cap bytes), computing its CRC.  Returns the
 * number of bytes written (3 * phits) or -GEMINI_PKT_ERR_ARG if @pkt is not
 * valid or @cap too small.
 */
int gemini_pkt_encode(const struct gemini_pkt *pkt, uint8_t *wire,
		      size_t cap);

/*
 * Decode @len bytes at @wire into @pkt.  Returns 0, or a negative
 * enum gemini_pkt_error; @pkt is then unspecified.  Never reads past
 * @wire + @len.
 */
int gemini_pkt_decode(const uint8_t *wire, size_t len, struct gemini_pkt *pkt);

/* The CRC-16 of the packets (polynomial and seed in gemini_pkt.h). */
uint16_t gemini_crc16(const uint8_t *buf, size_t len);

const char *gemini_pkt_error_name(int err);
const char *gemini_pkt_type_name(unsigned int type);

#endif /* GEMINI_PACKET_H */
