// SPDX-License-Identifier: GPL-2.0-only
/*
 * kgni: jobs and CDMs (KGNI_IOC_JOB_CONFIGURE, KGNI_IOC_CDM_ATTACH), and
 * the kernel API's job slots.
 *
 * Every object belongs to the domain that made it (an open file's, or a
 * kernel client's NIC's) and is undone when the file is released, the
 * kernel client destroys its CDM, or its job is released (a released
 * job's domains are revoked):
 * the device entry is reset first (so that a later owner starts clean and
 * the device stops using the memory), then the memory is unpinned or
 * freed.
 *
 * Who may attach: a job set-up names the user and the cgroup of the job's
 * ranks; knowing (ptag, cookie) is not enough (Documentation/jobs.rst).
 *
 * Ptags are partitioned (Documentation/kernel-api.rst): jobs get uGNI's
 * user ptags, GNI_PTAG_USER_START to GNI_PTAG_USER_END; a kernel client's
 * CDM takes a kernel slot in the same table for any ptag no job has
 * (gni_cdm_attach()), which no file may attach to and no job set-up may
 * release, and whose ptag no job set-up may take.
 */
#include <linux/capability.h>
#include <linux/cgroup.h>
#include <linux/cred.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/proc_fs.h>
#include <linux/sched/signal.h>
#include <linux/wait.h>

#include "gni_pub.h"
#include "kgni_dp.h"

/*
 * Undo every object of @dom (dp.lock held): descriptors and
 * registrations before the CQs they name; RDMA posts, which the invalid
 * registrations make fail at once, waited for before the CQs too.
 */
static void kgni_dom_teardown(struct kgni_dev *kdev, struct kgni_dom *dom,
			      bool live)
{
	struct kgni_mem *mem, *mem_next;
	struct kgni_cq *cq, *cq_next;

	kgni_fmas_free_all(kdev, dom, live);
	kgni_mem_reap(kdev);
	list_for_each_entry_safe(mem, mem_next, &dom->mems, node)
		kgni_mem_free(kdev, mem, live);
	kgni_bte_drain(kdev, dom, live);
	kgni_dg_dom_release(kdev, dom);
	list_for_each_entry_safe(cq, cq_next, &dom->cqs, node)
		kgni_cq_free(kdev, dom, cq, live);
}

/**
 * kgni_dom_add() - set up a domain and list it in the device's
 * @kdev: the device
 * @dom: the domain, zeroed
 * @file: the open file whose domain it is, or NULL for a kernel domain
 *
 * Context: process context; takes dp.lock.
 */
void kgni_dom_add(struct kgni_dev *kdev, struct kgni_dom *dom,
		  struct file *file)
{
	INIT_LIST_HEAD(&dom->mems);
	INIT_LIST_HEAD(&dom->cqs);
	INIT_LIST_HEAD(&dom->fmas);
	dom->file = file;
	dom->kernel = !file;
	mutex_lock(&kdev->dp.lock);
	list_add_tail(&dom->node, &kdev->dp.doms);
	kgni_bte_dom_init(kdev, dom);
	mutex_unlock(&kdev->dp.lock);
}

/**
 * kgni_dom_release() - undo every object of a domain and unlist it
 * @kdev: the device
 * @dom: the domain: a released file's, or a kernel domain whose CDM is
 *       being destroyed (whose kernel job slot is freed)
 *
 * No mapping of a file's domain is left (each holds the file).  After
 * remove the device is not touched; the memory is still unpinned and
 * freed.
 *
 * Context: process context, may sleep; takes ctl_rwsem and dp.lock.
 */
void kgni_dom_release(struct kgni_dev *kdev, struct kgni_dom *dom)
{
	bool live;

	down_read(&kdev->ctl_rwsem);
	live = !READ_ONCE(kdev->gone);
	mutex_lock(&kdev->dp.lock);
	kgni_dom_teardown(kdev, dom, live);
	if (dom->kernel && dom->attached) {
		kdev->dp.jobs[dom->job].used = false;
		kdev->dp.jobs[dom->job].kernel = false;
		dom->attached = false;
	}
	list_del(&dom->node);
	mutex_unlock(&kdev->dp.lock);
	up_read(&kdev->ctl_rwsem);
}

/**
 * kgni_file_release() - undo every object of a file
 * @kfile: the file being released
 * @file: its struct file
 */
void kgni_file_release(struct kgni_file *kfile, struct file *file)
{
	kgni_dom_release(kfile->kdev, &kfile->dom);
}

/*
 * /proc/job: on a Cray node the job module's file, whose presence tells
 * software (Open MPI's Cray support, for one) that it runs in a job
 * container.  Here the containers are the cgroups that "vgemini run" makes
 * (Documentation/jobs.rst); the file reads empty and takes no ioctl.
 */
static ssize_t kgni_proc_job_read(struct file *file, char __user *buf,
				  size_t len, loff_t *pos)
{
	return 0;
}

static const struct proc_ops kgni_proc_job_ops = {
	.proc_read = kgni_proc_job_read,
	.proc_lseek = noop_llseek,
};

static struct proc_dir_entry *kgni_proc_job;

/**
 * kgni_proc_job_init() - make /proc/job
 *
 * Return: 0, or -ENOMEM; -EEXIST if a job module made it already.
 */
int kgni_proc_job_init(void)
{
	kgni_proc_job = proc_create("job", 0444, NULL, &kgni_proc_job_ops);
	return kgni_proc_job ? 0 : -EEXIST;
}

/**
 * kgni_proc_job_exit() - remove /proc/job if kgni made it
 */
void kgni_proc_job_exit(void)
{
	proc_remove(kgni_proc_job);
	kgni_proc_job = NULL;
}

/**
 * kgni_dp_free_jobs() - drop the jobs' cgroups (the device's last put)
 * @kdev: the device
 */
void kgni_dp_free_jobs(struct kgni_dev *kdev)
{
	int i;

	for (i = 0; i < KGNI_MAX_JOBS; i++)
		if (kdev->dp.jobs[i].used && kdev->dp.jobs[i].cgrp)
			cgroup_put(kdev->dp.jobs[i].cgrp);
}

/**
 * kgni_dom_usable() - what the data path allows a domain
 * @dom: the domain
 *
 * Context: dp.lock held.
 * Return: 0, -EPERM without a CDM, -ENOLINK once its job was released.
 */
int kgni_dom_usable(const struct kgni_dom *dom)
{
	if (dom->revoked)
		return -ENOLINK;
	return dom->attached ? 0 : -EPERM;
}

/* Jobs and CDMs */

/* Revoke every attachment to job @i (dp.lock held; the slot is freed). */
static void kgni_job_revoke(struct kgni_dev *kdev, int i)
{
	struct kgni_job *job = &kdev->dp.jobs[i];
	bool live = !READ_ONCE(kdev->gone);
	struct kgni_dom *dom;
	unsigned int j;

	list_for_each_entry(dom, &kdev->dp.doms, node) {
		if (!dom->attached || dom->revoked || dom->job != i ||
		    dom->job_gen != job->gen)
			continue;
		kgni_dom_teardown(kdev, dom, live);
		dom->revoked = true;
	}
	cgroup_put(job->cgrp);
	job->cgrp = NULL;
	if (job->ntt_size)
		kgni_ntt_unuse(kdev, job->ntt_base, job->ntt_size,
			       job->ntt_cleanup);
	job->ntt_size = 0;
	job->used = false;
	if (job->suspended) {
		/* Its waiting ranks go on, to find their domains revoked. */
		WRITE_ONCE(job->suspended, false);
		wake_up_all(&kdev->dp.job_wq);
	}
	/* What the jobs set of the NIC's balanced injection ends with them. */
	for (j = 0; j < KGNI_MAX_JOBS; j++)
		if (kdev->dp.jobs[j].used && !kdev->dp.jobs[j].kernel)
			return;
	kgni_bi_reset(kdev);
}

/* Is @ptag one that jobs may have (uGNI's user ptags)? */
bool kgni_ptag_is_user(u32 ptag)
{
	return ptag >= GNI_PTAG_USER_START && ptag <= GNI_PTAG_USER_END;
}

/* Look the job table over for (@ptag, @cookie); dp.lock held. */
void kgni_job_scan(struct kgni_dev *kdev, u32 ptag, u32 cookie,
		   struct kgni_job_scan *scan)
{
	struct kgni_job *job;

	memset(scan, 0, sizeof(*scan));
	for (job = kdev->dp.jobs; job < kdev->dp.jobs + KGNI_MAX_JOBS; job++) {
		if (!job->used) {
			if (!scan->free)
				scan->free = job;
			continue;
		}
		if (job->ptag != ptag)
			continue;
		if (job->kernel)
			scan->kernel_ptag = true;
		else
			scan->user_ptag = true;
		if (job->cookie == cookie && !scan->pair)
			scan->pair = job;
	}
}

/*
 * Give free slot @job to (@ptag, @cookie): a job's, for @uid in @cgrp
 * (the slot takes the reference), or a kernel slot if @cgrp is NULL.
 * dp.lock held.
 */
static void kgni_job_take(struct kgni_dev *kdev, struct kgni_job *job,
			  u8 ptag, u32 cookie, kuid_t uid, struct cgroup *cgrp)
{
	unsigned int i;

	job->kernel = !cgrp;
	job->ptag = ptag;
	job->cookie = cookie;
	job->uid = uid;
	job->cgrp = cgrp;
	job->ncq = 0;
	job->suspended = false;
	job->any_uid = false;
	job->job_id = cgrp ? cgroup_id(cgrp) : 0;
	for (i = 0; i < KGNI_JOB_NLIMITS; i++)
		job->limit[i] = KGNI_JOB_NO_LIMIT;
	job->ntt_size = 0;
	job->ntt_cleanup = false;
	/* Never 0 */
	job->gen = ++kdev->dp.job_gen ? kdev->dp.job_gen : ++kdev->dp.job_gen;
	job->used = true;
}

/* Attach @dom to the pair of slot @job, as instance @inst_id (dp.lock held) */
static void kgni_dom_attach(struct kgni_dev *kdev, struct kgni_dom *dom,
			    struct kgni_job *job, u32 inst_id)
{
	dom->attached = true;
	dom->job = job - kdev->dp.jobs;
	dom->job_gen = job->gen;
	dom->ptag = job->ptag;
	dom->cookie = job->cookie;
	dom->inst_id = inst_id;
}

/**
 * kgni_job_limit() - a quota of a domain's job
 * @kdev: the device
 * @dom: a domain of a job (not a kernel one)
 * @which: the quota
 *
 * Context: dp.lock held.
 * Return: what KGNI_JOB_LIMITS gave the job, else the module's.
 */
unsigned int kgni_job_limit(struct kgni_dev *kdev, const struct kgni_dom *dom,
			    enum kgni_job_limit which)
{
	static const unsigned int *const dflt[KGNI_JOB_NLIMITS] = {
		[KGNI_LIMIT_MDD] = &kgni_job_mdds,
		[KGNI_LIMIT_GART] = &kgni_job_gart,
		[KGNI_LIMIT_FMA] = &kgni_job_fmas,
	};
	int v = kdev->dp.jobs[dom->job].limit[which];

	if (v >= 0)
		return v;
	return which == KGNI_LIMIT_CQ ? KGNI_MAX_CQS_PER_JOB : *dflt[which];
}

/* Has a domain attached to @job? (dp.lock held) */
static bool kgni_job_attached(struct kgni_dev *kdev,
			      const struct kgni_job *job)
{
	const struct kgni_dom *dom;

	list_for_each_entry(dom, &kdev->dp.doms, node)
		if (dom->attached && !dom->revoked &&
		    &kdev->dp.jobs[dom->job] == job && dom->job_gen == job->gen)
			return true;
	return false;
}

/*
 * The limits and NTT block of @cmd (KGNI_JOB_LIMITS), checked before
 * anything changes.  A limit of -1 is "the module's"; the NTT block, once
 * a job has one, cannot change (EOPNOTSUPP), and must exist (ENXIO).
 */
static int kgni_job_check_limits(struct kgni_dev *kdev,
				 const struct kgni_job_configure *cmd,
				 const struct kgni_job *job)
{
	const s32 lim[] = { cmd->mdd_limit, cmd->mrt_limit, cmd->gart_limit,
			    cmd->fma_limit, cmd->bte_limit, cmd->cq_limit };
	bool ntt = cmd->ntt_size > 0;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(lim); i++)
		if (lim[i] < KGNI_JOB_NO_LIMIT)
			return -EINVAL;
	if (cmd->ntt_ctrl & ~KGNI_JOB_NTT_CLEANUP ||
	    cmd->ntt_size < KGNI_JOB_NO_LIMIT ||
	    (ntt && cmd->ntt_base < 0))
		return -EINVAL;
	if (job && job->ntt_size &&
	    (!ntt || job->ntt_base != cmd->ntt_base ||
	     job->ntt_size != cmd->ntt_size))
		return -EOPNOTSUPP;
	/* Descriptors allocated before would not translate. */
	if (ntt && job && !job->ntt_size && kgni_job_attached(kdev, job))
		return -EOPNOTSUPP;
	if (ntt && !(job && job->ntt_size) &&
	    kgni_ntt_use(kdev, cmd->ntt_base, cmd->ntt_size))
		return -ENXIO;
	return 0;
}

/* Give @job the limits of @cmd (kgni_job_check_limits() passed). */
static void kgni_job_set_limits(struct kgni_job *job,
				const struct kgni_job_configure *cmd)
{
	const s32 lim[KGNI_JOB_NLIMITS] = {
		[KGNI_LIMIT_MDD] = cmd->mdd_limit,
		[KGNI_LIMIT_GART] = cmd->gart_limit,
		[KGNI_LIMIT_FMA] = cmd->fma_limit,
		[KGNI_LIMIT_CQ] = cmd->cq_limit,
	};
	unsigned int i;

	for (i = 0; i < KGNI_JOB_NLIMITS; i++)
		job->limit[i] = lim[i];
	if (cmd->ntt_size > 0) {
		job->ntt_base = cmd->ntt_base;
		job->ntt_size = cmd->ntt_size;
	}
	job->ntt_cleanup = cmd->ntt_ctrl & KGNI_JOB_NTT_CLEANUP;
}

/* The cgroup @cmd names (referenced), or an ERR_PTR. */
static struct cgroup *kgni_job_cgroup(const struct kgni_job_configure *cmd)
{
	struct cgroup *cgrp;

	if (!(cmd->flags & KGNI_JOB_BY_ID)) {
		cgrp = cgroup_get_from_fd(cmd->cgroup_fd);
		return IS_ERR(cgrp) ? ERR_PTR(-EBADF) : cgrp;
	}
	/* Ids are those of the default (v2) hierarchy. */
	cgrp = cgroup_get_from_id(cmd->job_id);
	return IS_ERR_OR_NULL(cgrp) ? ERR_PTR(-ENOENT) : cgrp;
}

/**
 * kgni_ioctl_job_configure() - KGNI_IOC_JOB_CONFIGURE
 * @ucmd: the call; @ucmd->cmd is a struct kgni_job_configure
 *
 * Allows a (ptag, cookie) pair to a user and a cgroup, or releases it and
 * revokes every attachment to it.  With KGNI_JOB_BY_ID, a pair already
 * allowed to the same cgroup takes the new limits.
 *
 * Return: 0, -EPERM without CAP_SYS_ADMIN or to release a kernel client's
 * pair, -EINVAL (a ptag outside GNI_PTAG_USER_START to GNI_PTAG_USER_END
 * among others), -EBADF for a bad cgroup fd, -ENOENT for a bad job id,
 * -EBUSY for a pair already allowed or a ptag another job or a kernel
 * client holds, -ENOSPC with every job slot in use, -ENXIO for no such
 * NTT block, -EOPNOTSUPP to change a job's NTT block.
 */
int kgni_ioctl_job_configure(struct kgni_ucmd *ucmd)
{
	const u32 known = KGNI_JOB_RELEASE | KGNI_JOB_BY_ID | KGNI_JOB_LIMITS;
	struct kgni_job_configure *cmd = ucmd->cmd;
	bool by_id = cmd->flags & KGNI_JOB_BY_ID;
	struct kgni_dev *kdev = ucmd->kdev;
	struct kgni_job_scan scan;
	struct cgroup *cgrp = NULL;
	kuid_t uid = INVALID_UID;
	bool any_uid = false;
	struct kgni_job *job;
	int ret = 0;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (cmd->flags & ~known || cmd->reserved || cmd->reserved2 ||
	    cmd->reserved3 || (!by_id && cmd->job_id))
		return -EINVAL;
	if ((cmd->flags & KGNI_JOB_RELEASE) &&
	    (cmd->flags & (KGNI_JOB_BY_ID | KGNI_JOB_LIMITS)))
		return -EINVAL;
	if (!kgni_ptag_is_user(cmd->ptag))
		return -EINVAL;
	if (!(cmd->flags & KGNI_JOB_RELEASE)) {
		any_uid = by_id && cmd->uid == KGNI_JOB_ANY_UID;
		if (!any_uid) {
			uid = make_kuid(current_user_ns(), cmd->uid);
			if (!uid_valid(uid))
				return -EINVAL;
		}
		cgrp = kgni_job_cgroup(cmd);
		if (IS_ERR(cgrp))
			return PTR_ERR(cgrp);
	}

	mutex_lock(&kdev->dp.lock);
	kgni_job_scan(kdev, cmd->ptag, cmd->cookie, &scan);
	if (cmd->flags & KGNI_JOB_RELEASE) {
		if (!scan.pair)
			ret = -EINVAL;
		else if (scan.pair->kernel)
			ret = -EPERM;
		else
			kgni_job_revoke(kdev, scan.pair - kdev->dp.jobs);
		goto out;
	}
	job = scan.pair;
	if (job && by_id && !job->kernel && job->cgrp == cgrp &&
	    job->any_uid == any_uid && (any_uid || uid_eq(job->uid, uid))) {
		/* The same job again: only its limits change. */
		if (cmd->flags & KGNI_JOB_LIMITS) {
			ret = kgni_job_check_limits(kdev, cmd, job);
			if (!ret)
				kgni_job_set_limits(job, cmd);
		}
	} else if (scan.pair || scan.kernel_ptag || scan.user_ptag) {
		/*
		 * Its ranks are bound already, or another job or the kernel has
		 * the ptag: the NIC checks only the ptag of a packet, so two
		 * jobs with one ptag could reach each other's memory.
		 */
		ret = -EBUSY;
	} else if (!scan.free) {
		ret = -ENOSPC;
	} else {
		if (cmd->flags & KGNI_JOB_LIMITS)
			ret = kgni_job_check_limits(kdev, cmd, NULL);
		if (!ret) {
			kgni_job_take(kdev, scan.free, cmd->ptag, cmd->cookie,
				      uid, cgrp);
			scan.free->any_uid = any_uid;
			if (cmd->flags & KGNI_JOB_LIMITS)
				kgni_job_set_limits(scan.free, cmd);
			cgrp = NULL;
		}
	}
out:
	mutex_unlock(&kdev->dp.lock);
	if (cgrp && !IS_ERR(cgrp))
		cgroup_put(cgrp);
	return ret;
}

/**
 * kgni_job_attach_kernel() - attach a kernel domain to a kernel job slot
 * @kdev: the device
 * @dom: a kernel domain, zeroed (kgni_dom_add() lists it afterwards)
 * @ptag: its CDM's ptag, 1 to 254
 * @cookie: its CDM's cookie
 * @inst_id: its CDM's instance id
 *
 * Takes a slot of its own in @kdev->dp.jobs, marked kernel: no file may
 * attach to it, no job set-up release it or take its ptag.
 * kgni_dom_release() gives the slot back.
 *
 * Context: process context; takes dp.lock.
 * Return: 0, -EBUSY if a job has @ptag, -ENOSPC with every slot in use.
 */
int kgni_job_attach_kernel(struct kgni_dev *kdev, struct kgni_dom *dom,
			   u8 ptag, u32 cookie, u32 inst_id)
{
	struct kgni_job_scan scan;
	int ret = 0;

	mutex_lock(&kdev->dp.lock);
	kgni_job_scan(kdev, ptag, cookie, &scan);
	if (scan.user_ptag) {
		ret = -EBUSY;
	} else if (!scan.free) {
		ret = -ENOSPC;
	} else {
		kgni_job_take(kdev, scan.free, ptag, cookie, INVALID_UID, NULL);
		kgni_dom_attach(kdev, dom, scan.free, inst_id);
	}
	mutex_unlock(&kdev->dp.lock);
	return ret;
}

/* Is the calling process one of @job's ranks: its user, in its cgroup? */
static bool kgni_job_member(const struct kgni_job *job)
{
	bool in;

	if (!job->any_uid && (!uid_eq(current_euid(), job->uid) ||
			      !uid_eq(current_uid(), job->uid)))
		return false;
	rcu_read_lock();
	in = cgroup_is_descendant(task_dfl_cgroup(current), job->cgrp);
	rcu_read_unlock();
	return in;
}

/**
 * kgni_ioctl_cdm_attach() - KGNI_IOC_CDM_ATTACH
 * @ucmd: the call; @ucmd->cmd is a struct kgni_cdm_attach
 *
 * Return: 0, -EINVAL, -EPERM unless the caller is one of the ranks of a
 * job with that pair (a kernel client's pair is none), -EBUSY for a file
 * attached already, -ENOLINK for one whose job was released, or -EFAULT.
 */
int kgni_ioctl_cdm_attach(struct kgni_ucmd *ucmd)
{
	struct kgni_cdm_attach *cmd = ucmd->cmd;
	struct kgni_dom *dom = &ucmd->kfile->dom;
	struct kgni_dev *kdev = ucmd->kdev;
	struct kgni_job_scan scan;
	int ret = -EPERM;

	if (cmd->flags)
		return -EINVAL;
	if (cmd->ptag == 0 || cmd->ptag >= GEMINI_NUM_PTAG)
		return -EINVAL;

	mutex_lock(&kdev->dp.lock);
	if (dom->attached) {
		ret = dom->revoked ? -ENOLINK : -EBUSY;
		goto out;
	}
	kgni_job_scan(kdev, cmd->ptag, cmd->cookie, &scan);
	/* Not told apart from a pair no job has: no probing for pairs. */
	if (!scan.pair || scan.pair->kernel || !kgni_job_member(scan.pair))
		goto out;
	kgni_dom_attach(kdev, dom, scan.pair, cmd->inst_id);
	ret = 0;
out:
	mutex_unlock(&kdev->dp.lock);
	if (ret)
		return ret;
	cmd->nic_pe = kgni_rd(kdev, VGEMINI_CTL_NODE_PE);
	return kgni_ucmd_respond(ucmd, sizeof(*cmd));
}
