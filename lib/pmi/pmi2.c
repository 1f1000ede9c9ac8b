// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * libpmi: the PMI-2 calls, on top of the PMI-1 ones (pmi.c) and their
 * state: one channel to the launcher, one job, one KVS.  What PMI-2 has
 * and PMI-1 does not, the node's attributes, goes through pmi_priv.h.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "pmi.h"
#include "pmi2.h"
#include "pmi_priv.h"
#include "pmi_wire.h"

/* The two APIs' codes and limits are the same numbers. */
_Static_assert(PMI2_SUCCESS == PMI_SUCCESS && PMI2_FAIL == PMI_FAIL &&
	       PMI2_ERR_INIT == PMI_ERR_INIT &&
	       PMI2_ERR_INVALID_ARG == PMI_ERR_INVALID_ARG &&
	       PMI2_ERR_INVALID_LENGTH == PMI_ERR_INVALID_LENGTH &&
	       PMI2_ERR_INVALID_SIZE == PMI_ERR_INVALID_SIZE,
	       "PMI-2 return codes are PMI-1's");
_Static_assert(PMI2_MAX_KEYLEN == VGEMINI_PMI_KEY_MAX &&
	       PMI2_MAX_VALLEN == VGEMINI_PMI_VAL_MAX &&
	       PMI2_MAX_ATTRVALUE == VGEMINI_PMI_VAL_MAX,
	       "PMI-2 limits are the server's");

/* Polls of PMI2_Info_GetNodeAttr(..., waitfor): 100 us, doubling to 10 ms */
#define NODE_WAIT_FIRST_NS	100000L
#define NODE_WAIT_MAX_NS	10000000L

PMI_EXPORT int PMI2_Init(int *spawned, int *size, int *rank, int *appnum)
{
	int sp, rc;

	if (!spawned || !size || !rank || !appnum)
		return PMI2_ERR_INVALID_ARG;
	rc = PMI_Init(&sp);
	if (rc == PMI_SUCCESS)
		rc = PMI_Get_size(size);
	if (rc == PMI_SUCCESS)
		rc = PMI_Get_rank(rank);
	if (rc == PMI_SUCCESS)
		rc = PMI_Get_appnum(appnum);
	if (rc == PMI_SUCCESS)
		*spawned = 0;
	return rc;
}

PMI_EXPORT int PMI2_Initialized(void)
{
	PMI_BOOL inited = PMI_FALSE;

	PMI_Initialized(&inited);
	return inited == PMI_TRUE;
}

PMI_EXPORT int PMI2_Finalize(void)
{
	return PMI_Finalize();
}

/*
 * PMI2's flag only says whether the whole job ends (vgemini always ends
 * it).  Open MPI's Cray support (pmix/cray) passes its MPI_Abort error
 * code there and has no other way to give it: a flag beyond the boolean
 * values is the job's exit status, as MPI_Abort's caller expects.
 */
PMI_EXPORT int PMI2_Abort(int flag, const char msg[])
{
	return PMI_Abort(flag > 1 && flag < 256 ? flag : 1, msg);
}

PMI_EXPORT int PMI2_Job_GetId(char jobid[], int jobid_size)
{
	return PMI_KVS_Get_my_name(jobid, jobid_size);
}

PMI_EXPORT int PMI2_Job_GetRank(int *rank)
{
	return PMI_Get_rank(rank);
}

PMI_EXPORT int PMI2_KVS_Put(const char key[], const char value[])
{
	char kvs[VGEMINI_PMI_KVSNAME_MAX];
	int rc = PMI_KVS_Get_my_name(kvs, sizeof(kvs));

	return rc == PMI_SUCCESS ? PMI_KVS_Put(kvs, key, value) : rc;
}

PMI_EXPORT int PMI2_KVS_Fence(void)
{
	/* Puts reach the launcher at once: a barrier is all a fence needs. */
	return PMI_Barrier();
}

PMI_EXPORT int PMI2_KVS_Get(const char *jobid, int src_pmi_id,
			    const char key[], char value[], int maxvalue,
			    int *vallen)
{
	char kvs[VGEMINI_PMI_KVSNAME_MAX], buf[VGEMINI_PMI_VAL_MAX];
	size_t len;
	int rc;

	(void)src_pmi_id;
	rc = PMI_KVS_Get_my_name(kvs, sizeof(kvs));
	if (rc != PMI_SUCCESS)
		return rc;
	if (!value || maxvalue <= 0 || (jobid && strcmp(jobid, kvs)))
		return PMI2_ERR_INVALID_ARG;
	rc = PMI_KVS_Get(kvs, key, buf, sizeof(buf));
	if (rc != PMI_SUCCESS)
		return rc;
	len = strlen(buf);
	if (len < (size_t)maxvalue) {
		memcpy(value, buf, len + 1);
		if (vallen)
			*vallen = (int)len;
	} else {
		memcpy(value, buf, maxvalue - 1);
		value[maxvalue - 1] = 0;
		if (vallen)
			*vallen = -(int)len;
	}
	return PMI2_SUCCESS;
}

PMI_EXPORT int PMI2_Info_PutNodeAttr(const char name[], const char value[])
{
	return vgemini_pmi_node_put(name, value);
}

PMI_EXPORT int PMI2_Info_GetNodeAttr(const char name[], char value[],
				     int valuelen, int *found, int waitfor)
{
	struct timespec ts = { 0, NODE_WAIT_FIRST_NS };
	int rc;

	if (!found)
		return PMI2_ERR_INVALID_ARG;
	for (;;) {
		rc = vgemini_pmi_node_get(name, value, valuelen, found);
		if (rc != PMI_SUCCESS || *found || !waitfor ||
		    vgemini_pmi_singleton())
			return rc;
		/* Another rank of the node has yet to put it: poll, gently */
		nanosleep(&ts, NULL);
		if (ts.tv_nsec < NODE_WAIT_MAX_NS / 2)
			ts.tv_nsec *= 2;
		else
			ts.tv_nsec = NODE_WAIT_MAX_NS;
	}
}

PMI_EXPORT int PMI2_Info_GetJobAttr(const char name[], char value[],
				    int valuelen, int *found)
{
	char kvs[VGEMINI_PMI_KVSNAME_MAX];
	int rc, n;

	if (!name || !value || valuelen <= 0 || !found)
		return PMI2_ERR_INVALID_ARG;
	rc = PMI_KVS_Get_my_name(kvs, sizeof(kvs));	/* also: initialised? */
	if (rc != PMI_SUCCESS)
		return rc;
	*found = 0;
	if (!strcmp(name, "universeSize")) {
		rc = PMI_Get_universe_size(&n);
		if (rc != PMI_SUCCESS)
			return rc;
		if (snprintf(value, valuelen, "%d", n) >= valuelen)
			return PMI2_ERR_INVALID_LENGTH;
		*found = 1;
		return PMI2_SUCCESS;
	}
	if (!strcmp(name, VGEMINI_PMI_KEY_MAPPING))
		/* The launcher put it into the job's KVS before we started */
		return vgemini_pmi_kvs_get(name, value, valuelen, found);
	return PMI2_SUCCESS;
}
