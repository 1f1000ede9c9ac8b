// SPDX-License-Identifier: GPL-2.0-only
/*
 * vgemini-agent: requests and their processes.  The frames of the host
 * (EXEC, STDIN, SIGNAL, PMI, HELLO) start, feed, signal and abort
 * requests; each runs one command (fork and exec with pipes for stdin,
 * stdout and stderr and, if asked, a PMI socket) in its own session and
 * process group, and ends with an EXIT frame.  This file owns the request
 * table, reqs[]; the poll loop in agent.c serves the requests' descriptors
 * through read_child() and write_child() and ends them with reap() and
 * finish_request().
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent.h"

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
#define PMI_HIGH		(64u * 1024 * 1024)	/* a rank that never reads */
#define READ_CHUNK		32768u

struct req reqs[AGENT_MAX_REQUESTS];

static void set_nonblock(int fd)
{
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

void close_fd(int *fd)
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
		if (reqs[i].busy && reqs[i].id == id)
			return &reqs[i];
	return NULL;
}

static struct req *free_req(void)
{
	unsigned int i;

	for (i = 0; i < AGENT_MAX_REQUESTS; i++)
		if (!reqs[i].busy)
			return &reqs[i];
	return NULL;
}

/* Bytes of stdin held for all commands: above STDIN_HIGH, stop reading. */
size_t stdin_held(void)
{
	size_t n = 0;
	unsigned int i;

	for (i = 0; i < AGENT_MAX_REQUESTS; i++)
		if (reqs[i].busy)
			n += buf_used(&reqs[i].stdin_buf);
	return n;
}

/* Reap the command if it has exited; true once it is reaped. */
bool reap(struct req *r, bool block)
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
void kill_command(pid_t pid, int sig)
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

void abort_all(bool report)
{
	unsigned int i;

	for (i = 0; i < AGENT_MAX_REQUESTS; i++)
		if (reqs[i].busy)
			abort_request(&reqs[i], report);
}

void finish_request(struct req *r)
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

void handle_frame(uint8_t type, uint32_t id, const unsigned char *p,
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

void read_child(struct req *r, int *fd, uint8_t type)
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
void write_child(int *fd, struct buf *b, bool close_on_error)
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
