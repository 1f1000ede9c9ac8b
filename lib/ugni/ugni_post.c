// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Posts.  FMA posts (PUT, GET, AMO, CQ write) are issued by stores into
 * the FMA descriptor's mapped pages, without a system call.
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
 * RDMA posts (GNI_PostRdma) are one KGNI_IOC_RDMA_POST each: the kernel
 * fills a BTE descriptor and the NIC moves the data.  The same checks
 * and event data; the BTE raises the LOCAL and GLOBAL events separately
 * (the LOCAL one's data has UGNI_CQE_LOCAL_FLAG), or exactly one error
 * event, so the request stays in the table until every event asked for
 * came or an error did (GNI_GetCompleted, ugni_cq.c).
 */
#include <string.h>

#include "kgni_ioctl.h"
#include "ugni_priv.h"

/* Each mapped window is this big; a transfer moves the base beyond it. */
#define CHUNK_MAX	(1u << 20)
#define GET_MAX		64u	/* bytes of one GET control word */
#define BASE_ALIGN	64u	/* QW1 bits 5..0 are unused */
#define PE_SHIFT	GEMINI_FMA_PE_SHIFT_MODE0	/* PE mask mode 0 */
#define OFFSET_BITS	40
#define OFFSET_MASK	((1ull << OFFSET_BITS) - 1)
#define RDMA_GET_ALIGN	4u	/* RDMA GET: local, remote, length (§17.5) */
#define EV_LOCAL_GLOBAL	(GNI_CQMODE_LOCAL_EVENT | GNI_CQMODE_GLOBAL_EVENT)

/* --- request table ------------------------------------------------------ */

/*
 * A tid for @desc, waiting for the events @want (struct ugni_req), or -1
 * when all are taken.  nic->lock held.
 */
int ugni_req_alloc(struct gni_nic *nic, gni_post_descriptor_t *desc,
		   struct gni_ep *ep, uint16_t want)
{
	uint32_t tid;

	if (!nic->nfree)
		return -1;
	tid = nic->free_tid[--nic->nfree];
	nic->req[tid].desc = desc;
	nic->req[tid].ep = ep;
	nic->req[tid].local_event = ep->local_event;
	nic->req[tid].want = want;
	nic->req[tid].seen = 0;
	nic->req[tid].used = true;
	return (int)tid;
}

void ugni_req_free(struct gni_nic *nic, uint32_t tid)
{
	nic->req[tid].used = false;
	nic->req[tid].desc = NULL;
	nic->req[tid].ep = NULL;
	nic->req[tid].msgq = NULL;
	nic->free_tid[nic->nfree++] = (uint16_t)tid;
}

/* --- the descriptor ---------------------------------------------------- */

static void wc_flush(void)
{
	/* WC stores reach the device before what follows (x86 sfence). */
	__asm__ __volatile__("sfence" ::: "memory");
}

static void fma_program(struct ugni_fma *f, uint64_t qw1, uint64_t qw2)
{
	if (f->shadow_valid && f->qw1 == qw1 && f->qw2 == qw2)
		return;
	wc_flush();
	f->user[GEMINI_FMA_QW_BASE_OFFSET / 8] = qw1;
	f->user[GEMINI_FMA_QW_CMD / 8] = qw2;
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
 * Keep the descriptor's open sequences (SSIDs, shared by the whole NIC)
 * and its requests in flight (ORB entries, shared too) bounded before a
 * post: past UGNI_FMA_MAX_OPEN or UGNI_FMA_MAX_REQS, wait for the device
 * to retire some.  Without the second bound, short posts (fewer stores
 * than UGNI_FMA_CHECK_EVERY, never checked by fma_room()) could keep 32
 * sequences of 17 stores in flight: more than the ORB holds, and a store
 * into a full ORB is refused.  The status word is read through the
 * mapped page, not a system call.
 */
static void fma_throttle(struct ugni_fma *f)
{
	uint64_t st;

	for (;;) {
		st = f->user[GEMINI_FMA_QW_STATUS / 8];
		if ((st >> GEMINI_FMA_STAT_SSID_SHIFT &
		     GEMINI_FMA_STAT_SSID_MASK) < UGNI_FMA_MAX_OPEN &&
		    (st >> GEMINI_FMA_STAT_WC_SHIFT & GEMINI_FMA_STAT_COUNT_MASK) +
		    (st >> GEMINI_FMA_STAT_RC_SHIFT & GEMINI_FMA_STAT_COUNT_MASK) <
		    UGNI_FMA_MAX_REQS)
			return;
		__asm__ __volatile__("pause" ::: "memory");
	}
}

/*
 * Every store is a request holding one of the NIC's ORB entries until its
 * response: keep the descriptor's share bounded in long transfers.
 */
static void fma_room(struct ugni_fma *f)
{
	uint64_t st;

	for (;;) {
		st = f->user[GEMINI_FMA_QW_STATUS / 8];
		if ((st >> GEMINI_FMA_STAT_WC_SHIFT & GEMINI_FMA_STAT_COUNT_MASK) +
		    (st >> GEMINI_FMA_STAT_RC_SHIFT & GEMINI_FMA_STAT_COUNT_MASK) <
		    UGNI_FMA_MAX_REQS)
			return;
		__asm__ __volatile__("pause" ::: "memory");
	}
}

static void fma_sync(struct ugni_fma *f, unsigned int type, uint64_t data)
{
	wc_flush();
	f->user[GEMINI_FMA_QW_SYNCCMP / 8] =
		(uint64_t)type << GEMINI_FMA_SYNC_TYPE_SHIFT |
		(data & GEMINI_FMA_SYNC_DATA_MASK);
}

/* --- checks ------------------------------------------------------------- */

static bool hndl_ok(const gni_mem_handle_t *h)
{
	return GNI_MEMHNDL_GET_CRC(*h) == ugni_memhndl_crc(h) &&
	       !GNI_MEMHNDL_NEW_FORMAT(*h);
}

/* Offset of @addr in the domain of @h; false if it has none. */
static bool hndl_offset(const gni_mem_handle_t *h, uint64_t addr,
			uint64_t len, uint64_t *off)
{
	uint64_t va = GNI_MEMHNDL_GET_VA(*h);

	if (addr < va || addr - va > OFFSET_MASK ||
	    len > OFFSET_MASK - (addr - va))
		return false;
	*off = addr - va;
	return true;
}

struct post {
	struct gni_ep *ep;
	struct ugni_fma *fma;
	struct gni_cq *cq;	/* RDMA: where the local events go */
	gni_post_descriptor_t *d;
	uint64_t roff;		/* remote offset */
	uint64_t loff;		/* local offset (GET, fetching AMO) */
	uint32_t rem_mdh, src_mdh;
	unsigned int sync;	/* GEMINI_FMA_SYNC_* */
	uint16_t want;		/* struct ugni_req */
};

/* What post_check() looks at */
#define CHK_REMOTE	0x1u	/* remote_addr inside remote_mem_hndl */
#define CHK_LOCAL	0x2u	/* local_addr inside local_mem_hndl */
#define CHK_LOCAL_W	0x4u	/* the network writes the local buffer */
#define CHK_REMOTE_W	0x8u	/* ... the remote one (checked for RDMA) */
#define CHK_RDMA	0x10u	/* BTE: dual events, src_cq_hndl */

/* A handle that refuses the network's writes (§17.5) */
static bool hndl_readonly(const gni_mem_handle_t *h)
{
	return GNI_MEMHNDL_GET_FLAGS(*h) & GNI_MEMHNDL_FLAG_READONLY;
}

/* The checks every post makes, by the CHK_* bits of @chk; fills @p. */
static gni_return_t post_check(struct gni_ep *ep, gni_post_descriptor_t *d,
			       struct post *p, unsigned int chk)
{
	const uint16_t modes = GNI_CQMODE_LOCAL_EVENT |
			       GNI_CQMODE_GLOBAL_EVENT |
			       GNI_CQMODE_REMOTE_EVENT;
	struct gni_cq *cq;

	if (!ep || !d)
		return GNI_RC_INVALID_PARAM;
	if (!ep->bound)
		return GNI_RC_INVALID_STATE;
	if (d->cq_mode & ~modes)
		return GNI_RC_INVALID_PARAM;
	if ((d->cq_mode & GNI_CQMODE_DUAL_EVENTS) == GNI_CQMODE_DUAL_EVENTS) {
		if (!(ep->nic->modes & GNI_CDM_MODE_DUAL_EVENTS))
			return GNI_RC_INVALID_PARAM;
		/* The FMA raises one local event per sequence. */
		if (!(chk & CHK_RDMA))
			return GNI_RC_ILLEGAL_OP;
	}
	/*
	 * FMA local events go to the endpoint's CQ.  An RDMA post's go to
	 * src_cq_hndl, else to the endpoint's, else (a silent post of an
	 * endpoint made without a CQ) to the hidden CQ of its FMA, where an
	 * error event still lands.  A remote-event CQ is no source CQ.
	 */
	cq = ep->cq;
	if ((chk & CHK_RDMA) && d->src_cq_hndl) {
		cq = d->src_cq_hndl;
		if (cq->nic != ep->nic || cq->mem_refs)
			return GNI_RC_INVALID_PARAM;
	}
	if ((d->cq_mode & EV_LOCAL_GLOBAL) && !cq)
		return GNI_RC_INVALID_PARAM;
	memset(p, 0, sizeof(*p));
	p->ep = ep;
	p->fma = ep->fma;
	p->cq = cq ? cq : ep->fma->cq;
	p->d = d;
	if (chk & CHK_REMOTE) {
		if (!hndl_ok(&d->remote_mem_hndl))
			return GNI_RC_INVALID_PARAM;
		if ((chk & CHK_REMOTE_W) && hndl_readonly(&d->remote_mem_hndl))
			return GNI_RC_PERMISSION_ERROR;
		p->rem_mdh = GNI_MEMHNDL_GET_MDH(d->remote_mem_hndl);
		if (!hndl_offset(&d->remote_mem_hndl, d->remote_addr,
				 d->length, &p->roff))
			return GNI_RC_INVALID_PARAM;
	}
	if (chk & CHK_LOCAL) {
		if (!hndl_ok(&d->local_mem_hndl))
			return GNI_RC_INVALID_PARAM;
		if ((chk & CHK_LOCAL_W) && hndl_readonly(&d->local_mem_hndl))
			return GNI_RC_PERMISSION_ERROR;
		p->src_mdh = GNI_MEMHNDL_GET_MDH(d->local_mem_hndl);
		if (!hndl_offset(&d->local_mem_hndl, d->local_addr,
				 d->length, &p->loff))
			return GNI_RC_INVALID_PARAM;
	}
	if (d->cq_mode & EV_LOCAL_GLOBAL)
		p->sync |= GEMINI_FMA_SYNC_LOCAL_EVENT;
	if (d->cq_mode & GNI_CQMODE_REMOTE_EVENT)
		p->sync |= GEMINI_FMA_SYNC_REMOTE_EVENT;
	if (chk & CHK_RDMA)
		p->want = d->cq_mode & EV_LOCAL_GLOBAL;
	return GNI_RC_SUCCESS;
}

/*
 * Take a tid (for a post that asked for a local event) and return the
 * event data; UINT64_MAX if the table is full.
 */
static uint64_t post_begin(struct post *p)
{
	struct gni_nic *nic = p->ep->nic;
	uint64_t tid = UGNI_TID_NONE;
	int t;

	if (p->sync & GEMINI_FMA_SYNC_LOCAL_EVENT) {
		pthread_mutex_lock(&nic->lock);
		t = ugni_req_alloc(nic, p->d, p->ep, p->want);
		if (t >= 0)
			p->ep->outstanding++;
		pthread_mutex_unlock(&nic->lock);
		if (t < 0)
			return UINT64_MAX;
		tid = (uint64_t)t;
	}
	return ugni_cqe_data(GNI_CQ_EVENT_TYPE_POST, p->ep->remote_event, tid);
}

/* Undo post_begin() for a post that was not made. */
static void post_abort(struct post *p, uint64_t data)
{
	struct gni_nic *nic = p->ep->nic;
	uint32_t tid = (uint32_t)ugni_cqe_tid(data);

	if (tid == UGNI_TID_NONE)
		return;
	pthread_mutex_lock(&nic->lock);
	ugni_req_free(nic, tid);
	p->ep->outstanding--;
	pthread_mutex_unlock(&nic->lock);
}

/* --- the operations ----------------------------------------------------- */

static void store(volatile uint8_t *w, uint64_t x, const uint8_t *src,
		  unsigned int n)
{
	uint64_t v8;
	uint32_t v4;
	uint16_t v2;

	switch (n) {
	case 8:
		memcpy(&v8, src, 8);
		*(volatile uint64_t *)(w + x) = v8;
		break;
	case 4:
		memcpy(&v4, src, 4);
		*(volatile uint32_t *)(w + x) = v4;
		break;
	case 2:
		memcpy(&v2, src, 2);
		*(volatile uint16_t *)(w + x) = v2;
		break;
	default:
		w[x] = *src;
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
	struct ugni_fma *f = p->fma;
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
			if (++nstores >= UGNI_FMA_CHECK_EVERY &&
			    !(x & (UGNI_WC_LINE - 1))) {
				fma_room(f);
				nstores = 0;
			}
			store(f->put, x, src + done, n);
			x += n;
			done += n;
		}
	}
}

static void do_get(struct post *p)
{
	uint64_t done = 0, len = p->d->length;
	struct ugni_fma *f = p->fma;
	unsigned int nstores = 0;

	while (done < len) {
		uint64_t end, x = chunk(p, GEMINI_FMA_CMD_GET, p->src_mdh, done,
					&end);

		while (done < end) {
			uint64_t n = end - done < GET_MAX ? end - done : GET_MAX;

			if (!(++nstores % UGNI_FMA_CHECK_EVERY))
				fma_room(f);
			/*
			 * One aligned 8-byte store: a remote offset that is
			 * 4 mod 8 is stored 4 below with the +4 bit.
			 */
			if (x & 4)
				*(volatile uint64_t *)(f->get + x - 4) =
					GEMINI_GCW_GET(n, p->loff + done) |
					GEMINI_GCW_REMOTE_PLUS4;
			else
				*(volatile uint64_t *)(f->get + x) =
					GEMINI_GCW_GET(n, p->loff + done);
			x += n;
			done += n;
		}
	}
}

static void do_amo(struct post *p, bool fetch)
{
	struct ugni_fma *f = p->fma;
	unsigned int cmd = p->d->amo_cmd & GEMINI_FMA_CMD_MASK;
	uint64_t base = p->roff & ~(uint64_t)(BASE_ALIGN - 1);
	uint64_t x = p->roff - base;

	fma_program(f, qw1_of(p->ep->remote_pe, base),
		    qw2_of(cmd, p->rem_mdh, p->src_mdh, p->d->dlvr_mode));
	f->user[GEMINI_FMA_QW_SCRATCH0 / 8] = p->d->first_operand;
	f->user[GEMINI_FMA_QW_SCRATCH1 / 8] = p->d->second_operand;
	if (fetch)
		*(volatile uint64_t *)(f->get + x) =
			GEMINI_GCW(cmd, 0, p->loff);
	else
		*(volatile uint64_t *)(f->put + x) = 0;
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

UGNI_EXPORT gni_return_t GNI_PostFma(gni_ep_handle_t ep_hndl,
				     gni_post_descriptor_t *post_descr)
{
	gni_post_descriptor_t *d = post_descr;
	bool fetch = false, local = false;
	struct post p;
	gni_return_t rc;
	uint64_t data;

	if (!ep_hndl || !d)
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
	rc = post_check(ep_hndl, d, &p,
			CHK_REMOTE | (local ? CHK_LOCAL | CHK_LOCAL_W : 0));
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

	pthread_mutex_lock(&p.fma->lock);
	data = post_begin(&p);
	if (data == UINT64_MAX) {
		pthread_mutex_unlock(&p.fma->lock);
		return GNI_RC_ERROR_RESOURCE;
	}
	fma_throttle(p.fma);
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
			p.fma->user[GEMINI_FMA_QW_SCRATCH0 / 8] =
				d->sync_flag_value;
			p.fma->user[GEMINI_FMA_QW_SCRATCH1 / 8] = p.loff;
		}
		if (!d->length)
			fma_program(p.fma, qw1_of(ep_hndl->remote_pe,
						  p.roff & ~(uint64_t)
						  (BASE_ALIGN - 1)),
				    qw2_of(GEMINI_FMA_CMD_PUT, p.rem_mdh, 0,
					   d->dlvr_mode));
		break;
	}
	fma_sync(p.fma, p.sync, data);
	pthread_mutex_unlock(&p.fma->lock);
	return GNI_RC_SUCCESS;
}

/*
 * For SMSG (ugni_smsg.c): a PUT of @len bytes from @src to offset @roff of
 * MDH @rem_mdh at @ep's peer, then with GEMINI_FMA_SYNC_WITH_FLAG in
 * @sync the 8-byte @flag_val at offset @flag_off once every PUT is
 * answered, closed by a sync of type @sync and event data @data.  The
 * caller checked the offsets; the endpoint is bound.
 */
void ugni_fma_put_flag(struct gni_ep *ep, const void *src, uint64_t len,
		       uint64_t roff, uint32_t rem_mdh, uint64_t flag_off,
		       uint64_t flag_val, unsigned int sync, uint64_t data,
		       uint16_t dlvr_mode)
{
	gni_post_descriptor_t d = {
		.local_addr = (uint64_t)(uintptr_t)src, .length = len,
		.dlvr_mode = dlvr_mode,
	};
	struct post p = {
		.ep = ep, .fma = ep->fma, .d = &d, .roff = roff,
		.rem_mdh = rem_mdh,
	};

	pthread_mutex_lock(&p.fma->lock);
	fma_throttle(p.fma);
	do_put(&p);
	if (sync & GEMINI_FMA_SYNC_WITH_FLAG) {
		p.fma->user[GEMINI_FMA_QW_SCRATCH0 / 8] = flag_val;
		p.fma->user[GEMINI_FMA_QW_SCRATCH1 / 8] = flag_off;
	}
	fma_sync(p.fma, sync, data);
	pthread_mutex_unlock(&p.fma->lock);
}

/*
 * For SMSG: an FMA GET of 8 bytes at offset @roff of MDH @rem_mdh at
 * @ep's peer into offset @loff of the local MDH @loc_mdh, without events
 * (event data @data for a failure).
 */
void ugni_fma_get8(struct gni_ep *ep, uint64_t loff, uint32_t loc_mdh,
		   uint64_t roff, uint32_t rem_mdh, uint64_t data,
		   uint16_t dlvr_mode)
{
	gni_post_descriptor_t d = { .length = 8, .dlvr_mode = dlvr_mode };
	struct post p = {
		.ep = ep, .fma = ep->fma, .d = &d, .roff = roff,
		.loff = loff, .rem_mdh = rem_mdh, .src_mdh = loc_mdh,
	};

	pthread_mutex_lock(&p.fma->lock);
	fma_throttle(p.fma);
	do_get(&p);
	fma_sync(p.fma, 0, data);
	pthread_mutex_unlock(&p.fma->lock);
}

/*
 * For SMSG: the CQ write @event to the CQ of MDH @rem_mdh at @ep's peer,
 * alone (the remote event of a message whose own was never sent), without
 * a local event (event data @data for a failure).
 */
void ugni_fma_cqwrite(struct gni_ep *ep, uint32_t rem_mdh, uint64_t event,
		      uint64_t data, uint16_t dlvr_mode)
{
	struct ugni_fma *f = ep->fma;

	pthread_mutex_lock(&f->lock);
	fma_throttle(f);
	fma_program(f, qw1_of(ep->remote_pe, 0),
		    qw2_of(GEMINI_FMA_CMD_PUT, rem_mdh, 0, dlvr_mode));
	f->user[GEMINI_FMA_QW_CQ_WRITE / 8] = event;
	fma_sync(f, 0, data);
	pthread_mutex_unlock(&f->lock);
}

UGNI_EXPORT gni_return_t GNI_PostCqWrite(gni_ep_handle_t ep_hndl,
					 gni_post_descriptor_t *post_descr)
{
	gni_post_descriptor_t *d = post_descr;
	struct post p;
	gni_return_t rc;
	uint64_t data;

	if (!ep_hndl || !d)
		return GNI_RC_INVALID_PARAM;
	if (d->type != GNI_POST_CQWRITE ||
	    (d->cq_mode & GNI_CQMODE_REMOTE_EVENT))
		return GNI_RC_INVALID_PARAM;
	/* No data moves: only the handle's MDH (and its CQ) matter. */
	rc = post_check(ep_hndl, d, &p, 0);
	if (rc != GNI_RC_SUCCESS)
		return rc;
	if (!hndl_ok(&d->remote_mem_hndl))
		return GNI_RC_INVALID_PARAM;
	p.rem_mdh = GNI_MEMHNDL_GET_MDH(d->remote_mem_hndl);
	pthread_mutex_lock(&p.fma->lock);
	data = post_begin(&p);
	if (data == UINT64_MAX) {
		pthread_mutex_unlock(&p.fma->lock);
		return GNI_RC_ERROR_RESOURCE;
	}
	fma_throttle(p.fma);
	fma_program(p.fma, qw1_of(ep_hndl->remote_pe, 0),
		    qw2_of(GEMINI_FMA_CMD_PUT, p.rem_mdh, 0, d->dlvr_mode));
	p.fma->user[GEMINI_FMA_QW_CQ_WRITE / 8] =
		d->cqwrite_value & UGNI_CQWRITE_MASK;
	fma_sync(p.fma, p.sync, data);
	pthread_mutex_unlock(&p.fma->lock);
	return GNI_RC_SUCCESS;
}

/* --- RDMA --------------------------------------------------------------- */

_Static_assert(GNI_DLVMODE_NO_ADAPT == KGNI_RDMA_DLVR_NO_ADAPT &&
	       GNI_DLVMODE_NO_HASH == KGNI_RDMA_DLVR_NO_HASH &&
	       GNI_DLVMODE_NO_RADAPT == KGNI_RDMA_DLVR_NO_RADAPT,
	       "kgni takes uGNI's delivery-mode bits");

static uint32_t rdma_events(uint16_t cq_mode)
{
	return (cq_mode & GNI_CQMODE_LOCAL_EVENT ? KGNI_RDMA_EV_LOCAL : 0) |
	       (cq_mode & GNI_CQMODE_GLOBAL_EVENT ? KGNI_RDMA_EV_GLOBAL : 0) |
	       (cq_mode & GNI_CQMODE_REMOTE_EVENT ? KGNI_RDMA_EV_REMOTE : 0);
}

/*
 * One BTE transfer, queued by the kernel (KGNI_IOC_RDMA_POST).  The
 * kernel and the NIC check what the library cannot (the handles are the
 * file's, the local range is registered, the remote MDD at the target).
 */
UGNI_EXPORT gni_return_t GNI_PostRdma(gni_ep_handle_t ep_hndl,
				      gni_post_descriptor_t *post_descr)
{
	const uint16_t known = GNI_RDMAMODE_PHYS_ADDR | GNI_RDMAMODE_FENCE |
			       GNI_RDMAMODE_GETWC_DIS;
	struct kgni_rdma_post r = { .size = sizeof(r) };
	gni_post_descriptor_t *d = post_descr;
	unsigned int chk = CHK_RDMA | CHK_REMOTE | CHK_LOCAL;
	struct post p;
	gni_return_t rc;
	uint64_t data;
	int err;

	if (!ep_hndl || !d)
		return GNI_RC_INVALID_PARAM;
	switch (d->type) {
	case GNI_POST_RDMA_PUT:
		r.type = KGNI_RDMA_PUT;
		chk |= CHK_REMOTE_W;
		break;
	case GNI_POST_RDMA_GET:
		r.type = KGNI_RDMA_GET;
		chk |= CHK_LOCAL_W;
		break;
	default:
		return GNI_RC_INVALID_PARAM;
	}
	if (!d->length || d->length > KGNI_RDMA_MAX_LENGTH)
		return GNI_RC_INVALID_PARAM;
	/* A PUT takes any alignment; a GET moves 4-byte words. */
	if (d->type == GNI_POST_RDMA_GET &&
	    ((d->local_addr | d->remote_addr | d->length) &
	     (RDMA_GET_ALIGN - 1)))
		return GNI_RC_ALIGNMENT_ERROR;
	/* Physical addresses are the kernel's; GETWC_DIS is Aries'. */
	if ((d->rdma_mode & ~known) || (d->rdma_mode & GNI_RDMAMODE_PHYS_ADDR))
		return GNI_RC_INVALID_PARAM;
	if (ep_hndl->nic->modes & GNI_CDM_MODE_BTE_SINGLE_CHANNEL)
		r.flags |= KGNI_RDMA_SINGLE_CHANNEL;
	if (d->rdma_mode & GNI_RDMAMODE_FENCE) {
		/* A fence orders one channel's transfers only. */
		if (!(r.flags & KGNI_RDMA_SINGLE_CHANNEL))
			return GNI_RC_INVALID_PARAM;
		r.flags |= KGNI_RDMA_FENCE;
	}
	rc = post_check(ep_hndl, d, &p, chk);
	if (rc != GNI_RC_SUCCESS)
		return rc;

	r.events = rdma_events(d->cq_mode);
	r.remote_pe = ep_hndl->remote_pe;
	r.cq_id = p.cq->id;
	/* Gemini routes by these three; the Aries modes mean nothing here. */
	r.dlvr_mode = d->dlvr_mode & (GNI_DLVMODE_NO_ADAPT |
				      GNI_DLVMODE_NO_HASH |
				      GNI_DLVMODE_NO_RADAPT);
	r.local_addr = d->local_addr;
	r.local_mem_hndl[0] = d->local_mem_hndl.qword1;
	r.local_mem_hndl[1] = d->local_mem_hndl.qword2;
	r.remote_addr = d->remote_addr;
	r.remote_mem_hndl[0] = d->remote_mem_hndl.qword1;
	r.remote_mem_hndl[1] = d->remote_mem_hndl.qword2;
	r.length = d->length;
	data = post_begin(&p);
	if (data == UINT64_MAX)
		return GNI_RC_ERROR_RESOURCE;
	r.global_data = data;
	r.local_data = data | UGNI_CQE_LOCAL_FLAG;
	/* ENOSPC: the channel's ring is full (GNI_RC_ERROR_RESOURCE) */
	err = ugni_ioctl(ep_hndl->nic, KGNI_IOC_RDMA_POST, &r);
	if (err) {
		post_abort(&p, data);
		return ugni_errno_rc(err);
	}
	return GNI_RC_SUCCESS;
}
