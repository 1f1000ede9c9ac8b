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

static void raise_irq(struct gemini_nic *nic, uint32_t vector)
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
		GEMINI_GUEST_ERROR(nic, TEST_DMA_CMD, cmd);
		return VGEMINI_DMA_ERR_CMD;
	}
	if (nic->dma_len == 0 || nic->dma_len > VGEMINI_DMA_MAX_LEN) {
		GEMINI_GUEST_ERROR(nic, TEST_DMA_LEN, nic->dma_len,
				   VGEMINI_DMA_MAX_LEN);
		return VGEMINI_DMA_ERR_LEN;
	}
	if (nic->dma_addr + nic->dma_len < nic->dma_addr ||
	    (cmd == VGEMINI_DMA_CMD_COPY &&
	     nic->dma_dst + nic->dma_len < nic->dma_dst)) {
		GEMINI_GUEST_ERROR(nic, TEST_DMA_WRAP);
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
	GEMINI_GUEST_ERROR(nic, TEST_DMA_BUS, nic->dma_addr + done);
	return VGEMINI_DMA_ERR_BUS;
}

/* --- Control block ------------------------------------------------------ */

/*
 * The control block is one table, ctl_regs[]: both directions and the
 * traces' names come from it.  It is handled as 32-bit words: an 8-byte
 * access is two word accesses, low word first, and a word is the whole of
 * a 32-bit register or one half of a 64-bit one.
 */
enum ctl_access {
	CTL_RO,		/* a write is refused (GEMINI_ACCESS_READ_ONLY) */
	CTL_RW,
	CTL_WO,		/* a read is refused (GEMINI_ACCESS_WRITE_ONLY) */
};

/*
 * A register, or an array of @count alike ones (register @i at @offset +
 * @i * @stride; @stride only for an array).  Its value is kept in struct
 * gemini_nic at @field (the array's at @field + @i * @fstride), or is
 * computed by @read, or is constant (@value: no @read and @field 0, where
 * struct gemini_nic has no register); a write stores it there under @mask
 * unless @write takes it.
 *
 * @offset, @name: VGEMINI_CTL_<name> of vgemini_ctl.h (the array's first);
 *	in a port's block VGEMINI_<name>, among the counters VGEMINI_PC_<id>
 *	(named PC_<id>) and VGEMINI_NC_<id> (NC_<id>)
 * @size: 4 or 8 bytes; the field is a u32 or a u64 to match
 * @access: enum ctl_access
 * @mask: the bits a write keeps (an RW register without @write)
 * @read: the value of register @i
 * @write: a write of @val, the register's new value (with a half write,
 *	merged with the other half)
 */
struct ctl_reg {
	uint16_t offset;
	uint8_t size;
	uint8_t access;
	uint8_t count;
	uint16_t stride;
	const char *name;
	size_t field;
	size_t fstride;
	uint64_t value;
	uint64_t mask;
	uint64_t (*read)(const struct gemini_nic *nic, unsigned int i);
	void (*write)(struct gemini_nic *nic, uint64_t val);
};

static uint64_t ctl_coord(const struct gemini_nic *nic, unsigned int i)
{
	const struct gemini_config *c = &nic->cfg;

	(void)i;
	return VGEMINI_COORD(c->coord[0], c->coord[1], c->coord[2]);
}

static uint64_t ctl_dims(const struct gemini_nic *nic, unsigned int i)
{
	const struct gemini_config *c = &nic->cfg;

	(void)i;
	return VGEMINI_COORD(c->dims[0], c->dims[1], c->dims[2]);
}

static void ctl_irq_raise(struct gemini_nic *nic, uint64_t val)
{
	raise_irq(nic, (uint32_t)val);
}

static void ctl_dma_cmd(struct gemini_nic *nic, uint64_t val)
{
	/* Runs to completion before the write returns. */
	nic->dma_status = dma_run(nic, (uint32_t)val);
	raise_irq(nic, nic->dma_irq);
}

static uint64_t ctl_fabric_state(const struct gemini_nic *nic, unsigned int i)
{
	(void)i;
	return gemini_fabric_state(nic);
}

static void ctl_diag_cmd(struct gemini_nic *nic, uint64_t val)
{
	struct gemini_diag *d = &nic->diag[GEMINI_DIAG_GUEST];

	if (val != VGEMINI_DIAG_CMD_PING) {
		GEMINI_GUEST_ERROR(nic, DIAG_CMD, (uint32_t)val);
		return;
	}
	if (d->status == VGEMINI_DIAG_PENDING) {
		GEMINI_GUEST_ERROR(nic, DIAG_BUSY);
		return;
	}
	gemini_diag_start(nic, GEMINI_DIAG_GUEST, d->dest, d->len, 1);
}

static void ctl_gart_entries(struct gemini_nic *nic, uint64_t val)
{
	if (val > VGEMINI_GART_MAX_ENTRIES) {
		GEMINI_GUEST_ERROR(nic, GART_ENTRIES, (uint32_t)val,
				   VGEMINI_GART_MAX_ENTRIES);
		val = VGEMINI_GART_MAX_ENTRIES;
	}
	nic->nat.gart_entries = (uint32_t)val;
}

static uint64_t ctl_port_peer(const struct gemini_nic *nic, unsigned int i)
{
	const struct gemini_router_port *port = &nic->port[i];

	return port->state == VGEMINI_PORT_UP ||
	       port->state == VGEMINI_PORT_MISWIRED ?
	       port->peer : VGEMINI_PEER_NONE;
}

/* Register VGEMINI_CTL_@id, one of @sz bytes, with access CTL_@acc. */
#define CTL(id, sz, acc)						\
	.offset = VGEMINI_CTL_##id, .name = #id, .size = (sz),		\
	.access = CTL_##acc, .count = 1
/* Kept in nic->@f, a u32 or a u64 as the register's size. */
#define FIELD(f)	.field = offsetof(struct gemini_nic, f)
#define DIAG(f)		FIELD(diag[GEMINI_DIAG_GUEST].f)
#define PORT_STRIDE	.fstride = sizeof(struct gemini_router_port)
/* Register VGEMINI_PORT_@id of each port's block. */
#define PORT(id)							\
	.offset = VGEMINI_CTL_PORT_BASE + VGEMINI_PORT_##id,		\
	.name = "PORT_" #id, .size = 4, .access = CTL_RO,		\
	.count = GEMINI_NUM_TORUS_PORTS,				\
	.stride = VGEMINI_CTL_PORT_STRIDE
/* Counter VGEMINI_PC_@id of each port's block, VGEMINI_NC_@id the NIC's. */
#define PORT_COUNTER(id, key)						\
	{ .offset = VGEMINI_CTL_COUNTER(0, VGEMINI_PC_##id),		\
	  .name = "PC_" #id, .size = 8, .access = CTL_RO,		\
	  .count = VGEMINI_COUNTER_BLK_NIC,				\
	  .stride = VGEMINI_CTL_COUNTER_STRIDE,				\
	  FIELD(port[0].ctr[VGEMINI_PC_##id]), PORT_STRIDE },
#define NIC_COUNTER(id, key)						\
	{ .offset = VGEMINI_CTL_COUNTER(VGEMINI_COUNTER_BLK_NIC,	\
					VGEMINI_NC_##id),		\
	  .name = "NC_" #id, .size = 8, .access = CTL_RO,		\
	  .count = 1, FIELD(nic_ctr[VGEMINI_NC_##id]) },

static const struct ctl_reg ctl_regs[] = {
	/* identity and place */
	{ CTL(MAGIC, 4, RO), .value = VGEMINI_CTL_MAGIC_VALUE },
	{ CTL(VERSION, 4, RO), .value = VGEMINI_CTL_VERSION_VALUE },
	{ CTL(NODE_PE, 4, RO), FIELD(pe) },
	{ CTL(COORD, 4, RO), .read = ctl_coord },
	{ CTL(DIMS, 4, RO), .read = ctl_dims },
	{ CTL(NUM_PORTS, 4, RO), .value = GEMINI_NUM_TORUS_PORTS },
	{ CTL(NUM_VECTORS, 4, RO), FIELD(cfg.num_vectors) },
	/* test registers */
	{ CTL(SCRATCH, 8, RW), FIELD(scratch), .mask = UINT64_MAX },
	{ CTL(IRQ_RAISE, 4, WO), .write = ctl_irq_raise },
	{ CTL(DMA_ADDR, 8, RW), FIELD(dma_addr), .mask = UINT64_MAX },
	{ CTL(DMA_DST, 8, RW), FIELD(dma_dst), .mask = UINT64_MAX },
	{ CTL(DMA_LEN, 4, RW), FIELD(dma_len), .mask = UINT32_MAX },
	{ CTL(DMA_PATTERN, 4, RW), FIELD(dma_pattern), .mask = UINT32_MAX },
	{ CTL(DMA_CMD, 4, WO), .write = ctl_dma_cmd },
	{ CTL(DMA_STATUS, 4, RO), FIELD(dma_status) },
	{ CTL(DMA_IRQ, 4, RW), FIELD(dma_irq), .mask = UINT32_MAX },
	{ CTL(LINK_IRQ, 4, RW), FIELD(link_irq), .mask = UINT32_MAX },
	/* fabric state */
	{ CTL(ROUTE_GEN, 4, RO), FIELD(router.generation) },
	{ CTL(FABRIC_STATE, 4, RO), .read = ctl_fabric_state },
	/* diagnostic ping */
	{ CTL(DIAG_DEST, 4, RW), DIAG(dest), .mask = UINT32_MAX },
	{ CTL(DIAG_LEN, 4, RW), DIAG(len), .mask = UINT32_MAX },
	{ CTL(DIAG_CMD, 4, WO), .write = ctl_diag_cmd },
	{ CTL(DIAG_STATUS, 4, RO), DIAG(status) },
	{ CTL(DIAG_HOPS, 4, RO), DIAG(hops) },
	{ CTL(DIAG_RTT_NS, 4, RO), DIAG(rtt_ns) },
	{ CTL(DIAG_IRQ, 4, RW), DIAG(irq), .mask = UINT32_MAX },
	{ CTL(DIAG_SEQ, 4, RO), DIAG(seq) },
	{ CTL(DIAG_NTRACE, 4, RO), DIAG(ntrace) },
	{ .offset = VGEMINI_CTL_DIAG_TRACE, .name = "DIAG_TRACE", .size = 4,
	  .access = CTL_RO, .count = VGEMINI_DIAG_MAX_TRACE, .stride = 4,
	  DIAG(trace[0]), .fstride = 4 },
	/* GART */
	{ CTL(GART_BASE, 8, RW), FIELD(nat.gart_base),
	  .mask = VGEMINI_GART_BASE_MASK },
	{ CTL(GART_ENTRIES, 4, RW), FIELD(nat.gart_entries),
	  .write = ctl_gart_entries },
	/* router ports */
	{ PORT(STATE), FIELD(port[0].state), PORT_STRIDE },
	{ PORT(PEER), .read = ctl_port_peer },
	{ PORT(EXPECTED), FIELD(port[0].expected), PORT_STRIDE },
	{ PORT(CHANGES), FIELD(port[0].changes), PORT_STRIDE },
	/* counters: no register in the slots past VGEMINI_PC/NC_NUM */
	VGEMINI_PORT_COUNTER_LIST(PORT_COUNTER)
	VGEMINI_NIC_COUNTER_LIST(NIC_COUNTER)
};

/* Fields that are not uint32_t but kept as one */
static_assert(sizeof(enum vgemini_port_state) == 4, "PORT_STATE: a u32");
static_assert(sizeof(unsigned int) == 4, "NUM_VECTORS, DIAG_NTRACE: u32s");

#undef NIC_COUNTER
#undef PORT_COUNTER
#undef PORT
#undef PORT_STRIDE
#undef DIAG
#undef FIELD
#undef CTL

/* The register byte @off is in: register *@i of the array, its byte *@at. */
static const struct ctl_reg *ctl_find(uint64_t off, unsigned int *i,
				      unsigned int *at)
{
	const struct ctl_reg *r;
	uint64_t d, n;

	for (r = ctl_regs;
	     r < ctl_regs + sizeof(ctl_regs) / sizeof(ctl_regs[0]); r++) {
		if (off < r->offset)
			continue;
		d = off - r->offset;
		n = 0;
		if (r->count > 1) {
			n = d / r->stride;
			d %= r->stride;
		}
		if (n >= r->count || d >= r->size)
			continue;
		*i = (unsigned int)n;
		*at = (unsigned int)d;
		return r;
	}
	return NULL;
}

const char *gemini_ctl_reg_name(uint64_t offset)
{
	unsigned int i, at;
	const struct ctl_reg *r = ctl_find(offset, &i, &at);

	return r ? r->name : "?";
}

static void *ctl_field(struct gemini_nic *nic, const struct ctl_reg *r,
		       unsigned int i)
{
	return (char *)nic + r->field + i * r->fstride;
}

static uint64_t ctl_value(struct gemini_nic *nic, const struct ctl_reg *r,
			  unsigned int i)
{
	if (r->read)
		return r->read(nic, i);
	if (!r->field)
		return r->value;
	if (r->size == 8)
		return *(uint64_t *)ctl_field(nic, r, i);
	return *(uint32_t *)ctl_field(nic, r, i);
}

static enum gemini_access ctl_read32(struct gemini_nic *nic, uint64_t off,
				     uint32_t *val)
{
	const struct ctl_reg *r;
	unsigned int i, at;

	*val = 0;
	r = ctl_find(off, &i, &at);
	if (!r)
		return GEMINI_ACCESS_UNKNOWN;
	if (r->access == CTL_WO)
		return GEMINI_ACCESS_WRITE_ONLY;
	*val = (uint32_t)(ctl_value(nic, r, i) >> (8 * at));
	return GEMINI_ACCESS_OK;
}

static enum gemini_access ctl_write32(struct gemini_nic *nic, uint64_t off,
				      uint32_t val)
{
	const struct ctl_reg *r;
	unsigned int i, at;
	uint64_t v = val;

	r = ctl_find(off, &i, &at);
	if (!r)
		return GEMINI_ACCESS_UNKNOWN;
	if (r->access == CTL_RO)
		return GEMINI_ACCESS_READ_ONLY;
	if (r->size == 8) {
		/* A half: the other one stays. */
		uint64_t other = at ? 0xffffffffull : 0xffffffffull << 32;

		v = (ctl_value(nic, r, i) & other) | v << (8 * at);
	}
	if (r->write)
		r->write(nic, v);
	else if (r->size == 8)
		*(uint64_t *)ctl_field(nic, r, i) = v & r->mask;
	else
		*(uint32_t *)ctl_field(nic, r, i) = (uint32_t)(v & r->mask);
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
