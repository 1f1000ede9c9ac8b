/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * kgni_ioctl.h: the ioctl interface of /dev/kgniN (Documentation/abi.rst).
 *
 * This header builds both in the kernel and in user space; it needs only
 * <linux/types.h> and <linux/ioctl.h>.
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

/* Diagnostic ping */

#define KGNI_DIAG_MAX_LEN		64
#define KGNI_DIAG_MAX_TRACE		16

/**
 * enum kgni_diag_status - how a diagnostic ping ended
 * @KGNI_DIAG_OK: the response came back; the ioctl returns 0
 * @KGNI_DIAG_TIMEOUT: no response in time (lost, or the destination did
 *                     not answer); ETIMEDOUT
 * @KGNI_DIAG_NO_NODE: the destination is not a node of this torus; ENXIO
 * @KGNI_DIAG_BAD_LEN: the device refused the length; EINVAL
 * @KGNI_DIAG_BUSY: the device's diagnostic slot was taken or the router had
 *                  no room to inject the request; EBUSY
 * @KGNI_DIAG_NO_ROUTE: no routing table, or no route to the destination;
 *                      EHOSTUNREACH
 */
enum kgni_diag_status {
	KGNI_DIAG_OK = 0,
	KGNI_DIAG_TIMEOUT = 1,
	KGNI_DIAG_NO_NODE = 2,
	KGNI_DIAG_BAD_LEN = 3,
	KGNI_DIAG_BUSY = 4,
	KGNI_DIAG_NO_ROUTE = 5,
};

/**
 * struct kgni_diag_hop - one link crossed by a diagnostic packet
 * @node: Gemini id of the router the packet left
 * @out_port: port it left that router through (enum kgni_port, 0 to 5)
 * @in_port: port it had entered that router through (enum kgni_port);
 *           KGNI_PORT_NIC on the first hop of the request and of the
 *           response
 * @vclass: dateline class the packet had on this link, 0 or 1
 * @response: 0 for a hop of the request, 1 for a hop of the response
 * @reserved: 0
 */
struct kgni_diag_hop {
	__u16 node;
	__u8 out_port;
	__u8 in_port;
	__u8 vclass;
	__u8 response;
	__u16 reserved;
};

/**
 * struct kgni_diag_ping - ioctl(KGNI_IOC_DIAG_PING)
 * @size: in: sizeof(struct kgni_diag_ping)
 * @flags: in: 0
 * @dest: in: Gemini id of the node to ping; this node's own id is allowed
 *        (the request then crosses no link)
 * @len: in: payload bytes of the request and of the response, 0 to
 *       KGNI_DIAG_MAX_LEN
 * @status: out: enum kgni_diag_status
 * @req_hops: out: links the request crossed
 * @rsp_hops: out: links the response crossed
 * @rtt_ns: out: round-trip time measured by the device, in ns; 0xffffffff
 *          for 4.29 s or more
 * @seq: out: pings the device has started since its reset
 * @num_trace: out: entries of @trace filled: @req_hops + @rsp_hops when
 *             @len had room for them (4 bytes, then 4 per hop), else
 *             the first ones that fit; at most KGNI_DIAG_MAX_TRACE
 * @reserved: in: 0; out: 0
 * @trace: out: the path, request hops then response hops; entries from
 *         @num_trace on are 0
 *
 * Sends one diagnostic request through the fabric to @dest, whose router
 * answers it, and waits for the answer.  Pings of one NIC take turns: a
 * caller waits until the ping before it has ended.
 *
 * The structure is written back exactly when the device has ended the
 * ping, with any enum kgni_diag_status: the ioctl then returns 0 for
 * KGNI_DIAG_OK and the status's errno otherwise, the other out fields as
 * the device reported them.  When the ioctl fails before that (EINVAL for
 * @flags, @reserved or a @len over KGNI_DIAG_MAX_LEN; ENXIO for a @dest
 * over 0xffff, which is no Gemini id; E2BIG; EFAULT; EINTR; ENODEV; EIO)
 * user memory is not written.  EBUSY, ETIMEDOUT and EHOSTUNREACH come only
 * with the structure written back.
 *
 * A signal ends the wait with EINTR; the ping may still complete in the
 * device, and the next ping of the NIC waits for it to end first.
 */
struct kgni_diag_ping {
	__u32 size;
	__u32 flags;
	__u32 dest;
	__u32 len;
	__u32 status;
	__u16 req_hops;
	__u16 rsp_hops;
	__u32 rtt_ns;
	__u32 seq;
	__u32 num_trace;
	__u32 reserved;
	struct kgni_diag_hop trace[KGNI_DIAG_MAX_TRACE];
};

#define KGNI_IOC_DIAG_PING		_IO(KGNI_IOC_MAGIC, KGNI_CMD_DIAG_PING)

/* Counters */

/*
 * Counter blocks: block 0 to 5 are the router ports (enum kgni_port), block
 * KGNI_PORT_NIC is the NIC.  Counter index i of a block is the device's
 * counter i (enum vgemini_port_counter for ports, enum vgemini_nic_counter
 * for the NIC, in uapi/vgemini_ctl.h).
 *
 * A counter's name is "<block>:<counter>": the block is one of "X+", "X-",
 * "Y+", "Y-", "Z+", "Z-" and "NIC", the counter is the enum constant's name
 * without its VGEMINI_PC_ or VGEMINI_NC_ prefix.  For example
 * "X+:VC0_PHITS", "Z-:CRC_ERR", "NIC:REQ_PKTS_OUT".  Names are matched
 * exactly (case included).
 */
#define KGNI_COUNTER_BLOCKS		7
#define KGNI_COUNTER_NAME_LEN		32

/* struct kgni_counter_read flags */
#define KGNI_COUNTER_BY_NAME		0x1u

/**
 * struct kgni_counter_read - ioctl(KGNI_IOC_COUNTER_READ)
 * @size: in: sizeof(struct kgni_counter_read)
 * @flags: in: 0 to choose the counter by @block and @index,
 *         KGNI_COUNTER_BY_NAME to choose it by @name
 * @block: in (by id), out: the counter's block, 0 to KGNI_COUNTER_BLOCKS - 1
 * @index: in (by id), out: the counter's index in its block
 * @name: in (by name): a NUL-terminated name; out: the counter's name,
 *        NUL-padded
 * @value: out: the counter's value
 *
 * Reads one 64-bit counter.  The fields not used to choose the counter are
 * ignored on input; all of @block, @index and @name are written back, so
 * that each way of naming a counter can be translated into the other.
 * ENOENT when no counter has that id or that name; EINVAL when @name has
 * no NUL.
 */
struct kgni_counter_read {
	__u32 size;
	__u32 flags;
	__u32 block;
	__u32 index;
	char name[KGNI_COUNTER_NAME_LEN];
	__aligned_u64 value;
};

#define KGNI_IOC_COUNTER_READ		_IO(KGNI_IOC_MAGIC, KGNI_CMD_COUNTER_READ)

/**
 * struct kgni_counter_snapshot - ioctl(KGNI_IOC_COUNTER_SNAPSHOT)
 * @size: in: sizeof(struct kgni_counter_snapshot)
 * @flags: in: 0
 * @num_blocks: out: counter blocks (KGNI_COUNTER_BLOCKS)
 * @per_block: out: slots per block in @values
 * @count: in: __u64 slots at @values; out: slots the kernel has to fill,
 *         @num_blocks * @per_block
 * @reserved: in: 0; out: 0
 * @values: in: user pointer to an array of @count __u64; counter (b, i)
 *          goes in slot b * @per_block + i, and slots that no counter has
 *          are written 0
 *
 * Reads every counter, one after the other (not at one instant).  The
 * kernel fills the first min(@count in, @count out) slots and writes the
 * structure back; if @count was too small the ioctl then fails with
 * EMSGSIZE.  @count 0 (and any @values) asks for the sizes only.
 */
struct kgni_counter_snapshot {
	__u32 size;
	__u32 flags;
	__u32 num_blocks;
	__u32 per_block;
	__u32 count;
	__u32 reserved;
	__aligned_u64 values;
};

#define KGNI_IOC_COUNTER_SNAPSHOT	_IO(KGNI_IOC_MAGIC, KGNI_CMD_COUNTER_SNAPSHOT)

/* Data path: jobs, CDMs, memory, CQs, FMA descriptors */

/* struct kgni_job_configure flags */
#define KGNI_JOB_RELEASE		0x1u

/**
 * struct kgni_job_configure - ioctl(KGNI_IOC_JOB_CONFIGURE)
 * @size: in: sizeof(struct kgni_job_configure)
 * @flags: in: 0 to allow (@ptag, @cookie) on this NIC, KGNI_JOB_RELEASE
 *         to withdraw it
 * @ptag: in: protection tag, 3 to 253: uGNI's user ptags
 *        (GNI_PTAG_USER_START to GNI_PTAG_USER_END of gni_pub.h); the
 *        others are the kernel's (Documentation/kernel-api.rst)
 * @cookie: in: the job's cookie
 * @uid: in (allow): the only user id (in the caller's user namespace)
 *       whose processes may attach
 * @cgroup_fd: in (allow): an open directory of a cgroup v2 hierarchy; only
 *             processes in that cgroup or below it may attach.  The
 *             launcher creates one per job and starts the job's ranks in
 *             it (Documentation/jobs.rst, "Job isolation").  Ignored for
 *             KGNI_JOB_RELEASE.
 * @reserved: in: 0
 * @reserved2: in: 0
 *
 * The launcher's job set-up; needs CAP_SYS_ADMIN (else EPERM).  A @ptag
 * outside 3 to 253 is EINVAL.  Allowing a pair already allowed is EBUSY,
 * and so is allowing a ptag that a kernel client's CDM holds (whatever
 * the cookie); ENOSPC when the NIC's table of KGNI_MAX_JOBS pairs (kernel
 * clients' included) is full; EBADF when @cgroup_fd is no cgroup v2
 * directory; releasing a pair not allowed is EINVAL, a kernel client's
 * pair EPERM.  Releasing revokes
 * every attachment to the pair: those files' FMA descriptors stop, their
 * registrations become invalid, and their data-path ioctls fail with
 * ENOLINK from then on.
 */
struct kgni_job_configure {
	__u32 size;
	__u32 flags;
	__u32 ptag;
	__u32 cookie;
	__u32 uid;
	__s32 cgroup_fd;
	__u32 reserved;
	__u32 reserved2;
};

#define KGNI_MAX_JOBS			32

/**
 * struct kgni_job_suspend - ioctl(KGNI_IOC_JOB_SUSPEND, KGNI_IOC_JOB_RESUME)
 * @size: in: sizeof(struct kgni_job_suspend)
 * @flags: in: 0
 * @job_id: in: the job's id, as uGNI's GNI_SuspendJob takes it; kgni
 *          keeps no job id (KGNI_IOC_JOB_CONFIGURE takes none), so it is
 *          not checked
 * @ptag: in: the job's protection tag, 3 to 253 (EINVAL otherwise)
 * @cookie: in: the job's cookie
 * @timeout_ms: in: KGNI_IOC_JOB_SUSPEND: how long to wait for the job's
 *              traffic to drain (0: look once); KGNI_IOC_JOB_RESUME: 0
 * @reserved: in: 0
 *
 * The launcher's job suspension (uGNI's GNI_SuspendJob, GNI_ResumeJob);
 * both need CAP_SYS_ADMIN.  Suspending the job that KGNI_IOC_JOB_CONFIGURE
 * allowed as (@ptag, @cookie) stops its ranks' FMA and BTE traffic on
 * this NIC: the user pages and windows of its FMA descriptors are
 * unmapped and a rank's next access to one waits (killable) until the
 * job is resumed; its KGNI_IOC_RDMA_POST calls wait (interruptible, EINTR)
 * likewise.  Then the call waits until no request of the job's FMA
 * descriptors is outstanding (the counts of their status words are 0)
 * and the BTE has ended every RDMA post of the job, and returns 0 with
 * the job suspended; or, after @timeout_ms, withdraws the suspension and
 * fails with ETIMEDOUT (EINTR on a signal).  Transactions that other
 * nodes start towards the job's memory are not stopped.  Resuming lets
 * the waiting ranks go on.  Releasing a suspended job resumes it first.
 */
struct kgni_job_suspend {
	__u32 size;
	__u32 flags;
	__aligned_u64 job_id;
	__u32 ptag;
	__u32 cookie;
	__u32 timeout_ms;
	__u32 reserved;
};

/**
 * struct kgni_cdm_attach - ioctl(KGNI_IOC_CDM_ATTACH)
 * @size: in: sizeof(struct kgni_cdm_attach)
 * @flags: in: 0
 * @ptag: in: protection tag, 1 to 255
 * @cookie: in: the job's cookie
 * @inst_id: in: the caller's instance id (kept, not interpreted yet)
 * @nic_pe: out: this NIC's PE (gemini_hw.h GEMINI_PE())
 *
 * Attaches the file to the communication domain (@ptag, @cookie,
 * @inst_id): the MDDs and FMA descriptors the file makes carry @ptag.
 * EPERM unless KGNI_IOC_JOB_CONFIGURE allowed (@ptag, @cookie) (a kernel
 * client's pair is none); EBUSY if the file is attached already.  A file
 * attaches once, for its life.
 */
struct kgni_cdm_attach {
	__u32 size;
	__u32 flags;
	__u32 ptag;
	__u32 cookie;
	__u32 inst_id;
	__u32 nic_pe;
};

/* struct kgni_mem_register and kgni_mem_register_segments flags */
#define KGNI_MEM_READONLY		0x1u
#define KGNI_MEM_USE_GART		0x2u	/* never the MRT */
#define KGNI_MEM_VMDH			0x4u	/* at a vMDH index, below */

/*
 * vMDH entries (uGNI's GNI_SetMddResources, GNI_MEM_USE_VMDH and
 * GNI_RebuildMemHndl).  On a Gemini a process registers memory at an
 * index of a block of MDDs, and a peer that knows the index names the
 * memory without being sent its handle: the target NIC adds the base of
 * its own block.  vgemini's NIC has no vMDH table, so the block is the
 * same on every node: index i is MDD KGNI_VMDH_MDH(i), counted down from
 * the last MDD (ordinary registrations take the lowest free ones), and
 * the handle names that MDD like any other (no VMDH flag).  Index i of
 * one node therefore reaches the memory registered at index i on any
 * other.  The entries are the NIC's: two files, of any jobs, cannot hold
 * one index at once.
 */
#define KGNI_VMDH_ENTRIES		4096	/* every MDD (GEMINI_NUM_MDD) */
#define KGNI_VMDH_ANY			0xffffffffu
#define KGNI_VMDH_MDH(i)		(KGNI_VMDH_ENTRIES - 1 - (i))

/* Most pages one registration may pin */
#define KGNI_MEM_MAX_PAGES		(1u << 18)

/**
 * struct kgni_mem_register - ioctl(KGNI_IOC_MEM_REGISTER)
 * @size: in: sizeof(struct kgni_mem_register)
 * @flags: in: 0 for memory the network may write, KGNI_MEM_READONLY for
 *         memory it may only read; KGNI_MEM_USE_GART: map it through the
 *         GART even if the MRT could map it
 * @addr: in: user address of the buffer
 * @len: in: its length in bytes, 1 to KGNI_MEM_MAX_PAGES pages once
 *       rounded out to 4 KiB pages
 * @mem_hndl: out: the memory handle, uGNI's gni_mem_handle_t (qword1,
 *            qword2) in its version 1 layout with its CRC: VA of the first
 *            page, MDH, page count, page size 4 KiB, flags READONLY and
 *            GART or MRT
 * @cq_id: in: 0, or a CQ of this file that receives the remote events
 *         of requests into this memory (the MDD's cqh; uGNI's
 *         dst_cq_hndl)
 * @reserved: in: 0
 * @vmdh_index: in: with KGNI_MEM_VMDH, the vMDH index to register at,
 *              below @vmdh_count, or KGNI_VMDH_ANY for the lowest free
 *              one below it; else 0
 * @vmdh_count: in: with KGNI_MEM_VMDH, the caller's vMDH block size
 *              (uGNI's GNI_SetMddResources), 1 to KGNI_VMDH_ENTRIES;
 *              else 0
 *
 * Pins the pages of [@addr, @addr + @len) (FOLL_LONGTERM), counting them
 * against RLIMIT_MEMLOCK, maps them and gives them a memory domain (MDD)
 * of the file's ptag.  When every 2 MiB piece of the buffer is one
 * physically contiguous, 2 MiB-aligned page (hugetlbfs, transparent huge
 * pages), the MRT maps it, one entry per 2 MiB (handle flag MRT), and
 * the registration takes no GART entry; otherwise, or with
 * KGNI_MEM_USE_GART, or when the MRT is full, the GART does, one 4 KiB
 * entry per page (flag GART), so any user memory qualifies.  Byte
 * @addr + k of the buffer is at remote offset (@addr & 4095) + k of the
 * MDH either way.  Needs a CDM (EPERM).
 * A CQ named by @cq_id cannot be destroyed while the registration holds
 * it (EBUSY).
 *
 * With KGNI_MEM_VMDH the MDD is the vMDH entry @vmdh_index (the handle's
 * MDH is KGNI_VMDH_MDH(@vmdh_index)): EBUSY if it is taken, ENOSPC if
 * KGNI_VMDH_ANY finds no free index below @vmdh_count.  The registration
 * counts against the job's MDDs as any other.
 */
struct kgni_mem_register {
	__u32 size;
	__u32 flags;
	__aligned_u64 addr;
	__aligned_u64 len;
	__aligned_u64 mem_hndl[2];
	__u32 cq_id;
	__u32 reserved;
	__u32 vmdh_index;
	__u32 vmdh_count;
};

/**
 * struct kgni_mem_deregister - ioctl(KGNI_IOC_MEM_DEREGISTER)
 * @size: in: sizeof(struct kgni_mem_deregister)
 * @flags: in: 0
 * @mem_hndl: in: a handle KGNI_IOC_MEM_REGISTER or
 *            KGNI_IOC_MEM_REGISTER_SEGMENTS gave this file
 *
 * Invalidates the MDD, unpins the pages and returns them to
 * RLIMIT_MEMLOCK.  EINVAL for a handle with a bad CRC or not this file's.
 */
struct kgni_mem_deregister {
	__u32 size;
	__u32 flags;
	__aligned_u64 mem_hndl[2];
};

/* Entries of a CQ ring: 2 to KGNI_CQ_MAX_ENTRIES */
#define KGNI_CQ_MAX_ENTRIES		(1u << 16)

/* struct kgni_cq_create flags */
#define KGNI_CQ_BLOCKING		0x1u

/**
 * struct kgni_cq_create - ioctl(KGNI_IOC_CQ_CREATE)
 * @size: in: sizeof(struct kgni_cq_create)
 * @flags: in: 0 for a CQ that is only polled, KGNI_CQ_BLOCKING for one
 *         that raises an interrupt per event, so that KGNI_IOC_CQ_WAIT
 *         can sleep on it (uGNI's GNI_CQ_BLOCKING)
 * @entries: in: ring entries, 2 to KGNI_CQ_MAX_ENTRIES (one slot stays
 *           free: a ring holds @entries - 1 events)
 * @cq_id: out: the CQ (1 to 1023; the device's CQ 0 stays unused)
 * @ring_offset: out: mmap offset of the ring (@ring_size bytes of 8-byte
 *               entries, gemini_nic.h GEMINI_CQE_*; the device writes an
 *               entry with a non-zero source, the consumer zeroes it once
 *               taken so that the slot reads empty on the next lap)
 * @ring_size: out: bytes of the ring mapping, @entries * 8 rounded up to
 *             the page size
 * @user_offset: out: mmap offset of the CQ's user page (4 KiB, uncached):
 *               its first qword reads rd_index (bits 28..0) and wr_index
 *               (60..32); the consumer writes rd_index there
 *
 * Makes an enabled CQ; with KGNI_CQ_BLOCKING its events interrupt.
 */
struct kgni_cq_create {
	__u32 size;
	__u32 flags;
	__u32 entries;
	__u32 cq_id;
	__aligned_u64 ring_offset;
	__aligned_u64 ring_size;
	__aligned_u64 user_offset;
};

/**
 * struct kgni_cq_destroy - ioctl(KGNI_IOC_CQ_DESTROY)
 * @size: in: sizeof(struct kgni_cq_destroy)
 * @flags: in: 0
 * @cq_id: in: a CQ of this file
 * @reserved: in: 0
 *
 * Disables the CQ, removes every mapping of its ring and user page, and
 * frees it.  EBUSY while an FMA descriptor, a registration or an RDMA post
 * in flight of the file uses it.
 */
struct kgni_cq_destroy {
	__u32 size;
	__u32 flags;
	__u32 cq_id;
	__u32 reserved;
};

/* Bytes of each FMA window that mmap gives (the window is 1 GiB) */
#define KGNI_FMA_MAP_SIZE		(4u << 20)

/**
 * struct kgni_fma_alloc - ioctl(KGNI_IOC_FMA_ALLOC)
 * @size: in: sizeof(struct kgni_fma_alloc)
 * @flags: in: 0
 * @cq_id: in: a CQ of this file, the descriptor's cq_hndl (local events)
 * @fma_id: out: the general FMA descriptor, 0 to 63
 * @user_offset: out: mmap offset of the descriptor's user alias page
 *               (4 KiB, uncached)
 * @put_wc_offset: out: mmap offset of the PUT window, write-combining
 * @put_uc_offset: out: mmap offset of the PUT window, uncached
 * @get_offset: out: mmap offset of the GET window, uncached
 * @window_size: out: bytes of each window mmap gives, KGNI_FMA_MAP_SIZE
 *               (the first part of the 1 GiB window; move the base offset
 *               to reach further)
 *
 * Takes a free descriptor and programs its privileged fields: src_ptag
 * and dest_ptag the file's ptag, cq_hndl @cq_id, FMA enable, no NTT, the
 * privilege mask at Gemini's default (GEMINI_FMA_PRIV_DEFAULT).  The user
 * fields start at 0.  Needs a CDM (EPERM).
 */
struct kgni_fma_alloc {
	__u32 size;
	__u32 flags;
	__u32 cq_id;
	__u32 fma_id;
	__aligned_u64 user_offset;
	__aligned_u64 put_wc_offset;
	__aligned_u64 put_uc_offset;
	__aligned_u64 get_offset;
	__aligned_u64 window_size;
};

/**
 * struct kgni_fma_free - ioctl(KGNI_IOC_FMA_FREE)
 * @size: in: sizeof(struct kgni_fma_free)
 * @flags: in: 0
 * @fma_id: in: a descriptor of this file
 * @reserved: in: 0
 *
 * Disables the descriptor, removes every mapping of its pages, resets its
 * fields and privilege mask, and frees it.
 */
struct kgni_fma_free {
	__u32 size;
	__u32 flags;
	__u32 fma_id;
	__u32 reserved;
};

/**
 * struct kgni_cq_wait - ioctl(KGNI_IOC_CQ_WAIT)
 * @size: in: sizeof(struct kgni_cq_wait)
 * @flags: in: 0
 * @cq_id: in: a CQ of this file made with KGNI_CQ_BLOCKING (EINVAL
 *         otherwise)
 * @timeout_ms: in: longest wait in ms; 0xffffffff waits without limit
 *
 * Sleeps until the CQ holds an event the consumer has not taken, that is
 * until its write index differs from the read index the consumer last
 * wrote to the user page.  Returns at once if it already does.
 * ETIMEDOUT when @timeout_ms passes first; EINTR on a signal; EINVAL if
 * the CQ is destroyed meanwhile.  The events themselves are read from
 * the mapped ring, as without waiting.
 */
struct kgni_cq_wait {
	__u32 size;
	__u32 flags;
	__u32 cq_id;
	__u32 timeout_ms;
};

#define KGNI_CQ_WAIT_FOREVER		0xffffffffu

/* struct kgni_rdma_post flags */
#define KGNI_RDMA_FENCE			0x1u
#define KGNI_RDMA_SINGLE_CHANNEL	0x2u

/* struct kgni_rdma_post type */
#define KGNI_RDMA_PUT			1u
#define KGNI_RDMA_GET			2u

/* struct kgni_rdma_post events */
#define KGNI_RDMA_EV_LOCAL		0x1u
#define KGNI_RDMA_EV_GLOBAL		0x2u
#define KGNI_RDMA_EV_REMOTE		0x4u

/* struct kgni_rdma_post dlvr_mode: uGNI's GNI_DLVMODE_NO_* bits */
#define KGNI_RDMA_DLVR_NO_ADAPT		0x1u
#define KGNI_RDMA_DLVR_NO_HASH		0x2u
#define KGNI_RDMA_DLVR_NO_RADAPT	0x4u

/* Longest transfer, and most posts in flight per file */
#define KGNI_RDMA_MAX_LENGTH		0xffffffffull
#define KGNI_RDMA_MAX_POSTS		64

/**
 * struct kgni_rdma_post - ioctl(KGNI_IOC_RDMA_POST)
 * @size: in: sizeof(struct kgni_rdma_post)
 * @flags: in: KGNI_RDMA_SINGLE_CHANNEL to use the file's own BTE channel
 *         (uGNI's GNI_CDM_MODE_BTE_SINGLE_CHANNEL), KGNI_RDMA_FENCE (only
 *         with KGNI_RDMA_SINGLE_CHANNEL) so that later transfers of that
 *         channel start only after this one and every earlier one have
 *         completed (uGNI's GNI_RDMAMODE_FENCE)
 * @type: in: KGNI_RDMA_PUT (local to remote) or KGNI_RDMA_GET (remote to
 *        local)
 * @events: in: KGNI_RDMA_EV_* bits: LOCAL (an event with @local_data in
 *          @cq_id when the local side is done), GLOBAL (an event with
 *          @global_data in @cq_id when the whole transfer is done), REMOTE
 *          (an event with @global_data in the CQ of the remote
 *          registration, after the data)
 * @remote_pe: in: physical PE of the target (gemini_hw.h GEMINI_PE_*)
 * @cq_id: in: a CQ of this file; it receives the local and global
 *         events and the transfer's one error event
 * @dlvr_mode: in: KGNI_RDMA_DLVR_* bits
 * @reserved: in: 0
 * @local_addr: in: address of the local buffer in the terms of
 *              @local_mem_hndl (a user address; an offset for a segmented
 *              registration, whose VA is 0), inside a registration of
 *              this file
 * @local_mem_hndl: in: the handle of that registration
 * @remote_addr: in: address at the target, inside @remote_mem_hndl's
 *               registration (its offset is @remote_addr minus the
 *               handle's VA)
 * @remote_mem_hndl: in: a handle the target's registration gave
 * @length: in: bytes, 1 to KGNI_RDMA_MAX_LENGTH; a GET needs @local_addr,
 *          @remote_addr and @length multiples of 4 (EINVAL)
 * @local_data: in: 56 bits: data of the LOCAL event
 * @global_data: in: 56 bits: data of the GLOBAL and REMOTE events
 * @channel: out: the BTE channel the transfer went to
 * @slot: out: its TX descriptor
 *
 * Checks the request against the file's domain and registrations, fills
 * a BTE TX descriptor as Cray's driver does (Documentation/abi.rst) and
 * rings its channel; the transfer runs in the NIC and ends with its
 * events, or with exactly one error event whose status names the
 * failure.  Needs a CDM (EPERM).  @cq_id cannot be destroyed while a
 * post uses it (EBUSY).
 */
struct kgni_rdma_post {
	__u32 size;
	__u32 flags;
	__u32 type;
	__u32 events;
	__u32 remote_pe;
	__u32 cq_id;
	__u32 dlvr_mode;
	__u32 reserved;
	__aligned_u64 local_addr;
	__aligned_u64 local_mem_hndl[2];
	__aligned_u64 remote_addr;
	__aligned_u64 remote_mem_hndl[2];
	__aligned_u64 length;
	__aligned_u64 local_data;
	__aligned_u64 global_data;
	__u32 channel;
	__u32 slot;
};

/* Most segments of one KGNI_IOC_MEM_REGISTER_SEGMENTS */
#define KGNI_MEM_MAX_SEGMENTS		4096

/**
 * struct kgni_mem_segment - one piece of a segmented registration
 * @addr: user address
 * @len: bytes
 */
struct kgni_mem_segment {
	__aligned_u64 addr;
	__aligned_u64 len;
};

/**
 * struct kgni_mem_register_segments - ioctl(KGNI_IOC_MEM_REGISTER_SEGMENTS)
 * @size: in: sizeof(struct kgni_mem_register_segments)
 * @flags: in: 0, KGNI_MEM_READONLY, KGNI_MEM_VMDH, as for
 *         KGNI_IOC_MEM_REGISTER
 * @segments: in: user pointer to @nsegs struct kgni_mem_segment
 * @nsegs: in: 1 to KGNI_MEM_MAX_SEGMENTS
 * @cq_id: in: as for KGNI_IOC_MEM_REGISTER
 * @mem_hndl: out: the handle, as KGNI_IOC_MEM_REGISTER's but with VA 0
 * @reserved: in: 0
 * @vmdh_index: in: as for KGNI_IOC_MEM_REGISTER (KGNI_MEM_VMDH)
 * @vmdh_count: in: as for KGNI_IOC_MEM_REGISTER (KGNI_MEM_VMDH)
 *
 * Registers the segments as one memory domain in which they follow each
 * other: offset 0 is the first byte of the first segment's first page,
 * and each segment starts where the previous one's last page ends.  Every
 * segment but the first must start on a page, and every one but the last
 * must end on one (EINVAL), so that offsets are the segments' bytes
 * concatenated.  Pins and counts pages as KGNI_IOC_MEM_REGISTER, at most
 * KGNI_MEM_MAX_PAGES in all.  Deregistered with KGNI_IOC_MEM_DEREGISTER.
 */
struct kgni_mem_register_segments {
	__u32 size;
	__u32 flags;
	__aligned_u64 segments;
	__u32 nsegs;
	__u32 cq_id;
	__aligned_u64 mem_hndl[2];
	__aligned_u64 reserved;
	__u32 vmdh_index;
	__u32 vmdh_count;
};

/**
 * struct kgni_mem_query - ioctl(KGNI_IOC_MEM_QUERY)
 * @size: in: sizeof(struct kgni_mem_query)
 * @flags: in: 0
 * @mem_hndl: in: 0, 0 for the file's first registration, or the handle
 *            of one of its registrations for the one after it; out: the
 *            handle of the registration found
 * @addr: out: the address it was registered with (KGNI_IOC_MEM_REGISTER's
 *        @addr; the first segment's for KGNI_IOC_MEM_REGISTER_SEGMENTS)
 * @len: out: its length in bytes (@len; the segments' lengths added up)
 *
 * Walks the file's registrations in the order they were made, oldest
 * first; registering or deregistering others does not change the order of
 * the rest.  Needs no CDM: a file without one, or whose job was released,
 * holds none.  ENOENT when there is no registration (after the one
 * named); EINVAL for a handle with a bad CRC or that is not a
 * registration of this file (one deregistered since included).  The
 * structure is written back only on success.  uGNI's GNI_MemQueryHndls.
 */
struct kgni_mem_query {
	__u32 size;
	__u32 flags;
	__aligned_u64 mem_hndl[2];
	__aligned_u64 addr;
	__aligned_u64 len;
};

/**
 * struct kgni_ntt_query - ioctl(KGNI_IOC_NTT_QUERY)
 * @size: in: sizeof(struct kgni_ntt_query)
 * @flags: in: 0
 * @gran: out: the granularity of the NIC's NTT, the gran_ntt0 field of
 *        its NTT config register (gemini_nic.h GEMINI_NTT_CFG_GRAN0_*):
 *        the low @gran bits of an NTT index pass through untranslated
 * @reserved: in: 0; out: 0
 *
 * Reads the NIC's NTT configuration as the device holds it; needs no CDM.
 * Nothing configures the NTT yet (kgni's FMA descriptors have NTT
 * disabled, uGNI's GNI_ConfigureNTT is not emulated), so @gran reads what
 * the device's reset left, 0.  uGNI's GNI_GetNttGran.
 */
struct kgni_ntt_query {
	__u32 size;
	__u32 flags;
	__u32 gran;
	__u32 reserved;
};

/*
 * Datagrams: uGNI's GNI_EpPostData family.  Each side of an exchange posts
 * its data and room for the other's; kgni carries the data across the
 * torus in BTE SEND messages to the peer's kgni, which matches it against
 * its own posts (Documentation/abi.rst, "Datagrams").
 */

/* Most bytes of data each way */
#define KGNI_DGRAM_MAX_DATA		128

/* Datagrams of one file not yet collected, at most */
#define KGNI_DGRAM_MAX_POSTS		1024

/* struct kgni_dgram_post flags */
#define KGNI_DGRAM_BOUND		0x1u

/* Wait for ever (timeout_ms) */
#define KGNI_DGRAM_FOREVER		0xffffffffu

/* A datagram's state: the values of uGNI's gni_post_state_t */
#define KGNI_DGRAM_PENDING		0
#define KGNI_DGRAM_COMPLETED		1
/* The target's kgni refused it: it keeps no more early ones from us. */
#define KGNI_DGRAM_ERROR		2
#define KGNI_DGRAM_TIMEOUT		3
#define KGNI_DGRAM_TERMINATED		4

/**
 * struct kgni_dgram_post - ioctl(KGNI_IOC_DGRAM_POST)
 * @size: in: sizeof(struct kgni_dgram_post)
 * @flags: in: KGNI_DGRAM_BOUND, or 0 for a wildcard
 * @ep_key: in: the caller's name for its endpoint: at most one datagram
 *          per key until it is collected
 * @id: in: the caller's datagram id (uGNI's datagram_id), for the ById
 *      calls; ~0 for none (then only @ep_key names it)
 * @peer_pe: in: BOUND: the only peer whose datagram matches, PE ...
 * @peer_inst: in: ... and instance id
 * @data: in: user pointer to the @data_len bytes to send
 * @data_len: in: 0 to KGNI_DGRAM_MAX_DATA
 * @buf_size: in: bytes of the peer's data the caller will take
 * @reserved: in: 0
 *
 * Posts a datagram of the file's CDM (its PE, ptag, cookie and inst_id).
 * A bound datagram is sent to (@peer_pe, @peer_inst) at once; a wildcard
 * waits for any peer's datagram to this CDM.  Two datagrams match when
 * their cookies agree, each targets the other's PE and inst_id (a
 * wildcard: any PE and inst_id) and each is the other's peer if bound;
 * then each side has the other's data.  A datagram that arrives before a
 * matching post waits for it at the target, unless the target already
 * keeps as many early ones from this (PE, ptag, cookie) as it allows, or
 * its queue is full: then it is refused and ends KGNI_DGRAM_ERROR here.
 * Needs a CDM (EPERM); EBUSY while @ep_key has a datagram not collected;
 * EMSGSIZE past KGNI_DGRAM_MAX_DATA; ENOSPC past KGNI_DGRAM_MAX_POSTS;
 * EDQUOT past the datagrams the file's job may have (kgni's job_dgrams
 * parameter); EINVAL for bad flags or a reserved field; EFAULT.
 */
struct kgni_dgram_post {
	__u32 size;
	__u32 flags;
	__aligned_u64 ep_key;
	__aligned_u64 id;
	__u32 peer_pe;
	__u32 peer_inst;
	__aligned_u64 data;
	__u16 data_len;
	__u16 buf_size;
	__u32 reserved;
};

/* struct kgni_dgram_test and kgni_dgram_cancel flags */
#define KGNI_DGRAM_BY_ID		0x1u

/**
 * struct kgni_dgram_test - ioctl(KGNI_IOC_DGRAM_TEST)
 * @size: in: sizeof(struct kgni_dgram_test)
 * @flags: in: KGNI_DGRAM_BY_ID to name the datagram by @id, else by
 *         @ep_key
 * @ep_key: in: as posted
 * @id: in: as posted (BY_ID; ~0 names none)
 * @timeout_ms: in: 0 to return at once, else wait up to this long for the
 *              datagram to end (KGNI_DGRAM_FOREVER: no limit)
 * @state: out: KGNI_DGRAM_*
 * @remote_pe: out: COMPLETED: the peer's PE
 * @remote_inst: out: COMPLETED: the peer's inst_id
 * @buf: in: user pointer to the post's buf_size bytes for the peer's data
 * @recv_len: out: COMPLETED: bytes the peer sent (only min(@recv_len,
 *            buf_size) are written to @buf)
 * @reserved16: in: 0
 * @reserved: in: 0
 *
 * Reports a datagram's state; one that has ended (COMPLETED, TIMEOUT: its
 * peer could not be reached, TERMINATED: cancelled) is collected: its
 * key is free again.  ENOENT if there is no such datagram; ETIMEDOUT when
 * the wait ran out (state PENDING); EINTR.
 */
struct kgni_dgram_test {
	__u32 size;
	__u32 flags;
	__aligned_u64 ep_key;
	__aligned_u64 id;
	__u32 timeout_ms;
	__u32 state;
	__u32 remote_pe;
	__u32 remote_inst;
	__aligned_u64 buf;
	__u16 recv_len;
	__u16 reserved16;
	__u32 reserved;
};

/**
 * struct kgni_dgram_probe - ioctl(KGNI_IOC_DGRAM_PROBE)
 * @size: in: sizeof(struct kgni_dgram_probe)
 * @flags: in: 0
 * @timeout_ms: in: as for KGNI_IOC_DGRAM_TEST
 * @state: out: the datagram's state
 * @ep_key: out: its key
 * @id: out: its id
 * @remote_pe: out: COMPLETED: the peer's PE
 * @remote_inst: out: COMPLETED: the peer's inst_id
 *
 * The file's first datagram that has ended and is not collected, in the
 * order they ended; it stays until KGNI_IOC_DGRAM_TEST collects it.
 * ENOENT if none; ETIMEDOUT when the wait ran out; EINTR.
 */
struct kgni_dgram_probe {
	__u32 size;
	__u32 flags;
	__u32 timeout_ms;
	__u32 state;
	__aligned_u64 ep_key;
	__aligned_u64 id;
	__u32 remote_pe;
	__u32 remote_inst;
};

/**
 * struct kgni_dgram_cancel - ioctl(KGNI_IOC_DGRAM_CANCEL)
 * @size: in: sizeof(struct kgni_dgram_cancel)
 * @flags: in: KGNI_DGRAM_BY_ID or 0, as for KGNI_IOC_DGRAM_TEST
 * @ep_key: in
 * @id: in (BY_ID)
 *
 * Cancels a pending datagram; it is then collected with
 * KGNI_IOC_DGRAM_TEST.  One that sent nothing ends TERMINATED at once.
 * One that went to its peer ends when the peer's node has answered:
 * TERMINATED once the peer dropped it, or COMPLETED if a post of the peer
 * had matched it already (both sides then agree); until then it is
 * PENDING.  ENOENT if no such datagram is pending or it was cancelled.
 */
struct kgni_dgram_cancel {
	__u32 size;
	__u32 flags;
	__aligned_u64 ep_key;
	__aligned_u64 id;
};

/**
 * DOC: Error subscriptions
 *
 * KGNI_IOC_ERR_SUBSCRIBE to KGNI_IOC_ERR_PTAG are uGNI's error
 * subscription (GNI_SubscribeErrors() and the calls on its handle): a
 * subscription holds a GNI_ERRMASK_* mask, a ptag filter and a queue of
 * events (struct kgni_err_event, which is gni_error_event_t), and takes
 * the device's error events as a kernel client's subscription does
 * (Documentation/kernel-api.rst, "Errors"): an event of the device (ptag
 * 0) goes to every subscription whose mask has its class; an event of a
 * ptag only to those whose filter is that ptag or 0.  A subscription
 * belongs to the file that made it, is named by the @id the kernel gave
 * (an id names one subscription of the device and is never given again
 * while the device lives; EINVAL for an id no subscription of this file
 * has: another file's, a released one's) and ends with
 * KGNI_IOC_ERR_RELEASE or when the file is released.  Its filter is the
 * ptag of the file's CDM; only CAP_SYS_ADMIN may subscribe without a CDM
 * (KGNI_ERR_ALL_PTAGS: filter 0, every ptag) or set another filter.  A
 * subscription of a CDM whose job was released takes events of no ptag
 * any more.  A file holds at most KGNI_ERR_FILE_SUBS subscriptions, a
 * device KGNI_ERR_USER_SUBS of files (ENOSPC past either).
 */

/* Subscriptions one file may hold; subscriptions of files on a device */
#define KGNI_ERR_FILE_SUBS		4
#define KGNI_ERR_USER_SUBS		64
/* Events a file's subscription may queue */
#define KGNI_ERR_USER_MAX_EEQ		1024
/* The GNI_ERRMASK_* bits */
#define KGNI_ERR_MASK_ALL		0xffu

/**
 * struct kgni_err_event - one error event, uGNI's gni_error_event_t
 * @error_code: vgemini's code (Documentation/kernel-api.rst, "Errors")
 * @error_category: its class, one GNI_ERRMASK_* bit
 * @ptag: the ptag it concerns, 0 for the whole device
 * @serial_number: events this subscription was given so far, this one
 *                 included (a gap: events dropped from a full queue)
 * @timestamp: ns since the epoch (CLOCK_REALTIME)
 * @info_mmrs: the code's details
 */
struct kgni_err_event {
	__u16 error_code;
	__u8 error_category;
	__u8 ptag;
	__u32 serial_number;
	__aligned_u64 timestamp;
	__aligned_u64 info_mmrs[4];
};

/* KGNI_IOC_ERR_SUBSCRIBE flags */
#define KGNI_ERR_ALL_PTAGS		(1u << 0)	/* CAP_SYS_ADMIN, no CDM */

/**
 * struct kgni_err_subscribe - ioctl(KGNI_IOC_ERR_SUBSCRIBE)
 * @size: in: sizeof(struct kgni_err_subscribe)
 * @flags: in: KGNI_ERR_ALL_PTAGS or 0
 * @mask: in: the GNI_ERRMASK_* classes wanted (at most KGNI_ERR_MASK_ALL)
 * @eeq_size: in: events the queue holds, 1 to KGNI_ERR_USER_MAX_EEQ; when
 *            it is full the oldest event goes
 * @id: out: the subscription, never 0, unique on the device (must be 0
 *       on input)
 * @reserved: in: 0
 *
 * Without KGNI_ERR_ALL_PTAGS the file must be attached to a CDM (EPERM
 * otherwise, ENOLINK once its job was released) and the filter is its
 * ptag; with it, EPERM without CAP_SYS_ADMIN.  ENOSPC past
 * KGNI_ERR_FILE_SUBS or KGNI_ERR_USER_SUBS; ENOMEM.
 */
struct kgni_err_subscribe {
	__u32 size;
	__u32 flags;
	__u32 mask;
	__u32 eeq_size;
	__u32 id;
	__u32 reserved;
};

/**
 * struct kgni_err_release - ioctl(KGNI_IOC_ERR_RELEASE)
 * @size: in: sizeof(struct kgni_err_release)
 * @flags: in: 0
 * @id: in: the subscription
 * @reserved: in: 0
 *
 * Ends the subscription; its queued events are dropped.  EBUSY while a
 * thread waits in KGNI_IOC_ERR_WAIT on it (the subscription stays).
 */
struct kgni_err_release {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 reserved;
};

/* KGNI_IOC_ERR_MASK flags */
#define KGNI_ERR_MASK_SET		(1u << 0)

/**
 * struct kgni_err_mask - ioctl(KGNI_IOC_ERR_MASK)
 * @size: in: sizeof(struct kgni_err_mask)
 * @flags: in: KGNI_ERR_MASK_SET or 0
 * @id: in: the subscription
 * @mask: in: KGNI_ERR_MASK_SET: the new mask (at most KGNI_ERR_MASK_ALL),
 *        for the events after the call; 0 otherwise
 * @old_mask: out: the mask before the call
 * @reserved: in: 0
 */
struct kgni_err_mask {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 mask;
	__u32 old_mask;
	__u32 reserved;
};

/* KGNI_IOC_ERR_WAIT flags and out state */
#define KGNI_ERR_WAIT_BLOCK		(1u << 0)
#define KGNI_ERR_WAIT_TIMED_OUT		(1u << 0)	/* @state */

/**
 * struct kgni_err_wait - ioctl(KGNI_IOC_ERR_WAIT)
 * @size: in: sizeof(struct kgni_err_wait)
 * @flags: in: KGNI_ERR_WAIT_BLOCK or 0
 * @id: in: the subscription
 * @events_size: in: room at @events, 1 to KGNI_ERR_USER_MAX_EEQ events
 * @timeout_ms: in: KGNI_ERR_WAIT_BLOCK: once events are there, how long
 *              to wait for more until @events_size are taken (0: not);
 *              0 otherwise
 * @num_events: out: the events written to @events, oldest first
 * @state: out: KGNI_ERR_WAIT_TIMED_OUT: @timeout_ms ran out and no event
 *         came during it
 * @reserved: in: 0
 * @events: in: user pointer to @events_size struct kgni_err_event
 *
 * Without KGNI_ERR_WAIT_BLOCK takes the queued events (@num_events 0 if
 * none).  With it, first sleeps (interruptibly, without limit) until an
 * event is queued: EINTR if a signal comes first; ENODEV if the device
 * goes.  A signal during @timeout_ms ends the wait with the events taken.
 * @events is written (zeroed) before any event is taken: EFAULT there
 * loses none.
 */
struct kgni_err_wait {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 events_size;
	__u32 timeout_ms;
	__u32 num_events;
	__u32 state;
	__u32 reserved;
	__aligned_u64 events;
};

/**
 * struct kgni_err_ptag - ioctl(KGNI_IOC_ERR_PTAG)
 * @size: in: sizeof(struct kgni_err_ptag)
 * @flags: in: 0
 * @id: in: the subscription
 * @ptag: in: the new filter, 0 to 255 (0: every ptag); EPERM without
 *        CAP_SYS_ADMIN unless it is the ptag of the file's CDM
 */
struct kgni_err_ptag {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 ptag;
};

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
#define KGNI_IOC_ERR_SUBSCRIBE		_IO(KGNI_IOC_MAGIC, KGNI_CMD_ERR_SUBSCRIBE)
#define KGNI_IOC_ERR_RELEASE		_IO(KGNI_IOC_MAGIC, KGNI_CMD_ERR_RELEASE)
#define KGNI_IOC_ERR_MASK		_IO(KGNI_IOC_MAGIC, KGNI_CMD_ERR_MASK)
#define KGNI_IOC_ERR_WAIT		_IO(KGNI_IOC_MAGIC, KGNI_CMD_ERR_WAIT)
#define KGNI_IOC_ERR_PTAG		_IO(KGNI_IOC_MAGIC, KGNI_CMD_ERR_PTAG)
#define KGNI_IOC_JOB_SUSPEND		_IO(KGNI_IOC_MAGIC, KGNI_CMD_JOB_SUSPEND)
#define KGNI_IOC_JOB_RESUME		_IO(KGNI_IOC_MAGIC, KGNI_CMD_JOB_RESUME)

#endif /* KGNI_IOCTL_H */
