// SPDX-License-Identifier: GPL-2.0-only
/*
 * kgni: the kernel API's datagrams (Documentation/kernel-api.rst,
 * "Datagrams"): gni_ep_postdata() and its family.
 *
 * They behave as libugni's GNI_EpPostData family (lib/ugni/ugni_dgram.c)
 * and run on the same cores of kgni_dgram.c, called with the NIC's kernel
 * domain instead of a file's: kernel and user posts are in the device's
 * one list and share the one protocol (the tie-break, the tombstones,
 * CANCEL and its ACK).  What libugni keeps per endpoint, the core keeps
 * for a kernel client:
 *
 *  - an endpoint's datagram is posted under the endpoint's address as its
 *    key.  The core looks keys up within a domain only, so no file's key
 *    can name a kernel endpoint's datagram; gni_ep_destroy() drops the
 *    endpoint's datagram (kgni_kdg_ep_release()) before the address can
 *    be another endpoint's;
 *  - the post keeps out_buf, which the test that collects the datagram
 *    fills (kgni_dg_test());
 *  - a ById call names the datagram by key and id together: another
 *    endpoint's datagram of the same id is never found;
 *  - a probe gets a bound post's peer from the core.
 *
 * Isolation from user jobs is the core's matching (kgni_dg_accepts()):
 * ptag, cookie, and a kernel post only ever meets a kernel one.
 *
 * Contexts.  Lustre's gnilnd probes for a datagram and collects it, and
 * cancels one and tests it, with its own spinlock held; it takes
 * INVALID_PARAM from them for a bug and stops the node.  So the calls
 * that neither post nor wait (the tests, the probes, the cancels) run in
 * any context: their cores take only the datagram spinlock, never dp.lock
 * nor ctl_rwsem, and a cancel that must tell a peer leaves the message to
 * the datagram work (kgni_dgram_xport.c).  What keeps them safe from remove is
 * the NIC's reference on the device (the structure, its dg.lock) and the
 * core's finding no service under dg.lock once kgni_dg_fini() has run;
 * before that, a removed device (gone, set first) answers as before, as
 * if nothing were there.  The posts allocate and write the TX ring under
 * dp.lock, and the waits sleep (without signals, kgni_dg_unlock_wait()):
 * those may sleep, hold ctl_rwsem as the ioctls do, and refuse atomic
 * context (kgni_may_sleep()).
 */
#include <linux/build_bug.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/minmax.h>

#include "kgni_kapi.h"

/* The post states are uGNI's, and so is the most data each way. */
static_assert(GNI_POST_PENDING == KGNI_DGRAM_PENDING);
static_assert(GNI_POST_COMPLETED == KGNI_DGRAM_COMPLETED);
static_assert(GNI_POST_ERROR == KGNI_DGRAM_ERROR);
static_assert(GNI_POST_TIMEOUT == KGNI_DGRAM_TIMEOUT);
static_assert(GNI_POST_TERMINATED == KGNI_DGRAM_TERMINATED);
static_assert(GNI_DATAGRAM_MAXSIZE == KGNI_DGRAM_MAX_DATA);

/* A post without an id (the core's "none"); -1 is refused as an id. */
#define KGNI_KDG_NO_ID		(~0ull)

static u64 kgni_kdg_key(const struct gni_ep *ep)
{
	return (u64)(uintptr_t)ep;
}

/*
 * Hold the NIC's device for a core that may sleep (a post, a wait):
 * ctl_rwsem for reading, the device alive.  false, holding nothing, once
 * it has been removed (its datagrams went with it).
 */
static bool kgni_kdg_get(struct gni_nic *nic)
{
	down_read(&nic->kdev->ctl_rwsem);
	if (!READ_ONCE(nic->kdev->gone))
		return true;
	up_read(&nic->kdev->ctl_rwsem);
	return false;
}

static void kgni_kdg_put(struct gni_nic *nic)
{
	up_read(&nic->kdev->ctl_rwsem);
}

/*
 * Post @ep's datagram; @id KGNI_KDG_NO_ID for none, which only a bound
 * endpoint may post.  *@err: the errno of a failure.
 */
static gni_return_t kgni_kdg_post(struct gni_ep *ep, void *in_data,
				  u16 data_len, void *out_buf, u16 buf_size,
				  u64 id, int *err)
{
	u32 peer_pe, peer_inst;
	struct gni_nic *nic;
	unsigned long flags;
	int ret = -ENODEV;
	bool bound;

	*err = EINVAL;
	if (!kgni_may_sleep() || !kgni_is(ep, KGNI_TAG_EP) ||
	    (data_len && !in_data) || (buf_size && !out_buf))
		return GNI_RC_INVALID_PARAM;
	*err = EMSGSIZE;
	if (data_len > GNI_DATAGRAM_MAXSIZE)
		return GNI_RC_SIZE_ERROR;
	/* No peer sends more: the core need not know of a bigger buffer. */
	buf_size = min_t(u16, buf_size, GNI_DATAGRAM_MAXSIZE);
	nic = ep->nic;
	flags = gnicore_lock(&nic->core.lock);
	bound = ep->core.bound;
	peer_pe = ep->core.remote_pe;
	peer_inst = ep->core.remote_id;
	gnicore_unlock(&nic->core.lock, flags);
	*err = EINVAL;
	if (!bound && id == KGNI_KDG_NO_ID)
		return GNI_RC_INVALID_PARAM;
	if (kgni_kdg_get(nic)) {
		ret = kgni_dg_post(nic->kdev, &nic->dom, kgni_kdg_key(ep), id,
				   bound, peer_pe, peer_inst, in_data, data_len,
				   buf_size ? out_buf : NULL, buf_size);
		kgni_kdg_put(nic);
	}
	*err = -ret;
	switch (ret) {
	case 0:
		return GNI_RC_SUCCESS;
	case -ENOMEM:
		return GNI_RC_ERROR_NOMEM;
	case -EBUSY:	/* the endpoint's datagram is not collected yet */
	case -ENOSPC:	/* the NIC's KGNI_DGRAM_MAX_POSTS */
	case -ENODEV:
		return GNI_RC_ERROR_RESOURCE;
	default:	/* EPERM, ENOLINK: not for a kernel domain */
		return GNI_RC_INVALID_PARAM;
	}
}

/**
 * gni_ep_postdata() - post a datagram on a bound endpoint, without an id
 * @ep_hndl: the endpoint, bound: its peer is the only one that matches
 * @in_data: the data to send, copied at once
 * @data_len: its bytes, 0 to GNI_DATAGRAM_MAXSIZE (128)
 * @out_buf: room for the peer's data, kept until the test that collects
 *           the datagram fills it
 * @buf_size: its bytes (more than GNI_DATAGRAM_MAXSIZE are never used)
 *
 * Not called by gnilnd (kgni section 4); codes as gni_ep_postdata_w_id().
 *
 * Context: process context, may sleep.
 * Return: SUCCESS; ERROR_RESOURCE (the endpoint has a datagram not
 * collected, the NIC 1024, the device removed); ERROR_NOMEM; SIZE_ERROR
 * (@data_len above 128); INVALID_PARAM (a bad endpoint, a NULL buffer of
 * nonzero size, an unbound endpoint, atomic context).
 */
gni_return_t gni_ep_postdata(gni_ep_handle_t ep_hndl, void *in_data,
			     u16 data_len, void *out_buf, u16 buf_size)
{
	gni_return_t rc;
	int err;

	rc = kgni_kdg_post(ep_hndl, in_data, data_len, out_buf, buf_size,
			   KGNI_KDG_NO_ID, &err);
	return kgni_kapi_ret(gni_ep_postdata, rc, err, data_len);
}
EXPORT_SYMBOL(gni_ep_postdata);

/**
 * gni_ep_postdata_w_id() - post a datagram with an id
 * @ep_hndl: the endpoint: bound, only its peer matches; unbound, a
 *           wildcard that any peer addressing the NIC's inst_id matches
 * @in_data: the data to send, copied at once
 * @data_len: its bytes, 0 to GNI_DATAGRAM_MAXSIZE (128)
 * @out_buf: room for the peer's data, kept until the test that collects
 *           the datagram fills it
 * @buf_size: its bytes (more than GNI_DATAGRAM_MAXSIZE are never used)
 * @datagram_id: the caller's tag for it, not -1; the probes report it
 *
 * Context: process context, may sleep.
 * Return: SUCCESS; ERROR_RESOURCE (the endpoint has a datagram not
 * collected, the NIC 1024, the device removed); ERROR_NOMEM; SIZE_ERROR
 * (@data_len above 128); INVALID_PARAM (a bad endpoint, a NULL buffer of
 * nonzero size, @datagram_id -1, atomic context).
 */
gni_return_t gni_ep_postdata_w_id(gni_ep_handle_t ep_hndl, void *in_data,
				  u16 data_len, void *out_buf, u16 buf_size,
				  u64 datagram_id)
{
	gni_return_t rc = GNI_RC_INVALID_PARAM;
	int err = EINVAL;

	if (datagram_id != KGNI_KDG_NO_ID)
		rc = kgni_kdg_post(ep_hndl, in_data, data_len, out_buf,
				   buf_size, datagram_id, &err);
	return kgni_kapi_ret(gni_ep_postdata_w_id, rc, err, datagram_id);
}
EXPORT_SYMBOL(gni_ep_postdata_w_id);

/*
 * Test (@wait false) or wait up to @timeout ms for @ep's datagram, and
 * collect it if it has ended: the peer's data is then in the post's
 * out_buf.  @by: KGNI_DG_BY_ID to name it by @id as well as by the
 * endpoint.
 */
static gni_return_t kgni_kdg_test(struct gni_ep *ep, unsigned int by,
				  u64 id, bool wait, u32 timeout,
				  gni_post_state_t *post_state,
				  u32 *remote_addr, u32 *remote_id, int *err)
{
	struct kgni_dg_result res;
	struct gni_nic *nic;
	int ret = -ENODEV;

	*err = EINVAL;
	if ((wait && !kgni_may_sleep()) || !kgni_is(ep, KGNI_TAG_EP) ||
	    !post_state || !remote_addr || !remote_id ||
	    ((by & KGNI_DG_BY_ID) && id == KGNI_KDG_NO_ID) ||
	    (wait && !timeout))
		return GNI_RC_INVALID_PARAM;
	nic = ep->nic;
	if (!wait) {
		if (!READ_ONCE(nic->kdev->gone))
			ret = kgni_dg_test(nic->kdev, &nic->dom,
					   KGNI_DG_BY_KEY | by,
					   kgni_kdg_key(ep), id, 0, &res,
					   NULL);
	} else if (kgni_kdg_get(nic)) {
		ret = kgni_dg_test(nic->kdev, &nic->dom, KGNI_DG_BY_KEY | by,
				   kgni_kdg_key(ep), id, timeout, &res, NULL);
		kgni_kdg_put(nic);
	}
	*err = -ret;
	/* EINTR: never for a kernel domain's wait; taken as its end */
	if (ret == -ETIMEDOUT || ret == -EINTR ||
	    (!ret && res.state == KGNI_DGRAM_PENDING)) {
		*post_state = GNI_POST_PENDING;
		*err = wait ? ETIMEDOUT : 0;
		return wait ? GNI_RC_TIMEOUT : GNI_RC_SUCCESS;
	}
	if (ret)	/* ENOENT; ENODEV: gone with the device */
		return GNI_RC_NO_MATCH;
	*post_state = (gni_post_state_t)res.state;
	if (res.state != KGNI_DGRAM_COMPLETED)
		return GNI_RC_SUCCESS;
	*remote_addr = res.remote_pe;
	*remote_id = res.remote_inst;
	/* out_buf has what fitted. */
	*err = res.recv_len > res.copied ? EMSGSIZE : 0;
	return *err ? GNI_RC_SIZE_ERROR : GNI_RC_SUCCESS;
}

/**
 * gni_ep_postdata_test() - the state of an endpoint's datagram
 * @ep_hndl: the endpoint
 * @post_state: GNI_POST_PENDING, or how it ended: COMPLETED, TIMEOUT (its
 *              peer's node could not be reached), TERMINATED (cancelled)
 * @remote_addr: COMPLETED: the peer's NIC address (else not written)
 * @remote_id: COMPLETED: the peer's inst_id (else not written)
 *
 * A datagram that has ended is collected: the endpoint may post again,
 * and a COMPLETED one's out_buf holds the peer's data (the first
 * buf_size bytes of it).  Not called by gnilnd (kgni section 4); codes as
 * gni_ep_postdata_test_by_id().
 *
 * Context: any context (a spinlock held, softirq, hard IRQ): takes only
 * the datagram spinlock.
 * Return: SUCCESS; NO_MATCH, the endpoint has no datagram (or the device
 * was removed); SIZE_ERROR, COMPLETED but the peer sent more than
 * buf_size (collected all the same); INVALID_PARAM.
 */
gni_return_t gni_ep_postdata_test(gni_ep_handle_t ep_hndl,
				  gni_post_state_t *post_state,
				  u32 *remote_addr, u32 *remote_id)
{
	gni_return_t rc;
	int err;

	rc = kgni_kdg_test(ep_hndl, 0, 0, false, 0, post_state, remote_addr,
			   remote_id, &err);
	return kgni_kapi_ret(gni_ep_postdata_test, rc, err, 0);
}
EXPORT_SYMBOL(gni_ep_postdata_test);

/**
 * gni_ep_postdata_test_by_id() - the state of an endpoint's datagram of an id
 * @ep_hndl: the endpoint
 * @datagram_id: the id it was posted with, not -1
 * @post_state: as for gni_ep_postdata_test()
 * @remote_addr: COMPLETED: the peer's NIC address
 * @remote_id: COMPLETED: the peer's inst_id
 *
 * As gni_ep_postdata_test(), for the endpoint's datagram if its id is
 * @datagram_id.  A cancelled datagram whose message went out stays
 * PENDING until its peer has answered the CANCEL, then is TERMINATED (or
 * COMPLETED, if the peer had matched it first).
 *
 * Context: any context (a spinlock held, softirq, hard IRQ): takes only
 * the datagram spinlock.
 * Return: SUCCESS; NO_MATCH, no such datagram (or the device was
 * removed); SIZE_ERROR, COMPLETED but the peer sent more than buf_size
 * (collected all the same); INVALID_PARAM.
 */
gni_return_t gni_ep_postdata_test_by_id(gni_ep_handle_t ep_hndl,
					u64 datagram_id,
					gni_post_state_t *post_state,
					u32 *remote_addr, u32 *remote_id)
{
	gni_return_t rc;
	int err;

	rc = kgni_kdg_test(ep_hndl, KGNI_DG_BY_ID, datagram_id, false, 0,
			   post_state, remote_addr, remote_id, &err);
	return kgni_kapi_ret(gni_ep_postdata_test_by_id, rc, err,
			     datagram_id);
}
EXPORT_SYMBOL(gni_ep_postdata_test_by_id);

/**
 * gni_ep_postdata_wait() - wait for an endpoint's datagram to end
 * @ep_hndl: the endpoint
 * @timeout: ms, not 0; -1: for ever
 * @post_state: as for gni_ep_postdata_test(); PENDING with TIMEOUT
 * @remote_addr: COMPLETED: the peer's NIC address
 * @remote_id: COMPLETED: the peer's inst_id
 *
 * gni_ep_postdata_test() once the datagram has ended, or when @timeout
 * has run out.  The wait takes no signal.  Not called by gnilnd (kgni
 * section 4): vgemini's codes, GNI_EpPostDataWait()'s.
 *
 * Context: process context, may sleep.
 * Return: SUCCESS (collected); TIMEOUT, still PENDING; NO_MATCH, the
 * endpoint has no datagram (or the device was removed); SIZE_ERROR, as
 * for the test; INVALID_PARAM (@timeout 0 too, atomic context).
 */
gni_return_t gni_ep_postdata_wait(gni_ep_handle_t ep_hndl, u32 timeout,
				  gni_post_state_t *post_state,
				  u32 *remote_addr, u32 *remote_id)
{
	gni_return_t rc;
	int err;

	rc = kgni_kdg_test(ep_hndl, 0, 0, true, timeout, post_state,
			   remote_addr, remote_id, &err);
	return kgni_kapi_ret(gni_ep_postdata_wait, rc, err, timeout);
}
EXPORT_SYMBOL(gni_ep_postdata_wait);

/*
 * The NIC's first datagram that has ended and is not collected, into
 * @res; waiting up to @timeout ms for one when @wait.  Collects nothing.
 * @ok: the caller's outputs are there.
 */
static gni_return_t kgni_kdg_probe(struct gni_nic *nic, bool ok, bool wait,
				   u32 timeout, struct kgni_dg_result *res,
				   int *err)
{
	int ret = -ENODEV;

	*err = EINVAL;
	if ((wait && !kgni_may_sleep()) || !kgni_is(nic, KGNI_TAG_NIC) || !ok)
		return GNI_RC_INVALID_PARAM;
	if (!wait) {
		if (!READ_ONCE(nic->kdev->gone))
			ret = kgni_dg_probe(nic->kdev, &nic->dom, 0, res);
	} else if (kgni_kdg_get(nic)) {
		ret = kgni_dg_probe(nic->kdev, &nic->dom, timeout, res);
		kgni_kdg_put(nic);
	}
	*err = -ret;
	if (!ret)
		return GNI_RC_SUCCESS;
	/* ENOENT, ETIMEDOUT; ENODEV: none will end; EINTR: not a kernel's */
	return wait ? GNI_RC_TIMEOUT : GNI_RC_NO_MATCH;
}

/**
 * gni_postdata_probe() - the peer of the NIC's first datagram that ended
 * @nic_hndl: the NIC
 * @remote_addr: COMPLETED: the peer's NIC address; else a bound post's
 *               peer, 0 for a wildcard's
 * @remote_id: likewise the inst_id
 *
 * The first in the order they ended of the NIC's datagrams not collected
 * yet, which stays until a test collects it.  Not called by gnilnd (kgni
 * section 4); codes as gni_postdata_probe_by_id().
 *
 * Context: any context (a spinlock held, softirq, hard IRQ): takes only
 * the datagram spinlock.
 * Return: SUCCESS; NO_MATCH, none has ended (or the device was removed);
 * INVALID_PARAM.
 */
gni_return_t gni_postdata_probe(gni_nic_handle_t nic_hndl, u32 *remote_addr,
				u32 *remote_id)
{
	struct kgni_dg_result res;
	gni_return_t rc;
	bool done;
	int err;

	rc = kgni_kdg_probe(nic_hndl, remote_addr && remote_id, false, 0,
			    &res, &err);
	if (rc == GNI_RC_SUCCESS) {
		/* No peer's word but a bound post's: its endpoint's key */
		done = res.state == KGNI_DGRAM_COMPLETED;
		*remote_addr = done ? res.remote_pe :
				      res.bound ? res.peer_pe : 0;
		*remote_id = done ? res.remote_inst :
				    res.bound ? res.peer_inst : 0;
	}
	return kgni_kapi_ret(gni_postdata_probe, rc, err, 0);
}
EXPORT_SYMBOL(gni_postdata_probe);

/**
 * gni_postdata_probe_by_id() - the id of the NIC's first datagram that ended
 * @nic_hndl: the NIC
 * @datagram_id: its id (-1 for one posted without)
 *
 * As gni_postdata_probe(); gnilnd then collects it with
 * gni_ep_postdata_test_by_id().
 *
 * Context: any context (a spinlock held, softirq, hard IRQ): takes only
 * the datagram spinlock.
 * Return: SUCCESS; NO_MATCH, none has ended (or the device was removed);
 * INVALID_PARAM.
 */
gni_return_t gni_postdata_probe_by_id(gni_nic_handle_t nic_hndl,
				      u64 *datagram_id)
{
	struct kgni_dg_result res;
	gni_return_t rc;
	int err;

	rc = kgni_kdg_probe(nic_hndl, datagram_id, false, 0, &res, &err);
	if (rc == GNI_RC_SUCCESS)
		*datagram_id = res.id;
	return kgni_kapi_ret(gni_postdata_probe_by_id, rc, err, 0);
}
EXPORT_SYMBOL(gni_postdata_probe_by_id);

/**
 * gni_postdata_probe_wait_by_id() - wait for a datagram of the NIC to end
 * @nic_hndl: the NIC
 * @timeout: ms (0: look once); -1: for ever
 * @datagram_id: the id of the first that ended (-1 for one posted
 *               without)
 *
 * gni_postdata_probe_by_id(), waiting up to @timeout for a datagram to
 * end if none has.  The wait takes no signal.  Atomic context is refused
 * whatever @timeout: gni_postdata_probe_by_id() is the call for it.
 *
 * Context: process context, may sleep.
 * Return: SUCCESS; TIMEOUT, none ended in time (at once after the device
 * was removed); INVALID_PARAM (atomic context too).
 */
gni_return_t gni_postdata_probe_wait_by_id(gni_nic_handle_t nic_hndl,
					   u32 timeout, u64 *datagram_id)
{
	struct kgni_dg_result res;
	gni_return_t rc;
	int err;

	rc = kgni_kdg_probe(nic_hndl, datagram_id, true, timeout, &res, &err);
	if (rc == GNI_RC_SUCCESS)
		*datagram_id = res.id;
	return kgni_kapi_ret(gni_postdata_probe_wait_by_id, rc, err,
			     timeout);
}
EXPORT_SYMBOL(gni_postdata_probe_wait_by_id);

/* Cancel @ep's pending datagram (@by KGNI_DG_BY_ID: if its id is @id). */
static gni_return_t kgni_kdg_cancel(struct gni_ep *ep, unsigned int by,
				    u64 id, int *err)
{
	struct gni_nic *nic;
	int ret = -ENODEV;

	*err = EINVAL;
	if (!kgni_is(ep, KGNI_TAG_EP) ||
	    ((by & KGNI_DG_BY_ID) && id == KGNI_KDG_NO_ID))
		return GNI_RC_INVALID_PARAM;
	nic = ep->nic;
	if (!READ_ONCE(nic->kdev->gone))
		ret = kgni_dg_cancel(nic->kdev, &nic->dom,
				     KGNI_DG_BY_KEY | by, kgni_kdg_key(ep),
				     id, true);
	/*
	 * EALREADY: it has ended, or is being cancelled, and waits for a
	 * test: nothing to do, as for the Cray driver, whose cancel takes
	 * any datagram not collected (gnilnd asserts SUCCESS of a cancel
	 * that may race the datagram's end).  ENOENT: none; ENODEV: gone.
	 */
	if (ret == -EALREADY)
		ret = 0;
	*err = -ret;
	return ret ? GNI_RC_NO_MATCH : GNI_RC_SUCCESS;
}

/**
 * gni_ep_postdata_cancel() - cancel an endpoint's pending datagram
 * @ep_hndl: the endpoint
 *
 * A wildcard that nothing has matched is gone at once: a test then
 * answers NO_MATCH and no probe reports it, as gnilnd expects of Cray's
 * kgni (kgnilnd_cancel_dgram_locked()); a thread waiting in
 * gni_postdata_probe_wait_by_id() for it is ended by kthread_stop().
 * Any other datagram ends TERMINATED, which a test then collects.  One that
 * sent its data to its peer (a bound post) stays PENDING until the peer
 * has dropped it, then is TERMINATED; or COMPLETED, if the peer had
 * matched it first, so that both sides agree.  (To a peer of this node's
 * own address that is settled before the call returns; to another node
 * the CANCEL leaves from the datagram work, after it.)  A datagram that
 * has ended already, or is being cancelled, is left as it is (SUCCESS):
 * the test says how it ended.  Not called by gnilnd (kgni section 4);
 * codes as gni_ep_postdata_cancel_by_id().
 *
 * Context: any context (a spinlock held, softirq, hard IRQ): takes only
 * the datagram spinlock.
 * Return: SUCCESS; NO_MATCH, the endpoint has no datagram (none posted,
 * or collected already; the device removed); INVALID_PARAM.
 */
gni_return_t gni_ep_postdata_cancel(gni_ep_handle_t ep_hndl)
{
	gni_return_t rc;
	int err;

	rc = kgni_kdg_cancel(ep_hndl, 0, 0, &err);
	return kgni_kapi_ret(gni_ep_postdata_cancel, rc, err, 0);
}
EXPORT_SYMBOL(gni_ep_postdata_cancel);

/**
 * gni_ep_postdata_cancel_by_id() - cancel an endpoint's datagram of an id
 * @ep_hndl: the endpoint
 * @datagram_id: the id it was posted with, not -1
 *
 * As gni_ep_postdata_cancel(): gnilnd then tests a wildcard at once
 * (NO_MATCH: gone), and waits for the probe to report a bound datagram,
 * which it collects TERMINATED with gni_ep_postdata_test_by_id().
 *
 * Context: any context (a spinlock held, softirq, hard IRQ): takes only
 * the datagram spinlock.
 * Return: SUCCESS; NO_MATCH, the endpoint has no datagram of that id
 * (none posted, or collected already; the device removed);
 * INVALID_PARAM.
 */
gni_return_t gni_ep_postdata_cancel_by_id(gni_ep_handle_t ep_hndl,
					  u64 datagram_id)
{
	gni_return_t rc;
	int err;

	rc = kgni_kdg_cancel(ep_hndl, KGNI_DG_BY_ID, datagram_id, &err);
	return kgni_kapi_ret(gni_ep_postdata_cancel_by_id, rc, err,
			     datagram_id);
}
EXPORT_SYMBOL(gni_ep_postdata_cancel_by_id);

/**
 * kgni_kdg_ep_release() - drop an endpoint's datagram, at its destruction
 * @ep: the endpoint
 *
 * Nothing may collect it or write its out_buf afterwards: a pending one
 * whose message went out is cancelled at its peer without waiting
 * (kgni_dg_drop()).  Once the device is removed, nothing is sent and the
 * datagram goes anyway (or went, with the service).
 *
 * Context: any.
 */
void kgni_kdg_ep_release(struct gni_ep *ep)
{
	struct gni_nic *nic = ep->nic;

	kgni_dg_drop(nic->kdev, &nic->dom, kgni_kdg_key(ep));
}
