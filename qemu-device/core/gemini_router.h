/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cray-gemini device core: the router (gemini_router.c).  Its input
 * buffers, one per port and link channel and one per VC from the NIC, its
 * routing table, the switch that moves each buffer's head to an output
 * port or to the NIC (gemini_nic_deliver()).
 */
#ifndef GEMINI_ROUTER_H
#define GEMINI_ROUTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gemini_hw.h"
#include "gemini_packet.h"
#include "gemini_reg.h"
#include "vgemini_ctl.h"
#include "vgemini_link.h"

/* A bounded FIFO of decoded packets: an input buffer of the router. */
#define GEMINI_PKTQ_DEPTH	VGEMINI_LINK_SLOTS

struct gemini_pktq {
	struct gemini_pkt pkt[GEMINI_PKTQ_DEPTH];
	unsigned int head;
	unsigned int count;
	uint64_t stall_ns;		/* head blocked since, 0 = moving */
	unsigned int stall_port;	/* the output it waits for */
};

struct gemini_router {
	uint8_t *table;			/* entries of the loaded image */
	uint32_t generation;
	uint32_t changes;		/* FABRIC_CHANGES */
	bool quiesced;
	/* Input buffers: from each port's link channels, from the NIC */
	struct gemini_pktq in[GEMINI_NUM_TORUS_PORTS][VGEMINI_LINK_CHANS];
	struct gemini_pktq inject[2];	/* per VC */
	unsigned int rr;		/* round-robin start among inputs */
};

struct gemini_nic;

/*
 * Load a routing-table image (@len bytes at @img) into the router.
 * Returns 0, or -1 with a message in @err; the old table then stays.
 */
int gemini_router_load(struct gemini_nic *nic, const void *img, size_t len,
		       char *err, size_t errlen);
/* Free the table. */
void gemini_router_fini(struct gemini_nic *nic);
/* Hold all traffic (true) or let it go again (false). */
void gemini_router_quiesce(struct gemini_nic *nic, bool quiesce);
enum vgemini_fabric_state gemini_fabric_state(const struct gemini_nic *nic);
/* Generation of the loaded table (0: none loaded yet). */
uint32_t gemini_router_generation(const struct gemini_nic *nic);
bool gemini_router_has_table(const struct gemini_nic *nic);
/*
 * Hand a packet from the NIC to the router.  Returns 0, or -1 when the
 * injection buffer of its VC is full.
 */
int gemini_router_inject(struct gemini_nic *nic, const struct gemini_pkt *pkt);
/* Room in the NIC's injection buffer of @vc for one more packet? */
bool gemini_router_can_inject(const struct gemini_nic *nic, unsigned int vc);
/* How many more packets that buffer takes (0 for a bad @vc). */
unsigned int gemini_router_inject_room(const struct gemini_nic *nic,
				       unsigned int vc);
/* The entry for a packet from the NIC to @dest, or VGEMINI_ROUTE_NONE. */
unsigned int gemini_router_first_hop(const struct gemini_nic *nic,
				     uint32_t dest);
/*
 * Move what can move, taking the inputs round-robin; true if anything
 * did.  Nothing moves without a table or while quiesced.
 */
bool gemini_router_forward(struct gemini_nic *nic, uint64_t now);
/*
 * The input buffer of @port's link channel @chan, for the link control
 * block: the slot the next arriving packet goes in, NULL when full; the
 * packet counts once gemini_router_input_push() is called.
 */
struct gemini_pkt *gemini_router_input_slot(struct gemini_nic *nic,
					    unsigned int port,
					    unsigned int chan);
void gemini_router_input_push(struct gemini_nic *nic, unsigned int port,
			      unsigned int chan);
/* Empty that buffer (the link went down); returns how many were lost. */
unsigned int gemini_router_input_flush(struct gemini_nic *nic,
				       unsigned int port, unsigned int chan);
/* ROUTE_GEN and FABRIC_STATE. */
extern const struct gemini_ctl_table gemini_router_ctl_table;

#endif /* GEMINI_ROUTER_H */
