// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cray-gemini device core: the router.
 *
 * Every packet that enters the router, into the input buffer of a link
 * channel (which the link control block fills and whose credits it
 * returns) or of the NIC, is looked up in the routing table the
 * supervisor loaded, by input port, dateline class and destination, and
 * moves to the output the entry names: a link, whose credits it must wait
 * for, or the local NIC.
 * Until a table is loaded, and while the supervisor holds the fabric
 * quiesced, nothing moves.  Packets for the local NIC go to the NIC
 * (gemini_nic_deliver(), gemini_nic.c), which hands each to the engine
 * that takes it.
 *
 * gemini_nic_poll() (gemini_nic.c) calls gemini_router_forward() on each
 * of its rounds; the JSON of the counters is in gemini_stats.c.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemini_core.h"
#include "vgemini_crc32.h"

/* --- Routing tables ----------------------------------------------------- */

/* A table loaded, a quiesce or a resume: counted, and the guest told. */
static void fabric_changed(struct gemini_nic *nic)
{
	nic->router.changes++;
	gemini_port_link_irq(nic);
}

int gemini_router_load(struct gemini_nic *nic, const void *img, size_t len,
		       char *err, size_t errlen)
{
	const uint8_t *b = img;
	const uint8_t *entries = b + VGEMINI_ROUTE_HDR_SIZE;
	uint64_t n = VGEMINI_ROUTE_ENTRIES(nic->num_nodes);
	struct vgemini_route_hdr h;
	uint8_t *table;
	uint32_t gen;
	unsigned int d, i;

	if (len < VGEMINI_ROUTE_HDR_SIZE) {
		snprintf(err, errlen, "routing table: %zu bytes, not an image", len);
		return -1;
	}
	/* The fields as stored (little-endian); HDR32() reads one. */
	memcpy(&h, b, sizeof(h));
#define HDR32(field)	vgemini_get_le32(&h.field)
	if (HDR32(magic) != VGEMINI_ROUTE_MAGIC) {
		snprintf(err, errlen, "routing table: bad magic 0x%08x",
			 HDR32(magic));
		return -1;
	}
	if (HDR32(version) != VGEMINI_ROUTE_VERSION) {
		snprintf(err, errlen,
			 "routing table: version %u, this router loads version %u",
			 HDR32(version), VGEMINI_ROUTE_VERSION);
		return -1;
	}
	if (HDR32(hdr_size) != VGEMINI_ROUTE_HDR_SIZE) {
		snprintf(err, errlen, "routing table: header size %u",
			 HDR32(hdr_size));
		return -1;
	}
	if (HDR32(gemini_id) != nic->gemini_id) {
		snprintf(err, errlen, "routing table is for router %u, this is %u",
			 HDR32(gemini_id), nic->gemini_id);
		return -1;
	}
	for (d = 0; d < 3; d++) {
		if (h.dims[d] != nic->cfg.dims[d]) {
			snprintf(err, errlen,
				 "routing table is for a %ux%ux%u torus, this is %ux%ux%u",
				 h.dims[0], h.dims[1], h.dims[2],
				 nic->cfg.dims[0], nic->cfg.dims[1],
				 nic->cfg.dims[2]);
			return -1;
		}
	}
	if (h.reserved0 || HDR32(num_nodes) != nic->num_nodes) {
		snprintf(err, errlen, "routing table: %u nodes, torus has %u",
			 HDR32(num_nodes), nic->num_nodes);
		return -1;
	}
	for (i = VGEMINI_ROUTE_HDR_OFF(reserved); i < VGEMINI_ROUTE_HDR_SIZE;
	     i++) {
		if (b[i]) {
			snprintf(err, errlen,
				 "routing table: reserved header byte %u is not zero",
				 i);
			return -1;
		}
	}
	if (len != VGEMINI_ROUTE_HDR_SIZE + n) {
		snprintf(err, errlen, "routing table: %zu bytes, expected %llu",
			 len, (unsigned long long)(VGEMINI_ROUTE_HDR_SIZE + n));
		return -1;
	}
	if (vgemini_crc32(0, entries, n) != HDR32(entries_crc32)) {
		snprintf(err, errlen, "routing table: CRC mismatch");
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (entries[i] & VGEMINI_ROUTE_RESERVED_MASK) {
			snprintf(err, errlen,
				 "routing table: entry %u has reserved bits set",
				 i);
			return -1;
		}
	}
	gen = HDR32(generation);
#undef HDR32
	if (!gen) {
		snprintf(err, errlen, "routing table: generation 0 is reserved");
		return -1;
	}
	table = malloc(n);
	if (!table) {
		snprintf(err, errlen, "routing table: out of memory");
		return -1;
	}
	memcpy(table, entries, n);
	free(nic->router.table);
	nic->router.table = table;
	nic->router.generation = gen;
	fabric_changed(nic);
	return 0;
}

void gemini_router_quiesce(struct gemini_nic *nic, bool quiesce)
{
	if (nic->router.quiesced == quiesce)
		return;
	nic->router.quiesced = quiesce;
	fabric_changed(nic);
}

void gemini_router_fini(struct gemini_nic *nic)
{
	free(nic->router.table);
	nic->router.table = NULL;
}

uint32_t gemini_router_generation(const struct gemini_nic *nic)
{
	return nic->router.generation;
}

bool gemini_router_has_table(const struct gemini_nic *nic)
{
	return nic->router.table;
}

enum vgemini_fabric_state gemini_fabric_state(const struct gemini_nic *nic)
{
	if (!nic->router.table)
		return VGEMINI_FABRIC_NO_TABLE;
	return nic->router.quiesced ? VGEMINI_FABRIC_QUIESCED :
	       VGEMINI_FABRIC_RUNNING;
}

static unsigned int route(const struct gemini_nic *nic, unsigned int in_port,
			  unsigned int vclass, uint32_t dest)
{
	if (!nic->router.table || dest >= nic->num_nodes ||
	    in_port >= VGEMINI_ROUTE_IN_PORTS || vclass >= VGEMINI_ROUTE_CLASSES)
		return VGEMINI_ROUTE_NONE;
	return nic->router.table[(in_port * VGEMINI_ROUTE_CLASSES + vclass) *
				 (uint64_t)nic->num_nodes + dest];
}

unsigned int gemini_router_first_hop(const struct gemini_nic *nic,
				     uint32_t dest)
{
	return route(nic, VGEMINI_ROUTE_IN_NIC, 0, dest) &
	       VGEMINI_ROUTE_PORT_MASK;
}

/* --- Queues ------------------------------------------------------------- */

static struct gemini_pkt *q_head(struct gemini_pktq *q)
{
	return q->count ? &q->pkt[q->head] : NULL;
}

static void q_pop(struct gemini_pktq *q)
{
	q->head = (q->head + 1) % GEMINI_PKTQ_DEPTH;
	q->count--;
}

struct gemini_pkt *gemini_router_input_slot(struct gemini_nic *nic,
					    unsigned int port,
					    unsigned int chan)
{
	struct gemini_pktq *q = &nic->router.in[port][chan];

	if (q->count >= GEMINI_PKTQ_DEPTH)
		return NULL;
	return &q->pkt[(q->head + q->count) % GEMINI_PKTQ_DEPTH];
}

void gemini_router_input_push(struct gemini_nic *nic, unsigned int port,
			      unsigned int chan)
{
	nic->router.in[port][chan].count++;
}

unsigned int gemini_router_input_flush(struct gemini_nic *nic,
				       unsigned int port, unsigned int chan)
{
	struct gemini_pktq *q = &nic->router.in[port][chan];
	unsigned int lost = q->count;

	memset(q, 0, sizeof(*q));
	return lost;
}

int gemini_router_inject(struct gemini_nic *nic, const struct gemini_pkt *pkt)
{
	struct gemini_pktq *q;
	unsigned int phits = gemini_pkt_phits(pkt);

	/* Only packets that can go on a link enter the router. */
	if (pkt->vc > GEMINI_VC_RSP || !phits || !gemini_pkt_valid(pkt))
		return -1;
	q = &nic->router.inject[pkt->vc];
	if (q->count >= GEMINI_PKTQ_DEPTH)
		return -1;
	q->pkt[(q->head + q->count) % GEMINI_PKTQ_DEPTH] = *pkt;
	q->pkt[(q->head + q->count) % GEMINI_PKTQ_DEPTH].vclass = 0;
	q->count++;
	if (pkt->vc == GEMINI_VC_REQ) {
		gemini_nic_count(nic, VGEMINI_NC_REQ_PKTS_OUT, 1);
		gemini_nic_count(nic, VGEMINI_NC_REQ_PHITS_OUT, phits);
	} else {
		gemini_nic_count(nic, VGEMINI_NC_RSP_PKTS_OUT, 1);
		gemini_nic_count(nic, VGEMINI_NC_RSP_PHITS_OUT, phits);
	}
	return 0;
}

unsigned int gemini_router_inject_room(const struct gemini_nic *nic,
				       unsigned int vc)
{
	return vc <= GEMINI_VC_RSP ?
	       GEMINI_PKTQ_DEPTH - nic->router.inject[vc].count : 0;
}

bool gemini_router_can_inject(const struct gemini_nic *nic, unsigned int vc)
{
	return vc <= GEMINI_VC_RSP &&
	       nic->router.inject[vc].count < GEMINI_PKTQ_DEPTH;
}

/* --- Forwarding --------------------------------------------------------- */

/* 800 MHz router cycles in @ns nanoseconds. */
static uint64_t cycles(uint64_t ns)
{
	return ns * 4 / 5;
}

static void stall_end(struct gemini_nic *nic, struct gemini_pktq *q,
		      unsigned int in_port, uint64_t now)
{
	uint64_t c;

	if (!q->stall_ns)
		return;
	c = cycles(gemini_elapsed(now, q->stall_ns));
	if (in_port < GEMINI_NUM_TORUS_PORTS)
		gemini_port_count(nic, in_port, VGEMINI_PC_INQ_STALL, c);
	if (q->stall_port < GEMINI_NUM_TORUS_PORTS)
		gemini_port_count(nic, q->stall_port, VGEMINI_PC_CREDIT_STALL,
				  c);
	q->stall_ns = 0;
}

/* Append a path record to a diagnostic packet leaving through @out. */
static void diag_trace(struct gemini_nic *nic, struct gemini_pkt *pkt,
		       unsigned int in_port, unsigned int out, unsigned int oc)
{
	bool rsp = pkt->type == GEMINI_PKT_DIAG_RSP;
	unsigned int idx = pkt->hops + (rsp ? pkt->data[0] : 0);
	unsigned int at = 4 + 4 * idx;
	uint32_t rec;

	if (at + 4 > pkt->len)
		return;
	rec = VGEMINI_TRACE_RECORD(nic->gemini_id, out, in_port, oc, rsp);
	vgemini_put_le32(&pkt->data[at], rec);
}

/*
 * Try to move the head of @q (which arrived on @in_port) one step.
 * Returns true if it left the queue.
 */
static bool forward_one(struct gemini_nic *nic, struct gemini_pktq *q,
			unsigned int in_port, uint64_t now)
{
	struct gemini_pkt *pkt = q_head(q);
	unsigned int e, out, oc, chan;

	e = route(nic, in_port, pkt->vclass, pkt->dst);
	out = e & VGEMINI_ROUTE_PORT_MASK;
	oc = !!(e & VGEMINI_ROUTE_CLASS_BIT);
	if (out == VGEMINI_ROUTE_NONE) {
		gemini_nic_count(nic, VGEMINI_NC_NO_ROUTE, 1);
		stall_end(nic, q, in_port, now);
		return true;
	}
	if (out == VGEMINI_ROUTE_OUT_NIC) {
		if (!gemini_nic_deliver(nic, pkt))
			return false;
		stall_end(nic, q, in_port, now);
		return true;
	}
	if (!gemini_port_up(nic, out)) {
		/* A dead link: drop, the source's timeout reports it. */
		gemini_port_count(nic, out, VGEMINI_PC_DOWN_DROP, 1);
		stall_end(nic, q, in_port, now);
		return true;
	}
	chan = VGEMINI_LINK_CHAN(pkt->vc, oc);
	if (!gemini_lcb_can_send(nic, out, chan)) {
		/* Count as it goes, so a stall shows while it lasts. */
		stall_end(nic, q, in_port, now);
		q->stall_ns = now ? now : 1;
		q->stall_port = out;
		return false;
	}
	if (pkt->type == GEMINI_PKT_DIAG || pkt->type == GEMINI_PKT_DIAG_RSP)
		diag_trace(nic, pkt, in_port, out, oc);
	pkt->vclass = oc;
	/* An acknowledgment has no room to count hops. */
	if (pkt->type != GEMINI_PKT_ACK && pkt->hops < GEMINI_PKT_HOPS_MAX)
		pkt->hops++;
	gemini_lcb_send(nic, out, pkt);
	stall_end(nic, q, in_port, now);
	return true;
}

bool gemini_router_forward(struct gemini_nic *nic, uint64_t now)
{
	/* Inputs: 6 ports x 4 channels, then the NIC's two VCs. */
	const unsigned int ninputs = GEMINI_NUM_TORUS_PORTS *
				     VGEMINI_LINK_CHANS + 2;
	bool progress = false;
	unsigned int k;

	if (!nic->router.table || nic->router.quiesced)
		return false;
	for (k = 0; k < ninputs; k++) {
		unsigned int i = (nic->router.rr + k) % ninputs;
		unsigned int in_port, chan = 0;
		struct gemini_pktq *q;

		if (i < GEMINI_NUM_TORUS_PORTS * VGEMINI_LINK_CHANS) {
			in_port = i / VGEMINI_LINK_CHANS;
			chan = i % VGEMINI_LINK_CHANS;
			q = &nic->router.in[in_port][chan];
		} else {
			in_port = VGEMINI_ROUTE_IN_NIC;
			q = &nic->router.inject[i - GEMINI_NUM_TORUS_PORTS *
						VGEMINI_LINK_CHANS];
		}
		while (q->count && forward_one(nic, q, in_port, now)) {
			q_pop(q);
			if (in_port < GEMINI_NUM_TORUS_PORTS)
				gemini_lcb_freed(nic, in_port, chan);
			progress = true;
		}
	}
	nic->router.rr = (nic->router.rr + 1) % ninputs;
	return progress;
}

/* --- Control registers -------------------------------------------------- */

static uint64_t ctl_fabric_state(const struct gemini_nic *nic, unsigned int i)
{
	(void)i;
	return gemini_fabric_state(nic);
}

/* REACH word @i: nodes 32i .. 32i + 31, computed from the table at read. */
static uint64_t ctl_reach(const struct gemini_nic *nic, unsigned int i)
{
	uint32_t word = 0, node, bit;

	for (bit = 0; bit < 32; bit++) {
		node = i * 32 + bit;
		if (node >= nic->num_nodes)
			break;
		if (gemini_router_first_hop(nic, node) != VGEMINI_ROUTE_NONE)
			word |= 1u << bit;
	}
	return word;
}

static_assert(VGEMINI_CTL_REACH_WORDS * 32 == GEMINI_MAX_NODES,
	      "REACH: a bit for every node");

static const struct gemini_ctl_reg router_regs[] = {
	{ GEMINI_CTL(ROUTE_GEN, 4, RO),
	  GEMINI_CTL_FIELD(router.generation) },
	{ GEMINI_CTL(FABRIC_STATE, 4, RO), .read = ctl_fabric_state },
	{ GEMINI_CTL(FABRIC_CHANGES, 4, RO),
	  GEMINI_CTL_FIELD(router.changes) },
	{ .offset = VGEMINI_CTL_REACH, .name = "REACH", .size = 4,
	  .access = GEMINI_CTL_RO, .count = VGEMINI_CTL_REACH_WORDS,
	  .stride = 4, .read = ctl_reach },
};

const struct gemini_ctl_table gemini_router_ctl_table =
	GEMINI_CTL_TABLE(router_regs);
