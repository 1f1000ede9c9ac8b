// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The parts of libugni that need no device: return-code and statistic
 * names, CQ entry accessors, CQ error decoding, versions, device type and
 * memory handle attributes.
 */
#include <stdio.h>
#include <string.h>

#include "ugni_priv.h"

UGNI_EXPORT const char *gni_err_str[] = {
	[GNI_RC_SUCCESS] = "GNI_RC_SUCCESS",
	[GNI_RC_NOT_DONE] = "GNI_RC_NOT_DONE",
	[GNI_RC_INVALID_PARAM] = "GNI_RC_INVALID_PARAM",
	[GNI_RC_ERROR_RESOURCE] = "GNI_RC_ERROR_RESOURCE",
	[GNI_RC_TIMEOUT] = "GNI_RC_TIMEOUT",
	[GNI_RC_PERMISSION_ERROR] = "GNI_RC_PERMISSION_ERROR",
	[GNI_RC_DESCRIPTOR_ERROR] = "GNI_RC_DESCRIPTOR_ERROR",
	[GNI_RC_ALIGNMENT_ERROR] = "GNI_RC_ALIGNMENT_ERROR",
	[GNI_RC_INVALID_STATE] = "GNI_RC_INVALID_STATE",
	[GNI_RC_NO_MATCH] = "GNI_RC_NO_MATCH",
	[GNI_RC_SIZE_ERROR] = "GNI_RC_SIZE_ERROR",
	[GNI_RC_TRANSACTION_ERROR] = "GNI_RC_TRANSACTION_ERROR",
	[GNI_RC_ILLEGAL_OP] = "GNI_RC_ILLEGAL_OP",
	[GNI_RC_ERROR_NOMEM] = "GNI_RC_ERROR_NOMEM",
};

UGNI_EXPORT const char *gni_statistic_str[] = {
	[GNI_STAT_SMSG_BUFF_CREDITS_STALL] = "GNI_STAT_SMSG_BUFF_CREDITS_STALL",
	[GNI_STAT_SMSG_DLA_STALL] = "GNI_STAT_SMSG_DLA_STALL",
	[GNI_STAT_SMSG_MBOX_CREDITS_STALL] = "GNI_STAT_SMSG_MBOX_CREDITS_STALL",
	[GNI_STAT_SMSG_REQ_STALL] = "GNI_STAT_SMSG_REQ_STALL",
	[GNI_STAT_SMSG_RETRANS_COUNT] = "GNI_STAT_SMSG_RETRANS_COUNT",
	[GNI_STAT_SMSG_RETRANS_DLA_COUNT] = "GNI_STAT_SMSG_RETRANS_DLA_COUNT",
	[GNI_STAT_SMSG_RETRANS_STALL] = "GNI_STAT_SMSG_RETRANS_STALL",
};

/* --- CQ entry accessors (uapi/gni_wire.h) -------------------------------- */

UGNI_EXPORT uint64_t gni_cq_get_data(gni_cq_entry_t e)
{
	return e & GEMINI_CQE_DATA_MASK;
}

UGNI_EXPORT uint64_t gni_cq_get_source(gni_cq_entry_t e)
{
	return ugni_cqe_source(e);
}

UGNI_EXPORT uint64_t gni_cq_get_status(gni_cq_entry_t e)
{
	return ugni_cqe_status(e);
}

UGNI_EXPORT uint64_t gni_cq_overrun(gni_cq_entry_t e)
{
	return (e & GEMINI_CQE_OVERRUN) != 0;
}

UGNI_EXPORT uint64_t gni_cq_get_inst_id(gni_cq_entry_t e)
{
	return ugni_cqe_id(e);
}

UGNI_EXPORT uint64_t gni_cq_get_rem_inst_id(gni_cq_entry_t e)
{
	return ugni_cqe_id(e);
}

UGNI_EXPORT uint64_t gni_cq_get_msg_id(gni_cq_entry_t e)
{
	return ugni_cqe_id(e);
}

UGNI_EXPORT uint64_t gni_cq_get_tid(gni_cq_entry_t e)
{
	return ugni_cqe_tid(e);
}

UGNI_EXPORT uint64_t gni_cq_get_type(gni_cq_entry_t e)
{
	return ugni_cqe_type(e);
}

/* Aries-only fields: Gemini entries do not have them. */
UGNI_EXPORT uint64_t gni_cq_get_info(gni_cq_entry_t e)
{
	(void)e;
	return 0;
}

UGNI_EXPORT uint64_t gni_cq_rem_overrun(gni_cq_entry_t e)
{
	(void)e;
	return 0;
}

UGNI_EXPORT uint64_t gni_cq_get_block_id(gni_cq_entry_t e)
{
	(void)e;
	return 0;
}

UGNI_EXPORT uint64_t gni_cq_get_unsuccessful_cnt(gni_cq_entry_t e)
{
	(void)e;
	return 0;
}

UGNI_EXPORT uint64_t gni_cq_get_marker_id(gni_cq_entry_t e)
{
	(void)e;
	return 0;
}

UGNI_EXPORT uint64_t gni_cq_get_failed_enqueue_cnt(gni_cq_entry_t e)
{
	(void)e;
	return 0;
}

UGNI_EXPORT uint64_t gni_cq_get_ce_id(gni_cq_entry_t e)
{
	(void)e;
	return 0;
}

UGNI_EXPORT uint64_t gni_cq_get_reductn_id(gni_cq_entry_t e)
{
	(void)e;
	return 0;
}

UGNI_EXPORT uint64_t gni_cq_get_trans_type(gni_cq_entry_t e)
{
	(void)e;
	return 0;
}

UGNI_EXPORT unsigned gni_cq_status_dla_overflow(gni_cq_entry_t e)
{
	(void)e;
	return 0;
}

UGNI_EXPORT unsigned gni_cq_bte_enq_status(gni_cq_entry_t e)
{
	(void)e;
	return 0;
}

/* The setters ignore a NULL entry. */
static void cqe_set(gni_cq_entry_t *e, unsigned int shift, uint64_t mask,
		    uint64_t v)
{
	if (e)
		ugni_cqe_set_field(e, shift, mask, v);
}

UGNI_EXPORT void gni_cq_set_inst_id(gni_cq_entry_t *e, uint64_t v)
{
	cqe_set(e, UGNI_CQE_ID_SHIFT, UGNI_CQE_ID_MASK, v);
}

UGNI_EXPORT void gni_cq_set_rem_inst_id(gni_cq_entry_t *e, uint64_t v)
{
	cqe_set(e, UGNI_CQE_ID_SHIFT, UGNI_CQE_ID_MASK, v);
}

UGNI_EXPORT void gni_cq_set_msg_id(gni_cq_entry_t *e, uint64_t v)
{
	cqe_set(e, UGNI_CQE_ID_SHIFT, UGNI_CQE_ID_MASK, v);
}

UGNI_EXPORT void gni_cq_set_tid(gni_cq_entry_t *e, uint64_t v)
{
	cqe_set(e, UGNI_CQE_TID_SHIFT, UGNI_CQE_TID_MASK, v);
}

UGNI_EXPORT void gni_cq_set_type(gni_cq_entry_t *e, uint64_t v)
{
	cqe_set(e, UGNI_CQE_TYPE_SHIFT, UGNI_CQE_TYPE_MASK, v);
}

UGNI_EXPORT void gni_cq_clr_status(gni_cq_entry_t *e)
{
	cqe_set(e, GEMINI_CQE_STATUS_SHIFT, GEMINI_CQE_STATUS_MASK, 0);
}

/* --- CQ errors (gnicore_cq.c) -------------------------------------------- */

UGNI_EXPORT gni_return_t GNI_CqErrorStr(gni_cq_entry_t entry, void *buffer,
					uint32_t len)
{
	return gnicore_cq_error_str(entry, buffer, len);
}

UGNI_EXPORT gni_return_t GNI_CqErrorRecoverable(gni_cq_entry_t entry,
						uint32_t *recoverable)
{
	return gnicore_cq_error_recoverable(entry, recoverable);
}

/* --- Versions and device ---------------------------------------------------------- */

#ifndef UGNI_BUILD_STRING
#define UGNI_BUILD_STRING "vgemini libugni"
#endif

UGNI_EXPORT gni_return_t GNI_GetVersion(uint32_t *version)
{
	if (!version)
		return GNI_RC_INVALID_PARAM;
	*version = GNI_VERSION;
	return GNI_RC_SUCCESS;
}

/*
 * The driver's version comes from /sys/class/gni/version (three lines:
 * "0x%08x" version, build string, revision).  Without the driver those
 * fields are 0 and "".
 */
static void read_kgni_version(gni_version_info_t *vi)
{
	char line[3][MAX_BUILD_STRING_LENGTH + 2];
	unsigned long v = 0, rev = 0;
	FILE *f;
	int i;

	f = fopen("/sys/class/gni/version", "re");
	if (!f)
		return;
	for (i = 0; i < 3; i++) {
		if (!fgets(line[i], sizeof(line[i]), f))
			break;
		line[i][strcspn(line[i], "\n")] = '\0';
	}
	fclose(f);
	if (i < 3 || sscanf(line[0], "%lx", &v) != 1 ||
	    sscanf(line[2], "%lu", &rev) != 1)
		return;
	vi->kgni_version = (uint32_t)v;
	vi->kgni_svn_revision = (uint32_t)rev;
	snprintf(vi->kgni_build_string, sizeof(vi->kgni_build_string), "%.79s",
		 line[1]);
}

UGNI_EXPORT gni_return_t GNI_GetVersionInformation(gni_version_info_t *vi)
{
	if (!vi)
		return GNI_RC_INVALID_PARAM;
	memset(vi, 0, sizeof(*vi));
	vi->ugni_version = GNI_VERSION;
	snprintf(vi->ugni_build_string, sizeof(vi->ugni_build_string), "%s",
		 UGNI_BUILD_STRING);
	read_kgni_version(vi);
	return GNI_RC_SUCCESS;
}

UGNI_EXPORT gni_return_t GNI_GetDeviceType(gni_nic_device_t *dev_type)
{
	if (!dev_type)
		return GNI_RC_INVALID_PARAM;
	*dev_type = GNI_DEVICE_GEMINI;
	return GNI_RC_SUCCESS;
}

/* --- Memory handles (ugni-api.md §18) ---------------------------------------------- */

/* gni_pub.h's public view of the handle is gemini_mh.h's layout. */
_Static_assert(GNI_MEMHNDL_VA_MASK == GEMINI_MH_VA_MASK &&
	       GNI_MEMHNDL_MDH_MASK == GEMINI_MH_MDH_MASK &&
	       GNI_MEMHNDL_NPGS_MASK == GEMINI_MH_NPAGES_MASK &&
	       GNI_MEMHNDL_PSIZE_MASK == GEMINI_MH_PSIZE_MASK &&
	       GNI_MEMHNDL_FLAGS_MASK == GEMINI_MH_FLAGS_MASK &&
	       GNI_MEMHNDL_CRC_MASK == GEMINI_MH_CRC_MASK,
	       "gni_pub.h's memory handle masks are gemini_mh.h's");
_Static_assert(GNI_MEMHNDL_FLAG_READONLY == GEMINI_MH_FLAG_READONLY &&
	       GNI_MEMHNDL_FLAG_VMDH == GEMINI_MH_FLAG_VMDH &&
	       GNI_MEMHNDL_FLAG_MRT == GEMINI_MH_FLAG_MRT &&
	       GNI_MEMHNDL_FLAG_GART == GEMINI_MH_FLAG_GART &&
	       GNI_MEMHNDL_FLAG_IOMMU == GEMINI_MH_FLAG_IOMMU &&
	       GNI_MEMHNDL_FLAG_PCI_IOMMU == GEMINI_MH_FLAG_PCI_IOMMU &&
	       GNI_MEMHNDL_FLAG_CLONE == GEMINI_MH_FLAG_CLONE &&
	       GNI_MEMHNDL_FLAG_NEW_FRMT == GEMINI_MH_FLAG_NEW_FRMT,
	       "gni_pub.h's memory handle flags are gemini_mh.h's");

UGNI_EXPORT gni_return_t GNI_MemHndlQueryAttr(gni_mem_handle_t *h,
					      gni_mem_handle_attr_t attr,
					      int *yesno)
{
	static const uint8_t flag[] = {
		[GNI_MEMHNDL_ATTR_READONLY] = GNI_MEMHNDL_FLAG_READONLY,
		[GNI_MEMHNDL_ATTR_VMDH] = GNI_MEMHNDL_FLAG_VMDH,
		[GNI_MEMHNDL_ATTR_MRT] = GNI_MEMHNDL_FLAG_MRT,
		[GNI_MEMHNDL_ATTR_GART] = GNI_MEMHNDL_FLAG_GART,
		[GNI_MEMHNDL_ATTR_IOMMU] = GNI_MEMHNDL_FLAG_IOMMU,
		[GNI_MEMHNDL_ATTR_PCI_IOMMU] = GNI_MEMHNDL_FLAG_PCI_IOMMU,
		[GNI_MEMHNDL_ATTR_CLONE] = GNI_MEMHNDL_FLAG_CLONE,
	};

	if (!h || !yesno || attr < GNI_MEMHNDL_ATTR_READONLY ||
	    attr > GNI_MEMHNDL_ATTR_CLONE)
		return GNI_RC_INVALID_PARAM;
	if (GNI_MEMHNDL_GET_CRC(*h) != gnicore_memhndl_crc(h))
		return GNI_RC_INVALID_PARAM;
	*yesno = (GNI_MEMHNDL_GET_FLAGS(*h) & flag[attr]) != 0;
	return GNI_RC_SUCCESS;
}

/* --- Collective-engine results: Gemini has no collective engine ------------------- */

UGNI_EXPORT uint64_t gni_ce_res_get_status(gni_ce_result_t *r)
{
	(void)r;
	return GNI_RC_ILLEGAL_OP;
}

UGNI_EXPORT uint64_t gni_ce_res_status_ok(gni_ce_result_t *r)
{
	(void)r;
	return 0;
}

UGNI_EXPORT uint64_t gni_ce_res_get_fpe(gni_ce_result_t *r)
{
	(void)r;
	return 0;
}

UGNI_EXPORT uint64_t gni_ce_res_get_red_id(gni_ce_result_t *r)
{
	(void)r;
	return 0;
}
