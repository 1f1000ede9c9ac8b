// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cray-gemini device core: the link control block of each router port.
 *
 * Moves packets over the shared-memory link (uapi/vgemini_link.h) with
 * Gemini's link-level reliability: the receiver checks each packet's
 * CRC-16 and number, acknowledges what arrived intact and asks for the
 * rest again; the sender keeps every unacknowledged packet in its send
 * buffer and goes back to the first one on a request or a timeout.
 * Credits bound what a sender may have in the receiver's input buffer.
 *
 * The fault injector sits on the sending side, between the send buffer
 * and the wire: what it corrupts, drops or delays is the wire copy only,
 * so the link protocol has to recover it.  Its settings and its random
 * numbers are in gemini_fault.c; wire_write() here applies its decision.
 *
 * What arrives intact waits in the router's input buffer of its channel
 * (gemini_router.c); the router returns the credit when it moves on.
 */
#include <string.h>

#include "gemini_core.h"

#define LOAD(p)		__atomic_load_n(&(p), __ATOMIC_ACQUIRE)
#define STORE(p, v)	__atomic_store_n(&(p), (v), __ATOMIC_RELEASE)
#define FENCE()		__atomic_thread_fence(__ATOMIC_SEQ_CST)

#define SLOTS		VGEMINI_LINK_SLOTS
#define RETRY_NS	((uint64_t)VGEMINI_LINK_RETRY_MS * 1000000)
/* Copies of one packet refused before it counts as malformed, not damaged. */
#define BAD_TRIES_MAX	64

/* Sequence numbers wrap: compare by signed difference. */
static inline int32_t seq_diff(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b);
}

static volatile struct vgemini_link_side *me(struct gemini_router_port *p)
{
	return p->link.mine;
}

static const volatile struct vgemini_link_side *
peer(struct gemini_router_port *p)
{
	return p->link.peer;
}

/* --- Sending ------------------------------------------------------------ */

/* Forget every packet of @port's channels, counting what is lost. */
static void lcb_clear(struct gemini_nic *nic, unsigned int port)
{
	struct gemini_router_port *p = &nic->port[port];
	unsigned int c;

	for (c = 0; c < VGEMINI_LINK_CHANS; c++) {
		p->ctr[VGEMINI_PC_DOWN_DROP] +=
			gemini_router_input_flush(nic, port, c) +
			(p->tx[c].next - p->tx[c].acked);
		memset(&p->tx[c], 0, sizeof(p->tx[c]));
		memset(&p->rx[c], 0, sizeof(p->rx[c]));
	}
}

void gemini_lcb_reset(struct gemini_nic *nic, unsigned int port)
{
	struct gemini_router_port *p = &nic->port[port];
	unsigned int c;

	lcb_clear(nic, port);
	p->session_valid = false;
	if (p->link.mine) {
		for (c = 0; c < VGEMINI_LINK_CHANS; c++) {
			STORE(me(p)->rx_epoch[c], 0);
			STORE(me(p)->ack[c], 0);
			STORE(me(p)->freed[c], 0);
			STORE(me(p)->nak[c], 0);
		}
	}
}

/*
 * Both ends' epochs name the session: when either end attaches again or
 * retrains, both see a new session and start their channels afresh, and
 * no slot or acknowledgment of an older session is believed.
 */
static uint32_t lcb_session(struct gemini_router_port *p)
{
	uint64_t x = p->epoch ^ LOAD(peer(p)->epoch);
	uint32_t session = (uint32_t)(x ^ (x >> 32));

	/* Keep every bit (a retrain changes only the low one); 0 is "none". */
	return session ? session : 0x80000000u;
}

static void lcb_new_session(struct gemini_nic *nic, unsigned int port,
			    uint32_t session)
{
	struct gemini_router_port *p = &nic->port[port];
	unsigned int c;

	lcb_clear(nic, port);
	p->session = session;
	p->session_valid = true;
	for (c = 0; c < VGEMINI_LINK_CHANS; c++) {
		STORE(me(p)->ack[c], 0);
		STORE(me(p)->freed[c], 0);
		STORE(me(p)->nak[c], 0);
		STORE(me(p)->rx_epoch[c], session);
	}
	p->kick = true;
}

/* Believe the peer's acknowledgments of our channel @c, if they are ours. */
static void tx_sync(struct gemini_router_port *p, unsigned int c)
{
	const volatile struct vgemini_link_side *pe = peer(p);
	struct gemini_tx_chan *tx = &p->tx[c];
	uint32_t e1, ack, freed, nak, e2;

	e1 = LOAD(pe->rx_epoch[c]);
	ack = LOAD(pe->ack[c]);
	freed = LOAD(pe->freed[c]);
	nak = LOAD(pe->nak[c]);
	e2 = LOAD(pe->rx_epoch[c]);
	if (!p->session_valid || e1 != p->session || e2 != p->session ||
	    LOAD(pe->magic) != VGEMINI_LINK_MAGIC) {
		tx->synced = false;
		return;
	}
	/* A broken peer may publish anything: keep only what can be true. */
	if (seq_diff(ack, tx->acked) < 0 || seq_diff(ack, tx->next) > 0 ||
	    seq_diff(freed, tx->freed) < 0 || seq_diff(freed, ack) > 0)
		return;
	if (!tx->synced) {
		tx->synced = true;
		tx->nak_seen = nak;
	}
	tx->acked = ack;
	tx->freed = freed;
	if (nak != tx->nak_seen) {
		tx->nak_seen = nak;
		if (seq_diff(tx->wire_next, tx->acked) > 0) {
			/* Go back N: everything from the first missing one. */
			p->ctr[VGEMINI_PC_RETRY] += tx->wire_next - tx->acked;
			tx->wire_next = tx->acked;
		}
	}
}

bool gemini_lcb_can_send(struct gemini_nic *nic, unsigned int port,
			 unsigned int chan)
{
	struct gemini_router_port *p = &nic->port[port];
	struct gemini_tx_chan *tx = &p->tx[chan];

	if (!p->link.mine || p->state != VGEMINI_PORT_UP ||
	    gemini_fault_down(nic, port) || !p->session_valid || p->session != lcb_session(p))
		return false;
	tx_sync(p, chan);
	return tx->synced && seq_diff(tx->next, tx->freed) < SLOTS;
}

/* Put packet @seq from the send buffer on the wire, through the injector. */
static bool wire_write(struct gemini_nic *nic, unsigned int port,
		       unsigned int c, uint32_t seq, uint64_t now)
{
	struct gemini_router_port *p = &nic->port[port];
	struct gemini_tx_chan *tx = &p->tx[c];
	unsigned int i = seq % SLOTS;
	volatile struct vgemini_link_slot *slot = &p->link.tx[c][i];
	uint8_t bytes[VGEMINI_LINK_SLOT_DATA];
	uint16_t len = tx->len[i];
	uint64_t delay_ns = 0;
	unsigned int bit = 0;

	memcpy(bytes, tx->buf[i], len);
	switch (gemini_fault_on_wire(nic, port, len,
				     !(tx->delayed_valid &&
				       tx->delayed_seq == seq),
				     &delay_ns, &bit)) {
	case GEMINI_FAULT_DELAY:
		/* The link holds this packet and all behind it for a while. */
		tx->hold_ns = now + delay_ns;
		tx->delayed_seq = seq;
		tx->delayed_valid = true;
		p->ctr[VGEMINI_PC_FAULTS]++;
		return false;
	case GEMINI_FAULT_DROP:
		p->ctr[VGEMINI_PC_FAULTS]++;
		return true;	/* gone on the wire; the sender does not know */
	case GEMINI_FAULT_CORRUPT:
		bytes[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		p->ctr[VGEMINI_PC_FAULTS]++;
		break;
	case GEMINI_FAULT_PASS:
		break;
	}

	/* Odd generation while writing, so a reader can tell a torn copy. */
	tx->gen[i] |= 1;
	STORE(slot->gen, tx->gen[i]);
	FENCE();
	STORE(slot->seq, seq);
	STORE(slot->epoch, p->session);
	STORE(slot->len, len);
	for (unsigned int k = 0; k < len; k++)
		slot->bytes[k] = bytes[k];
	tx->gen[i]++;
	STORE(slot->gen, tx->gen[i]);
	return true;
}

/* Write what the wire may take: new packets and any go-back range. */
static bool tx_pump(struct gemini_nic *nic, unsigned int port,
		    unsigned int c, uint64_t now)
{
	struct gemini_router_port *p = &nic->port[port];
	struct gemini_tx_chan *tx = &p->tx[c];
	bool wrote = false;

	while (seq_diff(tx->wire_next, tx->next) < 0) {
		if (tx->hold_ns && now < tx->hold_ns)
			break;
		tx->hold_ns = 0;
		if (!wire_write(nic, port, c, tx->wire_next, now))
			break;
		tx->wire_next++;
		tx->progress_ns = now;
		wrote = true;
	}
	if (wrote)
		p->kick = true;
	return wrote;
}

/*
 * May the ACK @pkt, just written to @p's link, wait for the neighbour's
 * next poll?  Only if the neighbour is its destination and said it needs
 * no ACK now (vgemini_link.h, acks_lazy: its open sequences are silent):
 * a wake-up per answer of a silent PUT preempted a vCPU on a busy host,
 * and nobody waits for those answers.  The slot is written before the
 * neighbour's word is read, as its change is published before its last
 * look (gemini_port_publish_acks()): one of the two sees the other.
 */
static bool ack_may_wait(const struct gemini_router_port *p,
			 const struct gemini_pkt *pkt)
{
	if (pkt->type != GEMINI_PKT_ACK || p->state != VGEMINI_PORT_UP ||
	    pkt->dst != GEMINI_PE_GEMINI_ID(p->peer))
		return false;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return __atomic_load_n(&p->link.peer->acks_lazy, __ATOMIC_SEQ_CST);
}

void gemini_lcb_send(struct gemini_nic *nic, unsigned int port,
		     const struct gemini_pkt *pkt)
{
	struct gemini_router_port *p = &nic->port[port];
	unsigned int c = VGEMINI_LINK_CHAN(pkt->vc, pkt->vclass);
	struct gemini_tx_chan *tx = &p->tx[c];
	unsigned int i = tx->next % SLOTS;
	uint64_t now = nic->ops->clock_ns(nic->opaque);
	bool kick = p->kick;
	uint32_t wire = tx->wire_next;
	int n;

	n = gemini_pkt_encode(pkt, tx->buf[i], sizeof(tx->buf[i]));
	if (n <= 0) {
		/* The router checked it at injection; count it if not. */
		gemini_nic_count(nic, VGEMINI_NC_MALFORMED, 1);
		return;
	}
	tx->len[i] = (uint16_t)n;
	if (tx->next == tx->acked)
		tx->progress_ns = now;
	tx->next++;
	p->ctr[VGEMINI_PC_TX_PKTS]++;
	tx_pump(nic, port, c, now);
	/* Only this packet went out, and it may wait: no ring for it. */
	if (tx->wire_next == wire + 1 && tx->wire_next == tx->next &&
	    ack_may_wait(p, pkt))
		p->kick = kick;
}

/* --- Receiving ---------------------------------------------------------- */

/*
 * Wake the sender for its credits only when it may be short of them:
 * half its window or more (all it sent, as far as we know, past what it
 * was last woken for) is then waiting on us.  Otherwise acknowledgments
 * and credits wait in the link for its next poll (its own traffic, a
 * packet of ours, its retry timer or its heartbeat): a wake per packet
 * and hop, on a host whose cores the guests keep busy, was what each
 * hop cost most.  A sender that was not asleep reads them anyway before
 * it arms itself.
 */
static void rx_credit_kick(struct gemini_router_port *p, unsigned int c)
{
	struct gemini_rx_chan *rx = &p->rx[c];

	if (rx->freed != rx->told_freed &&
	    rx->ack - rx->told_freed >= SLOTS / 2) {
		rx->told_freed = rx->freed;
		p->kick = true;
	}
}

/* @urgent: a retransmission request, which the sender must see now */
static void rx_publish(struct gemini_router_port *p, unsigned int c,
		       bool urgent)
{
	struct gemini_rx_chan *rx = &p->rx[c];

	STORE(me(p)->ack[c], rx->ack);
	STORE(me(p)->freed[c], rx->freed);
	STORE(me(p)->nak[c], rx->nak);
	if (urgent) {
		rx->told_freed = rx->freed;
		p->kick = true;
	} else {
		rx_credit_kick(p, c);
	}
}

static void rx_nak(struct gemini_router_port *p, unsigned int c)
{
	struct gemini_rx_chan *rx = &p->rx[c];

	if (rx->nak_valid && rx->nak_at == rx->ack)
		return;		/* asked already; the sender's timer covers it */
	rx->nak++;
	rx->nak_at = rx->ack;
	rx->nak_valid = true;
	p->ctr[VGEMINI_PC_NAK]++;
	rx_publish(p, c, true);
}

/* Copy slot @seq of the peer's channel @c; false if not (yet) there. */
static bool rx_copy(struct gemini_router_port *p, unsigned int c, uint32_t seq,
		    uint32_t epoch32, uint8_t *buf, uint16_t *len,
		    uint32_t *gen)
{
	const volatile struct vgemini_link_slot *slot =
		&p->link.rx[c][seq % SLOTS];
	uint32_t g1, g2;
	uint16_t n;

	g1 = LOAD(slot->gen);
	if (g1 & 1 || LOAD(slot->seq) != seq || LOAD(slot->epoch) != epoch32)
		return false;
	n = LOAD(slot->len);
	if (n > VGEMINI_LINK_SLOT_DATA)
		n = VGEMINI_LINK_SLOT_DATA;	/* decode will refuse it */
	/*
	 * The peer may be rewriting the slot: what is copied counts only if
	 * the generation did not move meanwhile (checked below).
	 */
	memcpy(buf, (const uint8_t *)slot->bytes, n);
	FENCE();
	g2 = LOAD(slot->gen);
	if (g1 != g2 || LOAD(slot->seq) != seq)
		return false;
	*len = n;
	*gen = g1;
	return true;
}

static bool rx_chan(struct gemini_nic *nic, unsigned int port,
		    unsigned int c, uint32_t epoch32)
{
	struct gemini_router_port *p = &nic->port[port];
	struct gemini_rx_chan *rx = &p->rx[c];
	struct gemini_pkt *pkt;
	bool progress = false;
	/*
	 * A peer may write slots as fast as it likes, malformed ones that
	 * never fill the queue included: one window's worth per poll.
	 */
	unsigned int budget = SLOTS;

	while (budget-- &&
	       (pkt = gemini_router_input_slot(nic, port, c)) != NULL) {
		uint8_t buf[VGEMINI_LINK_SLOT_DATA];
		uint16_t len;
		uint32_t gen;
		int r;

		if (!rx_copy(p, c, rx->ack, epoch32, buf, &len, &gen)) {
			uint8_t nb[VGEMINI_LINK_SLOT_DATA];
			uint16_t nl;
			uint32_t ng;

			/* A later packet but not this one: it was lost. */
			if (rx_copy(p, c, rx->ack + 1, epoch32, nb, &nl, &ng)) {
				p->ctr[VGEMINI_PC_SEQ_ERR] +=
					!(rx->nak_valid && rx->nak_at == rx->ack);
				rx_nak(p, c);
			}
			break;
		}
		if (rx->bad_valid && rx->bad_gen == gen)
			break;		/* the same bad copy: wait for a new one */
		r = gemini_pkt_decode(buf, len, pkt);
		if (r < 0 && rx->bad_tries < BAD_TRIES_MAX) {
			/*
			 * A flip in a length or type bit fails before the CRC
			 * is looked at: on a link every bad packet is a
			 * corrupted one, sent again until it arrives intact.
			 */
			rx->bad_gen = gen;
			rx->bad_valid = true;
			rx->bad_tries++;
			p->ctr[VGEMINI_PC_CRC_ERR]++;
			rx->nak_valid = false;	/* ask again for this copy */
			rx_nak(p, c);
			break;
		}
		rx->bad_valid = false;
		rx->bad_tries = 0;
		rx->ack++;
		progress = true;
		if (r < 0 || (unsigned int)VGEMINI_LINK_CHAN(pkt->vc, pkt->vclass) != c) {
			/*
			 * The same packet bad every time, or a good packet on
			 * the wrong channel: the sender is broken; drop it.
			 */
			gemini_nic_count(nic, VGEMINI_NC_MALFORMED, 1);
			rx->freed++;
			continue;
		}
		gemini_router_input_push(nic, port, c);
		if (pkt->vc == GEMINI_VC_REQ) {
			p->ctr[VGEMINI_PC_VC0_PHITS] += len / GEMINI_PHIT_BYTES;
			p->ctr[VGEMINI_PC_VC0_PKTS]++;
		} else {
			p->ctr[VGEMINI_PC_VC1_PHITS] += len / GEMINI_PHIT_BYTES;
			p->ctr[VGEMINI_PC_VC1_PKTS]++;
		}
	}
	if (progress)
		rx_publish(p, c, false);
	return progress;
}

void gemini_lcb_freed(struct gemini_nic *nic, unsigned int port,
		      unsigned int chan)
{
	struct gemini_router_port *p = &nic->port[port];

	p->rx[chan].freed++;
	if (p->link.mine) {
		STORE(me(p)->freed[chan], p->rx[chan].freed);
		rx_credit_kick(p, chan);
	}
}

bool gemini_lcb_poll(struct gemini_nic *nic, unsigned int port, uint64_t now,
		     uint64_t *deadline)
{
	struct gemini_router_port *p = &nic->port[port];
	bool progress = false;
	uint32_t session;
	unsigned int c;

	if (!p->link.mine || p->state != VGEMINI_PORT_UP ||
	    gemini_fault_down(nic, port))
		return false;
	session = lcb_session(p);
	if (!p->session_valid || session != p->session) {
		lcb_new_session(nic, port, session);
		progress = true;
	}

	for (c = 0; c < VGEMINI_LINK_CHANS; c++) {
		struct gemini_tx_chan *tx = &p->tx[c];
		uint32_t old_acked = tx->acked, old_freed = tx->freed;

		progress |= rx_chan(nic, port, c, session);

		tx_sync(p, c);
		if (tx->acked != old_acked || tx->freed != old_freed) {
			progress = true;
			tx->progress_ns = now;
		}
		if (tx->acked != tx->next && tx->synced &&
		    seq_diff(tx->wire_next, tx->acked) > 0 &&
		    gemini_elapsed(now, tx->progress_ns) >= RETRY_NS) {
			/* Nothing acknowledged for a while: send it all again. */
			p->ctr[VGEMINI_PC_RETRY] += tx->wire_next - tx->acked;
			tx->wire_next = tx->acked;
		} else if (seq_diff(tx->wire_next, tx->acked) < 0) {
			tx->wire_next = tx->acked;
		}
		if (seq_diff(tx->wire_next, tx->next) < 0)
			progress |= tx_pump(nic, port, c, now);
		/* Unsynced, the peer's doorbell or the heartbeat wakes us. */
		if (tx->acked != tx->next && tx->synced && deadline) {
			uint64_t t = tx->hold_ns ? tx->hold_ns :
				     tx->progress_ns + RETRY_NS;

			if (t < *deadline)
				*deadline = t;
		}
	}
	return progress;
}
