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
 * Each side writes only its own struct vgemini_link_side and reads the
 * other's.  A side is alive while its heartbeat counter keeps changing; the
 * reader judges that with its own clock, so the two processes need no
 * common time.  A side that attaches again (a restarted QEMU) writes a new
 * epoch, which tells the peer that the other end was reset.
 *
 * Version 1 carries the handshake and heartbeat only.
 */
#ifndef VGEMINI_LINK_H
#define VGEMINI_LINK_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdint.h>
#endif

#define VGEMINI_LINK_MAGIC		0x4b4c4756u	/* "VGLK" */
#define VGEMINI_LINK_VERSION		1u
#define VGEMINI_LINK_FILE_SIZE		4096u

/* A port sends a heartbeat this often ... */
#define VGEMINI_LINK_HEARTBEAT_MS	500u
/* ... and declares its neighbour dead after this long without one. */
#define VGEMINI_LINK_TIMEOUT_MS		3000u

/**
 * struct vgemini_link_side - what one end of a link publishes
 * @magic: VGEMINI_LINK_MAGIC once the side is attached, 0 after it detached
 * @version: VGEMINI_LINK_VERSION of the writer
 * @pe: the writer's 18-bit PE
 * @port: the writer's port number (enum gemini_port)
 * @epoch: changes each time the writer attaches
 * @heartbeat: incremented by the writer every VGEMINI_LINK_HEARTBEAT_MS
 * @reserved: zero
 */
struct vgemini_link_side {
	uint32_t magic;
	uint32_t version;
	uint32_t pe;
	uint32_t port;
	uint64_t epoch;
	uint64_t heartbeat;
	uint64_t reserved[4];
};

/**
 * struct vgemini_link_shm - layout of a link file
 * @side: side[0] is the "+" port's end, side[1] the "-" port's end
 */
struct vgemini_link_shm {
	struct vgemini_link_side side[2];
};

#endif /* VGEMINI_LINK_H */
