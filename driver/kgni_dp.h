/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kgni: the data path (uapi/kgni_ioctl.h, Documentation/abi.rst).
 *
 * A job set-up allows (ptag, cookie) pairs on the NIC; a file attaches to
 * one of them (its CDM), then registers memory (an MDD over pinned user
 * pages, mapped page by page through the NIC's GART), makes CQs (a ring in
 * kernel memory the device writes; a blocking one interrupts, and
 * KGNI_IOC_CQ_WAIT sleeps on it) and takes FMA descriptors whose
 * privileged fields the kernel programs.  User space maps the objects'
 * pages with mmap and drives the FMA without syscalls.
 *
 * What the data path's files share:
 *   kgni_job.c   jobs and CDMs: who may attach, revoking a released
 *                job's domains, undoing a domain's objects
 *   kgni_job_suspend.c  job suspension: stopping, the waits
 *   kgni_mem.c   memory registration: making, finding, undoing one
 *   kgni_mem_map.c  the NIC's tables, the MRT and the GART, and the
 *                mapping of a registration's pages through them
 *   kgni_mem_user.c  registrations of user memory: pinning, the ioctls
 *   kgni_ntt.c   the NTT: a launcher's blocks, a job's, translating PEs
 *   kgni_cq.c    completion queues and the blocking waits on them
 *   kgni_fma.c   FMA descriptors
 *   kgni_bte.c   the BTE's TX channels and RDMA posts
 *   kgni_mmap.c  mmap of the objects' pages, the mappings' lifetime
 * Their entry points from the rest of the driver are in kgni.h.
 */
#ifndef KGNI_DP_H
#define KGNI_DP_H

#include <linux/bits.h>
#include <linux/list.h>
#include <linux/refcount.h>

#include "kgni.h"

/* mmap offsets (kgni_mmap.c tells how they are used) */
#define KGNI_MAP_KIND_SHIFT	40
#define KGNI_MAP_ID_SHIFT	24
#define KGNI_MAP_ID_MASK	0xffffull
#define KGNI_MAP_REL_MASK	((1ull << KGNI_MAP_ID_SHIFT) - 1)

enum kgni_map_kind {
	KGNI_MAP_CQ_RING = 1,
	KGNI_MAP_CQ_USER = 2,
	KGNI_MAP_FMA_USER = 3,
	KGNI_MAP_FMA_PUT_WC = 4,
	KGNI_MAP_FMA_PUT_UC = 5,
	KGNI_MAP_FMA_GET = 6,
};

static inline u64 kgni_map_offset(enum kgni_map_kind kind, u32 id)
{
	return ((u64)kind << KGNI_MAP_KIND_SHIFT) |
	       ((u64)id << KGNI_MAP_ID_SHIFT);
}

/**
 * struct kgni_mem - a registration
 * @node: in its domain's list
 * @mdh: its MDD
 * @gart_first: its first GART entry; page i is entry @gart_first + i
 *              (unless @mrt_count)
 * @mrt_first: its first MRT entry, if @mrt_count
 * @mrt_count: MRT entries it holds; 0 for a registration through the GART
 * @va: the handle's VA: offsets into the MDD count from it (the user
 *      address of the first page; 0 for a segmented registration)
 * @addr: the address the registration was asked for (a segmented one's
 *        first segment's; a kernel client's @va), for KGNI_IOC_MEM_QUERY
 * @len: the bytes asked for (a segmented one's in all; a kernel client's
 *       whole pages)
 * @npages: pages pinned
 * @pages: the pages
 * @mm: the mm charged for them (user pages, pinned); NULL for a kernel
 *      client's pages, referenced with get_page()
 * @cq: the CQ of its remote events, or NULL
 * @mdd_qw2_no_cq: its MDD's QW2 naming no CQ (kgni_mem_cq_detach())
 * @hndl: the memory handle given to user space
 * @readonly: registered KGNI_MEM_READONLY: the network may not write it
 * @dom: its domain, whose counts of MDDs and GART entries it is in
 * @dying: invalidated by kgni_mem_kill(): no longer found, freed by
 *         kgni_mem_reap()
 * @dead: in &kgni_mem_state.dead while @dying
 * @dead_hold: the hold its deregistration asked for, or NULL
 */
struct kgni_mem {
	struct list_head node;
	bool dying;
	struct list_head dead;
	struct kgni_mdh_hold *dead_hold;
	struct kgni_dom *dom;
	u32 mdh;
	u32 gart_first;
	u32 mrt_first;
	u32 mrt_count;
	u64 va;
	u64 addr;
	u64 len;
	unsigned long npages;
	struct page **pages;
	struct mm_struct *mm;
	struct kgni_cq *cq;
	u64 mdd_qw2_no_cq;
	u64 hndl[2];
	bool readonly;
};

/**
 * struct kgni_cq - a completion queue
 * @node: in its domain's list
 * @id: the device's CQ number
 * @entries: ring entries
 * @ring: the ring, kernel address
 * @dma: the ring, device address
 * @ring_size: bytes allocated for the ring (whole pages)
 * @users: FMA descriptors, registrations and RDMA posts of the domain
 *         that name it (a post until the kernel takes its slot back)
 * @blocking: made with KGNI_CQ_BLOCKING: its events interrupt
 * @dead: destroyed; only waiters and mappings still hold the structure
 * @ref: the domain's list holds one, each KGNI_IOC_CQ_WAIT and each mapping
 *       one; the last frees the ring and gives the number back
 * @kdev: the device
 * @mm: the mm whose RLIMIT_MEMLOCK the ring is charged to; NULL for a
 *      kernel client's CQ, charged to nobody
 */
struct kgni_cq {
	struct list_head node;
	struct kgni_dev *kdev;
	struct mm_struct *mm;
	u32 id;
	u32 entries;
	void *ring;
	dma_addr_t dma;
	size_t ring_size;
	unsigned int users;
	bool blocking;
	bool dead;
	refcount_t ref;
};

/**
 * struct kgni_fma - an FMA descriptor
 * @node: in its domain's list
 * @id: the descriptor: a general one, 0 to GEMINI_NUM_FMA - 1, or (a
 *      kernel domain's) an OS one, GEMINI_FMA_OS_FIRST and up
 * @cq: its cq_hndl
 * @ref: the domain's list (or the drain list) holds one, each mapping
 *       one; the last gives the number back, unless @stuck
 * @stuck: it did not go idle after being disabled: never handed out again,
 *         nor its CQ's number
 * @kdev: the device
 * @job: draining: index of its job in &kgni_dp_state.jobs (its quota counts
 *       it), or -1 for a kernel domain's
 * @job_gen: that job's generation
 * @deadline: draining: when it is given up as stuck, in jiffies
 *
 * Freed, it is disabled and goes from its domain's list to the device's
 * drain list, holding a reference on its CQ (@cq->users no longer counts
 * it), until the device has ended its sequences (kgni_drain_work()).
 */
struct kgni_fma {
	struct list_head node;
	u32 id;
	struct kgni_cq *cq;
	refcount_t ref;
	bool stuck;
	struct kgni_dev *kdev;
	int job;
	u32 job_gen;
	unsigned long deadline;
};

/**
 * struct kgni_rdma_req - an RDMA post's request (kgni_rdma_post())
 * @flags: KGNI_RDMA_FENCE, KGNI_RDMA_SINGLE_CHANNEL
 * @type: KGNI_RDMA_PUT or KGNI_RDMA_GET
 * @events: KGNI_RDMA_EV_* bits
 * @remote_pe: physical PE of the target
 * @cq_id: a CQ of the domain, for the local and global events
 * @dlvr_mode: KGNI_RDMA_DLVR_* bits
 * @local_addr: address of the local buffer in the terms of @local_mem_hndl
 * @local_mem_hndl: a registration of the domain
 * @remote_addr: address at the target in the terms of @remote_mem_hndl
 * @remote_mem_hndl: a registration at the target
 * @length: bytes, 1 to KGNI_RDMA_MAX_LENGTH
 * @local_data: the local event's data
 * @global_data: the global and remote events' data
 *
 * The fields of struct kgni_rdma_post, whose kernel-doc tells more.
 */
struct kgni_rdma_req {
	u32 flags;
	u32 type;
	u32 events;
	u32 remote_pe;
	u32 cq_id;
	u32 dlvr_mode;
	u64 local_addr;
	u64 local_mem_hndl[2];
	u64 remote_addr;
	u64 remote_mem_hndl[2];
	u64 length;
	u64 local_data;
	u64 global_data;
};

/**
 * struct kgni_dg_result - a datagram as kgni_dg_test() and kgni_dg_probe()
 *                         tell it
 * @state: KGNI_DGRAM_*
 * @key: its endpoint key
 * @id: its datagram id
 * @remote_pe: COMPLETED: the peer's PE, else 0
 * @remote_inst: COMPLETED: the peer's inst_id, else 0
 * @recv_len: COMPLETED: bytes the peer sent, else 0
 * @copied: bytes of them kgni_dg_test() copied out (at most the post's
 *          buffer size)
 * @bound: it was posted bound ...
 * @peer_pe: ... to this PE ...
 * @peer_inst: ... and inst_id (whatever its state)
 */
struct kgni_dg_result {
	u32 state;
	u64 key;
	u64 id;
	u32 remote_pe;
	u32 remote_inst;
	u16 recv_len;
	u16 copied;
	bool bound;
	u32 peer_pe;
	u32 peer_inst;
};

/* What names a datagram to kgni_dg_test() and kgni_dg_cancel() */
#define KGNI_DG_BY_KEY		BIT(0)
#define KGNI_DG_BY_ID		BIT(1)

/* MMIO of the tables; the caller holds ctl_rwsem and the device is alive */
static inline void __iomem *kgni_mmr(struct kgni_dev *kdev, u64 off)
{
	return kdev->mmr + (off - GEMINI_MMR_MRT);
}

/*
 * Object teardown (kgni_mem_free(), kgni_cq_free(), kgni_fmas_free_all()):
 * dp.lock held; @live: the device may be touched
 */

/*
 * The cores of the data path's ioctls (kgni_mem_create(), kgni_cq_create(),
 * kgni_fma_alloc(), kgni_rdma_post(), kgni_dg_post() and the others
 * declared after them) take a domain and kernel types; the ioctls copy in
 * and out around them.  Process context, may sleep, ctl_rwsem held for
 * reading with the device alive; they take dp.lock.  0 or an errno, as
 * their kernel-doc says.  The datagram cores that do not wait
 * (kgni_dg_test() and kgni_dg_probe() without a timeout, kgni_dg_cancel(),
 * kgni_dg_drop()) take only the datagram spinlock and run in any context,
 * with no more than a reference on the device (kgni_dgram.c).
 */

/* kgni_job.c */
int kgni_dom_usable(const struct kgni_dom *dom);

/* kgni_job_suspend.c */
bool kgni_dom_suspended(struct kgni_dev *kdev, const struct kgni_dom *dom);
int kgni_dom_wait_resumed(struct kgni_dev *kdev, const struct kgni_dom *dom);

/* kgni_main.c: the per-job quotas, and the datagram queue's shares */
extern unsigned int kgni_job_fmas;
extern unsigned int kgni_job_mdds;
extern unsigned int kgni_job_gart;
extern unsigned int kgni_job_dgrams;
extern unsigned int kgni_dg_src_reqs;
extern unsigned int kgni_dg_kernel_reqs;

/**
 * struct kgni_job_use - what the domains of one job hold on a NIC
 * @fma: FMA descriptors, those still draining included
 * @mdd: registrations
 * @gart: GART entries
 */
struct kgni_job_use {
	unsigned int fma;
	unsigned int mdd;
	unsigned long gart;
};

/* kgni_ntt.c (dp.lock held) */
int kgni_ntt_use(struct kgni_dev *kdev, u32 base, u32 size);
void kgni_ntt_unuse(struct kgni_dev *kdev, u32 base, u32 size, bool cleanup);
u64 kgni_ntt_fma_qw3(struct kgni_dev *kdev, const struct kgni_dom *dom);
int kgni_ntt_to_phys(struct kgni_dev *kdev, const struct kgni_dom *dom,
		     u32 pe, u32 *phys);
u32 kgni_ntt_to_virt(struct kgni_dev *kdev, const struct kgni_dom *dom,
		     u32 phys);

/**
 * struct kgni_job_scan - what the job table holds for a (ptag, cookie)
 * @pair: the slot holding the pair, or NULL
 * @free: the first free slot, or NULL
 * @kernel_ptag: a kernel slot has the ptag
 * @user_ptag: a job's slot has the ptag
 */
struct kgni_job_scan {
	struct kgni_job *pair;
	struct kgni_job *free;
	bool kernel_ptag;
	bool user_ptag;
};

/* kgni_job.c: is @ptag one that jobs may have (uGNI's user ptags)? */
bool kgni_ptag_is_user(u32 ptag);

/* kgni_job.c (dp.lock held): the slots of (@ptag, @cookie) */
void kgni_job_scan(struct kgni_dev *kdev, u32 ptag, u32 cookie,
		   struct kgni_job_scan *scan);

/* kgni_job.c (dp.lock held): a domain's job's quota, its own or the module's */
unsigned int kgni_job_limit(struct kgni_dev *kdev, const struct kgni_dom *dom,
			    enum kgni_job_limit which);

/* kgni_fma.c (dp.lock held) */
bool kgni_dom_same_job(const struct kgni_dom *a, const struct kgni_dom *b);
void kgni_job_use(struct kgni_dev *kdev, const struct kgni_dom *dom,
		  struct kgni_job_use *use);

/**
 * struct kgni_mdh_hold - an MDH number a kernel client's deregistration
 *                        holds (gni_mem_deregister() with a hold timeout)
 * @node: in &kgni_hold_state.list, earliest expiry first (changed under
 *        dp.lock and mem.lock)
 * @mdh: the number, set in mdd_map while held
 * @hndl: the handle that was deregistered (gni_mem_mdd_release() names it)
 * @expires: when it is released, in jiffies
 * @released: gni_mem_mdd_release() in atomic context released it (under
 *            mem.lock); the hold work lets the number go
 */
struct kgni_mdh_hold {
	struct list_head node;
	u32 mdh;
	u64 hndl[2];
	unsigned long expires;
	bool released;
};

/* kgni_mem_hold.c (dp.lock held; kgni_mdh_hold_add() mem.lock too) */
void kgni_mdh_hold_add(struct kgni_dev *kdev, u32 mdh, const u64 hndl[2],
		       struct kgni_mdh_hold *hold);
bool kgni_mdh_held(struct kgni_dev *kdev, u32 mdh);
void kgni_mdh_unhold(struct kgni_dev *kdev, struct kgni_mdh_hold *h);

/**
 * struct kgni_mem_user - what a user registration adds to a kernel client's
 * @addr: the address it was asked for (KGNI_IOC_MEM_QUERY gives it back)
 * @len: the bytes asked for
 * @vmdh: KGNI_MEM_VMDH: at a vMDH entry, not the lowest free MDD
 * @vmdh_index: the entry, or KGNI_VMDH_ANY
 * @vmdh_count: the caller's block: KGNI_VMDH_ANY's entries
 */
struct kgni_mem_user {
	u64 addr;
	u64 len;
	bool vmdh;
	u32 vmdh_index;
	u32 vmdh_count;
};

/* kgni_mem.c */
void kgni_mem_put_pages(struct page **pages, unsigned long npages,
			struct mm_struct *mm, bool dirty);
void kgni_mem_free(struct kgni_dev *kdev, struct kgni_mem *mem, bool live);
unsigned int kgni_mem_cq_refs(struct kgni_dom *dom, struct kgni_cq *cq);
void kgni_mem_cq_detach(struct kgni_dev *kdev, struct kgni_dom *dom,
			struct kgni_cq *cq);
struct kgni_mem *kgni_mem_find(struct kgni_dom *dom, const u64 h[2]);
struct kgni_mem *kgni_mem_find_local(struct kgni_dev *kdev,
				     struct kgni_dom *dom, const u64 h[2]);
int kgni_mem_create(struct kgni_dev *kdev, struct kgni_dom *dom, u32 flags,
		    u32 cq_id, struct page **pages, unsigned long npages,
		    u64 va, struct mm_struct *mm, u64 hndl[2], bool atomic);
int kgni_mem_make(struct kgni_dev *kdev, struct kgni_dom *dom, u32 flags,
		  u32 cq_id, struct page **pages, unsigned long npages, u64 va,
		  struct mm_struct *mm, u64 hndl[2], bool atomic,
		  const struct kgni_mem_user *u);
int kgni_mem_deregister(struct kgni_dev *kdev, struct kgni_dom *dom,
			const u64 hndl[2], struct kgni_mdh_hold *hold);
int kgni_mem_kill(struct kgni_dev *kdev, struct kgni_dom *dom,
		  const u64 hndl[2], struct kgni_mdh_hold *hold);
void kgni_mem_reap(struct kgni_dev *kdev);

/* kgni_mem_map.c (dp.lock held) */
void kgni_mdd_write(struct kgni_dev *kdev, u32 mdh, u64 qw1, u64 qw2);
u32 kgni_mrt_pages(struct page **pages, unsigned long n, u64 va);
int kgni_mem_map(struct kgni_dev *kdev, struct kgni_mem *mem, u32 mrt_pages,
		 bool gart_ok, u64 *base);
void kgni_mem_unmap(struct kgni_dev *kdev, struct kgni_mem *mem);

/* kgni_cq.c */
void kgni_cq_write(struct kgni_dev *kdev, u32 cq, u64 base, u64 qw2,
		   u64 qw3_flags);
struct kgni_cq *kgni_cq_find(struct kgni_dom *dom, u32 id);
void kgni_cq_put(struct kgni_cq *cq);
void kgni_cq_free(struct kgni_dev *kdev, struct kgni_dom *dom,
		  struct kgni_cq *cq, bool live);
/* kgni_cq_make()'s flag beside KGNI_CQ_BLOCKING: a kernel client's CQ */
#define KGNI_CQ_KERNEL		BIT(31)
unsigned int kgni_cq_kernel_vector(const struct kgni_dev *kdev, u32 id);
int kgni_cq_make(struct kgni_dev *kdev, struct kgni_dom *dom, u32 entries,
		 u32 flags, u32 thresh, struct kgni_cq **cqp, u32 *cq_id,
		 size_t *ring_size);
int kgni_cq_create(struct kgni_dev *kdev, struct kgni_dom *dom, u32 entries,
		   u32 flags, u32 *cq_id, size_t *ring_size);
int kgni_cq_destroy(struct kgni_dev *kdev, struct kgni_dom *dom, u32 cq_id);

/* kgni_fma.c */
void kgni_fma_program(struct kgni_dev *kdev, u32 d, u64 qw3, u64 mode2);
struct kgni_fma *kgni_fma_find(struct kgni_dom *dom, u32 id);
void kgni_fma_zap(struct kgni_dom *dom, struct kgni_fma *fma);
bool kgni_fma_requests(struct kgni_dev *kdev, u32 d);
void kgni_fma_put(struct kgni_fma *fma);
void kgni_fmas_free_all(struct kgni_dev *kdev, struct kgni_dom *dom,
			bool live);
int kgni_fma_alloc(struct kgni_dev *kdev, struct kgni_dom *dom, u32 cq_id,
		   u32 *fma_id);
int kgni_fma_free(struct kgni_dev *kdev, struct kgni_dom *dom, u32 fma_id,
		  bool live);
void kgni_fma_drain_fini(struct kgni_dev *kdev);

/* kgni_bte.c */
/* The kernel's BTE channel, and its interrupts (RX, then TX) */
#define KGNI_BTE_KERNEL_VC	3
#define KGNI_DG_RX_VECTOR	GEMINI_IRQ_VECTOR(GEMINI_IRQ_FIRST + \
						  2 * KGNI_BTE_KERNEL_VC)
#define KGNI_DG_TX_VECTOR	(KGNI_DG_RX_VECTOR + 1)
#define KGNI_BTE_SLOT_QWORDS	(GEMINI_BTE_TX_DESC_BYTES / 8)

bool kgni_bte_full(const struct kgni_bte_chan *ch);
bool kgni_bte_keep_mdh(struct kgni_dev *kdev, u32 mdh);
unsigned int kgni_bte_ring(struct kgni_dev *kdev, unsigned int vc,
			   const u64 *qw);
void kgni_bte_reclaim(struct kgni_dev *kdev);
bool kgni_bte_orphans(struct kgni_dev *kdev);
void kgni_bte_drain(struct kgni_dev *kdev, struct kgni_dom *dom,
		    bool live);
int kgni_rdma_post(struct kgni_dev *kdev, struct kgni_dom *dom,
		   const struct kgni_rdma_req *cmd, u32 *channel, u32 *slot);
void kgni_rdma_req_init(struct kgni_rdma_req *req,
			const struct kgni_rdma_post *p);

/* kgni_dgram_xport.c */
int kgni_dg_init(struct kgni_dev *kdev);
void kgni_dg_stop(struct kgni_dev *kdev);
void kgni_dg_fini(struct kgni_dev *kdev);

/* kgni_dgram.c */
void kgni_dg_dom_release(struct kgni_dev *kdev, struct kgni_dom *dom);
int kgni_dg_post(struct kgni_dev *kdev, struct kgni_dom *dom, u64 key,
		 u64 id, bool bound, u32 peer_pe, u32 peer_inst,
		 const void *data, u16 len, void *out_buf, u16 buf_size);
int kgni_dg_test(struct kgni_dev *kdev, struct kgni_dom *dom,
		 unsigned int by, u64 key, u64 id, u32 timeout_ms,
		 struct kgni_dg_result *res, void *buf);
int kgni_dg_probe(struct kgni_dev *kdev, struct kgni_dom *dom,
		  u32 timeout_ms, struct kgni_dg_result *res);
int kgni_dg_cancel(struct kgni_dev *kdev, struct kgni_dom *dom,
		   unsigned int by, u64 key, u64 id, bool drop_unsent);
void kgni_dg_drop(struct kgni_dev *kdev, struct kgni_dom *dom, u64 key);

/* kgni_mmap.c */
void kgni_zap(struct file *file, u64 off, u64 len);

#endif /* KGNI_DP_H */
