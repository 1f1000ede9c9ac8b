/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cray-gemini device core: the BTE, the NIC's block transfer engine
 * (gemini_bte.c).  Its registers in the NIC window: TX descriptors, TX
 * channel descriptors and their rings, non-posted operation control, RX
 * descriptors and RX channel descriptors (uapi/gemini_nic.h), and the
 * engine that carries out the TX channels' transfers (gemini_bte_xfer.c)
 * and receives SEND messages on the RX channels (gemini_bte_rx.c)
 * (Documentation/device.rst, "Block transfer engine").
 */
#ifndef GEMINI_BTE_H
#define GEMINI_BTE_H

#include <stdbool.h>
#include <stdint.h>

#include "gemini_hw.h"
#include "gemini_nic.h"
#include "gemini_packet.h"
#include "gemini_reg.h"

/* One direction's channel descriptors and rings. */
struct gemini_bte_chans {
	uint64_t qw[GEMINI_NUM_BTE_VC][GEMINI_BTE_CHAN_QWORDS];
	uint64_t ring_base;		/* one u16 per VC */
	uint64_t ring_count;
};

/* Tags of the BTE's range (gemini_core.h), an equal share per channel */
#define GEMINI_BTE_TAGS_PER_VC	96

enum gemini_bte_tag_state {
	GEMINI_BTE_TAG_FREE = 0,
	GEMINI_BTE_TAG_SENT,		/* a request waits for its response */
	GEMINI_BTE_TAG_RESTING,		/* timed out: not reused yet */
};

/*
 * Transfers a TX channel carries out at once: its ssid_max_num, 0
 * meaning GEMINI_BTE_XFERS_DEFAULT, at most GEMINI_BTE_XFERS.
 */
#define GEMINI_BTE_XFERS		8
#define GEMINI_BTE_XFERS_DEFAULT	4

/* A transfer of a TX channel. */
struct gemini_bte_xfer {
	bool active;
	uint16_t slot;			/* its TX descriptor */
	uint16_t idx;			/* its ring index */
	uint32_t order;			/* when it started, in its channel; not 0 */
	uint64_t qw[GEMINI_BTE_TX_DESC_QWORDS];	/* as it was at its start */
	uint64_t copy;			/* its CPU copy, fixed at its start */
	uint64_t issued;		/* bytes sent in requests */
	uint32_t outstanding;		/* requests without a response */
	uint8_t status;			/* first error, or OK */
	bool timed_out;
	bool tail_sent;			/* IMMED's CQWRITE, SEND's end sent */
	uint16_t seq;			/* SEND: the message's sequence */
};

/* What a TX channel's engine keeps besides its registers. */
struct gemini_bte_run {
	uint16_t next;			/* ring index of the next to start */
	uint32_t started;		/* transfers started: the next order */
	uint32_t fence;			/* order of the last FENCE, 0: none */
	uint32_t turn;			/* whose turn is first in a round */
	struct gemini_bte_xfer x[GEMINI_BTE_XFERS];
	uint8_t tag_state[GEMINI_BTE_TAGS_PER_VC];
	uint8_t tag_xfer[GEMINI_BTE_TAGS_PER_VC];	/* its transfer */
	uint8_t tag_len[GEMINI_BTE_TAGS_PER_VC];	/* 0: the CQWRITE */
	uint32_t tag_at[GEMINI_BTE_TAGS_PER_VC];	/* its place in it */
	uint64_t tag_since[GEMINI_BTE_TAGS_PER_VC];
};

/* A SEND message arriving on an RX channel (gemini_bte_rx.c) */
#define GEMINI_BTE_RX_MSGS	16	/* per RX channel, at most */

struct gemini_bte_rx_msg {
	bool used;
	uint8_t status;			/* its first error: later pieces too */
	uint8_t src_nic;
	uint16_t src;			/* with src_nic and seq: its key */
	uint16_t seq;
	uint16_t slot;			/* its RX descriptor */
	uint64_t since;			/* its last piece */
};

/* Which channels: transmit or receive */
enum gemini_bte_dir { GEMINI_BTE_DIR_TX = 0, GEMINI_BTE_DIR_RX = 1 };

struct gemini_bte {
	uint64_t tx[GEMINI_NUM_BTE_TX][GEMINI_BTE_TX_DESC_QWORDS];
	struct gemini_bte_chans txc;
	uint64_t np_ctrl[GEMINI_NUM_BTE_VC];
	uint64_t rx[GEMINI_NUM_BTE_RX];
	struct gemini_bte_chans rxc;
	struct gemini_bte_run run[GEMINI_NUM_BTE_VC];
	uint64_t next_timeout;		/* earliest tag deadline, or 0 */
	uint16_t send_seq[GEMINI_NUM_BTE_VC];	/* next SEND's, per channel */
	struct gemini_bte_rx_msg rx_msg[GEMINI_NUM_BTE_VC][GEMINI_BTE_RX_MSGS];
};

/* The u16 of @vc in a ring base or count register. */
static inline unsigned int gemini_bte_ring(uint64_t reg, unsigned int vc)
{
	return (unsigned int)gemini_field(reg, GEMINI_BTE_RING_FIELD(vc),
					  0xffff);
}

struct gemini_nic;

/* The BTE's regions of the NIC window (gemini_reg.h). */
extern const struct gemini_window_region gemini_bte_tx_desc_region;
extern const struct gemini_window_region gemini_bte_tx_chan_region;
extern const struct gemini_window_region gemini_bte_tx_ring_region;
extern const struct gemini_window_region gemini_bte_np_ctrl_region;
extern const struct gemini_window_region gemini_bte_rx_desc_region;
extern const struct gemini_window_region gemini_bte_rx_chan_region;
extern const struct gemini_window_region gemini_bte_rx_ring_region;
/*
 * The BTE's registers, at their offsets in the window: UNKNOWN if @off is
 * none of them.  @size is 4 or 8 and @off aligned to it (the window
 * checked).
 */
enum gemini_access gemini_bte_access(struct gemini_nic *nic, uint64_t off,
				     unsigned int size, uint64_t *val,
				     bool write);
/* Device reset: channels disabled, rings and descriptors cleared. */
void gemini_bte_reset(struct gemini_nic *nic);
/* Is channel @vc of direction @dir enabled? */
bool gemini_bte_chan_enabled(const struct gemini_nic *nic,
			     enum gemini_bte_dir dir, unsigned int vc);
/*
 * Has the BTE sent requests in the last GEMINI_FMA_TIMEOUT_MS (its
 * transfers' ACKs end them and raise their events: they must not wait)?
 */
bool gemini_bte_busy(const struct gemini_nic *nic);
/*
 * Start, send, time out and complete the TX channels' transfers
 * (gemini_bte_xfer.c); true on progress, *@deadline lowered to the next
 * time something times out.
 */
bool gemini_bte_poll(struct gemini_nic *nic, uint64_t now, uint64_t *deadline);
/* A response whose tag is in the BTE's range; stale if nothing waits. */
void gemini_bte_response(struct gemini_nic *nic, const struct gemini_pkt *rsp);
/* TX channel @vc was reset: its transfers end as terminated. */
void gemini_bte_chan_reset(struct gemini_nic *nic, unsigned int vc);
/*
 * The interrupt of channel @vc of direction @dir, if the channel enables
 * it: its irq_req_index, or Gemini's index for the channel if that is 0.
 */
void gemini_bte_chan_irq(struct gemini_nic *nic, enum gemini_bte_dir dir,
			 unsigned int vc);
/*
 * A SEND piece for this NIC (gemini_bte_rx.c): written into the posted
 * RX buffer it belongs to; the status its answer carries.
 */
unsigned int gemini_bte_rx_deliver(struct gemini_nic *nic,
				   const struct gemini_pkt *req);
/* End messages whose source went quiet; *@deadline lowered as needed. */
bool gemini_bte_rx_poll(struct gemini_nic *nic, uint64_t now,
			uint64_t *deadline);
/* RX channel @ch was reset: the messages arriving on it are forgotten. */
void gemini_bte_rx_reset(struct gemini_nic *nic, unsigned int ch);

#endif /* GEMINI_BTE_H */
