// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Routing-table images (uapi/vgemini_route.h): building an image's header,
 * and parsing an image with every field checked.  All fields are little-endian whatever the host.
 */
#include <stddef.h>
#include <string.h>

#include "routes.h"

_Static_assert(sizeof(struct vgemini_route_hdr) == VGEMINI_ROUTE_HDR_SIZE,
	       "routing image header is 64 bytes");

#define HDR_OFF(field)	VGEMINI_ROUTE_HDR_OFF(field)

size_t image_size(uint32_t num_nodes)
{
	return VGEMINI_ROUTE_HDR_SIZE +
	       (size_t)VGEMINI_ROUTE_ENTRIES(num_nodes);
}

/*
 * Write the header of router @node's image into @img, whose entries
 * (image_size() - 64 bytes from img + 64) are already filled in.
 */
void image_build(uint8_t *img, const struct torus *t, uint32_t node,
		 uint32_t generation)
{
	const uint8_t *entries = img + VGEMINI_ROUTE_HDR_SIZE;
	unsigned int i;

	memset(img, 0, VGEMINI_ROUTE_HDR_SIZE);
	vgemini_put_le32(img + HDR_OFF(magic), VGEMINI_ROUTE_MAGIC);
	vgemini_put_le32(img + HDR_OFF(version), VGEMINI_ROUTE_VERSION);
	vgemini_put_le32(img + HDR_OFF(hdr_size), VGEMINI_ROUTE_HDR_SIZE);
	vgemini_put_le32(img + HDR_OFF(gemini_id), node);
	for (i = 0; i < 3; i++)
		img[HDR_OFF(dims) + i] = (uint8_t)t->dims[i];
	vgemini_put_le32(img + HDR_OFF(num_nodes), t->num_nodes);
	vgemini_put_le32(img + HDR_OFF(generation), generation);
	vgemini_put_le32(img + HDR_OFF(entries_crc32),
		 vgemini_crc32(0, entries, image_size(t->num_nodes) -
				       VGEMINI_ROUTE_HDR_SIZE));
	vgemini_put_le32(img + HDR_OFF(num_failed), t->num_failed);
}

static int parse_header(const uint8_t *buf, size_t len, struct route_image *img,
			char *err)
{
	uint64_t n = 1;
	uint32_t v;
	unsigned int i;

	if (len < VGEMINI_ROUTE_HDR_SIZE) {
		routes_err(err, "%zu bytes: shorter than the %u-byte header",
			   len, VGEMINI_ROUTE_HDR_SIZE);
		return -1;
	}
	v = vgemini_get_le32(buf + HDR_OFF(magic));
	if (v != VGEMINI_ROUTE_MAGIC) {
		routes_err(err, "bad magic 0x%08x (expected 0x%08x, \"VGRT\")",
			   v, VGEMINI_ROUTE_MAGIC);
		return -1;
	}
	v = vgemini_get_le32(buf + HDR_OFF(version));
	if (v != VGEMINI_ROUTE_VERSION) {
		routes_err(err, "version %u: this tool reads version %u only",
			   v, VGEMINI_ROUTE_VERSION);
		return -1;
	}
	v = vgemini_get_le32(buf + HDR_OFF(hdr_size));
	if (v != VGEMINI_ROUTE_HDR_SIZE) {
		routes_err(err, "header size %u (expected %u)", v,
			   VGEMINI_ROUTE_HDR_SIZE);
		return -1;
	}
	for (i = 0; i < 3; i++) {
		img->dims[i] = buf[HDR_OFF(dims) + i];
		if (!img->dims[i]) {
			routes_err(err, "dimension %c is 0", "XYZ"[i]);
			return -1;
		}
		n *= img->dims[i];
	}
	if (buf[HDR_OFF(reserved0)]) {
		routes_err(err, "reserved0 is 0x%02x, must be 0",
			   buf[HDR_OFF(reserved0)]);
		return -1;
	}
	for (i = HDR_OFF(reserved); i < VGEMINI_ROUTE_HDR_SIZE; i++) {
		if (buf[i]) {
			routes_err(err, "reserved header byte %u is 0x%02x, must be 0",
				   i, buf[i]);
			return -1;
		}
	}
	img->num_nodes = vgemini_get_le32(buf + HDR_OFF(num_nodes));
	if (img->num_nodes != n || n > GEMINI_MAX_NODES) {
		routes_err(err, "num_nodes %u does not match dims %ux%ux%u (or exceeds %u)",
			   img->num_nodes, img->dims[0], img->dims[1],
			   img->dims[2], GEMINI_MAX_NODES);
		return -1;
	}
	img->gemini_id = vgemini_get_le32(buf + HDR_OFF(gemini_id));
	if (img->gemini_id >= img->num_nodes) {
		routes_err(err, "gemini_id %u outside a torus of %u nodes",
			   img->gemini_id, img->num_nodes);
		return -1;
	}
	img->generation = vgemini_get_le32(buf + HDR_OFF(generation));
	img->crc = vgemini_get_le32(buf + HDR_OFF(entries_crc32));
	img->num_failed = vgemini_get_le32(buf + HDR_OFF(num_failed));
	return 0;
}

/*
 * Parse and check an image of @len bytes.  On success @img->entries points
 * into @buf.  Refuses other versions, bad sizes (truncated or with trailing
 * bytes), a bad CRC, and non-zero reserved fields or entry bits.
 */
int image_parse(const uint8_t *buf, size_t len, struct route_image *img,
		char *err)
{
	size_t want, i, num;
	uint32_t crc;

	if (parse_header(buf, len, img, err))
		return -1;
	want = image_size(img->num_nodes);
	if (len != want) {
		routes_err(err, "%zu bytes, expected %zu for %u nodes (%s)",
			   len, want, img->num_nodes,
			   len < want ? "truncated" : "trailing bytes");
		return -1;
	}
	img->entries = buf + VGEMINI_ROUTE_HDR_SIZE;
	num = want - VGEMINI_ROUTE_HDR_SIZE;
	crc = vgemini_crc32(0, img->entries, num);
	if (crc != img->crc) {
		routes_err(err, "entries CRC-32 is 0x%08x, header says 0x%08x",
			   crc, img->crc);
		return -1;
	}
	for (i = 0; i < num; i++) {
		if (img->entries[i] & VGEMINI_ROUTE_RESERVED_MASK) {
			routes_err(err, "entry %zu is 0x%02x: reserved bits set",
				   i, img->entries[i]);
			return -1;
		}
	}
	return 0;
}

/* route_lookup_fn over a set of loaded tables (struct image_set). */
uint8_t image_set_entry(const void *ctx, uint32_t node, unsigned int in_port,
			unsigned int vclass, uint32_t dest)
{
	const struct image_set *s = ctx;
	size_t row = in_port * VGEMINI_ROUTE_CLASSES + vclass;

	return s->entries[node][row * s->num_nodes + dest];
}
