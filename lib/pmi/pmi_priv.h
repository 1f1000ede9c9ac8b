/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Internal to libpmi: what pmi2.c (the PMI-2 calls) and pmi_kvs.c (the
 * KVS) need of pmi.c (the PMI-1 calls, the channel and the state they
 * share).  The names are prefixed because a static library's symbols are
 * global.
 */
#ifndef VGEMINI_PMI_PRIV_H
#define VGEMINI_PMI_PRIV_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "pmi_wire.h"

#define PMI_EXPORT __attribute__((visibility("default")))

struct kv {
	struct kv *next;
	char *key;
	char *val;
};

/* The library's state: the job, the channel and the singleton's KVS */
struct vgemini_pmi_state {
	pthread_mutex_t lock;
	int state;		/* 0 never, 1 initialised, 2 finalised */
	int fd;			/* -1: singleton, or the channel is broken */
	int broken;
	int rank, size, universe, appnum;
	unsigned int name_max, key_max, val_max;
	unsigned int ag_max, ag_total_max;
	int clique_n;
	int *clique;
	char kvsname[VGEMINI_PMI_KVSNAME_MAX];
	struct kv *kvs;		/* singleton only: the KVS */
	struct kv *node_kvs;	/* singleton only: the node's attributes */
};

extern struct vgemini_pmi_state vgemini_pmi;

/* PMI_SUCCESS once initialised, else PMI_ERR_INIT (caller holds the lock) */
int vgemini_pmi_ready(void);

/*
 * One request and its reply (caller holds the lock), as pmi.c describes.
 * Return: a PMI_* code.
 */
int vgemini_pmi_exchange(uint16_t type, const void *head, size_t hlen,
			 const void *tail, size_t tlen, int *status,
			 unsigned char **reply, size_t *rlen, size_t rmax);

/* pmi_kvs.c: the singleton's lists.  Return: a PMI_* code. */
int vgemini_pmi_kvs_put_local(struct kv **head, const char *key,
			      const char *val);
void vgemini_pmi_free_kvs(struct kv **head);

/*
 * Set the attribute name of the caller's node to value (once per node).
 * Return: a PMI_* code.
 */
int vgemini_pmi_node_put(const char *name, const char *value);

/*
 * The attribute name of the caller's node into value (length bytes with
 * the NUL): *found is 1, or 0 when nobody on the node set it yet.
 * Return: a PMI_* code.
 */
int vgemini_pmi_node_get(const char *name, char *value, int length,
			 int *found);

/* The same for the job's KVS: *found is 0 when nobody put key. */
int vgemini_pmi_kvs_get(const char *key, char *value, int length,
			int *found);

/* 1 when the process is a singleton (no launcher), else 0. */
int vgemini_pmi_singleton(void);

/* PMI_Finalize(): forget what pmi_cray.c read of the job. */
void vgemini_pmi_cray_fini(void);

#endif /* VGEMINI_PMI_PRIV_H */
