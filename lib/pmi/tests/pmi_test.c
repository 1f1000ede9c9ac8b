// SPDX-License-Identifier: GPL-2.0-only
/*
 * pmi_test: checks a PMI implementation through pmi.h and pmi2.h alone.
 * Run it as every rank of a job ("vgemini run -n 8 pmi_test --expect-size
 * 8") or alone (a singleton job).  Each rank prints TAP-style lines
 * ("ok N - what", "not ok N - what") and a last line
 *
 *     pmi_test: rank R of N: M checks passed
 *
 * or "... K of M checks FAILED", and exits 0 when every check passed.
 *
 *   --expect-size N    the job has N ranks
 *   --ppn K            ranks are placed K per node, in rank order
 *   --barriers N       how many barriers the barrier loop does (20)
 *   --exit-rank R --exit-code C
 *                      after the checks' first barrier, rank R exits with
 *                      status C; the others go on into a barrier
 *   --abort-rank R     after that barrier, rank R calls PMI_Abort(7, ...)
 *                      (with --pmi2 1: PMI2_Abort(7, ...)); the others go
 *                      on into a barrier
 *   --sleep S          after PMI_Init, sleep S seconds before the checks
 *   --pmi2 1           start with PMI2_Init and end with PMI2_Finalize, as
 *                      Open MPI's Cray support does (default: PMI_Init)
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmi.h>
#include <pmi2.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static int checks, failures, rank = -1, size = -1;

static int check(int cond, const char *fmt, ...)
{
	va_list ap;

	checks++;
	if (!cond)
		failures++;
	printf("%s %d - ", cond ? "ok" : "not ok", checks);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	return cond;
}

/*
 * The byte of rank r's contribution at offset i (never the same pattern
 * for two ranks, and not just the rank number).
 */
static unsigned char pattern(int r, int i, int salt)
{
	return (unsigned char)(r * 131 + i * 7 + salt * 29 + (i >> 8) + 1);
}

/* A value for rank r's key: length and bytes depend on r. */
static void value_of(int r, char *buf, size_t max)
{
	size_t len = 1 + ((size_t)r * 37) % (max - 1);
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = 'A' + (r + i) % 26;
	buf[len - 1] = '0' + r % 10;
	buf[len] = 0;
}

static void test_job(int expect_size, int spawned)
{
	int universe = -1, appnum = -1, r2 = -1, s2 = -1;

	check(PMI_Get_size(&size) == PMI_SUCCESS && size >= 1,
	      "PMI_Get_size: %d", size);
	check(PMI_Get_rank(&rank) == PMI_SUCCESS && rank >= 0 && rank < size,
	      "PMI_Get_rank: %d", rank);
	if (expect_size > 0)
		check(size == expect_size, "size %d is the expected %d", size,
		      expect_size);
	else
		check(spawned || size == 1, "a singleton has size 1");
	check(PMI_Get_universe_size(&universe) == PMI_SUCCESS &&
	      universe >= size, "PMI_Get_universe_size: %d", universe);
	check(PMI_Get_appnum(&appnum) == PMI_SUCCESS && appnum >= 0,
	      "PMI_Get_appnum: %d", appnum);
	check(PMI_Get_rank(&r2) == PMI_SUCCESS && r2 == rank &&
	      PMI_Get_size(&s2) == PMI_SUCCESS && s2 == size,
	      "rank and size are stable");
	check(PMI_Get_rank(NULL) == PMI_ERR_INVALID_ARG,
	      "PMI_Get_rank(NULL) is PMI_ERR_INVALID_ARG");
}

static void test_kvs(void)
{
	int name_max = 0, key_max = 0, val_max = 0, r, bad = 0, rc;
	char *kvs, *key, *val, *want, *got, *longkey;

	check(PMI_KVS_Get_name_length_max(&name_max) == PMI_SUCCESS &&
	      name_max > 1, "name length max %d", name_max);
	check(PMI_KVS_Get_key_length_max(&key_max) == PMI_SUCCESS &&
	      key_max >= 32, "key length max %d", key_max);
	check(PMI_KVS_Get_value_length_max(&val_max) == PMI_SUCCESS &&
	      val_max >= 256, "value length max %d", val_max);
	if (name_max <= 1 || key_max < 32 || val_max < 256)
		return;
	kvs = calloc(1, name_max);
	key = calloc(1, key_max);
	val = calloc(1, val_max);
	want = calloc(1, val_max);
	got = calloc(1, val_max);
	longkey = calloc(1, key_max + 1);
	if (!kvs || !key || !val || !want || !got || !longkey) {
		check(0, "out of memory");
		goto out;
	}
	check(PMI_KVS_Get_my_name(kvs, name_max) == PMI_SUCCESS &&
	      kvs[0], "PMI_KVS_Get_my_name: '%s'", kvs);
	check(PMI_KVS_Get_my_name(kvs, 1) == PMI_ERR_INVALID_LENGTH ||
	      kvs[0] == 0, "PMI_KVS_Get_my_name into 1 byte refused");
	PMI_KVS_Get_my_name(kvs, name_max);

	snprintf(key, key_max, "pmi_test.rank.%d", rank);
	value_of(rank, val, val_max);
	check(PMI_KVS_Put(kvs, key, val) == PMI_SUCCESS, "put '%s' (%zu bytes)",
	      key, strlen(val));
	/* The longest value allowed, once per job. */
	if (rank == 0) {
		memset(want, 'z', val_max - 1);
		want[val_max - 1] = 0;
		check(PMI_KVS_Put(kvs, "pmi_test.longest", want) == PMI_SUCCESS,
		      "put a value of %d bytes", val_max - 1);
	}
	check(PMI_KVS_Put(kvs, key, val) != PMI_SUCCESS,
	      "a second put of the same key fails");
	memset(longkey, 'k', key_max);
	check(PMI_KVS_Put(kvs, longkey, "x") == PMI_ERR_INVALID_KEY_LENGTH,
	      "a key of %d bytes is refused", key_max);
	check(PMI_KVS_Put(kvs, "", "x") == PMI_ERR_INVALID_KEY_LENGTH,
	      "an empty key is refused");
	{
		/* val_max bytes and the NUL: one byte too many */
		char *toolong = malloc(val_max + 1);

		if (toolong) {
			memset(toolong, 'v', val_max);
			toolong[val_max] = 0;
			check(PMI_KVS_Put(kvs, "pmi_test.toolong", toolong) ==
			      PMI_ERR_INVALID_VAL_LENGTH,
			      "a value of %d bytes is refused", val_max);
			free(toolong);
		}
	}
	check(PMI_KVS_Put("no-such-kvs", "pmi_test.other", "x") != PMI_SUCCESS,
	      "a put into another KVS name fails");
	check(PMI_KVS_Commit(kvs) == PMI_SUCCESS, "commit");
	check(PMI_Barrier() == PMI_SUCCESS, "barrier after the puts");

	for (r = 0; r < size; r++) {
		snprintf(key, key_max, "pmi_test.rank.%d", r);
		value_of(r, want, val_max);
		memset(got, 0, val_max);
		rc = PMI_KVS_Get(kvs, key, got, val_max);
		if (rc != PMI_SUCCESS || strcmp(got, want)) {
			if (bad++ < 3)
				printf("# get '%s': rc %d, value '%.40s...'\n",
				       key, rc, got);
		}
	}
	check(bad == 0, "get the values of all %d ranks", size);
	memset(want, 'z', val_max - 1);
	want[val_max - 1] = 0;
	check(PMI_KVS_Get(kvs, "pmi_test.longest", got, val_max) ==
	      PMI_SUCCESS && !strcmp(got, want),
	      "get the longest value");
	check(PMI_KVS_Get(kvs, "pmi_test.longest", got, 10) ==
	      PMI_ERR_INVALID_LENGTH,
	      "get into too small a buffer is PMI_ERR_INVALID_LENGTH");
	check(PMI_KVS_Get(kvs, "pmi_test.no.such.key", got, val_max) !=
	      PMI_SUCCESS, "get of a key nobody put fails");
out:
	free(kvs);
	free(key);
	free(val);
	free(want);
	free(got);
	free(longkey);
}

static void test_allgather(void)
{
	static const int lens[] = { 1, 37, 4096 };
	unsigned int li;
	int *ranks, r, i;

	ranks = calloc(size, sizeof(int));
	if (!ranks) {
		check(0, "out of memory");
		return;
	}
	check(PMI_Allgather(&rank, ranks, sizeof(int)) == PMI_SUCCESS,
	      "allgather of the rank numbers");
	for (r = 0; r < size && ranks[r] == r; r++)
		;
	check(r == size, "allgather returns the ranks in rank order");
	free(ranks);

	for (li = 0; li < ARRAY_SIZE(lens); li++) {
		int len = lens[li], bad = -1;
		unsigned char *in = malloc(len), *out = malloc((size_t)len * size);

		if (!in || !out) {
			check(0, "out of memory");
			free(in);
			free(out);
			return;
		}
		for (i = 0; i < len; i++)
			in[i] = pattern(rank, i, li);
		memset(out, 0xee, (size_t)len * size);
		check(PMI_Allgather(in, out, len) == PMI_SUCCESS,
		      "allgather of %d bytes per rank", len);
		for (r = 0; r < size && bad < 0; r++)
			for (i = 0; i < len; i++)
				if (out[(size_t)r * len + i] != pattern(r, i, li)) {
					bad = r * len + i;
					break;
				}
		check(bad < 0, "allgather of %d bytes: every byte of every "
		      "rank (first bad byte %d)", len, bad);
		free(in);
		free(out);
	}
	check(PMI_Allgather(NULL, NULL, -1) == PMI_ERR_INVALID_LENGTH,
	      "allgather with a negative length is refused");
}

static void test_clique(int ppn)
{
	int n = 0, i, bad = 0, *mine, *all, r;

	check(PMI_Get_clique_size(&n) == PMI_SUCCESS && n >= 1 && n <= size,
	      "clique size %d", n);
	if (n < 1 || n > size)
		return;
	mine = calloc(size, sizeof(int));
	all = calloc((size_t)size * size, sizeof(int));
	if (!mine || !all) {
		check(0, "out of memory");
		goto out;
	}
	if (n > 1)
		check(PMI_Get_clique_ranks(mine, n - 1) ==
		      PMI_ERR_INVALID_LENGTH,
		      "clique ranks into too short an array refused");
	for (i = 0; i < size; i++)
		mine[i] = -1;
	check(PMI_Get_clique_ranks(mine, n) == PMI_SUCCESS, "clique ranks");
	for (i = 0; i < n; i++)
		if (mine[i] < 0 || mine[i] >= size ||
		    (i && mine[i] <= mine[i - 1]))
			bad++;
	for (i = 0; i < n && mine[i] != rank; i++)
		;
	check(!bad && i < n, "clique ranks sorted, in range, with me");
	if (ppn > 0) {
		int first = rank / ppn * ppn;
		int count = size - first < ppn ? size - first : ppn;

		bad = n != count;
		for (i = 0; i < n && !bad; i++)
			bad = mine[i] != first + i;
		check(!bad, "clique is ranks %d..%d (ppn %d)", first,
		      first + count - 1, ppn);
	}
	/* Every rank's view: the cliques partition the job. */
	check(PMI_Allgather(mine, all, size * sizeof(int)) == PMI_SUCCESS,
	      "allgather of the cliques");
	bad = 0;
	for (r = 0; r < size; r++) {
		int in_mine = 0;

		for (i = 0; i < n; i++)
			in_mine |= mine[i] == r;
		/* r's clique equals mine iff r is in mine */
		if (in_mine != !memcmp(all + (size_t)r * size, mine,
				       size * sizeof(int)))
			bad++;
	}
	check(!bad, "every rank of my clique sees the same clique, no other "
	      "rank does (%d disagree)", bad);
out:
	free(mine);
	free(all);
}

/* Lengths that differ between ranks, 0 included (rank 0's) */
static int v_len(int r)
{
	return (r * 37) % 61;
}

static void test_allgatherv(void)
{
	int *lens = calloc(size, sizeof(int)), r, i, bad = -1, mine;
	size_t total = 0, off;
	unsigned char *in, *out = NULL;

	in = malloc(61);
	if (!lens || !in) {
		check(0, "out of memory");
		goto out;
	}
	for (r = 0; r < size; r++) {
		lens[r] = v_len(r);
		total += lens[r];
	}
	out = malloc(total + 1);
	if (!out) {
		check(0, "out of memory");
		goto out;
	}
	mine = v_len(rank);
	for (i = 0; i < mine; i++)
		in[i] = pattern(rank, i, 7);
	memset(out, 0xee, total + 1);
	check(PMI_Allgatherv(in, mine, out, lens) == PMI_SUCCESS,
	      "allgatherv of 0..60 bytes per rank (%zu in all)", total);
	for (r = 0, off = 0; r < size && bad < 0; off += lens[r], r++)
		for (i = 0; i < lens[r]; i++)
			if (out[off + i] != pattern(r, i, 7)) {
				bad = off + i;
				break;
			}
	check(bad < 0 && out[total] == 0xee,
	      "allgatherv: every byte in rank order, nothing past the end "
	      "(first bad byte %d)", bad);

	/* Every rank says rank 0 gives one byte more than it does */
	lens[0]++;
	memset(out, 0xee, total + 1);
	check(PMI_Allgatherv(in, mine, out, lens) == PMI_ERR_INVALID_LENGTH,
	      "allgatherv with all_lens wrong is PMI_ERR_INVALID_LENGTH");
	for (i = 0; i <= (int)total && out[i] == 0xee; i++)
		;
	check(i == (int)total + 1, "... and out is left alone");
	check(PMI_Allgatherv(in, -1, out, lens) == PMI_ERR_INVALID_LENGTH,
	      "allgatherv with a negative length is refused");
	check(PMI_Allgatherv(in, mine, out, NULL) == PMI_ERR_INVALID_ARG,
	      "allgatherv without all_lens is refused");
out:
	free(lens);
	free(in);
	free(out);
}

static void test_version(void)
{
	int major = -1, minor = -1, revision = -1;

	int rc = PMI_Get_version_info(&major, &minor, &revision);

	check(rc == PMI_SUCCESS && (major > 1 || (major == 1 && minor >= 1)) &&
	      revision >= 0, "PMI_Get_version_info: %d.%d.%d", major, minor,
	      revision);
	check(PMI_Get_version_info(&major, NULL, &revision) ==
	      PMI_ERR_INVALID_ARG, "PMI_Get_version_info(NULL) refused");
}

/*
 * The ranks per node of PMI_process_mapping, "(vector,(base,H,L),...)":
 * block (base, H, L) is H nodes from base with L ranks each, ranks
 * counted node after node.  node[r] gets rank r's node; the number of
 * ranks the mapping describes is returned, -1 if it cannot be read.
 */
static int parse_mapping(const char *m, int *node, int max)
{
	int n = 0, base, h, l, used, i, j;

	if (strncmp(m, "(vector", 7))
		return -1;
	m += 7;
	while (*m == ',') {
		if (sscanf(m, ",(%d,%d,%d)%n", &base, &h, &l, &used) != 3 ||
		    base < 0 || h < 1 || l < 1)
			return -1;
		m += used;
		for (i = 0; i < h; i++)
			for (j = 0; j < l; j++) {
				if (n == max)
					return -1;
				node[n++] = base + i;
			}
	}
	return strcmp(m, ")") ? -1 : n;
}

/* Cray's extensions: every rank's nid, the ranks on this node */
static void test_cray(int ppn)
{
	int *list = NULL, *smp = calloc(size, sizeof(int));
	int *clq = calloc(size, sizeof(int));
	int nid = -1, n = -1, c = -1, r, bad = 0;
	void *p = NULL;

	if (!smp || !clq) {
		check(0, "out of memory");
		goto out;
	}
	r = PMI_Get_nid(rank, &nid);
	check(r == PMI_SUCCESS && nid >= 0, "PMI_Get_nid of my rank: %d", nid);
	if (ppn > 0)
		check(nid == rank / ppn, "my nid is rank / ppn (%d)",
		      rank / ppn);
	check(PMI_Get_nidlist_ptr(&p) == PMI_SUCCESS && p,
	      "PMI_Get_nidlist_ptr");
	list = p;
	for (r = 0; list && r < size; r++) {
		int one = -1;

		bad |= PMI_Get_nid(r, &one) != PMI_SUCCESS || one != list[r] ||
		       (r && list[r] < list[r - 1]) ||
		       (ppn > 0 && one != r / ppn);
	}
	check(list && !bad, "PMI_Get_nid of every rank is its entry in the "
	      "nid list, in node order");
	check(PMI_Get_nid(-1, &nid) == PMI_ERR_INVALID_ARG &&
	      PMI_Get_nid(size, &nid) == PMI_ERR_INVALID_ARG &&
	      PMI_Get_nid(0, NULL) == PMI_ERR_INVALID_ARG &&
	      PMI_Get_nidlist_ptr(NULL) == PMI_ERR_INVALID_ARG,
	      "PMI_Get_nid of rank -1 and size, and NULL pointers, refused");
	r = PMI_Get_numpes_on_smp(&n) == PMI_SUCCESS &&
	    PMI_Get_clique_size(&c) == PMI_SUCCESS;
	check(r && n == c && n >= 1, "PMI_Get_numpes_on_smp: %d, the clique's "
	      "size", n);
	if (n < 1 || n > size)
		goto out;
	check(PMI_Get_pes_on_smp(smp, n) == PMI_SUCCESS &&
	      PMI_Get_clique_ranks(clq, n) == PMI_SUCCESS &&
	      !memcmp(smp, clq, n * sizeof(int)),
	      "PMI_Get_pes_on_smp: the clique's ranks");
	bad = 0;
	for (r = 0; list && r < n; r++)
		bad |= list[smp[r]] != list[rank];
	check(list && !bad, "the ranks on my node have my nid");
	if (n > 1)
		check(PMI_Get_pes_on_smp(smp, n - 1) == PMI_ERR_INVALID_LENGTH,
		      "PMI_Get_pes_on_smp into too short an array refused");
out:
	free(smp);
	free(clq);
}

static void test_mapping(int ppn)
{
	char *map = malloc(PMI2_MAX_VALLEN), *kvs = malloc(PMI2_MAX_VALLEN);
	char want[128], buf[16];
	int *node = calloc(size, sizeof(int)), *mine = calloc(size, sizeof(int));
	int found = -1, n, r, i, clique = 0, bad = 0, universe = 0;

	if (!map || !kvs || !node || !mine) {
		check(0, "out of memory");
		goto out;
	}
	map[0] = 0;
	i = PMI2_Info_GetJobAttr("PMI_process_mapping", map, PMI2_MAX_VALLEN,
				 &found);
	check(i == PMI2_SUCCESS && found == 1,
	      "PMI2_Info_GetJobAttr PMI_process_mapping: %s", map);
	if (found != 1)
		goto out;
	n = parse_mapping(map, node, size);
	check(n == size, "the mapping places %d ranks, the job's %d", n, size);
	PMI_Get_clique_size(&clique);
	if (clique >= 1 && clique <= size &&
	    PMI_Get_clique_ranks(mine, clique) == PMI_SUCCESS && n == size) {
		for (r = 0, i = 0; r < size; r++)
			if (node[r] == node[rank])
				bad |= i >= clique || mine[i++] != r;
		bad |= i != clique;
	} else {
		bad = 1;
	}
	check(!bad, "the mapping puts on my node exactly my clique");
	if (ppn > 0) {
		int full = size / ppn, rest = size % ppn;

		if (full && rest)
			snprintf(want, sizeof(want), "(vector,(0,%d,%d),(%d,1,%d))",
				 full, ppn, full, rest);
		else if (full)
			snprintf(want, sizeof(want), "(vector,(0,%d,%d))", full,
				 ppn);
		else
			snprintf(want, sizeof(want), "(vector,(0,1,%d))", rest);
		check(!strcmp(map, want), "the mapping is %s (ppn %d)", want,
		      ppn);
	}
	PMI2_Job_GetId(kvs, PMI2_MAX_VALLEN);
	check(PMI_KVS_Get(kvs, "PMI_process_mapping", want, sizeof(want)) ==
	      PMI_SUCCESS && !strcmp(want, map),
	      "PMI_KVS_Get of PMI_process_mapping agrees");
	check(PMI_KVS_Put(kvs, "PMI_process_mapping", "(vector,(0,1,1))") ==
	      PMI_ERR_INVALID_KEY, "nobody can put PMI_process_mapping");

	PMI_Get_universe_size(&universe);
	found = -1;
	memset(buf, 0, sizeof(buf));
	i = PMI2_Info_GetJobAttr("universeSize", buf, sizeof(buf), &found);
	check(i == PMI2_SUCCESS && found == 1 && atoi(buf) == universe,
	      "PMI2_Info_GetJobAttr universeSize: %s", buf);
	check(PMI2_Info_GetJobAttr("universeSize", buf, 1, &found) ==
	      PMI2_ERR_INVALID_LENGTH, "universeSize into 1 byte refused");
	found = -1;
	check(PMI2_Info_GetJobAttr("no-such-attribute", buf, sizeof(buf),
				   &found) == PMI2_SUCCESS && found == 0,
	      "an unknown job attribute is not found");
	check(PMI2_Info_GetJobAttr("universeSize", buf, sizeof(buf), NULL) ==
	      PMI2_ERR_INVALID_ARG, "PMI2_Info_GetJobAttr without found");
out:
	free(map);
	free(kvs);
	free(node);
	free(mine);
}

static void test_pmi2_kvs(void)
{
	char id[PMI2_MAX_VALLEN], name[PMI2_MAX_VALLEN], key[PMI2_MAX_KEYLEN];
	char val[PMI2_MAX_VALLEN], got[PMI2_MAX_VALLEN], small[8];
	int r2 = -1, r, bad = 0, len, rc;

	check(PMI2_Job_GetId(id, sizeof(id)) == PMI2_SUCCESS &&
	      PMI_KVS_Get_my_name(name, sizeof(name)) == PMI_SUCCESS &&
	      !strcmp(id, name), "PMI2_Job_GetId is the KVS name: %s", id);
	check(PMI2_Job_GetId(id, 1) == PMI2_ERR_INVALID_LENGTH,
	      "PMI2_Job_GetId into 1 byte refused");
	PMI2_Job_GetId(id, sizeof(id));
	rc = PMI2_Job_GetRank(&r2);
	check(rc == PMI2_SUCCESS && r2 == rank, "PMI2_Job_GetRank: %d", r2);

	snprintf(key, sizeof(key), "pmi2_test.rank.%d", rank);
	value_of(rank + 1000, val, sizeof(val));
	check(PMI2_KVS_Put(key, val) == PMI2_SUCCESS, "PMI2_KVS_Put '%s'", key);
	check(PMI2_KVS_Put(key, val) == PMI2_ERR_INVALID_KEY,
	      "a second PMI2_KVS_Put of the key fails");
	check(PMI2_KVS_Fence() == PMI2_SUCCESS, "PMI2_KVS_Fence");
	for (r = 0; r < size; r++) {
		snprintf(key, sizeof(key), "pmi2_test.rank.%d", r);
		value_of(r + 1000, val, sizeof(val));
		len = -1;
		rc = PMI2_KVS_Get(r % 2 ? id : NULL, r, key, got, sizeof(got),
				  &len);
		if (rc != PMI2_SUCCESS || strcmp(got, val) ||
		    len != (int)strlen(val))
			bad++;
	}
	check(!bad, "PMI2_KVS_Get of every rank's key (%d wrong)", bad);
	value_of(rank + 1000, val, sizeof(val));
	snprintf(key, sizeof(key), "pmi2_test.rank.%d", rank);
	len = 0;
	rc = PMI2_KVS_Get(NULL, PMI2_ID_NULL, key, small, sizeof(small), &len);
	check(rc == PMI2_SUCCESS &&
	      (strlen(val) < sizeof(small) ? len == (int)strlen(val) &&
	       !strcmp(small, val) : len == -(int)strlen(val) &&
	       !strncmp(small, val, sizeof(small) - 1) &&
	       strlen(small) == sizeof(small) - 1),
	      "PMI2_KVS_Get into %zu bytes: cut, minus the length (%d)",
	      sizeof(small), len);
	check(PMI2_KVS_Get("kvs_other", PMI2_ID_NULL, key, got, sizeof(got),
			   &len) == PMI2_ERR_INVALID_ARG,
	      "PMI2_KVS_Get of another job is refused");
	check(PMI2_KVS_Get(NULL, PMI2_ID_NULL, "pmi2_test.nobody", got,
			   sizeof(got), &len) == PMI2_FAIL,
	      "PMI2_KVS_Get of a key nobody put is PMI2_FAIL");
}

static void test_node_attrs(void)
{
	char want[64], got[64];
	int clique = 0, first = -1, found = -1, rc;

	PMI_Get_clique_size(&clique);
	if (clique >= 1) {
		int *mine = calloc(clique, sizeof(int));

		if (mine && PMI_Get_clique_ranks(mine, clique) == PMI_SUCCESS)
			first = mine[0];
		free(mine);
	}
	snprintf(want, sizeof(want), "node of rank %d", first);
	if (rank == first) {
		/* The others wait for it meanwhile */
		usleep(100000);
		check(PMI2_Info_PutNodeAttr("pmi_test.node", want) ==
		      PMI2_SUCCESS, "PMI2_Info_PutNodeAttr");
		check(PMI2_Info_PutNodeAttr("pmi_test.node", "again") ==
		      PMI2_ERR_INVALID_KEY, "a second put on the node fails");
	}
	memset(got, 0, sizeof(got));
	rc = PMI2_Info_GetNodeAttr("pmi_test.node", got, sizeof(got), &found, 1);
	check(rc == PMI2_SUCCESS && found == 1 && !strcmp(got, want),
	      "PMI2_Info_GetNodeAttr(waitfor): '%s' (rc %d, found %d)", got, rc,
	      found);
	found = -1;
	check(PMI2_Info_GetNodeAttr("pmi_test.nobody", got, sizeof(got), &found,
				    0) == PMI2_SUCCESS && found == 0,
	      "an attribute nobody put is not found");
	if (rank == first)
		check(PMI2_Info_GetNodeAttr("pmi_test.node", got, 4, &found,
					    0) == PMI2_ERR_INVALID_LENGTH,
		      "an attribute into too small a buffer is refused");
	/* A singleton has no one to wait for */
	if (!getenv("PMI_FD"))
		check(PMI2_Info_GetNodeAttr("pmi_test.nobody", got, sizeof(got),
					    &found, 1) == PMI2_SUCCESS &&
		      found == 0, "a singleton does not wait");
	check(PMI_Barrier() == PMI_SUCCESS, "barrier after the node attributes");
}

static void test_barriers(int count)
{
	int i, bad = 0, *seen = calloc(size, sizeof(int)), r;

	if (!seen) {
		check(0, "out of memory");
		return;
	}
	for (i = 0; i < count; i++) {
		int tag = i * 1000 + 17;

		if (PMI_Barrier() != PMI_SUCCESS) {
			bad++;
			break;
		}
		/* Nobody runs ahead: everyone is in the same round. */
		if (i % 5 == 4) {
			if (PMI_Allgather(&tag, seen, sizeof(int)) !=
			    PMI_SUCCESS) {
				bad++;
				break;
			}
			for (r = 0; r < size; r++)
				bad += seen[r] != tag;
		}
	}
	check(!bad, "%d barriers, every rank in step", count);
	free(seen);
}

static long arg_num(const char *opt, const char *s)
{
	char *end;
	long v = strtol(s ? s : "", &end, 10);

	if (!s || !*s || *end) {
		fprintf(stderr, "pmi_test: %s needs a number\n", opt);
		exit(2);
	}
	return v;
}

static int usage(const char *arg)
{
	fprintf(stderr, "pmi_test: unknown argument '%s'\n", arg);
	return 2;
}

int main(int argc, char **argv)
{
	long expect_size = 0, ppn = 0, barriers = 20, exit_rank = -1;
	long exit_code = 0, abort_rank = -1, sleep_s = 0, use_pmi2 = 0;
	int spawned = -1, init = -1, i;
	PMI_BOOL inited = PMI_TRUE;

	for (i = 1; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(argv[i], "--expect-size"))
			expect_size = arg_num(argv[i], v);
		else if (!strcmp(argv[i], "--ppn"))
			ppn = arg_num(argv[i], v);
		else if (!strcmp(argv[i], "--barriers"))
			barriers = arg_num(argv[i], v);
		else if (!strcmp(argv[i], "--exit-rank"))
			exit_rank = arg_num(argv[i], v);
		else if (!strcmp(argv[i], "--exit-code"))
			exit_code = arg_num(argv[i], v);
		else if (!strcmp(argv[i], "--abort-rank"))
			abort_rank = arg_num(argv[i], v);
		else if (!strcmp(argv[i], "--sleep"))
			sleep_s = arg_num(argv[i], v);
		else if (!strcmp(argv[i], "--pmi2"))
			use_pmi2 = arg_num(argv[i], v);
		else
			return usage(argv[i]);
		i++;
	}

	check(PMI_Initialized(&inited) == PMI_SUCCESS && inited == PMI_FALSE,
	      "not initialised before PMI_Init");
	check(PMI_Get_size(&i) == PMI_ERR_INIT,
	      "PMI_Get_size before PMI_Init is PMI_ERR_INIT");
	check(!PMI2_Initialized(), "PMI2_Initialized is 0 before");
	if (use_pmi2) {
		int s2 = -1, sz = -1, rk = -1, an = -1;

		init = PMI2_Init(&s2, &sz, &rk, &an);
		if (!check(init == PMI2_SUCCESS, "PMI2_Init: %d", init)) {
			printf("pmi_test: PMI2_Init failed: %d checks FAILED\n",
			       failures);
			return 1;
		}
		check(s2 == 0 && an == 0 && sz >= 1 && rk >= 0 && rk < sz,
		      "PMI2_Init: spawned %d, size %d, rank %d, appnum %d",
		      s2, sz, rk, an);
		check(PMI_Init(&spawned) == PMI_SUCCESS,
		      "PMI_Init after PMI2_Init succeeds");
	} else {
		init = PMI_Init(&spawned);
		if (!check(init == PMI_SUCCESS, "PMI_Init: %d (spawned %d)",
			   init, spawned)) {
			printf("pmi_test: PMI_Init failed: %d checks FAILED\n",
			       failures);
			return 1;
		}
	}
	check(spawned == (getenv("PMI_FD") ? PMI_TRUE : PMI_FALSE),
	      "spawned is %s", spawned ? "PMI_TRUE" : "PMI_FALSE");
	check(PMI_Init(&i) == PMI_SUCCESS, "a second PMI_Init succeeds");
	check(PMI2_Initialized() == 1, "PMI2_Initialized is 1");
	{
		int s2 = -1, sz = -1, rk = -1, an = -1, r1 = -1, n1 = -1;

		PMI_Get_rank(&r1);
		PMI_Get_size(&n1);
		check(PMI2_Init(&s2, &sz, &rk, &an) == PMI2_SUCCESS &&
		      s2 == 0 && sz == n1 && rk == r1 && an == 0,
		      "PMI2_Init again gives the same job");
		check(PMI2_Init(NULL, &sz, &rk, &an) == PMI2_ERR_INVALID_ARG,
		      "PMI2_Init(NULL, ...) refused");
	}
	check(PMI_Initialized(&inited) == PMI_SUCCESS && inited == PMI_TRUE,
	      "initialised");
	if (sleep_s > 0)
		sleep(sleep_s);

	test_job(expect_size, spawned);
	check(PMI_Barrier() == PMI_SUCCESS, "first barrier");
	if (rank == exit_rank) {
		printf("pmi_test: rank %d exits with status %ld\n", rank,
		       exit_code);
		fflush(stdout);
		return exit_code;
	}
	if (rank == abort_rank) {
		printf("pmi_test: rank %d calls PMI_Abort\n", rank);
		fflush(stdout);
		/* PMI2: the error code as the flag, as Open MPI passes it */
		if (use_pmi2)
			PMI2_Abort(7, "pmi_test: abort requested");
		else
			PMI_Abort(7, "pmi_test: abort requested");
		check(0, "PMI_Abort returned");
		return 1;
	}
	test_kvs();
	test_allgather();
	test_clique(ppn);
	test_allgatherv();
	test_version();
	test_mapping(ppn);
	test_cray(ppn);
	test_pmi2_kvs();
	test_node_attrs();
	test_barriers(barriers);

	if (use_pmi2)
		check(PMI2_Finalize() == PMI2_SUCCESS, "PMI2_Finalize");
	else
		check(PMI_Finalize() == PMI_SUCCESS, "PMI_Finalize");
	check(!PMI2_Initialized(), "PMI2_Initialized is 0 after");
	check(PMI_Initialized(&inited) == PMI_SUCCESS && inited == PMI_FALSE,
	      "not initialised after PMI_Finalize");
	check(PMI_Barrier() == PMI_ERR_INIT,
	      "PMI_Barrier after PMI_Finalize is PMI_ERR_INIT");
	check(PMI_Init(&i) == PMI_ERR_INIT,
	      "PMI_Init after PMI_Finalize is PMI_ERR_INIT");

	if (failures)
		printf("pmi_test: rank %d of %d: %d of %d checks FAILED\n",
		       rank, size, failures, checks);
	else
		printf("pmi_test: rank %d of %d: %d checks passed\n", rank,
		       size, checks);
	return failures ? 1 : 0;
}
