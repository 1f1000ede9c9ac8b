/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Routing-table images: what the supervisor (the launcher, playing Cray's
 * HSS) loads into each router of the torus.  Computed by firmware/
 * vgemini-routes from the torus shape and the set of failed links; loaded
 * into a cray-gemini device through its "routes" property (QMP qom-set).
 * Until a table is loaded a router forwards nothing, as on the hardware.
 *
 * An image is one struct vgemini_route_hdr followed by
 * VGEMINI_ROUTE_IN_PORTS * VGEMINI_ROUTE_CLASSES * num_nodes entry bytes,
 * indexed by (input port, virtual-channel class, destination Gemini id):
 *
 *   entry = entries[(in_port * VGEMINI_ROUTE_CLASSES + vclass) * num_nodes
 *                   + dest]
 *
 * The input port is the torus port a packet arrived on (enum gemini_port)
 * or VGEMINI_ROUTE_IN_NIC for a packet the local NIC injects, which always
 * starts in class 0.  The class is the dateline class of the virtual
 * channel the packet arrived in; a router moves the packet to the output
 * port and class the entry gives.  Requests and responses travel in
 * separate virtual channels but share the table.  All fields are
 * little-endian.
 */
#ifndef VGEMINI_ROUTE_H
#define VGEMINI_ROUTE_H

#ifdef __KERNEL__
#include <linux/stddef.h>
#include <linux/types.h>
#else
#include <stddef.h>
#include <stdint.h>
#endif

#define VGEMINI_ROUTE_MAGIC		0x54524756u	/* "VGRT" */
#define VGEMINI_ROUTE_VERSION		1u

#define VGEMINI_ROUTE_IN_PORTS		7	/* six torus ports + the NIC */
#define VGEMINI_ROUTE_IN_NIC		6
#define VGEMINI_ROUTE_CLASSES		2	/* dateline classes per VC */

/* Entry byte */
#define VGEMINI_ROUTE_PORT_MASK		0x07	/* output port, below */
#define VGEMINI_ROUTE_CLASS_BIT		0x08	/* output class (0 or 1) */
#define VGEMINI_ROUTE_RESERVED_MASK	0xf0	/* must be zero */
#define VGEMINI_ROUTE_OUT_NIC		6	/* deliver to the local NIC */
#define VGEMINI_ROUTE_NONE		7	/* no route: drop and count */

#define VGEMINI_ROUTE_ENTRY(port, vclass) \
	((uint8_t)(((port) & VGEMINI_ROUTE_PORT_MASK) | \
		   ((vclass) ? VGEMINI_ROUTE_CLASS_BIT : 0)))

/**
 * struct vgemini_route_hdr - header of a routing-table image
 * @magic: VGEMINI_ROUTE_MAGIC
 * @version: VGEMINI_ROUTE_VERSION
 * @hdr_size: sizeof(struct vgemini_route_hdr); the entries follow it
 * @gemini_id: the router this table is for (x + X * (y + Y * z))
 * @dims: torus dimensions X, Y, Z (1..255 each)
 * @reserved0: zero
 * @num_nodes: X * Y * Z
 * @generation: chosen by the supervisor; reported back by the router
 * @entries_crc32: CRC-32 (IEEE 802.3, as zlib's crc32()) of the entries
 * @num_failed: failed links the table routes around (information only)
 * @reserved: zero
 */
struct vgemini_route_hdr {
	uint32_t magic;
	uint32_t version;
	uint32_t hdr_size;
	uint32_t gemini_id;
	uint8_t dims[3];
	uint8_t reserved0;
	uint32_t num_nodes;
	uint32_t generation;
	uint32_t entries_crc32;
	uint32_t num_failed;
	uint32_t reserved[7];
};

#define VGEMINI_ROUTE_HDR_SIZE		64u
/* Where @field of struct vgemini_route_hdr starts in an image. */
#define VGEMINI_ROUTE_HDR_OFF(field) \
	((unsigned int)offsetof(struct vgemini_route_hdr, field))
#define VGEMINI_ROUTE_ENTRIES(num_nodes) \
	((uint64_t)VGEMINI_ROUTE_IN_PORTS * VGEMINI_ROUTE_CLASSES * (num_nodes))

#endif /* VGEMINI_ROUTE_H */
