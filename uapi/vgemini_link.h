/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The shared-memory link between two router ports of neighbouring nodes.
 *
 * A link is one file (on tmpfs, normally /dev/shm) mapped by the QEMU
 * processes of both ends.  The launcher creates it zero-filled with
 * VGEMINI_LINK_FILE_SIZE bytes.  Side 0 belongs to the "+" port of the
 * link (X+, Y+ or Z+ of one node), side 1 to the "-" port of the neighbour
 * (X-, Y- or Z-).  In a dimension of size 1 the two ends are the "+" and
 * "-" ports of the same node: the ring closes on itself.
 *
 * Each side writes its own struct vgemini_link_side and its own transmit
 * channels, and reads the other's; the one exception is the peer's
 * "armed" word, which a side clears when it rings the peer.  Liveness: a side is alive
 * while its heartbeat counter keeps changing; the reader judges that with
 * its own clock, so the two processes need no common time.  A side that
 * attaches again (a restarted QEMU, a retrained link) writes a new epoch,
 * which tells the peer that the other end was reset.
 *
 * Packets (version 3; version 2 had rings of 16 slots): each side
 * transmits on VGEMINI_LINK_CHANS channels,
 * one per virtual channel and dateline class (request class 0 and 1,
 * response class 0 and 1).  A channel is a ring of VGEMINI_LINK_SLOTS
 * slots; packet number s goes in slot s % VGEMINI_LINK_SLOTS.  Packets are
 * numbered within a session: a 32-bit value made from both sides' epochs
 * (epoch0 ^ epoch1, folded to 32 bits; 0 stands for none).  When either side
 * attaches again or retrains, both see a new session, start again from
 * packet 0 and believe no slot or acknowledgement stamped with another
 * session.  The receiver copies each packet out, checks its
 * CRC and its number, and publishes in its own side block:
 *
 *   ack[c]    the next packet number it expects: all before were received
 *             intact (link-level acknowledgement);
 *   freed[c]  packets it has taken out of its input buffer: the sender may
 *             have at most VGEMINI_LINK_SLOTS packets past freed[c] (credit
 *             flow control: the input buffer is as deep as the ring);
 *   nak[c]    bumped when a packet arrived corrupted or missing: the sender
 *             then sends again everything from ack[c] on (go-back-N from
 *             its send buffer, the sliding-window retry of Gemini's links);
 *   rx_epoch[c]  the session these three count for; the sender believes
 *             them only while it equals the current session.
 *
 * A sender also sends again from ack[c] when no acknowledgement has come
 * for VGEMINI_LINK_RETRY_MS (a lost last packet has no successor to
 * reveal the gap).
 *
 * Wake-ups: each end has a doorbell, a FIFO next to the link file named
 * "<link file>.bell0" (side 0 reads it) or ".bell1".  A side that has
 * nothing to do sets its "armed" word and then looks at the link once
 * more; a side that publishes anything for the peer clears the peer's
 * armed word and, if it was set, writes one byte to the peer's doorbell.  So busy links cost no
 * system call per packet and idle ones cost nothing.
 *
 * Every value read from the peer is checked before use: the peer is
 * another process and may be broken or gone.
 */
#ifndef VGEMINI_LINK_H
#define VGEMINI_LINK_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdint.h>
#endif

#define VGEMINI_LINK_MAGIC		0x4b4c4756u	/* "VGLK" */
#define VGEMINI_LINK_VERSION		3u
#define VGEMINI_LINK_FILE_SIZE		135168u

/* A port sends a heartbeat this often ... */
#define VGEMINI_LINK_HEARTBEAT_MS	500u
/* ... and declares its neighbour dead after this long without one. */
#define VGEMINI_LINK_TIMEOUT_MS		3000u
/* Unacknowledged packets are sent again after this long. */
#define VGEMINI_LINK_RETRY_MS		20u

#define VGEMINI_LINK_CHANS		4	/* vc * 2 + vclass */
#define VGEMINI_LINK_SLOTS		128	/* packets per channel ring */
#define VGEMINI_LINK_SLOT_BYTES		128
#define VGEMINI_LINK_SLOT_DATA		96	/* GEMINI_PKT_MAX_BYTES */

#define VGEMINI_LINK_CHAN(vc, vclass)	((vc) * 2 + (vclass))

/**
 * struct vgemini_link_slot - one packet on the wire
 * @gen: bumped (odd while writing, even when done) on every write, so
 *       that a reader can tell a torn copy and a rewritten slot
 * @seq: packet number within the session
 * @epoch: the session (both sides' epochs combined) the packet belongs to
 * @len: bytes of the packet in @bytes (3 per phit)
 * @reserved: zero
 * @bytes: the packet as phits (uapi/gemini_pkt.h)
 * @pad: to VGEMINI_LINK_SLOT_BYTES; unused
 */
struct vgemini_link_slot {
	uint32_t gen;
	uint32_t seq;
	uint32_t epoch;
	uint16_t len;
	uint16_t reserved;
	uint8_t bytes[VGEMINI_LINK_SLOT_DATA];
	uint8_t pad[VGEMINI_LINK_SLOT_BYTES - 16 - VGEMINI_LINK_SLOT_DATA];
};

/**
 * struct vgemini_link_side - what one end of a link publishes
 * @magic: VGEMINI_LINK_MAGIC once the side is attached, 0 after it detached
 * @version: VGEMINI_LINK_VERSION of the writer
 * @pe: the writer's 18-bit PE
 * @port: the writer's port number (enum gemini_port)
 * @epoch: changes each time the writer attaches or the link retrains
 * @heartbeat: incremented by the writer every VGEMINI_LINK_HEARTBEAT_MS
 * @armed: non-zero while the writer waits for its doorbell
 * @acks_lazy: non-zero while the writer needs no doorbell for an ACK
 *             addressed to it (no open FMA sequence of its asks for an
 *             event or a flag, and its BTE is idle): a neighbour sending
 *             it an ACK leaves it for its next poll.  0, as an older
 *             writer leaves it, rings for every packet
 * @ack: per channel of the peer: next packet number expected
 * @freed: per channel of the peer: packets taken from the input buffer
 * @nak: per channel of the peer: retransmission requests made
 * @rx_epoch: per channel of the peer: the session the above count for
 * @reserved: zero
 */
struct vgemini_link_side {
	uint32_t magic;
	uint32_t version;
	uint32_t pe;
	uint32_t port;
	uint64_t epoch;
	uint64_t heartbeat;
	uint32_t armed;
	uint32_t acks_lazy;
	uint32_t ack[VGEMINI_LINK_CHANS];
	uint32_t freed[VGEMINI_LINK_CHANS];
	uint32_t nak[VGEMINI_LINK_CHANS];
	uint32_t rx_epoch[VGEMINI_LINK_CHANS];
	uint64_t reserved[16];
};

/**
 * struct vgemini_link_shm - layout of a link file
 * @side: side[0] is the "+" port's end, side[1] the "-" port's end
 * @pad: to the first page boundary
 * @chan: chan[s][c] is side s's transmit ring of channel c
 */
struct vgemini_link_shm {
	struct vgemini_link_side side[2];
	uint8_t pad[4096 - 2 * sizeof(struct vgemini_link_side)];
	struct vgemini_link_slot chan[2][VGEMINI_LINK_CHANS][VGEMINI_LINK_SLOTS];
};

#endif /* VGEMINI_LINK_H */
