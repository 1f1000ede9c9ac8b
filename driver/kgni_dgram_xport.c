// SPDX-License-Identifier: GPL-2.0-only
/*
 * kgni: the transport of the datagram messages (kgni_dgram.c tells the
 * service).  A message to another node is one BTE SEND on the kernel's
 * TX channel 3 (one TX slot, its KGNI_DG_BUF bytes in a buffer of the
 * slot's own); it lands in one of the buffers kgni posts on RX channel 3
 * of every node, whose interrupt, as the TX channel's, schedules the work
 * that reads the RX ring, takes back the ended TX slots and sends what
 * waits.  The service starts and ends here.
 *
 * A message's source PE is the one the network delivered it from (the RX
 * copy's QW4, which the NIC writes), not what its sender wrote: another
 * node's kernel cannot speak for a third node.  Its ptag and cookie are
 * still the sender kernel's word (Documentation/abi.rst, "Trust").
 *
 * Sending.  kgni_dg_send() runs under dg.lock.  A message to this node
 * is handled there and then.  One to another node goes into a TX slot at
 * once if the caller holds dp.lock too and the backlog is empty; else it
 * joins the tail of the backlog and the work, scheduled (any context may
 * schedule it), sends the backlog in order under dp.lock.  So a call
 * that cannot touch the device (a cancel under the caller's spinlock)
 * leaves its CANCEL to the work.  The order the protocol relies on holds:
 * the backlog is one FIFO, and a message skips it only when it is empty,
 * so messages to a node reach the TX ring in the order they were made,
 * whoever made them; a post's REQ is made in the same hold of dg.lock
 * that lists the post, before any cancel can find it, so its CANCEL
 * follows it; a REPLY is made when its REQ is answered, before the
 * CANCEL that the ACK answers can be handled, so it goes ahead of the
 * ACK.  Messages to this node never wait in the backlog: each handler
 * makes at most one message, as its last step, so handling them at once
 * (depth first) is their order too.  Only a message refused for want of
 * an RX buffer is sent again from the tail, as before (the REPLY case is
 * in the CANCEL_ACK's handler, kgni_dgram_proto.c).
 *
 * Removal.  kgni_dg_stop() sets stopped under dg.lock, so nothing is
 * sent and the work is not scheduled any more, then waits for the work.
 * kgni_dg_fini() takes kdev->dg.svc away under dg.lock before it frees
 * anything.  A kernel client's call holds the device (its NIC's
 * reference), not the service: it finds kdev->dg.svc under dg.lock, or NULL
 * once the service is gone, and never blocks on remove.  Waiters sleep
 * on dg_wq, woken at each end and at remove.
 */
#include <linux/dma-mapping.h>
#include <linux/jiffies.h>
#include <linux/slab.h>

#include "kgni_dgram.h"

/*
 * The kernel's BTE channel: TX 3 sends, RX 3 receives.  KGNI_DG_BUF
 * (uapi/kgni_dgram_wire.h) is the RX buf_size and the TX buffer stride.
 */
#define KGNI_DG_VC		KGNI_BTE_KERNEL_VC
#define KGNI_DG_RX_SLOTS	128

/* A message refused for want of an RX buffer is sent again, this often. */
#define KGNI_DG_MAX_RETRIES	200
#define KGNI_DG_ST_NPES		0xe	/* the target's "send miss" */
#define KGNI_DG_POLL_MS		20

/* A message waiting for a TX slot */
struct kgni_dg_out {
	struct list_head node;
	u32 pe;
	unsigned int tries;
	struct kgni_dg_in m;
};

/*
 * A message to another node @pe, written into the next TX slot of the
 * kernel channel as a SEND (dp.lock and dg.lock held).  false if no slot
 * is free (the caller keeps it for later).
 */
static bool kgni_dg_xmit(struct kgni_dev *kdev, u32 pe,
			 const struct kgni_dg_in *m, unsigned int tries)
{
	struct kgni_dgrams *dg = kdev->dg.svc;
	struct kgni_bte_chan *ch = &kdev->bte.chan[KGNI_DG_VC];
	u64 qw[GEMINI_BTE_TX_DESC_QWORDS] = { 0 };
	unsigned int idx = ch->head;
	size_t n;

	lockdep_assert_held(&kdev->dp.lock);
	if (kgni_bte_full(ch) || dg->tx[idx].busy)
		return false;
	n = kgni_dg_encode(m, dg->tx_buf + idx * KGNI_DG_BUF);
	/* Deterministic routes: messages between two nodes stay in order. */
	qw[0] = ((u64)pe << GEMINI_BTE_DEST_PE_SHIFT) |
		((u64)GEMINI_BTE_SEND << GEMINI_BTE_MODE1_SHIFT);
	qw[1] = (u64)GEMINI_BTE_IRQ_ENABLE << GEMINI_BTE_MODE2_SHIFT;
	qw[2] = (u64)n << GEMINI_BTE_LEN_SHIFT;
	qw[3] = ((dg->tx_dma + idx * KGNI_DG_BUF) & GEMINI_BTE_SRC_PHYS_MASK) |
		((u64)GEMINI_BTE_COHERENT << GEMINI_BTE_MODE4_SHIFT);
	dg->tx[idx].busy = true;
	dg->tx[idx].pe = pe;
	dg->tx[idx].tries = tries;
	dg->tx[idx].m = *m;
	kgni_bte_ring(kdev, KGNI_DG_VC, qw);
	return true;
}

/*
 * Send @m to @pe (dg.lock held, any context): handled now if @pe is this
 * node; else into a TX slot now if the caller holds dp.lock and nothing
 * waits before it, or into the backlog for the work, in order (the
 * header comment tells why the order holds).
 */
void kgni_dg_send(struct kgni_dev *kdev, u32 pe,
		  const struct kgni_dg_in *m, unsigned int tries)
{
	struct kgni_dgrams *dg = kdev->dg.svc;
	struct kgni_dg_out *o;

	lockdep_assert_held(&kdev->dg.lock);
	if (dg->stopped)
		return;
	if (pe == dg->pe) {
		kgni_dg_receive(kdev, m);
		return;
	}
	if (dg->dp_held && list_empty(&dg->backlog) &&
	    kgni_dg_xmit(kdev, pe, m, tries))
		return;
	o = kmalloc(sizeof(*o), GFP_ATOMIC);
	if (!o) {
		dg->dropped++;
		return;
	}
	o->pe = pe;
	o->tries = tries;
	o->m = *m;
	list_add_tail(&o->node, &dg->backlog);
	mod_delayed_work(system_wq, &kdev->dg.work, 0);
}

/*
 * Take back the TX slots whose SEND has ended; count those still out
 * (dp.lock and dg.lock held).
 */
static unsigned int kgni_dg_tx_reap(struct kgni_dev *kdev)
{
	struct kgni_dgrams *dg = kdev->dg.svc;
	struct kgni_bte_chan *ch = &kdev->bte.chan[KGNI_DG_VC];
	unsigned int i, status, out = 0;
	struct kgni_dg_tx *t;
	u64 qw2, qw5;

	for (i = ch->tail; i != ch->head; i = (i + 1) % ch->count) {
		t = &dg->tx[i];
		if (!t->busy)
			continue;
		qw2 = le64_to_cpu(READ_ONCE(ch->ring[i * KGNI_BTE_SLOT_QWORDS +
						     1]));
		if (!((qw2 >> GEMINI_BTE_FLAGS_SHIFT) & GEMINI_BTE_FLAG_COMPLETE)) {
			out++;
			continue;
		}
		rmb();	/* the status is written before COMPLETE */
		qw5 = le64_to_cpu(READ_ONCE(ch->ring[i * KGNI_BTE_SLOT_QWORDS +
						     4]));
		status = (qw5 >> GEMINI_BTE_STATUS_SHIFT) &
			 GEMINI_BTE_STATUS_MASK;
		t->busy = false;
		if (status == KGNI_DG_ST_NPES &&
		    t->tries < KGNI_DG_MAX_RETRIES) {
			/* No RX buffer free at the target: again, later */
			kgni_dg_send(kdev, t->pe, &t->m, t->tries + 1);
		} else if (status != GEMINI_BTE_ST_OK) {
			kgni_dg_undelivered(kdev, t);
		}
	}
	while (ch->tail != ch->head && !dg->tx[ch->tail].busy)
		ch->tail = (ch->tail + 1) % ch->count;
	return out;
}

/*
 * Send the backlog, in order, as far as TX slots are free (dp.lock and
 * dg.lock held).
 */
static void kgni_dg_flush(struct kgni_dev *kdev)
{
	struct kgni_dgrams *dg = kdev->dg.svc;
	struct kgni_dg_out *o, *next;

	list_for_each_entry_safe(o, next, &dg->backlog, node) {
		if (!kgni_dg_xmit(kdev, o->pe, &o->m, o->tries))
			return;
		list_del(&o->node);
		kfree(o);
	}
}

static void __iomem *kgni_dg_rxc(struct kgni_dev *kdev, unsigned int qw)
{
	return kdev->bte.rx + (GEMINI_MMR_BTE_RX_CHAN_ENTRY(KGNI_DG_VC) -
			       GEMINI_MMR_BTE_RX_DESC) + 8 * qw;
}

/*
 * Read the messages the RX ring received, and give their buffers back
 * (dp.lock held).  Each is handled under dg.lock, taken for it alone.
 */
static void kgni_dg_rx(struct kgni_dev *kdev)
{
	struct kgni_dgrams *dg = kdev->dg.svc;
	unsigned long flags;
	struct kgni_dg_in m;
	unsigned int n, i;
	__le64 *copy;
	u64 qw2, src, len;
	bool ok;

	for (n = 0; n < KGNI_DG_RX_SLOTS; n++) {
		i = dg->rx_next;
		copy = dg->rx_copy + i * (GEMINI_BTE_RX_COPY_BYTES / 8);
		qw2 = le64_to_cpu(READ_ONCE(copy[1]));
		if (!(qw2 & GEMINI_BTE_RX_FLAG_COMPLETE))
			break;
		rmb();	/* the buffer is written before COMPLETE */
		len = qw2 >> GEMINI_BTE_RXCPY_LEN_SHIFT;
		src = le64_to_cpu(READ_ONCE(copy[3]));
		ok = !((qw2 >> GEMINI_BTE_RX_ERR_STATUS_SHIFT) &
		       GEMINI_BTE_RX_ERR_STATUS_MASK) &&
		     len <= KGNI_DG_BUF &&
		     kgni_dg_decode(dg->rx_buf + i * KGNI_DG_BUF, len, &m);
		kgni_dg_lock(kdev, true, &flags);
		/*
		 * The message says who sent it; the network says it too.  A
		 * node's kernel that names another PE is not believed.
		 */
		if (ok && (!(src & GEMINI_BTE_RXCPY_SRC_VALID) ||
			   (src & GEMINI_PE_MASK) != m.src_pe)) {
			dg->forged++;
			ok = false;
			dev_warn_ratelimited(&kdev->pdev->dev,
					     "datagram from PE %#llx says it is from PE %#x: dropped\n",
					     src & GEMINI_PE_MASK, m.src_pe);
		} else if (ok) {
			kgni_dg_receive(kdev, &m);
		}
		if (!ok)
			dg->dropped++;
		kgni_dg_unlock(kdev, flags);
		WRITE_ONCE(copy[1], 0);
		dg->rx_next = (i + 1) % KGNI_DG_RX_SLOTS;
		/* Descriptor i is free again: post up to it. */
		writeq(i, kgni_dg_rxc(kdev, 3));
	}
}

void kgni_dg_work(struct work_struct *work)
{
	struct kgni_dev *kdev = container_of(to_delayed_work(work),
					     struct kgni_dev, dg.work);
	struct kgni_dgrams *dg;
	unsigned long flags;
	unsigned int out;
	bool again;

	mutex_lock(&kdev->dp.lock);
	/* Set under dp.lock too: either lock may read them. */
	if (!kdev->dg.svc || kdev->dg.svc->stopped) {
		mutex_unlock(&kdev->dp.lock);
		return;
	}
	kgni_dg_rx(kdev);
	dg = kgni_dg_lock(kdev, true, &flags);
	out = kgni_dg_tx_reap(kdev);
	kgni_dg_flush(kdev);
	again = out || !list_empty(&dg->backlog);
	kgni_dg_unlock(kdev, flags);
	mutex_unlock(&kdev->dp.lock);
	/*
	 * Interrupts tell of ends; a slow poll covers the rest.  Queued, not
	 * modified: a send made meanwhile may have asked for a run at once.
	 */
	if (again)
		queue_delayed_work(system_wq, &kdev->dg.work,
				   msecs_to_jiffies(KGNI_DG_POLL_MS));
}

/**
 * kgni_dg_irq() - an interrupt of the kernel's BTE channel
 * @kdev: the device
 * @vector: the MSI-X vector
 *
 * Schedules the work unless the service has stopped, which is looked at
 * under dg.lock: once kgni_dg_stop() has set it, nothing schedules the
 * work again, so its wait for the work is the last.
 *
 * Context: hard interrupt.
 */
void kgni_dg_irq(struct kgni_dev *kdev, unsigned int vector)
{
	struct kgni_dgrams *dg;
	unsigned long flags;

	if (vector != KGNI_DG_RX_VECTOR && vector != KGNI_DG_TX_VECTOR)
		return;
	dg = kgni_dg_lock(kdev, false, &flags);
	if (dg && !dg->stopped)
		mod_delayed_work(system_wq, &kdev->dg.work, 0);
	kgni_dg_unlock(kdev, flags);
}

/**
 * kgni_dg_init() - start the datagram service
 * @kdev: the device, at probe, its BTE started (kgni_bte_map())
 *
 * Gives RX channel 3 its ring of buffers and turns on the interrupts of
 * the kernel's channel.
 *
 * Context: dp.lock held; takes dg.lock.
 * Return: 0 or -ENOMEM.
 */
int kgni_dg_init(struct kgni_dev *kdev)
{
	struct device *dev = &kdev->pdev->dev;
	struct kgni_dgrams *dg;
	unsigned int i;

	dg = kzalloc(sizeof(*dg), GFP_KERNEL);
	if (!dg)
		return -ENOMEM;
	INIT_LIST_HEAD(&dg->posts);
	INIT_LIST_HEAD(&dg->queued);
	INIT_LIST_HEAD(&dg->backlog);
	dg->pe = kgni_rd(kdev, VGEMINI_CTL_NODE_PE);
	spin_lock_irq(&kdev->dg.lock);
	kdev->dg.svc = dg;
	spin_unlock_irq(&kdev->dg.lock);
	dg->tx_buf = dma_alloc_coherent(dev, GEMINI_NUM_BTE_TX * KGNI_DG_BUF,
					&dg->tx_dma, GFP_KERNEL);
	dg->rx_buf = dma_alloc_coherent(dev, KGNI_DG_RX_SLOTS * KGNI_DG_BUF,
					&dg->rx_dma, GFP_KERNEL);
	dg->rx_copy = dma_alloc_coherent(dev, KGNI_DG_RX_SLOTS *
					 GEMINI_BTE_RX_COPY_BYTES,
					 &dg->rx_copy_dma, GFP_KERNEL);
	if (!dg->tx_buf || !dg->rx_buf || !dg->rx_copy)
		return -ENOMEM;

	writeq((u64)KGNI_DG_RX_SLOTS << GEMINI_BTE_RING_FIELD(KGNI_DG_VC),
	       kdev->bte.rx + (GEMINI_MMR_BTE_RX_RING_COUNT -
			       GEMINI_MMR_BTE_RX_DESC));
	writeq(0, kdev->bte.rx + (GEMINI_MMR_BTE_RX_RING_BASE -
				  GEMINI_MMR_BTE_RX_DESC));
	writeq(dg->rx_copy_dma, kgni_dg_rxc(kdev, 1));
	for (i = 0; i < KGNI_DG_RX_SLOTS; i++)
		writeq((dg->rx_dma + i * KGNI_DG_BUF) |
		       ((u64)GEMINI_BTE_RX_IRQ_ENABLE << GEMINI_BTE_RX_MODE_SHIFT),
		       kdev->bte.rx + (GEMINI_MMR_BTE_RX_ENTRY(i) -
				       GEMINI_MMR_BTE_RX_DESC));
	writeq(KGNI_DG_BUF |
	       ((u64)(GEMINI_BTE_RXC_RESET | GEMINI_BTE_RXC_ENABLE |
		      GEMINI_BTE_RXC_IRQ_ENABLE) << GEMINI_BTE_RXC_FLAGS_SHIFT),
	       kgni_dg_rxc(kdev, 0));
	/* Every descriptor but the one before the read index */
	writeq(KGNI_DG_RX_SLOTS - 1, kgni_dg_rxc(kdev, 3));
	WRITE_ONCE(kdev->dg.on, true);
	return 0;
}

/**
 * kgni_dg_stop() - stop sending and receiving, at remove
 * @kdev: the device
 *
 * Once stopped (under dg.lock), no message is sent and nothing schedules
 * the work; the work ends and every waiter is woken.  The datagrams stay
 * until kgni_dg_fini(): a cancel ends its datagram TERMINATED at once.
 *
 * Context: process context; takes dp.lock and dg.lock.
 */
void kgni_dg_stop(struct kgni_dev *kdev)
{
	struct kgni_dgrams *dg;
	unsigned long flags;

	mutex_lock(&kdev->dp.lock);
	dg = kgni_dg_lock(kdev, true, &flags);
	WRITE_ONCE(kdev->dg.on, false);
	if (dg)
		dg->stopped = true;
	kgni_dg_unlock(kdev, flags);
	mutex_unlock(&kdev->dp.lock);
	cancel_delayed_work_sync(&kdev->dg.work);
	wake_up_all(&kdev->dg.wq);
}

/**
 * kgni_dg_fini() - free the datagram service
 * @kdev: the device, at remove after kgni_dg_stop() (no file holds a
 *        post any more) or at a failed probe
 *
 * The service leaves kdev->dg.svc under dg.lock before anything is freed: a
 * kernel client's call that holds dg.lock meanwhile is done with it
 * first, and those that come after find none (-ENODEV).
 *
 * Context: dp.lock held; takes dg.lock.
 */
void kgni_dg_fini(struct kgni_dev *kdev)
{
	struct device *dev = &kdev->pdev->dev;
	struct kgni_dg_req *q, *qn;
	struct kgni_dg_out *o, *on;
	struct kgni_dgrams *dg;
	struct kgni_dg *p, *pn;
	unsigned long flags;

	dg = kgni_dg_lock(kdev, true, &flags);
	WRITE_ONCE(kdev->dg.on, false);
	if (dg)
		dg->stopped = true;
	kdev->dg.svc = NULL;
	kgni_dg_unlock(kdev, flags);
	if (!dg)
		return;
	list_for_each_entry_safe(p, pn, &dg->posts, node) {
		list_del(&p->node);
		kfree(p);
	}
	list_for_each_entry_safe(q, qn, &dg->queued, node)
		kfree(q);
	list_for_each_entry_safe(o, on, &dg->backlog, node)
		kfree(o);
	if (dg->tx_buf)
		dma_free_coherent(dev, GEMINI_NUM_BTE_TX * KGNI_DG_BUF,
				  dg->tx_buf, dg->tx_dma);
	if (dg->rx_buf)
		dma_free_coherent(dev, KGNI_DG_RX_SLOTS * KGNI_DG_BUF,
				  dg->rx_buf, dg->rx_dma);
	if (dg->rx_copy)
		dma_free_coherent(dev, KGNI_DG_RX_SLOTS *
				  GEMINI_BTE_RX_COPY_BYTES, dg->rx_copy,
				  dg->rx_copy_dma);
	kfree(dg);
}
