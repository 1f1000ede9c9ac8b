/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * gnicore: the uGNI engine that libugni and kGNI's kernel API share, so
 * that both fill event data, drive FMA descriptors and speak SMSG the same
 * way (Documentation/ugni.rst, "How the library drives the NIC").
 * Freestanding C built twice, like qemu-device/core: into libugni and into
 * kgni.ko, with what differs between the two in gnicore_env.h.  The wire
 * formats are uapi/gni_wire.h's.
 *
 *   gnicore_req.c   the request table (posts waiting for their events),
 *                   the checks every post makes, RDMA posts
 *   gnicore_fma.c   FMA sequences: PUT, GET, AMO, CQ write, and the
 *                   sequences SMSG and MSGQ make
 *   gnicore_cq.c    taking events from a CQ's ring, GNI_GetCompleted, CQ
 *                   error names
 *   gnicore_smsg.c  short messages
 *
 * A client embeds each object in its own handle (libugni's struct gni_nic
 * holds a struct gnicore_nic, and so on), fills the fields below that the
 * comments give to it, and passes gnicore the embedded objects.  gnicore
 * allocates only a NIC's request table and an endpoint's SMSG state.
 *
 * Locks: nic->lock guards the request table and ep->smsg (a client may
 * guard more with it: libugni guards its object lists); an FMA's lock one
 * sequence at a time; a CQ's lock its consumers.  An SMSG connection's
 * lock is taken before an FMA's, an FMA's before the NIC's.
 */
#ifndef GNICORE_H
#define GNICORE_H

#include "gnicore_env.h"
#include "gemini_mh.h"
#include "gemini_nic.h"
#include "gni_pub.h"
#include "gni_wire.h"

/* Sequences one FMA descriptor keeps open before a post waits. */
#define GNICORE_FMA_MAX_OPEN	32
/* Requests in flight one descriptor allows itself (the ORB has 512). */
#define GNICORE_FMA_MAX_REQS	48
/*
 * With a sync type of gnicore_fma_put_flag() and gnicore_fma_cqwrite():
 * an SMSG message sent again after its sequence failed, which may take
 * twice the descriptor's share above.  It replaces a sequence that ended,
 * and the kernel cannot wait for room (gnicore_may_wait()): held to the
 * share, it would find it taken by the other sequences a dead link holds
 * as long, and break its connection at the first try.
 */
#define GNICORE_SYNC_AGAIN	0x100u
#define GNICORE_FMA_CHECK_EVERY	16
/* The NIC merges a 64-byte line of stores to the PUT-WC window */
#define GNICORE_WC_LINE		64u

struct gnicore_ep;
struct gnicore_smsg;

/**
 * struct gnicore_req - a post or message waiting for its events
 * @desc: the post's descriptor; NULL for a message (SMSG, the client's)
 * @ep: its endpoint, NULL once the endpoint is gone
 * @local_event: the inst_id its local event shows; SMSG: the msg_id
 * @want: the GNI_CQMODE_LOCAL_EVENT and GLOBAL_EVENT bits it waits for,
 *	  each its own event (RDMA); 0 when its one event completes it
 *	  whatever it asked for (FMA, CQ write)
 * @seen: those that came
 * @used: the tid is taken
 * @smsg_seq: SMSG: the message; 0: not an SMSG send
 * @smsg_tries: SMSG: times it was sent again
 * @client: the client's own request (libugni: a MSGQ send), handed back
 *	    by gnicore_cq_take() with its event; when neither @desc nor
 *	    @smsg_seq is set
 */
struct gnicore_req {
	gni_post_descriptor_t *desc;
	struct gnicore_ep *ep;
	uint32_t local_event;
	uint16_t want;
	uint16_t seen;
	bool used;
	uint64_t smsg_seq;
	unsigned int smsg_tries;
	void *client;
};

/**
 * struct gnicore_nic - what a NIC handle holds for gnicore
 * @lock: the request table and every endpoint's @smsg pointer
 * @req: the request table, indexed by tid (@nreqs entries)
 * @free_tid: stack of the free tids, @nfree of them
 * @nfree: free tids
 * @nreqs: the table's size, below UGNI_TID_NONE
 * @modes: the CDM's GNI_CDM_MODE_* (client)
 * @smsg_dlvr_mode: GNI_SmsgSetDeliveryMode (client)
 * @smsg_max_retrans: GNI_SmsgSetMaxRetrans (client)
 * @stats: GNI_GetNicStat's statistics, by gni_statistic_t
 */
struct gnicore_nic {
	gnicore_lock_t lock;
	struct gnicore_req *req;
	uint16_t *free_tid;
	uint32_t nfree;
	uint32_t nreqs;
	uint32_t modes;
	uint16_t smsg_dlvr_mode;
	uint16_t smsg_max_retrans;
	gnicore_counter_t stats[GNI_NUM_STATS];
};

/**
 * struct gnicore_cq - a CQ's ring as gnicore consumes it
 * @user: its page of the device: the read index (client; the kernel
 *	  writes the descriptor instead, gnicore_env_cq_set_rd())
 * @ring: the ring the device writes (client)
 * @nic: its NIC
 * @id: the CQ's number at the device (an RDMA post names it)
 * @entries: ring slots
 * @rd: next slot to read
 * @lock: consumers
 * @mem_refs: registrations delivering remote events here (client): such
 *	      a CQ takes no local events
 */
struct gnicore_cq {
	uint64_t gnicore_iomem *user;
	uint64_t *ring;
	struct gnicore_nic *nic;
	uint32_t id;
	uint32_t entries;
	uint32_t rd;
	gnicore_lock_t lock;
	uint32_t mem_refs;
};

/**
 * struct gnicore_fma - an FMA descriptor, mapped
 * @user: its control page (client)
 * @put: its PUT window, write-combining (client)
 * @get: its GET window (client)
 * @cq: the CQ of its local events
 * @lock: one sequence at a time
 * @qw1: what the descriptor's base offset holds, if @shadow_valid
 * @qw2: what its command word holds, if @shadow_valid
 * @shadow_valid: @qw1 and @qw2 are known
 * @seen_ssids: open sequences at the last status read
 * @seen_reqs: requests in flight at the last status read
 * @new_ssids: sequences closed since (each may still be open)
 * @new_reqs: requests issued since (each may still be in flight)
 * @seen_valid: the four above bound what the descriptor holds
 */
struct gnicore_fma {
	uint64_t gnicore_iomem *user;
	uint8_t gnicore_iomem *put;
	uint8_t gnicore_iomem *get;
	struct gnicore_cq *cq;
	gnicore_lock_t lock;
	uint64_t qw1, qw2;
	bool shadow_valid;
	uint32_t seen_ssids, seen_reqs, new_ssids, new_reqs;
	bool seen_valid;
};

/**
 * struct gnicore_ep - an endpoint
 * @nic: its NIC
 * @cq: its CQ, NULL if it has none (local events then go to @fma's)
 * @fma: the FMA descriptor of its CQ
 * @remote_pe: the peer (client, GNI_EpBind)
 * @remote_id: the peer's inst_id (client)
 * @local_event: the inst_id its local events show (client)
 * @remote_event: the inst_id its remote events show (client)
 * @outstanding: posts not yet completed
 * @bound: GNI_EpBind was called (client)
 * @smsg: its SMSG connection, NULL until gnicore_smsg_init(); nic->lock
 */
struct gnicore_ep {
	struct gnicore_nic *nic;
	struct gnicore_cq *cq;
	struct gnicore_fma *fma;
	uint32_t remote_pe;
	uint32_t remote_id;
	uint32_t local_event;
	uint32_t remote_event;
	uint32_t outstanding;
	bool bound;
	struct gnicore_smsg *smsg;
};

/* Count one of statistic @stat of @nic (GNI_GetNicStat) */
static inline void gnicore_stat(struct gnicore_nic *nic, gni_statistic_t stat)
{
	gnicore_counter_inc(&nic->stats[stat]);
}

/* The CRC a memory handle must carry (gemini_mh.h) */
static inline uint8_t gnicore_memhndl_crc(const gni_mem_handle_t *h)
{
	return gemini_mh_crc(h->qword1, h->qword2);
}

/*
 * What GNI_CqGetEvent returns for event @e: GNI_RC_ERROR_RESOURCE only
 * with the overrun bit (gnilnd asserts that pair).
 */
static inline gni_return_t gnicore_cqe_rc(uint64_t e)
{
	if (e & GEMINI_CQE_OVERRUN)
		return GNI_RC_ERROR_RESOURCE;
	if (ugni_cqe_status(e))
		return GNI_RC_TRANSACTION_ERROR;
	return GNI_RC_SUCCESS;
}

/* gnicore_req.c */
gni_return_t gnicore_nic_init(struct gnicore_nic *nic, uint32_t nreqs,
			      uint32_t modes);
void gnicore_nic_fini(struct gnicore_nic *nic);
int gnicore_req_alloc(struct gnicore_nic *nic, gni_post_descriptor_t *desc,
		      struct gnicore_ep *ep, uint16_t want);
void gnicore_req_free(struct gnicore_nic *nic, uint32_t tid);
void gnicore_req_forget_ep(struct gnicore_nic *nic, struct gnicore_ep *ep);
gni_return_t gnicore_post_rdma(struct gnicore_ep *ep,
			       gni_post_descriptor_t *d,
			       struct gnicore_cq *src_cq);

/* gnicore_fma.c */
void gnicore_fma_init(struct gnicore_fma *f, struct gnicore_cq *cq);
void gnicore_fma_fini(struct gnicore_fma *f);
gni_return_t gnicore_post_fma(struct gnicore_ep *ep, gni_post_descriptor_t *d);
gni_return_t gnicore_post_cqwrite(struct gnicore_ep *ep,
				  gni_post_descriptor_t *d);
bool gnicore_fma_put_flag(struct gnicore_ep *ep, const void *src,
			  uint64_t len, uint64_t roff, uint32_t rem_mdh,
			  uint64_t flag_off, uint64_t flag_val,
			  unsigned int sync, uint64_t data, uint16_t dlvr_mode);
bool gnicore_fma_get8(struct gnicore_ep *ep, uint64_t loff, uint32_t loc_mdh,
		      uint64_t roff, uint32_t rem_mdh, uint64_t data,
		      uint16_t dlvr_mode);
bool gnicore_fma_cqwrite(struct gnicore_ep *ep, uint32_t rem_mdh,
			 uint64_t event, unsigned int sync, uint64_t data,
			 uint16_t dlvr_mode);

/* gnicore_cq.c */
void gnicore_cq_init(struct gnicore_cq *cq, struct gnicore_nic *nic,
		     uint32_t id, uint32_t entries);
void gnicore_cq_fini(struct gnicore_cq *cq);
gni_return_t gnicore_cq_take(struct gnicore_cq *cq, uint64_t *e,
			     void **client);
gni_return_t gnicore_cq_test(struct gnicore_cq *cq);
gni_return_t gnicore_get_completed(struct gnicore_cq *cq, uint64_t e,
				   gni_post_descriptor_t **post_descr);
uint32_t gnicore_cq_error_len(uint64_t e);
gni_return_t gnicore_cq_error_str(uint64_t e, void *buffer, uint32_t len);
gni_return_t gnicore_cq_error_recoverable(uint64_t e, uint32_t *recoverable);

/* gnicore_smsg.c */
gni_return_t gnicore_smsg_buff_size(const gni_smsg_attr_t *attr,
				    unsigned int *size);
gni_return_t gnicore_smsg_init(struct gnicore_ep *ep,
			       const gni_smsg_attr_t *local,
			       const gni_smsg_attr_t *remote);
void gnicore_smsg_fini(struct gnicore_ep *ep);
struct gnicore_smsg *gnicore_smsg_detach(struct gnicore_ep *ep);
void gnicore_smsg_free(struct gnicore_smsg *s);
gni_return_t gnicore_smsg_send(struct gnicore_ep *ep, const void *header,
			       uint32_t header_length, const void *data,
			       uint32_t data_length, uint32_t msg_id,
			       uint8_t tag);
gni_return_t gnicore_smsg_get_next(struct gnicore_ep *ep, void **header,
				   uint8_t *tag);
gni_return_t gnicore_smsg_release(struct gnicore_ep *ep);

#endif /* GNICORE_H */
