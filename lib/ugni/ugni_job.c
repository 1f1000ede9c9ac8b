// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The calls on the NIC as a whole.  The launcher's (privileged): jobs,
 * the NTT, job suspension; ALPS made them on a Cray, on vgemini the
 * launcher configures jobs itself (kgni-job in the guests), and these are
 * for programs that play the launcher, as root in the guest.  And
 * balanced injection, which applications set themselves.  Each is one
 * ioctl of a scratch file of /dev/kgniN (uapi/kgni_ioctl.h): no CDM is
 * needed.
 *
 * A job id is a cgroup v2 id (the inode number of the cgroup's
 * directory): Linux has no job containers, and kgni lets a process attach
 * to a job only from inside the job's cgroup (Documentation/jobs.rst).
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "kgni_ioctl.h"
#include "ugni_priv.h"

/* One ioctl on a scratch file of the device: 0 or an errno. */
static int dev_ioctl(uint32_t device_id, unsigned long req, void *arg)
{
	int fd, err;

	fd = ugni_dev_open(device_id);
	if (fd < 0)
		return fd == -ENODEV || errno == ENOENT ? ENODEV : errno;
	err = ioctl(fd, req, arg) ? errno : 0;
	close(fd);
	return err;
}

/* --- Job configuration --------------------------------------------------- */

/* An errno's uGNI code, as one call's table gives it */
struct rc_map {
	int err;
	gni_return_t rc;
};

/* @map's code for @err (0: SUCCESS), else @dflt */
static gni_return_t map_rc(int err, const struct rc_map *map, size_t n,
			   gni_return_t dflt)
{
	size_t i;

	if (!err)
		return GNI_RC_SUCCESS;
	for (i = 0; i < n; i++)
		if (map[i].err == err)
			return map[i].rc;
	return dflt;
}

/*
 * gni_pub.h's return codes of GNI_ConfigureNTT and GNI_ConfigureJob;
 * anything else (a bad ptag, limit, cgroup id or table) INVALID_PARAM.
 */
static const struct rc_map configure_map[] = {
	{ EPERM, GNI_RC_PERMISSION_ERROR },
	{ EACCES, GNI_RC_PERMISSION_ERROR },
	{ ENODEV, GNI_RC_NO_MATCH },		/* no such device */
	{ ENXIO, GNI_RC_NO_MATCH },		/* no such NTT block */
	{ EBUSY, GNI_RC_INVALID_STATE },	/* another job's or cookie's */
	{ EOPNOTSUPP, GNI_RC_ILLEGAL_OP },	/* a job's NTT block changed */
	{ ENOSPC, GNI_RC_ERROR_RESOURCE },
	{ ENOMEM, GNI_RC_ERROR_NOMEM },
};

static gni_return_t configure_rc(int err)
{
	return map_rc(err, configure_map, sizeof(configure_map) /
		      sizeof(configure_map[0]), GNI_RC_INVALID_PARAM);
}

/*
 * A block of NTT entries filled from @ntt_desc->u.table (physical PEs),
 * its first entry in *@ntt_base.  A NULL table clears: the block
 * (*@ntt_base, group_size), or, with both -1, every block no job uses.
 */
UGNI_EXPORT gni_return_t GNI_ConfigureNTT(int device_id,
					  gni_ntt_descriptor_t *ntt_desc,
					  uint32_t *ntt_base)
{
	struct kgni_ntt_config c = { .size = sizeof(c) };
	gni_return_t rc;

	if (!ntt_desc || !ntt_base)
		return GNI_RC_INVALID_PARAM;
	if (!ntt_desc->u.table) {
		if (*ntt_base == (uint32_t)-1 &&
		    ntt_desc->group_size == (uint32_t)-1) {
			c.flags = KGNI_NTT_CLEAR_UNUSED;
		} else {
			c.flags = KGNI_NTT_CLEAR;
			c.base = *ntt_base;
			c.group_size = ntt_desc->group_size;
			if (!c.group_size)
				return GNI_RC_INVALID_PARAM;
		}
		return configure_rc(dev_ioctl((uint32_t)device_id,
					      KGNI_IOC_NTT_CONFIG, &c));
	}
	c.group_size = ntt_desc->group_size;
	c.gran = ntt_desc->granularity;
	c.table = (uintptr_t)ntt_desc->u.table;
	rc = configure_rc(dev_ioctl((uint32_t)device_id, KGNI_IOC_NTT_CONFIG,
				    &c));
	if (rc == GNI_RC_SUCCESS)
		*ntt_base = c.base;
	return rc;
}

/*
 * Allow (@ptag, @cookie) on the NIC to the processes of cgroup @job_id,
 * whatever their user, with @limits (NULL: the driver's).  The same
 * triplet again changes only the limits.
 */
UGNI_EXPORT gni_return_t GNI_ConfigureJob(uint32_t device_id, uint64_t job_id,
					  uint8_t ptag, uint32_t cookie,
					  gni_job_limits_t *limits)
{
	struct kgni_job_configure j = {
		.size = sizeof(j),
		.flags = KGNI_JOB_BY_ID,
		.ptag = ptag,
		.cookie = cookie,
		.uid = KGNI_JOB_ANY_UID,
		.job_id = job_id,
	};

	if (limits) {
		j.flags |= KGNI_JOB_LIMITS;
		j.mdd_limit = limits->mdd_limit;
		j.mrt_limit = limits->a.mrt_limit;
		j.gart_limit = limits->b.gart_limit;
		j.fma_limit = limits->fma_limit;
		j.bte_limit = limits->bte_limit;
		j.cq_limit = limits->cq_limit;
		j.ntt_ctrl = limits->ntt_ctrl == GNI_JOB_INVALID_LIMIT ? 0 :
			     (uint32_t)limits->ntt_ctrl;
		j.ntt_base = limits->ntt_base;
		j.ntt_size = limits->ntt_size;
	}
	return configure_rc(dev_ioctl(device_id, KGNI_IOC_JOB_CONFIGURE, &j));
}

/*
 * GNI_ConfigureNTT, then GNI_ConfigureJob with the new block as the job's
 * (@ntt_desc NULL: GNI_ConfigureJob alone).  Two calls where Cray's
 * driver made one: a job that cannot be configured gives the block back.
 */
UGNI_EXPORT gni_return_t GNI_ConfigureNTTandJob(int device_id, uint64_t job_id,
						uint8_t ptag, uint32_t cookie,
						gni_job_limits_t *limits,
						gni_ntt_descriptor_t *ntt_desc,
						uint32_t *ntt_base)
{
	gni_job_limits_t l;
	gni_ntt_descriptor_t clear;
	gni_return_t rc;
	uint32_t base;

	if (!ntt_desc)
		return GNI_ConfigureJob((uint32_t)device_id, job_id, ptag,
					cookie, limits);
	/* It cannot clear the table (Cray's note). */
	if (!ntt_desc->u.table || !ntt_base)
		return GNI_RC_INVALID_PARAM;
	if (limits) {
		l = *limits;
	} else {
		memset(&l, 0xff, sizeof(l));	/* GNI_JOB_INVALID_LIMIT */
		l.ntt_ctrl = 0;
	}
	rc = GNI_ConfigureNTT(device_id, ntt_desc, &base);
	if (rc != GNI_RC_SUCCESS)
		return rc;
	l.ntt_base = (int32_t)base;
	l.ntt_size = (int32_t)ntt_desc->group_size;
	rc = GNI_ConfigureJob((uint32_t)device_id, job_id, ptag, cookie, &l);
	if (rc != GNI_RC_SUCCESS) {
		clear = *ntt_desc;
		clear.u.table = NULL;
		(void)GNI_ConfigureNTT(device_id, &clear, &base);
		return rc;
	}
	*ntt_base = base;
	return GNI_RC_SUCCESS;
}

/* --- Job suspension (privileged) --------------------------------------- */

/*
 * gni_pub.h's return codes of GNI_SuspendJob and GNI_ResumeJob; anything
 * else (no such device or job, a bad ptag) INVALID_PARAM.
 */
static const struct rc_map suspend_map[] = {
	{ EPERM, GNI_RC_PERMISSION_ERROR },
	{ EACCES, GNI_RC_PERMISSION_ERROR },
	{ ETIMEDOUT, GNI_RC_TIMEOUT },
	{ EINTR, GNI_RC_NOT_DONE },		/* withdrawn: try again */
	{ EALREADY, GNI_RC_INVALID_STATE },
	{ EOPNOTSUPP, GNI_RC_ERROR_RESOURCE },	/* a kernel client's ptag */
};

static gni_return_t job_suspend_rc(int err)
{
	return map_rc(err, suspend_map, sizeof(suspend_map) /
		      sizeof(suspend_map[0]), GNI_RC_INVALID_PARAM);
}

static gni_return_t job_suspend(uint32_t device_id, unsigned long req,
				uint64_t job_id, uint8_t ptag,
				uint32_t cookie, uint32_t timeout)
{
	struct kgni_job_suspend s = {
		.size = sizeof(s),
		.job_id = job_id,
		.ptag = ptag,
		.cookie = cookie,
		.timeout_ms = timeout,
	};

	return job_suspend_rc(dev_ioctl(device_id, req, &s));
}

/*
 * Stop the job's FMA and BTE traffic on this node's NIC and wait, up to
 * @timeout ms, until what it had in flight has ended (kgni's
 * KGNI_IOC_JOB_SUSPEND).  On TIMEOUT or NOT_DONE the job is not
 * suspended.
 */
UGNI_EXPORT gni_return_t GNI_SuspendJob(uint32_t device_id, uint64_t job_id,
					uint8_t ptag, uint32_t cookie,
					uint32_t timeout)
{
	return job_suspend(device_id, KGNI_IOC_JOB_SUSPEND, job_id, ptag,
			   cookie, timeout);
}

UGNI_EXPORT gni_return_t GNI_ResumeJob(uint32_t device_id, uint64_t job_id,
				       uint8_t ptag, uint32_t cookie)
{
	return job_suspend(device_id, KGNI_IOC_JOB_RESUME, job_id, ptag,
			   cookie, 0);
}


/*
 * The granularity of the NIC's NTT as the device holds it
 * (KGNI_IOC_NTT_QUERY on a scratch file of the device; no CDM needed).
 * Cray documents INVALID_PARAM as the only error: a device that does not
 * exist or answer is one.
 */
UGNI_EXPORT gni_return_t GNI_GetNttGran(uint32_t device_id, uint32_t *ntt_gran)
{
	struct kgni_ntt_query q = { .size = sizeof(q) };

	if (!ntt_gran)
		return GNI_RC_INVALID_PARAM;
	if (dev_ioctl(device_id, KGNI_IOC_NTT_QUERY, &q))
		return GNI_RC_INVALID_PARAM;
	*ntt_gran = q.gran;
	return GNI_RC_SUCCESS;
}

/* --- Balanced injection --------------------------------------------------- */

static_assert(GNI_BI_FLAG_APPLY_NOW == KGNI_BI_APPLY_NOW &&
	      GNI_BI_FLAG_APPLY_AFTER_THROTTLE == KGNI_BI_APPLY_AFTER_THROTTLE &&
	      GNI_BI_FLAG_USE_DEFAULT_SETTINGS == KGNI_BI_USE_DEFAULT_SETTINGS &&
	      GNI_BI_FLAG_VALUE_IS_NUM_ORB_ENTRIES ==
	      KGNI_BI_VALUE_IS_NUM_ORB_ENTRIES &&
	      GNI_BI_INJECT_BW_MAX == KGNI_BI_BW_MAX &&
	      GNI_BI_INJECT_BW_ORB_MAX == KGNI_BI_ORB_MAX,
	      "kgni takes uGNI's balanced injection values");

static gni_return_t bi_config(uint32_t device_id, struct kgni_bi_config *c)
{
	c->size = sizeof(*c);
	return dev_ioctl(device_id, KGNI_IOC_BI_CONFIG, c) ?
	       GNI_RC_INVALID_PARAM : GNI_RC_SUCCESS;
}

/*
 * The NIC's injection bandwidth: a percentage, or with
 * GNI_BI_FLAG_VALUE_IS_NUM_ORB_ENTRIES a number of ORB entries.  Any
 * process may set it (applications lower it at start); kgni applies it
 * at once and restores the default when the node's last job ends.
 */
UGNI_EXPORT gni_return_t GNI_SetBIConfig(uint32_t device_id, uint16_t bw,
					 uint16_t aot_bw, uint16_t modes)
{
	struct kgni_bi_config c = {
		.flags = KGNI_BI_SET,
		.modes = modes,
		.bw = bw,
		.aot_bw = aot_bw,
	};

	return bi_config(device_id, &c);
}

UGNI_EXPORT gni_return_t GNI_GetBIConfig(uint32_t device_id,
					 gni_bi_desc_t *desc)
{
	struct kgni_bi_config c = { 0 };
	gni_return_t rc;

	if (!desc)
		return GNI_RC_INVALID_PARAM;
	rc = bi_config(device_id, &c);
	if (rc != GNI_RC_SUCCESS)
		return rc;
	desc->current_bw = c.current_bw;
	desc->current_aot_bw = c.current_aot_bw;
	desc->current_norbs = c.current_norbs;
	desc->flags = c.current_modes;
	desc->sys_def_bw = c.sys_def_bw;
	desc->sys_def_aot_bw = c.sys_def_aot_bw;
	desc->cle_seqnum = (uint16_t)c.cle_seqnum;
	desc->hss_seqnum = (uint16_t)c.hss_seqnum;
	return GNI_RC_SUCCESS;
}

/*
 * Wait up to @timeout ms until the last setting is applied.  kgni applies
 * each at once, so this returns at once; TIMEOUT if it ever did not.
 */
UGNI_EXPORT gni_return_t GNI_BISyncWait(uint32_t device_id, uint32_t timeout)
{
	struct timespec ms = { .tv_nsec = 1000000 };
	struct kgni_bi_config c;
	gni_return_t rc;
	uint32_t waited = 0;

	for (;;) {
		memset(&c, 0, sizeof(c));
		rc = bi_config(device_id, &c);
		if (rc != GNI_RC_SUCCESS || c.hss_seqnum == c.cle_seqnum)
			return rc;
		if (waited++ >= timeout)
			return GNI_RC_TIMEOUT;
		nanosleep(&ms, NULL);
	}
}
