// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cray-gemini device core: the control block, BAR0.
 *
 * Each block declares its control registers in a table over its own state
 * (struct gemini_ctl_reg, gemini_reg.h); this file holds the control
 * block's own (identity, scratch, the test DMA engine) and walks all the
 * tables: both directions and the traces' names come from them.  The
 * block is handled as 32-bit words: an 8-byte access is two word
 * accesses, low word first, and a word is the whole of a 32-bit register
 * or one half of a 64-bit one.
 */
#include <assert.h>
#include <string.h>

#include "gemini_core.h"

void gemini_ctl_reset(struct gemini_nic *nic)
{
	memset(&nic->ctl, 0, sizeof(nic->ctl));
	nic->ctl.dma_status = VGEMINI_DMA_IDLE;
	nic->ctl.dma_irq = VGEMINI_IRQ_NONE;
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
	if (nic->ctl.dma_len == 0 || nic->ctl.dma_len > VGEMINI_DMA_MAX_LEN) {
		GEMINI_GUEST_ERROR(nic, TEST_DMA_LEN, nic->ctl.dma_len,
				   VGEMINI_DMA_MAX_LEN);
		return VGEMINI_DMA_ERR_LEN;
	}
	if (nic->ctl.dma_addr + nic->ctl.dma_len < nic->ctl.dma_addr ||
	    (cmd == VGEMINI_DMA_CMD_COPY &&
	     nic->ctl.dma_dst + nic->ctl.dma_len < nic->ctl.dma_dst)) {
		GEMINI_GUEST_ERROR(nic, TEST_DMA_WRAP);
		return VGEMINI_DMA_ERR_BUS;
	}

	/* Forward, a chunk at a time: overlapping COPY ranges are undefined. */
	for (done = 0; done < nic->ctl.dma_len; done += n) {
		n = nic->ctl.dma_len - done;
		if (n > DMA_CHUNK)
			n = DMA_CHUNK;
		if (cmd == VGEMINI_DMA_CMD_FILL)
			memset(buf, nic->ctl.dma_pattern & 0xff, n);
		else if (gemini_dma_read(nic, nic->ctl.dma_addr + done, buf, n))
			goto bus_error;
		if (cmd == VGEMINI_DMA_CMD_INVERT) {
			for (i = 0; i < n; i++)
				buf[i] = ~buf[i];
		}
		if (gemini_dma_write(nic, (cmd == VGEMINI_DMA_CMD_COPY ?
					   nic->ctl.dma_dst : nic->ctl.dma_addr) + done,
				     buf, n))
			goto bus_error;
	}
	return VGEMINI_DMA_DONE;

bus_error:
	GEMINI_GUEST_ERROR(nic, TEST_DMA_BUS, nic->ctl.dma_addr + done);
	return VGEMINI_DMA_ERR_BUS;
}

/* --- Registers ---------------------------------------------------------- */

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
	gemini_nic_raise_irq(nic, (uint32_t)val);
}

static void ctl_dma_cmd(struct gemini_nic *nic, uint64_t val)
{
	/* Runs to completion before the write returns. */
	nic->ctl.dma_status = dma_run(nic, (uint32_t)val);
	gemini_nic_raise_irq(nic, nic->ctl.dma_irq);
}

#define CTL	GEMINI_CTL
#define FIELD	GEMINI_CTL_FIELD

static const struct gemini_ctl_reg ctl_regs[] = {
	/* identity and place */
	{ CTL(MAGIC, 4, RO), .value = VGEMINI_CTL_MAGIC_VALUE },
	{ CTL(VERSION, 4, RO), .value = VGEMINI_CTL_VERSION_VALUE },
	{ CTL(NODE_PE, 4, RO), FIELD(pe) },
	{ CTL(COORD, 4, RO), .read = ctl_coord },
	{ CTL(DIMS, 4, RO), .read = ctl_dims },
	{ CTL(NUM_PORTS, 4, RO), .value = GEMINI_NUM_TORUS_PORTS },
	{ CTL(NUM_VECTORS, 4, RO), FIELD(cfg.num_vectors) },
	/* test registers */
	{ CTL(SCRATCH, 8, RW), FIELD(ctl.scratch), .mask = UINT64_MAX },
	{ CTL(IRQ_RAISE, 4, WO), .write = ctl_irq_raise },
	{ CTL(DMA_ADDR, 8, RW), FIELD(ctl.dma_addr), .mask = UINT64_MAX },
	{ CTL(DMA_DST, 8, RW), FIELD(ctl.dma_dst), .mask = UINT64_MAX },
	{ CTL(DMA_LEN, 4, RW), FIELD(ctl.dma_len), .mask = UINT32_MAX },
	{ CTL(DMA_PATTERN, 4, RW), FIELD(ctl.dma_pattern),
	  .mask = UINT32_MAX },
	{ CTL(DMA_CMD, 4, WO), .write = ctl_dma_cmd },
	{ CTL(DMA_STATUS, 4, RO), FIELD(ctl.dma_status) },
	{ CTL(DMA_IRQ, 4, RW), FIELD(ctl.dma_irq), .mask = UINT32_MAX },
};

#undef FIELD
#undef CTL

/* A u32 field kept as one */
static_assert(sizeof(unsigned int) == 4, "NUM_VECTORS: a u32");

static const struct gemini_ctl_table ctl_table = GEMINI_CTL_TABLE(ctl_regs);

/* Every block's; no two claim the same offset. */
static const struct gemini_ctl_table *const ctl_tables[] = {
	&ctl_table,
	&gemini_router_ctl_table,
	&gemini_diag_ctl_table,
	&gemini_nat_ctl_table,
	&gemini_fma_ctl_table,
	&gemini_port_ctl_table,
	&gemini_nic_ctl_table,
};

/* The register byte @off is in: register *@i of the array, its byte *@at. */
static const struct gemini_ctl_reg *ctl_find(uint64_t off, unsigned int *i,
					     unsigned int *at)
{
	const struct gemini_ctl_reg *r;
	unsigned int t;
	uint64_t d, n;

	for (t = 0; t < sizeof(ctl_tables) / sizeof(ctl_tables[0]); t++) {
		const struct gemini_ctl_table *tab = ctl_tables[t];

		for (r = tab->regs; r < tab->regs + tab->count; r++) {
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
	}
	return NULL;
}

const char *gemini_ctl_reg_name(uint64_t offset)
{
	unsigned int i, at;
	const struct gemini_ctl_reg *r = ctl_find(offset, &i, &at);

	return r ? r->name : "?";
}

static void *ctl_field(struct gemini_nic *nic, const struct gemini_ctl_reg *r,
		       unsigned int i)
{
	return (char *)nic + r->field + i * r->fstride;
}

static uint64_t ctl_value(struct gemini_nic *nic, const struct gemini_ctl_reg *r,
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
	const struct gemini_ctl_reg *r;
	unsigned int i, at;

	*val = 0;
	r = ctl_find(off, &i, &at);
	if (!r)
		return GEMINI_ACCESS_UNKNOWN;
	if (r->access == GEMINI_CTL_WO)
		return GEMINI_ACCESS_WRITE_ONLY;
	*val = (uint32_t)(ctl_value(nic, r, i) >> (8 * at));
	return GEMINI_ACCESS_OK;
}

static enum gemini_access ctl_write32(struct gemini_nic *nic, uint64_t off,
				      uint32_t val)
{
	const struct gemini_ctl_reg *r;
	unsigned int i, at;
	uint64_t v = val;

	r = ctl_find(off, &i, &at);
	if (!r)
		return GEMINI_ACCESS_UNKNOWN;
	if (r->access == GEMINI_CTL_RO)
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

	gemini_fma_wc_flush(nic);
	*val = 0;
	if (!gemini_access_size_ok(offset, size, GEMINI_BAR_CTL_SIZE))
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

	gemini_fma_wc_flush(nic);
	if (!gemini_access_size_ok(offset, size, GEMINI_BAR_CTL_SIZE))
		return GEMINI_ACCESS_BAD_SIZE;
	r = ctl_write32(nic, offset, (uint32_t)val);
	if (size == 8)
		r = worse(r, ctl_write32(nic, offset + 4, (uint32_t)(val >> 32)));
	return r;
}

