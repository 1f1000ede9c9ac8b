/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * alps/libalpsutil.h - placement of the application's PEs on the nodes.
 * Link with -lalpsutil (pkg-config module cray-alpsutil).
 */
#ifndef VGEMINI_ALPS_LIBALPSUTIL_H
#define VGEMINI_ALPS_LIBALPSUTIL_H

#include <stdint.h>
#include <netinet/in.h>

#include "alps_toolAssist.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * alps_get_placement_info() - the layout of an application and its PEs
 * @apid:          the application: it must be the caller's own (ALPS_APP_ID)
 * @appLayout:     the layout, seen from the caller's node
 * @placementList: the nid of every PE, appLayout->numPes entries
 * @targetNids:    the nids of the nodes this node controls (numTargets)
 * @targetPes:     the first PE of each of them (numTargets)
 * @targetLen:     the PEs on each of them (numTargets)
 * @targetIps:     the IP address of each of them (numTargets)
 * @startPe:       the first PE of each command (numCmds)
 * @totalPes:      the PEs of each command (numCmds)
 * @nodePes:       the PEs per node of each command (numCmds)
 * @peCpus:        the CPUs per PE of each command (numCmds)
 *
 * Every argument after @apid may be NULL: that information is not
 * returned.  The arrays are allocated with malloc(); the caller frees
 * them.  An array with no entries (the targets: vgemini has no fan-out
 * tree) is returned as NULL.  On failure every array pointer asked for is
 * set to NULL.
 *
 * In vgemini ranks are placed in blocks: PE p runs on the job's node
 * p / K, K = nodePes[0] (the --ppn of "vgemini run"), and the job's node
 * n is the fabric's node n, whose nid is its Gemini id n.
 *
 * Return: 1 on success; -1 with errno: ENOENT when @apid is not the
 * caller's application or a variable it needs is not set (@placementList
 * and @nodePes need VGEMINI_PPN), EINVAL when a variable is not a number
 * in its range or the variables disagree, ENOMEM.
 */
int alps_get_placement_info(uint64_t apid, alpsAppLayout_t *appLayout,
			    int **placementList, int **targetNids,
			    int **targetPes, int **targetLen,
			    struct in_addr **targetIps, int **startPe,
			    int **totalPes, int **nodePes, int **peCpus);

#ifdef __cplusplus
}
#endif

#endif /* VGEMINI_ALPS_LIBALPSUTIL_H */
