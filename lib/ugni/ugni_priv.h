/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * libugni internals.  The CQ entry's hardware fields (overrun, status,
 * source, 56-bit data) come from uapi/gemini_nic.h; the software fields
 * inside the data (event type, inst_id or msg_id, tid), the SMSG mailbox
 * and the CQ error names are uapi/gni_wire.h's, which kGNI's kernel API
 * shares.  A post's event data (FMA: the sync-complete data; RDMA: the
 * BTE's user_data, and its src_cq_data, the same with
 * UGNI_CQE_LOCAL_FLAG) carries the sender's remote_event in the inst_id
 * bits; the local event gets the endpoint's local_event there when
 * GNI_CqGetEvent hands it out (looked up by tid).
 *
 * Objects (Documentation/ugni.rst "Implementation"):
 *   gni_cdm   what GNI_CdmCreate recorded; attached once, to one NIC;
 *   gni_nic   one open /dev/kgniN attached to the CDM's domain: its
 *             request table, CQs and FMA descriptors;
 *   gni_cq    a kgni CQ with its ring and user page mapped;
 *   ugni_fma  a kgni FMA descriptor with its pages mapped; one per source
 *             CQ, since the descriptor's CQ is a privileged field;
 *   gni_ep    a peer (PE, inst_id) and the FMA of its CQ; RDMA posts go
 *             through KGNI_IOC_RDMA_POST, each to a BTE descriptor; and
 *             its one datagram (ugni_dgram.c), named to the kernel by a
 *             key of its own.
 */
#ifndef UGNI_PRIV_H
#define UGNI_PRIV_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "gemini_mh.h"
#include "gemini_nic.h"
#include "gni_pub.h"
#include "gni_wire.h"

#define UGNI_EXPORT __attribute__((visibility("default")))

/* Request table: tids 0..UGNI_MAX_REQS - 1; UGNI_TID_NONE has no post. */
#define UGNI_MAX_REQS		UGNI_TID_NONE

#define UGNI_PAGE		4096

/* Sequences one FMA descriptor keeps open before the library waits. */
#define UGNI_FMA_MAX_OPEN	32
/* Requests in flight one descriptor allows itself (the ORB has 512). */
#define UGNI_FMA_MAX_REQS	48
#define UGNI_FMA_CHECK_EVERY	16
/* The NIC merges a 64-byte line of stores to the PUT-WC window */
#define UGNI_WC_LINE		64u

/* A datagram posted without an id (uGNI's datagram_id -1) */
#define UGNI_DGRAM_NO_ID	UINT64_MAX

struct gni_cq;
struct ugni_fma;

/*
 * A post waiting for its events.  @want: the GNI_CQMODE_LOCAL_EVENT and
 * GLOBAL_EVENT bits it waits for, each its own event (RDMA); 0 when its
 * one event completes it whatever it asked for (FMA, CQ write).  @seen:
 * those that came.
 */
struct ugni_req {
	gni_post_descriptor_t *desc;
	struct gni_ep *ep;
	uint32_t local_event;		/* SMSG: its msg_id */
	uint16_t want;
	uint16_t seen;
	bool used;
	uint64_t smsg_seq;		/* SMSG: the message; 0: a post */
	unsigned int smsg_tries;	/* SMSG: times it was sent again */
	struct msgq_tx *msgq;		/* MSGQ: the send (ugni_msgq.c) */
};

/*
 * An endpoint's SMSG connection (ugni_smsg.c): its own mailbox, where the
 * peer writes, and the place of the peer's, where it writes.
 */
struct ugni_smsg {
	pthread_mutex_t lock;		/* everything below */
	uint8_t *mbox;			/* my mailbox: credit word, slots */
	uint32_t rx_slots;		/* its slots (my mbox_maxcredit) */
	uint32_t tx_slots;		/* the peer's mailbox's slots */
	uint32_t slot;			/* bytes per slot */
	uint32_t maxsize;		/* msg_maxsize */
	uint32_t rem_mdh;		/* the peer's mailbox registration */
	uint64_t roff;			/* its mailbox's offset in it */
	uint32_t loc_mdh;		/* my mailbox's registration */
	uint64_t loff;			/* my mailbox's offset in it */
	uint32_t starved;		/* sends refused for credit in a row */
	uint64_t sent;			/* messages sent: the last seq */
	uint64_t received;		/* messages released */
	uint8_t *copies;		/* a slot image per message in flight */
	bool current;			/* GetNext handed one out */
	bool retransmit;		/* MBOX_AUTO_RETRANSMIT */
	bool broken;
};

/*
 * An endpoint's datagram, from its post until a test collects it (the
 * kernel keeps one per key until then): on nic->dgrams while @active.
 * The kernel writes the peer's data into @out_buf only when a test hands
 * it the buffer, so the library remembers it.  @seq tells this post from
 * a later one of the same endpoint.
 */
struct ugni_dgram {
	struct ugni_dgram *next;
	uint64_t key;			/* the kernel's ep_key; 0: none yet */
	uint64_t id;			/* datagram_id, or UGNI_DGRAM_NO_ID */
	uint64_t seq;
	void *out_buf;
	uint16_t buf_size;
	uint32_t peer_pe;		/* bound: the only peer it matches */
	uint32_t peer_inst;
	bool bound;
	bool active;
};

/* A registration that delivers remote events to a CQ */
struct ugni_mreg {
	struct ugni_mreg *next;
	gni_mem_handle_t hndl;
	struct gni_cq *cq;
};

struct gni_nic {
	int fd;
	uint32_t pe;
	uint8_t ptag;
	uint32_t cookie;
	uint32_t inst_id;
	uint32_t modes;
	struct gni_cdm *cdm;
	pthread_mutex_t lock;		/* tables below, object lists */
	struct ugni_req *req;		/* UGNI_MAX_REQS entries */
	uint16_t *free_tid;		/* stack of free tids */
	uint32_t nfree;
	struct ugni_fma *fmas;
	struct gni_cq *cqs;
	struct gni_cq *null_cq;		/* for endpoints made without a CQ */
	uint32_t mem_count;		/* registrations held */
	struct ugni_mreg *mregs;
	struct ugni_dgram *dgrams;	/* datagrams not collected */
	uint64_t dgram_keys;		/* keys given out */
	uint64_t dgram_seq;		/* datagrams posted */
	uint16_t smsg_dlvr_mode;	/* GNI_SmsgSetDeliveryMode */
	uint16_t smsg_max_retrans;	/* GNI_SmsgSetMaxRetrans */
	uint32_t stats[GNI_NUM_STATS];	/* GNI_GetNicStat, atomically */
};

/* Count one of statistic @stat of @nic (GNI_GetNicStat) */
static inline void ugni_stat(struct gni_nic *nic, gni_statistic_t stat)
{
	__atomic_add_fetch(&nic->stats[stat], 1, __ATOMIC_RELAXED);
}

struct gni_cdm {
	uint32_t inst_id;
	uint8_t ptag;
	uint32_t cookie;
	uint32_t modes;
	struct gni_nic *nic;
};

struct gni_cq {
	struct gni_nic *nic;
	struct gni_cq *next;
	uint32_t id;
	uint32_t entries;		/* ring slots */
	uint32_t rd;			/* next slot to read */
	gni_cq_mode_t mode;
	volatile uint64_t *ring;
	size_t ring_size;
	volatile uint64_t *user;	/* rd_index / wr_index page */
	void (*handler)(gni_cq_entry_t *, void *);
	void *context;
	pthread_mutex_t lock;		/* consumers */
	uint32_t ep_refs;
	uint32_t mem_refs;		/* registrations delivering here */
	uint32_t irq_mask;
	bool internal;
};

struct ugni_fma {
	struct ugni_fma *next;
	struct gni_cq *cq;
	uint32_t id;
	uint32_t ep_refs;
	size_t window;
	volatile uint64_t *user;	/* control page (user alias) */
	volatile uint8_t *put;		/* PUT window, write-combining */
	volatile uint8_t *get;		/* GET window */
	pthread_mutex_t lock;		/* one post at a time */
	uint64_t qw1, qw2;		/* what the descriptor holds */
	bool shadow_valid;
};

struct gni_ep {
	struct gni_nic *nic;
	struct gni_cq *cq;
	struct ugni_fma *fma;
	uint32_t remote_pe;
	uint32_t remote_id;
	uint32_t local_event;
	uint32_t remote_event;
	uint32_t outstanding;		/* posts not yet completed */
	bool bound;
	struct ugni_dgram dgram;	/* nic->lock */
	struct ugni_smsg *smsg;		/* nic->lock; NULL until SmsgInit */
};

/* ugni_info.c */
uint8_t ugni_memhndl_crc(const gni_mem_handle_t *h);

/* ugni_nic.c */
gni_return_t ugni_errno_rc(int err);
int ugni_ioctl(struct gni_nic *nic, unsigned long req, void *arg);
void *ugni_map(struct gni_nic *nic, uint64_t offset, size_t len, int prot);
int ugni_fma_get(struct gni_nic *nic, struct gni_cq *cq,
		 struct ugni_fma **out);
void ugni_fma_put(struct gni_nic *nic, struct ugni_fma *fma);

/* ugni_cq.c */
gni_return_t ugni_cq_make(struct gni_nic *nic, uint32_t entries,
			  gni_cq_mode_t mode, bool internal,
			  struct gni_cq **out);
void ugni_cq_unmake(struct gni_cq *cq);
void ugni_mem_cq_gone(struct gni_nic *nic, struct gni_cq *cq);

/* ugni_dgram.c */
void ugni_dgram_release(struct gni_ep *ep);

/* ugni_smsg.c */
bool ugni_smsg_event(struct gni_ep *ep, gni_cq_entry_t *e, uint64_t seq,
		     unsigned int tries);
void ugni_smsg_release(struct gni_ep *ep);

/* ugni_msgq.c */
bool ugni_msgq_event(struct gni_nic *nic, struct msgq_tx *tx,
		     gni_cq_entry_t *e);

/* ugni_post.c */
void ugni_fma_put_flag(struct gni_ep *ep, const void *src, uint64_t len,
		       uint64_t roff, uint32_t rem_mdh, uint64_t flag_off,
		       uint64_t flag_val, unsigned int sync, uint64_t data,
		       uint16_t dlvr_mode);
void ugni_fma_get8(struct gni_ep *ep, uint64_t loff, uint32_t loc_mdh,
		   uint64_t roff, uint32_t rem_mdh, uint64_t data,
		   uint16_t dlvr_mode);
void ugni_fma_cqwrite(struct gni_ep *ep, uint32_t rem_mdh, uint64_t event,
		      uint64_t data, uint16_t dlvr_mode);
int ugni_req_alloc(struct gni_nic *nic, gni_post_descriptor_t *desc,
		   struct gni_ep *ep, uint16_t want);
void ugni_req_free(struct gni_nic *nic, uint32_t tid);

#endif
