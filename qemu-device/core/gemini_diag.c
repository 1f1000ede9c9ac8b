// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cray-gemini device core: diagnostic pings.
 *
 * The fabric's own traffic, not IP: a DIAG request travels to any node on
 * the request VC, that node's NIC answers with a DIAG_RSP on the response
 * VC, and every router on the way records itself in the payload.  Payload
 * layout (Documentation/fabric.rst):
 *
 *   byte 0     request hops (written by the target's NIC)
 *   bytes 1-3  zero
 *   byte 4...  path records, 4 bytes each, little-endian (VGEMINI_TRACE_*),
 *              request path first, then the response path; a payload too
 *              short for them all keeps the first ones, and the response
 *              path is recorded only after a whole request path
 *
 * The response carries the request's payload, and at least the 4-byte
 * header, so that even a 0-byte ping learns its request's hop count.
 *
 * Two engines: slot 0 is driven by the guest through the control block,
 * slot 1 by the supervisor through QMP (with bursts of many pings).  A
 * ping is answered once or times out once; a response that matches no
 * ping in flight is counted as stale and dropped.
 */
#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gemini_core.h"

#define TIMEOUT_NS	((uint64_t)VGEMINI_DIAG_TIMEOUT_MS * 1000000)
#define DIAG_HDR_BYTES	4	/* before the path records */

static void diag_finish(struct gemini_nic *nic, unsigned int slot,
			uint32_t status, uint64_t now);

static void diag_send(struct gemini_nic *nic, unsigned int slot, uint64_t now)
{
	struct gemini_diag *d = &nic->diag[slot];
	struct gemini_pkt pkt = {
		.vc = GEMINI_VC_REQ,
		.type = GEMINI_PKT_DIAG,
		.dst = (uint16_t)d->dest,
		.src = (uint16_t)nic->gemini_id,
		.len = (uint8_t)d->len,
	};

	d->seq++;
	/* The diagnostic part of the tag space (gemini_core.h). */
	d->tag = GEMINI_TAG_DIAG | (slot ? GEMINI_TAG_DIAG_SLOT : 0) |
		 (d->seq & GEMINI_TAG_DIAG_SEQ);
	pkt.tag = d->tag;
	d->hops = 0;
	d->rtt_ns = 0;
	d->ntrace = 0;
	memset(d->trace, 0, sizeof(d->trace));
	if (gemini_router_first_hop(nic, d->dest) == VGEMINI_ROUTE_NONE) {
		diag_finish(nic, slot, VGEMINI_DIAG_ERR_NO_ROUTE, now);
		return;
	}
	if (gemini_router_inject(nic, &pkt)) {
		diag_finish(nic, slot, VGEMINI_DIAG_ERR_BUSY, now);
		return;
	}
	d->status = VGEMINI_DIAG_PENDING;
	d->sent_ns = now;
}

bool gemini_diag_busy(const struct gemini_nic *nic, unsigned int slot)
{
	return slot < GEMINI_DIAG_SLOTS &&
	       nic->diag[slot].status == VGEMINI_DIAG_PENDING;
}

void gemini_diag_reset(struct gemini_nic *nic)
{
	struct gemini_diag *d = &nic->diag[GEMINI_DIAG_GUEST];

	memset(d, 0, sizeof(*d));
	d->irq = VGEMINI_IRQ_NONE;
}

void gemini_diag_start(struct gemini_nic *nic, unsigned int slot,
		       uint32_t dest, uint32_t len, uint32_t count)
{
	struct gemini_diag *d;
	uint64_t now;

	if (slot >= GEMINI_DIAG_SLOTS)
		return;
	d = &nic->diag[slot];
	now = nic->ops->clock_ns(nic->opaque);
	if (d->status == VGEMINI_DIAG_PENDING) {
		/* One ping at a time per engine; the one in flight goes on. */
		return;
	}
	d->dest = dest;
	d->len = len;
	d->count = count ? count : 1;
	d->done = 0;
	d->ok = 0;
	d->failed = 0;
	d->rtt_min = UINT64_MAX;
	d->rtt_max = 0;
	d->rtt_sum = 0;
	if (dest >= nic->num_nodes) {
		diag_finish(nic, slot, VGEMINI_DIAG_ERR_DEST, now);
		d->count = d->done;
		return;
	}
	if (len > GEMINI_PKT_MAX_DATA) {
		diag_finish(nic, slot, VGEMINI_DIAG_ERR_LEN, now);
		d->count = d->done;
		return;
	}
	diag_send(nic, slot, now);
}

/* One ping ended: record it, and start the next one of a burst. */
static void diag_finish(struct gemini_nic *nic, unsigned int slot,
			uint32_t status, uint64_t now)
{
	struct gemini_diag *d = &nic->diag[slot];

	d->status = status;
	d->done++;
	if (status == VGEMINI_DIAG_DONE)
		d->ok++;
	else
		d->failed++;
	if (status == VGEMINI_DIAG_ERR_TIMEOUT)
		gemini_nic_count(nic, VGEMINI_NC_DIAG_TIMEOUTS, 1);
	if (slot == GEMINI_DIAG_GUEST && d->irq != VGEMINI_IRQ_NONE) {
		if (d->irq < nic->cfg.num_vectors)
			nic->ops->raise_irq(nic->opaque, d->irq);
		else
			GEMINI_GUEST_ERROR(nic, DIAG_IRQ_VECTOR);
	}
	/* A burst stops at errors that the next ping would repeat. */
	if (d->done < d->count && (status == VGEMINI_DIAG_DONE ||
				   status == VGEMINI_DIAG_ERR_TIMEOUT))
		diag_send(nic, slot, now);
}

static bool diag_answer(struct gemini_nic *nic, const struct gemini_pkt *req)
{
	struct gemini_pkt rsp = {
		.vc = GEMINI_VC_RSP,
		.type = GEMINI_PKT_DIAG_RSP,
		.dst = req->src,
		.dst_nic = req->src_nic,
		.tag = req->tag,
		/* Room for the header at least, to carry the request's hops. */
		.len = req->len < DIAG_HDR_BYTES ? DIAG_HDR_BYTES : req->len,
	};

	memcpy(rsp.data, req->data, req->len);
	rsp.data[0] = req->hops;
	if (gemini_router_inject(nic, &rsp))
		return false;	/* no room: the request waits */
	gemini_nic_count(nic, VGEMINI_NC_DIAG_PINGS, 1);
	return true;
}

bool gemini_diag_deliver(struct gemini_nic *nic, const struct gemini_pkt *pkt)
{
	unsigned int slot = pkt->tag & GEMINI_TAG_DIAG_SLOT ? GEMINI_DIAG_HOST :
			    GEMINI_DIAG_GUEST;
	struct gemini_diag *d = &nic->diag[slot];
	uint64_t now, rtt;
	unsigned int req_hops, room, i, n;

	if (pkt->type == GEMINI_PKT_DIAG)
		return diag_answer(nic, pkt);

	if (d->status != VGEMINI_DIAG_PENDING || pkt->tag != d->tag) {
		gemini_nic_stale_rsp(nic, pkt);
		return true;
	}
	now = nic->ops->clock_ns(nic->opaque);
	rtt = gemini_elapsed(now, d->sent_ns);
	req_hops = pkt->len >= 1 ? pkt->data[0] : 0;
	d->hops = (req_hops & 0xff) | (uint32_t)(pkt->hops & 0xff) << 8;
	d->rtt_ns = rtt > UINT32_MAX ? UINT32_MAX : (uint32_t)rtt;
	/* The records the routers had room for (see the layout above). */
	room = VGEMINI_DIAG_TRACE_ROOM(pkt->len);
	if (req_hops > room)
		n = room;
	else
		n = req_hops + (pkt->hops < room - req_hops ? pkt->hops :
				room - req_hops);
	if (n > VGEMINI_DIAG_MAX_TRACE)
		n = VGEMINI_DIAG_MAX_TRACE;
	for (i = 0; i < n; i++)
		d->trace[i] = vgemini_get_le32(&pkt->data[4 + 4 * i]);
	d->ntrace = n;
	if (rtt < d->rtt_min)
		d->rtt_min = rtt;
	if (rtt > d->rtt_max)
		d->rtt_max = rtt;
	d->rtt_sum += rtt;
	diag_finish(nic, slot, VGEMINI_DIAG_DONE, now);
	return true;
}

void gemini_diag_poll(struct gemini_nic *nic, uint64_t now, uint64_t *deadline)
{
	unsigned int slot;

	for (slot = 0; slot < GEMINI_DIAG_SLOTS; slot++) {
		struct gemini_diag *d = &nic->diag[slot];

		if (d->status != VGEMINI_DIAG_PENDING)
			continue;
		if (gemini_elapsed(now, d->sent_ns) >= TIMEOUT_NS)
			diag_finish(nic, slot, VGEMINI_DIAG_ERR_TIMEOUT, now);
		if (d->status == VGEMINI_DIAG_PENDING &&
		    d->sent_ns + TIMEOUT_NS < *deadline)
			*deadline = d->sent_ns + TIMEOUT_NS;
	}
}

static const char *status_error(uint32_t status)
{
	switch (status) {
	case VGEMINI_DIAG_ERR_TIMEOUT:
		return "\"timeout\"";
	case VGEMINI_DIAG_ERR_DEST:
		return "\"bad-dest\"";
	case VGEMINI_DIAG_ERR_LEN:
		return "\"bad-len\"";
	case VGEMINI_DIAG_ERR_BUSY:
		return "\"busy\"";
	case VGEMINI_DIAG_ERR_NO_ROUTE:
		return "\"no-route\"";
	}
	return "null";
}

/* Append to the text in @buf (@len bytes) at *@off as snprintf would. */
static void json_add(char *buf, size_t len, size_t *off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void json_add(char *buf, size_t len, size_t *off, const char *fmt, ...)
{
	va_list ap;
	int n;

	/* Cut: nothing more, and what is there stays terminated. */
	if (*off >= len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *off, len - *off, fmt, ap);
	va_end(ap);
	if (n > 0)
		*off += (size_t)n;
}

void gemini_diag_json(const struct gemini_nic *nic, unsigned int slot,
		      char *buf, size_t len)
{
	const struct gemini_diag *d = &nic->diag[slot % GEMINI_DIAG_SLOTS];
	const char *state, *err;
	size_t off = 0;
	unsigned int i;

	if (d->status == VGEMINI_DIAG_IDLE)
		state = "idle";
	else if (d->status == VGEMINI_DIAG_PENDING)
		state = "pending";
	else
		state = d->failed ? "error" : "done";
	/* Only timeouts let a burst go on, so an earlier failure was one. */
	err = d->status != VGEMINI_DIAG_DONE &&
	      d->status != VGEMINI_DIAG_PENDING ? status_error(d->status) :
	      d->failed ? status_error(VGEMINI_DIAG_ERR_TIMEOUT) : "null";
	json_add(buf, len, &off, "{\"state\": \"%s\", \"error\": %s, ",
		 state, err);
	json_add(buf, len, &off,
		 "\"seq\": %u, \"dest\": %u, \"len\": %u, \"count\": %u, ",
		 d->seq, d->dest, d->len, d->count);
	json_add(buf, len, &off, "\"done\": %u, \"ok\": %u, \"failed\": %u, ",
		 d->done, d->ok, d->failed);
	json_add(buf, len, &off, "\"hops\": [%u, %u], \"rtt_ns\": %u, ",
		 VGEMINI_DIAG_HOPS_REQ(d->hops),
		 VGEMINI_DIAG_HOPS_RSP(d->hops), d->rtt_ns);
	json_add(buf, len, &off, "\"rtt_ns_min\": %llu, \"rtt_ns_avg\": %llu, ",
		 (unsigned long long)(d->ok ? d->rtt_min : 0),
		 (unsigned long long)(d->ok ? d->rtt_sum / d->ok : 0));
	json_add(buf, len, &off, "\"rtt_ns_max\": %llu, \"path\": [",
		 (unsigned long long)d->rtt_max);
	for (i = 0; i < d->ntrace && off < len; i++) {
		uint32_t r = d->trace[i];
		unsigned int in = VGEMINI_TRACE_IN(r);

		json_add(buf, len, &off, "%s{\"node\": %u, \"out\": \"%s\", ",
			 i ? ", " : "", VGEMINI_TRACE_NODE(r),
			 gemini_port_name(VGEMINI_TRACE_OUT(r)));
		json_add(buf, len, &off,
			 "\"in\": \"%s\", \"class\": %u, \"dir\": \"%s\"}",
			 in == VGEMINI_ROUTE_IN_NIC ? VGEMINI_NIC_LABEL :
			 gemini_port_name(in), VGEMINI_TRACE_CLASS(r),
			 VGEMINI_TRACE_RSP(r) ? "rsp" : "req");
	}
	json_add(buf, len, &off, "]}");
}

/* --- Control registers: the guest's engine ------------------------------ */

static void ctl_diag_cmd(struct gemini_nic *nic, uint64_t val)
{
	struct gemini_diag *d = &nic->diag[GEMINI_DIAG_GUEST];

	if (val != VGEMINI_DIAG_CMD_PING) {
		GEMINI_GUEST_ERROR(nic, DIAG_CMD, (uint32_t)val);
		return;
	}
	if (d->status == VGEMINI_DIAG_PENDING) {
		GEMINI_GUEST_ERROR(nic, DIAG_BUSY);
		return;
	}
	gemini_diag_start(nic, GEMINI_DIAG_GUEST, d->dest, d->len, 1);
}

#define CTL		GEMINI_CTL
#define DIAG(f)		GEMINI_CTL_FIELD(diag[GEMINI_DIAG_GUEST].f)

static const struct gemini_ctl_reg diag_regs[] = {
	{ CTL(DIAG_DEST, 4, RW), DIAG(dest), .mask = UINT32_MAX },
	{ CTL(DIAG_LEN, 4, RW), DIAG(len), .mask = UINT32_MAX },
	{ CTL(DIAG_CMD, 4, WO), .write = ctl_diag_cmd },
	{ CTL(DIAG_STATUS, 4, RO), DIAG(status) },
	{ CTL(DIAG_HOPS, 4, RO), DIAG(hops) },
	{ CTL(DIAG_RTT_NS, 4, RO), DIAG(rtt_ns) },
	{ CTL(DIAG_IRQ, 4, RW), DIAG(irq), .mask = UINT32_MAX },
	{ CTL(DIAG_SEQ, 4, RO), DIAG(seq) },
	{ CTL(DIAG_NTRACE, 4, RO), DIAG(ntrace) },
	{ .offset = VGEMINI_CTL_DIAG_TRACE, .name = "DIAG_TRACE", .size = 4,
	  .access = GEMINI_CTL_RO, .count = VGEMINI_DIAG_MAX_TRACE,
	  .stride = 4, DIAG(trace[0]), .fstride = 4 },
};

#undef DIAG
#undef CTL

static_assert(sizeof(unsigned int) == 4, "DIAG_NTRACE: a u32");

const struct gemini_ctl_table gemini_diag_ctl_table =
	GEMINI_CTL_TABLE(diag_regs);
