// SPDX-License-Identifier: GPL-2.0-only
/*
 * kgni-job: a job's communication domain in kgni, from the guest's shell.
 *
 *   kgni-job configure PTAG COOKIE CGROUP [UID]
 *        allow (PTAG, COOKIE) on /dev/kgni0 to the processes of user UID
 *        (default 0) in cgroup CGROUP, a name under /sys/fs/cgroup made if
 *        need be
 *   kgni-job release PTAG COOKIE [CGROUP]
 *        withdraw it (kgni revokes every attachment to it); with CGROUP,
 *        then kill what is left in that cgroup and remove it
 *   kgni-job run CGROUP [UID[:GID]] [--host DIR] -- PROG ARGS...
 *        enter cgroup CGROUP, with --host change root to the host's file
 *        tree that /init put together from the directories "vgemini up"
 *        shares (HOST_VIEW) and go to DIR in it, become user UID (group
 *        GID, default UID; no supplementary groups, no capabilities,
 *        no_new_privs, RLIMIT_MEMLOCK unlimited) if given, exec PROG;
 *        the rank's main thread has a file task_is_app
 *        in /proc/PID/task/PID, as an application task of a Cray node does
 *   kgni-job attach [PTAG COOKIE]
 *        attach a file to (PTAG, COOKIE, rank)
 *
 * configure and release use KGNI_IOC_JOB_CONFIGURE (CAP_SYS_ADMIN): what
 * "vgemini run" does on every node of a job before its ranks start and
 * after they have ended; it starts each rank with "kgni-job run"
 * (Documentation/jobs.rst, "Job isolation").  attach takes PTAG and
 * COOKIE from PMI_GNI_PTAG and PMI_GNI_COOKIE when not given, the instance
 * id from PMI_RANK (0 if unset), does KGNI_IOC_CDM_ATTACH and prints
 * "kgni-job: attached ptag P cookie 0xC inst I: pe 0xPE".
 *
 * Exit status: 0 done, 1 the ioctl (or opening the device, or the cgroup)
 * failed, 2 usage; run: PROG's, or 127 if it could not be started.
 * Built statically by scripts/build-image.sh with -Iuapi.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dirent.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <grp.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "kgni_ioctl.h"

#define DEV "/dev/kgni0"
#define CGROUP_ROOT "/sys/fs/cgroup"
/* The host's file tree as guest/init mounts it */
#define HOST_VIEW "/run/vgemini/host"

static int usage(void)
{
	fprintf(stderr,
		"usage: kgni-job configure PTAG COOKIE CGROUP [UID]\n"
		"       kgni-job release PTAG COOKIE [CGROUP]\n"
		"       kgni-job run CGROUP [UID[:GID]] [--host DIR] -- PROG "
		"[ARGS...]\n"
		"       kgni-job attach [PTAG COOKIE]   (default: "
		"$PMI_GNI_PTAG $PMI_GNI_COOKIE, instance $PMI_RANK)\n");
	return 2;
}

/* A job's cgroup name: one path component, no dots at its start. */
static int cgroup_name_ok(const char *name)
{
	if (!*name || name[0] == '.' || strchr(name, '/') ||
	    strlen(name) > 200) {
		fprintf(stderr, "kgni-job: bad cgroup name '%s'\n", name);
		return 0;
	}
	return 1;
}

static void cgroup_path(char *buf, size_t len, const char *name,
			const char *file)
{
	snprintf(buf, len, CGROUP_ROOT "/%s%s%s", name, file ? "/" : "",
		 file ? file : "");
}

/* Write @text into @path; 0 or -1 with a message. */
static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0) {
		fprintf(stderr, "kgni-job: cannot open %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	n = write(fd, text, strlen(text));
	if (n != (ssize_t)strlen(text)) {
		fprintf(stderr, "kgni-job: cannot write %s: %s\n", path,
			n < 0 ? strerror(errno) : "short write");
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

/* A number of 0..max (decimal, 0x hex or 0 octal), else -1. */
static long long number(const char *what, const char *s, unsigned long long max)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-')
		goto bad;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || v > max)
		goto bad;
	return (long long)v;
bad:
	fprintf(stderr, "kgni-job: bad %s '%s' (0 to %llu)\n", what,
		s ? s : "", max);
	return -1;
}

/* "UID" (group UID too) or "UID:GID" into @uid and @gid; 0, or -1. */
static int parse_ids(const char *s, long long *uid, long long *gid)
{
	char buf[32];
	char *colon;

	if (strlen(s) >= sizeof(buf)) {
		fprintf(stderr, "kgni-job: bad user '%s'\n", s);
		return -1;
	}
	strcpy(buf, s);
	colon = strchr(buf, ':');
	if (colon)
		*colon = '\0';
	*uid = number("uid", buf, 0xfffffffeull);
	*gid = colon ? number("gid", colon + 1, 0xfffffffeull) : *uid;
	return *uid < 0 || *gid < 0 ? -1 : 0;
}

static int open_dev(void)
{
	int fd = open(DEV, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		fprintf(stderr, "kgni-job: cannot open %s: %s (errno %d)\n",
			DEV, strerror(errno), errno);
	return fd;
}

static int job_configure(__u32 ptag, __u32 cookie, int release,
			 const char *cgroup, __u32 uid)
{
	struct kgni_job_configure j;
	char path[256];
	int fd, cfd = -1;

	if (!release) {
		cgroup_path(path, sizeof(path), cgroup, NULL);
		if (mkdir(path, 0755) && errno != EEXIST) {
			fprintf(stderr, "kgni-job: cannot make cgroup %s: %s\n",
				path, strerror(errno));
			return 1;
		}
		cfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (cfd < 0) {
			fprintf(stderr, "kgni-job: cannot open cgroup %s: %s\n",
				path, strerror(errno));
			return 1;
		}
	}
	fd = open_dev();
	if (fd < 0) {
		if (cfd >= 0)
			close(cfd);
		return 1;
	}
	memset(&j, 0, sizeof(j));
	j.size = sizeof(j);
	j.flags = release ? KGNI_JOB_RELEASE : 0;
	j.ptag = ptag;
	j.cookie = cookie;
	j.uid = uid;
	j.cgroup_fd = cfd;
	if (ioctl(fd, KGNI_IOC_JOB_CONFIGURE, &j)) {
		int e = errno;

		fprintf(stderr, "kgni-job: %s ptag %u cookie 0x%x: "
			"%s (errno %d)%s\n",
			release ? "release" : "configure", ptag, cookie,
			strerror(e), e,
			e == EPERM ? " (needs CAP_SYS_ADMIN)" :
			e == ENOSPC ? " (the NIC's job table is full)" :
			e == EBUSY ? " (configured already)" :
			e == EBADF ? " (no cgroup v2 directory)" :
			e == EINVAL && release ? " (not configured)" : "");
		close(fd);
		if (cfd >= 0)
			close(cfd);
		return 1;
	}
	close(fd);
	if (cfd >= 0)
		close(cfd);
	if (release && cgroup) {
		/* What the job left behind goes with it (the cgroup is gone
		 * already if another domain of the job released it). */
		cgroup_path(path, sizeof(path), cgroup, "cgroup.kill");
		if (access(path, F_OK) == 0)
			write_file(path, "1");
		cgroup_path(path, sizeof(path), cgroup, NULL);
		for (int i = 0; i < 100 && rmdir(path) && errno == EBUSY; i++)
			usleep(10000);
	}
	return 0;
}

/*
 * Give this process, as a rank, the file task_is_app in its main thread's
 * /proc/PID/task/PID, as Cray's kernel marks the tasks ALPS starts (Open
 * MPI's Cray support looks for it).  The kernel has no such file, so in a
 * mount namespace of the rank's own that directory is covered by a tmpfs
 * holding task_is_app and a link to each of the real files, which a
 * private instance of procfs still shows.  @root is "" or HOST_VIEW, the
 * root the rank will have.
 */
static int mark_app_task(const char *root)
{
	char procs[128], task[128], real[64], at[256], link[512], to[512];
	int pid = getpid(), fd;
	struct dirent *e;
	DIR *d;

	snprintf(procs, sizeof(procs), "%s/run/vgemini-proc", root);
	snprintf(task, sizeof(task), "%s/run/vgemini-task", root);
	snprintf(real, sizeof(real), "/proc/%d/task/%d", pid, pid);
	snprintf(at, sizeof(at), "%s%s", root, real);
	if (unshare(CLONE_NEWNS) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    (mkdir(procs, 0555) && errno != EEXIST) ||
	    (mkdir(task, 0555) && errno != EEXIST) ||
	    mount("proc", procs, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC,
		  NULL) ||
	    mount("tmpfs", task, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
		  "mode=0555,size=64k"))
		goto fail;
	d = opendir(real);
	if (!d)
		goto fail;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(link, sizeof(link), "%s/%s", task, e->d_name);
		/* The target as the rank sees it, in its root */
		snprintf(to, sizeof(to), "/run/vgemini-proc/%d/task/%d/%s",
			 pid, pid, e->d_name);
		if (symlink(to, link)) {
			closedir(d);
			goto fail;
		}
	}
	closedir(d);
	snprintf(link, sizeof(link), "%s/task_is_app", task);
	fd = open(link, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444);
	if (fd < 0 || write(fd, "1\n", 2) != 2 || close(fd) ||
	    mount(task, at, NULL, MS_BIND, NULL))
		goto fail;
	return 0;
fail:
	fprintf(stderr, "kgni-job: cannot mark the rank an application task "
		"(%s/task_is_app): %s\n", at, strerror(errno));
	return -1;
}

/*
 * Become user @uid, group @gid, with no supplementary group, no
 * capability and no way back (no_new_privs: no set-user-id program or file
 * capability raises it again), as ALPS starts a rank.  Memory registration
 * pins pages against RLIMIT_MEMLOCK, which a Cray job has unlimited: raised
 * while still root.  0, or -1 with a message.
 */
static int become_user(uid_t uid, gid_t gid)
{
	struct rlimit unlimited = { RLIM_INFINITY, RLIM_INFINITY };

	if (setrlimit(RLIMIT_MEMLOCK, &unlimited) ||
	    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    setgroups(0, NULL) || setgid(gid) || setuid(uid)) {
		fprintf(stderr, "kgni-job: cannot become user %u group %u: %s\n",
			(unsigned int)uid, (unsigned int)gid, strerror(errno));
		return -1;
	}
	/* setuid() from root to another user drops every capability. */
	if (uid != 0 && setuid(0) == 0) {
		fprintf(stderr, "kgni-job: user %u could become root again\n",
			(unsigned int)uid);
		return -1;
	}
	return 0;
}

/*
 * Enter cgroup @name; if @host_dir, change root to HOST_VIEW and go to
 * @host_dir there; become @uid:@gid if @set_uid; exec @argv.
 */
static int job_run(const char *name, const char *host_dir, int set_uid,
		   uid_t uid, gid_t gid, char **argv)
{
	char path[256];

	cgroup_path(path, sizeof(path), name, "cgroup.procs");
	if (write_file(path, "0"))
		return 127;
	if (mark_app_task(host_dir ? HOST_VIEW : ""))
		return 127;
	if (host_dir) {
		/* /init mounts /usr there only when the host shares it. */
		if (access(HOST_VIEW "/usr/bin", X_OK)) {
			fprintf(stderr, "kgni-job: the host's files are not "
				"shared with this node (%s/usr: %s)\n",
				HOST_VIEW, strerror(errno));
			return 127;
		}
		if (chroot(HOST_VIEW) || chdir(host_dir)) {
			fprintf(stderr, "kgni-job: cannot go to the host's "
				"%s: %s\n", host_dir, strerror(errno));
			return 127;
		}
	}
	if (set_uid && become_user(uid, gid))
		return 127;
	execvp(argv[0], argv);
	fprintf(stderr, "kgni-job: cannot run %s: %s\n", argv[0],
		strerror(errno));
	return 127;
}

static int cdm_attach(__u32 ptag, __u32 cookie, __u32 inst)
{
	struct kgni_cdm_attach a;
	int fd = open_dev();

	if (fd < 0)
		return 1;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.ptag = ptag;
	a.cookie = cookie;
	a.inst_id = inst;
	if (ioctl(fd, KGNI_IOC_CDM_ATTACH, &a)) {
		int e = errno;

		fprintf(stderr, "kgni-job: attach ptag %u cookie 0x%x inst %u: "
			"%s (errno %d)%s\n", ptag, cookie, inst, strerror(e), e,
			e == EPERM ? " (no job configured this ptag and cookie)"
			: "");
		close(fd);
		return 1;
	}
	printf("kgni-job: attached ptag %u cookie 0x%x inst %u: pe 0x%x\n",
	       ptag, cookie, inst, a.nic_pe);
	fflush(stdout);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	const char *ps, *cs, *is;
	long long ptag, cookie, uid, inst = 0;

	if (argc < 2)
		return usage();
	if (!strcmp(argv[1], "configure") || !strcmp(argv[1], "release")) {
		int release = argv[1][0] == 'r';
		const char *cgroup = argc > 4 ? argv[4] : NULL;

		if (argc < 4 || argc > (release ? 5 : 6) ||
		    (!release && argc < 5))
			return usage();
		ptag = number("ptag", argv[2], 255);
		cookie = number("cookie", argv[3], 0xffffffffull);
		uid = argc == 6 ? number("uid", argv[5], 0xfffffffeull) : 0;
		if (ptag < 0 || cookie < 0 || uid < 0)
			return 2;
		if (cgroup && !cgroup_name_ok(cgroup))
			return 2;
		return job_configure(ptag, cookie, release, cgroup, uid);
	}
	if (!strcmp(argv[1], "run")) {
		const char *host_dir = NULL, *uid_s = NULL;
		long long gid;
		int i = 3;

		if (i < argc && strcmp(argv[i], "--") &&
		    strcmp(argv[i], "--host"))
			uid_s = argv[i++];
		if (i + 1 < argc && !strcmp(argv[i], "--host")) {
			host_dir = argv[i + 1];
			i += 2;
		}
		if (i + 1 >= argc || strcmp(argv[i], "--") ||
		    argc < 3 || !cgroup_name_ok(argv[2]) ||
		    (host_dir && host_dir[0] != '/'))
			return usage();
		uid = gid = 0;
		if (uid_s && parse_ids(uid_s, &uid, &gid))
			return 2;
		return job_run(argv[2], host_dir, !!uid_s, (uid_t)uid,
			       (gid_t)gid, argv + i + 1);
	}
	if (!strcmp(argv[1], "attach")) {
		if (argc == 4) {
			ps = argv[2];
			cs = argv[3];
		} else if (argc == 2) {
			ps = getenv("PMI_GNI_PTAG");
			cs = getenv("PMI_GNI_COOKIE");
			if (!ps || !cs) {
				fprintf(stderr, "kgni-job: attach: no PTAG "
					"COOKIE given and PMI_GNI_PTAG or "
					"PMI_GNI_COOKIE unset\n");
				return 2;
			}
		} else {
			return usage();
		}
		ptag = number("ptag", ps, 255);
		cookie = number("cookie", cs, 0xffffffffull);
		is = getenv("PMI_RANK");
		if (is)
			inst = number("PMI_RANK", is, 0xffffffffull);
		if (ptag < 0 || cookie < 0 || inst < 0)
			return 2;
		return cdm_attach(ptag, cookie, inst);
	}
	return usage();
}
