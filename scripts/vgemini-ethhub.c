// SPDX-License-Identifier: GPL-2.0-only
/*
 * vgemini-ethhub: the Ethernet segment of "vgemini up --net", a learning
 * switch between the nodes' QEMU "-netdev dgram" unix sockets.  It is the
 * network of the "TCP between VMs" baselines of `make bench`, so it must
 * add as little as possible: one blocking recvfrom() and one sendto() per
 * unicast frame, nothing at all while the segment is idle.
 *
 *   vgemini-ethhub [--pidfile FILE] [--parent PID] HUB_SOCK NODE_SOCK...
 *
 * Every node's QEMU binds its NODE_SOCK and sends its guest's frames to
 * HUB_SOCK.  Port P is the P-th NODE_SOCK.  A frame that comes from port P
 * teaches the hub that its source MAC is behind P; the frame goes to the
 * port its destination MAC was learnt on, or to every port but P when the
 * destination is a group address or not learnt yet (the ports are known
 * from the command line, so flooding works before any learning).
 *
 * Dropped (and counted): frames shorter than an Ethernet header or longer
 * than FRAME_MAX, frames from a socket that is no NODE_SOCK, frames with a
 * group source MAC, frames for the port they came from, and frames for a
 * port whose QEMU is absent or whose queue is full (each port has its own
 * sending socket, so a stopped guest holds up only its own traffic).
 *
 * It exits (status 0, after removing HUB_SOCK and FILE) on SIGTERM, SIGINT
 * or SIGHUP, when HUB_SOCK is removed or replaced (the launcher's tear-down
 * removes the run directory), and when process PID exits (--parent).
 * SIGUSR1 prints the counters on stderr.  Exit 1 on errors, 2 on usage
 * errors.  See Documentation/vgemini.rst ("The Ethernet segment").
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#define PROG		"vgemini-ethhub"
#define EXIT_USAGE	2

#define ETH_HLEN	14		/* destination, source, type */
#define FRAME_MAX	9018		/* 9000-byte payload, header, VLAN tag */
#define MAX_PORTS	1024
/* The learning table: open addressing, a few probes, the oldest lost. */
#define MAC_SLOTS	4096		/* a power of two */
#define MAC_PROBES	8

struct port {
	struct sockaddr_un addr;
	socklen_t addrlen;
	size_t pathlen;			/* strlen(addr.sun_path) */
	int fd;				/* its own sending socket */
};

struct mac_slot {
	uint8_t mac[6];
	uint16_t port;			/* port + 1; 0: free */
};

/* Counters: written by the main thread only, read by the watcher. */
enum {
	C_RX, C_TX, C_UNICAST, C_FLOODED,
	C_SHORT, C_LONG, C_STRANGER, C_GROUP_SRC, C_SAME_PORT, C_FULL,
	C_ABSENT, C_TX_ERROR, C_NUM
};
static atomic_ulong counters[C_NUM];

static struct port *ports;
static unsigned int nports;
static struct mac_slot table[MAC_SLOTS];

static const char *hub_path;
static const char *pidfile;
static dev_t hub_dev;
static ino_t hub_ino;
static pthread_mutex_t exit_lock = PTHREAD_MUTEX_INITIALIZER;

static void count(int c)
{
	/* One writer: a relaxed load and store, no locked instruction. */
	atomic_store_explicit(&counters[c],
			      atomic_load_explicit(&counters[c],
						   memory_order_relaxed) + 1,
			      memory_order_relaxed);
}

static unsigned long counter(int c)
{
	return atomic_load_explicit(&counters[c], memory_order_relaxed);
}

static void say(const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	/* One write a line: the log stays readable when threads meet. */
	if (write(STDERR_FILENO, line, n) < 0)
		return;
}

static void print_counters(const char *why)
{
	say(PROG ": %s: %lu frames in, %lu out (%lu unicast, %lu flooded); "
	    "dropped: %lu short, %lu long, %lu from unknown sockets, "
	    "%lu with a group source, %lu for their own port, "
	    "%lu to a full queue, %lu to an absent port, %lu send errors",
	    why, counter(C_RX), counter(C_TX), counter(C_UNICAST),
	    counter(C_FLOODED), counter(C_SHORT), counter(C_LONG),
	    counter(C_STRANGER), counter(C_GROUP_SRC), counter(C_SAME_PORT),
	    counter(C_FULL), counter(C_ABSENT), counter(C_TX_ERROR));
}

/* Remove what we made, if it is still ours, and exit.  Either thread. */
static void __attribute__((noreturn)) finish(int status, const char *why)
{
	struct stat st;
	char buf[32];
	int fd;

	pthread_mutex_lock(&exit_lock);		/* never released */
	print_counters(why);
	/* A newer hub may have replaced the socket: leave that one alone. */
	if (hub_ino && stat(hub_path, &st) == 0 && st.st_dev == hub_dev &&
	    st.st_ino == hub_ino)
		unlink(hub_path);
	if (pidfile) {
		fd = open(pidfile, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			ssize_t n = read(fd, buf, sizeof(buf) - 1);

			close(fd);
			if (n > 0) {
				buf[n] = 0;
				if (strtol(buf, NULL, 10) == (long)getpid())
					unlink(pidfile);
			}
		}
	}
	_exit(status);
}

static void __attribute__((noreturn)) fail(const char *what)
{
	say(PROG ": %s: %s", what, strerror(errno));
	finish(1, "failed");
}

static int usage_error(const char *msg, const char *arg)
{
	fprintf(stderr, PROG ": %s%s\n(" PROG " --help for usage)\n", msg, arg);
	return EXIT_USAGE;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " [--pidfile FILE] [--parent PID] HUB_SOCK NODE_SOCK...\n"
		"\n"
		"A learning Ethernet switch between QEMU '-netdev dgram' unix sockets:\n"
		"QEMUs bind NODE_SOCK and send to HUB_SOCK (which the hub binds).\n"
		"\n"
		"  --pidfile FILE   write the hub's pid to FILE once HUB_SOCK is bound\n"
		"  --parent PID     exit when process PID exits\n"
		"\n"
		"It exits on SIGTERM, SIGINT, SIGHUP and when HUB_SOCK is removed;\n"
		"SIGUSR1 prints its counters.  At most %d node sockets, frames of\n"
		"%d to %d bytes.\n", MAX_PORTS, ETH_HLEN, FRAME_MAX);
}

/* A unix socket address for @path; -1 if it does not fit. */
static int make_addr(const char *path, struct sockaddr_un *a, socklen_t *len)
{
	size_t n = strlen(path);

	if (n == 0 || n >= sizeof(a->sun_path))
		return -1;
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	memcpy(a->sun_path, path, n + 1);
	*len = offsetof(struct sockaddr_un, sun_path) + n + 1;
	return 0;
}

static int is_group(const uint8_t *mac)
{
	return mac[0] & 1;
}

static unsigned int mac_hash(const uint8_t *mac)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < 6; i++)
		v = v << 8 | mac[i];
	return (unsigned int)((v * 0x9e3779b97f4a7c15ull) >> 40) &
		(MAC_SLOTS - 1);
}

/* The port (+ 1) @mac was learnt on; 0 if none. */
static unsigned int mac_lookup(const uint8_t *mac)
{
	unsigned int h = mac_hash(mac), i;

	for (i = 0; i < MAC_PROBES; i++) {
		struct mac_slot *s = &table[(h + i) & (MAC_SLOTS - 1)];

		if (!s->port)
			return 0;
		if (!memcmp(s->mac, mac, 6))
			return s->port;
	}
	return 0;
}

/*
 * @mac is behind port @p (a MAC that moves is followed).  With its probes
 * all taken by others, the first is replaced: a guest that makes up source
 * addresses only makes the hub flood more.
 */
static void mac_learn(const uint8_t *mac, unsigned int p)
{
	unsigned int h = mac_hash(mac), i;
	struct mac_slot *s;

	for (i = 0; i < MAC_PROBES; i++) {
		s = &table[(h + i) & (MAC_SLOTS - 1)];
		if (!s->port || !memcmp(s->mac, mac, 6))
			goto set;
	}
	s = &table[h];
set:
	memcpy(s->mac, mac, 6);
	s->port = (uint16_t)(p + 1);
}

/* The port a frame came from: its sender's bound path; -1 if no port's. */
static int sender_port(const struct sockaddr_un *from, socklen_t fromlen,
		       unsigned int hint)
{
	size_t max, len;
	unsigned int i;

	if (fromlen <= offsetof(struct sockaddr_un, sun_path) ||
	    from->sun_family != AF_UNIX)
		return -1;		/* an unbound socket */
	max = fromlen - offsetof(struct sockaddr_un, sun_path);
	if (max > sizeof(from->sun_path))
		max = sizeof(from->sun_path);
	len = strnlen(from->sun_path, max);
	if (len == 0)
		return -1;		/* abstract */
	/* Usually the port its source MAC was learnt on: try that first. */
	if (hint && hint <= nports && ports[hint - 1].pathlen == len &&
	    !memcmp(ports[hint - 1].addr.sun_path, from->sun_path, len))
		return hint - 1;
	for (i = 0; i < nports; i++)
		if (ports[i].pathlen == len &&
		    !memcmp(ports[i].addr.sun_path, from->sun_path, len))
			return i;
	return -1;
}

static void send_to(unsigned int p, const void *frame, size_t len)
{
	struct port *pt = &ports[p];

	/* Never wait for one guest: a full queue drops, as a switch does. */
	if (sendto(pt->fd, frame, len, MSG_DONTWAIT | MSG_NOSIGNAL,
		   (const struct sockaddr *)&pt->addr, pt->addrlen) >= 0) {
		count(C_TX);
		return;
	}
	switch (errno) {
	case EAGAIN:
	case ENOBUFS:
	case ENOMEM:
		count(C_FULL);
		break;
	case ENOENT:
	case ECONNREFUSED:
	case ENOTDIR:
		count(C_ABSENT);	/* QEMU not started yet, or gone */
		break;
	default:
		count(C_TX_ERROR);
		break;
	}
}

static void forward(const uint8_t *frame, size_t len, unsigned int in)
{
	unsigned int dst, p;

	if (!is_group(frame)) {
		dst = mac_lookup(frame);
		if (dst) {
			if (dst - 1 == in) {
				count(C_SAME_PORT);
				return;
			}
			send_to(dst - 1, frame, len);
			count(C_UNICAST);
			return;
		}
	}
	for (p = 0; p < nports; p++)
		if (p != in)
			send_to(p, frame, len);
	/* Counted once sent: every frame's fate is known when it shows. */
	count(C_FLOODED);
}

static void __attribute__((noreturn)) serve(int fd)
{
	static uint8_t frame[FRAME_MAX] __attribute__((aligned(8)));
	struct sockaddr_un from;
	socklen_t fromlen;
	ssize_t n;
	int in;

	for (;;) {
		fromlen = sizeof(from);
		/* MSG_TRUNC: the datagram's whole length, to refuse it. */
		n = recvfrom(fd, frame, sizeof(frame), MSG_TRUNC,
			     (struct sockaddr *)&from, &fromlen);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN ||
			    errno == ENOMEM || errno == ENOBUFS)
				continue;
			fail("recvfrom");
		}
		count(C_RX);
		if (n < ETH_HLEN) {
			count(C_SHORT);
			continue;
		}
		if (n > FRAME_MAX) {
			count(C_LONG);
			continue;
		}
		if (is_group(frame + 6)) {
			count(C_GROUP_SRC);
			continue;
		}
		in = sender_port(&from, fromlen, mac_lookup(frame + 6));
		if (in < 0) {
			count(C_STRANGER);
			continue;
		}
		mac_learn(frame + 6, in);
		forward(frame, n, in);
	}
}

/* What the watcher thread waits on (all optional but the signals). */
struct watch {
	int sigfd;
	int inofd;
	int pidfd;		/* -1: poll parent_pid every second, if any */
	pid_t parent_pid;	/* 0: none */
};

/* Is HUB_SOCK still the socket we bound? */
static int hub_still_ours(void)
{
	struct stat st;

	return stat(hub_path, &st) == 0 && st.st_dev == hub_dev &&
		st.st_ino == hub_ino;
}

static void *watcher(void *arg)
{
	struct watch *w = arg;
	struct pollfd pfd[3];
	char why[64];
	int n, i;

	for (;;) {
		int timeout = -1;

		n = 0;
		pfd[n++] = (struct pollfd){ .fd = w->sigfd, .events = POLLIN };
		pfd[n++] = (struct pollfd){ .fd = w->inofd, .events = POLLIN };
		if (w->pidfd >= 0)
			pfd[n++] = (struct pollfd){ .fd = w->pidfd,
						    .events = POLLIN };
		else if (w->parent_pid)
			timeout = 1000;	/* no pidfd_open(): look each second */
		if (poll(pfd, n, timeout) < 0) {
			if (errno == EINTR)
				continue;
			fail("poll");
		}
		if (pfd[0].revents) {
			struct signalfd_siginfo si;

			if (read(w->sigfd, &si, sizeof(si)) == sizeof(si)) {
				if (si.ssi_signo == SIGUSR1) {
					print_counters("counters");
					continue;
				}
				snprintf(why, sizeof(why), "exiting on %s",
					 sigabbrev_np(si.ssi_signo) ?
					 sigabbrev_np(si.ssi_signo) : "a signal");
				finish(0, why);
			}
		}
		if (pfd[1].revents) {
			/*
			 * Something left the socket's directory: the events
			 * themselves do not matter, whether the socket is
			 * still ours does.
			 */
			char ev[4096] __attribute__((aligned(8)));

			if (read(w->inofd, ev, sizeof(ev)) < 0 &&
			    errno != EAGAIN && errno != EINTR)
				fail("inotify");
			if (!hub_still_ours())
				finish(0, "exiting: the hub socket is gone");
		}
		for (i = 2; i < n; i++)
			if (pfd[i].revents)
				finish(0, "exiting: the parent process exited");
		if (w->pidfd < 0 && w->parent_pid &&
		    kill(w->parent_pid, 0) < 0 && errno == ESRCH)
			finish(0, "exiting: the parent process exited");
	}
	return NULL;
}

static int parse_pid(const char *s, pid_t *pid)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 1 || v > INT_MAX)
		return -1;
	*pid = (pid_t)v;
	return 0;
}

/* The node sockets: addresses, and a sending socket each. */
static int setup_ports(char **paths, unsigned int n)
{
	struct rlimit rl;
	unsigned int i, j;

	ports = calloc(n, sizeof(*ports));
	if (!ports) {
		say(PROG ": out of memory");
		return -1;
	}
	/* One descriptor per port: make room for them. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur < n + 32) {
		rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > n + 32 ?
			n + 32 : rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	for (i = 0; i < n; i++) {
		struct port *p = &ports[i];

		if (make_addr(paths[i], &p->addr, &p->addrlen) < 0) {
			say(PROG ": node socket path too long or empty: '%s'",
			    paths[i]);
			return -1;
		}
		p->pathlen = strlen(paths[i]);
		for (j = 0; j < i; j++)
			if (!strcmp(paths[i], paths[j])) {
				say(PROG ": node socket %s given twice", paths[i]);
				return -1;
			}
		p->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (p->fd < 0) {
			say(PROG ": socket for port %u: %s", i, strerror(errno));
			return -1;
		}
	}
	nports = n;
	return 0;
}

/* Bind HUB_SOCK, replacing a stale socket (never another kind of file). */
static int bind_hub(void)
{
	struct sockaddr_un a;
	socklen_t alen;
	struct stat st;
	int fd;

	if (make_addr(hub_path, &a, &alen) < 0) {
		say(PROG ": hub socket path too long or empty: '%s'", hub_path);
		return -1;
	}
	if (lstat(hub_path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			say(PROG ": %s exists and is not a socket", hub_path);
			return -1;
		}
		if (unlink(hub_path) < 0 && errno != ENOENT) {
			say(PROG ": cannot remove the old %s: %s", hub_path,
			    strerror(errno));
			return -1;
		}
	}
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, alen) < 0 ||
	    stat(hub_path, &st) < 0) {
		say(PROG ": cannot bind %s: %s", hub_path, strerror(errno));
		return -1;
	}
	hub_dev = st.st_dev;
	hub_ino = st.st_ino;
	return fd;
}

static int write_pidfile(void)
{
	char tmp[PATH_MAX], buf[32];
	int fd, n;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", pidfile) >= (int)sizeof(tmp)) {
		say(PROG ": pid file path too long");
		return -1;
	}
	n = snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	/* Written aside and renamed: a reader never sees half of it. */
	if (fd < 0 || write(fd, buf, n) != n || close(fd) < 0 ||
	    rename(tmp, pidfile) < 0) {
		say(PROG ": cannot write %s: %s", pidfile, strerror(errno));
		if (fd >= 0)
			unlink(tmp);
		return -1;
	}
	return 0;
}

/* inotify on HUB_SOCK's directory: removals and moves. */
static int watch_dir(void)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(hub_path, '/');
	size_t n;
	int fd;

	if (!slash) {
		strcpy(dir, ".");
	} else {
		n = slash == hub_path ? 1 : (size_t)(slash - hub_path);
		if (n >= sizeof(dir))
			return -1;
		memcpy(dir, hub_path, n);
		dir[n] = 0;
	}
	fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	if (fd < 0 || inotify_add_watch(fd, dir, IN_DELETE | IN_MOVED_FROM |
					IN_DELETE_SELF | IN_MOVE_SELF) < 0) {
		say(PROG ": inotify on %s: %s", dir, strerror(errno));
		return -1;
	}
	return fd;
}

int main(int argc, char **argv)
{
	struct watch w = { .sigfd = -1, .inofd = -1, .pidfd = -1 };
	pthread_t thread;
	sigset_t sigs;
	int i, j, fd, err;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "--")) {
			i++;
			break;
		} else if (!strcmp(a, "--pidfile")) {
			if (i + 1 >= argc || !argv[i + 1][0])
				return usage_error("--pidfile wants a file", "");
			pidfile = argv[++i];
		} else if (!strcmp(a, "--parent")) {
			if (i + 1 >= argc)
				return usage_error("--parent wants a pid", "");
			if (parse_pid(argv[++i], &w.parent_pid) < 0)
				return usage_error("bad --parent: ", argv[i]);
		} else {
			return usage_error("unknown option ", a);
		}
	}
	if (argc - i < 2)
		return usage_error("want HUB_SOCK and at least one NODE_SOCK", "");
	if (argc - i - 1 > MAX_PORTS)
		return usage_error("too many node sockets (at most 1024)", "");
	hub_path = argv[i];
	for (j = i + 1; j < argc; j++)
		if (!strcmp(argv[j], hub_path))
			return usage_error("a node socket is the hub socket: ",
					   hub_path);

	/* Only this user's processes (the QEMUs) may send to the hub. */
	umask(077);
	signal(SIGPIPE, SIG_IGN);
	/* The watcher takes the signals; the main thread only forwards. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGHUP);
	sigaddset(&sigs, SIGUSR1);
	err = pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	if (err) {
		errno = err;
		fail("pthread_sigmask");
	}
	w.sigfd = signalfd(-1, &sigs, SFD_CLOEXEC);
	if (w.sigfd < 0)
		fail("signalfd");
	if (w.parent_pid) {
		w.pidfd = (int)syscall(SYS_pidfd_open, w.parent_pid, 0);
		if (w.pidfd < 0 && errno == ESRCH) {
			say(PROG ": parent process %ld is not running",
			    (long)w.parent_pid);
			return 1;
		}
		if (w.pidfd < 0 && errno != ENOSYS)
			fail("pidfd_open");
	}
	if (setup_ports(argv + i + 1, argc - i - 1) < 0)
		return 1;
	fd = bind_hub();
	if (fd < 0)
		return 1;
	w.inofd = watch_dir();
	if (w.inofd < 0)
		finish(1, "failed");
	if (pidfile && write_pidfile() < 0) {
		pidfile = NULL;
		finish(1, "failed");
	}
	err = pthread_create(&thread, NULL, watcher, &w);
	if (err) {
		errno = err;
		fail("pthread_create");
	}
	say(PROG ": pid %ld: hub %s, %u ports", (long)getpid(), hub_path,
	    nports);
	serve(fd);
}
