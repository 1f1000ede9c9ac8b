// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cray-gemini device core: FMA synchronisation sequences, the ORB, and
 * the responses to FMA requests.
 *
 * Every request (gemini_fma.c) belongs to its descriptor's open
 * synchronisation sequence (SSID; one is allocated by the alloc-SyncId
 * doorbell or implicitly by the first request) and has an ORB entry whose
 * index is its tag.  The sync-complete doorbell closes the sequence; once
 * every response of it is in (in any order), the flag (WITH_FLAG: an
 * 8-byte PUT of scratch0 at offset scratch1) with the remote event in it
 * (REMOTE_EVENT: synccmp_data for the target MDD's CQ; alone, a CQWRITE)
 * is sent and answered, and the local event (source SSID_SREQ, the
 * sequence's first error or OK, data synccmp_data) goes to the
 * descriptor's CQ.  A failed sequence sends no flag and no remote event
 * and always raises its local event, asked for or not.
 *
 * A request without a response ends after GEMINI_FMA_TIMEOUT_MS with
 * REQUEST_TIMEOUT.  A response that matches no request in flight is
 * stale: counted and dropped.
 */
#include <string.h>

#include "gemini_fma_int.h"

#define TIMEOUT_NS	((uint64_t)GEMINI_FMA_TIMEOUT_MS * 1000000)
/* A poll this late after a deadline means the device itself did not run. */
#define PAUSE_NS	((uint64_t)GEMINI_FMA_PAUSE_MS * 1000000)

static uint64_t now_ns(struct gemini_nic *nic)
{
	return nic->ops->clock_ns(nic->opaque);
}

/* --- sequences ---------------------------------------------------------- */

int gemini_fma_seq_open(struct gemini_nic *nic, unsigned int di)
{
	struct gemini_fma *f = &nic->fma;
	struct gemini_fma_desc *d = &f->desc[di];
	unsigned int i;

	if (d->open != SSID_NONE)
		return d->open;
	for (i = 0; i < GEMINI_NUM_SSID; i++) {
		unsigned int si = (f->ssid_next + i) % GEMINI_NUM_SSID;
		struct gemini_fma_ssid *s = &f->ssid[si];

		if (s->used)
			continue;
		memset(s, 0, sizeof(*s));
		s->used = true;
		s->desc = (uint8_t)di;
		/*
		 * The local event goes to the CQ of whoever opened the
		 * sequence, even if the kernel hands the descriptor to
		 * another owner before it ends.
		 */
		s->cqh = (uint16_t)d_cqh(d);
		/* A request refused before the SSID existed fails it too. */
		s->status = d->pend_status;
		d->pend_status = GEMINI_STATUS_OK;
		/* 24 bits, never 0 (no sequence) */
		f->seq_next = f->seq_next % GEMINI_PKT_SEQ_MAX + 1;
		s->seq = f->seq_next;
		d->open = (int16_t)si;
		d->ssid_inuse++;
		f->ssid_next = (si + 1) % GEMINI_NUM_SSID;
		return (int)si;
	}
	f->stats.ssid_full++;
	return SSID_NONE;
}

static void seq_progress(struct gemini_nic *nic, unsigned int si);

/* --- the ORB ------------------------------------------------------------ */

static void orb_done(struct gemini_nic *nic, unsigned int t,
		     unsigned int status, bool rest, uint64_t now);

static int orb_alloc(struct gemini_nic *nic, uint64_t now)
{
	struct gemini_fma *f = &nic->fma;
	uint64_t rest_until = UINT64_MAX;
	unsigned int i;

	/* A guest may store into a full ORB in a loop: answer at once. */
	if (f->orb_used >= GEMINI_ORB_SIZE && now < f->rest_until)
		return -1;
	for (i = 0; i < GEMINI_ORB_SIZE; i++) {
		unsigned int t = (f->next_tag + i) % GEMINI_ORB_SIZE;
		struct gemini_fma_orb *o = &f->orb[t];

		if (o->state == GEMINI_ORB_RESTING) {
			if (gemini_elapsed(now, o->since_ns) >= TIMEOUT_NS) {
				o->state = GEMINI_ORB_FREE;
				f->orb_used--;
			} else if (o->since_ns + TIMEOUT_NS < rest_until) {
				rest_until = o->since_ns + TIMEOUT_NS;
			}
		}
		if (o->state != GEMINI_ORB_FREE)
			continue;
		/* Round robin: a tag is reused as late as possible. */
		f->next_tag = (t + 1) % GEMINI_ORB_SIZE;
		f->orb_used++;
		return (int)t;
	}
	/* Every entry looked at: none rests beyond this. */
	f->rest_until = rest_until;
	return -1;
}

/* Inject queued requests in order while the router takes them. */
static bool fma_drain(struct gemini_nic *nic)
{
	struct gemini_fma *f = &nic->fma;
	bool progress = false;

	while (f->qcount) {
		unsigned int t = f->queue[f->qhead];
		struct gemini_fma_orb *o = &f->orb[t];

		if (!gemini_router_can_inject(nic, GEMINI_VC_REQ))
			break;
		/* Balanced injection: the rest wait for answers. */
		if (f->orb_limit && f->orb_sent >= f->orb_limit) {
			f->stats.bi_held++;
			break;
		}
		f->qhead = (f->qhead + 1) % GEMINI_ORB_SIZE;
		f->qcount--;
		progress = true;
		if (gemini_router_inject(nic, &o->pkt)) {
			/* Room was checked: only a malformed request fails. */
			GEMINI_GUEST_ERROR(nic, FMA_NOT_ENCODABLE, o->desc);
			o->state = GEMINI_ORB_SENT;
			f->orb_sent++;
			orb_done(nic, t, GEMINI_STATUS_MALFORMED, false, 0);
			continue;
		}
		o->state = GEMINI_ORB_SENT;
		f->orb_sent++;
		/* Held back: its time-out counts from its injection. */
		if (f->orb_limit)
			o->since_ns = now_ns(nic);
		if (o->pkt.type == GEMINI_PKT_PUT)
			gemini_nic_count(nic, VGEMINI_NC_FMA_PUT_PKTS, 1);
		else if (o->pkt.type == GEMINI_PKT_GET)
			gemini_nic_count(nic, VGEMINI_NC_FMA_GET_PKTS, 1);
		else if (o->pkt.type == GEMINI_PKT_AMO)
			gemini_nic_count(nic, VGEMINI_NC_FMA_AMO_PKTS, 1);
	}
	return progress;
}

bool gemini_fma_orb_issue(struct gemini_nic *nic, unsigned int si,
			  unsigned int di, struct gemini_pkt *pkt, bool fetch,
			  uint64_t local_offset)
{
	struct gemini_fma *f = &nic->fma;
	struct gemini_fma_desc *d = &f->desc[di];
	struct gemini_fma_orb *o;
	uint64_t now = now_ns(nic);
	int t = orb_alloc(nic, now);

	if (t < 0) {
		f->stats.orb_full++;
		return false;
	}
	o = &f->orb[t];
	memset(o, 0, sizeof(*o));
	o->state = GEMINI_ORB_QUEUED;
	o->fetch = fetch;
	o->ssid = (uint8_t)si;
	o->desc = (uint8_t)di;
	o->src_ptag = (uint8_t)d_src_ptag(d);
	o->src_mdh = (uint16_t)d_src_mdh(d);
	o->local_offset = local_offset;
	o->since_ns = now;
	pkt->tag = (uint16_t)t;
	pkt->vc = GEMINI_VC_REQ;
	pkt->src = (uint16_t)nic->gemini_id;
	pkt->src_nic = 0;
	pkt->seq = f->ssid[si].seq;
	o->pkt = *pkt;
	f->ssid[si].outstanding++;
	if (fetch)
		d->rc += d->rc < GEMINI_FMA_STAT_COUNT_MASK;
	else
		d->wc += d->wc < GEMINI_FMA_STAT_COUNT_MASK;
	if (now + TIMEOUT_NS < f->next_timeout)
		f->next_timeout = now + TIMEOUT_NS;
	f->queue[(f->qhead + f->qcount) % GEMINI_ORB_SIZE] = (uint16_t)t;
	f->qcount++;
	f->stats.requests++;
	fma_drain(nic);
	return true;
}

/* Entry @t is answered (@status) or timed out (@rest: keep its tag idle). */
static void orb_done(struct gemini_nic *nic, unsigned int t,
		     unsigned int status, bool rest, uint64_t now)
{
	struct gemini_fma *f = &nic->fma;
	struct gemini_fma_orb *o = &f->orb[t];
	struct gemini_fma_desc *d = &f->desc[o->desc];
	struct gemini_fma_ssid *s = &f->ssid[o->ssid];

	if (o->state == GEMINI_ORB_SENT)
		f->orb_sent--;
	if (o->fetch)
		d->rc -= d->rc > 0;
	else
		d->wc -= d->wc > 0;
	if (status && !s->status)
		s->status = (uint8_t)status;
	if (s->outstanding)
		s->outstanding--;
	if (rest) {
		o->state = GEMINI_ORB_RESTING;
		o->since_ns = now;
		if (now + TIMEOUT_NS < f->rest_until)
			f->rest_until = now + TIMEOUT_NS;
	} else {
		o->state = GEMINI_ORB_FREE;
		f->orb_used--;
	}
	seq_progress(nic, o->ssid);
}

/* --- completion --------------------------------------------------------- */

static void seq_finish(struct gemini_nic *nic, unsigned int si)
{
	struct gemini_fma *f = &nic->fma;
	struct gemini_fma_ssid *s = &f->ssid[si];
	struct gemini_fma_desc *d = &f->desc[s->desc];

	/* An error is always reported, even by a sequence that asked for none. */
	if ((s->sync_type & GEMINI_FMA_SYNC_LOCAL_EVENT) || s->status) {
		if (gemini_cq_event(nic, s->cqh, GEMINI_CQE_SRC_SSID_SREQ,
				    s->status, s->sync_data))
			f->stats.local_events++;
		else
			f->stats.local_lost++;
	}
	if (s->synced && s->sync_type)
		f->prompt_open -= f->prompt_open > 0;
	s->used = false;
	d->ssid_inuse -= d->ssid_inuse > 0;
	f->stats.completions++;
}

/*
 * Send sync packet @what: the flag (WITH_FLAG, with the remote event in
 * it if @what has REMOTE_EVENT too) or the remote event alone (a
 * CQWRITE).  False: the ORB is full.
 */
static bool seq_send_sync(struct gemini_nic *nic, unsigned int si,
			  unsigned int what)
{
	struct gemini_fma_ssid *s = &nic->fma.ssid[si];
	struct gemini_pkt pkt = {
		.dst = s->dst,
		.dst_nic = s->dst_nic,
		.ptag = s->ptag,
		.mdh = s->mdh,
		.len = 8,
	};

	if (what & GEMINI_FMA_SYNC_WITH_FLAG) {
		pkt.type = GEMINI_PKT_PUT;
		pkt.flags = GEMINI_PKT_F_FLAG;
		pkt.addr = s->flag_offset & OFFSET_MASK;
		pkt.len = GEMINI_PKT_FLAG_LEN;
		vgemini_put_le64(pkt.data, s->flag_value);
		if (what & GEMINI_FMA_SYNC_REMOTE_EVENT) {
			pkt.flags |= GEMINI_PKT_F_REMOTE_EVENT;
			vgemini_put_le64(pkt.data + GEMINI_PKT_FLAG_EVENT_OFF,
					 s->sync_data);
		}
		/* Sent before their answers: the target waits for them. */
		if (s->outstanding) {
			vgemini_put_le64(pkt.data + GEMINI_PKT_FLAG_COUNT_OFF,
					 s->issued);
			nic->fma.stats.flags_early++;
		}
	} else {
		pkt.type = GEMINI_PKT_CQWRITE;
		vgemini_put_le64(pkt.data, s->sync_data);
	}
	if (!gemini_fma_orb_issue(nic, si, s->desc, &pkt, false, 0)) {
		nic->fma.sync_retry = true;
		return false;
	}
	s->sync_sent |= (uint8_t)what;
	return true;
}

/*
 * Move sequence @si on: once synced, send the flag and the remote event
 * (one packet, if it has both), then, with nothing in flight, finish with
 * the local event.  The flag goes at once if every request went to its
 * target, which counts them (gemini_rmt.c); else, and a remote event
 * without a flag, once every request is answered.
 */
static void seq_progress(struct gemini_nic *nic, unsigned int si)
{
	struct gemini_fma_ssid *s = &nic->fma.ssid[si];
	unsigned int what = s->sync_type & (GEMINI_FMA_SYNC_WITH_FLAG |
					    GEMINI_FMA_SYNC_REMOTE_EVENT);

	if (!s->used || !s->synced)
		return;
	if (!s->status && what && !s->sync_sent) {
		if (s->outstanding &&
		    (!(what & GEMINI_FMA_SYNC_WITH_FLAG) || s->multi ||
		     !s->target_valid))
			return;
		/* Then wait for its answers (or for an ORB entry). */
		seq_send_sync(nic, si, what);
		return;
	}
	if (!s->outstanding)
		seq_finish(nic, si);
}

void gemini_fma_sync_complete(struct gemini_nic *nic, unsigned int di,
			      uint64_t val)
{
	struct gemini_fma_desc *d = &nic->fma.desc[di];
	unsigned int type = (unsigned int)(val >> GEMINI_FMA_SYNC_TYPE_SHIFT);
	struct gemini_fma_ssid *s;
	int si;

	if (type & ~GEMINI_FMA_SYNC_TYPES) {
		GEMINI_GUEST_ERROR(nic, FMA_SYNC_TYPE, di, type);
		type &= GEMINI_FMA_SYNC_TYPES;
	}
	si = gemini_fma_seq_open(nic, di);
	if (si == SSID_NONE) {
		/* Nothing of the sequence is in flight: end it here. */
		unsigned int status = d->pend_status;

		if (!status && (type & (GEMINI_FMA_SYNC_REMOTE_EVENT |
					GEMINI_FMA_SYNC_WITH_FLAG))) {
			status = GEMINI_STATUS_SSID_STATE;
			d->flags |= GEMINI_FMA_FLAG_SYNCID_ALLOC;
		}
		d->pend_status = GEMINI_STATUS_OK;
		if ((type & GEMINI_FMA_SYNC_LOCAL_EVENT) || status)
			gemini_cq_event(nic, d_cqh(d), GEMINI_CQE_SRC_SSID_SREQ,
					status, val & GEMINI_FMA_SYNC_DATA_MASK);
		nic->fma.stats.completions++;
		return;
	}
	s = &nic->fma.ssid[si];
	s->synced = true;
	s->sync_type = (uint8_t)type;
	if (type)
		nic->fma.prompt_open++;
	s->sync_data = val & GEMINI_FMA_SYNC_DATA_MASK;
	s->flag_value = d->scratch0;
	s->flag_offset = d->scratch1;
	d->open = SSID_NONE;
	if (!s->target_valid && (type & (GEMINI_FMA_SYNC_REMOTE_EVENT |
					 GEMINI_FMA_SYNC_WITH_FLAG))) {
		/* No request went out: the window base is the target. */
		struct gemini_pkt pkt = { 0 };

		if (gemini_fma_target(nic, di, 0, &pkt) == GEMINI_STATUS_OK) {
			s->dst = pkt.dst;
			s->dst_nic = pkt.dst_nic;
			s->ptag = pkt.ptag;
			s->mdh = pkt.mdh;
			s->target_valid = true;
		} else {
			d->flags |= GEMINI_FMA_FLAG_NPES;
			if (!s->status)
				s->status = GEMINI_STATUS_NPES;
		}
	}
	seq_progress(nic, (unsigned int)si);
}

void gemini_fma_disabled(struct gemini_nic *nic, unsigned int di)
{
	struct gemini_fma_desc *d = &nic->fma.desc[di];
	struct gemini_fma_ssid *s;
	int si = d->open;

	d->pend_status = GEMINI_STATUS_OK;
	if (si == SSID_NONE)
		return;
	s = &nic->fma.ssid[si];
	s->synced = true;
	s->sync_type = GEMINI_FMA_SYNC_NO_EVENT;
	d->open = SSID_NONE;
	seq_progress(nic, (unsigned int)si);
}

/* --- responses ---------------------------------------------------------- */

static unsigned int rsp_data(struct gemini_nic *nic,
			     const struct gemini_fma_orb *o,
			     const struct gemini_pkt *rsp)
{
	struct gemini_dma_piece piece[GEMINI_NAT_MAX_PIECES];
	unsigned int want = o->pkt.type == GEMINI_PKT_GET ? o->pkt.len :
			    GEMINI_AMO_OPERAND_BYTES;
	unsigned int n, status;

	if (!o->fetch || rsp->len != want)
		return GEMINI_STATUS_MALFORMED;
	/* Checked again: the driver may have changed the domain meanwhile. */
	status = gemini_nat_translate(nic, o->src_ptag, o->src_mdh,
				      o->local_offset, want, true, piece,
				      GEMINI_NAT_MAX_PIECES, &n);
	if (status != GEMINI_STATUS_OK) {
		GEMINI_GUEST_ERROR(nic, FMA_RSP_LOCAL, o->desc, status);
		return status;
	}
	if (gemini_nat_dma_write(nic, piece, n, rsp->data)) {
		GEMINI_GUEST_ERROR(nic, FMA_RSP_BUS, o->desc, piece[0].addr);
		return GEMINI_STATUS_HT_DATA;
	}
	return GEMINI_STATUS_OK;
}

void gemini_fma_response(struct gemini_nic *nic, const struct gemini_pkt *rsp)
{
	struct gemini_fma *f = &nic->fma;
	struct gemini_fma_orb *o;
	unsigned int status;

	if (rsp->tag >= GEMINI_ORB_SIZE ||
	    f->orb[rsp->tag].state != GEMINI_ORB_SENT) {
		f->stats.stale++;
		gemini_nic_stale_rsp(nic, rsp);
		return;
	}
	o = &f->orb[rsp->tag];
	switch (rsp->type) {
	case GEMINI_PKT_ERR:
		status = rsp->status ? rsp->status : GEMINI_STATUS_UNCORRECTABLE;
		f->stats.errors++;
		break;
	case GEMINI_PKT_ACK:
		status = o->fetch ? GEMINI_STATUS_MALFORMED : GEMINI_STATUS_OK;
		break;
	case GEMINI_PKT_DATA:
		status = rsp_data(nic, o, rsp);
		break;
	default:
		f->stats.stale++;
		gemini_nic_stale_rsp(nic, rsp);
		return;
	}
	f->stats.responses++;
	orb_done(nic, rsp->tag, status, false, 0);
	/* An answer makes room for what balanced injection held. */
	if (f->orb_limit && f->qcount)
		fma_drain(nic);
}

/* --- balanced injection ------------------------------------------------- */

static void ctl_orb_limit(struct gemini_nic *nic, uint64_t val)
{
	nic->fma.orb_limit = val > GEMINI_ORB_SIZE ? 0 : (unsigned int)val;
	fma_drain(nic);
}

static const struct gemini_ctl_reg fma_regs[] = {
	{ GEMINI_CTL(ORB_LIMIT, 4, RW), GEMINI_CTL_FIELD(fma.orb_limit),
	  .write = ctl_orb_limit },
};

const struct gemini_ctl_table gemini_fma_ctl_table =
	GEMINI_CTL_TABLE(fma_regs);

/* --- polling ------------------------------------------------------------ */

static void queue_remove(struct gemini_fma *f, unsigned int t)
{
	unsigned int i, j = 0;

	for (i = 0; i < f->qcount; i++) {
		uint16_t e = f->queue[(f->qhead + i) % GEMINI_ORB_SIZE];

		if (e != t)
			f->queue[(f->qhead + j++) % GEMINI_ORB_SIZE] = e;
	}
	f->qcount = j;
}

bool gemini_fma_poll(struct gemini_nic *nic, uint64_t now, uint64_t *deadline)
{
	struct gemini_fma *f = &nic->fma;
	bool progress = fma_drain(nic);
	unsigned int t, si;

	/* A sync waits for an ORB entry: retry only once one is free. */
	if (f->sync_retry && f->orb_used < GEMINI_ORB_SIZE) {
		f->sync_retry = false;
		for (si = 0; si < GEMINI_NUM_SSID; si++)
			seq_progress(nic, si);
	}
	if (!f->orb_used)
		return progress;
	if (f->next_timeout != UINT64_MAX &&
	    now - f->next_timeout > PAUSE_NS && now > f->next_timeout) {
		/*
		 * Polled long after the earliest deadline: this QEMU was
		 * stopped or starved, not the fabric slow.  Time it did not
		 * run does not count against its requests, whose answers may
		 * be waiting in the link right now: each gets the pause and
		 * PAUSE_NS of running time more, so that this poll takes in
		 * what arrived before anything times out.
		 */
		uint64_t late = now - f->next_timeout + PAUSE_NS;

		for (t = 0; t < GEMINI_ORB_SIZE; t++)
			if (f->orb[t].state != GEMINI_ORB_FREE)
				f->orb[t].since_ns += late;
		f->next_timeout += late;
		if (f->rest_until != UINT64_MAX)
			f->rest_until += late;
		f->stats.paused++;
	}
	if (now >= f->next_timeout) {
		f->next_timeout = UINT64_MAX;
		for (t = 0; t < GEMINI_ORB_SIZE; t++) {
			struct gemini_fma_orb *o = &f->orb[t];

			if (o->state == GEMINI_ORB_FREE)
				continue;
			if (o->state == GEMINI_ORB_RESTING) {
				/* Rested long enough: free for reuse. */
				if (gemini_elapsed(now, o->since_ns) >=
				    TIMEOUT_NS) {
					o->state = GEMINI_ORB_FREE;
					f->orb_used--;
				} else if (o->since_ns + TIMEOUT_NS <
					   f->next_timeout) {
					f->next_timeout = o->since_ns +
							  TIMEOUT_NS;
				}
				continue;
			}
			if (gemini_elapsed(now, o->since_ns) >= TIMEOUT_NS) {
				if (o->state == GEMINI_ORB_QUEUED)
					queue_remove(f, t);
				GEMINI_GUEST_ERROR(nic, FMA_TIMEOUT, o->desc,
						   o->pkt.type, o->pkt.dst);
				f->stats.timeouts++;
				orb_done(nic, t, GEMINI_STATUS_TIMEOUT, true,
					 now);
				progress = true;
			} else if (o->since_ns + TIMEOUT_NS < f->next_timeout) {
				f->next_timeout = o->since_ns + TIMEOUT_NS;
			}
		}
		/* Entries issued by the completions just run count too. */
		for (t = 0; t < GEMINI_ORB_SIZE; t++) {
			struct gemini_fma_orb *o = &f->orb[t];

			if (o->state != GEMINI_ORB_FREE &&
			    o->since_ns + TIMEOUT_NS < f->next_timeout)
				f->next_timeout = o->since_ns + TIMEOUT_NS;
		}
	}
	if (f->next_timeout < *deadline)
		*deadline = f->next_timeout;
	/* Entries came free for a waiting sync: run again at once. */
	if (f->sync_retry && f->orb_used < GEMINI_ORB_SIZE)
		*deadline = now;
	return progress;
}
