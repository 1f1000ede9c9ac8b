/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * udreg_pub.h - Cray's user-space memory registration cache (udreg), as
 * Open MPI's rcache/udreg, GASNet's gemini conduit and libfabric's gni
 * provider call it.  Link with -ludreg (pkg-config module "cray-udreg").
 *
 * A cache is created by name, then opened by name for a handle.  The
 * caller gives it two functions: device_reg_func registers [addr,
 * addr + len) with the NIC (GNI_MemRegister) and returns what the caller
 * needs of the registration (device_data), and device_dereg_func undoes
 * it.  UDREG_Register() answers from a cached registration that covers
 * the range, or registers a new one; each UDREG_Register() is matched by
 * one UDREG_Unregister() (or UDREG_DecrRefcount(): the same call).
 *
 * A registration nobody holds is deregistered at once, or, in a cache
 * with UDREG_CC_MODE_USE_LAZY_DEREG, kept for the next UDREG_Register()
 * until the cache is full (the least recently used goes), UDREG_Evict(),
 * or the memory under it is unmapped.  vgemini has no kernel cache to
 * tell it of unmapping: it keeps only registrations whose memory it can
 * watch (Documentation/jobs.rst says how).
 *
 * The library is thread safe.  The callbacks run with the cache's lock
 * held: they must not call into the same cache.
 *
 * See Documentation/jobs.rst, "The registration cache: udreg".
 */
#ifndef VGEMINI_UDREG_PUB_H
#define VGEMINI_UDREG_PUB_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The size of udreg_cache_attr_t.cache_name, its NUL included */
#define UDREG_MAX_CACHENAME_LEN		64

/* udreg_cache_attr_t.modes */
#define UDREG_CC_MODE_USE_KERNEL_CACHE	0x00000001u
#define UDREG_CC_MODE_USE_LAZY_DEREG	0x00000002u
#define UDREG_CC_MODE_USE_LARGE_PAGES	0x00000004u
#define UDREG_CC_MODE_USE_EVICT_W_UNREG	0x00000008u

/*
 * What device_reg_func returns for a registration that failed for good.
 * NULL means the device is out of resources: the cache deregisters a
 * registration nobody holds and asks again.
 */
#define UDREG_DEVICE_REG_FAILED		((void *)-1)

typedef enum udreg_return {
	UDREG_RC_SUCCESS = 0,
	UDREG_RC_INVALID_PARAM,
	UDREG_RC_NO_MATCH,
	UDREG_RC_ERROR_NO_DEVICE,
	UDREG_RC_NO_SPACE,
	UDREG_RC_INVALID_CACHE_NAME,
	UDREG_RC_OOM,
	UDREG_RC_CACHE_EXHAUSTED
} udreg_return_t;

/* The counters UDREG_GetStat() reads */
typedef enum udreg_stat {
	UDREG_STAT_CACHE_HIT = 0,
	UDREG_STAT_CACHE_MISS,
	UDREG_STAT_CACHE_EVICTED
} udreg_stat_t;

/* A cached registration, as UDREG_Register() gives it */
typedef struct udreg_entry {
	void *address;		/* the registered range: [address, */
	uint64_t len;		/*  address + len) */
	void *device_data;	/* what device_reg_func returned */
} udreg_entry_t;

/* Register [addr, addr + len): device data, NULL or UDREG_DEVICE_REG_FAILED */
typedef void *(*udreg_device_reg_func_t)(void *addr, uint64_t len,
					 void *reg_context);
/* Deregister what device_reg_func returned: 0, or non-zero for a failure */
typedef uint32_t (*udreg_device_dereg_func_t)(void *device_data,
					      void *dreg_context);
/* Called by UDREG_CacheDestroy() once every registration is gone */
typedef void (*udreg_destructor_callback_t)(void *destructor_context);

typedef struct udreg_cache_attr {
	char cache_name[UDREG_MAX_CACHENAME_LEN];
	uint32_t max_entries;	/* registrations held at most, >= 1 */
	uint32_t modes;		/* UDREG_CC_MODE_* */
	uint32_t debug_mode;	/* accepted; vgemini prints nothing */
	uint32_t debug_rank;
	void *reg_context;	/* passed to device_reg_func */
	void *dreg_context;	/* passed to device_dereg_func */
	void *destructor_context;
	udreg_device_reg_func_t device_reg_func;
	udreg_device_dereg_func_t device_dereg_func;
	udreg_destructor_callback_t destructor_callback;	/* or NULL */
} udreg_cache_attr_t;

typedef struct udreg_cache *udreg_cache_handle_t;

/* Create the cache attr->cache_name (a copy of *attr is kept) */
udreg_return_t UDREG_CacheCreate(const udreg_cache_attr_t *attr);
/* A handle on the cache @cache_name */
udreg_return_t UDREG_CacheAccess(const char *cache_name,
				 udreg_cache_handle_t *handle);
/* Give back a handle UDREG_CacheAccess() gave */
udreg_return_t UDREG_CacheRelease(udreg_cache_handle_t handle);
/* Deregister everything and free a cache whose handles are all released */
udreg_return_t UDREG_CacheDestroy(udreg_cache_handle_t handle);

/* A registration covering [addr, addr + len), held until unregistered */
udreg_return_t UDREG_Register(udreg_cache_handle_t handle, void *addr,
			      uint64_t len, udreg_entry_t **entry);
/* Let go of a registration UDREG_Register() gave */
udreg_return_t UDREG_Unregister(udreg_cache_handle_t handle,
				udreg_entry_t *entry);
/* The same as UDREG_Unregister() */
udreg_return_t UDREG_DecrRefcount(udreg_cache_handle_t handle,
				  udreg_entry_t *entry);
/* Deregister the least recently used registration that nobody holds */
udreg_return_t UDREG_Evict(udreg_cache_handle_t handle);
/* One of the cache's counters */
udreg_return_t UDREG_GetStat(udreg_cache_handle_t handle, udreg_stat_t stat,
			     uint64_t *value);

#ifdef __cplusplus
}
#endif

#endif /* VGEMINI_UDREG_PUB_H */
