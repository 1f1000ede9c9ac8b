// SPDX-License-Identifier: GPL-2.0-only
/*
 * ugni_smsg: short messages as Cray's clients use them, one rank per node
 * (uGNI only: gni_pub.h and pmi.h).  For each mailbox shape real clients
 * use (Open MPI 32 x 8192, UCX 8 x 2048, Cray's examples 128 x 1024,
 * Lustre's LND 256 x 2048), every rank registers one region with a
 * remote-event CQ, one mailbox per peer, and connects an endpoint to
 * every other rank with GNI_SmsgInit; then:
 *
 *  1. Rank 0 and rank 1 (neighbours) ping-pong messages of every size
 *     from 0 to msg_maxsize (8 bytes of header, the rest data; every 7th
 *     size for Open MPI's 8 KiB and every 3rd for LND's, whose sizes are
 *     UCX's), rank 0 and the last rank (3 hops away on a 2x2x2 torus)
 *     every 61st size and the largest; every byte checked, one remote
 *     and one local event per message.
 *  2. Every other rank streams mbox_maxcredit + 3 messages to rank 0,
 *     which does not receive at first: exactly mbox_maxcredit sends
 *     succeed, the next is GNI_RC_NOT_DONE; then rank 0 drains and the
 *     senders finish.  Each sender's messages arrive in order, once, with
 *     their tags (GNI_SmsgGetNextWTag, a wrong tag: GNI_RC_NO_MATCH).
 *  3. Each message raised one remote SMSG event at rank 0 (inst_id = the
 *     sender's remote event data, here its rank) and one local SMSG event
 *     at its sender (msg_id as given).
 *  4. The calls' refusals: too long, no SmsgInit, Release with nothing.
 *  5. A broken connection: rank 1's mailboxes go (it deregisters them);
 *     rank 0's next message to it, sent again GNI_SmsgSetMaxRetrans (2)
 *     times, ends in a local SMSG event with GNI_RC_TRANSACTION_ERROR,
 *     and then GNI_SmsgSend and GNI_SmsgGetNext return INVALID_STATE.
 *
 * --stream-only [ROUNDS]: parts 2 and 3 for the first shape, ROUNDS
 * times (default 1); a message sent again after a failure may raise a
 * second remote event, so then at least one per message is required,
 * and a credit lost with a dying link may stop the first sends of a
 * round early.
 * (make check runs it
 * again with a link of the path corrupting 10% of its packets).
 */
#include <stdbool.h>

#include "ugni_job.h"

struct shape {
	const char *who;
	uint16_t credits;
	uint32_t maxsize;
};

static const struct shape shapes[] = {
	{ "Open MPI", 32, 8192 },
	{ "UCX", 8, 2048 },
	{ "Cray's examples", 128, 1024 },
	{ "Lustre's LND", 256, 2048 },
};

#define RCQ_ENTRIES	4096
#define EXTRA		3	/* messages past the credits in part 2 */

static gni_cq_handle_t rcq;	/* remote events of the mailboxes */
static uint8_t *region;
static gni_mem_handle_t region_mh;
static gni_ep_handle_t *eps;	/* eps[r]: SMSG to rank r (none to self) */
static unsigned int mbox_bytes;
static uint64_t local_events, remote_events[1024];
static bool lenient_events;	/* a message may raise two remote events */
static bool region_gone;	/* part 5 deregistered the mailboxes */

static uint8_t pat(uint32_t seq, uint32_t i)
{
	return (uint8_t)(seq * 13 + i * 7 + (i >> 8) + 3);
}

/* Take every event of the local CQ: SMSG, OK, counted. */
static void drain_local(void)
{
	gni_cq_entry_t e;
	gni_return_t rc;

	while ((rc = GNI_CqGetEvent(job.cq, &e)) != GNI_RC_NOT_DONE) {
		if (rc != GNI_RC_SUCCESS ||
		    GNI_CQ_GET_TYPE(e) != GNI_CQ_EVENT_TYPE_SMSG) {
			check(0, "a local SMSG event: %s, type %llu",
			      rc_str(rc),
			      (unsigned long long)GNI_CQ_GET_TYPE(e));
			return;
		}
		local_events++;
	}
}

/* Take every remote event of the mailboxes' CQ, counted by inst_id. */
static void drain_remote(void)
{
	gni_cq_entry_t e;
	gni_return_t rc;
	uint64_t id;

	while ((rc = GNI_CqGetEvent(rcq, &e)) != GNI_RC_NOT_DONE) {
		id = GNI_CQ_GET_INST_ID(e);
		if (rc != GNI_RC_SUCCESS ||
		    GNI_CQ_GET_TYPE(e) != GNI_CQ_EVENT_TYPE_SMSG ||
		    id >= (uint64_t)job.size) {
			check(0, "a remote SMSG event: %s, type %llu, inst_id "
			      "%llu", rc_str(rc),
			      (unsigned long long)GNI_CQ_GET_TYPE(e),
			      (unsigned long long)id);
			return;
		}
		remote_events[id]++;
	}
}

static void attr_of(const struct shape *sh, gni_smsg_attr_t *a)
{
	memset(a, 0, sizeof(*a));
	a->msg_type = GNI_SMSG_TYPE_MBOX_AUTO_RETRANSMIT;
	a->mbox_maxcredit = sh->credits;
	a->msg_maxsize = sh->maxsize;
}

/* Mailboxes and endpoints for shape @sh */
static void connect_all(const struct shape *sh)
{
	gni_smsg_attr_t local, remote;
	struct job_buf *all;
	gni_return_t rc;
	unsigned int size;
	int r, ok = 1;

	attr_of(sh, &local);
	rc = GNI_SmsgBufferSizeNeeded(&local, &size);
	check(rc == GNI_RC_SUCCESS && size >= sh->credits * sh->maxsize,
	      "GNI_SmsgBufferSizeNeeded(%u x %u): %s, %u bytes", sh->credits,
	      sh->maxsize, rc_str(rc), size);
	mbox_bytes = (size + 63) & ~63u;
	region = alloc_aligned(PAGE, (size_t)mbox_bytes * job.size);
	memset(region, 0, (size_t)mbox_bytes * job.size);
	region_mh = reg(job.nic, region, (uint64_t)mbox_bytes * job.size, rcq,
			GNI_MEM_READWRITE, "the mailboxes");
	all = publish(region, &region_mh);
	eps = calloc(job.size, sizeof(*eps));
	for (r = 0; r < job.size; r++) {
		if (r == job.rank)
			continue;
		rc = GNI_EpCreate(job.nic, job.cq, &eps[r]);
		if (rc == GNI_RC_SUCCESS)
			rc = GNI_EpBind(eps[r], job.addrs[r], r);
		if (rc == GNI_RC_SUCCESS)
			rc = GNI_EpSetEventData(eps[r], r, job.rank);
		attr_of(sh, &local);
		local.msg_buffer = region;
		local.buff_size = mbox_bytes * job.size;
		local.mem_hndl = region_mh;
		local.mbox_offset = mbox_bytes * r;
		remote = local;
		remote.msg_buffer = (void *)(uintptr_t)all[r].addr;
		remote.mem_hndl = all[r].mh;
		remote.mbox_offset = mbox_bytes * job.rank;
		if (rc == GNI_RC_SUCCESS)
			rc = GNI_SmsgInit(eps[r], &local, &remote);
		ok &= rc == GNI_RC_SUCCESS;
		if (rc != GNI_RC_SUCCESS)
			check(0, "endpoint and GNI_SmsgInit to rank %d: %s", r,
			      rc_str(rc));
	}
	check(ok, "%s's mailboxes (%u x %u, %u bytes each): connected to "
	      "the %d other ranks", sh->who, sh->credits, sh->maxsize,
	      mbox_bytes, job.size - 1);
	free(all);
	barrier();
}

static void disconnect_all(void)
{
	int r;

	barrier();
	drain_local();
	drain_remote();
	for (r = 0; r < job.size; r++) {
		if (r == job.rank)
			continue;
		GNI_EpUnbind(eps[r]);
		GNI_EpDestroy(eps[r]);
	}
	free(eps);
	if (!region_gone)
		GNI_MemDeregister(job.nic, &region_mh);
	region_gone = false;
	free(region);
	barrier();
}

/* Send until it is taken (NOT_DONE: no credit yet); the result. */
static gni_return_t send_retry(gni_ep_handle_t ep, void *hdr, uint32_t hl,
			       void *data, uint32_t dl, uint32_t id,
			       uint8_t tag)
{
	double deadline = now() + EVENT_TIMEOUT_S;
	gni_return_t rc;

	for (;;) {
		rc = GNI_SmsgSendWTag(ep, hdr, hl, data, dl, id, tag);
		if (rc != GNI_RC_NOT_DONE || now() > deadline)
			return rc;
		drain_local();
		usleep(20);
	}
}

/*
 * The next message from @ep if there is one (-1 if not), checked: header
 * (seq, size) then @size bytes of pattern, tag @tag; released.  1 if it
 * is right, 0 if not.
 */
static int take_one(gni_ep_handle_t ep, uint32_t seq, uint32_t size,
		    uint8_t tag, const char *what)
{
	uint8_t t = GNI_SMSG_ANY_TAG, *p;
	uint32_t h[2], i;
	void *msg = NULL;
	gni_return_t rc;
	int ok;

	rc = GNI_SmsgGetNextWTag(ep, &msg, &t);
	if (rc == GNI_RC_NOT_DONE)
		return -1;
	if (rc != GNI_RC_SUCCESS) {
		check(0, "%s: message %u: %s", what, seq, rc_str(rc));
		return 0;
	}
	p = msg;
	memcpy(h, p, sizeof(h));
	ok = h[0] == seq && h[1] == size && t == tag;
	for (i = 0; ok && i < size; i++)
		ok = p[8 + i] == pat(seq, i);
	if (!ok)
		check(0, "%s: message %u: header (%u, %u) tag %u, want (%u, "
		      "%u) tag %u, or its bytes differ at %u", what, seq, h[0],
		      h[1], t, seq, size, tag, i);
	rc = GNI_SmsgRelease(ep);
	if (rc != GNI_RC_SUCCESS)
		check(0, "%s: GNI_SmsgRelease: %s", what, rc_str(rc));
	return ok && rc == GNI_RC_SUCCESS;
}

/* As take_one(), waiting up to EVENT_TIMEOUT_S for the message */
static int recv_check(gni_ep_handle_t ep, uint32_t seq, uint32_t size,
		      uint8_t tag, const char *what)
{
	double deadline = now() + EVENT_TIMEOUT_S;
	int r;

	while ((r = take_one(ep, seq, size, tag, what)) < 0) {
		if (now() > deadline) {
			check(0, "%s: message %u never came", what, seq);
			return 0;
		}
		drain_remote();
		usleep(20);
	}
	return r;
}

/* Message @seq of @size bytes: 8 bytes of header, the rest as data. */
static gni_return_t send_msg(gni_ep_handle_t ep, uint32_t seq, uint32_t size,
			     uint8_t tag, uint8_t *buf)
{
	uint32_t h[2] = { seq, size }, i;

	for (i = 0; i < size; i++)
		buf[8 + i] = pat(seq, i);
	memcpy(buf, h, 8);
	/* The header is the first 8 bytes plus what the size leaves */
	return send_retry(ep, buf, 8, buf + 8, size, seq, tag);
}

/* 1: ping-pong of sizes 0, @step, ... and max - 8 with @peer */
static void ping_pong(const struct shape *sh, int peer, uint32_t step)
{
	uint32_t max = sh->maxsize - 8, size = 0, seq = 0, bad = 0;
	uint8_t *buf = malloc(sh->maxsize);
	double t0 = now(), deadline;
	int other;

	if (job.rank != 0 && job.rank != peer)
		return;
	memset(remote_events, 0, sizeof(remote_events));
	local_events = 0;
	for (;;) {
		seq++;
		if (job.rank == 0) {
			bad += send_msg(eps[peer], seq, size, 1, buf) !=
			       GNI_RC_SUCCESS;
			bad += !recv_check(eps[peer], seq, size, 2, "pong");
		} else {
			bad += !recv_check(eps[0], seq, size, 1, "ping");
			bad += send_msg(eps[0], seq, size, 2, buf) !=
			       GNI_RC_SUCCESS;
		}
		drain_local();
		if (size == max || bad > 2)
			break;
		size = size + step > max ? max : size + step;
	}
	check(!bad, "%s: %u ping-pongs with rank %d, sizes 0..%u by %u, "
	      "byte for byte (%.1f s)", sh->who, seq, job.rank ? 0 : peer,
	      max, step, now() - t0);
	/* Each message raised one remote event here: wait for the last. */
	other = job.rank ? 0 : peer;
	deadline = now() + EVENT_TIMEOUT_S;
	while (remote_events[other] < seq && now() < deadline) {
		drain_remote();
		usleep(50);
	}
	check(remote_events[other] == seq, "%s: %llu remote SMSG events "
	      "from rank %d for its %u messages", sh->who,
	      (unsigned long long)remote_events[other], other, seq);
	/* And one local event per message sent */
	while (local_events < seq && now() < deadline) {
		drain_local();
		usleep(50);
	}
	check(local_events == seq, "%s: %llu local SMSG events for the %u "
	      "messages sent", sh->who, (unsigned long long)local_events,
	      seq);
	free(buf);
}

/* 2 and 3: every rank to rank 0 past the credits */
static void stream_to_zero(const struct shape *sh)
{
	uint32_t total = sh->credits + EXTRA, seq, size, n = 0, *next;
	uint8_t *buf = malloc(sh->maxsize);
	gni_return_t rc = GNI_RC_SUCCESS;
	double deadline;
	int r, bad = 0, left;

	memset(remote_events, 0, sizeof(remote_events));
	local_events = 0;
	barrier();
	if (job.rank != 0) {
		/* Rank 0 receives nothing yet: the credits run out. */
		for (seq = 1; seq <= total; seq++) {
			size = (seq * 37) % (sh->maxsize - 8);
			memcpy(buf, (uint32_t[2]){ seq, size }, 8);
			for (uint32_t i = 0; i < size; i++)
				buf[8 + i] = pat(seq, i);
			rc = GNI_SmsgSendWTag(eps[0], buf, 8, buf + 8, size,
					      seq, (uint8_t)job.rank);
			if (rc != GNI_RC_SUCCESS)
				break;
			n++;
			drain_local();
		}
		/*
		 * A credit return lost on a dying link leaves fewer credits
		 * until the next release: then no more than the credits.
		 */
		check((lenient_events ? n >= 1 && n <= sh->credits :
		       n == sh->credits) && rc == GNI_RC_NOT_DONE,
		      "%s: %u sends to rank 0 taken, then %s (credits %u)",
		      sh->who, n, rc_str(rc), sh->credits);
		{
			uint32_t stalls = 0;

			rc = GNI_GetNicStat(job.nic,
					    GNI_STAT_SMSG_MBOX_CREDITS_STALL,
					    &stalls);
			check(rc == GNI_RC_SUCCESS && stalls > 0,
			      "GNI_GetNicStat(MBOX_CREDITS_STALL): %s, %u",
			      rc_str(rc), stalls);
			GNI_ResetNicStat(job.nic,
					 GNI_STAT_SMSG_MBOX_CREDITS_STALL);
		}
	}
	barrier();
	if (job.rank != 0) {
		for (seq = n + 1; seq <= total && !bad; seq++) {
			size = (seq * 37) % (sh->maxsize - 8);
			bad |= send_msg(eps[0], seq, size, (uint8_t)job.rank,
					buf) != GNI_RC_SUCCESS;
		}
		check(!bad, "%s: the other %u sends once rank 0 received",
		      sh->who, total - n);
		/* Every local event: one per message */
		deadline = now() + EVENT_TIMEOUT_S;
		while (local_events < total && now() < deadline) {
			drain_local();
			usleep(100);
		}
		check(local_events == total, "%s: %llu local SMSG events for "
		      "%u messages", sh->who,
		      (unsigned long long)local_events, total);
	} else {
		uint8_t t = 0xee;
		void *msg;

		next = calloc(job.size, sizeof(*next));
		/*
		 * A wrong tag is refused and the right one shown.  A send
		 * that returned SUCCESS may still be on the wire (resent
		 * round a dead link): wait for it to land.
		 */
		deadline = now() + EVENT_TIMEOUT_S;
		for (;;) {
			t = 0xee;
			rc = GNI_SmsgGetNextWTag(eps[1], &msg, &t);
			if (rc != GNI_RC_NOT_DONE || now() > deadline)
				break;
			drain_remote();
			usleep(20);
		}
		check(rc == GNI_RC_NO_MATCH && t == 1, "GetNextWTag with "
		      "another tag: %s, the message's tag %u", rc_str(rc), t);
		/* In order and once, from every rank at once */
		deadline = now() + 4 * EVENT_TIMEOUT_S;
		do {
			left = 0;
			for (r = 1; r < job.size; r++) {
				if (next[r] >= total)
					continue;
				seq = next[r] + 1;
				size = (seq * 37) % (sh->maxsize - 8);
				switch (take_one(eps[r], seq, size, (uint8_t)r,
						 "stream")) {
				case 1:
					next[r]++;
					break;
				case 0:
					bad++;
					next[r] = total;
					break;
				}
				left += next[r] < total;
			}
			drain_remote();
		} while (left && now() < deadline);
		for (r = 1; r < job.size; r++)
			bad += next[r] != total;
		check(!bad, "%s: %u messages from each of the %d other ranks, "
		      "in order, once, byte for byte", sh->who, total,
		      job.size - 1);
		/* One remote event per message, named by its sender */
		deadline = now() + EVENT_TIMEOUT_S;
		do {
			drain_remote();
			left = 0;
			for (r = 1; r < job.size; r++)
				left += remote_events[r] < total;
		} while (left && now() < deadline);
		for (r = 1, bad = 0; r < job.size; r++)
			bad += lenient_events ? remote_events[r] < total :
			       remote_events[r] != total;
		check(!bad && !remote_events[0], "%s: %u remote SMSG events "
		      "from each rank, inst_id its rank", sh->who, total);
		free(next);
	}
	free(buf);
}

/* 4: what the calls refuse */
static void refusals(const struct shape *sh)
{
	gni_smsg_attr_t a;
	gni_ep_handle_t ep;
	gni_return_t rc;
	uint8_t buf[16] = { 0 };
	void *msg;
	int peer = job.rank ? 0 : 1;

	rc = GNI_SmsgSend(eps[peer], buf, 8, buf, sh->maxsize, 1);
	check(rc == GNI_RC_INVALID_PARAM, "a message past msg_maxsize: %s",
	      rc_str(rc));
	rc = GNI_SmsgRelease(eps[peer]);
	check(rc == GNI_RC_NOT_DONE, "GNI_SmsgRelease with no message "
	      "taken: %s", rc_str(rc));
	rc = GNI_EpCreate(job.nic, job.cq, &ep);
	if (rc == GNI_RC_SUCCESS) {
		rc = GNI_SmsgGetNext(ep, &msg);
		check(rc == GNI_RC_INVALID_STATE, "GNI_SmsgGetNext without "
		      "GNI_SmsgInit: %s", rc_str(rc));
		attr_of(sh, &a);
		a.msg_buffer = region;
		a.buff_size = mbox_bytes;
		a.mem_hndl = region_mh;
		rc = GNI_SmsgInit(ep, &a, &a);
		check(rc == GNI_RC_INVALID_STATE, "GNI_SmsgInit on an unbound "
		      "endpoint: %s", rc_str(rc));
		GNI_EpDestroy(ep);
	}
}

/* 5: rank 1's mailboxes go; rank 0's connection to it breaks */
static void broken(void)
{
	double deadline = now() + EVENT_TIMEOUT_S;
	gni_cq_entry_t e = 0;
	gni_return_t rc;
	uint8_t buf[8] = { 0 };
	void *msg;

	if (job.rank == 1) {
		rc = GNI_MemDeregister(job.nic, &region_mh);
		region_gone = rc == GNI_RC_SUCCESS;
		check(region_gone, "rank 1's mailboxes deregistered: %s",
		      rc_str(rc));
	}
	barrier();
	if (job.rank == 0) {
		GNI_SmsgSetMaxRetrans(job.nic, 2);
		rc = GNI_SmsgSend(eps[1], buf, 8, NULL, 0, 77);
		check(rc == GNI_RC_SUCCESS, "a message to the gone mailbox is "
		      "taken: %s", rc_str(rc));
		do {
			rc = GNI_CqGetEvent(job.cq, &e);
		} while (rc == GNI_RC_NOT_DONE && now() < deadline);
		check(rc == GNI_RC_TRANSACTION_ERROR &&
		      GNI_CQ_GET_TYPE(e) == GNI_CQ_EVENT_TYPE_SMSG &&
		      GNI_CQ_GET_MSG_ID(e) == 77,
		      "after 2 retransmissions its local event: %s, type "
		      "%llu, msg_id %llu", rc_str(rc),
		      (unsigned long long)GNI_CQ_GET_TYPE(e),
		      (unsigned long long)GNI_CQ_GET_MSG_ID(e));
		rc = GNI_SmsgSend(eps[1], buf, 8, NULL, 0, 78);
		check(rc == GNI_RC_INVALID_STATE, "GNI_SmsgSend on the broken "
		      "connection: %s", rc_str(rc));
		rc = GNI_SmsgGetNext(eps[1], &msg);
		check(rc == GNI_RC_INVALID_STATE, "GNI_SmsgGetNext on the "
		      "broken connection: %s", rc_str(rc));
		GNI_SmsgSetMaxRetrans(job.nic, 10);
	}
	barrier();
}

int main(int argc, char **argv)
{
	bool stream_only = argc > 1 && !strcmp(argv[1], "--stream-only");
	unsigned int k, n = stream_only ? 1 : ARRAY_SIZE(shapes), round;
	unsigned int rounds = 1;
	gni_return_t rc;

	if (stream_only && argc > 2)
		rounds = (unsigned int)strtoul(argv[2], NULL, 10);
	if (!rounds || rounds > 10000) {
		fprintf(stderr, "usage: ugni_smsg [--stream-only [ROUNDS]]\n");
		return 2;
	}
	lenient_events = rounds > 1;

	job_init("ugni_smsg", 2);
	if (job.size > (int)ARRAY_SIZE(remote_events))
		job_bail("too many ranks");
	rc = GNI_CqCreate(job.nic, RCQ_ENTRIES, 0, GNI_CQ_NOBLOCK, NULL, NULL,
			  &rcq);
	if (!check(rc == GNI_RC_SUCCESS, "the remote-event CQ: %s",
		   rc_str(rc)))
		job_bail("no CQ");
	for (k = 0; k < n; k++) {
		const struct shape *sh = &shapes[k];

		connect_all(sh);
		if (!stream_only) {
			/* LND's sizes are UCX's: a third of them */
			ping_pong(sh, 1, k == 0 ? 7 : k == 3 ? 3 : 1);
			barrier();
			if (job.size > 2)
				ping_pong(sh, job.size - 1, 61);
			barrier();
		}
		for (round = 0; round < rounds; round++) {
			stream_to_zero(sh);
			barrier();
		}
		if (!stream_only && k == 0) {
			refusals(sh);
			broken();
		}
		disconnect_all();
	}
	{
		uint32_t sent_again = 0;

		GNI_GetNicStat(job.nic, GNI_STAT_SMSG_RETRANS_COUNT,
			       &sent_again);
		diag("messages sent again (GNI_STAT_SMSG_RETRANS_COUNT): %u",
		     sent_again);
	}
	GNI_CqDestroy(rcq);
	job_fini();
	return job_finish();
}
