// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * libpmi: the PMI-1 client of vgemini jobs, with Cray's extensions; the
 * PMI-2 calls (pmi2.c) share its state and channel; the KVS calls are in
 * pmi_kvs.c.
 *
 * "vgemini run" starts every rank with a stream socket to its PMI server
 * (the launcher, on the host; the guest's agent relays the bytes) on the
 * descriptor named by PMI_FD, and with PMI_RANK and PMI_SIZE.  Requests and
 * replies are the frames of uapi/pmi_wire.h; the library sends one request and
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

struct vgemini_pmi_state vgemini_pmi = {
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
int vgemini_pmi_exchange(uint16_t type, const void *head, size_t hlen,
			 const void *tail, size_t tlen, int *status,
			 unsigned char **reply, size_t *rlen, size_t rmax)
{
	unsigned char h[VGEMINI_PMI_HDR_LEN] = { 0 };
	unsigned char *r = NULL;
	uint32_t len;

	*reply = NULL;
	*rlen = 0;
	if (vgemini_pmi.broken || vgemini_pmi.fd < 0)
		return PMI_FAIL;
	if (hlen + tlen > VGEMINI_PMI_REQ_MAX)
		return PMI_ERR_INVALID_LENGTH;
	vgemini_put_le32(h, VGEMINI_PMI_MAGIC);
	vgemini_put_le16(h + 4, (uint16_t)type);
	vgemini_put_le32(h + 12, hlen + tlen);
	if (send_all(vgemini_pmi.fd, h, sizeof(h)) ||
	    (hlen && send_all(vgemini_pmi.fd, head, hlen)) ||
	    (tlen && send_all(vgemini_pmi.fd, tail, tlen)))
		goto broken;
	if (type == VGEMINI_PMI_ABORT)
		return PMI_SUCCESS;
	if (recv_all(vgemini_pmi.fd, h, sizeof(h)))
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
		if (recv_all(vgemini_pmi.fd, r, len)) {
			free(r);
			goto broken;
		}
	}
	*status = (int32_t)vgemini_get_le32(h + 8);
	*reply = r;
	*rlen = len;
	return PMI_SUCCESS;

broken:
	vgemini_pmi.broken = 1;
	return PMI_FAIL;
}

/* A request whose reply has no payload: the server's status. */
static int simple_request(uint16_t type, const void *p, size_t n)
{
	unsigned char *reply;
	size_t rlen;
	int st, rc;

	rc = vgemini_pmi_exchange(type, p, n, NULL, 0, &st, &reply, &rlen, 0);
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

static int init_singleton(void)
{
	vgemini_pmi.clique = malloc(sizeof(int));
	if (!vgemini_pmi.clique)
		return PMI_ERR_NOMEM;
	vgemini_pmi.clique[0] = 0;
	vgemini_pmi.clique_n = 1;
	vgemini_pmi.rank = 0;
	vgemini_pmi.size = 1;
	vgemini_pmi.universe = 1;
	vgemini_pmi.appnum = 0;
	vgemini_pmi.name_max = VGEMINI_PMI_KVSNAME_MAX;
	vgemini_pmi.key_max = VGEMINI_PMI_KEY_MAX;
	vgemini_pmi.val_max = VGEMINI_PMI_VAL_MAX;
	vgemini_pmi.ag_max = VGEMINI_PMI_ALLGATHER_MAX;
	vgemini_pmi.ag_total_max = VGEMINI_PMI_ALLGATHER_TOTAL_MAX;
	snprintf(vgemini_pmi.kvsname, sizeof(vgemini_pmi.kvsname),
		 "singleton_kvs_%ld", (long)getpid());
	/* What the launcher puts into a job's KVS: one rank on one node */
	if (vgemini_pmi_kvs_put_local(&vgemini_pmi.kvs,
				      VGEMINI_PMI_KEY_MAPPING,
				      "(vector,(0,1,1))")) {
		free(vgemini_pmi.clique);
		vgemini_pmi.clique = NULL;
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
	vgemini_pmi.rank = (int32_t)vgemini_get_le32(r + 4);
	vgemini_pmi.size = (int32_t)vgemini_get_le32(r + 8);
	vgemini_pmi.universe = (int32_t)vgemini_get_le32(r + 12);
	vgemini_pmi.appnum = (int32_t)vgemini_get_le32(r + 16);
	vgemini_pmi.name_max = vgemini_get_le32(r + 20);
	vgemini_pmi.key_max = vgemini_get_le32(r + 24);
	vgemini_pmi.val_max = vgemini_get_le32(r + 28);
	vgemini_pmi.ag_max = vgemini_get_le32(r + 32);
	vgemini_pmi.ag_total_max = vgemini_get_le32(r + 36);
	cn = vgemini_get_le32(r + 40);
	if (vgemini_pmi.rank != rank || vgemini_pmi.size < 1 ||
	    (uint32_t)vgemini_pmi.size > VGEMINI_PMI_MAX_RANKS ||
	    vgemini_pmi.rank >= vgemini_pmi.size ||
	    vgemini_pmi.universe < vgemini_pmi.size ||
	    vgemini_pmi.name_max < 2 ||
	    vgemini_pmi.name_max > VGEMINI_PMI_KVSNAME_MAX ||
	    vgemini_pmi.key_max < 2 ||
	    vgemini_pmi.key_max > VGEMINI_PMI_REQ_MAX ||
	    vgemini_pmi.val_max < 1 ||
	    vgemini_pmi.val_max > VGEMINI_PMI_REQ_MAX || cn < 1 ||
	    cn > (uint32_t)vgemini_pmi.size || (n - fixed) / 4 < cn)
		return PMI_ERR_INIT;
	namelen = n - fixed - 4 * cn;
	if (namelen < 1 || namelen >= vgemini_pmi.name_max ||
	    memchr(r + fixed + 4 * cn, 0, namelen))
		return PMI_ERR_INIT;
	vgemini_pmi.clique = malloc(cn * sizeof(int));
	if (!vgemini_pmi.clique)
		return PMI_ERR_NOMEM;
	for (i = 0; i < cn; i++) {
		int32_t v = (int32_t)vgemini_get_le32(r + fixed + 4 * i);

		if (v <= prev || v >= vgemini_pmi.size) {
			free(vgemini_pmi.clique);
			vgemini_pmi.clique = NULL;
			return PMI_ERR_INIT;
		}
		vgemini_pmi.clique[i] = v;
		prev = v;
	}
	vgemini_pmi.clique_n = cn;
	memcpy(vgemini_pmi.kvsname, r + fixed + 4 * cn, namelen);
	vgemini_pmi.kvsname[namelen] = 0;
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
	vgemini_pmi.fd = fd;
	vgemini_pmi.broken = 0;
	vgemini_put_le32(req, VGEMINI_PMI_VERSION);
	vgemini_put_le32(req + 4, (uint32_t)rank);
	rc = vgemini_pmi_exchange(VGEMINI_PMI_INIT, req, sizeof(req), NULL, 0,
				  &st, &reply, &rlen,
				  VGEMINI_PMI_INIT_REPLY_LEN +
				  4 * VGEMINI_PMI_MAX_RANKS +
				  VGEMINI_PMI_KVSNAME_MAX);
	if (rc == PMI_SUCCESS)
		rc = st == PMI_SUCCESS ? take_init_reply(reply, rlen, rank) :
			PMI_ERR_INIT;
	free(reply);
	if (rc != PMI_SUCCESS) {
		vgemini_pmi.fd = -1;	/* not ours to close: the launcher's */
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
	pthread_mutex_lock(&vgemini_pmi.lock);
	if (vgemini_pmi.state == 1) {
		*spawned = vgemini_pmi.fd >= 0 ? PMI_TRUE : PMI_FALSE;
		pthread_mutex_unlock(&vgemini_pmi.lock);
		return PMI_SUCCESS;
	}
	if (vgemini_pmi.state == 2) {
		pthread_mutex_unlock(&vgemini_pmi.lock);
		return PMI_ERR_INIT;
	}
	fdstr = getenv("PMI_FD");
	rc = fdstr ? init_channel(fdstr) : init_singleton();
	if (rc == PMI_SUCCESS) {
		vgemini_pmi.state = 1;
		*spawned = fdstr ? PMI_TRUE : PMI_FALSE;
	}
	pthread_mutex_unlock(&vgemini_pmi.lock);
	return rc;
}

PMI_EXPORT int PMI_Initialized(PMI_BOOL *initialized)
{
	if (!initialized)
		return PMI_ERR_INVALID_ARG;
	pthread_mutex_lock(&vgemini_pmi.lock);
	*initialized = vgemini_pmi.state == 1 ? PMI_TRUE : PMI_FALSE;
	pthread_mutex_unlock(&vgemini_pmi.lock);
	return PMI_SUCCESS;
}

PMI_EXPORT int PMI_Finalize(void)
{
	int rc = PMI_SUCCESS;

	pthread_mutex_lock(&vgemini_pmi.lock);
	if (vgemini_pmi.state != 1) {
		pthread_mutex_unlock(&vgemini_pmi.lock);
		return PMI_ERR_INIT;
	}
	if (vgemini_pmi.fd >= 0) {
		rc = simple_request(VGEMINI_PMI_FINALIZE, NULL, 0);
		close(vgemini_pmi.fd);
		vgemini_pmi.fd = -1;
	}
	vgemini_pmi_free_kvs(&vgemini_pmi.kvs);
	vgemini_pmi_free_kvs(&vgemini_pmi.node_kvs);
	free(vgemini_pmi.clique);
	vgemini_pmi.clique = NULL;
	vgemini_pmi.clique_n = 0;
	vgemini_pmi.state = 2;
	pthread_mutex_unlock(&vgemini_pmi.lock);
	vgemini_pmi_cray_fini();
	return rc;
}

PMI_EXPORT int PMI_Abort(int exit_code, const char error_msg[])
{
	unsigned char head[4];
	size_t n = 0;
	int fd = -1;

	/* Not under the lock: another thread may be stuck in a collective. */
	if (vgemini_pmi.state == 1)
		fd = vgemini_pmi.fd;
	else if (vgemini_pmi.state == 0 && getenv("PMI_FD"))
		fd = atoi(getenv("PMI_FD"));
	if (fd >= 0 && !vgemini_pmi.broken) {
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
int vgemini_pmi_ready(void)
{
	return vgemini_pmi.state == 1 ? PMI_SUCCESS : PMI_ERR_INIT;
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
	pthread_mutex_lock(&vgemini_pmi.lock);
	rc = vgemini_pmi_ready();
	if (rc == PMI_SUCCESS) {
		switch (what) {
		case V_SIZE:
			*out = vgemini_pmi.size;
			break;
		case V_RANK:
			*out = vgemini_pmi.rank;
			break;
		case V_UNIVERSE:
			*out = vgemini_pmi.universe;
			break;
		case V_APPNUM:
			*out = vgemini_pmi.appnum;
			break;
		case V_CLIQUE_SIZE:
			*out = vgemini_pmi.clique_n;
			break;
		case V_NAME_MAX:
			*out = vgemini_pmi.name_max;
			break;
		case V_KEY_MAX:
			*out = vgemini_pmi.key_max;
			break;
		case V_VAL_MAX:
			*out = vgemini_pmi.val_max;
			break;
		}
	}
	pthread_mutex_unlock(&vgemini_pmi.lock);
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
	pthread_mutex_lock(&vgemini_pmi.lock);
	rc = vgemini_pmi_ready();
	if (rc == PMI_SUCCESS && length < vgemini_pmi.clique_n)
		rc = PMI_ERR_INVALID_LENGTH;
	if (rc == PMI_SUCCESS)
		memcpy(ranks, vgemini_pmi.clique,
		       vgemini_pmi.clique_n * sizeof(int));
	pthread_mutex_unlock(&vgemini_pmi.lock);
	return rc;
}

PMI_EXPORT int PMI_Barrier(void)
{
	int rc;

	pthread_mutex_lock(&vgemini_pmi.lock);
	rc = vgemini_pmi_ready();
	if (rc == PMI_SUCCESS && vgemini_pmi.fd >= 0)
		rc = simple_request(VGEMINI_PMI_BARRIER, NULL, 0);
	pthread_mutex_unlock(&vgemini_pmi.lock);
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
	pthread_mutex_lock(&vgemini_pmi.lock);
	rc = vgemini_pmi_ready();
	if (rc != PMI_SUCCESS)
		goto out;
	total = (size_t)len * vgemini_pmi.size;
	if ((unsigned int)len > vgemini_pmi.ag_max ||
	    total > vgemini_pmi.ag_total_max) {
		rc = PMI_ERR_INVALID_LENGTH;
		goto out;
	}
	if (vgemini_pmi.fd < 0) {
		if (len)
			memmove(out, in, len);
		goto out;
	}
	rc = vgemini_pmi_exchange(VGEMINI_PMI_ALLGATHER, in, len, NULL, 0, &st,
				  &reply, &rlen, total);
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
	pthread_mutex_unlock(&vgemini_pmi.lock);
	return rc;
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
	pthread_mutex_lock(&vgemini_pmi.lock);
	rc = vgemini_pmi_ready();
	if (rc != PMI_SUCCESS)
		goto out;
	if ((unsigned int)len > vgemini_pmi.ag_max) {
		rc = PMI_ERR_INVALID_LENGTH;
		goto out;
	}
	if (vgemini_pmi.fd < 0) {
		if (all_lens[0] != len)
			rc = PMI_ERR_INVALID_LENGTH;
		else if (len)
			memmove(out, in, len);
		goto out;
	}
	/* Every rank enters, whatever its all_lens says, so none waits */
	lens = 4 * (size_t)vgemini_pmi.size;
	rc = vgemini_pmi_exchange(VGEMINI_PMI_ALLGATHERV, in, len, NULL, 0, &st,
				  &reply, &rlen,
				  lens + vgemini_pmi.ag_total_max);
	if (rc != PMI_SUCCESS)
		goto out;
	if (st != PMI_SUCCESS) {
		rc = st;
	} else if (rlen < lens) {
		rc = PMI_FAIL;
	} else {
		for (r = 0; r < vgemini_pmi.size; r++) {
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
	pthread_mutex_unlock(&vgemini_pmi.lock);
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
