/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The shared message queue's segment (GNI_Msgq*, lib/ugni/ugni_msgq.c):
 * the bytes the ranks of a node share in hugetlbfs memory, and those a
 * remote node's ranks write into it with FMA PUTs and read with GETs.
 * The layout is the library's, like SMSG's mailboxes (uapi/gni_wire.h).
 * Integers are little-endian: the ranks store them natively on x86-64.
 * Documentation/ugni.rst describes the protocol.
 *
 *   0             struct ugni_msgq_seg: the attributes and the ranks
 *                 attached, each with its registration of the segment
 *   4096          num_msgq_eps connection records (struct ugni_msgq_conn,
 *                 4 KiB each): the remote node's PE and, per remote rank,
 *                 the place of its inbox for this node, the next ticket
 *                 and how many of this node's messages that rank released
 *   then          per connection and local rank an inbox: at +0 the count
 *                 of messages the rank took from it, at +64 smsg_q_sz
 *                 slots of UGNI_MSGQ_SLOT(max_msg_sz) bytes
 *
 * The segment's size is rounded up to UGNI_MSGQ_HUGE_PAGE.  A slot holds
 *
 *   word 0        the flag: ticket + 1 << 32 | tag << 8 | UGNI_MSGQ_MAGIC
 *                 (0 or an older ticket while the message is not there)
 *   word 1        hdr_len | msg_len << 16 | the sender's inst_id << 32
 *   bytes 16..    the header, then the message
 *
 * A sender takes ticket t of the destination rank's inbox and PUTs words
 * 1.. and the payload into slot t % smsg_q_sz, then the flag; the
 * receiver takes its inbox's slots in ticket order and counts them in
 * the inbox's word 0, which senders GET when they find it full.
 */
#ifndef UGNI_MSGQ_WIRE_H
#define UGNI_MSGQ_WIRE_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdint.h>
#endif

#define UGNI_MSGQ_SEG_MAGIC	0x3130717367766776ull	/* "vgvgsq01" */
#define UGNI_MSGQ_MAGIC		0xa5ull		/* a slot's flag, low byte */
#define UGNI_MSGQ_HUGE_PAGE	(2u << 20)
#define UGNI_MSGQ_HDR		4096u	/* where the connection records start */
#define UGNI_MSGQ_CONN_SIZE	4096u
#define UGNI_MSGQ_INBOX_HDR	64u	/* the count, then the slots */
#define UGNI_MSGQ_SLOT_HDR	16u	/* the flag and word 1 */
#define UGNI_MSGQ_SLOT(max)	(UGNI_MSGQ_SLOT_HDR + (((max) + 7u) & ~7u))
/* Ranks of a node: GNI_MSGQ_NODE_INSTS_MAX of gni_pub.h */
#define UGNI_MSGQ_INSTS_MAX	48u

/* A connection record's state */
enum {
	UGNI_MSGQ_CONN_FREE,
	UGNI_MSGQ_CONN_RESERVED,
	UGNI_MSGQ_CONN_CONNECTED,
};

struct ugni_msgq_inst {
	uint32_t id;
	int32_t pid;			/* 0: the entry is free */
	uint64_t mdh[2];		/* its gni_mem_handle_t of it */
};

struct ugni_msgq_seg {
	uint64_t magic;			/* UGNI_MSGQ_SEG_MAGIC */
	uint32_t size;
	uint32_t max_msg_sz;
	uint32_t smsg_q_sz;
	uint32_t num_eps;
	uint32_t nloc_insts;
	uint32_t modes;
	uint32_t attached;
	uint32_t pad;
	struct ugni_msgq_inst inst[UGNI_MSGQ_INSTS_MAX];
};

/* A rank of the remote node, as this node's senders see it */
struct ugni_msgq_rinst {
	uint32_t id;
	uint32_t mdh;			/* its registration's MDH */
	uint64_t off;			/* its inbox for us, in it */
	uint64_t ticket;		/* next ticket: CAS by our senders */
	uint64_t released;		/* its count, last read */
	uint32_t broken;		/* a message could not be sent */
	uint32_t pad;
};

struct ugni_msgq_conn {
	uint32_t state;			/* UGNI_MSGQ_CONN_* */
	uint32_t pe;
	uint32_t rem_q;			/* its smsg_q_sz */
	uint32_t rem_max;		/* its max_msg_sz */
	uint32_t nrem;
	uint32_t pad;
	struct ugni_msgq_rinst rem[UGNI_MSGQ_INSTS_MAX];
};

#endif /* UGNI_MSGQ_WIRE_H */
