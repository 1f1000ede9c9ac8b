// SPDX-License-Identifier: GPL-2.0-only
/*
 * abi_torture_test: every ioctl of /dev/kgni0 against the errno table of
 * uapi/kgni_ioctl.h's "General ioctl format" block, beyond what
 * datapath_test checks (its sizes 0, 4, 8 and sizeof - 1, a set tail
 * byte, size 4097, flag bit 31 and NULL for the data-path commands):
 *
 *  - every command, KGNI_IOC_CQ_WAIT and the diagnostic and counter ones
 *    included: a larger @size with a zero tail (sizeof + 8 and 4096) is
 *    accepted; every unknown @flags bit alone is EINVAL; the argument
 *    unmapped, in the kernel, or cut by an unmapped page after its
 *    @size is EFAULT; and, for the commands datapath_test does not do,
 *    the short, long and NULL cases;
 *  - KGNI_IOC_MEM_REGISTER of the first version's size (before @cq_id)
 *    is accepted, one byte less is not;
 *  - reserved fields, ids out of range (KGNI_IOC_JOB_CONFIGURE's ptags
 *    outside 3 to 253 among them), ids of no object and of another
 *    file's objects, embedded user pointers that cannot be used;
 *  - KGNI_IOC_CQ_WAIT: polled CQ, time-out, signal, CQ destroyed while
 *    waiting;
 *  - KGNI_IOC_RDMA_POST: every field out of range, out fields set, bad
 *    type, events and delivery bits, misaligned GETs, FENCE without
 *    SINGLE_CHANNEL, lengths 0 and too long, local ranges outside the
 *    registration, another file's or forged handles and CQs, remote
 *    handles of the wrong format, EACCES for writes into read-only
 *    memory, EPERM without a CDM, ENOSPC past a file's posts in flight;
 *  - KGNI_IOC_MEM_REGISTER_SEGMENTS: segment counts, the page-boundary
 *    rules, lengths, the page limit, unreadable arrays and memory;
 *  - vMDH registrations (KGNI_MEM_VMDH): the index and block fields
 *    without the flag and out of range, the MDD an index takes, an index
 *    taken (by another file too), KGNI_VMDH_ANY and a full block;
 *  - KGNI_IOC_MEM_QUERY: the walk of a file's registrations in order with
 *    their address and length, after a deregistration, without a CDM;
 *    handles of nobody, of another file, with a bad CRC; out fields set;
 *  - KGNI_IOC_NTT_QUERY: its fields, and the granularity 0;
 *  - KGNI_IOC_NTT_CONFIG: generically (datapath_test.ntt_job uses it);
 *  - KGNI_IOC_BI_CONFIG: generically (the guest job ugni_bi uses it);
 *  - KGNI_IOC_JOB_SUSPEND and _RESUME: their fields, unknown jobs, a
 *    caller without CAP_SYS_ADMIN, EALREADY both ways, a child's access
 *    to an FMA page and its RDMA post waiting while the job is suspended
 *    (the access goes on after the resume), a new FMA mapping refused
 *    (EAGAIN), releasing a suspended job;
 *  - KGNI_IOC_ERR_*: every field, ids of nobody and of another file, a
 *    file without a CDM, use after release, EBUSY while a child waits,
 *    EINTR, EFAULT, the events injected through debugfs by ptag, the
 *    coalescing timeout, a full queue, KGNI_IOC_ERR_PTAG unprivileged,
 *    a file's limit, files closed with subscriptions alive;
 *  - unknown command numbers around and inside the range (and kgni's
 *    numbers with another magic, direction or size) are ENOTTY;
 *  - another process cannot mmap this file's CQ and FMA offsets through
 *    its own file;
 *  - the user alias page of an FMA descriptor does not let user space
 *    change the privileged fields (ptag, CQ, NTT, PE base, enable) nor
 *    the privilege mask;
 *  - no kernel splat in the log, after each test and for the whole run
 *    (the last test reads it from the boot on).
 *
 * KGNI_IOC_COUNTER_SNAPSHOT with @count 0 "succeeds" with EMSGSIZE and
 * the sizes (Documentation/abi.rst); a kernel address where a user one
 * belongs is out of range (EINVAL), as in datapath_test.
 */
#include <setjmp.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>

#include "kgni_test.h"
#include "kgni_ioctl.h"
#include "kgni_dp.h"
#include "gemini_nic.h"
#include "gemini_mh.h"

#define TEST_PTAG		0x52
#define TEST_COOKIE		0x5eed0000u
#define OTHER_PTAG		0x53
#define PAGE			4096
#define KERNEL_PTR		((void *)0xffffffff81000000ul)

static int cq_create(int fd, __u32 flags, __u32 entries,
		     struct kgni_cq_create *cc)
{
	memset(cc, 0, sizeof(*cc));
	cc->size = sizeof(*cc);
	cc->flags = flags;
	cc->entries = entries;
	return xioctl(fd, KGNI_IOC_CQ_CREATE, cc);
}

static int cq_destroy(int fd, __u32 id)
{
	struct kgni_cq_destroy d = { .size = sizeof(d), .cq_id = id };

	return xioctl(fd, KGNI_IOC_CQ_DESTROY, &d);
}

static int cq_wait(int fd, __u32 id, __u32 timeout_ms)
{
	struct kgni_cq_wait w = {
		.size = sizeof(w), .cq_id = id, .timeout_ms = timeout_ms,
	};

	return xioctl(fd, KGNI_IOC_CQ_WAIT, &w);
}

static int fma_alloc(int fd, __u32 cq_id, struct kgni_fma_alloc *fa)
{
	memset(fa, 0, sizeof(*fa));
	fa->size = sizeof(*fa);
	fa->cq_id = cq_id;
	return xioctl(fd, KGNI_IOC_FMA_ALLOC, fa);
}

static int fma_free(int fd, __u32 id)
{
	struct kgni_fma_free f = { .size = sizeof(f), .fma_id = id };

	return xioctl(fd, KGNI_IOC_FMA_FREE, &f);
}

/* KGNI_IOC_JOB_SUSPEND or _RESUME (@req) of (@ptag, @cookie) */
static int job_suspend(int fd, unsigned long req, __u32 ptag, __u32 cookie,
		       __u32 timeout_ms)
{
	struct kgni_job_suspend s = {
		.size = sizeof(s), .job_id = 1, .ptag = ptag, .cookie = cookie,
		.timeout_ms = timeout_ms,
	};

	return xioctl(fd, req, &s);
}

FIXTURE(abi) {
	bool absent;
	int fd;		/* attached to (TEST_PTAG, TEST_COOKIE) */
	int kmsg;
	char *page;	/* a page of memory to register */
};

FIXTURE_SETUP(abi)
{
	if (!kgni_fixture_setup(_metadata, KGNI_FIXTURE_ROOT, &self->absent,
				&self->kmsg, &self->fd))
		return;
	ASSERT_EQ(0, job_configure(self->fd, 0, TEST_PTAG, TEST_COOKIE));
	ASSERT_EQ(0, cdm_attach(self->fd, TEST_PTAG, TEST_COOKIE, NULL));
	self->page = anon(PAGE);
	ASSERT_NE(NULL, self->page);
}

FIXTURE_TEARDOWN(abi)
{
	unsigned int splats = 0;
	int fd;

	if (self->absent)
		return;
	if (self->fd >= 0)
		close(self->fd);
	fd = open(KGNI_DEV, O_RDWR | O_CLOEXEC);
	if (fd >= 0) {
		job_configure(fd, KGNI_JOB_RELEASE, TEST_PTAG, TEST_COOKIE);
		close(fd);
	}
	if (self->kmsg < 0)
		return;
	splats = kgni_kmsg_splats(_metadata, self->kmsg);
	close(self->kmsg);
	EXPECT_EQ(0u, splats);
}

/* --- every command, generically -------------------------------------- */

enum cmd_id {
	C_DIAG_PING, C_COUNTER_READ, C_COUNTER_SNAPSHOT, C_JOB_CONFIGURE,
	C_CDM_ATTACH, C_MEM_REGISTER, C_MEM_DEREGISTER, C_CQ_CREATE,
	C_CQ_DESTROY, C_FMA_ALLOC, C_FMA_FREE, C_CQ_WAIT, C_RDMA_POST,
	C_MEM_REGISTER_SEGMENTS, C_DGRAM_POST, C_DGRAM_TEST, C_DGRAM_PROBE,
	C_DGRAM_CANCEL, C_MEM_QUERY, C_NTT_QUERY, C_JOB_SUSPEND, C_JOB_RESUME,
	C_ERR_SUBSCRIBE, C_ERR_RELEASE, C_ERR_MASK, C_ERR_WAIT, C_ERR_PTAG,
	C_NTT_CONFIG, C_BI_CONFIG, C_NUM
};

/*
 * Past kgni's last command number: the numbers from KGNI_CMD_BASE to it
 * that no entry of cmds[] has are unknown too
 */
#define LAST_CMD		0xa8

struct cmd {
	const char *name;
	unsigned long req;
	size_t size;		/* sizeof, this header */
	size_t first;		/* the first version's size */
	__u32 flags;		/* the flags it knows */
	bool in_datapath;	/* datapath_test does the basic cases */
};

static const struct cmd cmds[C_NUM] = {
	[C_DIAG_PING] = { "DIAG_PING", KGNI_IOC_DIAG_PING,
		sizeof(struct kgni_diag_ping), sizeof(struct kgni_diag_ping),
		0, false },
	[C_COUNTER_READ] = { "COUNTER_READ", KGNI_IOC_COUNTER_READ,
		sizeof(struct kgni_counter_read),
		sizeof(struct kgni_counter_read), KGNI_COUNTER_BY_NAME, false },
	[C_COUNTER_SNAPSHOT] = { "COUNTER_SNAPSHOT", KGNI_IOC_COUNTER_SNAPSHOT,
		sizeof(struct kgni_counter_snapshot),
		sizeof(struct kgni_counter_snapshot), 0, false },
	[C_JOB_CONFIGURE] = { "JOB_CONFIGURE", KGNI_IOC_JOB_CONFIGURE,
		sizeof(struct kgni_job_configure),
		offsetof(struct kgni_job_configure, job_id),
		KGNI_JOB_RELEASE | KGNI_JOB_BY_ID | KGNI_JOB_LIMITS, true },
	[C_CDM_ATTACH] = { "CDM_ATTACH", KGNI_IOC_CDM_ATTACH,
		sizeof(struct kgni_cdm_attach), sizeof(struct kgni_cdm_attach),
		0, true },
	[C_MEM_REGISTER] = { "MEM_REGISTER", KGNI_IOC_MEM_REGISTER,
		sizeof(struct kgni_mem_register),
		offsetof(struct kgni_mem_register, cq_id),
		KGNI_MEM_READONLY | KGNI_MEM_USE_GART | KGNI_MEM_VMDH,
		true },
	[C_MEM_DEREGISTER] = { "MEM_DEREGISTER", KGNI_IOC_MEM_DEREGISTER,
		sizeof(struct kgni_mem_deregister),
		sizeof(struct kgni_mem_deregister), 0, true },
	[C_CQ_CREATE] = { "CQ_CREATE", KGNI_IOC_CQ_CREATE,
		sizeof(struct kgni_cq_create), sizeof(struct kgni_cq_create),
		KGNI_CQ_BLOCKING, true },
	[C_CQ_DESTROY] = { "CQ_DESTROY", KGNI_IOC_CQ_DESTROY,
		sizeof(struct kgni_cq_destroy), sizeof(struct kgni_cq_destroy),
		0, true },
	[C_FMA_ALLOC] = { "FMA_ALLOC", KGNI_IOC_FMA_ALLOC,
		sizeof(struct kgni_fma_alloc), sizeof(struct kgni_fma_alloc),
		0, true },
	[C_FMA_FREE] = { "FMA_FREE", KGNI_IOC_FMA_FREE,
		sizeof(struct kgni_fma_free), sizeof(struct kgni_fma_free), 0,
		true },
	[C_CQ_WAIT] = { "CQ_WAIT", KGNI_IOC_CQ_WAIT,
		sizeof(struct kgni_cq_wait), sizeof(struct kgni_cq_wait), 0,
		false },
	[C_RDMA_POST] = { "RDMA_POST", KGNI_IOC_RDMA_POST,
		sizeof(struct kgni_rdma_post), sizeof(struct kgni_rdma_post),
		KGNI_RDMA_FENCE | KGNI_RDMA_SINGLE_CHANNEL, true },
	[C_MEM_REGISTER_SEGMENTS] = { "MEM_REGISTER_SEGMENTS",
		KGNI_IOC_MEM_REGISTER_SEGMENTS,
		sizeof(struct kgni_mem_register_segments),
		offsetof(struct kgni_mem_register_segments, vmdh_index),
		KGNI_MEM_READONLY | KGNI_MEM_VMDH, true },
	[C_DGRAM_POST] = { "DGRAM_POST", KGNI_IOC_DGRAM_POST,
		sizeof(struct kgni_dgram_post), sizeof(struct kgni_dgram_post),
		KGNI_DGRAM_BOUND, false },
	[C_DGRAM_TEST] = { "DGRAM_TEST", KGNI_IOC_DGRAM_TEST,
		sizeof(struct kgni_dgram_test), sizeof(struct kgni_dgram_test),
		KGNI_DGRAM_BY_ID, false },
	[C_DGRAM_PROBE] = { "DGRAM_PROBE", KGNI_IOC_DGRAM_PROBE,
		sizeof(struct kgni_dgram_probe),
		sizeof(struct kgni_dgram_probe), 0, false },
	[C_DGRAM_CANCEL] = { "DGRAM_CANCEL", KGNI_IOC_DGRAM_CANCEL,
		sizeof(struct kgni_dgram_cancel),
		sizeof(struct kgni_dgram_cancel), KGNI_DGRAM_BY_ID, false },
	[C_MEM_QUERY] = { "MEM_QUERY", KGNI_IOC_MEM_QUERY,
		sizeof(struct kgni_mem_query), sizeof(struct kgni_mem_query),
		0, false },
	[C_NTT_QUERY] = { "NTT_QUERY", KGNI_IOC_NTT_QUERY,
		sizeof(struct kgni_ntt_query), sizeof(struct kgni_ntt_query),
		0, false },
	[C_JOB_SUSPEND] = { "JOB_SUSPEND", KGNI_IOC_JOB_SUSPEND,
		sizeof(struct kgni_job_suspend),
		sizeof(struct kgni_job_suspend), 0, false },
	[C_JOB_RESUME] = { "JOB_RESUME", KGNI_IOC_JOB_RESUME,
		sizeof(struct kgni_job_suspend),
		sizeof(struct kgni_job_suspend), 0, false },
	[C_ERR_SUBSCRIBE] = { "ERR_SUBSCRIBE", KGNI_IOC_ERR_SUBSCRIBE,
		sizeof(struct kgni_err_subscribe),
		sizeof(struct kgni_err_subscribe), KGNI_ERR_ALL_PTAGS, false },
	[C_ERR_RELEASE] = { "ERR_RELEASE", KGNI_IOC_ERR_RELEASE,
		sizeof(struct kgni_err_release),
		sizeof(struct kgni_err_release), 0, false },
	[C_ERR_MASK] = { "ERR_MASK", KGNI_IOC_ERR_MASK,
		sizeof(struct kgni_err_mask), sizeof(struct kgni_err_mask),
		KGNI_ERR_MASK_SET, false },
	[C_ERR_WAIT] = { "ERR_WAIT", KGNI_IOC_ERR_WAIT,
		sizeof(struct kgni_err_wait), sizeof(struct kgni_err_wait),
		KGNI_ERR_WAIT_BLOCK, false },
	[C_ERR_PTAG] = { "ERR_PTAG", KGNI_IOC_ERR_PTAG,
		sizeof(struct kgni_err_ptag), sizeof(struct kgni_err_ptag), 0,
		false },
	[C_NTT_CONFIG] = { "NTT_CONFIG", KGNI_IOC_NTT_CONFIG,
		sizeof(struct kgni_ntt_config), sizeof(struct kgni_ntt_config),
		KGNI_NTT_CLEAR | KGNI_NTT_CLEAR_UNUSED, false },
	[C_BI_CONFIG] = { "BI_CONFIG", KGNI_IOC_BI_CONFIG,
		sizeof(struct kgni_bi_config), sizeof(struct kgni_bi_config),
		KGNI_BI_SET, false },
};

/* Whether _IO('G', @nr) is one of kgni's commands */
static bool known_nr(unsigned int nr)
{
	unsigned int c;

	for (c = 0; c < C_NUM; c++)
		if (_IOC_NR(cmds[c].req) == nr)
			return true;
	return false;
}

/* Objects the valid requests below name, made per test */
struct objs {
	int fd2;		/* a fresh file, for CDM_ATTACH */
	__u64 h[2];		/* a registration, for MEM_DEREGISTER */
	__u32 cq;		/* a CQ, for CQ_DESTROY */
	__u32 bcq;		/* a blocking CQ, for CQ_WAIT and FMA_ALLOC */
	__u32 fma;		/* a descriptor, for FMA_FREE */
	__u32 pe;		/* this NIC's PE, for DIAG_PING and RDMA_POST */
	__u32 err;		/* an error subscription, for ERR_* */
};

/* KGNI_IOC_ERR_SUBSCRIBE on @fd: 0 or -errno, the id in *@id */
static int err_subscribe(int fd, __u32 flags, __u32 mask, __u32 eeq,
			 __u32 *id)
{
	struct kgni_err_subscribe s = {
		.size = sizeof(s), .flags = flags, .mask = mask,
		.eeq_size = eeq,
	};
	int ret = xioctl(fd, KGNI_IOC_ERR_SUBSCRIBE, &s);

	*id = s.id;
	return ret;
}

static int err_release(int fd, __u32 id)
{
	struct kgni_err_release r = { .size = sizeof(r), .id = id };

	return xioctl(fd, KGNI_IOC_ERR_RELEASE, &r);
}

/* KGNI_IOC_ERR_WAIT into @ev (@n events); the count in *@got */
static int err_wait(int fd, __u32 id, __u32 flags, void *ev, __u32 n,
		    __u32 timeout_ms, __u32 *got, __u32 *state)
{
	struct kgni_err_wait w = {
		.size = sizeof(w), .flags = flags, .id = id, .events_size = n,
		.timeout_ms = timeout_ms, .events = (uintptr_t)ev,
	};
	int ret = xioctl(fd, KGNI_IOC_ERR_WAIT, &w);

	*got = w.num_events;
	if (state)
		*state = w.state;
	return ret;
}

static void objs_make(struct __test_metadata *_metadata, int fd, char *page,
		      struct objs *o)
{
	struct kgni_cq_create cc;
	struct kgni_fma_alloc fa;
	struct kgni_cdm_attach a = {
		.size = sizeof(a), .ptag = TEST_PTAG, .cookie = TEST_COOKIE,
	};

	o->fd2 = open(KGNI_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, o->fd2);
	ASSERT_EQ(0, mem_register_cq(fd, page, PAGE, 0, 0, o->h));
	ASSERT_EQ(0, cq_create(fd, 0, 4, &cc));
	o->cq = cc.cq_id;
	ASSERT_EQ(0, cq_create(fd, KGNI_CQ_BLOCKING, 4, &cc));
	o->bcq = cc.cq_id;
	ASSERT_EQ(0, err_subscribe(fd, 0, KGNI_ERR_MASK_ALL, 4, &o->err));
	ASSERT_EQ(0, fma_alloc(fd, o->bcq, &fa));
	o->fma = fa.fma_id;
	/* the PE: attach a throw-away file */
	{
		int t = open(KGNI_DEV, O_RDWR | O_CLOEXEC);

		ASSERT_LE(0, t);
		ASSERT_EQ(0, xioctl(t, KGNI_IOC_CDM_ATTACH, &a));
		o->pe = a.nic_pe;
		close(t);
	}
}

/*
 * A valid request of command @c in @buf (zeroed by the caller, @size
 * already set), naming the objects of @o.
 */
static int valid_request(enum cmd_id c, void *buf, const struct objs *o,
			 char *page, int *fd)
{
	switch (c) {
	case C_DIAG_PING: {
		struct kgni_diag_ping *p = buf;

		p->dest = GEMINI_PE_GEMINI_ID(o->pe);
		p->len = 0;
		break;
	}
	case C_COUNTER_READ: {
		struct kgni_counter_read *p = buf;

		p->block = KGNI_PORT_NIC;
		p->index = 0;
		break;
	}
	case C_COUNTER_SNAPSHOT:
		break;			/* count 0: the sizes, EMSGSIZE */
	case C_JOB_CONFIGURE: {
		struct kgni_job_configure *p = buf;

		static int cgroup_fd = -1;

		p->ptag = OTHER_PTAG;
		p->cookie = 77;
		if (cgroup_fd < 0)
			cgroup_fd = open(TEST_CGROUP, O_RDONLY | O_DIRECTORY |
					 O_CLOEXEC);
		p->cgroup_fd = cgroup_fd;
		p->uid = getuid();
		break;
	}
	case C_CDM_ATTACH: {
		struct kgni_cdm_attach *p = buf;

		p->ptag = TEST_PTAG;
		p->cookie = TEST_COOKIE;
		*fd = o->fd2;
		break;
	}
	case C_MEM_REGISTER: {
		struct kgni_mem_register *p = buf;

		p->addr = (uintptr_t)page;
		p->len = 64;
		break;
	}
	case C_MEM_DEREGISTER: {
		struct kgni_mem_deregister *p = buf;

		p->mem_hndl[0] = o->h[0];
		p->mem_hndl[1] = o->h[1];
		break;
	}
	case C_CQ_CREATE:
		((struct kgni_cq_create *)buf)->entries = 4;
		break;
	case C_CQ_DESTROY:
		((struct kgni_cq_destroy *)buf)->cq_id = o->cq;
		break;
	case C_FMA_ALLOC:
		((struct kgni_fma_alloc *)buf)->cq_id = o->bcq;
		break;
	case C_FMA_FREE:
		((struct kgni_fma_free *)buf)->fma_id = o->fma;
		break;
	case C_CQ_WAIT:
		((struct kgni_cq_wait *)buf)->cq_id = o->bcq;
		((struct kgni_cq_wait *)buf)->timeout_ms = 1;
		break;
	case C_RDMA_POST: {
		/* 8 bytes from the page to itself, no event */
		struct kgni_rdma_post *p = buf;

		p->type = KGNI_RDMA_PUT;
		p->remote_pe = o->pe;
		p->cq_id = o->bcq;
		p->local_addr = (uintptr_t)page;
		p->remote_addr = (uintptr_t)page + 64;
		p->length = 8;
		memcpy(p->local_mem_hndl, o->h, sizeof(o->h));
		memcpy(p->remote_mem_hndl, o->h, sizeof(o->h));
		break;
	}
	case C_MEM_REGISTER_SEGMENTS: {
		struct kgni_mem_register_segments *p = buf;
		static struct kgni_mem_segment seg;

		seg.addr = (uintptr_t)page;
		seg.len = 64;
		p->segments = (uintptr_t)&seg;
		p->nsegs = 1;
		break;
	}
	case C_DGRAM_POST: {
		/* A wildcard of 8 bytes, key 0 */
		struct kgni_dgram_post *p = buf;

		p->data = (uintptr_t)page;
		p->data_len = 8;
		p->buf_size = 8;
		break;
	}
	case C_NTT_CONFIG: {
		/* a block of one entry: this NIC */
		struct kgni_ntt_config *p = buf;
		static __u32 table[1];

		table[0] = o->pe;
		p->group_size = 1;
		p->table = (uintptr_t)table;
		break;
	}
	case C_JOB_SUSPEND:
	case C_JOB_RESUME: {
		/* The fixture's job, idle: suspended at once */
		struct kgni_job_suspend *p = buf;

		p->ptag = TEST_PTAG;
		p->cookie = TEST_COOKIE;
		p->timeout_ms = c == C_JOB_SUSPEND ? 2000 : 0;
		break;
	}
	case C_ERR_SUBSCRIBE: {
		struct kgni_err_subscribe *p = buf;

		p->mask = KGNI_ERR_MASK_ALL;
		p->eeq_size = 4;
		break;
	}
	case C_ERR_RELEASE:
		((struct kgni_err_release *)buf)->id = o->err;
		break;
	case C_ERR_MASK:
		((struct kgni_err_mask *)buf)->id = o->err;
		break;
	case C_ERR_WAIT: {
		/* not blocking: none queued, 0 events */
		struct kgni_err_wait *p = buf;

		p->id = o->err;
		p->events_size = 1;
		p->events = (uintptr_t)page;
		break;
	}
	case C_ERR_PTAG: {
		struct kgni_err_ptag *p = buf;

		p->id = o->err;
		p->ptag = TEST_PTAG;
		break;
	}
	default:
		break;
	}
	return 0;
}

/* Whether @ret means the kernel took the request (parsed it). */
static bool accepted(enum cmd_id c, int ret)
{
	if (c == C_CQ_WAIT)
		return ret == -ETIMEDOUT;	/* the CQ is empty */
	if (c == C_COUNTER_SNAPSHOT)	/* count 0: the sizes (abi.rst) */
		return ret == -EMSGSIZE;
	/* None posted: the datagram commands find nothing */
	if (c == C_DGRAM_TEST || c == C_DGRAM_PROBE || c == C_DGRAM_CANCEL)
		return ret == -ENOENT;
	if (c == C_JOB_RESUME)		/* the job is not suspended */
		return ret == -EALREADY;
	if (c == C_DIAG_PING)	/* the fabric's own answers */
		return ret == 0 || ret == -ETIMEDOUT || ret == -EHOSTUNREACH ||
		       ret == -EBUSY;
	return ret == 0;
}

/* Undo what an accepted request made; recreate what it destroyed. */
static void undo(struct __test_metadata *_metadata, enum cmd_id c, void *buf,
		 int fd, struct objs *o, char *page)
{
	switch (c) {
	case C_JOB_CONFIGURE:
		EXPECT_EQ(0, job_configure(fd, KGNI_JOB_RELEASE, OTHER_PTAG,
					   77));
		break;
	case C_CDM_ATTACH:
		close(o->fd2);
		o->fd2 = open(KGNI_DEV, O_RDWR | O_CLOEXEC);
		break;
	case C_MEM_REGISTER:
		EXPECT_EQ(0, mem_deregister(fd,
			((struct kgni_mem_register *)buf)->mem_hndl));
		break;
	case C_MEM_REGISTER_SEGMENTS:
		EXPECT_EQ(0, mem_deregister(fd,
			((struct kgni_mem_register_segments *)buf)->mem_hndl));
		break;
	case C_MEM_DEREGISTER:
		EXPECT_EQ(0, mem_register_cq(fd, page, PAGE, 0, 0, o->h));
		break;
	case C_DGRAM_POST: {
		struct kgni_dgram_cancel dc = { .size = sizeof(dc) };
		struct kgni_dgram_test dt = { .size = sizeof(dt) };

		EXPECT_EQ(0, xioctl(fd, KGNI_IOC_DGRAM_CANCEL, &dc));
		EXPECT_EQ(0, xioctl(fd, KGNI_IOC_DGRAM_TEST, &dt));
		EXPECT_EQ((__u32)KGNI_DGRAM_TERMINATED, dt.state);
		break;
	}
	case C_CQ_CREATE:
		EXPECT_EQ(0, cq_destroy(fd,
			((struct kgni_cq_create *)buf)->cq_id));
		break;
	case C_CQ_DESTROY: {
		struct kgni_cq_create cc;

		EXPECT_EQ(0, cq_create(fd, 0, 4, &cc));
		o->cq = cc.cq_id;
		break;
	}
	case C_FMA_ALLOC:
		EXPECT_EQ(0, fma_free(fd,
			((struct kgni_fma_alloc *)buf)->fma_id));
		break;
	case C_FMA_FREE: {
		struct kgni_fma_alloc fa;

		EXPECT_EQ(0, fma_alloc(fd, o->bcq, &fa));
		o->fma = fa.fma_id;
		break;
	}
	case C_ERR_SUBSCRIBE:
		EXPECT_EQ(0, err_release(fd,
			((struct kgni_err_subscribe *)buf)->id));
		break;
	case C_ERR_RELEASE:
		EXPECT_EQ(0, err_subscribe(fd, 0, KGNI_ERR_MASK_ALL, 4,
					   &o->err));
		break;
	case C_JOB_SUSPEND:
		EXPECT_EQ(0, job_suspend(fd, KGNI_IOC_JOB_RESUME, TEST_PTAG,
					 TEST_COOKIE, 0));
		break;
	case C_NTT_CONFIG: {
		struct kgni_ntt_config *p = buf;
		struct kgni_ntt_config c = {
			.size = sizeof(c), .flags = KGNI_NTT_CLEAR,
			.base = p->base, .group_size = 1,
		};

		EXPECT_EQ(0, xioctl(fd, KGNI_IOC_NTT_CONFIG, &c));
		break;
	}
	default:
		break;
	}
}

/* Issue a valid request of command @c with @size; @used_fd: on which file. */
static int issue(enum cmd_id c, __u8 *buf, __u32 size, struct objs *o,
		 char *page, int fd, int *used_fd)
{
	memcpy(buf, &size, 4);
	*used_fd = fd;
	valid_request(c, buf, o, page, used_fd);
	return xioctl(*used_fd, cmds[c].req, buf);
}

TEST_F_TIMEOUT(abi, every_command, 120)
{
	static __u8 buf[2 * PAGE];
	struct objs o;
	unsigned int c, bit;
	int ret, ufd;
	__u32 v;
	__u8 *two;

	if (self->absent)
		return;
	objs_make(_metadata, self->fd, self->page, &o);
	/* two pages, the second unmapped: an argument cut by it */
	two = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, two);
	ASSERT_EQ(0, munmap(two + PAGE, PAGE));

	for (c = 0; c < C_NUM; c++) {
		const struct cmd *m = &cmds[c];
		const __u32 bigger[] = { m->size + 8, PAGE };
		unsigned int j;

		/* larger sizes with a zero tail: accepted */
		for (j = 0; j < ARRAY_SIZE(bigger); j++) {
			memset(buf, 0, sizeof(buf));
			ret = issue(c, buf, bigger[j], &o, self->page, self->fd,
				    &ufd);
			EXPECT_TRUE(accepted(c, ret))
				TH_LOG("%s with size %u, zero tail: %d (%s)",
				       m->name, bigger[j], ret, strerror(-ret));
			if (accepted(c, ret))
				undo(_metadata, c, buf, ufd, &o, self->page);
			/* written back: at most @size, nothing after */
			EXPECT_EQ(0, buf[bigger[j]])
				TH_LOG("%s wrote past its size", m->name);
		}
		/* the exact size: accepted (the baseline of the above) */
		memset(buf, 0, sizeof(buf));
		ret = issue(c, buf, m->size, &o, self->page, self->fd, &ufd);
		EXPECT_TRUE(accepted(c, ret))
			TH_LOG("%s: %d (%s)", m->name, ret, strerror(-ret));
		if (accepted(c, ret))
			undo(_metadata, c, buf, ufd, &o, self->page);

		/* an older caller's size; one byte less */
		if (m->first != m->size) {
			memset(buf, 0, sizeof(buf));
			ret = issue(c, buf, m->first, &o, self->page, self->fd,
				    &ufd);
			EXPECT_TRUE(accepted(c, ret))
				TH_LOG("%s with the first version's size %zu: "
				       "%d", m->name, m->first, ret);
			if (accepted(c, ret))
				undo(_metadata, c, buf, ufd, &o, self->page);
			memset(buf, 0, sizeof(buf));
			ret = issue(c, buf, m->first - 1, &o, self->page,
				    self->fd, &ufd);
			EXPECT_EQ(-EINVAL, ret)
				TH_LOG("%s with size %zu", m->name,
				       m->first - 1);
		}

		/* each unknown flag bit alone */
		for (bit = 0; bit < 32; bit++) {
			if (m->flags & (1u << bit))
				continue;
			memset(buf, 0, sizeof(buf));
			v = 1u << bit;
			memcpy(buf + 4, &v, 4);
			ret = issue(c, buf, m->size, &o, self->page, self->fd,
				    &ufd);
			EXPECT_EQ(-EINVAL, ret)
				TH_LOG("%s with flag 0x%x: %d", m->name, v, ret);
			if (accepted(c, ret))
				undo(_metadata, c, buf, ufd, &o, self->page);
		}

		/* arguments that cannot be read */
		ufd = c == C_CDM_ATTACH ? o.fd2 : self->fd;
		EXPECT_EQ(-EFAULT, xioctl(ufd, m->req, two + PAGE))
			TH_LOG("%s: unmapped argument", m->name);
		EXPECT_EQ(-EFAULT, xioctl(ufd, m->req, KERNEL_PTR))
			TH_LOG("%s: kernel pointer", m->name);
		EXPECT_EQ(-EFAULT, xioctl(ufd, m->req, (void *)1))
			TH_LOG("%s: pointer 1", m->name);
		v = m->size;
		memcpy(two + PAGE - 8, &v, 4);
		memset(two + PAGE - 4, 0, 4);
		EXPECT_EQ(-EFAULT, xioctl(ufd, m->req, two + PAGE - 8))
			TH_LOG("%s: argument cut by an unmapped page",
			       m->name);

		if (m->in_datapath)
			continue;
		/* datapath_test's cases, for the commands it leaves out */
		{
			const __u32 bad[] = { 0, 4, m->size - 1 };

			for (j = 0; j < ARRAY_SIZE(bad); j++) {
				memset(buf, 0, sizeof(buf));
				memcpy(buf, &bad[j], 4);
				EXPECT_EQ(-EINVAL, xioctl(self->fd, m->req, buf))
					TH_LOG("%s with size %u", m->name,
					       bad[j]);
			}
		}
		memset(buf, 0, sizeof(buf));
		v = m->size + 8;
		memcpy(buf, &v, 4);
		buf[m->size + 5] = 0x80;
		EXPECT_EQ(-E2BIG, xioctl(self->fd, m->req, buf))
			TH_LOG("%s: tail byte set", m->name);
		v = PAGE + 1;
		memcpy(buf, &v, 4);
		EXPECT_EQ(-E2BIG, xioctl(self->fd, m->req, buf))
			TH_LOG("%s: size 4097", m->name);
		v = 0xffffffffu;
		memcpy(buf, &v, 4);
		EXPECT_EQ(-E2BIG, xioctl(self->fd, m->req, buf))
			TH_LOG("%s: size 0xffffffff", m->name);
		EXPECT_EQ(-EFAULT, xioctl(self->fd, m->req, NULL))
			TH_LOG("%s: NULL", m->name);
	}
	munmap(two, PAGE);
	close(o.fd2);
}

/* --- ENOTTY ----------------------------------------------------------- */

TEST_F(abi, unknown_commands)
{
	static __u8 buf[PAGE];
	unsigned int nr;

	if (self->absent)
		return;
	for (nr = 0; nr < 256; nr++) {
		if (known_nr(nr))
			continue;
		memset(buf, 0, sizeof(buf));
		buf[0] = 64;
		EXPECT_EQ(-ENOTTY, xioctl(self->fd, _IO(KGNI_IOC_MAGIC, nr),
					  buf))
			TH_LOG("_IO('G', 0x%x)", nr);
	}
	/* kgni's numbers with another magic, direction or size */
	for (nr = KGNI_CMD_BASE; nr <= LAST_CMD; nr++) {
		if (!known_nr(nr))
			continue;
		EXPECT_EQ(-ENOTTY, xioctl(self->fd, _IO('H', nr), buf))
			TH_LOG("_IO('H', 0x%x)", nr);
		EXPECT_EQ(-ENOTTY, xioctl(self->fd,
					  _IOWR(KGNI_IOC_MAGIC, nr, __u64[2]),
					  buf))
			TH_LOG("_IOWR('G', 0x%x, 16 bytes)", nr);
		EXPECT_EQ(-ENOTTY, xioctl(self->fd,
					  _IOR(KGNI_IOC_MAGIC, nr, __u32), buf))
			TH_LOG("_IOR('G', 0x%x, 4 bytes)", nr);
		EXPECT_EQ(-ENOTTY, xioctl(self->fd,
					  _IO(KGNI_IOC_MAGIC, nr) | 0x10000,
					  buf))
			TH_LOG("_IO('G', 0x%x) with a bit of the size", nr);
	}
}

/* --- fields ----------------------------------------------------------- */

TEST_F(abi, reserved_ranges_and_ids)
{
	struct kgni_cq_create cc, occ;
	struct kgni_fma_alloc fa;
	struct kgni_mem_register mr;
	struct kgni_counter_snapshot cs;
	struct kgni_counter_read cr;
	struct kgni_diag_ping dp;
	struct kgni_cdm_attach at;
	struct kgni_cq_create tmp;
	__u64 h[2], vals[4];
	char *ro, *gone;
	int fd2, fd3;

	if (self->absent)
		return;
	fd2 = open(KGNI_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, cdm_attach(fd2, TEST_PTAG, TEST_COOKIE, NULL));
	ASSERT_EQ(0, cq_create(fd2, 0, 4, &occ));	/* another file's */
	ASSERT_EQ(0, cq_create(self->fd, 0, 4, &cc));

	/* reserved fields */
	memset(&mr, 0, sizeof(mr));
	mr.size = sizeof(mr);
	mr.addr = (uintptr_t)self->page;
	mr.len = 64;
	mr.reserved = 1;
	EXPECT_EQ(-EINVAL, xioctl(self->fd, KGNI_IOC_MEM_REGISTER, &mr));
	memset(&cs, 0, sizeof(cs));
	cs.size = sizeof(cs);
	cs.reserved = 1;
	EXPECT_EQ(-EINVAL, xioctl(self->fd, KGNI_IOC_COUNTER_SNAPSHOT, &cs));
	memset(&dp, 0, sizeof(dp));
	dp.size = sizeof(dp);
	dp.reserved = 0x80000000u;
	EXPECT_EQ(-EINVAL, xioctl(self->fd, KGNI_IOC_DIAG_PING, &dp));

	/* ranges; jobs get only uGNI's user ptags, 3 to 253 */
	EXPECT_EQ(-EINVAL, job_configure(self->fd, 0, 0xffffffffu, 1));
	EXPECT_EQ(-EINVAL, job_configure(self->fd, 0, 256, 1));
	EXPECT_EQ(-EINVAL, job_configure(self->fd, 0, 0, 1));
	EXPECT_EQ(-EINVAL, job_configure(self->fd, 0, 1, 1));
	EXPECT_EQ(-EINVAL, job_configure(self->fd, 0, 2, 1));
	EXPECT_EQ(-EINVAL, job_configure(self->fd, 0, 254, 1));
	EXPECT_EQ(-EINVAL, job_configure(self->fd, 0, 255, 1));
	EXPECT_EQ(-EINVAL, job_configure(self->fd, KGNI_JOB_RELEASE, 1, 1));
	memset(&at, 0, sizeof(at));
	at.size = sizeof(at);
	at.ptag = 256;
	at.cookie = TEST_COOKIE;
	fd3 = open(KGNI_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd3);
	EXPECT_EQ(-EINVAL, xioctl(fd3, KGNI_IOC_CDM_ATTACH, &at));
	close(fd3);
	EXPECT_EQ(-EINVAL, cq_create(self->fd, 0, 0, &tmp));
	EXPECT_EQ(-EINVAL, cq_create(self->fd, 0, 0xffffffffu, &tmp));
	EXPECT_EQ(-EINVAL, cq_create(self->fd, 2, 4, &tmp));
	EXPECT_EQ(-EINVAL, mem_register_cq(self->fd, self->page,
					((__u64)KGNI_MEM_MAX_PAGES + 1) * PAGE,
					0, 0, h));
	EXPECT_EQ(-EINVAL, mem_register_cq(self->fd, self->page, -(__u64)PAGE,
					0, 0, h)) TH_LOG("addr + len wraps");
	EXPECT_EQ(-EINVAL, mem_register_cq(self->fd, self->page, 64, 4, 0, h));
	memset(&dp, 0, sizeof(dp));
	dp.size = sizeof(dp);
	dp.len = KGNI_DIAG_MAX_LEN + 1;
	EXPECT_EQ(-EINVAL, xioctl(self->fd, KGNI_IOC_DIAG_PING, &dp));
	dp.len = 0;
	dp.dest = 0x10000;
	EXPECT_EQ(-ENXIO, xioctl(self->fd, KGNI_IOC_DIAG_PING, &dp));
	memset(&cr, 0, sizeof(cr));
	cr.size = sizeof(cr);
	cr.block = KGNI_COUNTER_BLOCKS;
	EXPECT_EQ(-ENOENT, xioctl(self->fd, KGNI_IOC_COUNTER_READ, &cr));
	cr.block = 0;
	cr.index = 0xffffffffu;
	EXPECT_EQ(-ENOENT, xioctl(self->fd, KGNI_IOC_COUNTER_READ, &cr));
	cr.flags = KGNI_COUNTER_BY_NAME;
	strcpy(cr.name, "X+:NO_SUCH_COUNTER");
	EXPECT_EQ(-ENOENT, xioctl(self->fd, KGNI_IOC_COUNTER_READ, &cr));
	memset(cr.name, 'A', sizeof(cr.name));
	EXPECT_EQ(-EINVAL, xioctl(self->fd, KGNI_IOC_COUNTER_READ, &cr))
		TH_LOG("a name without NUL");

	/* ids of nothing, out of range, another file's */
	EXPECT_EQ(-EINVAL, cq_destroy(self->fd, 1024));
	EXPECT_EQ(-EINVAL, cq_destroy(self->fd, 0xffffffffu));
	EXPECT_EQ(-EINVAL, cq_destroy(self->fd, occ.cq_id));
	EXPECT_EQ(-EINVAL, fma_alloc(self->fd, 0, &fa));
	EXPECT_EQ(-EINVAL, fma_alloc(self->fd, 0xffffffffu, &fa));
	EXPECT_EQ(-EINVAL, fma_alloc(self->fd, occ.cq_id, &fa));
	EXPECT_EQ(-EINVAL, fma_free(self->fd, 0xffffffffu));
	EXPECT_EQ(-EINVAL, mem_register_cq(self->fd, self->page, 64, 0,
					occ.cq_id, h))
		TH_LOG("a remote-event CQ of another file");
	EXPECT_EQ(-EINVAL, mem_register_cq(self->fd, self->page, 64, 0, 1024,
					h));
	EXPECT_EQ(-EINVAL, mem_register_cq(self->fd, self->page, 64, 0,
					0xffffffffu, h));
	EXPECT_EQ(-EINVAL, cq_wait(self->fd, occ.cq_id, 0));
	EXPECT_EQ(-EINVAL, cq_wait(self->fd, 0, 0));
	EXPECT_EQ(-EINVAL, cq_wait(self->fd, 0xffffffffu, 0));

	/*
	 * A registration does not hold its CQ: destroying the CQ detaches
	 * it, and it still deregisters (once); the CQ id is gone.
	 */
	ASSERT_EQ(0, mem_register_cq(self->fd, self->page, 64, 0, cc.cq_id, h));
	EXPECT_EQ(0, cq_destroy(self->fd, cc.cq_id));
	EXPECT_EQ(-EINVAL, cq_destroy(self->fd, cc.cq_id));
	EXPECT_EQ(-EINVAL, cq_wait(self->fd, cc.cq_id, 0));
	EXPECT_EQ(0, mem_deregister(self->fd, h));
	EXPECT_NE(0, mem_deregister(self->fd, h));

	/* embedded user pointers */
	ro = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	gone = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	ASSERT_NE(MAP_FAILED, gone);
	ASSERT_EQ(0, munmap(gone, PAGE));
	EXPECT_EQ(-EFAULT, mem_register_cq(self->fd, gone, 64, 0, 0, h))
		TH_LOG("unmapped memory");
	/* not a user address at all: out of range, as datapath_test's */
	EXPECT_EQ(-EINVAL, mem_register_cq(self->fd, KERNEL_PTR, 64, 0, 0, h))
		TH_LOG("kernel memory");
	EXPECT_EQ(-EFAULT, mem_register_cq(self->fd, ro, 64, 0, 0, h))
		TH_LOG("read-only memory for the network to write");
	EXPECT_EQ(0, mem_register_cq(self->fd, ro, 64, KGNI_MEM_READONLY, 0, h));
	EXPECT_EQ(0, mem_deregister(self->fd, h));
	memset(&cs, 0, sizeof(cs));
	cs.size = sizeof(cs);
	EXPECT_EQ(-EMSGSIZE, xioctl(self->fd, KGNI_IOC_COUNTER_SNAPSHOT, &cs));
	cs.count = cs.num_blocks * cs.per_block;
	ASSERT_NE(0u, cs.count);
	cs.values = (uintptr_t)gone;
	EXPECT_EQ(-EFAULT, xioctl(self->fd, KGNI_IOC_COUNTER_SNAPSHOT, &cs));
	cs.values = (uintptr_t)KERNEL_PTR;
	EXPECT_EQ(-EFAULT, xioctl(self->fd, KGNI_IOC_COUNTER_SNAPSHOT, &cs));
	cs.values = (uintptr_t)ro;
	EXPECT_EQ(-EFAULT, xioctl(self->fd, KGNI_IOC_COUNTER_SNAPSHOT, &cs))
		TH_LOG("a read-only array");
	cs.values = 0;
	EXPECT_EQ(-EFAULT, xioctl(self->fd, KGNI_IOC_COUNTER_SNAPSHOT, &cs));
	/* too small: EMSGSIZE, and the needed count written back */
	cs.values = (uintptr_t)vals;
	cs.count = 4;
	EXPECT_EQ(-EMSGSIZE, xioctl(self->fd, KGNI_IOC_COUNTER_SNAPSHOT, &cs));
	EXPECT_EQ(cs.num_blocks * cs.per_block, cs.count);
	munmap(ro, PAGE);
	close(fd2);
}

/* --- KGNI_IOC_RDMA_POST ------------------------------------------------ */

/* The handle @h with its CRC made right again */
static void mh_recrc(__u64 h[2])
{
	h[1] &= ~(0xffull << 56);
	h[1] |= (__u64)gemini_mh_crc(h[0], h[1]) << 56;
}

/* The handle's VA */
static __u64 mh_va(const __u64 h[2])
{
	return (h[0] & 0x000fffffffffffffull) << 12;
}

/*
 * Post a copy of @base changed by @change: EXPECT errno @want.  An
 * accepted post runs (8 bytes from the page to itself, no event).
 */
#define EXPECT_POST(want, base, change) do {				\
	struct kgni_rdma_post q_ = (base);				\
	struct kgni_rdma_post *q = &q_;					\
	change;								\
	EXPECT_EQ(want, rdma_post(self->fd, q)) TH_LOG("%s", #change);	\
} while (0)

/*
 * A post from @fd naming as its local memory a registration that a child
 * process made through its own file of the job: EINVAL.
 */
static void other_process_handle(struct __test_metadata *_metadata, int fd,
				 const struct kgni_rdma_post *base)
{
	struct kgni_rdma_post q = *base;
	int to_child[2], from_child[2], st = -1;
	char *page = anon(PAGE), c = 0;
	__u64 ch[2] = { 0, 0 };
	pid_t pid;

	ASSERT_NE(NULL, page);
	ASSERT_EQ(0, pipe(to_child));
	ASSERT_EQ(0, pipe(from_child));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int cfd = open(KGNI_DEV, O_RDWR | O_CLOEXEC);
		__u32 cpe;

		/* the parent's close of its end is the child's EOF */
		close(to_child[1]);
		if (cfd < 0 || cdm_attach(cfd, TEST_PTAG, TEST_COOKIE, &cpe) ||
		    mem_register_cq(cfd, page, PAGE, 0, 0, ch) ||
		    write(from_child[1], ch, sizeof(ch)) != sizeof(ch))
			_exit(1);
		/* Keep the registration until the parent has posted. */
		_exit(read(to_child[0], &c, 1) < 0);
	}
	close(from_child[1]);
	close(to_child[0]);
	ASSERT_EQ((ssize_t)sizeof(ch), read(from_child[0], ch, sizeof(ch)));
	memcpy(q.local_mem_hndl, ch, sizeof(ch));
	q.local_addr = (uintptr_t)page;
	EXPECT_EQ(-EINVAL, rdma_post(fd, &q));
	close(to_child[1]);
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st));
	close(from_child[0]);
	munmap(page, PAGE);
}

TEST_F_TIMEOUT(abi, rdma_post_fields, 60)
{
	static __u8 buf[PAGE];
	struct kgni_rdma_post b;
	struct kgni_cq_create cc, occ;
	__u64 h[2], hro[2], oh[2], f[2];
	char *ro, *other;
	__u32 pe;
	int fd2, fd3;

	if (self->absent)
		return;
	ro = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	other = anon(PAGE);
	ASSERT_NE(MAP_FAILED, ro);
	ASSERT_NE(NULL, other);
	fd2 = open(KGNI_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, cdm_attach(fd2, TEST_PTAG, TEST_COOKIE, &pe));
	ASSERT_EQ(0, cq_create(fd2, 0, 4, &occ));	/* another file's */
	ASSERT_EQ(0, mem_register_cq(fd2, other, PAGE, 0, 0, oh));
	ASSERT_EQ(0, cq_create(self->fd, 0, 64, &cc));
	ASSERT_EQ(0, mem_register_cq(self->fd, self->page, PAGE, 0, 0, h));
	ASSERT_EQ(0, mem_register_cq(self->fd, ro, PAGE, KGNI_MEM_READONLY, 0,
				     hro));
	rdma_fill(&b, KGNI_RDMA_PUT, pe, cc.cq_id, (uintptr_t)self->page, h,
		  (uintptr_t)self->page + 64, h, 8);
	EXPECT_POST(0, b, (void)q);

	/* the size: short, and a tail that is not zero */
	EXPECT_POST(-EINVAL, b, q->size = sizeof(*q) - 1);
	EXPECT_POST(-EINVAL, b, q->size = 8);
	memset(buf, 0, sizeof(buf));
	memcpy(buf, &b, sizeof(b));
	((struct kgni_rdma_post *)buf)->size = sizeof(b) + 8;
	buf[sizeof(b) + 2] = 1;
	EXPECT_EQ(-E2BIG, xioctl(self->fd, KGNI_IOC_RDMA_POST, buf));
	buf[sizeof(b) + 2] = 0;
	EXPECT_EQ(0, xioctl(self->fd, KGNI_IOC_RDMA_POST, buf));

	/* flags; FENCE only on a single channel */
	EXPECT_POST(-EINVAL, b, q->flags = 0x4);
	EXPECT_POST(-EINVAL, b, q->flags = 0x80000000u);
	EXPECT_POST(-EINVAL, b, q->flags = KGNI_RDMA_FENCE);
	EXPECT_POST(0, b, q->flags = KGNI_RDMA_FENCE |
			  KGNI_RDMA_SINGLE_CHANNEL);
	EXPECT_POST(0, b, q->flags = KGNI_RDMA_SINGLE_CHANNEL);

	/* reserved and out fields must come in as 0 */
	EXPECT_POST(-EINVAL, b, q->reserved = 1);
	EXPECT_POST(-EINVAL, b, q->channel = 1);
	EXPECT_POST(-EINVAL, b, q->slot = 1);

	/* type, events, delivery mode */
	EXPECT_POST(-EINVAL, b, q->type = 0);
	EXPECT_POST(-EINVAL, b, q->type = 3);
	EXPECT_POST(-EINVAL, b, q->type = 4);
	EXPECT_POST(-EINVAL, b, q->events = 0x8);
	EXPECT_POST(-EINVAL, b, q->events = 0x80000000u);
	EXPECT_POST(-EINVAL, b, q->dlvr_mode = 0x8);
	EXPECT_POST(-EINVAL, b, q->dlvr_mode = 0x100);
	EXPECT_POST(0, b, q->dlvr_mode = KGNI_RDMA_DLVR_NO_ADAPT |
			  KGNI_RDMA_DLVR_NO_HASH | KGNI_RDMA_DLVR_NO_RADAPT);

	/* lengths, data words, PEs */
	EXPECT_POST(-EINVAL, b, q->length = 0);
	EXPECT_POST(-EINVAL, b, q->length = KGNI_RDMA_MAX_LENGTH + 1);
	EXPECT_POST(-EINVAL, b, q->length = ~0ull);
	EXPECT_POST(-EINVAL, b, q->length = PAGE + 1);
	EXPECT_POST(-EINVAL, b, { q->local_addr += 1; q->length = PAGE; });
	EXPECT_POST(-EINVAL, b, q->local_addr -= 1);
	EXPECT_POST(-EINVAL, b, q->local_addr += PAGE);
	EXPECT_POST(-EINVAL, b, q->local_data = 1ull << 56);
	EXPECT_POST(-EINVAL, b, q->global_data = 1ull << 63);
	EXPECT_POST(-EINVAL, b, q->remote_pe = 1u << 18);
	EXPECT_POST(-EINVAL, b, q->remote_pe = 0xffffffffu);

	/* GET: 4-byte aligned addresses and length */
	EXPECT_POST(0, b, q->type = KGNI_RDMA_GET);
	EXPECT_POST(-EINVAL, b, { q->type = KGNI_RDMA_GET; q->local_addr++; });
	EXPECT_POST(-EINVAL, b, { q->type = KGNI_RDMA_GET;
				  q->remote_addr += 2; });
	EXPECT_POST(-EINVAL, b, { q->type = KGNI_RDMA_GET; q->length = 6; });
	EXPECT_POST(0, b, q->length = 7);	/* a PUT may be odd */

	/* CQs: none, out of range, another file's */
	EXPECT_POST(-EINVAL, b, q->cq_id = 0);
	EXPECT_POST(-EINVAL, b, q->cq_id = 1024);
	EXPECT_POST(-EINVAL, b, q->cq_id = 0xffffffffu);
	EXPECT_POST(-EINVAL, b, q->cq_id = occ.cq_id);

	/*
	 * local handles: bad CRC; another file's of this process and job
	 * (a process's CDMs share the NIC's MDDs: UCX registers through
	 * one and posts through another), but not another process's;
	 * forged with a good CRC
	 */
	EXPECT_POST(-EINVAL, b, q->local_mem_hndl[1] ^= 1ull << 56);
	EXPECT_POST(0, b, { memcpy(q->local_mem_hndl, oh, 16);
			    q->local_addr = (uintptr_t)other; });
	other_process_handle(_metadata, self->fd, &b);
	f[0] = h[0] ^ (1ull << 52);	/* another MDH */
	f[1] = h[1];
	mh_recrc(f);
	EXPECT_POST(-EINVAL, b, memcpy(q->local_mem_hndl, f, 16));
	f[0] = h[0];
	f[1] = h[1] + 1;		/* one more page */
	mh_recrc(f);
	EXPECT_POST(-EINVAL, b, memcpy(q->local_mem_hndl, f, 16));

	/* remote handles: bad CRC, new format, vMDH, offsets */
	EXPECT_POST(-EINVAL, b, q->remote_mem_hndl[0] ^= 1);
	f[0] = h[0];
	f[1] = h[1] | (0x80ull << 34);	/* GEMINI_MH_FLAG_NEW_FRMT */
	mh_recrc(f);
	EXPECT_POST(-EINVAL, b, memcpy(q->remote_mem_hndl, f, 16));
	f[1] = h[1] | (0x02ull << 34);	/* GEMINI_MH_FLAG_VMDH */
	mh_recrc(f);
	EXPECT_POST(-EINVAL, b, memcpy(q->remote_mem_hndl, f, 16));
	EXPECT_POST(-EINVAL, b, q->remote_addr = mh_va(h) - 1);
	EXPECT_POST(-EINVAL, b, q->remote_addr = mh_va(h) + (1ull << 40));
	EXPECT_POST(-EINVAL, b, q->remote_addr = mh_va(h) + (1ull << 40) - 4);
	/* another file's (of the job): the target decides */
	EXPECT_POST(0, b, { memcpy(q->remote_mem_hndl, oh, 16);
			    q->remote_addr = (uintptr_t)other; });

	/* the network must not write read-only memory */
	EXPECT_POST(-EACCES, b, { q->type = KGNI_RDMA_GET;
				  memcpy(q->local_mem_hndl, hro, 16);
				  q->local_addr = (uintptr_t)ro; });
	EXPECT_POST(-EACCES, b, { memcpy(q->remote_mem_hndl, hro, 16);
				  q->remote_addr = (uintptr_t)ro; });
	EXPECT_POST(0, b, { memcpy(q->local_mem_hndl, hro, 16);
			    q->local_addr = (uintptr_t)ro; });
	EXPECT_POST(0, b, { q->type = KGNI_RDMA_GET;
			    memcpy(q->remote_mem_hndl, hro, 16);
			    q->remote_addr = (uintptr_t)ro; });

	/* a file without a CDM */
	fd3 = open(KGNI_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd3);
	EXPECT_EQ(-EPERM, rdma_post(fd3, &b));
	close(fd3);

	/* A deregistered handle is nobody's. */
	EXPECT_EQ(0, mem_deregister(self->fd, hro));
	EXPECT_POST(-EINVAL, b, { memcpy(q->local_mem_hndl, hro, 16);
				  q->local_addr = (uintptr_t)ro; });
	munmap(ro, PAGE);
	close(fd2);
}

/*
 * A file has at most KGNI_RDMA_MAX_POSTS posts in flight: a fenced one
 * to a PE that is no node holds its channel for the request timeout, the
 * next ones queue behind it on the file's channel, and one more is
 * ENOSPC until they have ended.
 */
TEST_F_TIMEOUT(abi, rdma_post_enospc, 60)
{
	struct kgni_rdma_post b, p;
	struct kgni_cq_create cc;
	__u32 pe, home;
	double deadline;
	__u64 h[2];
	int i, ret;

	if (self->absent)
		return;
	wait_fabric(_metadata);
	{
		int t = open(KGNI_DEV, O_RDWR | O_CLOEXEC);

		ASSERT_LE(0, t);
		ASSERT_EQ(0, cdm_attach(t, TEST_PTAG, TEST_COOKIE, &pe));
		close(t);
	}
	ASSERT_EQ(0, cq_create(self->fd, 0, 128, &cc));
	ASSERT_EQ(0, mem_register_cq(self->fd, self->page, PAGE, 0, 0, h));
	rdma_fill(&b, KGNI_RDMA_PUT, pe, cc.cq_id, (uintptr_t)self->page, h,
		  (uintptr_t)self->page + 64, h, 8);
	b.flags = KGNI_RDMA_SINGLE_CHANNEL;
	p = b;
	p.flags |= KGNI_RDMA_FENCE;
	p.remote_pe = NO_SUCH_PE;
	p.length = 64;
	ASSERT_EQ(0, rdma_post(self->fd, &p));
	home = p.channel;
	for (i = 1; i < KGNI_RDMA_MAX_POSTS; i++) {
		p = b;
		ret = rdma_post(self->fd, &p);
		if (ret)
			break;
		EXPECT_EQ(home, p.channel);
	}
	EXPECT_EQ(0, ret) TH_LOG("post %d", i);
	p = b;
	EXPECT_EQ(-ENOSPC, rdma_post(self->fd, &p));
	/* The same without SINGLE_CHANNEL: the limit is the file's. */
	p = b;
	p.flags = 0;
	EXPECT_EQ(-ENOSPC, rdma_post(self->fd, &p));
	/* Once the first has timed out, the rest run and room comes back. */
	deadline = kgni_now() + GEMINI_FMA_TIMEOUT_MS / 1000.0 + 5;
	do {
		p = b;
		ret = rdma_post(self->fd, &p);
		if (ret == -ENOSPC)
			usleep(20 * 1000);
	} while (ret == -ENOSPC && kgni_now() < deadline);
	EXPECT_EQ(0, ret);
	EXPECT_EQ(0, mem_deregister(self->fd, h));
}

/* --- KGNI_IOC_MEM_REGISTER_SEGMENTS ------------------------------------ */

static int reg_segs(int fd, const struct kgni_mem_segment *s, __u32 n,
		    __u32 flags, __u64 h[2])
{
	return mem_register_segments(fd, s, n, flags, 0, h);
}

TEST_F(abi, mem_register_segments_fields)
{
	struct kgni_mem_register_segments r;
	struct kgni_mem_segment s[3], *many;
	struct kgni_cq_create occ;
	char *a, *ro, *gone;
	__u64 h[2];
	int fd2;

	if (self->absent)
		return;
	a = anon(4 * PAGE);
	ro = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	gone = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(NULL, a);
	ASSERT_NE(MAP_FAILED, ro);
	ASSERT_NE(MAP_FAILED, gone);
	ASSERT_EQ(0, munmap(gone, PAGE));

	/* one segment, anywhere: the plain registration with VA 0 */
	s[0].addr = (uintptr_t)a + 10;
	s[0].len = 20;
	ASSERT_EQ(0, reg_segs(self->fd, s, 1, 0, h));
	EXPECT_EQ(0ull, h[0] & 0x000fffffffffffffull);
	EXPECT_EQ(1ull, h[1] & 0xfffffffull);
	EXPECT_EQ(gemini_mh_crc(h[0], h[1]), h[1] >> 56);
	EXPECT_EQ(0, mem_deregister(self->fd, h));

	/* three that meet on page boundaries */
	s[0].addr = (uintptr_t)a + 100;
	s[0].len = PAGE - 100;
	s[1].addr = (uintptr_t)a + 2 * PAGE;
	s[1].len = PAGE;
	s[2].addr = (uintptr_t)a + PAGE;
	s[2].len = 1;
	ASSERT_EQ(0, reg_segs(self->fd, s, 3, 0, h));
	EXPECT_EQ(3ull, h[1] & 0xfffffffull);
	EXPECT_EQ(0, mem_deregister(self->fd, h));
	/* the second starts inside a page; the first ends inside one */
	s[1].addr += 8;
	s[1].len -= 8;
	EXPECT_EQ(-EINVAL, reg_segs(self->fd, s, 3, 0, h));
	s[1].addr = (uintptr_t)a + 2 * PAGE;
	s[1].len = PAGE;
	s[0].len -= 1;
	EXPECT_EQ(-EINVAL, reg_segs(self->fd, s, 3, 0, h));
	s[0].len += 1;
	/* the last one's end and the first one's start are free */
	s[2].len = 0;
	EXPECT_EQ(-EINVAL, reg_segs(self->fd, s, 3, 0, h)) TH_LOG("length 0");
	s[2].len = 1;
	s[2].addr = -(__u64)PAGE;
	EXPECT_EQ(-EINVAL, reg_segs(self->fd, s, 3, 0, h))
		TH_LOG("past the user address space");
	s[2].addr = (uintptr_t)a + PAGE;

	/* counts and the page limit (checked before any pinning) */
	EXPECT_EQ(-EINVAL, reg_segs(self->fd, s, 0, 0, h));
	EXPECT_EQ(-EINVAL, reg_segs(self->fd, s, KGNI_MEM_MAX_SEGMENTS + 1, 0,
				    h));
	s[0].addr = (uintptr_t)a;
	s[0].len = (__u64)(KGNI_MEM_MAX_PAGES / 2) * PAGE;
	s[1].addr = (uintptr_t)a;
	s[1].len = (__u64)(KGNI_MEM_MAX_PAGES / 2 + 1) * PAGE;
	EXPECT_EQ(-EINVAL, reg_segs(self->fd, s, 2, 0, h))
		TH_LOG("KGNI_MEM_MAX_PAGES + 1 pages");

	/* the most segments, each one page */
	many = calloc(KGNI_MEM_MAX_SEGMENTS, sizeof(*many));
	ASSERT_NE(NULL, many);
	for (unsigned int i = 0; i < KGNI_MEM_MAX_SEGMENTS; i++) {
		many[i].addr = (uintptr_t)a + (i % 4) * PAGE;
		many[i].len = PAGE;
	}
	EXPECT_EQ(0, reg_segs(self->fd, many, KGNI_MEM_MAX_SEGMENTS, 0, h));
	EXPECT_EQ((__u64)KGNI_MEM_MAX_SEGMENTS, h[1] & 0xfffffffull);
	EXPECT_EQ(0, mem_deregister(self->fd, h));
	free(many);

	/* fields */
	s[0].addr = (uintptr_t)a;
	s[0].len = 64;
	EXPECT_EQ(-EINVAL, reg_segs(self->fd, s, 1, 2, h));
	memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	r.segments = (uintptr_t)s;
	r.nsegs = 1;
	r.reserved = 1;
	EXPECT_EQ(-EINVAL, xioctl(self->fd, KGNI_IOC_MEM_REGISTER_SEGMENTS, &r));
	r.reserved = 0;
	r.mem_hndl[0] = 1;
	EXPECT_EQ(-EINVAL, xioctl(self->fd, KGNI_IOC_MEM_REGISTER_SEGMENTS, &r));
	r.mem_hndl[0] = 0;
	r.cq_id = 1024;
	EXPECT_EQ(-EINVAL, xioctl(self->fd, KGNI_IOC_MEM_REGISTER_SEGMENTS, &r));
	fd2 = open(KGNI_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd2);
	EXPECT_EQ(-EPERM, xioctl(fd2, KGNI_IOC_MEM_REGISTER_SEGMENTS, &r));
	ASSERT_EQ(0, cdm_attach(fd2, TEST_PTAG, TEST_COOKIE, NULL));
	ASSERT_EQ(0, cq_create(fd2, 0, 4, &occ));
	r.cq_id = occ.cq_id;
	EXPECT_EQ(-EINVAL, xioctl(self->fd, KGNI_IOC_MEM_REGISTER_SEGMENTS, &r))
		TH_LOG("a remote-event CQ of another file");
	close(fd2);

	/* the array and the memory it names */
	r.cq_id = 0;
	r.segments = (uintptr_t)gone;
	EXPECT_EQ(-EFAULT, xioctl(self->fd, KGNI_IOC_MEM_REGISTER_SEGMENTS, &r));
	r.segments = (uintptr_t)KERNEL_PTR;
	EXPECT_EQ(-EFAULT, xioctl(self->fd, KGNI_IOC_MEM_REGISTER_SEGMENTS, &r));
	r.segments = 0;
	EXPECT_EQ(-EFAULT, xioctl(self->fd, KGNI_IOC_MEM_REGISTER_SEGMENTS, &r));
	s[1].addr = (uintptr_t)gone;
	s[1].len = PAGE;
	s[0].len = PAGE;
	EXPECT_EQ(-EFAULT, reg_segs(self->fd, s, 2, 0, h))
		TH_LOG("an unmapped segment");
	s[1].addr = (uintptr_t)ro;
	EXPECT_EQ(-EFAULT, reg_segs(self->fd, s, 2, 0, h))
		TH_LOG("read-only memory for the network to write");
	EXPECT_EQ(0, reg_segs(self->fd, s, 2, KGNI_MEM_READONLY, h));
	EXPECT_EQ(0x09ull, h[1] >> 34 & 0xff) TH_LOG("flags GART | READONLY");
	EXPECT_EQ(0, mem_deregister(self->fd, h));
	munmap(ro, PAGE);
	munmap(a, 4 * PAGE);
}

/* --- vMDH registrations ------------------------------------------------ */

/* Register @len bytes at @addr at vMDH index @index of a block of @count */
static int reg_vmdh(int fd, void *addr, __u64 len, __u32 flags, __u32 index,
		    __u32 count, __u64 h[2])
{
	struct kgni_mem_register r = {
		.size = sizeof(r), .flags = flags, .addr = (uintptr_t)addr,
		.len = len, .vmdh_index = index, .vmdh_count = count,
	};
	int ret = xioctl(fd, KGNI_IOC_MEM_REGISTER, &r);

	if (!ret) {
		h[0] = r.mem_hndl[0];
		h[1] = r.mem_hndl[1];
	}
	return ret;
}

/* The handle's MDH (version 1 layout) */
static __u32 mh_mdh(const __u64 h[2])
{
	return h[0] >> GEMINI_MH_MDH_SHIFT & GEMINI_MH_MDH_MASK;
}

TEST_F_TIMEOUT(abi, vmdh_fields, 60)
{
	struct kgni_mem_register_segments rs;
	struct kgni_mem_register r;
	struct kgni_mem_segment seg;
	struct kgni_rdma_post p;
	struct kgni_cq_create cc;
	__u64 h[2], h2[2], hs[2], hl[2], x[2];
	volatile char *a;
	unsigned int i;
	double deadline;
	__u32 pe, m;
	int fd2, ret;

	if (self->absent)
		return;
	a = anon(4 * PAGE);
	ASSERT_NE(NULL, a);

	/* the fields are 0 without the flag */
	memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	r.addr = (uintptr_t)a;
	r.len = 64;
	r.vmdh_index = 1;
	EXPECT_EQ(-EINVAL, xioctl(self->fd, KGNI_IOC_MEM_REGISTER, &r));
	r.vmdh_index = 0;
	r.vmdh_count = 1;
	EXPECT_EQ(-EINVAL, xioctl(self->fd, KGNI_IOC_MEM_REGISTER, &r));
	memset(&rs, 0, sizeof(rs));
	seg.addr = (uintptr_t)a;
	seg.len = 64;
	rs.size = sizeof(rs);
	rs.segments = (uintptr_t)&seg;
	rs.nsegs = 1;
	rs.vmdh_count = 8;
	EXPECT_EQ(-EINVAL, xioctl(self->fd, KGNI_IOC_MEM_REGISTER_SEGMENTS,
				  &rs));
	/* with it: a block of 1 to 4096 entries, an index in it or ANY */
	EXPECT_EQ(-EINVAL, reg_vmdh(self->fd, (void *)a, 64, KGNI_MEM_VMDH, 0,
				    0, x)) TH_LOG("a block of 0");
	EXPECT_EQ(-EINVAL, reg_vmdh(self->fd, (void *)a, 64, KGNI_MEM_VMDH, 0,
				    KGNI_VMDH_ENTRIES + 1, x))
		TH_LOG("a block of 4097");
	EXPECT_EQ(-EINVAL, reg_vmdh(self->fd, (void *)a, 64, KGNI_MEM_VMDH, 8,
				    8, x)) TH_LOG("index 8 of 8");
	EXPECT_EQ(-EINVAL, reg_vmdh(self->fd, (void *)a, 64, KGNI_MEM_VMDH,
				    0xfffffffeu, 8, x));
	EXPECT_EQ(-EINVAL, reg_vmdh(self->fd, (void *)a, 64, KGNI_MEM_VMDH,
				    KGNI_VMDH_ENTRIES, KGNI_VMDH_ENTRIES, x));

	/* index 5 is MDD 4090; it is the NIC's: taken for every file */
	ASSERT_EQ(0, reg_vmdh(self->fd, (void *)a, 64, KGNI_MEM_VMDH, 5, 8, h));
	EXPECT_EQ((__u32)KGNI_VMDH_MDH(5), mh_mdh(h));
	EXPECT_EQ(4090u, mh_mdh(h));
	EXPECT_EQ(gemini_mh_crc(h[0], h[1] & ~(0xffull << 56)), h[1] >> 56);
	EXPECT_EQ(0ull, h[1] >> 34 & GEMINI_MH_FLAG_VMDH)
		TH_LOG("the handle names the MDD: no VMDH flag");
	EXPECT_EQ(-EBUSY, reg_vmdh(self->fd, (void *)(a + PAGE), 64,
				   KGNI_MEM_VMDH, 5, 8, x));
	fd2 = open(KGNI_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, cdm_attach(fd2, TEST_PTAG, TEST_COOKIE, &pe));
	EXPECT_EQ(-EBUSY, reg_vmdh(fd2, (void *)(a + PAGE), 64, KGNI_MEM_VMDH,
				   5, 8, x)) TH_LOG("another file, same index");
	/* ANY: the lowest free index of the block */
	ASSERT_EQ(0, reg_vmdh(fd2, (void *)(a + PAGE), 64, KGNI_MEM_VMDH,
			      KGNI_VMDH_ANY, 8, h2));
	m = mh_mdh(h2);
	EXPECT_TRUE(m >= KGNI_VMDH_MDH(7) && m != KGNI_VMDH_MDH(5))
		TH_LOG("ANY of a block of 8 took MDD %u", m);
	/* index 0 is taken now (by h2, or before): a block of 1 is full */
	EXPECT_EQ(-ENOSPC, reg_vmdh(self->fd, (void *)(a + PAGE), 64,
				    KGNI_MEM_VMDH, KGNI_VMDH_ANY, 1, x));
	/* segments at an index, the index of a deregistered one */
	EXPECT_EQ(0, mem_deregister(self->fd, h));
	seg.addr = (uintptr_t)a + 2 * PAGE;
	seg.len = PAGE;
	rs.flags = KGNI_MEM_VMDH;
	rs.vmdh_index = 5;
	rs.vmdh_count = 8;
	ASSERT_EQ(0, xioctl(self->fd, KGNI_IOC_MEM_REGISTER_SEGMENTS, &rs));
	hs[0] = rs.mem_hndl[0];
	hs[1] = rs.mem_hndl[1];
	EXPECT_EQ(4090u, mh_mdh(hs));
	EXPECT_EQ(0ull, hs[0] & GEMINI_MH_VA_MASK);
	EXPECT_EQ(0, mem_deregister(self->fd, hs));

	/* the MDD works: a PUT from the page to an index's registration */
	ASSERT_EQ(0, reg_vmdh(self->fd, (void *)(a + 3 * PAGE), PAGE,
			      KGNI_MEM_VMDH, 5, 8, h));
	ASSERT_EQ(0, mem_register_cq(self->fd, self->page, PAGE, 0, 0, hl));
	ASSERT_EQ(0, cq_create(self->fd, 0, 16, &cc));
	for (i = 0; i < 64; i++)
		self->page[i] = (char)(0xa0 + i);
	memset((void *)(a + 3 * PAGE), 0, 64);
	rdma_fill(&p, KGNI_RDMA_PUT, pe, cc.cq_id, (uintptr_t)self->page, hl,
		  (uintptr_t)a + 3 * PAGE, h, 64);
	ASSERT_EQ(0, rdma_post(self->fd, &p));
	deadline = kgni_now() + 5;
	do {
		ret = memcmp((const void *)(a + 3 * PAGE), self->page, 64);
		if (ret)
			usleep(1000);
	} while (ret && kgni_now() < deadline);
	EXPECT_EQ(0, ret) TH_LOG("the PUT to vMDH index 5 (MDD 4090) did not "
				 "land");
	EXPECT_EQ(0, mem_deregister(self->fd, h));
	EXPECT_EQ(0, mem_deregister(self->fd, hl));
	EXPECT_EQ(0, mem_deregister(fd2, h2));
	close(fd2);
	munmap((void *)a, 4 * PAGE);
}

/* --- KGNI_IOC_MEM_QUERY and KGNI_IOC_NTT_QUERY ----------------------- */

/* The registration of @fd after @h (0, 0: the first), into @h; -errno */
static int mem_query(int fd, __u64 h[2], __u64 *addr, __u64 *len)
{
	struct kgni_mem_query q = {
		.size = sizeof(q), .mem_hndl = { h[0], h[1] },
	};
	int ret = xioctl(fd, KGNI_IOC_MEM_QUERY, &q);

	if (!ret) {
		h[0] = q.mem_hndl[0];
		h[1] = q.mem_hndl[1];
		*addr = q.addr;
		*len = q.len;
	}
	return ret;
}

#define EXPECT_NEXT(fd, q, want, want_addr, want_len) do {		\
	__u64 a_ = 0, l_ = 0;						\
	EXPECT_EQ(0, mem_query(fd, q, &a_, &l_));			\
	EXPECT_EQ((want)[0], (q)[0]);					\
	EXPECT_EQ((want)[1], (q)[1]);					\
	EXPECT_EQ((__u64)(want_addr), a_);				\
	EXPECT_EQ((__u64)(want_len), l_);				\
} while (0)

TEST_F(abi, mem_query)
{
	struct kgni_mem_segment seg[2];
	struct kgni_mem_query mq;
	__u64 h1[2], h2[2], h3[2], o1[2], q[2], f[2], addr, len;
	char *a;
	int fd2, fd3;

	if (self->absent)
		return;
	a = anon(4 * PAGE);
	ASSERT_NE(NULL, a);
	fd3 = open(KGNI_DEV, O_RDWR | O_CLOEXEC);	/* never attached */
	ASSERT_LE(0, fd3);
	q[0] = q[1] = 0;
	EXPECT_EQ(-ENOENT, mem_query(fd3, q, &addr, &len))
		TH_LOG("a file without a CDM holds none: no CDM needed");
	EXPECT_EQ(-ENOENT, mem_query(self->fd, q, &addr, &len));

	/* three of this file, in order; one of another file of the job */
	ASSERT_EQ(0, mem_register_cq(self->fd, a + 100, 200, 0, 0, h1));
	seg[0].addr = (uintptr_t)a + PAGE + 8;
	seg[0].len = PAGE - 8;
	seg[1].addr = (uintptr_t)a + 3 * PAGE;
	seg[1].len = 10;
	ASSERT_EQ(0, mem_register_segments(self->fd, seg, 2, 0, 0, h2));
	ASSERT_EQ(0, mem_register_cq(self->fd, a + 2 * PAGE, PAGE,
				     KGNI_MEM_READONLY, 0, h3));
	fd2 = open(KGNI_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, cdm_attach(fd2, TEST_PTAG, TEST_COOKIE, NULL));
	ASSERT_EQ(0, mem_register_cq(fd2, a, 64, 0, 0, o1));

	q[0] = q[1] = 0;
	EXPECT_NEXT(self->fd, q, h1, a + 100, 200);
	EXPECT_NEXT(self->fd, q, h2, a + PAGE + 8, PAGE - 8 + 10);
	EXPECT_NEXT(self->fd, q, h3, a + 2 * PAGE, PAGE);
	EXPECT_EQ(-ENOENT, mem_query(self->fd, q, &addr, &len));
	q[0] = q[1] = 0;
	EXPECT_NEXT(fd2, q, o1, a, 64);
	EXPECT_EQ(-ENOENT, mem_query(fd2, q, &addr, &len));
	/* written back only on success */
	memset(&mq, 0, sizeof(mq));
	mq.size = sizeof(mq);
	memcpy(mq.mem_hndl, h3, sizeof(h3));
	EXPECT_EQ(-ENOENT, xioctl(self->fd, KGNI_IOC_MEM_QUERY, &mq));
	EXPECT_EQ(h3[0], mq.mem_hndl[0]);
	EXPECT_EQ(0ull, mq.addr);

	/* handles this file has none of */
	memcpy(q, o1, sizeof(q));
	EXPECT_EQ(-EINVAL, mem_query(self->fd, q, &addr, &len))
		TH_LOG("another file's handle");
	memcpy(q, h1, sizeof(q));
	EXPECT_EQ(-EINVAL, mem_query(fd3, q, &addr, &len));
	f[0] = h1[0];
	f[1] = h1[1] ^ (1ull << 56);
	EXPECT_EQ(-EINVAL, mem_query(self->fd, f, &addr, &len))
		TH_LOG("a bad CRC");
	f[0] = h1[0] ^ (1ull << 52);	/* another MDH */
	f[1] = h1[1];
	mh_recrc(f);
	EXPECT_EQ(-EINVAL, mem_query(self->fd, f, &addr, &len))
		TH_LOG("forged, with a good CRC");

	/* fields: flags, out fields set */
	memset(&mq, 0, sizeof(mq));
	mq.size = sizeof(mq);
	mq.addr = 1;
	EXPECT_EQ(-EINVAL, xioctl(self->fd, KGNI_IOC_MEM_QUERY, &mq));
	mq.addr = 0;
	mq.len = 1;
	EXPECT_EQ(-EINVAL, xioctl(self->fd, KGNI_IOC_MEM_QUERY, &mq));
	mq.len = 0;
	EXPECT_EQ(0, xioctl(self->fd, KGNI_IOC_MEM_QUERY, &mq));

	/* a deregistration: not found after it, skipped by the walk */
	EXPECT_EQ(0, mem_deregister(self->fd, h2));
	memcpy(q, h2, sizeof(q));
	EXPECT_EQ(-EINVAL, mem_query(self->fd, q, &addr, &len));
	memcpy(q, h1, sizeof(q));
	EXPECT_NEXT(self->fd, q, h3, a + 2 * PAGE, PAGE);
	/* a new one comes last */
	ASSERT_EQ(0, mem_register_cq(self->fd, a + 3 * PAGE, 8, 0, 0, h2));
	EXPECT_NEXT(self->fd, q, h2, a + 3 * PAGE, 8);

	EXPECT_EQ(0, mem_deregister(self->fd, h1));
	EXPECT_EQ(0, mem_deregister(self->fd, h2));
	EXPECT_EQ(0, mem_deregister(self->fd, h3));
	close(fd2);
	close(fd3);
	munmap(a, 4 * PAGE);
}

TEST_F(abi, ntt_query)
{
	struct kgni_ntt_query q;
	int fd3;

	if (self->absent)
		return;
	memset(&q, 0, sizeof(q));
	q.size = sizeof(q);
	q.gran = 1;
	EXPECT_EQ(-EINVAL, xioctl(self->fd, KGNI_IOC_NTT_QUERY, &q));
	q.gran = 0;
	q.reserved = 1;
	EXPECT_EQ(-EINVAL, xioctl(self->fd, KGNI_IOC_NTT_QUERY, &q));
	q.reserved = 0;
	EXPECT_EQ(0, xioctl(self->fd, KGNI_IOC_NTT_QUERY, &q));
	EXPECT_EQ(0u, q.gran) TH_LOG("the tests configure granularity 0");
	EXPECT_EQ(0u, q.reserved);
	fd3 = open(KGNI_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd3);
	memset(&q, 0, sizeof(q));
	q.size = sizeof(q);
	EXPECT_EQ(0, xioctl(fd3, KGNI_IOC_NTT_QUERY, &q))
		TH_LOG("a file without a CDM");
	close(fd3);
}

/* --- KGNI_IOC_CQ_WAIT -------------------------------------------------- */

static void on_alarm(int sig)
{
	(void)sig;
}

TEST_F_TIMEOUT(abi, cq_wait, 60)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	struct itimerval it = { .it_value = { 0, 200 * 1000 } };
	struct kgni_cq_create cc, bc;
	int status;
	double t;
	pid_t pid;

	if (self->absent)
		return;
	ASSERT_EQ(0, cq_create(self->fd, 0, 4, &cc));
	ASSERT_EQ(0, cq_create(self->fd, KGNI_CQ_BLOCKING, 4, &bc));
	EXPECT_EQ(-EINVAL, cq_wait(self->fd, cc.cq_id, 10))
		TH_LOG("a CQ made without KGNI_CQ_BLOCKING");
	t = kgni_now();
	EXPECT_EQ(-ETIMEDOUT, cq_wait(self->fd, bc.cq_id, 300));
	t = kgni_now() - t;
	EXPECT_TRUE(t > 0.25 && t < 5) TH_LOG("waited %.3f s for 300 ms", t);
	EXPECT_EQ(-ETIMEDOUT, cq_wait(self->fd, bc.cq_id, 0));

	/* a signal (no SA_RESTART) ends the wait */
	ASSERT_EQ(0, sigaction(SIGALRM, &sa, NULL));
	ASSERT_EQ(0, setitimer(ITIMER_REAL, &it, NULL));
	t = kgni_now();
	EXPECT_EQ(-EINTR, cq_wait(self->fd, bc.cq_id, 10000));
	t = kgni_now() - t;
	EXPECT_TRUE(t < 5) TH_LOG("EINTR after %.3f s", t);

	/* destroyed while waited on, through the same file in a child */
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		usleep(300 * 1000);
		_exit(cq_destroy(self->fd, bc.cq_id) ? 1 : 0);
	}
	t = kgni_now();
	EXPECT_EQ(-EINVAL, cq_wait(self->fd, bc.cq_id, 10000));
	t = kgni_now() - t;
	EXPECT_TRUE(t < 5) TH_LOG("the wait ended after %.3f s", t);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	EXPECT_EQ(-EINVAL, cq_wait(self->fd, bc.cq_id, 0));
	EXPECT_EQ(0, cq_destroy(self->fd, cc.cq_id));
}

/* --- error subscriptions (KGNI_IOC_ERR_*) ---------------------------- */

#define ERR_INJECT		"/sys/kernel/debug/kgni0/inject_error"
/* gni_pub.h's GNI_ERRMASK_* classes the test uses */
#define ERRMASK_CRITICAL	0x02
#define ERRMASK_TRANSACTION	0x04
#define ERRMASK_INFORMATIONAL	0x20

/* Write @line into kgni's inject_error: 0, or -1 without debugfs */
static int err_inject(const char *line)
{
	int fd = open(ERR_INJECT, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, line, strlen(line));
	close(fd);
	return n == (ssize_t)strlen(line) ? 0 : -1;
}

/*
 * A subscription of a job released, whose ptag a later job took: the
 * device's events only, none of the ptag's.
 */
static void released_job(struct __test_metadata *_metadata, int fd)
{
	struct kgni_err_event ev[4];
	__u32 jid, x, got = 0;
	int fj = open(KGNI_DEV, O_RDWR | O_CLOEXEC);

	ASSERT_LE(0, fj);
	ASSERT_EQ(0, job_configure(fd, 0, OTHER_PTAG, 77));
	ASSERT_EQ(0, cdm_attach(fj, OTHER_PTAG, 77, NULL));
	ASSERT_EQ(0, err_subscribe(fj, 0, KGNI_ERR_MASK_ALL, 4, &jid));
	EXPECT_EQ(0, job_configure(fd, KGNI_JOB_RELEASE, OTHER_PTAG, 77));
	EXPECT_EQ(0, job_configure(fd, 0, OTHER_PTAG, 78));
	EXPECT_EQ(0, err_inject("TRANSACTION 0x53"));
	EXPECT_EQ(0, err_inject("TRANSIENT"));
	EXPECT_EQ(0, err_wait(fj, jid, 0, ev, 4, 0, &got, NULL));
	EXPECT_EQ(1u, got) TH_LOG("the later job's event reached it");
	EXPECT_EQ(0, ev[0].ptag);
	EXPECT_EQ(-ENOLINK, err_subscribe(fj, 0, 1, 4, &x));
	EXPECT_EQ(0, job_configure(fd, KGNI_JOB_RELEASE, OTHER_PTAG, 78));
	close(fj);
}

TEST_F_TIMEOUT(abi, err_subscriptions, 60)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	struct itimerval it = { .it_value = { 0, 200 * 1000 } };
	struct kgni_err_subscribe s;
	struct kgni_err_mask m;
	struct kgni_err_ptag pt;
	struct kgni_err_event ev[4];
	struct kgni_err_wait w;
	__u32 id, id2, other, got, state, i;
	__u32 ids[KGNI_ERR_FILE_SUBS];
	int fd3, status;
	void *none;
	pid_t pid;
	double t;

	if (self->absent)
		return;
	/* every field checked */
	s = (struct kgni_err_subscribe){ .size = sizeof(s), .mask = 1,
					 .eeq_size = 4, .reserved = 1 };
	EXPECT_EQ(-EINVAL, xioctl(self->fd, KGNI_IOC_ERR_SUBSCRIBE, &s));
	s.reserved = 0;
	s.id = 5;
	EXPECT_EQ(-EINVAL, xioctl(self->fd, KGNI_IOC_ERR_SUBSCRIBE, &s))
		TH_LOG("out field id set");
	s.id = 0;
	s.mask = 0x100;
	EXPECT_EQ(-EINVAL, xioctl(self->fd, KGNI_IOC_ERR_SUBSCRIBE, &s));
	EXPECT_EQ(-EINVAL, err_subscribe(self->fd, 0, 1, 0, &id));
	EXPECT_EQ(-EINVAL, err_subscribe(self->fd, 0, 1,
					 KGNI_ERR_USER_MAX_EEQ + 1, &id));
	EXPECT_EQ(-EINVAL, err_subscribe(self->fd, 0x80000000u, 1, 4, &id));
	/* no CDM: EPERM; every ptag: root may */
	fd3 = open(KGNI_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd3);
	EXPECT_EQ(-EPERM, err_subscribe(fd3, 0, 1, 4, &id));
	ASSERT_EQ(0, err_subscribe(fd3, KGNI_ERR_ALL_PTAGS,
				   KGNI_ERR_MASK_ALL, 4, &other));

	ASSERT_EQ(0, err_subscribe(self->fd, 0, ERRMASK_TRANSACTION,
				   4, &id));
	EXPECT_NE(0u, id);
	EXPECT_NE(other, id) TH_LOG("ids are the device's, not the file's");
	/* ids of nobody, of another file */
	EXPECT_EQ(-EINVAL, err_release(self->fd, 0));
	EXPECT_EQ(-EINVAL, err_release(self->fd, 0x12345));
	EXPECT_EQ(-EINVAL, err_release(self->fd, other));
	EXPECT_EQ(-EINVAL, err_release(fd3, id));
	EXPECT_EQ(-EINVAL, err_wait(self->fd, other, 0, ev, 1, 0, &got, NULL));

	/* mask: get, set, fields */
	m = (struct kgni_err_mask){ .size = sizeof(m), .id = id };
	EXPECT_EQ(0, xioctl(self->fd, KGNI_IOC_ERR_MASK, &m));
	EXPECT_EQ((__u32)ERRMASK_TRANSACTION, m.old_mask);
	EXPECT_EQ(-EINVAL, xioctl(self->fd, KGNI_IOC_ERR_MASK, &m))
		TH_LOG("out field old_mask set");
	m = (struct kgni_err_mask){ .size = sizeof(m), .id = id, .mask = 1 };
	EXPECT_EQ(-EINVAL, xioctl(self->fd, KGNI_IOC_ERR_MASK, &m))
		TH_LOG("a mask without KGNI_ERR_MASK_SET");
	m.flags = KGNI_ERR_MASK_SET;
	m.mask = 0x100;
	EXPECT_EQ(-EINVAL, xioctl(self->fd, KGNI_IOC_ERR_MASK, &m));
	m.mask = KGNI_ERR_MASK_ALL;
	m.reserved = 1;
	EXPECT_EQ(-EINVAL, xioctl(self->fd, KGNI_IOC_ERR_MASK, &m));
	m.reserved = 0;
	EXPECT_EQ(0, xioctl(self->fd, KGNI_IOC_ERR_MASK, &m));
	EXPECT_EQ((__u32)ERRMASK_TRANSACTION, m.old_mask);

	/* wait: fields, pointers */
	EXPECT_EQ(-EINVAL, err_wait(self->fd, id, 0, ev, 0, 0, &got, NULL));
	EXPECT_EQ(-EINVAL, err_wait(self->fd, id, 0, ev,
				    KGNI_ERR_USER_MAX_EEQ + 1, 0, &got, NULL));
	EXPECT_EQ(-EINVAL, err_wait(self->fd, id, 0, ev, 1, 10, &got, NULL))
		TH_LOG("a timeout without KGNI_ERR_WAIT_BLOCK");
	EXPECT_EQ(-EINVAL, err_wait(self->fd, id, 2, ev, 1, 0, &got, NULL));
	w = (struct kgni_err_wait){ .size = sizeof(w), .id = id,
				    .events_size = 1,
				    .events = (uintptr_t)ev, .num_events = 1 };
	EXPECT_EQ(-EINVAL, xioctl(self->fd, KGNI_IOC_ERR_WAIT, &w))
		TH_LOG("out field num_events set");
	w.num_events = 0;
	w.reserved = 1;
	EXPECT_EQ(-EINVAL, xioctl(self->fd, KGNI_IOC_ERR_WAIT, &w));
	EXPECT_EQ(-EFAULT, err_wait(self->fd, id, 0, NULL, 1, 0, &got, NULL));
	none = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, none);
	EXPECT_EQ(-EFAULT, err_wait(self->fd, id, 0, none, 1, 0, &got, NULL))
		TH_LOG("events read-only");
	munmap(none, PAGE);
	got = 7;
	EXPECT_EQ(0, err_wait(self->fd, id, 0, ev, 4, 0, &got, NULL));
	EXPECT_EQ(0u, got);

	/* a signal ends a blocking wait with none queued */
	ASSERT_EQ(0, sigaction(SIGALRM, &sa, NULL));
	ASSERT_EQ(0, setitimer(ITIMER_REAL, &it, NULL));
	t = kgni_now();
	EXPECT_EQ(-EINTR, err_wait(self->fd, id, KGNI_ERR_WAIT_BLOCK, ev, 4,
				   0, &got, NULL));
	t = kgni_now() - t;
	EXPECT_TRUE(t > 0.1 && t < 5) TH_LOG("EINTR after %.3f s", t);

	/* release while a child waits on it through the same file: EBUSY */
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		__u32 n = 0;
		int r = err_wait(self->fd, id, KGNI_ERR_WAIT_BLOCK, ev, 4, 0,
				 &n, NULL);

		_exit(r == 0 && n == 1 ? 0 : 1);
	}
	usleep(300 * 1000);
	EXPECT_EQ(-EBUSY, err_release(self->fd, id));
	/* events: of the job's ptag, of the device, not of another ptag */
	if (err_inject("TRANSACTION 0x53") == 0) {
		EXPECT_EQ(0, err_inject("TRANSACTION 0x52"));
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
			TH_LOG("the waiting child got one event");
		EXPECT_EQ(0, err_inject("CRITICAL"));
		EXPECT_EQ(0, err_inject("INFORMATIONAL 0x52"));
		memset(ev, 0xee, sizeof(ev));
		EXPECT_EQ(0, err_wait(self->fd, id, KGNI_ERR_WAIT_BLOCK, ev, 4,
				      100, &got, &state));
		EXPECT_EQ(2u, got);
		EXPECT_EQ(ERRMASK_CRITICAL, ev[0].error_category);
		EXPECT_EQ(0, ev[0].ptag);
		EXPECT_EQ(ERRMASK_INFORMATIONAL, ev[1].error_category);
		EXPECT_EQ(TEST_PTAG, ev[1].ptag);
		EXPECT_EQ(ev[0].serial_number + 1, ev[1].serial_number);
		EXPECT_EQ(0, ev[2].error_code) TH_LOG("the rest zeroed");
		EXPECT_EQ((__u32)KGNI_ERR_WAIT_TIMED_OUT, state);
		/* the privileged one saw every ptag's */
		EXPECT_EQ(0, err_wait(fd3, other, 0, ev, 4, 0, &got, NULL));
		EXPECT_EQ(4u, got);
		EXPECT_EQ(0x53, ev[0].ptag);
		/* the queue of 4 keeps the newest, the serials tell */
		for (i = 0; i < 6; i++)
			EXPECT_EQ(0, err_inject("TRANSIENT"));
		EXPECT_EQ(0, err_wait(self->fd, id, 0, ev, 4, 0, &got, NULL));
		EXPECT_EQ(4u, got);
		EXPECT_EQ(ev[0].serial_number + 3, ev[3].serial_number);
		released_job(_metadata, self->fd);
	} else {
		TH_LOG("no debugfs: events not injected");
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}

	/* ptag filter: any as root; a user only its CDM's */
	pt = (struct kgni_err_ptag){ .size = sizeof(pt), .id = id,
				     .ptag = 256 };
	EXPECT_EQ(-EINVAL, xioctl(self->fd, KGNI_IOC_ERR_PTAG, &pt));
	pt.ptag = OTHER_PTAG;
	pt.flags = 1;
	EXPECT_EQ(-EINVAL, xioctl(self->fd, KGNI_IOC_ERR_PTAG, &pt));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct kgni_err_ptag p = { .size = sizeof(p), .id = id,
					   .ptag = OTHER_PTAG };
		__u32 x;
		int bad = 0;

		if (setgid(65534) || setuid(65534))
			_exit(2);
		bad |= xioctl(self->fd, KGNI_IOC_ERR_PTAG, &p) != -EPERM;
		p.ptag = 0;
		bad |= xioctl(self->fd, KGNI_IOC_ERR_PTAG, &p) != -EPERM;
		p.ptag = TEST_PTAG;
		bad |= xioctl(self->fd, KGNI_IOC_ERR_PTAG, &p) != 0;
		bad |= err_subscribe(fd3, KGNI_ERR_ALL_PTAGS, 1, 4, &x) !=
		       -EPERM;
		_exit(bad);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("unprivileged: PERMISSION for another ptag or 0 only");
	pt.flags = 0;
	EXPECT_EQ(0, xioctl(self->fd, KGNI_IOC_ERR_PTAG, &pt));

	/* a file's limit; use after release */
	for (i = 0; i < KGNI_ERR_FILE_SUBS - 1; i++)
		EXPECT_EQ(0, err_subscribe(self->fd, 0, 1, 1, &ids[i]));
	EXPECT_EQ(-ENOSPC, err_subscribe(self->fd, 0, 1, 1, &id2))
		TH_LOG("past KGNI_ERR_FILE_SUBS");
	EXPECT_EQ(0, err_release(self->fd, id));
	EXPECT_EQ(-EINVAL, err_release(self->fd, id));
	EXPECT_EQ(-EINVAL, err_wait(self->fd, id, 0, ev, 1, 0, &got, NULL));
	m = (struct kgni_err_mask){ .size = sizeof(m), .id = id };
	EXPECT_EQ(-EINVAL, xioctl(self->fd, KGNI_IOC_ERR_MASK, &m));
	EXPECT_EQ(0, err_subscribe(self->fd, 0, 1, 1, &id2));
	EXPECT_NE(id, id2) TH_LOG("a new id for the slot");
	EXPECT_EQ(-EINVAL, err_release(self->fd, id));
	/* close with subscriptions alive, one of them full */
	for (i = 0; i < 3; i++)
		err_inject("TRANSIENT");
	close(fd3);
	fd3 = open(KGNI_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd3);
	EXPECT_EQ(0, err_subscribe(fd3, KGNI_ERR_ALL_PTAGS, 1,
				   KGNI_ERR_USER_MAX_EEQ, &other));
	close(fd3);
}

/* --- mmap across processes ------------------------------------------- */

TEST_F(abi, mmap_other_process)
{
	struct kgni_cq_create cc;
	struct kgni_fma_alloc fa;
	int status;
	pid_t pid;

	if (self->absent)
		return;
	ASSERT_EQ(0, cq_create(self->fd, 0, 4, &cc));
	ASSERT_EQ(0, fma_alloc(self->fd, cc.cq_id, &fa));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		const __u64 offs[] = {
			cc.ring_offset, cc.user_offset, fa.user_offset,
			fa.put_wc_offset, fa.put_uc_offset, fa.get_offset,
		};
		struct kgni_cq_create mine;
		unsigned int i;
		int fd;

		fd = open(KGNI_DEV, O_RDWR | O_CLOEXEC);
		if (fd < 0 || cdm_attach(fd, TEST_PTAG, TEST_COOKIE, NULL) ||
		    cq_create(fd, 0, 4, &mine))
			_exit(10);
		for (i = 0; i < ARRAY_SIZE(offs); i++) {
			if (map(fd, offs[i], PAGE, PROT_READ))
				_exit(20 + i);
			if (map(fd, offs[i], PAGE, PROT_WRITE))
				_exit(30 + i);
		}
		/* its own ring: fine */
		if (!map(fd, mine.ring_offset, PAGE, PROT_READ))
			_exit(40);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("child status 0x%x (exit 2x/3x: offset x mapped; 10 "
		       "set-up; 40 its own ring)", status);
	EXPECT_EQ(0, fma_free(self->fd, fa.fma_id));
	EXPECT_EQ(0, cq_destroy(self->fd, cc.cq_id));
}

/* --- KGNI_IOC_JOB_SUSPEND and KGNI_IOC_JOB_RESUME ---------------------- */

#define NOBODY			65534

/* Has child @pid ended?  Its exit status in *@status if so. */
static bool ended(pid_t pid, int *status)
{
	return waitpid(pid, status, WNOHANG) == pid;
}

TEST_F_TIMEOUT(abi, job_suspend, 60)
{
	struct kgni_job_suspend s;
	struct kgni_cq_create cc;
	struct kgni_fma_alloc fa;
	volatile __u64 *user;
	int status;
	pid_t pid;
	__u64 h[2];

	if (self->absent)
		return;
	/* fields */
	memset(&s, 0, sizeof(s));
	s.size = sizeof(s);
	s.ptag = TEST_PTAG;
	s.cookie = TEST_COOKIE;
	s.reserved = 1;
	EXPECT_EQ(-EINVAL, xioctl(self->fd, KGNI_IOC_JOB_SUSPEND, &s));
	EXPECT_EQ(-EINVAL, xioctl(self->fd, KGNI_IOC_JOB_RESUME, &s));
	EXPECT_EQ(-EINVAL, job_suspend(self->fd, KGNI_IOC_JOB_SUSPEND, 2,
				       TEST_COOKIE, 0));
	EXPECT_EQ(-EINVAL, job_suspend(self->fd, KGNI_IOC_JOB_SUSPEND, 254,
				       TEST_COOKIE, 0));
	EXPECT_EQ(-EINVAL, job_suspend(self->fd, KGNI_IOC_JOB_RESUME,
				       TEST_PTAG, TEST_COOKIE, 5));
	/* unknown jobs */
	EXPECT_EQ(-ENOENT, job_suspend(self->fd, KGNI_IOC_JOB_SUSPEND,
				       OTHER_PTAG, 77, 0));
	EXPECT_EQ(-ENOENT, job_suspend(self->fd, KGNI_IOC_JOB_SUSPEND,
				       TEST_PTAG, TEST_COOKIE + 1, 0));
	EXPECT_EQ(-ENOENT, job_suspend(self->fd, KGNI_IOC_JOB_RESUME,
				       OTHER_PTAG, 77, 0));
	/* not root */
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int fd;

		if (setgid(NOBODY) || setuid(NOBODY))
			_exit(10);
		fd = open(KGNI_DEV, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			_exit(11);
		if (job_suspend(fd, KGNI_IOC_JOB_SUSPEND, TEST_PTAG,
				TEST_COOKIE, 0) != -EPERM)
			_exit(12);
		if (job_suspend(fd, KGNI_IOC_JOB_RESUME, TEST_PTAG,
				TEST_COOKIE, 0) != -EPERM)
			_exit(13);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("child status 0x%x (12: suspend, 13: resume not EPERM)",
		       status);

	/* states */
	EXPECT_EQ(-EALREADY, job_suspend(self->fd, KGNI_IOC_JOB_RESUME,
					 TEST_PTAG, TEST_COOKIE, 0));
	ASSERT_EQ(0, cq_create(self->fd, 0, 4, &cc));
	ASSERT_EQ(0, fma_alloc(self->fd, cc.cq_id, &fa));
	user = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, self->fd,
		    fa.user_offset);
	ASSERT_NE(MAP_FAILED, user);
	(void)user[0];
	ASSERT_EQ(0, mem_register_cq(self->fd, self->page, PAGE, 0, 0, h));
	ASSERT_EQ(0, job_suspend(self->fd, KGNI_IOC_JOB_SUSPEND, TEST_PTAG,
				 TEST_COOKIE, 2000));
	EXPECT_EQ(-EALREADY, job_suspend(self->fd, KGNI_IOC_JOB_SUSPEND,
					 TEST_PTAG, TEST_COOKIE, 0));
	/* a new mapping of its FMA: refused while suspended */
	EXPECT_EQ(MAP_FAILED, mmap(NULL, PAGE, PROT_READ, MAP_SHARED,
				   self->fd, fa.get_offset));
	EXPECT_EQ(EAGAIN, errno);

	/* a rank's access to its FMA page waits until the resume */
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		(void)user[0];
		_exit(0);
	}
	usleep(300 * 1000);
	EXPECT_FALSE(ended(pid, &status))
		TH_LOG("the child's FMA access did not wait");
	EXPECT_EQ(0, job_suspend(self->fd, KGNI_IOC_JOB_RESUME, TEST_PTAG,
				 TEST_COOKIE, 0));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("child status 0x%x after the resume", status);
	EXPECT_EQ(-EALREADY, job_suspend(self->fd, KGNI_IOC_JOB_RESUME,
					 TEST_PTAG, TEST_COOKIE, 0));
	/* mapped again after the resume */
	(void)user[0];

	/* an RDMA post waits too; a fatal signal ends it */
	ASSERT_EQ(0, job_suspend(self->fd, KGNI_IOC_JOB_SUSPEND, TEST_PTAG,
				 TEST_COOKIE, 2000));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct kgni_rdma_post p = {
			.size = sizeof(p), .type = KGNI_RDMA_PUT,
			.cq_id = cc.cq_id, .length = 8,
		};

		p.local_addr = (uintptr_t)self->page;
		p.remote_addr = (uintptr_t)self->page + 64;
		memcpy(p.local_mem_hndl, h, sizeof(h));
		memcpy(p.remote_mem_hndl, h, sizeof(h));
		_exit(xioctl(self->fd, KGNI_IOC_RDMA_POST, &p) ? 30 : 31);
	}
	usleep(300 * 1000);
	EXPECT_FALSE(ended(pid, &status))
		TH_LOG("the child's RDMA post did not wait");
	kill(pid, SIGTERM);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM)
		TH_LOG("child status 0x%x", status);
	/* releasing a suspended job resumes it */
	EXPECT_EQ(0, job_configure(self->fd, KGNI_JOB_RELEASE, TEST_PTAG,
				   TEST_COOKIE));
	EXPECT_EQ(-ENOENT, job_suspend(self->fd, KGNI_IOC_JOB_RESUME,
				       TEST_PTAG, TEST_COOKIE, 0));
	munmap((void *)user, PAGE);
}

/* --- the FMA user alias page -------------------------------------------- */

TEST_F(abi, fma_privileged_fields)
{
	const __u64 priv2 = (__u64)(GEMINI_FMA_MODE2_FMA_ENABLE |
				    GEMINI_FMA_MODE2_DT) <<
			    GEMINI_FMA_MODE2_SHIFT;
	struct kgni_cq_create cc;
	struct kgni_fma_alloc fa;
	volatile __u64 *u;
	__u64 qw3, qw2, got;

	if (self->absent)
		return;
	ASSERT_EQ(0, cq_create(self->fd, 0, 4, &cc));
	ASSERT_EQ(0, fma_alloc(self->fd, cc.cq_id, &fa));
	u = map(self->fd, fa.user_offset, PAGE, PROT_READ | PROT_WRITE);
	ASSERT_NE(NULL, u);

	/* QW3 (num_pes, pe_base, cq_hndl, ptags, NTT enable) is all the
	 * kernel's under Gemini's default privilege mask */
	qw3 = u[GEMINI_FMA_QW_PE / 8];
	u[GEMINI_FMA_QW_PE / 8] = ~qw3;
	EXPECT_EQ(qw3, u[GEMINI_FMA_QW_PE / 8]);
	u[GEMINI_FMA_QW_PE / 8] = 0;
	EXPECT_EQ(qw3, u[GEMINI_FMA_QW_PE / 8]);
	u[GEMINI_FMA_QW_PE / 8] = (__u64)OTHER_PTAG <<
				  GEMINI_FMA_SRC_PTAG_SHIFT |
				  (__u64)OTHER_PTAG <<
				  GEMINI_FMA_DEST_PTAG_SHIFT |
				  GEMINI_FMA_MODE3_NTT_ENABLE <<
				  GEMINI_FMA_MODE3_SHIFT;
	got = u[GEMINI_FMA_QW_PE / 8];
	EXPECT_EQ(qw3, got);
	/* what it reads, if it shows the fields at all: the kernel's */
	if (got >> GEMINI_FMA_SRC_PTAG_SHIFT & GEMINI_FMA_PTAG_MASK) {
		EXPECT_EQ((__u64)TEST_PTAG, got >> GEMINI_FMA_SRC_PTAG_SHIFT &
			  GEMINI_FMA_PTAG_MASK);
		EXPECT_EQ((__u64)TEST_PTAG, got >> GEMINI_FMA_DEST_PTAG_SHIFT &
			  GEMINI_FMA_PTAG_MASK);
		EXPECT_EQ((__u64)cc.cq_id, got >> GEMINI_FMA_CQH_SHIFT &
			  GEMINI_FMA_CQH_MASK);
		EXPECT_EQ(0ull, got >> GEMINI_FMA_MODE3_SHIFT &
			  GEMINI_FMA_MODE3_NTT_ENABLE);
	}

	/* QW2: the user's fields change, FMA and DT enable do not */
	qw2 = u[GEMINI_FMA_QW_CMD / 8];
	u[GEMINI_FMA_QW_CMD / 8] = (qw2 ^ priv2) |
				   (0x123ull << GEMINI_FMA_REM_MDH_SHIFT);
	got = u[GEMINI_FMA_QW_CMD / 8];
	EXPECT_EQ(qw2 & priv2, got & priv2)
		TH_LOG("QW2 0x%016llx -> 0x%016llx", (unsigned long long)qw2,
		       (unsigned long long)got);
	EXPECT_EQ(0x123ull, got >> GEMINI_FMA_REM_MDH_SHIFT &
		  GEMINI_FMA_MDH_MASK) TH_LOG("the user's remote MDH");

	/* the privilege mask is not reachable from the alias page */
	u[GEMINI_FMA_PRIV_MASK_REG / 8] = GEMINI_FMA_PRIV_ALL;
	u[GEMINI_FMA_QW_PE / 8] = ~qw3;
	EXPECT_EQ(qw3, u[GEMINI_FMA_QW_PE / 8])
		TH_LOG("QW3 changed after a write to +0x80 of the alias");

	munmap((void *)u, PAGE);
	EXPECT_EQ(0, fma_free(self->fd, fa.fma_id));
	EXPECT_EQ(0, cq_destroy(self->fd, cc.cq_id));
}

/* Last: the whole kernel log since boot, every test program's run. */
FIXTURE(zlog) {
	int unused;
};

FIXTURE_SETUP(zlog)
{
}

FIXTURE_TEARDOWN(zlog)
{
}

TEST_F(zlog, kernel_log_has_no_splat)
{
	unsigned int splats = 0;
	char text[1024];
	int fd;

	if (!kgni_require_device(_metadata))
		return;
	fd = kgni_kmsg_open(false);
	ASSERT_LE(0, fd) TH_LOG("/dev/kmsg: %s", strerror(errno));
	while (kgni_kmsg_next(fd, text, sizeof(text)))
		if (kgni_kmsg_is_splat(text) && splats++ < 20)
			TH_LOG("kernel: %s", text);
	close(fd);
	EXPECT_EQ(0u, splats);
}

TEST_HARNESS_MAIN
