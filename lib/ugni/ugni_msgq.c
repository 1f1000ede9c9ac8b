// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The shared message queue's setup (ugni_msgq.h describes the queue):
 * the node's segment, made or attached to, and the connection records
 * of remote nodes.
 */
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
#include <unistd.h>

#include "ugni_msgq.h"

#define MSGQ_CQ_MIN		64u
#define MSGQ_OWN_CQ		256u	/* local events without a snd_cq */

static uint64_t layout_size(const gni_msgq_attr_t *a)
{
	uint64_t inbox = UGNI_MSGQ_INBOX_HDR +
			 (uint64_t)a->smsg_q_sz * UGNI_MSGQ_SLOT(a->max_msg_sz);
	uint64_t n = UGNI_MSGQ_HDR +
		     (uint64_t)a->num_msgq_eps * UGNI_MSGQ_CONN_SIZE +
		     (uint64_t)a->num_msgq_eps * a->nloc_insts * inbox;

	return (n + UGNI_MSGQ_HUGE_PAGE - 1) / UGNI_MSGQ_HUGE_PAGE *
	       UGNI_MSGQ_HUGE_PAGE;
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
static bool seg_live(const struct ugni_msgq_seg *s)
{
	uint32_t i;

	if (s->magic != UGNI_MSGQ_SEG_MAGIC)
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
	struct ugni_msgq_seg *s = q->seg;
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
	memcpy(s->inst[free_i].mdh, &q->mdh, sizeof(q->mdh));
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
	struct ugni_msgq_seg *s;
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
	s->magic = UGNI_MSGQ_SEG_MAGIC;
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
	q->slot = UGNI_MSGQ_SLOT(a->max_msg_sz);
	q->inbox = UGNI_MSGQ_INBOX_HDR + a->smsg_q_sz * q->slot;
	seg_lock(q);
	rc = seg_map(q, a, q->size);
	if (rc == GNI_RC_SUCCESS) {
		q->seg = (struct ugni_msgq_seg *)q->base;
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
	struct ugni_msgq_seg *s;
	bool last;

	if (!q)
		return GNI_RC_INVALID_PARAM;
	ugni_msgq_own_drain(q);
	ugni_msgq_tx_forget(q);
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
int ugni_msgq_conn_find(const struct gni_msgq *q, uint32_t pe, uint32_t state)
{
	uint32_t c;

	for (c = 0; c < q->seg->num_eps; c++) {
		const struct ugni_msgq_conn *k = conn_at(q, c);

		if (conn_state(k) >= state && k->pe == pe)
			return (int)c;
	}
	return -1;
}

/* With the file lock: @pe's record, reserved (its inboxes empty) if new */
static int conn_get(struct gni_msgq *q, uint32_t pe)
{
	int c = ugni_msgq_conn_find(q, pe, UGNI_MSGQ_CONN_RESERVED);
	struct ugni_msgq_conn *k;
	uint32_t i, f;

	if (c >= 0)
		return c;
	for (f = 0; f < q->seg->num_eps; f++)
		if (conn_state(conn_at(q, f)) == UGNI_MSGQ_CONN_FREE)
			break;
	if (f == q->seg->num_eps)
		return -1;
	k = conn_at(q, f);
	memset(k, 0, sizeof(*k));
	for (i = 0; i < q->seg->nloc_insts; i++)
		memset(q->base + inbox_off(q, f, i), 0, q->inbox);
	k->pe = pe;
	__atomic_store_n(&k->state, UGNI_MSGQ_CONN_RESERVED, __ATOMIC_RELEASE);
	return (int)f;
}

UGNI_EXPORT gni_return_t GNI_MsgqGetConnAttrs(gni_msgq_handle_t msgq_hndl,
					      uint32_t pe_addr,
					      gni_msgq_ep_attr_t *attrs,
					      uint32_t *attrs_size)
{
	struct gni_msgq *q = msgq_hndl;
	const struct ugni_msgq_seg *s;
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
		memcpy(&attrs->insts[n].mdh, s->inst[i].mdh,
		       sizeof(attrs->insts[n].mdh));
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
	inbox = UGNI_MSGQ_INBOX_HDR + (uint64_t)a->smsg_q_sz *
		UGNI_MSGQ_SLOT(a->max_msg_sz);
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
	struct ugni_msgq_conn *k;
	uint32_t i;
	int c;

	if (!q || !attrs || pe_addr == q->nic->pe ||
	    !ep_attrs_ok(attrs, pe_addr))
		return GNI_RC_INVALID_PARAM;
	seg_lock(q);
	c = conn_get(q, pe_addr);
	if (c < 0 ||
	    conn_state(conn_at(q, (uint32_t)c)) == UGNI_MSGQ_CONN_CONNECTED) {
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
	__atomic_store_n(&k->state, UGNI_MSGQ_CONN_CONNECTED, __ATOMIC_RELEASE);
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
	c = ugni_msgq_conn_find(q, pe_addr, UGNI_MSGQ_CONN_RESERVED);
	if (c >= 0)
		__atomic_store_n(&conn_at(q, (uint32_t)c)->state,
				 UGNI_MSGQ_CONN_FREE, __ATOMIC_RELEASE);
	seg_unlock(q);
	return c < 0 ? GNI_RC_INVALID_PARAM : GNI_RC_SUCCESS;
}
