// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* gni_pub.h alone, as a Cray program includes it: only the public header. */
#include <stdio.h>
#include <gni_pub.h>

int main(void)
{
	gni_cdm_handle_t cdm = NULL;
	gni_nic_handle_t nic = NULL;
	gni_nic_device_t dev = GNI_DEVICE_LAST;
	gni_version_info_t vi;
	gni_return_t rc, rc2;
	uint32_t addr = 0;

	rc = GNI_CdmCreate(0, GNI_PTAG_USER_START, GNI_JOB_CREATE_COOKIE(200, 0),
			   GNI_CDM_MODE_FORK_PARTCOPY, &cdm);
	printf("GNI_CdmCreate: %s\n", gni_err_str[rc]);
	/* The host has no /dev/kgni0: attaching finds no device. */
	rc2 = GNI_CdmAttach(cdm, 0, &addr, &nic);
	printf("GNI_CdmAttach: %s\n", gni_err_str[rc2]);
	if (GNI_GetDeviceType(&dev) != GNI_RC_SUCCESS ||
	    GNI_GetVersionInformation(&vi) != GNI_RC_SUCCESS)
		return 1;
	printf("device %d ugni 0x%08x \"%s\"\n", (int)dev, (unsigned)vi.ugni_version,
	       vi.ugni_build_string);
	return rc == GNI_RC_SUCCESS && rc2 == GNI_RC_NO_MATCH &&
	       GNI_CdmDestroy(cdm) == GNI_RC_SUCCESS &&
	       dev == GNI_DEVICE_GEMINI ? 0 : 1;
}
