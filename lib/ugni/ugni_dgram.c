// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Datagrams: GNI_EpPostData and its family, on kgni's KGNI_IOC_DGRAM_POST,
 * _TEST, _PROBE and _CANCEL (uapi/kgni_ioctl.h).  The kernel carries the
 * data and matches the posts; the library names each endpoint's datagram
 * to it and keeps what the kernel does not:
 *
 *  - an endpoint has at most one datagram until a test collects it (the
 *    kernel's rule per ep_key).  Its key is a number the NIC handle gives
 *    the endpoint at its first post, never reused, so that a key the
 *    kernel might still hold cannot name a later endpoint;
 *  - a post without an id (GNI_EpPostData) passes UGNI_DGRAM_NO_ID, the
 *    kernel's "no id".  A ById call names the endpoint's datagram of
 *    that id (another id is GNI_RC_NO_MATCH without asking the kernel),
 *    to the kernel by id (KGNI_DGRAM_BY_ID) with the key as well; but by
 *    the key when another datagram of the NIC has the same id, since the
 *    kernel looks an id up among all of the file's datagrams;
 *  - the kernel writes the peer's data only into the buffer a test hands
 *    it, so the post's out_buf and buf_size are remembered per endpoint
 *    (struct ugni_dgram), with the id it was posted with;
 *  - a test of a datagram that has ended collects it in the kernel: the
 *    library forgets it then, and when the kernel says it has no such
 *    datagram (ENOENT);
 *  - GNI_EpUnbind and GNI_EpDestroy cancel and collect a datagram not
 *    collected (ugni_dgram_release).
 *
 * The calls that wait (Wait, ProbeWait) sleep in the kernel without
 * nic->core.lock; a signal (EINTR) makes them wait again for what is left of
 * the timeout.
 */
#include <errno.h>
#include <time.h>

#include "kgni_ioctl.h"
#include "ugni_priv.h"

/* How long GNI_EpDestroy waits for a cancelled datagram to end */
#define RELEASE_WAIT_MS		1000u

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* When a wait of @timeout ms that starts now ends; UINT64_MAX: never */
static uint64_t deadline_of(uint32_t timeout)
{
	if (timeout == KGNI_DGRAM_FOREVER)
		return UINT64_MAX;
	return now_ms() + timeout;
}

/* The timeout_ms that is left until @deadline: 0 once it has passed */
static uint32_t time_left(uint64_t deadline)
{
	uint64_t now;

	if (deadline == UINT64_MAX)
		return KGNI_DGRAM_FOREVER;
	now = now_ms();
	if (now >= deadline)
		return 0;
	if (deadline - now >= KGNI_DGRAM_FOREVER)
		return KGNI_DGRAM_FOREVER - 1;
	return (uint32_t)(deadline - now);
}

static gni_return_t dgram_rc(int err)
{
	switch (err) {
	case 0:
		return GNI_RC_SUCCESS;
	case ENOENT:
		return GNI_RC_NO_MATCH;
	case EMSGSIZE:
		return GNI_RC_SIZE_ERROR;
	case ETIMEDOUT:
		return GNI_RC_TIMEOUT;
	default:
		return ugni_errno_rc(err);	/* EBUSY, ENOSPC: RESOURCE */
	}
}

/* Forget @d's post @seq: the kernel no longer has it.  Takes nic->core.lock. */
static void dgram_forget(struct gni_nic *nic, struct ugni_dgram *d,
			 uint64_t seq)
{
	struct ugni_dgram **pp;

	pthread_mutex_lock(&nic->core.lock);
	if (d->active && d->seq == seq) {
		for (pp = &nic->dgrams; *pp; pp = &(*pp)->next) {
			if (*pp == d) {
				*pp = d->next;
				break;
			}
		}
		d->next = NULL;
		d->out_buf = NULL;
		d->active = false;
	}
	pthread_mutex_unlock(&nic->core.lock);
}

/*
 * The flags that name @d to the kernel in a ById call: by its id, unless
 * another datagram of the NIC has that id too; then by its key, which is
 * @d's alone.  nic->core.lock held.
 */
static uint32_t by_id_flags(struct gni_nic *nic, const struct ugni_dgram *d)
{
	const struct ugni_dgram *o;

	for (o = nic->dgrams; o; o = o->next)
		if (o != d && o->id == d->id)
			return 0;
	return KGNI_DGRAM_BY_ID;
}

static gni_return_t dgram_post(struct gni_ep *ep, void *in_data,
			       uint16_t data_len, void *out_buf,
			       uint16_t buf_size, uint64_t id)
{
	struct kgni_dgram_post p = { .size = sizeof(p) };
	struct ugni_dgram *d;
	struct gni_nic *nic;
	int err;

	if (!ep || (data_len && !in_data) || (buf_size && !out_buf))
		return GNI_RC_INVALID_PARAM;
	if (data_len > GNI_DATAGRAM_MAXSIZE)
		return GNI_RC_SIZE_ERROR;
	/* No peer sends more: the kernel need not know of a bigger buffer. */
	if (buf_size > GNI_DATAGRAM_MAXSIZE)
		buf_size = GNI_DATAGRAM_MAXSIZE;
	nic = ugni_ep_nic(ep);
	d = &ep->dgram;
	pthread_mutex_lock(&nic->core.lock);
	if (d->active) {
		pthread_mutex_unlock(&nic->core.lock);
		return GNI_RC_ERROR_RESOURCE;
	}
	if (!d->key)
		d->key = ++nic->dgram_keys;
	p.flags = ep->core.bound ? KGNI_DGRAM_BOUND : 0;
	p.ep_key = d->key;
	p.id = id;
	if (ep->core.bound) {
		p.peer_pe = ep->core.remote_pe;
		p.peer_inst = ep->core.remote_id;
	}
	p.data = data_len ? (uint64_t)(uintptr_t)in_data : 0;
	p.data_len = data_len;
	p.buf_size = buf_size;
	/* Under the lock: a test must not find the post before it is made. */
	err = ugni_ioctl(nic, KGNI_IOC_DGRAM_POST, &p);
	if (!err) {
		d->id = id;
		d->seq = ++nic->dgram_seq;
		d->out_buf = buf_size ? out_buf : NULL;
		d->buf_size = buf_size;
		d->bound = ep->core.bound;
		d->peer_pe = p.peer_pe;
		d->peer_inst = p.peer_inst;
		d->active = true;
		d->next = nic->dgrams;
		nic->dgrams = d;
	}
	pthread_mutex_unlock(&nic->core.lock);
	return dgram_rc(err);
}

UGNI_EXPORT gni_return_t GNI_EpPostData(gni_ep_handle_t ep_hndl, void *in_data,
					uint16_t data_len, void *out_buf,
					uint16_t buf_size)
{
	/* Only a bound endpoint may post without an id (§17.2). */
	if (!ep_hndl || !ep_hndl->core.bound)
		return GNI_RC_INVALID_PARAM;
	return dgram_post(ep_hndl, in_data, data_len, out_buf, buf_size,
			  UGNI_DGRAM_NO_ID);
}

UGNI_EXPORT gni_return_t GNI_EpPostDataWId(gni_ep_handle_t ep_hndl,
					   void *in_data, uint16_t data_len,
					   void *out_buf, uint16_t buf_size,
					   uint64_t datagram_id)
{
	if (datagram_id == UGNI_DGRAM_NO_ID)
		return GNI_RC_INVALID_PARAM;
	return dgram_post(ep_hndl, in_data, data_len, out_buf, buf_size,
			  datagram_id);
}

/*
 * Name datagram @d (only if its id is @id, when @by_id) to the kernel:
 * the request's flags, endpoint key and id.  False if there is no such
 * datagram.  Context: nic->core.lock held.
 */
static bool dgram_name(struct gni_nic *nic, const struct ugni_dgram *d,
		       bool by_id, uint64_t id, __u32 *flags, __u64 *ep_key,
		       __u64 *kid)
{
	if (!d->active || (by_id && d->id != id))
		return false;
	*flags = by_id ? by_id_flags(nic, d) : 0;
	*ep_key = d->key;
	*kid = d->id;
	return true;
}

/*
 * Test (@wait false: at once) or wait up to @timeout ms for @ep's
 * datagram, named by @id when @by_id.  A datagram that has ended is
 * collected: the kernel has written the peer's data into the post's
 * out_buf.
 */
static gni_return_t dgram_test(struct gni_ep *ep, bool by_id, uint64_t id,
			       bool wait, uint32_t timeout,
			       gni_post_state_t *post_state,
			       uint32_t *remote_addr, uint32_t *remote_id)
{
	struct kgni_dgram_test t = { .size = sizeof(t) };
	struct ugni_dgram *d;
	struct gni_nic *nic;
	uint64_t deadline, seq;
	uint16_t buf_size;
	int err;

	if (!ep || !post_state || !remote_addr || !remote_id ||
	    (by_id && id == UGNI_DGRAM_NO_ID) || (wait && !timeout))
		return GNI_RC_INVALID_PARAM;
	nic = ugni_ep_nic(ep);
	d = &ep->dgram;
	pthread_mutex_lock(&nic->core.lock);
	if (!dgram_name(nic, d, by_id, id, &t.flags, &t.ep_key, &t.id)) {
		pthread_mutex_unlock(&nic->core.lock);
		return GNI_RC_NO_MATCH;
	}
	t.buf = (uint64_t)(uintptr_t)d->out_buf;
	buf_size = d->buf_size;
	seq = d->seq;
	pthread_mutex_unlock(&nic->core.lock);

	deadline = wait ? deadline_of(timeout) : 0;
	do {
		t.timeout_ms = wait ? time_left(deadline) : 0;
		err = ugni_ioctl(nic, KGNI_IOC_DGRAM_TEST, &t);
	} while (err == EINTR);
	if (err == ENOENT)
		dgram_forget(nic, d, seq);
	if (err == ETIMEDOUT || (!err && t.state == KGNI_DGRAM_PENDING)) {
		*post_state = GNI_POST_PENDING;
		/* A wait that ended on its last, instant look: time is up. */
		return wait ? GNI_RC_TIMEOUT : dgram_rc(err);
	}
	if (err)
		return dgram_rc(err);

	/* It has ended, and the kernel has let go of it. */
	dgram_forget(nic, d, seq);
	*post_state = (gni_post_state_t)t.state;
	if (t.state != KGNI_DGRAM_COMPLETED)
		return GNI_RC_SUCCESS;
	*remote_addr = t.remote_pe;
	*remote_id = t.remote_inst;
	/* The kernel wrote what fitted. */
	return t.recv_len > buf_size ? GNI_RC_SIZE_ERROR : GNI_RC_SUCCESS;
}

UGNI_EXPORT gni_return_t GNI_EpPostDataTest(gni_ep_handle_t ep_hndl,
					    gni_post_state_t *post_state,
					    uint32_t *remote_addr,
					    uint32_t *remote_id)
{
	return dgram_test(ep_hndl, false, 0, false, 0, post_state,
			  remote_addr, remote_id);
}

UGNI_EXPORT gni_return_t GNI_EpPostDataTestById(gni_ep_handle_t ep_hndl,
						uint64_t datagram_id,
						gni_post_state_t *post_state,
						uint32_t *remote_addr,
						uint32_t *remote_id)
{
	return dgram_test(ep_hndl, true, datagram_id, false, 0, post_state,
			  remote_addr, remote_id);
}

UGNI_EXPORT gni_return_t GNI_EpPostDataWait(gni_ep_handle_t ep_hndl,
					    uint32_t timeout,
					    gni_post_state_t *post_state,
					    uint32_t *remote_addr,
					    uint32_t *remote_id)
{
	return dgram_test(ep_hndl, false, 0, true, timeout, post_state,
			  remote_addr, remote_id);
}

UGNI_EXPORT gni_return_t GNI_EpPostDataWaitById(gni_ep_handle_t ep_hndl,
						uint64_t datagram_id,
						uint32_t timeout,
						gni_post_state_t *post_state,
						uint32_t *remote_addr,
						uint32_t *remote_id)
{
	return dgram_test(ep_hndl, true, datagram_id, true, timeout,
			  post_state, remote_addr, remote_id);
}

/*
 * The NIC's first datagram that has ended and is not collected, into
 * @pr; waiting up to @timeout ms for one when @wait.  Collects nothing.
 */
static gni_return_t dgram_probe(struct gni_nic *nic, bool wait,
				uint32_t timeout, struct kgni_dgram_probe *pr)
{
	uint64_t deadline = wait ? deadline_of(timeout) : 0;
	uint32_t left;
	int err;

	do {
		left = wait ? time_left(deadline) : 0;
		pr->size = sizeof(*pr);
		pr->flags = 0;
		pr->timeout_ms = left;
		err = ugni_ioctl(nic, KGNI_IOC_DGRAM_PROBE, pr);
	} while (err == EINTR);
	/* A wait that signals used up: its last look was an instant one. */
	if (err == ENOENT && wait && timeout && !left)
		return GNI_RC_TIMEOUT;
	return dgram_rc(err);
}

UGNI_EXPORT gni_return_t GNI_PostDataProbe(gni_nic_handle_t nic_hndl,
					   uint32_t *remote_addr,
					   uint32_t *remote_id)
{
	struct kgni_dgram_probe pr = { .size = sizeof(pr) };
	struct ugni_dgram *d;
	gni_return_t rc;

	if (!nic_hndl || !remote_addr || !remote_id)
		return GNI_RC_INVALID_PARAM;
	rc = dgram_probe(nic_hndl, false, 0, &pr);
	if (rc != GNI_RC_SUCCESS)
		return rc;
	*remote_addr = pr.remote_pe;
	*remote_id = pr.remote_inst;
	if (pr.state == KGNI_DGRAM_COMPLETED)
		return GNI_RC_SUCCESS;
	/*
	 * Timed out or cancelled: there is no peer's word, but a bound
	 * post's peer is what the caller looks its endpoint up by.
	 */
	pthread_mutex_lock(&nic_hndl->core.lock);
	for (d = nic_hndl->dgrams; d; d = d->next) {
		if (d->key == pr.ep_key && d->bound) {
			*remote_addr = d->peer_pe;
			*remote_id = d->peer_inst;
			break;
		}
	}
	pthread_mutex_unlock(&nic_hndl->core.lock);
	return GNI_RC_SUCCESS;
}

UGNI_EXPORT gni_return_t GNI_PostDataProbeById(gni_nic_handle_t nic_hndl,
					       uint64_t *datagram_id)
{
	struct kgni_dgram_probe pr = { .size = sizeof(pr) };
	gni_return_t rc;

	if (!nic_hndl || !datagram_id)
		return GNI_RC_INVALID_PARAM;
	rc = dgram_probe(nic_hndl, false, 0, &pr);
	if (rc == GNI_RC_SUCCESS)
		*datagram_id = pr.id;
	return rc;
}

UGNI_EXPORT gni_return_t GNI_PostdataProbeWaitById(gni_nic_handle_t nic_hndl,
						   uint32_t timeout,
						   uint64_t *datagram_id)
{
	struct kgni_dgram_probe pr = { .size = sizeof(pr) };
	gni_return_t rc;

	if (!nic_hndl || !datagram_id)
		return GNI_RC_INVALID_PARAM;
	rc = dgram_probe(nic_hndl, true, timeout, &pr);
	if (rc == GNI_RC_SUCCESS)
		*datagram_id = pr.id;
	return rc;
}

static gni_return_t dgram_cancel(struct gni_ep *ep, bool by_id, uint64_t id)
{
	struct kgni_dgram_cancel c = { .size = sizeof(c) };
	struct ugni_dgram *d;
	struct gni_nic *nic;

	if (!ep || (by_id && id == UGNI_DGRAM_NO_ID))
		return GNI_RC_INVALID_PARAM;
	nic = ugni_ep_nic(ep);
	d = &ep->dgram;
	pthread_mutex_lock(&nic->core.lock);
	if (!dgram_name(nic, d, by_id, id, &c.flags, &c.ep_key, &c.id)) {
		pthread_mutex_unlock(&nic->core.lock);
		return GNI_RC_NO_MATCH;
	}
	pthread_mutex_unlock(&nic->core.lock);
	/* ENOENT: it has ended already; a test still collects it. */
	return dgram_rc(ugni_ioctl(nic, KGNI_IOC_DGRAM_CANCEL, &c));
}

UGNI_EXPORT gni_return_t GNI_EpPostDataCancel(gni_ep_handle_t ep_hndl)
{
	return dgram_cancel(ep_hndl, false, 0);
}

UGNI_EXPORT gni_return_t GNI_EpPostDataCancelById(gni_ep_handle_t ep_hndl,
						  uint64_t datagram_id)
{
	return dgram_cancel(ep_hndl, true, datagram_id);
}

/*
 * For GNI_EpUnbind and GNI_EpDestroy: cancel @ep's datagram, if it has
 * one not collected, and collect it, writing the peer's data nowhere
 * (the caller may have let its buffer go).  Without nic->core.lock.
 */
void ugni_dgram_release(struct gni_ep *ep)
{
	struct kgni_dgram_cancel c = { .size = sizeof(c) };
	struct kgni_dgram_test t = { .size = sizeof(t) };
	struct ugni_dgram *d = &ep->dgram;
	struct gni_nic *nic = ugni_ep_nic(ep);
	uint64_t seq;
	int err;

	pthread_mutex_lock(&nic->core.lock);
	if (!d->active) {
		pthread_mutex_unlock(&nic->core.lock);
		return;
	}
	c.ep_key = d->key;
	c.id = d->id;
	t.ep_key = d->key;
	t.id = d->id;
	seq = d->seq;
	pthread_mutex_unlock(&nic->core.lock);

	/* ENOENT: it has ended already, and waits to be collected. */
	ugni_ioctl(nic, KGNI_IOC_DGRAM_CANCEL, &c);
	t.timeout_ms = RELEASE_WAIT_MS;
	do {
		err = ugni_ioctl(nic, KGNI_IOC_DGRAM_TEST, &t);
	} while (err == EINTR);
	/* Whatever came of it, closing the file frees what the kernel kept. */
	dgram_forget(nic, d, seq);
}
