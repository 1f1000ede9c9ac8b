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
 * peers it published something for and arms its own.
 */
#include <stdint.h>

#include "gemini_core.h"

#define STORE(p, v)	__atomic_store_n(&(p), (v), __ATOMIC_RELEASE)

void gemini_nic_tick(struct gemini_nic *nic, uint64_t now_ms)
{
	unsigned int port;

	for (port = 0; port < GEMINI_NUM_TORUS_PORTS; port++) {
		struct gemini_router_port *p = &nic->port[port];

		if (!p->link.mine || p->fault.down)
			continue;
		p->heartbeat++;
		STORE(p->link.mine->heartbeat, p->heartbeat);
	}
	for (port = 0; port < GEMINI_NUM_TORUS_PORTS; port++) {
		if (nic->port[port].link.mine)
			gemini_port_judge_peer(nic, port, now_ms);
	}
}

/* Ring the doorbell of every peer we published something for. */
static void kick_peers(struct gemini_nic *nic)
{
	unsigned int port;

	for (port = 0; port < GEMINI_NUM_TORUS_PORTS; port++) {
		struct gemini_router_port *p = &nic->port[port];

		if (!p->kick || !p->link.mine)
			continue;
		p->kick = false;
		/* Ring only a peer that waits for it. */
		if (__atomic_exchange_n(p->link.peer_armed, 0,
					__ATOMIC_SEQ_CST) && nic->ops->kick_peer)
			nic->ops->kick_peer(nic->opaque, port);
	}
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
	progress |= gemini_router_forward(nic, now);
	gemini_diag_poll(nic, now, deadline);
	return progress;
}

uint64_t gemini_nic_poll(struct gemini_nic *nic)
{
	uint64_t deadline = UINT64_MAX;
	uint64_t now = nic->ops->clock_ns(nic->opaque);
	unsigned int port, rounds = 0;
	bool armed = false;

	/* Time pings out first, so that the next of a burst goes out now. */
	gemini_diag_poll(nic, now, &deadline);
	/* Bounded, so a flood cannot keep the caller here for ever. */
	while (rounds++ < 64) {
		if (poll_once(nic, now, &deadline))
			continue;
		kick_peers(nic);
		if (armed)
			break;
		/*
		 * Arm our doorbells, then look once more: what a peer
		 * published before it saw us armed would otherwise wait.
		 */
		for (port = 0; port < GEMINI_NUM_TORUS_PORTS; port++) {
			struct gemini_router_port *p = &nic->port[port];

			if (p->link.mine)
				__atomic_store_n(&p->link.mine->armed, 1,
						 __ATOMIC_SEQ_CST);
		}
		armed = true;
	}
	kick_peers(nic);
	if (rounds > 64)
		deadline = now;		/* more to do: come back at once */
	return deadline;
}
