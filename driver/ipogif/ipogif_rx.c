// SPDX-License-Identifier: GPL-2.0-only
/*
 * ipogif: receive, and the events (Documentation/ipogif.rst, "Frames").
 *
 * Both CQs' handlers, called by kgni in hard-IRQ context, only schedule
 * NAPI.  The poll takes the TX CQ's events (gni_cq_get_event() is where
 * gnicore sends a failed message again), then the RX CQ's: each remote
 * event names the sending peer (its NID, the remote event data it set),
 * whose connections are then read with gni_smsg_getnext(), each message
 * copied into a new skb and released (which returns the credit) before
 * the frame goes up with napi_gro_receive().  Before them, the RDMA CQ's
 * rendezvous GETs that ended (ipogif_rdma.c).  Last, backlogged peers are
 * flushed.
 */
#include <linux/etherdevice.h>
#include <linux/netdevice.h>
#include <linux/rcupdate.h>
#include <linux/skbuff.h>

#include "ipogif.h"

/* Hard IRQ: @data is the device's priv */
void ipogif_cq_handler(u32 device_id, u64 data)
{
	struct ipogif_priv *priv = (struct ipogif_priv *)(uintptr_t)data;

	napi_schedule(&priv->napi);
}

/*
 * The local events of our sends: only failures matter.  A message lost
 * broke its connection: the peer's mailboxes are read, where kgni's
 * refusal tells which (ipogif_rx_conn()).
 */
static void ipogif_tx_events(struct ipogif_priv *priv)
{
	struct ipogif_peer *peer;
	gni_cq_entry_t e;
	gni_return_t rc;

	while ((rc = gni_cq_get_event(priv->tx_cq, &e)) != GNI_RC_NOT_DONE) {
		if (rc == GNI_RC_TRANSACTION_ERROR) {
			/* Sent again max_retrans times: the message is lost. */
			ipogif_count(priv, IPOGIF_TX_ERRORS, 1);
			net_warn_ratelimited("%s: a message to NID %llu lost\n",
					     priv->dev->name,
					     (unsigned long long)GNI_CQ_GET_MSG_ID(e));
			peer = xa_load(&priv->by_nid, GNI_CQ_GET_MSG_ID(e));
			if (peer)
				set_bit(peer->idx, priv->rx_pending);
		} else if (rc == GNI_RC_ERROR_RESOURCE) {
			net_warn_ratelimited("%s: TX CQ overrun\n",
					     priv->dev->name);
		} else if (rc != GNI_RC_SUCCESS) {
			break;
		}
	}
}

/* The remote events: which peers have written into our mailboxes */
static void ipogif_rx_events(struct ipogif_priv *priv)
{
	struct ipogif_peer *peer;
	gni_cq_entry_t e;
	gni_return_t rc;
	unsigned int i;

	while ((rc = gni_cq_get_event(priv->rx_cq, &e)) != GNI_RC_NOT_DONE) {
		if (rc == GNI_RC_SUCCESS) {
			peer = xa_load(&priv->by_nid, GNI_CQ_GET_INST_ID(e));
			if (peer)
				set_bit(peer->idx, priv->rx_pending);
		} else if (rc == GNI_RC_ERROR_RESOURCE) {
			/* Events were lost: look everywhere. */
			for (i = 0; i < priv->npeers; i++)
				set_bit(i, priv->rx_pending);
		} else if (rc == GNI_RC_TRANSACTION_ERROR) {
			ipogif_count(priv, IPOGIF_RX_ERRORS, 1);
		} else {
			break;
		}
	}
}

/*
 * One message at @msg of @peer's @conn: a frame into an skb, released,
 * up the stack; an RDMA_REQ to the GETs' work; an RDMA_DONE frees our
 * TX slot.
 */
static void ipogif_rx_one(struct ipogif_priv *priv, struct ipogif_peer *peer,
			  struct ipogif_conn *conn, const void *msg)
{
	struct ipogif_hdr hdr;
	struct sk_buff *skb = NULL;
	u32 len;

	memcpy(&hdr, msg, sizeof(hdr));
	len = le32_to_cpu(hdr.len);
	if (hdr.type == IPOGIF_MSG_RDMA_REQ) {
		gni_smsg_release(conn->ep);
		ipogif_rdv_req(priv, peer, conn, le32_to_cpu(hdr.slot), len);
		return;
	}
	if (hdr.type == IPOGIF_MSG_RDMA_DONE) {
		gni_smsg_release(conn->ep);
		ipogif_tx_slot_done(priv, peer, le32_to_cpu(hdr.slot));
		return;
	}
	if (hdr.type != IPOGIF_MSG_FRAME || len < ETH_HLEN ||
	    len > priv->msg_maxsize - sizeof(hdr)) {
		ipogif_count(priv, IPOGIF_RX_ERRORS, 1);
	} else {
		skb = napi_alloc_skb(&priv->napi, len);
		if (skb)
			skb_put_data(skb, msg + sizeof(hdr), len);
		else
			ipogif_count(priv, IPOGIF_RX_DROPPED, 1);
	}
	/* The slot is copied: the peer may fill it again. */
	gni_smsg_release(conn->ep);
	if (!skb)
		return;
	skb->protocol = eth_type_trans(skb, priv->dev);
	ipogif_count_packet(priv, IPOGIF_RX_PACKETS, len);
	napi_gro_receive(&priv->napi, skb);
}

/*
 * Up to @budget messages of @peer's @conn; how many.  *@more: it may hold
 * more (the budget ran out first).  A connection kgni says is broken goes
 * (ipogif_conn_broke()).
 */
static int ipogif_rx_conn(struct ipogif_priv *priv, struct ipogif_peer *peer,
			  struct ipogif_conn *conn, int budget, bool *more)
{
	gni_return_t rc;
	void *msg;
	int n = 0;

	if (READ_ONCE(conn->broken))
		return 0;
	while (n < budget) {
		rc = gni_smsg_getnext(conn->ep, &msg);
		if (rc == GNI_RC_INVALID_STATE) {
			spin_lock(&peer->lock);
			ipogif_conn_broke(peer, conn);
			spin_unlock(&peer->lock);
		}
		if (rc != GNI_RC_SUCCESS)
			return n;
		ipogif_rx_one(priv, peer, conn, msg);
		n++;
	}
	*more = true;
	return n;
}

/* The mailboxes of the peers that have written, up to @budget messages */
static int ipogif_rx(struct ipogif_priv *priv, int budget)
{
	struct ipogif_conn *conn;
	struct ipogif_peer *peer;
	unsigned int i, c;
	bool more;
	int done = 0;

	for_each_set_bit(i, priv->rx_pending, priv->npeers) {
		if (done >= budget)
			break;
		clear_bit(i, priv->rx_pending);
		peer = &priv->peers[i];
		more = false;
		rcu_read_lock();
		for (c = 0; c < IPOGIF_PEER_CONNS && done < budget; c++) {
			conn = rcu_dereference(peer->conns[c]);
			if (conn)
				done += ipogif_rx_conn(priv, peer, conn,
						       budget - done, &more);
		}
		rcu_read_unlock();
		if (more || c < IPOGIF_PEER_CONNS)
			set_bit(i, priv->rx_pending);
	}
	return done;
}

/* The backlogged peers' frames, now that credits may have come back */
static void ipogif_flush(struct ipogif_priv *priv)
{
	struct ipogif_peer *peer;
	unsigned int i;

	for_each_set_bit(i, priv->backlogged, priv->npeers) {
		peer = &priv->peers[i];
		spin_lock(&peer->lock);
		ipogif_peer_flush(peer);
		spin_unlock(&peer->lock);
	}
}

int ipogif_poll(struct napi_struct *napi, int budget)
{
	struct ipogif_priv *priv = container_of(napi, struct ipogif_priv,
						napi);
	int done = 0;

	atomic_long_inc(&priv->polls);
	ipogif_tx_events(priv);
	if (budget) {
		/* The rendezvous's frames: at most a pool's worth */
		done = ipogif_rdma_events(priv);
		ipogif_rx_events(priv);
		if (done < budget)
			done += ipogif_rx(priv, budget - done);
		done = min(done, budget);
	}
	ipogif_flush(priv);
	if (done < budget)
		napi_complete_done(napi, done);
	return done;
}
