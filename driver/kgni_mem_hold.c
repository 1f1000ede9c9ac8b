// SPDX-License-Identifier: GPL-2.0-only
/*
 * kgni: MDH deregistration holds (Documentation/kernel-api.rst).
 *
 * Memory registration state, kept here rather than in the kernel API so
 * that the data path (kgni_bte.c, kgni_mem.c) does not call up into it.
 */
#include <linux/jiffies.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "kgni_dp.h"

/* Release holds that expire this close to their time together */
#define KGNI_MDH_HOLD_SLACK	msecs_to_jiffies(1)

/* The number of an ended hold is free, unless a BTE orphan keeps it. */
void kgni_mdh_unhold(struct kgni_dev *kdev, struct kgni_mdh_hold *h)
{
	unsigned long flags;

	spin_lock_irqsave(&kdev->mem.lock, flags);
	list_del(&h->node);
	spin_unlock_irqrestore(&kdev->mem.lock, flags);
	if (!kgni_bte_keep_mdh(kdev, h->mdh))
		clear_bit(h->mdh, kdev->mem.mdd_map);
	kfree(h);
}

/* Arm the work for the earliest hold (dp.lock or mem.lock held). */
static void kgni_mdh_hold_arm(struct kgni_dev *kdev)
{
	struct kgni_mdh_hold *h;
	long left;

	h = list_first_entry_or_null(&kdev->hold.list, struct kgni_mdh_hold,
				     node);
	if (!h)
		return;
	left = (long)(h->expires - jiffies);
	mod_delayed_work(system_wq, &kdev->hold.work, max(left, 0L));
}

/**
 * kgni_mdh_hold_add() - hold an MDH number whose registration just went
 * @kdev: the device, alive
 * @mdh: the number (cleared from mdd_map: it is set again)
 * @hndl: the registration's handle
 * @hold: the hold, with @hold->expires set; owned by the list from now on
 *
 * Context: dp.lock and mem.lock held.
 */
void kgni_mdh_hold_add(struct kgni_dev *kdev, u32 mdh, const u64 hndl[2],
		       struct kgni_mdh_hold *hold)
{
	struct kgni_mdh_hold *h;

	hold->mdh = mdh;
	hold->released = false;
	hold->hndl[0] = hndl[0];
	hold->hndl[1] = hndl[1];
	set_bit(mdh, kdev->mem.mdd_map);
	/* Earliest expiry first */
	list_for_each_entry(h, &kdev->hold.list, node)
		if (time_before(hold->expires, h->expires))
			break;
	list_add_tail(&hold->node, &h->node);
	kgni_mdh_hold_arm(kdev);
}

/**
 * kgni_mdh_held() - does a deregistration hold keep an MDH number?
 * @kdev: the device
 * @mdh: the number
 *
 * Context: dp.lock held.
 * Return: true if it does.
 */
bool kgni_mdh_held(struct kgni_dev *kdev, u32 mdh)
{
	struct kgni_mdh_hold *h;

	list_for_each_entry(h, &kdev->hold.list, node)
		if (h->mdh == mdh)
			return true;
	return false;
}

/*
 * The dead-man timer: release the holds that have expired, and those
 * gni_mem_mdd_release() released in atomic context.
 */
static void kgni_mdh_hold_work(struct work_struct *work)
{
	struct kgni_dev *kdev = container_of(to_delayed_work(work),
					     struct kgni_dev, hold.work);
	struct kgni_mdh_hold *h, *next;

	mutex_lock(&kdev->dp.lock);
	list_for_each_entry_safe(h, next, &kdev->hold.list, node) {
		if (READ_ONCE(h->released) ||
		    !time_after(h->expires, jiffies + KGNI_MDH_HOLD_SLACK))
			kgni_mdh_unhold(kdev, h);
	}
	kgni_mdh_hold_arm(kdev);
	mutex_unlock(&kdev->dp.lock);
}

/**
 * kgni_kmem_dev_init() - a new device: no hold
 * @kdev: the device
 */
void kgni_kmem_dev_init(struct kgni_dev *kdev)
{
	INIT_LIST_HEAD(&kdev->hold.list);
	INIT_DELAYED_WORK(&kdev->hold.work, kgni_mdh_hold_work);
}

/**
 * kgni_kmem_dev_fini() - drop every hold of a device being removed
 * @kdev: the device, gone (no new hold is made: kgni_mem_deregister()
 *        makes none without the device)
 */
void kgni_kmem_dev_fini(struct kgni_dev *kdev)
{
	struct kgni_mdh_hold *h, *next;

	cancel_delayed_work_sync(&kdev->hold.work);
	mutex_lock(&kdev->dp.lock);
	list_for_each_entry_safe(h, next, &kdev->hold.list, node)
		kgni_mdh_unhold(kdev, h);
	mutex_unlock(&kdev->dp.lock);
	/* An atomic release that found a hold above may have armed it. */
	cancel_delayed_work_sync(&kdev->hold.work);
}
