/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cray-gemini device core: the completion queues (gemini_cq.c), their
 * descriptors and user alias pages in the NIC window, and the events the
 * other blocks write into them.
 */
#ifndef GEMINI_CQ_H
#define GEMINI_CQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gemini_json.h"
#include "gemini_nic.h"
#include "gemini_reg.h"

/* One completion queue. */
struct gemini_cq {
	uint64_t qw[GEMINI_CQ_DESC_QWORDS];	/* descriptor; wr_index is ours */
	uint32_t irq_count;		/* events since the last interrupt */
	bool overrun;			/* an overrun entry waits at wr_index */
};

/* What the queues did, for the supervisor. */
struct gemini_cq_stats {
	uint64_t events;		/* entries written (overrun ones too) */
	uint64_t overruns;		/* events that found their CQ full */
	uint64_t lost;			/* events not written (gemini_cq.c) */
};

struct gemini_nic;

/* The CQs' regions of the NIC window (gemini_reg.h). */
extern const struct gemini_window_region gemini_cq_desc_region;
extern const struct gemini_window_region gemini_cq_user_region;
/*
 * CQ descriptors and CQ user alias pages, at their offsets in the window;
 * UNKNOWN if @off is neither.  @size is 4 or 8 and @off aligned to it
 * (the window checked).
 */
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
const struct gemini_cq_stats *gemini_cq_stats(const struct gemini_nic *nic);
/* The enabled CQs, as the elements of a JSON array. */
void gemini_cq_state_json(const struct gemini_nic *nic, struct gemini_json *j);

#endif /* GEMINI_CQ_H */
