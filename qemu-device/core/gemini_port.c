// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cray-gemini device core: router ports and their links.
 *
 * A port publishes its side of the link (PE, port, epoch, heartbeat) and
 * judges the peer by whether the peer's heartbeat or epoch still changes.
 * The peer is another process: every field of its side is read once with
 * an atomic load and checked before it is believed.  gemini_nic_tick()
 * (gemini_nic.c) publishes the heartbeats and calls
 * gemini_port_judge_peer() for every attached port.
 */
#include <stdio.h>
#include <string.h>

#include "gemini_core.h"

static const char *const port_names[GEMINI_NUM_TORUS_PORTS] = {
	VGEMINI_PORT_LIST(VGEMINI_PORT_LABEL_INIT)
};

static const char *const state_names[] = {
	VGEMINI_PORT_STATE_LIST(VGEMINI_PORT_STATE_INIT)
};

const char *gemini_port_name(unsigned int port)
{
	return port < GEMINI_NUM_TORUS_PORTS ? port_names[port] : "?";
}

const char *gemini_port_state_name(enum vgemini_port_state state)
{
	unsigned int s = (unsigned int)state;

	return s < sizeof(state_names) / sizeof(state_names[0]) &&
	       state_names[s] ? state_names[s] : "?";
}

#define LOAD(p)		__atomic_load_n(&(p), __ATOMIC_ACQUIRE)
#define STORE(p, v)	__atomic_store_n(&(p), (v), __ATOMIC_RELEASE)

int gemini_port_attach(struct gemini_nic *nic, unsigned int port,
		       const struct gemini_link_view *view, uint64_t epoch,
		       char *err, size_t errlen)
{
	volatile struct vgemini_link_side *me;
	struct gemini_router_port *p;
	struct gemini_link_view link;

	if (port >= GEMINI_NUM_TORUS_PORTS) {
		snprintf(err, errlen, "no port %u", port);
		return -1;
	}
	if (!view || !view->mine || !view->peer || !view->peer_armed ||
	    !view->tx || !view->rx) {
		snprintf(err, errlen, "link of port %s: no link memory",
			 port_names[port]);
		return -1;
	}
	link = *view;	/* @view may be the port's own, which detach clears */
	p = &nic->port[port];
	if (p->link.mine)
		gemini_port_detach(nic, port);

	p->link = link;
	p->epoch = epoch;
	gemini_lcb_reset(nic, port);
	p->state = VGEMINI_PORT_DOWN;
	p->peer = VGEMINI_PEER_NONE;
	p->changes = 0;
	p->heartbeat = 0;
	p->seen_valid = false;

	/* Magic last: the peer trusts the other fields once it sees it. */
	me = p->link.mine;
	STORE(me->magic, 0);
	STORE(me->version, VGEMINI_LINK_VERSION);
	STORE(me->pe, nic->pe);
	STORE(me->port, port);
	STORE(me->epoch, epoch);
	STORE(me->heartbeat, 0);
	STORE(me->magic, VGEMINI_LINK_MAGIC);
	return 0;
}

static void set_state(struct gemini_nic *nic, unsigned int port,
		      enum vgemini_port_state state, uint32_t peer)
{
	struct gemini_router_port *p = &nic->port[port];

	if (p->state == state && p->peer == peer)
		return;
	p->state = state;
	p->peer = peer;
	p->changes++;
	if (nic->ops->port_changed)
		nic->ops->port_changed(nic->opaque, port, state, peer);
	if (nic->link_irq != VGEMINI_IRQ_NONE &&
	    nic->link_irq < nic->cfg.num_vectors)
		nic->ops->raise_irq(nic->opaque, nic->link_irq);
}

void gemini_port_detach(struct gemini_nic *nic, unsigned int port)
{
	struct gemini_router_port *p;

	if (port >= GEMINI_NUM_TORUS_PORTS || !nic->port[port].link.mine)
		return;
	p = &nic->port[port];
	STORE(p->link.mine->magic, 0);
	gemini_lcb_reset(nic, port);
	memset(&p->link, 0, sizeof(p->link));
	set_state(nic, port, VGEMINI_PORT_UNUSED, VGEMINI_PEER_NONE);
}

void gemini_port_judge_peer(struct gemini_nic *nic, unsigned int port,
			    uint64_t now_ms)
{
	struct gemini_router_port *p = &nic->port[port];
	const volatile struct vgemini_link_side *peer = p->link.peer;
	uint32_t magic = LOAD(peer->magic);
	uint32_t version = LOAD(peer->version);
	uint32_t pe = LOAD(peer->pe);
	uint64_t epoch = LOAD(peer->epoch);
	uint64_t hb = LOAD(peer->heartbeat);
	bool alive;

	if (p->fault.down) {
		/* The fault injector holds the link down: see nothing. */
		p->seen_valid = false;
		set_state(nic, port, VGEMINI_PORT_DOWN, VGEMINI_PEER_NONE);
		return;
	}
	if (magic != VGEMINI_LINK_MAGIC || version != VGEMINI_LINK_VERSION) {
		/* Nobody there, or a peer speaking another link version. */
		p->seen_valid = false;
		set_state(nic, port, VGEMINI_PORT_DOWN, VGEMINI_PEER_NONE);
		return;
	}
	if (!p->seen_valid || hb != p->seen_hb || epoch != p->seen_epoch) {
		/* Only a change proves life: the first sight may be stale. */
		if (p->seen_valid)
			p->seen_ms = now_ms;
		else
			p->seen_ms = now_ms - VGEMINI_LINK_TIMEOUT_MS - 1;
		p->seen_valid = true;
		p->seen_hb = hb;
		p->seen_epoch = epoch;
	}
	alive = p->seen_valid && now_ms - p->seen_ms <= VGEMINI_LINK_TIMEOUT_MS;
	if (!alive)
		set_state(nic, port, VGEMINI_PORT_DOWN, VGEMINI_PEER_NONE);
	else if ((pe & GEMINI_PE_MASK) != p->expected)
		set_state(nic, port, VGEMINI_PORT_MISWIRED, pe & GEMINI_PE_MASK);
	else
		set_state(nic, port, VGEMINI_PORT_UP, pe);
}
