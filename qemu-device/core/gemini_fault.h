/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cray-gemini device core: the fault injector of each router port
 * (gemini_fault.c).  It sits between a port's send buffer and the wire:
 * the link control block (gemini_lcb.c) asks it what to do with each copy
 * it writes, and a port held down by it shows no life to its neighbour.
 */
#ifndef GEMINI_FAULT_H
#define GEMINI_FAULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gemini_nic;

/* Fault injection on what a port sends (rates in parts per million). */
struct gemini_fault {
	uint32_t corrupt_ppm;
	uint32_t drop_ppm;
	uint32_t delay_ppm;
	uint32_t delay_ms;
	bool down;
	uint64_t rng;
};

/*
 * Parse and apply a fault spec ("" / "none", or "corrupt=F,drop=F,
 * delay=F,delay-ms=N,down=0|1,seed=N").  Returns 0 or -1 with @err.
 */
int gemini_fault_set(struct gemini_nic *nic, unsigned int port,
		     const char *spec, char *err, size_t errlen);
/* Write the current fault spec of @port into @buf. */
void gemini_fault_get(const struct gemini_nic *nic, unsigned int port,
		      char *buf, size_t len);
/* Does the injector hold @port's link down? */
bool gemini_fault_down(const struct gemini_nic *nic, unsigned int port);

/* What the injector does to one copy a port puts on the wire. */
enum gemini_fault_act {
	GEMINI_FAULT_PASS = 0,
	GEMINI_FAULT_DELAY,		/* hold it and all behind it */
	GEMINI_FAULT_DROP,		/* lose it on the wire */
	GEMINI_FAULT_CORRUPT,		/* flip one bit of it */
};

/*
 * Decide the fate of a copy of @len bytes on @port's wire; @may_delay is
 * false for the copy that was delayed already.  DELAY sets *@delay_ns,
 * CORRUPT the bit to flip in *@bit.  Each call draws the port's random
 * numbers only for the faults that are set, so a run with the same seed
 * draws the same.
 */
enum gemini_fault_act gemini_fault_on_wire(struct gemini_nic *nic,
					   unsigned int port, unsigned int len,
					   bool may_delay, uint64_t *delay_ns,
					   unsigned int *bit);

#endif /* GEMINI_FAULT_H */
