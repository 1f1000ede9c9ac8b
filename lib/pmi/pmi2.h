/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * pmi2.h - the PMI-2 calls of vgemini jobs.
 *
 * The public PMI-2 client API (names, arguments, return codes, limits) as
 * MPICH and Slurm document it, for programs that use it under Cray PMI
 * (Open MPI's Cray support among them).  It is the same library and the
 * same job as pmi.h: the calls share one connection to the launcher, so
 * a program may mix them, e.g. PMI2_Init() then PMI_Allgather().  Link
 * with -lpmi (pkg-config module "cray-pmi").
 *
 * Not here: PMI2_Job_Spawn, PMI2_Job_Connect and Disconnect and the name
 * service (vgemini runs one program per job and nothing else), and the
 * integer-array attribute queries.
 *
 * See Documentation/jobs.rst.
 */
#ifndef VGEMINI_PMI2_H
#define VGEMINI_PMI2_H

#ifdef __cplusplus
extern "C" {
#endif

/* Buffer sizes, with the terminating NUL */
#define PMI2_MAX_KEYLEN			64
#define PMI2_MAX_VALLEN			1024
#define PMI2_MAX_ATTRVALUE		1024
/* "No particular rank" for PMI2_KVS_Get() */
#define PMI2_ID_NULL			-1

/* Return codes: those of pmi.h, under PMI-2's names */
#define PMI2_SUCCESS			0
#define PMI2_FAIL			-1
#define PMI2_ERR_INIT			1
#define PMI2_ERR_NOMEM			2
#define PMI2_ERR_INVALID_ARG		3
#define PMI2_ERR_INVALID_KEY		4
#define PMI2_ERR_INVALID_KEY_LENGTH	5
#define PMI2_ERR_INVALID_VAL		6
#define PMI2_ERR_INVALID_VAL_LENGTH	7
#define PMI2_ERR_INVALID_LENGTH		8
#define PMI2_ERR_INVALID_NUM_ARGS	9
#define PMI2_ERR_INVALID_ARGS		10
#define PMI2_ERR_INVALID_NUM_PARSED	11
#define PMI2_ERR_INVALID_KEYVALP	12
#define PMI2_ERR_INVALID_SIZE		13
#define PMI2_ERR_OTHER			14

/* Start and end */

/*
 * Join the job (as PMI_Init) and learn its size, the rank and the
 * application number (0).  *spawned is 0: no vgemini job is started by
 * another.  Calling it again while initialised fills the same values.
 */
int PMI2_Init(int *spawned, int *size, int *rank, int *appnum);
/* 1 when initialised (by PMI2_Init or PMI_Init), else 0 */
int PMI2_Initialized(void);
int PMI2_Finalize(void);
/*
 * End the whole job with exit status 1 and msg, whatever flag says (in
 * vgemini a failed rank always ends its job).  Does not return.
 */
int PMI2_Abort(int flag, const char msg[]);

/* The job */

/* The job's id: the name of its KVS, "kvs_<job id>" */
int PMI2_Job_GetId(char jobid[], int jobid_size);
int PMI2_Job_GetRank(int *rank);

/*
 * The job's key/value space, the one of pmi.h: a key is put once per job;
 * values put before a PMI2_KVS_Fence() are seen by every rank after it.
 */
int PMI2_KVS_Put(const char key[], const char value[]);
int PMI2_KVS_Fence(void);
/*
 * The value of key into value (maxvalue bytes with the NUL) and its
 * length into *vallen (may be NULL).  jobid is NULL or the caller's job
 * id; src_pmi_id, the rank that put the key, is only a hint.  A longer
 * value is cut to maxvalue - 1 bytes and *vallen is minus its length.
 * A key nobody put is PMI2_FAIL.
 */
int PMI2_KVS_Get(const char *jobid, int src_pmi_id, const char key[],
		 char value[], int maxvalue, int *vallen);

/*
 * Attributes of the caller's node, shared by the ranks on it: each is
 * put once per node.  With waitfor non-zero, PMI2_Info_GetNodeAttr waits
 * until a rank of the node puts name (a singleton does not wait: no one
 * else can put it); otherwise *found says whether it is there.
 */
int PMI2_Info_PutNodeAttr(const char name[], const char value[]);
int PMI2_Info_GetNodeAttr(const char name[], char value[], int valuelen,
			  int *found, int waitfor);

/*
 * An attribute of the job: "universeSize" (the universe size, decimal)
 * or "PMI_process_mapping" (where the ranks run, in MPICH's notation
 * "(vector,(first node,nodes,ranks per node),...)").  *found is 0 for
 * any other name.
 */
int PMI2_Info_GetJobAttr(const char name[], char value[], int valuelen,
			 int *found);

#ifdef __cplusplus
}
#endif

#endif /* VGEMINI_PMI2_H */
