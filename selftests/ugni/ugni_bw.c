// SPDX-License-Identifier: GPL-2.0-only
/*
 * ugni_bw: RDMA (BTE) bandwidth and the FMA/BTE crossover between rank 0
 * and one peer rank, through gni_pub.h and pmi.h alone.
 *
 *     vgemini run -n 2 ugni_bw [--peer R] [--reps N]
 *
 * Prints, on rank 0, lines "bench: <what>: <value> <unit>":
 *
 *  - rdma put 4 MiB, rdma get 4 MiB: N transfers one after the other,
 *    each waited for (its GLOBAL event), in MB/s (10^6 bytes);
 *  - for sizes 64 B .. 1 MiB: the time of one FMA PUT and of one RDMA PUT
 *    with its GLOBAL event, in us;
 *  - the crossover: the smallest of those sizes from which RDMA is
 *    faster, in bytes.
 *
 * The peer checks the data of the last PUT of each size byte for byte,
 * and rank 0 the data of the last GET; every post must end well.  Other
 * ranks of the job only take part in the barriers (so that --peer can
 * name a rank several hops away).
 */
#include "ugni_job.h"

#define BIG		(4u << 20)

static gni_mem_handle_t lmh, rmh;
static struct job_buf *bufs;
static uint8_t *lbuf, *rbuf;

static void result(const char *what, double v, const char *unit)
{
	printf("bench: %s: %.1f %s\n", what, v, unit);
	fflush(stdout);
}

static void pattern(uint8_t *p, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(i * 13 + seed + (i >> 12));
}

static int pattern_ok(const uint8_t *p, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != (uint8_t)(i * 13 + seed + (i >> 12)))
			return 0;
	return 1;
}

/* One transfer of @len bytes to or from the peer, waited for. */
static int xfer(int peer, gni_post_type_t type, uint64_t len)
{
	gni_post_descriptor_t d, *pd = NULL;
	gni_cq_entry_t ev;
	gni_return_t rc;

	desc_rw(&d, type, lbuf, &lmh, bufs[peer].addr, &bufs[peer].mh, len);
	if (type == GNI_POST_RDMA_PUT || type == GNI_POST_RDMA_GET)
		rc = GNI_PostRdma(job.ep[peer], &d);
	else
		rc = GNI_PostFma(job.ep[peer], &d);
	if (rc != GNI_RC_SUCCESS) {
		diag("post of %" PRIu64 " bytes: %s", len, rc_str(rc));
		return 0;
	}
	rc = wait_event(job.cq, &ev);
	if (rc != GNI_RC_SUCCESS || !GNI_CQ_STATUS_OK(ev)) {
		diag("event of %" PRIu64 " bytes: %s, 0x%016" PRIx64, len,
		     rc_str(rc), (uint64_t)ev);
		return 0;
	}
	return GNI_GetCompleted(job.cq, ev, &pd) == GNI_RC_SUCCESS &&
	       pd == &d && d.status == GNI_RC_SUCCESS;
}

/* Seconds per transfer over @reps of them (after one to warm up). */
static double timed(int peer, gni_post_type_t type, uint64_t len, int reps,
		    int *ok)
{
	double t0;
	int i;

	*ok = *ok && xfer(peer, type, len);
	t0 = now();
	for (i = 0; i < reps && *ok; i++)
		*ok = xfer(peer, type, len);
	return (now() - t0) / reps;
}

int main(int argc, char **argv)
{
	static const uint64_t sizes[] = {
		64, 256, 1024, 4096, 16384, 65536, 262144, 1048576,
	};
	int reps = 4, peer = 1, i, ok = 1, checked;
	uint64_t crossover = 0;
	double t;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
			reps = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--peer") && i + 1 < argc) {
			peer = atoi(argv[++i]);
		} else {
			fprintf(stderr, "usage: ugni_bw [--peer R] [--reps N]\n");
			return 2;
		}
	}
	if (reps < 1 || reps > 1000) {
		fprintf(stderr, "ugni_bw: --reps 1..1000\n");
		return 2;
	}
	job_init("ugni_bw", 2);
	if (peer < 1 || peer >= job.size)
		job_bail("--peer must name a rank of the job other than 0");
	wait_spins_only = 1;	/* timings, not politeness */
	lbuf = alloc_aligned(PAGE, BIG);
	rbuf = alloc_aligned(PAGE, BIG);
	memset(rbuf, 0, BIG);
	lmh = reg(job.nic, lbuf, BIG, NULL, GNI_MEM_READWRITE, "the source");
	rmh = reg(job.nic, rbuf, BIG, NULL, GNI_MEM_READWRITE, "the target");
	bufs = publish(rbuf, &rmh);
	barrier();

	/* 4 MiB PUTs, then the peer checks the data */
	if (job.rank == 0) {
		pattern(lbuf, BIG, 1);
		t = timed(peer, GNI_POST_RDMA_PUT, BIG, reps, &ok);
		check(ok, "%d RDMA PUTs of 4 MiB to rank %d", reps + 1, peer);
		result("rdma put 4 MiB", BIG / t / 1e6, "MB/s");
	}
	barrier();
	if (job.rank == peer)
		check(pattern_ok(rbuf, BIG, 1), "the 4 MiB PUT's data");
	/* 4 MiB GETs of what the peer holds */
	if (job.rank == peer)
		pattern(rbuf, BIG, 2);
	barrier();
	if (job.rank == 0) {
		memset(lbuf, 0, BIG);
		t = timed(peer, GNI_POST_RDMA_GET, BIG, reps, &ok);
		check(ok, "%d RDMA GETs of 4 MiB from rank %d", reps + 1, peer);
		check(pattern_ok(lbuf, BIG, 2), "the 4 MiB GET's data");
		result("rdma get 4 MiB", BIG / t / 1e6, "MB/s");
	}
	barrier();

	/* FMA against BTE, size by size */
	for (i = 0; i < (int)ARRAY_SIZE(sizes); i++) {
		uint64_t len = sizes[i];
		int n = len <= 65536 ? 20 : 4;
		double fma = 0, bte = 0;
		char what[64];

		if (job.rank == 0) {
			pattern(lbuf, len, 3 + i);
			fma = timed(peer, GNI_POST_FMA_PUT, len, n, &ok);
			bte = timed(peer, GNI_POST_RDMA_PUT, len, n, &ok);
			check(ok, "FMA and RDMA PUTs of %" PRIu64 " bytes", len);
			snprintf(what, sizeof(what), "fma put %" PRIu64 " B",
				 len);
			result(what, fma * 1e6, "us");
			snprintf(what, sizeof(what), "rdma put %" PRIu64 " B",
				 len);
			result(what, bte * 1e6, "us");
			if (!crossover && bte < fma)
				crossover = len;
		}
		barrier();
		if (job.rank == peer) {
			checked = pattern_ok(rbuf, len, 3 + i);
			check(checked, "the %" PRIu64 "-byte PUTs' data", len);
		}
		barrier();
	}
	if (job.rank == 0) {
		if (crossover)
			result("fma/rdma crossover", crossover, "bytes");
		else
			printf("bench: fma/rdma crossover: none up to 1 MiB\n");
	}
	barrier();
	GNI_MemDeregister(job.nic, &lmh);
	GNI_MemDeregister(job.nic, &rmh);
	job_fini();
	return job_finish();
}
