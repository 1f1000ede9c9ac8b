// SPDX-License-Identifier: GPL-2.0-only
/*
 * ugni_rdma: RDMA (BTE) PUT and GET between pairs of ranks, through
 * gni_pub.h and pmi.h alone.
 *
 *     vgemini run -n 8 ugni_rdma
 *
 * Ranks pair up (0 with 1, 2 with 3, ...; an odd last rank with itself)
 * and each rank of a pair does everything below to its peer, while being
 * the peer's target.  Every rank owns a window (1 MiB + 3 pages, page
 * aligned, registered with a remote-event CQ) and a local buffer of the
 * same size, and publishes the window's handle.  The job's CDM has
 * GNI_CDM_MODE_DUAL_EVENTS.
 *
 *  1. PUTs of 1 byte to 1 MiB + 1 at unaligned remote and local offsets,
 *     GNI_CQMODE_GLOBAL_EVENT: one event, inst_id the peer's rank (the
 *     endpoint's remote_id), the descriptor back with its post_id.  After
 *     a barrier the target checks its window byte for byte, 64 bytes of
 *     background on each side included, and puts the background back.
 *  2. GETs of 4 bytes to 1 MiB, 4-byte aligned, from the peer's window
 *     (its background) into the local buffer between guard bytes.
 *  3. Each cq_mode on a PUT (and dual and REMOTE on a GET): LOCAL (one
 *     event, the data there eventually); LOCAL | GLOBAL (two events, each
 *     handing the descriptor back, the second with cq_mode_complete
 *     LOCAL | GLOBAL); GLOBAL | REMOTE and REMOTE alone (an event on the
 *     target's remote-event CQ whose inst_id is the sender's remote_event,
 *     set with GNI_EpSetEventData, the data there when it is); silent (no
 *     event; the data there eventually).
 *  4. GETs misaligned in the remote address, the local address or the
 *     length: GNI_RC_ALIGNMENT_ERROR, no event.
 *  5. A target registered with GNI_MemRegisterSegments (three pieces of
 *     three buffers, the first starting 100 bytes into its page, with the
 *     remote-event CQ): the peer PUTs across all of them by offset
 *     (offset 100 is the first piece's first byte), with a remote event,
 *     and GETs it back; the target checks the pieces and the bytes around.
 *  6. A PUT (dual events) and a GET to a handle its owner deregistered:
 *     exactly one error event each (GNI_CqGetEvent and GNI_GetCompleted
 *     GNI_RC_TRANSACTION_ERROR, the descriptor's status not SUCCESS); the
 *     memory behind it untouched.
 *  7. A second CDM with GNI_CDM_MODE_BTE_SINGLE_CHANNEL: dual events and
 *     FENCE on the first CDM refused (GNI_RC_INVALID_PARAM); a 1 MiB PUT
 *     with GNI_RDMAMODE_FENCE then an 8-byte PUT complete in that order;
 *     fenced 1 MiB PUTs posted without reaping end in
 *     GNI_RC_ERROR_RESOURCE, and once their events are reaped a post goes
 *     through again.
 *  8. Every ordered pair of ranks: PUTs of 1 byte to 8193 around each
 *     power of two and GETs of 4 to 8192 around them, each checked byte
 *     for byte (with the background around a PUT).
 *  9. Rank 0 with rank 1 (its neighbour) and with rank 7 (3 hops away on
 *     a 2x2x2 torus): a PUT and a GET back of every power of two from
 *     4 KiB to 64 MiB, byte for byte; then a PUT of 64 MiB - 4097 bytes
 *     unaligned at both ends, the target's bytes around it untouched.
 * 10. The local buffer registered through a second CDM of the process
 *     and posted through the first, as UCX does (its memory domain's CDM
 *     registers, its interface's posts): the PUTs of 1 and the GETs of 2,
 *     byte for byte; once deregistered there, a post naming it
 *     GNI_RC_INVALID_PARAM.
 */
#include "ugni_job.h"

#define GUARD		PAGE		/* background before and after */
#define DATA		((1u << 20) + PAGE)
#define BUF		(GUARD + DATA + GUARD)
#define AROUND		64		/* background checked around a PUT */
#define RCQ_ENTRIES	64
#define CQ2_ENTRIES	1024
#define MAX_FLOOD	400
#define EV_LG		(GNI_CQMODE_LOCAL_EVENT | GNI_CQMODE_GLOBAL_EVENT)
#define REMOTE_EVENT(r)	(0x5000u + (r))
#define INST2(r)	(1000u + (r))
#define INST3(r)	(2000u + (r))
#define DEADLINE_S	10.0

struct rcase {
	uint64_t len, ro, lo;	/* length, remote and local offsets */
};

static const struct rcase put_cases[] = {
	{ 1, 0, 0 }, { 1, 63, 5 }, { 3, 1, 2 }, { 63, 1, 0 }, { 64, 0, 0 },
	{ 65, 63, 7 }, { 200, 30, 1 }, { 4095, 1, 3 }, { 4096, 0, 0 },
	{ 4097, 4095, 1 }, { 65543, 17, 9 }, { 1u << 20, 0, 0 },
	{ (1u << 20) + 1, 4095, 3 },
};

static const struct rcase get_cases[] = {
	{ 4, 0, 0 }, { 8, 4, 4 }, { 60, 4, 8 }, { 64, 0, 0 }, { 68, 60, 4 },
	{ 4096, 0, 0 }, { 4100, 4092, 4 }, { 65536, 1024, 12 },
	{ 1u << 20, 0, 0 }, { (1u << 20) + 4, 4092, 8 },
};

static int peer;		/* the other rank of my pair */
static uint8_t *win, *lbuf;
static gni_mem_handle_t win_mh, lb_mh;
static struct job_buf *win_all;
static gni_cq_handle_t rcq;	/* remote events of my window */
static uint64_t post_ids;

/* Byte @off of @rank's window when nobody wrote it */
static uint8_t bg(int rank, uint64_t off)
{
	return (uint8_t)(rank * 131 + off * 7 + (off >> 8) * 13 + 0x3c);
}

/* Byte @i of @src's transfer number @k */
static uint8_t pat(int src, int k, uint64_t i)
{
	return (uint8_t)(src * 37 + k * 101 + i * 11 + (i >> 9) * 3 + 1);
}

static void window_reset(uint64_t from, uint64_t to)
{
	for (; from < to; from++)
		win[from] = bg(job.rank, from);
}

/* The peer's window address at my remote offset @ro */
static uint64_t remote(uint64_t ro)
{
	return win_all[peer].addr + GUARD + ro;
}

static void desc_rdma(gni_post_descriptor_t *d, gni_post_type_t type,
		      uint16_t cq_mode, uint64_t lo, uint64_t ro,
		      uint64_t len)
{
	desc_init(d, type, cq_mode);
	d->local_addr = (uint64_t)(uintptr_t)(lbuf + GUARD + lo);
	d->local_mem_hndl = lb_mh;
	d->remote_addr = remote(ro);
	d->remote_mem_hndl = win_all[peer].mh;
	d->length = len;
	d->post_id = ++post_ids;
}

/*
 * Wait for the local events @d asked for on @cq (two with LOCAL |
 * GLOBAL), each handing @d back with the events so far; the last event
 * in @c.  Returns 1 when all came, OK, with inst_id @inst.
 */
static int rdma_events(gni_cq_handle_t cq, gni_post_descriptor_t *d,
		       struct completion *c, uint64_t inst)
{
	uint16_t want = d->cq_mode & EV_LG, seen = 0, bit;
	uint64_t id = d->post_id;
	int n = (want & GNI_CQMODE_LOCAL_EVENT ? 1 : 0) +
		(want & GNI_CQMODE_GLOBAL_EVENT ? 1 : 0), i;

	for (i = 0; i < n; i++) {
		c->ev_rc = wait_event(cq, &c->ev);
		if (c->ev_rc == GNI_RC_NOT_DONE)
			return 0;
		if (!GNI_CQ_STATUS_OK(c->ev))
			GNI_CqErrorStr(c->ev, c->err, sizeof(c->err));
		c->gc_rc = GNI_GetCompleted(cq, c->ev, &c->pd);
		if (!completed_ok(c, d) || GNI_CQ_GET_INST_ID(c->ev) != inst ||
		    GNI_CQ_GET_TYPE(c->ev) != GNI_CQ_EVENT_TYPE_POST ||
		    d->post_id != id)
			return 0;
		/* each event adds its own bit to cq_mode_complete */
		bit = d->cq_mode_complete & ~seen;
		if (!bit || (bit & (bit - 1)) || (d->cq_mode_complete & ~want))
			return 0;
		seen = d->cq_mode_complete;
	}
	return seen == want;
}

/* GNI_PostRdma of @d on @ep and its local events on @cq (rdma_events) */
static int rdma_post_wait(gni_ep_handle_t ep, gni_cq_handle_t cq,
			  gni_post_descriptor_t *d, struct completion *c,
			  uint64_t inst)
{
	memset(c, 0, sizeof(*c));
	c->ev_rc = c->gc_rc = GNI_RC_NOT_DONE;
	c->post_rc = GNI_PostRdma(ep, d);
	if (c->post_rc != GNI_RC_SUCCESS)
		return 0;
	if (!(d->cq_mode & EV_LG))
		return 1;
	return rdma_events(cq, d, c, inst);
}

/*
 * My window after my peer's PUT of @len bytes of pat(peer, @k) at @ro:
 * those bytes, background for AROUND bytes on each side.  With @wait
 * (no GLOBAL event said the data was there), look again until
 * DEADLINE_S.  Then the background goes back.
 */
static int window_check(int k, uint64_t ro, uint64_t len, int wait,
			const char *what)
{
	const volatile uint8_t *w = win;
	uint64_t start = GUARD + ro, end = start + len, at = 0;
	uint64_t lo = start - AROUND, hi = end + AROUND;
	double deadline = now() + (wait ? DEADLINE_S : 0);
	uint8_t want = 0;
	int ok;

	for (;;) {
		for (at = lo; at < hi; at++) {
			want = at >= start && at < end ?
			       pat(peer, k, at - start) : bg(job.rank, at);
			if (w[at] != want)
				break;
		}
		ok = at == hi;
		if (ok || now() > deadline)
			break;
		usleep(1000);
	}
	if (!ok)
		diag("%s: window byte %" PRIu64 " (PUT's %s%" PRId64 ") is "
		     "0x%02x, want 0x%02x", what, at - GUARD,
		     at < start ? "-" : "+",
		     at < start ? (int64_t)(start - at) : (int64_t)(at - start),
		     w[at], want);
	window_reset(lo, hi);
	return ok;
}

/* The local buffer after a GET of @len bytes at @ro into @lo */
static int lbuf_check(uint64_t lo, uint64_t ro, uint64_t len, const char *what)
{
	uint64_t start = GUARD + lo, i;

	for (i = 0; i < AROUND; i++)
		if (lbuf[start - 1 - i] != 0x5a || lbuf[start + len + i] != 0x5a) {
			diag("%s: guard byte %" PRIu64 " from the data "
			     "overwritten", what, i);
			return 0;
		}
	for (i = 0; i < len; i++)
		if (lbuf[start + i] != bg(peer, GUARD + ro + i)) {
			diag("%s: byte %" PRIu64 " is 0x%02x, want 0x%02x",
			     what, i, lbuf[start + i],
			     bg(peer, GUARD + ro + i));
			return 0;
		}
	return 1;
}

static void lbuf_guard(uint64_t lo, uint64_t len)
{
	memset(lbuf + GUARD + lo - AROUND, 0x5a, len + 2 * AROUND);
}

static void lbuf_fill(int k, uint64_t lo, uint64_t len)
{
	uint64_t i;

	for (i = 0; i < len; i++)
		lbuf[GUARD + lo + i] = pat(job.rank, k, i);
}

/* 1: PUTs of every size, each checked by its target */
static void put_sizes(void)
{
	gni_post_descriptor_t d;
	struct completion c;
	unsigned int k;
	int ok;

	for (k = 0; k < ARRAY_SIZE(put_cases); k++) {
		const struct rcase *rc = &put_cases[k];

		lbuf_fill(k, rc->lo, rc->len);
		desc_rdma(&d, GNI_POST_RDMA_PUT, GNI_CQMODE_GLOBAL_EVENT,
			  rc->lo, rc->ro, rc->len);
		ok = rdma_post_wait(job.ep[peer], job.cq, &d, &c, peer);
		check(ok, "PUT of %" PRIu64 " bytes to rank %d, remote +%"
		      PRIu64 ", local +%" PRIu64 ": GLOBAL event%s%s", rc->len,
		      peer, rc->ro, rc->lo, ok ? "" : ": ",
		      ok ? "" : describe(&c));
		barrier();
		check(window_check(k, rc->ro, rc->len, 0, "PUT"), "my window "
		      "after rank %d's PUT of %" PRIu64 " bytes at +%" PRIu64
		      ": its bytes, background around", peer, rc->len, rc->ro);
		barrier();
	}
}

/* 2: GETs of every size from the peer's background */
static void get_sizes(void)
{
	gni_post_descriptor_t d;
	struct completion c;
	unsigned int k;
	int ok;

	for (k = 0; k < ARRAY_SIZE(get_cases); k++) {
		const struct rcase *rc = &get_cases[k];

		lbuf_guard(rc->lo, rc->len);
		desc_rdma(&d, GNI_POST_RDMA_GET, GNI_CQMODE_GLOBAL_EVENT,
			  rc->lo, rc->ro, rc->len);
		ok = rdma_post_wait(job.ep[peer], job.cq, &d, &c, peer);
		if (!check(ok, "GET of %" PRIu64 " bytes from rank %d, remote +%"
			   PRIu64 ", local +%" PRIu64 ": GLOBAL event%s%s",
			   rc->len, peer, rc->ro, rc->lo, ok ? "" : ": ",
			   ok ? "" : describe(&c)))
			continue;
		check(lbuf_check(rc->lo, rc->ro, rc->len, "GET"), "the %" PRIu64
		      " bytes got, guard bytes around intact", rc->len);
	}
}

/* A remote event from my peer on my window's CQ, or 0 */
static int remote_event(const char *what)
{
	gni_cq_entry_t ev = 0;
	gni_return_t rc = wait_event(rcq, &ev);
	int ok = rc == GNI_RC_SUCCESS && GNI_CQ_STATUS_OK(ev) &&
		 GNI_CQ_GET_TYPE(ev) == GNI_CQ_EVENT_TYPE_POST &&
		 GNI_CQ_GET_INST_ID(ev) == REMOTE_EVENT(peer);

	check(ok, "%s: a remote event on my window's CQ: %s 0x%016" PRIx64
	      ", inst_id 0x%" PRIx64 " (want rank %d's remote_event 0x%x)",
	      what, rc_str(rc), (uint64_t)ev, (uint64_t)GNI_CQ_GET_INST_ID(ev),
	      peer, REMOTE_EVENT(peer));
	return ok;
}

/* Nothing more on @cq for a while */
static void no_event(gni_cq_handle_t cq, const char *what)
{
	gni_cq_entry_t ev = 0;
	gni_return_t rc;

	usleep(200 * 1000);
	rc = GNI_CqGetEvent(cq, &ev);
	check(rc == GNI_RC_NOT_DONE, "%s: no event (%s 0x%016" PRIx64 ")",
	      what, rc_str(rc), (uint64_t)ev);
}

/* 3: a PUT of each cq_mode */
static void put_modes(void)
{
	static const struct {
		uint16_t mode;
		const char *name;
	} modes[] = {
		{ GNI_CQMODE_LOCAL_EVENT, "LOCAL" },
		{ GNI_CQMODE_DUAL_EVENTS, "LOCAL | GLOBAL" },
		{ GNI_CQMODE_GLOBAL_EVENT | GNI_CQMODE_REMOTE_EVENT,
		  "GLOBAL | REMOTE" },
		{ GNI_CQMODE_REMOTE_EVENT, "REMOTE" },
		{ GNI_CQMODE_SILENT, "silent" },
	};
	const uint64_t len = 8192 + 5, ro = 3, lo = 1;
	gni_post_descriptor_t d;
	struct completion c;
	unsigned int m;
	char what[64];
	int k, ok, global, rem;

	for (m = 0; m < ARRAY_SIZE(modes); m++) {
		k = 100 + m;
		global = modes[m].mode & GNI_CQMODE_GLOBAL_EVENT;
		rem = modes[m].mode & GNI_CQMODE_REMOTE_EVENT;
		snprintf(what, sizeof(what), "PUT, %s", modes[m].name);
		lbuf_fill(k, lo, len);
		desc_rdma(&d, GNI_POST_RDMA_PUT, modes[m].mode, lo, ro, len);
		ok = rdma_post_wait(job.ep[peer], job.cq, &d, &c, peer);
		check(ok, "%s of %" PRIu64 " bytes to rank %d: %s%s%s", what,
		      len, peer, modes[m].mode & EV_LG ?
		      "its events, the descriptor back" : "posted",
		      ok ? "" : ": ", ok ? "" : describe(&c));
		if (!(modes[m].mode & EV_LG))
			no_event(job.cq, what);
		/* the remote event comes after the data */
		if (rem)
			remote_event(what);
		barrier();
		check(window_check(k, ro, len, !global && !rem, what),
		      "%s: my window holds rank %d's bytes%s", what, peer,
		      global ? " once its GLOBAL event came" :
		      rem ? " once its remote event came" : " (soon)");
		barrier();
	}

	/* a GET, dual events, and a REMOTE event to its owner */
	lbuf_guard(8, 4096);
	desc_rdma(&d, GNI_POST_RDMA_GET, GNI_CQMODE_DUAL_EVENTS |
		  GNI_CQMODE_REMOTE_EVENT, 8, 4, 4096);
	ok = rdma_post_wait(job.ep[peer], job.cq, &d, &c, peer);
	check(ok && lbuf_check(8, 4, 4096, "GET, dual"), "GET of 4096 bytes, "
	      "LOCAL | GLOBAL | REMOTE: two events, the data there%s%s",
	      ok ? "" : ": ", ok ? "" : describe(&c));
	remote_event("GET, LOCAL | GLOBAL | REMOTE (at the data's owner)");
	barrier();
}

/* 4: GETs the BTE cannot do */
static void alignment(void)
{
	static const struct {
		uint64_t lo, ro, len;
		const char *what;
	} bad[] = {
		{ 0, 2, 8, "remote address 2 mod 4" },
		{ 1, 0, 8, "odd local address" },
		{ 0, 0, 6, "length 6" },
		{ 4, 1, 3, "all three" },
	};
	gni_post_descriptor_t d;
	gni_return_t rc;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		desc_rdma(&d, GNI_POST_RDMA_GET, GNI_CQMODE_GLOBAL_EVENT,
			  bad[i].lo, bad[i].ro, bad[i].len);
		rc = GNI_PostRdma(job.ep[peer], &d);
		check(rc == GNI_RC_ALIGNMENT_ERROR, "GET, %s: %s (want "
		      "GNI_RC_ALIGNMENT_ERROR)", bad[i].what, rc_str(rc));
	}
	no_event(job.cq, "the refused GETs");
}

/* 5: a target made of three segments */
static void segments(void)
{
	const uint64_t first = 100, n0 = PAGE - first, n1 = 2 * PAGE,
		       n2 = 1000, total = n0 + n1 + n2;
	uint8_t *a = alloc_aligned(PAGE, PAGE), *b = alloc_aligned(PAGE, n1),
		*z = alloc_aligned(PAGE, PAGE);
	gni_mem_segment_t seg[3];
	gni_post_descriptor_t d;
	struct completion c;
	struct job_buf *all;
	gni_mem_handle_t mh;
	gni_return_t rc;
	uint64_t i, bad = 0;
	int ok;

	memset(a, 0xa1, PAGE);
	memset(b, 0xb2, n1);
	memset(z, 0xc3, PAGE);
	seg[0].address = (uint64_t)(uintptr_t)a + first;
	seg[0].length = n0;
	seg[1].address = (uint64_t)(uintptr_t)b;
	seg[1].length = n1;
	seg[2].address = (uint64_t)(uintptr_t)z;
	seg[2].length = n2;
	memset(&mh, 0, sizeof(mh));
	rc = GNI_MemRegisterSegments(job.nic, seg, 3, rcq, GNI_MEM_READWRITE,
				     (uint32_t)-1, &mh);
	check(rc == GNI_RC_SUCCESS, "GNI_MemRegisterSegments of 3 segments "
	      "(%" PRIu64 " + %" PRIu64 " + %" PRIu64 " bytes) with the "
	      "remote-event CQ: %s", n0, n1, n2, rc_str(rc));
	all = publish(NULL, &mh);
	barrier();

	/* PUT across the three, by offset: the first byte is at 100 */
	lbuf_fill(200, 0, total);
	desc_rdma(&d, GNI_POST_RDMA_PUT, GNI_CQMODE_GLOBAL_EVENT |
		  GNI_CQMODE_REMOTE_EVENT, 0, 0, total);
	d.remote_addr = first;
	d.remote_mem_hndl = all[peer].mh;
	ok = rdma_post_wait(job.ep[peer], job.cq, &d, &c, peer);
	check(ok, "PUT of %" PRIu64 " bytes at offset %" PRIu64 " of rank "
	      "%d's segmented handle%s%s", total, first, peer, ok ? "" : ": ",
	      ok ? "" : describe(&c));
	remote_event("PUT into segments");
	for (i = 0; i < first; i++)
		bad += a[i] != 0xa1;
	for (i = 0; i < total; i++) {
		uint8_t got = i < n0 ? a[first + i] : i < n0 + n1 ?
			      b[i - n0] : z[i - n0 - n1];

		bad += got != pat(peer, 200, i);
	}
	for (i = n2; i < PAGE; i++)
		bad += z[i] != 0xc3;
	check(!bad, "my three segments hold rank %d's bytes in order, the "
	      "bytes before and after them untouched (%" PRIu64 " wrong)",
	      peer, bad);
	barrier();

	/* and back again */
	lbuf_guard(0, total);
	desc_rdma(&d, GNI_POST_RDMA_GET, GNI_CQMODE_GLOBAL_EVENT, 0, 0, total);
	d.remote_addr = first;
	d.remote_mem_hndl = all[peer].mh;
	ok = rdma_post_wait(job.ep[peer], job.cq, &d, &c, peer);
	for (i = 0, bad = 0; ok && i < total; i++)
		bad += lbuf[GUARD + i] != pat(job.rank, 200, i);
	check(ok && !bad && lbuf[GUARD - 1] == 0x5a &&
	      lbuf[GUARD + total] == 0x5a, "GET of the %" PRIu64 " bytes back "
	      "from offset %" PRIu64 ": what I put there%s%s", total, first,
	      ok ? "" : ": ", ok ? "" : describe(&c));
	barrier();
	rc = GNI_MemDeregister(job.nic, &mh);
	check(rc == GNI_RC_SUCCESS, "GNI_MemDeregister of the segmented "
	      "handle: %s", rc_str(rc));
	free(all);
	free(a);
	free(b);
	free(z);
}

/*
 * An error completion of @d on job.cq: exactly one error event, before
 * which only the OK LOCAL event of a dual post may come (LOCAL is raised
 * once the data is sent, before the target refuses it).
 */
static void error_completion(gni_post_descriptor_t *d, const char *what)
{
	struct completion c;
	int n = 0, ok = 1;

	memset(&c, 0, sizeof(c));
	c.ev_rc = c.gc_rc = GNI_RC_NOT_DONE;
	c.post_rc = GNI_PostRdma(job.ep[peer], d);
	while (c.post_rc == GNI_RC_SUCCESS && n < 2) {
		c.ev_rc = wait_event(job.cq, &c.ev);
		if (c.ev_rc == GNI_RC_NOT_DONE)
			break;
		n++;
		c.gc_rc = GNI_GetCompleted(job.cq, c.ev, &c.pd);
		if (!GNI_CQ_STATUS_OK(c.ev)) {
			GNI_CqErrorStr(c.ev, c.err, sizeof(c.err));
			break;
		}
		if ((d->cq_mode & EV_LG) != EV_LG || c.gc_rc != GNI_RC_SUCCESS ||
		    c.pd != d ||
		    d->cq_mode_complete != GNI_CQMODE_LOCAL_EVENT) {
			ok = 0;
			break;
		}
	}
	check(ok && completed_error(&c, d) && GNI_CQ_GET_INST_ID(c.ev) ==
	      (uint64_t)peer, "%s: %sone error completion (%s)", what,
	      n == 2 ? "an OK LOCAL event, then " : "", describe(&c));
	no_event(job.cq, what);
}

/* 6: PUT and GET through a handle its owner dropped */
static void deregistered(void)
{
	uint8_t *p = alloc_aligned(PAGE, PAGE);
	gni_post_descriptor_t d;
	struct job_buf *all;
	gni_mem_handle_t mh;
	gni_return_t rc;
	int i, bad = 0;

	memset(p, 0xd5, PAGE);
	mh = reg(job.nic, p, PAGE, NULL, GNI_MEM_READWRITE,
		 "a page to be deregistered");
	all = publish(p, &mh);
	rc = GNI_MemDeregister(job.nic, &mh);
	check(rc == GNI_RC_SUCCESS, "GNI_MemDeregister of that page: %s",
	      rc_str(rc));
	/* Nobody registers anything until every rank is done. */
	barrier();
	lbuf_fill(300, 0, 256);
	desc_rdma(&d, GNI_POST_RDMA_PUT, GNI_CQMODE_DUAL_EVENTS, 0, 0, 256);
	d.remote_addr = all[peer].addr;
	d.remote_mem_hndl = all[peer].mh;
	error_completion(&d, "PUT, dual events, to a deregistered handle");
	desc_rdma(&d, GNI_POST_RDMA_GET, GNI_CQMODE_GLOBAL_EVENT, 0, 0, 256);
	d.remote_addr = all[peer].addr;
	d.remote_mem_hndl = all[peer].mh;
	error_completion(&d, "GET from a deregistered handle");
	barrier();
	for (i = 0; i < PAGE; i++)
		bad += p[i] != 0xd5;
	check(!bad, "the page behind my deregistered handle is untouched (%d "
	      "bytes changed)", bad);
	free(all);
	free(p);
}

/* 7: a CDM of one BTE channel: FENCE, and a full channel */
static void single_channel(void)
{
	gni_cdm_handle_t cdm2;
	gni_nic_handle_t nic2;
	gni_cq_handle_t cq2;
	gni_ep_handle_t ep2;
	gni_mem_handle_t lmh2;
	gni_post_descriptor_t d, fd, *flood;
	struct completion c;
	gni_cq_entry_t ev;
	gni_return_t rc = GNI_RC_SUCCESS;
	uint32_t addr2;
	int n, i, got, bad;

	desc_rdma(&d, GNI_POST_RDMA_PUT, GNI_CQMODE_GLOBAL_EVENT, 0, 0, 8);
	d.rdma_mode = GNI_RDMAMODE_FENCE;
	rc = GNI_PostRdma(job.ep[peer], &d);
	check(rc == GNI_RC_INVALID_PARAM, "FENCE without "
	      "GNI_CDM_MODE_BTE_SINGLE_CHANNEL: %s (want "
	      "GNI_RC_INVALID_PARAM)", rc_str(rc));

	rc = GNI_CdmCreate(INST2(job.rank), job.ptag, job.cookie,
			   GNI_CDM_MODE_BTE_SINGLE_CHANNEL, &cdm2);
	if (rc == GNI_RC_SUCCESS)
		rc = GNI_CdmAttach(cdm2, job.dev_id, &addr2, &nic2);
	if (rc == GNI_RC_SUCCESS)
		rc = GNI_CqCreate(nic2, CQ2_ENTRIES, 0, GNI_CQ_NOBLOCK, NULL,
				  NULL, &cq2);
	if (rc == GNI_RC_SUCCESS)
		rc = GNI_EpCreate(nic2, cq2, &ep2);
	if (rc == GNI_RC_SUCCESS)
		rc = GNI_EpBind(ep2, job.addrs[peer], INST2(peer));
	if (!check(rc == GNI_RC_SUCCESS, "a second CDM (inst %u, "
		   "BTE_SINGLE_CHANNEL), its CQ and an endpoint to rank %d: "
		   "%s", INST2(job.rank), peer, rc_str(rc)))
		return;
	lmh2 = reg(nic2, lbuf, BUF, NULL, GNI_MEM_READWRITE,
		   "the local buffer again, on the second CDM");

	desc_rdma(&d, GNI_POST_RDMA_PUT, GNI_CQMODE_DUAL_EVENTS, 0, 0, 8);
	d.local_mem_hndl = lmh2;
	rc = GNI_PostRdma(ep2, &d);
	check(rc == GNI_RC_INVALID_PARAM, "LOCAL | GLOBAL without "
	      "GNI_CDM_MODE_DUAL_EVENTS: %s (want GNI_RC_INVALID_PARAM)",
	      rc_str(rc));

	/* a fenced 1 MiB PUT, then 8 bytes: in that order */
	lbuf_fill(400, 0, 1u << 20);
	desc_rdma(&fd, GNI_POST_RDMA_PUT, GNI_CQMODE_GLOBAL_EVENT, 0, 0,
		  1u << 20);
	fd.local_mem_hndl = lmh2;
	fd.rdma_mode = GNI_RDMAMODE_FENCE;
	desc_rdma(&d, GNI_POST_RDMA_PUT, GNI_CQMODE_GLOBAL_EVENT, 0,
		  (1u << 20) + 64, 8);
	d.local_mem_hndl = lmh2;
	rc = GNI_PostRdma(ep2, &fd);
	if (rc == GNI_RC_SUCCESS)
		rc = GNI_PostRdma(ep2, &d);
	check(rc == GNI_RC_SUCCESS, "a 1 MiB PUT with GNI_RDMAMODE_FENCE, "
	      "then an 8-byte PUT: %s", rc_str(rc));
	if (rc == GNI_RC_SUCCESS) {
		memset(&c, 0, sizeof(c));
		c.post_rc = rc;
		c.ev_rc = wait_event(cq2, &c.ev);
		c.gc_rc = GNI_GetCompleted(cq2, c.ev, &c.pd);
		check(completed_ok(&c, &fd) && GNI_CQ_GET_INST_ID(c.ev) ==
		      INST2(peer), "the fenced PUT completes first: %s",
		      describe(&c));
		c.ev_rc = wait_event(cq2, &c.ev);
		c.gc_rc = GNI_GetCompleted(cq2, c.ev, &c.pd);
		check(completed_ok(&c, &d), "then the 8-byte PUT: %s",
		      describe(&c));
	}
	barrier();
	check(window_check(400, 0, 1u << 20, 0, "fenced PUT"), "my window "
	      "holds rank %d's fenced 1 MiB", peer);
	for (i = 0, bad = 0; i < 8; i++)
		bad += win[GUARD + (1u << 20) + 64 + i] != pat(peer, 400, i);
	check(!bad, "and its 8 bytes after it");
	window_reset(GUARD + (1u << 20), BUF - GUARD);
	barrier();

	/* fenced 1 MiB PUTs, never reaped: the channel fills up */
	flood = calloc(MAX_FLOOD, sizeof(*flood));
	if (!flood)
		job_bail("out of memory");
	for (n = 0; n < MAX_FLOOD; n++) {
		desc_rdma(&flood[n], GNI_POST_RDMA_PUT,
			  GNI_CQMODE_GLOBAL_EVENT, 0, 0, 1u << 20);
		flood[n].local_mem_hndl = lmh2;
		flood[n].rdma_mode = GNI_RDMAMODE_FENCE;
		rc = GNI_PostRdma(ep2, &flood[n]);
		if (rc != GNI_RC_SUCCESS)
			break;
	}
	check(rc == GNI_RC_ERROR_RESOURCE && n > 0, "fenced 1 MiB PUTs posted "
	      "without reaping: GNI_RC_ERROR_RESOURCE after %d (%s)", n,
	      rc_str(rc));
	for (i = 0, got = 0, bad = 0; i < n; i++) {
		memset(&c, 0, sizeof(c));
		c.ev_rc = wait_event(cq2, &c.ev);
		if (c.ev_rc == GNI_RC_NOT_DONE)
			break;
		got++;
		c.gc_rc = GNI_GetCompleted(cq2, c.ev, &c.pd);
		if ((c.ev_rc != GNI_RC_SUCCESS || c.gc_rc != GNI_RC_SUCCESS ||
		     !c.pd || c.pd < flood || c.pd >= flood + n) && bad++ < 3)
			diag("flood event %d: %s", i, describe(&c));
	}
	check(got == n && !bad, "their %d events reaped, each a descriptor of "
	      "the flood (%d came, %d wrong)", n, got, bad);
	desc_rdma(&d, GNI_POST_RDMA_PUT, GNI_CQMODE_GLOBAL_EVENT, 0, 0, 8);
	d.local_mem_hndl = lmh2;
	check(rdma_post_wait(ep2, cq2, &d, &c, INST2(peer)), "after that a "
	      "post goes through again: %s", describe(&c));
	check(GNI_CqGetEvent(cq2, &ev) == GNI_RC_NOT_DONE, "no event left "
	      "on the second CDM's CQ");
	free(flood);
	barrier();
	check(window_check(400, 0, 1u << 20, 0, "flood"), "my window holds "
	      "rank %d's 1 MiB after the flood", peer);
	window_reset(GUARD, BUF - GUARD);
	barrier();

	rc = GNI_EpUnbind(ep2);
	if (rc == GNI_RC_SUCCESS)
		rc = GNI_EpDestroy(ep2);
	if (rc == GNI_RC_SUCCESS)
		rc = GNI_MemDeregister(nic2, &lmh2);
	if (rc == GNI_RC_SUCCESS)
		rc = GNI_CqDestroy(cq2);
	if (rc == GNI_RC_SUCCESS)
		rc = GNI_CdmDestroy(cdm2);
	check(rc == GNI_RC_SUCCESS, "the second CDM released: %s", rc_str(rc));
}

/* 8: every ordered pair, sizes around the powers of two */
static void all_pairs(void)
{
	static const uint64_t puts[] = { 1, 63, 64, 65, 4095, 4096, 4097,
					 8191, 8192, 8193 };
	static const uint64_t gets[] = { 4, 60, 64, 68, 4092, 4096, 4100,
					 8188, 8192 };
	int pair = peer, shift, to, from;
	gni_post_descriptor_t d;
	struct completion c;
	unsigned int k;
	int ok;

	for (shift = 1; shift < job.size; shift++) {
		to = (job.rank + shift) % job.size;
		from = (job.rank + job.size - shift) % job.size;
		for (k = 0; k < ARRAY_SIZE(puts); k++) {
			peer = to;
			lbuf_fill(k, 5, puts[k]);
			desc_rdma(&d, GNI_POST_RDMA_PUT, GNI_CQMODE_GLOBAL_EVENT,
				  5, 3, puts[k]);
			ok = rdma_post_wait(job.ep[to], job.cq, &d, &c, to);
			check(ok, "PUT of %" PRIu64 " bytes to rank %d%s%s",
			      puts[k], to, ok ? "" : ": ",
			      ok ? "" : describe(&c));
			barrier();
			peer = from;
			check(window_check(k, 3, puts[k], 0, "PUT"), "my window "
			      "after rank %d's PUT of %" PRIu64 " bytes", from,
			      puts[k]);
			barrier();
		}
		peer = to;
		for (k = 0; k < ARRAY_SIZE(gets); k++) {
			lbuf_guard(8, gets[k]);
			desc_rdma(&d, GNI_POST_RDMA_GET, GNI_CQMODE_GLOBAL_EVENT,
				  8, 4, gets[k]);
			ok = rdma_post_wait(job.ep[to], job.cq, &d, &c, to);
			if (check(ok, "GET of %" PRIu64 " bytes from rank %d%s%s",
				  gets[k], to, ok ? "" : ": ",
				  ok ? "" : describe(&c)))
				check(lbuf_check(8, 4, gets[k], "GET"), "the %"
				      PRIu64 " bytes from rank %d", gets[k],
				      to);
		}
		barrier();
	}
	peer = pair;
}

/*
 * Rank 0 PUTs @len bytes from @src + @loff into @target's @dst + @roff
 * (all of @dst zeroed first); the target checks it and that the rest of
 * @dst is still 0.
 */
static void large_unaligned(uint8_t *src, gni_mem_handle_t smh, uint8_t *dst,
			    const struct job_buf *dst_all, uint64_t max,
			    int target, uint64_t loff, uint64_t roff,
			    uint64_t len)
{
	gni_post_descriptor_t d;
	struct completion c;
	uint64_t i;
	int ok;

	if (job.rank == target)
		memset(dst, 0, max);
	barrier();
	if (job.rank == 0) {
		for (i = 0; i < len; i++)
			src[loff + i] = pat(target, 99, i);
		desc_init(&d, GNI_POST_RDMA_PUT, GNI_CQMODE_GLOBAL_EVENT);
		d.local_addr = (uint64_t)(uintptr_t)(src + loff);
		d.local_mem_hndl = smh;
		d.remote_addr = dst_all[target].addr + roff;
		d.remote_mem_hndl = dst_all[target].mh;
		d.length = len;
		ok = rdma_post_wait(job.ep[target], job.cq, &d, &c, target);
		check(ok, "PUT of %" PRIu64 " bytes from offset %" PRIu64
		      " to offset %" PRIu64 " of rank %d%s%s", len, loff, roff,
		      target, ok ? "" : ": ", ok ? "" : describe(&c));
	}
	barrier();
	if (job.rank == target) {
		for (i = 0, ok = 1; ok && i < len; i++)
			ok = dst[roff + i] == pat(target, 99, i);
		check(ok, "rank 0's unaligned PUT of %" PRIu64 " bytes, byte "
		      "for byte", len);
		for (i = 0, ok = 1; ok && i < roff; i++)
			ok = !dst[i];
		for (i = roff + len; ok && i < max; i++)
			ok = !dst[i];
		check(ok, "the %" PRIu64 " bytes before it and %" PRIu64
		      " after it untouched", roff, max - roff - len);
	}
	barrier();
}

/* 9: large transfers from rank 0 to a neighbour and 3 hops away */
static void large(void)
{
	const uint64_t max = 64u << 20;
	uint8_t *src = alloc_aligned(PAGE, max), *dst = alloc_aligned(PAGE, max);
	gni_mem_handle_t smh, dmh;
	struct job_buf *dst_all;
	int targets[2] = { 1, 7 }, t, pair = peer;
	gni_post_descriptor_t d;
	struct completion c;
	uint64_t len, i;
	int ok;

	smh = reg(job.nic, src, max, NULL, GNI_MEM_READWRITE, "64 MiB source");
	dmh = reg(job.nic, dst, max, NULL, GNI_MEM_READWRITE, "64 MiB target");
	memset(dst, 0, max);
	dst_all = publish(dst, &dmh);
	barrier();
	for (t = 0; t < 2 && targets[t] < job.size; t++) {
		for (len = 4096; len <= max; len *= 2) {
			if (job.rank == 0) {
				for (i = 0; i < len; i++)
					src[i] = pat(t, (int)(len >> 12), i);
				desc_init(&d, GNI_POST_RDMA_PUT,
					  GNI_CQMODE_GLOBAL_EVENT);
				d.local_addr = (uint64_t)(uintptr_t)src;
				d.local_mem_hndl = smh;
				d.remote_addr = dst_all[targets[t]].addr;
				d.remote_mem_hndl = dst_all[targets[t]].mh;
				d.length = len;
				ok = rdma_post_wait(job.ep[targets[t]], job.cq,
						    &d, &c, targets[t]);
				check(ok, "PUT of %" PRIu64 " bytes to rank %d"
				      "%s%s", len, targets[t], ok ? "" : ": ",
				      ok ? "" : describe(&c));
				/* and back, over what was sent */
				memset(src, 0, len);
				d.type = GNI_POST_RDMA_GET;
				ok = rdma_post_wait(job.ep[targets[t]], job.cq,
						    &d, &c, targets[t]);
				for (i = 0; ok && i < len; i++)
					ok = src[i] == pat(t, (int)(len >> 12),
							   i);
				check(ok, "GET of the %" PRIu64 " bytes back "
				      "from rank %d, byte for byte%s%s", len,
				      targets[t], ok ? "" : ": ",
				      ok ? "" : describe(&c));
			}
			barrier();
			if (job.rank == targets[t]) {
				for (i = 0, ok = 1; ok && i < len; i++)
					ok = dst[i] == pat(t, (int)(len >> 12),
							   i);
				check(ok, "rank 0's PUT of %" PRIu64 " bytes, "
				      "byte for byte", len);
			}
			barrier();
		}
		large_unaligned(src, smh, dst, dst_all, max, targets[t], 7,
				4093, max - 4097);
	}
	GNI_MemDeregister(job.nic, &smh);
	GNI_MemDeregister(job.nic, &dmh);
	free(dst_all);
	free(src);
	free(dst);
	peer = pair;
}

/* 10: the local buffer registered through another CDM of the process */
static void other_cdm_buffer(void)
{
	gni_mem_handle_t own = lb_mh;
	gni_post_descriptor_t d;
	gni_cdm_handle_t cdm3;
	gni_nic_handle_t nic3;
	uint32_t addr3;
	gni_return_t rc;

	rc = GNI_CdmCreate(INST3(job.rank), job.ptag, job.cookie, 0, &cdm3);
	if (rc == GNI_RC_SUCCESS)
		rc = GNI_CdmAttach(cdm3, job.dev_id, &addr3, &nic3);
	if (!check(rc == GNI_RC_SUCCESS, "another CDM (inst %u) of the same "
		   "ptag and cookie: %s", INST3(job.rank), rc_str(rc)))
		return;
	lb_mh = reg(nic3, lbuf, BUF, NULL, GNI_MEM_READWRITE,
		    "the local buffer, through the other CDM");
	put_sizes();
	get_sizes();
	rc = GNI_MemDeregister(nic3, &lb_mh);
	check(rc == GNI_RC_SUCCESS, "GNI_MemDeregister through the other "
	      "CDM: %s", rc_str(rc));
	desc_rdma(&d, GNI_POST_RDMA_PUT, GNI_CQMODE_GLOBAL_EVENT, 0, 0, 8);
	rc = GNI_PostRdma(job.ep[peer], &d);
	check(rc == GNI_RC_INVALID_PARAM, "a PUT from that deregistered "
	      "handle: %s (want GNI_RC_INVALID_PARAM)", rc_str(rc));
	lb_mh = own;
	rc = GNI_CdmDestroy(cdm3);
	check(rc == GNI_RC_SUCCESS, "GNI_CdmDestroy of the other CDM: %s",
	      rc_str(rc));
	barrier();
}

int main(void)
{
	gni_return_t rc;
	int r;

	job_cdm_modes = GNI_CDM_MODE_DUAL_EVENTS;
	job_init("ugni_rdma", 1);
	peer = (job.rank ^ 1) < job.size ? job.rank ^ 1 : job.rank;
	diag("rank %d pairs with rank %d", job.rank, peer);

	win = alloc_aligned(PAGE, BUF);
	lbuf = alloc_aligned(PAGE, BUF);
	window_reset(0, BUF);
	memset(lbuf, 0x5a, BUF);
	rc = GNI_CqCreate(job.nic, RCQ_ENTRIES, 0, GNI_CQ_NOBLOCK, NULL, NULL,
			  &rcq);
	if (!check(rc == GNI_RC_SUCCESS, "GNI_CqCreate of the remote-event "
		   "CQ: %s", rc_str(rc)))
		job_bail("no CQ");
	win_mh = reg(job.nic, win, BUF, rcq, GNI_MEM_READWRITE,
		     "the window, with the remote-event CQ");
	lb_mh = reg(job.nic, lbuf, BUF, NULL, GNI_MEM_READWRITE,
		    "the local buffer");
	win_all = publish(win, &win_mh);
	for (r = 0; r < job.size; r++)
		GNI_EpSetEventData(job.ep[r], r, REMOTE_EVENT(job.rank));
	barrier();

	put_sizes();
	get_sizes();
	barrier();
	put_modes();
	alignment();
	barrier();
	segments();
	deregistered();
	barrier();
	single_channel();
	barrier();
	all_pairs();
	large();
	barrier();
	other_cdm_buffer();

	no_event(rcq, "my window's CQ at the end");
	rc = GNI_MemDeregister(job.nic, &lb_mh);
	check(rc == GNI_RC_SUCCESS, "GNI_MemDeregister of the local buffer: %s",
	      rc_str(rc));
	rc = GNI_MemDeregister(job.nic, &win_mh);
	if (rc == GNI_RC_SUCCESS)
		rc = GNI_CqDestroy(rcq);
	check(rc == GNI_RC_SUCCESS, "the window and its CQ released: %s",
	      rc_str(rc));
	job_fini();
	free(win_all);
	return job_finish();
}
