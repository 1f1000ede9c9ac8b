// SPDX-License-Identifier: GPL-2.0-only
/*
 * Baseline for `make bench`: a ping-pong between two guests over the
 * kernel's own network path (virtio-net on the Ethernet segment of
 * "vgemini up --net", or ipogif0 of "vgemini up --ipogif"), UDP or TCP,
 * what the fabric's messages are compared with.
 *
 *   udp_pingpong [-t SECONDS] [-p] server PORT
 *   udp_pingpong [-t SECONDS] [-p] client IP PORT COUNT SIZE
 *   udp_pingpong [-t SECONDS] [-p] tcp-server PORT
 *   udp_pingpong [-t SECONDS] [-p] tcp-client IP PORT COUNT SIZE
 *
 * Receives block, unless -p is given: then each side polls its socket
 * (non-blocking receives in a loop) while it waits, as ugni_bench polls
 * its flag in memory, so that a round trip holds no wake-up of a
 * sleeping process or of an idle vCPU.
 *
 * The client sends SIZE bytes, waits for them to come back, COUNT times
 * after 10 rounds of warm-up, and prints
 *
 *   udp: round trip us: min <a> avg <b> max <c>     (or "tcp: ...")
 *
 * The UDP server echoes every datagram to its sender and exits when an
 * empty one comes (the client sends three at the end); the TCP server
 * serves one connection, echoing bytes until the client closes.  The
 * client may start first: it retries while the server is not up yet.
 * Nothing waits longer than SECONDS (default 10) for the peer: a time-out
 * exits with status 1 and says so.  Exit 2 on usage errors.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define PROG		"udp_pingpong"
#define WARMUP		10
#define MAX_COUNT	10000000ul
#define UDP_MAX		65507		/* the largest UDP payload over IPv4 */
/* Larger writes could fill both sides' buffers before either reads. */
#define TCP_MAX		65536ul
#define FIN_COPIES	3

#include "bench_util.h"
#include "bench_net.h"

static int busy_poll;		/* -p */

static void __attribute__((noreturn)) usage(void)
{
	fprintf(stderr,
		"usage: " PROG " [-t SECONDS] [-p] server PORT\n"
		"       " PROG " [-t SECONDS] [-p] client IP PORT COUNT SIZE\n"
		"       " PROG " [-t SECONDS] [-p] tcp-server PORT\n"
		"       " PROG " [-t SECONDS] [-p] tcp-client IP PORT COUNT SIZE\n"
		"  -t SECONDS  longest wait for the peer (default 10)\n"
		"  -p          poll the socket while waiting (never sleep)\n"
		"  COUNT       measured round trips, 1..%lu (after %d of warm-up)\n"
		"  SIZE        bytes each way, 1..%d (UDP) or 1..%lu (TCP)\n",
		MAX_COUNT, WARMUP, UDP_MAX, TCP_MAX);
	exit(2);
}

/* Round-trip times, in seconds. */
struct stats {
	double min, max, sum;
	unsigned long n;
};

static void record(struct stats *st, double t)
{
	if (!st->n || t < st->min)
		st->min = t;
	if (!st->n || t > st->max)
		st->max = t;
	st->sum += t;
	st->n++;
}

static void report(const char *proto, const struct stats *st)
{
	printf("%s: round trip us: min %.1f avg %.1f max %.1f\n", proto,
	       st->min * 1e6, st->sum / st->n * 1e6, st->max * 1e6);
}

/* Round @i's bytes: its number first, so that a late answer is told apart. */
static void fill(unsigned char *buf, size_t size, unsigned long i)
{
	uint32_t v = (uint32_t)i;
	size_t k;

	for (k = 0; k < size; k++)
		buf[k] = k < 4 ? (unsigned char)(v >> (8 * k)) :
			(unsigned char)(k * 7 + 1);
}

/*
 * recvfrom(): blocking (the socket's time-out applies) or, with -p, polled
 * until @end, then -1 with errno EAGAIN as a time-out gives.
 */
static ssize_t wait_recv(int fd, void *buf, size_t len,
			 struct sockaddr_in *from, socklen_t *fromlen,
			 double end)
{
	ssize_t n;

	if (!busy_poll)
		return recvfrom(fd, buf, len, 0, (struct sockaddr *)from,
				fromlen);
	for (;;) {
		n = recvfrom(fd, buf, len, MSG_DONTWAIT,
			     (struct sockaddr *)from, fromlen);
		if (n >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
			return n;
		if (now() >= end) {
			errno = EAGAIN;
			return -1;
		}
	}
}

/* --- UDP ------------------------------------------------------------ */

static int udp_server(unsigned long port)
{
	struct sockaddr_in a = address(NULL, port), from;
	static unsigned char buf[UDP_MAX];
	unsigned long n_echoed = 0;
	socklen_t fromlen;
	ssize_t n;
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
		die("UDP port %lu: %s", port, strerror(errno));
	set_timeout(fd, timeout_s);
	for (;;) {
		fromlen = sizeof(from);
		n = wait_recv(fd, buf, sizeof(buf), &from, &fromlen,
			      now() + timeout_s);
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			die("no datagram for %g s (%lu echoed)", timeout_s,
			    n_echoed);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			die("recvfrom: %s", strerror(errno));
		}
		if (n == 0)		/* the client's end */
			return 0;
		if (sendto(fd, buf, n, 0, (struct sockaddr *)&from,
			   fromlen) < 0 && errno != EINTR)
			die("sendto: %s", strerror(errno));
		n_echoed++;
	}
}

/*
 * One round: send @out, wait up to @wait s for the same bytes back
 * (skipping late answers to earlier rounds).  0; -1 if none came; -2 if
 * the server's port is closed (it is not up yet, or no longer).
 */
static int udp_round(int fd, const unsigned char *out, unsigned char *in,
		     size_t size, double wait)
{
	double end = now() + wait;
	ssize_t n;

	if (send(fd, out, size, 0) < 0) {
		if (errno == ECONNREFUSED)
			return -2;
		die("send: %s", strerror(errno));
	}
	for (;;) {
		n = wait_recv(fd, in, size + 1, NULL, NULL, end);
		if (n == (ssize_t)size && !memcmp(in, out, size))
			return 0;
		if (n < 0 && errno != EINTR) {
			if (errno == ECONNREFUSED)
				return -2;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return -1;
			die("recv: %s", strerror(errno));
		}
		if (now() >= end)
			return -1;
	}
}

static int udp_client(const char *ip, unsigned long port,
		      unsigned long count, size_t size)
{
	struct sockaddr_in a = address(ip, port);
	unsigned char *out = malloc(size), *in = malloc(size + 1);
	struct stats st = { 0 };
	unsigned long i;
	double end;
	int fd = socket(AF_INET, SOCK_DGRAM, 0), k, r;

	if (!out || !in)
		die("out of memory");
	/* Connected: answers from the server only, and its ICMP errors. */
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
		die("%s:%lu: %s", ip, port, strerror(errno));
	/* Warm-up, resending while the server is not there yet. */
	set_timeout(fd, RETRY_MS / 1000.0);
	end = now() + timeout_s;
	for (i = 0; i < WARMUP; i++) {
		fill(out, size, i);
		while ((r = udp_round(fd, out, in, size, RETRY_MS / 1000.0))) {
			if (now() >= end)
				die("no answer from %s:%lu within %g s", ip,
				    port, timeout_s);
			if (r == -2)	/* refused at once: do not hurry */
				usleep(RETRY_MS * 1000 / 4);
		}
	}
	set_timeout(fd, timeout_s);
	for (i = 0; i < count; i++) {
		double t;

		fill(out, size, WARMUP + i);
		t = now();
		r = udp_round(fd, out, in, size, timeout_s);
		if (r == -2)
			die("round %lu: the server's port is closed", i + 1);
		if (r < 0)
			die("round %lu: no answer within %g s", i + 1,
			    timeout_s);
		record(&st, now() - t);
	}
	for (k = 0; k < FIN_COPIES; k++)
		send(fd, out, 0, 0);
	report("udp", &st);
	return 0;
}

/* --- TCP ------------------------------------------------------------ */

static void nodelay(int fd)
{
	int one = 1;

	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) < 0)
		die("setsockopt(TCP_NODELAY): %s", strerror(errno));
}

static int tcp_server(unsigned long port)
{
	static unsigned char buf[65536];
	int fd;
	ssize_t n, w, off;

	fd = tcp_accept(port);
	nodelay(fd);
	set_timeout(fd, timeout_s);
	for (;;) {
		n = wait_recv(fd, buf, sizeof(buf), NULL, NULL,
			      now() + timeout_s);
		if (n == 0)
			return 0;	/* the client is done */
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				die("no data for %g s", timeout_s);
			die("read: %s", strerror(errno));
		}
		for (off = 0; off < n; off += w) {
			w = write(fd, buf + off, n - off);
			if (w < 0 && errno == EINTR) {
				w = 0;
				continue;
			}
			if (w < 0)
				die("write: %s", strerror(errno));
		}
	}
}

static void tcp_round(int fd, const unsigned char *out, unsigned char *in,
		      size_t size, unsigned long round)
{
	size_t off;
	ssize_t n;

	for (off = 0; off < size; off += n) {
		n = write(fd, out + off, size - off);
		if (n < 0 && errno == EINTR)
			n = 0;
		else if (n < 0)
			die("round %lu: write: %s", round, strerror(errno));
	}
	for (off = 0; off < size; off += n) {
		n = wait_recv(fd, in + off, size - off, NULL, NULL,
			      now() + timeout_s);
		if (n < 0 && errno == EINTR) {
			n = 0;
		} else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			die("round %lu: no answer within %g s", round,
			    timeout_s);
		} else if (n < 0) {
			die("round %lu: read: %s", round, strerror(errno));
		} else if (n == 0) {
			die("round %lu: the server closed the connection",
			    round);
		}
	}
	if (memcmp(in, out, size))
		die("round %lu: the answer differs from what was sent", round);
}

static int tcp_client(const char *ip, unsigned long port,
		      unsigned long count, size_t size)
{
	unsigned char *out = malloc(size), *in = malloc(size);
	struct stats st = { 0 };
	unsigned long i;
	int fd;

	if (!out || !in)
		die("out of memory");
	fd = tcp_connect(ip, port);
	nodelay(fd);
	set_timeout(fd, timeout_s);
	for (i = 0; i < WARMUP + count; i++) {
		double t;

		fill(out, size, i);
		t = now();
		tcp_round(fd, out, in, size, i + 1);
		if (i >= WARMUP)
			record(&st, now() - t);
	}
	close(fd);
	report("tcp", &st);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode;
	int i = timeout_option(argc, argv);

	if (i < argc && !strcmp(argv[i], "-p")) {
		busy_poll = 1;
		i++;
	}
	if (i >= argc)
		usage();
	mode = argv[i++];
	/* Output goes to a pipe (the agent): no buffering to wait for. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(mode, "server") && argc - i == 1)
		return udp_server(number(argv[i], "port", 1, 65535));
	if (!strcmp(mode, "tcp-server") && argc - i == 1)
		return tcp_server(number(argv[i], "port", 1, 65535));
	if (!strcmp(mode, "client") && argc - i == 4)
		return udp_client(argv[i], number(argv[i + 1], "port", 1, 65535),
				  number(argv[i + 2], "count", 1, MAX_COUNT),
				  number(argv[i + 3], "size", 1, UDP_MAX));
	if (!strcmp(mode, "tcp-client") && argc - i == 4)
		return tcp_client(argv[i], number(argv[i + 1], "port", 1, 65535),
				  number(argv[i + 2], "count", 1, MAX_COUNT),
				  number(argv[i + 3], "size", 1, TCP_MAX));
	usage();
}
