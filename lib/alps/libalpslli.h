/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * alps/libalpslli.h - requests from an application to ALPS (the "low
 * level interface").  Link with -lalpslli (pkg-config module cray-alpslli).
 *
 * A request and its response, under the application's lock:
 *
 *   alps_app_lli_lock();
 *   alps_app_lli_put_request(ALPS_APP_LLI_ALPS_REQ_APID, NULL, 0);
 *   alps_app_lli_get_response(&status, &count);    status, bytes to read
 *   alps_app_lli_get_response_bytes(&apid, count); the bytes
 *   alps_app_lli_unlock();
 *
 * On a Cray the requests travel on pipes to the node's ALPS daemon; in
 * vgemini the library answers them itself from the rank's environment
 * (alps/alps.h), so a response is ready as soon as its request is put.
 * The requests answered are ALPS_APP_LLI_ALPS_REQ_APID and
 * ALPS_APP_LLI_ALPS_REQ_GNI; the other requests ALPS defines get the
 * status ALPS_APP_LLI_ALPS_STAT_UNAVAIL, unknown ones
 * ALPS_APP_LLI_ALPS_STAT_REQ.
 *
 * Every function returns 0 (ALPS_APP_LLI_ALPS_STAT_OK) on success, or -1
 * with errno set.  The library prints nothing.
 */
#ifndef VGEMINI_ALPS_LIBALPSLLI_H
#define VGEMINI_ALPS_LIBALPSLLI_H

#include <stddef.h>
#include <stdint.h>

#include "alps.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Request codes (ALPS's values) */
#define ALPS_APP_LLI_ALPS_REQ_SIGNAL	1	/* signal other PEs */
#define ALPS_APP_LLI_ALPS_REQ_EXITING	2	/* the PEs exit normally */
#define ALPS_APP_LLI_ALPS_REQ_APID	3	/* answer: uint64_t apid */
#define ALPS_APP_LLI_ALPS_REQ_CPUMASK	4	/* the node's CPU mask */
#define ALPS_APP_LLI_ALPS_REQ_START	5	/* the start-up barrier */
#define ALPS_APP_LLI_ALPS_REQ_REBIND	6	/* reset CPU binding */
#define ALPS_APP_LLI_ALPS_REQ_GNI	7	/* answer: alpsAppLLIGni_t */

/* Response status codes (ALPS's values) */
#define ALPS_APP_LLI_ALPS_STAT_OK	0
#define ALPS_APP_LLI_ALPS_STAT_REQ	1	/* unknown request */
#define ALPS_APP_LLI_ALPS_STAT_FORM	2	/* malformed request */
#define ALPS_APP_LLI_ALPS_STAT_READ	3	/* response could not be read */
#define ALPS_APP_LLI_ALPS_STAT_UNAVAIL	4	/* the information is not there */
#define ALPS_APP_LLI_ALPS_STAT_FAIL	5	/* the information is invalid */

/**
 * typedef alpsAppGni_t - the Gemini credentials of one NIC of the node
 * @device_id:  the NIC's device id (PMI_GNI_DEV_ID)
 * @local_addr: the NIC's address (PMI_GNI_LOC_ADDR)
 * @cookie:     the job's cookie (PMI_GNI_COOKIE)
 * @ptag:       the job's ptag (PMI_GNI_PTAG)
 */
typedef struct {
	uint32_t device_id;
	int32_t local_addr;
	uint32_t cookie;
	uint32_t ptag;
} alpsAppGni_t;

/**
 * typedef alpsAppLLIGni_t - the response to ALPS_APP_LLI_ALPS_REQ_GNI
 * @count: entries that follow
 * @u.buf: where the @count alpsAppGni_t entries start (the response is
 *         ALPS_APP_LLI_GNI_SIZE(count) bytes)
 *
 * Each PMI_GNI_* variable is a colon-separated list with one entry per
 * NIC, all of the same length; vgemini nodes have one NIC.
 */
typedef struct {
	int count;
	union {
		int64_t align;
		char buf[sizeof(alpsAppGni_t)];
	} u;
} alpsAppLLIGni_t;

#define ALPS_APP_LLI_GNI_SIZE(n) \
	(offsetof(alpsAppLLIGni_t, u) + (size_t)(n) * sizeof(alpsAppGni_t))
/* Most entries in a response */
#define ALPS_APP_LLI_GNI_MAX		8

/* Serialise requests among the threads of the process. */
int alps_app_lli_lock(void);
int alps_app_lli_unlock(void);

/*
 * Put a request: code, then count bytes of data from buf (NULL when count
 * is 0).  What is left of an earlier response is dropped.  EINVAL: data
 * without a buffer.
 */
int alps_app_lli_put_request(int32_t req_code, const void *buf, size_t count);

/*
 * The response's header: its ALPS_APP_LLI_ALPS_STAT_* status and how many
 * bytes it carries.  ENOMSG: no request was put since the last header.
 */
int alps_app_lli_get_response(int *status, size_t *count);

/*
 * The next count bytes of the response.  ENOMSG: its header was not read;
 * EINVAL: more bytes than are left, or no buffer.
 */
int alps_app_lli_get_response_bytes(void *buf, size_t count);

#ifdef __cplusplus
}
#endif

#endif /* VGEMINI_ALPS_LIBALPSLLI_H */
