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

/* Register @n segments as one domain (handle VA 0); 0 or -errno. */
static inline int mem_register_segments(int fd,
					const struct kgni_mem_segment *segs,
					__u32 n, __u32 flags, __u32 cq_id,
					__u64 h[2])
{
	struct kgni_mem_register_segments r = {
		.size = sizeof(r), .flags = flags,
		.segments = (uintptr_t)segs, .nsegs = n, .cq_id = cq_id,
	};
	int ret = xioctl(fd, KGNI_IOC_MEM_REGISTER_SEGMENTS, &r);

	if (!ret) {
		h[0] = r.mem_hndl[0];
		h[1] = r.mem_hndl[1];
	}
	return ret;
}

/*
 * A post of @len bytes between @local (in registration @lh of the file)
 * and @remote (an address in handle @rh's registration, at PE @pe),
 * events into CQ @cq; no events asked, no flags.
 */
static inline void rdma_fill(struct kgni_rdma_post *p, __u32 type, __u32 pe,
			     __u32 cq, __u64 local, const __u64 lh[2],
			     __u64 remote, const __u64 rh[2], __u64 len)
{
	memset(p, 0, sizeof(*p));
	p->size = sizeof(*p);
	p->type = type;
	p->remote_pe = pe;
	p->cq_id = cq;
	p->local_addr = local;
	p->local_mem_hndl[0] = lh[0];
	p->local_mem_hndl[1] = lh[1];
	p->remote_addr = remote;
	p->remote_mem_hndl[0] = rh[0];
	p->remote_mem_hndl[1] = rh[1];
	p->length = len;
}

static inline int rdma_post(int fd, struct kgni_rdma_post *p)
{
	return xioctl(fd, KGNI_IOC_RDMA_POST, p);
}

/* A PE that is no node of any torus here: requests to it time out. */
#define NO_SUCH_PE		0x3ffffu

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

/* Wait until the fabric runs (routes loaded): even loopback needs it. */
#define FABRIC_READY_TIMEOUT_S	30

static inline void wait_fabric(struct __test_metadata *_metadata)
{
	double deadline = kgni_now() + FABRIC_READY_TIMEOUT_S;
	char state[64] = "";
	bool ready;

	for (;;) {
		ready = !kgni_read_attr("fabric_state", state, sizeof(state)) &&
			!strcmp(state, "running");
		if (ready || kgni_now() > deadline)
			break;
		usleep(200 * 1000);
	}
	ASSERT_TRUE(ready)
		TH_LOG("fabric_state is \"%s\", want running", state);
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
