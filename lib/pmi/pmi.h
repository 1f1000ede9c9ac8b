/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * pmi.h - the process management interface (PMI-1) of vgemini jobs.
 *
 * Programs started by "vgemini run" use these calls to learn their rank
 * and the job size, to exchange small key/value pairs and to synchronise,
 * as they would with Cray PMI under ALPS.  The API follows the PMI-1
 * convention (names, arguments, return codes) plus the Cray extensions
 * that Gemini programs use: PMI_Allgather() and the clique (node-local
 * rank) queries.  Link with -lpmi (pkg-config module "cray-pmi").
 *
 * Every call returns PMI_SUCCESS or one of the error codes below; the
 * library never prints anything.  A program started without the launcher
 * runs as a singleton job (size 1, rank 0).  pmi2.h has the PMI-2 calls,
 * in the same library and on the same state: a program may start with
 * PMI2_Init() and go on with the calls of this file.
 *
 * See Documentation/jobs.rst.
 */
#ifndef VGEMINI_PMI_H
#define VGEMINI_PMI_H

#ifdef __cplusplus
extern "C" {
#endif

/* Return codes (the PMI-1 values). */
#define PMI_SUCCESS			0
#define PMI_FAIL			-1
#define PMI_ERR_INIT			1
#define PMI_ERR_NOMEM			2
#define PMI_ERR_INVALID_ARG		3
#define PMI_ERR_INVALID_KEY		4
#define PMI_ERR_INVALID_KEY_LENGTH	5
#define PMI_ERR_INVALID_VAL		6
#define PMI_ERR_INVALID_VAL_LENGTH	7
#define PMI_ERR_INVALID_LENGTH		8
#define PMI_ERR_INVALID_NUM_ARGS	9
#define PMI_ERR_INVALID_ARGS		10
#define PMI_ERR_INVALID_NUM_PARSED	11
#define PMI_ERR_INVALID_KEYVALP		12
#define PMI_ERR_INVALID_SIZE		13

typedef int PMI_BOOL;
#define PMI_TRUE			1
#define PMI_FALSE			0

/* Start and end */

/*
 * Connect to the launcher's PMI service.  *spawned is set to PMI_TRUE when
 * the process was started by a launcher (it is part of a job), PMI_FALSE
 * for a singleton.  Calling it again while initialised succeeds and does
 * nothing more.
 */
int PMI_Init(int *spawned);
int PMI_Initialized(PMI_BOOL *initialized);
/* Leave the job's PMI service; no PMI call but PMI_Initialized after it. */
int PMI_Finalize(void);
/*
 * End the whole job: the launcher prints error_msg, kills every rank and
 * exits non-zero.  Does not return.
 */
int PMI_Abort(int exit_code, const char error_msg[]);

/* The job */

int PMI_Get_size(int *size);
int PMI_Get_rank(int *rank);
int PMI_Get_universe_size(int *size);
int PMI_Get_appnum(int *appnum);

/* Ranks on this node ("clique"), in increasing order. */
int PMI_Get_clique_size(int *size);
int PMI_Get_clique_ranks(int ranks[], int length);

/* Collectives: every rank of the job must call the same one. */
int PMI_Barrier(void);
/*
 * Cray extension: every rank contributes len bytes from in; out (size *
 * len bytes) receives the contributions of ranks 0, 1, ..., size - 1 in
 * that order.  Every rank must pass the same len.
 */
int PMI_Allgather(void *in, void *out, int len);
/*
 * Cray extension: every rank contributes len bytes from in, any number;
 * all_lens[r] is rank r's len (every rank passes the same array, of the
 * job's size).  out receives the contributions in rank order, back to
 * back (the sum of all_lens bytes).  When all_lens disagrees with what
 * the ranks contributed, every rank whose array is wrong gets
 * PMI_ERR_INVALID_LENGTH and out is left alone.
 */
int PMI_Allgatherv(void *in, int len, void *out, int *all_lens);

/* Cray extension: the version of this library (1.1.0 and up). */
int PMI_Get_version_info(int *major, int *minor, int *revision);

/*
 * The key/value space (KVS).  The job has one KVS; its name comes from
 * PMI_KVS_Get_my_name().  The *_length_max values are buffer sizes,
 * including the terminating NUL.  A key can be put once per job; values
 * put before a PMI_Barrier() are visible to every rank after it.
 */
int PMI_KVS_Get_my_name(char kvsname[], int length);
int PMI_KVS_Get_name_length_max(int *length);
int PMI_KVS_Get_key_length_max(int *length);
int PMI_KVS_Get_value_length_max(int *length);
int PMI_KVS_Put(const char kvsname[], const char key[], const char value[]);
int PMI_KVS_Commit(const char kvsname[]);
int PMI_KVS_Get(const char kvsname[], const char key[], char value[],
		int length);

#ifdef __cplusplus
}
#endif

#include "pmi_cray.h"

#endif /* VGEMINI_PMI_H */
