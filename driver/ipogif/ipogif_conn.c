// SPDX-License-Identifier: GPL-2.0-only
/*
 * ipogif: connections to peers, made on demand by kGNI datagrams
 * (Documentation/ipogif.rst, "Connections").
 *
 * A connection is an endpoint bound to the peer and an SMSG mailbox of
 * our own, registered with the RX CQ, that the peer writes into; each
 * side learns the other's mailbox from a datagram (struct ipogif_dg).
 *
 * The cm thread keeps one wildcard datagram posted, offering a spare
 * mailbox, and sleeps in gni_postdata_probe_wait_by_id() until a datagram
 * of ours ends.  A frame for a peer with no connection makes the connect
 * work post a bound datagram to it with a new mailbox.  Either way, when
 * the exchange completes both sides have each other's mailbox and open
 * the connection.  Two nodes that connect to each other at once meet in
 * kgni's tie-break (one exchange); when one's bound datagram meets the
 * other's wildcard in both directions, each side ends with two
 * connections to the other: it sends on the last it opened and reads
 * both, so no frame is lost and nothing needs to be agreed.
 *
 * Reconnection (Documentation/ipogif.rst, "Reconnection"): a connection
 * kgni broke (ipogif_conn_broke()) is retired by the connect work, which
 * connects again if the peer has no other; a connection that opens with
 * another load stamp of the peer's module retires every older one, and
 * the older of two when a third opens.  A retired connection's mailbox is
 * deregistered with a hold (gnilnd's purgatory).  RCA's node events
 * (the ipogif-rca thread): a node reported unavailable loses its
 * connections and frames, and gets none until it is available again.
 *
 * The datagram calls may sleep: everything here runs in the cm thread or
 * the connect work, under priv->cm_lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "ipogif.h"

/* The wildcard is not posted (no memory): try again after this */
#define IPOGIF_CM_RETRY_MS	1000

/* A connection with a new mailbox and an endpoint, not bound yet */
static struct ipogif_conn *ipogif_conn_new(struct ipogif_priv *priv)
{
	struct ipogif_conn *conn;
	gni_return_t rc;

	conn = kzalloc(sizeof(*conn), GFP_KERNEL);
	if (!conn)
		return NULL;
	/* Zeroed: the peer finds its flags by sequence number in it. */
	conn->mbox = kvzalloc(priv->mbox_size, GFP_KERNEL);
	if (!conn->mbox)
		goto free;
	rc = gni_mem_register(priv->nic, (u64)(uintptr_t)conn->mbox,
			      priv->mbox_size, priv->rx_cq, GNI_MEM_READWRITE,
			      &conn->mh);
	if (rc != GNI_RC_SUCCESS)
		goto free_mbox;
	rc = gni_ep_create(priv->nic, priv->tx_cq, &conn->ep);
	if (rc != GNI_RC_SUCCESS)
		goto dereg;
	conn->attr.msg_type = GNI_SMSG_TYPE_MBOX_AUTO_RETRANSMIT;
	conn->attr.msg_buffer = conn->mbox;
	conn->attr.buff_size = priv->mbox_size;
	conn->attr.mem_hndl = conn->mh;
	conn->attr.mbox_offset = 0;
	conn->attr.mbox_maxcredit = priv->credits;
	conn->attr.msg_maxsize = priv->msg_maxsize;
	return conn;

dereg:
	gni_mem_deregister(priv->nic, &conn->mh, IPOGIF_MBOX_HOLD_MS);
free_mbox:
	kvfree(conn->mbox);
free:
	kfree(conn);
	return NULL;
}

/*
 * Destroy @conn: its endpoint (with its datagram, if any) first, so that
 * nothing is sent from it, then its mailbox, whose handle stays held.
 */
static void ipogif_conn_free(struct ipogif_priv *priv,
			     struct ipogif_conn *conn)
{
	if (!conn)
		return;
	gni_ep_destroy(conn->ep);
	gni_mem_deregister(priv->nic, &conn->mh, IPOGIF_MBOX_HOLD_MS);
	kvfree(conn->mbox);
	kfree(conn);
}

/* What our datagram for @conn says */
static void ipogif_dg_fill(struct ipogif_priv *priv,
			   const struct ipogif_conn *conn, struct ipogif_dg *dg)
{
	memset(dg, 0, sizeof(*dg));
	dg->magic = cpu_to_le32(IPOGIF_DG_MAGIC);
	dg->version = IPOGIF_DG_VERSION;
	dg->type = IPOGIF_DG_CONNECT;
	dg->credits = cpu_to_le16(conn->attr.mbox_maxcredit);
	dg->nid = cpu_to_le32(priv->nid);
	dg->gen = cpu_to_le32(priv->gen);
	dg->msg_maxsize = cpu_to_le32(conn->attr.msg_maxsize);
	dg->buff_size = cpu_to_le32(conn->attr.buff_size);
	dg->mbox_offset = cpu_to_le32(conn->attr.mbox_offset);
	dg->mbox_addr = cpu_to_le64((u64)(uintptr_t)conn->attr.msg_buffer);
	dg->mh[0] = cpu_to_le64(conn->attr.mem_hndl.qword1);
	dg->mh[1] = cpu_to_le64(conn->attr.mem_hndl.qword2);
	if (priv->pool) {
		dg->pool_addr = cpu_to_le64((u64)(uintptr_t)priv->tx_pool);
		dg->pool_mh[0] = cpu_to_le64(priv->tx_pool_mh.qword1);
		dg->pool_mh[1] = cpu_to_le64(priv->tx_pool_mh.qword2);
		dg->pool_slots = cpu_to_le32(priv->pool);
		dg->slot_size = cpu_to_le32(IPOGIF_SLOT_SIZE);
	}
}

/*
 * Open @conn to @peer with the mailbox its datagram @dg names: 0, or
 * -EPROTO for a datagram we cannot use (kgni checks the handle itself).
 */
static int ipogif_conn_open(struct ipogif_priv *priv, struct ipogif_peer *peer,
			    struct ipogif_conn *conn,
			    const struct ipogif_dg *dg)
{
	gni_smsg_attr_t remote = {
		.msg_type = GNI_SMSG_TYPE_MBOX_AUTO_RETRANSMIT,
		.msg_buffer = (void *)(uintptr_t)le64_to_cpu(dg->mbox_addr),
		.buff_size = le32_to_cpu(dg->buff_size),
		.mem_hndl.qword1 = le64_to_cpu(dg->mh[0]),
		.mem_hndl.qword2 = le64_to_cpu(dg->mh[1]),
		.mbox_offset = le32_to_cpu(dg->mbox_offset),
		.mbox_maxcredit = le16_to_cpu(dg->credits),
		.msg_maxsize = le32_to_cpu(dg->msg_maxsize),
	};
	gni_return_t rc;

	if (le32_to_cpu(dg->magic) != IPOGIF_DG_MAGIC ||
	    dg->version != IPOGIF_DG_VERSION || dg->type != IPOGIF_DG_CONNECT ||
	    le32_to_cpu(dg->nid) != peer->nid || !remote.mbox_maxcredit) {
		netdev_warn(priv->dev, "NID %u: not an ipogif datagram\n",
			    peer->nid);
		return -EPROTO;
	}
	if (remote.msg_maxsize != priv->msg_maxsize) {
		netdev_warn(priv->dev, "NID %u has smsg_max %u, we %u: no connection\n",
			    peer->nid, remote.msg_maxsize, priv->msg_maxsize);
		return -EPROTO;
	}
	/* Its events: local ones name the peer, the peer's name us. */
	gni_ep_set_eventdata(conn->ep, peer->nid, priv->nid);
	rc = gni_smsg_init(conn->ep, &conn->attr, &remote);
	if (rc != GNI_RC_SUCCESS) {
		netdev_warn(priv->dev, "NID %u: gni_smsg_init: %d\n", peer->nid,
			    rc);
		return -EPROTO;
	}
	conn->peer_gen = le32_to_cpu(dg->gen);
	/* The peer's TX pool, which our GETs read its big frames from */
	conn->pool_addr = le64_to_cpu(dg->pool_addr);
	conn->pool_mh.qword1 = le64_to_cpu(dg->pool_mh[0]);
	conn->pool_mh.qword2 = le64_to_cpu(dg->pool_mh[1]);
	conn->pool_slots = conn->pool_addr ? le32_to_cpu(dg->pool_slots) : 0;
	conn->slot_size = le32_to_cpu(dg->slot_size);
	if (conn->slot_size & 3)
		conn->pool_slots = 0;
	conn->open = true;
	return 0;
}

/*
 * Take out of @peer's set the connections that must go: every one if
 * @all, else the broken ones; into @dead, their number.  They stay
 * readable by NAPI until an RCU grace period has passed.  peer->lock
 * held.
 */
static unsigned int ipogif_peer_unlink(struct ipogif_peer *peer, bool all,
				       struct ipogif_conn **dead)
{
	struct ipogif_conn *conn;
	unsigned int i, n = 0;

	for (i = 0; i < IPOGIF_PEER_CONNS; i++) {
		conn = rcu_dereference_protected(peer->conns[i],
						 lockdep_is_held(&peer->lock));
		if (!conn || (!all && !conn->broken))
			continue;
		RCU_INIT_POINTER(peer->conns[i], NULL);
		if (conn == peer->tx)
			peer->tx = NULL;
		dead[n++] = conn;
	}
	return n;
}

/*
 * Close the @n connections @dead, out of @peer's set: once NAPI no
 * longer reads them, their endpoints go and their mailboxes are
 * deregistered, held IPOGIF_MBOX_HOLD_MS (gnilnd's purgatory: the peer's
 * late writes find the handle invalid, not a new registration).  The TX
 * slots whose RDMA_REQs went on them are freed if the connection broke
 * or @lost (the peer reloaded, or unreachable: it will not answer for
 * them), else pass to the peer's connection that carries the frames now.
 * cm_lock held (this sleeps).
 */
static void ipogif_conns_retire(struct ipogif_priv *priv,
				struct ipogif_peer *peer,
				struct ipogif_conn **dead, unsigned int n,
				bool lost)
{
	struct ipogif_conn *to;
	unsigned int i;

	if (!n)
		return;
	synchronize_rcu();
	for (i = 0; i < n; i++) {
		spin_lock_bh(&peer->lock);
		to = lost || dead[i]->broken ? NULL : peer->tx;
		spin_unlock_bh(&peer->lock);
		ipogif_tx_slots_release(priv, dead[i], to);
		ipogif_conn_free(priv, dead[i]);
	}
	atomic_long_add(n, &priv->retired);
}

/*
 * @conn to @peer is open: NAPI reads it from now on, and it carries the
 * frames, those waiting first.  A new load of the peer's module (another
 * stamp in its datagram) replaces every connection to the old one; a
 * broken connection goes; with no room left, the oldest goes (the peer
 * made a new one: it no longer uses one of its old ones).  cm_lock held.
 */
static void ipogif_peer_install(struct ipogif_priv *priv,
				struct ipogif_peer *peer,
				struct ipogif_conn *conn)
{
	struct ipogif_conn *dead[IPOGIF_PEER_CONNS], *old, *oldest = NULL;
	unsigned int i, n, at = IPOGIF_PEER_CONNS;
	bool reloaded;

	conn->seq = ++priv->conn_seq;
	spin_lock_bh(&peer->lock);
	reloaded = peer->peer_gen && peer->peer_gen != conn->peer_gen;
	n = ipogif_peer_unlink(peer, reloaded, dead);
	for (i = 0; i < IPOGIF_PEER_CONNS; i++) {
		old = rcu_dereference_protected(peer->conns[i],
						lockdep_is_held(&peer->lock));
		if (!old) {
			at = i;
			break;
		}
		if (!oldest || old->seq < oldest->seq) {
			oldest = old;
			at = i;
		}
	}
	if (rcu_access_pointer(peer->conns[at])) {
		RCU_INIT_POINTER(peer->conns[at], NULL);
		dead[n++] = oldest;
	}
	rcu_assign_pointer(peer->conns[at], conn);
	/* It answered: reachable, whatever RCA said last */
	peer->down = false;
	peer->peer_gen = conn->peer_gen;
	peer->tx = conn;
	peer->state = IPOGIF_PEER_UP;
	clear_bit(peer->idx, priv->connect_map);
	ipogif_peer_flush(peer);
	/* The peer may have written before we opened it. */
	set_bit(peer->idx, priv->rx_pending);
	napi_schedule(&priv->napi);
	spin_unlock_bh(&peer->lock);
	if (reloaded)
		netdev_info(priv->dev, "NID %u: its module was loaded again: connected anew\n",
			    peer->nid);
	netdev_dbg(priv->dev, "NID %u: connection %u open\n", peer->nid, at);
	ipogif_conns_retire(priv, peer, dead, n, reloaded);
}

/* @peer's broken connections go. cm_lock held. */
static void ipogif_peer_reap(struct ipogif_priv *priv,
			     struct ipogif_peer *peer)
{
	struct ipogif_conn *dead[IPOGIF_PEER_CONNS];
	unsigned int n;

	spin_lock_bh(&peer->lock);
	n = ipogif_peer_unlink(peer, false, dead);
	spin_unlock_bh(&peer->lock);
	ipogif_conns_retire(priv, peer, dead, n, false);
}

/* No connection could be made to @peer: its frames go. */
static void ipogif_peer_failed(struct ipogif_peer *peer)
{
	spin_lock_bh(&peer->lock);
	if (peer->state == IPOGIF_PEER_CONNECTING) {
		peer->state = IPOGIF_PEER_IDLE;
		__ipogif_peer_drop_backlog(peer);
	}
	spin_unlock_bh(&peer->lock);
}

/* Post a bound datagram to @peer with a new mailbox. cm_lock held. */
static void ipogif_peer_connect(struct ipogif_priv *priv,
				struct ipogif_peer *peer)
{
	struct ipogif_conn *conn;
	struct ipogif_dg dg;
	gni_return_t rc;

	conn = ipogif_conn_new(priv);
	if (!conn)
		goto fail;
	rc = gni_ep_bind(conn->ep, peer->pe, IPOGIF_INST);
	if (rc == GNI_RC_SUCCESS) {
		ipogif_dg_fill(priv, conn, &dg);
		rc = gni_ep_postdata_w_id(conn->ep, &dg, sizeof(dg),
					  &conn->peer_dg, sizeof(conn->peer_dg),
					  IPOGIF_DG_PEER | peer->nid);
	}
	if (rc != GNI_RC_SUCCESS) {
		netdev_warn(priv->dev, "NID %u: no datagram posted: %d\n",
			    peer->nid, rc);
		ipogif_conn_free(priv, conn);
		goto fail;
	}
	peer->connecting = conn;
	return;

fail:
	ipogif_peer_failed(peer);
}

/*
 * The broken connections of the peers in retire_map go; bound datagrams
 * for the peers that asked for one (ipogif_tx.c)
 */
void ipogif_connect_work(struct work_struct *work)
{
	struct ipogif_priv *priv = container_of(work, struct ipogif_priv,
						connect_work);
	unsigned int i;

	mutex_lock(&priv->cm_lock);
	for (i = 0; i < priv->npeers; i++) {
		struct ipogif_peer *peer = &priv->peers[i];

		if (test_and_clear_bit(i, priv->retire_map))
			ipogif_peer_reap(priv, peer);
		if (!test_and_clear_bit(i, priv->connect_map))
			continue;
		if (priv->cm_stopping || READ_ONCE(peer->down))
			ipogif_peer_failed(peer);
		/* else unless posted already, or connected by the wildcard */
		else if (!peer->connecting && !peer->tx)
			ipogif_peer_connect(priv, peer);
	}
	mutex_unlock(&priv->cm_lock);
}

/* Post the wildcard with the spare mailbox. cm_lock held. */
static void ipogif_listen(struct ipogif_priv *priv)
{
	struct ipogif_dg dg;
	gni_return_t rc;

	if (!priv->spare)
		priv->spare = ipogif_conn_new(priv);
	if (!priv->spare)
		return;
	ipogif_dg_fill(priv, priv->spare, &dg);
	rc = gni_ep_postdata_w_id(priv->listen_ep, &dg, sizeof(dg),
				  &priv->listen_dg, sizeof(priv->listen_dg),
				  IPOGIF_DG_LISTEN);
	if (rc == GNI_RC_SUCCESS)
		priv->listening = true;
	else
		netdev_warn(priv->dev, "wildcard datagram not posted: %d\n", rc);
}

/* The wildcard ended: a peer connected, or it was cancelled. */
static void ipogif_listen_ended(struct ipogif_priv *priv)
{
	struct ipogif_conn *conn = priv->spare;
	struct ipogif_peer *peer;
	gni_post_state_t state;
	u32 pe = 0, inst = 0;
	gni_return_t rc;

	rc = gni_ep_postdata_test_by_id(priv->listen_ep, IPOGIF_DG_LISTEN,
					&state, &pe, &inst);
	if ((rc != GNI_RC_SUCCESS && rc != GNI_RC_SIZE_ERROR) ||
	    state == GNI_POST_PENDING)
		return;
	priv->listening = false;
	if (state != GNI_POST_COMPLETED)
		return;
	/* The peer knows the spare's mailbox now: it is that peer's. */
	priv->spare = NULL;
	peer = xa_load(&priv->by_pe, pe);
	if (!peer || rc != GNI_RC_SUCCESS) {
		netdev_warn(priv->dev, "datagram from NIC 0x%x refused\n", pe);
		ipogif_conn_free(priv, conn);
		return;
	}
	if (gni_ep_bind(conn->ep, pe, inst) != GNI_RC_SUCCESS ||
	    ipogif_conn_open(priv, peer, conn, &priv->listen_dg)) {
		ipogif_conn_free(priv, conn);
		return;
	}
	ipogif_peer_install(priv, peer, conn);
}

/* @peer's bound datagram ended: connected, or not. */
static void ipogif_connect_ended(struct ipogif_priv *priv,
				 struct ipogif_peer *peer)
{
	struct ipogif_conn *conn = peer->connecting;
	gni_post_state_t state;
	u32 pe, inst;
	gni_return_t rc;

	if (!conn)
		return;
	rc = gni_ep_postdata_test_by_id(conn->ep, IPOGIF_DG_PEER | peer->nid,
					&state, &pe, &inst);
	if ((rc != GNI_RC_SUCCESS && rc != GNI_RC_SIZE_ERROR) ||
	    state == GNI_POST_PENDING)
		return;
	peer->connecting = NULL;
	if (rc == GNI_RC_SUCCESS && state == GNI_POST_COMPLETED &&
	    !ipogif_conn_open(priv, peer, conn, &conn->peer_dg)) {
		ipogif_peer_install(priv, peer, conn);
		return;
	}
	if (state != GNI_POST_TERMINATED)
		netdev_info(priv->dev, "NID %u: no connection (datagram state %d)\n",
			    peer->nid, state);
	ipogif_conn_free(priv, conn);
	ipogif_peer_failed(peer);
}

/*
 * Datagram @id of ours ended: collect it.  False if it is none we know,
 * which nothing collects then.  cm_lock held.
 */
static bool ipogif_dg_ended(struct ipogif_priv *priv, u64 id)
{
	struct ipogif_peer *peer;

	if (id == IPOGIF_DG_LISTEN && priv->listening) {
		ipogif_listen_ended(priv);
		return true;
	}
	if ((id & ~IPOGIF_DG_NID_MASK) != IPOGIF_DG_PEER)
		return false;
	peer = xa_load(&priv->by_nid, id & IPOGIF_DG_NID_MASK);
	if (!peer || !peer->connecting)
		return false;
	ipogif_connect_ended(priv, peer);
	return true;
}

static int ipogif_cm_thread(void *arg)
{
	struct ipogif_priv *priv = arg;
	bool stopping, listening, known;
	gni_return_t rc;
	u64 id;

	while (!kthread_should_stop()) {
		mutex_lock(&priv->cm_lock);
		stopping = priv->cm_stopping;
		if (!stopping && !priv->listening)
			ipogif_listen(priv);
		listening = priv->listening;
		mutex_unlock(&priv->cm_lock);
		if (stopping) {
			set_current_state(TASK_IDLE);
			if (!kthread_should_stop())
				schedule();
			__set_current_state(TASK_RUNNING);
			continue;
		}
		/*
		 * Sleep until a datagram of ours ends; for ever while the
		 * wildcard is posted: kthread_stop() at teardown ends the
		 * wait (the cancelled wildcard is gone, not ended).
		 */
		rc = gni_postdata_probe_wait_by_id(priv->nic,
						   listening ? (u32)-1 :
						   IPOGIF_CM_RETRY_MS, &id);
		if (rc == GNI_RC_SUCCESS) {
			mutex_lock(&priv->cm_lock);
			known = ipogif_dg_ended(priv, id);
			mutex_unlock(&priv->cm_lock);
			if (known)
				continue;
			netdev_warn_once(priv->dev, "datagram 0x%llx is none of ours\n",
					 id);
		} else if (!listening || kthread_should_stop()) {
			continue;	/* the retry interval, or stopped */
		}
		/* Not to spin: a stray datagram, or the device removed */
		schedule_timeout_idle(msecs_to_jiffies(IPOGIF_CM_RETRY_MS));
	}
	return 0;
}

/*
 * RCA says node @nid is unreachable (the supervisor's routes leave it
 * out): its frames and connections go, a bound datagram to it is
 * cancelled, and nothing connects to it until it is back.
 */
static void ipogif_rca_node_down(struct ipogif_priv *priv,
				 struct ipogif_peer *peer)
{
	struct ipogif_conn *dead[IPOGIF_PEER_CONNS];
	unsigned int n;

	mutex_lock(&priv->cm_lock);
	spin_lock_bh(&peer->lock);
	peer->down = true;
	n = ipogif_peer_unlink(peer, true, dead);
	__ipogif_peer_drop_backlog(peer);
	clear_bit(peer->idx, priv->connect_map);
	/* A bound datagram ends as cancelled: ipogif_connect_ended() */
	if (!peer->connecting)
		peer->state = IPOGIF_PEER_IDLE;
	spin_unlock_bh(&peer->lock);
	if (peer->connecting)
		gni_ep_postdata_cancel_by_id(peer->connecting->ep,
					     IPOGIF_DG_PEER | peer->nid);
	ipogif_conns_retire(priv, peer, dead, n, true);
	mutex_unlock(&priv->cm_lock);
}

static void ipogif_rca_event(struct ipogif_priv *priv, const rs_event_t *ev)
{
	u32 nid = RSN_GET_FLD(ev->ev_gen.svid_node.rs_node_flat, NID);
	struct ipogif_peer *peer = xa_load(&priv->by_nid, nid);

	if (!peer)
		return;
	if (ev->ev_id == ec_node_available) {
		atomic_long_inc(&priv->rca_up);
		WRITE_ONCE(peer->down, false);
		netdev_info(priv->dev, "NID %u is reachable again (RCA)\n", nid);
	} else if (ev->ev_id == ec_node_unavailable ||
		   ev->ev_id == ec_node_failed) {
		atomic_long_inc(&priv->rca_down);
		netdev_info(priv->dev, "NID %u is unreachable (RCA): its connections and frames go\n",
			    nid);
		ipogif_rca_node_down(priv, peer);
	}
}

/* Takes RCA's node events until ipogif_rca_stop() */
static int ipogif_rca_thread(void *arg)
{
	struct ipogif_priv *priv = arg;
	rs_event_t ev;

	while (!READ_ONCE(priv->rca_stop) &&
	       krca_wait_event(&priv->rca_ticket) >= 0)
		while (!READ_ONCE(priv->rca_stop) &&
		       !krca_get_message(&priv->rca_ticket, &ev))
			ipogif_rca_event(priv, &ev);
	set_current_state(TASK_IDLE);
	while (!kthread_should_stop()) {
		schedule();
		set_current_state(TASK_IDLE);
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

static const rs_event_code_t ipogif_rca_codes[IPOGIF_RCA_EVENTS] = {
	ec_node_unavailable, ec_node_available, ec_node_failed,
};

/*
 * Register with RCA for the node events, and start the thread that takes
 * them.  Without RCA ipogif still works, with no node events: a warning.
 */
void ipogif_rca_start(struct ipogif_priv *priv)
{
	struct task_struct *t;
	unsigned int i;
	int ret;

	ret = krca_register(&priv->rca_ticket, IPOGIF_RCA_SVC, current->pid, 0);
	if (ret)
		goto fail;
	for (i = 0; i < IPOGIF_RCA_EVENTS; i++) {
		ret = krca_subscribe(&priv->rca_ticket, ipogif_rca_codes[i],
				     RCA_RX_SVC_ANY, &priv->rca_subs[i]);
		if (ret)
			goto fail;
		priv->rca_nsubs++;
	}
	t = kthread_run(ipogif_rca_thread, priv, "ipogif-rca");
	if (IS_ERR(t)) {
		ret = PTR_ERR(t);
		goto fail;
	}
	priv->rca_task = t;
	return;

fail:
	pr_warn("no RCA node events: %d\n", ret);
	ipogif_rca_stop(priv);
}

/* No more RCA events: the thread stopped, the registration gone */
void ipogif_rca_stop(struct ipogif_priv *priv)
{
	unsigned int i;

	if (priv->rca_task) {
		WRITE_ONCE(priv->rca_stop, true);
		krca_wakeup_wait_event(&priv->rca_ticket);
		kthread_stop(priv->rca_task);
		priv->rca_task = NULL;
	}
	for (i = 0; i < priv->rca_nsubs; i++)
		krca_unsubscribe(&priv->rca_ticket, priv->rca_subs[i]);
	priv->rca_nsubs = 0;
	if (priv->rca_ticket != KRCA_NULL_TICKET)
		krca_unregister(&priv->rca_ticket);
}

int ipogif_cm_start(struct ipogif_priv *priv)
{
	struct task_struct *t;

	t = kthread_run(ipogif_cm_thread, priv, "ipogif-cm");
	if (IS_ERR(t))
		return PTR_ERR(t);
	priv->cm_task = t;
	return 0;
}

/*
 * Stop making connections: the wildcard cancelled (which wakes the cm
 * thread), the connect work and the thread gone.  Datagrams still
 * pending go with their endpoints (ipogif_conns_free()).
 */
void ipogif_cm_stop(struct ipogif_priv *priv)
{
	mutex_lock(&priv->cm_lock);
	priv->cm_stopping = true;
	if (priv->listening)
		gni_ep_postdata_cancel_by_id(priv->listen_ep, IPOGIF_DG_LISTEN);
	mutex_unlock(&priv->cm_lock);
	cancel_work_sync(&priv->connect_work);
	kthread_stop(priv->cm_task);
}

/*
 * Free every connection, open or being made, and the frames waiting.
 * Nothing else runs any more: no xmit, no NAPI, no cm thread.
 */
void ipogif_conns_free(struct ipogif_priv *priv)
{
	unsigned int i, c;

	for (i = 0; i < priv->npeers; i++) {
		struct ipogif_peer *peer = &priv->peers[i];

		for (c = 0; c < IPOGIF_PEER_CONNS; c++) {
			ipogif_conn_free(priv, rcu_dereference_protected(peer->conns[c], 1));
			RCU_INIT_POINTER(peer->conns[c], NULL);
		}
		ipogif_conn_free(priv, peer->connecting);
		peer->connecting = NULL;
		peer->tx = NULL;
		peer->state = IPOGIF_PEER_IDLE;
		skb_queue_purge(&peer->backlog);
	}
	ipogif_conn_free(priv, priv->spare);
	priv->spare = NULL;
}
