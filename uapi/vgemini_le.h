/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Little-endian loads and stores of unaligned 16-, 24-, 32- and 64-bit
 * fields in byte buffers, whatever the host's byte order: every layout in
 * uapi/ is little-endian.  One copy for the device core, the QEMU glue,
 * the firmware tool, the libraries and their tests.  Not for the kernel:
 * kgni uses the kernel's get_unaligned_le*() and put_unaligned_le*().
 */
#ifndef VGEMINI_LE_H
#define VGEMINI_LE_H

#ifdef __KERNEL__
#error "vgemini_le.h is for user space; the kernel has <asm/unaligned.h>"
#endif

#include <stdint.h>

/**
 * vgemini_get_le16() - load a little-endian 16-bit value
 * @p: its first byte; any alignment
 *
 * Return: the value.
 */
static inline uint16_t vgemini_get_le16(const void *p)
{
	const uint8_t *b = (const uint8_t *)p;

	return (uint16_t)(b[0] | b[1] << 8);
}

/**
 * vgemini_get_le24() - load a little-endian 24-bit value (a phit)
 * @p: its first byte; any alignment
 *
 * Return: the value, below 1 << 24.
 */
static inline uint32_t vgemini_get_le24(const void *p)
{
	const uint8_t *b = (const uint8_t *)p;

	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16;
}

/**
 * vgemini_get_le32() - load a little-endian 32-bit value
 * @p: its first byte; any alignment
 *
 * Return: the value.
 */
static inline uint32_t vgemini_get_le32(const void *p)
{
	const uint8_t *b = (const uint8_t *)p;

	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
	       (uint32_t)b[3] << 24;
}

/**
 * vgemini_get_le64() - load a little-endian 64-bit value
 * @p: its first byte; any alignment
 *
 * Return: the value.
 */
static inline uint64_t vgemini_get_le64(const void *p)
{
	const uint8_t *b = (const uint8_t *)p;

	return (uint64_t)vgemini_get_le32(b) |
	       (uint64_t)vgemini_get_le32(b + 4) << 32;
}

/**
 * vgemini_put_le16() - store a 16-bit value little-endian
 * @p: where its first byte goes; any alignment
 * @v: the value
 */
static inline void vgemini_put_le16(void *p, uint16_t v)
{
	uint8_t *b = (uint8_t *)p;

	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
}

/**
 * vgemini_put_le24() - store the low 24 bits of a value little-endian
 * @p: where its first byte goes; any alignment
 * @v: the value; bits 24 and up are not stored
 */
static inline void vgemini_put_le24(void *p, uint32_t v)
{
	uint8_t *b = (uint8_t *)p;

	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
	b[2] = (uint8_t)(v >> 16);
}

/**
 * vgemini_put_le32() - store a 32-bit value little-endian
 * @p: where its first byte goes; any alignment
 * @v: the value
 */
static inline void vgemini_put_le32(void *p, uint32_t v)
{
	uint8_t *b = (uint8_t *)p;

	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
	b[2] = (uint8_t)(v >> 16);
	b[3] = (uint8_t)(v >> 24);
}

/**
 * vgemini_put_le64() - store a 64-bit value little-endian
 * @p: where its first byte goes; any alignment
 * @v: the value
 */
static inline void vgemini_put_le64(void *p, uint64_t v)
{
	uint8_t *b = (uint8_t *)p;

	vgemini_put_le32(b, (uint32_t)v);
	vgemini_put_le32(b + 4, (uint32_t)(v >> 32));
}

#endif /* VGEMINI_LE_H */
