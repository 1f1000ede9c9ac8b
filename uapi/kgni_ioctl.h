/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * kgni_ioctl.h: the ioctl interface of /dev/kgniN (Documentation/abi.rst).
 *
 * This header holds what every command shares: the general format, the
 * errnos, the command numbers, the router ports and the KGNI_IOC_*
 * definitions.  The structures are in three parts by role, which it
 * includes (callers include this header only): kgni_ioctl_diag.h (the
 * diagnostic ping, counters, error subscriptions), kgni_ioctl_dp.h (the
 * data path: jobs, CDMs, memory, CQs, FMA, RDMA, the MDD and NTT
 * queries) and kgni_ioctl_dgram.h (datagrams).
 *
 * These headers build both in the kernel and in user space; they need
 * only <linux/types.h> and <linux/ioctl.h>.
 */
#ifndef KGNI_IOCTL_H
#define KGNI_IOCTL_H

#include <linux/types.h>
#include <linux/ioctl.h>

/**
 * DOC: General ioctl format
 *
 * Every ioctl takes a pointer to a structure whose first __u32, @size, the
 * caller sets to the size of the structure it was compiled with, and whose
 * second __u32, @flags, selects options (0 unless the ioctl defines a
 * flag).  The ioctl numbers do not encode the size: a structure grows at
 * its end only, and a field added later means "as before" when it is 0.
 * So:
 *
 *  - a caller built against an older header passes a smaller @size (at
 *    least the first version's); the kernel reads the fields it got and
 *    takes the missing ones as 0;
 *  - a caller built against a newer header passes a larger @size; the
 *    kernel accepts it if every byte it does not know is 0;
 *  - on return the kernel writes back at most @size bytes.
 *
 * Fields are "in" (read by the kernel), "out" (written by the kernel) or
 * "in/out".  The out fields of KGNI_IOC_MEM_REGISTER, KGNI_IOC_CQ_CREATE,
 * KGNI_IOC_FMA_ALLOC, KGNI_IOC_RDMA_POST, KGNI_IOC_MEM_REGISTER_SEGMENTS,
 * KGNI_IOC_MEM_QUERY, KGNI_IOC_NTT_QUERY and KGNI_IOC_ERR_* must be 0 on
 * input (EINVAL
 * otherwise), so that a later version can give them a meaning as inputs;
 * the other commands ignore the input value of their out fields.  Fields named reserved must be 0
 * on input and are written as 0.
 *
 * Every ioctl uses these errnos with these meanings, and no other meaning:
 *
 *  - ENOTTY: the ioctl number is not one of /dev/kgniN's.
 *  - EFAULT: the argument, or a user pointer in it, cannot be read or
 *    written.
 *  - EINVAL: @size is smaller than the first version of the structure; a
 *    bit of @flags is unknown; a reserved field is not 0; an in field is
 *    out of its range.
 *  - E2BIG: @size is larger than the structure the kernel knows and the
 *    bytes beyond it are not all 0, or @size is over 4096.
 *  - ENODEV: the NIC has been removed (unbind, hot unplug) while the file
 *    was open; every later ioctl on the file fails so.
 *  - EINTR: a signal came while the ioctl waited.
 *  - ENOENT: the counter named by id or by name does not exist;
 *    KGNI_IOC_MEM_QUERY found no registration (after the one named).
 *  - EMSGSIZE: the caller's array is too small; the needed count is
 *    written back.
 *  - EIO: the device did not behave as specified, e.g. a ping still
 *    pending after the device's timeout (logged in the kernel log).
 *
 * KGNI_IOC_DIAG_PING adds the fabric's answers, which the device gives
 * at the end of a ping; the ioctl writes the result structure back with
 * them (struct kgni_diag_ping tells exactly when it writes it):
 *
 *  - ETIMEDOUT: no response came back within the fabric's timeout.
 *  - ENXIO: the destination is not a node of this torus.
 *  - EHOSTUNREACH: no route: no routing table is loaded, or the table has
 *    no route to the destination.
 *  - EBUSY: the device's diagnostic slot is taken, or the router had no
 *    room to inject the request.
 *  - EINVAL: the device refused the payload length (the driver's own
 *    EINVAL, above, writes nothing back).
 *
 * The data-path commands (KGNI_IOC_JOB_CONFIGURE to
 * KGNI_IOC_MEM_REGISTER_SEGMENTS) add:
 *
 *  - EPERM: the caller lacks the right: KGNI_IOC_JOB_CONFIGURE without
 *    CAP_SYS_ADMIN; KGNI_IOC_CDM_ATTACH to a (ptag, cookie) that no job
 *    configured; a command that needs a CDM on a file not attached.
 *  - ENOLINK: the job of the file's CDM was released: the attachment is
 *    revoked and every data-path command on the file fails so.
 *  - EBUSY: the file is already attached; the (ptag, cookie) is allowed
 *    already; the CQ is still used by an FMA descriptor, a memory
 *    registration or an RDMA post in flight of the file; the vMDH entry
 *    a registration names (KGNI_MEM_VMDH) is taken; a thread waits in
 *    KGNI_IOC_ERR_WAIT on the subscription KGNI_IOC_ERR_RELEASE names.
 *  - EBADF: KGNI_IOC_JOB_CONFIGURE's cgroup_fd is no cgroup v2 directory.
 *  - ENOSPC: no free hardware entry (job slot, MDD, CQ, FMA descriptor,
 *    vMDH entry of the caller's block); KGNI_IOC_ERR_SUBSCRIBE past the
 *    subscriptions a file, or the files of a device, may hold.
 *  - EDQUOT: KGNI_IOC_CQ_CREATE past the CQs one file, or one job on one
 *    NIC, may hold.
 *  - ENOMEM: kernel memory ran out, or pinning would exceed
 *    RLIMIT_MEMLOCK (without CAP_IPC_LOCK).
 *  - ENOSPC also: the GART has no run of free entries long enough for
 *    a registration.
 *  - ETIMEDOUT: KGNI_IOC_CQ_WAIT's timeout ran out with the CQ empty.
 *  - EACCES: KGNI_IOC_RDMA_POST would let the network write memory
 *    registered read-only (a GET into a read-only local registration, a
 *    PUT to a remote handle marked read-only).
 *  - ENOSPC also: KGNI_IOC_RDMA_POST found its BTE channel's ring full,
 *    or the file already has KGNI_RDMA_MAX_POSTS posts in flight (uGNI's
 *    GNI_RC_ERROR_RESOURCE: try again once completions came).
 *  - EINVAL also: a handle, CQ or FMA id that no object of this file
 *    holds (objects of other files included).
 *
 * KGNI_IOC_JOB_SUSPEND and KGNI_IOC_JOB_RESUME add:
 *
 *  - EPERM: the caller lacks CAP_SYS_ADMIN.
 *  - ENOENT: no job set-up allowed (ptag, cookie).
 *  - EOPNOTSUPP: the pair is a kernel client's, which cannot be
 *    suspended.
 *  - EALREADY: suspending a job suspended already, or resuming one that
 *    is not suspended.
 *  - ETIMEDOUT: the job's traffic did not drain within the timeout; the
 *    suspension is withdrawn.
 *  - EINTR also: a signal came while KGNI_IOC_JOB_SUSPEND waited for the
 *    drain; the suspension is withdrawn.
 */

#define KGNI_IOC_MAGIC			'G'

/*
 * Numbers 1 to 36 of magic 'G' are those of Cray's private uGNI-kGNI
 * interface (GNI_IOC_*); kgni's own commands start at 0x80.
 */
enum {
	KGNI_CMD_BASE = 0x80,
	KGNI_CMD_DIAG_PING = KGNI_CMD_BASE,
	KGNI_CMD_COUNTER_READ = 0x81,
	KGNI_CMD_COUNTER_SNAPSHOT = 0x82,
	KGNI_CMD_JOB_CONFIGURE = 0x83,
	KGNI_CMD_CDM_ATTACH = 0x84,
	KGNI_CMD_MEM_REGISTER = 0x85,
	KGNI_CMD_MEM_DEREGISTER = 0x86,
	KGNI_CMD_CQ_CREATE = 0x87,
	KGNI_CMD_CQ_DESTROY = 0x88,
	KGNI_CMD_FMA_ALLOC = 0x89,
	KGNI_CMD_FMA_FREE = 0x8a,
	KGNI_CMD_CQ_WAIT = 0x8b,
	KGNI_CMD_RDMA_POST = 0x8c,
	KGNI_CMD_MEM_REGISTER_SEGMENTS = 0x8d,
	KGNI_CMD_DGRAM_POST = 0x8e,
	KGNI_CMD_DGRAM_TEST = 0x8f,
	KGNI_CMD_DGRAM_PROBE = 0x90,
	KGNI_CMD_DGRAM_CANCEL = 0x91,
	KGNI_CMD_MEM_QUERY = 0x92,
	KGNI_CMD_NTT_QUERY = 0x93,
	KGNI_CMD_ERR_SUBSCRIBE = 0x94,
	KGNI_CMD_ERR_RELEASE = 0x95,
	KGNI_CMD_ERR_MASK = 0x96,
	KGNI_CMD_ERR_WAIT = 0x97,
	KGNI_CMD_ERR_PTAG = 0x98,
	KGNI_CMD_NTT_CONFIG = 0x99,
	KGNI_CMD_BI_CONFIG = 0x9a,
	KGNI_CMD_JOB_SUSPEND = 0xa0,
	KGNI_CMD_JOB_RESUME = 0xa1,
};

/**
 * enum kgni_port - router ports, as in trace records and counter blocks
 * @KGNI_PORT_XP: X+
 * @KGNI_PORT_XM: X-
 * @KGNI_PORT_YP: Y+
 * @KGNI_PORT_YM: Y-
 * @KGNI_PORT_ZP: Z+
 * @KGNI_PORT_ZM: Z-
 * @KGNI_PORT_NIC: the router's port to its own NIC
 *
 * A packet leaving through a "+" port of one node enters the next node
 * through its "-" port of the same dimension, and the other way round.
 */
enum kgni_port {
	KGNI_PORT_XP = 0,
	KGNI_PORT_XM = 1,
	KGNI_PORT_YP = 2,
	KGNI_PORT_YM = 3,
	KGNI_PORT_ZP = 4,
	KGNI_PORT_ZM = 5,
	KGNI_PORT_NIC = 6,
};

/*
 * The structures, by role: the diagnostic ping, counters and error
 * subscriptions; the data path; datagrams.
 */
#include "kgni_ioctl_diag.h"
#include "kgni_ioctl_dp.h"
#include "kgni_ioctl_dgram.h"

#define KGNI_IOC_DIAG_PING		_IO(KGNI_IOC_MAGIC, KGNI_CMD_DIAG_PING)
#define KGNI_IOC_COUNTER_READ		_IO(KGNI_IOC_MAGIC, KGNI_CMD_COUNTER_READ)
#define KGNI_IOC_COUNTER_SNAPSHOT	_IO(KGNI_IOC_MAGIC, KGNI_CMD_COUNTER_SNAPSHOT)
#define KGNI_IOC_JOB_CONFIGURE		_IO(KGNI_IOC_MAGIC, KGNI_CMD_JOB_CONFIGURE)
#define KGNI_IOC_CDM_ATTACH		_IO(KGNI_IOC_MAGIC, KGNI_CMD_CDM_ATTACH)
#define KGNI_IOC_MEM_REGISTER		_IO(KGNI_IOC_MAGIC, KGNI_CMD_MEM_REGISTER)
#define KGNI_IOC_MEM_DEREGISTER		_IO(KGNI_IOC_MAGIC, KGNI_CMD_MEM_DEREGISTER)
#define KGNI_IOC_CQ_CREATE		_IO(KGNI_IOC_MAGIC, KGNI_CMD_CQ_CREATE)
#define KGNI_IOC_CQ_DESTROY		_IO(KGNI_IOC_MAGIC, KGNI_CMD_CQ_DESTROY)
#define KGNI_IOC_FMA_ALLOC		_IO(KGNI_IOC_MAGIC, KGNI_CMD_FMA_ALLOC)
#define KGNI_IOC_FMA_FREE		_IO(KGNI_IOC_MAGIC, KGNI_CMD_FMA_FREE)
#define KGNI_IOC_CQ_WAIT		_IO(KGNI_IOC_MAGIC, KGNI_CMD_CQ_WAIT)
#define KGNI_IOC_RDMA_POST		_IO(KGNI_IOC_MAGIC, KGNI_CMD_RDMA_POST)
#define KGNI_IOC_MEM_REGISTER_SEGMENTS	\
	_IO(KGNI_IOC_MAGIC, KGNI_CMD_MEM_REGISTER_SEGMENTS)
#define KGNI_IOC_DGRAM_POST		_IO(KGNI_IOC_MAGIC, KGNI_CMD_DGRAM_POST)
#define KGNI_IOC_DGRAM_TEST		_IO(KGNI_IOC_MAGIC, KGNI_CMD_DGRAM_TEST)
#define KGNI_IOC_DGRAM_PROBE		_IO(KGNI_IOC_MAGIC, KGNI_CMD_DGRAM_PROBE)
#define KGNI_IOC_DGRAM_CANCEL		_IO(KGNI_IOC_MAGIC, KGNI_CMD_DGRAM_CANCEL)
#define KGNI_IOC_MEM_QUERY		_IO(KGNI_IOC_MAGIC, KGNI_CMD_MEM_QUERY)
#define KGNI_IOC_NTT_QUERY		_IO(KGNI_IOC_MAGIC, KGNI_CMD_NTT_QUERY)
#define KGNI_IOC_NTT_CONFIG		_IO(KGNI_IOC_MAGIC, KGNI_CMD_NTT_CONFIG)
#define KGNI_IOC_BI_CONFIG		_IO(KGNI_IOC_MAGIC, KGNI_CMD_BI_CONFIG)
#define KGNI_IOC_ERR_SUBSCRIBE		_IO(KGNI_IOC_MAGIC, KGNI_CMD_ERR_SUBSCRIBE)
#define KGNI_IOC_ERR_RELEASE		_IO(KGNI_IOC_MAGIC, KGNI_CMD_ERR_RELEASE)
#define KGNI_IOC_ERR_MASK		_IO(KGNI_IOC_MAGIC, KGNI_CMD_ERR_MASK)
#define KGNI_IOC_ERR_WAIT		_IO(KGNI_IOC_MAGIC, KGNI_CMD_ERR_WAIT)
#define KGNI_IOC_ERR_PTAG		_IO(KGNI_IOC_MAGIC, KGNI_CMD_ERR_PTAG)
#define KGNI_IOC_JOB_SUSPEND		_IO(KGNI_IOC_MAGIC, KGNI_CMD_JOB_SUSPEND)
#define KGNI_IOC_JOB_RESUME		_IO(KGNI_IOC_MAGIC, KGNI_CMD_JOB_RESUME)

#endif /* KGNI_IOCTL_H */
