/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vgemini routing-table firmware: the torus and its failed links, the
 * routing algorithms (dimension order with datelines, up/down routing as the
 * fallback), routing-table images (uapi/vgemini_route.h) and the checker
 * that proves a set of tables delivers every packet without deadlock.
 * Shared by the vgemini-routes tool and its host test.
 *
 * Functions that can fail return 0 or -1; on -1 they leave a message in
 * the caller's err buffer of ROUTES_ERR_LEN bytes.
 */
#ifndef VGEMINI_FIRMWARE_ROUTES_H
#define VGEMINI_FIRMWARE_ROUTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gemini_hw.h"
#include "vgemini_crc32.h"
#include "vgemini_le.h"
#include "vgemini_route.h"

#define ROUTES_ERR_LEN		256
#define ROUTES_MAX_DIM		255

/* Channels per node: one per torus output port and dateline class. */
#define ROUTES_CHANNELS		(GEMINI_NUM_TORUS_PORTS * VGEMINI_ROUTE_CLASSES)
/* Router input states per node: one per input port and class. */
#define ROUTES_STATES		(VGEMINI_ROUTE_IN_PORTS * VGEMINI_ROUTE_CLASSES)

/* ---- torus.c: the shape, its links, command-line values --------------- */

/**
 * struct torus - a torus shape and which of its cables carry packets
 * @dims: X, Y, Z (1..255 each)
 * @num_nodes: X * Y * Z
 * @link_ok: [node * 6 + port]: the cable on that port is usable (false
 *	for failed cables, at both ends, and for the self cable of a
 *	dimension of size 1)
 * @num_failed: failed cables, each counted once
 */
struct torus {
	unsigned int dims[3];
	uint32_t num_nodes;
	uint8_t *link_ok;
	unsigned int num_failed;
};

int torus_init(struct torus *t, const unsigned int dims[3], char *err);
void torus_free(struct torus *t);
void torus_coords(const struct torus *t, uint32_t id, unsigned int c[3]);
uint32_t torus_id(const struct torus *t, const unsigned int c[3]);
uint32_t torus_neighbour(const struct torus *t, uint32_t id, unsigned int port);
bool torus_link_ok(const struct torus *t, uint32_t id, unsigned int port);
int torus_fail_link(struct torus *t, uint32_t id, unsigned int port,
		    char *err);
unsigned int torus_distance(const struct torus *t, uint32_t a, uint32_t b);
unsigned int torus_diameter(const struct torus *t);
uint32_t *torus_components(const struct torus *t, uint32_t *num_comp);

const char *port_name(unsigned int port);
int parse_dims(const char *s, unsigned int dims[3], char *err);
int parse_port(const char *s, unsigned int *port, char *err);
int parse_node(const struct torus *t, const char *s, uint32_t *id, char *err);
int parse_link(const struct torus *t, const char *s, uint32_t *id,
	       unsigned int *port, char *err);
int parse_u32(const char *s, uint32_t *val);
void routes_err(char *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ---- routes.c: computing the tables ------------------------------------ */

enum route_algo {
	ROUTE_DOR,	/* dimension order, datelines, detours in a ring */
	ROUTE_UPDOWN,	/* up/down routing over BFS levels */
};

/**
 * struct route_plan - how every router of a torus routes
 * @t: the torus (not owned)
 * @algo: which algorithm
 * @order: ROUTE_DOR: the dimensions in the order packets travel them
 * @datelines: ROUTE_DOR: switch to class 1 on crossing a dateline (only
 *	the test turns this off, to show the checker finds the deadlock)
 * @reach: ROUTE_DOR: [node * 6 + port]: hops a packet can go out of that
 *	port, straight on, before it meets an unusable cable (at most k - 1)
 * @level: ROUTE_UPDOWN: [node]: BFS level from the root of its component
 * @next: ROUTE_UPDOWN: [(dest * N + node) * 2 + phase]: output port
 */
struct route_plan {
	const struct torus *t;
	enum route_algo algo;
	unsigned int order[3];
	bool datelines;
	uint8_t *reach;
	uint32_t *level;
	uint8_t *next;
};

int plan_dor(struct route_plan *p, const struct torus *t,
	     const unsigned int order[3], bool datelines, char *err);
int plan_updown(struct route_plan *p, const struct torus *t, char *err);
void plan_free(struct route_plan *p);
uint8_t plan_entry(const void *plan, uint32_t node, unsigned int in_port,
		   unsigned int vclass, uint32_t dest);
void plan_fill(const struct route_plan *p, uint32_t node, uint8_t *entries);
const char *plan_name(const struct route_plan *p, char *buf, size_t len);

struct check_result;
int plan_choose(struct route_plan *p, const struct torus *t,
		struct check_result *res, char *err);

/* ---- check.c: the checker ---------------------------------------------- */

typedef uint8_t route_lookup_fn(const void *ctx, uint32_t node,
				unsigned int in_port, unsigned int vclass,
				uint32_t dest);

#define CHECK_MINIMAL	0x1u	/* a longer path than the torus distance is a problem */
#define CHECK_FIRST	0x2u	/* stop at the first problem */

#define CHECK_LISTED	8

/**
 * struct check_result - what the checker found
 * @pairs: source-destination pairs simulated (N * N, a node to itself too)
 * @delivered: pairs whose packets reach their destination's NIC
 * @unreachable: pairs dropped by a "no route" entry
 * @unreachable_connected: of those, pairs the surviving cables do connect
 * @loops: pairs whose packets loop forever
 * @misdelivered: pairs delivered to another node's NIC
 * @dead_link: pairs sent onto a failed cable or a size-1 self cable
 * @bad_entry: pairs meeting an entry with reserved bits set
 * @nonminimal: delivered pairs whose path is longer than the distance
 * @max_hops: longest delivered path
 * @channels_used: (directed cable, class) channels some packet occupies
 * @cyclic: the channel dependency graph has a cycle (deadlock possible)
 * @stopped: CHECK_FIRST stopped the check early
 * @listed: the first unreachable pairs (source, destination)
 * @num_listed: entries in @listed
 * @problem: the first problem other than an unreachable pair, or ""
 * @cycle: a cycle of the dependency graph when @cyclic, else ""
 */
struct check_result {
	uint64_t pairs;
	uint64_t delivered;
	uint64_t unreachable;
	uint64_t unreachable_connected;
	uint64_t loops;
	uint64_t misdelivered;
	uint64_t dead_link;
	uint64_t bad_entry;
	uint64_t nonminimal;
	unsigned int max_hops;
	uint64_t channels_used;
	bool cyclic;
	bool stopped;
	uint32_t listed[CHECK_LISTED][2];
	unsigned int num_listed;
	char problem[ROUTES_ERR_LEN];
	char cycle[ROUTES_ERR_LEN];
};

int route_check(const struct torus *t, route_lookup_fn *fn, const void *ctx,
		unsigned int flags, struct check_result *res, char *err);
bool check_sound(const struct check_result *res, unsigned int flags);
int table_check(const struct torus *t, uint32_t node, const uint8_t *entries,
		char *err);

/* ---- image.c: routing-table images ------------------------------------- */

/**
 * struct route_image - a parsed, validated routing-table image
 * @gemini_id: the router it is for
 * @dims: torus dimensions
 * @num_nodes: X * Y * Z
 * @generation: the supervisor's generation number
 * @crc: CRC-32 of the entries (checked)
 * @num_failed: failed links the table routes around
 * @entries: ROUTES_STATES * num_nodes entry bytes, inside the parsed buffer
 */
struct route_image {
	uint32_t gemini_id;
	unsigned int dims[3];
	uint32_t num_nodes;
	uint32_t generation;
	uint32_t crc;
	uint32_t num_failed;
	const uint8_t *entries;
};

size_t image_size(uint32_t num_nodes);
void image_build(uint8_t *img, const struct torus *t, uint32_t node,
		 uint32_t generation);
int image_parse(const uint8_t *buf, size_t len, struct route_image *img,
		char *err);
uint8_t image_set_entry(const void *ctx, uint32_t node, unsigned int in_port,
			unsigned int vclass, uint32_t dest);

/* The lookup context of image_set_entry(): one entry array per router. */
struct image_set {
	uint32_t num_nodes;
	const uint8_t **entries;
};

/* ---- image_dir.c: a directory of images (POSIX) ------------------------ */

/**
 * struct image_dir - the images of DIR/router-<id>.bin, mapped read-only
 * @num_nodes: routers (and images)
 * @img: [gemini id], parsed
 * @map: [gemini id], the mapping behind @img
 * @map_len: [gemini id]
 * @entries: [gemini id], for struct image_set
 */
struct image_dir {
	uint32_t num_nodes;
	struct route_image *img;
	void **map;
	size_t *map_len;
	const uint8_t **entries;
};

int image_write_file(const char *path, const uint8_t *img, size_t len,
		     char *err);
int images_write(const char *dir, const struct torus *t,
		 const struct route_plan *p, uint32_t generation,
		 unsigned int *stale_removed, char *err);
int images_load(const char *dir, struct image_dir *d, char *err);
void images_unload(struct image_dir *d);

#endif /* VGEMINI_FIRMWARE_ROUTES_H */
