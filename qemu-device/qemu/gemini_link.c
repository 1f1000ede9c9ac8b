// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cray-gemini link backends: the shared-memory backend.
 *
 * The link file is shared with the neighbour's QEMU, which may be hostile
 * or broken: if it truncates the file, our next access to the mapping
 * raises SIGBUS.  A SIGBUS inside a link mapping is caught: the mapping is
 * replaced, in place, by private zero pages, so the access completes and
 * the link reads as a silent peer from then on (its port goes down by the
 * heartbeat rule).  Any other SIGBUS goes to the handler QEMU had.
 *
 * QEMU blocks SIGBUS in its threads (the main loop takes it through a
 * signalfd), and a fault on a blocked SIGBUS kills the process whatever
 * the handler: so every thread that enters the device unblocks it once
 * (gemini_link_thread_enter()).  An asynchronous SIGBUS (a memory error
 * report) then reaches QEMU's handler through ours, as it did through the
 * signalfd.
 */
#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qemu/atomic.h"
#include "qemu/error-report.h"
#include <signal.h>
#include <sys/mman.h>

#include "gemini_link.h"
#include "vgemini_link.h"
#include "trace.h"

/* Link mappings the SIGBUS handler may replace: six per device. */
#define MAX_MAPPINGS 64

static struct {
    uintptr_t start;            /* 0: free; set last, cleared first */
    size_t len;
    GeminiLink *link;
} mappings[MAX_MAPPINGS];
static struct sigaction prev_sigbus;
static bool sigbus_installed;

static void link_sigbus(int sig, siginfo_t *si, void *ctx)
{
    uintptr_t a = (uintptr_t)si->si_addr;

    for (unsigned i = 0; i < MAX_MAPPINGS; i++) {
        uintptr_t start = qatomic_read(&mappings[i].start);

        if (!start || a < start || a - start >= mappings[i].len) {
            continue;
        }
        /* mmap is a plain system call: safe in a signal handler. */
        if (mmap((void *)start, mappings[i].len, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) !=
            MAP_FAILED) {
            qatomic_set(&mappings[i].link->peer_broke, true);
            return;
        }
        break;
    }
    if (prev_sigbus.sa_flags & SA_SIGINFO) {
        prev_sigbus.sa_sigaction(sig, si, ctx);
    } else if (prev_sigbus.sa_handler != SIG_DFL &&
               prev_sigbus.sa_handler != SIG_IGN) {
        prev_sigbus.sa_handler(sig);
    } else {
        /* Die of it as before: the access faults again, unhandled. */
        signal(SIGBUS, SIG_DFL);
    }
}

void gemini_link_thread_enter(void)
{
    static __thread bool unblocked;
    sigset_t set;

    if (unblocked) {
        return;
    }
    sigemptyset(&set);
    sigaddset(&set, SIGBUS);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    unblocked = true;
}

static void watch_mapping(GeminiLink *link)
{
    if (!sigbus_installed) {
        struct sigaction sa;

        memset(&sa, 0, sizeof(sa));
        sa.sa_sigaction = link_sigbus;
        sa.sa_flags = SA_SIGINFO;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGBUS, &sa, &prev_sigbus);
        sigbus_installed = true;
    }
    for (unsigned i = 0; i < MAX_MAPPINGS; i++) {
        if (!mappings[i].start) {
            mappings[i].len = link->len;
            mappings[i].link = link;
            qatomic_set(&mappings[i].start, (uintptr_t)link->mem);
            return;
        }
    }
    /* Not watched: a truncation by the peer would still be fatal. */
    warn_report("cray-gemini: link '%s': more than %u links, SIGBUS not "
                "caught for it", link->path, MAX_MAPPINGS);
}

static void unwatch_mapping(GeminiLink *link)
{
    for (unsigned i = 0; i < MAX_MAPPINGS; i++) {
        if (mappings[i].start == (uintptr_t)link->mem) {
            qatomic_set(&mappings[i].start, 0);
        }
    }
}

bool gemini_link_broken(GeminiLink *link)
{
    if (!qatomic_read(&link->peer_broke) || link->broke_reported) {
        return false;
    }
    link->broke_reported = true;
    error_report("cray-gemini: link '%s': the file shrank under us (a "
                 "broken or hostile peer); the link is dead until the "
                 "device is restarted", link->path);
    return true;
}

/* Open (creating if needed) the doorbell FIFO @path. */
static int open_bell(const char *path, int flags, Error **errp)
{
    int fd;

    if (mkfifo(path, 0600) < 0 && errno != EEXIST) {
        error_setg_errno(errp, errno, "doorbell '%s'", path);
        return -1;
    }
    /*
     * O_RDWR: opening never waits for the other end, writes never fail
     * with ENXIO while the peer is away.
     */
    fd = open(path, flags | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        error_setg_errno(errp, errno, "doorbell '%s'", path);
    }
    return fd;
}

void gemini_link_init(GeminiLink *link)
{
    memset(link, 0, sizeof(*link));
    link->bell_rd = link->bell_wr = -1;
    qemu_mutex_init(&link->bell_lock);
}

void gemini_link_fini(GeminiLink *link)
{
    gemini_link_close(link);
    qemu_mutex_destroy(&link->bell_lock);
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
    if (gemini_link_view_shm(&link->view, mem, link->len, side)) {
        error_setg(errp, "link '%s': no side %u", path, side);
        munmap(mem, link->len);
        link->mem = NULL;
        return false;
    }
    link->path = g_strdup(path);
    link->peer_broke = false;
    link->broke_reported = false;
    watch_mapping(link);

    bell_mine = g_strdup_printf("%s.bell%u", path, side);
    bell_peer = g_strdup_printf("%s.bell%u", path, !side);
    qemu_mutex_lock(&link->bell_lock);
    link->bell_rd = open_bell(bell_mine, O_RDWR, errp);
    qemu_mutex_unlock(&link->bell_lock);
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
        unwatch_mapping(link);
        munmap(link->mem, link->len);
        link->mem = NULL;
    }
    memset(&link->view, 0, sizeof(link->view));
    qemu_mutex_lock(&link->bell_lock);
    if (link->bell_rd >= 0) {
        close(link->bell_rd);
    }
    link->bell_rd = -1;
    qemu_mutex_unlock(&link->bell_lock);
    if (link->bell_wr >= 0) {
        close(link->bell_wr);
    }
    link->bell_wr = -1;
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

/*
 * At most this many reads per wake-up: a peer that rings without end
 * cannot keep us here.
 */
#define DRAIN_READS 16

void gemini_link_drain(GeminiLink *link)
{
    char buf[64];

    qemu_mutex_lock(&link->bell_lock);
    for (unsigned i = 0; i < DRAIN_READS && link->bell_rd >= 0; i++) {
        if (read(link->bell_rd, buf, sizeof(buf)) <= 0) {
            break;
        }
    }
    qemu_mutex_unlock(&link->bell_lock);
}
