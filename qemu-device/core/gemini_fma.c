// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cray-gemini device core: FMA, the NIC's source side.
 *
 * User stores into an FMA descriptor's windows become network requests:
 *
 *  - A store of 1, 2, 4 or 8 bytes at offset X of a PUT window (WC or UC,
 *    the same here) is one PUT of those bytes to base_offset + X, split
 *    into remote PE and offset by the PE mask mode.  QEMU hands the device
 *    at most 8 bytes per store, so every store is its own packet; stores
 *    are not combined.  With an AMO code in the command field the store
 *    is a non-fetching AMO at base_offset + X with the operands of the
 *    scratch registers (the stored value is ignored).
 *  - An 8-byte store of a GET control word (GCW) at offset X of a GET
 *    window is a GET of 4..64 bytes from base_offset + X, or a fetching
 *    AMO there, whose data the response writes into local memory at the
 *    GCW's offset in the source memory domain (src_mem_dh, checked with
 *    src_ptag like the target checks a request).
 *  - The CQ-write doorbell sends a CQWRITE to the window base's target.
 *
 * Requests carry dest_ptag and rem_mem_dh.  Every request belongs to the
 * descriptor's open synchronisation sequence (SSID; one is allocated by
 * the alloc-SyncId doorbell or implicitly by the first request) and has an
 * ORB entry whose index is its tag.  The sync-complete doorbell closes the
 * sequence; once every response of it is in (in any order), the flag
 * (WITH_FLAG: an 8-byte PUT of scratch0 at offset scratch1) and then the
 * remote event (REMOTE_EVENT: a CQWRITE of synccmp_data to the target
 * MDD's CQ) are sent and answered, and the local event (source SSID_SREQ,
 * the sequence's first error or OK, data synccmp_data) goes to the
 * descriptor's CQ.  A failed sequence sends no flag and no remote event
 * and always raises its local event, asked for or not.
 *
 * Nothing is lost silently: a store the FMA cannot turn into a request
 * (descriptor not enabled, bad size, NTT group violation, no SSID, ORB
 * full, bad local buffer) sets an error flag in the status word, reports
 * a guest error, and makes the sequence complete with an error status.
 * A request without a response ends after GEMINI_FMA_TIMEOUT_MS with
 * REQUEST_TIMEOUT.  A response that matches no request in flight is
 * stale: counted and dropped.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gemini_core.h"

#define TIMEOUT_NS	((uint64_t)GEMINI_FMA_TIMEOUT_MS * 1000000)
/* A poll this late after a deadline means the device itself did not run. */
#define PAUSE_NS	((uint64_t)GEMINI_FMA_PAUSE_MS * 1000000)
#define ADDR_MASK	((1ull << GEMINI_FMA_ADDR_BITS) - 1)
#define OFFSET_MASK	((1ull << GEMINI_PKT_ADDR_BITS) - 1)
#define SSID_NONE	(-1)

static uint64_t field(uint64_t qw, unsigned int shift, uint64_t mask)
{
	return (qw >> shift) & mask;
}

/* --- descriptor fields -------------------------------------------------- */

static unsigned int d_cmd(const struct gemini_fma_desc *d)
{
	return (unsigned int)field(d->cmd, GEMINI_FMA_CMD_SHIFT,
				   GEMINI_FMA_CMD_MASK);
}

static unsigned int d_rem_mdh(const struct gemini_fma_desc *d)
{
	return (unsigned int)field(d->cmd, GEMINI_FMA_REM_MDH_SHIFT,
				   GEMINI_FMA_MDH_MASK);
}

static unsigned int d_src_mdh(const struct gemini_fma_desc *d)
{
	return (unsigned int)field(d->cmd, GEMINI_FMA_SRC_MDH_SHIFT,
				   GEMINI_FMA_MDH_MASK);
}

static unsigned int d_mode2(const struct gemini_fma_desc *d)
{
	return (unsigned int)field(d->cmd, GEMINI_FMA_MODE2_SHIFT,
				   GEMINI_FMA_MODE2_MASK);
}

static unsigned int d_cqh(const struct gemini_fma_desc *d)
{
	return (unsigned int)field(d->pe, GEMINI_FMA_CQH_SHIFT,
				   GEMINI_FMA_CQH_MASK);
}

static unsigned int d_src_ptag(const struct gemini_fma_desc *d)
{
	return (unsigned int)field(d->pe, GEMINI_FMA_SRC_PTAG_SHIFT,
				   GEMINI_FMA_PTAG_MASK);
}

static unsigned int d_dest_ptag(const struct gemini_fma_desc *d)
{
	return (unsigned int)field(d->pe, GEMINI_FMA_DEST_PTAG_SHIFT,
				   GEMINI_FMA_PTAG_MASK);
}

static uint64_t now_ns(struct gemini_nic *nic)
{
	return nic->ops->clock_ns(nic->opaque);
}

/* --- sequences and errors ----------------------------------------------- */

/* The descriptor's open sequence, opened if need be; SSID_NONE if full. */
static int seq_open(struct gemini_nic *nic, unsigned int di)
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
		d->open = (int16_t)si;
		d->ssid_inuse++;
		f->ssid_next = (si + 1) % GEMINI_NUM_SSID;
		return (int)si;
	}
	f->stats.ssid_full++;
	return SSID_NONE;
}

/*
 * A store or doorbell of descriptor @di could not become a request: set
 * @flag in the status word, fail the open sequence (or the next one) with
 * @status, and report it.
 */
static void fma_refuse(struct gemini_nic *nic, unsigned int di,
		       unsigned int flag, unsigned int status,
		       const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static void fma_refuse(struct gemini_nic *nic, unsigned int di,
		       unsigned int flag, unsigned int status,
		       const char *fmt, ...)
{
	struct gemini_fma_desc *d = &nic->fma.desc[di];
	char msg[128];
	va_list ap;

	d->flags |= flag;
	if (d->open != SSID_NONE) {
		struct gemini_fma_ssid *s = &nic->fma.ssid[d->open];

		if (!s->status)
			s->status = (uint8_t)status;
	} else if (!d->pend_status) {
		d->pend_status = (uint8_t)status;
	}
	nic->fma.stats.refused++;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	gemini_guest_error(nic, "FMA %u: %s", di, msg);
}

static void seq_progress(struct gemini_nic *nic, unsigned int si);

/* --- the ORB ------------------------------------------------------------ */

static void orb_done(struct gemini_nic *nic, unsigned int t,
		     unsigned int status, bool rest, uint64_t now);

static int orb_alloc(struct gemini_nic *nic, uint64_t now)
{
	struct gemini_fma *f = &nic->fma;
	unsigned int i;

	for (i = 0; i < GEMINI_ORB_SIZE; i++) {
		unsigned int t = (f->next_tag + i) % GEMINI_ORB_SIZE;
		struct gemini_fma_orb *o = &f->orb[t];

		if (o->state == GEMINI_ORB_RESTING &&
		    gemini_elapsed(now, o->since_ns) >= TIMEOUT_NS) {
			o->state = GEMINI_ORB_FREE;
			f->orb_used--;
		}
		if (o->state != GEMINI_ORB_FREE)
			continue;
		/* Round robin: a tag is reused as late as possible. */
		f->next_tag = (t + 1) % GEMINI_ORB_SIZE;
		f->orb_used++;
		return (int)t;
	}
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
		f->qhead = (f->qhead + 1) % GEMINI_ORB_SIZE;
		f->qcount--;
		progress = true;
		if (gemini_router_inject(nic, &o->pkt)) {
			/* Room was checked: only a malformed request fails. */
			gemini_guest_error(nic, "FMA %u: request not encodable",
					   o->desc);
			o->state = GEMINI_ORB_SENT;
			orb_done(nic, t, GEMINI_STATUS_MALFORMED, false, 0);
			continue;
		}
		o->state = GEMINI_ORB_SENT;
	}
	return progress;
}

/*
 * Issue @pkt for sequence @si of descriptor @di; @fetch: its DATA goes to
 * @local_offset of the source domain.  Returns false if the ORB is full.
 */
static bool orb_issue(struct gemini_nic *nic, unsigned int si, unsigned int di,
		      struct gemini_pkt *pkt, bool fetch, uint64_t local_offset)
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
	} else {
		o->state = GEMINI_ORB_FREE;
		f->orb_used--;
	}
	seq_progress(nic, o->ssid);
}

/* --- addresses ---------------------------------------------------------- */

struct fma_target {
	uint32_t pe;
	uint64_t offset;
};

/* The physical PE of NTT index @idx, or -1 past the table. */
static int64_t ntt_lookup(const struct gemini_nic *nic, uint64_t idx)
{
	unsigned int gran = (unsigned int)field(nic->nat.ntt_config,
						GEMINI_NTT_CFG_GRAN0_SHIFT,
						GEMINI_NTT_CFG_GRAN_MASK);
	uint64_t low = idx & ((1ull << gran) - 1), e = idx >> gran, qw;

	if (e >= GEMINI_NUM_NTT)
		return -1;
	qw = nic->nat.ntt[0][e / 2];
	qw = field(qw, e & 1 ? GEMINI_NTT_PE1_SHIFT : GEMINI_NTT_PE0_SHIFT,
		   GEMINI_NTT_PE_MASK);
	/* (interpretation) the low gran bits of the index pass through */
	return (int64_t)((qw & ~((1ull << gran) - 1)) | low);
}

/*
 * Where window offset @x of descriptor @di points: base_offset + @x split
 * by the PE mask mode, the PE translated by the NTT if enabled.  Returns
 * GEMINI_STATUS_OK or NPES (NTT group violation).
 */
static unsigned int fma_resolve(struct gemini_nic *nic, unsigned int di,
				uint64_t x, struct fma_target *tg)
{
	static const unsigned int pe_shift[8] = GEMINI_FMA_PE_SHIFTS;
	const struct gemini_fma_desc *d = &nic->fma.desc[di];
	unsigned int mode = (unsigned int)field(d->cmd,
						GEMINI_FMA_PE_MASK_MODE_SHIFT,
						GEMINI_FMA_PE_MASK_MODE_MASK);
	unsigned int s = pe_shift[mode];
	uint64_t a = (d->base_offset + x) & ADDR_MASK;
	uint64_t pe = (a >> s) & GEMINI_PE_MASK;

	/* Offset bits above the PE field move down to close the gap. */
	tg->offset = ((a & ((1ull << s) - 1)) |
		      ((a >> (s + GEMINI_PE_BITS)) << s)) & OFFSET_MASK;
	if (field(d->pe, GEMINI_FMA_MODE3_SHIFT, GEMINI_FMA_MODE3_NTT_ENABLE)) {
		uint64_t npes = field(d->pe, GEMINI_FMA_NUM_PES_SHIFT,
				      GEMINI_FMA_NPES_MASK);
		uint64_t base = field(d->pe, GEMINI_FMA_PE_BASE_SHIFT,
				      GEMINI_FMA_NPES_MASK);
		int64_t phys;

		if (pe >= npes)
			return GEMINI_STATUS_NPES;
		phys = ntt_lookup(nic, base + pe);
		if (phys < 0)
			return GEMINI_STATUS_NPES;
		pe = (uint64_t)phys;
	}
	tg->pe = (uint32_t)pe;
	return GEMINI_STATUS_OK;
}

static void pkt_target(struct gemini_pkt *pkt, const struct gemini_fma_desc *d,
		       const struct fma_target *tg)
{
	unsigned int m2 = d_mode2(d);

	pkt->dst = (uint16_t)GEMINI_PE_GEMINI_ID(tg->pe);
	pkt->dst_nic = (uint8_t)GEMINI_PE_NIC_ID(tg->pe);
	pkt->ptag = (uint8_t)d_dest_ptag(d);
	pkt->mdh = (uint16_t)d_rem_mdh(d);
	pkt->addr = tg->offset;
	pkt->flags = (m2 & GEMINI_FMA_MODE2_ADP ? GEMINI_PKT_F_ADAPT : 0) |
		     (m2 & GEMINI_FMA_MODE2_HASH ? GEMINI_PKT_F_HASH : 0);
}

/*
 * Check that descriptor @di may issue now and resolve window offset @x;
 * false (refused, reported) otherwise.
 */
static bool fma_prepare(struct gemini_nic *nic, unsigned int di, uint64_t x,
			struct gemini_pkt *pkt)
{
	const struct gemini_fma_desc *d = &nic->fma.desc[di];
	struct fma_target tg;

	if (!(d_mode2(d) & GEMINI_FMA_MODE2_FMA_ENABLE)) {
		fma_refuse(nic, di, GEMINI_FMA_FLAG_HT_REQ,
			   GEMINI_STATUS_INV_CMD, "descriptor not enabled");
		return false;
	}
	if (d_mode2(d) & GEMINI_FMA_MODE2_VMDH) {
		/* vgemini has no vMDH table yet. */
		fma_refuse(nic, di, GEMINI_FMA_FLAG_HT_REQ,
			   GEMINI_STATUS_VMDH_INV, "vMDH not supported");
		return false;
	}
	if (fma_resolve(nic, di, x, &tg) != GEMINI_STATUS_OK) {
		fma_refuse(nic, di, GEMINI_FMA_FLAG_NPES, GEMINI_STATUS_NPES,
			   "PE outside the NTT group");
		return false;
	}
	pkt_target(pkt, d, &tg);
	return true;
}

/* Issue @pkt in @di's open sequence; refuses (reported) when out of room. */
static void fma_issue(struct gemini_nic *nic, unsigned int di,
		      struct gemini_pkt *pkt, bool fetch, uint64_t local_offset)
{
	int si = seq_open(nic, di);
	struct gemini_fma_ssid *s;

	if (si == SSID_NONE) {
		fma_refuse(nic, di, GEMINI_FMA_FLAG_SYNCID_ALLOC,
			   GEMINI_STATUS_SSID_STATE, "no free SSID, %s dropped",
			   gemini_pkt_type_name(pkt->type));
		return;
	}
	if (!orb_issue(nic, (unsigned int)si, di, pkt, fetch, local_offset)) {
		fma_refuse(nic, di, GEMINI_FMA_FLAG_HT_REQ,
			   GEMINI_STATUS_SSID_STATE, "ORB full, %s dropped",
			   gemini_pkt_type_name(pkt->type));
		return;
	}
	s = &nic->fma.ssid[si];
	s->target_valid = true;
	s->dst = pkt->dst;
	s->dst_nic = pkt->dst_nic;
	s->ptag = pkt->ptag;
	s->mdh = pkt->mdh;
}

/* --- windows ------------------------------------------------------------ */

enum win_kind { WIN_NONE, WIN_PUT, WIN_GET };

static enum win_kind win_decode(uint64_t off, unsigned int *di, uint64_t *x)
{
	static const struct {
		uint64_t base;
		unsigned int first, num;
		enum win_kind kind;
	} win[] = {
		{ GEMINI_FMA_PUT_WC, 0, GEMINI_NUM_FMA, WIN_PUT },
		{ GEMINI_FMA_PUT_UC, 0, GEMINI_NUM_FMA, WIN_PUT },
		{ GEMINI_FMA_GET, 0, GEMINI_NUM_FMA, WIN_GET },
		{ GEMINI_OS_FMA_PUT_WC, GEMINI_FMA_OS_FIRST, GEMINI_NUM_FMA_OS,
		  WIN_PUT },
		{ GEMINI_OS_FMA_PUT_UC, GEMINI_FMA_OS_FIRST, GEMINI_NUM_FMA_OS,
		  WIN_PUT },
		{ GEMINI_OS_FMA_GET, GEMINI_FMA_OS_FIRST, GEMINI_NUM_FMA_OS,
		  WIN_GET },
	};
	unsigned int i;

	for (i = 0; i < sizeof(win) / sizeof(win[0]); i++) {
		if (off < win[i].base ||
		    off - win[i].base >= (uint64_t)win[i].num *
					 GEMINI_FMA_WINDOW_SIZE)
			continue;
		*di = win[i].first + (unsigned int)((off - win[i].base) >>
						    GEMINI_FMA_WINDOW_SHIFT);
		*x = (off - win[i].base) & (GEMINI_FMA_WINDOW_SIZE - 1);
		return win[i].kind;
	}
	return WIN_NONE;
}

bool gemini_fma_is_window(uint64_t off)
{
	unsigned int di;
	uint64_t x;

	return win_decode(off, &di, &x) != WIN_NONE;
}

static bool amo_code(unsigned int cmd, unsigned int *op)
{
	unsigned int o = cmd & GEMINI_FMA_CMD_AMO_MASK;

	if (o < GEMINI_AMO_ADD || o > GEMINI_AMO_CSWAP)
		return false;
	*op = o;
	return true;
}

static void amo_operands(struct gemini_pkt *pkt, const struct gemini_fma_desc *d,
			 unsigned int op, bool fetch)
{
	pkt->type = GEMINI_PKT_AMO;
	pkt->amo_op = (uint8_t)op;
	pkt->len = (uint8_t)GEMINI_AMO_LEN(op);
	if (fetch)
		pkt->flags |= GEMINI_PKT_F_FETCH;
	vgemini_put_le64(pkt->data, d->scratch0);
	if (pkt->len > GEMINI_AMO_OPERAND_BYTES)
		vgemini_put_le64(pkt->data + GEMINI_AMO_OPERAND_BYTES, d->scratch1);
}

static void put_store(struct gemini_nic *nic, unsigned int di, uint64_t x,
		      unsigned int size, uint64_t val)
{
	const struct gemini_fma_desc *d = &nic->fma.desc[di];
	struct gemini_pkt pkt = { 0 };
	unsigned int cmd = d_cmd(d), op, i;

	if (!fma_prepare(nic, di, x, &pkt))
		return;
	if (cmd == GEMINI_FMA_CMD_PUT || cmd == GEMINI_FMA_CMD_PUT_MSG) {
		pkt.type = GEMINI_PKT_PUT;
		pkt.len = (uint8_t)size;
		for (i = 0; i < size; i++)
			pkt.data[i] = (uint8_t)(val >> (8 * i));
	} else if (amo_code(cmd, &op) && op != GEMINI_AMO_CSWAP) {
		amo_operands(&pkt, d, op, false);
	} else {
		fma_refuse(nic, di, GEMINI_FMA_FLAG_HT_REQ,
			   GEMINI_STATUS_INV_CMD,
			   "command 0x%x is no PUT-window operation", cmd);
		return;
	}
	fma_issue(nic, di, &pkt, false, 0);
}

static void get_store(struct gemini_nic *nic, unsigned int di, uint64_t x,
		      uint64_t gcw)
{
	const struct gemini_fma_desc *d = &nic->fma.desc[di];
	struct gemini_dma_piece piece[GEMINI_NAT_MAX_PIECES];
	unsigned int cmd = (unsigned int)field(gcw, GEMINI_GCW_CMD_SHIFT,
					       GEMINI_GCW_CMD_MASK);
	uint64_t local = gcw & GEMINI_GCW_LOCAL_OFFSET_MASK;
	struct gemini_pkt pkt = { 0 };
	unsigned int op, len, n, status;

	if (gcw & GEMINI_GCW_REMOTE_PLUS4) {
		if ((x & 7) || cmd != GEMINI_FMA_CMD_GET) {
			fma_refuse(nic, di, GEMINI_FMA_FLAG_HT_REQ,
				   GEMINI_STATUS_MALFORMED, "GCW +4 at window "
				   "offset 0x%llx, command 0x%x: only for a GET "
				   "stored 8-aligned", (unsigned long long)x,
				   cmd);
			return;
		}
		x += 4;
	}
	if (!fma_prepare(nic, di, x, &pkt))
		return;
	if (cmd == GEMINI_FMA_CMD_GET) {
		len = ((unsigned int)field(gcw, GEMINI_GCW_COUNT_SHIFT,
					   GEMINI_GCW_COUNT_MASK) + 1) *
		      GEMINI_GCW_GRAIN;
		if ((pkt.addr | local) & (GEMINI_FMA_GET_ALIGN - 1)) {
			fma_refuse(nic, di, GEMINI_FMA_FLAG_HT_REQ,
				   GEMINI_STATUS_MALFORMED, "GET remote 0x%llx "
				   "or local 0x%llx not 4-byte aligned",
				   (unsigned long long)pkt.addr,
				   (unsigned long long)local);
			return;
		}
		pkt.type = GEMINI_PKT_GET;
		pkt.len = (uint8_t)len;
	} else if (amo_code(cmd, &op)) {
		len = GEMINI_AMO_OPERAND_BYTES;
		if (local & (GEMINI_AMO_ALIGN - 1)) {
			fma_refuse(nic, di, GEMINI_FMA_FLAG_HT_REQ,
				   GEMINI_STATUS_MALFORMED, "AMO result "
				   "offset 0x%llx not 8-byte aligned",
				   (unsigned long long)local);
			return;
		}
		amo_operands(&pkt, d, op, true);
	} else {
		fma_refuse(nic, di, GEMINI_FMA_FLAG_HT_REQ,
			   GEMINI_STATUS_INV_CMD,
			   "GCW command 0x%x is no GET-window operation", cmd);
		return;
	}
	/* The local buffer is checked now, so a fetch has somewhere to go. */
	status = gemini_nat_translate(nic, d_src_ptag(d), d_src_mdh(d), local,
				      len, true, piece, GEMINI_NAT_MAX_PIECES,
				      &n);
	if (status != GEMINI_STATUS_OK) {
		fma_refuse(nic, di, GEMINI_FMA_FLAG_HT_REQ, status,
			   "local buffer (MDH %u, offset 0x%llx, %u bytes) "
			   "refused: status %u", d_src_mdh(d),
			   (unsigned long long)local, len, status);
		return;
	}
	fma_issue(nic, di, &pkt, true, local);
}

enum gemini_access gemini_fma_window_store(struct gemini_nic *nic,
					   uint64_t off, unsigned int size,
					   uint64_t val)
{
	enum win_kind kind;
	unsigned int di;
	uint64_t x;

	kind = win_decode(off, &di, &x);
	if (kind == WIN_NONE)
		return GEMINI_ACCESS_UNKNOWN;
	if ((size != 1 && size != 2 && size != 4 && size != 8) ||
	    x + size > GEMINI_FMA_WINDOW_SIZE ||
	    (kind == WIN_GET && size != 8)) {
		fma_refuse(nic, di, GEMINI_FMA_FLAG_HT_REQ,
			   GEMINI_STATUS_MALFORMED, "%u-byte store at window "
			   "offset 0x%llx refused", size,
			   (unsigned long long)x);
		return GEMINI_ACCESS_BAD_SIZE;
	}
	if (kind == WIN_PUT)
		put_store(nic, di, x, size, val);
	else
		get_store(nic, di, x, val);
	return GEMINI_ACCESS_OK;
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
	s->used = false;
	d->ssid_inuse -= d->ssid_inuse > 0;
	f->stats.completions++;
}

/* Send sync packet @what (WITH_FLAG or REMOTE_EVENT); false: ORB full. */
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

	if (what == GEMINI_FMA_SYNC_WITH_FLAG) {
		pkt.type = GEMINI_PKT_PUT;
		pkt.addr = s->flag_offset & OFFSET_MASK;
		vgemini_put_le64(pkt.data, s->flag_value);
	} else {
		pkt.type = GEMINI_PKT_CQWRITE;
		vgemini_put_le64(pkt.data, s->sync_data);
	}
	if (!orb_issue(nic, si, s->desc, &pkt, false, 0)) {
		nic->fma.sync_retry = true;
		return false;
	}
	s->sync_sent |= (uint8_t)what;
	return true;
}

/*
 * Move sequence @si on: once synced and with nothing in flight, send the
 * flag, then the remote event, then finish with the local event.
 */
static void seq_progress(struct gemini_nic *nic, unsigned int si)
{
	struct gemini_fma_ssid *s = &nic->fma.ssid[si];
	static const unsigned int order[2] = {
		GEMINI_FMA_SYNC_WITH_FLAG, GEMINI_FMA_SYNC_REMOTE_EVENT,
	};
	unsigned int i;

	if (!s->used || !s->synced || s->outstanding)
		return;
	for (i = 0; i < 2 && !s->status; i++) {
		if (!(s->sync_type & order[i]) || (s->sync_sent & order[i]))
			continue;
		seq_send_sync(nic, si, order[i]);
		/* Wait for its answer (or for an ORB entry). */
		return;
	}
	seq_finish(nic, si);
}

static void sync_complete(struct gemini_nic *nic, unsigned int di, uint64_t val)
{
	struct gemini_fma_desc *d = &nic->fma.desc[di];
	unsigned int type = (unsigned int)(val >> GEMINI_FMA_SYNC_TYPE_SHIFT);
	struct gemini_fma_ssid *s;
	struct fma_target tg;
	int si;

	if (type & ~GEMINI_FMA_SYNC_TYPES) {
		gemini_guest_error(nic, "FMA %u: sync type 0x%x: unknown bits "
				   "ignored", di, type);
		type &= GEMINI_FMA_SYNC_TYPES;
	}
	si = seq_open(nic, di);
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
	s->sync_data = val & GEMINI_FMA_SYNC_DATA_MASK;
	s->flag_value = d->scratch0;
	s->flag_offset = d->scratch1;
	d->open = SSID_NONE;
	if (!s->target_valid && (type & (GEMINI_FMA_SYNC_REMOTE_EVENT |
					 GEMINI_FMA_SYNC_WITH_FLAG))) {
		/* No request went out: the window base is the target. */
		struct gemini_pkt pkt = { 0 };

		if (fma_resolve(nic, di, 0, &tg) == GEMINI_STATUS_OK) {
			pkt_target(&pkt, d, &tg);
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

/*
 * The kernel disabled descriptor @di (to free it or hand it on): its open
 * sequence is closed as if synced with no event, so that it ends once its
 * requests are answered or time out, and the SSID count the kernel polls
 * drops to 0.  An error pending for the old owner is not the new one's.
 */
static void fma_disabled(struct gemini_nic *nic, unsigned int di)
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

static void cq_write(struct gemini_nic *nic, unsigned int di, uint64_t val)
{
	struct gemini_pkt pkt = { 0 };

	if (!fma_prepare(nic, di, 0, &pkt))
		return;
	pkt.type = GEMINI_PKT_CQWRITE;
	pkt.len = GEMINI_AMO_OPERAND_BYTES;
	vgemini_put_le64(pkt.data, val);
	fma_issue(nic, di, &pkt, false, 0);
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
		gemini_guest_error(nic, "FMA %u: local buffer refused the "
				   "response: status %u", o->desc, status);
		return status;
	}
	if (gemini_nat_dma_write(nic, piece, n, rsp->data)) {
		gemini_guest_error(nic, "FMA %u: bus refused the response at "
				   "0x%llx", o->desc,
				   (unsigned long long)piece[0].addr);
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
}

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

	if (f->sync_retry) {
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
				gemini_guest_error(nic, "FMA %u: %s to node %u "
						   "timed out", o->desc,
						   gemini_pkt_type_name(o->pkt.type),
						   o->pkt.dst);
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
	return progress;
}

/* --- control pages ------------------------------------------------------ */

/* Bits of QW @qw the user alias may change under privilege mask @pm. */
static uint64_t user_bits(unsigned int qw, uint64_t pm)
{
	uint64_t b = 0;

#define GRANT(bit, mask)	do { if (pm & (bit)) b |= (mask); } while (0)
#define M2(bits)	((uint64_t)(bits) << GEMINI_FMA_MODE2_SHIFT)
	switch (qw) {
	case 0:
		GRANT(GEMINI_FMA_PRIV_BASEOFFSET, GEMINI_FMA_BASE_OFFSET_MASK);
		break;
	case 1:
		GRANT(GEMINI_FMA_PRIV_CMD, GEMINI_FMA_CMD_MASK);
		GRANT(GEMINI_FMA_PRIV_REMOTEMDH,
		      GEMINI_FMA_MDH_MASK << GEMINI_FMA_REM_MDH_SHIFT);
		GRANT(GEMINI_FMA_PRIV_SOURCEMDH,
		      GEMINI_FMA_MDH_MASK << GEMINI_FMA_SRC_MDH_SHIFT);
		GRANT(GEMINI_FMA_PRIV_PEMASKMODE, GEMINI_FMA_PE_MASK_MODE_MASK <<
		      GEMINI_FMA_PE_MASK_MODE_SHIFT);
		GRANT(GEMINI_FMA_PRIV_VMDHENABLE, M2(GEMINI_FMA_MODE2_VMDH));
		GRANT(GEMINI_FMA_PRIV_FMAENABLE, M2(GEMINI_FMA_MODE2_FMA_ENABLE |
						    GEMINI_FMA_MODE2_DT));
		GRANT(GEMINI_FMA_PRIV_HARA, M2(GEMINI_FMA_MODE2_RADP |
					       GEMINI_FMA_MODE2_ADP |
					       GEMINI_FMA_MODE2_HASH));
		break;
	case 2:
		GRANT(GEMINI_FMA_PRIV_NPES, GEMINI_FMA_NPES_MASK <<
		      GEMINI_FMA_NUM_PES_SHIFT);
		GRANT(GEMINI_FMA_PRIV_PEBASE, GEMINI_FMA_NPES_MASK <<
		      GEMINI_FMA_PE_BASE_SHIFT);
		GRANT(GEMINI_FMA_PRIV_CQHNDL, GEMINI_FMA_CQH_MASK <<
		      GEMINI_FMA_CQH_SHIFT);
		GRANT(GEMINI_FMA_PRIV_PTAG,
		      (GEMINI_FMA_PTAG_MASK << GEMINI_FMA_SRC_PTAG_SHIFT) |
		      (GEMINI_FMA_PTAG_MASK << GEMINI_FMA_DEST_PTAG_SHIFT));
		GRANT(GEMINI_FMA_PRIV_NTTENABLE, GEMINI_FMA_MODE3_NTT_ENABLE <<
		      GEMINI_FMA_MODE3_SHIFT);
		break;
	case 4:
		GRANT(GEMINI_FMA_PRIV_SCRATCH0, ~0ull);
		break;
	case 5:
		GRANT(GEMINI_FMA_PRIV_SCRATCH1, ~0ull);
		break;
	case 6:
		GRANT(GEMINI_FMA_PRIV_ALLOCSYNCID, ~0ull);
		break;
	case 7:
		GRANT(GEMINI_FMA_PRIV_SYNCCMP, ~0ull);
		break;
	case 8:
		GRANT(GEMINI_FMA_PRIV_CQWRITE, ~0ull);
		break;
	}
#undef M2
#undef GRANT
	return b;
}

static uint64_t status_word(const struct gemini_fma_desc *d)
{
	return (uint64_t)d->wc << GEMINI_FMA_STAT_WC_SHIFT |
	       (uint64_t)d->rc << GEMINI_FMA_STAT_RC_SHIFT |
	       (uint64_t)d->ssid_inuse << GEMINI_FMA_STAT_SSID_SHIFT |
	       (uint64_t)d->flags << GEMINI_FMA_STAT_FLAGS_SHIFT;
}

/* QW4 write: counters whose field is written non-zero and flags written 1 clear. */
static void status_write(struct gemini_fma_desc *d, uint64_t w)
{
	if (field(w, GEMINI_FMA_STAT_WC_SHIFT, GEMINI_FMA_STAT_COUNT_MASK))
		d->wc = 0;
	if (field(w, GEMINI_FMA_STAT_RC_SHIFT, GEMINI_FMA_STAT_COUNT_MASK))
		d->rc = 0;
	d->flags &= (uint8_t)~field(w, GEMINI_FMA_STAT_FLAGS_SHIFT,
				    GEMINI_FMA_STAT_FLAGS_MASK);
}

static uint64_t *qw_reg(struct gemini_fma_desc *d, unsigned int qw,
			uint64_t *mask)
{
	switch (qw) {
	case 0:
		*mask = GEMINI_FMA_BASE_OFFSET_MASK;
		return &d->base_offset;
	case 1:
		*mask = GEMINI_FMA_QW2_MASK;
		return &d->cmd;
	case 2:
		*mask = GEMINI_FMA_QW3_MASK;
		return &d->pe;
	case 4:
		*mask = ~0ull;
		return &d->scratch0;
	case 5:
		*mask = ~0ull;
		return &d->scratch1;
	case 6:
		*mask = ~0ull;
		return &d->syncid;
	case 7:
		*mask = ~0ull;
		return &d->synccmp;
	case 8:
		*mask = ~0ull;
		return &d->cq_write;
	}
	return NULL;
}

static enum gemini_access desc_write(struct gemini_nic *nic, unsigned int di,
				     unsigned int qw, unsigned int at,
				     unsigned int size, uint64_t val, bool priv)
{
	struct gemini_fma_desc *d = &nic->fma.desc[di];
	uint64_t mask, old, neu, allowed;
	uint64_t *reg;

	if (qw == 3) {
		status_write(d, size == 8 ? val : (val & 0xffffffffull) <<
			     (8 * at));
		return GEMINI_ACCESS_OK;
	}
	reg = qw_reg(d, qw, &mask);
	if (!reg)
		return GEMINI_ACCESS_UNKNOWN;
	if (qw >= 6 && size != 8) {
		gemini_guest_error(nic, "FMA %u: doorbell QW%u needs an 8-byte "
				   "write", di, qw + 1);
		return GEMINI_ACCESS_BAD_SIZE;
	}
	old = *reg;
	neu = old;
	gemini_reg_access(&neu, mask, at, size, &val, true);
	if (!priv && qw >= 6 && !user_bits(qw, d->priv_mask)) {
		/* A doorbell is an access, not a value: withheld is withheld. */
		nic->fma.stats.priv_refused++;
		gemini_guest_error(nic, "FMA %u: user ring of doorbell QW%u "
				   "refused", di, qw + 1);
		return GEMINI_ACCESS_READ_ONLY;
	}
	if (!priv) {
		allowed = user_bits(qw, d->priv_mask);
		if ((neu ^ old) & ~allowed) {
			nic->fma.stats.priv_refused++;
			gemini_guest_error(nic, "FMA %u: user write to kernel "
					   "fields of QW%u refused (0x%llx)", di,
					   qw + 1, (unsigned long long)
					   ((neu ^ old) & ~allowed));
			/* A doorbell the user may not ring does nothing. */
			if (qw >= 6)
				return GEMINI_ACCESS_READ_ONLY;
			*reg = (neu & allowed) | (old & ~allowed);
			return GEMINI_ACCESS_READ_ONLY;
		}
	}
	*reg = neu;
	if (qw == 1 && !(d_mode2(d) & GEMINI_FMA_MODE2_FMA_ENABLE) &&
	    (old >> GEMINI_FMA_MODE2_SHIFT & GEMINI_FMA_MODE2_FMA_ENABLE))
		fma_disabled(nic, di);
	switch (qw) {
	case 6:
		if (val != GEMINI_FMA_ALLOC_SYNCID_VALUE) {
			gemini_guest_error(nic, "FMA %u: alloc-SyncId with 0x%llx,"
					   " not 0xff: ignored", di,
					   (unsigned long long)val);
			break;
		}
		if (seq_open(nic, di) == SSID_NONE) {
			fma_refuse(nic, di, GEMINI_FMA_FLAG_SYNCID_ALLOC,
				   GEMINI_STATUS_SSID_STATE, "no free SSID");
		}
		break;
	case 7:
		sync_complete(nic, di, val);
		break;
	case 8:
		cq_write(nic, di, val);
		break;
	}
	return GEMINI_ACCESS_OK;
}

enum gemini_access gemini_fma_access(struct gemini_nic *nic, uint64_t off,
				     unsigned int size, uint64_t *val,
				     bool write)
{
	const uint64_t span = (uint64_t)GEMINI_FMA_NUM_DESC * GEMINI_FMA_CTRL_SIZE;
	struct gemini_fma_desc *d;
	unsigned int di, in, qw, at;
	uint64_t mask, *reg;
	bool priv;

	if (off >= GEMINI_FMA_PRIV && off - GEMINI_FMA_PRIV < span) {
		priv = true;
		off -= GEMINI_FMA_PRIV;
	} else if (off >= GEMINI_FMA_USER_ALIAS &&
		   off - GEMINI_FMA_USER_ALIAS < span) {
		priv = false;
		off -= GEMINI_FMA_USER_ALIAS;
	} else {
		return GEMINI_ACCESS_UNKNOWN;
	}
	di = (unsigned int)(off / GEMINI_FMA_CTRL_SIZE);
	in = (unsigned int)(off % GEMINI_FMA_CTRL_SIZE);
	d = &nic->fma.desc[di];
	at = in & 4;
	if ((in & ~7u) == GEMINI_FMA_PRIV_MASK_REG) {
		if (!priv) {
			if (write)
				nic->fma.stats.priv_refused++;
			else
				*val = 0;
			return GEMINI_ACCESS_UNKNOWN;
		}
		gemini_reg_access(&d->priv_mask, GEMINI_FMA_PRIV_ALL, at, size,
				  val, write);
		return GEMINI_ACCESS_OK;
	}
	qw = in / 8;
	if (qw > 8) {
		if (!write)
			*val = 0;
		return GEMINI_ACCESS_UNKNOWN;
	}
	if (write)
		return desc_write(nic, di, qw, at, size, *val, priv);
	if (qw == 3) {
		uint64_t s = status_word(d);

		*val = size == 8 ? s : (s >> (8 * at)) & 0xffffffffull;
		return GEMINI_ACCESS_OK;
	}
	reg = qw_reg(d, qw, &mask);
	gemini_reg_access(reg, mask, at, size, val, false);
	return GEMINI_ACCESS_OK;
}

/*
 * The live state of the busy FMA descriptors and of the enabled CQs, as
 * JSON, for a person looking at a stalled job (the "state" property).
 */
void gemini_state_json(const struct gemini_nic *nic, char *buf, size_t len)
{
	const struct gemini_fma *f = &nic->fma;
	size_t at = 0;
	unsigned int i;
	bool first = true;

#define OUT(...)							\
	do {								\
		int n_ = snprintf(buf + at, at < len ? len - at : 0,	\
				  __VA_ARGS__);				\
		if (n_ > 0)						\
			at += (size_t)n_;				\
	} while (0)
	if (!len)
		return;
	OUT("{\"orb_used\": %u, \"queued\": %u, \"fma\": [", f->orb_used,
	    f->qcount);
	for (i = 0; i < GEMINI_FMA_NUM_DESC; i++) {
		const struct gemini_fma_desc *d = &f->desc[i];

		if (!d->wc && !d->rc && !d->ssid_inuse && d->open == SSID_NONE &&
		    !d->flags && !d->pend_status)
			continue;
		OUT("%s{\"desc\": %u, \"wc\": %u, \"rc\": %u, \"ssids\": %u, "
		    "\"open\": %d, \"flags\": %u, \"pending\": %u, \"cq\": %u}",
		    first ? "" : ", ", i, d->wc, d->rc, d->ssid_inuse, d->open,
		    d->flags, d->pend_status, d_cqh(d));
		first = false;
	}
	OUT("], \"cq\": [");
	first = true;
	for (i = 0; i < GEMINI_NUM_CQ; i++) {
		const struct gemini_cq *cq = &nic->cq[i];

		if (!(cq->qw[1] & GEMINI_CQ_ENABLE))
			continue;
		OUT("%s{\"cq\": %u, \"rd\": %llu, \"wr\": %llu, \"max\": %llu, "
		    "\"overrun\": %s}", first ? "" : ", ", i,
		    (unsigned long long)field(cq->qw[0],
					      GEMINI_CQ_RD_INDEX_SHIFT,
					      GEMINI_CQ_INDEX_MASK),
		    (unsigned long long)field(cq->qw[0],
					      GEMINI_CQ_WR_INDEX_SHIFT,
					      GEMINI_CQ_INDEX_MASK),
		    (unsigned long long)field(cq->qw[1],
					      GEMINI_CQ_MAX_INDEX_SHIFT,
					      GEMINI_CQ_INDEX_MASK),
		    cq->overrun ? "true" : "false");
		first = false;
	}
	OUT("]}");
#undef OUT
	if (at >= len)
		/* Cut: still one valid (if short) document. */
		snprintf(buf, len, "{\"truncated\": true}");
}

void gemini_fma_reset(struct gemini_nic *nic)
{
	struct gemini_fma *f = &nic->fma;
	unsigned int di, next_tag = f->next_tag;

	/*
	 * In-flight requests are forgotten: their responses become stale.
	 * The tag cursor goes on, so new requests do not take their tags.
	 */
	memset(f, 0, sizeof(*f));
	f->next_tag = next_tag % GEMINI_ORB_SIZE;
	for (di = 0; di < GEMINI_FMA_NUM_DESC; di++) {
		f->desc[di].open = SSID_NONE;
		f->desc[di].priv_mask = GEMINI_FMA_PRIV_DEFAULT;
	}
	f->next_timeout = UINT64_MAX;
}
