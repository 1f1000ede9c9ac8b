/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Between gnicore's files: what a post is while it is being made. */
#ifndef GNICORE_PRIV_H
#define GNICORE_PRIV_H

#include "gnicore.h"

#define EV_LOCAL_GLOBAL	(GNI_CQMODE_LOCAL_EVENT | GNI_CQMODE_GLOBAL_EVENT)

/* What post_check() looks at */
#define CHK_REMOTE	0x1u	/* remote_addr inside remote_mem_hndl */
#define CHK_LOCAL	0x2u	/* local_addr inside local_mem_hndl */
#define CHK_LOCAL_W	0x4u	/* the network writes the local buffer */
#define CHK_REMOTE_W	0x8u	/* ... the remote one (checked for RDMA) */
#define CHK_RDMA	0x10u	/* BTE: dual events, src_cq_hndl */

struct post {
	struct gnicore_ep *ep;
	struct gnicore_fma *fma;
	struct gnicore_cq *cq;	/* RDMA: where the local events go */
	gni_post_descriptor_t *d;
	uint64_t roff;		/* remote offset */
	uint64_t loff;		/* local offset (GET, fetching AMO) */
	uint32_t rem_mdh, src_mdh;
	unsigned int sync;	/* GEMINI_FMA_SYNC_* */
	uint16_t want;		/* struct gnicore_req */
};

#define OFFSET_BITS	40	/* of an FMA base offset */
#define OFFSET_MASK	((1ull << OFFSET_BITS) - 1)

/* A handle with its CRC, in the format Gemini knows */
static inline bool hndl_ok(const gni_mem_handle_t *h)
{
	return GNI_MEMHNDL_GET_CRC(*h) == gnicore_memhndl_crc(h) &&
	       !GNI_MEMHNDL_NEW_FORMAT(*h);
}

/* Offset of @addr in the domain of @h; false if it has none. */
static inline bool hndl_offset(const gni_mem_handle_t *h, uint64_t addr,
			       uint64_t len, uint64_t *off)
{
	uint64_t va = GNI_MEMHNDL_GET_VA(*h);

	if (addr < va || addr - va > OFFSET_MASK ||
	    len > OFFSET_MASK - (addr - va))
		return false;
	*off = addr - va;
	return true;
}

/* gnicore_req.c */
gni_return_t gnicore_post_check(struct gnicore_ep *ep,
				gni_post_descriptor_t *d, struct post *p,
				unsigned int chk, struct gnicore_cq *src_cq);
uint64_t gnicore_post_begin(struct post *p);
void gnicore_post_abort(struct post *p, uint64_t data);
/* gnicore_post_begin() found the request table full */
#define POST_NO_TID	(~(uint64_t)0)

/* gnicore_smsg.c */
bool gnicore_smsg_event(struct gnicore_ep *ep, uint64_t *e, uint64_t seq,
			unsigned int tries);

#endif /* GNICORE_PRIV_H */
