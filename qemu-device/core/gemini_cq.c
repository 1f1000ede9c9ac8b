// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cray-gemini device core: completion queues.
 *
 * A CQ is a ring of 8-byte entries in node memory that the driver
 * describes in a CQ descriptor (uapi/gemini_nic.h): base_addr, max_index
 * (the ring has max_index + 1 entries), the read index rd_index that the
 * consumer advances (through the descriptor or its CQ's user alias page)
 * and the write index wr_index that the device advances.  The device
 * writes entry wr_index at base_addr + 8 * wr_index and moves wr_index to
 * (wr_index + 1) mod (max_index + 1).  Consumers find new entries by their
 * non-zero source field and report progress by writing rd_index: the
 * index of the next entry they will read, i.e. every entry before it has
 * been consumed.
 *
 * One slot is always kept free, so that rd_index == wr_index means empty:
 * the ring is full when (wr_index + 1) mod (max_index + 1) == rd_index.
 * An event that finds the ring full is written into that last free slot
 * with the overrun bit set, and wr_index stays on it: the consumer reads
 * it after the entries before it and learns that events may have been
 * lost from then on.  Until the consumer reports progress past that
 * point, later events are lost (counted in cq_lost).  The first write of
 * a rd_index that differs from the one in place moves wr_index past the
 * overrun entry and the ring carries on.  (A rewrite of an unchanged
 * rd_index cannot be told from a consumer that went a whole lap, so it
 * does not release the overrun entry: events stay lost, not overwritten.)
 *
 * The device checks the descriptor at every event: the CQ must be enabled,
 * base_addr 4 KiB aligned, max_index at least 1, the ring within 48 bits
 * of address, and both indices at most max_index.  Otherwise, or if the
 * bus refuses the entry's write, the event is lost: counted (cq_lost) and
 * reported as a guest error.
 *
 * Interrupts: with irq_req set, the CQ raises Gemini IRQ irq_req_index
 * (MSI-X vector irq_req_index - 21) on every (irq_thresh_index + 1)-th
 * entry it writes; the count restarts when the driver writes QW1 (both
 * indices or wr_index) or QW2.  An index below 21 or past the vectors is a
 * guest error and raises nothing.
 */
#include <assert.h>
#include <string.h>

#include "gemini_core.h"
#include "gemini_reg.h"

static uint32_t rd_index(const struct gemini_cq *cq)
{
	return (uint32_t)gemini_field(cq->qw[0], GEMINI_CQ_RD_INDEX_SHIFT,
				      GEMINI_CQ_INDEX_MASK);
}

static uint32_t wr_index(const struct gemini_cq *cq)
{
	return (uint32_t)gemini_field(cq->qw[0], GEMINI_CQ_WR_INDEX_SHIFT,
				      GEMINI_CQ_INDEX_MASK);
}

static uint32_t max_index(const struct gemini_cq *cq)
{
	return (uint32_t)gemini_field(cq->qw[1], GEMINI_CQ_MAX_INDEX_SHIFT,
				      GEMINI_CQ_INDEX_MASK);
}

static void set_wr_index(struct gemini_cq *cq, uint32_t wr)
{
	cq->qw[0] = (cq->qw[0] & ~(GEMINI_CQ_INDEX_MASK <<
				   GEMINI_CQ_WR_INDEX_SHIFT)) |
		    ((uint64_t)wr << GEMINI_CQ_WR_INDEX_SHIFT);
}

/* The driver (re)programs the indices: forget the ring's history. */
static void cq_restart(struct gemini_cq *cq)
{
	cq->overrun = false;
	cq->irq_count = 0;
}

/* The consumer reports that every entry before @rd has been consumed. */
static void cq_set_rd(struct gemini_cq *cq, uint64_t rd)
{
	uint32_t old = rd_index(cq), max = max_index(cq);

	rd &= GEMINI_CQ_INDEX_MASK;
	cq->qw[0] = (cq->qw[0] & ~(GEMINI_CQ_INDEX_MASK <<
				   GEMINI_CQ_RD_INDEX_SHIFT)) |
		    (rd << GEMINI_CQ_RD_INDEX_SHIFT);
	if (!cq->overrun || rd == old)
		return;
	/* The consumer moved on: the overrun entry becomes a plain one. */
	cq->overrun = false;
	if (max >= GEMINI_CQ_MIN_MAX_INDEX && wr_index(cq) <= max)
		set_wr_index(cq, (wr_index(cq) + 1) % (max + 1));
}

static enum gemini_access desc_access(struct gemini_nic *nic, uint64_t rel,
				      unsigned int size, uint64_t *val,
				      bool write)
{
	static const uint64_t mask[GEMINI_CQ_DESC_QWORDS] = {
		GEMINI_CQ_QW1_MASK, GEMINI_CQ_QW2_MASK, GEMINI_CQ_QW3_MASK,
	};
	struct gemini_cq *cq = &nic->cq[rel / GEMINI_CQ_DESC_BYTES];
	unsigned int qw = (rel % GEMINI_CQ_DESC_BYTES) / 8;
	unsigned int at = rel & 4;

	if (qw >= GEMINI_CQ_DESC_QWORDS) {
		/* The slot's fourth qword holds nothing. */
		if (!write)
			*val = 0;
		return GEMINI_ACCESS_UNKNOWN;
	}
	if (qw == 0 && write && size == 4 && at == 0) {
		cq_set_rd(cq, *val);
		return GEMINI_ACCESS_OK;
	}
	gemini_reg_access(&cq->qw[qw], mask[qw], at, size, val, write);
	if (write && qw < 2)
		cq_restart(cq);
	return GEMINI_ACCESS_OK;
}

static enum gemini_access alias_access(struct gemini_nic *nic, uint64_t rel,
				       unsigned int size, uint64_t *val,
				       bool write)
{
	struct gemini_cq *cq = &nic->cq[rel >> 12];
	uint64_t in = rel & 0xfff;

	if (in == GEMINI_CQ_READ_INDEX_OFFSET) {
		if (write)
			cq_set_rd(cq, *val);
		else
			*val = size == 8 ? cq->qw[0] : (uint32_t)cq->qw[0];
		return GEMINI_ACCESS_OK;
	}
	if (in == GEMINI_CQ_READ_INDEX_OFFSET + 4) {
		if (write)
			return GEMINI_ACCESS_READ_ONLY;
		*val = wr_index(cq);
		return GEMINI_ACCESS_OK;
	}
	if (in == GEMINI_CQ_IDLE_OFFSET && size == 8 && !write) {
		/* The wait is the glue's (cray_gemini_idle()). */
		*val = 0;
		return GEMINI_ACCESS_OK;
	}
	if (!write)
		*val = 0;
	return GEMINI_ACCESS_UNKNOWN;
}

const struct gemini_window_region gemini_cq_desc_region = {
	GEMINI_MMR_CQ_DESC, (uint64_t)GEMINI_NUM_CQ * GEMINI_CQ_DESC_BYTES,
	"CQ_DESC", desc_access,
};

const struct gemini_window_region gemini_cq_user_region = {
	GEMINI_CQ_USER_ALIAS,
	GEMINI_CQ_USER_PAGE(GEMINI_NUM_CQ) - GEMINI_CQ_USER_ALIAS,
	"CQ_USER_ALIAS", alias_access,
};

enum gemini_access gemini_cq_access(struct gemini_nic *nic, uint64_t off,
				    unsigned int size, uint64_t *val,
				    bool write)
{
	static const struct gemini_window_region *const regions[] = {
		&gemini_cq_desc_region, &gemini_cq_user_region,
	};

	return gemini_window_regions_access(regions, sizeof(regions) /
					    sizeof(regions[0]), nic, off,
					    size, val, write);
}

void gemini_cq_reset(struct gemini_nic *nic)
{
	memset(nic->cq, 0, sizeof(nic->cq));
}

/* --- Events ------------------------------------------------------------- */

static void cq_irq(struct gemini_nic *nic, unsigned int cqh,
		   struct gemini_cq *cq)
{
	uint32_t thresh;
	unsigned int index;

	thresh = (uint32_t)gemini_field(cq->qw[1], GEMINI_CQ_IRQ_THRESH_SHIFT,
					GEMINI_CQ_IRQ_THRESH_MASK);
	index = (unsigned int)gemini_field(cq->qw[1], GEMINI_CQ_IRQ_INDEX_SHIFT,
					   GEMINI_CQ_IRQ_INDEX_MASK);
	if (!(cq->qw[2] & GEMINI_CQ_IRQ_REQ))
		return;
	if (++cq->irq_count <= thresh)
		return;
	cq->irq_count = 0;
	if (index < GEMINI_IRQ_FIRST ||
	    GEMINI_IRQ_VECTOR(index) >= nic->cfg.num_vectors) {
		GEMINI_GUEST_ERROR(nic, CQ_IRQ_INDEX, cqh, index);
		return;
	}
	nic->ops->raise_irq(nic->opaque, GEMINI_IRQ_VECTOR(index));
}

bool gemini_cq_event(struct gemini_nic *nic, unsigned int cqh,
		     unsigned int source, unsigned int status, uint64_t data)
{
	struct gemini_cq *cq;
	uint64_t base, entry;
	uint32_t rd, wr, max;
	uint8_t le[GEMINI_CQ_ENTRY_BYTES];
	bool full;

	if (cqh >= GEMINI_NUM_CQ) {
		nic->cq_stats.lost++;
		GEMINI_GUEST_ERROR(nic, CQ_NONE, cqh);
		return false;
	}
	cq = &nic->cq[cqh];
	if (!(cq->qw[1] & GEMINI_CQ_ENABLE)) {
		nic->cq_stats.lost++;
		GEMINI_GUEST_ERROR(nic, CQ_DISABLED, cqh);
		return false;
	}
	base = gemini_field(cq->qw[2], GEMINI_CQ_BASE_SHIFT,
			    GEMINI_CQ_BASE_MASK);
	max = max_index(cq);
	rd = rd_index(cq);
	wr = wr_index(cq);
	if ((base & (GEMINI_CQ_ALIGN - 1)) || max < GEMINI_CQ_MIN_MAX_INDEX ||
	    (base + ((uint64_t)max + 1) * GEMINI_CQ_ENTRY_BYTES - 1) >
	    GEMINI_CQ_BASE_MASK || rd > max || wr > max) {
		nic->cq_stats.lost++;
		GEMINI_GUEST_ERROR(nic, CQ_BAD_DESC, cqh, base, max,
				   (uint64_t)rd << 32 | wr);
		return false;
	}
	if (cq->overrun) {
		/* Its overrun entry is unread: the consumer knows already. */
		nic->cq_stats.overruns++;
		nic->cq_stats.lost++;
		return false;
	}

	full = (wr + 1) % (max + 1) == rd;
	entry = GEMINI_CQE(source, status, data) |
		(full ? GEMINI_CQE_OVERRUN : 0);
	static_assert(GEMINI_CQ_ENTRY_BYTES == 8, "a CQ entry is a u64");
	vgemini_put_le64(le, entry);
	if (gemini_dma_write(nic, base + (uint64_t)wr * GEMINI_CQ_ENTRY_BYTES,
			     le, sizeof(le))) {
		nic->cq_stats.lost++;
		GEMINI_GUEST_ERROR(nic, CQ_BUS, cqh, wr, base);
		return false;
	}
	nic->cq_stats.events++;
	if (full) {
		nic->cq_stats.overruns++;
		cq->overrun = true;
	} else {
		set_wr_index(cq, (wr + 1) % (max + 1));
	}
	cq_irq(nic, cqh, cq);
	return true;
}

const struct gemini_cq_stats *gemini_cq_stats(const struct gemini_nic *nic)
{
	return &nic->cq_stats;
}

void gemini_cq_state_json(const struct gemini_nic *nic, struct gemini_json *j)
{
	bool first = true;
	unsigned int i;

	for (i = 0; i < GEMINI_NUM_CQ; i++) {
		const struct gemini_cq *cq = &nic->cq[i];

		if (!(cq->qw[1] & GEMINI_CQ_ENABLE))
			continue;
		gemini_json_printf(j, "%s{\"cq\": %u, \"rd\": %u, \"wr\": %u, ",
				   first ? "" : ", ", i, rd_index(cq),
				   wr_index(cq));
		gemini_json_printf(j, "\"max\": %u, \"overrun\": %s}",
				   max_index(cq),
				   cq->overrun ? "true" : "false");
		first = false;
	}
}
