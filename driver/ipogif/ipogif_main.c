// SPDX-License-Identifier: GPL-2.0-only
/*
 * ipogif: the module and the net device (Documentation/ipogif.rst).
 *
 * ipogif0 is an Ethernet device whose MAC is 00:01:01 and the node's NIC
 * address (Cray's convention, which tools that read /proc/net/arp rely
 * on).  Every frame travels whole, Ethernet header included: as one SMSG
 * message to the peer node if it fits (smsg_max less the ipogif header),
 * else by rendezvous, an RDMA GET of the peer from a slot of our TX pool
 * (ipogif_rdma.c), so the MTU is IPOGIF_MTU_MAX (65520; with pool=0 what
 * fits one message).  The module holds one CDM on kgni's device (ptag 2,
 * GNI_PTAG_OFED: a kernel ptag), three CQs whose handlers schedule NAPI,
 * two registered pools, and a peer for every other node RCA lists;
 * connections are made on demand (ipogif_conn.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/etherdevice.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/netdevice.h>
#include <linux/random.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "ipogif.h"

#ifndef CONFIG_CRAY_GEMINI
#error "CONFIG_CRAY_GEMINI undefined: build with pkg-config --cflags cray-gni"
#endif

static unsigned int device;
module_param(device, uint, 0444);
MODULE_PARM_DESC(device, "kgni device number (default 0)");

static unsigned int ptag = GNI_PTAG_OFED;
module_param(ptag, uint, 0444);
MODULE_PARM_DESC(ptag, "protection tag, a kernel one (default 2)");

static unsigned int cookie = GNI_JOB_CREATE_COOKIE(GNI_PKEY_OFED, 0);
module_param(cookie, uint, 0444);
MODULE_PARM_DESC(cookie, "cookie (default 0x20000)");

static unsigned int smsg_max = 4096;
module_param(smsg_max, uint, 0444);
MODULE_PARM_DESC(smsg_max,
		 "bytes of a short message, 128..65536; the MTU is 30 less (default 4096)");

static unsigned int credits = 16;
module_param(credits, uint, 0444);
MODULE_PARM_DESC(credits, "messages in flight per connection, 1..256 (default 16)");

static unsigned int pool = 32;
module_param(pool, uint, 0444);
MODULE_PARM_DESC(pool,
		 "64 KiB slots of each of the rendezvous's pools, 0..1024; 0: no rendezvous, the MTU what fits one message (default 32)");

unsigned int ipogif_backlog = 64;
module_param_named(backlog, ipogif_backlog, uint, 0444);
MODULE_PARM_DESC(backlog,
		 "frames a peer may hold while connecting or out of credits (default 64)");

/* The module's one device */
static struct net_device *ipogif_dev;

/* MAC 00:01:01 + the NIC address's 24 bits (uGNI's convention) */
#define IPOGIF_MAC_PREFIX	0x000101u
#define IPOGIF_PE_MASK		0x3ffffu

/* An errno for a kgni refusal at set-up */
static int ipogif_errno(gni_return_t rc)
{
	switch (rc) {
	case GNI_RC_SUCCESS:
		return 0;
	case GNI_RC_NO_MATCH:
		return -ENODEV;
	case GNI_RC_ERROR_RESOURCE:
	case GNI_RC_ERROR_NOMEM:
		return -ENOMEM;
	case GNI_RC_INVALID_STATE:
		return -EBUSY;
	default:
		return -EINVAL;
	}
}

static int ipogif_open(struct net_device *dev)
{
	struct ipogif_priv *priv = netdev_priv(dev);

	/* Messages may have come while down: look in every mailbox. */
	bitmap_fill(priv->rx_pending, priv->npeers);
	napi_enable(&priv->napi);
	netif_start_queue(dev);
	local_bh_disable();
	napi_schedule(&priv->napi);
	local_bh_enable();
	return 0;
}

static int ipogif_stop(struct net_device *dev)
{
	struct ipogif_priv *priv = netdev_priv(dev);
	unsigned int i;

	netif_stop_queue(dev);
	napi_disable(&priv->napi);
	del_timer_sync(&priv->flush_timer);
	for (i = 0; i < priv->npeers; i++)
		ipogif_peer_drop_backlog(&priv->peers[i]);
	bitmap_zero(priv->backlogged, priv->npeers);
	return 0;
}

static void ipogif_get_stats64(struct net_device *dev,
			       struct rtnl_link_stats64 *st)
{
	struct ipogif_priv *priv = netdev_priv(dev);
	unsigned int cpu, start, i;

	for_each_possible_cpu(cpu) {
		const struct ipogif_stats *s = per_cpu_ptr(priv->stats, cpu);
		u64 c[IPOGIF_NSTATS];

		do {
			start = u64_stats_fetch_begin(&s->syncp);
			for (i = 0; i < IPOGIF_NSTATS; i++)
				c[i] = u64_stats_read(&s->c[i]);
		} while (u64_stats_fetch_retry(&s->syncp, start));
		st->rx_packets += c[IPOGIF_RX_PACKETS];
		st->rx_bytes += c[IPOGIF_RX_BYTES];
		st->tx_packets += c[IPOGIF_TX_PACKETS];
		st->tx_bytes += c[IPOGIF_TX_BYTES];
		st->rx_dropped += c[IPOGIF_RX_DROPPED];
		st->tx_dropped += c[IPOGIF_TX_DROPPED];
		st->rx_errors += c[IPOGIF_RX_ERRORS];
		st->tx_errors += c[IPOGIF_TX_ERRORS];
	}
}

static const char *const ipogif_state_names[] = {
	[IPOGIF_PEER_IDLE] = "idle",
	[IPOGIF_PEER_CONNECTING] = "connecting",
	[IPOGIF_PEER_UP] = "up",
};

/*
 * debugfs ipogif/peers: one line per peer (its state, which
 * connections are open and which carries the frames, the frames waiting)
 * and the device's event counts, for whoever debugs it.
 */
static int ipogif_peers_show(struct seq_file *m, void *v)
{
	struct ipogif_priv *priv = m->private;
	unsigned int i, c;

	seq_puts(m, "nid nic state conns tx backlog flags\n");
	for (i = 0; i < priv->npeers; i++) {
		struct ipogif_peer *peer = &priv->peers[i];
		char conns[IPOGIF_PEER_CONNS + 1];
		int tx = -1;

		spin_lock_bh(&peer->lock);
		for (c = 0; c < IPOGIF_PEER_CONNS; c++) {
			struct ipogif_conn *conn =
				rcu_dereference_protected(peer->conns[c],
							  lockdep_is_held(&peer->lock));

			conns[c] = !conn ? '-' : conn->broken ? 'x' : '0' + c;
			if (conn && conn == peer->tx)
				tx = c;
		}
		conns[c] = '\0';
		seq_printf(m, "%u 0x%x %s %s %d %u%s%s%s%s\n", peer->nid, peer->pe,
			   ipogif_state_names[peer->state], conns, tx,
			   skb_queue_len(&peer->backlog),
			   test_bit(i, priv->backlogged) ? " backlogged" : "",
			   test_bit(i, priv->rx_pending) ? " rx_pending" : "",
			   test_bit(i, priv->connect_map) ? " to_connect" : "",
			   peer->down ? " down" : "");
		spin_unlock_bh(&peer->lock);
	}
	seq_printf(m, "rdv_tx %ld rdv_rx %ld rdv_no_slot %ld rdv_busy %ld rdv_failed %ld rdv_reclaimed %ld tx_slots_free %u/%u\n",
		   atomic_long_read(&priv->rdv_tx),
		   atomic_long_read(&priv->rdv_rx),
		   atomic_long_read(&priv->rdv_no_slot),
		   atomic_long_read(&priv->rdv_busy),
		   atomic_long_read(&priv->rdv_failed),
		   atomic_long_read(&priv->rdv_reclaimed),
		   READ_ONCE(priv->tx_nfree), priv->pool);
	seq_printf(m, "polls %ld flush_timer %ld no_credit %ld no_room %ld broke %ld retired %ld rca_down %ld rca_up %ld\n",
		   atomic_long_read(&priv->polls),
		   atomic_long_read(&priv->flushes),
		   atomic_long_read(&priv->no_credit),
		   atomic_long_read(&priv->no_room),
		   atomic_long_read(&priv->broke),
		   atomic_long_read(&priv->retired),
		   atomic_long_read(&priv->rca_down),
		   atomic_long_read(&priv->rca_up));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ipogif_peers);

static const struct net_device_ops ipogif_netdev_ops = {
	.ndo_open = ipogif_open,
	.ndo_stop = ipogif_stop,
	.ndo_start_xmit = ipogif_start_xmit,
	.ndo_get_stats64 = ipogif_get_stats64,
	.ndo_validate_addr = eth_validate_addr,
};

/* A peer for every node RCA lists but this one */
static int ipogif_peers_init(struct ipogif_priv *priv)
{
	rs_node_array_t list = { 0 };
	unsigned int i, n = 0;
	nic_addr_t pe;
	int ret;

	ret = krca_get_sysnodes(&list);
	if (ret < 0) {
		kfree(list.na_ids);
		pr_err("krca_get_sysnodes: %d\n", ret);
		return ret;
	}
	priv->peers = kcalloc(max(list.na_len, 1u), sizeof(*priv->peers),
			      GFP_KERNEL);
	if (!priv->peers) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < list.na_len; i++) {
		u32 nid = RSN_GET_FLD(list.na_ids[i].rs_node_flat, NID);
		struct ipogif_peer *peer = &priv->peers[n];

		if (nid == priv->nid)
			continue;
		ret = krca_nid_to_nicaddrs(nid, 1, &pe);
		if (ret <= 0) {
			pr_err("no NIC address for NID %u: %d\n", nid, ret);
			ret = ret ? ret : -ESRCH;
			goto out;
		}
		peer->priv = priv;
		peer->idx = n;
		peer->nid = nid;
		peer->pe = pe;
		spin_lock_init(&peer->lock);
		skb_queue_head_init(&peer->backlog);
		ret = xa_insert(&priv->by_nid, nid, peer, GFP_KERNEL);
		if (!ret)
			ret = xa_insert(&priv->by_pe, pe, peer, GFP_KERNEL);
		if (ret) {
			pr_err("NID %u (NIC 0x%x) listed twice\n", nid, pe);
			goto out;
		}
		n++;
	}
	priv->npeers = n;
	ret = -ENOMEM;
	priv->rx_pending = bitmap_zalloc(max(n, 1u), GFP_KERNEL);
	priv->backlogged = bitmap_zalloc(max(n, 1u), GFP_KERNEL);
	priv->connect_map = bitmap_zalloc(max(n, 1u), GFP_KERNEL);
	priv->retire_map = bitmap_zalloc(max(n, 1u), GFP_KERNEL);
	if (priv->rx_pending && priv->backlogged && priv->connect_map &&
	    priv->retire_map)
		ret = 0;
out:
	kfree(list.na_ids);
	return ret;
}

static void ipogif_peers_free(struct ipogif_priv *priv)
{
	xa_destroy(&priv->by_nid);
	xa_destroy(&priv->by_pe);
	bitmap_free(priv->rx_pending);
	bitmap_free(priv->backlogged);
	bitmap_free(priv->connect_map);
	bitmap_free(priv->retire_map);
	kfree(priv->peers);
}

/* The CDM, the NIC, this node's NID and the two CQs */
static int ipogif_gni_init(struct ipogif_priv *priv)
{
	gni_smsg_attr_t attr = {
		.msg_type = GNI_SMSG_TYPE_MBOX_AUTO_RETRANSMIT,
		.mbox_maxcredit = priv->credits,
		.msg_maxsize = priv->msg_maxsize,
	};
	u32 entries;
	gni_return_t rc;
	int ret;

	rc = gni_cdm_create(IPOGIF_INST, ptag, cookie, 0, &priv->cdm);
	if (rc != GNI_RC_SUCCESS) {
		pr_err("gni_cdm_create(ptag %u, cookie 0x%x): %d\n", ptag,
		       cookie, rc);
		return ipogif_errno(rc);
	}
	rc = gni_cdm_attach(priv->cdm, device, &priv->pe, &priv->nic);
	if (rc != GNI_RC_SUCCESS) {
		pr_err("gni_cdm_attach(device %u): %d\n", device, rc);
		return ipogif_errno(rc);
	}
	ret = krca_nicaddr_to_nid(priv->pe, &priv->nid);
	if (ret < 0) {
		pr_err("no NID for NIC address 0x%x: %d\n", priv->pe, ret);
		return ret;
	}
	rc = gni_smsg_buff_size_needed(&attr, &priv->mbox_size);
	if (rc != GNI_RC_SUCCESS || !priv->mbox_size)
		return -EINVAL;
	ret = ipogif_peers_init(priv);
	if (ret)
		return ret;
	/* Room for every event the mailboxes' credits allow */
	entries = clamp_t(u32, priv->npeers * IPOGIF_PEER_CONNS * priv->credits +
			  64, 256, 65535);
	rc = gni_cq_create(priv->nic, entries, 0, ipogif_cq_handler,
			   (u64)(uintptr_t)priv, &priv->tx_cq);
	if (rc == GNI_RC_SUCCESS)
		rc = gni_cq_create(priv->nic, entries, 0, ipogif_cq_handler,
				   (u64)(uintptr_t)priv, &priv->rx_cq);
	if (rc == GNI_RC_SUCCESS)
		rc = gni_ep_create(priv->nic, NULL, &priv->listen_ep);
	if (rc != GNI_RC_SUCCESS) {
		pr_err("CQs or endpoint: %d\n", rc);
		return ipogif_errno(rc);
	}
	return ipogif_rdma_init(priv);
}

/* Undo ipogif_gni_init(), whatever part of it was done */
static void ipogif_gni_fini(struct ipogif_priv *priv)
{
	ipogif_rdma_fini(priv);
	if (priv->listen_ep)
		gni_ep_destroy(priv->listen_ep);
	if (priv->rx_cq)
		gni_cq_destroy(priv->rx_cq);
	if (priv->tx_cq)
		gni_cq_destroy(priv->tx_cq);
	ipogif_peers_free(priv);
	if (priv->cdm)
		gni_cdm_destroy(priv->cdm);
}

static void ipogif_setup_netdev(struct net_device *dev)
{
	struct ipogif_priv *priv = netdev_priv(dev);
	u32 pe = priv->pe & IPOGIF_PE_MASK;
	u8 mac[ETH_ALEN] = {
		IPOGIF_MAC_PREFIX >> 16, (IPOGIF_MAC_PREFIX >> 8) & 0xff,
		IPOGIF_MAC_PREFIX & 0xff, pe >> 16, (pe >> 8) & 0xff, pe & 0xff,
	};

	eth_hw_addr_set(dev, mac);
	dev->netdev_ops = &ipogif_netdev_ops;
	dev->min_mtu = ETH_MIN_MTU;
	priv->inline_max = priv->msg_maxsize - sizeof(struct ipogif_hdr);
	dev->max_mtu = priv->inline_max - ETH_HLEN;
	if (priv->pool)
		dev->max_mtu = max_t(u32, dev->max_mtu, IPOGIF_MTU_MAX);
	dev->mtu = dev->max_mtu;
	netif_napi_add(dev, &priv->napi, ipogif_poll);
}

static int __init ipogif_init(void)
{
	struct ipogif_priv *priv;
	struct net_device *dev;
	int ret;

	if (smsg_max < 128 || smsg_max > 65536 || !credits || credits > 256 ||
	    !ipogif_backlog || !ptag || ptag > GNI_PTAG_MAX ||
	    pool > IPOGIF_POOL_MAX) {
		pr_err("smsg_max, credits, backlog, ptag or pool out of range\n");
		return -EINVAL;
	}
	dev = alloc_netdev(sizeof(*priv), "ipogif%d", NET_NAME_ENUM,
			   ether_setup);
	if (!dev)
		return -ENOMEM;
	priv = netdev_priv(dev);
	priv->dev = dev;
	/* Not 0: a peer's 0 is "no connection to it yet". */
	priv->gen = get_random_u32() | 1;
	priv->msg_maxsize = smsg_max;
	priv->credits = credits;
	priv->pool = pool;
	xa_init(&priv->by_nid);
	xa_init(&priv->by_pe);
	mutex_init(&priv->cm_lock);
	INIT_WORK(&priv->connect_work, ipogif_connect_work);
	timer_setup(&priv->flush_timer, ipogif_flush_timer, 0);
	priv->stats = netdev_alloc_pcpu_stats(struct ipogif_stats);
	if (!priv->stats) {
		ret = -ENOMEM;
		goto free_dev;
	}
	ret = ipogif_gni_init(priv);
	if (ret)
		goto fini;
	ipogif_setup_netdev(dev);
	ret = ipogif_cm_start(priv);
	if (ret)
		goto napi;
	ipogif_rca_start(priv);
	ret = register_netdev(dev);
	if (ret)
		goto cm;
	ipogif_dev = dev;
	priv->debugfs = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("peers", 0400, priv->debugfs, priv,
			    &ipogif_peers_fops);
	netdev_info(dev, "NID %u, NIC 0x%x, %pM, MTU %u, %u peers\n",
		    priv->nid, priv->pe, dev->dev_addr, dev->mtu,
		    priv->npeers);
	return 0;

cm:
	ipogif_rdma_stop(priv);
	ipogif_rca_stop(priv);
	ipogif_cm_stop(priv);
	del_timer_sync(&priv->flush_timer);
	ipogif_conns_free(priv);
napi:
	netif_napi_del(&priv->napi);
fini:
	ipogif_gni_fini(priv);
	free_percpu(priv->stats);
free_dev:
	free_netdev(dev);
	return ret;
}

static void __exit ipogif_exit(void)
{
	struct net_device *dev = ipogif_dev;
	struct ipogif_priv *priv = netdev_priv(dev);

	debugfs_remove_recursive(priv->debugfs);
	/* No xmit, no NAPI from here on; then no datagram, no connection. */
	unregister_netdev(dev);
	/*
	 * No GET posted any more, those in flight ended; nothing sends an
	 * RDMA_DONE (which may ask for a connection) from here on.
	 */
	ipogif_rdma_stop(priv);
	ipogif_rca_stop(priv);
	ipogif_cm_stop(priv);
	/* A connection opened since may have armed it. */
	del_timer_sync(&priv->flush_timer);
	ipogif_conns_free(priv);
	netif_napi_del(&priv->napi);
	ipogif_gni_fini(priv);
	free_percpu(priv->stats);
	free_netdev(dev);
}

module_init(ipogif_init);
module_exit(ipogif_exit);

MODULE_DESCRIPTION("IP over the Gemini fabric: ipogif0 (vgemini)");
MODULE_AUTHOR("vgemini developers");
MODULE_LICENSE("GPL");
