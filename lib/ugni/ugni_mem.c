// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Memory registration: KGNI_IOC_MEM_REGISTER pins the pages, maps them
 * through the NIC's MRT (huge pages) or GART and gives them an MDD of the
 * domain's ptag; the
 * handle it returns is uGNI's, CRC included, and travels to peers as is.
 * KGNI_IOC_MEM_REGISTER_SEGMENTS does the same for pieces of memory that
 * become one domain.
 *
 * vMDH: GNI_SetMddResources sets the size of the NIC handle's block of
 * vMDH entries, GNI_MEM_USE_VMDH registers at an index of it, and
 * GNI_RebuildMemHndl makes the handle that names a peer's registration at
 * an index.  vgemini's NIC has no vMDH table: index i is MDD
 * KGNI_VMDH_MDH(i) on every node (uapi/kgni_ioctl.h), and the handles
 * name that MDD directly.  KGNI_IOC_MEM_QUERY walks a file's
 * registrations (GNI_MemQueryHndls).
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/ioctl.h>

#include "kgni_ioctl.h"
#include "ugni_priv.h"

/*
 * The kernel picks the MRT for huge pages, the GART for the rest;
 * GNI_MEM_USE_GART forces the GART, GNI_MEM_USE_VMDH asks for a vMDH
 * entry, the others change nothing.
 */
#define MEM_FLAGS	(GNI_MEM_READ_ONLY | GNI_MEM_USE_GART | \
			 GNI_MEM_USE_VMDH | \
			 GNI_MEM_PHYS_CONT | GNI_MEM_PI_FLUSH | \
			 GNI_MEM_MDD_CLONE | GNI_MEM_MDD_SHARED | \
			 GNI_MEM_MDD_DEDICATED | GNI_MEM_RELAXED_PI_ORDERING | \
			 GNI_MEM_STRICT_PI_ORDERING)

_Static_assert(KGNI_VMDH_ANY == (uint32_t)-1,
	       "uGNI's vmdh_index -1 is kgni's KGNI_VMDH_ANY");

/* The arguments of a registration, and what the kernel is asked for */
struct mem_req {
	uint32_t kflags;	/* KGNI_MEM_* */
	uint32_t vmdh_index;	/* with KGNI_MEM_VMDH */
	uint32_t vmdh_count;
};

static gni_return_t mem_args(struct gni_nic *nic, struct gni_cq *dst_cq,
			     uint32_t flags, uint32_t vmdh_index,
			     gni_mem_handle_t *mem_hndl, struct mem_req *req)
{
	uint32_t block;

	if (!nic || !mem_hndl)
		return GNI_RC_INVALID_PARAM;
	/* A CQ takes local events or remote events, not both (§17.4). */
	if (dst_cq && (ugni_cq_nic(dst_cq) != nic || dst_cq->ep_refs))
		return GNI_RC_INVALID_PARAM;
	if (flags & ~(uint32_t)MEM_FLAGS)
		return GNI_RC_INVALID_PARAM;
	req->kflags = (flags & GNI_MEM_READ_ONLY ? KGNI_MEM_READONLY : 0) |
		      (flags & GNI_MEM_USE_GART ? KGNI_MEM_USE_GART : 0);
	req->vmdh_index = 0;
	req->vmdh_count = 0;
	/* vmdh_index is read only with GNI_MEM_USE_VMDH (-1: any entry). */
	if (!(flags & GNI_MEM_USE_VMDH))
		return GNI_RC_SUCCESS;
	/* Without GNI_SetMddResources there is no block to register in. */
	block = __atomic_load_n(&nic->mdd_block, __ATOMIC_RELAXED);
	if (!block || (vmdh_index != KGNI_VMDH_ANY && vmdh_index >= block))
		return GNI_RC_INVALID_PARAM;
	req->kflags |= KGNI_MEM_VMDH;
	req->vmdh_index = vmdh_index;
	req->vmdh_count = block;
	return GNI_RC_SUCCESS;
}

/*
 * Make the registration: the ioctl @req on @arg, whose handle comes back
 * in @out[2]; then the bookkeeping of a registration with @dst_cq.
 */
static gni_return_t mem_make(struct gni_nic *nic, struct gni_cq *dst_cq,
			     unsigned long req, void *arg, const __u64 *out,
			     gni_mem_handle_t *mem_hndl)
{
	struct ugni_mreg *m = NULL;
	int err;

	if (dst_cq) {
		m = calloc(1, sizeof(*m));
		if (!m)
			return GNI_RC_ERROR_NOMEM;
	}
	err = ugni_ioctl(nic, req, arg);
	if (err) {
		free(m);
		/* memory the process cannot access (§17.3) */
		return err == EFAULT ? GNI_RC_PERMISSION_ERROR :
		       ugni_errno_rc(err);
	}
	pthread_mutex_lock(&nic->core.lock);
	nic->mem_count++;
	if (m) {
		m->hndl.qword1 = out[0];
		m->hndl.qword2 = out[1];
		m->cq = dst_cq;
		m->next = nic->mregs;
		nic->mregs = m;
		dst_cq->core.mem_refs++;
	}
	pthread_mutex_unlock(&nic->core.lock);
	mem_hndl->qword1 = out[0];
	mem_hndl->qword2 = out[1];
	return GNI_RC_SUCCESS;
}

/*
 * Forget that registrations send remote events to @cq, which is being
 * destroyed: they are no longer tracked (only those with a CQ are).
 * Context: nic->core.lock held.
 */
void ugni_mem_cq_gone(struct gni_nic *nic, struct gni_cq *cq)
{
	struct ugni_mreg **pp = &nic->mregs, *m;

	while ((m = *pp)) {
		if (m->cq == cq) {
			*pp = m->next;
			free(m);
		} else {
			pp = &m->next;
		}
	}
	cq->core.mem_refs = 0;
}

UGNI_EXPORT gni_return_t GNI_MemRegister(gni_nic_handle_t nic_hndl,
					 uint64_t address, uint64_t length,
					 gni_cq_handle_t dst_cq_hndl,
					 uint32_t flags, uint32_t vmdh_index,
					 gni_mem_handle_t *mem_hndl)
{
	struct kgni_mem_register r = { .size = sizeof(r) };
	struct mem_req req;
	gni_return_t rc;

	rc = mem_args(nic_hndl, dst_cq_hndl, flags, vmdh_index, mem_hndl,
		      &req);
	if (rc != GNI_RC_SUCCESS)
		return rc;
	if (!length || !address)
		return GNI_RC_INVALID_PARAM;
	r.flags = req.kflags;
	r.vmdh_index = req.vmdh_index;
	r.vmdh_count = req.vmdh_count;
	r.addr = address;
	r.len = length;
	r.cq_id = dst_cq_hndl ? dst_cq_hndl->core.id : 0;
	return mem_make(nic_hndl, dst_cq_hndl, KGNI_IOC_MEM_REGISTER, &r,
			r.mem_hndl, mem_hndl);
}

_Static_assert(sizeof(gni_mem_segment_t) == sizeof(struct kgni_mem_segment) &&
	       offsetof(gni_mem_segment_t, address) ==
	       offsetof(struct kgni_mem_segment, addr) &&
	       offsetof(gni_mem_segment_t, length) ==
	       offsetof(struct kgni_mem_segment, len),
	       "uGNI's segments are kgni's");

/*
 * The segments' rules (uapi/kgni_ioctl.h): each one 1 or more bytes, not
 * at address 0, not wrapping; every one but the first starting on a page
 * and every one but the last ending on one, so that the domain is the
 * segments' bytes one after the other.
 */
static bool segments_ok(const gni_mem_segment_t *seg, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		if (!seg[i].address || !seg[i].length ||
		    seg[i].length > UINT64_MAX - seg[i].address)
			return false;
		if (i > 0 && (seg[i].address & (UGNI_PAGE - 1)))
			return false;
		if (i < n - 1 &&
		    ((seg[i].address + seg[i].length) & (UGNI_PAGE - 1)))
			return false;
	}
	return true;
}

/*
 * The handle has VA 0: posts address the domain by offset, offset 0
 * being the start of the first segment's page, so byte k of the
 * segments is at (first address & 4095) + k (§17.3, §17.5).
 */
UGNI_EXPORT gni_return_t
GNI_MemRegisterSegments(gni_nic_handle_t nic_hndl,
			gni_mem_segment_t *mem_segments, uint32_t segments_cnt,
			gni_cq_handle_t dst_cq_hndl, uint32_t flags,
			uint32_t vmdh_index, gni_mem_handle_t *mem_hndl)
{
	struct kgni_mem_register_segments r = { .size = sizeof(r) };
	struct mem_req req;
	gni_return_t rc;

	/* Physical pages are for kernel clients (LND) only. */
	if (flags & GNI_MEM_PHYS_SEGMENTS)
		return GNI_RC_INVALID_PARAM;
	rc = mem_args(nic_hndl, dst_cq_hndl, flags, vmdh_index, mem_hndl,
		      &req);
	if (rc != GNI_RC_SUCCESS)
		return rc;
	/* Segments always use the GART. */
	r.flags = req.kflags & (KGNI_MEM_READONLY | KGNI_MEM_VMDH);
	r.vmdh_index = req.vmdh_index;
	r.vmdh_count = req.vmdh_count;
	if (!mem_segments || !segments_cnt ||
	    segments_cnt > KGNI_MEM_MAX_SEGMENTS ||
	    !segments_ok(mem_segments, segments_cnt))
		return GNI_RC_INVALID_PARAM;
	r.segments = (uint64_t)(uintptr_t)mem_segments;
	r.nsegs = segments_cnt;
	r.cq_id = dst_cq_hndl ? dst_cq_hndl->core.id : 0;
	return mem_make(nic_hndl, dst_cq_hndl, KGNI_IOC_MEM_REGISTER_SEGMENTS,
			&r, r.mem_hndl, mem_hndl);
}

UGNI_EXPORT gni_return_t GNI_MemDeregister(gni_nic_handle_t nic_hndl,
					   gni_mem_handle_t *mem_hndl)
{
	struct kgni_mem_deregister d = { .size = sizeof(d) };
	struct gni_nic *nic = nic_hndl;
	struct ugni_mreg **pp, *m;
	int err;

	if (!nic || !mem_hndl ||
	    GNI_MEMHNDL_GET_CRC(*mem_hndl) != gnicore_memhndl_crc(mem_hndl))
		return GNI_RC_INVALID_PARAM;
	d.mem_hndl[0] = mem_hndl->qword1;
	d.mem_hndl[1] = mem_hndl->qword2;
	err = ugni_ioctl(nic, KGNI_IOC_MEM_DEREGISTER, &d);
	if (err)
		return GNI_RC_INVALID_PARAM;
	pthread_mutex_lock(&nic->core.lock);
	nic->mem_count--;
	for (pp = &nic->mregs; *pp; pp = &(*pp)->next) {
		m = *pp;
		if (m->hndl.qword1 == mem_hndl->qword1 &&
		    m->hndl.qword2 == mem_hndl->qword2) {
			*pp = m->next;
			m->cq->core.mem_refs--;
			free(m);
			break;
		}
	}
	pthread_mutex_unlock(&nic->core.lock);
	return GNI_RC_SUCCESS;
}

/*
 * The block is the NIC handle's: registrations with GNI_MEM_USE_VMDH
 * take an index below @num_entries.  Nothing is reserved here (the call
 * can fail only for its arguments, as Cray documents it): the kernel
 * takes an entry when a registration asks for it, ERROR_RESOURCE if it
 * is taken.
 */
UGNI_EXPORT gni_return_t GNI_SetMddResources(gni_nic_handle_t nic_hndl,
					     uint32_t num_entries)
{
	if (!nic_hndl || !num_entries || num_entries > KGNI_VMDH_ENTRIES)
		return GNI_RC_INVALID_PARAM;
	__atomic_store_n(&nic_hndl->mdd_block, num_entries, __ATOMIC_RELAXED);
	return GNI_RC_SUCCESS;
}

/* Is @h the handle of no registration at all (never written)? */
static bool mem_hndl_unset(const gni_mem_handle_t *h)
{
	return !h->qword1 && !h->qword2;
}

static bool mem_hndl_crc_ok(const gni_mem_handle_t *h)
{
	return GNI_MEMHNDL_GET_CRC(*h) == gnicore_memhndl_crc(h);
}

/*
 * The handle of the registration at vMDH index @vmdh_index of another
 * node that has the same address and length as @src's: the MDH replaced,
 * in whichever format @src has, and the CRC made again.  A handle made by
 * vgemini names its MDD, so the MDH becomes the index's MDD
 * (KGNI_VMDH_MDH); one with the VMDH flag (made elsewhere) holds the
 * index itself.
 */
UGNI_EXPORT gni_return_t GNI_RebuildMemHndl(gni_mem_handle_t *src_mem_hndl,
					    uint32_t vmdh_index,
					    gni_mem_handle_t *dst_mem_hndl)
{
	gni_mem_handle_t h;
	uint64_t mdh;

	if (!src_mem_hndl || !dst_mem_hndl)
		return GNI_RC_INVALID_PARAM;
	h = *src_mem_hndl;
	if (mem_hndl_unset(&h))
		return GNI_RC_INVALID_STATE;
	if (!mem_hndl_crc_ok(&h) || vmdh_index >= KGNI_VMDH_ENTRIES)
		return GNI_RC_INVALID_PARAM;
	mdh = GNI_MEMHNDL_GET_FLAGS(h) & GNI_MEMHNDL_FLAG_VMDH ?
	      vmdh_index : KGNI_VMDH_MDH(vmdh_index);
	if (GNI_MEMHNDL_NEW_FORMAT(h)) {
		h.qword2 &= ~(GEMINI_MH_MDH_MASK << GEMINI_MH_NEW_MDH_SHIFT);
		h.qword2 |= mdh << GEMINI_MH_NEW_MDH_SHIFT;
	} else {
		h.qword1 &= ~(GEMINI_MH_MDH_MASK << GEMINI_MH_MDH_SHIFT);
		h.qword1 |= mdh << GEMINI_MH_MDH_SHIFT;
	}
	h.qword2 &= ~(GEMINI_MH_CRC_MASK << GEMINI_MH_CRC_SHIFT);
	h.qword2 |= (uint64_t)gnicore_memhndl_crc(&h) << GEMINI_MH_CRC_SHIFT;
	*dst_mem_hndl = h;
	return GNI_RC_SUCCESS;
}

/*
 * The registration of the NIC handle's file, or of the open /dev/kgniN
 * file @fd (one of the two, not both), after *@mem_hndl, or its first if
 * *@mem_hndl is the zero handle: KGNI_IOC_MEM_QUERY.  Any other file
 * refuses the ioctl: INVALID_PARAM.  On an error *@address and *@length
 * are 0 and *@mem_hndl is untouched.
 */
UGNI_EXPORT gni_return_t GNI_MemQueryHndls(gni_nic_handle_t nic_hndl, int fd,
					   gni_mem_handle_t *mem_hndl,
					   uint64_t *address, uint64_t *length)
{
	struct kgni_mem_query q = { .size = sizeof(q) };
	bool named;
	int err;

	if (address)
		*address = 0;
	if (length)
		*length = 0;
	if (!mem_hndl || !address || !length || !nic_hndl == (fd < 0))
		return GNI_RC_INVALID_PARAM;
	named = !mem_hndl_unset(mem_hndl);
	if (named && !mem_hndl_crc_ok(mem_hndl))
		return GNI_RC_INVALID_STATE;
	q.mem_hndl[0] = mem_hndl->qword1;
	q.mem_hndl[1] = mem_hndl->qword2;
	err = ioctl(nic_hndl ? nic_hndl->fd : fd, KGNI_IOC_MEM_QUERY, &q) ?
	      errno : 0;
	switch (err) {
	case 0:
		break;
	case ENOENT:
		return GNI_RC_NO_MATCH;
	case EINVAL:		/* kgni: not a registration of the file */
		return named ? GNI_RC_INVALID_STATE : GNI_RC_INVALID_PARAM;
	default:		/* ENOTTY, EBADF: no kgni file */
		return GNI_RC_INVALID_PARAM;
	}
	mem_hndl->qword1 = q.mem_hndl[0];
	mem_hndl->qword2 = q.mem_hndl[1];
	*address = q.addr;
	*length = q.len;
	return GNI_RC_SUCCESS;
}
