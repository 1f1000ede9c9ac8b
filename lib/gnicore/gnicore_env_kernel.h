/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * gnicore in kgni.ko (gnicore_env.h).  Kernel clients post from softirq
 * and hard-IRQ context (ipogif's xmit, gnilnd's CQ callback): the locks
 * are spinlocks taken with interrupts off, a full FMA descriptor is never
 * waited for (the post returns GNI_RC_ERROR_RESOURCE and the client tries
 * again), and memory is taken with GFP_ATOMIC where the caller cannot
 * sleep.
 */
#ifndef GNICORE_ENV_KERNEL_H
#define GNICORE_ENV_KERNEL_H

#ifndef __KERNEL__
#error "gnicore_env_kernel.h is kgni's; libugni has gnicore_env_user.h"
#endif

#include <linux/atomic.h>
#include <linux/build_bug.h>
#include <linux/compiler.h>
#include <linux/io.h>
#include <linux/kernel.h>
#include <linux/preempt.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/types.h>
#include <asm/barrier.h>
#include <asm/processor.h>

#include "gni_pub.h"
#include "kgni_ioctl.h"

typedef spinlock_t gnicore_lock_t;

static inline void gnicore_lock_init(gnicore_lock_t *l)
{
	spin_lock_init(l);
}

static inline void gnicore_lock_destroy(gnicore_lock_t *l)
{
}

static inline unsigned long gnicore_lock(gnicore_lock_t *l)
	__acquires(l)
{
	unsigned long flags;

	spin_lock_irqsave(l, flags);
	return flags;
}

static inline void gnicore_unlock(gnicore_lock_t *l, unsigned long flags)
	__releases(l)
{
	spin_unlock_irqrestore(l, flags);
}

#define gnicore_iomem __iomem

static inline u64 gnicore_read64(const void __iomem *p)
{
	return readq(p);
}

static inline void gnicore_write64(void __iomem *p, u64 v)
{
	writeq(v, p);
}

static inline void gnicore_write32(void __iomem *p, u32 v)
{
	writel(v, p);
}

static inline void gnicore_write16(void __iomem *p, u16 v)
{
	writew(v, p);
}

static inline void gnicore_write8(void __iomem *p, u8 v)
{
	writeb(v, p);
}

static inline void gnicore_wc_flush(void)
{
	/* WC stores reach the device before what follows */
	wmb();
}

static inline u64 gnicore_load_acquire(const u64 *p)
{
	u64 v = READ_ONCE(*p);

	/* Coherent memory the device wrote: @v before what it guards */
	dma_rmb();
	return v;
}

static inline void gnicore_store_release(u64 *p, u64 v)
{
	/* Coherent memory the device reads: what came before, first */
	dma_wmb();
	WRITE_ONCE(*p, v);
}

static inline void gnicore_write_once(u64 *p, u64 v)
{
	WRITE_ONCE(*p, v);
}

/*
 * Set-up may run in atomic context too (a client holding its own lock):
 * no sleep then, and kvcalloc() does not fall back to vmalloc.
 */
static inline void *gnicore_calloc(size_t n, size_t size)
{
	return kvcalloc(n, size, preemptible() ? GFP_KERNEL : GFP_ATOMIC);
}

static inline void gnicore_free(void *p)
{
	kvfree(p);
}

/* Never spin for the device in a client's context: refuse the post. */
static inline bool gnicore_may_wait(void)
{
	return false;
}

static inline void gnicore_relax(void)
{
	cpu_relax();
}

typedef atomic_t gnicore_counter_t;

static inline void gnicore_counter_inc(gnicore_counter_t *c)
{
	atomic_inc(c);
}

struct gnicore_cq;
struct gnicore_ep;

/*
 * A kernel CQ's read index goes to its descriptor while the device is
 * there (kgni_kcq.c); cq->lock held.
 */
void kgni_kcq_core_set_rd(struct gnicore_cq *cq);
#define gnicore_env_cq_set_rd(cq)	kgni_kcq_core_set_rd(cq)

/*
 * Kernel RDMA posts go to kgni_rdma_post() for the NIC's kernel domain
 * (kgni_kep.c); process context, may sleep.
 */
gni_return_t kgni_kep_rdma_post(struct gnicore_ep *ep,
				struct kgni_rdma_post *r);

static inline gni_return_t gnicore_env_rdma_post(struct gnicore_ep *ep,
						 struct kgni_rdma_post *r)
{
	return kgni_kep_rdma_post(ep, r);
}

#endif /* GNICORE_ENV_KERNEL_H */
