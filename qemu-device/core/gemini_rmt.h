/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cray-gemini device core: the RMT, the NIC's target side
 * (gemini_rmt.c): requests delivered to this node, executed against its
 * memory through the NAT and answered.
 */
#ifndef GEMINI_RMT_H
#define GEMINI_RMT_H

#include <stdbool.h>
#include <stdint.h>

#include "gemini_packet.h"

/*
 * Counters of the target side.  Not yet in the control block
 * (vgemini_ctl.h has no slots named for them); the supervisor's JSON and
 * the tests read them here.
 */
struct gemini_rmt_stats {
	uint64_t req_done;		/* requests executed, answered ACK/DATA */
	uint64_t req_refused;		/* requests answered with ERR */
	uint64_t req_waits;		/* deliveries postponed: no room to answer */
};

struct gemini_nic;

/*
 * Execute a PUT, GET, AMO or CQWRITE delivered to the NIC and inject its
 * response.  Returns false, having done nothing, when the response could
 * not be injected now: the request then waits in its input buffer.
 */
bool gemini_rmt_deliver(struct gemini_nic *nic, const struct gemini_pkt *req);
const struct gemini_rmt_stats *gemini_rmt_stats(const struct gemini_nic *nic);

#endif /* GEMINI_RMT_H */
