/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The vgemini PMI wire protocol: frames between libpmi (in a rank) and the
 * PMI server in "vgemini run" (on the host).  The launcher reads the
 * #defines of this file (scripts/vgemini_launcher/pmi.py), so it is the
 * one place where they are written down.  Documentation/jobs.rst
 * describes the protocol.
 *
 * Every frame, both ways, is a 16-byte header and a payload; integers are
 * little-endian:
 *
 *   offset size
 *   0      4    magic   VGEMINI_PMI_MAGIC ("VPMI")
 *   4      2    type    a request type, or request | VGEMINI_PMI_REPLY
 *   6      2    flags   0
 *   8      4    status  requests: 0; replies: a PMI_* return code
 *   12     4    len     payload bytes that follow
 *   16     len  payload
 *
 * A rank sends one request and waits for its reply before the next one
 * (ABORT has no reply).
 */
#ifndef VGEMINI_PMI_WIRE_H
#define VGEMINI_PMI_WIRE_H

#define VGEMINI_PMI_MAGIC		0x494d5056u
#define VGEMINI_PMI_VERSION		1u
#define VGEMINI_PMI_HDR_LEN		16u

/* Request types (payloads in Documentation/jobs.rst) */
#define VGEMINI_PMI_INIT		1u
#define VGEMINI_PMI_FINALIZE		2u
#define VGEMINI_PMI_BARRIER		3u
#define VGEMINI_PMI_PUT			4u
#define VGEMINI_PMI_GET			5u
#define VGEMINI_PMI_ALLGATHER		6u
#define VGEMINI_PMI_ABORT		7u
#define VGEMINI_PMI_ALLGATHERV		8u
#define VGEMINI_PMI_NODE_PUT		9u
#define VGEMINI_PMI_NODE_GET		10u
#define VGEMINI_PMI_REPLY		0x80u

/* Fixed part of the INIT reply, before the clique ranks and KVS name. */
#define VGEMINI_PMI_INIT_REPLY_LEN	44u

/* Limits the server enforces (buffer sizes include the NUL). */
#define VGEMINI_PMI_KVSNAME_MAX		64u
#define VGEMINI_PMI_KEY_MAX		64u
#define VGEMINI_PMI_VAL_MAX		1024u
#define VGEMINI_PMI_ABORT_MSG_MAX	1024u
#define VGEMINI_PMI_ALLGATHER_MAX	65536u		/* bytes per rank */
#define VGEMINI_PMI_ALLGATHER_TOTAL_MAX	16777216u	/* size * len */
#define VGEMINI_PMI_MAX_RANKS		65536u
/* The largest request payload (an ALLGATHER of VGEMINI_PMI_ALLGATHER_MAX) */
#define VGEMINI_PMI_REQ_MAX		65536u
/* Whole KVS of a job */
#define VGEMINI_PMI_KVS_MAX_KEYS	1048576u
#define VGEMINI_PMI_KVS_MAX_BYTES	67108864u

/*
 * The key the server puts into every job's KVS before its ranks start:
 * where the ranks run, in MPICH's notation "(vector,(first node, nodes,
 * ranks per node),...)", e.g. "(vector,(0,2,4),(2,1,1))" for 9 ranks 4
 * per node.  PMI2_Info_GetJobAttr() answers its job attribute with it.
 */
#define VGEMINI_PMI_KEY_MAPPING		"PMI_process_mapping"

#endif /* VGEMINI_PMI_WIRE_H */
