/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * pmi_cray.h - the Cray PMI extensions runtimes ported to a Cray XE call:
 * where the ranks of the job run.  pmi.h includes it, as Cray's did.
 *
 * A node's id (nid) is its Gemini id: a job of "vgemini run" runs K ranks
 * on each of its nodes 0, 1, ..., in rank order (PMI_process_mapping),
 * and rank r's nid is r / K.  The "smp" of a rank is its node: the ranks
 * there are its clique (PMI_Get_clique_ranks()).
 *
 * See Documentation/jobs.rst.
 */
#ifndef VGEMINI_PMI_CRAY_H
#define VGEMINI_PMI_CRAY_H

#ifdef __cplusplus
extern "C" {
#endif

/* The nid of @rank (0 .. size - 1); PMI_ERR_INVALID_ARG for another. */
int PMI_Get_nid(int rank, int *nid);
/*
 * *@nidlist: the library's array of every rank's nid (int, size
 * entries), valid until PMI_Finalize(); the caller must not free it.
 */
int PMI_Get_nidlist_ptr(void **nidlist);
/* How many ranks run on this node */
int PMI_Get_numpes_on_smp(int *num);
/* Their ranks, in increasing order, into @pelist of @num entries */
int PMI_Get_pes_on_smp(int *pelist, int num);

#ifdef __cplusplus
}
#endif

#endif /* VGEMINI_PMI_CRAY_H */
