// SPDX-License-Identifier: GPL-2.0-only
/*
 * ugni_amo: the Gemini AMOs through gni_pub.h and pmi.h alone.
 *
 *     vgemini run -n 8 ugni_amo [--count K]
 *
 * 1. Every Gemini AMO (ugni-api.md section 12.1: ADD, FADD, AND, FAND, OR,
 *    FOR, XOR, FXOR, AX, FAX, CSWAP, and each one's cached _C variant) on
 *    a word of the next rank's memory that only this rank uses: the word
 *    is set by a PUT, the AMO done, the fetched value (fetching AMOs)
 *    compared with the word's old value, the word read back by a GET and
 *    compared with the AMO's defined result; a non-fetching AMO leaves the
 *    local buffer alone.  CSWAP both when the comparand matches and when
 *    it does not.  An AMO on a word that is not 8-byte aligned is refused
 *    with GNI_RC_ALIGNMENT_ERROR.
 * 2. Every rank does K (--count, 200) fetch-adds of values of its own
 *    (rank * K + i + 1) to one word of rank 0: the final value is the sum
 *    of all of them, and the fetched values, sorted, form the chain
 *    0, v1, v1 + v2, ...: the adds were atomic and linearizable.
 * 3. Every rank increments another word of rank 0 K / 2 times with a
 *    CSWAP loop: the final value is size * K / 2, and the old values of
 *    the successful swaps are exactly 0 .. size * K / 2 - 1, each once.
 * 4. Every rank does K non-fetching ADDs of 1 to a third word: size * K.
 */
#include "ugni_job.h"

#define W_FADD		0	/* word indexes in rank 0's window */
#define W_CSWAP		2
#define W_ADD		4
#define W_SLOT(src)	(16 + 2 * (src))	/* 16-byte aligned */
#define MAX_COUNT	500

struct amo_op {
	gni_fma_cmd_type_t cmd;
	const char *name;
	int fetch;
	uint64_t (*result)(uint64_t t, uint64_t op1, uint64_t op2);
};

static uint64_t r_add(uint64_t t, uint64_t a, uint64_t b)
{
	(void)b;
	return t + a;
}

static uint64_t r_and(uint64_t t, uint64_t a, uint64_t b)
{
	(void)b;
	return t & a;
}

static uint64_t r_or(uint64_t t, uint64_t a, uint64_t b)
{
	(void)b;
	return t | a;
}

static uint64_t r_xor(uint64_t t, uint64_t a, uint64_t b)
{
	(void)b;
	return t ^ a;
}

static uint64_t r_ax(uint64_t t, uint64_t a, uint64_t b)
{
	return (t & a) ^ b;
}

static uint64_t r_cswap(uint64_t t, uint64_t a, uint64_t b)
{
	return t == a ? b : t;
}

#define OP(c, f, r)	{ GNI_FMA_ATOMIC_##c, #c, f, r }
static const struct amo_op ops[] = {
	OP(ADD, 0, r_add), OP(ADD_C, 0, r_add),
	OP(FADD, 1, r_add), OP(FADD_C, 1, r_add),
	OP(AND, 0, r_and), OP(AND_C, 0, r_and),
	OP(FAND, 1, r_and), OP(FAND_C, 1, r_and),
	OP(OR, 0, r_or), OP(OR_C, 0, r_or),
	OP(FOR, 1, r_or), OP(FOR_C, 1, r_or),
	OP(XOR, 0, r_xor), OP(XOR_C, 0, r_xor),
	OP(FXOR, 1, r_xor), OP(FXOR_C, 1, r_xor),
	OP(AX, 0, r_ax), OP(AX_C, 0, r_ax),
	OP(FAX, 1, r_ax), OP(FAX_C, 1, r_ax),
	OP(CSWAP, 1, r_cswap), OP(CSWAP_C, 1, r_cswap),
};

static struct job_buf *win_all;
static gni_mem_handle_t lmh;
static uint64_t *lbuf;		/* [0] AMO results, [1] PUT/GET data */

static int amo(int peer, gni_fma_cmd_type_t cmd, uint64_t word,
	       uint64_t op1, uint64_t op2, struct completion *c)
{
	gni_post_descriptor_t d;

	desc_amo(&d, cmd, &lbuf[0], &lmh,
		 win_all[peer].addr + 8 * word, &win_all[peer].mh, op1, op2);
	return post_wait(job.ep[peer], job.cq, &d, c);
}

static int put_get(int peer, gni_post_type_t type, uint64_t word,
		   struct completion *c)
{
	gni_post_descriptor_t d;

	desc_rw(&d, type, &lbuf[1], &lmh, win_all[peer].addr + 8 * word,
		&win_all[peer].mh, 8);
	return post_wait(job.ep[peer], job.cq, &d, c);
}

/* Part 1: one AMO's defined result. */
static void one_op(int peer, const struct amo_op *op, uint64_t t0,
		   uint64_t op1, uint64_t op2, const char *what)
{
	const uint64_t sentinel = 0x5e5e5e5e5e5e5e5eull;
	uint64_t want = op->result(t0, op1, op2), got;
	struct completion c;
	const char *step;

	lbuf[1] = t0;
	step = "PUT of the old value";
	if (!put_get(peer, GNI_POST_FMA_PUT, W_SLOT(job.rank), &c))
		goto failed;
	lbuf[0] = sentinel;
	step = "the AMO";
	if (!amo(peer, op->cmd, W_SLOT(job.rank), op1, op2, &c))
		goto failed;
	got = lbuf[0];
	lbuf[1] = ~want;
	step = "GET of the result";
	if (!put_get(peer, GNI_POST_FMA_GET, W_SLOT(job.rank), &c))
		goto failed;
	check(lbuf[1] == want && got == (op->fetch ? t0 : sentinel),
	      "%s (0x%03x)%s on rank %d: 0x%016" PRIx64 " -> 0x%016" PRIx64
	      " (want 0x%016" PRIx64 "), %s 0x%016" PRIx64, op->name, op->cmd,
	      what, peer, t0, lbuf[1], want,
	      op->fetch ? "fetched" : "local buffer", got);
	return;
failed:
	check(0, "%s (0x%03x)%s on rank %d: %s: %s", op->name, op->cmd, what,
	      peer, step, describe(&c));
}

static int cmp_u64_pair(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

static int cmp_u64(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

/* Read word @w of rank 0's window (rank 0: its own memory). */
static uint64_t read_rank0(uint64_t *win, uint64_t w)
{
	struct completion c;

	if (job.rank == 0)
		return __atomic_load_n(&win[w], __ATOMIC_SEQ_CST);
	lbuf[1] = 0xdeaddeaddeaddeadull;
	if (!put_get(0, GNI_POST_FMA_GET, w, &c))
		diag("GET of rank 0's word %" PRIu64 ": %s", w, describe(&c));
	return lbuf[1];
}

int main(int argc, char **argv)
{
	int count = 200, i, k, peer, bad, fails;
	uint64_t *win, *fetched, *all, *pairs, sum, got, guess;
	gni_mem_handle_t wmh;
	struct completion c;
	gni_post_descriptor_t d;
	gni_return_t rc;
	unsigned int oi;
	long attempts;
	double t0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--count") && i + 1 < argc) {
			count = atoi(argv[++i]);
		} else {
			fprintf(stderr, "usage: ugni_amo [--count K]\n");
			return 2;
		}
	}
	if (count < 2 || count > MAX_COUNT) {
		fprintf(stderr, "ugni_amo: --count 2..%d\n", MAX_COUNT);
		return 2;
	}
	job_init("ugni_amo", 1);
	win = alloc_aligned(PAGE, PAGE);
	memset(win, 0, PAGE);
	lbuf = malloc(64);
	fetched = calloc(count, sizeof(*fetched));
	all = calloc((size_t)count * job.size, sizeof(*all));
	pairs = calloc((size_t)count * job.size * 2, sizeof(*pairs));
	if (!lbuf || !fetched || !all || !pairs ||
	    W_SLOT(job.size) * 8 > PAGE)
		job_bail("out of memory, or too many ranks");
	wmh = reg(job.nic, win, PAGE, NULL, GNI_MEM_READWRITE, "the AMO words");
	lmh = reg(job.nic, lbuf, 64, NULL, GNI_MEM_READWRITE,
		  "the local buffer (malloc)");
	win_all = publish(win, &wmh);
	barrier();

	/* 1. Each AMO's defined result, on the next rank. */
	peer = (job.rank + 1) % job.size;
	for (oi = 0; oi < ARRAY_SIZE(ops); oi++) {
		uint64_t t = 0x0123456789abcdefull ^ ((uint64_t)job.rank << 56);

		if (ops[oi].result == r_cswap) {
			one_op(peer, &ops[oi], t, t, 0xfedcba9876543210ull,
			       ", comparand matches");
			one_op(peer, &ops[oi], t, t + 1, 0xfedcba9876543210ull,
			       ", comparand differs");
		} else {
			one_op(peer, &ops[oi], t, 0x00ff0ff0f00fff00ull,
			       0x1111222233334444ull, "");
		}
	}
	desc_amo(&d, GNI_FMA_ATOMIC_FADD, &lbuf[0], &lmh,
		 win_all[peer].addr + 8 * W_SLOT(job.rank) + 4,
		 &win_all[peer].mh, 1, 0);
	rc = GNI_PostFma(job.ep[peer], &d);
	check(rc == GNI_RC_ALIGNMENT_ERROR, "FADD on a word 4 bytes off "
	      "8-byte alignment: %s (want GNI_RC_ALIGNMENT_ERROR)", rc_str(rc));
	barrier();

	/* 2. size x K fetch-adds of distinct values on one word of rank 0. */
	t0 = now();
	fails = 0;
	for (i = 0; i < count; i++) {
		uint64_t v = (uint64_t)job.rank * count + i + 1;

		if (!amo(0, GNI_FMA_ATOMIC_FADD, W_FADD, v, 0, &c) &&
		    fails++ < 3)
			diag("FADD %d: %s", i, describe(&c));
		fetched[i] = lbuf[0];
	}
	check(!fails, "%d FADDs on rank 0's word completed (%.0f us each)",
	      count, (now() - t0) * 1e6 / count);
	allgather(fetched, all, count * sizeof(*fetched));
	barrier();
	sum = 0;
	for (k = 0; k < job.size; k++)
		for (i = 0; i < count; i++) {
			uint64_t v = (uint64_t)k * count + i + 1;

			sum += v;
			pairs[2 * ((size_t)k * count + i)] =
				all[(size_t)k * count + i];
			pairs[2 * ((size_t)k * count + i) + 1] = v;
		}
	got = read_rank0(win, W_FADD);
	check(got == sum, "the word holds the sum of the %d x %d adds: %"
	      PRIu64 " (want %" PRIu64 ")", job.size, count, got, sum);
	qsort(pairs, (size_t)job.size * count, 2 * sizeof(*pairs),
	      cmp_u64_pair);
	bad = -1;
	for (i = 0, guess = 0; i < job.size * count && bad < 0; i++) {
		if (pairs[2 * i] != guess)
			bad = i;
		guess += pairs[2 * i + 1];
	}
	check(bad < 0, "the fetched values are distinct and chain up: each is "
	      "the one before plus its add%s", bad < 0 ? "" : " (NOT)");
	if (bad >= 0)
		diag("sorted fetch %d is %" PRIu64 ", want %" PRIu64, bad,
		     pairs[2 * bad], guess - pairs[2 * bad + 1]);
	barrier();

	/* 3. A counter incremented by CSWAP loops. */
	t0 = now();
	attempts = 0;
	fails = 0;
	guess = 0;
	for (i = 0; i < count / 2 && fails < 3; ) {
		attempts++;
		if (!amo(0, GNI_FMA_ATOMIC_CSWAP, W_CSWAP, guess, guess + 1,
			 &c)) {
			diag("CSWAP: %s", describe(&c));
			fails++;
			continue;
		}
		if (lbuf[0] == guess) {
			fetched[i++] = guess;
			guess++;
		} else {
			guess = lbuf[0];
		}
	}
	check(!fails, "%d increments by CSWAP in %ld attempts (%.0f us each)",
	      count / 2, attempts, (now() - t0) * 1e6 / attempts);
	allgather(fetched, all, count * sizeof(*fetched));
	barrier();
	got = read_rank0(win, W_CSWAP);
	check(got == (uint64_t)job.size * (count / 2), "the counter is %" PRIu64
	      " (want %d)", got, job.size * (count / 2));
	for (k = 0; k < job.size; k++)
		memcpy(pairs + (size_t)k * (count / 2),
		       all + (size_t)k * count, (count / 2) * sizeof(*all));
	qsort(pairs, (size_t)job.size * (count / 2), sizeof(*pairs), cmp_u64);
	for (i = 0; i < job.size * (count / 2) && pairs[i] == (uint64_t)i; i++)
		;
	check(i == job.size * (count / 2), "every successful swap saw a "
	      "different old value, 0 to %d", job.size * (count / 2) - 1);
	barrier();

	/* 4. Non-fetching adds. */
	fails = 0;
	for (i = 0; i < count; i++)
		if (!amo(0, GNI_FMA_ATOMIC_ADD, W_ADD, 1, 0, &c) && fails++ < 3)
			diag("ADD %d: %s", i, describe(&c));
	check(!fails, "%d ADDs of 1 on rank 0's word completed", count);
	barrier();
	got = read_rank0(win, W_ADD);
	check(got == (uint64_t)job.size * count, "the word is %" PRIu64
	      " (want %d)", got, job.size * count);
	barrier();

	rc = GNI_MemDeregister(job.nic, &lmh);
	check(rc == GNI_RC_SUCCESS, "GNI_MemDeregister of the local buffer: %s",
	      rc_str(rc));
	rc = GNI_MemDeregister(job.nic, &wmh);
	check(rc == GNI_RC_SUCCESS, "GNI_MemDeregister of the AMO words: %s",
	      rc_str(rc));
	job_fini();
	return job_finish();
}
