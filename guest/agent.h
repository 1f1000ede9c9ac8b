/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vgemini-agent's shared declarations: the wire names it uses, the byte
 * buffer, the request table, and what each of its files offers the others.
 *
 *   agent.c        main(), finding the port, the poll loop (the protocol is
 *                  described at its top)
 *   agent_frame.c  byte buffers, and the frames to and from the host
 *   agent_exec.c   requests and their processes
 */
#ifndef VGEMINI_GUEST_AGENT_H
#define VGEMINI_GUEST_AGENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "vgemini_agent.h"	/* the wire protocol, shared with the launcher */
#include "vgemini_le.h"

#define AGENT_MAGIC		VGEMINI_AGENT_MAGIC
#define AGENT_VERSION		VGEMINI_AGENT_VERSION
#define AGENT_MAX_PAYLOAD	VGEMINI_AGENT_MAX_PAYLOAD
#define AGENT_MAX_REQUESTS	VGEMINI_AGENT_MAX_REQUESTS
#define HDR_LEN			VGEMINI_AGENT_HDR_LEN

enum {
	T_HELLO = VGEMINI_AGENT_HELLO, T_EXEC = VGEMINI_AGENT_EXEC,
	T_STDIN = VGEMINI_AGENT_STDIN, T_SIGNAL = VGEMINI_AGENT_SIGNAL,
	T_PMI = VGEMINI_AGENT_PMI,
	T_HELLO_ACK = VGEMINI_AGENT_HELLO_ACK, T_STDOUT = VGEMINI_AGENT_STDOUT,
	T_STDERR = VGEMINI_AGENT_STDERR, T_EXIT = VGEMINI_AGENT_EXIT,
	T_ERROR = VGEMINI_AGENT_ERROR, T_PMI_OUT = VGEMINI_AGENT_PMI_OUT,
};

struct buf {
	unsigned char *p;
	size_t len;	/* valid bytes from p[off] to p[len - 1] */
	size_t off;
	size_t cap;
};

/* One running request (command). */
struct req {
	bool busy;
	uint32_t id;
	pid_t pid;		/* 0 once reaped */
	int status;
	int fd_out, fd_err, fd_in, fd_pmi;	/* -1 when closed */
	struct buf stdin_buf;
	bool stdin_close;	/* close fd_in once stdin_buf is written */
	struct buf pmi_buf;	/* bytes for the command's PMI socket */
	bool timed_out;
	int64_t deadline;	/* ms, 0: none */
	int64_t quiet_since;	/* ms: exit or last output after it */
};

/*
 * The request table: agent_exec.c owns it (starts, ends and aborts its
 * requests); the poll loop in agent.c walks it to serve their descriptors.
 */
extern struct req reqs[AGENT_MAX_REQUESTS];

static inline void put32(unsigned char *p, uint32_t v)
{
	vgemini_put_le32(p, v);
}

static inline uint32_t get32(const unsigned char *p)
{
	return vgemini_get_le32(p);
}

/* agent.c */
void logmsg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void dbg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int64_t now_ms(void);

/* agent_frame.c */
void buf_clear(struct buf *b);
void buf_free(struct buf *b);
size_t buf_used(const struct buf *b);
void buf_append(struct buf *b, const void *data, size_t n);
void send_frame(uint8_t type, uint32_t id, const void *data, size_t n);
void send_error(uint32_t id, const char *msg);
size_t out_queued(void);
bool in_full(void);
void read_port(int port);
void write_port(int port);

/* agent_exec.c */
void close_fd(int *fd);
void handle_frame(uint8_t type, uint32_t id, const unsigned char *p,
		  uint32_t len);
size_t stdin_held(void);
bool reap(struct req *r, bool block);
void kill_command(pid_t pid, int sig);
void abort_all(bool report);
void finish_request(struct req *r);
void read_child(struct req *r, int *fd, uint8_t type);
void write_child(int *fd, struct buf *b, bool close_on_error);

#endif /* VGEMINI_GUEST_AGENT_H */
