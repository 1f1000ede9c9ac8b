// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cray-gemini device core: what every block uses to reach the outside
 * through struct gemini_ops.  Guest-error reports (by kind, formatted only
 * on demand), interrupts, and DMA, which is refused where it would touch
 * one of the device's own windows.  A block's host test links this file
 * and its own.
 */
#include <stdio.h>

#include "gemini_core.h"

void gemini_guest_error(const struct gemini_nic *nic, unsigned int kind,
			const uint64_t args[4])
{
	if (nic->ops->guest_error)
		nic->ops->guest_error(nic->opaque, kind, args);
}

/* Each kind's name and format, in enum gemini_guest_error_kind order. */
#define GE_INFO(ID, id, nargs, names, fmt)				\
	[GEMINI_GE_##ID] = { #id, fmt },
static const struct {
	const char *name;
	const char *fmt;
} guest_errors[GEMINI_GE_COUNT] = {
	GEMINI_GUEST_ERROR_LIST(GE_INFO)
};

#undef GE_INFO

const char *gemini_guest_error_name(unsigned int kind)
{
	return kind < GEMINI_GE_COUNT ? guest_errors[kind].name : NULL;
}

/*
 * Only %llu and %llx, as many as the kind has arguments (checked by
 * scripts/gen-trace-events.py); unused ones are ignored.
 */
int gemini_guest_error_format(unsigned int kind, const uint64_t args[4],
			      char *buf, size_t len)
{
	if (kind >= GEMINI_GE_COUNT)
		return snprintf(buf, len, "unknown guest error %u", kind);
	return snprintf(buf, len, guest_errors[kind].fmt,
			(unsigned long long)args[0],
			(unsigned long long)args[1],
			(unsigned long long)args[2],
			(unsigned long long)args[3]);
}

void gemini_nic_raise_irq(struct gemini_nic *nic, uint32_t vector)
{
	if (vector == VGEMINI_IRQ_NONE)
		return;
	if (vector >= nic->cfg.num_vectors) {
		GEMINI_GUEST_ERROR(nic, IRQ_VECTOR, vector,
				   nic->cfg.num_vectors);
		return;
	}
	nic->ops->raise_irq(nic->opaque, vector);
}

void gemini_nic_set_own_window(struct gemini_nic *nic, unsigned int i,
			       uint64_t base, uint64_t size)
{
	if (i >= GEMINI_OWN_WINDOWS)
		return;
	nic->own[i].base = base;
	nic->own[i].size = base + size < base ? 0 - base : size;
}

/* Does [@addr, @addr + @len) touch one of the device's own windows? */
static bool dma_hits_self(const struct gemini_nic *nic, uint64_t addr,
			  size_t len)
{
	uint64_t last = addr + len - 1;
	unsigned int i;

	if (!len)
		return false;
	if (last < addr)
		return true;		/* wraps: refused anyway */
	for (i = 0; i < GEMINI_OWN_WINDOWS; i++) {
		const struct gemini_own_window *w = &nic->own[i];

		if (w->size && addr <= w->base + (w->size - 1) &&
		    last >= w->base)
			return true;
	}
	return false;
}

int gemini_dma_read(const struct gemini_nic *nic, uint64_t addr, void *buf,
		    size_t len)
{
	if (dma_hits_self(nic, addr, len)) {
		GEMINI_GUEST_ERROR(nic, DMA_READ_SELF, addr, len);
		return -1;
	}
	return nic->ops->dma_read(nic->opaque, addr, buf, len);
}

int gemini_dma_write(const struct gemini_nic *nic, uint64_t addr, const void *buf,
		     size_t len)
{
	if (dma_hits_self(nic, addr, len)) {
		GEMINI_GUEST_ERROR(nic, DMA_WRITE_SELF, addr, len);
		return -1;
	}
	return nic->ops->dma_write(nic->opaque, addr, buf, len);
}

