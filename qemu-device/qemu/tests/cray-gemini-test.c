// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * QTest of the cray-gemini device: identity, control registers, interrupts,
 * test DMA, garbage accesses to every BAR, links between two QEMUs, and
 * bad properties.
 */
#include "qemu/osdep.h"
#include <glib/gstdio.h>
#include "libqtest.h"
#include "libqos/libqos-pc.h"
#include "libqos/pci-pc.h"
#include "libqos/malloc-pc.h"
#include "qemu/bswap.h"
#include "qapi/error.h"
#include "qapi/qmp/qdict.h"
#include "qapi/qmp/qjson.h"
#include "hw/pci/pci_regs.h"

#include "hw/vgemini/uapi/gemini_hw.h"
#include "hw/vgemini/uapi/gemini_nic.h"
#include "hw/vgemini/uapi/vgemini_crc32.h"
#include "hw/vgemini/uapi/vgemini_ctl.h"
#include "hw/vgemini/uapi/vgemini_link.h"
#include "hw/vgemini/uapi/vgemini_route.h"

/* Where the test places the 256 GiB NIC window (it must be aligned). */
#define WINDOW_ADDR 0x10000000000ull

typedef struct Node {
    QTestState *qts;
    QGuestAllocator alloc;
    QPCIBus *bus;
    QPCIDevice *dev;
    QPCIBar ctl;
} Node;

static void find_dev(QPCIDevice *dev, int devfn, void *data)
{
    *(QPCIDevice **)data = dev;
}

static void node_start(Node *n, const char *devargs)
{
    n->qts = qtest_initf("-M q35 -nodefaults -m 256M -device cray-gemini%s%s",
                         devargs[0] ? "," : "", devargs);
    pc_alloc_init(&n->alloc, n->qts, ALLOC_NO_FLAGS);
    n->bus = qpci_new_pc(n->qts, &n->alloc);
    n->dev = NULL;
    qpci_device_foreach(n->bus, GEMINI_PCI_VENDOR_ID, GEMINI_PCI_DEVICE_ID,
                        find_dev, &n->dev);
    g_assert(n->dev);
    qpci_device_enable(n->dev);
    n->ctl = qpci_iomap(n->dev, GEMINI_BAR_CTL, NULL);
}

static void node_stop(Node *n)
{
    g_free(n->dev);
    qpci_free_pc(n->bus);
    alloc_destroy(&n->alloc);
    qtest_quit(n->qts);
}

static uint32_t rd32(Node *n, uint64_t off)
{
    return qpci_io_readl(n->dev, n->ctl, off);
}

static void wr32(Node *n, uint64_t off, uint32_t v)
{
    qpci_io_writel(n->dev, n->ctl, off, v);
}

/* --- identity and registers --------------------------------------------- */

static void test_identity(void)
{
    Node n;

    node_start(&n, "x=1,y=2,z=0,dim-x=3,dim-y=4,dim-z=1");
    g_assert_cmphex(qpci_config_readw(n.dev, PCI_VENDOR_ID), ==,
                    GEMINI_PCI_VENDOR_ID);
    g_assert_cmphex(qpci_config_readw(n.dev, PCI_DEVICE_ID), ==,
                    GEMINI_PCI_DEVICE_ID);
    g_assert_cmphex(qpci_config_readb(n.dev, PCI_REVISION_ID), ==,
                    GEMINI_PCI_REVISION);
    g_assert_cmphex(qpci_config_readw(n.dev, PCI_CLASS_DEVICE), ==,
                    GEMINI_PCI_CLASS);
    g_assert_cmphex(rd32(&n, VGEMINI_CTL_MAGIC), ==, VGEMINI_CTL_MAGIC_VALUE);
    g_assert_cmphex(rd32(&n, VGEMINI_CTL_VERSION), ==,
                    VGEMINI_CTL_VERSION_VALUE);
    /* id = 1 + 3 * (2 + 4 * 0) = 7 */
    g_assert_cmphex(rd32(&n, VGEMINI_CTL_NODE_PE), ==, GEMINI_PE(7, 0));
    g_assert_cmphex(rd32(&n, VGEMINI_CTL_COORD), ==, VGEMINI_COORD(1, 2, 0));
    g_assert_cmphex(rd32(&n, VGEMINI_CTL_DIMS), ==, VGEMINI_COORD(3, 4, 1));
    g_assert_cmpuint(rd32(&n, VGEMINI_CTL_NUM_PORTS), ==, 6);
    g_assert_cmpuint(rd32(&n, VGEMINI_CTL_NUM_VECTORS), ==, GEMINI_NUM_IRQ);
    /* No links given: every port unused, expected neighbours computed. */
    for (int p = 0; p < GEMINI_NUM_TORUS_PORTS; p++) {
        g_assert_cmpuint(rd32(&n, VGEMINI_CTL_PORT(p) + VGEMINI_PORT_STATE),
                         ==, VGEMINI_PORT_UNUSED);
        g_assert_cmphex(rd32(&n, VGEMINI_CTL_PORT(p) + VGEMINI_PORT_PEER),
                        ==, VGEMINI_PEER_NONE);
    }
    g_assert_cmphex(rd32(&n, VGEMINI_CTL_PORT(GEMINI_PORT_XP) +
                         VGEMINI_PORT_EXPECTED), ==, GEMINI_PE(8, 0));
    g_assert_cmphex(rd32(&n, VGEMINI_CTL_PORT(GEMINI_PORT_YM) +
                         VGEMINI_PORT_EXPECTED), ==, GEMINI_PE(4, 0));
    node_stop(&n);
}

static void test_scratch_and_reset(void)
{
    Node n;

    node_start(&n, "");
    qpci_io_writeq(n.dev, n.ctl, VGEMINI_CTL_SCRATCH, 0xfedcba9876543210ull);
    g_assert_cmphex(qpci_io_readq(n.dev, n.ctl, VGEMINI_CTL_SCRATCH), ==,
                    0xfedcba9876543210ull);
    g_assert_cmphex(rd32(&n, VGEMINI_CTL_SCRATCH + 4), ==, 0xfedcba98);
    wr32(&n, VGEMINI_CTL_SCRATCH, 0x11111111);
    g_assert_cmphex(qpci_io_readq(n.dev, n.ctl, VGEMINI_CTL_SCRATCH), ==,
                    0xfedcba9811111111ull);
    wr32(&n, VGEMINI_CTL_LINK_IRQ, 7);
    /* The GART registers: base bits 51..12 kept, entries capped. */
    qpci_io_writeq(n.dev, n.ctl, VGEMINI_CTL_GART_BASE, ~0ull);
    g_assert_cmphex(qpci_io_readq(n.dev, n.ctl, VGEMINI_CTL_GART_BASE), ==,
                    VGEMINI_GART_BASE_MASK);
    wr32(&n, VGEMINI_CTL_GART_ENTRIES, VGEMINI_GART_MAX_ENTRIES + 1);
    g_assert_cmpuint(rd32(&n, VGEMINI_CTL_GART_ENTRIES), ==,
                     VGEMINI_GART_MAX_ENTRIES);
    /* Read-only registers ignore writes. */
    wr32(&n, VGEMINI_CTL_MAGIC, 0);
    g_assert_cmphex(rd32(&n, VGEMINI_CTL_MAGIC), ==, VGEMINI_CTL_MAGIC_VALUE);

    qtest_qmp_assert_success(n.qts, "{'execute': 'system_reset'}");
    qtest_qmp_eventwait(n.qts, "RESET");
    /* Reset clears the BARs too: place BAR0 again. */
    n.ctl = qpci_iomap(n.dev, GEMINI_BAR_CTL, NULL);
    qpci_device_enable(n.dev);
    g_assert_cmphex(rd32(&n, VGEMINI_CTL_MAGIC), ==, VGEMINI_CTL_MAGIC_VALUE);
    g_assert_cmphex(qpci_io_readq(n.dev, n.ctl, VGEMINI_CTL_SCRATCH), ==, 0);
    g_assert_cmphex(rd32(&n, VGEMINI_CTL_LINK_IRQ), ==, VGEMINI_IRQ_NONE);
    g_assert_cmphex(qpci_io_readq(n.dev, n.ctl, VGEMINI_CTL_GART_BASE), ==, 0);
    g_assert_cmpuint(rd32(&n, VGEMINI_CTL_GART_ENTRIES), ==, 0);
    node_stop(&n);
}

/* --- interrupts: each MSI-X message is aimed at guest RAM --------------- */

static uint64_t msix_setup(Node *n)
{
    uint64_t buf = guest_alloc(&n->alloc, 4 * GEMINI_NUM_IRQ);

    qtest_memset(n->qts, buf, 0, 4 * GEMINI_NUM_IRQ);
    qpci_msix_enable(n->dev);
    g_assert_cmpuint(qpci_msix_table_size(n->dev), ==, GEMINI_NUM_IRQ);
    for (int v = 0; v < GEMINI_NUM_IRQ; v++) {
        uint64_t e = n->dev->msix_table_off + v * PCI_MSIX_ENTRY_SIZE;

        qpci_io_writel(n->dev, n->dev->msix_table_bar,
                       e + PCI_MSIX_ENTRY_LOWER_ADDR, buf + 4 * v);
        qpci_io_writel(n->dev, n->dev->msix_table_bar,
                       e + PCI_MSIX_ENTRY_UPPER_ADDR, 0);
        qpci_io_writel(n->dev, n->dev->msix_table_bar,
                       e + PCI_MSIX_ENTRY_DATA, 0x1000 + v);
        qpci_io_writel(n->dev, n->dev->msix_table_bar,
                       e + PCI_MSIX_ENTRY_VECTOR_CTRL, 0);
    }
    return buf;
}

static void check_irqs(Node *n, uint64_t buf, int want)
{
    for (int v = 0; v < GEMINI_NUM_IRQ; v++) {
        uint32_t got = qtest_readl(n->qts, buf + 4 * v);

        g_assert_cmphex(got, ==, v == want ? 0x1000 + v : 0);
    }
    qtest_memset(n->qts, buf, 0, 4 * GEMINI_NUM_IRQ);
}

static void test_irq(void)
{
    uint64_t buf;
    Node n;

    node_start(&n, "");
    buf = msix_setup(&n);
    for (int v = 0; v < GEMINI_NUM_IRQ; v++) {
        wr32(&n, VGEMINI_CTL_IRQ_RAISE, v);
        check_irqs(&n, buf, v);
    }
    /* Out of range or "none": nothing is sent. */
    wr32(&n, VGEMINI_CTL_IRQ_RAISE, GEMINI_NUM_IRQ);
    wr32(&n, VGEMINI_CTL_IRQ_RAISE, 0x80000000);
    wr32(&n, VGEMINI_CTL_IRQ_RAISE, VGEMINI_IRQ_NONE);
    check_irqs(&n, buf, -1);
    node_stop(&n);
}

/* --- test DMA ----------------------------------------------------------- */

static void dma(Node *n, uint64_t addr, uint64_t dst, uint32_t len,
                uint32_t pattern, uint32_t cmd)
{
    qpci_io_writeq(n->dev, n->ctl, VGEMINI_CTL_DMA_ADDR, addr);
    qpci_io_writeq(n->dev, n->ctl, VGEMINI_CTL_DMA_DST, dst);
    wr32(n, VGEMINI_CTL_DMA_LEN, len);
    wr32(n, VGEMINI_CTL_DMA_PATTERN, pattern);
    wr32(n, VGEMINI_CTL_DMA_CMD, cmd);
}

static void test_dma(void)
{
    const uint32_t len = 9000;
    g_autofree uint8_t *want = g_malloc(len);
    g_autofree uint8_t *got = g_malloc(len + 2);
    uint64_t irqbuf, a, b;
    Node n;

    node_start(&n, "");
    irqbuf = msix_setup(&n);
    a = guest_alloc(&n.alloc, len + 2);
    b = guest_alloc(&n.alloc, len);
    qtest_memset(n.qts, a, 0x11, len + 2);

    /* FILL, with a completion interrupt; the byte after stays. */
    wr32(&n, VGEMINI_CTL_DMA_IRQ, 9);
    dma(&n, a + 1, 0, len, 0x5a, VGEMINI_DMA_CMD_FILL);
    g_assert_cmpuint(rd32(&n, VGEMINI_CTL_DMA_STATUS), ==, VGEMINI_DMA_DONE);
    check_irqs(&n, irqbuf, 9);
    qtest_memread(n.qts, a, got, len + 2);
    g_assert_cmphex(got[0], ==, 0x11);
    g_assert_cmphex(got[len + 1], ==, 0x11);
    memset(want, 0x5a, len);
    g_assert(memcmp(got + 1, want, len) == 0);

    /* COPY random data, then INVERT it in place. */
    for (uint32_t i = 0; i < len; i++) {
        want[i] = g_test_rand_int();
    }
    qtest_memwrite(n.qts, a, want, len);
    dma(&n, a, b, len, 0, VGEMINI_DMA_CMD_COPY);
    g_assert_cmpuint(rd32(&n, VGEMINI_CTL_DMA_STATUS), ==, VGEMINI_DMA_DONE);
    qtest_memread(n.qts, b, got, len);
    g_assert(memcmp(got, want, len) == 0);
    dma(&n, b, 0, len, 0, VGEMINI_DMA_CMD_INVERT);
    g_assert_cmpuint(rd32(&n, VGEMINI_CTL_DMA_STATUS), ==, VGEMINI_DMA_DONE);
    qtest_memread(n.qts, b, got, len);
    for (uint32_t i = 0; i < len; i++) {
        g_assert_cmphex(got[i], ==, (uint8_t)~want[i]);
    }
    check_irqs(&n, irqbuf, 9);

    /* Errors: bad length, bad command, nothing at the address. */
    wr32(&n, VGEMINI_CTL_DMA_IRQ, VGEMINI_IRQ_NONE);
    dma(&n, a, 0, 0, 0, VGEMINI_DMA_CMD_FILL);
    g_assert_cmpuint(rd32(&n, VGEMINI_CTL_DMA_STATUS), ==,
                     VGEMINI_DMA_ERR_LEN);
    dma(&n, a, 0, VGEMINI_DMA_MAX_LEN + 1, 0, VGEMINI_DMA_CMD_FILL);
    g_assert_cmpuint(rd32(&n, VGEMINI_CTL_DMA_STATUS), ==,
                     VGEMINI_DMA_ERR_LEN);
    dma(&n, a, 0, 16, 0, 77);
    g_assert_cmpuint(rd32(&n, VGEMINI_CTL_DMA_STATUS), ==,
                     VGEMINI_DMA_ERR_CMD);
    dma(&n, 0x80000000000ull, 0, 16, 0, VGEMINI_DMA_CMD_INVERT);
    g_assert_cmpuint(rd32(&n, VGEMINI_CTL_DMA_STATUS), ==,
                     VGEMINI_DMA_ERR_BUS);
    dma(&n, ~0ull - 3, 0, 16, 0, VGEMINI_DMA_CMD_FILL);
    g_assert_cmpuint(rd32(&n, VGEMINI_CTL_DMA_STATUS), ==,
                     VGEMINI_DMA_ERR_BUS);
    /* Aimed at its own registers: refused, nothing re-entered. */
    qpci_io_writeq(n.dev, n.ctl, VGEMINI_CTL_SCRATCH, 0x1234);
    dma(&n, n.ctl.addr + VGEMINI_CTL_SCRATCH, 0, 8, 0x77,
        VGEMINI_DMA_CMD_FILL);
    g_assert_cmpuint(rd32(&n, VGEMINI_CTL_DMA_STATUS), ==,
                     VGEMINI_DMA_ERR_BUS);
    dma(&n, a, n.ctl.addr + VGEMINI_CTL_DMA_CMD, 8, 0, VGEMINI_DMA_CMD_COPY);
    g_assert_cmpuint(rd32(&n, VGEMINI_CTL_DMA_STATUS), ==,
                     VGEMINI_DMA_ERR_BUS);
    g_assert_cmphex(qpci_io_readq(n.dev, n.ctl, VGEMINI_CTL_SCRATCH), ==,
                    0x1234);
    check_irqs(&n, irqbuf, -1);

    /* Without bus mastering the device cannot reach memory. */
    qpci_config_writew(n.dev, PCI_COMMAND, PCI_COMMAND_MEMORY);
    qtest_memset(n.qts, a, 0x11, 16);
    dma(&n, a, 0, 16, 0x22, VGEMINI_DMA_CMD_FILL);
    g_assert_cmpuint(rd32(&n, VGEMINI_CTL_DMA_STATUS), ==,
                     VGEMINI_DMA_ERR_BUS);
    g_assert_cmphex(qtest_readb(n.qts, a), ==, 0x11);
    node_stop(&n);
}

/* --- garbage: every BAR, offset class and size; QEMU must survive ------- */

static void poke(QTestState *qts, uint64_t addr, int size, bool write)
{
    uint64_t v = 0xa5a5a5a5a5a5a5a5ull;

    switch (size) {
    case 1:
        write ? qtest_writeb(qts, addr, v) : (void)qtest_readb(qts, addr);
        break;
    case 2:
        write ? qtest_writew(qts, addr, v) : (void)qtest_readw(qts, addr);
        break;
    case 4:
        write ? qtest_writel(qts, addr, v) : (void)qtest_readl(qts, addr);
        break;
    case 8:
        write ? qtest_writeq(qts, addr, v) : (void)qtest_readq(qts, addr);
        break;
    default: {
        uint8_t buf[16];

        /* Odd sizes come as byte runs over the region. */
        memset(buf, 0xa5, sizeof(buf));
        write ? qtest_memwrite(qts, addr, buf, size) :
                qtest_memread(qts, addr, buf, size);
    }
    }
}

static void test_garbage(void)
{
    static const int sizes[] = { 1, 2, 3, 4, 5, 7, 8, 16 };
    uint64_t ctl, win, off;
    Node n;

    node_start(&n, "");
    ctl = n.ctl.addr;
    /* Place BAR2 by hand: libqos's allocator is 32-bit. */
    qpci_config_writel(n.dev, PCI_BASE_ADDRESS_2, (uint32_t)WINDOW_ADDR);
    qpci_config_writel(n.dev, PCI_BASE_ADDRESS_3, WINDOW_ADDR >> 32);
    win = WINDOW_ADDR;
    g_assert_cmphex(qtest_readq(n.qts, win + GEMINI_MMR_NL_NODE_ID), ==, 0);

    /* Every register and its neighbourhood, byte by byte. */
    for (off = 0; off < 0x180; off++) {
        for (int s = 0; s < ARRAY_SIZE(sizes); s++) {
            /* Keep the DMA doorbell for last: its address may be garbage. */
            if (off + sizes[s] > VGEMINI_CTL_DMA_CMD &&
                off < VGEMINI_CTL_DMA_CMD + 4) {
                continue;
            }
            poke(n.qts, ctl + off, sizes[s], false);
            poke(n.qts, ctl + off, sizes[s], true);
        }
    }
    wr32(&n, VGEMINI_CTL_DMA_CMD, VGEMINI_DMA_CMD_FILL);
    wr32(&n, VGEMINI_CTL_DMA_CMD, 0xa5a5a5a5);
    /* Spread over the rest of BAR0 and its very end. */
    for (off = 0x180; off < GEMINI_BAR_CTL_SIZE; off += 0x3fd) {
        for (int s = 0; s < ARRAY_SIZE(sizes); s++) {
            poke(n.qts, ctl + off, sizes[s], false);
            poke(n.qts, ctl + off, sizes[s], true);
        }
    }
    for (int s = 0; s < ARRAY_SIZE(sizes); s++) {
        poke(n.qts, ctl + GEMINI_BAR_CTL_SIZE - sizes[s], sizes[s], true);
        poke(n.qts, ctl + GEMINI_BAR_CTL_SIZE - 1, 1, false);
    }
    /* The NIC window: each region's start, odd places, the end. */
    static const uint64_t spots[] = {
        0, GEMINI_MMR_NL_NODE_ID, GEMINI_MMR_NL_NODE_ID + 3,
        GEMINI_MMR_CQ_DESC, GEMINI_CQ_USER_ALIAS, GEMINI_FMA_PRIV + 0x80,
        GEMINI_OS_FMA_PUT_WC, GEMINI_FMA_PUT_WC + 0x12345,
        GEMINI_FMA_GET + 8, GEMINI_FMA_PUT_UC, GEMINI_BAR_NIC_SIZE - 16,
    };
    for (int i = 0; i < ARRAY_SIZE(spots); i++) {
        for (int s = 0; s < ARRAY_SIZE(sizes); s++) {
            poke(n.qts, win + spots[i], sizes[s], false);
            poke(n.qts, win + spots[i], sizes[s], true);
        }
    }
    /* Still alive, identity intact. */
    g_assert_cmphex(rd32(&n, VGEMINI_CTL_MAGIC), ==, VGEMINI_CTL_MAGIC_VALUE);
    g_assert_cmphex(qtest_readq(n.qts, win + GEMINI_MMR_NL_NODE_ID), ==, 0);
    node_stop(&n);
}

/* --- links between two QEMU processes ----------------------------------- */

static uint32_t port_state(Node *n, int port)
{
    return rd32(n, VGEMINI_CTL_PORT(port) + VGEMINI_PORT_STATE);
}

static bool wait_state(Node *n, int port, uint32_t state, int seconds)
{
    for (int i = 0; i < seconds * 10; i++) {
        if (port_state(n, port) == state) {
            return true;
        }
        g_usleep(100 * 1000);
    }
    return false;
}

static char *make_link(const char *dir, const char *name)
{
    char *path = g_build_filename(dir, name, NULL);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);

    g_assert(fd >= 0);
    g_assert(ftruncate(fd, VGEMINI_LINK_FILE_SIZE) == 0);
    close(fd);
    return path;
}

/* A link file and the doorbell FIFOs the devices made beside it. */
static void remove_link(const char *path)
{
    for (int side = 0; side < 2; side++) {
        g_autofree char *bell = g_strdup_printf("%s.bell%d", path, side);

        g_unlink(bell);
    }
    g_unlink(path);
}

static void test_links(void)
{
    g_autofree char *dir = g_dir_make_tmp("cray-gemini-XXXXXX", NULL);
    g_autofree char *l0 = make_link(dir, "link-0-x");
    g_autofree char *l1 = make_link(dir, "link-1-x");
    g_autofree char *lz = make_link(dir, "link-0-z");
    g_autofree char *args0 = NULL, *args1 = NULL;
    Node a, b;

    /* A 2x1x1 torus; node 0's Z ports close on themselves. */
    args0 = g_strdup_printf("x=0,dim-x=2,link-xp=%s,link-xm=shm:%s,"
                            "link-zp=%s,link-zm=%s", l0, l1, lz, lz);
    args1 = g_strdup_printf("x=1,dim-x=2,link-xp=%s,link-xm=%s", l1, l0);
    node_start(&a, args0);
    g_assert(wait_state(&a, GEMINI_PORT_ZP, VGEMINI_PORT_UP, 20));
    g_assert(wait_state(&a, GEMINI_PORT_ZM, VGEMINI_PORT_UP, 20));
    g_assert_cmpuint(port_state(&a, GEMINI_PORT_XP), ==, VGEMINI_PORT_DOWN);

    node_start(&b, args1);
    g_assert(wait_state(&a, GEMINI_PORT_XP, VGEMINI_PORT_UP, 20));
    g_assert(wait_state(&a, GEMINI_PORT_XM, VGEMINI_PORT_UP, 20));
    g_assert(wait_state(&b, GEMINI_PORT_XP, VGEMINI_PORT_UP, 20));
    g_assert(wait_state(&b, GEMINI_PORT_XM, VGEMINI_PORT_UP, 20));
    g_assert_cmphex(rd32(&a, VGEMINI_CTL_PORT(GEMINI_PORT_XP) +
                         VGEMINI_PORT_PEER), ==, GEMINI_PE(1, 0));
    g_assert_cmphex(rd32(&b, VGEMINI_CTL_PORT(GEMINI_PORT_XM) +
                         VGEMINI_PORT_PEER), ==, GEMINI_PE(0, 0));
    g_assert_cmphex(rd32(&a, VGEMINI_CTL_PORT(GEMINI_PORT_ZP) +
                         VGEMINI_PORT_PEER), ==, GEMINI_PE(0, 0));
    g_assert_cmpuint(port_state(&b, GEMINI_PORT_YP), ==, VGEMINI_PORT_UNUSED);

    /* B goes away: A's X ports fall, its Z self-loop stays up. */
    node_stop(&b);
    g_assert(wait_state(&a, GEMINI_PORT_XP, VGEMINI_PORT_DOWN, 10));
    g_assert(wait_state(&a, GEMINI_PORT_XM, VGEMINI_PORT_DOWN, 10));
    g_assert_cmpuint(port_state(&a, GEMINI_PORT_ZP), ==, VGEMINI_PORT_UP);
    g_assert_cmpuint(rd32(&a, VGEMINI_CTL_PORT(GEMINI_PORT_XP) +
                          VGEMINI_PORT_CHANGES), >=, 2);

    /* B returns: the link comes back. */
    node_start(&b, args1);
    g_assert(wait_state(&a, GEMINI_PORT_XP, VGEMINI_PORT_UP, 20));
    node_stop(&b);
    node_stop(&a);
    remove_link(l0);
    remove_link(l1);
    remove_link(lz);
    g_assert_cmpint(g_rmdir(dir), ==, 0);
}

/* --- the supervisor's properties ---------------------------------------- */

#define GEMINI_PATH "/machine/peripheral/g0"

static QDict *qom_set(QTestState *qts, const char *prop, const char *val)
{
    return qtest_qmp(qts, "{'execute': 'qom-set', 'arguments': {"
                     "'path': " "'" GEMINI_PATH "'" ", 'property': %s, "
                     "'value': %s}}", prop, val);
}

static void qom_set_ok(QTestState *qts, const char *prop, const char *val)
{
    QDict *resp = qom_set(qts, prop, val);

    g_assert(!qdict_haskey(resp, "error"));
    qobject_unref(resp);
}

static void qom_set_bad(QTestState *qts, const char *prop, const char *val)
{
    QDict *resp = qom_set(qts, prop, val);

    if (!qdict_haskey(resp, "error")) {
        g_test_message("%s = '%s' was accepted", prop, val);
        g_assert_not_reached();
    }
    qobject_unref(resp);
}

static char *qom_get(QTestState *qts, const char *prop)
{
    QDict *resp = qtest_qmp(qts, "{'execute': 'qom-get', 'arguments': {"
                            "'path': " "'" GEMINI_PATH "'" ", "
                            "'property': %s}}", prop);
    char *v;

    g_assert(qdict_haskey(resp, "return"));
    v = g_strdup(qdict_get_str(resp, "return"));
    qobject_unref(resp);
    return v;
}

/* A routing-table image for a 1x1x1 torus: everything goes to the NIC. */
static char *write_table(const char *dir, const char *name, uint32_t gen)
{
    enum { N = VGEMINI_ROUTE_IN_PORTS * VGEMINI_ROUTE_CLASSES };
    uint8_t img[VGEMINI_ROUTE_HDR_SIZE + N] = { 0 };
    struct vgemini_route_hdr *h = (void *)img;
    char *path = g_build_filename(dir, name, NULL);

    memset(img + VGEMINI_ROUTE_HDR_SIZE, VGEMINI_ROUTE_OUT_NIC, N);
    h->magic = cpu_to_le32(VGEMINI_ROUTE_MAGIC);
    h->version = cpu_to_le32(VGEMINI_ROUTE_VERSION);
    h->hdr_size = cpu_to_le32(VGEMINI_ROUTE_HDR_SIZE);
    h->dims[0] = h->dims[1] = h->dims[2] = 1;
    h->num_nodes = cpu_to_le32(1);
    h->generation = cpu_to_le32(gen);
    h->entries_crc32 =
        cpu_to_le32(vgemini_crc32(0, img + VGEMINI_ROUTE_HDR_SIZE, N));
    g_assert(g_file_set_contents(path, (char *)img, sizeof(img), NULL));
    return path;
}

static bool json_has(const char *json, const char *needle)
{
    return strstr(json, needle) != NULL;
}

/*
 * A broken or hostile neighbour truncates the link files: this QEMU must
 * not die of SIGBUS; the ports stay down and the device answers.
 */
static void test_link_truncated(void)
{
    g_autofree char *dir = g_dir_make_tmp("cray-gemini-XXXXXX", NULL);
    g_autofree char *l0 = make_link(dir, "link-0-x");
    g_autofree char *l1 = make_link(dir, "link-1-x");
    g_autofree char *args = NULL;
    Node a;

    args = g_strdup_printf("x=0,dim-x=2,link-xp=%s,link-xm=%s", l0, l1);
    node_start(&a, args);
    g_assert_cmpuint(port_state(&a, GEMINI_PORT_XP), ==, VGEMINI_PORT_DOWN);
    g_assert_cmpint(truncate(l0, 0), ==, 0);
    g_assert_cmpint(truncate(l1, 0), ==, 0);
    /* Several heartbeats: every one reads the links. */
    g_usleep(4 * VGEMINI_LINK_HEARTBEAT_MS * 1000 + 500 * 1000);
    g_assert_cmpuint(port_state(&a, GEMINI_PORT_XP), ==, VGEMINI_PORT_DOWN);
    g_assert_cmpuint(port_state(&a, GEMINI_PORT_XM), ==, VGEMINI_PORT_DOWN);
    g_assert_cmphex(rd32(&a, VGEMINI_CTL_MAGIC), ==, VGEMINI_CTL_MAGIC_VALUE);
    node_stop(&a);
    remove_link(l0);
    remove_link(l1);
    g_assert_cmpint(g_rmdir(dir), ==, 0);
}

static void test_supervisor(void)
{
    static const char *const bad_pings[] = {
        "", "x", "1", "0,65", "0,1,0", "0,1,2000000", "0,1,2,3", "-1",
        "0,,", "99999999999999999999",
    };
    static const char *const bad_faults[] = {
        "bogus=1", "corrupt", "corrupt=2", "corrupt=-0.1", "drop=x",
        "down=7", "delay-ms=999999", "seed=", ",,=", "corrupt=0.1,",
    };
    g_autofree char *dir = g_dir_make_tmp("cray-gemini-XXXXXX", NULL);
    g_autofree char *table = write_table(dir, "t1", 5);
    g_autofree char *table0 = write_table(dir, "t0", 0);
    g_autofree char *junk = g_build_filename(dir, "junk", NULL);
    g_autofree char *long_spec = g_strnfill(400, 'a');
    char *v;
    Node n;

    g_assert(g_file_set_contents(junk, "not a table", -1, NULL));
    node_start(&n, "id=g0");

    v = qom_get(n.qts, "fabric");
    g_assert_cmpstr(v, ==, "no-table");
    g_free(v);
    g_assert_cmpuint(rd32(&n, VGEMINI_CTL_FABRIC_STATE), ==,
                     VGEMINI_FABRIC_NO_TABLE);

    /* Bad tables are refused; the router keeps forwarding nothing. */
    qom_set_bad(n.qts, "routes", "/nonexistent/vgemini-table");
    qom_set_bad(n.qts, "routes", junk);
    qom_set_bad(n.qts, "routes", table0);
    qom_set_bad(n.qts, "routes", dir);
    g_assert_cmpuint(rd32(&n, VGEMINI_CTL_ROUTE_GEN), ==, 0);

    /* Without a table a ping has no route. */
    wr32(&n, VGEMINI_CTL_DIAG_DEST, 0);
    wr32(&n, VGEMINI_CTL_DIAG_LEN, 64);
    wr32(&n, VGEMINI_CTL_DIAG_CMD, VGEMINI_DIAG_CMD_PING);
    g_assert_cmpuint(rd32(&n, VGEMINI_CTL_DIAG_STATUS), ==,
                     VGEMINI_DIAG_ERR_NO_ROUTE);

    qom_set_ok(n.qts, "routes", table);
    g_assert_cmpuint(rd32(&n, VGEMINI_CTL_ROUTE_GEN), ==, 5);
    v = qom_get(n.qts, "routes");
    g_assert(json_has(v, "\"generation\": 5"));
    g_free(v);

    qom_set_bad(n.qts, "fabric", "stop");
    qom_set_ok(n.qts, "fabric", "quiesce");
    g_assert_cmpuint(rd32(&n, VGEMINI_CTL_FABRIC_STATE), ==,
                     VGEMINI_FABRIC_QUIESCED);
    qom_set_ok(n.qts, "fabric", "resume");
    g_assert_cmpuint(rd32(&n, VGEMINI_CTL_FABRIC_STATE), ==,
                     VGEMINI_FABRIC_RUNNING);

    /* The guest pings itself through the control block ... */
    wr32(&n, VGEMINI_CTL_DIAG_CMD, 0x1234);         /* ignored */
    wr32(&n, VGEMINI_CTL_DIAG_DEST, 0);
    wr32(&n, VGEMINI_CTL_DIAG_LEN, 64);
    wr32(&n, VGEMINI_CTL_DIAG_CMD, VGEMINI_DIAG_CMD_PING);
    for (int i = 0; i < 100 && rd32(&n, VGEMINI_CTL_DIAG_STATUS) ==
         VGEMINI_DIAG_PENDING; i++) {
        g_usleep(10 * 1000);
    }
    g_assert_cmpuint(rd32(&n, VGEMINI_CTL_DIAG_STATUS), ==, VGEMINI_DIAG_DONE);
    g_assert_cmpuint(rd32(&n, VGEMINI_CTL_DIAG_HOPS), ==, 0);
    g_assert_cmpuint(rd32(&n, VGEMINI_CTL_DIAG_NTRACE), ==, 0);
    wr32(&n, VGEMINI_CTL_DIAG_DEST, 1);             /* no node 1 */
    wr32(&n, VGEMINI_CTL_DIAG_CMD, VGEMINI_DIAG_CMD_PING);
    g_assert_cmpuint(rd32(&n, VGEMINI_CTL_DIAG_STATUS), ==,
                     VGEMINI_DIAG_ERR_DEST);

    /* ... and the host through the diag-ping property. */
    for (int i = 0; i < ARRAY_SIZE(bad_pings); i++) {
        qom_set_bad(n.qts, "diag-ping", bad_pings[i]);
    }
    qom_set_ok(n.qts, "diag-ping", "0,64,50");
    for (int i = 0; i < 100; i++) {
        v = qom_get(n.qts, "diag-ping");
        if (!json_has(v, "\"state\": \"pending\"")) {
            break;
        }
        g_free(v);
        g_usleep(10 * 1000);
    }
    g_assert(json_has(v, "\"state\": \"done\""));
    g_assert(json_has(v, "\"ok\": 50"));
    g_free(v);

    /* Fault specs are checked; a bad one leaves the old one in force. */
    qom_set_ok(n.qts, "fault-xp", "corrupt=0.5,seed=3");
    for (int i = 0; i < ARRAY_SIZE(bad_faults); i++) {
        qom_set_bad(n.qts, "fault-xp", bad_faults[i]);
    }
    qom_set_bad(n.qts, "fault-zm", long_spec);
    v = qom_get(n.qts, "fault-xp");
    g_assert(json_has(v, "corrupt=0.5"));
    g_free(v);
    qom_set_ok(n.qts, "fault-xp", "none");
    v = qom_get(n.qts, "fault-xp");
    g_assert_cmpstr(v, ==, "none");
    g_free(v);

    /* Read-only ones refuse writes. */
    qom_set_bad(n.qts, "counters", "0");
    qom_set_bad(n.qts, "ports", "0");
    v = qom_get(n.qts, "counters");
    g_assert(json_has(v, "\"diag_pings\": 51"));
    g_free(v);
    v = qom_get(n.qts, "ports");
    g_assert(json_has(v, "\"port\": \"Z-\""));
    g_free(v);

    qtest_qmp_assert_success(n.qts, "{'execute': 'query-status'}");
    node_stop(&n);
    g_unlink(table);
    g_unlink(table0);
    g_unlink(junk);
    g_assert_cmpint(g_rmdir(dir), ==, 0);
}

/* --- a small NIC window (QEMU's generic fuzzer maps no larger) ---------- */

static void test_small_window(void)
{
    Node n;
    QPCIBar win;
    uint64_t size = 0;

    node_start(&n, "x=1,y=2,z=0,dim-x=3,dim-y=4,dim-z=1,window-size=0x8000000");
    win = qpci_iomap(n.dev, GEMINI_BAR_NIC, &size);
    g_assert_cmphex(size, ==, 0x8000000);
    /* The local block is all there: id = 1 + 3 * (2 + 4 * 0) = 7 */
    g_assert_cmphex(qpci_io_readq(n.dev, win, GEMINI_MMR_NL_NODE_ID), ==, 7);
    node_stop(&n);
}

/* --- idle polls: the CQ pages' idle register ------------------------------ */

/*
 * A read of a CQ page's idle register returns 0, at once or after a
 * short wait without the BQL; the device goes on answering after it.
 * The first read of each page returns at once; the second waits.
 */
static void test_idle(void)
{
    uint64_t win = WINDOW_ADDR;
    gint64 t0;
    Node n;

    node_start(&n, "x=1,y=0,z=0,dim-x=2,dim-y=1,dim-z=1");
    qpci_config_writel(n.dev, PCI_BASE_ADDRESS_2, (uint32_t)WINDOW_ADDR);
    qpci_config_writel(n.dev, PCI_BASE_ADDRESS_3, WINDOW_ADDR >> 32);
    t0 = g_get_monotonic_time();
    for (unsigned cq = 0; cq < GEMINI_NUM_CQ; cq += 73) {
        uint64_t at = win + GEMINI_CQ_USER_PAGE(cq) + GEMINI_CQ_IDLE_OFFSET;

        for (int i = 0; i < 3; i++) {
            g_assert_cmphex(qtest_readq(n.qts, at), ==, 0);
        }
        /* Only an 8-byte read is the register */
        g_assert_cmphex(qtest_readl(n.qts, at), ==, 0);
    }
    /* 15 pages, two waits each: bounded, whatever the host's load */
    g_assert_cmpint(g_get_monotonic_time() - t0, <, 30 * G_USEC_PER_SEC);
    g_assert_cmphex(qtest_readq(n.qts, win + GEMINI_MMR_NL_NODE_ID), ==, 1);
    node_stop(&n);
}

/* --- bad properties are refused, not crashed on ------------------------- */

static void test_bad_properties(void)
{
    static const char *const bad[] = {
        "{'dim-x': 0}",
        "{'dim-y': 256}",
        "{'x': 2, 'dim-x': 2}",
        "{'dim-x': 255, 'dim-y': 255, 'dim-z': 2}",
        "{'link-xp': '/nonexistent/vgemini-link'}",
        "{'link-xp': 'tcp:localhost:1'}",
        "{'link-xp': '/dev/null'}",
        "{'window-size': 4096}",
        "{'window-size': 201326592}",
        "{'window-size': 549755813888}",
    };
    QTestState *qts = qtest_init("-M q35 -nodefaults");

    for (int i = 0; i < ARRAY_SIZE(bad); i++) {
        QDict *args = qobject_to(QDict, qobject_from_json(bad[i],
                                                          &error_abort));
        QDict *resp;

        qdict_put_str(args, "driver", "cray-gemini");
        resp = qtest_qmp(qts, "{'execute': 'device_add', 'arguments': %p}",
                         args);
        g_assert(qdict_haskey(resp, "error"));
        qobject_unref(resp);
    }
    /* And QEMU still answers. */
    qtest_qmp_assert_success(qts, "{'execute': 'query-status'}");
    qtest_quit(qts);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/cray-gemini/identity", test_identity);
    qtest_add_func("/cray-gemini/scratch-and-reset", test_scratch_and_reset);
    qtest_add_func("/cray-gemini/irq", test_irq);
    qtest_add_func("/cray-gemini/dma", test_dma);
    qtest_add_func("/cray-gemini/garbage", test_garbage);
    qtest_add_func("/cray-gemini/links", test_links);
    qtest_add_func("/cray-gemini/link-truncated", test_link_truncated);
    qtest_add_func("/cray-gemini/supervisor", test_supervisor);
    qtest_add_func("/cray-gemini/bad-properties", test_bad_properties);
    qtest_add_func("/cray-gemini/small-window", test_small_window);
    qtest_add_func("/cray-gemini/idle", test_idle);
    return g_test_run();
}
