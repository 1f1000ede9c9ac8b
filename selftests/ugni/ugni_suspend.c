// SPDX-License-Identifier: GPL-2.0-only
/*
 * ugni_suspend: job suspension and CDM checkpoints as a job's ranks see
 * them; through gni_pub.h and pmi.h alone.
 *
 *     vgemini run -n 2 ugni_suspend
 *
 *  1. GNI_SuspendJob and GNI_ResumeJob of the rank's own job, and the
 *     launcher's GNI_ConfigureJob, GNI_ConfigureNTT and
 *     GNI_ConfigureNTTandJob: a rank is no privileged user, so
 *     PERMISSION_ERROR, and the job runs on (the calls themselves are
 *     tested as root by abi_torture_test's abi.job_suspend and
 *     datapath_test's dp.ntt_job).
 *  2. GNI_CdmCheckpoint and GNI_CdmResume of NULL: INVALID_PARAM; of a
 *     CDM not attached: SUCCESS.
 *  3. The job's CDM checkpointed and resumed: SUCCESS each; then each
 *     rank PUTs 4 KiB through the FMA into the next rank's buffer and
 *     GETs it back, checked byte for byte: the NIC handle works again.
 *  4. A second CDM of the job (instance rank + 1000) with a CQ and an
 *     endpoint, checkpointed: GNI_EpCreate then fails (the device is not
 *     used), GNI_EpDestroy, GNI_CqDestroy and GNI_CdmDestroy succeed and
 *     the CDM's /dev/kgniN file stays open (no system call was made on
 *     it, as after a restart it would be another file's number).
 */
#include "ugni_job.h"

#include <dirent.h>

#define LEN		4096
#define SECOND_INST	1000

/* Open files of the process */
static int open_fds(void)
{
	struct dirent *e;
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1;	/* the directory's own */
}

static void privileged_calls(void)
{
	gni_return_t rc;

	if (geteuid() == 0) {
		skip("the rank runs as root: the refusal is not seen");
		return;
	}
	rc = GNI_SuspendJob(job.dev_id, 1, job.ptag, job.cookie, 1000);
	check(rc == GNI_RC_PERMISSION_ERROR, "GNI_SuspendJob of the job by a "
	      "rank: PERMISSION_ERROR (%s)", rc_str(rc));
	rc = GNI_ResumeJob(job.dev_id, 1, job.ptag, job.cookie);
	check(rc == GNI_RC_PERMISSION_ERROR, "GNI_ResumeJob of the job by a "
	      "rank: PERMISSION_ERROR (%s)", rc_str(rc));
	rc = GNI_ConfigureJob(job.dev_id, 1, job.ptag, job.cookie, NULL);
	check(rc == GNI_RC_PERMISSION_ERROR, "GNI_ConfigureJob by a rank: "
	      "PERMISSION_ERROR (%s)", rc_str(rc));
	{
		uint32_t table[1] = { job.addr }, base = 0;
		gni_ntt_descriptor_t nd = { .group_size = 1,
					    .u.table = table };

		rc = GNI_ConfigureNTT((int)job.dev_id, &nd, &base);
		check(rc == GNI_RC_PERMISSION_ERROR, "GNI_ConfigureNTT by a "
		      "rank: PERMISSION_ERROR (%s)", rc_str(rc));
		rc = GNI_ConfigureNTTandJob((int)job.dev_id, 1, job.ptag,
					    job.cookie, NULL, &nd, &base);
		check(rc == GNI_RC_PERMISSION_ERROR, "GNI_ConfigureNTTandJob "
		      "by a rank: PERMISSION_ERROR (%s)", rc_str(rc));
	}
}

static void checkpoint_args(void)
{
	gni_cdm_handle_t cdm;
	gni_return_t rc;

	check(GNI_CdmCheckpoint(NULL) == GNI_RC_INVALID_PARAM,
	      "GNI_CdmCheckpoint(NULL): INVALID_PARAM");
	check(GNI_CdmResume(NULL) == GNI_RC_INVALID_PARAM,
	      "GNI_CdmResume(NULL): INVALID_PARAM");
	rc = GNI_CdmCreate(job.rank + SECOND_INST, job.ptag, job.cookie, 0,
			   &cdm);
	if (!check(rc == GNI_RC_SUCCESS, "GNI_CdmCreate: %s", rc_str(rc)))
		return;
	rc = GNI_CdmCheckpoint(cdm);
	if (rc == GNI_RC_SUCCESS)
		rc = GNI_CdmResume(cdm);
	check(rc == GNI_RC_SUCCESS, "GNI_CdmCheckpoint and GNI_CdmResume of "
	      "a CDM not attached: %s", rc_str(rc));
	GNI_CdmDestroy(cdm);
}

/* Checkpoint and resume the job's CDM; then a PUT and a GET still work. */
static void checkpoint_resume(void)
{
	gni_return_t rc;

	rc = GNI_CdmCheckpoint(job.cdm);
	check(rc == GNI_RC_SUCCESS, "GNI_CdmCheckpoint of the job's CDM: %s",
	      rc_str(rc));
	rc = GNI_CdmResume(job.cdm);
	check(rc == GNI_RC_SUCCESS, "GNI_CdmResume of the job's CDM: %s",
	      rc_str(rc));
	put_get_next(LEN, 31, "after GNI_CdmResume");
}

/* A checkpointed CDM's resources are freed without a system call. */
static void checkpoint_destroy(void)
{
	gni_cdm_handle_t cdm;
	gni_nic_handle_t nic;
	gni_cq_handle_t cq;
	gni_ep_handle_t ep, ep2;
	gni_return_t rc;
	uint32_t addr;
	int fds;

	rc = GNI_CdmCreate(job.rank + SECOND_INST, job.ptag, job.cookie, 0,
			   &cdm);
	if (rc == GNI_RC_SUCCESS)
		rc = GNI_CdmAttach(cdm, job.dev_id, &addr, &nic);
	if (rc == GNI_RC_SUCCESS)
		rc = GNI_CqCreate(nic, 16, 0, GNI_CQ_NOBLOCK, NULL, NULL, &cq);
	if (rc == GNI_RC_SUCCESS)
		rc = GNI_EpCreate(nic, cq, &ep);
	if (!check(rc == GNI_RC_SUCCESS, "a second CDM attached, with a CQ "
		   "and an endpoint: %s", rc_str(rc)))
		return;
	rc = GNI_CdmCheckpoint(cdm);
	check(rc == GNI_RC_SUCCESS, "GNI_CdmCheckpoint of it: %s",
	      rc_str(rc));
	/*
	 * Another endpoint on the CQ shares its FMA descriptor: made without
	 * the device, it may succeed; one that needs the device fails.
	 */
	rc = GNI_EpCreate(nic, cq, &ep2);
	check(rc == GNI_RC_SUCCESS || rc == GNI_RC_NO_MATCH ||
	      rc == GNI_RC_INVALID_STATE || rc == GNI_RC_ERROR_RESOURCE,
	      "GNI_EpCreate after the checkpoint: %s", rc_str(rc));
	if (rc == GNI_RC_SUCCESS) {
		rc = GNI_EpDestroy(ep2);
		check(rc == GNI_RC_SUCCESS, "GNI_EpDestroy of it: %s",
		      rc_str(rc));
	}
	fds = open_fds();
	rc = GNI_EpDestroy(ep);
	check(rc == GNI_RC_SUCCESS, "GNI_EpDestroy after the checkpoint: %s",
	      rc_str(rc));
	rc = GNI_CqDestroy(cq);
	check(rc == GNI_RC_SUCCESS, "GNI_CqDestroy after the checkpoint: %s",
	      rc_str(rc));
	rc = GNI_CdmDestroy(cdm);
	check(rc == GNI_RC_SUCCESS, "GNI_CdmDestroy after the checkpoint: %s",
	      rc_str(rc));
	check(fds > 0 && open_fds() == fds, "its /dev/kgni file was not "
	      "closed (%d open files before, %d after)", fds, open_fds());
}

int main(void)
{
	job_init("ugni_suspend", 2);
	privileged_calls();
	checkpoint_args();
	checkpoint_resume();
	checkpoint_destroy();
	barrier();
	job_fini();
	return job_finish();
}
