/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The device core's bus callbacks for the host tests: DMA into a node's
 * fake memory, an interrupt log, a guest-error count.
 *
 * FAKE_BUS_CALLBACKS(type) defines fake_dma_read, fake_dma_write,
 * fake_irq and fake_guest_error for a node type with the fields
 * mem[MEM_SIZE] (node memory at MEM_BASE), irqs[IRQ_LOG], nirq,
 * guest_errors and the last one's kind and arguments (last_guest_error,
 * last_guest_args[4]); each test file sets MEM_BASE, MEM_SIZE and
 * IRQ_LOG.
 */
#ifndef FAKE_BUS_H
#define FAKE_BUS_H

#include <string.h>

#define FAKE_BUS_CALLBACKS(type)					\
static int fake_dma_read(void *opaque, uint64_t addr, void *buf,	\
			 size_t len)					\
{									\
	type *n = opaque;						\
									\
	if (addr < MEM_BASE || addr - MEM_BASE > MEM_SIZE ||		\
	    len > MEM_SIZE - (addr - MEM_BASE))				\
		return -1;						\
	memcpy(buf, n->mem + (addr - MEM_BASE), len);			\
	return 0;							\
}									\
									\
static int fake_dma_write(void *opaque, uint64_t addr, const void *buf, \
			  size_t len)					\
{									\
	type *n = opaque;						\
									\
	if (addr < MEM_BASE || addr - MEM_BASE > MEM_SIZE ||		\
	    len > MEM_SIZE - (addr - MEM_BASE))				\
		return -1;						\
	memcpy(n->mem + (addr - MEM_BASE), buf, len);			\
	return 0;							\
}									\
									\
static void fake_irq(void *opaque, unsigned int vector)		\
{									\
	type *n = opaque;						\
									\
	if (n->nirq < IRQ_LOG)						\
		n->irqs[n->nirq] = vector;				\
	n->nirq++;							\
}									\
									\
static void fake_guest_error(void *opaque, unsigned int kind,		\
			     const uint64_t args[4])			\
{									\
	type *n = opaque;						\
									\
	n->last_guest_error = kind;					\
	memcpy(n->last_guest_args, args, sizeof(n->last_guest_args));	\
	n->guest_errors++;						\
}

#endif
