// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cray-gemini device core: requests at the target (Gemini's RMT side).
 *
 * A PUT, GET, AMO or CQWRITE delivered to the NIC is checked and
 * translated by the NAT (gemini_nat.c), executed against node memory and
 * answered with exactly one response to its source: ACK (PUT, CQWRITE,
 * non-fetching AMO), DATA (GET, fetching AMO: the 8-byte old value) or
 * ERR with a status code.  Every check comes before the first byte moves,
 * so a refused request leaves memory as it was.
 *
 *  - AMOs operate on a little-endian 8-byte word at an offset aligned to
 *    8 bytes, 16 for AX (GHAL_AAX_ALIGNMENT); a misaligned AMO is refused
 *    with MALFORMED.  Every AMO needs a WRITABLE domain, a failing CSWAP
 *    included.  The device does one thing at a time, so the read, modify
 *    and write of an AMO cannot interleave with any other NIC operation:
 *    AMOs are atomic with respect to each other and to PUTs and GETs of
 *    every NIC.  As on Gemini they are not atomic with respect to the
 *    node's CPUs.
 *  - CQWRITE names a memory domain (mdh; the address is ignored): after
 *    the MDD and ptag checks, the low 56 bits of its 8-byte payload go as
 *    an event with source RMT_SREQ to the CQ of that MDD (its cqh).  If
 *    the CQ cannot take it (disabled, badly programmed, an overrun entry
 *    still unread) the answer is ERR with status 0xf, "CQ error".
 *  - A PUT, GET or AMO with GEMINI_PKT_F_REMOTE_EVENT raises, once it has
 *    succeeded, an event with source RMT_SREQ, status OK and data 0 on the
 *    MDD's CQ.  The FMA does not set the flag: it delivers a sequence's
 *    remote event, with the sync's data, in the sequence's flag (a PUT
 *    with GEMINI_PKT_F_FLAG, the data in its second 8 bytes) or, without
 *    a flag, as a CQWRITE, sent after the sequence's last response
 *    (gemini_fma_seq.c); either is answered "CQ error" if the CQ cannot
 *    take it (after the flag is written).  Any other remote event
 *    the CQ cannot take is lost at the target (gemini_cq_event() counts
 *    and reports it); the request's answer does not change, since its
 *    data already moved.
 *  - A bus error while moving data (no memory at the translated address)
 *    answers HT_DATA; a PUT may then have written its first page.
 *
 * A sequence's flag (a PUT with GEMINI_PKT_F_FLAG) may be sent before
 * the sequence's requests are answered, saying how many there are: the
 * target counts the requests of each sequence (their seq) it executed,
 * and writes the flag once it has executed them all, as Gemini's RMT
 * does.  One that comes first is held until they have come; if one of
 * them failed here the flag is answered with its error and not written;
 * one held GEMINI_FMA_TIMEOUT_MS is given up unanswered (its source
 * times it out).  So a flag is never written before its data.
 *
 * A SEND piece goes to the BTE's RX side (gemini_bte_rx.c) and is answered
 * ACK or ERR as it says.
 *
 * A request is executed only when its response can be injected at once;
 * otherwise it waits, untouched, in its input buffer and is delivered
 * again later.  So no request is ever executed twice.
 */
#include <string.h>

#include "gemini_core.h"

static unsigned int bus_error(struct gemini_nic *nic,
			      const struct gemini_pkt *req,
			      const struct gemini_dma_piece *piece)
{
	GEMINI_GUEST_ERROR(nic, RMT_BUS, req->src, piece->addr, req->mdh,
			   req->addr);
	return GEMINI_STATUS_HT_DATA;
}

/* After a request succeeded: its remote event, if it asked for one. */
static void remote_event(struct gemini_nic *nic, const struct gemini_pkt *req)
{
	if (!(req->flags & GEMINI_PKT_F_REMOTE_EVENT))
		return;
	gemini_cq_event(nic, gemini_nat_cqh(nic, req->mdh),
			GEMINI_CQE_SRC_RMT_SREQ, GEMINI_STATUS_OK, 0);
}

static unsigned int rmt_put(struct gemini_nic *nic,
			    const struct gemini_pkt *req,
			    struct gemini_pkt *rsp)
{
	struct gemini_dma_piece piece[GEMINI_NAT_MAX_PIECES];
	unsigned int n, status;

	unsigned int len = req->flags & GEMINI_PKT_F_FLAG ?
			   GEMINI_PKT_FLAG_BYTES : req->len;

	status = gemini_nat_translate(nic, req->ptag, req->mdh, req->addr,
				      len, true, piece,
				      GEMINI_NAT_MAX_PIECES, &n);
	if (status != GEMINI_STATUS_OK)
		return status;
	if (gemini_nat_dma_write(nic, piece, n, req->data))
		return bus_error(nic, req, piece);
	rsp->type = GEMINI_PKT_ACK;
	if (!(req->flags & GEMINI_PKT_F_FLAG)) {
		remote_event(nic, req);
		return GEMINI_STATUS_OK;
	}
	/* A sequence's flag: its remote event, as a CQWRITE would raise it */
	if ((req->flags & GEMINI_PKT_F_REMOTE_EVENT) &&
	    !gemini_cq_event(nic, gemini_nat_cqh(nic, req->mdh),
			     GEMINI_CQE_SRC_RMT_SREQ, GEMINI_STATUS_OK,
			     vgemini_get_le64(req->data + GEMINI_PKT_FLAG_EVENT_OFF) &
			     GEMINI_CQE_DATA_MASK))
		return GEMINI_STATUS_OVERRUN;	/* "CQ error" */
	return GEMINI_STATUS_OK;
}

static unsigned int rmt_get(struct gemini_nic *nic,
			    const struct gemini_pkt *req,
			    struct gemini_pkt *rsp)
{
	struct gemini_dma_piece piece[GEMINI_NAT_MAX_PIECES];
	unsigned int n, status;

	status = gemini_nat_translate(nic, req->ptag, req->mdh, req->addr,
				      req->len, false, piece,
				      GEMINI_NAT_MAX_PIECES, &n);
	if (status != GEMINI_STATUS_OK)
		return status;
	if (gemini_nat_dma_read(nic, piece, n, rsp->data))
		return bus_error(nic, req, piece);
	remote_event(nic, req);
	rsp->type = GEMINI_PKT_DATA;
	rsp->len = req->len;
	return GEMINI_STATUS_OK;
}

static unsigned int rmt_amo(struct gemini_nic *nic,
			    const struct gemini_pkt *req,
			    struct gemini_pkt *rsp)
{
	struct gemini_dma_piece piece[GEMINI_NAT_MAX_PIECES];
	uint64_t align = req->amo_op == GEMINI_AMO_AX ? GEMINI_AMO_AX_ALIGN :
			 GEMINI_AMO_ALIGN;
	uint64_t op1 = vgemini_get_le64(req->data), op2 = 0, old, val;
	uint8_t buf[GEMINI_AMO_OPERAND_BYTES];
	unsigned int n, status;
	bool store = true;

	if (req->len >= 2 * GEMINI_AMO_OPERAND_BYTES)
		op2 = vgemini_get_le64(req->data + GEMINI_AMO_OPERAND_BYTES);
	status = gemini_nat_translate(nic, req->ptag, req->mdh, req->addr,
				      GEMINI_AMO_OPERAND_BYTES, true, piece,
				      GEMINI_NAT_MAX_PIECES, &n);
	if (status != GEMINI_STATUS_OK)
		return status;
	if (req->addr & (align - 1))
		return GEMINI_STATUS_MALFORMED;
	/* Aligned 8 bytes never cross a page: n is 1. */
	if (gemini_nat_dma_read(nic, piece, n, buf))
		return bus_error(nic, req, piece);
	old = vgemini_get_le64(buf);
	switch (req->amo_op) {
	case GEMINI_AMO_ADD:
		val = old + op1;
		break;
	case GEMINI_AMO_AND:
		val = old & op1;
		break;
	case GEMINI_AMO_OR:
		val = old | op1;
		break;
	case GEMINI_AMO_XOR:
		val = old ^ op1;
		break;
	case GEMINI_AMO_AX:
		val = (old & op1) ^ op2;
		break;
	case GEMINI_AMO_CSWAP:
		val = op2;
		store = old == op1;
		break;
	default:
		/* The decoder lets no other operation through. */
		return GEMINI_STATUS_INV_CMD;
	}
	if (store) {
		vgemini_put_le64(buf, val);
		if (gemini_nat_dma_write(nic, piece, n, buf))
			return bus_error(nic, req, piece);
	}
	remote_event(nic, req);
	if (req->flags & GEMINI_PKT_F_FETCH) {
		rsp->type = GEMINI_PKT_DATA;
		rsp->len = GEMINI_AMO_OPERAND_BYTES;
		vgemini_put_le64(rsp->data, old);
	} else {
		rsp->type = GEMINI_PKT_ACK;
	}
	return GEMINI_STATUS_OK;
}

static unsigned int rmt_cqwrite(struct gemini_nic *nic,
				const struct gemini_pkt *req,
				struct gemini_pkt *rsp)
{
	unsigned int status = gemini_nat_check(nic, req->ptag, req->mdh);

	if (status != GEMINI_STATUS_OK)
		return status;
	if (!gemini_cq_event(nic, gemini_nat_cqh(nic, req->mdh),
			     GEMINI_CQE_SRC_RMT_SREQ, GEMINI_STATUS_OK,
			     vgemini_get_le64(req->data) & GEMINI_CQE_DATA_MASK))
		return GEMINI_STATUS_OVERRUN;	/* "CQ error" */
	rsp->type = GEMINI_PKT_ACK;
	return GEMINI_STATUS_OK;
}

/* Execute @req (well-formed), its answer into @rsp; returns its status. */
static unsigned int rmt_execute(struct gemini_nic *nic,
				const struct gemini_pkt *req,
				struct gemini_pkt *rsp)
{
	unsigned int status;

	switch (req->type) {
	case GEMINI_PKT_PUT:
		status = rmt_put(nic, req, rsp);
		break;
	case GEMINI_PKT_GET:
		status = rmt_get(nic, req, rsp);
		break;
	case GEMINI_PKT_AMO:
		status = rmt_amo(nic, req, rsp);
		break;
	case GEMINI_PKT_CQWRITE:
		status = rmt_cqwrite(nic, req, rsp);
		break;
	case GEMINI_PKT_SEND:
		status = gemini_bte_rx_deliver(nic, req);
		rsp->type = GEMINI_PKT_ACK;
		break;
	default:
		status = GEMINI_STATUS_INV_CMD;
		break;
	}
	return status;
}

/* Answer @req with @rsp, or with ERR @status; room was checked. */
static void rmt_answer(struct gemini_nic *nic, const struct gemini_pkt *req,
		       struct gemini_pkt *rsp, unsigned int status)
{
	rsp->vc = GEMINI_VC_RSP;
	rsp->dst = req->src;
	rsp->dst_nic = req->src_nic;
	rsp->tag = req->tag;
	if (status != GEMINI_STATUS_OK) {
		rsp->type = GEMINI_PKT_ERR;
		rsp->status = (uint8_t)status;
		rsp->len = 0;
		memset(rsp->data, 0, sizeof(rsp->data));
		nic->rmt.req_refused++;
	} else {
		nic->rmt.req_done++;
	}
	/* The response is well-formed: it goes. */
	gemini_router_inject(nic, rsp);
}

/* --- sequences ---------------------------------------------------------- */

#define HOLD_NS		((uint64_t)GEMINI_FMA_TIMEOUT_MS * 1000000)

static uint64_t flag_count(const struct gemini_pkt *flag)
{
	return vgemini_get_le64(flag->data + GEMINI_PKT_FLAG_COUNT_OFF);
}

static bool is_flag(const struct gemini_pkt *req)
{
	return req->type == GEMINI_PKT_PUT && (req->flags & GEMINI_PKT_F_FLAG);
}

static void seq_free(struct gemini_nic *nic, struct gemini_rmt_seq *e)
{
	if (e->held)
		nic->rmt_seq.held--;
	e->used = false;
	e->held = false;
}

/*
 * The entry of sequence @seq of (@src, @src_nic); else with @create a new
 * one in place of the least recently used of its set that holds no flag,
 * or with @evict_held, of the least recently used: NULL if none.
 */
static struct gemini_rmt_seq *seq_find(struct gemini_nic *nic, uint16_t src,
				       uint8_t src_nic, uint32_t seq,
				       bool create, bool evict_held)
{
	struct gemini_rmt_seqs *t = &nic->rmt_seq;
	uint32_t h = (seq * 0x9e3779b1u) ^ ((uint32_t)src << 2 | src_nic);
	struct gemini_rmt_seq *set = t->e[(h ^ h >> 16) % GEMINI_RMT_SEQ_SETS];
	struct gemini_rmt_seq *e, *victim = NULL;
	unsigned int w;

	for (w = 0; w < GEMINI_RMT_SEQ_WAYS; w++) {
		e = &set[w];
		if (e->used && e->seq == seq && e->src == src &&
		    e->src_nic == src_nic) {
			e->stamp = ++t->stamp;
			return e;
		}
		if (!victim || !e->used ||
		    (victim->used && (victim->held > e->held ||
				      (victim->held == e->held &&
				       e->stamp < victim->stamp))))
			victim = e;
	}
	if (!create || (victim->held && !evict_held))
		return NULL;
	if (victim->held) {
		/* Its source times the flag out, and sends its data again. */
		nic->rmt.flags_dropped++;
	}
	seq_free(nic, victim);
	memset(victim, 0, sizeof(*victim));
	victim->used = true;
	victim->src = src;
	victim->src_nic = src_nic;
	victim->seq = seq;
	victim->stamp = ++t->stamp;
	return victim;
}

/* A request of a sequence was executed here, with @status. */
static void seq_count(struct gemini_nic *nic, const struct gemini_pkt *req,
		      unsigned int status)
{
	struct gemini_rmt_seq *e = seq_find(nic, req->src, req->src_nic,
					    req->seq, true, false);

	/* Not counted: its flag, if it has one, is given up. */
	if (!e)
		return;
	if (status == GEMINI_STATUS_OK)
		e->done++;
	else if (!e->status)
		e->status = (uint8_t)status;
}

/*
 * Answer a flag whose sequence @e (NULL: not known here) is complete or
 * failed: its error, or its write.  Room was checked.
 */
static void flag_answer(struct gemini_nic *nic, const struct gemini_pkt *flag,
			struct gemini_rmt_seq *e)
{
	struct gemini_pkt rsp = { 0 };
	unsigned int status;

	if (e && e->status)
		status = e->status;
	else if (e && e->done != flag_count(flag))
		status = GEMINI_STATUS_MALFORMED;	/* more than it said */
	else
		status = rmt_execute(nic, flag, &rsp);
	if (e)
		seq_free(nic, e);
	rmt_answer(nic, flag, &rsp, status);
}

/* A flag arrived: answer it, or hold it until its requests are in. */
static void flag_deliver(struct gemini_nic *nic, const struct gemini_pkt *req,
			 uint64_t now)
{
	uint64_t n = flag_count(req);
	struct gemini_rmt_seq *e;

	if (!req->seq || !n) {
		/* Its requests are answered: nothing to wait for. */
		e = req->seq ? seq_find(nic, req->src, req->src_nic, req->seq,
					false, false) : NULL;
		if (e)
			seq_free(nic, e);
		flag_answer(nic, req, NULL);
		return;
	}
	e = seq_find(nic, req->src, req->src_nic, req->seq, true, true);
	if (e->status || e->done >= n) {
		flag_answer(nic, req, e);
		return;
	}
	e->held = true;
	e->held_ns = now;
	e->flag = *req;
	nic->rmt_seq.held++;
	nic->rmt.flags_held++;
}

bool gemini_rmt_poll(struct gemini_nic *nic, uint64_t now, uint64_t *deadline)
{
	struct gemini_rmt_seqs *t = &nic->rmt_seq;
	bool progress = false;
	unsigned int i, w;

	if (!t->held)
		return false;
	for (i = 0; i < GEMINI_RMT_SEQ_SETS && t->held; i++) {
		for (w = 0; w < GEMINI_RMT_SEQ_WAYS; w++) {
			struct gemini_rmt_seq *e = &t->e[i][w];

			if (!e->used || !e->held)
				continue;
			if (e->status || e->done >= flag_count(&e->flag)) {
				if (!gemini_router_can_inject(nic,
							      GEMINI_VC_RSP))
					return progress;
				flag_answer(nic, &e->flag, e);
				progress = true;
			} else if (gemini_elapsed(now, e->held_ns) >= HOLD_NS) {
				nic->rmt.flags_dropped++;
				seq_free(nic, e);
				progress = true;
			} else if (e->held_ns + HOLD_NS < *deadline) {
				*deadline = e->held_ns + HOLD_NS;
			}
		}
	}
	return progress;
}

void gemini_rmt_reset(struct gemini_nic *nic)
{
	memset(&nic->rmt_seq, 0, sizeof(nic->rmt_seq));
}

bool gemini_rmt_deliver(struct gemini_nic *nic, const struct gemini_pkt *req)
{
	struct gemini_pkt rsp = { 0 };
	unsigned int status;

	/* Execute only what can be answered at once (see above). */
	if (!gemini_router_can_inject(nic, GEMINI_VC_RSP)) {
		nic->rmt.req_waits++;
		return false;
	}
	/* The decoder lets no such packet through; callers could. */
	if (req->len > GEMINI_PKT_MAX_DATA ||
	    (req->type == GEMINI_PKT_AMO &&
	     req->len != GEMINI_AMO_LEN(req->amo_op)) ||
	    (req->type == GEMINI_PKT_CQWRITE &&
	     req->len != GEMINI_AMO_OPERAND_BYTES) ||
	    (is_flag(req) && req->len != GEMINI_PKT_FLAG_LEN)) {
		rmt_answer(nic, req, &rsp, GEMINI_STATUS_MALFORMED);
		return true;
	}
	if (is_flag(req)) {
		flag_deliver(nic, req, nic->ops->clock_ns(nic->opaque));
		return true;
	}
	status = rmt_execute(nic, req, &rsp);
	if (req->seq && req->type != GEMINI_PKT_SEND)
		seq_count(nic, req, status);
	rmt_answer(nic, req, &rsp, status);
	return true;
}

const struct gemini_rmt_stats *gemini_rmt_stats(const struct gemini_nic *nic)
{
	return &nic->rmt;
}
