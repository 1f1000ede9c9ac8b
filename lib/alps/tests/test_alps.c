// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host unit test of vgemini's ALPS libraries (built with their sources,
 * under ASan and UBSan): the reading of the environment, the requests of
 * libalpslli and their order, alps_get_placement_info() with every
 * argument and with none, and refusals of every kind of bad variable.
 * The calls are made the way Open MPI's ALPS and Cray PMI components make
 * them.  Prints TAP.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alps_env.h"
#include "libalpslli.h"
#include "libalpsutil.h"
#include "apInfo.h"
#include "wlm_detect.h"
#include "rca_lib.h"
#include "tap.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const char *const job_vars[] = {
	ALPS_ENV_APP_ID, ALPS_ENV_APP_PE, ALPS_ENV_SIZE, ALPS_ENV_LOCAL_RANK,
	ALPS_ENV_LOCAL_SIZE, ALPS_ENV_PPN, ALPS_ENV_GNI_DEV_ID,
	ALPS_ENV_GNI_LOC_ADDR, ALPS_ENV_GNI_PTAG, ALPS_ENV_GNI_COOKIE,
};

/* Rank pe of a job of size ranks, ppn per node, as "vgemini run" sets it */
static void set_job(unsigned long long apid, int size, int ppn, int pe)
{
	int first = pe / ppn * ppn;
	int here = size - first < ppn ? size - first : ppn;
	char v[32];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(job_vars); i++)
		unsetenv(job_vars[i]);
	snprintf(v, sizeof(v), "%llu", apid);
	setenv(ALPS_ENV_APP_ID, v, 1);
	snprintf(v, sizeof(v), "%d", pe);
	setenv(ALPS_ENV_APP_PE, v, 1);
	snprintf(v, sizeof(v), "%d", size);
	setenv(ALPS_ENV_SIZE, v, 1);
	snprintf(v, sizeof(v), "%d", pe - first);
	setenv(ALPS_ENV_LOCAL_RANK, v, 1);
	snprintf(v, sizeof(v), "%d", here);
	setenv(ALPS_ENV_LOCAL_SIZE, v, 1);
	snprintf(v, sizeof(v), "%d", ppn);
	setenv(ALPS_ENV_PPN, v, 1);
	setenv(ALPS_ENV_GNI_DEV_ID, "0", 1);
	snprintf(v, sizeof(v), "%d", (pe / ppn) << 2);
	setenv(ALPS_ENV_GNI_LOC_ADDR, v, 1);
	setenv(ALPS_ENV_GNI_PTAG, "77", 1);
	setenv(ALPS_ENV_GNI_COOKIE, "305397760", 1);
}

/* --- the environment ------------------------------------------------ */

static void test_env_num(void)
{
	static const char *const bad[] = {
		"", "-1", "+1", " 1", "1 ", "0x10", "1a", "1.0", "1:2",
		"18446744073709551616", "99999999999999999999999",
	};
	unsigned long long v = 42;
	unsigned int i;

	unsetenv("ALPS_TEST_V");
	CHECK_EQ(vgemini_alps_env_num("ALPS_TEST_V", 0, 10, &v), -ENOENT);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		setenv("ALPS_TEST_V", bad[i], 1);
		if (vgemini_alps_env_num("ALPS_TEST_V", 0, UINT64_MAX, &v) !=
		    -EINVAL) {
			NOTE("'%s' was taken\n", bad[i]);
			CHECK(0);
		}
	}
	CHECK_EQ(v, 42);	/* untouched by the failures */
	setenv("ALPS_TEST_V", "18446744073709551615", 1);
	CHECK_EQ(vgemini_alps_env_num("ALPS_TEST_V", 0, UINT64_MAX, &v), 0);
	CHECK_EQ(v, UINT64_MAX);
	setenv("ALPS_TEST_V", "007", 1);
	CHECK_EQ(vgemini_alps_env_num("ALPS_TEST_V", 7, 7, &v), 0);
	CHECK_EQ(v, 7);
	CHECK_EQ(vgemini_alps_env_num("ALPS_TEST_V", 8, 10, &v), -EINVAL);
	CHECK_EQ(vgemini_alps_env_num("ALPS_TEST_V", 0, 6, &v), -EINVAL);
	setenv("ALPS_TEST_V", "9", 1);
	CHECK_EQ(vgemini_alps_env_num("ALPS_TEST_V", 0, 5, &v), -EINVAL);
	unsetenv("ALPS_TEST_V");
}

static void test_env_list(void)
{
	static const char *const bad[] = {
		"", ":", "1:", ":1", "1::2", "1:x", "1:-2", "1:2:3:4:5",
		"1: 2", "256",
	};
	unsigned long long v[4];
	unsigned int i;

	unsetenv("ALPS_TEST_L");
	CHECK_EQ(vgemini_alps_env_list("ALPS_TEST_L", 255, v, 4), -ENOENT);
	setenv("ALPS_TEST_L", "3", 1);
	CHECK_EQ(vgemini_alps_env_list("ALPS_TEST_L", 255, v, 4), 1);
	CHECK_EQ(v[0], 3);
	setenv("ALPS_TEST_L", "1:20:255:0", 1);
	CHECK_EQ(vgemini_alps_env_list("ALPS_TEST_L", 255, v, 4), 4);
	CHECK(v[0] == 1 && v[1] == 20 && v[2] == 255 && v[3] == 0);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		setenv("ALPS_TEST_L", bad[i], 1);
		if (vgemini_alps_env_list("ALPS_TEST_L", 255, v, 4) !=
		    -EINVAL) {
			NOTE("'%s' was taken\n", bad[i]);
			CHECK(0);
		}
	}
	unsetenv("ALPS_TEST_L");
}

/* --- libalpslli ------------------------------------------------------- */

/* A request and its header; the status, with the count in *count. */
static int request(int32_t req, size_t *count)
{
	int status = -1;

	*count = (size_t)-1;
	CHECK_EQ(alps_app_lli_put_request(req, NULL, 0), 0);
	CHECK_EQ(alps_app_lli_get_response(&status, count), 0);
	return status;
}

static void test_lli_apid(void)
{
	uint64_t apid = 0;
	size_t count;
	unsigned char half[4];

	set_job(123456789012ull, 4, 2, 3);
	/* As Open MPI asks for it */
	CHECK_EQ(alps_app_lli_lock(), 0);
	CHECK_EQ(alps_app_lli_put_request(ALPS_APP_LLI_ALPS_REQ_APID, NULL, 0),
		 ALPS_APP_LLI_ALPS_STAT_OK);
	count = 0;
	{
		int status = -1;

		CHECK_EQ(alps_app_lli_get_response(&status, &count), 0);
		CHECK_EQ(status, ALPS_APP_LLI_ALPS_STAT_OK);
	}
	CHECK_EQ(count, sizeof(apid));
	CHECK_EQ(alps_app_lli_get_response_bytes(&apid, sizeof(apid)), 0);
	CHECK_EQ(apid, 123456789012ull);
	CHECK_EQ(alps_app_lli_unlock(), 0);

	/* In pieces; not one byte more than the response has */
	CHECK_EQ(request(ALPS_APP_LLI_ALPS_REQ_APID, &count),
		 ALPS_APP_LLI_ALPS_STAT_OK);
	CHECK_EQ(alps_app_lli_get_response_bytes(half, 4), 0);
	errno = 0;
	CHECK_EQ(alps_app_lli_get_response_bytes(&apid, 8), -1);
	CHECK_EQ(errno, EINVAL);
	CHECK_EQ(alps_app_lli_get_response_bytes(half, 4), 0);
	CHECK_EQ(alps_app_lli_get_response_bytes(half, 1), -1);
	CHECK_EQ(alps_app_lli_get_response_bytes(NULL, 0), 0);

	/* Bad or missing apids */
	setenv(ALPS_ENV_APP_ID, "0", 1);
	CHECK_EQ(request(ALPS_APP_LLI_ALPS_REQ_APID, &count),
		 ALPS_APP_LLI_ALPS_STAT_FAIL);
	CHECK_EQ(count, 0);
	setenv(ALPS_ENV_APP_ID, "12x", 1);
	CHECK_EQ(request(ALPS_APP_LLI_ALPS_REQ_APID, &count),
		 ALPS_APP_LLI_ALPS_STAT_FAIL);
	unsetenv(ALPS_ENV_APP_ID);
	CHECK_EQ(request(ALPS_APP_LLI_ALPS_REQ_APID, &count),
		 ALPS_APP_LLI_ALPS_STAT_UNAVAIL);
	CHECK_EQ(count, 0);
	CHECK_EQ(alps_app_lli_get_response_bytes(&apid, 1), -1);
}

static void test_lli_order(void)
{
	uint64_t apid;
	size_t count = 7;
	int status = 7;
	char data[4] = "abc";

	set_job(5, 1, 1, 0);
	/* A header, once, after a request; the bytes after the header */
	CHECK_EQ(request(ALPS_APP_LLI_ALPS_REQ_APID, &count),
		 ALPS_APP_LLI_ALPS_STAT_OK);
	errno = 0;
	CHECK_EQ(alps_app_lli_get_response(&status, &count), -1);
	CHECK_EQ(errno, ENOMSG);
	CHECK_EQ(alps_app_lli_put_request(ALPS_APP_LLI_ALPS_REQ_APID, NULL, 0),
		 0);
	errno = 0;
	CHECK_EQ(alps_app_lli_get_response_bytes(&apid, 8), -1);
	CHECK_EQ(errno, ENOMSG);
	CHECK_EQ(alps_app_lli_get_response(NULL, &count), -1);
	CHECK_EQ(alps_app_lli_get_response(&status, NULL), -1);
	CHECK_EQ(alps_app_lli_get_response(&status, &count), 0);
	CHECK_EQ(alps_app_lli_get_response_bytes(NULL, 8), -1);
	CHECK_EQ(alps_app_lli_get_response_bytes(&apid, 8), 0);
	CHECK_EQ(apid, 5);
	/* A new request drops what is left of the last response */
	CHECK_EQ(request(ALPS_APP_LLI_ALPS_REQ_APID, &count),
		 ALPS_APP_LLI_ALPS_STAT_OK);
	CHECK_EQ(request(ALPS_APP_LLI_ALPS_REQ_APID, &count),
		 ALPS_APP_LLI_ALPS_STAT_OK);
	CHECK_EQ(alps_app_lli_get_response_bytes(&apid, 8), 0);
	CHECK_EQ(apid, 5);

	/* Data where there should be none; no buffer for the data */
	CHECK_EQ(alps_app_lli_put_request(ALPS_APP_LLI_ALPS_REQ_APID, data, 4),
		 0);
	CHECK_EQ(alps_app_lli_get_response(&status, &count), 0);
	CHECK_EQ(status, ALPS_APP_LLI_ALPS_STAT_FORM);
	CHECK_EQ(count, 0);
	errno = 0;
	CHECK_EQ(alps_app_lli_put_request(ALPS_APP_LLI_ALPS_REQ_APID, NULL, 4),
		 -1);
	CHECK_EQ(errno, EINVAL);

	/* ALPS's other requests, and unknown ones */
	CHECK_EQ(request(ALPS_APP_LLI_ALPS_REQ_START, &count),
		 ALPS_APP_LLI_ALPS_STAT_UNAVAIL);
	CHECK_EQ(request(ALPS_APP_LLI_ALPS_REQ_EXITING, &count),
		 ALPS_APP_LLI_ALPS_STAT_UNAVAIL);
	CHECK_EQ(request(ALPS_APP_LLI_ALPS_REQ_SIGNAL, &count),
		 ALPS_APP_LLI_ALPS_STAT_UNAVAIL);
	CHECK_EQ(request(0, &count), ALPS_APP_LLI_ALPS_STAT_REQ);
	CHECK_EQ(request(8, &count), ALPS_APP_LLI_ALPS_STAT_REQ);
	CHECK_EQ(request(-1, &count), ALPS_APP_LLI_ALPS_STAT_REQ);
	CHECK_EQ(count, 0);
}

static void test_lli_lock(void)
{
	CHECK_EQ(alps_app_lli_lock(), 0);
	errno = 0;
	CHECK_EQ(alps_app_lli_lock(), -1);
	CHECK_EQ(errno, EDEADLK);
	CHECK_EQ(alps_app_lli_unlock(), 0);
	errno = 0;
	CHECK_EQ(alps_app_lli_unlock(), -1);
	CHECK_EQ(errno, EPERM);
}

/* The GNI response read as Open MPI's odls component reads it. */
static void test_lli_gni(void)
{
	alpsAppLLIGni_t *rsp;
	alpsAppGni_t *e;
	size_t count;
	int status;

	set_job(9, 8, 4, 6);
	CHECK_EQ(alps_app_lli_lock(), 0);
	CHECK_EQ(alps_app_lli_put_request(ALPS_APP_LLI_ALPS_REQ_GNI, NULL, 0),
		 0);
	CHECK_EQ(alps_app_lli_get_response(&status, &count), 0);
	CHECK_EQ(status, ALPS_APP_LLI_ALPS_STAT_OK);
	CHECK_EQ(count, ALPS_APP_LLI_GNI_SIZE(1));
	rsp = malloc(count);
	CHECK(rsp);
	if (!rsp)
		return;
	memset(rsp, 0xee, count);
	CHECK_EQ(alps_app_lli_get_response_bytes(rsp, count), 0);
	CHECK_EQ(alps_app_lli_unlock(), 0);
	e = (alpsAppGni_t *)rsp->u.buf;
	CHECK_EQ(rsp->count, 1);
	CHECK_EQ(e[0].device_id, 0);
	CHECK_EQ(e[0].local_addr, 4);
	CHECK_EQ(e[0].ptag, 77);
	CHECK_EQ(e[0].cookie, 305397760);
	free(rsp);

	/* Two NICs, the largest values */
	setenv(ALPS_ENV_GNI_DEV_ID, "0:1", 1);
	setenv(ALPS_ENV_GNI_LOC_ADDR, "2147483647:8", 1);
	setenv(ALPS_ENV_GNI_PTAG, "255:3", 1);
	setenv(ALPS_ENV_GNI_COOKIE, "4294967295:65536", 1);
	CHECK_EQ(request(ALPS_APP_LLI_ALPS_REQ_GNI, &count),
		 ALPS_APP_LLI_ALPS_STAT_OK);
	CHECK_EQ(count, ALPS_APP_LLI_GNI_SIZE(2));
	rsp = calloc(1, count);
	CHECK(rsp);
	if (!rsp)
		return;
	CHECK_EQ(alps_app_lli_get_response_bytes(rsp, count), 0);
	e = (alpsAppGni_t *)rsp->u.buf;
	CHECK_EQ(rsp->count, 2);
	CHECK(e[0].device_id == 0 && e[1].device_id == 1);
	CHECK(e[0].local_addr == INT32_MAX && e[1].local_addr == 8);
	CHECK(e[0].ptag == 255 && e[1].ptag == 3);
	CHECK(e[0].cookie == UINT32_MAX && e[1].cookie == 65536);
	free(rsp);

	/* Lists of different lengths, values out of range, too many NICs */
	setenv(ALPS_ENV_GNI_PTAG, "255", 1);
	CHECK_EQ(request(ALPS_APP_LLI_ALPS_REQ_GNI, &count),
		 ALPS_APP_LLI_ALPS_STAT_FAIL);
	CHECK_EQ(count, 0);
	setenv(ALPS_ENV_GNI_PTAG, "256:3", 1);
	CHECK_EQ(request(ALPS_APP_LLI_ALPS_REQ_GNI, &count),
		 ALPS_APP_LLI_ALPS_STAT_FAIL);
	setenv(ALPS_ENV_GNI_PTAG, "2:3", 1);
	setenv(ALPS_ENV_GNI_COOKIE, "4294967296:1", 1);
	CHECK_EQ(request(ALPS_APP_LLI_ALPS_REQ_GNI, &count),
		 ALPS_APP_LLI_ALPS_STAT_FAIL);
	setenv(ALPS_ENV_GNI_COOKIE, "1:1", 1);
	setenv(ALPS_ENV_GNI_LOC_ADDR, "2147483648:1", 1);
	CHECK_EQ(request(ALPS_APP_LLI_ALPS_REQ_GNI, &count),
		 ALPS_APP_LLI_ALPS_STAT_FAIL);
	setenv(ALPS_ENV_GNI_DEV_ID, "0:1:2:3:4:5:6:7:8", 1);
	setenv(ALPS_ENV_GNI_LOC_ADDR, "0:1:2:3:4:5:6:7:8", 1);
	setenv(ALPS_ENV_GNI_PTAG, "3:3:3:3:3:3:3:3:3", 1);
	setenv(ALPS_ENV_GNI_COOKIE, "1:1:1:1:1:1:1:1:1", 1);
	CHECK_EQ(request(ALPS_APP_LLI_ALPS_REQ_GNI, &count),
		 ALPS_APP_LLI_ALPS_STAT_FAIL);
	set_job(9, 8, 4, 6);
	unsetenv(ALPS_ENV_GNI_COOKIE);
	CHECK_EQ(request(ALPS_APP_LLI_ALPS_REQ_GNI, &count),
		 ALPS_APP_LLI_ALPS_STAT_UNAVAIL);
	CHECK_EQ(count, 0);
}

/* --- libalpsutil -------------------------------------------------------- */

struct outs {
	alpsAppLayout_t layout;
	int *place, *tnids, *tpes, *tlen, *start, *total, *node, *cpus;
	struct in_addr *tips;
};

static int place_all(uint64_t apid, struct outs *o)
{
	memset(o, 0x5a, sizeof(*o));	/* garbage: the call must set all */
	return alps_get_placement_info(apid, &o->layout, &o->place, &o->tnids,
				       &o->tpes, &o->tlen, &o->tips, &o->start,
				       &o->total, &o->node, &o->cpus);
}

static void free_outs(struct outs *o)
{
	free(o->place);
	free(o->tnids);
	free(o->tpes);
	free(o->tlen);
	free(o->tips);
	free(o->start);
	free(o->total);
	free(o->node);
	free(o->cpus);
}

static int all_null(const struct outs *o)
{
	return !o->place && !o->tnids && !o->tpes && !o->tlen && !o->tips &&
		!o->start && !o->total && !o->node && !o->cpus;
}

/* Every rank of every job of up to 9 ranks, 1..5 per node, agrees. */
static void test_place_jobs(void)
{
	int size, ppn, pe, i;
	struct outs o;

	for (size = 1; size <= 9; size++)
		for (ppn = 1; ppn <= 5; ppn++)
			for (pe = 0; pe < size; pe++) {
				int first = pe / ppn * ppn;
				int here = size - first < ppn ?
					size - first : ppn;
				int bad = 0;

				set_job(1000 + size, size, ppn, pe);
				if (place_all(1000 + size, &o) != 1) {
					NOTE("size %d ppn %d pe %d: errno %d\n",
					     size, ppn, pe, errno);
					CHECK(0);
					continue;
				}
				bad |= o.layout.apid != (uint64_t)1000 + size;
				bad |= o.layout.firstPe != first;
				bad |= o.layout.numPesHere != here;
				bad |= o.layout.numPes != size;
				bad |= o.layout.numCmds != 1;
				bad |= o.layout.numTargets != 0;
				bad |= o.layout.peDepth != 1;
				bad |= o.layout.cmdNumber != 0;
				for (i = 0; i < size; i++)
					bad |= o.place[i] != i / ppn;
				bad |= o.tnids || o.tpes || o.tlen || o.tips;
				bad |= o.start[0] != 0 || o.total[0] != size;
				bad |= o.node[0] != (ppn < size ? ppn : size);
				bad |= o.cpus[0] != 1;
				if (bad) {
					NOTE("size %d ppn %d pe %d: wrong\n",
					     size, ppn, pe);
					CHECK(0);
				}
				free_outs(&o);
			}
}

/* The calls of Open MPI's pmix/cray and ess/alps components */
static void test_place_openmpi(void)
{
	alpsAppLayout_t layout;
	int *base_pe_in_app = NULL, *pes_in_app = NULL;

	set_job(77, 6, 4, 5);
	unsetenv(ALPS_ENV_PPN);		/* not needed for these */
	memset(&layout, 0, sizeof(layout));
	CHECK_EQ(alps_get_placement_info(77, &layout, NULL, NULL, NULL, NULL,
					 NULL, &base_pe_in_app, &pes_in_app,
					 NULL, NULL), 1);
	CHECK_EQ(layout.firstPe, 4);
	CHECK_EQ(layout.numCmds, 1);
	CHECK(base_pe_in_app && base_pe_in_app[0] == 0);
	CHECK(pes_in_app && pes_in_app[0] == 6);
	free(base_pe_in_app);
	free(pes_in_app);
	CHECK_EQ(alps_get_placement_info(77, &layout, NULL, NULL, NULL, NULL,
					 NULL, NULL, NULL, NULL, NULL), 1);
	CHECK_EQ(alps_get_placement_info(77, NULL, NULL, NULL, NULL, NULL,
					 NULL, NULL, NULL, NULL, NULL), 1);
}

static void test_place_refusals(void)
{
	static const struct {
		const char *var, *val;
		int err;
	} cases[] = {
		{ ALPS_ENV_APP_ID, NULL, ENOENT },
		{ ALPS_ENV_APP_ID, "x", EINVAL },
		{ ALPS_ENV_SIZE, NULL, ENOENT },
		{ ALPS_ENV_SIZE, "0", EINVAL },
		{ ALPS_ENV_SIZE, "5", EINVAL },		/* pe 5 */
		{ ALPS_ENV_SIZE, "65537", EINVAL },
		{ ALPS_ENV_APP_PE, NULL, ENOENT },
		{ ALPS_ENV_APP_PE, "-5", EINVAL },
		{ ALPS_ENV_APP_PE, "3", EINVAL },	/* node would start at 2 */
		{ ALPS_ENV_LOCAL_RANK, NULL, ENOENT },
		{ ALPS_ENV_LOCAL_RANK, "2", EINVAL },	/* of 2 */
		{ ALPS_ENV_LOCAL_RANK, "0", EINVAL },	/* node at 5: not a block */
		{ ALPS_ENV_LOCAL_SIZE, NULL, ENOENT },
		{ ALPS_ENV_LOCAL_SIZE, "0", EINVAL },
		{ ALPS_ENV_LOCAL_SIZE, "3", EINVAL },	/* past the job's end */
		{ ALPS_ENV_LOCAL_SIZE, "1", EINVAL },	/* the last node has 2 */
		{ ALPS_ENV_PPN, "", EINVAL },
		{ ALPS_ENV_PPN, "3", EINVAL },		/* 4 is not 3's multiple */
		{ ALPS_ENV_PPN, "1", EINVAL },		/* but 2 ranks here */
		{ ALPS_ENV_PPN, "0", EINVAL },
		{ ALPS_ENV_PPN, "65537", EINVAL },
	};
	unsigned int i;
	struct outs o;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		set_job(77, 6, 4, 5);
		if (cases[i].val)
			setenv(cases[i].var, cases[i].val, 1);
		else
			unsetenv(cases[i].var);
		errno = 0;
		if (place_all(77, &o) != -1 || errno != cases[i].err ||
		    !all_null(&o)) {
			int err = errno;

			NOTE("case %u (%s): errno %d, want %d\n", i,
			     cases[i].var, err, cases[i].err);
			CHECK(0);
		}
		free_outs(&o);
	}
	/* Another application's apid */
	set_job(77, 6, 4, 5);
	errno = 0;
	CHECK_EQ(place_all(78, &o), -1);
	CHECK_EQ(errno, ENOENT);
	CHECK(all_null(&o));
	/* Without VGEMINI_PPN: the layout, not the per-node counts */
	unsetenv(ALPS_ENV_PPN);
	errno = 0;
	CHECK_EQ(place_all(77, &o), -1);
	CHECK_EQ(errno, ENOENT);
	CHECK(all_null(&o));
	{
		int *node = (int *)&o, *total = NULL;

		CHECK_EQ(alps_get_placement_info(77, NULL, NULL, NULL, NULL,
						 NULL, NULL, NULL, NULL, &node,
						 NULL), -1);
		CHECK(!node);
		CHECK_EQ(alps_get_placement_info(77, NULL, NULL, NULL, NULL,
						 NULL, NULL, NULL, &total,
						 NULL, NULL), 1);
		CHECK(total && total[0] == 6);
		free(total);
	}
}

/* --- libwlm_detect and the appinfo header --------------------------------- */

static void test_wlm(void)
{
	char *a = wlm_detect_get_active();
	char *d = wlm_detect_get_default();

	CHECK(a && !strcmp(a, "ALPS"));
	CHECK(d && !strcmp(d, "ALPS"));
	CHECK(a != d);		/* each the caller's to free */
	free(a);
	free(d);
}

static void test_apinfo_layout(void)
{
	placeNodeList_ver3_t n = { .nid = 3, .numPEs = 2, .cpuCnt = 1 };
	appInfo_t ai = { .apid = 1, .resId = 2, .numCmds = 1, .numPlaces = 1 };

	CHECK_EQ(ALPS_APPINFO_VERSION, 3);
	CHECK_EQ(sizeof(n.nid), 4);	/* stored as an OPAL_INT32 */
	CHECK_EQ(n.nid + n.numPEs + n.cpuCnt, 6);
	CHECK_EQ(ai.resId + ai.numCmds + ai.numPlaces, 4);
	CHECK_EQ(sizeof(appInfoHdr_t), sizeof(int));
}

/* kgni's dims file in a directory of our own, as VGEMINI_RCA_SYSFS */
static void rca_dims(const char *dir, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/dims", dir);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

#define CHECK_XYZ(c, x, y, z)						\
	CHECK((c).mesh_x == (x) && (c).mesh_y == (y) && (c).mesh_z == (z))

static void test_rca(void)
{
	static const char *const bad[] = {
		"", "2 2\n", "0 2 2\n", "2 2 2 2\n", "2 x 2\n",
		"65537 1 1\n", "256 256 2\n",
	};
	char dir[] = "/tmp/test_rca.XXXXXX", path[64];
	rca_mesh_coord_t c = { 7, 7, 7 };
	unsigned int i, n;

	CHECK(mkdtemp(dir) != NULL);
	setenv("VGEMINI_RCA_SYSFS", dir, 1);
	/* no kgni: ENODEV */
	errno = 0;
	CHECK_EQ(rca_get_max_dimension(&c), -1);
	CHECK_EQ(errno, ENODEV);
	rca_dims(dir, "4 3 2\n");
	CHECK_EQ(rca_get_max_dimension(&c), 0);
	CHECK_XYZ(c, 3, 2, 1);
	/* every node of 4x3x2, numbered as the launcher numbers them */
	for (n = 0; n < 24; n++) {
		CHECK_EQ(rca_get_meshcoord((uint16_t)n, &c), 0);
		CHECK_XYZ(c, n % 4, n / 4 % 3, n / 12);
	}
	errno = 0;
	CHECK_EQ(rca_get_meshcoord(24, &c), -1);
	CHECK_EQ(errno, EINVAL);
	CHECK_XYZ(c, 3, 2, 1);
	errno = 0;
	CHECK_EQ(rca_get_meshcoord(0, NULL), -1);
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	CHECK_EQ(rca_get_max_dimension(NULL), -1);
	CHECK_EQ(errno, EINVAL);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		rca_dims(dir, bad[i]);
		errno = 0;
		CHECK_EQ(rca_get_max_dimension(&c), -1);
		CHECK_EQ(errno, EIO);
		errno = 0;
		CHECK_EQ(rca_get_meshcoord(0, &c), -1);
		CHECK_EQ(errno, EIO);
	}
	snprintf(path, sizeof(path), "%s/dims", dir);
	unlink(path);
	rmdir(dir);
	unsetenv("VGEMINI_RCA_SYSFS");
}

int main(void)
{
	static const struct tap_test tests[] = {
		{ "rca: coordinates and size from kgni's dims, refusals",
		  test_rca },
		{ "env: numbers, strictly decimal, in range", test_env_num },
		{ "env: colon-separated lists", test_env_list },
		{ "lli: APID as Open MPI asks; in pieces; bad apids",
		  test_lli_apid },
		{ "lli: header then bytes; refusals; other requests",
		  test_lli_order },
		{ "lli: the lock is error-checking", test_lli_lock },
		{ "lli: GNI credentials, one and two NICs, refusals",
		  test_lli_gni },
		{ "placement: every rank of jobs of 1-9 ranks, 1-5 per node",
		  test_place_jobs },
		{ "placement: Open MPI's calls, NULL arguments",
		  test_place_openmpi },
		{ "placement: every bad or missing variable refused",
		  test_place_refusals },
		{ "wlm_detect: ALPS, fresh strings", test_wlm },
		{ "apInfo.h: the fields Open MPI reads", test_apinfo_layout },
	};

	return TAP_RUN(tests);
}
