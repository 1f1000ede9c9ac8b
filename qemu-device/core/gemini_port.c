// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cray-gemini device core: router ports and their links.
 *
 * A port publishes its side of the link (PE, port, epoch, heartbeat) and
 * judges the peer by whether the peer's heartbeat or epoch still changes.
 * The peer is another process: every field of its side is read once with
 * an atomic load and checked before it is believed.  gemini_nic_tick()
 * (gemini_nic.c) calls gemini_port_tick(), which publishes the heartbeats
 * and judges the peer of every attached port.  The port's registers and
 * counters (the other blocks count through gemini_port_count()) are
 * declared here too.
 */
#include <assert.h>
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

void gemini_port_init(struct gemini_nic *nic)
{
	unsigned int p;

	for (p = 0; p < GEMINI_NUM_TORUS_PORTS; p++) {
		nic->port[p].state = VGEMINI_PORT_UNUSED;
		nic->port[p].peer = VGEMINI_PEER_NONE;
		nic->port[p].expected = gemini_neighbour_pe(nic, p);
	}
}

void gemini_port_reset(struct gemini_nic *nic)
{
	nic->link_irq = VGEMINI_IRQ_NONE;
}

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
	p->acks_lazy = false;

	/* Magic last: the peer trusts the other fields once it sees it. */
	me = p->link.mine;
	STORE(me->magic, 0);
	STORE(me->acks_lazy, 0);
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
	gemini_port_link_irq(nic);
}

void gemini_port_link_irq(struct gemini_nic *nic)
{
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

	if (gemini_fault_down(nic, port)) {
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

void gemini_port_fault_down(struct gemini_nic *nic, unsigned int port,
			    bool down)
{
	struct gemini_router_port *p = &nic->port[port];

	if (!p->link.mine)
		return;
	/* Down stops our heartbeat; back up retrains the link. */
	p->seen_valid = false;
	gemini_lcb_reset(nic, port);
	if (!down) {
		p->epoch++;
		STORE(p->link.mine->epoch, p->epoch);
	}
}

void gemini_port_tick(struct gemini_nic *nic, uint64_t now_ms)
{
	unsigned int port;

	for (port = 0; port < GEMINI_NUM_TORUS_PORTS; port++) {
		struct gemini_router_port *p = &nic->port[port];

		if (!p->link.mine || gemini_fault_down(nic, port))
			continue;
		p->heartbeat++;
		STORE(p->link.mine->heartbeat, p->heartbeat);
	}
	for (port = 0; port < GEMINI_NUM_TORUS_PORTS; port++) {
		if (nic->port[port].link.mine)
			gemini_port_judge_peer(nic, port, now_ms);
	}
}

void gemini_port_kick_peers(struct gemini_nic *nic)
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

void gemini_port_arm(struct gemini_nic *nic)
{
	unsigned int port;

	for (port = 0; port < GEMINI_NUM_TORUS_PORTS; port++) {
		struct gemini_router_port *p = &nic->port[port];

		if (p->link.mine)
			__atomic_store_n(&p->link.mine->armed, 1,
					 __ATOMIC_SEQ_CST);
	}
}

bool gemini_port_publish_acks(struct gemini_nic *nic, bool lazy)
{
	bool prompted = false;
	unsigned int port;

	for (port = 0; port < GEMINI_NUM_TORUS_PORTS; port++) {
		struct gemini_router_port *p = &nic->port[port];

		if (!p->link.mine || p->acks_lazy == lazy)
			continue;
		p->acks_lazy = lazy;
		__atomic_store_n(&p->link.mine->acks_lazy, lazy,
				 __ATOMIC_SEQ_CST);
		prompted |= !lazy;
	}
	return prompted;
}

bool gemini_port_up(const struct gemini_nic *nic, unsigned int port)
{
	const struct gemini_router_port *p = &nic->port[port];

	return p->link.mine && p->state == VGEMINI_PORT_UP &&
	       !gemini_fault_down(nic, port);
}

enum vgemini_port_state gemini_port_state(const struct gemini_nic *nic,
					  unsigned int port)
{
	return nic->port[port].state;
}

uint32_t gemini_port_peer(const struct gemini_nic *nic, unsigned int port)
{
	const struct gemini_router_port *p = &nic->port[port];

	return p->state == VGEMINI_PORT_UP ||
	       p->state == VGEMINI_PORT_MISWIRED ? p->peer : VGEMINI_PEER_NONE;
}

void gemini_port_count(struct gemini_nic *nic, unsigned int port,
		       unsigned int idx, uint64_t n)
{
	nic->port[port].ctr[idx] += n;
}

uint64_t gemini_port_counter(const struct gemini_nic *nic, unsigned int port,
			     unsigned int idx)
{
	return nic->port[port].ctr[idx];
}

/* --- Control registers -------------------------------------------------- */

static uint64_t ctl_port_peer(const struct gemini_nic *nic, unsigned int i)
{
	return gemini_port_peer(nic, i);
}

#define FIELD		GEMINI_CTL_FIELD
#define PORT_STRIDE	.fstride = sizeof(struct gemini_router_port)
/* Register VGEMINI_PORT_@id of each port's block. */
#define PORT(id)							\
	.offset = VGEMINI_CTL_PORT_BASE + VGEMINI_PORT_##id,		\
	.name = "PORT_" #id, .size = 4, .access = GEMINI_CTL_RO,	\
	.count = GEMINI_NUM_TORUS_PORTS,				\
	.stride = VGEMINI_CTL_PORT_STRIDE
/* Counter VGEMINI_PC_@id of each port's block. */
#define PORT_COUNTER(id, key)						\
	{ .offset = VGEMINI_CTL_COUNTER(0, VGEMINI_PC_##id),		\
	  .name = "PC_" #id, .size = 8, .access = GEMINI_CTL_RO,	\
	  .count = VGEMINI_COUNTER_BLK_NIC,				\
	  .stride = VGEMINI_CTL_COUNTER_STRIDE,				\
	  FIELD(port[0].ctr[VGEMINI_PC_##id]), PORT_STRIDE },

/* Counters: no register in the slots past VGEMINI_PC_NUM. */
static const struct gemini_ctl_reg port_regs[] = {
	{ GEMINI_CTL(LINK_IRQ, 4, RW), FIELD(link_irq), .mask = UINT32_MAX },
	{ PORT(STATE), FIELD(port[0].state), PORT_STRIDE },
	{ PORT(PEER), .read = ctl_port_peer },
	{ PORT(EXPECTED), FIELD(port[0].expected), PORT_STRIDE },
	{ PORT(CHANGES), FIELD(port[0].changes), PORT_STRIDE },
	VGEMINI_PORT_COUNTER_LIST(PORT_COUNTER)
};

#undef PORT_COUNTER
#undef PORT
#undef PORT_STRIDE
#undef FIELD

static_assert(sizeof(enum vgemini_port_state) == 4, "PORT_STATE: a u32");

const struct gemini_ctl_table gemini_port_ctl_table =
	GEMINI_CTL_TABLE(port_regs);
