// SPDX-License-Identifier: GPL-2.0-only
/*
 * isolation_test: what one job, user or process can do to another's.
 *
 * - Who may attach: the job's user, in the job's cgroup; the right
 *   (ptag, cookie) from anywhere else is refused; a live job's ptag is
 *   refused to another job (EBUSY); BAR0 cannot be mapped through sysfs.
 * - Releasing a job revokes its attachments: descriptors stop, mappings
 *   go, registrations become invalid, every data-path ioctl says ENOLINK.
 * - A descriptor freed with a sequence in flight is handed to another job
 *   only once idle: none of the old owner's events reach the new owner.
 * - CQs need a CDM and are limited per file (EDQUOT).
 * - RDMA posts name only the file's own CQs and registrations; another
 *   job's memory, named as the remote side, is refused by the target.
 *   A file closed while its transfers run waits for them before its CQ
 *   numbers go to anyone else.
 * - Races: mmap against CQ_DESTROY and FMA_FREE, ioctls against close,
 *   fork with mappings and registrations; the kernel log stays clean.
 */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "kgni_test.h"
#include "kgni_ioctl.h"
#include "kgni_dp.h"
#include "gemini_nic.h"
#include "gemini_pkt.h"

#define PAGE		4096
#define A_PTAG		0x52
#define A_COOKIE	0x7a7a0000u
#define B_PTAG		0x53
#define B_COOKIE	0x7b7b0000u
#define RACE_SECONDS	3

FIXTURE(iso) {
	bool absent;
	int kmsg;
};

FIXTURE_SETUP(iso)
{
	if (!kgni_fixture_setup(_metadata, KGNI_FIXTURE_ROOT, &self->absent,
				&self->kmsg, NULL))
		return;
	/* This process is one of the ranks of the jobs it sets up. */
	mkdir(TEST_CGROUP, 0755);
	ASSERT_EQ(0, cgroup_enter(TEST_CGROUP));
}

FIXTURE_TEARDOWN(iso)
{
	unsigned int splats;
	int fd;

	if (self->absent)
		return;
	fd = open(KGNI_DEV, O_RDWR | O_CLOEXEC);
	if (fd >= 0) {
		job_configure(fd, KGNI_JOB_RELEASE, A_PTAG, A_COOKIE);
		job_configure(fd, KGNI_JOB_RELEASE, B_PTAG, B_COOKIE);
		close(fd);
	}
	splats = kgni_kmsg_splats(_metadata, self->kmsg);
	close(self->kmsg);
	EXPECT_EQ(0u, splats);
}

static int open_dev(void)
{
	return open(KGNI_DEV, O_RDWR | O_CLOEXEC);
}

/* A new file attached to (@ptag, @cookie), or -errno */
static int attached(__u32 ptag, __u32 cookie)
{
	int fd = open_dev(), ret;

	if (fd < 0)
		return -errno;
	ret = cdm_attach(fd, ptag, cookie, NULL);
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

static int cq_make(int fd, __u32 entries, struct kgni_cq_create *cc)
{
	memset(cc, 0, sizeof(*cc));
	cc->size = sizeof(*cc);
	cc->entries = entries;
	return xioctl(fd, KGNI_IOC_CQ_CREATE, cc);
}

static int cq_kill(int fd, __u32 id)
{
	struct kgni_cq_destroy d = { .size = sizeof(d), .cq_id = id };

	return xioctl(fd, KGNI_IOC_CQ_DESTROY, &d);
}

static int fma_take(int fd, __u32 cq, struct kgni_fma_alloc *fa)
{
	memset(fa, 0, sizeof(*fa));
	fa->size = sizeof(*fa);
	fa->cq_id = cq;
	return xioctl(fd, KGNI_IOC_FMA_ALLOC, fa);
}

static int fma_give(int fd, __u32 id)
{
	struct kgni_fma_free f = { .size = sizeof(f), .fma_id = id };

	return xioctl(fd, KGNI_IOC_FMA_FREE, &f);
}

/* Run @fn in a child; its exit status (or 128 + signal). */
static int in_child(int (*fn)(void *), void *arg)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0)
		_exit(fn(arg));
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) :
	       128 + WTERMSIG(status);
}

static int attach_outside(void *arg)
{
	(void)arg;
	if (cgroup_enter(TEST_CGROUP_ROOT))
		return 10;
	return attached(A_PTAG, A_COOKIE) == -EPERM ? 0 : 1;
}

static int attach_other_user(void *arg)
{
	(void)arg;
	if (setgid(65534) || setuid(65534))
		return 10;
	return attached(A_PTAG, A_COOKIE) == -EPERM ? 0 : 1;
}

static int attach_inside(void *arg)
{
	int fd = attached(A_PTAG, A_COOKIE);

	(void)arg;
	return fd >= 0 ? 0 : 1;
}

/* The pair alone opens nothing: the job's user, in its cgroup, only. */
TEST_F(iso, who_may_attach)
{
	struct kgni_job_configure j = {
		.size = sizeof(j), .ptag = 0x54, .cookie = 1,
	};
	int fd;

	if (self->absent)
		return;
	fd = open_dev();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, job_configure(fd, 0, A_PTAG, A_COOKIE));
	EXPECT_EQ(-EBUSY, job_configure(fd, 0, A_PTAG, A_COOKIE));
	/*
	 * A live job's ptag is refused to another job, whatever its cookie:
	 * the NIC checks only the ptag of a packet.
	 */
	EXPECT_EQ(-EBUSY, job_configure(fd, 0, A_PTAG, B_COOKIE));
	EXPECT_EQ(0, in_child(attach_inside, NULL));
	EXPECT_EQ(0, in_child(attach_outside, NULL))
		TH_LOG("a root process outside the job's cgroup attached");
	EXPECT_EQ(0, in_child(attach_other_user, NULL))
		TH_LOG("another user in the job's cgroup attached");
	/* Bound to another user: root in the cgroup is refused too. */
	ASSERT_EQ(0, job_configure_uid(fd, 0, B_PTAG, B_COOKIE, 65534));
	EXPECT_EQ(-EPERM, attached(B_PTAG, B_COOKIE));
	/* Not a cgroup: refused at configuration; reserved must be 0. */
	j.cgroup_fd = fd;
	EXPECT_EQ(-EBADF, xioctl(fd, KGNI_IOC_JOB_CONFIGURE, &j));
	j.cgroup_fd = open(TEST_CGROUP, O_RDONLY | O_DIRECTORY);
	j.reserved = 1;
	EXPECT_EQ(-EINVAL, xioctl(fd, KGNI_IOC_JOB_CONFIGURE, &j));
	close(j.cgroup_fd);
	close(fd);
}

static sigjmp_buf bus_jmp;

static void on_bus(int sig)
{
	(void)sig;
	siglongjmp(bus_jmp, 1);
}

/* Reading @p faults (SIGBUS or SIGSEGV): the mapping is gone. */
static bool unreadable(volatile __u64 *p)
{
	struct sigaction sa = { .sa_handler = on_bus }, obus, osegv;
	bool gone;

	sigaction(SIGBUS, &sa, &obus);
	sigaction(SIGSEGV, &sa, &osegv);
	if (sigsetjmp(bus_jmp, 1)) {
		gone = true;
	} else {
		(void)*p;
		gone = false;
	}
	sigaction(SIGBUS, &obus, NULL);
	sigaction(SIGSEGV, &osegv, NULL);
	return gone;
}

/* Release revokes: mappings go, handles die, ioctls say ENOLINK. */
TEST_F(iso, release_revokes)
{
	struct kgni_mem_segment seg;
	struct kgni_rdma_post p;
	struct kgni_cq_create cc;
	struct kgni_fma_alloc fa;
	volatile __u64 *user, *ring;
	char *buf = anon(PAGE);
	__u64 h[2], h2[2];
	int ctl, fd;

	if (self->absent)
		return;
	ctl = open_dev();
	ASSERT_LE(0, ctl);
	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, job_configure(ctl, 0, A_PTAG, A_COOKIE));
	fd = attached(A_PTAG, A_COOKIE);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, cq_make(fd, 16, &cc));
	ASSERT_EQ(0, fma_take(fd, cc.cq_id, &fa));
	ASSERT_EQ(0, mem_register_cq(fd, buf, PAGE, 0, 0, h));
	user = map(fd, fa.user_offset, PAGE, PROT_READ | PROT_WRITE);
	ring = map(fd, cc.ring_offset, cc.ring_size, PROT_READ);
	ASSERT_TRUE(user && ring);
	EXPECT_FALSE(unreadable(user));

	ASSERT_EQ(0, job_configure(ctl, KGNI_JOB_RELEASE, A_PTAG, A_COOKIE));
	EXPECT_TRUE(unreadable(user));
	EXPECT_TRUE(unreadable(ring));
	EXPECT_EQ(-ENOLINK, mem_deregister(fd, h));
	EXPECT_EQ(-ENOLINK, mem_register_cq(fd, buf, PAGE, 0, 0, h));
	EXPECT_EQ(-ENOLINK, fma_give(fd, fa.fma_id));
	EXPECT_EQ(-ENOLINK, cq_kill(fd, cc.cq_id));
	EXPECT_EQ(-ENOLINK, cq_make(fd, 16, &cc));
	EXPECT_EQ(-ENOLINK, cdm_attach(fd, A_PTAG, A_COOKIE, NULL));
	EXPECT_EQ(NULL, map(fd, fa.user_offset, PAGE, PROT_READ));
	rdma_fill(&p, KGNI_RDMA_PUT, 0, cc.cq_id, (uintptr_t)buf, h,
		  (uintptr_t)buf, h, 8);
	EXPECT_EQ(-ENOLINK, rdma_post(fd, &p));
	seg.addr = (uintptr_t)buf;
	seg.len = PAGE;
	EXPECT_EQ(-ENOLINK, mem_register_segments(fd, &seg, 1, 0, 0, h2));
	/* The pair set up again is a new job: new files attach. */
	ASSERT_EQ(0, job_configure(ctl, 0, A_PTAG, A_COOKIE));
	close(fd);
	fd = attached(A_PTAG, A_COOKIE);
	EXPECT_LE(0, fd);
	if (fd >= 0)
		close(fd);
	munmap((void *)user, PAGE);
	munmap((void *)ring, cc.ring_size);
	close(ctl);
}

/*
 * Job A frees a descriptor with a sequence in flight (a PUT to a PE that
 * is no node: it can only time out); job B is then given the same
 * descriptor.  The free waits for the sequence to end, and its error
 * event reaches A's CQ, never B's.
 */
TEST_F_TIMEOUT(iso, descriptor_reuse_across_jobs, 60)
{
	struct kgni_cq_create ca, cb;
	struct kgni_fma_alloc fa, fb;
	volatile __u64 *user, *ring_a, *ring_b;
	volatile char *put;
	char *buf = anon(PAGE);
	double t0, waited;
	__u64 h[2], qw2, st;
	int ctl, a, b, i;

	if (self->absent)
		return;
	ctl = open_dev();
	ASSERT_LE(0, ctl);
	ASSERT_EQ(0, job_configure(ctl, 0, A_PTAG, A_COOKIE));
	ASSERT_EQ(0, job_configure(ctl, 0, B_PTAG, B_COOKIE));
	a = attached(A_PTAG, A_COOKIE);
	b = attached(B_PTAG, B_COOKIE);
	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	ASSERT_EQ(0, cq_make(a, 16, &ca));
	ASSERT_EQ(0, cq_make(b, 16, &cb));
	ASSERT_EQ(0, fma_take(a, ca.cq_id, &fa));
	ASSERT_EQ(0, mem_register_cq(a, buf, PAGE, 0, 0, h));
	user = map(a, fa.user_offset, PAGE, PROT_READ | PROT_WRITE);
	put = map(a, fa.put_uc_offset, PAGE, PROT_WRITE);
	ring_a = map(a, ca.ring_offset, ca.ring_size, PROT_READ);
	ring_b = map(b, cb.ring_offset, cb.ring_size, PROT_READ);
	ASSERT_TRUE(user && put && ring_a && ring_b);

	/* PE 0x3ffff: no node of any torus here, so no response comes. */
	qw2 = user[GEMINI_FMA_QW_CMD / 8];
	qw2 &= GEMINI_FMA_MODE2_MASK << GEMINI_FMA_MODE2_SHIFT;
	qw2 |= (__u64)GEMINI_FMA_CMD_PUT << GEMINI_FMA_CMD_SHIFT |
	       (__u64)(h[0] >> 52) << GEMINI_FMA_REM_MDH_SHIFT;
	user[GEMINI_FMA_QW_BASE_OFFSET / 8] = 0x3ffffull << 40;
	user[GEMINI_FMA_QW_CMD / 8] = qw2;
	*(volatile __u64 *)put = 0x1234;
	user[GEMINI_FMA_QW_SYNCCMP / 8] =
		(__u64)GEMINI_FMA_SYNC_LOCAL_EVENT << GEMINI_FMA_SYNC_TYPE_SHIFT |
		0xa;
	st = user[GEMINI_FMA_QW_STATUS / 8];
	t0 = kgni_now();
	ASSERT_EQ(0, fma_give(a, fa.fma_id));
	waited = kgni_now() - t0;
	ASSERT_EQ(0, fma_take(b, cb.cq_id, &fb));
	TH_LOG("descriptor %u, SSIDs %llu at free; free took %.2f s; B got %u",
	       fa.fma_id, (unsigned long long)(st >> GEMINI_FMA_STAT_SSID_SHIFT &
					   GEMINI_FMA_STAT_SSID_MASK),
	       waited, fb.fma_id);
	/*
	 * Whatever A's sequence did, it ends in A's CQ.  Its timeout may
	 * come later than GEMINI_FMA_TIMEOUT_MS: a device polled late (a
	 * starved QEMU, as when six guests share two cores) does not count
	 * the time it did not run (GEMINI_FMA_PAUSE_MS).
	 */
	for (i = 0; i < 1000 && !ring_a[0]; i++)
		usleep(10000);
	EXPECT_NE(0ull, ring_a[0]);
	usleep(GEMINI_FMA_TIMEOUT_MS * 1000 + 500 * 1000);
	EXPECT_EQ(0ull, ring_b[0]);
	close(a);
	close(b);
	close(ctl);
}

/* CQs need a CDM; a file holds at most KGNI_MAX_CQS_PER_FILE. */
TEST_F(iso, cq_limits)
{
	struct kgni_cq_create cc;
	int ctl, fd, i, ret = 0;

	if (self->absent)
		return;
	ctl = open_dev();
	ASSERT_LE(0, ctl);
	EXPECT_EQ(-EPERM, cq_make(ctl, 2, &cc));
	ASSERT_EQ(0, job_configure(ctl, 0, A_PTAG, A_COOKIE));
	fd = attached(A_PTAG, A_COOKIE);
	ASSERT_LE(0, fd);
	for (i = 0; i < 1024; i++) {
		ret = cq_make(fd, 2, &cc);
		if (ret)
			break;
	}
	EXPECT_EQ(-EDQUOT, ret);
	EXPECT_EQ(64, i);
	close(fd);
	close(ctl);
}

/* --- RDMA posts --------------------------------------------------------- */

/* Entry @i of @ring once written, or 0 after @secs */
static __u64 ring_wait(volatile __u64 *ring, unsigned int i, double secs)
{
	double deadline = kgni_now() + secs;

	while (!ring[i] && kgni_now() < deadline)
		usleep(1000);
	return ring[i];
}

/*
 * Job B cannot name job A's registration or CQ in a post (EINVAL, as
 * for a handle or CQ that does not exist); A's handle as the remote side
 * reaches A's node, whose NAT refuses B's ptag: B's transfer fails with
 * PROTECTION and A's memory is not touched, neither read nor written.
 */
TEST_F_TIMEOUT(iso, rdma_other_jobs_objects, 60)
{
	struct kgni_cq_create ca, cb;
	struct kgni_rdma_post p;
	volatile __u64 *ring;
	char *bufa = anon(PAGE), *bufb = anon(PAGE);
	__u64 ha[2], hb[2], e;
	int ctl, a, b, i;
	__u32 pe;

	if (self->absent)
		return;
	ASSERT_TRUE(bufa && bufb);
	memset(bufa, 0x5a, PAGE);
	ctl = open_dev();
	ASSERT_LE(0, ctl);
	ASSERT_EQ(0, job_configure(ctl, 0, A_PTAG, A_COOKIE));
	ASSERT_EQ(0, job_configure(ctl, 0, B_PTAG, B_COOKIE));
	a = attached(A_PTAG, A_COOKIE);
	b = open_dev();
	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	ASSERT_EQ(0, cdm_attach(b, B_PTAG, B_COOKIE, &pe));
	wait_fabric(_metadata);
	ASSERT_EQ(0, cq_make(a, 16, &ca));
	ASSERT_EQ(0, cq_make(b, 16, &cb));
	ASSERT_EQ(0, mem_register_cq(a, bufa, PAGE, 0, 0, ha));
	ASSERT_EQ(0, mem_register_cq(b, bufb, PAGE, 0, 0, hb));
	ring = map(b, cb.ring_offset, cb.ring_size, PROT_READ);
	ASSERT_NE(NULL, ring);

	/* A's registration as B's local side; A's CQ as B's */
	rdma_fill(&p, KGNI_RDMA_PUT, pe, cb.cq_id, (uintptr_t)bufa, ha,
		  (uintptr_t)bufb, hb, 64);
	EXPECT_EQ(-EINVAL, rdma_post(b, &p));
	rdma_fill(&p, KGNI_RDMA_PUT, pe, ca.cq_id, (uintptr_t)bufb, hb,
		  (uintptr_t)bufb + 64, hb, 64);
	EXPECT_EQ(-EINVAL, rdma_post(b, &p));

	/* A's memory as the target of B's PUT, then the source of a GET */
	memset(bufb, 0x11, PAGE);
	rdma_fill(&p, KGNI_RDMA_PUT, pe, cb.cq_id, (uintptr_t)bufb, hb,
		  (uintptr_t)bufa, ha, 256);
	p.events = KGNI_RDMA_EV_GLOBAL;
	p.global_data = 0xb1;
	ASSERT_EQ(0, rdma_post(b, &p));
	e = ring_wait(ring, 0, 5);
	EXPECT_EQ((__u64)GEMINI_CQE_SRC_BTE,
		  e >> GEMINI_CQE_SOURCE_SHIFT & GEMINI_CQE_SOURCE_MASK)
		TH_LOG("CQ entry 0x%016llx", (unsigned long long)e);
	EXPECT_EQ((__u64)GEMINI_STATUS_PROTECTION,
		  e >> GEMINI_CQE_STATUS_SHIFT & GEMINI_CQE_STATUS_MASK)
		TH_LOG("CQ entry 0x%016llx", (unsigned long long)e);
	rdma_fill(&p, KGNI_RDMA_GET, pe, cb.cq_id, (uintptr_t)bufb, hb,
		  (uintptr_t)bufa, ha, 256);
	p.events = KGNI_RDMA_EV_GLOBAL;
	p.global_data = 0xb2;
	ASSERT_EQ(0, rdma_post(b, &p));
	e = ring_wait(ring, 1, 5);
	EXPECT_EQ((__u64)GEMINI_STATUS_PROTECTION,
		  e >> GEMINI_CQE_STATUS_SHIFT & GEMINI_CQE_STATUS_MASK)
		TH_LOG("CQ entry 0x%016llx", (unsigned long long)e);
	for (i = 0; i < PAGE; i++)
		if (bufa[i] != 0x5a || bufb[i] != 0x11)
			break;
	EXPECT_EQ(PAGE, i) TH_LOG("A's or B's buffer changed at %d", i);

	munmap((void *)ring, cb.ring_size);
	close(a);
	close(b);
	close(ctl);
}

/*
 * A file of job A is closed while its transfers run: a 1 MiB PUT to this
 * node and one to a PE that is no node, which can only end by timing out.
 * The close does not wait for them (its registrations are invalid first,
 * so the first one stops at once; the other becomes an orphan that keeps
 * A's CQ number until it ends): the kernel stays clean, and job B, which
 * then takes CQs, does not get A's number meanwhile and never sees an
 * event of A's in them.
 */
TEST_F_TIMEOUT(iso, rdma_release_mid_transfer, 60)
{
	enum { NP = 256, NCQ = 8 };
	struct kgni_cq_create ca, cb[NCQ];
	volatile __u64 *ring[NCQ];
	struct kgni_rdma_post p;
	char *buf = anon((size_t)NP * PAGE);
	int ctl, a, b, i, reused = 0;
	double t0, dt;
	__u64 h[2];
	__u32 pe;

	if (self->absent)
		return;
	ASSERT_NE(NULL, buf);
	ctl = open_dev();
	ASSERT_LE(0, ctl);
	ASSERT_EQ(0, job_configure(ctl, 0, A_PTAG, A_COOKIE));
	ASSERT_EQ(0, job_configure(ctl, 0, B_PTAG, B_COOKIE));
	a = open_dev();
	ASSERT_LE(0, a);
	ASSERT_EQ(0, cdm_attach(a, A_PTAG, A_COOKIE, &pe));
	wait_fabric(_metadata);
	ASSERT_EQ(0, cq_make(a, 16, &ca));
	ASSERT_EQ(0, mem_register_cq(a, buf, (size_t)NP * PAGE, 0, 0, h));
	rdma_fill(&p, KGNI_RDMA_PUT, NO_SUCH_PE, ca.cq_id, (uintptr_t)buf, h,
		  (uintptr_t)buf, h, (size_t)NP * PAGE);
	p.events = KGNI_RDMA_EV_LOCAL | KGNI_RDMA_EV_GLOBAL;
	p.local_data = 0xdead1;
	p.global_data = 0xdead2;
	ASSERT_EQ(0, rdma_post(a, &p));
	rdma_fill(&p, KGNI_RDMA_PUT, pe, ca.cq_id, (uintptr_t)buf, h,
		  (uintptr_t)buf + PAGE, h, (size_t)(NP - 1) * PAGE);
	p.events = KGNI_RDMA_EV_LOCAL | KGNI_RDMA_EV_GLOBAL;
	p.local_data = 0xdead3;
	p.global_data = 0xdead4;
	ASSERT_EQ(0, rdma_post(a, &p));

	/*
	 * Let the NIC start them (it does at its next poll): a transfer
	 * that has not started when the registrations go ends at once.
	 */
	usleep(300 * 1000);
	t0 = kgni_now();
	close(a);
	dt = kgni_now() - t0;
	TH_LOG("close with two transfers running took %.2f s", dt);
	/*
	 * The PUT to no node ends only at its timeout (2 s): the close does
	 * not wait for it under the device's lock.
	 */
	EXPECT_GT(1.0, dt);

	b = attached(B_PTAG, B_COOKIE);
	ASSERT_LE(0, b);
	for (i = 0; i < NCQ; i++) {
		ASSERT_EQ(0, cq_make(b, 16, &cb[i]));
		ring[i] = map(b, cb[i].ring_offset, cb[i].ring_size, PROT_READ);
		ASSERT_NE(NULL, ring[i]);
		reused += cb[i].cq_id == ca.cq_id;
	}
	EXPECT_EQ(0, reused)
		TH_LOG("A's CQ %u was given to B while A's PUT ran",
		       ca.cq_id);
	usleep(GEMINI_FMA_TIMEOUT_MS * 1000 + 500 * 1000);
	for (i = 0; i < NCQ; i++) {
		EXPECT_EQ(0ull, ring[i][0])
			TH_LOG("B's CQ %u got 0x%016llx", cb[i].cq_id,
			       (unsigned long long)ring[i][0]);
	}
	for (i = 0; i < NCQ; i++)
		munmap((void *)ring[i], cb[i].ring_size);
	close(b);
	close(ctl);
}

/* --- races ------------------------------------------------------------- */

struct race {
	int fd;
	atomic_bool stop;
	atomic_ullong off;	/* mmap offset of the object of the moment */
	atomic_uint id;		/* its number */
	atomic_uint gen;	/* bumped by each destroy */
	unsigned long cycles, maps, raced, reused;
	bool fma;
	int other;		/* a file of job B */
};

/* Make and destroy objects as fast as possible. */
static void *churn(void *arg)
{
	struct race *r = arg;
	struct kgni_cq_create cc, base;
	struct kgni_fma_alloc fa;

	if (r->fma && cq_make(r->fd, 2, &base))
		return NULL;
	while (!atomic_load(&r->stop)) {
		if (r->fma) {
			if (fma_take(r->fd, base.cq_id, &fa))
				break;
			atomic_store(&r->id, fa.fma_id);
			atomic_store(&r->off, fa.user_offset);
			fma_give(r->fd, fa.fma_id);
		} else {
			if (cq_make(r->fd, 512, &cc))
				break;
			atomic_store(&r->id, cc.cq_id);
			atomic_store(&r->off, cc.ring_offset);
			cq_kill(r->fd, cc.cq_id);
		}
		atomic_fetch_add(&r->gen, 1);
		r->cycles++;
	}
	return NULL;
}

/*
 * Map whatever exists at the moment.  A mapping that still reads after
 * its object was destroyed escaped the zap: then its number must not be
 * given to another job while it exists.
 */
static void mapper(struct race *r, struct __test_metadata *_metadata)
{
	double end = kgni_now() + RACE_SECONDS;
	size_t len = r->fma ? PAGE : 512 * 8;
	struct kgni_fma_alloc fa;
	struct kgni_cq_create base;
	volatile __u64 *p;
	unsigned int gen, id;

	if (r->fma)
		ASSERT_EQ(0, cq_make(r->other, 2, &base));
	while (kgni_now() < end) {
		id = atomic_load(&r->id);
		p = map(r->fd, atomic_load(&r->off), len, PROT_READ);
		if (!p)
			continue;
		r->maps++;
		/*
		 * The object mapped was alive during mmap(); the churn destroys
		 * the live object before it makes the next, so by the first
		 * destroy counted after mmap() returned it is dead.
		 */
		gen = atomic_load(&r->gen);
		while (atomic_load(&r->gen) == gen && kgni_now() < end)
			sched_yield();
		if (atomic_load(&r->gen) == gen) {
			munmap((void *)p, len);
			break;
		}
		if (!unreadable(p)) {
			r->raced++;
			if (r->fma && !fma_take(r->other, base.cq_id, &fa)) {
				if (fa.fma_id == id)
					r->reused++;
				fma_give(r->other, fa.fma_id);
			}
		}
		munmap((void *)p, len);
	}
}

static void race_run(struct __test_metadata *_metadata, bool fma)
{
	struct race r = { .fma = fma };
	pthread_t t;
	int ctl;

	ctl = open_dev();
	ASSERT_LE(0, ctl);
	ASSERT_EQ(0, job_configure(ctl, 0, A_PTAG, A_COOKIE));
	ASSERT_EQ(0, job_configure(ctl, 0, B_PTAG, B_COOKIE));
	r.fd = attached(A_PTAG, A_COOKIE);
	r.other = attached(B_PTAG, B_COOKIE);
	ASSERT_LE(0, r.fd);
	ASSERT_LE(0, r.other);
	ASSERT_EQ(0, pthread_create(&t, NULL, churn, &r));
	while (!atomic_load(&r.gen))
		usleep(1000);
	mapper(&r, _metadata);
	atomic_store(&r.stop, true);
	pthread_join(t, NULL);
	TH_LOG("%lu cycles, %lu mappings, %lu outlived their object, %lu of "
	       "those saw the number reused", r.cycles, r.maps, r.raced,
	       r.reused);
	EXPECT_LT(0ul, r.cycles);
	EXPECT_EQ(0ul, r.reused);
	close(r.fd);
	close(r.other);
	close(ctl);
}

TEST_F_TIMEOUT(iso, race_mmap_cq_destroy, 60)
{
	if (self->absent)
		return;
	race_run(_metadata, false);
}

TEST_F_TIMEOUT(iso, race_mmap_fma_free, 60)
{
	if (self->absent)
		return;
	race_run(_metadata, true);
}

static void *ioctl_storm(void *arg)
{
	int fd = *(int *)arg, i;
	struct kgni_cq_create cc;

	for (i = 0; i < 200; i++)
		if (!cq_make(fd, 2, &cc))
			cq_kill(fd, cc.cq_id);
	return NULL;
}

/* Closing a file while other threads use it: no splat, nothing left. */
TEST_F_TIMEOUT(iso, race_close_ioctl, 60)
{
	pthread_t t[2];
	int ctl, fd, i, k;

	if (self->absent)
		return;
	ctl = open_dev();
	ASSERT_LE(0, ctl);
	ASSERT_EQ(0, job_configure(ctl, 0, A_PTAG, A_COOKIE));
	for (i = 0; i < 50; i++) {
		fd = attached(A_PTAG, A_COOKIE);
		ASSERT_LE(0, fd);
		for (k = 0; k < 2; k++)
			ASSERT_EQ(0, pthread_create(&t[k], NULL, ioctl_storm,
						    &fd));
		usleep(1000 * (i % 5));
		close(fd);
		for (k = 0; k < 2; k++)
			pthread_join(t[k], NULL);
	}
	close(ctl);
}

/* A forked child keeps its copies of the mappings; the parent frees. */
TEST_F_TIMEOUT(iso, fork_with_mappings, 60)
{
	struct kgni_cq_create cc;
	struct kgni_fma_alloc fa;
	volatile __u64 *user, *ring;
	char *buf = anon(4 * PAGE);
	int ctl, fd, status, pipefd[2], back[2];
	__u64 h[2];
	pid_t pid;
	char c;

	if (self->absent)
		return;
	ctl = open_dev();
	ASSERT_LE(0, ctl);
	ASSERT_EQ(0, job_configure(ctl, 0, A_PTAG, A_COOKIE));
	fd = attached(A_PTAG, A_COOKIE);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, cq_make(fd, 16, &cc));
	ASSERT_EQ(0, fma_take(fd, cc.cq_id, &fa));
	ASSERT_EQ(0, mem_register_cq(fd, buf, 4 * PAGE, 0, 0, h));
	user = map(fd, fa.user_offset, PAGE, PROT_READ | PROT_WRITE);
	ring = map(fd, cc.ring_offset, cc.ring_size, PROT_READ);
	ASSERT_TRUE(user && ring);
	ASSERT_EQ(0, pipe(pipefd));
	ASSERT_EQ(0, pipe(back));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		/* Reads work; after the parent's frees, they fault. */
		if (unreadable(user) || unreadable(ring))
			_exit(1);
		buf[0] = 1;	/* copy-on-write of a registered page */
		if (write(back[1], "r", 1) != 1 || read(pipefd[0], &c, 1) != 1)
			_exit(2);
		_exit(unreadable(user) && unreadable(ring) ? 0 : 3);
	}
	EXPECT_EQ(1, read(back[0], &c, 1));
	EXPECT_EQ(0, fma_give(fd, fa.fma_id));
	EXPECT_EQ(0, cq_kill(fd, cc.cq_id));
	EXPECT_EQ(0, mem_deregister(fd, h));
	EXPECT_EQ(1, write(pipefd[1], "x", 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("child status 0x%x", status);
	/* The numbers are free again once the last mapping went. */
	munmap((void *)user, PAGE);
	munmap((void *)ring, cc.ring_size);
	close(fd);
	close(ctl);
}

/*
 * While kgni is bound its BARs are requested exclusively: not even root maps
 * them through sysfs, where it could program a descriptor with any ptag.
 */
TEST_F(iso, bar_not_mappable)
{
	const char *path = "/sys/class/gni/kgni0/device/resource0";
	void *p;
	int fd;

	if (self->absent)
		return;
	fd = open(path, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd) TH_LOG("%s: %s", path, strerror(errno));
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	EXPECT_EQ(MAP_FAILED, p)
		TH_LOG("root mapped BAR0 through sysfs while kgni holds it");
	if (p != MAP_FAILED)
		munmap(p, 4096);
	close(fd);
}

TEST_HARNESS_MAIN
