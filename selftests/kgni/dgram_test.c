// SPDX-License-Identifier: GPL-2.0-only
/*
 * dgram_test: kgni's datagrams (KGNI_IOC_DGRAM_*) on one node, between
 * the CDMs of several files of one job: bound to bound, bound to a
 * wildcard, a datagram that arrives before the post, probe, cancel, wait
 * with a timeout, a file closed with datagrams pending, the ABI's
 * refusals, a datagram to a PE that is no node, which must end with
 * TIMEOUT, the shares of the node's queue of early datagrams (ERROR past
 * a sender's) and the job's quota of datagrams.  Across nodes the uGNI
 * job ugni_dgram runs them.
 */
#include <pthread.h>
#include <stdint.h>
#include <sys/wait.h>

#include "kgni_test.h"
#include "kgni_dp.h"

#define TEST_PTAG	47
#define TEST_COOKIE	0x5a5a0047u
#define NFILES		4

FIXTURE(dg) {
	bool absent;
	int kmsg;
	int fd[NFILES];		/* inst_id 100 + i */
	__u32 pe;
};

static int attach_inst(int fd, __u32 inst, __u32 *pe)
{
	struct kgni_cdm_attach a = {
		.size = sizeof(a), .ptag = TEST_PTAG, .cookie = TEST_COOKIE,
		.inst_id = inst,
	};
	int ret = xioctl(fd, KGNI_IOC_CDM_ATTACH, &a);

	if (!ret && pe)
		*pe = a.nic_pe;
	return ret;
}

FIXTURE_SETUP(dg)
{
	unsigned int i;

	for (i = 0; i < NFILES; i++)
		self->fd[i] = -1;
	if (!kgni_fixture_setup(_metadata, KGNI_FIXTURE_ROOT, &self->absent,
				&self->kmsg, &self->fd[0]))
		return;
	ASSERT_EQ(0, job_configure(self->fd[0], 0, TEST_PTAG, TEST_COOKIE));
	ASSERT_EQ(0, attach_inst(self->fd[0], 100, &self->pe));
	for (i = 1; i < NFILES; i++) {
		self->fd[i] = open(KGNI_DEV, O_RDWR | O_CLOEXEC);
		ASSERT_LE(0, self->fd[i]);
		ASSERT_EQ(0, attach_inst(self->fd[i], 100 + i, NULL));
	}
}

FIXTURE_TEARDOWN(dg)
{
	unsigned int i;

	if (self->absent)
		return;
	for (i = 1; i < NFILES; i++)
		if (self->fd[i] >= 0)
			close(self->fd[i]);
	if (self->fd[0] >= 0) {
		job_configure(self->fd[0], KGNI_JOB_RELEASE, TEST_PTAG,
			      TEST_COOKIE);
		close(self->fd[0]);
	}
	if (self->kmsg >= 0) {
		EXPECT_EQ(0u, kgni_kmsg_splats(_metadata, self->kmsg));
		close(self->kmsg);
	}
}

static int post(int fd, __u64 key, __u64 id, bool bound, __u32 pe,
		__u32 inst, const void *data, unsigned int len,
		unsigned int buf_size)
{
	struct kgni_dgram_post p = {
		.size = sizeof(p), .flags = bound ? KGNI_DGRAM_BOUND : 0,
		.ep_key = key, .id = id, .peer_pe = pe, .peer_inst = inst,
		.data = (uintptr_t)data, .data_len = len, .buf_size = buf_size,
	};

	return xioctl(fd, KGNI_IOC_DGRAM_POST, &p);
}

/* TEST by key (or by id if @by_id); the result in *@t */
static int test(int fd, bool by_id, __u64 key_or_id, __u32 timeout_ms,
		void *buf, struct kgni_dgram_test *t)
{
	memset(t, 0, sizeof(*t));
	t->size = sizeof(*t);
	t->flags = by_id ? KGNI_DGRAM_BY_ID : 0;
	t->ep_key = key_or_id;
	t->id = key_or_id;
	t->timeout_ms = timeout_ms;
	t->buf = (uintptr_t)buf;
	return xioctl(fd, KGNI_IOC_DGRAM_TEST, t);
}

static int cancel(int fd, bool by_id, __u64 key_or_id)
{
	struct kgni_dgram_cancel c = {
		.size = sizeof(c), .flags = by_id ? KGNI_DGRAM_BY_ID : 0,
		.ep_key = key_or_id, .id = key_or_id,
	};

	return xioctl(fd, KGNI_IOC_DGRAM_CANCEL, &c);
}

static void fill(__u8 *p, unsigned int n, unsigned int seed)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		p[i] = (__u8)(seed * 31 + i * 7 + 1);
}

/* Wait up to 30 s for datagram @key of @fd; it must complete from @pe, @inst. */
#define EXPECT_COMPLETED(fd, key, pe, inst, want, len) do {		\
	struct kgni_dgram_test t_;					\
	__u8 got_[KGNI_DGRAM_MAX_DATA];				\
									\
	memset(got_, 0xee, sizeof(got_));				\
	ASSERT_EQ(0, test((fd), false, (key), 30000, got_, &t_));	\
	EXPECT_EQ((__u32)KGNI_DGRAM_COMPLETED, t_.state);			\
	EXPECT_EQ((pe), t_.remote_pe);					\
	EXPECT_EQ((inst), t_.remote_inst);				\
	EXPECT_EQ((unsigned int)(len), t_.recv_len);					\
	EXPECT_EQ(0, memcmp(got_, (want), (len)));			\
} while (0)

TEST_F(dg, bound_to_bound)
{
	__u8 a[KGNI_DGRAM_MAX_DATA], b[KGNI_DGRAM_MAX_DATA];
	unsigned int len;

	if (self->absent)
		return;
	for (len = 0; len <= KGNI_DGRAM_MAX_DATA; len += 32) {
		fill(a, len, 1);
		fill(b, KGNI_DGRAM_MAX_DATA - len, 2);
		ASSERT_EQ(0, post(self->fd[0], 1, len, true, self->pe, 101, a,
				  len, sizeof(a)));
		ASSERT_EQ(0, post(self->fd[1], 1, ~0ull, true, self->pe, 100,
				  b, KGNI_DGRAM_MAX_DATA - len, sizeof(b)));
		EXPECT_COMPLETED(self->fd[0], 1, self->pe, 101u, b,
				 KGNI_DGRAM_MAX_DATA - len);
		EXPECT_COMPLETED(self->fd[1], 1, self->pe, 100u, a, len);
	}
}

/*
 * Three bound posts to one wildcard, reposted as each completes: each
 * peer's datagram is taken exactly once; PROBE names the ended ones
 * without collecting them.
 */
TEST_F(dg, wildcard_and_probe)
{
	struct kgni_dgram_probe pr;
	struct kgni_dgram_test t;
	__u8 d[NFILES][8], got[8];
	unsigned int i, seen = 0, round;

	if (self->absent)
		return;
	for (i = 1; i < NFILES; i++) {
		fill(d[i], 8, i);
		ASSERT_EQ(0, post(self->fd[i], 9, 90 + i, true, self->pe, 100,
				  d[i], 8, 8));
	}
	for (round = 0; round < NFILES - 1; round++) {
		fill(d[0], 8, 40 + round);
		ASSERT_EQ(0, post(self->fd[0], 5, 50 + round, false, 0, 0,
				  d[0], 8, 8));
		memset(&pr, 0, sizeof(pr));
		pr.size = sizeof(pr);
		pr.timeout_ms = 5000;
		ASSERT_EQ(0, xioctl(self->fd[0], KGNI_IOC_DGRAM_PROBE, &pr));
		EXPECT_EQ((__u32)KGNI_DGRAM_COMPLETED, pr.state);
		EXPECT_EQ(5ull, pr.ep_key);
		EXPECT_EQ(50ull + round, pr.id);
		EXPECT_EQ(self->pe, pr.remote_pe);
		i = pr.remote_inst - 100;
		ASSERT_TRUE(i >= 1 && i < NFILES);
		EXPECT_EQ(0u, seen & (1u << i)) TH_LOG("inst %u twice", 100 + i);
		seen |= 1u << i;
		/* Probing again finds the same one: not collected */
		ASSERT_EQ(0, xioctl(self->fd[0], KGNI_IOC_DGRAM_PROBE, &pr));
		EXPECT_EQ(50ull + round, pr.id);
		ASSERT_EQ(0, test(self->fd[0], true, 50 + round, 0, got, &t));
		EXPECT_EQ((__u32)KGNI_DGRAM_COMPLETED, t.state);
		EXPECT_EQ(0, memcmp(got, d[i], 8));
		EXPECT_COMPLETED(self->fd[i], 9, self->pe, 100u, d[0], 8);
	}
	EXPECT_EQ(((1u << NFILES) - 1) & ~1u, seen);
	memset(&pr, 0, sizeof(pr));
	pr.size = sizeof(pr);
	EXPECT_EQ(-ENOENT, xioctl(self->fd[0], KGNI_IOC_DGRAM_PROBE, &pr));
	pr.timeout_ms = 50;
	EXPECT_EQ(-ETIMEDOUT, xioctl(self->fd[0], KGNI_IOC_DGRAM_PROBE, &pr));
}

/* The peer's datagram arrives first and waits for the post. */
TEST_F(dg, before_post)
{
	__u8 a[16], b[100];
	struct kgni_dgram_test t;

	if (self->absent)
		return;
	fill(a, sizeof(a), 3);
	fill(b, sizeof(b), 4);
	ASSERT_EQ(0, post(self->fd[2], 7, 1, true, self->pe, 103, a,
			  sizeof(a), sizeof(b)));
	usleep(200 * 1000);
	ASSERT_EQ(0, test(self->fd[2], false, 7, 0, NULL, &t));
	EXPECT_EQ((__u32)KGNI_DGRAM_PENDING, t.state);
	/* A wildcard of the target takes it at once */
	ASSERT_EQ(0, post(self->fd[3], 8, 2, false, 0, 0, b, sizeof(b),
			  sizeof(a)));
	EXPECT_COMPLETED(self->fd[3], 8, self->pe, 102u, a, sizeof(a));
	EXPECT_COMPLETED(self->fd[2], 7, self->pe, 103u, b, sizeof(b));
}

/*
 * No peer: WAIT times out; CANCEL ends it as TERMINATED, a second CANCEL
 * finds nothing; a wrong inst_id, cookie or bound peer never match.
 */
TEST_F(dg, cancel_timeout_nomatch)
{
	struct kgni_dgram_test t;
	__u8 a[4] = { 1, 2, 3, 4 };
	double t0;

	if (self->absent)
		return;
	ASSERT_EQ(0, post(self->fd[0], 3, 33, true, self->pe, 999, a, 4, 4));
	t0 = kgni_now();
	EXPECT_EQ(-ETIMEDOUT, test(self->fd[0], false, 3, 100, NULL, &t));
	EXPECT_LE(0.09, kgni_now() - t0);
	EXPECT_EQ(0, cancel(self->fd[0], true, 33));
	EXPECT_EQ(-ENOENT, cancel(self->fd[0], true, 33));
	ASSERT_EQ(0, test(self->fd[0], true, 33, 0, NULL, &t));
	EXPECT_EQ((__u32)KGNI_DGRAM_TERMINATED, t.state);
	EXPECT_EQ(-ENOENT, test(self->fd[0], true, 33, 0, NULL, &t));

	/* Bound to inst 102, but 101 answers: no match either way */
	ASSERT_EQ(0, post(self->fd[0], 3, 34, true, self->pe, 102, a, 4, 4));
	ASSERT_EQ(0, post(self->fd[1], 3, 35, true, self->pe, 100, a, 4, 4));
	EXPECT_EQ(-ETIMEDOUT, test(self->fd[0], false, 3, 200, NULL, &t));
	EXPECT_EQ(-ETIMEDOUT, test(self->fd[1], false, 3, 1, NULL, &t));
	/* The cancelled REQ is gone at its target: 102's wildcard waits */
	EXPECT_EQ(0, cancel(self->fd[0], false, 3));
	ASSERT_EQ(0, post(self->fd[2], 3, 36, false, 0, 0, a, 4, 4));
	EXPECT_EQ(-ETIMEDOUT, test(self->fd[2], false, 3, 200, NULL, &t));
	EXPECT_EQ(0, cancel(self->fd[2], false, 3));
	EXPECT_EQ(0, cancel(self->fd[1], false, 3));
}

/* A datagram to a PE that is no node cannot be delivered: TIMEOUT. */
TEST_F_TIMEOUT(dg, unreachable_pe, 30)
{
	struct kgni_dgram_test t;
	__u8 a[8] = { 0 };

	if (self->absent)
		return;
	wait_fabric(_metadata);
	ASSERT_EQ(0, post(self->fd[0], 4, 1, true, NO_SUCH_PE, 100, a, 8, 8));
	ASSERT_EQ(0, test(self->fd[0], false, 4, 10000, NULL, &t));
	EXPECT_EQ((__u32)KGNI_DGRAM_TIMEOUT, t.state);
}

/*
 * Across the torus, on the BTE: every node runs this at about the same
 * time.  Inst 100 sends bound to inst 101 of the X+ neighbour (from a
 * datagram before the post, if the neighbour is late) and inst 101
 * takes, as a wildcard, the one of the X- neighbour; then 102 and 103
 * exchange bound to bound with the neighbours' 103 and 102.  Single
 * nodes skip it.
 */
TEST_F_TIMEOUT(dg, neighbours, 120)
{
	unsigned int c[3], d[3], xp, xm;
	__u8 a[KGNI_DGRAM_MAX_DATA], want[KGNI_DGRAM_MAX_DATA];
	char buf[64];

	if (self->absent)
		return;
	ASSERT_EQ(0, kgni_read_attr("coord", buf, sizeof(buf)));
	ASSERT_TRUE(kgni_parse_triple(buf, ' ', c));
	ASSERT_EQ(0, kgni_read_attr("dims", buf, sizeof(buf)));
	ASSERT_TRUE(kgni_parse_triple(buf, ' ', d));
	if (d[0] < 2)
		SKIP(return, "no X neighbour");
	wait_fabric(_metadata);
	xp = kgni_neighbour_pe(c, d, GEMINI_PORT_XP);
	xm = kgni_neighbour_pe(c, d, GEMINI_PORT_XM);

	/* The data names its sender: its PE in the first 4 bytes */
	fill(a, sizeof(a), 7);
	memcpy(a, &self->pe, 4);
	ASSERT_EQ(0, post(self->fd[1], 1, 1, false, 0, 0, a, 64, sizeof(a)));
	ASSERT_EQ(0, post(self->fd[0], 1, 1, true, xp, 101, a, sizeof(a),
			  64));
	fill(want, sizeof(want), 7);
	memcpy(want, &xm, 4);
	{
		struct kgni_dgram_test t;
		__u8 got[KGNI_DGRAM_MAX_DATA];

		ASSERT_EQ(0, test(self->fd[1], false, 1, 60000, got, &t));
		EXPECT_EQ((__u32)KGNI_DGRAM_COMPLETED, t.state);
		EXPECT_EQ(xm, t.remote_pe);
		EXPECT_EQ(100u, t.remote_inst);
		EXPECT_EQ((unsigned int)sizeof(want), t.recv_len);
		EXPECT_EQ(0, memcmp(got, want, sizeof(want)));
		memcpy(want, &xp, 4);
		ASSERT_EQ(0, test(self->fd[0], false, 1, 60000, got, &t));
		EXPECT_EQ((__u32)KGNI_DGRAM_COMPLETED, t.state);
		EXPECT_EQ(xp, t.remote_pe);
		EXPECT_EQ(101u, t.remote_inst);
		EXPECT_EQ(64u, t.recv_len);
		EXPECT_EQ(0, memcmp(got, want, 64));
	}
	/* Bound to bound, both REQs crossing on the wire */
	ASSERT_EQ(0, post(self->fd[2], 2, 2, true, xp, 103, a, 32, 48));
	ASSERT_EQ(0, post(self->fd[3], 2, 2, true, xm, 102, a, 48, 32));
	memcpy(want, &xp, 4);
	EXPECT_COMPLETED(self->fd[2], 2, xp, 103u, want, 48);
	memcpy(want, &xm, 4);
	EXPECT_COMPLETED(self->fd[3], 2, xm, 102u, want, 32);
}

/* A process may send a datagram to itself: two keys of one file. */
TEST_F(dg, to_itself)
{
	__u8 a[20], b[30];

	if (self->absent)
		return;
	fill(a, sizeof(a), 5);
	fill(b, sizeof(b), 6);
	ASSERT_EQ(0, post(self->fd[1], 1, 1, false, 0, 0, a, sizeof(a),
			  sizeof(b)));
	ASSERT_EQ(0, post(self->fd[1], 2, 2, true, self->pe, 101, b,
			  sizeof(b), sizeof(a)));
	EXPECT_COMPLETED(self->fd[1], 1, self->pe, 101u, b, sizeof(b));
	EXPECT_COMPLETED(self->fd[1], 2, self->pe, 101u, a, sizeof(a));
}

/*
 * The ABI's refusals; a file closed with datagrams pending: its REQ is
 * cancelled at its target.
 */
TEST_F(dg, abi_and_close)
{
	struct kgni_dgram_test t;
	__u8 a[KGNI_DGRAM_MAX_DATA + 1] = { 0 };
	int fd;

	if (self->absent)
		return;
	EXPECT_EQ(-EMSGSIZE, post(self->fd[0], 1, 1, true, self->pe, 101, a,
				  KGNI_DGRAM_MAX_DATA + 1, 8));
	ASSERT_EQ(0, post(self->fd[0], 1, 1, true, self->pe, 120, a, 8, 8));
	EXPECT_EQ(-EBUSY, post(self->fd[0], 1, 2, false, 0, 0, a, 8, 8));
	EXPECT_EQ(-EFAULT, post(self->fd[0], 2, 2, false, 0, 0, NULL, 8, 8));
	EXPECT_EQ(-ENOENT, test(self->fd[0], false, 77, 0, NULL, &t));
	EXPECT_EQ(-ENOENT, test(self->fd[0], true, ~0ull, 0, NULL, &t));
	t.flags = 2;
	EXPECT_EQ(-EINVAL, xioctl(self->fd[0], KGNI_IOC_DGRAM_TEST, &t));
	EXPECT_EQ(0, cancel(self->fd[0], false, 1));

	/* Without a CDM */
	fd = open(KGNI_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-EPERM, post(fd, 1, 1, false, 0, 0, a, 8, 8));
	/* Closed with a REQ out: inst 103's wildcard never sees it */
	ASSERT_EQ(0, attach_inst(fd, 120, NULL));
	ASSERT_EQ(0, post(fd, 1, 1, true, self->pe, 103, a, 8, 8));
	ASSERT_EQ(0, post(fd, 2, 2, false, 0, 0, a, 8, 8));
	close(fd);
	ASSERT_EQ(0, post(self->fd[3], 1, 1, false, 0, 0, a, 8, 8));
	EXPECT_EQ(-ETIMEDOUT, test(self->fd[3], false, 1, 200, NULL, &t));
	EXPECT_EQ(0, cancel(self->fd[3], false, 1));
}

/*
 * The device goes (its driver unbound) while a process waits for ever
 * for a datagram: the wait ends with ENODEV, nothing hangs; the driver
 * binds again.  The last test: the fixture's files are stale after it.
 */
TEST_F_TIMEOUT(dg, unbind_while_waiting, 90)
{
	char pci[64];
	int status, i;
	pid_t pid;
	__u8 a[8] = { 0 };

	if (self->absent)
		return;
	if (!kgni_find_pci(pci, sizeof(pci)) ||
	    access(KGNI_PCI_DRIVER "/unbind", W_OK))
		SKIP(return, "cannot unbind kgni here");
	ASSERT_EQ(0, post(self->fd[1], 6, 6, true, self->pe, 999, a, 8, 8));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct kgni_dgram_test t;
		int r = test(self->fd[1], false, 6, KGNI_DGRAM_FOREVER, NULL,
			     &t);

		_exit(r == -ENODEV ? 0 : 1);
	}
	usleep(300 * 1000);
	ASSERT_TRUE(kgni_write_file(KGNI_PCI_DRIVER "/unbind", pci));
	EXPECT_TRUE(kgni_wait_path(KGNI_DEV, false));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("the waiter: status 0x%x", status);
	EXPECT_EQ(-ENODEV, post(self->fd[2], 1, 1, false, 0, 0, a, 8, 8));
	/* Closed, so that the device bound again is kgni0 once more */
	job_configure(self->fd[0], KGNI_JOB_RELEASE, TEST_PTAG, TEST_COOKIE);
	for (i = 0; i < NFILES; i++) {
		close(self->fd[i]);
		self->fd[i] = -1;
	}
	ASSERT_TRUE(kgni_write_file(KGNI_PCI_DRIVER "/bind", pci));
	EXPECT_TRUE(kgni_wait_path(KGNI_DEV, true));
}

#define PARAM_SOURCE_REQS	KGNI_MODULE_SYSFS "/parameters/dgram_source_reqs"
#define PARAM_JOB_DGRAMS	KGNI_MODULE_SYSFS "/parameters/job_dgrams"
#define OTHER_PTAG		48
#define OTHER_COOKIE		0x5a5a0048u

static int attach_other(int fd, __u32 inst)
{
	struct kgni_cdm_attach a = {
		.size = sizeof(a), .ptag = OTHER_PTAG, .cookie = OTHER_COOKIE,
		.inst_id = inst,
	};

	return xioctl(fd, KGNI_IOC_CDM_ATTACH, &a);
}

/*
 * The node's queue of early datagrams is shared: one file of one job
 * posting its KGNI_DGRAM_MAX_POSTS datagrams to an inst_id nobody has
 * (all REQs to this node) may keep only dgram_source_reqs of them
 * waiting; the others are refused, and end KGNI_DGRAM_ERROR at once,
 * where the sender sees them.  Another job's early datagram still waits
 * for its post and completes.
 */
TEST_F_TIMEOUT(dg, early_datagrams_share, 120)
{
	__u8 a[8] = "flooder", b[8] = "other-b", c[8] = "other-c";
	struct kgni_dgram_test t;
	unsigned int i, refused = 0, waiting = 0;
	long share;
	int fb, fc;

	if (self->absent)
		return;
	share = kgni_read_long(PARAM_SOURCE_REQS);
	ASSERT_LT(0, share) TH_LOG("no %s", PARAM_SOURCE_REQS);
	ASSERT_GT((long)KGNI_DGRAM_MAX_POSTS, share);
	for (i = 0; i < KGNI_DGRAM_MAX_POSTS; i++)
		ASSERT_EQ(0, post(self->fd[0], 1000 + i, i, true, self->pe,
				  999, a, sizeof(a), sizeof(a)));
	/* The NAKs travel through the network too: wait for them. */
	for (int tries = 0; tries < 100; tries++) {
		refused = waiting = 0;
		for (i = 0; i < KGNI_DGRAM_MAX_POSTS; i++) {
			ASSERT_EQ(0, test(self->fd[0], false, 1000 + i, 0,
					  NULL, &t));
			refused += t.state == KGNI_DGRAM_ERROR;
			waiting += t.state == KGNI_DGRAM_PENDING;
		}
		if (waiting <= (unsigned int)share)
			break;
		usleep(100 * 1000);
	}
	EXPECT_EQ((unsigned int)share, waiting);
	EXPECT_EQ(KGNI_DGRAM_MAX_POSTS - (unsigned int)share, refused);

	/* Another job: b's REQ comes before c's wildcard post. */
	ASSERT_EQ(0, job_configure(self->fd[0], 0, OTHER_PTAG, OTHER_COOKIE));
	fb = open(KGNI_DEV, O_RDWR | O_CLOEXEC);
	fc = open(KGNI_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_TRUE(fb >= 0 && fc >= 0);
	ASSERT_EQ(0, attach_other(fb, 200));
	ASSERT_EQ(0, attach_other(fc, 201));
	ASSERT_EQ(0, post(fb, 1, 1, true, self->pe, 201, b, sizeof(b),
			  sizeof(c)));
	ASSERT_EQ(0, post(fc, 1, 1, false, 0, 0, c, sizeof(c), sizeof(b)));
	EXPECT_COMPLETED(fc, 1, self->pe, 200u, b, sizeof(b));
	EXPECT_COMPLETED(fb, 1, self->pe, 201u, c, sizeof(c));
	close(fb);
	close(fc);
	EXPECT_EQ(0, job_configure(self->fd[0], KGNI_JOB_RELEASE, OTHER_PTAG,
				   OTHER_COOKIE));
}

/*
 * A job may have job_dgrams datagrams posted and not collected on the
 * node, over all its files: past that, EDQUOT (uGNI's
 * GNI_RC_ERROR_RESOURCE); a collected one makes room.
 */
TEST_F(dg, job_dgram_quota)
{
	__u8 a[8] = "quota";
	struct kgni_dgram_test t;
	long quota;

	if (self->absent)
		return;
	quota = kgni_read_long(PARAM_JOB_DGRAMS);
	ASSERT_LE(0, quota) TH_LOG("no %s", PARAM_JOB_DGRAMS);
	ASSERT_EQ(0, kgni_write_long(PARAM_JOB_DGRAMS, 3));
	EXPECT_EQ(0, post(self->fd[0], 1, 1, false, 0, 0, a, 8, 8));
	EXPECT_EQ(0, post(self->fd[1], 1, 1, false, 0, 0, a, 8, 8));
	EXPECT_EQ(0, post(self->fd[2], 1, 1, false, 0, 0, a, 8, 8));
	EXPECT_EQ(-EDQUOT, post(self->fd[3], 1, 1, false, 0, 0, a, 8, 8));
	EXPECT_EQ(-EDQUOT, post(self->fd[0], 2, 2, false, 0, 0, a, 8, 8));
	EXPECT_EQ(0, cancel(self->fd[1], false, 1));
	EXPECT_EQ(0, test(self->fd[1], false, 1, 0, NULL, &t));
	EXPECT_EQ((__u32)KGNI_DGRAM_TERMINATED, t.state);
	EXPECT_EQ(0, post(self->fd[3], 1, 1, false, 0, 0, a, 8, 8));
	EXPECT_EQ(0, kgni_write_long(PARAM_JOB_DGRAMS, quota));
}

TEST_HARNESS_MAIN
