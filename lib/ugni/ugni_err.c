// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Error subscription: GNI_SubscribeErrors() and the calls on its handle,
 * over KGNI_IOC_ERR_SUBSCRIBE .. KGNI_IOC_ERR_PTAG (uapi/kgni_ioctl.h,
 * "Error subscriptions").  The kernel keeps the subscription, its mask,
 * its ptag filter and its queue of events; the handle names it by the
 * kernel's id on the file of the NIC, or, for a privileged subscription
 * made without a NIC, on a file of the device opened for it.  Return
 * codes follow Cray's gni_pub.h (Documentation/ugni.rst, "Error
 * subscription").
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "kgni_ioctl.h"
#include "ugni_priv.h"

/* The queue of a subscription made with EEQ_size 0 (Cray's default) */
#define UGNI_ERR_DEFAULT_EEQ	64

/* Devices a node may have (ugni_nic.c's bound too) */
#define UGNI_ERR_DEVICES_MAX	8

#define UGNI_ERR_MAGIC		0x6e457272u

_Static_assert(sizeof(gni_error_event_t) == sizeof(struct kgni_err_event),
	       "gni_error_event_t is the kernel's event");
_Static_assert(offsetof(gni_error_event_t, timestamp) ==
	       offsetof(struct kgni_err_event, timestamp) &&
	       offsetof(gni_error_event_t, info_mmrs) ==
	       offsetof(struct kgni_err_event, info_mmrs),
	       "gni_error_event_t is the kernel's event");

struct gni_err {
	uint32_t magic;			/* UGNI_ERR_MAGIC while it lives */
	uint32_t id;			/* the kernel's */
	struct gni_nic *nic;		/* its NIC, or NULL: @fd is its own */
	int fd;
};

static struct gni_err *err_of(gni_err_handle_t h)
{
	return h && h->magic == UGNI_ERR_MAGIC ? h : NULL;
}

/* 0 or an errno */
static int err_ioctl(struct gni_err *e, unsigned long req, void *arg)
{
	if (e->nic)
		return ugni_ioctl(e->nic, req, arg);
	return ioctl(e->fd, req, arg) ? errno : 0;
}

/*
 * Cray: "For privileged users, IE: super-users, they can pass in NULL
 * for nic_handle.  This signifies to use the passed in device_id
 * instead", capturing every ptag; a user without the right gets
 * INVALID_PARAM ("a non-privileged user is trying to subscribe without a
 * communication domain").  With a NIC the subscription takes the events
 * of its CDM's ptag (and those of the whole device).
 */
UGNI_EXPORT gni_return_t GNI_SubscribeErrors(gni_nic_handle_t nic_handle,
		uint32_t device_id, gni_error_mask_t mask, uint32_t EEQ_size,
		gni_err_handle_t *err_handle)
{
	struct kgni_err_subscribe s = { .size = sizeof(s) };
	struct gni_err *e;
	char path[32];
	int err;

	if (!err_handle)
		return GNI_RC_INVALID_PARAM;
	if (!EEQ_size)
		EEQ_size = UGNI_ERR_DEFAULT_EEQ;
	if (EEQ_size > KGNI_ERR_USER_MAX_EEQ)
		return GNI_RC_ERROR_RESOURCE;
	e = calloc(1, sizeof(*e));
	if (!e)
		return GNI_RC_ERROR_NOMEM;
	e->nic = nic_handle;
	e->fd = -1;
	if (!nic_handle) {
		if (device_id == (uint32_t)-1)
			device_id = 0;
		if (device_id >= UGNI_ERR_DEVICES_MAX) {
			free(e);
			return GNI_RC_NO_MATCH;
		}
		snprintf(path, sizeof(path), "/dev/kgni%u", device_id);
		e->fd = open(path, O_RDWR | O_CLOEXEC);
		if (e->fd < 0) {
			free(e);
			return GNI_RC_NO_MATCH;
		}
		s.flags = KGNI_ERR_ALL_PTAGS;
	}
	s.mask = mask;
	s.eeq_size = EEQ_size;
	err = err_ioctl(e, KGNI_IOC_ERR_SUBSCRIBE, &s);
	if (err) {
		if (e->fd >= 0)
			close(e->fd);
		free(e);
		switch (err) {
		case ENOSPC:
			return GNI_RC_ERROR_RESOURCE;
		case ENOMEM:
			return GNI_RC_ERROR_NOMEM;
		case ENODEV:
			return GNI_RC_NO_MATCH;
		default:	/* EPERM: no right to every ptag; EINVAL */
			return GNI_RC_INVALID_PARAM;
		}
	}
	e->id = s.id;
	e->magic = UGNI_ERR_MAGIC;
	*err_handle = e;
	return GNI_RC_SUCCESS;
}

/* Cray: NOT_DONE while "a thread is still waiting on the event queue". */
UGNI_EXPORT gni_return_t GNI_ReleaseErrors(gni_err_handle_t err_handle)
{
	struct kgni_err_release r = { .size = sizeof(r) };
	struct gni_err *e = err_of(err_handle);
	int err;

	if (!e)
		return GNI_RC_INVALID_PARAM;
	r.id = e->id;
	err = err_ioctl(e, KGNI_IOC_ERR_RELEASE, &r);
	if (err == EBUSY)
		return GNI_RC_NOT_DONE;
	/* ENODEV: the device or the checkpointed file is gone, and it. */
	if (err && err != ENODEV)
		return GNI_RC_INVALID_PARAM;
	if (e->fd >= 0)
		close(e->fd);
	e->magic = 0;
	free(e);
	return GNI_RC_SUCCESS;
}

/* The mask before the call into *@old; @set: replace it by @mask. */
static gni_return_t err_mask(gni_err_handle_t h, bool set,
			     gni_error_mask_t mask, gni_error_mask_t *old)
{
	struct kgni_err_mask m = { .size = sizeof(m) };
	struct gni_err *e = err_of(h);

	if (!e || !old)
		return GNI_RC_INVALID_PARAM;
	m.id = e->id;
	if (set) {
		m.flags = KGNI_ERR_MASK_SET;
		m.mask = mask;
	}
	if (err_ioctl(e, KGNI_IOC_ERR_MASK, &m))
		return GNI_RC_INVALID_PARAM;
	*old = (gni_error_mask_t)m.old_mask;
	return GNI_RC_SUCCESS;
}

UGNI_EXPORT gni_return_t GNI_GetErrorMask(gni_err_handle_t err_handle,
		gni_error_mask_t *mask)
{
	return err_mask(err_handle, false, 0, mask);
}

/* Cray: mask_out is "the pointer to copy the pre-set mask value to". */
UGNI_EXPORT gni_return_t GNI_SetErrorMask(gni_err_handle_t err_handle,
		gni_error_mask_t mask_in, gni_error_mask_t *mask_out)
{
	return err_mask(err_handle, true, mask_in, mask_out);
}

/* Cray: "non-blocking", NOT_DONE when "no event was found". */
UGNI_EXPORT gni_return_t GNI_GetErrorEvent(gni_err_handle_t err_handle,
		gni_error_event_t *event)
{
	struct kgni_err_wait w = { .size = sizeof(w) };
	struct gni_err *e = err_of(err_handle);

	if (!e || !event)
		return GNI_RC_INVALID_PARAM;
	w.id = e->id;
	w.events_size = 1;
	w.events = (uintptr_t)event;
	if (err_ioctl(e, KGNI_IOC_ERR_WAIT, &w))
		return GNI_RC_INVALID_PARAM;
	return w.num_events ? GNI_RC_SUCCESS : GNI_RC_NOT_DONE;
}

/*
 * Cray: "This function will block waiting forever waiting for one event
 * to occur.  When that one event is triggered, it will delay returning
 * to try and coalesce error events", up to @timeout ms; TIMEOUT when
 * "Timeout was triggered before any more events came" (the events taken
 * are in @events all the same), NOT_DONE when "No event was found" (a
 * signal ended the wait before any came), PERMISSION_ERROR when "The
 * events pointer can't be written into".
 */
UGNI_EXPORT gni_return_t GNI_WaitErrorEvents(gni_err_handle_t err_handle,
		gni_error_event_t *events, uint32_t events_size,
		uint32_t timeout, uint32_t *num_events)
{
	struct kgni_err_wait w = { .size = sizeof(w) };
	struct gni_err *e = err_of(err_handle);
	int err;

	if (!e || !events || !events_size || !num_events)
		return GNI_RC_INVALID_PARAM;
	w.flags = KGNI_ERR_WAIT_BLOCK;
	w.id = e->id;
	w.events_size = events_size < KGNI_ERR_USER_MAX_EEQ ?
			events_size : KGNI_ERR_USER_MAX_EEQ;
	w.timeout_ms = timeout;
	w.events = (uintptr_t)events;
	err = err_ioctl(e, KGNI_IOC_ERR_WAIT, &w);
	switch (err) {
	case 0:
		*num_events = w.num_events;
		return w.state & KGNI_ERR_WAIT_TIMED_OUT ? GNI_RC_TIMEOUT :
							   GNI_RC_SUCCESS;
	case EINTR:
		*num_events = 0;
		return GNI_RC_NOT_DONE;
	case EFAULT:
		return GNI_RC_PERMISSION_ERROR;
	default:
		return GNI_RC_INVALID_PARAM;
	}
}

/*
 * Cray: "This is a privileged operation only ... It also can be set to 0
 * to specify capturing all events"; PERMISSION_ERROR: "Only super-user
 * can set ptag to something other than the communication domain."
 */
UGNI_EXPORT gni_return_t GNI_SetErrorPtag(gni_err_handle_t err_handle,
		uint8_t ptag)
{
	struct kgni_err_ptag p = { .size = sizeof(p) };
	struct gni_err *e = err_of(err_handle);
	int err;

	if (!e)
		return GNI_RC_INVALID_PARAM;
	p.id = e->id;
	p.ptag = ptag;
	err = err_ioctl(e, KGNI_IOC_ERR_PTAG, &p);
	if (err == EPERM)
		return GNI_RC_PERMISSION_ERROR;
	return err ? GNI_RC_INVALID_PARAM : GNI_RC_SUCCESS;
}
