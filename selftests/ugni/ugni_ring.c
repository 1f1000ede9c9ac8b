// SPDX-License-Identifier: GPL-2.0-only
/*
 * ugni_ring: an SMSG ring, the shape of a common third-party uGNI
 * program.  Every round each rank sends one 24-byte message to rank + 1
 * on a bound endpoint (MBOX_AUTO_RETRANSMIT, 128 credits, 1024-byte
 * messages), waits for its local event on the source CQ, waits for the
 * message from rank - 1 on the mailbox's destination CQ, takes it with
 * GetNext, checks it, releases it, and joins a PMI barrier.
 *
 * Prints the mean round time ("bench: smsg ring round, N ranks: T us")
 * and the part of it rank 0 spent in the barrier: the barrier and the
 * one message each are all a round costs.
 *
 * usage: ugni_ring [--rounds N]
 */
#include "ugni_job.h"

#define RING_CREDITS	128
#define RING_MSG_MAX	1024
#define RING_MSG_LEN	24

struct ring_msg {
	uint32_t from, to;
	uint64_t round;
	uint64_t check;
};

static uint64_t ring_check(uint32_t from, uint64_t round)
{
	return (uint64_t)from * 0x9e3779b97f4a7c15ull ^ round;
}

/* Poll @cq without sleeping until an event, or EVENT_TIMEOUT_S. */
static gni_return_t ring_wait(gni_cq_handle_t cq, gni_cq_entry_t *ev)
{
	wait_spins_only = 1;
	return wait_event(cq, ev);
}

int main(int argc, char **argv)
{
	gni_smsg_attr_t attr = { .msg_type = GNI_SMSG_TYPE_MBOX_AUTO_RETRANSMIT,
				 .mbox_maxcredit = RING_CREDITS,
				 .msg_maxsize = RING_MSG_MAX };
	gni_smsg_attr_t loc, rem;
	gni_ep_handle_t ep_next, ep_prev;
	struct job_buf *all;
	struct ring_msg msg, *got;
	gni_cq_handle_t rcq;
	gni_mem_handle_t mh;
	gni_cq_entry_t ev;
	gni_return_t rc;
	unsigned int box = 0;
	long rounds = 500, bad = 0, i;
	int next, prev, two;
	double t0, t1, tb, in_barrier = 0;
	char *mbox;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
			rounds = strtol(argv[++i], NULL, 0);
		else {
			fprintf(stderr, "usage: ugni_ring [--rounds N]\n");
			return 2;
		}
	}
	job_init("ugni_ring", 2);
	next = (job.rank + 1) % job.size;
	prev = (job.rank + job.size - 1) % job.size;
	two = next == prev;

	/* box 0 takes what prev sends, box 1 what next sends back */
	rc = GNI_SmsgBufferSizeNeeded(&attr, &box);
	check(rc == GNI_RC_SUCCESS, "GNI_SmsgBufferSizeNeeded: %s, %u bytes",
	      rc_str(rc), box);
	rc = GNI_CqCreate(job.nic, 4 * RING_CREDITS, 0, GNI_CQ_NOBLOCK, NULL,
			  NULL, &rcq);
	if (!check(rc == GNI_RC_SUCCESS, "GNI_CqCreate of the mailbox CQ: %s",
		   rc_str(rc)))
		job_bail("no CQ");
	mbox = alloc_aligned(PAGE, 2 * box);
	memset(mbox, 0, 2 * box);
	mh = reg(job.nic, mbox, 2 * box, rcq, GNI_MEM_READWRITE, "mailboxes");
	all = publish(mbox, &mh);

	attr.buff_size = box;
	attr.mem_hndl = mh;
	/* To next: my box 1 (its credits come back there), its box 0 */
	loc = attr;
	loc.msg_buffer = mbox;
	loc.mbox_offset = two ? 0 : box;
	rem = attr;
	rem.msg_buffer = (void *)(uintptr_t)all[next].addr;
	rem.mem_hndl = all[next].mh;
	rem.mbox_offset = 0;
	ep_next = job.ep[next];
	rc = GNI_SmsgInit(ep_next, &loc, &rem);
	if (!check(rc == GNI_RC_SUCCESS, "GNI_SmsgInit to rank %d: %s", next,
		   rc_str(rc)))
		job_bail("no SMSG");
	ep_prev = ep_next;
	if (!two) {
		/* From prev: my box 0, its box 1 */
		loc.mbox_offset = 0;
		rem.msg_buffer = (void *)(uintptr_t)all[prev].addr;
		rem.mem_hndl = all[prev].mh;
		rem.mbox_offset = box;
		ep_prev = job.ep[prev];
		rc = GNI_SmsgInit(ep_prev, &loc, &rem);
		if (!check(rc == GNI_RC_SUCCESS, "GNI_SmsgInit to rank %d: %s",
			   prev, rc_str(rc)))
			job_bail("no SMSG");
	}
	barrier();

	t0 = now();
	for (i = 0; i < rounds; i++) {
		msg.from = job.rank;
		msg.to = next;
		msg.round = i;
		msg.check = ring_check(job.rank, i);
		rc = GNI_SmsgSend(ep_next, &msg, RING_MSG_LEN, NULL, 0, i);
		if (rc != GNI_RC_SUCCESS) {
			check(0, "round %ld: GNI_SmsgSend: %s", i, rc_str(rc));
			break;
		}
		rc = ring_wait(job.cq, &ev);
		if (rc != GNI_RC_SUCCESS || !GNI_CQ_STATUS_OK(ev) ||
		    GNI_CQ_GET_MSG_ID(ev) != (uint32_t)i) {
			check(0, "round %ld: local event: %s 0x%016" PRIx64, i,
			      rc_str(rc), (uint64_t)ev);
			break;
		}
		rc = ring_wait(rcq, &ev);
		if (rc != GNI_RC_SUCCESS) {
			check(0, "round %ld: remote event: %s", i, rc_str(rc));
			break;
		}
		rc = GNI_SmsgGetNext(ep_prev, (void **)&got);
		if (rc != GNI_RC_SUCCESS) {
			check(0, "round %ld: GNI_SmsgGetNext: %s", i,
			      rc_str(rc));
			break;
		}
		if (got->from != (uint32_t)prev || got->to != (uint32_t)job.rank ||
		    got->round != (uint64_t)i ||
		    got->check != ring_check(prev, i))
			bad++;
		rc = GNI_SmsgRelease(ep_prev);
		if (rc != GNI_RC_SUCCESS) {
			check(0, "round %ld: GNI_SmsgRelease: %s", i,
			      rc_str(rc));
			break;
		}
		tb = now();
		barrier();
		in_barrier += now() - tb;
	}
	t1 = now();
	check(i == rounds && !bad, "%ld of %ld rounds, %ld messages wrong",
	      i, rounds, bad);
	if (job.rank == 0 && i) {
		printf("bench: smsg ring round, %d ranks: %.1f us\n", job.size,
		       (t1 - t0) / i * 1e6);
		printf("bench: smsg ring round's PMI barrier, %d ranks: %.1f "
		       "us\n", job.size, in_barrier / i * 1e6);
	}
	barrier();
	free(all);
	job_fini();
	return job_finish();
}
