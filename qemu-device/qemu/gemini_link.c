// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cray-gemini link backends: the shared-memory backend.
 */
#include "qemu/osdep.h"
#include "qapi/error.h"
#include <sys/mman.h>

#include "gemini_link.h"
#include "vgemini_link.h"
#include "trace.h"

/* Open (creating if needed) the doorbell FIFO @path. */
static int open_bell(const char *path, int flags, Error **errp)
{
    int fd;

    if (mkfifo(path, 0600) < 0 && errno != EEXIST) {
        error_setg_errno(errp, errno, "doorbell '%s'", path);
        return -1;
    }
    /* O_RDWR: opening never waits for the other end, writes never fail
     * with ENXIO while the peer is away. */
    fd = open(path, flags | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        error_setg_errno(errp, errno, "doorbell '%s'", path);
    }
    return fd;
}

bool gemini_link_open(GeminiLink *link, const char *spec, unsigned side,
                      Error **errp)
{
    const char *path = spec;
    g_autofree char *bell_mine = NULL;
    g_autofree char *bell_peer = NULL;
    struct stat st;
    void *mem;
    int fd;

    link->bell_rd = link->bell_wr = -1;
    if (g_str_has_prefix(spec, "shm:")) {
        path = spec + strlen("shm:");
    } else if (strchr(spec, ':')) {
        error_setg(errp, "link '%s': unknown backend (only shm: exists)",
                   spec);
        return false;
    }
    /* The launcher creates the file; opening it never creates one. */
    fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        error_setg_errno(errp, errno, "link '%s'", path);
        return false;
    }
    if (fstat(fd, &st) < 0) {
        error_setg_errno(errp, errno, "link '%s'", path);
        close(fd);
        return false;
    }
    if (!S_ISREG(st.st_mode) || st.st_size < VGEMINI_LINK_FILE_SIZE) {
        error_setg(errp, "link '%s': not a regular file of at least %u bytes",
                   path, VGEMINI_LINK_FILE_SIZE);
        close(fd);
        return false;
    }
    mem = mmap(NULL, VGEMINI_LINK_FILE_SIZE, PROT_READ | PROT_WRITE,
               MAP_SHARED, fd, 0);
    close(fd);
    if (mem == MAP_FAILED) {
        error_setg_errno(errp, errno, "link '%s': mmap", path);
        return false;
    }
    link->mem = mem;
    link->len = VGEMINI_LINK_FILE_SIZE;
    link->path = g_strdup(path);

    bell_mine = g_strdup_printf("%s.bell%u", path, side);
    bell_peer = g_strdup_printf("%s.bell%u", path, !side);
    link->bell_rd = open_bell(bell_mine, O_RDWR, errp);
    if (link->bell_rd >= 0) {
        link->bell_wr = open_bell(bell_peer, O_RDWR, errp);
    }
    if (link->bell_wr < 0) {
        gemini_link_close(link);
        return false;
    }
    trace_cray_gemini_link_open(link->path);
    return true;
}

void gemini_link_close(GeminiLink *link)
{
    if (link->mem) {
        munmap(link->mem, link->len);
        link->mem = NULL;
    }
    if (link->bell_rd >= 0) {
        close(link->bell_rd);
    }
    if (link->bell_wr >= 0) {
        close(link->bell_wr);
    }
    link->bell_rd = link->bell_wr = -1;
    g_free(link->path);
    link->path = NULL;
}

void gemini_link_ring(GeminiLink *link)
{
    static const char one = 1;

    if (link->bell_wr >= 0 && write(link->bell_wr, &one, 1) < 0 &&
        errno != EAGAIN) {
        trace_cray_gemini_link_ring_failed(link->path, errno);
    }
}

void gemini_link_drain(GeminiLink *link)
{
    char buf[64];

    while (link->bell_rd >= 0 && read(link->bell_rd, buf, sizeof(buf)) > 0) {
        /* empty */
    }
}
