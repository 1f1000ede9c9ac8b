/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * What uGNI leaves to the implementation and vgemini fixes once, for
 * libugni and for kGNI's kernel API (lib/gnicore/, built into both): the
 * software fields inside a CQ entry's 56-bit data, the SMSG mailbox, and
 * the names and recoverability of CQ errors (gemini-hw.md §8.3, §8.4).
 * The CQ entry's hardware fields (overrun, status, source) are
 * uapi/gemini_nic.h's.  Documentation/ugni.rst describes the protocols.
 *
 * CQ entry data (ugni-api.md §10.3 proposal):
 *
 *   55..54  event type (GNI_CQ_EVENT_TYPE_*)
 *   53..49  reserved for library flags
 *   48      UGNI_CQE_LOCAL_FLAG: the LOCAL event of an RDMA post (its
 *           GLOBAL and remote events have it clear)
 *   47..16  inst_id (POST/SMSG/MSGQ remote and local events) or msg_id
 *   15..0   tid: the request GNI_GetCompleted looks up; UGNI_TID_NONE
 *           for an event without one
 *   47..0   CQ-write events: the low 48 bits of cqwrite_value
 *
 * A post's event data carries the sender's remote_event in the inst_id
 * bits, because the same data goes into the remote event; the local
 * event gets the endpoint's local_event there when it is taken.
 *
 * SMSG mailbox: the mailbox a side gives its peer (msg_buffer +
 * mbox_offset in the registration mem_hndl) is
 *
 *   bytes 0..7    the credit word: how many of this side's own messages
 *                 the peer has released, written by the peer
 *   bytes 8..15   how many of the peer's messages this side released
 *                 (the peer reads it when it runs short of credit)
 *   bytes 64..    mbox_maxcredit slots of UGNI_SMSG_SLOT(msg_maxsize)
 *                 bytes; message seq (1, 2, ...) goes into slot
 *                 (seq - 1) % mbox_maxcredit
 *
 * and a slot holds
 *
 *   word 0        the flag: seq << 32 | tag << 8 | UGNI_SMSG_MAGIC, 0 or
 *                 an older seq while the message is not all there
 *   word 1        header_length | data_length << 32
 *   bytes 16..    the header, then the data
 */
#ifndef GNI_WIRE_H
#define GNI_WIRE_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdint.h>
#endif

#include "gemini_nic.h"

/* --- CQ entry data ------------------------------------------------------ */

#define UGNI_CQE_TYPE_SHIFT	54
#define UGNI_CQE_TYPE_MASK	0x3ull
#define UGNI_CQE_ID_SHIFT	16	/* inst_id, rem_inst_id, msg_id */
#define UGNI_CQE_ID_MASK	0xffffffffull
#define UGNI_CQE_TID_SHIFT	0
#define UGNI_CQE_TID_MASK	0xffffull
#define UGNI_CQWRITE_MASK	0xffffffffffffull	/* 48 bits */
#define UGNI_CQE_LOCAL_FLAG	(1ull << 48)

/* The tid of an event that has no request (tids are 0..UGNI_TID_NONE - 1) */
#define UGNI_TID_NONE		0xffffu

/**
 * ugni_cqe_field() - a field of a CQ entry
 * @e: the entry
 * @shift: the field's lowest bit (UGNI_CQE_*_SHIFT, GEMINI_CQE_*_SHIFT)
 * @mask: its mask, not shifted
 *
 * Return: the field.
 */
static inline uint64_t ugni_cqe_field(uint64_t e, unsigned int shift,
				      uint64_t mask)
{
	return e >> shift & mask;
}

/**
 * ugni_cqe_set_field() - set a field of a CQ entry
 * @e: the entry
 * @shift: the field's lowest bit
 * @mask: its mask, not shifted
 * @v: the value; bits beyond @mask are dropped
 */
static inline void ugni_cqe_set_field(uint64_t *e, unsigned int shift,
				      uint64_t mask, uint64_t v)
{
	*e = (*e & ~(mask << shift)) | ((v & mask) << shift);
}

/**
 * ugni_cqe_source() - the source of a CQ entry (GEMINI_CQE_SRC_*)
 * @e: the entry; 0 (GEMINI_CQE_SRC_NONE) means not written yet
 *
 * Return: the source.
 */
static inline unsigned int ugni_cqe_source(uint64_t e)
{
	return (unsigned int)ugni_cqe_field(e, GEMINI_CQE_SOURCE_SHIFT,
					    GEMINI_CQE_SOURCE_MASK);
}

/**
 * ugni_cqe_status() - the status of a CQ entry (GEMINI_STATUS_*)
 * @e: the entry
 *
 * Return: the status, 0 for success.
 */
static inline unsigned int ugni_cqe_status(uint64_t e)
{
	return (unsigned int)ugni_cqe_field(e, GEMINI_CQE_STATUS_SHIFT,
					    GEMINI_CQE_STATUS_MASK);
}

/**
 * ugni_cqe_local() - whether a CQ entry is an initiator's event
 * @e: the entry
 *
 * The FMA's (SSID sources; SSID_DREQ also names a BTE SEND's miss) and
 * the BTE's events are the initiator's; the others are remote events.
 *
 * Return: 1 for a local event, else 0.
 */
static inline int ugni_cqe_local(uint64_t e)
{
	unsigned int s = ugni_cqe_source(e);

	return s >= GEMINI_CQE_SRC_SSID_SREQ && s <= GEMINI_CQE_SRC_BTE;
}

/**
 * ugni_cqe_type() - the event type of a CQ entry (GNI_CQ_EVENT_TYPE_*)
 * @e: the entry
 *
 * Return: the type.
 */
static inline uint64_t ugni_cqe_type(uint64_t e)
{
	return ugni_cqe_field(e, UGNI_CQE_TYPE_SHIFT, UGNI_CQE_TYPE_MASK);
}

/**
 * ugni_cqe_id() - the inst_id, rem_inst_id or msg_id of a CQ entry
 * @e: the entry
 *
 * Return: the id.
 */
static inline uint64_t ugni_cqe_id(uint64_t e)
{
	return ugni_cqe_field(e, UGNI_CQE_ID_SHIFT, UGNI_CQE_ID_MASK);
}

/**
 * ugni_cqe_tid() - the request id of a CQ entry
 * @e: the entry
 *
 * Return: the tid, UGNI_TID_NONE for an event without a request.
 */
static inline uint64_t ugni_cqe_tid(uint64_t e)
{
	return ugni_cqe_field(e, UGNI_CQE_TID_SHIFT, UGNI_CQE_TID_MASK);
}

/**
 * ugni_cqe_data() - the event data a post or message puts in its events
 * @type: GNI_CQ_EVENT_TYPE_*, below 4
 * @id: the inst_id (the sender's remote_event) or msg_id
 * @tid: the request, or UGNI_TID_NONE; below 1 << 16
 *
 * Return: the data, for the sync-complete doorbell or a BTE descriptor.
 */
static inline uint64_t ugni_cqe_data(uint64_t type, uint32_t id, uint64_t tid)
{
	return type << UGNI_CQE_TYPE_SHIFT |
	       (uint64_t)id << UGNI_CQE_ID_SHIFT |
	       tid << UGNI_CQE_TID_SHIFT;
}

/* --- SMSG mailbox ------------------------------------------------------- */

#define UGNI_SMSG_MAGIC		0x5aull
#define UGNI_SMSG_HDR		16u	/* flag and lengths */
#define UGNI_SMSG_CREDIT_OFF	0u	/* the credit word */
#define UGNI_SMSG_RELEASED_OFF	8u	/* the peer's messages released */
#define UGNI_SMSG_CREDIT_LINE	64u	/* the slots start after it */
#define UGNI_SMSG_SLOT(maxsize) \
	(((uint32_t)(maxsize) + UGNI_SMSG_HDR + 63u) & ~63u)
/* Most messages a mailbox holds, and the largest message */
#define UGNI_SMSG_MAX_CREDIT	65535u
#define UGNI_SMSG_MAX_SIZE	(1u << 20)

/**
 * ugni_smsg_mbox_size() - the bytes of a mailbox
 * @maxcredit: its slots (mbox_maxcredit)
 * @maxsize: the largest message (msg_maxsize)
 *
 * Return: the size, in 32 bits as GNI_SmsgBufferSizeNeeded gives it.
 */
static inline uint32_t ugni_smsg_mbox_size(uint32_t maxcredit,
					   uint32_t maxsize)
{
	return UGNI_SMSG_CREDIT_LINE + maxcredit * UGNI_SMSG_SLOT(maxsize);
}

/**
 * ugni_smsg_slot() - the slot of a message
 * @seq: the message, 1 for the first
 * @slots: the slots of the mailbox it goes to
 *
 * Return: the slot, below @slots.
 */
static inline uint32_t ugni_smsg_slot(uint64_t seq, uint32_t slots)
{
	return (uint32_t)((seq - 1) % slots);
}

/**
 * ugni_smsg_slot_offset() - where a slot starts in its mailbox
 * @slot: the slot
 * @slot_size: UGNI_SMSG_SLOT(msg_maxsize)
 *
 * Return: the offset from the mailbox's start.
 */
static inline uint64_t ugni_smsg_slot_offset(uint32_t slot, uint32_t slot_size)
{
	return UGNI_SMSG_CREDIT_LINE + (uint64_t)slot * slot_size;
}

/**
 * ugni_smsg_flag() - the flag of a message, word 0 of its slot
 * @seq: the message
 * @tag: its tag (GNI_SmsgSendWTag; 0 for GNI_SmsgSend)
 *
 * Return: the flag.
 */
static inline uint64_t ugni_smsg_flag(uint64_t seq, uint8_t tag)
{
	return seq << 32 | (uint64_t)tag << 8 | UGNI_SMSG_MAGIC;
}

/**
 * ugni_smsg_flag_is() - whether a slot's flag says its message is there
 * @flag: word 0 of the slot
 * @seq: the message expected
 *
 * Return: 1 if the slot holds message @seq whole, else 0.
 */
static inline int ugni_smsg_flag_is(uint64_t flag, uint64_t seq)
{
	return (flag & 0xff) == UGNI_SMSG_MAGIC && flag >> 32 == seq;
}

/**
 * ugni_smsg_flag_tag() - the tag in a message's flag
 * @flag: the flag
 *
 * Return: the tag.
 */
static inline uint8_t ugni_smsg_flag_tag(uint64_t flag)
{
	return (uint8_t)(flag >> 8);
}

/**
 * ugni_smsg_lengths() - word 1 of a slot
 * @header_length: bytes of the header
 * @data_length: bytes of the data
 *
 * Return: the word.
 */
static inline uint64_t ugni_smsg_lengths(uint32_t header_length,
					 uint32_t data_length)
{
	return header_length | (uint64_t)data_length << 32;
}

/**
 * ugni_smsg_put_length() - the bytes a message's PUT moves
 * @lengths: word 1 of its slot
 *
 * The PUT starts at word 1 and ends with the data: the flag goes after it.
 *
 * Return: the length.
 */
static inline uint64_t ugni_smsg_put_length(uint64_t lengths)
{
	return UGNI_SMSG_HDR - 8 + (lengths & 0xffffffffu) + (lengths >> 32);
}

/* --- CQ errors (gemini-hw.md §8.3, §8.4) --------------------------------- */

/* The name of a (status, source) the table leaves open */
#define UGNI_CQE_UNDEFINED	"UNDEFINED_ERR"

/**
 * UGNI_CQE_SOURCE_LIST() - the names of the CQ entry's sources
 * @X: called as X(source, name) for sources 0..7, GEMINI_CQE_SRC_* order
 */
#define UGNI_CQE_SOURCE_LIST(X) \
	X(0, "SOURCE_NOT_DONE") \
	X(1, "SOURCE_SSID_SREQ") \
	X(2, "SOURCE_SSID_DREQ") \
	X(3, "SOURCE_SSID_SRSP") \
	X(4, "SOURCE_BTE") \
	X(5, "SOURCE_RMT_SREQ") \
	X(6, "SOURCE_RMT_DREQ") \
	X(7, "SOURCE_RMT_SRSP")

/**
 * UGNI_CQE_STATUS_LIST() - the names of the statuses whatever the source
 * @X: called as X(status, name) for statuses 0x0, 0x1 and 0x3..0xB
 */
#define UGNI_CQE_STATUS_LIST(X) \
	X(0x0, "OKAY") \
	X(0x1, "MISROUTED_PKT") \
	X(0x3, "INV_CMD") \
	X(0x4, "MALFORMED_PKT") \
	X(0x5, "UNCORRECTABLE_TRANSLATION_ERR") \
	X(0x6, "VMDH_INV") \
	X(0x7, "MDD_INV") \
	X(0x8, "PROTECTION_VIOLATION") \
	X(0x9, "MEM_BOUNDS_ERR") \
	X(0xA, "WRITE_PERMISSION_ERR") \
	X(0xB, "REQUEST_TIMEOUT")

/**
 * UGNI_CQE_STATUS_BY_SOURCE_LIST() - the statuses whose name is the source's
 * @X: called as X(status, n0, n1, n2, n3, n4, n5, n6, n7) for statuses 0x2
 *     and 0xC..0xF, @nS the name for source S (source 0 has no meaning)
 */
#define UGNI_CQE_STATUS_BY_SOURCE_LIST(X) \
	X(0x2, UGNI_CQE_UNDEFINED, "UNCORRECTABLE_ERR", \
	  "UNCORRECTABLE_RMT_ERR", UGNI_CQE_UNDEFINED, "UNCORRECTABLE_ERR", \
	  "UNCORRECTABLE_ERR", "UNCORRECTABLE_RMT_ERR", UGNI_CQE_UNDEFINED) \
	X(0xC, UGNI_CQE_UNDEFINED, "UNCORRECTABLE_SSIDSTATE_ERR", \
	  "RX_DESC_VC_INV", "UNCORRECTABLE_SSIDSTATE_ERR", UGNI_CQE_UNDEFINED, \
	  "UNCORRECTABLE_SSIDSTATE_ERR", "RX_DESC_VC_INV", \
	  "UNCORRECTABLE_SSIDSTATE_ERR") \
	X(0xD, UGNI_CQE_UNDEFINED, "HT_DATA_ERR", "HT_DATA_ERR", "STALE_SSID", \
	  "HT_DATA_ERR", "HT_DATA_ERR", "HT_DATA_ERR", "STALE_SSID") \
	X(0xE, UGNI_CQE_UNDEFINED, "NPES_VIOLATION", "BTE_SEND_MISS_ERR", \
	  "PROTOCOL_ERR", "NPES_VIOLATION", "NPES_VIOLATION", \
	  "BTE_SEND_MISS_ERR", "PROTOCOL_ERR") \
	X(0xF, UGNI_CQE_UNDEFINED, UGNI_CQE_UNDEFINED, \
	  "RX_BUF_OVERRUN or CQ_ERR", UGNI_CQE_UNDEFINED, UGNI_CQE_UNDEFINED, \
	  UGNI_CQE_UNDEFINED, "RX_BUF_OVERRUN or CQ_ERR", UGNI_CQE_UNDEFINED)

/**
 * UGNI_CQE_RECOVERABLE_LIST() - which errors a program may recover from
 * @X: called as X(source, row) for sources 1..7: @row has one character
 *     per status 0x1..0xF, 'R' recoverable, 'U' unrecoverable, '-'
 *     undefined
 */
#define UGNI_CQE_RECOVERABLE_LIST(X) \
	X(1, "-UUUUUUUURRURU-")	/* SSID_SREQ */ \
	X(2, "URUUUUUUUURURRU")	/* SSID_DREQ */ \
	X(3, "--UUUUUUUURURU-")	/* SSID_SRSP */ \
	X(4, "-UUUUUUUURR-RU-")	/* BTE */ \
	X(5, "-RUUUUUUURRURU-")	/* RMT_SREQ */ \
	X(6, "URUUUUUUUURURRU")	/* RMT_DREQ */ \
	X(7, "---UUUUUUURU-R-")	/* RMT_SRSP */

#endif /* GNI_WIRE_H */
