/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cray-gemini device core: every kind of guest programming error the
 * device reports, in one list.
 *
 * An error is reported as its kind and up to four numbers, not as text:
 * nothing is formatted unless someone wants the text.  The QEMU glue
 * turns each kind into its own trace event (trace_cray_gemini_ge_<id>)
 * and formats the message only for -d guest_errors; the events in
 * ../qemu/trace-events are generated from this list by
 * scripts/gen-trace-events.py, and scripts/style.sh checks that the
 * committed ones are in step with it.
 *
 * GEMINI_GUEST_ERROR_LIST(X) calls X(ID, id, nargs, names, format) once
 * per kind: the enum's name, the same in lower case (the trace event's,
 * as the preprocessor cannot change case), how many arguments the format
 * takes (0..4), their names (the trace event's arguments, one word each,
 * space-separated) and the format, with only %llu and %llx conversions (the
 * generator and gemini_guest_error_format() depend on that, and the
 * generator checks it and the count).  An FMA descriptor's errors name it
 * first ("FMA %llu: "); a bad CQ descriptor's "rd:wr" is rd << 32 | wr.
 * The messages are not split, so that they can be found (the lines may be
 * long).
 */
#ifndef GEMINI_GUEST_ERROR_H
#define GEMINI_GUEST_ERROR_H

#include <stddef.h>
#include <stdint.h>

#define GEMINI_GUEST_ERROR_LIST(X)					\
	X(IRQ_VECTOR, irq_vector, 2, "vector vectors",			\
	  "interrupt vector %llu out of range (%llu vectors)")		\
	X(DMA_READ_SELF, dma_read_self, 2, "addr len",			\
	  "DMA read of 0x%llx+%llu refused: the device's own registers") \
	X(DMA_WRITE_SELF, dma_write_self, 2, "addr len",		\
	  "DMA write of 0x%llx+%llu refused: the device's own registers") \
	X(TEST_DMA_CMD, test_dma_cmd, 1, "cmd",				\
	  "test DMA: unknown command %llu")				\
	X(TEST_DMA_LEN, test_dma_len, 2, "len max",			\
	  "test DMA: length %llu not in 1..%llu")			\
	X(TEST_DMA_WRAP, test_dma_wrap, 0, "",				\
	  "test DMA: address range wraps")				\
	X(TEST_DMA_BUS, test_dma_bus, 1, "addr",			\
	  "test DMA: bus refused access near 0x%llx")			\
	X(DIAG_CMD, diag_cmd, 1, "cmd",					\
	  "diag: unknown command %llu")					\
	X(DIAG_BUSY, diag_busy, 0, "",					\
	  "diag: a ping is already in flight")				\
	X(DIAG_IRQ_VECTOR, diag_irq_vector, 0, "",			\
	  "diag: interrupt vector out of range")			\
	X(GART_ENTRIES, gart_entries, 2, "entries max",			\
	  "GART: %llu entries, at most %llu")				\
	X(CQ_IRQ_INDEX, cq_irq_index, 2, "cq index",			\
	  "CQ %llu: IRQ index %llu has no vector")			\
	X(CQ_NONE, cq_none, 1, "cq",					\
	  "CQ %llu: no such CQ, event lost")				\
	X(CQ_DISABLED, cq_disabled, 1, "cq",				\
	  "CQ %llu: disabled, event lost")				\
	X(CQ_BAD_DESC, cq_bad_desc, 4, "cq base max_index rd_wr",	\
	  "CQ %llu: bad descriptor (base 0x%llx, max_index %llu, rd:wr 0x%llx), event lost") \
	X(CQ_BUS, cq_bus, 3, "cq entry addr",				\
	  "CQ %llu: bus refused entry %llu at 0x%llx, event lost")	\
	X(FMA_NOT_ENABLED, fma_not_enabled, 1, "desc",			\
	  "FMA %llu: descriptor not enabled")				\
	X(FMA_VMDH, fma_vmdh, 1, "desc",				\
	  "FMA %llu: vMDH not supported")				\
	X(FMA_NPES, fma_npes, 1, "desc",				\
	  "FMA %llu: PE outside the NTT group")				\
	X(FMA_NO_SSID_REQ, fma_no_ssid_req, 2, "desc type",		\
	  "FMA %llu: no free SSID, request of type %llu dropped")	\
	X(FMA_ORB_FULL, fma_orb_full, 2, "desc type",			\
	  "FMA %llu: ORB full, request of type %llu dropped")		\
	X(FMA_PUT_CMD, fma_put_cmd, 2, "desc cmd",			\
	  "FMA %llu: command 0x%llx is no PUT-window operation")	\
	X(FMA_GCW_PLUS4, fma_gcw_plus4, 3, "desc offset cmd",		\
	  "FMA %llu: GCW +4 at window offset 0x%llx, command 0x%llx: only for a GET stored 8-aligned") \
	X(FMA_GET_ALIGN, fma_get_align, 3, "desc remote local",		\
	  "FMA %llu: GET remote 0x%llx or local 0x%llx not 4-byte aligned") \
	X(FMA_AMO_ALIGN, fma_amo_align, 2, "desc offset",		\
	  "FMA %llu: AMO result offset 0x%llx not 8-byte aligned")	\
	X(FMA_GET_CMD, fma_get_cmd, 2, "desc cmd",			\
	  "FMA %llu: GCW command 0x%llx is no GET-window operation")	\
	X(FMA_LOCAL_BUF, fma_local_buf, 4, "desc offset len status",	\
	  "FMA %llu: local buffer (offset 0x%llx, %llu bytes) refused: status %llu") \
	X(FMA_STORE_SIZE, fma_store_size, 3, "desc size offset",	\
	  "FMA %llu: %llu-byte store at window offset 0x%llx refused")	\
	X(FMA_NO_SSID, fma_no_ssid, 1, "desc",				\
	  "FMA %llu: no free SSID")					\
	X(FMA_ALLOC_SYNCID, fma_alloc_syncid, 2, "desc value",		\
	  "FMA %llu: alloc-SyncId with 0x%llx, not 0xff: ignored")	\
	X(FMA_DOORBELL_SIZE, fma_doorbell_size, 2, "desc qw",		\
	  "FMA %llu: doorbell QW%llu needs an 8-byte write")		\
	X(FMA_DOORBELL_USER, fma_doorbell_user, 2, "desc qw",		\
	  "FMA %llu: user ring of doorbell QW%llu refused")		\
	X(FMA_KERNEL_FIELDS, fma_kernel_fields, 3, "desc qw bits",	\
	  "FMA %llu: user write to kernel fields of QW%llu refused (0x%llx)") \
	X(FMA_NOT_ENCODABLE, fma_not_encodable, 1, "desc",		\
	  "FMA %llu: request not encodable")				\
	X(FMA_SYNC_TYPE, fma_sync_type, 2, "desc type",			\
	  "FMA %llu: sync type 0x%llx: unknown bits ignored")		\
	X(FMA_RSP_LOCAL, fma_rsp_local, 2, "desc status",		\
	  "FMA %llu: local buffer refused the response: status %llu")	\
	X(FMA_RSP_BUS, fma_rsp_bus, 2, "desc addr",			\
	  "FMA %llu: bus refused the response at 0x%llx")		\
	X(FMA_TIMEOUT, fma_timeout, 3, "desc type node",		\
	  "FMA %llu: request of type %llu to node %llu timed out")	\
	X(BTE_RING, bte_ring, 4, "chan dir slots base",			\
	  "BTE channel %llu (%llu: 0 TX, 1 RX): ring of %llu slots at %llu refused, not enabled") \
	X(BTE_BUSY, bte_busy, 2, "chan dir",				\
	  "BTE channel %llu (%llu: 0 TX, 1 RX): ring changed while enabled, ignored") \
	X(BTE_CPU_COPY, bte_cpu_copy, 3, "chan desc addr",		\
	  "BTE TX channel %llu: bus refused the CPU copy of descriptor %llu at 0x%llx") \
	X(BTE_WR_INDEX, bte_wr_index, 4, "chan dir index slots",	\
	  "BTE channel %llu (%llu: 0 TX, 1 RX): write index %llu past a ring of %llu, ignored") \
	X(BTE_GET_LOCAL, bte_get_local, 3, "chan desc status",		\
	  "BTE TX channel %llu: descriptor %llu: local memory refused GET data: status %llu") \
	X(RMT_BUS, rmt_bus, 4, "node addr mdh offset",			\
	  "RMT: bus refused a request from node %llu at 0x%llx (MDH %llu, offset 0x%llx)")

#define GEMINI_GE_ENUM_(ID, id, nargs, names, fmt)	GEMINI_GE_##ID,
enum gemini_guest_error_kind {
	GEMINI_GUEST_ERROR_LIST(GEMINI_GE_ENUM_)
	GEMINI_GE_COUNT
};

#undef GEMINI_GE_ENUM_

struct gemini_nic;

/*
 * Report a guest programming error of kind GEMINI_GE_<ID> with up to four
 * integer arguments (ops->guest_error): GEMINI_GUEST_ERROR(nic, ID, ...).
 * Missing arguments are 0; a fifth does not compile.
 */
#define GEMINI_GUEST_ERROR(...)	GEMINI_GE_CALL_(__VA_ARGS__, 0, 0, 0, 0, 0, 0)
#define GEMINI_GE_CALL_(nic, ID, a0, a1, a2, a3, a4, ...)		\
	gemini_guest_error(nic, GEMINI_GE_##ID, (const uint64_t[4]) {	\
		(uint64_t)(a0), (uint64_t)(a1), (uint64_t)(a2), (uint64_t)(a3) \
	} GEMINI_GE_NO_5TH_ARGUMENT_##a4)
#define GEMINI_GE_NO_5TH_ARGUMENT_0

void gemini_guest_error(const struct gemini_nic *nic, unsigned int kind,
			const uint64_t args[4]);

/* The lower-case name of @kind (its trace event's), NULL if none. */
const char *gemini_guest_error_name(unsigned int kind);

/*
 * The message of @kind with @args into @buf, as snprintf() (the length
 * it needed); "unknown guest error N" for an unknown kind.
 */
int gemini_guest_error_format(unsigned int kind, const uint64_t args[4],
			      char *buf, size_t len);

#endif
