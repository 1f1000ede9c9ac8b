/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * kgni_ioctl_dgram.h: the datagram ioctls (KGNI_IOC_DGRAM_POST,
 * _TEST, _PROBE, _CANCEL).
 *
 * Part of the ioctl interface of /dev/kgniN (Documentation/abi.rst): the
 * callers include kgni_ioctl.h, which has the general format, the errnos,
 * the command numbers and the KGNI_IOC_* definitions and includes this
 * file.  Split from it by role so that no header is over 800 lines.  It
 * needs only <linux/types.h>.
 */
#ifndef KGNI_IOCTL_DGRAM_H
#define KGNI_IOCTL_DGRAM_H

#include <linux/types.h>

/*
 * Datagrams: uGNI's GNI_EpPostData family.  Each side of an exchange posts
 * its data and room for the other's; kgni carries the data across the
 * torus in BTE SEND messages to the peer's kgni, which matches it against
 * its own posts (Documentation/abi.rst, "Datagrams").
 */

/* Most bytes of data each way */
#define KGNI_DGRAM_MAX_DATA		128

/* Datagrams of one file not yet collected, at most */
#define KGNI_DGRAM_MAX_POSTS		1024

/* struct kgni_dgram_post flags */
#define KGNI_DGRAM_BOUND		0x1u

/* Wait for ever (timeout_ms) */
#define KGNI_DGRAM_FOREVER		0xffffffffu

/* A datagram's state: the values of uGNI's gni_post_state_t */
#define KGNI_DGRAM_PENDING		0
#define KGNI_DGRAM_COMPLETED		1
/* The target's kgni refused it: it keeps no more early ones from us. */
#define KGNI_DGRAM_ERROR		2
#define KGNI_DGRAM_TIMEOUT		3
#define KGNI_DGRAM_TERMINATED		4

/**
 * struct kgni_dgram_post - ioctl(KGNI_IOC_DGRAM_POST)
 * @size: in: sizeof(struct kgni_dgram_post)
 * @flags: in: KGNI_DGRAM_BOUND, or 0 for a wildcard
 * @ep_key: in: the caller's name for its endpoint: at most one datagram
 *          per key until it is collected
 * @id: in: the caller's datagram id (uGNI's datagram_id), for the ById
 *      calls; ~0 for none (then only @ep_key names it)
 * @peer_pe: in: BOUND: the only peer whose datagram matches, PE ...
 * @peer_inst: in: ... and instance id
 * @data: in: user pointer to the @data_len bytes to send
 * @data_len: in: 0 to KGNI_DGRAM_MAX_DATA
 * @buf_size: in: bytes of the peer's data the caller will take
 * @reserved: in: 0
 *
 * Posts a datagram of the file's CDM (its PE, ptag, cookie and inst_id).
 * A bound datagram is sent to (@peer_pe, @peer_inst) at once; a wildcard
 * waits for any peer's datagram to this CDM.  Two datagrams match when
 * their cookies agree, each targets the other's PE and inst_id (a
 * wildcard: any PE and inst_id) and each is the other's peer if bound;
 * then each side has the other's data.  A datagram that arrives before a
 * matching post waits for it at the target, unless the target already
 * keeps as many early ones from this (PE, ptag, cookie) as it allows, or
 * its queue is full: then it is refused and ends KGNI_DGRAM_ERROR here.
 * Needs a CDM (EPERM); EBUSY while @ep_key has a datagram not collected;
 * EMSGSIZE past KGNI_DGRAM_MAX_DATA; ENOSPC past KGNI_DGRAM_MAX_POSTS;
 * EDQUOT past the datagrams the file's job may have (kgni's job_dgrams
 * parameter); EINVAL for bad flags or a reserved field; EFAULT.
 */
struct kgni_dgram_post {
	__u32 size;
	__u32 flags;
	__aligned_u64 ep_key;
	__aligned_u64 id;
	__u32 peer_pe;
	__u32 peer_inst;
	__aligned_u64 data;
	__u16 data_len;
	__u16 buf_size;
	__u32 reserved;
};

/* struct kgni_dgram_test and kgni_dgram_cancel flags */
#define KGNI_DGRAM_BY_ID		0x1u

/**
 * struct kgni_dgram_test - ioctl(KGNI_IOC_DGRAM_TEST)
 * @size: in: sizeof(struct kgni_dgram_test)
 * @flags: in: KGNI_DGRAM_BY_ID to name the datagram by @id, else by
 *         @ep_key
 * @ep_key: in: as posted
 * @id: in: as posted (BY_ID; ~0 names none)
 * @timeout_ms: in: 0 to return at once, else wait up to this long for the
 *              datagram to end (KGNI_DGRAM_FOREVER: no limit)
 * @state: out: KGNI_DGRAM_*
 * @remote_pe: out: COMPLETED: the peer's PE
 * @remote_inst: out: COMPLETED: the peer's inst_id
 * @buf: in: user pointer to the post's buf_size bytes for the peer's data
 * @recv_len: out: COMPLETED: bytes the peer sent (only min(@recv_len,
 *            buf_size) are written to @buf)
 * @reserved16: in: 0
 * @reserved: in: 0
 *
 * Reports a datagram's state; one that has ended (COMPLETED, TIMEOUT: its
 * peer could not be reached, TERMINATED: cancelled) is collected: its
 * key is free again.  ENOENT if there is no such datagram; ETIMEDOUT when
 * the wait ran out (state PENDING); EINTR.
 */
struct kgni_dgram_test {
	__u32 size;
	__u32 flags;
	__aligned_u64 ep_key;
	__aligned_u64 id;
	__u32 timeout_ms;
	__u32 state;
	__u32 remote_pe;
	__u32 remote_inst;
	__aligned_u64 buf;
	__u16 recv_len;
	__u16 reserved16;
	__u32 reserved;
};

/**
 * struct kgni_dgram_probe - ioctl(KGNI_IOC_DGRAM_PROBE)
 * @size: in: sizeof(struct kgni_dgram_probe)
 * @flags: in: 0
 * @timeout_ms: in: as for KGNI_IOC_DGRAM_TEST
 * @state: out: the datagram's state
 * @ep_key: out: its key
 * @id: out: its id
 * @remote_pe: out: COMPLETED: the peer's PE
 * @remote_inst: out: COMPLETED: the peer's inst_id
 *
 * The file's first datagram that has ended and is not collected, in the
 * order they ended; it stays until KGNI_IOC_DGRAM_TEST collects it.
 * ENOENT if none; ETIMEDOUT when the wait ran out; EINTR.
 */
struct kgni_dgram_probe {
	__u32 size;
	__u32 flags;
	__u32 timeout_ms;
	__u32 state;
	__aligned_u64 ep_key;
	__aligned_u64 id;
	__u32 remote_pe;
	__u32 remote_inst;
};

/**
 * struct kgni_dgram_cancel - ioctl(KGNI_IOC_DGRAM_CANCEL)
 * @size: in: sizeof(struct kgni_dgram_cancel)
 * @flags: in: KGNI_DGRAM_BY_ID or 0, as for KGNI_IOC_DGRAM_TEST
 * @ep_key: in
 * @id: in (BY_ID)
 *
 * Cancels a pending datagram; it is then collected with
 * KGNI_IOC_DGRAM_TEST.  One that sent nothing ends TERMINATED at once.
 * One that went to its peer ends when the peer's node has answered:
 * TERMINATED once the peer dropped it, or COMPLETED if a post of the peer
 * had matched it already (both sides then agree); until then it is
 * PENDING.  ENOENT if no such datagram is pending or it was cancelled.
 */
struct kgni_dgram_cancel {
	__u32 size;
	__u32 flags;
	__aligned_u64 ep_key;
	__aligned_u64 id;
};

#endif /* KGNI_IOCTL_DGRAM_H */
