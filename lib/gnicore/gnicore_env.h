/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Where gnicore runs: the little it needs from its side, one small header
 * per side, so that its sources include no other system header.
 *
 *   gnicore_lock_t        a lock: gnicore_lock_init/destroy(),
 *                         flags = gnicore_lock(), gnicore_unlock(, flags)
 *   gnicore_iomem         the qualifier of a pointer into the device's
 *                         pages (an FMA descriptor's, a CQ's read index),
 *                         accessed with gnicore_read64() and
 *                         gnicore_write64/32/16/8()
 *   gnicore_wc_flush()    stores to the write-combining PUT window reach
 *                         the device before the stores that follow
 *   gnicore_load_acquire(), gnicore_store_release(), gnicore_write_once()
 *                         words of memory that the device writes or
 *                         reads on its own (a CQ's ring, a mailbox)
 *   gnicore_calloc(), gnicore_free()
 *                         memory, only when a NIC or an SMSG connection is
 *                         set up
 *   gnicore_may_wait(), gnicore_relax()
 *                         whether a full FMA descriptor may be waited for
 *                         (spinning), or the post refused with
 *                         GNI_RC_ERROR_RESOURCE
 *   gnicore_counter_t     a statistic, gnicore_counter_inc()
 *   gnicore_env_rdma_post()
 *                         queue one BTE transfer (gnicore_post_rdma())
 *   gnicore_env_cq_set_rd()
 *                         tell the device a CQ's read index
 *                         (gnicore_cq_take())
 *
 * and memcpy(), memset(), snprintf(), static_assert().
 */
#ifndef GNICORE_ENV_H
#define GNICORE_ENV_H

#ifdef __KERNEL__
#include "gnicore_env_kernel.h"
#else
#include "gnicore_env_user.h"
#endif

#endif /* GNICORE_ENV_H */
