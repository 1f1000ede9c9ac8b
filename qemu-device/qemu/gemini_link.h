/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cray-gemini link backends: how a router port reaches its neighbour.
 *
 * A backend is named by the link property of the port.  The only backend
 * now is shared memory ("shm:PATH" or a bare PATH): a file that both ends
 * map (layout in uapi/vgemini_link.h), and two doorbell FIFOs beside it,
 * PATH.bell0 and PATH.bell1, read by side 0 and side 1.
 *
 * The device core sees an open link only through its view (the core's
 * gemini_link_if.h: what it writes, reads and expects of a transport);
 * kick_peer rings the peer's doorbell and our doorbell makes the device
 * poll.
 */
#ifndef CRAY_GEMINI_LINK_H
#define CRAY_GEMINI_LINK_H

#include "qemu/thread.h"
#include "gemini_link_if.h"

typedef struct GeminiLink {
    void *mem;          /* mapped link file, NULL when closed */
    size_t len;
    struct gemini_link_view view;   /* our side's view of @mem, for the core */
    char *path;
    /*
     * Held to read or close @bell_rd: the device's thread drains the
     * doorbell without the BQL while the main loop may close it.
     */
    QemuMutex bell_lock;
    int bell_rd;        /* our doorbell, -1 when closed */
    int bell_wr;        /* the peer's doorbell, -1 when closed */
    void *owner;        /* the device, for the doorbell handler */
    bool peer_broke;    /* set by the SIGBUS handler: mapping replaced */
    bool broke_reported;
} GeminiLink;

/*
 * Open the link named @spec as side @side (0 for a "+" port, 1 for "-");
 * on failure set @errp and return false.
 */
/* Before anything else on @link: closed, its lock ready; undone by _fini. */
void gemini_link_init(GeminiLink *link);
void gemini_link_fini(GeminiLink *link);
bool gemini_link_open(GeminiLink *link, const char *spec, unsigned side,
                      Error **errp);
void gemini_link_close(GeminiLink *link);
/* Wake the peer; never blocks (a full FIFO already holds a wake-up). */
void gemini_link_ring(GeminiLink *link);
/*
 * Empty our doorbell after it rang (a bounded amount of it); safe
 * against gemini_link_close() on another thread.
 */
void gemini_link_drain(GeminiLink *link);
/*
 * True once, the first time it is asked after the peer truncated the link
 * file (the mapping now holds private zeros): the caller logs it.
 */
bool gemini_link_broken(GeminiLink *link);
/*
 * Let this thread take the SIGBUS of a truncated link file (see
 * gemini_link.c); cheap after the first call in a thread.
 */
void gemini_link_thread_enter(void);

#endif
