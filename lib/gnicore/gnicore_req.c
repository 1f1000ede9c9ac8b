// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Requests: a post that asked for a local event (and every SMSG send of
 * an endpoint with a CQ) takes a tid, an index into the NIC's request
 * table, which goes in the event data (uapi/gni_wire.h); the event finds
 * the post by it (gnicore_cq.c).  Here too the checks every post makes
 * and RDMA posts.
 *
 * RDMA posts (GNI_PostRdma) are one call of the client's
 * gnicore_env_rdma_post() each (libugni: KGNI_IOC_RDMA_POST): the kernel
 * fills a BTE descriptor and the NIC moves the data.  The same checks and
 * event data as FMA posts; the BTE raises the LOCAL and GLOBAL events
 * separately (the LOCAL one's data has UGNI_CQE_LOCAL_FLAG), or exactly
 * one error event, so the request stays in the table until every event
 * asked for came or an error did (gnicore_get_completed()).
 */
#include "gnicore_priv.h"

#define RDMA_GET_ALIGN	4u	/* RDMA GET: local, remote, length (§17.5) */

/* --- request table ------------------------------------------------------ */

/*
 * Set up @nic with a request table of @nreqs tids (1..UGNI_TID_NONE; 65535
 * for a process, fewer for the kernel) for a CDM of @modes.
 */
gni_return_t gnicore_nic_init(struct gnicore_nic *nic, uint32_t nreqs,
			      uint32_t modes)
{
	uint32_t i;

	if (!nreqs || nreqs > UGNI_TID_NONE)
		return GNI_RC_INVALID_PARAM;
	memset(nic, 0, sizeof(*nic));
	nic->req = gnicore_calloc(nreqs, sizeof(*nic->req));
	nic->free_tid = gnicore_calloc(nreqs, sizeof(*nic->free_tid));
	if (!nic->req || !nic->free_tid) {
		gnicore_free(nic->req);
		gnicore_free(nic->free_tid);
		return GNI_RC_ERROR_NOMEM;
	}
	/* Lowest tids on top, so that a quiet program reuses a few. */
	for (i = 0; i < nreqs; i++)
		nic->free_tid[i] = (uint16_t)(nreqs - 1 - i);
	nic->nfree = nreqs;
	nic->nreqs = nreqs;
	nic->modes = modes;
	nic->smsg_max_retrans = FMA_SMSG_MAX_RETRANS_DEFAULT;
	gnicore_lock_init(&nic->lock);
	return GNI_RC_SUCCESS;
}

void gnicore_nic_fini(struct gnicore_nic *nic)
{
	gnicore_lock_destroy(&nic->lock);
	gnicore_free(nic->req);
	gnicore_free(nic->free_tid);
	nic->req = NULL;
	nic->free_tid = NULL;
}

/*
 * A tid for @desc, waiting for the events @want (struct gnicore_req), or
 * -1 when all are taken.  nic->lock held.
 */
int gnicore_req_alloc(struct gnicore_nic *nic, gni_post_descriptor_t *desc,
		      struct gnicore_ep *ep, uint16_t want)
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

/*
 * nic->lock held.  The entry is left clean: an SMSG send that never went
 * frees its tid with smsg_seq set, and a post that gets the tid next must
 * not have its event taken for that message's (gnicore_cq_take()).
 */
void gnicore_req_free(struct gnicore_nic *nic, uint32_t tid)
{
	nic->req[tid].used = false;
	nic->req[tid].desc = NULL;
	nic->req[tid].ep = NULL;
	nic->req[tid].client = NULL;
	nic->req[tid].smsg_seq = 0;
	nic->req[tid].smsg_tries = 0;
	nic->free_tid[nic->nfree++] = (uint16_t)tid;
}

/*
 * @ep goes: posts and SMSG sends still in the table lose their endpoint,
 * not their slot (SMSG sends are not counted in outstanding).  nic->lock
 * held.
 */
void gnicore_req_forget_ep(struct gnicore_nic *nic, struct gnicore_ep *ep)
{
	uint32_t t;

	for (t = 0; t < nic->nreqs; t++)
		if (nic->req[t].used && nic->req[t].ep == ep)
			nic->req[t].ep = NULL;
}

/* --- checks ------------------------------------------------------------- */

/* A handle that refuses the network's writes (§17.5) */
static bool hndl_readonly(const gni_mem_handle_t *h)
{
	return GNI_MEMHNDL_GET_FLAGS(*h) & GNI_MEMHNDL_FLAG_READONLY;
}

/*
 * The checks every post makes, by the CHK_* bits of @chk; fills @p.  An
 * RDMA post's @src_cq is its descriptor's src_cq_hndl, NULL if none.
 */
gni_return_t gnicore_post_check(struct gnicore_ep *ep,
				gni_post_descriptor_t *d, struct post *p,
				unsigned int chk, struct gnicore_cq *src_cq)
{
	const uint16_t modes = GNI_CQMODE_LOCAL_EVENT |
			       GNI_CQMODE_GLOBAL_EVENT |
			       GNI_CQMODE_REMOTE_EVENT;
	struct gnicore_cq *cq;

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
	if ((chk & CHK_RDMA) && src_cq) {
		cq = src_cq;
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
 * event data; POST_NO_TID if the table is full.
 */
uint64_t gnicore_post_begin(struct post *p)
{
	struct gnicore_nic *nic = p->ep->nic;
	uint64_t tid = UGNI_TID_NONE;
	unsigned long flags;
	int t;

	if (p->sync & GEMINI_FMA_SYNC_LOCAL_EVENT) {
		flags = gnicore_lock(&nic->lock);
		t = gnicore_req_alloc(nic, p->d, p->ep, p->want);
		if (t >= 0)
			p->ep->outstanding++;
		gnicore_unlock(&nic->lock, flags);
		if (t < 0)
			return POST_NO_TID;
		tid = (uint64_t)t;
	}
	return ugni_cqe_data(GNI_CQ_EVENT_TYPE_POST, p->ep->remote_event, tid);
}

/* Undo gnicore_post_begin() for a post that was not made. */
void gnicore_post_abort(struct post *p, uint64_t data)
{
	struct gnicore_nic *nic = p->ep->nic;
	uint32_t tid = (uint32_t)ugni_cqe_tid(data);
	unsigned long flags;

	if (tid == UGNI_TID_NONE)
		return;
	flags = gnicore_lock(&nic->lock);
	gnicore_req_free(nic, tid);
	p->ep->outstanding--;
	gnicore_unlock(&nic->lock, flags);
}

/* --- RDMA --------------------------------------------------------------- */

static_assert((GNI_DLVMODE_NO_ADAPT) == KGNI_RDMA_DLVR_NO_ADAPT &&
	      (GNI_DLVMODE_NO_HASH) == KGNI_RDMA_DLVR_NO_HASH &&
	      (GNI_DLVMODE_NO_RADAPT) == KGNI_RDMA_DLVR_NO_RADAPT,
	      "kgni takes uGNI's delivery-mode bits");

static uint32_t rdma_events(uint16_t cq_mode)
{
	return (cq_mode & GNI_CQMODE_LOCAL_EVENT ? KGNI_RDMA_EV_LOCAL : 0) |
	       (cq_mode & GNI_CQMODE_GLOBAL_EVENT ? KGNI_RDMA_EV_GLOBAL : 0) |
	       (cq_mode & GNI_CQMODE_REMOTE_EVENT ? KGNI_RDMA_EV_REMOTE : 0);
}

/*
 * One BTE transfer, queued by the kernel (gnicore_env_rdma_post()).  The
 * kernel and the NIC check what gnicore cannot (the handles are the
 * domain's, the local range is registered, the remote MDD at the target).
 * @src_cq: the CQ of @d's src_cq_hndl, NULL if it has none.
 */
gni_return_t gnicore_post_rdma(struct gnicore_ep *ep,
			       gni_post_descriptor_t *d,
			       struct gnicore_cq *src_cq)
{
	const uint16_t known = GNI_RDMAMODE_PHYS_ADDR | GNI_RDMAMODE_FENCE |
			       GNI_RDMAMODE_GETWC_DIS;
	struct kgni_rdma_post r = { .size = sizeof(r) };
	unsigned int chk = CHK_RDMA | CHK_REMOTE | CHK_LOCAL;
	struct post p;
	gni_return_t rc;
	uint64_t data;

	if (!ep || !d)
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
	if (ep->nic->modes & GNI_CDM_MODE_BTE_SINGLE_CHANNEL)
		r.flags |= KGNI_RDMA_SINGLE_CHANNEL;
	if (d->rdma_mode & GNI_RDMAMODE_FENCE) {
		/* A fence orders one channel's transfers only. */
		if (!(r.flags & KGNI_RDMA_SINGLE_CHANNEL))
			return GNI_RC_INVALID_PARAM;
		r.flags |= KGNI_RDMA_FENCE;
	}
	rc = gnicore_post_check(ep, d, &p, chk, src_cq);
	if (rc != GNI_RC_SUCCESS)
		return rc;

	r.events = rdma_events(d->cq_mode);
	r.remote_pe = ep->remote_pe;
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
	data = gnicore_post_begin(&p);
	if (data == POST_NO_TID)
		return GNI_RC_ERROR_RESOURCE;
	r.global_data = data;
	r.local_data = data | UGNI_CQE_LOCAL_FLAG;
	rc = gnicore_env_rdma_post(ep, &r);
	if (rc != GNI_RC_SUCCESS)
		gnicore_post_abort(&p, data);
	return rc;
}
