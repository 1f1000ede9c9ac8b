// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * libwlm_detect: vgemini's workload manager is ALPS ("vgemini run" is its
 * aprun), active and default.  The strings are the caller's to free, as
 * the interface says, so each call returns a fresh copy.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "alps_env.h"
#include "wlm_detect.h"

ALPS_EXPORT char *wlm_detect_get_active(void)
{
	return strdup(WLM_DETECT_ALPS);
}

ALPS_EXPORT char *wlm_detect_get_default(void)
{
	return strdup(WLM_DETECT_ALPS);
}
