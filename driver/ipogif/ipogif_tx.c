// SPDX-License-Identifier: GPL-2.0-only
/*
 * ipogif: transmit (Documentation/ipogif.rst, "Frames").
 *
 * A frame goes whole, Ethernet header included, as the data of one SMSG
 * message after a struct ipogif_hdr, sent from ndo_start_xmit (softirq or
 * BH-off process context: gni_smsg_send() takes any).  The destination
 * MAC names the peer (00:01:01 + its NIC address); a broadcast or
 * multicast frame goes to every other node, a copy each.
 *
 * A peer that is not connected yet, or has no credit left (the peer has
 * not released enough of our messages; credits come back as silent PUTs,
 * without an event), keeps up to `backlog` frames in order; beyond that
 * they are dropped (tx_dropped).  A connection's opening flushes its
 * backlog; a credit stall is retried by NAPI, scheduled by a timer a
 * jiffy later while some peer is backlogged.  A connection that broke
 * keeps its frame in the backlog, for another connection or a new one
 * (ipogif_conn_broke()).
 */
#include <linux/etherdevice.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>

#include "ipogif.h"

/* The peer whose MAC is @mac, or NULL */
static struct ipogif_peer *ipogif_peer_of(struct ipogif_priv *priv,
					  const u8 *mac)
{
	if (mac[0] != 0x00 || mac[1] != 0x01 || mac[2] != 0x01)
		return NULL;
	return xa_load(&priv->by_pe, mac[3] << 16 | mac[4] << 8 | mac[5]);
}

/*
 * Send @skb to @peer now: inline, or its RDMA_REQ once copied into a TX
 * slot, or an RDMA_DONE if it has no data.  GNI_RC_ERROR_NOMEM: no TX
 * slot (the queue stopped; a slot freed schedules NAPI, which flushes).
 * peer->lock held, @peer UP.
 */
static gni_return_t ipogif_send(struct ipogif_peer *peer, struct sk_buff *skb)
{
	struct ipogif_priv *priv = peer->priv;
	struct ipogif_hdr hdr = {
		.type = IPOGIF_MSG_FRAME,
		.len = cpu_to_le32(skb->len),
		.gen = cpu_to_le32(priv->gen),
	};
	void *data = skb->data;
	u32 len = skb->len, slot = 0;
	gni_return_t rc;

	if (!skb->len) {
		hdr.type = IPOGIF_MSG_RDMA_DONE;
		hdr.slot = cpu_to_le32(IPOGIF_CB(skb)->slot);
	} else if (skb->len > priv->inline_max) {
		if (ipogif_tx_slot_get(priv, peer, peer->tx, &slot))
			return GNI_RC_ERROR_NOMEM;
		memcpy(priv->tx_pool +
		       (size_t)IPOGIF_SLOT_IDX(slot) * IPOGIF_SLOT_SIZE,
		       skb->data, skb->len);
		hdr.type = IPOGIF_MSG_RDMA_REQ;
		hdr.slot = cpu_to_le32(slot);
		data = NULL;
		len = 0;
	}
	rc = gni_smsg_send(peer->tx->ep, &hdr, sizeof(hdr), data, len,
			   peer->nid);
	if (rc != GNI_RC_SUCCESS && hdr.type == IPOGIF_MSG_RDMA_REQ)
		ipogif_tx_slot_put(priv, slot);
	if (rc == GNI_RC_SUCCESS && skb->len) {
		ipogif_count_packet(priv, IPOGIF_TX_PACKETS, skb->len);
		if (hdr.type == IPOGIF_MSG_RDMA_REQ)
			atomic_long_inc(&priv->rdv_tx);
	} else if (rc == GNI_RC_NOT_DONE) {
		atomic_long_inc(&priv->no_credit);
	} else if (rc == GNI_RC_ERROR_RESOURCE) {
		atomic_long_inc(&priv->no_room);
	}
	return rc;
}

/* No credit, no room in the FMA descriptor, no TX slot: later */
static bool ipogif_retry(gni_return_t rc)
{
	return rc == GNI_RC_NOT_DONE || rc == GNI_RC_ERROR_RESOURCE ||
	       rc == GNI_RC_ERROR_NOMEM;
}

/* NAPI again a jiffy later; not for want of a slot: its freeing does. */
static void ipogif_arm_flush(struct ipogif_priv *priv, gni_return_t rc)
{
	if (rc != GNI_RC_ERROR_NOMEM && !timer_pending(&priv->flush_timer))
		mod_timer(&priv->flush_timer, jiffies + 1);
}

/*
 * @conn of @peer broke (its messages failed past max_retrans: kgni
 * refuses to send or read on it).  Frames go on another open connection
 * to the peer, or wait in the backlog for a new one; the connect work
 * retires this one.  peer->lock held, BH off.
 */
void ipogif_conn_broke(struct ipogif_peer *peer, struct ipogif_conn *conn)
{
	struct ipogif_priv *priv = peer->priv;
	struct ipogif_conn *c, *next = NULL;
	unsigned int i;

	if (conn->broken)
		return;
	WRITE_ONCE(conn->broken, true);
	atomic_long_inc(&priv->broke);
	net_info_ratelimited("%s: NID %u: a connection broke\n",
			     priv->dev->name, peer->nid);
	if (conn == peer->tx) {
		/* The last opened of the others that work */
		for (i = 0; i < IPOGIF_PEER_CONNS; i++) {
			c = rcu_dereference_protected(peer->conns[i],
						      lockdep_is_held(&peer->lock));
			if (c && !c->broken && (!next || c->seq > next->seq))
				next = c;
		}
		peer->tx = next;
		if (!next) {
			peer->state = IPOGIF_PEER_CONNECTING;
			clear_bit(peer->idx, priv->backlogged);
			set_bit(peer->idx, priv->connect_map);
		}
	}
	set_bit(peer->idx, priv->retire_map);
	schedule_work(&priv->connect_work);
}

/*
 * Send the RDMA_DONEs in @peer's backlog past the frame at its head, which
 * waits for a TX slot: they need none.  Two nodes whose pools are full of
 * frames to each other would otherwise each wait for the other's
 * RDMA_DONEs, queued behind those frames, for ever.  peer->lock held, BH
 * off.
 */
static void ipogif_peer_flush_dones(struct ipogif_peer *peer)
{
	struct sk_buff *skb, *tmp;
	gni_return_t rc;

	skb_queue_walk_safe(&peer->backlog, skb, tmp) {
		if (skb->len)
			continue;
		rc = ipogif_send(peer, skb);
		if (rc != GNI_RC_SUCCESS) {
			/* No credit or room: the timer; broken: the next flush */
			ipogif_arm_flush(peer->priv, rc);
			return;
		}
		__skb_unlink(skb, &peer->backlog);
		consume_skb(skb);
	}
}

/*
 * Send what @peer's backlog holds, in order, until a send must wait (its
 * RDMA_DONEs go on past a frame that waits for a TX slot).  peer->lock
 * held, BH off.
 */
void ipogif_peer_flush(struct ipogif_peer *peer)
{
	struct ipogif_priv *priv = peer->priv;
	struct sk_buff *skb;
	gni_return_t rc;

	while (peer->tx && (skb = skb_peek(&peer->backlog))) {
		rc = ipogif_send(peer, skb);
		if (ipogif_retry(rc)) {
			set_bit(peer->idx, priv->backlogged);
			ipogif_arm_flush(priv, rc);
			if (rc == GNI_RC_ERROR_NOMEM)
				ipogif_peer_flush_dones(peer);
			return;
		}
		if (rc != GNI_RC_SUCCESS) {
			/* The frame waits for another connection. */
			ipogif_conn_broke(peer, peer->tx);
			continue;
		}
		__skb_unlink(skb, &peer->backlog);
		consume_skb(skb);
	}
	clear_bit(peer->idx, priv->backlogged);
}

/* Drop what @peer's backlog holds (tx_dropped). peer->lock held, BH off. */
void __ipogif_peer_drop_backlog(struct ipogif_peer *peer)
{
	struct ipogif_priv *priv = peer->priv;
	unsigned int n = 0;
	struct sk_buff *skb;

	/* RDMA_DONEs are no frames: the peer reclaims their slots. */
	while ((skb = __skb_dequeue(&peer->backlog))) {
		n += !!skb->len;
		kfree_skb(skb);
	}
	clear_bit(peer->idx, priv->backlogged);
	if (n)
		ipogif_count(priv, IPOGIF_TX_DROPPED, n);
}

void ipogif_peer_drop_backlog(struct ipogif_peer *peer)
{
	spin_lock_bh(&peer->lock);
	__ipogif_peer_drop_backlog(peer);
	spin_unlock_bh(&peer->lock);
}

/*
 * Queue @skb on @peer's backlog, or drop it; an RDMA_DONE is never
 * dropped (the peer's TX slots bound them).  peer->lock held.
 */
static bool ipogif_enqueue(struct ipogif_peer *peer, struct sk_buff *skb)
{
	if (skb->len && skb_queue_len(&peer->backlog) >= ipogif_backlog) {
		ipogif_count(peer->priv, IPOGIF_TX_DROPPED, 1);
		kfree_skb(skb);
		return false;
	}
	__skb_queue_tail(&peer->backlog, skb);
	return true;
}

/* Send @skb to @peer, or keep it for later; it is ours. BH off. */
static void ipogif_xmit_one(struct ipogif_peer *peer, struct sk_buff *skb)
{
	struct ipogif_priv *priv = peer->priv;
	gni_return_t rc;

	spin_lock(&peer->lock);
	if (peer->down) {
		/* RCA says it is unreachable: not worth a connection */
		if (skb->len)
			ipogif_count(priv, IPOGIF_TX_DROPPED, 1);
		kfree_skb(skb);
		spin_unlock(&peer->lock);
		return;
	}
	switch (peer->state) {
	case IPOGIF_PEER_IDLE:
		if (ipogif_enqueue(peer, skb)) {
			peer->state = IPOGIF_PEER_CONNECTING;
			set_bit(peer->idx, priv->connect_map);
			schedule_work(&priv->connect_work);
		}
		break;
	case IPOGIF_PEER_CONNECTING:
		ipogif_enqueue(peer, skb);
		break;
	case IPOGIF_PEER_UP:
		if (!skb_queue_empty(&peer->backlog)) {
			/* Behind the others, in order */
			if (ipogif_enqueue(peer, skb))
				ipogif_peer_flush(peer);
			break;
		}
		rc = ipogif_send(peer, skb);
		if (rc == GNI_RC_SUCCESS) {
			consume_skb(skb);
		} else if (ipogif_retry(rc)) {
			ipogif_enqueue(peer, skb);
			set_bit(peer->idx, priv->backlogged);
			ipogif_arm_flush(priv, rc);
		} else {
			/* Broken: on another connection, or a new one */
			ipogif_conn_broke(peer, peer->tx);
			if (ipogif_enqueue(peer, skb))
				ipogif_peer_flush(peer);
		}
		break;
	}
	spin_unlock(&peer->lock);
}

/*
 * RDMA_DONE for @peer's TX slot @slot, after the frames waiting: the
 * peer reclaims the slot anyway when the connection goes, so no memory
 * only costs the peer a slot until then.  BH off.
 */
void ipogif_send_done(struct ipogif_peer *peer, u32 slot)
{
	struct sk_buff *skb = alloc_skb(0, GFP_ATOMIC);

	if (!skb)
		return;
	IPOGIF_CB(skb)->slot = slot;
	ipogif_xmit_one(peer, skb);
}

netdev_tx_t ipogif_start_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct ipogif_priv *priv = netdev_priv(dev);
	const struct ethhdr *eth = (const struct ethhdr *)skb->data;
	struct ipogif_peer *peer;
	struct sk_buff *copy;
	unsigned int i;

	/* The stack segments and linearizes for us (no SG, no GSO). */
	if (skb->len < ETH_HLEN || skb->len > dev->mtu + ETH_HLEN ||
	    skb_is_nonlinear(skb)) {
		ipogif_count(priv, IPOGIF_TX_ERRORS, 1);
		kfree_skb(skb);
		return NETDEV_TX_OK;
	}
	if (is_multicast_ether_addr(eth->h_dest)) {
		/* ARP and the like: to every node, each its own copy */
		for (i = 0; i < priv->npeers; i++) {
			copy = skb_clone(skb, GFP_ATOMIC);
			if (!copy) {
				ipogif_count(priv, IPOGIF_TX_DROPPED, 1);
				continue;
			}
			ipogif_xmit_one(&priv->peers[i], copy);
		}
		consume_skb(skb);
		return NETDEV_TX_OK;
	}
	peer = ipogif_peer_of(priv, eth->h_dest);
	if (!peer) {
		ipogif_count(priv, IPOGIF_TX_DROPPED, 1);
		kfree_skb(skb);
		return NETDEV_TX_OK;
	}
	ipogif_xmit_one(peer, skb);
	return NETDEV_TX_OK;
}

/* Some peer is backlogged: NAPI flushes it. */
void ipogif_flush_timer(struct timer_list *t)
{
	struct ipogif_priv *priv = from_timer(priv, t, flush_timer);

	atomic_long_inc(&priv->flushes);
	napi_schedule(&priv->napi);
}
