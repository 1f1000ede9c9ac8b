/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * rsms/rs_sm_states.h: node states of Cray's resiliency state machine, as
 * the RCA interface of vgemini's kgni.ko reports them
 * (Documentation/kernel-api.rst, "RCA").  Lustre's gnilnd includes it;
 * it uses only the names, so the values are vgemini's.
 *
 * A node state is a byte whose low nibble is the "cs" (current) state.
 */
#ifndef RS_SM_STATES_H
#define RS_SM_STATES_H

#include <linux/types.h>

typedef __u32 rs_state_t;

#define RS_CS_MASK		0x0fu
#define RS_GET_CS_STATE(state)	((state) & RS_CS_MASK)

/* Current states ("cs") */
#define RS_CS_EMPTY		0x0u	/* no node there */
#define RS_CS_READY		0x2u	/* up: reachable through the fabric */
#define RS_CS_DOWN		0x4u	/* unavailable: no route to it */

#endif /* RS_SM_STATES_H */
