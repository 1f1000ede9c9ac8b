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
			   GEMINI_AMO_OPERAND_BYTES : req->len;

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
			     vgemini_get_le64(req->data + 8) &
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

bool gemini_rmt_deliver(struct gemini_nic *nic, const struct gemini_pkt *req)
{
	struct gemini_pkt rsp = {
		.vc = GEMINI_VC_RSP,
		.dst = req->src,
		.dst_nic = req->src_nic,
		.tag = req->tag,
	};
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
	    (req->type == GEMINI_PKT_PUT && (req->flags & GEMINI_PKT_F_FLAG) &&
	     req->len != GEMINI_PKT_FLAG_LEN(req->flags))) {
		status = GEMINI_STATUS_MALFORMED;
		goto answer;
	}
	switch (req->type) {
	case GEMINI_PKT_PUT:
		status = rmt_put(nic, req, &rsp);
		break;
	case GEMINI_PKT_GET:
		status = rmt_get(nic, req, &rsp);
		break;
	case GEMINI_PKT_AMO:
		status = rmt_amo(nic, req, &rsp);
		break;
	case GEMINI_PKT_CQWRITE:
		status = rmt_cqwrite(nic, req, &rsp);
		break;
	case GEMINI_PKT_SEND:
		status = gemini_bte_rx_deliver(nic, req);
		rsp.type = GEMINI_PKT_ACK;
		break;
	default:
		status = GEMINI_STATUS_INV_CMD;
		break;
	}
answer:
	if (status != GEMINI_STATUS_OK) {
		rsp.type = GEMINI_PKT_ERR;
		rsp.status = (uint8_t)status;
		rsp.len = 0;
		memset(rsp.data, 0, sizeof(rsp.data));
		nic->rmt.req_refused++;
	} else {
		nic->rmt.req_done++;
	}
	/* Room was checked and the response is well-formed: it goes. */
	gemini_router_inject(nic, &rsp);
	return true;
}

const struct gemini_rmt_stats *gemini_rmt_stats(const struct gemini_nic *nic)
{
	return &nic->rmt;
}
