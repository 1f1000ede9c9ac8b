// SPDX-License-Identifier: GPL-2.0-only
/*
 * kgni: router ports and the link-change interrupt.
 *
 * The device raises the vector written to VGEMINI_CTL_LINK_IRQ whenever a
 * torus port changes state or the fabric does (kgni_fabric.c).  The
 * handler only schedules link_work, which reads every port and logs those
 * that differ from what it logged last, then looks at the fabric.  A port
 * that comes up or goes down is a TRANSIENT error event for the kernel
 * API's subscribers (kgni_err.c).
 */
#include "kgni.h"
#include "kgni_kapi.h"

static const char * const kgni_port_names[GEMINI_NUM_TORUS_PORTS] = {
	VGEMINI_PORT_LIST(VGEMINI_PORT_LABEL_INIT)
};

static const char * const kgni_port_state_names[] = {
	VGEMINI_PORT_STATE_LIST(VGEMINI_PORT_STATE_INIT)
};

/* "X+" ... "Z-": in the kernel log and in counter names. */
const char *kgni_port_name(unsigned int port)
{
	return port < ARRAY_SIZE(kgni_port_names) ? kgni_port_names[port] : "?";
}

const char *kgni_port_state_name(u32 state)
{
	if (state < ARRAY_SIZE(kgni_port_state_names))
		return kgni_port_state_names[state];
	return "unknown";
}

/*
 * Read one port.  The change counter is read before and after state and
 * peer, so that the three values belong to the same state unless the port
 * keeps flapping; then the next interrupt brings the next reading.
 */
static void kgni_port_read(struct kgni_dev *kdev, unsigned int port,
			   struct kgni_port_cache *pc)
{
	unsigned int tries = 3;
	u32 changes;

	do {
		changes = kgni_port_rd(kdev, port, VGEMINI_PORT_CHANGES);
		pc->state = kgni_port_rd(kdev, port, VGEMINI_PORT_STATE);
		pc->peer = kgni_port_rd(kdev, port, VGEMINI_PORT_PEER);
		pc->changes = kgni_port_rd(kdev, port, VGEMINI_PORT_CHANGES);
	} while (pc->changes != changes && --tries);
}

static void kgni_port_log(struct kgni_dev *kdev, unsigned int port,
			  const struct kgni_port_cache *pc)
{
	struct device *dev = &kdev->pdev->dev;
	const char *name = kgni_port_name(port);

	switch (pc->state) {
	case VGEMINI_PORT_UP:
		dev_info_ratelimited(dev, "port %s up, peer 0x%x\n",
				     name, pc->peer);
		break;
	case VGEMINI_PORT_MISWIRED:
		dev_warn_ratelimited(dev,
				     "port %s miswired, peer 0x%x, expected 0x%x\n",
				     name, pc->peer,
				     kgni_port_rd(kdev, port,
						  VGEMINI_PORT_EXPECTED));
		break;
	default:
		dev_info_ratelimited(dev, "port %s %s\n", name,
				     kgni_port_state_name(pc->state));
		break;
	}
}

/* Up or down since @was: the error event; the peer is the last known. */
static void kgni_port_event(struct kgni_dev *kdev, unsigned int port,
			    const struct kgni_port_cache *was,
			    const struct kgni_port_cache *now)
{
	bool up = now->state == VGEMINI_PORT_UP;
	bool was_up = was->state == VGEMINI_PORT_UP;

	if (up == was_up)
		return;
	kgni_err_post(kdev, GNI_ERRMASK_TRANSIENT,
		      up ? KGNI_ERR_PORT_UP : KGNI_ERR_PORT_DOWN, 0, port,
		      up ? now->peer : was->peer, now->state);
}

static void kgni_link_work(struct work_struct *work)
{
	struct kgni_dev *kdev = container_of(work, struct kgni_dev, link.work);
	struct kgni_port_cache now;
	unsigned int port;

	for (port = 0; port < GEMINI_NUM_TORUS_PORTS; port++) {
		kgni_port_read(kdev, port, &now);
		if (now.state == kdev->link.port[port].state &&
		    now.peer == kdev->link.port[port].peer &&
		    now.changes == kdev->link.port[port].changes)
			continue;
		kgni_port_log(kdev, port, &now);
		kgni_port_event(kdev, port, &kdev->link.port[port], &now);
		kdev->link.port[port] = now;
	}
	kgni_fabric_changed(kdev);
}

/* Before the vectors exist: the ports as they are now, not logged. */
void kgni_link_init(struct kgni_dev *kdev)
{
	unsigned int port;

	INIT_WORK(&kdev->link.work, kgni_link_work);
	for (port = 0; port < GEMINI_NUM_TORUS_PORTS; port++)
		kgni_port_read(kdev, port, &kdev->link.port[port]);
	kgni_fabric_init(kdev);
}

/* Route link changes to the last vector; log what changed since init. */
void kgni_link_start(struct kgni_dev *kdev)
{
	kgni_wr(kdev, VGEMINI_CTL_LINK_IRQ, kdev->irq.link);
	schedule_work(&kdev->link.work);
}

/* Stop link-change interrupts; the caller frees the vectors after this. */
void kgni_link_stop(struct kgni_dev *kdev)
{
	kgni_wr(kdev, VGEMINI_CTL_LINK_IRQ, VGEMINI_IRQ_NONE);
	/* Flush the posted write before the vectors go. */
	kgni_rd(kdev, VGEMINI_CTL_LINK_IRQ);
}
