// SPDX-License-Identifier: GPL-2.0-only
/*
 * kgni: the error subscriptions of user space (the KGNI_IOC_ERR_*
 * ioctls; Documentation/abi.rst, "Error subscriptions"), a file's end of
 * them, and the debugfs file kgniN/inject_error that posts events for
 * tests.  The subscriber, the posting of events, the work that calls
 * the callbacks and the kernel API's calls are in kgni_err.c;
 * kgni_err.h holds what the two files share.
 *
 * A subscription of user space (KGNI_IOC_ERR_SUBSCRIBE, uGNI's
 * GNI_SubscribeErrors()) is the same structure with no NIC and no
 * callbacks: it belongs to an open file, which names it by an id, and is
 * freed with the file at the latest.  Its filter is the ptag of the
 * file's CDM unless CAP_SYS_ADMIN chose another, and once that CDM's job
 * is released it takes events of no ptag: a job learns of no other
 * job's errors.
 */
#include <linux/capability.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kref.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "kgni_err.h"

/* Files' subscriptions: KGNI_IOC_ERR_* */

static_assert(sizeof(struct kgni_err_event) == sizeof(gni_error_event_t));
static_assert(offsetof(struct kgni_err_event, serial_number) ==
	      offsetof(gni_error_event_t, serial_number));
static_assert(offsetof(struct kgni_err_event, info_mmrs) ==
	      offsetof(gni_error_event_t, info_mmrs));

/*
 * Ids: each subscription of a file gets the next value of the device's
 * counter (&kgni_err_state.last_id), so an id names one subscription of the
 * device, and no id is given twice while the device lives: the id of
 * another file's subscription, or of a released one, names none of this
 * file's.
 */

/* The entry of &kgni_file.errs that holds @id; kapi.lock held. */
static int kgni_uerr_slot(struct kgni_file *kfile, u32 id)
{
	unsigned int slot;

	if (!id)
		return -1;
	for (slot = 0; slot < KGNI_ERR_FILE_SUBS; slot++)
		if (kfile->errs[slot] && kfile->errs[slot]->id == id)
			return slot;
	return -1;
}

/* Subscription @id of @kfile, with a reference; NULL if it has none. */
static struct gni_err *kgni_uerr_get(struct kgni_file *kfile, u32 id)
{
	struct kgni_dev *kdev = kfile->kdev;
	struct gni_err *err = NULL;
	unsigned long flags;
	int slot;

	spin_lock_irqsave(&kdev->kapi.lock, flags);
	slot = kgni_uerr_slot(kfile, id);
	if (slot >= 0) {
		err = kfile->errs[slot];
		kref_get(&err->ref);
	}
	spin_unlock_irqrestore(&kdev->kapi.lock, flags);
	return err;
}

/* Take @err, dead already, out of its file and device; kapi.lock held. */
static void kgni_uerr_unlink(struct gni_err *err)
{
	int slot = kgni_uerr_slot(err->kfile, err->id);

	if (!WARN_ON_ONCE(slot < 0))
		err->kfile->errs[slot] = NULL;
	list_del(&err->node);
	err->kdev->err.nuser--;
}

/* Mark @err dead unless a thread waits on it; kapi.lock held. */
static int kgni_uerr_kill(struct gni_err *err)
{
	int ret = 0;

	spin_lock(&err->lock);
	if (err->dead)
		ret = -EINVAL;
	else if (err->waiters)
		ret = -EBUSY;
	else
		err->dead = true;
	spin_unlock(&err->lock);
	return ret;
}

/**
 * kgni_ioctl_err_subscribe() - KGNI_IOC_ERR_SUBSCRIBE
 * @ucmd: the call
 *
 * Return: 0, -EINVAL, -EPERM, -ENOLINK, -ENOSPC, -ENOMEM, -EFAULT.
 */
int kgni_ioctl_err_subscribe(struct kgni_ucmd *ucmd)
{
	struct kgni_err_subscribe *cmd = ucmd->cmd;
	struct kgni_file *kfile = ucmd->kfile;
	struct kgni_dev *kdev = ucmd->kdev;
	bool all = cmd->flags & KGNI_ERR_ALL_PTAGS;
	struct gni_err *err;
	unsigned long flags;
	unsigned int slot;
	u8 ptag = 0;
	int ret = 0;

	if ((cmd->flags & ~KGNI_ERR_ALL_PTAGS) || cmd->reserved || cmd->id ||
	    cmd->mask > KGNI_ERR_MASK_ALL || !cmd->eeq_size ||
	    cmd->eeq_size > KGNI_ERR_USER_MAX_EEQ)
		return -EINVAL;
	if (all) {
		if (!capable(CAP_SYS_ADMIN))
			return -EPERM;
	} else {
		mutex_lock(&kdev->dp.lock);
		if (!kfile->dom.attached)
			ret = -EPERM;
		else if (kfile->dom.revoked)
			ret = -ENOLINK;
		ptag = kfile->dom.ptag;
		mutex_unlock(&kdev->dp.lock);
		if (ret)
			return ret;
	}
	err = kzalloc(sizeof(*err), GFP_KERNEL_ACCOUNT);
	if (err)
		err->ring = kvcalloc(cmd->eeq_size, sizeof(*err->ring),
				     GFP_KERNEL_ACCOUNT);
	if (!err || !err->ring) {
		kfree(err);
		return -ENOMEM;
	}
	err->tag = KGNI_TAG_ERR;
	err->kdev = kdev;
	err->kfile = kfile;
	err->own = !all;
	spin_lock_init(&err->lock);
	err->mask = cmd->mask;
	err->ptag = ptag;
	err->size = cmd->eeq_size;
	init_waitqueue_head(&err->wq);
	INIT_WORK(&err->work, kgni_err_work);
	kref_init(&err->ref);

	spin_lock_irqsave(&kdev->kapi.lock, flags);
	for (slot = 0; slot < KGNI_ERR_FILE_SUBS; slot++)
		if (!kfile->errs[slot])
			break;
	/* U32_MAX ids given: no new one (none is given twice) */
	if (slot == KGNI_ERR_FILE_SUBS ||
	    kdev->err.nuser >= KGNI_ERR_USER_SUBS ||
	    kdev->err.last_id == U32_MAX) {
		ret = -ENOSPC;
	} else {
		err->id = ++kdev->err.last_id;
		kfile->errs[slot] = err;
		list_add_tail(&err->node, &kdev->err.list);
		kdev->err.nuser++;
	}
	spin_unlock_irqrestore(&kdev->kapi.lock, flags);
	if (ret) {
		kgni_err_free(&err->ref);
		return ret;
	}
	cmd->id = err->id;
	ret = kgni_ucmd_respond(ucmd, sizeof(*cmd));
	if (ret) {
		/* Nobody should know its id: undo it, waiters or not. */
		spin_lock_irqsave(&kdev->kapi.lock, flags);
		spin_lock(&err->lock);
		err->dead = true;
		spin_unlock(&err->lock);
		kgni_uerr_unlink(err);
		spin_unlock_irqrestore(&kdev->kapi.lock, flags);
		kgni_err_finish(err);
	}
	return ret;
}

/**
 * kgni_ioctl_err_release() - KGNI_IOC_ERR_RELEASE
 * @ucmd: the call
 *
 * Return: 0, -EINVAL, -EBUSY (a thread waits on it).
 */
int kgni_ioctl_err_release(struct kgni_ucmd *ucmd)
{
	struct kgni_err_release *cmd = ucmd->cmd;
	struct kgni_dev *kdev = ucmd->kdev;
	struct gni_err *err;
	unsigned long flags;
	int ret;

	if (cmd->flags || cmd->reserved)
		return -EINVAL;
	err = kgni_uerr_get(ucmd->kfile, cmd->id);
	if (!err)
		return -EINVAL;
	spin_lock_irqsave(&kdev->kapi.lock, flags);
	ret = kgni_uerr_kill(err);
	if (!ret)
		kgni_uerr_unlink(err);
	spin_unlock_irqrestore(&kdev->kapi.lock, flags);
	if (!ret)
		kgni_err_finish(err);
	kref_put(&err->ref, kgni_err_free);
	return ret;
}

/**
 * kgni_ioctl_err_mask() - KGNI_IOC_ERR_MASK
 * @ucmd: the call
 *
 * Return: 0, -EINVAL, -EFAULT.
 */
int kgni_ioctl_err_mask(struct kgni_ucmd *ucmd)
{
	struct kgni_err_mask *cmd = ucmd->cmd;
	bool set = cmd->flags & KGNI_ERR_MASK_SET;
	struct gni_err *err;
	unsigned long flags;

	if ((cmd->flags & ~KGNI_ERR_MASK_SET) || cmd->reserved ||
	    cmd->old_mask || cmd->mask > KGNI_ERR_MASK_ALL ||
	    (!set && cmd->mask))
		return -EINVAL;
	err = kgni_uerr_get(ucmd->kfile, cmd->id);
	if (!err)
		return -EINVAL;
	spin_lock_irqsave(&err->lock, flags);
	cmd->old_mask = err->mask;
	if (set)
		WRITE_ONCE(err->mask, cmd->mask);
	spin_unlock_irqrestore(&err->lock, flags);
	kref_put(&err->ref, kgni_err_free);
	return kgni_ucmd_respond(ucmd, sizeof(*cmd));
}

/**
 * kgni_ioctl_err_ptag() - KGNI_IOC_ERR_PTAG
 * @ucmd: the call
 *
 * Return: 0, -EINVAL, -EPERM (another ptag than the file's CDM's without
 * CAP_SYS_ADMIN).
 */
int kgni_ioctl_err_ptag(struct kgni_ucmd *ucmd)
{
	struct kgni_err_ptag *cmd = ucmd->cmd;
	struct kgni_dev *kdev = ucmd->kdev;
	struct kgni_dom *dom = &ucmd->kfile->dom;
	struct gni_err *err;
	unsigned long flags;
	bool own, priv;

	if (cmd->flags || cmd->ptag > U8_MAX)
		return -EINVAL;
	err = kgni_uerr_get(ucmd->kfile, cmd->id);
	if (!err)
		return -EINVAL;
	mutex_lock(&kdev->dp.lock);
	own = dom->attached && !dom->revoked && cmd->ptag == dom->ptag;
	mutex_unlock(&kdev->dp.lock);
	priv = capable(CAP_SYS_ADMIN);
	if (own || priv) {
		spin_lock_irqsave(&err->lock, flags);
		err->ptag = cmd->ptag;
		err->own = !priv;
		spin_unlock_irqrestore(&err->lock, flags);
	}
	kref_put(&err->ref, kgni_err_free);
	return own || priv ? 0 : -EPERM;
}

static bool kgni_uerr_ready(struct gni_err *err)
{
	return READ_ONCE(err->count) || READ_ONCE(err->dead) ||
	       READ_ONCE(err->kdev->gone);
}

/* Take up to @n events into @events; *@gone: the device went. */
static u32 kgni_uerr_take(struct gni_err *err, gni_error_event_t *events,
			  u32 n, bool *gone)
{
	unsigned long flags;
	u32 got;

	spin_lock_irqsave(&err->lock, flags);
	got = kgni_err_take(err, events, n);
	spin_unlock_irqrestore(&err->lock, flags);
	*gone = READ_ONCE(err->kdev->gone);
	return got;
}

/* After the first events, wait up to @ms for more, until @want in all. */
static u32 kgni_uerr_coalesce(struct gni_err *err, gni_error_event_t *buf,
			      u32 n, u32 want, u32 ms, u32 *state)
{
	long left = msecs_to_jiffies(ms);
	bool came = false, gone = false;
	u32 m;

	/* dead keeps kgni_uerr_ready() true: stop, or this would spin */
	while (n < want && left > 0 && !gone && !READ_ONCE(err->dead)) {
		left = wait_event_interruptible_timeout(err->wq,
							kgni_uerr_ready(err),
							left);
		if (left < 0)
			return n;	/* a signal: what came so far */
		m = kgni_uerr_take(err, buf + n, want - n, &gone);
		came |= m > 0;
		n += m;
	}
	if (n < want && !left && !came)
		*state |= KGNI_ERR_WAIT_TIMED_OUT;
	return n;
}

/**
 * kgni_ioctl_err_wait() - KGNI_IOC_ERR_WAIT
 * @ucmd: the call
 *
 * Holds a reference and counts as a waiter (KGNI_IOC_ERR_RELEASE is
 * EBUSY meanwhile); remove wakes it (kgni_err_shutdown()).
 *
 * Return: 0, -EINVAL, -EFAULT, -ENOMEM, -EINTR, -ENODEV.
 */
int kgni_ioctl_err_wait(struct kgni_ucmd *ucmd)
{
	struct kgni_err_wait *cmd = ucmd->cmd;
	void __user *uev = u64_to_user_ptr(cmd->events);
	bool block = cmd->flags & KGNI_ERR_WAIT_BLOCK;
	gni_error_event_t *buf = NULL;
	bool dead, gone = false;
	struct gni_err *err;
	unsigned long flags;
	u32 n = 0, want;
	int ret = 0;

	if ((cmd->flags & ~KGNI_ERR_WAIT_BLOCK) || cmd->reserved ||
	    cmd->num_events || cmd->state || !cmd->events_size ||
	    cmd->events_size > KGNI_ERR_USER_MAX_EEQ ||
	    (!block && cmd->timeout_ms))
		return -EINVAL;
	err = kgni_uerr_get(ucmd->kfile, cmd->id);
	if (!err)
		return -EINVAL;
	want = min(cmd->events_size, err->size);
	/* Written before any event is taken: a bad pointer loses none. */
	if (clear_user(uev, (size_t)cmd->events_size * sizeof(*buf))) {
		ret = -EFAULT;
		goto out_put;
	}
	buf = kvcalloc(want, sizeof(*buf), GFP_KERNEL);
	if (!buf) {
		ret = -ENOMEM;
		goto out_put;
	}
	spin_lock_irqsave(&err->lock, flags);
	dead = err->dead;
	if (!dead)
		err->waiters++;
	spin_unlock_irqrestore(&err->lock, flags);
	if (dead) {
		ret = -EINVAL;
		goto out_put;
	}

	if (block && wait_event_interruptible(err->wq, kgni_uerr_ready(err)))
		ret = -EINTR;
	if (!ret)
		n = kgni_uerr_take(err, buf, want, &gone);
	if (!ret && n && block && cmd->timeout_ms && !gone)
		n = kgni_uerr_coalesce(err, buf, n, want, cmd->timeout_ms,
				       &cmd->state);
	spin_lock_irqsave(&err->lock, flags);
	err->waiters--;
	dead = err->dead;
	spin_unlock_irqrestore(&err->lock, flags);
	if (!n && !ret && gone)
		ret = -ENODEV;
	else if (!n && !ret && dead)
		ret = -EINVAL;	/* ended meanwhile */
	if (ret)
		goto out_put;
	if (copy_to_user(uev, buf, n * sizeof(*buf))) {
		ret = -EFAULT;
		goto out_put;
	}
	cmd->num_events = n;
	ret = kgni_ucmd_respond(ucmd, sizeof(*cmd));
out_put:
	kvfree(buf);
	kref_put(&err->ref, kgni_err_free);
	return ret;
}

/**
 * kgni_err_file_release() - end the subscriptions of a file
 * @kfile: the file, being released: no ioctl of it runs
 */
void kgni_err_file_release(struct kgni_file *kfile)
{
	struct kgni_dev *kdev = kfile->kdev;
	struct gni_err *gone[KGNI_ERR_FILE_SUBS];
	unsigned int slot, n = 0;
	unsigned long flags;

	spin_lock_irqsave(&kdev->kapi.lock, flags);
	for (slot = 0; slot < KGNI_ERR_FILE_SUBS; slot++) {
		struct gni_err *err = kfile->errs[slot];

		if (!err)
			continue;
		spin_lock(&err->lock);
		err->dead = true;
		spin_unlock(&err->lock);
		kgni_uerr_unlink(err);
		gone[n++] = err;
	}
	spin_unlock_irqrestore(&kdev->kapi.lock, flags);
	while (n)
		kgni_err_finish(gone[--n]);
}

/**
 * kgni_err_shutdown() - wake the files' waiters: the device goes
 * @kdev: the device, gone already
 */
void kgni_err_shutdown(struct kgni_dev *kdev)
{
	struct gni_err *err;
	unsigned long flags;

	spin_lock_irqsave(&kdev->kapi.lock, flags);
	list_for_each_entry(err, &kdev->err.list, node)
		if (err->kfile)
			wake_up(&err->wq);
	spin_unlock_irqrestore(&kdev->kapi.lock, flags);
}

/* Injection, for tests */

/* The longest line inject_error takes */
#define KGNI_ERR_INJECT_MAX	48

static const char * const kgni_err_class_names[8] = {
	"CORRECTABLE_MEMORY", "CRITICAL", "TRANSACTION",
	"ADDRESS_TRANSLATION", "TRANSIENT", "INFORMATIONAL", "DIAG_ONLY",
	"UNKNOWN_TRANSACTION",
};

/* A class: its name (GNI_ERRMASK_ optional) or a one-bit mask; 0 if none. */
static u8 kgni_err_parse_class(const char *s)
{
	unsigned int i;
	u8 mask;

	if (!kstrtou8(s, 0, &mask))
		return is_power_of_2(mask) ? mask : 0;
	if (!strncasecmp(s, "GNI_ERRMASK_", 12))
		s += 12;
	for (i = 0; i < ARRAY_SIZE(kgni_err_class_names); i++)
		if (!strcasecmp(s, kgni_err_class_names[i]))
			return BIT(i);
	return 0;
}

/*
 * "CLASS [PTAG]": one event of code KGNI_ERR_INJECTED, of no ptag
 * unless given, info_mmrs[0] the injection's number.
 */
static ssize_t kgni_err_inject_write(struct file *file,
				     const char __user *ubuf, size_t len,
				     loff_t *ppos)
{
	static atomic_t injected = ATOMIC_INIT(0);
	struct kgni_dev *kdev = file->private_data;
	char *buf, *args, *name;
	u8 class, ptag = 0;
	ssize_t ret = len;

	if (len > KGNI_ERR_INJECT_MAX)
		return -EINVAL;
	buf = memdup_user_nul(ubuf, len);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	args = strim(buf);
	name = strsep(&args, " ");
	class = kgni_err_parse_class(name);
	if (!class || (args && kstrtou8(strim(args), 0, &ptag)))
		ret = -EINVAL;
	else
		kgni_err_post(kdev, class, KGNI_ERR_INJECTED, ptag,
			      atomic_inc_return(&injected), 0, 0);
	kfree(buf);
	return ret;
}

static const struct file_operations kgni_err_inject_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = kgni_err_inject_write,
	.llseek = noop_llseek,
};

/* debugfs kgniN/inject_error, removed with the directory */
void kgni_err_debugfs_add(struct kgni_dev *kdev)
{
	debugfs_create_file("inject_error", 0200, kdev->debugfs, kdev,
			    &kgni_err_inject_fops);
}
