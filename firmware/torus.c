// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The torus: node ids and coordinates, neighbours, failed cables,
 * distances and connected components; and the parsers of the values the
 * vgemini-routes command line takes (dims, nodes, ports, numbers).
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routes.h"
#include "vgemini_names.h"

void routes_err(char *err, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return;
	va_start(ap, fmt);
	vsnprintf(err, ROUTES_ERR_LEN, fmt, ap);
	va_end(ap);
}

int torus_init(struct torus *t, const unsigned int dims[3], char *err)
{
	uint64_t n = 1;
	unsigned int i, port;
	uint32_t id;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < 3; i++) {
		if (dims[i] < 1 || dims[i] > ROUTES_MAX_DIM) {
			routes_err(err, "dimension %c is %u: each must be 1..%u",
				   "XYZ"[i], dims[i], ROUTES_MAX_DIM);
			return -1;
		}
		n *= dims[i];
	}
	if (n > GEMINI_MAX_NODES) {
		routes_err(err, "%ux%ux%u is %llu nodes: at most %u",
			   dims[0], dims[1], dims[2], (unsigned long long)n,
			   GEMINI_MAX_NODES);
		return -1;
	}
	t->link_ok = malloc(n * GEMINI_NUM_TORUS_PORTS);
	if (!t->link_ok) {
		routes_err(err, "out of memory");
		return -1;
	}
	memcpy(t->dims, dims, sizeof(t->dims));
	t->num_nodes = (uint32_t)n;
	/* A dimension of size 1 cables X+ to the node's own X-: never used. */
	for (id = 0; id < t->num_nodes; id++)
		for (port = 0; port < GEMINI_NUM_TORUS_PORTS; port++)
			t->link_ok[id * GEMINI_NUM_TORUS_PORTS + port] =
				t->dims[GEMINI_PORT_DIM(port)] > 1;
	return 0;
}

void torus_free(struct torus *t)
{
	free(t->link_ok);
	t->link_ok = NULL;
}

void torus_coords(const struct torus *t, uint32_t id, unsigned int c[3])
{
	c[0] = id % t->dims[0];
	id /= t->dims[0];
	c[1] = id % t->dims[1];
	c[2] = id / t->dims[1];
}

uint32_t torus_id(const struct torus *t, const unsigned int c[3])
{
	return c[0] + t->dims[0] * (c[1] + t->dims[1] * c[2]);
}

/* The node at the far end of the cable on @port (X+ of x reaches x + 1). */
uint32_t torus_neighbour(const struct torus *t, uint32_t id, unsigned int port)
{
	unsigned int c[3], dim = GEMINI_PORT_DIM(port), k = t->dims[dim];

	torus_coords(t, id, c);
	if (GEMINI_PORT_IS_MINUS(port))
		c[dim] = (c[dim] + k - 1) % k;
	else
		c[dim] = (c[dim] + 1) % k;
	return torus_id(t, c);
}

bool torus_link_ok(const struct torus *t, uint32_t id, unsigned int port)
{
	return t->link_ok[id * GEMINI_NUM_TORUS_PORTS + port];
}

/*
 * Fail the cable on @port of @id, at both ends: X+ of a node and X- of its
 * X+ neighbour are the two ends of one cable (in a dimension of size 2 the
 * node's X- is another cable to the same neighbour).
 */
int torus_fail_link(struct torus *t, uint32_t id, unsigned int port,
		    char *err)
{
	uint32_t far;

	if (id >= t->num_nodes || port >= GEMINI_NUM_TORUS_PORTS) {
		routes_err(err, "no link %u:%u in a torus of %u nodes",
			   id, port, t->num_nodes);
		return -1;
	}
	if (t->dims[GEMINI_PORT_DIM(port)] == 1) {
		routes_err(err, "node %u: port %s is in a dimension of size 1: it has no link to fail",
			   id, port_name(port));
		return -1;
	}
	if (!torus_link_ok(t, id, port))
		return 0;	/* named twice, maybe by its other end */
	far = torus_neighbour(t, id, port);
	t->link_ok[id * GEMINI_NUM_TORUS_PORTS + port] = 0;
	t->link_ok[far * GEMINI_NUM_TORUS_PORTS + (port ^ 1)] = 0;
	t->num_failed++;
	return 0;
}

unsigned int torus_distance(const struct torus *t, uint32_t a, uint32_t b)
{
	unsigned int ca[3], cb[3], i, d, sum = 0;

	torus_coords(t, a, ca);
	torus_coords(t, b, cb);
	for (i = 0; i < 3; i++) {
		d = (cb[i] + t->dims[i] - ca[i]) % t->dims[i];
		sum += d < t->dims[i] - d ? d : t->dims[i] - d;
	}
	return sum;
}

unsigned int torus_diameter(const struct torus *t)
{
	return t->dims[0] / 2 + t->dims[1] / 2 + t->dims[2] / 2;
}

/*
 * Connected components of the usable cables: returns comp[node] (the
 * smallest id in the node's component; free() it) and their number, or
 * NULL when out of memory.
 */
uint32_t *torus_components(const struct torus *t, uint32_t *num_comp)
{
	uint32_t *comp, *queue, id, head, tail, u, v;
	unsigned int port;

	comp = malloc(sizeof(*comp) * t->num_nodes);
	queue = malloc(sizeof(*queue) * t->num_nodes);
	if (!comp || !queue) {
		free(comp);
		free(queue);
		return NULL;
	}
	for (id = 0; id < t->num_nodes; id++)
		comp[id] = UINT32_MAX;
	*num_comp = 0;
	for (id = 0; id < t->num_nodes; id++) {
		if (comp[id] != UINT32_MAX)
			continue;
		(*num_comp)++;
		comp[id] = id;
		head = 0;
		tail = 0;
		queue[tail++] = id;
		while (head < tail) {
			u = queue[head++];
			for (port = 0; port < GEMINI_NUM_TORUS_PORTS; port++) {
				if (!torus_link_ok(t, u, port))
					continue;
				v = torus_neighbour(t, u, port);
				if (comp[v] == UINT32_MAX) {
					comp[v] = id;
					queue[tail++] = v;
				}
			}
		}
	}
	free(queue);
	return comp;
}

const char *port_name(unsigned int port)
{
	static const char *const names[] = {
		VGEMINI_PORT_LIST(VGEMINI_PORT_LABEL_INIT)
		[VGEMINI_ROUTE_OUT_NIC] = "local",
		[VGEMINI_ROUTE_NONE] = "none",
	};

	return port < sizeof(names) / sizeof(names[0]) ? names[port] : "?";
}

/* Strict decimal: digits only, no sign or spaces, at most UINT32_MAX. */
int parse_u32(const char *s, uint32_t *val)
{
	uint64_t v = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
		if (v > UINT32_MAX)
			return -1;
	}
	*val = (uint32_t)v;
	return 0;
}

/* Split @s at each @sep into at most @max decimal numbers. */
static int parse_list(const char *s, const char *seps, uint32_t *vals,
		      unsigned int max)
{
	char buf[64], *p, *start;
	unsigned int n = 0;

	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	start = buf;
	for (p = buf;; p++) {
		bool end = *p == '\0';

		if (!end && !strchr(seps, *p))
			continue;
		*p = '\0';
		if (n == max || parse_u32(start, &vals[n]))
			return -1;
		n++;
		if (end)
			return (int)n;
		start = p + 1;
	}
}

int parse_dims(const char *s, unsigned int dims[3], char *err)
{
	uint32_t v[3];
	uint64_t n;
	unsigned int i;

	if (parse_list(s, "xX", v, 3) != 3) {
		routes_err(err, "dims \"%s\": expected XxYxZ, e.g. 4x4x2", s);
		return -1;
	}
	for (i = 0; i < 3; i++) {
		if (v[i] < 1 || v[i] > ROUTES_MAX_DIM) {
			routes_err(err, "dims \"%s\": each dimension must be 1..%u",
				   s, ROUTES_MAX_DIM);
			return -1;
		}
	}
	n = (uint64_t)v[0] * v[1] * v[2];
	if (n > GEMINI_MAX_NODES) {
		routes_err(err, "dims \"%s\": %llu nodes, at most %u", s,
			   (unsigned long long)n, GEMINI_MAX_NODES);
		return -1;
	}
	for (i = 0; i < 3; i++)
		dims[i] = v[i];
	return 0;
}

/* Whether @s is @name but for the case of letters. */
static bool same_name(const char *s, const char *name)
{
	for (; *s && *name; s++, name++)
		if (tolower((unsigned char)*s) != tolower((unsigned char)*name))
			return false;
	return !*s && !*name;
}

/* X+ X- Y+ Y- Z+ Z-, any case, or xp xm yp ym zp zm (vgemini_names.h). */
int parse_port(const char *s, unsigned int *port, char *err)
{
#define PORT_NAMES(id, label, sname)	[GEMINI_PORT_##id] = { label, sname },
	static const char *const names[GEMINI_NUM_TORUS_PORTS][2] = {
		VGEMINI_PORT_LIST(PORT_NAMES)
	};
#undef PORT_NAMES
	unsigned int p;

	for (p = 0; p < GEMINI_NUM_TORUS_PORTS; p++) {
		if (same_name(s, names[p][0]) || same_name(s, names[p][1])) {
			*port = p;
			return 0;
		}
	}
	routes_err(err, "port \"%s\": expected one of X+ X- Y+ Y- Z+ Z- (or xp xm yp ym zp zm)",
		   s);
	return -1;
}

/* A Gemini id, or "x,y,z". */
int parse_node(const struct torus *t, const char *s, uint32_t *id, char *err)
{
	uint32_t v[3];
	unsigned int c[3], i;

	if (!strchr(s, ',')) {
		if (parse_u32(s, &v[0]) || v[0] >= t->num_nodes) {
			routes_err(err, "node \"%s\": expected a Gemini id 0..%u or x,y,z",
				   s, t->num_nodes - 1);
			return -1;
		}
		*id = v[0];
		return 0;
	}
	if (parse_list(s, ",", v, 3) != 3) {
		routes_err(err, "node \"%s\": expected x,y,z", s);
		return -1;
	}
	for (i = 0; i < 3; i++) {
		if (v[i] >= t->dims[i]) {
			routes_err(err, "node \"%s\": %c must be 0..%u", s,
				   "xyz"[i], t->dims[i] - 1);
			return -1;
		}
		c[i] = v[i];
	}
	*id = torus_id(t, c);
	return 0;
}

/* NODE:PORT; a port of a dimension of size 1 has no cable to name. */
int parse_link(const struct torus *t, const char *s, uint32_t *id,
	       unsigned int *port, char *err)
{
	const char *colon = strrchr(s, ':');
	char node[64];
	size_t len;

	if (!colon) {
		routes_err(err, "link \"%s\": expected NODE:PORT, e.g. 3:X+ or 1,2,0:Y-", s);
		return -1;
	}
	len = (size_t)(colon - s);
	if (len >= sizeof(node)) {
		routes_err(err, "link \"%s\": node too long", s);
		return -1;
	}
	memcpy(node, s, len);
	node[len] = '\0';
	if (parse_node(t, node, id, err) || parse_port(colon + 1, port, err))
		return -1;
	if (t->dims[GEMINI_PORT_DIM(*port)] == 1) {
		routes_err(err, "link \"%s\": dimension %c has size 1: port %s has no link",
			   s, "XYZ"[GEMINI_PORT_DIM(*port)], port_name(*port));
		return -1;
	}
	return 0;
}
