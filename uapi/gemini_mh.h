/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The uGNI memory handle (gni_mem_handle_t, spec/ugni-api.md section 18):
 * two 64-bit words that kGNI fills in when it registers memory and that
 * libugni, and any peer it is sent to, reads back.  Layout:
 *
 *   qword1  bits  0..51  virtual address >> GEMINI_MH_VA_SHIFT
 *           bits 52..63  MDH (memory domain handle), old format
 *   qword2  bits  0..27  number of pages
 *           bits 28..33  log2 of the page size
 *           bits 34..41  GEMINI_MH_FLAG_* flags
 *           bits 42..53  MDH, new format (GEMINI_MH_FLAG_NEW_FRMT)
 *           bits 56..63  CRC-8 of the 15 bytes below it (gemini_mh_crc())
 *
 * lib/ugni/gni_pub.h gives programs the same fields as the GNI_MEMHNDL_*
 * macros of the uGNI API (it stands alone: programs include no other
 * vgemini header); libugni checks at compile time that they agree with
 * this file.
 */
#ifndef GEMINI_MH_H
#define GEMINI_MH_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdint.h>
#endif

/* qword1 */
#define GEMINI_MH_VA_SHIFT		12	/* the address is in 4 KiB pages */
#define GEMINI_MH_VA_MASK		0x000fffffffffffffull
#define GEMINI_MH_MDH_SHIFT		52
#define GEMINI_MH_MDH_MASK		0xfffull

/* qword2 */
#define GEMINI_MH_NPAGES_MASK		0xfffffffull
#define GEMINI_MH_PSIZE_SHIFT		28
#define GEMINI_MH_PSIZE_MASK		0x3full
#define GEMINI_MH_FLAGS_SHIFT		34
#define GEMINI_MH_FLAGS_MASK		0xffull
#define GEMINI_MH_NEW_MDH_SHIFT		42
#define GEMINI_MH_CRC_SHIFT		56
#define GEMINI_MH_CRC_MASK		0xffull

/* Flags (qword2 >> GEMINI_MH_FLAGS_SHIFT) */
#define GEMINI_MH_FLAG_READONLY		0x01
#define GEMINI_MH_FLAG_VMDH		0x02
#define GEMINI_MH_FLAG_MRT		0x04
#define GEMINI_MH_FLAG_GART		0x08
#define GEMINI_MH_FLAG_IOMMU		0x10
#define GEMINI_MH_FLAG_PCI_IOMMU	0x20
#define GEMINI_MH_FLAG_CLONE		0x40
#define GEMINI_MH_FLAG_NEW_FRMT		0x80

/**
 * gemini_mh_crc() - the CRC-8 of a memory handle
 * @qword1: the handle's first word
 * @qword2: its second word; the CRC field (bits 56..63) is not read
 *
 * CRC-8/MAXIM (reflected polynomial 0x8c, initial value 0, no final
 * XOR) over qword1's 8 bytes and then qword2's low 7, least significant
 * byte first.
 *
 * Return: the CRC, to be stored at GEMINI_MH_CRC_SHIFT of qword2.
 */
static inline uint8_t gemini_mh_crc(uint64_t qword1, uint64_t qword2)
{
	uint8_t crc = 0;
	int i, k;

	for (i = 0; i < 15; i++) {
		crc ^= (uint8_t)(i < 8 ? qword1 >> (8 * i) :
				 qword2 >> (8 * (i - 8)));
		for (k = 0; k < 8; k++)
			crc = (crc & 1) ? (uint8_t)((crc >> 1) ^ 0x8c) :
					  (uint8_t)(crc >> 1);
	}
	return crc;
}

#endif /* GEMINI_MH_H */
