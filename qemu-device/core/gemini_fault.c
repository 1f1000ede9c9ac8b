// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cray-gemini device core: the fault injector of each torus port.
 *
 * Parses the fault spec the supervisor writes (corrupt, drop and delay
 * rates, holding the link down, the seed), keeps it per port, and draws
 * the injector's random numbers: xorshift64*, so that a run repeats for a
 * given seed.  The injection itself happens where the link control block
 * puts a packet on the wire (wire_write() in gemini_lcb.c), which asks
 * gemini_fault_on_wire() what to do with each copy.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemini_core.h"

/* --- Random numbers ---------------------------------------------------- */

static uint32_t fault_rand(struct gemini_fault *f)
{
	/* xorshift64*: deterministic for a given seed, good enough here. */
	f->rng ^= f->rng >> 12;
	f->rng ^= f->rng << 25;
	f->rng ^= f->rng >> 27;
	return (uint32_t)((f->rng * 0x2545f4914f6cdd1dull) >> 32) % 1000000u;
}

/* True with probability @ppm / 1e6; every call draws. */
static bool fault_roll(struct gemini_fault *f, uint32_t ppm)
{
	return fault_rand(f) < ppm;
}

enum gemini_fault_act gemini_fault_on_wire(struct gemini_nic *nic,
					   unsigned int port, unsigned int len,
					   bool may_delay, uint64_t *delay_ns,
					   unsigned int *bit)
{
	struct gemini_fault *f = &nic->fault[port];

	/* Draw only for the faults that are set: a seed repeats a run. */
	if (f->delay_ppm && may_delay && fault_roll(f, f->delay_ppm)) {
		*delay_ns = (uint64_t)f->delay_ms * 1000000;
		return GEMINI_FAULT_DELAY;
	}
	if (f->drop_ppm && fault_roll(f, f->drop_ppm))
		return GEMINI_FAULT_DROP;
	/* A copy has bytes; a length 0 has no bit to flip. */
	if (f->corrupt_ppm && len && fault_roll(f, f->corrupt_ppm)) {
		*bit = fault_rand(f) % (len * 8u);
		return GEMINI_FAULT_CORRUPT;
	}
	return GEMINI_FAULT_PASS;
}

bool gemini_fault_down(const struct gemini_nic *nic, unsigned int port)
{
	return nic->fault[port].down;
}

/* --- The fault spec ---------------------------------------------------- */

/*
 * A number starts with a digit (or a fraction's point): strtod() and
 * strtoull() would also take leading space, a sign and, for strtod(), hex
 * floats, infinities and NaN.
 */
static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool plain_number(const char *v)
{
	return is_digit(v[0]) || (v[0] == '.' && is_digit(v[1]));
}

static bool parse_fraction(const char *v, uint32_t *ppm)
{
	char *end;
	double d;

	if (!plain_number(v) || (v[0] == '0' && (v[1] == 'x' || v[1] == 'X')))
		return false;
	d = strtod(v, &end);
	if (*end || !(d >= 0.0 && d <= 1.0))
		return false;
	*ppm = (uint32_t)(d * 1000000.0 + 0.5);
	return true;
}

static bool parse_uint(const char *v, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long n;

	if (!plain_number(v) || *v == '.')
		return false;
	errno = 0;
	n = strtoull(v, &end, 0);
	if (*end || errno == ERANGE || n > max)
		return false;
	*out = n;
	return true;
}

int gemini_fault_set(struct gemini_nic *nic, unsigned int port,
		     const char *spec, char *err, size_t errlen)
{
	struct gemini_fault f = { .rng = 0x9e3779b97f4a7c15ull };
	char buf[256], *tok, *next;
	bool was_down, delay_ms_given = false;

	if (port >= GEMINI_NUM_TORUS_PORTS) {
		snprintf(err, errlen, "no port %u", port);
		return -1;
	}
	if (strlen(spec) >= sizeof(buf)) {
		snprintf(err, errlen, "fault spec too long");
		return -1;
	}
	strcpy(buf, spec);
	if (buf[0] && strcmp(buf, "none") != 0) {
		for (tok = buf; tok; tok = next) {
			char *eq;
			uint64_t n;
			bool ok;

			next = strchr(tok, ',');
			if (next)
				*next++ = '\0';
			if (!*tok) {
				snprintf(err, errlen, "empty item in fault spec");
				return -1;
			}
			eq = strchr(tok, '=');
			if (!eq) {
				snprintf(err, errlen, "'%s': expected key=value", tok);
				return -1;
			}
			*eq++ = '\0';
			if (!strcmp(tok, "corrupt")) {
				ok = parse_fraction(eq, &f.corrupt_ppm);
			} else if (!strcmp(tok, "drop")) {
				ok = parse_fraction(eq, &f.drop_ppm);
			} else if (!strcmp(tok, "delay")) {
				ok = parse_fraction(eq, &f.delay_ppm);
			} else if (!strcmp(tok, "delay-ms")) {
				ok = parse_uint(eq, 10000, &n);
				f.delay_ms = (uint32_t)n;
				delay_ms_given = true;
			} else if (!strcmp(tok, "down")) {
				ok = parse_uint(eq, 1, &n);
				f.down = n;
			} else if (!strcmp(tok, "seed")) {
				ok = parse_uint(eq, UINT64_MAX, &n);
				f.rng = n ? n : 1;
			} else {
				snprintf(err, errlen,
					 "unknown fault '%s' (corrupt, drop, delay, delay-ms, down, seed)",
					 tok);
				return -1;
			}
			if (!ok) {
				snprintf(err, errlen, "%s=%s: bad value", tok, eq);
				return -1;
			}
		}
	}
	if (f.delay_ppm && !delay_ms_given)
		f.delay_ms = 10;
	was_down = nic->fault[port].down;
	nic->fault[port] = f;
	if (was_down != f.down)
		gemini_port_fault_down(nic, port, f.down);
	return 0;
}

void gemini_fault_get(const struct gemini_nic *nic, unsigned int port,
		      char *buf, size_t len)
{
	const struct gemini_fault *f;

	if (port >= GEMINI_NUM_TORUS_PORTS) {
		snprintf(buf, len, "none");
		return;
	}
	f = &nic->fault[port];
	if (!f->corrupt_ppm && !f->drop_ppm && !f->delay_ppm && !f->down) {
		snprintf(buf, len, "none");
		return;
	}
	snprintf(buf, len, "corrupt=%g,drop=%g,delay=%g,delay-ms=%u,down=%d",
		 f->corrupt_ppm / 1e6, f->drop_ppm / 1e6, f->delay_ppm / 1e6,
		 f->delay_ms, f->down);
}
