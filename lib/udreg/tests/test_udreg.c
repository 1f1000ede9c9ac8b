// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host unit test of libudreg (built with its source, under ASan and
 * UBSan), against a pretend device that counts its registrations: hits
 * and misses, overlapping ranges, reference counts, lazy deregistration
 * and eviction at max_entries, a device out of room or failing, the
 * refusals of bad parameters and names, registrations forgotten when
 * their memory is unmapped, and threads registering at once.  The calls
 * are made the way Open MPI's rcache/udreg, GASNet and libfabric's gni
 * provider make them.  Prints TAP.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "udreg_pub.h"
#include "tap.h"

#ifndef UFFD_USER_MODE_ONLY
#define UFFD_USER_MODE_ONLY 1
#endif

#define PG 4096ul
#define FAKE_MAGIC 0x66616b65u

/* What the pretend device registered: its device_data */
struct fake_reg {
	unsigned int magic;
	void *addr;
	uint64_t len;
};

enum fake_mode { FAKE_OK, FAKE_NO_ROOM, FAKE_FAILED };

/* The pretend device: counts, and a limit on what it holds */
static struct {
	pthread_mutex_t lock;
	enum fake_mode mode;
	unsigned long room;	/* registrations held at most; 0: any */
	unsigned long regs, deregs, live;
	unsigned long bad;	/* deregistrations of garbage */
	uint32_t dereg_rc;	/* what deregistration returns */
	void *last_dereg;	/* the address of the last deregistered */
	int destructed;
	void *destructor_ctx;
} fake = { .lock = PTHREAD_MUTEX_INITIALIZER };

static int ctx_token;

static void fake_reset(void)
{
	pthread_mutex_lock(&fake.lock);
	fake.mode = FAKE_OK;
	fake.room = 0;
	fake.regs = 0;
	fake.deregs = 0;
	fake.live = 0;
	fake.bad = 0;
	fake.dereg_rc = 0;
	fake.last_dereg = NULL;
	fake.destructed = 0;
	fake.destructor_ctx = NULL;
	pthread_mutex_unlock(&fake.lock);
}

static void *fake_reg_func(void *addr, uint64_t len, void *context)
{
	struct fake_reg *r = NULL;

	pthread_mutex_lock(&fake.lock);
	if (context != &ctx_token)
		fake.bad++;
	if (fake.mode == FAKE_FAILED) {
		pthread_mutex_unlock(&fake.lock);
		return UDREG_DEVICE_REG_FAILED;
	}
	if (fake.mode == FAKE_NO_ROOM || (fake.room && fake.live >= fake.room))
		goto out;
	r = malloc(sizeof(*r));
	if (!r)
		goto out;
	r->magic = FAKE_MAGIC;
	r->addr = addr;
	r->len = len;
	fake.regs++;
	fake.live++;
out:
	pthread_mutex_unlock(&fake.lock);
	return r;
}

static uint32_t fake_dereg_func(void *device_data, void *context)
{
	struct fake_reg *r = device_data;
	uint32_t rc;

	pthread_mutex_lock(&fake.lock);
	if (context != &ctx_token || r->magic != FAKE_MAGIC) {
		fake.bad++;
	} else {
		fake.deregs++;
		fake.live--;
		fake.last_dereg = r->addr;
		r->magic = 0;
		free(r);
	}
	rc = fake.dereg_rc;
	pthread_mutex_unlock(&fake.lock);
	return rc;
}

static void fake_destructor(void *context)
{
	fake.destructed++;
	fake.destructor_ctx = context;
}

static unsigned long fake_live(void)
{
	unsigned long n;

	pthread_mutex_lock(&fake.lock);
	n = fake.live;
	pthread_mutex_unlock(&fake.lock);
	return n;
}

/* Whether this kernel lets the library watch for unmapping */
static int have_watch;

static int probe_watch(void)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register ur = { .mode = UFFDIO_REGISTER_MODE_WP };
	void *p;
	int fd, ok;

	fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | UFFD_USER_MODE_ONLY);
	if (fd < 0)
		fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC);
	if (fd < 0)
		return 0;
	api.features = UFFD_FEATURE_EVENT_UNMAP | UFFD_FEATURE_EVENT_REMOVE |
		UFFD_FEATURE_EVENT_REMAP;
	p = mmap(NULL, PG, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ur.range.start = (uintptr_t)p;
	ur.range.len = PG;
	ok = p != MAP_FAILED && !ioctl(fd, UFFDIO_API, &api) &&
		!ioctl(fd, UFFDIO_REGISTER, &ur);
	close(fd);
	if (p != MAP_FAILED)
		munmap(p, PG);
	return ok;
}

/* A cache's attributes, as the clients fill them */
static udreg_cache_attr_t attrs(const char *name, uint32_t max,
				uint32_t modes)
{
	udreg_cache_attr_t a;

	memset(&a, 0, sizeof(a));
	strncpy(a.cache_name, name, UDREG_MAX_CACHENAME_LEN);
	a.max_entries = max;
	a.modes = modes;
	a.reg_context = &ctx_token;
	a.dreg_context = &ctx_token;
	a.destructor_context = &ctx_token;
	a.device_reg_func = fake_reg_func;
	a.device_dereg_func = fake_dereg_func;
	a.destructor_callback = fake_destructor;
	return a;
}

/* Create and access @name: its handle, or NULL */
static udreg_cache_handle_t open_cache(const char *name, uint32_t max,
				       uint32_t modes)
{
	udreg_cache_attr_t a = attrs(name, max, modes);
	udreg_cache_handle_t h = NULL;

	fake_reset();
	CHECK_EQ(UDREG_CacheCreate(&a), UDREG_RC_SUCCESS);
	CHECK_EQ(UDREG_CacheAccess(name, &h), UDREG_RC_SUCCESS);
	CHECK(h);
	return h;
}

/* Release and destroy, as GASNet and libfabric end */
static void close_cache(udreg_cache_handle_t h)
{
	CHECK_EQ(UDREG_CacheRelease(h), UDREG_RC_SUCCESS);
	CHECK_EQ(UDREG_CacheDestroy(h), UDREG_RC_SUCCESS);
	CHECK_EQ(fake.live, 0);
	CHECK_EQ(fake.bad, 0);
}

static uint64_t stat_of(udreg_cache_handle_t h, udreg_stat_t s)
{
	uint64_t v = ~0ull;

	CHECK_EQ(UDREG_GetStat(h, s, &v), UDREG_RC_SUCCESS);
	return v;
}

static void *map_pages(size_t n)
{
	void *p = mmap(NULL, n * PG, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	CHECK(p != MAP_FAILED);
	memset(p, 1, n * PG);	/* present, as a registration pins them */
	return p;
}

static void test_create_params(void)
{
	udreg_cache_attr_t a = attrs("params", 4, 0);
	udreg_cache_handle_t h;

	NOTE("userfaultfd watching: %s\n", have_watch ? "available" :
	     "unavailable, lazy caches keep nothing");
	CHECK_EQ(UDREG_CacheCreate(NULL), UDREG_RC_INVALID_PARAM);
	a.max_entries = 0;
	CHECK_EQ(UDREG_CacheCreate(&a), UDREG_RC_INVALID_PARAM);
	a = attrs("params", 4, 0x100);
	CHECK_EQ(UDREG_CacheCreate(&a), UDREG_RC_INVALID_PARAM);
	a = attrs("params", 4, 0);
	a.device_reg_func = NULL;
	CHECK_EQ(UDREG_CacheCreate(&a), UDREG_RC_ERROR_NO_DEVICE);
	a = attrs("params", 4, 0);
	a.device_dereg_func = NULL;
	CHECK_EQ(UDREG_CacheCreate(&a), UDREG_RC_ERROR_NO_DEVICE);
	/* None of them made a cache */
	CHECK_EQ(UDREG_CacheAccess("params", &h), UDREG_RC_NO_MATCH);
	/* Every mode clients set, together; the destructor is optional */
	a = attrs("params", 4, UDREG_CC_MODE_USE_KERNEL_CACHE |
		  UDREG_CC_MODE_USE_LAZY_DEREG | UDREG_CC_MODE_USE_LARGE_PAGES |
		  UDREG_CC_MODE_USE_EVICT_W_UNREG);
	a.destructor_callback = NULL;
	a.debug_mode = 1;
	a.debug_rank = 3;
	fake_reset();
	CHECK_EQ(UDREG_CacheCreate(&a), UDREG_RC_SUCCESS);
	CHECK_EQ(UDREG_CacheAccess("params", &h), UDREG_RC_SUCCESS);
	close_cache(h);
	CHECK_EQ(fake.destructed, 0);
}

static void test_names(void)
{
	char name[UDREG_MAX_CACHENAME_LEN + 8];
	udreg_cache_handle_t h, h2, h3;
	udreg_cache_attr_t a;
	int local;

	a = attrs("", 4, 0);
	CHECK_EQ(UDREG_CacheCreate(&a), UDREG_RC_INVALID_CACHE_NAME);
	/* strncpy() of a long name, as Open MPI and GASNet fill it */
	memset(name, 'x', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	a = attrs(name, 4, 0);
	CHECK_EQ(UDREG_CacheCreate(&a), UDREG_RC_INVALID_CACHE_NAME);
	CHECK_EQ(UDREG_CacheAccess(name, &h), UDREG_RC_INVALID_CACHE_NAME);
	/* The longest name: one less than the array */
	name[UDREG_MAX_CACHENAME_LEN - 1] = '\0';
	a = attrs(name, 4, 0);
	CHECK_EQ(UDREG_CacheCreate(&a), UDREG_RC_SUCCESS);
	CHECK_EQ(UDREG_CacheAccess(name, &h), UDREG_RC_SUCCESS);
	/* A second create of a name fails, and access still works */
	CHECK_EQ(UDREG_CacheCreate(&a), UDREG_RC_INVALID_CACHE_NAME);
	CHECK_EQ(UDREG_CacheAccess(name, &h2), UDREG_RC_SUCCESS);
	CHECK(h == h2);
	a = attrs("gnix_app_cache", 4, 0);
	CHECK_EQ(UDREG_CacheCreate(&a), UDREG_RC_SUCCESS);
	CHECK_EQ(UDREG_CacheAccess("gnix_app_cache", &h3), UDREG_RC_SUCCESS);
	CHECK(h3 != h);
	CHECK_EQ(UDREG_CacheAccess("gnix", &h3), UDREG_RC_NO_MATCH);
	CHECK_EQ(UDREG_CacheAccess("", &h3), UDREG_RC_INVALID_CACHE_NAME);
	CHECK_EQ(UDREG_CacheAccess(NULL, &h3), UDREG_RC_INVALID_PARAM);
	CHECK_EQ(UDREG_CacheAccess("gnix_app_cache", NULL),
		 UDREG_RC_INVALID_PARAM);
	/* Destroy waits for every handle; bad handles are refused */
	CHECK_EQ(UDREG_CacheRelease((udreg_cache_handle_t)(void *)&local),
		 UDREG_RC_INVALID_PARAM);
	CHECK_EQ(UDREG_CacheDestroy((udreg_cache_handle_t)(void *)&local),
		 UDREG_RC_INVALID_PARAM);
	CHECK_EQ(UDREG_CacheRelease(NULL), UDREG_RC_INVALID_PARAM);
	CHECK_EQ(UDREG_CacheRelease(h), UDREG_RC_SUCCESS);
	CHECK_EQ(UDREG_CacheDestroy(h), UDREG_RC_INVALID_PARAM);
	CHECK_EQ(UDREG_CacheRelease(h2), UDREG_RC_SUCCESS);
	CHECK_EQ(UDREG_CacheRelease(h2), UDREG_RC_INVALID_PARAM);
	CHECK_EQ(UDREG_CacheDestroy(h), UDREG_RC_SUCCESS);
	CHECK_EQ(UDREG_CacheDestroy(h), UDREG_RC_INVALID_PARAM);
	CHECK_EQ(UDREG_CacheAccess(name, &h), UDREG_RC_NO_MATCH);
	/* The name is free again */
	a = attrs(name, 4, 0);
	CHECK_EQ(UDREG_CacheCreate(&a), UDREG_RC_SUCCESS);
	CHECK_EQ(UDREG_CacheAccess(name, &h), UDREG_RC_SUCCESS);
	close_cache(h);
	close_cache(h3);
}

static void test_hits(void)
{
	udreg_cache_handle_t h = open_cache("hits", 16, 0);
	char *b = map_pages(16);
	udreg_entry_t *e1, *e2, *e3, *e4, *e5;
	struct fake_reg *d;

	CHECK_EQ(UDREG_Register(h, b, 2 * PG, &e1), UDREG_RC_SUCCESS);
	CHECK(e1->address == b);
	CHECK_EQ(e1->len, 2 * PG);
	d = e1->device_data;
	CHECK(d && d->addr == b && d->len == 2 * PG);
	/* Inside: the same registration, no new one */
	CHECK_EQ(UDREG_Register(h, b + 100, 1000, &e2), UDREG_RC_SUCCESS);
	CHECK(e2 == e1);
	/* Overlapping but not covered: a registration of its own */
	CHECK_EQ(UDREG_Register(h, b + PG, 2 * PG, &e3), UDREG_RC_SUCCESS);
	CHECK(e3 != e1 && e3->address == b + PG && e3->len == 2 * PG);
	/* Covered by either */
	CHECK_EQ(UDREG_Register(h, b + PG + 5, 10, &e4), UDREG_RC_SUCCESS);
	CHECK(e4 == e1 || e4 == e3);
	/* Reaching past both: new */
	CHECK_EQ(UDREG_Register(h, b + PG, 3 * PG, &e5), UDREG_RC_SUCCESS);
	CHECK(e5 != e1 && e5 != e3);
	CHECK_EQ(fake.regs, 3);
	CHECK_EQ(stat_of(h, UDREG_STAT_CACHE_HIT), 2);
	CHECK_EQ(stat_of(h, UDREG_STAT_CACHE_MISS), 3);
	CHECK_EQ(stat_of(h, UDREG_STAT_CACHE_EVICTED), 0);
	CHECK_EQ(UDREG_Unregister(h, e5), UDREG_RC_SUCCESS);
	CHECK_EQ(UDREG_Unregister(h, e4), UDREG_RC_SUCCESS);
	CHECK_EQ(UDREG_Unregister(h, e3), UDREG_RC_SUCCESS);
	CHECK_EQ(UDREG_Unregister(h, e2), UDREG_RC_SUCCESS);
	CHECK_EQ(fake.live, 1);
	CHECK_EQ(UDREG_Unregister(h, e1), UDREG_RC_SUCCESS);
	CHECK_EQ(fake.live, 0);
	CHECK_EQ(fake.deregs, 3);
	close_cache(h);
	munmap(b, 16 * PG);
}

static void test_bad_calls(void)
{
	udreg_cache_handle_t h = open_cache("bad", 4, 0);
	udreg_cache_attr_t a = attrs("bad2", 4, 0);
	udreg_cache_handle_t h2 = NULL;
	udreg_entry_t *e, fake_entry;
	uint64_t v;
	char *b = map_pages(1);

	CHECK_EQ(UDREG_Register(NULL, b, PG, &e), UDREG_RC_INVALID_PARAM);
	CHECK_EQ(UDREG_Register(h, NULL, PG, &e), UDREG_RC_INVALID_PARAM);
	CHECK_EQ(UDREG_Register(h, b, 0, &e), UDREG_RC_INVALID_PARAM);
	CHECK_EQ(UDREG_Register(h, b, PG, NULL), UDREG_RC_INVALID_PARAM);
	CHECK_EQ(UDREG_Register(h, (void *)(UINTPTR_MAX - 10), 100, &e),
		 UDREG_RC_INVALID_PARAM);
	CHECK_EQ(UDREG_Unregister(NULL, &fake_entry), UDREG_RC_INVALID_PARAM);
	CHECK_EQ(UDREG_Unregister(h, NULL), UDREG_RC_INVALID_PARAM);
	CHECK_EQ(UDREG_Evict(NULL), UDREG_RC_INVALID_PARAM);
	CHECK_EQ(UDREG_GetStat(NULL, UDREG_STAT_CACHE_HIT, &v),
		 UDREG_RC_INVALID_PARAM);
	CHECK_EQ(UDREG_GetStat(h, UDREG_STAT_CACHE_HIT, NULL),
		 UDREG_RC_INVALID_PARAM);
	CHECK_EQ(UDREG_GetStat(h, (udreg_stat_t)3, &v),
		 UDREG_RC_INVALID_PARAM);
	CHECK_EQ(UDREG_GetStat(h, (udreg_stat_t)-1, &v),
		 UDREG_RC_INVALID_PARAM);
	/* An entry of another cache, and one already let go */
	CHECK_EQ(UDREG_CacheCreate(&a), UDREG_RC_SUCCESS);
	CHECK_EQ(UDREG_CacheAccess("bad2", &h2), UDREG_RC_SUCCESS);
	CHECK_EQ(UDREG_Register(h, b, PG, &e), UDREG_RC_SUCCESS);
	CHECK_EQ(UDREG_Unregister(h2, e), UDREG_RC_NO_MATCH);
	CHECK_EQ(UDREG_Register(h, b, PG, &e), UDREG_RC_SUCCESS);
	CHECK_EQ(UDREG_Unregister(h, e), UDREG_RC_SUCCESS);
	CHECK_EQ(UDREG_DecrRefcount(h, e), UDREG_RC_SUCCESS);
	CHECK_EQ(fake.live, 0);
	close_cache(h2);
	close_cache(h);
	munmap(b, PG);
}

static void test_refcounts(void)
{
	udreg_cache_handle_t h = open_cache("refs", 4, 0);
	udreg_entry_t *e[3];
	char *b = map_pages(4);
	int i;

	for (i = 0; i < 3; i++)
		CHECK_EQ(UDREG_Register(h, b, 4 * PG, &e[i]),
			 UDREG_RC_SUCCESS);
	CHECK(e[0] == e[1] && e[1] == e[2]);
	CHECK_EQ(fake.regs, 1);
	/* Without lazy deregistration the last let-go deregisters */
	CHECK_EQ(UDREG_DecrRefcount(h, e[0]), UDREG_RC_SUCCESS);
	CHECK_EQ(UDREG_Unregister(h, e[1]), UDREG_RC_SUCCESS);
	CHECK_EQ(fake.live, 1);
	CHECK_EQ(UDREG_Unregister(h, e[2]), UDREG_RC_SUCCESS);
	CHECK_EQ(fake.live, 0);
	CHECK(fake.last_dereg == b);
	/* A new registration of the same memory asks the device again */
	CHECK_EQ(UDREG_Register(h, b, PG, &e[0]), UDREG_RC_SUCCESS);
	CHECK_EQ(fake.regs, 2);
	CHECK_EQ(stat_of(h, UDREG_STAT_CACHE_MISS), 2);
	CHECK_EQ(stat_of(h, UDREG_STAT_CACHE_HIT), 2);
	/* A failing deregistration is reported; the entry is gone anyway */
	fake.dereg_rc = 1;
	CHECK_EQ(UDREG_Unregister(h, e[0]), UDREG_RC_ERROR_NO_DEVICE);
	fake.dereg_rc = 0;
	CHECK_EQ(fake.live, 0);
	close_cache(h);
	munmap(b, 4 * PG);
}

/* Register and let go [p, p + len): a registration left idle */
static udreg_entry_t *touch(udreg_cache_handle_t h, void *p, uint64_t len)
{
	udreg_entry_t *e = NULL;

	CHECK_EQ(UDREG_Register(h, p, len, &e), UDREG_RC_SUCCESS);
	CHECK_EQ(UDREG_Unregister(h, e), UDREG_RC_SUCCESS);
	return e;
}

static void test_lazy(void)
{
	udreg_cache_handle_t h = open_cache("lazy", 2,
		UDREG_CC_MODE_USE_KERNEL_CACHE | UDREG_CC_MODE_USE_LAZY_DEREG);
	char *b = map_pages(8);
	udreg_entry_t *a, *e, *c, *hb;

	if (!have_watch) {
		NOTE("not watching: lazy caches keep nothing idle\n");
		touch(h, b, PG);
		CHECK_EQ(fake.live, 0);
		close_cache(h);
		munmap(b, 8 * PG);
		return;
	}
	a = touch(h, b, PG);
	CHECK_EQ(fake.live, 1);
	/* Kept: the next registration is a hit */
	CHECK(touch(h, b, 10) == a);
	CHECK_EQ(fake.regs, 1);
	touch(h, b + 2 * PG, PG);
	CHECK_EQ(fake.live, 2);
	/* Full: the least recently used idle one goes */
	touch(h, b + 4 * PG, PG);
	CHECK_EQ(fake.live, 2);
	CHECK(fake.last_dereg == b);
	CHECK_EQ(stat_of(h, UDREG_STAT_CACHE_EVICTED), 1);
	/* Both held: no room */
	CHECK_EQ(UDREG_Register(h, b + 2 * PG, PG, &hb), UDREG_RC_SUCCESS);
	CHECK_EQ(UDREG_Register(h, b + 4 * PG, PG, &c), UDREG_RC_SUCCESS);
	CHECK_EQ(UDREG_Register(h, b + 6 * PG, PG, &e), UDREG_RC_NO_SPACE);
	CHECK_EQ(UDREG_Evict(h), UDREG_RC_NO_MATCH);
	CHECK_EQ(UDREG_Unregister(h, hb), UDREG_RC_SUCCESS);
	CHECK_EQ(fake.live, 2);
	/* GASNet's way out of NO_SPACE: evict, register again */
	CHECK_EQ(UDREG_Evict(h), UDREG_RC_SUCCESS);
	CHECK(fake.last_dereg == b + 2 * PG);
	CHECK_EQ(UDREG_Evict(h), UDREG_RC_NO_MATCH);
	CHECK_EQ(UDREG_Register(h, b + 6 * PG, PG, &e), UDREG_RC_SUCCESS);
	CHECK_EQ(stat_of(h, UDREG_STAT_CACHE_EVICTED), 2);
	CHECK_EQ(UDREG_Unregister(h, e), UDREG_RC_SUCCESS);
	CHECK_EQ(UDREG_Unregister(h, c), UDREG_RC_SUCCESS);
	CHECK_EQ(fake.live, 2);
	/* An idle entry is no longer the caller's to let go */
	CHECK_EQ(UDREG_Unregister(h, c), UDREG_RC_NO_MATCH);
	/* Destroy deregisters the idle ones, then calls the destructor */
	CHECK_EQ(UDREG_CacheRelease(h), UDREG_RC_SUCCESS);
	CHECK_EQ(UDREG_CacheDestroy(h), UDREG_RC_SUCCESS);
	CHECK_EQ(fake.live, 0);
	CHECK_EQ(fake.destructed, 1);
	CHECK(fake.destructor_ctx == &ctx_token);
	munmap(b, 8 * PG);
}

static void test_device_room(void)
{
	udreg_cache_handle_t h = open_cache("room", 8,
		UDREG_CC_MODE_USE_LAZY_DEREG);
	char *b = map_pages(8);
	udreg_entry_t *e, *hold, *h2;
	uint64_t miss;

	fake.room = 2;
	touch(h, b, PG);
	touch(h, b + PG, PG);
	/* The device is full: an idle one goes and the device is asked again */
	CHECK_EQ(UDREG_Register(h, b + 2 * PG, PG, &hold), UDREG_RC_SUCCESS);
	if (have_watch) {
		CHECK_EQ(stat_of(h, UDREG_STAT_CACHE_EVICTED), 1);
		CHECK(fake.last_dereg == b);
		/* The last idle one held: nothing left to free */
		CHECK_EQ(UDREG_Register(h, b + PG, PG, &h2), UDREG_RC_SUCCESS);
		CHECK_EQ(UDREG_Register(h, b + 3 * PG, PG, &e),
			 UDREG_RC_NO_SPACE);
		CHECK_EQ(UDREG_Unregister(h, h2), UDREG_RC_SUCCESS);
	}
	fake.room = 0;
	/* UDREG_DEVICE_REG_FAILED: refused for good, nothing evicted */
	fake.mode = FAKE_FAILED;
	miss = stat_of(h, UDREG_STAT_CACHE_MISS);
	CHECK_EQ(UDREG_Register(h, b + 4 * PG, PG, &e),
		 UDREG_RC_INVALID_PARAM);
	CHECK_EQ(stat_of(h, UDREG_STAT_CACHE_MISS), miss + 1);
	CHECK_EQ(fake.live, have_watch ? 2 : 1);
	fake.mode = FAKE_NO_ROOM;
	CHECK_EQ(UDREG_Register(h, b + 4 * PG, PG, &e), UDREG_RC_NO_SPACE);
	CHECK_EQ(fake.live, 1);		/* the idle one was tried */
	fake.mode = FAKE_OK;
	CHECK_EQ(UDREG_Unregister(h, hold), UDREG_RC_SUCCESS);
	close_cache(h);
	munmap(b, 8 * PG);
}

/* Open MPI replaces device_data on an entry it holds */
static void test_device_data(void)
{
	udreg_cache_handle_t h = open_cache("ompi", 4, 0);
	char *b = map_pages(2);
	struct fake_reg *old;
	udreg_entry_t *e;

	CHECK_EQ(UDREG_Register(h, b, 2 * PG, &e), UDREG_RC_SUCCESS);
	old = e->device_data;
	e->device_data = fake_reg_func(b, 2 * PG, &ctx_token);
	CHECK_EQ(fake_dereg_func(old, &ctx_token), 0);
	CHECK_EQ(fake.live, 1);
	CHECK_EQ(UDREG_Unregister(h, e), UDREG_RC_SUCCESS);
	CHECK_EQ(fake.live, 0);
	/* Cleared: nothing to deregister */
	CHECK_EQ(UDREG_Register(h, b, PG, &e), UDREG_RC_SUCCESS);
	CHECK_EQ(fake_dereg_func(e->device_data, &ctx_token), 0);
	e->device_data = NULL;
	CHECK_EQ(UDREG_Unregister(h, e), UDREG_RC_SUCCESS);
	CHECK_EQ(fake.deregs, 3);
	close_cache(h);
	munmap(b, 2 * PG);
}

/* A destroyed cache takes its held registrations with it */
static void test_destroy(void)
{
	udreg_cache_handle_t h = open_cache("destroy", 8,
		UDREG_CC_MODE_USE_LAZY_DEREG);
	char *b = map_pages(4);
	udreg_entry_t *e;

	CHECK_EQ(UDREG_Register(h, b, PG, &e), UDREG_RC_SUCCESS);
	CHECK_EQ(UDREG_Register(h, b + PG, PG, &e), UDREG_RC_SUCCESS);
	touch(h, b + 2 * PG, PG);
	CHECK_EQ(UDREG_CacheDestroy(h), UDREG_RC_INVALID_PARAM);
	CHECK_EQ(UDREG_CacheRelease(h), UDREG_RC_SUCCESS);
	fake.dereg_rc = 7;
	CHECK_EQ(UDREG_CacheDestroy(h), UDREG_RC_ERROR_NO_DEVICE);
	fake.dereg_rc = 0;
	CHECK_EQ(fake.live, 0);
	CHECK_EQ(fake.deregs, 3);
	CHECK_EQ(fake.destructed, 1);
	munmap(b, 4 * PG);
}

/* Map @n pages over those at @p, as mmap(MAP_FIXED) replaces memory */
static void remap(char *p, size_t n)
{
	CHECK(mmap(p, n * PG, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == p);
}

/*
 * Memory unmapped under a kept registration: forgotten, not reused.  Each
 * case has mappings of its own, and unmaps only what it mapped: a hole
 * left behind may be taken by any thread.
 */
static void test_unmap(void)
{
	udreg_cache_handle_t h = open_cache("unmap", 64,
		UDREG_CC_MODE_USE_KERNEL_CACHE | UDREG_CC_MODE_USE_LAZY_DEREG);
	udreg_entry_t *e, *held, *e2;
	char *b, *p;
	unsigned long regs;

	if (!have_watch) {
		NOTE("not watching: nothing is kept, nothing to forget\n");
		close_cache(h);
		return;
	}
	/* A new mapping at the same address */
	b = map_pages(2);
	e = touch(h, b, 2 * PG);
	CHECK(touch(h, b, PG) == e);
	CHECK_EQ(fake.regs, 1);
	remap(b, 2);
	e2 = touch(h, b, PG);
	CHECK_EQ(fake.regs, 2);
	CHECK_EQ(fake.live, 1);
	CHECK(((struct fake_reg *)e2->device_data)->addr == b);
	munmap(b, 2 * PG);
	/* Part of it unmapped: the whole registration goes */
	b = map_pages(3);
	touch(h, b, 3 * PG);
	CHECK_EQ(fake.live, 1);		/* the last case's went */
	munmap(b + PG, PG);
	regs = fake.regs;
	touch(h, b, PG);
	CHECK_EQ(fake.regs, regs + 1);
	CHECK_EQ(fake.live, 1);
	munmap(b, PG);
	munmap(b + 2 * PG, PG);
	/* madvise(DONTNEED), as free() gives memory back */
	b = map_pages(1);
	touch(h, b, PG);
	madvise(b, PG, MADV_DONTNEED);
	regs = fake.regs;
	touch(h, b, PG);
	CHECK_EQ(fake.regs, regs + 1);
	CHECK_EQ(fake.live, 1);
	/* mremap() away, as realloc() moves large blocks */
	p = map_pages(2);
	touch(h, b, PG);
	CHECK(mremap(b, PG, 2 * PG, MREMAP_MAYMOVE | MREMAP_FIXED, p) == p);
	touch(h, p, 2 * PG);
	CHECK(fake.last_dereg == b);
	CHECK_EQ(fake.live, 1);
	munmap(p, 2 * PG);
	/* Replaced while held: unlisted, deregistered when let go */
	b = map_pages(1);
	CHECK_EQ(UDREG_Register(h, b, PG, &held), UDREG_RC_SUCCESS);
	remap(b, 1);
	CHECK_EQ(UDREG_Register(h, b, PG, &e2), UDREG_RC_SUCCESS);
	CHECK(e2 != held);
	CHECK_EQ(fake.live, 2);
	CHECK_EQ(UDREG_Unregister(h, held), UDREG_RC_SUCCESS);
	CHECK_EQ(fake.live, 1);
	CHECK_EQ(UDREG_Unregister(h, e2), UDREG_RC_SUCCESS);
	CHECK_EQ(fake.live, 1);
	/* Unmapping other memory forgets nothing */
	e = touch(h, b, PG);
	p = map_pages(1);
	munmap(p, PG);
	CHECK(touch(h, b, PG) == e);
	CHECK_EQ(stat_of(h, UDREG_STAT_CACHE_EVICTED), 0);
	close_cache(h);
	munmap(b, PG);
}

/* Memory that cannot be watched is never kept idle */
static void test_unwatched(void)
{
	udreg_cache_handle_t h = open_cache("unwatched", 8,
		UDREG_CC_MODE_USE_LAZY_DEREG);
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register ur = { .mode = UFFDIO_REGISTER_MODE_WP };
	char *b = map_pages(1), *f;
	int fd, other;

	/* A file's pages (userfaultfd takes anonymous and shared memory) */
	fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	f = mmap(NULL, PG, PROT_READ, MAP_SHARED, fd, 0);
	CHECK(f != MAP_FAILED);
	touch(h, f, PG);
	CHECK_EQ(fake.live, 0);
	munmap(f, PG);
	close(fd);
	/* Memory another userfaultfd has */
	other = (int)syscall(SYS_userfaultfd, O_CLOEXEC | UFFD_USER_MODE_ONLY);
	ur.range.start = (uintptr_t)b;
	ur.range.len = PG;
	if (other >= 0 && !ioctl(other, UFFDIO_API, &api) &&
	    !ioctl(other, UFFDIO_REGISTER, &ur)) {
		touch(h, b, PG);
		CHECK_EQ(fake.live, 0);
	}
	if (other >= 0)
		close(other);
	/* Anonymous memory is */
	touch(h, b, PG);
	CHECK_EQ(fake.live, have_watch ? 1 : 0);
	close_cache(h);
	/* VGEMINI_UDREG_WATCH=0: nothing watched, nothing kept */
	setenv("VGEMINI_UDREG_WATCH", "0", 1);
	h = open_cache("nowatch", 8, UDREG_CC_MODE_USE_LAZY_DEREG);
	if (have_watch)
		unsetenv("VGEMINI_UDREG_WATCH");
	touch(h, b, PG);
	CHECK_EQ(fake.live, 0);
	close_cache(h);
	munmap(b, PG);
}

/*
 * A child of fork() that lives on does not keep its parent's watched
 * memory waiting on events: unmapping it after the last lazy cache went
 * must not hang (SIGALRM ends the test if it does).
 */
static void test_fork(void)
{
	udreg_cache_handle_t h = open_cache("fork", 8,
		UDREG_CC_MODE_USE_LAZY_DEREG);
	char *b = map_pages(2), c;
	int p[2], st = -1;
	pid_t pid;

	touch(h, b, 2 * PG);
	CHECK_EQ(fake.live, have_watch ? 1 : 0);
	CHECK(!pipe(p));
	pid = fork();
	if (!pid) {
		close(p[1]);
		if (read(p[0], &c, 1) < 0)
			_exit(2);
		_exit(0);
	}
	close(p[0]);
	CHECK(pid > 0);
	close_cache(h);
	alarm(30);
	munmap(b, 2 * PG);
	alarm(0);
	close(p[1]);
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	      !WEXITSTATUS(st));
}

/* Thousands of registrations: the sorted array and its lookups */
static void test_many(void)
{
	enum { N = 3000 };
	udreg_cache_handle_t h = open_cache("many", N + 1, 0);
	static udreg_entry_t *e[N];
	udreg_entry_t *x, *big;
	char *b;
	int i;

	/* Never touched: the pretend device does not read memory */
	b = mmap(NULL, (N + 8) * PG, PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	CHECK(b != MAP_FAILED);
	/* Registered out of order, each one page and a half */
	for (i = 0; i < N; i++) {
		int k = (i * 7919) % N;

		CHECK_EQ(UDREG_Register(h, b + k * PG, PG + PG / 2, &e[k]),
			 UDREG_RC_SUCCESS);
	}
	/* A long one, which lengthens every lookup until it goes */
	CHECK_EQ(UDREG_Register(h, b, (N + 8) * PG, &big), UDREG_RC_SUCCESS);
	CHECK_EQ(UDREG_Unregister(h, big), UDREG_RC_SUCCESS);
	for (i = 0; i < N; i++) {
		CHECK_EQ(UDREG_Register(h, b + i * PG + PG / 4, PG, &x),
			 UDREG_RC_SUCCESS);
		CHECK(x == e[i]);
		CHECK_EQ(UDREG_Unregister(h, x), UDREG_RC_SUCCESS);
	}
	CHECK_EQ(fake.regs, N + 1);
	CHECK_EQ(stat_of(h, UDREG_STAT_CACHE_HIT), N);
	for (i = 0; i < N; i++)
		CHECK_EQ(UDREG_Unregister(h, e[i]), UDREG_RC_SUCCESS);
	CHECK_EQ(fake.live, 0);
	close_cache(h);
	munmap(b, (N + 8) * PG);
}

#define THREADS 6
#define ROUNDS 3000
#define SPAN 64		/* pages the workers share */

struct worker {
	pthread_t t;
	udreg_cache_handle_t h;
	char *b;
	unsigned int seed;
	int errors;
	int scratch;		/* maps, registers and unmaps its own pages */
};

static void *work(void *arg)
{
	struct worker *w = arg;
	udreg_entry_t *held[4] = { NULL };
	udreg_return_t rc;
	int i, j;

	for (i = 0; i < ROUNDS; i++) {
		unsigned int off = (unsigned int)rand_r(&w->seed) %
			(SPAN * PG - 1);
		unsigned int len = 1 + (unsigned int)rand_r(&w->seed) %
			(unsigned int)(SPAN * PG - off - 1);
		udreg_entry_t *e;
		char *p = w->b + off;

		if (w->scratch) {
			p = mmap(NULL, 2 * PG, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (p == MAP_FAILED) {
				w->errors++;
				continue;
			}
			p[0] = 1;
			len = (unsigned int)PG;
		}
		rc = UDREG_Register(w->h, p, len, &e);
		if (rc == UDREG_RC_NO_SPACE) {
			UDREG_Evict(w->h);
			if (w->scratch)
				munmap(p, 2 * PG);
			continue;
		}
		if (rc != UDREG_RC_SUCCESS || (char *)e->address > p ||
		    (char *)e->address + e->len < p + len) {
			w->errors++;
			continue;
		}
		if (w->scratch) {
			w->errors += UDREG_Unregister(w->h, e) !=
				UDREG_RC_SUCCESS;
			munmap(p, 2 * PG);
			continue;
		}
		j = rand_r(&w->seed) % 4;
		if (held[j])
			w->errors += UDREG_Unregister(w->h, held[j]) !=
				UDREG_RC_SUCCESS;
		held[j] = e;
	}
	for (j = 0; j < 4; j++)
		if (held[j])
			w->errors += UDREG_Unregister(w->h, held[j]) !=
				UDREG_RC_SUCCESS;
	return NULL;
}

static void threads_on(uint32_t modes, const char *name)
{
	udreg_cache_handle_t h = open_cache(name, 32, modes);
	struct worker w[THREADS];
	char *b = map_pages(SPAN);
	uint64_t hits, misses;
	int i;

	for (i = 0; i < THREADS; i++) {
		w[i].h = h;
		w[i].b = b;
		w[i].seed = 1234u + (unsigned int)i;
		w[i].errors = 0;
		w[i].scratch = i == 0;
		CHECK(!pthread_create(&w[i].t, NULL, work, &w[i]));
	}
	for (i = 0; i < THREADS; i++) {
		pthread_join(w[i].t, NULL);
		CHECK_EQ(w[i].errors, 0);
	}
	hits = stat_of(h, UDREG_STAT_CACHE_HIT);
	misses = stat_of(h, UDREG_STAT_CACHE_MISS);
	NOTE("%s: %llu hits, %llu misses, %lu registrations\n", name,
	     (unsigned long long)hits, (unsigned long long)misses, fake.regs);
	CHECK(hits > 0 && misses > 0);
	CHECK(fake.regs <= misses);
	if (!(modes & UDREG_CC_MODE_USE_LAZY_DEREG) || !have_watch)
		CHECK_EQ(fake_live(), 0);
	close_cache(h);
	CHECK_EQ(fake.regs, fake.deregs);
	munmap(b, SPAN * PG);
}

static void test_threads(void)
{
	threads_on(0, "threads");
	threads_on(UDREG_CC_MODE_USE_KERNEL_CACHE |
		   UDREG_CC_MODE_USE_LAZY_DEREG, "threads-lazy");
}

int main(void)
{
	static const struct tap_test tests[] = {
		{ "UDREG_CacheCreate refuses bad attributes", test_create_params },
		{ "cache names: length, uniqueness, access, release, destroy",
		  test_names },
		{ "hits, misses and overlapping ranges", test_hits },
		{ "bad parameters and foreign entries", test_bad_calls },
		{ "reference counts without lazy deregistration",
		  test_refcounts },
		{ "lazy deregistration, LRU eviction at max_entries, UDREG_Evict",
		  test_lazy },
		{ "a device out of room, or failing for good", test_device_room },
		{ "device_data replaced or cleared by the client",
		  test_device_data },
		{ "UDREG_CacheDestroy: everything deregistered, destructor",
		  test_destroy },
		{ "unmapped memory is forgotten (munmap, DONTNEED, mremap)",
		  test_unmap },
		{ "memory that cannot be watched is not kept", test_unwatched },
		{ "a child of fork() keeps nothing of the parent's waiting",
		  test_fork },
		{ "3000 registrations", test_many },
		{ "threads registering and letting go at once", test_threads },
	};

	const char *w = getenv("VGEMINI_UDREG_WATCH");

	/* The library's answer, which VGEMINI_UDREG_WATCH=0 turns off */
	have_watch = probe_watch() && !(w && !strcmp(w, "0"));
	return TAP_RUN(tests);
}
