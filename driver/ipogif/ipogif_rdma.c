// SPDX-License-Identifier: GPL-2.0-only
/*
 * ipogif: the rendezvous of frames too big for one message
 * (Documentation/ipogif.rst, "Framing", "Flow control").
 *
 * The sender copies such a frame into a slot of its TX pool, registered
 * once at load, and sends RDMA_REQ{slot, len}; the receiver's work
 * (process context: gni_post_rdma() may sleep) GETs it from the slot into
 * a slot of its own RX pool, with the end on the RDMA CQ, whose handler
 * schedules NAPI; NAPI copies the frame into a new skb, sends RDMA_DONE
 * {slot} back and hands the frame to the stack.  RDMA_DONE frees the
 * sender's slot.  A GET refused or ended in error drops the frame
 * (rx_errors) and still sends RDMA_DONE.  The TX pool empty stops the
 * queue until a slot is freed: by RDMA_DONE, or by the retirement of the
 * connection its RDMA_REQ went on (a peer that died, was reloaded, or
 * that RCA says is unreachable never answers).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "ipogif.h"

/* Frees TX slot @idx. pool_lock held. */
static void __ipogif_tx_slot_free(struct ipogif_priv *priv, u32 idx)
{
	priv->tx_slots[idx].peer = NULL;
	priv->tx_slots[idx].conn = NULL;
	priv->tx_free[priv->tx_nfree++] = idx;
}

/* A slot is free again: the queue goes on, and the waiting frames. */
static void ipogif_tx_slots_freed(struct ipogif_priv *priv)
{
	netif_wake_queue(priv->dev);
	napi_schedule(&priv->napi);
}

/*
 * A TX slot for a frame to @peer whose RDMA_REQ goes on @conn: 0 and its
 * name in *@slot, or -ENOBUFS (the pool is empty: the queue stops until
 * a slot is freed).  BH off.
 */
int ipogif_tx_slot_get(struct ipogif_priv *priv, struct ipogif_peer *peer,
		       struct ipogif_conn *conn, u32 *slot)
{
	struct ipogif_tx_slot *s;
	u32 idx;

	spin_lock(&priv->pool_lock);
	if (!priv->tx_nfree) {
		/* Under the lock: a slot freed since wakes it. */
		netif_stop_queue(priv->dev);
		spin_unlock(&priv->pool_lock);
		atomic_long_inc(&priv->rdv_no_slot);
		return -ENOBUFS;
	}
	idx = priv->tx_free[--priv->tx_nfree];
	s = &priv->tx_slots[idx];
	s->peer = peer;
	s->conn = conn;
	s->seq++;
	*slot = IPOGIF_SLOT(idx, s->seq);
	spin_unlock(&priv->pool_lock);
	return 0;
}

/* Slot @slot, just taken, was not sent after all. BH off. */
void ipogif_tx_slot_put(struct ipogif_priv *priv, u32 slot)
{
	spin_lock(&priv->pool_lock);
	__ipogif_tx_slot_free(priv, IPOGIF_SLOT_IDX(slot));
	spin_unlock(&priv->pool_lock);
	netif_wake_queue(priv->dev);
}

/* @peer's RDMA_DONE for @slot: free it, if it is still that one. NAPI. */
void ipogif_tx_slot_done(struct ipogif_priv *priv, struct ipogif_peer *peer,
			 u32 slot)
{
	u32 idx = IPOGIF_SLOT_IDX(slot);
	bool freed = false;

	if (idx >= priv->pool)
		return;
	spin_lock(&priv->pool_lock);
	if (priv->tx_slots[idx].peer == peer &&
	    priv->tx_slots[idx].seq == IPOGIF_SLOT_SEQ(slot)) {
		__ipogif_tx_slot_free(priv, idx);
		freed = true;
	}
	spin_unlock(&priv->pool_lock);
	if (freed)
		netif_wake_queue(priv->dev);
}

/*
 * @conn is retired: the TX slots whose RDMA_REQ went on it pass to @to,
 * or are freed if @to is NULL (the peer may never answer for them).
 * Process context.
 */
void ipogif_tx_slots_release(struct ipogif_priv *priv,
			     struct ipogif_conn *conn, struct ipogif_conn *to)
{
	unsigned int i, n = 0;

	if (!priv->pool)
		return;
	spin_lock_bh(&priv->pool_lock);
	for (i = 0; i < priv->pool; i++) {
		if (!priv->tx_slots[i].peer || priv->tx_slots[i].conn != conn)
			continue;
		if (to) {
			priv->tx_slots[i].conn = to;
			continue;
		}
		__ipogif_tx_slot_free(priv, i);
		n++;
	}
	spin_unlock_bh(&priv->pool_lock);
	if (!n)
		return;
	atomic_long_add(n, &priv->rdv_reclaimed);
	local_bh_disable();
	ipogif_tx_slots_freed(priv);
	local_bh_enable();
}

/*
 * @peer's RDMA_REQ for @slot, @len bytes, came on @conn: its GET is for
 * the work to post.  Refused (a bad slot or length, no RX pool, no
 * memory): the frame is dropped and the slot given back.  NAPI.
 */
void ipogif_rdv_req(struct ipogif_priv *priv, struct ipogif_peer *peer,
		    struct ipogif_conn *conn, u32 slot, u32 len)
{
	u32 idx = IPOGIF_SLOT_IDX(slot);
	struct ipogif_rdv *r;

	if (idx >= conn->pool_slots || len < ETH_HLEN ||
	    len > conn->slot_size || len > IPOGIF_SLOT_SIZE || !priv->pool) {
		ipogif_count(priv, IPOGIF_RX_ERRORS, 1);
		goto done;
	}
	r = kmalloc(sizeof(*r), GFP_ATOMIC);
	if (!r) {
		ipogif_count(priv, IPOGIF_RX_DROPPED, 1);
		goto done;
	}
	r->peer = peer;
	r->slot = slot;
	r->len = len;
	r->addr = conn->pool_addr + (u64)idx * conn->slot_size;
	r->mh = conn->pool_mh;
	spin_lock(&priv->rdma_lock);
	if (priv->rdma_stopping) {
		spin_unlock(&priv->rdma_lock);
		kfree(r);
		return;
	}
	list_add_tail(&r->list, &priv->rdv_pending);
	spin_unlock(&priv->rdma_lock);
	mod_delayed_work(system_wq, &priv->rdma_work, 0);
	return;

done:
	ipogif_send_done(peer, slot);
}

/* RX slot @idx is free again; the waiting RDMA_REQs may have it. BH off. */
static void ipogif_rx_slot_free(struct ipogif_priv *priv, u32 idx)
{
	bool more;

	spin_lock(&priv->rdma_lock);
	priv->rx_free[priv->rx_nfree++] = idx;
	more = !list_empty(&priv->rdv_pending) && !priv->rdma_stopping;
	spin_unlock(&priv->rdma_lock);
	atomic_dec(&priv->rdma_inflight);
	if (more)
		mod_delayed_work(system_wq, &priv->rdma_work, 0);
}

/* Post the GETs of the RDMA_REQs waiting, while RX slots are free */
void ipogif_rdma_work(struct work_struct *work)
{
	struct ipogif_priv *priv = container_of(to_delayed_work(work),
						struct ipogif_priv, rdma_work);
	struct ipogif_rx_slot *s;
	struct ipogif_rdv *r;
	gni_return_t rc;
	u32 idx;

	for (;;) {
		spin_lock_bh(&priv->rdma_lock);
		if (priv->rdma_stopping || !priv->rx_nfree ||
		    list_empty(&priv->rdv_pending)) {
			spin_unlock_bh(&priv->rdma_lock);
			return;
		}
		r = list_first_entry(&priv->rdv_pending, struct ipogif_rdv,
				     list);
		list_del(&r->list);
		idx = priv->rx_free[--priv->rx_nfree];
		atomic_inc(&priv->rdma_inflight);
		spin_unlock_bh(&priv->rdma_lock);

		s = &priv->rx_slots[idx];
		s->peer = r->peer;
		s->slot = r->slot;
		s->len = r->len;
		memset(&s->desc, 0, sizeof(s->desc));
		s->desc.type = GNI_POST_RDMA_GET;
		s->desc.cq_mode = GNI_CQMODE_GLOBAL_EVENT;
		s->desc.dlvr_mode = GNI_DLVMODE_PERFORMANCE;
		s->desc.local_addr = (u64)(uintptr_t)priv->rx_pool +
				     (u64)idx * IPOGIF_SLOT_SIZE;
		s->desc.local_mem_hndl = priv->rx_pool_mh;
		s->desc.remote_addr = r->addr;
		s->desc.remote_mem_hndl = r->mh;
		/* A GET's length is a multiple of 4; the slots are 64 KiB. */
		s->desc.length = ALIGN(r->len, 4);
		s->desc.post_id = idx;
		s->desc.src_cq_hndl = priv->rdma_cq;
		rc = gni_post_rdma(r->peer->rdma_ep, &s->desc);
		if (rc == GNI_RC_SUCCESS) {
			kfree(r);
			continue;
		}
		local_bh_disable();
		if (rc == GNI_RC_ERROR_RESOURCE) {
			/* BTE rings or tids full: again a jiffy later */
			atomic_long_inc(&priv->rdv_busy);
			spin_lock(&priv->rdma_lock);
			list_add(&r->list, &priv->rdv_pending);
			priv->rx_free[priv->rx_nfree++] = idx;
			spin_unlock(&priv->rdma_lock);
			atomic_dec(&priv->rdma_inflight);
			local_bh_enable();
			mod_delayed_work(system_wq, &priv->rdma_work, 1);
			return;
		}
		atomic_long_inc(&priv->rdv_failed);
		net_warn_ratelimited("%s: NID %u: GET refused: %d\n",
				     priv->dev->name, r->peer->nid, rc);
		ipogif_count(priv, IPOGIF_RX_ERRORS, 1);
		ipogif_send_done(r->peer, r->slot);
		ipogif_rx_slot_free(priv, idx);
		local_bh_enable();
		kfree(r);
	}
}

/* The head of a rendezvous's skb; the rest in pages */
#define IPOGIF_RDV_HEAD		128

/*
 * A new skb of the @len bytes at @src: a small head, the rest in page
 * fragments (no order-4 allocation in softirq, which may fail, loudly).
 * NULL without memory.
 */
static struct sk_buff *ipogif_rdv_skb(struct ipogif_priv *priv,
				      const void *src, u32 len)
{
	u32 off = min_t(u32, len, IPOGIF_RDV_HEAD), chunk;
	struct sk_buff *skb;
	struct page *page;

	BUILD_BUG_ON(DIV_ROUND_UP(IPOGIF_MTU_MAX + ETH_HLEN, PAGE_SIZE) >
		     MAX_SKB_FRAGS);
	skb = napi_alloc_skb(&priv->napi, off);
	if (!skb)
		return NULL;
	skb_put_data(skb, src, off);
	for (; off < len; off += chunk) {
		chunk = min_t(u32, len - off, PAGE_SIZE);
		page = alloc_page(GFP_ATOMIC | __GFP_NOWARN);
		if (!page) {
			kfree_skb(skb);
			return NULL;
		}
		memcpy(page_address(page), src + off, chunk);
		skb_add_rx_frag(skb, skb_shinfo(skb)->nr_frags, page, 0, chunk,
				PAGE_SIZE);
	}
	return skb;
}

/*
 * The GET into RX slot @idx ended, well if @ok: the frame into an skb,
 * RDMA_DONE to its sender, the frame up the stack (when @deliver).
 */
static void ipogif_rdv_land(struct ipogif_priv *priv, u32 idx, bool ok,
			    bool deliver)
{
	struct ipogif_rx_slot *s = &priv->rx_slots[idx];
	struct sk_buff *skb = NULL;
	u32 len = s->len;

	if (!ok) {
		atomic_long_inc(&priv->rdv_failed);
		ipogif_count(priv, IPOGIF_RX_ERRORS, 1);
	} else if (deliver) {
		skb = ipogif_rdv_skb(priv, priv->rx_pool +
				     (size_t)idx * IPOGIF_SLOT_SIZE, len);
		if (!skb)
			ipogif_count(priv, IPOGIF_RX_DROPPED, 1);
	}
	if (deliver)
		ipogif_send_done(s->peer, s->slot);
	ipogif_rx_slot_free(priv, idx);
	if (!skb)
		return;
	atomic_long_inc(&priv->rdv_rx);
	skb->protocol = eth_type_trans(skb, priv->dev);
	ipogif_count_packet(priv, IPOGIF_RX_PACKETS, len);
	napi_gro_receive(&priv->napi, skb);
}

/* The RDMA CQ's events: GETs that ended; how many.  BH off. */
static int __ipogif_rdma_events(struct ipogif_priv *priv, bool deliver)
{
	gni_post_descriptor_t *d;
	gni_return_t rc, grc;
	gni_cq_entry_t e;
	int n = 0;
	u64 idx;

	for (;;) {
		rc = gni_cq_get_event(priv->rdma_cq, &e);
		if (rc == GNI_RC_NOT_DONE || rc == GNI_RC_INVALID_PARAM)
			break;
		if (rc == GNI_RC_ERROR_RESOURCE)
			net_warn_ratelimited("%s: RDMA CQ overrun\n",
					     priv->dev->name);
		d = NULL;
		grc = gni_get_completed(priv->rdma_cq, e, &d);
		if (!d || (grc != GNI_RC_SUCCESS &&
			   grc != GNI_RC_TRANSACTION_ERROR))
			continue;
		idx = d->post_id;
		if (idx >= priv->pool || d != &priv->rx_slots[idx].desc)
			continue;
		ipogif_rdv_land(priv, idx, grc == GNI_RC_SUCCESS &&
				rc != GNI_RC_TRANSACTION_ERROR, deliver);
		n++;
	}
	return n;
}

int ipogif_rdma_events(struct ipogif_priv *priv)
{
	if (!priv->pool)
		return 0;
	return __ipogif_rdma_events(priv, true);
}

/*
 * The pools, registered, their slots free; the RDMA CQ; an endpoint per
 * peer for the GETs.  Nothing with pool 0.
 */
int ipogif_rdma_init(struct ipogif_priv *priv)
{
	size_t bytes = (size_t)priv->pool * IPOGIF_SLOT_SIZE;
	gni_return_t rc;
	unsigned int i;

	spin_lock_init(&priv->pool_lock);
	spin_lock_init(&priv->rdma_lock);
	INIT_LIST_HEAD(&priv->rdv_pending);
	INIT_DELAYED_WORK(&priv->rdma_work, ipogif_rdma_work);
	if (!priv->pool)
		return 0;
	priv->tx_slots = kcalloc(priv->pool, sizeof(*priv->tx_slots),
				 GFP_KERNEL);
	priv->rx_slots = kcalloc(priv->pool, sizeof(*priv->rx_slots),
				 GFP_KERNEL);
	priv->tx_free = kcalloc(priv->pool, sizeof(u16), GFP_KERNEL);
	priv->rx_free = kcalloc(priv->pool, sizeof(u16), GFP_KERNEL);
	priv->tx_pool = vzalloc(bytes);
	priv->rx_pool = vzalloc(bytes);
	if (!priv->tx_slots || !priv->rx_slots || !priv->tx_free ||
	    !priv->rx_free || !priv->tx_pool || !priv->rx_pool)
		return -ENOMEM;
	for (i = 0; i < priv->pool; i++) {
		priv->tx_free[i] = priv->pool - 1 - i;
		priv->rx_free[i] = priv->pool - 1 - i;
	}
	priv->tx_nfree = priv->pool;
	priv->rx_nfree = priv->pool;
	rc = gni_mem_register(priv->nic, (u64)(uintptr_t)priv->tx_pool, bytes,
			      NULL, GNI_MEM_READWRITE, &priv->tx_pool_mh);
	if (rc != GNI_RC_SUCCESS) {
		pr_err("TX pool not registered: %d\n", rc);
		goto fail;
	}
	rc = gni_mem_register(priv->nic, (u64)(uintptr_t)priv->rx_pool, bytes,
			      NULL, GNI_MEM_READWRITE, &priv->rx_pool_mh);
	if (rc != GNI_RC_SUCCESS) {
		pr_err("RX pool not registered: %d\n", rc);
		goto fail;
	}
	rc = gni_cq_create(priv->nic, max_t(u32, 2 * priv->pool + 64, 256), 0,
			   ipogif_cq_handler, (u64)(uintptr_t)priv,
			   &priv->rdma_cq);
	if (rc != GNI_RC_SUCCESS) {
		pr_err("RDMA CQ: %d\n", rc);
		goto fail;
	}
	for (i = 0; i < priv->npeers; i++) {
		struct ipogif_peer *peer = &priv->peers[i];

		rc = gni_ep_create(priv->nic, priv->rdma_cq, &peer->rdma_ep);
		if (rc != GNI_RC_SUCCESS) {
			peer->rdma_ep = NULL;
			goto fail;
		}
		rc = gni_ep_bind(peer->rdma_ep, peer->pe, IPOGIF_INST);
		if (rc != GNI_RC_SUCCESS)
			goto fail;
	}
	return 0;

fail:
	return rc == GNI_RC_ERROR_RESOURCE || rc == GNI_RC_ERROR_NOMEM ?
	       -ENOMEM : -EINVAL;
}

/*
 * Unload, NAPI off: no GET posted from here on, the RDMA_REQs waiting
 * dropped, the GETs in flight waited for (IPOGIF_RDMA_WAIT_MS at most)
 * before the RX pool may go.
 */
void ipogif_rdma_stop(struct ipogif_priv *priv)
{
	unsigned long end = jiffies + msecs_to_jiffies(IPOGIF_RDMA_WAIT_MS);
	struct ipogif_rdv *r, *tmp;
	LIST_HEAD(list);

	spin_lock_bh(&priv->rdma_lock);
	priv->rdma_stopping = true;
	list_splice_init(&priv->rdv_pending, &list);
	spin_unlock_bh(&priv->rdma_lock);
	cancel_delayed_work_sync(&priv->rdma_work);
	list_for_each_entry_safe(r, tmp, &list, list)
		kfree(r);
	if (!priv->pool)
		return;
	while (atomic_read(&priv->rdma_inflight)) {
		local_bh_disable();
		__ipogif_rdma_events(priv, false);
		local_bh_enable();
		if (!atomic_read(&priv->rdma_inflight))
			break;
		if (time_after(jiffies, end)) {
			netdev_warn(priv->dev, "%d GETs did not end\n",
				    atomic_read(&priv->rdma_inflight));
			break;
		}
		usleep_range(10000, 20000);
	}
}

/* Undo ipogif_rdma_init(): endpoints, CQ, pools. */
void ipogif_rdma_fini(struct ipogif_priv *priv)
{
	unsigned int i;

	for (i = 0; priv->peers && i < priv->npeers; i++) {
		if (priv->peers[i].rdma_ep)
			gni_ep_destroy(priv->peers[i].rdma_ep);
		priv->peers[i].rdma_ep = NULL;
	}
	if (priv->rdma_cq)
		gni_cq_destroy(priv->rdma_cq);
	priv->rdma_cq = NULL;
	/* A peer's late GET finds the handle invalid, not another's. */
	if (priv->tx_pool_mh.qword1 || priv->tx_pool_mh.qword2)
		gni_mem_deregister(priv->nic, &priv->tx_pool_mh,
				   IPOGIF_MBOX_HOLD_MS);
	if (priv->rx_pool_mh.qword1 || priv->rx_pool_mh.qword2)
		gni_mem_deregister(priv->nic, &priv->rx_pool_mh, 0);
	vfree(priv->tx_pool);
	/* A GET that never ended may still write into it: leaked. */
	if (!atomic_read(&priv->rdma_inflight))
		vfree(priv->rx_pool);
	kfree(priv->tx_slots);
	kfree(priv->rx_slots);
	kfree(priv->tx_free);
	kfree(priv->rx_free);
}
