// SPDX-License-Identifier: GPL-2.0-only
/*
 * kgni: the ioctls of /dev/kgniN (uapi/kgni_ioctl.h, Documentation/abi.rst).
 *
 * Every command takes a structure that starts with its size.  The checks
 * common to all of them are made here, in the order of the errno table:
 * the command number (ENOTTY), the size (EFAULT, EINVAL, E2BIG), then the
 * structure is copied in and the command's handler checks its own fields.
 *
 * An open file outlives the PCI function: remove marks the device gone and
 * waits, on ctl_rwsem, for the ioctls that still use BAR0; those that come
 * after see it gone and fail with ENODEV.
 */
#include <linux/fs.h>
#include <linux/nospec.h>
#include <linux/uaccess.h>

#include "kgni.h"

/* Largest structure size accepted from user space, whatever the command. */
#define KGNI_IOCTL_MAX_SIZE	4096

union kgni_ioctl_buf {
	struct kgni_diag_ping diag_ping;
	struct kgni_counter_read counter_read;
	struct kgni_counter_snapshot counter_snapshot;
	struct kgni_job_configure job_configure;
	struct kgni_cdm_attach cdm_attach;
	struct kgni_mem_register mem_register;
	struct kgni_mem_deregister mem_deregister;
	struct kgni_cq_create cq_create;
	struct kgni_cq_destroy cq_destroy;
	struct kgni_fma_alloc fma_alloc;
	struct kgni_fma_free fma_free;
	struct kgni_cq_wait cq_wait;
	struct kgni_rdma_post rdma_post;
	struct kgni_mem_register_segments mem_register_segments;
	struct kgni_dgram_post dgram_post;
	struct kgni_dgram_test dgram_test;
	struct kgni_dgram_probe dgram_probe;
	struct kgni_dgram_cancel dgram_cancel;
	struct kgni_mem_query mem_query;
	struct kgni_ntt_query ntt_query;
	struct kgni_ntt_config ntt_config;
	struct kgni_bi_config bi_config;
	struct kgni_err_subscribe err_subscribe;
	struct kgni_err_release err_release;
	struct kgni_err_mask err_mask;
	struct kgni_err_wait err_wait;
	struct kgni_err_ptag err_ptag;
	struct kgni_job_suspend job_suspend;
};

/**
 * struct kgni_ioctl_op - one command
 * @size: size of the structure this driver knows
 * @min_size: size of the structure's first version
 * @ioctl_num: the full ioctl number
 * @execute: the handler; called with ctl_rwsem held for reading
 */
struct kgni_ioctl_op {
	unsigned int size;
	unsigned int min_size;
	unsigned int ioctl_num;
	int (*execute)(struct kgni_ucmd *ucmd);
};

/* KGNI_IOCTL_OP(DIAG_PING, ...): KGNI_CMD_DIAG_PING and KGNI_IOC_DIAG_PING */
#define KGNI_IOCTL_OP(_name, _fn, _struct, _last)			\
	[KGNI_CMD_##_name - KGNI_CMD_BASE] = {				\
		.size = sizeof(_struct) +				\
			BUILD_BUG_ON_ZERO(sizeof(union kgni_ioctl_buf) < \
					  sizeof(_struct)),		\
		.min_size = offsetofend(_struct, _last),		\
		.ioctl_num = KGNI_IOC_##_name,				\
		.execute = _fn,						\
	}

/*
 * The first version of each structure is the whole of it, except
 * struct kgni_mem_register's, which ended with mem_hndl, and
 * struct kgni_mem_register_segments', which ended with reserved (both
 * grew vmdh_index and vmdh_count), and struct kgni_job_configure's,
 * which ended with reserved2 (it grew the job id, limits and NTT block).
 */
static const struct kgni_ioctl_op kgni_ioctl_ops[] = {
	KGNI_IOCTL_OP(DIAG_PING, kgni_ioctl_diag_ping,
		      struct kgni_diag_ping, trace),
	KGNI_IOCTL_OP(COUNTER_READ, kgni_ioctl_counter_read,
		      struct kgni_counter_read, value),
	KGNI_IOCTL_OP(COUNTER_SNAPSHOT, kgni_ioctl_counter_snapshot,
		      struct kgni_counter_snapshot, values),
	KGNI_IOCTL_OP(JOB_CONFIGURE, kgni_ioctl_job_configure,
		      struct kgni_job_configure, reserved2),
	KGNI_IOCTL_OP(CDM_ATTACH, kgni_ioctl_cdm_attach,
		      struct kgni_cdm_attach, nic_pe),
	KGNI_IOCTL_OP(MEM_REGISTER, kgni_ioctl_mem_register,
		      struct kgni_mem_register, mem_hndl),
	KGNI_IOCTL_OP(MEM_DEREGISTER, kgni_ioctl_mem_deregister,
		      struct kgni_mem_deregister, mem_hndl),
	KGNI_IOCTL_OP(CQ_CREATE, kgni_ioctl_cq_create,
		      struct kgni_cq_create, user_offset),
	KGNI_IOCTL_OP(CQ_DESTROY, kgni_ioctl_cq_destroy,
		      struct kgni_cq_destroy, reserved),
	KGNI_IOCTL_OP(FMA_ALLOC, kgni_ioctl_fma_alloc,
		      struct kgni_fma_alloc, window_size),
	KGNI_IOCTL_OP(FMA_FREE, kgni_ioctl_fma_free,
		      struct kgni_fma_free, reserved),
	KGNI_IOCTL_OP(CQ_WAIT, kgni_ioctl_cq_wait,
		      struct kgni_cq_wait, timeout_ms),
	KGNI_IOCTL_OP(RDMA_POST, kgni_ioctl_rdma_post,
		      struct kgni_rdma_post, slot),
	KGNI_IOCTL_OP(MEM_REGISTER_SEGMENTS, kgni_ioctl_mem_register_segments,
		      struct kgni_mem_register_segments, reserved),
	KGNI_IOCTL_OP(DGRAM_POST, kgni_ioctl_dgram_post,
		      struct kgni_dgram_post, reserved),
	KGNI_IOCTL_OP(DGRAM_TEST, kgni_ioctl_dgram_test,
		      struct kgni_dgram_test, reserved),
	KGNI_IOCTL_OP(DGRAM_PROBE, kgni_ioctl_dgram_probe,
		      struct kgni_dgram_probe, remote_inst),
	KGNI_IOCTL_OP(DGRAM_CANCEL, kgni_ioctl_dgram_cancel,
		      struct kgni_dgram_cancel, id),
	KGNI_IOCTL_OP(MEM_QUERY, kgni_ioctl_mem_query,
		      struct kgni_mem_query, len),
	KGNI_IOCTL_OP(NTT_QUERY, kgni_ioctl_ntt_query,
		      struct kgni_ntt_query, reserved),
	KGNI_IOCTL_OP(NTT_CONFIG, kgni_ioctl_ntt_config,
		      struct kgni_ntt_config, table),
	KGNI_IOCTL_OP(BI_CONFIG, kgni_ioctl_bi_config,
		      struct kgni_bi_config, reserved2),
	KGNI_IOCTL_OP(ERR_SUBSCRIBE, kgni_ioctl_err_subscribe,
		      struct kgni_err_subscribe, reserved),
	KGNI_IOCTL_OP(ERR_RELEASE, kgni_ioctl_err_release,
		      struct kgni_err_release, reserved),
	KGNI_IOCTL_OP(ERR_MASK, kgni_ioctl_err_mask,
		      struct kgni_err_mask, reserved),
	KGNI_IOCTL_OP(ERR_WAIT, kgni_ioctl_err_wait,
		      struct kgni_err_wait, events),
	KGNI_IOCTL_OP(ERR_PTAG, kgni_ioctl_err_ptag,
		      struct kgni_err_ptag, ptag),
	KGNI_IOCTL_OP(JOB_SUSPEND, kgni_ioctl_job_suspend,
		      struct kgni_job_suspend, reserved),
	KGNI_IOCTL_OP(JOB_RESUME, kgni_ioctl_job_resume,
		      struct kgni_job_suspend, reserved),
};

/**
 * kgni_ucmd_respond() - write the structure back to the caller
 * @ucmd: the call
 * @len: size of the kernel's structure
 *
 * Writes no more than the caller's size.
 *
 * Return: 0 or -EFAULT.
 */
int kgni_ucmd_respond(struct kgni_ucmd *ucmd, size_t len)
{
	if (copy_to_user(ucmd->ubuffer, ucmd->cmd,
			 min_t(size_t, ucmd->user_size, len)))
		return -EFAULT;
	return 0;
}

long kgni_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct kgni_file *kfile = file->private_data;
	struct kgni_dev *kdev = kfile->kdev;
	const struct kgni_ioctl_op *op;
	union kgni_ioctl_buf buf;
	struct kgni_ucmd ucmd;
	unsigned int nr;
	int ret;

	nr = _IOC_NR(cmd);
	if (_IOC_TYPE(cmd) != KGNI_IOC_MAGIC || nr < KGNI_CMD_BASE ||
	    nr - KGNI_CMD_BASE >= ARRAY_SIZE(kgni_ioctl_ops))
		return -ENOTTY;
	nr = array_index_nospec(nr - KGNI_CMD_BASE,
				ARRAY_SIZE(kgni_ioctl_ops));
	op = &kgni_ioctl_ops[nr];
	if (!op->execute || op->ioctl_num != cmd)
		return -ENOTTY;

	ucmd.kdev = kdev;
	ucmd.kfile = kfile;
	ucmd.file = file;
	ucmd.ubuffer = (void __user *)arg;
	ret = get_user(ucmd.user_size, (u32 __user *)ucmd.ubuffer);
	if (ret)
		return ret;
	if (ucmd.user_size < op->min_size)
		return -EINVAL;
	if (ucmd.user_size > KGNI_IOCTL_MAX_SIZE)
		return -E2BIG;
	ucmd.cmd = &buf;
	ret = copy_struct_from_user(ucmd.cmd, op->size, ucmd.ubuffer,
				    ucmd.user_size);
	if (ret)
		return ret;

	down_read(&kdev->ctl_rwsem);
	if (READ_ONCE(kdev->gone))
		ret = -ENODEV;
	else
		ret = op->execute(&ucmd);
	up_read(&kdev->ctl_rwsem);
	return ret;
}

/**
 * kgni_ioctl_shutdown() - stop ioctls from using the device
 * @kdev: the device being removed
 *
 * Marks the device gone, wakes a ping or CQ wait that waits for the
 * device, and waits until no ioctl that saw the device alive still runs.
 * After this no ioctl touches BAR0.
 */
void kgni_ioctl_shutdown(struct kgni_dev *kdev)
{
	WRITE_ONCE(kdev->gone, true);
	/* Kernel CQs write their read index only under RCU, not gone. */
	synchronize_rcu();
	wake_up_all(&kdev->diag.wq);
	wake_up_all(&kdev->cq.wq);
	wake_up_all(&kdev->dg.wq);
	kgni_err_shutdown(kdev);
	wake_up_all(&kdev->dp.job_wq);
	down_write(&kdev->ctl_rwsem);
	up_write(&kdev->ctl_rwsem);
}
