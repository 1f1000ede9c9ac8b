// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Host test of the routing-table firmware (the .c files of firmware/).  Prints TAP.
 *
 * For many torus shapes and sets of failed links it computes the tables,
 * turns them into images and back, and checks them twice: with the
 * library's checker, and with an oracle written here on its own (its own
 * neighbour arithmetic, walk and topological sort), so that a bug in the
 * checker cannot hide a bug in the routes.  It also feeds the checker and
 * the image loader deliberately broken tables and images, and makes sure
 * they are caught.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "routes.h"
#include "tap.h"

/* ---- fixtures -------------------------------------------------------------- */

#define MAX_FAILS	16

/* A torus with failed links, and the test's own record of them. */
struct fixture {
	struct torus t;
	unsigned int num_fail;
	uint32_t fail_node[2 * MAX_FAILS];	/* both ends of each cable */
	unsigned int fail_port[2 * MAX_FAILS];
};

/* The test's own neighbour arithmetic. */
static uint32_t nbr(const unsigned int dims[3], uint32_t id, unsigned int port)
{
	unsigned int x = id % dims[0], y = id / dims[0] % dims[1];
	unsigned int z = id / dims[0] / dims[1], *c[3] = { &x, &y, &z };
	unsigned int dim = port / 2, k = dims[dim];

	*c[dim] = port & 1 ? (*c[dim] + k - 1) % k : (*c[dim] + 1) % k;
	return x + dims[0] * (y + dims[1] * z);
}

static unsigned int dist(const unsigned int dims[3], uint32_t a, uint32_t b)
{
	unsigned int ca[3] = { a % dims[0], a / dims[0] % dims[1],
			       a / dims[0] / dims[1] };
	unsigned int cb[3] = { b % dims[0], b / dims[0] % dims[1],
			       b / dims[0] / dims[1] };
	unsigned int i, d, sum = 0;

	for (i = 0; i < 3; i++) {
		d = ca[i] > cb[i] ? ca[i] - cb[i] : cb[i] - ca[i];
		sum += d < dims[i] - d ? d : dims[i] - d;
	}
	return sum;
}

static bool is_failed(const struct fixture *f, uint32_t node, unsigned int port)
{
	unsigned int i;

	for (i = 0; i < f->num_fail; i++)
		if (f->fail_node[i] == node && f->fail_port[i] == port)
			return true;
	return false;
}

/* Set up @dims with the links in @fails (NULL-terminated); false on error. */
static bool fixture_init(struct fixture *f, const char *dims,
			 const char *const *fails)
{
	char err[ROUTES_ERR_LEN];
	unsigned int d[3], port;
	uint32_t id;

	memset(f, 0, sizeof(*f));
	if (parse_dims(dims, d, err) || torus_init(&f->t, d, err)) {
		printf("#   %s: %s\n", dims, err);
		return false;
	}
	for (; fails && *fails; fails++) {
		if (parse_link(&f->t, *fails, &id, &port, err) ||
		    torus_fail_link(&f->t, id, port, err)) {
			printf("#   %s: %s\n", *fails, err);
			torus_free(&f->t);
			return false;
		}
		if (is_failed(f, id, port) || f->num_fail == 2 * MAX_FAILS)
			continue;
		f->fail_node[f->num_fail] = id;
		f->fail_port[f->num_fail++] = port;
		f->fail_node[f->num_fail] = nbr(d, id, port);
		f->fail_port[f->num_fail++] = port ^ 1;
	}
	return true;
}

/* Every router's image, built from a plan, and parsed back. */
struct images {
	uint32_t num_nodes;
	size_t size;
	uint8_t *buf;
	const uint8_t **entries;
	struct image_set set;
};

static bool images_build(struct images *im, const struct fixture *f,
			 const struct route_plan *p, uint32_t generation)
{
	char err[ROUTES_ERR_LEN];
	struct route_image img;
	uint32_t node;
	bool ok = true;

	im->num_nodes = f->t.num_nodes;
	im->size = image_size(f->t.num_nodes);
	im->buf = malloc(im->size * f->t.num_nodes);
	im->entries = calloc(f->t.num_nodes, sizeof(*im->entries));
	if (!im->buf || !im->entries)
		return false;
	for (node = 0; node < f->t.num_nodes; node++) {
		uint8_t *b = im->buf + node * im->size;

		plan_fill(p, node, b + VGEMINI_ROUTE_HDR_SIZE);
		image_build(b, &f->t, node, generation);
		if (image_parse(b, im->size, &img, err)) {
			printf("#   router %u: %s\n", node, err);
			ok = false;
			continue;
		}
		if (img.gemini_id != node || img.generation != generation ||
		    img.num_failed != f->t.num_failed ||
		    img.num_nodes != f->t.num_nodes)
			ok = false;
		im->entries[node] = img.entries;
	}
	im->set.num_nodes = f->t.num_nodes;
	im->set.entries = im->entries;
	return ok;
}

static void images_free(struct images *im)
{
	free(im->buf);
	free(im->entries);
}

/* ---- the oracle --------------------------------------------------------- */

struct oracle {
	uint64_t delivered, dropped, bad;
	uint64_t longer;		/* delivered longer than the distance */
	uint64_t failed_used;		/* hops over failed or size-1 links */
	unsigned int max_hops;
	bool cyclic;
};

static uint8_t entry_at(const struct images *im, uint32_t node,
			unsigned int in_port, unsigned int vclass, uint32_t dest)
{
	return im->entries[node][(in_port * 2 + vclass) * im->num_nodes + dest];
}

/* Kahn's algorithm over the channel graph @adj[ch * 12 + successor]. */
static bool has_cycle(const struct fixture *f, const uint8_t *adj)
{
	uint32_t nch = f->t.num_nodes * 12, *indeg, *queue, head = 0, tail = 0;
	uint32_t ch, s, done = 0;
	unsigned int b;

	indeg = calloc(nch, sizeof(*indeg));
	queue = malloc(nch * sizeof(*queue));
	if (!indeg || !queue)
		abort();
	for (ch = 0; ch < nch; ch++)
		for (b = 0; b < 12; b++)
			if (adj[ch * 12 + b])
				indeg[nbr(f->t.dims, ch / 12, ch % 12 / 2) * 12 + b]++;
	for (ch = 0; ch < nch; ch++)
		if (!indeg[ch])
			queue[tail++] = ch;
	while (head < tail) {
		ch = queue[head++];
		done++;
		for (b = 0; b < 12; b++) {
			if (!adj[ch * 12 + b])
				continue;
			s = nbr(f->t.dims, ch / 12, ch % 12 / 2) * 12 + b;
			if (!--indeg[s])
				queue[tail++] = s;
		}
	}
	free(indeg);
	free(queue);
	return done != nch;
}

/* Walk every pair hop by hop through the images. */
static void oracle_run(const struct fixture *f, const struct images *im,
		       struct oracle *o)
{
	uint32_t n = f->t.num_nodes, src, dest, node, limit = 14 * n + 1;
	uint8_t *adj = calloc((size_t)n * 12 * 12, 1);

	if (!adj)
		abort();
	memset(o, 0, sizeof(*o));
	for (src = 0; src < n; src++) {
		for (dest = 0; dest < n; dest++) {
			unsigned int in = 6, cls = 0, hops = 0, port, ocls;
			uint32_t prev = UINT32_MAX;

			node = src;
			for (;;) {
				uint8_t e = entry_at(im, node, in, cls, dest);

				port = e & 7;
				ocls = e >> 3 & 1;
				if (e & 0xf0 || hops > limit ||
				    (port == 6 && node != dest)) {
					o->bad++;
					break;
				}
				if (port == 7) {
					o->dropped++;
					break;
				}
				if (port == 6) {
					o->delivered++;
					if (hops > o->max_hops)
						o->max_hops = hops;
					if (hops != dist(f->t.dims, src, dest))
						o->longer++;
					break;
				}
				if (f->t.dims[port / 2] == 1 ||
				    is_failed(f, node, port))
					o->failed_used++;
				if (prev != UINT32_MAX)
					adj[prev * 12 + port * 2 + ocls] = 1;
				prev = node * 12 + port * 2 + ocls;
				node = nbr(f->t.dims, node, port);
				in = port ^ 1;
				cls = ocls;
				hops++;
			}
		}
	}
	o->cyclic = has_cycle(f, adj);
	free(adj);
}

/* Pairs the surviving links do not connect. */
static uint64_t disconnected_pairs(const struct fixture *f)
{
	uint32_t num_comp, *comp = torus_components(&f->t, &num_comp), a, b;
	uint64_t count = 0;

	if (!comp)
		abort();
	for (a = 0; a < f->t.num_nodes; a++)
		for (b = 0; b < f->t.num_nodes; b++)
			count += comp[a] != comp[b];
	free(comp);
	return count;
}

/* ---- checking a plan -------------------------------------------------------- */

#define ANY_ALGO	-1

/*
 * The whole battery for one routed torus: checker sound, oracle agrees,
 * failed links unused, every connected pair delivered, images round-trip.
 */
static void check_plan(const struct fixture *f, const struct route_plan *p,
		       const struct check_result *res, unsigned int flags)
{
	char err[ROUTES_ERR_LEN];
	uint64_t n2 = (uint64_t)f->t.num_nodes * f->t.num_nodes;
	uint64_t cut = disconnected_pairs(f);
	struct check_result res2;
	struct images im = { 0 };
	struct oracle o;
	uint32_t node;

	CHECK(check_sound(res, flags));
	if (res->problem[0])
		printf("#   problem: %s\n", res->problem);
	if (res->cyclic)
		printf("#   %s\n", res->cycle);
	CHECK(!res->stopped);
	CHECK_EQ(res->pairs, n2);
	CHECK_EQ(res->unreachable, cut);
	CHECK_EQ(res->delivered, n2 - cut);
	CHECK(!res->cyclic);

	CHECK(images_build(&im, f, p, 7));
	if (!im.buf)
		return;
	for (node = 0; node < f->t.num_nodes; node++) {
		if (table_check(&f->t, node, im.entries[node], err)) {
			printf("#   %s\n", err);
			CHECK(0);
		}
	}
	oracle_run(f, &im, &o);
	CHECK_EQ(o.bad, 0);
	CHECK_EQ(o.failed_used, 0);
	CHECK_EQ(o.dropped, cut);
	CHECK_EQ(o.delivered, n2 - cut);
	CHECK_EQ(o.max_hops, res->max_hops);
	CHECK_EQ(o.longer, res->nonminimal);
	CHECK(!o.cyclic);
	if (flags & CHECK_MINIMAL)
		CHECK_EQ(o.longer, 0);

	/* The checker sees the same through the images as through the plan. */
	CHECK(!route_check(&f->t, image_set_entry, &im.set, flags, &res2, err));
	CHECK_EQ(res2.delivered, res->delivered);
	CHECK_EQ(res2.max_hops, res->max_hops);
	CHECK_EQ(res2.channels_used, res->channels_used);
	CHECK(check_sound(&res2, flags));
	images_free(&im);
}

/* plan_choose() on @dims with @fails, then the battery. */
static void scenario(const char *dims, const char *const *fails, int algo,
		     uint64_t unreachable, int detours, const char *what)
{
	char err[ROUTES_ERR_LEN], name[ROUTES_ERR_LEN];
	struct check_result res;
	struct route_plan p;
	struct fixture f;

	if (!fixture_init(&f, dims, fails)) {
		CHECK(0);
		tap_test_end("%s %s: set up", dims, what);
		return;
	}
	if (plan_choose(&p, &f.t, &res, err)) {
		printf("#   %s\n", err);
		CHECK(0);
	} else {
		check_plan(&f, &p, &res, f.t.num_failed ? 0 : CHECK_MINIMAL);
		if (unreachable != UINT64_MAX)
			CHECK_EQ(res.unreachable, unreachable);
		if (algo != ANY_ALGO)
			CHECK_EQ(p.algo, algo);
		if (detours >= 0)
			CHECK_EQ(res.nonminimal != 0, detours);
		printf("#   %s: %s, max %u hops\n", dims,
		       plan_name(&p, name, sizeof(name)), res.max_hops);
		plan_free(&p);
	}
	torus_free(&f.t);
	tap_test_end("%s %s: every connected pair delivered, no failed link used, deadlock-free",
		     dims, what);
}

/* ---- the shapes, no failures ---------------------------------------------- */

static const char *const shapes[] = {
	"1x1x1", "2x1x1", "3x1x1", "4x1x1", "5x1x1", "8x1x1", "1x2x1",
	"1x1x3", "1x4x2", "2x1x5", "2x2x1", "3x3x1", "4x2x1", "2x2x2",
	"3x2x2", "4x4x1", "3x3x3", "4x4x4", "5x3x2", "6x5x4", "8x8x8",
};

static void test_shape_dor(const char *dims)
{
	char err[ROUTES_ERR_LEN];
	struct check_result res;
	struct route_plan p;
	struct fixture f;

	if (!fixture_init(&f, dims, NULL)) {
		CHECK(0);
		tap_test_end("%s: set up", dims);
		return;
	}
	if (plan_choose(&p, &f.t, &res, err)) {
		printf("#   %s\n", err);
		CHECK(0);
	} else {
		CHECK_EQ(p.algo, ROUTE_DOR);
		CHECK(p.datelines);
		CHECK(p.order[0] == 0 && p.order[1] == 1 && p.order[2] == 2);
		check_plan(&f, &p, &res, CHECK_MINIMAL);
		CHECK_EQ(res.nonminimal, 0);
		CHECK_EQ(res.max_hops, torus_diameter(&f.t));
		plan_free(&p);
	}
	torus_free(&f.t);
	tap_test_end("%s: dimension order, minimal paths (torus distance), all pairs, deadlock-free",
		     dims);
}

/*
 * The up/down rule, entry by entry: the class out is 1 exactly when the
 * hop goes down (towards a higher (level, id)), and a packet that came in
 * class 1 never goes up again.
 */
static unsigned int updown_violations(const struct fixture *f,
				      const struct route_plan *p)
{
	uint32_t node, dest, far;
	unsigned int in, cls, port, bad = 0;
	bool down;

	for (node = 0; node < f->t.num_nodes; node++)
		for (in = 0; in < 7; in++)
			for (cls = 0; cls < 2; cls++)
				for (dest = 0; dest < f->t.num_nodes; dest++) {
					uint8_t e = plan_entry(p, node, in, cls, dest);

					port = e & 7;
					if (port >= 6)
						continue;
					far = nbr(f->t.dims, node, port);
					down = p->level[far] > p->level[node] ||
					       (p->level[far] == p->level[node] &&
						far > node);
					bad += !!(e & 8) != down;
					bad += cls && in < 6 && !down;
				}
	return bad;
}

/* The fallback alone, on every shape: sound even where DOR would do. */
static void test_shape_updown(const char *dims, const char *const *fails)
{
	char err[ROUTES_ERR_LEN];
	struct check_result res;
	struct route_plan p;
	struct fixture f;

	if (!fixture_init(&f, dims, fails)) {
		CHECK(0);
		tap_test_end("%s: set up", dims);
		return;
	}
	if (plan_updown(&p, &f.t, err) ||
	    route_check(&f.t, plan_entry, &p, 0, &res, err)) {
		printf("#   %s\n", err);
		CHECK(0);
	} else {
		check_plan(&f, &p, &res, 0);
		CHECK_EQ(updown_violations(&f, &p), 0);
		plan_free(&p);
	}
	torus_free(&f.t);
	tap_test_end("%s%s: up/down routing alone: all connected pairs, deadlock-free",
		     dims, fails ? " with failures" : "");
}

/* ---- failures ------------------------------------------------------------- */

static void test_failures(void)
{
	static const char *const one_ring[] = { "0:X+", NULL };
	static const char *const one_8[] = { "3:X-", NULL };
	static const char *const one_2d[] = { "0:X+", NULL };
	static const char *const several[] = {
		"0:X+", "5:Y-", "1,2,3:Z+", "63:x-", "2,2,2:ym", NULL,
	};
	static const char *const size2_one[] = { "0:X+", NULL };
	static const char *const size2_both[] = { "0:X+", "1:X+", NULL };
	static const char *const size2_cube[] = { "0:X+", "0:Y-", "3:Z+", NULL };
	static const char *const size2_x_cut[] = { "0:xp", "0:xm", NULL };
	static const char *const size2_y[] = { "0:Y+", NULL };
	static const char *const size2_y_both[] = { "0:Y+", "0:Y-", NULL };
	static const char *const isolate[] = {
		"13:X+", "13:X-", "13:Y+", "13:Y-", "13:Z+", "13:Z-", NULL,
	};
	static const char *const halves[] = { "0:X+", "2:X+", NULL };
	static const char *const ring_split[] = { "0:X+", "2:X+", NULL };
	static const char *const mixed[] = {
		"0:X+", "7:Y+", "12:Z-", "1,1,1:X-", "4,2,0:Y-", NULL,
	};
	static const char *const cross[] = { "4:X+", "4:Y+", "4:X-", NULL };
	static const char *const twice[] = { "0:X+", "1:X-", "0,0,0:xp", NULL };

	scenario("4x1x1", one_ring, ROUTE_DOR, 0, 1, "one link failed (detour the long way)");
	scenario("8x1x1", one_8, ROUTE_DOR, 0, 1, "one link failed");
	scenario("4x4x1", one_2d, ROUTE_DOR, 0, 1, "one link failed");
	scenario("4x4x4", several, ANY_ALGO, 0, -1, "five links failed");
	scenario("2x1x1", size2_one, ROUTE_DOR, 0, 0, "one of the two X cables failed");
	scenario("2x1x1", size2_both, ANY_ALGO, 2, -1, "both X cables failed (disconnected)");
	scenario("2x2x2", size2_cube, ANY_ALGO, 0, -1, "three size-2 links failed");
	scenario("2x2x1", size2_x_cut, ROUTE_UPDOWN, 0, -1, "both X cables of node 0 failed");
	scenario("4x2x1", size2_y, ROUTE_DOR, 0, 0, "one of two Y cables failed");
	scenario("3x2x2", size2_y_both, ANY_ALGO, 0, -1, "both Y cables of node 0 failed");
	scenario("3x3x3", isolate, ANY_ALGO, 2 * 26, -1, "node 13 cut off (disconnected)");
	scenario("4x1x1", halves, ANY_ALGO, 8, -1, "ring cut in two halves (disconnected)");
	scenario("4x4x1", ring_split, ROUTE_UPDOWN, 0, -1, "ring y=0 split, no dimension order works");
	scenario("5x3x2", mixed, ANY_ALGO, 0, -1, "five links failed");
	scenario("3x3x1", cross, ANY_ALGO, 0, -1, "three links of the centre failed");
	scenario("4x1x1", twice, ROUTE_DOR, 0, 1, "one cable named three ways");
}

/* Deterministic pseudo-random failure sets. */
static uint32_t rng_state = 12345;

static uint32_t rng(void)
{
	rng_state = rng_state * 1103515245u + 12345u;
	return rng_state >> 8;
}

static void test_random_failures(void)
{
	static const char *const rshapes[] = {
		"3x3x1", "4x4x1", "2x2x2", "3x2x2", "4x3x2", "3x3x3", "5x2x1",
		"4x4x2", "2x3x4",
	};
	char links[MAX_FAILS][32];
	const char *fails[MAX_FAILS + 1];
	unsigned int s, round, i, num, d[3];
	char err[ROUTES_ERR_LEN];

	for (s = 0; s < sizeof(rshapes) / sizeof(rshapes[0]); s++) {
		if (parse_dims(rshapes[s], d, err))
			abort();
		for (round = 0; round < 6; round++) {
			num = 1 + rng() % 6;
			for (i = 0; i < num; i++) {
				unsigned int port;

				do
					port = rng() % 6;
				while (d[port / 2] == 1);
				snprintf(links[i], sizeof(links[i]), "%u:%s",
					 rng() % (d[0] * d[1] * d[2]),
					 port_name(port));
				fails[i] = links[i];
			}
			fails[num] = NULL;
			scenario(rshapes[s], fails, ANY_ALGO, UINT64_MAX, -1,
				 "random failures");
		}
	}
}

/* ---- known routes: tie-break and datelines -------------------------------- */

static uint8_t nic_entry(const struct route_plan *p, uint32_t node, uint32_t dest)
{
	return plan_entry(p, node, VGEMINI_ROUTE_IN_NIC, 0, dest);
}

static void test_known_routes(void)
{
	static const unsigned int xyz[3] = { 0, 1, 2 };
	char err[ROUTES_ERR_LEN];
	struct route_plan p;
	struct fixture f;

	CHECK(fixture_init(&f, "4x1x1", NULL));
	CHECK(!plan_dor(&p, &f.t, xyz, true, err));
	/* distance k/2: the + way */
	CHECK_EQ(nic_entry(&p, 0, 2), VGEMINI_ROUTE_ENTRY(GEMINI_PORT_XP, 0));
	CHECK_EQ(nic_entry(&p, 2, 0), VGEMINI_ROUTE_ENTRY(GEMINI_PORT_XP, 0));
	CHECK_EQ(nic_entry(&p, 3, 1), VGEMINI_ROUTE_ENTRY(GEMINI_PORT_XP, 1));
	/* over the dateline, either way: class 1 */
	CHECK_EQ(nic_entry(&p, 3, 0), VGEMINI_ROUTE_ENTRY(GEMINI_PORT_XP, 1));
	CHECK_EQ(nic_entry(&p, 0, 3), VGEMINI_ROUTE_ENTRY(GEMINI_PORT_XM, 1));
	CHECK_EQ(nic_entry(&p, 1, 0), VGEMINI_ROUTE_ENTRY(GEMINI_PORT_XM, 0));
	CHECK_EQ(nic_entry(&p, 1, 1), VGEMINI_ROUTE_ENTRY(VGEMINI_ROUTE_OUT_NIC, 0));
	/* arrived at 0 over the wrap cable in class 1: straight on, class 1 */
	CHECK_EQ(plan_entry(&p, 0, GEMINI_PORT_XM, 1, 1),
		 VGEMINI_ROUTE_ENTRY(GEMINI_PORT_XP, 1));
	/* ...in class 0 it cannot have: no route */
	CHECK_EQ(plan_entry(&p, 0, GEMINI_PORT_XM, 0, 1),
		 VGEMINI_ROUTE_ENTRY(VGEMINI_ROUTE_NONE, 0));
	/* the NIC never injects in class 1 */
	CHECK_EQ(plan_entry(&p, 0, VGEMINI_ROUTE_IN_NIC, 1, 1),
		 VGEMINI_ROUTE_ENTRY(VGEMINI_ROUTE_NONE, 0));
	/* a size-1 dimension's port is never an input */
	CHECK_EQ(plan_entry(&p, 0, GEMINI_PORT_YP, 0, 1),
		 VGEMINI_ROUTE_ENTRY(VGEMINI_ROUTE_NONE, 0));
	plan_free(&p);
	torus_free(&f.t);

	/* size 2: both directions are 1 hop: the + way, 1 -> 0 over the wrap */
	CHECK(fixture_init(&f, "2x1x1", NULL));
	CHECK(!plan_dor(&p, &f.t, xyz, true, err));
	CHECK_EQ(nic_entry(&p, 0, 1), VGEMINI_ROUTE_ENTRY(GEMINI_PORT_XP, 0));
	CHECK_EQ(nic_entry(&p, 1, 0), VGEMINI_ROUTE_ENTRY(GEMINI_PORT_XP, 1));
	plan_free(&p);
	torus_free(&f.t);

	/* X first, then Y, then Z; entering a dimension resets the class */
	CHECK(fixture_init(&f, "4x4x4", NULL));
	CHECK(!plan_dor(&p, &f.t, xyz, true, err));
	CHECK_EQ(nic_entry(&p, 0, 1 + 4 + 16), VGEMINI_ROUTE_ENTRY(GEMINI_PORT_XP, 0));
	CHECK_EQ(nic_entry(&p, 1, 1 + 4 + 16), VGEMINI_ROUTE_ENTRY(GEMINI_PORT_YP, 0));
	CHECK_EQ(plan_entry(&p, 0, GEMINI_PORT_XM, 1, 4 * 3 + 16),
		 VGEMINI_ROUTE_ENTRY(GEMINI_PORT_YM, 1));
	CHECK_EQ(plan_entry(&p, 4 * 3, GEMINI_PORT_YP, 1, 4 * 3 + 16),
		 VGEMINI_ROUTE_ENTRY(GEMINI_PORT_ZP, 0));
	plan_free(&p);
	torus_free(&f.t);

	/* a failed link: the other way round, over the dateline */
	{
		static const char *const fail[] = { "0:X+", NULL };

		CHECK(fixture_init(&f, "4x1x1", fail));
		CHECK(!plan_dor(&p, &f.t, xyz, true, err));
		CHECK_EQ(nic_entry(&p, 0, 1), VGEMINI_ROUTE_ENTRY(GEMINI_PORT_XM, 1));
		CHECK_EQ(nic_entry(&p, 1, 0), VGEMINI_ROUTE_ENTRY(GEMINI_PORT_XP, 0));
		CHECK_EQ(nic_entry(&p, 1, 2), VGEMINI_ROUTE_ENTRY(GEMINI_PORT_XP, 0));
		plan_free(&p);
		torus_free(&f.t);
	}
	tap_test_end("known routes: tie-break + at distance k/2, datelines set class 1, X then Y then Z");
}

/* ---- the checker catches broken tables ------------------------------------ */

/* DOR without datelines: a ring of 4 or more has a dependency cycle. */
static void test_no_datelines(const char *dims, bool expect_cycle)
{
	static const unsigned int xyz[3] = { 0, 1, 2 };
	char err[ROUTES_ERR_LEN];
	struct check_result res;
	struct images im = { 0 };
	struct route_plan p;
	struct fixture f;
	struct oracle o;

	CHECK(fixture_init(&f, dims, NULL));
	CHECK(!plan_dor(&p, &f.t, xyz, false, err));
	CHECK(!route_check(&f.t, plan_entry, &p, CHECK_MINIMAL, &res, err));
	CHECK_EQ(res.cyclic, expect_cycle);
	CHECK_EQ(check_sound(&res, CHECK_MINIMAL), !expect_cycle);
	CHECK_EQ(res.delivered, res.pairs);	/* the routes alone are fine */
	if (res.cyclic)
		printf("#   %s: %s\n", dims, res.cycle);
	CHECK(images_build(&im, &f, &p, 0));
	oracle_run(&f, &im, &o);
	CHECK_EQ(o.cyclic, expect_cycle);
	images_free(&im);
	plan_free(&p);
	torus_free(&f.t);
	tap_test_end("%s: dimension order without datelines is %s (checker and oracle agree)",
		     dims, expect_cycle ? "caught as cyclic" : "acyclic (minimal ring hops are 1)");
}

/* A 5x1x1 DOR table set in memory, to break on purpose. */
struct broken {
	struct fixture f;
	struct route_plan p;
	struct images im;
};

static void broken_init(struct broken *b, const char *dims)
{
	static const unsigned int xyz[3] = { 0, 1, 2 };
	char err[ROUTES_ERR_LEN];

	memset(b, 0, sizeof(*b));
	if (!fixture_init(&b->f, dims, NULL) ||
	    plan_dor(&b->p, &b->f.t, xyz, true, err) ||
	    !images_build(&b->im, &b->f, &b->p, 0))
		abort();
}

static void broken_free(struct broken *b)
{
	images_free(&b->im);
	plan_free(&b->p);
	torus_free(&b->f.t);
}

static uint8_t *broken_entry(struct broken *b, uint32_t node,
			     unsigned int in_port, unsigned int vclass,
			     uint32_t dest)
{
	return b->im.buf + node * b->im.size + VGEMINI_ROUTE_HDR_SIZE +
	       (in_port * 2 + vclass) * b->f.t.num_nodes + dest;
}

static void broken_check(struct broken *b, struct check_result *res,
			 unsigned int flags)
{
	char err[ROUTES_ERR_LEN];

	CHECK(!route_check(&b->f.t, image_set_entry, &b->im.set, flags, res,
			   err));
	if (res->problem[0])
		printf("#   caught: %s\n", res->problem);
}

static void test_checker_catches(void)
{
	char err[ROUTES_ERR_LEN];
	struct check_result res;
	struct broken b;

	/* a loop: 1 sends packets for 2 that came from 0 back to 0 */
	broken_init(&b, "5x1x1");
	*broken_entry(&b, 1, GEMINI_PORT_XM, 0, 2) =
		VGEMINI_ROUTE_ENTRY(GEMINI_PORT_XM, 0);
	*broken_entry(&b, 0, GEMINI_PORT_XP, 0, 2) =
		VGEMINI_ROUTE_ENTRY(GEMINI_PORT_XP, 0);
	broken_check(&b, &res, CHECK_MINIMAL);
	CHECK(res.loops >= 1);
	CHECK(!check_sound(&res, CHECK_MINIMAL));
	broken_free(&b);
	tap_test_end("checker catches a routing loop");

	/* delivered to the wrong node */
	broken_init(&b, "5x1x1");
	*broken_entry(&b, 1, GEMINI_PORT_XM, 0, 2) =
		VGEMINI_ROUTE_ENTRY(VGEMINI_ROUTE_OUT_NIC, 0);
	broken_check(&b, &res, 0);
	CHECK(res.misdelivered >= 1);
	CHECK(!check_sound(&res, 0));
	broken_free(&b);
	tap_test_end("checker catches delivery to the wrong node");

	/* a "no route" where there is one */
	broken_init(&b, "5x1x1");
	*broken_entry(&b, 0, VGEMINI_ROUTE_IN_NIC, 0, 1) =
		VGEMINI_ROUTE_ENTRY(VGEMINI_ROUTE_NONE, 0);
	broken_check(&b, &res, 0);
	CHECK_EQ(res.unreachable, 1);
	CHECK_EQ(res.unreachable_connected, 1);
	CHECK_EQ(res.num_listed, 1);
	CHECK(res.listed[0][0] == 0 && res.listed[0][1] == 1);
	CHECK(!check_sound(&res, 0));
	broken_free(&b);
	tap_test_end("checker catches an unreachable pair that is connected");

	/* a detour where nothing failed */
	broken_init(&b, "5x1x1");
	*broken_entry(&b, 0, VGEMINI_ROUTE_IN_NIC, 0, 1) =
		VGEMINI_ROUTE_ENTRY(GEMINI_PORT_XM, 1);
	broken_check(&b, &res, CHECK_MINIMAL);
	CHECK_EQ(res.nonminimal, 1);
	CHECK_EQ(res.max_hops, 4);
	CHECK(!check_sound(&res, CHECK_MINIMAL));
	CHECK(check_sound(&res, 0));
	broken_free(&b);
	tap_test_end("checker catches a path longer than the torus distance");

	/* a size-1 dimension's self cable */
	broken_init(&b, "5x1x1");
	*broken_entry(&b, 0, VGEMINI_ROUTE_IN_NIC, 0, 1) =
		VGEMINI_ROUTE_ENTRY(GEMINI_PORT_YP, 0);
	broken_check(&b, &res, 0);
	CHECK_EQ(res.dead_link, 1);
	CHECK(!check_sound(&res, 0));
	CHECK(table_check(&b.f.t, 0, b.im.entries[0], err));
	CHECK(strstr(err, "size 1"));
	CHECK(!table_check(&b.f.t, 1, b.im.entries[1], err));
	broken_free(&b);
	tap_test_end("checker and table check catch a size-1 self cable");

	/* tables computed without a failure, checked against it */
	broken_init(&b, "5x1x1");
	CHECK(!torus_fail_link(&b.f.t, 2, GEMINI_PORT_XP, err));
	broken_check(&b, &res, 0);
	CHECK(res.dead_link >= 1);
	CHECK(!check_sound(&res, 0));
	CHECK(table_check(&b.f.t, 2, b.im.entries[2], err));
	CHECK(strstr(err, "failed link"));
	CHECK(table_check(&b.f.t, 3, b.im.entries[3], err));
	broken_free(&b);
	tap_test_end("checker and table check catch a failed link in use (both ends)");

	/* reserved bits, as a lookup would return them */
	broken_init(&b, "5x1x1");
	*broken_entry(&b, 0, VGEMINI_ROUTE_IN_NIC, 0, 1) |= 0x10;
	broken_check(&b, &res, 0);
	CHECK_EQ(res.bad_entry, 1);
	CHECK(!check_sound(&res, 0));
	CHECK(table_check(&b.f.t, 0, b.im.entries[0], err));
	broken_free(&b);
	tap_test_end("checker catches an entry with reserved bits");

	/* CHECK_FIRST stops at the first problem */
	broken_init(&b, "5x1x1");
	*broken_entry(&b, 1, GEMINI_PORT_XM, 0, 2) =
		VGEMINI_ROUTE_ENTRY(VGEMINI_ROUTE_OUT_NIC, 0);
	broken_check(&b, &res, CHECK_FIRST);
	CHECK(res.stopped);
	CHECK(res.pairs < 25);
	broken_free(&b);
	tap_test_end("CHECK_FIRST stops at the first problem");
}

/* ---- images --------------------------------------------------------------- */

static void test_crc32(void)
{
	static const char check[] = "123456789";

	CHECK_EQ(vgemini_crc32(0, check, 9), 0xcbf43926u);
	CHECK_EQ(vgemini_crc32(0, check, 0), 0);
	CHECK_EQ(vgemini_crc32(vgemini_crc32(0, check, 4), check + 4, 5), 0xcbf43926u);
	CHECK_EQ(vgemini_crc32(0, "a", 1), 0xe8b7be43u);
	tap_test_end("crc32: IEEE check value, empty input, continuation");
}

/* Rewrite the header CRC after changing entries on purpose. */
static void fix_crc(uint8_t *img, size_t len)
{
	uint32_t crc = vgemini_crc32(0, img + VGEMINI_ROUTE_HDR_SIZE,
				     len - VGEMINI_ROUTE_HDR_SIZE);

	vgemini_put_le32(img + VGEMINI_ROUTE_HDR_OFF(entries_crc32), crc);
}

static void expect_reject(const uint8_t *good, size_t len, size_t off,
			  uint8_t val, size_t new_len, bool recrc,
			  const char *why, const char *name)
{
	char err[ROUTES_ERR_LEN] = "";
	struct route_image img;
	uint8_t *buf = malloc(len + 1);

	if (!buf)
		abort();
	memcpy(buf, good, len);
	buf[len] = 0;
	if (off < len)
		buf[off] = val;
	if (recrc)
		fix_crc(buf, len);
	CHECK(image_parse(buf, new_len, &img, err));
	if (!strstr(err, why)) {
		printf("#   %s: \"%s\" does not say \"%s\"\n", name, err, why);
		CHECK(0);
	}
	free(buf);
	tap_test_end("loader rejects %s", name);
}

static void test_images(void)
{
	static const char *const fails[] = { "0:X+", NULL };
	struct check_result res;
	char err[ROUTES_ERR_LEN];
	struct route_image img;
	struct images im = { 0 };
	struct route_plan p;
	struct fixture f;
	uint8_t *g;
	size_t len;

	CHECK(fixture_init(&f, "3x2x1", fails));
	CHECK(!plan_choose(&p, &f.t, &res, err));
	CHECK(images_build(&im, &f, &p, 0xdeadbeef));
	g = im.buf + 4 * im.size;
	len = im.size;
	CHECK_EQ(len, 64 + 14 * 6);
	CHECK(!memcmp(g, "VGRT", 4));
	CHECK(g[4] == 1 && !g[5] && !g[6] && !g[7]);
	CHECK(g[8] == 64 && g[12] == 4 && g[16] == 3 && g[17] == 2 && g[18] == 1);
	CHECK(g[20] == 6 && g[24] == 0xef && g[27] == 0xde && g[32] == 1);
	CHECK(!image_parse(g, len, &img, err));
	CHECK_EQ(img.gemini_id, 4);
	CHECK_EQ(img.generation, 0xdeadbeef);
	CHECK_EQ(img.num_failed, 1);
	CHECK_EQ(img.num_nodes, 6);
	CHECK_EQ(img.crc, vgemini_crc32(0, g + 64, len - 64));
	CHECK(img.entries == g + 64);
	tap_test_end("image round trip: little-endian header fields, CRC, entries");

	expect_reject(g, len, 0, 'X', len, false, "magic", "bad magic");
	expect_reject(g, len, 4, 2, len, false, "version", "another version");
	expect_reject(g, len, 7, 1, len, false, "version", "version high byte");
	expect_reject(g, len, 8, 128, len, false, "header size", "bad header size");
	expect_reject(g, len, 12, 6, len, false, "gemini_id", "gemini id out of range");
	expect_reject(g, len, 16, 0, len, false, "is 0", "zero dimension");
	expect_reject(g, len, 16, 4, len, false, "num_nodes", "dims not matching num_nodes");
	expect_reject(g, len, 19, 1, len, false, "reserved0", "reserved0 set");
	expect_reject(g, len, 36, 1, len, false, "reserved header byte 36", "first reserved word set");
	expect_reject(g, len, 63, 0x80, len, false, "reserved header byte 63", "last reserved byte set");
	expect_reject(g, len, VGEMINI_ROUTE_HDR_OFF(entries_crc32),
		      g[VGEMINI_ROUTE_HDR_OFF(entries_crc32)] ^ 1, len, false, "CRC",
		      "bad CRC field");
	expect_reject(g, len, 70, g[70] ^ 1, len, false, "CRC", "entry changed under the CRC");
	expect_reject(g, len, 70, g[70] | 0x10, len, true, "reserved bits", "entry reserved bit (CRC fixed)");
	expect_reject(g, len, 70, g[70] | 0x80, len, true, "reserved bits", "entry top bit (CRC fixed)");
	expect_reject(g, len, len, 0, len - 1, false, "truncated", "image short by one byte");
	expect_reject(g, len, len, 0, 63, false, "shorter", "image shorter than the header");
	expect_reject(g, len, len, 0, 0, false, "shorter", "empty image");
	expect_reject(g, len, len, 0, len + 1, false, "trailing", "image with a trailing byte");

	images_free(&im);
	plan_free(&p);
	torus_free(&f.t);
}

/* ---- a directory of images ------------------------------------------------ */

static void remove_dir(const char *dir)
{
	char path[512];
	unsigned int i;

	for (i = 0; i < 64; i++) {
		snprintf(path, sizeof(path), "%s/router-%u.bin", dir, i);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/router-007.bin", dir);
	unlink(path);
	rmdir(dir);
}

static bool write_dir(const char *dir, const char *dims, const char *const *fails,
		      unsigned int *stale)
{
	char err[ROUTES_ERR_LEN];
	struct check_result res;
	struct route_plan p;
	struct fixture f;
	bool ok;

	if (!fixture_init(&f, dims, fails))
		return false;
	ok = !plan_choose(&p, &f.t, &res, err) &&
	     !images_write(dir, &f.t, &p, 3, stale, err);
	if (!ok)
		printf("#   %s\n", err);
	else
		plan_free(&p);
	torus_free(&f.t);
	return ok;
}

static void truncate_file(const char *path, long keep)
{
	FILE *f = fopen(path, "r+b");
	char buf[1024];
	size_t n;

	if (!f)
		abort();
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	f = fopen(path, "wb");
	if (!f)
		abort();
	fwrite(buf, 1, (size_t)keep < n ? (size_t)keep : n, f);
	fclose(f);
}

static void test_dir(void)
{
	static const char *const fails[] = { "1:Y+", NULL };
	const char *tmpdir = getenv("TMPDIR");
	char tmpl[256], path[512];
	char err[ROUTES_ERR_LEN];
	struct check_result res;
	struct image_dir d;
	struct fixture f;
	struct route_plan p;
	unsigned int stale;
	uint8_t row[14 * 8];
	uint32_t id;
	FILE *fh;

	snprintf(tmpl, sizeof(tmpl), "%s/vgemini-routes-test.XXXXXX",
		 tmpdir && *tmpdir && strlen(tmpdir) < 200 ? tmpdir : "/tmp");
	if (!mkdtemp(tmpl)) {
		CHECK(0);
		tap_test_end("image directory: mkdtemp");
		return;
	}
	CHECK(write_dir(tmpl, "4x2x1", fails, &stale));
	CHECK_EQ(stale, 0);
	CHECK(!images_load(tmpl, &d, err));
	CHECK_EQ(d.num_nodes, 8);
	CHECK(fixture_init(&f, "4x2x1", fails));
	CHECK(!plan_choose(&p, &f.t, &res, err));
	for (id = 0; id < d.num_nodes; id++) {
		plan_fill(&p, id, row);
		CHECK(!memcmp(row, d.entries[id], sizeof(row)));
		CHECK_EQ(d.img[id].generation, 3);
		CHECK_EQ(d.img[id].num_failed, 1);
	}
	plan_free(&p);
	torus_free(&f.t);
	images_unload(&d);
	tap_test_end("image directory: written, loaded back, entries equal the plan's");

	/* a smaller torus in the same directory removes the extra images */
	CHECK(write_dir(tmpl, "2x2x1", NULL, &stale));
	CHECK_EQ(stale, 4);
	CHECK(!images_load(tmpl, &d, err));
	CHECK_EQ(d.num_nodes, 4);
	images_unload(&d);
	tap_test_end("image directory: images of routers beyond the torus removed");

	snprintf(path, sizeof(path), "%s/router-2.bin", tmpl);
	truncate_file(path, 100);
	CHECK(images_load(tmpl, &d, err));
	CHECK(strstr(err, "router-2.bin") && strstr(err, "truncated"));
	printf("#   %s\n", err);
	tap_test_end("image directory: a truncated image refused");

	CHECK(write_dir(tmpl, "2x2x1", NULL, &stale));
	unlink(path);
	CHECK(images_load(tmpl, &d, err));
	printf("#   %s\n", err);
	tap_test_end("image directory: a missing image refused");

	CHECK(write_dir(tmpl, "2x2x1", NULL, &stale));
	snprintf(path, sizeof(path), "%s/router-007.bin", tmpl);
	fh = fopen(path, "wb");
	CHECK(fh != NULL);
	if (fh)
		fclose(fh);
	CHECK(images_load(tmpl, &d, err));
	CHECK(strstr(err, "canonical"));
	unlink(path);
	tap_test_end("image directory: a non-canonical image name refused");

	/* router-1.bin of another generation */
	CHECK(write_dir(tmpl, "2x2x1", NULL, &stale));
	{
		struct fixture f2;
		struct route_plan p2;
		struct images im = { 0 };

		CHECK(fixture_init(&f2, "2x2x1", NULL));
		CHECK(!plan_choose(&p2, &f2.t, &res, err));
		CHECK(images_build(&im, &f2, &p2, 4));
		snprintf(path, sizeof(path), "%s/router-1.bin", tmpl);
		CHECK(!image_write_file(path, im.buf + im.size, im.size, err));
		CHECK(images_load(tmpl, &d, err));
		CHECK(strstr(err, "generation"));
		images_free(&im);
		plan_free(&p2);
		torus_free(&f2.t);
	}
	tap_test_end("image directory: images of different generations refused");

	/* router-1.bin holding router 0's table */
	CHECK(write_dir(tmpl, "2x2x1", NULL, &stale));
	snprintf(path, sizeof(path), "%s/router-1.bin", tmpl);
	{
		char p0[512];
		uint8_t buf[64 + 14 * 4];

		snprintf(p0, sizeof(p0), "%s/router-0.bin", tmpl);
		fh = fopen(p0, "rb");
		CHECK(fh && fread(buf, 1, sizeof(buf), fh) == sizeof(buf));
		if (fh)
			fclose(fh);
		CHECK(!image_write_file(path, buf, sizeof(buf), err));
		CHECK(images_load(tmpl, &d, err));
		CHECK(strstr(err, "router 0"));
	}
	tap_test_end("image directory: an image under another router's name refused");

	remove_dir(tmpl);
	CHECK(images_load(tmpl, &d, err));
	tap_test_end("image directory: a missing directory refused");
}

/* ---- command-line values ---------------------------------------------------- */

static void test_parsers(void)
{
	static const char *const bad_dims[] = {
		"", "4", "4x4", "4x4x4x4", "4x4x", "x4x4", "0x1x1", "1x0x1",
		"256x1x1", "64x64x32", "4x-1x1", "4x+1x1", " 4x4x4", "4x4x4 ",
		"4,4,4", "4x4x4a", "99999999999x1x1",
	};
	static const char *const bad_ports[] = {
		"", "X", "X+ ", "W+", "x*", "+X", "xplus", "X0", "Xp+",
	};
	static const char *const bad_links[] = {
		"0", "0:", ":X+", "64:X+", "4,0,0:X+", "0,0:X+", "a:X+",
		"0:Q+", "0,0,0,0:X+", "-1:X+",
	};
	static const char *const good_ports[] = {
		"X+", "x-", "Y+", "y-", "z+", "Z-", "xp", "XM", "yP", "Ym",
		"zp", "zm",
	};
	static const unsigned int port_of[] = { 0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5 };
	char err[ROUTES_ERR_LEN];
	unsigned int d[3], port, i;
	struct torus t, t1;
	uint32_t id, v;

	CHECK(!parse_dims("4x3x2", d, err) && d[0] == 4 && d[1] == 3 && d[2] == 2);
	CHECK(!parse_dims("64X64X16", d, err) && d[2] == 16);
	CHECK(!parse_dims("255x1x1", d, err));
	CHECK(!parse_dims("1x1x1", d, err));
	for (i = 0; i < sizeof(bad_dims) / sizeof(bad_dims[0]); i++) {
		if (!parse_dims(bad_dims[i], d, err)) {
			printf("#   dims \"%s\" accepted\n", bad_dims[i]);
			CHECK(0);
		}
	}
	d[0] = 0;
	d[1] = d[2] = 1;
	CHECK(torus_init(&t, d, err));
	d[0] = 256;
	CHECK(torus_init(&t, d, err));
	tap_test_end("parse dims: XxYxZ, each 1..255, at most 65536 nodes");

	for (i = 0; i < sizeof(good_ports) / sizeof(good_ports[0]); i++)
		CHECK(!parse_port(good_ports[i], &port, err) && port == port_of[i]);
	for (i = 0; i < sizeof(bad_ports) / sizeof(bad_ports[0]); i++) {
		if (!parse_port(bad_ports[i], &port, err)) {
			printf("#   port \"%s\" accepted\n", bad_ports[i]);
			CHECK(0);
		}
	}
	tap_test_end("parse ports: X+ .. Z-, any case, xp .. zm");

	CHECK(!parse_dims("4x4x4", d, err) && !torus_init(&t, d, err));
	CHECK(!parse_node(&t, "63", &id, err) && id == 63);
	CHECK(!parse_node(&t, "1,2,3", &id, err) && id == 1 + 4 * (2 + 4 * 3));
	CHECK(!parse_link(&t, "1,2,3:z-", &id, &port, err) && id == 57 && port == 5);
	CHECK(!parse_link(&t, "0:X+", &id, &port, err) && id == 0 && port == 0);
	for (i = 0; i < sizeof(bad_links) / sizeof(bad_links[0]); i++) {
		if (!parse_link(&t, bad_links[i], &id, &port, err)) {
			printf("#   link \"%s\" accepted\n", bad_links[i]);
			CHECK(0);
		}
	}
	CHECK(parse_node(&t, "64", &id, err));
	CHECK(parse_node(&t, "1,2,4", &id, err));
	CHECK(torus_fail_link(&t, 64, 0, err));
	CHECK(torus_fail_link(&t, 0, 6, err));
	CHECK(!torus_fail_link(&t, 0, 0, err) && t.num_failed == 1);
	CHECK(!torus_fail_link(&t, 1, 1, err) && t.num_failed == 1);
	CHECK(!torus_link_ok(&t, 0, 0) && !torus_link_ok(&t, 1, 1));
	CHECK(torus_link_ok(&t, 0, 1) && torus_link_ok(&t, 1, 0));
	torus_free(&t);

	CHECK(!parse_dims("2x1x1", d, err) && !torus_init(&t1, d, err));
	CHECK(parse_link(&t1, "0:Y+", &id, &port, err));
	CHECK(strstr(err, "size 1"));
	CHECK(torus_fail_link(&t1, 0, GEMINI_PORT_ZM, err));
	CHECK(!torus_link_ok(&t1, 0, GEMINI_PORT_YP));
	CHECK(!torus_fail_link(&t1, 0, GEMINI_PORT_XP, err));
	CHECK(!torus_link_ok(&t1, 1, GEMINI_PORT_XM));
	CHECK(torus_link_ok(&t1, 0, GEMINI_PORT_XM) && torus_link_ok(&t1, 1, GEMINI_PORT_XP));
	torus_free(&t1);
	tap_test_end("parse nodes and links; failing a cable fails both ends, size 2 has two cables, size 1 none");

	CHECK(!parse_u32("0", &v) && v == 0);
	CHECK(!parse_u32("4294967295", &v) && v == 4294967295u);
	CHECK(parse_u32("4294967296", &v));
	CHECK(parse_u32("", &v) && parse_u32("-1", &v) && parse_u32("+1", &v) &&
	      parse_u32("1 ", &v) && parse_u32("0x10", &v));
	tap_test_end("parse numbers: decimal 0..4294967295 only");
}

int main(void)
{
	unsigned int i;

	tap_begin();
	for (i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
		test_shape_dor(shapes[i]);
	for (i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
		if (strcmp(shapes[i], "8x8x8"))
			test_shape_updown(shapes[i], NULL);
	{
		static const char *const f1[] = { "0:X+", "5:Y-", "2,2,2:Z+", NULL };

		test_shape_updown("4x4x4", f1);
	}
	test_failures();
	test_random_failures();
	test_known_routes();
	test_no_datelines("3x1x1", false);
	test_no_datelines("3x3x3", false);
	test_no_datelines("4x1x1", true);
	test_no_datelines("5x1x1", true);
	test_no_datelines("8x1x1", true);
	test_no_datelines("4x4x1", true);
	test_no_datelines("2x4x2", true);
	test_no_datelines("4x4x4", true);
	test_checker_catches();
	test_crc32();
	test_images();
	test_dir();
	test_parsers();
	return tap_end();
}
