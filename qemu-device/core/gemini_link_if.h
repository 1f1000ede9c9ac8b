/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cray-gemini device core: the interface between the link layer and the
 * transport that carries a link.
 *
 * The core runs the link protocol of uapi/vgemini_link.h (sequence
 * numbers, acknowledgements, naks, credits, go-back-N retry, heartbeats,
 * doorbell arming) on memory it is handed at gemini_port_attach(): a
 * struct gemini_link_view.  It does not know where that memory lives.  The
 * shared-memory backend of the glue points the view into the mapped link
 * file (gemini_link_view_shm()); another transport (a stream between hosts)
 * would point it at local copies and move them over its wire.
 *
 * What the core writes (only through @mine, @tx and *@peer_armed):
 *
 *  - @mine, with release stores (__atomic_store_n, __ATOMIC_RELEASE) of
 *    whole fields: at attach magic 0, then version, pe, port, epoch,
 *    heartbeat 0, then magic VGEMINI_LINK_MAGIC last; at detach magic 0;
 *    the heartbeat at each gemini_nic_tick(); a new epoch when the fault
 *    injector brings the port back up; ack, freed, nak and rx_epoch of
 *    each channel when it receives, frees or refuses packets or starts a
 *    session; armed (sequentially consistent) before it looks once more
 *    at the link and goes idle.
 *  - @tx[c][i], slot i of our ring of channel c: gen made odd (release
 *    store), a full fence, then seq, epoch, len (release stores) and the
 *    packet bytes (plain volatile byte stores), then gen made even
 *    (release store).  A slot's contents are written before its even gen.
 *  - *@peer_armed: swapped to 0 (sequentially consistent exchange) when
 *    it has published something for the peer; ops->kick_peer() is called
 *    only if the old value was non-zero.  This is the one word of the
 *    peer's side the core writes.
 *
 * What the core reads (only through @peer, @rx and *@peer_armed): every
 * field of @peer with acquire loads, checked before use; a slot of @rx
 * with an acquire load of gen (odd: being written), seq and epoch, len and
 * the bytes, a full fence, and gen and seq again: a copy is believed only
 * if gen did not change.  Anything may be found there; the core survives
 * any bytes, changing at any time.
 *
 * When it tells the peer: after a poll (gemini_nic_poll()) in which it
 * published packets, acknowledgements, credits, naks or a new session, it
 * exchanges *@peer_armed with 0 and calls ops->kick_peer(opaque, port) if
 * that word was set.  Heartbeats, attach, detach and retrain epochs are
 * written without a kick: the peer finds them at its next tick.
 *
 * What a transport must do:
 *
 *  - keep the four areas valid from attach until gemini_port_detach()
 *    returns (and the view itself only during gemini_port_attach(): the
 *    core copies it);
 *  - make what the core wrote in @mine and @tx visible to the peer as
 *    the peer's @peer and @rx, field by field and in the order written: a
 *    slot's seq, epoch, len and bytes before the even gen that ends the
 *    write, @mine's fields before magic at attach.  A copy may lag, but
 *    must not show a field older than one shown before it;
 *  - carry at least what a kick follows promptly (the retry timer is
 *    VGEMINI_LINK_RETRY_MS) and the rest well within
 *    VGEMINI_LINK_TIMEOUT_MS (for instance @mine after every tick);
 *  - when the peer publishes (its kick_peer, or data arriving), call
 *    gemini_nic_poll() on this side (from the device's own thread);
 *  - provide *@peer_armed: the shared-memory backend gives the peer's
 *    real armed word, so idle peers are rung and busy ones are not; a
 *    transport without that handshake may give a local word it keeps
 *    non-zero, so every publication is followed by a kick.
 */
#ifndef GEMINI_LINK_IF_H
#define GEMINI_LINK_IF_H

#include <stddef.h>
#include <stdint.h>

#include "vgemini_link.h"

/**
 * struct gemini_link_view - where one attached port's link lives
 * @mine: our side block: written by the core, read by the peer
 * @peer: the peer's side block: read by the core
 * @peer_armed: the peer's armed word: the core swaps it to 0 to ring
 * @tx: tx[c][i]: slot i of our transmit ring of channel c
 * @rx: rx[c][i]: slot i of the peer's transmit ring of channel c
 */
struct gemini_link_view {
	volatile struct vgemini_link_side *mine;
	const volatile struct vgemini_link_side *peer;
	volatile uint32_t *peer_armed;
	volatile struct vgemini_link_slot (*tx)[VGEMINI_LINK_SLOTS];
	const volatile struct vgemini_link_slot (*rx)[VGEMINI_LINK_SLOTS];
};

/*
 * Fill @v for side @side (0 for a "+" port, 1 for "-") of a whole struct
 * vgemini_link_shm at @mem, @len bytes.  Returns 0, or -1 and zeroes @v
 * if @mem is NULL, @len below VGEMINI_LINK_FILE_SIZE or @side not 0 or 1.
 */
int gemini_link_view_shm(struct gemini_link_view *v, void *mem, size_t len,
			 unsigned int side);

#endif /* GEMINI_LINK_IF_H */
