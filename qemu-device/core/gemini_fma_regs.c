// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cray-gemini device core: the FMA descriptors' control pages.
 *
 * Each descriptor has a privileged page, with every field and the
 * privilege mask, and a user alias on which only the fields the mask
 * grants may change: a user write to the others leaves them as they
 * were, and is counted and reported.  One table, fma_qws[], says for
 * each quadword how it is kept and what each mask bit grants.  QW4 is
 * the status word (write and read counters, SSIDs held, error flags; a
 * write clears).  QW7..QW9 are doorbells, rung here and carried out elsewhere:
 * alloc-SyncId and CQ write by gemini_fma.c, sync-complete by
 * gemini_fma_seq.c, which also closes the open sequence of a descriptor
 * whose enable bit is cleared.  Also here: the FMA's live state as JSON
 * for the supervisor, and its reset.
 */
#include <stdio.h>
#include <string.h>

#include "gemini_fma_int.h"
#include "gemini_reg.h"

/* --- control pages ------------------------------------------------------ */

/*
 * The quadwords of a descriptor's control page, QW1 to QW9 at 8-byte
 * steps from the page's start (GEMINI_FMA_QW_*): one table, fma_qws[],
 * for reads, writes and what the privilege mask grants the user alias.
 */
enum fma_qw_kind {
	FMA_QW_REG,		/* kept at @field under @mask, read back */
	FMA_QW_STATUS,		/* reads status_word(), a write clears */
	FMA_QW_DOORBELL,	/* a register whose 8-byte write rings @ring */
};

/* Privilege mask bit @priv lets the user alias change @bits. */
struct fma_grant {
	uint32_t priv;
	uint64_t bits;
};

#define FMA_QW_GRANTS	7

/*
 * @name: GEMINI_FMA_QW_<name> of gemini_nic.h
 * @kind: enum fma_qw_kind
 * @field: offset in struct gemini_fma_desc (not FMA_QW_STATUS)
 * @mask: the defined bits, which a privileged write sets
 * @grant: what each privilege mask bit grants, up to one with @priv 0
 * @written: after a write, called with the quadword's old value
 * @ring: a doorbell rung with @val
 */
struct fma_qw {
	const char *name;
	enum fma_qw_kind kind;
	size_t field;
	uint64_t mask;
	struct fma_grant grant[FMA_QW_GRANTS];
	void (*written)(struct gemini_nic *nic, unsigned int di, uint64_t old);
	void (*ring)(struct gemini_nic *nic, unsigned int di, uint64_t val);
};

#define FMA_NUM_QW	(GEMINI_FMA_QW_CQ_WRITE / 8 + 1)

/* QW2: clearing FMA_ENABLE frees the descriptor. */
static void cmd_written(struct gemini_nic *nic, unsigned int di, uint64_t old)
{
	if (!(d_mode2(&nic->fma.desc[di]) & GEMINI_FMA_MODE2_FMA_ENABLE) &&
	    (old >> GEMINI_FMA_MODE2_SHIFT & GEMINI_FMA_MODE2_FMA_ENABLE))
		gemini_fma_disabled(nic, di);
}

static void ring_alloc_syncid(struct gemini_nic *nic, unsigned int di,
			      uint64_t val)
{
	if (val != GEMINI_FMA_ALLOC_SYNCID_VALUE) {
		GEMINI_GUEST_ERROR(nic, FMA_ALLOC_SYNCID, di, val);
		return;
	}
	gemini_fma_alloc_syncid(nic, di);
}

#define QW(id, k, f, m)							\
	[GEMINI_FMA_QW_##id / 8] = {					\
		.name = #id, .kind = (k),				\
		.field = offsetof(struct gemini_fma_desc, f), .mask = (m)
#define M2(bits)	((uint64_t)(bits) << GEMINI_FMA_MODE2_SHIFT)

static const struct fma_qw fma_qws[FMA_NUM_QW] = {
	QW(BASE_OFFSET, FMA_QW_REG, base_offset, GEMINI_FMA_BASE_OFFSET_MASK),
		.grant = {
			{ GEMINI_FMA_PRIV_BASEOFFSET,
			  GEMINI_FMA_BASE_OFFSET_MASK },
		},
	},
	QW(CMD, FMA_QW_REG, cmd, GEMINI_FMA_QW2_MASK),
		.grant = {
			{ GEMINI_FMA_PRIV_CMD, GEMINI_FMA_CMD_MASK },
			{ GEMINI_FMA_PRIV_REMOTEMDH,
			  GEMINI_FMA_MDH_MASK << GEMINI_FMA_REM_MDH_SHIFT },
			{ GEMINI_FMA_PRIV_SOURCEMDH,
			  GEMINI_FMA_MDH_MASK << GEMINI_FMA_SRC_MDH_SHIFT },
			{ GEMINI_FMA_PRIV_PEMASKMODE,
			  GEMINI_FMA_PE_MASK_MODE_MASK <<
			  GEMINI_FMA_PE_MASK_MODE_SHIFT },
			{ GEMINI_FMA_PRIV_VMDHENABLE,
			  M2(GEMINI_FMA_MODE2_VMDH) },
			{ GEMINI_FMA_PRIV_FMAENABLE,
			  M2(GEMINI_FMA_MODE2_FMA_ENABLE |
			     GEMINI_FMA_MODE2_DT) },
			{ GEMINI_FMA_PRIV_HARA,
			  M2(GEMINI_FMA_MODE2_RADP | GEMINI_FMA_MODE2_ADP |
			     GEMINI_FMA_MODE2_HASH) },
		},
		.written = cmd_written,
	},
	QW(PE, FMA_QW_REG, pe, GEMINI_FMA_QW3_MASK),
		.grant = {
			{ GEMINI_FMA_PRIV_NPES,
			  GEMINI_FMA_NPES_MASK << GEMINI_FMA_NUM_PES_SHIFT },
			{ GEMINI_FMA_PRIV_PEBASE,
			  GEMINI_FMA_NPES_MASK << GEMINI_FMA_PE_BASE_SHIFT },
			{ GEMINI_FMA_PRIV_CQHNDL,
			  GEMINI_FMA_CQH_MASK << GEMINI_FMA_CQH_SHIFT },
			{ GEMINI_FMA_PRIV_PTAG,
			  (GEMINI_FMA_PTAG_MASK << GEMINI_FMA_SRC_PTAG_SHIFT) |
			  (GEMINI_FMA_PTAG_MASK << GEMINI_FMA_DEST_PTAG_SHIFT) },
			{ GEMINI_FMA_PRIV_NTTENABLE,
			  GEMINI_FMA_MODE3_NTT_ENABLE <<
			  GEMINI_FMA_MODE3_SHIFT },
		},
	},
	/* The counters and flags: nothing the user alias may change. */
	[GEMINI_FMA_QW_STATUS / 8] = {
		.name = "STATUS", .kind = FMA_QW_STATUS,
	},
	QW(SCRATCH0, FMA_QW_REG, scratch0, ~0ull),
		.grant = { { GEMINI_FMA_PRIV_SCRATCH0, ~0ull } },
	},
	QW(SCRATCH1, FMA_QW_REG, scratch1, ~0ull),
		.grant = { { GEMINI_FMA_PRIV_SCRATCH1, ~0ull } },
	},
	QW(ALLOC_SYNCID, FMA_QW_DOORBELL, syncid, ~0ull),
		.grant = { { GEMINI_FMA_PRIV_ALLOCSYNCID, ~0ull } },
		.ring = ring_alloc_syncid,
	},
	QW(SYNCCMP, FMA_QW_DOORBELL, synccmp, ~0ull),
		.grant = { { GEMINI_FMA_PRIV_SYNCCMP, ~0ull } },
		.ring = gemini_fma_sync_complete,
	},
	QW(CQ_WRITE, FMA_QW_DOORBELL, cq_write, ~0ull),
		.grant = { { GEMINI_FMA_PRIV_CQWRITE, ~0ull } },
		.ring = gemini_fma_cq_write,
	},
};

#undef M2
#undef QW

/* Bits of @q the user alias may change under privilege mask @pm. */
static uint64_t user_bits(const struct fma_qw *q, uint64_t pm)
{
	uint64_t b = 0;
	unsigned int g;

	for (g = 0; g < FMA_QW_GRANTS && q->grant[g].priv; g++) {
		if (pm & q->grant[g].priv)
			b |= q->grant[g].bits;
	}
	return b;
}

static uint64_t *qw_field(struct gemini_fma_desc *d, const struct fma_qw *q)
{
	return (uint64_t *)((char *)d + q->field);
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
	if (gemini_field(w, GEMINI_FMA_STAT_WC_SHIFT,
			 GEMINI_FMA_STAT_COUNT_MASK))
		d->wc = 0;
	if (gemini_field(w, GEMINI_FMA_STAT_RC_SHIFT,
			 GEMINI_FMA_STAT_COUNT_MASK))
		d->rc = 0;
	d->flags &= (uint8_t)~gemini_field(w, GEMINI_FMA_STAT_FLAGS_SHIFT,
					   GEMINI_FMA_STAT_FLAGS_MASK);
}

static enum gemini_access desc_write(struct gemini_nic *nic, unsigned int di,
				     unsigned int qw, unsigned int at,
				     unsigned int size, uint64_t val, bool priv)
{
	struct gemini_fma_desc *d = &nic->fma.desc[di];
	const struct fma_qw *q = &fma_qws[qw];
	uint64_t old, neu, allowed;
	uint64_t *reg;

	if (q->kind == FMA_QW_STATUS) {
		status_write(d, size == 8 ? val : (val & 0xffffffffull) <<
			     (8 * at));
		return GEMINI_ACCESS_OK;
	}
	if (!q->name)
		return GEMINI_ACCESS_UNKNOWN;
	reg = qw_field(d, q);
	if (q->kind == FMA_QW_DOORBELL && size != 8) {
		GEMINI_GUEST_ERROR(nic, FMA_DOORBELL_SIZE, di, qw + 1);
		return GEMINI_ACCESS_BAD_SIZE;
	}
	old = *reg;
	neu = old;
	gemini_reg_access(&neu, q->mask, at, size, &val, true);
	allowed = user_bits(q, d->priv_mask);
	if (!priv && q->kind == FMA_QW_DOORBELL && !allowed) {
		/* A doorbell is an access, not a value: withheld is withheld. */
		nic->fma.stats.priv_refused++;
		GEMINI_GUEST_ERROR(nic, FMA_DOORBELL_USER, di, qw + 1);
		return GEMINI_ACCESS_READ_ONLY;
	}
	if (!priv && ((neu ^ old) & ~allowed)) {
		nic->fma.stats.priv_refused++;
		GEMINI_GUEST_ERROR(nic, FMA_KERNEL_FIELDS, di, qw + 1,
				   (neu ^ old) & ~allowed);
		/* A doorbell the user may not ring does nothing. */
		if (q->kind == FMA_QW_DOORBELL)
			return GEMINI_ACCESS_READ_ONLY;
		*reg = (neu & allowed) | (old & ~allowed);
		return GEMINI_ACCESS_READ_ONLY;
	}
	*reg = neu;
	if (q->written)
		q->written(nic, di, old);
	if (q->ring)
		q->ring(nic, di, val);
	return GEMINI_ACCESS_OK;
}

/* Byte @off of the descriptors' pages, privileged (@priv) or the user alias. */
static enum gemini_access desc_access(struct gemini_nic *nic, uint64_t off,
				      unsigned int size, uint64_t *val,
				      bool write, bool priv)
{
	const struct fma_qw *q;
	struct gemini_fma_desc *d;
	unsigned int di, in, qw, at;

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
	if (qw >= FMA_NUM_QW || !fma_qws[qw].name) {
		if (!write)
			*val = 0;
		return GEMINI_ACCESS_UNKNOWN;
	}
	if (write)
		return desc_write(nic, di, qw, at, size, *val, priv);
	q = &fma_qws[qw];
	if (q->kind == FMA_QW_STATUS) {
		uint64_t s = status_word(d);

		*val = size == 8 ? s : (s >> (8 * at)) & 0xffffffffull;
		return GEMINI_ACCESS_OK;
	}
	gemini_reg_access(qw_field(d, q), q->mask, at, size, val, false);
	return GEMINI_ACCESS_OK;
}

static enum gemini_access priv_access(struct gemini_nic *nic, uint64_t rel,
				      unsigned int size, uint64_t *val,
				      bool write)
{
	return desc_access(nic, rel, size, val, write, true);
}

static enum gemini_access user_access(struct gemini_nic *nic, uint64_t rel,
				      unsigned int size, uint64_t *val,
				      bool write)
{
	return desc_access(nic, rel, size, val, write, false);
}

const struct gemini_window_region gemini_fma_user_region = {
	GEMINI_FMA_USER_ALIAS,
	(uint64_t)GEMINI_FMA_NUM_DESC * GEMINI_FMA_CTRL_SIZE,
	"FMA_USER_ALIAS", user_access,
};

const struct gemini_window_region gemini_fma_priv_region = {
	GEMINI_FMA_PRIV, (uint64_t)GEMINI_FMA_NUM_DESC * GEMINI_FMA_CTRL_SIZE,
	"FMA_PRIV", priv_access,
};

/* --- state for the supervisor ------------------------------------------- */

const struct gemini_fma_stats *gemini_fma_stats(const struct gemini_nic *nic)
{
	return &nic->fma.stats;
}

void gemini_fma_state_json(const struct gemini_nic *nic, struct gemini_json *j)
{
	const struct gemini_fma *f = &nic->fma;
	bool first = true;
	unsigned int i;

	gemini_json_printf(j, "\"orb_used\": %u, \"queued\": %u, \"fma\": [",
			   f->orb_used, f->qcount);
	for (i = 0; i < GEMINI_FMA_NUM_DESC; i++) {
		const struct gemini_fma_desc *d = &f->desc[i];

		if (!d->wc && !d->rc && !d->ssid_inuse && d->open == SSID_NONE &&
		    !d->flags && !d->pend_status)
			continue;
		gemini_json_printf(j, "%s{\"desc\": %u, \"wc\": %u, \"rc\": %u, \"ssids\": %u, ",
				   first ? "" : ", ", i, d->wc, d->rc,
				   d->ssid_inuse);
		gemini_json_printf(j, "\"open\": %d, \"flags\": %u, \"pending\": %u, \"cq\": %u}",
				   d->open, d->flags, d->pend_status,
				   d_cqh(d));
		first = false;
	}
	gemini_json_printf(j, "]");
}

/* --- reset -------------------------------------------------------------- */

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
