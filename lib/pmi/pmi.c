// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * libpmi: the PMI-1 client of vgemini jobs, with Cray's extensions; the
 * PMI-2 calls (pmi2.c) share its state and channel.
 *
 * "vgemini run" starts every rank with a stream socket to its PMI server
 * (the launcher, on the host; the guest's agent relays the bytes) on the
 * descriptor named by PMI_FD, and with PMI_RANK and PMI_SIZE.  Requests and
 * replies are the frames of pmi_wire.h; the library sends one request and
 * reads its reply, under a mutex, so that threads may share it.
 *
 * Without PMI_FD the process is a singleton job: rank 0 of 1, with a KVS
 * of its own.  The library prints nothing and keeps no signal handler;
 * errors come back as PMI_* codes.  A broken channel (the launcher went
 * away) makes every later call fail with PMI_FAIL.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "pmi.h"
#include "pmi_priv.h"
#include "pmi_wire.h"
#include "vgemini_le.h"

struct kv {
	struct kv *next;
	char *key;
	char *val;
};

static struct {
	pthread_mutex_t lock;
	int state;		/* 0 never, 1 initialised, 2 finalised */
	int fd;			/* -1: singleton, or the channel is broken */
	int broken;
	int rank, size, universe, appnum;
	unsigned int name_max, key_max, val_max;
	unsigned int ag_max, ag_total_max;
	int clique_n;
	int *clique;
	char kvsname[VGEMINI_PMI_KVSNAME_MAX];
	struct kv *kvs;		/* singleton only: the KVS */
	struct kv *node_kvs;	/* singleton only: the node's attributes */
} pmi = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.fd = -1,
};

/* Write all of buf; no SIGPIPE when the other end is gone. */
static int send_all(int fd, const void *buf, size_t n)
{
	const unsigned char *p = buf;

	while (n) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

		if (w < 0 && errno == ENOTSOCK)
			w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= w;
	}
	return 0;
}

static int recv_all(int fd, void *buf, size_t n)
{
	unsigned char *p = buf;

	while (n) {
		ssize_t r = read(fd, p, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		n -= r;
	}
	return 0;
}

/*
 * One request and its reply (caller holds the lock).  The request payload
 * is head (hlen bytes) followed by tail (tlen bytes).  On success *status
 * is the server's status and *reply (malloc'd, or NULL when empty, to be
 * freed) holds *rlen bytes; replies longer than rmax are refused.
 */
static int exchange(uint16_t type, const void *head, size_t hlen,
		    const void *tail, size_t tlen, int *status,
		    unsigned char **reply, size_t *rlen, size_t rmax)
{
	unsigned char h[VGEMINI_PMI_HDR_LEN] = { 0 };
	unsigned char *r = NULL;
	uint32_t len;

	*reply = NULL;
	*rlen = 0;
	if (pmi.broken || pmi.fd < 0)
		return PMI_FAIL;
	if (hlen + tlen > VGEMINI_PMI_REQ_MAX)
		return PMI_ERR_INVALID_LENGTH;
	vgemini_put_le32(h, VGEMINI_PMI_MAGIC);
	vgemini_put_le16(h + 4, (uint16_t)type);
	vgemini_put_le32(h + 12, hlen + tlen);
	if (send_all(pmi.fd, h, sizeof(h)) ||
	    (hlen && send_all(pmi.fd, head, hlen)) ||
	    (tlen && send_all(pmi.fd, tail, tlen)))
		goto broken;
	if (type == VGEMINI_PMI_ABORT)
		return PMI_SUCCESS;
	if (recv_all(pmi.fd, h, sizeof(h)))
		goto broken;
	len = vgemini_get_le32(h + 12);
	if (vgemini_get_le32(h) != VGEMINI_PMI_MAGIC ||
	    vgemini_get_le16(h + 4) != (type | VGEMINI_PMI_REPLY) ||
	    h[6] || h[7] || len > rmax)
		goto broken;
	if (len) {
		r = malloc(len);
		if (!r)
			goto broken;	/* the stream cannot be resynchronised */
		if (recv_all(pmi.fd, r, len)) {
			free(r);
			goto broken;
		}
	}
	*status = (int32_t)vgemini_get_le32(h + 8);
	*reply = r;
	*rlen = len;
	return PMI_SUCCESS;

broken:
	pmi.broken = 1;
	return PMI_FAIL;
}

/* A request whose reply has no payload: the server's status. */
static int simple_request(uint16_t type, const void *p, size_t n)
{
	unsigned char *reply;
	size_t rlen;
	int st, rc;

	rc = exchange(type, p, n, NULL, 0, &st, &reply, &rlen, 0);
	free(reply);
	return rc ? rc : st;
}

static int parse_int(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

/* The singleton's key/value lists */

static struct kv *kvs_find(struct kv *head, const char *key)
{
	struct kv *kv;

	for (kv = head; kv; kv = kv->next)
		if (!strcmp(kv->key, key))
			return kv;
	return NULL;
}

static int kvs_put_local(struct kv **head, const char *key, const char *val)
{
	struct kv *kv;

	if (kvs_find(*head, key))
		return PMI_ERR_INVALID_KEY;
	kv = calloc(1, sizeof(*kv));
	if (!kv)
		return PMI_ERR_NOMEM;
	kv->key = strdup(key);
	kv->val = strdup(val);
	if (!kv->key || !kv->val) {
		free(kv->key);
		free(kv->val);
		free(kv);
		return PMI_ERR_NOMEM;
	}
	kv->next = *head;
	*head = kv;
	return PMI_SUCCESS;
}

static void free_kvs(struct kv **head)
{
	while (*head) {
		struct kv *kv = *head;

		*head = kv->next;
		free(kv->key);
		free(kv->val);
		free(kv);
	}
}

static int init_singleton(void)
{
	pmi.clique = malloc(sizeof(int));
	if (!pmi.clique)
		return PMI_ERR_NOMEM;
	pmi.clique[0] = 0;
	pmi.clique_n = 1;
	pmi.rank = 0;
	pmi.size = 1;
	pmi.universe = 1;
	pmi.appnum = 0;
	pmi.name_max = VGEMINI_PMI_KVSNAME_MAX;
	pmi.key_max = VGEMINI_PMI_KEY_MAX;
	pmi.val_max = VGEMINI_PMI_VAL_MAX;
	pmi.ag_max = VGEMINI_PMI_ALLGATHER_MAX;
	pmi.ag_total_max = VGEMINI_PMI_ALLGATHER_TOTAL_MAX;
	snprintf(pmi.kvsname, sizeof(pmi.kvsname), "singleton_kvs_%ld",
		 (long)getpid());
	/* What the launcher puts into a job's KVS: one rank on one node */
	if (kvs_put_local(&pmi.kvs, VGEMINI_PMI_KEY_MAPPING,
			  "(vector,(0,1,1))")) {
		free(pmi.clique);
		pmi.clique = NULL;
		return PMI_ERR_NOMEM;
	}
	return PMI_SUCCESS;
}

/* Check and take the INIT reply. */
static int take_init_reply(const unsigned char *r, size_t n, long rank)
{
	const size_t fixed = VGEMINI_PMI_INIT_REPLY_LEN;
	uint32_t cn, i, namelen;
	int prev = -1;

	if (n < fixed || vgemini_get_le32(r) != VGEMINI_PMI_VERSION)
		return PMI_ERR_INIT;
	pmi.rank = (int32_t)vgemini_get_le32(r + 4);
	pmi.size = (int32_t)vgemini_get_le32(r + 8);
	pmi.universe = (int32_t)vgemini_get_le32(r + 12);
	pmi.appnum = (int32_t)vgemini_get_le32(r + 16);
	pmi.name_max = vgemini_get_le32(r + 20);
	pmi.key_max = vgemini_get_le32(r + 24);
	pmi.val_max = vgemini_get_le32(r + 28);
	pmi.ag_max = vgemini_get_le32(r + 32);
	pmi.ag_total_max = vgemini_get_le32(r + 36);
	cn = vgemini_get_le32(r + 40);
	if (pmi.rank != rank || pmi.size < 1 ||
	    (uint32_t)pmi.size > VGEMINI_PMI_MAX_RANKS ||
	    pmi.rank >= pmi.size || pmi.universe < pmi.size ||
	    pmi.name_max < 2 || pmi.name_max > VGEMINI_PMI_KVSNAME_MAX ||
	    pmi.key_max < 2 || pmi.key_max > VGEMINI_PMI_REQ_MAX ||
	    pmi.val_max < 1 || pmi.val_max > VGEMINI_PMI_REQ_MAX || cn < 1 ||
	    cn > (uint32_t)pmi.size || (n - fixed) / 4 < cn)
		return PMI_ERR_INIT;
	namelen = n - fixed - 4 * cn;
	if (namelen < 1 || namelen >= pmi.name_max ||
	    memchr(r + fixed + 4 * cn, 0, namelen))
		return PMI_ERR_INIT;
	pmi.clique = malloc(cn * sizeof(int));
	if (!pmi.clique)
		return PMI_ERR_NOMEM;
	for (i = 0; i < cn; i++) {
		int32_t v = (int32_t)vgemini_get_le32(r + fixed + 4 * i);

		if (v <= prev || v >= pmi.size) {
			free(pmi.clique);
			pmi.clique = NULL;
			return PMI_ERR_INIT;
		}
		pmi.clique[i] = v;
		prev = v;
	}
	pmi.clique_n = cn;
	memcpy(pmi.kvsname, r + fixed + 4 * cn, namelen);
	pmi.kvsname[namelen] = 0;
	return PMI_SUCCESS;
}

static int init_channel(const char *fdstr)
{
	unsigned char req[8], *reply;
	long fd, rank;
	size_t rlen;
	int st, rc;

	if (parse_int(fdstr, 0, INT_MAX, &fd) ||
	    parse_int(getenv("PMI_RANK"), 0, VGEMINI_PMI_MAX_RANKS - 1, &rank) ||
	    fcntl(fd, F_GETFD) < 0)
		return PMI_ERR_INIT;
	/* The channel is the library's: programs that exec do not keep it. */
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	pmi.fd = fd;
	pmi.broken = 0;
	vgemini_put_le32(req, VGEMINI_PMI_VERSION);
	vgemini_put_le32(req + 4, (uint32_t)rank);
	rc = exchange(VGEMINI_PMI_INIT, req, sizeof(req), NULL, 0, &st, &reply,
		      &rlen, VGEMINI_PMI_INIT_REPLY_LEN +
		      4 * VGEMINI_PMI_MAX_RANKS + VGEMINI_PMI_KVSNAME_MAX);
	if (rc == PMI_SUCCESS)
		rc = st == PMI_SUCCESS ? take_init_reply(reply, rlen, rank) :
			PMI_ERR_INIT;
	free(reply);
	if (rc != PMI_SUCCESS) {
		pmi.fd = -1;	/* not ours to close: the launcher's */
		return rc;
	}
	return PMI_SUCCESS;
}

PMI_EXPORT int PMI_Init(int *spawned)
{
	const char *fdstr;
	int rc;

	if (!spawned)
		return PMI_ERR_INVALID_ARG;
	pthread_mutex_lock(&pmi.lock);
	if (pmi.state == 1) {
		*spawned = pmi.fd >= 0 ? PMI_TRUE : PMI_FALSE;
		pthread_mutex_unlock(&pmi.lock);
		return PMI_SUCCESS;
	}
	if (pmi.state == 2) {
		pthread_mutex_unlock(&pmi.lock);
		return PMI_ERR_INIT;
	}
	fdstr = getenv("PMI_FD");
	rc = fdstr ? init_channel(fdstr) : init_singleton();
	if (rc == PMI_SUCCESS) {
		pmi.state = 1;
		*spawned = fdstr ? PMI_TRUE : PMI_FALSE;
	}
	pthread_mutex_unlock(&pmi.lock);
	return rc;
}

PMI_EXPORT int PMI_Initialized(PMI_BOOL *initialized)
{
	if (!initialized)
		return PMI_ERR_INVALID_ARG;
	pthread_mutex_lock(&pmi.lock);
	*initialized = pmi.state == 1 ? PMI_TRUE : PMI_FALSE;
	pthread_mutex_unlock(&pmi.lock);
	return PMI_SUCCESS;
}

PMI_EXPORT int PMI_Finalize(void)
{
	int rc = PMI_SUCCESS;

	pthread_mutex_lock(&pmi.lock);
	if (pmi.state != 1) {
		pthread_mutex_unlock(&pmi.lock);
		return PMI_ERR_INIT;
	}
	if (pmi.fd >= 0) {
		rc = simple_request(VGEMINI_PMI_FINALIZE, NULL, 0);
		close(pmi.fd);
		pmi.fd = -1;
	}
	free_kvs(&pmi.kvs);
	free_kvs(&pmi.node_kvs);
	free(pmi.clique);
	pmi.clique = NULL;
	pmi.clique_n = 0;
	pmi.state = 2;
	pthread_mutex_unlock(&pmi.lock);
	vgemini_pmi_cray_fini();
	return rc;
}

PMI_EXPORT int PMI_Abort(int exit_code, const char error_msg[])
{
	unsigned char head[4];
	size_t n = 0;
	int fd = -1;

	/* Not under the lock: another thread may be stuck in a collective. */
	if (pmi.state == 1)
		fd = pmi.fd;
	else if (pmi.state == 0 && getenv("PMI_FD"))
		fd = atoi(getenv("PMI_FD"));
	if (fd >= 0 && !pmi.broken) {
		unsigned char h[VGEMINI_PMI_HDR_LEN] = { 0 };

		if (error_msg)
			n = strnlen(error_msg, VGEMINI_PMI_ABORT_MSG_MAX);
		vgemini_put_le32(h, VGEMINI_PMI_MAGIC);
		vgemini_put_le16(h + 4, VGEMINI_PMI_ABORT);
		vgemini_put_le32(h + 12, sizeof(head) + n);
		vgemini_put_le32(head, (uint32_t)exit_code);
		if (!send_all(fd, h, sizeof(h)) &&
		    !send_all(fd, head, sizeof(head)))
			send_all(fd, error_msg, n);
	}
	/* The program's buffered output is not lost. */
	fflush(NULL);
	_exit(exit_code ? exit_code : 1);
}

/* Check that the library is initialised (caller holds the lock). */
static int ready(void)
{
	return pmi.state == 1 ? PMI_SUCCESS : PMI_ERR_INIT;
}

enum pmi_value {
	V_SIZE, V_RANK, V_UNIVERSE, V_APPNUM, V_CLIQUE_SIZE, V_NAME_MAX,
	V_KEY_MAX, V_VAL_MAX,
};

/* One of the job's numbers, once initialised. */
static int get_value(int *out, enum pmi_value what)
{
	int rc;

	if (!out)
		return PMI_ERR_INVALID_ARG;
	pthread_mutex_lock(&pmi.lock);
	rc = ready();
	if (rc == PMI_SUCCESS) {
		switch (what) {
		case V_SIZE:
			*out = pmi.size;
			break;
		case V_RANK:
			*out = pmi.rank;
			break;
		case V_UNIVERSE:
			*out = pmi.universe;
			break;
		case V_APPNUM:
			*out = pmi.appnum;
			break;
		case V_CLIQUE_SIZE:
			*out = pmi.clique_n;
			break;
		case V_NAME_MAX:
			*out = pmi.name_max;
			break;
		case V_KEY_MAX:
			*out = pmi.key_max;
			break;
		case V_VAL_MAX:
			*out = pmi.val_max;
			break;
		}
	}
	pthread_mutex_unlock(&pmi.lock);
	return rc;
}

PMI_EXPORT int PMI_Get_size(int *size)
{
	return get_value(size, V_SIZE);
}

PMI_EXPORT int PMI_Get_rank(int *rank)
{
	return get_value(rank, V_RANK);
}

PMI_EXPORT int PMI_Get_universe_size(int *size)
{
	return get_value(size, V_UNIVERSE);
}

PMI_EXPORT int PMI_Get_appnum(int *appnum)
{
	return get_value(appnum, V_APPNUM);
}

PMI_EXPORT int PMI_Get_clique_size(int *size)
{
	return get_value(size, V_CLIQUE_SIZE);
}

PMI_EXPORT int PMI_KVS_Get_name_length_max(int *length)
{
	return get_value(length, V_NAME_MAX);
}

PMI_EXPORT int PMI_KVS_Get_key_length_max(int *length)
{
	return get_value(length, V_KEY_MAX);
}

PMI_EXPORT int PMI_KVS_Get_value_length_max(int *length)
{
	return get_value(length, V_VAL_MAX);
}

PMI_EXPORT int PMI_Get_clique_ranks(int ranks[], int length)
{
	int rc;

	if (!ranks)
		return PMI_ERR_INVALID_ARG;
	pthread_mutex_lock(&pmi.lock);
	rc = ready();
	if (rc == PMI_SUCCESS && length < pmi.clique_n)
		rc = PMI_ERR_INVALID_LENGTH;
	if (rc == PMI_SUCCESS)
		memcpy(ranks, pmi.clique, pmi.clique_n * sizeof(int));
	pthread_mutex_unlock(&pmi.lock);
	return rc;
}

PMI_EXPORT int PMI_Barrier(void)
{
	int rc;

	pthread_mutex_lock(&pmi.lock);
	rc = ready();
	if (rc == PMI_SUCCESS && pmi.fd >= 0)
		rc = simple_request(VGEMINI_PMI_BARRIER, NULL, 0);
	pthread_mutex_unlock(&pmi.lock);
	return rc;
}

PMI_EXPORT int PMI_Allgather(void *in, void *out, int len)
{
	unsigned char *reply;
	size_t rlen, total;
	int rc, st;

	if (len < 0)
		return PMI_ERR_INVALID_LENGTH;
	if (len && (!in || !out))
		return PMI_ERR_INVALID_ARG;
	pthread_mutex_lock(&pmi.lock);
	rc = ready();
	if (rc != PMI_SUCCESS)
		goto out;
	total = (size_t)len * pmi.size;
	if ((unsigned int)len > pmi.ag_max || total > pmi.ag_total_max) {
		rc = PMI_ERR_INVALID_LENGTH;
		goto out;
	}
	if (pmi.fd < 0) {
		if (len)
			memmove(out, in, len);
		goto out;
	}
	rc = exchange(VGEMINI_PMI_ALLGATHER, in, len, NULL, 0, &st, &reply,
		      &rlen, total);
	if (rc == PMI_SUCCESS) {
		if (st != PMI_SUCCESS)
			rc = st;
		else if (rlen != total)
			rc = PMI_FAIL;
		else if (total)
			memcpy(out, reply, total);
	}
	free(reply);
out:
	pthread_mutex_unlock(&pmi.lock);
	return rc;
}

PMI_EXPORT int PMI_KVS_Get_my_name(char kvsname[], int length)
{
	int rc;

	if (!kvsname || length <= 0)
		return PMI_ERR_INVALID_ARG;
	pthread_mutex_lock(&pmi.lock);
	rc = ready();
	if (rc == PMI_SUCCESS) {
		if (strlen(pmi.kvsname) >= (size_t)length)
			rc = PMI_ERR_INVALID_LENGTH;
		else
			strcpy(kvsname, pmi.kvsname);
	}
	pthread_mutex_unlock(&pmi.lock);
	return rc;
}

/* A key's checks (caller holds the lock). */
static int key_check(const char key[], size_t *klen)
{
	if (!key)
		return PMI_ERR_INVALID_ARG;
	*klen = strnlen(key, pmi.key_max);
	if (*klen == 0 || *klen >= pmi.key_max)
		return PMI_ERR_INVALID_KEY_LENGTH;
	return PMI_SUCCESS;
}

/* Common checks of the KVS calls (caller holds the lock). */
static int kvs_check(const char kvsname[], const char key[], size_t *klen)
{
	int rc = ready();

	if (rc != PMI_SUCCESS)
		return rc;
	if (!kvsname || !key)
		return PMI_ERR_INVALID_ARG;
	if (strcmp(kvsname, pmi.kvsname))
		return PMI_ERR_INVALID_ARG;	/* the job has one KVS */
	return key_check(key, klen);
}

/*
 * Put key (klen bytes, checked) = value into a store: the job's KVS (a
 * PUT; the singleton's list pmi.kvs) or the node's attributes (a
 * NODE_PUT; pmi.node_kvs).  Caller holds the lock; the library is ready.
 */
static int store_put(uint16_t type, struct kv **local, const char *key,
		     size_t klen, const char *value)
{
	unsigned char head[8], *reply;
	size_t vlen, rlen;
	char *buf;
	int rc, st;

	if (!value)
		return PMI_ERR_INVALID_VAL;
	vlen = strnlen(value, pmi.val_max);
	if (vlen >= pmi.val_max)
		return PMI_ERR_INVALID_VAL_LENGTH;
	if (pmi.fd < 0)
		return kvs_put_local(local, key, value);
	buf = malloc(klen + vlen);
	if (!buf)
		return PMI_ERR_NOMEM;
	memcpy(buf, key, klen);
	memcpy(buf + klen, value, vlen);
	vgemini_put_le32(head, klen);
	vgemini_put_le32(head + 4, vlen);
	rc = exchange(type, head, sizeof(head), buf, klen + vlen, &st, &reply,
		      &rlen, 0);
	free(reply);
	free(buf);
	return rc == PMI_SUCCESS ? st : rc;
}

/*
 * Get key from a store (GET or NODE_GET) into value, length bytes with
 * the NUL.  A key nobody put is PMI_FAIL with *found set to 0; *found is
 * left alone on other failures.  Caller holds the lock; ready.
 */
static int store_get(uint16_t type, struct kv *local, const char *key,
		     size_t klen, char *value, int length, int *found)
{
	unsigned char *reply;
	size_t rlen;
	int rc, st;

	if (!value || length <= 0)
		return PMI_ERR_INVALID_ARG;
	if (pmi.fd < 0) {
		struct kv *kv = kvs_find(local, key);

		if (!kv) {
			*found = 0;
			return PMI_FAIL;
		}
		if (strlen(kv->val) >= (size_t)length)
			return PMI_ERR_INVALID_LENGTH;
		strcpy(value, kv->val);
		*found = 1;
		return PMI_SUCCESS;
	}
	rc = exchange(type, key, klen, NULL, 0, &st, &reply, &rlen,
		      pmi.val_max - 1);
	if (rc != PMI_SUCCESS)
		return rc;
	if (st == PMI_FAIL && !rlen) {
		*found = 0;
		rc = PMI_FAIL;
	} else if (st != PMI_SUCCESS) {
		rc = st;
	} else if (rlen && memchr(reply, 0, rlen)) {
		rc = PMI_FAIL;
	} else if (rlen >= (size_t)length) {
		rc = PMI_ERR_INVALID_LENGTH;
	} else {
		if (rlen)
			memcpy(value, reply, rlen);
		value[rlen] = 0;
		*found = 1;
	}
	free(reply);
	return rc;
}

PMI_EXPORT int PMI_KVS_Put(const char kvsname[], const char key[],
			   const char value[])
{
	size_t klen;
	int rc;

	pthread_mutex_lock(&pmi.lock);
	rc = kvs_check(kvsname, key, &klen);
	if (rc == PMI_SUCCESS)
		rc = store_put(VGEMINI_PMI_PUT, &pmi.kvs, key, klen, value);
	pthread_mutex_unlock(&pmi.lock);
	return rc;
}

PMI_EXPORT int PMI_KVS_Commit(const char kvsname[])
{
	int rc;

	/* Puts reach the server at once; nothing is held back. */
	pthread_mutex_lock(&pmi.lock);
	rc = ready();
	if (rc == PMI_SUCCESS && (!kvsname || strcmp(kvsname, pmi.kvsname)))
		rc = PMI_ERR_INVALID_ARG;
	pthread_mutex_unlock(&pmi.lock);
	return rc;
}

PMI_EXPORT int PMI_KVS_Get(const char kvsname[], const char key[],
			   char value[], int length)
{
	size_t klen;
	int rc, found;

	pthread_mutex_lock(&pmi.lock);
	rc = kvs_check(kvsname, key, &klen);
	if (rc == PMI_SUCCESS)
		rc = store_get(VGEMINI_PMI_GET, pmi.kvs, key, klen, value,
			       length, &found);
	pthread_mutex_unlock(&pmi.lock);
	return rc;
}

/*
 * For pmi2.c: the node's attributes, and the KVS with "not found" told
 * apart from a failure
 */

int vgemini_pmi_node_put(const char *name, const char *value)
{
	size_t klen;
	int rc;

	pthread_mutex_lock(&pmi.lock);
	rc = ready();
	if (rc == PMI_SUCCESS)
		rc = key_check(name, &klen);
	if (rc == PMI_SUCCESS)
		rc = store_put(VGEMINI_PMI_NODE_PUT, &pmi.node_kvs, name, klen,
			       value);
	pthread_mutex_unlock(&pmi.lock);
	return rc;
}

/* A get that tells a missing key (*found 0) from an error. */
static int found_get(uint16_t type, struct kv **local, const char *key,
		     char *value, int length, int *found)
{
	size_t klen;
	int rc, f = -1;

	pthread_mutex_lock(&pmi.lock);
	rc = ready();
	if (rc == PMI_SUCCESS)
		rc = key_check(key, &klen);
	if (rc == PMI_SUCCESS)
		rc = store_get(type, *local, key, klen, value, length, &f);
	pthread_mutex_unlock(&pmi.lock);
	if (f == 0) {
		*found = 0;
		return PMI_SUCCESS;
	}
	if (rc == PMI_SUCCESS)
		*found = 1;
	return rc;
}

int vgemini_pmi_node_get(const char *name, char *value, int length,
			 int *found)
{
	return found_get(VGEMINI_PMI_NODE_GET, &pmi.node_kvs, name, value,
			 length, found);
}

int vgemini_pmi_kvs_get(const char *key, char *value, int length,
			int *found)
{
	return found_get(VGEMINI_PMI_GET, &pmi.kvs, key, value, length, found);
}

int vgemini_pmi_singleton(void)
{
	int single;

	pthread_mutex_lock(&pmi.lock);
	single = pmi.state == 1 && pmi.fd < 0 && !pmi.broken;
	pthread_mutex_unlock(&pmi.lock);
	return single;
}

/* Cray extensions */

PMI_EXPORT int PMI_Allgatherv(void *in, int len, void *out, int *all_lens)
{
	unsigned char *reply;
	size_t rlen, total = 0, lens;
	int rc, st, r;

	if (len < 0)
		return PMI_ERR_INVALID_LENGTH;
	if ((len && !in) || !out || !all_lens)
		return PMI_ERR_INVALID_ARG;
	pthread_mutex_lock(&pmi.lock);
	rc = ready();
	if (rc != PMI_SUCCESS)
		goto out;
	if ((unsigned int)len > pmi.ag_max) {
		rc = PMI_ERR_INVALID_LENGTH;
		goto out;
	}
	if (pmi.fd < 0) {
		if (all_lens[0] != len)
			rc = PMI_ERR_INVALID_LENGTH;
		else if (len)
			memmove(out, in, len);
		goto out;
	}
	/* Every rank enters, whatever its all_lens says, so none waits */
	lens = 4 * (size_t)pmi.size;
	rc = exchange(VGEMINI_PMI_ALLGATHERV, in, len, NULL, 0, &st, &reply,
		      &rlen, lens + pmi.ag_total_max);
	if (rc != PMI_SUCCESS)
		goto out;
	if (st != PMI_SUCCESS) {
		rc = st;
	} else if (rlen < lens) {
		rc = PMI_FAIL;
	} else {
		for (r = 0; r < pmi.size; r++) {
			uint32_t n = vgemini_get_le32(reply + 4 * r);

			total += n;
			if (all_lens[r] < 0 || n != (uint32_t)all_lens[r])
				rc = PMI_ERR_INVALID_LENGTH;
		}
		if (rc == PMI_SUCCESS && total != rlen - lens)
			rc = PMI_FAIL;
		if (rc == PMI_SUCCESS && total)
			memcpy(out, reply + lens, total);
	}
	free(reply);
out:
	pthread_mutex_unlock(&pmi.lock);
	return rc;
}

PMI_EXPORT int PMI_Get_version_info(int *major, int *minor, int *revision)
{
	if (!major || !minor || !revision)
		return PMI_ERR_INVALID_ARG;
	*major = PMI_LIB_MAJOR;
	*minor = PMI_LIB_MINOR;
	*revision = PMI_LIB_REVISION;
	return PMI_SUCCESS;
}
