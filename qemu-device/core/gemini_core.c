// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cray-gemini device core: the device as a whole.  Checks the
 * configuration and sets every block up, resets and frees them, and
 * dispatches the NIC window (BAR2): one table of the regions the blocks
 * declare, each access handed to the one region that holds it.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemini_core.h"

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

void gemini_nic_reset(struct gemini_nic *nic)
{
	gemini_ctl_reset(nic);
	gemini_port_reset(nic);
	gemini_diag_reset(nic);
	/* The driver programs the tables again after a reset. */
	gemini_nat_reset(nic);
	gemini_cq_reset(nic);
	gemini_fma_reset(nic);
	gemini_bte_reset(nic);
	gemini_rmt_reset(nic);
}

void gemini_nic_fini(struct gemini_nic *nic)
{
	gemini_router_fini(nic);
}

/* --- NIC window --------------------------------------------------------- */

/* The node's own Gemini id: read-only, its upper half reads 0. */
static enum gemini_access nl_node_id_access(struct gemini_nic *nic,
					    uint64_t rel, unsigned int size,
					    uint64_t *val, bool write)
{
	(void)size;
	if (write)
		return GEMINI_ACCESS_READ_ONLY;
	*val = rel & 4 ? 0 : nic->gemini_id;
	return GEMINI_ACCESS_OK;
}

static const struct gemini_window_region nl_node_id_region = {
	GEMINI_MMR_NL_NODE_ID, 8, "NL_NODE_ID", nl_node_id_access,
};

/*
 * Every region of the window that a block decodes, by base; none
 * overlaps another (tests/test_core.c).  The FMA windows are not here:
 * their stores take another path (gemini_window_write()).
 */
static const struct gemini_window_region *const window_regions[] = {
	&gemini_nat_ntt_region,
	&nl_node_id_region,
	&gemini_nat_ntt_config_region,
	&gemini_bte_tx_desc_region,
	&gemini_bte_tx_chan_region,
	&gemini_bte_tx_ring_region,
	&gemini_bte_np_ctrl_region,
	&gemini_nat_mrt_region,
	&gemini_nat_mdd_region,
	&gemini_nat_mrt_page_size_region,
	&gemini_cq_desc_region,
	&gemini_bte_rx_desc_region,
	&gemini_bte_rx_chan_region,
	&gemini_bte_rx_ring_region,
	&gemini_cq_user_region,
	&gemini_fma_user_region,
	&gemini_fma_priv_region,
};

#define NUM_WINDOW_REGIONS	(sizeof(window_regions) / sizeof(window_regions[0]))

const struct gemini_window_region *const *gemini_window_regions(unsigned int *n)
{
	*n = NUM_WINDOW_REGIONS;
	return window_regions;
}

/* The one region that holds @offset is told of the access; else UNKNOWN. */
static enum gemini_access window_access(struct gemini_nic *nic,
					uint64_t offset, unsigned int size,
					uint64_t *val, bool write)
{
	const struct gemini_window_region *reg;
	unsigned int lo = 0, hi = NUM_WINDOW_REGIONS, mid;

	/* What reaches the NIC after a write-combined line sends it first. */
	gemini_fma_wc_flush(nic);
	/* The last region whose base is at or below @offset. */
	while (hi - lo > 1) {
		mid = (lo + hi) / 2;
		if (window_regions[mid]->base <= offset)
			lo = mid;
		else
			hi = mid;
	}
	reg = window_regions[lo];
	if (offset < reg->base || offset - reg->base >= reg->span)
		return GEMINI_ACCESS_UNKNOWN;
	return reg->access(nic, offset - reg->base, size, val, write);
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

bool gemini_window_store(struct gemini_nic *nic, uint64_t offset,
			 unsigned int size, uint64_t val,
			 enum gemini_access *r)
{
	uint64_t issued = gemini_fma_issued(nic);
	bool prompted;

	*r = gemini_window_write(nic, offset, size, val);
	/*
	 * A sync that asked for an event: ACKs of its requests may have
	 * come in unrung while they could wait, and now must be taken in.
	 */
	prompted = gemini_nic_publish_acks(nic);
	return gemini_fma_issued(nic) != issued || !gemini_fma_owns(offset) ||
	       prompted;
}
