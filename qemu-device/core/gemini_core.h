/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cray-gemini device core: what the NIC and its router decide, in plain C11
 * with no QEMU header.  The QEMU glue (qemu-device/qemu/) owns the BARs,
 * MSI-X, DMA and timers and calls in here; the core calls out through
 * struct gemini_ops.  Everything a guest writes is checked here.
 *
 * The core is made of blocks, each with a header that holds its state and
 * its API (Documentation/architecture.rst has the map).  struct gemini_nic
 * puts their states together in one allocation; a block's files touch
 * only their own members of it and reach the others through their APIs
 * (scripts/check-core-blocks.py, in the style stage, holds the list of
 * who owns which member).  The device's identity (ops, cfg, ids) is read
 * by all.
 */
#ifndef GEMINI_CORE_H
#define GEMINI_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gemini_bte.h"
#include "gemini_cq.h"
#include "gemini_ctl.h"
#include "gemini_diag.h"
#include "gemini_fault.h"
#include "gemini_fma.h"
#include "gemini_guest_error.h"
#include "gemini_hw.h"
#include "gemini_link_if.h"
#include "gemini_nat.h"
#include "gemini_nic.h"
#include "gemini_packet.h"
#include "gemini_port.h"
#include "gemini_reg.h"
#include "gemini_rmt.h"
#include "gemini_router.h"
#include "gemini_stats.h"
#include "vgemini_ctl.h"
#include "vgemini_le.h"
#include "vgemini_link.h"
#include "vgemini_names.h"
#include "vgemini_route.h"

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

/*
 * Transaction tags (10 bits, carried by a request and its response), in
 * three ranges, so that the NIC hands each response to the engine that
 * owns its tag (vgemini: Gemini has one ORB of 1024 entries):
 *
 *   0x000-0x1ff  FMA: the ORB entry, 0..GEMINI_ORB_SIZE - 1
 *   0x200-0x37f  the BTE (GEMINI_TAG_BTE_COUNT tags)
 *   0x380-0x3ff  the diagnostic ping engines: bit 6 the slot, bits 5..0
 *                a sequence number
 */
#define GEMINI_TAG_BTE_FIRST	0x200u
#define GEMINI_TAG_BTE_COUNT	0x180u
#define GEMINI_TAG_DIAG		0x380u
#define GEMINI_TAG_DIAG_SLOT	0x040u
#define GEMINI_TAG_DIAG_SEQ	0x03fu

static inline bool gemini_tag_is_diag(unsigned int tag)
{
	return (tag & GEMINI_TAG_DIAG) == GEMINI_TAG_DIAG;
}

static inline bool gemini_tag_is_bte(unsigned int tag)
{
	return tag >= GEMINI_TAG_BTE_FIRST &&
	       tag < GEMINI_TAG_BTE_FIRST + GEMINI_TAG_BTE_COUNT;
}

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
	/* The device (gemini_core.c): read by every block */
	const struct gemini_ops *ops;
	void *opaque;
	struct gemini_config cfg;
	uint32_t gemini_id;
	uint32_t pe;
	uint32_t num_nodes;
	struct gemini_own_window own[GEMINI_OWN_WINDOWS];

	struct gemini_ctl ctl;		/* gemini_ctl.c */
	/* Ports and link channels: gemini_port.c, gemini_lcb.c */
	struct gemini_router_port port[GEMINI_NUM_TORUS_PORTS];
	uint32_t link_irq;
	struct gemini_fault fault[GEMINI_NUM_TORUS_PORTS]; /* gemini_fault.c */
	struct gemini_router router;	/* gemini_router.c */
	uint64_t nic_ctr[VGEMINI_COUNTERS_PER_BLK];	/* gemini_nic.c */
	struct gemini_diag diag[GEMINI_DIAG_SLOTS];	/* gemini_diag.c */

	/* Target side */
	struct gemini_nat nat;		/* gemini_nat.c */
	struct gemini_cq cq[GEMINI_NUM_CQ];	/* gemini_cq.c */
	struct gemini_cq_stats cq_stats;	/* gemini_cq.c */
	struct gemini_rmt_stats rmt;	/* gemini_rmt.c */
	struct gemini_rmt_seqs rmt_seq;	/* gemini_rmt.c */

	/* Source side */
	struct gemini_fma fma;		/* gemini_fma*.c */
	struct gemini_bte bte;		/* gemini_bte.c */
};

/* --- The device (gemini_core.c) --- */

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
/* BAR2, the NIC address window (Gemini's map). */
enum gemini_access gemini_window_read(struct gemini_nic *nic, uint64_t offset,
				      unsigned int size, uint64_t *val);
enum gemini_access gemini_window_write(struct gemini_nic *nic,
				       uint64_t offset, unsigned int size,
				       uint64_t val);
/*
 * gemini_window_write(), its result in @r; true when the store may have
 * left work for gemini_nic_poll(): FMA issued a request, or the store
 * went to another block (BTE, CQ, NAT), or a sync asked for an event
 * while ACKs could wait (gemini_nic_publish_acks()).  An FMA store that
 * issued nothing (a sync whose requests are still out, a descriptor
 * register) left none: what it finished (events, interrupts) it did itself.
 */
bool gemini_window_store(struct gemini_nic *nic, uint64_t offset,
			 unsigned int size, uint64_t val,
			 enum gemini_access *r);
/*
 * The regions of BAR2 that the blocks decode, by base (gemini_reg.h), @n
 * of them: the one table gemini_window_read() and _write() look in.
 */
const struct gemini_window_region *const *gemini_window_regions(unsigned int *n);

/* --- The outside, through gemini_ops (gemini_bus.c) --- */

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

/*
 * Raise MSI-X vector @vector unless it is VGEMINI_IRQ_NONE; a vector the
 * glue does not provide is a guest error.
 */
void gemini_nic_raise_irq(struct gemini_nic *nic, uint32_t vector);

/* --- Scheduling and the NIC's counters (gemini_nic.c) --- */

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
/*
 * gemini_nic_poll() without arming our doorbells: for a caller that will
 * poll again soon (a CPU posting), so that peers answering it need not
 * ring.  Some other caller must then poll with gemini_nic_poll() once
 * this one stops, or what peers publish waits for the next tick.
 */
uint64_t gemini_nic_poll_unarmed(struct gemini_nic *nic);
/*
 * May an ACK for us wait in the links for our next poll?  Yes while no
 * FMA sequence that asked for an event or a flag is open and the BTE is
 * idle: then nobody waits for our ACKs but the resources they hold, and a
 * poll comes within 500 us while requests are out.
 */
bool gemini_nic_acks_lazy(const struct gemini_nic *nic);
/*
 * Publish gemini_nic_acks_lazy() to the neighbours (vgemini_link.h,
 * acks_lazy); true if it became "no": the links need one more look.
 */
bool gemini_nic_publish_acks(struct gemini_nic *nic);
/*
 * A packet the router brought to this node: to the RMT (requests), the
 * diagnostics (pings) or the engine that owns its tag (responses); a
 * request the NIC does not implement is answered with an error.  False
 * if the taker cannot have it now (it stays in the router's buffer).
 */
bool gemini_nic_deliver(struct gemini_nic *nic, const struct gemini_pkt *pkt);
/* A response nobody waits for: count it as stale, show it to the glue. */
void gemini_nic_stale_rsp(struct gemini_nic *nic, const struct gemini_pkt *pkt);

/* Add @n to NIC counter VGEMINI_NC_@idx; read one. */
void gemini_nic_count(struct gemini_nic *nic, unsigned int idx, uint64_t n);
uint64_t gemini_nic_counter(const struct gemini_nic *nic, unsigned int idx);
/* The NIC's counters in the control block. */
extern const struct gemini_ctl_table gemini_nic_ctl_table;

/*
 * Time from @since to @now; 0 if @since is later (a timestamp taken while
 * a poll that started at @now was running).
 */
static inline uint64_t gemini_elapsed(uint64_t now, uint64_t since)
{
	return now > since ? now - since : 0;
}

#endif /* GEMINI_CORE_H */
