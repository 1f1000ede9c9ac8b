// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * FMA posts (PUT, GET, AMO, CQ write) are issued by stores into the FMA
 * descriptor's mapped pages, without a system call.
 *
 * A post is one synchronisation sequence of the endpoint's descriptor:
 *
 *  1. the base offset (QW1: remote PE at bits 57..40, remote offset
 *     below, 64-byte aligned) and the command with the remote and local
 *     MDHs (QW2), written only when they change;
 *  2. the data: for a PUT, stores of 1..8 bytes at window offset X =
 *     remote offset - base; for a GET, 8-byte GET control words, one per
 *     64 bytes; for an AMO, its operands into the scratch registers and
 *     one store (no fetch) or control word (fetch); for a CQ write, the
 *     CQ-write doorbell;
 *  3. the sync-complete doorbell, with the events the post asked for and
 *     the event data (type POST, the endpoint's remote_event, the tid).
 *
 * The device completes the sequence when every response is in and then
 * writes the local event, so GNI_GetCompleted finds the descriptor by
 * the tid.  A post that asked for no local event still gets one when it
 * fails; it carries UGNI_TID_NONE.
 *
 * Where waiting for a full descriptor is not allowed (gnicore_may_wait(),
 * the kernel), a post that finds it full is refused with
 * GNI_RC_ERROR_RESOURCE, and the sequences made for SMSG and MSGQ return
 * false, before any store.  Inside a long sequence nothing can be undone:
 * its stores go on, and one that a full ORB refuses ends the sequence in
 * an error event.
 */
#include "gnicore_priv.h"

/* Each mapped window is this big; a transfer moves the base beyond it. */
#define CHUNK_MAX	(1u << 20)
#define GET_MAX		64u	/* bytes of one GET control word */
#define BASE_ALIGN	64u	/* QW1 bits 5..0 are unused */
#define PE_SHIFT	GEMINI_FMA_PE_SHIFT_MODE0	/* PE mask mode 0 */

/* @f, a descriptor whose local events go to @cq, its pages mapped */
void gnicore_fma_init(struct gnicore_fma *f, struct gnicore_cq *cq)
{
	f->cq = cq;
	f->qw1 = 0;
	f->qw2 = 0;
	f->shadow_valid = false;
	f->seen_valid = false;
	gnicore_lock_init(&f->lock);
}

void gnicore_fma_fini(struct gnicore_fma *f)
{
	gnicore_lock_destroy(&f->lock);
}

/* --- the descriptor ---------------------------------------------------- */

static void fma_program(struct gnicore_fma *f, uint64_t qw1, uint64_t qw2)
{
	if (f->shadow_valid && f->qw1 == qw1 && f->qw2 == qw2)
		return;
	gnicore_wc_flush();
	gnicore_write64(&f->user[GEMINI_FMA_QW_BASE_OFFSET / 8], qw1);
	gnicore_write64(&f->user[GEMINI_FMA_QW_CMD / 8], qw2);
	f->qw1 = qw1;
	f->qw2 = qw2;
	f->shadow_valid = true;
}

static uint64_t qw2_of(unsigned int cmd, uint32_t rem_mdh, uint32_t src_mdh,
		       uint16_t dlvr_mode)
{
	/*
	 * FMA_ENABLE is the kernel's bit and is set while the descriptor is
	 * ours: writing it back as 1 keeps the store within what the
	 * privilege mask allows (a 0 there is a refused write).
	 */
	uint64_t m2 = GEMINI_FMA_MODE2_FMA_ENABLE;

	/* Adaptive and hashed unless the delivery mode says otherwise. */
	if (!(dlvr_mode & GNI_DLVMODE_NO_ADAPT))
		m2 |= GEMINI_FMA_MODE2_ADP;
	if (!(dlvr_mode & GNI_DLVMODE_NO_RADAPT))
		m2 |= GEMINI_FMA_MODE2_RADP;
	if (!(dlvr_mode & GNI_DLVMODE_NO_HASH))
		m2 |= GEMINI_FMA_MODE2_HASH;
	return (uint64_t)(cmd & GEMINI_FMA_CMD_MASK) << GEMINI_FMA_CMD_SHIFT |
	       (uint64_t)(rem_mdh & GEMINI_FMA_MDH_MASK) <<
		GEMINI_FMA_REM_MDH_SHIFT |
	       (uint64_t)(src_mdh & GEMINI_FMA_MDH_MASK) <<
		GEMINI_FMA_SRC_MDH_SHIFT |
	       m2 << GEMINI_FMA_MODE2_SHIFT;
}

static uint64_t qw1_of(uint32_t pe, uint64_t base)
{
	return (uint64_t)pe << PE_SHIFT | (base & OFFSET_MASK);
}

/*
 * The descriptor's status word: its open sequences and requests in
 * flight, read through the mapped page (not a system call), and kept as
 * the base of the bound below.
 */
static void fma_status(struct gnicore_fma *f)
{
	uint64_t st = gnicore_read64(&f->user[GEMINI_FMA_QW_STATUS / 8]);

	f->seen_ssids = st >> GEMINI_FMA_STAT_SSID_SHIFT &
			GEMINI_FMA_STAT_SSID_MASK;
	f->seen_reqs = (st >> GEMINI_FMA_STAT_WC_SHIFT &
			GEMINI_FMA_STAT_COUNT_MASK) +
		       (st >> GEMINI_FMA_STAT_RC_SHIFT &
			GEMINI_FMA_STAT_COUNT_MASK);
	f->new_ssids = 0;
	f->new_reqs = 0;
	f->seen_valid = true;
}

/* @n requests issued into @f (stores, control words, a flag) */
static void fma_issued(struct gnicore_fma *f, unsigned int n)
{
	f->new_reqs += n;
}

/*
 * Keep the descriptor's open sequences (SSIDs, shared by the whole NIC)
 * and its requests in flight (ORB entries, shared too) bounded before a
 * post: past @share times GNICORE_FMA_MAX_OPEN or GNICORE_FMA_MAX_REQS,
 * wait for the device to retire some (false where waiting is not
 * allowed).  Without the second bound, short posts (fewer stores than
 * GNICORE_FMA_CHECK_EVERY, never checked by fma_room()) could keep 32
 * sequences of 17 stores in flight: more than the ORB holds, and a store
 * into a full ORB is refused.
 *
 * Only this descriptor's own posts raise its counts, and the device only
 * lowers them, so the last status read plus what was posted since bounds
 * them from above: while that bound is below the share, the post needs
 * no read.  A read is an access the vCPU makes to the device, as many as
 * a short post's stores: skipping it takes a third of the accesses of an
 * 8-byte PUT.
 */
static bool fma_throttle_share(struct gnicore_fma *f, unsigned int share)
{
	if (f->seen_valid &&
	    f->seen_ssids + f->new_ssids < share * GNICORE_FMA_MAX_OPEN &&
	    f->seen_reqs + f->new_reqs < share * GNICORE_FMA_MAX_REQS)
		return true;
	for (;;) {
		fma_status(f);
		if (f->seen_ssids < share * GNICORE_FMA_MAX_OPEN &&
		    f->seen_reqs < share * GNICORE_FMA_MAX_REQS)
			return true;
		if (!gnicore_may_wait())
			return false;
		gnicore_relax();
	}
}

static bool fma_throttle(struct gnicore_fma *f)
{
	return fma_throttle_share(f, 1);
}

/*
 * Every store is a request holding one of the NIC's ORB entries until its
 * response: keep the descriptor's share bounded in long transfers.
 */
static void fma_room(struct gnicore_fma *f)
{
	for (;;) {
		fma_status(f);
		if (f->seen_reqs < GNICORE_FMA_MAX_REQS || !gnicore_may_wait())
			return;
		gnicore_relax();
	}
}

/*
 * Start a sequence of @f for SMSG or MSGQ: take its lock (its flags in
 * @flags) once it has room (twice the share for GNICORE_SYNC_AGAIN in
 * @sync); false, unlocked, if it may not wait for it.
 */
static bool fma_begin(struct gnicore_fma *f, unsigned int sync,
		      unsigned long *flags)
{
	*flags = gnicore_lock(&f->lock);
	if (fma_throttle_share(f, sync & GNICORE_SYNC_AGAIN ? 2 : 1))
		return true;
	gnicore_unlock(&f->lock, *flags);
	return false;
}

static void fma_sync(struct gnicore_fma *f, unsigned int type, uint64_t data)
{
	f->new_ssids++;
	if (type & GEMINI_FMA_SYNC_WITH_FLAG)
		fma_issued(f, 1);	/* the flag's PUT */
	gnicore_wc_flush();
	gnicore_write64(&f->user[GEMINI_FMA_QW_SYNCCMP / 8],
			(uint64_t)type << GEMINI_FMA_SYNC_TYPE_SHIFT |
			(data & GEMINI_FMA_SYNC_DATA_MASK));
}

/* --- the operations ----------------------------------------------------- */

/* @n bytes from @src at offset @x of @f's PUT window */
static void store(struct gnicore_fma *f, uint64_t x, const uint8_t *src,
		  unsigned int n)
{
	uint64_t v8;
	uint32_t v4;
	uint16_t v2;

	fma_issued(f, 1);
	switch (n) {
	case 8:
		memcpy(&v8, src, 8);
		gnicore_write64(f->put + x, v8);
		break;
	case 4:
		memcpy(&v4, src, 4);
		gnicore_write32(f->put + x, v4);
		break;
	case 2:
		memcpy(&v2, src, 2);
		gnicore_write16(f->put + x, v2);
		break;
	default:
		gnicore_write8(f->put + x, *src);
	}
}

/*
 * Point the descriptor at the chunk of the transfer that starts @done
 * bytes in; returns its window offset, and in @end where it stops.
 */
static uint64_t chunk(struct post *p, unsigned int cmd, uint32_t src_mdh,
		      uint64_t done, uint64_t *end)
{
	uint64_t roff = p->roff + done;
	uint64_t base = roff & ~(uint64_t)(BASE_ALIGN - 1);
	uint64_t len = p->d->length;

	*end = len - done < CHUNK_MAX ? len : done + CHUNK_MAX;
	fma_program(p->fma, qw1_of(p->ep->remote_pe, base),
		    qw2_of(cmd, p->rem_mdh, src_mdh, p->d->dlvr_mode));
	return roff - base;
}

static void do_put(struct post *p)
{
	const uint8_t *src = (const uint8_t *)(uintptr_t)p->d->local_addr;
	uint64_t done = 0, len = p->d->length;
	struct gnicore_fma *f = p->fma;
	unsigned int nstores = 0;

	while (done < len) {
		uint64_t end, x = chunk(p, GEMINI_FMA_CMD_PUT, 0, done, &end);

		/* The widest store the remote alignment allows. */
		while (done < end) {
			uint64_t left = end - done;
			unsigned int n = 1;

			if (!(x & 7) && left >= 8)
				n = 8;
			else if (!(x & 3) && left >= 4)
				n = 4;
			else if (!(x & 1) && left >= 2)
				n = 2;
			/*
			 * At a line's start: the status read would send the
			 * line the NIC is write-combining unfinished.
			 */
			if (++nstores >= GNICORE_FMA_CHECK_EVERY &&
			    !(x & (GNICORE_WC_LINE - 1))) {
				fma_room(f);
				nstores = 0;
			}
			store(f, x, src + done, n);
			x += n;
			done += n;
		}
	}
}

static void do_get(struct post *p)
{
	uint64_t done = 0, len = p->d->length;
	struct gnicore_fma *f = p->fma;
	unsigned int nstores = 0;

	while (done < len) {
		uint64_t end, x = chunk(p, GEMINI_FMA_CMD_GET, p->src_mdh, done,
					&end);

		while (done < end) {
			uint64_t n = end - done < GET_MAX ? end - done : GET_MAX;

			if (!(++nstores % GNICORE_FMA_CHECK_EVERY))
				fma_room(f);
			fma_issued(f, 1);
			/*
			 * One aligned 8-byte store: a remote offset that is
			 * 4 mod 8 is stored 4 below with the +4 bit.
			 */
			if (x & 4)
				gnicore_write64(f->get + x - 4,
						GEMINI_GCW_GET(n, p->loff + done) |
						GEMINI_GCW_REMOTE_PLUS4);
			else
				gnicore_write64(f->get + x,
						GEMINI_GCW_GET(n, p->loff + done));
			x += n;
			done += n;
		}
	}
}

static void do_amo(struct post *p, bool fetch)
{
	struct gnicore_fma *f = p->fma;
	unsigned int cmd = p->d->amo_cmd & GEMINI_FMA_CMD_MASK;
	uint64_t base = p->roff & ~(uint64_t)(BASE_ALIGN - 1);
	uint64_t x = p->roff - base;

	fma_program(f, qw1_of(p->ep->remote_pe, base),
		    qw2_of(cmd, p->rem_mdh, p->src_mdh, p->d->dlvr_mode));
	gnicore_write64(&f->user[GEMINI_FMA_QW_SCRATCH0 / 8],
			p->d->first_operand);
	gnicore_write64(&f->user[GEMINI_FMA_QW_SCRATCH1 / 8],
			p->d->second_operand);
	fma_issued(f, 1);
	if (fetch)
		gnicore_write64(f->get + x, GEMINI_GCW(cmd, 0, p->loff));
	else
		gnicore_write64(f->put + x, 0);
}

static bool amo_valid(gni_fma_cmd_type_t cmd, bool *fetch)
{
	switch (cmd) {
	case GNI_FMA_ATOMIC_FADD: case GNI_FMA_ATOMIC_FADD_C:
	case GNI_FMA_ATOMIC_FAND: case GNI_FMA_ATOMIC_FAND_C:
	case GNI_FMA_ATOMIC_FOR: case GNI_FMA_ATOMIC_FOR_C:
	case GNI_FMA_ATOMIC_FXOR: case GNI_FMA_ATOMIC_FXOR_C:
	case GNI_FMA_ATOMIC_FAX: case GNI_FMA_ATOMIC_FAX_C:
	case GNI_FMA_ATOMIC_CSWAP: case GNI_FMA_ATOMIC_CSWAP_C:
		*fetch = true;
		return true;
	case GNI_FMA_ATOMIC_ADD: case GNI_FMA_ATOMIC_ADD_C:
	case GNI_FMA_ATOMIC_AND: case GNI_FMA_ATOMIC_AND_C:
	case GNI_FMA_ATOMIC_OR: case GNI_FMA_ATOMIC_OR_C:
	case GNI_FMA_ATOMIC_XOR: case GNI_FMA_ATOMIC_XOR_C:
	case GNI_FMA_ATOMIC_AX: case GNI_FMA_ATOMIC_AX_C:
		*fetch = false;
		return true;
	default:
		return false;	/* Aries' second-generation AMOs */
	}
}

/* GNI_PostFma */
gni_return_t gnicore_post_fma(struct gnicore_ep *ep, gni_post_descriptor_t *d)
{
	bool fetch = false, local = false;
	struct gnicore_fma *f;
	unsigned long flags;
	struct post p;
	gni_return_t rc;
	uint64_t data;

	if (!ep || !d)
		return GNI_RC_INVALID_PARAM;
	switch (d->type) {
	case GNI_POST_FMA_PUT:
	case GNI_POST_FMA_PUT_W_SYNCFLAG:
		if (d->length && !d->local_addr)
			return GNI_RC_INVALID_PARAM;
		break;
	case GNI_POST_FMA_GET:
		if (!d->length)
			return GNI_RC_INVALID_PARAM;
		if ((d->local_addr | d->remote_addr | d->length) &
		    (GEMINI_FMA_GET_ALIGN - 1))
			return GNI_RC_ALIGNMENT_ERROR;
		local = true;
		break;
	case GNI_POST_AMO:
		if (!amo_valid(d->amo_cmd, &fetch))
			return GNI_RC_INVALID_PARAM;
		if (d->length != 8)
			return GNI_RC_INVALID_PARAM;
		if ((d->remote_addr | (fetch ? d->local_addr : 0)) &
		    (GEMINI_AMO_ALIGN - 1))
			return GNI_RC_ALIGNMENT_ERROR;
		/* AX's target is 16-byte aligned (GHAL_AAX_ALIGNMENT) */
		if ((d->amo_cmd & GEMINI_FMA_CMD_AMO_MASK) == 0x0c &&
		    (d->remote_addr & (GEMINI_AMO_AX_ALIGN - 1)))
			return GNI_RC_ALIGNMENT_ERROR;
		local = fetch;
		break;
	case GNI_POST_FMA_GET_W_FLAG:
	case GNI_POST_AMO_W_FLAG:
		/* Gemini's flagged responses are not emulated. */
		return GNI_RC_ILLEGAL_OP;
	default:
		return GNI_RC_INVALID_PARAM;
	}
	rc = gnicore_post_check(ep, d, &p,
				CHK_REMOTE | (local ? CHK_LOCAL | CHK_LOCAL_W : 0),
				NULL);
	if (rc != GNI_RC_SUCCESS)
		return rc;
	if (d->type == GNI_POST_FMA_PUT_W_SYNCFLAG) {
		uint64_t flag_off;

		if ((d->sync_flag_addr & 7) ||
		    !hndl_offset(&d->remote_mem_hndl, d->sync_flag_addr, 8,
				 &flag_off))
			return d->sync_flag_addr & 7 ? GNI_RC_ALIGNMENT_ERROR :
			       GNI_RC_INVALID_PARAM;
		p.sync |= GEMINI_FMA_SYNC_WITH_FLAG;
		p.loff = flag_off;	/* used below, before the sync */
	}

	f = p.fma;
	flags = gnicore_lock(&f->lock);
	data = gnicore_post_begin(&p);
	if (data == POST_NO_TID) {
		gnicore_unlock(&f->lock, flags);
		return GNI_RC_ERROR_RESOURCE;
	}
	if (!fma_throttle(f)) {
		gnicore_post_abort(&p, data);
		gnicore_unlock(&f->lock, flags);
		return GNI_RC_ERROR_RESOURCE;
	}
	switch (d->type) {
	case GNI_POST_FMA_GET:
		do_get(&p);
		break;
	case GNI_POST_AMO:
		do_amo(&p, fetch);
		break;
	default:
		do_put(&p);
		if (p.sync & GEMINI_FMA_SYNC_WITH_FLAG) {
			/* The flag goes out once every PUT is answered. */
			gnicore_write64(&f->user[GEMINI_FMA_QW_SCRATCH0 / 8],
					d->sync_flag_value);
			gnicore_write64(&f->user[GEMINI_FMA_QW_SCRATCH1 / 8],
					p.loff);
		}
		if (!d->length)
			fma_program(f, qw1_of(ep->remote_pe, p.roff &
					      ~(uint64_t)(BASE_ALIGN - 1)),
				    qw2_of(GEMINI_FMA_CMD_PUT, p.rem_mdh, 0,
					   d->dlvr_mode));
		break;
	}
	fma_sync(f, p.sync, data);
	gnicore_unlock(&f->lock, flags);
	return GNI_RC_SUCCESS;
}

/*
 * For SMSG and MSGQ: a PUT of @len bytes from @src to offset @roff of MDH
 * @rem_mdh at @ep's peer, then with GEMINI_FMA_SYNC_WITH_FLAG in @sync
 * the 8-byte @flag_val at offset @flag_off once every PUT is answered,
 * closed by a sync of type @sync (and GNICORE_SYNC_AGAIN) and event data
 * @data.  The caller checked the offsets; the endpoint is bound.  False if
 * the descriptor was full and could not be waited for: nothing was sent.
 */
bool gnicore_fma_put_flag(struct gnicore_ep *ep, const void *src,
			  uint64_t len, uint64_t roff, uint32_t rem_mdh,
			  uint64_t flag_off, uint64_t flag_val,
			  unsigned int sync, uint64_t data, uint16_t dlvr_mode)
{
	gni_post_descriptor_t d = {
		.local_addr = (uint64_t)(uintptr_t)src, .length = len,
		.dlvr_mode = dlvr_mode,
	};
	struct post p = {
		.ep = ep, .fma = ep->fma, .d = &d, .roff = roff,
		.rem_mdh = rem_mdh,
	};
	unsigned long flags;

	if (!fma_begin(p.fma, sync, &flags))
		return false;
	sync &= GEMINI_FMA_SYNC_TYPES;
	do_put(&p);
	if (sync & GEMINI_FMA_SYNC_WITH_FLAG) {
		gnicore_write64(&p.fma->user[GEMINI_FMA_QW_SCRATCH0 / 8],
				flag_val);
		gnicore_write64(&p.fma->user[GEMINI_FMA_QW_SCRATCH1 / 8],
				flag_off);
	}
	fma_sync(p.fma, sync, data);
	gnicore_unlock(&p.fma->lock, flags);
	return true;
}

/*
 * For SMSG and MSGQ: an FMA GET of 8 bytes at offset @roff of MDH
 * @rem_mdh at @ep's peer into offset @loff of the local MDH @loc_mdh,
 * without events (event data @data for a failure).  False if nothing was
 * sent (as gnicore_fma_put_flag()).
 */
bool gnicore_fma_get8(struct gnicore_ep *ep, uint64_t loff, uint32_t loc_mdh,
		      uint64_t roff, uint32_t rem_mdh, uint64_t data,
		      uint16_t dlvr_mode)
{
	gni_post_descriptor_t d = { .length = 8, .dlvr_mode = dlvr_mode };
	struct post p = {
		.ep = ep, .fma = ep->fma, .d = &d, .roff = roff,
		.loff = loff, .rem_mdh = rem_mdh, .src_mdh = loc_mdh,
	};
	unsigned long flags;

	if (!fma_begin(p.fma, 0, &flags))
		return false;
	do_get(&p);
	fma_sync(p.fma, 0, data);
	gnicore_unlock(&p.fma->lock, flags);
	return true;
}

/*
 * For SMSG: the CQ write @event to the CQ of MDH @rem_mdh at @ep's peer,
 * alone (the remote event of a message whose own was never sent), with
 * the local event of @sync (0 or GEMINI_FMA_SYNC_LOCAL_EVENT; a failure
 * raises one anyway; and GNICORE_SYNC_AGAIN), event data @data.  False if nothing was sent (as
 * gnicore_fma_put_flag()).
 */
bool gnicore_fma_cqwrite(struct gnicore_ep *ep, uint32_t rem_mdh,
			 uint64_t event, unsigned int sync, uint64_t data,
			 uint16_t dlvr_mode)
{
	struct gnicore_fma *f = ep->fma;
	unsigned long flags;

	if (!fma_begin(f, sync, &flags))
		return false;
	sync &= GEMINI_FMA_SYNC_TYPES;
	fma_program(f, qw1_of(ep->remote_pe, 0),
		    qw2_of(GEMINI_FMA_CMD_PUT, rem_mdh, 0, dlvr_mode));
	fma_issued(f, 1);
	gnicore_write64(&f->user[GEMINI_FMA_QW_CQ_WRITE / 8], event);
	fma_sync(f, sync, data);
	gnicore_unlock(&f->lock, flags);
	return true;
}

/* GNI_PostCqWrite */
gni_return_t gnicore_post_cqwrite(struct gnicore_ep *ep,
				  gni_post_descriptor_t *d)
{
	unsigned long flags;
	struct post p;
	gni_return_t rc;
	uint64_t data;

	if (!ep || !d)
		return GNI_RC_INVALID_PARAM;
	if (d->type != GNI_POST_CQWRITE ||
	    (d->cq_mode & GNI_CQMODE_REMOTE_EVENT))
		return GNI_RC_INVALID_PARAM;
	/* No data moves: only the handle's MDH (and its CQ) matter. */
	rc = gnicore_post_check(ep, d, &p, 0, NULL);
	if (rc != GNI_RC_SUCCESS)
		return rc;
	if (!hndl_ok(&d->remote_mem_hndl))
		return GNI_RC_INVALID_PARAM;
	p.rem_mdh = GNI_MEMHNDL_GET_MDH(d->remote_mem_hndl);
	flags = gnicore_lock(&p.fma->lock);
	data = gnicore_post_begin(&p);
	if (data == POST_NO_TID) {
		gnicore_unlock(&p.fma->lock, flags);
		return GNI_RC_ERROR_RESOURCE;
	}
	if (!fma_throttle(p.fma)) {
		gnicore_post_abort(&p, data);
		gnicore_unlock(&p.fma->lock, flags);
		return GNI_RC_ERROR_RESOURCE;
	}
	fma_program(p.fma, qw1_of(ep->remote_pe, 0),
		    qw2_of(GEMINI_FMA_CMD_PUT, p.rem_mdh, 0, d->dlvr_mode));
	fma_issued(p.fma, 1);
	gnicore_write64(&p.fma->user[GEMINI_FMA_QW_CQ_WRITE / 8],
			d->cqwrite_value & UGNI_CQWRITE_MASK);
	fma_sync(p.fma, p.sync, data);
	gnicore_unlock(&p.fma->lock, flags);
	return GNI_RC_SUCCESS;
}
