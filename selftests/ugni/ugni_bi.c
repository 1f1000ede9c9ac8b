// SPDX-License-Identifier: GPL-2.0-only
/*
 * ugni_bi: balanced injection as applications use it (NAMD, ChaNGa and
 * OpenAtom through Charm++ read it and lower it at start); through
 * gni_pub.h and pmi.h alone.
 *
 *     vgemini run -n 2 ugni_bi
 *
 *  1. GNI_GetBIConfig: the system default, 100 percent of 992 ORB
 *     entries, the two sequence numbers equal.
 *  2. GNI_SetBIConfig(20, APPLY_NOW) by a rank, as NAMD does: SUCCESS,
 *     and GNI_GetBIConfig then says 20 percent, 198 entries;
 *     GNI_BISyncWait returns at once.
 *  3. Four ORB entries (GNI_BI_FLAG_VALUE_IS_NUM_ORB_ENTRIES): each rank
 *     PUTs 64 KiB (8192 requests) through the FMA into the next rank and
 *     GETs it back, checked byte for byte: the throttled NIC loses and
 *     reorders nothing.
 *  4. Refused: 101 percent, 993 entries, an unknown mode, a NULL
 *     descriptor (INVALID_PARAM); GNI_BI_FLAG_USE_DEFAULT_SETTINGS brings
 *     the default back.
 */
#include "ugni_job.h"

#define LEN		(64 * 1024)

static void get(gni_bi_desc_t *d, const char *when)
{
	gni_return_t rc;

	memset(d, 0, sizeof(*d));
	rc = GNI_GetBIConfig(job.dev_id, d);
	check(rc == GNI_RC_SUCCESS, "GNI_GetBIConfig %s: %s (%u%%, %u "
	      "entries, seq %u/%u)", when, rc_str(rc), d->current_bw,
	      d->current_norbs, d->cle_seqnum, d->hss_seqnum);
}

static void settings(void)
{
	gni_bi_desc_t d;
	gni_return_t rc;

	get(&d, "at start");
	check(d.current_bw == 100 && d.current_norbs == 992 &&
	      d.sys_def_bw == 100 && d.cle_seqnum == d.hss_seqnum,
	      "the default: 100%% of 992 entries, applied");
	rc = GNI_SetBIConfig(job.dev_id, 20, 0, GNI_BI_FLAG_APPLY_NOW);
	check(rc == GNI_RC_SUCCESS, "GNI_SetBIConfig(20, APPLY_NOW) by a "
	      "rank: %s", rc_str(rc));
	get(&d, "after it");
	check(d.current_bw == 20 && d.current_norbs == 198 &&
	      d.flags == GNI_BI_FLAG_APPLY_NOW,
	      "20%%: 198 ORB entries, the mode kept");
	rc = GNI_BISyncWait(job.dev_id, 1000);
	check(rc == GNI_RC_SUCCESS, "GNI_BISyncWait: at once (%s)",
	      rc_str(rc));
}

static void throttled_traffic(void)
{
	gni_bi_desc_t bi;
	gni_return_t rc;

	rc = GNI_SetBIConfig(job.dev_id, 4, 0,
			     GNI_BI_FLAG_VALUE_IS_NUM_ORB_ENTRIES);
	check(rc == GNI_RC_SUCCESS, "GNI_SetBIConfig of 4 ORB entries: %s",
	      rc_str(rc));
	get(&bi, "then");
	check(bi.current_norbs == 4 && bi.current_bw == 1,
	      "4 entries, reported as 1%%");
	put_get_next(LEN, 29, "throttled:");
}

static void refusals(void)
{
	gni_bi_desc_t d;
	gni_return_t rc;

	rc = GNI_SetBIConfig(job.dev_id, 101, 0, 0);
	check(rc == GNI_RC_INVALID_PARAM, "101%%: INVALID_PARAM (%s)",
	      rc_str(rc));
	rc = GNI_SetBIConfig(job.dev_id, 993, 0,
			     GNI_BI_FLAG_VALUE_IS_NUM_ORB_ENTRIES);
	check(rc == GNI_RC_INVALID_PARAM, "993 entries: INVALID_PARAM (%s)",
	      rc_str(rc));
	rc = GNI_SetBIConfig(job.dev_id, 20, 0, 0x10);
	check(rc == GNI_RC_INVALID_PARAM, "mode 0x10: INVALID_PARAM (%s)",
	      rc_str(rc));
	rc = GNI_GetBIConfig(job.dev_id, NULL);
	check(rc == GNI_RC_INVALID_PARAM, "a NULL descriptor: INVALID_PARAM "
	      "(%s)", rc_str(rc));
	rc = GNI_SetBIConfig(job.dev_id, 0, 0,
			     GNI_BI_FLAG_USE_DEFAULT_SETTINGS);
	check(rc == GNI_RC_SUCCESS, "USE_DEFAULT_SETTINGS: %s", rc_str(rc));
	get(&d, "after it");
	check(d.current_bw == 100 && d.current_norbs == 992,
	      "the default again");
}

int main(void)
{
	job_init("ugni_bi", 2);
	settings();
	barrier();
	throttled_traffic();
	refusals();
	job_fini();
	return job_finish();
}
