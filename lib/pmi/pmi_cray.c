// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The Cray PMI extensions of pmi_cray.h: every rank's nid, from the
 * job's PMI_process_mapping ("(vector,(first node,nodes,ranks per
 * node),...)", blocks in rank order, which the launcher puts into the
 * KVS and a singleton has too), read once and kept until PMI_Finalize().
 * The node's ranks are the clique.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "pmi.h"
#include "pmi_priv.h"
#include "pmi_wire.h"

static pthread_mutex_t nids_lock = PTHREAD_MUTEX_INITIALIZER;
static int *nids;		/* every rank's nid, once read */

/* A decimal at *@s, at most @max; moves *@s past it.  -1: none. */
static long number(const char **s, long max)
{
	long v = 0;

	if (**s < '0' || **s > '9')
		return -1;
	while (**s >= '0' && **s <= '9') {
		v = v * 10 + (*(*s)++ - '0');
		if (v > max)
			return -1;
	}
	return v;
}

/* @map's nid of each of @size ranks into @out; PMI_FAIL if malformed. */
static int parse_mapping(const char *map, int size, int *out)
{
	const char *s = map;
	long first, nodes, rpn, n, k;
	int r = 0;

	if (strncmp(s, "(vector", 7))
		return PMI_FAIL;
	s += 7;
	while (*s == ',') {
		s++;
		if (*s++ != '(')
			return PMI_FAIL;
		first = number(&s, VGEMINI_PMI_MAX_RANKS);
		if (first < 0 || *s++ != ',')
			return PMI_FAIL;
		nodes = number(&s, VGEMINI_PMI_MAX_RANKS);
		if (nodes < 1 || *s++ != ',')
			return PMI_FAIL;
		rpn = number(&s, VGEMINI_PMI_MAX_RANKS);
		if (rpn < 1 || *s++ != ')')
			return PMI_FAIL;
		for (n = 0; n < nodes; n++)
			for (k = 0; k < rpn; k++) {
				if (r >= size)
					return PMI_FAIL;
				out[r++] = (int)(first + n);
			}
	}
	return strcmp(s, ")") || r != size ? PMI_FAIL : PMI_SUCCESS;
}

/* Every rank's nid, read if need be; NULL with *@rc on failure. */
static int *nid_list(int *rc)
{
	char map[VGEMINI_PMI_VAL_MAX];
	int size, found, *list;

	*rc = PMI_Get_size(&size);
	if (*rc != PMI_SUCCESS)
		return NULL;
	pthread_mutex_lock(&nids_lock);
	if (nids)
		goto out;
	*rc = vgemini_pmi_kvs_get(VGEMINI_PMI_KEY_MAPPING, map, sizeof(map),
				  &found);
	if (*rc == PMI_SUCCESS && !found)
		*rc = PMI_FAIL;
	if (*rc != PMI_SUCCESS)
		goto out;
	list = malloc((size_t)size * sizeof(*list));
	if (!list) {
		*rc = PMI_ERR_NOMEM;
		goto out;
	}
	*rc = parse_mapping(map, size, list);
	if (*rc == PMI_SUCCESS)
		nids = list;
	else
		free(list);
out:
	list = nids;
	pthread_mutex_unlock(&nids_lock);
	return list;
}

void vgemini_pmi_cray_fini(void)
{
	pthread_mutex_lock(&nids_lock);
	free(nids);
	nids = NULL;
	pthread_mutex_unlock(&nids_lock);
}

PMI_EXPORT int PMI_Get_nid(int rank, int *nid)
{
	int size, rc, *list;

	if (!nid)
		return PMI_ERR_INVALID_ARG;
	list = nid_list(&rc);
	if (!list)
		return rc;
	rc = PMI_Get_size(&size);
	if (rc != PMI_SUCCESS)
		return rc;
	if (rank < 0 || rank >= size)
		return PMI_ERR_INVALID_ARG;
	*nid = list[rank];
	return PMI_SUCCESS;
}

PMI_EXPORT int PMI_Get_nidlist_ptr(void **nidlist)
{
	int rc, *list;

	if (!nidlist)
		return PMI_ERR_INVALID_ARG;
	list = nid_list(&rc);
	if (!list)
		return rc;
	*nidlist = list;
	return PMI_SUCCESS;
}

PMI_EXPORT int PMI_Get_numpes_on_smp(int *num)
{
	return PMI_Get_clique_size(num);
}

PMI_EXPORT int PMI_Get_pes_on_smp(int *pelist, int num)
{
	return PMI_Get_clique_ranks(pelist, num);
}
