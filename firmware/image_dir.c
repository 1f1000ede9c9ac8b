// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A directory of routing-table images, DIR/router-<gemini id>.bin, one per
 * router: writing every image of a plan (each file written whole under a
 * temporary name, then renamed), and loading a directory back, read-only
 * mapped, with every image parsed and checked against the others.
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "routes.h"

#define PATH_LEN	4096

static int image_path(char *path, const char *dir, uint32_t id, char *err)
{
	int n = snprintf(path, PATH_LEN, "%s/router-%u.bin", dir, id);

	if (n < 0 || n >= PATH_LEN) {
		routes_err(err, "%s: path too long", dir);
		return -1;
	}
	return 0;
}

/*
 * "router-<id>.bin" with <id> in canonical decimal: 1 and *@id; 0 for other
 * names; -1 for a name that looks like an image but is not canonical.
 */
static int image_name(const char *name, uint32_t *id)
{
	size_t len = strlen(name);
	char num[16];

	if (len < 11 || strncmp(name, "router-", 7) ||
	    strcmp(name + len - 4, ".bin"))
		return 0;
	len -= 11;
	if (len >= sizeof(num))
		return -1;
	memcpy(num, name + 7, len);
	num[len] = '\0';
	if (parse_u32(num, id) || (num[0] == '0' && len > 1))
		return -1;
	return 1;
}

int image_write_file(const char *path, const uint8_t *img, size_t len,
		     char *err)
{
	char tmp[PATH_LEN + 8];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "wb");
	if (!f) {
		routes_err(err, "%s: %s", tmp, strerror(errno));
		return -1;
	}
	if (fwrite(img, 1, len, f) != len) {
		routes_err(err, "%s: %s", tmp, strerror(errno));
		fclose(f);
		goto unlink;
	}
	if (fclose(f)) {
		routes_err(err, "%s: %s", tmp, strerror(errno));
		goto unlink;
	}
	if (rename(tmp, path)) {
		routes_err(err, "%s: %s", path, strerror(errno));
		goto unlink;
	}
	return 0;
unlink:
	unlink(tmp);
	return -1;
}

static int make_dir(const char *dir, char *err)
{
	struct stat st;

	if (mkdir(dir, 0777) && errno != EEXIST) {
		routes_err(err, "%s: %s", dir, strerror(errno));
		return -1;
	}
	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		routes_err(err, "%s: not a directory", dir);
		return -1;
	}
	return 0;
}

/* Images of ids beyond the torus, left from a bigger shape, would mislead. */
static int remove_stale(const char *dir, uint32_t num_nodes,
			unsigned int *removed, char *err)
{
	char path[PATH_LEN];
	struct dirent *de;
	uint32_t id;
	DIR *dh;

	*removed = 0;
	dh = opendir(dir);
	if (!dh) {
		routes_err(err, "%s: %s", dir, strerror(errno));
		return -1;
	}
	while ((de = readdir(dh))) {
		if (image_name(de->d_name, &id) != 1 || id < num_nodes)
			continue;
		if (image_path(path, dir, id, err))
			goto fail;
		if (unlink(path)) {
			routes_err(err, "%s: %s", path, strerror(errno));
			goto fail;
		}
		(*removed)++;
	}
	closedir(dh);
	return 0;
fail:
	closedir(dh);
	return -1;
}

/*
 * Write DIR/router-<id>.bin for every router of @t as @p routes it.  Each
 * table is checked entry by entry (table_check()) before it is written.
 */
int images_write(const char *dir, const struct torus *t,
		 const struct route_plan *p, uint32_t generation,
		 unsigned int *stale_removed, char *err)
{
	size_t len = image_size(t->num_nodes);
	char path[PATH_LEN], why[ROUTES_ERR_LEN];
	uint8_t *img;
	uint32_t node;

	if (make_dir(dir, err))
		return -1;
	img = malloc(len);
	if (!img) {
		routes_err(err, "out of memory");
		return -1;
	}
	for (node = 0; node < t->num_nodes; node++) {
		plan_fill(p, node, img + VGEMINI_ROUTE_HDR_SIZE);
		if (table_check(t, node, img + VGEMINI_ROUTE_HDR_SIZE, why)) {
			routes_err(err, "internal error: %s", why);
			goto fail;
		}
		image_build(img, t, node, generation);
		if (image_path(path, dir, node, err) ||
		    image_write_file(path, img, len, err))
			goto fail;
	}
	free(img);
	return remove_stale(dir, t->num_nodes, stale_removed, err);
fail:
	free(img);
	return -1;
}

/* Map and parse @path; the image must be router @id's. */
static int load_one(struct image_dir *d, const char *path, uint32_t id,
		    char *err)
{
	char why[ROUTES_ERR_LEN];
	struct stat st;
	void *map;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0) {
		routes_err(err, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		routes_err(err, "%s: not a regular file", path);
		close(fd);
		return -1;
	}
	if (st.st_size < (off_t)VGEMINI_ROUTE_HDR_SIZE) {
		routes_err(err, "%s: %lld bytes: shorter than the header",
			   path, (long long)st.st_size);
		close(fd);
		return -1;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		routes_err(err, "%s: %s", path, strerror(errno));
		return -1;
	}
	d->map[id] = map;
	d->map_len[id] = (size_t)st.st_size;
	if (image_parse(map, (size_t)st.st_size, &d->img[id], why)) {
		routes_err(err, "%s: %s", path, why);
		return -1;
	}
	if (d->img[id].gemini_id != id) {
		routes_err(err, "%s: holds the table of router %u", path,
			   d->img[id].gemini_id);
		return -1;
	}
	d->entries[id] = d->img[id].entries;
	return 0;
}

/* The images of one torus agree on its shape, generation, failures. */
static int same_torus(const struct route_image *a, const struct route_image *b,
		      const char *path, char *err)
{
	if (memcmp(a->dims, b->dims, sizeof(a->dims))) {
		routes_err(err, "%s: torus %ux%ux%u, router-0.bin says %ux%ux%u",
			   path, b->dims[0], b->dims[1], b->dims[2],
			   a->dims[0], a->dims[1], a->dims[2]);
		return -1;
	}
	if (a->generation != b->generation || a->num_failed != b->num_failed) {
		routes_err(err, "%s: generation %u with %u failed links, router-0.bin has generation %u with %u",
			   path, b->generation, b->num_failed, a->generation,
			   a->num_failed);
		return -1;
	}
	return 0;
}

/* Count the image files of @dir: how many, and the highest id. */
static int scan_dir(const char *dir, uint32_t *count, uint32_t *max_id,
		    char *err)
{
	struct dirent *de;
	uint32_t id;
	DIR *dh;
	int r;

	*count = 0;
	*max_id = 0;
	dh = opendir(dir);
	if (!dh) {
		routes_err(err, "%s: %s", dir, strerror(errno));
		return -1;
	}
	while ((de = readdir(dh))) {
		r = image_name(de->d_name, &id);
		if (r < 0) {
			routes_err(err, "%s/%s: not a canonical image name (router-<id>.bin)",
				   dir, de->d_name);
			closedir(dh);
			return -1;
		}
		if (!r)
			continue;
		(*count)++;
		if (id > *max_id)
			*max_id = id;
	}
	closedir(dh);
	return 0;
}

static int alloc_dir(struct image_dir *d, uint32_t n, char *err)
{
	d->num_nodes = n;
	d->img = calloc(n, sizeof(*d->img));
	d->map = calloc(n, sizeof(*d->map));
	d->map_len = calloc(n, sizeof(*d->map_len));
	d->entries = calloc(n, sizeof(*d->entries));
	if (d->img && d->map && d->map_len && d->entries)
		return 0;
	routes_err(err, "out of memory");
	return -1;
}

/*
 * Load DIR/router-0.bin .. router-<N-1>.bin: all present, none beyond,
 * each valid, all of one torus, generation and failure count.
 */
int images_load(const char *dir, struct image_dir *d, char *err)
{
	char path[PATH_LEN];
	uint32_t count, max_id, id;

	memset(d, 0, sizeof(*d));
	if (scan_dir(dir, &count, &max_id, err))
		return -1;
	if (!count) {
		routes_err(err, "%s: no router-<id>.bin images", dir);
		return -1;
	}
	/* Router 0's header says how many there must be. */
	if (alloc_dir(d, 1, err) || image_path(path, dir, 0, err) ||
	    load_one(d, path, 0, err))
		goto fail;
	id = d->img[0].num_nodes;
	images_unload(d);
	if (count != id || max_id != id - 1) {
		routes_err(err, "%s: %u images up to router-%u.bin, the torus has %u routers",
			   dir, count, max_id, id);
		return -1;
	}
	if (alloc_dir(d, id, err))
		goto fail;
	for (id = 0; id < d->num_nodes; id++) {
		if (image_path(path, dir, id, err) ||
		    load_one(d, path, id, err) ||
		    same_torus(&d->img[0], &d->img[id], path, err))
			goto fail;
	}
	return 0;
fail:
	images_unload(d);
	return -1;
}

void images_unload(struct image_dir *d)
{
	uint32_t id;

	for (id = 0; d->map && id < d->num_nodes; id++)
		if (d->map[id])
			munmap(d->map[id], d->map_len[id]);
	free(d->img);
	free(d->map);
	free(d->map_len);
	free(d->entries);
	memset(d, 0, sizeof(*d));
}
