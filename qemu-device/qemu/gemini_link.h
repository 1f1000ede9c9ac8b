/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cray-gemini link backends: how a router port reaches its neighbour.
 *
 * A backend is named by the link property of the port.  The only backend
 * now is shared memory ("shm:PATH" or a bare PATH): a file that both ends
 * map (layout in uapi/vgemini_link.h).
 */
#ifndef CRAY_GEMINI_LINK_H
#define CRAY_GEMINI_LINK_H

typedef struct GeminiLink {
    void *mem;          /* mapped link file, NULL when closed */
    size_t len;
    char *path;
} GeminiLink;

/* Open the link named @spec; on failure set @errp and return false. */
bool gemini_link_open(GeminiLink *link, const char *spec, Error **errp);
void gemini_link_close(GeminiLink *link);

#endif
