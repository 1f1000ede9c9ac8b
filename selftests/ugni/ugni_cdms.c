// SPDX-License-Identifier: GPL-2.0-only
/*
 * ugni_cdms: two uGNI clients in one process, as when Open MPI's btl/ugni
 * and UCX (or a one-sided library) run side by side.  Each rank holds two
 * communication domains on the job's ptag and cookie with different
 * instance ids: side 0 as Open MPI names its CDM (the pid shifted left
 * by 8), side 1 as UCX does (the rank).  Each side has its own NIC
 * handle, CQs, mailboxes, data buffer and endpoints to the matching side
 * of every other rank, connected by its own datagrams.
 *
 * Every round, on both sides interleaved: an SMSG message to the next
 * rank (sizes and tags differ by side), an FMA PUT with a remote event,
 * an RDMA PUT, and an FMA GET from the next rank's published bytes.
 * Then each side takes its local events, its message from the rank
 * before and its remote events, and after a barrier checks its data
 * buffer byte for byte.  Nothing of one side may reach the other: an
 * event, a message, a datagram or a byte on the wrong side fails.
 *
 * usage: ugni_cdms [--rounds N]     (at least 2 ranks)
 */
#include "ugni_job.h"

#define SIDES		2
#define RCQ_ENTRIES	4096
#define CREDITS		16
#define MAXSIZE		512
#define FMA_LEN		256	/* FMA PUT and GET */
#define RDMA_MAX	(64 * 1024)
/* A rank's slot in the data buffer: FMA bytes, then RDMA bytes */
#define SLOT		(FMA_LEN + RDMA_MAX)
#define PUBLISHED	4096	/* what GETs read, after the slots */
#define DG_WAIT_MS	20000
#define MAGIC		0x43444d73u

/* Event data: which side, which rank, local or remote */
#define EVD(s, r, remote) ((uint32_t)(((s) + 1) << 20 | (remote) << 19 | (r)))

struct addr {
	uint32_t pe;
	uint32_t inst[SIDES];
};

/* What a side tells its peer's matching side in a datagram */
struct dg_info {
	uint32_t magic, side, rank, pad;
	uint64_t mbox_addr;
	uint64_t data_addr;
	gni_mem_handle_t mbox_mh;
	gni_mem_handle_t data_mh;
};

struct side {
	int s;
	uint32_t inst;
	gni_cdm_handle_t cdm;
	gni_nic_handle_t nic;
	gni_cq_handle_t cq;	/* local events */
	gni_cq_handle_t rcq;	/* remote events: mailboxes and data */
	gni_ep_handle_t *ep;	/* by rank; none to itself */
	struct dg_info *peer;	/* by rank, from the datagrams */
	uint8_t *mbox;
	gni_mem_handle_t mbox_mh;
	unsigned int mbox_bytes;
	uint8_t *data;		/* job.size slots, then PUBLISHED */
	gni_mem_handle_t data_mh;
	uint8_t *src;		/* what this side sends: FMA_LEN + RDMA_MAX */
	uint8_t *got;		/* where its GETs land */
	gni_mem_handle_t src_mh, got_mh;
	gni_post_descriptor_t fma_put, rdma_put, fma_get;
	unsigned int local_smsg, local_posts, messages, remote_events;
	unsigned int crossed;	/* another side's event, message or byte */
};

static struct side side[SIDES];
static struct addr *addrs;
static int right, left;

static uint8_t pat(int s, int rank, uint32_t round, uint32_t i)
{
	return (uint8_t)((s + 1) * 97 + rank * 31 + round * 7 + i * 13 +
			 (i >> 8));
}

static void smsg_attr(struct side *sd, gni_smsg_attr_t *a)
{
	memset(a, 0, sizeof(*a));
	a->msg_type = GNI_SMSG_TYPE_MBOX_AUTO_RETRANSMIT;
	a->mbox_maxcredit = CREDITS;
	a->msg_maxsize = MAXSIZE;
	a->msg_buffer = sd->mbox;
	a->buff_size = sd->mbox_bytes * job.size;
	a->mem_hndl = sd->mbox_mh;
}

/* Side 1 is the job's CDM (inst = rank); side 0 a second one. */
static void side_open(struct side *sd, int s)
{
	gni_return_t rc;
	uint32_t pe;

	sd->s = s;
	if (s == 1) {
		sd->inst = (uint32_t)job.rank;
		sd->cdm = job.cdm;
		sd->nic = job.nic;
		sd->cq = job.cq;
	} else {
		sd->inst = (uint32_t)getpid() << 8;
		rc = GNI_CdmCreate(sd->inst, job.ptag, job.cookie, 0, &sd->cdm);
		if (rc == GNI_RC_SUCCESS)
			rc = GNI_CdmAttach(sd->cdm, job.dev_id, &pe, &sd->nic);
		if (rc == GNI_RC_SUCCESS)
			rc = GNI_CqCreate(sd->nic, LOCAL_CQ_ENTRIES, 0,
					  GNI_CQ_NOBLOCK, NULL, NULL, &sd->cq);
		if (!check(rc == GNI_RC_SUCCESS && pe == job.addr,
			   "a second CDM (inst 0x%x) on the job's ptag and "
			   "cookie, attached and with a CQ: %s, address 0x%x",
			   sd->inst, rc_str(rc), pe))
			job_bail("no second CDM");
	}
	rc = GNI_CqCreate(sd->nic, RCQ_ENTRIES, 0, GNI_CQ_NOBLOCK, NULL, NULL,
			  &sd->rcq);
	if (!check(rc == GNI_RC_SUCCESS, "side %d: its remote-event CQ: %s",
		   s, rc_str(rc)))
		job_bail("no CQ");
}

static void side_memory(struct side *sd)
{
	gni_smsg_attr_t a;
	unsigned int size = 0;
	size_t data_len = (size_t)SLOT * job.size + PUBLISHED;
	uint32_t i;

	smsg_attr(sd, &a);
	if (GNI_SmsgBufferSizeNeeded(&a, &size) != GNI_RC_SUCCESS)
		job_bail("GNI_SmsgBufferSizeNeeded");
	sd->mbox_bytes = (size + 63) & ~63u;
	sd->mbox = alloc_aligned(PAGE, (size_t)sd->mbox_bytes * job.size);
	memset(sd->mbox, 0, (size_t)sd->mbox_bytes * job.size);
	sd->mbox_mh = reg(sd->nic, sd->mbox, (uint64_t)sd->mbox_bytes *
			  job.size, sd->rcq, GNI_MEM_READWRITE,
			  "a side's mailboxes");
	sd->data = alloc_aligned(PAGE, data_len);
	memset(sd->data, 0, data_len);
	for (i = 0; i < PUBLISHED; i++)
		sd->data[SLOT * job.size + i] = pat(sd->s, job.rank, 9999, i);
	sd->data_mh = reg(sd->nic, sd->data, data_len, sd->rcq,
			  GNI_MEM_READWRITE, "a side's data buffer");
	sd->src = alloc_aligned(PAGE, SLOT);
	sd->got = alloc_aligned(PAGE, FMA_LEN);
	sd->src_mh = reg(sd->nic, sd->src, SLOT, NULL, GNI_MEM_READWRITE,
			 "a side's source buffer");
	sd->got_mh = reg(sd->nic, sd->got, FMA_LEN, NULL, GNI_MEM_READWRITE,
			 "a side's GET buffer");
}

/*
 * Endpoints to the matching side of every rank, and what each peer told
 * by datagram: both sides post all theirs before either waits.
 */
static void side_post_datagrams(struct side *sd, struct dg_info *out)
{
	gni_return_t rc;
	int r;

	sd->ep = calloc(job.size, sizeof(*sd->ep));
	sd->peer = calloc(job.size, sizeof(*sd->peer));
	if (!sd->ep || !sd->peer)
		job_bail("out of memory");
	for (r = 0; r < job.size; r++) {
		if (r == job.rank)
			continue;
		rc = GNI_EpCreate(sd->nic, sd->cq, &sd->ep[r]);
		if (rc == GNI_RC_SUCCESS)
			rc = GNI_EpBind(sd->ep[r], addrs[r].pe,
					addrs[r].inst[sd->s]);
		if (rc == GNI_RC_SUCCESS)
			rc = GNI_EpSetEventData(sd->ep[r],
						EVD(sd->s, r, 0),
						EVD(sd->s, job.rank, 1));
		out[r] = (struct dg_info){ MAGIC, sd->s, job.rank, 0,
			(uint64_t)(uintptr_t)sd->mbox,
			(uint64_t)(uintptr_t)sd->data, sd->mbox_mh,
			sd->data_mh };
		if (rc == GNI_RC_SUCCESS)
			rc = GNI_EpPostDataWId(sd->ep[r], &out[r],
					       sizeof(out[r]), &sd->peer[r],
					       sizeof(sd->peer[r]),
					       (uint64_t)sd->s << 32 | r);
		if (rc != GNI_RC_SUCCESS) {
			check(0, "side %d: endpoint and datagram to rank %d "
			      "(inst 0x%x): %s", sd->s, r, addrs[r].inst[sd->s],
			      rc_str(rc));
			job_bail("no endpoint");
		}
	}
}

/* Each side's datagrams, found by probing its own NIC only */
static void collect_datagrams(void)
{
	int want = (job.size - 1) * SIDES, got = 0, bad = 0, s;
	double deadline = now() + DG_WAIT_MS / 1000.0;
	gni_post_state_t st;
	uint32_t ra, rid;
	gni_return_t rc;
	uint64_t id;

	while (got < want && now() < deadline) {
		for (s = 0; s < SIDES; s++) {
			struct side *sd = &side[s];
			const struct dg_info *in;
			int r;

			rc = GNI_PostDataProbeById(sd->nic, &id);
			if (rc == GNI_RC_NO_MATCH)
				continue;
			r = (int)(uint32_t)id;
			if (rc != GNI_RC_SUCCESS || id >> 32 != (uint64_t)s ||
			    r < 0 || r >= job.size || r == job.rank) {
				check(0, "side %d: probe: %s, id 0x%" PRIx64
				      " is not one of its posts", s,
				      rc_str(rc), id);
				bad++;
				got++;
				continue;
			}
			rc = GNI_EpPostDataWaitById(sd->ep[r], id, DG_WAIT_MS,
						    &st, &ra, &rid);
			in = &sd->peer[r];
			if (rc != GNI_RC_SUCCESS || st != GNI_POST_COMPLETED ||
			    ra != addrs[r].pe || rid != addrs[r].inst[s] ||
			    in->magic != MAGIC || in->side != (uint32_t)s ||
			    in->rank != (uint32_t)r) {
				check(0, "side %d: datagram with rank %d: %s, "
				      "state %d, from (0x%x, 0x%x), says side "
				      "%u rank %u", s, r, rc_str(rc), st, ra,
				      rid, in->side, in->rank);
				bad++;
			}
			got++;
		}
		usleep(100);
	}
	if (!check(got == want && !bad, "both sides' datagrams with every "
		   "rank (%d of %d), each found on its own NIC and from the "
		   "peer's matching CDM", got, want))
		job_bail("not connected");
}

static void side_smsg_init(struct side *sd)
{
	gni_smsg_attr_t local, remote;
	gni_return_t rc;
	int r, ok = 1;

	for (r = 0; r < job.size; r++) {
		if (r == job.rank)
			continue;
		smsg_attr(sd, &local);
		local.mbox_offset = sd->mbox_bytes * r;
		remote = local;
		remote.msg_buffer = (void *)(uintptr_t)sd->peer[r].mbox_addr;
		remote.mem_hndl = sd->peer[r].mbox_mh;
		remote.mbox_offset = sd->mbox_bytes * job.rank;
		rc = GNI_SmsgInit(sd->ep[r], &local, &remote);
		if (rc != GNI_RC_SUCCESS) {
			check(0, "side %d: GNI_SmsgInit with rank %d: %s",
			      sd->s, r, rc_str(rc));
			ok = 0;
		}
	}
	check(ok, "side %d: SMSG with the %d other ranks", sd->s,
	      job.size - 1);
}

static uint32_t msg_size(int s)
{
	return s ? 200 : 24;
}

/* Round @k's traffic of side @sd to the next rank */
static void side_send(struct side *sd, uint32_t k, uint32_t rdma_len)
{
	const struct dg_info *p = &sd->peer[right];
	uint32_t hdr[4] = { MAGIC, sd->s, job.rank, k }, i;
	uint8_t body[MAXSIZE];
	double deadline = now() + EVENT_TIMEOUT_S;
	gni_return_t rc;

	for (i = 0; i < msg_size(sd->s); i++)
		body[i] = pat(sd->s, job.rank, k, i);
	do
		rc = GNI_SmsgSendWTag(sd->ep[right], hdr, sizeof(hdr), body,
				      msg_size(sd->s), k, 0x40 | sd->s);
	while (rc == GNI_RC_NOT_DONE && now() < deadline);
	if (rc != GNI_RC_SUCCESS)
		check(0, "side %d: round %u: GNI_SmsgSendWTag: %s", sd->s, k,
		      rc_str(rc));

	for (i = 0; i < SLOT; i++)
		sd->src[i] = pat(sd->s, job.rank, k, i);
	desc_rw(&sd->fma_put, GNI_POST_FMA_PUT, sd->src, &sd->src_mh,
		p->data_addr + (uint64_t)SLOT * job.rank, &p->data_mh,
		FMA_LEN);
	sd->fma_put.cq_mode |= GNI_CQMODE_REMOTE_EVENT;
	rc = GNI_PostFma(sd->ep[right], &sd->fma_put);
	if (rc != GNI_RC_SUCCESS)
		check(0, "side %d: round %u: FMA PUT: %s", sd->s, k,
		      rc_str(rc));

	desc_rw(&sd->rdma_put, GNI_POST_RDMA_PUT, sd->src + FMA_LEN,
		&sd->src_mh, p->data_addr + (uint64_t)SLOT * job.rank +
		FMA_LEN, &p->data_mh, rdma_len);
	rc = GNI_PostRdma(sd->ep[right], &sd->rdma_put);
	if (rc != GNI_RC_SUCCESS)
		check(0, "side %d: round %u: RDMA PUT of %u bytes: %s", sd->s,
		      k, rdma_len, rc_str(rc));

	memset(sd->got, 0, FMA_LEN);
	desc_rw(&sd->fma_get, GNI_POST_FMA_GET, sd->got, &sd->got_mh,
		p->data_addr + (uint64_t)SLOT * job.size +
		(k % 8) * 8, &p->data_mh, FMA_LEN);
	rc = GNI_PostFma(sd->ep[right], &sd->fma_get);
	if (rc != GNI_RC_SUCCESS)
		check(0, "side %d: round %u: FMA GET: %s", sd->s, k,
		      rc_str(rc));
}

/* Is @d one of @sd's descriptors? */
static int side_owns(const struct side *sd, const gni_post_descriptor_t *d)
{
	return d == &sd->fma_put || d == &sd->rdma_put || d == &sd->fma_get;
}

/* One local event of side @sd, checked; 1 if there was one. */
static int side_local(struct side *sd, uint32_t k)
{
	gni_post_descriptor_t *d = NULL;
	gni_cq_entry_t e;
	gni_return_t rc;
	uint64_t type;

	rc = GNI_CqGetEvent(sd->cq, &e);
	if (rc == GNI_RC_NOT_DONE)
		return 0;
	type = GNI_CQ_GET_TYPE(e);
	if (rc == GNI_RC_SUCCESS && type == GNI_CQ_EVENT_TYPE_SMSG &&
	    GNI_CQ_GET_MSG_ID(e) == k) {
		sd->local_smsg++;
		return 1;
	}
	if (rc == GNI_RC_SUCCESS && type == GNI_CQ_EVENT_TYPE_POST &&
	    GNI_CQ_GET_INST_ID(e) == EVD(sd->s, right, 0) &&
	    GNI_GetCompleted(sd->cq, e, &d) == GNI_RC_SUCCESS &&
	    side_owns(sd, d)) {
		sd->local_posts++;
		return 1;
	}
	sd->crossed++;
	check(0, "side %d: round %u: a local event not of its own: %s, type "
	      "%" PRIu64 ", data 0x%" PRIx64 " (want 0x%x), descriptor %p",
	      sd->s, k, rc_str(rc), type, (uint64_t)GNI_CQ_GET_INST_ID(e),
	      EVD(sd->s, right, 0), (void *)d);
	return 1;
}

/* Every remote event of side @sd so far: from the rank before, its side */
static void side_remote(struct side *sd, uint32_t k)
{
	gni_cq_entry_t e;
	gni_return_t rc;

	while ((rc = GNI_CqGetEvent(sd->rcq, &e)) != GNI_RC_NOT_DONE) {
		if (rc == GNI_RC_SUCCESS &&
		    GNI_CQ_GET_INST_ID(e) == EVD(sd->s, left, 1)) {
			sd->remote_events++;
			continue;
		}
		sd->crossed++;
		check(0, "side %d: round %u: a remote event not from its "
		      "side of rank %d: %s, data 0x%" PRIx64 " (want 0x%x)",
		      sd->s, k, left, rc_str(rc),
		      (uint64_t)GNI_CQ_GET_INST_ID(e), EVD(sd->s, left, 1));
	}
}

/* Side @sd's message of round @k from the rank before: 1 when taken */
static int side_message(struct side *sd, uint32_t k)
{
	uint8_t tag = GNI_SMSG_ANY_TAG, *p;
	uint32_t hdr[4], i;
	void *msg = NULL;
	gni_return_t rc;
	int ok;

	rc = GNI_SmsgGetNextWTag(sd->ep[left], &msg, &tag);
	if (rc == GNI_RC_NOT_DONE)
		return 0;
	if (rc != GNI_RC_SUCCESS) {
		check(0, "side %d: round %u: GNI_SmsgGetNextWTag: %s", sd->s,
		      k, rc_str(rc));
		return 1;
	}
	p = msg;
	memcpy(hdr, p, sizeof(hdr));
	ok = hdr[0] == MAGIC && hdr[1] == (uint32_t)sd->s &&
	     hdr[2] == (uint32_t)left && hdr[3] == k && tag == (0x40 | sd->s);
	for (i = 0; ok && i < msg_size(sd->s); i++)
		ok = p[sizeof(hdr) + i] == pat(sd->s, left, k, i);
	if (!ok) {
		sd->crossed++;
		check(0, "side %d: round %u: message (magic 0x%x, side %u, "
		      "rank %u, round %u, tag 0x%x), want (side %d, rank %d, "
		      "tag 0x%x), or its bytes differ at %u", sd->s, k, hdr[0],
		      hdr[1], hdr[2], hdr[3], tag, sd->s, left, 0x40 | sd->s,
		      i);
	}
	rc = GNI_SmsgRelease(sd->ep[left]);
	if (rc != GNI_RC_SUCCESS)
		check(0, "side %d: GNI_SmsgRelease: %s", sd->s, rc_str(rc));
	sd->messages++;
	return 1;
}

/* Both sides' local events and messages of round @k: 1 if all came */
static int take_round(uint32_t k)
{
	double deadline = now() + EVENT_TIMEOUT_S;
	int s, done, spins = 0;

	for (s = 0; s < SIDES; s++)
		side[s].local_smsg = side[s].local_posts = side[s].messages = 0;
	for (;;) {
		done = 1;
		for (s = 0; s < SIDES; s++) {
			struct side *sd = &side[s];

			while (side_local(sd, k))
				;
			if (!sd->messages)
				side_message(sd, k);
			side_remote(sd, k);
			done &= sd->local_smsg >= 1 && sd->local_posts >= 3 &&
				sd->messages >= 1;
		}
		if (done)
			return 1;
		if (now() > deadline)
			break;
		if (++spins > 256)
			usleep(20);
	}
	for (s = 0; s < SIDES; s++)
		check(0, "side %d: round %u: local SMSG events %u of 1, post "
		      "events %u of 3, messages %u of 1", s, k,
		      side[s].local_smsg, side[s].local_posts,
		      side[s].messages);
	return 0;
}

/* After a barrier: what the rank before wrote, what this rank read */
static void check_data(uint32_t k, uint32_t rdma_len)
{
	int s;
	uint32_t i;

	for (s = 0; s < SIDES; s++) {
		struct side *sd = &side[s];
		const uint8_t *slot = sd->data + (size_t)SLOT * left;

		for (i = 0; i < FMA_LEN + rdma_len; i++)
			if (slot[i] != pat(s, left, k, i))
				break;
		if (i < FMA_LEN + rdma_len) {
			sd->crossed++;
			check(0, "side %d: round %u: rank %d's PUTs: byte %u is "
			      "0x%02x, want 0x%02x", s, k, left, i, slot[i],
			      pat(s, left, k, i));
		}
		for (i = 0; i < FMA_LEN; i++)
			if (sd->got[i] != pat(s, right, 9999, (k % 8) * 8 + i))
				break;
		if (i < FMA_LEN) {
			sd->crossed++;
			check(0, "side %d: round %u: GET from rank %d: byte %u "
			      "is 0x%02x, want 0x%02x", s, k, right, i,
			      sd->got[i], pat(s, right, 9999, (k % 8) * 8 + i));
		}
	}
}

static void side_close(struct side *sd)
{
	gni_return_t rc, bad = GNI_RC_SUCCESS;
	int r;

	for (r = 0; r < job.size; r++) {
		if (r == job.rank)
			continue;
		rc = GNI_EpUnbind(sd->ep[r]);
		if (rc == GNI_RC_SUCCESS)
			rc = GNI_EpDestroy(sd->ep[r]);
		if (rc != GNI_RC_SUCCESS)
			bad = rc;
	}
	if (bad == GNI_RC_SUCCESS)
		bad = GNI_MemDeregister(sd->nic, &sd->mbox_mh);
	if (bad == GNI_RC_SUCCESS)
		bad = GNI_MemDeregister(sd->nic, &sd->data_mh);
	if (bad == GNI_RC_SUCCESS)
		bad = GNI_MemDeregister(sd->nic, &sd->src_mh);
	if (bad == GNI_RC_SUCCESS)
		bad = GNI_MemDeregister(sd->nic, &sd->got_mh);
	if (bad == GNI_RC_SUCCESS)
		bad = GNI_CqDestroy(sd->rcq);
	if (sd->s == 0) {
		if (bad == GNI_RC_SUCCESS)
			bad = GNI_CqDestroy(sd->cq);
		if (bad == GNI_RC_SUCCESS)
			bad = GNI_CdmDestroy(sd->cdm);
	}
	check(bad == GNI_RC_SUCCESS, "side %d: endpoints, registrations, "
	      "CQs%s released: %s", sd->s, sd->s ? "" : " and CDM",
	      rc_str(bad));
}

int main(int argc, char **argv)
{
	static struct dg_info *out[SIDES];
	unsigned int rounds = 100;
	struct addr mine;
	uint32_t k, len;
	int s, ok;
	double t0;

	if (argc == 3 && !strcmp(argv[1], "--rounds"))
		rounds = (unsigned int)strtoul(argv[2], NULL, 10);
	else if (argc != 1)
		rounds = 0;
	if (!rounds || rounds > 100000) {
		fprintf(stderr, "usage: ugni_cdms [--rounds N]\n");
		return 2;
	}
	job_init("ugni_cdms", 2);
	right = (job.rank + 1) % job.size;
	left = (job.rank + job.size - 1) % job.size;
	for (s = 0; s < SIDES; s++)
		side_open(&side[s], s);

	mine.pe = job.addr;
	for (s = 0; s < SIDES; s++)
		mine.inst[s] = side[s].inst;
	addrs = calloc(job.size, sizeof(*addrs));
	if (!addrs)
		job_bail("out of memory");
	allgather(&mine, addrs, sizeof(mine));

	for (s = 0; s < SIDES; s++) {
		side_memory(&side[s]);
		out[s] = calloc(job.size, sizeof(*out[s]));
		if (!out[s])
			job_bail("out of memory");
	}
	for (s = 0; s < SIDES; s++)
		side_post_datagrams(&side[s], out[s]);
	collect_datagrams();
	for (s = 0; s < SIDES; s++)
		side_smsg_init(&side[s]);
	barrier();

	t0 = now();
	for (k = 0; k < rounds; k++) {
		len = 8u << (k % 14);	/* 8 B .. 64 KiB */
		for (s = 0; s < SIDES; s++)
			side_send(&side[s], k, len);
		ok = take_round(k);
		barrier();
		check_data(k, len);
		barrier();
		if (!ok || side[0].crossed || side[1].crossed)
			break;
	}
	/* Remote events may trail their data: take the last ones. */
	barrier();
	for (s = 0; s < SIDES; s++)
		side_remote(&side[s], k);
	for (s = 0; s < SIDES; s++)
		check(k == rounds && !side[s].crossed &&
		      side[s].remote_events >= 2 * rounds,
		      "side %d: %u rounds of SMSG, FMA PUT, RDMA PUT (8 B .. "
		      "64 KiB) and FMA GET beside the other side: every event, "
		      "message and byte its own (%u remote events)", s, k,
		      side[s].remote_events);
	diag("bench: cdms round: %.1f us (%d ranks, both sides)",
	     (now() - t0) * 1e6 / (k ? k : 1), job.size);
	barrier();
	for (s = 0; s < SIDES; s++)
		side_close(&side[s]);
	job_fini();
	return job_finish();
}
