// SPDX-License-Identifier: GPL-2.0-only
/*
 * vgemini-agent: the bytes of the port.  A growable byte buffer, the frames
 * queued for the host (written to the port as it takes them) and the frames
 * read from it (cut out of the input and handed to handle_frame()).  The
 * frame format and the resynchronisation are described in agent.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"

#define IN_CAP			(2 * (HDR_LEN + AGENT_MAX_PAYLOAD))

static struct {
	unsigned char in[IN_CAP];
	size_t in_len;
	struct buf out;		/* frames for the host */
} io;

void buf_clear(struct buf *b)
{
	b->len = 0;
	b->off = 0;
}

void buf_free(struct buf *b)
{
	free(b->p);
	*b = (struct buf){ 0 };
}

static void buf_reserve(struct buf *b, size_t more)
{
	if (b->off && b->off == b->len)
		buf_clear(b);
	if (b->len + more <= b->cap)
		return;
	if (b->off) {
		memmove(b->p, b->p + b->off, b->len - b->off);
		b->len -= b->off;
		b->off = 0;
		if (b->len + more <= b->cap)
			return;
	}
	size_t cap = b->cap ? b->cap : 65536;

	while (cap < b->len + more)
		cap *= 2;
	unsigned char *p = realloc(b->p, cap);

	if (!p) {
		logmsg("out of memory");
		exit(1);
	}
	b->p = p;
	b->cap = cap;
}

size_t buf_used(const struct buf *b)
{
	return b->len - b->off;
}

void buf_append(struct buf *b, const void *data, size_t n)
{
	buf_reserve(b, n);
	memcpy(b->p + b->len, data, n);
	b->len += n;
}

void send_frame(uint8_t type, uint32_t id, const void *data, size_t n)
{
	unsigned char h[HDR_LEN] = { 0 };

	put32(h, AGENT_MAGIC);
	h[4] = type;
	put32(h + 8, id);
	put32(h + 12, n);
	buf_append(&io.out, h, sizeof(h));
	if (n)
		buf_append(&io.out, data, n);
}

void send_error(uint32_t id, const char *msg)
{
	send_frame(T_ERROR, id, msg, strlen(msg));
}

/* Bytes of frames queued for the host. */
size_t out_queued(void)
{
	return buf_used(&io.out);
}

/* True when the input holds as much as it can: read the port no more. */
bool in_full(void)
{
	return io.in_len >= sizeof(io.in);
}

/* Parse the frames in io.in; keep an incomplete one for later. */
static void parse_input(void)
{
	size_t pos = 0;

	while (io.in_len - pos >= HDR_LEN) {
		const unsigned char *h = io.in + pos;
		uint32_t len = get32(h + 12);

		if (get32(h) != AGENT_MAGIC || h[5] || h[6] || h[7] ||
		    len > AGENT_MAX_PAYLOAD) {
			pos++;		/* resynchronise on the next magic */
			continue;
		}
		if (io.in_len - pos < HDR_LEN + len)
			break;
		/*
		 * A HELLO drops the input read so far, but what follows it
		 * in the buffer is the new client's.
		 */
		handle_frame(h[4], get32(h + 8), h + HDR_LEN, len);
		pos += HDR_LEN + len;
	}
	memmove(io.in, io.in + pos, io.in_len - pos);
	io.in_len -= pos;
}

void read_port(int port)
{
	ssize_t n;

	n = read(port, io.in + io.in_len, sizeof(io.in) - io.in_len);
	if (n > 0) {
		io.in_len += n;
		parse_input();
	} else if (n < 0 && errno != EAGAIN && errno != EINTR) {
		logmsg("read: %s", strerror(errno));
		exit(1);
	}
	/* n == 0: the host went away; poll reports POLLHUP next. */
}

void write_port(int port)
{
	ssize_t n = write(port, io.out.p + io.out.off, buf_used(&io.out));

	if (n > 0) {
		io.out.off += n;
	} else if (n < 0 && errno != EAGAIN && errno != EINTR) {
		logmsg("write: %s", strerror(errno));
		exit(1);
	}
	if (io.out.off == io.out.len)
		buf_clear(&io.out);
}
