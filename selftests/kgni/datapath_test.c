// SPDX-License-Identifier: GPL-2.0-only
/*
 * datapath_test: the OS-bypass data path on one node.
 *
 * As root: allow a job's (ptag, cookie), attach, register memory, make a
 * CQ, take an FMA descriptor and map its pages; then PUT into the
 * registered buffer through the PUT windows and GET out of it through the
 * GET window, both to this node's own PE (the request leaves the NIC,
 * crosses the router and comes back), each sequence ended by a sync whose
 * local event is read from the mapped CQ ring.  Registrations go through
 * the NIC's GART, so buffers whose pages are scattered in physical memory
 * work across their page boundaries; a registration's CQ receives remote
 * events; a blocking CQ can be slept on.  RDMA posts through the BTE,
 * also to this node: PUT and GET byte for byte with their events, a
 * segmented registration as target and source, a CQ held by a post until
 * it has ended.  Plus the ABI checks of the ioctls, the release of
 * everything on close, and the kernel log.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "kgni_test.h"
#include "kgni_ioctl.h"
#include "kgni_dp.h"
#include "gemini_nic.h"
#include "gemini_pkt.h"
#include "gemini_mh.h"

#define TEST_PTAG		0x42
#define TEST_COOKIE		0x1234abcdu
#define EVENT_TIMEOUT_S		5
#define PAGE			4096

/* The uGNI memory handle's fields (uapi/gemini_mh.h) */
#define MH_MDH(h)	((unsigned int)((h)[0] >> GEMINI_MH_MDH_SHIFT & \
					GEMINI_MH_MDH_MASK))
#define MH_VA(h)	(((h)[0] & GEMINI_MH_VA_MASK) << GEMINI_MH_VA_SHIFT)
#define MH_NPAGES(h)	((h)[1] & GEMINI_MH_NPAGES_MASK)
#define MH_PSHIFT(h)	((h)[1] >> GEMINI_MH_PSIZE_SHIFT & GEMINI_MH_PSIZE_MASK)
#define MH_FLAGS(h)	((int)((h)[1] >> GEMINI_MH_FLAGS_SHIFT & \
			       GEMINI_MH_FLAGS_MASK))
#define MH_CRC(h)	((unsigned int)((h)[1] >> GEMINI_MH_CRC_SHIFT))

/* Fields of a CQ entry */
#define CQE_SOURCE(e)		((e) >> GEMINI_CQE_SOURCE_SHIFT & \
				 GEMINI_CQE_SOURCE_MASK)
#define CQE_STATUS(e)		((e) >> GEMINI_CQE_STATUS_SHIFT & \
				 GEMINI_CQE_STATUS_MASK)

/* Pinned to known values by lib/ugni/tests/test_ugni.c */
static uint8_t mh_crc(const __u64 h[2])
{
	return gemini_mh_crc(h[0], h[1]);
}

static int mem_register(int fd, void *addr, size_t len, __u32 flags,
			__u64 h[2])
{
	return mem_register_cq(fd, addr, len, flags, 0, h);
}

/*
 * @npages pages of anonymous memory whose neighbours are not neighbours in
 * physical memory: the even pages are faulted in first, then the odd ones.
 */
static char *scattered_buf(unsigned int npages)
{
	size_t len = (size_t)npages * PAGE;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned int i;

	if (p == MAP_FAILED)
		return NULL;
	madvise(p, len, MADV_NOHUGEPAGE);
	for (i = 0; i < npages; i += 2)
		p[(size_t)i * PAGE] = 1;
	for (i = 1; i < npages; i += 2)
		p[(size_t)i * PAGE] = 1;
	memset(p, 0, len);
	return p;
}

/*
 * Places where page i + 1 of @buf does not follow page i in physical
 * memory (/proc/self/pagemap; root sees the frame numbers), or -1.
 */
static int phys_breaks(const void *buf, unsigned int npages)
{
	uint64_t e, pfn, prev = 0;
	unsigned int i;
	int fd, breaks = 0;

	fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	for (i = 0; i < npages; i++) {
		off_t at = ((uintptr_t)buf / PAGE + i) * sizeof(e);

		if (pread(fd, &e, sizeof(e), at) != sizeof(e) ||
		    !(e >> 63) || !(pfn = e & ((1ull << 55) - 1))) {
			breaks = -1;
			break;
		}
		if (i && pfn != prev + 1)
			breaks++;
		prev = pfn;
	}
	close(fd);
	return breaks;
}

FIXTURE(dp) {
	bool absent;
	int fd;
	int kmsg;
	__u32 pe;
};

FIXTURE_SETUP(dp)
{
	if (!kgni_fixture_setup(_metadata, KGNI_FIXTURE_ROOT, &self->absent,
				&self->kmsg, &self->fd))
		return;
	ASSERT_EQ(0, job_configure(self->fd, 0, TEST_PTAG, TEST_COOKIE));
	ASSERT_EQ(0, cdm_attach(self->fd, TEST_PTAG, TEST_COOKIE, &self->pe));
}

FIXTURE_TEARDOWN(dp)
{
	unsigned int splats = 0;

	if (self->absent)
		return;
	if (self->fd >= 0) {
		job_configure(self->fd, KGNI_JOB_RELEASE, TEST_PTAG,
			      TEST_COOKIE);
		close(self->fd);
	}
	if (self->kmsg < 0)
		return;
	splats = kgni_kmsg_splats(_metadata, self->kmsg);
	close(self->kmsg);
	EXPECT_EQ(0u, splats);
}

/* Everything one FMA user needs, mapped */
struct dp_ctx {
	struct kgni_cq_create cq;
	struct kgni_fma_alloc fma;
	volatile __u64 *ring;
	volatile __u64 *cq_user;
	volatile __u64 *fma_user;
	volatile char *put_uc;
	volatile char *put_wc;
	volatile char *get;
	unsigned int next;	/* next CQ entry to read */
};

static void dp_open(struct __test_metadata *_metadata, int fd,
		    struct dp_ctx *c)
{
	memset(c, 0, sizeof(*c));
	c->cq.size = sizeof(c->cq);
	c->cq.entries = 16;
	ASSERT_EQ(0, xioctl(fd, KGNI_IOC_CQ_CREATE, &c->cq));
	ASSERT_NE(0u, c->cq.cq_id);
	ASSERT_EQ((__u64)PAGE, c->cq.ring_size);
	c->fma.size = sizeof(c->fma);
	c->fma.cq_id = c->cq.cq_id;
	ASSERT_EQ(0, xioctl(fd, KGNI_IOC_FMA_ALLOC, &c->fma));
	ASSERT_GT((__u32)GEMINI_NUM_FMA, c->fma.fma_id);
	ASSERT_EQ((__u64)KGNI_FMA_MAP_SIZE, c->fma.window_size);

	c->ring = map(fd, c->cq.ring_offset, c->cq.ring_size, PROT_READ);
	c->cq_user = map(fd, c->cq.user_offset, PAGE, PROT_READ | PROT_WRITE);
	c->fma_user = map(fd, c->fma.user_offset, PAGE,
			  PROT_READ | PROT_WRITE);
	c->put_uc = map(fd, c->fma.put_uc_offset, c->fma.window_size,
			PROT_WRITE);
	c->put_wc = map(fd, c->fma.put_wc_offset, PAGE, PROT_WRITE);
	c->get = map(fd, c->fma.get_offset, PAGE, PROT_WRITE);
	ASSERT_TRUE(c->ring && c->cq_user && c->fma_user && c->put_uc &&
		    c->put_wc && c->get) TH_LOG("mmap: %s", strerror(errno));
}

/* Base offset, MDHs and command of the descriptor, through the alias */
static void fma_set(struct dp_ctx *c, __u32 pe, __u64 rem_off,
		    unsigned int rem_mdh, unsigned int src_mdh,
		    unsigned int cmd)
{
	__u64 qw2 = c->fma_user[GEMINI_FMA_QW_CMD / 8];

	/* mode 0: PE at bits 57..40, the offset below */
	c->fma_user[GEMINI_FMA_QW_BASE_OFFSET / 8] =
		((__u64)pe << 40) | rem_off;
	qw2 &= GEMINI_FMA_MODE2_MASK << GEMINI_FMA_MODE2_SHIFT;
	qw2 |= (__u64)cmd << GEMINI_FMA_CMD_SHIFT |
	       (__u64)rem_mdh << GEMINI_FMA_REM_MDH_SHIFT |
	       (__u64)src_mdh << GEMINI_FMA_SRC_MDH_SHIFT;
	c->fma_user[GEMINI_FMA_QW_CMD / 8] = qw2;
}

/* Ring the sync-complete doorbell: sync @type (GEMINI_FMA_SYNC_*) */
static void sync_ring(struct dp_ctx *c, unsigned int type, __u64 data)
{
	c->fma_user[GEMINI_FMA_QW_SYNCCMP / 8] =
		(__u64)type << GEMINI_FMA_SYNC_TYPE_SHIFT | data;
}

/* Entry @slot of @ring once the device wrote it; 0 after a timeout. */
static __u64 ring_poll(volatile __u64 *ring, unsigned int slot)
{
	double deadline = kgni_now() + EVENT_TIMEOUT_S;
	__u64 e;

	while (!CQE_SOURCE(e = ring[slot]) && kgni_now() < deadline)
		usleep(1000);
	return e;
}

/* Take the next local event from the ring and report the progress. */
static __u64 local_event(struct dp_ctx *c)
{
	__u64 e = ring_poll(c->ring, c->next);

	c->next = (c->next + 1) % c->cq.entries;
	/* the consumer's progress, without a syscall */
	c->cq_user[0] = c->next;
	return e;
}

/* Sync with a local event (and @type); wait for it, consume it. */
static __u64 sync_type_wait(struct dp_ctx *c, unsigned int type, __u64 data)
{
	sync_ring(c, type | GEMINI_FMA_SYNC_LOCAL_EVENT, data);
	return local_event(c);
}

static __u64 sync_wait(struct __test_metadata *_metadata, struct dp_ctx *c,
		       __u64 data)
{
	return sync_type_wait(c, 0, data);
}

TEST_F_TIMEOUT(dp, put_get_loopback, 60)
{
	const __u64 d1 = 0xabcdef123456ull, d2 = 0x42424242ull;
	char *a, *b;
	__u64 ha[2], hb[2], e, q;
	struct dp_ctx c;
	unsigned int i;

	if (self->absent)
		return;
	wait_fabric(_metadata);
	a = anon(PAGE);
	b = anon(PAGE);
	ASSERT_TRUE(a && b);
	ASSERT_EQ(0, mem_register(self->fd, a, PAGE, 0, ha));
	ASSERT_EQ(0, mem_register(self->fd, b, PAGE, 0, hb));
	/* The handle: layout and CRC of uGNI's version 1 */
	EXPECT_EQ((__u64)(uintptr_t)a, MH_VA(ha));
	EXPECT_EQ(1u, MH_NPAGES(ha));
	EXPECT_EQ(12u, MH_PSHIFT(ha));
	EXPECT_EQ(GEMINI_MH_FLAG_GART, MH_FLAGS(ha));
	EXPECT_EQ(mh_crc(ha), MH_CRC(ha));
	EXPECT_NE(MH_MDH(ha), MH_MDH(hb));
	dp_open(_metadata, self->fd, &c);

	/* PUT: 8 and 4 bytes, uncached window; 8 bytes, write-combining */
	fma_set(&c, self->pe, 0, MH_MDH(ha), MH_MDH(hb), GEMINI_FMA_CMD_PUT);
	*(volatile __u64 *)(c.put_uc + 0) = 0x1122334455667788ull;
	*(volatile __u32 *)(c.put_uc + 8) = 0xdeadbeefu;
	*(volatile __u64 *)(c.put_wc + 16) = 0x0123456789abcdefull;
	/* far into the mapping: base offset + X */
	*(volatile __u32 *)(c.put_uc + 0x100) = 0xcafef00du;
	e = sync_wait(_metadata, &c, d1);
	EXPECT_EQ((__u64)GEMINI_CQE_SRC_SSID_SREQ,
		  e >> GEMINI_CQE_SOURCE_SHIFT & GEMINI_CQE_SOURCE_MASK)
		TH_LOG("CQ entry 0x%016llx", (unsigned long long)e);
	EXPECT_EQ((__u64)GEMINI_STATUS_OK,
		  e >> GEMINI_CQE_STATUS_SHIFT & GEMINI_CQE_STATUS_MASK);
	EXPECT_EQ(d1, e & GEMINI_CQE_DATA_MASK);
	EXPECT_EQ(0x1122334455667788ull, *(volatile __u64 *)(a + 0));
	EXPECT_EQ(0xdeadbeefu, *(volatile __u32 *)(a + 8));
	EXPECT_EQ(0x0123456789abcdefull, *(volatile __u64 *)(a + 16));
	EXPECT_EQ(0xcafef00du, *(volatile __u32 *)(a + 0x100));
	/* The consumer's rd_index reads back through the user page. */
	q = c.cq_user[0];
	EXPECT_EQ(1u, q & GEMINI_CQ_INDEX_MASK);
	EXPECT_EQ(1u, q >> GEMINI_CQ_WR_INDEX_SHIFT & GEMINI_CQ_INDEX_MASK);

	/* GET 16 bytes of a into b + 64 */
	fma_set(&c, self->pe, 0, MH_MDH(ha), MH_MDH(hb), GEMINI_FMA_CMD_GET);
	*(volatile __u64 *)(c.get + 0) = GEMINI_GCW_GET(16, 64);
	e = sync_wait(_metadata, &c, d2);
	EXPECT_EQ((__u64)GEMINI_CQE_SRC_SSID_SREQ,
		  e >> GEMINI_CQE_SOURCE_SHIFT & GEMINI_CQE_SOURCE_MASK)
		TH_LOG("CQ entry 0x%016llx", (unsigned long long)e);
	EXPECT_EQ((__u64)GEMINI_STATUS_OK,
		  e >> GEMINI_CQE_STATUS_SHIFT & GEMINI_CQE_STATUS_MASK);
	EXPECT_EQ(d2, e & GEMINI_CQE_DATA_MASK);
	EXPECT_EQ(0, memcmp(a, b + 64, 16));
	for (i = 0; i < 64; i++)
		EXPECT_EQ(0, b[i]);

	/* A PUT into a read-only registration fails its sync. */
	{
		__u64 hr[2];
		char *r = anon(PAGE);

		ASSERT_NE(NULL, r);
		ASSERT_EQ(0, mem_register(self->fd, r, PAGE,
					  KGNI_MEM_READONLY, hr));
		EXPECT_EQ(GEMINI_MH_FLAG_READONLY | GEMINI_MH_FLAG_GART,
			  MH_FLAGS(hr));
		fma_set(&c, self->pe, 0, MH_MDH(hr), MH_MDH(hb),
			GEMINI_FMA_CMD_PUT);
		*(volatile __u64 *)(c.put_uc + 0) = 1;
		e = sync_wait(_metadata, &c, 3);
		EXPECT_EQ((__u64)GEMINI_STATUS_WRITE_PERM,
			  e >> GEMINI_CQE_STATUS_SHIFT &
			  GEMINI_CQE_STATUS_MASK)
			TH_LOG("CQ entry 0x%016llx", (unsigned long long)e);
		EXPECT_EQ(0ull, *(volatile __u64 *)r);
		EXPECT_EQ(0, mem_deregister(self->fd, hr));
	}

	/* Deregistered: the MDD is invalid, the PUT fails. */
	EXPECT_EQ(0, mem_deregister(self->fd, ha));
	fma_set(&c, self->pe, 0, MH_MDH(ha), MH_MDH(hb), GEMINI_FMA_CMD_PUT);
	*(volatile __u64 *)(c.put_uc + 0) = 2;
	e = sync_wait(_metadata, &c, 4);
	EXPECT_EQ((__u64)GEMINI_STATUS_MDD_INV,
		  e >> GEMINI_CQE_STATUS_SHIFT & GEMINI_CQE_STATUS_MASK)
		TH_LOG("CQ entry 0x%016llx", (unsigned long long)e);
	EXPECT_EQ(-EINVAL, mem_deregister(self->fd, ha));
}

/* Closing the file frees everything; the next owner starts clean. */
TEST_F(dp, release_on_close)
{
	struct kgni_cq_destroy cd = { .size = sizeof(cd) };
	struct kgni_fma_free ff = { .size = sizeof(ff) };
	unsigned int fma_id, cq_id;
	struct dp_ctx c;
	int fd2, status;
	__u64 h[2];
	pid_t pid;
	char *a;

	if (self->absent)
		return;
	a = anon(PAGE);
	ASSERT_NE(NULL, a);
	fd2 = open(KGNI_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, cdm_attach(fd2, TEST_PTAG, TEST_COOKIE, NULL));
	ASSERT_EQ(0, mem_register(fd2, a, PAGE, 0, h));
	dp_open(_metadata, fd2, &c);
	fma_set(&c, self->pe, 0x1c0, MH_MDH(h), MH_MDH(h), GEMINI_FMA_CMD_PUT);
	fma_id = c.fma.fma_id;
	cq_id = c.cq.cq_id;
	munmap((void *)c.ring, c.cq.ring_size);
	munmap((void *)c.cq_user, PAGE);
	munmap((void *)c.fma_user, PAGE);
	munmap((void *)c.put_uc, c.fma.window_size);
	munmap((void *)c.put_wc, PAGE);
	munmap((void *)c.get, PAGE);
	close(fd2);

	dp_open(_metadata, self->fd, &c);
	EXPECT_EQ(fma_id, c.fma.fma_id);
	EXPECT_EQ(cq_id, c.cq.cq_id);
	EXPECT_EQ(0u, c.fma_user[GEMINI_FMA_QW_BASE_OFFSET / 8]);
	EXPECT_EQ(0u, c.fma_user[GEMINI_FMA_QW_CMD / 8] &
		  ~(GEMINI_FMA_MODE2_MASK << GEMINI_FMA_MODE2_SHIFT));
	EXPECT_EQ(0u, c.cq_user[0]);
	/* Destroy while the FMA uses the CQ; then in order. */
	cd.cq_id = c.cq.cq_id;
	ff.fma_id = c.fma.fma_id;
	EXPECT_EQ(-EBUSY, xioctl(self->fd, KGNI_IOC_CQ_DESTROY, &cd));
	EXPECT_EQ(0, xioctl(self->fd, KGNI_IOC_FMA_FREE, &ff));
	EXPECT_EQ(-EINVAL, xioctl(self->fd, KGNI_IOC_FMA_FREE, &ff));
	EXPECT_EQ(0, xioctl(self->fd, KGNI_IOC_CQ_DESTROY, &cd));
	EXPECT_EQ(-EINVAL, xioctl(self->fd, KGNI_IOC_CQ_DESTROY, &cd));
	/* The mappings are gone with the objects: touching them is SIGBUS. */
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		(void)c.fma_user[0];
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS)
		TH_LOG("child status 0x%x", status);
}

/* A byte of the pattern the GART tests write: position @x of test @t */
static __u8 pat(size_t x, unsigned int t)
{
	return (__u8)(x * 7 + (x >> 8) + t * 0x35 + 1);
}

/*
 * Registration through the GART: 16 pages whose neighbours are scattered
 * in physical memory, registered from byte 100.  PUTs over every page
 * boundary of it, then 64-byte GETs that straddle a page boundary both in
 * it and in the (also scattered) local buffer, so that each GET is
 * translated in two pieces at both ends.  Checked byte for byte.
 */
TEST_F_TIMEOUT(dp, gart_scattered, 120)
{
	enum { NP = 16 };
	const size_t len = (size_t)NP * PAGE;
	char *a, *b, *want_a, *want_b;
	__u64 ha[2], hb[2], e;
	struct dp_ctx c;
	unsigned int k, i;
	int breaks;

	if (self->absent)
		return;
	wait_fabric(_metadata);
	a = scattered_buf(NP);
	b = scattered_buf(NP);
	want_a = calloc(1, len);
	want_b = calloc(1, len);
	ASSERT_TRUE(a && b && want_a && want_b);
	breaks = phys_breaks(a, NP);
	ASSERT_LT(0, breaks)
		TH_LOG("a's pages are contiguous (%d): no test of the GART",
		       breaks);
	TH_LOG("a: %d of %d page neighbours apart in memory", breaks, NP - 1);
	breaks = phys_breaks(b, NP);
	ASSERT_LT(0, breaks);

	/* Byte a + x is at remote offset (addr & 4095) + x - 100 = x. */
	ASSERT_EQ(0, mem_register(self->fd, a + 100, len - 200, 0, ha));
	EXPECT_EQ((__u64)(uintptr_t)a, MH_VA(ha));
	EXPECT_EQ((__u64)NP, MH_NPAGES(ha));
	EXPECT_EQ(12u, MH_PSHIFT(ha));
	EXPECT_EQ(GEMINI_MH_FLAG_GART, MH_FLAGS(ha));
	EXPECT_EQ(mh_crc(ha), MH_CRC(ha));
	ASSERT_EQ(0, mem_register(self->fd, b, len, 0, hb));
	EXPECT_EQ(mh_crc(hb), MH_CRC(hb));
	dp_open(_metadata, self->fd, &c);

	/*
	 * PUT: 8-byte stores over 48 bytes around each page boundary, then
	 * 4-, 2- and 1-byte stores next to them.
	 */
	fma_set(&c, self->pe, 0, MH_MDH(ha), MH_MDH(hb), GEMINI_FMA_CMD_PUT);
	for (k = 1; k < NP; k++) {
		size_t x = (size_t)k * PAGE - 24;
		__u64 v8;
		__u32 v4;
		__u16 v2;

		for (i = 0; i < 48; i++)
			want_a[x + i] = pat(x + i, 1);
		for (i = 0; i < 48; i += 8) {
			memcpy(&v8, want_a + x + i, 8);
			*(volatile __u64 *)(c.put_uc + x + i) = v8;
		}
		want_a[x - 8] = pat(x - 8, 2);
		want_a[x - 7] = pat(x - 7, 2);
		want_a[x - 6] = pat(x - 6, 2);
		want_a[x - 5] = pat(x - 5, 2);
		memcpy(&v4, want_a + x - 8, 4);
		*(volatile __u32 *)(c.put_uc + x - 8) = v4;
		want_a[x + 48] = pat(x + 48, 3);
		want_a[x + 49] = pat(x + 49, 3);
		memcpy(&v2, want_a + x + 48, 2);
		*(volatile __u16 *)(c.put_uc + x + 48) = v2;
		want_a[x + 51] = pat(x + 51, 4);
		*(volatile __u8 *)(c.put_uc + x + 51) = want_a[x + 51];
	}
	e = sync_wait(_metadata, &c, 0x6a);
	EXPECT_EQ((__u64)GEMINI_CQE_SRC_SSID_SREQ, CQE_SOURCE(e))
		TH_LOG("CQ entry 0x%016llx", (unsigned long long)e);
	EXPECT_EQ((__u64)GEMINI_STATUS_OK, CQE_STATUS(e))
		TH_LOG("CQ entry 0x%016llx", (unsigned long long)e);
	for (i = 0; i < len; i++)
		if (a[i] != want_a[i])
			break;
	EXPECT_EQ(len, (size_t)i)
		TH_LOG("a + 0x%x is 0x%02x, want 0x%02x", i,
		       (__u8)a[i], (__u8)want_a[i]);

	/*
	 * GET: 64 bytes from 24 bytes before each boundary k of a into b,
	 * 12 bytes before boundary k of b (base offsets are 64-aligned: the
	 * window offset carries the rest).
	 */
	for (k = 1; k < NP; k++) {
		size_t r = (size_t)k * PAGE - 24, l = (size_t)k * PAGE - 12;

		memcpy(want_b + l, want_a + r, 64);
		fma_set(&c, self->pe, r & ~63ul, MH_MDH(ha), MH_MDH(hb),
			GEMINI_FMA_CMD_GET);
		*(volatile __u64 *)(c.get + (r & 63)) = GEMINI_GCW_GET(64, l);
	}
	e = sync_wait(_metadata, &c, 0x6b);
	EXPECT_EQ((__u64)GEMINI_STATUS_OK, CQE_STATUS(e))
		TH_LOG("CQ entry 0x%016llx", (unsigned long long)e);
	for (i = 0; i < len; i++)
		if (b[i] != want_b[i])
			break;
	EXPECT_EQ(len, (size_t)i)
		TH_LOG("b + 0x%x is 0x%02x, want 0x%02x", i,
		       (__u8)b[i], (__u8)want_b[i]);

	/* Past the registration's last page: refused, nothing written. */
	fma_set(&c, self->pe, len, MH_MDH(ha), MH_MDH(hb), GEMINI_FMA_CMD_PUT);
	*(volatile __u64 *)(c.put_uc + 0) = ~0ull;
	e = sync_wait(_metadata, &c, 0x6c);
	EXPECT_EQ((__u64)GEMINI_STATUS_BOUNDS, CQE_STATUS(e))
		TH_LOG("CQ entry 0x%016llx", (unsigned long long)e);
	EXPECT_EQ(0, memcmp(a, want_a, len));
	EXPECT_EQ(0, mem_deregister(self->fd, ha));
	EXPECT_EQ(0, mem_deregister(self->fd, hb));
	free(want_a);
	free(want_b);
}

/* --- Registrations through the MRT ---------------------------------- */

#define HUGE		(2ul << 20)
#define NR_HUGEPAGES	"/proc/sys/vm/nr_hugepages"

/* kgni's per-job quotas and its FMA drain time (module parameters) */
#define PARAM_JOB_FMAS		KGNI_MODULE_SYSFS "/parameters/job_fmas"
#define PARAM_JOB_MDDS		KGNI_MODULE_SYSFS "/parameters/job_mdds"
#define PARAM_JOB_GART		KGNI_MODULE_SYSFS "/parameters/job_gart"
#define PARAM_FMA_DRAIN_MS	KGNI_MODULE_SYSFS "/parameters/fma_drain_ms"

/* Huge pages reserved for a test and given back at its end */
struct huge_buf {
	char *p;
	size_t len;
	long before;		/* nr_hugepages before the test */
};

/*
 * @n 2 MiB pages of hugetlbfs memory (MAP_HUGETLB), reserved for the test
 * first; false with a message if the guest cannot have that many.
 */
static bool huge_get(struct __test_metadata *_metadata, struct huge_buf *h,
		     unsigned long n)
{
	long got;

	h->p = NULL;
	h->len = n * HUGE;
	h->before = kgni_read_long(NR_HUGEPAGES);
	if (h->before < 0 || kgni_write_long(NR_HUGEPAGES, h->before + n)) {
		TH_LOG("cannot reserve huge pages: %s", strerror(errno));
		return false;
	}
	got = kgni_read_long(NR_HUGEPAGES) - h->before;
	if (got < (long)n) {
		TH_LOG("%ld of %lu huge pages reserved (guest memory)", got, n);
		kgni_write_long(NR_HUGEPAGES, h->before);
		return false;
	}
	h->p = mmap(NULL, h->len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	if (h->p == MAP_FAILED) {
		TH_LOG("mmap MAP_HUGETLB: %s", strerror(errno));
		h->p = NULL;
		kgni_write_long(NR_HUGEPAGES, h->before);
		return false;
	}
	memset(h->p, 0, h->len);
	return true;
}

/* Unmap and give back (the registrations must be gone, or they pin it). */
static void huge_put(struct huge_buf *h)
{
	if (h->p)
		munmap(h->p, h->len);
	if (h->before >= 0)
		kgni_write_long(NR_HUGEPAGES, h->before);
}

/*
 * The GART has room for a limited number of pages (kgni takes 64 Ki
 * entries, fewer if memory is short): registering one 2 MiB buffer over
 * and over uses it up, and the next registration fails with ENOSPC (the
 * pages are pinned once more each time; root is not held to
 * RLIMIT_MEMLOCK).  Freeing one registration makes room again.
 */
TEST_F_TIMEOUT(dp, gart_exhausted, 120)
{
	enum { NP = 512, MAX = 160 };
	static __u64 h[MAX][2];
	struct huge_buf hp;
	unsigned int n;
	long quota;
	char *a;
	int r = 0;

	if (self->absent)
		return;
	/* The GART itself, not the job's share of it (job_quotas) */
	quota = kgni_read_long(PARAM_JOB_GART);
	ASSERT_EQ(0, kgni_write_long(PARAM_JOB_GART, 1l << 30));
	a = anon((size_t)NP * PAGE);
	ASSERT_NE(NULL, a);
	for (n = 0; n < MAX; n++) {
		r = mem_register(self->fd, a, (size_t)NP * PAGE,
				 KGNI_MEM_USE_GART, h[n]);
		if (r)
			break;
	}
	EXPECT_EQ(-ENOSPC, r) TH_LOG("%u registrations of %u pages", n, NP);
	EXPECT_GE(65536u / NP, n);
	EXPECT_LE(1024u / NP, n);
	/* Huge pages go through the MRT: the full GART does not matter. */
	EXPECT_TRUE(huge_get(_metadata, &hp, 1));
	if (hp.p) {
		__u64 hh[2] = { 0, 0 };

		EXPECT_EQ(0, mem_register(self->fd, hp.p, HUGE, 0, hh));
		EXPECT_EQ(GEMINI_MH_FLAG_MRT, MH_FLAGS(hh));
		EXPECT_EQ(-ENOSPC, mem_register(self->fd, hp.p, HUGE,
						KGNI_MEM_USE_GART, hh));
		EXPECT_EQ(0, mem_deregister(self->fd, hh));
	}
	huge_put(&hp);
	if (n) {
		EXPECT_EQ(0, mem_deregister(self->fd, h[--n]));
		EXPECT_EQ(0, mem_register(self->fd, a, (size_t)NP * PAGE,
					  KGNI_MEM_USE_GART, h[n]));
		n++;
	}
	EXPECT_EQ(0, kgni_write_long(PARAM_JOB_GART, quota));
	/* Closing the file (teardown) frees the rest. */
}

/*
 * Remote events: memory registered with a CQ gets, in that CQ, the
 * event of a sync with REMOTE_EVENT whose last request targeted it
 * (source RMT_SREQ, the sync's data).  The CQ cannot be destroyed while
 * the registration names it.
 */
TEST_F_TIMEOUT(dp, remote_event, 60)
{
	const __u64 data = 0x77abcdef01ull;
	struct kgni_cq_create rcq = { .size = sizeof(rcq), .entries = 8 };
	struct kgni_cq_create ocq = { .size = sizeof(ocq), .entries = 4 };
	struct kgni_cq_destroy cd = { .size = sizeof(cd) };
	struct kgni_mem_register mr = { .size = sizeof(mr) };
	volatile __u64 *rring;
	__u64 ha[2], hb[2], e;
	struct dp_ctx c;
	char *a, *b;
	int fd2;

	if (self->absent)
		return;
	wait_fabric(_metadata);
	a = anon(PAGE);
	b = anon(PAGE);
	ASSERT_TRUE(a && b);
	dp_open(_metadata, self->fd, &c);
	ASSERT_EQ(0, xioctl(self->fd, KGNI_IOC_CQ_CREATE, &rcq));
	rring = map(self->fd, rcq.ring_offset, rcq.ring_size, PROT_READ);
	ASSERT_NE(NULL, rring);
	ASSERT_EQ(0, mem_register(self->fd, a, PAGE, 0, ha));
	ASSERT_EQ(0, mem_register_cq(self->fd, b, PAGE, 0, rcq.cq_id, hb));

	/* A PUT into b, then a sync with a remote and a local event */
	fma_set(&c, self->pe, 0, MH_MDH(hb), MH_MDH(ha), GEMINI_FMA_CMD_PUT);
	*(volatile __u64 *)(c.put_uc + 8) = 0x5555aaaa5555aaaaull;
	e = sync_type_wait(&c, GEMINI_FMA_SYNC_REMOTE_EVENT, data);
	EXPECT_EQ((__u64)GEMINI_CQE_SRC_SSID_SREQ, CQE_SOURCE(e))
		TH_LOG("local CQ entry 0x%016llx", (unsigned long long)e);
	EXPECT_EQ((__u64)GEMINI_STATUS_OK, CQE_STATUS(e))
		TH_LOG("local CQ entry 0x%016llx", (unsigned long long)e);
	EXPECT_EQ(data, e & GEMINI_CQE_DATA_MASK);
	e = ring_poll(rring, 0);
	EXPECT_EQ((__u64)GEMINI_CQE_SRC_RMT_SREQ, CQE_SOURCE(e))
		TH_LOG("remote CQ entry 0x%016llx", (unsigned long long)e);
	EXPECT_EQ((__u64)GEMINI_STATUS_OK, CQE_STATUS(e));
	EXPECT_EQ(data, e & GEMINI_CQE_DATA_MASK);
	EXPECT_EQ(0ull, rring[1]);
	EXPECT_EQ(0x5555aaaa5555aaaaull, *(volatile __u64 *)(b + 8));

	cd.cq_id = rcq.cq_id;

	/* cq_id: not a CQ of this file; reserved */
	mr.addr = (uintptr_t)a;
	mr.len = PAGE;
	mr.cq_id = 1023;
	EXPECT_EQ(-EINVAL, xioctl(self->fd, KGNI_IOC_MEM_REGISTER, &mr));
	mr.cq_id = 5000;
	EXPECT_EQ(-EINVAL, xioctl(self->fd, KGNI_IOC_MEM_REGISTER, &mr));
	fd2 = open(KGNI_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, cdm_attach(fd2, TEST_PTAG, TEST_COOKIE, NULL));
	ASSERT_EQ(0, xioctl(fd2, KGNI_IOC_CQ_CREATE, &ocq));
	mr.cq_id = ocq.cq_id;
	EXPECT_EQ(-EINVAL, xioctl(self->fd, KGNI_IOC_MEM_REGISTER, &mr));
	close(fd2);
	mr.cq_id = 0;
	mr.reserved = 1;
	EXPECT_EQ(-EINVAL, xioctl(self->fd, KGNI_IOC_MEM_REGISTER, &mr));

	/* The first version of the structure, without cq_id, still works. */
	mr.reserved = 0;
	mr.size = offsetof(struct kgni_mem_register, cq_id);
	ASSERT_EQ(0, xioctl(self->fd, KGNI_IOC_MEM_REGISTER, &mr));
	EXPECT_EQ(mh_crc(mr.mem_hndl), MH_CRC(mr.mem_hndl));
	EXPECT_EQ(0, mem_deregister(self->fd, mr.mem_hndl));

	/*
	 * Memory registered without a CQ: its cqh is the device's CQ 0,
	 * which is never enabled, so the target cannot take the remote
	 * event and the sequence ends with a CQ error (the PUT itself was
	 * done).
	 */
	fma_set(&c, self->pe, 0, MH_MDH(ha), MH_MDH(hb), GEMINI_FMA_CMD_PUT);
	*(volatile __u64 *)(c.put_uc + 16) = 0x1234;
	e = sync_type_wait(&c, GEMINI_FMA_SYNC_REMOTE_EVENT, 1);
	EXPECT_EQ((__u64)GEMINI_STATUS_OVERRUN, CQE_STATUS(e))
		TH_LOG("local CQ entry 0x%016llx", (unsigned long long)e);
	EXPECT_EQ(0x1234ull, *(volatile __u64 *)(a + 16));
	EXPECT_EQ(0ull, rring[1]);

	/*
	 * A registration does not keep its CQ (uGNI's rule: only endpoints
	 * do): destroyed, the CQ gets no more events; a remote event into
	 * b ends in a CQ error as above, the PUT itself lands, and b stays
	 * registered until deregistered.
	 */
	EXPECT_EQ(0, xioctl(self->fd, KGNI_IOC_CQ_DESTROY, &cd));
	EXPECT_EQ(-EINVAL, xioctl(self->fd, KGNI_IOC_CQ_DESTROY, &cd));
	fma_set(&c, self->pe, 0, MH_MDH(hb), MH_MDH(ha), GEMINI_FMA_CMD_PUT);
	*(volatile __u64 *)(c.put_uc + 24) = 0x4321;
	e = sync_type_wait(&c, GEMINI_FMA_SYNC_REMOTE_EVENT, 2);
	EXPECT_EQ((__u64)GEMINI_STATUS_OVERRUN, CQE_STATUS(e))
		TH_LOG("local CQ entry 0x%016llx", (unsigned long long)e);
	EXPECT_EQ(0x4321ull, *(volatile __u64 *)(b + 24));
	/* (rring went with the CQ: its mapping now faults, not read here) */
	EXPECT_EQ(0, mem_deregister(self->fd, hb));
}

/* --- RDMA posts through the BTE ------------------------------------- */

/* A polled CQ and its ring, for BTE events */
struct bte_cq {
	struct kgni_cq_create cq;
	volatile __u64 *ring;
	volatile __u64 *user;
	unsigned int next;
};

static void bte_cq_open(struct __test_metadata *_metadata, int fd,
			struct bte_cq *c)
{
	memset(c, 0, sizeof(*c));
	c->cq.size = sizeof(c->cq);
	c->cq.entries = 64;
	ASSERT_EQ(0, xioctl(fd, KGNI_IOC_CQ_CREATE, &c->cq));
	c->ring = map(fd, c->cq.ring_offset, c->cq.ring_size, PROT_READ);
	c->user = map(fd, c->cq.user_offset, PAGE, PROT_READ | PROT_WRITE);
	ASSERT_TRUE(c->ring && c->user) TH_LOG("mmap: %s", strerror(errno));
}

/* The next event, taken; 0 if none came within EVENT_TIMEOUT_S. */
static __u64 bte_event(struct bte_cq *c)
{
	__u64 e = ring_poll(c->ring, c->next);

	if (!e)
		return 0;
	c->next = (c->next + 1) % c->cq.entries;
	c->user[0] = c->next;
	return e;
}

static void bte_cq_close(struct __test_metadata *_metadata, int fd,
			 struct bte_cq *c)
{
	struct kgni_cq_destroy cd = { .size = sizeof(cd), .cq_id = c->cq.cq_id };

	munmap((void *)c->ring, c->cq.ring_size);
	munmap((void *)c->user, PAGE);
	/* Every post has ended: the kernel takes their slots back. */
	EXPECT_EQ(0, xioctl(fd, KGNI_IOC_CQ_DESTROY, &cd));
}

/* An event of the BTE with status @st and data @data */
#define EXPECT_BTE_EVENT(e, st, data) do {				\
	EXPECT_EQ((__u64)GEMINI_CQE_SRC_BTE, CQE_SOURCE(e))		\
		TH_LOG("CQ entry 0x%016llx", (unsigned long long)(e));	\
	EXPECT_EQ((__u64)(st), CQE_STATUS(e))				\
		TH_LOG("CQ entry 0x%016llx", (unsigned long long)(e));	\
	EXPECT_EQ((__u64)(data), (e) & GEMINI_CQE_DATA_MASK);		\
} while (0)

/* The first byte of [@p, @p + @n) that is not 0, or -1 */
static long first_nonzero(const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i])
			return (long)i;
	return -1;
}

/*
 * KGNI_IOC_RDMA_POST to this node's own PE: a PUT unaligned at both ends
 * over two page boundaries of scattered buffers, with its LOCAL and
 * GLOBAL events; then a GET of it back into a third buffer.  Byte for
 * byte, nothing written outside the range.
 */
TEST_F_TIMEOUT(dp, bte_put_get_loopback, 60)
{
	enum { NP = 4 };
	const size_t len = (size_t)NP * PAGE;
	const __u64 d_local = 0x11aa22bb33ccull, d_global = 0x44dd55ee66ffull;
	const size_t pa = 5, pb = 77, pn = 2 * PAGE + 333;
	const size_t gb = 76, gc = 8, gn = 2 * PAGE + 332;
	struct kgni_rdma_post p;
	__u64 ha[2], hb[2], hc[2], e;
	struct bte_cq c;
	char *a, *b, *cc;
	size_t i;

	if (self->absent)
		return;
	wait_fabric(_metadata);
	a = scattered_buf(NP);
	b = scattered_buf(NP);
	cc = scattered_buf(NP);
	ASSERT_TRUE(a && b && cc);
	for (i = 0; i < len; i++)
		a[i] = (char)pat(i, 5);
	ASSERT_EQ(0, mem_register(self->fd, a, len, 0, ha));
	ASSERT_EQ(0, mem_register(self->fd, b, len, 0, hb));
	ASSERT_EQ(0, mem_register(self->fd, cc, len, 0, hc));
	bte_cq_open(_metadata, self->fd, &c);

	/* PUT a + 5 .. into b + 77 .. (the remote address is b's VA) */
	rdma_fill(&p, KGNI_RDMA_PUT, self->pe, c.cq.cq_id, (uintptr_t)(a + pa),
		  ha, (uintptr_t)(b + pb), hb, pn);
	p.events = KGNI_RDMA_EV_LOCAL | KGNI_RDMA_EV_GLOBAL;
	p.local_data = d_local;
	p.global_data = d_global;
	ASSERT_EQ(0, rdma_post(self->fd, &p));
	EXPECT_GT(3u, p.channel);
	EXPECT_EQ(p.channel, p.slot / 256) TH_LOG("slot %u", p.slot);
	e = bte_event(&c);
	EXPECT_BTE_EVENT(e, GEMINI_STATUS_OK, d_local);
	e = bte_event(&c);
	EXPECT_BTE_EVENT(e, GEMINI_STATUS_OK, d_global);
	EXPECT_EQ(0, memcmp(b + pb, a + pa, pn));
	EXPECT_EQ(-1, first_nonzero(b, pb));
	EXPECT_EQ(-1, first_nonzero(b + pb + pn, len - pb - pn));

	/* GET b + 76 .. back into c + 8 .. (4-byte aligned, as GETs must) */
	rdma_fill(&p, KGNI_RDMA_GET, self->pe, c.cq.cq_id, (uintptr_t)(cc + gc),
		  hc, (uintptr_t)(b + gb), hb, gn);
	p.events = KGNI_RDMA_EV_GLOBAL;
	p.global_data = d_global + 1;
	ASSERT_EQ(0, rdma_post(self->fd, &p));
	e = bte_event(&c);
	EXPECT_BTE_EVENT(e, GEMINI_STATUS_OK, d_global + 1);
	EXPECT_EQ(0, memcmp(cc + gc, b + gb, gn));
	EXPECT_EQ(-1, first_nonzero(cc, gc));
	EXPECT_EQ(-1, first_nonzero(cc + gc + gn, len - gc - gn));

	/* No event asked: none comes; the data does. */
	memset(cc, 0, len);
	rdma_fill(&p, KGNI_RDMA_PUT, self->pe, c.cq.cq_id, (uintptr_t)a, ha,
		  (uintptr_t)cc, hc, 64);
	ASSERT_EQ(0, rdma_post(self->fd, &p));
	for (i = 0; i < 500 && memcmp(cc, a, 64); i++)
		usleep(10000);
	EXPECT_EQ(0, memcmp(cc, a, 64));
	usleep(100 * 1000);
	EXPECT_EQ(0ull, c.ring[c.next]);

	bte_cq_close(_metadata, self->fd, &c);
	EXPECT_EQ(0, mem_deregister(self->fd, ha));
	EXPECT_EQ(0, mem_deregister(self->fd, hb));
	EXPECT_EQ(0, mem_deregister(self->fd, hc));
}

/*
 * A segmented registration: three ranges, the first starting inside a
 * page, the last ending inside one, registered as one domain with VA 0.
 * A PUT into it lands in each segment in turn; a PUT out of it (offsets
 * as local addresses) reads them back in the same order.
 */
TEST_F_TIMEOUT(dp, bte_segments, 60)
{
	const size_t s0 = 2 * PAGE - 100, s1 = PAGE, s2 = 50;
	const size_t total = s0 + s1 + s2;
	struct kgni_mem_segment segs[3];
	struct kgni_rdma_post p;
	__u64 hs[2], hsrc[2], hdst[2], e;
	char *x, *y, *z, *src, *dst;
	struct bte_cq c;
	size_t i;

	if (self->absent)
		return;
	wait_fabric(_metadata);
	x = anon(2 * PAGE);
	y = anon(PAGE);
	z = anon(PAGE);
	src = anon(4 * PAGE);
	dst = anon(4 * PAGE);
	ASSERT_TRUE(x && y && z && src && dst);
	for (i = 0; i < 4 * PAGE; i++)
		src[i] = (char)pat(i, 6);
	segs[0].addr = (uintptr_t)(x + 100);
	segs[0].len = s0;
	segs[1].addr = (uintptr_t)y;
	segs[1].len = s1;
	segs[2].addr = (uintptr_t)z;
	segs[2].len = s2;
	ASSERT_EQ(0, mem_register_segments(self->fd, segs, 3, 0, 0, hs));
	EXPECT_EQ(0ull, MH_VA(hs));
	EXPECT_EQ(4u, MH_NPAGES(hs));
	EXPECT_EQ(12u, MH_PSHIFT(hs));
	EXPECT_EQ(GEMINI_MH_FLAG_GART, MH_FLAGS(hs));
	EXPECT_EQ(mh_crc(hs), MH_CRC(hs));
	ASSERT_EQ(0, mem_register(self->fd, src, 4 * PAGE, 0, hsrc));
	ASSERT_EQ(0, mem_register(self->fd, dst, 4 * PAGE, 0, hdst));
	bte_cq_open(_metadata, self->fd, &c);

	/* Offset 100 is x + 100: the first byte of the first segment. */
	rdma_fill(&p, KGNI_RDMA_PUT, self->pe, c.cq.cq_id, (uintptr_t)src,
		  hsrc, 100, hs, total);
	p.events = KGNI_RDMA_EV_GLOBAL;
	p.global_data = 0x5e6;
	ASSERT_EQ(0, rdma_post(self->fd, &p));
	e = bte_event(&c);
	EXPECT_BTE_EVENT(e, GEMINI_STATUS_OK, 0x5e6);
	EXPECT_EQ(-1, first_nonzero(x, 100));
	EXPECT_EQ(0, memcmp(x + 100, src, s0));
	EXPECT_EQ(0, memcmp(y, src + s0, s1));
	EXPECT_EQ(0, memcmp(z, src + s0 + s1, s2));
	EXPECT_EQ(-1, first_nonzero(z + s2, PAGE - s2));

	/* The segments as the local side: their offsets are the addresses. */
	rdma_fill(&p, KGNI_RDMA_PUT, self->pe, c.cq.cq_id, 100, hs,
		  (uintptr_t)dst, hdst, total);
	p.events = KGNI_RDMA_EV_LOCAL;
	p.local_data = 0x5e7;
	ASSERT_EQ(0, rdma_post(self->fd, &p));
	e = bte_event(&c);
	EXPECT_BTE_EVENT(e, GEMINI_STATUS_OK, 0x5e7);
	EXPECT_EQ(0, memcmp(dst, src, total));
	EXPECT_EQ(-1, first_nonzero(dst + total, 4 * PAGE - total));

	bte_cq_close(_metadata, self->fd, &c);
	EXPECT_EQ(0, mem_deregister(self->fd, hs));
	EXPECT_EQ(-EINVAL, mem_deregister(self->fd, hs));
	EXPECT_EQ(0, mem_deregister(self->fd, hsrc));
	EXPECT_EQ(0, mem_deregister(self->fd, hdst));
}

/*
 * Post a transfer of @len bytes to this node with a GLOBAL event of
 * @data and check that the event says OK.
 */
static void bte_do(struct __test_metadata *_metadata, int fd, __u32 pe,
		   struct bte_cq *c, __u32 type, const void *local,
		   const __u64 lh[2], const void *remote, const __u64 rh[2],
		   size_t len, __u64 data)
{
	struct kgni_rdma_post p;
	__u64 e;

	rdma_fill(&p, type, pe, c->cq.cq_id, (uintptr_t)local, lh,
		  (uintptr_t)remote, rh, len);
	p.events = KGNI_RDMA_EV_GLOBAL;
	p.global_data = data;
	ASSERT_EQ(0, rdma_post(fd, &p));
	e = bte_event(c);
	EXPECT_BTE_EVENT(e, GEMINI_STATUS_OK, data);
}

/*
 * Huge-page memory is registered through the MRT (handle flag MRT,
 * 4 KiB page count as ever), from any page inside a huge page; a PUT
 * across the 2 MiB boundary from scattered memory and a GET back land
 * byte for byte, and nothing outside the registered pages is reachable.
 * KGNI_MEM_USE_GART takes the GART for the same memory; the MRT entries
 * come back at deregistration.
 */
TEST_F_TIMEOUT(dp, mrt_huge_pages, 90)
{
	const size_t off = 5000, len = HUGE + 3 * PAGE;	/* pages 1 .. 514 */
	const size_t reg = off & ~(PAGE - 1);
	const size_t pn = 3 * PAGE + 77, pa = HUGE - reg - 2 * PAGE - 11;
	struct kgni_rdma_post p;
	__u64 hh[2], hg[2], hs[2], hc[2], e;
	struct huge_buf h;
	struct bte_cq c;
	char *s, *cc;
	size_t i;

	if (self->absent)
		return;
	wait_fabric(_metadata);
	ASSERT_TRUE(huge_get(_metadata, &h, 2));
	s = scattered_buf(8);
	cc = scattered_buf(8);
	ASSERT_TRUE(s && cc);
	for (i = 0; i < 8 * PAGE; i++)
		s[i] = (char)pat(i, 9);

	ASSERT_EQ(0, mem_register(self->fd, h.p + off, len, 0, hh));
	EXPECT_EQ(GEMINI_MH_FLAG_MRT, MH_FLAGS(hh));
	EXPECT_EQ((uintptr_t)h.p + reg, MH_VA(hh));
	EXPECT_EQ((off + len + PAGE - 1) / PAGE - reg / PAGE, MH_NPAGES(hh));
	EXPECT_EQ(12u, MH_PSHIFT(hh));
	EXPECT_EQ(mh_crc(hh), MH_CRC(hh));
	ASSERT_EQ(0, mem_register(self->fd, s, 8 * PAGE, 0, hs));
	ASSERT_EQ(0, mem_register(self->fd, cc, 8 * PAGE, 0, hc));
	EXPECT_EQ(GEMINI_MH_FLAG_GART, MH_FLAGS(hs));
	bte_cq_open(_metadata, self->fd, &c);

	/* PUT across the boundary between the two huge pages */
	bte_do(_metadata, self->fd, self->pe, &c, KGNI_RDMA_PUT, s + 3, hs,
	       h.p + reg + pa, hh, pn, 0x3a1);
	EXPECT_EQ(0, memcmp(h.p + reg + pa, s + 3, pn));
	EXPECT_EQ(-1, first_nonzero(h.p, reg + pa));
	EXPECT_EQ(-1, first_nonzero(h.p + reg + pa + pn,
				    h.len - reg - pa - pn));

	/* GET it back out of the huge pages (4-byte aligned) */
	bte_do(_metadata, self->fd, self->pe, &c, KGNI_RDMA_GET, cc + 4, hc,
	       h.p + reg + pa - 1, hh, pn + 1 + 2, 0x3a2);
	EXPECT_EQ(0, memcmp(cc + 5, s + 3, pn));
	EXPECT_EQ(-1, first_nonzero(cc, 5));

	/*
	 * The first page of the huge page is not registered: a PUT there is
	 * refused by the target's bounds, an error event, no byte written.
	 */
	rdma_fill(&p, KGNI_RDMA_PUT, self->pe, c.cq.cq_id, (uintptr_t)s, hs,
		  (uintptr_t)h.p + reg - 8, hh, 16);
	p.events = KGNI_RDMA_EV_GLOBAL;
	if (rdma_post(self->fd, &p) == 0) {
		e = bte_event(&c);
		EXPECT_BTE_EVENT(e, GEMINI_STATUS_BOUNDS, 0);
	}
	EXPECT_EQ(-1, first_nonzero(h.p, reg + pa));

	/* The same memory through the GART, if asked */
	ASSERT_EQ(0, mem_register(self->fd, h.p, HUGE, KGNI_MEM_USE_GART, hg));
	EXPECT_EQ(GEMINI_MH_FLAG_GART, MH_FLAGS(hg));
	bte_do(_metadata, self->fd, self->pe, &c, KGNI_RDMA_PUT, s, hs,
	       h.p + HUGE - PAGE, hg, PAGE, 0x3a3);
	EXPECT_EQ(0, memcmp(h.p + HUGE - PAGE, s, PAGE));

	bte_cq_close(_metadata, self->fd, &c);
	EXPECT_EQ(0, mem_deregister(self->fd, hg));
	EXPECT_EQ(0, mem_deregister(self->fd, hh));
	/* Registered again: the entries came back, the data is there. */
	ASSERT_EQ(0, mem_register(self->fd, h.p, h.len, 0, hh));
	EXPECT_EQ(GEMINI_MH_FLAG_MRT, MH_FLAGS(hh));
	EXPECT_EQ(0, mem_deregister(self->fd, hh));
	EXPECT_EQ(0, mem_deregister(self->fd, hs));
	EXPECT_EQ(0, mem_deregister(self->fd, hc));
	huge_put(&h);
}

/* The physical address of the page at @va, or 0 (not root, not present) */
static uint64_t phys_of(const void *va)
{
	uint64_t e = 0;
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	if (pread(fd, &e, sizeof(e), (uintptr_t)va / PAGE * sizeof(e)) !=
	    sizeof(e) || !(e >> 63))
		e = 0;
	close(fd);
	return (e & ((1ull << 55) - 1)) * PAGE;
}

/*
 * An ordinary 4 KiB page moved (mremap) to the user address whose offset
 * in its 2 MiB frame is the page's physical offset in its own: it looks
 * like a piece of a huge page, but it is not one, so it goes through the
 * GART (by chance one small page in 512 did, and the rest of its
 * physical 2 MiB frame, other users' memory, sat behind the MRT entry).
 */
TEST_F(dp, small_page_not_mrt)
{
	struct dp_ctx c;
	uint64_t phys;
	__u64 h[2], e;
	char *area, *p, *at;

	if (self->absent)
		return;
	p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, p);
	madvise(p, PAGE, MADV_NOHUGEPAGE);
	p[0] = 1;
	phys = phys_of(p);
	ASSERT_NE(0ull, phys);

	area = mmap(NULL, 2 * HUGE, PROT_NONE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	ASSERT_NE(MAP_FAILED, area);
	at = (char *)(((uintptr_t)area + HUGE - 1) & ~(HUGE - 1)) +
	     (phys & (HUGE - 1));
	ASSERT_EQ(at, mremap(p, PAGE, PAGE, MREMAP_MAYMOVE | MREMAP_FIXED,
			     at));
	ASSERT_EQ(phys, phys_of(at));

	ASSERT_EQ(0, mem_register(self->fd, at, PAGE, 0, h));
	EXPECT_EQ(GEMINI_MH_FLAG_GART, MH_FLAGS(h));
	EXPECT_EQ(1ull, MH_NPAGES(h));

	/* And the page is reachable through it, byte for byte */
	wait_fabric(_metadata);
	dp_open(_metadata, self->fd, &c);
	fma_set(&c, self->pe, 0, MH_MDH(h), MH_MDH(h), GEMINI_FMA_CMD_PUT);
	*(volatile __u64 *)(c.put_uc + 8) = 0x5a5a0102c0ffee11ull;
	e = sync_wait(_metadata, &c, 7);
	EXPECT_EQ((__u64)GEMINI_STATUS_OK,
		  e >> GEMINI_CQE_STATUS_SHIFT & GEMINI_CQE_STATUS_MASK)
		TH_LOG("CQ entry 0x%016llx", (unsigned long long)e);
	EXPECT_EQ(0x5a5a0102c0ffee11ull, *(volatile __u64 *)(at + 8));
	EXPECT_EQ(0, mem_deregister(self->fd, h));
	munmap(area, 2 * HUGE);
}

/*
 * A registration larger than the whole GART (256 MiB): 130 huge pages
 * through 130 MRT entries, with a PUT and a GET at its far end.  Needs a
 * guest of more than 256 MiB (the single-node selftest run boots one);
 * smaller guests skip it.
 */
TEST_F_TIMEOUT(dp, mrt_larger_than_gart, 300)
{
	const unsigned long n = 130;
	__u64 hh[2], hs[2];
	struct huge_buf h;
	struct bte_cq c;
	size_t far, i;
	char *s;

	if (self->absent)
		return;
	wait_fabric(_metadata);
	/* Not even tried in a small guest: it would squeeze its memory. */
	if (sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE) <
	    (n * HUGE) * 1.5)
		SKIP(return, "guest memory too small for %lu huge pages", n);
	if (!huge_get(_metadata, &h, n)) {
		huge_put(&h);
		SKIP(return, "guest memory too small for %lu huge pages", n);
	}
	s = scattered_buf(4);
	ASSERT_NE(NULL, s);
	for (i = 0; i < 4 * PAGE; i++)
		s[i] = (char)pat(i, 10);
	ASSERT_EQ(0, mem_register(self->fd, h.p, h.len, 0, hh));
	EXPECT_EQ(GEMINI_MH_FLAG_MRT, MH_FLAGS(hh));
	EXPECT_EQ(n * HUGE / PAGE, MH_NPAGES(hh));
	EXPECT_LT(65536u, MH_NPAGES(hh));
	ASSERT_EQ(0, mem_register(self->fd, s, 4 * PAGE, 0, hs));
	bte_cq_open(_metadata, self->fd, &c);

	far = h.len - 2 * PAGE - 100;
	bte_do(_metadata, self->fd, self->pe, &c, KGNI_RDMA_PUT, s, hs,
	       h.p + far, hh, 2 * PAGE + 100, 0x3b1);
	EXPECT_EQ(0, memcmp(h.p + far, s, 2 * PAGE + 100));
	EXPECT_EQ(-1, first_nonzero(h.p, far));
	memset(s, 0, 4 * PAGE);
	bte_do(_metadata, self->fd, self->pe, &c, KGNI_RDMA_GET, s, hs,
	       h.p + far, hh, 2 * PAGE + 100, 0x3b2);
	EXPECT_EQ(0, memcmp(h.p + far, s, 2 * PAGE + 100));

	bte_cq_close(_metadata, self->fd, &c);
	EXPECT_EQ(0, mem_deregister(self->fd, hs));
	EXPECT_EQ(0, mem_deregister(self->fd, hh));
	huge_put(&h);
}

/*
 * A post holds its CQ until it has ended: a PUT to a PE that is no node
 * can only time out, with one error event (GLOBAL's data); until
 * then CQ_DESTROY is EBUSY, after it the CQ goes.
 */
TEST_F_TIMEOUT(dp, bte_cq_busy_until_done, 60)
{
	struct kgni_cq_destroy cd = { .size = sizeof(cd) };
	struct kgni_rdma_post p;
	__u64 ha[2], e;
	struct bte_cq c;
	char *a;

	if (self->absent)
		return;
	a = anon(PAGE);
	ASSERT_NE(NULL, a);
	ASSERT_EQ(0, mem_register(self->fd, a, PAGE, 0, ha));
	bte_cq_open(_metadata, self->fd, &c);
	rdma_fill(&p, KGNI_RDMA_PUT, NO_SUCH_PE, c.cq.cq_id, (uintptr_t)a, ha,
		  (uintptr_t)a, ha, 256);
	p.events = KGNI_RDMA_EV_GLOBAL;
	p.global_data = 0x910b;
	ASSERT_EQ(0, rdma_post(self->fd, &p));
	cd.cq_id = c.cq.cq_id;
	EXPECT_EQ(-EBUSY, xioctl(self->fd, KGNI_IOC_CQ_DESTROY, &cd));
	e = bte_event(&c);
	EXPECT_BTE_EVENT(e, GEMINI_STATUS_TIMEOUT, 0x910b);
	usleep(200 * 1000);
	EXPECT_EQ(0ull, c.ring[c.next]) TH_LOG("a second event");
	bte_cq_close(_metadata, self->fd, &c);
	EXPECT_EQ(0, mem_deregister(self->fd, ha));
}

static int cq_wait(int fd, __u32 cq_id, __u32 timeout_ms)
{
	struct kgni_cq_wait w = {
		.size = sizeof(w), .cq_id = cq_id, .timeout_ms = timeout_ms,
	};

	return xioctl(fd, KGNI_IOC_CQ_WAIT, &w);
}

static void on_usr1(int sig)
{
}

/* A child that waits on @cq_id without limit; it exits with the errno. */
static pid_t cq_waiter(int fd, __u32 cq_id)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(-cq_wait(fd, cq_id, KGNI_CQ_WAIT_FOREVER));
	return pid;
}

/*
 * The child's exit status, or -1 (having killed it) if it did not end
 * within @secs; SIGUSR1 every 100 ms meanwhile if @poke.
 */
static int reap(pid_t pid, double secs, bool poke)
{
	double deadline = kgni_now() + secs;
	int status;

	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (kgni_now() > deadline) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			return -1;
		}
		if (poke)
			kill(pid, SIGUSR1);
		usleep(100 * 1000);
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/*
 * Blocking CQs: KGNI_IOC_CQ_WAIT returns when the device has written an
 * event the consumer has not taken (the CQ's interrupt wakes it), times
 * out, is interrupted by a signal, or fails when the CQ goes.
 */
TEST_F_TIMEOUT(dp, cq_blocking, 90)
{
	struct kgni_cq_create bcq = {
		.size = sizeof(bcq), .flags = KGNI_CQ_BLOCKING, .entries = 8,
	};
	struct kgni_cq_create pcq = { .size = sizeof(pcq), .entries = 4 };
	struct kgni_cq_destroy cd = { .size = sizeof(cd) };
	struct kgni_cq_wait w = { .size = sizeof(w) };
	struct sigaction sa = { .sa_handler = on_usr1 };	/* no restart */
	__u64 ha[2], e;
	struct dp_ctx c;
	double t0, dt;
	pid_t pid;
	char *a;

	if (self->absent)
		return;
	wait_fabric(_metadata);
	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, NULL));
	a = anon(PAGE);
	ASSERT_NE(NULL, a);
	ASSERT_EQ(0, mem_register(self->fd, a, PAGE, 0, ha));

	/* Flags: only BLOCKING */
	bcq.flags = 2;
	EXPECT_EQ(-EINVAL, xioctl(self->fd, KGNI_IOC_CQ_CREATE, &bcq));
	bcq.flags = KGNI_CQ_BLOCKING;
	ASSERT_EQ(0, xioctl(self->fd, KGNI_IOC_CQ_CREATE, &bcq));
	ASSERT_EQ(0, xioctl(self->fd, KGNI_IOC_CQ_CREATE, &pcq));

	/* Not a blocking CQ of this file; flags */
	EXPECT_EQ(-EINVAL, cq_wait(self->fd, pcq.cq_id, 0));
	EXPECT_EQ(-EINVAL, cq_wait(self->fd, 0, 0));
	EXPECT_EQ(-EINVAL, cq_wait(self->fd, 1023, 0));
	w.cq_id = bcq.cq_id;
	w.flags = 1;
	EXPECT_EQ(-EINVAL, xioctl(self->fd, KGNI_IOC_CQ_WAIT, &w));

	/* Empty: times out, after about the time asked for */
	EXPECT_EQ(-ETIMEDOUT, cq_wait(self->fd, bcq.cq_id, 0));
	t0 = kgni_now();
	EXPECT_EQ(-ETIMEDOUT, cq_wait(self->fd, bcq.cq_id, 100));
	dt = kgni_now() - t0;
	/* jiffies: the first tick may come early by up to one (4 ms) */
	EXPECT_LE(0.09, dt);
	EXPECT_GT(5.0, dt);
	TH_LOG("a 100 ms wait on an empty CQ took %.3f s", dt);

	/*
	 * A child waits without limit; an event arrives: its interrupt ends
	 * the wait.  The event stays in the ring until the parent takes it.
	 */
	memset(&c, 0, sizeof(c));
	c.cq = bcq;
	c.fma.size = sizeof(c.fma);
	c.fma.cq_id = bcq.cq_id;
	ASSERT_EQ(0, xioctl(self->fd, KGNI_IOC_FMA_ALLOC, &c.fma));
	c.ring = map(self->fd, bcq.ring_offset, bcq.ring_size, PROT_READ);
	c.cq_user = map(self->fd, bcq.user_offset, PAGE,
			PROT_READ | PROT_WRITE);
	c.fma_user = map(self->fd, c.fma.user_offset, PAGE,
			 PROT_READ | PROT_WRITE);
	c.put_uc = map(self->fd, c.fma.put_uc_offset, PAGE, PROT_WRITE);
	ASSERT_TRUE(c.ring && c.cq_user && c.fma_user && c.put_uc);
	pid = cq_waiter(self->fd, bcq.cq_id);
	ASSERT_LE(0, pid);
	usleep(300 * 1000);
	fma_set(&c, self->pe, 0, MH_MDH(ha), MH_MDH(ha), GEMINI_FMA_CMD_PUT);
	*(volatile __u64 *)(c.put_uc + 0) = 0xb10c;
	sync_ring(&c, GEMINI_FMA_SYNC_LOCAL_EVENT, 0xb1);
	EXPECT_EQ(0, reap(pid, 10, false));
	EXPECT_EQ(0, cq_wait(self->fd, bcq.cq_id, 0));
	e = local_event(&c);
	EXPECT_EQ((__u64)GEMINI_CQE_SRC_SSID_SREQ, CQE_SOURCE(e))
		TH_LOG("CQ entry 0x%016llx", (unsigned long long)e);
	EXPECT_EQ(0xb1ull, e & GEMINI_CQE_DATA_MASK);
	EXPECT_EQ(0xb10cull, *(volatile __u64 *)a);
	/* Taken: empty again */
	EXPECT_EQ(-ETIMEDOUT, cq_wait(self->fd, bcq.cq_id, 10));

	/* The caller itself sleeps until the event of its own PUT. */
	*(volatile __u64 *)(c.put_uc + 8) = 0xb10d;
	t0 = kgni_now();
	sync_ring(&c, GEMINI_FMA_SYNC_LOCAL_EVENT, 0xb2);
	EXPECT_EQ(0, cq_wait(self->fd, bcq.cq_id, 5000));
	dt = kgni_now() - t0;
	TH_LOG("PUT and sync to the wait's return: %.1f us", dt * 1e6);
	e = local_event(&c);
	EXPECT_EQ(0xb2ull, e & GEMINI_CQE_DATA_MASK);
	EXPECT_EQ(0xb10dull, *(volatile __u64 *)(a + 8));

	/* A signal ends the wait: EINTR */
	pid = cq_waiter(self->fd, bcq.cq_id);
	ASSERT_LE(0, pid);
	usleep(100 * 1000);
	EXPECT_EQ(EINTR, reap(pid, 10, true));

	/* The CQ destroyed while a child waits on it: EINVAL */
	bcq.cq_id = 0;
	bcq.ring_offset = bcq.ring_size = bcq.user_offset = 0;
	ASSERT_EQ(0, xioctl(self->fd, KGNI_IOC_CQ_CREATE, &bcq));
	pid = cq_waiter(self->fd, bcq.cq_id);
	ASSERT_LE(0, pid);
	usleep(300 * 1000);
	cd.cq_id = bcq.cq_id;
	EXPECT_EQ(0, xioctl(self->fd, KGNI_IOC_CQ_DESTROY, &cd));
	EXPECT_EQ(EINVAL, reap(pid, 10, false));
}

struct abi_cmd {
	const char *name;
	unsigned long req;
	size_t size;
	size_t min;	/* the structure's first version */
};

#define ABI_CMD(name, type)						\
	{ #name, KGNI_IOC_##name, sizeof(type), sizeof(type) }

static const struct abi_cmd abi_cmds[] = {
	/* the job id, limits and NTT block came later */
	{ "JOB_CONFIGURE", KGNI_IOC_JOB_CONFIGURE,
	  sizeof(struct kgni_job_configure),
	  offsetof(struct kgni_job_configure, job_id) },
	ABI_CMD(CDM_ATTACH, struct kgni_cdm_attach),
	/* cq_id and reserved came later */
	{ "MEM_REGISTER", KGNI_IOC_MEM_REGISTER,
	  sizeof(struct kgni_mem_register),
	  offsetof(struct kgni_mem_register, cq_id) },
	ABI_CMD(MEM_DEREGISTER, struct kgni_mem_deregister),
	ABI_CMD(CQ_CREATE, struct kgni_cq_create),
	ABI_CMD(CQ_DESTROY, struct kgni_cq_destroy),
	ABI_CMD(FMA_ALLOC, struct kgni_fma_alloc),
	ABI_CMD(FMA_FREE, struct kgni_fma_free),
	ABI_CMD(CQ_WAIT, struct kgni_cq_wait),
	ABI_CMD(RDMA_POST, struct kgni_rdma_post),
	/* vmdh_index and vmdh_count came later */
	{ "MEM_REGISTER_SEGMENTS", KGNI_IOC_MEM_REGISTER_SEGMENTS,
	  sizeof(struct kgni_mem_register_segments),
	  offsetof(struct kgni_mem_register_segments, vmdh_index) },
};

TEST_F(dp, abi_size_flags_pointers)
{
	static __u8 buf[4096 + 64];
	unsigned int i, j;

	if (self->absent)
		return;
	for (i = 0; i < ARRAY_SIZE(abi_cmds); i++) {
		const struct abi_cmd *c = &abi_cmds[i];
		const size_t sizes[] = { 0, 4, 8, c->min - 1 };
		__u32 v;

		for (j = 0; j < ARRAY_SIZE(sizes); j++) {
			memset(buf, 0, sizeof(buf));
			v = sizes[j];
			memcpy(buf, &v, 4);
			EXPECT_EQ(-EINVAL, xioctl(self->fd, c->req, buf))
				TH_LOG("%s with size %zu", c->name, sizes[j]);
		}
		memset(buf, 0, sizeof(buf));
		v = c->size + 8;
		memcpy(buf, &v, 4);
		buf[c->size + 3] = 1;
		EXPECT_EQ(-E2BIG, xioctl(self->fd, c->req, buf))
			TH_LOG("%s: tail byte set", c->name);
		v = 4097;
		memcpy(buf, &v, 4);
		EXPECT_EQ(-E2BIG, xioctl(self->fd, c->req, buf))
			TH_LOG("%s: size 4097", c->name);
		/* unknown flag */
		memset(buf, 0, sizeof(buf));
		v = c->size;
		memcpy(buf, &v, 4);
		v = 0x80000000u;
		memcpy(buf + 4, &v, 4);
		EXPECT_EQ(-EINVAL, xioctl(self->fd, c->req, buf))
			TH_LOG("%s: flag 0x80000000", c->name);
		EXPECT_EQ(-EFAULT, xioctl(self->fd, c->req, NULL))
			TH_LOG("%s: NULL", c->name);
	}
}

TEST_F(dp, abi_fields)
{
	struct kgni_cq_destroy cd = { .size = sizeof(cd) };
	struct kgni_fma_free ff = { .size = sizeof(ff) };
	struct kgni_fma_alloc fa = { .size = sizeof(fa) };
	struct kgni_cq_create cc = { .size = sizeof(cc) };
	struct kgni_mem_register mr = { .size = sizeof(mr) };
	__u64 h[2], h2[2], f[2];
	volatile __u64 *ring;
	char *a;
	int fd2, r;

	if (self->absent)
		return;
	a = anon(2 * PAGE);
	ASSERT_NE(NULL, a);

	/* jobs and CDMs */
	EXPECT_EQ(-EINVAL, job_configure(self->fd, 0, 0, 1));
	EXPECT_EQ(-EINVAL, job_configure(self->fd, 0, 256, 1));
	/* a pair allowed already is not bound a second time */
	EXPECT_EQ(-EBUSY, job_configure(self->fd, 0, TEST_PTAG, TEST_COOKIE));
	EXPECT_EQ(-EINVAL, job_configure(self->fd, KGNI_JOB_RELEASE, 0x43, 9));
	EXPECT_EQ(-EBUSY, cdm_attach(self->fd, TEST_PTAG, TEST_COOKIE, NULL));
	fd2 = open(KGNI_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd2);
	EXPECT_EQ(-EPERM, mem_register(fd2, a, PAGE, 0, h2));
	fa.cq_id = 1;
	EXPECT_EQ(-EPERM, xioctl(fd2, KGNI_IOC_FMA_ALLOC, &fa));
	EXPECT_EQ(-EPERM, cdm_attach(fd2, TEST_PTAG, TEST_COOKIE + 1, NULL));
	EXPECT_EQ(-EINVAL, cdm_attach(fd2, 0, TEST_COOKIE, NULL));
	EXPECT_EQ(0, job_configure(self->fd, 0, 0x43, 9));
	EXPECT_EQ(0, job_configure(self->fd, KGNI_JOB_RELEASE, 0x43, 9));
	EXPECT_EQ(-EPERM, cdm_attach(fd2, 0x43, 9, NULL));
	EXPECT_EQ(0, cdm_attach(fd2, TEST_PTAG, TEST_COOKIE, NULL));

	/* registration */
	EXPECT_EQ(-EINVAL, mem_register(self->fd, a, 0, 0, h));
	EXPECT_EQ(-EINVAL, mem_register(self->fd, (void *)-4096L, PAGE, 0,
					h));
	EXPECT_EQ(-EFAULT, mem_register(self->fd, NULL, PAGE, 0, h));
	mr.addr = (uintptr_t)a;
	mr.len = PAGE;
	mr.mem_hndl[1] = 1;	/* out field that must come in as 0 */
	EXPECT_EQ(-EINVAL, xioctl(self->fd, KGNI_IOC_MEM_REGISTER, &mr));
	/* two pages, contiguous or not: the GART maps each */
	r = mem_register(self->fd, a, 2 * PAGE, 0, h);
	EXPECT_EQ(0, r);
	if (!r)
		EXPECT_EQ(0, mem_deregister(self->fd, h));
	ASSERT_EQ(0, mem_register(self->fd, a, 100, 0, h));
	ASSERT_EQ(0, mem_register(fd2, a + PAGE, PAGE, 0, h2));
	/* bad CRC; another file's handle; a handle never given */
	h[1] ^= 1ull << 56;
	EXPECT_EQ(-EINVAL, mem_deregister(self->fd, h));
	h[1] ^= 1ull << 56;
	EXPECT_EQ(-EINVAL, mem_deregister(self->fd, h2));
	EXPECT_EQ(-EINVAL, mem_deregister(fd2, h));
	f[0] = h[0] ^ (1ull << 40);
	f[1] = h[1] & ~(0xffull << 56);
	f[1] |= (__u64)mh_crc(f) << 56;
	EXPECT_EQ(-EINVAL, mem_deregister(self->fd, f));
	EXPECT_EQ(0, mem_deregister(fd2, h2));
	EXPECT_EQ(0, mem_deregister(self->fd, h));

	/* CQs */
	cc.entries = 1;
	EXPECT_EQ(-EINVAL, xioctl(self->fd, KGNI_IOC_CQ_CREATE, &cc));
	cc.entries = KGNI_CQ_MAX_ENTRIES + 1;
	EXPECT_EQ(-EINVAL, xioctl(self->fd, KGNI_IOC_CQ_CREATE, &cc));
	cc.entries = 4;
	cc.cq_id = 3;
	EXPECT_EQ(-EINVAL, xioctl(self->fd, KGNI_IOC_CQ_CREATE, &cc));
	cc.cq_id = 0;
	ASSERT_EQ(0, xioctl(fd2, KGNI_IOC_CQ_CREATE, &cc));
	cd.cq_id = cc.cq_id;
	cd.reserved = 1;
	EXPECT_EQ(-EINVAL, xioctl(fd2, KGNI_IOC_CQ_DESTROY, &cd));
	cd.reserved = 0;
	EXPECT_EQ(-EINVAL, xioctl(self->fd, KGNI_IOC_CQ_DESTROY, &cd));
	cd.cq_id = 0;
	EXPECT_EQ(-EINVAL, xioctl(self->fd, KGNI_IOC_CQ_DESTROY, &cd));
	/*
	 * mmap: another file's CQ, a private map, a size.  The ring maps
	 * writable: the consumer zeroes the entries it takes.
	 */
	EXPECT_EQ(NULL, map(self->fd, cc.user_offset, PAGE, PROT_READ));
	EXPECT_EQ(EINVAL, errno);
	ring = map(fd2, cc.ring_offset, PAGE, PROT_READ | PROT_WRITE);
	ASSERT_NE(NULL, ring) TH_LOG("mmap: %s", strerror(errno));
	ring[0] = 0;
	munmap((void *)ring, PAGE);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE, fd2,
				   cc.ring_offset));
	EXPECT_EQ(NULL, map(fd2, cc.user_offset, 2 * PAGE, PROT_READ));
	EXPECT_EQ(NULL, map(fd2, 0, PAGE, PROT_READ));

	/* FMAs */
	fa.cq_id = cc.cq_id;
	EXPECT_EQ(-EINVAL, xioctl(self->fd, KGNI_IOC_FMA_ALLOC, &fa));
	ASSERT_EQ(0, xioctl(fd2, KGNI_IOC_FMA_ALLOC, &fa));
	EXPECT_EQ(NULL, map(self->fd, fa.put_uc_offset, PAGE, PROT_WRITE));
	EXPECT_EQ(NULL, map(fd2, fa.put_uc_offset, KGNI_FMA_MAP_SIZE + PAGE,
			    PROT_WRITE));
	ff.fma_id = fa.fma_id;
	EXPECT_EQ(-EINVAL, xioctl(self->fd, KGNI_IOC_FMA_FREE, &ff));
	ff.reserved = 1;
	EXPECT_EQ(-EINVAL, xioctl(fd2, KGNI_IOC_FMA_FREE, &ff));
	ff.fma_id = 64;
	ff.reserved = 0;
	EXPECT_EQ(-EINVAL, xioctl(fd2, KGNI_IOC_FMA_FREE, &ff));
	close(fd2);	/* frees its FMA and CQ */
}

/*
 * Without CAP_SYS_ADMIN, no job set-up; without CAP_IPC_LOCK, the limit,
 * for registrations and for CQ rings alike.  The job is bound to the
 * unprivileged user (and the test's cgroup, which the child stays in).
 */
#define NOBODY			65534
#define NOBODY_PTAG		0x45
#define NOBODY_COOKIE		0x5e5e0000u

TEST_F(dp, unprivileged)
{
	pid_t pid;
	int status;

	if (self->absent)
		return;
	ASSERT_EQ(0, job_configure_uid(self->fd, 0, NOBODY_PTAG, NOBODY_COOKIE,
				       NOBODY));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct rlimit rl = { 0, 0 };
		struct kgni_cq_create cq = {
			.size = sizeof(cq), .entries = 2,
		};
		__u64 h[2];
		char *a = anon(PAGE);
		int fd;

		if (!a || setrlimit(RLIMIT_MEMLOCK, &rl) ||
		    setgid(NOBODY) || setuid(NOBODY))
			_exit(10);
		fd = open(KGNI_DEV, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			_exit(11);
		if (job_configure(fd, 0, 0x44, 1) != -EPERM)
			_exit(12);
		if (cdm_attach(fd, TEST_PTAG, TEST_COOKIE, NULL) != -EPERM)
			_exit(15);
		if (cdm_attach(fd, NOBODY_PTAG, NOBODY_COOKIE, NULL))
			_exit(13);
		if (mem_register(fd, a, PAGE, 0, h) != -ENOMEM)
			_exit(14);
		if (xioctl(fd, KGNI_IOC_CQ_CREATE, &cq) != -ENOMEM)
			_exit(16);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("child status 0x%x (exit 12: JOB_CONFIGURE, 15: attach as another user, 14, 16: RLIMIT_MEMLOCK)",
		       status);
	EXPECT_EQ(0, job_configure(self->fd, KGNI_JOB_RELEASE, NOBODY_PTAG,
				   NOBODY_COOKIE));
}

/* Unmap what dp_open() mapped */
static void dp_unmap(struct dp_ctx *c)
{
	munmap((void *)c->ring, c->cq.ring_size);
	munmap((void *)c->cq_user, PAGE);
	munmap((void *)c->fma_user, PAGE);
	munmap((void *)c->put_uc, c->fma.window_size);
	munmap((void *)c->put_wc, PAGE);
	munmap((void *)c->get, PAGE);
}

/* A PUT to a PE that is no node: its sequence stays open until timeout */
static void put_nowhere(struct dp_ctx *c)
{
	fma_set(c, NO_SUCH_PE, 0, 1, 0, GEMINI_FMA_CMD_PUT);
	*(volatile __u64 *)(c->put_uc + 0) = 0x5555aaaa5555aaaaull;
	sync_ring(c, 0, 1);
}

/*
 * A file whose FMA descriptor still waits for a PUT to a PE that is no
 * node (GEMINI_FMA_TIMEOUT_MS, 2 s) closes at once: the descriptor
 * drains after the close, not under the lock every other file needs.
 * Until it has drained, its CQ's number is not given out again.
 */
TEST_F_TIMEOUT(dp, close_does_not_wait_for_fma, 60)
{
	struct kgni_cq_create cq = { .size = sizeof(cq), .entries = 16 };
	struct kgni_cq_destroy cd = { .size = sizeof(cd) };
	struct dp_ctx c;
	double t0, took;
	__u32 cq_id;
	int fd2;

	if (self->absent)
		return;
	wait_fabric(_metadata);
	fd2 = open(KGNI_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, cdm_attach(fd2, TEST_PTAG, TEST_COOKIE, NULL));
	dp_open(_metadata, fd2, &c);
	cq_id = c.cq.cq_id;
	put_nowhere(&c);
	dp_unmap(&c);
	t0 = kgni_now();
	close(fd2);
	took = kgni_now() - t0;
	EXPECT_GT(1.0, took) TH_LOG("close took %.3f s", took);
	t0 = kgni_now();
	ASSERT_EQ(0, xioctl(self->fd, KGNI_IOC_CQ_CREATE, &cq));
	took = kgni_now() - t0;
	EXPECT_GT(1.0, took) TH_LOG("CQ_CREATE took %.3f s", took);
	EXPECT_NE(cq_id, cq.cq_id);
	cd.cq_id = cq.cq_id;
	EXPECT_EQ(0, xioctl(self->fd, KGNI_IOC_CQ_DESTROY, &cd));
}

/*
 * A descriptor still busy when its drain time runs out is stuck: it
 * keeps its CQ's number for good, as a BTE orphan does, so that the CQ
 * never goes to a later owner whom its late event could reach.
 */
TEST_F_TIMEOUT(dp, stuck_fma_keeps_its_cq, 60)
{
	struct kgni_cq_create cq = { .size = sizeof(cq), .entries = 16 };
	struct kgni_cq_destroy cd = { .size = sizeof(cd) };
	struct kgni_fma_free ff = { .size = sizeof(ff) };
	struct dp_ctx c;
	long drain;

	if (self->absent)
		return;
	wait_fabric(_metadata);
	drain = kgni_read_long(PARAM_FMA_DRAIN_MS);
	ASSERT_LE(0, drain) TH_LOG("no %s", PARAM_FMA_DRAIN_MS);
	ASSERT_EQ(0, kgni_write_long(PARAM_FMA_DRAIN_MS, 0));
	dp_open(_metadata, self->fd, &c);
	put_nowhere(&c);
	dp_unmap(&c);
	ff.fma_id = c.fma.fma_id;
	EXPECT_EQ(0, xioctl(self->fd, KGNI_IOC_FMA_FREE, &ff));
	usleep(200 * 1000);	/* the drain work gives it up */
	EXPECT_EQ(0, kgni_write_long(PARAM_FMA_DRAIN_MS, drain));
	cd.cq_id = c.cq.cq_id;
	EXPECT_EQ(0, xioctl(self->fd, KGNI_IOC_CQ_DESTROY, &cd));
	/* The lowest free number would be the destroyed CQ's. */
	ASSERT_EQ(0, xioctl(self->fd, KGNI_IOC_CQ_CREATE, &cq));
	EXPECT_NE(c.cq.cq_id, cq.cq_id);
	cd.cq_id = cq.cq_id;
	EXPECT_EQ(0, xioctl(self->fd, KGNI_IOC_CQ_DESTROY, &cd));
}

/*
 * Per-job quotas: past job_fmas descriptors, job_mdds registrations or
 * job_gart GART entries the job's files get EDQUOT (uGNI's
 * GNI_RC_ERROR_RESOURCE), whichever file asks; what one frees another
 * may take.
 */
TEST_F_TIMEOUT(dp, job_quotas, 60)
{
	struct kgni_fma_alloc fa = { .size = sizeof(fa) };
	long fmas, mdds, gart;
	__u64 h[3][2] = { { 0 } }, hg[2] = { 0 };
	struct dp_ctx c;
	char *a;
	int fd2;

	if (self->absent)
		return;
	fmas = kgni_read_long(PARAM_JOB_FMAS);
	mdds = kgni_read_long(PARAM_JOB_MDDS);
	gart = kgni_read_long(PARAM_JOB_GART);
	ASSERT_TRUE(fmas >= 0 && mdds >= 0 && gart >= 0)
		TH_LOG("no quota parameters in %s", KGNI_MODULE_SYSFS);
	a = anon(8 * PAGE);
	ASSERT_NE(NULL, a);
	fd2 = open(KGNI_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, cdm_attach(fd2, TEST_PTAG, TEST_COOKIE, NULL));

	ASSERT_EQ(0, kgni_write_long(PARAM_JOB_FMAS, 1));
	dp_open(_metadata, self->fd, &c);
	fa.cq_id = c.cq.cq_id;
	EXPECT_EQ(-EDQUOT, xioctl(self->fd, KGNI_IOC_FMA_ALLOC, &fa));
	dp_unmap(&c);

	ASSERT_EQ(0, kgni_write_long(PARAM_JOB_MDDS, 2));
	EXPECT_EQ(0, mem_register(self->fd, a, PAGE, 0, h[0]));
	EXPECT_EQ(0, mem_register(fd2, a + PAGE, PAGE, 0, h[1]));
	EXPECT_EQ(-EDQUOT, mem_register(self->fd, a + 2 * PAGE, PAGE, 0, h[2]));
	EXPECT_EQ(-EDQUOT, mem_register(fd2, a + 2 * PAGE, PAGE, 0, h[2]));
	EXPECT_EQ(0, mem_deregister(fd2, h[1]));
	EXPECT_EQ(0, mem_register(self->fd, a + 2 * PAGE, PAGE, 0, h[2]));
	EXPECT_EQ(0, kgni_write_long(PARAM_JOB_MDDS, mdds));

	/* Two pages held: room for four more, not five */
	ASSERT_EQ(0, kgni_write_long(PARAM_JOB_GART, 6));
	EXPECT_EQ(-EDQUOT, mem_register(fd2, a + 3 * PAGE, 5 * PAGE,
					KGNI_MEM_USE_GART, hg));
	EXPECT_EQ(0, mem_register(fd2, a + 3 * PAGE, 4 * PAGE,
				  KGNI_MEM_USE_GART, hg));
	EXPECT_EQ(-EDQUOT, mem_register(self->fd, a + 7 * PAGE, PAGE,
					KGNI_MEM_USE_GART, h[1]));
	EXPECT_EQ(0, kgni_write_long(PARAM_JOB_GART, gart));

	EXPECT_EQ(0, kgni_write_long(PARAM_JOB_FMAS, fmas));
	EXPECT_EQ(0, xioctl(self->fd, KGNI_IOC_FMA_ALLOC, &fa));
	close(fd2);
}

/*
 * The NTT and a job configured by cgroup id (uGNI's GNI_ConfigureNTT and
 * GNI_ConfigureJob): a block whose index 1 is this NIC's PE; the job's
 * FMA PUTs and RDMA posts to index 1 land here, an index past the block
 * fails (NPES for FMA, EINVAL for a post); the job's FMA limit holds; the
 * block cannot change or be cleared while the job has it, and goes with
 * the job (KGNI_JOB_NTT_CLEANUP).
 */
#define NTT_PTAG		0x45
#define NTT_COOKIE		0x4e540000u

static int ntt_config(int fd, __u32 flags, __u32 base, __u32 n,
		      const __u32 *table, __u32 *out_base)
{
	struct kgni_ntt_config c = {
		.size = sizeof(c), .flags = flags, .base = base,
		.group_size = n, .table = (uintptr_t)table,
	};
	int ret = xioctl(fd, KGNI_IOC_NTT_CONFIG, &c);

	if (out_base)
		*out_base = c.base;
	return ret;
}

static void job_by_id(struct kgni_job_configure *j, __u64 id, __u32 base,
		      __u32 n)
{
	memset(j, 0, sizeof(*j));
	j->size = sizeof(*j);
	j->flags = KGNI_JOB_BY_ID | KGNI_JOB_LIMITS;
	j->ptag = NTT_PTAG;
	j->cookie = NTT_COOKIE;
	j->uid = KGNI_JOB_ANY_UID;
	j->job_id = id;
	j->mdd_limit = j->mrt_limit = j->gart_limit = KGNI_JOB_NO_LIMIT;
	j->bte_limit = j->cq_limit = KGNI_JOB_NO_LIMIT;
	j->fma_limit = 1;
	j->ntt_ctrl = KGNI_JOB_NTT_CLEANUP;
	j->ntt_base = (__s32)base;
	j->ntt_size = (__s32)n;
}

/* Datagrams of the NTT job: to index 1, from index 1 (a second file) */
static void ntt_dgrams(struct __test_metadata *_metadata, int fd2,
		       const struct kgni_cdm_attach *at)
{
	struct kgni_cdm_attach at3 = *at;
	struct kgni_dgram_post dp = {
		.size = sizeof(dp), .flags = KGNI_DGRAM_BOUND,
		.ep_key = 1, .peer_pe = 1, .data_len = 8,
		.buf_size = 8,
	};
	struct kgni_dgram_test t = {
		.size = sizeof(t), .timeout_ms = 10000,
	};
	__u64 d1 = 0x1111, d2 = 0x2222, r = 0;
	int fd3 = open(KGNI_DEV, O_RDWR | O_CLOEXEC);

	ASSERT_LE(0, fd3);
	at3.inst_id = 2;
	ASSERT_EQ(0, xioctl(fd3, KGNI_IOC_CDM_ATTACH, &at3));
	dp.peer_inst = 2;
	dp.data = (uintptr_t)&d1;
	ASSERT_EQ(0, xioctl(fd2, KGNI_IOC_DGRAM_POST, &dp));
	dp.peer_inst = 0;
	dp.data = (uintptr_t)&d2;
	ASSERT_EQ(0, xioctl(fd3, KGNI_IOC_DGRAM_POST, &dp));
	t.ep_key = 1;
	t.buf = (uintptr_t)&r;
	ASSERT_EQ(0, xioctl(fd2, KGNI_IOC_DGRAM_TEST, &t));
	EXPECT_EQ((__u32)KGNI_DGRAM_COMPLETED, t.state);
	EXPECT_EQ(1u, t.remote_pe) TH_LOG("the peer as an index");
	EXPECT_EQ(2u, t.remote_inst);
	EXPECT_EQ(d2, r);
	dp.peer_pe = 3;
	dp.ep_key = 2;
	EXPECT_EQ(-EINVAL, xioctl(fd3, KGNI_IOC_DGRAM_POST, &dp))
		TH_LOG("index 3 is past the block");
	close(fd3);
}

TEST_F_TIMEOUT(dp, ntt_job, 60)
{
	__u32 table[3], base, other;
	struct kgni_cdm_attach at = {
		.size = sizeof(at), .ptag = NTT_PTAG, .cookie = NTT_COOKIE,
	};
	struct kgni_fma_alloc fa = { .size = sizeof(fa) };
	struct kgni_ntt_query q = { .size = sizeof(q) };
	struct kgni_job_configure j;
	struct kgni_rdma_post p;
	__u64 ha[2], hb[2], e;
	struct dp_ctx c;
	struct bte_cq bc;
	struct stat st;
	char *a, *b;
	int fd2;

	if (self->absent)
		return;
	wait_fabric(_metadata);
	table[0] = NO_SUCH_PE;
	table[1] = self->pe;
	table[2] = NO_SUCH_PE;
	ASSERT_EQ(0, ntt_config(self->fd, 0, 0, 3, table, &base));
	/* a second block goes elsewhere; a PE over 18 bits is refused */
	ASSERT_EQ(0, ntt_config(self->fd, 0, 0, 3, table, &other));
	EXPECT_NE(base, other);
	EXPECT_EQ(0, ntt_config(self->fd, KGNI_NTT_CLEAR, other, 3, NULL,
				NULL));
	table[0] = 0x40000;
	EXPECT_EQ(-EINVAL, ntt_config(self->fd, 0, 0, 3, table, NULL));
	table[0] = NO_SUCH_PE;
	EXPECT_EQ(-EINVAL, ntt_config(self->fd, KGNI_NTT_CLEAR, base, 2, NULL,
				      NULL)) TH_LOG("not a block");

	/* the fixture's cgroup: its id is its directory's inode number */
	ASSERT_EQ(0, stat(TEST_CGROUP, &st));
	job_by_id(&j, 0x7fffffffffffull, base, 3);
	EXPECT_EQ(-ENOENT, xioctl(self->fd, KGNI_IOC_JOB_CONFIGURE, &j));
	job_by_id(&j, st.st_ino, base + 1, 3);
	EXPECT_EQ(-ENXIO, xioctl(self->fd, KGNI_IOC_JOB_CONFIGURE, &j));
	job_by_id(&j, st.st_ino, base, 3);
	ASSERT_EQ(0, xioctl(self->fd, KGNI_IOC_JOB_CONFIGURE, &j));
	/* the same job again: limits only; its block cannot change */
	EXPECT_EQ(0, xioctl(self->fd, KGNI_IOC_JOB_CONFIGURE, &j));
	job_by_id(&j, st.st_ino, base, 2);
	EXPECT_EQ(-EOPNOTSUPP, xioctl(self->fd, KGNI_IOC_JOB_CONFIGURE, &j));
	EXPECT_EQ(-EBUSY, ntt_config(self->fd, KGNI_NTT_CLEAR, base, 3, NULL,
				     NULL)) TH_LOG("the job uses it");
	/* another cookie for the ptag: the job's, EBUSY */
	job_by_id(&j, st.st_ino, base, 3);
	j.cookie++;
	EXPECT_EQ(-EBUSY, xioctl(self->fd, KGNI_IOC_JOB_CONFIGURE, &j));

	fd2 = open(KGNI_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, xioctl(fd2, KGNI_IOC_CDM_ATTACH, &at));
	EXPECT_EQ(self->pe, at.nic_pe);
	a = anon(PAGE);
	b = anon(PAGE);
	ASSERT_TRUE(a && b);
	ASSERT_EQ(0, mem_register(fd2, a, PAGE, 0, ha));
	ASSERT_EQ(0, mem_register(fd2, b, PAGE, 0, hb));
	dp_open(_metadata, fd2, &c);
	fa.cq_id = c.cq.cq_id;
	EXPECT_EQ(-EDQUOT, xioctl(fd2, KGNI_IOC_FMA_ALLOC, &fa))
		TH_LOG("the job's FMA limit is 1");

	/* FMA: index 1 is this NIC */
	fma_set(&c, 1, 0, MH_MDH(ha), MH_MDH(hb), GEMINI_FMA_CMD_PUT);
	*(volatile __u64 *)(c.put_uc + 8) = 0x4e54545f50555421ull;
	e = sync_wait(_metadata, &c, 5);
	EXPECT_EQ((__u64)GEMINI_STATUS_OK,
		  e >> GEMINI_CQE_STATUS_SHIFT & GEMINI_CQE_STATUS_MASK)
		TH_LOG("CQ entry 0x%016llx", (unsigned long long)e);
	EXPECT_EQ(0x4e54545f50555421ull, *(volatile __u64 *)(a + 8));
	/* index 3 is past the block */
	fma_set(&c, 3, 0, MH_MDH(ha), MH_MDH(hb), GEMINI_FMA_CMD_PUT);
	*(volatile __u64 *)(c.put_uc + 16) = 1;
	e = sync_wait(_metadata, &c, 6);
	EXPECT_EQ((__u64)GEMINI_STATUS_NPES,
		  e >> GEMINI_CQE_STATUS_SHIFT & GEMINI_CQE_STATUS_MASK)
		TH_LOG("CQ entry 0x%016llx", (unsigned long long)e);
	EXPECT_EQ(0ull, *(volatile __u64 *)(a + 16));

	/* RDMA: the same indices */
	bte_cq_open(_metadata, fd2, &bc);
	memset(b, 0x5a, 256);
	rdma_fill(&p, KGNI_RDMA_PUT, 1, bc.cq.cq_id, (uintptr_t)b, hb,
		  (uintptr_t)a + 1024, ha, 256);
	p.events = KGNI_RDMA_EV_LOCAL;
	p.local_data = 7;
	ASSERT_EQ(0, rdma_post(fd2, &p));
	e = bte_event(&bc);
	EXPECT_BTE_EVENT(e, GEMINI_STATUS_OK, 7);
	EXPECT_EQ(0, memcmp(a + 1024, b, 256));
	rdma_fill(&p, KGNI_RDMA_PUT, 3, bc.cq.cq_id, (uintptr_t)b, hb,
		  (uintptr_t)a, ha, 8);
	EXPECT_EQ(-EINVAL, rdma_post(fd2, &p));

	ntt_dgrams(_metadata, fd2, &at);
	close(fd2);

	/* released: the block went with the job */
	EXPECT_EQ(0, xioctl(self->fd, KGNI_IOC_NTT_QUERY, &q));
	EXPECT_EQ(0u, q.gran);
	EXPECT_EQ(0, job_configure(self->fd, KGNI_JOB_RELEASE, NTT_PTAG,
				   NTT_COOKIE));
	EXPECT_EQ(-EINVAL, ntt_config(self->fd, KGNI_NTT_CLEAR, base, 3, NULL,
				      NULL));
	EXPECT_EQ(0, ntt_config(self->fd, KGNI_NTT_CLEAR_UNUSED, 0, 0, NULL,
				NULL));
	munmap(a, PAGE);
	munmap(b, PAGE);
}

TEST_HARNESS_MAIN
