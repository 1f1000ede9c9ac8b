// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cray-gemini device core: a link view of a whole link file in memory.
 *
 * The one place outside uapi/vgemini_link.h that knows how a link file is
 * laid out: side s writes side[s] and chan[s], reads side[!s] and
 * chan[!s].  The glue's shared-memory backend and the host tests build
 * their struct gemini_link_view (gemini_link_if.h) with it.
 */
#include <string.h>

#include "gemini_link_if.h"

int gemini_link_view_shm(struct gemini_link_view *v, void *mem, size_t len,
			 unsigned int side)
{
	volatile struct vgemini_link_shm *shm = mem;

	memset(v, 0, sizeof(*v));
	if (!mem || len < VGEMINI_LINK_FILE_SIZE || side > 1)
		return -1;
	v->mine = &shm->side[side];
	v->peer = &shm->side[!side];
	v->peer_armed = &shm->side[!side].armed;
	v->tx = shm->chan[side];
	v->rx = shm->chan[!side];
	return 0;
}
