/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The names of the router's ports, their states and its counters: one
 * table for everything that prints or parses them (the device core's QMP
 * JSON, the driver's log, sysfs and counter names, the firmware tool, the
 * launcher, which reads this file).
 *
 * Each list is an X-macro: VGEMINI_PORT_LIST(X) expands X(id, label,
 * sname) once per port, in enum gemini_port order, where GEMINI_PORT_##id
 * is the port, @label its name in messages and counter names ("X+") and
 * @sname its name in property and file names ("xp").  The counter lists
 * expand X(id, name) in enum vgemini_port_counter (VGEMINI_PC_##id) and
 * enum vgemini_nic_counter (VGEMINI_NC_##id) order; @name is the key of
 * the device's JSON ("vc0_phits"), and #id the name kGNI gives it
 * ("VC0_PHITS").  The lists hold one entry per line, in that order, and a
 * string in double quotes: scripts/vgemini_launcher/common.py reads them.
 *
 * A C array from a list, for example:
 *
 *   static const char *const names[VGEMINI_PC_NUM] = {
 *           VGEMINI_PORT_COUNTER_LIST(VGEMINI_PC_NAME_INIT)
 *   };
 */
#ifndef VGEMINI_NAMES_H
#define VGEMINI_NAMES_H

#include "gemini_hw.h"
#include "vgemini_ctl.h"

/**
 * VGEMINI_PORT_LIST() - the torus ports' names, in enum gemini_port order
 * @X: called as X(id, label, sname) for each port: GEMINI_PORT_##id, its
 *     label in messages and counter names ("X+"), its short name in
 *     property, key and file names ("xp")
 */
#define VGEMINI_PORT_LIST(X) \
	X(XP, "X+", "xp") \
	X(XM, "X-", "xm") \
	X(YP, "Y+", "yp") \
	X(YM, "Y-", "ym") \
	X(ZP, "Z+", "zp") \
	X(ZM, "Z-", "zm")

/* The name of the NIC where a port is expected (path records, counters). */
#define VGEMINI_NIC_LABEL		"NIC"

/**
 * VGEMINI_PORT_STATE_LIST() - the names of enum vgemini_port_state
 * @X: called as X(id, name) for each state VGEMINI_PORT_##id
 */
#define VGEMINI_PORT_STATE_LIST(X) \
	X(UNUSED, "unused") \
	X(DOWN, "down") \
	X(UP, "up") \
	X(MISWIRED, "miswired")

/**
 * VGEMINI_PORT_COUNTER_LIST() - the names of a port's counters
 * @X: called as X(id, name) for each counter VGEMINI_PC_##id, in enum
 *     vgemini_port_counter order: @name is the device's JSON key, #id the
 *     name kGNI gives it
 */
#define VGEMINI_PORT_COUNTER_LIST(X) \
	X(VC0_PHITS, "vc0_phits") \
	X(VC1_PHITS, "vc1_phits") \
	X(VC0_PKTS, "vc0_pkts") \
	X(VC1_PKTS, "vc1_pkts") \
	X(INQ_STALL, "inq_stall") \
	X(CREDIT_STALL, "credit_stall") \
	X(RETRY, "retry") \
	X(CRC_ERR, "crc_err") \
	X(SEQ_ERR, "seq_err") \
	X(NAK, "nak") \
	X(FAULTS, "faults") \
	X(DOWN_DROP, "down_drop") \
	X(TX_PKTS, "tx_pkts")

/**
 * VGEMINI_NIC_COUNTER_LIST() - the names of the NIC's counters
 * @X: called as X(id, name) for each counter VGEMINI_NC_##id, in enum
 *     vgemini_nic_counter order, as in VGEMINI_PORT_COUNTER_LIST()
 */
#define VGEMINI_NIC_COUNTER_LIST(X) \
	X(REQ_PKTS_OUT, "req_pkts_out") \
	X(REQ_PHITS_OUT, "req_phits_out") \
	X(RSP_PKTS_OUT, "rsp_pkts_out") \
	X(RSP_PHITS_OUT, "rsp_phits_out") \
	X(REQ_PKTS_IN, "req_pkts_in") \
	X(RSP_PKTS_IN, "rsp_pkts_in") \
	X(NO_ROUTE, "no_route") \
	X(MALFORMED, "malformed") \
	X(STALE_RSP, "stale_rsp") \
	X(DIAG_PINGS, "diag_pings") \
	X(DIAG_TIMEOUTS, "diag_timeouts") \
	X(FMA_PUT_PKTS, "fma_put_pkts") \
	X(FMA_GET_PKTS, "fma_get_pkts") \
	X(FMA_AMO_PKTS, "fma_amo_pkts") \
	X(BTE_PUT_PKTS, "bte_put_pkts") \
	X(BTE_GET_PKTS, "bte_get_pkts")

/* Designated initialisers of arrays indexed by the enums, from the lists. */
#define VGEMINI_PORT_LABEL_INIT(id, label, sname)	[GEMINI_PORT_##id] = label,
#define VGEMINI_PORT_SHORT_INIT(id, label, sname)	[GEMINI_PORT_##id] = sname,
#define VGEMINI_PORT_STATE_INIT(id, name)	[VGEMINI_PORT_##id] = name,
#define VGEMINI_PC_NAME_INIT(id, name)		[VGEMINI_PC_##id] = name,
#define VGEMINI_PC_ID_INIT(id, name)		[VGEMINI_PC_##id] = #id,
#define VGEMINI_NC_NAME_INIT(id, name)		[VGEMINI_NC_##id] = name,
#define VGEMINI_NC_ID_INIT(id, name)		[VGEMINI_NC_##id] = #id,

#endif /* VGEMINI_NAMES_H */
