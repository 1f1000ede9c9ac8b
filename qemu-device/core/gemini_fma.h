/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cray-gemini device core: FMA, the NIC's source side (gemini_fma.c,
 * gemini_fma_seq.c, gemini_fma_regs.c; gemini_fma_int.h is what those
 * three share).  Descriptors and their windows, synchronisation sequences
 * and the ORB of outstanding requests.
 */
#ifndef GEMINI_FMA_H
#define GEMINI_FMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gemini_json.h"
#include "gemini_nic.h"
#include "gemini_packet.h"
#include "gemini_reg.h"

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
	bool multi;			/* its requests went to several targets */
	uint16_t outstanding;		/* ORB entries of this sequence */
	uint32_t seq;			/* in its packets (gemini_rmt.c) */
	uint32_t issued;		/* requests issued (not sync packets) */
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
	uint64_t wc_merged;		/* PUT-WC stores merged into a line */
	uint64_t flags_early;		/* flags sent before their answers */
	uint64_t bi_held;		/* times balanced injection held some */
};

/*
 * The line a CPU's write-combining buffer is filling: ascending,
 * contiguous stores of one descriptor into its PUT-WC window, within one
 * 64-byte line, become one request (gemini_fma.c).
 */
struct gemini_fma_wc {
	bool open;
	unsigned int di;
	uint64_t next;			/* window offset the next store extends */
	struct gemini_pkt pkt;		/* the request, its data so far */
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
	unsigned int orb_sent;		/* entries SENT */
	unsigned int orb_limit;		/* most SENT at once, 0: any */
	/*
	 * With every entry used, no RESTING one is free for reuse before
	 * this (0: not known), so a store to a full ORB is refused without
	 * a look at all of them.
	 */
	uint64_t rest_until;
	unsigned int ssid_next;
	uint32_t seq_next;		/* the next sequence's seq */
	uint64_t next_timeout;		/* earliest deadline of an entry */
	bool sync_retry;		/* a sync packet waits for an entry */
	/* Synced sequences that asked for an event or a flag, not ended */
	unsigned int prompt_open;
	struct gemini_fma_wc wc;
	struct gemini_fma_stats stats;
};

struct gemini_nic;

/* The ORB's control register, VGEMINI_CTL_ORB_LIMIT (gemini_ctl.c) */
extern const struct gemini_ctl_table gemini_fma_ctl_table;

/* FMA control pages, the user alias and the privileged ones (gemini_reg.h). */
extern const struct gemini_window_region gemini_fma_user_region;
extern const struct gemini_window_region gemini_fma_priv_region;
/* Is @off in an FMA PUT or GET window? */
bool gemini_fma_is_window(uint64_t off);
/* True for the windows and the descriptors' registers (both aliases). */
bool gemini_fma_owns(uint64_t off);
/* How many requests FMA has issued (gemini_window_store()). */
uint64_t gemini_fma_issued(const struct gemini_nic *nic);
/*
 * Send the write-combined line, if one is open: before anything else
 * reaches the NIC, and from gemini_nic_poll().
 */
void gemini_fma_wc_flush(struct gemini_nic *nic);
/* Is a write-combined line open (the glue's poll must send it soon)? */
bool gemini_fma_wc_open(const struct gemini_nic *nic);
/* Does a synced sequence that asked for an event or a flag wait? */
bool gemini_fma_acks_wanted(const struct gemini_nic *nic);
/* Do requests of ours wait for their responses (or rest after a timeout)? */
bool gemini_fma_awaiting(const struct gemini_nic *nic);
/* A store of @size (1, 2, 4 or 8) bytes into an FMA window. */
enum gemini_access gemini_fma_window_store(struct gemini_nic *nic,
					   uint64_t off, unsigned int size,
					   uint64_t val);
/* A response whose tag is an ORB entry's; stale if it matches none. */
void gemini_fma_response(struct gemini_nic *nic, const struct gemini_pkt *rsp);
/* Inject what waits, time requests out, finish sequences; true on progress. */
bool gemini_fma_poll(struct gemini_nic *nic, uint64_t now, uint64_t *deadline);
void gemini_fma_reset(struct gemini_nic *nic);
const struct gemini_fma_stats *gemini_fma_stats(const struct gemini_nic *nic);
/* The ORB's use and the busy descriptors, as members of a JSON object. */
void gemini_fma_state_json(const struct gemini_nic *nic, struct gemini_json *j);

#endif /* GEMINI_FMA_H */
