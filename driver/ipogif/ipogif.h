/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ipogif: IP over the Gemini fabric, the ipogif0 network device
 * (Documentation/ipogif.rst), a kernel client of kgni's kernel API built
 * out of tree; of kgni's headers it includes gni_pub.h and krca_lib.h
 * alone.
 *
 *   ipogif_main.c  module parameters, the net device, set-up and teardown
 *   ipogif_conn.c  peers' connections: mailboxes, datagrams, the cm thread,
 *                  RCA's node events
 *   ipogif_tx.c    ndo_start_xmit, broadcast fan-out, per-peer backlogs
 *   ipogif_rx.c    CQ handlers, NAPI: events, short messages into skbs
 *   ipogif_rdma.c  the rendezvous of frames too big for one message: the
 *                  TX and RX pools, the GETs' work, their completions
 *
 * Locks, outermost first: priv->cm_lock (mutex: connection set-up, the cm
 * thread and the connect work), peer->lock (spinlock, BH: a peer's state,
 * its tx connection, its backlog, changes to its set of connections).
 * NAPI reads a peer's connections under RCU and never holds peer->lock
 * while it hands an skb to the stack, which may transmit on the same
 * peer; a connection taken out of the set is freed after a grace period.
 */
#ifndef IPOGIF_H
#define IPOGIF_H

#include <linux/atomic.h>
#include <linux/sizes.h>
#include <linux/bitmap.h>
#include <linux/kthread.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/types.h>
#include <linux/u64_stats_sync.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include <gni_pub.h>
#include <krca_lib.h>

/* The CDM's inst_id, the same on every node: datagrams match on it */
#define IPOGIF_INST		0
/* A connection's short messages: the header before every frame */
#define IPOGIF_MSG_FRAME	1
/* A frame waits in the sender's TX-pool slot: GET it (no data) */
#define IPOGIF_MSG_RDMA_REQ	2
/* The receiver is done with the sender's slot (no data) */
#define IPOGIF_MSG_RDMA_DONE	3

/*
 * The rendezvous's pools: a slot holds one frame; its bytes, and the most
 * slots (module parameter pool).  A slot's name in RDMA_REQ and RDMA_DONE
 * is its index and, above, its use count: a late RDMA_DONE for a slot
 * reclaimed and used again frees nothing.
 */
#define IPOGIF_SLOT_SIZE	SZ_64K
#define IPOGIF_POOL_MAX		1024
#define IPOGIF_SLOT_IDX(s)	((s) & 0xffffu)
#define IPOGIF_SLOT_SEQ(s)	((s) >> 16)
#define IPOGIF_SLOT(idx, seq)	((u32)(seq) << 16 | (idx))
/* The largest MTU: the IPv4 datagram's 65535 less, 16-aligned */
#define IPOGIF_MTU_MAX		65520
/* A rendezvous GET's end is waited for this long at unload */
#define IPOGIF_RDMA_WAIT_MS	5000

/**
 * struct ipogif_hdr - the SMSG header of every message (little-endian)
 * @type: IPOGIF_MSG_FRAME, IPOGIF_MSG_RDMA_REQ or IPOGIF_MSG_RDMA_DONE
 * @flags: 0
 * @rsvd: 0
 * @len: bytes of the Ethernet frame (FRAME: the message's data that
 *	follows; RDMA_REQ: in the slot; RDMA_DONE: 0)
 * @slot: RDMA_REQ: the sender's TX-pool slot; RDMA_DONE: the receiver's
 *	(IPOGIF_SLOT()); FRAME: 0
 * @gen: the sender's load stamp (struct ipogif_priv @gen)
 */
struct ipogif_hdr {
	u8 type;
	u8 flags;
	__le16 rsvd;
	__le32 len;
	__le32 slot;
	__le32 gen;
};

/*
 * A mailbox's handle, once deregistered, is held this long: a peer's
 * late write finds it invalid instead of a new registration's.
 */
#define IPOGIF_MBOX_HOLD_MS	3000

/*
 * RCA's node events: the service ipogif registers as (RCA takes any, and
 * keeps no service of its own for IP)
 */
#define IPOGIF_RCA_SVC		RCA_MAKE_SERVICE_INDEX(RCA_LND_CLASS, 2)
#define IPOGIF_RCA_EVENTS	3

/* Datagrams: the connect message's magic ("IPOG") and version */
#define IPOGIF_DG_MAGIC		0x474f5049u
#define IPOGIF_DG_VERSION	2
#define IPOGIF_DG_CONNECT	1
/* Datagram ids: the wildcard, and a peer's bound post (| its NID) */
#define IPOGIF_DG_LISTEN	0x1000000000ull
#define IPOGIF_DG_PEER		0x2000000000ull
#define IPOGIF_DG_NID_MASK	0xffffffffull

/**
 * struct ipogif_dg - what a datagram carries: a mailbox (little-endian)
 * @magic: IPOGIF_DG_MAGIC
 * @version: IPOGIF_DG_VERSION
 * @type: IPOGIF_DG_CONNECT
 * @credits: the mailbox's mbox_maxcredit
 * @nid: the sender's NID
 * @gen: the sender's load stamp
 * @msg_maxsize: the mailbox's msg_maxsize (both sides must agree)
 * @buff_size: the mailbox's bytes
 * @mbox_offset: the mailbox's offset from @mbox_addr
 * @rsvd: 0
 * @mbox_addr: the mailbox's kernel address on the sender (msg_buffer)
 * @mh: its memory handle's two words
 * @pool_addr: the TX pool's kernel address (0: none)
 * @pool_mh: its memory handle's two words
 * @pool_slots: its slots
 * @slot_size: a slot's bytes (IPOGIF_SLOT_SIZE)
 */
struct ipogif_dg {
	__le32 magic;
	u8 version;
	u8 type;
	__le16 credits;
	__le32 nid;
	__le32 gen;
	__le32 msg_maxsize;
	__le32 buff_size;
	__le32 mbox_offset;
	__le32 rsvd;
	__le64 mbox_addr;
	__le64 mh[2];
	__le64 pool_addr;
	__le64 pool_mh[2];
	__le32 pool_slots;
	__le32 slot_size;
};

/**
 * struct ipogif_conn - one SMSG connection to a peer
 * @ep: its endpoint (local events on the TX CQ)
 * @mbox: the mailbox the peer writes into (kvzalloc'd)
 * @mh: @mbox's registration (remote events on the RX CQ)
 * @attr: @mbox's attributes, what our datagram tells the peer
 * @peer_dg: the peer's datagram, filled when ours completes
 * @peer_gen: the peer's load stamp, from its datagram
 * @seq: the order in which the device's connections opened
 * @pool_addr: the peer's TX pool, from its datagram (0: none)
 * @pool_mh: its memory handle
 * @pool_slots: its slots
 * @slot_size: a slot's bytes
 * @open: gni_smsg_init() done: NAPI may read it
 * @broken: its messages failed past max_retrans (a send refused, a read
 *	refused): it goes at the connect work's next run
 */
struct ipogif_conn {
	gni_ep_handle_t ep;
	void *mbox;
	gni_mem_handle_t mh;
	gni_smsg_attr_t attr;
	struct ipogif_dg peer_dg;
	u32 peer_gen;
	u64 pool_addr;
	gni_mem_handle_t pool_mh;
	u32 pool_slots;
	u32 slot_size;
	unsigned long seq;
	bool open;
	bool broken;
};

enum ipogif_peer_state {
	IPOGIF_PEER_IDLE,	/* no connection, none being made */
	IPOGIF_PEER_CONNECTING,	/* a bound datagram posted or to be */
	IPOGIF_PEER_UP,		/* frames go out on @tx */
};

/* Connections per peer: one each way if both sides connected at once */
#define IPOGIF_PEER_CONNS	2

/**
 * struct ipogif_peer - another node
 * @priv: the device
 * @idx: its place in priv->peers (the bitmaps' bit)
 * @nid: its NID
 * @pe: its NIC address
 * @lock: @state, @tx, @backlog, changes to @conns (BH)
 * @state: enum ipogif_peer_state
 * @tx: the connection frames go out on, once UP: the last opened that is
 *	not broken
 * @backlog: frames waiting for the connection or for credits
 * @conns: its open connections, read by NAPI under RCU
 * @connecting: our bound datagram's connection (cm_lock)
 * @peer_gen: the load stamp of the peer's module that @conns lead to
 * @down: RCA says it is unreachable: no frame for it, no connection to
 *	it, until RCA says it is back or a datagram of it completes
 * @rdma_ep: the endpoint our rendezvous GETs from it go on (bound at
 *	load, events on priv->rdma_cq)
 */
struct ipogif_peer {
	struct ipogif_priv *priv;
	unsigned int idx;
	u32 nid;
	u32 pe;
	spinlock_t lock;	/* see above */
	enum ipogif_peer_state state;
	struct ipogif_conn *tx;
	struct sk_buff_head backlog;
	struct ipogif_conn __rcu *conns[IPOGIF_PEER_CONNS];
	struct ipogif_conn *connecting;
	u32 peer_gen;
	bool down;
	gni_ep_handle_t rdma_ep;
};

/**
 * struct ipogif_tx_slot - a TX-pool slot (priv->pool_lock)
 * @peer: the peer it went to, NULL while free
 * @conn: the connection its RDMA_REQ went on: its retirement frees it
 * @seq: its use count (IPOGIF_SLOT())
 */
struct ipogif_tx_slot {
	struct ipogif_peer *peer;
	struct ipogif_conn *conn;
	u16 seq;
};

/**
 * struct ipogif_rdv - an RDMA_REQ received, its GET not posted yet
 * @list: in priv->rdv_pending
 * @peer: the sender
 * @slot: the sender's slot (IPOGIF_SLOT())
 * @len: the frame's bytes
 * @addr: the slot's address in the sender's TX pool
 * @mh: the sender's TX pool's handle
 */
struct ipogif_rdv {
	struct list_head list;
	struct ipogif_peer *peer;
	u32 slot;
	u32 len;
	u64 addr;
	gni_mem_handle_t mh;
};

/**
 * struct ipogif_rx_slot - an RX-pool slot, a GET's destination
 * @desc: the GET (post_id: the slot's index)
 * @peer: the sender
 * @slot: the sender's slot (IPOGIF_SLOT())
 * @len: the frame's bytes
 */
struct ipogif_rx_slot {
	gni_post_descriptor_t desc;
	struct ipogif_peer *peer;
	u32 slot;
	u32 len;
};

/* The counters of ndo_get_stats64 (ip -s link) */
enum ipogif_stat {
	IPOGIF_RX_PACKETS,
	IPOGIF_RX_BYTES,
	IPOGIF_TX_PACKETS,
	IPOGIF_TX_BYTES,
	IPOGIF_RX_DROPPED,
	IPOGIF_TX_DROPPED,
	IPOGIF_RX_ERRORS,
	IPOGIF_TX_ERRORS,
	IPOGIF_NSTATS,
};

/* Per CPU */
struct ipogif_stats {
	u64_stats_t c[IPOGIF_NSTATS];
	struct u64_stats_sync syncp;
};

/**
 * struct ipogif_priv - the device (netdev_priv of ipogif0)
 * @dev: the net device
 * @cdm: the communication domain (ptag, cookie, IPOGIF_INST)
 * @nic: @cdm attached to the kgni device
 * @pe: this node's NIC address
 * @nid: this node's NID
 * @gen: a random stamp of this load, in every message and datagram
 * @msg_maxsize: the mailboxes' msg_maxsize (module parameter smsg_max)
 * @credits: the mailboxes' mbox_maxcredit
 * @mbox_size: one mailbox's bytes (gni_smsg_buff_size_needed())
 * @tx_cq: the local events of every connection's sends
 * @rx_cq: the remote events of every mailbox
 * @peers: every other node, in the order RCA lists them
 * @npeers: their number
 * @by_nid: NID -> peer
 * @by_pe: NIC address -> peer
 * @stats: per-CPU counters
 * @napi: receive, event taking and backlog flushing
 * @rx_pending: peers whose mailboxes may hold messages (NAPI only)
 * @backlogged: UP peers with frames waiting for credits
 * @flush_timer: while some peer is backlogged, NAPI again in a jiffy
 * @cm_lock: connection set-up
 * @cm_task: the cm thread (datagrams that end)
 * @cm_stopping: teardown has begun: post nothing more (cm_lock)
 * @listen_ep: the wildcard datagram's endpoint
 * @spare: the connection the wildcard offers (cm_lock)
 * @listening: the wildcard is posted (cm_lock)
 * @listen_dg: the wildcard's received datagram
 * @connect_work: retires the broken connections of peers in @retire_map,
 *	posts bound datagrams for peers in @connect_map
 * @connect_map: peers that want a connection made
 * @retire_map: peers with a broken connection
 * @conn_seq: connections opened (cm_lock)
 * @polls: NAPI polls (debugfs)
 * @flushes: flush timer expiries (debugfs)
 * @no_credit: sends that found no credit (debugfs)
 * @no_room: sends refused for want of a tid or FMA room (debugfs)
 * @broke: connections found broken (debugfs)
 * @retired: connections closed before unload: broken, replaced by a new
 *	load of the peer's module, or the oldest of too many (debugfs)
 * @rca_ticket: the RCA registration (KRCA_NULL_TICKET: none)
 * @rca_subs: its subscriptions to the node events
 * @rca_nsubs: their number
 * @rca_task: the thread that takes RCA's events
 * @rca_stop: teardown has begun: take no more
 * @rca_down: node events "unavailable" or "failed" taken (debugfs)
 * @rca_up: node events "available" taken (debugfs)
 * @inline_max: the largest frame that goes inline (in one message)
 * @pool: the pools' slots (module parameter pool; 0: no rendezvous)
 * @rdma_cq: the local events of the rendezvous GETs
 * @tx_pool: the frames sent by rendezvous, a slot each (registered)
 * @tx_pool_mh: its handle, in our datagrams
 * @tx_slots: its slots' owners
 * @tx_free: indexes of its free slots, a stack of @tx_nfree
 * @tx_nfree: its free slots
 * @pool_lock: @tx_slots, @tx_free, @tx_nfree, the queue's stop (BH)
 * @rx_pool: the GETs' destinations (registered)
 * @rx_pool_mh: its handle
 * @rx_slots: its slots
 * @rx_free: indexes of its free slots, a stack of @rx_nfree
 * @rx_nfree: its free slots
 * @rdma_lock: @rx_free, @rx_nfree, @rdv_pending, @rdma_stopping (BH)
 * @rdv_pending: RDMA_REQs waiting for an RX slot or for the work
 * @rdma_work: posts the GETs (process context: gni_post_rdma() sleeps)
 * @rdma_stopping: unload: post nothing more
 * @rdma_inflight: GETs posted whose end is not taken
 * @rdv_tx: frames sent by rendezvous (debugfs)
 * @rdv_rx: frames received by rendezvous (debugfs)
 * @rdv_no_slot: sends that found the TX pool empty (debugfs)
 * @rdv_busy: GETs refused for want of resources, retried (debugfs)
 * @rdv_failed: GETs refused or ended in error: frame dropped (debugfs)
 * @rdv_reclaimed: TX slots freed by a connection's retirement (debugfs)
 * @debugfs: debugfs ipogif/
 */
struct ipogif_priv {
	struct net_device *dev;
	gni_cdm_handle_t cdm;
	gni_nic_handle_t nic;
	u32 pe;
	u32 nid;
	u32 gen;
	u32 msg_maxsize;
	u16 credits;
	unsigned int mbox_size;
	gni_cq_handle_t tx_cq;
	gni_cq_handle_t rx_cq;
	struct ipogif_peer *peers;
	unsigned int npeers;
	struct xarray by_nid;
	struct xarray by_pe;
	struct ipogif_stats __percpu *stats;
	struct napi_struct napi;
	unsigned long *rx_pending;
	unsigned long *backlogged;
	struct timer_list flush_timer;
	struct mutex cm_lock;	/* see above */
	struct task_struct *cm_task;
	bool cm_stopping;
	gni_ep_handle_t listen_ep;
	struct ipogif_conn *spare;
	bool listening;
	struct ipogif_dg listen_dg;
	struct work_struct connect_work;
	unsigned long *connect_map;
	unsigned long *retire_map;
	unsigned long conn_seq;
	atomic_long_t polls;
	atomic_long_t flushes;
	atomic_long_t no_credit;
	atomic_long_t no_room;
	atomic_long_t broke;
	atomic_long_t retired;
	krca_ticket_t rca_ticket;
	rca_ticket_t rca_subs[IPOGIF_RCA_EVENTS];
	unsigned int rca_nsubs;
	struct task_struct *rca_task;
	bool rca_stop;
	atomic_long_t rca_down;
	atomic_long_t rca_up;
	u32 inline_max;
	u32 pool;
	gni_cq_handle_t rdma_cq;
	void *tx_pool;
	gni_mem_handle_t tx_pool_mh;
	struct ipogif_tx_slot *tx_slots;
	u16 *tx_free;
	u32 tx_nfree;
	spinlock_t pool_lock;	/* see above */
	void *rx_pool;
	gni_mem_handle_t rx_pool_mh;
	struct ipogif_rx_slot *rx_slots;
	u16 *rx_free;
	u32 rx_nfree;
	spinlock_t rdma_lock;	/* see above */
	struct list_head rdv_pending;
	struct delayed_work rdma_work;
	bool rdma_stopping;
	atomic_t rdma_inflight;
	atomic_long_t rdv_tx;
	atomic_long_t rdv_rx;
	atomic_long_t rdv_no_slot;
	atomic_long_t rdv_busy;
	atomic_long_t rdv_failed;
	atomic_long_t rdv_reclaimed;
	struct dentry *debugfs;
};

/* An skb of ours with no data is an RDMA_DONE: its slot */
struct ipogif_cb {
	u32 slot;
};

#define IPOGIF_CB(skb)	((struct ipogif_cb *)(skb)->cb)

/* Module parameters read outside ipogif_main.c */
extern unsigned int ipogif_backlog;

/*
 * Add @n to this CPU's counter @stat; BH or preemption off (the softirqs,
 * or a spin_lock_bh() section).
 */
static inline void ipogif_count(struct ipogif_priv *priv,
				enum ipogif_stat stat, u64 n)
{
	struct ipogif_stats *s = this_cpu_ptr(priv->stats);

	u64_stats_update_begin(&s->syncp);
	u64_stats_add(&s->c[stat], n);
	u64_stats_update_end(&s->syncp);
}

/* A packet of @bytes on @packets (RX or TX), whose bytes counter follows */
static inline void ipogif_count_packet(struct ipogif_priv *priv,
				       enum ipogif_stat packets, u64 bytes)
{
	struct ipogif_stats *s = this_cpu_ptr(priv->stats);

	u64_stats_update_begin(&s->syncp);
	u64_stats_inc(&s->c[packets]);
	u64_stats_add(&s->c[packets + 1], bytes);
	u64_stats_update_end(&s->syncp);
}

/* ipogif_conn.c */
int ipogif_cm_start(struct ipogif_priv *priv);
void ipogif_cm_stop(struct ipogif_priv *priv);
void ipogif_conns_free(struct ipogif_priv *priv);
void ipogif_connect_work(struct work_struct *work);
void ipogif_rca_start(struct ipogif_priv *priv);
void ipogif_rca_stop(struct ipogif_priv *priv);

/* ipogif_tx.c */
netdev_tx_t ipogif_start_xmit(struct sk_buff *skb, struct net_device *dev);
void ipogif_send_done(struct ipogif_peer *peer, u32 slot);
void ipogif_peer_flush(struct ipogif_peer *peer);
void ipogif_conn_broke(struct ipogif_peer *peer, struct ipogif_conn *conn);
void __ipogif_peer_drop_backlog(struct ipogif_peer *peer);
void ipogif_peer_drop_backlog(struct ipogif_peer *peer);
void ipogif_flush_timer(struct timer_list *t);

/* ipogif_rx.c */
void ipogif_cq_handler(u32 device_id, u64 data);
int ipogif_poll(struct napi_struct *napi, int budget);

/* ipogif_rdma.c */
int ipogif_rdma_init(struct ipogif_priv *priv);
void ipogif_rdma_stop(struct ipogif_priv *priv);
void ipogif_rdma_fini(struct ipogif_priv *priv);
void ipogif_rdma_work(struct work_struct *work);
int ipogif_tx_slot_get(struct ipogif_priv *priv, struct ipogif_peer *peer,
		       struct ipogif_conn *conn, u32 *slot);
void ipogif_tx_slot_put(struct ipogif_priv *priv, u32 slot);
void ipogif_tx_slot_done(struct ipogif_priv *priv, struct ipogif_peer *peer,
			 u32 slot);
void ipogif_tx_slots_release(struct ipogif_priv *priv,
			     struct ipogif_conn *conn, struct ipogif_conn *to);
void ipogif_rdv_req(struct ipogif_priv *priv, struct ipogif_peer *peer,
		    struct ipogif_conn *conn, u32 slot, u32 len);
int ipogif_rdma_events(struct ipogif_priv *priv);

#endif /* IPOGIF_H */
