// SPDX-License-Identifier: GPL-2.0-only
/*
 * kgni_probe: what Lustre's configure compiles to decide that gnilnd can
 * be built with the GNICPPFLAGS given (its first probe, LN_CONFIG_GNILND):
 * <linux/types.h> and <gni_pub.h>, and a call of gni_cdm_create(0, 1, 1,
 * 0, &dom).  Built by the kernel-build stage; never loaded.
 */
#include <linux/module.h>
#include <linux/types.h>

#include <gni_pub.h>

static int __init kgni_probe_init(void)
{
	gni_cdm_handle_t dom;
	gni_return_t rc;

	rc = gni_cdm_create(0, 1, 1, 0, &dom);
	if (rc != GNI_RC_SUCCESS)
		return -EINVAL;
	gni_cdm_destroy(dom);
	return 0;
}
module_init(kgni_probe_init);

MODULE_DESCRIPTION("Lustre's gnilnd configure probe, as a module");
MODULE_LICENSE("GPL");
