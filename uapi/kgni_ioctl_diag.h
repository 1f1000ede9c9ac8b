/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * kgni_ioctl_diag.h: the diagnostic ioctls: the diagnostic ping
 * (KGNI_IOC_DIAG_PING), the counters (KGNI_IOC_COUNTER_READ, _SNAPSHOT)
 * and the error subscriptions (KGNI_IOC_ERR_SUBSCRIBE to
 * KGNI_IOC_ERR_PTAG).  The router ports they name are enum kgni_port,
 * in kgni_ioctl.h.
 *
 * Part of the ioctl interface of /dev/kgniN (Documentation/abi.rst): the
 * callers include kgni_ioctl.h, which has the general format, the errnos,
 * the command numbers and the KGNI_IOC_* definitions and includes this
 * file.  Split from it by role so that no header is over 800 lines.  It
 * needs only <linux/types.h>.
 */
#ifndef KGNI_IOCTL_DIAG_H
#define KGNI_IOCTL_DIAG_H

#include <linux/types.h>

/* Diagnostic ping */

#define KGNI_DIAG_MAX_LEN		64
#define KGNI_DIAG_MAX_TRACE		16

/**
 * enum kgni_diag_status - how a diagnostic ping ended
 * @KGNI_DIAG_OK: the response came back; the ioctl returns 0
 * @KGNI_DIAG_TIMEOUT: no response in time (lost, or the destination did
 *                     not answer); ETIMEDOUT
 * @KGNI_DIAG_NO_NODE: the destination is not a node of this torus; ENXIO
 * @KGNI_DIAG_BAD_LEN: the device refused the length; EINVAL
 * @KGNI_DIAG_BUSY: the device's diagnostic slot was taken or the router had
 *                  no room to inject the request; EBUSY
 * @KGNI_DIAG_NO_ROUTE: no routing table, or no route to the destination;
 *                      EHOSTUNREACH
 */
enum kgni_diag_status {
	KGNI_DIAG_OK = 0,
	KGNI_DIAG_TIMEOUT = 1,
	KGNI_DIAG_NO_NODE = 2,
	KGNI_DIAG_BAD_LEN = 3,
	KGNI_DIAG_BUSY = 4,
	KGNI_DIAG_NO_ROUTE = 5,
};

/**
 * struct kgni_diag_hop - one link crossed by a diagnostic packet
 * @node: Gemini id of the router the packet left
 * @out_port: port it left that router through (enum kgni_port, 0 to 5)
 * @in_port: port it had entered that router through (enum kgni_port);
 *           KGNI_PORT_NIC on the first hop of the request and of the
 *           response
 * @vclass: dateline class the packet had on this link, 0 or 1
 * @response: 0 for a hop of the request, 1 for a hop of the response
 * @reserved: 0
 */
struct kgni_diag_hop {
	__u16 node;
	__u8 out_port;
	__u8 in_port;
	__u8 vclass;
	__u8 response;
	__u16 reserved;
};

/**
 * struct kgni_diag_ping - ioctl(KGNI_IOC_DIAG_PING)
 * @size: in: sizeof(struct kgni_diag_ping)
 * @flags: in: 0
 * @dest: in: Gemini id of the node to ping; this node's own id is allowed
 *        (the request then crosses no link)
 * @len: in: payload bytes of the request and of the response, 0 to
 *       KGNI_DIAG_MAX_LEN
 * @status: out: enum kgni_diag_status
 * @req_hops: out: links the request crossed
 * @rsp_hops: out: links the response crossed
 * @rtt_ns: out: round-trip time measured by the device, in ns; 0xffffffff
 *          for 4.29 s or more
 * @seq: out: pings the device has started since its reset
 * @num_trace: out: entries of @trace filled: @req_hops + @rsp_hops when
 *             @len had room for them (4 bytes, then 4 per hop), else
 *             the first ones that fit; at most KGNI_DIAG_MAX_TRACE
 * @reserved: in: 0; out: 0
 * @trace: out: the path, request hops then response hops; entries from
 *         @num_trace on are 0
 *
 * Sends one diagnostic request through the fabric to @dest, whose router
 * answers it, and waits for the answer.  Pings of one NIC take turns: a
 * caller waits until the ping before it has ended.
 *
 * The structure is written back exactly when the device has ended the
 * ping, with any enum kgni_diag_status: the ioctl then returns 0 for
 * KGNI_DIAG_OK and the status's errno otherwise, the other out fields as
 * the device reported them.  When the ioctl fails before that (EINVAL for
 * @flags, @reserved or a @len over KGNI_DIAG_MAX_LEN; ENXIO for a @dest
 * over 0xffff, which is no Gemini id; E2BIG; EFAULT; EINTR; ENODEV; EIO)
 * user memory is not written.  EBUSY, ETIMEDOUT and EHOSTUNREACH come only
 * with the structure written back.
 *
 * A signal ends the wait with EINTR; the ping may still complete in the
 * device, and the next ping of the NIC waits for it to end first.
 */
struct kgni_diag_ping {
	__u32 size;
	__u32 flags;
	__u32 dest;
	__u32 len;
	__u32 status;
	__u16 req_hops;
	__u16 rsp_hops;
	__u32 rtt_ns;
	__u32 seq;
	__u32 num_trace;
	__u32 reserved;
	struct kgni_diag_hop trace[KGNI_DIAG_MAX_TRACE];
};

/* Counters */

/*
 * Counter blocks: block 0 to 5 are the router ports (enum kgni_port), block
 * KGNI_PORT_NIC is the NIC.  Counter index i of a block is the device's
 * counter i (enum vgemini_port_counter for ports, enum vgemini_nic_counter
 * for the NIC, in uapi/vgemini_ctl.h).
 *
 * A counter's name is "<block>:<counter>": the block is one of "X+", "X-",
 * "Y+", "Y-", "Z+", "Z-" and "NIC", the counter is the enum constant's name
 * without its VGEMINI_PC_ or VGEMINI_NC_ prefix.  For example
 * "X+:VC0_PHITS", "Z-:CRC_ERR", "NIC:REQ_PKTS_OUT".  Names are matched
 * exactly (case included).
 */
#define KGNI_COUNTER_BLOCKS		7
#define KGNI_COUNTER_NAME_LEN		32

/* struct kgni_counter_read flags */
#define KGNI_COUNTER_BY_NAME		0x1u

/**
 * struct kgni_counter_read - ioctl(KGNI_IOC_COUNTER_READ)
 * @size: in: sizeof(struct kgni_counter_read)
 * @flags: in: 0 to choose the counter by @block and @index,
 *         KGNI_COUNTER_BY_NAME to choose it by @name
 * @block: in (by id), out: the counter's block, 0 to KGNI_COUNTER_BLOCKS - 1
 * @index: in (by id), out: the counter's index in its block
 * @name: in (by name): a NUL-terminated name; out: the counter's name,
 *        NUL-padded
 * @value: out: the counter's value
 *
 * Reads one 64-bit counter.  The fields not used to choose the counter are
 * ignored on input; all of @block, @index and @name are written back, so
 * that each way of naming a counter can be translated into the other.
 * ENOENT when no counter has that id or that name; EINVAL when @name has
 * no NUL.
 */
struct kgni_counter_read {
	__u32 size;
	__u32 flags;
	__u32 block;
	__u32 index;
	char name[KGNI_COUNTER_NAME_LEN];
	__aligned_u64 value;
};

/**
 * struct kgni_counter_snapshot - ioctl(KGNI_IOC_COUNTER_SNAPSHOT)
 * @size: in: sizeof(struct kgni_counter_snapshot)
 * @flags: in: 0
 * @num_blocks: out: counter blocks (KGNI_COUNTER_BLOCKS)
 * @per_block: out: slots per block in @values
 * @count: in: __u64 slots at @values; out: slots the kernel has to fill,
 *         @num_blocks * @per_block
 * @reserved: in: 0; out: 0
 * @values: in: user pointer to an array of @count __u64; counter (b, i)
 *          goes in slot b * @per_block + i, and slots that no counter has
 *          are written 0
 *
 * Reads every counter, one after the other (not at one instant).  The
 * kernel fills the first min(@count in, @count out) slots and writes the
 * structure back; if @count was too small the ioctl then fails with
 * EMSGSIZE.  @count 0 (and any @values) asks for the sizes only.
 */
struct kgni_counter_snapshot {
	__u32 size;
	__u32 flags;
	__u32 num_blocks;
	__u32 per_block;
	__u32 count;
	__u32 reserved;
	__aligned_u64 values;
};

/**
 * DOC: Error subscriptions
 *
 * KGNI_IOC_ERR_SUBSCRIBE to KGNI_IOC_ERR_PTAG are uGNI's error
 * subscription (GNI_SubscribeErrors() and the calls on its handle): a
 * subscription holds a GNI_ERRMASK_* mask, a ptag filter and a queue of
 * events (struct kgni_err_event, which is gni_error_event_t), and takes
 * the device's error events as a kernel client's subscription does
 * (Documentation/kernel-api.rst, "Errors"): an event of the device (ptag
 * 0) goes to every subscription whose mask has its class; an event of a
 * ptag only to those whose filter is that ptag or 0.  A subscription
 * belongs to the file that made it, is named by the @id the kernel gave
 * (an id names one subscription of the device and is never given again
 * while the device lives; EINVAL for an id no subscription of this file
 * has: another file's, a released one's) and ends with
 * KGNI_IOC_ERR_RELEASE or when the file is released.  Its filter is the
 * ptag of the file's CDM; only CAP_SYS_ADMIN may subscribe without a CDM
 * (KGNI_ERR_ALL_PTAGS: filter 0, every ptag) or set another filter.  A
 * subscription of a CDM whose job was released takes events of no ptag
 * any more.  A file holds at most KGNI_ERR_FILE_SUBS subscriptions, a
 * device KGNI_ERR_USER_SUBS of files (ENOSPC past either).
 */

/* Subscriptions one file may hold; subscriptions of files on a device */
#define KGNI_ERR_FILE_SUBS		4
#define KGNI_ERR_USER_SUBS		64
/* Events a file's subscription may queue */
#define KGNI_ERR_USER_MAX_EEQ		1024
/* The GNI_ERRMASK_* bits */
#define KGNI_ERR_MASK_ALL		0xffu

/**
 * struct kgni_err_event - one error event, uGNI's gni_error_event_t
 * @error_code: vgemini's code (Documentation/kernel-api.rst, "Errors")
 * @error_category: its class, one GNI_ERRMASK_* bit
 * @ptag: the ptag it concerns, 0 for the whole device
 * @serial_number: events this subscription was given so far, this one
 *                 included (a gap: events dropped from a full queue)
 * @timestamp: ns since the epoch (CLOCK_REALTIME)
 * @info_mmrs: the code's details
 */
struct kgni_err_event {
	__u16 error_code;
	__u8 error_category;
	__u8 ptag;
	__u32 serial_number;
	__aligned_u64 timestamp;
	__aligned_u64 info_mmrs[4];
};

/* KGNI_IOC_ERR_SUBSCRIBE flags */
#define KGNI_ERR_ALL_PTAGS		(1u << 0)	/* CAP_SYS_ADMIN, no CDM */

/**
 * struct kgni_err_subscribe - ioctl(KGNI_IOC_ERR_SUBSCRIBE)
 * @size: in: sizeof(struct kgni_err_subscribe)
 * @flags: in: KGNI_ERR_ALL_PTAGS or 0
 * @mask: in: the GNI_ERRMASK_* classes wanted (at most KGNI_ERR_MASK_ALL)
 * @eeq_size: in: events the queue holds, 1 to KGNI_ERR_USER_MAX_EEQ; when
 *            it is full the oldest event goes
 * @id: out: the subscription, never 0, unique on the device (must be 0
 *       on input)
 * @reserved: in: 0
 *
 * Without KGNI_ERR_ALL_PTAGS the file must be attached to a CDM (EPERM
 * otherwise, ENOLINK once its job was released) and the filter is its
 * ptag; with it, EPERM without CAP_SYS_ADMIN.  ENOSPC past
 * KGNI_ERR_FILE_SUBS or KGNI_ERR_USER_SUBS; ENOMEM.
 */
struct kgni_err_subscribe {
	__u32 size;
	__u32 flags;
	__u32 mask;
	__u32 eeq_size;
	__u32 id;
	__u32 reserved;
};

/**
 * struct kgni_err_release - ioctl(KGNI_IOC_ERR_RELEASE)
 * @size: in: sizeof(struct kgni_err_release)
 * @flags: in: 0
 * @id: in: the subscription
 * @reserved: in: 0
 *
 * Ends the subscription; its queued events are dropped.  EBUSY while a
 * thread waits in KGNI_IOC_ERR_WAIT on it (the subscription stays).
 */
struct kgni_err_release {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 reserved;
};

/* KGNI_IOC_ERR_MASK flags */
#define KGNI_ERR_MASK_SET		(1u << 0)

/**
 * struct kgni_err_mask - ioctl(KGNI_IOC_ERR_MASK)
 * @size: in: sizeof(struct kgni_err_mask)
 * @flags: in: KGNI_ERR_MASK_SET or 0
 * @id: in: the subscription
 * @mask: in: KGNI_ERR_MASK_SET: the new mask (at most KGNI_ERR_MASK_ALL),
 *        for the events after the call; 0 otherwise
 * @old_mask: out: the mask before the call
 * @reserved: in: 0
 */
struct kgni_err_mask {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 mask;
	__u32 old_mask;
	__u32 reserved;
};

/* KGNI_IOC_ERR_WAIT flags and out state */
#define KGNI_ERR_WAIT_BLOCK		(1u << 0)
#define KGNI_ERR_WAIT_TIMED_OUT		(1u << 0)	/* @state */

/**
 * struct kgni_err_wait - ioctl(KGNI_IOC_ERR_WAIT)
 * @size: in: sizeof(struct kgni_err_wait)
 * @flags: in: KGNI_ERR_WAIT_BLOCK or 0
 * @id: in: the subscription
 * @events_size: in: room at @events, 1 to KGNI_ERR_USER_MAX_EEQ events
 * @timeout_ms: in: KGNI_ERR_WAIT_BLOCK: once events are there, how long
 *              to wait for more until @events_size are taken (0: not);
 *              0 otherwise
 * @num_events: out: the events written to @events, oldest first
 * @state: out: KGNI_ERR_WAIT_TIMED_OUT: @timeout_ms ran out and no event
 *         came during it
 * @reserved: in: 0
 * @events: in: user pointer to @events_size struct kgni_err_event
 *
 * Without KGNI_ERR_WAIT_BLOCK takes the queued events (@num_events 0 if
 * none).  With it, first sleeps (interruptibly, without limit) until an
 * event is queued: EINTR if a signal comes first; ENODEV if the device
 * goes.  A signal during @timeout_ms ends the wait with the events taken.
 * @events is written (zeroed) before any event is taken: EFAULT there
 * loses none.
 */
struct kgni_err_wait {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 events_size;
	__u32 timeout_ms;
	__u32 num_events;
	__u32 state;
	__u32 reserved;
	__aligned_u64 events;
};

/**
 * struct kgni_err_ptag - ioctl(KGNI_IOC_ERR_PTAG)
 * @size: in: sizeof(struct kgni_err_ptag)
 * @flags: in: 0
 * @id: in: the subscription
 * @ptag: in: the new filter, 0 to 255 (0: every ptag); EPERM without
 *        CAP_SYS_ADMIN unless it is the ptag of the file's CDM
 */
struct kgni_err_ptag {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 ptag;
};

#endif /* KGNI_IOCTL_DIAG_H */
