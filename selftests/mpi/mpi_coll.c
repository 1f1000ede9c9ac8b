// SPDX-License-Identifier: GPL-2.0-only
/*
 * mpi_coll: what many ranks cost next to two, for `make bench-mpi`
 * (issue figures P7 and P8 in Documentation/testing.rst, "Benchmarks").
 *
 * On every rank count it prints, from rank 0:
 *
 *   "pingpong8 round_trip_us X"      8 bytes between ranks 0 and 1, the
 *                                    others waiting in a barrier
 *   "allreduce8 latency_us X"        MPI_Allreduce of one 64-bit sum
 *   "alltoall BYTES aggregate_MBps X seconds_per_call Y"
 *                                    MPI_Alltoall of BYTES per pair: the
 *                                    bytes that cross between ranks
 *                                    (size * (size - 1) * BYTES) per second
 *
 * Every wait polls (MPI's own progress), none sleeps.  Each allreduce's
 * sum and every byte of every all-to-all block are checked; the program
 * exits 1 if one is wrong.
 *
 *   mpi_coll [--iters N] [--a2a-bytes B] [--a2a-iters M]
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, bad;

/* The byte at @off of the block rank @from sends rank @to in call @it */
static unsigned char pattern(int from, int to, int it, size_t off)
{
	return (unsigned char)(from * 131 + to * 17 + it * 7 + off * 3 +
			       (off >> 8));
}

static double pingpong8(int iters)
{
	uint64_t v = 0;
	double t0 = 0;
	int i;

	MPI_Barrier(MPI_COMM_WORLD);
	for (i = -10; i < iters; i++) {
		if (i == 0)
			t0 = MPI_Wtime();
		if (rank == 0) {
			v = (uint64_t)i;
			MPI_Send(&v, 1, MPI_UINT64_T, 1, 1, MPI_COMM_WORLD);
			MPI_Recv(&v, 1, MPI_UINT64_T, 1, 1, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			if (v != (uint64_t)i + 1)
				bad++;
		} else if (rank == 1) {
			MPI_Recv(&v, 1, MPI_UINT64_T, 0, 1, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			if (v != (uint64_t)i)
				bad++;
			v++;
			MPI_Send(&v, 1, MPI_UINT64_T, 0, 1, MPI_COMM_WORLD);
		}
	}
	t0 = MPI_Wtime() - t0;
	MPI_Barrier(MPI_COMM_WORLD);
	return t0 * 1e6 / iters;
}

static double allreduce8(int iters)
{
	uint64_t in, out, want;
	double t0 = 0;
	int i;

	MPI_Barrier(MPI_COMM_WORLD);
	for (i = -10; i < iters; i++) {
		if (i == 0)
			t0 = MPI_Wtime();
		in = (uint64_t)(rank + 1) * (uint64_t)(i + 20);
		want = (uint64_t)size * (size + 1) / 2 * (uint64_t)(i + 20);
		MPI_Allreduce(&in, &out, 1, MPI_UINT64_T, MPI_SUM,
			      MPI_COMM_WORLD);
		if (out != want)
			bad++;
	}
	t0 = MPI_Wtime() - t0;
	return t0 * 1e6 / iters;
}

static double alltoall(size_t bytes, int iters)
{
	unsigned char *s = malloc(bytes * size), *r = malloc(bytes * size);
	double t0 = 0;
	int it, p;
	size_t o;

	if (!s || !r) {
		fprintf(stderr, "mpi_coll: no memory for %zu bytes\n",
			bytes * size);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	for (it = -1; it < iters; it++) {
		for (p = 0; p < size; p++)
			for (o = 0; o < bytes; o++)
				s[p * bytes + o] = pattern(rank, p, it, o);
		memset(r, 0, bytes * size);
		MPI_Barrier(MPI_COMM_WORLD);
		if (it == 0)
			t0 = MPI_Wtime();
		MPI_Alltoall(s, (int)bytes, MPI_BYTE, r, (int)bytes, MPI_BYTE,
			     MPI_COMM_WORLD);
		if (it == iters - 1)
			t0 = MPI_Wtime() - t0;
		for (p = 0; p < size; p++)
			for (o = 0; o < bytes; o++)
				if (r[p * bytes + o] != pattern(p, rank, it, o)) {
					bad++;
					break;
				}
	}
	free(s);
	free(r);
	return t0;
}

int main(int argc, char **argv)
{
	size_t a2a_bytes = 1u << 20;
	int iters = 200, a2a_iters = 3, i, all_bad;
	double rt, ar, t;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--iters") && i + 1 < argc) {
			iters = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--a2a-bytes") && i + 1 < argc) {
			a2a_bytes = strtoul(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--a2a-iters") && i + 1 < argc) {
			a2a_iters = atoi(argv[++i]);
		} else {
			if (!rank)
				fprintf(stderr, "usage: mpi_coll [--iters N] [--a2a-bytes B] [--a2a-iters M]\n");
			MPI_Finalize();
			return 2;
		}
	}
	if (size < 2 || iters < 1 || a2a_iters < 1 || !a2a_bytes ||
	    a2a_bytes > (1u << 24)) {
		if (!rank)
			fprintf(stderr, "mpi_coll: needs 2 ranks or more, positive counts, at most 16 MiB per pair\n");
		MPI_Finalize();
		return 2;
	}
	rt = pingpong8(iters);
	ar = allreduce8(iters);
	t = alltoall(a2a_bytes, a2a_iters);
	MPI_Allreduce(&bad, &all_bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (!rank) {
		printf("ranks %d\n", size);
		printf("pingpong8 round_trip_us %.1f\n", rt);
		printf("allreduce8 latency_us %.1f\n", ar);
		printf("alltoall %zu aggregate_MBps %.1f seconds_per_call %.4f\n",
		       a2a_bytes,
		       (double)size * (size - 1) * a2a_bytes * a2a_iters /
		       t / 1e6, t / a2a_iters);
		printf("mpi_coll: %s\n", all_bad ? "WRONG DATA" : "data checked");
	}
	MPI_Finalize();
	return all_bad ? 1 : 0;
}
