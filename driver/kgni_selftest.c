// SPDX-License-Identifier: GPL-2.0-only
/*
 * kgni: the self-test run at probe.
 *
 * The control block has test registers (vgemini_ctl.h) for this: a scratch
 * register, a register that raises any MSI-X vector, and a small DMA engine
 * that fills, copies and inverts host memory.  The driver refuses to bind
 * unless the device passes every step; each failure is logged with what
 * was written, what was read and what was expected.
 */
#include <linux/dma-mapping.h>
#include <linux/io-64-nonatomic-lo-hi.h>
#include <linux/sizes.h>

#include "kgni.h"

/* TCG is slow; interrupts still arrive within microseconds when they do. */
#define KGNI_TEST_IRQ_TIMEOUT_MS	2000

/*
 * DMA test layout: two regions in one coherent buffer, transfers that start
 * at odd offsets and cross the device's 4 KiB steps, and untouched guard
 * bytes around them.
 */
#define KGNI_TEST_DMA_REGION		SZ_16K
#define KGNI_TEST_DMA_SIZE		(2 * KGNI_TEST_DMA_REGION)
#define KGNI_TEST_DMA_A			7
#define KGNI_TEST_DMA_B			(KGNI_TEST_DMA_REGION + 13)
#define KGNI_TEST_DMA_LEN		(3 * SZ_4K + 123)
#define KGNI_TEST_DMA_FILL		0xa5

static_assert(KGNI_TEST_DMA_LEN <= VGEMINI_DMA_MAX_LEN);
static_assert(KGNI_TEST_DMA_B + KGNI_TEST_DMA_LEN < KGNI_TEST_DMA_SIZE);
static_assert(KGNI_TEST_DMA_A + KGNI_TEST_DMA_LEN < KGNI_TEST_DMA_B);

static struct device *kgni_pdev_dev(struct kgni_dev *kdev)
{
	return &kdev->pdev->dev;
}

/**
 * kgni_selftest_identity() - check the control block before using it
 * @kdev: the device, BAR0 mapped
 *
 * MAGIC and VERSION must match this driver, the torus place must be
 * consistent with the PE, and BAR2 must answer with the same Gemini id.
 *
 * Return: 0, or -ENODEV when the device is not one this driver knows.
 */
int kgni_selftest_identity(struct kgni_dev *kdev)
{
	struct device *dev = kgni_pdev_dev(kdev);
	u32 magic, version, nports, nvec, pe, coord, dims, id;
	u32 x, y, z, dx, dy, dz;
	void __iomem *mmr;
	u64 node_id;

	magic = kgni_rd(kdev, VGEMINI_CTL_MAGIC);
	if (magic != VGEMINI_CTL_MAGIC_VALUE) {
		dev_err(dev, "self-test: MAGIC is 0x%08x, expected 0x%08x\n",
			magic, VGEMINI_CTL_MAGIC_VALUE);
		return -ENODEV;
	}
	version = kgni_rd(kdev, VGEMINI_CTL_VERSION);
	if (version != VGEMINI_CTL_VERSION_VALUE) {
		dev_err(dev,
			"self-test: control block VERSION is %u, this driver knows %u\n",
			version, VGEMINI_CTL_VERSION_VALUE);
		return -ENODEV;
	}
	nports = kgni_rd(kdev, VGEMINI_CTL_NUM_PORTS);
	if (nports != GEMINI_NUM_TORUS_PORTS) {
		dev_err(dev, "self-test: NUM_PORTS is %u, expected %u\n",
			nports, GEMINI_NUM_TORUS_PORTS);
		return -ENODEV;
	}
	nvec = kgni_rd(kdev, VGEMINI_CTL_NUM_VECTORS);
	if (nvec < 1 || nvec > GEMINI_NUM_IRQ) {
		dev_err(dev, "self-test: NUM_VECTORS is %u, expected 1..%u\n",
			nvec, GEMINI_NUM_IRQ);
		return -ENODEV;
	}

	pe = kgni_rd(kdev, VGEMINI_CTL_NODE_PE);
	coord = kgni_rd(kdev, VGEMINI_CTL_COORD);
	dims = kgni_rd(kdev, VGEMINI_CTL_DIMS);
	x = VGEMINI_COORD_X(coord);
	y = VGEMINI_COORD_Y(coord);
	z = VGEMINI_COORD_Z(coord);
	dx = VGEMINI_COORD_X(dims);
	dy = VGEMINI_COORD_Y(dims);
	dz = VGEMINI_COORD_Z(dims);
	if (x >= dx || y >= dy || z >= dz ||
	    (u64)dx * dy * dz > GEMINI_MAX_NODES) {
		dev_err(dev,
			"self-test: node (%u,%u,%u) does not fit a %ux%ux%u torus\n",
			x, y, z, dx, dy, dz);
		return -ENODEV;
	}
	id = x + dx * (y + dy * z);
	if (pe != GEMINI_PE(id, 0)) {
		dev_err(dev,
			"self-test: NODE_PE is 0x%x, node (%u,%u,%u) of %ux%ux%u should be 0x%x\n",
			pe, x, y, z, dx, dy, dz, GEMINI_PE(id, 0));
		return -ENODEV;
	}

	/* One page of the NIC window, not the whole 256 GiB. */
	mmr = pci_iomap_range(kdev->pdev, GEMINI_BAR_NIC, GEMINI_MMR_NL_NODE_ID,
			      sizeof(u64));
	if (!mmr) {
		dev_err(dev, "self-test: cannot map NL_NODE_ID in BAR%d\n",
			GEMINI_BAR_NIC);
		return -ENOMEM;
	}
	node_id = readq(mmr);
	pci_iounmap(kdev->pdev, mmr);
	if (node_id != id) {
		dev_err(dev,
			"self-test: NL_NODE_ID in BAR%d is 0x%llx, expected 0x%x\n",
			GEMINI_BAR_NIC, node_id, id);
		return -ENODEV;
	}
	return 0;
}

static const u64 kgni_scratch_patterns[] = {
	0x0000000000000000ull, 0xffffffffffffffffull, 0x0123456789abcdefull,
	0xfedcba9876543210ull, 0x5555aaaa33cc0ff0ull, 0x8000000000000001ull,
};

static int kgni_scratch_fail(struct kgni_dev *kdev, u64 wrote,
			     const char *how_written, u64 read,
			     const char *how_read)
{
	dev_err(kgni_pdev_dev(kdev),
		"self-test: SCRATCH written 0x%016llx as %s, read 0x%016llx as %s\n",
		wrote, how_written, read, how_read);
	return -EIO;
}

static u64 kgni_scratch_read_halves(struct kgni_dev *kdev)
{
	u32 lo = kgni_rd(kdev, VGEMINI_CTL_SCRATCH);
	u32 hi = kgni_rd(kdev, VGEMINI_CTL_SCRATCH + 4);

	return ((u64)hi << 32) | lo;
}

/* 64-bit and 32-bit accesses to the scratch register, in every mix. */
static int kgni_test_scratch(struct kgni_dev *kdev)
{
	void __iomem *scratch = kdev->ctl + VGEMINI_CTL_SCRATCH;
	unsigned int i;
	u64 p, got;

	for (i = 0; i < ARRAY_SIZE(kgni_scratch_patterns); i++) {
		p = kgni_scratch_patterns[i];

		writeq(p, scratch);
		got = readq(scratch);
		if (got != p)
			return kgni_scratch_fail(kdev, p, "64 bits", got,
						 "64 bits");
		got = kgni_scratch_read_halves(kdev);
		if (got != p)
			return kgni_scratch_fail(kdev, p, "64 bits", got,
						 "two 32-bit halves");

		p = ~p;
		kgni_wr(kdev, VGEMINI_CTL_SCRATCH, lower_32_bits(p));
		kgni_wr(kdev, VGEMINI_CTL_SCRATCH + 4, upper_32_bits(p));
		got = readq(scratch);
		if (got != p)
			return kgni_scratch_fail(kdev, p, "two 32-bit halves",
						 got, "64 bits");
	}

	for (i = 0; i < 64; i++) {
		p = BIT_ULL(i);
		writeq(p, scratch);
		got = readq(scratch);
		if (got != p)
			return kgni_scratch_fail(kdev, p, "64 bits", got,
						 "64 bits");
	}
	return 0;
}

/*
 * Interrupt checks: arm before the trigger, then wait for the vector and
 * verify that it fired once and that no other vector fired.
 */
static void kgni_irq_arm(struct kgni_dev *kdev, unsigned int vector,
			 unsigned int *before)
{
	unsigned int i;

	for (i = 0; i < kdev->irq.nvec; i++)
		before[i] = atomic_read(&kdev->irq.vec[i].count);
	reinit_completion(&kdev->irq.test_done);
	WRITE_ONCE(kdev->irq.test, vector);
}

static int kgni_irq_wait(struct kgni_dev *kdev, unsigned int vector,
			 const unsigned int *before, const char *what)
{
	unsigned long left;
	unsigned int i, fired, want;

	left = wait_for_completion_timeout(&kdev->irq.test_done,
					   msecs_to_jiffies(KGNI_TEST_IRQ_TIMEOUT_MS));
	WRITE_ONCE(kdev->irq.test, -1);

	for (i = 0; i < kdev->irq.nvec; i++) {
		fired = atomic_read(&kdev->irq.vec[i].count) - before[i];
		want = i == vector ? 1 : 0;
		if (fired != want) {
			dev_err(kgni_pdev_dev(kdev),
				"self-test: %s: MSI-X vector %u fired %u times, expected %u (waited for vector %u%s)\n",
				what, i, fired, want, vector,
				left ? "" : ", timed out");
			return -EIO;
		}
	}
	return 0;
}

static int kgni_test_irqs(struct kgni_dev *kdev)
{
	unsigned int before[GEMINI_NUM_IRQ];
	unsigned int v;
	int ret;

	for (v = 0; v < kdev->irq.nvec; v++) {
		kgni_irq_arm(kdev, v, before);
		kgni_wr(kdev, VGEMINI_CTL_IRQ_RAISE, v);
		ret = kgni_irq_wait(kdev, v, before, "IRQ_RAISE");
		if (ret)
			return ret;
	}
	return 0;
}

static const char *const kgni_dma_cmd_names[] = {
	[VGEMINI_DMA_CMD_FILL] = "FILL",
	[VGEMINI_DMA_CMD_COPY] = "COPY",
	[VGEMINI_DMA_CMD_INVERT] = "INVERT",
};

static const char *kgni_dma_cmd_name(u32 cmd)
{
	if (cmd < ARRAY_SIZE(kgni_dma_cmd_names) && kgni_dma_cmd_names[cmd])
		return kgni_dma_cmd_names[cmd];
	return "bad command";
}

/*
 * Run one test DMA and put its DMA_STATUS in @status.  The device completes
 * a test DMA before the command write completes; reading the status
 * flushes the write.  With @vector >= 0, also wait for the completion
 * interrupt on that vector: -EIO if it does not arrive exactly there.
 */
static int kgni_dma(struct kgni_dev *kdev, u32 cmd, dma_addr_t addr,
		    dma_addr_t dst, u32 len, int vector, u32 *status)
{
	unsigned int before[GEMINI_NUM_IRQ];
	int ret = 0;

	writeq(addr, kdev->ctl + VGEMINI_CTL_DMA_ADDR);
	writeq(dst, kdev->ctl + VGEMINI_CTL_DMA_DST);
	kgni_wr(kdev, VGEMINI_CTL_DMA_LEN, len);
	kgni_wr(kdev, VGEMINI_CTL_DMA_PATTERN, KGNI_TEST_DMA_FILL);
	kgni_wr(kdev, VGEMINI_CTL_DMA_IRQ,
		vector < 0 ? VGEMINI_IRQ_NONE : vector);

	if (vector >= 0)
		kgni_irq_arm(kdev, vector, before);
	/* writel() orders the CPU's writes to the buffer before the command. */
	kgni_wr(kdev, VGEMINI_CTL_DMA_CMD, cmd);
	*status = kgni_rd(kdev, VGEMINI_CTL_DMA_STATUS);
	if (vector >= 0)
		ret = kgni_irq_wait(kdev, vector, before,
				    kgni_dma_cmd_name(cmd));
	kgni_wr(kdev, VGEMINI_CTL_DMA_IRQ, VGEMINI_IRQ_NONE);
	/* The device's writes to the buffer before the CPU reads it. */
	dma_rmb();
	return ret;
}

static int kgni_dma_expect(struct kgni_dev *kdev, u32 cmd, u32 len,
			   u32 status, u32 want)
{
	if (status == want)
		return 0;
	dev_err(kgni_pdev_dev(kdev),
		"self-test: DMA %s of %u bytes: DMA_STATUS %u, expected %u\n",
		kgni_dma_cmd_name(cmd), len, status, want);
	return -EIO;
}

enum kgni_dma_want {
	KGNI_WANT_FILL,		/* the FILL byte */
	KGNI_WANT_PATTERN,	/* kgni_dma_pattern() */
	KGNI_WANT_INVERTED,	/* its complement */
};

static u8 kgni_dma_pattern(size_t i)
{
	return (u8)(i * 151 + (i >> 8) + 1);
}

/*
 * Check bytes [start, end) of @buf: [off, off + len) must hold @what_in,
 * every other byte must still be 0.
 */
static int kgni_dma_check(struct kgni_dev *kdev, const char *what,
			  const u8 *buf, size_t start, size_t end,
			  size_t off, size_t len, enum kgni_dma_want what_in)
{
	size_t i;
	u8 want;

	for (i = start; i < end; i++) {
		if (i < off || i >= off + len)
			want = 0;
		else if (what_in == KGNI_WANT_FILL)
			want = KGNI_TEST_DMA_FILL;
		else if (what_in == KGNI_WANT_PATTERN)
			want = kgni_dma_pattern(i - off);
		else
			want = ~kgni_dma_pattern(i - off);
		if (buf[i] != want) {
			dev_err(kgni_pdev_dev(kdev),
				"self-test: DMA %s: byte %zu of the buffer is 0x%02x, expected 0x%02x\n",
				what, i, buf[i], want);
			return -EIO;
		}
	}
	return 0;
}

static int kgni_test_dma(struct kgni_dev *kdev)
{
	struct device *dev = kgni_pdev_dev(kdev);
	const size_t a = KGNI_TEST_DMA_A, b = KGNI_TEST_DMA_B;
	const size_t len = KGNI_TEST_DMA_LEN;
	dma_addr_t dma;
	u32 status;
	size_t i;
	u8 *buf;
	int ret;

	buf = dma_alloc_coherent(dev, KGNI_TEST_DMA_SIZE, &dma, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	memset(buf, 0, KGNI_TEST_DMA_SIZE);

	/* FILL part of region A, polled. */
	ret = kgni_dma(kdev, VGEMINI_DMA_CMD_FILL, dma + a, 0, len, -1,
		       &status);
	if (!ret)
		ret = kgni_dma_expect(kdev, VGEMINI_DMA_CMD_FILL, len, status,
				      VGEMINI_DMA_DONE);
	if (!ret)
		ret = kgni_dma_check(kdev, "FILL", buf, 0, KGNI_TEST_DMA_SIZE,
				     a, len, KGNI_WANT_FILL);
	if (ret)
		goto out_free;

	/* COPY a pattern from region A to region B, with an interrupt. */
	for (i = 0; i < len; i++)
		buf[a + i] = kgni_dma_pattern(i);
	ret = kgni_dma(kdev, VGEMINI_DMA_CMD_COPY, dma + a, dma + b, len, 0,
		       &status);
	if (!ret)
		ret = kgni_dma_expect(kdev, VGEMINI_DMA_CMD_COPY, len, status,
				      VGEMINI_DMA_DONE);
	if (!ret)
		ret = kgni_dma_check(kdev, "COPY", buf, KGNI_TEST_DMA_REGION,
				     KGNI_TEST_DMA_SIZE, b, len,
				     KGNI_WANT_PATTERN);
	if (ret)
		goto out_free;

	/* INVERT region B in place, on the link vector this time. */
	ret = kgni_dma(kdev, VGEMINI_DMA_CMD_INVERT, dma + b, 0, len,
		       kdev->irq.link, &status);
	if (!ret)
		ret = kgni_dma_expect(kdev, VGEMINI_DMA_CMD_INVERT, len, status,
				      VGEMINI_DMA_DONE);
	if (!ret)
		ret = kgni_dma_check(kdev, "INVERT", buf, KGNI_TEST_DMA_REGION,
				     KGNI_TEST_DMA_SIZE, b, len,
				     KGNI_WANT_INVERTED);
	if (ret)
		goto out_free;

	/* Refusals: bad lengths and a bad command must not touch memory. */
	ret = kgni_dma(kdev, VGEMINI_DMA_CMD_FILL, dma, 0, 0, -1, &status);
	if (!ret)
		ret = kgni_dma_expect(kdev, VGEMINI_DMA_CMD_FILL, 0, status,
				      VGEMINI_DMA_ERR_LEN);
	if (!ret)
		ret = kgni_dma(kdev, VGEMINI_DMA_CMD_FILL, dma, 0,
			       VGEMINI_DMA_MAX_LEN + 1, -1, &status);
	if (!ret)
		ret = kgni_dma_expect(kdev, VGEMINI_DMA_CMD_FILL,
				      VGEMINI_DMA_MAX_LEN + 1, status,
				      VGEMINI_DMA_ERR_LEN);
	/* A refused DMA still completes, interrupt included. */
	if (!ret)
		ret = kgni_dma(kdev, 0, dma, 0, len, 0, &status);
	if (!ret)
		ret = kgni_dma_expect(kdev, 0, len, status,
				      VGEMINI_DMA_ERR_CMD);
	if (!ret)
		ret = kgni_dma_check(kdev, "refused", buf, 0,
				     KGNI_TEST_DMA_REGION, a, len,
				     KGNI_WANT_PATTERN);

out_free:
	dma_free_coherent(dev, KGNI_TEST_DMA_SIZE, buf, dma);
	return ret;
}

/* Leave the test registers as a reset leaves them. */
static void kgni_test_reset(struct kgni_dev *kdev)
{
	kgni_wr(kdev, VGEMINI_CTL_DMA_IRQ, VGEMINI_IRQ_NONE);
	writeq(0, kdev->ctl + VGEMINI_CTL_DMA_ADDR);
	writeq(0, kdev->ctl + VGEMINI_CTL_DMA_DST);
	kgni_wr(kdev, VGEMINI_CTL_DMA_LEN, 0);
	kgni_wr(kdev, VGEMINI_CTL_DMA_PATTERN, 0);
	writeq(0, kdev->ctl + VGEMINI_CTL_SCRATCH);
}

/**
 * kgni_selftest() - exercise the test registers
 * @kdev: the device, its vectors requested, link interrupt off
 *
 * Return: 0 if the scratch register, every vector and the test DMA work.
 */
int kgni_selftest(struct kgni_dev *kdev)
{
	int ret;

	ret = kgni_test_scratch(kdev);
	if (!ret)
		ret = kgni_test_irqs(kdev);
	if (!ret)
		ret = kgni_test_dma(kdev);
	kgni_test_reset(kdev);
	if (ret)
		dev_err(kgni_pdev_dev(kdev), "self-test failed, not binding\n");
	return ret;
}
