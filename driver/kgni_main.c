// SPDX-License-Identifier: GPL-2.0-only
/*
 * kgni: module init and exit, the "gni" class and the character devices.
 *
 * Every NIC gets a class device /sys/class/gni/kgniN and a character device
 * /dev/kgniN with the same minor; the class device owns struct kgni_dev, so
 * an open file keeps the structure alive after the PCI function has gone.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/idr.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>

#include "kgni.h"

/*
 * Read by Lustre's gnilnd with symbol_get() to choose its locking mode.
 * _GPL because symbol_get() refuses any other export on Linux 6.1.52 on
 * ("modules: only allow symbol_get of EXPORT_SYMBOL_GPL modules").
 */
const u32 kgni_driver_version = KGNI_DRV_VERSION;
EXPORT_SYMBOL_GPL(kgni_driver_version);

static unsigned int kgni_major;
module_param(kgni_major, uint, 0444);
MODULE_PARM_DESC(kgni_major, "Major number of /dev/kgniN (default 0: dynamic)");

/*
 * What one job (the files attached to one configured (ptag, cookie)) may
 * hold on a NIC, so that it cannot starve the others; kernel clients are
 * not held to them.  Past one, the call fails with EDQUOT (uGNI's
 * GNI_RC_ERROR_RESOURCE).  Root may change them at any time; what is
 * held already stays.
 */
unsigned int kgni_job_fmas = 48;
module_param_named(job_fmas, kgni_job_fmas, uint, 0644);
MODULE_PARM_DESC(job_fmas,
		 "FMA descriptors one job may hold on a NIC, those still draining included (default 48 of 64)");
unsigned int kgni_job_mdds = 3072;
module_param_named(job_mdds, kgni_job_mdds, uint, 0644);
MODULE_PARM_DESC(job_mdds,
		 "memory registrations (MDDs) one job may hold on a NIC (default 3072 of 4096)");
unsigned int kgni_job_gart = 49152;
module_param_named(job_gart, kgni_job_gart, uint, 0644);
MODULE_PARM_DESC(job_gart,
		 "GART entries (4 KiB pages) one job's registrations may hold (default 49152 of at most 65536)");
unsigned int kgni_job_dgrams = 2048;
module_param_named(job_dgrams, kgni_job_dgrams, uint, 0644);
MODULE_PARM_DESC(job_dgrams,
		 "datagrams one job may have posted and not collected on a NIC (default 2048)");
unsigned int kgni_dg_src_reqs = 256;
module_param_named(dgram_source_reqs, kgni_dg_src_reqs, uint, 0644);
MODULE_PARM_DESC(dgram_source_reqs,
		 "early datagrams a NIC keeps from one (source, ptag, cookie); more are refused with an error the sender sees (default 256)");
unsigned int kgni_dg_kernel_reqs = 128;
module_param_named(dgram_kernel_reqs, kgni_dg_kernel_reqs, uint, 0644);
MODULE_PARM_DESC(dgram_kernel_reqs,
		 "of the 1024 early datagrams a NIC keeps, how many only kernel clients' may take (default 128)");

static dev_t kgni_devt;
static DEFINE_IDA(kgni_ida);

/* The devices that have /dev/kgniN, by N, for the kernel API */
static struct kgni_dev *kgni_devs[KGNI_MAX_DEVICES];
static DEFINE_MUTEX(kgni_devs_lock);	/* protects kgni_devs */

/*
 * As on a Cray system, any user may open /dev/kgniN: what a process may do
 * on the network is decided per protection tag, not by the device node.
 */
static char *kgni_devnode(KGNI_CONST_DEV struct device *dev, umode_t *mode)
{
	if (mode)
		*mode = 0666;
	return NULL;
}

static struct class kgni_class = {
	.name = "gni",
	.class_groups = kgni_class_groups,
	.devnode = kgni_devnode,
};

static int kgni_open(struct inode *inode, struct file *file)
{
	struct kgni_dev *kdev = container_of(inode->i_cdev, struct kgni_dev,
					     cdev);
	struct kgni_file *kfile;

	kfile = kzalloc(sizeof(*kfile), GFP_KERNEL);
	if (!kfile)
		return -ENOMEM;
	kfile->kdev = kdev;
	get_device(&kdev->dev);
	kgni_dom_add(kdev, &kfile->dom, file);
	file->private_data = kfile;
	return nonseekable_open(inode, file);
}

static int kgni_release(struct inode *inode, struct file *file)
{
	struct kgni_file *kfile = file->private_data;
	struct kgni_dev *kdev = kfile->kdev;

	kgni_err_file_release(kfile);
	kgni_file_release(kfile, file);
	kfree(kfile);
	put_device(&kdev->dev);
	return 0;
}

static const struct file_operations kgni_fops = {
	.owner = THIS_MODULE,
	.open = kgni_open,
	.release = kgni_release,
	.unlocked_ioctl = kgni_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = kgni_mmap,
};

static void kgni_dev_release(struct device *dev)
{
	struct kgni_dev *kdev = to_kgni_dev(dev);

	kgni_dp_free_jobs(kdev);
	kgni_ntt_free(kdev);
	ida_free(&kgni_ida, kdev->minor);
	kfree(kdev);
}

/**
 * kgni_dev_alloc() - allocate a NIC and reserve its minor
 * @pdev: the PCI function
 *
 * The class device is initialised but not added; drop it with put_device(),
 * which frees the structure and the minor.
 *
 * Return: the new device or an ERR_PTR().
 */
struct kgni_dev *kgni_dev_alloc(struct pci_dev *pdev)
{
	struct kgni_dev *kdev;
	int minor, ret;

	kdev = kzalloc(sizeof(*kdev), GFP_KERNEL);
	if (!kdev)
		return ERR_PTR(-ENOMEM);

	minor = ida_alloc_max(&kgni_ida, KGNI_MAX_DEVICES - 1, GFP_KERNEL);
	if (minor < 0) {
		kfree(kdev);
		return ERR_PTR(minor);
	}
	kdev->minor = minor;
	kdev->pdev = pdev;
	init_rwsem(&kdev->ctl_rwsem);
	mutex_init(&kdev->diag.lock);
	init_waitqueue_head(&kdev->diag.wq);
	init_waitqueue_head(&kdev->cq.wq);
	init_waitqueue_head(&kdev->dp.job_wq);
	spin_lock_init(&kdev->dg.lock);
	init_waitqueue_head(&kdev->dg.wq);
	INIT_DELAYED_WORK(&kdev->dg.work, kgni_dg_work);
	INIT_DELAYED_WORK(&kdev->fma.drain_work, kgni_drain_work);
	INIT_LIST_HEAD(&kdev->fma.drain);
	mutex_init(&kdev->dp.lock);
	spin_lock_init(&kdev->mem.lock);
	INIT_LIST_HEAD(&kdev->mem.dead);
	INIT_WORK(&kdev->mem.reap_work, kgni_mem_reap_work);
	INIT_LIST_HEAD(&kdev->dp.doms);
	kgni_kapi_dev_init(kdev);

	device_initialize(&kdev->dev);
	kdev->dev.class = &kgni_class;
	kdev->dev.parent = &pdev->dev;
	kdev->dev.devt = MKDEV(MAJOR(kgni_devt), MINOR(kgni_devt) + minor);
	kdev->dev.groups = kgni_dev_groups;
	kdev->dev.release = kgni_dev_release;
	kgni_bi_init(kdev);
	ret = dev_set_name(&kdev->dev, "kgni%d", minor);
	if (ret) {
		put_device(&kdev->dev);
		return ERR_PTR(ret);
	}

	cdev_init(&kdev->cdev, &kgni_fops);
	kdev->cdev.owner = THIS_MODULE;
	return kdev;
}

/*
 * Make /dev/kgniN and /sys/class/gni/kgniN appear, and the device
 * kgni_dev_get()'s.
 */
int kgni_dev_add(struct kgni_dev *kdev)
{
	int ret = cdev_device_add(&kdev->cdev, &kdev->dev);

	if (ret)
		return ret;
	mutex_lock(&kgni_devs_lock);
	kgni_devs[kdev->minor] = kdev;
	mutex_unlock(&kgni_devs_lock);
	return 0;
}

/* Remove them; returns once no sysfs read is in progress. */
void kgni_dev_del(struct kgni_dev *kdev)
{
	mutex_lock(&kgni_devs_lock);
	kgni_devs[kdev->minor] = NULL;
	mutex_unlock(&kgni_devs_lock);
	cdev_device_del(&kdev->cdev, &kdev->dev);
}

/**
 * kgni_dev_get() - the device kgniN, referenced
 * @minor: N
 *
 * The caller drops the reference with put_device(&kdev->dev).  The device
 * may be removed meanwhile: its ctl_rwsem and gone say so, as for an open
 * file's ioctls.
 *
 * Context: process context; takes a mutex.
 * Return: the device, or NULL if there is no kgniN (or it is being
 * removed).
 */
struct kgni_dev *kgni_dev_get(u32 minor)
{
	struct kgni_dev *kdev;

	if (minor >= KGNI_MAX_DEVICES)
		return NULL;
	mutex_lock(&kgni_devs_lock);
	kdev = kgni_devs[minor];
	if (kdev)
		get_device(&kdev->dev);
	mutex_unlock(&kgni_devs_lock);
	return kdev;
}

static int __init kgni_init(void)
{
	int ret;

	kgni_sysfs_init();

	if (kgni_major) {
		kgni_devt = MKDEV(kgni_major, 0);
		ret = register_chrdev_region(kgni_devt, KGNI_MAX_DEVICES,
					     KBUILD_MODNAME);
	} else {
		ret = alloc_chrdev_region(&kgni_devt, 0, KGNI_MAX_DEVICES,
					  KBUILD_MODNAME);
	}
	if (ret) {
		pr_err("cannot reserve device numbers: %d\n", ret);
		return ret;
	}

	ret = class_register(&kgni_class);
	if (ret) {
		pr_err("cannot register class %s: %d\n", kgni_class.name, ret);
		goto err_unregister_chrdev;
	}

	/* Not fatal: another job module may provide it. */
	if (kgni_proc_job_init())
		pr_warn("cannot make /proc/job\n");

	ret = kgni_pci_register();
	if (ret) {
		pr_err("cannot register PCI driver: %d\n", ret);
		goto err_remove_proc;
	}
	return 0;

err_remove_proc:
	kgni_proc_job_exit();
	class_unregister(&kgni_class);
err_unregister_chrdev:
	unregister_chrdev_region(kgni_devt, KGNI_MAX_DEVICES);
	return ret;
}
module_init(kgni_init);

static void __exit kgni_exit(void)
{
	kgni_pci_unregister();
	kgni_rca_exit();
	/* SMSG state the kernel API freed after a grace period (kgni_ksmsg.c) */
	rcu_barrier();
	kgni_proc_job_exit();
	class_unregister(&kgni_class);
	unregister_chrdev_region(kgni_devt, KGNI_MAX_DEVICES);
	ida_destroy(&kgni_ida);
}
module_exit(kgni_exit);

MODULE_DESCRIPTION("Cray Gemini network interface (vgemini emulation)");
MODULE_AUTHOR("vgemini developers");
MODULE_LICENSE("GPL");
