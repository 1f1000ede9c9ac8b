/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cray-gemini device core: the router's torus ports and their links.
 * gemini_port.c attaches a port to the link a transport gives it
 * (gemini_link_if.h) and judges the neighbour; gemini_lcb.c, the link
 * control block, moves packets over it reliably.  A port keeps its own
 * counters (VGEMINI_PC_*); the other blocks count through
 * gemini_port_count().  Packets that arrive wait in the router's input
 * buffers (gemini_router.h), whose credits the link control block returns.
 */
#ifndef GEMINI_PORT_H
#define GEMINI_PORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gemini_link_if.h"
#include "gemini_packet.h"
#include "gemini_reg.h"
#include "vgemini_ctl.h"
#include "vgemini_link.h"
#include "vgemini_names.h"

/* Our transmit side of one link channel (one VC and dateline class). */
struct gemini_tx_chan {
	uint32_t next;			/* number of the next new packet */
	uint32_t wire_next;		/* next number to (re)write on the wire */
	uint32_t acked;			/* peer's ack, as last believed */
	uint32_t freed;			/* peer's freed: credits come back */
	uint32_t nak_seen;		/* peer's nak counter, as last acted on */
	bool synced;			/* peer counts for our current epoch */
	uint64_t progress_ns;		/* last ack progress or (re)send */
	uint64_t hold_ns;		/* delay fault: write nothing before */
	uint32_t delayed_seq;		/* the packet that was delayed */
	bool delayed_valid;
	uint32_t gen[VGEMINI_LINK_SLOTS];
	uint16_t len[VGEMINI_LINK_SLOTS];
	uint8_t buf[VGEMINI_LINK_SLOTS][VGEMINI_LINK_SLOT_DATA];
};

/* Our receive side of one of the peer's channels. */
struct gemini_rx_chan {
	uint32_t ack;			/* next packet number expected */
	uint32_t freed;			/* packets the router took */
	uint32_t told_freed;		/* @freed when the sender was last woken */
	uint32_t nak;			/* retransmission requests sent */
	uint32_t nak_at;		/* @ack when we last asked */
	bool nak_valid;
	uint32_t bad_gen;		/* a corrupted copy already refused */
	bool bad_valid;
	uint32_t bad_tries;		/* bad copies of the expected packet */
};

struct gemini_router_port {
	struct gemini_link_view link;	/* link.mine NULL: nothing attached */
	enum vgemini_port_state state;
	uint32_t peer;			/* PE learnt from the peer's side */
	uint32_t expected;		/* PE the topology puts there */
	uint32_t changes;		/* state changes since attach */
	uint64_t epoch;			/* ours, as published */
	uint64_t heartbeat;		/* our own counter */
	uint64_t seen_hb;		/* the peer's counter when last read */
	uint64_t seen_epoch;		/* the peer's epoch when last read */
	uint64_t seen_ms;		/* when the peer last showed life */
	bool seen_valid;		/* seen_* hold a real observation */
	bool kick;			/* published something for the peer */
	bool acks_lazy;			/* as published: link.mine->acks_lazy */
	uint32_t session;		/* of both ends' epochs, see gemini_lcb.c */
	bool session_valid;
	struct gemini_tx_chan tx[VGEMINI_LINK_CHANS];
	struct gemini_rx_chan rx[VGEMINI_LINK_CHANS];
	uint64_t ctr[VGEMINI_COUNTERS_PER_BLK];
};

struct gemini_nic;

/* --- Ports and their neighbours' liveness (gemini_port.c) --- */

/* The PE of @nic's neighbour through @port in a healthy torus. */
uint32_t gemini_neighbour_pe(const struct gemini_nic *nic, unsigned int port);

/* Every port unattached, expecting the neighbour the torus puts there. */
void gemini_port_init(struct gemini_nic *nic);
/* Device reset: LINK_IRQ only; the links stay as cabled. */
void gemini_port_reset(struct gemini_nic *nic);
/*
 * Attach @port to the link @view shows (gemini_link_if.h: what the core
 * writes and reads there, and what the transport must do), publishing our
 * side with @epoch (must differ between attaches of the same port).  The
 * view is copied.  Returns 0, or -1 with a message in @err if @port is bad
 * or @view incomplete.
 */
int gemini_port_attach(struct gemini_nic *nic, unsigned int port,
		       const struct gemini_link_view *view, uint64_t epoch,
		       char *err, size_t errlen);
/* Withdraw our side so the peer sees the link down at once. */
void gemini_port_detach(struct gemini_nic *nic, unsigned int port);
/* Publish the heartbeats of the attached ports and judge their peers. */
void gemini_port_tick(struct gemini_nic *nic, uint64_t now_ms);
/*
 * Judge the neighbour on attached @port at @now_ms by its side of the
 * link (alive, miswired, down) and set the port's state accordingly.
 */
void gemini_port_judge_peer(struct gemini_nic *nic, unsigned int port,
			    uint64_t now_ms);
/*
 * The fault injector took @port's link down (@down) or gave it back: the
 * neighbour's life is judged afresh and the link channels start again.
 */
void gemini_port_fault_down(struct gemini_nic *nic, unsigned int port,
			    bool down);
/* Ring the doorbell of every peer we published something for. */
void gemini_port_kick_peers(struct gemini_nic *nic);
/* Ask every peer to ring our doorbell when it publishes. */
void gemini_port_arm(struct gemini_nic *nic);
/*
 * Tell every neighbour whether an ACK for us may wait for our next poll
 * (@lazy) or must ring our doorbell.  True if a port went from lazy to
 * not: the caller must look at the links once more (an ACK a neighbour
 * left unrung before it saw the change would otherwise wait).
 */
bool gemini_port_publish_acks(struct gemini_nic *nic, bool lazy);
/* Can a packet leave through @port: attached, up, not held down? */
bool gemini_port_up(const struct gemini_nic *nic, unsigned int port);
enum vgemini_port_state gemini_port_state(const struct gemini_nic *nic,
					  unsigned int port);
/* The neighbour's PE if the port is up or miswired, else PEER_NONE. */
uint32_t gemini_port_peer(const struct gemini_nic *nic, unsigned int port);
/* Add @n to counter VGEMINI_PC_@idx of @port (< GEMINI_NUM_TORUS_PORTS). */
void gemini_port_count(struct gemini_nic *nic, unsigned int port,
		       unsigned int idx, uint64_t n);
uint64_t gemini_port_counter(const struct gemini_nic *nic, unsigned int port,
			     unsigned int idx);
const char *gemini_port_name(unsigned int port);
const char *gemini_port_state_name(enum vgemini_port_state state);
/* LINK_IRQ, the ports' blocks and their counters. */
extern const struct gemini_ctl_table gemini_port_ctl_table;

/* Raise LINK_IRQ if the guest asked for it: a port or the fabric changed. */
void gemini_port_link_irq(struct gemini_nic *nic);

/* --- Link channels (gemini_lcb.c) --- */

/* Room to send one more packet on @port's channel @chan? */
bool gemini_lcb_can_send(struct gemini_nic *nic, unsigned int port,
			 unsigned int chan);
/* Send @pkt on @port (channel from its vc and vclass); caller checked. */
void gemini_lcb_send(struct gemini_nic *nic, unsigned int port,
		     const struct gemini_pkt *pkt);
/* Take what the peer sent and acknowledged; returns true on progress. */
bool gemini_lcb_poll(struct gemini_nic *nic, unsigned int port,
		     uint64_t now, uint64_t *deadline);
/* Return a credit: a packet left @port's input buffer of @chan. */
void gemini_lcb_freed(struct gemini_nic *nic, unsigned int port,
		      unsigned int chan);
/* Forget all link-channel state of @port (attach, retrain, link down). */
void gemini_lcb_reset(struct gemini_nic *nic, unsigned int port);

#endif /* GEMINI_PORT_H */
