// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * libudreg: udreg_pub.h's registration cache.
 *
 * A cache keeps its registrations in an array sorted by start address
 * (the registrations UDREG_Register() may answer from: "listed"), and
 * those nobody holds in a list, least recently used first ("idle").  A
 * registration covers [start, end); a lookup walks back from the last
 * start <= addr no further than the longest registration (maxlen), so it
 * is short when the registrations are of like sizes.
 *
 * A lazy cache must forget a registration whose memory goes away: the NIC
 * keeps the pages it pinned, and a new mapping at the same address would
 * otherwise get the old pages' registration.  On a Cray the kernel's
 * registration cache (kdreg) tells udreg.  vgemini has no kdreg, so the
 * library watches the pages of each registration of a lazy cache with a
 * userfaultfd registered in write-protect mode, which catches no fault
 * (nothing is ever write-protected) but reports munmap, madvise(DONTNEED)
 * or mremap of the range, as events that the unmapping thread waits on
 * until they are read.  One thread per process reads them and notes the
 * ranges for every lazy cache; a cache applies what was noted at its next
 * call.  The thread holds watch.lock from read() to noting, and a cache
 * takes watch.lock to look, so once munmap() has returned, the next call
 * sees its range.  A registration whose pages cannot be watched (no
 * userfaultfd, VGEMINI_UDREG_WATCH=0, a file's pages, memory another
 * userfaultfd has) is never kept idle: it is deregistered when let go,
 * as in a cache without lazy deregistration.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "udreg_pub.h"

#define UDREG_EXPORT __attribute__((visibility("default")))

#ifndef UFFD_USER_MODE_ONLY
#define UFFD_USER_MODE_ONLY 1
#endif

#define UDREG_MODES (UDREG_CC_MODE_USE_KERNEL_CACHE | \
		     UDREG_CC_MODE_USE_LAZY_DEREG | \
		     UDREG_CC_MODE_USE_LARGE_PAGES | \
		     UDREG_CC_MODE_USE_EVICT_W_UNREG)
#define UDREG_NSTATS (UDREG_STAT_CACHE_EVICTED + 1)
/* Tells a live registration from garbage handed back */
#define REG_MAGIC 0x75647265u
/* Unmapped ranges a cache may have waiting; more, and it forgets all */
#define WATCH_PENDING 64
/* Events read at once */
#define WATCH_MSGS 16

struct range {
	uintptr_t start, end;
};

/* What the watcher noted for one lazy cache since it last looked */
struct watch_sub {
	struct watch_sub *next;
	unsigned int n;
	bool all;		/* more than WATCH_PENDING: everything */
	struct range pending[WATCH_PENDING];
};

enum reg_list { REG_NONE, REG_IDLE, REG_STALE };

struct reg {
	udreg_entry_t pub;	/* first: the caller holds &pub */
	unsigned int magic;
	struct udreg_cache *cache;
	uintptr_t start, end;
	uint64_t refs;
	bool listed;		/* in cache->sorted */
	bool watched;		/* its pages are watched for unmapping */
	enum reg_list on;
	struct reg *prev, *next;
};

struct reg_queue {
	struct reg *head, *tail;
};

struct udreg_cache {
	struct udreg_cache *next;	/* caches, in the registry */
	udreg_cache_attr_t attr;
	unsigned int handles;
	pthread_mutex_t lock;
	struct reg **sorted;	/* listed, by start then address */
	size_t nsorted, cap;
	uintptr_t maxlen;	/* the longest listed registration */
	size_t nmax;		/* how many are that long */
	struct reg_queue idle;	/* refs 0, least recently used first */
	struct reg_queue stale;	/* held, but unlisted: unmapped */
	uint32_t nregs;		/* registered, idle and stale included */
	uint64_t stat[UDREG_NSTATS];
	struct watch_sub *sub;	/* NULL: nothing watched, nothing idle */
};

/* The caches, by name.  Lock order: registry, cache, watch. */
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct udreg_cache *registry;

/* The process' watcher; started by the first lazy cache */
static struct {
	pthread_mutex_t lock;	/* subs and what they have pending */
	struct watch_sub *subs;
	bool running;
	int uffd;
	int stop[2];		/* a pipe: its closing ends the thread */
	uintptr_t page;
	pthread_t thread;
} watch = { .lock = PTHREAD_MUTEX_INITIALIZER, .uffd = -1,
	    .stop = { -1, -1 } };

/* Note [start, end) for every lazy cache; watch.lock held. */
static void watch_note(uintptr_t start, uintptr_t end)
{
	struct watch_sub *s;

	for (s = watch.subs; s; s = s->next) {
		if (s->all)
			continue;
		if (s->n == WATCH_PENDING) {
			s->all = true;
			continue;
		}
		s->pending[s->n].start = start;
		s->pending[s->n].end = end;
		s->n++;
	}
}

static void watch_event(const struct uffd_msg *m)
{
	struct uffdio_range r;
	uintptr_t a;

	switch (m->event) {
	case UFFD_EVENT_UNMAP:
	case UFFD_EVENT_REMOVE:
		watch_note(m->arg.remove.start, m->arg.remove.end);
		break;
	case UFFD_EVENT_REMAP:
		watch_note(m->arg.remap.from, m->arg.remap.from +
			   m->arg.remap.len);
		break;
	case UFFD_EVENT_PAGEFAULT:
		/*
		 * Never write-protected, so never expected: let the page go
		 * (and with it any registration on it) rather than stall.
		 */
		a = (uintptr_t)m->arg.pagefault.address & ~(watch.page - 1);
		watch_note(a, a + watch.page);
		r.start = a;
		r.len = watch.page;
		ioctl(watch.uffd, UFFDIO_UNREGISTER, &r);
		ioctl(watch.uffd, UFFDIO_WAKE, &r);
		break;
	default:
		break;
	}
}

static void *watch_main(void *arg)
{
	struct uffd_msg msgs[WATCH_MSGS];
	struct pollfd p[2];
	ssize_t got, i;

	p[0].fd = (int)(intptr_t)arg;	/* watch.uffd is watch.lock's */
	p[0].events = POLLIN;
	p[1].fd = watch.stop[0];
	p[1].events = POLLIN;
	for (;;) {
		if (poll(p, 2, -1) < 0)
			continue;	/* EINTR: nothing else can fail */
		if (p[1].revents || (p[0].revents & POLLNVAL))
			return NULL;
		pthread_mutex_lock(&watch.lock);
		if (watch.uffd < 0) {	/* closed by watch_stop() */
			pthread_mutex_unlock(&watch.lock);
			return NULL;
		}
		while ((got = read(watch.uffd, msgs, sizeof(msgs))) > 0)
			for (i = 0; i < got / (ssize_t)sizeof(msgs[0]); i++)
				watch_event(&msgs[i]);
		pthread_mutex_unlock(&watch.lock);
	}
}

/*
 * In a child of fork(): no watcher runs there, and its copy of the
 * userfaultfd would keep the parent's file open after the parent's
 * watcher stops, and the parent's munmap() waiting on events nobody reads.
 * (The child's memory is not watched: its mappings come without the
 * userfaultfd.)  The child must not use its parent's caches.
 */
static void watch_forked(void)
{
	pthread_mutex_init(&watch.lock, NULL);
	if (!watch.running)
		return;
	close(watch.uffd);
	close(watch.stop[0]);
	close(watch.stop[1]);
	watch.uffd = -1;
	watch.running = false;
}

/* Start the watcher; registry_lock held.  false: there is none. */
static bool watch_start(void)
{
	struct uffdio_api api = { .api = UFFD_API };
	static bool atfork;
	sigset_t all, old;
	int fd, rc;

	if (watch.running)
		return true;
	if (!atfork && pthread_atfork(NULL, NULL, watch_forked))
		return false;
	atfork = true;
	fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK |
			  UFFD_USER_MODE_ONLY);
	if (fd < 0 && errno == EINVAL)	/* a kernel before 5.11 */
		fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return false;
	api.features = UFFD_FEATURE_EVENT_UNMAP | UFFD_FEATURE_EVENT_REMOVE |
		UFFD_FEATURE_EVENT_REMAP;
	if (ioctl(fd, UFFDIO_API, &api) ||
	    !(api.ioctls & (1ull << _UFFDIO_REGISTER)) ||
	    pipe2(watch.stop, O_CLOEXEC)) {
		close(fd);
		return false;
	}
	watch.uffd = fd;
	watch.page = (uintptr_t)sysconf(_SC_PAGESIZE);
	/* The program's signal handlers never run on the watcher */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&watch.thread, NULL, watch_main,
			    (void *)(intptr_t)fd);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		close(watch.stop[0]);
		close(watch.stop[1]);
		close(fd);
		watch.uffd = -1;
		return false;
	}
	pthread_setname_np(watch.thread, "udreg-watch");
	watch.running = true;
	return true;
}

/*
 * Stop the watcher once no cache needs it; registry_lock held.  The
 * userfaultfd is closed first: that unregisters every range it watched
 * and lets go of anyone waiting on an event, so that nothing waits on the
 * thread once it stops reading (its own exit may unmap memory).
 */
static void watch_stop(void)
{
	if (!watch.running || watch.subs)
		return;
	pthread_mutex_lock(&watch.lock);
	close(watch.uffd);
	watch.uffd = -1;
	pthread_mutex_unlock(&watch.lock);
	close(watch.stop[1]);
	pthread_join(watch.thread, NULL);
	close(watch.stop[0]);
	watch.running = false;
}

/* Watch the pages under @r; cache lock held. */
static void watch_reg(struct reg *r)
{
	struct uffdio_register ur = { .mode = UFFDIO_REGISTER_MODE_WP };
	uintptr_t first = r->start & ~(watch.page - 1);

	if (r->end > UINTPTR_MAX - watch.page)
		return;
	ur.range.start = first;
	ur.range.len = ((r->end + watch.page - 1) & ~(watch.page - 1)) - first;
	/* Fails for memory it cannot watch: then @r is not kept idle */
	r->watched = !ioctl(watch.uffd, UFFDIO_REGISTER, &ur);
}

static void queue_add(struct reg_queue *q, struct reg *r, enum reg_list on)
{
	r->on = on;
	r->next = NULL;
	r->prev = q->tail;
	if (q->tail)
		q->tail->next = r;
	else
		q->head = r;
	q->tail = r;
}

static void queue_del(struct reg_queue *q, struct reg *r)
{
	if (r->prev)
		r->prev->next = r->next;
	else
		q->head = r->next;
	if (r->next)
		r->next->prev = r->prev;
	else
		q->tail = r->prev;
	r->on = REG_NONE;
	r->prev = NULL;
	r->next = NULL;
}

/* The first index whose registration starts at or after @start */
static size_t sorted_from(const struct udreg_cache *c, uintptr_t start)
{
	size_t lo = 0, hi = c->nsorted, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (c->sorted[mid]->start < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The first index whose registration starts after @start */
static size_t sorted_after(const struct udreg_cache *c, uintptr_t start)
{
	size_t lo = 0, hi = c->nsorted, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (c->sorted[mid]->start <= start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Room for one more listed registration; false when out of memory. */
static bool sorted_reserve(struct udreg_cache *c)
{
	struct reg **s;
	size_t cap;

	if (c->nsorted < c->cap)
		return true;
	cap = c->cap ? c->cap * 2 : 16;
	s = realloc(c->sorted, cap * sizeof(*s));
	if (!s)
		return false;
	c->sorted = s;
	c->cap = cap;
	return true;
}

/* List @r (room reserved) */
static void sorted_add(struct udreg_cache *c, struct reg *r)
{
	size_t i = sorted_after(c, r->start);
	uintptr_t len = r->end - r->start;

	memmove(&c->sorted[i + 1], &c->sorted[i],
		(c->nsorted - i) * sizeof(c->sorted[0]));
	c->sorted[i] = r;
	c->nsorted++;
	r->listed = true;
	if (len > c->maxlen) {
		c->maxlen = len;
		c->nmax = 1;
	} else if (len == c->maxlen) {
		c->nmax++;
	}
}

static void sorted_del(struct udreg_cache *c, struct reg *r)
{
	size_t i = sorted_from(c, r->start), j;
	uintptr_t len = r->end - r->start;

	while (c->sorted[i] != r)
		i++;
	memmove(&c->sorted[i], &c->sorted[i + 1],
		(c->nsorted - i - 1) * sizeof(c->sorted[0]));
	c->nsorted--;
	r->listed = false;
	if (len != c->maxlen || --c->nmax)
		return;
	/* The longest went: find the new longest */
	c->maxlen = 0;
	for (j = 0; j < c->nsorted; j++) {
		len = c->sorted[j]->end - c->sorted[j]->start;
		if (len > c->maxlen) {
			c->maxlen = len;
			c->nmax = 1;
		} else if (len == c->maxlen) {
			c->nmax++;
		}
	}
}

/* A listed registration covering [start, end), or NULL */
static struct reg *sorted_cover(const struct udreg_cache *c, uintptr_t start,
				uintptr_t end)
{
	size_t i = sorted_after(c, start);
	struct reg *r;

	while (i-- > 0) {
		r = c->sorted[i];
		if (start - r->start > c->maxlen)
			break;	/* ends before start, as all before it */
		if (r->end >= end)
			return r;
	}
	return NULL;
}

/* Deregister @r and free it; 0, or what device_dereg_func said. */
static uint32_t reg_drop(struct udreg_cache *c, struct reg *r)
{
	void *dd = r->pub.device_data;
	uint32_t rc = 0;

	if (r->listed)
		sorted_del(c, r);
	if (r->on == REG_IDLE)
		queue_del(&c->idle, r);
	else if (r->on == REG_STALE)
		queue_del(&c->stale, r);
	/* A client may have cleared device_data (Open MPI does) */
	if (dd && dd != UDREG_DEVICE_REG_FAILED)
		rc = c->attr.device_dereg_func(dd, c->attr.dreg_context);
	c->nregs--;
	r->magic = 0;
	free(r);
	return rc;
}

/* Deregister the least recently used idle registration; false: none. */
static bool evict_one(struct udreg_cache *c, uint32_t *rc)
{
	if (!c->idle.head)
		return false;
	*rc = reg_drop(c, c->idle.head);
	c->stat[UDREG_STAT_CACHE_EVICTED]++;
	return true;
}

/* Forget every registration on [start, end): its memory went away. */
static void forget_range(struct udreg_cache *c, uintptr_t start,
			 uintptr_t end)
{
	size_t i = sorted_from(c, end);
	struct reg *r;

	while (i-- > 0) {
		r = c->sorted[i];
		if (r->start < start && start - r->start >= c->maxlen)
			break;
		if (r->end <= start)
			continue;
		if (!r->refs) {
			reg_drop(c, r);
		} else {
			sorted_del(c, r);
			queue_add(&c->stale, r, REG_STALE);
		}
	}
}

/* Apply what the watcher noted for @c; cache lock held. */
static void drain(struct udreg_cache *c)
{
	struct range got[WATCH_PENDING];
	unsigned int n, i;
	bool all;

	if (!c->sub)
		return;
	pthread_mutex_lock(&watch.lock);
	n = c->sub->n;
	all = c->sub->all;
	memcpy(got, c->sub->pending, n * sizeof(got[0]));
	c->sub->n = 0;
	c->sub->all = false;
	pthread_mutex_unlock(&watch.lock);
	if (all) {
		forget_range(c, 0, UINTPTR_MAX);
		return;
	}
	for (i = 0; i < n; i++)
		forget_range(c, got[i].start, got[i].end);
}

/* A name of 1 to UDREG_MAX_CACHENAME_LEN - 1 characters */
static bool name_ok(const char *name)
{
	size_t n = name ? strnlen(name, UDREG_MAX_CACHENAME_LEN) : 0;

	return n && n < UDREG_MAX_CACHENAME_LEN;
}

/* The cache named @name; registry_lock held. */
static struct udreg_cache *find_cache(const char *name)
{
	struct udreg_cache *c;

	for (c = registry; c; c = c->next)
		if (!strcmp(c->attr.cache_name, name))
			return c;
	return NULL;
}

/* @handle is a live cache; registry_lock held. */
static bool is_cache(udreg_cache_handle_t handle)
{
	struct udreg_cache *c;

	for (c = registry; c; c = c->next)
		if (c == handle)
			return true;
	return false;
}

/* VGEMINI_UDREG_WATCH=0 turns the watcher off (and with it idling) */
static bool watch_wanted(void)
{
	const char *v = getenv("VGEMINI_UDREG_WATCH");

	return !v || strcmp(v, "0");
}

UDREG_EXPORT udreg_return_t UDREG_CacheCreate(const udreg_cache_attr_t *attr)
{
	struct udreg_cache *c;

	if (!attr)
		return UDREG_RC_INVALID_PARAM;
	if (!name_ok(attr->cache_name))
		return UDREG_RC_INVALID_CACHE_NAME;
	if (!attr->device_reg_func || !attr->device_dereg_func)
		return UDREG_RC_ERROR_NO_DEVICE;
	if (!attr->max_entries || (attr->modes & ~UDREG_MODES))
		return UDREG_RC_INVALID_PARAM;
	c = calloc(1, sizeof(*c));
	if (!c)
		return UDREG_RC_OOM;
	c->attr = *attr;
	pthread_mutex_init(&c->lock, NULL);
	pthread_mutex_lock(&registry_lock);
	if (find_cache(attr->cache_name)) {
		pthread_mutex_unlock(&registry_lock);
		pthread_mutex_destroy(&c->lock);
		free(c);
		return UDREG_RC_INVALID_CACHE_NAME;
	}
	if ((attr->modes & UDREG_CC_MODE_USE_LAZY_DEREG) && watch_wanted() &&
	    watch_start()) {
		/* Without a watcher the cache still works, keeping nothing */
		c->sub = calloc(1, sizeof(*c->sub));
		if (c->sub) {
			pthread_mutex_lock(&watch.lock);
			c->sub->next = watch.subs;
			watch.subs = c->sub;
			pthread_mutex_unlock(&watch.lock);
		} else {
			watch_stop();
		}
	}
	c->next = registry;
	registry = c;
	pthread_mutex_unlock(&registry_lock);
	return UDREG_RC_SUCCESS;
}

UDREG_EXPORT udreg_return_t UDREG_CacheAccess(const char *cache_name,
					      udreg_cache_handle_t *handle)
{
	struct udreg_cache *c;

	if (!cache_name || !handle)
		return UDREG_RC_INVALID_PARAM;
	if (!name_ok(cache_name))
		return UDREG_RC_INVALID_CACHE_NAME;
	pthread_mutex_lock(&registry_lock);
	c = find_cache(cache_name);
	if (c)
		c->handles++;
	pthread_mutex_unlock(&registry_lock);
	if (!c)
		return UDREG_RC_NO_MATCH;
	*handle = c;
	return UDREG_RC_SUCCESS;
}

UDREG_EXPORT udreg_return_t UDREG_CacheRelease(udreg_cache_handle_t handle)
{
	udreg_return_t rc = UDREG_RC_INVALID_PARAM;

	pthread_mutex_lock(&registry_lock);
	if (is_cache(handle) && handle->handles) {
		handle->handles--;
		rc = UDREG_RC_SUCCESS;
	}
	pthread_mutex_unlock(&registry_lock);
	return rc;
}

UDREG_EXPORT udreg_return_t UDREG_CacheDestroy(udreg_cache_handle_t handle)
{
	struct udreg_cache **p, *c = handle;
	struct watch_sub **s;
	uint32_t failed = 0;

	pthread_mutex_lock(&registry_lock);
	if (!is_cache(c) || c->handles) {
		pthread_mutex_unlock(&registry_lock);
		return UDREG_RC_INVALID_PARAM;
	}
	for (p = &registry; *p != c; p = &(*p)->next)
		;
	*p = c->next;
	if (c->sub) {
		pthread_mutex_lock(&watch.lock);
		for (s = &watch.subs; *s != c->sub; s = &(*s)->next)
			;
		*s = c->sub->next;
		pthread_mutex_unlock(&watch.lock);
		free(c->sub);
		c->sub = NULL;
		watch_stop();
	}
	pthread_mutex_unlock(&registry_lock);

	/* Unreachable now: held registrations go too */
	pthread_mutex_lock(&c->lock);
	while (c->nsorted)
		failed |= reg_drop(c, c->sorted[c->nsorted - 1]);
	while (c->stale.head)
		failed |= reg_drop(c, c->stale.head);
	pthread_mutex_unlock(&c->lock);
	if (c->attr.destructor_callback)
		c->attr.destructor_callback(c->attr.destructor_context);
	pthread_mutex_destroy(&c->lock);
	free(c->sorted);
	free(c);
	return failed ? UDREG_RC_ERROR_NO_DEVICE : UDREG_RC_SUCCESS;
}

UDREG_EXPORT udreg_return_t UDREG_Register(udreg_cache_handle_t handle,
					   void *addr, uint64_t len,
					   udreg_entry_t **entry)
{
	struct udreg_cache *c = handle;
	uintptr_t start = (uintptr_t)addr;
	udreg_return_t rc = UDREG_RC_SUCCESS;
	struct reg *r;
	uint32_t dummy;
	void *dd;

	if (!c || !addr || !len || !entry || len > UINTPTR_MAX - start)
		return UDREG_RC_INVALID_PARAM;
	pthread_mutex_lock(&c->lock);
	drain(c);
	r = sorted_cover(c, start, start + (uintptr_t)len);
	if (r) {
		c->stat[UDREG_STAT_CACHE_HIT]++;
		if (r->on == REG_IDLE)
			queue_del(&c->idle, r);
		r->refs++;
		*entry = &r->pub;
		goto out;
	}
	c->stat[UDREG_STAT_CACHE_MISS]++;
	while (c->nregs >= c->attr.max_entries)
		if (!evict_one(c, &dummy)) {
			rc = UDREG_RC_NO_SPACE;
			goto out;
		}
	r = calloc(1, sizeof(*r));
	if (!r || !sorted_reserve(c)) {
		free(r);
		rc = UDREG_RC_OOM;
		goto out;
	}
	/* NULL: the device is short of room, which idle ones may free */
	while (!(dd = c->attr.device_reg_func(addr, len, c->attr.reg_context)))
		if (!evict_one(c, &dummy))
			break;
	if (!dd || dd == UDREG_DEVICE_REG_FAILED) {
		free(r);
		rc = dd ? UDREG_RC_INVALID_PARAM : UDREG_RC_NO_SPACE;
		goto out;
	}
	r->pub.address = addr;
	r->pub.len = len;
	r->pub.device_data = dd;
	r->magic = REG_MAGIC;
	r->cache = c;
	r->start = start;
	r->end = start + (uintptr_t)len;
	r->refs = 1;
	sorted_add(c, r);
	c->nregs++;
	if (c->sub)
		watch_reg(r);
	*entry = &r->pub;
out:
	pthread_mutex_unlock(&c->lock);
	return rc;
}

UDREG_EXPORT udreg_return_t UDREG_Unregister(udreg_cache_handle_t handle,
					     udreg_entry_t *entry)
{
	struct udreg_cache *c = handle;
	struct reg *r = (struct reg *)entry;
	udreg_return_t rc = UDREG_RC_SUCCESS;

	if (!c || !entry)
		return UDREG_RC_INVALID_PARAM;
	pthread_mutex_lock(&c->lock);
	if (r->magic != REG_MAGIC || r->cache != c || !r->refs) {
		pthread_mutex_unlock(&c->lock);
		return UDREG_RC_NO_MATCH;
	}
	/* Held, so not freed by drain(): at most unlisted */
	drain(c);
	if (!--r->refs) {
		if (r->listed && r->watched)
			queue_add(&c->idle, r, REG_IDLE);
		else if (reg_drop(c, r))
			rc = UDREG_RC_ERROR_NO_DEVICE;
	}
	pthread_mutex_unlock(&c->lock);
	return rc;
}

UDREG_EXPORT udreg_return_t UDREG_DecrRefcount(udreg_cache_handle_t handle,
					       udreg_entry_t *entry)
{
	return UDREG_Unregister(handle, entry);
}

UDREG_EXPORT udreg_return_t UDREG_Evict(udreg_cache_handle_t handle)
{
	struct udreg_cache *c = handle;
	udreg_return_t rc = UDREG_RC_SUCCESS;
	uint32_t failed;

	if (!c)
		return UDREG_RC_INVALID_PARAM;
	pthread_mutex_lock(&c->lock);
	drain(c);
	if (!evict_one(c, &failed))
		rc = UDREG_RC_NO_MATCH;
	else if (failed)
		rc = UDREG_RC_ERROR_NO_DEVICE;
	pthread_mutex_unlock(&c->lock);
	return rc;
}

UDREG_EXPORT udreg_return_t UDREG_GetStat(udreg_cache_handle_t handle,
					  udreg_stat_t stat, uint64_t *value)
{
	struct udreg_cache *c = handle;

	if (!c || !value || (unsigned int)stat >= UDREG_NSTATS)
		return UDREG_RC_INVALID_PARAM;
	pthread_mutex_lock(&c->lock);
	*value = c->stat[stat];
	pthread_mutex_unlock(&c->lock);
	return UDREG_RC_SUCCESS;
}
