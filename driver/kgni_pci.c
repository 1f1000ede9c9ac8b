// SPDX-License-Identifier: GPL-2.0-only
/*
 * kgni: PCI probe and remove, MSI-X vectors and their handler.
 *
 * Probe maps BAR0 (the control block), checks that BAR2 (the NIC window)
 * is assigned without mapping it, takes one MSI-X vector per Gemini in-band
 * interrupt, runs the self-test and only then makes /dev/kgniN appear.
 */
#include <linux/dma-mapping.h>
#include <linux/module.h>

#include "kgni.h"

static const struct pci_device_id kgni_pci_ids[] = {
	{ PCI_DEVICE(GEMINI_PCI_VENDOR_ID, GEMINI_PCI_DEVICE_ID) },
	{ }
};
MODULE_DEVICE_TABLE(pci, kgni_pci_ids);

static irqreturn_t kgni_irq(int irq, void *data)
{
	struct kgni_vector *v = data;
	struct kgni_dev *kdev = v->kdev;

	atomic_inc(&v->count);
	if (v->index == kdev->irq.link)
		schedule_work(&kdev->link.work);
	if (v->index == kdev->irq.diag)
		wake_up(&kdev->diag.wq);
	if (v->index == kdev->irq.cq)
		wake_up(&kdev->cq.wq);
	if (READ_ONCE(kdev->irq.test) == (int)v->index)
		complete(&kdev->irq.test_done);
	kgni_dg_irq(kdev, v->index);
	kgni_kcq_irq(kdev, v->index);
	return IRQ_HANDLED;
}

/*
 * One vector per Gemini in-band interrupt; the last one for link changes,
 * the one before for diagnostic pings (the same one if there is only one),
 * Gemini's first CQ interrupt for blocking CQs (shared with the pings' if
 * the device has too few vectors: waiters check their own condition).
 */
static int kgni_irq_setup(struct kgni_dev *kdev)
{
	struct pci_dev *pdev = kdev->pdev;
	unsigned int want, i;
	int nvec, ret;

	want = min_t(u32, kgni_rd(kdev, VGEMINI_CTL_NUM_VECTORS),
		     GEMINI_NUM_IRQ);
	nvec = pci_alloc_irq_vectors(pdev, 1, want, PCI_IRQ_MSIX);
	if (nvec < 0) {
		dev_err(&pdev->dev, "cannot allocate MSI-X vectors: %d\n",
			nvec);
		return nvec;
	}
	kdev->irq.nvec = nvec;
	kdev->irq.link = nvec - 1;
	kdev->irq.diag = nvec > 1 ? nvec - 2 : nvec - 1;
	kdev->irq.cq = GEMINI_IRQ_VECTOR(GEMINI_IRQ_FIRST_CQ);
	if (kdev->irq.cq >= kdev->irq.diag)
		kdev->irq.cq = kdev->irq.diag;

	for (i = 0; i < kdev->irq.nvec; i++) {
		struct kgni_vector *v = &kdev->irq.vec[i];

		v->kdev = kdev;
		v->index = i;
		atomic_set(&v->count, 0);
		ret = pci_request_irq(pdev, i, kgni_irq, NULL, v, "kgni%d-%u",
				      kdev->minor, GEMINI_IRQ_FIRST + i);
		if (ret) {
			dev_err(&pdev->dev,
				"cannot request interrupt of MSI-X vector %u: %d\n",
				i, ret);
			goto err_free_irqs;
		}
	}
	if (nvec < want)
		dev_warn(&pdev->dev, "%d of %u MSI-X vectors available\n",
			 nvec, want);
	return 0;

err_free_irqs:
	while (i--)
		pci_free_irq(pdev, i, &kdev->irq.vec[i]);
	pci_free_irq_vectors(pdev);
	kdev->irq.nvec = 0;
	cancel_work_sync(&kdev->link.work);
	return ret;
}

/* Free the vectors, then any link work their handler scheduled. */
static void kgni_irq_teardown(struct kgni_dev *kdev)
{
	unsigned int i = kdev->irq.nvec;

	while (i--)
		pci_free_irq(kdev->pdev, i, &kdev->irq.vec[i]);
	pci_free_irq_vectors(kdev->pdev);
	/* No handler runs any more to schedule it again. */
	cancel_delayed_work_sync(&kdev->dg.work);
	kdev->irq.nvec = 0;
	cancel_work_sync(&kdev->link.work);
}

/* BAR0 and BAR2 must be memory BARs of at least their size, and assigned. */
static int kgni_check_bars(struct pci_dev *pdev)
{
	static const struct {
		int bar;
		resource_size_t size;
		const char *what;
	} bars[] = {
		{ GEMINI_BAR_CTL, GEMINI_BAR_CTL_SIZE, "control block" },
		{ GEMINI_BAR_NIC, GEMINI_BAR_NIC_SIZE, "NIC window" },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bars); i++) {
		struct resource *res = &pdev->resource[bars[i].bar];

		if (resource_type(res) != IORESOURCE_MEM ||
		    resource_size(res) < bars[i].size) {
			dev_err(&pdev->dev,
				"BAR%d (%s) is %pR, expected %pa bytes of memory\n",
				bars[i].bar, bars[i].what, res, &bars[i].size);
			return -ENODEV;
		}
		if ((res->flags & IORESOURCE_UNSET) || !res->parent) {
			dev_err(&pdev->dev,
				"BAR%d (%s) has no address assigned: is the 64-bit PCI hole large enough?\n",
				bars[i].bar, bars[i].what);
			return -ENODEV;
		}
	}
	return 0;
}

static unsigned int kgni_ports_up(struct kgni_dev *kdev)
{
	unsigned int port, up = 0;

	for (port = 0; port < GEMINI_NUM_TORUS_PORTS; port++)
		if (kgni_port_rd(kdev, port, VGEMINI_PORT_STATE) ==
		    VGEMINI_PORT_UP)
			up++;
	return up;
}

static int kgni_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct device *dev = &pdev->dev;
	struct kgni_dev *kdev;
	u32 pe, coord, dims;
	int ret;

	kdev = kgni_dev_alloc(pdev);
	if (IS_ERR(kdev)) {
		ret = PTR_ERR(kdev);
		dev_err(dev, "cannot allocate a kgni device (at most %d): %d\n",
			KGNI_MAX_DEVICES, ret);
		return ret;
	}
	kdev->irq.test = -1;
	init_completion(&kdev->irq.test_done);
	pci_set_drvdata(pdev, kdev);

	ret = pci_enable_device(pdev);
	if (ret) {
		dev_err(dev, "cannot enable PCI device: %d\n", ret);
		goto err_put_kdev;
	}

	ret = kgni_check_bars(pdev);
	if (ret)
		goto err_disable_device;
	/*
	 * Exclusive: while kgni is bound, not even root maps the BARs through
	 * sysfs or /dev/mem, where it could program a descriptor with any
	 * ptag (Documentation/security.rst).
	 */
	ret = pci_request_regions_exclusive(pdev, KBUILD_MODNAME);
	if (ret) {
		dev_err(dev, "cannot request BARs: %d\n", ret);
		goto err_disable_device;
	}

	kdev->ctl = pci_iomap(pdev, GEMINI_BAR_CTL, GEMINI_BAR_CTL_SIZE);
	if (!kdev->ctl) {
		dev_err(dev, "cannot map BAR%d\n", GEMINI_BAR_CTL);
		ret = -ENOMEM;
		goto err_release_regions;
	}

	ret = dma_set_mask_and_coherent(dev, DMA_BIT_MASK(64));
	if (ret) {
		dev_err(dev, "cannot use 64-bit DMA addresses: %d\n", ret);
		goto err_unmap_ctl;
	}
	pci_set_master(pdev);

	ret = kgni_selftest_identity(kdev);
	if (ret)
		goto err_clear_master;

	/* Whatever an earlier driver left behind: no interrupt until asked. */
	kgni_wr(kdev, VGEMINI_CTL_LINK_IRQ, VGEMINI_IRQ_NONE);
	kgni_wr(kdev, VGEMINI_CTL_DMA_IRQ, VGEMINI_IRQ_NONE);
	kgni_wr(kdev, VGEMINI_CTL_DIAG_IRQ, VGEMINI_IRQ_NONE);
	kgni_link_init(kdev);

	ret = kgni_irq_setup(kdev);
	if (ret)
		goto err_clear_master;

	ret = kgni_selftest(kdev);
	if (ret)
		goto err_irq_teardown;

	ret = kgni_dp_map(kdev);
	if (ret)
		goto err_irq_teardown;

	kgni_link_start(kdev);
	kgni_diag_start(kdev);

	ret = kgni_dev_add(kdev);
	if (ret) {
		dev_err(dev, "cannot add %s: %d\n", dev_name(&kdev->dev), ret);
		goto err_diag_stop;
	}
	kgni_counters_debugfs_add(kdev);
	kgni_err_debugfs_add(kdev);

	pe = kgni_rd(kdev, VGEMINI_CTL_NODE_PE);
	coord = kgni_rd(kdev, VGEMINI_CTL_COORD);
	dims = kgni_rd(kdev, VGEMINI_CTL_DIMS);
	dev_info(dev,
		 "%s: PE 0x%x at (%u,%u,%u) of %ux%ux%u, %u MSI-X vectors, %u of %u ports up\n",
		 dev_name(&kdev->dev), pe,
		 VGEMINI_COORD_X(coord), VGEMINI_COORD_Y(coord),
		 VGEMINI_COORD_Z(coord), VGEMINI_COORD_X(dims),
		 VGEMINI_COORD_Y(dims), VGEMINI_COORD_Z(dims), kdev->irq.nvec,
		 kgni_ports_up(kdev), GEMINI_NUM_TORUS_PORTS);
	return 0;

err_diag_stop:
	kgni_diag_stop(kdev);
	kgni_link_stop(kdev);
	/* As remove does: no datagram work left to run on a freed device */
	kgni_dp_stop(kdev);
	kgni_dp_unmap(kdev);
err_irq_teardown:
	kgni_irq_teardown(kdev);
err_clear_master:
	pci_clear_master(pdev);
err_unmap_ctl:
	pci_iounmap(pdev, kdev->ctl);
	kdev->ctl = NULL;
err_release_regions:
	pci_release_regions(pdev);
err_disable_device:
	pci_disable_device(pdev);
err_put_kdev:
	pci_set_drvdata(pdev, NULL);
	put_device(&kdev->dev);
	return ret;
}

static void kgni_remove(struct pci_dev *pdev)
{
	struct kgni_dev *kdev = pci_get_drvdata(pdev);

	kgni_counters_debugfs_del(kdev);
	kgni_dev_del(kdev);
	kgni_dp_stop(kdev);
	kgni_ioctl_shutdown(kdev);
	/* Gone first: the clients' stack reset finds the device removed. */
	kgni_err_dev_remove(kdev);
	kgni_kmem_dev_fini(kdev);
	kgni_diag_stop(kdev);
	kgni_link_stop(kdev);
	kgni_dp_unmap(kdev);
	kgni_irq_teardown(kdev);
	pci_clear_master(pdev);
	pci_iounmap(pdev, kdev->ctl);
	kdev->ctl = NULL;
	pci_release_regions(pdev);
	pci_disable_device(pdev);
	pci_set_drvdata(pdev, NULL);
	put_device(&kdev->dev);
}

static struct pci_driver kgni_pci_driver = {
	.name = KBUILD_MODNAME,
	.id_table = kgni_pci_ids,
	.probe = kgni_probe,
	.remove = kgni_remove,
};

int kgni_pci_register(void)
{
	return pci_register_driver(&kgni_pci_driver);
}

void kgni_pci_unregister(void)
{
	pci_unregister_driver(&kgni_pci_driver);
}
