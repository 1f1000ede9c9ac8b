// SPDX-License-Identifier: GPL-2.0-only
/*
 * A TCP stream checked byte for byte: the sender writes BYTES bytes of a
 * pattern made from SEED, the receiver reads them and compares each with
 * the pattern.  The ipogif test moves data across the fabric with it;
 * the rate it prints is what `make bench` can report.
 *
 *   tcp_stream [-t SECONDS] recv PORT BYTES [SEED]
 *   tcp_stream [-t SECONDS] send IP PORT BYTES [SEED]
 *
 * The receiver serves one connection and prints
 *
 *   tcp_stream: received <n> bytes as sent in <s> s (<r> MB/s)
 *
 * or says at which byte the stream differs, or that it ended early (exit
 * 1).  The sender prints "tcp_stream: sent <n> bytes in <s> s (<r> MB/s)"
 * once the receiver has closed its end (so every byte was read).  The
 * sender may start first: it retries while the receiver does not listen
 * yet.  Nothing waits longer than SECONDS (default 10) for the peer: a
 * time-out exits with status 1 and says so.  Exit 2 on usage errors.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define PROG		"tcp_stream"
#define MAX_BYTES	(1ull << 40)
#define CHUNK		65536
#define DEFAULT_SEED	1

#include "bench_util.h"
#include "bench_net.h"

static void __attribute__((noreturn)) usage(void)
{
	fprintf(stderr,
		"usage: " PROG " [-t SECONDS] recv PORT BYTES [SEED]\n"
		"       " PROG " [-t SECONDS] send IP PORT BYTES [SEED]\n"
		"  -t SECONDS  longest wait for the peer (default 10)\n"
		"  BYTES       bytes of the stream, 1..%llu\n"
		"  SEED        the pattern's seed (default %d)\n",
		MAX_BYTES, DEFAULT_SEED);
	exit(2);
}

/*
 * The pattern: a 32-bit linear congruential generator from the seed, its
 * top byte at each position, so that a byte out of place shows.
 */
struct pattern {
	uint32_t state;
};

static void pattern_fill(struct pattern *p, unsigned char *buf, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		p->state = p->state * 1103515245u + 12345u;
		buf[i] = (unsigned char)(p->state >> 24);
	}
}

static void rate(const char *what, unsigned long long n, double t)
{
	printf(PROG ": %s %llu bytes%s in %.3f s (%.2f MB/s)\n", what, n,
	       what[0] == 'r' ? " as sent" : "", t, t > 0 ? n / t / 1e6 : 0);
}

static int recv_stream(unsigned long port, unsigned long long bytes,
		       uint32_t seed)
{
	static unsigned char buf[CHUNK], want[CHUNK];
	struct pattern p = { .state = seed };
	unsigned long long got = 0;
	int fd;
	double t0 = 0;
	ssize_t n, i;

	fd = tcp_accept(port);
	set_timeout(fd, timeout_s);
	while (got < bytes) {
		n = read(fd, buf, bytes - got < CHUNK ? bytes - got : CHUNK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			die("no data for %g s after %llu of %llu bytes",
			    timeout_s, got, bytes);
		if (n < 0)
			die("read: %s", strerror(errno));
		if (n == 0)
			die("the stream ended after %llu of %llu bytes", got,
			    bytes);
		if (!got)
			t0 = now();
		pattern_fill(&p, want, n);
		if (memcmp(buf, want, n)) {
			for (i = 0; buf[i] == want[i]; i++)
				;
			die("byte %llu is 0x%02x, not 0x%02x", got + i, buf[i],
			    want[i]);
		}
		got += n;
	}
	/* Nothing more may come: the sender closes after BYTES. */
	n = read(fd, buf, 1);
	if (n > 0)
		die("more than %llu bytes", bytes);
	rate("received", got, now() - t0);
	close(fd);
	return 0;
}

static int send_stream(const char *ip, unsigned long port,
		       unsigned long long bytes, uint32_t seed)
{
	static unsigned char buf[CHUNK];
	struct pattern p = { .state = seed };
	unsigned long long sent = 0;
	size_t len, off;
	double t0;
	ssize_t n;
	int fd;

	fd = tcp_connect(ip, port);
	set_timeout(fd, timeout_s);
	t0 = now();
	while (sent < bytes) {
		len = bytes - sent < CHUNK ? bytes - sent : CHUNK;
		pattern_fill(&p, buf, len);
		for (off = 0; off < len; off += n) {
			n = write(fd, buf + off, len - off);
			if (n < 0 && errno == EINTR) {
				n = 0;
			} else if (n < 0 && (errno == EAGAIN ||
					     errno == EWOULDBLOCK)) {
				die("no progress for %g s after %llu of %llu bytes",
				    timeout_s, sent + off, bytes);
			} else if (n < 0) {
				die("write: %s", strerror(errno));
			}
		}
		sent += len;
	}
	/* Done: wait for the receiver's close, which follows its check. */
	if (shutdown(fd, SHUT_WR) < 0)
		die("shutdown: %s", strerror(errno));
	n = read(fd, buf, 1);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		die("the receiver did not close within %g s", timeout_s);
	rate("sent", sent, now() - t0);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	uint32_t seed = DEFAULT_SEED;
	const char *mode;
	int i = timeout_option(argc, argv);

	if (i >= argc)
		usage();
	mode = argv[i++];
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(mode, "recv") && (argc - i == 2 || argc - i == 3)) {
		if (argc - i == 3)
			seed = number(argv[i + 2], "seed", 0, UINT32_MAX);
		return recv_stream(number(argv[i], "port", 1, 65535),
				   number(argv[i + 1], "bytes", 1, MAX_BYTES),
				   seed);
	}
	if (!strcmp(mode, "send") && (argc - i == 3 || argc - i == 4)) {
		if (argc - i == 4)
			seed = number(argv[i + 3], "seed", 0, UINT32_MAX);
		return send_stream(argv[i], number(argv[i + 1], "port", 1, 65535),
				   number(argv[i + 2], "bytes", 1, MAX_BYTES),
				   seed);
	}
	usage();
}
