// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Computing routing tables.  Two algorithms, both deciding from
 * (router, input port, class, destination) only:
 *
 * - dimension order (DOR) with datelines: travel each dimension in turn,
 *   the shorter way round (the + way when both are equally short), class 0
 *   on entering a dimension and class 1 after crossing that dimension's
 *   dateline (the cable between coordinates k-1 and 0).  Around failed
 *   cables a packet goes the other way round a ring, if that way is clear.
 * - up/down routing (up*, then down*) over BFS levels: the fallback when no
 *   dimension order reaches every connected pair.
 *
 * plan_choose() tries DOR in each dimension order, keeps the first that the
 * checker passes, and otherwise falls back to up/down routing, which it
 * checks too.  See Documentation/routing.rst.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routes.h"

#define PORTS		GEMINI_NUM_TORUS_PORTS
#define ENTRY(port, vclass)	VGEMINI_ROUTE_ENTRY(port, vclass)
#define NO_ROUTE	ENTRY(VGEMINI_ROUTE_NONE, 0)
#define DELIVER		ENTRY(VGEMINI_ROUTE_OUT_NIC, 0)

static unsigned int plus_port(unsigned int dim)
{
	return dim * 2;
}

/* ---- dimension order ---------------------------------------------------- */

/* Leaving coordinate @c in direction @plus crosses the dateline. */
static bool leaves_over_dateline(unsigned int c, bool plus, unsigned int k)
{
	return plus ? c == k - 1 : c == 0;
}

/* Having arrived at coordinate @c travelling @plus crossed the dateline. */
static bool arrived_over_dateline(unsigned int c, bool plus, unsigned int k)
{
	return plus ? c == 0 : c == k - 1;
}

/* Hops from @from to @to going the + way (@plus) or the - way round. */
static unsigned int ring_hops(unsigned int from, unsigned int to, bool plus,
			      unsigned int k)
{
	return plus ? (to + k - from) % k : (from + k - to) % k;
}

static uint8_t dor_hop(const struct route_plan *p, unsigned int dim,
		       unsigned int c, bool plus, unsigned int vclass)
{
	unsigned int k = p->t->dims[dim];

	if (p->datelines && leaves_over_dateline(c, plus, k))
		vclass = 1;
	return ENTRY(plus_port(dim) + !plus, vclass);
}

/*
 * Enter dimension @dim at coordinate @c bound for @d: the shorter way,
 * the + way on a tie (distance exactly k/2); the other way if the shorter
 * one meets a failed cable; no route if both do.
 */
static uint8_t dor_turn(const struct route_plan *p, uint32_t node,
			unsigned int dim, unsigned int c, unsigned int d)
{
	unsigned int k = p->t->dims[dim];
	unsigned int dp = ring_hops(c, d, true, k), dm = k - dp;
	bool plus = dp <= dm;
	unsigned int i;

	for (i = 0; i < 2; i++, plus = !plus) {
		unsigned int port = plus_port(dim) + !plus;

		if (p->reach[node * PORTS + port] >= (plus ? dp : dm))
			return dor_hop(p, dim, c, plus, 0);
	}
	return NO_ROUTE;
}

static unsigned int order_index(const struct route_plan *p, unsigned int dim)
{
	unsigned int i;

	for (i = 0; i < 2; i++)
		if (p->order[i] == dim)
			break;
	return i;
}

/*
 * The DOR entry of router @node (coordinates @c) for a packet that came in
 * on @in_port in @vclass, bound for coordinates @d.  States no packet can
 * be in (class 1 from the NIC, a lower dimension not yet done, class 0
 * just over a dateline, a continuation that would meet a failed cable)
 * get "no route", so a misrouted packet is dropped and counted.
 */
static uint8_t dor_entry(const struct route_plan *p, uint32_t node,
			 const unsigned int c[3], unsigned int in_port,
			 unsigned int vclass, const unsigned int d[3])
{
	const struct torus *t = p->t;
	unsigned int i, first = 0;

	if (in_port == VGEMINI_ROUTE_IN_NIC) {
		if (vclass)
			return NO_ROUTE;
	} else {
		unsigned int dim = GEMINI_PORT_DIM(in_port);
		unsigned int k = t->dims[dim];
		/* In on X- means it came from x - 1: travelling the + way. */
		bool plus = GEMINI_PORT_IS_MINUS(in_port);

		if (!torus_link_ok(t, node, in_port))
			return NO_ROUTE;
		if (p->datelines ? !vclass && arrived_over_dateline(c[dim], plus, k)
				 : vclass)
			return NO_ROUTE;
		first = order_index(p, dim);
		for (i = 0; i < first; i++)
			if (c[p->order[i]] != d[p->order[i]])
				return NO_ROUTE;
		if (c[dim] != d[dim]) {
			unsigned int out = plus_port(dim) + !plus;

			if (p->reach[node * PORTS + out] <
			    ring_hops(c[dim], d[dim], plus, k))
				return NO_ROUTE;
			return dor_hop(p, dim, c[dim], plus, vclass);
		}
		first++;
	}
	for (i = first; i < 3; i++) {
		unsigned int dim = p->order[i];

		if (c[dim] != d[dim])
			return dor_turn(p, node, dim, c[dim], d[dim]);
	}
	return DELIVER;
}

/* How far a packet can go straight on out of each port. */
static void dor_compute_reach(struct route_plan *p)
{
	const struct torus *t = p->t;
	uint32_t node, v;
	unsigned int port, hops, k;

	for (node = 0; node < t->num_nodes; node++) {
		for (port = 0; port < PORTS; port++) {
			k = t->dims[GEMINI_PORT_DIM(port)];
			v = node;
			for (hops = 0; hops < k - 1; hops++) {
				if (!torus_link_ok(t, v, port))
					break;
				v = torus_neighbour(t, v, port);
			}
			p->reach[node * PORTS + port] = (uint8_t)hops;
		}
	}
}

int plan_dor(struct route_plan *p, const struct torus *t,
	     const unsigned int order[3], bool datelines, char *err)
{
	unsigned int i, seen = 0;

	memset(p, 0, sizeof(*p));
	for (i = 0; i < 3; i++) {
		if (order[i] > 2 || seen & 1u << order[i]) {
			routes_err(err, "bad dimension order");
			return -1;
		}
		seen |= 1u << order[i];
		p->order[i] = order[i];
	}
	p->t = t;
	p->algo = ROUTE_DOR;
	p->datelines = datelines;
	p->reach = malloc((size_t)t->num_nodes * PORTS);
	if (!p->reach) {
		routes_err(err, "out of memory");
		return -1;
	}
	dor_compute_reach(p);
	return 0;
}

/* ---- up/down routing ------------------------------------------------------ */

/*
 * Every cable is "up" in one direction: towards the node with the lower
 * (BFS level, id).  A legal path goes up zero or more times, then down
 * zero or more times; the class records the phase (0: may still go up,
 * 1: has gone down).
 */
static bool is_up(const struct route_plan *p, uint32_t from, uint32_t to)
{
	return p->level[to] < p->level[from] ||
	       (p->level[to] == p->level[from] && to < from);
}

/* BFS from the smallest id of each component, over usable cables. */
static void updown_levels(struct route_plan *p, uint32_t *queue)
{
	const struct torus *t = p->t;
	uint32_t root, head, tail, u, v;
	unsigned int port;

	for (u = 0; u < t->num_nodes; u++)
		p->level[u] = UINT32_MAX;
	for (root = 0; root < t->num_nodes; root++) {
		if (p->level[root] != UINT32_MAX)
			continue;
		p->level[root] = 0;
		head = 0;
		tail = 0;
		queue[tail++] = root;
		while (head < tail) {
			u = queue[head++];
			for (port = 0; port < PORTS; port++) {
				if (!torus_link_ok(t, u, port))
					continue;
				v = torus_neighbour(t, u, port);
				if (p->level[v] == UINT32_MAX) {
					p->level[v] = p->level[u] + 1;
					queue[tail++] = v;
				}
			}
		}
	}
}

/*
 * Shortest legal paths to @dest: BFS backwards over states (node, phase),
 * then each state's next port is its lowest port one step closer.
 */
static void updown_dest(struct route_plan *p, uint32_t dest, uint32_t *dist,
			uint32_t *queue)
{
	const struct torus *t = p->t;
	uint32_t n2 = t->num_nodes * 2, head = 0, tail = 0, s, w, u, nb;
	uint8_t *next = p->next + (size_t)dest * n2;
	unsigned int port, ph, pw;

	for (s = 0; s < n2; s++)
		dist[s] = UINT32_MAX;
	dist[dest * 2] = dist[dest * 2 + 1] = 0;
	queue[tail++] = dest * 2;
	queue[tail++] = dest * 2 + 1;
	while (head < tail) {
		s = queue[head++];
		w = s / 2;
		pw = s % 2;
		for (port = 0; port < PORTS; port++) {
			if (!torus_link_ok(t, w, port))
				continue;
			u = torus_neighbour(t, w, port);
			/* u -> w up keeps phase 0; down ends in phase 1. */
			if (is_up(p, u, w) != (pw == 0))
				continue;
			for (ph = 0; ph <= pw; ph++) {
				if (dist[u * 2 + ph] != UINT32_MAX)
					continue;
				dist[u * 2 + ph] = dist[s] + 1;
				queue[tail++] = u * 2 + ph;
			}
		}
	}
	for (s = 0; s < n2; s++) {
		u = s / 2;
		ph = s % 2;
		next[s] = VGEMINI_ROUTE_NONE;
		if (u == dest) {
			next[s] = VGEMINI_ROUTE_OUT_NIC;
			continue;
		}
		if (dist[s] == UINT32_MAX)
			continue;
		for (port = 0; port < PORTS; port++) {
			if (!torus_link_ok(t, u, port))
				continue;
			nb = torus_neighbour(t, u, port);
			pw = !is_up(p, u, nb);
			if (ph > pw)
				continue;	/* no going up after down */
			if (dist[nb * 2 + pw] + 1 == dist[s]) {
				next[s] = (uint8_t)port;
				break;
			}
		}
	}
}

int plan_updown(struct route_plan *p, const struct torus *t, char *err)
{
	uint64_t bytes = 2ull * t->num_nodes * t->num_nodes;
	uint32_t *dist = NULL, *queue = NULL, dest;

	memset(p, 0, sizeof(*p));
	p->t = t;
	p->algo = ROUTE_UPDOWN;
	if (bytes > SIZE_MAX)
		goto nomem;
	p->level = malloc(sizeof(*p->level) * t->num_nodes);
	p->next = malloc((size_t)bytes);
	dist = malloc(sizeof(*dist) * 2 * t->num_nodes);
	queue = malloc(sizeof(*queue) * 2 * t->num_nodes);
	if (!p->level || !p->next || !dist || !queue)
		goto nomem;
	updown_levels(p, queue);
	for (dest = 0; dest < t->num_nodes; dest++)
		updown_dest(p, dest, dist, queue);
	free(dist);
	free(queue);
	return 0;
nomem:
	free(dist);
	free(queue);
	plan_free(p);
	routes_err(err, "out of memory: up/down routing of %u nodes needs %llu MiB",
		   t->num_nodes, (unsigned long long)(bytes >> 20) + 1);
	return -1;
}

static uint8_t updown_entry(const struct route_plan *p, uint32_t node,
			    unsigned int in_port, unsigned int vclass,
			    uint32_t dest)
{
	const struct torus *t = p->t;
	uint32_t n = t->num_nodes;
	uint8_t port;

	if (in_port == VGEMINI_ROUTE_IN_NIC) {
		if (vclass)
			return NO_ROUTE;
	} else {
		if (!torus_link_ok(t, node, in_port))
			return NO_ROUTE;
		/* Came up in class 0 or down in class 1; nothing else. */
		if (is_up(p, torus_neighbour(t, node, in_port), node) == vclass)
			return NO_ROUTE;
	}
	if (node == dest)
		return DELIVER;
	port = p->next[((size_t)dest * n + node) * 2 + vclass];
	if (port >= PORTS)
		return NO_ROUTE;
	return ENTRY(port, !is_up(p, node, torus_neighbour(t, node, port)));
}

/* ---- both ---------------------------------------------------------------- */

void plan_free(struct route_plan *p)
{
	free(p->reach);
	free(p->level);
	free(p->next);
	p->reach = NULL;
	p->level = NULL;
	p->next = NULL;
}

/* route_lookup_fn over a plan: the entry router @node's table would hold. */
uint8_t plan_entry(const void *plan, uint32_t node, unsigned int in_port,
		   unsigned int vclass, uint32_t dest)
{
	const struct route_plan *p = plan;
	unsigned int c[3], d[3];

	if (p->algo == ROUTE_UPDOWN)
		return updown_entry(p, node, in_port, vclass, dest);
	torus_coords(p->t, node, c);
	torus_coords(p->t, dest, d);
	return dor_entry(p, node, c, in_port, vclass, d);
}

/* Fill router @node's ROUTES_STATES * N entries, in image order. */
void plan_fill(const struct route_plan *p, uint32_t node, uint8_t *entries)
{
	const struct torus *t = p->t;
	unsigned int row, c[3], d[3];
	uint32_t dest;

	torus_coords(t, node, c);
	for (row = 0; row < ROUTES_STATES; row++) {
		unsigned int in_port = row / VGEMINI_ROUTE_CLASSES;
		unsigned int vclass = row % VGEMINI_ROUTE_CLASSES;
		uint8_t *out = entries + (size_t)row * t->num_nodes;

		if (p->algo == ROUTE_UPDOWN) {
			for (dest = 0; dest < t->num_nodes; dest++)
				out[dest] = updown_entry(p, node, in_port,
							 vclass, dest);
			continue;
		}
		dest = 0;
		for (d[2] = 0; d[2] < t->dims[2]; d[2]++)
			for (d[1] = 0; d[1] < t->dims[1]; d[1]++)
				for (d[0] = 0; d[0] < t->dims[0]; d[0]++)
					out[dest++] = dor_entry(p, node, c,
								in_port, vclass,
								d);
	}
}

const char *plan_name(const struct route_plan *p, char *buf, size_t len)
{
	if (p->algo == ROUTE_UPDOWN)
		snprintf(buf, len, "up/down routing (failed links break every dimension order)");
	else
		snprintf(buf, len, "dimension order %c%c%c%s",
			 "XYZ"[p->order[0]], "XYZ"[p->order[1]],
			 "XYZ"[p->order[2]],
			 p->datelines ? " with datelines" : " WITHOUT datelines");
	return buf;
}

/*
 * Choose how to route @t and check it: dimension order XYZ, then the other
 * orders, each accepted only if the checker finds every connected pair
 * delivered, no loop, no failed cable used, no dependency cycle (and
 * minimal paths when no cable failed); otherwise up/down routing.  On
 * success @res holds the full check of the chosen plan.  Fails (-1) only
 * when out of memory or when no plan is sound, which would be a bug.
 */
int plan_choose(struct route_plan *p, const struct torus *t,
		struct check_result *res, char *err)
{
	static const unsigned int orders[6][3] = {
		{ 0, 1, 2 }, { 0, 2, 1 }, { 1, 0, 2 },
		{ 1, 2, 0 }, { 2, 0, 1 }, { 2, 1, 0 },
	};
	unsigned int flags = t->num_failed ? 0 : CHECK_MINIMAL;
	char name[ROUTES_ERR_LEN];
	unsigned int i;

	for (i = 0; i < 6; i++) {
		if (plan_dor(p, t, orders[i], true, err))
			return -1;
		if (route_check(t, plan_entry, p, flags | CHECK_FIRST, res, err)) {
			plan_free(p);
			return -1;
		}
		if (check_sound(res, flags))
			return 0;	/* not stopped early: the full result */
		plan_free(p);
	}
	if (plan_updown(p, t, err))
		return -1;
	if (route_check(t, plan_entry, p, flags, res, err)) {
		plan_free(p);
		return -1;
	}
	if (check_sound(res, flags))
		return 0;
	routes_err(err, "internal error: %s fails its check: %s%s",
		   plan_name(p, name, sizeof(name)),
		   res->problem[0] ? res->problem : "", res->cycle);
	plan_free(p);
	return -1;
}
