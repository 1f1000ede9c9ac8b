/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * alps/alps.h - common definitions of vgemini's ALPS libraries.
 *
 * On a Cray, ALPS (the Application Level Placement Scheduler) starts the
 * ranks of a job (aprun) and tells them where they run and which Gemini
 * credentials are theirs.  In vgemini "vgemini run" plays that part: it
 * starts every rank with variables in its environment, and the ALPS
 * libraries answer from them.  Programs written for ALPS include these
 * headers unmodified:
 *
 *   alps/alps.h             this file
 *   alps/alps_toolAssist.h  the application layout (alpsAppLayout_t)
 *   alps/libalpsutil.h      alps_get_placement_info()      -lalpsutil
 *   alps/libalpslli.h       the requests to ALPS (apid, Gemini
 *                           credentials)                   -lalpslli
 *   alps/apInfo.h           the layout of ALPS's appinfo file
 *
 * through the pkg-config modules cray-alps (headers), cray-alpsutil and
 * cray-alpslli.  Written for vgemini from the facts of how ALPS clients
 * (Open MPI, libfabric's GNI provider) call these interfaces: names,
 * argument order, fields.  See Documentation/jobs.rst, "ALPS".
 */
#ifndef VGEMINI_ALPS_ALPS_H
#define VGEMINI_ALPS_ALPS_H

/* Version of vgemini's ALPS interfaces (not Cray's ALPS release). */
#define ALPS_VGEMINI_MAJOR		1
#define ALPS_VGEMINI_MINOR		0

/*
 * The variables "vgemini run" gives every rank that the ALPS libraries
 * read (decimal, as on a Cray; Documentation/jobs.rst lists them all).
 */
#define ALPS_ENV_APP_ID			"ALPS_APP_ID"	/* the apid */
#define ALPS_ENV_APP_PE			"ALPS_APP_PE"	/* the rank */
#define ALPS_ENV_SIZE			"PMI_SIZE"	/* ranks in the job */
#define ALPS_ENV_LOCAL_RANK		"PMI_LOCAL_RANK" /* index on its node */
#define ALPS_ENV_LOCAL_SIZE		"PMI_LOCAL_SIZE" /* ranks on its node */
#define ALPS_ENV_PPN			"VGEMINI_PPN"	/* ranks per node */
#define ALPS_ENV_GNI_DEV_ID		"PMI_GNI_DEV_ID"
#define ALPS_ENV_GNI_LOC_ADDR		"PMI_GNI_LOC_ADDR"
#define ALPS_ENV_GNI_PTAG		"PMI_GNI_PTAG"
#define ALPS_ENV_GNI_COOKIE		"PMI_GNI_COOKIE"

#endif /* VGEMINI_ALPS_ALPS_H */
