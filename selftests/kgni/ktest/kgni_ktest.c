// SPDX-License-Identifier: GPL-2.0-only
/*
 * kgni_ktest: a kernel client of kgni's kernel API, for its tests
 * (selftests/kgni/kapi_test.c loads it).  Of kgni's headers it includes
 * gni_pub.h alone, and it is built out of tree through pkg-config, as
 * Lustre's gnilnd is (Documentation/kernel-api.rst, "Building a client"):
 * what it does, any client can.
 *
 * debugfs kgni_ktest/:
 *   ctl     write one command:
 *             selftest          the single-node checks of the kernel API
 *             hold PTAG COOKIE  create a CDM and attach it to device 0;
 *                               kept until release or unload
 *             release           destroy the CDM that hold made
 *   result  what the last command answered: for selftest TAP lines ("ok
 *           N - ...", "not ok N - ..." and the plan "1..N" last), for
 *           hold and release "rc N" (the gni_return_t)
 *
 * A command that cannot start (an unknown one, hold while holding,
 * release with nothing held) fails its write with EINVAL, EBUSY or
 * ENOENT and leaves result as it was.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/preempt.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/types.h>
#include <linux/uaccess.h>

#include <gni_pub.h>

#ifndef CONFIG_CRAY_GEMINI
#error "CONFIG_CRAY_GEMINI undefined: build with pkg-config --cflags cray-gni"
#endif

/* kgni's version symbol, fetched as gnilnd does (symbol_get()) */
extern u32 kgni_driver_version;
#define KTEST_MIN_DRIVER_VERSION	GNI_VERSION_CHECK(0, 0x44, 0xb9)

#define KTEST_DEVICE		0
/* A device a node has not: vgemini gives each node one NIC */
#define KTEST_NO_DEVICE		1
#define KTEST_PTAG		GNI_PTAG_LND	/* gnilnd's, a kernel ptag */
#define KTEST_COOKIE		GNI_JOB_CREATE_COOKIE(0x4b54, 0)
#define KTEST_INST		7
/* More CDMs than any device has job slots */
#define KTEST_MAX_CDMS		64
#define KTEST_RESULT_SIZE	16384
#define KTEST_CMD_MAX		64

static const char *const ktest_rc_names[] = {
	[GNI_RC_SUCCESS] = "GNI_RC_SUCCESS",
	[GNI_RC_NOT_DONE] = "GNI_RC_NOT_DONE",
	[GNI_RC_INVALID_PARAM] = "GNI_RC_INVALID_PARAM",
	[GNI_RC_ERROR_RESOURCE] = "GNI_RC_ERROR_RESOURCE",
	[GNI_RC_TIMEOUT] = "GNI_RC_TIMEOUT",
	[GNI_RC_PERMISSION_ERROR] = "GNI_RC_PERMISSION_ERROR",
	[GNI_RC_DESCRIPTOR_ERROR] = "GNI_RC_DESCRIPTOR_ERROR",
	[GNI_RC_ALIGNMENT_ERROR] = "GNI_RC_ALIGNMENT_ERROR",
	[GNI_RC_INVALID_STATE] = "GNI_RC_INVALID_STATE",
	[GNI_RC_NO_MATCH] = "GNI_RC_NO_MATCH",
	[GNI_RC_SIZE_ERROR] = "GNI_RC_SIZE_ERROR",
	[GNI_RC_TRANSACTION_ERROR] = "GNI_RC_TRANSACTION_ERROR",
	[GNI_RC_ILLEGAL_OP] = "GNI_RC_ILLEGAL_OP",
	[GNI_RC_ERROR_NOMEM] = "GNI_RC_ERROR_NOMEM",
};

static const char *ktest_rc_name(gni_return_t rc)
{
	if ((unsigned int)rc < ARRAY_SIZE(ktest_rc_names) &&
	    ktest_rc_names[rc])
		return ktest_rc_names[rc];
	return "(not a gni_return_t)";
}

static DEFINE_MUTEX(ktest_lock);	/* one command at a time */
static struct dentry *ktest_dir;
static char *ktest_result;		/* KTEST_RESULT_SIZE */
static size_t ktest_result_len;
static unsigned int ktest_n;		/* TAP lines of the result so far */
static gni_cdm_handle_t ktest_held;	/* hold's CDM */

static __printf(1, 2) void ktest_print(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ktest_result_len += vscnprintf(ktest_result + ktest_result_len,
				       KTEST_RESULT_SIZE - ktest_result_len,
				       fmt, ap);
	va_end(ap);
}

/* One TAP line; returns @ok. */
static __printf(2, 3) bool ktest_ok(bool ok, const char *fmt, ...)
{
	char what[160];
	va_list ap;

	va_start(ap, fmt);
	vscnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	ktest_print("%s %u - %s\n", ok ? "ok" : "not ok", ++ktest_n, what);
	return ok;
}

/* A call that must return @want. */
static bool ktest_rc(gni_return_t got, gni_return_t want, const char *what)
{
	if (got == want)
		return ktest_ok(true, "%s: %s", what, ktest_rc_name(got));
	return ktest_ok(false, "%s: %s, want %s", what, ktest_rc_name(got),
			ktest_rc_name(want));
}

static void ktest_quiesce_done(gni_nic_handle_t nic, u64 msecs)
{
	pr_info("a quiesce ended after %llu ms\n", msecs);
}

/* A (ptag, cookie) CDM attached to @device, or NULL; the code in *@rc. */
static gni_cdm_handle_t ktest_attached(u8 ptag, u32 cookie, u32 device,
				       gni_nic_handle_t *nic,
				       gni_return_t *rc)
{
	gni_cdm_handle_t cdm;
	u32 pe;

	*rc = gni_cdm_create(KTEST_INST, ptag, cookie, 0, &cdm);
	if (*rc != GNI_RC_SUCCESS)
		return NULL;
	*rc = gni_cdm_attach(cdm, device, &pe, nic);
	if (*rc != GNI_RC_SUCCESS) {
		gni_cdm_destroy(cdm);
		return NULL;
	}
	return cdm;
}

static void ktest_cdm_create_refusals(void)
{
	gni_cdm_handle_t cdm;

	ktest_rc(gni_cdm_create(0, KTEST_PTAG, KTEST_COOKIE, 0, NULL),
		 GNI_RC_INVALID_PARAM, "gni_cdm_create, no handle");
	ktest_rc(gni_cdm_create(0, 0, KTEST_COOKIE, 0, &cdm),
		 GNI_RC_INVALID_PARAM, "gni_cdm_create, ptag 0");
	ktest_rc(gni_cdm_create(0, GNI_PTAG_LB, KTEST_COOKIE, 0, &cdm),
		 GNI_RC_INVALID_PARAM, "gni_cdm_create, ptag 255");
	ktest_rc(gni_cdm_create(0, KTEST_PTAG, KTEST_COOKIE,
				GNI_CDM_MODE_PRIV_RESERVED_1, &cdm),
		 GNI_RC_INVALID_PARAM, "gni_cdm_create, a privileged mode");
}

/* gni_cdm_get_nic_address(); the device's PE in *@pe. */
static void ktest_nic_address(u32 *pe)
{
	u32 cpu = U32_MAX;

	*pe = U32_MAX;
	ktest_rc(gni_cdm_get_nic_address(KTEST_DEVICE, NULL, &cpu),
		 GNI_RC_INVALID_PARAM, "gni_cdm_get_nic_address, no address");
	ktest_rc(gni_cdm_get_nic_address(KTEST_DEVICE, pe, NULL),
		 GNI_RC_INVALID_PARAM, "gni_cdm_get_nic_address, no cpu_id");
	ktest_rc(gni_cdm_get_nic_address(KTEST_NO_DEVICE, pe, &cpu),
		 GNI_RC_NO_MATCH, "gni_cdm_get_nic_address, device 1");
	ktest_rc(gni_cdm_get_nic_address(U32_MAX, pe, &cpu),
		 GNI_RC_NO_MATCH, "gni_cdm_get_nic_address, device 0xffffffff");
	ktest_rc(gni_cdm_get_nic_address(KTEST_DEVICE, pe, &cpu),
		 GNI_RC_SUCCESS, "gni_cdm_get_nic_address, device 0");
	ktest_ok(*pe <= 0x3ffff && cpu < nr_cpu_ids,
		 "device 0: PE 0x%x, CPU %u", *pe, cpu);
}

/* Attach refusals of the not yet attached @cdm. */
static void ktest_attach_refusals(gni_cdm_handle_t cdm)
{
	static u64 no_handle[8];	/* tag 0: no handle of kgni's */
	gni_nic_handle_t nic;
	u32 pe;

	ktest_rc(gni_cdm_attach(NULL, KTEST_DEVICE, &pe, &nic),
		 GNI_RC_INVALID_PARAM, "gni_cdm_attach, no CDM");
	ktest_rc(gni_cdm_attach((gni_cdm_handle_t)no_handle, KTEST_DEVICE,
				&pe, &nic),
		 GNI_RC_INVALID_PARAM, "gni_cdm_attach, a CDM with tag 0");
	ktest_rc(gni_cdm_attach(cdm, KTEST_DEVICE, NULL, &nic),
		 GNI_RC_INVALID_PARAM, "gni_cdm_attach, no local_addr");
	ktest_rc(gni_cdm_attach(cdm, KTEST_DEVICE, &pe, NULL),
		 GNI_RC_INVALID_PARAM, "gni_cdm_attach, no nic_hndl");
	ktest_rc(gni_cdm_attach(cdm, KTEST_NO_DEVICE, &pe, &nic),
		 GNI_RC_NO_MATCH, "gni_cdm_attach, device 1");
	ktest_rc(gni_cdm_attach(cdm, U32_MAX, &pe, &nic),
		 GNI_RC_NO_MATCH, "gni_cdm_attach, device 0xffffffff");
}

/* Handles of one type given where another is expected. */
static void ktest_wrong_types(gni_cdm_handle_t cdm, gni_nic_handle_t nic)
{
	gni_nic_handle_t nic2;
	gni_errno_t e;
	u32 pe;

	ktest_rc(gni_cdm_attach((gni_cdm_handle_t)nic, KTEST_DEVICE, &pe,
				&nic2),
		 GNI_RC_INVALID_PARAM, "gni_cdm_attach of a NIC handle");
	ktest_rc(gni_cdm_destroy((gni_cdm_handle_t)nic),
		 GNI_RC_INVALID_PARAM, "gni_cdm_destroy of a NIC handle");
	ktest_rc(gni_set_quiesce_callback((gni_nic_handle_t)cdm,
					  ktest_quiesce_done),
		 GNI_RC_INVALID_PARAM, "gni_set_quiesce_callback of a CDM");
	ktest_rc(gni_get_errno((gni_nic_handle_t)cdm, &e),
		 GNI_RC_INVALID_PARAM, "gni_get_errno of a CDM");
	ktest_ok(gni_get_quiesce_status((gni_nic_handle_t)cdm) == 0,
		 "gni_get_quiesce_status of a CDM: 0");
}

/*
 * gni_get_errno(): the first failure on this CPU, once.  Migration is off
 * so that the calls record and read the same CPU's record.
 */
static void ktest_errno(gni_cdm_handle_t cdm2, gni_nic_handle_t nic)
{
	gni_cdm_handle_t tmp;
	gni_nic_handle_t nic2;
	gni_errno_t e;
	u32 pe;

	migrate_disable();
	/* Whatever an earlier failure on this CPU left */
	while (gni_get_errno(nic, &e) == GNI_RC_SUCCESS)
		;
	ktest_rc(gni_get_errno(nic, &e), GNI_RC_INVALID_STATE,
		 "gni_get_errno with nothing recorded");
	ktest_rc(gni_cdm_attach(cdm2, KTEST_NO_DEVICE, &pe, &nic2),
		 GNI_RC_NO_MATCH, "a failing call: gni_cdm_attach, device 1");
	/* The record keeps the first failure. */
	gni_cdm_create(0, 0, 0, 0, &tmp);
	memset(&e, 0xa5, sizeof(e));
	ktest_rc(gni_get_errno(nic, &e), GNI_RC_SUCCESS,
		 "gni_get_errno after it");
	ktest_ok(e.valid == 1 && !strcmp(e.func, "gni_cdm_attach") &&
		 e.lineno > 0 && e.errno == ENODEV &&
		 e.data1 == KTEST_NO_DEVICE,
		 "it recorded valid %u, func %.32s, line %d, errno %d, data1 %llu",
		 e.valid, e.func, e.lineno, e.errno, e.data1);
	ktest_rc(gni_get_errno(nic, &e), GNI_RC_INVALID_STATE,
		 "gni_get_errno again (reading invalidated it)");
	ktest_rc(gni_get_errno(nic, NULL), GNI_RC_INVALID_PARAM,
		 "gni_get_errno, no record");
	ktest_rc(gni_get_errno(NULL, &e), GNI_RC_INVALID_PARAM,
		 "gni_get_errno, no NIC");
	ktest_rc(gni_get_errno(nic, &e), GNI_RC_INVALID_STATE,
		 "gni_get_errno records no failure of its own");
	migrate_enable();
}

static void ktest_quiesce(gni_nic_handle_t nic)
{
	ktest_ok(gni_get_quiesce_status(nic) == 0,
		 "gni_get_quiesce_status: 0 (the fabric runs)");
	ktest_ok(gni_get_quiesce_status(NULL) == 0,
		 "gni_get_quiesce_status, no NIC: 0");
	ktest_rc(gni_set_quiesce_callback(nic, NULL), GNI_RC_INVALID_PARAM,
		 "gni_set_quiesce_callback, no function");
	ktest_rc(gni_set_quiesce_callback(NULL, ktest_quiesce_done),
		 GNI_RC_INVALID_PARAM, "gni_set_quiesce_callback, no NIC");
	ktest_rc(gni_set_quiesce_callback(nic, ktest_quiesce_done),
		 GNI_RC_SUCCESS, "gni_set_quiesce_callback");
	ktest_rc(gni_set_quiesce_callback(nic, ktest_quiesce_done),
		 GNI_RC_INVALID_STATE, "gni_set_quiesce_callback again");
}

/*
 * Kernel CDMs take job slots of the device until none is left; destroying
 * them gives the slots back.
 */
static void ktest_slots(void)
{
	gni_cdm_handle_t *cdms;
	gni_return_t rc = GNI_RC_SUCCESS, last;
	gni_nic_handle_t nic;
	unsigned int n = 0, i;
	bool destroyed = true;

	cdms = kcalloc(KTEST_MAX_CDMS, sizeof(*cdms), GFP_KERNEL);
	if (!ktest_ok(cdms, "room for %u CDMs", KTEST_MAX_CDMS))
		return;
	while (n < KTEST_MAX_CDMS) {
		cdms[n] = ktest_attached(KTEST_PTAG, KTEST_COOKIE + 1 + n,
					 KTEST_DEVICE, &nic, &rc);
		if (!cdms[n])
			break;
		n++;
	}
	ktest_ok(n > 0 && rc == GNI_RC_ERROR_RESOURCE,
		 "%u more CDMs attach, then %s (no job slot left)", n,
		 ktest_rc_name(rc));
	for (i = 0; i < n; i++)
		destroyed &= gni_cdm_destroy(cdms[i]) == GNI_RC_SUCCESS;
	ktest_ok(destroyed, "gni_cdm_destroy of the %u", n);
	cdms[0] = ktest_attached(KTEST_PTAG, KTEST_COOKIE + 1, KTEST_DEVICE,
				 &nic, &last);
	ktest_rc(last, GNI_RC_SUCCESS, "an attach after that");
	if (cdms[0])
		gni_cdm_destroy(cdms[0]);
	kfree(cdms);
}

static void ktest_version(void)
{
	u32 *v = symbol_get(kgni_driver_version);

	if (!ktest_ok(v, "symbol_get(kgni_driver_version)"))
		return;
	ktest_ok(*v >= KTEST_MIN_DRIVER_VERSION,
		 "kgni_driver_version 0x%08x >= 0x%08x", *v,
		 KTEST_MIN_DRIVER_VERSION);
	symbol_put(kgni_driver_version);
}

static void ktest_selftest(void)
{
	gni_cdm_handle_t cdm, cdm2, cdm3;
	gni_nic_handle_t nic, nic2;
	u32 pe, addr = 0;
	gni_return_t rc;

	ktest_cdm_create_refusals();
	ktest_nic_address(&pe);
	rc = gni_cdm_create(KTEST_INST, KTEST_PTAG, KTEST_COOKIE, 0, &cdm);
	if (!ktest_rc(rc, GNI_RC_SUCCESS, "gni_cdm_create, ptag 1"))
		goto out;
	ktest_attach_refusals(cdm);
	rc = gni_cdm_attach(cdm, KTEST_DEVICE, &addr, &nic);
	if (!ktest_rc(rc, GNI_RC_SUCCESS, "gni_cdm_attach, device 0")) {
		gni_cdm_destroy(cdm);
		goto out;
	}
	ktest_ok(addr == pe, "local_addr 0x%x is the NIC address 0x%x",
		 addr, pe);
	ktest_rc(gni_cdm_attach(cdm, KTEST_DEVICE, &addr, &nic2),
		 GNI_RC_INVALID_STATE, "gni_cdm_attach again");
	ktest_wrong_types(cdm, nic);

	/* A second kernel client on the same ptag, with its own cookie */
	cdm2 = ktest_attached(KTEST_PTAG, KTEST_COOKIE + 1, KTEST_DEVICE,
			      &nic2, &rc);
	ktest_rc(rc, GNI_RC_SUCCESS, "a second CDM on ptag 1 attaches");
	if (cdm2)
		ktest_rc(gni_cdm_destroy(cdm2), GNI_RC_SUCCESS,
			 "gni_cdm_destroy of an attached CDM");

	rc = gni_cdm_create(KTEST_INST, KTEST_PTAG, KTEST_COOKIE, 0, &cdm3);
	if (ktest_rc(rc, GNI_RC_SUCCESS, "gni_cdm_create, another")) {
		ktest_errno(cdm3, nic);
		ktest_rc(gni_cdm_destroy(cdm3), GNI_RC_SUCCESS,
			 "gni_cdm_destroy of a CDM never attached");
	}
	ktest_quiesce(nic);
	ktest_slots();
	ktest_rc(gni_cdm_destroy(NULL), GNI_RC_INVALID_PARAM,
		 "gni_cdm_destroy, no CDM");
	ktest_rc(gni_cdm_destroy(cdm), GNI_RC_SUCCESS,
		 "gni_cdm_destroy (its NIC has a quiesce callback)");
out:
	ktest_version();
	ktest_print("1..%u\n", ktest_n);
}

/* hold PTAG COOKIE */
static int ktest_hold(char *args)
{
	gni_nic_handle_t nic;
	char *ptag_s, *cookie_s;
	gni_return_t rc;
	u32 cookie;
	u8 ptag;

	ptag_s = strsep(&args, " ");
	cookie_s = strsep(&args, " ");
	if (!ptag_s || !cookie_s || args || kstrtou8(ptag_s, 0, &ptag) ||
	    kstrtou32(cookie_s, 0, &cookie))
		return -EINVAL;
	if (ktest_held)
		return -EBUSY;
	ktest_held = ktest_attached(ptag, cookie, KTEST_DEVICE, &nic, &rc);
	ktest_result_len = 0;
	ktest_print("rc %d\n", rc);
	return 0;
}

static int ktest_release(void)
{
	gni_return_t rc;

	if (!ktest_held)
		return -ENOENT;
	rc = gni_cdm_destroy(ktest_held);
	ktest_held = NULL;
	ktest_result_len = 0;
	ktest_print("rc %d\n", rc);
	return 0;
}

static ssize_t ktest_ctl_write(struct file *file, const char __user *ubuf,
			       size_t len, loff_t *ppos)
{
	char buf[KTEST_CMD_MAX], *cmd, *args;
	int ret = -EINVAL;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	args = strim(buf);
	cmd = strsep(&args, " ");

	mutex_lock(&ktest_lock);
	if (!strcmp(cmd, "selftest") && !args) {
		ktest_result_len = 0;
		ktest_n = 0;
		ktest_selftest();
		ret = 0;
	} else if (!strcmp(cmd, "hold") && args) {
		ret = ktest_hold(args);
	} else if (!strcmp(cmd, "release") && !args) {
		ret = ktest_release();
	}
	mutex_unlock(&ktest_lock);
	return ret ? ret : len;
}

static ssize_t ktest_result_read(struct file *file, char __user *ubuf,
				 size_t len, loff_t *ppos)
{
	ssize_t ret;

	mutex_lock(&ktest_lock);
	ret = simple_read_from_buffer(ubuf, len, ppos, ktest_result,
				      ktest_result_len);
	mutex_unlock(&ktest_lock);
	return ret;
}

static const struct file_operations ktest_ctl_fops = {
	.owner = THIS_MODULE,
	.write = ktest_ctl_write,
	.llseek = noop_llseek,
};

static const struct file_operations ktest_result_fops = {
	.owner = THIS_MODULE,
	.read = ktest_result_read,
	.llseek = default_llseek,
};

static int __init ktest_init(void)
{
	ktest_result = kzalloc(KTEST_RESULT_SIZE, GFP_KERNEL);
	if (!ktest_result)
		return -ENOMEM;
	ktest_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("ctl", 0200, ktest_dir, NULL, &ktest_ctl_fops);
	debugfs_create_file("result", 0400, ktest_dir, NULL,
			    &ktest_result_fops);
	return 0;
}
module_init(ktest_init);

static void __exit ktest_exit(void)
{
	debugfs_remove_recursive(ktest_dir);
	if (ktest_held)
		gni_cdm_destroy(ktest_held);
	kfree(ktest_result);
}
module_exit(ktest_exit);

MODULE_DESCRIPTION("Test client of kgni's kernel API (vgemini)");
MODULE_AUTHOR("vgemini developers");
MODULE_LICENSE("GPL");
