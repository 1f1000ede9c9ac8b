// SPDX-License-Identifier: GPL-2.0-only
/*
 * mpi_pingpong: MPI latency and bandwidth between ranks 0 and 1, as OSU's
 * osu_latency and osu_bw measure them, for every power of two from 1 B to
 * 4 MiB (--max BYTES to stop earlier).
 *
 * Latency: rank 0 sends, rank 1 sends back; half the average round trip
 * after warm-up rounds.  Bandwidth: rank 0 posts a window of 64
 * non-blocking sends, rank 1 64 receives, then rank 1 answers with one
 * byte; bytes over time, several windows.  Both wait by polling (MPI's
 * own progress), never by sleeping.  The first and last byte of every
 * message are checked.
 *
 * Prints one line per size:  "size BYTES latency_us X bandwidth_MBps Y"
 * (rank 0), and exits 1 if a check failed.
 *
 * --only BYTES --count K: exactly K round trips of BYTES, nothing else
 * ("size BYTES round_trips K latency_us X"): what one message of that size
 * costs the fabric, read from its counters around the job (K = 0 gives
 * the job's own start and end).  Needs exactly 2 ranks (more
 * are allowed: they only wait in MPI_Finalize).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEFAULT	(4u << 20)
#define WINDOW		64

static int rank, bad;

static int iters_for(size_t len, int small, int large)
{
	return len <= 8192 ? small : len <= (1u << 20) ? large : large / 4 + 2;
}

/* The first byte @v and, from 2 bytes on, the last @v ^ 0x5a */
static void stamp(unsigned char *p, size_t len, unsigned char v)
{
	if (len)
		p[0] = v;
	if (len > 1)
		p[len - 1] = (unsigned char)(v ^ 0x5a);
}

static void expect(const unsigned char *p, size_t len, unsigned char v)
{
	if ((len && p[0] != v) ||
	    (len > 1 && p[len - 1] != (unsigned char)(v ^ 0x5a)))
		bad++;
}

/* One round trip of @len bytes between ranks 0 and 1; round @i. */
static void pingpong_round(unsigned char *s, unsigned char *r, size_t len,
			   int i)
{
	if (rank == 0) {
		stamp(s, len, (unsigned char)i);
		MPI_Send(s, (int)len, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
		MPI_Recv(r, (int)len, MPI_BYTE, 1, 1, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
		expect(r, len, (unsigned char)~i);
	} else {
		MPI_Recv(r, (int)len, MPI_BYTE, 0, 1, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
		expect(r, len, (unsigned char)i);
		stamp(s, len, (unsigned char)~i);
		MPI_Send(s, (int)len, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
	}
}

/* A window of WINDOW messages from rank 0 to rank 1, then a 1-byte ack. */
static void window_round(unsigned char *s, unsigned char *r, size_t len,
			 int i)
{
	MPI_Request req[WINDOW];
	unsigned char ack = 0;

	if (rank == 0) {
		stamp(s, len, (unsigned char)i);
		for (int w = 0; w < WINDOW; w++)
			MPI_Isend(s, (int)len, MPI_BYTE, 1, 2, MPI_COMM_WORLD,
				  &req[w]);
		MPI_Waitall(WINDOW, req, MPI_STATUSES_IGNORE);
		MPI_Recv(&ack, 1, MPI_BYTE, 1, 3, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
	} else {
		/* One receive buffer: the window's data overlap. */
		for (int w = 0; w < WINDOW; w++)
			MPI_Irecv(r, (int)len, MPI_BYTE, 0, 2, MPI_COMM_WORLD,
				  &req[w]);
		MPI_Waitall(WINDOW, req, MPI_STATUSES_IGNORE);
		expect(r, len, (unsigned char)i);
		MPI_Send(&ack, 1, MPI_BYTE, 0, 3, MPI_COMM_WORLD);
	}
}

typedef void round_fn(unsigned char *s, unsigned char *r, size_t len,
		      int i);

/* Seconds that @n rounds of @fn take after @warm rounds not timed. */
static double timed(round_fn *fn, unsigned char *s, unsigned char *r,
		    size_t len, int n, int warm)
{
	double t0 = 0;

	for (int i = 0; i < n + warm; i++) {
		if (i == warm)
			t0 = MPI_Wtime();
		fn(s, r, len, i);
	}
	return MPI_Wtime() - t0;
}

static double latency(unsigned char *s, unsigned char *r, size_t len)
{
	int n = iters_for(len, 200, 40);

	return timed(pingpong_round, s, r, len, n, n / 10 + 1) * 1e6 / n / 2;
}

static double bandwidth(unsigned char *s, unsigned char *r, size_t len)
{
	int n = iters_for(len, 20, 6);

	return (double)len * WINDOW * n / timed(window_round, s, r, len, n, 2) /
	       1e6;
}

static int usage(void)
{
	if (!rank)
		fprintf(stderr, "usage: mpi_pingpong [--max BYTES | --only BYTES "
			"--count K] (2 ranks)\n");
	MPI_Finalize();
	return 2;
}

int main(int argc, char **argv)
{
	size_t max = MAX_DEFAULT, only = 0;
	long count = -1;
	unsigned char *s, *r;
	int nranks;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	for (int i = 1; i < argc; i++) {
		if (i + 1 == argc)
			return usage();
		if (!strcmp(argv[i], "--max"))
			max = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--only"))
			only = max = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--count"))
			count = strtol(argv[++i], NULL, 0);
		else
			return usage();
	}
	if (nranks < 2 || max < 1 || max > (1u << 30) ||
	    (only && (count < 0 || count > 1000000)) || (!only && count >= 0))
		return usage();
	s = calloc(1, max);
	r = calloc(1, max);
	if (!s || !r)
		MPI_Abort(MPI_COMM_WORLD, 3);
	if (rank < 2 && only) {
		/* Exactly @count round trips: a fabric's counters read around
		 * the job show what one message of this size costs. */
		double t = timed(pingpong_round, s, r, only, (int)count, 0);

		if (!rank)
			printf("size %zu round_trips %ld latency_us %.2f\n", only,
			       count, count ? t * 1e6 / (double)count / 2 : 0.0);
	} else if (rank < 2) {
		for (size_t len = 1; len <= max; len *= 2) {
			int before = bad;
			double lat = latency(s, r, len);
			double bw = bandwidth(s, r, len);

			if (bad != before)
				fprintf(stderr, "mpi_pingpong: rank %d: %d "
					"messages of %zu B with wrong bytes\n",
					rank, bad - before, len);

			if (!rank) {
				printf("size %zu latency_us %.2f bandwidth_MBps "
				       "%.2f\n", len, lat, bw);
				fflush(stdout);
			}
		}
	}
	if (rank < 2 && bad)
		fprintf(stderr, "mpi_pingpong: rank %d: %d messages with wrong "
			"bytes\n", rank, bad);
	free(s);
	free(r);
	MPI_Finalize();
	return bad ? 1 : 0;
}
