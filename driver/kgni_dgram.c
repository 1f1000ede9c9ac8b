// SPDX-License-Identifier: GPL-2.0-only
/*
 * kgni: datagrams (KGNI_IOC_DGRAM_*), uGNI's connection set-up channel.
 *
 * Each side of an exchange posts its data and room for the other's.  The
 * kgnis of the nodes talk in messages of their own (struct kgni_dg_msg),
 * carried by the BTE: a SEND on the kernel's TX channel 3 lands in a
 * buffer of the target kgni's RX channel 3, whose interrupt schedules
 * the work that reads it.  A message to this node's own PE is handled
 * at once, without the device, by whoever makes it.
 *
 * Three files: this one, what clients call (the posts, tests, probes and
 * cancels of files, by their ioctls, and of kernel clients); the
 * protocol, the messages and how they match posts (kgni_dgram_proto.c);
 * their transport on the BTE, the work that reads what arrives, and the
 * service's start and end (kgni_dgram_xport.c).  kgni_dgram.h is what
 * they share.
 *
 * Locking.  Lustre's gnilnd probes, tests and cancels its datagrams with
 * a spinlock of its own held, so those calls may not sleep.  The
 * datagram state (the posts, the queued REQs, the tombstones, the backlog
 * of messages to send, the xids, the ended count waiters watch) is
 * therefore under the device's dg.lock, a spinlock taken with interrupts
 * off, and the calls that neither post nor wait take nothing else:
 * kgni_dg_test() and kgni_dg_probe() without a timeout, kgni_dg_cancel()
 * and kgni_dg_drop() run in any context.  dp.lock, the data path's mutex,
 * stays for what touches the device: writing the TX ring of the kernel's
 * BTE channel and its slots (&kgni_dgrams.tx), reaping them, reading the
 * RX ring.  A post and the work hold it, and take dg.lock inside it for
 * each change of the state.  Nothing sleeps under dg.lock: allocations
 * are GFP_ATOMIC, and beside the state only dg_wq is woken, the work
 * scheduled and, by a holder of dp.lock, the TX ring written.
 */
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "kgni_dgram.h"

/*
 * Drop post @p without waiting (dg.lock held): a pending one whose REQ
 * went out is cancelled at its peer, whose answer then finds nothing.
 */
static void kgni_dg_discard(struct kgni_dev *kdev, struct kgni_dg *p)
{
	struct kgni_dg_in m;

	if (p->state == KGNI_DGRAM_PENDING && p->req_sent && !p->cancelling) {
		kgni_dg_msg_of(kdev, p, KGNI_DG_CANCEL, p->peer_inst, &m);
		m.xid = p->xid;
		kgni_dg_send(kdev, p->peer_pe, &m, 0);
	}
	list_del(&p->node);
	kfree(p);
}

/**
 * kgni_dg_dom_release() - drop a domain's datagrams
 * @kdev: the device
 * @dom: the domain, being torn down
 *
 * A pending one whose REQ went out is cancelled at its peer.
 *
 * Context: dp.lock held; takes dg.lock.
 */
void kgni_dg_dom_release(struct kgni_dev *kdev, struct kgni_dom *dom)
{
	struct kgni_dg *p, *next;
	struct kgni_dgrams *dg;
	unsigned long flags;

	dg = kgni_dg_lock(kdev, true, &flags);
	if (dg) {
		list_for_each_entry_safe(p, next, &dg->posts, node)
			if (p->dom == dom)
				kgni_dg_discard(kdev, p);
	}
	kgni_dg_unlock(kdev, flags);
	wake_up_all(&kdev->dg.wq);
}

/* Ioctls */

/* What an ioctl's KGNI_DGRAM_BY_ID flag names a datagram by */
static unsigned int kgni_dg_by(u32 flags)
{
	return flags & KGNI_DGRAM_BY_ID ? KGNI_DG_BY_ID : KGNI_DG_BY_KEY;
}

/*
 * The domain's datagram named by @key, by @id or by both, as @by says
 * (KGNI_DG_BY_*); NULL if none.  Keys and ids are the domain's: another
 * domain's datagram is never found.  dg.lock held.
 */
static struct kgni_dg *kgni_dg_find(struct kgni_dev *kdev,
				    struct kgni_dom *dom, unsigned int by,
				    u64 key, u64 id)
{
	struct kgni_dg *p;

	if ((by & KGNI_DG_BY_ID) && id == ~0ull)
		return NULL;
	list_for_each_entry(p, &kdev->dg.svc->posts, node)
		if (p->dom == dom &&
		    (!(by & KGNI_DG_BY_KEY) || p->key == key) &&
		    (!(by & KGNI_DG_BY_ID) || p->id == id))
			return p;
	return NULL;
}

/**
 * kgni_dg_post() - post a datagram of the domain's CDM
 * @kdev: the device
 * @dom: the domain
 * @key: the caller's name for its endpoint: at most one datagram per key
 *       until it is collected
 * @id: the caller's datagram id, or ~0 for none
 * @bound: only (@peer_pe, @peer_inst) matches, and the datagram is sent
 *         there at once; else a wildcard
 * @peer_pe: @bound: the peer's PE
 * @peer_inst: @bound: the peer's inst_id
 * @data: the data to send, copied
 * @len: its bytes, 0 to KGNI_DGRAM_MAX_DATA
 * @out_buf: a kernel client's buffer of @buf_size bytes, which the
 *           kgni_dg_test() that collects the datagram fills; NULL for a
 *           file, whose test names a buffer of its own
 * @buf_size: bytes of the peer's data the caller will take
 *
 * A bound post's REQ goes into a TX slot before this returns, unless
 * earlier messages wait for the work (the backlog) or the ring is full.
 *
 * Context: process context, may sleep; ctl_rwsem held for reading with
 * the device alive; takes dp.lock, then dg.lock.
 * Return: 0, -EMSGSIZE past KGNI_DGRAM_MAX_DATA, -ENOMEM, -EPERM without
 * a CDM, -ENOLINK once the domain's job was released, -ENODEV without
 * the datagram service, -EBUSY while @key has a datagram not collected,
 * -ENOSPC past the domain's KGNI_DGRAM_MAX_POSTS, -EDQUOT past its job's
 * kgni_job_dgrams (a file's).
 */
int kgni_dg_post(struct kgni_dev *kdev, struct kgni_dom *dom, u64 key,
		 u64 id, bool bound, u32 peer_pe, u32 peer_inst,
		 const void *data, u16 len, void *out_buf, u16 buf_size)
{
	struct kgni_dgrams *dg;
	unsigned int mine = 0, job = 0;
	struct kgni_dg *p, *o;
	struct kgni_dg_req *q;
	unsigned long flags;
	struct kgni_dg_in m;
	int ret;

	if (len > KGNI_DGRAM_MAX_DATA)
		return -EMSGSIZE;
	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	memcpy(p->data, data, len);
	p->len = len;
	p->buf_size = buf_size;
	p->out_buf = out_buf;
	p->key = key;
	p->id = id;
	p->bound = bound;
	p->peer_pe = peer_pe;
	p->peer_inst = peer_inst;
	p->state = KGNI_DGRAM_PENDING;
	p->dom = dom;

	mutex_lock(&kdev->dp.lock);
	dg = kgni_dg_lock(kdev, true, &flags);
	ret = kgni_dom_usable(dom);
	if (!ret && (!dg || dg->stopped))
		ret = -ENODEV;
	if (ret)
		goto err;
	ret = -EBUSY;
	if (kgni_dg_find(kdev, dom, KGNI_DG_BY_KEY, key, 0))
		goto err;
	list_for_each_entry(o, &dg->posts, node) {
		mine += o->dom == dom;
		job += kgni_dom_same_job(o->dom, dom);
	}
	ret = -ENOSPC;
	if (mine >= KGNI_DGRAM_MAX_POSTS)
		goto err;
	ret = -EDQUOT;
	if (!dom->kernel && job >= READ_ONCE(kgni_job_dgrams))
		goto err;
	p->xid = ++dg->next_xid;
	list_add_tail(&p->node, &dg->posts);
	q = kgni_dg_dequeue(kdev, p);
	if (q) {
		/* Its peer's datagram came first. */
		kgni_dg_answer(kdev, p, &q->m);
		kfree(q);
	} else if (p->bound) {
		p->req_sent = true;
		kgni_dg_msg_of(kdev, p, KGNI_DG_REQ, p->peer_inst, &m);
		m.xid = p->xid;
		kgni_dg_send(kdev, p->peer_pe, &m, 0);
	}
	kgni_dg_unlock(kdev, flags);
	mutex_unlock(&kdev->dp.lock);
	return 0;

err:
	kgni_dg_unlock(kdev, flags);
	mutex_unlock(&kdev->dp.lock);
	kfree(p);
	return ret;
}

/*
 * A file's domain names its peers by index into its job's NTT block, if
 * the job has one: the PE a datagram goes to, and the PE it came from.
 */
static int kgni_dg_pe_phys(struct kgni_dev *kdev, struct kgni_dom *dom,
			   u32 pe, u32 *phys)
{
	int ret;

	mutex_lock(&kdev->dp.lock);
	ret = kgni_ntt_to_phys(kdev, dom, pe, phys);
	mutex_unlock(&kdev->dp.lock);
	return ret;
}

static u32 kgni_dg_pe_virt(struct kgni_dev *kdev, struct kgni_dom *dom,
			   u32 phys)
{
	u32 pe;

	mutex_lock(&kdev->dp.lock);
	pe = kgni_ntt_to_virt(kdev, dom, phys);
	mutex_unlock(&kdev->dp.lock);
	return pe;
}

/**
 * kgni_ioctl_dgram_post() - KGNI_IOC_DGRAM_POST
 * @ucmd: the call; @ucmd->cmd is a struct kgni_dgram_post
 *
 * Return: 0, or an errno of the kernel-doc of struct kgni_dgram_post.
 */
int kgni_ioctl_dgram_post(struct kgni_ucmd *ucmd)
{
	struct kgni_dgram_post *cmd = ucmd->cmd;
	struct kgni_dom *dom = &ucmd->kfile->dom;
	u8 data[KGNI_DGRAM_MAX_DATA];
	u32 peer_pe = cmd->peer_pe;

	if (cmd->flags & ~KGNI_DGRAM_BOUND || cmd->reserved)
		return -EINVAL;
	if (cmd->data_len > KGNI_DGRAM_MAX_DATA)
		return -EMSGSIZE;
	if (copy_from_user(data, u64_to_user_ptr(cmd->data), cmd->data_len))
		return -EFAULT;
	if ((cmd->flags & KGNI_DGRAM_BOUND) &&
	    kgni_dg_pe_phys(ucmd->kdev, dom, cmd->peer_pe, &peer_pe))
		return -EINVAL;
	return kgni_dg_post(ucmd->kdev, dom, cmd->ep_key,
			    cmd->id, cmd->flags & KGNI_DGRAM_BOUND,
			    peer_pe, cmd->peer_inst, data, cmd->data_len,
			    NULL, cmd->buf_size);
}

static bool kgni_dg_changed(struct kgni_dev *kdev, u64 seen)
{
	return READ_ONCE(kdev->dg.ended) != seen || READ_ONCE(kdev->gone) ||
	       !READ_ONCE(kdev->dg.on);
}

/*
 * A kernel thread that kthread_stop() is stopping: its wait ends, as a
 * timeout, so that a client whose teardown cancels its wildcard (which
 * then ends no wait: kgni_dg_cancel()) and stops the thread waiting in
 * gni_postdata_probe_wait_by_id() is not left waiting for ever.
 */
static bool kgni_dg_kthread_stops(void)
{
	return (current->flags & PF_KTHREAD) && kthread_should_stop();
}

/*
 * With dg.lock held (taken with @flags): drop it and wait up to *@left
 * jiffies (MAX_SCHEDULE_TIMEOUT: for ever) for any datagram of the device
 * to end, or for remove.  0 (look again, after taking dg.lock), -EINTR,
 * -ENODEV, or -ETIMEDOUT for a kernel thread being stopped; *@left what
 * is left.  A kernel client (@dom->kernel) waits
 * without signals, as TASK_IDLE: its thread's signals are not its
 * caller's to take, and a wait for ever is not a hung task.  The count
 * is read under dg.lock, so no end after it is missed.
 */
static int kgni_dg_unlock_wait(struct kgni_dev *kdev,
			       const struct kgni_dom *dom, long *left,
			       unsigned long flags)
	__releases(&kdev->dg.lock)
{
	u64 seen = kdev->dg.ended;
	bool kernel = dom->kernel;
	long r;

	kgni_dg_unlock(kdev, flags);
	might_sleep();
	if (READ_ONCE(kdev->gone) || !READ_ONCE(kdev->dg.on))
		return -ENODEV;
	if (kernel) {
		r = wait_event_idle_timeout(kdev->dg.wq,
					    kgni_dg_changed(kdev, seen) ||
					    kgni_dg_kthread_stops(),
					    *left);
		if (kgni_dg_kthread_stops())
			return -ETIMEDOUT;
	} else {
		r = wait_event_interruptible_timeout(kdev->dg.wq,
						     kgni_dg_changed(kdev,
								     seen),
						     *left);
	}
	if (r < 0)
		return -EINTR;
	*left = *left == MAX_SCHEDULE_TIMEOUT ? *left : r;
	return 0;
}

static long kgni_dg_timeout(u32 ms)
{
	return ms == KGNI_DGRAM_FOREVER ? MAX_SCHEDULE_TIMEOUT :
					  (long)msecs_to_jiffies(ms);
}

/* What a test or probe tells of datagram @p (dg.lock held) */
static void kgni_dg_result_of(const struct kgni_dg *p,
			      struct kgni_dg_result *res)
{
	bool done = p->state == KGNI_DGRAM_COMPLETED;

	res->state = p->state;
	res->key = p->key;
	res->id = p->id;
	res->remote_pe = done ? p->remote_pe : 0;
	res->remote_inst = done ? p->remote_inst : 0;
	res->recv_len = done ? p->recv_len : 0;
	res->copied = 0;
	res->bound = p->bound;
	res->peer_pe = p->peer_pe;
	res->peer_inst = p->peer_inst;
}

/**
 * kgni_dg_test() - the state of a datagram of the domain; collect it if ended
 * @kdev: the device
 * @dom: the domain
 * @by: KGNI_DG_BY_KEY, KGNI_DG_BY_ID or both: what names the datagram
 * @key: as posted
 * @id: as posted (KGNI_DG_BY_ID; ~0 names none)
 * @timeout_ms: 0 to look at once, else wait up to this long for the
 *              datagram to end (KGNI_DGRAM_FOREVER: no limit)
 * @res: its state; COMPLETED: its peer and the length of the peer's data
 * @buf: room for KGNI_DGRAM_MAX_DATA bytes; COMPLETED: the first
 *       @res->copied bytes of the peer's data (at most the post's
 *       buf_size), unless the post has an out_buf, which gets them
 *       instead (@buf may then be NULL)
 *
 * A datagram that has ended (COMPLETED, TIMEOUT, TERMINATED) is collected:
 * its key is free again.
 *
 * Context: with @timeout_ms 0 any context (the device referenced: a file
 * or a kernel NIC holds it); else process context, may sleep (dropping
 * dg.lock while it waits), ctl_rwsem held for reading with the device
 * alive.  Takes dg.lock.
 * Return: 0, -ENOENT if there is no such datagram, -ETIMEDOUT when the
 * wait ran out (the datagram is still PENDING), -EINTR, -ENODEV without
 * the datagram service or once remove has begun.
 */
int kgni_dg_test(struct kgni_dev *kdev, struct kgni_dom *dom,
		 unsigned int by, u64 key, u64 id, u32 timeout_ms,
		 struct kgni_dg_result *res, void *buf)
{
	long left = kgni_dg_timeout(timeout_ms);
	struct kgni_dgrams *dg;
	unsigned long flags;
	struct kgni_dg *p;
	int ret;

	for (;;) {
		dg = kgni_dg_lock(kdev, false, &flags);
		ret = dg ? 0 : -ENODEV;
		p = ret ? NULL : kgni_dg_find(kdev, dom, by, key, id);
		if (!ret && !p)
			ret = -ENOENT;
		if (ret || p->state != KGNI_DGRAM_PENDING || !timeout_ms ||
		    !left)
			break;
		ret = kgni_dg_unlock_wait(kdev, dom, &left, flags);
		if (ret)
			return ret;
	}
	if (ret) {
		kgni_dg_unlock(kdev, flags);
		return ret;
	}
	kgni_dg_result_of(p, res);
	if (p->state == KGNI_DGRAM_COMPLETED) {
		res->copied = min(p->recv_len, p->buf_size);
		if (res->copied)
			memcpy(p->out_buf ?: buf, p->recv, res->copied);
	}
	if (p->state != KGNI_DGRAM_PENDING) {
		/* Collected */
		list_del(&p->node);
		kfree(p);
	}
	kgni_dg_unlock(kdev, flags);
	if (res->state == KGNI_DGRAM_PENDING && timeout_ms)
		return -ETIMEDOUT;
	return 0;
}

/**
 * kgni_ioctl_dgram_test() - KGNI_IOC_DGRAM_TEST
 * @ucmd: the call; @ucmd->cmd is a struct kgni_dgram_test
 *
 * Return: 0, or an errno of the kernel-doc of struct kgni_dgram_test.
 */
int kgni_ioctl_dgram_test(struct kgni_ucmd *ucmd)
{
	struct kgni_dgram_test *cmd = ucmd->cmd;
	u8 recv[KGNI_DGRAM_MAX_DATA];
	struct kgni_dg_result res;
	int ret;

	if (cmd->flags & ~KGNI_DGRAM_BY_ID || cmd->reserved ||
	    cmd->reserved16)
		return -EINVAL;
	ret = kgni_dg_test(ucmd->kdev, &ucmd->kfile->dom,
			   kgni_dg_by(cmd->flags), cmd->ep_key, cmd->id,
			   cmd->timeout_ms, &res, recv);
	if (ret)
		return ret;
	if (res.copied &&
	    copy_to_user(u64_to_user_ptr(cmd->buf), recv, res.copied))
		return -EFAULT;
	cmd->state = res.state;
	cmd->remote_pe = res.state != KGNI_DGRAM_COMPLETED ? res.remote_pe :
			 kgni_dg_pe_virt(ucmd->kdev, &ucmd->kfile->dom,
					 res.remote_pe);
	cmd->remote_inst = res.remote_inst;
	cmd->recv_len = res.recv_len;
	return kgni_ucmd_respond(ucmd, sizeof(*cmd));
}

/**
 * kgni_dg_probe() - the domain's first datagram that has ended
 * @kdev: the device
 * @dom: the domain
 * @timeout_ms: as for kgni_dg_test()
 * @res: its state, key and id; COMPLETED: its peer and the length of the
 *       peer's data
 *
 * The first in the order they ended of those not collected yet; it stays
 * until kgni_dg_test() collects it.
 *
 * Context: as kgni_dg_test(): any with @timeout_ms 0.  Takes dg.lock.
 * Return: 0, -ENOENT if there is none, -ETIMEDOUT when the wait ran out,
 * -EINTR, -ENODEV without the datagram service or once remove has begun.
 */
int kgni_dg_probe(struct kgni_dev *kdev, struct kgni_dom *dom,
		  u32 timeout_ms, struct kgni_dg_result *res)
{
	long left = kgni_dg_timeout(timeout_ms);
	struct kgni_dg *p, *first;
	struct kgni_dgrams *dg;
	unsigned long flags;
	int ret;

	for (;;) {
		first = NULL;
		dg = kgni_dg_lock(kdev, false, &flags);
		if (!dg) {
			kgni_dg_unlock(kdev, flags);
			return -ENODEV;
		}
		list_for_each_entry(p, &dg->posts, node)
			if (p->dom == dom &&
			    p->state != KGNI_DGRAM_PENDING &&
			    (!first || p->ended < first->ended))
				first = p;
		if (first || !timeout_ms || !left)
			break;
		ret = kgni_dg_unlock_wait(kdev, dom, &left, flags);
		if (ret)
			return ret;
	}
	if (first)
		kgni_dg_result_of(first, res);
	kgni_dg_unlock(kdev, flags);
	if (!first)
		return timeout_ms ? -ETIMEDOUT : -ENOENT;
	return 0;
}

/**
 * kgni_ioctl_dgram_probe() - KGNI_IOC_DGRAM_PROBE
 * @ucmd: the call; @ucmd->cmd is a struct kgni_dgram_probe
 *
 * Return: 0, or an errno of the kernel-doc of struct kgni_dgram_probe.
 */
int kgni_ioctl_dgram_probe(struct kgni_ucmd *ucmd)
{
	struct kgni_dgram_probe *cmd = ucmd->cmd;
	struct kgni_dg_result res;
	int ret;

	if (cmd->flags)
		return -EINVAL;
	ret = kgni_dg_probe(ucmd->kdev, &ucmd->kfile->dom, cmd->timeout_ms,
			    &res);
	if (ret)
		return ret;
	cmd->state = res.state;
	cmd->ep_key = res.key;
	cmd->id = res.id;
	cmd->remote_pe = kgni_dg_pe_virt(ucmd->kdev, &ucmd->kfile->dom,
					 res.remote_pe);
	cmd->remote_inst = res.remote_inst;
	return kgni_ucmd_respond(ucmd, sizeof(*cmd));
}

/**
 * kgni_dg_cancel() - cancel a pending datagram of the domain
 * @kdev: the device
 * @dom: the domain
 * @by: as for kgni_dg_test()
 * @key: as posted
 * @id: as posted (KGNI_DG_BY_ID; ~0 names none)
 * @drop_unsent: a wildcard that nothing matched is dropped at once, not
 *               ended: no test or probe finds it any more (a kernel
 *               client's, as Cray's kgni does: gnilnd counts on it)
 *
 * It ends TERMINATED, to be collected by kgni_dg_test().  If it sent a
 * REQ, it ends once its peer has dropped the REQ (TERMINATED), or with
 * the peer's data (COMPLETED) if the peer had matched the REQ already:
 * until then a test sees it PENDING.  To this node's own PE that is over
 * before this returns (the messages are handled at once); to another the
 * CANCEL is left to the work, which sends it after whatever was sent
 * before it.
 *
 * Context: any (the device referenced: a file or a kernel NIC holds it).
 * Takes dg.lock.
 * Return: 0, -ENOENT if there is no such datagram, -EALREADY if it has
 * ended (not collected yet) or was cancelled already, -ENODEV without the
 * datagram service.
 */
int kgni_dg_cancel(struct kgni_dev *kdev, struct kgni_dom *dom,
		   unsigned int by, u64 key, u64 id, bool drop_unsent)
{
	struct kgni_dgrams *dg;
	unsigned long flags;
	struct kgni_dg_in m;
	struct kgni_dg *p;
	int ret = -ENOENT;

	dg = kgni_dg_lock(kdev, false, &flags);
	if (!dg) {
		ret = -ENODEV;
		goto out;
	}
	p = kgni_dg_find(kdev, dom, by, key, id);
	if (!p)
		goto out;
	ret = -EALREADY;
	if (p->state != KGNI_DGRAM_PENDING || p->cancelling)
		goto out;
	ret = 0;
	if (!p->req_sent && drop_unsent) {
		kgni_dg_discard(kdev, p);
		goto out;
	}
	if (!p->req_sent || dg->stopped) {
		kgni_dg_end(kdev, p, KGNI_DGRAM_TERMINATED);
		goto out;
	}
	/* To itself, the ACK comes back at once and ends it. */
	p->cancelling = true;
	kgni_dg_msg_of(kdev, p, KGNI_DG_CANCEL, p->peer_inst, &m);
	m.xid = p->xid;
	kgni_dg_send(kdev, p->peer_pe, &m, 0);
out:
	kgni_dg_unlock(kdev, flags);
	return ret;
}

/**
 * kgni_dg_drop() - drop the datagram a key names, whatever its state
 * @kdev: the device
 * @dom: the domain
 * @key: as posted
 *
 * For a kernel endpoint's destruction, after which nothing may collect
 * its datagram or write its out_buf: a pending one whose REQ went out is
 * cancelled at its peer without waiting for the answer, as when a domain
 * is torn down.
 *
 * Context: any (the device referenced); takes dg.lock.
 */
void kgni_dg_drop(struct kgni_dev *kdev, struct kgni_dom *dom, u64 key)
{
	struct kgni_dgrams *dg;
	struct kgni_dg *p = NULL;
	unsigned long flags;

	dg = kgni_dg_lock(kdev, false, &flags);
	if (dg)
		p = kgni_dg_find(kdev, dom, KGNI_DG_BY_KEY, key, 0);
	if (p)
		kgni_dg_discard(kdev, p);
	kgni_dg_unlock(kdev, flags);
}

/**
 * kgni_ioctl_dgram_cancel() - KGNI_IOC_DGRAM_CANCEL
 * @ucmd: the call; @ucmd->cmd is a struct kgni_dgram_cancel
 *
 * Return: 0, -EINVAL, or an errno of kgni_dg_cancel() (-ENOENT for its
 * -EALREADY).
 */
int kgni_ioctl_dgram_cancel(struct kgni_ucmd *ucmd)
{
	struct kgni_dgram_cancel *cmd = ucmd->cmd;

	int ret;

	if (cmd->flags & ~KGNI_DGRAM_BY_ID)
		return -EINVAL;
	ret = kgni_dg_cancel(ucmd->kdev, &ucmd->kfile->dom,
			     kgni_dg_by(cmd->flags), cmd->ep_key, cmd->id,
			     false);
	/* The ABI's ENOENT: nothing pending to cancel */
	return ret == -EALREADY ? -ENOENT : ret;
}
