/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * wlm_detect.h - which workload manager starts jobs on this system.
 * Link with -lwlm_detect (pkg-config module cray-wlm_detect).
 *
 * A Cray runs its jobs under ALPS or under Slurm, and some programs (Open
 * MPI's launcher components) choose their way to start jobs from the
 * answer.  vgemini's is always ALPS: "vgemini run" is its aprun.
 */
#ifndef VGEMINI_WLM_DETECT_H
#define VGEMINI_WLM_DETECT_H

#ifdef __cplusplus
extern "C" {
#endif

/* The names the functions return */
#define WLM_DETECT_ALPS			"ALPS"
#define WLM_DETECT_SLURM		"SLURM"

/*
 * The workload manager active on this system, e.g. "ALPS", as a string
 * the caller frees with free(); NULL when it cannot be told (out of
 * memory), in which case wlm_detect_get_default() is the fallback.
 */
char *wlm_detect_get_active(void);

/* The system's default workload manager; the caller frees it too. */
char *wlm_detect_get_default(void);

#ifdef __cplusplus
}
#endif

#endif /* VGEMINI_WLM_DETECT_H */
