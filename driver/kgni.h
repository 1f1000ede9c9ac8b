/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kgni: driver for the vgemini emulation of the Cray Gemini NIC.
 *
 * Shared declarations of the driver's files:
 *   kgni_main.c      module init and exit, the "gni" class, the char device
 *   kgni_pci.c       PCI probe and remove, MSI-X vectors and their handler
 *   kgni_selftest.c  the self-test run at probe
 *   kgni_port.c      router ports: names, states, link-change interrupt
 *   kgni_sysfs.c     attributes of /sys/class/gni/kgniN
 *   kgni_ioctl.c     ioctls of /dev/kgniN: checks and dispatch, removal
 *   kgni_diag.c      the diagnostic ping and its interrupt
 *   kgni_counters.c  router and NIC counters: ioctls, sysfs and debugfs
 *   kgni_job.c       the data path's jobs and CDMs: who may attach,
 *                    revoking a released job, releasing a file
 *   kgni_job_suspend.c  job suspension
 *   kgni_mem.c       memory registration: making, finding, undoing one
 *   kgni_mem_map.c   the NIC's tables, the MRT and the GART: probe,
 *                    remove, mapping a registration's pages
 *   kgni_mem_user.c  registrations of user memory: pinning, the ioctls
 *   kgni_ntt.c       the NTT: a launcher's blocks, a job's, translating PEs
 *   kgni_bi.c        balanced injection: the NIC's cap of requests in flight
 *   kgni_cq.c        CQs and their blocking waits
 *   kgni_fma.c       FMA descriptors
 *   kgni_bte.c       the BTE's channels and RDMA posts
 *   kgni_mmap.c      mmap of the data path's objects, the mappings' lifetime
 *   kgni_kdom.c      the kernel API's domains and NICs, errno, quiesce
 *   kgni_err.c       the kernel API's error subscriptions and events
 *   kgni_err_user.c  user space's error subscriptions, debugfs
 *                    kgniN/inject_error
 *   kgni_rca.c       Cray's RCA for kernel clients: node events from the
 *                    fabric, the node list, NID <-> NIC address
 * The data path's files share kgni_dp.h besides, and the kernel API's
 * kgni_kapi.h.
 */
#ifndef KGNI_H
#define KGNI_H

#include <linux/atomic.h>
#include <linux/cdev.h>
#include <linux/completion.h>
#include <linux/device.h>
#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/ktime.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/rwsem.h>
#include <linux/spinlock.h>
#include <linux/version.h>
#include <linux/workqueue.h>
#include <linux/wait.h>

#include "gemini_hw.h"
#include "gemini_nic.h"
#include "kgni_ioctl.h"
#include "vgemini_ctl.h"
#include "vgemini_names.h"

/*
 * Driver version, encoded as GNI_VERSION_CHECK(major, minor, code) is:
 * (major << 24) | (minor << 16) | code.  Clients such as Lustre's gnilnd
 * compare kgni_driver_version against 0x004400b9 (Gemini) to enable their
 * thread-safe mode.
 */
#define KGNI_DRV_MAJOR		0x00
#define KGNI_DRV_MINOR		0x44	/* Gemini */
#define KGNI_DRV_CODE		0x00b9
#define KGNI_DRV_VERSION	((KGNI_DRV_MAJOR << 24) | \
				 (KGNI_DRV_MINOR << 16) | KGNI_DRV_CODE)

/* Minors reserved for /dev/kgniN; N is also the uGNI device id. */
#define KGNI_MAX_DEVICES	8

/*
 * struct class callbacks took non-const pointers before these kernels.
 */
#if KERNEL_VERSION(6, 2, 0) <= LINUX_VERSION_CODE
#define KGNI_CONST_DEV		const
#else
#define KGNI_CONST_DEV
#endif
#if KERNEL_VERSION(6, 4, 0) <= LINUX_VERSION_CODE
#define KGNI_CONST_CLASS	const
#else
#define KGNI_CONST_CLASS
#endif

struct kgni_dev;
struct kgni_bte_slot;
struct kgni_dgrams;
struct kgni_ntt;

/**
 * struct kgni_bi - the NIC's balanced injection (kgni_bi.c)
 * @bw: percent in force
 * @aot_bw: the always-on throttle's
 * @norbs: ORB entries in force
 * @modes: of the last setting
 * @cle_seq: settings made
 * @hss_seq: settings applied
 *
 * Protected by dp.lock.
 */
struct kgni_bi {
	u16 bw;
	u16 aot_bw;
	u16 norbs;
	u16 modes;
	u32 cle_seq;
	u32 hss_seq;
};

/**
 * struct kgni_bte_chan - a BTE TX channel as the kernel drives it
 * @ring: the CPU copy of its ring (GEMINI_BTE_TX_DESC_BYTES per slot),
 *        which the device writes each descriptor's status and flags into
 * @ring_dma: its bus address, the channel's cpu_ring_addr
 * @base: its first TX descriptor
 * @count: its slots
 * @head: ring index of the next post; the write index the device was given
 * @tail: ring index of the oldest slot not yet taken back
 * @slot: what the kernel knows of each of its slots (@count entries)
 */
struct kgni_bte_chan {
	__le64 *ring;
	dma_addr_t ring_dma;
	u16 base;
	u16 count;
	u16 head;
	u16 tail;
	struct kgni_bte_slot *slot;
};

/* The quotas a job set-up may give a job of its own (KGNI_JOB_LIMITS) */
enum kgni_job_limit {
	KGNI_LIMIT_MDD,
	KGNI_LIMIT_GART,
	KGNI_LIMIT_FMA,
	KGNI_LIMIT_CQ,
	KGNI_JOB_NLIMITS
};

/**
 * struct kgni_job - a (ptag, cookie) pair a job set-up allowed, or that a
 *                   kernel client's CDM holds
 * @used: the slot holds a pair
 * @kernel: a kernel slot: held by one kernel domain (gni_cdm_attach()),
 *          never attached to by a file nor released by a job set-up
 * @ptag: protection tag
 * @cookie: cookie
 * @gen: tells this job from earlier ones of the slot (never 0)
 * @uid: the user whose processes may attach (INVALID_UID: kernel slot)
 * @cgrp: the cgroup (v2) they must be in, referenced (NULL: kernel slot)
 * @ncq: CQs the job's domains hold on this NIC
 * @suspended: KGNI_IOC_JOB_SUSPEND stopped its traffic (written under
 *             dp.lock, read without it by the waits of &kgni_dp_state.job_wq)
 * @any_uid: any user in @cgrp may attach (KGNI_JOB_ANY_UID)
 * @job_id: the id of @cgrp (uGNI's job container id)
 * @limit: its own quotas by enum kgni_job_limit, KGNI_JOB_NO_LIMIT for
 *         the module's
 * @ntt_base: the first entry of its NTT block, if @ntt_size
 * @ntt_size: the block's entries; 0: its domains name physical PEs
 * @ntt_cleanup: free the block with the job (KGNI_JOB_NTT_CLEANUP)
 */
struct kgni_job {
	bool used;
	bool kernel;
	u8 ptag;
	u32 cookie;
	u32 gen;
	kuid_t uid;
	struct cgroup *cgrp;
	unsigned int ncq;
	bool suspended;
	bool any_uid;
	u64 job_id;
	int limit[KGNI_JOB_NLIMITS];
	u32 ntt_base;
	u32 ntt_size;
	bool ntt_cleanup;
};

/* CQs one file, and one job on one NIC, may hold (EDQUOT past them) */
#define KGNI_MAX_CQS_PER_FILE	64
#define KGNI_MAX_CQS_PER_JOB	256

/**
 * struct kgni_vector - one MSI-X vector
 * @kdev: the device it belongs to
 * @index: MSI-X vector number; Gemini in-band IRQ GEMINI_IRQ_FIRST + @index
 * @count: interrupts received since probe
 */
struct kgni_vector {
	struct kgni_dev *kdev;
	unsigned int index;
	atomic_t count;
};

/**
 * struct kgni_port_cache - last port state logged by the link-change work
 * @state: enum vgemini_port_state
 * @peer: PE learnt by handshake, or VGEMINI_PEER_NONE
 * @changes: the port's change counter
 */
struct kgni_port_cache {
	u32 state;
	u32 peer;
	u32 changes;
};

/**
 * struct kgni_irq_state - the MSI-X vectors (kgni_pci.c, kgni_selftest.c)
 * @nvec: MSI-X vectors in use
 * @link: vector of the link-change interrupt (the last one)
 * @diag: vector of the diagnostic ping's completion (the one before the
 *        last; the last one too when there is only one)
 * @cq: vector of blocking CQs' events: that of Gemini's first CQ
 *      interrupt (GEMINI_IRQ_FIRST_CQ), or @diag's if the device has too
 *      few vectors
 * @vec: the vectors
 * @test: vector the self-test waits for, or -1
 * @test_done: completed when @test fires
 *
 * Set at probe; the other roles read the vector they program.
 */
struct kgni_irq_state {
	unsigned int nvec;
	unsigned int link;
	unsigned int diag;
	unsigned int cq;
	struct kgni_vector vec[GEMINI_NUM_IRQ];
	int test;
	struct completion test_done;
};

/**
 * struct kgni_link_state - ports and fabric as last logged (kgni_port.c,
 *                          kgni_fabric.c)
 * @work: logs port state changes after a link-change interrupt, and
 *        nodes lost or found after a fabric change
 * @port: port states as last logged by @work
 * @fabric_changes: VGEMINI_CTL_FABRIC_CHANGES as @work last read it
 * @reach_known: @reach holds the nodes a routing table reached
 * @reach: those nodes, as last logged by @work (kgni_fabric.c)
 * @quiesced: VGEMINI_CTL_FABRIC_STATE read QUIESCED when @work last read
 *            it (kgni_fabric_quiesced() reads it in any context)
 * @quiesce_start: when @work first saw that quiesce
 * @route_gen: VGEMINI_CTL_ROUTE_GEN as @work last read it
 */
struct kgni_link_state {
	struct work_struct work;
	struct kgni_port_cache port[GEMINI_NUM_TORUS_PORTS];
	u32 fabric_changes;
	bool reach_known;
	DECLARE_BITMAP(reach, GEMINI_MAX_NODES);
	bool quiesced;
	ktime_t quiesce_start;
	u32 route_gen;
};

/**
 * struct kgni_kapi_state - the kernel API's NICs (kgni_kdom.c)
 * @lock: protects @nics and their quiesce callbacks, which are called
 *        under it, and the error subscriptions (&struct kgni_err_state)
 * @nics: the kernel API's NICs attached to this device
 *        (&struct gni_nic, kgni_kdom.c)
 */
struct kgni_kapi_state {
	spinlock_t lock;		/* see above */
	struct list_head nics;
};

/**
 * struct kgni_err_state - error subscriptions (kgni_err.c,
 *                         kgni_err_user.c)
 * @list: the error subscriptions of this device, the kernel API's
 *        and files' (&struct gni_err, kgni_err.c)
 * @nkernel: how many are the kernel API's
 * @nuser: how many are files' (KGNI_IOC_ERR_SUBSCRIBE); these do not
 *         count in @nkernel
 * @last_id: the last id given to a file's subscription; ids come from
 *           this one counter, so that an id names one subscription of
 *           the device and is never given again
 *
 * Protected by &kgni_kapi_state.lock.
 */
struct kgni_err_state {
	struct list_head list;
	unsigned int nkernel;
	unsigned int nuser;
	u32 last_id;
};

/**
 * struct kgni_hold_state - MDH numbers held by kernel clients'
 *                          deregistrations (kgni_mem_hold.c)
 * @list: the holds (&struct kgni_mdh_hold, earliest expiry first;
 *        &kgni_dp_state.lock); they outlive the clients' NICs and go at
 *        remove
 * @work: releases the expired holds; armed for the earliest
 */
struct kgni_hold_state {
	struct list_head list;
	struct delayed_work work;
};

/**
 * struct kgni_kcq_state - kernel CQs with an event handler (kgni_kcq.c)
 * @lock: serialises the changes of @list
 * @list: those CQs (&struct gni_cq), which the interrupt handler walks
 *        under RCU (kgni_kcq_irq())
 */
struct kgni_kcq_state {
	spinlock_t lock;		/* see above */
	struct list_head list;
};

/**
 * struct kgni_diag_state - the diagnostic ping (kgni_diag.c)
 * @lock: serialises diagnostic pings: the device has one slot
 * @wq: woken by the diagnostic interrupt and by remove
 */
struct kgni_diag_state {
	struct mutex lock;		/* one ping at a time */
	wait_queue_head_t wq;
};

/**
 * struct kgni_dp_state - the data path's jobs and domains (kgni_job.c,
 *                        kgni_job_suspend.c)
 * @lock: serialises the data path: @jobs, the allocation maps (those of
 *        &struct kgni_mem_state, &struct kgni_cq_state and &struct
 *        kgni_fma_state), every domain's objects and the programming of
 *        MDDs, CQs, FMAs and the BTE's rings
 * @doms: every &struct kgni_dom (that of each open file and each kernel
 *        NIC), for revoking a released job's
 * @jobs: the allowed (ptag, cookie) pairs
 * @job_gen: the last &struct kgni_job.gen given
 * @job_wq: woken when a job resumes, or the device is gone
 */
struct kgni_dp_state {
	struct mutex lock;		/* see above */
	struct list_head doms;
	struct kgni_job jobs[KGNI_MAX_JOBS];
	u32 job_gen;
	wait_queue_head_t job_wq;
};

/**
 * struct kgni_mem_state - memory registration's tables (kgni_mem.c,
 *                         kgni_mem_map.c, kgni_mem_hold.c, kgni_kmem.c)
 * @lock: a spinlock taken with interrupts off, inside
 *        &kgni_dp_state.lock: every domain's list of registrations and
 *        @dead change under both, and &kgni_dev.mmr is cleared under it,
 *        so that a kernel client's deregistration under a spinlock of its
 *        own finds its registration and invalidates the MDD under it
 *        alone (kgni_mem_kill())
 * @dead: registrations so invalidated, not freed yet (&struct
 *        kgni_mem.dead)
 * @reap_work: frees them (kgni_mem_reap()); holds a reference on the
 *             device while queued
 * @mdd_map: MDHs in use
 * @gart: the GART table the device reads (little-endian entries)
 * @gart_dma: its bus address
 * @gart_entries: its entries
 * @gart_map: GART entries in use
 * @mrt_map: MRT entries in use; NULL if the device refused the MRT page
 *           size (every registration then goes through the GART)
 *
 * The maps are protected by &kgni_dp_state.lock.
 */
struct kgni_mem_state {
	spinlock_t lock;		/* see above */
	struct list_head dead;
	struct work_struct reap_work;
	DECLARE_BITMAP(mdd_map, GEMINI_NUM_MDD);
	__le64 *gart;
	dma_addr_t gart_dma;
	u32 gart_entries;
	unsigned long *gart_map;
	unsigned long *mrt_map;
};

/**
 * struct kgni_cq_state - the data path's CQs (kgni_cq.c)
 * @map: CQs in use (CQ 0 is never given out; &kgni_dp_state.lock)
 * @wq: woken by the blocking CQs' interrupt, by the destruction of a CQ
 *      and by remove; each waiter checks its own CQ
 */
struct kgni_cq_state {
	DECLARE_BITMAP(map, GEMINI_NUM_CQ);
	wait_queue_head_t wq;
};

/**
 * struct kgni_fma_state - FMA descriptors (kgni_fma.c)
 * @map: FMA descriptors in use: the general ones (0 to 63) and the OS
 *       ones (64 to 67, kernel domains only)
 * @drain: FMA descriptors freed but not idle yet (&struct kgni_fma),
 *         each holding its number and its CQ
 * @drain_work: looks at them and at the BTE's orphans while any is left,
 *              without sleeping under &kgni_dp_state.lock
 *
 * @map and @drain are protected by &kgni_dp_state.lock.
 */
struct kgni_fma_state {
	DECLARE_BITMAP(map, GEMINI_FMA_NUM_DESC);
	struct list_head drain;
	struct delayed_work drain_work;
};

/**
 * struct kgni_bte_state - the BTE (kgni_bte.c)
 * @tx: BAR2 from the BTE's TX descriptors to its non-posted control
 *      registers; NULL if not mapped
 * @rx: BAR2 from the BTE's RX descriptors to its RX ring registers
 * @chan: the TX channels, programmed at probe
 * @slots: every TX descriptor's state (&struct kgni_bte_chan.slot points
 *         into it); NULL when the BTE is not set up
 * @stopped: remove has reset the channels: no more posts
 * @rr: the channel the next post that may go anywhere tries first
 * @home_next: the home channel of the next domain set up
 *
 * Protected by &kgni_dp_state.lock.
 */
struct kgni_bte_state {
	void __iomem *tx;
	void __iomem *rx;
	struct kgni_bte_chan chan[GEMINI_NUM_BTE_VC];
	struct kgni_bte_slot *slots;
	bool stopped;
	unsigned int rr;
	unsigned int home_next;
};

/**
 * struct kgni_dg_state - the datagram service's (kgni_dgram.c,
 *                        kgni_dgram_proto.c, kgni_dgram_xport.c)
 * @lock: protects the datagram state (@svc and what it points to,
 *        @ended); a spinlock taken with interrupts off, inside
 *        &kgni_dp_state.lock, so that the datagram calls that do not
 *        wait run in any context (kgni_dgram.c tells what it covers)
 * @svc: the datagram service (kgni_dgram.c); NULL when not set up, and
 *       from kgni_dg_fini() on (set and cleared under
 *       &kgni_dp_state.lock and @lock both)
 * @work: reads its RX ring and its TX ends, sends what waits; scheduled
 *        by their interrupts and by the calls that cannot send
 * @wq: woken when a datagram ends and at remove
 * @ended: datagrams ended so far (a waiter's "something changed")
 * @on: the service runs (a waiter's "not removed")
 */
struct kgni_dg_state {
	spinlock_t lock;		/* see above */
	struct kgni_dgrams *svc;
	struct delayed_work work;
	wait_queue_head_t wq;
	u64 ended;
	bool on;
};

/**
 * struct kgni_dev - one Gemini NIC
 * @dev: the class device /sys/class/gni/kgniN; owns this structure
 * @cdev: the character device /dev/kgniN
 * @pdev: the PCI function
 * @minor: N in kgniN
 * @ctl: BAR0, the control block (vgemini_ctl.h); NULL once removed
 * @nic_phys: bus address of BAR2, the NIC window
 * @mmr: BAR2 from GEMINI_MMR_MRT to the last CQ descriptor; NULL if
 *       removed (cleared under &kgni_mem_state.lock)
 * @fma_priv: the FMA descriptors' privileged pages; NULL if removed
 * @ctl_rwsem: held for reading by every ioctl while it uses the device,
 *             taken for writing by remove to wait for them
 * @gone: set by remove; ioctls that see it fail with -ENODEV
 * @debugfs: the device's debugfs directory, kgniN
 * @irq: the MSI-X vectors (kgni_pci.c)
 * @link: ports and fabric (kgni_port.c, kgni_fabric.c)
 * @kapi: the kernel API's NICs (kgni_kdom.c)
 * @err: error subscriptions (kgni_err.c, kgni_err_user.c)
 * @hold: MDH holds (kgni_mem_hold.c)
 * @kcq: kernel CQs (kgni_kcq.c)
 * @diag: the diagnostic ping (kgni_diag.c)
 * @dp: the data path's lock, jobs and domains (kgni_job.c)
 * @mem: memory registration (kgni_mem*.c)
 * @cq: CQs (kgni_cq.c)
 * @fma: FMA descriptors (kgni_fma.c)
 * @ntt: kgni's copy of the NTT and its blocks (kgni_ntt.c), NULL until
 *       the first KGNI_IOC_NTT_CONFIG
 * @bi: the NIC's balanced injection (kgni_bi.c)
 * @bte: the BTE (kgni_bte.c)
 * @dg: the datagram service (kgni_dgram*.c)
 *
 * The members up to @debugfs are the device's own, which every file may
 * use; each of the others is one role's, owned by its files
 * (scripts/check-driver-blocks.py).
 */
struct kgni_dev {
	struct device dev;
	struct cdev cdev;
	struct pci_dev *pdev;
	int minor;
	void __iomem *ctl;
	phys_addr_t nic_phys;
	void __iomem *mmr;
	void __iomem *fma_priv;
	struct rw_semaphore ctl_rwsem;
	bool gone;
	struct dentry *debugfs;

	struct kgni_irq_state irq;
	struct kgni_link_state link;
	struct kgni_kapi_state kapi;
	struct kgni_err_state err;
	struct kgni_hold_state hold;
	struct kgni_kcq_state kcq;
	struct kgni_diag_state diag;
	struct kgni_dp_state dp;
	struct kgni_mem_state mem;
	struct kgni_cq_state cq;
	struct kgni_fma_state fma;
	struct kgni_ntt *ntt;
	struct kgni_bi bi;
	struct kgni_bte_state bte;
	struct kgni_dg_state dg;
};

/**
 * struct kgni_dom - a domain of the data path: the owner of objects
 * @file: the struct file of the open file whose domain it is; NULL for a
 *        kernel domain
 * @kernel: a kernel client's domain (that of a &struct gni_nic): attached
 *          to a kernel job slot, in no file's lists
 * @node: in &kgni_dp_state.doms
 * @attached: the domain has a CDM
 * @revoked: its job was released: the data path is closed to it
 * @job: index of its job in &kgni_dp_state.jobs, if attached
 * @job_gen: that job's generation
 * @ncq: CQs of the domain
 * @ptag: the CDM's protection tag
 * @cookie: the CDM's cookie
 * @inst_id: the CDM's instance id
 * @mems: struct kgni_mem of the domain
 * @cqs: struct kgni_cq of the domain
 * @fmas: struct kgni_fma of the domain
 * @bte_posts: RDMA posts of the domain the kernel has not taken back yet
 * @bte_home: its BTE channel for KGNI_RDMA_SINGLE_CHANNEL posts
 * @nfma: FMA descriptors of the domain (its job's quota counts them)
 * @nmdd: registrations (MDDs) of the domain
 * @ngart: GART entries its registrations hold
 *
 * Everything is protected by the device's dp.lock.
 */
struct kgni_dom {
	struct file *file;
	bool kernel;
	struct list_head node;
	bool attached;
	bool revoked;
	unsigned int job;
	u32 job_gen;
	unsigned int ncq;
	u8 ptag;
	u32 cookie;
	u32 inst_id;
	struct list_head mems;
	struct list_head cqs;
	struct list_head fmas;
	unsigned int bte_posts;
	unsigned int bte_home;
	unsigned int nfma;
	unsigned int nmdd;
	unsigned long ngart;
};

/**
 * struct kgni_file - one open file of /dev/kgniN
 * @kdev: the device
 * @dom: its domain, which owns its objects
 *
 * @errs: its error subscriptions (KGNI_IOC_ERR_SUBSCRIBE), NULL for a
 *        free entry; each has its device-wide id (&kgni_err_state.last_id)
 *
 * @dom is protected by @kdev->dp.lock, @errs by @kdev->kapi.lock.
 */
struct gni_err;

struct kgni_file {
	struct kgni_dev *kdev;
	struct kgni_dom dom;
	struct gni_err *errs[KGNI_ERR_FILE_SUBS];
};

/**
 * struct kgni_ucmd - one ioctl call, as its handler sees it
 * @kdev: the device of the file
 * @kfile: the file's kgni state
 * @file: the file
 * @ubuffer: the caller's structure
 * @user_size: its size as the caller gave it, at least the handler's
 * @cmd: the structure copied in (struct kgni_diag_ping, ...), zero-filled
 *       past @user_size
 */
struct kgni_ucmd {
	struct kgni_dev *kdev;
	struct kgni_file *kfile;
	struct file *file;
	void __user *ubuffer;
	u32 user_size;
	void *cmd;
};

static inline struct kgni_dev *to_kgni_dev(struct device *dev)
{
	return container_of(dev, struct kgni_dev, dev);
}

static inline u32 kgni_rd(struct kgni_dev *kdev, unsigned int off)
{
	return readl(kdev->ctl + off);
}

static inline void kgni_wr(struct kgni_dev *kdev, unsigned int off, u32 val)
{
	writel(val, kdev->ctl + off);
}

static inline u32 kgni_port_rd(struct kgni_dev *kdev, unsigned int port,
			       unsigned int reg)
{
	return kgni_rd(kdev, VGEMINI_CTL_PORT(port) + reg);
}

/* kgni_main.c */
extern const u32 kgni_driver_version;
struct kgni_dev *kgni_dev_alloc(struct pci_dev *pdev);
struct kgni_dev *kgni_dev_get(u32 minor);
int kgni_dev_add(struct kgni_dev *kdev);
void kgni_dev_del(struct kgni_dev *kdev);

/* kgni_pci.c */
int kgni_pci_register(void);
void kgni_pci_unregister(void);

/* kgni_selftest.c */
int kgni_selftest_identity(struct kgni_dev *kdev);
int kgni_selftest(struct kgni_dev *kdev);

/* kgni_fabric.c */
unsigned int kgni_num_nodes(struct kgni_dev *kdev);
unsigned int kgni_fabric_read_reach(struct kgni_dev *kdev, unsigned long *map);
void kgni_fabric_changed(struct kgni_dev *kdev);
bool kgni_fabric_quiesced(struct kgni_dev *kdev);
void kgni_fabric_init(struct kgni_dev *kdev);

/* kgni_rca.c */
void kgni_rca_fabric(struct kgni_dev *kdev, const unsigned long *now,
		     unsigned int n);
void kgni_rca_exit(void);

/* kgni_port.c */
const char *kgni_port_name(unsigned int port);
const char *kgni_port_state_name(u32 state);
void kgni_link_init(struct kgni_dev *kdev);
void kgni_link_start(struct kgni_dev *kdev);
void kgni_link_stop(struct kgni_dev *kdev);

/* kgni_sysfs.c */
void kgni_sysfs_init(void);
extern const struct attribute_group *kgni_dev_groups[];
extern const struct attribute_group *kgni_class_groups[];

/* kgni_ioctl.c */
long kgni_ioctl(struct file *file, unsigned int cmd, unsigned long arg);
int kgni_ucmd_respond(struct kgni_ucmd *ucmd, size_t len);
void kgni_ioctl_shutdown(struct kgni_dev *kdev);

/* kgni_job.c */
void kgni_dom_add(struct kgni_dev *kdev, struct kgni_dom *dom,
		  struct file *file);
void kgni_dom_release(struct kgni_dev *kdev, struct kgni_dom *dom);
int kgni_job_attach_kernel(struct kgni_dev *kdev, struct kgni_dom *dom,
			   u8 ptag, u32 cookie, u32 inst_id);
void kgni_file_release(struct kgni_file *kfile, struct file *file);
void kgni_dp_free_jobs(struct kgni_dev *kdev);
int kgni_proc_job_init(void);
void kgni_proc_job_exit(void);
int kgni_ioctl_job_configure(struct kgni_ucmd *ucmd);
int kgni_ioctl_cdm_attach(struct kgni_ucmd *ucmd);

/* kgni_job_suspend.c */
int kgni_ioctl_job_suspend(struct kgni_ucmd *ucmd);
int kgni_ioctl_job_resume(struct kgni_ucmd *ucmd);

/* kgni_mem_map.c */
int kgni_dp_map(struct kgni_dev *kdev);
void kgni_dp_stop(struct kgni_dev *kdev);
void kgni_dp_unmap(struct kgni_dev *kdev);

/* kgni_mem_user.c */
int kgni_ioctl_mem_register(struct kgni_ucmd *ucmd);
int kgni_ioctl_mem_register_segments(struct kgni_ucmd *ucmd);
int kgni_ioctl_mem_deregister(struct kgni_ucmd *ucmd);

/* kgni_mem.c */
int kgni_ioctl_mem_query(struct kgni_ucmd *ucmd);

/* kgni_bi.c */
int kgni_ioctl_bi_config(struct kgni_ucmd *ucmd);
void kgni_bi_init(struct kgni_dev *kdev);
void kgni_bi_reset(struct kgni_dev *kdev);

/* kgni_ntt.c */
int kgni_ioctl_ntt_query(struct kgni_ucmd *ucmd);
int kgni_ioctl_ntt_config(struct kgni_ucmd *ucmd);
void kgni_ntt_free(struct kgni_dev *kdev);

/* kgni_cq.c */
int kgni_ioctl_cq_create(struct kgni_ucmd *ucmd);
int kgni_ioctl_cq_destroy(struct kgni_ucmd *ucmd);
int kgni_ioctl_cq_wait(struct kgni_ucmd *ucmd);

/* kgni_fma.c */
int kgni_ioctl_fma_alloc(struct kgni_ucmd *ucmd);
int kgni_ioctl_fma_free(struct kgni_ucmd *ucmd);
void kgni_drain_work(struct work_struct *work);
void kgni_mem_reap_work(struct work_struct *work);

/* kgni_bte.c */
int kgni_bte_map(struct kgni_dev *kdev);
void kgni_bte_stop(struct kgni_dev *kdev);
void kgni_bte_unmap(struct kgni_dev *kdev);
void kgni_bte_dom_init(struct kgni_dev *kdev, struct kgni_dom *dom);
int kgni_ioctl_rdma_post(struct kgni_ucmd *ucmd);

/* kgni_dgram_xport.c */
void kgni_dg_work(struct work_struct *work);
void kgni_dg_irq(struct kgni_dev *kdev, unsigned int vector);

/* kgni_dgram.c */
int kgni_ioctl_dgram_post(struct kgni_ucmd *ucmd);
int kgni_ioctl_dgram_test(struct kgni_ucmd *ucmd);
int kgni_ioctl_dgram_probe(struct kgni_ucmd *ucmd);
int kgni_ioctl_dgram_cancel(struct kgni_ucmd *ucmd);

/* kgni_mmap.c */
int kgni_mmap(struct file *file, struct vm_area_struct *vma);

/* kgni_diag.c */
void kgni_diag_start(struct kgni_dev *kdev);
void kgni_diag_stop(struct kgni_dev *kdev);
int kgni_ioctl_diag_ping(struct kgni_ucmd *ucmd);

/* kgni_kdom.c */
void kgni_kapi_dev_init(struct kgni_dev *kdev);
void kgni_kapi_quiesce_end(struct kgni_dev *kdev, u64 msecs);

/*
 * vgemini's error events (gni_error_event_t.error_code; what a real
 * Gemini reports is not known): the class each is delivered as, and its
 * info_mmrs (Documentation/kernel-api.rst, "Errors").
 */
#define KGNI_ERR_PORT_DOWN	0x0101	/* TRANSIENT: port, peer, state */
#define KGNI_ERR_PORT_UP	0x0102	/* TRANSIENT: port, peer, state */
#define KGNI_ERR_ROUTE_LOAD	0x0201	/* INFORMATIONAL: generation, nodes */
#define KGNI_ERR_QUIESCE_END	0x0202	/* INFORMATIONAL: length in ms */
#define KGNI_ERR_DEV_REMOVED	0x0301	/* CRITICAL: device number */
#define KGNI_ERR_BTE_STATUS	0x0401	/* TRANSACTION: status, channel, slot */
#define KGNI_ERR_INJECTED	0x0f01	/* any class: injection number */

/* kgni_err.c */
void kgni_err_post(struct kgni_dev *kdev, u8 category, u16 code, u8 ptag,
		   u64 i0, u64 i1, u64 i2);
void kgni_err_dev_init(struct kgni_dev *kdev);
void kgni_err_dev_remove(struct kgni_dev *kdev);

/* kgni_err_user.c */
void kgni_err_debugfs_add(struct kgni_dev *kdev);
void kgni_err_file_release(struct kgni_file *kfile);
void kgni_err_shutdown(struct kgni_dev *kdev);
int kgni_ioctl_err_subscribe(struct kgni_ucmd *ucmd);
int kgni_ioctl_err_release(struct kgni_ucmd *ucmd);
int kgni_ioctl_err_mask(struct kgni_ucmd *ucmd);
int kgni_ioctl_err_wait(struct kgni_ucmd *ucmd);
int kgni_ioctl_err_ptag(struct kgni_ucmd *ucmd);

/* kgni_kcq.c */
void kgni_kcq_dev_init(struct kgni_dev *kdev);
void kgni_kcq_irq(struct kgni_dev *kdev, unsigned int vector);

/* kgni_mem_hold.c */
void kgni_kmem_dev_init(struct kgni_dev *kdev);
void kgni_kmem_dev_fini(struct kgni_dev *kdev);

/* kgni_counters.c */
int kgni_ioctl_counter_read(struct kgni_ucmd *ucmd);
int kgni_ioctl_counter_snapshot(struct kgni_ucmd *ucmd);
ssize_t kgni_counters_emit(struct kgni_dev *kdev, char *buf);
void kgni_counters_debugfs_add(struct kgni_dev *kdev);
void kgni_counters_debugfs_del(struct kgni_dev *kdev);

#endif /* KGNI_H */
