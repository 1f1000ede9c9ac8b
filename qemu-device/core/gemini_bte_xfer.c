// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cray-gemini device core: the BTE's transfers: PUT, GET and SEND, with
 * IMMED and FENCE, one 64-byte request at a time (a SEND's target side is
 * gemini_bte_rx.c).
 *
 * Each enabled TX channel works through its ring: it takes the descriptor
 * at its next ring index once the kernel's write index has moved past it,
 * copies its six qwords (later writes to the slot do not change the
 * transfer) and checks them: the operation, the length, a GET's 4-byte
 * alignment, and (with NAT_ENABLE) that the local domain allows the first
 * and the last bytes, so that most bad descriptors end before a packet
 * leaves.  A transfer is cut into requests that end at the 64-byte
 * boundaries of the target address, as Gemini's are, each with a tag of
 * the channel's share of the BTE's range: the target checks and executes
 * every request as it does FMA's (gemini_rmt.c).  Local memory is reached
 * through the NAT request by request (with NAT_ENABLE, else at the
 * physical address): a PUT's source is read as its request leaves, a
 * GET's data written as its response comes, so a registration that goes
 * away stops the DMA at once.  With IMMED, once every response is in and
 * all went well, a CQWRITE of user_data goes to the target domain's CQ,
 * the remote event; its answer ends the transfer.
 *
 * Sending is fair to the others: a channel sends at most BTE_QUANTUM
 * requests per round of gemini_nic_poll() and only while the router's
 * request injection buffer keeps BTE_RESERVE places for FMA and the
 * diagnostics.
 *
 * A transfer ends when nothing is left to send (or an error stopped it)
 * and every request has its response or has timed out.  Then, in order:
 * the status goes into the slot's QW5 and the flags (COMPLETE, and
 * TIMEOUT) into its QW2, both in the NIC's slot and in the CPU copy of
 * the ring; the events go into the descriptor's source CQ (source
 * GEMINI_CQE_SRC_BTE): on success CQ_LOCAL's (src_cq_data) and
 * CQ_GLOBAL's (user_data) as asked, on failure exactly one, with the
 * status, carrying user_data unless only CQ_LOCAL was asked; the read
 * index moves on; the channel's interrupt, if the descriptor and the
 * channel both ask for it.  A partial transfer never ends OK.
 *
 * A channel starts transfers in ring order and carries out up to its
 * ssid_max_num of them at once (0: GEMINI_BTE_XFERS_DEFAULT, at most
 * GEMINI_BTE_XFERS), the older ones first within its quantum; they end
 * in any order.  After a FENCE transfer starts, none starts until it and
 * every earlier one have ended.  The read index stays at the oldest
 * transfer still running; ssid_in_use counts those running.
 * CONCATENATE ends at once with INV_CMD, VMDH with VMDH_INV.
 */
#include <assert.h>
#include <string.h>

#include "gemini_core.h"
#include "gemini_reg.h"

#define TIMEOUT_NS	((uint64_t)GEMINI_FMA_TIMEOUT_MS * 1000000)
#define PAUSE_NS	((uint64_t)GEMINI_FMA_PAUSE_MS * 1000000)
#define BTE_QUANTUM	8	/* requests per channel per round */
#define BTE_RESERVE	4	/* injection places left to the others */
#define PKT_BLOCK	64	/* requests end at these boundaries */

static_assert(GEMINI_BTE_TAGS_PER_VC * GEMINI_NUM_BTE_VC ==
	      GEMINI_TAG_BTE_COUNT, "the BTE's tags, shared by its channels");

static unsigned int mode1(const struct gemini_bte_xfer *x)
{
	return (unsigned int)gemini_field(x->qw[0], GEMINI_BTE_MODE1_SHIFT,
					  GEMINI_BTE_MODE1_MASK);
}

static uint64_t xfer_len(const struct gemini_bte_xfer *x)
{
	return gemini_field(x->qw[2], GEMINI_BTE_LEN_SHIFT,
			    GEMINI_BTE_LEN_MASK);
}

static bool is_get(const struct gemini_bte_xfer *x)
{
	return mode1(x) & GEMINI_BTE_GET;
}

/* SEND is mode1's operation 0: neither PUT, GET nor CONCATENATE. */
static bool is_send(const struct gemini_bte_xfer *x)
{
	return !(mode1(x) & (GEMINI_BTE_PUT | GEMINI_BTE_GET |
			     GEMINI_BTE_CONCATENATE));
}

/* Does the transfer end with a request of its own (its tail)? */
static bool has_tail(const struct gemini_bte_xfer *x)
{
	return is_send(x) || (mode1(x) & GEMINI_BTE_IMMED);
}

static bool nat_on(const struct gemini_bte_xfer *x)
{
	return gemini_field(x->qw[3], GEMINI_BTE_MODE4_SHIFT,
			    GEMINI_BTE_MODE4_MASK) & GEMINI_BTE_NAT_ENABLE;
}

/* Where the local side starts: a domain offset, or a physical address. */
static uint64_t local_start(const struct gemini_bte_xfer *x)
{
	return nat_on(x) ? gemini_field(x->qw[3], GEMINI_BTE_SRC_OFF_SHIFT,
					GEMINI_BTE_SRC_OFF_MASK) :
			   gemini_field(x->qw[3], GEMINI_BTE_SRC_PHYS_SHIFT,
					GEMINI_BTE_SRC_PHYS_MASK);
}

static uint64_t dest_off(const struct gemini_bte_xfer *x)
{
	return gemini_field(x->qw[1], GEMINI_BTE_DEST_OFF_SHIFT,
			    GEMINI_BTE_DEST_OFF_MASK);
}

/* Translate @len bytes of the local side at @at (@write: a GET's data). */
static unsigned int local_xlate(const struct gemini_nic *nic,
				const struct gemini_bte_xfer *x, uint64_t at,
				unsigned int len, bool write,
				struct gemini_dma_piece *piece, unsigned int *n)
{
	unsigned int ptag, mdh;

	ptag = (unsigned int)gemini_field(x->qw[2], GEMINI_BTE_SRC_PTAG_SHIFT,
					  GEMINI_BTE_SRC_PTAG_MASK);
	mdh = (unsigned int)gemini_field(x->qw[3], GEMINI_BTE_SRC_MDH_SHIFT,
					 GEMINI_BTE_SRC_MDH_MASK);
	return gemini_nat_translate(nic, ptag, mdh, local_start(x) + at, len,
				    write, piece, GEMINI_NAT_MAX_PIECES, n);
}

/* The status a transfer ends with at once, or OK if it may run. */
static unsigned int xfer_check(const struct gemini_nic *nic,
			       const struct gemini_bte_xfer *x)
{
	struct gemini_dma_piece piece[GEMINI_NAT_MAX_PIECES];
	unsigned int m = mode1(x);
	unsigned int op = m & (GEMINI_BTE_PUT | GEMINI_BTE_GET |
			       GEMINI_BTE_CONCATENATE);
	uint64_t len = xfer_len(x);
	unsigned int n, edge, st;

	if (op != GEMINI_BTE_PUT && op != GEMINI_BTE_GET && op != GEMINI_BTE_SEND)
		return GEMINI_STATUS_INV_CMD;
	if (m & GEMINI_BTE_VMDH_ENABLE)
		return GEMINI_STATUS_VMDH_INV;
	if (!len)
		return GEMINI_STATUS_INV_CMD;
	/* GETs move 4-byte words (uGNI's ALIGNMENT_ERROR, spec 6.1) */
	if (op == GEMINI_BTE_GET && ((local_start(x) | dest_off(x) | len) & 3))
		return GEMINI_STATUS_INV_CMD;
	if (!nat_on(x))
		return GEMINI_STATUS_OK;
	/* Fail fast: the domain, its rights and both ends of the range */
	edge = len < 4 ? (unsigned int)len : 4;
	st = local_xlate(nic, x, 0, edge, op == GEMINI_BTE_GET, piece, &n);
	if (st == GEMINI_STATUS_OK)
		st = local_xlate(nic, x, len - edge, edge, op == GEMINI_BTE_GET,
				 piece, &n);
	return st;
}

/* Write the descriptor's end back: NIC slot, then CPU copy. */
static void write_back(struct gemini_nic *nic, unsigned int vc,
		       const struct gemini_bte_xfer *x)
{
	struct gemini_bte *b = &nic->bte;
	uint64_t *slot = b->tx[x->slot];
	uint64_t flags = GEMINI_BTE_FLAG_COMPLETE |
			 (x->timed_out ? GEMINI_BTE_FLAG_TIMEOUT : 0);
	uint64_t qw2 = (x->qw[1] & ~(GEMINI_BTE_FLAGS_MASK <<
				     GEMINI_BTE_FLAGS_SHIFT)) |
		       flags << GEMINI_BTE_FLAGS_SHIFT;
	uint64_t qw5 = (x->qw[4] & ~(GEMINI_BTE_STATUS_MASK <<
				     GEMINI_BTE_STATUS_SHIFT)) |
		       (uint64_t)x->status << GEMINI_BTE_STATUS_SHIFT;
	uint64_t copy = x->copy;
	uint8_t le[8];

	slot[4] = qw5 & GEMINI_BTE_QW5_MASK;
	slot[1] = qw2 & GEMINI_BTE_QW2_MASK;
	/* The status first: a kernel that sees COMPLETE finds it there. */
	vgemini_put_le64(le, qw5);
	if (gemini_dma_write(nic, copy + 32, le, 8) == 0) {
		vgemini_put_le64(le, qw2);
		if (gemini_dma_write(nic, copy + 8, le, 8) == 0)
			return;
	}
	GEMINI_GUEST_ERROR(nic, BTE_CPU_COPY, vc, x->slot, copy);
}

/* Transfers channel @vc may run at once: its ssid_max_num. */
static unsigned int chan_max(const struct gemini_nic *nic, unsigned int vc)
{
	unsigned int n;

	n = (unsigned int)gemini_field(nic->bte.txc.qw[vc][2],
				       GEMINI_BTE_TXC_SSID_MAX_SHIFT,
				       GEMINI_BTE_TXC_SSID_MAX_MASK);
	if (!n)
		return GEMINI_BTE_XFERS_DEFAULT;
	return n < GEMINI_BTE_XFERS ? n : GEMINI_BTE_XFERS;
}

/*
 * Channel @vc's running transfers, oldest first, into @idx: how many.
 */
static unsigned int running(const struct gemini_bte_run *r,
			    unsigned int idx[GEMINI_BTE_XFERS])
{
	unsigned int n = 0, i, j;

	for (i = 0; i < GEMINI_BTE_XFERS; i++) {
		if (!r->x[i].active)
			continue;
		/* Orders of running transfers are close: wrap-safe */
		for (j = n; j > 0 && (int32_t)(r->x[idx[j - 1]].order -
					       r->x[i].order) > 0; j--)
			idx[j] = idx[j - 1];
		idx[j] = i;
		n++;
	}
	return n;
}

/* read_index (the oldest running, or the next to start) and ssid_in_use */
static void chan_update(struct gemini_nic *nic, unsigned int vc)
{
	struct gemini_bte_run *r = &nic->bte.run[vc];
	unsigned int idx[GEMINI_BTE_XFERS];
	unsigned int n = running(r, idx);
	uint64_t *qw3 = &nic->bte.txc.qw[vc][2];

	*qw3 = (*qw3 & ~(GEMINI_BTE_TXC_RD_MASK |
			 (GEMINI_BTE_TXC_INUSE_MASK <<
			  GEMINI_BTE_TXC_INUSE_SHIFT))) |
	       (n ? r->x[idx[0]].idx : r->next) |
	       (uint64_t)n << GEMINI_BTE_TXC_INUSE_SHIFT;
}

/* Transfer @x of channel @vc has ended: write back, events, indices. */
static void xfer_finish(struct gemini_nic *nic, unsigned int vc,
			struct gemini_bte_xfer *x)
{
	unsigned int m = mode1(x);
	unsigned int cq = (unsigned int)gemini_field(x->qw[2],
						     GEMINI_BTE_SRC_CQ_SHIFT,
						     GEMINI_BTE_SRC_CQ_MASK);
	uint64_t local = gemini_field(x->qw[4], GEMINI_BTE_SRC_CQ_DATA_SHIFT,
				      GEMINI_BTE_SRC_CQ_DATA_MASK);
	uint64_t global = x->qw[5];

	write_back(nic, vc, x);
	if (x->status == GEMINI_STATUS_OK) {
		if (m & GEMINI_BTE_CQ_LOCAL)
			gemini_cq_event(nic, cq, GEMINI_CQE_SRC_BTE,
					GEMINI_STATUS_OK, local);
		if (m & GEMINI_BTE_CQ_GLOBAL)
			gemini_cq_event(nic, cq, GEMINI_CQE_SRC_BTE,
					GEMINI_STATUS_OK, global);
	} else {
		bool only_local = (m & GEMINI_BTE_CQ_LOCAL) &&
				  !(m & GEMINI_BTE_CQ_GLOBAL);

		gemini_cq_event(nic, cq, GEMINI_CQE_SRC_BTE, x->status,
				only_local ? local : global);
	}
	x->active = false;
	chan_update(nic, vc);
	if (gemini_field(x->qw[1], GEMINI_BTE_MODE2_SHIFT,
			 GEMINI_BTE_MODE2_MASK) & GEMINI_BTE_IRQ_ENABLE)
		gemini_bte_chan_irq(nic, GEMINI_BTE_DIR_TX, vc);
}

/*
 * Start the next descriptor of channel @vc's ring if the kernel gave one,
 * the channel has room for it and no FENCE holds it back.
 */
static bool xfer_start(struct gemini_nic *nic, unsigned int vc)
{
	struct gemini_bte *b = &nic->bte;
	struct gemini_bte_run *r = &b->run[vc];
	unsigned int base = gemini_bte_ring(b->txc.ring_base, vc);
	unsigned int count = gemini_bte_ring(b->txc.ring_count, vc);
	unsigned int wr = (unsigned int)(b->txc.qw[vc][3] &
					 GEMINI_BTE_WR_INDEX_MASK);
	unsigned int idx[GEMINI_BTE_XFERS], n, i;
	struct gemini_bte_xfer *x = NULL;

	if (r->next == wr || r->next >= count)
		return false;
	n = running(r, idx);
	/* The last FENCE holds until it and every earlier one have ended. */
	if (r->fence &&
	    (!n || (int32_t)(r->x[idx[0]].order - r->fence) > 0))
		r->fence = 0;
	if (n >= chan_max(nic, vc) || r->fence)
		return false;
	for (i = 0; i < GEMINI_BTE_XFERS && !x; i++)
		if (!r->x[i].active)
			x = &r->x[i];
	if (!x)		/* cannot be: chan_max() <= GEMINI_BTE_XFERS */
		return false;
	memset(x, 0, sizeof(*x));
	x->active = true;
	x->idx = r->next;
	if (!++r->started)
		r->started++;	/* 0 stands for no FENCE */
	x->order = r->started;
	x->slot = (uint16_t)(base + r->next);
	memcpy(x->qw, b->tx[x->slot], sizeof(x->qw));
	/* Where it is written back, whatever the ring becomes meanwhile */
	x->copy = b->txc.qw[vc][1] +
		  (uint64_t)r->next * GEMINI_BTE_TX_DESC_BYTES;
	r->next = (uint16_t)((r->next + 1) % count);
	x->status = (uint8_t)xfer_check(nic, x);
	if (is_send(x) && x->status == GEMINI_STATUS_OK)
		x->seq = b->send_seq[vc]++ & GEMINI_REQ_P4_MDH_MASK;
	if (mode1(x) & GEMINI_BTE_FENCE)
		r->fence = x->order;
	chan_update(nic, vc);
	return true;
}

/*
 * Read @len bytes of the local side at @at into @rd or, without @rd,
 * write them from @wr: a status.
 */
static unsigned int local_dma(struct gemini_nic *nic,
			      const struct gemini_bte_xfer *x, uint64_t at,
			      unsigned int len, void *rd, const void *wr)
{
	struct gemini_dma_piece piece[GEMINI_NAT_MAX_PIECES];
	unsigned int n, st;
	int err;

	if (!nat_on(x)) {
		uint64_t phys = local_start(x) + at;

		err = rd ? gemini_dma_read(nic, phys, rd, len) :
			   gemini_dma_write(nic, phys, wr, len);
		return err ? GEMINI_STATUS_HT_DATA : GEMINI_STATUS_OK;
	}
	/* Translated again each time: the domain may have changed. */
	st = local_xlate(nic, x, at, len, !rd, piece, &n);
	if (st != GEMINI_STATUS_OK)
		return st;
	err = rd ? gemini_nat_dma_read(nic, piece, n, rd) :
		   gemini_nat_dma_write(nic, piece, n, wr);
	return err ? GEMINI_STATUS_HT_DATA : GEMINI_STATUS_OK;
}

static int tag_alloc(struct gemini_bte_run *r, uint64_t now)
{
	unsigned int k;

	for (k = 0; k < GEMINI_BTE_TAGS_PER_VC; k++) {
		if (r->tag_state[k] == GEMINI_BTE_TAG_RESTING &&
		    gemini_elapsed(now, r->tag_since[k]) >= TIMEOUT_NS)
			r->tag_state[k] = GEMINI_BTE_TAG_FREE;
		if (r->tag_state[k] == GEMINI_BTE_TAG_FREE)
			return (int)k;
	}
	return -1;
}

/*
 * The request of channel @vc's transfer @x for @len bytes at @at (@len 0:
 * the IMMED CQWRITE), if the router has room and a tag is free: 1 sent,
 * 0 not now, -1 the transfer failed (its status set).
 */
static int send_req(struct gemini_nic *nic, unsigned int vc,
		    struct gemini_bte_xfer *x, uint64_t now, uint64_t at,
		    unsigned int len)
{
	struct gemini_bte_run *r = &nic->bte.run[vc];
	uint64_t dest_pe = gemini_field(x->qw[0], GEMINI_BTE_DEST_PE_SHIFT,
					GEMINI_BTE_DEST_PE_MASK);
	unsigned int m = mode1(x), st;
	struct gemini_pkt pkt;
	int k;

	if (gemini_router_inject_room(nic, GEMINI_VC_REQ) <= BTE_RESERVE)
		return 0;
	k = tag_alloc(r, now);
	if (k < 0)
		return 0;
	memset(&pkt, 0, sizeof(pkt));
	if (is_send(x)) {
		/* A piece at its offset in the message, or its end */
		pkt.type = GEMINI_PKT_SEND;
		pkt.amo_op = (uint8_t)vc;
		pkt.mdh = x->seq;
		pkt.addr = len ? at : xfer_len(x);
		pkt.len = (uint8_t)len;
		if (!len && (m & GEMINI_BTE_IMMED)) {
			pkt.len = GEMINI_AMO_OPERAND_BYTES;
			vgemini_put_le64(pkt.data, x->qw[5]);
		} else if (len) {
			st = local_dma(nic, x, at, len, pkt.data, NULL);
			if (st != GEMINI_STATUS_OK) {
				x->status = (uint8_t)st;
				return -1;
			}
		}
	} else if (!len) {
		pkt.type = GEMINI_PKT_CQWRITE;
		pkt.len = GEMINI_AMO_OPERAND_BYTES;
		vgemini_put_le64(pkt.data, x->qw[5]);
	} else if (is_get(x)) {
		pkt.type = GEMINI_PKT_GET;
		pkt.len = (uint8_t)len;
		pkt.addr = dest_off(x) + at;
	} else {
		st = local_dma(nic, x, at, len, pkt.data, NULL);
		if (st != GEMINI_STATUS_OK) {
			x->status = (uint8_t)st;
			return -1;
		}
		pkt.type = GEMINI_PKT_PUT;
		pkt.len = (uint8_t)len;
		pkt.addr = dest_off(x) + at;
	}
	pkt.vc = GEMINI_VC_REQ;
	pkt.dst = (uint16_t)GEMINI_PE_GEMINI_ID(dest_pe);
	pkt.dst_nic = (uint8_t)GEMINI_PE_NIC_ID(dest_pe);
	pkt.src = (uint16_t)nic->gemini_id;
	pkt.ptag = (uint8_t)gemini_field(x->qw[2], GEMINI_BTE_DEST_PTAG_SHIFT,
					 GEMINI_BTE_DEST_PTAG_MASK);
	if (!is_send(x))
		pkt.mdh = (uint16_t)gemini_field(x->qw[1],
						 GEMINI_BTE_DEST_MDH_SHIFT,
						 GEMINI_BTE_DEST_MDH_MASK);
	pkt.tag = (uint16_t)(GEMINI_TAG_BTE_FIRST +
			     vc * GEMINI_BTE_TAGS_PER_VC + k);
	pkt.flags = (m & GEMINI_BTE_ADP_ENABLE ? GEMINI_PKT_F_ADAPT : 0) |
		    (m & GEMINI_BTE_HASH_ENABLE ? GEMINI_PKT_F_HASH : 0) |
		    ((is_send(x) ? !len : at + len == xfer_len(x)) ?
		     GEMINI_PKT_F_LAST : 0);
	if (gemini_router_inject(nic, &pkt)) {
		/* Room was checked: only a malformed request fails. */
		x->status = GEMINI_STATUS_MALFORMED;
		return -1;
	}
	if (pkt.type == GEMINI_PKT_GET)
		gemini_nic_count(nic, VGEMINI_NC_BTE_GET_PKTS, 1);
	else if (pkt.type != GEMINI_PKT_CQWRITE)
		gemini_nic_count(nic, VGEMINI_NC_BTE_PUT_PKTS, 1);
	r->tag_state[k] = GEMINI_BTE_TAG_SENT;
	r->tag_since[k] = now;
	r->tag_len[k] = (uint8_t)len;
	r->tag_at[k] = (uint32_t)at;
	r->tag_xfer[k] = (uint8_t)(x - r->x);
	if (!nic->bte.next_timeout || now + TIMEOUT_NS < nic->bte.next_timeout)
		nic->bte.next_timeout = now + TIMEOUT_NS;
	x->outstanding++;
	return 1;
}

/* Send requests of channel @vc's transfer @x, up to *@budget of them. */
static bool xfer_send(struct gemini_nic *nic, unsigned int vc,
		      struct gemini_bte_xfer *x, uint64_t now,
		      unsigned int *budget)
{
	uint64_t len = xfer_len(x);
	bool progress = false;

	for (; *budget && x->issued < len && x->status == GEMINI_STATUS_OK;
	     --*budget) {
		/* A SEND's pieces are cut at its own offsets */
		uint64_t addr = (is_send(x) ? 0 : dest_off(x)) + x->issued;
		unsigned int plen = PKT_BLOCK - (unsigned int)(addr % PKT_BLOCK);
		int rc;

		if (plen > len - x->issued)
			plen = (unsigned int)(len - x->issued);
		rc = send_req(nic, vc, x, now, x->issued, plen);
		if (rc <= 0) {
			progress |= rc < 0;
			break;
		}
		x->issued += plen;
		progress = true;
	}
	/* The remote event or the end, after the data: every response in */
	if (has_tail(x) && !x->tail_sent &&
	    x->status == GEMINI_STATUS_OK && x->issued == len &&
	    !x->outstanding && *budget) {
		int rc = send_req(nic, vc, x, now, len, 0);

		x->tail_sent = rc > 0;
		*budget -= rc > 0;
		progress |= rc != 0;
	}
	return progress;
}

/* Nothing is left to send or to wait for. */
static bool xfer_done(const struct gemini_bte_xfer *x)
{
	if (x->outstanding)
		return false;
	if (x->status != GEMINI_STATUS_OK)
		return true;
	return x->issued == xfer_len(x) && (x->tail_sent || !has_tail(x));
}

/* Requests without a response for TIMEOUT_NS end their transfer. */
static void timeouts(struct gemini_nic *nic, uint64_t now, uint64_t *deadline)
{
	struct gemini_bte *b = &nic->bte;
	uint64_t next = 0;
	unsigned int vc, k;

	if (!b->next_timeout)
		return;
	if (now > b->next_timeout && now - b->next_timeout > PAUSE_NS) {
		/* This QEMU did not run: the time does not count (as FMA). */
		uint64_t late = now - b->next_timeout + PAUSE_NS;

		for (vc = 0; vc < GEMINI_NUM_BTE_VC; vc++)
			for (k = 0; k < GEMINI_BTE_TAGS_PER_VC; k++)
				if (b->run[vc].tag_state[k])
					b->run[vc].tag_since[k] += late;
		b->next_timeout += late;
	}
	if (now < b->next_timeout) {
		if (b->next_timeout < *deadline)
			*deadline = b->next_timeout;
		return;
	}
	for (vc = 0; vc < GEMINI_NUM_BTE_VC; vc++) {
		struct gemini_bte_run *r = &b->run[vc];
		struct gemini_bte_xfer *x;

		for (k = 0; k < GEMINI_BTE_TAGS_PER_VC; k++) {
			uint64_t end = r->tag_since[k] + TIMEOUT_NS;

			if (r->tag_state[k] == GEMINI_BTE_TAG_FREE)
				continue;
			if (now >= end &&
			    r->tag_state[k] == GEMINI_BTE_TAG_RESTING) {
				r->tag_state[k] = GEMINI_BTE_TAG_FREE;
				continue;
			}
			if (now >= end) {
				/* A request lost: its transfer fails. */
				r->tag_state[k] = GEMINI_BTE_TAG_RESTING;
				r->tag_since[k] = now;
				end = now + TIMEOUT_NS;
				x = &r->x[r->tag_xfer[k]];
				if (x->outstanding)
					x->outstanding--;
				if (x->status == GEMINI_STATUS_OK)
					x->status = GEMINI_STATUS_TIMEOUT;
				x->timed_out = true;
			}
			if (!next || end < next)
				next = end;
		}
	}
	b->next_timeout = next;
	if (next && next < *deadline)
		*deadline = next;
}

bool gemini_bte_poll(struct gemini_nic *nic, uint64_t now, uint64_t *deadline)
{
	bool progress = false;
	unsigned int vc;

	timeouts(nic, now, deadline);
	for (vc = 0; vc < GEMINI_NUM_BTE_VC; vc++) {
		struct gemini_bte_run *r = &nic->bte.run[vc];
		unsigned int idx[GEMINI_BTE_XFERS], budget = BTE_QUANTUM;
		unsigned int n, i;

		while (gemini_bte_chan_enabled(nic, GEMINI_BTE_DIR_TX, vc) &&
		       xfer_start(nic, vc))
			progress = true;
		/*
		 * Each running transfer gets its share of the quantum, and
		 * the first turn goes round: a long transfer, which could
		 * take every free tag, does not hold back a short one.
		 */
		n = running(r, idx);
		for (i = 0; i < n; i++) {
			struct gemini_bte_xfer *x = &r->x[idx[(r->turn + i) % n]];
			unsigned int share = BTE_QUANTUM / n ? BTE_QUANTUM / n : 1;

			if (share > budget)
				share = budget;
			budget -= share;
			progress |= xfer_send(nic, vc, x, now, &share);
			budget += share;
			if (xfer_done(x)) {
				xfer_finish(nic, vc, x);
				progress = true;
			}
		}
		r->turn++;
	}
	return progress;
}

/* A GET's DATA response for tag @k: written where its request said. */
static unsigned int get_data(struct gemini_nic *nic, unsigned int vc,
			     unsigned int k, const struct gemini_pkt *rsp)
{
	struct gemini_bte_run *r = &nic->bte.run[vc];
	struct gemini_bte_xfer *x = &r->x[r->tag_xfer[k]];
	unsigned int st;

	if (rsp->type != GEMINI_PKT_DATA || rsp->len != r->tag_len[k])
		return GEMINI_STATUS_MALFORMED;
	st = local_dma(nic, x, r->tag_at[k], rsp->len, NULL, rsp->data);
	if (st != GEMINI_STATUS_OK)
		GEMINI_GUEST_ERROR(nic, BTE_GET_LOCAL, vc, x->slot, st);
	return st;
}

void gemini_bte_response(struct gemini_nic *nic, const struct gemini_pkt *rsp)
{
	unsigned int t = rsp->tag - GEMINI_TAG_BTE_FIRST;
	unsigned int vc = t / GEMINI_BTE_TAGS_PER_VC;
	unsigned int k = t % GEMINI_BTE_TAGS_PER_VC;
	struct gemini_bte_xfer *x;
	struct gemini_bte_run *r;

	if (!gemini_tag_is_bte(rsp->tag)) {
		gemini_nic_stale_rsp(nic, rsp);
		return;
	}
	r = &nic->bte.run[vc];
	if (r->tag_state[k] == GEMINI_BTE_TAG_RESTING) {
		/*
		 * The one answer to a request given up on (timed out, or its
		 * channel reset): nothing else can come for the tag now.
		 */
		r->tag_state[k] = GEMINI_BTE_TAG_FREE;
		gemini_nic_stale_rsp(nic, rsp);
		return;
	}
	x = &r->x[r->tag_xfer[k]];
	if (r->tag_state[k] != GEMINI_BTE_TAG_SENT || !x->active) {
		gemini_nic_stale_rsp(nic, rsp);
		return;
	}
	r->tag_state[k] = GEMINI_BTE_TAG_FREE;
	if (x->outstanding)
		x->outstanding--;
	if (x->status != GEMINI_STATUS_OK)
		return;
	if (rsp->type == GEMINI_PKT_ERR)
		x->status = rsp->status ? rsp->status : GEMINI_STATUS_MALFORMED;
	else if (r->tag_len[k] && is_get(x))
		x->status = (uint8_t)get_data(nic, vc, k, rsp);
	else if (rsp->type != GEMINI_PKT_ACK)
		x->status = GEMINI_STATUS_MALFORMED;
}

void gemini_bte_chan_reset(struct gemini_nic *nic, unsigned int vc)
{
	struct gemini_bte_run *r = &nic->bte.run[vc];
	uint64_t now = nic->ops->clock_ns(nic->opaque);
	unsigned int idx[GEMINI_BTE_XFERS], n, i, k;

	/* Requests in flight: their tags rest, their answers are stale. */
	for (k = 0; k < GEMINI_BTE_TAGS_PER_VC; k++) {
		if (r->tag_state[k] != GEMINI_BTE_TAG_SENT)
			continue;
		r->tag_state[k] = GEMINI_BTE_TAG_RESTING;
		r->tag_since[k] = now;
		if (!nic->bte.next_timeout ||
		    now + TIMEOUT_NS < nic->bte.next_timeout)
			nic->bte.next_timeout = now + TIMEOUT_NS;
	}
	/* The running transfers end, oldest first, before the indices go. */
	n = running(r, idx);
	for (i = 0; i < n; i++) {
		struct gemini_bte_xfer *x = &r->x[idx[i]];

		x->outstanding = 0;
		x->status = GEMINI_BTE_ST_TERMINATED;
		xfer_finish(nic, vc, x);
	}
	r->next = 0;
	r->fence = 0;
	chan_update(nic, vc);
}
