/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cray-gemini device core: the diagnostic ping engines (gemini_diag.c)
 * and their control registers.
 */
#ifndef GEMINI_DIAG_H
#define GEMINI_DIAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gemini_packet.h"
#include "gemini_reg.h"
#include "vgemini_ctl.h"

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

struct gemini_nic;

/* Start a ping from @slot; the result shows in gemini_diag_json(). */
void gemini_diag_start(struct gemini_nic *nic, unsigned int slot,
		       uint32_t dest, uint32_t len, uint32_t count);
/* Is a ping of @slot in flight? */
bool gemini_diag_busy(const struct gemini_nic *nic, unsigned int slot);
/* The NIC's side of diagnostic packets delivered to it. */
bool gemini_diag_deliver(struct gemini_nic *nic, const struct gemini_pkt *pkt);
void gemini_diag_poll(struct gemini_nic *nic, uint64_t now, uint64_t *deadline);
/* Device reset: the guest's engine; a ping in flight answers as stale. */
void gemini_diag_reset(struct gemini_nic *nic);
/* Write the result of @slot as JSON into @buf. */
void gemini_diag_json(const struct gemini_nic *nic, unsigned int slot,
		      char *buf, size_t len);
/* DIAG_*: the guest's engine. */
extern const struct gemini_ctl_table gemini_diag_ctl_table;

#endif /* GEMINI_DIAG_H */
