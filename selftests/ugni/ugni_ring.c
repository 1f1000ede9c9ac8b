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
 * First, where the ring runs, as Cray's PMI and RCA say and kgni's sysfs
 * shows: PMI_Get_nid() of each rank is its node's Gemini id, and
 * rca_get_meshcoord() of it the node's coordinates.
 *
 * usage: ugni_ring [--rounds N]
 */
#include "ugni_job.h"

#include <rca_lib.h>

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

/* The first @n numbers of kgni's sysfs file @name; 0, or -1 */
static int sysfs_nums(const char *name, unsigned int *v, int n)
{
	char path[128];
	FILE *f;
	int i, got = 0;

	snprintf(path, sizeof(path), "/sys/class/gni/kgni0/%s", name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	for (i = 0; i < n; i++)
		got += fscanf(f, "%u", &v[i]) == 1;
	fclose(f);
	return got == n ? 0 : -1;
}

/* PMI's nids and RCA's coordinates against kgni's sysfs */
static void placement(void)
{
	unsigned int coord[3], dims[3], id = 0;
	rca_mesh_coord_t c = { 0 }, m = { 0 };
	int *nids = NULL, nid = -1, r, rc, bad = 0;
	void *p = NULL;

	if (sysfs_nums("coord", coord, 3) || sysfs_nums("dims", dims, 3) ||
	    sysfs_nums("gemini_id", &id, 1)) {
		check(0, "kgni's coord, dims and gemini_id in "
		      "/sys/class/gni/kgni0");
		return;
	}
	rc = PMI_Get_nid(job.rank, &nid);
	check(rc == PMI_SUCCESS && id == (unsigned int)nid,
	      "PMI_Get_nid of my rank: %d, my node's Gemini id %u", nid, id);
	rc = rca_get_meshcoord((uint16_t)nid, &c);
	check(rc == 0 && c.mesh_x == coord[0] && c.mesh_y == coord[1] &&
	      c.mesh_z == coord[2], "rca_get_meshcoord(%d): (%u, %u, %u), "
	      "kgni's coord (%u, %u, %u)", nid, c.mesh_x, c.mesh_y, c.mesh_z,
	      coord[0], coord[1], coord[2]);
	rc = rca_get_max_dimension(&m);
	check(rc == 0 && m.mesh_x + 1u == dims[0] && m.mesh_y + 1u == dims[1] &&
	      m.mesh_z + 1u == dims[2], "rca_get_max_dimension: (%u, %u, %u), "
	      "kgni's dims less 1", m.mesh_x, m.mesh_y, m.mesh_z);
	rc = PMI_Get_nidlist_ptr(&p);
	nids = p;
	for (r = 0; rc == PMI_SUCCESS && r < job.size; r++)
		bad |= PMI_Get_nid(r, &nid) != PMI_SUCCESS || nid != nids[r];
	check(rc == PMI_SUCCESS && !bad, "PMI_Get_nidlist_ptr: every "
	      "rank's PMI_Get_nid");
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
	placement();
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
