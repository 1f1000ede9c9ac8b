/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * krca_lib.h: the kernel side of Cray's RCA (Resiliency Communication
 * Agent) as vgemini's kgni.ko provides it (Documentation/kernel-api.rst,
 * "RCA"): node up/down events driven by the fabric's routing tables, the
 * list of the system's nodes, and the NID <-> NIC address mapping.
 *
 * Lustre's gnilnd uses these names only, never their values or layouts,
 * so those are vgemini's: a NID is a node's Gemini id (its place in the
 * torus, as ALPS numbers nodes), its NIC address GEMINI_PE(nid, 0).
 *
 * send_hb_2_l0() is declared here too, unlike Cray's headers, whose
 * callers (gnilnd) declare "void send_hb_2_l0(void);" themselves: the same
 * declaration again is harmless.
 */
#ifndef KRCA_LIB_H
#define KRCA_LIB_H

#include <linux/types.h>

#include <rsms/rs_sm_states.h>

typedef __u32 rca_nid_t;
typedef __u32 nic_addr_t;

/* A registration (krca_register()); KRCA_NULL_TICKET: none */
typedef __u64 krca_ticket_t;
#define KRCA_NULL_TICKET	((krca_ticket_t)0)
/* A subscription (krca_subscribe()) */
typedef __u64 rca_ticket_t;

/* Services: a class and an index within it */
#define RCA_MAKE_SERVICE_INDEX(class, n)	(((class) << 16) | ((n) & 0xffff))
#define RCA_IO_CLASS		0x0002u
#define RCA_LND_CLASS		0x0003u
#define RCA_SVCTYPE_GNILND	RCA_MAKE_SERVICE_INDEX(RCA_LND_CLASS, 1)
/* Events from any service (krca_subscribe()'s filter) */
#define RCA_RX_SVC_ANY		0xffffffffu

/* The node events */
typedef enum {
	ec_node_unavailable = 0x0201,	/* no route to it any more */
	ec_node_available = 0x0202,	/* reachable again */
	ec_node_failed = 0x0203,	/* never sent by vgemini */
} rs_event_code_t;

/* Node types */
#define rt_node			1	/* a compute or service node */
#define rt_accel		2	/* an accelerator (none in vgemini) */

/*
 * A node, one 64-bit word: its NID, type, service flag and state, read
 * with RSN_GET_FLD(word, NID | TYPE | IS_SVC | STATE).  rsn_intval is the
 * same word under the name events use for the state.
 */
typedef union {
	__u64 rs_node_flat;
	__u64 rsn_intval;
} rs_node_t;

#define RSN_NID_SHIFT		0
#define RSN_NID_MASK		0xffffffffull
#define RSN_TYPE_SHIFT		32
#define RSN_TYPE_MASK		0xfull
#define RSN_STATE_SHIFT		36
#define RSN_STATE_MASK		0xffull
#define RSN_IS_SVC_SHIFT	44
#define RSN_IS_SVC_MASK		0x1ull
#define RSN_GET_FLD(word, fld) \
	(((__u64)(word) >> RSN_##fld##_SHIFT) & RSN_##fld##_MASK)
#define RSN_SET_FLD(word, fld, val) \
	((word) = ((word) & ~(RSN_##fld##_MASK << RSN_##fld##_SHIFT)) | \
		  (((__u64)(val) & RSN_##fld##_MASK) << RSN_##fld##_SHIFT))

/* An event: its code, its payload's length (0: none), the node */
typedef struct {
	rs_event_code_t ev_id;
	__u32 ev_len;
	__u64 ev_seqnum;		/* per registration, from 1 */
	struct {
		rs_node_t svid_node;
	} ev_gen;
} rs_event_t;

/* krca_get_sysnodes(): na_ids is kmalloc'd; the caller kfree()s it */
typedef struct {
	__u32 na_len;
	rs_node_t *na_ids;
} rs_node_array_t;

int krca_register(krca_ticket_t *ticket, __u32 svc_type, __u32 instance,
		  int flags);
int krca_unregister(krca_ticket_t *ticket);
int krca_subscribe(krca_ticket_t *ticket, rs_event_code_t ev,
		   __u32 svc_filter, rca_ticket_t *sub_ticket);
int krca_unsubscribe(krca_ticket_t *ticket, rca_ticket_t sub_ticket);
int krca_wait_event(krca_ticket_t *ticket);
int krca_wakeup_wait_event(krca_ticket_t *ticket);
int krca_get_message(krca_ticket_t *ticket, rs_event_t *event);
int krca_get_sysnodes(rs_node_array_t *list);
int krca_nid_to_nicaddrs(rca_nid_t nid, int numnic, nic_addr_t *nicaddrs);
int krca_nicaddr_to_nid(nic_addr_t nicaddr, rca_nid_t *nid);
void send_hb_2_l0(void);

#endif /* KRCA_LIB_H */
