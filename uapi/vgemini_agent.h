/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The guest agent's wire protocol: frames between the host (the launcher,
 * scripts/vgemini_launcher/agent.py, which reads this file) and the agent
 * in each guest (vgemini-agent), over a virtio-serial port.  The comment
 * at the top of the agent's source says what each frame means; this file
 * holds the numbers.  All integers are little-endian.
 *
 * A frame is a struct vgemini_agent_hdr followed by @len payload bytes.
 */
#ifndef VGEMINI_AGENT_H
#define VGEMINI_AGENT_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdint.h>
#endif

#define VGEMINI_AGENT_MAGIC		0x47414756u	/* "VGAG" */
/* The agent's protocol version, in its HELLO_ACK */
#define VGEMINI_AGENT_VERSION		2u
/* The first agent version whose HELLO_ACK gives its limits (jobs need) */
#define VGEMINI_AGENT_VERSION_LIMITS	2u
/* The version a host announces in HELLO (the agent does not check it) */
#define VGEMINI_AGENT_HOST_VERSION	1u
#define VGEMINI_AGENT_HDR_LEN		16u
#define VGEMINI_AGENT_MAX_PAYLOAD	65536u	/* bytes after a header */
#define VGEMINI_AGENT_MAX_REQUESTS	64u	/* requests running at once */
/* The virtio-serial port of the first agent; the others add ".1", ".2" */
#define VGEMINI_AGENT_PORT_NAME		"vgemini.agent"

/**
 * struct vgemini_agent_hdr - the header of every frame
 * @magic: VGEMINI_AGENT_MAGIC
 * @type: enum vgemini_agent_type
 * @flags: 0
 * @reserved: 0
 * @id: the request's id, chosen by the host
 * @len: payload bytes that follow, at most VGEMINI_AGENT_MAX_PAYLOAD
 */
struct vgemini_agent_hdr {
	uint32_t magic;
	uint8_t type;
	uint8_t flags;
	uint16_t reserved;
	uint32_t id;
	uint32_t len;
};

/**
 * enum vgemini_agent_type - frame types
 * @VGEMINI_AGENT_HELLO: host: u32 version; aborts what runs
 * @VGEMINI_AGENT_EXEC: host: u32 timeout_ms, u32 flags, u32 argc, argv
 *                      strings, then (VGEMINI_AGENT_EXEC_ENV) environment
 * @VGEMINI_AGENT_STDIN: host: bytes for the command's stdin; empty: EOF
 * @VGEMINI_AGENT_SIGNAL: host: u32 signal for the command's process group
 * @VGEMINI_AGENT_PMI: host: bytes for the command's PMI socket
 * @VGEMINI_AGENT_HELLO_ACK: agent: u32 version, u32 max payload, u32 max
 *                           requests
 * @VGEMINI_AGENT_STDOUT: agent: bytes the command wrote to stdout
 * @VGEMINI_AGENT_STDERR: agent: bytes the command wrote to stderr
 * @VGEMINI_AGENT_EXIT: agent: u32 how (enum vgemini_agent_exit), i32
 *                      value; a request's last frame
 * @VGEMINI_AGENT_ERROR: agent: text; the request was refused
 * @VGEMINI_AGENT_PMI_OUT: agent: bytes the command wrote to its PMI socket
 */
enum vgemini_agent_type {
	VGEMINI_AGENT_HELLO = 0x01,
	VGEMINI_AGENT_EXEC = 0x02,
	VGEMINI_AGENT_STDIN = 0x03,
	VGEMINI_AGENT_SIGNAL = 0x04,
	VGEMINI_AGENT_PMI = 0x05,
	VGEMINI_AGENT_HELLO_ACK = 0x81,
	VGEMINI_AGENT_STDOUT = 0x82,
	VGEMINI_AGENT_STDERR = 0x83,
	VGEMINI_AGENT_EXIT = 0x84,
	VGEMINI_AGENT_ERROR = 0x85,
	VGEMINI_AGENT_PMI_OUT = 0x86,
};

/**
 * enum vgemini_agent_exit - how a command ended (EXIT frame)
 * @VGEMINI_AGENT_EXITED: it exited; the value is its exit code
 * @VGEMINI_AGENT_SIGNALED: a signal killed it; the value is the signal
 * @VGEMINI_AGENT_TIMEOUT: killed with SIGKILL when its time ran out
 * @VGEMINI_AGENT_NOSTART: fork or pipe failed; the value is errno
 * @VGEMINI_AGENT_ABORTED: killed by a HELLO or a disconnect; value 0
 */
enum vgemini_agent_exit {
	VGEMINI_AGENT_EXITED = 0,
	VGEMINI_AGENT_SIGNALED = 1,
	VGEMINI_AGENT_TIMEOUT = 2,
	VGEMINI_AGENT_NOSTART = 3,
	VGEMINI_AGENT_ABORTED = 4,
};

/* EXEC flags */
#define VGEMINI_AGENT_EXEC_STDIN	0x1u	/* STDIN frames follow */
#define VGEMINI_AGENT_EXEC_PMI		0x2u	/* a PMI socket on fd 3 */
#define VGEMINI_AGENT_EXEC_ENV		0x4u	/* environment after argv */

#endif /* VGEMINI_AGENT_H */
