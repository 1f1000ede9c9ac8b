// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vgemini-routes: compute the routing tables of every router of a torus
 * (routing around failed links), write them as images the supervisor
 * loads, dump an image, or verify a directory of images.  See
 * Documentation/routing.rst.
 *
 * Exit codes: 0 success, 1 error (I/O, a bad image, tables that fail
 * verification), 2 usage error, 3 some pairs of nodes are unreachable.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routes.h"

#define PROG		"vgemini-routes"
#define EXIT_USAGE	2
#define EXIT_UNREACHABLE 3
#define MAX_FAILS	4096

struct options {
	const char *dims;
	const char *out;
	const char *dump;
	const char *verify;
	const char *generation;
	const char *fail[MAX_FAILS];
	unsigned int num_fail;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " --dims XxYxZ [--fail NODE:PORT]... [--generation N] --out DIR\n"
		"       " PROG " --dump DIR/router-N.bin\n"
		"       " PROG " --verify DIR [--fail NODE:PORT]...\n"
		"\n"
		"  --dims XxYxZ       torus shape, each dimension 1..255, at most 65536 nodes\n"
		"  --fail NODE:PORT   a failed cable (both ends); NODE is a Gemini id or x,y,z,\n"
		"                     PORT is X+ X- Y+ Y- Z+ Z- (any case) or xp xm yp ym zp zm\n"
		"  --generation N     generation number put in every image, 1.. (default 1;\n"
		"                     routers refuse 0, which means no table)\n"
		"  --out DIR          write DIR/router-<gemini id>.bin for every router\n"
		"  --dump FILE        print an image: header, then each destination's route\n"
		"  --verify DIR       check every image of DIR and simulate every pair\n"
		"\n"
		"exit: 0 ok, 1 error, 2 usage error, 3 some pairs unreachable\n");
}

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, PROG ": ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n(" PROG " --help for usage)\n");
	return EXIT_USAGE;
}

/* Store @val for option @name into *@slot, refusing repeats. */
static int set_once(const char **slot, const char *name, const char *val)
{
	if (*slot)
		return usage_error("%s given twice", name);
	*slot = val;
	return 0;
}

static int parse_args(int argc, char **argv, struct options *o)
{
	static const char *const names[] = {
		"--dims", "--out", "--dump", "--verify", "--generation", "--fail",
	};
	const char **slots[] = {
		&o->dims, &o->out, &o->dump, &o->verify, &o->generation, NULL,
	};
	int i, ret;

	for (i = 1; i < argc; i++) {
		const char *arg = argv[i], *val, *eq = strchr(arg, '=');
		size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
		unsigned int k;

		if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
			usage(stdout);
			return -1;
		}
		for (k = 0; k < 6; k++)
			if (strlen(names[k]) == len && !strncmp(arg, names[k], len))
				break;
		if (k == 6)
			return usage_error("unknown argument \"%s\"", arg);
		if (eq)
			val = eq + 1;
		else if (i + 1 < argc)
			val = argv[++i];
		else
			return usage_error("%s needs a value", names[k]);
		if (slots[k]) {
			ret = set_once(slots[k], names[k], val);
			if (ret)
				return ret;
		} else if (o->num_fail == MAX_FAILS) {
			return usage_error("more than %s --fail options", "4096");
		} else {
			o->fail[o->num_fail++] = val;
		}
	}
	return 0;
}

/* Apply every --fail to @t; a usage error for a bad one. */
static int apply_fails(struct torus *t, const struct options *o)
{
	char err[ROUTES_ERR_LEN];
	unsigned int i, port;
	uint32_t id;

	for (i = 0; i < o->num_fail; i++) {
		if (parse_link(t, o->fail[i], &id, &port, err) ||
		    torus_fail_link(t, id, port, err))
			return usage_error("--fail: %s", err);
	}
	return 0;
}

static void print_unreachable(const struct check_result *res,
			      bool disconnected)
{
	unsigned int i;

	fprintf(stderr, PROG ": %llu of %llu pairs unreachable%s; first:",
		(unsigned long long)res->unreachable,
		(unsigned long long)res->pairs,
		disconnected ? " (the failed links disconnect the torus)" : "");
	for (i = 0; i < res->num_listed; i++)
		fprintf(stderr, " %u->%u", res->listed[i][0], res->listed[i][1]);
	fprintf(stderr, "%s\n", res->unreachable > res->num_listed ? " ..." : "");
}

static int generate(const struct options *o)
{
	char err[ROUTES_ERR_LEN], name[ROUTES_ERR_LEN];
	struct check_result res;
	struct route_plan plan;
	unsigned int dims[3], stale;
	uint32_t generation = 1, num_comp = 1, *comp;
	struct torus t;
	int ret;

	if (!o->out)
		return usage_error("%s", "--dims needs --out DIR");
	if (parse_dims(o->dims, dims, err))
		return usage_error("--dims: %s", err);
	if (o->generation && (parse_u32(o->generation, &generation) ||
			      !generation))
		return usage_error("--generation \"%s\": expected 1..4294967295",
				   o->generation);
	if (torus_init(&t, dims, err)) {
		fprintf(stderr, PROG ": %s\n", err);
		return 1;
	}
	ret = apply_fails(&t, o);
	if (ret)
		goto out;
	ret = 1;
	if (plan_choose(&plan, &t, &res, err)) {
		fprintf(stderr, PROG ": %s\n", err);
		goto out;
	}
	if (images_write(o->out, &t, &plan, generation, &stale, err)) {
		fprintf(stderr, PROG ": %s\n", err);
		goto out_plan;
	}
	if (stale)
		fprintf(stderr, PROG ": removed %u images of routers beyond %u from %s\n",
			stale, t.num_nodes - 1, o->out);
	printf(PROG ": %ux%ux%u: wrote %u routers to %s, %u failed link%s, %s, max path %u hops",
	       dims[0], dims[1], dims[2], t.num_nodes, o->out, t.num_failed,
	       t.num_failed == 1 ? "" : "s", plan_name(&plan, name, sizeof(name)),
	       res.max_hops);
	if (res.nonminimal)
		printf(" (%llu pairs detour)", (unsigned long long)res.nonminimal);
	if (!res.unreachable) {
		printf(", all pairs reachable\n");
		ret = 0;
		goto out_plan;
	}
	printf(", %llu pairs UNREACHABLE\n", (unsigned long long)res.unreachable);
	fflush(stdout);
	comp = torus_components(&t, &num_comp);
	free(comp);
	print_unreachable(&res, num_comp > 1);
	ret = EXIT_UNREACHABLE;
out_plan:
	plan_free(&plan);
out:
	torus_free(&t);
	return ret;
}

/* Read a whole file of at most @max bytes. */
static uint8_t *read_file(const char *path, size_t max, size_t *len, char *err)
{
	uint8_t *buf = malloc(max + 1);
	FILE *f;

	if (!buf) {
		routes_err(err, "out of memory");
		return NULL;
	}
	f = fopen(path, "rb");
	if (!f) {
		routes_err(err, "%s: cannot open", path);
		free(buf);
		return NULL;
	}
	*len = fread(buf, 1, max + 1, f);
	if (ferror(f)) {
		routes_err(err, "%s: read error", path);
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	return buf;
}

static void dump_entry(uint8_t e)
{
	unsigned int port = e & VGEMINI_ROUTE_PORT_MASK;

	if (port < GEMINI_NUM_TORUS_PORTS)
		printf("%-5s class %u", port_name(port),
		       !!(e & VGEMINI_ROUTE_CLASS_BIT));
	else
		printf("%s", port == VGEMINI_ROUTE_OUT_NIC ? "deliver" : "none");
}

static void dump_image(const char *path, const struct torus *t,
		       const struct route_image *img)
{
	unsigned int c[3], row, port, count[8];
	uint32_t dest;

	torus_coords(t, img->gemini_id, c);
	printf("%s: vgemini routing table, version %u\n", path,
	       VGEMINI_ROUTE_VERSION);
	printf("  gemini id     %u (%u,%u,%u)\n", img->gemini_id, c[0], c[1], c[2]);
	printf("  dims          %ux%ux%u (%u nodes)\n", img->dims[0],
	       img->dims[1], img->dims[2], img->num_nodes);
	printf("  generation    %u\n", img->generation);
	printf("  failed links  %u\n", img->num_failed);
	printf("  entries crc32 0x%08x (ok)\n", img->crc);
	printf("entries per input (port, class): X+ X- Y+ Y- Z+ Z- deliver none\n");
	for (row = 0; row < ROUTES_STATES; row++) {
		memset(count, 0, sizeof(count));
		for (dest = 0; dest < t->num_nodes; dest++)
			count[img->entries[row * t->num_nodes + dest] &
			      VGEMINI_ROUTE_PORT_MASK]++;
		printf("  in %-5s c%u:", port_name(row / 2), row % 2);
		for (port = 0; port < 8; port++)
			printf(" %u", count[port]);
		printf("\n");
	}
	printf("route from the local NIC, by destination:\n");
	for (dest = 0; dest < t->num_nodes; dest++) {
		torus_coords(t, dest, c);
		printf("  %5u (%u,%u,%u)  ", dest, c[0], c[1], c[2]);
		dump_entry(img->entries[VGEMINI_ROUTE_IN_NIC *
					VGEMINI_ROUTE_CLASSES * t->num_nodes +
					dest]);
		printf("\n");
	}
}

static int dump(const struct options *o)
{
	char err[ROUTES_ERR_LEN], why[ROUTES_ERR_LEN];
	struct route_image img;
	struct torus t;
	uint8_t *buf;
	size_t len;
	int ret = 1;

	if (o->dims || o->out || o->verify || o->generation || o->num_fail)
		return usage_error("%s", "--dump takes no other option");
	buf = read_file(o->dump, image_size(GEMINI_MAX_NODES), &len, err);
	if (!buf) {
		fprintf(stderr, PROG ": %s\n", err);
		return 1;
	}
	if (image_parse(buf, len, &img, why)) {
		fprintf(stderr, PROG ": %s: %s\n", o->dump, why);
		goto out;
	}
	if (torus_init(&t, img.dims, err)) {
		fprintf(stderr, PROG ": %s: %s\n", o->dump, err);
		goto out;
	}
	dump_image(o->dump, &t, &img);
	torus_free(&t);
	ret = 0;
out:
	free(buf);
	return ret;
}

/* The result of verify: 0, 1 for a defect, 3 for unreachable pairs only. */
static int verify_report(const struct options *o, const struct image_dir *d,
			 const struct check_result *res, unsigned int flags)
{
	const struct route_image *img = &d->img[0];
	bool bad = !check_sound(res, flags);

	if (res->problem[0])
		fprintf(stderr, PROG ": %s: %s\n", o->verify, res->problem);
	if (res->cyclic)
		fprintf(stderr, PROG ": %s: deadlock possible: %s\n", o->verify,
			res->cycle);
	if (res->unreachable_connected)
		fprintf(stderr, PROG ": %s: %llu pairs unreachable although the surviving links connect them\n",
			o->verify, (unsigned long long)res->unreachable_connected);
	if (res->unreachable)
		print_unreachable(res, false);
	if (bad) {
		fprintf(stderr, PROG ": %s: FAILED: %llu loops, %llu misdelivered, %llu on dead links, %llu bad entries, %llu longer than the distance%s\n",
			o->verify, (unsigned long long)res->loops,
			(unsigned long long)res->misdelivered,
			(unsigned long long)res->dead_link,
			(unsigned long long)res->bad_entry,
			(unsigned long long)res->nonminimal,
			res->cyclic ? ", dependency cycle" : "");
		return 1;
	}
	printf(PROG ": %s: %u routers, %ux%ux%u, generation %u, %u failed links: %llu of %llu pairs delivered, max path %u hops%s, deadlock-free (%llu channels used, no dependency cycle)\n",
	       o->verify, d->num_nodes, img->dims[0], img->dims[1], img->dims[2],
	       img->generation, img->num_failed,
	       (unsigned long long)res->delivered,
	       (unsigned long long)res->pairs, res->max_hops,
	       flags & CHECK_MINIMAL ? " (all minimal)" : "",
	       (unsigned long long)res->channels_used);
	return res->unreachable ? EXIT_UNREACHABLE : 0;
}

static int verify(const struct options *o)
{
	char err[ROUTES_ERR_LEN];
	struct check_result res;
	struct image_set set;
	struct image_dir d;
	unsigned int flags = 0;
	struct torus t;
	uint32_t id;
	int ret = 1;

	if (o->dims || o->out || o->dump || o->generation)
		return usage_error("%s", "--verify takes only --fail options");
	if (images_load(o->verify, &d, err)) {
		fprintf(stderr, PROG ": %s\n", err);
		return 1;
	}
	if (torus_init(&t, d.img[0].dims, err)) {
		fprintf(stderr, PROG ": %s\n", err);
		goto out_dir;
	}
	ret = apply_fails(&t, o);
	if (ret)
		goto out;
	ret = 1;
	if (o->num_fail && t.num_failed != d.img[0].num_failed) {
		fprintf(stderr, PROG ": %s: %u failed links given, the images route around %u\n",
			o->verify, t.num_failed, d.img[0].num_failed);
		goto out;
	}
	for (id = 0; id < d.num_nodes; id++) {
		if (table_check(&t, id, d.entries[id], err)) {
			fprintf(stderr, PROG ": %s: %s\n", o->verify, err);
			goto out;
		}
	}
	if (!d.img[0].num_failed)
		flags |= CHECK_MINIMAL;
	set.num_nodes = d.num_nodes;
	set.entries = d.entries;
	if (route_check(&t, image_set_entry, &set, flags, &res, err)) {
		fprintf(stderr, PROG ": %s\n", err);
		goto out;
	}
	/* Unknown failed links: an unreachable pair may be disconnected. */
	if (d.img[0].num_failed && !o->num_fail)
		res.unreachable_connected = 0;
	ret = verify_report(o, &d, &res, flags);
out:
	torus_free(&t);
out_dir:
	images_unload(&d);
	return ret;
}

int main(int argc, char **argv)
{
	static struct options o;
	int ret, modes;

	ret = parse_args(argc, argv, &o);
	if (ret)
		return ret < 0 ? 0 : ret;
	modes = !!o.dims + !!o.dump + !!o.verify;
	if (modes != 1)
		return usage_error("%s", modes ? "give one of --dims, --dump, --verify"
					      : "nothing to do: give --dims, --dump or --verify");
	if (o.dump)
		return dump(&o);
	if (o.verify)
		return verify(&o);
	return generate(&o);
}
