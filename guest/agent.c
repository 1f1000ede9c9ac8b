// SPDX-License-Identifier: GPL-2.0-only
/*
 * vgemini-agent: runs the host's commands inside a vgemini guest.
 *
 * The agent serves one virtio-serial port (named "vgemini.agent"), which the
 * host sees as a unix socket (QEMU -chardev socket).  One host client is
 * connected at a time; it may run several requests at once (a job's ranks
 * on this node), told apart by their ids.
 *
 * Protocol.  Both directions carry frames; all integers are little-endian.
 *
 *   offset size
 *   0      4    magic   0x47414756 ("VGAG")
 *   4      1    type
 *   5      1    flags   0
 *   6      2    reserved, 0
 *   8      4    id      request id chosen by the host
 *   12     4    len     payload bytes that follow (at most AGENT_MAX_PAYLOAD)
 *   16     len  payload
 *
 * Host to agent:
 *   HELLO  0x01  u32 version.  Aborts what the agent was doing (every
 *                running command is killed and reported ABORTED under its
 *                old id); answered by HELLO_ACK with the same id.  A client
 *                sends it first.
 *   EXEC   0x02  u32 timeout_ms (0: none), u32 flags, u32 argc, then argc
 *                NUL-terminated strings, then (EXEC_F_ENV) NUL-terminated
 *                NAME=VALUE strings added to the environment, filling the
 *                rest of the payload.  argv[0] is looked up in PATH.
 *                Flags: EXEC_F_STDIN (0x1) stdin frames follow, else stdin
 *                is /dev/null; EXEC_F_PMI (0x2) the command gets a stream
 *                socket on descriptor 3, and PMI_FD=3, whose bytes travel
 *                in PMI frames; EXEC_F_ENV (0x4) environment strings
 *                follow argv.  A request id must not be one that runs; at
 *                most AGENT_MAX_REQUESTS run at once.
 *   STDIN  0x03  bytes for the command's stdin; an empty one closes it.
 *   SIGNAL 0x04  u32 signal number, sent to the command's process group.
 *   PMI    0x05  bytes for the command's PMI socket (EXEC_F_PMI).
 *
 * Agent to host (id = the request's id):
 *   HELLO_ACK 0x81  u32 version, u32 AGENT_MAX_PAYLOAD, u32
 *                   AGENT_MAX_REQUESTS.
 *   STDOUT    0x82  bytes the command wrote to stdout.
 *   STDERR    0x83  bytes the command wrote to stderr.
 *   EXIT      0x84  u32 how, i32 value: 0 EXITED (exit code), 1 SIGNALED
 *                   (signal number), 2 TIMEOUT (killed with SIGKILL when
 *                   timeout_ms ran out; value 9), 3 NOSTART (fork or pipe
 *                   failed; errno), 4 ABORTED (killed because a HELLO came
 *                   or the host side closed; value 0).  The last frame of a
 *                   request.
 *   ERROR     0x85  text: the request was refused (busy, malformed); the
 *                   last frame of that request.
 *   PMI_OUT   0x86  bytes the command wrote to its PMI socket.
 *
 * Frames of several requests interleave; the frames of one request keep
 * the order in which the agent read the command's descriptors, and every
 * STDOUT, STDERR and PMI_OUT frame of a request comes before its EXIT.
 *
 * A command that cannot be executed prints a message on its stderr and
 * exits with status 127, as a shell does.  The command runs in its own
 * session and process group; the timeout, a SIGNAL and a disconnect act on
 * the whole group.  A request ends when its command has exited and its
 * stdout, stderr and PMI socket reached end of file, or DRAIN_MS after its
 * exit if something it left behind (a background job) keeps them open and
 * writes nothing more for DRAIN_MS.
 *
 * Resynchronisation.  Frames that do not start with the magic, carry a
 * non-zero flags/reserved field or an oversized length are skipped byte by
 * byte until a plausible header is found.  When the host side disconnects
 * the agent kills the running commands; it discards nothing, since the
 * guest may learn of the disconnection after the next client's first bytes
 * arrived.  So a new client may receive stale frames of an earlier request:
 * it ignores everything before the HELLO_ACK carrying its own HELLO id.  A
 * client that follows one which died mid-frame first sends
 * AGENT_MAX_PAYLOAD + 16 zero bytes, which complete the truncated frame
 * (and then are skipped as garbage), then its HELLO.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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

enum {
	EXIT_EXITED = VGEMINI_AGENT_EXITED,
	EXIT_SIGNALED = VGEMINI_AGENT_SIGNALED,
	EXIT_TIMEOUT = VGEMINI_AGENT_TIMEOUT,
	EXIT_NOSTART = VGEMINI_AGENT_NOSTART,
	EXIT_ABORTED = VGEMINI_AGENT_ABORTED,
};

#define EXEC_F_STDIN		VGEMINI_AGENT_EXEC_STDIN
#define EXEC_F_PMI		VGEMINI_AGENT_EXEC_PMI
#define EXEC_F_ENV		VGEMINI_AGENT_EXEC_ENV
#define EXEC_F_ALL		(EXEC_F_STDIN | EXEC_F_PMI | EXEC_F_ENV)
#define MAX_ARGC		4096u
#define MAX_ENVC		4096u
#define PMI_CHILD_FD		3

#define PORT_NAME		VGEMINI_AGENT_PORT_NAME
#define IN_CAP			(2 * (HDR_LEN + AGENT_MAX_PAYLOAD))
#define OUT_HIGH		(256u * 1024)	/* stop reading the children above */
#define STDIN_HIGH		(256u * 1024)	/* stop reading the port above */
#define PMI_HIGH		(64u * 1024 * 1024)	/* a rank that never reads */
#define READ_CHUNK		32768u
#define DRAIN_MS		500
#define IDLE_RECHECK_MS		2000		/* while disconnected */

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

static struct {
	int port;
	int sigfd;
	bool connected;
	unsigned char in[IN_CAP];
	size_t in_len;
	struct buf out;		/* frames for the host */
	struct req req[AGENT_MAX_REQUESTS];
} ag;

static bool debug;
static const char *port_path = "";

#define dbg(...) do { if (debug) logmsg(__VA_ARGS__); } while (0)

static void logmsg(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "vgemini-agent[%s]: ", port_path);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void put32(unsigned char *p, uint32_t v)
{
	vgemini_put_le32(p, v);
}

static uint32_t get32(const unsigned char *p)
{
	return vgemini_get_le32(p);
}

static void buf_clear(struct buf *b)
{
	b->len = 0;
	b->off = 0;
}

static void buf_free(struct buf *b)
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

static size_t buf_used(const struct buf *b)
{
	return b->len - b->off;
}

static void buf_append(struct buf *b, const void *data, size_t n)
{
	buf_reserve(b, n);
	memcpy(b->p + b->len, data, n);
	b->len += n;
}

static void send_frame(uint8_t type, uint32_t id, const void *data, size_t n)
{
	unsigned char h[HDR_LEN] = { 0 };

	put32(h, AGENT_MAGIC);
	h[4] = type;
	put32(h + 8, id);
	put32(h + 12, n);
	buf_append(&ag.out, h, sizeof(h));
	if (n)
		buf_append(&ag.out, data, n);
}

static void send_error(uint32_t id, const char *msg)
{
	send_frame(T_ERROR, id, msg, strlen(msg));
}

static void set_nonblock(int fd)
{
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

static void close_fd(int *fd)
{
	if (*fd >= 0) {
		close(*fd);
		*fd = -1;
	}
}

static struct req *find_req(uint32_t id)
{
	unsigned int i;

	for (i = 0; i < AGENT_MAX_REQUESTS; i++)
		if (ag.req[i].busy && ag.req[i].id == id)
			return &ag.req[i];
	return NULL;
}

static struct req *free_req(void)
{
	unsigned int i;

	for (i = 0; i < AGENT_MAX_REQUESTS; i++)
		if (!ag.req[i].busy)
			return &ag.req[i];
	return NULL;
}

/* Bytes of stdin held for all commands: above STDIN_HIGH, stop reading. */
static size_t stdin_held(void)
{
	size_t n = 0;
	unsigned int i;

	for (i = 0; i < AGENT_MAX_REQUESTS; i++)
		if (ag.req[i].busy)
			n += buf_used(&ag.req[i].stdin_buf);
	return n;
}

/* Reap the command if it has exited; true once it is reaped. */
static bool reap(struct req *r, bool block)
{
	int st;
	pid_t p;

	if (!r->pid)
		return true;
	do {
		p = waitpid(r->pid, &st, block ? 0 : WNOHANG);
	} while (p < 0 && errno == EINTR);
	if (p == r->pid || (p < 0 && errno == ECHILD)) {
		r->status = p == r->pid ? st : 0;
		r->pid = 0;
		r->quiet_since = now_ms();
		close_fd(&r->fd_in);
		buf_clear(&r->stdin_buf);
		return true;
	}
	return false;
}

static void release(struct req *r)
{
	close_fd(&r->fd_out);
	close_fd(&r->fd_err);
	close_fd(&r->fd_in);
	close_fd(&r->fd_pmi);
	buf_free(&r->stdin_buf);
	buf_free(&r->pmi_buf);
	r->busy = false;
}

/*
 * Signal a command and everything it started: its process group, which
 * it makes with setsid() just after the fork.  A signal that comes before
 * that (a rank killed at once) finds no group, and goes to the child.
 */
static void kill_command(pid_t pid, int sig)
{
	if (kill(-pid, sig) && errno == ESRCH)
		kill(pid, sig);
}

/* Kill a running request (reset or disconnect); report it if asked. */
static void abort_request(struct req *r, bool report)
{
	unsigned char p[8];

	dbg("aborting request %#x", r->id);
	if (r->pid) {
		kill_command(r->pid, SIGKILL);
		reap(r, true);
	}
	release(r);
	if (report) {
		put32(p, EXIT_ABORTED);
		put32(p + 4, 0);
		send_frame(T_EXIT, r->id, p, sizeof(p));
	}
}

static void abort_all(bool report)
{
	unsigned int i;

	for (i = 0; i < AGENT_MAX_REQUESTS; i++)
		if (ag.req[i].busy)
			abort_request(&ag.req[i], report);
}

static void finish_request(struct req *r)
{
	unsigned char p[8];
	uint32_t how;
	int32_t val;

	if (r->timed_out) {
		how = EXIT_TIMEOUT;
		val = SIGKILL;
	} else if (WIFSIGNALED(r->status)) {
		how = EXIT_SIGNALED;
		val = WTERMSIG(r->status);
	} else {
		how = EXIT_EXITED;
		val = WEXITSTATUS(r->status);
	}
	release(r);
	put32(p, how);
	put32(p + 4, (uint32_t)val);
	dbg("request %#x done: how %u value %d", r->id, how, val);
	send_frame(T_EXIT, r->id, p, sizeof(p));
}

static void child_exec(char **argv, char **env, int in, int out, int err,
		       int pmi)
{
	sigset_t none;
	int sig;

	setsid();
	/* The command starts with default dispositions and nothing blocked. */
	for (sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
		_exit(127);
	for (; env && *env; env++)
		putenv(*env);
	if (pmi >= 0) {
		/* dup2 onto itself would keep close-on-exec */
		if (pmi == PMI_CHILD_FD ? fcntl(pmi, F_SETFD, 0) < 0 :
		    dup2(pmi, PMI_CHILD_FD) < 0)
			_exit(127);
		setenv("PMI_FD", "3", 1);
	}
	/* Every other descriptor of the agent is close-on-exec. */
	execvp(argv[0], argv);
	dprintf(2, "vgemini-agent: cannot run '%s': %s\n", argv[0],
		strerror(errno));
	_exit(127);
}

/*
 * Split n NUL-terminated strings from p[*at] on into v (n + 1 slots, NULL
 * terminated); n = 0: as many as there are up to len.  False if one is
 * unterminated or there are too many.
 */
static bool take_strings(const unsigned char *p, uint32_t len, uint32_t *at,
			 char **v, uint32_t n, uint32_t max)
{
	uint32_t i;

	for (i = 0; n ? i < n : *at < len; i++) {
		const unsigned char *nul;

		if (i >= max)
			return false;
		nul = memchr(p + *at, 0, len - *at);
		if (!nul)
			return false;
		v[i] = (char *)p + *at;
		*at = nul - p + 1;
	}
	v[i] = NULL;
	return true;
}

static void start_exec(uint32_t id, const unsigned char *p, uint32_t len)
{
	int po[2] = { -1, -1 }, pe[2] = { -1, -1 }, pi[2] = { -1, -1 };
	int sp[2] = { -1, -1 };
	uint32_t timeout_ms, flags, argc, i, at = 12;
	unsigned char nostart[8];
	char **argv = NULL, **env = NULL;
	struct req *r;
	pid_t pid;

	if (find_req(id)) {
		send_error(id, "busy: a request with this id is running");
		return;
	}
	r = free_req();
	if (!r) {
		send_error(id, "busy: too many requests are running");
		return;
	}
	if (len < 12) {
		send_error(id, "malformed EXEC: short payload");
		return;
	}
	timeout_ms = get32(p);
	flags = get32(p + 4);
	argc = get32(p + 8);
	if (flags & ~EXEC_F_ALL) {
		send_error(id, "malformed EXEC: unknown flags");
		return;
	}
	if (argc < 1 || argc > MAX_ARGC) {
		send_error(id, "malformed EXEC: bad argc");
		return;
	}
	argv = calloc(argc + 1, sizeof(*argv));
	env = calloc(MAX_ENVC + 1, sizeof(*env));
	if (!argv || !env) {
		send_error(id, "out of memory");
		goto out;
	}
	if (!take_strings(p, len, &at, argv, argc, MAX_ARGC)) {
		send_error(id, "malformed EXEC: unterminated argument");
		goto out;
	}
	if ((flags & EXEC_F_ENV) &&
	    !take_strings(p, len, &at, env, 0, MAX_ENVC)) {
		send_error(id, "malformed EXEC: unterminated or too many "
			   "environment strings");
		goto out;
	}
	if (at != len || !argv[0][0]) {
		send_error(id, "malformed EXEC: trailing bytes or empty argv[0]");
		goto out;
	}
	for (i = 0; env[i]; i++) {
		if (env[i][0] == '=' || !strchr(env[i], '=')) {
			send_error(id, "malformed EXEC: environment string "
				   "without NAME=");
			goto out;
		}
	}

	*r = (struct req){
		.busy = true, .id = id,
		.fd_out = -1, .fd_err = -1, .fd_in = -1, .fd_pmi = -1,
		.deadline = timeout_ms ? now_ms() + timeout_ms : 0,
	};

	if (pipe2(po, O_CLOEXEC) || pipe2(pe, O_CLOEXEC))
		goto fail;
	if (flags & EXEC_F_STDIN) {
		if (pipe2(pi, O_CLOEXEC))
			goto fail;
	} else {
		pi[0] = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (pi[0] < 0)
			goto fail;
	}
	if ((flags & EXEC_F_PMI) &&
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp))
		goto fail;
	pid = fork();
	if (pid < 0)
		goto fail;
	if (pid == 0)
		child_exec(argv, env, pi[0], po[1], pe[1], sp[1]);
	close(po[1]);
	close(pe[1]);
	close(pi[0]);
	if (sp[1] >= 0)
		close(sp[1]);
	r->pid = pid;
	r->fd_out = po[0];
	r->fd_err = pe[0];
	r->fd_in = pi[1];
	r->fd_pmi = sp[0];
	set_nonblock(r->fd_out);
	set_nonblock(r->fd_err);
	if (r->fd_in >= 0)
		set_nonblock(r->fd_in);
	if (r->fd_pmi >= 0)
		set_nonblock(r->fd_pmi);
	goto out;

fail:
	put32(nostart, EXIT_NOSTART);
	put32(nostart + 4, errno);
	for (i = 0; i < 2; i++) {
		close_fd(&po[i]);
		close_fd(&pe[i]);
		close_fd(&pi[i]);
		close_fd(&sp[i]);
	}
	r->busy = false;
	send_frame(T_EXIT, id, nostart, sizeof(nostart));
out:
	free(argv);
	free(env);
}

static void handle_frame(uint8_t type, uint32_t id, const unsigned char *p,
			 uint32_t len)
{
	unsigned char ack[12];
	struct req *r;

	dbg("frame type %#x id %#x len %u", type, id, len);
	switch (type) {
	case T_HELLO:
		abort_all(true);
		put32(ack, AGENT_VERSION);
		put32(ack + 4, AGENT_MAX_PAYLOAD);
		put32(ack + 8, AGENT_MAX_REQUESTS);
		send_frame(T_HELLO_ACK, id, ack, sizeof(ack));
		break;
	case T_EXEC:
		start_exec(id, p, len);
		break;
	case T_STDIN:
		/* Stdin of an earlier or unknown request: ignore it. */
		r = find_req(id);
		if (!r || r->fd_in < 0 || r->stdin_close)
			break;
		if (len)
			buf_append(&r->stdin_buf, p, len);
		else
			r->stdin_close = true;
		break;
	case T_SIGNAL:
		r = find_req(id);
		if (r && r->pid && len == 4) {
			uint32_t sig = get32(p);

			if (sig >= 1 && sig < (uint32_t)NSIG)
				kill_command(r->pid, sig);
		}
		break;
	case T_PMI:
		r = find_req(id);
		if (!r || r->fd_pmi < 0 || !len)
			break;
		if (buf_used(&r->pmi_buf) + len > PMI_HIGH) {
			/* The command does not read it: its channel breaks. */
			close_fd(&r->fd_pmi);
			buf_clear(&r->pmi_buf);
			break;
		}
		buf_append(&r->pmi_buf, p, len);
		break;
	default:
		/* Unknown type: skipped, for forward compatibility. */
		break;
	}
}

/* Parse the frames in ag.in; keep an incomplete one for later. */
static void parse_input(void)
{
	size_t pos = 0;

	while (ag.in_len - pos >= HDR_LEN) {
		const unsigned char *h = ag.in + pos;
		uint32_t len = get32(h + 12);

		if (get32(h) != AGENT_MAGIC || h[5] || h[6] || h[7] ||
		    len > AGENT_MAX_PAYLOAD) {
			pos++;		/* resynchronise on the next magic */
			continue;
		}
		if (ag.in_len - pos < HDR_LEN + len)
			break;
		/*
		 * A HELLO drops the input read so far, but what follows it
		 * in the buffer is the new client's.
		 */
		handle_frame(h[4], get32(h + 8), h + HDR_LEN, len);
		pos += HDR_LEN + len;
	}
	memmove(ag.in, ag.in + pos, ag.in_len - pos);
	ag.in_len -= pos;
}

static void read_port(void)
{
	ssize_t n;

	n = read(ag.port, ag.in + ag.in_len, sizeof(ag.in) - ag.in_len);
	if (n > 0) {
		ag.in_len += n;
		parse_input();
	} else if (n < 0 && errno != EAGAIN && errno != EINTR) {
		logmsg("read: %s", strerror(errno));
		exit(1);
	}
	/* n == 0: the host went away; poll reports POLLHUP next. */
}

static void write_port(void)
{
	ssize_t n = write(ag.port, ag.out.p + ag.out.off, buf_used(&ag.out));

	if (n > 0) {
		ag.out.off += n;
	} else if (n < 0 && errno != EAGAIN && errno != EINTR) {
		logmsg("write: %s", strerror(errno));
		exit(1);
	}
	if (ag.out.off == ag.out.len)
		buf_clear(&ag.out);
}

static void read_child(struct req *r, int *fd, uint8_t type)
{
	unsigned char data[READ_CHUNK];
	ssize_t n = read(*fd, data, sizeof(data));

	if (n > 0) {
		send_frame(type, r->id, data, n);
		if (!r->pid)
			r->quiet_since = now_ms();
	} else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
		close_fd(fd);
		if (fd == &r->fd_pmi)
			buf_clear(&r->pmi_buf);
	}
}

/* Write what b holds to *fd; an error (EPIPE: not read) drops it all. */
static void write_child(int *fd, struct buf *b, bool close_on_error)
{
	ssize_t n = write(*fd, b->p + b->off, buf_used(b));

	if (n > 0) {
		b->off += n;
		if (b->off == b->len)
			buf_clear(b);
	} else if (n < 0 && errno != EAGAIN && errno != EINTR) {
		buf_clear(b);
		if (close_on_error)
			close_fd(fd);
	}
}

/*
 * The host side closed.  Input is not discarded: the guest learns of a
 * (re)connection from a control message handled after data may already
 * have arrived, so unread input can be the next client's.  Stale input of
 * the old client is harmless (see "Resynchronisation" above).
 */
static void host_lost(void)
{
	dbg("host disconnected");
	abort_all(true);
	ag.connected = false;
}

static void drain_signals(void)
{
	struct signalfd_siginfo si;

	while (read(ag.sigfd, &si, sizeof(si)) == sizeof(si))
		;
}

/* The port's sysfs name is "vgemini.agent"; its node is /dev/<dir>. */
static int find_port(char *path, size_t size)
{
	const char *base = "/sys/class/virtio-ports";
	struct dirent *d;
	DIR *dir = opendir(base);
	int found = -1;

	if (!dir)
		return -1;
	while ((d = readdir(dir))) {
		char npath[512], name[64] = "";
		FILE *f;

		if (d->d_name[0] == '.')
			continue;
		snprintf(npath, sizeof(npath), "%s/%s/name", base, d->d_name);
		f = fopen(npath, "re");
		if (!f)
			continue;
		if (fgets(name, sizeof(name), f))
			name[strcspn(name, "\n")] = 0;
		fclose(f);
		if (!strcmp(name, PORT_NAME)) {
			snprintf(path, size, "/dev/%s", d->d_name);
			found = 0;
			break;
		}
	}
	closedir(dir);
	return found;
}

/* Where each request's descriptors sit in the poll array (-1: absent). */
struct slots {
	int out, err, in, pmi;
};

static void serve(void)
{
	static struct pollfd pfd[2 + 4 * AGENT_MAX_REQUESTS];
	static struct slots sl[AGENT_MAX_REQUESTS];

	for (;;) {
		int n = 0, i_port = -1, timeout;
		int64_t now = now_ms(), wake = -1;
		bool reading = buf_used(&ag.out) < OUT_HIGH;
		unsigned int i;

		pfd[n] = (struct pollfd){ .fd = ag.sigfd, .events = POLLIN };
		n++;
		if (ag.connected) {
			short ev = 0;

			if (stdin_held() < STDIN_HIGH &&
			    ag.in_len < sizeof(ag.in))
				ev |= POLLIN;
			if (buf_used(&ag.out))
				ev |= POLLOUT;
			i_port = n;
			pfd[n++] = (struct pollfd){ .fd = ag.port, .events = ev };
		} else {
			wake = now + IDLE_RECHECK_MS;
		}
		for (i = 0; i < AGENT_MAX_REQUESTS; i++) {
			struct req *r = &ag.req[i];
			struct slots *s = &sl[i];

			*s = (struct slots){ -1, -1, -1, -1 };
			if (!r->busy)
				continue;
			if (reading && r->fd_out >= 0) {
				s->out = n;
				pfd[n++] = (struct pollfd){ .fd = r->fd_out,
							    .events = POLLIN };
			}
			if (reading && r->fd_err >= 0) {
				s->err = n;
				pfd[n++] = (struct pollfd){ .fd = r->fd_err,
							    .events = POLLIN };
			}
			if (r->fd_in >= 0 &&
			    (buf_used(&r->stdin_buf) || r->stdin_close)) {
				s->in = n;
				pfd[n++] = (struct pollfd){ .fd = r->fd_in,
							    .events = POLLOUT };
			}
			if (r->fd_pmi >= 0) {
				short ev = reading ? POLLIN : 0;

				if (buf_used(&r->pmi_buf))
					ev |= POLLOUT;
				s->pmi = n;
				pfd[n++] = (struct pollfd){ .fd = r->fd_pmi,
							    .events = ev };
			}
			if (r->pid && r->deadline && !r->timed_out)
				wake = wake < 0 || r->deadline < wake ?
					r->deadline : wake;
			if (!r->pid) {
				int64_t t;

				/* Output we do not read for now does not count. */
				if (!reading)
					r->quiet_since = now;
				t = r->quiet_since + DRAIN_MS;
				wake = wake < 0 || t < wake ? t : wake;
			}
		}
		timeout = wake < 0 ? -1 : wake > now ? (int)(wake - now) : 0;

		if (poll(pfd, n, timeout) < 0) {
			if (errno == EINTR)
				continue;
			logmsg("poll: %s", strerror(errno));
			exit(1);
		}

		if (pfd[0].revents)
			drain_signals();	/* SIGCHLD or SIGIO */

		if (!ag.connected) {
			struct pollfd p = { .fd = ag.port, .events = POLLIN };

			/* Connected again once the port stops reporting HUP. */
			if (poll(&p, 1, 0) >= 0 && !(p.revents & POLLHUP)) {
				dbg("host connected");
				ag.connected = true;
			}
			continue;
		}
		if (i_port >= 0) {
			short re = pfd[i_port].revents;

			if (re & POLLHUP) {
				host_lost();	/* read nothing more from the old */
				continue;
			}
			if (re & POLLOUT)
				write_port();
			if (re & POLLIN)
				read_port();
			if (re & (POLLERR | POLLNVAL)) {
				logmsg("port error");
				exit(1);
			}
		}
		/*
		 * A frame read from the port may have ended or started
		 * requests: a slot is used only for the request it was made
		 * for and while the descriptor is still open.
		 */
		now = now_ms();
		for (i = 0; i < AGENT_MAX_REQUESTS; i++) {
			struct req *r = &ag.req[i];
			struct slots *s = &sl[i];

			if (!r->busy)
				continue;
			if (s->out >= 0 && pfd[s->out].revents &&
			    pfd[s->out].fd == r->fd_out)
				read_child(r, &r->fd_out, T_STDOUT);
			if (s->err >= 0 && pfd[s->err].revents &&
			    pfd[s->err].fd == r->fd_err)
				read_child(r, &r->fd_err, T_STDERR);
			if (s->in >= 0 && pfd[s->in].revents &&
			    pfd[s->in].fd == r->fd_in) {
				if (buf_used(&r->stdin_buf))
					write_child(&r->fd_in, &r->stdin_buf,
						    true);
				if (!buf_used(&r->stdin_buf) && r->stdin_close)
					close_fd(&r->fd_in);
			}
			if (s->pmi >= 0 && pfd[s->pmi].revents &&
			    pfd[s->pmi].fd == r->fd_pmi) {
				short re = pfd[s->pmi].revents;

				if ((re & POLLOUT) && buf_used(&r->pmi_buf))
					write_child(&r->fd_pmi, &r->pmi_buf,
						    false);
				if (re & (POLLIN | POLLHUP | POLLERR))
					read_child(r, &r->fd_pmi, T_PMI_OUT);
			}
			if (r->pid)
				reap(r, false);
			if (r->pid && r->deadline && !r->timed_out &&
			    now >= r->deadline) {
				kill_command(r->pid, SIGKILL);
				r->timed_out = true;
			}
			if (!r->pid &&
			    ((r->fd_out < 0 && r->fd_err < 0 && r->fd_pmi < 0) ||
			     (buf_used(&ag.out) < OUT_HIGH &&
			      now >= r->quiet_since + DRAIN_MS)))
				finish_request(r);
		}
	}
}

int main(int argc, char **argv)
{
	char path[300];
	sigset_t mask;
	bool said = false;

	if (argc > 1 && !strcmp(argv[1], "-d")) {
		debug = true;
		argc--;
		argv++;
	}
	if (argc > 2) {
		fprintf(stderr, "usage: vgemini-agent [-d] [PORT-DEVICE]\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGIO);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	ag.sigfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (ag.sigfd < 0) {
		logmsg("signalfd: %s", strerror(errno));
		return 1;
	}

	if (argc == 2) {
		snprintf(path, sizeof(path), "%s", argv[1]);
	} else {
		while (find_port(path, sizeof(path))) {
			if (!said)
				logmsg("waiting for port %s", PORT_NAME);
			said = true;
			usleep(200 * 1000);
		}
	}
	port_path = path;
	ag.port = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (ag.port < 0) {
		logmsg("open %s: %s", path, strerror(errno));
		return 1;
	}
	/* SIGIO tells us when the host connects (while we do not poll it). */
	if (fcntl(ag.port, F_SETOWN, getpid()) < 0 ||
	    fcntl(ag.port, F_SETFL, fcntl(ag.port, F_GETFL) | O_ASYNC) < 0)
		logmsg("no SIGIO on %s: polling every %d ms", path,
		       IDLE_RECHECK_MS);
	ag.connected = true;	/* corrected by the first poll */
	serve();
	return 1;
}
