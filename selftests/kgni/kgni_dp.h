/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kgni_dp.h: the data-path ioctls as the selftests call them (0 or
 * -errno), and what their fixtures share.  Included after kgni_test.h.
 */
#ifndef KGNI_DP_H
#define KGNI_DP_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "kgni_ioctl.h"

static inline int xioctl(int fd, unsigned long req, void *arg)
{
	return ioctl(fd, req, arg) ? -errno : 0;
}

/* The cgroup the selftests' jobs are bound to (mounted by the image's init) */
#define TEST_CGROUP_ROOT	"/sys/fs/cgroup"
#define TEST_CGROUP		TEST_CGROUP_ROOT "/kgni-selftest"

/* Move the calling process into cgroup directory @dir; 0 or -errno. */
static inline int cgroup_enter(const char *dir)
{
	char path[256];
	int fd, ret = 0;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, "0", 1) != 1)
		ret = -errno;
	close(fd);
	return ret;
}

/*
 * Allow (@ptag, @cookie) to user @uid in TEST_CGROUP, which the caller
 * joins first (made if need be); or release it.  Where the caller cannot
 * join (not root), the ioctl is made with no cgroup and says why not.
 */
static inline int job_configure_uid(int fd, __u32 flags, __u32 ptag,
				    __u32 cookie, __u32 uid)
{
	struct kgni_job_configure j = {
		.size = sizeof(j), .flags = flags, .ptag = ptag,
		.cookie = cookie, .uid = uid, .cgroup_fd = -1,
	};
	int ret;

	if (!(flags & KGNI_JOB_RELEASE)) {
		mkdir(TEST_CGROUP, 0755);
		if (!cgroup_enter(TEST_CGROUP))
			j.cgroup_fd = open(TEST_CGROUP, O_RDONLY | O_DIRECTORY |
					   O_CLOEXEC);
	}
	ret = xioctl(fd, KGNI_IOC_JOB_CONFIGURE, &j);
	if (j.cgroup_fd >= 0)
		close(j.cgroup_fd);
	return ret;
}

static inline int job_configure(int fd, __u32 flags, __u32 ptag,
				__u32 cookie)
{
	return job_configure_uid(fd, flags, ptag, cookie, getuid());
}

/* Attach @fd with inst_id 7; the NIC's PE into @pe if not NULL. */
static inline int cdm_attach(int fd, __u32 ptag, __u32 cookie, __u32 *pe)
{
	struct kgni_cdm_attach a = {
		.size = sizeof(a), .ptag = ptag, .cookie = cookie, .inst_id = 7,
	};
	int ret = xioctl(fd, KGNI_IOC_CDM_ATTACH, &a);

	if (!ret && pe)
		*pe = a.nic_pe;
	return ret;
}

static inline int mem_register_cq(int fd, void *addr, __u64 len,
				  __u32 flags, __u32 cq_id, __u64 h[2])
{
	struct kgni_mem_register r = {
		.size = sizeof(r), .flags = flags,
		.addr = (uintptr_t)addr, .len = len, .cq_id = cq_id,
	};
	int ret = xioctl(fd, KGNI_IOC_MEM_REGISTER, &r);

	if (!ret) {
		h[0] = r.mem_hndl[0];
		h[1] = r.mem_hndl[1];
	}
	return ret;
}

static inline int mem_deregister(int fd, const __u64 h[2])
{
	struct kgni_mem_deregister d = {
		.size = sizeof(d), .mem_hndl = { h[0], h[1] },
	};

	return xioctl(fd, KGNI_IOC_MEM_DEREGISTER, &d);
}

static inline void *map(int fd, __u64 off, size_t len, int prot)
{
	void *p = mmap(NULL, len, prot, MAP_SHARED, fd, off);

	return p == MAP_FAILED ? NULL : p;
}

/* Zeroed private anonymous memory, or NULL */
static inline void *anon(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	memset(p, 0, len);
	return p;
}

/* Count (and log) the kernel's splats read from @kmsg since it opened. */
static inline unsigned int kgni_kmsg_splats(struct __test_metadata *_metadata,
					    int kmsg)
{
	unsigned int splats = 0;
	char text[1024];

	while (kgni_kmsg_next(kmsg, text, sizeof(text))) {
		if (kgni_kmsg_is_splat(text)) {
			TH_LOG("kernel: %s", text);
			splats++;
		}
	}
	return splats;
}

#endif
