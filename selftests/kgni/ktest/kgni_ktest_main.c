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
 *             selftest          the single-node checks of the kernel API,
 *                               loopback RDMA, FMA and datagrams on
 *                               the node's own PE, SMSG between two of
 *                               its endpoints
 *             hold PTAG COOKIE  create a CDM and attach it to device 0;
 *                               kept until release or unload
 *             release           destroy the CDM that hold made
 *             rca watch         register with RCA and subscribe to the
 *                               three node events; kept until rca stop
 *                               or unload
 *             rca read          take the events queued since, then list
 *                               the nodes (krca_get_sysnodes())
 *             rca stop          unsubscribe and unregister
 *             err watch MASK EEQ_SIZE
 *                               a CDM of its own on device 0, subscribed
 *                               to MASK's error events with a queue of
 *                               EEQ_SIZE (0: callbacks only) and both
 *                               callbacks; kept until err stop, err
 *                               leave or unload
 *             err read          take the queued events, then count the
 *                               callbacks
 *             err stop          gni_release_errors, then destroy the CDM
 *             err leave         destroy the CDM with the subscription
 *             peer ...          connections to this client on other
 *                               nodes, SMSG and RDMA over them:
 *                               kgni_ktest_peer.c, which says what they
 *                               do and answer
 *   result  what the last command answered: for selftest TAP lines ("ok
 *           N - ...", "not ok N - ..." and the plan "1..N" last), for
 *           hold and release "rc N" (the gni_return_t), for rca watch and
 *           stop "rc N" (the krca_* result), for rca read one line per
 *           event, "event SEQ unavailable|available|failed nid N state
 *           0xS", then one per node, "node N ready|down"; for err watch,
 *           stop and leave "rc N" (the gni_return_t), for err read one
 *           line per event, "event code 0xC class 0xM ptag P serial S
 *           info 0xI0 0xI1 0xI2", then "calls new N crit N bad N" (bad:
 *           callbacks called in atomic context)
 *
 * A command that cannot start (an unknown one, hold while holding,
 * release with nothing held, rca watch while watching, rca read or stop
 * without, err and peer likewise) fails its write with EINVAL, EBUSY or
 * ENOENT and leaves result as it was.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/io.h>
#include <linux/irqflags.h>
#include <linux/gfp.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/preempt.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/timer.h>
#include <linux/types.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include <gni_pub.h>
#include <krca_lib.h>

#include "kgni_ktest.h"

#ifndef CONFIG_CRAY_GEMINI
#error "CONFIG_CRAY_GEMINI undefined: build with pkg-config --cflags cray-gni"
#endif

/* kgni's version symbol, fetched as gnilnd does (symbol_get()) */
extern u32 kgni_driver_version;
#define KTEST_MIN_DRIVER_VERSION	GNI_VERSION_CHECK(0, 0x44, 0xb9)

/* A device a node has not: vgemini gives each node one NIC */
#define KTEST_NO_DEVICE		1
#define KTEST_INST		7
/* More CDMs than any device has job slots */
#define KTEST_MAX_CDMS		64
#define KTEST_RESULT_SIZE	131072
#define KTEST_CMD_MAX		64
/* More registrations than kgni takes (32) */
#define KTEST_RCA_REGS		40

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

const char *ktest_rc_name(gni_return_t rc)
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

void ktest_result_clear(void)
{
	ktest_result_len = 0;
}

__printf(1, 2) void ktest_print(const char *fmt, ...)
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

/* Calls of the CQ handler (no event comes without a post) */
static atomic_t ktest_cq_calls = ATOMIC_INIT(0);

static void ktest_cq_handler(u32 device_id, u64 data)
{
	atomic_inc(&ktest_cq_calls);
}

/* A CQ entry as the device writes it: overrun, status, source, data */
static gni_cq_entry_t ktest_cqe(bool overrun, u64 status, u64 source,
				u64 data)
{
	return (u64)overrun << 63 | status << 59 | source << 56 |
	       (data & ((1ull << 56) - 1));
}

/* gni_cq_create()'s refusals */
static void ktest_cq_create_refusals(gni_cdm_handle_t cdm,
				     gni_nic_handle_t nic)
{
	gni_cq_handle_t cq;

	ktest_rc(gni_cq_create(NULL, 16, 0, ktest_cq_handler, 1, &cq),
		 GNI_RC_INVALID_PARAM, "gni_cq_create, no NIC");
	ktest_rc(gni_cq_create((gni_nic_handle_t)cdm, 16, 0, ktest_cq_handler,
			       1, &cq),
		 GNI_RC_INVALID_PARAM, "gni_cq_create of a CDM");
	ktest_rc(gni_cq_create(nic, 16, 0, ktest_cq_handler, 1, NULL),
		 GNI_RC_INVALID_PARAM, "gni_cq_create, no cq_hndl");
	ktest_rc(gni_cq_create(nic, 0, 0, ktest_cq_handler, 1, &cq),
		 GNI_RC_INVALID_PARAM, "gni_cq_create, entry_count 0");
	ktest_rc(gni_cq_create(nic, 1 << 16, 0, ktest_cq_handler, 1, &cq),
		 GNI_RC_INVALID_PARAM, "gni_cq_create, entry_count 65536");
	ktest_rc(gni_cq_create(nic, 16, 0x2001, ktest_cq_handler, 1, &cq),
		 GNI_RC_INVALID_PARAM, "gni_cq_create, delay_index 0x2001");
}

/* Make a CQ, look at it empty, destroy it. */
static void ktest_cq_one(gni_nic_handle_t nic, u32 entries, u32 delay,
			 gni_cq_event_hndlr_f *handler)
{
	gni_cq_entry_t e = 0;
	gni_cq_handle_t cq;
	gni_return_t rc;

	rc = gni_cq_create(nic, entries, delay, handler, 3, &cq);
	if (!ktest_ok(rc == GNI_RC_SUCCESS,
		      "gni_cq_create, %u entries, delay %u, %s: %s", entries,
		      delay, handler ? "handler" : "no handler",
		      ktest_rc_name(rc)))
		return;
	ktest_rc(gni_cq_get_event(cq, &e), GNI_RC_NOT_DONE,
		 "gni_cq_get_event of the new CQ");
	ktest_rc(gni_cq_destroy(cq), GNI_RC_SUCCESS, "gni_cq_destroy of it");
}

/* Kernel CQs and endpoints on @nic (@nic2: another NIC) */
static void ktest_cq_ep(gni_cdm_handle_t cdm, gni_nic_handle_t nic,
			gni_nic_handle_t nic2)
{
	gni_cq_handle_t cq, cq2 = NULL;
	gni_ep_handle_t ep, ep2;
	gni_cq_entry_t e;
	gni_return_t rc;

	ktest_cq_create_refusals(cdm, nic);
	ktest_cq_one(nic, 16, 0, ktest_cq_handler);
	ktest_cq_one(nic, 16, 4, ktest_cq_handler);
	ktest_cq_one(nic, 1, 0x2000, ktest_cq_handler);
	ktest_cq_one(nic, (1 << 16) - 1, 0, NULL);
	ktest_rc(gni_cq_destroy(NULL), GNI_RC_INVALID_PARAM,
		 "gni_cq_destroy, no CQ");
	ktest_rc(gni_cq_destroy((gni_cq_handle_t)nic), GNI_RC_INVALID_PARAM,
		 "gni_cq_destroy of a NIC");

	rc = gni_cq_create(nic, 64, 0, ktest_cq_handler, 5, &cq);
	if (!ktest_rc(rc, GNI_RC_SUCCESS, "gni_cq_create, for endpoints"))
		return;
	ktest_rc(gni_cq_get_event(NULL, &e), GNI_RC_INVALID_PARAM,
		 "gni_cq_get_event, no CQ");
	ktest_rc(gni_cq_get_event((gni_cq_handle_t)nic, &e),
		 GNI_RC_INVALID_PARAM, "gni_cq_get_event of a NIC");
	ktest_rc(gni_cq_get_event(cq, NULL), GNI_RC_INVALID_PARAM,
		 "gni_cq_get_event, no event_data");

	ktest_rc(gni_ep_create(NULL, cq, &ep), GNI_RC_INVALID_PARAM,
		 "gni_ep_create, no NIC");
	ktest_rc(gni_ep_create((gni_nic_handle_t)cq, cq, &ep),
		 GNI_RC_INVALID_PARAM, "gni_ep_create of a CQ");
	ktest_rc(gni_ep_create(nic, cq, NULL), GNI_RC_INVALID_PARAM,
		 "gni_ep_create, no ep_hndl");
	ktest_rc(gni_ep_create(nic, (gni_cq_handle_t)nic, &ep),
		 GNI_RC_INVALID_PARAM, "gni_ep_create, a NIC as src_cq");
	if (nic2 && gni_cq_create(nic2, 8, 0, NULL, 0, &cq2) ==
		    GNI_RC_SUCCESS) {
		ktest_rc(gni_ep_create(nic, cq2, &ep), GNI_RC_INVALID_PARAM,
			 "gni_ep_create, a CQ of another NIC");
		gni_cq_destroy(cq2);
	}
	ktest_rc(gni_ep_create(nic, NULL, &ep2), GNI_RC_SUCCESS,
		 "gni_ep_create, no src_cq");
	rc = gni_ep_create(nic, cq, &ep);
	if (ktest_rc(rc, GNI_RC_SUCCESS, "gni_ep_create")) {
		ktest_rc(gni_cq_destroy(cq), GNI_RC_ERROR_RESOURCE,
			 "gni_cq_destroy while an endpoint names the CQ");
		ktest_rc(gni_ep_bind(NULL, 1, 2), GNI_RC_INVALID_PARAM,
			 "gni_ep_bind, no endpoint");
		ktest_rc(gni_ep_bind((gni_ep_handle_t)cq, 1, 2),
			 GNI_RC_INVALID_PARAM, "gni_ep_bind of a CQ");
		ktest_rc(gni_ep_bind(ep, 1, 2), GNI_RC_SUCCESS, "gni_ep_bind");
		ktest_rc(gni_ep_bind(ep, 3, 4), GNI_RC_SUCCESS,
			 "gni_ep_bind again, another peer");
		ktest_rc(gni_ep_set_eventdata(NULL, 1, 2),
			 GNI_RC_INVALID_PARAM, "gni_ep_set_eventdata, no endpoint");
		ktest_rc(gni_ep_set_eventdata((gni_ep_handle_t)nic, 1, 2),
			 GNI_RC_INVALID_PARAM, "gni_ep_set_eventdata of a NIC");
		ktest_rc(gni_ep_set_eventdata(ep, 1, 2), GNI_RC_SUCCESS,
			 "gni_ep_set_eventdata");
		ktest_rc(gni_ep_unbind(NULL), GNI_RC_INVALID_PARAM,
			 "gni_ep_unbind, no endpoint");
		ktest_rc(gni_ep_unbind((gni_ep_handle_t)cq),
			 GNI_RC_INVALID_PARAM, "gni_ep_unbind of a CQ");
		ktest_rc(gni_ep_unbind(ep), GNI_RC_SUCCESS, "gni_ep_unbind");
		ktest_rc(gni_ep_unbind(ep), GNI_RC_SUCCESS,
			 "gni_ep_unbind of an unbound endpoint");
		ktest_rc(gni_ep_destroy(NULL), GNI_RC_INVALID_PARAM,
			 "gni_ep_destroy, no endpoint");
		ktest_rc(gni_ep_destroy((gni_ep_handle_t)cq),
			 GNI_RC_INVALID_PARAM, "gni_ep_destroy of a CQ");
		ktest_rc(gni_ep_destroy(ep), GNI_RC_SUCCESS, "gni_ep_destroy");
	}
	ktest_rc(gni_ep_destroy(ep2), GNI_RC_SUCCESS,
		 "gni_ep_destroy, no src_cq");
	ktest_rc(gni_cq_destroy(cq), GNI_RC_SUCCESS,
		 "gni_cq_destroy once no endpoint names it");
	ktest_ok(atomic_read(&ktest_cq_calls) == 0,
		 "no handler call without events");
}

/* Error strings, recoverability and the entry accessors */
static void ktest_cq_entries(void)
{
	gni_cq_entry_t e;
	char buf[64];
	u32 r = 7;

	e = ktest_cqe(false, 0xB, 1, 0);
	ktest_ok(gni_cq_error_str(e, buf, sizeof(buf)) == GNI_RC_SUCCESS &&
		 !strcmp(buf, "SOURCE_SSID_SREQ:REQUEST_TIMEOUT"),
		 "gni_cq_error_str: %s", buf);
	ktest_ok(gni_cq_error_recoverable(e, &r) == GNI_RC_SUCCESS && r == 1,
		 "gni_cq_error_recoverable of it: %u", r);
	e = ktest_cqe(false, 0xD, 3, 0);
	ktest_ok(gni_cq_error_str(e, buf, sizeof(buf)) == GNI_RC_SUCCESS &&
		 !strcmp(buf, "SOURCE_SSID_SRSP:STALE_SSID"),
		 "gni_cq_error_str, a status named by source: %s", buf);
	e = ktest_cqe(false, 0x8, 5, 0);
	ktest_ok(gni_cq_error_recoverable(e, &r) == GNI_RC_SUCCESS && r == 0,
		 "gni_cq_error_recoverable, a protection violation: %u", r);
	ktest_rc(gni_cq_error_str(e, buf, 8), GNI_RC_SIZE_ERROR,
		 "gni_cq_error_str, 8 bytes");
	ktest_rc(gni_cq_error_str(e, NULL, 64), GNI_RC_INVALID_PARAM,
		 "gni_cq_error_str, no buffer");
	ktest_rc(gni_cq_error_recoverable(e, NULL), GNI_RC_INVALID_PARAM,
		 "gni_cq_error_recoverable, no recoverable");
	ktest_rc(gni_cq_error_recoverable(ktest_cqe(false, 0, 1, 0), &r),
		 GNI_RC_INVALID_STATE, "gni_cq_error_recoverable, no error");
	ktest_rc(gni_cq_error_recoverable(ktest_cqe(false, 0x1, 1, 0), &r),
		 GNI_RC_INVALID_STATE,
		 "gni_cq_error_recoverable, an undefined error");

	/* type 1 (SMSG), id 0x12345678, tid 0x9abc, overrun */
	e = ktest_cqe(true, 0, 5, 1ull << 54 | 0x12345678ull << 16 | 0x9abc);
	ktest_ok(GNI_CQ_GET_TYPE(e) == GNI_CQ_EVENT_TYPE_SMSG &&
		 GNI_CQ_GET_INST_ID(e) == 0x12345678 &&
		 GNI_CQ_GET_MSG_ID(e) == 0x12345678 &&
		 GNI_CQ_GET_REM_INST_ID(e) == 0x12345678 &&
		 GNI_CQ_GET_TID(e) == 0x9abc && GNI_CQ_OVERRUN(e) == 1 &&
		 GNI_CQ_GET_SOURCE(e) == 5 && GNI_CQ_GET_STATUS(e) == 0 &&
		 GNI_CQ_GET_DATA(e) == (e & ((1ull << 56) - 1)),
		 "the GNI_CQ_* accessors");

	/* The setters: each field alone, the others kept */
	e = ktest_cqe(false, 0xB, 1, 1ull << 54 | 0x12345678ull << 16 | 0x9abc);
	GNI_CQ_SET_TYPE(e, GNI_CQ_EVENT_TYPE_MSGQ);
	GNI_CQ_SET_INST_ID(e, 0x7654321);
	GNI_CQ_SET_TID(e, 0x1234);
	GNI_CQ_CLR_STATUS(e);
	ktest_ok(GNI_CQ_GET_TYPE(e) == GNI_CQ_EVENT_TYPE_MSGQ &&
		 GNI_CQ_GET_INST_ID(e) == 0x7654321 &&
		 GNI_CQ_GET_TID(e) == 0x1234 && GNI_CQ_STATUS_OK(e) &&
		 GNI_CQ_GET_SOURCE(e) == 1 && !GNI_CQ_OVERRUN(e),
		 "GNI_CQ_SET_TYPE, _INST_ID, _TID and GNI_CQ_CLR_STATUS");
	GNI_CQ_SET_MSG_ID(e, 5);
	r = GNI_CQ_GET_MSG_ID(e);
	GNI_CQ_SET_REM_INST_ID(e, 6);
	ktest_ok(r == 5 && GNI_CQ_GET_REM_INST_ID(e) == 6 &&
		 GNI_CQ_GET_TID(e) == 0x1234,
		 "GNI_CQ_SET_MSG_ID and _REM_INST_ID: %u, %llu", r,
		 GNI_CQ_GET_REM_INST_ID(e));
	gni_cq_set_type(NULL, 1);
	gni_cq_clr_status(NULL);
	ktest_ok(true, "the setters ignore a NULL entry");
}

/* Hold timeouts: one that outlives the test, one that expires in it */
#define KTEST_HOLD_LONG_MS	60000
#define KTEST_HOLD_SHORT_MS	200

static bool ktest_mh_clean(const gni_mem_handle_t *mh)
{
	return !mh->qword1 && !mh->qword2;
}

/* Registration refusals; the handle stays clean. */
static void ktest_mem_refusals(gni_nic_handle_t nic, gni_nic_handle_t nic2,
			       gni_cq_handle_t cq, void *buf)
{
	u64 a = (u64)(unsigned long)buf;
	gni_mem_segment_t seg = { .address = 1ull << 60 };
	gni_mem_handle_t mh = { 0 };

	ktest_rc(gni_mem_register(NULL, a, 64, NULL, 0, &mh),
		 GNI_RC_INVALID_PARAM, "gni_mem_register, no NIC");
	ktest_rc(gni_mem_register((gni_nic_handle_t)cq, a, 64, NULL, 0, &mh),
		 GNI_RC_INVALID_PARAM, "gni_mem_register of a CQ");
	ktest_rc(gni_mem_register(nic, a, 64, NULL, 0, NULL),
		 GNI_RC_INVALID_PARAM, "gni_mem_register, no mem_hndl");
	ktest_rc(gni_mem_register(nic, a, 0, NULL, 0, &mh),
		 GNI_RC_INVALID_PARAM, "gni_mem_register, length 0");
	ktest_rc(gni_mem_register(nic, a, U64_MAX, NULL, 0, &mh),
		 GNI_RC_INVALID_PARAM, "gni_mem_register, length 2^64 - 1");
	ktest_rc(gni_mem_register(nic, 0x10000, 64, NULL, 0, &mh),
		 GNI_RC_INVALID_PARAM, "gni_mem_register, a user address");
	ktest_rc(gni_mem_register(nic, a, 64, NULL, GNI_MEM_USE_VMDH, &mh),
		 GNI_RC_INVALID_PARAM, "gni_mem_register, GNI_MEM_USE_VMDH");
	ktest_rc(gni_mem_register(nic, a, 64, NULL, GNI_MEM_PHYS_SEGMENTS,
				  &mh),
		 GNI_RC_INVALID_PARAM, "gni_mem_register, GNI_MEM_PHYS_SEGMENTS");
	ktest_rc(gni_mem_register(nic, a, 64, (gni_cq_handle_t)nic, 0, &mh),
		 GNI_RC_INVALID_PARAM, "gni_mem_register, a NIC as dst_cq");
	if (nic2)
		ktest_rc(gni_mem_register(nic2, a, 64, cq, 0, &mh),
			 GNI_RC_INVALID_PARAM,
			 "gni_mem_register, a CQ of another NIC");
	ktest_rc(gni_mem_register_segments(NULL, &seg, 1, NULL,
					   GNI_MEM_PHYS_SEGMENTS, &mh),
		 GNI_RC_INVALID_PARAM, "gni_mem_register_segments, no NIC");
	ktest_rc(gni_mem_register_segments(nic, NULL, 1, NULL,
					   GNI_MEM_PHYS_SEGMENTS, &mh),
		 GNI_RC_INVALID_PARAM, "gni_mem_register_segments, no segments");
	ktest_rc(gni_mem_register_segments(nic, &seg, 0, NULL,
					   GNI_MEM_PHYS_SEGMENTS, &mh),
		 GNI_RC_INVALID_PARAM, "gni_mem_register_segments, count 0");
	ktest_rc(gni_mem_register_segments(nic, &seg, 1, NULL,
					   GNI_MEM_PHYS_SEGMENTS, NULL),
		 GNI_RC_INVALID_PARAM, "gni_mem_register_segments, no mem_hndl");
	ktest_rc(gni_mem_register_segments(nic, &seg, 1, NULL, 0, &mh),
		 GNI_RC_INVALID_PARAM,
		 "gni_mem_register_segments without GNI_MEM_PHYS_SEGMENTS");
	ktest_rc(gni_mem_register_segments(nic, &seg, 1, NULL,
					   GNI_MEM_PHYS_SEGMENTS |
					   GNI_MEM_PHYS_CONT, &mh),
		 GNI_RC_INVALID_PARAM,
		 "gni_mem_register_segments, GNI_MEM_PHYS_CONT");
	ktest_rc(gni_mem_register_segments(nic, &seg, 1, NULL,
					   GNI_MEM_PHYS_SEGMENTS, &mh),
		 GNI_RC_INVALID_PARAM,
		 "gni_mem_register_segments, no such physical page");
	seg.address = 0x1234;
	ktest_rc(gni_mem_register_segments(nic, &seg, 1, NULL,
					   GNI_MEM_PHYS_SEGMENTS, &mh),
		 GNI_RC_INVALID_PARAM,
		 "gni_mem_register_segments, an address not page-aligned");
	ktest_ok(ktest_mh_clean(&mh), "the handle is clean after the refusals");

	ktest_rc(gni_mem_deregister(NULL, &mh, 0), GNI_RC_INVALID_PARAM,
		 "gni_mem_deregister, no NIC");
	ktest_rc(gni_mem_deregister(nic, NULL, 0), GNI_RC_INVALID_PARAM,
		 "gni_mem_deregister, no mem_hndl");
	ktest_rc(gni_mem_deregister(nic, &mh, 0), GNI_RC_INVALID_PARAM,
		 "gni_mem_deregister of a handle never registered");
	ktest_rc(gni_mem_deregister(nic, &mh, -1), GNI_RC_INVALID_PARAM,
		 "gni_mem_deregister, hold_timeout -1");
	ktest_rc(gni_mem_mdd_release(NULL, &mh), GNI_RC_NO_MATCH,
		 "gni_mem_mdd_release, no NIC");
	ktest_rc(gni_mem_mdd_release(nic, NULL), GNI_RC_NO_MATCH,
		 "gni_mem_mdd_release, no mem_hndl");
	ktest_rc(gni_mem_mdd_release(nic, &mh), GNI_RC_NO_MATCH,
		 "gni_mem_mdd_release of a handle never held");
}

/* Register @len bytes at @a; the handle's pages and VA checked */
static bool ktest_mem_reg(gni_nic_handle_t nic, const char *what, u64 a,
			  u64 len, gni_cq_handle_t cq, u32 flags,
			  gni_mem_handle_t *mh)
{
	u64 start = a & PAGE_MASK;
	u32 npages = (PAGE_ALIGN(a + len) - start) >> PAGE_SHIFT;
	gni_return_t rc;

	memset(mh, 0, sizeof(*mh));
	rc = gni_mem_register(nic, a, len, cq, flags, mh);
	return ktest_ok(rc == GNI_RC_SUCCESS &&
			GNI_MEMHNDL_GET_NPAGES(*mh) == npages &&
			GNI_MEMHNDL_GET_VA(*mh) == start,
			"gni_mem_register, %s: %s, %u pages from VA 0x%llx",
			what, ktest_rc_name(rc), GNI_MEMHNDL_GET_NPAGES(*mh),
			GNI_MEMHNDL_GET_VA(*mh));
}

static void ktest_mem_dereg(gni_nic_handle_t nic, gni_mem_handle_t *mh,
			    const char *what)
{
	char line[96];

	snprintf(line, sizeof(line), "gni_mem_deregister, %s", what);
	ktest_rc(gni_mem_deregister(nic, mh, 0), GNI_RC_SUCCESS, line);
}

/* The page sources */
static void ktest_mem_sources(gni_nic_handle_t nic, gni_cq_handle_t cq,
			      void *kbuf)
{
	gni_mem_segment_t segs[4];
	gni_mem_handle_t mh;
	struct page *pages;
	unsigned long cont;
	gni_return_t rc;
	void *vbuf;
	int i;

	if (ktest_mem_reg(nic, "kmalloc, dst_cq", (u64)(unsigned long)kbuf + 8,
			  10000, cq, GNI_MEM_READWRITE, &mh)) {
		ktest_rc(gni_cq_destroy(cq), GNI_RC_ERROR_RESOURCE,
			 "gni_cq_destroy while a registration names the CQ");
		ktest_mem_dereg(nic, &mh, "kmalloc");
		ktest_rc(gni_mem_deregister(nic, &mh, 0), GNI_RC_INVALID_PARAM,
			 "gni_mem_deregister again");
	}
	vbuf = vmalloc(5 * PAGE_SIZE);
	if (vbuf && ktest_mem_reg(nic, "vmalloc", (u64)(unsigned long)vbuf +
				  100, 4 * PAGE_SIZE, NULL,
				  GNI_MEM_READ_ONLY, &mh))
		ktest_mem_dereg(nic, &mh, "vmalloc");
	vfree(vbuf);
	cont = __get_free_pages(GFP_KERNEL | __GFP_COMP, 1);
	if (cont && ktest_mem_reg(nic, "GNI_MEM_PHYS_CONT", cont,
				  2 * PAGE_SIZE, cq, GNI_MEM_PHYS_CONT |
				  GNI_MEM_RELAXED_PI_ORDERING, &mh))
		ktest_mem_dereg(nic, &mh, "GNI_MEM_PHYS_CONT");
	free_pages(cont, 1);

	/* Without __GFP_COMP only the first page is counted: refused. */
	pages = alloc_pages(GFP_KERNEL, 1);
	if (ktest_ok(pages, "alloc_pages, 2 pages, not compound")) {
		segs[0].address = page_to_phys(pages + 1);
		memset(&mh, 0, sizeof(mh));
		ktest_rc(gni_mem_register_segments(nic, segs, 1, NULL,
						   GNI_MEM_PHYS_SEGMENTS, &mh),
			 GNI_RC_INVALID_PARAM,
			 "gni_mem_register_segments, a page no count holds");
		ktest_rc(gni_mem_register(nic,
					  (u64)(unsigned long)page_address(pages),
					  2 * PAGE_SIZE, NULL, GNI_MEM_PHYS_CONT,
					  &mh),
			 GNI_RC_INVALID_PARAM,
			 "gni_mem_register, GNI_MEM_PHYS_CONT over such a page");
		ktest_ok(ktest_mh_clean(&mh), "the handle is still clean");
		__free_pages(pages, 1);
	}

	pages = alloc_pages(GFP_KERNEL | __GFP_COMP, 2);
	if (!ktest_ok(pages, "alloc_pages, 4 pages"))
		return;
	for (i = 0; i < 4; i++)
		segs[i].address = page_to_phys(pages + (i ^ 1));
	memset(&mh, 0, sizeof(mh));
	rc = gni_mem_register_segments(nic, segs, 4, cq,
				       GNI_MEM_PHYS_SEGMENTS |
				       GNI_MEM_RELAXED_PI_ORDERING, &mh);
	if (ktest_ok(rc == GNI_RC_SUCCESS &&
		     GNI_MEMHNDL_GET_NPAGES(mh) == 4 &&
		     GNI_MEMHNDL_GET_VA(mh) == 0,
		     "gni_mem_register_segments, 4 physical pages: %s, %u pages from VA 0x%llx",
		     ktest_rc_name(rc), GNI_MEMHNDL_GET_NPAGES(mh),
		     GNI_MEMHNDL_GET_VA(mh)))
		ktest_mem_dereg(nic, &mh, "the segments");
	__free_pages(pages, 2);
}

/* Deregistration holds: released early, and expired */
static void ktest_mem_holds(gni_nic_handle_t nic, void *kbuf)
{
	gni_mem_handle_t a, b, c;
	u64 addr = (u64)(unsigned long)kbuf;
	u32 mdh;

	if (!ktest_mem_reg(nic, "to hold", addr, 64, NULL, 0, &a))
		return;
	mdh = GNI_MEMHNDL_GET_MDH(a);
	ktest_rc(gni_mem_deregister(nic, &a, KTEST_HOLD_LONG_MS),
		 GNI_RC_SUCCESS, "gni_mem_deregister with a 60 s hold");
	if (ktest_mem_reg(nic, "while held", addr, 64, NULL, 0, &b)) {
		ktest_ok(GNI_MEMHNDL_GET_MDH(b) != mdh,
			 "a held MDH (%u) is not given out: %u", mdh,
			 GNI_MEMHNDL_GET_MDH(b));
		ktest_mem_dereg(nic, &b, "while held");
	}
	ktest_rc(gni_mem_mdd_release(nic, &a), GNI_RC_SUCCESS,
		 "gni_mem_mdd_release of the held handle");
	ktest_rc(gni_mem_mdd_release(nic, &a), GNI_RC_NO_MATCH,
		 "gni_mem_mdd_release again");
	if (ktest_mem_reg(nic, "after the release", addr, 64, NULL, 0, &c)) {
		ktest_ok(GNI_MEMHNDL_GET_MDH(c) == mdh,
			 "the released MDH %u is given out again: %u", mdh,
			 GNI_MEMHNDL_GET_MDH(c));
		ktest_rc(gni_mem_deregister(nic, &c, KTEST_HOLD_SHORT_MS),
			 GNI_RC_SUCCESS, "gni_mem_deregister with a 200 ms hold");
	}
	if (ktest_mem_reg(nic, "while held 200 ms", addr, 64, NULL, 0, &b)) {
		ktest_ok(GNI_MEMHNDL_GET_MDH(b) != mdh,
			 "the held MDH %u is not given out: %u", mdh,
			 GNI_MEMHNDL_GET_MDH(b));
		ktest_mem_dereg(nic, &b, "while held 200 ms");
	}
	msleep(2 * KTEST_HOLD_SHORT_MS);
	ktest_rc(gni_mem_mdd_release(nic, &c), GNI_RC_NO_MATCH,
		 "gni_mem_mdd_release once the hold expired");
	if (ktest_mem_reg(nic, "after the expiry", addr, 64, NULL, 0, &b)) {
		ktest_ok(GNI_MEMHNDL_GET_MDH(b) == mdh,
			 "the expired MDH %u is given out again: %u", mdh,
			 GNI_MEMHNDL_GET_MDH(b));
		ktest_mem_dereg(nic, &b, "after the expiry");
	}
}

/* Kernel memory registration on @nic (@nic2: another NIC) */
static void ktest_mem(gni_nic_handle_t nic, gni_nic_handle_t nic2)
{
	gni_cq_handle_t cq;
	void *kbuf;

	kbuf = kmalloc(3 * PAGE_SIZE, GFP_KERNEL);
	if (!ktest_ok(kbuf, "kmalloc, 3 pages"))
		return;
	if (!ktest_rc(gni_cq_create(nic, 16, 0, ktest_cq_handler, 0, &cq),
		      GNI_RC_SUCCESS, "gni_cq_create, for registrations")) {
		kfree(kbuf);
		return;
	}
	ktest_mem_refusals(nic, nic2, cq, kbuf);
	ktest_mem_sources(nic, cq, kbuf);
	ktest_mem_holds(nic, kbuf);
	ktest_rc(gni_cq_destroy(cq), GNI_RC_SUCCESS,
		 "gni_cq_destroy once no registration names it");
	kfree(kbuf);
}

/*
 * The RDMA CQs' handler: calls by CQ (its usr_event_data's low bits),
 * and the calls that were not in hard-IRQ context or had a wrong
 * device_id or usr_event_data.
 */
#define KTEST_RDMA_DATA		0x6b740000ull
#define KTEST_RDMA_SRC		0
#define KTEST_RDMA_DST		1
#define KTEST_RDMA_DELAY	2
#define KTEST_RDMA_LEN		4096
#define KTEST_RDMA_WAIT_MS	5000
#define KTEST_LOCAL_EVENT	0x1111
#define KTEST_REMOTE_EVENT	0x2222

static atomic_t ktest_rdma_calls[4];
static atomic_t ktest_rdma_bad = ATOMIC_INIT(0);

static void ktest_rdma_handler(u32 device_id, u64 data)
{
	if (!in_hardirq() || device_id != KTEST_DEVICE ||
	    (data & ~3ull) != KTEST_RDMA_DATA)
		atomic_inc(&ktest_rdma_bad);
	else
		atomic_inc(&ktest_rdma_calls[data & 3]);
}

/* Wait up to KTEST_RDMA_WAIT_MS for @n handler calls of CQ @which. */
static bool ktest_rdma_wait_calls(unsigned int which, int n)
{
	unsigned int ms;

	for (ms = 0; ms < KTEST_RDMA_WAIT_MS; ms += 20) {
		if (atomic_read(&ktest_rdma_calls[which]) >= n)
			return true;
		msleep(20);
	}
	return atomic_read(&ktest_rdma_calls[which]) >= n;
}

/* The next event of @cq, waited for up to KTEST_RDMA_WAIT_MS */
static gni_return_t ktest_rdma_event(gni_cq_handle_t cq, gni_cq_entry_t *e)
{
	unsigned int ms;
	gni_return_t rc;

	for (ms = 0; ms < KTEST_RDMA_WAIT_MS; ms += 20) {
		rc = gni_cq_get_event(cq, e);
		if (rc != GNI_RC_NOT_DONE)
			return rc;
		msleep(20);
	}
	return gni_cq_get_event(cq, e);
}

/* A loopback post's descriptor */
static void ktest_rdma_desc(gni_post_descriptor_t *d, gni_post_type_t type,
			    u16 cq_mode, void *local, gni_mem_handle_t lmh,
			    void *remote, gni_mem_handle_t rmh, u64 len,
			    u64 post_id)
{
	memset(d, 0, sizeof(*d));
	d->type = type;
	d->cq_mode = cq_mode;
	d->dlvr_mode = GNI_DLVMODE_PERFORMANCE;
	d->local_addr = (u64)(unsigned long)local;
	d->local_mem_hndl = lmh;
	d->remote_addr = (u64)(unsigned long)remote;
	d->remote_mem_hndl = rmh;
	d->length = len;
	d->post_id = post_id;
}

typedef gni_return_t ktest_post_f(gni_ep_handle_t ep_hndl,
				  gni_post_descriptor_t *post_descr);

/*
 * The refusals gni_post_rdma() and gni_post_fma() (@post, called @name)
 * share: no endpoint, a CQ (@cq) as the endpoint, no descriptor, the
 * other engine's type @other (called @other_name), an unknown cq_mode bit;
 * @d a good post of @ep.
 */
static void ktest_post_refusals(ktest_post_f *post, const char *name,
				gni_ep_handle_t ep, gni_cq_handle_t cq,
				const gni_post_descriptor_t *d,
				gni_post_type_t other, const char *other_name)
{
	gni_post_descriptor_t bad = *d;
	char what[80];

	snprintf(what, sizeof(what), "%s, no endpoint", name);
	ktest_rc(post(NULL, &bad), GNI_RC_INVALID_PARAM, what);
	snprintf(what, sizeof(what), "%s of a CQ", name);
	ktest_rc(post((gni_ep_handle_t)cq, &bad), GNI_RC_INVALID_PARAM, what);
	snprintf(what, sizeof(what), "%s, no descriptor", name);
	ktest_rc(post(ep, NULL), GNI_RC_INVALID_PARAM, what);
	bad.type = other;
	snprintf(what, sizeof(what), "%s of an %s", name, other_name);
	ktest_rc(post(ep, &bad), GNI_RC_INVALID_PARAM, what);
	bad = *d;
	bad.cq_mode |= 0x100;
	snprintf(what, sizeof(what), "%s, an unknown cq_mode bit", name);
	ktest_rc(post(ep, &bad), GNI_RC_INVALID_PARAM, what);
}

/* gni_post_rdma()'s refusals; @d a good PUT */
static void ktest_rdma_refusals(gni_nic_handle_t nic, gni_ep_handle_t ep,
				gni_cq_handle_t cq,
				const gni_post_descriptor_t *d, void *spare)
{
	gni_post_descriptor_t bad;
	gni_mem_handle_t gone;

	ktest_post_refusals(gni_post_rdma, "gni_post_rdma", ep, cq, d,
			    GNI_POST_FMA_PUT, "FMA PUT");
	bad = *d;
	bad.type = GNI_POST_RDMA_GET;
	bad.local_addr += 1;
	bad.remote_addr += 1;
	bad.length = 8;
	ktest_rc(gni_post_rdma(ep, &bad), GNI_RC_ALIGNMENT_ERROR,
		 "gni_post_rdma, a GET not 4-byte aligned");
	/* A registration that is gone: its handle's CRC still holds */
	if (gni_mem_register(nic, (u64)(unsigned long)spare, 64, NULL,
			     GNI_MEM_READWRITE, &gone) == GNI_RC_SUCCESS) {
		bad = *d;
		bad.local_mem_hndl = gone;
		bad.local_addr = (u64)(unsigned long)spare;
		bad.length = 64;
		gni_mem_deregister(nic, &gone, 0);
		ktest_rc(gni_post_rdma(ep, &bad), GNI_RC_INVALID_PARAM,
			 "gni_post_rdma, a local handle deregistered");
	}
	ktest_ok(atomic_read(&ktest_rdma_calls[KTEST_RDMA_SRC]) == 0,
		 "no event from the refused posts");
}

/* A post's local event on @cq, handed back by gni_get_completed() */
static void ktest_rdma_complete(gni_cq_handle_t cq, gni_post_descriptor_t *d,
				const char *what)
{
	gni_post_descriptor_t *pd = NULL;
	gni_cq_entry_t e = 0;
	gni_return_t rc;

	rc = ktest_rdma_event(cq, &e);
	ktest_ok(rc == GNI_RC_SUCCESS &&
		 GNI_CQ_GET_TYPE(e) == GNI_CQ_EVENT_TYPE_POST &&
		 GNI_CQ_GET_INST_ID(e) == KTEST_LOCAL_EVENT,
		 "%s: gni_cq_get_event %s, inst_id 0x%llx (the local event data 0x%x)",
		 what, ktest_rc_name(rc), GNI_CQ_GET_INST_ID(e),
		 KTEST_LOCAL_EVENT);
	if (rc != GNI_RC_SUCCESS)
		return;
	rc = gni_get_completed(cq, e, &pd);
	ktest_ok(rc == GNI_RC_SUCCESS && pd == d &&
		 pd->post_id == d->post_id && pd->status == GNI_RC_SUCCESS,
		 "%s: gni_get_completed %s, the descriptor posted (post_id 0x%llx)",
		 what, ktest_rc_name(rc), pd ? pd->post_id : 0);
}

/* delay_index 4: no handler call before the 4th event */
static void ktest_rdma_delay(gni_nic_handle_t nic, u32 pe, void *src,
			     gni_mem_handle_t smh, void *dst,
			     gni_mem_handle_t dmh)
{
	gni_post_descriptor_t d[4];
	gni_cq_handle_t cq;
	gni_ep_handle_t ep;
	bool posted = true;
	unsigned int i;

	if (!ktest_rc(gni_cq_create(nic, 16, 4, ktest_rdma_handler,
				    KTEST_RDMA_DATA | KTEST_RDMA_DELAY, &cq),
		      GNI_RC_SUCCESS, "gni_cq_create, delay_index 4"))
		return;
	if (gni_ep_create(nic, cq, &ep) != GNI_RC_SUCCESS) {
		ktest_ok(false, "gni_ep_create, for delay_index 4");
		gni_cq_destroy(cq);
		return;
	}
	gni_ep_bind(ep, pe, KTEST_INST);
	gni_ep_set_eventdata(ep, KTEST_LOCAL_EVENT, KTEST_REMOTE_EVENT);
	for (i = 0; i < 4; i++)
		ktest_rdma_desc(&d[i], GNI_POST_RDMA_PUT,
				GNI_CQMODE_GLOBAL_EVENT, src + 64 * i, smh,
				dst + 64 * i, dmh, 64, 0x40 + i);
	for (i = 0; i < 3; i++)
		posted &= gni_post_rdma(ep, &d[i]) == GNI_RC_SUCCESS;
	ktest_ok(posted, "3 PUTs posted on the delay_index 4 CQ");
	msleep(200);
	ktest_ok(atomic_read(&ktest_rdma_calls[KTEST_RDMA_DELAY]) == 0,
		 "no handler call after 3 events (delay_index 4): %d",
		 atomic_read(&ktest_rdma_calls[KTEST_RDMA_DELAY]));
	ktest_rc(gni_post_rdma(ep, &d[3]), GNI_RC_SUCCESS, "the 4th PUT");
	ktest_ok(ktest_rdma_wait_calls(KTEST_RDMA_DELAY, 1),
		 "the handler called after the 4th event");
	for (i = 0; i < 4; i++)
		ktest_rdma_complete(cq, &d[i], "delay_index 4");
	ktest_rc(gni_ep_destroy(ep), GNI_RC_SUCCESS,
		 "gni_ep_destroy, delay_index 4");
	ktest_rc(gni_cq_destroy(cq), GNI_RC_SUCCESS,
		 "gni_cq_destroy, delay_index 4");
}

/* PUT, GET back and the handlers, on the node's own PE */
static void ktest_rdma_loop(gni_nic_handle_t nic, u32 pe, gni_cq_handle_t scq,
			    gni_cq_handle_t rcq, u8 *src, gni_mem_handle_t smh,
			    u8 *dst, gni_mem_handle_t dmh, void *spare)
{
	gni_post_descriptor_t put, get, *pd = NULL;
	gni_cq_entry_t e = 0;
	gni_ep_handle_t ep;
	gni_return_t rc;
	unsigned int i;

	if (!ktest_rc(gni_ep_create(nic, scq, &ep), GNI_RC_SUCCESS,
		      "gni_ep_create, for RDMA"))
		return;
	ktest_rdma_desc(&put, GNI_POST_RDMA_PUT,
			GNI_CQMODE_GLOBAL_EVENT | GNI_CQMODE_REMOTE_EVENT,
			src, smh, dst, dmh, KTEST_RDMA_LEN, 0x77);
	ktest_rc(gni_post_rdma(ep, &put), GNI_RC_INVALID_PARAM,
		 "gni_post_rdma, endpoint not bound");
	ktest_rc(gni_ep_bind(ep, pe, KTEST_INST), GNI_RC_SUCCESS,
		 "gni_ep_bind to the own PE");
	gni_ep_set_eventdata(ep, KTEST_LOCAL_EVENT, KTEST_REMOTE_EVENT);
	ktest_rdma_refusals(nic, ep, scq, &put, spare);

	for (i = 0; i < KTEST_RDMA_LEN; i++)
		src[i] = (u8)(i * 7 + 3);
	memset(dst, 0, KTEST_RDMA_LEN);
	rc = gni_post_rdma(ep, &put);
	if (!ktest_rc(rc, GNI_RC_SUCCESS, "gni_post_rdma, PUT 4096 bytes"))
		goto out;
	ktest_rc(gni_ep_unbind(ep), GNI_RC_NOT_DONE,
		 "gni_ep_unbind, the PUT outstanding");
	ktest_ok(ktest_rdma_wait_calls(KTEST_RDMA_SRC, 1),
		 "the source CQ's handler called");
	ktest_rdma_complete(scq, &put, "PUT");
	ktest_ok(ktest_rdma_wait_calls(KTEST_RDMA_DST, 1),
		 "the destination CQ's handler called");
	rc = ktest_rdma_event(rcq, &e);
	ktest_ok(rc == GNI_RC_SUCCESS &&
		 GNI_CQ_GET_INST_ID(e) == KTEST_REMOTE_EVENT,
		 "the remote event: %s, inst_id 0x%llx (the remote event data 0x%x)",
		 ktest_rc_name(rc), GNI_CQ_GET_INST_ID(e), KTEST_REMOTE_EVENT);
	if (rc == GNI_RC_SUCCESS)
		ktest_rc(gni_get_completed(rcq, e, &pd),
			 GNI_RC_DESCRIPTOR_ERROR,
			 "gni_get_completed of the remote event");
	ktest_ok(!memcmp(src, dst, KTEST_RDMA_LEN),
		 "the PUT's 4096 bytes arrived");

	memset(src, 0, KTEST_RDMA_LEN);
	ktest_rdma_desc(&get, GNI_POST_RDMA_GET, GNI_CQMODE_GLOBAL_EVENT,
			src, smh, dst, dmh, KTEST_RDMA_LEN, 0x78);
	if (ktest_rc(gni_post_rdma(ep, &get), GNI_RC_SUCCESS,
		     "gni_post_rdma, GET them back")) {
		ktest_rdma_complete(scq, &get, "GET");
		ktest_ok(!memcmp(src, dst, KTEST_RDMA_LEN),
			 "the GET's 4096 bytes arrived");
	}
	ktest_rc(gni_cq_get_event(scq, &e), GNI_RC_NOT_DONE,
		 "no event left on the source CQ");
	ktest_rc(gni_get_completed(NULL, e, &pd), GNI_RC_INVALID_PARAM,
		 "gni_get_completed, no CQ");
	ktest_rc(gni_get_completed(scq, e, NULL), GNI_RC_INVALID_PARAM,
		 "gni_get_completed, no post_descr");
	ktest_rc(gni_ep_unbind(ep), GNI_RC_SUCCESS,
		 "gni_ep_unbind, the posts completed");
	ktest_ok(atomic_read(&ktest_rdma_bad) == 0,
		 "every handler call in hard IRQ, device_id %u and the CQ's usr_event_data",
		 KTEST_DEVICE);
out:
	ktest_rc(gni_ep_destroy(ep), GNI_RC_SUCCESS, "gni_ep_destroy, RDMA");
}

/*
 * A loopback set-up of the RDMA and FMA checks: a source and a destination
 * CQ, and a source and a destination buffer registered, the destination's
 * remote events on the destination CQ.
 */
struct ktest_loop {
	gni_cq_handle_t scq, rcq;
	u8 *src, *dst;
	gni_mem_handle_t smh, dmh;
};

/*
 * Make @l on @nic for the checks called @what: CQs of 64 entries (@sh and
 * @sd the source CQ's handler and data, @rh and @rd the destination's),
 * buffers of @len bytes.  False, nothing left, if a step failed.
 */
static bool ktest_loop_make(struct ktest_loop *l, gni_nic_handle_t nic,
			    const char *what, u32 len,
			    gni_cq_event_hndlr_f *sh, u64 sd,
			    gni_cq_event_hndlr_f *rh, u64 rd)
{
	char line[96];

	memset(l, 0, sizeof(*l));
	l->src = kzalloc(len, GFP_KERNEL);
	l->dst = kzalloc(len, GFP_KERNEL);
	snprintf(line, sizeof(line), "kmalloc, %s buffers", what);
	if (!ktest_ok(l->src && l->dst, "%s", line))
		goto free;
	snprintf(line, sizeof(line), "gni_cq_create, %s source CQ", what);
	if (!ktest_rc(gni_cq_create(nic, 64, 0, sh, sd, &l->scq),
		      GNI_RC_SUCCESS, line))
		goto free;
	snprintf(line, sizeof(line), "gni_cq_create, %s destination CQ",
		 what);
	if (!ktest_rc(gni_cq_create(nic, 64, 0, rh, rd, &l->rcq),
		      GNI_RC_SUCCESS, line))
		goto scq;
	snprintf(line, sizeof(line), "%s source", what);
	if (!ktest_mem_reg(nic, line, (u64)(unsigned long)l->src, len, NULL,
			   GNI_MEM_READWRITE, &l->smh))
		goto rcq;
	snprintf(line, sizeof(line), "%s destination", what);
	if (ktest_mem_reg(nic, line, (u64)(unsigned long)l->dst, len, l->rcq,
			  GNI_MEM_READWRITE, &l->dmh))
		return true;
	gni_mem_deregister(nic, &l->smh, 0);
rcq:
	gni_cq_destroy(l->rcq);
scq:
	gni_cq_destroy(l->scq);
free:
	kfree(l->dst);
	kfree(l->src);
	return false;
}

/* Undo ktest_loop_make() */
static void ktest_loop_free(struct ktest_loop *l, gni_nic_handle_t nic,
			    const char *what)
{
	char line[96];

	snprintf(line, sizeof(line), "%s destination", what);
	ktest_mem_dereg(nic, &l->dmh, line);
	snprintf(line, sizeof(line), "%s source", what);
	ktest_mem_dereg(nic, &l->smh, line);
	snprintf(line, sizeof(line), "gni_cq_destroy, %s destination CQ",
		 what);
	ktest_rc(gni_cq_destroy(l->rcq), GNI_RC_SUCCESS, line);
	snprintf(line, sizeof(line),
		 "gni_cq_destroy, %s source CQ (and its FMA descriptor)", what);
	ktest_rc(gni_cq_destroy(l->scq), GNI_RC_SUCCESS, line);
	kfree(l->dst);
	kfree(l->src);
}

/* Loopback RDMA on @nic, whose address is @pe */
static void ktest_rdma(gni_nic_handle_t nic, u32 pe)
{
	struct ktest_loop l;
	unsigned int i;
	u8 *spare;

	for (i = 0; i < ARRAY_SIZE(ktest_rdma_calls); i++)
		atomic_set(&ktest_rdma_calls[i], 0);
	atomic_set(&ktest_rdma_bad, 0);
	spare = kmalloc(64, GFP_KERNEL);
	if (ktest_ok(spare, "kmalloc, a spare buffer") &&
	    ktest_loop_make(&l, nic, "RDMA", KTEST_RDMA_LEN,
			    ktest_rdma_handler,
			    KTEST_RDMA_DATA | KTEST_RDMA_SRC,
			    ktest_rdma_handler,
			    KTEST_RDMA_DATA | KTEST_RDMA_DST)) {
		ktest_rdma_loop(nic, pe, l.scq, l.rcq, l.src, l.smh, l.dst,
				l.dmh, spare);
		ktest_rdma_delay(nic, pe, l.src, l.smh, l.dst, l.dmh);
		/* The PUTs' remote events: none asked for */
		ktest_loop_free(&l, nic, "RDMA");
	}
	kfree(spare);
}

/*
 * Loopback FMA posts (gni_post_fma()) on the node's own PE: the FMA CQ's
 * handler counts its calls, checks them as the RDMA CQs' handler does,
 * and makes one post itself when ktest_irq_desc is set (a post from hard
 * IRQ context).
 */
#define KTEST_FMA_DATA		0x666d0000ull
#define KTEST_FMA_LEN		4096
#define KTEST_CQW_VALUE		0xc0de12345678ull
#define KTEST_SOFT_MSG_ID	0x5f

static atomic_t ktest_fma_calls = ATOMIC_INIT(0);
static atomic_t ktest_fma_bad = ATOMIC_INIT(0);
static gni_ep_handle_t ktest_irq_ep;
static gni_post_descriptor_t *ktest_irq_desc;
static gni_return_t ktest_irq_rc;

static void ktest_fma_handler(u32 device_id, u64 data)
{
	gni_post_descriptor_t *d = xchg(&ktest_irq_desc, NULL);

	if (!in_hardirq() || device_id != KTEST_DEVICE ||
	    data != KTEST_FMA_DATA)
		atomic_inc(&ktest_fma_bad);
	else
		atomic_inc(&ktest_fma_calls);
	if (d)
		WRITE_ONCE(ktest_irq_rc, gni_post_fma(ktest_irq_ep, d));
}

/* One fast-path call from a timer's softirq: an FMA post or an SMSG send */
static struct {
	struct timer_list timer;
	struct completion done;
	gni_ep_handle_t ep;
	gni_post_descriptor_t *desc;	/* gni_post_fma(); NULL: send hdr */
	u8 hdr[8];
	gni_return_t rc;
	bool softirq;
} ktest_soft;

static void ktest_soft_call(struct timer_list *t)
{
	ktest_soft.softirq = in_serving_softirq();
	if (ktest_soft.desc)
		ktest_soft.rc = gni_post_fma(ktest_soft.ep, ktest_soft.desc);
	else
		ktest_soft.rc = gni_smsg_send(ktest_soft.ep, ktest_soft.hdr,
					      sizeof(ktest_soft.hdr), NULL, 0,
					      KTEST_SOFT_MSG_ID);
	complete(&ktest_soft.done);
}

/* Make the call from a timer; its code, GNI_RC_TIMEOUT if none came */
static gni_return_t ktest_in_softirq(gni_ep_handle_t ep,
				     gni_post_descriptor_t *d)
{
	unsigned long left;

	ktest_soft.ep = ep;
	ktest_soft.desc = d;
	ktest_soft.softirq = false;
	init_completion(&ktest_soft.done);
	timer_setup(&ktest_soft.timer, ktest_soft_call, 0);
	mod_timer(&ktest_soft.timer, jiffies + 1);
	left = wait_for_completion_timeout(&ktest_soft.done,
					   msecs_to_jiffies(KTEST_RDMA_WAIT_MS));
	del_timer_sync(&ktest_soft.timer);
	if (!left)
		return GNI_RC_TIMEOUT;
	return ktest_soft.softirq ? ktest_soft.rc : GNI_RC_INVALID_STATE;
}

static void ktest_fill(u8 *p, u32 len, u8 seed)
{
	u32 i;

	for (i = 0; i < len; i++)
		p[i] = (u8)(seed + i * 7);
}

static bool ktest_filled(const u8 *p, u32 len, u8 seed)
{
	u32 i;

	for (i = 0; i < len; i++)
		if (p[i] != (u8)(seed + i * 7))
			return false;
	return true;
}

/* gni_post_fma()'s refusals; @d a good PUT of 64 bytes */
static void ktest_fma_refusals(gni_nic_handle_t nic, gni_ep_handle_t ep,
			       gni_cq_handle_t scq,
			       const gni_post_descriptor_t *d,
			       gni_mem_handle_t smh, u8 *ro,
			       gni_mem_handle_t romh)
{
	gni_post_descriptor_t bad = *d;
	gni_ep_handle_t ep2;
	gni_cq_entry_t e;

	ktest_post_refusals(gni_post_fma, "gni_post_fma", ep, scq, d,
			    GNI_POST_RDMA_PUT, "RDMA PUT");
	ktest_rc(gni_post_fma((gni_ep_handle_t)nic, &bad),
		 GNI_RC_INVALID_PARAM, "gni_post_fma of a NIC");
	bad.cq_mode = GNI_CQMODE_LOCAL_EVENT | GNI_CQMODE_GLOBAL_EVENT;
	ktest_rc(gni_post_fma(ep, &bad), GNI_RC_INVALID_PARAM,
		 "gni_post_fma, dual events (no GNI_CDM_MODE_DUAL_EVENTS)");
	bad = *d;
	bad.remote_mem_hndl.qword1 ^= 1ull << 20;
	ktest_rc(gni_post_fma(ep, &bad), GNI_RC_INVALID_PARAM,
		 "gni_post_fma, a remote handle with a bad CRC");
	bad = *d;
	bad.type = GNI_POST_FMA_GET;
	bad.local_mem_hndl = smh;
	bad.local_addr += 2;
	ktest_rc(gni_post_fma(ep, &bad), GNI_RC_ALIGNMENT_ERROR,
		 "gni_post_fma, a GET not 4-byte aligned");
	bad.local_addr -= 2;
	bad.length = 0;
	ktest_rc(gni_post_fma(ep, &bad), GNI_RC_INVALID_PARAM,
		 "gni_post_fma, a GET of 0 bytes");
	bad.length = 64;
	bad.local_addr = (u64)(unsigned long)ro;
	bad.local_mem_hndl = romh;
	ktest_rc(gni_post_fma(ep, &bad), GNI_RC_PERMISSION_ERROR,
		 "gni_post_fma, a GET into read-only memory");
	bad.type = GNI_POST_FMA_GET_W_FLAG;
	ktest_rc(gni_post_fma(ep, &bad), GNI_RC_ILLEGAL_OP,
		 "gni_post_fma, GNI_POST_FMA_GET_W_FLAG");
	bad = *d;
	bad.type = GNI_POST_AMO;
	bad.amo_cmd = GNI_FMA_ATOMIC_FADD;
	bad.local_mem_hndl = smh;
	bad.length = 4;
	ktest_rc(gni_post_fma(ep, &bad), GNI_RC_INVALID_PARAM,
		 "gni_post_fma, an AMO of 4 bytes");
	bad.length = 8;
	bad.remote_addr += 4;
	ktest_rc(gni_post_fma(ep, &bad), GNI_RC_ALIGNMENT_ERROR,
		 "gni_post_fma, an AMO not 8-byte aligned");
	bad = *d;
	bad.type = GNI_POST_CQWRITE;
	bad.cq_mode = GNI_CQMODE_GLOBAL_EVENT | GNI_CQMODE_REMOTE_EVENT;
	ktest_rc(gni_post_fma(ep, &bad), GNI_RC_INVALID_PARAM,
		 "gni_post_fma, a CQ write with a remote event");
	/* A second endpoint of the CQ shares its FMA descriptor */
	if (ktest_rc(gni_ep_create(nic, scq, &ep2), GNI_RC_SUCCESS,
		     "gni_ep_create, a second endpoint of the FMA CQ")) {
		bad = *d;
		ktest_rc(gni_post_fma(ep2, &bad), GNI_RC_INVALID_STATE,
			 "gni_post_fma, endpoint not bound");
		gni_ep_destroy(ep2);
	}
	if (ktest_rc(gni_ep_create(nic, NULL, &ep2), GNI_RC_SUCCESS,
		     "gni_ep_create, no CQ, for FMA")) {
		gni_ep_bind(ep2, 0, KTEST_INST);
		bad = *d;
		bad.cq_mode = 0;
		ktest_rc(gni_post_fma(ep2, &bad), GNI_RC_INVALID_PARAM,
			 "gni_post_fma, an endpoint made without a CQ");
		gni_ep_destroy(ep2);
	}
	ktest_rc(gni_cq_get_event(scq, &e), GNI_RC_NOT_DONE,
		 "no event from the refused FMA posts");
}

/* PUTs of a few sizes and alignments, with global and remote events */
static void ktest_fma_puts(gni_ep_handle_t ep, gni_cq_handle_t scq,
			   gni_cq_handle_t rcq, u8 *src, gni_mem_handle_t smh,
			   u8 *dst, gni_mem_handle_t dmh)
{
	static const struct { u32 off, len; } puts[] = {
		{ 0, 1 }, { 3, 7 }, { 8, 64 }, { 5, 1000 },
		{ 0, KTEST_FMA_LEN },
	};
	gni_post_descriptor_t d;
	gni_cq_entry_t e = 0;
	char what[48];
	unsigned int i;
	gni_return_t rc;
	u32 off, len;
	bool edges;

	for (i = 0; i < ARRAY_SIZE(puts); i++) {
		off = puts[i].off;
		len = puts[i].len;
		snprintf(what, sizeof(what), "FMA PUT %u bytes at +%u", len,
			 off);
		ktest_fill(src, KTEST_FMA_LEN, (u8)i);
		memset(dst, 0, KTEST_FMA_LEN);
		ktest_rdma_desc(&d, GNI_POST_FMA_PUT,
				GNI_CQMODE_GLOBAL_EVENT |
				GNI_CQMODE_REMOTE_EVENT, src + off, smh,
				dst + off, dmh, len, 0xf0 + i);
		if (!ktest_rc(gni_post_fma(ep, &d), GNI_RC_SUCCESS, what))
			continue;
		if (!i)
			ktest_rc(gni_ep_unbind(ep), GNI_RC_NOT_DONE,
				 "gni_ep_unbind, an FMA PUT outstanding");
		ktest_rdma_complete(scq, &d, what);
		rc = ktest_rdma_event(rcq, &e);
		edges = (!off || !dst[off - 1]) &&
			(off + len == KTEST_FMA_LEN || !dst[off + len]);
		ktest_ok(rc == GNI_RC_SUCCESS &&
			 GNI_CQ_GET_INST_ID(e) == KTEST_REMOTE_EVENT &&
			 !memcmp(dst + off, src + off, len) && edges,
			 "%s: remote event %s, inst_id 0x%llx; the bytes arrived, none beside",
			 what, ktest_rc_name(rc), GNI_CQ_GET_INST_ID(e));
	}
}

/* GETs of a few sizes */
static void ktest_fma_gets(gni_ep_handle_t ep, gni_cq_handle_t scq,
			   u8 *src, gni_mem_handle_t smh, u8 *dst,
			   gni_mem_handle_t dmh)
{
	static const u32 lens[] = { 4, 64, 1020, KTEST_FMA_LEN };
	gni_post_descriptor_t d;
	char what[48];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		snprintf(what, sizeof(what), "FMA GET %u bytes", lens[i]);
		ktest_fill(dst, KTEST_FMA_LEN, (u8)(0x40 + i));
		memset(src, 0, KTEST_FMA_LEN);
		ktest_rdma_desc(&d, GNI_POST_FMA_GET, GNI_CQMODE_GLOBAL_EVENT,
				src, smh, dst, dmh, lens[i], 0xe0 + i);
		if (!ktest_rc(gni_post_fma(ep, &d), GNI_RC_SUCCESS, what))
			continue;
		ktest_rdma_complete(scq, &d, what);
		ktest_ok(!memcmp(src, dst, lens[i]) &&
			 (lens[i] == KTEST_FMA_LEN || !src[lens[i]]),
			 "%s: the bytes arrived, none beside", what);
	}
}

/*
 * AMO @cmd (called @name) of @op on *@target, the old value fetched into
 * *@fetch unless NULL: the target must become @want.
 */
static void ktest_fma_amo(gni_ep_handle_t ep, gni_cq_handle_t scq,
			  const char *name, gni_fma_cmd_type_t cmd, u64 op,
			  u64 *fetch, gni_mem_handle_t smh, u64 *target,
			  gni_mem_handle_t dmh, u64 want)
{
	u64 old = READ_ONCE(*target);
	gni_post_descriptor_t d;

	ktest_rdma_desc(&d, GNI_POST_AMO, GNI_CQMODE_GLOBAL_EVENT, fetch, smh,
			target, dmh, 8, 0xa0 + cmd);
	d.amo_cmd = cmd;
	d.first_operand = op;
	if (fetch)
		WRITE_ONCE(*fetch, 0);
	if (!ktest_rc(gni_post_fma(ep, &d), GNI_RC_SUCCESS, name))
		return;
	ktest_rdma_complete(scq, &d, name);
	ktest_ok(READ_ONCE(*target) == want &&
		 (!fetch || READ_ONCE(*fetch) == old),
		 "%s: target %llu (want %llu), fetched %llu (want %llu)", name,
		 READ_ONCE(*target), want, fetch ? READ_ONCE(*fetch) : old,
		 old);
}

/* An FADD (its result fetched), an ADD, and a CQ write */
static void ktest_fma_amo_cqw(gni_ep_handle_t ep, gni_cq_handle_t scq,
			      gni_cq_handle_t rcq, u8 *src,
			      gni_mem_handle_t smh, u8 *dst,
			      gni_mem_handle_t dmh)
{
	u64 *target = (u64 *)(dst + 64), *result = (u64 *)(src + 128);
	gni_post_descriptor_t d;
	gni_cq_entry_t e = 0;
	gni_return_t rc;

	WRITE_ONCE(*target, 40);
	ktest_fma_amo(ep, scq, "AMO FADD 2 to 40", GNI_FMA_ATOMIC_FADD, 2,
		      result, smh, target, dmh, 42);
	ktest_fma_amo(ep, scq, "AMO ADD 5 to 42", GNI_FMA_ATOMIC_ADD, 5, NULL,
		      smh, target, dmh, 47);

	ktest_rdma_desc(&d, GNI_POST_CQWRITE, GNI_CQMODE_GLOBAL_EVENT, NULL,
			smh, NULL, dmh, 0, 0xc0);
	d.cqwrite_value = KTEST_CQW_VALUE;
	if (ktest_rc(gni_post_fma(ep, &d), GNI_RC_SUCCESS,
		     "gni_post_fma, a CQ write")) {
		ktest_rdma_complete(scq, &d, "CQ write");
		rc = ktest_rdma_event(rcq, &e);
		ktest_ok(rc == GNI_RC_SUCCESS &&
			 GNI_CQ_GET_DATA(e) == KTEST_CQW_VALUE,
			 "CQ write: the event on the registration's CQ: %s, data 0x%llx (want 0x%llx)",
			 ktest_rc_name(rc), GNI_CQ_GET_DATA(e),
			 KTEST_CQW_VALUE);
	}
}

/* Posts from a timer's softirq and from the CQ handler (hard IRQ) */
static void ktest_fma_atomic(gni_ep_handle_t ep, gni_cq_handle_t scq,
			     u8 *src, gni_mem_handle_t smh, u8 *dst,
			     gni_mem_handle_t dmh)
{
	/* Static: a handler that took it late may still read it. */
	static gni_post_descriptor_t d2;
	gni_post_descriptor_t d;

	ktest_fill(src, 128, 0x33);
	memset(dst, 0, KTEST_FMA_LEN);
	ktest_rdma_desc(&d, GNI_POST_FMA_PUT, GNI_CQMODE_GLOBAL_EVENT, src,
			smh, dst, dmh, 64, 0xb0);
	if (ktest_rc(ktest_in_softirq(ep, &d), GNI_RC_SUCCESS,
		     "gni_post_fma from a timer's softirq"))
		ktest_rdma_complete(scq, &d, "the softirq's PUT");

	ktest_rdma_desc(&d, GNI_POST_FMA_PUT, GNI_CQMODE_GLOBAL_EVENT, src,
			smh, dst, dmh, 64, 0xb1);
	ktest_rdma_desc(&d2, GNI_POST_FMA_PUT, GNI_CQMODE_GLOBAL_EVENT,
			src + 64, smh, dst + 64, dmh, 64, 0xb2);
	ktest_irq_ep = ep;
	WRITE_ONCE(ktest_irq_rc, GNI_RC_NOT_DONE);
	/* A late call for an event taken already finds the ring empty. */
	msleep(50);
	/* d2 and ktest_irq_ep filled before the handler can find d2 */
	smp_store_release(&ktest_irq_desc, &d2);
	if (ktest_rc(gni_post_fma(ep, &d), GNI_RC_SUCCESS,
		     "a PUT whose event makes the CQ handler post another")) {
		ktest_rdma_complete(scq, &d, "the first PUT");
		ktest_rdma_complete(scq, &d2, "the handler's PUT");
	}
	xchg(&ktest_irq_desc, NULL);	/* if it was never posted */
	ktest_rc(READ_ONCE(ktest_irq_rc), GNI_RC_SUCCESS,
		 "gni_post_fma from the CQ handler (hard IRQ)");
	ktest_ok(!memcmp(src, dst, 128), "both PUTs' bytes arrived");
}

/* Loopback FMA on @nic, whose address is @pe */
/*
 * The default event data (ugni-api): an endpoint's local events carry the
 * remote_id it was bound with, its remote events its CDM's inst_id.
 */
static void ktest_fma_default_events(gni_ep_handle_t ep, u32 pe,
				     struct ktest_loop *l)
{
	gni_post_descriptor_t d, *pd = NULL;
	gni_cq_entry_t le = 0, re = 0;
	gni_return_t rc, rrc;

	gni_ep_bind(ep, pe, KTEST_INST + 100);
	ktest_rdma_desc(&d, GNI_POST_FMA_PUT,
			GNI_CQMODE_GLOBAL_EVENT | GNI_CQMODE_REMOTE_EVENT,
			l->src, l->smh, l->dst, l->dmh, 8, 0x98);
	if (!ktest_rc(gni_post_fma(ep, &d), GNI_RC_SUCCESS,
		      "FMA PUT before gni_ep_set_eventdata"))
		return;
	rc = ktest_rdma_event(l->scq, &le);
	if (rc == GNI_RC_SUCCESS)
		gni_get_completed(l->scq, le, &pd);
	rrc = ktest_rdma_event(l->rcq, &re);
	ktest_ok(rc == GNI_RC_SUCCESS && pd == &d && rrc == GNI_RC_SUCCESS &&
		 GNI_CQ_GET_INST_ID(le) == KTEST_INST + 100 &&
		 GNI_CQ_GET_INST_ID(re) == KTEST_INST,
		 "default event data: local inst_id %llu (the bound remote_id %u), remote %llu (the CDM's inst_id %u)",
		 GNI_CQ_GET_INST_ID(le), KTEST_INST + 100,
		 GNI_CQ_GET_INST_ID(re), KTEST_INST);
}

static void ktest_fma(gni_nic_handle_t nic, u32 pe)
{
	gni_post_descriptor_t d;
	struct ktest_loop l;
	gni_mem_handle_t romh;
	gni_ep_handle_t ep;
	u8 *ro;

	atomic_set(&ktest_fma_calls, 0);
	atomic_set(&ktest_fma_bad, 0);
	ro = kzalloc(64, GFP_KERNEL);
	if (!ktest_ok(ro, "kmalloc, a read-only buffer") ||
	    !ktest_loop_make(&l, nic, "FMA", KTEST_FMA_LEN, ktest_fma_handler,
			     KTEST_FMA_DATA, NULL, 0))
		goto free;
	if (!ktest_mem_reg(nic, "read-only", (u64)(unsigned long)ro, 64, NULL,
			   GNI_MEM_READ_ONLY, &romh))
		goto loop;
	if (!ktest_rc(gni_ep_create(nic, l.scq, &ep), GNI_RC_SUCCESS,
		      "gni_ep_create, for FMA (takes the CQ's descriptor)"))
		goto romh;
	ktest_fma_default_events(ep, pe, &l);
	gni_ep_bind(ep, pe, KTEST_INST);
	gni_ep_set_eventdata(ep, KTEST_LOCAL_EVENT, KTEST_REMOTE_EVENT);
	ktest_rdma_desc(&d, GNI_POST_FMA_PUT, GNI_CQMODE_GLOBAL_EVENT, l.src,
			l.smh, l.dst, l.dmh, 64, 0x99);
	ktest_fma_refusals(nic, ep, l.scq, &d, l.smh, ro, romh);
	ktest_fma_puts(ep, l.scq, l.rcq, l.src, l.smh, l.dst, l.dmh);
	ktest_fma_gets(ep, l.scq, l.src, l.smh, l.dst, l.dmh);
	ktest_fma_amo_cqw(ep, l.scq, l.rcq, l.src, l.smh, l.dst, l.dmh);
	ktest_fma_atomic(ep, l.scq, l.src, l.smh, l.dst, l.dmh);
	ktest_ok(atomic_read(&ktest_fma_calls) > 0 &&
		 atomic_read(&ktest_fma_bad) == 0,
		 "the FMA CQ's handler called (%d), always in hard IRQ with device %u and its data",
		 atomic_read(&ktest_fma_calls), KTEST_DEVICE);
	ktest_rc(gni_cq_destroy(l.scq), GNI_RC_ERROR_RESOURCE,
		 "gni_cq_destroy of the FMA CQ while its endpoint is there");
	ktest_rc(gni_ep_destroy(ep), GNI_RC_SUCCESS, "gni_ep_destroy, FMA");
romh:
	ktest_mem_dereg(nic, &romh, "read-only");
loop:
	ktest_loop_free(&l, nic, "FMA");
free:
	kfree(ro);
}

/*
 * Short messages between two endpoints of the NIC, A (0) and B (1), both
 * on the node's own PE, their mailboxes in one registration whose CQ
 * takes the remote events; their local events on one CQ (whose FMA
 * descriptor they share).
 */
#define KTEST_SMSG_CREDITS	4
#define KTEST_SMSG_MAX		128

struct ktest_smsg {
	gni_cq_handle_t scq, rcq;
	gni_ep_handle_t ep[2];
	u32 remote_event[2];
};

static const char *const ktest_smsg_name[2] = { "A to B", "B to A" };

/*
 * The events of the one message in flight, @msg_id, that @from sent, and
 * its @hlen + @dlen bytes (seeds @seed, @seed + 1) at the other; it is
 * released.  NULL if all is well, else what is not.
 */
static const char *ktest_smsg_arrived(struct ktest_smsg *k, int from,
				      u32 hlen, u32 dlen, u32 msg_id, u8 seed)
{
	gni_ep_handle_t to = k->ep[!from];
	gni_cq_entry_t e = 0;
	unsigned int ms;
	gni_return_t rc;
	u8 *msg = NULL;

	if (ktest_rdma_event(k->scq, &e) != GNI_RC_SUCCESS ||
	    GNI_CQ_GET_TYPE(e) != GNI_CQ_EVENT_TYPE_SMSG ||
	    GNI_CQ_GET_MSG_ID(e) != msg_id)
		return "no local event of type SMSG with its msg_id";
	if (ktest_rdma_event(k->rcq, &e) != GNI_RC_SUCCESS ||
	    GNI_CQ_GET_TYPE(e) != GNI_CQ_EVENT_TYPE_SMSG ||
	    GNI_CQ_GET_INST_ID(e) != k->remote_event[from])
		return "no remote event of type SMSG with the sender's remote event data";
	/* The message may show after its remote event. */
	for (ms = 0; ms < KTEST_RDMA_WAIT_MS; ms += 20) {
		rc = gni_smsg_getnext(to, (void **)&msg);
		if (rc != GNI_RC_NOT_DONE)
			break;
		msleep(20);
	}
	if (rc != GNI_RC_SUCCESS)
		return "gni_smsg_getnext found no message";
	if (!ktest_filled(msg, hlen, seed) ||
	    !ktest_filled(msg + hlen, dlen, seed + 1))
		return "other bytes";
	if (gni_smsg_release(to) != GNI_RC_SUCCESS)
		return "gni_smsg_release refused";
	if (gni_smsg_release(to) != GNI_RC_NOT_DONE ||
	    gni_smsg_getnext(to, (void **)&msg) != GNI_RC_NOT_DONE)
		return "another message";
	return NULL;
}

/* @from sends @hlen + @dlen bytes; its events and bytes checked */
static void ktest_smsg_one(struct ktest_smsg *k, int from, u32 hlen,
			   u32 dlen, u32 msg_id)
{
	u8 hdr[KTEST_SMSG_MAX], data[KTEST_SMSG_MAX];
	const char *why = "not sent";
	u8 seed = (u8)(msg_id * 3);
	gni_return_t rc;

	ktest_fill(hdr, hlen, seed);
	ktest_fill(data, dlen, seed + 1);
	rc = gni_smsg_send(k->ep[from], hdr, hlen, data, dlen, msg_id);
	if (rc == GNI_RC_SUCCESS)
		why = ktest_smsg_arrived(k, from, hlen, dlen, msg_id, seed);
	ktest_ok(!why, "SMSG %s, %u + %u bytes: %s%s%s",
		 ktest_smsg_name[from], hlen, dlen, ktest_rc_name(rc),
		 why ? ", " : ", both events, the bytes, released",
		 why ? why : "");
}

/* Credits: the 5th message waits until the peer releases the 1st. */
static void ktest_smsg_credits(struct ktest_smsg *k)
{
	gni_return_t rc[KTEST_SMSG_CREDITS + 1];
	gni_ep_handle_t a = k->ep[0], b = k->ep[1];
	unsigned int i, ms, ids = 0, insts = 0;
	bool same = true;
	gni_cq_entry_t e;
	u8 hdr[8], *msg;

	for (i = 0; i <= KTEST_SMSG_CREDITS; i++) {
		ktest_fill(hdr, sizeof(hdr), (u8)(0x80 + i));
		rc[i] = gni_smsg_send(a, hdr, sizeof(hdr), NULL, 0, 0x80 + i);
	}
	ktest_ok(rc[0] == GNI_RC_SUCCESS && rc[1] == GNI_RC_SUCCESS &&
		 rc[2] == GNI_RC_SUCCESS && rc[3] == GNI_RC_SUCCESS &&
		 rc[KTEST_SMSG_CREDITS] == GNI_RC_NOT_DONE,
		 "SMSG credits: %u messages sent, the next %s (want NOT_DONE)",
		 KTEST_SMSG_CREDITS, ktest_rc_name(rc[KTEST_SMSG_CREDITS]));
	for (i = 0; i <= KTEST_SMSG_CREDITS; i++) {
		/* The 1st released, the credit comes back: the 5th goes. */
		for (ms = 0; i == 1 && ms < KTEST_RDMA_WAIT_MS; ms += 20) {
			ktest_fill(hdr, sizeof(hdr), 0x80 + KTEST_SMSG_CREDITS);
			rc[KTEST_SMSG_CREDITS] =
				gni_smsg_send(a, hdr, sizeof(hdr), NULL, 0,
					      0x80 + KTEST_SMSG_CREDITS);
			if (rc[KTEST_SMSG_CREDITS] != GNI_RC_NOT_DONE)
				break;
			msleep(20);
		}
		if (i == 1)
			ktest_rc(rc[KTEST_SMSG_CREDITS], GNI_RC_SUCCESS,
				 "SMSG credits: the 5th sent once the 1st is released");
		msg = NULL;
		for (ms = 0; ms < KTEST_RDMA_WAIT_MS; ms += 20) {
			if (gni_smsg_getnext(b, (void **)&msg) !=
			    GNI_RC_NOT_DONE)
				break;
			msleep(20);
		}
		same &= msg && ktest_filled(msg, sizeof(hdr), (u8)(0x80 + i)) &&
			gni_smsg_release(b) == GNI_RC_SUCCESS;
	}
	ktest_ok(same, "SMSG credits: the %u messages arrived in order",
		 KTEST_SMSG_CREDITS + 1);
	for (i = 0; i <= KTEST_SMSG_CREDITS; i++) {
		if (ktest_rdma_event(k->scq, &e) == GNI_RC_SUCCESS &&
		    GNI_CQ_GET_MSG_ID(e) >= 0x80 &&
		    GNI_CQ_GET_MSG_ID(e) <= 0x80 + KTEST_SMSG_CREDITS)
			ids |= 1u << (GNI_CQ_GET_MSG_ID(e) - 0x80);
		if (ktest_rdma_event(k->rcq, &e) == GNI_RC_SUCCESS &&
		    GNI_CQ_GET_INST_ID(e) == k->remote_event[0])
			insts++;
	}
	ktest_ok(ids == (1u << (KTEST_SMSG_CREDITS + 1)) - 1 &&
		 insts == KTEST_SMSG_CREDITS + 1,
		 "SMSG credits: a local event per msg_id (mask 0x%x), %u remote events",
		 ids, insts);
}

/* The calls' refusals before gni_smsg_init() of @k's endpoints */
static void ktest_smsg_refusals(gni_nic_handle_t nic, struct ktest_smsg *k,
				gni_smsg_attr_t *a, gni_smsg_attr_t *b)
{
	gni_smsg_attr_t bad = *a;
	gni_ep_handle_t ep;
	u8 hdr[8] = { 0 };
	void *msg;

	ktest_rc(gni_smsg_send(k->ep[0], hdr, 8, NULL, 0, 1),
		 GNI_RC_INVALID_PARAM, "gni_smsg_send before gni_smsg_init");
	ktest_rc(gni_smsg_getnext(k->ep[0], &msg), GNI_RC_INVALID_STATE,
		 "gni_smsg_getnext before gni_smsg_init");
	ktest_rc(gni_smsg_release(k->ep[0]), GNI_RC_INVALID_PARAM,
		 "gni_smsg_release before gni_smsg_init");
	ktest_rc(gni_smsg_init(NULL, a, b), GNI_RC_INVALID_PARAM,
		 "gni_smsg_init, no endpoint");
	ktest_rc(gni_smsg_init((gni_ep_handle_t)k->scq, a, b),
		 GNI_RC_INVALID_PARAM, "gni_smsg_init of a CQ");
	ktest_rc(gni_smsg_init(k->ep[0], NULL, b), GNI_RC_INVALID_PARAM,
		 "gni_smsg_init, no local attributes");
	ktest_rc(gni_smsg_init(k->ep[0], a, NULL), GNI_RC_INVALID_PARAM,
		 "gni_smsg_init, no remote attributes");
	bad.msg_maxsize = KTEST_SMSG_MAX / 2;
	ktest_rc(gni_smsg_init(k->ep[0], &bad, b), GNI_RC_INVALID_PARAM,
		 "gni_smsg_init, msg_maxsize not the peer's");
	bad = *a;
	bad.buff_size = 64;
	ktest_rc(gni_smsg_init(k->ep[0], &bad, b), GNI_RC_INVALID_PARAM,
		 "gni_smsg_init, buff_size below a mailbox");
	bad = *b;
	bad.mem_hndl.qword2 ^= 1;
	ktest_rc(gni_smsg_init(k->ep[0], a, &bad), GNI_RC_INVALID_PARAM,
		 "gni_smsg_init, the peer's handle with a bad CRC");
	if (gni_ep_create(nic, NULL, &ep) == GNI_RC_SUCCESS) {
		gni_ep_bind(ep, 0, KTEST_INST);
		ktest_rc(gni_smsg_init(ep, a, b), GNI_RC_INVALID_PARAM,
			 "gni_smsg_init, an endpoint made without a CQ");
		gni_ep_destroy(ep);
	}
	if (gni_ep_create(nic, k->scq, &ep) == GNI_RC_SUCCESS) {
		ktest_rc(gni_smsg_init(ep, a, b), GNI_RC_INVALID_STATE,
			 "gni_smsg_init, endpoint not bound");
		gni_ep_destroy(ep);
	}
}

/* The calls' refusals once A's connection is open */
static void ktest_smsg_open_refusals(gni_nic_handle_t nic,
				     struct ktest_smsg *k,
				     gni_smsg_attr_t *a, gni_smsg_attr_t *b)
{
	u8 buf[KTEST_SMSG_MAX + 1] = { 0 };
	gni_ep_handle_t ep = k->ep[0];
	void *msg;

	ktest_rc(gni_smsg_init(ep, a, b), GNI_RC_INVALID_STATE,
		 "gni_smsg_init again");
	ktest_rc(gni_smsg_send(ep, buf, 8, buf, KTEST_SMSG_MAX - 7, 1),
		 GNI_RC_INVALID_PARAM, "gni_smsg_send, msg_maxsize + 1 bytes");
	ktest_rc(gni_smsg_send(ep, NULL, 8, NULL, 0, 1), GNI_RC_INVALID_PARAM,
		 "gni_smsg_send, a header length without a header");
	ktest_rc(gni_smsg_send(NULL, buf, 8, NULL, 0, 1),
		 GNI_RC_INVALID_PARAM, "gni_smsg_send, no endpoint");
	ktest_rc(gni_smsg_send((gni_ep_handle_t)nic, buf, 8, NULL, 0, 1),
		 GNI_RC_INVALID_PARAM, "gni_smsg_send of a NIC");
	ktest_rc(gni_smsg_getnext(ep, NULL), GNI_RC_INVALID_PARAM,
		 "gni_smsg_getnext, no header");
	ktest_rc(gni_smsg_getnext((gni_ep_handle_t)k->rcq, &msg),
		 GNI_RC_INVALID_PARAM, "gni_smsg_getnext of a CQ");
	ktest_rc(gni_smsg_getnext(ep, &msg), GNI_RC_NOT_DONE,
		 "gni_smsg_getnext, no message");
	ktest_rc(gni_smsg_release(NULL), GNI_RC_INVALID_PARAM,
		 "gni_smsg_release, no endpoint");
	ktest_rc(gni_smsg_release(ep), GNI_RC_NOT_DONE,
		 "gni_smsg_release, no message");
	ktest_rc(gni_smsg_set_delivery_mode(NULL, GNI_DLVMODE_IN_ORDER),
		 GNI_RC_INVALID_PARAM, "gni_smsg_set_delivery_mode, no NIC");
	ktest_rc(gni_smsg_set_delivery_mode((gni_nic_handle_t)ep,
					    GNI_DLVMODE_IN_ORDER),
		 GNI_RC_INVALID_PARAM, "gni_smsg_set_delivery_mode of an endpoint");
	ktest_rc(gni_smsg_set_max_retrans(NULL, 3), GNI_RC_INVALID_PARAM,
		 "gni_smsg_set_max_retrans, no NIC");
	ktest_rc(gni_smsg_set_max_retrans((gni_nic_handle_t)k->scq, 3),
		 GNI_RC_INVALID_PARAM, "gni_smsg_set_max_retrans of a CQ");
}

/* gni_smsg_buff_size_needed(): the size of one mailbox, 0 if refused */
static unsigned int ktest_smsg_size(gni_smsg_attr_t *attr)
{
	gni_smsg_attr_t bad = *attr;
	unsigned int size = 0;

	ktest_rc(gni_smsg_buff_size_needed(NULL, &size), GNI_RC_INVALID_PARAM,
		 "gni_smsg_buff_size_needed, no attributes");
	ktest_rc(gni_smsg_buff_size_needed(attr, NULL), GNI_RC_INVALID_PARAM,
		 "gni_smsg_buff_size_needed, no size");
	bad.msg_type = GNI_SMSG_TYPE_INVALID;
	ktest_rc(gni_smsg_buff_size_needed(&bad, &size), GNI_RC_INVALID_PARAM,
		 "gni_smsg_buff_size_needed, GNI_SMSG_TYPE_INVALID");
	bad = *attr;
	bad.msg_maxsize = 0;
	ktest_rc(gni_smsg_buff_size_needed(&bad, &size), GNI_RC_INVALID_PARAM,
		 "gni_smsg_buff_size_needed, msg_maxsize 0");
	size = 0;
	if (!ktest_rc(gni_smsg_buff_size_needed(attr, &size), GNI_RC_SUCCESS,
		      "gni_smsg_buff_size_needed"))
		return 0;
	ktest_ok(size >= KTEST_SMSG_CREDITS * KTEST_SMSG_MAX,
		 "a mailbox of %u credits of %u bytes: %u bytes",
		 KTEST_SMSG_CREDITS, KTEST_SMSG_MAX, size);
	return size;
}

/* What @k's two open connections do */
static void ktest_smsg_traffic(gni_nic_handle_t nic, struct ktest_smsg *k)
{
	static const struct { u32 hlen, dlen; } ab[] = {
		{ 0, 0 }, { 1, 0 }, { 8, 56 }, { 16, 112 }, { 0, 128 },
	}, ba[] = {
		{ 4, 0 }, { 8, 24 }, { 64, 64 }, { 0, 1 },
	};
	gni_cq_entry_t e;
	unsigned int i;
	const char *why = "not sent";
	gni_return_t rc;

	for (i = 0; i < ARRAY_SIZE(ab); i++)
		ktest_smsg_one(k, 0, ab[i].hlen, ab[i].dlen, 0x10 + i);
	for (i = 0; i < ARRAY_SIZE(ba); i++)
		ktest_smsg_one(k, 1, ba[i].hlen, ba[i].dlen, 0x20 + i);
	ktest_smsg_credits(k);
	ktest_rc(gni_smsg_set_delivery_mode(nic, GNI_DLVMODE_IN_ORDER),
		 GNI_RC_SUCCESS, "gni_smsg_set_delivery_mode, IN_ORDER");
	ktest_smsg_one(k, 0, 8, 8, 0x30);
	gni_smsg_set_delivery_mode(nic, GNI_DLVMODE_PERFORMANCE);
	ktest_rc(gni_smsg_set_max_retrans(nic, 3), GNI_RC_SUCCESS,
		 "gni_smsg_set_max_retrans, 3");
	gni_smsg_set_max_retrans(nic, FMA_SMSG_MAX_RETRANS_DEFAULT);

	ktest_fill(ktest_soft.hdr, sizeof(ktest_soft.hdr),
		   (u8)(KTEST_SOFT_MSG_ID * 3));
	rc = ktest_in_softirq(k->ep[0], NULL);
	if (rc == GNI_RC_SUCCESS)
		why = ktest_smsg_arrived(k, 0, sizeof(ktest_soft.hdr), 0,
					 KTEST_SOFT_MSG_ID,
					 (u8)(KTEST_SOFT_MSG_ID * 3));
	ktest_ok(!why, "gni_smsg_send from a timer's softirq: %s%s%s",
		 ktest_rc_name(rc), why ? ", " : ", delivered",
		 why ? why : "");
	ktest_ok(gni_cq_get_event(k->scq, &e) == GNI_RC_NOT_DONE &&
		 gni_cq_get_event(k->rcq, &e) == GNI_RC_NOT_DONE,
		 "no SMSG event left");
}

/* Short messages on @nic, whose address is @pe */
static void ktest_smsg(gni_nic_handle_t nic, u32 pe)
{
	gni_smsg_attr_t attr = {
		.msg_type = GNI_SMSG_TYPE_MBOX_AUTO_RETRANSMIT,
		.mbox_maxcredit = KTEST_SMSG_CREDITS,
		.msg_maxsize = KTEST_SMSG_MAX,
	}, a, b;
	struct ktest_smsg k = { .remote_event = { 0xa2, 0xb2 } };
	unsigned int size, i;
	gni_mem_handle_t mh;
	void *mb;

	size = ALIGN(ktest_smsg_size(&attr), 64);
	mb = size ? kzalloc(2 * size, GFP_KERNEL) : NULL;
	if (!ktest_ok(mb, "kmalloc, two mailboxes"))
		return;
	if (!ktest_rc(gni_cq_create(nic, 64, 0, NULL, 0, &k.scq),
		      GNI_RC_SUCCESS, "gni_cq_create, SMSG local events"))
		goto free;
	if (!ktest_rc(gni_cq_create(nic, 64, 0, NULL, 0, &k.rcq),
		      GNI_RC_SUCCESS, "gni_cq_create, SMSG remote events"))
		goto scq;
	if (!ktest_mem_reg(nic, "mailboxes", (u64)(unsigned long)mb, 2 * size,
			   k.rcq, GNI_MEM_READWRITE, &mh))
		goto rcq;
	for (i = 0; i < 2; i++) {
		if (!ktest_rc(gni_ep_create(nic, k.scq, &k.ep[i]),
			      GNI_RC_SUCCESS, "gni_ep_create, for SMSG"))
			goto eps;
		gni_ep_bind(k.ep[i], pe, KTEST_INST);
		gni_ep_set_eventdata(k.ep[i], 0xa1 + 0x10 * i,
				     k.remote_event[i]);
	}
	a = attr;
	a.msg_buffer = mb;
	a.buff_size = size;
	a.mem_hndl = mh;
	b = a;
	b.mbox_offset = size;
	ktest_smsg_refusals(nic, &k, &a, &b);
	if (ktest_rc(gni_smsg_init(k.ep[0], &a, &b), GNI_RC_SUCCESS,
		     "gni_smsg_init, A") &&
	    ktest_rc(gni_smsg_init(k.ep[1], &b, &a), GNI_RC_SUCCESS,
		     "gni_smsg_init, B")) {
		ktest_smsg_open_refusals(nic, &k, &a, &b);
		ktest_smsg_traffic(nic, &k);
	}
	ktest_rc(gni_ep_unbind(k.ep[0]), GNI_RC_SUCCESS,
		 "gni_ep_unbind, A (its SMSG connection goes)");
	ktest_rc(gni_smsg_send(k.ep[0], &a, 8, NULL, 0, 1),
		 GNI_RC_INVALID_PARAM, "gni_smsg_send after gni_ep_unbind");
eps:
	/* B goes with its connection open */
	for (i = 0; i < 2; i++)
		if (k.ep[i])
			ktest_rc(gni_ep_destroy(k.ep[i]), GNI_RC_SUCCESS,
				 "gni_ep_destroy, SMSG");
	ktest_mem_dereg(nic, &mh, "mailboxes");
rcq:
	ktest_rc(gni_cq_destroy(k.rcq), GNI_RC_SUCCESS,
		 "gni_cq_destroy, SMSG remote events");
scq:
	ktest_rc(gni_cq_destroy(k.scq), GNI_RC_SUCCESS,
		 "gni_cq_destroy, SMSG local events");
free:
	kfree(mb);
}

/*
 * Datagrams, loopback on the node's own NIC address: two kernel CDMs of
 * one (ptag, cookie), inst_ids KTEST_DG_INST_A and _B, an endpoint of
 * each bound to the other; their datagrams go through kgni's protocol
 * to this node, handled at once.
 */
#define KTEST_DG_COOKIE		(KTEST_COOKIE + 0x100)
#define KTEST_DG_INST_A		21
#define KTEST_DG_INST_B		22
#define KTEST_DG_BUF		(GNI_DATAGRAM_MAXSIZE + 16)
#define KTEST_DG_GUARD		0xee
#define KTEST_DG_WAIT_MS	2000	/* for a datagram whose peer posted */
#define KTEST_DG_SHORT_MS	200	/* for one whose peer never posts */
#define KTEST_DG_ID(side, n)	(0x6b640000ull | (side) << 8 | (n))

struct ktest_dg {
	u32 pe;
	gni_nic_handle_t nic_a, nic_b;
	gni_ep_handle_t ep_a, ep_b;
	u8 in_a[KTEST_DG_BUF], in_b[KTEST_DG_BUF];
	u8 out_a[KTEST_DG_BUF], out_b[KTEST_DG_BUF];
};

/* Fresh outputs: guard bytes that no datagram writes */
static void ktest_dg_clear(struct ktest_dg *t)
{
	memset(t->out_a, KTEST_DG_GUARD, KTEST_DG_BUF);
	memset(t->out_b, KTEST_DG_GUARD, KTEST_DG_BUF);
}

/* @got: the @n bytes of @want, then only guard bytes */
static bool ktest_dg_bytes(const u8 *got, const u8 *want, size_t n)
{
	return !memcmp(got, want, n) &&
	       !memchr_inv(got + n, KTEST_DG_GUARD, KTEST_DG_BUF - n);
}

/*
 * Collect @ep's datagram @id: @want, in @state, and if COMPLETED from
 * (t->pe, @inst).
 */
static bool ktest_dg_test(struct ktest_dg *t, gni_ep_handle_t ep, u64 id,
			  gni_return_t want, gni_post_state_t state, u32 inst,
			  const char *what)
{
	gni_post_state_t st = GNI_POST_ERROR;
	u32 addr = 0, rid = 0;
	gni_return_t rc;
	bool from;

	rc = gni_ep_postdata_test_by_id(ep, id, &st, &addr, &rid);
	from = state != GNI_POST_COMPLETED || (addr == t->pe && rid == inst);
	return ktest_ok(rc == want && st == state && from,
			"gni_ep_postdata_test_by_id, %s: %s, state %d from (0x%x, %u), want %s, state %d",
			what, ktest_rc_name(rc), st, addr, rid,
			ktest_rc_name(want), state);
}

/* The id of @nic's first datagram that ended, waited for */
static bool ktest_dg_probe(gni_nic_handle_t nic, u64 id, const char *what)
{
	u64 got = 0;
	gni_return_t rc;

	rc = gni_postdata_probe_wait_by_id(nic, KTEST_DG_WAIT_MS, &got);
	return ktest_ok(rc == GNI_RC_SUCCESS && got == id,
			"gni_postdata_probe_wait_by_id, %s: %s, id 0x%llx",
			what, ktest_rc_name(rc), got);
}

/* Every refusal; nothing posted: NO_MATCH */
static void ktest_dg_refusals(struct ktest_dg *t)
{
	gni_ep_handle_t ep = t->ep_a;
	gni_post_state_t st;
	u32 addr, rid;
	u64 id;

	ktest_rc(gni_ep_postdata_w_id(NULL, t->in_a, 8, t->out_a, 8, 1),
		 GNI_RC_INVALID_PARAM, "gni_ep_postdata_w_id, no endpoint");
	ktest_rc(gni_ep_postdata_w_id((gni_ep_handle_t)t->nic_a, t->in_a, 8,
				      t->out_a, 8, 1),
		 GNI_RC_INVALID_PARAM, "gni_ep_postdata_w_id of a NIC");
	ktest_rc(gni_ep_postdata_w_id(ep, NULL, 8, t->out_a, 8, 1),
		 GNI_RC_INVALID_PARAM, "gni_ep_postdata_w_id, 8 bytes of NULL");
	ktest_rc(gni_ep_postdata_w_id(ep, t->in_a, 8, NULL, 8, 1),
		 GNI_RC_INVALID_PARAM,
		 "gni_ep_postdata_w_id, an out_buf of 8 bytes at NULL");
	ktest_rc(gni_ep_postdata_w_id(ep, t->in_a, 8, t->out_a, 8, ~0ull),
		 GNI_RC_INVALID_PARAM, "gni_ep_postdata_w_id, datagram_id -1");
	ktest_rc(gni_ep_postdata_w_id(ep, t->in_a, GNI_DATAGRAM_MAXSIZE + 1,
				      t->out_a, 8, 1),
		 GNI_RC_SIZE_ERROR, "gni_ep_postdata_w_id, 129 bytes");
	ktest_rc(gni_ep_postdata(NULL, t->in_a, 8, t->out_a, 8),
		 GNI_RC_INVALID_PARAM, "gni_ep_postdata, no endpoint");
	ktest_rc(gni_ep_postdata_test_by_id(NULL, 1, &st, &addr, &rid),
		 GNI_RC_INVALID_PARAM,
		 "gni_ep_postdata_test_by_id, no endpoint");
	ktest_rc(gni_ep_postdata_test_by_id((gni_ep_handle_t)t->nic_a, 1, &st,
					    &addr, &rid),
		 GNI_RC_INVALID_PARAM, "gni_ep_postdata_test_by_id of a NIC");
	ktest_rc(gni_ep_postdata_test_by_id(ep, 1, NULL, &addr, &rid),
		 GNI_RC_INVALID_PARAM,
		 "gni_ep_postdata_test_by_id, no post_state");
	ktest_rc(gni_ep_postdata_test_by_id(ep, ~0ull, &st, &addr, &rid),
		 GNI_RC_INVALID_PARAM,
		 "gni_ep_postdata_test_by_id, datagram_id -1");
	ktest_rc(gni_ep_postdata_test(ep, &st, NULL, &rid),
		 GNI_RC_INVALID_PARAM, "gni_ep_postdata_test, no remote_addr");
	ktest_rc(gni_ep_postdata_wait(ep, 0, &st, &addr, &rid),
		 GNI_RC_INVALID_PARAM, "gni_ep_postdata_wait, timeout 0");
	ktest_rc(gni_ep_postdata_wait(ep, 10, &st, &addr, NULL),
		 GNI_RC_INVALID_PARAM, "gni_ep_postdata_wait, no remote_id");
	ktest_rc(gni_postdata_probe(NULL, &addr, &rid), GNI_RC_INVALID_PARAM,
		 "gni_postdata_probe, no NIC");
	ktest_rc(gni_postdata_probe(t->nic_a, &addr, NULL),
		 GNI_RC_INVALID_PARAM, "gni_postdata_probe, no remote_id");
	ktest_rc(gni_postdata_probe_by_id((gni_nic_handle_t)ep, &id),
		 GNI_RC_INVALID_PARAM, "gni_postdata_probe_by_id of an endpoint");
	ktest_rc(gni_postdata_probe_by_id(t->nic_a, NULL),
		 GNI_RC_INVALID_PARAM, "gni_postdata_probe_by_id, no id");
	ktest_rc(gni_postdata_probe_wait_by_id(t->nic_a, 10, NULL),
		 GNI_RC_INVALID_PARAM, "gni_postdata_probe_wait_by_id, no id");
	ktest_rc(gni_ep_postdata_cancel(NULL), GNI_RC_INVALID_PARAM,
		 "gni_ep_postdata_cancel, no endpoint");
	ktest_rc(gni_ep_postdata_cancel_by_id((gni_ep_handle_t)t->nic_a, 1),
		 GNI_RC_INVALID_PARAM, "gni_ep_postdata_cancel_by_id of a NIC");
	ktest_rc(gni_ep_postdata_cancel_by_id(ep, ~0ull),
		 GNI_RC_INVALID_PARAM,
		 "gni_ep_postdata_cancel_by_id, datagram_id -1");

	ktest_rc(gni_ep_postdata_test(ep, &st, &addr, &rid), GNI_RC_NO_MATCH,
		 "gni_ep_postdata_test, nothing posted");
	ktest_rc(gni_ep_postdata_cancel_by_id(ep, 1), GNI_RC_NO_MATCH,
		 "gni_ep_postdata_cancel_by_id, nothing posted");
	ktest_rc(gni_postdata_probe_by_id(t->nic_a, &id), GNI_RC_NO_MATCH,
		 "gni_postdata_probe_by_id, nothing ended");
	ktest_rc(gni_postdata_probe_wait_by_id(t->nic_a, 0, &id),
		 GNI_RC_TIMEOUT, "gni_postdata_probe_wait_by_id 0 ms, nothing");
}

/*
 * Bound to bound: A posts @len_a bytes, B @len_b with an out_buf of
 * @size_b; each gets the other's bytes, as many as fit, and nothing
 * after them.  Round @n; @first: the checks on the way too.
 */
static void ktest_dg_exchange(struct ktest_dg *t, unsigned int n, u16 len_a,
			      u16 len_b, u16 size_b, bool first)
{
	u64 id_a = KTEST_DG_ID(0xa, n), id_b = KTEST_DG_ID(0xb, n);
	u16 fit = min(len_a, size_b);
	gni_post_state_t st = GNI_POST_ERROR;
	u32 addr = 0, rid = 0;
	gni_return_t rc;

	ktest_dg_clear(t);
	if (!ktest_rc(gni_ep_postdata_w_id(t->ep_a, t->in_a, len_a, t->out_a,
					   KTEST_DG_BUF, id_a),
		      GNI_RC_SUCCESS, "gni_ep_postdata_w_id, A to B"))
		return;
	if (first) {
		ktest_rc(gni_ep_postdata_w_id(t->ep_a, t->in_a, 1, t->out_a, 1,
					      id_a + 1),
			 GNI_RC_ERROR_RESOURCE,
			 "gni_ep_postdata_w_id again before the test");
		ktest_dg_test(t, t->ep_a, id_a, GNI_RC_SUCCESS,
			      GNI_POST_PENDING, 0, "A before B posts");
		ktest_dg_test(t, t->ep_a, id_b, GNI_RC_NO_MATCH,
			      GNI_POST_ERROR, 0, "A, another id");
	}
	if (!ktest_rc(gni_ep_postdata_w_id(t->ep_b, t->in_b, len_b, t->out_b,
					   size_b, id_b),
		      GNI_RC_SUCCESS, "gni_ep_postdata_w_id, B to A")) {
		gni_ep_postdata_cancel_by_id(t->ep_a, id_a);
		ktest_dg_probe(t->nic_a, id_a, "A cancelled");
		ktest_dg_test(t, t->ep_a, id_a, GNI_RC_SUCCESS,
			      GNI_POST_TERMINATED, 0, "A cancelled");
		return;
	}
	ktest_dg_probe(t->nic_a, id_a, "A");
	if (ktest_dg_test(t, t->ep_a, id_a, GNI_RC_SUCCESS,
			  GNI_POST_COMPLETED, KTEST_DG_INST_B, "A"))
		ktest_ok(ktest_dg_bytes(t->out_a, t->in_b, len_b),
			 "A's out_buf: B's %u bytes, then nothing", len_b);
	if (first) {
		rc = gni_ep_postdata_wait(t->ep_b, KTEST_DG_WAIT_MS, &st,
					  &addr, &rid);
		ktest_ok(rc == GNI_RC_SUCCESS && st == GNI_POST_COMPLETED &&
			 addr == t->pe && rid == KTEST_DG_INST_A,
			 "gni_ep_postdata_wait, B: %s, state %d from (0x%x, %u)",
			 ktest_rc_name(rc), st, addr, rid);
	} else {
		ktest_dg_test(t, t->ep_b, id_b,
			      len_a > size_b ? GNI_RC_SIZE_ERROR :
					       GNI_RC_SUCCESS,
			      GNI_POST_COMPLETED, KTEST_DG_INST_A, "B");
	}
	ktest_ok(ktest_dg_bytes(t->out_b, t->in_a, fit),
		 "B's out_buf of %u: A's first %u of %u bytes, then nothing",
		 size_b, fit, len_a);
	ktest_dg_test(t, t->ep_b, id_b, GNI_RC_NO_MATCH, GNI_POST_ERROR, 0,
		      "B again: collected");
}

/*
 * gnilnd probes for its datagrams, collects them and cancels them with a
 * spinlock of its own held (kgnilnd_probe_for_dgram(),
 * kgnilnd_cancel_dgram_locked()), and stops the node on INVALID_PARAM:
 * those calls, in its order, under spin_lock, under spin_lock_irqsave and
 * with local_irq_save, on datagrams that completed and on pending ones.
 * The answers to the node's own address come at once, so a cancelled
 * bound datagram is TERMINATED for the test in the same hold of the lock.  A
 * post or a wait there must be refused.
 */
enum ktest_atomic {
	KTEST_SPIN,
	KTEST_SPIN_IRQ,
	KTEST_IRQ_OFF,
};

static const char *const ktest_atomic_names[] = {
	[KTEST_SPIN] = "under spin_lock",
	[KTEST_SPIN_IRQ] = "under spin_lock_irqsave",
	[KTEST_IRQ_OFF] = "with local_irq_save",
};

static DEFINE_SPINLOCK(ktest_dg_spin);

static unsigned long ktest_atomic_enter(enum ktest_atomic how)
{
	unsigned long flags = 0;

	if (how == KTEST_SPIN)
		spin_lock(&ktest_dg_spin);
	else if (how == KTEST_SPIN_IRQ)
		spin_lock_irqsave(&ktest_dg_spin, flags);
	else
		local_irq_save(flags);
	return flags;
}

static void ktest_atomic_exit(enum ktest_atomic how, unsigned long flags)
{
	if (how == KTEST_SPIN)
		spin_unlock(&ktest_dg_spin);
	else if (how == KTEST_SPIN_IRQ)
		spin_unlock_irqrestore(&ktest_dg_spin, flags);
	else
		local_irq_restore(flags);
}

/* What the calls of one hold of the lock answered */
struct ktest_dg_seen {
	gni_return_t probe, test, cancel;
	u64 id;
	gni_post_state_t st;
	u32 addr, rid;
};

static void ktest_dg_seen_init(struct ktest_dg_seen *s)
{
	s->probe = GNI_RC_NOT_DONE;
	s->test = GNI_RC_NOT_DONE;
	s->cancel = GNI_RC_NOT_DONE;
	s->id = 0;
	s->st = GNI_POST_ERROR;
	s->addr = 0;
	s->rid = 0;
}

/* kgnilnd_probe_for_dgram(): the probe, then the test of what it named */
static void ktest_dg_probe_test(gni_nic_handle_t nic, gni_ep_handle_t ep,
				struct ktest_dg_seen *s)
{
	s->probe = gni_postdata_probe_by_id(nic, &s->id);
	if (s->probe == GNI_RC_SUCCESS)
		s->test = gni_ep_postdata_test_by_id(ep, s->id, &s->st,
						     &s->addr, &s->rid);
}

/* kgnilnd_cancel_dgram_locked(): the cancel, then the test */
static void ktest_dg_cancel_test(gni_ep_handle_t ep, u64 id,
				 struct ktest_dg_seen *s)
{
	s->cancel = gni_ep_postdata_cancel_by_id(ep, id);
	s->test = gni_ep_postdata_test_by_id(ep, id, &s->st, &s->addr,
					     &s->rid);
}

/*
 * A bound post without an id meets a wildcard of B's CDM; a wildcard
 * cancelled ends TERMINATED at once.
 */
static void ktest_dg_wildcard(struct ktest_dg *t)
{
	const u64 id_w = KTEST_DG_ID(0xc, 1);
	gni_post_state_t st = GNI_POST_ERROR;
	u32 addr = 0, rid = 0;
	gni_ep_handle_t ep_w;
	gni_return_t rc;
	u64 id = 0;

	if (!ktest_rc(gni_ep_create(t->nic_b, NULL, &ep_w), GNI_RC_SUCCESS,
		      "gni_ep_create, a wildcard of B"))
		return;
	ktest_dg_clear(t);
	ktest_rc(gni_ep_postdata(ep_w, t->in_b, 8, t->out_b, 8),
		 GNI_RC_INVALID_PARAM, "gni_ep_postdata on an unbound endpoint");
	if (!ktest_rc(gni_ep_postdata_w_id(ep_w, t->in_b, 40, t->out_b,
					   KTEST_DG_BUF, id_w),
		      GNI_RC_SUCCESS, "gni_ep_postdata_w_id, the wildcard"))
		goto out;
	if (ktest_rc(gni_ep_postdata(t->ep_a, t->in_a, 30, t->out_a,
				     KTEST_DG_BUF),
		     GNI_RC_SUCCESS, "gni_ep_postdata, A to B, no id")) {
		rc = gni_postdata_probe(t->nic_a, &addr, &rid);
		ktest_ok(rc == GNI_RC_SUCCESS && addr == t->pe &&
			 rid == KTEST_DG_INST_B,
			 "gni_postdata_probe, A: %s, (0x%x, %u)",
			 ktest_rc_name(rc), addr, rid);
		rc = gni_postdata_probe_by_id(t->nic_a, &id);
		ktest_ok(rc == GNI_RC_SUCCESS && id == ~0ull,
			 "gni_postdata_probe_by_id, A: %s, id 0x%llx (none)",
			 ktest_rc_name(rc), id);
		rc = gni_ep_postdata_test(t->ep_a, &st, &addr, &rid);
		ktest_ok(rc == GNI_RC_SUCCESS && st == GNI_POST_COMPLETED &&
			 addr == t->pe && rid == KTEST_DG_INST_B &&
			 ktest_dg_bytes(t->out_a, t->in_b, 40),
			 "gni_ep_postdata_test, A: %s, state %d from (0x%x, %u), the wildcard's 40 bytes",
			 ktest_rc_name(rc), st, addr, rid);
	} else {
		gni_ep_postdata_cancel_by_id(ep_w, id_w);
	}
	ktest_dg_probe(t->nic_b, id_w, "the wildcard");
	if (ktest_dg_test(t, ep_w, id_w, GNI_RC_SUCCESS, GNI_POST_COMPLETED,
			  KTEST_DG_INST_A, "the wildcard"))
		ktest_ok(ktest_dg_bytes(t->out_b, t->in_a, 30),
			 "the wildcard's out_buf: A's 30 bytes");

	if (!ktest_rc(gni_ep_postdata_w_id(ep_w, t->in_b, 8, t->out_b, 8,
					   id_w + 1),
		      GNI_RC_SUCCESS, "gni_ep_postdata_w_id, the wildcard again"))
		goto out;
	ktest_rc(gni_ep_postdata_cancel(ep_w), GNI_RC_SUCCESS,
		 "gni_ep_postdata_cancel of the wildcard");
	/* Gone at once, as gnilnd expects: no probe reports it. */
	rc = gni_postdata_probe(t->nic_b, &addr, &rid);
	ktest_ok(rc == GNI_RC_NO_MATCH,
		 "gni_postdata_probe after the wildcard's cancel: %s (gone)",
		 ktest_rc_name(rc));
	rc = gni_ep_postdata_test(ep_w, &st, &addr, &rid);
	ktest_ok(rc == GNI_RC_NO_MATCH,
		 "gni_ep_postdata_test of the cancelled wildcard: %s (gone)",
		 ktest_rc_name(rc));
	/* As gnilnd cancels and tests its wildcards, under its lock */
	if (ktest_rc(gni_ep_postdata_w_id(ep_w, t->in_b, 8, t->out_b, 8,
					  id_w + 2),
		     GNI_RC_SUCCESS, "gni_ep_postdata_w_id, the wildcard once more")) {
		struct ktest_dg_seen c;
		unsigned long flags;

		ktest_dg_seen_init(&c);
		flags = ktest_atomic_enter(KTEST_SPIN);
		ktest_dg_cancel_test(ep_w, id_w + 2, &c);
		ktest_atomic_exit(KTEST_SPIN, flags);
		ktest_ok(c.cancel == GNI_RC_SUCCESS &&
			 c.test == GNI_RC_NO_MATCH,
			 "under spin_lock: cancel_by_id of a wildcard %s, test_by_id %s (gone)",
			 ktest_rc_name(c.cancel), ktest_rc_name(c.test));
	}
out:
	ktest_rc(gni_ep_destroy(ep_w), GNI_RC_SUCCESS,
		 "gni_ep_destroy of the wildcard");
}

/*
 * A node connecting to itself, as Lustre's gnilnd does for its own NID:
 * one CDM posts a wildcard and a datagram bound to its own (PE, inst_id),
 * in round @n, the wildcard first if @wildcard_first.  The bound one is
 * collected first, then the wildcard, each once, each with the other's
 * data: gnilnd keeps the connection the wildcard made only if the bound
 * one's exists already, and frees the mailbox of one it drops.
 */
static void ktest_dg_self(struct ktest_dg *t, bool wildcard_first,
			  unsigned int n)
{
	const char *order = wildcard_first ? "wildcard first" :
					     "bound first";
	const u64 id_w = KTEST_DG_ID(0xd, n), id_d = KTEST_DG_ID(0xe, n);
	gni_ep_handle_t ep_w = NULL, ep_d = NULL;
	const u16 len_w = 33, len_d = 71;
	gni_return_t rc_w = GNI_RC_NOT_DONE, rc_d = GNI_RC_NOT_DONE;
	unsigned int i;
	char what[64];
	u64 id = 0;

	if (!ktest_rc(gni_ep_create(t->nic_a, NULL, &ep_w), GNI_RC_SUCCESS,
		      "gni_ep_create, A's wildcard to itself") ||
	    !ktest_rc(gni_ep_create(t->nic_a, NULL, &ep_d), GNI_RC_SUCCESS,
		      "gni_ep_create, A's datagram to itself") ||
	    !ktest_rc(gni_ep_bind(ep_d, t->pe, KTEST_DG_INST_A),
		      GNI_RC_SUCCESS, "gni_ep_bind to A's own address"))
		goto out;
	ktest_dg_clear(t);
	for (i = 0; i < 2; i++) {
		if (!i == wildcard_first)
			rc_w = gni_ep_postdata_w_id(ep_w, t->in_a, len_w,
						    t->out_a, KTEST_DG_BUF,
						    id_w);
		else
			rc_d = gni_ep_postdata_w_id(ep_d, t->in_b, len_d,
						    t->out_b, KTEST_DG_BUF,
						    id_d);
	}
	ktest_ok(rc_w == GNI_RC_SUCCESS && rc_d == GNI_RC_SUCCESS,
		 "to itself, %s: gni_ep_postdata_w_id, wildcard %s, bound %s",
		 order, ktest_rc_name(rc_w), ktest_rc_name(rc_d));
	snprintf(what, sizeof(what), "to itself, %s, the bound one", order);
	if (ktest_dg_probe(t->nic_a, id_d, what) &&
	    ktest_dg_test(t, ep_d, id_d, GNI_RC_SUCCESS, GNI_POST_COMPLETED,
			  KTEST_DG_INST_A, what))
		ktest_ok(ktest_dg_bytes(t->out_b, t->in_a, len_w),
			 "%s: the wildcard's %u bytes", what, len_w);
	snprintf(what, sizeof(what), "to itself, %s, the wildcard", order);
	if (ktest_dg_probe(t->nic_a, id_w, what) &&
	    ktest_dg_test(t, ep_w, id_w, GNI_RC_SUCCESS, GNI_POST_COMPLETED,
			  KTEST_DG_INST_A, what))
		ktest_ok(ktest_dg_bytes(t->out_a, t->in_b, len_d),
			 "%s: the bound one's %u bytes", what, len_d);
	ktest_rc(gni_postdata_probe_by_id(t->nic_a, &id), GNI_RC_NO_MATCH,
		 "to itself: each completed once, nothing else ended");
out:
	if (ep_d)
		gni_ep_destroy(ep_d);
	if (ep_w)
		gni_ep_destroy(ep_w);
}

/*
 * A's datagram with no post of B's: a wait times out; cancelled, it ends
 * TERMINATED, and its message is gone from B's side.
 */
static void ktest_dg_timeout(struct ktest_dg *t)
{
	const u64 id = KTEST_DG_ID(0xa, 0x80), id_b = KTEST_DG_ID(0xb, 0x80);
	gni_post_state_t st = GNI_POST_ERROR;
	u32 addr = 0, rid = 0;
	gni_return_t rc;
	ktime_t start;
	s64 ms;
	u64 got;

	if (!ktest_rc(gni_ep_postdata_w_id(t->ep_a, t->in_a, 8, t->out_a,
					   KTEST_DG_BUF, id),
		      GNI_RC_SUCCESS, "gni_ep_postdata_w_id, B posts nothing"))
		return;
	start = ktime_get();
	rc = gni_ep_postdata_wait(t->ep_a, KTEST_DG_SHORT_MS, &st, &addr,
				  &rid);
	ms = ktime_ms_delta(ktime_get(), start);
	ktest_ok(rc == GNI_RC_TIMEOUT && st == GNI_POST_PENDING &&
		 ms >= KTEST_DG_SHORT_MS - 10,
		 "gni_ep_postdata_wait %u ms, no peer: %s, state %d, after %lld ms",
		 KTEST_DG_SHORT_MS, ktest_rc_name(rc), st, ms);
	rc = gni_postdata_probe_wait_by_id(t->nic_a, 50, &got);
	ktest_rc(rc, GNI_RC_TIMEOUT,
		 "gni_postdata_probe_wait_by_id 50 ms, none ended");
	ktest_dg_test(t, t->ep_a, id, GNI_RC_SUCCESS, GNI_POST_PENDING, 0,
		      "still pending");
	ktest_rc(gni_ep_postdata_cancel_by_id(t->ep_a, id + 1),
		 GNI_RC_NO_MATCH, "gni_ep_postdata_cancel_by_id, another id");
	ktest_rc(gni_ep_postdata_cancel_by_id(t->ep_a, id), GNI_RC_SUCCESS,
		 "gni_ep_postdata_cancel_by_id");
	/* Ended, not collected: left as it is (gnilnd asserts SUCCESS) */
	ktest_rc(gni_ep_postdata_cancel_by_id(t->ep_a, id), GNI_RC_SUCCESS,
		 "gni_ep_postdata_cancel_by_id again");
	ktest_dg_probe(t->nic_a, id, "cancelled");
	ktest_dg_test(t, t->ep_a, id, GNI_RC_SUCCESS, GNI_POST_TERMINATED, 0,
		      "cancelled");
	ktest_dg_test(t, t->ep_a, id, GNI_RC_NO_MATCH, GNI_POST_ERROR, 0,
		      "cancelled, collected");

	/* The CANCEL took A's message back: B's post does not meet it. */
	if (!ktest_rc(gni_ep_postdata_w_id(t->ep_b, t->in_b, 8, t->out_b,
					   KTEST_DG_BUF, id_b),
		      GNI_RC_SUCCESS, "gni_ep_postdata_w_id, B to A after"))
		return;
	ktest_dg_test(t, t->ep_b, id_b, GNI_RC_SUCCESS, GNI_POST_PENDING, 0,
		      "B after A's cancel");
	gni_ep_postdata_cancel_by_id(t->ep_b, id_b);
	ktest_dg_probe(t->nic_b, id_b, "B cancelled");
	ktest_dg_test(t, t->ep_b, id_b, GNI_RC_SUCCESS, GNI_POST_TERMINATED, 0,
		      "B cancelled");
}

/*
 * A CDM of another cookie, whose inst_id is B's, does not meet A's
 * datagram.  Destroying A's endpoint then takes the datagram along, its
 * message too; destroying that CDM its wildcard.
 */
static void ktest_dg_isolation(struct ktest_dg *t)
{
	const u64 id_x = KTEST_DG_ID(0xd, 1), id_c = KTEST_DG_ID(0xe, 1),
		  id_b = KTEST_DG_ID(0xb, 0x90);
	gni_nic_handle_t nic_c;
	gni_ep_handle_t ep_x, ep_c;
	gni_cdm_handle_t cdm_c;
	u32 addr = 0;
	u64 id;

	if (!ktest_rc(gni_cdm_create(KTEST_DG_INST_B, KTEST_PTAG,
				     KTEST_DG_COOKIE + 1, 0, &cdm_c),
		      GNI_RC_SUCCESS, "gni_cdm_create, B's inst_id, another cookie"))
		return;
	if (!ktest_rc(gni_cdm_attach(cdm_c, KTEST_DEVICE, &addr, &nic_c),
		      GNI_RC_SUCCESS, "gni_cdm_attach, another cookie"))
		goto cdm;
	if (!ktest_rc(gni_ep_create(nic_c, NULL, &ep_c), GNI_RC_SUCCESS,
		      "gni_ep_create, another cookie") ||
	    !ktest_rc(gni_ep_postdata_w_id(ep_c, t->in_b, 8, t->out_b, 8,
					   id_c),
		      GNI_RC_SUCCESS, "gni_ep_postdata_w_id, its wildcard"))
		goto cdm;
	if (!ktest_rc(gni_ep_create(t->nic_a, NULL, &ep_x), GNI_RC_SUCCESS,
		      "gni_ep_create, another of A's"))
		goto cdm;
	gni_ep_bind(ep_x, t->pe, KTEST_DG_INST_B);
	if (ktest_rc(gni_ep_postdata_w_id(ep_x, t->in_a, 8, t->out_a, 8,
					  id_x),
		     GNI_RC_SUCCESS, "gni_ep_postdata_w_id, A's to B's inst_id")) {
		ktest_dg_test(t, ep_x, id_x, GNI_RC_SUCCESS, GNI_POST_PENDING, 0,
			      "A's, not met by another cookie");
		ktest_dg_test(t, ep_c, id_c, GNI_RC_SUCCESS, GNI_POST_PENDING, 0,
			      "another cookie's wildcard, not met");
	}
	ktest_rc(gni_ep_destroy(ep_x), GNI_RC_SUCCESS,
		 "gni_ep_destroy with its datagram pending");
	ktest_rc(gni_postdata_probe_by_id(t->nic_a, &id), GNI_RC_NO_MATCH,
		 "gni_postdata_probe_by_id: the destroyed endpoint's is gone");
	/* Its message is gone from B's side too. */
	if (ktest_rc(gni_ep_postdata_w_id(t->ep_b, t->in_b, 8, t->out_b,
					  KTEST_DG_BUF, id_b),
		     GNI_RC_SUCCESS, "gni_ep_postdata_w_id, B to A")) {
		ktest_dg_test(t, t->ep_b, id_b, GNI_RC_SUCCESS,
			      GNI_POST_PENDING, 0,
			      "B, after A's endpoint was destroyed");
		gni_ep_postdata_cancel_by_id(t->ep_b, id_b);
		ktest_dg_probe(t->nic_b, id_b, "B cancelled");
		ktest_dg_test(t, t->ep_b, id_b, GNI_RC_SUCCESS,
			      GNI_POST_TERMINATED, 0, "B cancelled");
	}
cdm:
	ktest_rc(gni_cdm_destroy(cdm_c), GNI_RC_SUCCESS,
		 "gni_cdm_destroy with a wildcard pending");
}

/* A collected by probe and test: @id, COMPLETED from (t->pe, @inst) */
static bool ktest_dg_collected(struct ktest_dg *t,
			       const struct ktest_dg_seen *s, u64 id,
			       u32 inst)
{
	return s->probe == GNI_RC_SUCCESS && s->id == id &&
	       s->test == GNI_RC_SUCCESS && s->st == GNI_POST_COMPLETED &&
	       s->addr == t->pe && s->rid == inst;
}

/*
 * A and B exchange @len_a and @len_b bytes (round @n); then, @how, each
 * side probes and collects its datagram.
 */
static void ktest_dg_atomic_collect(struct ktest_dg *t,
				    enum ktest_atomic how, unsigned int n,
				    u16 len_a, u16 len_b)
{
	const char *name = ktest_atomic_names[how];
	u64 id_a = KTEST_DG_ID(0xa, n), id_b = KTEST_DG_ID(0xb, n);
	struct ktest_dg_seen a, b;
	unsigned long flags;

	ktest_dg_seen_init(&a);
	ktest_dg_seen_init(&b);
	ktest_dg_clear(t);
	if (!ktest_rc(gni_ep_postdata_w_id(t->ep_a, t->in_a, len_a, t->out_a,
					   KTEST_DG_BUF, id_a),
		      GNI_RC_SUCCESS, "gni_ep_postdata_w_id, A, to collect atomic"))
		return;
	if (!ktest_rc(gni_ep_postdata_w_id(t->ep_b, t->in_b, len_b, t->out_b,
					   KTEST_DG_BUF, id_b),
		      GNI_RC_SUCCESS, "gni_ep_postdata_w_id, B, to collect atomic")) {
		gni_ep_postdata_cancel_by_id(t->ep_a, id_a);
		ktest_dg_probe(t->nic_a, id_a, "A cancelled");
		ktest_dg_test(t, t->ep_a, id_a, GNI_RC_SUCCESS,
			      GNI_POST_TERMINATED, 0, "A cancelled");
		return;
	}
	flags = ktest_atomic_enter(how);
	ktest_dg_probe_test(t->nic_a, t->ep_a, &a);
	ktest_dg_probe_test(t->nic_b, t->ep_b, &b);
	ktest_atomic_exit(how, flags);
	ktest_ok(ktest_dg_collected(t, &a, id_a, KTEST_DG_INST_B) &&
		 ktest_dg_bytes(t->out_a, t->in_b, len_b),
		 "%s, A: probe_by_id %s, id 0x%llx; test_by_id %s, state %d from (0x%x, %u), B's %u bytes",
		 name, ktest_rc_name(a.probe), a.id, ktest_rc_name(a.test),
		 a.st, a.addr, a.rid, len_b);
	ktest_ok(ktest_dg_collected(t, &b, id_b, KTEST_DG_INST_A) &&
		 ktest_dg_bytes(t->out_b, t->in_a, len_a),
		 "%s, B: probe_by_id %s, id 0x%llx; test_by_id %s, state %d from (0x%x, %u), A's %u bytes",
		 name, ktest_rc_name(b.probe), b.id, ktest_rc_name(b.test),
		 b.st, b.addr, b.rid, len_a);
}

/*
 * A's datagram pending (round @n): @how, the probe finds nothing, the
 * test says PENDING, and the cancel then the test say TERMINATED.  Its
 * message was taken back, so B's datagram after it is pending too, and
 * goes the same way.
 */
static void ktest_dg_atomic_cancel(struct ktest_dg *t, enum ktest_atomic how,
				   unsigned int n)
{
	const char *name = ktest_atomic_names[how];
	u64 id_a = KTEST_DG_ID(0xa, n), id_b = KTEST_DG_ID(0xb, n);
	struct ktest_dg_seen pa, ca, pb, cb;
	unsigned long flags;
	u64 id = 0;

	ktest_dg_seen_init(&pa);
	ktest_dg_seen_init(&ca);
	ktest_dg_seen_init(&pb);
	ktest_dg_seen_init(&cb);
	if (!ktest_rc(gni_ep_postdata_w_id(t->ep_a, t->in_a, 8, t->out_a,
					   KTEST_DG_BUF, id_a),
		      GNI_RC_SUCCESS, "gni_ep_postdata_w_id, A, to cancel atomic"))
		return;
	flags = ktest_atomic_enter(how);
	ktest_dg_probe_test(t->nic_a, t->ep_a, &pa);
	pa.test = gni_ep_postdata_test_by_id(t->ep_a, id_a, &pa.st, &pa.addr,
					     &pa.rid);
	ktest_dg_cancel_test(t->ep_a, id_a, &ca);
	ktest_atomic_exit(how, flags);
	ktest_ok(pa.probe == GNI_RC_NO_MATCH && pa.test == GNI_RC_SUCCESS &&
		 pa.st == GNI_POST_PENDING,
		 "%s, A pending: probe_by_id %s; test_by_id %s, state %d",
		 name, ktest_rc_name(pa.probe), ktest_rc_name(pa.test),
		 pa.st);
	ktest_ok(ca.cancel == GNI_RC_SUCCESS && ca.test == GNI_RC_SUCCESS &&
		 ca.st == GNI_POST_TERMINATED,
		 "%s, A: cancel_by_id %s; test_by_id %s, state %d (TERMINATED)",
		 name, ktest_rc_name(ca.cancel), ktest_rc_name(ca.test), ca.st);

	if (!ktest_rc(gni_ep_postdata_w_id(t->ep_b, t->in_b, 8, t->out_b,
					   KTEST_DG_BUF, id_b),
		      GNI_RC_SUCCESS, "gni_ep_postdata_w_id, B, to cancel atomic"))
		return;
	flags = ktest_atomic_enter(how);
	pb.test = gni_ep_postdata_test_by_id(t->ep_b, id_b, &pb.st, &pb.addr,
					     &pb.rid);
	ktest_dg_cancel_test(t->ep_b, id_b, &cb);
	ktest_atomic_exit(how, flags);
	ktest_ok(pb.test == GNI_RC_SUCCESS && pb.st == GNI_POST_PENDING &&
		 cb.cancel == GNI_RC_SUCCESS && cb.test == GNI_RC_SUCCESS &&
		 cb.st == GNI_POST_TERMINATED,
		 "%s, B after A's cancel: test_by_id %s, state %d; cancel_by_id %s; test_by_id %s, state %d",
		 name, ktest_rc_name(pb.test), pb.st, ktest_rc_name(cb.cancel),
		 ktest_rc_name(cb.test), cb.st);
	ktest_rc(gni_postdata_probe_by_id(t->nic_a, &id), GNI_RC_NO_MATCH,
		 "gni_postdata_probe_by_id, A: all collected");
	ktest_rc(gni_postdata_probe_by_id(t->nic_b, &id), GNI_RC_NO_MATCH,
		 "gni_postdata_probe_by_id, B: all collected");
}

/*
 * The calls without an id, @how: A and B exchange bound datagrams, each
 * side probes and tests; A's next one, pending, is cancelled, probed
 * (its peer is the one it was posted to) and tested TERMINATED.
 */
static void ktest_dg_atomic_noid(struct ktest_dg *t, enum ktest_atomic how)
{
	const char *name = ktest_atomic_names[how];
	struct ktest_dg_seen a, b, c;
	u32 pa_addr = 0, pa_rid = 0, pb_addr = 0, pb_rid = 0;
	unsigned long flags;

	ktest_dg_seen_init(&a);
	ktest_dg_seen_init(&b);
	ktest_dg_seen_init(&c);
	ktest_dg_clear(t);
	if (!ktest_rc(gni_ep_postdata(t->ep_a, t->in_a, 33, t->out_a,
				      KTEST_DG_BUF),
		      GNI_RC_SUCCESS, "gni_ep_postdata, A, to test atomic"))
		return;
	if (!ktest_rc(gni_ep_postdata(t->ep_b, t->in_b, 66, t->out_b,
				      KTEST_DG_BUF),
		      GNI_RC_SUCCESS, "gni_ep_postdata, B, to test atomic")) {
		gni_ep_postdata_cancel(t->ep_a);
		gni_ep_postdata_test(t->ep_a, &a.st, &a.addr, &a.rid);
		return;
	}
	flags = ktest_atomic_enter(how);
	a.probe = gni_postdata_probe(t->nic_a, &pa_addr, &pa_rid);
	a.test = gni_ep_postdata_test(t->ep_a, &a.st, &a.addr, &a.rid);
	b.probe = gni_postdata_probe(t->nic_b, &pb_addr, &pb_rid);
	b.test = gni_ep_postdata_test(t->ep_b, &b.st, &b.addr, &b.rid);
	ktest_atomic_exit(how, flags);
	ktest_ok(a.probe == GNI_RC_SUCCESS && pa_addr == t->pe &&
		 pa_rid == KTEST_DG_INST_B && a.test == GNI_RC_SUCCESS &&
		 a.st == GNI_POST_COMPLETED && a.addr == t->pe &&
		 a.rid == KTEST_DG_INST_B && ktest_dg_bytes(t->out_a, t->in_b, 66),
		 "%s, A: gni_postdata_probe %s (0x%x, %u); test %s, state %d from (0x%x, %u), B's 66 bytes",
		 name, ktest_rc_name(a.probe), pa_addr, pa_rid,
		 ktest_rc_name(a.test), a.st, a.addr, a.rid);
	ktest_ok(b.probe == GNI_RC_SUCCESS && pb_addr == t->pe &&
		 pb_rid == KTEST_DG_INST_A && b.test == GNI_RC_SUCCESS &&
		 b.st == GNI_POST_COMPLETED && b.addr == t->pe &&
		 b.rid == KTEST_DG_INST_A && ktest_dg_bytes(t->out_b, t->in_a, 33),
		 "%s, B: gni_postdata_probe %s (0x%x, %u); test %s, state %d from (0x%x, %u), A's 33 bytes",
		 name, ktest_rc_name(b.probe), pb_addr, pb_rid,
		 ktest_rc_name(b.test), b.st, b.addr, b.rid);

	if (!ktest_rc(gni_ep_postdata(t->ep_a, t->in_a, 5, t->out_a, 5),
		      GNI_RC_SUCCESS, "gni_ep_postdata, A, to cancel atomic"))
		return;
	pa_addr = 0;
	pa_rid = 0;
	flags = ktest_atomic_enter(how);
	c.cancel = gni_ep_postdata_cancel(t->ep_a);
	c.probe = gni_postdata_probe(t->nic_a, &pa_addr, &pa_rid);
	c.test = gni_ep_postdata_test(t->ep_a, &c.st, &c.addr, &c.rid);
	ktest_atomic_exit(how, flags);
	ktest_ok(c.cancel == GNI_RC_SUCCESS && c.probe == GNI_RC_SUCCESS &&
		 pa_addr == t->pe && pa_rid == KTEST_DG_INST_B &&
		 c.test == GNI_RC_SUCCESS && c.st == GNI_POST_TERMINATED,
		 "%s, A: gni_ep_postdata_cancel %s; probe %s (0x%x, %u); test %s, state %d",
		 name, ktest_rc_name(c.cancel), ktest_rc_name(c.probe),
		 pa_addr, pa_rid, ktest_rc_name(c.test), c.st);
}

/*
 * Posts and waits may sleep: @how, each is refused with INVALID_PARAM
 * and posts nothing.  A held spinlock alone shows only where the
 * preemption count counts it (CONFIG_PREEMPT_COUNT).
 */
static void ktest_dg_atomic_refusals(struct ktest_dg *t,
				     enum ktest_atomic how)
{
	const char *name = ktest_atomic_names[how];
	gni_return_t post, post_noid, wait, pwait;
	gni_post_state_t st = GNI_POST_ERROR;
	u32 addr = 0, rid = 0;
	unsigned long flags;
	u64 id = 0;

	if (how == KTEST_SPIN && !IS_ENABLED(CONFIG_PREEMPT_COUNT)) {
		ktest_ok(true,
			 "%s: posts and waits not called # SKIP no CONFIG_PREEMPT_COUNT: a spinlock does not show",
			 name);
		return;
	}
	flags = ktest_atomic_enter(how);
	post = gni_ep_postdata_w_id(t->ep_a, t->in_a, 8, t->out_a, 8,
				    KTEST_DG_ID(0xa, 0xf0));
	post_noid = gni_ep_postdata(t->ep_a, t->in_a, 8, t->out_a, 8);
	wait = gni_ep_postdata_wait(t->ep_a, 10, &st, &addr, &rid);
	pwait = gni_postdata_probe_wait_by_id(t->nic_a, 10, &id);
	ktest_atomic_exit(how, flags);
	ktest_ok(post == GNI_RC_INVALID_PARAM &&
		 post_noid == GNI_RC_INVALID_PARAM,
		 "%s: gni_ep_postdata_w_id %s, gni_ep_postdata %s (refused)",
		 name, ktest_rc_name(post), ktest_rc_name(post_noid));
	ktest_ok(wait == GNI_RC_INVALID_PARAM && pwait == GNI_RC_INVALID_PARAM,
		 "%s: gni_ep_postdata_wait %s, gni_postdata_probe_wait_by_id %s (refused)",
		 name, ktest_rc_name(wait), ktest_rc_name(pwait));
	ktest_rc(gni_ep_postdata_test(t->ep_a, &st, &addr, &rid),
		 GNI_RC_NO_MATCH, "gni_ep_postdata_test: the refused posts posted nothing");
}

/* The datagram calls gnilnd makes under its lock, and the refusals there */
static void ktest_dg_atomic(struct ktest_dg *t)
{
	ktest_dg_atomic_collect(t, KTEST_SPIN, 0xa0, 48, 77);
	ktest_dg_atomic_collect(t, KTEST_SPIN_IRQ, 0xa1, GNI_DATAGRAM_MAXSIZE,
				1);
	ktest_dg_atomic_cancel(t, KTEST_SPIN, 0xa2);
	ktest_dg_atomic_cancel(t, KTEST_SPIN_IRQ, 0xa3);
	ktest_dg_atomic_noid(t, KTEST_SPIN);
	ktest_dg_atomic_noid(t, KTEST_IRQ_OFF);
	ktest_dg_atomic_refusals(t, KTEST_SPIN);
	ktest_dg_atomic_refusals(t, KTEST_SPIN_IRQ);
	ktest_dg_atomic_refusals(t, KTEST_IRQ_OFF);
}

/*
 * gnilnd deregisters its mailbox blocks and releases their holds under a
 * spinlock of its own (kgnilnd_release_mbox(), kgnilnd_unmap_fma_blocks()
 * and kgnilnd_free_fmablk_locked() under gnd_fmablk_lock), and LBUGs on
 * anything but SUCCESS: both calls work there, and in softirq context,
 * as on a Cray.  In one atomic stretch: a plain deregistration, one with
 * a hold and the release of that hold, the first again (refused), and
 * the release of a hold made in process context, twice.
 */
struct ktest_mem_atomic {
	gni_nic_handle_t nic;
	gni_mem_handle_t a, b, c;
	gni_return_t dereg_a, dereg_b, rel_b, again_a, rel_c, rel_c2;
	struct timer_list timer;
	struct completion done;
};

static struct ktest_mem_atomic ktest_ma;

static void ktest_mem_atomic_calls(struct ktest_mem_atomic *m)
{
	m->dereg_a = gni_mem_deregister(m->nic, &m->a, 0);
	m->dereg_b = gni_mem_deregister(m->nic, &m->b, KTEST_HOLD_LONG_MS);
	m->rel_b = gni_mem_mdd_release(m->nic, &m->b);
	m->again_a = gni_mem_deregister(m->nic, &m->a, 0);
	m->rel_c = gni_mem_mdd_release(m->nic, &m->c);
	m->rel_c2 = gni_mem_mdd_release(m->nic, &m->c);
}

static void ktest_mem_atomic_timer(struct timer_list *t)
{
	struct ktest_mem_atomic *m = from_timer(m, t, timer);

	ktest_mem_atomic_calls(m);
	complete(&m->done);
}

/* A registration from a timer: @m->a.qword1 the address, into @m->b */
static void ktest_mem_atomic_reg_timer(struct timer_list *t)
{
	struct ktest_mem_atomic *m = from_timer(m, t, timer);

	memset(&m->b, 0, sizeof(m->b));
	m->dereg_a = gni_mem_register(m->nic, m->a.qword1, 64, NULL,
				      GNI_MEM_READWRITE, &m->b);
	complete(&m->done);
}

/* The stretch @how (a KTEST_* of enum ktest_atomic, or softirq) */
static void ktest_mem_atomic_run(gni_nic_handle_t nic, void *kbuf,
				 int how, const char *name)
{
	struct ktest_mem_atomic *m = &ktest_ma;
	u64 addr = (u64)(unsigned long)kbuf;
	unsigned long flags;
	gni_mem_handle_t d;
	u32 mdh;

	if (how == KTEST_SPIN && !IS_ENABLED(CONFIG_PREEMPT_COUNT)) {
		ktest_ok(true,
			 "%s: deregistration not called # SKIP no CONFIG_PREEMPT_COUNT: a spinlock does not show",
			 name);
		return;
	}
	m->nic = nic;
	if (!ktest_mem_reg(nic, "to deregister atomic", addr, 64, NULL, 0,
			   &m->a))
		return;
	mdh = GNI_MEMHNDL_GET_MDH(m->a);
	if (!ktest_mem_reg(nic, "to deregister atomic with a hold",
			   addr + 64, 64, NULL, 0, &m->b)) {
		ktest_mem_dereg(nic, &m->a, "to deregister atomic");
		return;
	}
	if (ktest_mem_reg(nic, "to hold, then release atomic", addr + 128,
			  64, NULL, 0, &m->c))
		ktest_rc(gni_mem_deregister(nic, &m->c, KTEST_HOLD_LONG_MS),
			 GNI_RC_SUCCESS, "gni_mem_deregister with a 60 s hold, to release atomic");
	if (how < 0) {
		init_completion(&m->done);
		timer_setup(&m->timer, ktest_mem_atomic_timer, 0);
		mod_timer(&m->timer, jiffies);
		wait_for_completion(&m->done);
		del_timer_sync(&m->timer);
	} else {
		flags = ktest_atomic_enter(how);
		ktest_mem_atomic_calls(m);
		ktest_atomic_exit(how, flags);
	}
	ktest_ok(m->dereg_a == GNI_RC_SUCCESS && m->dereg_b == GNI_RC_SUCCESS,
		 "%s: gni_mem_deregister %s, with a hold %s",
		 name, ktest_rc_name(m->dereg_a), ktest_rc_name(m->dereg_b));
	ktest_ok(m->rel_b == GNI_RC_SUCCESS,
		 "%s: gni_mem_mdd_release of that hold %s", name,
		 ktest_rc_name(m->rel_b));
	ktest_ok(m->again_a == GNI_RC_INVALID_PARAM,
		 "%s: gni_mem_deregister again %s (refused)", name,
		 ktest_rc_name(m->again_a));
	ktest_ok(m->rel_c == GNI_RC_SUCCESS && m->rel_c2 == GNI_RC_NO_MATCH,
		 "%s: gni_mem_mdd_release of an older hold %s, again %s",
		 name, ktest_rc_name(m->rel_c), ktest_rc_name(m->rel_c2));
	ktest_rc(gni_mem_mdd_release(nic, &m->b), GNI_RC_NO_MATCH,
		 "gni_mem_mdd_release afterwards: the hold released atomic is gone");
	ktest_rc(gni_mem_deregister(nic, &m->a, 0), GNI_RC_INVALID_PARAM,
		 "gni_mem_deregister afterwards: the registration is gone");
	/* The lowest free number: the atomic deregistration gave it back. */
	if (ktest_mem_reg(nic, "after the atomic deregistration", addr, 64,
			  NULL, 0, &d)) {
		ktest_ok(GNI_MEMHNDL_GET_MDH(d) == mdh,
			 "%s: the MDH %u is given out again: %u", name, mdh,
			 GNI_MEMHNDL_GET_MDH(d));
		ktest_mem_dereg(nic, &d, "after the atomic deregistration");
	}
}

/*
 * After a stack reset gnilnd registers its physically contiguous mailbox
 * blocks again under gnd_fmablk_lock (kgnilnd_map_phys_fmablk()): with
 * nothing else in kgni's data path, that works; in interrupt context
 * registration is refused.
 */
static void ktest_mem_atomic_register(gni_nic_handle_t nic, void *kbuf)
{
	struct ktest_mem_atomic *m = &ktest_ma;
	u64 addr = (u64)(unsigned long)kbuf;
	gni_return_t reg, dereg;
	gni_mem_handle_t mh;
	unsigned long flags;

	if (!IS_ENABLED(CONFIG_PREEMPT_COUNT)) {
		ktest_ok(true,
			 "registration under spin_lock not called # SKIP no CONFIG_PREEMPT_COUNT: a spinlock does not show");
		return;
	}
	memset(&mh, 0, sizeof(mh));
	flags = ktest_atomic_enter(KTEST_SPIN);
	reg = gni_mem_register(nic, addr, PAGE_SIZE, NULL,
			       GNI_MEM_READWRITE | GNI_MEM_PHYS_CONT, &mh);
	dereg = reg == GNI_RC_SUCCESS ? gni_mem_deregister(nic, &mh, 0) :
					GNI_RC_NOT_DONE;
	ktest_atomic_exit(KTEST_SPIN, flags);
	ktest_ok(reg == GNI_RC_SUCCESS && GNI_MEMHNDL_GET_NPAGES(mh) == 1 &&
		 dereg == GNI_RC_SUCCESS,
		 "under spin_lock: gni_mem_register, GNI_MEM_PHYS_CONT, %s, %u pages; gni_mem_deregister %s",
		 ktest_rc_name(reg), GNI_MEMHNDL_GET_NPAGES(mh),
		 ktest_rc_name(dereg));
	m->nic = nic;
	m->a.qword1 = addr;
	init_completion(&m->done);
	timer_setup(&m->timer, ktest_mem_atomic_reg_timer, 0);
	mod_timer(&m->timer, jiffies);
	wait_for_completion(&m->done);
	del_timer_sync(&m->timer);
	ktest_ok(m->dereg_a == GNI_RC_INVALID_PARAM,
		 "in softirq (a timer): gni_mem_register %s (refused)",
		 ktest_rc_name(m->dereg_a));
	if (m->dereg_a == GNI_RC_SUCCESS)
		gni_mem_deregister(nic, &m->b, 0);
}

/* gni_mem_deregister() and gni_mem_mdd_release() in atomic context */
static void ktest_mem_atomic(gni_nic_handle_t nic)
{
	void *kbuf = kmalloc(PAGE_SIZE, GFP_KERNEL);

	if (!ktest_ok(kbuf, "kmalloc, a page for atomic deregistration"))
		return;
	ktest_mem_atomic_run(nic, kbuf, KTEST_SPIN,
			     ktest_atomic_names[KTEST_SPIN]);
	ktest_mem_atomic_run(nic, kbuf, KTEST_SPIN_IRQ,
			     ktest_atomic_names[KTEST_SPIN_IRQ]);
	ktest_mem_atomic_run(nic, kbuf, KTEST_IRQ_OFF,
			     ktest_atomic_names[KTEST_IRQ_OFF]);
	ktest_mem_atomic_run(nic, kbuf, -1, "in softirq (a timer)");
	ktest_mem_atomic_register(nic, kbuf);
	kfree(kbuf);
}

/* The datagram checks; @pe is the NIC's address. */
static void ktest_dgram(u32 pe)
{
	gni_cdm_handle_t cdm_a = NULL, cdm_b = NULL;
	struct ktest_dg *t;
	u32 addr_a = 0, addr_b = 0;
	unsigned int i;

	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!ktest_ok(t, "kzalloc, datagram buffers"))
		return;
	t->pe = pe;
	for (i = 0; i < KTEST_DG_BUF; i++) {
		t->in_a[i] = 0x41 + i;
		t->in_b[i] = 0xc3 - 3 * i;
	}
	if (!ktest_rc(gni_cdm_create(KTEST_DG_INST_A, KTEST_PTAG,
				     KTEST_DG_COOKIE, 0, &cdm_a),
		      GNI_RC_SUCCESS, "gni_cdm_create, datagrams' A") ||
	    !ktest_rc(gni_cdm_create(KTEST_DG_INST_B, KTEST_PTAG,
				     KTEST_DG_COOKIE, 0, &cdm_b),
		      GNI_RC_SUCCESS, "gni_cdm_create, datagrams' B") ||
	    !ktest_rc(gni_cdm_attach(cdm_a, KTEST_DEVICE, &addr_a, &t->nic_a),
		      GNI_RC_SUCCESS, "gni_cdm_attach, A") ||
	    !ktest_rc(gni_cdm_attach(cdm_b, KTEST_DEVICE, &addr_b, &t->nic_b),
		      GNI_RC_SUCCESS, "gni_cdm_attach, B") ||
	    !ktest_rc(gni_ep_create(t->nic_a, NULL, &t->ep_a), GNI_RC_SUCCESS,
		      "gni_ep_create, A's") ||
	    !ktest_rc(gni_ep_create(t->nic_b, NULL, &t->ep_b), GNI_RC_SUCCESS,
		      "gni_ep_create, B's"))
		goto out;
	ktest_ok(addr_a == pe && addr_b == pe,
		 "A and B at the NIC address 0x%x", pe);
	gni_ep_bind(t->ep_a, pe, KTEST_DG_INST_B);
	gni_ep_bind(t->ep_b, pe, KTEST_DG_INST_A);

	ktest_dg_refusals(t);
	ktest_dg_exchange(t, 1, 100, 57, KTEST_DG_BUF, true);
	ktest_dg_exchange(t, 2, GNI_DATAGRAM_MAXSIZE, GNI_DATAGRAM_MAXSIZE, 16,
			  false);
	ktest_dg_wildcard(t);
	ktest_dg_self(t, true, 1);
	ktest_dg_self(t, false, 2);
	ktest_dg_timeout(t);
	ktest_dg_isolation(t);
	ktest_dg_atomic(t);
	ktest_rc(gni_ep_destroy(t->ep_a), GNI_RC_SUCCESS,
		 "gni_ep_destroy, A's");
	ktest_rc(gni_ep_destroy(t->ep_b), GNI_RC_SUCCESS,
		 "gni_ep_destroy, B's");
out:
	/* After a failure, endpoints left go with their CDM. */
	if (cdm_b)
		gni_cdm_destroy(cdm_b);
	if (cdm_a)
		gni_cdm_destroy(cdm_a);
	kfree(t);
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

/* RCA: registrations, subscriptions, waits, NID <-> NIC, the node list */

static const rs_event_code_t ktest_rca_codes[] = {
	ec_node_unavailable, ec_node_available, ec_node_failed,
};

static bool ktest_neg(int got, int want, const char *what)
{
	return ktest_ok(got == want, "%s: %d", what, got);
}

static void ktest_rca_nids(u32 pe, u32 nodes)
{
	nic_addr_t addr = 0;
	rca_nid_t nid, back;
	int rc, bad = 0;

	rc = krca_nicaddr_to_nid(pe, &nid);
	ktest_ok(rc == 0 && nid < nodes,
		 "krca_nicaddr_to_nid(0x%x), this node: %d, NID %u of %u",
		 pe, rc, nid, nodes);
	rc = krca_nid_to_nicaddrs(nid, 1, &addr);
	ktest_ok(rc == 1 && addr == pe, "krca_nid_to_nicaddrs(%u): %d, 0x%x",
		 nid, rc, addr);
	for (nid = 0; nid < nodes; nid++) {
		addr = 0;
		back = U32_MAX;
		if (krca_nid_to_nicaddrs(nid, 4, &addr) != 1 ||
		    krca_nicaddr_to_nid(addr, &back) || back != nid)
			bad++;
	}
	ktest_ok(!bad, "NID -> NIC -> NID agrees for the %u nodes (%d disagree)", nodes, bad);
	ktest_neg(krca_nid_to_nicaddrs(nodes, 1, &addr), -ESRCH,
		  "krca_nid_to_nicaddrs, a NID past the torus");
	ktest_neg(krca_nid_to_nicaddrs(0, 0, &addr), -EINVAL,
		  "krca_nid_to_nicaddrs, numnic 0");
	ktest_neg(krca_nid_to_nicaddrs(0, 1, NULL), -EINVAL,
		  "krca_nid_to_nicaddrs, no array");
	ktest_neg(krca_nicaddr_to_nid(pe | 1, &nid), -ESRCH,
		  "krca_nicaddr_to_nid, NIC id 1 (none)");
	ktest_neg(krca_nicaddr_to_nid((nodes << 2), &nid), -ESRCH,
		  "krca_nicaddr_to_nid, a node past the torus");
	ktest_neg(krca_nicaddr_to_nid(pe, NULL), -EINVAL,
		  "krca_nicaddr_to_nid, no nid");
}

static u32 ktest_rca_sysnodes(void)
{
	rs_node_array_t list = { .na_len = 7 };
	unsigned int i, bad = 0;
	int rc;

	rc = krca_get_sysnodes(&list);
	for (i = 0; rc == 0 && i < list.na_len; i++) {
		u64 w = list.na_ids[i].rs_node_flat;

		if (RSN_GET_FLD(w, NID) != i || RSN_GET_FLD(w, TYPE) != rt_node ||
		    !RSN_GET_FLD(w, IS_SVC) ||
		    RSN_GET_FLD(w, STATE) != RS_CS_READY)
			bad++;
	}
	ktest_ok(rc == 0 && list.na_len >= 1 && list.na_ids && !bad,
		 "krca_get_sysnodes: %d, %u nodes, each with its NID, rt_node, a service node, RS_CS_READY (%u not)",
		 rc, list.na_len, bad);
	kfree(list.na_ids);
	ktest_neg(krca_get_sysnodes(NULL), -EINVAL, "krca_get_sysnodes(NULL)");
	return rc ? 0 : list.na_len;
}

static void ktest_rca_limits(void)
{
	krca_ticket_t t[KTEST_RCA_REGS] = { 0 };
	int i, ok = 0, nospc = 0, rc;

	for (i = 0; i < KTEST_RCA_REGS; i++) {
		rc = krca_register(&t[i], RCA_SVCTYPE_GNILND, i, 0);
		ok += rc == 0;
		nospc += rc == -ENOSPC;
	}
	ktest_ok(ok == 32 && nospc == KTEST_RCA_REGS - 32,
		 "%d registrations: %d taken, %d -ENOSPC", KTEST_RCA_REGS, ok,
		 nospc);
	for (i = 0; i < KTEST_RCA_REGS; i++)
		if (t[i])
			krca_unregister(&t[i]);
}

static void ktest_rca(u32 pe)
{
	krca_ticket_t t = KRCA_NULL_TICKET, stale;
	rca_ticket_t sub[3] = { 0 }, s;
	rs_event_t ev;
	unsigned int i;
	int rc, bad = 0;
	u32 nodes;

	ktest_neg(krca_register(NULL, RCA_SVCTYPE_GNILND, 1, 0), -EINVAL,
		  "krca_register, no ticket");
	rc = krca_register(&t, RCA_SVCTYPE_GNILND, current->pid, 0);
	if (!ktest_ok(rc == 0 && t != KRCA_NULL_TICKET,
		      "krca_register(RCA_SVCTYPE_GNILND, pid): %d", rc))
		return;
	for (i = 0; i < ARRAY_SIZE(ktest_rca_codes); i++)
		bad += krca_subscribe(&t, ktest_rca_codes[i], RCA_RX_SVC_ANY,
				      &sub[i]) != 0;
	ktest_ok(!bad, "krca_subscribe to the three node events, RCA_RX_SVC_ANY");
	ktest_neg(krca_subscribe(&t, 0, RCA_RX_SVC_ANY, &s), -EINVAL,
		  "krca_subscribe, an unknown event code");
	ktest_neg(krca_subscribe(&t, ec_node_failed, RCA_RX_SVC_ANY, NULL),
		  -EINVAL, "krca_subscribe, no subscription ticket");
	ktest_neg(krca_get_message(&t, &ev), -EAGAIN,
		  "krca_get_message, nothing queued");
	ktest_neg(krca_get_message(&t, NULL), -EINVAL,
		  "krca_get_message, no event");
	ktest_neg(krca_wakeup_wait_event(&t), 0, "krca_wakeup_wait_event");
	ktest_neg(krca_wait_event(&t), 0,
		  "krca_wait_event after the wake-up returns at once");
	nodes = ktest_rca_sysnodes();
	if (nodes)
		ktest_rca_nids(pe, nodes);
	ktest_neg(krca_unsubscribe(&t, sub[2]), 0,
		  "krca_unsubscribe(ec_node_failed)");
	ktest_neg(krca_unsubscribe(&t, sub[2]), -EINVAL,
		  "krca_unsubscribe of it again");
	stale = t;
	ktest_ok(krca_unregister(&t) == 0 && t == KRCA_NULL_TICKET,
		 "krca_unregister clears the ticket");
	ktest_neg(krca_unregister(&stale), -EINVAL, "krca_unregister again");
	ktest_neg(krca_subscribe(&stale, ec_node_available, RCA_RX_SVC_ANY,
				 &s), -EINVAL, "krca_subscribe, stale ticket");
	ktest_neg(krca_wait_event(&stale), -EINVAL,
		  "krca_wait_event, stale ticket");
	ktest_neg(krca_wakeup_wait_event(NULL), -EINVAL,
		  "krca_wakeup_wait_event(NULL)");
	ktest_rca_limits();
	send_hb_2_l0();
	ktest_ok(true, "send_hb_2_l0() returns");
}

/* Error subscriptions */

#define KTEST_ERR_COOKIE	(KTEST_COOKIE + 0x200)
#define KTEST_ERR_MASK		(GNI_ERRMASK_CRITICAL | \
				 GNI_ERRMASK_UNKNOWN_TRANSACTION)
/* More subscriptions than a device takes (16) */
#define KTEST_ERR_SUBS		24

static atomic_t ktest_err_news = ATOMIC_INIT(0);
static atomic_t ktest_err_crits = ATOMIC_INIT(0);
static atomic_t ktest_err_bad = ATOMIC_INIT(0);	/* called atomic */

static void ktest_err_new(gni_err_handle_t err)
{
	if (!in_task() || irqs_disabled() || preempt_count())
		atomic_inc(&ktest_err_bad);
	atomic_inc(&ktest_err_news);
}

static void ktest_err_crit(gni_err_handle_t err)
{
	if (!in_task() || irqs_disabled() || preempt_count())
		atomic_inc(&ktest_err_bad);
	atomic_inc(&ktest_err_crits);
}

static void ktest_err_refusals(gni_cdm_handle_t cdm, gni_nic_handle_t nic,
			       gni_err_handle_t ring)
{
	gni_error_event_t ev;
	gni_error_mask_t m;
	gni_err_handle_t h;
	u32 n;

	ktest_rc(gni_subscribe_errors(NULL, KTEST_ERR_MASK, 0, NULL,
				      ktest_err_crit, &h),
		 GNI_RC_INVALID_PARAM, "gni_subscribe_errors, no NIC");
	ktest_rc(gni_subscribe_errors((gni_nic_handle_t)cdm, KTEST_ERR_MASK,
				      0, NULL, ktest_err_crit, &h),
		 GNI_RC_INVALID_PARAM, "gni_subscribe_errors of a CDM");
	ktest_rc(gni_subscribe_errors(nic, KTEST_ERR_MASK, 0, NULL,
				      ktest_err_crit, NULL),
		 GNI_RC_INVALID_PARAM, "gni_subscribe_errors, no handle");
	ktest_rc(gni_subscribe_errors(nic, KTEST_ERR_MASK, 4097, NULL,
				      ktest_err_crit, &h),
		 GNI_RC_INVALID_PARAM, "gni_subscribe_errors, EEQ_size 4097");
	ktest_rc(gni_release_errors(NULL), GNI_RC_INVALID_PARAM,
		 "gni_release_errors, no handle");
	ktest_rc(gni_release_errors((gni_err_handle_t)nic),
		 GNI_RC_INVALID_PARAM, "gni_release_errors of a NIC");
	ktest_rc(gni_get_error_mask(NULL, &m), GNI_RC_INVALID_PARAM,
		 "gni_get_error_mask, no handle");
	ktest_rc(gni_get_error_mask(ring, NULL), GNI_RC_INVALID_PARAM,
		 "gni_get_error_mask, no mask");
	ktest_rc(gni_set_error_mask((gni_err_handle_t)nic, 0, &m),
		 GNI_RC_INVALID_PARAM, "gni_set_error_mask of a NIC");
	ktest_rc(gni_set_error_mask(ring, 0, NULL), GNI_RC_INVALID_PARAM,
		 "gni_set_error_mask, no mask_out");
	ktest_rc(gni_get_error_event(NULL, &ev), GNI_RC_INVALID_PARAM,
		 "gni_get_error_event, no handle");
	ktest_rc(gni_get_error_event(ring, NULL), GNI_RC_INVALID_PARAM,
		 "gni_get_error_event, no event");
	ktest_rc(gni_wait_error_events(ring, NULL, 1, 0, &n),
		 GNI_RC_INVALID_PARAM, "gni_wait_error_events, no events");
	ktest_rc(gni_wait_error_events(ring, &ev, 0, 0, &n),
		 GNI_RC_INVALID_PARAM, "gni_wait_error_events, events_size 0");
	ktest_rc(gni_wait_error_events(ring, &ev, 1, 0, NULL),
		 GNI_RC_INVALID_PARAM, "gni_wait_error_events, no num_events");
	ktest_rc(gni_wait_error_events((gni_err_handle_t)cdm, &ev, 1, 0, &n),
		 GNI_RC_INVALID_PARAM, "gni_wait_error_events of a CDM");
	ktest_rc(gni_set_error_ptag(NULL, 0), GNI_RC_INVALID_PARAM,
		 "gni_set_error_ptag, no handle");
}

/* A subscription with a queue of 4: masks, ptag, nothing queued */
static void ktest_err_ring(gni_err_handle_t h)
{
	gni_error_event_t ev[2];
	gni_error_mask_t m = 0;
	u32 n = 99;

	ktest_rc(gni_get_error_mask(h, &m), GNI_RC_SUCCESS,
		 "gni_get_error_mask");
	ktest_ok(m == GNI_ERRMASK_TRANSIENT, "the mask 0x%x is 0x%x", m,
		 GNI_ERRMASK_TRANSIENT);
	ktest_rc(gni_set_error_mask(h, KTEST_ERR_MASK, &m), GNI_RC_SUCCESS,
		 "gni_set_error_mask");
	ktest_ok(m == GNI_ERRMASK_TRANSIENT, "mask_out 0x%x: the old mask",
		 m);
	gni_get_error_mask(h, &m);
	ktest_ok(m == KTEST_ERR_MASK, "the mask is now 0x%x", m);
	ktest_rc(gni_set_error_ptag(h, 0), GNI_RC_SUCCESS,
		 "gni_set_error_ptag 0 (every ptag)");
	ktest_rc(gni_set_error_ptag(h, KTEST_PTAG), GNI_RC_SUCCESS,
		 "gni_set_error_ptag back to the NIC's");
	ktest_rc(gni_get_error_event(h, ev), GNI_RC_NOT_DONE,
		 "gni_get_error_event, nothing queued");
	ktest_rc(gni_wait_error_events(h, ev, 2, 0, &n), GNI_RC_TIMEOUT,
		 "gni_wait_error_events, timeout 0, nothing queued");
	ktest_rc(gni_wait_error_events(h, ev, 2, 20, &n), GNI_RC_TIMEOUT,
		 "gni_wait_error_events, 20 ms, nothing queued");
}

/* KTEST_ERR_SUBS subscriptions: the device refuses those past its limit. */
static void ktest_err_limit(gni_nic_handle_t nic)
{
	gni_err_handle_t *h = kcalloc(KTEST_ERR_SUBS, sizeof(*h), GFP_KERNEL);
	gni_return_t rc = GNI_RC_SUCCESS;
	unsigned int n, i;

	if (!ktest_ok(h, "room for %u handles", KTEST_ERR_SUBS))
		return;
	for (n = 0; n < KTEST_ERR_SUBS; n++) {
		rc = gni_subscribe_errors(nic, 0, 1, NULL, NULL, &h[n]);
		if (rc != GNI_RC_SUCCESS)
			break;
	}
	ktest_ok(rc == GNI_RC_ERROR_RESOURCE && n > 0 && n <= 16,
		 "subscription %u of %u refused: %s", n + 1, KTEST_ERR_SUBS,
		 ktest_rc_name(rc));
	for (i = 0; i < n; i++)
		gni_release_errors(h[i]);
	kfree(h);
}

/*
 * gni_subscribe_errors() and the calls on its handle; no event comes
 * (kapi_test injects them through kgni's debugfs and the err commands).
 */
static void ktest_errors(gni_cdm_handle_t cdm, gni_nic_handle_t nic)
{
	gni_err_handle_t h0, h4, left;
	gni_error_event_t ev;
	gni_nic_handle_t nic2;
	gni_cdm_handle_t cdm2;
	gni_return_t rc;

	/* gnilnd's: no queue, callbacks only */
	rc = gni_subscribe_errors(nic, KTEST_ERR_MASK, 0, NULL, ktest_err_crit,
				  &h0);
	if (!ktest_rc(rc, GNI_RC_SUCCESS,
		      "gni_subscribe_errors as gnilnd: EEQ_size 0, a critical callback"))
		return;
	ktest_rc(gni_get_error_event(h0, &ev), GNI_RC_INVALID_PARAM,
		 "gni_get_error_event without a queue");
	rc = gni_subscribe_errors(nic, GNI_ERRMASK_TRANSIENT, 4, ktest_err_new,
				  ktest_err_crit, &h4);
	if (ktest_rc(rc, GNI_RC_SUCCESS,
		     "gni_subscribe_errors, a queue of 4, both callbacks")) {
		ktest_err_refusals(cdm, nic, h4);
		ktest_err_ring(h4);
		ktest_rc(gni_release_errors(h4), GNI_RC_SUCCESS,
			 "gni_release_errors of the queue");
	}
	ktest_rc(gni_release_errors(h0), GNI_RC_SUCCESS,
		 "gni_release_errors as gnilnd");
	ktest_err_limit(nic);

	cdm2 = ktest_attached(KTEST_PTAG, KTEST_ERR_COOKIE, KTEST_DEVICE,
			      &nic2, &rc);
	if (!ktest_rc(rc, GNI_RC_SUCCESS, "a CDM for a subscription left"))
		return;
	ktest_rc(gni_subscribe_errors(nic2, KTEST_ERR_MASK, 8, NULL, NULL,
				      &left),
		 GNI_RC_SUCCESS, "gni_subscribe_errors, to be left");
	ktest_rc(gni_cdm_destroy(cdm2), GNI_RC_SUCCESS,
		 "gni_cdm_destroy with a subscription left");
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
	ktest_cq_ep(cdm, nic, cdm2 ? nic2 : NULL);
	ktest_cq_entries();
	ktest_mem(nic, cdm2 ? nic2 : NULL);
	ktest_rdma(nic, addr);
	ktest_dgram(addr);
	ktest_mem_atomic(nic);
	ktest_fma(nic, addr);
	ktest_smsg(nic, addr);
	if (cdm2) {
		gni_cq_handle_t cq;
		gni_ep_handle_t ep;

		gni_mem_handle_t mh;
		void *buf = kmalloc(64, GFP_KERNEL);

		/* Left to gni_cdm_destroy(): freed, and logged once */
		if (gni_cq_create(nic2, 8, 0, ktest_cq_handler, 0, &cq) ==
		    GNI_RC_SUCCESS) {
			gni_ep_create(nic2, cq, &ep);
			if (buf)
				gni_mem_register(nic2, (u64)(unsigned long)buf,
						 64, cq, 0, &mh);
		}
		ktest_rc(gni_cdm_destroy(cdm2), GNI_RC_SUCCESS,
			 "gni_cdm_destroy of an attached CDM, a CQ, an endpoint and a registration left");
		kfree(buf);
	}

	rc = gni_cdm_create(KTEST_INST, KTEST_PTAG, KTEST_COOKIE, 0, &cdm3);
	if (ktest_rc(rc, GNI_RC_SUCCESS, "gni_cdm_create, another")) {
		ktest_errno(cdm3, nic);
		ktest_rc(gni_cdm_destroy(cdm3), GNI_RC_SUCCESS,
			 "gni_cdm_destroy of a CDM never attached");
	}
	ktest_quiesce(nic);
	ktest_slots();
	ktest_rca(addr);
	ktest_errors(cdm, nic);
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

static krca_ticket_t ktest_watch;	/* rca watch's registration */
static rca_ticket_t ktest_watch_subs[3];

static int ktest_rca_watch(void)
{
	unsigned int i;
	int rc;

	if (ktest_watch)
		return -EBUSY;
	rc = krca_register(&ktest_watch, RCA_SVCTYPE_GNILND, current->pid, 0);
	for (i = 0; !rc && i < ARRAY_SIZE(ktest_rca_codes); i++)
		rc = krca_subscribe(&ktest_watch, ktest_rca_codes[i],
				    RCA_RX_SVC_ANY, &ktest_watch_subs[i]);
	if (rc && ktest_watch)
		krca_unregister(&ktest_watch);
	ktest_result_len = 0;
	ktest_print("rc %d\n", rc);
	return 0;
}

static const char *ktest_rca_code_name(rs_event_code_t ev)
{
	switch (ev) {
	case ec_node_unavailable:
		return "unavailable";
	case ec_node_available:
		return "available";
	case ec_node_failed:
		return "failed";
	}
	return "unknown";
}

static int ktest_rca_read(void)
{
	rs_node_array_t list;
	rs_event_t ev;
	unsigned int i;
	int rc;

	if (!ktest_watch)
		return -ENOENT;
	ktest_result_len = 0;
	while (!krca_get_message(&ktest_watch, &ev)) {
		u64 w = ev.ev_gen.svid_node.rs_node_flat;

		ktest_print("event %llu %s nid %llu state 0x%llx\n",
			    ev.ev_seqnum, ktest_rca_code_name(ev.ev_id),
			    RSN_GET_FLD(w, NID),
			    RSN_GET_FLD(ev.ev_gen.svid_node.rsn_intval, STATE));
	}
	rc = krca_get_sysnodes(&list);
	for (i = 0; !rc && i < list.na_len; i++)
		ktest_print("node %llu %s\n",
			    RSN_GET_FLD(list.na_ids[i].rs_node_flat, NID),
			    RSN_GET_FLD(list.na_ids[i].rs_node_flat, STATE) ==
			    RS_CS_READY ? "ready" : "down");
	kfree(list.na_ids);
	return 0;
}

static int ktest_rca_stop(void)
{
	unsigned int i;
	int rc = 0;

	if (!ktest_watch)
		return -ENOENT;
	for (i = 0; i < ARRAY_SIZE(ktest_watch_subs); i++)
		rc = rc ?: krca_unsubscribe(&ktest_watch, ktest_watch_subs[i]);
	rc = rc ?: krca_unregister(&ktest_watch);
	ktest_watch = KRCA_NULL_TICKET;
	ktest_result_len = 0;
	ktest_print("rc %d\n", rc);
	return 0;
}

/* err watch MASK EEQ_SIZE: a CDM of its own, subscribed */
static gni_cdm_handle_t ktest_err_cdm;
static gni_err_handle_t ktest_err_watch;
static u32 ktest_err_size;
static unsigned int ktest_err_taken;	/* events read since watch */

static int ktest_err_start(char *args)
{
	char *mask_s = strsep(&args, " ");
	gni_nic_handle_t nic;
	gni_return_t rc;
	u8 mask;
	u32 size;

	if (!mask_s || !args || kstrtou8(mask_s, 0, &mask) ||
	    kstrtou32(args, 0, &size))
		return -EINVAL;
	if (ktest_err_cdm)
		return -EBUSY;
	atomic_set(&ktest_err_news, 0);
	atomic_set(&ktest_err_crits, 0);
	atomic_set(&ktest_err_bad, 0);
	ktest_err_taken = 0;
	ktest_err_cdm = ktest_attached(KTEST_PTAG, KTEST_ERR_COOKIE + 1,
				       KTEST_DEVICE, &nic, &rc);
	if (ktest_err_cdm) {
		rc = gni_subscribe_errors(nic, mask, size, ktest_err_new,
					  ktest_err_crit, &ktest_err_watch);
		if (rc != GNI_RC_SUCCESS) {
			gni_cdm_destroy(ktest_err_cdm);
			ktest_err_cdm = NULL;
		}
	}
	ktest_err_size = size;
	ktest_result_len = 0;
	ktest_print("rc %d\n", rc);
	return 0;
}

/*
 * err read: the queued events, then the callbacks' counts once the
 * new-event calls have caught up with the events taken (1 s at most).
 */
static int ktest_err_read(void)
{
	gni_error_event_t ev[8];
	unsigned int i, tries;
	u32 n = 0;

	if (!ktest_err_cdm)
		return -ENOENT;
	ktest_result_len = 0;
	while (ktest_err_size &&
	       gni_wait_error_events(ktest_err_watch, ev, ARRAY_SIZE(ev), 0,
				     &n) == GNI_RC_SUCCESS) {
		for (i = 0; i < n; i++) {
			ktest_print("event code 0x%x class 0x%x ptag %u serial %u",
				    ev[i].error_code, ev[i].error_category,
				    ev[i].ptag, ev[i].serial_number);
			ktest_print(" info 0x%llx 0x%llx 0x%llx\n",
				    ev[i].info_mmrs[0], ev[i].info_mmrs[1],
				    ev[i].info_mmrs[2]);
		}
		ktest_err_taken += n;
	}
	for (tries = 0; tries < 50 &&
	     atomic_read(&ktest_err_news) < ktest_err_taken; tries++)
		msleep(20);
	ktest_print("calls new %d crit %d bad %d\n",
		    atomic_read(&ktest_err_news),
		    atomic_read(&ktest_err_crits),
		    atomic_read(&ktest_err_bad));
	return 0;
}

/* err stop: release (what is queued is dropped); err leave: destroy only */
static int ktest_err_end(bool release)
{
	gni_return_t rc, destroyed;

	if (!ktest_err_cdm)
		return -ENOENT;
	rc = release ? gni_release_errors(ktest_err_watch) : GNI_RC_SUCCESS;
	destroyed = gni_cdm_destroy(ktest_err_cdm);
	rc = rc ?: destroyed;
	ktest_err_cdm = NULL;
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
	} else if (!strcmp(cmd, "rca") && args && !strcmp(args, "watch")) {
		ret = ktest_rca_watch();
	} else if (!strcmp(cmd, "rca") && args && !strcmp(args, "read")) {
		ret = ktest_rca_read();
	} else if (!strcmp(cmd, "rca") && args && !strcmp(args, "stop")) {
		ret = ktest_rca_stop();
	} else if (!strcmp(cmd, "err") && args && str_has_prefix(args, "watch ")) {
		ret = ktest_err_start(args + 6);
	} else if (!strcmp(cmd, "err") && args && !strcmp(args, "read")) {
		ret = ktest_err_read();
	} else if (!strcmp(cmd, "err") && args && !strcmp(args, "stop")) {
		ret = ktest_err_end(true);
	} else if (!strcmp(cmd, "err") && args && !strcmp(args, "leave")) {
		ret = ktest_err_end(false);
	} else if (!strcmp(cmd, "peer") && args) {
		ret = ktest_peer_cmd(args);
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
	ktest_result = kvzalloc(KTEST_RESULT_SIZE, GFP_KERNEL);
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
	ktest_peer_exit();
	if (ktest_held)
		gni_cdm_destroy(ktest_held);
	if (ktest_watch)
		krca_unregister(&ktest_watch);
	if (ktest_err_cdm)
		gni_cdm_destroy(ktest_err_cdm);
	kvfree(ktest_result);
}
module_exit(ktest_exit);

MODULE_DESCRIPTION("Test client of kgni's kernel API (vgemini)");
MODULE_AUTHOR("vgemini developers");
MODULE_LICENSE("GPL");
