// SPDX-License-Identifier: GPL-2.0-only
/*
 * ugni_nosys: puts, gets, AMOs, CQ writes and CQ polling make no system
 * call.
 *
 * Rank 0 sets everything up, then forks a child that enters seccomp's
 * strict mode (only read, write, _exit and sigreturn are allowed; any
 * other system call kills it with SIGKILL) and in it posts a PUT, a GET,
 * a fetching and a non-fetching AMO and a CQ write to rank 1, polling its
 * CQ for each completion and taking the descriptor back with
 * GNI_GetCompleted.  The child's outcome comes back through shared
 * memory and its exit status; rank 1 checks that the data arrived.
 * Buffers are MAP_SHARED so that the child writes the pages registered.
 *
 *   vgemini run -n 2 ugni_nosys
 */
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/seccomp.h>
#include <signal.h>

#include "ugni_job.h"

#define SPIN_MAX	400000000u	/* polls before the child gives up */
#define PUT_VALUE	0x0123456789abcdefull
#define ADD_VALUE	5
#define CQW_VALUE	0x00abcdef1234ull

/* What the child saw, step by step */
struct outcome {
	int step;			/* steps completed */
	gni_return_t rc[8];		/* each step's worst return code */
	uint64_t fetched;		/* the fetching AMO's old value */
	uint64_t got;			/* the GET's data */
};

static volatile uint64_t *shared_page(void)
{
	void *p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		job_bail("mmap");
	return p;
}

/* Post and poll for the completion, without a clock: no vDSO fallback. */
static gni_return_t post_poll(gni_post_descriptor_t *d)
{
	gni_post_descriptor_t *pd = NULL;
	gni_cq_entry_t ev;
	gni_return_t rc;
	unsigned int i;

	rc = d->type == GNI_POST_CQWRITE ? GNI_PostCqWrite(job.ep[1], d) :
	     GNI_PostFma(job.ep[1], d);
	if (rc != GNI_RC_SUCCESS)
		return rc;
	for (i = 0; i < SPIN_MAX; i++) {
		rc = GNI_CqGetEvent(job.cq, &ev);
		if (rc != GNI_RC_NOT_DONE)
			break;
	}
	if (rc != GNI_RC_SUCCESS)
		return rc;
	rc = GNI_GetCompleted(job.cq, ev, &pd);
	if (rc == GNI_RC_SUCCESS && pd != d)
		rc = GNI_RC_DESCRIPTOR_ERROR;
	return rc;
}

static void child(struct outcome *o, uint64_t *local,
		  const gni_mem_handle_t *lmh, const struct job_buf *remote)
{
	gni_post_descriptor_t d;
	uint64_t r = remote[1].addr;

	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT))
		syscall(SYS_exit, 2);
	/* From here a system call other than read/write/_exit is fatal. */
	local[0] = PUT_VALUE;
	desc_rw(&d, GNI_POST_FMA_PUT, &local[0], lmh, r, &remote[1].mh, 8);
	o->rc[o->step++] = post_poll(&d);
	desc_rw(&d, GNI_POST_FMA_GET, &local[1], lmh, r, &remote[1].mh, 8);
	o->rc[o->step++] = post_poll(&d);
	o->got = local[1];
	desc_amo(&d, GNI_FMA_ATOMIC_ADD, &local[2], lmh, r + 8,
		 &remote[1].mh, ADD_VALUE, 0);
	o->rc[o->step++] = post_poll(&d);
	desc_amo(&d, GNI_FMA_ATOMIC_FADD, &local[2], lmh, r + 8,
		 &remote[1].mh, ADD_VALUE, 0);
	o->rc[o->step++] = post_poll(&d);
	o->fetched = local[2];
	desc_init(&d, GNI_POST_CQWRITE, GNI_CQMODE_GLOBAL_EVENT);
	d.remote_mem_hndl = remote[1].mh;
	d.cqwrite_value = CQW_VALUE;
	o->rc[o->step++] = post_poll(&d);
	syscall(SYS_exit, 0);
}

int main(void)
{
	volatile uint64_t *buf, *res;
	struct outcome *o;
	gni_cq_handle_t rcq = NULL;
	gni_cq_entry_t ev;
	struct job_buf *all;
	gni_mem_handle_t mh;
	gni_return_t rc;
	int status = 0, i;
	pid_t pid;

	job_init("ugni_nosys", 2);
	buf = shared_page();
	res = shared_page();
	o = (struct outcome *)(uintptr_t)res;
	if (job.rank == 1) {
		rc = GNI_CqCreate(job.nic, 16, 0, GNI_CQ_NOBLOCK, NULL, NULL,
				  &rcq);
		check(rc == GNI_RC_SUCCESS, "remote-event CQ: %s",
		      rc_str(rc));
	}
	mh = reg(job.nic, (void *)(uintptr_t)buf, PAGE, rcq, 0, "a page");
	all = publish((void *)(uintptr_t)buf, &mh);
	barrier();

	if (job.rank == 0) {
		fflush(stdout);
		pid = fork();
		if (pid == 0)
			child(o, (uint64_t *)(uintptr_t)buf, &mh, all);
		if (!check(pid > 0 && waitpid(pid, &status, 0) == pid,
			   "fork and wait for the strict-seccomp child"))
			job_bail("no child");
		check(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "the child posted and polled in SECCOMP_MODE_STRICT and "
		      "exited normally (status 0x%x%s)", status,
		      WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL ?
		      ": killed, it made a system call" : "");
		check(o->step == 5, "all 5 steps ran (%d)", o->step);
		for (i = 0; i < o->step; i++)
			check(o->rc[i] == GNI_RC_SUCCESS, "step %d: %s", i,
			      rc_str(o->rc[i]));
		check(o->got == PUT_VALUE, "GET read back the PUT (0x%" PRIx64
		      ")", o->got);
		check(o->fetched == ADD_VALUE, "FADD fetched the ADD's result "
		      "(%" PRIu64 ")", o->fetched);
	}
	barrier();
	if (job.rank == 1) {
		check(buf[0] == PUT_VALUE, "the PUT arrived (0x%" PRIx64 ")",
		      buf[0]);
		check(buf[1] == 2 * ADD_VALUE, "both AMOs arrived (%" PRIu64
		      ")", buf[1]);
		rc = wait_event(rcq, &ev);
		check(rc == GNI_RC_SUCCESS && GNI_CQ_GET_DATA(ev) == CQW_VALUE,
		      "the CQ write arrived: %s, data 0x%" PRIx64, rc_str(rc),
		      (uint64_t)GNI_CQ_GET_DATA(ev));
	}
	barrier();
	return job_finish();
}
