/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * alps/apInfo.h - the layout of ALPS's appinfo file, which describes the
 * applications of every reservation on a Cray: a header, then for each
 * application an appInfo_t, its numCmds cmdDetail_t and its numPlaces
 * placeNodeList_ver3_t (one per node), back to back.
 *
 * vgemini writes no appinfo file: "vgemini run" places the ranks itself
 * and there are no reservations.  The header is here so that programs
 * that can read one (Open MPI's ras and schizo components) build; they
 * find no file and no reservation id at run time.
 */
#ifndef VGEMINI_ALPS_APINFO_H
#define VGEMINI_ALPS_APINFO_H

#include <stdint.h>

#include "alps.h"

/* The layout below: one entry per node, with its PE and CPU counts. */
#define ALPS_APPINFO_VERSION		3

/* Length of the command name in a cmdDetail_t, with its NUL */
#define ALPS_APPINFO_CMD_LEN		32

/**
 * typedef appInfoHdr_t - the start of the file
 * @apNum: applications described in the file
 */
typedef struct {
	int apNum;
} appInfoHdr_t;

/**
 * typedef appInfo_t - one application
 * @apid:      its id
 * @resId:     the reservation it runs in
 * @numCmds:   its commands (cmdDetail_t entries that follow)
 * @numPlaces: its nodes (placeNodeList_ver3_t entries after the commands)
 */
typedef struct {
	uint64_t apid;
	uint32_t resId;
	int numCmds;
	int numPlaces;
} appInfo_t;

/**
 * typedef cmdDetail_t - one command of an application
 * @width:   its PEs
 * @depth:   CPUs per PE
 * @nodeCnt: its nodes
 * @cmd:     the program's name, NUL-terminated
 */
typedef struct {
	int width;
	int depth;
	int nodeCnt;
	char cmd[ALPS_APPINFO_CMD_LEN];
} cmdDetail_t;

/**
 * typedef placeNodeList_ver3_t - one node of an application
 * @nid:    the node's id
 * @cmdIx:  the command it runs (index of its cmdDetail_t)
 * @numPEs: PEs placed on it
 * @cpuCnt: CPUs reserved on it
 */
typedef struct {
	int32_t nid;
	int cmdIx;
	int numPEs;
	int cpuCnt;
} placeNodeList_ver3_t;

#endif /* VGEMINI_ALPS_APINFO_H */
