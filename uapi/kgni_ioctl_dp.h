/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * kgni_ioctl_dp.h: the data path's ioctls: jobs and CDMs,
 * memory registration, CQs, FMA descriptors, RDMA posts and the
 * queries of registrations and of the NTT (KGNI_IOC_JOB_CONFIGURE to
 * KGNI_IOC_MEM_REGISTER_SEGMENTS, KGNI_IOC_MEM_QUERY, KGNI_IOC_NTT_QUERY,
 * KGNI_IOC_JOB_SUSPEND, KGNI_IOC_JOB_RESUME).
 *
 * Part of the ioctl interface of /dev/kgniN (Documentation/abi.rst): the
 * callers include kgni_ioctl.h, which has the general format, the errnos,
 * the command numbers and the KGNI_IOC_* definitions and includes this
 * file.  Split from it by role so that no header is over 800 lines.  It
 * needs only <linux/types.h>.
 */
#ifndef KGNI_IOCTL_DP_H
#define KGNI_IOCTL_DP_H

#include <linux/types.h>

/* Data path: jobs, CDMs, memory, CQs, FMA descriptors */

/* struct kgni_job_configure flags */
#define KGNI_JOB_RELEASE		0x1u
#define KGNI_JOB_BY_ID			0x2u
#define KGNI_JOB_LIMITS			0x4u

/* struct kgni_job_configure @uid with KGNI_JOB_BY_ID: any user */
#define KGNI_JOB_ANY_UID		0xffffffffu

/* A limit of struct kgni_job_configure that is not set (uGNI's -1) */
#define KGNI_JOB_NO_LIMIT		(-1)

/* struct kgni_job_configure @ntt_ctrl: free the NTT block with the job */
#define KGNI_JOB_NTT_CLEANUP		0x1u

/**
 * struct kgni_job_configure - ioctl(KGNI_IOC_JOB_CONFIGURE)
 * @size: in: sizeof(struct kgni_job_configure); the first version ended
 *        with @reserved2
 * @flags: in: 0 to allow (@ptag, @cookie) on this NIC, KGNI_JOB_RELEASE
 *         to withdraw it; KGNI_JOB_BY_ID: the cgroup is named by
 *         @job_id, not @cgroup_fd; KGNI_JOB_LIMITS: the limit fields are
 *         given
 * @ptag: in: protection tag, 3 to 253: uGNI's user ptags
 *        (GNI_PTAG_USER_START to GNI_PTAG_USER_END of gni_pub.h); the
 *        others are the kernel's (Documentation/kernel-api.rst)
 * @cookie: in: the job's cookie
 * @uid: in (allow): the only user id (in the caller's user namespace)
 *       whose processes may attach; KGNI_JOB_ANY_UID with KGNI_JOB_BY_ID:
 *       any user in the cgroup
 * @cgroup_fd: in (allow): an open directory of a cgroup v2 hierarchy; only
 *             processes in that cgroup or below it may attach.  The
 *             launcher creates one per job and starts the job's ranks in
 *             it (Documentation/jobs.rst, "Job isolation").  Ignored for
 *             KGNI_JOB_RELEASE and with KGNI_JOB_BY_ID.
 * @reserved: in: 0
 * @reserved2: in: 0
 * @job_id: in with KGNI_JOB_BY_ID: the id of the job's cgroup v2 (the
 *          inode number of its directory; uGNI's job container id)
 * @mdd_limit: in with KGNI_JOB_LIMITS: registrations the job's domains
 *             may hold on this NIC (KGNI_JOB_NO_LIMIT: the module's
 *             job_mdds)
 * @mrt_limit: in: accepted, not enforced (MRT entries are the NIC's)
 * @gart_limit: in: GART entries (KGNI_JOB_NO_LIMIT: job_gart)
 * @fma_limit: in: FMA descriptors (KGNI_JOB_NO_LIMIT: job_fmas)
 * @bte_limit: in: accepted, not enforced (each file has
 *             KGNI_RDMA_MAX_POSTS)
 * @cq_limit: in: CQs (KGNI_JOB_NO_LIMIT: KGNI_MAX_CQS_PER_JOB)
 * @ntt_ctrl: in: KGNI_JOB_NTT_CLEANUP or 0
 * @ntt_base: in: the first entry of an NTT block (KGNI_IOC_NTT_CONFIG)
 *            the job's domains address their peers through
 * @ntt_size: in: its entries; KGNI_JOB_NO_LIMIT or 0 with @ntt_base
 *            KGNI_JOB_NO_LIMIT: none
 * @reserved3: in: 0
 *
 * The launcher's job set-up; needs CAP_SYS_ADMIN (else EPERM).  A @ptag
 * outside 3 to 253 is EINVAL.  Allowing a pair already allowed is EBUSY,
 * unless KGNI_JOB_BY_ID names the same cgroup: then only the limits
 * change (an NTT block once given cannot: EOPNOTSUPP); allowing a ptag
 * that another job or a kernel client's CDM holds (whatever the cookie)
 * is EBUSY too.  ENOSPC when the NIC's table of KGNI_MAX_JOBS pairs
 * (kernel clients' included) is full; EBADF when @cgroup_fd is no cgroup
 * v2 directory, ENOENT when @job_id is no cgroup; ENXIO when no NTT block
 * is (@ntt_base, @ntt_size); a limit below -1 is EINVAL.  Releasing a
 * pair not allowed is EINVAL, a kernel client's pair EPERM.  Releasing
 * revokes every attachment to the pair: those files' FMA descriptors
 * stop, their registrations become invalid, and their data-path ioctls
 * fail with ENOLINK from then on.  A job whose domains use an NTT block
 * name their peers by index into it (Documentation/abi.rst, "NTT").
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
	__aligned_u64 job_id;
	__s32 mdd_limit;
	__s32 mrt_limit;
	__s32 gart_limit;
	__s32 fma_limit;
	__s32 bte_limit;
	__s32 cq_limit;
	__u32 ntt_ctrl;
	__s32 ntt_base;
	__s32 ntt_size;
	__u32 reserved3;
};

#define KGNI_MAX_JOBS			32

/**
 * struct kgni_job_suspend - ioctl(KGNI_IOC_JOB_SUSPEND, KGNI_IOC_JOB_RESUME)
 * @size: in: sizeof(struct kgni_job_suspend)
 * @flags: in: 0
 * @job_id: in: the job's id, as uGNI's GNI_SuspendJob takes it; not
 *          checked: @ptag and @cookie name the job
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
 * 0 after reset, then what the first KGNI_IOC_NTT_CONFIG set.  uGNI's
 * GNI_GetNttGran.
 */
struct kgni_ntt_query {
	__u32 size;
	__u32 flags;
	__u32 gran;
	__u32 reserved;
};

/* struct kgni_ntt_config flags */
#define KGNI_NTT_CLEAR			0x1u
#define KGNI_NTT_CLEAR_UNUSED		0x2u

/**
 * struct kgni_ntt_config - ioctl(KGNI_IOC_NTT_CONFIG)
 * @size: in: sizeof(struct kgni_ntt_config)
 * @flags: in: 0 to take a block of @group_size entries and fill it from
 *         @table; KGNI_NTT_CLEAR to zero and free the block (@base,
 *         @group_size); KGNI_NTT_CLEAR_UNUSED to zero and free every block
 *         no job uses (@base, @group_size, @gran and @table 0)
 * @base: out: the new block's first entry; in with KGNI_NTT_CLEAR
 * @group_size: in: entries, 1 to GEMINI_NUM_NTT
 * @gran: in: the NIC's granularity, 0 to 5: the low @gran bits of an
 *        index pass through, an entry stands for 2^@gran PEs.  The first
 *        block sets it; later ones must give the same
 * @reserved: in: 0
 * @table: in: user address of @group_size __u32 physical PEs (18 bits)
 *
 * uGNI's GNI_ConfigureNTT; needs CAP_SYS_ADMIN (else EPERM).  The block
 * takes the lowest free entries that fit (ENOSPC if none), written to
 * both banks of the NIC.  EINVAL for bad flags or fields, a PE over 18
 * bits, another granularity while blocks exist, or no block (@base,
 * @group_size) to clear; EBUSY to clear a block a job uses (it is freed
 * with the job if the job said KGNI_JOB_NTT_CLEANUP, else by
 * KGNI_NTT_CLEAR once no job uses it).
 */
struct kgni_ntt_config {
	__u32 size;
	__u32 flags;
	__u32 base;
	__u32 group_size;
	__u32 gran;
	__u32 reserved;
	__aligned_u64 table;
};

/* struct kgni_bi_config flags */
#define KGNI_BI_SET			0x1u

/* struct kgni_bi_config modes: uGNI's GNI_BI_FLAG_* */
#define KGNI_BI_APPLY_NOW		0x1u
#define KGNI_BI_APPLY_AFTER_THROTTLE	0x2u
#define KGNI_BI_USE_DEFAULT_SETTINGS	0x4u
#define KGNI_BI_VALUE_IS_NUM_ORB_ENTRIES 0x8u

/* Limits of a setting: a percentage, or ORB entries */
#define KGNI_BI_BW_MAX			100
#define KGNI_BI_ORB_MAX			992

/**
 * struct kgni_bi_config - ioctl(KGNI_IOC_BI_CONFIG)
 * @size: in: sizeof(struct kgni_bi_config)
 * @flags: in: 0 to read the NIC's balanced injection, KGNI_BI_SET to set
 *         it first
 * @modes: in (set): KGNI_BI_* modes; else 0
 * @bw: in (set): injection bandwidth, 0 to KGNI_BI_BW_MAX percent, or with
 *      KGNI_BI_VALUE_IS_NUM_ORB_ENTRIES 0 to KGNI_BI_ORB_MAX entries (0:
 *      the least, one entry); ignored with KGNI_BI_USE_DEFAULT_SETTINGS
 * @aot_bw: in (set): the always-on throttle's bandwidth, 0 to
 *          KGNI_BI_BW_MAX percent (kept and reported, no effect here)
 * @reserved: in: 0
 * @current_bw: out: the bandwidth in force, percent
 * @current_aot_bw: out: the always-on throttle's
 * @current_norbs: out: the ORB entries in force
 * @current_modes: out: the modes of the last setting
 * @sys_def_bw: out: the system default, KGNI_BI_BW_MAX
 * @sys_def_aot_bw: out: its always-on throttle's, KGNI_BI_BW_MAX
 * @cle_seqnum: out: settings made since probe
 * @hss_seqnum: out: settings applied (always @cle_seqnum: at once)
 * @reserved2: in: 0; out: 0
 *
 * uGNI's GNI_GetBIConfig and GNI_SetBIConfig; any process may call it,
 * no CDM needed (applications set it at start on a Cray).  The NIC then
 * keeps at most @current_norbs FMA requests in flight
 * (VGEMINI_CTL_ORB_LIMIT); the system default comes back when the NIC's
 * last job is released.  EINVAL for bad flags, modes or values.
 */
struct kgni_bi_config {
	__u32 size;
	__u32 flags;
	__u16 modes;
	__u16 bw;
	__u16 aot_bw;
	__u16 reserved;
	__u16 current_bw;
	__u16 current_aot_bw;
	__u16 current_norbs;
	__u16 current_modes;
	__u16 sys_def_bw;
	__u16 sys_def_aot_bw;
	__u32 cle_seqnum;
	__u32 hss_seqnum;
	__u32 reserved2;
};

#endif /* KGNI_IOCTL_DP_H */
