/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Internal to libpmi: what pmi2.c (the PMI-2 calls) needs of pmi.c (the
 * PMI-1 calls, the channel and the state they share).  The names are
 * prefixed because a static library's symbols are global.
 */
#ifndef VGEMINI_PMI_PRIV_H
#define VGEMINI_PMI_PRIV_H

#define PMI_EXPORT __attribute__((visibility("default")))

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
