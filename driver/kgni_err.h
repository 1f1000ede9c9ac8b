/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kgni: what the two files of the error subscription share (kgni_err.c
 * describes the subscriber).
 *
 *   kgni_err.c       the subscriber: its free, its work that calls the
 *                    callbacks, the posting of events, its end; the
 *                    kernel API's calls (gni_subscribe_errors() and
 *                    the calls on its handle)
 *   kgni_err_user.c  the subscriptions of user space (KGNI_IOC_ERR_*),
 *                    a released file's, debugfs kgniN/inject_error
 */
#ifndef KGNI_ERR_H
#define KGNI_ERR_H

#include <linux/kref.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include "kgni_kapi.h"

/* The last reference to a subscriber goes */
void kgni_err_free(struct kref *ref);
/* A subscriber's work item: the callbacks its events asked for */
void kgni_err_work(struct work_struct *work);
/* After the subscriber left its device's list; drops the list's reference */
void kgni_err_finish(struct gni_err *err);
/* Take up to @n queued events, oldest first; @err->lock held */
u32 kgni_err_take(struct gni_err *err, gni_error_event_t *events, u32 n);

#endif /* KGNI_ERR_H */
