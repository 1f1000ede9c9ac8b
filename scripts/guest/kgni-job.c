// SPDX-License-Identifier: GPL-2.0-only
/*
 * kgni-job: a job's communication domain in kgni, from the guest's shell.
 *
 *   kgni-job configure PTAG COOKIE   allow (PTAG, COOKIE) on /dev/kgni0
 *   kgni-job release PTAG COOKIE     withdraw it
 *   kgni-job attach [PTAG COOKIE]    attach a file to (PTAG, COOKIE, rank)
 *
 * configure and release use KGNI_IOC_JOB_CONFIGURE (CAP_SYS_ADMIN): what
 * "vgemini run" does on every node of a job before its ranks start and
 * after they have ended (Documentation/jobs.rst).  attach takes PTAG and
 * COOKIE from PMI_GNI_PTAG and PMI_GNI_COOKIE when not given, the instance
 * id from PMI_RANK (0 if unset), does KGNI_IOC_CDM_ATTACH and prints
 * "kgni-job: attached ptag P cookie 0xC inst I: pe 0xPE".
 *
 * Exit status: 0 done, 1 the ioctl (or opening the device) failed, 2 usage.
 * Built statically by scripts/build-image.sh with -Iuapi.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include "kgni_ioctl.h"

#define DEV "/dev/kgni0"

static int usage(void)
{
	fprintf(stderr,
		"usage: kgni-job configure PTAG COOKIE\n"
		"       kgni-job release PTAG COOKIE\n"
		"       kgni-job attach [PTAG COOKIE]   (default: "
		"$PMI_GNI_PTAG $PMI_GNI_COOKIE, instance $PMI_RANK)\n");
	return 2;
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

static int open_dev(void)
{
	int fd = open(DEV, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		fprintf(stderr, "kgni-job: cannot open %s: %s (errno %d)\n",
			DEV, strerror(errno), errno);
	return fd;
}

static int job_configure(__u32 ptag, __u32 cookie, int release)
{
	struct kgni_job_configure j;
	int fd = open_dev();

	if (fd < 0)
		return 1;
	memset(&j, 0, sizeof(j));
	j.size = sizeof(j);
	j.flags = release ? KGNI_JOB_RELEASE : 0;
	j.ptag = ptag;
	j.cookie = cookie;
	if (ioctl(fd, KGNI_IOC_JOB_CONFIGURE, &j)) {
		int e = errno;

		fprintf(stderr, "kgni-job: %s ptag %u cookie 0x%x: "
			"%s (errno %d)%s\n",
			release ? "release" : "configure", ptag, cookie,
			strerror(e), e,
			e == EPERM ? " (needs CAP_SYS_ADMIN)" :
			e == ENOSPC ? " (the NIC's job table is full)" :
			e == EINVAL && release ? " (not configured)" : "");
		close(fd);
		return 1;
	}
	close(fd);
	return 0;
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
	long long ptag, cookie, inst = 0;

	if (argc < 2)
		return usage();
	if (!strcmp(argv[1], "configure") || !strcmp(argv[1], "release")) {
		if (argc != 4)
			return usage();
		ptag = number("ptag", argv[2], 255);
		cookie = number("cookie", argv[3], 0xffffffffull);
		if (ptag < 0 || cookie < 0)
			return 2;
		return job_configure(ptag, cookie, argv[1][0] == 'r');
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
