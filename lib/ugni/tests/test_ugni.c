// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Host tests of libugni's device-free part, TAP: struct layouts and
 * constants against ugni-api.md, gni_err_str, GNI_CqErrorStr and
 * GNI_CqErrorRecoverable against gemini-hw.md §8.3/§8.4, the CQ entry
 * accessors on entries built with uapi/gemini_nic.h, versions, device
 * type, memory handle attributes and CRC, and the documented error of
 * every function that needs the driver.  Then, against a fake kernel
 * (fake_kgni.c): GNI_PostRdma's refusals, the KGNI_IOC_RDMA_POST it
 * fills (data words included) and its errnos, the BTE's events through
 * GNI_CqGetEvent and GNI_GetCompleted (one, dual, errors),
 * GNI_SuspendJob and GNI_ResumeJob (the ioctl, every errno),
 * GNI_CdmCheckpoint and GNI_CdmResume (no system call after a checkpoint),
 * GNI_MemRegisterSegments, vMDH registrations, GNI_RebuildMemHndl,
 * GNI_MemQueryHndls, GNI_GetNttGran, and the datagram calls: the KGNI_IOC_DGRAM_*
 * structures they fill, their refusals and errnos, the out_buf each test
 * hands the kernel, collection, waits with their timeouts and signals,
 * probes, cancels, and GNI_EpUnbind and GNI_EpDestroy of an endpoint with
 * a datagram.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gni_pub.h"
#include "gemini_mh.h"
#include "gemini_nic.h"
#include "gemini_pkt.h"
#include "fake_kgni.h"
#include "tap.h"
#include "ugni_priv.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define EQ(a, b) tap_ok((unsigned long long)(a) == (unsigned long long)(b), \
			"%s == %s (got 0x%llx)", #a, #b, (unsigned long long)(a))
#define OFF(t, f, v) EQ(offsetof(t, f), v)

static void test_layouts(void)
{
	EQ(sizeof(gni_mem_handle_t), 16);
	OFF(gni_mem_handle_t, qword1, 0);
	OFF(gni_mem_handle_t, qword2, 8);
	EQ(sizeof(gni_mem_segment_t), 16);
	EQ(sizeof(gni_cq_entry_t), 8);

	OFF(gni_post_descriptor_t, next_descr, 0);
	OFF(gni_post_descriptor_t, prev_descr, 8);
	OFF(gni_post_descriptor_t, post_id, 16);
	OFF(gni_post_descriptor_t, status, 24);
	OFF(gni_post_descriptor_t, cq_mode_complete, 32);
	OFF(gni_post_descriptor_t, type, 36);
	OFF(gni_post_descriptor_t, cq_mode, 40);
	OFF(gni_post_descriptor_t, dlvr_mode, 42);
	OFF(gni_post_descriptor_t, local_addr, 48);
	OFF(gni_post_descriptor_t, local_mem_hndl, 56);
	OFF(gni_post_descriptor_t, remote_addr, 72);
	OFF(gni_post_descriptor_t, remote_mem_hndl, 80);
	OFF(gni_post_descriptor_t, length, 96);
	OFF(gni_post_descriptor_t, rdma_mode, 104);
	OFF(gni_post_descriptor_t, src_cq_hndl, 112);
	OFF(gni_post_descriptor_t, sync_flag_value, 120);
	OFF(gni_post_descriptor_t, sync_flag_addr, 128);
	OFF(gni_post_descriptor_t, amo_cmd, 136);
	OFF(gni_post_descriptor_t, first_operand, 144);
	OFF(gni_post_descriptor_t, second_operand, 152);
	OFF(gni_post_descriptor_t, cqwrite_value, 160);
	OFF(gni_post_descriptor_t, ce_cmd, 168);
	OFF(gni_post_descriptor_t, ce_mode, 172);
	OFF(gni_post_descriptor_t, ce_red_id, 176);
	EQ(sizeof(gni_post_descriptor_t), 184);

	OFF(gni_smsg_attr_t, msg_type, 0);
	OFF(gni_smsg_attr_t, msg_buffer, 8);
	OFF(gni_smsg_attr_t, buff_size, 16);
	OFF(gni_smsg_attr_t, mem_hndl, 24);
	OFF(gni_smsg_attr_t, mbox_offset, 40);
	OFF(gni_smsg_attr_t, mbox_maxcredit, 44);
	OFF(gni_smsg_attr_t, msg_maxsize, 48);
	EQ(sizeof(gni_smsg_attr_t), 56);

	OFF(gni_error_event_t, error_code, 0);
	OFF(gni_error_event_t, error_category, 2);
	OFF(gni_error_event_t, ptag, 3);
	OFF(gni_error_event_t, serial_number, 4);
	OFF(gni_error_event_t, timestamp, 8);
	OFF(gni_error_event_t, info_mmrs, 16);
	EQ(sizeof(gni_error_event_t), 48);

	EQ(sizeof(gni_job_limits_t), 36);
	OFF(gni_job_limits_t, a.mrt_limit, 4);
	OFF(gni_job_limits_t, a.m.res_byte3, 7);
	OFF(gni_job_limits_t, b.gart_limit, 8);
	OFF(gni_job_limits_t, ntt_size, 32);

	OFF(gni_version_info_t, ugni_build_string, 8);
	OFF(gni_version_info_t, kgni_version, 88);
	OFF(gni_version_info_t, kgni_build_string, 96);
	EQ(sizeof(gni_version_info_t), 176);

	EQ(sizeof(gni_ce_result_t), 24);
	EQ(sizeof(gni_msgq_rem_inst_t), 32);
	OFF(gni_msgq_rem_inst_t, mdh, 8);
	OFF(gni_msgq_rem_inst_t, mdh_off, 24);
	EQ(sizeof(gni_msgq_ep_attr_t), 1552);
	OFF(gni_msgq_ep_attr_t, insts, 16);
	EQ(sizeof(gni_dev_res_desc_t), 32);
	EQ(sizeof(gni_job_res_desc_t), 16);
	EQ(sizeof(gni_bi_desc_t), 16);
	OFF(gni_ntt_descriptor_t, u.table, 8);
	EQ(sizeof(gni_nic_handle_t), sizeof(void *));
}

static void test_constants(void)
{
	EQ(GNI_RC_SUCCESS, 0); EQ(GNI_RC_NOT_DONE, 1);
	EQ(GNI_RC_INVALID_PARAM, 2); EQ(GNI_RC_ERROR_RESOURCE, 3);
	EQ(GNI_RC_TIMEOUT, 4); EQ(GNI_RC_PERMISSION_ERROR, 5);
	EQ(GNI_RC_DESCRIPTOR_ERROR, 6); EQ(GNI_RC_ALIGNMENT_ERROR, 7);
	EQ(GNI_RC_INVALID_STATE, 8); EQ(GNI_RC_NO_MATCH, 9);
	EQ(GNI_RC_SIZE_ERROR, 10); EQ(GNI_RC_TRANSACTION_ERROR, 11);
	EQ(GNI_RC_ILLEGAL_OP, 12); EQ(GNI_RC_ERROR_NOMEM, 13);

	EQ(GNI_VERSION, 0x005c0000); EQ(GNI_GET_MAJOR(0x01234567), 0x01);
	EQ(GNI_GET_MINOR(0x01234567), 0x23); EQ(GNI_GET_REV(0x01234567), 0x4567);
	EQ(GNI_VERSION_CHECK(1, 2, 3), 0x01020003);
	EQ(GNI_VERSION_FMA_SHARING, 0x5b0000);

	EQ(GNI_PTAG_LND, 1); EQ(GNI_PTAG_USER_START, 3);
	EQ(GNI_PTAG_LND_KNC, 128); EQ(GNI_PTAG_USER_END, 253);
	EQ(GNI_PTAG_MAX, 254); EQ(GNI_FIND_ALLOC_PTAG, 255);
	EQ(GNI_PKEY_USER_START, 128); EQ(GNI_PKEY_USER_END, 65407);
	EQ(GNI_PKEY_HSNBOOT, 65408); EQ(GNI_PKEY_LB, 65535);
	EQ(GNI_JOB_CREATE_COOKIE(GNI_PKEY_LND, 0), 0x00010000);
	EQ(GNI_JOB_CREATE_COOKIE(0x1234, 0xf), 0x12340038);

	EQ(GNI_CDM_MODE_FORK_PARTCOPY, 0x4); EQ(GNI_CDM_MODE_ERR_NO_KILL, 0x8);
	EQ(GNI_CDM_MODE_FAST_DATAGRAM_POLL, 0x20);
	EQ(GNI_CDM_MODE_BTE_SINGLE_CHANNEL, 0x40);
	EQ(GNI_CDM_MODE_MDD_SHARED, 0x200); EQ(GNI_CDM_MODE_DUAL_EVENTS, 0x1000);
	EQ(GNI_CDM_MODE_FMA_SHARED, 0x20000);
	EQ(GNI_CDM_MODE_CACHED_AMO_ENABLED, 0x40000);
	EQ(GNI_CDM_MODE_FMA_SMALL_WINDOW, 0x200000);
	EQ(GNI_CDM_MODE_MASK, 0x0FFFFFFF); EQ(GNI_CDM_MODE_PRIV_MASK, 0xF0000000u);

	EQ(GNI_POST_PENDING, 0); EQ(GNI_POST_REMOTE_DATA, 5);
	EQ(GNI_MEM_READ_ONLY, 1); EQ(GNI_MEM_USE_VMDH, 2);
	EQ(GNI_MEM_PHYS_SEGMENTS, 0x10); EQ(GNI_MEM_RELAXED_PI_ORDERING, 0x100);
	EQ(GNI_MEM_RESERVE_REGION, 0x200); EQ(GNI_MEM_UPDATE_REGION, 0x400);
	EQ(GNI_MEM_MDD_DEDICATED, 0x1000); EQ(GNI_MEM_CUDA, 0x01000000);
	EQ(GNI_MEM_IS_EXTERNAL(GNI_MEM_CUDA), 1);
	EQ(GNI_MEMHNDL_ATTR_READONLY, GNI_MEMHNDL_FLAG_READONLY);
	EQ(GNI_MEMHNDL_ATTR_VMDH, GNI_MEMHNDL_FLAG_VMDH);
	EQ(GNI_MEMHNDL_ATTR_CLONE, 7);

	EQ(GNI_CQ_BLOCKING, 1); EQ(GNI_CQ_UNMANAGED, 8);
	EQ(GNI_CQ_IS_INVALID_EMULATED(3), 1); EQ(GNI_CQ_IS_INVALID_EMULATED(2), 0);
	EQ(GNI_CQ_EVENT_TYPE_POST, 0); EQ(GNI_CQ_EVENT_TYPE_SMSG, 1);
	EQ(GNI_CQ_EVENT_TYPE_DMAPP, 2); EQ(GNI_CQ_EVENT_TYPE_MSGQ, 3);

	EQ(GNI_POST_RDMA_PUT, 1); EQ(GNI_POST_CQWRITE, 7);
	EQ(GNI_POST_AMO_W_FLAG, 10); EQ(GNI_FMA_FLAGGED_RESPONSE_SIZE, 4);
	EQ(GNI_CQMODE_GLOBAL_EVENT, 2); EQ(GNI_CQMODE_REMOTE_EVENT, 4);
	EQ(GNI_CQMODE_DUAL_EVENTS, 3); EQ(GNI_DLVMODE_IN_ORDER, 3);
	EQ(GNI_DLVMODE_ORDERED_TAIL, 0x100); EQ(GNI_RDMAMODE_FENCE, 2);
	EQ(GNI_CEMODE_FPE_PRECISION, 0x10);

	EQ(GNI_FMA_ATOMIC_FADD, 0x008); EQ(GNI_FMA_ATOMIC_CSWAP, 0x00D);
	EQ(GNI_FMA_ATOMIC_CSWAP_C, 0x01D); EQ(GNI_FMA_ATOMIC_ADD, 0x108);
	EQ(GNI_FMA_ATOMIC_AX, 0x10C); EQ(GNI_FMA_ATOMIC_AX_C, 0x11C);
	EQ(GNI_FMA_ATOMIC_FAX_C, 0x01C); EQ(GNI_FMA_ATOMIC_XOR_C, 0x11B);
	EQ(GNI_FMA_ATOMIC2_FIADD_SC, 0x274); EQ(GNI_FMA_ATOMIC2_FAND, 0x041);
	EQ(GNI_FMA_ATOMIC2_FPADD_SC, 0x37C); EQ(GNI_FMA_ATOMIC2_CSWAP_S, 0x34A);
	EQ(GNI_FMA_CE_FPMAX_GIDX, 0x3b); EQ(GNI_FMA_CE_IADD_S, 0x14);

	EQ(GNI_ERRMASK_TRANSACTION, 4); EQ(GNI_ERRMASK_UNKNOWN_TRANSACTION, 0x80);
	EQ(GNI_DEVICE_GEMINI, 0); EQ(GNI_DEVICE_ARIES, 1); EQ(GNI_DEVICE_LAST, 3);
	EQ(GNI_DEV_RES_DLA, 6); EQ(GNI_JOB_RES_MDD, 1); EQ(GNI_JOB_RES_SFMA, 10);
	EQ(GNI_NUM_STATS, 7); EQ(GNI_SMSG_TYPE_MBOX_AUTO_RETRANSMIT, 2);
	EQ(GNI_SMSG_ANY_TAG, 0xFF); EQ(GNI_DATAGRAM_MAXSIZE, 128);
	EQ(GNI_SMSG_MAX_SIZE, 65535); EQ(GNI_MSGQ_NODE_INSTS_MAX, 48);
	EQ(GNI_CE_MAX_CHILDREN, 32); EQ(MAX_BUILD_STRING_LENGTH, 80);
	EQ(GNI_BI_INJECT_BW_ORB_MAX, 992); EQ(GNI_JOB_INVALID_LIMIT, -1);
}

static void test_err_str(void)
{
	static const char *const names[] = {
		"GNI_RC_SUCCESS", "GNI_RC_NOT_DONE", "GNI_RC_INVALID_PARAM",
		"GNI_RC_ERROR_RESOURCE", "GNI_RC_TIMEOUT",
		"GNI_RC_PERMISSION_ERROR", "GNI_RC_DESCRIPTOR_ERROR",
		"GNI_RC_ALIGNMENT_ERROR", "GNI_RC_INVALID_STATE",
		"GNI_RC_NO_MATCH", "GNI_RC_SIZE_ERROR",
		"GNI_RC_TRANSACTION_ERROR", "GNI_RC_ILLEGAL_OP",
		"GNI_RC_ERROR_NOMEM",
	};
	int i;

	for (i = GNI_RC_SUCCESS; i <= GNI_RC_ERROR_NOMEM; i++)
		tap_ok(gni_err_str[i] && !strcmp(gni_err_str[i], names[i]),
		       "gni_err_str[%d] is %s", i, names[i]);
	for (i = 0; i < GNI_NUM_STATS; i++)
		tap_ok(gni_statistic_str[i] && !strncmp(gni_statistic_str[i],
							"GNI_STAT_SMSG_", 14),
		       "gni_statistic_str[%d] named", i);
}

/* gemini-hw.md §8.3, written as the table: [status][source 1..7] */
static const char *const status_names[16][7] = {
	{ "OKAY", "OKAY", "OKAY", "OKAY", "OKAY", "OKAY", "OKAY" },
#define ALL(s) { s, s, s, s, s, s, s }
	ALL("MISROUTED_PKT"),
	{ "UNCORRECTABLE_ERR", "UNCORRECTABLE_RMT_ERR", "UNDEFINED_ERR",
	  "UNCORRECTABLE_ERR", "UNCORRECTABLE_ERR", "UNCORRECTABLE_RMT_ERR",
	  "UNDEFINED_ERR" },
	ALL("INV_CMD"),
	ALL("MALFORMED_PKT"),
	ALL("UNCORRECTABLE_TRANSLATION_ERR"),
	ALL("VMDH_INV"),
	ALL("MDD_INV"),
	ALL("PROTECTION_VIOLATION"),
	ALL("MEM_BOUNDS_ERR"),
	ALL("WRITE_PERMISSION_ERR"),
	ALL("REQUEST_TIMEOUT"),
	{ "UNCORRECTABLE_SSIDSTATE_ERR", "RX_DESC_VC_INV",
	  "UNCORRECTABLE_SSIDSTATE_ERR", "UNDEFINED_ERR",
	  "UNCORRECTABLE_SSIDSTATE_ERR", "RX_DESC_VC_INV",
	  "UNCORRECTABLE_SSIDSTATE_ERR" },
	{ "HT_DATA_ERR", "HT_DATA_ERR", "STALE_SSID", "HT_DATA_ERR",
	  "HT_DATA_ERR", "HT_DATA_ERR", "STALE_SSID" },
	{ "NPES_VIOLATION", "BTE_SEND_MISS_ERR", "PROTOCOL_ERR",
	  "NPES_VIOLATION", "NPES_VIOLATION", "BTE_SEND_MISS_ERR",
	  "PROTOCOL_ERR" },
	{ "UNDEFINED_ERR", "RX_BUF_OVERRUN or CQ_ERR", "UNDEFINED_ERR",
	  "UNDEFINED_ERR", "UNDEFINED_ERR", "RX_BUF_OVERRUN or CQ_ERR",
	  "UNDEFINED_ERR" },
};

static const char *const source_names[8] = {
	"SOURCE_NOT_DONE", "SOURCE_SSID_SREQ", "SOURCE_SSID_DREQ",
	"SOURCE_SSID_SRSP", "SOURCE_BTE", "SOURCE_RMT_SREQ",
	"SOURCE_RMT_DREQ", "SOURCE_RMT_SRSP",
};

static void test_cq_error_str(void)
{
	char buf[256], want[256];
	int src, st, bad = 0;
	gni_cq_entry_t e;

	for (src = 1; src <= 7; src++) {
		for (st = 0; st <= 15; st++) {
			e = GEMINI_CQE(src, st, 0x123456789abcdull);
			memset(buf, 0x5a, sizeof(buf));
			snprintf(want, sizeof(want), "%s:%s", source_names[src],
				 status_names[st][src - 1]);
			if (GNI_CqErrorStr(e, buf, sizeof(buf)) != GNI_RC_SUCCESS ||
			    strcmp(buf, want)) {
				bad++;
				printf("# source %d status 0x%x: \"%.60s\", want \"%s\"\n",
				       src, st, buf, want);
			}
		}
	}
	tap_ok(!bad, "GNI_CqErrorStr: 112 (source, status) pairs match §8.3");
	e = GEMINI_CQE(0, 0x2, 0);
	tap_ok(GNI_CqErrorStr(e, buf, sizeof(buf)) == GNI_RC_SUCCESS &&
	       !strcmp(buf, "SOURCE_NOT_DONE:UNDEFINED_ERR"),
	       "GNI_CqErrorStr of an unwritten entry: %s", buf);
	e = GEMINI_CQE(2, 0xE, 0);
	tap_ok(GNI_CqErrorStr(e, buf, 10) == GNI_RC_SIZE_ERROR,
	       "GNI_CqErrorStr: short buffer -> SIZE_ERROR");
	tap_ok(GNI_CqErrorStr(e, buf, strlen("SOURCE_SSID_DREQ:BTE_SEND_MISS_ERR")) ==
	       GNI_RC_SIZE_ERROR, "GNI_CqErrorStr: no room for the NUL -> SIZE_ERROR");
	tap_ok(GNI_CqErrorStr(e, buf, strlen("SOURCE_SSID_DREQ:BTE_SEND_MISS_ERR") + 1) ==
	       GNI_RC_SUCCESS, "GNI_CqErrorStr: exact fit");
	tap_ok(GNI_CqErrorStr(e, NULL, 256) == GNI_RC_INVALID_PARAM,
	       "GNI_CqErrorStr: NULL buffer -> INVALID_PARAM");
	e |= GEMINI_CQE_OVERRUN;
	tap_ok(GNI_CqErrorStr(e, buf, sizeof(buf)) == GNI_RC_SUCCESS &&
	       !strcmp(buf, "SOURCE_SSID_DREQ:BTE_SEND_MISS_ERR"),
	       "GNI_CqErrorStr ignores overrun and data");
}

/* gemini-hw.md §8.4, row by row as written there */
static const char *const recov_rows[7] = {
	"– | U | U | U | U | U | U | U | U | R | R | U | R | U | –",
	"U | R | U | U | U | U | U | U | U | U | R | U | R | R | U",
	"– | – | U | U | U | U | U | U | U | U | R | U | R | U | –",
	"– | U | U | U | U | U | U | U | U | R | R | – | R | U | –",
	"– | R | U | U | U | U | U | U | U | R | R | U | R | U | –",
	"U | R | U | U | U | U | U | U | U | U | R | U | R | R | U",
	"– | – | – | U | U | U | U | U | U | U | R | U | – | R | –",
};

static char recov_cell(int src, int st)
{
	const char *p = recov_rows[src - 1];
	int col = 1;

	for (; *p; p++) {
		if (*p == '|') {
			col++;
			continue;
		}
		if (col == st && (*p == 'U' || *p == 'R'))
			return *p;
		if (col == st && (unsigned char)*p == 0xe2)
			return '-';
	}
	return '?';
}

static void test_cq_recoverable(void)
{
	int src, st, bad = 0, cells = 0;
	uint32_t r;
	gni_return_t rc;

	for (src = 1; src <= 7; src++) {
		for (st = 1; st <= 15; st++) {
			char want = recov_cell(src, st);

			cells++;
			r = 0xdead;
			rc = GNI_CqErrorRecoverable(GEMINI_CQE(src, st, 0), &r);
			if (want == '-' ? rc != GNI_RC_INVALID_STATE || r != 0xdead :
			    rc != GNI_RC_SUCCESS || r != (want == 'R')) {
				bad++;
				printf("# source %d status 0x%x: rc %d r %u want %c\n",
				       src, st, rc, r, want);
			}
		}
	}
	tap_ok(!bad && cells == 105, "GNI_CqErrorRecoverable: %d cells match §8.4", cells);
	for (st = 0, bad = 0; st <= 15; st++)
		bad += GNI_CqErrorRecoverable(GEMINI_CQE(0, st, 0), &r) !=
		       GNI_RC_INVALID_STATE;
	for (src = 0; src <= 7; src++)
		bad += GNI_CqErrorRecoverable(GEMINI_CQE(src, 0, 0), &r) !=
		       GNI_RC_INVALID_STATE;
	tap_ok(!bad, "GNI_CqErrorRecoverable: status 0 and source 0 are INVALID_STATE");
	tap_ok(GNI_CqErrorRecoverable(GEMINI_CQE(1, 0xA, 0), NULL) ==
	       GNI_RC_INVALID_PARAM, "GNI_CqErrorRecoverable: NULL -> INVALID_PARAM");
	r = 7;
	tap_ok(GNI_CqErrorRecoverable(GEMINI_CQE(1, 0xA, 0) | GEMINI_CQE_OVERRUN, &r) ==
	       GNI_RC_SUCCESS && r == 1, "recoverable with the overrun bit set");
}

static void test_cq_accessors(void)
{
	/* vgemini's data layout: type 55..54, id 47..16, tid 15..0 */
	uint64_t data = (GNI_CQ_EVENT_TYPE_SMSG << 54) |
			(0xfedcba98ull << 16) | 0x4321;
	gni_cq_entry_t e = GEMINI_CQE(GEMINI_CQE_SRC_SSID_SREQ, 0, data);
	gni_cq_entry_t w = GEMINI_CQE(GEMINI_CQE_SRC_RMT_SREQ, 0xB, 0);

	EQ(GNI_CQ_GET_SOURCE(e), GEMINI_CQE_SRC_SSID_SREQ);
	EQ(GNI_CQ_GET_STATUS(e), 0);
	EQ(GNI_CQ_STATUS_OK(e), 1);
	EQ(GNI_CQ_OVERRUN(e), 0);
	EQ(GNI_CQ_GET_DATA(e), data);
	EQ(GNI_CQ_GET_TYPE(e), GNI_CQ_EVENT_TYPE_SMSG);
	EQ(GNI_CQ_GET_INST_ID(e), 0xfedcba98);
	EQ(GNI_CQ_GET_REM_INST_ID(e), 0xfedcba98);
	EQ(GNI_CQ_GET_MSG_ID(e), 0xfedcba98);
	EQ(GNI_CQ_GET_TID(e), 0x4321);
	EQ(GNI_CQ_GET_SOURCE(w), GEMINI_CQE_SRC_RMT_SREQ);
	EQ(GNI_CQ_GET_STATUS(w), 0xB);
	EQ(GNI_CQ_STATUS_OK(w), 0);
	EQ(GNI_CQ_OVERRUN(w | GEMINI_CQE_OVERRUN), 1);
	EQ(GNI_CQ_GET_DATA(GEMINI_CQE(7, 0xF, ~0ull) | GEMINI_CQE_OVERRUN),
	   GEMINI_CQE_DATA_MASK);
	/* a CQ write delivers 48 bits of cqwrite_value as the data */
	EQ(GNI_CQ_GET_DATA(GEMINI_CQE(GEMINI_CQE_SRC_RMT_SREQ, 0,
				      0x0000a5a5deadbeefull)),
	   0x0000a5a5deadbeefull);
	EQ(GNI_CQ_GET_INFO(e) | GNI_CQ_REM_OVERRUN(e) | GNI_CQ_GET_BLOCK_ID(e) |
	   GNI_CQ_GET_UNSUCCESSFUL_CNT(e) | GNI_CQ_GET_MARKER_ID(e) |
	   GNI_CQ_GET_FAILED_ENQUEUE_CNT(e) | GNI_CQ_GET_CE_ID(e) |
	   GNI_CQ_GET_REDUCTN_ID(e) | GNI_CQ_GET_TRANS_TYPE(e) |
	   GNI_CQ_STATUS_DLA_OVERFLOW(e) | GNI_CQ_BTE_ENQ_STATUS(e), 0);

	w = GEMINI_CQE(GEMINI_CQE_SRC_BTE, 0xD, 0) | GEMINI_CQE_OVERRUN;
	GNI_CQ_SET_INST_ID(w, 0x11223344);
	GNI_CQ_SET_TID(w, 0x10077);
	GNI_CQ_SET_TYPE(w, GNI_CQ_EVENT_TYPE_MSGQ);
	EQ(GNI_CQ_GET_INST_ID(w), 0x11223344);
	EQ(GNI_CQ_GET_TID(w), 0x0077);
	EQ(GNI_CQ_GET_TYPE(w), GNI_CQ_EVENT_TYPE_MSGQ);
	EQ(GNI_CQ_GET_SOURCE(w), GEMINI_CQE_SRC_BTE);
	EQ(GNI_CQ_GET_STATUS(w), 0xD);
	GNI_CQ_SET_MSG_ID(w, 0xffffffffull);
	EQ(GNI_CQ_GET_MSG_ID(w), 0xffffffffull);
	GNI_CQ_SET_REM_INST_ID(w, 5);
	EQ(GNI_CQ_GET_REM_INST_ID(w), 5);
	GNI_CQ_CLR_STATUS(w);
	EQ(GNI_CQ_GET_STATUS(w), 0);
	EQ(GNI_CQ_OVERRUN(w), 1);
	EQ(w, GEMINI_CQE(GEMINI_CQE_SRC_BTE, 0, (3ull << 54) | (5ull << 16) | 0x77) |
	      GEMINI_CQE_OVERRUN);
}

static void test_info(void)
{
	gni_version_info_t vi;
	gni_nic_device_t dev = GNI_DEVICE_LAST;
	uint32_t v = 0;

	tap_ok(GNI_GetVersion(&v) == GNI_RC_SUCCESS && v == GNI_VERSION,
	       "GNI_GetVersion = 0x%x", v);
	tap_ok(GNI_GetVersion(NULL) == GNI_RC_INVALID_PARAM, "GNI_GetVersion(NULL)");
	memset(&vi, 0x5a, sizeof(vi));
	tap_ok(GNI_GetVersionInformation(&vi) == GNI_RC_SUCCESS &&
	       vi.ugni_version == GNI_VERSION &&
	       memchr(vi.ugni_build_string, 0, MAX_BUILD_STRING_LENGTH) &&
	       vi.ugni_build_string[0] &&
	       memchr(vi.kgni_build_string, 0, MAX_BUILD_STRING_LENGTH),
	       "GNI_GetVersionInformation: ugni 0x%x \"%s\"", vi.ugni_version,
	       vi.ugni_build_string);
	/* libfabric's rule: major > compiled or equal major and minor >= */
	tap_ok(GNI_GET_MAJOR(vi.ugni_version) == GNI_MAJOR_REV &&
	       GNI_GET_MINOR(vi.ugni_version) >= GNI_MINOR_REV,
	       "library version acceptable to the header it ships");
	tap_ok(GNI_GetVersionInformation(NULL) == GNI_RC_INVALID_PARAM,
	       "GNI_GetVersionInformation(NULL)");
	tap_ok(GNI_GetDeviceType(&dev) == GNI_RC_SUCCESS && dev == GNI_DEVICE_GEMINI,
	       "GNI_GetDeviceType = GEMINI");
	tap_ok(GNI_GetDeviceType(NULL) == GNI_RC_INVALID_PARAM, "GNI_GetDeviceType(NULL)");
}

static void test_memhndl(void)
{
	/* ugni-api.md §18.4 test vectors */
	gni_mem_handle_t v1 = { 0x00500007f1234567ull, 0x32000000c0000003ull };
	gni_mem_handle_t nf = { 0x00000007f1234567ull, 0x7c048e1150000010ull };
	gni_mem_handle_t zero = { 0, 0 }, bad = v1;
	int yes = -1;

	EQ(GNI_MEMHNDL_GET_VA(v1), 0x00007f1234567000ull);
	EQ(GNI_MEMHNDL_GET_MDH(v1), 5);
	EQ(GNI_MEMHNDL_GET_NPAGES(v1), 3);
	EQ(GNI_MEMHNDL_GET_PAGESIZE(v1), 4096);
	EQ(GNI_MEMHNDL_GET_CRC(v1), 0x32);
	EQ(GNI_MEMHNDL_NEW_FORMAT(nf), 1);
	EQ(GNI_MEMHNDL_GET_MDH(nf), 0x123);
	EQ(GNI_MEMHNDL_GET_VA(nf), 0x00007f1234567000ull);
	EQ(GNI_MEMHNDL_GET_PAGESIZE(nf), 2u << 20);
	EQ(GNI_MEMHNDL_GET_FLAGS(nf), 0x84);
	tap_ok(GNI_MemHndlQueryAttr(&v1, GNI_MEMHNDL_ATTR_READONLY, &yes) ==
	       GNI_RC_SUCCESS && yes == 0, "QueryAttr READONLY of v1 vector: no");
	tap_ok(GNI_MemHndlQueryAttr(&nf, GNI_MEMHNDL_ATTR_MRT, &yes) ==
	       GNI_RC_SUCCESS && yes == 1, "QueryAttr MRT of new-format vector: yes");
	tap_ok(GNI_MemHndlQueryAttr(&nf, GNI_MEMHNDL_ATTR_VMDH, &yes) ==
	       GNI_RC_SUCCESS && yes == 0, "QueryAttr VMDH of new-format vector: no");
	tap_ok(GNI_MemHndlQueryAttr(&zero, GNI_MEMHNDL_ATTR_CLONE, &yes) ==
	       GNI_RC_SUCCESS && yes == 0, "QueryAttr of the zero handle (CRC 0)");
	bad.qword2 ^= 1ull << 56;
	tap_ok(GNI_MemHndlQueryAttr(&bad, GNI_MEMHNDL_ATTR_READONLY, &yes) ==
	       GNI_RC_INVALID_PARAM, "QueryAttr: bad CRC -> INVALID_PARAM");
	tap_ok(GNI_MemHndlQueryAttr(&v1, (gni_mem_handle_attr_t)8, &yes) ==
	       GNI_RC_INVALID_PARAM, "QueryAttr: bad attribute -> INVALID_PARAM");
	tap_ok(GNI_MemHndlQueryAttr(&v1, GNI_MEMHNDL_ATTR_READONLY, NULL) ==
	       GNI_RC_INVALID_PARAM, "QueryAttr: NULL -> INVALID_PARAM");
}

/* gni_pub.h's accessors read the fields where uapi/gemini_mh.h puts them. */
static void test_memhndl_layout(void)
{
	gni_mem_handle_t h, nf;

	h.qword1 = (0x7f1234567000ull >> GEMINI_MH_VA_SHIFT) |
		   0xabcull << GEMINI_MH_MDH_SHIFT;
	h.qword2 = 77 | 21ull << GEMINI_MH_PSIZE_SHIFT |
		   (uint64_t)GEMINI_MH_FLAG_READONLY << GEMINI_MH_FLAGS_SHIFT;
	h.qword2 |= (uint64_t)gemini_mh_crc(h.qword1, h.qword2) <<
		    GEMINI_MH_CRC_SHIFT;
	EQ(GNI_MEMHNDL_GET_VA(h), 0x7f1234567000ull);
	EQ(GNI_MEMHNDL_GET_MDH(h), 0xabc);
	EQ(GNI_MEMHNDL_GET_NPAGES(h), 77);
	EQ(GNI_MEMHNDL_GET_PAGESIZE(h), 1ull << 21);
	EQ(GNI_MEMHNDL_GET_FLAGS(h), GEMINI_MH_FLAG_READONLY);
	EQ(GNI_MEMHNDL_GET_CRC(h), gemini_mh_crc(h.qword1, h.qword2));
	nf = h;
	nf.qword2 = (uint64_t)(GEMINI_MH_FLAG_NEW_FRMT | GEMINI_MH_FLAG_MRT) <<
		    GEMINI_MH_FLAGS_SHIFT | 0x5a5ull << GEMINI_MH_NEW_MDH_SHIFT;
	EQ(GNI_MEMHNDL_GET_MDH(nf), 0x5a5);
	/* the spec's test vectors (§18.4) */
	EQ(gemini_mh_crc(0x00500007f1234567ull, 0x32000000c0000003ull), 0x32);
	EQ(gemini_mh_crc(0x00000007f1234567ull, 0x7c048e1150000010ull), 0x7c);
	EQ(gemini_mh_crc(0, 0), 0);
}

static void test_unimplemented(void)
{
	gni_ce_result_t res = { 0, 0, 0 };
	int bad = 0, n = 0;

#define STUB(fn, args) do { \
		gni_return_t rc = fn args; \
		n++; \
		if (rc != GNI_RC_ILLEGAL_OP) { \
			bad++; \
			printf("# %s returned %d\n", #fn, rc); \
		} \
	} while (0);
#include "stub_calls.h"
#undef STUB
	tap_ok(!bad && n == 7, "%d functions vgemini does not offer return "
	       "GNI_RC_ILLEGAL_OP", n);
	tap_ok(gni_ce_res_status_ok(&res) == 0 &&
	       gni_ce_res_get_status(&res) == GNI_RC_ILLEGAL_OP,
	       "CE results never report success on Gemini");
}

/* MSGQ's checks that need no NIC (the queue itself runs in the guests) */
static void test_msgq_args(void)
{
	gni_msgq_attr_t a = { .max_msg_sz = 64, .smsg_q_sz = 8,
			      .num_msgq_eps = 3, .nloc_insts = 2,
			      .modes = GNI_MSGQ_MODE_BLOCKING };
	gni_msgq_attr_t big = a, bad;
	gni_msgq_ep_attr_t ea;
	gni_msgq_handle_t h;
	uint32_t size = 0, size_big = 0, n;
	int refused = 0;

	gni_return_t rc, rc_big;

	big.smsg_q_sz = 65536;
	rc = GNI_MsgqSize(&a, &size);
	rc_big = GNI_MsgqSize(&big, &size_big);
	tap_ok(rc == GNI_RC_SUCCESS && size && size % (2u << 20) == 0,
	       "GNI_MsgqSize: a multiple of the 2 MiB huge page (%u)", size);
	tap_ok(rc_big == GNI_RC_SUCCESS && size_big > size &&
	       size_big % (2u << 20) == 0,
	       "GNI_MsgqSize grows with smsg_q_sz (%u)", size_big);
	bad = a, bad.max_msg_sz = GNI_MSGQ_MSG_SZ_MAX + 1;
	refused += GNI_MsgqSize(&bad, &n) == GNI_RC_INVALID_PARAM;
	bad = a, bad.smsg_q_sz = 3;
	refused += GNI_MsgqSize(&bad, &n) == GNI_RC_INVALID_PARAM;
	bad = a, bad.nloc_insts = GNI_MSGQ_NODE_INSTS_MAX + 1;
	refused += GNI_MsgqSize(&bad, &n) == GNI_RC_INVALID_PARAM;
	bad = a, bad.num_msgq_eps = 0;
	refused += GNI_MsgqSize(&bad, &n) == GNI_RC_INVALID_PARAM;
	bad = a, bad.modes = 0x80;
	refused += GNI_MsgqSize(&bad, &n) == GNI_RC_INVALID_PARAM;
	bad = a, bad.num_msgq_eps = 1u << 20;	/* past 4 GiB */
	refused += GNI_MsgqSize(&bad, &n) == GNI_RC_INVALID_PARAM;
	refused += GNI_MsgqSize(NULL, &n) == GNI_RC_INVALID_PARAM;
	refused += GNI_MsgqSize(&a, NULL) == GNI_RC_INVALID_PARAM;
	refused += GNI_MsgqInit(NULL, NULL, NULL, NULL, &a, &h) ==
		   GNI_RC_INVALID_PARAM;
	refused += GNI_MsgqRelease(NULL) == GNI_RC_INVALID_PARAM;
	refused += GNI_MsgqIdle(NULL) == GNI_RC_INVALID_PARAM;
	refused += GNI_MsgqGetConnAttrs(NULL, 1, &ea, &n) ==
		   GNI_RC_INVALID_PARAM;
	refused += GNI_MsgqConnect(NULL, 1, &ea) == GNI_RC_INVALID_PARAM;
	refused += GNI_MsgqConnRelease(NULL, 1) == GNI_RC_INVALID_PARAM;
	refused += GNI_MsgqSend(NULL, NULL, NULL, 0, NULL, 0, 0, 0) ==
		   GNI_RC_INVALID_PARAM;
	refused += GNI_MsgqProgress(NULL, 0) == GNI_RC_INVALID_PARAM;
	tap_ok(refused == 16, "MSGQ: bad attributes and NULL handles are "
	       "GNI_RC_INVALID_PARAM (%d of 16)", refused);
}

/* --- against the fake kernel (fake_kgni.c) ------------------------------- */

#define RVA		0x7f0000100000ull	/* a peer's registration */
#define RRO_VA		0x7f0000200000ull	/* a peer's, read-only */
#define INST_ID		42
#define PEER_PE		0x2345
#define PEER_ID		7
#define RDMA_CMD	FAKE_CMD(KGNI_IOC_RDMA_POST)
#define SEGS_CMD	FAKE_CMD(KGNI_IOC_MEM_REGISTER_SEGMENTS)

static const char *rc_name(gni_return_t rc)
{
	return (unsigned int)rc <= GNI_RC_ERROR_NOMEM ? gni_err_str[rc] : "?";
}

/* A NIC of its own CDM, a CQ, an endpoint bound to PEER_PE, handles */
struct env {
	gni_cdm_handle_t cdm;
	gni_nic_handle_t nic;
	gni_cq_handle_t cq;
	gni_ep_handle_t ep;
	gni_mem_handle_t lmh;		/* buf[0, 8 KiB), read-write */
	gni_mem_handle_t lro;		/* buf[8 KiB, 12 KiB), read-only */
	gni_mem_handle_t rmh, rro;	/* a peer's, RVA and RRO_VA */
	uint8_t *buf;
};

static gni_mem_handle_t handle_of(uint64_t va, uint32_t mdh, uint8_t flags)
{
	gni_mem_handle_t h;
	__u64 w[2];

	fake_handle(va, mdh, 4, flags, w);
	h.qword1 = w[0];
	h.qword2 = w[1];
	return h;
}

static int env_open(struct env *e, uint32_t modes)
{
	gni_return_t rc;
	uint32_t addr = 0;

	memset(e, 0, sizeof(*e));
	e->buf = aligned_alloc(4096, 3 * 4096);
	rc = GNI_CdmCreate(INST_ID, 5, 0xc0c0, modes, &e->cdm);
	if (rc == GNI_RC_SUCCESS)
		rc = GNI_CdmAttach(e->cdm, 0, &addr, &e->nic);
	if (rc == GNI_RC_SUCCESS)
		rc = GNI_CqCreate(e->nic, 16, 0, GNI_CQ_NOBLOCK, NULL, NULL,
				  &e->cq);
	if (rc == GNI_RC_SUCCESS)
		rc = GNI_EpCreate(e->nic, e->cq, &e->ep);
	if (rc == GNI_RC_SUCCESS)
		rc = GNI_EpBind(e->ep, PEER_PE, PEER_ID);
	if (rc == GNI_RC_SUCCESS)
		rc = GNI_MemRegister(e->nic, (uint64_t)(uintptr_t)e->buf, 8192,
				     NULL, GNI_MEM_READWRITE, -1, &e->lmh);
	if (rc == GNI_RC_SUCCESS)
		rc = GNI_MemRegister(e->nic,
				     (uint64_t)(uintptr_t)e->buf + 8192, 4096,
				     NULL, GNI_MEM_READ_ONLY, -1, &e->lro);
	e->rmh = handle_of(RVA, 300, GNI_MEMHNDL_FLAG_GART);
	e->rro = handle_of(RRO_VA, 301, GNI_MEMHNDL_FLAG_GART |
			   GNI_MEMHNDL_FLAG_READONLY);
	return tap_ok(rc == GNI_RC_SUCCESS && e->buf && addr == FAKE_NIC_PE,
		      "fake kernel: CDM (modes 0x%x) attached, CQ, endpoint "
		      "bound, two registrations: %s", modes, rc_name(rc));
}

static void env_close(struct env *e)
{
	GNI_EpUnbind(e->ep);
	GNI_EpDestroy(e->ep);
	GNI_CdmDestroy(e->cdm);
	free(e->buf);
}

/* A PUT or GET of @len bytes from buf + 64 to RVA + 128 */
static void rdesc(struct env *e, gni_post_descriptor_t *d,
		  gni_post_type_t type, uint16_t cq_mode, uint64_t len)
{
	memset(d, 0, sizeof(*d));
	d->type = type;
	d->cq_mode = cq_mode;
	d->local_addr = (uint64_t)(uintptr_t)e->buf + 64;
	d->local_mem_hndl = e->lmh;
	d->remote_addr = RVA + 128;
	d->remote_mem_hndl = e->rmh;
	d->length = len;
	d->post_id = 0x5150;
}

/* GNI_PostRdma refuses @d with @want, without an ioctl or a tid taken. */
static void refused(struct env *e, gni_ep_handle_t ep,
		    gni_post_descriptor_t *d, gni_return_t want,
		    const char *what)
{
	unsigned int calls = fake.calls[RDMA_CMD];
	uint32_t nfree = e->nic->core.nfree;
	uint32_t outstanding = e->ep->core.outstanding;
	gni_return_t rc = GNI_PostRdma(ep, d);

	tap_ok(rc == want && fake.calls[RDMA_CMD] == calls &&
	       e->nic->core.nfree == nfree &&
	       e->ep->core.outstanding == outstanding,
	       "GNI_PostRdma refuses %s: %s (want %s), no ioctl, no tid",
	       what, rc_name(rc), rc_name(want));
}

/* GNI_PostRdma makes its ioctl and succeeds. */
static int posted(gni_ep_handle_t ep, gni_post_descriptor_t *d,
		  const char *what)
{
	unsigned int calls = fake.calls[RDMA_CMD];
	int bad = fake.bad_size;
	gni_return_t rc = GNI_PostRdma(ep, d);

	return tap_ok(rc == GNI_RC_SUCCESS &&
		      fake.calls[RDMA_CMD] == calls + 1 &&
		      fake.bad_size == bad, "GNI_PostRdma %s: %s, one "
		      "KGNI_IOC_RDMA_POST", what, rc_name(rc));
}

static uint64_t tid_of(uint64_t data)
{
	return data >> 0 & 0xffff;
}

/* The event data libugni gives a post of @ep with @tid */
static uint64_t data_of(uint32_t remote_event, uint64_t tid)
{
	return (uint64_t)GNI_CQ_EVENT_TYPE_POST << 54 |
	       (uint64_t)remote_event << 16 | tid;
}

static void test_rdma_refusals(void)
{
	gni_post_descriptor_t d;
	struct env e, s;
	gni_ep_handle_t unbound, nocq;
	gni_cq_handle_t rcq;
	gni_mem_handle_t rmh_reg;
	uint32_t nfree;

	if (!env_open(&e, 0))
		return;
	rdesc(&e, &d, GNI_POST_RDMA_PUT, GNI_CQMODE_GLOBAL_EVENT, 100);
	refused(&e, NULL, &d, GNI_RC_INVALID_PARAM, "a NULL endpoint");
	refused(&e, e.ep, NULL, GNI_RC_INVALID_PARAM, "a NULL descriptor");
	d.type = GNI_POST_FMA_PUT;
	refused(&e, e.ep, &d, GNI_RC_INVALID_PARAM, "type FMA_PUT");
	d.type = GNI_POST_CQWRITE;
	refused(&e, e.ep, &d, GNI_RC_INVALID_PARAM, "type CQWRITE");
	d.type = (gni_post_type_t)0;
	refused(&e, e.ep, &d, GNI_RC_INVALID_PARAM, "type 0");
	rdesc(&e, &d, GNI_POST_RDMA_PUT, GNI_CQMODE_GLOBAL_EVENT, 0);
	refused(&e, e.ep, &d, GNI_RC_INVALID_PARAM, "a PUT of 0 bytes");
	d.type = GNI_POST_RDMA_GET;
	refused(&e, e.ep, &d, GNI_RC_INVALID_PARAM, "a GET of 0 bytes");
	d.length = 1ull << 32;
	refused(&e, e.ep, &d, GNI_RC_INVALID_PARAM, "a GET of 4 GiB");
	d.type = GNI_POST_RDMA_PUT;
	refused(&e, e.ep, &d, GNI_RC_INVALID_PARAM, "a PUT of 4 GiB");

	rdesc(&e, &d, GNI_POST_RDMA_GET, GNI_CQMODE_GLOBAL_EVENT, 6);
	refused(&e, e.ep, &d, GNI_RC_ALIGNMENT_ERROR, "a GET of 6 bytes");
	rdesc(&e, &d, GNI_POST_RDMA_GET, GNI_CQMODE_GLOBAL_EVENT, 8);
	d.remote_addr += 2;
	refused(&e, e.ep, &d, GNI_RC_ALIGNMENT_ERROR,
		"a GET from a remote address 2 mod 4");
	rdesc(&e, &d, GNI_POST_RDMA_GET, GNI_CQMODE_GLOBAL_EVENT, 8);
	d.local_addr += 1;
	refused(&e, e.ep, &d, GNI_RC_ALIGNMENT_ERROR,
		"a GET into an odd local address");
	/* alignment comes before the rest: even with a bad handle */
	d.remote_mem_hndl.qword2 ^= 1ull << 60;
	refused(&e, e.ep, &d, GNI_RC_ALIGNMENT_ERROR,
		"a misaligned GET with a forged handle");

	rdesc(&e, &d, GNI_POST_RDMA_PUT, 0x8, 8);
	refused(&e, e.ep, &d, GNI_RC_INVALID_PARAM, "cq_mode 0x8");
	d.cq_mode = GNI_CQMODE_DUAL_EVENTS;
	refused(&e, e.ep, &d, GNI_RC_INVALID_PARAM,
		"LOCAL | GLOBAL without GNI_CDM_MODE_DUAL_EVENTS");
	d.cq_mode = GNI_CQMODE_DUAL_EVENTS;
	d.type = GNI_POST_FMA_PUT;
	tap_ok(GNI_PostFma(e.ep, &d) == GNI_RC_INVALID_PARAM,
	       "GNI_PostFma: LOCAL | GLOBAL without DUAL_EVENTS is "
	       "INVALID_PARAM, as before");

	rdesc(&e, &d, GNI_POST_RDMA_PUT, GNI_CQMODE_GLOBAL_EVENT, 8);
	d.rdma_mode = GNI_RDMAMODE_PHYS_ADDR;
	refused(&e, e.ep, &d, GNI_RC_INVALID_PARAM, "GNI_RDMAMODE_PHYS_ADDR");
	d.rdma_mode = 0x8;
	refused(&e, e.ep, &d, GNI_RC_INVALID_PARAM, "rdma_mode 0x8");
	d.rdma_mode = 0x100;
	refused(&e, e.ep, &d, GNI_RC_INVALID_PARAM, "rdma_mode 0x100");
	d.rdma_mode = GNI_RDMAMODE_FENCE;
	refused(&e, e.ep, &d, GNI_RC_INVALID_PARAM,
		"FENCE without GNI_CDM_MODE_BTE_SINGLE_CHANNEL");

	rdesc(&e, &d, GNI_POST_RDMA_PUT, GNI_CQMODE_GLOBAL_EVENT, 8);
	d.remote_mem_hndl = e.rro;
	d.remote_addr = RRO_VA;
	refused(&e, e.ep, &d, GNI_RC_PERMISSION_ERROR,
		"a PUT to a read-only remote handle");
	rdesc(&e, &d, GNI_POST_RDMA_GET, GNI_CQMODE_GLOBAL_EVENT, 8);
	d.local_mem_hndl = e.lro;
	d.local_addr = (uint64_t)(uintptr_t)e.buf + 8192;
	refused(&e, e.ep, &d, GNI_RC_PERMISSION_ERROR,
		"a GET into a read-only local handle");
	rdesc(&e, &d, GNI_POST_RDMA_PUT, GNI_CQMODE_GLOBAL_EVENT, 8);
	d.remote_mem_hndl.qword2 ^= 1ull << 60;
	refused(&e, e.ep, &d, GNI_RC_INVALID_PARAM,
		"a remote handle with a bad CRC");
	rdesc(&e, &d, GNI_POST_RDMA_PUT, GNI_CQMODE_GLOBAL_EVENT, 8);
	d.local_mem_hndl.qword1 ^= 1;
	refused(&e, e.ep, &d, GNI_RC_INVALID_PARAM,
		"a local handle with a bad CRC");
	rdesc(&e, &d, GNI_POST_RDMA_PUT, GNI_CQMODE_GLOBAL_EVENT, 8);
	d.remote_addr = RVA - 4;
	refused(&e, e.ep, &d, GNI_RC_INVALID_PARAM,
		"a remote address below its handle's");
	rdesc(&e, &d, GNI_POST_RDMA_PUT, GNI_CQMODE_GLOBAL_EVENT, 8);
	d.local_addr = 4096;
	refused(&e, e.ep, &d, GNI_RC_INVALID_PARAM,
		"a local address below its handle's");

	/* the source CQ */
	GNI_EpCreate(e.nic, NULL, &nocq);
	GNI_EpBind(nocq, PEER_PE, PEER_ID);
	rdesc(&e, &d, GNI_POST_RDMA_PUT, GNI_CQMODE_LOCAL_EVENT, 8);
	refused(&e, nocq, &d, GNI_RC_INVALID_PARAM,
		"LOCAL with no src_cq_hndl and an endpoint without a CQ");
	d.cq_mode = GNI_CQMODE_GLOBAL_EVENT;
	refused(&e, nocq, &d, GNI_RC_INVALID_PARAM,
		"GLOBAL with no src_cq_hndl and an endpoint without a CQ");
	GNI_CqCreate(e.nic, 4, 0, GNI_CQ_NOBLOCK, NULL, NULL, &rcq);
	GNI_MemRegister(e.nic, (uint64_t)(uintptr_t)e.buf, 64, rcq,
			GNI_MEM_READWRITE, -1, &rmh_reg);
	d.src_cq_hndl = rcq;
	refused(&e, e.ep, &d, GNI_RC_INVALID_PARAM,
		"a remote-event CQ (dst_cq_hndl of a registration) as "
		"src_cq_hndl");
	GNI_MemDeregister(e.nic, &rmh_reg);
	GNI_CqDestroy(rcq);
	GNI_EpDestroy(nocq);

	GNI_EpCreate(e.nic, e.cq, &unbound);
	rdesc(&e, &d, GNI_POST_RDMA_PUT, GNI_CQMODE_GLOBAL_EVENT, 8);
	refused(&e, unbound, &d, GNI_RC_INVALID_STATE, "an unbound endpoint");
	GNI_EpDestroy(unbound);

	/* the request table full: only posts that want an event fail */
	nfree = e.nic->core.nfree;
	e.nic->core.nfree = 0;
	rdesc(&e, &d, GNI_POST_RDMA_PUT, GNI_CQMODE_GLOBAL_EVENT, 8);
	refused(&e, e.ep, &d, GNI_RC_ERROR_RESOURCE,
		"a post with an event when every tid is taken");
	d.cq_mode = GNI_CQMODE_REMOTE_EVENT;
	posted(e.ep, &d, "of a post with a remote event only when every tid "
	       "is taken");
	e.nic->core.nfree = nfree;
	env_close(&e);

	/* single-channel CDM: FMA still refuses dual events (ILLEGAL_OP) */
	if (!env_open(&s, GNI_CDM_MODE_DUAL_EVENTS))
		return;
	rdesc(&s, &d, GNI_POST_FMA_PUT, GNI_CQMODE_DUAL_EVENTS, 8);
	tap_ok(GNI_PostFma(s.ep, &d) == GNI_RC_ILLEGAL_OP,
	       "GNI_PostFma: LOCAL | GLOBAL with DUAL_EVENTS is ILLEGAL_OP "
	       "(the FMA raises one event)");
	env_close(&s);
}

static void test_rdma_ioctl(void)
{
	gni_post_descriptor_t d;
	struct kgni_rdma_post *p = &fake.post;
	struct env e, s;
	gni_ep_handle_t nocq;
	gni_cq_handle_t cq2;
	uint64_t tid;

	if (!env_open(&e, 0))
		return;
	rdesc(&e, &d, GNI_POST_RDMA_PUT, GNI_CQMODE_GLOBAL_EVENT, 1001);
	d.local_addr += 3;	/* a PUT takes any alignment */
	d.remote_addr += 1;
	if (posted(e.ep, &d, "PUT of 1001 bytes, both addresses odd")) {
		tid = tid_of(p->global_data);
		CHECK_EQ(p->size, sizeof(*p));
		CHECK_EQ(p->flags, 0);
		CHECK_EQ(p->type, KGNI_RDMA_PUT);
		CHECK_EQ(p->events, KGNI_RDMA_EV_GLOBAL);
		CHECK_EQ(p->remote_pe, PEER_PE);
		CHECK_EQ(p->cq_id, e.cq->core.id);
		CHECK_EQ(p->dlvr_mode, 0);
		CHECK_EQ(p->reserved, 0);
		CHECK_EQ(p->local_addr, (uint64_t)(uintptr_t)e.buf + 67);
		CHECK_EQ(p->local_mem_hndl[0], e.lmh.qword1);
		CHECK_EQ(p->local_mem_hndl[1], e.lmh.qword2);
		CHECK_EQ(p->remote_addr, RVA + 129);
		CHECK_EQ(p->remote_mem_hndl[0], e.rmh.qword1);
		CHECK_EQ(p->remote_mem_hndl[1], e.rmh.qword2);
		CHECK_EQ(p->length, 1001);
		CHECK(tid < UGNI_MAX_REQS);
		CHECK_EQ(p->global_data, data_of(INST_ID, tid));
		CHECK_EQ(p->local_data, p->global_data | UGNI_CQE_LOCAL_FLAG);
		CHECK_EQ(UGNI_CQE_LOCAL_FLAG, 1ull << 48);
		CHECK_EQ(p->channel, 0);
		CHECK_EQ(p->slot, 0);
		CHECK(e.nic->core.req[tid].used &&
		      e.nic->core.req[tid].desc == &d &&
		      e.nic->core.req[tid].want == GNI_CQMODE_GLOBAL_EVENT);
		CHECK_EQ(e.ep->core.outstanding, 1);
		tap_test_end("KGNI_IOC_RDMA_POST of a PUT: size, type, events, "
			     "PE, CQ, addresses and handles as given, "
			     "global_data POST | remote_event << 16 | tid, "
			     "local_data the same | bit 48, out fields 0");
		tap_ok(GNI_EpUnbind(e.ep) == GNI_RC_NOT_DONE,
		       "GNI_EpUnbind while the post is outstanding: NOT_DONE");
		GNI_CqGetEvent(e.cq, &tid);	/* nothing there */
	}

	rdesc(&e, &d, GNI_POST_RDMA_GET, GNI_CQMODE_LOCAL_EVENT |
	      GNI_CQMODE_REMOTE_EVENT, 4096);
	d.dlvr_mode = GNI_DLVMODE_IN_ORDER | GNI_DLVMODE_ORDERED_TAIL;
	d.rdma_mode = GNI_RDMAMODE_GETWC_DIS;
	if (posted(e.ep, &d, "GET, LOCAL | REMOTE, IN_ORDER, GETWC_DIS")) {
		CHECK_EQ(p->type, KGNI_RDMA_GET);
		CHECK_EQ(p->events, KGNI_RDMA_EV_LOCAL | KGNI_RDMA_EV_REMOTE);
		CHECK_EQ(p->dlvr_mode, KGNI_RDMA_DLVR_NO_ADAPT |
			 KGNI_RDMA_DLVR_NO_HASH);
		CHECK_EQ(p->flags, 0);
		CHECK_EQ(p->length, 4096);
		tap_test_end("GET: LOCAL | REMOTE events, dlvr_mode's Gemini "
			     "bits only, GETWC_DIS ignored");
	}

	rdesc(&e, &d, GNI_POST_RDMA_PUT, GNI_CQMODE_REMOTE_EVENT, 0xffffffffull);
	d.dlvr_mode = GNI_DLVMODE_NO_RADAPT;
	GNI_EpSetEventData(e.ep, 5, 0x89abcdefu);
	if (posted(e.ep, &d, "PUT of 2^32 - 1 bytes, REMOTE only")) {
		CHECK_EQ(p->events, KGNI_RDMA_EV_REMOTE);
		CHECK_EQ(p->dlvr_mode, KGNI_RDMA_DLVR_NO_RADAPT);
		CHECK_EQ(p->length, 0xffffffffull);
		CHECK_EQ(p->global_data, data_of(0x89abcdefu, UGNI_TID_NONE));
		CHECK_EQ(p->local_data, p->global_data | UGNI_CQE_LOCAL_FLAG);
		CHECK_EQ(e.ep->core.outstanding, 2);
		tap_test_end("a post with no local event takes no tid (0xffff); "
			     "GNI_EpSetEventData's remote_event in the data");
	}

	GNI_CqCreate(e.nic, 8, 0, GNI_CQ_NOBLOCK, NULL, NULL, &cq2);
	rdesc(&e, &d, GNI_POST_RDMA_PUT, GNI_CQMODE_GLOBAL_EVENT, 8);
	d.src_cq_hndl = cq2;
	if (posted(e.ep, &d, "with src_cq_hndl"))
		tap_ok(p->cq_id == cq2->core.id, "src_cq_hndl's CQ (%u) gets the "
		       "events, not the endpoint's (%u)", p->cq_id, e.cq->core.id);
	GNI_EpCreate(e.nic, NULL, &nocq);
	GNI_EpBind(nocq, PEER_PE + 1, PEER_ID + 1);
	d.src_cq_hndl = NULL;
	d.cq_mode = GNI_CQMODE_SILENT;
	if (posted(nocq, &d, "silent, from an endpoint without a CQ"))
		tap_ok(p->cq_id == e.nic->null_cq->core.id && p->events == 0 &&
		       p->remote_pe == PEER_PE + 1,
		       "its error event would go to the hidden CQ (%u)",
		       p->cq_id);
	d.src_cq_hndl = cq2;
	d.cq_mode = GNI_CQMODE_GLOBAL_EVENT;
	if (posted(nocq, &d, "GLOBAL from an endpoint without a CQ, "
		   "src_cq_hndl given"))
		tap_ok(p->cq_id == cq2->core.id, "src_cq_hndl's CQ");
	GNI_EpDestroy(nocq);
	env_close(&e);

	if (!env_open(&s, GNI_CDM_MODE_BTE_SINGLE_CHANNEL |
		      GNI_CDM_MODE_DUAL_EVENTS))
		return;
	rdesc(&s, &d, GNI_POST_RDMA_PUT, GNI_CQMODE_DUAL_EVENTS, 8);
	if (posted(s.ep, &d, "LOCAL | GLOBAL with DUAL_EVENTS"))
		tap_ok(p->flags == KGNI_RDMA_SINGLE_CHANNEL &&
		       p->events == (KGNI_RDMA_EV_LOCAL | KGNI_RDMA_EV_GLOBAL) &&
		       s.nic->core.req[tid_of(p->global_data)].want ==
		       GNI_CQMODE_DUAL_EVENTS,
		       "single-channel CDM: KGNI_RDMA_SINGLE_CHANNEL on every "
		       "post; both events asked, both awaited");
	d.rdma_mode = GNI_RDMAMODE_FENCE;
	if (posted(s.ep, &d, "FENCE in single-channel mode"))
		tap_ok(p->flags == (KGNI_RDMA_SINGLE_CHANNEL | KGNI_RDMA_FENCE),
		       "flags SINGLE_CHANNEL | FENCE (0x%x)", p->flags);
	rdesc(&s, &d, GNI_POST_RDMA_GET, GNI_CQMODE_GLOBAL_EVENT, 8);
	d.remote_mem_hndl = s.rro;
	d.remote_addr = RRO_VA;
	posted(s.ep, &d, "GET from a read-only remote handle");
	rdesc(&s, &d, GNI_POST_RDMA_PUT, GNI_CQMODE_GLOBAL_EVENT, 8);
	d.local_mem_hndl = s.lro;
	d.local_addr = (uint64_t)(uintptr_t)s.buf + 8192;
	posted(s.ep, &d, "PUT from a read-only local handle");
	env_close(&s);
}

static void test_rdma_errno(void)
{
	static const struct {
		int err;
		gni_return_t rc;
	} map[] = {
		{ ENOSPC, GNI_RC_ERROR_RESOURCE },
		{ EACCES, GNI_RC_PERMISSION_ERROR },
		{ EINVAL, GNI_RC_INVALID_PARAM },
		{ EPERM, GNI_RC_PERMISSION_ERROR },
		{ ENOLINK, GNI_RC_INVALID_PARAM },
		{ EBUSY, GNI_RC_ERROR_RESOURCE },
		{ EFAULT, GNI_RC_INVALID_PARAM },
		{ ENODEV, GNI_RC_NO_MATCH },
		{ ENOMEM, GNI_RC_ERROR_NOMEM },
	};
	gni_post_descriptor_t d;
	struct env e;
	gni_return_t rc;
	uint32_t nfree;
	unsigned int i;

	if (!env_open(&e, 0))
		return;
	nfree = e.nic->core.nfree;
	for (i = 0; i < ARRAY_SIZE(map); i++) {
		rdesc(&e, &d, GNI_POST_RDMA_PUT, GNI_CQMODE_GLOBAL_EVENT, 64);
		fake.fail[RDMA_CMD] = map[i].err;
		rc = GNI_PostRdma(e.ep, &d);
		tap_ok(rc == map[i].rc && e.nic->core.nfree == nfree &&
		       !e.ep->core.outstanding && !e.nic->core.req[tid_of(
		       fake.post.global_data)].used,
		       "KGNI_IOC_RDMA_POST failing with %s: %s (want %s), "
		       "its tid free again", strerror(map[i].err), rc_name(rc),
		       rc_name(map[i].rc));
	}
	tap_ok(GNI_EpUnbind(e.ep) == GNI_RC_SUCCESS,
	       "GNI_EpUnbind after the failed posts: nothing outstanding");
	GNI_EpBind(e.ep, PEER_PE, PEER_ID);
	env_close(&e);
}

/* The device's event: BTE source, @status, @data */
static void device_event(struct env *e, gni_cq_handle_t cq, unsigned int status,
			 uint64_t data)
{
	(void)e;
	if (fake_cq_write(cq->core.id,
			  GEMINI_CQE(GEMINI_CQE_SRC_BTE, status, data)))
		printf("# fake_cq_write to CQ %u failed\n", cq->core.id);
}

/* The post's event, as GNI_CqGetEvent and GNI_GetCompleted give it */
struct got {
	gni_return_t ev_rc, gc_rc;
	gni_cq_entry_t ev;
	gni_post_descriptor_t *pd;
};

static void take(gni_cq_handle_t cq, struct got *g)
{
	memset(g, 0, sizeof(*g));
	g->ev_rc = GNI_CqGetEvent(cq, &g->ev);
	g->gc_rc = g->ev_rc == GNI_RC_NOT_DONE ? GNI_RC_NOT_DONE :
		   GNI_GetCompleted(cq, g->ev, &g->pd);
}

static void test_rdma_completions(void)
{
	gni_post_descriptor_t d, d2;
	struct env e, s;
	gni_cq_handle_t cq2;
	gni_ep_handle_t nocq;
	uint64_t gdata, ldata;
	uint32_t nfree;
	struct got g;

	if (!env_open(&e, 0))
		return;
	nfree = e.nic->core.nfree;

	/* GLOBAL: one event, the descriptor released */
	rdesc(&e, &d, GNI_POST_RDMA_PUT, GNI_CQMODE_GLOBAL_EVENT, 64);
	posted(e.ep, &d, "GLOBAL");
	device_event(&e, e.cq, 0, fake.post.global_data);
	take(e.cq, &g);
	CHECK_EQ(g.ev_rc, GNI_RC_SUCCESS);
	CHECK_EQ(GNI_CQ_GET_SOURCE(g.ev), GEMINI_CQE_SRC_BTE);
	CHECK_EQ(GNI_CQ_GET_TYPE(g.ev), GNI_CQ_EVENT_TYPE_POST);
	CHECK_EQ(GNI_CQ_GET_INST_ID(g.ev), PEER_ID);
	CHECK_EQ(g.gc_rc, GNI_RC_SUCCESS);
	CHECK(g.pd == &d);
	CHECK_EQ(d.status, GNI_RC_SUCCESS);
	CHECK_EQ(d.cq_mode_complete, GNI_CQMODE_GLOBAL_EVENT);
	CHECK_EQ(d.post_id, 0x5150);
	CHECK_EQ(e.nic->core.nfree, nfree);
	CHECK_EQ(e.ep->core.outstanding, 0);
	CHECK_EQ(GNI_GetCompleted(e.cq, g.ev, &g.pd), GNI_RC_INVALID_PARAM);
	tap_test_end("a GLOBAL event (source BTE): inst_id the endpoint's "
		     "local_event, the descriptor back with status SUCCESS, "
		     "cq_mode_complete GLOBAL, post_id intact, released (a "
		     "second GetCompleted: INVALID_PARAM)");

	/* LOCAL only: its event has the library's bit 48 */
	rdesc(&e, &d, GNI_POST_RDMA_GET, GNI_CQMODE_LOCAL_EVENT, 64);
	posted(e.ep, &d, "LOCAL");
	device_event(&e, e.cq, 0, fake.post.local_data);
	take(e.cq, &g);
	CHECK_EQ(g.ev_rc, GNI_RC_SUCCESS);
	CHECK_EQ(GNI_CQ_GET_INST_ID(g.ev), PEER_ID);
	CHECK_EQ(g.gc_rc, GNI_RC_SUCCESS);
	CHECK(g.pd == &d);
	CHECK_EQ(d.cq_mode_complete, GNI_CQMODE_LOCAL_EVENT);
	CHECK_EQ(e.nic->core.nfree, nfree);
	tap_test_end("a LOCAL event: cq_mode_complete LOCAL, released");

	/* an error: exactly one event, the descriptor released at once */
	rdesc(&e, &d, GNI_POST_RDMA_PUT, GNI_CQMODE_GLOBAL_EVENT |
	      GNI_CQMODE_REMOTE_EVENT, 64);
	posted(e.ep, &d, "GLOBAL | REMOTE that will fail");
	device_event(&e, e.cq, GEMINI_BTE_ST_MDD_INV, fake.post.global_data);
	take(e.cq, &g);
	CHECK_EQ(g.ev_rc, GNI_RC_TRANSACTION_ERROR);
	CHECK_EQ(GNI_CQ_GET_STATUS(g.ev), GEMINI_BTE_ST_MDD_INV);
	CHECK_EQ(GNI_CQ_GET_INST_ID(g.ev), PEER_ID);
	CHECK_EQ(g.gc_rc, GNI_RC_TRANSACTION_ERROR);
	CHECK(g.pd == &d);
	CHECK_EQ(d.status, GNI_RC_TRANSACTION_ERROR);
	CHECK_EQ(e.nic->core.nfree, nfree);
	CHECK_EQ(e.ep->core.outstanding, 0);
	tap_test_end("an error event (MDD_INV): CqGetEvent and GetCompleted "
		     "TRANSACTION_ERROR, desc status TRANSACTION_ERROR, "
		     "released");

	/* a silent post's error: no descriptor */
	GNI_EpCreate(e.nic, NULL, &nocq);
	GNI_EpBind(nocq, PEER_PE, PEER_ID);
	rdesc(&e, &d, GNI_POST_RDMA_PUT, GNI_CQMODE_SILENT, 64);
	posted(nocq, &d, "silent that will fail");
	device_event(&e, e.nic->null_cq, GEMINI_BTE_ST_TIMEOUT,
		     fake.post.global_data);
	take(e.nic->null_cq, &g);
	tap_ok(g.ev_rc == GNI_RC_TRANSACTION_ERROR &&
	       g.gc_rc == GNI_RC_DESCRIPTOR_ERROR && !g.pd,
	       "a silent post's error event on the hidden CQ: GetCompleted "
	       "DESCRIPTOR_ERROR, no descriptor (%s, %s)", rc_name(g.ev_rc),
	       rc_name(g.gc_rc));
	GNI_EpDestroy(nocq);

	/* src_cq_hndl */
	GNI_CqCreate(e.nic, 8, 0, GNI_CQ_NOBLOCK, NULL, NULL, &cq2);
	rdesc(&e, &d, GNI_POST_RDMA_GET, GNI_CQMODE_GLOBAL_EVENT, 64);
	d.src_cq_hndl = cq2;
	GNI_EpSetEventData(e.ep, 0xabc, INST_ID);
	posted(e.ep, &d, "GLOBAL to src_cq_hndl");
	device_event(&e, cq2, 0, fake.post.global_data);
	take(cq2, &g);
	tap_ok(g.ev_rc == GNI_RC_SUCCESS && g.gc_rc == GNI_RC_SUCCESS &&
	       g.pd == &d && GNI_CQ_GET_INST_ID(g.ev) == 0xabc &&
	       e.nic->core.nfree == nfree,
	       "the event on src_cq_hndl: inst_id the local_event of "
	       "GNI_EpSetEventData (0x%llx), descriptor back",
	       (unsigned long long)GNI_CQ_GET_INST_ID(g.ev));
	GNI_EpSetEventData(e.ep, PEER_ID, INST_ID);
	GNI_CqDestroy(cq2);
	env_close(&e);

	if (!env_open(&s, GNI_CDM_MODE_DUAL_EVENTS))
		return;
	nfree = s.nic->core.nfree;
	/* dual: LOCAL then GLOBAL */
	rdesc(&s, &d, GNI_POST_RDMA_PUT, GNI_CQMODE_DUAL_EVENTS, 64);
	posted(s.ep, &d, "LOCAL | GLOBAL");
	gdata = fake.post.global_data;
	ldata = fake.post.local_data;
	device_event(&s, s.cq, 0, ldata);
	take(s.cq, &g);
	CHECK_EQ(g.ev_rc, GNI_RC_SUCCESS);
	CHECK_EQ(GNI_CQ_GET_INST_ID(g.ev), PEER_ID);
	CHECK_EQ(g.gc_rc, GNI_RC_SUCCESS);
	CHECK(g.pd == &d);
	CHECK_EQ(d.cq_mode_complete, GNI_CQMODE_LOCAL_EVENT);
	CHECK_EQ(s.nic->core.nfree, nfree - 1);
	CHECK_EQ(s.ep->core.outstanding, 1);
	CHECK_EQ(GNI_EpIdle(s.ep), GNI_RC_NOT_DONE);
	device_event(&s, s.cq, 0, gdata);
	take(s.cq, &g);
	CHECK_EQ(g.ev_rc, GNI_RC_SUCCESS);
	CHECK_EQ(GNI_CQ_GET_INST_ID(g.ev), PEER_ID);
	CHECK_EQ(g.gc_rc, GNI_RC_SUCCESS);
	CHECK(g.pd == &d);
	CHECK_EQ(d.cq_mode_complete, GNI_CQMODE_DUAL_EVENTS);
	CHECK_EQ(d.status, GNI_RC_SUCCESS);
	CHECK_EQ(s.nic->core.nfree, nfree);
	CHECK_EQ(GNI_EpIdle(s.ep), GNI_RC_SUCCESS);
	tap_test_end("dual events, LOCAL first: the LOCAL one gives the "
		     "descriptor back (cq_mode_complete LOCAL) and keeps it, "
		     "the GLOBAL one (LOCAL | GLOBAL) releases it");

	/* dual, GLOBAL first; and two posts interleaved */
	rdesc(&s, &d, GNI_POST_RDMA_PUT, GNI_CQMODE_DUAL_EVENTS, 64);
	posted(s.ep, &d, "LOCAL | GLOBAL, first of two");
	gdata = fake.post.global_data;
	ldata = fake.post.local_data;
	rdesc(&s, &d2, GNI_POST_RDMA_GET, GNI_CQMODE_DUAL_EVENTS, 64);
	posted(s.ep, &d2, "LOCAL | GLOBAL, second of two");
	device_event(&s, s.cq, 0, gdata);
	device_event(&s, s.cq, 0, fake.post.local_data);
	device_event(&s, s.cq, 0, ldata);
	device_event(&s, s.cq, 0, fake.post.global_data);
	take(s.cq, &g);
	CHECK(g.gc_rc == GNI_RC_SUCCESS && g.pd == &d &&
	      d.cq_mode_complete == GNI_CQMODE_GLOBAL_EVENT);
	take(s.cq, &g);
	CHECK(g.gc_rc == GNI_RC_SUCCESS && g.pd == &d2 &&
	      d2.cq_mode_complete == GNI_CQMODE_LOCAL_EVENT);
	CHECK_EQ(s.nic->core.nfree, nfree - 2);
	take(s.cq, &g);
	CHECK(g.gc_rc == GNI_RC_SUCCESS && g.pd == &d &&
	      d.cq_mode_complete == GNI_CQMODE_DUAL_EVENTS);
	CHECK_EQ(s.nic->core.nfree, nfree - 1);
	take(s.cq, &g);
	CHECK(g.gc_rc == GNI_RC_SUCCESS && g.pd == &d2 &&
	      d2.cq_mode_complete == GNI_CQMODE_DUAL_EVENTS);
	CHECK_EQ(s.nic->core.nfree, nfree);
	CHECK_EQ(s.ep->core.outstanding, 0);
	tap_test_end("dual events of two posts, interleaved, GLOBAL before "
		     "LOCAL for one: each released at its second event");

	/* dual, LOCAL fine, then the error */
	rdesc(&s, &d, GNI_POST_RDMA_PUT, GNI_CQMODE_DUAL_EVENTS, 64);
	posted(s.ep, &d, "LOCAL | GLOBAL that will fail after LOCAL");
	device_event(&s, s.cq, 0, fake.post.local_data);
	device_event(&s, s.cq, GEMINI_BTE_ST_BOUNDS, fake.post.global_data);
	take(s.cq, &g);
	CHECK(g.gc_rc == GNI_RC_SUCCESS && g.pd == &d);
	take(s.cq, &g);
	CHECK_EQ(g.ev_rc, GNI_RC_TRANSACTION_ERROR);
	CHECK_EQ(g.gc_rc, GNI_RC_TRANSACTION_ERROR);
	CHECK(g.pd == &d);
	CHECK_EQ(d.status, GNI_RC_TRANSACTION_ERROR);
	CHECK_EQ(d.cq_mode_complete, GNI_CQMODE_DUAL_EVENTS);
	CHECK_EQ(s.nic->core.nfree, nfree);
	tap_test_end("dual events: LOCAL, then the error event: "
		     "TRANSACTION_ERROR, released");

	/* dual, the error first: the only event */
	rdesc(&s, &d, GNI_POST_RDMA_GET, GNI_CQMODE_DUAL_EVENTS, 64);
	posted(s.ep, &d, "LOCAL | GLOBAL that will fail at once");
	device_event(&s, s.cq, GEMINI_BTE_ST_PROTECTION,
		     fake.post.global_data);
	take(s.cq, &g);
	CHECK_EQ(g.ev_rc, GNI_RC_TRANSACTION_ERROR);
	CHECK_EQ(GNI_CQ_GET_INST_ID(g.ev), PEER_ID);
	CHECK_EQ(g.gc_rc, GNI_RC_TRANSACTION_ERROR);
	CHECK(g.pd == &d);
	CHECK_EQ(d.status, GNI_RC_TRANSACTION_ERROR);
	CHECK_EQ(d.cq_mode_complete, GNI_CQMODE_GLOBAL_EVENT);
	CHECK_EQ(s.nic->core.nfree, nfree);
	CHECK_EQ(s.ep->core.outstanding, 0);
	tap_test_end("dual events: an error before LOCAL is the one event: "
		     "released at once");

	/* LOCAL only, failing: its one event has the LOCAL data */
	rdesc(&s, &d, GNI_POST_RDMA_PUT, GNI_CQMODE_LOCAL_EVENT, 64);
	posted(s.ep, &d, "LOCAL that will fail");
	device_event(&s, s.cq, GEMINI_BTE_ST_TIMEOUT, fake.post.local_data);
	take(s.cq, &g);
	tap_ok(g.gc_rc == GNI_RC_TRANSACTION_ERROR && g.pd == &d &&
	       s.nic->core.nfree == nfree && !s.ep->core.outstanding,
	       "LOCAL only, its error event: TRANSACTION_ERROR, released");
	env_close(&s);
}

static void test_mem_segments(void)
{
	gni_mem_segment_t seg[3];
	gni_mem_handle_t h, untouched = { 0x1111, 0x2222 };
	gni_post_descriptor_t d;
	struct env e;
	gni_cq_handle_t rcq;
	uint64_t b;
	gni_return_t rc;
	unsigned int calls;

	if (!env_open(&e, 0))
		return;
	b = (uint64_t)(uintptr_t)e.buf;

#define SEGS_REFUSED(call, want, what) do { \
		calls = fake.calls[SEGS_CMD]; \
		h = untouched; \
		rc = (call); \
		tap_ok(rc == (want) && fake.calls[SEGS_CMD] == calls && \
		       h.qword1 == untouched.qword1, \
		       "GNI_MemRegisterSegments refuses %s: %s (want %s), no " \
		       "ioctl", what, rc_name(rc), rc_name(want)); \
	} while (0)

	seg[0].address = b + 100;	/* any start */
	seg[0].length = 4096 - 100;	/* ends on a page */
	seg[1].address = b + 8192;	/* starts on one */
	seg[1].length = 4096;
	seg[2].address = b + 4096;
	seg[2].length = 10;		/* any end */
	SEGS_REFUSED(GNI_MemRegisterSegments(NULL, seg, 3, NULL, 0, -1, &h),
		     GNI_RC_INVALID_PARAM, "a NULL NIC");
	SEGS_REFUSED(GNI_MemRegisterSegments(e.nic, NULL, 3, NULL, 0, -1, &h),
		     GNI_RC_INVALID_PARAM, "NULL segments");
	SEGS_REFUSED(GNI_MemRegisterSegments(e.nic, seg, 0, NULL, 0, -1, &h),
		     GNI_RC_INVALID_PARAM, "0 segments");
	SEGS_REFUSED(GNI_MemRegisterSegments(e.nic, seg, 3, NULL, 0, -1, NULL),
		     GNI_RC_INVALID_PARAM, "a NULL handle");
	SEGS_REFUSED(GNI_MemRegisterSegments(e.nic, seg, KGNI_MEM_MAX_SEGMENTS +
					     1, NULL, 0, -1, &h),
		     GNI_RC_INVALID_PARAM, "4097 segments");
	SEGS_REFUSED(GNI_MemRegisterSegments(e.nic, seg, 3, NULL,
					     GNI_MEM_PHYS_SEGMENTS, -1, &h),
		     GNI_RC_INVALID_PARAM, "GNI_MEM_PHYS_SEGMENTS (kernel only)");
	SEGS_REFUSED(GNI_MemRegisterSegments(e.nic, seg, 3, NULL,
					     GNI_MEM_USE_VMDH, 0, &h),
		     GNI_RC_INVALID_PARAM,
		     "GNI_MEM_USE_VMDH without GNI_SetMddResources");
	SEGS_REFUSED(GNI_MemRegisterSegments(e.nic, seg, 3, NULL,
					     GNI_MEM_RESERVE_REGION, -1, &h),
		     GNI_RC_INVALID_PARAM, "GNI_MEM_RESERVE_REGION");
	SEGS_REFUSED(GNI_MemRegisterSegments(e.nic, seg, 3, e.cq, 0, -1, &h),
		     GNI_RC_INVALID_PARAM, "an endpoint's CQ as dst_cq_hndl");
	seg[1].address += 8;
	SEGS_REFUSED(GNI_MemRegisterSegments(e.nic, seg, 3, NULL, 0, -1, &h),
		     GNI_RC_INVALID_PARAM, "a second segment off a page");
	seg[1].address -= 8;
	seg[1].length -= 4;
	SEGS_REFUSED(GNI_MemRegisterSegments(e.nic, seg, 3, NULL, 0, -1, &h),
		     GNI_RC_INVALID_PARAM, "a middle segment ending off a page");
	seg[1].length += 4;
	seg[0].length += 1;
	SEGS_REFUSED(GNI_MemRegisterSegments(e.nic, seg, 3, NULL, 0, -1, &h),
		     GNI_RC_INVALID_PARAM, "a first segment ending off a page");
	seg[0].length -= 1;
	seg[2].length = 0;
	SEGS_REFUSED(GNI_MemRegisterSegments(e.nic, seg, 3, NULL, 0, -1, &h),
		     GNI_RC_INVALID_PARAM, "a segment of 0 bytes");
	seg[2].length = 10;
	seg[2].address = 0;
	SEGS_REFUSED(GNI_MemRegisterSegments(e.nic, seg, 3, NULL, 0, -1, &h),
		     GNI_RC_INVALID_PARAM, "a segment at address 0");
	seg[2].address = UINT64_MAX - 4095;
	seg[2].length = 8192;
	SEGS_REFUSED(GNI_MemRegisterSegments(e.nic, seg, 3, NULL, 0, -1, &h),
		     GNI_RC_INVALID_PARAM, "a segment wrapping past 2^64");
	seg[2].address = b + 4096;
	seg[2].length = 10;

	fake.fail[SEGS_CMD] = EFAULT;
	h = untouched;
	rc = GNI_MemRegisterSegments(e.nic, seg, 3, NULL, 0, -1, &h);
	tap_ok(rc == GNI_RC_PERMISSION_ERROR && h.qword1 == untouched.qword1,
	       "EFAULT: PERMISSION_ERROR, handle untouched (%s)", rc_name(rc));
	fake.fail[SEGS_CMD] = ENOSPC;
	rc = GNI_MemRegisterSegments(e.nic, seg, 3, NULL, 0, -1, &h);
	tap_ok(rc == GNI_RC_ERROR_RESOURCE, "ENOSPC: ERROR_RESOURCE (%s)",
	       rc_name(rc));
	fake.fail[SEGS_CMD] = EDQUOT;
	rc = GNI_MemRegisterSegments(e.nic, seg, 3, NULL, 0, -1, &h);
	tap_ok(rc == GNI_RC_ERROR_RESOURCE,
	       "EDQUOT (the job's MDDs or GART entries): ERROR_RESOURCE (%s)",
	       rc_name(rc));
	fake.fail[SEGS_CMD] = ENOMEM;
	rc = GNI_MemRegisterSegments(e.nic, seg, 3, NULL, 0, -1, &h);
	tap_ok(rc == GNI_RC_ERROR_NOMEM, "ENOMEM: ERROR_NOMEM (%s)",
	       rc_name(rc));
	fake.fail[SEGS_CMD] = EINVAL;
	rc = GNI_MemRegisterSegments(e.nic, seg, 3, NULL, 0, -1, &h);
	tap_ok(rc == GNI_RC_INVALID_PARAM, "EINVAL: INVALID_PARAM (%s)",
	       rc_name(rc));

	GNI_CqCreate(e.nic, 8, 0, GNI_CQ_NOBLOCK, NULL, NULL, &rcq);
	rc = GNI_MemRegisterSegments(e.nic, seg, 3, rcq, GNI_MEM_READ_ONLY |
				     GNI_MEM_RELAXED_PI_ORDERING, 12345, &h);
	CHECK_EQ(rc, GNI_RC_SUCCESS);
	CHECK_EQ(fake.segs.size, sizeof(fake.segs));
	CHECK_EQ(fake.segs.flags, KGNI_MEM_READONLY);
	CHECK_EQ(fake.segs.segments, (uint64_t)(uintptr_t)seg);
	CHECK_EQ(fake.segs.nsegs, 3);
	CHECK_EQ(fake.segs.cq_id, rcq->core.id);
	CHECK_EQ(fake.segs.reserved, 0);
	CHECK_EQ(fake.seg[0].addr, b + 100);
	CHECK_EQ(fake.seg[1].len, 4096);
	CHECK_EQ(fake.seg[2].len, 10);
	CHECK_EQ(h.qword1, fake.segs.mem_hndl[0]);
	CHECK_EQ(h.qword2, fake.segs.mem_hndl[1]);
	CHECK_EQ(GNI_MEMHNDL_GET_VA(h), 0);
	CHECK_EQ(rcq->core.mem_refs, 1);
	tap_test_end("GNI_MemRegisterSegments: KGNI_IOC_MEM_REGISTER_SEGMENTS "
		     "with the caller's segments, READONLY, dst_cq_hndl's CQ "
		     "(counted); the handle has VA 0");

	/* posts address it by offset */
	rdesc(&e, &d, GNI_POST_RDMA_GET, GNI_CQMODE_GLOBAL_EVENT, 4096);
	d.remote_mem_hndl = h;
	d.remote_addr = 100;
	if (posted(e.ep, &d, "GET from a segmented handle at offset 100"))
		tap_ok(fake.post.remote_addr == 100 &&
		       fake.post.remote_mem_hndl[0] == h.qword1,
		       "the offset goes to the kernel as the remote address");
	rdesc(&e, &d, GNI_POST_RDMA_PUT, GNI_CQMODE_GLOBAL_EVENT, 8);
	d.remote_mem_hndl = h;
	d.remote_addr = 100;
	refused(&e, e.ep, &d, GNI_RC_PERMISSION_ERROR,
		"a PUT into a read-only segmented handle");
	GNI_MemDeregister(e.nic, &h);
	tap_ok(rcq->core.mem_refs == 0 && GNI_CqDestroy(rcq) == GNI_RC_SUCCESS,
	       "GNI_MemDeregister of the segmented handle lets its CQ go");

	/* A registration does not keep its CQ; the handle still goes. */
	GNI_CqCreate(e.nic, 8, 0, GNI_CQ_NOBLOCK, NULL, NULL, &rcq);
	rc = GNI_MemRegisterSegments(e.nic, seg, 1, rcq, 0, (uint32_t)-1,
				     &h);
	calls = fake.calls[KGNI_CMD_CQ_DESTROY];
	tap_ok(rc == GNI_RC_SUCCESS && rcq->core.mem_refs == 1 &&
	       GNI_CqDestroy(rcq) == GNI_RC_SUCCESS &&
	       fake.calls[KGNI_CMD_CQ_DESTROY] == calls + 1 &&
	       GNI_MemDeregister(e.nic, &h) == GNI_RC_SUCCESS,
	       "GNI_CqDestroy of a registration's CQ: SUCCESS (kgni detaches "
	       "the registration), then GNI_MemDeregister: SUCCESS");

	rc = GNI_MemRegisterSegments(e.nic, seg, 1, NULL, GNI_MEM_USE_GART,
				     (uint32_t)-1, &h);
	tap_ok(rc == GNI_RC_SUCCESS && fake.segs.flags == 0 &&
	       GNI_MemDeregister(e.nic, &h) == GNI_RC_SUCCESS,
	       "segments: USE_GART not passed on (they always use it): %s",
	       rc_name(rc));
	rc = GNI_MemRegister(e.nic, b, 64, NULL, GNI_MEM_USE_GART, -1, &h);
	tap_ok(rc == GNI_RC_SUCCESS && fake.reg.flags == KGNI_MEM_USE_GART &&
	       GNI_MemDeregister(e.nic, &h) == GNI_RC_SUCCESS,
	       "GNI_MEM_USE_GART becomes KGNI_MEM_USE_GART: %s", rc_name(rc));
	rc = GNI_MemRegister(e.nic, b, 64, NULL, GNI_MEM_READ_ONLY, -1, &h);
	tap_ok(rc == GNI_RC_SUCCESS && fake.reg.flags == KGNI_MEM_READONLY &&
	       GNI_MemDeregister(e.nic, &h) == GNI_RC_SUCCESS,
	       "without it, the kernel chooses (READONLY only): %s",
	       rc_name(rc));

	rc = GNI_MemRegisterSegments(e.nic, seg, 1, NULL, 0, (uint32_t)-1, &h);
	tap_ok(rc == GNI_RC_SUCCESS && fake.segs.flags == 0 &&
	       fake.segs.cq_id == 0 && fake.segs.nsegs == 1,
	       "one segment, no CQ, read-write: %s", rc_name(rc));
	rdesc(&e, &d, GNI_POST_RDMA_GET, GNI_CQMODE_GLOBAL_EVENT, 8);
	d.local_mem_hndl = h;
	d.local_addr = 100;
	if (posted(e.ep, &d, "GET into a segmented local handle at offset 100"))
		tap_ok(fake.post.local_addr == 100,
		       "the local offset goes to the kernel as local_addr");
	GNI_MemDeregister(e.nic, &h);
	env_close(&e);
#undef SEGS_REFUSED
}

/* --- datagrams, against the fake kernel -------------------------------- */

#define DPOST_CMD	FAKE_CMD(KGNI_IOC_DGRAM_POST)
#define DTEST_CMD	FAKE_CMD(KGNI_IOC_DGRAM_TEST)
#define DPROBE_CMD	FAKE_CMD(KGNI_IOC_DGRAM_PROBE)
#define DCANCEL_CMD	FAKE_CMD(KGNI_IOC_DGRAM_CANCEL)
#define NO_ID		UINT64_MAX
#define UNTOUCHED	0xdeadbeefu

/* Byte @i of datagram payload @k */
static uint8_t dpat(unsigned int k, unsigned int i)
{
	return (uint8_t)(k * 29 + i * 7 + 1);
}

static void dfill(uint8_t *p, unsigned int k, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		p[i] = dpat(k, i);
}

/* @p holds payload @k for @n bytes, then 0xee up to @size */
static int dholds(const uint8_t *p, unsigned int k, unsigned int n,
		  unsigned int size)
{
	unsigned int i;

	for (i = 0; i < size; i++) {
		if (p[i] != (i < n ? dpat(k, i) : 0xee)) {
			printf("#     byte %u is 0x%02x, want 0x%02x\n", i, p[i],
			       i < n ? dpat(k, i) : 0xee);
			return 0;
		}
	}
	return 1;
}

/* The fake's datagram of @key, or NULL */
static struct fake_dgram *fake_of(uint64_t key)
{
	unsigned int i;

	for (i = 0; i < FAKE_MAX_DGRAMS; i++)
		if (fake.dgram[i].used && fake.dgram[i].post.ep_key == key)
			return &fake.dgram[i];
	return NULL;
}

/* The fake drops every datagram (a test that left some behind) */
static void fake_dgrams_clear(void)
{
	memset(fake.dgram, 0, sizeof(fake.dgram));
	memset(&fake.on_wait, 0, sizeof(fake.on_wait));
}

/* What a test or wait gave back */
struct dres {
	gni_return_t rc;
	gni_post_state_t state;
	uint32_t addr, id;
	unsigned int ioctls;		/* DGRAM_TEST calls it made */
};

static void dres_init(struct dres *r)
{
	r->state = (gni_post_state_t)77;
	r->addr = UNTOUCHED;
	r->id = UNTOUCHED;
	r->ioctls = fake.calls[DTEST_CMD];
}

static void dtest(struct dres *r, gni_ep_handle_t ep, int by_id, uint64_t id)
{
	dres_init(r);
	r->rc = by_id ? GNI_EpPostDataTestById(ep, id, &r->state, &r->addr,
					       &r->id) :
		GNI_EpPostDataTest(ep, &r->state, &r->addr, &r->id);
	r->ioctls = fake.calls[DTEST_CMD] - r->ioctls;
}

static void dwait(struct dres *r, gni_ep_handle_t ep, int by_id, uint64_t id,
		  uint32_t timeout)
{
	dres_init(r);
	r->rc = by_id ? GNI_EpPostDataWaitById(ep, id, timeout, &r->state,
					       &r->addr, &r->id) :
		GNI_EpPostDataWait(ep, timeout, &r->state, &r->addr, &r->id);
	r->ioctls = fake.calls[DTEST_CMD] - r->ioctls;
}

/* @call answers @want without a datagram ioctl of kind @cmd */
#define DG_REFUSED(cmd, call, want, what) do { \
		unsigned int calls_ = fake.calls[cmd]; \
		gni_return_t rc_ = (call); \
		tap_ok(rc_ == (want) && fake.calls[cmd] == calls_, \
		       "%s: %s (want %s), no ioctl", what, rc_name(rc_), \
		       rc_name(want)); \
	} while (0)

static void test_dgram_post(void)
{
	static const struct {
		int err;
		gni_return_t rc;
	} map[] = {
		{ EBUSY, GNI_RC_ERROR_RESOURCE },
		{ ENOSPC, GNI_RC_ERROR_RESOURCE },
		{ EDQUOT, GNI_RC_ERROR_RESOURCE },
		{ EMSGSIZE, GNI_RC_SIZE_ERROR },
		{ EPERM, GNI_RC_PERMISSION_ERROR },
		{ EINVAL, GNI_RC_INVALID_PARAM },
		{ EFAULT, GNI_RC_INVALID_PARAM },
		{ ENOMEM, GNI_RC_ERROR_NOMEM },
		{ ENOLINK, GNI_RC_INVALID_PARAM },
	};
	struct kgni_dgram_post *p = &fake.dpost;
	uint8_t out[200], in[200], in2[8];
	gni_ep_handle_t wild, ep3;
	struct fake_dgram *g;
	uint64_t key, wkey;
	unsigned int i, calls;
	gni_return_t rc;
	struct env e;
	int bad;

	if (!env_open(&e, 0))
		return;
	GNI_EpCreate(e.nic, NULL, &wild);
	dfill(out, 1, sizeof(out));
	bad = fake.bad_size;

	DG_REFUSED(DPOST_CMD, GNI_EpPostData(NULL, out, 8, in, 8),
		   GNI_RC_INVALID_PARAM, "GNI_EpPostData of a NULL endpoint");
	DG_REFUSED(DPOST_CMD, GNI_EpPostDataWId(NULL, out, 8, in, 8, 1),
		   GNI_RC_INVALID_PARAM, "GNI_EpPostDataWId of a NULL endpoint");
	DG_REFUSED(DPOST_CMD, GNI_EpPostData(wild, out, 8, in, 8),
		   GNI_RC_INVALID_PARAM,
		   "GNI_EpPostData of an unbound endpoint (no id)");
	DG_REFUSED(DPOST_CMD, GNI_EpPostDataWId(e.ep, out, 8, in, 8, NO_ID),
		   GNI_RC_INVALID_PARAM, "GNI_EpPostDataWId, datagram_id -1");
	DG_REFUSED(DPOST_CMD, GNI_EpPostDataWId(wild, out, 8, in, 8, NO_ID),
		   GNI_RC_INVALID_PARAM,
		   "GNI_EpPostDataWId, unbound, datagram_id -1");
	DG_REFUSED(DPOST_CMD, GNI_EpPostData(e.ep, out, 129, in, 128),
		   GNI_RC_SIZE_ERROR, "GNI_EpPostData of 129 bytes");
	DG_REFUSED(DPOST_CMD, GNI_EpPostDataWId(wild, out, 65535, in, 128, 3),
		   GNI_RC_SIZE_ERROR, "GNI_EpPostDataWId of 65535 bytes");
	DG_REFUSED(DPOST_CMD, GNI_EpPostData(e.ep, NULL, 8, in, 8),
		   GNI_RC_INVALID_PARAM, "8 bytes of data at NULL");
	DG_REFUSED(DPOST_CMD, GNI_EpPostData(e.ep, out, 8, NULL, 8),
		   GNI_RC_INVALID_PARAM, "an out_buf of 8 bytes at NULL");

	calls = fake.calls[DPOST_CMD];
	rc = GNI_EpPostData(e.ep, out, 100, in, 128);
	CHECK_EQ(rc, GNI_RC_SUCCESS);
	CHECK_EQ(fake.calls[DPOST_CMD], calls + 1);
	CHECK_EQ(p->size, sizeof(*p));
	CHECK_EQ(p->flags, KGNI_DGRAM_BOUND);
	CHECK(p->ep_key != 0);
	CHECK_EQ(p->id, NO_ID);
	CHECK_EQ(p->peer_pe, PEER_PE);
	CHECK_EQ(p->peer_inst, PEER_ID);
	CHECK_EQ(p->data, (uint64_t)(uintptr_t)out);
	CHECK_EQ(p->data_len, 100);
	CHECK_EQ(p->buf_size, 128);
	CHECK_EQ(p->reserved, 0);
	CHECK_EQ(fake.bad_size, bad);
	g = fake_of(p->ep_key);
	CHECK(g && !memcmp(g->data, out, 100));
	tap_test_end("GNI_EpPostData of a bound endpoint: KGNI_IOC_DGRAM_POST "
		     "BOUND to the endpoint's (PE, inst_id), a key, id ~0 (none), "
		     "the data's pointer and length, buf_size, reserved 0");
	key = p->ep_key;

	DG_REFUSED(DPOST_CMD, GNI_EpPostData(e.ep, out, 8, in, 8),
		   GNI_RC_ERROR_RESOURCE,
		   "a second GNI_EpPostData on the busy endpoint");
	DG_REFUSED(DPOST_CMD, GNI_EpPostDataWId(e.ep, out, 8, in, 8, 5),
		   GNI_RC_ERROR_RESOURCE,
		   "GNI_EpPostDataWId on the busy endpoint");

	rc = GNI_EpPostDataWId(wild, NULL, 0, in2, 300, 0x77);
	CHECK_EQ(rc, GNI_RC_SUCCESS);
	CHECK_EQ(p->size, sizeof(*p));
	CHECK_EQ(p->flags, 0);
	CHECK(p->ep_key != 0 && p->ep_key != key);
	CHECK_EQ(p->id, 0x77);
	CHECK_EQ(p->peer_pe, 0);
	CHECK_EQ(p->peer_inst, 0);
	CHECK_EQ(p->data, 0);
	CHECK_EQ(p->data_len, 0);
	CHECK_EQ(p->buf_size, GNI_DATAGRAM_MAXSIZE);
	CHECK_EQ(p->reserved, 0);
	tap_test_end("GNI_EpPostDataWId of an unbound endpoint: a wildcard "
		     "(flags 0, peer 0), its own key, the id; no data; a "
		     "buf_size of 300 passed as 128 (no peer sends more)");
	wkey = p->ep_key;

	/* every errno of the post; a failed post leaves nothing behind */
	GNI_EpCreate(e.nic, NULL, &ep3);
	GNI_EpBind(ep3, PEER_PE, PEER_ID + 1);
	for (i = 0; i < ARRAY_SIZE(map); i++) {
		calls = fake.calls[DPOST_CMD];
		fake.fail[DPOST_CMD] = map[i].err;
		rc = GNI_EpPostDataWId(ep3, out, 128, in, 128, 10 + i);
		tap_ok(rc == map[i].rc && fake.calls[DPOST_CMD] == calls + 1 &&
		       !ep3->dgram.active,
		       "KGNI_IOC_DGRAM_POST failing with %s: %s (want %s), "
		       "nothing posted", strerror(map[i].err), rc_name(rc),
		       rc_name(map[i].rc));
	}
	rc = GNI_EpPostDataWId(ep3, out, 128, in, 0, 99);
	tap_ok(rc == GNI_RC_SUCCESS && p->data_len == 128 && p->buf_size == 0 &&
	       p->peer_inst == PEER_ID + 1 && p->id == 99 &&
	       p->ep_key != key && p->ep_key != wkey,
	       "then it posts 128 bytes (and takes none back): %s",
	       rc_name(rc));
	tap_ok(fake_dgrams() == 3, "the fake holds the three datagrams (%u)",
	       fake_dgrams());

	GNI_EpDestroy(ep3);
	GNI_EpDestroy(wild);
	env_close(&e);
	tap_ok(fake_dgrams() == 0, "GNI_EpDestroy of each endpoint cancelled "
	       "and collected its datagram (%u left)", fake_dgrams());
	fake_dgrams_clear();
}

static void test_dgram_test(void)
{
	static const struct {
		int err;
		gni_return_t rc;
	} map[] = {
		{ EINVAL, GNI_RC_INVALID_PARAM },
		{ EFAULT, GNI_RC_INVALID_PARAM },
		{ ENOLINK, GNI_RC_INVALID_PARAM },
		{ ENOMEM, GNI_RC_ERROR_NOMEM },
		{ EPERM, GNI_RC_PERMISSION_ERROR },
	};
	struct kgni_dgram_test *t = &fake.dtest;
	uint8_t out[128], in[160], peer[128];
	gni_post_state_t st;
	gni_ep_handle_t wild;
	gni_return_t rc;
	uint32_t a, id;
	struct dres r;
	uint64_t key, wkey;
	unsigned int i;
	struct env e;
	int bad;

	if (!env_open(&e, 0))
		return;
	GNI_EpCreate(e.nic, NULL, &wild);
	bad = fake.bad_size;
	dfill(out, 2, sizeof(out));
	dfill(peer, 3, sizeof(peer));
	memset(in, 0xee, sizeof(in));
	GNI_EpPostData(e.ep, out, 100, in, 128);
	key = fake.dpost.ep_key;

	DG_REFUSED(DTEST_CMD, GNI_EpPostDataTest(NULL, &st, &a, &id),
		   GNI_RC_INVALID_PARAM, "GNI_EpPostDataTest of a NULL endpoint");
	DG_REFUSED(DTEST_CMD, GNI_EpPostDataTest(e.ep, NULL, &a, &id),
		   GNI_RC_INVALID_PARAM, "GNI_EpPostDataTest, NULL post_state");
	DG_REFUSED(DTEST_CMD, GNI_EpPostDataTest(e.ep, &st, NULL, &id),
		   GNI_RC_INVALID_PARAM, "GNI_EpPostDataTest, NULL remote_addr");
	DG_REFUSED(DTEST_CMD, GNI_EpPostDataTest(e.ep, &st, &a, NULL),
		   GNI_RC_INVALID_PARAM, "GNI_EpPostDataTest, NULL remote_id");
	DG_REFUSED(DTEST_CMD, GNI_EpPostDataTestById(e.ep, NO_ID, &st, &a,
						     &id),
		   GNI_RC_INVALID_PARAM, "GNI_EpPostDataTestById, id -1");
	DG_REFUSED(DTEST_CMD, GNI_EpPostDataTestById(e.ep, 5, &st, &a, &id),
		   GNI_RC_NO_MATCH, "GNI_EpPostDataTestById of an id the "
		   "endpoint did not post");
	DG_REFUSED(DTEST_CMD, GNI_EpPostDataTest(wild, &st, &a, &id),
		   GNI_RC_NO_MATCH, "GNI_EpPostDataTest of an endpoint that "
		   "posted nothing");

	dtest(&r, e.ep, 0, 0);
	CHECK_EQ(r.rc, GNI_RC_SUCCESS);
	CHECK_EQ(r.state, GNI_POST_PENDING);
	CHECK_EQ(r.addr, UNTOUCHED);
	CHECK_EQ(r.id, UNTOUCHED);
	CHECK_EQ(r.ioctls, 1);
	CHECK_EQ(t->size, sizeof(*t));
	CHECK_EQ(t->flags, 0);
	CHECK_EQ(t->ep_key, key);
	CHECK_EQ(t->id, NO_ID);
	CHECK_EQ(t->timeout_ms, 0);
	CHECK_EQ(t->buf, (uint64_t)(uintptr_t)in);
	CHECK_EQ(t->reserved16, 0);
	CHECK_EQ(t->reserved, 0);
	CHECK(dholds(in, 0, 0, sizeof(in)));
	CHECK_EQ(fake.bad_size, bad);
	tap_test_end("GNI_EpPostDataTest of a pending datagram: SUCCESS, "
		     "PENDING, remote_addr and remote_id untouched; "
		     "KGNI_IOC_DGRAM_TEST by key, id ~0, timeout 0, buf the "
		     "post's out_buf");

	fake_dgram_end(key, KGNI_DGRAM_COMPLETED, peer, 77, PEER_PE, PEER_ID);
	dtest(&r, e.ep, 0, 0);
	CHECK_EQ(r.rc, GNI_RC_SUCCESS);
	CHECK_EQ(r.state, GNI_POST_COMPLETED);
	CHECK_EQ(r.addr, PEER_PE);
	CHECK_EQ(r.id, PEER_ID);
	CHECK(dholds(in, 3, 77, sizeof(in)));
	CHECK_EQ(fake_dgrams(), 0);
	tap_test_end("once the peer answered with 77 bytes: COMPLETED, its "
		     "PE and inst_id, its bytes in out_buf and nothing after "
		     "them; collected");
	DG_REFUSED(DTEST_CMD, GNI_EpPostDataTest(e.ep, &st, &a, &id),
		   GNI_RC_NO_MATCH, "a test after the collecting one");

	/* the endpoint posts again, by id */
	memset(in, 0xee, sizeof(in));
	tap_ok(GNI_EpPostDataWId(e.ep, out, 1, in, 64, 9) == GNI_RC_SUCCESS &&
	       fake.dpost.ep_key == key, "the endpoint posts again (id 9), "
	       "under the same key");
	DG_REFUSED(DTEST_CMD, GNI_EpPostDataTestById(e.ep, 8, &st, &a, &id),
		   GNI_RC_NO_MATCH, "GNI_EpPostDataTestById of id 8");
	dtest(&r, e.ep, 1, 9);
	tap_ok(r.rc == GNI_RC_SUCCESS && r.state == GNI_POST_PENDING &&
	       t->flags == KGNI_DGRAM_BY_ID && t->id == 9 && t->ep_key == key &&
	       t->buf == (uint64_t)(uintptr_t)in && t->timeout_ms == 0,
	       "GNI_EpPostDataTestById(9): KGNI_DGRAM_BY_ID, id 9 and the key: "
	       "%s, PENDING", rc_name(r.rc));
	dtest(&r, e.ep, 0, 0);
	tap_ok(r.rc == GNI_RC_SUCCESS && r.state == GNI_POST_PENDING &&
	       t->flags == 0 && t->ep_key == key && t->id == 9,
	       "GNI_EpPostDataTest of it (by key, id as posted): %s",
	       rc_name(r.rc));
	fake_dgram_end(key, KGNI_DGRAM_COMPLETED, peer, 64, PEER_PE, PEER_ID);
	dtest(&r, e.ep, 1, 9);
	tap_ok(r.rc == GNI_RC_SUCCESS && r.state == GNI_POST_COMPLETED &&
	       dholds(in, 3, 64, sizeof(in)) && !fake_dgrams(),
	       "64 bytes into a buf_size of 64: SUCCESS, COMPLETED: %s",
	       rc_name(r.rc));

	/* too much for the buffer */
	memset(in, 0xee, sizeof(in));
	GNI_EpPostDataWId(wild, out, 8, in, 16, 0x10);
	wkey = fake.dpost.ep_key;
	fake_dgram_end(wkey, KGNI_DGRAM_COMPLETED, peer, 100, 0x3333, 12);
	dtest(&r, wild, 1, 0x10);
	CHECK_EQ(r.rc, GNI_RC_SIZE_ERROR);
	CHECK_EQ(r.state, GNI_POST_COMPLETED);
	CHECK_EQ(r.addr, 0x3333);
	CHECK_EQ(r.id, 12);
	CHECK(dholds(in, 3, 16, sizeof(in)));
	CHECK_EQ(fake_dgrams(), 0);
	tap_test_end("100 bytes for a buf_size of 16: SIZE_ERROR, COMPLETED "
		     "from (0x3333, 12), the first 16 bytes written, collected");
	DG_REFUSED(DTEST_CMD, GNI_EpPostDataTestById(wild, 0x10, &st, &a, &id),
		   GNI_RC_NO_MATCH, "GNI_EpPostDataTestById after that");

	GNI_EpPostDataWId(wild, out, 8, NULL, 0, 0x11);
	fake_dgram_end(fake.dpost.ep_key, KGNI_DGRAM_COMPLETED, peer, 5, 1, 2);
	dtest(&r, wild, 1, 0x11);
	tap_ok(r.rc == GNI_RC_SIZE_ERROR && r.state == GNI_POST_COMPLETED &&
	       t->buf == 0, "5 bytes to a post that takes none: SIZE_ERROR, "
	       "buf NULL to the kernel: %s", rc_name(r.rc));
	GNI_EpPostDataWId(wild, out, 8, NULL, 0, 0x12);
	fake_dgram_end(fake.dpost.ep_key, KGNI_DGRAM_COMPLETED, peer, 0, 1, 2);
	dtest(&r, wild, 1, 0x12);
	tap_ok(r.rc == GNI_RC_SUCCESS && r.state == GNI_POST_COMPLETED &&
	       r.addr == 1 && r.id == 2, "0 bytes to it: SUCCESS: %s",
	       rc_name(r.rc));

	/* a peer that could not be reached */
	GNI_EpPostDataWId(e.ep, out, 8, in, 8, 0x13);
	fake_dgram_end(key, KGNI_DGRAM_TIMEOUT, NULL, 0, 0, 0);
	dtest(&r, e.ep, 1, 0x13);
	tap_ok(r.rc == GNI_RC_SUCCESS && r.state == GNI_POST_TIMEOUT &&
	       r.addr == UNTOUCHED && r.id == UNTOUCHED && !fake_dgrams(),
	       "a datagram that timed out: SUCCESS, GNI_POST_TIMEOUT, "
	       "remote_addr and remote_id untouched, collected: %s",
	       rc_name(r.rc));

	/* two endpoints, one id: the kernel's lookup by id would be unsure */
	memset(in, 0xee, sizeof(in));
	GNI_EpPostDataWId(e.ep, out, 8, in, 8, 0x77);
	GNI_EpPostDataWId(wild, out, 8, in + 64, 8, 0x77);
	fake_dgram_end(wkey, KGNI_DGRAM_COMPLETED, peer, 8, 0x66, 6);
	dtest(&r, wild, 1, 0x77);
	CHECK_EQ(r.rc, GNI_RC_SUCCESS);
	CHECK_EQ(r.state, GNI_POST_COMPLETED);
	CHECK_EQ(r.addr, 0x66);
	CHECK_EQ(t->flags, 0);
	CHECK_EQ(t->ep_key, wkey);
	CHECK_EQ(t->buf, (uint64_t)(uintptr_t)(in + 64));
	CHECK(dholds(in + 64, 3, 8, 64));
	CHECK(e.ep->dgram.active && fake_dgrams() == 1);
	tap_test_end("two endpoints posted id 0x77: GNI_EpPostDataTestById "
		     "names the one asked for by its key (flags 0), its data "
		     "into its own out_buf; the other stays posted");
	dtest(&r, e.ep, 1, 0x77);
	tap_ok(r.rc == GNI_RC_SUCCESS && r.state == GNI_POST_PENDING &&
	       t->flags == KGNI_DGRAM_BY_ID && t->id == 0x77 &&
	       t->ep_key == key, "once the id is the other's alone: by id "
	       "again (BY_ID, id and key): %s", rc_name(r.rc));
	GNI_EpPostDataWId(wild, out, 8, in + 64, 8, 0x77);
	rc = GNI_EpPostDataCancelById(e.ep, 0x77);
	tap_ok(rc == GNI_RC_SUCCESS && fake.dcancel.flags == 0 &&
	       fake.dcancel.ep_key == key && fake_of(wkey) &&
	       fake_of(wkey)->state == KGNI_DGRAM_PENDING,
	       "GNI_EpPostDataCancelById of a shared id: by key, the other "
	       "endpoint's datagram untouched: %s", rc_name(rc));
	dtest(&r, e.ep, 1, 0x77);
	GNI_EpPostDataCancelById(wild, 0x77);
	tap_ok(fake.dcancel.flags == KGNI_DGRAM_BY_ID &&
	       fake.dcancel.ep_key == wkey, "and once it is unique, by id");
	dtest(&r, wild, 1, 0x77);
	tap_ok(r.state == GNI_POST_TERMINATED && !fake_dgrams(),
	       "both collected");

	/* errnos */
	GNI_EpPostDataWId(e.ep, out, 8, in, 8, 0x14);
	for (i = 0; i < ARRAY_SIZE(map); i++) {
		fake.fail[DTEST_CMD] = map[i].err;
		dtest(&r, e.ep, 1, 0x14);
		tap_ok(r.rc == map[i].rc && e.ep->dgram.active,
		       "KGNI_IOC_DGRAM_TEST failing with %s: %s (want %s), "
		       "the datagram still known", strerror(map[i].err),
		       rc_name(r.rc), rc_name(map[i].rc));
	}
	fake.fail[DTEST_CMD] = ENOENT;
	dtest(&r, e.ep, 1, 0x14);
	tap_ok(r.rc == GNI_RC_NO_MATCH && !e.ep->dgram.active,
	       "ENOENT: NO_MATCH, and the library forgets the datagram too: "
	       "%s", rc_name(r.rc));
	DG_REFUSED(DTEST_CMD, GNI_EpPostDataTestById(e.ep, 0x14, &st, &a, &id),
		   GNI_RC_NO_MATCH, "a test after ENOENT");

	fake_dgrams_clear();
	GNI_EpDestroy(wild);
	env_close(&e);
}

static void test_dgram_wait(void)
{
	uint8_t out[16], in[32], peer[32];
	uint32_t a, id, w1, w2;
	gni_post_state_t st;
	unsigned int n;
	struct dres r;
	uint64_t key;
	struct env e;

	if (!env_open(&e, 0))
		return;
	dfill(out, 4, sizeof(out));
	dfill(peer, 5, sizeof(peer));
	memset(in, 0xee, sizeof(in));
	GNI_EpPostDataWId(e.ep, out, 16, in, 32, 1);
	key = fake.dpost.ep_key;

	DG_REFUSED(DTEST_CMD, GNI_EpPostDataWait(e.ep, 0, &st, &a, &id),
		   GNI_RC_INVALID_PARAM, "GNI_EpPostDataWait, timeout 0");
	DG_REFUSED(DTEST_CMD, GNI_EpPostDataWaitById(e.ep, 1, 0, &st, &a, &id),
		   GNI_RC_INVALID_PARAM, "GNI_EpPostDataWaitById, timeout 0");
	DG_REFUSED(DTEST_CMD, GNI_EpPostDataWaitById(e.ep, NO_ID, 10, &st, &a,
						     &id),
		   GNI_RC_INVALID_PARAM, "GNI_EpPostDataWaitById, id -1");
	DG_REFUSED(DTEST_CMD, GNI_EpPostDataWait(NULL, 10, &st, &a, &id),
		   GNI_RC_INVALID_PARAM, "GNI_EpPostDataWait of NULL");
	DG_REFUSED(DTEST_CMD, GNI_EpPostDataWaitById(e.ep, 1, 10, NULL, &a,
						     &id),
		   GNI_RC_INVALID_PARAM, "GNI_EpPostDataWaitById, NULL "
		   "post_state");

	dwait(&r, e.ep, 1, 1, 50);
	tap_ok(r.rc == GNI_RC_TIMEOUT && r.state == GNI_POST_PENDING &&
	       r.ioctls == 1 && fake.dtest.timeout_ms == 50 &&
	       fake.dtest.flags == KGNI_DGRAM_BY_ID && e.ep->dgram.active,
	       "GNI_EpPostDataWaitById(50 ms) that runs out (ETIMEDOUT): "
	       "TIMEOUT, PENDING, one wait of 50 ms, the datagram kept: %s",
	       rc_name(r.rc));

	fake_dgram_end_on_wait(key, KGNI_DGRAM_COMPLETED, peer, 20, PEER_PE,
			       PEER_ID);
	dwait(&r, e.ep, 1, 1, 0xffffffffu);
	tap_ok(r.rc == GNI_RC_SUCCESS && r.state == GNI_POST_COMPLETED &&
	       r.addr == PEER_PE && r.id == PEER_ID && r.ioctls == 1 &&
	       fake.dtest.timeout_ms == KGNI_DGRAM_FOREVER &&
	       dholds(in, 5, 20, sizeof(in)) && !fake_dgrams(),
	       "GNI_EpPostDataWaitById(0xffffffff): a wait for ever "
	       "(KGNI_DGRAM_FOREVER) that ends COMPLETED, the data in "
	       "out_buf: %s", rc_name(r.rc));

	/* signals: wait again for what is left */
	GNI_EpPostData(e.ep, out, 16, in, 32);
	fake_dgram_end_on_wait(key, KGNI_DGRAM_COMPLETED, peer, 1, PEER_PE,
			       PEER_ID);
	fake.eintr[DTEST_CMD] = 2;
	fake.eintr_ms = 30;
	n = fake.nwaits;
	dwait(&r, e.ep, 0, 0, 1000);
	w1 = fake.waits[(n + 1) % FAKE_MAX_WAITS];
	w2 = fake.waits[(n + 2) % FAKE_MAX_WAITS];
	tap_ok(r.rc == GNI_RC_SUCCESS && r.state == GNI_POST_COMPLETED &&
	       r.ioctls == 3 && fake.waits[n % FAKE_MAX_WAITS] == 1000 &&
	       w1 > 0 && w1 <= 970 && w2 > 0 && w2 <= w1 - 30,
	       "GNI_EpPostDataWait(1000 ms) interrupted twice (30 ms each): "
	       "waits 1000, %u, %u ms, then COMPLETED: %s", w1, w2,
	       rc_name(r.rc));

	GNI_EpPostData(e.ep, out, 16, in, 32);
	fake_dgram_end_on_wait(key, KGNI_DGRAM_COMPLETED, peer, 1, PEER_PE,
			       PEER_ID);
	fake.eintr[DTEST_CMD] = 2;
	fake.eintr_ms = 0;
	n = fake.nwaits;
	dwait(&r, e.ep, 0, 0, 0xffffffffu);
	tap_ok(r.rc == GNI_RC_SUCCESS && r.ioctls == 3 &&
	       fake.waits[n % FAKE_MAX_WAITS] == KGNI_DGRAM_FOREVER &&
	       fake.waits[(n + 1) % FAKE_MAX_WAITS] == KGNI_DGRAM_FOREVER &&
	       fake.waits[(n + 2) % FAKE_MAX_WAITS] == KGNI_DGRAM_FOREVER,
	       "a wait for ever interrupted twice: for ever each time: %s",
	       rc_name(r.rc));

	GNI_EpPostDataWId(e.ep, out, 16, in, 32, 2);
	fake.eintr[DTEST_CMD] = 1;
	fake.eintr_ms = 60;
	n = fake.nwaits;
	dwait(&r, e.ep, 1, 2, 40);
	tap_ok(r.rc == GNI_RC_TIMEOUT && r.state == GNI_POST_PENDING &&
	       r.ioctls == 2 && fake.waits[n % FAKE_MAX_WAITS] == 40 &&
	       fake.waits[(n + 1) % FAKE_MAX_WAITS] == 0 &&
	       e.ep->dgram.active,
	       "a 40 ms wait whose signal took 60 ms: one last look "
	       "(timeout 0), still PENDING: TIMEOUT: %s", rc_name(r.rc));
	fake.eintr_ms = 0;

	fake.fail[DTEST_CMD] = ETIMEDOUT;
	dwait(&r, e.ep, 1, 2, 0xffffffffu);
	tap_ok(r.rc == GNI_RC_TIMEOUT, "ETIMEDOUT: TIMEOUT: %s",
	       rc_name(r.rc));
	fake_dgram_end(key, KGNI_DGRAM_TERMINATED, NULL, 0, 0, 0);
	dwait(&r, e.ep, 1, 2, 0xffffffffu);
	tap_ok(r.rc == GNI_RC_SUCCESS && r.state == GNI_POST_TERMINATED &&
	       r.addr == UNTOUCHED && r.ioctls == 1 && !fake_dgrams(),
	       "a wait for a datagram that has ended returns at once: "
	       "TERMINATED, collected: %s", rc_name(r.rc));
	env_close(&e);
}

static void test_dgram_probe(void)
{
	struct kgni_dgram_probe *pr = &fake.dprobe;
	uint8_t out[8], in[8], peer[8];
	gni_ep_handle_t wild, ep2;
	uint32_t a = UNTOUCHED, rid = UNTOUCHED;
	uint64_t id, wkey, key;
	gni_return_t rc;
	unsigned int n;
	struct dres r;
	struct env e;

	if (!env_open(&e, 0))
		return;
	GNI_EpCreate(e.nic, NULL, &wild);
	GNI_EpCreate(e.nic, NULL, &ep2);
	GNI_EpBind(ep2, PEER_PE + 1, PEER_ID + 1);
	dfill(out, 6, sizeof(out));
	dfill(peer, 7, sizeof(peer));

	DG_REFUSED(DPROBE_CMD, GNI_PostDataProbe(NULL, &a, &rid),
		   GNI_RC_INVALID_PARAM, "GNI_PostDataProbe of a NULL NIC");
	DG_REFUSED(DPROBE_CMD, GNI_PostDataProbe(e.nic, NULL, &rid),
		   GNI_RC_INVALID_PARAM, "GNI_PostDataProbe, NULL remote_addr");
	DG_REFUSED(DPROBE_CMD, GNI_PostDataProbe(e.nic, &a, NULL),
		   GNI_RC_INVALID_PARAM, "GNI_PostDataProbe, NULL remote_id");
	DG_REFUSED(DPROBE_CMD, GNI_PostDataProbeById(NULL, &id),
		   GNI_RC_INVALID_PARAM, "GNI_PostDataProbeById of a NULL NIC");
	DG_REFUSED(DPROBE_CMD, GNI_PostDataProbeById(e.nic, NULL),
		   GNI_RC_INVALID_PARAM, "GNI_PostDataProbeById, NULL id");
	DG_REFUSED(DPROBE_CMD, GNI_PostdataProbeWaitById(NULL, 10, &id),
		   GNI_RC_INVALID_PARAM,
		   "GNI_PostdataProbeWaitById of a NULL NIC");
	DG_REFUSED(DPROBE_CMD, GNI_PostdataProbeWaitById(e.nic, 10, NULL),
		   GNI_RC_INVALID_PARAM, "GNI_PostdataProbeWaitById, NULL id");

	id = 12345;
	rc = GNI_PostDataProbeById(e.nic, &id);
	tap_ok(rc == GNI_RC_NO_MATCH && id == 12345 &&
	       pr->size == sizeof(*pr) && pr->flags == 0 &&
	       pr->timeout_ms == 0, "GNI_PostDataProbeById with nothing "
	       "posted: KGNI_IOC_DGRAM_PROBE, timeout 0, ENOENT: NO_MATCH, "
	       "id untouched: %s", rc_name(rc));
	rc = GNI_PostDataProbe(e.nic, &a, &rid);
	tap_ok(rc == GNI_RC_NO_MATCH && a == UNTOUCHED && rid == UNTOUCHED,
	       "GNI_PostDataProbe with nothing posted: NO_MATCH: %s",
	       rc_name(rc));

	GNI_EpPostDataWId(e.ep, out, 8, in, 8, 0x100);
	key = fake.dpost.ep_key;
	GNI_EpPostDataWId(wild, out, 8, in, 8, 0x200);
	wkey = fake.dpost.ep_key;
	GNI_EpPostDataWId(ep2, out, 8, in, 8, 0x300);
	rc = GNI_PostDataProbeById(e.nic, &id);
	tap_ok(rc == GNI_RC_NO_MATCH, "three datagrams pending: "
	       "GNI_PostDataProbeById NO_MATCH: %s", rc_name(rc));

	fake_dgram_end(wkey, KGNI_DGRAM_COMPLETED, peer, 8, 0x4444, 44);
	fake_dgram_end(key, KGNI_DGRAM_COMPLETED, peer, 8, PEER_PE, PEER_ID);
	rc = GNI_PostDataProbeById(e.nic, &id);
	CHECK_EQ(rc, GNI_RC_SUCCESS);
	CHECK_EQ(id, 0x200);
	id = 0;
	rc = GNI_PostDataProbeById(e.nic, &id);
	CHECK_EQ(rc, GNI_RC_SUCCESS);
	CHECK_EQ(id, 0x200);
	rc = GNI_PostDataProbe(e.nic, &a, &rid);
	CHECK_EQ(rc, GNI_RC_SUCCESS);
	CHECK_EQ(a, 0x4444);
	CHECK_EQ(rid, 44);
	CHECK_EQ(fake_dgrams(), 3);
	tap_test_end("the wildcard ended first, then the bound one: both "
		     "probes name the wildcard's (id 0x200, peer (0x4444, 44)), "
		     "again and again: a probe collects nothing");
	dtest(&r, wild, 1, 0x200);
	rc = GNI_PostDataProbeById(e.nic, &id);
	CHECK_EQ(r.state, GNI_POST_COMPLETED);
	CHECK_EQ(rc, GNI_RC_SUCCESS);
	CHECK_EQ(id, 0x100);
	rc = GNI_PostDataProbe(e.nic, &a, &rid);
	CHECK_EQ(rc, GNI_RC_SUCCESS);
	CHECK_EQ(a, PEER_PE);
	CHECK_EQ(rid, PEER_ID);
	dtest(&r, e.ep, 1, 0x100);
	CHECK_EQ(r.state, GNI_POST_COMPLETED);
	tap_test_end("once the test collected the wildcard's, the probes "
		     "name the bound one's (0x100, its peer)");

	GNI_EpPostDataCancelById(ep2, 0x300);
	a = UNTOUCHED;
	rid = UNTOUCHED;
	rc = GNI_PostDataProbe(e.nic, &a, &rid);
	tap_ok(rc == GNI_RC_SUCCESS && a == PEER_PE + 1 && rid == PEER_ID + 1,
	       "a cancelled bound datagram: GNI_PostDataProbe gives the peer "
	       "it is bound to (the kernel has no peer's word): %s (0x%x, %u)",
	       rc_name(rc), a, rid);
	rc = GNI_PostDataProbeById(e.nic, &id);
	tap_ok(rc == GNI_RC_SUCCESS && id == 0x300,
	       "and GNI_PostDataProbeById its id: %s", rc_name(rc));
	dtest(&r, ep2, 1, 0x300);
	tap_ok(r.rc == GNI_RC_SUCCESS && r.state == GNI_POST_TERMINATED,
	       "GNI_EpPostDataTestById collects it: TERMINATED");

	GNI_EpPostData(e.ep, out, 8, in, 8);
	fake_dgram_end(key, KGNI_DGRAM_TIMEOUT, NULL, 0, 0, 0);
	rc = GNI_PostDataProbeById(e.nic, &id);
	tap_ok(rc == GNI_RC_SUCCESS && id == NO_ID,
	       "a datagram posted without an id: GNI_PostDataProbeById "
	       "gives -1: %s", rc_name(rc));
	rc = GNI_PostDataProbe(e.nic, &a, &rid);
	tap_ok(rc == GNI_RC_SUCCESS && a == PEER_PE && rid == PEER_ID,
	       "timed out: GNI_PostDataProbe gives its bound peer: %s",
	       rc_name(rc));
	dtest(&r, e.ep, 0, 0);
	tap_ok(r.state == GNI_POST_TIMEOUT && !fake_dgrams(),
	       "GNI_EpPostDataTest collects it: TIMEOUT");

	/* waiting */
	GNI_EpPostDataWId(wild, out, 8, in, 8, 0x500);
	n = fake.nwaits;
	rc = GNI_PostdataProbeWaitById(e.nic, 50, &id);
	tap_ok(rc == GNI_RC_TIMEOUT && fake.nwaits == n + 1 &&
	       pr->timeout_ms == 50, "GNI_PostdataProbeWaitById(50 ms), "
	       "nothing ends (ETIMEDOUT): TIMEOUT: %s", rc_name(rc));
	rc = GNI_PostdataProbeWaitById(e.nic, 0, &id);
	tap_ok(rc == GNI_RC_NO_MATCH && pr->timeout_ms == 0,
	       "GNI_PostdataProbeWaitById(0): a look (ENOENT): NO_MATCH: %s",
	       rc_name(rc));
	fake_dgram_end_on_wait(wkey, KGNI_DGRAM_COMPLETED, peer, 4, 0x55, 5);
	id = 0;
	rc = GNI_PostdataProbeWaitById(e.nic, 0xffffffffu, &id);
	tap_ok(rc == GNI_RC_SUCCESS && id == 0x500 &&
	       pr->timeout_ms == KGNI_DGRAM_FOREVER && fake_dgrams() == 1,
	       "GNI_PostdataProbeWaitById(0xffffffff): waits for ever, gets "
	       "id 0x500, not collected: %s", rc_name(rc));
	dtest(&r, wild, 1, 0x500);

	GNI_EpPostDataWId(wild, out, 8, in, 8, 0x501);
	fake_dgram_end_on_wait(wkey, KGNI_DGRAM_COMPLETED, peer, 4, 0x55, 5);
	fake.eintr[DPROBE_CMD] = 1;
	fake.eintr_ms = 20;
	n = fake.nwaits;
	rc = GNI_PostdataProbeWaitById(e.nic, 500, &id);
	tap_ok(rc == GNI_RC_SUCCESS && id == 0x501 && fake.nwaits == n + 2 &&
	       fake.waits[n % FAKE_MAX_WAITS] == 500 &&
	       fake.waits[(n + 1) % FAKE_MAX_WAITS] <= 480 &&
	       fake.waits[(n + 1) % FAKE_MAX_WAITS] > 0,
	       "GNI_PostdataProbeWaitById(500 ms) interrupted (20 ms): waits "
	       "again for %u ms, gets 0x501: %s",
	       fake.waits[(n + 1) % FAKE_MAX_WAITS], rc_name(rc));
	dtest(&r, wild, 1, 0x501);

	GNI_EpPostDataWId(wild, out, 8, in, 8, 0x502);
	fake.eintr[DPROBE_CMD] = 1;
	fake.eintr_ms = 60;
	n = fake.nwaits;
	rc = GNI_PostdataProbeWaitById(e.nic, 30, &id);
	tap_ok(rc == GNI_RC_TIMEOUT && fake.nwaits == n + 2 &&
	       fake.waits[(n + 1) % FAKE_MAX_WAITS] == 0,
	       "a 30 ms probe wait whose signal took 60 ms: a last look "
	       "finds nothing: TIMEOUT: %s", rc_name(rc));
	fake.eintr_ms = 0;

	fake.fail[DPROBE_CMD] = ENOENT;
	rc = GNI_PostdataProbeWaitById(e.nic, 100, &id);
	tap_ok(rc == GNI_RC_NO_MATCH, "GNI_PostdataProbeWaitById, ENOENT "
	       "(nothing to wait for): NO_MATCH: %s", rc_name(rc));
	fake.fail[DPROBE_CMD] = EINVAL;
	rc = GNI_PostDataProbeById(e.nic, &id);
	tap_ok(rc == GNI_RC_INVALID_PARAM, "KGNI_IOC_DGRAM_PROBE failing with "
	       "EINVAL: INVALID_PARAM: %s", rc_name(rc));
	fake.fail[DPROBE_CMD] = ETIMEDOUT;
	rc = GNI_PostDataProbe(e.nic, &a, &rid);
	tap_ok(rc == GNI_RC_TIMEOUT, "ETIMEDOUT: TIMEOUT: %s", rc_name(rc));

	GNI_EpDestroy(wild);
	GNI_EpDestroy(ep2);
	env_close(&e);
	tap_ok(!fake_dgrams(), "nothing left in the fake");
	fake_dgrams_clear();
}

static void test_dgram_cancel(void)
{
	struct kgni_dgram_cancel *c = &fake.dcancel;
	uint8_t out[8], in[16], peer[16];
	gni_post_state_t st;
	uint32_t a, id;
	struct dres r;
	gni_return_t rc;
	uint64_t key;
	struct env e;

	if (!env_open(&e, 0))
		return;
	dfill(out, 8, sizeof(out));
	dfill(peer, 9, sizeof(peer));

	DG_REFUSED(DCANCEL_CMD, GNI_EpPostDataCancel(NULL),
		   GNI_RC_INVALID_PARAM, "GNI_EpPostDataCancel of NULL");
	DG_REFUSED(DCANCEL_CMD, GNI_EpPostDataCancelById(NULL, 1),
		   GNI_RC_INVALID_PARAM, "GNI_EpPostDataCancelById of NULL");
	DG_REFUSED(DCANCEL_CMD, GNI_EpPostDataCancelById(e.ep, NO_ID),
		   GNI_RC_INVALID_PARAM, "GNI_EpPostDataCancelById, id -1");
	DG_REFUSED(DCANCEL_CMD, GNI_EpPostDataCancel(e.ep), GNI_RC_NO_MATCH,
		   "GNI_EpPostDataCancel with nothing posted");

	GNI_EpPostData(e.ep, out, 8, in, 16);
	key = fake.dpost.ep_key;
	rc = GNI_EpPostDataCancel(e.ep);
	tap_ok(rc == GNI_RC_SUCCESS && c->size == sizeof(*c) && c->flags == 0 &&
	       c->ep_key == key && c->id == NO_ID,
	       "GNI_EpPostDataCancel: KGNI_IOC_DGRAM_CANCEL by key, id ~0: %s",
	       rc_name(rc));
	rc = GNI_EpPostDataCancel(e.ep);
	tap_ok(rc == GNI_RC_NO_MATCH, "again, before it is collected: the "
	       "kernel has nothing pending (ENOENT): NO_MATCH: %s",
	       rc_name(rc));
	dtest(&r, e.ep, 0, 0);
	tap_ok(r.rc == GNI_RC_SUCCESS && r.state == GNI_POST_TERMINATED &&
	       r.addr == UNTOUCHED && !fake_dgrams(),
	       "GNI_EpPostDataTest: TERMINATED, collected: %s", rc_name(r.rc));
	DG_REFUSED(DTEST_CMD, GNI_EpPostDataTest(e.ep, &st, &a, &id),
		   GNI_RC_NO_MATCH, "a test after that");
	DG_REFUSED(DCANCEL_CMD, GNI_EpPostDataCancel(e.ep), GNI_RC_NO_MATCH,
		   "a cancel after that");

	GNI_EpPostDataWId(e.ep, out, 8, in, 16, 0x42);
	DG_REFUSED(DCANCEL_CMD, GNI_EpPostDataCancelById(e.ep, 0x41),
		   GNI_RC_NO_MATCH, "GNI_EpPostDataCancelById of another id");
	rc = GNI_EpPostDataCancelById(e.ep, 0x42);
	tap_ok(rc == GNI_RC_SUCCESS && c->flags == KGNI_DGRAM_BY_ID &&
	       c->ep_key == key && c->id == 0x42,
	       "GNI_EpPostDataCancelById(0x42): BY_ID, the id and the key: %s",
	       rc_name(rc));
	dwait(&r, e.ep, 1, 0x42, 100);
	tap_ok(r.rc == GNI_RC_SUCCESS && r.state == GNI_POST_TERMINATED &&
	       r.ioctls == 1, "GNI_EpPostDataWaitById: TERMINATED at once: "
	       "%s", rc_name(r.rc));

	/* it ended before the cancel: the cancel fails, the data stands */
	memset(in, 0xee, sizeof(in));
	GNI_EpPostDataWId(e.ep, out, 8, in, 16, 0x43);
	fake_dgram_end(key, KGNI_DGRAM_COMPLETED, peer, 16, PEER_PE, PEER_ID);
	rc = GNI_EpPostDataCancelById(e.ep, 0x43);
	dtest(&r, e.ep, 1, 0x43);
	tap_ok(rc == GNI_RC_NO_MATCH && r.rc == GNI_RC_SUCCESS &&
	       r.state == GNI_POST_COMPLETED && dholds(in, 9, 16, sizeof(in)),
	       "a cancel after the peer answered: NO_MATCH (%s); the test "
	       "then gives COMPLETED and the data", rc_name(rc));

	GNI_EpPostDataWId(e.ep, out, 8, in, 16, 0x44);
	fake.fail[DCANCEL_CMD] = EINVAL;
	rc = GNI_EpPostDataCancelById(e.ep, 0x44);
	tap_ok(rc == GNI_RC_INVALID_PARAM && e.ep->dgram.active,
	       "KGNI_IOC_DGRAM_CANCEL failing with EINVAL: INVALID_PARAM, "
	       "still posted: %s", rc_name(rc));
	rc = GNI_EpPostDataCancelById(e.ep, 0x44);
	dtest(&r, e.ep, 1, 0x44);
	tap_ok(rc == GNI_RC_SUCCESS && r.state == GNI_POST_TERMINATED,
	       "then cancelled and collected");
	env_close(&e);
	fake_dgrams_clear();
}

/* GNI_EpDestroy and GNI_EpUnbind take a datagram along */
static void test_dgram_release(void)
{
	uint8_t out[8], in[16], peer[16];
	unsigned int cancels, tests;
	gni_ep_handle_t x;
	gni_return_t rc;
	struct dres r;
	struct env e, f;

	if (!env_open(&e, 0))
		return;
	dfill(out, 10, sizeof(out));
	dfill(peer, 11, sizeof(peer));

	GNI_EpCreate(e.nic, e.cq, &x);
	GNI_EpBind(x, PEER_PE, PEER_ID + 2);
	GNI_EpPostDataWId(x, out, 8, in, 16, 7);
	cancels = fake.calls[DCANCEL_CMD];
	tests = fake.calls[DTEST_CMD];
	rc = GNI_EpDestroy(x);
	tap_ok(rc == GNI_RC_SUCCESS &&
	       fake.calls[DCANCEL_CMD] == cancels + 1 &&
	       fake.calls[DTEST_CMD] == tests + 1 && fake.dtest.buf == 0 &&
	       fake.dtest.timeout_ms > 0 && fake.dtest.id == 7 &&
	       !fake_dgrams(), "GNI_EpDestroy of an endpoint with a pending "
	       "datagram: cancelled, then collected (buf NULL): %s",
	       rc_name(rc));

	GNI_EpCreate(e.nic, NULL, &x);
	memset(in, 0xee, sizeof(in));
	GNI_EpPostDataWId(x, out, 8, in, 16, 8);
	fake_dgram_end(fake.dpost.ep_key, KGNI_DGRAM_COMPLETED, peer, 16,
		       PEER_PE, PEER_ID);
	rc = GNI_EpDestroy(x);
	tap_ok(rc == GNI_RC_SUCCESS && !fake_dgrams() &&
	       dholds(in, 0, 0, sizeof(in)), "GNI_EpDestroy of one the peer "
	       "answered: collected, out_buf not written: %s", rc_name(rc));

	GNI_EpCreate(e.nic, NULL, &x);
	cancels = fake.calls[DCANCEL_CMD];
	tests = fake.calls[DTEST_CMD];
	GNI_EpBind(x, PEER_PE, PEER_ID);
	GNI_EpUnbind(x);
	GNI_EpDestroy(x);
	tap_ok(fake.calls[DCANCEL_CMD] == cancels &&
	       fake.calls[DTEST_CMD] == tests, "an endpoint without a datagram: "
	       "unbound and destroyed without a datagram ioctl");

	GNI_EpPostData(e.ep, out, 8, in, 16);
	rc = GNI_EpUnbind(e.ep);
	tap_ok(rc == GNI_RC_SUCCESS && !fake_dgrams() && !e.ep->dgram.active,
	       "GNI_EpUnbind of an endpoint with a pending datagram: "
	       "cancelled and collected: %s", rc_name(rc));
	DG_REFUSED(DPOST_CMD, GNI_EpPostData(e.ep, out, 8, in, 16),
		   GNI_RC_INVALID_PARAM, "GNI_EpPostData once unbound");
	rc = GNI_EpPostDataWId(e.ep, out, 8, in, 16, 3);
	tap_ok(rc == GNI_RC_SUCCESS && fake.dpost.flags == 0,
	       "GNI_EpPostDataWId once unbound: a wildcard: %s", rc_name(rc));
	GNI_EpBind(e.ep, PEER_PE, PEER_ID);
	env_close(&e);
	tap_ok(!fake_dgrams(), "env_close (unbind, destroy): nothing left");
	fake_dgrams_clear();

	/* GNI_CDM_MODE_FAST_DATAGRAM_POLL: accepted, changes nothing */
	if (!env_open(&f, GNI_CDM_MODE_FAST_DATAGRAM_POLL))
		return;
	memset(in, 0xee, sizeof(in));
	rc = GNI_EpPostDataWId(f.ep, out, 8, in, 16, 1);
	fake_dgram_end(fake.dpost.ep_key, KGNI_DGRAM_COMPLETED, peer, 12,
		       PEER_PE, PEER_ID);
	dtest(&r, f.ep, 1, 1);
	tap_ok(rc == GNI_RC_SUCCESS && r.rc == GNI_RC_SUCCESS &&
	       r.state == GNI_POST_COMPLETED && dholds(in, 11, 12, sizeof(in)),
	       "a CDM with GNI_CDM_MODE_FAST_DATAGRAM_POLL: post and test as "
	       "before: %s, %s", rc_name(rc), rc_name(r.rc));
	env_close(&f);
}

/*
 * SMSG's arguments: the mailbox size, what GNI_SmsgInit refuses, the
 * calls before it.  Messages themselves need the device (ugni_smsg).
 */
static void test_smsg_args(void)
{
	gni_smsg_attr_t a = {
		.msg_type = GNI_SMSG_TYPE_MBOX_AUTO_RETRANSMIT,
		.mbox_maxcredit = 32, .msg_maxsize = 8192,
	}, r;
	gni_ep_handle_t unbound;
	unsigned int size = 0;
	gni_return_t rc;
	uint8_t tag = GNI_SMSG_ANY_TAG;
	struct env e;
	void *msg;

	rc = GNI_SmsgBufferSizeNeeded(&a, &size);
	tap_ok(rc == GNI_RC_SUCCESS && size == 64 + 32 * 8256,
	       "GNI_SmsgBufferSizeNeeded(32 x 8192): %u (64 + 32 slots of "
	       "8192 + 16 rounded to 64)", size);
	a.msg_type = GNI_SMSG_TYPE_INVALID;
	tap_ok(GNI_SmsgBufferSizeNeeded(&a, &size) == GNI_RC_INVALID_PARAM &&
	       GNI_SmsgBufferSizeNeeded(NULL, &size) == GNI_RC_INVALID_PARAM,
	       "... INVALID_PARAM for type INVALID and for no attributes");
	a.msg_type = GNI_SMSG_TYPE_MBOX;
	if (!env_open(&e, 0))
		return;
	tap_ok(GNI_SmsgGetNext(e.ep, &msg) == GNI_RC_INVALID_STATE &&
	       GNI_SmsgSend(e.ep, NULL, 0, NULL, 0, 1) ==
	       GNI_RC_INVALID_STATE &&
	       GNI_SmsgRelease(e.ep) == GNI_RC_INVALID_STATE &&
	       GNI_SmsgGetNextWTag(e.ep, &msg, &tag) == GNI_RC_INVALID_STATE,
	       "before GNI_SmsgInit: Send, GetNext(WTag), Release "
	       "INVALID_STATE");
	a.msg_buffer = e.buf;
	a.buff_size = 8192;
	a.mem_hndl = e.lmh;
	a.mbox_maxcredit = 4;
	a.msg_maxsize = 64;
	r = a;
	r.msg_buffer = (void *)(uintptr_t)RVA;
	r.mem_hndl = e.rmh;
	GNI_EpCreate(e.nic, e.cq, &unbound);
	tap_ok(GNI_SmsgInit(unbound, &a, &r) == GNI_RC_INVALID_STATE,
	       "GNI_SmsgInit on an unbound endpoint: INVALID_STATE");
	GNI_EpDestroy(unbound);
	r.msg_maxsize = 128;
	tap_ok(GNI_SmsgInit(e.ep, &a, &r) == GNI_RC_INVALID_PARAM,
	       "GNI_SmsgInit with another msg_maxsize than the peer's: "
	       "INVALID_PARAM");
	r.msg_maxsize = 64;
	a.mbox_offset = 8192 - 64;
	tap_ok(GNI_SmsgInit(e.ep, &a, &r) == GNI_RC_INVALID_PARAM,
	       "GNI_SmsgInit with a mailbox past its registration: "
	       "INVALID_PARAM");
	a.mbox_offset = 0;
	a.buff_size = 64 + 4 * 128 - 1;
	tap_ok(GNI_SmsgInit(e.ep, &a, &r) == GNI_RC_INVALID_PARAM,
	       "GNI_SmsgInit with a buff_size short of one mailbox: "
	       "INVALID_PARAM");
	a.buff_size = 8192;
	r.mem_hndl.qword2 ^= 1ull << 60;
	tap_ok(GNI_SmsgInit(e.ep, &a, &r) == GNI_RC_INVALID_PARAM,
	       "GNI_SmsgInit with a forged peer handle: INVALID_PARAM");
	r.mem_hndl = e.rmh;
	rc = GNI_SmsgInit(e.ep, &a, &r);
	tap_ok(rc == GNI_RC_SUCCESS &&
	       GNI_SmsgInit(e.ep, &a, &r) == GNI_RC_INVALID_STATE,
	       "GNI_SmsgInit: %s; a second time INVALID_STATE", rc_name(rc));
	tap_ok(GNI_SmsgGetNext(e.ep, &msg) == GNI_RC_NOT_DONE &&
	       GNI_SmsgRelease(e.ep) == GNI_RC_NOT_DONE,
	       "an empty mailbox: GetNext and Release NOT_DONE");
	tap_ok(GNI_SmsgSend(e.ep, e.buf, 8, e.buf, 57, 1) ==
	       GNI_RC_INVALID_PARAM,
	       "a message past msg_maxsize: INVALID_PARAM");
	{
		uint32_t v = 99, sent = 0;

		tap_ok(GNI_GetNicStat(e.nic, GNI_STAT_SMSG_MBOX_CREDITS_STALL,
				      &v) == GNI_RC_SUCCESS && v == 0,
		       "GNI_GetNicStat(MBOX_CREDITS_STALL) starts at 0 (%u)",
		       v);
		while (sent < 10 && GNI_SmsgSend(e.ep, e.buf, 8, NULL, 0,
						 sent) == GNI_RC_SUCCESS)
			sent++;
		GNI_GetNicStat(e.nic, GNI_STAT_SMSG_MBOX_CREDITS_STALL, &v);
		tap_ok(sent == 4 && v == 1, "4 sends into a peer's mailbox of "
		       "4 slots, the 5th NOT_DONE (%u sent); MBOX_CREDITS_STALL "
		       "%u", sent, v);
		tap_ok(GNI_ResetNicStat(e.nic,
					GNI_STAT_SMSG_MBOX_CREDITS_STALL) ==
		       GNI_RC_SUCCESS &&
		       GNI_GetNicStat(e.nic, GNI_STAT_SMSG_MBOX_CREDITS_STALL,
				      &v) == GNI_RC_SUCCESS && v == 0,
		       "GNI_ResetNicStat: 0 again");
		tap_ok(GNI_GetNicStat(e.nic, GNI_NUM_STATS, &v) ==
		       GNI_RC_INVALID_PARAM &&
		       GNI_GetNicStat(NULL, 0, &v) == GNI_RC_INVALID_PARAM &&
		       GNI_GetNicStat(e.nic, 0, NULL) == GNI_RC_INVALID_PARAM &&
		       GNI_ResetNicStat(e.nic, GNI_NUM_STATS) ==
		       GNI_RC_INVALID_PARAM,
		       "GetNicStat and ResetNicStat: INVALID_PARAM past "
		       "GNI_NUM_STATS and for NULL");
	}
	tap_ok(GNI_SmsgSetMaxRetrans(e.nic, 3) == GNI_RC_SUCCESS &&
	       GNI_SmsgSetDeliveryMode(e.nic, GNI_DLVMODE_IN_ORDER) ==
	       GNI_RC_SUCCESS && GNI_SmsgSetMaxRetrans(NULL, 3) ==
	       GNI_RC_INVALID_PARAM,
	       "SetMaxRetrans and SetDeliveryMode of a NIC; NULL refused");
	env_close(&e);
}

/*
 * The device ends the sequence the last send closed (the type of its
 * sync in @type) with @status; GNI_CqGetEvent's result.
 */
static gni_return_t sync_ends(struct env *e, unsigned int status,
			      unsigned int *type, gni_cq_entry_t *ev)
{
	uint64_t v = e->ep->core.fma->user[GEMINI_FMA_QW_SYNCCMP / 8];

	*type = (unsigned int)(v >> GEMINI_FMA_SYNC_TYPE_SHIFT);
	fake_cq_write(e->cq->core.id, GEMINI_CQE(GEMINI_CQE_SRC_SSID_SREQ, status,
					    v & GEMINI_FMA_SYNC_DATA_MASK));
	return GNI_CqGetEvent(e->cq, ev);
}

/*
 * A send whose local event carries an error although the peer released
 * the message (its flag landed, an answer was lost on a dying link): the
 * remote event goes alone as a CQ write with a local event of its own,
 * for the device sent none after a failed flag; the caller sees the send
 * succeed once that is answered.  A send the peer has not released goes
 * again, its failure unseen.
 */
static void test_smsg_lost_answer(void)
{
	const unsigned int all = GEMINI_FMA_SYNC_WITH_FLAG |
				 GEMINI_FMA_SYNC_REMOTE_EVENT |
				 GEMINI_FMA_SYNC_LOCAL_EVENT;
	gni_smsg_attr_t a = {
		.msg_type = GNI_SMSG_TYPE_MBOX_AUTO_RETRANSMIT,
		.mbox_maxcredit = 4, .msg_maxsize = 64,
	}, r;
	uint64_t want = GNI_CQ_EVENT_TYPE_SMSG << UGNI_CQE_TYPE_SHIFT |
			22ull << UGNI_CQE_ID_SHIFT |
			(uint64_t)UGNI_TID_NONE << UGNI_CQE_TID_SHIFT;
	volatile uint64_t *cqw;
	unsigned int type = 0;
	uint32_t retrans = 0;
	gni_cq_entry_t ev = 0;
	gni_return_t rc;
	struct env e;

	if (!env_open(&e, 0))
		return;
	/* As Open MPI: buff_size one mailbox, mbox_offset past it */
	a.msg_buffer = e.buf;
	a.buff_size = 64 + 4 * 128;
	a.mbox_offset = 1024;
	a.mem_hndl = e.lmh;
	r = a;
	r.msg_buffer = (void *)(uintptr_t)RVA;
	r.mem_hndl = e.rmh;
	rc = GNI_SmsgInit(e.ep, &a, &r);
	tap_ok(rc == GNI_RC_SUCCESS, "GNI_SmsgInit of the mailbox at offset "
	       "1024 of a registration, buff_size one mailbox: %s",
	       rc_name(rc));
	GNI_EpSetEventData(e.ep, 11, 22);
	cqw = &e.ep->core.fma->user[GEMINI_FMA_QW_CQ_WRITE / 8];
	*cqw = 0;
	if (rc == GNI_RC_SUCCESS)
		rc = GNI_SmsgSend(e.ep, e.buf + 4096, 8, NULL, 0, 77);
	/* The peer took and released it (its credit word says 1). */
	*(uint64_t *)(e.buf + 1024) = 1;
	if (rc == GNI_RC_SUCCESS)
		rc = sync_ends(&e, GEMINI_STATUS_TIMEOUT, &type, &ev);
	tap_ok(rc == GNI_RC_NOT_DONE && *cqw == want,
	       "a released SMSG send whose answer was lost: %s, unseen; its "
	       "remote event sent alone (CQ write 0x%llx, want 0x%llx)",
	       rc_name(rc), (unsigned long long)*cqw,
	       (unsigned long long)want);
	if (rc == GNI_RC_NOT_DONE)
		rc = sync_ends(&e, 0, &type, &ev);
	tap_ok(rc == GNI_RC_SUCCESS && GNI_CQ_STATUS_OK(ev) &&
	       type == GEMINI_FMA_SYNC_LOCAL_EVENT &&
	       GNI_CQ_GET_TYPE(ev) == GNI_CQ_EVENT_TYPE_SMSG &&
	       GNI_CQ_GET_MSG_ID(ev) == 77,
	       "... its CQ write answered: the send's event, %s, status %u, "
	       "msg_id %u", rc_name(rc), (unsigned int)gni_cq_get_status(ev),
	       (unsigned int)GNI_CQ_GET_MSG_ID(ev));
	rc = GNI_SmsgSend(e.ep, e.buf + 4096, 8, NULL, 0, 78);
	if (rc == GNI_RC_SUCCESS)
		rc = sync_ends(&e, GEMINI_STATUS_TIMEOUT, &type, &ev);
	GNI_GetNicStat(e.nic, GNI_STAT_SMSG_RETRANS_COUNT, &retrans);
	tap_ok(rc == GNI_RC_NOT_DONE && retrans == 2 && type == all,
	       "an unreleased one goes again, its failure unseen: %s, "
	       "RETRANS_COUNT %u", rc_name(rc), retrans);
	rc = sync_ends(&e, 0, &type, &ev);
	tap_ok(rc == GNI_RC_SUCCESS && GNI_CQ_GET_MSG_ID(ev) == 78 &&
	       type == all,
	       "... and its second sending's event is the caller's: %s, "
	       "msg_id %u", rc_name(rc), (unsigned int)GNI_CQ_GET_MSG_ID(ev));
	env_close(&e);
}

/* --- vMDH, GNI_RebuildMemHndl, GNI_MemQueryHndls, GNI_GetNttGran ---------- */

#define REG_CMD		FAKE_CMD(KGNI_IOC_MEM_REGISTER)
#define QUERY_CMD	FAKE_CMD(KGNI_IOC_MEM_QUERY)
#define NTT_CMD		FAKE_CMD(KGNI_IOC_NTT_QUERY)

static bool same_hndl(const gni_mem_handle_t *a, const gni_mem_handle_t *b)
{
	return a->qword1 == b->qword1 && a->qword2 == b->qword2;
}

/* GNI_RebuildMemHndl needs no NIC: the handle alone. */
static void test_rebuild_memhndl(void)
{
	/* ugni-api.md §18.4's vectors: version 1 (MDH 5) and new format */
	gni_mem_handle_t v1 = { 0x00500007f1234567ull, 0x32000000c0000003ull };
	gni_mem_handle_t nf = { 0x00000007f1234567ull, 0x7c048e1150000010ull };
	gni_mem_handle_t zero = { 0, 0 }, bad = v1, d, vm, keep;
	const gni_mem_handle_t junk = { 0x1111, 0x2222 };
	__u64 w[2];
	int yes = -1;

	d = junk;
	tap_ok(GNI_RebuildMemHndl(NULL, 1, &d) == GNI_RC_INVALID_PARAM &&
	       GNI_RebuildMemHndl(&v1, 1, NULL) == GNI_RC_INVALID_PARAM &&
	       same_hndl(&d, &junk),
	       "GNI_RebuildMemHndl: NULL handles: INVALID_PARAM");
	tap_ok(GNI_RebuildMemHndl(&zero, 1, &d) == GNI_RC_INVALID_STATE &&
	       same_hndl(&d, &junk),
	       "GNI_RebuildMemHndl: a handle never set: INVALID_STATE");
	bad.qword2 ^= 1ull << 56;
	tap_ok(GNI_RebuildMemHndl(&bad, 1, &d) == GNI_RC_INVALID_PARAM &&
	       same_hndl(&d, &junk),
	       "GNI_RebuildMemHndl: a bad CRC: INVALID_PARAM");
	tap_ok(GNI_RebuildMemHndl(&v1, KGNI_VMDH_ENTRIES, &d) ==
	       GNI_RC_INVALID_PARAM &&
	       GNI_RebuildMemHndl(&v1, (uint32_t)-1, &d) ==
	       GNI_RC_INVALID_PARAM && same_hndl(&d, &junk),
	       "GNI_RebuildMemHndl: index 4096 and -1: INVALID_PARAM");

	keep = v1;
	CHECK_EQ(GNI_RebuildMemHndl(&v1, 7, &d), GNI_RC_SUCCESS);
	CHECK_EQ(GNI_MEMHNDL_GET_MDH(d), KGNI_VMDH_MDH(7));
	CHECK_EQ(GNI_MEMHNDL_GET_MDH(d), 4088);
	CHECK_EQ(GNI_MEMHNDL_GET_VA(d), GNI_MEMHNDL_GET_VA(v1));
	CHECK_EQ(GNI_MEMHNDL_GET_NPAGES(d), GNI_MEMHNDL_GET_NPAGES(v1));
	CHECK_EQ(GNI_MEMHNDL_GET_PAGESIZE(d), GNI_MEMHNDL_GET_PAGESIZE(v1));
	CHECK_EQ(GNI_MEMHNDL_GET_FLAGS(d), GNI_MEMHNDL_GET_FLAGS(v1));
	CHECK_EQ(GNI_MEMHNDL_GET_CRC(d), gemini_mh_crc(d.qword1, d.qword2));
	CHECK_EQ(d.qword2 & ~(0xffull << 56), v1.qword2 & ~(0xffull << 56));
	CHECK(same_hndl(&v1, &keep));
	CHECK_EQ(GNI_MemHndlQueryAttr(&d, GNI_MEMHNDL_ATTR_VMDH, &yes),
		 GNI_RC_SUCCESS);
	CHECK_EQ(yes, 0);
	/* index 0 is the last MDD; in place */
	d = v1;
	CHECK_EQ(GNI_RebuildMemHndl(&d, 0, &d), GNI_RC_SUCCESS);
	CHECK_EQ(GNI_MEMHNDL_GET_MDH(d), 4095);
	CHECK_EQ(GNI_MEMHNDL_GET_VA(d), GNI_MEMHNDL_GET_VA(v1));
	tap_test_end("GNI_RebuildMemHndl: version 1 handle: MDH of index 7 is "
		     "MDD 4088 (KGNI_VMDH_MDH), VA, pages, flags kept, CRC "
		     "made again; src untouched; in place");

	CHECK_EQ(GNI_RebuildMemHndl(&nf, 0x123, &d), GNI_RC_SUCCESS);
	CHECK_EQ(GNI_MEMHNDL_GET_MDH(d), KGNI_VMDH_MDH(0x123));
	CHECK_EQ(d.qword1, nf.qword1);
	CHECK_EQ(GNI_MEMHNDL_GET_FLAGS(d), GNI_MEMHNDL_GET_FLAGS(nf));
	CHECK_EQ(GNI_MEMHNDL_GET_CRC(d), gemini_mh_crc(d.qword1, d.qword2));
	tap_test_end("GNI_RebuildMemHndl: new-format handle: the MDH in "
		     "qword2 replaced, qword1 kept");

	fake_handle(0x7f0000300000ull, 9, 4,
		    GNI_MEMHNDL_FLAG_VMDH | GNI_MEMHNDL_FLAG_GART, w);
	vm.qword1 = w[0];
	vm.qword2 = w[1];
	CHECK_EQ(GNI_RebuildMemHndl(&vm, 42, &d), GNI_RC_SUCCESS);
	CHECK_EQ(GNI_MEMHNDL_GET_MDH(d), 42);
	CHECK_EQ(GNI_MEMHNDL_GET_VA(d), 0x7f0000300000ull);
	CHECK_EQ(GNI_MEMHNDL_GET_CRC(d), gemini_mh_crc(d.qword1, d.qword2));
	tap_test_end("GNI_RebuildMemHndl: a handle with the VMDH flag holds "
		     "the index itself");
}

/* GNI_SetMddResources and registrations with GNI_MEM_USE_VMDH */
static void test_vmdh(void)
{
	gni_mem_handle_t h, h2, h3, r, untouched = { 0x1111, 0x2222 };
	gni_mem_segment_t seg = { 0, 64 };
	unsigned int calls;
	struct env e;
	gni_return_t rc;
	uint64_t b;

	if (!env_open(&e, 0))
		return;
	b = (uint64_t)(uintptr_t)e.buf;
	seg.address = b + 4096;

	/* no ioctl: an index of no block, or past the block */
	calls = fake.calls[REG_CMD];
	h = untouched;
	rc = GNI_MemRegister(e.nic, b, 64, NULL, GNI_MEM_USE_VMDH, 0, &h);
	tap_ok(rc == GNI_RC_INVALID_PARAM && fake.calls[REG_CMD] == calls &&
	       same_hndl(&h, &untouched),
	       "GNI_MEM_USE_VMDH before GNI_SetMddResources: INVALID_PARAM, "
	       "no ioctl (%s)", rc_name(rc));
	tap_ok(GNI_SetMddResources(NULL, 4) == GNI_RC_INVALID_PARAM &&
	       GNI_SetMddResources(e.nic, 0) == GNI_RC_INVALID_PARAM &&
	       GNI_SetMddResources(e.nic, KGNI_VMDH_ENTRIES + 1) ==
	       GNI_RC_INVALID_PARAM,
	       "GNI_SetMddResources: NULL NIC, 0 and 4097 entries: "
	       "INVALID_PARAM");
	tap_ok(GNI_SetMddResources(e.nic, KGNI_VMDH_ENTRIES) ==
	       GNI_RC_SUCCESS && GNI_SetMddResources(e.nic, 2) ==
	       GNI_RC_SUCCESS, "GNI_SetMddResources: 4096, then 2 entries");
	rc = GNI_MemRegister(e.nic, b, 64, NULL, GNI_MEM_USE_VMDH, 2, &h);
	tap_ok(rc == GNI_RC_INVALID_PARAM && fake.calls[REG_CMD] == calls &&
	       same_hndl(&h, &untouched),
	       "index 2 of a block of 2: INVALID_PARAM, no ioctl (%s)",
	       rc_name(rc));

	rc = GNI_MemRegister(e.nic, b, 64, NULL,
			     GNI_MEM_USE_VMDH | GNI_MEM_READ_ONLY, 1, &h);
	CHECK_EQ(rc, GNI_RC_SUCCESS);
	CHECK_EQ(fake.reg.flags, KGNI_MEM_VMDH | KGNI_MEM_READONLY);
	CHECK_EQ(fake.reg.vmdh_index, 1);
	CHECK_EQ(fake.reg.vmdh_count, 2);
	CHECK_EQ(GNI_MEMHNDL_GET_MDH(h), KGNI_VMDH_MDH(1));
	tap_test_end("GNI_MEM_USE_VMDH, index 1: KGNI_MEM_VMDH, index 1, "
		     "block 2; the handle names MDD 4094 (%s)", rc_name(rc));
	rc = GNI_RebuildMemHndl(&h, 1, &r);
	tap_ok(rc == GNI_RC_SUCCESS && same_hndl(&r, &h),
	       "GNI_RebuildMemHndl of a vMDH registration at its own index "
	       "gives the handle back: a peer's at that index, same layout, "
	       "is the same handle");
	h2 = untouched;
	rc = GNI_MemRegister(e.nic, b + 64, 64, NULL, GNI_MEM_USE_VMDH, 1,
			     &h2);
	tap_ok(rc == GNI_RC_ERROR_RESOURCE && same_hndl(&h2, &untouched),
	       "the same index again: ERROR_RESOURCE (kgni's EBUSY), handle "
	       "untouched (%s)", rc_name(rc));
	rc = GNI_MemRegisterSegments(e.nic, &seg, 1, NULL, GNI_MEM_USE_VMDH,
				     (uint32_t)-1, &h2);
	CHECK_EQ(rc, GNI_RC_SUCCESS);
	CHECK_EQ(fake.segs.flags, KGNI_MEM_VMDH);
	CHECK_EQ(fake.segs.vmdh_index, KGNI_VMDH_ANY);
	CHECK_EQ(fake.segs.vmdh_count, 2);
	CHECK_EQ(GNI_MEMHNDL_GET_MDH(h2), KGNI_VMDH_MDH(0));
	tap_test_end("GNI_MemRegisterSegments, GNI_MEM_USE_VMDH, index -1: "
		     "KGNI_VMDH_ANY, the free index 0 (%s)", rc_name(rc));
	h3 = untouched;
	rc = GNI_MemRegister(e.nic, b + 128, 64, NULL, GNI_MEM_USE_VMDH,
			     (uint32_t)-1, &h3);
	tap_ok(rc == GNI_RC_ERROR_RESOURCE && same_hndl(&h3, &untouched),
	       "index -1 in a full block: ERROR_RESOURCE (kgni's ENOSPC) (%s)",
	       rc_name(rc));
	rc = GNI_MemRegister(e.nic, b + 128, 64, NULL, 0, 1, &h3);
	tap_ok(rc == GNI_RC_SUCCESS && fake.reg.flags == 0 &&
	       fake.reg.vmdh_index == 0 && fake.reg.vmdh_count == 0 &&
	       GNI_MEMHNDL_GET_MDH(h3) != KGNI_VMDH_MDH(1),
	       "without GNI_MEM_USE_VMDH vmdh_index is not read (%s)",
	       rc_name(rc));
	tap_ok(GNI_MemDeregister(e.nic, &h) == GNI_RC_SUCCESS &&
	       GNI_MemRegister(e.nic, b + 64, 64, NULL, GNI_MEM_USE_VMDH, 1,
			       &h) == GNI_RC_SUCCESS &&
	       GNI_MEMHNDL_GET_MDH(h) == KGNI_VMDH_MDH(1),
	       "a deregistered index can be taken again");
	GNI_MemDeregister(e.nic, &h);
	GNI_MemDeregister(e.nic, &h2);
	GNI_MemDeregister(e.nic, &h3);
	env_close(&e);
}

/* One GNI_MemQueryHndls call that must fail with @want, zeroing the out */
static void query_refused(gni_nic_handle_t nic, int fd, gni_mem_handle_t *mh,
			  gni_return_t want, const char *what)
{
	gni_mem_handle_t before = *mh;
	uint64_t addr = 1, len = 1;
	gni_return_t rc = GNI_MemQueryHndls(nic, fd, mh, &addr, &len);

	tap_ok(rc == want && !addr && !len && same_hndl(mh, &before),
	       "GNI_MemQueryHndls %s: %s (want %s), address and length 0, "
	       "handle untouched", what, rc_name(rc), rc_name(want));
}

static void test_mem_query(void)
{
	gni_mem_handle_t mh, zero = { 0, 0 }, bad;
	uint64_t addr, len, b;
	unsigned int calls;
	int pipefd[2], fd2;
	struct env e;
	gni_return_t rc;

	if (!env_open(&e, 0))
		return;
	b = (uint64_t)(uintptr_t)e.buf;

	/* the NIC's two registrations, in order, then none */
	mh = zero;
	rc = GNI_MemQueryHndls(e.nic, -1, &mh, &addr, &len);
	CHECK_EQ(rc, GNI_RC_SUCCESS);
	CHECK(same_hndl(&mh, &e.lmh));
	CHECK_EQ(addr, b);
	CHECK_EQ(len, 8192);
	CHECK_EQ(fake.query.size, sizeof(fake.query));
	CHECK_EQ(fake.query.mem_hndl[0], 0);
	rc = GNI_MemQueryHndls(e.nic, -1, &mh, &addr, &len);
	CHECK_EQ(rc, GNI_RC_SUCCESS);
	CHECK(same_hndl(&mh, &e.lro));
	CHECK_EQ(addr, b + 8192);
	CHECK_EQ(len, 4096);
	CHECK_EQ(fake.query.mem_hndl[0], e.lmh.qword1);
	tap_test_end("GNI_MemQueryHndls: from the zero handle, the NIC's "
		     "registrations in order with their address and length");
	query_refused(e.nic, -1, &mh, GNI_RC_NO_MATCH, "after the last");

	/* the open file instead of the NIC handle: the same walk */
	mh = zero;
	rc = GNI_MemQueryHndls(NULL, e.nic->fd, &mh, &addr, &len);
	tap_ok(rc == GNI_RC_SUCCESS && same_hndl(&mh, &e.lmh) && addr == b &&
	       len == 8192, "GNI_MemQueryHndls of the NIC's open file: its "
	       "first registration (%s)", rc_name(rc));
	fd2 = open("/dev/kgni0", O_RDWR);
	mh = zero;
	query_refused(NULL, fd2, &mh, GNI_RC_NO_MATCH,
		      "of another /dev/kgni0 file, which has none");
	close(fd2);

	/* arguments */
	mh = zero;
	query_refused(e.nic, e.nic->fd, &mh, GNI_RC_INVALID_PARAM,
		      "with both a NIC and a file");
	query_refused(NULL, -1, &mh, GNI_RC_INVALID_PARAM,
		      "with neither a NIC nor a file");
	addr = len = 1;
	tap_ok(GNI_MemQueryHndls(e.nic, -1, NULL, &addr, &len) ==
	       GNI_RC_INVALID_PARAM && !addr && !len &&
	       GNI_MemQueryHndls(e.nic, -1, &mh, NULL, &len) ==
	       GNI_RC_INVALID_PARAM &&
	       GNI_MemQueryHndls(e.nic, -1, &mh, &addr, NULL) ==
	       GNI_RC_INVALID_PARAM,
	       "GNI_MemQueryHndls: NULL handle, address or length: "
	       "INVALID_PARAM");
	/* a number the fake never gave out (it does not see closes) */
	if (pipe(pipefd) == 0 && dup2(pipefd[0], 900) == 900) {
		calls = fake.calls[QUERY_CMD];
		query_refused(NULL, 900, &mh, GNI_RC_INVALID_PARAM,
			      "of a pipe (the ioctl is refused)");
		tap_ok(fake.calls[QUERY_CMD] == calls,
		       "the pipe's ioctl did not reach kgni");
		close(900);
		close(pipefd[0]);
		close(pipefd[1]);
	}
	mh = e.rmh;
	query_refused(e.nic, -1, &mh, GNI_RC_INVALID_STATE,
		      "after a peer's handle");
	bad = e.lmh;
	bad.qword2 ^= 1ull << 56;
	mh = bad;
	calls = fake.calls[QUERY_CMD];
	query_refused(e.nic, -1, &mh, GNI_RC_INVALID_STATE,
		      "after a handle with a bad CRC");
	tap_ok(fake.calls[QUERY_CMD] == calls,
	       "a bad CRC is refused without an ioctl");
	fake.fail[QUERY_CMD] = ENODEV;
	mh = zero;
	query_refused(e.nic, -1, &mh, GNI_RC_INVALID_PARAM,
		      "when the NIC is gone (ENODEV)");

	/* a deregistered handle is not found; the rest still is */
	GNI_MemDeregister(e.nic, &e.lmh);
	mh = e.lmh;
	query_refused(e.nic, -1, &mh, GNI_RC_INVALID_STATE,
		      "after a deregistered handle");
	mh = zero;
	rc = GNI_MemQueryHndls(e.nic, -1, &mh, &addr, &len);
	tap_ok(rc == GNI_RC_SUCCESS && same_hndl(&mh, &e.lro) &&
	       addr == b + 8192 && len == 4096,
	       "after GNI_MemDeregister the first is the next one (%s)",
	       rc_name(rc));
	GNI_MemDeregister(e.nic, &e.lro);
	mh = zero;
	query_refused(e.nic, -1, &mh, GNI_RC_NO_MATCH,
		      "of a NIC without registrations");
	env_close(&e);
}

static void test_ntt_gran(void)
{
	uint32_t gran = 77;
	gni_return_t rc;

	tap_ok(GNI_GetNttGran(0, NULL) == GNI_RC_INVALID_PARAM,
	       "GNI_GetNttGran(0, NULL): INVALID_PARAM");
	fake.ntt_gran = 0;
	rc = GNI_GetNttGran(0, &gran);
	tap_ok(rc == GNI_RC_SUCCESS && gran == 0 &&
	       fake.calls[NTT_CMD] == 1,
	       "GNI_GetNttGran(0): KGNI_IOC_NTT_QUERY, granularity 0 (%s)",
	       rc_name(rc));
	fake.ntt_gran = 3;
	rc = GNI_GetNttGran((uint32_t)-1, &gran);
	tap_ok(rc == GNI_RC_SUCCESS && gran == 3,
	       "GNI_GetNttGran(-1), the nearest NIC: what the device holds, "
	       "3 (%s)", rc_name(rc));
	gran = 77;
	rc = GNI_GetNttGran(8, &gran);
	tap_ok(rc == GNI_RC_INVALID_PARAM && gran == 77,
	       "GNI_GetNttGran(8), no such device: INVALID_PARAM (%s)",
	       rc_name(rc));
	fake.fail[NTT_CMD] = ENOTTY;
	rc = GNI_GetNttGran(0, &gran);
	tap_ok(rc == GNI_RC_INVALID_PARAM && gran == 77,
	       "GNI_GetNttGran when the kernel refuses: INVALID_PARAM (%s)",
	       rc_name(rc));
	fake.ntt_gran = 0;
}

#define SUSP_CMD	FAKE_CMD(KGNI_IOC_JOB_SUSPEND)
#define RESUME_CMD	FAKE_CMD(KGNI_IOC_JOB_RESUME)

#define NTTC_CMD	FAKE_CMD(KGNI_IOC_NTT_CONFIG)
#define JOBC_CMD	FAKE_CMD(KGNI_IOC_JOB_CONFIGURE)

/* GNI_ConfigureNTT, GNI_ConfigureJob, GNI_ConfigureNTTandJob */
static void test_job_configure(void)
{
	static const struct {
		int err;
		gni_return_t rc;
		const char *why;
	} map[] = {
		{ EPERM, GNI_RC_PERMISSION_ERROR, "not privileged" },
		{ EINVAL, GNI_RC_INVALID_PARAM, "a bad ptag or limit" },
		{ ENOENT, GNI_RC_INVALID_PARAM, "no cgroup of that id" },
		{ EBUSY, GNI_RC_INVALID_STATE, "the ptag is another job's" },
		{ ENXIO, GNI_RC_NO_MATCH, "no such NTT block" },
		{ EOPNOTSUPP, GNI_RC_ILLEGAL_OP, "the NTT block changes" },
		{ ENOSPC, GNI_RC_ERROR_RESOURCE, "no job slot" },
		{ ENOMEM, GNI_RC_ERROR_NOMEM, "no memory" },
	};
	uint32_t table[3] = { 0x11, 0x22, 0x33 }, base = 0;
	gni_ntt_descriptor_t nd = { .group_size = 3, .granularity = 1,
				    .u.table = table };
	gni_job_limits_t lim;
	unsigned int i, calls;
	gni_return_t rc;

	tap_ok(GNI_ConfigureNTT(0, NULL, &base) == GNI_RC_INVALID_PARAM &&
	       GNI_ConfigureNTT(0, &nd, NULL) == GNI_RC_INVALID_PARAM,
	       "GNI_ConfigureNTT without a descriptor or base: INVALID_PARAM");
	fake.ntt_next_base = 40;
	rc = GNI_ConfigureNTT(0, &nd, &base);
	tap_ok(rc == GNI_RC_SUCCESS && base == 40 && !fake.nttc.flags &&
	       fake.nttc.size == sizeof(fake.nttc) &&
	       fake.nttc.group_size == 3 && fake.nttc.gran == 1 &&
	       fake.ntt_table[0] == 0x11 && fake.ntt_table[2] == 0x33,
	       "GNI_ConfigureNTT: KGNI_IOC_NTT_CONFIG with the table, size and "
	       "granularity; the block's base back (%s, %u)", rc_name(rc),
	       base);
	nd.u.table = NULL;
	base = 40;
	rc = GNI_ConfigureNTT(0, &nd, &base);
	tap_ok(rc == GNI_RC_SUCCESS && fake.nttc.flags == KGNI_NTT_CLEAR &&
	       fake.nttc.base == 40 && fake.nttc.group_size == 3,
	       "GNI_ConfigureNTT, no table: clears the block (%s)",
	       rc_name(rc));
	nd.group_size = (uint32_t)-1;
	base = (uint32_t)-1;
	rc = GNI_ConfigureNTT(0, &nd, &base);
	tap_ok(rc == GNI_RC_SUCCESS &&
	       fake.nttc.flags == KGNI_NTT_CLEAR_UNUSED,
	       "GNI_ConfigureNTT, no table, base and size -1: clears every "
	       "unused block (%s)", rc_name(rc));
	nd.group_size = 3;
	nd.u.table = table;
	fake.fail[NTTC_CMD] = ENOSPC;
	rc = GNI_ConfigureNTT(0, &nd, &base);
	tap_ok(rc == GNI_RC_ERROR_RESOURCE,
	       "GNI_ConfigureNTT, no room: ERROR_RESOURCE (%s)", rc_name(rc));
	rc = GNI_ConfigureNTT(8, &nd, &base);
	tap_ok(rc == GNI_RC_NO_MATCH,
	       "GNI_ConfigureNTT(8), no such device: NO_MATCH (%s)",
	       rc_name(rc));

	calls = fake.calls[JOBC_CMD];
	rc = GNI_ConfigureJob(0, 0x123456789ull, 9, 0xbeef, NULL);
	tap_ok(rc == GNI_RC_SUCCESS && fake.calls[JOBC_CMD] == calls + 1 &&
	       fake.jobc.size == sizeof(fake.jobc) &&
	       fake.jobc.flags == KGNI_JOB_BY_ID &&
	       fake.jobc.job_id == 0x123456789ull && fake.jobc.ptag == 9 &&
	       fake.jobc.cookie == 0xbeef &&
	       fake.jobc.uid == KGNI_JOB_ANY_UID,
	       "GNI_ConfigureJob: KGNI_IOC_JOB_CONFIGURE by cgroup id, any "
	       "user, no limits (%s)", rc_name(rc));
	memset(&lim, 0xff, sizeof(lim));
	lim.mdd_limit = 100;
	lim.b.gart_limit = 200;
	lim.fma_limit = 3;
	lim.cq_limit = 4;
	lim.ntt_base = 40;
	lim.ntt_size = 3;
	lim.ntt_ctrl = GNI_JOB_CTRL_NTT_CLEANUP;
	rc = GNI_ConfigureJob(0, 5, 9, 0xbeef, &lim);
	tap_ok(rc == GNI_RC_SUCCESS &&
	       fake.jobc.flags == (KGNI_JOB_BY_ID | KGNI_JOB_LIMITS) &&
	       fake.jobc.mdd_limit == 100 && fake.jobc.mrt_limit == -1 &&
	       fake.jobc.gart_limit == 200 && fake.jobc.fma_limit == 3 &&
	       fake.jobc.bte_limit == -1 && fake.jobc.cq_limit == 4 &&
	       fake.jobc.ntt_base == 40 && fake.jobc.ntt_size == 3 &&
	       fake.jobc.ntt_ctrl == KGNI_JOB_NTT_CLEANUP,
	       "GNI_ConfigureJob: the limits and NTT block, -1 passed as "
	       "not set (%s)", rc_name(rc));
	lim.ntt_ctrl = GNI_JOB_INVALID_LIMIT;
	rc = GNI_ConfigureJob(0, 5, 9, 0xbeef, &lim);
	tap_ok(rc == GNI_RC_SUCCESS && fake.jobc.ntt_ctrl == 0,
	       "GNI_ConfigureJob: ntt_ctrl -1 is no control bit (%s)",
	       rc_name(rc));
	for (i = 0; i < ARRAY_SIZE(map); i++) {
		fake.fail[JOBC_CMD] = map[i].err;
		rc = GNI_ConfigureJob(0, 5, 9, 0xbeef, NULL);
		tap_ok(rc == map[i].rc, "GNI_ConfigureJob, %s: %s (%s)",
		       map[i].why, rc_name(map[i].rc), rc_name(rc));
	}
	rc = GNI_ConfigureJob(8, 5, 9, 0xbeef, NULL);
	tap_ok(rc == GNI_RC_NO_MATCH,
	       "GNI_ConfigureJob(8), no such device: NO_MATCH (%s)",
	       rc_name(rc));

	fake.ntt_next_base = 64;
	base = 0;
	rc = GNI_ConfigureNTTandJob(0, 5, 9, 0xbeef, NULL, &nd, &base);
	tap_ok(rc == GNI_RC_SUCCESS && base == 64 &&
	       fake.jobc.flags == (KGNI_JOB_BY_ID | KGNI_JOB_LIMITS) &&
	       fake.jobc.ntt_base == 64 && fake.jobc.ntt_size == 3 &&
	       fake.jobc.mdd_limit == -1 && fake.jobc.ntt_ctrl == 0,
	       "GNI_ConfigureNTTandJob: the new block becomes the job's (%s)",
	       rc_name(rc));
	fake.fail[JOBC_CMD] = EBUSY;
	base = 0;
	calls = fake.calls[NTTC_CMD];
	rc = GNI_ConfigureNTTandJob(0, 5, 9, 0xbeef, NULL, &nd, &base);
	tap_ok(rc == GNI_RC_INVALID_STATE && base == 0 &&
	       fake.calls[NTTC_CMD] == calls + 2 &&
	       fake.nttc.flags == KGNI_NTT_CLEAR && fake.nttc.base == 64,
	       "GNI_ConfigureNTTandJob, the job refused: the block is given "
	       "back (%s)", rc_name(rc));
	nd.u.table = NULL;
	tap_ok(GNI_ConfigureNTTandJob(0, 5, 9, 0xbeef, NULL, &nd, &base) ==
	       GNI_RC_INVALID_PARAM,
	       "GNI_ConfigureNTTandJob cannot clear the table: INVALID_PARAM");
	calls = fake.calls[JOBC_CMD];
	rc = GNI_ConfigureNTTandJob(0, 5, 9, 0xbeef, NULL, NULL, NULL);
	tap_ok(rc == GNI_RC_SUCCESS && fake.calls[JOBC_CMD] == calls + 1 &&
	       fake.jobc.flags == KGNI_JOB_BY_ID,
	       "GNI_ConfigureNTTandJob without a descriptor: ConfigureJob "
	       "(%s)", rc_name(rc));
}

#define BIC_CMD		FAKE_CMD(KGNI_IOC_BI_CONFIG)

/* GNI_GetBIConfig, GNI_SetBIConfig, GNI_BISyncWait */
static void test_bi(void)
{
	gni_bi_desc_t d;
	gni_return_t rc;

	fake.bi_state = (struct kgni_bi_config){
		.current_bw = 100, .current_aot_bw = 90, .current_norbs = 992,
		.current_modes = 4, .sys_def_bw = 100, .sys_def_aot_bw = 100,
		.cle_seqnum = 3, .hss_seqnum = 3,
	};
	tap_ok(GNI_GetBIConfig(0, NULL) == GNI_RC_INVALID_PARAM,
	       "GNI_GetBIConfig(0, NULL): INVALID_PARAM");
	memset(&d, 0xff, sizeof(d));
	rc = GNI_GetBIConfig(0, &d);
	tap_ok(rc == GNI_RC_SUCCESS && !fake.bic.flags &&
	       d.current_bw == 100 && d.current_aot_bw == 90 &&
	       d.current_norbs == 992 && d.flags == 4 && d.sys_def_bw == 100 &&
	       d.sys_def_aot_bw == 100 && d.cle_seqnum == 3 &&
	       d.hss_seqnum == 3,
	       "GNI_GetBIConfig: KGNI_IOC_BI_CONFIG read, every field (%s)",
	       rc_name(rc));
	rc = GNI_SetBIConfig(0, 20, 0, GNI_BI_FLAG_APPLY_NOW);
	tap_ok(rc == GNI_RC_SUCCESS && fake.bic.flags == KGNI_BI_SET &&
	       fake.bic.bw == 20 && fake.bic.aot_bw == 0 &&
	       fake.bic.modes == GNI_BI_FLAG_APPLY_NOW,
	       "GNI_SetBIConfig(20, APPLY_NOW), as NAMD calls it: the "
	       "setting passed (%s)", rc_name(rc));
	rc = GNI_GetBIConfig(0, &d);
	tap_ok(rc == GNI_RC_SUCCESS && d.current_bw == 20 && d.cle_seqnum == 4,
	       "GNI_GetBIConfig after it: 20 (%s)", rc_name(rc));
	fake.fail[BIC_CMD] = EINVAL;
	rc = GNI_SetBIConfig(0, 101, 0, 0);
	tap_ok(rc == GNI_RC_INVALID_PARAM,
	       "GNI_SetBIConfig refused by kgni: INVALID_PARAM (%s)",
	       rc_name(rc));
	tap_ok(GNI_SetBIConfig(8, 20, 0, 0) == GNI_RC_INVALID_PARAM &&
	       GNI_GetBIConfig(8, &d) == GNI_RC_INVALID_PARAM,
	       "no device 8: INVALID_PARAM");
	rc = GNI_BISyncWait(0, 100);
	tap_ok(rc == GNI_RC_SUCCESS, "GNI_BISyncWait, applied: SUCCESS (%s)",
	       rc_name(rc));
	fake.bi_state.cle_seqnum = 9;
	fake.bi_state.hss_seqnum = 8;
	rc = GNI_BISyncWait(0, 3);
	tap_ok(rc == GNI_RC_TIMEOUT,
	       "GNI_BISyncWait, not applied within 3 ms: TIMEOUT (%s)",
	       rc_name(rc));
}

/* GNI_SuspendJob and GNI_ResumeJob: the ioctl they fill, their errnos */
static void test_job_suspend(void)
{
	static const struct {
		int err;
		gni_return_t rc;
		const char *why;
	} map[] = {
		{ EPERM, GNI_RC_PERMISSION_ERROR, "not privileged" },
		{ EINVAL, GNI_RC_INVALID_PARAM, "a bad ptag" },
		{ ENOENT, GNI_RC_INVALID_PARAM, "no such job" },
		{ ETIMEDOUT, GNI_RC_TIMEOUT, "traffic not drained" },
		{ EINTR, GNI_RC_NOT_DONE, "a signal: try again" },
		{ EALREADY, GNI_RC_INVALID_STATE, "suspended already" },
		{ EOPNOTSUPP, GNI_RC_ERROR_RESOURCE, "a kernel client's" },
	};
	unsigned int i, calls;
	gni_return_t rc;

	calls = fake.calls[SUSP_CMD];
	rc = GNI_SuspendJob(0, 0x1122334455667788ull, 7, 0xabcd, 250);
	tap_ok(rc == GNI_RC_SUCCESS && fake.calls[SUSP_CMD] == calls + 1 &&
	       fake.susp.size == sizeof(fake.susp) && !fake.susp.flags &&
	       fake.susp.job_id == 0x1122334455667788ull &&
	       fake.susp.ptag == 7 && fake.susp.cookie == 0xabcd &&
	       fake.susp.timeout_ms == 250 && !fake.susp.reserved,
	       "GNI_SuspendJob: KGNI_IOC_JOB_SUSPEND with job id, ptag, "
	       "cookie, timeout (%s)", rc_name(rc));
	for (i = 0; i < ARRAY_SIZE(map); i++) {
		fake.fail[SUSP_CMD] = map[i].err;
		rc = GNI_SuspendJob(0, 1, 7, 0xabcd, 10);
		tap_ok(rc == map[i].rc, "GNI_SuspendJob, %s: %s (%s)",
		       map[i].why, rc_name(map[i].rc), rc_name(rc));
	}
	rc = GNI_SuspendJob((uint32_t)-1, 1, 7, 0xabcd, 0);
	tap_ok(rc == GNI_RC_SUCCESS && fake.susp.timeout_ms == 0,
	       "GNI_SuspendJob(-1), the nearest NIC, timeout 0 (%s)",
	       rc_name(rc));
	calls = fake.calls[SUSP_CMD];
	rc = GNI_SuspendJob(8, 1, 7, 0xabcd, 10);
	tap_ok(rc == GNI_RC_INVALID_PARAM && fake.calls[SUSP_CMD] == calls,
	       "GNI_SuspendJob(8), no such device: INVALID_PARAM (%s)",
	       rc_name(rc));

	calls = fake.calls[RESUME_CMD];
	rc = GNI_ResumeJob(0, 42, 9, 0x77);
	tap_ok(rc == GNI_RC_SUCCESS && fake.calls[RESUME_CMD] == calls + 1 &&
	       fake.susp.size == sizeof(fake.susp) && fake.susp.job_id == 42 &&
	       fake.susp.ptag == 9 && fake.susp.cookie == 0x77 &&
	       !fake.susp.timeout_ms && !fake.susp.flags,
	       "GNI_ResumeJob: KGNI_IOC_JOB_RESUME, timeout 0 (%s)",
	       rc_name(rc));
	fake.fail[RESUME_CMD] = EALREADY;
	rc = GNI_ResumeJob(0, 42, 9, 0x77);
	tap_ok(rc == GNI_RC_INVALID_STATE,
	       "GNI_ResumeJob of a job not suspended: INVALID_STATE (%s)",
	       rc_name(rc));
	fake.fail[RESUME_CMD] = EPERM;
	rc = GNI_ResumeJob(0, 42, 9, 0x77);
	tap_ok(rc == GNI_RC_PERMISSION_ERROR,
	       "GNI_ResumeJob not privileged: PERMISSION_ERROR (%s)",
	       rc_name(rc));
	fake.fail[RESUME_CMD] = ENOENT;
	rc = GNI_ResumeJob(0, 42, 9, 0x77);
	tap_ok(rc == GNI_RC_INVALID_PARAM,
	       "GNI_ResumeJob of no such job: INVALID_PARAM (%s)",
	       rc_name(rc));
	rc = GNI_ResumeJob(8, 42, 9, 0x77);
	tap_ok(rc == GNI_RC_INVALID_PARAM,
	       "GNI_ResumeJob(8), no such device: INVALID_PARAM (%s)",
	       rc_name(rc));
}

#define CQDESTROY_CMD	FAKE_CMD(KGNI_IOC_CQ_DESTROY)
#define FMAFREE_CMD	FAKE_CMD(KGNI_IOC_FMA_FREE)
#define FMAALLOC_CMD	FAKE_CMD(KGNI_IOC_FMA_ALLOC)

/* GNI_CdmCheckpoint and GNI_CdmResume: the checkpoint bit, no syscall */
static void test_cdm_checkpoint(void)
{
	unsigned int cqd, fmaf, fmaa;
	gni_cdm_handle_t cdm = NULL;
	gni_cq_handle_t cq2 = NULL, cq3 = NULL;
	struct env e;
	gni_return_t rc;
	int fd;

	tap_ok(GNI_CdmCheckpoint(NULL) == GNI_RC_INVALID_PARAM,
	       "GNI_CdmCheckpoint(NULL): INVALID_PARAM");
	tap_ok(GNI_CdmResume(NULL) == GNI_RC_INVALID_PARAM,
	       "GNI_CdmResume(NULL): INVALID_PARAM");
	rc = GNI_CdmCreate(INST_ID, 5, 0xc0c0, 0, &cdm);
	if (rc == GNI_RC_SUCCESS)
		rc = GNI_CdmCheckpoint(cdm);
	if (rc == GNI_RC_SUCCESS)
		rc = GNI_CdmResume(cdm);
	tap_ok(rc == GNI_RC_SUCCESS,
	       "GNI_CdmCheckpoint, GNI_CdmResume of a CDM not attached: "
	       "SUCCESS (%s)", rc_name(rc));
	GNI_CdmDestroy(cdm);

	if (!env_open(&e, 0))
		return;
	GNI_CqCreate(e.nic, 16, 0, GNI_CQ_NOBLOCK, NULL, NULL, &cq2);
	rc = GNI_CdmCheckpoint(e.cdm);
	tap_ok(rc == GNI_RC_SUCCESS && e.nic->checkpointed,
	       "GNI_CdmCheckpoint sets the NIC handle's checkpoint bit (%s)",
	       rc_name(rc));
	rc = GNI_CdmResume(e.cdm);
	tap_ok(rc == GNI_RC_SUCCESS && !e.nic->checkpointed,
	       "GNI_CdmResume clears it (%s)", rc_name(rc));
	GNI_CdmCheckpoint(e.cdm);
	rc = GNI_CdmCheckpoint(e.cdm);
	tap_ok(rc == GNI_RC_SUCCESS && e.nic->checkpointed,
	       "GNI_CdmCheckpoint twice: SUCCESS (%s)", rc_name(rc));
	fmaa = fake.calls[FMAALLOC_CMD];
	cqd = fake.calls[FAKE_CMD(KGNI_IOC_CQ_CREATE)];
	rc = GNI_CqCreate(e.nic, 16, 0, GNI_CQ_NOBLOCK, NULL, NULL, &cq3);
	tap_ok(rc != GNI_RC_SUCCESS && !cq3 &&
	       fake.calls[FAKE_CMD(KGNI_IOC_CQ_CREATE)] == cqd &&
	       fake.calls[FMAALLOC_CMD] == fmaa,
	       "after a checkpoint a call that needs the device makes no "
	       "ioctl and fails (%s)", rc_name(rc));
	cqd = fake.calls[CQDESTROY_CMD];
	fmaf = fake.calls[FMAFREE_CMD];
	fd = e.nic->fd;
	rc = cq2 ? GNI_CqDestroy(cq2) : GNI_RC_INVALID_PARAM;
	tap_ok(rc == GNI_RC_SUCCESS && fake.calls[CQDESTROY_CMD] == cqd,
	       "GNI_CqDestroy after a checkpoint: SUCCESS, no "
	       "KGNI_IOC_CQ_DESTROY (%s)", rc_name(rc));
	rc = GNI_EpDestroy(e.ep);
	tap_ok(rc == GNI_RC_SUCCESS && fake.calls[FMAFREE_CMD] == fmaf,
	       "GNI_EpDestroy after a checkpoint: SUCCESS, no "
	       "KGNI_IOC_FMA_FREE (%s)", rc_name(rc));
	rc = GNI_CdmDestroy(e.cdm);
	tap_ok(rc == GNI_RC_SUCCESS && fake.calls[CQDESTROY_CMD] == cqd &&
	       fcntl(fd, F_GETFD) >= 0,
	       "GNI_CdmDestroy after a checkpoint: SUCCESS, no "
	       "KGNI_IOC_CQ_DESTROY, the device's file not closed (%s)",
	       rc_name(rc));
	close(fd);
	free(e.buf);
}

/* --- Error subscription ------------------------------------------------ */

#define ESUB_CMD	FAKE_CMD(KGNI_IOC_ERR_SUBSCRIBE)
#define EREL_CMD	FAKE_CMD(KGNI_IOC_ERR_RELEASE)
#define EMASK_CMD	FAKE_CMD(KGNI_IOC_ERR_MASK)
#define EWAIT_CMD	FAKE_CMD(KGNI_IOC_ERR_WAIT)
#define EPTAG_CMD	FAKE_CMD(KGNI_IOC_ERR_PTAG)

static void test_errors(void)
{
	gni_error_event_t ev[4], one;
	gni_error_mask_t m = 0;
	gni_err_handle_t h = NULL, h2 = NULL, hp = NULL;
	gni_err_handle_t hs[KGNI_ERR_FILE_SUBS];
	gni_cdm_handle_t cdm;
	gni_nic_handle_t nic;
	uint32_t addr, n;
	gni_error_event_t *big;
	gni_return_t rc;
	unsigned int i, k;

	rc = GNI_CdmCreate(INST_ID, 5, 0xc0c0, 0, &cdm);
	if (rc == GNI_RC_SUCCESS)
		rc = GNI_CdmAttach(cdm, 0, &addr, &nic);
	if (!tap_ok(rc == GNI_RC_SUCCESS, "errors: CDM of ptag 5 attached (%s)",
		    rc_name(rc)))
		return;

	/* GNI_SubscribeErrors */
	tap_ok(GNI_SubscribeErrors(nic, 0, 0xff, 0, NULL) ==
	       GNI_RC_INVALID_PARAM && !fake.calls[ESUB_CMD],
	       "GNI_SubscribeErrors(err_handle NULL): INVALID_PARAM, no ioctl");
	rc = GNI_SubscribeErrors(nic, 0, 0xff, KGNI_ERR_USER_MAX_EEQ + 1, &h);
	tap_ok(rc == GNI_RC_ERROR_RESOURCE && !fake.calls[ESUB_CMD],
	       "GNI_SubscribeErrors(EEQ_size %u): ERROR_RESOURCE (%s)",
	       KGNI_ERR_USER_MAX_EEQ + 1, rc_name(rc));
	rc = GNI_SubscribeErrors(nic, 0, GNI_ERRMASK_TRANSIENT |
				 GNI_ERRMASK_TRANSACTION, 0, &h);
	tap_ok(rc == GNI_RC_SUCCESS && h && fake.esub.eeq_size == 64 &&
	       fake.esub.flags == 0 && fake.esub.mask == 0x14 &&
	       fake.esub.size == sizeof(struct kgni_err_subscribe),
	       "GNI_SubscribeErrors(nic, EEQ_size 0): KGNI_IOC_ERR_SUBSCRIBE "
	       "of 64 events, the mask, no flag (%s)", rc_name(rc));
	fake.fail[ESUB_CMD] = ENOSPC;
	rc = GNI_SubscribeErrors(nic, 0, 1, 8, &h2);
	tap_ok(rc == GNI_RC_ERROR_RESOURCE, "ENOSPC: ERROR_RESOURCE (%s)",
	       rc_name(rc));
	fake.fail[ESUB_CMD] = ENOMEM;
	rc = GNI_SubscribeErrors(nic, 0, 1, 8, &h2);
	tap_ok(rc == GNI_RC_ERROR_NOMEM, "ENOMEM: ERROR_NOMEM (%s)",
	       rc_name(rc));
	fake.fail[ESUB_CMD] = ENOLINK;
	rc = GNI_SubscribeErrors(nic, 0, 1, 8, &h2);
	tap_ok(rc == GNI_RC_INVALID_PARAM && !h2,
	       "ENOLINK (job released): INVALID_PARAM (%s)", rc_name(rc));

	/* nic NULL: privileged, every ptag, on a file of device_id */
	fake.privileged = false;
	rc = GNI_SubscribeErrors(NULL, 0, 0xff, 4, &hp);
	tap_ok(rc == GNI_RC_INVALID_PARAM && !hp &&
	       fake.esub.flags == KGNI_ERR_ALL_PTAGS,
	       "GNI_SubscribeErrors(NULL nic) unprivileged: KGNI_ERR_ALL_PTAGS "
	       "refused, INVALID_PARAM (%s)", rc_name(rc));
	rc = GNI_SubscribeErrors(NULL, 8, 0xff, 4, &hp);
	tap_ok(rc == GNI_RC_NO_MATCH && !hp,
	       "GNI_SubscribeErrors(NULL nic, device 8): NO_MATCH (%s)",
	       rc_name(rc));
	fake.privileged = true;
	rc = GNI_SubscribeErrors(NULL, 0, GNI_ERRMASK_TRANSACTION, 4, &hp);
	tap_ok(rc == GNI_RC_SUCCESS && hp, "GNI_SubscribeErrors(NULL nic) "
	       "privileged: SUCCESS (%s)", rc_name(rc));

	/* GNI_GetErrorEvent: none, then delivery by ptag */
	rc = GNI_GetErrorEvent(h, &one);
	tap_ok(rc == GNI_RC_NOT_DONE && fake.ewait.flags == 0 &&
	       fake.ewait.events_size == 1,
	       "GNI_GetErrorEvent, none queued: NOT_DONE, a non-blocking "
	       "KGNI_IOC_ERR_WAIT of 1 (%s)", rc_name(rc));
	tap_ok(GNI_GetErrorEvent(h, NULL) == GNI_RC_INVALID_PARAM &&
	       GNI_GetErrorEvent(NULL, &one) == GNI_RC_INVALID_PARAM,
	       "GNI_GetErrorEvent(NULL event / handle): INVALID_PARAM");
	k = fake_err_post(GNI_ERRMASK_TRANSACTION, 0x0401, 6, 99);
	EQ(k, 1);
	rc = GNI_GetErrorEvent(h, &one);
	tap_ok(rc == GNI_RC_NOT_DONE, "an event of ptag 6 does not reach the "
	       "ptag 5 subscription, only the privileged one (%s)",
	       rc_name(rc));
	k = fake_err_post(GNI_ERRMASK_TRANSACTION, 0x0401, 5, 42);
	EQ(k, 2);
	memset(&one, 0, sizeof(one));
	rc = GNI_GetErrorEvent(h, &one);
	tap_ok(rc == GNI_RC_SUCCESS && one.error_code == 0x0401 &&
	       one.error_category == GNI_ERRMASK_TRANSACTION &&
	       one.ptag == 5 && one.serial_number == 1 &&
	       one.info_mmrs[0] == 42,
	       "GNI_GetErrorEvent: the ptag 5 event, every field (%s)",
	       rc_name(rc));
	k = fake_err_post(GNI_ERRMASK_INFORMATIONAL, 0x0201, 0, 1);
	EQ(k, 0);
	rc = GNI_GetErrorEvent(h, &one);
	tap_ok(rc == GNI_RC_NOT_DONE, "a class outside the mask: not "
	       "delivered (%s)", rc_name(rc));
	rc = GNI_GetErrorEvent(hp, &one);
	tap_ok(rc == GNI_RC_SUCCESS && one.ptag == 6 && one.info_mmrs[0] == 99,
	       "the privileged subscription had the ptag 6 event (%s)",
	       rc_name(rc));

	/* GNI_GetErrorMask, GNI_SetErrorMask */
	rc = GNI_GetErrorMask(h, &m);
	tap_ok(rc == GNI_RC_SUCCESS && m == 0x14 &&
	       !(fake.ewait.flags & KGNI_ERR_MASK_SET),
	       "GNI_GetErrorMask: 0x14 (%s)", rc_name(rc));
	tap_ok(GNI_GetErrorMask(h, NULL) == GNI_RC_INVALID_PARAM &&
	       GNI_GetErrorMask(NULL, &m) == GNI_RC_INVALID_PARAM,
	       "GNI_GetErrorMask(NULL mask / handle): INVALID_PARAM");
	m = 0;
	rc = GNI_SetErrorMask(h, GNI_ERRMASK_INFORMATIONAL, &m);
	tap_ok(rc == GNI_RC_SUCCESS && m == 0x14,
	       "GNI_SetErrorMask(INFORMATIONAL): the mask before, 0x14 (%s)",
	       rc_name(rc));
	rc = GNI_GetErrorMask(h, &m);
	tap_ok(rc == GNI_RC_SUCCESS && m == GNI_ERRMASK_INFORMATIONAL,
	       "GNI_GetErrorMask after: INFORMATIONAL (%s)", rc_name(rc));
	tap_ok(GNI_SetErrorMask(h, 1, NULL) == GNI_RC_INVALID_PARAM &&
	       GNI_SetErrorMask(NULL, 1, &m) == GNI_RC_INVALID_PARAM,
	       "GNI_SetErrorMask(NULL mask_out / handle): INVALID_PARAM");
	k = fake_err_post(GNI_ERRMASK_TRANSACTION, 0x0401, 5, 1);
	EQ(k, 1);	/* the privileged one's */
	k = fake_err_post(GNI_ERRMASK_INFORMATIONAL, 0x0201, 0, 2);
	EQ(k, 1);

	/* GNI_WaitErrorEvents */
	tap_ok(GNI_WaitErrorEvents(h, NULL, 4, 0, &n) == GNI_RC_INVALID_PARAM &&
	       GNI_WaitErrorEvents(h, ev, 0, 0, &n) == GNI_RC_INVALID_PARAM &&
	       GNI_WaitErrorEvents(h, ev, 4, 0, NULL) ==
	       GNI_RC_INVALID_PARAM &&
	       GNI_WaitErrorEvents(NULL, ev, 4, 0, &n) == GNI_RC_INVALID_PARAM,
	       "GNI_WaitErrorEvents(NULL events, 0 events_size, NULL "
	       "num_events, NULL handle): INVALID_PARAM");
	n = 77;
	rc = GNI_WaitErrorEvents(h, ev, 1, 0, &n);
	tap_ok(rc == GNI_RC_SUCCESS && n == 1 && ev[0].error_code == 0x0201 &&
	       fake.ewait.flags == KGNI_ERR_WAIT_BLOCK &&
	       fake.ewait.timeout_ms == 0,
	       "GNI_WaitErrorEvents(1, timeout 0) with one queued: SUCCESS, "
	       "1, a blocking KGNI_IOC_ERR_WAIT (%s)", rc_name(rc));
	fake_err_post(GNI_ERRMASK_INFORMATIONAL, 0x0201, 0, 3);
	fake_err_post(GNI_ERRMASK_INFORMATIONAL, 0x0201, 0, 4);
	rc = GNI_WaitErrorEvents(h, ev, 4, 50, &n);
	tap_ok(rc == GNI_RC_TIMEOUT && n == 2 && ev[0].info_mmrs[0] == 3 &&
	       ev[1].info_mmrs[0] == 4 && fake.ewait.timeout_ms == 50,
	       "GNI_WaitErrorEvents(4, timeout 50) with two queued: the two, "
	       "oldest first, and TIMEOUT (no more came) (%s)", rc_name(rc));
	for (i = 0; i < 3; i++)
		fake_err_post(GNI_ERRMASK_INFORMATIONAL, 0x0201, 0, 10 + i);
	rc = GNI_WaitErrorEvents(h, ev, 2, 50, &n);
	tap_ok(rc == GNI_RC_SUCCESS && n == 2 && ev[1].info_mmrs[0] == 11,
	       "GNI_WaitErrorEvents(2, timeout 50) with three queued: two, "
	       "SUCCESS (%s)", rc_name(rc));
	rc = GNI_WaitErrorEvents(h, ev, 2, 50, &n);
	tap_ok(rc == GNI_RC_TIMEOUT && n == 1 && ev[0].info_mmrs[0] == 12 &&
	       ev[1].error_code == 0,
	       "... then the third, TIMEOUT, the rest of events zeroed (%s)",
	       rc_name(rc));
	fake.eintr[EWAIT_CMD] = 1;
	fake.eintr_ms = 20;
	n = 77;
	rc = GNI_WaitErrorEvents(h, ev, 4, 0, &n);
	tap_ok(rc == GNI_RC_NOT_DONE && n == 0,
	       "GNI_WaitErrorEvents with none queued, a signal: NOT_DONE, "
	       "0 events (%s)", rc_name(rc));
	fake.eintr_ms = 0;
	fake.err_on_wait = true;
	fake.err_next = (struct kgni_err_event){ .error_code = 0x0101,
		.error_category = GNI_ERRMASK_INFORMATIONAL };
	rc = GNI_WaitErrorEvents(h, ev, 4, 0, &n);
	tap_ok(rc == GNI_RC_SUCCESS && n == 1 && ev[0].error_code == 0x0101,
	       "GNI_WaitErrorEvents with none queued: the event that comes "
	       "(%s)", rc_name(rc));
	fake.fail[EWAIT_CMD] = EFAULT;
	rc = GNI_WaitErrorEvents(h, ev, 4, 0, &n);
	tap_ok(rc == GNI_RC_PERMISSION_ERROR, "GNI_WaitErrorEvents, EFAULT "
	       "(events not writable): PERMISSION_ERROR (%s)", rc_name(rc));
	big = calloc(KGNI_ERR_USER_MAX_EEQ, sizeof(*big));
	fake.eintr[EWAIT_CMD] = 1;
	rc = GNI_WaitErrorEvents(h, big, 100000, 0, &n);
	free(big);
	tap_ok(fake.ewait.events_size == KGNI_ERR_USER_MAX_EEQ,
	       "GNI_WaitErrorEvents(events_size 100000): asks the kernel for "
	       "at most %u (%s)", KGNI_ERR_USER_MAX_EEQ, rc_name(rc));
	/* the 64-event queue: the oldest go when it is full */
	for (i = 0; i < 70; i++)
		fake_err_post(GNI_ERRMASK_INFORMATIONAL, 0x0201, 0, 100 + i);
	rc = GNI_GetErrorEvent(h, &one);
	tap_ok(rc == GNI_RC_SUCCESS && one.info_mmrs[0] == 106,
	       "70 events into the 64-event queue: the first 6 dropped, the "
	       "serials tell the gap (%s, serial %u)", rc_name(rc),
	       one.serial_number);
	while (GNI_GetErrorEvent(h, &one) == GNI_RC_SUCCESS)
		;

	/* GNI_SetErrorPtag */
	fake.privileged = false;
	rc = GNI_SetErrorPtag(h, 6);
	tap_ok(rc == GNI_RC_PERMISSION_ERROR && fake.eptag.ptag == 6,
	       "GNI_SetErrorPtag(6) unprivileged, CDM of ptag 5: "
	       "PERMISSION_ERROR (%s)", rc_name(rc));
	rc = GNI_SetErrorPtag(h, 0);
	tap_ok(rc == GNI_RC_PERMISSION_ERROR, "GNI_SetErrorPtag(0: every "
	       "ptag) unprivileged: PERMISSION_ERROR (%s)", rc_name(rc));
	rc = GNI_SetErrorPtag(h, 5);
	tap_ok(rc == GNI_RC_SUCCESS, "GNI_SetErrorPtag(5), its own CDM's: "
	       "SUCCESS (%s)", rc_name(rc));
	tap_ok(GNI_SetErrorPtag(NULL, 5) == GNI_RC_INVALID_PARAM,
	       "GNI_SetErrorPtag(NULL handle): INVALID_PARAM");
	fake.privileged = true;
	rc = GNI_SetErrorPtag(h, 6);
	tap_ok(rc == GNI_RC_SUCCESS, "GNI_SetErrorPtag(6) privileged: "
	       "SUCCESS (%s)", rc_name(rc));
	GNI_SetErrorMask(h, 0xff, &m);
	k = fake_err_post(GNI_ERRMASK_TRANSACTION, 0x0401, 6, 7);
	EQ(k, 2);
	rc = GNI_GetErrorEvent(h, &one);
	tap_ok(rc == GNI_RC_SUCCESS && one.ptag == 6,
	       "then events of ptag 6 reach it (%s)", rc_name(rc));
	fake.privileged = false;

	/* GNI_ReleaseErrors */
	fake.err_busy = true;
	rc = GNI_ReleaseErrors(h);
	tap_ok(rc == GNI_RC_NOT_DONE && fake_errs() == 2,
	       "GNI_ReleaseErrors while a thread waits (EBUSY): NOT_DONE, "
	       "it stays (%s)", rc_name(rc));
	fake.err_busy = false;
	rc = GNI_ReleaseErrors(h);
	tap_ok(rc == GNI_RC_SUCCESS && fake_errs() == 1,
	       "GNI_ReleaseErrors: SUCCESS, the kernel's subscription gone "
	       "(%s)", rc_name(rc));
	rc = GNI_ReleaseErrors(hp);
	tap_ok(rc == GNI_RC_SUCCESS && fake_errs() == 0,
	       "GNI_ReleaseErrors of the privileged one (%s)", rc_name(rc));
	tap_ok(GNI_ReleaseErrors(NULL) == GNI_RC_INVALID_PARAM,
	       "GNI_ReleaseErrors(NULL): INVALID_PARAM");
	/* a file's limit, and the kernel refusing an id */
	for (i = 0; i < KGNI_ERR_FILE_SUBS; i++)
		GNI_SubscribeErrors(nic, 0, 1, 1, &hs[i]);
	h = hs[0];
	h2 = hs[1];
	rc = GNI_SubscribeErrors(nic, 0, 1, 1, &hp);
	tap_ok(rc == GNI_RC_ERROR_RESOURCE && fake_errs() == KGNI_ERR_FILE_SUBS,
	       "a %uth subscription of one file: ERROR_RESOURCE (%s)",
	       KGNI_ERR_FILE_SUBS + 1, rc_name(rc));
	fake.fail[EMASK_CMD] = EINVAL;
	tap_ok(GNI_GetErrorMask(h, &m) == GNI_RC_INVALID_PARAM,
	       "GNI_GetErrorMask, the kernel knows no such id: INVALID_PARAM");
	fake.fail[EREL_CMD] = ENODEV;
	rc = GNI_ReleaseErrors(h);
	tap_ok(rc == GNI_RC_SUCCESS, "GNI_ReleaseErrors, the device gone "
	       "(ENODEV): the handle freed, SUCCESS (%s)", rc_name(rc));
	fake.fail[EREL_CMD] = EINVAL;
	rc = GNI_ReleaseErrors(h2);
	tap_ok(rc == GNI_RC_INVALID_PARAM, "GNI_ReleaseErrors, the kernel "
	       "refuses: INVALID_PARAM (%s)", rc_name(rc));
	for (i = 1; i < KGNI_ERR_FILE_SUBS; i++)
		GNI_ReleaseErrors(hs[i]);
	tap_ok(fake_errs() == 1, "the rest released (the fake keeps the one "
	       "its ENODEV refused)");
	GNI_CdmDestroy(cdm);
}

int main(void)
{
	tap_begin();
	test_layouts();
	test_constants();
	test_err_str();
	test_cq_error_str();
	test_cq_recoverable();
	test_cq_accessors();
	test_info();
	test_memhndl();
	test_memhndl_layout();
	test_unimplemented();
	test_msgq_args();
	test_rdma_refusals();
	test_rdma_ioctl();
	test_rdma_errno();
	test_rdma_completions();
	test_mem_segments();
	test_rebuild_memhndl();
	test_vmdh();
	test_mem_query();
	test_ntt_gran();
	test_errors();
	test_job_suspend();
	test_job_configure();
	test_bi();
	test_cdm_checkpoint();
	test_dgram_post();
	test_dgram_test();
	test_dgram_wait();
	test_dgram_probe();
	test_dgram_cancel();
	test_dgram_release();
	test_smsg_args();
	test_smsg_lost_answer();
	return tap_end();
}
