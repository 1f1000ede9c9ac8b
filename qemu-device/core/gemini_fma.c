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
 * Requests carry dest_ptag and rem_mem_dh.  Each belongs to the
 * descriptor's open synchronisation sequence and has an ORB entry, whose
 * index is its tag: gemini_fma_seq.c keeps both, completes the sequences
 * and takes the responses.  The descriptors' control pages, where the
 * doorbells ring, are gemini_fma_regs.c.
 *
 * Nothing is lost silently: a store the FMA cannot turn into a request
 * (descriptor not enabled, bad size, NTT group violation, no SSID, ORB
 * full, bad local buffer) sets an error flag in the status word, reports
 * a guest error, and makes the sequence complete with an error status.
 */

#include "gemini_fma_int.h"
#include "gemini_reg.h"

#define ADDR_MASK	((1ull << GEMINI_FMA_ADDR_BITS) - 1)

/* --- errors ------------------------------------------------------------- */

/*
 * A store or doorbell of descriptor @di could not become a request: set
 * @flag in the status word, fail the open sequence (or the next one) with
 * @status, and report it as a guest error of @kind with the arguments
 * @di, @a1, @a2 and @a3: FMA_REFUSE(nic, di, flag, status, KIND, up to
 * three more arguments).
 */
#define FMA_REFUSE(nic, di, flag, status, ...)				\
	FMA_REFUSE_(nic, di, flag, status, __VA_ARGS__, 0, 0, 0, 0, 0)
#define FMA_REFUSE_(nic, di, flag, status, ID, a1, a2, a3, a4, ...)	\
	fma_refuse(nic, di, flag, status, GEMINI_GE_##ID, a1, a2,	\
		   a3 GEMINI_GE_NO_5TH_ARGUMENT_##a4)

static void fma_refuse(struct gemini_nic *nic, unsigned int di,
		       unsigned int flag, unsigned int status,
		       unsigned int kind, uint64_t a1, uint64_t a2,
		       uint64_t a3)
{
	struct gemini_fma_desc *d = &nic->fma.desc[di];

	d->flags |= flag;
	if (d->open != SSID_NONE) {
		struct gemini_fma_ssid *s = &nic->fma.ssid[d->open];

		if (!s->status)
			s->status = (uint8_t)status;
	} else if (!d->pend_status) {
		d->pend_status = (uint8_t)status;
	}
	nic->fma.stats.refused++;
	gemini_guest_error(nic, kind, (const uint64_t[4]) { di, a1, a2, a3 });
}

/* --- addresses ---------------------------------------------------------- */

struct fma_target {
	uint32_t pe;
	uint64_t offset;
};

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
	uint64_t a = (d->base_offset + x) & ADDR_MASK;
	unsigned int mode, s;
	uint64_t pe;

	mode = (unsigned int)gemini_field(d->cmd, GEMINI_FMA_PE_MASK_MODE_SHIFT,
					  GEMINI_FMA_PE_MASK_MODE_MASK);
	s = pe_shift[mode];
	pe = (a >> s) & GEMINI_PE_MASK;
	/* Offset bits above the PE field move down to close the gap. */
	tg->offset = ((a & ((1ull << s) - 1)) |
		      ((a >> (s + GEMINI_PE_BITS)) << s)) & OFFSET_MASK;
	if (gemini_field(d->pe, GEMINI_FMA_MODE3_SHIFT,
			 GEMINI_FMA_MODE3_NTT_ENABLE)) {
		uint64_t npes = gemini_field(d->pe, GEMINI_FMA_NUM_PES_SHIFT,
					     GEMINI_FMA_NPES_MASK);
		uint64_t base = gemini_field(d->pe, GEMINI_FMA_PE_BASE_SHIFT,
					     GEMINI_FMA_NPES_MASK);
		int64_t phys;

		if (pe >= npes)
			return GEMINI_STATUS_NPES;
		phys = gemini_nat_ntt_lookup(nic, base + pe);
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

unsigned int gemini_fma_target(struct gemini_nic *nic, unsigned int di,
			       uint64_t x, struct gemini_pkt *pkt)
{
	struct fma_target tg;
	unsigned int status = fma_resolve(nic, di, x, &tg);

	if (status == GEMINI_STATUS_OK)
		pkt_target(pkt, &nic->fma.desc[di], &tg);
	return status;
}

/*
 * Check that descriptor @di may issue now and resolve window offset @x;
 * false (refused, reported) otherwise.
 */
static bool fma_prepare(struct gemini_nic *nic, unsigned int di, uint64_t x,
			struct gemini_pkt *pkt)
{
	const struct gemini_fma_desc *d = &nic->fma.desc[di];

	if (!(d_mode2(d) & GEMINI_FMA_MODE2_FMA_ENABLE)) {
		FMA_REFUSE(nic, di, GEMINI_FMA_FLAG_HT_REQ,
			   GEMINI_STATUS_INV_CMD, FMA_NOT_ENABLED);
		return false;
	}
	if (d_mode2(d) & GEMINI_FMA_MODE2_VMDH) {
		/* vgemini has no vMDH table yet. */
		FMA_REFUSE(nic, di, GEMINI_FMA_FLAG_HT_REQ,
			   GEMINI_STATUS_VMDH_INV, FMA_VMDH);
		return false;
	}
	if (gemini_fma_target(nic, di, x, pkt) != GEMINI_STATUS_OK) {
		FMA_REFUSE(nic, di, GEMINI_FMA_FLAG_NPES, GEMINI_STATUS_NPES,
			   FMA_NPES);
		return false;
	}
	return true;
}

/* Issue @pkt in @di's open sequence; refuses (reported) when out of room. */
static void fma_issue(struct gemini_nic *nic, unsigned int di,
		      struct gemini_pkt *pkt, bool fetch, uint64_t local_offset)
{
	int si = gemini_fma_seq_open(nic, di);
	struct gemini_fma_ssid *s;

	if (si == SSID_NONE) {
		FMA_REFUSE(nic, di, GEMINI_FMA_FLAG_SYNCID_ALLOC,
			   GEMINI_STATUS_SSID_STATE, FMA_NO_SSID_REQ, pkt->type);
		return;
	}
	if (!gemini_fma_orb_issue(nic, (unsigned int)si, di, pkt, fetch,
				  local_offset)) {
		FMA_REFUSE(nic, di, GEMINI_FMA_FLAG_HT_REQ,
			   GEMINI_STATUS_SSID_STATE, FMA_ORB_FULL, pkt->type);
		return;
	}
	s = &nic->fma.ssid[si];
	if (s->target_valid &&
	    (s->dst != pkt->dst || s->dst_nic != pkt->dst_nic))
		s->multi = true;
	s->issued++;
	s->target_valid = true;
	s->dst = pkt->dst;
	s->dst_nic = pkt->dst_nic;
	s->ptag = pkt->ptag;
	s->mdh = pkt->mdh;
}

/* --- windows ------------------------------------------------------------ */

enum win_kind { WIN_NONE, WIN_PUT, WIN_PUT_WC, WIN_GET };

static enum win_kind win_decode(uint64_t off, unsigned int *di, uint64_t *x)
{
	static const struct {
		uint64_t base;
		unsigned int first, num;
		enum win_kind kind;
	} win[] = {
		{ GEMINI_FMA_PUT_WC, 0, GEMINI_NUM_FMA, WIN_PUT_WC },
		{ GEMINI_FMA_PUT_UC, 0, GEMINI_NUM_FMA, WIN_PUT },
		{ GEMINI_FMA_GET, 0, GEMINI_NUM_FMA, WIN_GET },
		{ GEMINI_OS_FMA_PUT_WC, GEMINI_FMA_OS_FIRST, GEMINI_NUM_FMA_OS,
		  WIN_PUT_WC },
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

bool gemini_fma_owns(uint64_t off)
{
	const uint64_t span = (uint64_t)GEMINI_FMA_NUM_DESC *
			      GEMINI_FMA_CTRL_SIZE;

	return gemini_fma_is_window(off) ||
	       (off >= GEMINI_FMA_PRIV && off - GEMINI_FMA_PRIV < span) ||
	       (off >= GEMINI_FMA_USER_ALIAS &&
		off - GEMINI_FMA_USER_ALIAS < span);
}

uint64_t gemini_fma_issued(const struct gemini_nic *nic)
{
	return nic->fma.stats.requests;
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

/*
 * Write combining.  A CPU merges its stores to a write-combining mapping
 * into 64-byte lines before they reach the NIC, and the FMA makes one
 * request of a line; QEMU hands the device each store alone.  So stores
 * into a PUT-WC window that extend the open line (same descriptor, the
 * next offset, the same 64-byte line) are merged into its request, which
 * goes when the line is full, when anything else reaches the NIC (a
 * store elsewhere, a register access: the sync that ends a post), or
 * from gemini_nic_poll(), which the glue runs soon after a store that
 * left a line open.  The PUT-UC windows send every store at once.
 */
#define WC_LINE		64u

void gemini_fma_wc_flush(struct gemini_nic *nic)
{
	struct gemini_fma_wc *w = &nic->fma.wc;
	struct gemini_pkt pkt;

	if (!w->open)
		return;
	w->open = false;
	pkt = w->pkt;
	fma_issue(nic, w->di, &pkt, false, 0);
}

bool gemini_fma_wc_open(const struct gemini_nic *nic)
{
	return nic->fma.wc.open;
}

bool gemini_fma_acks_wanted(const struct gemini_nic *nic)
{
	return nic->fma.prompt_open;
}

bool gemini_fma_awaiting(const struct gemini_nic *nic)
{
	return nic->fma.orb_used;
}

/* Does a store of @size at @x extend the open line of @di? */
static bool wc_extends(const struct gemini_fma_wc *w, unsigned int di,
		       uint64_t x, unsigned int size)
{
	return w->open && w->di == di && w->next == x &&
	       (x + size - 1) / WC_LINE == (x - w->pkt.len) / WC_LINE;
}

static void put_store(struct gemini_nic *nic, unsigned int di, uint64_t x,
		      unsigned int size, uint64_t val, bool wc)
{
	const struct gemini_fma_desc *d = &nic->fma.desc[di];
	struct gemini_fma_wc *w = &nic->fma.wc;
	struct gemini_pkt pkt = { 0 };
	unsigned int cmd = d_cmd(d), op, i;

	if (wc && wc_extends(w, di, x, size)) {
		for (i = 0; i < size; i++)
			w->pkt.data[w->pkt.len + i] = (uint8_t)(val >> (8 * i));
		w->pkt.len = (uint8_t)(w->pkt.len + size);
		w->next += size;
		nic->fma.stats.wc_merged++;
		if (w->next % WC_LINE == 0)
			gemini_fma_wc_flush(nic);
		return;
	}
	gemini_fma_wc_flush(nic);
	if (!fma_prepare(nic, di, x, &pkt))
		return;
	if (cmd == GEMINI_FMA_CMD_PUT || cmd == GEMINI_FMA_CMD_PUT_MSG) {
		pkt.type = GEMINI_PKT_PUT;
		pkt.len = (uint8_t)size;
		for (i = 0; i < size; i++)
			pkt.data[i] = (uint8_t)(val >> (8 * i));
		/* A line's first store opens it, unless it ends the line. */
		if (wc && (x + size) % WC_LINE != 0 &&
		    x / WC_LINE == (x + size - 1) / WC_LINE) {
			w->open = true;
			w->di = di;
			w->next = x + size;
			w->pkt = pkt;
			return;
		}
	} else if (amo_code(cmd, &op) && op != GEMINI_AMO_CSWAP) {
		amo_operands(&pkt, d, op, false);
	} else {
		FMA_REFUSE(nic, di, GEMINI_FMA_FLAG_HT_REQ,
			   GEMINI_STATUS_INV_CMD, FMA_PUT_CMD, cmd);
		return;
	}
	fma_issue(nic, di, &pkt, false, 0);
}

static void get_store(struct gemini_nic *nic, unsigned int di, uint64_t x,
		      uint64_t gcw)
{
	const struct gemini_fma_desc *d = &nic->fma.desc[di];
	struct gemini_dma_piece piece[GEMINI_NAT_MAX_PIECES];
	unsigned int cmd = (unsigned int)gemini_field(gcw, GEMINI_GCW_CMD_SHIFT,
						      GEMINI_GCW_CMD_MASK);
	uint64_t local = gcw & GEMINI_GCW_LOCAL_OFFSET_MASK;
	struct gemini_pkt pkt = { 0 };
	unsigned int op, len, n, status;

	if (gcw & GEMINI_GCW_REMOTE_PLUS4) {
		if ((x & 7) || cmd != GEMINI_FMA_CMD_GET) {
			FMA_REFUSE(nic, di, GEMINI_FMA_FLAG_HT_REQ,
				   GEMINI_STATUS_MALFORMED, FMA_GCW_PLUS4, x,
				   cmd);
			return;
		}
		x += 4;
	}
	if (!fma_prepare(nic, di, x, &pkt))
		return;
	if (cmd == GEMINI_FMA_CMD_GET) {
		len = ((unsigned int)gemini_field(gcw, GEMINI_GCW_COUNT_SHIFT,
						  GEMINI_GCW_COUNT_MASK) + 1) *
		      GEMINI_GCW_GRAIN;
		if ((pkt.addr | local) & (GEMINI_FMA_GET_ALIGN - 1)) {
			FMA_REFUSE(nic, di, GEMINI_FMA_FLAG_HT_REQ,
				   GEMINI_STATUS_MALFORMED, FMA_GET_ALIGN,
				   pkt.addr, local);
			return;
		}
		pkt.type = GEMINI_PKT_GET;
		pkt.len = (uint8_t)len;
	} else if (amo_code(cmd, &op)) {
		len = GEMINI_AMO_OPERAND_BYTES;
		if (local & (GEMINI_AMO_ALIGN - 1)) {
			FMA_REFUSE(nic, di, GEMINI_FMA_FLAG_HT_REQ,
				   GEMINI_STATUS_MALFORMED, FMA_AMO_ALIGN,
				   local);
			return;
		}
		amo_operands(&pkt, d, op, true);
	} else {
		FMA_REFUSE(nic, di, GEMINI_FMA_FLAG_HT_REQ,
			   GEMINI_STATUS_INV_CMD, FMA_GET_CMD, cmd);
		return;
	}
	/* The local buffer is checked now, so a fetch has somewhere to go. */
	status = gemini_nat_translate(nic, d_src_ptag(d), d_src_mdh(d), local,
				      len, true, piece, GEMINI_NAT_MAX_PIECES,
				      &n);
	if (status != GEMINI_STATUS_OK) {
		FMA_REFUSE(nic, di, GEMINI_FMA_FLAG_HT_REQ, status,
			   FMA_LOCAL_BUF, local, len, status);
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
		gemini_fma_wc_flush(nic);
		FMA_REFUSE(nic, di, GEMINI_FMA_FLAG_HT_REQ,
			   GEMINI_STATUS_MALFORMED, FMA_STORE_SIZE, size, x);
		return GEMINI_ACCESS_BAD_SIZE;
	}
	if (kind == WIN_GET) {
		gemini_fma_wc_flush(nic);
		get_store(nic, di, x, val);
	} else {
		put_store(nic, di, x, size, val, kind == WIN_PUT_WC);
	}
	return GEMINI_ACCESS_OK;
}

/* --- doorbells ---------------------------------------------------------- */

void gemini_fma_alloc_syncid(struct gemini_nic *nic, unsigned int di)
{
	if (gemini_fma_seq_open(nic, di) == SSID_NONE) {
		FMA_REFUSE(nic, di, GEMINI_FMA_FLAG_SYNCID_ALLOC,
			   GEMINI_STATUS_SSID_STATE, FMA_NO_SSID);
	}
}

void gemini_fma_cq_write(struct gemini_nic *nic, unsigned int di, uint64_t val)
{
	struct gemini_pkt pkt = { 0 };

	if (!fma_prepare(nic, di, 0, &pkt))
		return;
	pkt.type = GEMINI_PKT_CQWRITE;
	pkt.len = GEMINI_AMO_OPERAND_BYTES;
	vgemini_put_le64(pkt.data, val);
	fma_issue(nic, di, &pkt, false, 0);
}
