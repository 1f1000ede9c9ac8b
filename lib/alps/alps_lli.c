// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * libalpslli: the application's requests to ALPS, answered in the process
 * from the environment "vgemini run" gives every rank (alps/alps.h).
 *
 * A put request computes its whole response at once; get_response hands
 * out its header, get_response_bytes its bytes in order, as they would
 * come off ALPS's response pipe on a Cray.  One response is held per
 * process, under a mutex of its own; alps_app_lli_lock() is the caller's
 * lock between its threads, as ALPS defines it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "alps_env.h"
#include "libalpslli.h"

#define RESP_MAX	ALPS_APP_LLI_GNI_SIZE(ALPS_APP_LLI_GNI_MAX)

/* Error-checking: a second lock by the owner or a stray unlock fails. */
static pthread_mutex_t app_lock = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;

enum resp_state { RESP_NONE, RESP_HEADER, RESP_BODY };

static struct {
	pthread_mutex_t lock;
	enum resp_state state;
	int status;
	size_t len, off;
	unsigned char buf[RESP_MAX];
} resp = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
};

ALPS_EXPORT int alps_app_lli_lock(void)
{
	int rc = pthread_mutex_lock(&app_lock);

	if (rc) {
		errno = rc;
		return -1;
	}
	return 0;
}

ALPS_EXPORT int alps_app_lli_unlock(void)
{
	int rc = pthread_mutex_unlock(&app_lock);

	if (rc) {
		errno = rc;
		return -1;
	}
	return 0;
}

/* A variable's error as the status ALPS would answer. */
static int env_status(int err)
{
	return err == -ENOENT ? ALPS_APP_LLI_ALPS_STAT_UNAVAIL :
		ALPS_APP_LLI_ALPS_STAT_FAIL;
}

static int answer_apid(void)
{
	unsigned long long apid;
	uint64_t v;
	int rc;

	rc = vgemini_alps_env_num(ALPS_ENV_APP_ID, 1, UINT64_MAX, &apid);
	if (rc)
		return env_status(rc);
	v = apid;
	memcpy(resp.buf, &v, sizeof(v));
	resp.len = sizeof(v);
	return ALPS_APP_LLI_ALPS_STAT_OK;
}

/*
 * One alpsAppGni_t per NIC, from four colon-separated lists that must
 * have as many entries each.
 */
static int answer_gni(void)
{
	static const struct {
		const char *name;
		unsigned long long hi;
	} var[4] = {
		{ ALPS_ENV_GNI_DEV_ID, INT32_MAX },
		{ ALPS_ENV_GNI_LOC_ADDR, INT32_MAX },
		{ ALPS_ENV_GNI_COOKIE, UINT32_MAX },
		{ ALPS_ENV_GNI_PTAG, UINT8_MAX },	/* uGNI's ptag is 8 bits */
	};
	unsigned long long v[4][ALPS_APP_LLI_GNI_MAX];
	alpsAppLLIGni_t head;
	int i, n = 0;

	for (i = 0; i < 4; i++) {
		int got = vgemini_alps_env_list(var[i].name, var[i].hi, v[i],
						ALPS_APP_LLI_GNI_MAX);

		if (got < 0)
			return env_status(got);
		if (i && got != n)
			return ALPS_APP_LLI_ALPS_STAT_FAIL;
		n = got;
	}
	memset(resp.buf, 0, sizeof(resp.buf));
	memset(&head, 0, sizeof(head));
	head.count = n;
	memcpy(resp.buf, &head, offsetof(alpsAppLLIGni_t, u));
	for (i = 0; i < n; i++) {
		alpsAppGni_t e = {
			.device_id = (uint32_t)v[0][i],
			.local_addr = (int32_t)v[1][i],
			.cookie = (uint32_t)v[2][i],
			.ptag = (uint32_t)v[3][i],
		};

		memcpy(resp.buf + ALPS_APP_LLI_GNI_SIZE(i), &e, sizeof(e));
	}
	resp.len = ALPS_APP_LLI_GNI_SIZE(n);
	return ALPS_APP_LLI_ALPS_STAT_OK;
}

/* The response to a request with count bytes of data (resp.lock held). */
static int answer(int32_t req, size_t count)
{
	switch (req) {
	case ALPS_APP_LLI_ALPS_REQ_APID:
		return count ? ALPS_APP_LLI_ALPS_STAT_FORM : answer_apid();
	case ALPS_APP_LLI_ALPS_REQ_GNI:
		return count ? ALPS_APP_LLI_ALPS_STAT_FORM : answer_gni();
	case ALPS_APP_LLI_ALPS_REQ_SIGNAL:
	case ALPS_APP_LLI_ALPS_REQ_EXITING:
	case ALPS_APP_LLI_ALPS_REQ_CPUMASK:
	case ALPS_APP_LLI_ALPS_REQ_START:
	case ALPS_APP_LLI_ALPS_REQ_REBIND:
		/* ALPS's, but vgemini has no daemon on the node to do them */
		return ALPS_APP_LLI_ALPS_STAT_UNAVAIL;
	default:
		return ALPS_APP_LLI_ALPS_STAT_REQ;
	}
}

ALPS_EXPORT int alps_app_lli_put_request(int32_t req_code, const void *buf,
					 size_t count)
{
	if (count && !buf) {
		errno = EINVAL;
		return -1;
	}
	pthread_mutex_lock(&resp.lock);
	resp.len = 0;
	resp.off = 0;
	resp.status = answer(req_code, count);
	if (resp.status != ALPS_APP_LLI_ALPS_STAT_OK)
		resp.len = 0;
	resp.state = RESP_HEADER;
	pthread_mutex_unlock(&resp.lock);
	return 0;
}

ALPS_EXPORT int alps_app_lli_get_response(int *status, size_t *count)
{
	int err = 0;

	if (!status || !count) {
		errno = EINVAL;
		return -1;
	}
	pthread_mutex_lock(&resp.lock);
	if (resp.state != RESP_HEADER) {
		err = ENOMSG;
	} else {
		*status = resp.status;
		*count = resp.len;
		resp.state = RESP_BODY;
	}
	pthread_mutex_unlock(&resp.lock);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

ALPS_EXPORT int alps_app_lli_get_response_bytes(void *buf, size_t count)
{
	int err = 0;

	pthread_mutex_lock(&resp.lock);
	if (resp.state != RESP_BODY)
		err = ENOMSG;
	else if (count > resp.len - resp.off || (count && !buf))
		err = EINVAL;
	if (!err && count) {
		memcpy(buf, resp.buf + resp.off, count);
		resp.off += count;
	}
	pthread_mutex_unlock(&resp.lock);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}
