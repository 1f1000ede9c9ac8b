/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kgni: the kernel API, the gni_* functions of gni_pub.h's __KERNEL__ part
 * that kernel clients (Lustre's gnilnd, ipogif) call
 * (Documentation/kernel-api.rst).
 *
 * A client's handles are the structures below, each starting with its
 * type tag (the Cray driver's values), so that every function can refuse
 * a NULL handle or a handle of another type with GNI_RC_INVALID_PARAM
 * instead of crashing (a destroyed handle's tag is cleared before it is
 * freed, which catches most uses after destruction, not all).  A kernel NIC owns a kernel
 * domain (&struct kgni_dom with no file), whose objects the data path's
 * cores make as they make an open file's.
 *
 * Every exported function returns through kgni_kapi_ret(), which checks
 * the code against the function's list below (the only codes a client
 * such as gnilnd accepts: any other would make it LBUG) and records a
 * failure for gni_get_errno().
 *
 * The files of the kernel API:
 *   kgni_kdom.c  CDMs and NICs (kernel job slots and domains), errno,
 *                quiesce status and callbacks
 *   kgni_kcq.c   CQs: interrupt-driven rings, their handlers, events,
 *                the CQ entry accessors and error strings
 *   kgni_kmem.c  memory registration of kernel pages, deregistration
 *                holds
 *   kgni_kep.c   endpoints and RDMA posts
 *   kgni_kdgram.c  datagrams, on the cores of kgni_dgram.c
 *   kgni_kfma.c  the CQs' FMA descriptors, mapped in the kernel;
 *                gni_post_fma()
 *   kgni_ksmsg.c short messages
 *   kgni_err.c   error subscriptions, their events and their callbacks
 *                (user space's and debugfs kgniN/inject_error:
 *                kgni_err_user.c)
 */
#ifndef KGNI_KAPI_H
#define KGNI_KAPI_H

#include <linux/bits.h>
#include <linux/errno.h>
#include <linux/irqflags.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "gni_pub.h"
#include "gnicore.h"
#include "kgni_dp.h"

/* Handle type tags: the first member of each handle */
#define KGNI_TAG_CDM		0xABCD0000u
#define KGNI_TAG_NIC		0xABCD0001u
#define KGNI_TAG_EP		0xABCD0002u
#define KGNI_TAG_CHNL		0xABCD0003u
#define KGNI_TAG_CQ		0xABCD0004u
#define KGNI_TAG_ERR		0xABCD0005u
#define KGNI_TAG_MSGQ		0xABCD0006u
#define KGNI_TAG_INVALID	0u	/* written into a handle freed */

/**
 * struct gni_cdm - a kernel communication domain (gni_cdm_create())
 * @tag: KGNI_TAG_CDM
 * @inst_id: instance id
 * @ptag: protection tag, 1 to 254
 * @cookie: cookie
 * @modes: GNI_CDM_MODE_* flags
 * @nic: its NIC once attached, else NULL
 *
 * @nic is protected by kgni_kdom.c's mutex.
 */
struct gni_cdm {
	u32 tag;
	u32 inst_id;
	u8 ptag;
	u32 cookie;
	u32 modes;
	struct gni_nic *nic;
};

/**
 * struct gni_nic - a kernel CDM attached to a device (gni_cdm_attach())
 * @tag: KGNI_TAG_NIC
 * @cdm: its CDM
 * @kdev: the device, referenced
 * @dom: its domain: kernel, attached to a kernel job slot, in
 *       &kgni_dp_state.doms
 * @pe: the device's PE
 * @node: in &kgni_kapi_state.nics
 * @qsce_func: its quiesce callback, or NULL
 * @fma_lock: serialises taking and freeing the CQs' FMA descriptors
 *            (&gni_cq.fma) with the endpoint counts that keep them; taken
 *            before @obj_lock
 * @obj_lock: protects @cqs, @eps and the CQs' endpoint counts
 * @cqs: its &struct gni_cq
 * @eps: its &struct gni_ep
 * @core: gnicore's NIC: the request table of its posts (tids for
 *        KGNI_KAPI_NREQS posts waiting for their events)
 *
 * @node and @qsce_func are protected by &kgni_kapi_state.lock.
 */
struct gni_nic {
	u32 tag;
	struct gni_cdm *cdm;
	struct kgni_dev *kdev;
	struct kgni_dom dom;
	u32 pe;
	struct list_head node;
	void (*qsce_func)(gni_nic_handle_t nic, u64 msecs);
	struct mutex fma_lock;		/* see above */
	spinlock_t obj_lock;		/* see above */
	struct list_head cqs;
	struct list_head eps;
	struct gnicore_nic core;
};

/* Posts of a kernel NIC waiting for their events */
#define KGNI_KAPI_NREQS		4096

/**
 * struct gni_cq - a kernel CQ (gni_cq_create())
 * @tag: KGNI_TAG_CQ
 * @nic: its NIC
 * @cq: the data path's CQ, in @nic's domain
 * @handler: called in hard-IRQ context when the ring holds an event, or
 *           NULL (no interrupts)
 * @usr_event_data: @handler's second argument
 * @vector: the MSI-X vector of its interrupts (kgni_cq_kernel_vector())
 * @id: its CQ number
 * @core: gnicore's CQ: the ring (@cq's), its read index and the lock
 *        of its takers (gnicore_cq_take())
 * @eps: endpoints that name it (protected by &gni_nic.obj_lock)
 * @fma: the FMA descriptor of those endpoints' FMA posts and short
 *       messages, taken with the first of them and kept until the CQ is
 *       destroyed (kgni_kfma.c); NULL before (&gni_nic.fma_lock)
 * @node: in &gni_nic.cqs
 * @irq_node: in &kgni_kcq_state.list (RCU) while it has a handler
 */
struct gni_cq {
	u32 tag;
	struct gni_nic *nic;
	struct kgni_cq *cq;
	gni_cq_event_hndlr_f *handler;
	u64 usr_event_data;
	unsigned int vector;
	u32 id;
	struct gnicore_cq core;
	unsigned int eps;
	struct kgni_kfma *fma;
	struct list_head node;
	struct list_head irq_node;
};

/**
 * struct gni_ep - a kernel endpoint (gni_ep_create())
 * @tag: KGNI_TAG_EP
 * @nic: its NIC
 * @src_cq: the CQ of its local events, or NULL
 * @core: gnicore's endpoint: its peer (remote_pe, remote_id, bound), its
 *        event data and its posts outstanding (under @nic's core.lock),
 *        its CQ's FMA descriptor (none without @src_cq), its SMSG state
 * @smsg: what frees that SMSG state (kgni_ksmsg.c), or NULL
 * @node: in &gni_nic.eps
 * @rcu: freed after a grace period: gni_cq_get_event() may be using it
 */
struct gni_ep {
	u32 tag;
	struct gni_nic *nic;
	struct gni_cq *src_cq;
	struct gnicore_ep core;
	struct kgni_ksmsg *smsg;
	struct list_head node;
	struct rcu_head rcu;
};

/* Subscriptions a device takes; events a subscription's queue holds */
#define KGNI_ERR_MAX_SUBS	16
#define KGNI_ERR_MAX_EEQ	4096

/**
 * struct gni_err - an error subscription (gni_subscribe_errors())
 * @tag: KGNI_TAG_ERR
 * @nic: its NIC; NULL for a file's (KGNI_IOC_ERR_SUBSCRIBE)
 * @kdev: its device
 * @kfile: the file whose subscription it is, or NULL for a kernel client's
 * @id: a file's: its id, unique on the device (&kgni_err_state.last_id)
 * @own: a file's whose filter is its CDM's ptag: none of a ptag once the
 *       CDM's job is released
 * @node: in &kgni_err_state.list (&kgni_kapi_state.lock)
 * @lock: protects the members below; taken inside &kgni_kapi_state.lock
 * @mask: the GNI_ERRMASK_* classes it takes
 * @ptag: its ptag filter: events of another ptag are not its (0: any)
 * @ring: its queue, @size events; NULL when @size is 0
 * @size: EEQ_size
 * @head: index of the oldest queued event
 * @count: events queued
 * @serial: events delivered so far, the serial_number of the last
 * @overruns: events dropped, the oldest, from a full queue
 * @waiters: threads in gni_wait_error_events()
 * @dead: released, or its CDM destroyed: no more events nor callbacks
 * @wq: its waiters sleep there
 * @new_event: called for each event delivered, or NULL
 * @crit: called for each CRITICAL event of the device, or NULL
 * @new_calls: @new_event calls @work has to make
 * @crit_calls: @crit calls @work has to make
 * @work: makes the callbacks, on the system workqueue
 * @ref: held by @node, by @work while queued and by each waiter
 */
struct gni_err {
	u32 tag;
	struct gni_nic *nic;
	struct kgni_dev *kdev;
	struct kgni_file *kfile;
	u32 id;
	bool own;
	struct list_head node;
	spinlock_t lock;		/* see above */
	gni_error_mask_t mask;
	u8 ptag;
	gni_error_event_t *ring;
	u32 size;
	u32 head;
	u32 count;
	u32 serial;
	u64 overruns;
	unsigned int waiters;
	bool dead;
	wait_queue_head_t wq;
	void (*new_event)(gni_err_handle_t err);
	void (*crit)(gni_err_handle_t err);
	unsigned int new_calls;
	unsigned int crit_calls;
	struct work_struct work;
	struct kref ref;
};

/*
 * The return-code contract: the codes each function may return, kgni
 * section 3 of the project's kGNI specification, which are all gnilnd
 * accepts (functions outside section 3: vgemini's choice, marked).
 * kgni_kapi_ret(fn, ...) checks against KGNI_RCS_fn.
 */
#define KGNI_RC(code)	BIT(GNI_RC_##code)

/* Domain and NIC */
#define KGNI_RCS_gni_cdm_create \
	(KGNI_RC(SUCCESS) | KGNI_RC(ERROR_RESOURCE) | KGNI_RC(INVALID_PARAM))
#define KGNI_RCS_gni_cdm_attach \
	(KGNI_RC(SUCCESS) | KGNI_RC(NO_MATCH) | KGNI_RC(INVALID_PARAM) | \
	 KGNI_RC(ERROR_RESOURCE) | KGNI_RC(INVALID_STATE))
#define KGNI_RCS_gni_cdm_destroy \
	(KGNI_RC(SUCCESS) | KGNI_RC(INVALID_PARAM))
#define KGNI_RCS_gni_subscribe_errors \
	(KGNI_RC(SUCCESS) | KGNI_RC(INVALID_PARAM) | KGNI_RC(ERROR_RESOURCE))
#define KGNI_RCS_gni_release_errors \
	(KGNI_RC(SUCCESS) | KGNI_RC(INVALID_PARAM) | KGNI_RC(NOT_DONE))
#define KGNI_RCS_gni_set_quiesce_callback \
	(KGNI_RC(SUCCESS) | KGNI_RC(INVALID_STATE) | KGNI_RC(INVALID_PARAM))
/* vgemini: kgni section 4 gives no codes; as GNI_SubscribeErrors' kin */
#define KGNI_RCS_gni_get_error_mask \
	(KGNI_RC(SUCCESS) | KGNI_RC(INVALID_PARAM))
#define KGNI_RCS_gni_set_error_mask \
	(KGNI_RC(SUCCESS) | KGNI_RC(INVALID_PARAM))
#define KGNI_RCS_gni_get_error_event \
	(KGNI_RC(SUCCESS) | KGNI_RC(NOT_DONE) | KGNI_RC(INVALID_PARAM))
#define KGNI_RCS_gni_wait_error_events \
	(KGNI_RC(SUCCESS) | KGNI_RC(TIMEOUT) | KGNI_RC(INVALID_PARAM))
#define KGNI_RCS_gni_set_error_ptag \
	(KGNI_RC(SUCCESS) | KGNI_RC(INVALID_PARAM))
/* vgemini: as GNI_CdmGetNicAddress */
#define KGNI_RCS_gni_cdm_get_nic_address \
	(KGNI_RC(SUCCESS) | KGNI_RC(INVALID_PARAM) | KGNI_RC(NO_MATCH))
/* vgemini: kgni section 4 gives INVALID_STATE for "nothing new" */
#define KGNI_RCS_gni_get_errno \
	(KGNI_RC(SUCCESS) | KGNI_RC(INVALID_STATE) | KGNI_RC(INVALID_PARAM))
/*
 * gni_get_quiesce_status() returns 0 or 1, never a code; vgemini: a bad
 * handle reads 0 and is recorded as INVALID_PARAM.
 */
#define KGNI_RCS_gni_get_quiesce_status	(KGNI_RC(INVALID_PARAM))

/* Completion queues */
#define KGNI_RCS_gni_cq_create \
	(KGNI_RC(SUCCESS) | KGNI_RC(INVALID_PARAM) | KGNI_RC(ERROR_RESOURCE))
#define KGNI_RCS_gni_cq_destroy \
	(KGNI_RC(SUCCESS) | KGNI_RC(INVALID_PARAM) | KGNI_RC(ERROR_RESOURCE))
/* ERROR_RESOURCE only with GNI_CQ_OVERRUN() of the event */
#define KGNI_RCS_gni_cq_get_event \
	(KGNI_RC(SUCCESS) | KGNI_RC(NOT_DONE) | KGNI_RC(TRANSACTION_ERROR) | \
	 KGNI_RC(ERROR_RESOURCE) | KGNI_RC(INVALID_PARAM))
#define KGNI_RCS_gni_get_completed \
	(KGNI_RC(SUCCESS) | KGNI_RC(TRANSACTION_ERROR) | \
	 KGNI_RC(DESCRIPTOR_ERROR) | KGNI_RC(INVALID_PARAM))
#define KGNI_RCS_gni_cq_error_str \
	(KGNI_RC(SUCCESS) | KGNI_RC(SIZE_ERROR) | KGNI_RC(INVALID_PARAM))
#define KGNI_RCS_gni_cq_error_recoverable \
	(KGNI_RC(SUCCESS) | KGNI_RC(INVALID_STATE) | KGNI_RC(INVALID_PARAM))

/* Short messages (gnilnd ignores gni_smsg_buff_size_needed's code) */
#define KGNI_RCS_gni_smsg_buff_size_needed \
	(KGNI_RC(SUCCESS) | KGNI_RC(INVALID_PARAM))
#define KGNI_RCS_gni_smsg_init \
	(KGNI_RC(SUCCESS) | KGNI_RC(NOT_DONE) | KGNI_RC(INVALID_PARAM) | \
	 KGNI_RC(INVALID_STATE) | KGNI_RC(ERROR_RESOURCE))
#define KGNI_RCS_gni_smsg_send \
	(KGNI_RC(SUCCESS) | KGNI_RC(NOT_DONE) | KGNI_RC(INVALID_PARAM) | \
	 KGNI_RC(ERROR_RESOURCE))
#define KGNI_RCS_gni_smsg_getnext \
	(KGNI_RC(SUCCESS) | KGNI_RC(NOT_DONE) | KGNI_RC(INVALID_STATE) | \
	 KGNI_RC(INVALID_PARAM))
#define KGNI_RCS_gni_smsg_release \
	(KGNI_RC(SUCCESS) | KGNI_RC(NOT_DONE) | KGNI_RC(INVALID_PARAM))
/* vgemini: kgni section 4 gives no codes; as libugni's */
#define KGNI_RCS_gni_smsg_set_delivery_mode \
	(KGNI_RC(SUCCESS) | KGNI_RC(INVALID_PARAM))
#define KGNI_RCS_gni_smsg_set_max_retrans \
	(KGNI_RC(SUCCESS) | KGNI_RC(INVALID_PARAM))

/* Endpoints and datagrams */
#define KGNI_RCS_gni_ep_create \
	(KGNI_RC(SUCCESS) | KGNI_RC(INVALID_PARAM) | KGNI_RC(ERROR_NOMEM))
#define KGNI_RCS_gni_ep_bind \
	(KGNI_RC(SUCCESS) | KGNI_RC(NOT_DONE) | KGNI_RC(INVALID_PARAM))
#define KGNI_RCS_gni_ep_set_eventdata \
	(KGNI_RC(SUCCESS) | KGNI_RC(INVALID_PARAM))
#define KGNI_RCS_gni_ep_unbind \
	(KGNI_RC(SUCCESS) | KGNI_RC(NOT_DONE) | KGNI_RC(INVALID_PARAM))
#define KGNI_RCS_gni_ep_destroy \
	(KGNI_RC(SUCCESS) | KGNI_RC(INVALID_PARAM))
#define KGNI_RCS_gni_ep_postdata_w_id \
	(KGNI_RC(SUCCESS) | KGNI_RC(ERROR_NOMEM) | KGNI_RC(ERROR_RESOURCE) | \
	 KGNI_RC(INVALID_PARAM) | KGNI_RC(SIZE_ERROR))
#define KGNI_RCS_gni_ep_postdata_test_by_id \
	(KGNI_RC(SUCCESS) | KGNI_RC(NO_MATCH) | KGNI_RC(SIZE_ERROR) | \
	 KGNI_RC(INVALID_PARAM) | KGNI_RC(ERROR_NOMEM))
#define KGNI_RCS_gni_ep_postdata_cancel_by_id \
	(KGNI_RC(SUCCESS) | KGNI_RC(NO_MATCH) | KGNI_RC(INVALID_PARAM))
#define KGNI_RCS_gni_postdata_probe_by_id \
	(KGNI_RC(SUCCESS) | KGNI_RC(NO_MATCH) | KGNI_RC(INVALID_PARAM))
#define KGNI_RCS_gni_postdata_probe_wait_by_id \
	(KGNI_RC(SUCCESS) | KGNI_RC(TIMEOUT) | KGNI_RC(INVALID_PARAM))
/* vgemini: the section 4 calls, as their ById counterparts; wait: TIMEOUT */
#define KGNI_RCS_gni_ep_postdata	KGNI_RCS_gni_ep_postdata_w_id
#define KGNI_RCS_gni_ep_postdata_test	KGNI_RCS_gni_ep_postdata_test_by_id
#define KGNI_RCS_gni_ep_postdata_wait \
	(KGNI_RCS_gni_ep_postdata_test_by_id | KGNI_RC(TIMEOUT))
#define KGNI_RCS_gni_ep_postdata_cancel	KGNI_RCS_gni_ep_postdata_cancel_by_id
#define KGNI_RCS_gni_postdata_probe	KGNI_RCS_gni_postdata_probe_by_id

/* RDMA and memory */
#define KGNI_RCS_gni_post_rdma \
	(KGNI_RC(SUCCESS) | KGNI_RC(ALIGNMENT_ERROR) | \
	 KGNI_RC(INVALID_PARAM) | KGNI_RC(ERROR_RESOURCE))
/* vgemini: kgni section 4 gives no codes; GNI_PostFma's */
#define KGNI_RCS_gni_post_fma \
	(KGNI_RC(SUCCESS) | KGNI_RC(INVALID_PARAM) | \
	 KGNI_RC(ALIGNMENT_ERROR) | KGNI_RC(PERMISSION_ERROR) | \
	 KGNI_RC(INVALID_STATE) | KGNI_RC(ILLEGAL_OP) | \
	 KGNI_RC(ERROR_RESOURCE))
#define KGNI_RCS_gni_mem_register \
	(KGNI_RC(SUCCESS) | KGNI_RC(ERROR_RESOURCE) | KGNI_RC(INVALID_PARAM))
#define KGNI_RCS_gni_mem_register_segments \
	(KGNI_RC(SUCCESS) | KGNI_RC(ERROR_RESOURCE) | KGNI_RC(INVALID_PARAM))
#define KGNI_RCS_gni_mem_deregister \
	(KGNI_RC(SUCCESS) | KGNI_RC(INVALID_PARAM))
#define KGNI_RCS_gni_mem_mdd_release \
	(KGNI_RC(SUCCESS) | KGNI_RC(NO_MATCH))

gni_return_t kgni_kapi_end(const char *func, u32 codes, gni_return_t rc,
			   int err, u64 data, int line);
bool kgni_may_sleep(void);

/*
 * May the caller sleep?  Task context, interrupts on, no spinlock held
 * that the preemption count shows; kgni_may_sleep() without the warning,
 * for a function that works either way.
 */
static inline bool kgni_can_sleep(void)
{
	return in_task() && !irqs_disabled() &&
	       !(IS_ENABLED(CONFIG_PREEMPT_COUNT) && preempt_count());
}

/* Is @h a handle with type tag @tag? */
static inline bool kgni_is(const void *h, u32 tag)
{
	return h && READ_ONCE(*(const u32 *)h) == tag;
}

/* What a NIC's destruction undoes first (kgni_kcq.c, kgni_kep.c) */
unsigned int kgni_kep_nic_free(struct gni_nic *nic);
unsigned int kgni_kcq_nic_free(struct gni_nic *nic);

/* An endpoint's datagram, dropped at its destruction (kgni_kdgram.c) */
void kgni_kdg_ep_release(struct gni_ep *ep);
/* kgni_kfma.c: a CQ's FMA descriptor, &gni_nic.fma_lock held */
int kgni_kfma_get(struct gni_cq *cq, struct gnicore_fma **fma);
void kgni_kfma_free(struct gni_cq *cq);

/* kgni_ksmsg.c: an endpoint's SMSG state goes (unbind, destroy) */
void kgni_ksmsg_release(struct gni_ep *ep);

/* kgni_err.c: the subscriptions a NIC's client left */
unsigned int kgni_err_nic_free(struct gni_nic *nic);

/* The errno (positive) gni_get_errno() records for gnicore's code @rc */
static inline int kgni_core_errno(gni_return_t rc)
{
	int err = EINVAL;

	switch (rc) {
	case GNI_RC_SUCCESS:
	case GNI_RC_NOT_DONE:
		err = 0;
		break;
	case GNI_RC_ERROR_RESOURCE:
		err = ENOSPC;
		break;
	case GNI_RC_ERROR_NOMEM:
		err = ENOMEM;
		break;
	case GNI_RC_PERMISSION_ERROR:
		err = EACCES;
		break;
	case GNI_RC_INVALID_STATE:
		err = ENOTCONN;
		break;
	case GNI_RC_ILLEGAL_OP:
		err = EOPNOTSUPP;
		break;
	default:
		break;
	}
	return err;
}

/**
 * kgni_kapi_ret() - what an exported function returns, through the
 *                   contract check and the errno record
 * @fn: the function, e.g. gni_cdm_create (its KGNI_RCS_ list)
 * @rc: the code it returns
 * @err: the errno of a failure (its cause as the kernel would say it), or 0
 * @data: a value that tells more (data1 of gni_errno_t), or 0
 *
 * A code outside @fn's list is a kgni bug: WARN_ONCE, returned anyway.
 * Any code but SUCCESS and NOT_DONE is a failure, recorded with
 * __LINE__ in this CPU's gni_errno_t if that holds nothing unread.
 */
#define kgni_kapi_ret(fn, rc, err, data) \
	kgni_kapi_end(#fn, KGNI_RCS_##fn, rc, err, data, __LINE__)

#endif /* KGNI_KAPI_H */
