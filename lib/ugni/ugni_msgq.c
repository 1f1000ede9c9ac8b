// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The shared message queue (MSGQ, ugni-api.md §15.8, §16.7, §17.7): the
 * ranks of a node share one queue in hugetlbfs memory; a remote node's
 * ranks write messages into it with FMA PUTs, and GNI_MsgqProgress hands
 * each to its rank's callback.  No system call on send or receive (but
 * a blocking GNI_MsgqProgress that finds nothing sleeps on a CQ).
 *
 * The segment is the file vgemini-msgq-<ptag>-<cookie> of the first
 * hugetlbfs mount in /proc/mounts, made by the node's first rank, mapped
 * MAP_SHARED by every rank and registered by each (huge pages go through
 * the MRT: no GART entry) with a receive CQ of its own.  The layout is
 * the library's, like SMSG's mailboxes:
 *
 *   0             struct msgq_seg: the attributes and the ranks attached,
 *                 each with its registration of the segment
 *   4096          num_msgq_eps connection records (struct msgq_conn, 4 KiB
 *                 each): the remote node's PE and, per remote rank, the
 *                 place of its inbox for this node, the next ticket and
 *                 how many of this node's messages that rank released
 *   then          per connection and local rank an inbox: at +0 the count
 *                 of messages the rank took from it, at +64 smsg_q_sz
 *                 slots of 16 + max_msg_sz (8-aligned) bytes
 *
 * A slot holds the flag (ticket + 1 << 32 | tag << 8 | MSGQ_MAGIC), then
 * hdr_len | msg_len << 16 | the sender's inst_id << 32, then the header
 * and the message.  To send, a rank takes the next ticket of the
 * destination rank's inbox, a compare-and-swap in its own node's segment
 * (all senders into that inbox are on this node), if fewer than
 * smsg_q_sz tickets are unreleased; then PUTs words 1.. and the payload
 * into slot ticket % smsg_q_sz through the destination rank's
 * registration, and the flag with GEMINI_FMA_SYNC_WITH_FLAG (the device
 * writes it once the payload is answered), with a remote event (it wakes
 * a blocking receiver) and a local event of type MSGQ carrying msg_id,
 * on the snd_cq or on the queue's own CQ.  A send whose sequence failed
 * goes again into the same slot (struct msgq_tx, ugni_msgq_event()): its
 * ticket is taken, and the inbox waits for that slot's flag.  A sender
 * that finds the inbox full reads its count
 * (an 8-byte FMA GET into the connection record) and returns
 * GNI_RC_NOT_DONE.  The receiver takes its inbox's slots in ticket order.
 *
 * The lowest rank of a node calls GNI_MsgqGetConnAttrs for a remote node,
 * which reserves a connection record, and GNI_MsgqConnect with what that
 * node's GetConnAttrs said; the other ranks find both in the segment.
 * The segment's file lock (flock) serialises attaching and connecting;
 * a file left by ranks that are all dead is made again.
 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gemini_pkt.h"
#include "ugni_priv.h"

#define MSGQ_SEG_MAGIC		0x3130717367766776ull	/* "vgvgsq01" */
#define MSGQ_MAGIC		0xa5ull
#define MSGQ_HUGE_PAGE		(2u << 20)
#define MSGQ_HDR		4096u
#define MSGQ_CONN_SIZE		4096u
#define MSGQ_INBOX_HDR		64u
#define MSGQ_SLOT_HDR		16u
#define MSGQ_SLOT(max)		(MSGQ_SLOT_HDR + (((max) + 7u) & ~7u))
#define MSGQ_CQ_MIN		64u
#define MSGQ_OWN_CQ		256u	/* local events without a snd_cq */
#define MSGQ_OWN_INFLIGHT	128u	/* sends in flight then */
#define MSGQ_PULL_EVERY		8u
#define MSGQ_NAME_MAX		256

enum { CONN_FREE, CONN_RESERVED, CONN_CONNECTED };

struct msgq_inst {
	uint32_t id;
	int32_t pid;			/* 0: the entry is free */
	gni_mem_handle_t mdh;		/* its registration of the segment */
};

struct msgq_seg {
	uint64_t magic;
	uint32_t size;
	uint32_t max_msg_sz;
	uint32_t smsg_q_sz;
	uint32_t num_eps;
	uint32_t nloc_insts;
	uint32_t modes;
	uint32_t attached;
	uint32_t pad;
	struct msgq_inst inst[GNI_MSGQ_NODE_INSTS_MAX];
};

/* A rank of the remote node, as this node's senders see it */
struct msgq_rinst {
	uint32_t id;
	uint32_t mdh;			/* its registration's MDH */
	uint64_t off;			/* its inbox for us, in it */
	uint64_t ticket;		/* next ticket: CAS by our senders */
	uint64_t released;		/* its count, last read */
	uint32_t broken;		/* a message could not be sent */
	uint32_t pad;
};

struct msgq_conn {
	uint32_t state;			/* CONN_* */
	uint32_t pe;
	uint32_t rem_q;			/* its smsg_q_sz */
	uint32_t rem_max;		/* its max_msg_sz */
	uint32_t nrem;
	uint32_t pad;
	struct msgq_rinst rem[GNI_MSGQ_NODE_INSTS_MAX];
};

static void own_drain(struct gni_msgq *q);
static void tx_forget(struct gni_msgq *q);

static_assert(sizeof(struct msgq_seg) <= MSGQ_HDR, "segment header");
static_assert(sizeof(struct msgq_conn) <= MSGQ_CONN_SIZE, "connection");

struct gni_msgq {
	struct gni_nic *nic;
	gni_msgq_rcv_cb_func *cb;
	void *cb_data;
	struct gni_cq *snd_cq;		/* the caller's, or NULL */
	struct gni_cq *own_cq;		/* local events without a snd_cq */
	struct gni_cq *rcv_cq;		/* remote events: wakes Progress */
	struct ugni_fma *fma;		/* local events to snd_cq/own_cq */
	int fd;
	char path[MSGQ_NAME_MAX];
	uint8_t *base;
	struct msgq_seg *seg;
	uint32_t size;
	uint32_t me;			/* my index in seg->inst */
	gni_mem_handle_t mdh;
	uint32_t slot;			/* bytes per slot of my inboxes */
	uint32_t inbox;			/* bytes per inbox */
	pthread_mutex_t lock;		/* receiving, and the file lock */
	uint32_t next_conn;		/* where the next scan starts */
	uint32_t starved;		/* sends refused for a full inbox */
	struct msgq_tx *txs;		/* sends in flight (nic's lock) */
	uint32_t ntx;
};

/*
 * A send in flight, on its queue's txs list and named by its request
 * (nic->core.lock): what sending it again needs, should its sequence fail.
 */
struct msgq_tx {
	struct msgq_tx *next, *prev;
	struct gni_msgq *q;		/* NULL once the queue is released */
	struct gnicore_ep via;		/* the queue's FMA to the peer */
	uint32_t tid;
	uint32_t conn, rinst;		/* the destination's record */
	uint32_t rem_mdh;
	uint32_t len;			/* bytes of img after the flag */
	uint32_t tries;			/* times sent again */
	uint64_t ticket;
	uint64_t at;			/* its slot, in rem_mdh */
	uint64_t flag;
	uint8_t img[MSGQ_SLOT(GNI_MSGQ_MSG_SZ_MAX)];
};

static uint64_t layout_size(const gni_msgq_attr_t *a)
{
	uint64_t inbox = MSGQ_INBOX_HDR +
			 (uint64_t)a->smsg_q_sz * MSGQ_SLOT(a->max_msg_sz);
	uint64_t n = MSGQ_HDR + (uint64_t)a->num_msgq_eps * MSGQ_CONN_SIZE +
		     (uint64_t)a->num_msgq_eps * a->nloc_insts * inbox;

	return (n + MSGQ_HUGE_PAGE - 1) / MSGQ_HUGE_PAGE * MSGQ_HUGE_PAGE;
}

/* smsg_q_sz: 1 or even (as Cray's library asks) */
static bool attrs_ok(const gni_msgq_attr_t *a)
{
	return a && a->max_msg_sz && a->max_msg_sz <= GNI_MSGQ_MSG_SZ_MAX &&
	       a->smsg_q_sz && (a->smsg_q_sz == 1 || !(a->smsg_q_sz & 1)) &&
	       a->num_msgq_eps && a->nloc_insts &&
	       a->nloc_insts <= GNI_MSGQ_NODE_INSTS_MAX &&
	       !(a->modes & ~GNI_MSGQ_MODE_BLOCKING) &&
	       layout_size(a) <= UINT32_MAX;
}

UGNI_EXPORT gni_return_t GNI_MsgqSize(gni_msgq_attr_t *attrs, uint32_t *size)
{
	if (!attrs_ok(attrs) || !size)
		return GNI_RC_INVALID_PARAM;
	*size = (uint32_t)layout_size(attrs);
	return GNI_RC_SUCCESS;
}

/* The first hugetlbfs mount point into @buf; false if there is none. */
static bool hugetlbfs_mount(char *buf, size_t len)
{
	char dev[256], dir[256], type[64];
	bool found = false;
	FILE *f = fopen("/proc/mounts", "re");

	if (!f)
		return false;
	while (!found && fscanf(f, "%255s %255s %63s %*[^\n]", dev, dir,
				type) == 3) {
		/* A name with escapes (\040 ...) is passed over. */
		if (!strcmp(type, "hugetlbfs") && !strchr(dir, '\\') &&
		    strlen(dir) < len) {
			strcpy(buf, dir);
			found = true;
		}
	}
	fclose(f);
	return found;
}

static bool pid_alive(int32_t pid)
{
	return pid > 0 && (kill(pid, 0) == 0 || errno == EPERM);
}

/* Offset of connection @c's inbox of local rank @i */
static uint64_t inbox_off(const struct gni_msgq *q, uint32_t c, uint32_t i)
{
	return MSGQ_HDR + (uint64_t)q->seg->num_eps * MSGQ_CONN_SIZE +
	       ((uint64_t)c * q->seg->nloc_insts + i) * q->inbox;
}

static struct msgq_conn *conn_at(const struct gni_msgq *q, uint32_t c)
{
	return (struct msgq_conn *)(q->base + MSGQ_HDR +
				    (uint64_t)c * MSGQ_CONN_SIZE);
}

static uint32_t conn_state(const struct msgq_conn *c)
{
	return __atomic_load_n(&c->state, __ATOMIC_ACQUIRE);
}

static void seg_lock(struct gni_msgq *q)
{
	pthread_mutex_lock(&q->lock);
	while (flock(q->fd, LOCK_EX) && errno == EINTR)
		;
}

static void seg_unlock(struct gni_msgq *q)
{
	flock(q->fd, LOCK_UN);
	pthread_mutex_unlock(&q->lock);
}

/* Whether a rank that attached to segment @s is alive */
static bool seg_live(const struct msgq_seg *s)
{
	uint32_t i;

	if (s->magic != MSGQ_SEG_MAGIC)
		return false;
	for (i = 0; i < GNI_MSGQ_NODE_INSTS_MAX; i++)
		if (pid_alive(s->inst[i].pid))
			return true;
	return false;
}

/*
 * With the file lock: check the segment was made with @a and take an
 * entry of its rank table.
 */
static gni_return_t seg_attach(struct gni_msgq *q, const gni_msgq_attr_t *a)
{
	struct msgq_seg *s = q->seg;
	uint32_t i, free_i = UINT32_MAX;

	if (s->max_msg_sz != a->max_msg_sz || s->smsg_q_sz != a->smsg_q_sz ||
	    s->num_eps != a->num_msgq_eps || s->nloc_insts != a->nloc_insts ||
	    s->modes != a->modes)
		return GNI_RC_INVALID_PARAM;
	for (i = 0; i < s->nloc_insts; i++) {
		if (pid_alive(s->inst[i].pid)) {
			if (s->inst[i].id == q->nic->inst_id)
				return GNI_RC_INVALID_STATE;
		} else if (free_i == UINT32_MAX) {
			free_i = i;
		}
	}
	if (free_i == UINT32_MAX)
		return GNI_RC_ERROR_RESOURCE;	/* nloc_insts attached */
	q->me = free_i;
	s->inst[free_i].id = q->nic->inst_id;
	s->inst[free_i].mdh = q->mdh;
	/* My inboxes start empty: a rank that held this entry left. */
	for (i = 0; i < s->num_eps; i++)
		memset(q->base + inbox_off(q, i, free_i), 0, q->inbox);
	__atomic_store_n(&s->inst[free_i].pid, (int32_t)getpid(),
			 __ATOMIC_RELEASE);
	s->attached++;
	return GNI_RC_SUCCESS;
}

/*
 * With the file lock: map the segment of @size bytes, made anew (empty,
 * with @a's attributes) unless a live rank uses it.  Its size must then
 * be @size.
 */
static gni_return_t seg_map(struct gni_msgq *q, const gni_msgq_attr_t *a,
			    uint32_t size)
{
	struct msgq_seg *s;
	struct stat st;
	void *p;

	if (fstat(q->fd, &st))
		return GNI_RC_ERROR_RESOURCE;
	if (st.st_size == size) {
		p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED,
			 q->fd, 0);
		if (p == MAP_FAILED)
			return GNI_RC_ERROR_NOMEM;
		if (seg_live(p)) {
			q->base = p;
			return GNI_RC_SUCCESS;
		}
		munmap(p, size);
	} else if (st.st_size >= (off_t)sizeof(*s)) {
		p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED,
			 q->fd, 0);
		if (p == MAP_FAILED)
			return GNI_RC_ERROR_NOMEM;
		/* In use with other attributes: leave it alone. */
		if (seg_live(p)) {
			munmap(p, (size_t)st.st_size);
			return GNI_RC_INVALID_PARAM;
		}
		munmap(p, (size_t)st.st_size);
	}
	/* hugetlbfs: new pages are zero; the size is set by ftruncate only */
	if (ftruncate(q->fd, 0) || ftruncate(q->fd, size))
		return GNI_RC_ERROR_RESOURCE;
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, q->fd, 0);
	if (p == MAP_FAILED)
		return GNI_RC_ERROR_NOMEM;	/* no huge page to back it */
	s = p;
	s->size = size;
	s->max_msg_sz = a->max_msg_sz;
	s->smsg_q_sz = a->smsg_q_sz;
	s->num_eps = a->num_msgq_eps;
	s->nloc_insts = a->nloc_insts;
	s->modes = a->modes;
	s->magic = MSGQ_SEG_MAGIC;
	q->base = p;
	return GNI_RC_SUCCESS;
}

/* Open (or make) the node's segment, map and register it. */
static gni_return_t seg_open(struct gni_msgq *q, const gni_msgq_attr_t *a)
{
	char mnt[MSGQ_NAME_MAX - 64];
	bool registered = false;
	gni_return_t rc;

	if (!hugetlbfs_mount(mnt, sizeof(mnt)))
		return GNI_RC_PERMISSION_ERROR;
	snprintf(q->path, sizeof(q->path), "%s/vgemini-msgq-%u-%#x", mnt,
		 q->nic->ptag, q->nic->cookie);
	q->fd = open(q->path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (q->fd < 0)
		return errno == EACCES || errno == EPERM || errno == EROFS ?
		       GNI_RC_PERMISSION_ERROR : GNI_RC_ERROR_RESOURCE;
	q->size = (uint32_t)layout_size(a);
	q->slot = MSGQ_SLOT(a->max_msg_sz);
	q->inbox = MSGQ_INBOX_HDR + a->smsg_q_sz * q->slot;
	seg_lock(q);
	rc = seg_map(q, a, q->size);
	if (rc == GNI_RC_SUCCESS) {
		q->seg = (struct msgq_seg *)q->base;
		rc = GNI_MemRegister(q->nic, (uint64_t)(uintptr_t)q->base,
				     q->size, q->rcv_cq, GNI_MEM_READWRITE,
				     (uint32_t)-1, &q->mdh);
		registered = rc == GNI_RC_SUCCESS;
	}
	if (rc == GNI_RC_SUCCESS)
		rc = seg_attach(q, a);
	if (rc != GNI_RC_SUCCESS && registered)
		GNI_MemDeregister(q->nic, &q->mdh);
	if (rc != GNI_RC_SUCCESS && q->base) {
		munmap(q->base, q->size);
		q->base = NULL;
	}
	seg_unlock(q);
	if (rc != GNI_RC_SUCCESS)
		close(q->fd);
	return rc;
}

/* The FMA descriptor MSGQ sends use: local events to snd_cq or own_cq */
static gni_return_t msgq_fma(struct gni_msgq *q)
{
	struct gni_cq *cq = q->snd_cq;
	gni_return_t rc;
	int err;

	if (!cq) {
		/* Sends' events need somewhere to go (see msgq_tx). */
		rc = ugni_cq_make(q->nic, MSGQ_OWN_CQ, GNI_CQ_NOBLOCK, true,
				  &q->own_cq);
		if (rc != GNI_RC_SUCCESS)
			return rc;
		cq = q->own_cq;
	}
	pthread_mutex_lock(&q->nic->core.lock);
	err = ugni_fma_get(q->nic, cq, &q->fma);
	if (!err)
		cq->ep_refs++;
	pthread_mutex_unlock(&q->nic->core.lock);
	return err ? ugni_errno_rc(err) : GNI_RC_SUCCESS;
}

static void msgq_free(struct gni_msgq *q)
{
	struct gni_cq *cq = q->snd_cq ? q->snd_cq : q->own_cq;

	if (q->fma) {
		pthread_mutex_lock(&q->nic->core.lock);
		ugni_fma_put(q->nic, q->fma);
		cq->ep_refs--;
		pthread_mutex_unlock(&q->nic->core.lock);
	}
	if (q->own_cq)
		ugni_cq_unmake(q->own_cq);
	if (q->rcv_cq)
		ugni_cq_unmake(q->rcv_cq);
	pthread_mutex_destroy(&q->lock);
	free(q);
}

UGNI_EXPORT gni_return_t GNI_MsgqInit(gni_nic_handle_t nic_hndl,
				      gni_msgq_rcv_cb_func *rcv_cb,
				      void *cb_data, gni_cq_handle_t snd_cq,
				      gni_msgq_attr_t *attrs,
				      gni_msgq_handle_t *msgq_hndl)
{
	struct gni_msgq *q;
	gni_return_t rc;

	if (!nic_hndl || !rcv_cb || !attrs_ok(attrs) || !msgq_hndl)
		return GNI_RC_INVALID_PARAM;
	/* A CQ takes local events or remote events, not both (§17.4). */
	if (snd_cq &&
	    (ugni_cq_nic(snd_cq) != nic_hndl || snd_cq->core.mem_refs))
		return GNI_RC_INVALID_PARAM;
	q = calloc(1, sizeof(*q));
	if (!q)
		return GNI_RC_ERROR_NOMEM;
	q->nic = nic_hndl;
	q->cb = rcv_cb;
	q->cb_data = cb_data;
	q->snd_cq = snd_cq;
	pthread_mutex_init(&q->lock, NULL);
	rc = ugni_cq_make(nic_hndl, attrs->rcv_cq_sz > MSGQ_CQ_MIN ?
			  attrs->rcv_cq_sz : MSGQ_CQ_MIN,
			  attrs->modes & GNI_MSGQ_MODE_BLOCKING ?
			  GNI_CQ_BLOCKING : GNI_CQ_NOBLOCK, true, &q->rcv_cq);
	if (rc == GNI_RC_SUCCESS)
		rc = msgq_fma(q);
	if (rc == GNI_RC_SUCCESS)
		rc = seg_open(q, attrs);
	if (rc != GNI_RC_SUCCESS) {
		msgq_free(q);
		return rc;
	}
	*msgq_hndl = q;
	return GNI_RC_SUCCESS;
}

UGNI_EXPORT gni_return_t GNI_MsgqRelease(gni_msgq_handle_t msgq_hndl)
{
	struct gni_msgq *q = msgq_hndl;
	struct msgq_seg *s;
	bool last;

	if (!q)
		return GNI_RC_INVALID_PARAM;
	own_drain(q);
	tx_forget(q);
	s = q->seg;
	seg_lock(q);
	__atomic_store_n(&s->inst[q->me].pid, 0, __ATOMIC_RELEASE);
	last = !--s->attached;
	if (last)
		unlink(q->path);
	seg_unlock(q);
	GNI_MemDeregister(q->nic, &q->mdh);
	munmap(q->base, q->size);
	close(q->fd);
	msgq_free(q);
	return GNI_RC_SUCCESS;
}

/* The connection record of remote node @pe in a state >= @state, or -1 */
static int conn_find(const struct gni_msgq *q, uint32_t pe, uint32_t state)
{
	uint32_t c;

	for (c = 0; c < q->seg->num_eps; c++) {
		const struct msgq_conn *k = conn_at(q, c);

		if (conn_state(k) >= state && k->pe == pe)
			return (int)c;
	}
	return -1;
}

/* With the file lock: @pe's record, reserved (its inboxes empty) if new */
static int conn_get(struct gni_msgq *q, uint32_t pe)
{
	int c = conn_find(q, pe, CONN_RESERVED);
	struct msgq_conn *k;
	uint32_t i, f;

	if (c >= 0)
		return c;
	for (f = 0; f < q->seg->num_eps; f++)
		if (conn_state(conn_at(q, f)) == CONN_FREE)
			break;
	if (f == q->seg->num_eps)
		return -1;
	k = conn_at(q, f);
	memset(k, 0, sizeof(*k));
	for (i = 0; i < q->seg->nloc_insts; i++)
		memset(q->base + inbox_off(q, f, i), 0, q->inbox);
	k->pe = pe;
	__atomic_store_n(&k->state, CONN_RESERVED, __ATOMIC_RELEASE);
	return (int)f;
}

UGNI_EXPORT gni_return_t GNI_MsgqGetConnAttrs(gni_msgq_handle_t msgq_hndl,
					      uint32_t pe_addr,
					      gni_msgq_ep_attr_t *attrs,
					      uint32_t *attrs_size)
{
	struct gni_msgq *q = msgq_hndl;
	const struct msgq_seg *s;
	uint32_t i, n = 0;
	int c;

	if (!q || !attrs || !attrs_size || pe_addr == q->nic->pe)
		return GNI_RC_INVALID_PARAM;
	s = q->seg;
	memset(attrs, 0, sizeof(*attrs));
	seg_lock(q);
	c = conn_get(q, pe_addr);
	if (c < 0) {
		seg_unlock(q);
		return GNI_RC_ERROR_RESOURCE;	/* num_msgq_eps in use */
	}
	for (i = 0; i < s->nloc_insts; i++) {
		if (!s->inst[i].pid)
			continue;
		attrs->insts[n].id = s->inst[i].id;
		attrs->insts[n].mdh = s->inst[i].mdh;
		attrs->insts[n].mdh_off = inbox_off(q, (uint32_t)c, i);
		n++;
	}
	seg_unlock(q);
	attrs->pe_addr = q->nic->pe;
	attrs->max_msg_sz = s->max_msg_sz;
	attrs->smsg_q_sz = s->smsg_q_sz;
	attrs->num_insts = n;
	*attrs_size = (uint32_t)(offsetof(gni_msgq_ep_attr_t, insts) +
				 n * sizeof(gni_msgq_rem_inst_t));
	return GNI_RC_SUCCESS;
}

/* A remote node's attributes, as far as they can be checked here */
static bool ep_attrs_ok(const gni_msgq_ep_attr_t *a, uint32_t pe)
{
	uint64_t inbox, size;
	uint32_t i;

	if (a->pe_addr != pe || !a->num_insts ||
	    a->num_insts > GNI_MSGQ_NODE_INSTS_MAX || !a->max_msg_sz ||
	    a->max_msg_sz > GNI_MSGQ_MSG_SZ_MAX || !a->smsg_q_sz)
		return false;
	inbox = MSGQ_INBOX_HDR + (uint64_t)a->smsg_q_sz *
		MSGQ_SLOT(a->max_msg_sz);
	for (i = 0; i < a->num_insts; i++) {
		const gni_mem_handle_t *h = &a->insts[i].mdh;

		size = GNI_MEMHNDL_GET_NPAGES(*h) * (uint64_t)UGNI_PAGE;
		if (GNI_MEMHNDL_GET_CRC(*h) != gnicore_memhndl_crc(h) ||
		    a->insts[i].mdh_off > size ||
		    inbox > size - a->insts[i].mdh_off ||
		    a->insts[i].mdh_off % 8)
			return false;
	}
	return true;
}

UGNI_EXPORT gni_return_t GNI_MsgqConnect(gni_msgq_handle_t msgq_hndl,
					 uint32_t pe_addr,
					 gni_msgq_ep_attr_t *attrs)
{
	struct gni_msgq *q = msgq_hndl;
	struct msgq_conn *k;
	uint32_t i;
	int c;

	if (!q || !attrs || pe_addr == q->nic->pe ||
	    !ep_attrs_ok(attrs, pe_addr))
		return GNI_RC_INVALID_PARAM;
	seg_lock(q);
	c = conn_get(q, pe_addr);
	if (c < 0 || conn_state(conn_at(q, (uint32_t)c)) == CONN_CONNECTED) {
		seg_unlock(q);
		return c < 0 ? GNI_RC_ERROR_RESOURCE : GNI_RC_INVALID_STATE;
	}
	k = conn_at(q, (uint32_t)c);
	k->rem_q = attrs->smsg_q_sz;
	k->rem_max = attrs->max_msg_sz;
	k->nrem = attrs->num_insts;
	for (i = 0; i < attrs->num_insts; i++) {
		k->rem[i].id = attrs->insts[i].id;
		k->rem[i].mdh = GNI_MEMHNDL_GET_MDH(attrs->insts[i].mdh);
		k->rem[i].off = attrs->insts[i].mdh_off;
		k->rem[i].ticket = 0;
		k->rem[i].released = 0;
	}
	__atomic_store_n(&k->state, CONN_CONNECTED, __ATOMIC_RELEASE);
	seg_unlock(q);
	return GNI_RC_SUCCESS;
}

UGNI_EXPORT gni_return_t GNI_MsgqConnRelease(gni_msgq_handle_t msgq_hndl,
					     uint32_t pe_addr)
{
	struct gni_msgq *q = msgq_hndl;
	int c;

	if (!q)
		return GNI_RC_INVALID_PARAM;
	seg_lock(q);
	c = conn_find(q, pe_addr, CONN_RESERVED);
	if (c >= 0)
		__atomic_store_n(&conn_at(q, (uint32_t)c)->state, CONN_FREE,
				 __ATOMIC_RELEASE);
	seg_unlock(q);
	return c < 0 ? GNI_RC_INVALID_PARAM : GNI_RC_SUCCESS;
}

/* --- sends in flight ---------------------------------------------------- */

/* Put @tx on its queue's list.  nic->core.lock held. */
static void tx_link(struct gni_msgq *q, struct msgq_tx *tx)
{
	tx->q = q;
	tx->prev = NULL;
	tx->next = q->txs;
	if (q->txs)
		q->txs->prev = tx;
	q->txs = tx;
	q->ntx++;
}

/* Take @tx off its queue's list, if it is on one.  nic->core.lock held. */
static void tx_unlink(struct msgq_tx *tx)
{
	struct gni_msgq *q = tx->q;

	if (!q)
		return;
	if (tx->prev)
		tx->prev->next = tx->next;
	else
		q->txs = tx->next;
	if (tx->next)
		tx->next->prev = tx->prev;
	q->ntx--;
	tx->q = NULL;
}

/*
 * The queue goes: its sends' requests forget them.  Their events still
 * come to a snd_cq (and free the requests there); own_cq goes with the
 * queue, so the requests of its sends are freed here.
 */
static void tx_forget(struct gni_msgq *q)
{
	struct gni_nic *nic = q->nic;
	struct msgq_tx *tx;

	pthread_mutex_lock(&nic->core.lock);
	while ((tx = q->txs)) {
		tx_unlink(tx);
		nic->core.req[tx->tid].client = NULL;
		if (!q->snd_cq)
			gnicore_req_free(&nic->core, tx->tid);
		free(tx);
	}
	pthread_mutex_unlock(&nic->core.lock);
}

/* One sending of @tx: its slot's words 1.., then the flag, then events */
static void tx_put(struct msgq_tx *tx)
{
	gnicore_fma_put_flag(&tx->via, tx->img + 8, tx->len, tx->at + 8,
			     tx->rem_mdh, tx->at, tx->flag,
			     GEMINI_FMA_SYNC_WITH_FLAG |
			     GEMINI_FMA_SYNC_REMOTE_EVENT |
			     GEMINI_FMA_SYNC_LOCAL_EVENT,
			     ugni_cqe_data(GNI_CQ_EVENT_TYPE_MSGQ, 0, tx->tid),
			     0);
}

/*
 * The local event @e of send @tx came (GNI_CqGetEvent, its request
 * freed): true if it is not to be seen because the message went again.
 *
 * A failed sequence sends no flag, so its ticket's slot stays empty and
 * the destination's inbox would wait for it for ever: the message goes
 * again into the same slot, up to the NIC's max_retrans times (as SMSG,
 * GNI_SmsgSetMaxRetrans).  Unless it arrived after all: a "CQ error"
 * (OVERRUN) is the remote event's, sent after the flag, and a count read
 * past the ticket says it was taken; then the event reports success.
 * Past max_retrans the inbox is broken: later sends to it are refused
 * with GNI_RC_INVALID_STATE, and the event shows the error.
 */
bool ugni_msgq_event(struct gni_nic *nic, struct msgq_tx *tx,
		     gni_cq_entry_t *e)
{
	unsigned int st = (unsigned int)(*e >> GEMINI_CQE_STATUS_SHIFT &
					 GEMINI_CQE_STATUS_MASK);
	struct gni_msgq *q;
	struct msgq_rinst *r = NULL;
	bool again = false, arrived = false;
	int tid;

	pthread_mutex_lock(&nic->core.lock);
	q = tx->q;
	if (st && q) {
		r = &conn_at(q, tx->conn)->rem[tx->rinst];
		arrived = st == GEMINI_STATUS_OVERRUN ||
			  __atomic_load_n(&r->released, __ATOMIC_ACQUIRE) >
			  tx->ticket;
		if (!arrived && tx->tries < nic->core.smsg_max_retrans) {
			tid = gnicore_req_alloc(&nic->core, NULL, &tx->via, 0);
			if (tid >= 0) {
				nic->core.req[tid].client = tx;
				tx->tid = (uint32_t)tid;
				tx->tries++;
				again = true;
			}
		}
	}
	if (!again)
		tx_unlink(tx);
	pthread_mutex_unlock(&nic->core.lock);
	if (again) {
		gnicore_stat(&nic->core, GNI_STAT_SMSG_RETRANS_COUNT);
		tx_put(tx);
		return true;
	}
	if (arrived)
		*e &= ~((uint64_t)GEMINI_CQE_STATUS_MASK <<
			GEMINI_CQE_STATUS_SHIFT);
	else if (r)
		__atomic_store_n(&r->broken, 1, __ATOMIC_RELEASE);
	free(tx);
	return false;
}

/* Without a snd_cq: take own_cq's events (sending failed ones again) */
static void own_drain(struct gni_msgq *q)
{
	gni_cq_entry_t e;

	if (!q->own_cq)
		return;
	while (GNI_CqGetEvent(q->own_cq, &e) != GNI_RC_NOT_DONE)
		;
}

/* Take a ticket of @r, whose inbox has @slots slots; false if it is full */
static bool ticket_take(struct msgq_rinst *r, uint32_t slots, uint64_t *t)
{
	uint64_t cur = __atomic_load_n(&r->ticket, __ATOMIC_ACQUIRE);

	for (;;) {
		uint64_t rel = __atomic_load_n(&r->released, __ATOMIC_ACQUIRE);

		if (cur - rel >= slots && cur >= rel)
			return false;
		if (__atomic_compare_exchange_n(&r->ticket, &cur, cur + 1,
						false, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE)) {
			*t = cur;
			return true;
		}
	}
}

UGNI_EXPORT gni_return_t GNI_MsgqSend(gni_msgq_handle_t msgq_hndl,
				      gni_ep_handle_t ep_hndl, void *hdr,
				      uint32_t hdr_len, void *msg,
				      uint32_t msg_len, uint32_t msg_id,
				      uint8_t msg_tag)
{
	struct gni_msgq *q = msgq_hndl;
	struct gni_ep *ep = ep_hndl;
	uint64_t total = (uint64_t)hdr_len + msg_len, word;
	struct gni_nic *nic;
	struct msgq_conn *k;
	struct msgq_rinst *r;
	struct msgq_tx *tx;
	bool room;
	uint32_t j;
	int c, tid;

	/* The codes as gni_pub.h gives them */
	if (!q || !ep || ugni_ep_nic(ep) != q->nic || (hdr_len && !hdr) ||
	    (msg_len && !msg))
		return GNI_RC_INVALID_PARAM;
	if (total > q->seg->max_msg_sz)
		return GNI_RC_SIZE_ERROR;
	if (!ep->core.bound)
		return GNI_RC_NO_MATCH;
	c = conn_find(q, ep->core.remote_pe, CONN_CONNECTED);
	if (c < 0)	/* being connected: resources, not active yet */
		return conn_find(q, ep->core.remote_pe, CONN_RESERVED) < 0 ?
		       GNI_RC_NO_MATCH : GNI_RC_INVALID_STATE;
	k = conn_at(q, (uint32_t)c);
	if (total > k->rem_max)
		return GNI_RC_SIZE_ERROR;
	for (j = 0; j < k->nrem && j < GNI_MSGQ_NODE_INSTS_MAX; j++)
		if (k->rem[j].id == ep->core.remote_id)
			break;
	if (j == k->nrem || j == GNI_MSGQ_NODE_INSTS_MAX)
		return GNI_RC_NO_MATCH;	/* not a rank of its queue */
	r = &k->rem[j];
	if (__atomic_load_n(&r->broken, __ATOMIC_ACQUIRE))
		return GNI_RC_INVALID_STATE;
	nic = q->nic;
	own_drain(q);
	tx = malloc(sizeof(*tx));
	if (!tx)
		return GNI_RC_ERROR_NOMEM;
	/* The FMA of the MSGQ's CQ, to the endpoint's peer */
	tx->via = (struct gnicore_ep){ .nic = &nic->core, .fma = &q->fma->core,
				       .remote_pe = ep->core.remote_pe,
				       .remote_id = ep->core.remote_id,
				       .local_event = msg_id, .bound = true };
	pthread_mutex_lock(&nic->core.lock);
	/* own_cq must not overrun: its events free the requests */
	room = q->snd_cq || q->ntx < MSGQ_OWN_INFLIGHT;
	tid = room ? gnicore_req_alloc(&nic->core, NULL, &tx->via, 0) : -1;
	if (tid >= 0) {
		nic->core.req[tid].client = tx;
		tx->tid = (uint32_t)tid;
		tx_link(q, tx);
	}
	pthread_mutex_unlock(&nic->core.lock);
	if (tid < 0) {
		free(tx);
		return room ? GNI_RC_ERROR_RESOURCE : GNI_RC_NOT_DONE;
	}
	if (!ticket_take(r, k->rem_q, &tx->ticket)) {
		pthread_mutex_lock(&nic->core.lock);
		tx_unlink(tx);
		gnicore_req_free(&nic->core, tx->tid);
		pthread_mutex_unlock(&nic->core.lock);
		/* Read how many it released, now and then. */
		if (__atomic_fetch_add(&q->starved, 1, __ATOMIC_RELAXED) %
		    MSGQ_PULL_EVERY == 0)
			gnicore_fma_get8(&tx->via,
					 (uint64_t)((uint8_t *)&r->released -
						    q->base),
					 GNI_MEMHNDL_GET_MDH(q->mdh), r->off,
					 r->mdh,
					 ugni_cqe_data(GNI_CQ_EVENT_TYPE_MSGQ,
						       0, UGNI_TID_NONE), 0);
		free(tx);
		return GNI_RC_NOT_DONE;
	}
	tx->conn = (uint32_t)c;
	tx->rinst = j;
	tx->rem_mdh = r->mdh;
	tx->len = (uint32_t)(8 + total);
	tx->tries = 0;
	tx->flag = (tx->ticket + 1) << 32 | (uint64_t)msg_tag << 8 |
		   MSGQ_MAGIC;
	tx->at = r->off + MSGQ_INBOX_HDR +
		 tx->ticket % k->rem_q * MSGQ_SLOT(k->rem_max);
	word = hdr_len | (uint64_t)msg_len << 16 |
	       (uint64_t)nic->inst_id << 32;
	memcpy(tx->img, &tx->flag, 8);
	memcpy(tx->img + 8, &word, 8);
	if (hdr_len)
		memcpy(tx->img + MSGQ_SLOT_HDR, hdr, hdr_len);
	if (msg_len)
		memcpy(tx->img + MSGQ_SLOT_HDR + hdr_len, msg, msg_len);
	tx_put(tx);
	return GNI_RC_SUCCESS;
}

/*
 * My next message of connection @c, copied to @buf, its slot freed; false
 * if none.  q->lock held.
 */
static bool take_one(struct gni_msgq *q, uint32_t c, uint8_t *buf,
		     uint32_t *snd_id, uint32_t *snd_pe, uint8_t *tag,
		     bool peek)
{
	uint8_t *box = q->base + inbox_off(q, c, q->me);
	uint64_t *count = (uint64_t *)box, n, flag, word;
	uint32_t hlen, mlen;
	uint8_t *p;

	n = __atomic_load_n(count, __ATOMIC_RELAXED);
	p = box + MSGQ_INBOX_HDR + n % q->seg->smsg_q_sz * q->slot;
	flag = __atomic_load_n((uint64_t *)p, __ATOMIC_ACQUIRE);
	if ((flag & 0xff) != MSGQ_MAGIC || flag >> 32 != (uint32_t)(n + 1))
		return false;
	if (peek)
		return true;
	memcpy(&word, p + 8, 8);
	hlen = word & 0xffff;
	mlen = word >> 16 & 0xffff;
	*snd_id = (uint32_t)(word >> 32);
	*snd_pe = conn_at(q, c)->pe;
	*tag = (uint8_t)(flag >> 8);
	/* A length past the slot is the sender's bug: pass what fits. */
	if (hlen + mlen > q->seg->max_msg_sz)
		mlen = hlen > q->seg->max_msg_sz ? 0 :
		       q->seg->max_msg_sz - hlen;
	memcpy(buf, p + MSGQ_SLOT_HDR,
	       hlen + mlen < q->seg->max_msg_sz ? hlen + mlen :
	       q->seg->max_msg_sz);
	__atomic_store_n((uint64_t *)p, 0, __ATOMIC_RELAXED);
	/* The slot is free once the count says so: senders GET it. */
	__atomic_store_n(count, n + 1, __ATOMIC_RELEASE);
	return true;
}

/*
 * Deliver what has come until a callback says stop; how many.  *@stopped:
 * a callback said stop.
 */
static int deliver(struct gni_msgq *q, bool *stopped)
{
	uint8_t buf[GNI_MSGQ_MSG_SZ_MAX];
	uint32_t snd_id, snd_pe, c, i;
	uint8_t tag;
	int n = 0;
	bool got;

	for (i = 0; i < q->seg->num_eps; i++) {
		pthread_mutex_lock(&q->lock);
		c = (q->next_conn + i) % q->seg->num_eps;
		got = conn_state(conn_at(q, c)) != CONN_FREE &&
		      take_one(q, c, buf, &snd_id, &snd_pe, &tag, false);
		pthread_mutex_unlock(&q->lock);
		if (!got)
			continue;
		n++;
		if (!q->cb(snd_id, snd_pe, buf, tag, q->cb_data)) {
			q->next_conn = (c + 1) % q->seg->num_eps;
			*stopped = true;
			return n;
		}
		i--;	/* the same connection again */
	}
	return n;
}

/* Take the receive CQ's events: they only say a message came. */
static void drain(struct gni_msgq *q)
{
	gni_cq_entry_t e;
	gni_return_t rc;

	do {
		rc = GNI_CqGetEvent(q->rcv_cq, &e);
	} while (rc != GNI_RC_NOT_DONE && rc != GNI_RC_INVALID_PARAM);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/*
 * Blocking mode waits up to @timeout ms ((uint32_t)-1: for ever) for a
 * message; non-blocking mode only looks, and takes no other timeout.
 * As gni_pub.h says: SUCCESS once every message that came was processed
 * (none came, in time or at all, included), NOT_DONE when a callback
 * returned false and more may wait.
 */
UGNI_EXPORT gni_return_t GNI_MsgqProgress(gni_msgq_handle_t msgq_hndl,
					  uint32_t timeout)
{
	struct gni_msgq *q = msgq_hndl;
	uint64_t deadline = UINT64_MAX, now;
	bool blocking, stopped = false;
	gni_cq_entry_t e;
	gni_return_t rc;

	if (!q)
		return GNI_RC_INVALID_PARAM;
	blocking = q->seg->modes & GNI_MSGQ_MODE_BLOCKING;
	if (!blocking && timeout != (uint32_t)-1)
		return GNI_RC_INVALID_PARAM;
	if (timeout != (uint32_t)-1)
		deadline = now_ms() + timeout;
	own_drain(q);
	for (;;) {
		drain(q);
		if (deliver(q, &stopped))
			return stopped ? GNI_RC_NOT_DONE : GNI_RC_SUCCESS;
		if (!blocking)
			return GNI_RC_SUCCESS;
		now = now_ms();
		if (now >= deadline)
			return GNI_RC_SUCCESS;
		/* A message's remote event comes after its flag. */
		rc = GNI_CqWaitEvent(q->rcv_cq, deadline == UINT64_MAX ?
				     (uint64_t)-1 : deadline - now, &e);
		if (rc != GNI_RC_SUCCESS && rc != GNI_RC_TIMEOUT &&
		    rc != GNI_RC_ERROR_RESOURCE &&
		    rc != GNI_RC_TRANSACTION_ERROR)
			return rc;
	}
}

/* GNI_RC_SUCCESS when no message waits for this rank, else NOT_DONE */
UGNI_EXPORT gni_return_t GNI_MsgqIdle(gni_msgq_handle_t msgq_hndl)
{
	struct gni_msgq *q = msgq_hndl;
	uint32_t c;
	bool busy = false;

	if (!q)
		return GNI_RC_INVALID_PARAM;
	pthread_mutex_lock(&q->lock);
	for (c = 0; c < q->seg->num_eps && !busy; c++)
		busy = conn_state(conn_at(q, c)) != CONN_FREE &&
		       take_one(q, c, NULL, NULL, NULL, NULL, true);
	pthread_mutex_unlock(&q->lock);
	return busy ? GNI_RC_NOT_DONE : GNI_RC_SUCCESS;
}
