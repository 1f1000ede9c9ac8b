// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The checker: whatever computed a set of routing tables, simulate every
 * source-destination pair through them exactly as the routers would, and
 * prove the result sound: every packet is delivered to its destination
 * (or dropped by a "no route" entry only when the surviving cables do not
 * connect the pair), never loops, never uses a failed cable or the self
 * cable of a dimension of size 1, and the channel dependency graph over
 * (directed cable, class) channels has no cycle, so bounded buffers cannot
 * deadlock.  The tables are only ever seen through a route_lookup_fn.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routes.h"

#define PORTS		GEMINI_NUM_TORUS_PORTS

/* A packet's fate from some router state: >= 0 is hops to delivery. */
enum {
	FATE_NEXT = -1,		/* (step) moved on to another state */
	FATE_ON_PATH = -2,	/* (walk) being followed right now */
	FATE_DROP = -3,		/* "no route" entry */
	FATE_LOOP = -4,
	FATE_WRONG = -5,	/* delivered to another node */
	FATE_DEAD = -6,		/* sent onto an unusable cable */
	FATE_RESERVED = -7,	/* entry with reserved bits */
};

struct walker {
	const struct torus *t;
	route_lookup_fn *fn;
	const void *ctx;
	unsigned int flags;
	struct check_result *res;
	uint32_t *comp;		/* [node]: connected component */
	uint32_t *stamp;	/* [state]: dest + 1 once visited for dest */
	int32_t *fate;		/* [state]: valid when stamp is current */
	uint32_t *stack;	/* states on the path being followed */
	uint16_t *deps;		/* [channel]: bit per successor channel */
	uint8_t *used;		/* [channel]: some packet occupies it */
};

static uint32_t state_of(uint32_t node, unsigned int in_port,
			 unsigned int vclass)
{
	return node * ROUTES_STATES + in_port * VGEMINI_ROUTE_CLASSES + vclass;
}

static uint32_t channel_of(uint32_t node, unsigned int port,
			   unsigned int vclass)
{
	return node * ROUTES_CHANNELS + port * VGEMINI_ROUTE_CLASSES + vclass;
}

static void problem(struct walker *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void problem(struct walker *w, const char *fmt, ...)
{
	va_list ap;

	if (w->res->problem[0])
		return;
	va_start(ap, fmt);
	vsnprintf(w->res->problem, sizeof(w->res->problem), fmt, ap);
	va_end(ap);
}

/* One router's decision for state @s; FATE_NEXT with *@next, or a fate. */
static int32_t step(struct walker *w, uint32_t s, uint32_t src, uint32_t dest,
		    uint32_t *next)
{
	const struct torus *t = w->t;
	uint32_t node = s / ROUTES_STATES, far;
	unsigned int in = s % ROUTES_STATES / VGEMINI_ROUTE_CLASSES;
	unsigned int vclass = s % VGEMINI_ROUTE_CLASSES;
	uint8_t e = w->fn(w->ctx, node, in, vclass, dest);
	unsigned int port = e & VGEMINI_ROUTE_PORT_MASK;
	unsigned int out_class = !!(e & VGEMINI_ROUTE_CLASS_BIT);

	if (e & VGEMINI_ROUTE_RESERVED_MASK) {
		problem(w, "router %u, in %s class %u, dest %u: entry 0x%02x has reserved bits set",
			node, port_name(in), vclass, dest, e);
		return FATE_RESERVED;
	}
	if (port == VGEMINI_ROUTE_NONE)
		return FATE_DROP;
	if (port == VGEMINI_ROUTE_OUT_NIC) {
		if (node == dest)
			return 0;
		problem(w, "packet %u->%u delivered to node %u's NIC", src,
			dest, node);
		return FATE_WRONG;
	}
	if (!torus_link_ok(t, node, port)) {
		problem(w, "packet %u->%u sent out of router %u's %s, %s",
			src, dest, node, port_name(port),
			t->dims[GEMINI_PORT_DIM(port)] == 1 ?
			"the self cable of a dimension of size 1" :
			"a failed link");
		return FATE_DEAD;
	}
	if (in < PORTS) {
		far = torus_neighbour(t, node, in);
		w->deps[channel_of(far, in ^ 1, vclass)] |=
			(uint16_t)(1u << (port * VGEMINI_ROUTE_CLASSES + out_class));
	}
	w->used[channel_of(node, port, out_class)] = 1;
	*next = state_of(torus_neighbour(t, node, port), port ^ 1, out_class);
	return FATE_NEXT;
}

/*
 * Follow a packet from @src's NIC towards @dest, reusing what earlier
 * packets to @dest found (each router state is decided once per dest).
 */
static int32_t walk(struct walker *w, uint32_t src, uint32_t dest)
{
	uint32_t stamp = dest + 1, s = state_of(src, VGEMINI_ROUTE_IN_NIC, 0);
	uint32_t sp = 0;
	int32_t fate;

	for (;;) {
		if (w->stamp[s] == stamp) {
			fate = w->fate[s];
			if (fate == FATE_ON_PATH) {
				problem(w, "packet %u->%u loops (router %u, in %s class %u)",
					src, dest, s / ROUTES_STATES,
					port_name(s % ROUTES_STATES / 2),
					s % 2);
				fate = FATE_LOOP;
			}
			break;
		}
		w->stamp[s] = stamp;
		w->fate[s] = FATE_ON_PATH;
		w->stack[sp++] = s;
		fate = step(w, s, src, dest, &s);
		if (fate != FATE_NEXT) {
			w->fate[w->stack[--sp]] = fate;
			break;
		}
	}
	while (sp) {
		if (fate >= 0)
			fate++;
		w->fate[w->stack[--sp]] = fate;
	}
	return fate;
}

static void list_unreachable(struct check_result *res, uint32_t src,
			     uint32_t dest)
{
	if (res->num_listed == CHECK_LISTED)
		return;
	res->listed[res->num_listed][0] = src;
	res->listed[res->num_listed][1] = dest;
	res->num_listed++;
}

/* Count one pair's fate; false if it is a problem. */
static bool account(struct walker *w, uint32_t src, uint32_t dest,
		    int32_t fate)
{
	struct check_result *res = w->res;
	unsigned int dist;

	res->pairs++;
	switch (fate) {
	case FATE_DROP:
		res->unreachable++;
		list_unreachable(res, src, dest);
		if (w->comp[src] != w->comp[dest])
			return true;
		res->unreachable_connected++;
		return false;
	case FATE_LOOP:
		res->loops++;
		return false;
	case FATE_WRONG:
		res->misdelivered++;
		return false;
	case FATE_DEAD:
		res->dead_link++;
		return false;
	case FATE_RESERVED:
		res->bad_entry++;
		return false;
	}
	res->delivered++;
	if ((unsigned int)fate > res->max_hops)
		res->max_hops = (unsigned int)fate;
	dist = torus_distance(w->t, src, dest);
	if ((unsigned int)fate == dist)
		return true;
	res->nonminimal++;
	if (!(w->flags & CHECK_MINIMAL))
		return true;
	problem(w, "packet %u->%u takes %d hops, the torus distance is %u",
		src, dest, fate, dist);
	return false;
}

static void describe_cycle(struct walker *w, const uint32_t *chans,
			   uint32_t len)
{
	char *buf = w->res->cycle;
	size_t size = sizeof(w->res->cycle), pos;
	uint32_t i, ch;
	int n;

	n = snprintf(buf, size, "dependency cycle of %u channels: ", len);
	pos = n > 0 ? (size_t)n : 0;
	for (i = 0; i <= len && pos < size; i++) {
		ch = chans[i % len];
		n = snprintf(buf + pos, size - pos, "%s%u %s c%u",
			     i ? " -> " : "", ch / ROUTES_CHANNELS,
			     port_name(ch % ROUTES_CHANNELS / 2), ch % 2);
		if (n < 0)
			break;
		pos += (size_t)n;
	}
	if (pos >= size && size > 4)
		strcpy(buf + size - 4, "...");
}

/*
 * Depth-first search of the dependency graph: *@cyclic tells whether it
 * has a cycle (described in res->cycle).  -1 when out of memory.
 */
static int find_cycle(struct walker *w, bool *cyclic)
{
	uint32_t nch = w->t->num_nodes * ROUTES_CHANNELS, root, sp, top, succ, i;
	uint8_t *color = calloc(nch, 1), *bit = malloc(nch);
	uint32_t *stk = malloc(sizeof(*stk) * nch);
	bool ok = color && bit && stk;
	unsigned int b;

	*cyclic = false;
	if (!ok)
		goto out;
	for (root = 0; root < nch && !*cyclic; root++) {
		if (color[root])
			continue;
		sp = 0;
		stk[sp] = root;
		bit[sp++] = 0;
		color[root] = 1;
		while (sp && !*cyclic) {
			top = stk[sp - 1];
			b = bit[sp - 1];
			while (b < ROUTES_CHANNELS && !(w->deps[top] & 1u << b))
				b++;
			if (b == ROUTES_CHANNELS) {
				color[top] = 2;
				sp--;
				continue;
			}
			bit[sp - 1] = (uint8_t)(b + 1);
			succ = torus_neighbour(w->t, top / ROUTES_CHANNELS,
					       top % ROUTES_CHANNELS / 2) *
			       ROUTES_CHANNELS + b;
			if (color[succ] == 1) {
				for (i = sp; stk[i - 1] != succ; i--)
					;
				describe_cycle(w, stk + i - 1, sp - i + 1);
				*cyclic = true;
			} else if (!color[succ]) {
				color[succ] = 1;
				stk[sp] = succ;
				bit[sp++] = 0;
			}
		}
	}
out:
	free(color);
	free(bit);
	free(stk);
	return ok ? 0 : -1;
}

static void walker_free(struct walker *w)
{
	free(w->comp);
	free(w->stamp);
	free(w->fate);
	free(w->stack);
	free(w->deps);
	free(w->used);
}

static int walker_init(struct walker *w, const struct torus *t)
{
	size_t states = (size_t)t->num_nodes * ROUTES_STATES;
	size_t chans = (size_t)t->num_nodes * ROUTES_CHANNELS;
	uint32_t num_comp;

	w->comp = torus_components(t, &num_comp);
	w->stamp = calloc(states, sizeof(*w->stamp));
	w->fate = malloc(states * sizeof(*w->fate));
	w->stack = malloc((states + 1) * sizeof(*w->stack));
	w->deps = calloc(chans, sizeof(*w->deps));
	w->used = calloc(chans, 1);
	if (w->comp && w->stamp && w->fate && w->stack && w->deps && w->used)
		return 0;
	walker_free(w);
	return -1;
}

/*
 * Simulate every pair of @t through the tables @fn(@ctx, ...) shows and
 * fill @res.  With CHECK_FIRST, stop at the first problem (res->stopped).
 * Returns -1 only when out of memory.
 */
int route_check(const struct torus *t, route_lookup_fn *fn, const void *ctx,
		unsigned int flags, struct check_result *res, char *err)
{
	struct walker w = {
		.t = t, .fn = fn, .ctx = ctx, .flags = flags, .res = res,
	};
	uint32_t src, dest;
	size_t ch;

	memset(res, 0, sizeof(*res));
	if (walker_init(&w, t))
		goto nomem;
	for (dest = 0; dest < t->num_nodes; dest++) {
		for (src = 0; src < t->num_nodes; src++) {
			if (account(&w, src, dest, walk(&w, src, dest)) ||
			    !(flags & CHECK_FIRST))
				continue;
			res->stopped = true;
			goto out;
		}
	}
	for (ch = 0; ch < (size_t)t->num_nodes * ROUTES_CHANNELS; ch++)
		res->channels_used += w.used[ch];
	if (find_cycle(&w, &res->cyclic))
		goto nomem;
out:
	walker_free(&w);
	return 0;
nomem:
	walker_free(&w);
	routes_err(err, "out of memory checking %u nodes", t->num_nodes);
	return -1;
}

/* Sound: nothing a router could deadlock, lose or misdeliver. */
bool check_sound(const struct check_result *res, unsigned int flags)
{
	if (res->cyclic || res->loops || res->misdelivered || res->dead_link ||
	    res->bad_entry || res->unreachable_connected)
		return false;
	return !(flags & CHECK_MINIMAL) || !res->nonminimal;
}

/*
 * Check every entry of router @node's table, reachable or not: no reserved
 * bits, and no torus port whose cable is failed or a size-1 self cable.
 */
int table_check(const struct torus *t, uint32_t node, const uint8_t *entries,
		char *err)
{
	size_t i, num = (size_t)VGEMINI_ROUTE_ENTRIES(t->num_nodes), bad = 0;
	size_t first = 0;
	unsigned int port;

	for (i = 0; i < num; i++) {
		port = entries[i] & VGEMINI_ROUTE_PORT_MASK;
		if (!(entries[i] & VGEMINI_ROUTE_RESERVED_MASK) &&
		    (port >= PORTS || torus_link_ok(t, node, port)))
			continue;
		if (!bad++)
			first = i;
	}
	if (!bad)
		return 0;
	i = first / t->num_nodes;
	routes_err(err, "router %u: %zu bad entries; first: in %s class %zu dest %zu is 0x%02x (%s)",
		   node, bad, port_name((unsigned int)(i / 2)), i % 2,
		   first % t->num_nodes, entries[first],
		   entries[first] & VGEMINI_ROUTE_RESERVED_MASK ?
		   "reserved bits set" :
		   t->dims[GEMINI_PORT_DIM(entries[first] & 7)] == 1 ?
		   "self cable of a dimension of size 1" : "failed link");
	return -1;
}
