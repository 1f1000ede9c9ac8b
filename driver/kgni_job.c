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
 * Undo every object of @dom (dp_lock held): descriptors and
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
 * Context: process context; takes dp_lock.
 */
void kgni_dom_add(struct kgni_dev *kdev, struct kgni_dom *dom,
		  struct file *file)
{
	INIT_LIST_HEAD(&dom->mems);
	INIT_LIST_HEAD(&dom->cqs);
	INIT_LIST_HEAD(&dom->fmas);
	dom->file = file;
	dom->kernel = !file;
	mutex_lock(&kdev->dp_lock);
	list_add_tail(&dom->node, &kdev->doms);
	kgni_bte_dom_init(kdev, dom);
	mutex_unlock(&kdev->dp_lock);
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
 * Context: process context, may sleep; takes ctl_rwsem and dp_lock.
 */
void kgni_dom_release(struct kgni_dev *kdev, struct kgni_dom *dom)
{
	bool live;

	down_read(&kdev->ctl_rwsem);
	live = !READ_ONCE(kdev->gone);
	mutex_lock(&kdev->dp_lock);
	kgni_dom_teardown(kdev, dom, live);
	if (dom->kernel && dom->attached) {
		kdev->jobs[dom->job].used = false;
		kdev->jobs[dom->job].kernel = false;
		dom->attached = false;
	}
	list_del(&dom->node);
	mutex_unlock(&kdev->dp_lock);
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
		if (kdev->jobs[i].used && kdev->jobs[i].cgrp)
			cgroup_put(kdev->jobs[i].cgrp);
}

/**
 * kgni_dom_usable() - what the data path allows a domain
 * @dom: the domain
 *
 * Context: dp_lock held.
 * Return: 0, -EPERM without a CDM, -ENOLINK once its job was released.
 */
int kgni_dom_usable(const struct kgni_dom *dom)
{
	if (dom->revoked)
		return -ENOLINK;
	return dom->attached ? 0 : -EPERM;
}

/**
 * kgni_dom_suspended() - is a domain's job suspended?
 * @kdev: the device
 * @dom: the domain
 *
 * Context: dp_lock held, or none for a wait's condition (the answer may
 * then be stale by the time it is used).
 * Return: true while KGNI_IOC_JOB_SUSPEND holds the domain's job.
 */
bool kgni_dom_suspended(struct kgni_dev *kdev, const struct kgni_dom *dom)
{
	const struct kgni_job *job;

	if (!READ_ONCE(dom->attached) || READ_ONCE(dom->revoked) || dom->kernel)
		return false;
	job = &kdev->jobs[dom->job];
	return READ_ONCE(job->suspended) && READ_ONCE(job->gen) == dom->job_gen;
}

/**
 * kgni_dom_wait_resumed() - wait while a domain's job is suspended
 * @kdev: the device
 * @dom: the domain
 *
 * Context: process context, no lock held but ctl_rwsem for reading
 * (remove wakes the wait).
 * Return: 0, or -EINTR on a signal.
 */
int kgni_dom_wait_resumed(struct kgni_dev *kdev, const struct kgni_dom *dom)
{
	if (wait_event_interruptible(kdev->job_wq,
				     !kgni_dom_suspended(kdev, dom) ||
				     READ_ONCE(kdev->gone)))
		return -EINTR;
	return 0;
}

/* Jobs and CDMs */

/* Revoke every attachment to job @i (dp_lock held; the slot is freed). */
static void kgni_job_revoke(struct kgni_dev *kdev, int i)
{
	struct kgni_job *job = &kdev->jobs[i];
	struct kgni_dom *dom;
	bool live = !READ_ONCE(kdev->gone);

	list_for_each_entry(dom, &kdev->doms, node) {
		if (!dom->attached || dom->revoked || dom->job != i ||
		    dom->job_gen != job->gen)
			continue;
		kgni_dom_teardown(kdev, dom, live);
		dom->revoked = true;
	}
	cgroup_put(job->cgrp);
	job->cgrp = NULL;
	job->used = false;
	if (job->suspended) {
		/* Its waiting ranks go on, to find their domains revoked. */
		WRITE_ONCE(job->suspended, false);
		wake_up_all(&kdev->job_wq);
	}
}

/* Is @ptag one that jobs may have (uGNI's user ptags)? */
static bool kgni_ptag_is_user(u32 ptag)
{
	return ptag >= GNI_PTAG_USER_START && ptag <= GNI_PTAG_USER_END;
}

/**
 * struct kgni_job_scan - what the job table holds for a (ptag, cookie)
 * @pair: the slot holding the pair, or NULL
 * @free: the first free slot, or NULL
 * @kernel_ptag: a kernel slot has the ptag
 * @user_ptag: a job's slot has the ptag
 */
struct kgni_job_scan {
	struct kgni_job *pair;
	struct kgni_job *free;
	bool kernel_ptag;
	bool user_ptag;
};

/* Look the job table over for (@ptag, @cookie); dp_lock held. */
static void kgni_job_scan(struct kgni_dev *kdev, u32 ptag, u32 cookie,
			  struct kgni_job_scan *scan)
{
	struct kgni_job *job;

	memset(scan, 0, sizeof(*scan));
	for (job = kdev->jobs; job < kdev->jobs + KGNI_MAX_JOBS; job++) {
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
 * dp_lock held.
 */
static void kgni_job_take(struct kgni_dev *kdev, struct kgni_job *job,
			  u8 ptag, u32 cookie, kuid_t uid, struct cgroup *cgrp)
{
	job->kernel = !cgrp;
	job->ptag = ptag;
	job->cookie = cookie;
	job->uid = uid;
	job->cgrp = cgrp;
	job->ncq = 0;
	job->suspended = false;
	/* Never 0 */
	job->gen = ++kdev->job_gen ? kdev->job_gen : ++kdev->job_gen;
	job->used = true;
}

/* Attach @dom to the pair of slot @job, as instance @inst_id (dp_lock held) */
static void kgni_dom_attach(struct kgni_dev *kdev, struct kgni_dom *dom,
			    struct kgni_job *job, u32 inst_id)
{
	dom->attached = true;
	dom->job = job - kdev->jobs;
	dom->job_gen = job->gen;
	dom->ptag = job->ptag;
	dom->cookie = job->cookie;
	dom->inst_id = inst_id;
}

/**
 * kgni_ioctl_job_configure() - KGNI_IOC_JOB_CONFIGURE
 * @ucmd: the call; @ucmd->cmd is a struct kgni_job_configure
 *
 * Allows a (ptag, cookie) pair to a user and a cgroup, or releases it and
 * revokes every attachment to it.
 *
 * Return: 0, -EPERM without CAP_SYS_ADMIN or to release a kernel client's
 * pair, -EINVAL (a ptag outside GNI_PTAG_USER_START to GNI_PTAG_USER_END
 * among others), -EBADF for a bad cgroup fd, -EBUSY for a pair already
 * allowed or a ptag another job or a kernel client holds, -ENOSPC with
 * every job slot in use.
 */
int kgni_ioctl_job_configure(struct kgni_ucmd *ucmd)
{
	struct kgni_job_configure *cmd = ucmd->cmd;
	struct kgni_dev *kdev = ucmd->kdev;
	struct kgni_job_scan scan;
	struct cgroup *cgrp = NULL;
	kuid_t uid = INVALID_UID;
	int ret = 0;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (cmd->flags & ~KGNI_JOB_RELEASE || cmd->reserved || cmd->reserved2)
		return -EINVAL;
	if (!kgni_ptag_is_user(cmd->ptag))
		return -EINVAL;
	if (!(cmd->flags & KGNI_JOB_RELEASE)) {
		uid = make_kuid(current_user_ns(), cmd->uid);
		if (!uid_valid(uid))
			return -EINVAL;
		cgrp = cgroup_get_from_fd(cmd->cgroup_fd);
		if (IS_ERR(cgrp))
			return -EBADF;
	}

	mutex_lock(&kdev->dp_lock);
	kgni_job_scan(kdev, cmd->ptag, cmd->cookie, &scan);
	if (cmd->flags & KGNI_JOB_RELEASE) {
		if (!scan.pair)
			ret = -EINVAL;
		else if (scan.pair->kernel)
			ret = -EPERM;
		else
			kgni_job_revoke(kdev, scan.pair - kdev->jobs);
	} else if (scan.pair || scan.kernel_ptag || scan.user_ptag) {
		/*
		 * Its ranks are bound already, or another job or the kernel has
		 * the ptag: the NIC checks only the ptag of a packet, so two
		 * jobs with one ptag could reach each other's memory.
		 */
		ret = -EBUSY;
	} else if (scan.free) {
		kgni_job_take(kdev, scan.free, cmd->ptag, cmd->cookie, uid, cgrp);
		cgrp = NULL;
	} else {
		ret = -ENOSPC;
	}
	mutex_unlock(&kdev->dp_lock);
	if (cgrp)
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
 * Takes a slot of its own in @kdev->jobs, marked kernel: no file may
 * attach to it, no job set-up release it or take its ptag.
 * kgni_dom_release() gives the slot back.
 *
 * Context: process context; takes dp_lock.
 * Return: 0, -EBUSY if a job has @ptag, -ENOSPC with every slot in use.
 */
int kgni_job_attach_kernel(struct kgni_dev *kdev, struct kgni_dom *dom,
			   u8 ptag, u32 cookie, u32 inst_id)
{
	struct kgni_job_scan scan;
	int ret = 0;

	mutex_lock(&kdev->dp_lock);
	kgni_job_scan(kdev, ptag, cookie, &scan);
	if (scan.user_ptag) {
		ret = -EBUSY;
	} else if (!scan.free) {
		ret = -ENOSPC;
	} else {
		kgni_job_take(kdev, scan.free, ptag, cookie, INVALID_UID, NULL);
		kgni_dom_attach(kdev, dom, scan.free, inst_id);
	}
	mutex_unlock(&kdev->dp_lock);
	return ret;
}

/* Is the calling process one of @job's ranks: its user, in its cgroup? */
static bool kgni_job_member(const struct kgni_job *job)
{
	bool in;

	if (!uid_eq(current_euid(), job->uid) ||
	    !uid_eq(current_uid(), job->uid))
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

	mutex_lock(&kdev->dp_lock);
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
	mutex_unlock(&kdev->dp_lock);
	if (ret)
		return ret;
	cmd->nic_pe = kgni_rd(kdev, VGEMINI_CTL_NODE_PE);
	return kgni_ucmd_respond(ucmd, sizeof(*cmd));
}

/* Job suspension */

/* How often KGNI_IOC_JOB_SUSPEND looks at the job's traffic */
#define KGNI_SUSPEND_POLL_MS	2

/*
 * The job slot of a suspend or resume call: 0 with *@job set, or an
 * errno of kgni_job_suspend's table.  dp_lock held.
 */
static int kgni_job_suspend_find(struct kgni_dev *kdev,
				 const struct kgni_job_suspend *cmd,
				 struct kgni_job **job)
{
	struct kgni_job_scan scan;

	kgni_job_scan(kdev, cmd->ptag, cmd->cookie, &scan);
	if (!scan.pair)
		return -ENOENT;
	if (scan.pair->kernel)
		return -EOPNOTSUPP;
	*job = scan.pair;
	return 0;
}

/* Checks common to suspend and resume; dp_lock not held. */
static int kgni_job_suspend_check(const struct kgni_job_suspend *cmd)
{
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (cmd->flags || cmd->reserved)
		return -EINVAL;
	if (!kgni_ptag_is_user(cmd->ptag))
		return -EINVAL;
	return 0;
}

/*
 * Does job @job still have traffic of its own: an FMA request without
 * its response, an RDMA post the BTE has not ended?  dp_lock held.
 */
static bool kgni_job_busy(struct kgni_dev *kdev, struct kgni_job *job)
{
	unsigned int i = job - kdev->jobs;
	struct kgni_dom *dom;
	struct kgni_fma *fma;

	kgni_bte_reclaim(kdev);
	list_for_each_entry(dom, &kdev->doms, node) {
		if (!dom->attached || dom->revoked || dom->kernel ||
		    dom->job != i || dom->job_gen != job->gen)
			continue;
		if (dom->bte_posts)
			return true;
		list_for_each_entry(fma, &dom->fmas, node)
			if (kgni_fma_requests(kdev, fma->id))
				return true;
	}
	/* Descriptors its ranks freed, still draining */
	list_for_each_entry(fma, &kdev->fma_drain, node)
		if (!fma->stuck && fma->job == (int)i &&
		    fma->job_gen == job->gen &&
		    kgni_fma_requests(kdev, fma->id))
			return true;
	return false;
}

/* Stop job @job's FMA: unmap its descriptors' pages.  dp_lock held. */
static void kgni_job_stop_fma(struct kgni_dev *kdev, struct kgni_job *job)
{
	unsigned int i = job - kdev->jobs;
	struct kgni_dom *dom;
	struct kgni_fma *fma;

	list_for_each_entry(dom, &kdev->doms, node) {
		if (!dom->attached || dom->revoked || dom->kernel ||
		    dom->job != i || dom->job_gen != job->gen)
			continue;
		list_for_each_entry(fma, &dom->fmas, node)
			kgni_fma_zap(dom, fma);
	}
}

/* Withdraw @job's suspension if it is still that job's; dp_lock held. */
static void kgni_job_unsuspend(struct kgni_dev *kdev, struct kgni_job *job,
			       u32 gen)
{
	if (!job->used || job->gen != gen || !job->suspended)
		return;
	WRITE_ONCE(job->suspended, false);
	wake_up_all(&kdev->job_wq);
}

/**
 * kgni_ioctl_job_suspend() - KGNI_IOC_JOB_SUSPEND
 * @ucmd: the call; @ucmd->cmd is a struct kgni_job_suspend
 *
 * Marks the job suspended, unmaps its FMA descriptors (their next access
 * waits in kgni_mmap.c's fault handler), makes its RDMA posts wait, then
 * waits for its traffic to drain.
 *
 * Return: 0 with the job suspended; -EPERM, -EINVAL, -ENOENT,
 * -EOPNOTSUPP, -EALREADY; -ETIMEDOUT or -EINTR with the suspension
 * withdrawn; -ENODEV if the device went meanwhile.
 */
int kgni_ioctl_job_suspend(struct kgni_ucmd *ucmd)
{
	struct kgni_job_suspend *cmd = ucmd->cmd;
	struct kgni_dev *kdev = ucmd->kdev;
	unsigned long deadline;
	struct kgni_job *job;
	bool busy;
	u32 gen;
	int ret;

	ret = kgni_job_suspend_check(cmd);
	if (ret)
		return ret;
	deadline = jiffies + msecs_to_jiffies(cmd->timeout_ms);

	mutex_lock(&kdev->dp_lock);
	ret = kgni_job_suspend_find(kdev, cmd, &job);
	if (!ret && job->suspended)
		ret = -EALREADY;
	if (ret) {
		mutex_unlock(&kdev->dp_lock);
		return ret;
	}
	gen = job->gen;
	WRITE_ONCE(job->suspended, true);
	kgni_job_stop_fma(kdev, job);
	mutex_unlock(&kdev->dp_lock);

	for (;;) {
		mutex_lock(&kdev->dp_lock);
		if (!job->used || job->gen != gen) {
			/* Released meanwhile: nothing of it is left to run. */
			mutex_unlock(&kdev->dp_lock);
			return 0;
		}
		busy = !READ_ONCE(kdev->gone) && kgni_job_busy(kdev, job);
		if (READ_ONCE(kdev->gone))
			ret = -ENODEV;
		else if (busy && time_after_eq(jiffies, deadline))
			ret = -ETIMEDOUT;
		else if (busy && signal_pending(current))
			ret = -EINTR;
		if (ret)
			kgni_job_unsuspend(kdev, job, gen);
		mutex_unlock(&kdev->dp_lock);
		if (ret || !busy)
			return ret;
		msleep_interruptible(KGNI_SUSPEND_POLL_MS);
	}
}

/**
 * kgni_ioctl_job_resume() - KGNI_IOC_JOB_RESUME
 * @ucmd: the call; @ucmd->cmd is a struct kgni_job_suspend
 *
 * Return: 0 with the job's ranks let go on; -EPERM, -EINVAL (a
 * timeout_ms not 0 among others), -ENOENT, -EOPNOTSUPP, or -EALREADY
 * for a job not suspended.
 */
int kgni_ioctl_job_resume(struct kgni_ucmd *ucmd)
{
	struct kgni_job_suspend *cmd = ucmd->cmd;
	struct kgni_dev *kdev = ucmd->kdev;
	struct kgni_job *job;
	int ret;

	ret = kgni_job_suspend_check(cmd);
	if (ret)
		return ret;
	if (cmd->timeout_ms)
		return -EINVAL;
	mutex_lock(&kdev->dp_lock);
	ret = kgni_job_suspend_find(kdev, cmd, &job);
	if (!ret && !job->suspended)
		ret = -EALREADY;
	if (!ret)
		kgni_job_unsuspend(kdev, job, job->gen);
	mutex_unlock(&kdev->dp_lock);
	return ret;
}
