// SPDX-License-Identifier: GPL-2.0-only
/*
 * vgemini-agent: runs the host's commands inside a vgemini guest.
 *
 * The agent serves one virtio-serial port (named "vgemini.agent"), which the
 * host sees as a unix socket (QEMU -chardev socket).  One host client is
 * connected at a time; it may run several requests at once (a job's ranks
 * on this node), told apart by their ids.
 *
 * This file: main(), finding the port and the poll loop over the port, the
 * commands' descriptors and the signals.  agent_frame.c holds the byte
 * buffers and the frames to and from the host, agent_exec.c the requests
 * and their processes; agent.h what they share.
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"

#define PORT_NAME		VGEMINI_AGENT_PORT_NAME
#define OUT_HIGH		(256u * 1024)	/* stop reading the children above */
#define STDIN_HIGH		(256u * 1024)	/* stop reading the port above */
#define DRAIN_MS		500
#define IDLE_RECHECK_MS		2000		/* while disconnected */

static struct {
	int port;
	int sigfd;
	bool connected;
} ag;

static bool debug;
static const char *port_path = "";

static void vlogmsg(const char *fmt, va_list ap)
{
	fprintf(stderr, "vgemini-agent[%s]: ", port_path);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void logmsg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlogmsg(fmt, ap);
	va_end(ap);
}

/* A message for -d only. */
void dbg(const char *fmt, ...)
{
	va_list ap;

	if (!debug)
		return;
	va_start(ap, fmt);
	vlogmsg(fmt, ap);
	va_end(ap);
}

int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
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
		bool reading = out_queued() < OUT_HIGH;
		unsigned int i;

		pfd[n] = (struct pollfd){ .fd = ag.sigfd, .events = POLLIN };
		n++;
		if (ag.connected) {
			short ev = 0;

			if (stdin_held() < STDIN_HIGH && !in_full())
				ev |= POLLIN;
			if (out_queued())
				ev |= POLLOUT;
			i_port = n;
			pfd[n++] = (struct pollfd){ .fd = ag.port, .events = ev };
		} else {
			wake = now + IDLE_RECHECK_MS;
		}
		for (i = 0; i < AGENT_MAX_REQUESTS; i++) {
			struct req *r = &reqs[i];
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
				write_port(ag.port);
			if (re & POLLIN)
				read_port(ag.port);
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
			struct req *r = &reqs[i];
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
			     (out_queued() < OUT_HIGH &&
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
