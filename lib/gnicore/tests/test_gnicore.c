// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Host tests of gnicore (lib/gnicore/), TAP, with no device and no
 * libugni: the FMA descriptor's pages, the CQ's ring and page and the
 * mailboxes are plain memory, so every store a post makes can be read
 * back, and the test plays the device by writing CQ entries.  The request
 * table (order, exhaustion, release, forgotten endpoints), gni_wire.h's
 * CQ entry fields and SMSG arithmetic, the CQ ring (order, wrap, read
 * index, local_event, the client's requests, dropped credit errors),
 * GNI_GetCompleted's bookkeeping, the stores and event data of an FMA
 * PUT, the request of an RDMA post, and SMSG sends, credits, the read of
 * the count, receives and retransmission, and where nothing may wait
 * (the kernel) owed credit returns.  libugni's tests
 * (lib/ugni/tests/) drive the same code through the API.
 */
#include <stdlib.h>
#include <string.h>

#include "gnicore.h"
#include "tap.h"

#define PEER_PE		0x2345
#define LOCAL_EVENT	0x1111
#define REMOTE_EVENT	0x2222
#define RVA		0x7f0000100000ull	/* the peer's registration */
#define WINDOW		(64 * 1024)
#define RING		8
#define PAGE		4096

/* A NIC with one CQ, its FMA descriptor, and an endpoint bound to a peer */
struct env {
	struct gnicore_nic nic;
	struct gnicore_cq cq;
	struct gnicore_fma fma;
	struct gnicore_ep ep;
	uint64_t ring[RING];
	uint32_t wr;			/* the device's next slot */
	uint64_t cq_page[PAGE / 8];
	uint64_t fma_page[PAGE / 8];
	uint8_t *put, *get;		/* the FMA windows */
	uint8_t *buf;			/* local memory, 4 pages */
	gni_mem_handle_t lmh;		/* buf's registration */
	gni_mem_handle_t rmh;		/* the peer's: RVA, 16 pages */
};

/* Whether gnicore may wait for the FMA descriptor (false: the kernel's) */
bool gnicore_test_nowait;

/* The last RDMA post, and what the next one returns */
static struct kgni_rdma_post rdma_last;
static unsigned int rdma_posts;
static gni_return_t rdma_rc = GNI_RC_SUCCESS;

gni_return_t gnicore_env_rdma_post(struct gnicore_ep *ep,
				   struct kgni_rdma_post *r)
{
	(void)ep;
	rdma_last = *r;
	rdma_posts++;
	return rdma_rc;
}

/* A handle of @npages pages at @va with MDH @mdh, its CRC right */
static gni_mem_handle_t handle(uint64_t va, uint32_t mdh, uint32_t npages)
{
	gni_mem_handle_t h = {
		.qword1 = va >> GEMINI_MH_VA_SHIFT |
			  (uint64_t)mdh << GEMINI_MH_MDH_SHIFT,
		.qword2 = npages | 12ull << GEMINI_MH_PSIZE_SHIFT,
	};

	h.qword2 |= (uint64_t)gnicore_memhndl_crc(&h) << GEMINI_MH_CRC_SHIFT;
	return h;
}

static void env_init(struct env *e, uint32_t nreqs)
{
	memset(e, 0, sizeof(*e));
	CHECK_EQ(gnicore_nic_init(&e->nic, nreqs, GNI_CDM_MODE_DUAL_EVENTS),
		 GNI_RC_SUCCESS);
	gnicore_cq_init(&e->cq, &e->nic, 77, RING);
	e->cq.ring = e->ring;
	e->cq.user = e->cq_page;
	gnicore_fma_init(&e->fma, &e->cq);
	e->put = calloc(1, WINDOW);
	e->get = calloc(1, WINDOW);
	e->fma.user = e->fma_page;
	e->fma.put = e->put;
	e->fma.get = e->get;
	e->ep.nic = &e->nic;
	e->ep.cq = &e->cq;
	e->ep.fma = &e->fma;
	e->ep.remote_pe = PEER_PE;
	e->ep.local_event = LOCAL_EVENT;
	e->ep.remote_event = REMOTE_EVENT;
	e->ep.bound = true;
	e->buf = aligned_alloc(PAGE, 4 * PAGE);
	memset(e->buf, 0, 4 * PAGE);
	e->lmh = handle((uint64_t)(uintptr_t)e->buf, 301, 4);
	e->rmh = handle(RVA, 300, 16);
}

static void env_fini(struct env *e)
{
	gnicore_smsg_fini(&e->ep);
	gnicore_fma_fini(&e->fma);
	gnicore_cq_fini(&e->cq);
	gnicore_nic_fini(&e->nic);
	free(e->put);
	free(e->get);
	free(e->buf);
}

/* The device writes @entry into the next slot of @e's ring */
static void device_event(struct env *e, uint64_t entry)
{
	e->ring[e->wr] = entry;
	e->wr = (e->wr + 1) % RING;
}

/* The device ends the sequence the last sync closed, with @status */
static void sync_ends(struct env *e, unsigned int status)
{
	uint64_t v = e->fma_page[GEMINI_FMA_QW_SYNCCMP / 8];

	device_event(e, GEMINI_CQE(GEMINI_CQE_SRC_SSID_SREQ, status,
				   v & GEMINI_FMA_SYNC_DATA_MASK));
}

/*
 * The device's counts of @e's descriptor change to @status.  Only the
 * descriptor's own posts raise them on a NIC, and gnicore posts without
 * reading them while what it posted since its last read leaves room
 * (fma_throttle_share()): a count raised behind its back is read at once
 * only if gnicore forgets its bound.
 */
static void set_status(struct env *e, uint64_t status)
{
	e->fma_page[GEMINI_FMA_QW_STATUS / 8] = status;
	e->fma.seen_valid = false;
}

static unsigned int sync_type(const struct env *e)
{
	return (unsigned int)(e->fma_page[GEMINI_FMA_QW_SYNCCMP / 8] >>
			      GEMINI_FMA_SYNC_TYPE_SHIFT);
}

static void test_req_table(void)
{
	gni_post_descriptor_t d;
	struct env e;
	int t[5], i;

	CHECK_EQ(gnicore_nic_init(&e.nic, 0, 0), GNI_RC_INVALID_PARAM);
	CHECK_EQ(gnicore_nic_init(&e.nic, UGNI_TID_NONE + 1, 0),
		 GNI_RC_INVALID_PARAM);
	env_init(&e, 4);
	CHECK_EQ(e.nic.nfree, 4);
	CHECK_EQ(e.nic.smsg_max_retrans, FMA_SMSG_MAX_RETRANS_DEFAULT);
	for (i = 0; i < 5; i++)
		t[i] = gnicore_req_alloc(&e.nic, &d, &e.ep, 3);
	/* The lowest first, then none */
	CHECK(t[0] == 0 && t[1] == 1 && t[2] == 2 && t[3] == 3);
	CHECK_EQ(t[4], -1);
	CHECK_EQ(e.nic.nfree, 0);
	CHECK(e.nic.req[2].used && e.nic.req[2].desc == &d &&
	      e.nic.req[2].ep == &e.ep && e.nic.req[2].want == 3 &&
	      e.nic.req[2].local_event == LOCAL_EVENT);
	gnicore_req_free(&e.nic, 2);
	CHECK(!e.nic.req[2].used && !e.nic.req[2].desc);
	CHECK_EQ(gnicore_req_alloc(&e.nic, NULL, &e.ep, 0), 2);
	gnicore_req_forget_ep(&e.nic, &e.ep);
	for (i = 0; i < 4; i++)
		CHECK(e.nic.req[i].used && !e.nic.req[i].ep);
	env_fini(&e);
	tap_test_end("request table: tids lowest first, -1 when all 4 are "
		     "taken, a freed one comes back, an endpoint forgotten");
}

static void test_cqe_fields(void)
{
	uint64_t data = ugni_cqe_data(GNI_CQ_EVENT_TYPE_SMSG, 0x89abcdefu,
				      0x1234);
	uint64_t e = GEMINI_CQE(GEMINI_CQE_SRC_SSID_SREQ, 0xb,
				data | UGNI_CQE_LOCAL_FLAG);

	CHECK_EQ(data, 1ull << 54 | 0x89abcdefull << 16 | 0x1234);
	CHECK_EQ(ugni_cqe_type(e), GNI_CQ_EVENT_TYPE_SMSG);
	CHECK_EQ(ugni_cqe_id(e), 0x89abcdefu);
	CHECK_EQ(ugni_cqe_tid(e), 0x1234);
	CHECK_EQ(ugni_cqe_source(e), GEMINI_CQE_SRC_SSID_SREQ);
	CHECK_EQ(ugni_cqe_status(e), 0xb);
	CHECK(ugni_cqe_local(e));
	CHECK(ugni_cqe_local(GEMINI_CQE(GEMINI_CQE_SRC_BTE, 0, 0)));
	CHECK(!ugni_cqe_local(GEMINI_CQE(GEMINI_CQE_SRC_RMT_SREQ, 0, 0)));
	CHECK(!ugni_cqe_local(0));
	ugni_cqe_set_field(&e, UGNI_CQE_ID_SHIFT, UGNI_CQE_ID_MASK,
			   0x1ffffffffull);
	CHECK_EQ(ugni_cqe_id(e), 0xffffffffu);
	CHECK_EQ(ugni_cqe_tid(e), 0x1234);
	CHECK_EQ(ugni_cqe_type(e), GNI_CQ_EVENT_TYPE_SMSG);
	CHECK(e & UGNI_CQE_LOCAL_FLAG);
	CHECK_EQ(gnicore_cqe_rc(e), GNI_RC_TRANSACTION_ERROR);
	CHECK_EQ(gnicore_cqe_rc(e | GEMINI_CQE_OVERRUN), GNI_RC_ERROR_RESOURCE);
	ugni_cqe_set_field(&e, GEMINI_CQE_STATUS_SHIFT, GEMINI_CQE_STATUS_MASK,
			   0);
	CHECK_EQ(gnicore_cqe_rc(e), GNI_RC_SUCCESS);
	CHECK_EQ(ugni_cqe_source(e), GEMINI_CQE_SRC_SSID_SREQ);
	tap_test_end("gni_wire.h CQ entry: type, id, tid, source, status "
		     "round-trip, the LOCAL flag apart; the result code");
}

/* GNI_CqErrorStr's text, the bytes it needs, and a buffer one short */
static void test_cq_error_str(void)
{
	uint64_t e = GEMINI_CQE(GEMINI_CQE_SRC_SSID_SREQ, 0xb, 0);
	char text[128], short_buf[128];
	uint32_t len = gnicore_cq_error_len(e);

	CHECK_EQ(gnicore_cq_error_str(e, text, sizeof(text)), GNI_RC_SUCCESS);
	CHECK_EQ(len, strlen(text) + 1);
	CHECK(strchr(text, ':'));
	memset(short_buf, 'x', sizeof(short_buf));
	CHECK_EQ(gnicore_cq_error_str(e, short_buf, len - 1),
		 GNI_RC_SIZE_ERROR);
	CHECK_EQ(short_buf[0], 'x');
	CHECK_EQ(gnicore_cq_error_str(e, short_buf, len), GNI_RC_SUCCESS);
	CHECK(!strcmp(short_buf, text));
	CHECK_EQ(gnicore_cq_error_str(e, NULL, len), GNI_RC_INVALID_PARAM);
	tap_test_end("CQ error text: what gnicore_cq_error_len() says it "
		     "needs is enough, a byte less is SIZE_ERROR, untouched");
}

static void test_smsg_layout(void)
{
	uint64_t flag = ugni_smsg_flag(7, 0xab);

	CHECK_EQ(UGNI_SMSG_SLOT(8192), 8256);
	CHECK_EQ(UGNI_SMSG_SLOT(48), 64);
	CHECK_EQ(UGNI_SMSG_SLOT(49), 128);
	CHECK_EQ(ugni_smsg_mbox_size(32, 8192), 64 + 32 * 8256);
	CHECK_EQ(ugni_smsg_slot(1, 4), 0);
	CHECK_EQ(ugni_smsg_slot(4, 4), 3);
	CHECK_EQ(ugni_smsg_slot(5, 4), 0);
	CHECK_EQ(ugni_smsg_slot_offset(3, 128), 64 + 3 * 128);
	CHECK_EQ(flag, 7ull << 32 | 0xab00 | UGNI_SMSG_MAGIC);
	CHECK(ugni_smsg_flag_is(flag, 7));
	CHECK(!ugni_smsg_flag_is(flag, 6) && !ugni_smsg_flag_is(0, 0));
	CHECK(!ugni_smsg_flag_is(flag ^ 1, 7));
	CHECK_EQ(ugni_smsg_flag_tag(flag), 0xab);
	CHECK_EQ(ugni_smsg_lengths(5, 9), 9ull << 32 | 5);
	CHECK_EQ(ugni_smsg_put_length(ugni_smsg_lengths(5, 9)), 8 + 5 + 9);
	tap_test_end("gni_wire.h SMSG mailbox: slot and mailbox sizes, the "
		     "slot of a message, flags, lengths");
}

static void test_cq_take(void)
{
	gni_post_descriptor_t d = { .cq_mode = GNI_CQMODE_GLOBAL_EVENT }, *got;
	uint64_t ev = 0;
	void *client;
	struct env e;
	int tid, i;

	env_init(&e, 4);
	CHECK_EQ(gnicore_cq_take(&e.cq, &ev, &client), GNI_RC_NOT_DONE);
	CHECK_EQ(gnicore_cq_test(&e.cq), GNI_RC_NOT_DONE);
	/* A remote event as it came; a local one shows local_event */
	device_event(&e, GEMINI_CQE(GEMINI_CQE_SRC_RMT_SREQ, 0,
				    ugni_cqe_data(0, 55, UGNI_TID_NONE)));
	tid = gnicore_req_alloc(&e.nic, &d, &e.ep, 0);
	device_event(&e, GEMINI_CQE(GEMINI_CQE_SRC_SSID_SREQ, 0,
				    ugni_cqe_data(0, REMOTE_EVENT, tid)));
	CHECK_EQ(gnicore_cq_test(&e.cq), GNI_RC_SUCCESS);
	CHECK_EQ(gnicore_cq_take(&e.cq, &ev, &client), GNI_RC_SUCCESS);
	CHECK(!client && ugni_cqe_id(ev) == 55);
	CHECK_EQ(e.ring[0], 0);
	CHECK_EQ(e.cq_page[GEMINI_CQ_READ_INDEX_OFFSET / 8], 1);
	CHECK_EQ(gnicore_cq_take(&e.cq, &ev, &client), GNI_RC_SUCCESS);
	CHECK_EQ(ugni_cqe_id(ev), LOCAL_EVENT);
	CHECK(e.nic.req[tid].used);	/* GNI_GetCompleted frees a post's */
	/* A failed credit return goes; a client's request comes back */
	device_event(&e, GEMINI_CQE(GEMINI_CQE_SRC_SSID_SREQ, 0xb,
				    ugni_cqe_data(GNI_CQ_EVENT_TYPE_SMSG, 0,
						  UGNI_TID_NONE)));
	i = gnicore_req_alloc(&e.nic, NULL, &e.ep, 0);
	e.nic.req[i].client = &e;
	e.nic.req[i].local_event = 99;
	device_event(&e, GEMINI_CQE(GEMINI_CQE_SRC_SSID_SREQ, 0xb,
				    ugni_cqe_data(GNI_CQ_EVENT_TYPE_MSGQ, 0,
						  i)));
	CHECK_EQ(gnicore_cq_take(&e.cq, &ev, &client),
		 GNI_RC_TRANSACTION_ERROR);
	CHECK(client == &e && ugni_cqe_id(ev) == 99 && !e.nic.req[i].used);
	CHECK_EQ(gnicore_cq_take(&e.cq, &ev, &client), GNI_RC_NOT_DONE);
	CHECK_EQ(e.cq_page[GEMINI_CQ_READ_INDEX_OFFSET / 8], 4);
	/* Around the ring, and an overrun */
	for (i = 0; i < RING; i++) {
		device_event(&e, GEMINI_CQE(GEMINI_CQE_SRC_RMT_SREQ, 0, i));
		CHECK_EQ(gnicore_cq_take(&e.cq, &ev, &client), GNI_RC_SUCCESS);
		CHECK_EQ(ev & GEMINI_CQE_DATA_MASK, (uint64_t)i);
	}
	CHECK_EQ(e.cq.rd, 4);
	device_event(&e, GEMINI_CQE_OVERRUN |
		     GEMINI_CQE(GEMINI_CQE_SRC_RMT_SREQ, 0, 0));
	CHECK_EQ(gnicore_cq_test(&e.cq), GNI_RC_ERROR_RESOURCE);
	CHECK_EQ(gnicore_cq_take(&e.cq, &ev, &client), GNI_RC_ERROR_RESOURCE);
	/*
	 * An SMSG send that did not go frees its tid; the RDMA post that
	 * gets it next keeps it until GNI_GetCompleted, whose descriptor
	 * comes back (a stale smsg_seq took the event for the message's).
	 */
	tid = gnicore_req_alloc(&e.nic, NULL, &e.ep, 0);
	e.nic.req[tid].smsg_seq = 5;
	gnicore_req_free(&e.nic, (uint32_t)tid);
	CHECK_EQ(gnicore_req_alloc(&e.nic, &d, &e.ep, GNI_CQMODE_GLOBAL_EVENT),
		 tid);
	device_event(&e, GEMINI_CQE(GEMINI_CQE_SRC_BTE, 0,
				    ugni_cqe_data(GNI_CQ_EVENT_TYPE_POST,
						  REMOTE_EVENT, tid)));
	CHECK_EQ(gnicore_cq_take(&e.cq, &ev, &client), GNI_RC_SUCCESS);
	CHECK(e.nic.req[tid].used);
	got = NULL;
	CHECK_EQ(gnicore_get_completed(&e.cq, ev, &got), GNI_RC_SUCCESS);
	CHECK(got == &d && !e.nic.req[tid].used);
	env_fini(&e);
	tap_test_end("CQ: events in order, each slot zeroed and the read "
		     "index written; local_event by tid; a failed credit return "
		     "dropped; a client's request handed back; wrap; overrun; "
		     "a post's event on a tid an unsent SMSG message freed");
}

static void test_get_completed(void)
{
	gni_post_descriptor_t d = { .cq_mode = GNI_CQMODE_GLOBAL_EVENT };
	gni_post_descriptor_t *got = &d;
	uint64_t ev;
	struct env e;
	int tid;

	env_init(&e, 4);
	ev = GEMINI_CQE(GEMINI_CQE_SRC_SSID_SREQ, 0,
			ugni_cqe_data(0, 0, UGNI_TID_NONE));
	CHECK_EQ(gnicore_get_completed(&e.cq, ev, &got),
		 GNI_RC_DESCRIPTOR_ERROR);
	CHECK(!got);
	ev = GEMINI_CQE(GEMINI_CQE_SRC_RMT_SREQ, 0, ugni_cqe_data(0, 0, 1));
	CHECK_EQ(gnicore_get_completed(&e.cq, ev, &got),
		 GNI_RC_DESCRIPTOR_ERROR);
	/* A tid not taken, and one past the table */
	ev = GEMINI_CQE(GEMINI_CQE_SRC_SSID_SREQ, 0, ugni_cqe_data(0, 0, 1));
	CHECK_EQ(gnicore_get_completed(&e.cq, ev, &got), GNI_RC_INVALID_PARAM);
	ev = GEMINI_CQE(GEMINI_CQE_SRC_SSID_SREQ, 0, ugni_cqe_data(0, 0, 9));
	CHECK_EQ(gnicore_get_completed(&e.cq, ev, &got), GNI_RC_INVALID_PARAM);
	/* An FMA post: its one event completes it */
	tid = gnicore_req_alloc(&e.nic, &d, &e.ep, 0);
	e.ep.outstanding = 1;
	ev = GEMINI_CQE(GEMINI_CQE_SRC_SSID_SREQ, 0, ugni_cqe_data(0, 0, tid));
	CHECK_EQ(gnicore_get_completed(&e.cq, ev, &got), GNI_RC_SUCCESS);
	CHECK(got == &d && d.status == GNI_RC_SUCCESS &&
	      d.cq_mode_complete == GNI_CQMODE_GLOBAL_EVENT);
	CHECK(!e.nic.req[tid].used && !e.ep.outstanding);
	/* An RDMA post of dual events: LOCAL, then GLOBAL */
	d.cq_mode = GNI_CQMODE_DUAL_EVENTS;
	tid = gnicore_req_alloc(&e.nic, &d, &e.ep, GNI_CQMODE_DUAL_EVENTS);
	e.ep.outstanding = 1;
	ev = GEMINI_CQE(GEMINI_CQE_SRC_BTE, 0,
			ugni_cqe_data(0, 0, tid) | UGNI_CQE_LOCAL_FLAG);
	CHECK_EQ(gnicore_get_completed(&e.cq, ev, &got), GNI_RC_SUCCESS);
	CHECK(d.cq_mode_complete == GNI_CQMODE_LOCAL_EVENT &&
	      e.nic.req[tid].used && e.ep.outstanding == 1);
	ev &= ~UGNI_CQE_LOCAL_FLAG;
	CHECK_EQ(gnicore_get_completed(&e.cq, ev, &got), GNI_RC_SUCCESS);
	CHECK(d.cq_mode_complete == GNI_CQMODE_DUAL_EVENTS &&
	      !e.nic.req[tid].used && !e.ep.outstanding);
	/* A failed one: its one error event releases it */
	tid = gnicore_req_alloc(&e.nic, &d, &e.ep, GNI_CQMODE_DUAL_EVENTS);
	ev = GEMINI_CQE(GEMINI_CQE_SRC_BTE, 0xb, ugni_cqe_data(0, 0, tid));
	CHECK_EQ(gnicore_get_completed(&e.cq, ev, &got),
		 GNI_RC_TRANSACTION_ERROR);
	CHECK(d.status == GNI_RC_TRANSACTION_ERROR && !e.nic.req[tid].used);
	CHECK_EQ(e.nic.nfree, 4);
	env_fini(&e);
	tap_test_end("GetCompleted: no post (DESCRIPTOR_ERROR), unknown tids "
		     "(INVALID_PARAM), an FMA post, dual events, an error");
}

static void test_post_fma(void)
{
	static const uint8_t msg[13] = "gnicore PUT!";
	gni_post_descriptor_t d = {
		.type = GNI_POST_FMA_PUT, .cq_mode = GNI_CQMODE_LOCAL_EVENT,
		.remote_addr = RVA + 0x45, .length = sizeof(msg),
	}, *got = NULL;
	uint64_t data, ev;
	void *client;
	struct env e;

	env_init(&e, 4);
	d.local_addr = (uint64_t)(uintptr_t)msg;
	d.remote_mem_hndl = e.rmh;
	e.ep.bound = false;
	CHECK_EQ(gnicore_post_fma(&e.ep, &d), GNI_RC_INVALID_STATE);
	e.ep.bound = true;
	d.remote_mem_hndl.qword2 ^= 1ull << 60;
	CHECK_EQ(gnicore_post_fma(&e.ep, &d), GNI_RC_INVALID_PARAM);
	d.remote_mem_hndl = e.rmh;
	CHECK_EQ(sync_type(&e), 0);

	CHECK_EQ(gnicore_post_fma(&e.ep, &d), GNI_RC_SUCCESS);
	/* Base 0x40 of the peer's offset, the data at 5 in the window */
	CHECK_EQ(e.fma_page[GEMINI_FMA_QW_BASE_OFFSET / 8],
		 (uint64_t)PEER_PE << 40 | 0x40);
	CHECK_EQ(e.fma_page[GEMINI_FMA_QW_CMD / 8] >> GEMINI_FMA_REM_MDH_SHIFT &
		 GEMINI_FMA_MDH_MASK, 300);
	CHECK(!memcmp(e.put + 5, msg, sizeof(msg)) && !e.put[4] &&
	      !e.put[5 + sizeof(msg)]);
	data = ugni_cqe_data(GNI_CQ_EVENT_TYPE_POST, REMOTE_EVENT, 0);
	CHECK_EQ(e.fma_page[GEMINI_FMA_QW_SYNCCMP / 8],
		 (uint64_t)GEMINI_FMA_SYNC_LOCAL_EVENT <<
		 GEMINI_FMA_SYNC_TYPE_SHIFT | data);
	CHECK(e.nic.req[0].used && e.nic.req[0].desc == &d &&
	      e.ep.outstanding == 1);
	/* Its event, taken and completed */
	sync_ends(&e, 0);
	CHECK_EQ(gnicore_cq_take(&e.cq, &ev, &client), GNI_RC_SUCCESS);
	CHECK_EQ(ugni_cqe_id(ev), LOCAL_EVENT);
	CHECK_EQ(gnicore_get_completed(&e.cq, ev, &got), GNI_RC_SUCCESS);
	CHECK(got == &d && !e.ep.outstanding && e.nic.nfree == 4);
	/* The same base again: the descriptor is not written again */
	e.fma_page[GEMINI_FMA_QW_BASE_OFFSET / 8] = 0;
	d.cq_mode = 0;
	CHECK_EQ(gnicore_post_fma(&e.ep, &d), GNI_RC_SUCCESS);
	CHECK_EQ(e.fma_page[GEMINI_FMA_QW_BASE_OFFSET / 8], 0);
	CHECK_EQ(e.fma_page[GEMINI_FMA_QW_SYNCCMP / 8],
		 ugni_cqe_data(GNI_CQ_EVENT_TYPE_POST, REMOTE_EVENT,
			       UGNI_TID_NONE));
	/* A full table: refused before any store */
	d.cq_mode = GNI_CQMODE_LOCAL_EVENT;
	e.nic.nfree = 0;
	e.fma_page[GEMINI_FMA_QW_SYNCCMP / 8] = 0;
	CHECK_EQ(gnicore_post_fma(&e.ep, &d), GNI_RC_ERROR_RESOURCE);
	CHECK_EQ(e.fma_page[GEMINI_FMA_QW_SYNCCMP / 8], 0);
	e.nic.nfree = 4;
	env_fini(&e);
	tap_test_end("FMA PUT of 13 bytes: refusals, the base offset and "
		     "command, the bytes in the window, the sync and its event "
		     "data; the event taken and completed; a silent post");
}

/*
 * The status read and its bound: the first post reads the counts; the
 * next posts do not, as long as the sequences and requests posted since
 * keep under the share; the first post past it reads them again.
 */
static void test_fma_bound(void)
{
	static const uint64_t word = 0x0123456789abcdefull;
	const uint64_t full = (uint64_t)GNICORE_FMA_MAX_OPEN <<
			      GEMINI_FMA_STAT_SSID_SHIFT;
	gni_post_descriptor_t d = {
		.type = GNI_POST_FMA_PUT, .remote_addr = RVA, .length = 8,
		.local_addr = (uint64_t)(uintptr_t)&word,
	};
	unsigned int i, ok = 0;
	struct env e;

	gnicore_test_nowait = true;
	env_init(&e, 4);
	d.remote_mem_hndl = e.rmh;
	CHECK_EQ(gnicore_post_fma(&e.ep, &d), GNI_RC_SUCCESS);
	CHECK(e.fma.seen_valid && !e.fma.seen_ssids && e.fma.new_ssids == 1 &&
	      e.fma.new_reqs == 1);
	/* Full behind its back (not how a NIC behaves): unread until 32 */
	e.fma_page[GEMINI_FMA_QW_STATUS / 8] = full;
	for (i = 1; i < GNICORE_FMA_MAX_OPEN; i++)
		ok += gnicore_post_fma(&e.ep, &d) == GNI_RC_SUCCESS;
	CHECK_EQ(ok, GNICORE_FMA_MAX_OPEN - 1);
	e.fma_page[GEMINI_FMA_QW_SYNCCMP / 8] = 0;
	CHECK_EQ(gnicore_post_fma(&e.ep, &d), GNI_RC_ERROR_RESOURCE);
	CHECK_EQ(e.fma_page[GEMINI_FMA_QW_SYNCCMP / 8], 0);
	CHECK(e.fma.seen_ssids == GNICORE_FMA_MAX_OPEN && !e.fma.new_ssids);
	/* Room again: read at the next post, which goes */
	e.fma_page[GEMINI_FMA_QW_STATUS / 8] =
		1ull << GEMINI_FMA_STAT_SSID_SHIFT;
	CHECK_EQ(gnicore_post_fma(&e.ep, &d), GNI_RC_SUCCESS);
	CHECK(e.fma.seen_ssids == 1 && e.fma.new_ssids == 1);
	/*
	 * Requests count too: read with 46 in flight, a post leaves a bound
	 * of 47 (the sequences far under theirs); then full behind its back,
	 * one more post goes unread, and the next reads and is refused.
	 */
	set_status(&e, (uint64_t)(GNICORE_FMA_MAX_REQS - 2) <<
		       GEMINI_FMA_STAT_WC_SHIFT);
	CHECK_EQ(gnicore_post_fma(&e.ep, &d), GNI_RC_SUCCESS);
	e.fma_page[GEMINI_FMA_QW_STATUS / 8] =
		(uint64_t)GNICORE_FMA_MAX_REQS << GEMINI_FMA_STAT_WC_SHIFT;
	CHECK_EQ(gnicore_post_fma(&e.ep, &d), GNI_RC_SUCCESS);
	CHECK_EQ(gnicore_post_fma(&e.ep, &d), GNI_RC_ERROR_RESOURCE);
	CHECK_EQ(e.fma.seen_reqs, GNICORE_FMA_MAX_REQS);
	env_fini(&e);
	gnicore_test_nowait = false;
	tap_test_end("FMA status read: once, then posts unread while the "
		     "sequences and requests posted since keep under the "
		     "share; past it read again (refused when full, then room)");
}

static void test_post_rdma(void)
{
	gni_post_descriptor_t d = {
		.type = GNI_POST_RDMA_PUT, .cq_mode = GNI_CQMODE_DUAL_EVENTS,
		.remote_addr = RVA + 0x100, .length = 1000,
	};
	unsigned int posts = rdma_posts;
	uint64_t data;
	struct env e;

	env_init(&e, 4);
	d.local_addr = (uint64_t)(uintptr_t)e.buf + 9;
	d.local_mem_hndl = e.lmh;
	d.remote_mem_hndl = e.rmh;
	d.type = GNI_POST_RDMA_GET;
	CHECK_EQ(gnicore_post_rdma(&e.ep, &d, NULL), GNI_RC_ALIGNMENT_ERROR);
	d.type = GNI_POST_RDMA_PUT;
	e.cq.mem_refs = 1;	/* a CQ of remote events is no source CQ */
	CHECK_EQ(gnicore_post_rdma(&e.ep, &d, &e.cq), GNI_RC_INVALID_PARAM);
	e.cq.mem_refs = 0;
	CHECK_EQ(rdma_posts, posts);
	CHECK_EQ(gnicore_post_rdma(&e.ep, &d, NULL), GNI_RC_SUCCESS);
	data = ugni_cqe_data(GNI_CQ_EVENT_TYPE_POST, REMOTE_EVENT, 0);
	CHECK_EQ(rdma_posts, posts + 1);
	CHECK_EQ(rdma_last.size, sizeof(rdma_last));
	CHECK_EQ(rdma_last.type, KGNI_RDMA_PUT);
	CHECK_EQ(rdma_last.events, KGNI_RDMA_EV_LOCAL | KGNI_RDMA_EV_GLOBAL);
	CHECK_EQ(rdma_last.remote_pe, PEER_PE);
	CHECK_EQ(rdma_last.cq_id, 77);
	CHECK_EQ(rdma_last.length, 1000);
	CHECK_EQ(rdma_last.global_data, data);
	CHECK_EQ(rdma_last.local_data, data | UGNI_CQE_LOCAL_FLAG);
	CHECK(e.nic.req[0].used && e.nic.req[0].want == GNI_CQMODE_DUAL_EVENTS);
	CHECK_EQ(e.ep.outstanding, 1);
	/* The kernel refuses: the tid goes back */
	rdma_rc = GNI_RC_ERROR_RESOURCE;
	CHECK_EQ(gnicore_post_rdma(&e.ep, &d, NULL), GNI_RC_ERROR_RESOURCE);
	rdma_rc = GNI_RC_SUCCESS;
	CHECK(e.nic.nfree == 3 && e.ep.outstanding == 1);
	env_fini(&e);
	tap_test_end("RDMA PUT: refusals before the kernel, the request it "
		     "gets (events, CQ, data words), its tid back on failure");
}

/* @e's endpoint with a mailbox of 4 slots of 64 bytes, as the peer's */
static gni_return_t smsg_open(struct env *e, gni_smsg_attr_t *l)
{
	gni_smsg_attr_t r;

	memset(l, 0, sizeof(*l));
	l->msg_type = GNI_SMSG_TYPE_MBOX_AUTO_RETRANSMIT;
	l->msg_buffer = e->buf;
	l->buff_size = PAGE;
	l->mem_hndl = e->lmh;
	l->mbox_maxcredit = 4;
	l->msg_maxsize = 64;
	r = *l;
	r.msg_buffer = (void *)(uintptr_t)RVA;
	r.mem_hndl = e->rmh;
	return gnicore_smsg_init(&e->ep, l, &r);
}

/*
 * The peer's mailbox size comes from its connect data: a copy of each of
 * its slots is kept here, so an absurd mbox_maxcredit is refused, not
 * allocated (65535 slots), while what real clients use still connects.
 */
static void test_smsg_peer_credit(void)
{
	static const struct { uint16_t credit; gni_return_t rc; } c[] = {
		{ 256, GNI_RC_SUCCESS }, { 1024, GNI_RC_SUCCESS },
		{ 1025, GNI_RC_INVALID_PARAM }, { 65535, GNI_RC_INVALID_PARAM },
	};
	gni_smsg_attr_t l, r;
	unsigned int i;
	struct env e;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		env_init(&e, 8);
		memset(&l, 0, sizeof(l));
		l.msg_type = GNI_SMSG_TYPE_MBOX_AUTO_RETRANSMIT;
		l.msg_buffer = e.buf;
		l.buff_size = PAGE;
		l.mem_hndl = e.lmh;
		l.mbox_maxcredit = 4;
		l.msg_maxsize = 64;
		r = l;
		r.msg_buffer = (void *)(uintptr_t)RVA;
		/* A registration that holds a mailbox of 65535 slots */
		r.mem_hndl = handle(RVA, 300, 4096);
		r.mbox_maxcredit = c[i].credit;
		CHECK_EQ(gnicore_smsg_init(&e.ep, &l, &r), c[i].rc);
		env_fini(&e);
	}
	tap_test_end("SMSG init: a peer's mailbox of 256 or 1024 slots "
		     "connects, one of 1025 or 65535 is refused "
		     "(INVALID_PARAM)");
}

static void test_smsg_send(void)
{
	const unsigned int all = GEMINI_FMA_SYNC_WITH_FLAG |
				 GEMINI_FMA_SYNC_REMOTE_EVENT |
				 GEMINI_FMA_SYNC_LOCAL_EVENT;
	gni_smsg_attr_t l;
	uint64_t word, ev;
	unsigned int i, sent = 0;
	void *client;
	struct env e;

	env_init(&e, 8);
	CHECK_EQ(gnicore_smsg_send(&e.ep, "h", 1, NULL, 0, 1, 0),
		 GNI_RC_INVALID_STATE);
	CHECK_EQ(smsg_open(&e, &l), GNI_RC_SUCCESS);
	CHECK_EQ(smsg_open(&e, &l), GNI_RC_INVALID_STATE);
	CHECK_EQ(gnicore_smsg_send(&e.ep, "abc", 3, "12345", 5, 9, 0),
		 GNI_RC_SUCCESS);
	/* Message 1 in slot 0: its words 1.. at 72, the flag at 64 */
	word = ugni_smsg_lengths(3, 5);
	CHECK(!memcmp(e.put + 8, &word, 8) && !memcmp(e.put + 16, "abc", 3) &&
	      !memcmp(e.put + 19, "12345", 5));
	CHECK_EQ(e.fma_page[GEMINI_FMA_QW_SCRATCH0 / 8], ugni_smsg_flag(1, 0));
	CHECK_EQ(e.fma_page[GEMINI_FMA_QW_SCRATCH1 / 8], 64);
	CHECK_EQ(sync_type(&e), all);
	CHECK(e.nic.req[0].used && e.nic.req[0].smsg_seq == 1 &&
	      e.nic.req[0].local_event == 9);
	CHECK_EQ(gnicore_smsg_send(&e.ep, NULL, 0, NULL, 65, 1, 0),
		 GNI_RC_INVALID_PARAM);
	/* Credit for 4; the 5th waits until the peer releases one */
	sent = 1;
	while (sent < 10 && gnicore_smsg_send(&e.ep, "x", 1, NULL, 0, sent, 0) ==
	       GNI_RC_SUCCESS)
		sent++;
	CHECK_EQ(sent, 4);
	CHECK_EQ(e.nic.stats[GNI_STAT_SMSG_MBOX_CREDITS_STALL], 1);
	*(uint64_t *)e.buf = 1;
	CHECK_EQ(gnicore_smsg_send(&e.ep, "y", 1, NULL, 0, 5, 0), GNI_RC_SUCCESS);
	/* Message 5 in slot 0 again */
	CHECK_EQ(e.fma_page[GEMINI_FMA_QW_SCRATCH0 / 8], ugni_smsg_flag(5, 0));
	/*
	 * It fails, unreleased: sent again, its event unseen, though the
	 * descriptor holds its share of sequences (held to the share, this
	 * test would wait here for ever; the kernel breaks the connection)
	 */
	e.fma_page[GEMINI_FMA_QW_SCRATCH0 / 8] = 0;
	set_status(&e, (uint64_t)GNICORE_FMA_MAX_OPEN <<
		       GEMINI_FMA_STAT_SSID_SHIFT);
	sync_ends(&e, 0xb);
	CHECK_EQ(gnicore_cq_take(&e.cq, &ev, &client), GNI_RC_NOT_DONE);
	set_status(&e, 0);
	CHECK_EQ(e.fma_page[GEMINI_FMA_QW_SCRATCH0 / 8], ugni_smsg_flag(5, 0));
	CHECK_EQ(sync_type(&e), all);
	CHECK_EQ(e.nic.stats[GNI_STAT_SMSG_RETRANS_COUNT], 1);
	sync_ends(&e, 0);
	CHECK_EQ(gnicore_cq_take(&e.cq, &ev, &client), GNI_RC_SUCCESS);
	CHECK_EQ(ugni_cqe_id(ev), 5);
	/* Refused 255 more times: the 256th reads the peer's count */
	for (i = 0; i < 255; i++)
		gnicore_smsg_send(&e.ep, "z", 1, NULL, 0, 6, 0);
	CHECK_EQ(e.get[8], 0);
	CHECK_EQ(gnicore_smsg_send(&e.ep, "z", 1, NULL, 0, 6, 0),
		 GNI_RC_NOT_DONE);
	memcpy(&word, e.get + 8, 8);
	CHECK_EQ(word, GEMINI_GCW_GET(8, 0));
	/* One the peer released fails: only an answer was lost */
	*(uint64_t *)e.buf = 5;
	CHECK_EQ(gnicore_smsg_send(&e.ep, "u", 1, NULL, 0, 6, 0),
		 GNI_RC_SUCCESS);
	*(uint64_t *)e.buf = 6;
	sync_ends(&e, 0xb);
	/* Its remote event goes alone, a request of its own: not seen yet */
	CHECK_EQ(gnicore_cq_take(&e.cq, &ev, &client), GNI_RC_NOT_DONE);
	CHECK_EQ(e.fma_page[GEMINI_FMA_QW_CQ_WRITE / 8],
		 ugni_cqe_data(GNI_CQ_EVENT_TYPE_SMSG, REMOTE_EVENT,
			       UGNI_TID_NONE));
	CHECK_EQ(sync_type(&e), GEMINI_FMA_SYNC_LOCAL_EVENT);
	CHECK_EQ(e.nic.stats[GNI_STAT_SMSG_RETRANS_COUNT], 2);
	/* That CQ write fails too: it goes again, not lost */
	e.fma_page[GEMINI_FMA_QW_CQ_WRITE / 8] = 0;
	sync_ends(&e, 0xb);
	CHECK_EQ(gnicore_cq_take(&e.cq, &ev, &client), GNI_RC_NOT_DONE);
	CHECK_EQ(e.fma_page[GEMINI_FMA_QW_CQ_WRITE / 8],
		 ugni_cqe_data(GNI_CQ_EVENT_TYPE_SMSG, REMOTE_EVENT,
			       UGNI_TID_NONE));
	CHECK_EQ(e.nic.stats[GNI_STAT_SMSG_RETRANS_COUNT], 3);
	/* Answered: the send's local event, a success with its msg_id */
	sync_ends(&e, 0);
	CHECK_EQ(gnicore_cq_take(&e.cq, &ev, &client), GNI_RC_SUCCESS);
	CHECK_EQ(ugni_cqe_id(ev), 6);
	CHECK_EQ(ugni_cqe_type(ev), GNI_CQ_EVENT_TYPE_SMSG);
	/* With no sending left it is a success without its remote event */
	e.nic.smsg_max_retrans = 0;
	*(uint64_t *)e.buf = 6;
	CHECK_EQ(gnicore_smsg_send(&e.ep, "t", 1, NULL, 0, 10, 0),
		 GNI_RC_SUCCESS);
	*(uint64_t *)e.buf = 7;
	sync_ends(&e, 0xb);
	CHECK_EQ(gnicore_cq_take(&e.cq, &ev, &client), GNI_RC_NOT_DONE);
	CHECK_EQ(sync_type(&e), GEMINI_FMA_SYNC_LOCAL_EVENT);
	sync_ends(&e, 0xb);
	CHECK_EQ(gnicore_cq_take(&e.cq, &ev, &client), GNI_RC_SUCCESS);
	CHECK_EQ(ugni_cqe_id(ev), 10);
	CHECK_EQ(e.nic.stats[GNI_STAT_SMSG_RETRANS_COUNT], 4);
	/* Past max_retrans the connection breaks */
	CHECK_EQ(gnicore_smsg_send(&e.ep, "w", 1, NULL, 0, 7, 0), GNI_RC_SUCCESS);
	sync_ends(&e, 0xb);
	CHECK_EQ(gnicore_cq_take(&e.cq, &ev, &client),
		 GNI_RC_TRANSACTION_ERROR);
	CHECK_EQ(gnicore_smsg_send(&e.ep, "v", 1, NULL, 0, 8, 0),
		 GNI_RC_INVALID_STATE);
	env_fini(&e);
	tap_test_end("SMSG send: the slot's words and flag, the sync, credit "
		     "for 4, a failure sent again unseen past the descriptor's "
		     "share, the read of the count "
		     "after 256 refusals, a released one's failure a success "
		     "once its remote event, sent alone and again when that "
		     "fails, is answered, then a broken connection");
}

static void test_smsg_receive(void)
{
	struct gnicore_smsg *s;
	uint8_t *slot0, tag;
	gni_smsg_attr_t l;
	void *hdr = NULL;
	uint64_t word;
	struct env e;

	env_init(&e, 8);
	CHECK_EQ(smsg_open(&e, &l), GNI_RC_SUCCESS);
	CHECK_EQ(gnicore_smsg_get_next(&e.ep, &hdr, NULL), GNI_RC_NOT_DONE);
	CHECK_EQ(gnicore_smsg_release(&e.ep), GNI_RC_NOT_DONE);
	/* The peer's message 1, tag 5, a header of 3 bytes */
	slot0 = e.buf + ugni_smsg_slot_offset(0, UGNI_SMSG_SLOT(64));
	word = ugni_smsg_lengths(3, 0);
	memcpy(slot0 + 8, &word, 8);
	memcpy(slot0 + UGNI_SMSG_HDR, "hey", 3);
	word = ugni_smsg_flag(2, 5);	/* not the one due */
	memcpy(slot0, &word, 8);
	CHECK_EQ(gnicore_smsg_get_next(&e.ep, &hdr, NULL), GNI_RC_NOT_DONE);
	word = ugni_smsg_flag(1, 5);
	memcpy(slot0, &word, 8);
	tag = 6;
	CHECK_EQ(gnicore_smsg_get_next(&e.ep, &hdr, &tag), GNI_RC_NO_MATCH);
	CHECK_EQ(tag, 5);
	tag = GNI_SMSG_ANY_TAG;
	CHECK_EQ(gnicore_smsg_get_next(&e.ep, &hdr, &tag), GNI_RC_SUCCESS);
	CHECK(tag == 5 && hdr == slot0 + UGNI_SMSG_HDR);
	/* Released: the flag goes, the count goes up, the credit goes back */
	CHECK_EQ(gnicore_smsg_release(&e.ep), GNI_RC_SUCCESS);
	CHECK_EQ(*(uint64_t *)slot0, 0);
	CHECK_EQ(*(uint64_t *)(e.buf + UGNI_SMSG_RELEASED_OFF), 1);
	memcpy(&word, e.put, 8);
	CHECK_EQ(word, 1);
	CHECK_EQ(sync_type(&e), 0);
	CHECK_EQ(gnicore_smsg_release(&e.ep), GNI_RC_NOT_DONE);
	/* Detached (the kernel frees it later): the endpoint has none. */
	s = gnicore_smsg_detach(&e.ep);
	CHECK(s && !e.ep.smsg && !gnicore_smsg_detach(&e.ep));
	CHECK_EQ(gnicore_smsg_get_next(&e.ep, &hdr, NULL),
		 GNI_RC_INVALID_STATE);
	gnicore_smsg_free(s);
	gnicore_smsg_free(NULL);
	env_fini(&e);
	tap_test_end("SMSG receive: only the message due, tags, release: the "
		     "flag cleared, the count in the mailbox and to the peer; "
		     "the state detached, then freed");
}

/*
 * Where nothing may wait (the kernel): a credit return that finds the FMA
 * descriptor full is owed and goes with the next call that finds room,
 * and a starved sender reads the count every 8 refusals, not 256.
 */
static void test_smsg_credit_nowait(void)
{
	const uint64_t full = (uint64_t)GNICORE_FMA_MAX_OPEN <<
			      GEMINI_FMA_STAT_SSID_SHIFT;
	uint8_t *slot;
	gni_smsg_attr_t l;
	void *hdr = NULL;
	uint64_t word;
	unsigned int i;
	struct env e;

	gnicore_test_nowait = true;
	env_init(&e, 8);
	CHECK_EQ(smsg_open(&e, &l), GNI_RC_SUCCESS);
	/* The peer's messages 1 and 2 */
	for (i = 0; i < 2; i++) {
		slot = e.buf + ugni_smsg_slot_offset(i, UGNI_SMSG_SLOT(64));
		word = ugni_smsg_lengths(1, 0);
		memcpy(slot + 8, &word, 8);
		word = ugni_smsg_flag(i + 1, 0);
		memcpy(slot, &word, 8);
	}
	/* Released with the descriptor full: the credit is owed */
	CHECK_EQ(gnicore_smsg_get_next(&e.ep, &hdr, NULL), GNI_RC_SUCCESS);
	set_status(&e, full);
	CHECK_EQ(gnicore_smsg_release(&e.ep), GNI_RC_SUCCESS);
	memcpy(&word, e.put, 8);
	CHECK_EQ(word, 0);
	/* Still full: GetNext hands out message 2, the credit still owed */
	CHECK_EQ(gnicore_smsg_get_next(&e.ep, &hdr, NULL), GNI_RC_SUCCESS);
	memcpy(&word, e.put, 8);
	CHECK_EQ(word, 0);
	/* Room: the next GetNext sends it */
	set_status(&e, 0);
	CHECK_EQ(gnicore_smsg_get_next(&e.ep, &hdr, NULL), GNI_RC_SUCCESS);
	memcpy(&word, e.put, 8);
	CHECK_EQ(word, 1);
	/* Message 2 released full, then a send: the credit goes first */
	set_status(&e, full);
	CHECK_EQ(gnicore_smsg_release(&e.ep), GNI_RC_SUCCESS);
	memcpy(&word, e.put, 8);
	CHECK_EQ(word, 1);
	CHECK_EQ(gnicore_smsg_send(&e.ep, "a", 1, NULL, 0, 1, 0),
		 GNI_RC_ERROR_RESOURCE);
	memcpy(&word, e.put, 8);
	CHECK_EQ(word, 1);
	set_status(&e, 0);
	memset(e.put, 0, 8);
	CHECK_EQ(gnicore_smsg_send(&e.ep, "a", 1, NULL, 0, 1, 0),
		 GNI_RC_SUCCESS);
	memcpy(&word, e.put, 8);
	CHECK_EQ(word, 2);
	/* Credit for 4 messages; refused, the 8th refusal reads the count */
	for (i = 1; i < 4; i++)
		CHECK_EQ(gnicore_smsg_send(&e.ep, "b", 1, NULL, 0, 2, 0),
			 GNI_RC_SUCCESS);
	for (i = 0; i < 7; i++)
		CHECK_EQ(gnicore_smsg_send(&e.ep, "c", 1, NULL, 0, 3, 0),
			 GNI_RC_NOT_DONE);
	CHECK_EQ(e.get[8], 0);
	CHECK_EQ(gnicore_smsg_send(&e.ep, "c", 1, NULL, 0, 3, 0),
		 GNI_RC_NOT_DONE);
	memcpy(&word, e.get + 8, 8);
	CHECK_EQ(word, GEMINI_GCW_GET(8, 0));
	env_fini(&e);
	gnicore_test_nowait = false;
	tap_test_end("SMSG where nothing may wait: a credit return that found "
		     "the descriptor full goes with the next GetNext or send "
		     "that finds room; the count read every 8 refusals");
}

int main(void)
{
	tap_begin();
	test_req_table();
	test_cqe_fields();
	test_cq_error_str();
	test_smsg_layout();
	test_cq_take();
	test_get_completed();
	test_post_fma();
	test_fma_bound();
	test_post_rdma();
	test_smsg_peer_credit();
	test_smsg_send();
	test_smsg_receive();
	test_smsg_credit_nowait();
	return tap_end();
}
