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
 * GNI_GetCompleted; then sends rank 1 a short message (GNI_SmsgSendWTag),
 * takes its local event, and waits for rank 1's answer with
 * GNI_SmsgGetNextWTag and GNI_SmsgRelease; then the same through the
 * shared message queue (GNI_MsgqSend, its local MSGQ event, and the
 * answer from a non-blocking GNI_MsgqProgress).  The child's outcome comes
 * back through shared memory and its exit status; rank 1 checks that the
 * data arrived.  Buffers and mailboxes are MAP_SHARED so that the child
 * writes and reads the pages registered.
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
#define SMSG_MSG	"no system call"
#define SMSG_TAG	0x3c

/* What the child saw, step by step */
struct outcome {
	int step;			/* steps completed */
	gni_return_t rc[10];		/* each step's worst return code */
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

static gni_ep_handle_t smsg_ep;	/* SMSG to the other rank */
static gni_msgq_handle_t msgq;
static uint8_t msgq_got[64];	/* what the MSGQ callback was handed */
static int msgq_tag = -1;

static int msgq_cb(uint32_t snd_id, uint32_t snd_pe, void *msg,
		   uint8_t tag, void *cb_data)
{
	(void)snd_pe;
	(void)cb_data;
	if (snd_id == (uint32_t)(1 - job.rank)) {
		memcpy(msgq_got, msg, sizeof(SMSG_MSG));
		msgq_tag = tag;
	}
	return 1;
}

/* The SMSG round trip in the child: send, its local event, the answer */
static void child_smsg(struct outcome *o)
{
	char msg[] = SMSG_MSG;
	gni_cq_entry_t ev;
	gni_return_t rc;
	uint8_t tag;
	void *got;
	unsigned int i;

	o->rc[o->step++] = GNI_SmsgSendWTag(smsg_ep, msg, sizeof(msg), NULL, 0,
					    77, SMSG_TAG);
	for (i = 0; i < SPIN_MAX; i++) {
		rc = GNI_CqGetEvent(job.cq, &ev);
		if (rc != GNI_RC_NOT_DONE)
			break;
	}
	if (rc == GNI_RC_SUCCESS && (GNI_CQ_GET_TYPE(ev) !=
				     GNI_CQ_EVENT_TYPE_SMSG ||
				     GNI_CQ_GET_MSG_ID(ev) != 77))
		rc = GNI_RC_DESCRIPTOR_ERROR;
	o->rc[o->step++] = rc;
	for (i = 0; i < SPIN_MAX; i++) {
		tag = GNI_SMSG_ANY_TAG;
		rc = GNI_SmsgGetNextWTag(smsg_ep, &got, &tag);
		if (rc != GNI_RC_NOT_DONE)
			break;
	}
	if (rc == GNI_RC_SUCCESS &&
	    (tag != SMSG_TAG + 1 || memcmp(got, msg, sizeof(msg))))
		rc = GNI_RC_DESCRIPTOR_ERROR;
	if (rc == GNI_RC_SUCCESS)
		rc = GNI_SmsgRelease(smsg_ep);
	o->rc[o->step++] = rc;
}

/* The MSGQ round trip in the child: send, its local event, the answer */
static void child_msgq(struct outcome *o)
{
	char msg[] = SMSG_MSG;
	gni_cq_entry_t ev;
	gni_return_t rc;
	unsigned int i;

	rc = GNI_MsgqSend(msgq, job.ep[1], msg, sizeof(msg), NULL, 0, 79,
			  SMSG_TAG);
	for (i = 0; rc == GNI_RC_SUCCESS && i < SPIN_MAX; i++) {
		rc = GNI_CqGetEvent(job.cq, &ev);
		if (rc != GNI_RC_NOT_DONE)
			break;
		rc = GNI_RC_SUCCESS;	/* not yet: poll again */
	}
	if (rc == GNI_RC_SUCCESS && (GNI_CQ_GET_TYPE(ev) !=
				     GNI_CQ_EVENT_TYPE_MSGQ ||
				     GNI_CQ_GET_MSG_ID(ev) != 79))
		rc = GNI_RC_DESCRIPTOR_ERROR;
	o->rc[o->step++] = rc;
	for (i = 0; i < SPIN_MAX && msgq_tag < 0; i++) {
		rc = GNI_MsgqProgress(msgq, (uint32_t)-1);
		if (rc != GNI_RC_NOT_DONE && rc != GNI_RC_SUCCESS)
			break;
	}
	if (rc == GNI_RC_SUCCESS || rc == GNI_RC_NOT_DONE)
		rc = msgq_tag == SMSG_TAG + 1 &&
		     !memcmp(msgq_got, msg, sizeof(msg)) ?
		     GNI_RC_SUCCESS : GNI_RC_DESCRIPTOR_ERROR;
	o->rc[o->step++] = rc;
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
	child_smsg(o);
	child_msgq(o);
	syscall(SYS_exit, 0);
}

/* An SMSG connection with the other rank: mailboxes in @mbox (2 pages). */
static void smsg_connect(volatile uint8_t *mbox, gni_cq_handle_t rcq)
{
	gni_smsg_attr_t l = { .msg_type = GNI_SMSG_TYPE_MBOX_AUTO_RETRANSMIT,
			      .mbox_maxcredit = 4, .msg_maxsize = 64 };
	gni_smsg_attr_t r;
	struct job_buf *all;
	gni_mem_handle_t mh;
	gni_return_t rc;
	int peer = !job.rank;

	mh = reg(job.nic, (void *)(uintptr_t)mbox, 2 * PAGE, rcq, 0,
		 "the mailboxes");
	all = publish((void *)(uintptr_t)mbox, &mh);
	l.msg_buffer = (void *)(uintptr_t)mbox;
	l.buff_size = 2 * PAGE;
	l.mem_hndl = mh;
	l.mbox_offset = PAGE * peer;
	r = l;
	r.msg_buffer = (void *)(uintptr_t)all[peer].addr;
	r.mem_hndl = all[peer].mh;
	r.mbox_offset = PAGE * job.rank;
	rc = GNI_EpCreate(job.nic, job.cq, &smsg_ep);
	if (rc == GNI_RC_SUCCESS)
		rc = GNI_EpBind(smsg_ep, job.addrs[peer], peer);
	if (rc == GNI_RC_SUCCESS)
		rc = GNI_SmsgInit(smsg_ep, &l, &r);
	check(rc == GNI_RC_SUCCESS, "an SMSG connection to rank %d: %s", peer,
	      rc_str(rc));
	free(all);
}

/* Rank 1: answer the child's message with the same bytes, tag + 1. */
static void smsg_echo(void)
{
	double deadline = now() + EVENT_TIMEOUT_S;
	uint8_t tag = GNI_SMSG_ANY_TAG, copy[64];
	gni_return_t rc;
	void *got;

	do {
		rc = GNI_SmsgGetNextWTag(smsg_ep, &got, &tag);
	} while (rc == GNI_RC_NOT_DONE && now() < deadline);
	check(rc == GNI_RC_SUCCESS && tag == SMSG_TAG &&
	      !memcmp(got, SMSG_MSG, sizeof(SMSG_MSG)),
	      "the child's message: %s, tag 0x%x", rc_str(rc), tag);
	if (rc != GNI_RC_SUCCESS)
		return;
	memcpy(copy, got, sizeof(SMSG_MSG));
	GNI_SmsgRelease(smsg_ep);
	rc = GNI_SmsgSendWTag(smsg_ep, copy, sizeof(SMSG_MSG), NULL, 0, 78,
			      SMSG_TAG + 1);
	check(rc == GNI_RC_SUCCESS, "the answer sent: %s", rc_str(rc));
}

/* A non-blocking MSGQ of one rank per node, connected to the other node */
static void msgq_connect(void)
{
	gni_msgq_attr_t a = { .max_msg_sz = 64, .smsg_q_sz = 4,
			      .num_msgq_eps = 1, .nloc_insts = 1 };
	gni_msgq_ep_attr_t mine = { 0 }, all[2];
	uint32_t size;
	gni_return_t rc;

	rc = GNI_MsgqInit(job.nic, msgq_cb, NULL, job.cq, &a, &msgq);
	if (rc == GNI_RC_SUCCESS)
		rc = GNI_MsgqGetConnAttrs(msgq, job.addrs[1 - job.rank], &mine,
					  &size);
	allgather(&mine, all, sizeof(mine));
	if (rc == GNI_RC_SUCCESS)
		rc = GNI_MsgqConnect(msgq, job.addrs[1 - job.rank],
				     &all[1 - job.rank]);
	check(rc == GNI_RC_SUCCESS, "MSGQ set up and connected: %s",
	      rc_str(rc));
}

/* Rank 1: answer the child's MSGQ message with the same bytes, tag + 1 */
static void msgq_echo(void)
{
	double deadline = now() + EVENT_TIMEOUT_S;
	gni_return_t rc;

	do {
		rc = GNI_MsgqProgress(msgq, (uint32_t)-1);
	} while (msgq_tag < 0 && now() < deadline &&
		 (rc == GNI_RC_NOT_DONE || rc == GNI_RC_SUCCESS));
	check(msgq_tag == SMSG_TAG &&
	      !memcmp(msgq_got, SMSG_MSG, sizeof(SMSG_MSG)),
	      "the child's MSGQ message: tag 0x%x", msgq_tag);
	rc = GNI_MsgqSend(msgq, job.ep[0], msgq_got, sizeof(SMSG_MSG), NULL,
			  0, 80, SMSG_TAG + 1);
	check(rc == GNI_RC_SUCCESS, "the MSGQ answer sent: %s", rc_str(rc));
}

int main(void)
{
	volatile uint64_t *buf, *res;
	volatile uint8_t *mbox;
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
	rc = GNI_CqCreate(job.nic, 16, 0, GNI_CQ_NOBLOCK, NULL, NULL, &rcq);
	check(rc == GNI_RC_SUCCESS, "remote-event CQ: %s", rc_str(rc));
	mh = reg(job.nic, (void *)(uintptr_t)buf, PAGE,
		 job.rank == 1 ? rcq : NULL, 0, "a page");
	all = publish((void *)(uintptr_t)buf, &mh);
	mbox = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (mbox == MAP_FAILED)
		job_bail("mmap");
	smsg_connect(mbox, rcq);
	msgq_connect();
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
		check(o->step == 10, "all 10 steps ran (%d)", o->step);
		for (i = 0; i < o->step; i++)
			check(o->rc[i] == GNI_RC_SUCCESS, "step %d: %s", i,
			      rc_str(o->rc[i]));
		check(o->got == PUT_VALUE, "GET read back the PUT (0x%" PRIx64
		      ")", o->got);
		check(o->fetched == ADD_VALUE, "FADD fetched the ADD's result "
		      "(%" PRIu64 ")", o->fetched);
	}
	if (job.rank == 1) {
		smsg_echo();
		msgq_echo();
	}
	barrier();
	if (job.rank == 1) {
		check(buf[0] == PUT_VALUE, "the PUT arrived (0x%" PRIx64 ")",
		      buf[0]);
		check(buf[1] == 2 * ADD_VALUE, "both AMOs arrived (%" PRIu64
		      ")", buf[1]);
		/* The CQ write's event, after the SMSG message's */
		do {
			rc = wait_event(rcq, &ev);
		} while (rc == GNI_RC_SUCCESS &&
			 GNI_CQ_GET_TYPE(ev) == GNI_CQ_EVENT_TYPE_SMSG);
		check(rc == GNI_RC_SUCCESS && GNI_CQ_GET_DATA(ev) == CQW_VALUE,
		      "the CQ write arrived: %s, data 0x%" PRIx64, rc_str(rc),
		      (uint64_t)GNI_CQ_GET_DATA(ev));
	}
	barrier();
	check(GNI_MsgqRelease(msgq) == GNI_RC_SUCCESS, "GNI_MsgqRelease");
	return job_finish();
}
