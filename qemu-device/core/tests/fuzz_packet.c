// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for the Gemini packet decoder.
 *
 * Built by "make fuzz-build" (fuzz.mk) as build/core/fuzz_packet, which
 * "make fuzz" runs; by hand, from the top of the tree:
 *
 *   build/core/fuzz_packet -max_total_time=30 -max_len=128 CORPUS_DIR
 *
 * The first input byte picks a mode: odd means "give the rest a correct
 * CRC first", so that the fuzzer reaches the field checks behind the CRC
 * instead of spending its time on random CRC failures.  Properties: decode
 * returns 0 or a known error, never reads past the input (ASan), and a
 * packet it accepts re-encodes to exactly the same bytes.
 */
#include <stdlib.h>
#include <string.h>

#include "gemini_packet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const uint8_t *wire, size_t len)
{
	uint8_t again[GEMINI_PKT_MAX_BYTES];
	struct gemini_pkt pkt;
	int r, n;

	r = gemini_pkt_decode(wire, len, &pkt);
	if (r > 0 || r < -GEMINI_PKT_ERR_FIELD)
		abort();
	if (r)
		return;
	n = gemini_pkt_encode(&pkt, again, sizeof(again));
	if (n < 0 || (size_t)n != len || memcmp(again, wire, len))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *buf;
	uint16_t crc;
	size_t len;

	if (!size || !(data[0] & 1)) {
		check(data, size);
		return 0;
	}
	len = size - 1;
	/* exactly len bytes, so that ASan sees a read past the packet */
	buf = malloc(len ? len : 1);
	if (!buf)
		return 0;
	memcpy(buf, data + 1, len);
	if (len >= GEMINI_PHIT_BYTES) {
		buf[len - 3] = 0;
		buf[len - 2] = 0;
		crc = gemini_crc16(buf, len);
		buf[len - 3] = crc & 0xff;
		buf[len - 2] = crc >> 8;
	}
	check(buf, len);
	free(buf);
	return 0;
}
