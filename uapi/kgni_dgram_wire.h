/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The messages the kgnis of the nodes send each other to match datagrams
 * (KGNI_IOC_DGRAM_* and the kernel API's gni_ep_postdata() family;
 * Documentation/abi.rst, "Datagrams", tells the protocol).  Each is one
 * BTE SEND on the kernel's TX channel 3 into one of the KGNI_DG_BUF-byte
 * buffers every kgni posts on its RX channel 3, so no message is longer
 * than that.  The driver encodes and decodes them
 * (driver/kgni_dgram_proto.c).  All integers are little-endian.
 *
 * A message is a header of KGNI_DG_HDR bytes, then @len bytes of data:
 *
 *   bytes   field
 *   0..3    magic: KGNI_DG_MAGIC
 *   4       type: enum kgni_dg_type, with KGNI_DG_KERNEL if the sender's
 *           domain is a kernel client's
 *   5       ptag
 *   6..7    len: 0..KGNI_DGRAM_MAX_DATA
 *   8..11   src_pe
 *   12..15  src_inst
 *   16..19  dst_inst
 *   20..23  cookie
 *   24..31  xid
 *   32..39  xid2
 *   40..    data: len bytes
 *
 * A SEND carries the header and the len bytes of data, no more; a
 * message whose magic, type or len is wrong, or that is shorter than its
 * header and data, is malformed and dropped.
 */
#ifndef KGNI_DGRAM_WIRE_H
#define KGNI_DGRAM_WIRE_H

#ifdef __KERNEL__
#include <linux/stddef.h>
#include <linux/types.h>
#else
#include <stddef.h>
#include <stdint.h>
#endif

#include "kgni_ioctl.h"	/* KGNI_DGRAM_MAX_DATA */

#define KGNI_DG_MAGIC		0x4b474432u	/* "KGD2" */
/* In the type byte: the message is a kernel domain's */
#define KGNI_DG_KERNEL		0x80
/* The size of every RX buffer of the kernel's channel: the longest message */
#define KGNI_DG_BUF		256

/**
 * enum kgni_dg_type - what a message is (its type byte, KGNI_DG_KERNEL
 * aside)
 * @KGNI_DG_REQ: a bound post's data, to its peer
 * @KGNI_DG_REPLY: the data of the post that took a REQ, back to the REQ's
 *                 sender
 * @KGNI_DG_CANCEL: the sender cancels its REQ
 * @KGNI_DG_CANCEL_ACK: the answer to a CANCEL: the REQ was dropped, or had
 *                      been answered already
 * @KGNI_DG_NAK: a REQ refused: no room for it in the target's queue
 */
enum kgni_dg_type {
	KGNI_DG_REQ = 1,
	KGNI_DG_REPLY = 2,
	KGNI_DG_CANCEL = 3,
	KGNI_DG_CANCEL_ACK = 4,
	KGNI_DG_NAK = 5,
};

/**
 * struct kgni_dg_msg - what one kgni sends another (little-endian)
 * @magic: KGNI_DG_MAGIC
 * @type: enum kgni_dg_type, with KGNI_DG_KERNEL if the sender's domain is
 *        a kernel client's
 * @ptag: the sender's CDM's ptag
 * @len: bytes of @data
 * @src_pe: the sender's PE
 * @src_inst: the sender's inst_id
 * @dst_inst: the inst_id it is for
 * @cookie: the sender's cookie
 * @xid: REQ, CANCEL: the sender's post; REPLY, CANCEL_ACK, NAK: the REQ
 *       it answers (a NAK: refuses)
 * @xid2: REPLY: the replier's own REQ, now retired, or 0; CANCEL_ACK: 1
 *        if the REQ had been answered (its REPLY went ahead), else 0
 * @data: the datagram's data
 */
struct kgni_dg_msg {
	uint32_t magic;
	uint8_t type;
	uint8_t ptag;
	uint16_t len;
	uint32_t src_pe;
	uint32_t src_inst;
	uint32_t dst_inst;
	uint32_t cookie;
	uint64_t xid;
	uint64_t xid2;
	uint8_t data[KGNI_DGRAM_MAX_DATA];
};

/* The bytes of a message's header: where its data starts */
#define KGNI_DG_HDR	offsetof(struct kgni_dg_msg, data)
_Static_assert(sizeof(struct kgni_dg_msg) <= KGNI_DG_BUF,
	       "a datagram message fits in an RX buffer");

#endif /* KGNI_DGRAM_WIRE_H */
