/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * CRC-32 of IEEE 802.3 (reflected polynomial 0xedb88320, initial and final
 * value all ones), as zlib's crc32(): the checksum of a routing-table
 * image's entries (uapi/vgemini_route.h).  One copy for the device core,
 * the QEMU glue and its tests, and the firmware tool.  Not for the kernel,
 * which has crc32_le() in <linux/crc32.h>.
 */
#ifndef VGEMINI_CRC32_H
#define VGEMINI_CRC32_H

#ifdef __KERNEL__
#error "vgemini_crc32.h is for user space; the kernel has <linux/crc32.h>"
#endif

#include <stddef.h>
#include <stdint.h>

/**
 * vgemini_crc32() - CRC-32 (IEEE 802.3) of a buffer
 * @crc: 0 to start; the result of the previous call to continue, as with
 *       zlib's crc32()
 * @buf: the bytes
 * @len: how many
 *
 * Four bits at a time, with a 16-entry table.
 *
 * Return: the CRC of everything fed so far.
 */
static inline uint32_t vgemini_crc32(uint32_t crc, const void *buf,
				     size_t len)
{
	static const uint32_t nibble[16] = {
		0x00000000u, 0x1db71064u, 0x3b6e20c8u, 0x26d930acu,
		0x76dc4190u, 0x6b6b51f4u, 0x4db26158u, 0x5005713cu,
		0xedb88320u, 0xf00f9344u, 0xd6d6a3e8u, 0xcb61b38cu,
		0x9b64c2b0u, 0x86d3d2d4u, 0xa00ae278u, 0xbdbdf21cu,
	};
	const uint8_t *p = (const uint8_t *)buf;

	crc = ~crc;
	while (len--) {
		crc ^= *p++;
		crc = (crc >> 4) ^ nibble[crc & 0xf];
		crc = (crc >> 4) ^ nibble[crc & 0xf];
	}
	return ~crc;
}

#endif /* VGEMINI_CRC32_H */
