/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * gnicore in libugni (gnicore_env.h): pthread mutexes, the device's pages
 * mapped into the process, x86 fences.  Everything here is what libugni
 * did before gnicore was shared, inline, so the fast path is unchanged.
 */
#ifndef GNICORE_ENV_USER_H
#define GNICORE_ENV_USER_H

#ifdef __KERNEL__
#error "gnicore_env_user.h is libugni's; the kernel has gnicore_env_kernel.h"
#endif

#include <assert.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gni_pub.h"
#include "kgni_ioctl.h"

typedef pthread_mutex_t gnicore_lock_t;

static inline void gnicore_lock_init(gnicore_lock_t *l)
{
	pthread_mutex_init(l, NULL);
}

static inline void gnicore_lock_destroy(gnicore_lock_t *l)
{
	pthread_mutex_destroy(l);
}

/* The kernel's lock gives back the interrupt flags; a mutex has none. */
static inline unsigned long gnicore_lock(gnicore_lock_t *l)
{
	pthread_mutex_lock(l);
	return 0;
}

static inline void gnicore_unlock(gnicore_lock_t *l, unsigned long flags)
{
	(void)flags;
	pthread_mutex_unlock(l);
}

/* The device's pages are mmapped: volatile loads and stores reach it. */
#define gnicore_iomem volatile

static inline uint64_t gnicore_read64(const gnicore_iomem void *p)
{
	return *(const volatile uint64_t *)p;
}

static inline void gnicore_write64(gnicore_iomem void *p, uint64_t v)
{
	*(volatile uint64_t *)p = v;
}

static inline void gnicore_write32(gnicore_iomem void *p, uint32_t v)
{
	*(volatile uint32_t *)p = v;
}

static inline void gnicore_write16(gnicore_iomem void *p, uint16_t v)
{
	*(volatile uint16_t *)p = v;
}

static inline void gnicore_write8(gnicore_iomem void *p, uint8_t v)
{
	*(volatile uint8_t *)p = v;
}

static inline void gnicore_wc_flush(void)
{
	/* WC stores reach the device before what follows (x86 sfence). */
	__asm__ __volatile__("sfence" ::: "memory");
}

/* A word the device (or a peer, through it) writes: what it guards next */
static inline uint64_t gnicore_load_acquire(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

/* A word the device reads: what came before it first */
static inline void gnicore_store_release(uint64_t *p, uint64_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

/* A word of a CQ ring given back to the device */
static inline void gnicore_write_once(uint64_t *p, uint64_t v)
{
	*(volatile uint64_t *)p = v;
}

static inline void *gnicore_calloc(size_t n, size_t size)
{
	return calloc(n, size);
}

static inline void gnicore_free(void *p)
{
	free(p);
}

#ifdef GNICORE_TEST
/* gnicore's host test plays the kernel too, which may not wait. */
extern bool gnicore_test_nowait;

static inline bool gnicore_may_wait(void)
{
	return !gnicore_test_nowait;
}
#else
/* A process may spin until its FMA descriptor has room. */
static inline bool gnicore_may_wait(void)
{
	return true;
}
#endif

static inline void gnicore_relax(void)
{
	__asm__ __volatile__("pause" ::: "memory");
}

typedef uint32_t gnicore_counter_t;

static inline void gnicore_counter_inc(gnicore_counter_t *c)
{
	__atomic_add_fetch(c, 1, __ATOMIC_RELAXED);
}

struct gnicore_ep;

/*
 * Tell the device that the CQ's entries before its rd are consumed: a
 * store to its page (gnicore_cq_take(), cq->lock held).
 */
#define gnicore_env_cq_set_rd(cq)					\
	do {								\
		struct gnicore_cq *cq_ = (cq);				\
									\
		gnicore_write64(&cq_->user[GEMINI_CQ_READ_INDEX_OFFSET / 8], \
				cq_->rd);				\
	} while (0)

/* KGNI_IOC_RDMA_POST on the endpoint's file (lib/ugni/ugni_post.c) */
gni_return_t gnicore_env_rdma_post(struct gnicore_ep *ep,
				   struct kgni_rdma_post *r);

#endif /* GNICORE_ENV_USER_H */
