// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Host unit tests of the Gemini packet encoder, decoder and CRC.  Prints
 * TAP; meant to run under ASan and UBSan.  Packets that decode reads are
 * placed at the very end of a malloc'd block, so that any read past them
 * is an ASan error.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemini_packet.h"
#include "tap.h"

/* Deterministic PRNG (xorshift64*), so that failures repeat. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static unsigned int rnd_below(unsigned int n)
{
	return (unsigned int)(rnd() % n);
}

/* Decode @len bytes copied to the end of an allocation of exactly @len. */
static int decode_at_end(const uint8_t *wire, size_t len,
			 struct gemini_pkt *pkt)
{
	uint8_t *buf = malloc(len ? len : 1);
	uint8_t *at = buf + (len ? 0 : 1);
	int r;

	if (!buf)
		abort();
	memcpy(at, wire, len);
	r = gemini_pkt_decode(at, len, pkt);
	free(buf);
	return r;
}

static int pkt_equal(const struct gemini_pkt *a, const struct gemini_pkt *b)
{
	return a->vc == b->vc && a->vclass == b->vclass &&
	       a->type == b->type && a->flags == b->flags &&
	       a->dst == b->dst && a->dst_nic == b->dst_nic &&
	       a->src == b->src && a->src_nic == b->src_nic &&
	       a->ptag == b->ptag && a->amo_op == b->amo_op &&
	       a->mdh == b->mdh && a->tag == b->tag && a->seq == b->seq &&
	       a->addr == b->addr &&
	       a->status == b->status && a->hops == b->hops &&
	       a->len == b->len && !memcmp(a->data, b->data, sizeof(a->data));
}

static const unsigned int all_types[] = {
	GEMINI_PKT_PUT, GEMINI_PKT_GET, GEMINI_PKT_AMO, GEMINI_PKT_CQWRITE,
	GEMINI_PKT_DIAG, GEMINI_PKT_SEND, GEMINI_PKT_ACK, GEMINI_PKT_ERR,
	GEMINI_PKT_DATA, GEMINI_PKT_DIAG_RSP,
};

#define NTYPES (sizeof(all_types) / sizeof(all_types[0]))

static const unsigned int amo_ops[] = {
	GEMINI_AMO_ADD, GEMINI_AMO_AND, GEMINI_AMO_OR, GEMINI_AMO_XOR,
	GEMINI_AMO_AX, GEMINI_AMO_CSWAP,
};

/* Is @len a valid data length for @type (AMO: for some op)? */
static int len_ok(unsigned int type, unsigned int len)
{
	switch (type) {
	case GEMINI_PKT_PUT:
	case GEMINI_PKT_GET:
	case GEMINI_PKT_DATA:
		return len >= 1 && len <= 64;
	case GEMINI_PKT_AMO:
		return len == 8 || len == 16;
	case GEMINI_PKT_CQWRITE:
		return len == 8;
	case GEMINI_PKT_SEND:
		/* mk() sets F_LAST: a message's end, with or without imm data */
		return len == 0 || len == 8;
	case GEMINI_PKT_DIAG:
	case GEMINI_PKT_DIAG_RSP:
		return len <= 64;
	default:
		return len == 0;
	}
}

/* A valid packet of @type with @len bytes and ordinary field values. */
static struct gemini_pkt mk(unsigned int type, unsigned int len)
{
	struct gemini_pkt p;
	unsigned int i;

	memset(&p, 0, sizeof(p));
	p.type = type;
	p.vc = GEMINI_PKT_TYPE_VC(type);
	p.dst = 0x1234;
	p.dst_nic = 1;
	p.tag = 0x155;
	p.len = len;
	if (p.vc == GEMINI_VC_REQ) {
		p.src = 0x4321;
		p.src_nic = 2;
		p.ptag = 0x77;
		p.mdh = 0x9ab;
		p.addr = 0x0123456780ull;
		p.hops = 3;
		p.flags = GEMINI_PKT_F_ADAPT | GEMINI_PKT_F_LAST;
	} else if (type != GEMINI_PKT_ACK) {
		p.hops = 5;
	}
	if (type == GEMINI_PKT_AMO) {
		p.amo_op = len == 16 ? GEMINI_AMO_CSWAP : GEMINI_AMO_ADD;
		p.flags |= GEMINI_PKT_F_FETCH;
	}
	if (type == GEMINI_PKT_ERR)
		p.status = GEMINI_STATUS_BOUNDS;
	if (type == GEMINI_PKT_GET)
		return p;
	for (i = 0; i < len; i++)
		p.data[i] = (uint8_t)(0xa0 + i * 7);
	return p;
}

/* Encode @p, decode it back and compare; returns the encoded size. */
static int round_trip(const struct gemini_pkt *p)
{
	uint8_t wire[GEMINI_PKT_MAX_BYTES], again[GEMINI_PKT_MAX_BYTES];
	struct gemini_pkt q;
	int n, m;

	n = gemini_pkt_encode(p, wire, sizeof(wire));
	CHECK(n > 0);
	if (n <= 0) {
		printf("#   encode %s len %u: %s\n",
		       gemini_pkt_type_name(p->type), p->len,
		       gemini_pkt_error_name(n));
		return n;
	}
	CHECK_EQ(n, gemini_pkt_phits(p) * GEMINI_PHIT_BYTES);
	memset(&q, 0xff, sizeof(q));
	CHECK_EQ(decode_at_end(wire, n, &q), 0);
	CHECK(pkt_equal(p, &q));
	/* one packet, one encoding */
	m = gemini_pkt_encode(&q, again, sizeof(again));
	CHECK_EQ(m, n);
	CHECK(m == n && !memcmp(wire, again, n));
	return n;
}

/* Recompute the CRC of a hand-made packet, the way the header says. */
static void fix_crc(uint8_t *wire, size_t n)
{
	uint16_t crc;

	wire[n - 3] = 0;
	wire[n - 2] = 0;
	crc = gemini_crc16(wire, n);
	wire[n - 3] = crc & 0xff;
	wire[n - 2] = crc >> 8;
}

static uint32_t phit(const uint8_t *wire, unsigned int i)
{
	return wire[3 * i] | wire[3 * i + 1] << 8 | (uint32_t)wire[3 * i + 2] << 16;
}

static void set_phit(uint8_t *wire, unsigned int i, uint32_t v)
{
	wire[3 * i] = v & 0xff;
	wire[3 * i + 1] = (v >> 8) & 0xff;
	wire[3 * i + 2] = (v >> 16) & 0xff;
}

/* ---------------------------------------------------------------------- */

static uint16_t crc_bitwise(const uint8_t *buf, size_t len)
{
	uint16_t crc = 0xffff;
	size_t i;
	int b;

	for (i = 0; i < len; i++) {
		crc ^= (uint16_t)(buf[i] << 8);
		for (b = 0; b < 8; b++)
			crc = crc & 0x8000 ? (uint16_t)(crc << 1) ^ 0x1021 :
					     (uint16_t)(crc << 1);
	}
	return crc;
}

static void test_crc(void)
{
	uint8_t buf[200];
	size_t len, i;

	CHECK_EQ(gemini_crc16((const uint8_t *)"123456789", 9), 0x29b1);
	CHECK_EQ(GEMINI_CRC16_CHECK, 0x29b1);
	CHECK_EQ(gemini_crc16(buf, 0), GEMINI_CRC16_INIT);
	for (len = 0; len <= sizeof(buf); len++) {
		for (i = 0; i < len; i++)
			buf[i] = (uint8_t)rnd();
		CHECK_EQ(gemini_crc16(buf, len), crc_bitwise(buf, len));
	}
}

static void test_spec_sizes(void)
{
	static const struct {
		unsigned int type, len, phits;
	} ex[] = {
		{ GEMINI_PKT_PUT, 8, 11 },	/* 7 + 3 + 1 */
		{ GEMINI_PKT_PUT, 64, 32 },	/* 7 + 24 + 1 */
		{ GEMINI_PKT_PUT, 1, 11 },
		{ GEMINI_PKT_PUT, 9, 14 },
		{ GEMINI_PKT_GET, 64, 8 },	/* 7 + EOP */
		{ GEMINI_PKT_GET, 1, 8 },
		{ GEMINI_PKT_ACK, 0, 2 },
		{ GEMINI_PKT_ERR, 0, 3 },
		{ GEMINI_PKT_DATA, 64, 27 },	/* 2 + 24 + 1 */
		{ GEMINI_PKT_DATA, 8, 6 },	/* fetching-AMO result */
		{ GEMINI_PKT_DIAG, 0, 8 },
		{ GEMINI_PKT_DIAG_RSP, 0, 3 },
		{ GEMINI_PKT_AMO, 8, 11 },
		{ GEMINI_PKT_AMO, 16, 14 },
		{ GEMINI_PKT_CQWRITE, 8, 11 },
	};
	unsigned int i;

	for (i = 0; i < sizeof(ex) / sizeof(ex[0]); i++) {
		struct gemini_pkt p = mk(ex[i].type, ex[i].len);

		CHECK_EQ(gemini_pkt_phits(&p), ex[i].phits);
		CHECK_EQ(round_trip(&p), ex[i].phits * 3);
	}
	CHECK_EQ(GEMINI_REQ_PHITS(8), 11);
	CHECK_EQ(GEMINI_REQ_PHITS(64), GEMINI_PKT_MAX_PHITS);
	CHECK_EQ(GEMINI_RSP_PHITS(64), 27);
	CHECK_EQ(GEMINI_GET_REQ_PHITS, 8);
	CHECK_EQ(GEMINI_PKT_MAX_BYTES, 96);
	/* not packets: no size */
	{
		struct gemini_pkt p = mk(GEMINI_PKT_PUT, 8);

		p.len = 65;
		CHECK_EQ(gemini_pkt_phits(&p), 0);
		p.len = 8;
		p.type = 0;
		CHECK_EQ(gemini_pkt_phits(&p), 0);
		p.type = 7;
		CHECK_EQ(gemini_pkt_phits(&p), 0);
	}
}

/* The bit positions of the layout table in uapi/gemini_pkt.h, literally. */
static void test_wire_layout(void)
{
	uint8_t w[GEMINI_PKT_MAX_BYTES], z[GEMINI_PKT_MAX_BYTES];
	struct gemini_pkt p;
	unsigned int i;
	int n;

	memset(&p, 0, sizeof(p));
	p.type = GEMINI_PKT_PUT;
	p.vclass = 1;
	p.dst = 0x1234;
	p.dst_nic = 2;
	p.src = 0xabcd;
	p.src_nic = 1;
	p.ptag = 0x5a;
	p.addr = 0x123456789aull;
	p.mdh = 0x321;
	p.tag = 0x2c5;
	p.seq = 0xa5c3e1;
	p.hops = 17;
	p.flags = GEMINI_PKT_F_ADAPT | GEMINI_PKT_F_HASH |
		  GEMINI_PKT_F_REMOTE_EVENT | GEMINI_PKT_F_LAST;
	p.len = 9;
	for (i = 0; i < 9; i++)
		p.data[i] = i + 1;
	n = gemini_pkt_encode(&p, w, sizeof(w));
	CHECK_EQ(n, 14 * 3);
	CHECK_EQ(phit(w, 0), 1u << 23 | 0x1234u << 6 | 2u << 4 | 1u);
	CHECK_EQ(phit(w, 1), 0x56789a);
	CHECK_EQ(phit(w, 2), 0x5au << 16 | 0x1234u);
	CHECK_EQ(phit(w, 3), 0xabcdu << 8 | 1u << 6 | 1u << 4 | 1u << 3);
	CHECK_EQ(phit(w, 4), 0x321u << 12 | 9u);
	CHECK_EQ(phit(w, 5), 17u << 19 | 1u << 17 | 1u << 16 | 0xc3e1u);
	CHECK_EQ(phit(w, 6), 0x2c5u << 14 | 0xa5u << 6);
	/* data[0] is the low byte of the first data phit */
	CHECK_EQ(phit(w, 7), 0x030201);
	CHECK_EQ(phit(w, 8), 0x060504);
	CHECK_EQ(phit(w, 9), 0x000807);	/* side-band byte 0 */
	CHECK_EQ(phit(w, 10), 0x000009);	/* padding */
	CHECK_EQ(phit(w, 11), 0);
	CHECK_EQ(phit(w, 12), 0);
	CHECK_EQ(phit(w, 13) >> 16, 0xa5);
	memcpy(z, w, n);
	z[n - 3] = 0;
	z[n - 2] = 0;
	CHECK_EQ(phit(w, 13) & 0xffff, gemini_crc16(z, n));

	/* the other request bits: routed, fetch, amo_op, src_nic */
	p.type = GEMINI_PKT_DIAG;
	p.flags = GEMINI_PKT_F_ROUTED;
	p.len = 0;
	p.src_nic = 3;
	p.seq = 0;
	n = gemini_pkt_encode(&p, w, sizeof(w));
	CHECK_EQ(n, 8 * 3);
	CHECK_EQ(phit(w, 0) & 0xf, 5);
	CHECK_EQ(phit(w, 3), 0xabcdu << 8 | 3u << 6 | 1u << 5);
	CHECK_EQ(phit(w, 5), 17u << 19);
	p.type = GEMINI_PKT_AMO;
	p.flags = GEMINI_PKT_F_FETCH;
	p.amo_op = GEMINI_AMO_AX;
	p.len = 16;
	n = gemini_pkt_encode(&p, w, sizeof(w));
	CHECK_EQ(n, 14 * 3);
	CHECK_EQ(phit(w, 0) & 0xf, 3);
	CHECK_EQ(phit(w, 4), 0x321u << 12 | 0x0cu << 7 | 16u);
	CHECK_EQ(phit(w, 5), 17u << 19 | 1u << 18);

	/* a data response */
	memset(&p, 0, sizeof(p));
	p.type = GEMINI_PKT_DATA;
	p.vc = GEMINI_VC_RSP;
	p.dst = 0xfedc;
	p.dst_nic = 3;
	p.tag = 0x3a7;
	p.hops = 31;
	p.len = 64;
	for (i = 0; i < 64; i++)
		p.data[i] = 0xff;
	n = gemini_pkt_encode(&p, w, sizeof(w));
	CHECK_EQ(n, 27 * 3);
	CHECK_EQ(phit(w, 0), 1u << 22 | 0xfedcu << 6 | 3u << 4 | 2u << 2 | 3u);
	CHECK_EQ(phit(w, 1), 0xa7u << 16 | 31u << 7 | 64u);
	for (i = 0; i < 8; i++) {
		CHECK_EQ(phit(w, 2 + 3 * i), 0xffffff);
		CHECK_EQ(phit(w, 3 + 3 * i), 0xffffff);
		CHECK_EQ(phit(w, 4 + 3 * i), 0x00ffff);
	}
	CHECK_EQ(phit(w, 26) >> 16, 0xa5);

	/* ACK: tag, then the CRC in the second phit */
	p.type = GEMINI_PKT_ACK;
	p.hops = 0;
	p.len = 0;
	p.vclass = 1;
	n = gemini_pkt_encode(&p, w, sizeof(w));
	CHECK_EQ(n, 6);
	CHECK_EQ(phit(w, 0), 3u << 22 | 0xfedcu << 6 | 3u << 4 | 0u << 2 | 3u);
	CHECK_EQ(phit(w, 1) >> 16, 0xa7);
	memcpy(z, w, n);
	z[3] = 0;
	z[4] = 0;
	CHECK_EQ(phit(w, 1) & 0xffff, gemini_crc16(z, n));

	/* ERR: status and hops, then an end phit */
	p.type = GEMINI_PKT_ERR;
	p.status = GEMINI_STATUS_PROTECTION;
	p.hops = 2;
	n = gemini_pkt_encode(&p, w, sizeof(w));
	CHECK_EQ(n, 9);
	CHECK_EQ(phit(w, 0) >> 2 & 3, 1);
	CHECK_EQ(phit(w, 1), 0xa7u << 16 | 8u << 12 | 2u << 7);
	CHECK_EQ(phit(w, 2) >> 16, 0xa5);

	/* DIAG_RSP is response type 3 */
	p.type = GEMINI_PKT_DIAG_RSP;
	p.status = 0;
	n = gemini_pkt_encode(&p, w, sizeof(w));
	CHECK_EQ(n, 9);
	CHECK_EQ(phit(w, 0) >> 2 & 3, 3);
}

static const unsigned int lens[] = { 0, 1, 7, 8, 9, 15, 16, 17, 63, 64 };

static void test_round_trip_lengths(void)
{
	unsigned int t, l, count = 0;

	for (t = 0; t < NTYPES; t++) {
		for (l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
			struct gemini_pkt p;

			if (!len_ok(all_types[t], lens[l]))
				continue;
			p = mk(all_types[t], lens[l]);
			round_trip(&p);
			count++;
		}
	}
	/* every len 0..64 of PUT and DIAG_RSP, byte values 0..255 */
	for (l = 0; l <= 64; l++) {
		struct gemini_pkt p = mk(GEMINI_PKT_DIAG_RSP, l);
		unsigned int i;

		for (i = 0; i < l; i++)
			p.data[i] = (uint8_t)(l * 64 + i);
		round_trip(&p);
		if (l) {
			p = mk(GEMINI_PKT_PUT, l);
			for (i = 0; i < l; i++)
				p.data[i] = (uint8_t)(255 - l * 64 - i);
			round_trip(&p);
		}
	}
	CHECK(count >= 40);
}

static void test_round_trip_fields(void)
{
	static const uint16_t ids[] = { 0, 1, 0x8000, 0xffff };
	static const uint64_t addrs[] = {
		0, 1, 0x3f, 0x40, 0xffffff, 0x1000000, (1ull << 40) - 1,
	};
	static const uint16_t tags[] = { 0, 1, 0xff, 0x100, 1023 };
	unsigned int t, i, j, f, st;

	for (t = 0; t < NTYPES; t++) {
		unsigned int type = all_types[t];
		struct gemini_pkt base = mk(type, len_ok(type, 8) ? 8 : 0);
		int req = base.vc == GEMINI_VC_REQ;

		for (i = 0; i < 4; i++) {
			struct gemini_pkt p = base;

			p.dst = ids[i];
			p.dst_nic = i;
			p.vclass = i & 1;
			p.tag = tags[i];
			if (type != GEMINI_PKT_ACK)
				p.hops = i == 3 ? 31 : i;
			if (req) {
				p.src = ids[3 - i];
				p.src_nic = 3 - i;
				p.ptag = i == 3 ? 0xff : i;
				p.mdh = i == 3 ? 0xfff : i;
			}
			round_trip(&p);
		}
		for (i = 0; i < sizeof(tags) / sizeof(tags[0]); i++) {
			struct gemini_pkt p = base;

			p.tag = tags[i];
			round_trip(&p);
		}
		if (!req)
			continue;
		for (i = 0; i < sizeof(addrs) / sizeof(addrs[0]); i++) {
			struct gemini_pkt p = base;

			p.addr = addrs[i];
			round_trip(&p);
		}
		/* every flag combination the type allows */
		for (f = 0; f < 64; f++) {
			struct gemini_pkt p = base;
			uint8_t buf[GEMINI_PKT_MAX_BYTES];
			int allowed = !(f & GEMINI_PKT_F_ROUTED) ||
				      type == GEMINI_PKT_DIAG;

			/* base is an 8-byte PUT: no flag */
			if (f & GEMINI_PKT_F_FETCH)
				allowed &= type == GEMINI_PKT_AMO;
			p.flags = f;
			if (type == GEMINI_PKT_AMO) {
				/* base is an 8-byte ADD */
				CHECK_EQ(p.amo_op, GEMINI_AMO_ADD);
			}
			if (allowed)
				round_trip(&p);
			else
				CHECK_EQ(gemini_pkt_encode(&p, buf, sizeof(buf)),
					 -GEMINI_PKT_ERR_ARG);
		}
	}

	/* every AMO, fetching or not (compare-swap only fetching) */
	for (i = 0; i < sizeof(amo_ops) / sizeof(amo_ops[0]); i++) {
		for (j = 0; j < 2; j++) {
			struct gemini_pkt p = mk(GEMINI_PKT_AMO, 8);

			p.amo_op = amo_ops[i];
			p.len = GEMINI_AMO_LEN(amo_ops[i]);
			p.flags = j ? GEMINI_PKT_F_FETCH : 0;
			memset(p.data, 0, sizeof(p.data));
			memset(p.data, 0x5c, p.len);
			if (amo_ops[i] == GEMINI_AMO_CSWAP && !j) {
				uint8_t buf[GEMINI_PKT_MAX_BYTES];

				CHECK_EQ(gemini_pkt_encode(&p, buf, sizeof(buf)),
					 -GEMINI_PKT_ERR_ARG);
				continue;
			}
			CHECK_EQ(round_trip(&p), GEMINI_REQ_PHITS(p.len) * 3);
		}
	}

	/* every error status */
	for (st = 1; st <= 15; st++) {
		struct gemini_pkt p = mk(GEMINI_PKT_ERR, 0);

		p.status = st;
		CHECK_EQ(round_trip(&p), 9);
	}
}

/* Random valid packets round-trip and re-encode to the same bytes. */
static void test_round_trip_random(void)
{
	unsigned int it;

	for (it = 0; it < 20000; it++) {
		unsigned int type = all_types[rnd_below(NTYPES)];
		struct gemini_pkt p;
		unsigned int len, i;

		do
			len = rnd_below(65);
		while (!len_ok(type, len));
		p = mk(type, len);
		p.vclass = rnd() & 1;
		p.dst = rnd();
		p.dst_nic = rnd() & 3;
		p.tag = rnd() & 1023;
		if (p.vc == GEMINI_VC_REQ)
			p.seq = rnd() & GEMINI_PKT_SEQ_MAX;
		if (type != GEMINI_PKT_ACK)
			p.hops = rnd() & 31;
		if (p.vc == GEMINI_VC_REQ) {
			p.src = rnd();
			p.src_nic = rnd() & 3;
			p.ptag = rnd();
			p.mdh = rnd() & 0xfff;
			p.addr = rnd() & ((1ull << 40) - 1);
			p.flags = rnd() & (GEMINI_PKT_F_ADAPT |
					   GEMINI_PKT_F_HASH |
					   GEMINI_PKT_F_REMOTE_EVENT |
					   GEMINI_PKT_F_LAST);
			if (type == GEMINI_PKT_DIAG && (rnd() & 1))
				p.flags |= GEMINI_PKT_F_ROUTED;
			/* len_ok() gave a SEND's end */
			if (type == GEMINI_PKT_SEND)
				p.flags |= GEMINI_PKT_F_LAST;
			if (type == GEMINI_PKT_AMO) {
				do
					p.amo_op = amo_ops[rnd_below(6)];
				while (GEMINI_AMO_LEN(p.amo_op) != len);
				if (p.amo_op == GEMINI_AMO_CSWAP ||
				    (rnd() & 1))
					p.flags |= GEMINI_PKT_F_FETCH;
			}
		}
		if (type == GEMINI_PKT_ERR)
			p.status = 1 + rnd_below(15);
		if (type != GEMINI_PKT_GET)
			for (i = 0; i < len; i++)
				p.data[i] = rnd();
		round_trip(&p);
		if (failures_in_test)
			break;
	}
}

/* A sample of encoded packets of every shape. */
static unsigned int samples(uint8_t wire[][GEMINI_PKT_MAX_BYTES],
			    size_t *n, unsigned int max)
{
	static const struct {
		unsigned int type, len;
	} s[] = {
		{ GEMINI_PKT_PUT, 8 }, { GEMINI_PKT_PUT, 64 },
		{ GEMINI_PKT_PUT, 13 }, { GEMINI_PKT_GET, 64 },
		{ GEMINI_PKT_AMO, 16 }, { GEMINI_PKT_AMO, 8 },
		{ GEMINI_PKT_CQWRITE, 8 }, { GEMINI_PKT_DIAG, 0 },
		{ GEMINI_PKT_DIAG, 33 }, { GEMINI_PKT_ACK, 0 },
		{ GEMINI_PKT_ERR, 0 }, { GEMINI_PKT_DATA, 64 },
		{ GEMINI_PKT_DATA, 1 }, { GEMINI_PKT_DIAG_RSP, 0 },
		{ GEMINI_PKT_DIAG_RSP, 20 },
	};
	unsigned int i;

	for (i = 0; i < max && i < sizeof(s) / sizeof(s[0]); i++) {
		struct gemini_pkt p = mk(s[i].type, s[i].len);
		int r = gemini_pkt_encode(&p, wire[i], GEMINI_PKT_MAX_BYTES);

		CHECK(r > 0);
		n[i] = r > 0 ? (size_t)r : 0;
	}
	return i;
}

static void test_bit_flips(void)
{
	uint8_t wire[16][GEMINI_PKT_MAX_BYTES], w[GEMINI_PKT_MAX_BYTES];
	unsigned int ns, s, bit, flips = 0, crc_errs = 0;
	size_t n[16];
	struct gemini_pkt q;

	ns = samples(wire, n, 16);
	for (s = 0; s < ns; s++) {
		for (bit = 0; bit < n[s] * 8; bit++) {
			int r;

			memcpy(w, wire[s], n[s]);
			w[bit / 8] ^= 1u << (bit % 8);
			r = decode_at_end(w, n[s], &q);
			CHECK(r < 0);
			if (r >= 0)
				printf("#   sample %u bit %u accepted\n", s, bit);
			flips++;
			crc_errs += r == -GEMINI_PKT_ERR_CRC;
		}
	}
	/* only flips of the type and length bits escape as framing errors */
	printf("#   %u flips, %u reported as CRC errors\n", flips, crc_errs);
	CHECK(crc_errs * 10 > flips * 9);
}

static void test_truncate_extend(void)
{
	uint8_t wire[16][GEMINI_PKT_MAX_BYTES], w[GEMINI_PKT_MAX_BYTES + 64];
	unsigned int ns, s;
	size_t n[16], k, e;
	struct gemini_pkt q;

	ns = samples(wire, n, 16);
	for (s = 0; s < ns; s++) {
		for (k = 0; k < n[s]; k++)
			CHECK_EQ(decode_at_end(wire[s], k, &q),
				 k % 3 ? -GEMINI_PKT_ERR_PHIT :
				 -GEMINI_PKT_ERR_SHORT);
		for (e = 1; n[s] + e <= sizeof(w); e++) {
			size_t i;

			memcpy(w, wire[s], n[s]);
			/* zeros, then a copy of the packet itself */
			for (i = 0; i < e; i++)
				w[n[s] + i] = (e & 1) ? 0 : wire[s][i % n[s]];
			CHECK_EQ(decode_at_end(w, n[s] + e, &q),
				 e % 3 ? -GEMINI_PKT_ERR_PHIT :
				 -GEMINI_PKT_ERR_LONG);
		}
		CHECK_EQ(decode_at_end(wire[s], n[s], &q), 0);
	}
	/* two back-to-back packets are not one */
	memcpy(w, wire[0], n[0]);
	memcpy(w + n[0], wire[9], n[9]);
	CHECK_EQ(decode_at_end(w, n[0] + n[9], &q), -GEMINI_PKT_ERR_LONG);
}

static void test_partial_phits(void)
{
	uint8_t w[GEMINI_PKT_MAX_BYTES + 8];
	struct gemini_pkt q;
	size_t len, i;

	for (len = 1; len < sizeof(w); len++) {
		if (len % 3 == 0)
			continue;
		for (i = 0; i < len; i++)
			w[i] = rnd();
		CHECK_EQ(decode_at_end(w, len, &q), -GEMINI_PKT_ERR_PHIT);
		memset(w, 0, len);
		CHECK_EQ(decode_at_end(w, len, &q), -GEMINI_PKT_ERR_PHIT);
	}
	CHECK_EQ(decode_at_end(w, 0, &q), -GEMINI_PKT_ERR_SHORT);
	CHECK_EQ(decode_at_end(w, 3, &q), -GEMINI_PKT_ERR_SHORT);
}

/* A buffer that decodes must be the one encoding of what it decodes to. */
static void check_canonical(const uint8_t *w, size_t len,
			    const struct gemini_pkt *q)
{
	uint8_t again[GEMINI_PKT_MAX_BYTES];
	int m = gemini_pkt_encode(q, again, sizeof(again));

	CHECK_EQ(m, (long long)len);
	CHECK(m == (int)len && !memcmp(w, again, len));
}

/*
 * Random bytes framed as a packet of a random type and length (len 0..64,
 * valid for the type or not), so that decode gets past the framing.
 */
static size_t random_framed(uint8_t *w)
{
	unsigned int type = all_types[rnd_below(NTYPES)];
	struct gemini_pkt p;
	size_t len, i;
	uint32_t p0;

	memset(&p, 0, sizeof(p));
	p.type = type;
	p.len = rnd_below(65);
	len = gemini_pkt_phits(&p) * 3;
	for (i = 0; i < len; i++)
		w[i] = rnd();
	p0 = phit(w, 0);
	if (GEMINI_PKT_TYPE_VC(type) == GEMINI_VC_REQ) {
		set_phit(w, 0, (p0 & ~0x40000fu) | type);
		set_phit(w, 4, (phit(w, 4) & ~0x7fu) | p.len);
	} else {
		set_phit(w, 0, (p0 & ~0xcu) | 1u << 22 |
			 (type - GEMINI_PKT_ACK) << 2);
		if (type != GEMINI_PKT_ACK)
			set_phit(w, 1, (phit(w, 1) & ~0x7fu) | p.len);
	}
	return len;
}

static void test_random_buffers(void)
{
	uint8_t w[GEMINI_PKT_MAX_BYTES + 16];
	unsigned int it, accepted = 0, deep_accepted = 0;
	unsigned int errs[GEMINI_PKT_ERR_ARG + 1] = { 0 };
	struct gemini_pkt q;
	size_t len, i;

	for (it = 0; it < 100000; it++) {
		unsigned int mode = it % 4;
		int r;

		if (mode < 2) {
			len = rnd_below(4) ? 3 * (1 + rnd_below(34)) :
					     rnd_below(sizeof(w) + 1);
			for (i = 0; i < len; i++)
				w[i] = rnd();
		} else {
			len = random_framed(w);
		}
		/* a plausible head phit */
		if (mode == 1 && len >= 3) {
			uint32_t p0 = phit(w, 0);

			if (rnd() & 1)
				p0 = (p0 & ~0x40000fu) | (1 + rnd_below(5));
			else
				p0 |= 1u << 22;
			set_phit(w, 0, p0);
		}
		/* a correct end phit and CRC: only the field checks remain */
		if (mode == 3) {
			if (len > GEMINI_ACK_PHITS * 3)	/* an ACK has none */
				w[len - 1] = GEMINI_EOP_MARKER;
			fix_crc(w, len);
		}
		r = decode_at_end(w, len, &q);
		CHECK(r <= 0 && r >= -GEMINI_PKT_ERR_FIELD);
		if (r > 0 || r < -GEMINI_PKT_ERR_FIELD)
			break;
		errs[-r]++;
		if (r == 0) {
			if (mode == 3)
				deep_accepted++;
			else
				accepted++;
			check_canonical(w, len, &q);
		}
		if (failures_in_test)
			break;
	}
	printf("#   accepted %u, with a repaired CRC %u\n", accepted,
	       deep_accepted);
	printf("#   short %u long %u phit %u crc %u type %u len %u eop %u field %u\n",
	       errs[1], errs[2], errs[3], errs[4], errs[5], errs[6], errs[7],
	       errs[8]);
	/* the CRC stops practically everything that was not made right */
	CHECK(accepted <= 2);
	CHECK(errs[GEMINI_PKT_ERR_CRC] > 20000);
	CHECK(errs[GEMINI_PKT_ERR_FIELD] > 5000);
	CHECK(errs[GEMINI_PKT_ERR_LEN] > 1000);
}

/* Mutate valid packets a little: what still decodes is canonical. */
static void test_mutations(void)
{
	uint8_t wire[16][GEMINI_PKT_MAX_BYTES], w[GEMINI_PKT_MAX_BYTES];
	unsigned int ns, it, accepted = 0;
	size_t n[16];
	struct gemini_pkt q;

	ns = samples(wire, n, 16);
	for (it = 0; it < 100000; it++) {
		unsigned int s = rnd_below(ns), k, nmut = 1 + rnd_below(4);
		int r;

		memcpy(w, wire[s], n[s]);
		for (k = 0; k < nmut; k++)
			w[rnd_below(n[s])] ^= 1u << rnd_below(8);
		/* sometimes repair the CRC to reach the field checks */
		if (rnd() & 1)
			fix_crc(w, n[s]);
		r = decode_at_end(w, n[s], &q);
		CHECK(r <= 0 && r >= -GEMINI_PKT_ERR_FIELD);
		if (r == 0) {
			accepted++;
			check_canonical(w, n[s], &q);
		}
		if (failures_in_test)
			break;
	}
	printf("#   %u of 100000 mutants accepted (with a repaired CRC)\n",
	       accepted);
}

/* Hand-made packets with a correct CRC, each wrong in one way. */
static void test_decode_errors(void)
{
	uint8_t w[GEMINI_PKT_MAX_BYTES];
	struct gemini_pkt p, q;
	unsigned int t, b;
	int n;

#define ENC(pp)								\
	do {								\
		n = gemini_pkt_encode(&(pp), w, sizeof(w));		\
		CHECK(n > 0);						\
	} while (0)
#define EXPECT(err)							\
	do {								\
		fix_crc(w, n);						\
		CHECK_EQ(decode_at_end(w, n, &q), -(err));		\
	} while (0)

	/* request type codes that are not request types */
	p = mk(GEMINI_PKT_PUT, 8);
	for (t = 0; t < 16; t++) {
		ENC(p);
		set_phit(w, 0, (phit(w, 0) & ~0xfu) | t);
		if (t >= GEMINI_PKT_PUT && t <= GEMINI_PKT_SEND)
			continue;
		EXPECT(GEMINI_PKT_ERR_TYPE);
	}
	/* a 7-phit request header needs 7 phits */
	ENC(p);
	CHECK_EQ(decode_at_end(w, 6 * 3, &q), -GEMINI_PKT_ERR_SHORT);

	/* lengths the type does not allow (8-phit requests: len 0) */
	p = mk(GEMINI_PKT_PUT, 0);
	p.type = GEMINI_PKT_DIAG;
	ENC(p);
	set_phit(w, 0, (phit(w, 0) & ~0xfu) | GEMINI_PKT_PUT);
	EXPECT(GEMINI_PKT_ERR_LEN);
	p = mk(GEMINI_PKT_GET, 1);
	ENC(p);
	set_phit(w, 4, phit(w, 4) & ~0x7fu);		/* GET of 0 bytes */
	EXPECT(GEMINI_PKT_ERR_LEN);
	set_phit(w, 4, phit(w, 4) | 65);		/* GET of 65 bytes */
	EXPECT(GEMINI_PKT_ERR_LEN);
	set_phit(w, 4, phit(w, 4) | 127);
	EXPECT(GEMINI_PKT_ERR_LEN);
	p = mk(GEMINI_PKT_DIAG, 16);			/* CQWRITE of 16 */
	ENC(p);
	set_phit(w, 0, (phit(w, 0) & ~0xfu) | GEMINI_PKT_CQWRITE);
	EXPECT(GEMINI_PKT_ERR_LEN);
	/* a sequence's flag: 24 bytes, with or without its remote event */
	p = mk(GEMINI_PKT_PUT, GEMINI_PKT_FLAG_LEN);
	p.flags = GEMINI_PKT_F_FLAG;
	round_trip(&p);
	p.flags |= GEMINI_PKT_F_REMOTE_EVENT;
	round_trip(&p);
	p = mk(GEMINI_PKT_PUT, 8);
	ENC(p);
	set_phit(w, 5, phit(w, 5) | 1u << 18);		/* a flag of 8 bytes */
	EXPECT(GEMINI_PKT_ERR_LEN);
	p = mk(GEMINI_PKT_AMO, 8);			/* AX with one operand */
	ENC(p);
	set_phit(w, 4, (phit(w, 4) & ~(0x1fu << 7)) | GEMINI_AMO_AX << 7);
	EXPECT(GEMINI_PKT_ERR_LEN);
	p = mk(GEMINI_PKT_AMO, 16);			/* ADD with two */
	ENC(p);
	set_phit(w, 4, (phit(w, 4) & ~(0x1fu << 7)) | GEMINI_AMO_ADD << 7);
	EXPECT(GEMINI_PKT_ERR_LEN);
	p = mk(GEMINI_PKT_DIAG_RSP, 0);			/* DATA of 0 bytes */
	ENC(p);
	set_phit(w, 0, (phit(w, 0) & ~0xcu) | 2u << 2);
	EXPECT(GEMINI_PKT_ERR_LEN);
	p = mk(GEMINI_PKT_ERR, 0);			/* ERR with a len */
	ENC(p);
	set_phit(w, 1, phit(w, 1) | 5);
	EXPECT(GEMINI_PKT_ERR_LEN);
	set_phit(w, 1, phit(w, 1) | 0x7f);		/* beyond 64 */
	EXPECT(GEMINI_PKT_ERR_LEN);
	p = mk(GEMINI_PKT_DATA, 8);			/* response len 100 */
	ENC(p);
	set_phit(w, 1, (phit(w, 1) & ~0x7fu) | 100);
	EXPECT(GEMINI_PKT_ERR_LEN);

	/* end phits without the marker */
	for (t = 0; t < NTYPES; t++) {
		if (all_types[t] == GEMINI_PKT_ACK)
			continue;
		p = mk(all_types[t], len_ok(all_types[t], 8) ? 8 : 0);
		ENC(p);
		for (b = 16; b < 24; b++) {
			set_phit(w, n / 3 - 1, phit(w, n / 3 - 1) ^ 1u << b);
			EXPECT(GEMINI_PKT_ERR_EOP);
			set_phit(w, n / 3 - 1, phit(w, n / 3 - 1) ^ 1u << b);
		}
	}

	/* every reserved header bit of a request */
	p = mk(GEMINI_PKT_PUT, 8);
	for (b = 0; b < 3; b++) {
		ENC(p);
		set_phit(w, 3, phit(w, 3) | 1u << b);
		EXPECT(GEMINI_PKT_ERR_FIELD);
	}
	for (b = 0; b < 6; b++) {
		ENC(p);
		set_phit(w, 6, phit(w, 6) | 1u << b);
		EXPECT(GEMINI_PKT_ERR_FIELD);
	}
	/* side-band bytes and padding */
	p = mk(GEMINI_PKT_PUT, 64);
	for (b = 0; b < 8; b++) {
		ENC(p);
		w[7 * 3 + 9 * b + 8] = 1u << b;
		EXPECT(GEMINI_PKT_ERR_FIELD);
	}
	p = mk(GEMINI_PKT_DATA, 9);
	for (b = 1; b < 9; b++) {
		ENC(p);
		w[2 * 3 + 9 + b] = 0x80;
		EXPECT(GEMINI_PKT_ERR_FIELD);
	}
	/* fields with values no packet has */
	p = mk(GEMINI_PKT_AMO, 8);
	for (t = 0; t < 32; t++) {
		ENC(p);
		set_phit(w, 4, (phit(w, 4) & ~(0x1fu << 7)) | t << 7);
		if (t >= GEMINI_AMO_ADD && t <= GEMINI_AMO_XOR)
			continue;
		EXPECT(t == GEMINI_AMO_AX || t == GEMINI_AMO_CSWAP ?
		       GEMINI_PKT_ERR_LEN : GEMINI_PKT_ERR_FIELD);
	}
	p = mk(GEMINI_PKT_AMO, 16);			/* CSWAP, not fetching */
	ENC(p);
	set_phit(w, 5, phit(w, 5) & ~(1u << 18));
	EXPECT(GEMINI_PKT_ERR_FIELD);
	p = mk(GEMINI_PKT_GET, 8);
	ENC(p);
	set_phit(w, 5, phit(w, 5) | 1u << 18);		/* fetching GET */
	EXPECT(GEMINI_PKT_ERR_FIELD);
	p = mk(GEMINI_PKT_PUT, 9);
	ENC(p);
	set_phit(w, 5, phit(w, 5) | 1u << 18);		/* a flag of 9 bytes */
	EXPECT(GEMINI_PKT_ERR_LEN);
	p = mk(GEMINI_PKT_PUT, 8);
	ENC(p);
	set_phit(w, 3, phit(w, 3) | 1u << 5);		/* routed PUT */
	EXPECT(GEMINI_PKT_ERR_FIELD);
	ENC(p);
	set_phit(w, 4, phit(w, 4) | GEMINI_AMO_ADD << 7); /* op in a PUT */
	EXPECT(GEMINI_PKT_ERR_FIELD);
	p = mk(GEMINI_PKT_ERR, 0);			/* ERR, status 0 */
	ENC(p);
	set_phit(w, 1, phit(w, 1) & ~(0xfu << 12));
	EXPECT(GEMINI_PKT_ERR_FIELD);
	p = mk(GEMINI_PKT_DATA, 8);			/* DATA with a status */
	ENC(p);
	set_phit(w, 1, phit(w, 1) | 3u << 12);
	EXPECT(GEMINI_PKT_ERR_FIELD);

	/* and the CRC itself */
	p = mk(GEMINI_PKT_ACK, 0);
	ENC(p);
	w[3] ^= 1;
	CHECK_EQ(decode_at_end(w, n, &q), -GEMINI_PKT_ERR_CRC);
#undef ENC
#undef EXPECT
}

static void test_encode_rejects(void)
{
	uint8_t w[GEMINI_PKT_MAX_BYTES];
	struct gemini_pkt p;
	unsigned int t, l;

#define REJECT(setup, base) do {					\
		p = (base);						\
		setup;							\
		memset(w, 0xee, sizeof(w));				\
		CHECK_EQ(gemini_pkt_encode(&p, w, sizeof(w)),		\
			 -GEMINI_PKT_ERR_ARG);				\
	} while (0)

	/* types: unknown, and on the wrong VC */
	for (t = 0; t < 256; t++) {
		int known = (t >= 1 && t <= 6) || (t >= 8 && t <= 11);

		if (known) {
			REJECT(p.type = t; p.vc ^= 1,
			       mk(t, len_ok(t, 8) ? 8 : 0));
			continue;
		}
		REJECT(p.type = t, mk(GEMINI_PKT_PUT, 8));
		REJECT(p.type = t; p.vc = 1, mk(GEMINI_PKT_ACK, 0));
	}
	REJECT(p.vc = 2, mk(GEMINI_PKT_PUT, 8));
	/* lengths */
	for (t = 0; t < NTYPES; t++)
		for (l = 0; l < 256; l++)
			if (!len_ok(all_types[t], l))
				REJECT(p.len = l,
				       mk(all_types[t],
					  len_ok(all_types[t], 8) ? 8 : 0));
	REJECT(p.amo_op = GEMINI_AMO_AX, mk(GEMINI_PKT_AMO, 8));
	REJECT(p.amo_op = GEMINI_AMO_XOR, mk(GEMINI_PKT_AMO, 16));
	/* fields wider than their bits */
	REJECT(p.vclass = 2, mk(GEMINI_PKT_PUT, 8));
	REJECT(p.vclass = 255, mk(GEMINI_PKT_DATA, 8));
	REJECT(p.dst_nic = 4, mk(GEMINI_PKT_PUT, 8));
	REJECT(p.dst_nic = 4, mk(GEMINI_PKT_ACK, 0));
	REJECT(p.src_nic = 4, mk(GEMINI_PKT_GET, 8));
	REJECT(p.tag = 1024, mk(GEMINI_PKT_PUT, 8));
	REJECT(p.tag = 0xffff, mk(GEMINI_PKT_ACK, 0));
	REJECT(p.hops = 32, mk(GEMINI_PKT_PUT, 8));
	REJECT(p.hops = 32, mk(GEMINI_PKT_DATA, 8));
	REJECT(p.mdh = 0x1000, mk(GEMINI_PKT_PUT, 8));
	REJECT(p.addr = 1ull << 40, mk(GEMINI_PKT_PUT, 8));
	REJECT(p.addr = ~0ull, mk(GEMINI_PKT_GET, 8));
	/* AMO ops and flags */
	REJECT(p.amo_op = 0, mk(GEMINI_PKT_AMO, 8));
	REJECT(p.amo_op = 0x0e, mk(GEMINI_PKT_AMO, 8));
	REJECT(p.amo_op = 0x18, mk(GEMINI_PKT_AMO, 8));	/* cached: no */
	REJECT(p.flags = 0, mk(GEMINI_PKT_AMO, 16));	/* CSWAP */
	REJECT(p.amo_op = GEMINI_AMO_ADD, mk(GEMINI_PKT_PUT, 8));
	REJECT(p.flags |= GEMINI_PKT_F_FETCH, mk(GEMINI_PKT_GET, 8));
	REJECT(p.flags |= GEMINI_PKT_F_ROUTED, mk(GEMINI_PKT_PUT, 8));
	REJECT(p.flags |= 0x40, mk(GEMINI_PKT_DIAG, 8));
	REJECT(p.flags |= 0x80, mk(GEMINI_PKT_AMO, 8));
	/* status */
	REJECT(p.status = 0, mk(GEMINI_PKT_ERR, 0));
	REJECT(p.status = 16, mk(GEMINI_PKT_ERR, 0));
	REJECT(p.status = 1, mk(GEMINI_PKT_ACK, 0));
	REJECT(p.status = 1, mk(GEMINI_PKT_DATA, 8));
	REJECT(p.status = 1, mk(GEMINI_PKT_PUT, 8));
	/* what responses do not carry */
	REJECT(p.hops = 1, mk(GEMINI_PKT_ACK, 0));
	for (t = GEMINI_PKT_ACK; t <= GEMINI_PKT_DIAG_RSP; t++) {
		unsigned int len = len_ok(t, 8) ? 8 : 0;

		REJECT(p.src = 1, mk(t, len));
		REJECT(p.src_nic = 1, mk(t, len));
		REJECT(p.ptag = 1, mk(t, len));
		REJECT(p.mdh = 1, mk(t, len));
		REJECT(p.addr = 1, mk(t, len));
		REJECT(p.flags = GEMINI_PKT_F_ADAPT, mk(t, len));
		REJECT(p.flags = GEMINI_PKT_F_LAST, mk(t, len));
		REJECT(p.amo_op = GEMINI_AMO_ADD, mk(t, len));
	}
#undef REJECT

	/* too little room, at the end of an allocation of exactly that */
	for (t = 0; t < NTYPES; t++) {
		struct gemini_pkt q = mk(all_types[t],
					 len_ok(all_types[t], 64) ? 64 :
					 len_ok(all_types[t], 16) ? 16 :
					 len_ok(all_types[t], 8) ? 8 : 0);
		size_t need = gemini_pkt_phits(&q) * 3, cap;

		for (cap = 0; cap <= need; cap++) {
			uint8_t *buf = malloc(cap ? cap : 1);

			if (!buf)
				abort();
			CHECK_EQ(gemini_pkt_encode(&q, buf, cap),
				 cap < need ? -GEMINI_PKT_ERR_ARG :
				 (long long)need);
			free(buf);
		}
	}
	p = mk(GEMINI_PKT_PUT, 8);
	CHECK_EQ(gemini_pkt_encode(&p, NULL, 0), -GEMINI_PKT_ERR_ARG);
	CHECK_EQ(gemini_pkt_encode(NULL, w, sizeof(w)), -GEMINI_PKT_ERR_ARG);
}

/* Data past len is not sent and comes back as zeros. */
static void test_data_past_len(void)
{
	uint8_t w[GEMINI_PKT_MAX_BYTES], w2[GEMINI_PKT_MAX_BYTES];
	struct gemini_pkt p, q;
	unsigned int l, i;
	int n;

	for (l = 1; l <= 64; l++) {
		p = mk(GEMINI_PKT_PUT, l);
		n = gemini_pkt_encode(&p, w, sizeof(w));
		memset(p.data + l, 0xcc, sizeof(p.data) - l);
		CHECK_EQ(gemini_pkt_encode(&p, w2, sizeof(w2)), n);
		CHECK(!memcmp(w, w2, n));
		memset(&q, 0xff, sizeof(q));
		CHECK_EQ(decode_at_end(w2, n, &q), 0);
		for (i = l; i < sizeof(q.data); i++)
			CHECK_EQ(q.data[i], 0);
		CHECK(!memcmp(q.data, p.data, l));
	}
	/* a GET sends none of its data array */
	p = mk(GEMINI_PKT_GET, 64);
	memset(p.data, 0x11, sizeof(p.data));
	n = gemini_pkt_encode(&p, w, sizeof(w));
	CHECK_EQ(n, 24);
	memset(&q, 0xff, sizeof(q));
	CHECK_EQ(decode_at_end(w, n, &q), 0);
	CHECK_EQ(q.len, 64);
	for (i = 0; i < sizeof(q.data); i++)
		CHECK_EQ(q.data[i], 0);
}

static void test_names(void)
{
	int e;
	unsigned int t;

	for (e = 0; e <= GEMINI_PKT_ERR_ARG; e++) {
		CHECK(strcmp(gemini_pkt_error_name(e), "?") != 0);
		CHECK(!strcmp(gemini_pkt_error_name(e),
			      gemini_pkt_error_name(-e)));
	}
	CHECK(!strcmp(gemini_pkt_error_name(-GEMINI_PKT_ERR_CRC), "CRC"));
	CHECK(!strcmp(gemini_pkt_error_name(10), "?"));
	CHECK(!strcmp(gemini_pkt_error_name(-10), "?"));
	CHECK(!strcmp(gemini_pkt_error_name(INT_MIN), "?"));
	CHECK(!strcmp(gemini_pkt_error_name(INT_MAX), "?"));
	for (t = 0; t < NTYPES; t++)
		CHECK(strcmp(gemini_pkt_type_name(all_types[t]), "?") != 0);
	CHECK(!strcmp(gemini_pkt_type_name(GEMINI_PKT_PUT), "PUT"));
	CHECK(!strcmp(gemini_pkt_type_name(GEMINI_PKT_DIAG_RSP), "DIAG_RSP"));
	CHECK(!strcmp(gemini_pkt_type_name(0), "?"));
	CHECK(!strcmp(gemini_pkt_type_name(7), "?"));
	CHECK(!strcmp(gemini_pkt_type_name(12), "?"));
	CHECK(!strcmp(gemini_pkt_type_name(~0u), "?"));
}

/* ---------------------------------------------------------------------- */

/*
 * A SEND's pieces: 1..64 bytes at an offset, or its end (F_LAST) with 0
 * or 8 bytes; amo_op names one of the 4 RX channels.
 */
static void test_send_pieces(void)
{
	uint8_t w[GEMINI_PKT_MAX_PHITS * 4];
	struct gemini_pkt p;
	unsigned int len, ch;

	for (ch = 0; ch < 4; ch++)
		for (len = 1; len <= 64; len++) {
			p = mk(GEMINI_PKT_SEND, len);
			p.flags = GEMINI_PKT_F_ADAPT;
			p.amo_op = ch;
			round_trip(&p);
		}
	p = mk(GEMINI_PKT_SEND, 8);
	p.amo_op = 3;
	round_trip(&p);
	p.amo_op = 4;
	CHECK_EQ(gemini_pkt_encode(&p, w, sizeof(w)), -GEMINI_PKT_ERR_ARG);
	p = mk(GEMINI_PKT_SEND, 3);
	CHECK_EQ(gemini_pkt_encode(&p, w, sizeof(w)), -GEMINI_PKT_ERR_ARG);
	p = mk(GEMINI_PKT_SEND, 0);
	p.flags = 0;
	CHECK_EQ(gemini_pkt_encode(&p, w, sizeof(w)), -GEMINI_PKT_ERR_ARG);
}

static const struct tap_test tests[] = {
	{ "CRC-16/CCITT-FALSE check value and table", test_crc },
	{ "phit counts of the spec's examples", test_spec_sizes },
	{ "wire layout matches the table in gemini_pkt.h", test_wire_layout },
	{ "round trip of every type at boundary lengths",
	  test_round_trip_lengths },
	{ "round trip of boundary field values, flags, AMOs, statuses",
	  test_round_trip_fields },
	{ "round trip of 20000 random valid packets", test_round_trip_random },
	{ "every single-bit flip is rejected", test_bit_flips },
	{ "truncation and extension by every length", test_truncate_extend },
	{ "lengths that are not whole phits", test_partial_phits },
	{ "100000 random buffers", test_random_buffers },
	{ "100000 mutated packets decode canonically or not at all",
	  test_mutations },
	{ "decode errors of well-CRCed malformed packets",
	  test_decode_errors },
	{ "encoder rejects invalid packets and small buffers",
	  test_encode_rejects },
	{ "data past len is neither sent nor kept", test_data_past_len },
	{ "SEND pieces and ends; their channel and lengths checked",
	  test_send_pieces },
	{ "error and type names", test_names },
};

int main(void)
{
	return TAP_RUN(tests);
}
