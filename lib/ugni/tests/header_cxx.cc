// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
// gni_pub.h from C++: compiles with -pedantic and links (extern "C").
#include <gni_pub.h>

int main()
{
	gni_cq_entry_t e = 0;
	gni_nic_device_t dev = GNI_DEVICE_ARIES;
	gni_post_descriptor_t pd = gni_post_descriptor_t();
	gni_cdm_handle_t cdm = 0;
	uint32_t r = 0;
	char buf[64];

	GNI_CQ_SET_INST_ID(e, 42);
	pd.type = GNI_POST_FMA_PUT;
	pd.amo_cmd = GNI_FMA_ATOMIC_FADD;
	if (GNI_CQ_GET_INST_ID(e) != 42 || !GNI_CQ_STATUS_OK(e))
		return 1;
	if (GNI_GetDeviceType(&dev) != GNI_RC_SUCCESS || dev != GNI_DEVICE_GEMINI)
		return 2;
	if (GNI_CdmCreate(1, 3, 0, GNI_CDM_MODE_ERR_NO_KILL, &cdm) !=
	    GNI_RC_SUCCESS || GNI_CdmDestroy(cdm) != GNI_RC_SUCCESS)
		return 3;
	if (GNI_CqErrorRecoverable(e, &r) != GNI_RC_INVALID_STATE ||
	    GNI_CqErrorStr(e, buf, sizeof(buf)) != GNI_RC_SUCCESS)
		return 4;
	return gni_err_str[GNI_RC_SUCCESS][0] == 'G' && pd.type == 3 ? 0 : 5;
}
