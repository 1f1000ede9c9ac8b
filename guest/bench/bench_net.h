/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The socket helpers that udp_pingpong and tcp_stream share: time-outs on a
 * socket, an IPv4 address from the command line, a wait on one descriptor,
 * a TCP listener that serves one connection, and a TCP connect that
 * retries while the peer does not listen yet (the tools' two sides are
 * started at about the same time, in either order).
 * Include bench_util.h first.
 */
#ifndef VGEMINI_BENCH_NET_H
#define VGEMINI_BENCH_NET_H

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

/* Resend, or connect again, while the peer is not up yet. */
#define RETRY_MS	200

/* Blocking receives and sends on @fd give up after @s seconds. */
static inline void set_timeout(int fd, double s)
{
	struct timeval tv = {
		.tv_sec = (time_t)s,
		.tv_usec = (suseconds_t)((s - (time_t)s) * 1e6),
	};

	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) < 0)
		die("setsockopt(SO_RCVTIMEO): %s", strerror(errno));
}

/* @ip (any address if NULL) and @port; usage() on a bad address. */
static inline struct sockaddr_in address(const char *ip, unsigned long port)
{
	struct sockaddr_in a = { .sin_family = AF_INET };

	a.sin_port = htons((uint16_t)port);
	if (!ip)
		a.sin_addr.s_addr = htonl(INADDR_ANY);
	else if (inet_pton(AF_INET, ip, &a.sin_addr) != 1) {
		fprintf(stderr, PROG ": bad IPv4 address '%s'\n", ip);
		usage();
	}
	return a;
}

/* poll() on @fd for @events up to @s seconds: > 0 ready, 0 timed out. */
static inline int wait_fd(int fd, short events, double s)
{
	struct pollfd p = { .fd = fd, .events = events };
	int r;

	do {
		r = poll(&p, 1, (int)(s * 1000 + 0.999));
	} while (r < 0 && errno == EINTR);
	return r;
}

/* Listen on @port and accept one connection within timeout_s; its fd. */
static inline int tcp_accept(unsigned long port)
{
	struct sockaddr_in a = address(NULL, port);
	int one = 1, lfd = socket(AF_INET, SOCK_STREAM, 0), fd;

	if (lfd < 0 ||
	    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(lfd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(lfd, 1) < 0)
		die("TCP port %lu: %s", port, strerror(errno));
	if (wait_fd(lfd, POLLIN, timeout_s) <= 0)
		die("no connection within %g s", timeout_s);
	fd = accept(lfd, NULL, NULL);
	if (fd < 0)
		die("accept: %s", strerror(errno));
	close(lfd);
	return fd;
}

/* Connect, retrying while the peer does not listen yet; a blocking fd. */
static inline int tcp_connect(const char *ip, unsigned long port)
{
	struct sockaddr_in a = address(ip, port);
	double end = now() + timeout_s;
	socklen_t len;
	int fd, err;

	for (;;) {
		fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
		if (fd < 0)
			die("socket: %s", strerror(errno));
		err = 0;
		if (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
			err = errno;
			if (err == EINPROGRESS) {
				double left = end - now();

				if (left <= 0 || wait_fd(fd, POLLOUT, left) <= 0)
					die("cannot connect to %s:%lu within %g s",
					    ip, port, timeout_s);
				len = sizeof(err);
				if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err,
					       &len) < 0)
					err = errno;
			}
		}
		if (!err)
			break;
		close(fd);
		if (err != ECONNREFUSED && err != EHOSTUNREACH &&
		    err != ENETUNREACH)
			die("%s:%lu: %s", ip, port, strerror(err));
		if (now() >= end)
			die("cannot connect to %s:%lu within %g s: %s", ip,
			    port, timeout_s, strerror(err));
		usleep(RETRY_MS * 1000 / 4);
	}
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0)
		die("fcntl: %s", strerror(errno));
	return fd;
}

#endif /* VGEMINI_BENCH_NET_H */
