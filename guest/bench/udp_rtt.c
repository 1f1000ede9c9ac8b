// SPDX-License-Identifier: GPL-2.0-only
/*
 * Baseline for `make bench`: the round trip of a 64-byte UDP datagram
 * between two processes on loopback, the cost a socket-based link between
 * two QEMU processes would pay per hop.  Prints "min avg max" in ns.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int bound_socket(struct sockaddr_in *a)
{
	socklen_t len = sizeof(*a);
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	a->sin_family = AF_INET;
	a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a->sin_port = 0;
	if (fd < 0 || bind(fd, (struct sockaddr *)a, sizeof(*a)) ||
	    getsockname(fd, (struct sockaddr *)a, &len)) {
		perror("udp_rtt: socket");
		exit(1);
	}
	return fd;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 20000;
	struct sockaddr_in a = { 0 }, b = { 0 };
	uint64_t min = UINT64_MAX, max = 0, sum = 0;
	char buf[64] = { 0 };
	int fa, fb, i;
	pid_t pid;

	if (n < 1 || n > 10000000) {
		fprintf(stderr, "usage: udp_rtt [1..10000000 round trips]\n");
		return 2;
	}
	fa = bound_socket(&a);
	fb = bound_socket(&b);
	pid = fork();
	if (pid < 0) {
		perror("udp_rtt: fork");
		return 1;
	}
	if (pid == 0) {		/* the echoing peer */
		for (i = 0; i < n; i++) {
			if (recv(fb, buf, sizeof(buf), 0) < 0 ||
			    sendto(fb, buf, sizeof(buf), 0,
				   (struct sockaddr *)&a, sizeof(a)) < 0)
				_exit(1);
		}
		_exit(0);
	}
	for (i = 0; i < n; i++) {
		uint64_t t = now_ns(), d;

		if (sendto(fa, buf, sizeof(buf), 0, (struct sockaddr *)&b,
			   sizeof(b)) < 0 || recv(fa, buf, sizeof(buf), 0) < 0) {
			perror("udp_rtt");
			return 1;
		}
		d = now_ns() - t;
		sum += d;
		min = d < min ? d : min;
		max = d > max ? d : max;
	}
	waitpid(pid, NULL, 0);
	printf("%llu %llu %llu\n", (unsigned long long)min,
	       (unsigned long long)(sum / n), (unsigned long long)max);
	return 0;
}
