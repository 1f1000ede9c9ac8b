// SPDX-License-Identifier: GPL-2.0-only
/*
 * kgni: the kernel API's communication domains and NICs, gni_get_errno()
 * and the quiesce status and callback (Documentation/kernel-api.rst).
 *
 * gni_cdm_create() only records the CDM's parameters.  gni_cdm_attach()
 * finds kgniN, takes a kernel job slot for the CDM's (ptag, cookie) (any
 * ptag no job has: kgni_job_attach_kernel()) and makes the NIC, whose
 * kernel domain owns what the client makes on it; gni_cdm_destroy() tears
 * that domain down as the release of an open file does
 * (kgni_dom_release()) and gives the slot back.
 *
 * Create, attach, destroy and the NIC address may sleep (and refuse
 * atomic context, kgni_may_sleep()); gni_get_errno(),
 * gni_get_quiesce_status() and gni_set_quiesce_callback() may be called
 * in any context.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/export.h>
#include <linux/irqflags.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/printk.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/topology.h>

#include "kgni_kapi.h"

/* Serialises attach and destroy, which set and clear a CDM's NIC */
static DEFINE_MUTEX(kgni_kdom_lock);

/* Each CPU's errno record: the first failure not read yet */
static DEFINE_PER_CPU(gni_errno_t, kgni_errno);

/**
 * kgni_may_sleep() - may the caller of a function that sleeps sleep?
 *
 * might_sleep() says nothing on a kernel without
 * CONFIG_DEBUG_ATOMIC_SLEEP (Debian's): a call from an interrupt handler
 * or a softirq, with interrupts off, or with a spinlock held (seen where
 * the preemption count counts it, CONFIG_PREEMPT_COUNT, as on Debian's
 * kernels) is refused (INVALID_PARAM, in every such function's list)
 * rather than scheduling while atomic.  The first refusal is logged,
 * naming the function, as a warning line rather than a WARNING splat: it
 * is the caller's mistake, answered by a documented code, and the tests
 * make such calls on purpose where a splat would fail them.  A held
 * spinlock the count cannot show is left to might_sleep().
 *
 * Return: true in task context, interrupts on, nothing held that forbids
 * sleeping.
 */
noinline bool kgni_may_sleep(void)
{
	if (kgni_can_sleep()) {
		might_sleep();
		return true;
	}
	pr_warn_once("%pS called in atomic context: refused with INVALID_PARAM\n",
		     __builtin_return_address(0));
	return false;
}

/* WARN_ONCE unless @rc is in @codes (KGNI_RCS_*); returns @rc. */
static gni_return_t kgni_kapi_checked(const char *func, u32 codes,
				      gni_return_t rc)
{
	WARN_ONCE((u32)rc >= 32 || !(codes & BIT(rc)),
		  "kgni: %s returned %d, not one of its return codes\n",
		  func, rc);
	return rc;
}

/**
 * kgni_kapi_end() - the end of every exported function (kgni_kapi_ret())
 * @func: the function's name
 * @codes: its return codes (KGNI_RCS_*)
 * @rc: what it returns
 * @err: errno of a failure, or 0
 * @data: a value that tells more, or 0
 * @line: where it failed
 *
 * Context: any.
 * Return: @rc.
 */
gni_return_t kgni_kapi_end(const char *func, u32 codes, gni_return_t rc,
			   int err, u64 data, int line)
{
	unsigned long flags;
	gni_errno_t *e;

	kgni_kapi_checked(func, codes, rc);
	if (rc == GNI_RC_SUCCESS || rc == GNI_RC_NOT_DONE)
		return rc;
	/* An interrupt handler's call on this CPU may fail meanwhile. */
	local_irq_save(flags);
	e = this_cpu_ptr(&kgni_errno);
	if (!e->valid) {
		strscpy(e->func, func, sizeof(e->func));
		e->lineno = line;
		e->errno = err;
		e->data1 = data;
		e->data2 = 0;
		e->data3 = 0;
		e->data4 = 0;
		e->valid = 1;
	}
	local_irq_restore(flags);
	return rc;
}

/**
 * gni_get_errno() - what the first failing call on this CPU recorded
 * @nic_hndl: a NIC
 * @errno_ptr: the record, copied out
 *
 * Reading invalidates the record, so that the next failure on this CPU
 * fills it again.  Its own failures are not recorded.
 *
 * Context: any.
 * Return: SUCCESS, INVALID_STATE if nothing was recorded since the last
 * read, INVALID_PARAM.
 */
gni_return_t gni_get_errno(gni_nic_handle_t nic_hndl, gni_errno_t *errno_ptr)
{
	gni_return_t rc = GNI_RC_INVALID_STATE;
	unsigned long flags;
	gni_errno_t *e;

	if (!kgni_is(nic_hndl, KGNI_TAG_NIC) || !errno_ptr)
		rc = GNI_RC_INVALID_PARAM;
	if (rc == GNI_RC_INVALID_STATE) {
		local_irq_save(flags);
		e = this_cpu_ptr(&kgni_errno);
		if (e->valid) {
			*errno_ptr = *e;
			e->valid = 0;
			rc = GNI_RC_SUCCESS;
		}
		local_irq_restore(flags);
	}
	return kgni_kapi_checked(__func__, KGNI_RCS_gni_get_errno, rc);
}
EXPORT_SYMBOL(gni_get_errno);

/**
 * gni_cdm_create() - make a kernel communication domain
 * @inst_id: its instance id
 * @ptag: its protection tag: 1 to 254 (attach refuses a ptag a job has)
 * @cookie: its cookie
 * @modes: GNI_CDM_MODE_* flags, none of GNI_CDM_MODE_PRIV_MASK
 * @cdm_hndl: the new CDM
 *
 * Context: process context, may sleep.
 * Return: SUCCESS, INVALID_PARAM, ERROR_RESOURCE (no memory).
 */
gni_return_t gni_cdm_create(u32 inst_id, u8 ptag, u32 cookie, u32 modes,
			    gni_cdm_handle_t *cdm_hndl)
{
	struct gni_cdm *cdm;

	if (!kgni_may_sleep() || !cdm_hndl)
		return kgni_kapi_ret(gni_cdm_create, GNI_RC_INVALID_PARAM,
				     EINVAL, 0);
	if (!ptag || ptag == GNI_PTAG_LB)
		return kgni_kapi_ret(gni_cdm_create, GNI_RC_INVALID_PARAM,
				     EINVAL, ptag);
	if (modes & GNI_CDM_MODE_PRIV_MASK)
		return kgni_kapi_ret(gni_cdm_create, GNI_RC_INVALID_PARAM,
				     EINVAL, modes);
	cdm = kzalloc(sizeof(*cdm), GFP_KERNEL);
	if (!cdm)
		return kgni_kapi_ret(gni_cdm_create, GNI_RC_ERROR_RESOURCE,
				     ENOMEM, 0);
	cdm->tag = KGNI_TAG_CDM;
	cdm->inst_id = inst_id;
	cdm->ptag = ptag;
	cdm->cookie = cookie;
	cdm->modes = modes;
	*cdm_hndl = cdm;
	return kgni_kapi_ret(gni_cdm_create, GNI_RC_SUCCESS, 0, 0);
}
EXPORT_SYMBOL(gni_cdm_create);

/**
 * gni_cdm_attach() - attach a kernel CDM to a device: its NIC
 * @cdm_hndl: the CDM, not attached yet
 * @device_id: N of kgniN
 * @local_addr: the device's PE
 * @nic_hndl: the new NIC
 *
 * Takes a kernel job slot of the device for the CDM's (ptag, cookie): no
 * process may attach to that pair, and no job set-up take its ptag, until
 * gni_cdm_destroy().
 *
 * Context: process context, may sleep.
 * Return: SUCCESS, INVALID_PARAM, INVALID_STATE (attached already),
 * NO_MATCH (no kgniN), ERROR_RESOURCE (a job has the ptag, every job slot
 * is in use, or no memory).
 */
gni_return_t gni_cdm_attach(gni_cdm_handle_t cdm_hndl, u32 device_id,
			    u32 *local_addr, gni_nic_handle_t *nic_hndl)
{
	struct gni_cdm *cdm = cdm_hndl;
	gni_return_t rc = GNI_RC_SUCCESS;
	struct kgni_dev *kdev = NULL;
	unsigned long flags;
	struct gni_nic *nic;
	u64 data = 0;
	int err = 0;

	if (!kgni_may_sleep() || !kgni_is(cdm, KGNI_TAG_CDM) || !local_addr ||
	    !nic_hndl)
		return kgni_kapi_ret(gni_cdm_attach, GNI_RC_INVALID_PARAM,
				     EINVAL, 0);
	nic = kzalloc(sizeof(*nic), GFP_KERNEL);
	if (!nic)
		return kgni_kapi_ret(gni_cdm_attach, GNI_RC_ERROR_RESOURCE,
				     ENOMEM, 0);
	if (gnicore_nic_init(&nic->core, KGNI_KAPI_NREQS, cdm->modes) !=
	    GNI_RC_SUCCESS) {
		kfree(nic);
		return kgni_kapi_ret(gni_cdm_attach, GNI_RC_ERROR_RESOURCE,
				     ENOMEM, 0);
	}

	mutex_lock(&kgni_kdom_lock);
	if (cdm->nic) {
		rc = GNI_RC_INVALID_STATE;
		err = EBUSY;
		goto out;
	}
	kdev = kgni_dev_get(device_id);
	if (!kdev) {
		rc = GNI_RC_NO_MATCH;
		err = ENODEV;
		data = device_id;
		goto out;
	}
	down_read(&kdev->ctl_rwsem);
	if (READ_ONCE(kdev->gone)) {
		rc = GNI_RC_NO_MATCH;
		err = ENODEV;
		data = device_id;
	} else {
		err = -kgni_job_attach_kernel(kdev, &nic->dom, cdm->ptag,
					      cdm->cookie, cdm->inst_id);
		if (err) {
			rc = GNI_RC_ERROR_RESOURCE;
			data = cdm->ptag;
		} else {
			nic->pe = kgni_rd(kdev, VGEMINI_CTL_NODE_PE);
		}
	}
	up_read(&kdev->ctl_rwsem);
	if (rc)
		goto out;

	kgni_dom_add(kdev, &nic->dom, NULL);
	mutex_init(&nic->fma_lock);
	spin_lock_init(&nic->obj_lock);
	INIT_LIST_HEAD(&nic->cqs);
	INIT_LIST_HEAD(&nic->eps);
	nic->tag = KGNI_TAG_NIC;
	nic->cdm = cdm;
	nic->kdev = kdev;
	spin_lock_irqsave(&kdev->kapi.lock, flags);
	list_add_tail(&nic->node, &kdev->kapi.nics);
	spin_unlock_irqrestore(&kdev->kapi.lock, flags);
	cdm->nic = nic;
	*local_addr = nic->pe;
	*nic_hndl = nic;
out:
	mutex_unlock(&kgni_kdom_lock);
	if (rc) {
		if (kdev)
			put_device(&kdev->dev);
		gnicore_nic_fini(&nic->core);
		kfree(nic);
	}
	return kgni_kapi_ret(gni_cdm_attach, rc, err, data);
}
EXPORT_SYMBOL(gni_cdm_attach);

/*
 * Undo a NIC, no longer its CDM's: no more quiesce callback, its domain's
 * objects undone and its kernel job slot given back.
 */
static void kgni_nic_free(struct gni_nic *nic)
{
	struct kgni_dev *kdev = nic->kdev;
	unsigned int eps, cqs, mems, errs;
	unsigned long flags;

	/* Waits for a callback running on another CPU. */
	spin_lock_irqsave(&kdev->kapi.lock, flags);
	list_del(&nic->node);
	spin_unlock_irqrestore(&kdev->kapi.lock, flags);
	WRITE_ONCE(nic->tag, KGNI_TAG_INVALID);
	/* What the client left: its handles go, then the domain's objects. */
	errs = kgni_err_nic_free(nic);
	eps = kgni_kep_nic_free(nic);
	cqs = kgni_kcq_nic_free(nic);
	mutex_lock(&kdev->dp.lock);
	mems = list_count_nodes(&nic->dom.mems);
	mutex_unlock(&kdev->dp.lock);
	if (eps || cqs || mems || errs)
		dev_info_once(&kdev->pdev->dev,
			      "a kernel client destroyed its CDM with %u endpoints, %u CQs, %u registrations and %u error subscriptions left: freed\n",
			      eps, cqs, mems, errs);
	kgni_dom_release(kdev, &nic->dom);
	put_device(&kdev->dev);
	gnicore_nic_fini(&nic->core);
	kfree(nic);
}

/**
 * gni_cdm_destroy() - destroy a kernel CDM, and its NIC if attached
 * @cdm_hndl: the CDM
 *
 * Whatever the NIC's domain still holds is undone, as for a released
 * file.  Neither handle may be used afterwards.
 *
 * Context: process context, may sleep.
 * Return: SUCCESS, INVALID_PARAM.
 */
gni_return_t gni_cdm_destroy(gni_cdm_handle_t cdm_hndl)
{
	struct gni_cdm *cdm = cdm_hndl;
	struct gni_nic *nic;

	if (!kgni_may_sleep() || !kgni_is(cdm, KGNI_TAG_CDM))
		return kgni_kapi_ret(gni_cdm_destroy, GNI_RC_INVALID_PARAM,
				     EINVAL, 0);
	mutex_lock(&kgni_kdom_lock);
	nic = cdm->nic;
	cdm->nic = NULL;
	WRITE_ONCE(cdm->tag, KGNI_TAG_INVALID);
	mutex_unlock(&kgni_kdom_lock);
	/* Its RDMA posts are waited for: not under the mutex. */
	if (nic)
		kgni_nic_free(nic);
	kfree(cdm);
	return kgni_kapi_ret(gni_cdm_destroy, GNI_RC_SUCCESS, 0, 0);
}
EXPORT_SYMBOL(gni_cdm_destroy);

/**
 * gni_cdm_get_nic_address() - a device's PE and a CPU near it
 * @device_id: N of kgniN
 * @address: its PE
 * @cpu_id: the first online CPU of its NUMA node (of all, without one)
 *
 * Needs no CDM.  Not in the spec's list of gnilnd's calls: vgemini's
 * kernel counterpart of GNI_CdmGetNicAddress, with its return codes.
 *
 * Context: process context, may sleep.
 * Return: SUCCESS, INVALID_PARAM, NO_MATCH (no kgniN).
 */
gni_return_t gni_cdm_get_nic_address(u32 device_id, u32 *address,
				     u32 *cpu_id)
{
	const struct cpumask *near = cpu_online_mask;
	struct kgni_dev *kdev;
	unsigned int cpu;
	bool gone;
	u32 pe = 0;
	int node;

	if (!kgni_may_sleep() || !address || !cpu_id)
		return kgni_kapi_ret(gni_cdm_get_nic_address,
				     GNI_RC_INVALID_PARAM, EINVAL, 0);
	kdev = kgni_dev_get(device_id);
	if (!kdev)
		return kgni_kapi_ret(gni_cdm_get_nic_address,
				     GNI_RC_NO_MATCH, ENODEV, device_id);
	down_read(&kdev->ctl_rwsem);
	gone = READ_ONCE(kdev->gone);
	if (!gone) {
		pe = kgni_rd(kdev, VGEMINI_CTL_NODE_PE);
		node = dev_to_node(&kdev->pdev->dev);
		if (node != NUMA_NO_NODE)
			near = cpumask_of_node(node);
	}
	up_read(&kdev->ctl_rwsem);
	put_device(&kdev->dev);
	if (gone)
		return kgni_kapi_ret(gni_cdm_get_nic_address,
				     GNI_RC_NO_MATCH, ENODEV, device_id);
	cpu = cpumask_first_and(near, cpu_online_mask);
	if (cpu >= nr_cpu_ids)
		cpu = cpumask_first(cpu_online_mask);
	*address = pe;
	*cpu_id = cpu;
	return kgni_kapi_ret(gni_cdm_get_nic_address, GNI_RC_SUCCESS, 0, 0);
}
EXPORT_SYMBOL(gni_cdm_get_nic_address);

/* Quiesce */

/**
 * gni_get_quiesce_status() - is the fabric quiesced?
 * @nic_hndl: a NIC
 *
 * As the driver last read the device's FABRIC_STATE, after the device's
 * interrupt for the change (kgni_fabric.c).
 *
 * Context: any.
 * Return: 1 while quiesced, else 0 (0 too for a bad handle, recorded as
 * an INVALID_PARAM failure for gni_get_errno()).
 */
u32 gni_get_quiesce_status(gni_nic_handle_t nic_hndl)
{
	if (!kgni_is(nic_hndl, KGNI_TAG_NIC)) {
		kgni_kapi_ret(gni_get_quiesce_status, GNI_RC_INVALID_PARAM,
			      EINVAL, 0);
		return 0;
	}
	return kgni_fabric_quiesced(nic_hndl->kdev) ? 1 : 0;
}
EXPORT_SYMBOL(gni_get_quiesce_status);

/**
 * gni_set_quiesce_callback() - be told when a quiesce ends
 * @nic_hndl: a NIC
 * @qsce_func: called with the NIC and the quiesce's length in ms when the
 *             fabric runs again; with a spinlock held, interrupts off: it
 *             must not sleep
 *
 * Context: any.
 * Return: SUCCESS, INVALID_PARAM, INVALID_STATE (the NIC has one).
 */
gni_return_t gni_set_quiesce_callback(gni_nic_handle_t nic_hndl,
				      void (*qsce_func)(gni_nic_handle_t, u64))
{
	struct gni_nic *nic = nic_hndl;
	gni_return_t rc = GNI_RC_SUCCESS;
	unsigned long flags;

	if (!kgni_is(nic, KGNI_TAG_NIC) || !qsce_func)
		return kgni_kapi_ret(gni_set_quiesce_callback,
				     GNI_RC_INVALID_PARAM, EINVAL, 0);
	spin_lock_irqsave(&nic->kdev->kapi.lock, flags);
	if (nic->qsce_func)
		rc = GNI_RC_INVALID_STATE;
	else
		nic->qsce_func = qsce_func;
	spin_unlock_irqrestore(&nic->kdev->kapi.lock, flags);
	return kgni_kapi_ret(gni_set_quiesce_callback, rc,
			     rc ? EBUSY : 0, 0);
}
EXPORT_SYMBOL(gni_set_quiesce_callback);

/**
 * kgni_kapi_quiesce_end() - a quiesce ended: call the NICs' callbacks
 * @kdev: the device
 * @msecs: how long it lasted, as the driver saw it
 *
 * Context: process context (link_work).
 */
void kgni_kapi_quiesce_end(struct kgni_dev *kdev, u64 msecs)
{
	unsigned long flags;
	struct gni_nic *nic;

	spin_lock_irqsave(&kdev->kapi.lock, flags);
	list_for_each_entry(nic, &kdev->kapi.nics, node)
		if (nic->qsce_func)
			nic->qsce_func(nic, msecs);
	spin_unlock_irqrestore(&kdev->kapi.lock, flags);
}

/* A new device: no kernel NIC yet. */
void kgni_kapi_dev_init(struct kgni_dev *kdev)
{
	spin_lock_init(&kdev->kapi.lock);
	INIT_LIST_HEAD(&kdev->kapi.nics);
	kgni_err_dev_init(kdev);
	kgni_kcq_dev_init(kdev);
	kgni_kmem_dev_init(kdev);
}
