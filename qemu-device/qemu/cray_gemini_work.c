// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cray-gemini: when the device core runs.  The device's own thread (its
 * link doorbells, the router's deadline timer, kicks), the polls a
 * posting vCPU makes itself, and the idle polls of a vCPU that waits for
 * the NIC.  See Documentation/device.rst ("Links", "Idle polls") and
 * Documentation/fabric.rst ("Doorbells").
 */
#include "qemu/osdep.h"
#include <linux/futex.h>
#include <sys/syscall.h>
#include "qemu/error-report.h"
#include "qemu/main-loop.h"
#include "qemu/timer.h"

#include "cray_gemini.h"
#include "trace.h"

/* --- Idle polls --------------------------------------------------------- */

/*
 * A consumer that finds its CQ empty again and again reads the CQ page's
 * idle register (GEMINI_CQ_IDLE_OFFSET; libugni does, after a run of
 * empty polls).  Its vCPU then waits here, without the BQL, until the
 * core writes guest memory (whatever the consumer waits for arrives that
 * way) or GEMINI_CQ_IDLE_MAX_US pass.  On a host with more vCPUs than
 * cores, a vCPU polling an empty CQ otherwise keeps its core for a whole
 * time slice, while the vCPU that would answer it waits for that core:
 * eight ranks in a ring advance one time slice per hop.  A guest's
 * interrupts wait for the end of the wait, which is why it is short.
 *
 * A write after the last wait on this CQ's page ended may be one the
 * consumer has not seen yet: then the read returns at once.
 */
void cray_gemini_idle(CrayGeminiState *s, unsigned cq)
{
    struct timespec ts = { 0, GEMINI_CQ_IDLE_MAX_US * 1000 };
    uint32_t gen = qatomic_read(&s->dma_gen);

    if (gen != s->idle_seen[cq]) {
        s->idle_seen[cq] = gen;
        return;
    }
    trace_cray_gemini_idle(cq);
    qatomic_inc(&s->idle_waiters);
    qemu_mutex_unlock_iothread();
    /* Returns at once if a write bumped @dma_gen since we read it */
    syscall(SYS_futex, &s->dma_gen, FUTEX_WAIT_PRIVATE, gen, &ts, NULL, 0);
    qemu_mutex_lock_iothread();
    qatomic_dec(&s->idle_waiters);
    s->idle_seen[cq] = qatomic_read(&s->dma_gen);
}

/* After a DMA write of the core: end the waits for it */
void cray_gemini_idle_end(CrayGeminiState *s)
{
    qatomic_inc(&s->dma_gen);
    if (qatomic_read(&s->idle_waiters)) {
        syscall(SYS_futex, &s->dma_gen, FUTEX_WAKE_PRIVATE, INT_MAX,
                NULL, NULL, 0);
    }
}

/* The CQ whose page's idle register @addr is, or -1 */
int cray_gemini_idle_cq(hwaddr addr, unsigned size)
{
    hwaddr rel = addr - GEMINI_CQ_USER_ALIAS;

    if (addr < GEMINI_CQ_USER_ALIAS || size != 8 ||
        rel >= (hwaddr)GEMINI_NUM_CQ << 12 ||
        (rel & 0xfff) != GEMINI_CQ_IDLE_OFFSET) {
        return -1;
    }
    return rel >> 12;
}

/* --- Router work -------------------------------------------------------- */

/*
 * Arm the poll timer to fire by @deadline (UINT64_MAX: no need).  A timer
 * that already fires by then is left alone, and one no longer wanted is
 * left to fire once for nothing: moving a timer earlier wakes the
 * device's thread (an eventfd write) if it sleeps, which on every post
 * would be a system call and a wake-up per post.
 */
static void cray_gemini_wake_by(CrayGeminiState *s, uint64_t deadline)
{
    if (deadline != UINT64_MAX &&
        (!timer_pending(s->poll_timer) ||
         timer_expire_time_ns(s->poll_timer) > deadline)) {
        timer_mod(s->poll_timer, deadline);
    }
}

/*
 * Run the core until it has nothing to do, arm the doorbells, and the
 * poll timer for the core's next deadline.
 */
void cray_gemini_poll(CrayGeminiState *s)
{
    cray_gemini_wake_by(s, gemini_nic_poll(&s->nic));
}

/* Work arrived from elsewhere: run the poll soon, from the device's ctx. */
void cray_gemini_kick(CrayGeminiState *s)
{
    if (s->poll_bh) {
        qemu_bh_schedule(s->poll_bh);
    }
}

/*
 * A vCPU that posts polls the core itself on every post (see
 * cray_gemini_window_write()), and takes in whatever answers have come.
 * While it does, a doorbell or a timer firing on the device's thread
 * would only take the BQL from it for work its next post does anyway:
 * with the thread at real-time priority, each answer would cost a
 * preemption, a BQL hand-over and about two context switches.  A vCPU
 * is busy posting from its third poll in a row each within
 * CRAY_GEMINI_STREAK_NS of the one before (a lone post has one or two:
 * its data and its sync); a busy vCPU's polls leave the
 * doorbells unarmed, so that peers answering it do not ring, and the
 * thread, woken within CRAY_GEMINI_BUSY_NS of such a poll, looks again
 * once the vCPU has been quiet that long (and no sooner than
 * CRAY_GEMINI_RECHECK_NS later while it goes on posting).  The thread
 * arms the doorbells when it polls, and never sleeps with neither armed
 * doorbells nor a timer pending.  50 us, not less: on a host whose
 * vCPUs outnumber its cores a posting vCPU is preempted often, and a
 * shorter quiet ends the deferral in the middle of a flood
 * (Documentation/fabric.rst, "Doorbells").  The price is
 * at most CRAY_GEMINI_RECHECK_NS plus CRAY_GEMINI_BUSY_NS on what
 * arrives after a busy vCPU's last post, unless that vCPU spins on the
 * NIC (cray_gemini_window_read()).
 */
#define CRAY_GEMINI_STREAK_NS   50000
#define CRAY_GEMINI_BUSY_NS     50000
#define CRAY_GEMINI_RECHECK_NS  100000

/*
 * On the device's thread, without the BQL: leave the work for later?
 * For a busy vCPU (above); and for a stream of requests: a doorbell
 * within CRAY_GEMINI_STREAK_NS of a poll of ours that, as the one before
 * it, took in more than one request (a peer posting as fast as it can)
 * is answered CRAY_GEMINI_RECHECK_NS after that poll, in one poll for
 * what came meanwhile, as a NIC moderates its interrupts.  A ping-pong's
 * polls take in one request each: never delayed.  @rang: a doorbell
 * woke us, not the timer.
 */
static bool cray_gemini_defer(CrayGeminiState *s, bool rang)
{
    int64_t busy = qatomic_read(&s->vcpu_busy_ns);
    int64_t now, until;

    if (!s->own_thread) {
        return false;
    }
    now = qemu_clock_get_ns(QEMU_CLOCK_REALTIME);
    if (now - busy < CRAY_GEMINI_BUSY_NS) {
        until = busy + CRAY_GEMINI_BUSY_NS;
        if (s->deferring) {
            until = MAX(until, now + CRAY_GEMINI_RECHECK_NS);
        }
    } else if (rang && s->stream &&
               now - s->thread_poll_ns < CRAY_GEMINI_STREAK_NS) {
        until = s->thread_poll_ns + CRAY_GEMINI_RECHECK_NS;
    } else {
        return false;
    }
    qatomic_set(&s->deferring, true);
    cray_gemini_wake_by(s, until);
    return true;
}

/* A vCPU's poll (under the BQL, from its MMIO handler) */
void cray_gemini_vcpu_poll(CrayGeminiState *s)
{
    int64_t now = qemu_clock_get_ns(QEMU_CLOCK_REALTIME);
    bool busy = now - s->vcpu_poll_ns < CRAY_GEMINI_STREAK_NS &&
                s->vcpu_poll_ns - s->vcpu_prev_poll_ns < CRAY_GEMINI_STREAK_NS;

    cray_gemini_wake_by(s, busy ? gemini_nic_poll_unarmed(&s->nic) :
                                  gemini_nic_poll(&s->nic));
    now = qemu_clock_get_ns(QEMU_CLOCK_REALTIME);
    if (busy) {
        qatomic_set(&s->vcpu_busy_ns, now);
    }
    s->vcpu_prev_poll_ns = s->vcpu_poll_ns;
    s->vcpu_poll_ns = now;
}

/*
 * A poll of the thread that left work undone (a flood: the core wants to
 * come back at once) comes back after a breath instead: the thread runs
 * at real-time priority, and would otherwise keep the guests on its core
 * from running while a peer floods it.
 */
#define CRAY_GEMINI_FLOOD_BREATH_NS 100000

/* The poll of the device's thread, under the BQL */
static void cray_gemini_thread_poll(CrayGeminiState *s)
{
    uint64_t reqs = gemini_nic_counter(&s->nic, VGEMINI_NC_REQ_PKTS_IN);
    uint64_t deadline;
    int64_t now;
    bool multi;

    qatomic_set(&s->deferring, false);
    deadline = gemini_nic_poll(&s->nic);
    now = qemu_clock_get_ns(QEMU_CLOCK_REALTIME);
    if (s->own_thread && deadline <= now) {
        deadline = now + CRAY_GEMINI_FLOOD_BREATH_NS;
    }
    cray_gemini_wake_by(s, deadline);
    multi = gemini_nic_counter(&s->nic, VGEMINI_NC_REQ_PKTS_IN) - reqs > 1;
    s->stream = multi && s->multi;
    s->multi = multi;
    s->thread_poll_ns = now;
}

/* --- The device's thread ------------------------------------------------ */

/*
 * A packet that arrives rings the link's doorbell; the device's own
 * thread waits on its doorbells alone (aio_poll() of its AioContext: a
 * ppoll() of seven descriptors).  The main loop's wake-up polls some
 * thirty descriptors through glib: too dear for every packet, and on the
 * CPU that the guest's vCPU needs next (Documentation/device.rst,
 * "Links").  The core is not thread-safe: the thread takes the
 * BQL, which the vCPUs' MMIO handlers and the main loop hold when they
 * enter it.
 *
 * Under the BQL the thread also engages the device's reentrancy guard,
 * as a guarded bottom half would (a guarded bottom half cannot be used
 * here: it tests the guard before we hold the BQL, and would drop the
 * work while a vCPU is in our MMIO handlers).
 */
void cray_gemini_thread_work(void *opaque)
{
    CrayGeminiState *s = opaque;
    bool guarded = false;

    if (s->own_thread) {
        qemu_mutex_lock_iothread();
    }
    if (!s->stopping) {
#ifdef qemu_bh_new_guarded
        guarded = DEVICE(s)->mem_reentrancy_guard.engaged_in_io;
        DEVICE(s)->mem_reentrancy_guard.engaged_in_io = true;
#endif
        cray_gemini_thread_poll(s);
#ifdef qemu_bh_new_guarded
        DEVICE(s)->mem_reentrancy_guard.engaged_in_io = guarded;
#endif
    }
    if (s->own_thread) {
        qemu_mutex_unlock_iothread();
    }
}

/* The poll timer: the core's deadline, or a look after deferring */
void cray_gemini_thread_timer(void *opaque)
{
    CrayGeminiState *s = opaque;

    if (!cray_gemini_defer(s, false)) {
        cray_gemini_thread_work(s);
    }
}

void cray_gemini_bell(void *opaque)
{
    GeminiLink *link = opaque;
    CrayGeminiState *s = link->owner;

    gemini_link_drain(link);
    if (!cray_gemini_defer(s, true)) {
        cray_gemini_thread_work(s);
    }
}

static void *cray_gemini_thread_run(void *opaque)
{
    CrayGeminiState *s = opaque;

    rcu_register_thread();
    /* Named, so that top and perf tell it from QEMU's other threads. */
    pthread_setname_np(pthread_self(), "cray-gemini");
    qemu_set_current_aio_context(s->ctx);
    gemini_link_thread_enter();
    while (qatomic_read(&s->running)) {
        aio_poll(s->ctx, true);
    }
    rcu_unregister_thread();
    return NULL;
}

static void cray_gemini_thread_stop_bh(void *opaque)
{
    CrayGeminiState *s = opaque;

    qatomic_set(&s->running, false);
}

/*
 * Start the device's thread at real-time priority (SCHED_FIFO 1), or, if
 * the host refuses it, leave the work to the main loop.  At normal
 * priority the thread is worse than the main loop: woken by a doorbell,
 * it waits for the BQL, which a vCPU storing into the NIC takes again
 * within nanoseconds of each release while the woken thread is still
 * being scheduled, long enough for requests to time out.  At real-time
 * priority it runs as soon as it is woken (Documentation/device.rst,
 * "Links", has the figures).
 */
void cray_gemini_thread_start(CrayGeminiState *s)
{
    struct sched_param sp = { .sched_priority = 1 };
    Error *err = NULL;
    int r;

    s->own_thread = false;
    s->ctx = aio_context_new(&err);
    if (!s->ctx) {
        warn_report_err(err);
        s->ctx = iohandler_get_aio_context();
        return;
    }
    s->running = true;
    qemu_thread_create(&s->thread, "cray-gemini", cray_gemini_thread_run, s,
                       QEMU_THREAD_JOINABLE);
    r = pthread_setschedparam(s->thread.thread, SCHED_FIFO, &sp);
    if (r == 0) {
        s->own_thread = true;
        return;
    }
    aio_bh_schedule_oneshot(s->ctx, cray_gemini_thread_stop_bh, s);
    qemu_thread_join(&s->thread);
    aio_context_unref(s->ctx);
    s->ctx = iohandler_get_aio_context();
    warn_report("cray-gemini: no real-time priority for the device's thread "
                "(%s): its links are served by the main loop", strerror(r));
}

/* Called with the BQL held; the device does no more work after it. */
void cray_gemini_thread_stop(CrayGeminiState *s)
{
    s->stopping = true;
    if (!s->own_thread) {
        return;
    }
    aio_bh_schedule_oneshot(s->ctx, cray_gemini_thread_stop_bh, s);
    /* Work of the thread's may wait for the BQL: it finds stopping. */
    qemu_mutex_unlock_iothread();
    qemu_thread_join(&s->thread);
    qemu_mutex_lock_iothread();
}

/* After cray_gemini_thread_stop() and the removal of its handlers */
void cray_gemini_thread_free(CrayGeminiState *s)
{
    if (s->own_thread) {
        aio_context_unref(s->ctx);
    }
    s->ctx = NULL;
}
