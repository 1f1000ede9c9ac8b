/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * rca_lib.h - the user-level RCA calls that topology-aware runtimes ported
 * to a Cray XE make: where a node sits in the torus, and how large the
 * torus is.  Link with -lrca (pkg-config module "cray-rca").
 *
 * A node's id (nid, as PMI_Get_nid() gives it) is its Gemini id; the
 * torus' size is the kgni device's (/sys/class/gni/kgni0/dims).  Each
 * call returns 0, or -1 with errno: EINVAL for a NULL pointer or a nid
 * outside the torus, ENODEV when kgni is not loaded, EIO for a size that
 * cannot be read.
 *
 * See Documentation/jobs.rst.
 */
#ifndef VGEMINI_RCA_LIB_H
#define VGEMINI_RCA_LIB_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rca_mesh_coord {
	uint16_t mesh_x;
	uint16_t mesh_y;
	uint16_t mesh_z;
} rca_mesh_coord_t;
typedef rca_mesh_coord_t mesh_coord_t;

/* The mesh coordinates of node @nid */
int rca_get_meshcoord(uint16_t nid, rca_mesh_coord_t *xyz);
/* The largest coordinate in each dimension: the torus' size - 1 */
int rca_get_max_dimension(rca_mesh_coord_t *xyz);

#ifdef __cplusplus
}
#endif

#endif /* VGEMINI_RCA_LIB_H */
