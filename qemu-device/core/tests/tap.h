/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The little TAP harness the host tests of the device core share: CHECK
 * macros that count failures (printing the first few) and a runner that
 * prints "TAP version 13", the plan, one line per test and a closing
 * "# N passed, N failed" line, and exits non-zero on any failure.
 */
#ifndef GEMINI_TESTS_TAP_H
#define GEMINI_TESTS_TAP_H

#include <stddef.h>
#include <stdio.h>

struct tap_test {
	const char *name;
	void (*fn)(void);
};

/* Failed checks in the running test. */
static int failures_in_test;

/* Print the first few failures of a test only; count all of them. */
#define TAP_PRINT_MAX	30

#define CHECK(cond)							\
	do {								\
		if (!(cond)) {						\
			if (failures_in_test < TAP_PRINT_MAX)		\
				printf("#   %s:%d: check failed: %s\n",	\
				       __FILE__, __LINE__, #cond);	\
			failures_in_test++;				\
		}							\
	} while (0)

#define CHECK_EQ(a, b)							\
	do {								\
		unsigned long long a_ = (a), b_ = (b);			\
		if (a_ != b_) {						\
			if (failures_in_test < TAP_PRINT_MAX)		\
				printf("#   %s:%d: %s == %lld (0x%llx), "	\
				       "expected %lld (0x%llx)\n",	\
				       __FILE__, __LINE__, #a,		\
				       (long long)a_, a_,		\
				       (long long)b_, b_);		\
			failures_in_test++;				\
		}							\
	} while (0)

/* A diagnostic line, printed while few failures have been printed. */
#define NOTE(...)							\
	do {								\
		if (failures_in_test < TAP_PRINT_MAX)			\
			printf("#     " __VA_ARGS__);			\
	} while (0)

static inline int tap_run(const struct tap_test *tests, size_t n)
{
	unsigned int failed = 0;
	size_t i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n1..%zu\n", n);
	for (i = 0; i < n; i++) {
		failures_in_test = 0;
		tests[i].fn();
		printf("%s %zu - %s\n", failures_in_test ? "not ok" : "ok",
		       i + 1, tests[i].name);
		failed += failures_in_test != 0;
	}
	printf("# %zu passed, %u failed\n", n - failed, failed);
	return failed ? 1 : 0;
}

#define TAP_RUN(tests)	tap_run((tests), sizeof(tests) / sizeof((tests)[0]))

#endif /* GEMINI_TESTS_TAP_H */
