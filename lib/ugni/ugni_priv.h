/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * libugni internals.  The CQ entry's hardware fields (overrun, status,
 * source, 56-bit data) come from uapi/gemini_nic.h; the software fields
 * inside the data are vgemini's choice (ugni-api.md §10.3 proposal):
 *
 *   55..54  event type (GNI_CQ_EVENT_TYPE_*)
 *   53..48  reserved for library flags
 *   47..16  inst_id (POST/SMSG/MSGQ remote and local events) or msg_id
 *   15..0   tid: the request index GNI_GetCompleted looks up
 *   47..0   CQ-write events: the low 48 bits of cqwrite_value
 */
#ifndef UGNI_PRIV_H
#define UGNI_PRIV_H

#include "gemini_nic.h"
#include "gni_pub.h"

#define UGNI_EXPORT __attribute__((visibility("default")))

#define UGNI_CQE_TYPE_SHIFT	54
#define UGNI_CQE_TYPE_MASK	0x3ull
#define UGNI_CQE_ID_SHIFT	16	/* inst_id, rem_inst_id, msg_id */
#define UGNI_CQE_ID_MASK	0xffffffffull
#define UGNI_CQE_TID_SHIFT	0
#define UGNI_CQE_TID_MASK	0xffffull

#endif
