// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * libalpsutil: the placement of an application, computed from the
 * environment "vgemini run" gives every rank (alps/alps.h).
 *
 * vgemini places a job's N ranks in blocks of K (its --ppn): rank p on
 * the job's node p / K, the last node taking what is left, one program
 * for all.  A rank knows N, itself, its index among its node's ranks and
 * their number; with K it knows every rank's node.  The variables are
 * checked against each other, so a placement that is not such a block
 * is refused rather than described wrongly.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>

#include "alps_env.h"
#include "libalpsutil.h"
#include "pmi_wire.h"

/* What the variables say; ppn is 0 when VGEMINI_PPN is not set. */
struct place {
	uint64_t apid;
	int size, pe, local_rank, local_size, first, ppn;
};

static int env_int(const char *name, unsigned long long lo,
		   unsigned long long hi, int *out)
{
	unsigned long long v;
	int rc = vgemini_alps_env_num(name, lo, hi, &v);

	if (!rc)
		*out = (int)v;
	return rc;
}

/* Read and cross-check the variables.  Return: 0 or a negative errno. */
static int read_place(struct place *p)
{
	const unsigned long long max = VGEMINI_PMI_MAX_RANKS;
	unsigned long long apid;
	int rc, full;

	rc = vgemini_alps_env_num(ALPS_ENV_APP_ID, 1, UINT64_MAX, &apid);
	if (!rc)
		rc = env_int(ALPS_ENV_SIZE, 1, max, &p->size);
	if (!rc)
		rc = env_int(ALPS_ENV_APP_PE, 0, max - 1, &p->pe);
	if (!rc)
		rc = env_int(ALPS_ENV_LOCAL_RANK, 0, max - 1, &p->local_rank);
	if (!rc)
		rc = env_int(ALPS_ENV_LOCAL_SIZE, 1, max, &p->local_size);
	if (rc)
		return rc;
	p->apid = apid;
	p->first = p->pe - p->local_rank;
	if (p->pe >= p->size || p->local_rank >= p->local_size ||
	    p->first < 0 || p->local_size > p->size - p->first)
		return -EINVAL;
	rc = env_int(ALPS_ENV_PPN, 1, max, &p->ppn);
	if (rc == -ENOENT) {
		p->ppn = 0;
		return 0;
	}
	if (rc)
		return rc;
	/* A block: the node starts at a multiple of K and is full unless last */
	full = p->size - p->first < p->ppn ? p->size - p->first : p->ppn;
	if (p->first % p->ppn || p->local_size != full)
		return -EINVAL;
	return 0;
}

/* An array of n ints, all v; NULL when n is 0 or out of memory. */
static int *ints(int n, int v)
{
	int *a = n ? malloc(n * sizeof(int)) : NULL;
	int i;

	for (i = 0; a && i < n; i++)
		a[i] = v;
	return a;
}

ALPS_EXPORT int alps_get_placement_info(uint64_t apid,
					alpsAppLayout_t *appLayout,
					int **placementList, int **targetNids,
					int **targetPes, int **targetLen,
					struct in_addr **targetIps,
					int **startPe, int **totalPes,
					int **nodePes, int **peCpus)
{
	int *place = NULL, *start = NULL, *total = NULL, *node = NULL;
	int *cpus = NULL;
	struct place p;
	int rc, i;

	/* Nothing half-filled to free on failure */
	if (placementList)
		*placementList = NULL;
	if (targetNids)
		*targetNids = NULL;
	if (targetPes)
		*targetPes = NULL;
	if (targetLen)
		*targetLen = NULL;
	if (targetIps)
		*targetIps = NULL;
	if (startPe)
		*startPe = NULL;
	if (totalPes)
		*totalPes = NULL;
	if (nodePes)
		*nodePes = NULL;
	if (peCpus)
		*peCpus = NULL;

	rc = read_place(&p);
	if (rc)
		goto fail;
	if (apid != p.apid || (!p.ppn && (placementList || nodePes))) {
		rc = -ENOENT;
		goto fail;
	}
	if (placementList) {
		/* The nid of a job's node n is n (Documentation/jobs.rst). */
		place = ints(p.size, 0);
		for (i = 0; place && i < p.size; i++)
			place[i] = i / p.ppn;
		if (!place)
			goto nomem;
	}
	/* One command: all PEs from 0, K per node, one CPU each */
	if (startPe)
		start = ints(1, 0);
	if (totalPes)
		total = ints(1, p.size);
	if (nodePes)
		node = ints(1, p.ppn < p.size ? p.ppn : p.size);
	if (peCpus)
		cpus = ints(1, 1);
	if ((startPe && !start) || (totalPes && !total) ||
	    (nodePes && !node) || (peCpus && !cpus))
		goto nomem;

	if (appLayout) {
		appLayout->apid = p.apid;
		appLayout->firstPe = p.first;
		appLayout->numPesHere = p.local_size;
		appLayout->peDepth = 1;
		appLayout->cmdNumber = 0;
		appLayout->numPes = p.size;
		appLayout->numTargets = 0;
		appLayout->numCmds = 1;
	}
	if (placementList)
		*placementList = place;
	if (startPe)
		*startPe = start;
	if (totalPes)
		*totalPes = total;
	if (nodePes)
		*nodePes = node;
	if (peCpus)
		*peCpus = cpus;
	return 1;

nomem:
	rc = -ENOMEM;
	free(place);
	free(start);
	free(total);
	free(node);
	free(cpus);
fail:
	errno = -rc;
	return -1;
}
