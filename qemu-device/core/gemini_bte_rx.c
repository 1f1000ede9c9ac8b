// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cray-gemini device core: the BTE's channel semantics at the target:
 * SEND messages into the RX buffers the kernel pre-posted.
 *
 * A SEND arrives as pieces (GEMINI_PKT_SEND, gemini_pkt.h): amo_op names
 * the RX channel, mdh the message's sequence number at its source.  The
 * first piece of a message takes the RX descriptor at the channel's read
 * index, if the kernel posted one (the write index is past it), and the
 * channel keeps the message as one of its entries, keyed by source node,
 * channel and sequence, until its end arrives.  Each data piece is
 * written at its offset into the descriptor's buffer only if it fits the
 * channel's buf_size: a message never writes past its buffer, whatever
 * OVRPROTECT says.  The end (GEMINI_PKT_F_LAST) writes the CPU copy of
 * the descriptor (its address, COMPLETE and IMM_AVAILABLE, the length,
 * the immediate data) and raises the channel's interrupt if both the
 * descriptor and the channel ask for it.
 *
 * Answers: OK; SSID_STATE (0xc, RX_DESC_VC_INV) from a disabled channel;
 * NPES (0xe, "BTE/RX send miss") when no descriptor is posted, every
 * entry is taken, or an end or a piece comes for no message; OVERRUN
 * (0xf) for a piece past the buffer; HT_DATA when the bus refuses.  A
 * message that fails is completed at once with the error status in its
 * flags; its later pieces get the same answer.  A message whose end never
 * comes (its source died) is completed with TIMEOUT after twice the
 * request timeout.
 *
 * An RX descriptor names a physical buffer and the channel has no
 * protection tag: SEND is the kernel's, since only the kernel writes TX
 * descriptors.
 */
#include <string.h>

#include "gemini_core.h"
#include "gemini_reg.h"

#define STALE_NS	(2 * (uint64_t)GEMINI_FMA_TIMEOUT_MS * 1000000)

/* Entries channel @ch may use: rmt_entries, 0 meaning all of them. */
static unsigned int rx_entries(const struct gemini_nic *nic, unsigned int ch)
{
	unsigned int n = (unsigned int)gemini_field(nic->bte.rxc.qw[ch][2],
						    GEMINI_BTE_RXC_RMT_SHIFT,
						    GEMINI_BTE_RXC_RMT_MASK);

	return n && n < GEMINI_BTE_RX_MSGS ? n : GEMINI_BTE_RX_MSGS;
}

/*
 * Write the CPU copy of message @m's descriptor: done, with @status (OK
 * or an error in the flags), @len bytes and immediate data @imm if @has_imm.
 */
static void rx_complete(struct gemini_nic *nic, unsigned int ch,
			const struct gemini_bte_rx_msg *m, unsigned int status,
			uint64_t len, bool has_imm, uint64_t imm)
{
	const struct gemini_bte *b = &nic->bte;
	unsigned int base = gemini_bte_ring(b->rxc.ring_base, ch);
	uint64_t copy = b->rxc.qw[ch][1] +
			(uint64_t)(m->slot - base) * GEMINI_BTE_RX_COPY_BYTES;
	uint64_t flags = GEMINI_BTE_RX_FLAG_COMPLETE |
			 (has_imm ? GEMINI_BTE_RX_FLAG_IMM : 0) |
			 (uint64_t)status << GEMINI_BTE_RX_ERR_STATUS_SHIFT;
	uint8_t le[32];

	vgemini_put_le64(le, b->rx[m->slot]);
	vgemini_put_le64(le + 8, flags | len << GEMINI_BTE_RXCPY_LEN_SHIFT);
	vgemini_put_le64(le + 16, imm);
	/* The source as the network saw it: a kernel trusts no other. */
	vgemini_put_le64(le + 24, GEMINI_BTE_RXCPY_SRC_VALID |
			 GEMINI_PE(m->src, m->src_nic));
	/*
	 * QW1, QW3 and QW4 first, a qword each: a kernel that sees COMPLETE
	 * finds them.
	 */
	if (gemini_dma_write(nic, copy + 16, le + 16, 8) ||
	    gemini_dma_write(nic, copy + 24, le + 24, 8) ||
	    gemini_dma_write(nic, copy, le, 8) ||
	    gemini_dma_write(nic, copy + 8, le + 8, 8)) {
		GEMINI_GUEST_ERROR(nic, BTE_CPU_COPY, ch, m->slot, copy);
		return;
	}
	if (gemini_field(b->rx[m->slot], GEMINI_BTE_RX_MODE_SHIFT, 0xffff) &
	    GEMINI_BTE_RX_IRQ_ENABLE)
		gemini_bte_chan_irq(nic, GEMINI_BTE_DIR_RX, ch);
}

static struct gemini_bte_rx_msg *rx_find(struct gemini_nic *nic,
					 unsigned int ch,
					 const struct gemini_pkt *req)
{
	unsigned int i;

	for (i = 0; i < GEMINI_BTE_RX_MSGS; i++) {
		struct gemini_bte_rx_msg *m = &nic->bte.rx_msg[ch][i];

		if (m->used && m->src == req->src &&
		    m->src_nic == req->src_nic && m->seq == req->mdh)
			return m;
	}
	return NULL;
}

/* A new message: its entry and the next posted descriptor, or NULL. */
static struct gemini_bte_rx_msg *rx_take(struct gemini_nic *nic,
					 unsigned int ch,
					 const struct gemini_pkt *req,
					 uint64_t now)
{
	struct gemini_bte *b = &nic->bte;
	unsigned int base = gemini_bte_ring(b->rxc.ring_base, ch);
	unsigned int count = gemini_bte_ring(b->rxc.ring_count, ch);
	unsigned int rd = (unsigned int)(b->rxc.qw[ch][2] &
					 GEMINI_BTE_RXC_RD_MASK);
	unsigned int wr = (unsigned int)(b->rxc.qw[ch][3] &
					 GEMINI_BTE_WR_INDEX_MASK);
	unsigned int i, used = 0, free_i = GEMINI_BTE_RX_MSGS;
	struct gemini_bte_rx_msg *m;

	for (i = 0; i < GEMINI_BTE_RX_MSGS; i++) {
		if (b->rx_msg[ch][i].used)
			used++;
		else if (free_i == GEMINI_BTE_RX_MSGS)
			free_i = i;
	}
	if (rd == wr || !count || used >= rx_entries(nic, ch))
		return NULL;
	m = &b->rx_msg[ch][free_i];
	memset(m, 0, sizeof(*m));
	m->used = true;
	m->src = req->src;
	m->src_nic = req->src_nic;
	m->seq = req->mdh;
	m->slot = (uint16_t)(base + rd % count);
	m->since = now;
	b->rxc.qw[ch][2] = (b->rxc.qw[ch][2] & ~GEMINI_BTE_RXC_RD_MASK) |
			   (rd + 1) % count;
	return m;
}

unsigned int gemini_bte_rx_deliver(struct gemini_nic *nic,
				   const struct gemini_pkt *req)
{
	unsigned int ch = req->amo_op;
	uint64_t now = nic->ops->clock_ns(nic->opaque);
	uint64_t buf_size, buf;
	struct gemini_bte_rx_msg *m;
	bool last = req->flags & GEMINI_PKT_F_LAST;

	if (ch >= GEMINI_NUM_BTE_VC ||
	    !gemini_bte_chan_enabled(nic, GEMINI_BTE_DIR_RX, ch))
		return GEMINI_STATUS_SSID_STATE;
	m = rx_find(nic, ch, req);
	if (!m && !last)
		m = rx_take(nic, ch, req, now);
	if (!m)
		return GEMINI_STATUS_NPES;
	m->since = now;
	if (m->status) {
		if (last)
			m->used = false;
		return m->status;
	}
	buf_size = gemini_field(nic->bte.rxc.qw[ch][0], 0,
				GEMINI_BTE_RXC_BUF_SIZE_MASK);
	if (last) {
		/* The end: its length as the source counted it */
		if (req->addr > buf_size) {
			m->status = GEMINI_STATUS_OVERRUN;
			rx_complete(nic, ch, m, m->status, 0, false, 0);
			m->used = false;
			return GEMINI_STATUS_OVERRUN;
		}
		rx_complete(nic, ch, m, GEMINI_STATUS_OK, req->addr,
			    req->len == GEMINI_AMO_OPERAND_BYTES,
			    req->len ? vgemini_get_le64(req->data) : 0);
		m->used = false;
		return GEMINI_STATUS_OK;
	}
	buf = nic->bte.rx[m->slot] & GEMINI_BTE_RX_ADDR_MASK;
	if (req->addr > buf_size || req->len > buf_size - req->addr)
		m->status = GEMINI_STATUS_OVERRUN;
	else if (gemini_dma_write(nic, buf + req->addr, req->data, req->len))
		m->status = GEMINI_STATUS_HT_DATA;
	if (m->status)
		rx_complete(nic, ch, m, m->status, 0, false, 0);
	return m->status;
}

bool gemini_bte_rx_poll(struct gemini_nic *nic, uint64_t now,
			uint64_t *deadline)
{
	bool progress = false;
	unsigned int ch, i;

	for (ch = 0; ch < GEMINI_NUM_BTE_VC; ch++)
		for (i = 0; i < GEMINI_BTE_RX_MSGS; i++) {
			struct gemini_bte_rx_msg *m = &nic->bte.rx_msg[ch][i];
			uint64_t end = m->since + STALE_NS;

			if (!m->used)
				continue;
			if (now < end) {
				if (end < *deadline)
					*deadline = end;
				continue;
			}
			/* Its source went quiet: the message ends here. */
			if (!m->status &&
			    gemini_bte_chan_enabled(nic, GEMINI_BTE_DIR_RX, ch))
				rx_complete(nic, ch, m, GEMINI_STATUS_TIMEOUT,
					    0, false, 0);
			m->used = false;
			progress = true;
		}
	return progress;
}

void gemini_bte_rx_reset(struct gemini_nic *nic, unsigned int ch)
{
	memset(nic->bte.rx_msg[ch], 0, sizeof(nic->bte.rx_msg[ch]));
}
