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

#include "gemini_hw.h"
#include "vgemini_ctl.h"
#include "vgemini_link.h"

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
	/* Node memory; return 0 on success, negative if the bus refused. */
	int (*dma_read)(void *opaque, uint64_t addr, void *buf, size_t len);
	int (*dma_write)(void *opaque, uint64_t addr, const void *buf,
			 size_t len);
	/* Raise MSI-X vector @vector (always < num_vectors). */
	void (*raise_irq)(void *opaque, unsigned int vector);
	/* A guest programming error, already formatted; may be NULL. */
	void (*guest_error)(void *opaque, const char *msg);
	/* A router port changed state; for tracing, may be NULL. */
	void (*port_changed)(void *opaque, unsigned int port,
			     enum vgemini_port_state state, uint32_t peer);
};

struct gemini_config {
	uint32_t coord[3];		/* x, y, z */
	uint32_t dims[3];		/* X, Y, Z */
	unsigned int num_vectors;	/* MSI-X vectors the glue provides */
};

struct gemini_router_port {
	volatile struct vgemini_link_shm *shm;	/* NULL: nothing attached */
	unsigned int side;		/* our side of the link: 0 "+", 1 "-" */
	enum vgemini_port_state state;
	uint32_t peer;			/* PE learnt from the peer's side */
	uint32_t expected;		/* PE the topology puts there */
	uint32_t changes;		/* state changes since attach */
	uint64_t heartbeat;		/* our own counter */
	uint64_t seen_hb;		/* the peer's counter when last read */
	uint64_t seen_epoch;		/* the peer's epoch when last read */
	uint64_t seen_ms;		/* when the peer last showed life */
	bool seen_valid;		/* seen_* hold a real observation */
};

struct gemini_nic {
	const struct gemini_ops *ops;
	void *opaque;
	struct gemini_config cfg;
	uint32_t gemini_id;
	uint32_t pe;

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

/* BAR0, the control block.  @size is the guest's access size. */
enum gemini_access gemini_ctl_read(struct gemini_nic *nic, uint64_t offset,
				   unsigned int size, uint64_t *val);
enum gemini_access gemini_ctl_write(struct gemini_nic *nic, uint64_t offset,
				    unsigned int size, uint64_t val);

/* BAR2, the NIC address window (Gemini's map). */
enum gemini_access gemini_window_read(struct gemini_nic *nic, uint64_t offset,
				      unsigned int size, uint64_t *val);
enum gemini_access gemini_window_write(struct gemini_nic *nic,
				       uint64_t offset, unsigned int size,
				       uint64_t val);

/* The PE of @nic's neighbour through @port in a healthy torus. */
uint32_t gemini_neighbour_pe(const struct gemini_nic *nic, unsigned int port);

/*
 * Attach @port to a link mapped at @mem (@len bytes), publishing our side
 * with @epoch (must differ between attaches of the same port).  Returns 0,
 * or -1 with a message in @err if the mapping is too small or @port bad.
 */
int gemini_port_attach(struct gemini_nic *nic, unsigned int port, void *mem,
		       size_t len, uint64_t epoch, char *err, size_t errlen);
/* Withdraw our side so the peer sees the link down at once. */
void gemini_port_detach(struct gemini_nic *nic, unsigned int port);

/*
 * Advance the link layer to time @now_ms: send our heartbeats and judge
 * each neighbour.  The glue calls it every VGEMINI_LINK_HEARTBEAT_MS.
 */
void gemini_nic_tick(struct gemini_nic *nic, uint64_t now_ms);

const char *gemini_port_name(unsigned int port);
const char *gemini_port_state_name(enum vgemini_port_state state);

#endif /* GEMINI_CORE_H */
