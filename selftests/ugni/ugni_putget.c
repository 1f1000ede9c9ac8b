// SPDX-License-Identifier: GPL-2.0-only
/*
 * ugni_putget: FMA PUT and GET between every ordered pair of ranks (each
 * rank with itself too), through gni_pub.h and pmi.h alone.
 *
 *     vgemini run -n 8 ugni_putget [--sizes N] [--offsets N]
 *
 * Every rank owns a window of one 8 KiB region per rank, registered once;
 * rank s writes only into region s of every window.  For every peer, for
 * every length 1..64 (--sizes) and every remote offset of {0, 3, 4093,
 * 1, 2} (4093 crosses a page from length 4 on; --offsets takes the first
 * N), from a
 * local offset of 0..3: a PUT of a pattern of its own (source, peer,
 * length, offset), then GETs of the 4-byte aligned span around it with
 * 4 bytes more on each side, checked byte for byte against a copy of what
 * the region must hold (so a PUT that wrote one byte too many or too few
 * is seen).  Each completion is the post's GLOBAL event, with its
 * descriptor back from GNI_GetCompleted, post_id intact, inst_id the
 * remote_id of the endpoint.  After a barrier every rank checks its whole
 * window against the replay of every source's sequence.
 *
 * FMA GETs need a 4-byte aligned remote address, local address and
 * length on Gemini: the unaligned ones are refused with
 * GNI_RC_ALIGNMENT_ERROR and make no event.
 */
#include "ugni_job.h"

#define REGION		(2 * PAGE)
#define GUARD		4
#define MAX_LEN		64
#define GET_CHUNK	64

/* The page-crossing one among the first three: --offsets 3 keeps it. */
static const uint64_t offsets[] = { 0, 3, PAGE - 3, 1, 2 };
static int nsizes = MAX_LEN;
static unsigned int noffsets = ARRAY_SIZE(offsets);

/* Byte i of region (dst's window, src's region) before any PUT */
static uint8_t background(int dst, int src, unsigned int i)
{
	return (uint8_t)(0xa5 ^ (dst * 17 + src * 71 + i * 13 + (i >> 8)));
}

/* Byte i of src's PUT of @len bytes at @off into dst */
static uint8_t pattern(int src, int dst, int len, uint64_t off,
		       unsigned int i)
{
	return (uint8_t)(src * 53 + dst * 29 + len * 7 + off * 3 + i * 11 + 1);
}

/* Local offset of the source bytes of a PUT: 0..3, varying */
static unsigned int local_offset(int len, uint64_t off)
{
	return (unsigned int)(len * 3 + off) & 3;
}

/* What region (dst, src) holds after src's whole sequence */
static void replay(int dst, int src, uint8_t *shadow)
{
	unsigned int i, k;
	int len;

	for (i = 0; i < REGION; i++)
		shadow[i] = background(dst, src, i);
	for (len = 1; len <= nsizes; len++)
		for (k = 0; k < noffsets; k++)
			for (i = 0; i < (unsigned int)len; i++)
				shadow[offsets[k] + i] =
					pattern(src, dst, len, offsets[k], i);
}

static uint64_t post_ids;
static int bad_inst, bad_post_id;

/* post_wait() that also checks the event's inst_id and the post_id */
static int post_checked(int peer, gni_post_descriptor_t *d,
			struct completion *c)
{
	uint64_t id = ++post_ids;
	int ok;

	d->post_id = id;
	ok = post_wait(job.ep[peer], job.cq, d, c);
	if (ok && GNI_CQ_GET_INST_ID(c->ev) != (uint64_t)peer && bad_inst++ < 3)
		diag("event 0x%016" PRIx64 " of a post to rank %d: inst_id %"
		     PRIu64, (uint64_t)c->ev, peer,
		     (uint64_t)GNI_CQ_GET_INST_ID(c->ev));
	if (ok && d->post_id != id && bad_post_id++ < 3)
		diag("post_id %" PRIu64 " came back as %" PRIu64, id,
		     d->post_id);
	return ok;
}

int main(int argc, char **argv)
{
	struct job_buf *win_all, *lb_all;
	gni_mem_handle_t win_mh, lb_mh;
	gni_post_descriptor_t d;
	struct completion c;
	uint8_t *win, *lbuf, *src, *sink, *shadow;
	int i, k, peer, len, bad_post = 0, bad_data = 0, posts = 0;
	unsigned int oi, lo;
	double t0;
	gni_return_t rc;
	gni_cq_entry_t ev;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--sizes") && i + 1 < argc)
			nsizes = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--offsets") && i + 1 < argc)
			noffsets = atoi(argv[++i]);
		else {
			fprintf(stderr, "usage: ugni_putget [--sizes 1..64] "
				"[--offsets 1..%zu]\n", ARRAY_SIZE(offsets));
			return 2;
		}
	}
	if (nsizes < 1 || nsizes > MAX_LEN || noffsets < 1 ||
	    noffsets > ARRAY_SIZE(offsets)) {
		fprintf(stderr, "ugni_putget: bad --sizes or --offsets\n");
		return 2;
	}
	job_init("ugni_putget", 1);

	/* The window: page-aligned heap memory; the local buffer: malloc. */
	win = alloc_aligned(PAGE, (size_t)job.size * REGION);
	for (peer = 0; peer < job.size; peer++)
		for (i = 0; i < REGION; i++)
			win[(size_t)peer * REGION + i] =
				background(job.rank, peer, i);
	lbuf = malloc(4 * MAX_LEN + 2 * GUARD + 64);
	shadow = malloc(REGION);
	if (!lbuf || !shadow)
		job_bail("out of memory");
	src = lbuf;
	sink = lbuf + 2 * MAX_LEN;	/* 4-byte aligned: malloc's is 16 */
	win_mh = reg(job.nic, win, (uint64_t)job.size * REGION, NULL,
		     GNI_MEM_READWRITE, "the window");
	lb_mh = reg(job.nic, lbuf, 4 * MAX_LEN + 2 * GUARD + 64, NULL,
		    GNI_MEM_READWRITE, "the local buffer (malloc)");
	win_all = publish(win, &win_mh);
	lb_all = publish(lbuf, &lb_mh);
	(void)lb_all;
	barrier();

	t0 = now();
	for (k = 0; k < job.size; k++) {
		peer = (job.rank + k) % job.size;
		uint64_t region = win_all[peer].addr +
				  (uint64_t)job.rank * REGION;
		int peer_bad_data = 0, peer_bad_post = 0;

		for (i = 0; i < REGION; i++)
			shadow[i] = background(peer, job.rank, i);
		for (len = 1; len <= nsizes; len++) {
			for (oi = 0; oi < noffsets; oi++) {
				uint64_t off = offsets[oi];
				uint64_t start = off & ~3ull, end, at;

				start = start >= GUARD ? start - GUARD : 0;
				end = ((off + len + 3) & ~3ull) + GUARD;
				lo = local_offset(len, off);
				for (i = 0; i < len; i++)
					src[lo + i] = shadow[off + i] =
						pattern(job.rank, peer, len,
							off, i);
				desc_rw(&d, GNI_POST_FMA_PUT, src + lo,
					&lb_mh, region + off,
					&win_all[peer].mh, len);
				posts++;
				if (!post_checked(peer, &d, &c)) {
					if (peer_bad_post++ < 3)
						diag("PUT of %d bytes at %" PRIu64
						     " into rank %d: %s", len,
						     off, peer, describe(&c));
					continue;
				}
				memset(sink, 0x5a, end - start);
				for (at = start; at < end; at += GET_CHUNK) {
					uint64_t n = end - at < GET_CHUNK ?
						     end - at : GET_CHUNK;

					desc_rw(&d, GNI_POST_FMA_GET,
						sink + (at - start), &lb_mh,
						region + at,
						&win_all[peer].mh, n);
					posts++;
					if (!post_checked(peer, &d, &c) &&
					    peer_bad_post++ < 3)
						diag("GET of %" PRIu64 " bytes "
						     "at %" PRIu64 " from rank "
						     "%d: %s", n, at, peer,
						     describe(&c));
				}
				if (memcmp(sink, shadow + start, end - start) &&
				    peer_bad_data++ < 3) {
					for (at = 0; at < end - start &&
					     sink[at] == shadow[start + at]; at++)
						;
					diag("rank %d, PUT of %d bytes at "
					     "%" PRIu64 " (local +%u): byte %"
					     PRIu64 " reads 0x%02x, want 0x%02x",
					     peer, len, off, lo, start + at,
					     sink[at], shadow[start + at]);
				}
			}
		}
		check(!peer_bad_post && !peer_bad_data, "rank %d: PUT of 1..%d "
		      "bytes at %u offsets, each read back by GET: %d failed "
		      "posts, %d wrong spans", peer, nsizes, noffsets,
		      peer_bad_post, peer_bad_data);
		bad_post += peer_bad_post;
		bad_data += peer_bad_data;
	}
	diag("%d posts in %.2f s (%.0f us each, with its completion)", posts,
	     now() - t0, (now() - t0) * 1e6 / (posts ? posts : 1));
	check(!bad_inst, "every local event carries the remote_id of its "
	      "endpoint as inst_id (%d did not)", bad_inst);
	check(!bad_post_id, "every descriptor came back with its post_id "
	      "(%d did not)", bad_post_id);

	/* Unaligned GETs: refused, no event. */
	desc_rw(&d, GNI_POST_FMA_GET, sink, &lb_mh, win_all[0].addr + 1,
		&win_all[0].mh, 4);
	rc = GNI_PostFma(job.ep[0], &d);
	check(rc == GNI_RC_ALIGNMENT_ERROR, "GET from an odd remote address: "
	      "%s (want GNI_RC_ALIGNMENT_ERROR)", rc_str(rc));
	desc_rw(&d, GNI_POST_FMA_GET, sink, &lb_mh, win_all[0].addr + 2,
		&win_all[0].mh, 4);
	rc = GNI_PostFma(job.ep[0], &d);
	check(rc == GNI_RC_ALIGNMENT_ERROR, "GET from a remote address 2 mod 4: "
	      "%s (want GNI_RC_ALIGNMENT_ERROR)", rc_str(rc));
	desc_rw(&d, GNI_POST_FMA_GET, sink, &lb_mh, win_all[0].addr, &win_all[0].mh,
		6);
	rc = GNI_PostFma(job.ep[0], &d);
	check(rc == GNI_RC_ALIGNMENT_ERROR, "GET of 6 bytes: %s (want "
	      "GNI_RC_ALIGNMENT_ERROR)", rc_str(rc));
	desc_rw(&d, GNI_POST_FMA_GET, sink + 1, &lb_mh, win_all[0].addr,
		&win_all[0].mh, 4);
	rc = GNI_PostFma(job.ep[0], &d);
	check(rc == GNI_RC_ALIGNMENT_ERROR, "GET into an odd local address: "
	      "%s (want GNI_RC_ALIGNMENT_ERROR)", rc_str(rc));
	usleep(100 * 1000);
	rc = GNI_CqGetEvent(job.cq, &ev);
	check(rc == GNI_RC_NOT_DONE, "the refused GETs made no event: %s",
	      rc_str(rc));

	/* Every source's whole sequence, as this rank's memory holds it. */
	barrier();
	for (peer = 0; peer < job.size; peer++) {
		replay(job.rank, peer, shadow);
		for (i = 0; i < REGION &&
		     win[(size_t)peer * REGION + i] == shadow[i]; i++)
			;
		check(i == REGION, "region of rank %d in my window: every "
		      "byte as its PUTs left it%s", peer,
		      i == REGION ? "" : " (NOT: see below)");
		if (i < REGION)
			diag("byte %d holds 0x%02x, want 0x%02x", i,
			     win[(size_t)peer * REGION + i], shadow[i]);
	}
	barrier();
	rc = GNI_MemDeregister(job.nic, &lb_mh);
	check(rc == GNI_RC_SUCCESS, "GNI_MemDeregister of the local buffer: %s",
	      rc_str(rc));
	rc = GNI_MemDeregister(job.nic, &win_mh);
	check(rc == GNI_RC_SUCCESS, "GNI_MemDeregister of the window: %s",
	      rc_str(rc));
	job_fini();
	free(win_all);
	free(lb_all);
	return job_finish();
}
