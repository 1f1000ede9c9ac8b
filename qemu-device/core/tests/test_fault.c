// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Host unit tests of the fault injector block on its own (gemini_fault.c):
 * the fault spec a supervisor writes and reads back, the link held down,
 * and the decisions gemini_fault_on_wire() takes for each copy a port puts
 * on the wire, their rates and their repeatability.  The expected values
 * come from the spec (gemini_fault.h, "Fault injection" in
 * Documentation/fabric.rst, the fault properties in device.rst), not from
 * running the code.
 *
 * Links gemini_fault.c only.  The port block it tells when a link is taken
 * down or given back is played here: gemini_port_fault_down() logs its
 * calls.  Prints TAP; run under ASan and UBSan.
 */
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemini_core.h"
#include "tap.h"

#define NPORTS		GEMINI_NUM_TORUS_PORTS

/* The injector's state lives in the NIC; no other block is linked. */
static struct gemini_nic the_nic;

/* --- the port block, played ---------------------------------------------- */

#define CALL_LOG	16

static struct {
	unsigned int port;
	bool down;
	/* what the injector said about the port during the call */
	bool fault_down;
	bool our_nic;
} calls[CALL_LOG];
static unsigned int ncalls;

void gemini_port_fault_down(struct gemini_nic *nic, unsigned int port,
			    bool down)
{
	if (ncalls < CALL_LOG) {
		calls[ncalls].port = port;
		calls[ncalls].down = down;
		calls[ncalls].our_nic = nic == &the_nic;
		calls[ncalls].fault_down = port < NPORTS &&
					   gemini_fault_down(nic, port);
	}
	ncalls++;
}

/* A NIC whose injectors were never set, as after gemini_nic_init(). */
static void nic_fresh(void)
{
	memset(&the_nic, 0, sizeof(the_nic));
	memset(calls, 0, sizeof(calls));
	ncalls = 0;
}

/* --- helpers -------------------------------------------------------------- */

static char err[160];

static int set(unsigned int port, const char *spec)
{
	err[0] = 0;
	return gemini_fault_set(&the_nic, port, spec, err, sizeof(err));
}

static void set_ok(unsigned int port, const char *spec)
{
	if (set(port, spec) != 0) {
		printf("#   spec '%s' refused: %s\n", spec, err);
		failures_in_test++;
	}
}

static const char *get(unsigned int port)
{
	static char buf[160];

	memset(buf, 'x', sizeof(buf));
	gemini_fault_get(&the_nic, port, buf, sizeof(buf));
	return buf;
}

/* The settings of a port, in the units of struct gemini_fault. */
static void check_settings(unsigned int port, uint32_t corrupt,
			   uint32_t drop, uint32_t delay, uint32_t delay_ms,
			   bool down)
{
	const struct gemini_fault *f = &the_nic.fault[port];

	CHECK_EQ(f->corrupt_ppm, corrupt);
	CHECK_EQ(f->drop_ppm, drop);
	CHECK_EQ(f->delay_ppm, delay);
	CHECK_EQ(f->delay_ms, delay_ms);
	CHECK_EQ(f->down, down);
	CHECK_EQ(gemini_fault_down(&the_nic, port), down);
}

static bool same_fault(const struct gemini_fault *a,
		       const struct gemini_fault *b)
{
	return a->corrupt_ppm == b->corrupt_ppm &&
	       a->drop_ppm == b->drop_ppm && a->delay_ppm == b->delay_ppm &&
	       a->delay_ms == b->delay_ms && a->down == b->down &&
	       a->rng == b->rng;
}

/* One decision, with what it set; the outputs start as sentinels. */
struct draw {
	enum gemini_fault_act act;
	uint64_t delay_ns;
	unsigned int bit;
};

#define NO_DELAY	UINT64_MAX
#define NO_BIT		UINT_MAX

static struct draw draw(unsigned int port, unsigned int len, bool may_delay)
{
	struct draw d = { GEMINI_FAULT_PASS, NO_DELAY, NO_BIT };

	d.act = gemini_fault_on_wire(&the_nic, port, len, may_delay,
				     &d.delay_ns, &d.bit);
	return d;
}

static bool same_draw(const struct draw *a, const struct draw *b)
{
	return a->act == b->act && a->delay_ns == b->delay_ns &&
	       a->bit == b->bit;
}

/* Do @a and @b decide the same for @n copies of @len bytes? */
static bool in_step(unsigned int a, unsigned int b, unsigned int n,
		    unsigned int len, bool may_delay)
{
	unsigned int i;
	bool same = true;

	for (i = 0; i < n; i++) {
		struct draw da = draw(a, len, may_delay);
		struct draw db = draw(b, len, may_delay);

		if (!same_draw(&da, &db))
			same = false;
	}
	return same;
}

/* --- tests ---------------------------------------------------------------- */

/* "" and "none" clear; a spec replaces the whole previous one. */
static void test_clear_and_replace(void)
{
	unsigned int p;

	nic_fresh();
	for (p = 0; p < NPORTS; p++) {
		CHECK(!strcmp(get(p), "none"));
		CHECK(!gemini_fault_down(&the_nic, p));
	}
	CHECK_EQ(set(0, ""), 0);
	CHECK_EQ(set(0, "none"), 0);
	check_settings(0, 0, 0, 0, 0, false);

	set_ok(1, "corrupt=0.5,drop=0.25,delay=0.125,delay-ms=3,down=1");
	check_settings(1, 500000, 250000, 125000, 3, true);
	set_ok(1, "none");
	check_settings(1, 0, 0, 0, 0, false);
	CHECK(!strcmp(get(1), "none"));

	set_ok(1, "corrupt=0.5,drop=0.25,delay=0.125,delay-ms=3,down=1");
	set_ok(1, "");
	check_settings(1, 0, 0, 0, 0, false);
	CHECK(!strcmp(get(1), "none"));

	/* Keys the new spec does not name are reset. */
	set_ok(2, "drop=0.5,delay=0.5,delay-ms=20,down=1");
	set_ok(2, "corrupt=0.25");
	check_settings(2, 250000, 0, 0, 0, false);
	set_ok(2, "delay-ms=5");
	check_settings(2, 0, 0, 0, 5, false);
	/* The other ports saw nothing of it. */
	for (p = 3; p < NPORTS; p++)
		check_settings(p, 0, 0, 0, 0, false);
	check_settings(0, 0, 0, 0, 0, false);
}

/* Each key and its values: fractions in ppm, integers in C syntax. */
static void test_values(void)
{
	static const struct {
		const char *spec;
		uint32_t corrupt, drop, delay, delay_ms;
		bool down;
	} ok[] = {
		{ "corrupt=0", 0, 0, 0, 0, false },
		{ "corrupt=1", 1000000, 0, 0, 0, false },
		{ "corrupt=1.0", 1000000, 0, 0, 0, false },
		{ "corrupt=0.000001", 1, 0, 0, 0, false },
		{ "corrupt=0.999999", 999999, 0, 0, 0, false },
		{ "drop=1e-3", 0, 1000, 0, 0, false },
		{ "drop=0.123456", 0, 123456, 0, 0, false },
		{ "drop=.5", 0, 500000, 0, 0, false },
		/* just under the whole ppm in binary: still 251, 983 */
		{ "drop=0.000251", 0, 251, 0, 0, false },
		{ "corrupt=0.000983", 983, 0, 0, 0, false },
		{ "delay=0.75,delay-ms=1", 0, 0, 750000, 1, false },
		{ "delay-ms=0", 0, 0, 0, 0, false },
		{ "delay-ms=10000", 0, 0, 0, 10000, false },
		{ "delay-ms=0x2710", 0, 0, 0, 10000, false },
		{ "delay-ms=010", 0, 0, 0, 8, false },
		{ "delay-ms=0X1f", 0, 0, 0, 31, false },
		{ "down=0", 0, 0, 0, 0, false },
		{ "down=1", 0, 0, 0, 0, true },
		{ "down=0x1", 0, 0, 0, 0, true },
		{ "down=01", 0, 0, 0, 0, true },
		{ "seed=0", 0, 0, 0, 0, false },
		{ "seed=18446744073709551615", 0, 0, 0, 0, false },
		{ "seed=0xffffffffffffffff", 0, 0, 0, 0, false },
		{ "corrupt=0.1,drop=0.2,delay=0.3,delay-ms=7,down=1,seed=9",
		  100000, 200000, 300000, 7, true },
		{ "seed=9,down=1,delay-ms=7,delay=0.3,drop=0.2,corrupt=0.1",
		  100000, 200000, 300000, 7, true },
		{ "none", 0, 0, 0, 0, false },
	};
	unsigned int i;

	nic_fresh();
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		int fb = failures_in_test;

		set_ok(3, ok[i].spec);
		check_settings(3, ok[i].corrupt, ok[i].drop, ok[i].delay,
			       ok[i].delay_ms, ok[i].down);
		if (failures_in_test != fb)
			NOTE("spec '%s'\n", ok[i].spec);
	}
	/* Any order of the keys: the same settings and the same draws. */
	set_ok(0, "corrupt=0.1,drop=0.2,delay=0.3,delay-ms=7,seed=9");
	set_ok(1, "seed=9,delay-ms=7,delay=0.3,drop=0.2,corrupt=0.1");
	CHECK(same_fault(&the_nic.fault[0], &the_nic.fault[1]));
	CHECK(in_step(0, 1, 1000, 64, true));
}

/* Refused specs: -1, a message that names the culprit, nothing changed. */
static void test_refused(void)
{
	static const struct {
		const char *spec;
		const char *names;	/* in the message; NULL: any */
	} bad[] = {
		{ "bogus=1", "bogus" },
		{ "Drop=0.1", "Drop" },
		{ "corrupt", "corrupt" },
		{ "=0.1", NULL },
		{ "drop=", "drop" },
		{ "drop=abc", "drop" },
		{ "drop=0.1x", "drop" },
		{ "drop=1.5", "drop" },
		{ "drop=1.0000001", "drop" },
		{ "drop=-0.1", "drop" },
		{ "drop=1e1", "drop" },
		{ "drop=nan", "drop" },
		{ "drop=inf", "drop" },
		{ "corrupt=2", "corrupt" },
		{ "delay=-1", "delay" },
		{ "delay-ms=10001", "delay-ms" },
		{ "delay-ms=0x2711", "delay-ms" },
		{ "delay-ms=-1", "delay-ms" },
		{ "delay-ms=1.5", "delay-ms" },
		{ "delay-ms=99999999999999999999", "delay-ms" },
		{ "down=2", "down" },
		{ "down=-1", "down" },
		{ "down=08", "down" },
		{ "down=yes", "down" },
		{ "seed=-1", "seed" },
		{ "seed=0x", "seed" },
		{ "seed=", "seed" },
		{ "drop=0.1;corrupt=0.1", NULL },
		{ "drop=0.1,,corrupt=0.1", NULL },
		{ ",drop=0.1", NULL },
		{ "drop=0.1,", NULL },
		{ ",", NULL },
		/* white space is no part of the syntax */
		{ " ", NULL },
		{ "none ", NULL },
		{ " none", NULL },
		{ " drop=0.1", "drop" },
		{ "\tdrop=0.1", "drop" },
		{ "drop =0.1", "drop" },
		{ "drop=0.1 ", "drop" },
		{ "drop=0.1\n", "drop" },
		{ "drop= 0.1", "drop" },
		{ "drop=+0.5", "drop" },
		{ "drop=0x0.8p0", "drop" },
		{ "down= 1", "down" },
		{ "down=+1", "down" },
		{ "delay-ms= 7", "delay-ms" },
		{ "seed= -1", "seed" },
		{ "seed=+5", "seed" },
		{ "seed=18446744073709551616", "seed" },
		{ "drop=0.1, seed=1", "seed" },
		{ "drop=0.1 ,seed=1", "drop" },
		{ "down=1 ", "down" },
		/* a good part does not make a bad one pass */
		{ "down=0,bogus=1", "bogus" },
		{ "corrupt=0.5,down=1,drop=2", "drop" },
		{ "none,drop=0.1", "none" },
	};
	struct gemini_fault before;
	char spec[300], small[8];
	unsigned int i, p;

	nic_fresh();
	/* A setting in force, its random numbers part-way. */
	set_ok(4, "corrupt=0.01,drop=0.02,delay=0.03,delay-ms=4,down=1,seed=3");
	for (i = 0; i < 100; i++)
		draw(4, 64, true);
	before = the_nic.fault[4];
	ncalls = 0;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int fb = failures_in_test;

		CHECK_EQ(set(4, bad[i].spec), -1);
		CHECK(err[0] != 0);
		if (bad[i].names)
			CHECK(strstr(err, bad[i].names));
		CHECK(same_fault(&the_nic.fault[4], &before));
		if (failures_in_test != fb)
			NOTE("spec '%s': '%s'\n", bad[i].spec, err);
	}
	CHECK_EQ(ncalls, 0);

	/* At most 255 characters. */
	memset(spec, 0, sizeof(spec));
	strcpy(spec, "drop=0.5");
	memset(spec + 8, '0', 255 - 8);
	CHECK_EQ(strlen(spec), 255);
	set_ok(5, spec);
	check_settings(5, 0, 500000, 0, 0, false);
	spec[255] = '0';
	CHECK_EQ(set(4, spec), -1);
	CHECK(err[0] != 0);
	CHECK(same_fault(&the_nic.fault[4], &before));
	memset(spec, 0, sizeof(spec));
	for (i = 0; i + 12 < sizeof(spec) - 1; i += 12)
		memcpy(spec + i, "corrupt=0.1,", 12);
	CHECK_EQ(set(4, spec), -1);
	CHECK(same_fault(&the_nic.fault[4], &before));

	/* No port past the six. */
	for (p = NPORTS; p < NPORTS + 2; p++) {
		CHECK_EQ(set(p, "none"), -1);
		CHECK(err[0] != 0);
	}
	CHECK_EQ(set(UINT_MAX, "drop=0.1"), -1);
	CHECK(err[0] != 0);
	CHECK_EQ(ncalls, 0);

	/* The message fits the buffer given, cut and ended. */
	memset(small, 'x', sizeof(small));
	CHECK_EQ(gemini_fault_set(&the_nic, 4, "unknown-key=1", small,
				  sizeof(small)), -1);
	CHECK(memchr(small, 0, sizeof(small)));
	CHECK(same_fault(&the_nic.fault[4], &before));
}

/* The port block hears of down exactly when the setting changes. */
static void test_down_calls(void)
{
	unsigned int i;

	nic_fresh();
	/* Up to up: nothing to tell. */
	set_ok(0, "down=0");
	set_ok(0, "none");
	set_ok(0, "drop=0.5");
	CHECK_EQ(ncalls, 0);

	set_ok(0, "down=1");
	CHECK_EQ(ncalls, 1);
	CHECK_EQ(calls[0].port, 0);
	CHECK(calls[0].down);
	CHECK(gemini_fault_down(&the_nic, 0));
	/* Still down, whatever else changes. */
	set_ok(0, "down=1");
	set_ok(0, "drop=0.5,down=1,seed=4");
	set_ok(0, "down=0x1");
	CHECK_EQ(ncalls, 1);
	/* A refused spec changes nothing. */
	CHECK_EQ(set(0, "down=0,bogus=1"), -1);
	CHECK(gemini_fault_down(&the_nic, 0));
	CHECK_EQ(ncalls, 1);
	/* A spec without down=1 brings the link back. */
	set_ok(0, "drop=0.5");
	CHECK_EQ(ncalls, 2);
	CHECK_EQ(calls[1].port, 0);
	CHECK(!calls[1].down);
	CHECK(!gemini_fault_down(&the_nic, 0));

	/* "none", "" and down=0 too; each port is told about itself. */
	set_ok(5, "down=1");
	set_ok(5, "none");
	set_ok(3, "down=1");
	set_ok(3, "");
	set_ok(1, "down=1");
	set_ok(1, "down=0");
	CHECK_EQ(ncalls, 8);
	CHECK_EQ(calls[2].port, 5);
	CHECK(calls[2].down);
	CHECK_EQ(calls[3].port, 5);
	CHECK(!calls[3].down);
	CHECK_EQ(calls[4].port, 3);
	CHECK(calls[4].down);
	CHECK_EQ(calls[5].port, 3);
	CHECK(!calls[5].down);
	CHECK_EQ(calls[6].port, 1);
	CHECK(calls[6].down);
	CHECK_EQ(calls[7].port, 1);
	CHECK(!calls[7].down);

	/* Two ports down at once are two links. */
	set_ok(2, "down=1");
	set_ok(4, "down=1");
	CHECK(gemini_fault_down(&the_nic, 2));
	CHECK(gemini_fault_down(&the_nic, 4));
	CHECK(!gemini_fault_down(&the_nic, 3));
	set_ok(2, "none");
	CHECK(!gemini_fault_down(&the_nic, 2));
	CHECK(gemini_fault_down(&the_nic, 4));
	CHECK_EQ(ncalls, 11);
	CHECK_EQ(calls[10].port, 2);

	/*
	 * The port judges the link afresh from the call: by then the
	 * injector must already answer with the new setting.
	 */
	for (i = 0; i < ncalls && i < CALL_LOG; i++) {
		CHECK(calls[i].our_nic);
		CHECK_EQ(calls[i].fault_down, calls[i].down);
	}
}

/* The nearest integer to @x >= 0 (no libm in this test's link). */
static long long nearest(double x)
{
	return (long long)(x + 0.5);
}

/*
 * Split @s, a spec as gemini_fault_get() writes it, into its five
 * settings; false unless it is exactly corrupt, drop, delay, delay-ms,
 * down in that order.
 */
static bool parse_get(const char *s, double v[5])
{
	static const char *const keys[5] = {
		"corrupt", "drop", "delay", "delay-ms", "down",
	};
	unsigned int i;

	for (i = 0; i < 5; i++) {
		size_t k = strlen(keys[i]);
		char *end;

		if (strncmp(s, keys[i], k) || s[k] != '=')
			return false;
		s += k + 1;
		v[i] = strtod(s, &end);
		if (end == s || *end != (i < 4 ? ',' : '\0'))
			return false;
		s = end + (i < 4);
	}
	return true;
}

/* Reading gives "none" or all five settings; it parses back the same. */
static void test_get_round_trip(void)
{
	static const char *const specs[] = {
		"corrupt=0.1",
		"drop=0.05",
		"delay=0.05,delay-ms=2",
		"down=1",
		"corrupt=0.000001,drop=0.999999,delay=1,delay-ms=10000",
		"corrupt=1,drop=1,delay=0.123456,delay-ms=1,down=1",
		"drop=0.000010,seed=77",
		"delay=0.5",
		"corrupt=0.333333,drop=0.25,delay=0.1,delay-ms=9999,down=1",
	};
	char first[160];
	double v[5];
	unsigned int i;

	nic_fresh();
	/* What fabric.rst shows for corrupt=0.1. */
	set_ok(0, "corrupt=0.1");
	CHECK(!strcmp(get(0), "corrupt=0.1,drop=0,delay=0,delay-ms=0,down=0"));

	for (i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		const struct gemini_fault *a = &the_nic.fault[0];
		const struct gemini_fault *b = &the_nic.fault[1];
		int fb = failures_in_test;

		set_ok(0, specs[i]);
		strcpy(first, get(0));
		CHECK(parse_get(first, v));
		CHECK_EQ(nearest(v[0] * 1e6), a->corrupt_ppm);
		CHECK_EQ(nearest(v[1] * 1e6), a->drop_ppm);
		CHECK_EQ(nearest(v[2] * 1e6), a->delay_ppm);
		CHECK_EQ(nearest(v[3]), a->delay_ms);
		CHECK_EQ(nearest(v[4]), a->down);
		/* Written to another port, it is the same setting. */
		set_ok(1, first);
		CHECK_EQ(b->corrupt_ppm, a->corrupt_ppm);
		CHECK_EQ(b->drop_ppm, a->drop_ppm);
		CHECK_EQ(b->delay_ppm, a->delay_ppm);
		CHECK_EQ(b->delay_ms, a->delay_ms);
		CHECK_EQ(b->down, a->down);
		CHECK(!strcmp(get(1), first));
		if (failures_in_test != fb)
			NOTE("spec '%s' read '%s'\n", specs[i], first);
	}

	/* Neither the seed nor a lone delay-ms makes a setting to show. */
	set_ok(2, "seed=5");
	CHECK(!strcmp(get(2), "none"));
	set_ok(2, "delay-ms=5,seed=5");
	CHECK(!strcmp(get(2), "none"));
	set_ok(2, "corrupt=0,drop=0,delay=0,down=0");
	CHECK(!strcmp(get(2), "none"));

	/* A short buffer gets what fits, ended. */
	{
		char buf[12];

		memset(buf, 'x', sizeof(buf));
		gemini_fault_get(&the_nic, 0, buf, sizeof(buf));
		CHECK(memchr(buf, 0, sizeof(buf)));
		CHECK(!strncmp(buf, "corrupt=", 8));
	}
}

/* delay without delay-ms holds copies 10 ms. */
static void test_delay_default(void)
{
	struct draw d;

	nic_fresh();
	set_ok(0, "delay=0.5");
	check_settings(0, 0, 0, 500000, 10, false);
	set_ok(0, "delay=1");
	d = draw(0, 64, true);
	CHECK_EQ(d.act, GEMINI_FAULT_DELAY);
	CHECK_EQ(d.delay_ns, 10000000ull);
	/* delay-ms given, before or after delay */
	set_ok(0, "delay=0.5,delay-ms=3");
	check_settings(0, 0, 0, 500000, 3, false);
	set_ok(0, "delay-ms=3,delay=0.5");
	check_settings(0, 0, 0, 500000, 3, false);
	/* delay-ms=0 given is 0, not the default */
	set_ok(0, "delay=0.5,delay-ms=0");
	check_settings(0, 0, 0, 500000, 0, false);
	set_ok(0, "delay=1,delay-ms=0");
	d = draw(0, 64, true);
	CHECK_EQ(d.act, GEMINI_FAULT_DELAY);
	CHECK_EQ(d.delay_ns, 0ull);
	/* No delay, no default. */
	set_ok(0, "delay=0");
	check_settings(0, 0, 0, 0, 0, false);
	set_ok(0, "drop=0.5");
	check_settings(0, 0, 500000, 0, 0, false);
	CHECK(!strcmp(get(0), "corrupt=0,drop=0.5,delay=0,delay-ms=0,down=0"));
	set_ok(0, "delay=0.5");
	CHECK(!strcmp(get(0),
		      "corrupt=0,drop=0,delay=0.5,delay-ms=10,down=0"));
}

/* No fault set: every copy passes and no random number is drawn. */
static void test_no_faults(void)
{
	static const char *const quiet[] = {
		"none", "seed=5", "corrupt=0,drop=0,delay=0,seed=5",
		"delay-ms=100,seed=5", "down=1,seed=5",
	};
	unsigned int i, k;
	uint64_t rng;

	for (i = 0; i < sizeof(quiet) / sizeof(quiet[0]); i++) {
		nic_fresh();
		set_ok(0, quiet[i]);
		rng = the_nic.fault[0].rng;
		for (k = 0; k < 1000; k++) {
			struct draw d = draw(0, 1 + k % 64, k & 1);

			CHECK_EQ(d.act, GEMINI_FAULT_PASS);
			CHECK_EQ(d.delay_ns, NO_DELAY);
			CHECK_EQ(d.bit, NO_BIT);
		}
		CHECK_EQ(the_nic.fault[0].rng, rng);
	}

	/*
	 * Two ports with the same spec; one passes 1000 copies that may
	 * not be delayed (delay is its only fault): no draw, so the two
	 * still decide alike.
	 */
	nic_fresh();
	set_ok(0, "delay=0.5,delay-ms=2,seed=5");
	set_ok(1, "delay=0.5,delay-ms=2,seed=5");
	for (k = 0; k < 1000; k++) {
		struct draw d = draw(0, 64, false);

		CHECK_EQ(d.act, GEMINI_FAULT_PASS);
		CHECK_EQ(d.delay_ns, NO_DELAY);
	}
	CHECK(in_step(0, 1, 1000, 64, true));
	/* Both DELAY and PASS came up: the draws were real ones. */
	{
		unsigned int n[4] = { 0 };

		for (k = 0; k < 1000; k++)
			n[draw(0, 64, true).act]++;
		CHECK(n[GEMINI_FAULT_DELAY] > 0);
		CHECK(n[GEMINI_FAULT_PASS] > 0);
		CHECK_EQ(n[GEMINI_FAULT_DROP] + n[GEMINI_FAULT_CORRUPT], 0);
	}
}

/* A rate of 1 always happens, in the order delay, drop, corrupt. */
static void test_certain_faults(void)
{
	static const unsigned int lens[] = { 1, 2, 3, 8, 24, 64, 100, 255 };
	unsigned int i, k;
	struct draw d;

	nic_fresh();
	set_ok(0, "drop=1");
	set_ok(1, "corrupt=1");
	set_ok(2, "delay=1,delay-ms=7");
	set_ok(3, "delay=1,drop=1,corrupt=1,delay-ms=10000");
	set_ok(4, "drop=1,corrupt=1");
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		for (k = 0; k < 200; k++) {
			bool may_delay = k & 1;

			d = draw(0, lens[i], may_delay);
			CHECK_EQ(d.act, GEMINI_FAULT_DROP);
			d = draw(1, lens[i], may_delay);
			CHECK_EQ(d.act, GEMINI_FAULT_CORRUPT);
			CHECK(d.bit < lens[i] * 8);
			CHECK_EQ(d.delay_ns, NO_DELAY);
			d = draw(2, lens[i], true);
			CHECK_EQ(d.act, GEMINI_FAULT_DELAY);
			CHECK_EQ(d.delay_ns, 7000000ull);
			CHECK_EQ(d.bit, NO_BIT);
			/* The copy delayed once is not delayed again. */
			d = draw(2, lens[i], false);
			CHECK_EQ(d.act, GEMINI_FAULT_PASS);
			d = draw(3, lens[i], true);
			CHECK_EQ(d.act, GEMINI_FAULT_DELAY);
			CHECK_EQ(d.delay_ns, 10000000000ull);
			d = draw(3, lens[i], false);
			CHECK_EQ(d.act, GEMINI_FAULT_DROP);
			d = draw(4, lens[i], may_delay);
			CHECK_EQ(d.act, GEMINI_FAULT_DROP);
		}
	}
	/* A copy of no bytes has no bit to flip. */
	d = draw(1, 0, true);
	CHECK_EQ(d.act, GEMINI_FAULT_PASS);
	/* Held down is no fault on the wire. */
	set_ok(5, "down=1");
	CHECK_EQ(draw(5, 64, true).act, GEMINI_FAULT_PASS);
}

/* The same seed repeats the same decisions; another seed does not. */
static void test_seeds(void)
{
	static const char *const specs[] = {
		"drop=0.5",
		"corrupt=0.3",
		"delay=0.2,delay-ms=1",
		"corrupt=0.2,drop=0.2,delay=0.2",
	};
	static struct draw first[2000];
	char spec[80];
	unsigned int i, k;
	bool differ;

	nic_fresh();
	for (i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		int fb = failures_in_test;

		/* Two ports, one seed: in step. */
		snprintf(spec, sizeof(spec), "%s,seed=12345", specs[i]);
		set_ok(0, spec);
		set_ok(1, spec);
		for (k = 0; k < 2000; k++)
			first[k] = draw(0, 64, k % 3 != 0);
		for (k = 0; k < 2000; k++) {
			struct draw d = draw(1, 64, k % 3 != 0);

			CHECK(same_draw(&d, &first[k]));
		}
		/* Writing the spec again restarts the sequence. */
		set_ok(0, spec);
		for (k = 0; k < 2000; k++) {
			struct draw d = draw(0, 64, k % 3 != 0);

			CHECK(same_draw(&d, &first[k]));
		}
		/* Another seed, another sequence. */
		snprintf(spec, sizeof(spec), "%s,seed=12346", specs[i]);
		set_ok(1, spec);
		set_ok(0, specs[i]);
		differ = false;
		for (k = 0; k < 2000; k++) {
			struct draw d = draw(1, 64, k % 3 != 0);

			if (!same_draw(&d, &first[k]))
				differ = true;
		}
		CHECK(differ);
		/* Without a seed, a fixed one: in step again. */
		set_ok(1, specs[i]);
		CHECK(in_step(0, 1, 2000, 64, true));
		/* Seed 0 counts as 1. */
		snprintf(spec, sizeof(spec), "%s,seed=0", specs[i]);
		set_ok(0, spec);
		snprintf(spec, sizeof(spec), "%s,seed=1", specs[i]);
		set_ok(1, spec);
		CHECK(in_step(0, 1, 2000, 64, true));
		/* Seeds in C syntax: 0x10 is 16. */
		snprintf(spec, sizeof(spec), "%s,seed=0x10", specs[i]);
		set_ok(0, spec);
		snprintf(spec, sizeof(spec), "%s,seed=16", specs[i]);
		set_ok(1, spec);
		CHECK(in_step(0, 1, 2000, 64, true));
		if (failures_in_test != fb)
			NOTE("spec '%s'\n", specs[i]);
	}
	/* Different seeds differ from the very first decisions. */
	set_ok(0, "drop=0.5,seed=1");
	set_ok(1, "drop=0.5,seed=2");
	CHECK(!in_step(0, 1, 64, 64, true));
}

/*
 * Count @n decisions of @port; each outcome's count must be within 6
 * standard deviations (plus one, for rates of 0) of @n * p, binomial: a
 * bound a correct injector misses about once in 10^9 runs, and the seeds
 * are fixed anyway.  Squares, not sqrt(): no libm in this test's link.
 */
static void check_rates(unsigned int port, unsigned int n, const double p[4])
{
	unsigned int count[4] = { 0 }, k, a;

	for (k = 0; k < n; k++)
		count[draw(port, 64, true).act]++;
	for (a = 0; a < 4; a++) {
		double mean = n * p[a], var = n * p[a] * (1 - p[a]);
		double dev = count[a] > mean ? count[a] - mean :
			     mean - count[a];
		bool ok = dev <= 1 || (dev - 1) * (dev - 1) <= 36 * var;

		CHECK(ok);
		if (!ok)
			NOTE("act %u: %u of %u, expected %.0f, variance %.0f\n",
			     a, count[a], n, mean, var);
	}
}

/* Over many copies each fault happens at its rate. */
static void test_rates(void)
{
	static const struct {
		const char *spec;
		double p[4];	/* PASS, DELAY, DROP, CORRUPT */
	} cases[] = {
		{ "drop=0.1", { 0.9, 0, 0.1, 0 } },
		{ "drop=0.1,seed=77", { 0.9, 0, 0.1, 0 } },
		{ "drop=0.1,seed=0xdeadbeef", { 0.9, 0, 0.1, 0 } },
		{ "corrupt=0.25,seed=3", { 0.75, 0, 0, 0.25 } },
		{ "delay=0.05,seed=4", { 0.95, 0.05, 0, 0 } },
		{ "drop=0.001,seed=5", { 0.999, 0, 0.001, 0 } },
		{ "drop=0.999,seed=6", { 0.001, 0, 0.999, 0 } },
		/* drawn in turn: delay, then drop, then corrupt */
		{ "delay=0.1,drop=0.2,corrupt=0.3,seed=8",
		  { 0.9 * 0.8 * 0.7, 0.1, 0.9 * 0.2, 0.9 * 0.8 * 0.3 } },
	};
	unsigned int i;

	nic_fresh();
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int fb = failures_in_test;

		set_ok(0, cases[i].spec);
		check_rates(0, 100000, cases[i].p);
		if (failures_in_test != fb)
			NOTE("spec '%s'\n", cases[i].spec);
	}
}

/* The bit a corruption flips is spread over the whole copy. */
static void test_corrupt_bits(void)
{
	static const unsigned int lens[] = { 1, 3, 64 };
	static unsigned int hits[64 * 8];
	unsigned int i, k, bits, min, max;

	nic_fresh();
	set_ok(0, "corrupt=1,seed=42");
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		bits = lens[i] * 8;
		memset(hits, 0, sizeof(hits));
		/* 200 a bit on average: each within 100..300 (7 sd) */
		for (k = 0; k < bits * 200; k++) {
			struct draw d = draw(0, lens[i], true);

			CHECK_EQ(d.act, GEMINI_FAULT_CORRUPT);
			if (d.bit < bits)
				hits[d.bit]++;
			else
				CHECK(d.bit < bits);
		}
		min = UINT_MAX;
		max = 0;
		for (k = 0; k < bits; k++) {
			if (hits[k] < min)
				min = hits[k];
			if (hits[k] > max)
				max = hits[k];
		}
		CHECK(min >= 100);
		CHECK(max <= 300);
		if (min < 100 || max > 300)
			NOTE("%u bytes: %u to %u hits a bit\n", lens[i], min,
			     max);
	}
	/* With another fault set, CORRUPT still lands within the copy. */
	set_ok(0, "drop=0.5,corrupt=0.5,seed=43");
	for (k = 0; k < 10000; k++) {
		struct draw d = draw(0, 5, true);

		if (d.act == GEMINI_FAULT_CORRUPT)
			CHECK(d.bit < 40);
		else
			CHECK_EQ(d.bit, NO_BIT);
	}
}

static const struct tap_test tests[] = {
	{ "none and empty clear; a spec replaces", test_clear_and_replace },
	{ "keys and values", test_values },
	{ "refused specs keep the setting", test_refused },
	{ "down tells the port on a change only", test_down_calls },
	{ "reading back and writing again", test_get_round_trip },
	{ "delay defaults to 10 ms", test_delay_default },
	{ "no faults: pass, no draws", test_no_faults },
	{ "rate 1: always, in order", test_certain_faults },
	{ "seeds repeat, differ, 0 is 1", test_seeds },
	{ "rates", test_rates },
	{ "corrupt bits spread over the copy", test_corrupt_bits },
};

int main(void)
{
	return TAP_RUN(tests);
}
