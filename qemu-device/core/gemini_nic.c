// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cray-gemini device core: the NIC's scheduling.
 *
 * What drives the blocks: gemini_nic_tick(), every heartbeat period,
 * publishes each port's heartbeat and judges its neighbour
 * (gemini_port.c); gemini_nic_poll(), whenever work may have arrived,
 * takes link input (gemini_lcb.c), lets FMA inject and time out
 * (gemini_fma_seq.c), forwards (gemini_router.c) and times pings out
 * (gemini_diag.c) until nothing moves, then rings the doorbells of the
 * peers it published something for and arms its own;
 * gemini_nic_poll_unarmed() does the same work and leaves our doorbells
 * as they are (a caller that polls again soon, such as a posting CPU).
 * Both tell the neighbours whether an ACK for us may wait for our next
 * poll (gemini_nic_publish_acks()).
 *
 * What the router delivers to this node, the NIC hands to the engine that
 * takes it (gemini_nic_deliver()): requests to the RMT, responses to the
 * engine that owns their tag, pings to the diagnostics.
 *
 * The NIC's own counters (VGEMINI_NC_*) are kept here; every block counts
 * in them through gemini_nic_count().
 */
#include <stdint.h>
#include <stddef.h>

#include "gemini_core.h"

/*
 * With acks_lazy published, the answers of silent PUTs may wait in the
 * links; a poll this soon after takes them in, so that their sequences and
 * ORB entries are not held for long when nothing else comes.
 */
#define ACK_LAZY_NS	500000u

bool gemini_nic_acks_lazy(const struct gemini_nic *nic)
{
	return !gemini_fma_acks_wanted(nic) && !gemini_bte_busy(nic);
}

bool gemini_nic_publish_acks(struct gemini_nic *nic)
{
	return gemini_port_publish_acks(nic, gemini_nic_acks_lazy(nic));
}

void gemini_nic_tick(struct gemini_nic *nic, uint64_t now_ms)
{
	gemini_port_tick(nic, now_ms);
}

/* One pass over everything; *deadline gets the earliest timer wanted. */
static bool poll_once(struct gemini_nic *nic, uint64_t now, uint64_t *deadline)
{
	bool progress = false;
	unsigned int port;

	*deadline = UINT64_MAX;
	for (port = 0; port < GEMINI_NUM_TORUS_PORTS; port++)
		progress |= gemini_lcb_poll(nic, port, now, deadline);
	progress |= gemini_fma_poll(nic, now, deadline);
	progress |= gemini_bte_poll(nic, now, deadline);
	progress |= gemini_bte_rx_poll(nic, now, deadline);
	progress |= gemini_rmt_poll(nic, now, deadline);
	progress |= gemini_router_forward(nic, now);
	gemini_diag_poll(nic, now, deadline);
	return progress;
}

/* @arm: arm our doorbells before the last look (else leave them as they are) */
static uint64_t nic_poll(struct gemini_nic *nic, bool arm)
{
	uint64_t deadline = UINT64_MAX;
	uint64_t now = nic->ops->clock_ns(nic->opaque);
	unsigned int rounds = 0;
	bool looked = false;

	/* A write-combined line left open goes now (gemini_fma.c). */
	gemini_fma_wc_flush(nic);
	/* Time pings out first, so that the next of a burst goes out now. */
	gemini_diag_poll(nic, now, &deadline);
	/* Bounded, so a flood cannot keep the caller here for ever. */
	while (rounds++ < 64) {
		if (poll_once(nic, now, &deadline))
			continue;
		gemini_port_kick_peers(nic);
		if (looked)
			break;
		/*
		 * Arm our doorbells, then look once more: what a peer
		 * published before it saw us armed would otherwise wait.
		 * A posting CPU's poll (unarmed) looks once more too: PUTs
		 * that each wait for their GLOBAL event are markedly slower
		 * without it (Documentation/fabric.rst, "Doorbells").
		 */
		if (arm)
			gemini_port_arm(nic);
		/* The same look serves a change to prompt ACKs. */
		gemini_nic_publish_acks(nic);
		looked = true;
	}
	gemini_port_kick_peers(nic);
	if (gemini_nic_acks_lazy(nic) && gemini_fma_awaiting(nic) &&
	    now + ACK_LAZY_NS < deadline)
		deadline = now + ACK_LAZY_NS;
	if (rounds > 64)
		deadline = now;		/* more to do: come back at once */
	return deadline;
}

uint64_t gemini_nic_poll(struct gemini_nic *nic)
{
	return nic_poll(nic, true);
}

uint64_t gemini_nic_poll_unarmed(struct gemini_nic *nic)
{
	return nic_poll(nic, false);
}

/* --- Delivery: what the router hands the NIC --------------------------- */

void gemini_nic_stale_rsp(struct gemini_nic *nic, const struct gemini_pkt *pkt)
{
	gemini_nic_count(nic, VGEMINI_NC_STALE_RSP, 1);
	if (nic->ops->stale_rsp)
		nic->ops->stale_rsp(nic->opaque, pkt);
}

/* Answer a request the NIC does not implement: an error response. */
static bool nic_refuse(struct gemini_nic *nic, const struct gemini_pkt *req)
{
	struct gemini_pkt rsp = {
		.vc = GEMINI_VC_RSP,
		.type = GEMINI_PKT_ERR,
		.dst = req->src,
		.dst_nic = req->src_nic,
		.tag = req->tag,
		.status = GEMINI_STATUS_INV_CMD,
	};

	return gemini_router_inject(nic, &rsp) == 0;
}

bool gemini_nic_deliver(struct gemini_nic *nic, const struct gemini_pkt *pkt)
{
	switch (pkt->type) {
	case GEMINI_PKT_DIAG:
		if (!gemini_diag_deliver(nic, pkt))
			return false;
		break;
	case GEMINI_PKT_PUT:
	case GEMINI_PKT_GET:
	case GEMINI_PKT_AMO:
	case GEMINI_PKT_CQWRITE:
	case GEMINI_PKT_SEND:
		if (!gemini_rmt_deliver(nic, pkt))
			return false;
		break;
	default:
		if (pkt->vc == GEMINI_VC_REQ) {
			if (!nic_refuse(nic, pkt))
				return false;
			break;
		}
		/* Responses go to the engine that owns their tag. */
		if (gemini_tag_is_diag(pkt->tag)) {
			if (pkt->type != GEMINI_PKT_DIAG_RSP)
				gemini_nic_stale_rsp(nic, pkt);
			else if (!gemini_diag_deliver(nic, pkt))
				return false;
		} else if (pkt->type == GEMINI_PKT_DIAG_RSP) {
			gemini_nic_stale_rsp(nic, pkt);
		} else if (gemini_tag_is_bte(pkt->tag)) {
			gemini_bte_response(nic, pkt);
		} else {
			gemini_fma_response(nic, pkt);
		}
		break;
	}
	gemini_nic_count(nic, pkt->vc == GEMINI_VC_REQ ?
			 VGEMINI_NC_REQ_PKTS_IN : VGEMINI_NC_RSP_PKTS_IN, 1);
	return true;
}

/* --- The NIC's counters ------------------------------------------------- */

void gemini_nic_count(struct gemini_nic *nic, unsigned int idx, uint64_t n)
{
	nic->nic_ctr[idx] += n;
}

uint64_t gemini_nic_counter(const struct gemini_nic *nic, unsigned int idx)
{
	return nic->nic_ctr[idx];
}

/* Counter VGEMINI_NC_@id of the NIC's block; none past VGEMINI_NC_NUM. */
#define NIC_COUNTER(id, key)						\
	{ .offset = VGEMINI_CTL_COUNTER(VGEMINI_COUNTER_BLK_NIC,	\
					VGEMINI_NC_##id),		\
	  .name = "NC_" #id, .size = 8, .access = GEMINI_CTL_RO,	\
	  .count = 1, GEMINI_CTL_FIELD(nic_ctr[VGEMINI_NC_##id]) },

static const struct gemini_ctl_reg nic_regs[] = {
	VGEMINI_NIC_COUNTER_LIST(NIC_COUNTER)
};

#undef NIC_COUNTER

const struct gemini_ctl_table gemini_nic_ctl_table =
	GEMINI_CTL_TABLE(nic_regs);
