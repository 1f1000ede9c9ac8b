// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench_core: what the device core itself costs per 8-byte FMA PUT, with
 * no QEMU, no threads, no guest and no system call: two NICs cabled in
 * memory (the unit tests' harness, nic_harness.h), node 0 posting as
 * libugni does (an 8-byte store into the write-combining PUT window, a
 * silent sync), node 1 taking the request in and answering, node 0
 * taking the answer in and retiring the sequence.
 *
 *   bench_core [POSTS]
 *
 * Prints two lines (`make bench` reads them):
 *
 *   core: put8 round trips/s: N   (post, then poll the target and the
 *                                  source until the sequence is retired)
 *   core: put8 posts/s: N         (16 posts, then one poll of each side)
 *
 * The second is the ceiling of P3's issue rate in this design: the rate
 * the emulated NIC would reach if the threads' hand-offs, QEMU's global
 * lock and TCG's MMIO dispatch cost nothing.  Built -O2 without
 * sanitizers (Makefile, $(BUILD)/core/bench_core); exits 1 if a PUT is
 * lost or lands wrong.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gemini_core.h"
#include "routes.h"
#include "tap.h"

#include "nic_harness.h"

#define MDH		9
#define LCQ		5
#define RCQ		6
#define CQ_MAX		63
#define DI		3
#define DOM_BASE	(MEM_BASE + 0x10000)
#define DOM_LAST	(MEM_BASE + MEM_SIZE - 1)
#define AREA		0x4000		/* domain offset of the PUTs */
#define BATCH		16		/* posts between polls, under 32 SSIDs */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void post(struct gemini_nic *src, uint64_t i)
{
	put_wc(src, DI, (i % 8) * 8, 8, i);
	fma_sync(src, DI, 0, 0);
}

/* Poll the target, then the source, @n times */
static void poll_both(struct fabric *f, unsigned int n)
{
	while (n--) {
		gemini_nic_poll(nic_of(f, 1));
		gemini_nic_poll(nic_of(f, 0));
	}
}

int main(int argc, char **argv)
{
	unsigned long posts = argc > 1 ? strtoul(argv[1], NULL, 0) : 200000;
	struct cq_cfg cq = { .max_index = CQ_MAX, .enable = true };
	struct gemini_nic *src;
	struct fabric *f;
	unsigned long i, left;
	double t0, rt, batched;
	uint32_t k;

	if (posts < BATCH || posts > 100000000ul) {
		fprintf(stderr, "usage: bench_core [POSTS, %u..100000000]\n",
			BATCH);
		return 2;
	}
	f = fab_new(2, 1, 1);
	for (k = 0; k < f->n; k++) {
		struct gemini_nic *nic = nic_of(f, k);

		mdd_set(nic, MDH, PTAG, DOM_BASE, DOM_LAST, false, RW, RCQ);
		cq.base = MEM_BASE + 0x1000;
		cq_set(nic, LCQ, &cq);
		cq.base = MEM_BASE + 0x2000;
		cq_set(nic, RCQ, &cq);
		fma_setup(nic, DI, PTAG, LCQ, 0);
	}
	src = nic_of(f, 0);
	fma_set_cmd(src, DI, GEMINI_FMA_CMD_PUT, MDH, 0);
	fma_base(src, DI, GEMINI_PE(1, 0), AREA);

	/* One at a time: each sequence retired before the next post. */
	t0 = now_s();
	for (i = 0; i < posts; i++) {
		post(src, i);
		for (left = 100; fma_status(src, DI) && left; left--)
			poll_both(f, 1);
		if (!left)
			break;
	}
	rt = posts / (now_s() - t0);

	/* Back to back: BATCH posts, then one poll of each side. */
	t0 = now_s();
	for (i = 0; i < posts; i++) {
		post(src, i);
		if (i % BATCH == BATCH - 1)
			poll_both(f, 1);
	}
	for (left = 100; fma_status(src, DI) && left; left--)
		poll_both(f, 1);
	batched = posts / (now_s() - t0);

	run(f);
	CHECK_EQ(fma_status(src, DI), 0);
	CHECK_EQ(src->fma.stats.requests, 2 * (uint64_t)posts);
	CHECK_EQ(src->fma.stats.responses, 2 * (uint64_t)posts);
	CHECK_EQ(src->nic_ctr[VGEMINI_NC_STALE_RSP], 0);
	CHECK_EQ(f->node[0].guest_errors + f->node[1].guest_errors, 0);
	for (i = posts - 8; i < posts; i++)
		CHECK_EQ(mem_le64(&f->node[1], DOM_BASE + AREA + (i % 8) * 8),
			 i);
	fab_free(f);
	if (failures_in_test) {
		fprintf(stderr, "bench_core: %d checks failed\n",
			failures_in_test);
		return 1;
	}
	printf("core: put8 round trips/s: %.0f\n", rt);
	printf("core: put8 posts/s: %.0f\n", batched);
	return 0;
}
