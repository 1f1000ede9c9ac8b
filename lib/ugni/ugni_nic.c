// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Communication domains, NIC handles, endpoints and the FMA descriptors
 * behind them, on the kgni ioctls (uapi/kgni_ioctl.h).  A CDM attach opens
 * /dev/kgniN and attaches the file to (ptag, cookie, inst_id); everything
 * made through the NIC handle belongs to that file, so the kernel releases
 * it all if the process dies.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kgni_ioctl.h"
#include "ugni_priv.h"

#define NUM_DEVICES_MAX		8

gni_return_t ugni_errno_rc(int err)
{
	switch (err) {
	case 0:
		return GNI_RC_SUCCESS;
	case EPERM:
	case EACCES:
		return GNI_RC_PERMISSION_ERROR;
	case ENOSPC:
	case EBUSY:
	case EDQUOT:	/* past a job's or a file's quota */
		return GNI_RC_ERROR_RESOURCE;
	case ENOMEM:
		return GNI_RC_ERROR_NOMEM;
	case ETIMEDOUT:
		return GNI_RC_TIMEOUT;
	case ENODEV:
	case ENXIO:
		return GNI_RC_NO_MATCH;
	default:
		return GNI_RC_INVALID_PARAM;
	}
}

/*
 * 0 or an errno; the structure's size field is the caller's.  A
 * checkpointed NIC's file is not used: ENODEV.
 */
int ugni_ioctl(struct gni_nic *nic, unsigned long req, void *arg)
{
	if (nic->checkpointed)
		return ENODEV;
	return ioctl(nic->fd, req, arg) ? errno : 0;
}

void *ugni_map(struct gni_nic *nic, uint64_t offset, size_t len, int prot)
{
	void *p;

	if (nic->checkpointed) {
		errno = ENODEV;
		return NULL;
	}
	p = mmap(NULL, len, prot, MAP_SHARED, nic->fd, (off_t)offset);
	return p == MAP_FAILED ? NULL : p;
}

/*
 * Unmap a mapping of the device's file; after a checkpoint it may be
 * gone, its addresses reused by the restarted process: left alone.
 */
void ugni_unmap(struct gni_nic *nic, void *p, size_t len)
{
	if (p && !nic->checkpointed)
		munmap(p, len);
}

int ugni_dev_open(uint32_t device_id)
{
	char path[32];

	/* -1: the nearest NIC; a node has one */
	if (device_id == (uint32_t)-1)
		device_id = 0;
	if (device_id >= NUM_DEVICES_MAX)
		return -ENODEV;
	snprintf(path, sizeof(path), "/dev/kgni%u", device_id);
	return open(path, O_RDWR | O_CLOEXEC);
}

/* --- Communication domains --------------------------------------------- */

UGNI_EXPORT gni_return_t GNI_CdmCreate(uint32_t inst_id, uint8_t ptag,
				       uint32_t cookie, uint32_t modes,
				       gni_cdm_handle_t *cdm_hndl)
{
	struct gni_cdm *cdm;

	if (!cdm_hndl || !ptag || ptag == GNI_PTAG_LB ||
	    (modes & GNI_CDM_MODE_PRIV_MASK))
		return GNI_RC_INVALID_PARAM;
	cdm = calloc(1, sizeof(*cdm));
	if (!cdm)
		return GNI_RC_ERROR_NOMEM;
	cdm->inst_id = inst_id;
	cdm->ptag = ptag;
	cdm->cookie = cookie;
	cdm->modes = modes;
	*cdm_hndl = cdm;
	return GNI_RC_SUCCESS;
}

static void nic_close(struct gni_nic *nic)
{
	/* Closing the file releases every kernel object and mapping's use. */
	while (nic->mregs) {
		struct ugni_mreg *m = nic->mregs;

		nic->mregs = m->next;
		free(m);
	}
	while (nic->cqs)
		ugni_cq_unmake(nic->cqs);
	if (!nic->checkpointed)
		close(nic->fd);
	gnicore_nic_fini(&nic->core);
	free(nic);
}

UGNI_EXPORT gni_return_t GNI_CdmDestroy(gni_cdm_handle_t cdm_hndl)
{
	if (!cdm_hndl)
		return GNI_RC_INVALID_PARAM;
	if (cdm_hndl->nic)
		nic_close(cdm_hndl->nic);
	free(cdm_hndl);
	return GNI_RC_SUCCESS;
}

/*
 * A checkpoint (Cray's checkpoint bit): after a restart the device's file
 * is closed and its mappings gone, so from now on the NIC handle makes no
 * system call on them; GNI_CqDestroy, GNI_EpDestroy and GNI_CdmDestroy
 * then only free the library's memory, and the calls that need the
 * device fail (GNI_RC_NO_MATCH mostly).  A CDM not attached has no NIC
 * handle: nothing to mark.
 */
UGNI_EXPORT gni_return_t GNI_CdmCheckpoint(gni_cdm_handle_t cdm_handle)
{
	if (!cdm_handle)
		return GNI_RC_INVALID_PARAM;
	if (cdm_handle->nic)
		cdm_handle->nic->checkpointed = true;
	return GNI_RC_SUCCESS;
}

/* Undo GNI_CdmCheckpoint: the NIC handle uses its file again. */
UGNI_EXPORT gni_return_t GNI_CdmResume(gni_cdm_handle_t cdm_handle)
{
	if (!cdm_handle)
		return GNI_RC_INVALID_PARAM;
	if (cdm_handle->nic)
		cdm_handle->nic->checkpointed = false;
	return GNI_RC_SUCCESS;
}

static int read_nic_address(uint32_t device_id, uint32_t *address)
{
	char path[64], buf[32];
	unsigned long v;
	char *end;
	FILE *f;

	if (device_id == (uint32_t)-1)
		device_id = 0;
	if (device_id >= NUM_DEVICES_MAX)
		return -1;
	snprintf(path, sizeof(path), "/sys/class/gni/kgni%u/nic_address",
		 device_id);
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	v = strtoul(buf, &end, 0);
	if (end == buf || v > 0x3ffff)
		return -1;
	*address = (uint32_t)v;
	return 0;
}

UGNI_EXPORT gni_return_t GNI_CdmGetNicAddress(uint32_t device_id,
					      uint32_t *address,
					      uint32_t *cpu_id)
{
	if (!address || !cpu_id)
		return GNI_RC_INVALID_PARAM;
	if (read_nic_address(device_id, address))
		return GNI_RC_NO_MATCH;
	*cpu_id = 0;
	return GNI_RC_SUCCESS;
}

UGNI_EXPORT gni_return_t GNI_CdmAttach(gni_cdm_handle_t cdm_hndl,
				       uint32_t device_id,
				       uint32_t *local_addr,
				       gni_nic_handle_t *nic_hndl)
{
	struct kgni_cdm_attach a = { .size = sizeof(a) };
	struct gni_nic *nic;
	gni_return_t rc;
	int err;

	if (!cdm_hndl || !local_addr || !nic_hndl)
		return GNI_RC_INVALID_PARAM;
	if (cdm_hndl->nic)
		return GNI_RC_INVALID_STATE;
	nic = calloc(1, sizeof(*nic));
	if (!nic)
		return GNI_RC_ERROR_NOMEM;
	rc = gnicore_nic_init(&nic->core, UGNI_MAX_REQS, cdm_hndl->modes);
	if (rc != GNI_RC_SUCCESS) {
		free(nic);
		return rc;
	}
	nic->fd = ugni_dev_open(device_id);
	if (nic->fd < 0) {
		rc = GNI_RC_NO_MATCH;
		goto err_free;
	}
	a.ptag = cdm_hndl->ptag;
	a.cookie = cdm_hndl->cookie;
	a.inst_id = cdm_hndl->inst_id;
	err = ugni_ioctl(nic, KGNI_IOC_CDM_ATTACH, &a);
	if (err) {
		rc = err == EINVAL ? GNI_RC_INVALID_PARAM : ugni_errno_rc(err);
		close(nic->fd);
		goto err_free;
	}
	nic->pe = a.nic_pe;
	nic->ptag = cdm_hndl->ptag;
	nic->cookie = cdm_hndl->cookie;
	nic->inst_id = cdm_hndl->inst_id;
	nic->cdm = cdm_hndl;
	cdm_hndl->nic = nic;
	*local_addr = nic->pe;
	*nic_hndl = nic;
	return GNI_RC_SUCCESS;

err_free:
	gnicore_nic_fini(&nic->core);
	free(nic);
	return rc;
}

/* --- FMA descriptors ----------------------------------------------------- */

static void fma_unmap(struct gni_nic *nic, struct ugni_fma *f)
{
	ugni_unmap(nic, (void *)f->core.user, UGNI_PAGE);
	ugni_unmap(nic, (void *)f->core.put, f->window);
	ugni_unmap(nic, (void *)f->core.get, f->window);
}

/*
 * The FMA descriptor whose local events go to @cq, allocated on first
 * use.  Called with nic->core.lock held.  0 or an errno.
 */
int ugni_fma_get(struct gni_nic *nic, struct gni_cq *cq, struct ugni_fma **out)
{
	struct kgni_fma_alloc a = { .size = sizeof(a) };
	struct kgni_fma_free fr = { .size = sizeof(fr) };
	struct ugni_fma *f;
	int err;

	for (f = nic->fmas; f; f = f->next) {
		if (f->core.cq == &cq->core) {
			f->ep_refs++;
			*out = f;
			return 0;
		}
	}
	f = calloc(1, sizeof(*f));
	if (!f)
		return ENOMEM;
	a.cq_id = cq->core.id;
	err = ugni_ioctl(nic, KGNI_IOC_FMA_ALLOC, &a);
	if (err) {
		free(f);
		return err;
	}
	f->id = a.fma_id;
	f->window = a.window_size;
	f->core.user = ugni_map(nic, a.user_offset, UGNI_PAGE,
				PROT_READ | PROT_WRITE);
	f->core.put = ugni_map(nic, a.put_wc_offset, f->window, PROT_WRITE);
	f->core.get = ugni_map(nic, a.get_offset, f->window, PROT_WRITE);
	if (!f->core.user || !f->core.put || !f->core.get) {
		err = errno;
		fma_unmap(nic, f);
		fr.fma_id = f->id;
		ugni_ioctl(nic, KGNI_IOC_FMA_FREE, &fr);
		free(f);
		return err;
	}
	gnicore_fma_init(&f->core, &cq->core);
	f->ep_refs = 1;
	f->next = nic->fmas;
	nic->fmas = f;
	*out = f;
	return 0;
}

/*
 * Drop an endpoint's use; the last one frees the descriptor.
 * nic->core.lock held.
 */
void ugni_fma_put(struct gni_nic *nic, struct ugni_fma *fma)
{
	struct kgni_fma_free fr = { .size = sizeof(fr) };
	struct ugni_fma **pp;

	if (--fma->ep_refs)
		return;
	for (pp = &nic->fmas; *pp; pp = &(*pp)->next) {
		if (*pp == fma) {
			*pp = fma->next;
			break;
		}
	}
	fma_unmap(nic, fma);
	fr.fma_id = fma->id;
	ugni_ioctl(nic, KGNI_IOC_FMA_FREE, &fr);
	gnicore_fma_fini(&fma->core);
	free(fma);
}

/* --- Endpoints ------------------------------------------------------------ */

UGNI_EXPORT gni_return_t GNI_EpCreate(gni_nic_handle_t nic_hndl,
				      gni_cq_handle_t src_cq_hndl,
				      gni_ep_handle_t *ep_hndl)
{
	struct gni_nic *nic = nic_hndl;
	struct gni_cq *cq = src_cq_hndl;
	struct ugni_fma *fma;
	struct gni_ep *ep;
	gni_return_t rc;
	int err;

	if (!nic || !ep_hndl)
		return GNI_RC_INVALID_PARAM;
	/* A remote-event CQ cannot also take local events (§17.5). */
	if (cq && (ugni_cq_nic(cq) != nic || cq->core.mem_refs))
		return GNI_RC_INVALID_PARAM;
	ep = calloc(1, sizeof(*ep));
	if (!ep)
		return GNI_RC_ERROR_NOMEM;
	pthread_mutex_lock(&nic->core.lock);
	if (!cq) {
		/* Error events of silent posts need somewhere to go. */
		if (!nic->null_cq) {
			pthread_mutex_unlock(&nic->core.lock);
			rc = ugni_cq_make(nic, 64, GNI_CQ_NOBLOCK, true, &cq);
			pthread_mutex_lock(&nic->core.lock);
			if (rc != GNI_RC_SUCCESS) {
				pthread_mutex_unlock(&nic->core.lock);
				free(ep);
				return rc;
			}
			if (nic->null_cq) {
				pthread_mutex_unlock(&nic->core.lock);
				ugni_cq_unmake(cq);
				pthread_mutex_lock(&nic->core.lock);
			} else {
				nic->null_cq = cq;
			}
		}
		cq = nic->null_cq;
	} else {
		ep->core.cq = &cq->core;
	}
	err = ugni_fma_get(nic, cq, &fma);
	if (err) {
		pthread_mutex_unlock(&nic->core.lock);
		free(ep);
		return ugni_errno_rc(err);
	}
	ep->core.fma = &fma->core;
	if (ep->core.cq)
		cq->ep_refs++;
	pthread_mutex_unlock(&nic->core.lock);
	ep->core.nic = &nic->core;
	ep->core.remote_event = nic->inst_id;
	*ep_hndl = ep;
	return GNI_RC_SUCCESS;
}

UGNI_EXPORT gni_return_t GNI_EpBind(gni_ep_handle_t ep_hndl,
				    uint32_t remote_addr, uint32_t remote_id)
{
	if (!ep_hndl || remote_addr > GEMINI_FMA_NPES_MASK)
		return GNI_RC_INVALID_PARAM;
	if (ep_hndl->core.outstanding)
		return GNI_RC_INVALID_STATE;
	ep_hndl->core.remote_pe = remote_addr;
	ep_hndl->core.remote_id = remote_id;
	ep_hndl->core.local_event = remote_id;
	ep_hndl->core.bound = true;
	return GNI_RC_SUCCESS;
}

UGNI_EXPORT gni_return_t GNI_EpSetEventData(gni_ep_handle_t ep_hndl,
					    uint32_t local_event,
					    uint32_t remote_event)
{
	if (!ep_hndl)
		return GNI_RC_INVALID_PARAM;
	ep_hndl->core.local_event = local_event;
	ep_hndl->core.remote_event = remote_event;
	return GNI_RC_SUCCESS;
}

UGNI_EXPORT gni_return_t GNI_EpUnbind(gni_ep_handle_t ep_hndl)
{
	if (!ep_hndl)
		return GNI_RC_INVALID_PARAM;
	if (ep_hndl->core.outstanding)
		return GNI_RC_NOT_DONE;
	/* A datagram not collected goes: cancelled, collected. */
	ugni_dgram_release(ep_hndl);
	gnicore_smsg_fini(&ep_hndl->core);
	ep_hndl->core.bound = false;
	return GNI_RC_SUCCESS;
}

UGNI_EXPORT gni_return_t GNI_EpIdle(gni_ep_handle_t ep_hndl)
{
	if (!ep_hndl)
		return GNI_RC_INVALID_PARAM;
	return ep_hndl->core.outstanding ? GNI_RC_NOT_DONE : GNI_RC_SUCCESS;
}

UGNI_EXPORT gni_return_t GNI_EpDestroy(gni_ep_handle_t ep_hndl)
{
	struct gni_nic *nic;

	if (!ep_hndl)
		return GNI_RC_INVALID_PARAM;
	nic = ugni_ep_nic(ep_hndl);
	ugni_dgram_release(ep_hndl);
	gnicore_smsg_fini(&ep_hndl->core);
	pthread_mutex_lock(&nic->core.lock);
	/* Its posts and SMSG sends still in the table lose it. */
	gnicore_req_forget_ep(&nic->core, &ep_hndl->core);
	ugni_fma_put(nic, ugni_fma(ep_hndl->core.fma));
	if (ep_hndl->core.cq)
		ugni_cq(ep_hndl->core.cq)->ep_refs--;
	pthread_mutex_unlock(&nic->core.lock);
	free(ep_hndl);
	return GNI_RC_SUCCESS;
}

/* --- Device and job queries --------------------------------------------- */

UGNI_EXPORT gni_return_t GNI_GetNumLocalDevices(int *num_devices)
{
	uint32_t addr;
	int n = 0;

	if (!num_devices)
		return GNI_RC_INVALID_PARAM;
	while (n < NUM_DEVICES_MAX && !read_nic_address((uint32_t)n, &addr))
		n++;
	*num_devices = n;
	return GNI_RC_SUCCESS;
}

UGNI_EXPORT gni_return_t GNI_GetLocalDeviceIds(int len, int *device_ids)
{
	uint32_t addr;
	int n;

	if (len < 0 || (len && !device_ids))
		return GNI_RC_INVALID_PARAM;
	for (n = 0; n < len && n < NUM_DEVICES_MAX &&
		    !read_nic_address((uint32_t)n, &addr); n++)
		device_ids[n] = n;
	return GNI_RC_SUCCESS;
}

/* Totals of the device's tables (gemini_hw.h) for the Gemini resources. */
static int dev_res_total(gni_dev_res_t res, uint64_t *total)
{
	switch (res) {
	case GNI_DEV_RES_MDD:
		*total = GEMINI_NUM_MDD;
		return 0;
	case GNI_DEV_RES_MRT:
		*total = GEMINI_NUM_MRT;
		return 0;
	case GNI_DEV_RES_CQ:
		*total = GEMINI_NUM_CQ - 1;	/* CQ 0 is never given out */
		return 0;
	case GNI_DEV_RES_FMA:
		*total = GEMINI_NUM_FMA;
		return 0;
	default:
		return -1;
	}
}

UGNI_EXPORT gni_return_t GNI_GetDevResInfo(uint32_t device_id,
					   gni_dev_res_t res_type,
					   gni_dev_res_desc_t *res_desc)
{
	uint32_t addr;
	uint64_t total;

	if (!res_desc)
		return GNI_RC_INVALID_PARAM;
	if (read_nic_address(device_id, &addr))
		return GNI_RC_NO_MATCH;
	if (dev_res_total(res_type, &total))
		return GNI_RC_ERROR_RESOURCE;
	/* The kernel does not publish what other jobs hold. */
	res_desc->available = total;
	res_desc->reserved = 0;
	res_desc->held = 0;
	res_desc->total = total;
	return GNI_RC_SUCCESS;
}

UGNI_EXPORT gni_return_t GNI_GetJobResInfo(uint32_t device_id, uint8_t ptag,
					   gni_job_res_t res_type,
					   gni_job_res_desc_t *res_desc)
{
	static const gni_dev_res_t dev[GNI_JOB_RES_LAST] = {
		[GNI_JOB_RES_MDD] = GNI_DEV_RES_MDD,
		[GNI_JOB_RES_MRT] = GNI_DEV_RES_MRT,
		[GNI_JOB_RES_CQ] = GNI_DEV_RES_CQ,
		[GNI_JOB_RES_FMA] = GNI_DEV_RES_FMA,
	};
	uint32_t addr;
	uint64_t total;

	if (!res_desc || !ptag || res_type <= GNI_JOB_RES_FIRST ||
	    res_type >= GNI_JOB_RES_LAST)
		return GNI_RC_INVALID_PARAM;
	if (read_nic_address(device_id, &addr))
		return GNI_RC_NO_MATCH;
	if (!dev[res_type] || dev_res_total(dev[res_type], &total))
		return GNI_RC_ERROR_RESOURCE;
	/* No job limits are configured: a job may use the whole table. */
	res_desc->used = 0;
	res_desc->limit = total;
	return GNI_RC_SUCCESS;
}

/*
 * The kernel allows a (ptag, cookie) pair per job (KGNI_IOC_JOB_CONFIGURE)
 * and attaches a file only to an allowed pair: ask it by attaching a
 * scratch file to each user ptag in turn.  The file is closed at once.
 */
UGNI_EXPORT gni_return_t GNI_GetPtag(uint32_t device_id, uint32_t cookie,
				     uint8_t *ptag)
{
	struct kgni_cdm_attach a = { .size = sizeof(a) };
	struct gni_nic scratch = { .fd = -1 };
	unsigned int p;
	int err;

	if (!ptag)
		return GNI_RC_INVALID_PARAM;
	for (p = 1; p < GNI_PTAG_LB; p++) {
		if (scratch.fd < 0) {
			scratch.fd = ugni_dev_open(device_id);
			if (scratch.fd < 0)
				return GNI_RC_NO_MATCH;
		}
		a.ptag = p;
		a.cookie = cookie;
		err = ugni_ioctl(&scratch, KGNI_IOC_CDM_ATTACH, &a);
		if (!err) {
			close(scratch.fd);
			*ptag = (uint8_t)p;
			return GNI_RC_SUCCESS;
		}
		if (err != EPERM) {
			close(scratch.fd);
			return ugni_errno_rc(err);
		}
	}
	close(scratch.fd);
	return GNI_RC_NO_MATCH;
}
