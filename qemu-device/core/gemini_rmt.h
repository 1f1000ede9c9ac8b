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
	uint64_t flags_held;		/* flags that came before their requests */
	uint64_t flags_dropped;		/* held flags given up (never answered) */
};

/*
 * The FMA sequences seen here (gemini_rmt.c): how many requests of each
 * the target executed, and its flag while it waits for the rest.  A
 * cache, as Gemini's RMT keeps "active SSID state": GEMINI_RMT_SEQ_SETS
 * sets of GEMINI_RMT_SEQ_WAYS entries, the least recently used evicted.
 */
#define GEMINI_RMT_SEQ_SETS	64
#define GEMINI_RMT_SEQ_WAYS	4

struct gemini_rmt_seq {
	bool used;
	bool held;			/* its flag waits in @flag */
	uint8_t status;			/* first error of its requests here */
	uint8_t src_nic;
	uint16_t src;
	uint32_t seq;
	uint32_t done;			/* its requests executed here */
	uint64_t stamp;			/* last use, for eviction */
	uint64_t held_ns;		/* when its flag came */
	struct gemini_pkt flag;
};

struct gemini_rmt_seqs {
	struct gemini_rmt_seq e[GEMINI_RMT_SEQ_SETS][GEMINI_RMT_SEQ_WAYS];
	uint64_t stamp;
	unsigned int held;		/* entries holding a flag */
};

struct gemini_nic;

/* Forget every sequence (a reset of the device) */
void gemini_rmt_reset(struct gemini_nic *nic);
/*
 * Answer the held flags whose sequences are complete or failed, and give
 * up those held GEMINI_FMA_TIMEOUT_MS (their sources time out too).
 * *deadline gets the next give-up time.  True if something moved.
 */
bool gemini_rmt_poll(struct gemini_nic *nic, uint64_t now, uint64_t *deadline);

/*
 * Execute a PUT, GET, AMO or CQWRITE delivered to the NIC and inject its
 * response (a flag that came before its sequence's requests is kept, and
 * answered by gemini_rmt_poll()).  Returns false, having done nothing,
 * when the response could not be injected now: the request then waits
 * in its input buffer.
 */
bool gemini_rmt_deliver(struct gemini_nic *nic, const struct gemini_pkt *req);
const struct gemini_rmt_stats *gemini_rmt_stats(const struct gemini_nic *nic);

#endif /* GEMINI_RMT_H */
