// SPDX-License-Identifier: GPL-2.0-only
/*
 * vgemini-agent: runs the host's commands inside a vgemini guest.
 *
 * The agent serves one virtio-serial port (named "vgemini.agent"), which the
 * host sees as a unix socket (QEMU -chardev socket).  One host client is
 * connected at a time and runs one request at a time.
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
 *   HELLO  0x01  u32 version.  Aborts what the agent was doing (a running
 *                command is killed and reported ABORTED under its old id);
 *                answered by HELLO_ACK with the same id.  A client sends it
 *                first.
 *   EXEC   0x02  u32 timeout_ms (0: none), u32 flags (EXEC_F_STDIN: stdin
 *                frames follow, else stdin is /dev/null), u32 argc, then argc
 *                NUL-terminated strings filling the rest of the payload.
 *                argv[0] is looked up in PATH.
 *   STDIN  0x03  bytes for the command's stdin; an empty one closes it.
 *   SIGNAL 0x04  u32 signal number, sent to the command's process group.
 *
 * Agent to host (id = the request's id):
 *   HELLO_ACK 0x81  u32 version, u32 AGENT_MAX_PAYLOAD.
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
 *
 * A command that cannot be executed prints a message on its stderr and
 * exits with status 127, as a shell does.  The command runs in its own
 * session and process group; the timeout, a SIGNAL and a disconnect act on
 * the whole group.  The request ends when the command has exited and its
 * stdout and stderr reached end of file, or DRAIN_MS after its exit if
 * something it left behind (a background job) keeps them open and writes
 * nothing more for DRAIN_MS.
 *
 * Resynchronisation.  Frames that do not start with the magic, carry a
 * non-zero flags/reserved field or an oversized length are skipped byte by
 * byte until a plausible header is found.  When the host side disconnects
 * the agent kills the running command; it discards nothing, since the
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
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define AGENT_MAGIC		0x47414756u
#define AGENT_VERSION		1u
#define AGENT_MAX_PAYLOAD	65536u
#define HDR_LEN			16u

enum {
	T_HELLO = 0x01, T_EXEC = 0x02, T_STDIN = 0x03, T_SIGNAL = 0x04,
	T_HELLO_ACK = 0x81, T_STDOUT = 0x82, T_STDERR = 0x83, T_EXIT = 0x84,
	T_ERROR = 0x85,
};

enum {
	EXIT_EXITED = 0, EXIT_SIGNALED = 1, EXIT_TIMEOUT = 2, EXIT_NOSTART = 3,
	EXIT_ABORTED = 4,
};

#define EXEC_F_STDIN		0x1u
#define MAX_ARGC		4096u

#define PORT_NAME		"vgemini.agent"
#define IN_CAP			(2 * (HDR_LEN + AGENT_MAX_PAYLOAD))
#define OUT_HIGH		(256u * 1024)	/* stop reading the child above */
#define STDIN_HIGH		(256u * 1024)	/* stop reading the port above */
#define READ_CHUNK		32768u
#define DRAIN_MS		500
#define IDLE_RECHECK_MS		2000		/* while disconnected */

struct buf {
	unsigned char *p;
	size_t len;	/* valid bytes from p[off] to p[len - 1] */
	size_t off;
	size_t cap;
};

static struct {
	int port;
	int sigfd;
	bool connected;
	unsigned char in[IN_CAP];
	size_t in_len;
	struct buf out;		/* frames for the host */

	/* the running request */
	bool busy;
	uint32_t id;
	pid_t pid;		/* 0 once reaped */
	int status;
	int fd_out, fd_err, fd_in;	/* -1 when closed */
	struct buf stdin_buf;
	bool stdin_close;	/* close fd_in once stdin_buf is written */
	bool timed_out;
	int64_t deadline;	/* ms, 0: none */
	int64_t quiet_since;	/* ms: exit or last output after it */
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
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

static uint32_t get32(const unsigned char *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static void buf_clear(struct buf *b)
{
	b->len = 0;
	b->off = 0;
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

/* Reap the command if it has exited; true once it is reaped. */
static bool reap(bool block)
{
	int st;
	pid_t r;

	if (!ag.pid)
		return true;
	do {
		r = waitpid(ag.pid, &st, block ? 0 : WNOHANG);
	} while (r < 0 && errno == EINTR);
	if (r == ag.pid || (r < 0 && errno == ECHILD)) {
		ag.status = r == ag.pid ? st : 0;
		ag.pid = 0;
		ag.quiet_since = now_ms();
		close_fd(&ag.fd_in);
		buf_clear(&ag.stdin_buf);
		return true;
	}
	return false;
}

/* Kill the running request (reset or disconnect); report it if asked. */
static void abort_request(bool report)
{
	unsigned char p[8];

	if (!ag.busy)
		return;
	dbg("aborting request %#x", ag.id);
	if (ag.pid) {
		kill(-ag.pid, SIGKILL);
		reap(true);
	}
	close_fd(&ag.fd_out);
	close_fd(&ag.fd_err);
	close_fd(&ag.fd_in);
	buf_clear(&ag.stdin_buf);
	ag.busy = false;
	if (report) {
		put32(p, EXIT_ABORTED);
		put32(p + 4, 0);
		send_frame(T_EXIT, ag.id, p, sizeof(p));
	}
}

static void finish_request(void)
{
	unsigned char p[8];
	uint32_t how;
	int32_t val;

	if (ag.timed_out) {
		how = EXIT_TIMEOUT;
		val = SIGKILL;
	} else if (WIFSIGNALED(ag.status)) {
		how = EXIT_SIGNALED;
		val = WTERMSIG(ag.status);
	} else {
		how = EXIT_EXITED;
		val = WEXITSTATUS(ag.status);
	}
	close_fd(&ag.fd_out);
	close_fd(&ag.fd_err);
	put32(p, how);
	put32(p + 4, (uint32_t)val);
	dbg("request %#x done: how %u value %d", ag.id, how, val);
	send_frame(T_EXIT, ag.id, p, sizeof(p));
	ag.busy = false;
}

static void child_exec(char **argv, int in, int out, int err)
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
	/* Every other descriptor of the agent is close-on-exec. */
	execvp(argv[0], argv);
	dprintf(2, "vgemini-agent: cannot run '%s': %s\n", argv[0],
		strerror(errno));
	_exit(127);
}

static void start_exec(uint32_t id, const unsigned char *p, uint32_t len)
{
	int po[2] = { -1, -1 }, pe[2] = { -1, -1 }, pi[2] = { -1, -1 };
	uint32_t timeout_ms, flags, argc, i, at;
	unsigned char nostart[8];
	char **argv;
	pid_t pid;

	if (ag.busy) {
		send_error(id, "busy: a request is running");
		return;
	}
	if (len < 12) {
		send_error(id, "malformed EXEC: short payload");
		return;
	}
	timeout_ms = get32(p);
	flags = get32(p + 4);
	argc = get32(p + 8);
	if (flags & ~EXEC_F_STDIN) {
		send_error(id, "malformed EXEC: unknown flags");
		return;
	}
	if (argc < 1 || argc > MAX_ARGC) {
		send_error(id, "malformed EXEC: bad argc");
		return;
	}
	argv = calloc(argc + 1, sizeof(*argv));
	if (!argv) {
		send_error(id, "out of memory");
		return;
	}
	for (i = 0, at = 12; i < argc; i++) {
		const unsigned char *nul = memchr(p + at, 0, len - at);

		if (!nul) {
			free(argv);
			send_error(id, "malformed EXEC: unterminated argument");
			return;
		}
		argv[i] = (char *)p + at;
		at = nul - p + 1;
	}
	if (at != len || !argv[0][0]) {
		free(argv);
		send_error(id, "malformed EXEC: trailing bytes or empty argv[0]");
		return;
	}

	ag.busy = true;
	ag.id = id;
	ag.timed_out = false;
	ag.quiet_since = 0;
	ag.status = 0;
	ag.stdin_close = false;
	buf_clear(&ag.stdin_buf);
	ag.deadline = timeout_ms ? now_ms() + timeout_ms : 0;

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
	pid = fork();
	if (pid < 0)
		goto fail;
	if (pid == 0)
		child_exec(argv, pi[0], po[1], pe[1]);
	free(argv);
	close(po[1]);
	close(pe[1]);
	close(pi[0]);
	ag.pid = pid;
	ag.fd_out = po[0];
	ag.fd_err = pe[0];
	ag.fd_in = pi[1];
	set_nonblock(ag.fd_out);
	set_nonblock(ag.fd_err);
	if (ag.fd_in >= 0)
		set_nonblock(ag.fd_in);
	return;

fail:
	put32(nostart, EXIT_NOSTART);
	put32(nostart + 4, errno);
	free(argv);
	for (i = 0; i < 2; i++) {
		close_fd(&po[i]);
		close_fd(&pe[i]);
		close_fd(&pi[i]);
	}
	ag.busy = false;
	send_frame(T_EXIT, id, nostart, sizeof(nostart));
}

static void handle_frame(uint8_t type, uint32_t id, const unsigned char *p,
			 uint32_t len)
{
	unsigned char ack[8];

	dbg("frame type %#x id %#x len %u", type, id, len);
	switch (type) {
	case T_HELLO:
		abort_request(true);
		put32(ack, AGENT_VERSION);
		put32(ack + 4, AGENT_MAX_PAYLOAD);
		send_frame(T_HELLO_ACK, id, ack, sizeof(ack));
		break;
	case T_EXEC:
		start_exec(id, p, len);
		break;
	case T_STDIN:
		/* Stdin of an earlier or unknown request: ignore it. */
		if (!ag.busy || id != ag.id || ag.fd_in < 0 || ag.stdin_close)
			break;
		if (len)
			buf_append(&ag.stdin_buf, p, len);
		else
			ag.stdin_close = true;
		break;
	case T_SIGNAL:
		if (ag.busy && id == ag.id && ag.pid && len == 4) {
			uint32_t sig = get32(p);

			if (sig >= 1 && sig < (uint32_t)NSIG)
				kill(-ag.pid, sig);
		}
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

static void read_child(int *fd, uint8_t type)
{
	unsigned char data[READ_CHUNK];
	ssize_t n = read(*fd, data, sizeof(data));

	if (n > 0) {
		send_frame(type, ag.id, data, n);
		if (!ag.pid)
			ag.quiet_since = now_ms();
	} else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
		close_fd(fd);
	}
}

static void write_child_stdin(void)
{
	ssize_t n = write(ag.fd_in, ag.stdin_buf.p + ag.stdin_buf.off,
			  buf_used(&ag.stdin_buf));

	if (n > 0) {
		ag.stdin_buf.off += n;
		if (ag.stdin_buf.off == ag.stdin_buf.len)
			buf_clear(&ag.stdin_buf);
	} else if (n < 0 && errno != EAGAIN && errno != EINTR) {
		/* EPIPE: the command does not read its stdin; drop it. */
		close_fd(&ag.fd_in);
		buf_clear(&ag.stdin_buf);
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
	abort_request(true);
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

static void serve(void)
{
	for (;;) {
		struct pollfd pfd[5];
		int n = 0, i_port = -1, i_out = -1, i_err = -1, i_in = -1;
		int64_t now = now_ms(), wake = -1;
		int timeout;

		pfd[n] = (struct pollfd){ .fd = ag.sigfd, .events = POLLIN };
		n++;
		if (ag.connected) {
			short ev = 0;

			if (buf_used(&ag.stdin_buf) < STDIN_HIGH &&
			    ag.in_len < sizeof(ag.in))
				ev |= POLLIN;
			if (buf_used(&ag.out))
				ev |= POLLOUT;
			i_port = n;
			pfd[n++] = (struct pollfd){ .fd = ag.port, .events = ev };
		} else {
			wake = now + IDLE_RECHECK_MS;
		}
		if (ag.busy && buf_used(&ag.out) < OUT_HIGH) {
			if (ag.fd_out >= 0) {
				i_out = n;
				pfd[n++] = (struct pollfd){ .fd = ag.fd_out,
							    .events = POLLIN };
			}
			if (ag.fd_err >= 0) {
				i_err = n;
				pfd[n++] = (struct pollfd){ .fd = ag.fd_err,
							    .events = POLLIN };
			}
		}
		if (ag.busy && ag.fd_in >= 0 &&
		    (buf_used(&ag.stdin_buf) || ag.stdin_close)) {
			i_in = n;
			pfd[n++] = (struct pollfd){ .fd = ag.fd_in,
						    .events = POLLOUT };
		}
		if (ag.busy && ag.pid && ag.deadline && !ag.timed_out)
			wake = wake < 0 || ag.deadline < wake ? ag.deadline : wake;
		if (ag.busy && !ag.pid) {
			int64_t t;

			/* Output we do not read for now does not count. */
			if (buf_used(&ag.out) >= OUT_HIGH)
				ag.quiet_since = now;
			t = ag.quiet_since + DRAIN_MS;
			wake = wake < 0 || t < wake ? t : wake;
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
		if (!ag.busy)
			continue;
		if (i_out >= 0 && pfd[i_out].revents && ag.fd_out >= 0)
			read_child(&ag.fd_out, T_STDOUT);
		if (i_err >= 0 && pfd[i_err].revents && ag.fd_err >= 0)
			read_child(&ag.fd_err, T_STDERR);
		if (i_in >= 0 && pfd[i_in].revents && ag.fd_in >= 0) {
			if (buf_used(&ag.stdin_buf))
				write_child_stdin();
			if (!buf_used(&ag.stdin_buf) && ag.stdin_close)
				close_fd(&ag.fd_in);
		}
		if (ag.pid)
			reap(false);
		now = now_ms();
		if (ag.pid && ag.deadline && !ag.timed_out && now >= ag.deadline) {
			kill(-ag.pid, SIGKILL);
			ag.timed_out = true;
		}
		if (!ag.pid && ((ag.fd_out < 0 && ag.fd_err < 0) ||
				(buf_used(&ag.out) < OUT_HIGH &&
				 now >= ag.quiet_since + DRAIN_MS)))
			finish_request();
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
	ag.fd_out = -1;
	ag.fd_err = -1;
	ag.fd_in = -1;

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
