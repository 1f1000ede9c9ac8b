// SPDX-License-Identifier: GPL-2.0-only
/*
 * ugni_udreg: Cray's registration cache (udreg_pub.h, cray-udreg) over
 * real GNI registrations, as Open MPI's rcache/udreg and GASNet use it:
 * a lazy cache whose device functions are GNI_MemRegister and
 * GNI_MemDeregister.
 *
 *  1. Rank 0 registers a buffer through the cache, PUTs into rank 1's
 *     buffer from it (FMA and RDMA), registers it again (a hit: the same
 *     handle, no new registration) and lets both go: still cached.
 *  2. The buffer is unmapped and a new one mapped at the same address
 *     with other bytes: the cache must drop the old registration (whose
 *     pages are the old ones) and make a new one; the PUT from it
 *     carries the new bytes.
 *  3. UDREG_Evict until NO_MATCH deregisters every idle registration;
 *     GNI_MemQueryHndls finds none of the cache's left.
 *
 * usage: ugni_udreg      (2 ranks)
 */
#include <sys/mman.h>
#include <udreg_pub.h>

#include "ugni_job.h"

#define LEN		(256 * 1024)
#define PEER_LEN	LEN

static long live;	/* registrations the cache holds on the NIC */
static long made;	/* registrations it made */

static void *reg_func(void *addr, uint64_t len, void *context)
{
	gni_mem_handle_t *mh = malloc(sizeof(*mh));

	(void)context;
	if (!mh)
		return NULL;
	if (GNI_MemRegister(job.nic, (uint64_t)(uintptr_t)addr, len, NULL,
			    GNI_MEM_READWRITE, (uint32_t)-1, mh) !=
	    GNI_RC_SUCCESS) {
		free(mh);
		return UDREG_DEVICE_REG_FAILED;
	}
	live++;
	made++;
	return mh;
}

static uint32_t dereg_func(void *device_data, void *context)
{
	gni_mem_handle_t *mh = device_data;
	gni_return_t rc;

	(void)context;
	rc = GNI_MemDeregister(job.nic, mh);
	free(mh);
	live--;
	return rc == GNI_RC_SUCCESS ? 0 : 1;
}

/* PUT @len bytes from @src (handle @mh) to the peer's buffer, @rdma or FMA */
static int put(void *src, gni_mem_handle_t *mh, const struct job_buf *to,
	       int rdma)
{
	gni_post_descriptor_t d, *done = NULL;
	gni_cq_entry_t ev;
	gni_return_t rc;

	desc_rw(&d, rdma ? GNI_POST_RDMA_PUT : GNI_POST_FMA_PUT, src, mh,
		to->addr, &to->mh, rdma ? LEN : 4096);
	rc = rdma ? GNI_PostRdma(job.ep[1], &d) : GNI_PostFma(job.ep[1], &d);
	if (rc == GNI_RC_SUCCESS)
		rc = wait_event(job.cq, &ev);
	if (rc == GNI_RC_SUCCESS)
		rc = GNI_GetCompleted(job.cq, ev, &done);
	return rc == GNI_RC_SUCCESS && done == &d;
}

/* Rank 1: its buffer holds @len bytes of @v after rank 0's PUTs */
static int holds(const uint8_t *b, uint64_t len, uint8_t v)
{
	uint64_t i;

	for (i = 0; i < len; i++)
		if (b[i] != v)
			return 0;
	return 1;
}

int main(void)
{
	struct udreg_cache_attr attr;
	udreg_cache_handle_t h = NULL;
	udreg_entry_t *e = NULL, *e2 = NULL;
	struct job_buf *all;
	gni_mem_handle_t peer_mh, first;
	uint64_t hit = 0, miss = 0, addr = 0, len = 0;
	uint8_t *peer, *buf = NULL;
	udreg_return_t urc;
	gni_return_t rc;
	int ok, n;

	job_init("ugni_udreg", 2);
	if (job.size != 2) {
		skip("ugni_udreg runs on 2 ranks, the job has %d", job.size);
		job_fini();
		return job_finish();
	}
	peer = alloc_aligned(PAGE, PEER_LEN);
	memset(peer, 0, PEER_LEN);
	peer_mh = reg(job.nic, peer, PEER_LEN, NULL, GNI_MEM_READWRITE,
		      "rank 1's target");
	all = publish(peer, &peer_mh);

	if (job.rank == 0) {
		memset(&attr, 0, sizeof(attr));
		snprintf(attr.cache_name, sizeof(attr.cache_name), "ugni");
		attr.max_entries = 16;
		attr.modes = UDREG_CC_MODE_USE_KERNEL_CACHE |
			     UDREG_CC_MODE_USE_LAZY_DEREG;
		attr.device_reg_func = reg_func;
		attr.device_dereg_func = dereg_func;
		urc = UDREG_CacheCreate(&attr);
		if (urc == UDREG_RC_SUCCESS)
			urc = UDREG_CacheAccess("ugni", &h);
		check(urc == UDREG_RC_SUCCESS, "UDREG_CacheCreate and "
		      "UDREG_CacheAccess of a lazy cache: %d", urc);

		buf = mmap(NULL, LEN, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (buf == MAP_FAILED)
			job_bail("mmap");
		memset(buf, 0xa1, LEN);
		urc = UDREG_Register(h, buf, LEN, &e);
		ok = urc == UDREG_RC_SUCCESS && e && live == 1;
		check(ok, "1: UDREG_Register of %d bytes: %d, %ld "
		      "registration(s) made", LEN, urc, live);
		if (ok) {
			check(put(buf, e->device_data, &all[1], 0) &&
			      put(buf, e->device_data, &all[1], 1),
			      "1: FMA and RDMA PUTs from the cached handle");
		}
		urc = UDREG_Register(h, buf + 4096, 4096, &e2);
		check(urc == UDREG_RC_SUCCESS && e2 == e && live == 1,
		      "1: a part of it again: the same entry, no new "
		      "registration (%d, %ld)", urc, live);
		UDREG_DecrRefcount(h, e2);
		UDREG_DecrRefcount(h, e);
		check(live == 1, "1: let go, still cached (lazy): %ld", live);
	}
	barrier();
	if (job.rank == 1)
		check(holds(peer, LEN, 0xa1), "1: rank 0's bytes arrived");
	barrier();

	if (job.rank == 0) {
		munmap(buf, LEN);
		buf = mmap(buf, LEN, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
			   -1, 0);
		if (buf == MAP_FAILED)
			job_bail("mmap again");
		memset(buf, 0xb2, LEN);
		urc = UDREG_Register(h, buf, LEN, &e);
		ok = urc == UDREG_RC_SUCCESS && e && live == 1 && made == 2;
		check(ok, "2: the same address mapped anew: the old "
		      "registration dropped, a new one made (%d, %ld made, "
		      "%ld held)", urc, made, live);
		if (ok)
			check(put(buf, e->device_data, &all[1], 1),
			      "2: an RDMA PUT from the new registration");
		UDREG_DecrRefcount(h, e);
		UDREG_GetStat(h, UDREG_STAT_CACHE_HIT, &hit);
		UDREG_GetStat(h, UDREG_STAT_CACHE_MISS, &miss);
		check(hit >= 1 && miss >= 2, "2: the counters: %" PRIu64
		      " hits, %" PRIu64 " misses", hit, miss);
	}
	barrier();
	if (job.rank == 1)
		check(holds(peer, LEN, 0xb2), "2: the new mapping's bytes "
		      "arrived, not the old pages'");
	barrier();

	if (job.rank == 0) {
		n = 0;
		while (UDREG_Evict(h) == UDREG_RC_SUCCESS && n < 100)
			n++;
		check(live == 0, "3: UDREG_Evict until NO_MATCH: %d evicted, "
		      "%ld left", n, live);
		n = 0;
		memset(&first, 0, sizeof(first));
		while (GNI_MemQueryHndls(job.nic, -1, &first, &addr, &len) ==
		       GNI_RC_SUCCESS && n < 100)
			n++;
		check(n == 1, "3: GNI_MemQueryHndls: %d registration(s) of "
		      "the NIC left (the target buffer's only)", n);
		urc = UDREG_CacheRelease(h);
		check(urc == UDREG_RC_SUCCESS, "3: UDREG_CacheRelease: %d",
		      urc);
		munmap(buf, LEN);
	}
	barrier();
	rc = GNI_MemDeregister(job.nic, &peer_mh);
	check(rc == GNI_RC_SUCCESS, "GNI_MemDeregister: %s", rc_str(rc));
	free(all);
	job_fini();
	return job_finish();
}
