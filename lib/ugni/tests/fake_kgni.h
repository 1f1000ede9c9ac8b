/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * A fake /dev/kgniN for test_ugni: the test binary is linked with
 * -Wl,--wrap=open,--wrap=ioctl,--wrap=mmap, so the library's open() of
 * /dev/kgniN gets a file of this fake (a /dev/null descriptor), its
 * ioctls on that file are answered here as uapi/kgni_ioctl.h says, and
 * its mmaps of that file get anonymous memory (CQ rings and user pages,
 * FMA pages).  Everything else goes to the real calls.
 *
 * The test sees what the library asked (the last structure of each
 * command, counts), makes a command fail with an errno of its choice,
 * and plays the device by writing entries into a CQ's ring.
 */
#ifndef FAKE_KGNI_H
#define FAKE_KGNI_H

#include <stdint.h>

#include "kgni_ioctl.h"

#define FAKE_NIC_PE		0x1234
#define FAKE_MAX_CQ		64
#define FAKE_MAX_SEGS		16

struct fake_kgni {
	unsigned int calls[256];	/* by KGNI_CMD_* number */
	int fail[256];			/* errno the next call returns */
	int bad_size;			/* a structure with a wrong @size */
	struct kgni_rdma_post post;	/* the last of each, as passed */
	struct kgni_mem_register reg;
	struct kgni_mem_register_segments segs;
	struct kgni_mem_segment seg[FAKE_MAX_SEGS];	/* its segments */
	uint32_t next_mdh;
};

extern struct fake_kgni fake;

/* The number of a KGNI_IOC_* command, an index of calls[] and fail[] */
#define FAKE_CMD(ioc)		((ioc) & 0xff)

/*
 * Write @entry into the next slot of CQ @cq_id's ring, as the device
 * would; 0, or -1 for a CQ the fake did not make or a full ring.
 */
int fake_cq_write(uint32_t cq_id, uint64_t entry);

/* A handle as the kernel makes one (CRC included). */
void fake_handle(uint64_t va, uint32_t mdh, uint64_t npages, uint8_t flags,
		 __u64 out[2]);

#endif
