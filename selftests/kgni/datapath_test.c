// SPDX-License-Identifier: GPL-2.0-only
/*
 * datapath_test: the OS-bypass data path on one node.
 *
 * As root: allow a job's (ptag, cookie), attach, register memory, make a
 * CQ, take an FMA descriptor and map its pages; then PUT into the
 * registered buffer through the PUT windows and GET out of it through the
 * GET window, both to this node's own PE (the request leaves the NIC,
 * crosses the router and comes back), each sequence ended by a sync whose
 * local event is read from the mapped CQ ring.  Plus the ABI checks of the
 * new ioctls, the release of everything on close, and the kernel log.
 */
#include <signal.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "kgni_test.h"
#include "kgni_ioctl.h"
#include "gemini_nic.h"
#include "gemini_pkt.h"

#define TEST_PTAG		0x42
#define TEST_COOKIE		0x1234abcdu
#define FABRIC_READY_TIMEOUT_S	30
#define EVENT_TIMEOUT_S		5
#define PAGE			4096

/* The uGNI memory handle, version 1 (spec: ugni-api.md section 18) */
#define MH_MDH(h)		((unsigned int)((h)[0] >> 52))
#define MH_VA(h)		(((h)[0] & 0x000fffffffffffffull) << 12)
#define MH_NPAGES(h)		((h)[1] & 0xfffffff)
#define MH_PSHIFT(h)		(((h)[1] >> 28) & 0x3f)
#define MH_FLAGS(h)		(((h)[1] >> 34) & 0xff)
#define MH_CRC(h)		((unsigned int)((h)[1] >> 56))

static int xioctl(int fd, unsigned long req, void *arg)
{
	return ioctl(fd, req, arg) ? -errno : 0;
}

/* CRC-8/MAXIM, table form, from the spec's constants */
static uint8_t mh_crc(const __u64 h[2])
{
	static const uint8_t bit[8] = {
		0x5e, 0xbc, 0x61, 0xc2, 0x9d, 0x23, 0x46, 0x8c,
	};
	uint8_t crc = 0, b, t;
	int i, k;

	for (i = 0; i < 15; i++) {
		b = i < 8 ? h[0] >> (8 * i) : h[1] >> (8 * (i - 8));
		b ^= crc;
		for (t = 0, k = 0; k < 8; k++)
			if (b & (1u << k))
				t ^= bit[k];
		crc = t;
	}
	return crc;
}

static int job_configure(int fd, __u32 flags, __u32 ptag, __u32 cookie)
{
	struct kgni_job_configure j = {
		.size = sizeof(j), .flags = flags, .ptag = ptag,
		.cookie = cookie,
	};

	return xioctl(fd, KGNI_IOC_JOB_CONFIGURE, &j);
}

static int cdm_attach(int fd, __u32 ptag, __u32 cookie, __u32 *pe)
{
	struct kgni_cdm_attach a = {
		.size = sizeof(a), .ptag = ptag, .cookie = cookie, .inst_id = 7,
	};
	int ret = xioctl(fd, KGNI_IOC_CDM_ATTACH, &a);

	if (!ret && pe)
		*pe = a.nic_pe;
	return ret;
}

static int mem_register(int fd, void *addr, size_t len, __u32 flags,
			__u64 h[2])
{
	struct kgni_mem_register r = {
		.size = sizeof(r), .flags = flags,
		.addr = (uintptr_t)addr, .len = len,
	};
	int ret = xioctl(fd, KGNI_IOC_MEM_REGISTER, &r);

	if (!ret) {
		h[0] = r.mem_hndl[0];
		h[1] = r.mem_hndl[1];
	}
	return ret;
}

static int mem_deregister(int fd, const __u64 h[2])
{
	struct kgni_mem_deregister d = {
		.size = sizeof(d), .mem_hndl = { h[0], h[1] },
	};

	return xioctl(fd, KGNI_IOC_MEM_DEREGISTER, &d);
}

static void *page_buf(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	memset(p, 0, len);
	return p;
}

static void wait_fabric(struct __test_metadata *_metadata)
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

FIXTURE(dp) {
	bool absent;
	int fd;
	int kmsg;
	__u32 pe;
};

FIXTURE_SETUP(dp)
{
	self->fd = -1;
	self->kmsg = -1;
	if (!kgni_require_device(_metadata)) {
		self->absent = true;
		return;
	}
	if (geteuid() != 0) {
		self->absent = true;
		SKIP(return, "needs root (KGNI_IOC_JOB_CONFIGURE)");
	}
	self->kmsg = kgni_kmsg_open(true);
	ASSERT_LE(0, self->kmsg) TH_LOG("/dev/kmsg: %s", strerror(errno));
	self->fd = open(KGNI_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %s", KGNI_DEV, strerror(errno));
	ASSERT_EQ(0, job_configure(self->fd, 0, TEST_PTAG, TEST_COOKIE));
	ASSERT_EQ(0, cdm_attach(self->fd, TEST_PTAG, TEST_COOKIE, &self->pe));
}

FIXTURE_TEARDOWN(dp)
{
	char text[1024];
	unsigned int splats = 0;

	if (self->absent)
		return;
	if (self->fd >= 0)
		close(self->fd);
	if (self->kmsg < 0)
		return;
	while (kgni_kmsg_next(self->kmsg, text, sizeof(text))) {
		if (kgni_kmsg_is_splat(text)) {
			TH_LOG("kernel: %s", text);
			splats++;
		}
	}
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

static void *map(int fd, __u64 off, size_t len, int prot)
{
	void *p = mmap(NULL, len, prot, MAP_SHARED, fd, off);

	return p == MAP_FAILED ? NULL : p;
}

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

/* Sync with a local event; wait for it in the ring, consume it. */
static __u64 sync_wait(struct __test_metadata *_metadata, struct dp_ctx *c,
		       __u64 data)
{
	double deadline = kgni_now() + EVENT_TIMEOUT_S;
	unsigned int slot = c->next;
	__u64 e;

	c->fma_user[GEMINI_FMA_QW_SYNCCMP / 8] =
		(__u64)GEMINI_FMA_SYNC_LOCAL_EVENT << GEMINI_FMA_SYNC_TYPE_SHIFT |
		data;
	while (!((e = c->ring[slot]) >> GEMINI_CQE_SOURCE_SHIFT &
		 GEMINI_CQE_SOURCE_MASK) && kgni_now() < deadline)
		usleep(1000);
	c->next = (slot + 1) % c->cq.entries;
	/* the consumer's progress, without a syscall */
	c->cq_user[0] = c->next;
	return e;
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
	a = page_buf(PAGE);
	b = page_buf(PAGE);
	ASSERT_TRUE(a && b);
	ASSERT_EQ(0, mem_register(self->fd, a, PAGE, 0, ha));
	ASSERT_EQ(0, mem_register(self->fd, b, PAGE, 0, hb));
	/* The handle: layout and CRC of uGNI's version 1 */
	EXPECT_EQ((__u64)(uintptr_t)a, MH_VA(ha));
	EXPECT_EQ(1u, MH_NPAGES(ha));
	EXPECT_EQ(12u, MH_PSHIFT(ha));
	EXPECT_EQ(0u, MH_FLAGS(ha));
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
		char *r = page_buf(PAGE);

		ASSERT_NE(NULL, r);
		ASSERT_EQ(0, mem_register(self->fd, r, PAGE,
					  KGNI_MEM_READONLY, hr));
		EXPECT_EQ(0x01u, MH_FLAGS(hr));
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
	a = page_buf(PAGE);
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

struct abi_cmd {
	const char *name;
	unsigned long req;
	size_t size;
};

static const struct abi_cmd abi_cmds[] = {
	{ "JOB_CONFIGURE", KGNI_IOC_JOB_CONFIGURE,
	  sizeof(struct kgni_job_configure) },
	{ "CDM_ATTACH", KGNI_IOC_CDM_ATTACH, sizeof(struct kgni_cdm_attach) },
	{ "MEM_REGISTER", KGNI_IOC_MEM_REGISTER,
	  sizeof(struct kgni_mem_register) },
	{ "MEM_DEREGISTER", KGNI_IOC_MEM_DEREGISTER,
	  sizeof(struct kgni_mem_deregister) },
	{ "CQ_CREATE", KGNI_IOC_CQ_CREATE, sizeof(struct kgni_cq_create) },
	{ "CQ_DESTROY", KGNI_IOC_CQ_DESTROY, sizeof(struct kgni_cq_destroy) },
	{ "FMA_ALLOC", KGNI_IOC_FMA_ALLOC, sizeof(struct kgni_fma_alloc) },
	{ "FMA_FREE", KGNI_IOC_FMA_FREE, sizeof(struct kgni_fma_free) },
};

TEST_F(dp, abi_size_flags_pointers)
{
	static __u8 buf[4096 + 64];
	unsigned int i, j;

	if (self->absent)
		return;
	for (i = 0; i < ARRAY_SIZE(abi_cmds); i++) {
		const struct abi_cmd *c = &abi_cmds[i];
		const size_t sizes[] = { 0, 4, 8, c->size - 1 };
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
	char *a;
	int fd2, r;

	if (self->absent)
		return;
	a = page_buf(2 * PAGE);
	ASSERT_NE(NULL, a);

	/* jobs and CDMs */
	EXPECT_EQ(-EINVAL, job_configure(self->fd, 0, 0, 1));
	EXPECT_EQ(-EINVAL, job_configure(self->fd, 0, 256, 1));
	EXPECT_EQ(0, job_configure(self->fd, 0, TEST_PTAG, TEST_COOKIE));
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
	/* two pages: contiguous or not, never anything else */
	r = mem_register(self->fd, a, 2 * PAGE, 0, h);
	EXPECT_TRUE(r == 0 || r == -EXDEV) TH_LOG("ret %d", r);
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
	/* mmap: another file's CQ, a writable ring, a private map, a size */
	EXPECT_EQ(NULL, map(self->fd, cc.user_offset, PAGE, PROT_READ));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(NULL, map(fd2, cc.ring_offset, PAGE, PROT_READ | PROT_WRITE));
	EXPECT_EQ(EPERM, errno);
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

/* Without CAP_SYS_ADMIN, no job set-up; without CAP_IPC_LOCK, the limit. */
TEST_F(dp, unprivileged)
{
	pid_t pid;
	int status;

	if (self->absent)
		return;
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct rlimit rl = { 0, 0 };
		__u64 h[2];
		char *a = page_buf(PAGE);
		int fd;

		if (!a || setrlimit(RLIMIT_MEMLOCK, &rl) ||
		    setgid(65534) || setuid(65534))
			_exit(10);
		fd = open(KGNI_DEV, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			_exit(11);
		if (job_configure(fd, 0, 0x44, 1) != -EPERM)
			_exit(12);
		if (cdm_attach(fd, TEST_PTAG, TEST_COOKIE, NULL))
			_exit(13);
		if (mem_register(fd, a, PAGE, 0, h) != -ENOMEM)
			_exit(14);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("child status 0x%x (exit 12: JOB_CONFIGURE, 14: RLIMIT_MEMLOCK)",
		       status);
}

TEST_HARNESS_MAIN
