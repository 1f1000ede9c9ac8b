// SPDX-License-Identifier: GPL-2.0-only
/*
 * kapi_test: kgni's kernel API through its test client kgni_ktest.ko
 * (selftests/kgni/ktest/), and the partition between kernel clients and
 * user jobs (Documentation/kernel-api.rst).
 *
 * As root, each test loads the client (/lib/modules/kgni_ktest.ko, or
 * $KGNI_KTEST_MODULE; SKIP without it), gives it commands through debugfs
 * kgni_ktest/ctl, reads kgni_ktest/result, and unloads it.  The kernel
 * log must show meanwhile no BUG, WARNING (a return code outside a
 * function's list is one), oops, nor any error-level line of kgni or the
 * client.
 *
 * - selftest: the client's own single-node checks, each of its TAP lines
 *   logged; none may fail.
 * - Jobs get only user ptags: JOB_CONFIGURE refuses 0, 1, 2, 254 and 255
 *   (EINVAL), allows 3 and 253.
 * - A ptag a kernel CDM holds: JOB_CONFIGURE refuses it (EBUSY), whatever
 *   the cookie; releasing the kernel's pair is EPERM, attaching to it
 *   EPERM (as for a pair no job has); once the CDM is destroyed a job may
 *   take the ptag.
 * - A ptag a job holds: gni_cdm_attach() refuses it (ERROR_RESOURCE).
 * - Error events: with the client subscribed (err watch), events written
 *   into kgni's debugfs kgni0/inject_error reach it as its mask and ptag
 *   filter say, in order, with serials; a full queue drops the oldest;
 *   the callbacks run, in process context; a subscription without a
 *   queue gets the critical callback; release with events queued and a
 *   CDM destroyed with its subscription both succeed.
 */
#define _GNU_SOURCE
#include <stdint.h>

#include "kgni_test.h"
#include "kgni_ioctl.h"
#include "kgni_dp.h"

#define KTEST_NAME		"kgni_ktest"
#define KTEST_MODULE		"/lib/modules/kgni_ktest.ko"
#define KTEST_DEBUGFS		"/sys/kernel/debug/kgni_ktest"
#define KTEST_CTL		KTEST_DEBUGFS "/ctl"
#define KTEST_RESULT		KTEST_DEBUGFS "/result"
/* A user ptag that no other selftest configures */
#define HELD_PTAG		250
#define HELD_COOKIE		0x4b540001u
#define USER_COOKIE		0x75000001u
/* gni_return_t values as the client prints them */
#define RC_SUCCESS		0
#define RC_ERROR_RESOURCE	3
/* kgni's error injection, and what the client's err read answers */
#define INJECT_ERROR		"/sys/kernel/debug/kgni0/inject_error"
#define ERR_INJECTED		0x0f01	/* KGNI_ERR_INJECTED */
#define ERRMASK_CRITICAL	0x02u
#define ERRMASK_TRANSIENT	0x10u
#define ERR_MAX_EVENTS		16
/* Levels of /dev/kmsg records (syslog's) */
#define KMSG_LEVEL_ERR		3

FIXTURE(kapi) {
	bool absent;	/* setup SKIPped; 6.1's harness still runs the test */
	bool loaded;
	int kmsg;
	int fd;
};

FIXTURE_SETUP(kapi)
{
	const char *module = getenv("KGNI_KTEST_MODULE") ?: KTEST_MODULE;
	int ret;

	self->loaded = false;
	if (!kgni_fixture_setup(_metadata, KGNI_FIXTURE_ROOT, &self->absent,
				&self->kmsg, &self->fd))
		return;
	if (!kgni_exists(module)) {
		self->absent = true;
		SKIP(return, "no %s (make ktest)", module);
	}
	ret = kgni_insmod(module);
	if (ret == -EEXIST) {	/* left by a run that died */
		ASSERT_EQ(0, kgni_rmmod(KTEST_NAME));
		ret = kgni_insmod(module);
	}
	ASSERT_EQ(0, ret) TH_LOG("insmod %s: %s", module, strerror(-ret));
	self->loaded = true;
	ASSERT_TRUE(kgni_wait_path(KTEST_CTL, true))
		TH_LOG("no %s: is debugfs mounted?", KTEST_CTL);
}

/*
 * Error-level lines of kgni or the client, and splats, in the kernel log
 * since set-up; each is logged.
 */
static unsigned int kmsg_bad(struct __test_metadata *_metadata, int fd)
{
	unsigned int bad = 0, level;
	char text[1024];

	while (kgni_kmsg_next_level(fd, text, sizeof(text), &level)) {
		if (kgni_kmsg_is_splat(text) ||
		    (level <= KMSG_LEVEL_ERR && strstr(text, "kgni"))) {
			TH_LOG("kernel: %s", text);
			bad++;
		}
	}
	return bad;
}

FIXTURE_TEARDOWN(kapi)
{
	if (self->absent)
		return;
	if (self->loaded)
		EXPECT_EQ(0, kgni_rmmod(KTEST_NAME));
	if (self->fd >= 0) {
		job_configure(self->fd, KGNI_JOB_RELEASE, HELD_PTAG,
			      USER_COOKIE);
		close(self->fd);
	}
	if (self->kmsg >= 0) {
		EXPECT_EQ(0u, kmsg_bad(_metadata, self->kmsg));
		close(self->kmsg);
	}
}

/*
 * Give the client @cmd and read its answer into @out; 0, or -errno of the
 * write (a command that could not start) or of the read.
 */
static int ktest(const char *cmd, char *out, size_t size)
{
	ssize_t n, len = strlen(cmd);
	int fd, ret = 0;

	fd = open(KTEST_CTL, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, cmd, len);
	if (n != len)
		ret = n < 0 ? -errno : -EIO;
	close(fd);
	if (ret)
		return ret;
	return kgni_read_file(KTEST_RESULT, out, size);
}

/* The gni_return_t of hold or release, or -1 */
static int ktest_rc(struct __test_metadata *_metadata, const char *cmd)
{
	char out[64];
	int ret, rc;

	ret = ktest(cmd, out, sizeof(out));
	if (ret) {
		TH_LOG("%s: %s", cmd, strerror(-ret));
		return -1;
	}
	if (sscanf(out, "rc %d", &rc) != 1) {
		TH_LOG("%s: answered \"%s\"", cmd, out);
		return -1;
	}
	return rc;
}

static int hold(struct __test_metadata *_metadata, unsigned int ptag,
		__u32 cookie)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "hold %u 0x%x", ptag, cookie);
	return ktest_rc(_metadata, cmd);
}

/* The client's own checks: every TAP line logged, none failed. */
TEST_F(kapi, selftest)
{
	unsigned int ok = 0, not_ok = 0, plan = 0;
	static char out[131072];	/* KTEST_RESULT_SIZE */
	char *line, *save;

	if (self->absent)
		return;
	ASSERT_EQ(0, ktest("selftest", out, sizeof(out)));
	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		TH_LOG("ktest: %s", line);
		if (!strncmp(line, "ok ", 3))
			ok++;
		else if (!strncmp(line, "not ok ", 7))
			not_ok++;
		else if (sscanf(line, "1..%u", &plan) != 1)
			TH_LOG("(not a TAP line)");
	}
	EXPECT_EQ(0u, not_ok);
	EXPECT_EQ(ok + not_ok, plan);
	EXPECT_LE(40u, ok);
}

/* Jobs get GNI_PTAG_USER_START (3) to GNI_PTAG_USER_END (253) only. */
TEST_F(kapi, job_ptags)
{
	static const __u32 refused[] = { 0, 1, 2, 254, 255 };
	static const __u32 allowed[] = { 3, 253 };
	unsigned int i;

	if (self->absent)
		return;
	for (i = 0; i < ARRAY_SIZE(refused); i++)
		EXPECT_EQ(-EINVAL, job_configure(self->fd, 0, refused[i],
						 USER_COOKIE))
			TH_LOG("ptag %u", refused[i]);
	for (i = 0; i < ARRAY_SIZE(allowed); i++) {
		EXPECT_EQ(0, job_configure(self->fd, 0, allowed[i],
					   USER_COOKIE))
			TH_LOG("ptag %u", allowed[i]);
		EXPECT_EQ(0, job_configure(self->fd, KGNI_JOB_RELEASE,
					   allowed[i], USER_COOKIE));
	}
}

/* A ptag a kernel CDM holds is no job's, and its pair no file's. */
TEST_F(kapi, kernel_ptag)
{
	if (self->absent)
		return;
	ASSERT_EQ(RC_SUCCESS, hold(_metadata, HELD_PTAG, HELD_COOKIE));
	EXPECT_EQ(-EBUSY, job_configure(self->fd, 0, HELD_PTAG, USER_COOKIE));
	EXPECT_EQ(-EBUSY, job_configure(self->fd, 0, HELD_PTAG, HELD_COOKIE));
	EXPECT_EQ(-EPERM, job_configure(self->fd, KGNI_JOB_RELEASE, HELD_PTAG,
					HELD_COOKIE));
	EXPECT_EQ(-EPERM, cdm_attach(self->fd, HELD_PTAG, HELD_COOKIE, NULL));
	EXPECT_EQ(RC_SUCCESS, ktest_rc(_metadata, "release"));

	/* The ptag is free again. */
	EXPECT_EQ(0, job_configure(self->fd, 0, HELD_PTAG, USER_COOKIE));
	EXPECT_EQ(0, job_configure(self->fd, KGNI_JOB_RELEASE, HELD_PTAG,
				   USER_COOKIE));
}

/* gnilnd's ptag 1: no job may have it, no file attach to the pair. */
TEST_F(kapi, lnd_ptag)
{
	if (self->absent)
		return;
	ASSERT_EQ(RC_SUCCESS, hold(_metadata, 1, HELD_COOKIE));
	EXPECT_EQ(-EPERM, cdm_attach(self->fd, 1, HELD_COOKIE, NULL));
	EXPECT_EQ(-EINVAL, job_configure(self->fd, 0, 1, HELD_COOKIE));
	EXPECT_EQ(RC_SUCCESS, ktest_rc(_metadata, "release"));
}

/* A ptag a job holds is refused to the kernel, whatever the cookie. */
TEST_F(kapi, job_ptag_refused_to_kernel)
{
	char out[64];

	if (self->absent)
		return;
	ASSERT_EQ(0, job_configure(self->fd, 0, HELD_PTAG, USER_COOKIE));
	EXPECT_EQ(RC_ERROR_RESOURCE, hold(_metadata, HELD_PTAG, HELD_COOKIE));
	EXPECT_EQ(RC_ERROR_RESOURCE, hold(_metadata, HELD_PTAG, USER_COOKIE));
	EXPECT_EQ(-ENOENT, ktest("release", out, sizeof(out)))
		TH_LOG("nothing held");
	EXPECT_EQ(0, job_configure(self->fd, KGNI_JOB_RELEASE, HELD_PTAG,
				   USER_COOKIE));
	EXPECT_EQ(RC_SUCCESS, hold(_metadata, HELD_PTAG, HELD_COOKIE));
	EXPECT_EQ(RC_SUCCESS, ktest_rc(_metadata, "release"));
}

/* What err read answered: the injected events, the callback counts */
struct err_read {
	unsigned int n;
	unsigned int cls[ERR_MAX_EVENTS];
	unsigned int serial[ERR_MAX_EVENTS];
	int news, crits, bad;
};

/*
 * err read until the callback counts reach @news and @crits (2 s at
 * most: the callbacks run from a work item); events of other codes (a
 * link that changed meanwhile) are not counted.  false if it failed.
 */
static bool err_read(struct __test_metadata *_metadata, int news, int crits,
		     struct err_read *r)
{
	char out[4096], *line, *save;
	unsigned int code, cls, ptag, serial, tries;

	/* A later read takes no event again: keep what the first took. */
	memset(r, 0, sizeof(*r));
	for (tries = 0; tries < 100; tries++) {
		r->news = -1;
		if (ktest("err read", out, sizeof(out))) {
			TH_LOG("err read failed");
			return false;
		}
		for (line = strtok_r(out, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			TH_LOG("ktest: %s", line);
			if (sscanf(line, "event code 0x%x class 0x%x ptag %u serial %u",
				   &code, &cls, &ptag, &serial) == 4) {
				if (code == ERR_INJECTED && r->n < ERR_MAX_EVENTS) {
					r->cls[r->n] = cls;
					r->serial[r->n++] = serial;
				}
			} else if (sscanf(line, "calls new %d crit %d bad %d",
					  &r->news, &r->crits, &r->bad) != 3) {
				TH_LOG("(not an err read line)");
			}
		}
		if (r->news < 0)
			return false;
		if (r->news >= news && r->crits >= crits)
			return true;
		usleep(20 * 1000);
	}
	return true;
}

/* Injected events reach a subscription as its mask and ptag say. */
TEST_F(kapi, errors)
{
	struct err_read r;
	unsigned int i;

	if (self->absent)
		return;
	if (!kgni_exists(INJECT_ERROR))
		SKIP(return, "no %s", INJECT_ERROR);
	/* TRANSIENT and CRITICAL, a queue of 4, the ptag filter 1 */
	ASSERT_EQ(RC_SUCCESS, ktest_rc(_metadata, "err watch 0x12 4"));
	ASSERT_TRUE(kgni_write_file(INJECT_ERROR, "TRANSIENT"));
	ASSERT_TRUE(kgni_write_file(INJECT_ERROR, "GNI_ERRMASK_CRITICAL"));
	ASSERT_TRUE(kgni_write_file(INJECT_ERROR, "informational"));
	ASSERT_TRUE(kgni_write_file(INJECT_ERROR, "0x10 99"));	/* ptag 99 */
	ASSERT_TRUE(kgni_write_file(INJECT_ERROR, "0x10 1"));	/* ptag 1 */
	EXPECT_FALSE(kgni_write_file(INJECT_ERROR, "0x12"));
	EXPECT_FALSE(kgni_write_file(INJECT_ERROR, "NO_SUCH_CLASS"));
	ASSERT_TRUE(err_read(_metadata, 3, 1, &r));
	ASSERT_EQ(3u, r.n);
	EXPECT_EQ(ERRMASK_TRANSIENT, r.cls[0]);
	EXPECT_EQ(ERRMASK_CRITICAL, r.cls[1]);
	EXPECT_EQ(ERRMASK_TRANSIENT, r.cls[2]);
	EXPECT_LT(r.serial[0], r.serial[1]);
	EXPECT_LT(r.serial[1], r.serial[2]);
	EXPECT_LE(3, r.news);
	EXPECT_EQ(1, r.crits);
	EXPECT_EQ(0, r.bad);

	/* Six more into a queue of four: the oldest two dropped */
	for (i = 0; i < 6; i++)
		ASSERT_TRUE(kgni_write_file(INJECT_ERROR, "TRANSIENT"));
	ASSERT_TRUE(err_read(_metadata, 9, 1, &r));
	ASSERT_EQ(4u, r.n);
	for (i = 1; i < r.n; i++)
		EXPECT_EQ(r.serial[i - 1] + 1, r.serial[i]);
	EXPECT_LE(9, r.news);

	/* Released with an event queued */
	ASSERT_TRUE(kgni_write_file(INJECT_ERROR, "TRANSIENT"));
	EXPECT_EQ(RC_SUCCESS, ktest_rc(_metadata, "err stop"));

	/* gnilnd's: no queue; the critical callback whatever the mask */
	ASSERT_EQ(RC_SUCCESS, ktest_rc(_metadata, "err watch 0x80 0"));
	ASSERT_TRUE(kgni_write_file(INJECT_ERROR, "CRITICAL"));
	ASSERT_TRUE(err_read(_metadata, 0, 1, &r));
	EXPECT_EQ(0u, r.n);
	EXPECT_EQ(1, r.crits);
	EXPECT_EQ(0, r.news);
	EXPECT_EQ(0, r.bad);
	/* The CDM destroyed with its subscription */
	EXPECT_EQ(RC_SUCCESS, ktest_rc(_metadata, "err leave"));
	ASSERT_TRUE(kgni_write_file(INJECT_ERROR, "CRITICAL"));
}

TEST_HARNESS_MAIN
