// SPDX-License-Identifier: GPL-2.0-only
/*
 * udreg_prog: a client of libudreg built the way a user builds one, through
 * pkg-config (cray-udreg), dynamic and static, by
 * lib/udreg/tests/host-test.py.  It makes the calls GASNet's gemini conduit
 * makes: a lazy cache with the kernel cache asked for, registrations of
 * one buffer and of parts of it, UDREG_DecrRefcount, UDREG_Evict until
 * UDREG_RC_NO_MATCH, the counters, release and destroy; its pretend device
 * counts what is registered.
 *
 * Prints "not ok - what" for each failed check and a last line
 * "udreg_prog: N checks passed" (or "... K of N checks FAILED"); exits 0
 * when every check passed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <udreg_pub.h>

static int checks, failures;
static long live, registered;

static void check(int ok, const char *what)
{
	checks++;
	if (!ok) {
		failures++;
		printf("not ok - %s\n", what);
	}
}

static void *reg_func(void *addr, uint64_t len, void *context)
{
	(void)addr;
	(void)len;
	(void)context;
	live++;
	registered++;
	return &live;	/* any pointer but NULL and UDREG_DEVICE_REG_FAILED */
}

static uint32_t dereg_func(void *device_data, void *context)
{
	(void)context;
	live--;
	return device_data == &live ? 0 : 1;
}

int main(void)
{
	char name[] = "gasnet";
	struct udreg_cache_attr attr;
	udreg_cache_handle_t h = NULL;
	udreg_entry_t *e, *e2;
	uint64_t hit = 0, miss = 0, evict = 0;
	size_t size = 1 << 20;
	char *buf = malloc(size);

	memset(&attr, 0, sizeof(attr));
	strncpy(attr.cache_name, name, UDREG_MAX_CACHENAME_LEN);
	attr.max_entries = 16;
	attr.modes = UDREG_CC_MODE_USE_KERNEL_CACHE |
		UDREG_CC_MODE_USE_LAZY_DEREG;
	attr.device_reg_func = reg_func;
	attr.device_dereg_func = dereg_func;
	check(!!buf, "malloc");
	check(UDREG_CacheCreate(&attr) == UDREG_RC_SUCCESS, "UDREG_CacheCreate");
	check(UDREG_CacheCreate(&attr) != UDREG_RC_SUCCESS,
	      "a second UDREG_CacheCreate of the name fails");
	check(UDREG_CacheAccess(name, &h) == UDREG_RC_SUCCESS && h,
	      "UDREG_CacheAccess");
	check(UDREG_Register(h, buf, size, &e) == UDREG_RC_SUCCESS,
	      "UDREG_Register of the buffer");
	check(e->address == buf && e->len == size && e->device_data == &live,
	      "the entry: address, len, device_data");
	check(UDREG_Register(h, buf + 4096, 100, &e2) == UDREG_RC_SUCCESS &&
	      e2 == e, "a part of it: the same entry");
	check(registered == 1, "registered once");
	check(UDREG_DecrRefcount(h, e2) == UDREG_RC_SUCCESS &&
	      UDREG_DecrRefcount(h, e) == UDREG_RC_SUCCESS,
	      "UDREG_DecrRefcount twice");
	check(UDREG_DecrRefcount(h, e) == UDREG_RC_NO_MATCH,
	      "a third: UDREG_RC_NO_MATCH");
	/* Kept only where the library can watch the memory for unmapping */
	while (UDREG_Evict(h) == UDREG_RC_SUCCESS)
		;
	check(live == 0, "evicted: nothing registered");
	check(UDREG_Evict(h) == UDREG_RC_NO_MATCH, "nothing left to evict");
	check(UDREG_GetStat(h, UDREG_STAT_CACHE_HIT, &hit) == UDREG_RC_SUCCESS &&
	      UDREG_GetStat(h, UDREG_STAT_CACHE_MISS, &miss) ==
	      UDREG_RC_SUCCESS &&
	      UDREG_GetStat(h, UDREG_STAT_CACHE_EVICTED, &evict) ==
	      UDREG_RC_SUCCESS, "UDREG_GetStat");
	check(hit == 1 && miss == 1 && evict <= 1, "hit/miss/evict: 1/1/0-1");
	check(UDREG_CacheRelease(h) == UDREG_RC_SUCCESS, "UDREG_CacheRelease");
	check(UDREG_CacheDestroy(h) == UDREG_RC_SUCCESS, "UDREG_CacheDestroy");
	free(buf);
	if (failures)
		printf("udreg_prog: %d of %d checks FAILED\n", failures, checks);
	else
		printf("udreg_prog: %d checks passed\n", checks);
	return failures ? 1 : 0;
}
