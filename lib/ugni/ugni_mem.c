// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Memory registration: KGNI_IOC_MEM_REGISTER pins the pages, maps them
 * through the NIC's MRT (huge pages) or GART and gives them an MDD of the
 * domain's ptag; the
 * handle it returns is uGNI's, CRC included, and travels to peers as is.
 * KGNI_IOC_MEM_REGISTER_SEGMENTS does the same for pieces of memory that
 * become one domain.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>

#include "kgni_ioctl.h"
#include "ugni_priv.h"

/*
 * The kernel picks the MRT for huge pages, the GART for the rest;
 * GNI_MEM_USE_GART forces the GART, the others change nothing.
 */
#define MEM_FLAGS	(GNI_MEM_READ_ONLY | GNI_MEM_USE_GART | \
			 GNI_MEM_PHYS_CONT | GNI_MEM_PI_FLUSH | \
			 GNI_MEM_MDD_CLONE | GNI_MEM_MDD_SHARED | \
			 GNI_MEM_MDD_DEDICATED | GNI_MEM_RELAXED_PI_ORDERING | \
			 GNI_MEM_STRICT_PI_ORDERING)

/* What a registration's arguments need; the KGNI_MEM_* flags in @kflags. */
static gni_return_t mem_args(struct gni_nic *nic, struct gni_cq *dst_cq,
			     uint32_t flags, gni_mem_handle_t *mem_hndl,
			     uint32_t *kflags)
{
	if (!nic || !mem_hndl)
		return GNI_RC_INVALID_PARAM;
	/* A CQ takes local events or remote events, not both (§17.4). */
	if (dst_cq && (ugni_cq_nic(dst_cq) != nic || dst_cq->ep_refs))
		return GNI_RC_INVALID_PARAM;
	/*
	 * vMDH blocks (GNI_SetMddResources) are not offered, so neither is
	 * GNI_MEM_USE_VMDH, and vmdh_index, which only it reads, is ignored.
	 */
	if (flags & ~(uint32_t)MEM_FLAGS)
		return GNI_RC_INVALID_PARAM;
	*kflags = (flags & GNI_MEM_READ_ONLY ? KGNI_MEM_READONLY : 0) |
		  (flags & GNI_MEM_USE_GART ? KGNI_MEM_USE_GART : 0);
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
	gni_return_t rc;

	(void)vmdh_index;
	rc = mem_args(nic_hndl, dst_cq_hndl, flags, mem_hndl, &r.flags);
	if (rc != GNI_RC_SUCCESS)
		return rc;
	if (!length || !address)
		return GNI_RC_INVALID_PARAM;
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
	gni_return_t rc;

	(void)vmdh_index;
	/* Physical pages are for kernel clients (LND) only. */
	if (flags & GNI_MEM_PHYS_SEGMENTS)
		return GNI_RC_INVALID_PARAM;
	rc = mem_args(nic_hndl, dst_cq_hndl, flags, mem_hndl, &r.flags);
	if (rc != GNI_RC_SUCCESS)
		return rc;
	r.flags &= KGNI_MEM_READONLY;	/* segments always use the GART */
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
