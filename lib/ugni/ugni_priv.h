/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * libugni internals.  The engine libugni shares with kGNI's kernel API,
 * gnicore (lib/gnicore/gnicore.h), drives FMA descriptors, takes events
 * and speaks SMSG; the event data and mailbox formats are
 * uapi/gni_wire.h's.  libugni adds what only a process has: /dev/kgniN and
 * its ioctls and mmaps, datagrams, MSGQ, blocking waits.
 *
 * Objects (Documentation/ugni.rst "Implementation"), each with gnicore's
 * part first (core):
 *   gni_cdm   what GNI_CdmCreate recorded; attached once, to one NIC;
 *   gni_nic   one open /dev/kgniN attached to the CDM's domain: its
 *             request table (core), CQs and FMA descriptors;
 *   gni_cq    a kgni CQ with its ring and user page mapped;
 *   ugni_fma  a kgni FMA descriptor with its pages mapped; one per source
 *             CQ, since the descriptor's CQ is a privileged field;
 *   gni_ep    a peer (PE, inst_id) and the FMA of its CQ; RDMA posts go
 *             through KGNI_IOC_RDMA_POST, each to a BTE descriptor; and
 *             its one datagram (ugni_dgram.c), named to the kernel by a
 *             key of its own.
 * nic->core.lock also guards libugni's object lists and datagrams.
 */
#ifndef UGNI_PRIV_H
#define UGNI_PRIV_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gemini_mh.h"
#include "gemini_nic.h"
#include "gni_pub.h"
#include "gnicore.h"

#define UGNI_EXPORT __attribute__((visibility("default")))

/* A process's request table: tids 0..UGNI_MAX_REQS - 1 (UGNI_TID_NONE) */
#define UGNI_MAX_REQS		UGNI_TID_NONE

#define UGNI_PAGE		4096

/* A datagram posted without an id (uGNI's datagram_id -1) */
#define UGNI_DGRAM_NO_ID	UINT64_MAX

struct gni_cq;
struct ugni_fma;
struct msgq_tx;

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
	struct gnicore_nic core;	/* its lock: the tables below too */
	int fd;
	uint32_t pe;
	uint8_t ptag;
	uint32_t cookie;
	uint32_t inst_id;
	struct gni_cdm *cdm;
	struct ugni_fma *fmas;
	struct gni_cq *cqs;
	struct gni_cq *null_cq;		/* for endpoints made without a CQ */
	uint32_t mem_count;		/* registrations held */
	uint32_t mdd_block;		/* vMDH block size; 0: not set */
	struct ugni_mreg *mregs;
	struct ugni_dgram *dgrams;	/* datagrams not collected */
	uint64_t dgram_keys;		/* keys given out */
	uint64_t dgram_seq;		/* datagrams posted */
	/*
	 * GNI_CdmCheckpoint: no system call on the device's file (ioctl,
	 * mmap, munmap, close) until GNI_CdmResume; set and read by the
	 * caller's thread between calls, as Cray's bit was.
	 */
	bool checkpointed;
};

struct gni_cdm {
	uint32_t inst_id;
	uint8_t ptag;
	uint32_t cookie;
	uint32_t modes;
	struct gni_nic *nic;
};

struct gni_cq {
	struct gnicore_cq core;		/* id, ring, read index */
	struct gni_cq *next;
	gni_cq_mode_t mode;
	size_t ring_size;
	void (*handler)(gni_cq_entry_t *, void *);
	void *context;
	uint32_t ep_refs;
	uint32_t irq_mask;
	uint32_t empty_polls;		/* GNI_CqGetEvent's, in a row */
	bool internal;
};

struct ugni_fma {
	struct gnicore_fma core;	/* pages, one post at a time */
	struct ugni_fma *next;
	uint32_t id;
	uint32_t ep_refs;
	size_t window;
};

struct gni_ep {
	struct gnicore_ep core;
	struct ugni_dgram dgram;	/* nic->core.lock */
	unsigned int empty_polls;	/* GNI_SmsgGetNext's, in a row */
};

/*
 * The handles around gnicore's objects.  Each embeds its core first, so
 * that a NULL core is a NULL handle.
 */
_Static_assert(offsetof(struct gni_nic, core) == 0 &&
	       offsetof(struct gni_cq, core) == 0 &&
	       offsetof(struct ugni_fma, core) == 0 &&
	       offsetof(struct gni_ep, core) == 0,
	       "gnicore's object first");

static inline struct gni_nic *ugni_nic(struct gnicore_nic *c)
{
	return (struct gni_nic *)c;
}

static inline struct gni_cq *ugni_cq(struct gnicore_cq *c)
{
	return (struct gni_cq *)c;
}

static inline struct ugni_fma *ugni_fma(struct gnicore_fma *c)
{
	return (struct ugni_fma *)c;
}

/* The NIC of @cq */
static inline struct gni_nic *ugni_cq_nic(struct gni_cq *cq)
{
	return ugni_nic(cq->core.nic);
}

/* The NIC of @ep */
static inline struct gni_nic *ugni_ep_nic(struct gni_ep *ep)
{
	return ugni_nic(ep->core.nic);
}

/* ugni_nic.c */
gni_return_t ugni_errno_rc(int err);
int ugni_ioctl(struct gni_nic *nic, unsigned long req, void *arg);
/*
 * An empty poll counted in *@empty_polls: every so many in a row wait a
 * little in @cq's idle register (ugni_cq.c; @cq NULL: none).
 */
void ugni_idle_poll(struct gnicore_cq *cq, unsigned int *empty_polls);
/* Open /dev/kgniN of @device_id (-1: the nearest): a descriptor, -ENODEV
 * for an id out of range, or -1 with errno set */
int ugni_dev_open(uint32_t device_id);
void *ugni_map(struct gni_nic *nic, uint64_t offset, size_t len, int prot);
void ugni_unmap(struct gni_nic *nic, void *p, size_t len);
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

/* ugni_msgq_io.c */
bool ugni_msgq_event(struct gni_nic *nic, struct msgq_tx *tx,
		     gni_cq_entry_t *e);

#endif
