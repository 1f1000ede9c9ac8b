/* SPDX-License-Identifier: (GPL-2.0-or-later OR BSD-2-Clause) */
/*
 * The TAP harness of the project's C tests (the device core's host tests,
 * the routing firmware's and libugni's unit tests), header only.
 *
 * A test is a run of checks: CHECK() and CHECK_EQ() count failures in
 * failures_in_test and print a "#   file:line: ..." line for each of the
 * first TAP_PRINT_MAX of a test.  A test ends in one TAP line, "ok N - name"
 * or "not ok N - name".  Two ways to drive them:
 *
 *   static const struct tap_test tests[] = { { "name", fn }, ... };
 *   return TAP_RUN(tests);        a table: the plan first, then the tests
 *
 *   tap_begin();                  as the program goes: the plan last
 *   ... CHECK(); tap_test_end("name %d", i);   (a test of CHECKs)
 *   ... tap_ok(cond, "name %d", i);            (a test of one condition)
 *   return tap_end();
 *
 * Either way the output starts with "TAP version 13", ends with a
 * "# N passed, N failed" line, and main() returns 1 if a test failed.
 */
#ifndef VGEMINI_TESTLIB_TAP_H
#define VGEMINI_TESTLIB_TAP_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

struct tap_test {
	const char *name;
	void (*fn)(void);
};

/* Failed checks in the running test. */
static int failures_in_test;

/* Tests ended so far, and how many of them failed. */
static unsigned int tap_tests;
static unsigned int tap_failed;

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

/*
 * The header line.  stdout is made line-buffered, so that a test that
 * crashes leaves every line it printed before.
 */
static inline void tap_begin(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n");
	failures_in_test = 0;
	tap_tests = 0;
	tap_failed = 0;
}

/* One TAP line, named by fmt and ap; returns pass. */
static inline int tap_vresult(int pass, const char *fmt, va_list ap)
{
	tap_tests++;
	if (!pass)
		tap_failed++;
	printf("%s %u - ", pass ? "ok" : "not ok", tap_tests);
	vprintf(fmt, ap);
	putchar('\n');
	return pass;
}

/* End the running test: "ok" if none of its checks failed. */
static inline void tap_test_end(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static inline void tap_test_end(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vresult(!failures_in_test, fmt, ap);
	va_end(ap);
	failures_in_test = 0;
}

/* A test of one condition, with no checks of its own; returns cond. */
static inline int tap_ok(int cond, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static inline int tap_ok(int cond, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vresult(cond, fmt, ap);
	va_end(ap);
	return cond;
}

/* The closing line; returns main()'s exit status. */
static inline int tap_summary(void)
{
	printf("# %u passed, %u failed\n", tap_tests - tap_failed, tap_failed);
	return tap_failed ? 1 : 0;
}

/* End what tap_begin() began: the plan, then the closing line. */
static inline int tap_end(void)
{
	printf("1..%u\n", tap_tests);
	return tap_summary();
}

/* Run a table of tests: the header, the plan, a line a test, the close. */
static inline int tap_run(const struct tap_test *tests, size_t n)
{
	size_t i;

	tap_begin();
	printf("1..%zu\n", n);
	for (i = 0; i < n; i++) {
		tests[i].fn();
		tap_test_end("%s", tests[i].name);
	}
	return tap_summary();
}

#define TAP_RUN(tests)	tap_run((tests), sizeof(tests) / sizeof((tests)[0]))

#endif /* VGEMINI_TESTLIB_TAP_H */
