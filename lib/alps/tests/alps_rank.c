// SPDX-License-Identifier: GPL-2.0-only
/*
 * alps_rank: run as every rank of a "vgemini run" job, asks vgemini's ALPS
 * libraries what ALPS tells a rank on a Cray, the way Open MPI's Cray
 * components ask, and checks the answers against the job's shape and the
 * rank's environment.  Built through pkg-config (cray-alpslli,
 * cray-alpsutil, cray-wlm_detect) by lib/alps/tests/host-test.py.
 *
 *   alps_rank N K    the job has N ranks, K per node
 *
 * Prints "not ok - what" for each failed check and a last line
 * "alps_rank: rank R of N: M checks passed" (or "... K of M checks
 * FAILED"); exits 0 when every check passed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alps/alps.h"
#include "alps/alps_toolAssist.h"
#include "alps/libalpsutil.h"
#include "alps/libalpslli.h"
#include "wlm_detect.h"

static int checks, failures;

static void check(int cond, const char *fmt, ...)
{
	va_list ap;

	checks++;
	if (cond)
		return;
	failures++;
	printf("not ok - ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static long env_long(const char *name)
{
	const char *s = getenv(name);

	return s ? strtol(s, NULL, 10) : -1;
}

int main(int argc, char **argv)
{
	alpsAppLayout_t layout;
	alpsAppLLIGni_t *gni = NULL;
	alpsAppGni_t *e;
	int *place = NULL, *start = NULL, *total = NULL, *node = NULL;
	int *cpus = NULL, status = -1, size, ppn, pe, first, here, i, rc;
	uint64_t apid = 0;
	size_t count = 0;
	char *wlm;

	if (argc != 3) {
		fprintf(stderr, "usage: alps_rank N K\n");
		return 2;
	}
	size = atoi(argv[1]);
	ppn = atoi(argv[2]);
	pe = (int)env_long("ALPS_APP_PE");
	first = pe / ppn * ppn;
	here = size - first < ppn ? size - first : ppn;

	/* The apid, under the lock, as Open MPI's pmix/cray asks for it */
	check(alps_app_lli_lock() == 0, "alps_app_lli_lock");
	check(alps_app_lli_put_request(ALPS_APP_LLI_ALPS_REQ_APID, NULL, 0) ==
	      ALPS_APP_LLI_ALPS_STAT_OK, "put APID");
	rc = alps_app_lli_get_response(&status, &count);
	check(rc == 0 && status == ALPS_APP_LLI_ALPS_STAT_OK &&
	      count == sizeof(apid), "APID response: status %d, %zu bytes",
	      status, count);
	rc = alps_app_lli_get_response_bytes(&apid, sizeof(apid));
	check(rc == 0 && apid == (uint64_t)env_long("ALPS_APP_ID"),
	      "apid %llu is ALPS_APP_ID", (unsigned long long)apid);

	/* The Gemini credentials, as Open MPI's odls/alps asks for them */
	check(alps_app_lli_put_request(ALPS_APP_LLI_ALPS_REQ_GNI, NULL, 0) == 0,
	      "put GNI");
	rc = alps_app_lli_get_response(&status, &count);
	check(rc == 0 && status == ALPS_APP_LLI_ALPS_STAT_OK &&
	      count == ALPS_APP_LLI_GNI_SIZE(1),
	      "GNI response: status %d, %zu bytes", status, count);
	if (count == ALPS_APP_LLI_GNI_SIZE(1))
		gni = malloc(count);
	if (gni && !alps_app_lli_get_response_bytes(gni, count)) {
		e = (alpsAppGni_t *)gni->u.buf;
		check(gni->count == 1 &&
		      e[0].device_id == (uint32_t)env_long("PMI_GNI_DEV_ID") &&
		      e[0].local_addr == (int32_t)env_long("PMI_GNI_LOC_ADDR") &&
		      e[0].ptag == (uint32_t)env_long("PMI_GNI_PTAG") &&
		      e[0].cookie == (uint32_t)env_long("PMI_GNI_COOKIE"),
		      "GNI credentials are the PMI_GNI_* variables");
	} else {
		check(0, "GNI response bytes");
	}
	free(gni);
	rc = alps_app_lli_put_request(ALPS_APP_LLI_ALPS_REQ_START, NULL, 0);
	if (!rc)
		rc = alps_app_lli_get_response(&status, &count);
	check(rc == 0 && status == ALPS_APP_LLI_ALPS_STAT_UNAVAIL && count == 0,
	      "START: status %d", status);
	check(alps_app_lli_unlock() == 0, "alps_app_lli_unlock");

	/* The placement, with every array */
	rc = alps_get_placement_info(apid, &layout, &place, NULL, NULL, NULL,
				     NULL, &start, &total, &node, &cpus);
	if (getenv("VGEMINI_PPN")) {
		check(rc == 1, "alps_get_placement_info: %d (errno %d)", rc,
		      errno);
		if (rc == 1) {
			int bad = 0;

			for (i = 0; i < size; i++)
				bad |= place[i] != i / ppn;
			check(!bad, "placement list: rank r on node r / %d",
			      ppn);
			check(start[0] == 0 && total[0] == size &&
			      node[0] == (ppn < size ? ppn : size) &&
			      cpus[0] == 1, "per command: 0, %d, %d, 1", size,
			      ppn);
		}
	} else {
		/* The launcher does not say K: no per-node counts then */
		check(rc == -1 && errno == ENOENT && !place && !node,
		      "without VGEMINI_PPN: ENOENT (%d, errno %d)", rc, errno);
		rc = alps_get_placement_info(apid, &layout, NULL, NULL, NULL,
					     NULL, NULL, &start, &total, NULL,
					     &cpus);
		check(rc == 1, "alps_get_placement_info without the per-node "
		      "arrays: %d (errno %d)", rc, errno);
	}
	if (rc == 1)
		check(layout.apid == apid && layout.firstPe == first &&
		      layout.numPesHere == here && layout.numPes == size &&
		      layout.numCmds == 1,
		      "layout: first PE %d, %d here, %d in all, 1 command",
		      layout.firstPe, layout.numPesHere, layout.numPes);
	free(place);
	free(start);
	free(total);
	free(node);
	free(cpus);
	check(alps_get_placement_info(apid + 1, &layout, NULL, NULL, NULL,
				      NULL, NULL, NULL, NULL, NULL, NULL) ==
	      -1 && errno == ENOENT, "another apid: ENOENT");

	wlm = wlm_detect_get_active();
	check(wlm && !strcmp(wlm, "ALPS"), "wlm_detect_get_active: ALPS");
	free(wlm);

	if (failures)
		printf("alps_rank: rank %d of %d: %d of %d checks FAILED\n", pe,
		       size, failures, checks);
	else
		printf("alps_rank: rank %d of %d: %d checks passed\n", pe, size,
		       checks);
	return failures ? 1 : 0;
}
