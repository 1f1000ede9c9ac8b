// SPDX-License-Identifier: GPL-2.0-only
/*
 * kgni: job suspension (KGNI_IOC_JOB_SUSPEND, KGNI_IOC_JOB_RESUME, uGNI's
 * GNI_SuspendJob and GNI_ResumeJob): a suspended job's FMA descriptors
 * are stopped and its RDMA posts and new FMA mappings wait
 * (kgni_dom_wait_resumed()) until the job is resumed or released.
 */
#include <linux/capability.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/sched/signal.h>
#include <linux/wait.h>

#include "gni_pub.h"
#include "kgni_dp.h"

/**
 * kgni_dom_suspended() - is a domain's job suspended?
 * @kdev: the device
 * @dom: the domain
 *
 * Context: dp.lock held, or none for a wait's condition (the answer may
 * then be stale by the time it is used).
 * Return: true while KGNI_IOC_JOB_SUSPEND holds the domain's job.
 */
bool kgni_dom_suspended(struct kgni_dev *kdev, const struct kgni_dom *dom)
{
	const struct kgni_job *job;

	if (!READ_ONCE(dom->attached) || READ_ONCE(dom->revoked) || dom->kernel)
		return false;
	job = &kdev->dp.jobs[dom->job];
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
	if (wait_event_interruptible(kdev->dp.job_wq,
				     !kgni_dom_suspended(kdev, dom) ||
				     READ_ONCE(kdev->gone)))
		return -EINTR;
	return 0;
}

/* How often KGNI_IOC_JOB_SUSPEND looks at the job's traffic */
#define KGNI_SUSPEND_POLL_MS	2

/*
 * The job slot of a suspend or resume call: 0 with *@job set, or an
 * errno of kgni_job_suspend's table.  dp.lock held.
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

/* Checks common to suspend and resume; dp.lock not held. */
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
 * its response, an RDMA post the BTE has not ended?  dp.lock held.
 */
static bool kgni_job_busy(struct kgni_dev *kdev, struct kgni_job *job)
{
	unsigned int i = job - kdev->dp.jobs;
	struct kgni_dom *dom;
	struct kgni_fma *fma;

	kgni_bte_reclaim(kdev);
	list_for_each_entry(dom, &kdev->dp.doms, node) {
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
	list_for_each_entry(fma, &kdev->fma.drain, node)
		if (!fma->stuck && fma->job == (int)i &&
		    fma->job_gen == job->gen &&
		    kgni_fma_requests(kdev, fma->id))
			return true;
	return false;
}

/* Stop job @job's FMA: unmap its descriptors' pages.  dp.lock held. */
static void kgni_job_stop_fma(struct kgni_dev *kdev, struct kgni_job *job)
{
	unsigned int i = job - kdev->dp.jobs;
	struct kgni_dom *dom;
	struct kgni_fma *fma;

	list_for_each_entry(dom, &kdev->dp.doms, node) {
		if (!dom->attached || dom->revoked || dom->kernel ||
		    dom->job != i || dom->job_gen != job->gen)
			continue;
		list_for_each_entry(fma, &dom->fmas, node)
			kgni_fma_zap(dom, fma);
	}
}

/* Withdraw @job's suspension if it is still that job's; dp.lock held. */
static void kgni_job_unsuspend(struct kgni_dev *kdev, struct kgni_job *job,
			       u32 gen)
{
	if (!job->used || job->gen != gen || !job->suspended)
		return;
	WRITE_ONCE(job->suspended, false);
	wake_up_all(&kdev->dp.job_wq);
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

	mutex_lock(&kdev->dp.lock);
	ret = kgni_job_suspend_find(kdev, cmd, &job);
	if (!ret && job->suspended)
		ret = -EALREADY;
	if (ret) {
		mutex_unlock(&kdev->dp.lock);
		return ret;
	}
	gen = job->gen;
	WRITE_ONCE(job->suspended, true);
	kgni_job_stop_fma(kdev, job);
	mutex_unlock(&kdev->dp.lock);

	for (;;) {
		mutex_lock(&kdev->dp.lock);
		if (!job->used || job->gen != gen) {
			/* Released meanwhile: nothing of it is left to run. */
			mutex_unlock(&kdev->dp.lock);
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
		mutex_unlock(&kdev->dp.lock);
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
	mutex_lock(&kdev->dp.lock);
	ret = kgni_job_suspend_find(kdev, cmd, &job);
	if (!ret && !job->suspended)
		ret = -EALREADY;
	if (!ret)
		kgni_job_unsuspend(kdev, job, job->gen);
	mutex_unlock(&kdev->dp.lock);
	return ret;
}
