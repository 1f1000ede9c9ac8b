// SPDX-License-Identifier: GPL-2.0-only
/*
 * mpi_check: an MPI job's messages, byte for byte, over whatever the MPI
 * library chose (with Open MPI built for a Cray: btl/ugni).  Plain MPI,
 * built on the host with mpicc and run with "vgemini run -n N ./mpi_check".
 *
 * 1. Point to point, every size class from 0 B to 16 MiB (so that each
 *    protocol of the transport runs: eager, get, put, their fallbacks):
 *    each rank sends to rank + k and receives from rank - k for every
 *    distance k, blocking (MPI_Sendrecv and MPI_Send/MPI_Recv in turn)
 *    and non-blocking (MPI_Isend/MPI_Irecv, several messages in flight),
 *    from buffers at odd offsets; each message's bytes depend on sender,
 *    receiver, size and round, and every byte is checked, as are the
 *    status's source, tag and count.  --distances D: the blocking part
 *    only for k = 1 .. D, to save time (distance 1 alone crosses 1, 2
 *    and 3 hops of a 2x2x2 torus, and the node itself with two ranks a
 *    node); --max-size BYTES: no message larger than that;
 *    --nb-max-size BYTES: no non-blocking message larger than that (the
 *    blocking part has sent the large ones already).
 * 2. MPI_Barrier, MPI_Allreduce (sum, max, and of a large vector) and
 *    MPI_Alltoall (distinct blocks for every pair), checked exactly.
 * 3. --abort-rank R: rank R calls MPI_Abort(MPI_COMM_WORLD, 7) after the
 *    first barrier; the others wait in the next one.
 *
 * MPI_CHECK_TRACE set in the environment: each rank prints each blocking
 * distance and each non-blocking size as it starts it, with the seconds
 * since MPI_Init (to find where a job hangs or spends its time).
 *
 * Output: TAP-like "ok N - ..." / "not ok N - ..." lines, then
 * "mpi_check: rank R of N: K checks passed" or "... K checks failed".
 * Exit status 0 if every check passed, 1 otherwise.
 */
#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SIZE	(16u << 20)
#define MAX_INFLIGHT	4
#define TAG_BASE	100

static int rank, nranks, checks, failed;
/* The blocking part's distances: 1 .. max_distance (--distances) */
static int max_distance;
/* The largest point-to-point message (--max-size) */
static size_t max_size = MAX_SIZE;
/* The largest non-blocking message (--nb-max-size) */
static size_t nb_max_size = MAX_SIZE;
/* MPI_CHECK_TRACE set: each rank says which size it is at, to find a hang */
static int trace;
static double t_start;

static void check(int ok, const char *what, ...)
	__attribute__((format(printf, 2, 3)));

static void check(int ok, const char *fmt, ...)
{
	va_list ap;

	checks++;
	if (!ok)
		failed++;
	/* Only failures and rank 0's passes: 16 ranks of passes are noise. */
	if (ok && rank)
		return;
	printf("%sok %d - ", ok ? "" : "not ", checks);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* The byte at @i of the message @src sends to @dst of @len in @round */
static unsigned char pattern(int src, int dst, size_t len, int round,
			     size_t i)
{
	uint64_t x = (uint64_t)i * 0x9e3779b97f4a7c15ull ^
		     (uint64_t)src << 40 ^ (uint64_t)dst << 24 ^
		     (uint64_t)len << 3 ^ (uint64_t)round;

	x ^= x >> 29;
	return (unsigned char)(x * 0xbf58476d1ce4e5b9ull >> 56);
}

static void fill(unsigned char *p, int src, int dst, size_t len, int round)
{
	for (size_t i = 0; i < len; i++)
		p[i] = pattern(src, dst, len, round, i);
}

/* Index of the first wrong byte, or -1 */
static long long first_wrong(const unsigned char *p, int src, int dst,
			     size_t len, int round)
{
	for (size_t i = 0; i < len; i++)
		if (p[i] != pattern(src, dst, len, round, i))
			return (long long)i;
	return -1;
}

static const size_t sizes[] = {
	0, 1, 7, 8, 63, 64, 100, 512, 1000, 1024, 2047, 4096, 8191, 8192,
	16384, 32768, 65535, 65536, 131072, 262144, 524288, 1048576 + 3,
	4u << 20, MAX_SIZE,
};
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

static void check_status(const MPI_Status *st, int src, int tag,
			 size_t len, const char *how)
{
	int count = -1;

	MPI_Get_count(st, MPI_BYTE, &count);
	if (st->MPI_SOURCE != src || st->MPI_TAG != tag ||
	    count != (int)len)
		check(0, "%s %zu B from %d: status source %d tag %d count %d",
		      how, len, src, st->MPI_SOURCE, st->MPI_TAG, count);
}

/* Blocking: every distance k, every size, Sendrecv and Send/Recv. */
static void p2p_blocking(unsigned char *sbuf, unsigned char *rbuf)
{
	for (int k = 1; k <= max_distance; k++) {
		int to = (rank + k) % nranks, from = (rank - k + nranks) %
						     nranks;
		int bad = 0;

		if (trace) {
			printf("# %.1f s: blocking, distance %d\n",
			       MPI_Wtime() - t_start, k);
			fflush(stdout);
		}
		for (size_t s = 0; s < NSIZES; s++) {
			size_t len = sizes[s];
			int round = k * 64 + (int)s, tag = TAG_BASE + (int)s;
			MPI_Status st;
			long long w;

			/* Big messages only for the first distance: time */
			if ((len > (1u << 20) && k > 1) || len > max_size)
				continue;
			fill(sbuf + 1, rank, to, len, round);
			memset(rbuf, 0xee, len + 2);
			if (s % 2 == 0 || nranks % 2) {
				MPI_Sendrecv(sbuf + 1, (int)len, MPI_BYTE, to,
					     tag, rbuf + 1, (int)len, MPI_BYTE,
					     from, tag, MPI_COMM_WORLD, &st);
			} else if ((rank / k) % 2 == 0) {
				/* Send first, then receive, in pairs */
				MPI_Send(sbuf + 1, (int)len, MPI_BYTE, to, tag,
					 MPI_COMM_WORLD);
				MPI_Recv(rbuf + 1, (int)len, MPI_BYTE, from,
					 tag, MPI_COMM_WORLD, &st);
			} else {
				MPI_Recv(rbuf + 1, (int)len, MPI_BYTE, from,
					 tag, MPI_COMM_WORLD, &st);
				MPI_Send(sbuf + 1, (int)len, MPI_BYTE, to, tag,
					 MPI_COMM_WORLD);
			}
			check_status(&st, from, tag, len, "blocking");
			w = first_wrong(rbuf + 1, from, rank, len, round);
			if (w >= 0 || rbuf[0] != 0xee ||
			    rbuf[len + 1] != 0xee) {
				check(0, "blocking %zu B from %d (distance "
				      "%d): byte %lld wrong or a byte around "
				      "it written", len, from, k, w);
				bad++;
			}
		}
		check(!bad, "blocking messages of every size, 0 B .. %zu B, "
		      "distance %d: every byte", max_size, k);
	}
}

/* Non-blocking: MAX_INFLIGHT messages of each size in flight at once. */
static void p2p_nonblocking(unsigned char *sbuf, unsigned char *rbuf)
{
	int to = (rank + 1) % nranks, from = (rank - 1 + nranks) % nranks;
	MPI_Request req[2 * MAX_INFLIGHT];
	MPI_Status st[2 * MAX_INFLIGHT];
	int bad = 0;

	for (size_t s = 0; s < NSIZES; s++) {
		size_t len = sizes[s], stride = len + 8;
		int n = len * MAX_INFLIGHT + 8 * MAX_INFLIGHT <=
			MAX_SIZE + 64 ? MAX_INFLIGHT : 1;

		if (len > max_size || len > nb_max_size)
			break;

		if (trace) {
			printf("# %.1f s: non-blocking: %d x %zu B\n",
			       MPI_Wtime() - t_start, n, len);
			fflush(stdout);
		}
		for (int m = 0; m < n; m++) {
			int round = 1000 + (int)s * 8 + m;

			fill(sbuf + 3 + m * stride, rank, to, len, round);
			memset(rbuf + m * stride, 0xee, stride);
			MPI_Irecv(rbuf + m * stride + 3, (int)len, MPI_BYTE,
				  from, TAG_BASE + m, MPI_COMM_WORLD,
				  &req[m]);
		}
		/* Sent in the reverse order: matching is by tag. */
		for (int m = n - 1; m >= 0; m--)
			MPI_Isend(sbuf + 3 + m * stride, (int)len, MPI_BYTE,
				  to, TAG_BASE + m, MPI_COMM_WORLD,
				  &req[n + m]);
		MPI_Waitall(2 * n, req, st);
		for (int m = 0; m < n; m++) {
			unsigned char *r = rbuf + m * stride;
			long long w = first_wrong(r + 3, from, rank, len,
						  1000 + (int)s * 8 + m);

			check_status(&st[m], from, TAG_BASE + m, len,
				     "non-blocking");
			if (w >= 0 || r[2] != 0xee || r[len + 3] != 0xee) {
				check(0, "non-blocking %zu B #%d from %d: "
				      "byte %lld wrong", len, m, from, w);
				bad++;
			}
		}
	}
	check(!bad, "non-blocking messages of every size up to %zu B, up to %d "
	      "in flight each way: every byte",
	      max_size < nb_max_size ? max_size : nb_max_size, MAX_INFLIGHT);
}

static void collectives(void)
{
	long long sum = 0, want = 0;
	int max = 0, *vec, *vsum, n = 1 << 18;
	int *a2a_s, *a2a_r, bad = 0;

	MPI_Barrier(MPI_COMM_WORLD);
	check(1, "MPI_Barrier");

	long long mine = 1000003LL * rank + 17;

	MPI_Allreduce(&mine, &sum, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
	for (int r = 0; r < nranks; r++)
		want += 1000003LL * r + 17;
	check(sum == want, "MPI_Allreduce sum: %lld (want %lld)", sum, want);
	MPI_Allreduce(&rank, &max, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	check(max == nranks - 1, "MPI_Allreduce max: %d", max);

	vec = malloc(n * sizeof(*vec));
	vsum = malloc(n * sizeof(*vsum));
	for (int i = 0; i < n; i++)
		vec[i] = i ^ rank;
	MPI_Allreduce(vec, vsum, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	for (int i = 0; i < n && !bad; i++) {
		long long w = 0;

		for (int r = 0; r < nranks; r++)
			w += i ^ r;
		bad = vsum[i] != (int)w;
	}
	check(!bad, "MPI_Allreduce of %d ints (1 MiB): every element", n);
	free(vec);
	free(vsum);

	/* 1000 ints to every rank, distinct for each pair */
	n = 1000;
	a2a_s = malloc((size_t)n * nranks * sizeof(int));
	a2a_r = malloc((size_t)n * nranks * sizeof(int));
	for (int r = 0; r < nranks; r++)
		for (int i = 0; i < n; i++)
			a2a_s[r * n + i] = rank * 1000000 + r * 1000 + i;
	memset(a2a_r, 0xff, (size_t)n * nranks * sizeof(int));
	MPI_Alltoall(a2a_s, n, MPI_INT, a2a_r, n, MPI_INT, MPI_COMM_WORLD);
	bad = 0;
	for (int r = 0; r < nranks; r++)
		for (int i = 0; i < n; i++)
			bad += a2a_r[r * n + i] != r * 1000000 + rank * 1000 + i;
	check(!bad, "MPI_Alltoall of %d ints per pair: every element (%d "
	      "wrong)", n, bad);
	free(a2a_s);
	free(a2a_r);
}

int main(int argc, char **argv)
{
	unsigned char *sbuf, *rbuf;
	int abort_rank = -1;

	MPI_Init(&argc, &argv);
	trace = getenv("MPI_CHECK_TRACE") != NULL;
	t_start = MPI_Wtime();
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--abort-rank") && i + 1 < argc) {
			abort_rank = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--distances") && i + 1 < argc) {
			max_distance = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--max-size") && i + 1 < argc) {
			max_size = strtoul(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--nb-max-size") && i + 1 < argc) {
			nb_max_size = strtoul(argv[++i], NULL, 0);
		} else {
			if (!rank)
				fprintf(stderr, "usage: mpi_check "
					"[--distances D] [--max-size BYTES] "
					"[--nb-max-size BYTES] "
					"[--abort-rank R]\n");
			MPI_Finalize();
			return 2;
		}
	}
	check(nranks >= 2, "%d ranks", nranks);
	if (max_distance < 1 || max_distance >= nranks)
		max_distance = nranks - 1;

	if (abort_rank >= 0) {
		MPI_Barrier(MPI_COMM_WORLD);
		if (rank == abort_rank) {
			printf("mpi_check: rank %d calls MPI_Abort(7)\n", rank);
			fflush(stdout);
			MPI_Abort(MPI_COMM_WORLD, 7);
		}
		MPI_Barrier(MPI_COMM_WORLD);
		printf("mpi_check: rank %d passed a barrier after the abort\n",
		       rank);
		MPI_Finalize();
		return 1;
	}

	sbuf = malloc(MAX_SIZE + 64 * MAX_INFLIGHT);
	rbuf = malloc(MAX_SIZE + 64 * MAX_INFLIGHT);
	if (!sbuf || !rbuf) {
		check(0, "malloc of two %u MiB buffers", MAX_SIZE >> 20);
	} else {
		p2p_blocking(sbuf, rbuf);
		p2p_nonblocking(sbuf, rbuf);
	}
	if (trace) {
		printf("# %.1f s: collectives\n", MPI_Wtime() - t_start);
		fflush(stdout);
	}
	collectives();
	free(sbuf);
	free(rbuf);

	MPI_Finalize();
	printf("mpi_check: rank %d of %d: %d checks %s\n", rank, nranks,
	       failed ? failed : checks, failed ? "failed" : "passed");
	return failed ? 1 : 0;
}
