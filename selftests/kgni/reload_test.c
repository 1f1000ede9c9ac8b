// SPDX-License-Identifier: GPL-2.0-only
/*
 * kgni reload test: unload and load kgni.ko several times.  After each
 * unload /dev/kgni0, /sys/class/gni and the PCI binding must be gone; after
 * each load they must be back with the same identity, and the kernel log
 * must show no BUG, WARNING or oops.
 *
 * The module file is /lib/modules/kgni.ko, or $KGNI_MODULE.
 */
#define _GNU_SOURCE
#include "kgni_test.h"

#define RELOADS			3
#define DEFAULT_MODULE		"/lib/modules/kgni.ko"
/* devtmpfs and sysfs follow at once; allow for a slow guest anyway. */
#define APPEAR_TIMEOUT_S	10

/* Attributes that do not change while the machine runs. */
static const char *const fixed_attrs[] = {
	KGNI_CLASS "/version",
	KGNI_SYSFS "/nic_address",
	KGNI_SYSFS "/gemini_id",
	KGNI_SYSFS "/coord",
	KGNI_SYSFS "/dims",
	KGNI_SYSFS "/ports/xp_expected",
	KGNI_SYSFS "/ports/xm_expected",
	KGNI_SYSFS "/ports/yp_expected",
	KGNI_SYSFS "/ports/ym_expected",
	KGNI_SYSFS "/ports/zp_expected",
	KGNI_SYSFS "/ports/zm_expected",
};
#define NUM_FIXED	ARRAY_SIZE(fixed_attrs)

struct snapshot {
	char val[NUM_FIXED][256];
};

FIXTURE(reload) {
	bool absent;	/* setup SKIPped; 6.1's harness still runs the test */
	const char *module;
	char pci[64];
	int kmsg;
	struct snapshot before;
};

static int snapshot_take(struct snapshot *s)
{
	unsigned int i;
	int ret;

	for (i = 0; i < NUM_FIXED; i++) {
		ret = kgni_read_file(fixed_attrs[i], s->val[i],
				     sizeof(s->val[i]));
		if (ret)
			return ret;
	}
	return 0;
}

static int rmmod_kgni(void)
{
	return kgni_rmmod("kgni");
}

/* Wait until @path exists (@present) or is gone (!@present). */
static bool wait_path(const char *path, bool present)
{
	double deadline = kgni_now() + APPEAR_TIMEOUT_S;

	while (kgni_exists(path) != present) {
		if (kgni_now() > deadline)
			return false;
		usleep(20 * 1000);
	}
	return true;
}

FIXTURE_SETUP(reload)
{
	self->kmsg = -1;
	if (!kgni_fixture_setup(_metadata, 0, &self->absent, NULL, NULL))
		return;
	self->module = getenv("KGNI_MODULE") ?: DEFAULT_MODULE;
	if (!kgni_exists(self->module)) {
		self->absent = true;
		SKIP(return, "no module file %s to load again", self->module);
	}
	ASSERT_TRUE(kgni_exists(KGNI_MODULE_SYSFS))
		TH_LOG("kgni is built in or gone: cannot reload it");
	ASSERT_TRUE(kgni_find_pci(self->pci, sizeof(self->pci)));
	ASSERT_EQ(0, snapshot_take(&self->before));
	self->kmsg = kgni_kmsg_open(true);
	ASSERT_LE(0, self->kmsg) TH_LOG("/dev/kmsg: %s", strerror(errno));
}

/* Whatever happened, leave kgni loaded for the tests that follow. */
FIXTURE_TEARDOWN(reload)
{
	if (self->absent)
		return;
	if (!kgni_exists(KGNI_MODULE_SYSFS))
		kgni_insmod(self->module);
	if (self->kmsg >= 0)
		close(self->kmsg);
}


/* No kernel splat logged since the fixture was set up. */
static void check_kmsg(struct __test_metadata *_metadata, int fd)
{
	char text[1024];
	unsigned int splats = 0;

	while (kgni_kmsg_next(fd, text, sizeof(text))) {
		if (kgni_kmsg_is_splat(text)) {
			TH_LOG("kernel: %s", text);
			splats++;
		}
	}
	EXPECT_EQ(0u, splats);
}

static void check_unloaded(struct __test_metadata *_metadata,
			   const char *pci)
{
	char drv[64];

	EXPECT_TRUE(wait_path(KGNI_DEV, false))
		TH_LOG("%s still there after rmmod", KGNI_DEV);
	EXPECT_FALSE(kgni_exists(KGNI_SYSFS));
	EXPECT_FALSE(kgni_exists(KGNI_CLASS))
		TH_LOG("class gni not unregistered");
	EXPECT_FALSE(kgni_exists(KGNI_MODULE_SYSFS));
	kgni_pci_driver(pci, drv, sizeof(drv));
	EXPECT_STREQ("none", drv);
}

static void check_loaded(struct __test_metadata *_metadata, const char *pci,
			 const struct snapshot *before)
{
	unsigned int i, changed = 0;
	struct snapshot after;
	char drv[64];
	int fd;

	ASSERT_TRUE(wait_path(KGNI_DEV, true))
		TH_LOG("no %s %d s after insmod", KGNI_DEV, APPEAR_TIMEOUT_S);
	kgni_pci_driver(pci, drv, sizeof(drv));
	EXPECT_STREQ("kgni", drv);
	ASSERT_EQ(0, snapshot_take(&after));
	for (i = 0; i < NUM_FIXED; i++) {
		if (strcmp(before->val[i], after.val[i])) {
			TH_LOG("%s was \"%s\", is \"%s\" after reload",
			       fixed_attrs[i], before->val[i], after.val[i]);
			changed++;
		}
	}
	EXPECT_EQ(0u, changed);
	fd = open(KGNI_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd) TH_LOG("open %s: %s", KGNI_DEV, strerror(errno));
	close(fd);
}

TEST_F_TIMEOUT(reload, cycles, 120)
{
	unsigned int i;
	int ret;

	if (self->absent)
		return;
	for (i = 0; i < RELOADS; i++) {
		ret = rmmod_kgni();
		ASSERT_EQ(0, ret)
			TH_LOG("reload %u: delete_module: %s", i, strerror(-ret));
		check_unloaded(_metadata, self->pci);

		ret = kgni_insmod(self->module);
		ASSERT_EQ(0, ret)
			TH_LOG("reload %u: finit_module %s: %s", i,
			       self->module, strerror(-ret));
		check_loaded(_metadata, self->pci, &self->before);
	}
	check_kmsg(_metadata, self->kmsg);
}

/* An open /dev/kgni0 pins the module: rmmod must fail and change nothing. */
TEST_F(reload, busy_while_open)
{
	int fd, ret;

	if (self->absent)
		return;
	fd = open(KGNI_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd) TH_LOG("open %s: %s", KGNI_DEV, strerror(errno));
	ret = rmmod_kgni();
	EXPECT_EQ(-EWOULDBLOCK, ret)
		TH_LOG("delete_module with %s open: %s", KGNI_DEV,
		       ret ? strerror(-ret) : "succeeded");
	EXPECT_TRUE(kgni_exists(KGNI_SYSFS));
	EXPECT_TRUE(kgni_exists(KGNI_DEV));
	EXPECT_EQ(0, close(fd));

	check_loaded(_metadata, self->pci, &self->before);
	check_kmsg(_metadata, self->kmsg);
}

TEST_HARNESS_MAIN
