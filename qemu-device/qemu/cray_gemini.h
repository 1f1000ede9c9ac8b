/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cray-gemini: the device's QEMU state, shared by the glue's files
 * (cray_gemini.c: PCI, BARs, timers, links, reset; cray_gemini_supervisor.c:
 * the supervisor's QOM properties).
 */
#ifndef CRAY_GEMINI_H
#define CRAY_GEMINI_H

#include "block/aio.h"
#include "hw/pci/pci.h"
#include "qemu/notify.h"
#include "qemu/thread.h"
#include "qemu/timer.h"
#include "qom/object.h"

#include "gemini_core.h"
#include "gemini_link.h"

#define TYPE_CRAY_GEMINI "cray-gemini"
OBJECT_DECLARE_SIMPLE_TYPE(CrayGeminiState, CRAY_GEMINI)

struct CrayGeminiState {
    PCIDevice parent_obj;

    MemoryRegion ctl;
    MemoryRegion window;
    QEMUTimer *tick;
    QEMUTimer *poll_timer;      /* the router's next deadline (ctx) */
    QEMUBH *poll_bh;            /* run the poll soon (ctx) */
    Notifier exit_notifier;

    /*
     * The device's own thread: its doorbells, poll timer and bottom half
     * run there, under the BQL, so that a packet arriving wakes one
     * thread that waits on a few descriptors, not the main loop.  Where
     * the host refuses it real-time priority, @ctx is the main loop's.
     */
    AioContext *ctx;
    bool own_thread;            /* @ctx is the device thread's */
    QemuThread thread;
    bool running;               /* cleared on the thread to end it */
    bool stopping;              /* under the BQL: do no more work */
    /*
     * A vCPU's polls after its posts (QEMU_CLOCK_REALTIME ns): the last
     * two, and the last it made busy posting (cray_gemini_vcpu_poll()).
     * While a vCPU is busy, the device's thread leaves answers to it.
     */
    int64_t vcpu_poll_ns;
    int64_t vcpu_prev_poll_ns;
    int64_t vcpu_busy_ns;
    bool read_since_post;       /* BAR2 read since the last store that posted */
    /* The device's thread's own (cray_gemini_defer()): */
    bool deferring;             /* it left work for later (vCPUs peek) */
    bool multi;                 /* its last poll took in requests, not one */
    bool stream;                /* and so did the one before */
    int64_t thread_poll_ns;     /* when that poll ended */

    /*
     * Idle polls (cray_gemini_idle()): @dma_gen counts the core's DMA
     * writes, @idle_waiters the vCPUs waiting for the next one, and
     * @idle_seen what @dma_gen was when a wait on each CQ's page last
     * ended (under the BQL).
     */
    uint32_t dma_gen;
    uint32_t idle_waiters;
    uint32_t idle_seen[GEMINI_NUM_CQ];

    struct gemini_nic nic;
    GeminiLink links[GEMINI_NUM_TORUS_PORTS];

    /* Properties */
    uint32_t coord[3];
    uint32_t dims[3];
    char *link_spec[GEMINI_NUM_TORUS_PORTS];
    uint64_t window_size;       /* BAR2's size: the whole window by default */
};

/* Run the device's poll soon (a bottom half): it may have work now. */
/* cray_gemini_work.c: when the core runs */
void cray_gemini_kick(CrayGeminiState *s);
void cray_gemini_poll(CrayGeminiState *s);
void cray_gemini_vcpu_poll(CrayGeminiState *s);
void cray_gemini_thread_start(CrayGeminiState *s);
void cray_gemini_thread_stop(CrayGeminiState *s);
void cray_gemini_thread_free(CrayGeminiState *s);
void cray_gemini_thread_work(void *opaque);
void cray_gemini_thread_timer(void *opaque);
void cray_gemini_bell(void *opaque);
int cray_gemini_idle_cq(hwaddr addr, unsigned size);
void cray_gemini_idle(CrayGeminiState *s, unsigned cq);
void cray_gemini_idle_end(CrayGeminiState *s);

/* Add the supervisor's properties to the class. */
void cray_gemini_add_supervisor_props(ObjectClass *klass);

#endif
