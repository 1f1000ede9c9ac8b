// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * libpmi's key-value spaces: the job's KVS (PMI_KVS_*) and the node's
 * attributes (PMI2_Info_*Node*), through the PMI server, or a
 * singleton's lists of its own.  The state and channel are pmi.c's.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pmi.h"
#include "pmi_priv.h"
#include "pmi_wire.h"
#include "vgemini_le.h"

/* The singleton's key/value lists */

static struct kv *kvs_find(struct kv *head, const char *key)
{
	struct kv *kv;

	for (kv = head; kv; kv = kv->next)
		if (!strcmp(kv->key, key))
			return kv;
	return NULL;
}

int vgemini_pmi_kvs_put_local(struct kv **head, const char *key,
			      const char *val)
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

void vgemini_pmi_free_kvs(struct kv **head)
{
	while (*head) {
		struct kv *kv = *head;

		*head = kv->next;
		free(kv->key);
		free(kv->val);
		free(kv);
	}
}

PMI_EXPORT int PMI_KVS_Get_my_name(char kvsname[], int length)
{
	int rc;

	if (!kvsname || length <= 0)
		return PMI_ERR_INVALID_ARG;
	pthread_mutex_lock(&vgemini_pmi.lock);
	rc = vgemini_pmi_ready();
	if (rc == PMI_SUCCESS) {
		if (strlen(vgemini_pmi.kvsname) >= (size_t)length)
			rc = PMI_ERR_INVALID_LENGTH;
		else
			strcpy(kvsname, vgemini_pmi.kvsname);
	}
	pthread_mutex_unlock(&vgemini_pmi.lock);
	return rc;
}

/* A key's checks (caller holds the lock). */
static int key_check(const char key[], size_t *klen)
{
	if (!key)
		return PMI_ERR_INVALID_ARG;
	*klen = strnlen(key, vgemini_pmi.key_max);
	if (*klen == 0 || *klen >= vgemini_pmi.key_max)
		return PMI_ERR_INVALID_KEY_LENGTH;
	return PMI_SUCCESS;
}

/* Common checks of the KVS calls (caller holds the lock). */
static int kvs_check(const char kvsname[], const char key[], size_t *klen)
{
	int rc = vgemini_pmi_ready();

	if (rc != PMI_SUCCESS)
		return rc;
	if (!kvsname || !key)
		return PMI_ERR_INVALID_ARG;
	if (strcmp(kvsname, vgemini_pmi.kvsname))
		return PMI_ERR_INVALID_ARG;	/* the job has one KVS */
	return key_check(key, klen);
}

/*
 * Put key (klen bytes, checked) = value into a store: the job's KVS (a
 * PUT; the singleton's list vgemini_pmi.kvs) or the node's attributes (a
 * NODE_PUT; vgemini_pmi.node_kvs).  Caller holds the lock; the library
 * is ready.
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
	vlen = strnlen(value, vgemini_pmi.val_max);
	if (vlen >= vgemini_pmi.val_max)
		return PMI_ERR_INVALID_VAL_LENGTH;
	if (vgemini_pmi.fd < 0)
		return vgemini_pmi_kvs_put_local(local, key, value);
	buf = malloc(klen + vlen);
	if (!buf)
		return PMI_ERR_NOMEM;
	memcpy(buf, key, klen);
	memcpy(buf + klen, value, vlen);
	vgemini_put_le32(head, klen);
	vgemini_put_le32(head + 4, vlen);
	rc = vgemini_pmi_exchange(type, head, sizeof(head), buf, klen + vlen,
				  &st, &reply, &rlen, 0);
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
	if (vgemini_pmi.fd < 0) {
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
	rc = vgemini_pmi_exchange(type, key, klen, NULL, 0, &st, &reply,
				  &rlen, vgemini_pmi.val_max - 1);
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

	pthread_mutex_lock(&vgemini_pmi.lock);
	rc = kvs_check(kvsname, key, &klen);
	if (rc == PMI_SUCCESS)
		rc = store_put(VGEMINI_PMI_PUT, &vgemini_pmi.kvs, key, klen,
			       value);
	pthread_mutex_unlock(&vgemini_pmi.lock);
	return rc;
}

PMI_EXPORT int PMI_KVS_Commit(const char kvsname[])
{
	int rc;

	/* Puts reach the server at once; nothing is held back. */
	pthread_mutex_lock(&vgemini_pmi.lock);
	rc = vgemini_pmi_ready();
	if (rc == PMI_SUCCESS &&
	    (!kvsname || strcmp(kvsname, vgemini_pmi.kvsname)))
		rc = PMI_ERR_INVALID_ARG;
	pthread_mutex_unlock(&vgemini_pmi.lock);
	return rc;
}

PMI_EXPORT int PMI_KVS_Get(const char kvsname[], const char key[],
			   char value[], int length)
{
	size_t klen;
	int rc, found;

	pthread_mutex_lock(&vgemini_pmi.lock);
	rc = kvs_check(kvsname, key, &klen);
	if (rc == PMI_SUCCESS)
		rc = store_get(VGEMINI_PMI_GET, vgemini_pmi.kvs, key, klen,
			       value, length, &found);
	pthread_mutex_unlock(&vgemini_pmi.lock);
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

	pthread_mutex_lock(&vgemini_pmi.lock);
	rc = vgemini_pmi_ready();
	if (rc == PMI_SUCCESS)
		rc = key_check(name, &klen);
	if (rc == PMI_SUCCESS)
		rc = store_put(VGEMINI_PMI_NODE_PUT, &vgemini_pmi.node_kvs,
			       name, klen, value);
	pthread_mutex_unlock(&vgemini_pmi.lock);
	return rc;
}

/* A get that tells a missing key (*found 0) from an error. */
static int found_get(uint16_t type, struct kv **local, const char *key,
		     char *value, int length, int *found)
{
	size_t klen;
	int rc, f = -1;

	pthread_mutex_lock(&vgemini_pmi.lock);
	rc = vgemini_pmi_ready();
	if (rc == PMI_SUCCESS)
		rc = key_check(key, &klen);
	if (rc == PMI_SUCCESS)
		rc = store_get(type, *local, key, klen, value, length, &f);
	pthread_mutex_unlock(&vgemini_pmi.lock);
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
	return found_get(VGEMINI_PMI_NODE_GET, &vgemini_pmi.node_kvs, name,
			 value, length, found);
}

int vgemini_pmi_kvs_get(const char *key, char *value, int length,
			int *found)
{
	return found_get(VGEMINI_PMI_GET, &vgemini_pmi.kvs, key, value, length,
			 found);
}

int vgemini_pmi_singleton(void)
{
	int single;

	pthread_mutex_lock(&vgemini_pmi.lock);
	single = vgemini_pmi.state == 1 && vgemini_pmi.fd < 0 &&
		 !vgemini_pmi.broken;
	pthread_mutex_unlock(&vgemini_pmi.lock);
	return single;
}
