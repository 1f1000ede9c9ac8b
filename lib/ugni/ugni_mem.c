// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Memory registration: KGNI_IOC_MEM_REGISTER pins the pages, maps them
 * through the NIC's GART and gives them an MDD of the domain's ptag; the
 * handle it returns is uGNI's, CRC included, and travels to peers as is.
 */
#include <errno.h>
#include <stdlib.h>

#include "kgni_ioctl.h"
#include "ugni_priv.h"

UGNI_EXPORT gni_return_t GNI_MemRegister(gni_nic_handle_t nic_hndl,
					 uint64_t address, uint64_t length,
					 gni_cq_handle_t dst_cq_hndl,
					 uint32_t flags, uint32_t vmdh_index,
					 gni_mem_handle_t *mem_hndl)
{
	struct kgni_mem_register r = { .size = sizeof(r) };
	/* Every registration goes through the GART; these change nothing. */
	const uint32_t known = GNI_MEM_READ_ONLY | GNI_MEM_USE_GART |
			       GNI_MEM_PHYS_CONT | GNI_MEM_PI_FLUSH |
			       GNI_MEM_MDD_CLONE | GNI_MEM_MDD_SHARED |
			       GNI_MEM_MDD_DEDICATED |
			       GNI_MEM_RELAXED_PI_ORDERING |
			       GNI_MEM_STRICT_PI_ORDERING;
	struct gni_nic *nic = nic_hndl;
	struct ugni_mreg *m = NULL;
	int err;

	if (!nic || !mem_hndl || !length || !address)
		return GNI_RC_INVALID_PARAM;
	if (dst_cq_hndl && (dst_cq_hndl->nic != nic || dst_cq_hndl->ep_refs))
		return GNI_RC_INVALID_PARAM;
	/* vMDH blocks (GNI_SetMddResources) are not offered */
	(void)vmdh_index;	/* meaningful with GNI_MEM_USE_VMDH only */
	if (flags & ~known)
		return GNI_RC_INVALID_PARAM;
	r.flags = flags & GNI_MEM_READ_ONLY ? KGNI_MEM_READONLY : 0;
	r.addr = address;
	r.len = length;
	r.cq_id = dst_cq_hndl ? dst_cq_hndl->id : 0;
	if (dst_cq_hndl) {
		m = calloc(1, sizeof(*m));
		if (!m)
			return GNI_RC_ERROR_NOMEM;
	}
	err = ugni_ioctl(nic, KGNI_IOC_MEM_REGISTER, &r);
	if (err) {
		free(m);
		return err == EFAULT ? GNI_RC_PERMISSION_ERROR :
		       ugni_errno_rc(err);
	}
	pthread_mutex_lock(&nic->lock);
	nic->mem_count++;
	if (m) {
		m->hndl.qword1 = r.mem_hndl[0];
		m->hndl.qword2 = r.mem_hndl[1];
		m->cq = dst_cq_hndl;
		m->next = nic->mregs;
		nic->mregs = m;
		dst_cq_hndl->mem_refs++;
	}
	pthread_mutex_unlock(&nic->lock);
	mem_hndl->qword1 = r.mem_hndl[0];
	mem_hndl->qword2 = r.mem_hndl[1];
	return GNI_RC_SUCCESS;
}

UGNI_EXPORT gni_return_t GNI_MemDeregister(gni_nic_handle_t nic_hndl,
					   gni_mem_handle_t *mem_hndl)
{
	struct kgni_mem_deregister d = { .size = sizeof(d) };
	struct gni_nic *nic = nic_hndl;
	struct ugni_mreg **pp, *m;
	int err;

	if (!nic || !mem_hndl ||
	    GNI_MEMHNDL_GET_CRC(*mem_hndl) != ugni_memhndl_crc(mem_hndl))
		return GNI_RC_INVALID_PARAM;
	d.mem_hndl[0] = mem_hndl->qword1;
	d.mem_hndl[1] = mem_hndl->qword2;
	err = ugni_ioctl(nic, KGNI_IOC_MEM_DEREGISTER, &d);
	if (err)
		return GNI_RC_INVALID_PARAM;
	pthread_mutex_lock(&nic->lock);
	nic->mem_count--;
	for (pp = &nic->mregs; *pp; pp = &(*pp)->next) {
		m = *pp;
		if (m->hndl.qword1 == mem_hndl->qword1 &&
		    m->hndl.qword2 == mem_hndl->qword2) {
			*pp = m->next;
			m->cq->mem_refs--;
			free(m);
			break;
		}
	}
	pthread_mutex_unlock(&nic->lock);
	return GNI_RC_SUCCESS;
}
