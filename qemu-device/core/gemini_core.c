// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cray-gemini device core: identity, control block and test registers.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemini_core.h"

void gemini_guest_error(const struct gemini_nic *nic, unsigned int kind,
			const uint64_t args[4])
{
	if (nic->ops->guest_error)
		nic->ops->guest_error(nic->opaque, kind, args);
}

/* Each kind's name and format, in enum gemini_guest_error_kind order. */
#define GE_INFO(ID, id, nargs, fmt)					\
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

int gemini_nic_init(struct gemini_nic *nic, const struct gemini_config *cfg,
		    const struct gemini_ops *ops, void *opaque,
		    char *err, size_t errlen)
{
	static const char axis[3] = { 'x', 'y', 'z' };
	uint64_t nodes = 1;
	unsigned int d;

	for (d = 0; d < 3; d++) {
		if (cfg->dims[d] < 1 || cfg->dims[d] > VGEMINI_MAX_DIM) {
			snprintf(err, errlen, "dim-%c=%u: must be 1..%u",
				 axis[d], cfg->dims[d], VGEMINI_MAX_DIM);
			return -1;
		}
		if (cfg->coord[d] >= cfg->dims[d]) {
			snprintf(err, errlen, "%c=%u: must be below dim-%c=%u",
				 axis[d], cfg->coord[d], axis[d], cfg->dims[d]);
			return -1;
		}
		nodes *= cfg->dims[d];
	}
	if (nodes > GEMINI_MAX_NODES) {
		snprintf(err, errlen, "%llu nodes: a Gemini id has 16 bits",
			 (unsigned long long)nodes);
		return -1;
	}
	if (cfg->num_vectors < 1 || cfg->num_vectors > GEMINI_NUM_IRQ) {
		snprintf(err, errlen, "%u interrupt vectors: must be 1..%u",
			 cfg->num_vectors, GEMINI_NUM_IRQ);
		return -1;
	}
	if (!ops || !ops->dma_read || !ops->dma_write || !ops->raise_irq) {
		snprintf(err, errlen, "incomplete ops table");
		return -1;
	}

	memset(nic, 0, sizeof(*nic));
	nic->ops = ops;
	nic->opaque = opaque;
	nic->cfg = *cfg;
	nic->gemini_id = cfg->coord[0] +
		cfg->dims[0] * (cfg->coord[1] + cfg->dims[1] * cfg->coord[2]);
	nic->pe = GEMINI_PE(nic->gemini_id, 0);
	nic->num_nodes = (uint32_t)nodes;
	if (!ops->clock_ns) {
		snprintf(err, errlen, "incomplete ops table");
		return -1;
	}
	gemini_port_init(nic);
	gemini_nic_reset(nic);
	return 0;
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

void gemini_nic_reset(struct gemini_nic *nic)
{
	gemini_ctl_reset(nic);
	gemini_port_reset(nic);
	gemini_diag_reset(nic);
	/* The driver programs the tables again after a reset. */
	gemini_nat_reset(nic);
	gemini_cq_reset(nic);
	gemini_fma_reset(nic);
}

void gemini_nic_fini(struct gemini_nic *nic)
{
	gemini_router_fini(nic);
}

uint32_t gemini_neighbour_pe(const struct gemini_nic *nic, unsigned int port)
{
	uint32_t c[3] = { nic->cfg.coord[0], nic->cfg.coord[1],
			  nic->cfg.coord[2] };
	unsigned int d;
	uint32_t n;

	if (port >= GEMINI_NUM_TORUS_PORTS)
		return VGEMINI_PEER_NONE;
	d = GEMINI_PORT_DIM(port);
	n = nic->cfg.dims[d];
	c[d] = GEMINI_PORT_IS_MINUS(port) ? (c[d] + n - 1) % n : (c[d] + 1) % n;
	return GEMINI_PE(c[0] + nic->cfg.dims[0] *
			 (c[1] + nic->cfg.dims[1] * c[2]), 0);
}

/* --- NIC window --------------------------------------------------------- */

/*
 * The tables live in gemini_nat.c and gemini_cq.c; each claims its own
 * offsets and answers GEMINI_ACCESS_UNKNOWN for the others.
 */
static enum gemini_access window_access(struct gemini_nic *nic,
					uint64_t offset, unsigned int size,
					uint64_t *val, bool write)
{
	enum gemini_access r;

	if ((offset & ~7ull) == GEMINI_MMR_NL_NODE_ID) {
		if (write)
			return GEMINI_ACCESS_READ_ONLY;
		*val = offset & 4 ? 0 : nic->gemini_id;
		return GEMINI_ACCESS_OK;
	}
	r = gemini_nat_access(nic, offset, size, val, write);
	if (r != GEMINI_ACCESS_UNKNOWN)
		return r;
	r = gemini_fma_access(nic, offset, size, val, write);
	if (r != GEMINI_ACCESS_UNKNOWN)
		return r;
	return gemini_cq_access(nic, offset, size, val, write);
}

enum gemini_access gemini_window_read(struct gemini_nic *nic, uint64_t offset,
				      unsigned int size, uint64_t *val)
{
	enum gemini_access r;

	*val = 0;
	if (!gemini_access_size_ok(offset, size, GEMINI_BAR_NIC_SIZE))
		return GEMINI_ACCESS_BAD_SIZE;
	/* The FMA windows take stores only: no register to read there. */
	r = window_access(nic, offset, size, val, false);
	if (r != GEMINI_ACCESS_OK)
		*val = 0;
	return r;
}

enum gemini_access gemini_window_write(struct gemini_nic *nic,
				       uint64_t offset, unsigned int size,
				       uint64_t val)
{
	/* FMA window stores come in 1, 2, 4 and 8 bytes (gemini_fma.c). */
	if (gemini_fma_is_window(offset))
		return gemini_fma_window_store(nic, offset, size, val);
	if (!gemini_access_size_ok(offset, size, GEMINI_BAR_NIC_SIZE))
		return GEMINI_ACCESS_BAD_SIZE;
	return window_access(nic, offset, size, &val, true);
}
