// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cray-gemini: QEMU glue for the emulated Cray Gemini NIC and router.
 *
 * The decisions live in the device core (../core); this file adapts QEMU
 * to it: PCI identity and BARs, MSI-X, DMA, the link heartbeat timer,
 * properties, reset and tracing.  When the core runs (the device's
 * thread, a posting vCPU's polls, idle polls) is cray_gemini_work.c; the
 * supervisor's QOM properties are in cray_gemini_supervisor.c.  See
 * Documentation/device.rst and Documentation/fabric.rst.
 *
 *   BAR0  control block (vgemini_ctl.h), 64 KiB
 *   BAR2  Gemini NIC address window (gemini_hw.h), 256 GiB, prefetchable
 *         (property window-size: smaller, for QEMU's generic fuzzer)
 *   BAR4  MSI-X table and PBA, 32 vectors
 */
#include "qemu/osdep.h"
#include "qemu/cutils.h"
#include "qemu/error-report.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "qemu/module.h"
#include "qemu/rcu.h"
#include "qemu/notify.h"
#include "qemu/timer.h"
#include "qapi/error.h"
#include "qapi/visitor.h"
#include "hw/pci/pci.h"
#include "hw/pci/msix.h"
#include "hw/qdev-properties.h"
#include "migration/vmstate.h"
#include "sysemu/sysemu.h"
#include "qom/object.h"

#include "cray_gemini.h"
#include "trace.h"

/*
 * The smallest BAR2 that holds the local block (the MMRs and descriptor
 * tables).  QEMU's generic fuzzer sizes BARs through their low 32 bits
 * and places them below 4 GiB, so it can map no larger one.
 */
#define CRAY_GEMINI_WINDOW_MIN  0x8000000ull    /* 128 MiB */

static const char *const access_names[] = {
    [GEMINI_ACCESS_OK] = "ok",
    [GEMINI_ACCESS_BAD_SIZE] = "bad size or alignment",
    [GEMINI_ACCESS_UNKNOWN] = "no register",
    [GEMINI_ACCESS_READ_ONLY] = "read-only register",
    [GEMINI_ACCESS_WRITE_ONLY] = "write-only register",
};

/* @name: the register's, for the log; NULL in a BAR whose have none */
static void report_access(const char *bar, const char *dir,
                          enum gemini_access r, hwaddr addr, unsigned size,
                          const char *name)
{
    trace_cray_gemini_bad_access(bar, dir, access_names[r], addr, size);
    qemu_log_mask(r == GEMINI_ACCESS_UNKNOWN ? LOG_UNIMP : LOG_GUEST_ERROR,
                  "cray-gemini: %s %s: %s at 0x%" HWADDR_PRIx "%s%s%s"
                  " size %u\n", bar, dir, access_names[r], addr,
                  name ? " (" : "", name ? name : "", name ? ")" : "", size);
}

/* --- Core ops ----------------------------------------------------------- */

static int cray_gemini_dma_read(void *opaque, uint64_t addr, void *buf,
                                size_t len)
{
    CrayGeminiState *s = opaque;

    return pci_dma_read(PCI_DEVICE(s), addr, buf, len) == MEMTX_OK ? 0 : -1;
}

/*
 * An aligned quadword (a CQ entry, an AMO's result) lands as one store.
 * The guest's CPU may read and clear a CQ entry the moment it appears;
 * pci_dma_write() copies with memmove(), which for 8 bytes may store the
 * same bytes twice, and a second store after the consumer cleared the
 * slot brings the entry back: one lap later the consumer takes it for a
 * new event, runs ahead of the device, and the CQ overruns.
 */
static int cray_gemini_dma_write(void *opaque, uint64_t addr,
                                 const void *buf, size_t len)
{
    CrayGeminiState *s = opaque;
    PCIDevice *pdev = PCI_DEVICE(s);
    MemTxResult r;

    if (len == 8 && !(addr & 7)) {
        smp_mb();       /* ordered after our earlier writes, as pci_dma_rw */
        address_space_stq_le(pci_get_address_space(pdev), addr,
                             ldq_le_p(buf), MEMTXATTRS_UNSPECIFIED, &r);
    } else {
        r = pci_dma_write(pdev, addr, buf, len);
    }
    cray_gemini_idle_end(s);
    return r == MEMTX_OK ? 0 : -1;
}

static void gemini_raise_irq(void *opaque, unsigned vector)
{
    PCIDevice *pdev = PCI_DEVICE(opaque);

    if (!msix_enabled(pdev) || msix_is_masked(pdev, vector)) {
        /* msix_notify() keeps it pending in the PBA until unmasked. */
        trace_cray_gemini_irq_masked(vector);
    } else {
        trace_cray_gemini_irq(vector);
    }
    msix_notify(pdev, vector);
}

/*
 * A guest error of the core's @kind: its own trace event (generated from
 * the same list, scripts/gen-trace-events.py; ge_trace_<id> calls
 * trace_cray_gemini_ge_<id> with the kind's number of arguments), and its
 * text only when -d guest_errors asks for it.
 */
#define GE_TRACE_0(id)                                          \
static void ge_trace_##id(const uint64_t *a)                    \
{                                                               \
    trace_cray_gemini_ge_##id();                                \
}
#define GE_TRACE_1(id)                                          \
static void ge_trace_##id(const uint64_t *a)                    \
{                                                               \
    trace_cray_gemini_ge_##id(a[0]);                            \
}
#define GE_TRACE_2(id)                                          \
static void ge_trace_##id(const uint64_t *a)                    \
{                                                               \
    trace_cray_gemini_ge_##id(a[0], a[1]);                      \
}
#define GE_TRACE_3(id)                                          \
static void ge_trace_##id(const uint64_t *a)                    \
{                                                               \
    trace_cray_gemini_ge_##id(a[0], a[1], a[2]);                \
}
#define GE_TRACE_4(id)                                          \
static void ge_trace_##id(const uint64_t *a)                    \
{                                                               \
    trace_cray_gemini_ge_##id(a[0], a[1], a[2], a[3]);          \
}
#define GE_TRACE(ID, id, nargs, names, fmt) GE_TRACE_##nargs(id)
GEMINI_GUEST_ERROR_LIST(GE_TRACE)
/* In the list's order, which is enum gemini_guest_error_kind's */
#define GE_TRACE_FN(ID, id, nargs, names, fmt) { ge_trace_##id },
static const struct {
    void (*fn)(const uint64_t *a);
} ge_trace[GEMINI_GE_COUNT] = {
    GEMINI_GUEST_ERROR_LIST(GE_TRACE_FN)
};

static void cray_gemini_guest_error(void *opaque, unsigned kind,
                                    const uint64_t args[4])
{
    char msg[160];

    if (kind < GEMINI_GE_COUNT) {
        ge_trace[kind].fn(args);
    }
    if (qemu_loglevel_mask(LOG_GUEST_ERROR)) {
        gemini_guest_error_format(kind, args, msg, sizeof(msg));
        qemu_log("cray-gemini: %s\n", msg);
    }
}

static void gemini_port_changed(void *opaque, unsigned port,
                                enum vgemini_port_state state, uint32_t peer)
{
    trace_cray_gemini_port_state(gemini_port_name(port),
                                 gemini_port_state_name(state), peer);
}

static uint64_t gemini_clock_ns(void *opaque)
{
    return qemu_clock_get_ns(QEMU_CLOCK_REALTIME);
}

static void gemini_kick_peer(void *opaque, unsigned port)
{
    CrayGeminiState *s = opaque;

    gemini_link_ring(&s->links[port]);
}

static const struct gemini_ops cray_gemini_core_ops = {
    .dma_read = cray_gemini_dma_read,
    .dma_write = cray_gemini_dma_write,
    .raise_irq = gemini_raise_irq,
    .guest_error = cray_gemini_guest_error,
    .port_changed = gemini_port_changed,
    .clock_ns = gemini_clock_ns,
    .kick_peer = gemini_kick_peer,
};

/* --- BARs --------------------------------------------------------------- */

/*
 * How long a write-combined line may wait for its next store: the poll
 * timer is armed this far ahead, unless it fires within twice that
 * anyway.  Software that needs its stores out at once ends them with a
 * NIC access (libugni's sync), as on a CPU it fences; the drain is for
 * the rest.  1 ms, not less: the timer, left pending by the post before
 * (it fires once for nothing), then usually needs no moving, where a
 * shorter drain moves it on every post, a wake-up of the device's thread
 * and another when it fires (Documentation/device.rst, "Write
 * combining").
 */
#define CRAY_GEMINI_WC_DRAIN_NS 1000000

static uint64_t cray_gemini_ctl_read(void *opaque, hwaddr addr, unsigned size)
{
    CrayGeminiState *s = opaque;
    const char *name = gemini_ctl_reg_name(addr);
    enum gemini_access r;
    uint64_t val;

    gemini_link_thread_enter();
    r = gemini_ctl_read(&s->nic, addr, size, &val);
    if (r != GEMINI_ACCESS_OK) {
        report_access("ctl", "read", r, addr, size, name);
    }
    trace_cray_gemini_ctl_read(addr, name, size, val);
    return val;
}

static void cray_gemini_ctl_write(void *opaque, hwaddr addr, uint64_t val,
                                  unsigned size)
{
    CrayGeminiState *s = opaque;
    const char *name = gemini_ctl_reg_name(addr);
    enum gemini_access r;

    gemini_link_thread_enter();
    trace_cray_gemini_ctl_write(addr, name, size, val);
    r = gemini_ctl_write(&s->nic, addr, size, val);
    if (r != GEMINI_ACCESS_OK) {
        report_access("ctl", "write", r, addr, size, name);
    }
    cray_gemini_kick(s);
}

static uint64_t cray_gemini_window_read(void *opaque, hwaddr addr,
                                        unsigned size)
{
    CrayGeminiState *s = opaque;
    enum gemini_access r;
    uint64_t val;
    int cq;

    gemini_link_thread_enter();
    /*
     * A vCPU that reads the NIC again with no post between (spinning on
     * a descriptor's status, waiting for room) gets what arrived taken
     * in first, as the hardware would have: the device's thread leaves
     * that to a posting vCPU (cray_gemini_defer()).
     */
    if (s->read_since_post && qatomic_read(&s->deferring)) {
        cray_gemini_vcpu_poll(s);
    }
    s->read_since_post = true;
    cq = cray_gemini_idle_cq(addr, size);
    if (cq >= 0) {
        cray_gemini_idle(s, cq);
    }
    r = gemini_window_read(&s->nic, addr, size, &val);
    if (r != GEMINI_ACCESS_OK) {
        report_access("window", "read", r, addr, size, NULL);
    }
    trace_cray_gemini_window_read(addr, size, val);
    return val;
}

static void cray_gemini_window_write(void *opaque, hwaddr addr, uint64_t val,
                                     unsigned size)
{
    CrayGeminiState *s = opaque;
    enum gemini_access r;
    bool moved;

    gemini_link_thread_enter();
    trace_cray_gemini_window_write(addr, size, val);
    moved = gemini_window_store(&s->nic, addr, size, val, &r);
    if (r != GEMINI_ACCESS_OK) {
        report_access("window", "write", r, addr, size, NULL);
    }
    /*
     * An FMA store that queued a request: send it now, from this vCPU.
     * A bottom half would wake another thread, which then fights the
     * vCPU for the BQL on every store, the posting vCPU asleep on that
     * lock most of the time.
     * A store that queued nothing skips the poll, which costs as much as
     * the rest of the store (a silent PUT's sync, the descriptor's
     * registers).  A vCPU busy posting polls without arming the
     * doorbells, and the device's thread leaves the answers to it
     * (cray_gemini_vcpu_poll(), cray_gemini_defer()).  DMA aimed at
     * our own BARs cannot re-enter: QEMU's reentrancy guard is engaged
     * during this access, and the core refuses it too.
     */
    if (moved) {
        s->read_since_post = false;
        cray_gemini_vcpu_poll(s);
    } else if (gemini_fma_wc_open(&s->nic)) {
        /*
         * A write-combined line is open: the next store or the sync
         * usually sends it; else the poll does, as a CPU drains its
         * buffers.  A timer firing soon enough anyway is left alone.
         */
        int64_t now = qemu_clock_get_ns(QEMU_CLOCK_REALTIME);

        if (!timer_pending(s->poll_timer) ||
            timer_expire_time_ns(s->poll_timer) >
            now + 2 * CRAY_GEMINI_WC_DRAIN_NS) {
            timer_mod(s->poll_timer, now + CRAY_GEMINI_WC_DRAIN_NS);
        }
    }
}

/*
 * Every size and alignment reaches the core, which refuses the bad ones
 * itself, so that each refusal is traced in one place.
 */
#define GEMINI_MR_ACCESS                        \
    .valid = {                                  \
        .min_access_size = 1,                   \
        .max_access_size = 8,                   \
        .unaligned = true,                      \
    },                                          \
    .impl = {                                   \
        .min_access_size = 1,                   \
        .max_access_size = 8,                   \
        .unaligned = true,                      \
    }

static const MemoryRegionOps cray_gemini_ctl_ops = {
    .read = cray_gemini_ctl_read,
    .write = cray_gemini_ctl_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    GEMINI_MR_ACCESS,
};

static const MemoryRegionOps cray_gemini_window_ops = {
    .read = cray_gemini_window_read,
    .write = cray_gemini_window_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    GEMINI_MR_ACCESS,
};

/* --- Links -------------------------------------------------------------- */

static void cray_gemini_tick(void *opaque)
{
    CrayGeminiState *s = opaque;
    int64_t now = qemu_clock_get_ms(QEMU_CLOCK_REALTIME);

    for (unsigned port = 0; port < GEMINI_NUM_TORUS_PORTS; port++) {
        if (s->links[port].mem && gemini_link_broken(&s->links[port])) {
            trace_cray_gemini_link_broken(gemini_port_name(port));
        }
    }
    gemini_nic_tick(&s->nic, now);
    timer_mod(s->tick, now + VGEMINI_LINK_HEARTBEAT_MS);
    cray_gemini_poll(s);
}

static void cray_gemini_detach_links(CrayGeminiState *s)
{
    unsigned port;

    for (port = 0; port < GEMINI_NUM_TORUS_PORTS; port++) {
        gemini_port_detach(&s->nic, port);
        if (s->links[port].bell_rd >= 0) {
            aio_set_fd_handler(s->ctx, s->links[port].bell_rd, false, NULL,
                               NULL, NULL, NULL, NULL);
        }
        gemini_link_close(&s->links[port]);
    }
}

/* After cray_gemini_detach_links(), with the thread stopped */
static void cray_gemini_fini_links(CrayGeminiState *s)
{
    for (unsigned port = 0; port < GEMINI_NUM_TORUS_PORTS; port++) {
        gemini_link_fini(&s->links[port]);
    }
}

/* Tell the neighbours at once when this QEMU exits normally. */
static void cray_gemini_exit_notify(Notifier *n, void *data)
{
    CrayGeminiState *s = container_of(n, CrayGeminiState, exit_notifier);

    cray_gemini_detach_links(s);
}

static bool cray_gemini_attach_links(CrayGeminiState *s, Error **errp)
{
    /* Differs on every attach, so a peer can tell a restart. */
    uint64_t epoch = ((uint64_t)getpid() << 40) ^ g_get_real_time();
    char err[160];
    unsigned port;

    for (port = 0; port < GEMINI_NUM_TORUS_PORTS; port++) {
        const char *spec = s->link_spec[port];

        if (!spec || !*spec) {
            continue;
        }
        if (!gemini_link_open(&s->links[port], spec,
                              GEMINI_PORT_IS_MINUS(port), errp)) {
            error_prepend(errp, "port %s: ", gemini_port_name(port));
            return false;
        }
        s->links[port].owner = s;
        aio_set_fd_handler(s->ctx, s->links[port].bell_rd, false,
                           cray_gemini_bell, NULL, NULL, NULL,
                           &s->links[port]);
        if (gemini_port_attach(&s->nic, port, &s->links[port].view, epoch,
                               err, sizeof(err))) {
            error_setg(errp, "port %s: %s", gemini_port_name(port), err);
            return false;
        }
    }
    return true;
}

/* --- Device ------------------------------------------------------------- */

/* What realize set up from the device's thread on: undone, in reverse */
static void cray_gemini_teardown(CrayGeminiState *s)
{
    cray_gemini_thread_stop(s);
    cray_gemini_detach_links(s);
    qemu_bh_delete(s->poll_bh);
    s->poll_bh = NULL;
    timer_free(s->poll_timer);
    s->poll_timer = NULL;
    cray_gemini_thread_free(s);
    cray_gemini_fini_links(s);
    gemini_nic_fini(&s->nic);
    msix_uninit_exclusive_bar(PCI_DEVICE(s));
}

static void cray_gemini_realize(PCIDevice *pdev, Error **errp)
{
    CrayGeminiState *s = CRAY_GEMINI(pdev);
    struct gemini_config cfg = {
        .num_vectors = GEMINI_NUM_IRQ,
    };
    char err[160];

    if (s->window_size < CRAY_GEMINI_WINDOW_MIN ||
        s->window_size > GEMINI_BAR_NIC_SIZE ||
        (s->window_size & (s->window_size - 1))) {
        error_setg(errp, "cray-gemini: window-size must be a power of two "
                   "from 0x%llx to 0x%llx",
                   (unsigned long long)CRAY_GEMINI_WINDOW_MIN,
                   (unsigned long long)GEMINI_BAR_NIC_SIZE);
        return;
    }
    memcpy(cfg.coord, s->coord, sizeof(cfg.coord));
    memcpy(cfg.dims, s->dims, sizeof(cfg.dims));
    if (gemini_nic_init(&s->nic, &cfg, &cray_gemini_core_ops, s,
                        err, sizeof(err))) {
        error_setg(errp, "cray-gemini: %s", err);
        return;
    }

    memory_region_init_io(&s->ctl, OBJECT(s), &cray_gemini_ctl_ops, s,
                          "cray-gemini-ctl", GEMINI_BAR_CTL_SIZE);
    pci_register_bar(pdev, GEMINI_BAR_CTL,
                     PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64, &s->ctl);
    memory_region_init_io(&s->window, OBJECT(s), &cray_gemini_window_ops, s,
                          "cray-gemini-window", s->window_size);
    pci_register_bar(pdev, GEMINI_BAR_NIC,
                     PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64 |
                     PCI_BASE_ADDRESS_MEM_PREFETCH, &s->window);

    if (msix_init_exclusive_bar(pdev, GEMINI_NUM_IRQ, GEMINI_BAR_MSIX, errp)) {
        return;
    }
    for (unsigned v = 0; v < GEMINI_NUM_IRQ; v++) {
        msix_vector_use(pdev, v);
    }

    for (unsigned port = 0; port < GEMINI_NUM_TORUS_PORTS; port++) {
        gemini_link_init(&s->links[port]);
    }
    /* Before the links: their doorbells may ring at once. */
    gemini_link_thread_enter();     /* the main loop's thread */
    cray_gemini_thread_start(s);
    s->poll_timer = aio_timer_new(s->ctx, QEMU_CLOCK_REALTIME, SCALE_NS,
                                  cray_gemini_thread_timer, s);
    /* The kick's bottom half: work that no vCPU's poll would do */
    s->poll_bh = aio_bh_new(s->ctx, cray_gemini_thread_work, s);
    if (!cray_gemini_attach_links(s, errp)) {
        cray_gemini_teardown(s);
        return;
    }
    s->exit_notifier.notify = cray_gemini_exit_notify;
    qemu_add_exit_notifier(&s->exit_notifier);

    /* The router runs whatever the CPU does, hence the realtime clock. */
    s->tick = timer_new_ms(QEMU_CLOCK_REALTIME, cray_gemini_tick, s);
    timer_mod(s->tick, qemu_clock_get_ms(QEMU_CLOCK_REALTIME) +
              VGEMINI_LINK_HEARTBEAT_MS);
}

static void cray_gemini_exit(PCIDevice *pdev)
{
    CrayGeminiState *s = CRAY_GEMINI(pdev);

    timer_free(s->tick);
    s->tick = NULL;
    qemu_remove_exit_notifier(&s->exit_notifier);
    cray_gemini_teardown(s);
}

/*
 * Tell the core where the guest placed the BARs: it refuses DMA into
 * them (a ring or descriptor aimed at the device itself).
 */
static void cray_gemini_update_own_windows(CrayGeminiState *s)
{
    static const int bars[] = { GEMINI_BAR_CTL, GEMINI_BAR_NIC,
                                GEMINI_BAR_MSIX };
    PCIDevice *pdev = PCI_DEVICE(s);

    for (unsigned i = 0; i < ARRAY_SIZE(bars); i++) {
        pcibus_t addr = pci_get_bar_addr(pdev, bars[i]);

        if (addr == PCI_BAR_UNMAPPED) {
            gemini_nic_set_own_window(&s->nic, i, 0, 0);
        } else {
            gemini_nic_set_own_window(&s->nic, i, addr,
                                      pdev->io_regions[bars[i]].size);
        }
    }
}

static void cray_gemini_config_write(PCIDevice *pdev, uint32_t addr,
                                     uint32_t val, int len)
{
    pci_default_write_config(pdev, addr, val, len);
    cray_gemini_update_own_windows(CRAY_GEMINI(pdev));
}

static void cray_gemini_reset(DeviceState *dev)
{
    CrayGeminiState *s = CRAY_GEMINI(dev);

    trace_cray_gemini_reset();
    gemini_nic_reset(&s->nic);
    cray_gemini_update_own_windows(s);
}

/* Links and host memory mappings cannot move with the guest (yet). */
static const VMStateDescription vmstate_cray_gemini = {
    .name = TYPE_CRAY_GEMINI,
    .unmigratable = 1,
};

static Property cray_gemini_properties[] = {
    DEFINE_PROP_UINT32("x", CrayGeminiState, coord[0], 0),
    DEFINE_PROP_UINT32("y", CrayGeminiState, coord[1], 0),
    DEFINE_PROP_UINT32("z", CrayGeminiState, coord[2], 0),
    DEFINE_PROP_UINT32("dim-x", CrayGeminiState, dims[0], 1),
    DEFINE_PROP_UINT32("dim-y", CrayGeminiState, dims[1], 1),
    DEFINE_PROP_UINT32("dim-z", CrayGeminiState, dims[2], 1),
    DEFINE_PROP_STRING("link-xp", CrayGeminiState, link_spec[GEMINI_PORT_XP]),
    DEFINE_PROP_STRING("link-xm", CrayGeminiState, link_spec[GEMINI_PORT_XM]),
    DEFINE_PROP_STRING("link-yp", CrayGeminiState, link_spec[GEMINI_PORT_YP]),
    DEFINE_PROP_STRING("link-ym", CrayGeminiState, link_spec[GEMINI_PORT_YM]),
    DEFINE_PROP_STRING("link-zp", CrayGeminiState, link_spec[GEMINI_PORT_ZP]),
    DEFINE_PROP_STRING("link-zm", CrayGeminiState, link_spec[GEMINI_PORT_ZM]),
    DEFINE_PROP_UINT64("window-size", CrayGeminiState, window_size,
                       GEMINI_BAR_NIC_SIZE),
    DEFINE_PROP_END_OF_LIST(),
};

static void cray_gemini_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    PCIDeviceClass *k = PCI_DEVICE_CLASS(klass);

    k->realize = cray_gemini_realize;
    k->exit = cray_gemini_exit;
    k->config_write = cray_gemini_config_write;
    k->vendor_id = GEMINI_PCI_VENDOR_ID;
    k->device_id = GEMINI_PCI_DEVICE_ID;
    k->revision = GEMINI_PCI_REVISION;
    k->class_id = GEMINI_PCI_CLASS;
    dc->desc = "Cray Gemini interconnect NIC and router";
    dc->reset = cray_gemini_reset;
    dc->vmsd = &vmstate_cray_gemini;
    device_class_set_props(dc, cray_gemini_properties);
    cray_gemini_add_supervisor_props(klass);
    set_bit(DEVICE_CATEGORY_NETWORK, dc->categories);
}

static const TypeInfo cray_gemini_info = {
    .name = TYPE_CRAY_GEMINI,
    .parent = TYPE_PCI_DEVICE,
    .instance_size = sizeof(CrayGeminiState),
    .class_init = cray_gemini_class_init,
    .interfaces = (InterfaceInfo[]) {
        { INTERFACE_CONVENTIONAL_PCI_DEVICE },
        { },
    },
};

static void cray_gemini_register_types(void)
{
    type_register_static(&cray_gemini_info);
}

type_init(cray_gemini_register_types)
