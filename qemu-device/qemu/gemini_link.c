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

bool gemini_link_open(GeminiLink *link, const char *spec, Error **errp)
{
    const char *path = spec;
    struct stat st;
    void *mem;
    int fd;

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
    trace_cray_gemini_link_open(link->path);
    return true;
}

void gemini_link_close(GeminiLink *link)
{
    if (link->mem) {
        munmap(link->mem, link->len);
        link->mem = NULL;
    }
    g_free(link->path);
    link->path = NULL;
}
