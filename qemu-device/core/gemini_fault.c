// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cray-gemini device core: the fault injector of each torus port.
 *
 * Parses the fault spec the supervisor writes (corrupt, drop and delay
 * rates, holding the link down, the seed), keeps it per port, and draws
 * the injector's random numbers: xorshift64*, so that a run repeats for a
 * given seed.  The injection itself happens where the link control block
 * puts a packet on the wire (wire_write() in gemini_lcb.c), which asks
 * gemini_fault_roll() and gemini_fault_pick().
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemini_core.h"

#define STORE(p, v)	__atomic_store_n(&(p), (v), __ATOMIC_RELEASE)

/* Our side of @p's link (as in gemini_lcb.c). */
static volatile struct vgemini_link_side *me(struct gemini_router_port *p)
{
	return p->link.mine;
}

/* --- Random numbers ---------------------------------------------------- */

static uint32_t fault_rand(struct gemini_fault *f)
{
	/* xorshift64*: deterministic for a given seed, good enough here. */
	f->rng ^= f->rng >> 12;
	f->rng ^= f->rng << 25;
	f->rng ^= f->rng >> 27;
	return (uint32_t)((f->rng * 0x2545f4914f6cdd1dull) >> 32) % 1000000u;
}

bool gemini_fault_roll(struct gemini_fault *f, uint32_t ppm)
{
	return fault_rand(f) < ppm;
}

unsigned int gemini_fault_pick(struct gemini_fault *f, unsigned int n)
{
	return fault_rand(f) % n;
}

/* --- The fault spec ---------------------------------------------------- */

static bool parse_fraction(const char *v, uint32_t *ppm)
{
	char *end;
	double d = strtod(v, &end);

	if (end == v || *end || !(d >= 0.0 && d <= 1.0))
		return false;
	*ppm = (uint32_t)(d * 1000000.0 + 0.5);
	return true;
}

static bool parse_uint(const char *v, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long n;

	if (!*v || *v == '-')
		return false;
	n = strtoull(v, &end, 0);
	if (*end || n > max)
		return false;
	*out = n;
	return true;
}

int gemini_fault_set(struct gemini_nic *nic, unsigned int port,
		     const char *spec, char *err, size_t errlen)
{
	struct gemini_fault f = { .rng = 0x9e3779b97f4a7c15ull };
	struct gemini_router_port *p;
	char buf[256], *tok, *next;
	bool was_down;

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
	if (f.delay_ppm && !f.delay_ms)
		f.delay_ms = 10;
	p = &nic->port[port];
	was_down = p->fault.down;
	p->fault = f;
	if (was_down != f.down && p->link.mine) {
		/* Down stops our heartbeat; back up retrains the link. */
		p->seen_valid = false;
		gemini_lcb_reset(nic, port);
		if (!f.down) {
			p->epoch++;
			STORE(me(p)->epoch, p->epoch);
		}
	}
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
	f = &nic->port[port].fault;
	if (!f->corrupt_ppm && !f->drop_ppm && !f->delay_ppm && !f->down) {
		snprintf(buf, len, "none");
		return;
	}
	snprintf(buf, len, "corrupt=%g,drop=%g,delay=%g,delay-ms=%u,down=%d",
		 f->corrupt_ppm / 1e6, f->drop_ppm / 1e6, f->delay_ppm / 1e6,
		 f->delay_ms, f->down);
}
