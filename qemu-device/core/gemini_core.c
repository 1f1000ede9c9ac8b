// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cray-gemini device core: identity, control block and test registers.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemini_core.h"

void gemini_guest_error(const struct gemini_nic *nic, const char *fmt, ...)
{
	char msg[160];
	va_list ap;

	if (!nic->ops->guest_error)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	nic->ops->guest_error(nic->opaque, msg);
}

static void raise_irq(struct gemini_nic *nic, uint32_t vector)
{
	if (vector == VGEMINI_IRQ_NONE)
		return;
	if (vector >= nic->cfg.num_vectors) {
		gemini_guest_error(nic,
				   "interrupt vector %u out of range (%u vectors)",
				   vector, nic->cfg.num_vectors);
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
	unsigned int d, p;

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
	for (p = 0; p < GEMINI_NUM_TORUS_PORTS; p++) {
		nic->port[p].state = VGEMINI_PORT_UNUSED;
		nic->port[p].peer = VGEMINI_PEER_NONE;
		nic->port[p].expected = gemini_neighbour_pe(nic, p);
	}
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
		gemini_guest_error(nic,
				   "DMA read of 0x%llx+%zu refused: the device's own registers",
				   (unsigned long long)addr, len);
		return -1;
	}
	return nic->ops->dma_read(nic->opaque, addr, buf, len);
}

int gemini_dma_write(const struct gemini_nic *nic, uint64_t addr, const void *buf,
		     size_t len)
{
	if (dma_hits_self(nic, addr, len)) {
		gemini_guest_error(nic,
				   "DMA write of 0x%llx+%zu refused: the device's own registers",
				   (unsigned long long)addr, len);
		return -1;
	}
	return nic->ops->dma_write(nic->opaque, addr, buf, len);
}

void gemini_nic_reset(struct gemini_nic *nic)
{
	nic->scratch = 0;
	nic->dma_addr = 0;
	nic->dma_dst = 0;
	nic->dma_len = 0;
	nic->dma_pattern = 0;
	nic->dma_status = VGEMINI_DMA_IDLE;
	nic->dma_irq = VGEMINI_IRQ_NONE;
	nic->link_irq = VGEMINI_IRQ_NONE;
	/* The guest's ping engine; a ping in flight then answers as stale. */
	memset(&nic->diag[GEMINI_DIAG_GUEST], 0,
	       sizeof(nic->diag[GEMINI_DIAG_GUEST]));
	nic->diag[GEMINI_DIAG_GUEST].irq = VGEMINI_IRQ_NONE;
	/* The driver programs the tables again after a reset. */
	gemini_nat_reset(nic);
	gemini_cq_reset(nic);
	gemini_fma_reset(nic);
}

void gemini_nic_fini(struct gemini_nic *nic)
{
	free(nic->router.table);
	nic->router.table = NULL;
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

/* --- Test DMA ----------------------------------------------------------- */

#define DMA_CHUNK 4096

static uint32_t dma_run(struct gemini_nic *nic, uint32_t cmd)
{
	uint8_t buf[DMA_CHUNK];
	uint64_t done, n, i;

	if (cmd != VGEMINI_DMA_CMD_FILL && cmd != VGEMINI_DMA_CMD_COPY &&
	    cmd != VGEMINI_DMA_CMD_INVERT) {
		gemini_guest_error(nic, "test DMA: unknown command %u", cmd);
		return VGEMINI_DMA_ERR_CMD;
	}
	if (nic->dma_len == 0 || nic->dma_len > VGEMINI_DMA_MAX_LEN) {
		gemini_guest_error(nic, "test DMA: length %u not in 1..%u",
				   nic->dma_len, VGEMINI_DMA_MAX_LEN);
		return VGEMINI_DMA_ERR_LEN;
	}
	if (nic->dma_addr + nic->dma_len < nic->dma_addr ||
	    (cmd == VGEMINI_DMA_CMD_COPY &&
	     nic->dma_dst + nic->dma_len < nic->dma_dst)) {
		gemini_guest_error(nic, "test DMA: address range wraps");
		return VGEMINI_DMA_ERR_BUS;
	}

	/* Forward, a chunk at a time: overlapping COPY ranges are undefined. */
	for (done = 0; done < nic->dma_len; done += n) {
		n = nic->dma_len - done;
		if (n > DMA_CHUNK)
			n = DMA_CHUNK;
		if (cmd == VGEMINI_DMA_CMD_FILL)
			memset(buf, nic->dma_pattern & 0xff, n);
		else if (gemini_dma_read(nic, nic->dma_addr + done, buf, n))
			goto bus_error;
		if (cmd == VGEMINI_DMA_CMD_INVERT) {
			for (i = 0; i < n; i++)
				buf[i] = ~buf[i];
		}
		if (gemini_dma_write(nic, (cmd == VGEMINI_DMA_CMD_COPY ?
					   nic->dma_dst : nic->dma_addr) + done,
				     buf, n))
			goto bus_error;
	}
	return VGEMINI_DMA_DONE;

bus_error:
	gemini_guest_error(nic, "test DMA: bus refused access near 0x%llx",
			   (unsigned long long)(nic->dma_addr + done));
	return VGEMINI_DMA_ERR_BUS;
}

/* --- Control block ------------------------------------------------------ */

/*
 * The control block is handled as 32-bit words: an 8-byte access is two
 * word accesses, low word first, and a 64-bit register is two words.
 */
static void set_lo(uint64_t *reg, uint32_t v)
{
	*reg = (*reg & 0xffffffff00000000ull) | v;
}

static void set_hi(uint64_t *reg, uint32_t v)
{
	*reg = (*reg & 0xffffffffull) | ((uint64_t)v << 32);
}

static enum gemini_access ctl_read32(struct gemini_nic *nic, uint64_t off,
				     uint32_t *val)
{
	const struct gemini_config *c = &nic->cfg;

	if (off >= VGEMINI_CTL_PORT_BASE &&
	    off < VGEMINI_CTL_PORT(GEMINI_NUM_TORUS_PORTS)) {
		const struct gemini_router_port *port;

		port = &nic->port[(off - VGEMINI_CTL_PORT_BASE) /
				  VGEMINI_CTL_PORT_STRIDE];
		switch ((off - VGEMINI_CTL_PORT_BASE) % VGEMINI_CTL_PORT_STRIDE) {
		case VGEMINI_PORT_STATE:
			*val = port->state;
			return GEMINI_ACCESS_OK;
		case VGEMINI_PORT_PEER:
			*val = port->state == VGEMINI_PORT_UP ||
			       port->state == VGEMINI_PORT_MISWIRED ?
			       port->peer : VGEMINI_PEER_NONE;
			return GEMINI_ACCESS_OK;
		case VGEMINI_PORT_EXPECTED:
			*val = port->expected;
			return GEMINI_ACCESS_OK;
		case VGEMINI_PORT_CHANGES:
			*val = port->changes;
			return GEMINI_ACCESS_OK;
		}
	}

	if (off >= VGEMINI_CTL_COUNTERS &&
	    off < VGEMINI_CTL_COUNTER(VGEMINI_COUNTER_BLOCKS, 0)) {
		unsigned int blk = (off - VGEMINI_CTL_COUNTERS) /
				   VGEMINI_CTL_COUNTER_STRIDE;
		unsigned int idx = (off - VGEMINI_CTL_COUNTER(blk, 0)) / 8;
		const uint64_t *ctr = blk == VGEMINI_COUNTER_BLK_NIC ?
				      nic->nic_ctr : nic->port[blk].ctr;
		unsigned int num = blk == VGEMINI_COUNTER_BLK_NIC ?
				   VGEMINI_NC_NUM : VGEMINI_PC_NUM;

		if (idx >= num) {
			*val = 0;
			return GEMINI_ACCESS_UNKNOWN;
		}
		*val = off & 4 ? (uint32_t)(ctr[idx] >> 32) : (uint32_t)ctr[idx];
		return GEMINI_ACCESS_OK;
	}
	if (off >= VGEMINI_CTL_DIAG_TRACE &&
	    off < VGEMINI_CTL_DIAG_TRACE + 4 * VGEMINI_DIAG_MAX_TRACE) {
		*val = nic->diag[GEMINI_DIAG_GUEST].trace[(off -
					VGEMINI_CTL_DIAG_TRACE) / 4];
		return GEMINI_ACCESS_OK;
	}

	switch (off) {
	case VGEMINI_CTL_MAGIC:
		*val = VGEMINI_CTL_MAGIC_VALUE;
		break;
	case VGEMINI_CTL_VERSION:
		*val = VGEMINI_CTL_VERSION_VALUE;
		break;
	case VGEMINI_CTL_NODE_PE:
		*val = nic->pe;
		break;
	case VGEMINI_CTL_COORD:
		*val = VGEMINI_COORD(c->coord[0], c->coord[1], c->coord[2]);
		break;
	case VGEMINI_CTL_DIMS:
		*val = VGEMINI_COORD(c->dims[0], c->dims[1], c->dims[2]);
		break;
	case VGEMINI_CTL_NUM_PORTS:
		*val = GEMINI_NUM_TORUS_PORTS;
		break;
	case VGEMINI_CTL_NUM_VECTORS:
		*val = c->num_vectors;
		break;
	case VGEMINI_CTL_SCRATCH:
		*val = (uint32_t)nic->scratch;
		break;
	case VGEMINI_CTL_SCRATCH + 4:
		*val = (uint32_t)(nic->scratch >> 32);
		break;
	case VGEMINI_CTL_DMA_ADDR:
		*val = (uint32_t)nic->dma_addr;
		break;
	case VGEMINI_CTL_DMA_ADDR + 4:
		*val = (uint32_t)(nic->dma_addr >> 32);
		break;
	case VGEMINI_CTL_DMA_DST:
		*val = (uint32_t)nic->dma_dst;
		break;
	case VGEMINI_CTL_DMA_DST + 4:
		*val = (uint32_t)(nic->dma_dst >> 32);
		break;
	case VGEMINI_CTL_DMA_LEN:
		*val = nic->dma_len;
		break;
	case VGEMINI_CTL_DMA_PATTERN:
		*val = nic->dma_pattern;
		break;
	case VGEMINI_CTL_DMA_STATUS:
		*val = nic->dma_status;
		break;
	case VGEMINI_CTL_DMA_IRQ:
		*val = nic->dma_irq;
		break;
	case VGEMINI_CTL_LINK_IRQ:
		*val = nic->link_irq;
		break;
	case VGEMINI_CTL_ROUTE_GEN:
		*val = nic->router.generation;
		break;
	case VGEMINI_CTL_FABRIC_STATE:
		*val = gemini_fabric_state(nic);
		break;
	case VGEMINI_CTL_DIAG_DEST:
		*val = nic->diag[GEMINI_DIAG_GUEST].dest;
		break;
	case VGEMINI_CTL_DIAG_LEN:
		*val = nic->diag[GEMINI_DIAG_GUEST].len;
		break;
	case VGEMINI_CTL_DIAG_STATUS:
		*val = nic->diag[GEMINI_DIAG_GUEST].status;
		break;
	case VGEMINI_CTL_DIAG_HOPS:
		*val = nic->diag[GEMINI_DIAG_GUEST].hops;
		break;
	case VGEMINI_CTL_DIAG_RTT_NS:
		*val = nic->diag[GEMINI_DIAG_GUEST].rtt_ns;
		break;
	case VGEMINI_CTL_DIAG_IRQ:
		*val = nic->diag[GEMINI_DIAG_GUEST].irq;
		break;
	case VGEMINI_CTL_DIAG_SEQ:
		*val = nic->diag[GEMINI_DIAG_GUEST].seq;
		break;
	case VGEMINI_CTL_DIAG_NTRACE:
		*val = nic->diag[GEMINI_DIAG_GUEST].ntrace;
		break;
	case VGEMINI_CTL_GART_BASE:
		*val = (uint32_t)nic->nat.gart_base;
		break;
	case VGEMINI_CTL_GART_BASE + 4:
		*val = (uint32_t)(nic->nat.gart_base >> 32);
		break;
	case VGEMINI_CTL_GART_ENTRIES:
		*val = nic->nat.gart_entries;
		break;
	case VGEMINI_CTL_IRQ_RAISE:
	case VGEMINI_CTL_DMA_CMD:
	case VGEMINI_CTL_DIAG_CMD:
		*val = 0;
		return GEMINI_ACCESS_WRITE_ONLY;
	default:
		*val = 0;
		return GEMINI_ACCESS_UNKNOWN;
	}
	return GEMINI_ACCESS_OK;
}

static enum gemini_access ctl_write32(struct gemini_nic *nic, uint64_t off,
				      uint32_t val)
{
	switch (off) {
	case VGEMINI_CTL_SCRATCH:
		set_lo(&nic->scratch, val);
		break;
	case VGEMINI_CTL_SCRATCH + 4:
		set_hi(&nic->scratch, val);
		break;
	case VGEMINI_CTL_IRQ_RAISE:
		raise_irq(nic, val);
		break;
	case VGEMINI_CTL_DMA_ADDR:
		set_lo(&nic->dma_addr, val);
		break;
	case VGEMINI_CTL_DMA_ADDR + 4:
		set_hi(&nic->dma_addr, val);
		break;
	case VGEMINI_CTL_DMA_DST:
		set_lo(&nic->dma_dst, val);
		break;
	case VGEMINI_CTL_DMA_DST + 4:
		set_hi(&nic->dma_dst, val);
		break;
	case VGEMINI_CTL_DMA_LEN:
		nic->dma_len = val;
		break;
	case VGEMINI_CTL_DMA_PATTERN:
		nic->dma_pattern = val;
		break;
	case VGEMINI_CTL_DMA_CMD:
		/* Runs to completion before the write returns. */
		nic->dma_status = dma_run(nic, val);
		raise_irq(nic, nic->dma_irq);
		break;
	case VGEMINI_CTL_DMA_IRQ:
		nic->dma_irq = val;
		break;
	case VGEMINI_CTL_LINK_IRQ:
		nic->link_irq = val;
		break;
	case VGEMINI_CTL_DIAG_DEST:
		nic->diag[GEMINI_DIAG_GUEST].dest = val;
		break;
	case VGEMINI_CTL_DIAG_LEN:
		nic->diag[GEMINI_DIAG_GUEST].len = val;
		break;
	case VGEMINI_CTL_DIAG_IRQ:
		nic->diag[GEMINI_DIAG_GUEST].irq = val;
		break;
	case VGEMINI_CTL_GART_BASE:
		set_lo(&nic->nat.gart_base, val);
		nic->nat.gart_base &= VGEMINI_GART_BASE_MASK;
		break;
	case VGEMINI_CTL_GART_BASE + 4:
		set_hi(&nic->nat.gart_base, val);
		nic->nat.gart_base &= VGEMINI_GART_BASE_MASK;
		break;
	case VGEMINI_CTL_GART_ENTRIES:
		if (val > VGEMINI_GART_MAX_ENTRIES) {
			gemini_guest_error(nic, "GART: %u entries, at most %u",
					   val, VGEMINI_GART_MAX_ENTRIES);
			val = VGEMINI_GART_MAX_ENTRIES;
		}
		nic->nat.gart_entries = val;
		break;
	case VGEMINI_CTL_DIAG_CMD: {
		struct gemini_diag *d = &nic->diag[GEMINI_DIAG_GUEST];

		if (val != VGEMINI_DIAG_CMD_PING) {
			gemini_guest_error(nic, "diag: unknown command %u", val);
			break;
		}
		if (d->status == VGEMINI_DIAG_PENDING) {
			gemini_guest_error(nic,
					   "diag: a ping is already in flight");
			break;
		}
		gemini_diag_start(nic, GEMINI_DIAG_GUEST, d->dest, d->len, 1);
		break;
	}
	default: {
		uint32_t dummy;

		return ctl_read32(nic, off, &dummy) == GEMINI_ACCESS_UNKNOWN ?
		       GEMINI_ACCESS_UNKNOWN : GEMINI_ACCESS_READ_ONLY;
	}
	}
	return GEMINI_ACCESS_OK;
}

static bool size_ok(uint64_t offset, unsigned int size, uint64_t limit)
{
	return (size == 4 || size == 8) && !(offset & (size - 1)) &&
	       offset < limit && size <= limit - offset;
}

/* Worst of two results, so a wide access reports its failing half. */
static enum gemini_access worse(enum gemini_access a, enum gemini_access b)
{
	return a != GEMINI_ACCESS_OK ? a : b;
}

enum gemini_access gemini_ctl_read(struct gemini_nic *nic, uint64_t offset,
				   unsigned int size, uint64_t *val)
{
	uint32_t lo, hi = 0;
	enum gemini_access r;

	*val = 0;
	if (!size_ok(offset, size, GEMINI_BAR_CTL_SIZE))
		return GEMINI_ACCESS_BAD_SIZE;
	r = ctl_read32(nic, offset, &lo);
	if (size == 8)
		r = worse(r, ctl_read32(nic, offset + 4, &hi));
	*val = lo | ((uint64_t)hi << 32);
	return r;
}

enum gemini_access gemini_ctl_write(struct gemini_nic *nic, uint64_t offset,
				    unsigned int size, uint64_t val)
{
	enum gemini_access r;

	if (!size_ok(offset, size, GEMINI_BAR_CTL_SIZE))
		return GEMINI_ACCESS_BAD_SIZE;
	r = ctl_write32(nic, offset, (uint32_t)val);
	if (size == 8)
		r = worse(r, ctl_write32(nic, offset + 4, (uint32_t)(val >> 32)));
	return r;
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
	if (!size_ok(offset, size, GEMINI_BAR_NIC_SIZE))
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
	if (!size_ok(offset, size, GEMINI_BAR_NIC_SIZE))
		return GEMINI_ACCESS_BAD_SIZE;
	return window_access(nic, offset, size, &val, true);
}
