// SPDX-License-Identifier: GPL-2.0-only
/*
 * A ping whose replies are checked byte for byte: COUNT ICMP echo
 * requests of SIZE payload bytes, a pattern made from SEED and the
 * request's sequence number, each reply's payload compared with what was
 * sent (busybox ping does not compare).  The ipogif test checks large
 * frames across the fabric with it.  Needs a raw socket (root).
 *
 *   icmp_echo [-t SECONDS] IP SIZE COUNT [SEED]
 *
 * One request at a time; prints
 *
 *   icmp_echo: <count> replies of <size> bytes as sent; round trip us: min <a> avg <b> max <c>
 *
 * or which reply differed and where (exit 1).  A reply that does not come
 * within SECONDS (default 10) is a failure too.  Exit 2 on usage errors.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip_icmp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define PROG		"icmp_echo"
#define MAX_SIZE	65507		/* 65535 less the IP and ICMP headers */
#define MAX_COUNT	100000ul
#define DEFAULT_SEED	1

#include "bench_util.h"

static void __attribute__((noreturn)) usage(void)
{
	fprintf(stderr,
		"usage: " PROG " [-t SECONDS] IP SIZE COUNT [SEED]\n"
		"  -t SECONDS  longest wait for a reply (default 10)\n"
		"  SIZE        payload bytes, 8..%d\n"
		"  COUNT       requests, 1..%lu\n"
		"  SEED        the pattern's seed (default %d)\n",
		MAX_SIZE, MAX_COUNT, DEFAULT_SEED);
	exit(2);
}

/* The Internet checksum of @n bytes */
static uint16_t checksum(const void *data, size_t n)
{
	const unsigned char *p = data;
	uint32_t sum = 0;
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (n & 1)
		sum += (uint32_t)p[n - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return htons((uint16_t)~sum);
}

/* Request @seq's payload: a generator seeded by @seed and @seq */
static void fill(unsigned char *buf, size_t n, uint32_t seed, uint16_t seq)
{
	uint32_t state = seed ^ (uint32_t)seq << 16 ^ seq;
	size_t i;

	for (i = 0; i < n; i++) {
		state = state * 1103515245u + 12345u;
		buf[i] = (unsigned char)(state >> 24);
	}
}

/*
 * Wait for the reply to (@id, @seq) and check it against @req's payload;
 * its round trip in seconds.
 */
static double await_reply(int fd, const unsigned char *req, size_t size,
			  uint16_t id, uint16_t seq, double t0)
{
	static unsigned char in[65536];
	const struct icmphdr *icmp;
	const struct iphdr *ip;
	struct pollfd p = { .fd = fd, .events = POLLIN };
	size_t hl, i;
	double left;
	ssize_t n;

	for (;;) {
		left = t0 + timeout_s - now();
		if (left <= 0 || poll(&p, 1, (int)(left * 1000 + 0.999)) == 0)
			die("request %u: no reply within %g s", seq, timeout_s);
		n = recv(fd, in, sizeof(in), 0);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			die("recv: %s", strerror(errno));
		}
		ip = (const struct iphdr *)in;
		hl = ip->ihl * 4u;
		if ((size_t)n < hl + sizeof(*icmp))
			continue;
		icmp = (const struct icmphdr *)(in + hl);
		/* Other processes' ICMP comes to a raw socket too. */
		if (icmp->type != ICMP_ECHOREPLY || ntohs(icmp->un.echo.id) != id ||
		    ntohs(icmp->un.echo.sequence) != seq)
			continue;
		break;
	}
	if ((size_t)n != hl + sizeof(*icmp) + size)
		die("reply %u: %zd payload bytes, not %zu", seq,
		    n - (ssize_t)(hl + sizeof(*icmp)), size);
	if (checksum(icmp, n - hl))
		die("reply %u: bad ICMP checksum", seq);
	if (memcmp(in + hl + sizeof(*icmp), req + sizeof(*icmp), size)) {
		for (i = 0; in[hl + sizeof(*icmp) + i] ==
			    req[sizeof(*icmp) + i]; i++)
			;
		die("reply %u: payload byte %zu is 0x%02x, not 0x%02x", seq,
		    i, in[hl + sizeof(*icmp) + i], req[sizeof(*icmp) + i]);
	}
	return now() - t0;
}

int main(int argc, char **argv)
{
	struct sockaddr_in to = { .sin_family = AF_INET };
	double t, t0, min = 0, max = 0, sum = 0;
	uint32_t seed = DEFAULT_SEED;
	unsigned long count, k;
	struct icmphdr *icmp;
	unsigned char *req;
	uint16_t id;
	size_t size;
	int fd, i;

	i = timeout_option(argc, argv);
	if (argc - i != 3 && argc - i != 4)
		usage();
	if (inet_pton(AF_INET, argv[i], &to.sin_addr) != 1) {
		fprintf(stderr, PROG ": bad IPv4 address '%s'\n", argv[i]);
		usage();
	}
	size = number(argv[i + 1], "size", 8, MAX_SIZE);
	count = number(argv[i + 2], "count", 1, MAX_COUNT);
	if (argc - i == 4)
		seed = number(argv[i + 3], "seed", 0, UINT32_MAX);
	setvbuf(stdout, NULL, _IOLBF, 0);

	fd = socket(AF_INET, SOCK_RAW, IPPROTO_ICMP);
	if (fd < 0)
		die("raw ICMP socket: %s", strerror(errno));
	req = malloc(sizeof(*icmp) + size);
	if (!req)
		die("out of memory");
	icmp = (struct icmphdr *)req;
	id = (uint16_t)getpid();
	for (k = 0; k < count; k++) {
		uint16_t seq = (uint16_t)(k + 1);

		memset(icmp, 0, sizeof(*icmp));
		icmp->type = ICMP_ECHO;
		icmp->un.echo.id = htons(id);
		icmp->un.echo.sequence = htons(seq);
		fill(req + sizeof(*icmp), size, seed, seq);
		icmp->checksum = checksum(req, sizeof(*icmp) + size);
		t0 = now();
		if (sendto(fd, req, sizeof(*icmp) + size, 0,
			   (struct sockaddr *)&to, sizeof(to)) < 0)
			die("request %u: sendto: %s", seq, strerror(errno));
		t = await_reply(fd, req, size, id, seq, t0);
		if (!k || t < min)
			min = t;
		if (!k || t > max)
			max = t;
		sum += t;
	}
	printf(PROG ": %lu replies of %zu bytes as sent; round trip us: min %.1f avg %.1f max %.1f\n",
	       count, size, min * 1e6, sum / count * 1e6, max * 1e6);
	close(fd);
	return 0;
}
