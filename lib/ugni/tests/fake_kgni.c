// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The fake /dev/kgniN of test_ugni (fake_kgni.h).  Each command checks
 * the conventions of uapi/kgni_ioctl.h that the library must keep (@size
 * is the structure's, reserved and out fields are 0, flags are known)
 * and answers EINVAL, counted in fake.bad_size, when it does not.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "fake_kgni.h"
#include "gemini_mh.h"
#include "gemini_nic.h"

int __real_open(const char *path, int flags, ...);
int __real_ioctl(int fd, unsigned long req, ...);
void *__real_mmap(void *addr, size_t len, int prot, int flags, int fd,
		  off_t off);
int __wrap_open(const char *path, int flags, ...);
int __wrap_ioctl(int fd, unsigned long req, ...);
void *__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd,
		  off_t off);

struct fake_kgni fake;

#define MAX_FD		1024
#define PAGE		4096ull
/* mmap offsets: the object's kind in bits 31..28, its id above bit 16 */
#define OFF_RING	0x10000000ull
#define OFF_USER	0x20000000ull
#define OFF_FMA		0x30000000ull
#define FMA_WINDOW	(64u << 10)

static bool fake_fd[MAX_FD];

/* A CQ the fake made: its ring and user page, once mapped */
static struct {
	bool used;
	uint32_t entries, wr;
	volatile uint64_t *ring, *user;
} cqs[FAKE_MAX_CQ];

static void err_free(struct fake_err *e);

int __wrap_open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;
	int fd;

	if (flags & O_CREAT) {
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	if (strncmp(path, "/dev/kgni", 9))
		return __real_open(path, flags, mode);
	fd = __real_open("/dev/null", O_RDWR | O_CLOEXEC);
	if (fd >= 0 && fd < MAX_FD) {
		unsigned int i;

		fake_fd[fd] = true;
		/* A new file: an earlier one of that number is closed. */
		for (i = 0; i < FAKE_MAX_REGS; i++)
			if (fake.regs[i].fd == fd)
				fake.regs[i].used = false;
		for (i = 0; i < FAKE_MAX_ERRS; i++)
			if (fake.errs[i].used && fake.errs[i].fd == fd)
				err_free(&fake.errs[i]);
		fake.cdm_ptag[fd] = 0;
	}
	return fd;
}

/* Keep a registration of file @fd for KGNI_IOC_MEM_QUERY (if room). */
static void reg_add(int fd, const __u64 h[2], uint64_t addr, uint64_t len)
{
	unsigned int i;

	for (i = 0; i < FAKE_MAX_REGS; i++) {
		struct fake_reg *g = &fake.regs[i];

		if (g->used)
			continue;
		g->used = true;
		g->fd = fd;
		g->seq = ++fake.reg_seq;
		g->hndl[0] = h[0];
		g->hndl[1] = h[1];
		g->addr = addr;
		g->len = len;
		return;
	}
}

static struct fake_reg *reg_find(int fd, const __u64 h[2])
{
	unsigned int i;

	for (i = 0; i < FAKE_MAX_REGS; i++) {
		struct fake_reg *g = &fake.regs[i];

		if (g->used && g->fd == fd && g->hndl[0] == h[0] &&
		    g->hndl[1] == h[1])
			return g;
	}
	return NULL;
}

/* Is the MDD of vMDH index @i held by a registration of the fake? */
static bool vmdh_taken(uint32_t i)
{
	unsigned int k;

	for (k = 0; k < FAKE_MAX_REGS; k++)
		if (fake.regs[k].used &&
		    (fake.regs[k].hndl[0] >> GEMINI_MH_MDH_SHIFT &
		     GEMINI_MH_MDH_MASK) == KGNI_VMDH_MDH(i))
			return true;
	return false;
}

/*
 * The MDH of a registration with @flags and the vMDH fields as kgni
 * checks them: the next of the fake's, or a vMDH index's MDD.  -1 and
 * EINVAL, EBUSY or ENOSPC in *@err when kgni would refuse them.
 */
static int64_t reg_mdh(uint32_t flags, uint32_t index, uint32_t count,
		       int *err)
{
	uint32_t i;

	*err = EINVAL;
	if (!(flags & KGNI_MEM_VMDH)) {
		if (index || count)
			return -1;
		return ++fake.next_mdh;
	}
	if (!count || count > KGNI_VMDH_ENTRIES ||
	    (index != KGNI_VMDH_ANY && index >= count))
		return -1;
	if (index != KGNI_VMDH_ANY) {
		*err = EBUSY;
		return vmdh_taken(index) ? -1 : (int64_t)KGNI_VMDH_MDH(index);
	}
	for (i = 0; i < count; i++)
		if (!vmdh_taken(i))
			return KGNI_VMDH_MDH(i);
	*err = ENOSPC;
	return -1;
}

void fake_handle(uint64_t va, uint32_t mdh, uint64_t npages, uint8_t flags,
		 __u64 out[2])
{
	uint64_t q1 = (va >> GEMINI_MH_VA_SHIFT & GEMINI_MH_VA_MASK) |
		      (uint64_t)(mdh & GEMINI_MH_MDH_MASK) << GEMINI_MH_MDH_SHIFT;
	uint64_t q2 = (npages & GEMINI_MH_NPAGES_MASK) |
		      12ull << GEMINI_MH_PSIZE_SHIFT |
		      (uint64_t)flags << GEMINI_MH_FLAGS_SHIFT;

	out[0] = q1;
	out[1] = q2 | (uint64_t)gemini_mh_crc(q1, q2) << GEMINI_MH_CRC_SHIFT;
}

/* Is the structure at @arg of @size bytes as the library must pass it? */
static bool sized(const void *arg, uint32_t size)
{
	if (*(const uint32_t *)arg == size)
		return true;
	fake.bad_size++;
	return false;
}

static int cq_create(struct kgni_cq_create *c)
{
	uint32_t id;

	if (!sized(c, sizeof(*c)) || c->cq_id || c->entries < 2 ||
	    c->entries > KGNI_CQ_MAX_ENTRIES ||
	    (c->flags & ~KGNI_CQ_BLOCKING))
		return EINVAL;
	for (id = 1; id < FAKE_MAX_CQ && cqs[id].used; id++)
		;
	if (id == FAKE_MAX_CQ)
		return ENOSPC;
	cqs[id].used = true;
	cqs[id].entries = c->entries;
	cqs[id].wr = 0;
	cqs[id].ring = cqs[id].user = NULL;
	c->cq_id = id;
	c->ring_offset = OFF_RING + ((uint64_t)id << 16);
	c->ring_size = (c->entries * 8ull + PAGE - 1) & ~(PAGE - 1);
	c->user_offset = OFF_USER + ((uint64_t)id << 16);
	return 0;
}

static int mem_register(int fd, struct kgni_mem_register *r)
{
	uint64_t first = r->addr & ~(PAGE - 1);
	int64_t mdh;
	int err;

	fake.reg = *r;
	if (!sized(r, sizeof(*r)) ||
	    (r->flags & ~(KGNI_MEM_READONLY | KGNI_MEM_USE_GART |
			  KGNI_MEM_VMDH)) ||
	    r->mem_hndl[0] || r->mem_hndl[1] || r->reserved || !r->len)
		return EINVAL;
	mdh = reg_mdh(r->flags, r->vmdh_index, r->vmdh_count, &err);
	if (mdh < 0)
		return err;
	fake_handle(first, (uint32_t)mdh,
		    (r->addr + r->len - first + PAGE - 1) / PAGE,
		    GEMINI_MH_FLAG_GART | (r->flags & KGNI_MEM_READONLY ?
					   GEMINI_MH_FLAG_READONLY : 0),
		    r->mem_hndl);
	reg_add(fd, r->mem_hndl, r->addr, r->len);
	fake.reg = *r;
	return 0;
}

static int mem_register_segments(int fd, struct kgni_mem_register_segments *r)
{
	const struct kgni_mem_segment *s =
		(const struct kgni_mem_segment *)(uintptr_t)r->segments;
	uint64_t pages = 0, first, len = 0;
	int64_t mdh;
	uint32_t i;
	int err;

	fake.segs = *r;
	if (!sized(r, sizeof(*r)) ||
	    (r->flags & ~(KGNI_MEM_READONLY | KGNI_MEM_VMDH)) ||
	    r->mem_hndl[0] || r->mem_hndl[1] || r->reserved || !r->nsegs ||
	    r->nsegs > KGNI_MEM_MAX_SEGMENTS || !s)
		return EINVAL;
	mdh = reg_mdh(r->flags, r->vmdh_index, r->vmdh_count, &err);
	if (mdh < 0)
		return err;
	for (i = 0; i < r->nsegs; i++) {
		if (i < FAKE_MAX_SEGS)
			fake.seg[i] = s[i];
		first = s[i].addr & ~(PAGE - 1);
		pages += (s[i].addr + s[i].len - first + PAGE - 1) / PAGE;
		len += s[i].len;
	}
	fake_handle(0, (uint32_t)mdh, pages,
		    GEMINI_MH_FLAG_GART | (r->flags & KGNI_MEM_READONLY ?
					   GEMINI_MH_FLAG_READONLY : 0),
		    r->mem_hndl);
	reg_add(fd, r->mem_hndl, s[0].addr, len);
	fake.segs = *r;
	return 0;
}

/* KGNI_IOC_MEM_QUERY: the file's registrations in the order made */
static int mem_query(int fd, struct kgni_mem_query *q)
{
	const struct fake_reg *after = NULL, *next = NULL;
	unsigned int i;

	fake.query = *q;
	if (!sized(q, sizeof(*q)) || q->flags || q->addr || q->len)
		return EINVAL;
	if (q->mem_hndl[0] || q->mem_hndl[1]) {
		after = reg_find(fd, q->mem_hndl);
		if (!after)
			return EINVAL;
	}
	for (i = 0; i < FAKE_MAX_REGS; i++) {
		const struct fake_reg *g = &fake.regs[i];

		if (!g->used || g->fd != fd || (after && g->seq <= after->seq))
			continue;
		if (!next || g->seq < next->seq)
			next = g;
	}
	if (!next)
		return ENOENT;
	q->mem_hndl[0] = next->hndl[0];
	q->mem_hndl[1] = next->hndl[1];
	q->addr = next->addr;
	q->len = next->len;
	return 0;
}

static int rdma_post(struct kgni_rdma_post *p)
{
	const uint32_t flags = KGNI_RDMA_FENCE | KGNI_RDMA_SINGLE_CHANNEL;
	const uint32_t events = KGNI_RDMA_EV_LOCAL | KGNI_RDMA_EV_GLOBAL |
				KGNI_RDMA_EV_REMOTE;
	const uint32_t dlvr = KGNI_RDMA_DLVR_NO_ADAPT | KGNI_RDMA_DLVR_NO_HASH |
			      KGNI_RDMA_DLVR_NO_RADAPT;

	fake.post = *p;		/* as passed: out fields included */
	if (!sized(p, sizeof(*p)) || (p->flags & ~flags) ||
	    (p->events & ~events) || (p->dlvr_mode & ~dlvr) || p->reserved ||
	    (p->type != KGNI_RDMA_PUT && p->type != KGNI_RDMA_GET) ||
	    !p->length || p->length > KGNI_RDMA_MAX_LENGTH ||
	    ((p->local_data | p->global_data) & ~GEMINI_CQE_DATA_MASK) ||
	    !p->cq_id || p->cq_id >= FAKE_MAX_CQ || !cqs[p->cq_id].used ||
	    ((p->flags & KGNI_RDMA_FENCE) &&
	     !(p->flags & KGNI_RDMA_SINGLE_CHANNEL)))
		return EINVAL;
	p->channel = 1;
	p->slot = 7;
	return 0;
}

/* --- datagrams ------------------------------------------------------------ */

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

/*
 * The datagram a TEST or CANCEL names: by id alone (the first posted of
 * that id, as kgni looks it up) or by key
 */
static struct fake_dgram *dgram_find(uint32_t flags, uint64_t key,
				     uint64_t id)
{
	struct fake_dgram *found = NULL;
	unsigned int i;

	for (i = 0; i < FAKE_MAX_DGRAMS; i++) {
		struct fake_dgram *g = &fake.dgram[i];

		if (!g->used || (flags & KGNI_DGRAM_BY_ID ?
				 id == UINT64_MAX || g->post.id != id :
				 g->post.ep_key != key))
			continue;
		if (!found || g->seq < found->seq)
			found = g;
	}
	return found;
}

int fake_dgram_end(uint64_t key, uint32_t state, const void *data,
		   uint16_t len, uint32_t pe, uint32_t inst)
{
	struct fake_dgram *g = dgram_find(0, key, 0);

	if (!g || g->state != KGNI_DGRAM_PENDING ||
	    len > KGNI_DGRAM_MAX_DATA)
		return -1;
	g->state = state;
	g->ended = ++fake.dgrams_ended;
	g->peer_len = state == KGNI_DGRAM_COMPLETED ? len : 0;
	if (g->peer_len)
		memcpy(g->peer_data, data, len);
	g->peer_pe = pe;
	g->peer_inst = inst;
	return 0;
}

void fake_dgram_end_on_wait(uint64_t key, uint32_t state, const void *data,
			    uint16_t len, uint32_t pe, uint32_t inst)
{
	struct fake_dgram_end *e = &fake.on_wait;

	e->armed = true;
	e->key = key;
	e->state = state;
	e->len = len;
	if (len && len <= KGNI_DGRAM_MAX_DATA)
		memcpy(e->data, data, len);
	e->pe = pe;
	e->inst = inst;
}

/* A wait sees the armed datagram end; -1 if none is armed (for @key). */
static int wait_ends(bool any, uint64_t key)
{
	struct fake_dgram_end *e = &fake.on_wait;

	if (!e->armed || (!any && e->key != key))
		return -1;
	e->armed = false;
	return fake_dgram_end(e->key, e->state, e->data, e->len, e->pe,
			      e->inst);
}

unsigned int fake_dgrams(void)
{
	unsigned int i, n = 0;

	for (i = 0; i < FAKE_MAX_DGRAMS; i++)
		n += fake.dgram[i].used;
	return n;
}

static int dgram_post(struct kgni_dgram_post *p)
{
	unsigned int i, slot = FAKE_MAX_DGRAMS;

	if (!sized(p, sizeof(*p)) || (p->flags & ~KGNI_DGRAM_BOUND) ||
	    p->reserved)
		return EINVAL;
	if (p->data_len > KGNI_DGRAM_MAX_DATA)
		return EMSGSIZE;
	if (p->data_len && !p->data)
		return EFAULT;
	for (i = 0; i < FAKE_MAX_DGRAMS; i++) {
		if (fake.dgram[i].used && fake.dgram[i].post.ep_key == p->ep_key)
			return EBUSY;
		if (!fake.dgram[i].used && slot == FAKE_MAX_DGRAMS)
			slot = i;
	}
	if (slot == FAKE_MAX_DGRAMS)
		return ENOSPC;
	memset(&fake.dgram[slot], 0, sizeof(fake.dgram[slot]));
	fake.dgram[slot].used = true;
	fake.dgram[slot].seq = ++fake.dgrams_posted;
	fake.dgram[slot].post = *p;
	fake.dgram[slot].state = KGNI_DGRAM_PENDING;
	if (p->data_len)
		memcpy(fake.dgram[slot].data, (const void *)(uintptr_t)p->data,
		       p->data_len);
	return 0;
}

static void wait_seen(uint32_t timeout_ms)
{
	fake.waits[fake.nwaits++ % FAKE_MAX_WAITS] = timeout_ms;
}

/* A signal during the wait: -1 if none is due */
static int interrupted(unsigned int cmd)
{
	if (!fake.eintr[cmd])
		return -1;
	fake.eintr[cmd]--;
	sleep_ms(fake.eintr_ms);
	return 0;
}

/* Nothing more comes: the wait runs out (the fake never sleeps it). */
static int ran_out(uint32_t timeout_ms)
{
	/* For ever, with nothing to end, would hang: tell the test. */
	return timeout_ms == KGNI_DGRAM_FOREVER ? EDEADLK : ETIMEDOUT;
}

static int dgram_test(struct kgni_dgram_test *t)
{
	struct fake_dgram *g;
	uint16_t n;

	if (!sized(t, sizeof(*t)) || (t->flags & ~KGNI_DGRAM_BY_ID) ||
	    t->reserved16 || t->reserved)
		return EINVAL;
	if (!interrupted(KGNI_CMD_DGRAM_TEST))
		return EINTR;
	g = dgram_find(t->flags, t->ep_key, t->id);
	if (!g)
		return ENOENT;
	if (g->state == KGNI_DGRAM_PENDING && t->timeout_ms &&
	    wait_ends(false, t->ep_key)) {
		t->state = KGNI_DGRAM_PENDING;
		return ran_out(t->timeout_ms);
	}
	t->state = g->state;
	if (g->state == KGNI_DGRAM_PENDING)
		return 0;
	t->remote_pe = g->peer_pe;
	t->remote_inst = g->peer_inst;
	t->recv_len = g->peer_len;
	n = g->peer_len < g->post.buf_size ? g->peer_len : g->post.buf_size;
	if (t->buf && n)
		memcpy((void *)(uintptr_t)t->buf, g->peer_data, n);
	g->used = false;	/* collected */
	return 0;
}

static int dgram_probe(struct kgni_dgram_probe *pr)
{
	struct fake_dgram *g = NULL;
	unsigned int i;

	if (!sized(pr, sizeof(*pr)) || pr->flags)
		return EINVAL;
	if (!interrupted(KGNI_CMD_DGRAM_PROBE))
		return EINTR;
	for (;;) {
		for (i = 0; i < FAKE_MAX_DGRAMS; i++) {
			struct fake_dgram *h = &fake.dgram[i];

			if (h->used && h->state != KGNI_DGRAM_PENDING &&
			    (!g || h->ended < g->ended))
				g = h;
		}
		if (g || !pr->timeout_ms || wait_ends(true, 0))
			break;
	}
	if (!g)
		return pr->timeout_ms ? ran_out(pr->timeout_ms) : ENOENT;
	pr->state = g->state;
	pr->ep_key = g->post.ep_key;
	pr->id = g->post.id;
	/* Only a completed datagram has a peer that said who it is. */
	pr->remote_pe = g->state == KGNI_DGRAM_COMPLETED ? g->peer_pe : 0;
	pr->remote_inst = g->state == KGNI_DGRAM_COMPLETED ? g->peer_inst : 0;
	return 0;
}

static int dgram_cancel(struct kgni_dgram_cancel *c)
{
	struct fake_dgram *g;

	if (!sized(c, sizeof(*c)) || (c->flags & ~KGNI_DGRAM_BY_ID))
		return EINVAL;
	g = dgram_find(c->flags, c->ep_key, c->id);
	if (!g || g->state != KGNI_DGRAM_PENDING)
		return ENOENT;
	g->state = KGNI_DGRAM_TERMINATED;
	g->ended = ++fake.dgrams_ended;
	return 0;
}

/* Error subscriptions */

static struct fake_err *err_find(int fd, uint32_t id)
{
	unsigned int i;

	for (i = 0; i < FAKE_MAX_ERRS; i++)
		if (fake.errs[i].used && fake.errs[i].fd == fd &&
		    fake.errs[i].id == id)
			return &fake.errs[i];
	return NULL;
}

static void err_deliver(struct fake_err *e, const struct kgni_err_event *ev)
{
	struct kgni_err_event *slot;

	slot = &e->ring[(e->head + e->count) % e->size];
	if (e->count == e->size)
		e->head = (e->head + 1) % e->size;
	else
		e->count++;
	*slot = *ev;
	slot->serial_number = ++e->serial;
}

unsigned int fake_err_post(uint8_t category, uint16_t code, uint8_t ptag,
			   uint64_t info0)
{
	struct kgni_err_event ev = {
		.error_code = code, .error_category = category, .ptag = ptag,
		.timestamp = 1, .info_mmrs = { info0 },
	};
	unsigned int i, n = 0;

	for (i = 0; i < FAKE_MAX_ERRS; i++) {
		struct fake_err *e = &fake.errs[i];

		if (!e->used || !(e->mask & category) ||
		    (ptag && e->ptag && ptag != e->ptag))
			continue;
		err_deliver(e, &ev);
		n++;
	}
	return n;
}

unsigned int fake_errs(void)
{
	unsigned int i, n = 0;

	for (i = 0; i < FAKE_MAX_ERRS; i++)
		n += fake.errs[i].used;
	return n;
}

static void err_free(struct fake_err *e)
{
	free(e->ring);
	memset(e, 0, sizeof(*e));
}

static int err_subscribe(int fd, struct kgni_err_subscribe *s)
{
	unsigned int i;
	struct fake_err *e = NULL;

	if (!sized(s, sizeof(*s)) || (s->flags & ~KGNI_ERR_ALL_PTAGS) ||
	    s->reserved || s->id || s->mask > KGNI_ERR_MASK_ALL ||
	    !s->eeq_size || s->eeq_size > KGNI_ERR_USER_MAX_EEQ)
		return EINVAL;
	if (s->flags & KGNI_ERR_ALL_PTAGS ? !fake.privileged :
	    !fake.cdm_ptag[fd])
		return EPERM;
	for (i = 0; i < FAKE_MAX_ERRS && !e; i++)
		if (!fake.errs[i].used)
			e = &fake.errs[i];
	if (!e)
		return ENOSPC;
	e->ring = calloc(s->eeq_size, sizeof(*e->ring));
	if (!e->ring)
		return ENOMEM;
	e->used = true;
	e->fd = fd;
	e->id = (++fake.err_seq << 4) | (uint32_t)(e - fake.errs + 1);
	e->mask = s->mask;
	e->ptag = s->flags & KGNI_ERR_ALL_PTAGS ? 0 : fake.cdm_ptag[fd];
	e->size = s->eeq_size;
	s->id = e->id;
	return 0;
}

static int err_wait(int fd, struct kgni_err_wait *w, unsigned int cmd)
{
	bool block = w->flags & KGNI_ERR_WAIT_BLOCK;
	struct kgni_err_event *out;
	struct fake_err *e;
	uint32_t want, n;

	if (!sized(w, sizeof(*w)) || (w->flags & ~KGNI_ERR_WAIT_BLOCK) ||
	    w->reserved || w->num_events || w->state || !w->events_size ||
	    w->events_size > KGNI_ERR_USER_MAX_EEQ ||
	    (!block && w->timeout_ms))
		return EINVAL;
	e = err_find(fd, w->id);
	if (!e)
		return EINVAL;
	out = (struct kgni_err_event *)(uintptr_t)w->events;
	if (!out)
		return EFAULT;
	memset(out, 0, w->events_size * sizeof(*out));
	if (block && !e->count) {
		if (!interrupted(cmd))
			return EINTR;
		if (!fake.err_on_wait)
			return EDEADLK;	/* for ever: tell the test */
		fake.err_on_wait = false;
		err_deliver(e, &fake.err_next);
	}
	want = w->events_size < e->size ? w->events_size : e->size;
	for (n = 0; n < want && e->count; n++) {
		out[n] = e->ring[e->head];
		e->head = (e->head + 1) % e->size;
		e->count--;
	}
	/* Nothing more comes during the fake's timeout. */
	if (block && n && n < want && w->timeout_ms)
		w->state = KGNI_ERR_WAIT_TIMED_OUT;
	w->num_events = n;
	return 0;
}

static int err_cmd(int fd, unsigned int cmd, void *arg)
{
	struct fake_err *e;

	switch (cmd) {
	case KGNI_CMD_ERR_SUBSCRIBE:
		fake.esub = *(struct kgni_err_subscribe *)arg;
		return err_subscribe(fd, arg);
	case KGNI_CMD_ERR_RELEASE: {
		struct kgni_err_release *r = arg;

		if (!sized(r, sizeof(*r)) || r->flags || r->reserved)
			return EINVAL;
		e = err_find(fd, r->id);
		if (!e)
			return EINVAL;
		if (fake.err_busy)
			return EBUSY;
		err_free(e);
		return 0;
	}
	case KGNI_CMD_ERR_MASK: {
		struct kgni_err_mask *m = arg;
		bool set = m->flags & KGNI_ERR_MASK_SET;

		if (!sized(m, sizeof(*m)) || (m->flags & ~KGNI_ERR_MASK_SET) ||
		    m->reserved || m->old_mask || m->mask > KGNI_ERR_MASK_ALL ||
		    (!set && m->mask))
			return EINVAL;
		e = err_find(fd, m->id);
		if (!e)
			return EINVAL;
		m->old_mask = e->mask;
		if (set)
			e->mask = m->mask;
		return 0;
	}
	case KGNI_CMD_ERR_WAIT:
		fake.ewait = *(struct kgni_err_wait *)arg;
		return err_wait(fd, arg, cmd);
	case KGNI_CMD_ERR_PTAG: {
		struct kgni_err_ptag *p = arg;

		fake.eptag = *p;
		if (!sized(p, sizeof(*p)) || p->flags || p->ptag > 255)
			return EINVAL;
		e = err_find(fd, p->id);
		if (!e)
			return EINVAL;
		if (!fake.privileged && p->ptag != fake.cdm_ptag[fd])
			return EPERM;
		e->ptag = (uint8_t)p->ptag;
		return 0;
	}
	default:
		return ENOTTY;
	}
}

static int fake_cmd(int fd, unsigned int cmd, void *arg)
{
	int err = fake.fail[cmd];

	fake.calls[cmd]++;
	fake.fail[cmd] = 0;
	switch (cmd) {
	case KGNI_CMD_CDM_ATTACH: {
		struct kgni_cdm_attach *a = arg;

		if (err)
			return err;
		if (!sized(a, sizeof(*a)))
			return EINVAL;
		a->nic_pe = FAKE_NIC_PE;
		fake.cdm_ptag[fd] = (uint8_t)a->ptag;
		return 0;
	}
	case KGNI_CMD_ERR_SUBSCRIBE:
	case KGNI_CMD_ERR_RELEASE:
	case KGNI_CMD_ERR_MASK:
	case KGNI_CMD_ERR_WAIT:
	case KGNI_CMD_ERR_PTAG:
		return err ? err : err_cmd(fd, cmd, arg);
	case KGNI_CMD_CQ_CREATE:
		return err ? err : cq_create(arg);
	case KGNI_CMD_CQ_DESTROY: {
		struct kgni_cq_destroy *d = arg;

		if (!sized(d, sizeof(*d)) || !d->cq_id ||
		    d->cq_id >= FAKE_MAX_CQ || !cqs[d->cq_id].used)
			return EINVAL;
		cqs[d->cq_id].used = false;
		return 0;
	}
	case KGNI_CMD_FMA_ALLOC: {
		struct kgni_fma_alloc *f = arg;
		static uint32_t next_fma;

		if (err)
			return err;
		if (!sized(f, sizeof(*f)) || !f->cq_id)
			return EINVAL;
		f->fma_id = next_fma++ % GEMINI_NUM_FMA;
		f->user_offset = OFF_FMA;
		f->put_wc_offset = OFF_FMA + 0x100000;
		f->put_uc_offset = OFF_FMA + 0x200000;
		f->get_offset = OFF_FMA + 0x300000;
		f->window_size = FMA_WINDOW;
		return 0;
	}
	case KGNI_CMD_FMA_FREE:
		return err;
	case KGNI_CMD_MEM_DEREGISTER: {
		struct kgni_mem_deregister *d = arg;
		struct fake_reg *g;

		if (err)
			return err;
		/* Lenient: a handle the fake did not keep is taken too. */
		g = reg_find(fd, d->mem_hndl);
		if (g)
			g->used = false;
		return 0;
	}
	case KGNI_CMD_MEM_REGISTER:
		if (err) {
			fake.reg = *(struct kgni_mem_register *)arg;
			return err;
		}
		return mem_register(fd, arg);
	case KGNI_CMD_MEM_REGISTER_SEGMENTS:
		if (err) {
			fake.segs = *(struct kgni_mem_register_segments *)arg;
			return err;
		}
		return mem_register_segments(fd, arg);
	case KGNI_CMD_MEM_QUERY:
		if (err) {
			fake.query = *(struct kgni_mem_query *)arg;
			return err;
		}
		return mem_query(fd, arg);
	case KGNI_CMD_NTT_QUERY: {
		struct kgni_ntt_query *n = arg;

		if (err)
			return err;
		if (!sized(n, sizeof(*n)) || n->flags || n->gran ||
		    n->reserved)
			return EINVAL;
		n->gran = fake.ntt_gran;
		return 0;
	}
	case KGNI_CMD_RDMA_POST:
		if (err) {
			fake.post = *(struct kgni_rdma_post *)arg;
			return err;
		}
		return rdma_post(arg);
	case KGNI_CMD_DGRAM_POST:
		fake.dpost = *(struct kgni_dgram_post *)arg;
		return err ? err : dgram_post(arg);
	case KGNI_CMD_DGRAM_TEST:
		fake.dtest = *(struct kgni_dgram_test *)arg;
		wait_seen(fake.dtest.timeout_ms);
		return err ? err : dgram_test(arg);
	case KGNI_CMD_DGRAM_PROBE:
		fake.dprobe = *(struct kgni_dgram_probe *)arg;
		wait_seen(fake.dprobe.timeout_ms);
		return err ? err : dgram_probe(arg);
	case KGNI_CMD_DGRAM_CANCEL:
		fake.dcancel = *(struct kgni_dgram_cancel *)arg;
		return err ? err : dgram_cancel(arg);
	case KGNI_CMD_NTT_CONFIG: {
		struct kgni_ntt_config *c = arg;

		fake.nttc = *c;
		if (c->table && c->group_size)
			memcpy(fake.ntt_table, (void *)(uintptr_t)c->table,
			       sizeof(uint32_t) * (c->group_size < 4 ?
						   c->group_size : 4));
		if (err)
			return err;
		if (!sized(c, sizeof(*c)) || c->reserved)
			return EINVAL;
		if (!c->flags)
			c->base = fake.ntt_next_base;
		return 0;
	}
	case KGNI_CMD_BI_CONFIG: {
		struct kgni_bi_config *c = arg;

		fake.bic = *c;
		if (err)
			return err;
		if (!sized(c, sizeof(*c)) || c->reserved ||
		    (c->flags & ~KGNI_BI_SET))
			return EINVAL;
		if (c->flags & KGNI_BI_SET) {
			fake.bi_state.current_bw = c->bw;
			fake.bi_state.current_modes = c->modes;
			fake.bi_state.cle_seqnum++;
			fake.bi_state.hss_seqnum++;
		}
		c->current_bw = fake.bi_state.current_bw;
		c->current_aot_bw = fake.bi_state.current_aot_bw;
		c->current_norbs = fake.bi_state.current_norbs;
		c->current_modes = fake.bi_state.current_modes;
		c->sys_def_bw = fake.bi_state.sys_def_bw;
		c->sys_def_aot_bw = fake.bi_state.sys_def_aot_bw;
		c->cle_seqnum = fake.bi_state.cle_seqnum;
		c->hss_seqnum = fake.bi_state.hss_seqnum;
		return 0;
	}
	case KGNI_CMD_JOB_CONFIGURE: {
		struct kgni_job_configure *j = arg;

		fake.jobc = *j;
		if (err)
			return err;
		return sized(j, sizeof(*j)) ? 0 : EINVAL;
	}
	case KGNI_CMD_JOB_SUSPEND:
	case KGNI_CMD_JOB_RESUME: {
		struct kgni_job_suspend *s = arg;

		fake.susp = *s;
		if (err)
			return err;
		if (!sized(s, sizeof(*s)) || s->flags || s->reserved ||
		    (cmd == KGNI_CMD_JOB_RESUME && s->timeout_ms))
			return EINVAL;
		return 0;
	}
	default:
		return ENOTTY;
	}
}

int __wrap_ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	void *arg;
	int err;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (fd < 0 || fd >= MAX_FD || !fake_fd[fd])
		return __real_ioctl(fd, req, arg);
	if (((req >> 8) & 0xff) != KGNI_IOC_MAGIC) {
		errno = ENOTTY;
		return -1;
	}
	err = fake_cmd(fd, req & 0xff, arg);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

void *__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd,
		  off_t off)
{
	uint64_t o = (uint64_t)off;
	uint32_t id = (uint32_t)(o >> 16 & 0xfff);
	void *p;

	if (fd < 0 || fd >= MAX_FD || !fake_fd[fd])
		return __real_mmap(addr, len, prot, flags, fd, off);
	p = __real_mmap(NULL, len, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED || id >= FAKE_MAX_CQ)
		return p;
	if ((o & 0xf0000000ull) == OFF_RING)
		cqs[id].ring = p;
	else if ((o & 0xf0000000ull) == OFF_USER)
		cqs[id].user = p;
	return p;
}

int fake_cq_write(uint32_t cq_id, uint64_t entry)
{
	uint32_t rd;

	if (!cq_id || cq_id >= FAKE_MAX_CQ || !cqs[cq_id].used ||
	    !cqs[cq_id].ring || !cqs[cq_id].user)
		return -1;
	rd = (uint32_t)(cqs[cq_id].user[GEMINI_CQ_READ_INDEX_OFFSET / 8] &
			GEMINI_CQ_INDEX_MASK);
	if ((cqs[cq_id].wr + 1) % cqs[cq_id].entries == rd)
		return -1;
	__atomic_store_n(&cqs[cq_id].ring[cqs[cq_id].wr], entry,
			 __ATOMIC_RELEASE);
	cqs[cq_id].wr = (cqs[cq_id].wr + 1) % cqs[cq_id].entries;
	return 0;
}
