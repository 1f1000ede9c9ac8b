/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the guest tools of guest/bench/ share, so that each tool's messages,
 * limits and options are written once: die() and number() print
 * "PROG: ..." and exit as every tool documents it (1 on failure, usage()'s 2
 * on a bad argument), now() is the clock every figure is timed with, and
 * timeout_option() is the "-t SECONDS" that every tool talking to a peer
 * takes.
 *
 * The including file defines PROG (its name) and usage() before or after
 * the #include; everything here is static inline so that a tool that does
 * not need a helper does not warn about it.
 */
#ifndef VGEMINI_BENCH_UTIL_H
#define VGEMINI_BENCH_UTIL_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef PROG
#error "define PROG, the tool's name, before including bench_util.h"
#endif

/* Print the usage and exit 2: each tool's own. */
static void __attribute__((noreturn)) usage(void);

static inline void __attribute__((noreturn, format(printf, 1, 2)))
die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, PROG ": ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* Seconds on the monotonic clock: only differences mean something. */
static inline double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A decimal argument @what in lo..hi, or the message and usage(). */
static inline unsigned long long number(const char *s, const char *what,
					unsigned long long lo,
					unsigned long long hi)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || v < lo || v > hi) {
		fprintf(stderr, PROG ": bad %s '%s' (%llu..%llu)\n", what, s,
			lo, hi);
		usage();
	}
	return v;
}

/* The longest wait for the peer, in seconds: "-t SECONDS", 10 by default. */
static double timeout_s __attribute__((unused)) = 10.0;

/*
 * A leading "-t SECONDS" (0.1..3600) sets timeout_s; the index of the
 * first argument after the options.
 */
static inline int timeout_option(int argc, char **argv)
{
	char *end;

	if (argc <= 2 || strcmp(argv[1], "-t"))
		return 1;
	errno = 0;
	timeout_s = strtod(argv[2], &end);
	if (errno || end == argv[2] || *end || !(timeout_s >= 0.1) ||
	    timeout_s > 3600) {
		fprintf(stderr, PROG ": bad -t '%s' (0.1..3600)\n", argv[2]);
		usage();
	}
	return 3;
}

#endif /* VGEMINI_BENCH_UTIL_H */
