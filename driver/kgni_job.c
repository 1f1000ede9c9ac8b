// SPDX-License-Identifier: GPL-2.0-only
/*
 * kgni: jobs and CDMs (KGNI_IOC_JOB_CONFIGURE, KGNI_IOC_CDM_ATTACH).
 *
 * Every object belongs to the domain that made it (an open file's) and
 * is undone when the file is released or its job is (a released job's
 * domains are revoked):
 * the device entry is reset first (so that a later owner starts clean and
 * the device stops using the memory), then the memory is unpinned or
 * freed.
 *
 * Who may attach: a job set-up names the user and the cgroup of the job's
 * ranks; knowing (ptag, cookie) is not enough (Documentation/jobs.rst).
 */
#include <linux/capability.h>
#include <linux/cgroup.h>
#include <linux/cred.h>
#include <linux/proc_fs.h>

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
	list_for_each_entry_safe(mem, mem_next, &dom->mems, node)
		kgni_mem_free(kdev, mem, live);
	kgni_bte_drain(kdev, dom, live);
	kgni_dg_dom_release(kdev, dom);
	list_for_each_entry_safe(cq, cq_next, &dom->cqs, node)
		kgni_cq_free(kdev, dom, cq, live);
}

/**
 * kgni_file_release() - undo every object of a file
 * @kfile: the file being released
 * @file: its struct file
 *
 * No mapping of the file is left (each holds the file).  After remove the
 * device is not touched; the memory is still unpinned and freed.
 */
void kgni_file_release(struct kgni_file *kfile, struct file *file)
{
	struct kgni_dev *kdev = kfile->kdev;
	bool live;

	down_read(&kdev->ctl_rwsem);
	live = !READ_ONCE(kdev->gone);
	mutex_lock(&kdev->dp_lock);
	kgni_dom_teardown(kdev, &kfile->dom, live);
	list_del(&kfile->dom.node);
	mutex_unlock(&kdev->dp_lock);
	up_read(&kdev->ctl_rwsem);
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
		if (kdev->jobs[i].used)
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
}

/**
 * kgni_ioctl_job_configure() - KGNI_IOC_JOB_CONFIGURE
 * @ucmd: the call; @ucmd->cmd is a struct kgni_job_configure
 *
 * Allows a (ptag, cookie) pair to a user and a cgroup, or releases it and
 * revokes every attachment to it.
 *
 * Return: 0, -EPERM without CAP_SYS_ADMIN, -EINVAL, -EBADF for a bad
 * cgroup fd, -EBUSY for a pair already allowed, -ENOSPC with every job
 * slot in use.
 */
int kgni_ioctl_job_configure(struct kgni_ucmd *ucmd)
{
	struct kgni_job_configure *cmd = ucmd->cmd;
	struct kgni_dev *kdev = ucmd->kdev;
	struct kgni_job *job, *free = NULL;
	struct cgroup *cgrp = NULL;
	kuid_t uid = INVALID_UID;
	int i, ret = 0;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (cmd->flags & ~KGNI_JOB_RELEASE || cmd->reserved || cmd->reserved2)
		return -EINVAL;
	if (cmd->ptag == 0 || cmd->ptag >= GEMINI_NUM_PTAG)
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
	for (i = 0; i < KGNI_MAX_JOBS; i++) {
		job = &kdev->jobs[i];
		if (!job->used) {
			if (!free)
				free = job;
			continue;
		}
		if (job->ptag == cmd->ptag && job->cookie == cmd->cookie)
			break;
	}
	if (cmd->flags & KGNI_JOB_RELEASE) {
		if (i < KGNI_MAX_JOBS)
			kgni_job_revoke(kdev, i);
		else
			ret = -EINVAL;
	} else if (i < KGNI_MAX_JOBS) {
		/* Its ranks are bound already: no second binding. */
		ret = -EBUSY;
	} else if (free) {
		free->ptag = cmd->ptag;
		free->cookie = cmd->cookie;
		free->uid = uid;
		free->cgrp = cgrp;
		free->ncq = 0;
		free->gen = ++kdev->job_gen ? kdev->job_gen : ++kdev->job_gen;
		free->used = true;
		cgrp = NULL;
	} else {
		ret = -ENOSPC;
	}
	mutex_unlock(&kdev->dp_lock);
	if (cgrp)
		cgroup_put(cgrp);
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
 * job with that pair, -EBUSY for a file attached already, -ENOLINK for
 * one whose job was released, or -EFAULT.
 */
int kgni_ioctl_cdm_attach(struct kgni_ucmd *ucmd)
{
	struct kgni_cdm_attach *cmd = ucmd->cmd;
	struct kgni_dom *dom = &ucmd->kfile->dom;
	struct kgni_dev *kdev = ucmd->kdev;
	int i, ret = -EPERM;

	if (cmd->flags)
		return -EINVAL;
	if (cmd->ptag == 0 || cmd->ptag >= GEMINI_NUM_PTAG)
		return -EINVAL;

	mutex_lock(&kdev->dp_lock);
	if (dom->attached) {
		ret = dom->revoked ? -ENOLINK : -EBUSY;
		goto out;
	}
	for (i = 0; i < KGNI_MAX_JOBS; i++) {
		if (kdev->jobs[i].used && kdev->jobs[i].ptag == cmd->ptag &&
		    kdev->jobs[i].cookie == cmd->cookie)
			break;
	}
	/* Not told apart from a pair no job has: no probing for pairs. */
	if (i == KGNI_MAX_JOBS || !kgni_job_member(&kdev->jobs[i]))
		goto out;
	dom->attached = true;
	dom->job = i;
	dom->job_gen = kdev->jobs[i].gen;
	dom->ptag = cmd->ptag;
	dom->cookie = cmd->cookie;
	dom->inst_id = cmd->inst_id;
	ret = 0;
out:
	mutex_unlock(&kdev->dp_lock);
	if (ret)
		return ret;
	cmd->nic_pe = kgni_rd(kdev, VGEMINI_CTL_NODE_PE);
	return kgni_ucmd_respond(ucmd, sizeof(*cmd));
}
