// SPDX-License-Identifier: GPL-2.0-only
/*
 * kgni_rca_probe: Lustre's second gnilnd configure probe, whose success
 * adds -DGNILND_USE_RCA=1 (without which gnilnd does not compile):
 * <krca_lib.h> besides <gni_pub.h>, a krca_ticket_t initialised to
 * KRCA_NULL_TICKET, krca_nid_to_nicaddrs(nid, 1, &nic_addr) and
 * krca_register(&ticket, RCA_MAKE_SERVICE_INDEX(RCA_IO_CLASS, 9), 99, 0).
 * Built by the kernel-build stage; never loaded.
 */
#include <linux/module.h>
#include <linux/types.h>

#include <gni_pub.h>
#include <krca_lib.h>

static int __init kgni_rca_probe_init(void)
{
	krca_ticket_t ticket = KRCA_NULL_TICKET;
	rca_nid_t nid = 0;
	nic_addr_t nic_addr;
	int rc;

	rc = krca_nid_to_nicaddrs(nid, 1, &nic_addr);
	if (rc <= 0)
		return -ESRCH;
	rc = krca_register(&ticket, RCA_MAKE_SERVICE_INDEX(RCA_IO_CLASS, 9),
			   99, 0);
	if (rc < 0)
		return rc;
	krca_unregister(&ticket);
	return 0;
}
module_init(kgni_rca_probe_init);

MODULE_DESCRIPTION("Lustre's gnilnd RCA configure probe, as a module");
MODULE_LICENSE("GPL");
