/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * alps/alps_toolAssist.h - the layout of an application as ALPS describes
 * it to the application itself and to tools: alpsAppLayout_t, which
 * alps_get_placement_info() (alps/libalpsutil.h) fills in.
 *
 * On a Cray the layout comes from a placement file ALPS writes on every
 * compute node; in vgemini it is computed from the rank's environment
 * (alps/alps.h).  Only the fields a vgemini job can fill truthfully are
 * here: there is no placement file, so no file offsets.
 */
#ifndef VGEMINI_ALPS_TOOLASSIST_H
#define VGEMINI_ALPS_TOOLASSIST_H

#include <stdint.h>

#include "alps.h"

/**
 * typedef alpsAppLayout_t - where an application runs, seen from one node
 * @apid:       the application id (ALPS_APP_ID)
 * @firstPe:    the first PE (rank) on this node
 * @numPesHere: PEs on this node
 * @peDepth:    CPUs per PE on this node (1: vgemini reserves no more)
 * @cmdNumber:  index of this node's command in the MPMD set (0)
 * @numPes:     PEs in the whole application
 * @numTargets: nodes this node controls in ALPS's fan-out tree (0: the
 *              launcher controls every node itself)
 * @numCmds:    commands in the MPMD set (1: vgemini runs one program)
 */
typedef struct {
	uint64_t apid;
	int firstPe;
	int numPesHere;
	int peDepth;
	int cmdNumber;
	int numPes;
	int numTargets;
	int numCmds;
} alpsAppLayout_t;

#endif /* VGEMINI_ALPS_TOOLASSIST_H */
