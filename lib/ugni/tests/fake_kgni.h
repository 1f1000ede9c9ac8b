/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * A fake /dev/kgniN for test_ugni: the test binary is linked with
 * -Wl,--wrap=open,--wrap=ioctl,--wrap=mmap, so the library's open() of
 * /dev/kgniN gets a file of this fake (a /dev/null descriptor), its
 * ioctls on that file are answered here as uapi/kgni_ioctl.h says, and
 * its mmaps of that file get anonymous memory (CQ rings and user pages,
 * FMA pages).  Everything else goes to the real calls.
 *
 * The test sees what the library asked (the last structure of each
 * command, counts), makes a command fail with an errno of its choice,
 * and plays the device by writing entries into a CQ's ring.  Datagrams
 * are kept as kgni keeps them (posted, ended, collected by a test), and
 * the test plays their peers: it ends one now or when a wait comes, and
 * makes waits fail with EINTR after a while, as a signal would.
 */
#ifndef FAKE_KGNI_H
#define FAKE_KGNI_H

#include <stdbool.h>
#include <stdint.h>

#include "kgni_ioctl.h"

#define FAKE_NIC_PE		0x1234
#define FAKE_MAX_CQ		64
#define FAKE_MAX_SEGS		16
#define FAKE_MAX_DGRAMS		8
#define FAKE_MAX_WAITS		16
#define FAKE_MAX_REGS		64
#define FAKE_MAX_ERRS		KGNI_ERR_FILE_SUBS

/* An error subscription of the fake, as kgni keeps one */
struct fake_err {
	bool used;
	int fd;				/* the file that made it */
	uint32_t id;
	uint32_t mask;
	uint8_t ptag;			/* filter: 0 every ptag */
	uint32_t size, head, count, serial;
	struct kgni_err_event *ring;
};

/* A registration the fake made, for KGNI_IOC_MEM_QUERY */
struct fake_reg {
	bool used;
	int fd;				/* the file that made it */
	uint32_t seq;			/* order of registration */
	__u64 hndl[2];
	uint64_t addr, len;
};

/*
 * A datagram of the fake, as kgni keeps one from its post until a test
 * collects it; the test plays its peer with fake_dgram_end().
 */
struct fake_dgram {
	bool used;
	struct kgni_dgram_post post;		/* as posted */
	uint8_t data[KGNI_DGRAM_MAX_DATA];	/* the bytes it sent */
	uint32_t seq;				/* order of posting */
	uint32_t state;				/* KGNI_DGRAM_* */
	uint32_t ended;				/* order of ending (PROBE) */
	uint8_t peer_data[KGNI_DGRAM_MAX_DATA];	/* COMPLETED: the peer's */
	uint16_t peer_len;
	uint32_t peer_pe, peer_inst;
};

/* How a datagram ends: fake_dgram_end()'s arguments */
struct fake_dgram_end {
	bool armed;
	uint64_t key;
	uint32_t state;
	uint8_t data[KGNI_DGRAM_MAX_DATA];
	uint16_t len;
	uint32_t pe, inst;
};

struct fake_kgni {
	unsigned int calls[256];	/* by KGNI_CMD_* number */
	int fail[256];			/* errno the next call returns */
	int bad_size;			/* a structure with a wrong @size */
	struct kgni_rdma_post post;	/* the last of each, as passed */
	struct kgni_mem_register reg;
	struct kgni_mem_register_segments segs;
	struct kgni_mem_segment seg[FAKE_MAX_SEGS];	/* its segments */
	uint32_t next_mdh;
	struct fake_reg regs[FAKE_MAX_REGS];	/* live registrations */
	uint32_t reg_seq;
	struct kgni_mem_query query;	/* the last, as passed */
	uint32_t ntt_gran;		/* what KGNI_IOC_NTT_QUERY answers */
	struct kgni_dgram_post dpost;	/* the last of each, as passed */
	struct kgni_dgram_test dtest;
	struct kgni_dgram_probe dprobe;
	struct kgni_dgram_cancel dcancel;
	struct fake_dgram dgram[FAKE_MAX_DGRAMS];
	uint32_t dgrams_posted;
	uint32_t dgrams_ended;
	/* the timeout_ms of every DGRAM_TEST and DGRAM_PROBE, in turn */
	uint32_t waits[FAKE_MAX_WAITS];
	unsigned int nwaits;
	/* the next eintr[cmd] calls sleep eintr_ms, then fail with EINTR */
	unsigned int eintr[256];
	unsigned int eintr_ms;
	/* a datagram the next wait (timeout_ms not 0) sees end */
	struct fake_dgram_end on_wait;
	/* the last KGNI_IOC_JOB_SUSPEND or _RESUME, as passed */
	struct kgni_job_suspend susp;
	/* KGNI_IOC_NTT_CONFIG and KGNI_IOC_JOB_CONFIGURE, as passed; the
	 * first entries of the last table; the base a new block gets */
	struct kgni_ntt_config nttc;
	uint32_t ntt_table[4];
	uint32_t ntt_next_base;
	struct kgni_job_configure jobc;
	/* KGNI_IOC_BI_CONFIG as passed; what a read answers */
	struct kgni_bi_config bic;
	struct kgni_bi_config bi_state;
	/* error subscriptions (the fake holds one file's worth) */
	struct fake_err errs[FAKE_MAX_ERRS];
	uint32_t err_seq;
	bool privileged;		/* the caller has CAP_SYS_ADMIN */
	uint8_t cdm_ptag[1024];		/* by fd: its CDM's ptag, 0 none */
	struct kgni_err_subscribe esub;	/* the last of each, as passed */
	struct kgni_err_wait ewait;
	struct kgni_err_ptag eptag;
	bool err_busy;			/* a thread waits: RELEASE is EBUSY */
	/* an event the next blocking ERR_WAIT with none queued sees come */
	bool err_on_wait;
	struct kgni_err_event err_next;
};

extern struct fake_kgni fake;

/* The number of a KGNI_IOC_* command, an index of calls[] and fail[] */
#define FAKE_CMD(ioc)		((ioc) & 0xff)

/*
 * Write @entry into the next slot of CQ @cq_id's ring, as the device
 * would; 0, or -1 for a CQ the fake did not make or a full ring.
 */
int fake_cq_write(uint32_t cq_id, uint64_t entry);

/*
 * End the pending datagram of @key as its peer would: @state COMPLETED
 * with the peer's @len bytes of @data from (@pe, @inst), TIMEOUT or
 * TERMINATED.  0, or -1 when no datagram of @key is pending.
 */
int fake_dgram_end(uint64_t key, uint32_t state, const void *data,
		   uint16_t len, uint32_t pe, uint32_t inst);

/* The same, once a DGRAM_TEST of it or a DGRAM_PROBE waits. */
void fake_dgram_end_on_wait(uint64_t key, uint32_t state, const void *data,
			    uint16_t len, uint32_t pe, uint32_t inst);

/* Datagrams the fake holds (posted and not collected) */
unsigned int fake_dgrams(void);

/*
 * An error event of the device, delivered as kgni delivers it to every
 * subscription whose mask and ptag filter match; the subscriptions it
 * reached.
 */
unsigned int fake_err_post(uint8_t category, uint16_t code, uint8_t ptag,
			   uint64_t info0);

/* Subscriptions the fake holds */
unsigned int fake_errs(void);

/* A handle as the kernel makes one (CRC included). */
void fake_handle(uint64_t va, uint32_t mdh, uint64_t npages, uint8_t flags,
		 __u64 out[2]);

#endif
