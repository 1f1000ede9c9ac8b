// SPDX-License-Identifier: GPL-2.0-only
/*
 * kgni: Cray's RCA interface for kernel clients (krca_lib.h;
 * Documentation/kernel-api.rst, "RCA").
 *
 * On a Cray, RCA carries the hardware supervisor's node events to the
 * nodes.  Here the fabric is the source: after each routing table the link
 * work reads which nodes the table reaches (kgni_fabric.c) and hands the
 * difference to kgni_rca_fabric(): a node that lost its route is
 * ec_node_unavailable, one that got it back ec_node_available.  The
 * supervisor drops a node from every table once all its links are down
 * or its QEMU is gone, so that is "node down"; an isolated node sees every
 * other node go.  The first table is the baseline (no events), this node
 * is always up, and ec_node_failed is never sent.  Only kgni0 counts:
 * gnilnd's RCA is the node's, not a device's.
 *
 * Registrations are slots of a fixed table; a ticket names a slot and a
 * generation, so a stale ticket is refused, never a use after free.  Each
 * has a ring of events it subscribed to: when full the oldest goes
 * (counted), since the newest state of a node is the one that matters.
 */
#include <linux/bitmap.h>
#include <linux/export.h>
#include <linux/moduleparam.h>
#include <linux/nmi.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/sysfs.h>
#include <linux/wait.h>

#include <krca_lib.h>

#include "kgni.h"

#define KRCA_MAX_REGS		32
#define KRCA_RING		256	/* events per registration */
#define KRCA_CODES		3	/* unavailable, available, failed */
#define KRCA_SLOT_BITS		8

struct krca_reg {
	krca_ticket_t ticket;		/* 0: the slot is free */
	u32 svc_type;
	u32 instance;
	unsigned long subs;		/* bit i: code ec_node_unavailable + i */
	rs_event_t *ring;		/* KRCA_RING */
	unsigned int head, tail;	/* tail - head events waiting */
	u64 seq;
	u64 dropped;
	bool woken;			/* krca_wakeup_wait_event() */
};

static DEFINE_SPINLOCK(krca_lock);	/* everything below */
static DECLARE_WAIT_QUEUE_HEAD(krca_wq);
static struct krca_reg krca_regs[KRCA_MAX_REGS];
static u64 krca_gen;
/* The nodes the last table reached; valid once krca_known */
static DECLARE_BITMAP(krca_reach, GEMINI_MAX_NODES);
static bool krca_known;
static atomic_long_t krca_heartbeats = ATOMIC_LONG_INIT(0);

static int krca_heartbeats_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%ld\n", atomic_long_read(&krca_heartbeats));
}

static const struct kernel_param_ops krca_heartbeats_ops = {
	.get = krca_heartbeats_get,
};

/* Calls of send_hb_2_l0(), read only */
module_param_cb(rca_heartbeats, &krca_heartbeats_ops, NULL, 0444);
MODULE_PARM_DESC(rca_heartbeats, "calls of send_hb_2_l0() (read only)");

/* The registration @t names, or NULL.  krca_lock held. */
static struct krca_reg *krca_find(const krca_ticket_t *t)
{
	unsigned int slot;

	if (!t || !*t)
		return NULL;
	slot = (*t & (BIT(KRCA_SLOT_BITS) - 1)) - 1;
	if (slot >= KRCA_MAX_REGS || krca_regs[slot].ticket != *t)
		return NULL;
	return &krca_regs[slot];
}

static int krca_code_index(rs_event_code_t ev)
{
	switch (ev) {
	case ec_node_unavailable:
		return 0;
	case ec_node_available:
		return 1;
	case ec_node_failed:
		return 2;
	}
	return -1;
}

/* The word describing node @nid in state @state */
static u64 krca_node_word(u32 nid, rs_state_t state)
{
	u64 w = 0;

	RSN_SET_FLD(w, NID, nid);
	RSN_SET_FLD(w, TYPE, rt_node);
	/* Every node a service node: no filter of gnilnd drops it */
	RSN_SET_FLD(w, IS_SVC, 1);
	RSN_SET_FLD(w, STATE, state);
	return w;
}

/**
 * krca_register() - register an RCA service
 * @ticket: filled with the registration's ticket
 * @svc_type: the service (RCA_SVCTYPE_GNILND, RCA_MAKE_SERVICE_INDEX())
 * @instance: the caller's instance (gnilnd passes its pid)
 * @flags: 0
 *
 * Context: process context, may sleep.
 * Return: 0, -EINVAL (no @ticket), -ENOMEM, -ENOSPC (KRCA_MAX_REGS
 * registrations already).
 */
int krca_register(krca_ticket_t *ticket, __u32 svc_type, __u32 instance,
		  int flags)
{
	rs_event_t *ring;
	unsigned int i;
	int ret = -ENOSPC;

	if (!ticket)
		return -EINVAL;
	ring = kcalloc(KRCA_RING, sizeof(*ring), GFP_KERNEL);
	if (!ring)
		return -ENOMEM;
	spin_lock(&krca_lock);
	for (i = 0; i < KRCA_MAX_REGS; i++) {
		struct krca_reg *r = &krca_regs[i];

		if (r->ticket)
			continue;
		memset(r, 0, sizeof(*r));
		r->ticket = (++krca_gen << KRCA_SLOT_BITS) | (i + 1);
		r->svc_type = svc_type;
		r->instance = instance;
		r->ring = ring;
		*ticket = r->ticket;
		ring = NULL;
		ret = 0;
		break;
	}
	spin_unlock(&krca_lock);
	kfree(ring);
	return ret;
}
EXPORT_SYMBOL(krca_register);

/**
 * krca_unregister() - end a registration and its subscriptions
 * @ticket: its ticket; set to KRCA_NULL_TICKET
 *
 * A krca_wait_event() on it returns -EINVAL.
 *
 * Context: any.
 * Return: 0, or -EINVAL for a ticket that names no registration.
 */
int krca_unregister(krca_ticket_t *ticket)
{
	struct krca_reg *r;
	rs_event_t *ring = NULL;

	spin_lock(&krca_lock);
	r = krca_find(ticket);
	if (r) {
		ring = r->ring;
		r->ring = NULL;
		r->ticket = 0;
		*ticket = KRCA_NULL_TICKET;
	}
	spin_unlock(&krca_lock);
	if (!r)
		return -EINVAL;
	wake_up_all(&krca_wq);
	kfree(ring);
	return 0;
}
EXPORT_SYMBOL(krca_unregister);

/**
 * krca_subscribe() - receive events of one code
 * @ticket: the registration
 * @ev: ec_node_unavailable, ec_node_available or ec_node_failed
 * @svc_filter: the services whose events to receive (RCA_RX_SVC_ANY; the
 *              fabric is the only source here, so any value is taken)
 * @sub_ticket: filled with the subscription's ticket
 *
 * Context: any.
 * Return: 0, or -EINVAL (no such registration, another code, no
 * @sub_ticket).
 */
int krca_subscribe(krca_ticket_t *ticket, rs_event_code_t ev,
		   __u32 svc_filter, rca_ticket_t *sub_ticket)
{
	int idx = krca_code_index(ev);
	struct krca_reg *r;

	if (idx < 0 || !sub_ticket)
		return -EINVAL;
	spin_lock(&krca_lock);
	r = krca_find(ticket);
	if (r) {
		__set_bit(idx, &r->subs);
		*sub_ticket = (r->ticket << 2) | idx;
	}
	spin_unlock(&krca_lock);
	return r ? 0 : -EINVAL;
}
EXPORT_SYMBOL(krca_subscribe);

/**
 * krca_unsubscribe() - stop receiving events of a subscription's code
 * @ticket: the registration
 * @sub_ticket: what krca_subscribe() gave
 *
 * Events already queued stay.
 *
 * Context: any.
 * Return: 0, or -EINVAL (no such registration or subscription).
 */
int krca_unsubscribe(krca_ticket_t *ticket, rca_ticket_t sub_ticket)
{
	unsigned int idx = sub_ticket & 3;
	struct krca_reg *r;
	int ret = -EINVAL;

	spin_lock(&krca_lock);
	r = krca_find(ticket);
	if (r && sub_ticket >> 2 == r->ticket && idx < KRCA_CODES &&
	    __test_and_clear_bit(idx, &r->subs))
		ret = 0;
	spin_unlock(&krca_lock);
	return ret;
}
EXPORT_SYMBOL(krca_unsubscribe);

/* Whether krca_wait_event() on @ticket may return, and what (in @ret) */
static bool krca_wait_done(const krca_ticket_t *ticket, int *ret)
{
	struct krca_reg *r;
	bool done = true;

	spin_lock(&krca_lock);
	r = krca_find(ticket);
	if (!r)
		*ret = -EINVAL;
	else if (r->tail != r->head)
		*ret = 1;
	else if (r->woken)
		*ret = 0;
	else
		done = false;
	if (r && done && *ret == 0)
		r->woken = false;
	spin_unlock(&krca_lock);
	return done;
}

/**
 * krca_wait_event() - wait for an event or a wake-up
 * @ticket: the registration
 *
 * Context: process context, sleeps (interruptibly).
 * Return: 1 when an event waits (krca_get_message() takes it), 0 after
 * krca_wakeup_wait_event(), -ERESTARTSYS on a signal, -EINVAL for a ticket
 * that names no registration (or one ended meanwhile).
 */
int krca_wait_event(krca_ticket_t *ticket)
{
	int ret = 0;

	might_sleep();
	if (wait_event_interruptible(krca_wq, krca_wait_done(ticket, &ret)))
		return -ERESTARTSYS;
	return ret;
}
EXPORT_SYMBOL(krca_wait_event);

/**
 * krca_wakeup_wait_event() - make a krca_wait_event() return 0
 * @ticket: the registration
 *
 * The wait under way returns, or else the next one does at once.
 *
 * Context: any.
 * Return: 0, or -EINVAL for a ticket that names no registration.
 */
int krca_wakeup_wait_event(krca_ticket_t *ticket)
{
	struct krca_reg *r;

	spin_lock(&krca_lock);
	r = krca_find(ticket);
	if (r)
		r->woken = true;
	spin_unlock(&krca_lock);
	if (!r)
		return -EINVAL;
	wake_up_all(&krca_wq);
	return 0;
}
EXPORT_SYMBOL(krca_wakeup_wait_event);

/**
 * krca_get_message() - take the oldest event
 * @ticket: the registration
 * @event: filled with it
 *
 * Context: any.
 * Return: 0, -EAGAIN when none waits, -EINVAL (no such registration, no
 * @event).
 */
int krca_get_message(krca_ticket_t *ticket, rs_event_t *event)
{
	struct krca_reg *r;
	int ret = -EINVAL;

	if (!event)
		return -EINVAL;
	spin_lock(&krca_lock);
	r = krca_find(ticket);
	if (r && r->head == r->tail) {
		ret = -EAGAIN;
	} else if (r) {
		*event = r->ring[r->head++ % KRCA_RING];
		ret = 0;
	}
	spin_unlock(&krca_lock);
	return ret;
}
EXPORT_SYMBOL(krca_get_message);

/* Queue event @ev about node @nid for its subscribers.  krca_lock held. */
static void krca_post(rs_event_code_t ev, u32 nid, rs_state_t state)
{
	int idx = krca_code_index(ev);
	unsigned int i;

	for (i = 0; i < KRCA_MAX_REGS; i++) {
		struct krca_reg *r = &krca_regs[i];
		rs_event_t *e;

		if (!r->ticket || !test_bit(idx, &r->subs))
			continue;
		if (r->tail - r->head == KRCA_RING) {
			r->head++;
			r->dropped++;
		}
		e = &r->ring[r->tail++ % KRCA_RING];
		memset(e, 0, sizeof(*e));
		e->ev_id = ev;
		e->ev_seqnum = ++r->seq;
		e->ev_gen.svid_node.rs_node_flat = krca_node_word(nid, state);
	}
}

/**
 * kgni_rca_fabric() - a routing table was loaded: node events
 * @kdev: the device whose link work read it
 * @now: the nodes it reaches (a bitmap of @n bits)
 * @n: the nodes of the torus
 *
 * Context: link work (process context, one at a time per device).
 */
void kgni_rca_fabric(struct kgni_dev *kdev, const unsigned long *now,
		     unsigned int n)
{
	unsigned int nid;
	bool was, is, any = false;

	if (kdev->minor != 0)
		return;
	spin_lock(&krca_lock);
	for (nid = 0; krca_known && nid < n; nid++) {
		was = test_bit(nid, krca_reach);
		is = test_bit(nid, now);
		if (was == is)
			continue;
		krca_post(is ? ec_node_available : ec_node_unavailable, nid,
			  is ? RS_CS_READY : RS_CS_DOWN);
		any = true;
	}
	bitmap_zero(krca_reach, GEMINI_MAX_NODES);
	bitmap_copy(krca_reach, now, n);
	krca_known = true;
	spin_unlock(&krca_lock);
	if (any)
		wake_up_all(&krca_wq);
}

/**
 * krca_get_sysnodes() - the system's nodes and their states
 * @list: filled: na_len nodes in na_ids (kmalloc'd; the caller kfree()s
 *        it, on failure too, where it is NULL)
 *
 * A node is RS_CS_READY while the routing table reaches it (every node
 * before the first table), else RS_CS_DOWN.
 *
 * Context: process context, may sleep.
 * Return: 0, -EINVAL (no @list), -ENODEV (no kgni0), -ENOMEM.
 */
int krca_get_sysnodes(rs_node_array_t *list)
{
	struct kgni_dev *kdev;
	rs_node_t *ids;
	unsigned int n, i;
	bool up;

	if (!list)
		return -EINVAL;
	list->na_len = 0;
	list->na_ids = NULL;
	kdev = kgni_dev_get(0);
	if (!kdev)
		return -ENODEV;
	n = kgni_num_nodes(kdev);
	put_device(&kdev->dev);
	ids = kcalloc(n, sizeof(*ids), GFP_KERNEL);
	if (!ids)
		return -ENOMEM;
	spin_lock(&krca_lock);
	for (i = 0; i < n; i++) {
		up = !krca_known || test_bit(i, krca_reach);
		ids[i].rs_node_flat = krca_node_word(i, up ? RS_CS_READY :
							 RS_CS_DOWN);
	}
	spin_unlock(&krca_lock);
	list->na_len = n;
	list->na_ids = ids;
	return 0;
}
EXPORT_SYMBOL(krca_get_sysnodes);

/* The nodes of kgni0's torus, or 0 if there is no kgni0 */
static unsigned int krca_nodes(void)
{
	struct kgni_dev *kdev = kgni_dev_get(0);
	unsigned int n;

	if (!kdev)
		return 0;
	n = kgni_num_nodes(kdev);
	put_device(&kdev->dev);
	return n;
}

/**
 * krca_nid_to_nicaddrs() - the NIC addresses of a node
 * @nid: the node (its Gemini id)
 * @numnic: room in @nicaddrs
 * @nicaddrs: filled with GEMINI_PE(@nid, 0), the one NIC vgemini gives it
 *
 * Context: process context, may sleep.
 * Return: the number of addresses written (1), -EINVAL (no room, no
 * @nicaddrs), -ENODEV (no kgni0), -ESRCH (no such node).
 */
int krca_nid_to_nicaddrs(rca_nid_t nid, int numnic, nic_addr_t *nicaddrs)
{
	unsigned int n;

	if (numnic <= 0 || !nicaddrs)
		return -EINVAL;
	n = krca_nodes();
	if (!n)
		return -ENODEV;
	if (nid >= n)
		return -ESRCH;
	nicaddrs[0] = GEMINI_PE(nid, 0);
	return 1;
}
EXPORT_SYMBOL(krca_nid_to_nicaddrs);

/**
 * krca_nicaddr_to_nid() - the node of a NIC address
 * @nicaddr: GEMINI_PE(nid, 0)
 * @nid: filled with the node
 *
 * Context: process context, may sleep.
 * Return: 0, -EINVAL (no @nid), -ENODEV (no kgni0), -ESRCH (not the
 * address of a node's NIC).
 */
int krca_nicaddr_to_nid(nic_addr_t nicaddr, rca_nid_t *nid)
{
	unsigned int n;

	if (!nid)
		return -EINVAL;
	n = krca_nodes();
	if (!n)
		return -ENODEV;
	if (nicaddr & ~GEMINI_PE_MASK || GEMINI_PE_NIC_ID(nicaddr) ||
	    GEMINI_PE_GEMINI_ID(nicaddr) >= n)
		return -ESRCH;
	*nid = GEMINI_PE_GEMINI_ID(nicaddr);
	return 0;
}
EXPORT_SYMBOL(krca_nicaddr_to_nid);

/**
 * send_hb_2_l0() - the heartbeat to the blade controller
 *
 * There is no L0 in vgemini: the call is counted
 * (/sys/module/kgni/parameters/rca_heartbeats) and the NMI watchdog
 * touched, as gnilnd's busy loops expect of it.
 *
 * Context: any.
 */
void send_hb_2_l0(void)
{
	atomic_long_inc(&krca_heartbeats);
	touch_nmi_watchdog();
}
EXPORT_SYMBOL(send_hb_2_l0);

/* At module exit: registrations a client left behind */
void kgni_rca_exit(void)
{
	unsigned int i;

	for (i = 0; i < KRCA_MAX_REGS; i++) {
		kfree(krca_regs[i].ring);
		krca_regs[i].ring = NULL;
		krca_regs[i].ticket = 0;
	}
}
