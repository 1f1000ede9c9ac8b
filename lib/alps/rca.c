// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * librca: rca_lib.h's calls, from the torus' size that kgni shows in
 * /sys/class/gni/kgni0/dims ("X Y Z").  Gemini id n sits at
 * (n % X, n / X % Y, n / (X * Y)), as the launcher numbers the nodes.
 * VGEMINI_RCA_SYSFS names another directory to read "dims" from (the
 * host tests).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "rca_lib.h"

#define RCA_EXPORT __attribute__((visibility("default")))
#define RCA_SYSFS "/sys/class/gni/kgni0"
/* A Gemini id is 16 bits: no torus is larger */
#define RCA_MAX_NODES 65536ul

/* The torus' size into @d; 0, or -1 with errno. */
static int dims(unsigned long d[3])
{
	const char *dir = getenv("VGEMINI_RCA_SYSFS");
	char path[4096], extra;
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "%s/dims", dir && *dir ? dir : RCA_SYSFS);
	f = fopen(path, "re");
	if (!f) {
		errno = ENODEV;
		return -1;
	}
	n = fscanf(f, "%lu %lu %lu %c", &d[0], &d[1], &d[2], &extra);
	fclose(f);
	if (n != 3 || !d[0] || !d[1] || !d[2] || d[0] > RCA_MAX_NODES ||
	    d[1] > RCA_MAX_NODES || d[2] > RCA_MAX_NODES ||
	    d[0] * d[1] * d[2] > RCA_MAX_NODES) {
		errno = EIO;
		return -1;
	}
	return 0;
}

/* @xyz checked, and the torus' size into @d; 0, or -1 with errno. */
static int prepare(const rca_mesh_coord_t *xyz, unsigned long d[3])
{
	if (!xyz) {
		errno = EINVAL;
		return -1;
	}
	return dims(d);
}

RCA_EXPORT int rca_get_meshcoord(uint16_t nid, rca_mesh_coord_t *xyz)
{
	unsigned long d[3];

	if (prepare(xyz, d))
		return -1;
	if (nid >= d[0] * d[1] * d[2]) {
		errno = EINVAL;
		return -1;
	}
	xyz->mesh_x = (uint16_t)(nid % d[0]);
	xyz->mesh_y = (uint16_t)(nid / d[0] % d[1]);
	xyz->mesh_z = (uint16_t)(nid / (d[0] * d[1]));
	return 0;
}

RCA_EXPORT int rca_get_max_dimension(rca_mesh_coord_t *xyz)
{
	unsigned long d[3];

	if (prepare(xyz, d))
		return -1;
	xyz->mesh_x = (uint16_t)(d[0] - 1);
	xyz->mesh_y = (uint16_t)(d[1] - 1);
	xyz->mesh_z = (uint16_t)(d[2] - 1);
	return 0;
}
