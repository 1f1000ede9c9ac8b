/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cray-gemini device core: what the NIC and its router decide, in plain C11
 * with no QEMU header.  The QEMU glue (qemu-device/qemu/) owns the BARs,
 * MSI-X, DMA and timers and calls in here; the core calls out through
 * struct gemini_ops.  Everything a guest writes is checked here.
 */
#ifndef GEMINI_CORE_H
#define GEMINI_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gemini_guest_error.h"
#include "gemini_hw.h"
#include "gemini_link_if.h"
#include "gemini_nic.h"
#include "gemini_packet.h"
#include "vgemini_ctl.h"
#include "vgemini_le.h"
#include "vgemini_names.h"
#include "vgemini_link.h"
#include "vgemini_route.h"

/* How an access to a register window went; the glue traces all but OK. */
enum gemini_access {
	GEMINI_ACCESS_OK = 0,
	GEMINI_ACCESS_BAD_SIZE,		/* not 4 or 8 bytes, or unaligned */
	GEMINI_ACCESS_UNKNOWN,		/* no register at that offset */
	GEMINI_ACCESS_READ_ONLY,	/* write to a read-only register */
	GEMINI_ACCESS_WRITE_ONLY,	/* read of a write-only register */
};

/* Calls from the core to the outside world. */
struct gemini_ops {
	/*
	 * Node memory; return 0 on success, negative if the bus refused.
	 * An 8-byte write at an 8-byte aligned address must reach memory
	 * as one store: the guest's CPU reads and clears CQ entries while
	 * the device writes others (see cray_gemini_dma_write()).
	 */
	int (*dma_read)(void *opaque, uint64_t addr, void *buf, size_t len);
	int (*dma_write)(void *opaque, uint64_t addr, const void *buf,
			 size_t len);
	/* Raise MSI-X vector @vector (always < num_vectors). */
	void (*raise_irq)(void *opaque, unsigned int vector);
	/*
	 * A guest programming error of @kind (enum gemini_guest_error_kind)
	 * with its arguments, unformatted (gemini_guest_error_format() has
	 * the text); may be NULL.
	 */
	void (*guest_error)(void *opaque, unsigned int kind,
			    const uint64_t args[4]);
	/* A router port changed state; for tracing, may be NULL. */
	void (*port_changed)(void *opaque, unsigned int port,
			     enum vgemini_port_state state, uint32_t peer);
	/* Monotonic time in nanoseconds. */
	uint64_t (*clock_ns)(void *opaque);
	/* Ring the doorbell of the peer on @port's link; may be NULL. */
	void (*kick_peer)(void *opaque, unsigned int port);
	/*
	 * A response delivered to the NIC that no engine of the core waits
	 * for: it is counted as stale and dropped after this call.  For
	 * tracing (and for tests, until FMA and BTE claim their responses);
	 * may be NULL.
	 */
	void (*stale_rsp)(void *opaque, const struct gemini_pkt *pkt);
};

struct gemini_config {
	uint32_t coord[3];		/* x, y, z */
	uint32_t dims[3];		/* X, Y, Z */
	unsigned int num_vectors;	/* MSI-X vectors the glue provides */
};

/* A bounded FIFO of decoded packets: an input buffer of the router. */
#define GEMINI_PKTQ_DEPTH	VGEMINI_LINK_SLOTS

struct gemini_pktq {
	struct gemini_pkt pkt[GEMINI_PKTQ_DEPTH];
	unsigned int head;
	unsigned int count;
	uint64_t stall_ns;		/* head blocked since, 0 = moving */
	unsigned int stall_port;	/* the output it waits for */
};

/* Fault injection on what a port sends (rates in parts per million). */
struct gemini_fault {
	uint32_t corrupt_ppm;
	uint32_t drop_ppm;
	uint32_t delay_ppm;
	uint32_t delay_ms;
	bool down;
	uint64_t rng;
};

/* Our transmit side of one link channel (one VC and dateline class). */
struct gemini_tx_chan {
	uint32_t next;			/* number of the next new packet */
	uint32_t wire_next;		/* next number to (re)write on the wire */
	uint32_t acked;			/* peer's ack, as last believed */
	uint32_t freed;			/* peer's freed: credits come back */
	uint32_t nak_seen;		/* peer's nak counter, as last acted on */
	bool synced;			/* peer counts for our current epoch */
	uint64_t progress_ns;		/* last ack progress or (re)send */
	uint64_t hold_ns;		/* delay fault: write nothing before */
	uint32_t delayed_seq;		/* the packet that was delayed */
	bool delayed_valid;
	uint32_t gen[VGEMINI_LINK_SLOTS];
	uint16_t len[VGEMINI_LINK_SLOTS];
	uint8_t buf[VGEMINI_LINK_SLOTS][VGEMINI_LINK_SLOT_DATA];
};

/* Our receive side of one of the peer's channels: the input buffer. */
struct gemini_rx_chan {
	uint32_t ack;			/* next packet number expected */
	uint32_t freed;			/* packets taken from @q */
	uint32_t nak;			/* retransmission requests sent */
	uint32_t nak_at;		/* @ack when we last asked */
	bool nak_valid;
	uint32_t bad_gen;		/* a corrupted copy already refused */
	bool bad_valid;
	uint32_t bad_tries;		/* bad copies of the expected packet */
	struct gemini_pktq q;
};

struct gemini_router_port {
	struct gemini_link_view link;	/* link.mine NULL: nothing attached */
	enum vgemini_port_state state;
	uint32_t peer;			/* PE learnt from the peer's side */
	uint32_t expected;		/* PE the topology puts there */
	uint32_t changes;		/* state changes since attach */
	uint64_t epoch;			/* ours, as published */
	uint64_t heartbeat;		/* our own counter */
	uint64_t seen_hb;		/* the peer's counter when last read */
	uint64_t seen_epoch;		/* the peer's epoch when last read */
	uint64_t seen_ms;		/* when the peer last showed life */
	bool seen_valid;		/* seen_* hold a real observation */
	bool kick;			/* published something for the peer */
	uint32_t session;		/* of both ends' epochs, see gemini_lcb.c */
	bool session_valid;
	struct gemini_fault fault;
	struct gemini_tx_chan tx[VGEMINI_LINK_CHANS];
	struct gemini_rx_chan rx[VGEMINI_LINK_CHANS];
	uint64_t ctr[VGEMINI_COUNTERS_PER_BLK];
};

/* One diagnostic ping engine: slot 0 is the guest's, slot 1 the host's. */
enum { GEMINI_DIAG_GUEST = 0, GEMINI_DIAG_HOST = 1, GEMINI_DIAG_SLOTS = 2 };

struct gemini_diag {
	uint32_t dest;
	uint32_t len;
	uint32_t status;		/* enum vgemini_diag_status */
	uint32_t hops;			/* request [7:0], response [15:8] */
	uint32_t rtt_ns;
	uint32_t seq;			/* pings started */
	uint32_t irq;			/* guest slot: vector on completion */
	uint32_t trace[VGEMINI_DIAG_MAX_TRACE];
	unsigned int ntrace;
	uint16_t tag;			/* of the ping in flight */
	uint64_t sent_ns;
	/* Bursts (host slot): @count pings back to back. */
	uint32_t count;
	uint32_t done;
	uint32_t ok;
	uint32_t failed;
	uint64_t rtt_min;
	uint64_t rtt_max;
	uint64_t rtt_sum;
};

struct gemini_router {
	uint8_t *table;			/* entries of the loaded image */
	uint32_t generation;
	bool quiesced;
	struct gemini_pktq inject[2];	/* from the NIC, per VC */
	unsigned int rr;		/* round-robin start among inputs */
};

/*
 * Memory translation tables (gemini_nat.c), as the driver wrote them
 * (bits no field names are kept 0).
 */
struct gemini_nat {
	uint64_t mdd[GEMINI_NUM_MDD][2];
	uint32_t mrt[GEMINI_NUM_MRT];
	uint64_t mrt_page_size;		/* GEMINI_MRT_PS_* code */
	uint64_t ntt[GEMINI_NTT_BANKS][GEMINI_NTT_BANK_ENTRIES];
	uint64_t ntt_config;
	/* The node's GART (control block registers, vgemini_ctl.h) */
	uint64_t gart_base;		/* VGEMINI_GART_BASE_MASK bits */
	uint32_t gart_entries;		/* 0 = off */
};

/* One completion queue (gemini_cq.c). */
struct gemini_cq {
	uint64_t qw[GEMINI_CQ_DESC_QWORDS];	/* descriptor; wr_index is ours */
	uint32_t irq_count;		/* events since the last interrupt */
	bool overrun;			/* an overrun entry waits at wr_index */
};

/*
 * Counters of the NIC's target side.  Not yet in the control block
 * (vgemini_ctl.h has no slots named for them); the supervisor's JSON and
 * the tests read them here.
 */
struct gemini_rmt_stats {
	uint64_t req_done;		/* requests executed, answered ACK/DATA */
	uint64_t req_refused;		/* requests answered with ERR */
	uint64_t req_waits;		/* deliveries postponed: no room to answer */
	uint64_t cq_events;		/* CQ entries written (overrun ones too) */
	uint64_t cq_overruns;		/* events that found their CQ full */
	uint64_t cq_lost;		/* events not written (see gemini_cq.c) */
};

/*
 * Transaction tags (10 bits, carried by a request and its response).
 * Tags with GEMINI_TAG_DIAG set belong to the diagnostic ping engines
 * (bit 8: the slot, bits 7..0: a sequence number); the others,
 * 0..GEMINI_ORB_SIZE - 1, are ORB entries of the FMA (and later BTE)
 * source side.  The NIC dispatches responses by tag.
 */
#define GEMINI_TAG_DIAG		0x200u
#define GEMINI_TAG_DIAG_SLOT	0x100u
#define GEMINI_TAG_DIAG_SEQ	0x0ffu
#define GEMINI_ORB_SIZE		512u	/* vgemini: Gemini has 1024 */

/* One FMA descriptor (gemini_fma*.c): the qwords as the kernel sees them. */
struct gemini_fma_desc {
	uint64_t base_offset;		/* QW1 */
	uint64_t cmd;			/* QW2 */
	uint64_t pe;			/* QW3 */
	uint64_t scratch0;		/* QW5 */
	uint64_t scratch1;		/* QW6 */
	uint64_t syncid;		/* QW7, last written */
	uint64_t synccmp;		/* QW8, last written */
	uint64_t cq_write;		/* QW9, last written */
	uint64_t priv_mask;		/* user-writable fields */
	uint16_t wc;			/* status word counters (write clears) */
	uint16_t rc;
	uint8_t flags;			/* GEMINI_FMA_FLAG_* */
	uint8_t ssid_inuse;		/* SSIDs held, live */
	int16_t open;			/* SSID of the open sequence, or -1 */
	uint8_t pend_status;		/* error of a sequence with no SSID */
};

/* One synchronisation sequence (SSID): requests completed together. */
struct gemini_fma_ssid {
	bool used;
	bool synced;			/* the sync-complete doorbell was rung */
	bool target_valid;		/* a request went out: target known */
	uint8_t desc;
	uint16_t cqh;			/* the local event's CQ, fixed at open */
	uint8_t status;			/* first error, or OK */
	uint8_t sync_type;		/* GEMINI_FMA_SYNC_* */
	uint8_t sync_sent;		/* sync packets issued (flag, event) */
	uint16_t outstanding;		/* ORB entries of this sequence */
	uint64_t sync_data;
	/* Where the flag and the remote event go: the last request's target */
	uint16_t dst;
	uint8_t dst_nic;
	uint8_t ptag;
	uint16_t mdh;
	uint64_t flag_value;
	uint64_t flag_offset;
};

enum gemini_orb_state {
	GEMINI_ORB_FREE = 0,
	GEMINI_ORB_QUEUED,		/* built, waiting for injection room */
	GEMINI_ORB_SENT,		/* injected, waiting for its response */
	GEMINI_ORB_RESTING,		/* timed out: tag not reused yet */
};

/* One outstanding request: its tag is its index. */
struct gemini_fma_orb {
	uint8_t state;			/* enum gemini_orb_state */
	bool fetch;			/* counts in rc (GET, fetching AMO) */
	uint8_t ssid;
	uint8_t desc;
	uint8_t src_ptag;		/* for the local write of the data */
	uint16_t src_mdh;
	uint64_t local_offset;
	uint64_t since_ns;		/* issued, or resting since */
	struct gemini_pkt pkt;		/* the request (kept while QUEUED) */
};

struct gemini_fma_stats {
	uint64_t requests;		/* requests issued */
	uint64_t responses;		/* responses matched */
	uint64_t errors;		/* ERR responses */
	uint64_t timeouts;		/* requests timed out */
	uint64_t paused;		/* polls after a pause of the device */
	uint64_t stale;			/* responses matching nothing */
	uint64_t refused;		/* stores refused (flags set) */
	uint64_t orb_full;		/* of which: no ORB entry */
	uint64_t ssid_full;		/* of which: no SSID */
	uint64_t priv_refused;		/* user writes to kernel fields */
	uint64_t completions;		/* sequences completed */
	uint64_t local_events;
	uint64_t local_lost;		/* local events the CQ did not take */
};

struct gemini_fma {
	struct gemini_fma_desc desc[GEMINI_FMA_NUM_DESC];
	struct gemini_fma_ssid ssid[GEMINI_NUM_SSID];
	struct gemini_fma_orb orb[GEMINI_ORB_SIZE];
	uint16_t queue[GEMINI_ORB_SIZE];	/* QUEUED entries, in order */
	unsigned int qhead;
	unsigned int qcount;
	unsigned int next_tag;		/* round-robin cursor */
	unsigned int orb_used;		/* entries not FREE */
	unsigned int ssid_next;
	uint64_t next_timeout;		/* earliest deadline of an entry */
	bool sync_retry;		/* a sync packet waits for an entry */
	struct gemini_fma_stats stats;
};

/*
 * The device's own MMIO windows on the bus (its BARs as the guest placed
 * them): DMA into them is refused, so that a descriptor or ring aimed at
 * the device cannot make it re-enter itself, whatever QEMU it runs in.
 */
#define GEMINI_OWN_WINDOWS	4

struct gemini_own_window {
	uint64_t base;
	uint64_t size;			/* 0: none */
};

struct gemini_nic {
	const struct gemini_ops *ops;
	void *opaque;
	struct gemini_own_window own[GEMINI_OWN_WINDOWS];
	struct gemini_config cfg;
	uint32_t gemini_id;
	uint32_t pe;
	uint32_t num_nodes;

	/* Control block registers */
	uint64_t scratch;
	uint64_t dma_addr;
	uint64_t dma_dst;
	uint32_t dma_len;
	uint32_t dma_pattern;
	uint32_t dma_status;
	uint32_t dma_irq;
	uint32_t link_irq;

	struct gemini_router_port port[GEMINI_NUM_TORUS_PORTS];
	struct gemini_router router;
	struct gemini_diag diag[GEMINI_DIAG_SLOTS];
	uint64_t nic_ctr[VGEMINI_COUNTERS_PER_BLK];

	/* Target side: translation tables, completion queues, counters */
	struct gemini_nat nat;
	struct gemini_cq cq[GEMINI_NUM_CQ];
	struct gemini_rmt_stats rmt;

	/* Source side: FMA descriptors, SSIDs, ORB */
	struct gemini_fma fma;
};

/*
 * Check @cfg and set up @nic.  Returns 0, or -1 with a message in @err.
 * Ports start unattached; attach them with gemini_port_attach().
 */
int gemini_nic_init(struct gemini_nic *nic, const struct gemini_config *cfg,
		    const struct gemini_ops *ops, void *opaque,
		    char *err, size_t errlen);
/* Device reset: guest-visible registers only; links stay as cabled. */
void gemini_nic_reset(struct gemini_nic *nic);
/* Free what gemini_nic_init() and the router allocated. */
void gemini_nic_fini(struct gemini_nic *nic);
/*
 * Own window @i (< GEMINI_OWN_WINDOWS) is [@base, @base + @size) on the
 * bus; @size 0 forgets it.  The glue calls this whenever a BAR moves.
 */
void gemini_nic_set_own_window(struct gemini_nic *nic, unsigned int i,
			       uint64_t base, uint64_t size);
/*
 * Every DMA of the core goes through these: 0, or -1 when the bus refused
 * or the range touches one of the device's own windows.
 */
int gemini_dma_read(const struct gemini_nic *nic, uint64_t addr, void *buf,
		    size_t len);
int gemini_dma_write(const struct gemini_nic *nic, uint64_t addr,
		     const void *buf, size_t len);

/* BAR0, the control block.  @size is the guest's access size. */
enum gemini_access gemini_ctl_read(struct gemini_nic *nic, uint64_t offset,
				   unsigned int size, uint64_t *val);
enum gemini_access gemini_ctl_write(struct gemini_nic *nic, uint64_t offset,
				    unsigned int size, uint64_t val);
/*
 * The name of the control register that byte @offset of BAR0 is in, as
 * vgemini_ctl.h names it without VGEMINI_CTL_ ("SCRATCH", "PORT_STATE",
 * "PC_VC0_PHITS"), for traces and logs; "?" where there is none.  Never
 * NULL.  An 8-byte access is named by its first word's register.
 */
const char *gemini_ctl_reg_name(uint64_t offset);

/* BAR2, the NIC address window (Gemini's map). */
enum gemini_access gemini_window_read(struct gemini_nic *nic, uint64_t offset,
				      unsigned int size, uint64_t *val);
enum gemini_access gemini_window_write(struct gemini_nic *nic,
				       uint64_t offset, unsigned int size,
				       uint64_t val);

/*
 * A 4- or 8-byte access (@size, already checked aligned) at byte @at (0
 * or 4) of the 64-bit register @reg whose defined bits are @mask: a read
 * fills *@val, a write merges *@val into the half or whole qword.
 */
static inline void gemini_reg_access(uint64_t *reg, uint64_t mask,
				     unsigned int at, unsigned int size,
				     uint64_t *val, bool write)
{
	unsigned int shift = at * 8;

	if (size == 8) {
		if (write)
			*reg = *val & mask;
		else
			*val = *reg;
	} else if (write) {
		*reg = ((*reg & ~(0xffffffffull << shift)) |
			((*val & 0xffffffffull) << shift)) & mask;
	} else {
		*val = (*reg >> shift) & 0xffffffffull;
	}
}

/* The PE of @nic's neighbour through @port in a healthy torus. */
uint32_t gemini_neighbour_pe(const struct gemini_nic *nic, unsigned int port);

/* --- Ports and their neighbours' liveness (gemini_port.c) --- */

/*
 * Attach @port to the link @view shows (gemini_link_if.h: what the core
 * writes and reads there, and what the transport must do), publishing our
 * side with @epoch (must differ between attaches of the same port).  The
 * view is copied.  Returns 0, or -1 with a message in @err if @port is bad
 * or @view incomplete.
 */
int gemini_port_attach(struct gemini_nic *nic, unsigned int port,
		       const struct gemini_link_view *view, uint64_t epoch,
		       char *err, size_t errlen);
/* Withdraw our side so the peer sees the link down at once. */
void gemini_port_detach(struct gemini_nic *nic, unsigned int port);
/*
 * Judge the neighbour on attached @port at @now_ms by its side of the
 * link (alive, miswired, down) and set the port's state accordingly.
 */
void gemini_port_judge_peer(struct gemini_nic *nic, unsigned int port,
			    uint64_t now_ms);
const char *gemini_port_name(unsigned int port);
const char *gemini_port_state_name(enum vgemini_port_state state);

/* --- Scheduling: what drives the blocks (gemini_nic.c) --- */

/*
 * Advance the link layer to time @now_ms: send our heartbeats and judge
 * each neighbour.  The glue calls it every VGEMINI_LINK_HEARTBEAT_MS.
 */
void gemini_nic_tick(struct gemini_nic *nic, uint64_t now_ms);

/*
 * Do all the work the links, the router and the NIC have: take packets
 * in, move them on, send, retry, time out.  The glue calls it when a
 * doorbell rings, when its deadline timer fires and after anything that
 * may have given the device work.  Returns the next time (clock_ns) at
 * which it must be called even if nothing happens, or UINT64_MAX.
 */
uint64_t gemini_nic_poll(struct gemini_nic *nic);

/* --- Router (gemini_router.c) --- */

/*
 * Load a routing-table image (@len bytes at @img) into the router.
 * Returns 0, or -1 with a message in @err; the old table then stays.
 */
int gemini_router_load(struct gemini_nic *nic, const void *img, size_t len,
		       char *err, size_t errlen);
/* Hold all traffic (true) or let it go again (false). */
void gemini_router_quiesce(struct gemini_nic *nic, bool quiesce);
enum vgemini_fabric_state gemini_fabric_state(const struct gemini_nic *nic);
/*
 * Hand a packet from the NIC to the router.  Returns 0, or -1 when the
 * injection buffer of its VC is full.
 */
int gemini_router_inject(struct gemini_nic *nic, const struct gemini_pkt *pkt);
/* The entry for a packet from the NIC to @dest, or VGEMINI_ROUTE_NONE. */
unsigned int gemini_router_first_hop(const struct gemini_nic *nic,
				     uint32_t dest);
/*
 * Move what can move, taking the inputs round-robin; true if anything
 * did.  Nothing moves without a table or while quiesced.
 */
bool gemini_router_forward(struct gemini_nic *nic, uint64_t now);

/* Room in the NIC's injection buffer of @vc for one more packet? */
bool gemini_router_can_inject(const struct gemini_nic *nic, unsigned int vc);
/* A response nobody waits for: count it as stale, show it to the glue. */
void gemini_nic_stale_rsp(struct gemini_nic *nic, const struct gemini_pkt *pkt);

/* --- Memory translation (gemini_nat.c) --- */

/* A run of node-physical memory that one request touches. */
struct gemini_dma_piece {
	uint64_t addr;
	uint64_t len;
};

/*
 * A packet (at most 64 bytes) spans at most two MRT or GART pages, or the
 * last physical page below the GART aperture and the first GART page.
 */
#define GEMINI_NAT_MAX_PIECES	2

/*
 * MDD, MRT, MRT page size, NTT and NTT config registers; @val is read or
 * written as @write says.  GEMINI_ACCESS_UNKNOWN if @off is none of them.
 */
enum gemini_access gemini_nat_access(struct gemini_nic *nic, uint64_t off,
				     unsigned int size, uint64_t *val,
				     bool write);
/*
 * May a request with @ptag use memory domain @mdh at all?  Returns
 * GEMINI_STATUS_OK, MDD_INV or PROTECTION.
 */
unsigned int gemini_nat_check(const struct gemini_nic *nic, unsigned int ptag,
			      unsigned int mdh);
/*
 * Check a request with @ptag for [@offset, @offset + @len) of memory domain
 * @mdh (@write: it modifies memory) and translate the range into node-
 * physical pieces, at most @max.  Returns GEMINI_STATUS_OK with the pieces
 * in @piece[0..*npieces), or the status of the first check that failed
 * (MDD_INV, PROTECTION, BOUNDS, WRITE_PERM, TRANSLATION; MALFORMED for
 * @len 0 or a range needing more than @max pieces).  Writes no memory; it
 * reads the GART entries the range needs.
 */
unsigned int gemini_nat_translate(const struct gemini_nic *nic,
				  unsigned int ptag, unsigned int mdh,
				  uint64_t offset, uint64_t len, bool write,
				  struct gemini_dma_piece *piece,
				  unsigned int max, unsigned int *npieces);
/* The CQ handle of remote events of memory domain @mdh. */
unsigned int gemini_nat_cqh(const struct gemini_nic *nic, unsigned int mdh);
/* Copy between @buf and the pieces, in order; 0, or -1 if the bus refused. */
int gemini_nat_dma_read(struct gemini_nic *nic,
			const struct gemini_dma_piece *piece, unsigned int n,
			void *buf);
int gemini_nat_dma_write(struct gemini_nic *nic,
			 const struct gemini_dma_piece *piece, unsigned int n,
			 const void *buf);
void gemini_nat_reset(struct gemini_nic *nic);

/* --- Completion queues (gemini_cq.c) --- */

/* CQ descriptors and CQ user alias pages; UNKNOWN if @off is neither. */
enum gemini_access gemini_cq_access(struct gemini_nic *nic, uint64_t off,
				    unsigned int size, uint64_t *val,
				    bool write);
/*
 * Write one event (GEMINI_CQE_SRC_*, GEMINI_STATUS_*, 56 bits of @data)
 * into CQ @cqh.  Returns true if an entry was written (with the overrun
 * bit if the queue was full), false if the event was lost: CQ disabled or
 * badly programmed, bus error, or an overrun entry still unread.
 */
bool gemini_cq_event(struct gemini_nic *nic, unsigned int cqh,
		     unsigned int source, unsigned int status, uint64_t data);
void gemini_cq_reset(struct gemini_nic *nic);

/* --- Requests at the target (gemini_rmt.c) --- */

/*
 * Execute a PUT, GET, AMO or CQWRITE delivered to the NIC and inject its
 * response.  Returns false, having done nothing, when the response could
 * not be injected now: the request then waits in its input buffer.
 */
bool gemini_rmt_deliver(struct gemini_nic *nic, const struct gemini_pkt *req);

/* --- FMA, the source side (gemini_fma*.c) --- */

/*
 * FMA control pages (privileged and user alias): UNKNOWN if @off is
 * neither.  @size is 4 or 8 and aligned.
 */
enum gemini_access gemini_fma_access(struct gemini_nic *nic, uint64_t off,
				     unsigned int size, uint64_t *val,
				     bool write);
/* Is @off in an FMA PUT or GET window? */
bool gemini_fma_is_window(uint64_t off);
/* A store of @size (1, 2, 4 or 8) bytes into an FMA window. */
enum gemini_access gemini_fma_window_store(struct gemini_nic *nic,
					   uint64_t off, unsigned int size,
					   uint64_t val);
/* A response whose tag is an ORB entry's; stale if it matches none. */
void gemini_fma_response(struct gemini_nic *nic, const struct gemini_pkt *rsp);
/* Inject what waits, time requests out, finish sequences; true on progress. */
bool gemini_fma_poll(struct gemini_nic *nic, uint64_t now, uint64_t *deadline);
void gemini_fma_reset(struct gemini_nic *nic);
/*
 * Busy FMA descriptors and enabled CQs, live, as JSON, for the supervisor
 * (the "state" property).
 */
void gemini_state_json(const struct gemini_nic *nic, char *buf, size_t len);

/* --- Link channels (gemini_lcb.c) --- */

/* Room to send one more packet on @port's channel @chan? */
bool gemini_lcb_can_send(struct gemini_nic *nic, unsigned int port,
			 unsigned int chan);
/* Send @pkt on @port (channel from its vc and vclass); caller checked. */
void gemini_lcb_send(struct gemini_nic *nic, unsigned int port,
		     const struct gemini_pkt *pkt);
/* Take what the peer sent and acknowledged; returns true on progress. */
bool gemini_lcb_poll(struct gemini_nic *nic, unsigned int port,
		     uint64_t now, uint64_t *deadline);
/* Return a credit: a packet left @port's input buffer of @chan. */
void gemini_lcb_freed(struct gemini_nic *nic, unsigned int port,
		      unsigned int chan);
/* Forget all link-channel state of @port (attach, retrain, link down). */
void gemini_lcb_reset(struct gemini_nic *nic, unsigned int port);

/* --- Fault injector (gemini_fault.c) --- */

/*
 * Parse and apply a fault spec ("" / "none", or "corrupt=F,drop=F,
 * delay=F,delay-ms=N,down=0|1,seed=N").  Returns 0 or -1 with @err.
 */
int gemini_fault_set(struct gemini_nic *nic, unsigned int port,
		     const char *spec, char *err, size_t errlen);
/* Write the current fault spec of @port into @buf. */
void gemini_fault_get(const struct gemini_nic *nic, unsigned int port,
		      char *buf, size_t len);
/*
 * One draw of @f's random numbers: true with probability @ppm / 1e6.
 * Every call draws, so call it only for a fault that is set: the draws
 * of a run are then the same for the same seed.
 */
bool gemini_fault_roll(struct gemini_fault *f, uint32_t ppm);
/* One draw of @f's random numbers: a number below @n (not 0). */
unsigned int gemini_fault_pick(struct gemini_fault *f, unsigned int n);

/* --- Diagnostics (gemini_diag.c) --- */

/* Start a ping from @slot; the result shows in nic->diag[slot]. */
void gemini_diag_start(struct gemini_nic *nic, unsigned int slot,
		       uint32_t dest, uint32_t len, uint32_t count);
/* The NIC's side of diagnostic packets delivered to it. */
bool gemini_diag_deliver(struct gemini_nic *nic, const struct gemini_pkt *pkt);
void gemini_diag_poll(struct gemini_nic *nic, uint64_t now, uint64_t *deadline);
/* Write the result of @slot as JSON into @buf. */
void gemini_diag_json(const struct gemini_nic *nic, unsigned int slot,
		      char *buf, size_t len);

/* --- Counters and statistics for the supervisor (gemini_stats.c) --- */

/* The name of port counter or NIC counter @idx, or NULL. */
const char *gemini_port_counter_name(unsigned int idx);
const char *gemini_nic_counter_name(unsigned int idx);
/* JSON texts for the supervisor (QMP): counters and statistics, ports. */
void gemini_counters_json(const struct gemini_nic *nic, char *buf, size_t len);
void gemini_ports_json(const struct gemini_nic *nic, char *buf, size_t len);

/*
 * Time from @since to @now; 0 if @since is later (a timestamp taken while
 * a poll that started at @now was running).
 */
static inline uint64_t gemini_elapsed(uint64_t now, uint64_t since)
{
	return now > since ? now - since : 0;
}

#endif /* GEMINI_CORE_H */
