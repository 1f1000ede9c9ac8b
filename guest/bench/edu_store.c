// SPDX-License-Identifier: GPL-2.0-only
/*
 * Baseline for `make bench`: how many stores (and loads) per second a
 * guest makes to a register of an emulated PCI device, QEMU's "edu" test
 * device ("vgemini up --edu").  Every such access leaves the guest's code
 * for the device's handler in QEMU: the rate is the ceiling that stores
 * into the cray-gemini device's FMA windows can approach.
 *
 *   edu_store [-n COUNT] [-d DEVICE] [-s DIR]
 *
 * It finds the edu device (PCI 1234:11e8) under /sys/bus/pci/devices (or
 * DIR), enables it if its memory decoding is off, maps its BAR 0 through
 * sysfs (resource0, O_RDWR | O_SYNC), checks its identification and
 * "card liveness" registers, then stores COUNT (default 1000000) values
 * to the liveness register (0x04: it only keeps the value's complement,
 * no side effect) and loads it COUNT times.  Prints
 *
 *   edu: stores/s: <n>
 *   edu: loads/s: <n>
 *
 * Exit 1 with a message when there is no edu device or it misbehaves, 2
 * on usage errors.  Runs as root (the agent's commands do).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PROG		"edu_store"
#define EDU_VENDOR	0x1234
#define EDU_DEVICE	0x11e8
/* Registers of hw/misc/edu.c (4-byte accesses) */
#define EDU_ID		0x00		/* 0xRRrr00ed: major, minor, 0xed */
#define EDU_LIVENESS	0x04		/* reads back the complement */
#define EDU_MAP_SIZE	4096
#define PCI_COMMAND	0x04
#define PCI_COMMAND_MEMORY 0x2
#define DEFAULT_COUNT	1000000ul
#define MAX_COUNT	10000000000ul

#include "bench_util.h"

static void __attribute__((noreturn)) usage(void)
{
	fprintf(stderr,
		"usage: " PROG " [-n COUNT] [-d DEVICE] [-s DIR]\n"
		"  -n COUNT   stores, then loads, to time (1..%lu, default %lu)\n"
		"  -d DEVICE  the PCI device, e.g. 0000:00:05.0 (default: the\n"
		"             first edu device, 1234:11e8)\n"
		"  -s DIR     where the PCI devices are (default\n"
		"             /sys/bus/pci/devices)\n", MAX_COUNT, DEFAULT_COUNT);
	exit(2);
}

/* A sysfs attribute holding a hexadecimal number; -1 if unreadable. */
static long read_hex(const char *dir, const char *dev, const char *attr)
{
	char path[PATH_MAX], buf[32], *end;
	ssize_t n;
	long v;
	int fd;

	if (snprintf(path, sizeof(path), "%s/%s/%s", dir, dev, attr) >=
	    (int)sizeof(path))
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	errno = 0;
	v = strtol(buf, &end, 16);
	if (errno || end == buf || (*end && *end != '\n') || v < 0)
		return -1;
	return v;
}

static int is_edu(const char *dir, const char *dev)
{
	return read_hex(dir, dev, "vendor") == EDU_VENDOR &&
		read_hex(dir, dev, "device") == EDU_DEVICE;
}

/* The first edu device's name under @dir (into @out). */
static void find_edu(const char *dir, char *out, size_t len)
{
	struct dirent *e;
	DIR *d = opendir(dir);

	if (!d)
		die("cannot read %s: %s", dir, strerror(errno));
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || strlen(e->d_name) >= len)
			continue;
		if (is_edu(dir, e->d_name)) {
			strcpy(out, e->d_name);
			closedir(d);
			return;
		}
	}
	closedir(d);
	die("no edu device (PCI %04x:%04x) under %s: boot with 'vgemini up "
	    "--edu'", EDU_VENDOR, EDU_DEVICE, dir);
}

/* Turn memory decoding on (sysfs "enable") if the firmware left it off. */
static void enable(const char *dir, const char *dev)
{
	char path[PATH_MAX];
	unsigned char cmd[2];
	int fd;

	snprintf(path, sizeof(path), "%s/%s/config", dir, dev);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || pread(fd, cmd, 2, PCI_COMMAND) != 2)
		die("cannot read %s: %s", path, strerror(errno));
	close(fd);
	if (cmd[0] & PCI_COMMAND_MEMORY)
		return;
	snprintf(path, sizeof(path), "%s/%s/enable", dir, dev);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "1", 1) != 1)
		die("cannot enable %s (%s): %s", dev, path, strerror(errno));
	close(fd);
}

static volatile uint32_t *map_bar0(const char *dir, const char *dev)
{
	char path[PATH_MAX];
	struct stat st;
	void *p;
	int fd;

	snprintf(path, sizeof(path), "%s/%s/resource0", dir, dev);
	fd = open(path, O_RDWR | O_SYNC | O_CLOEXEC);
	if (fd < 0)
		die("cannot open %s: %s", path, strerror(errno));
	if (fstat(fd, &st) < 0 || st.st_size < EDU_MAP_SIZE)
		die("%s: BAR 0 is smaller than %d bytes", path, EDU_MAP_SIZE);
	p = mmap(NULL, EDU_MAP_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		die("cannot map %s: %s", path, strerror(errno));
	close(fd);
	return p;
}

int main(int argc, char **argv)
{
	const char *dir = "/sys/bus/pci/devices", *want = NULL;
	unsigned long count = DEFAULT_COUNT, i;
	char dev[256], *end;
	volatile uint32_t *reg;
	uint32_t id, v, sum = 0;
	double t, stores, loads;
	int opt;

	while ((opt = getopt(argc, argv, "n:d:s:h")) != -1) {
		switch (opt) {
		case 'n':
			errno = 0;
			count = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || optarg[0] == '-' ||
			    count < 1 || count > MAX_COUNT) {
				fprintf(stderr, PROG ": bad -n '%s'\n", optarg);
				usage();
			}
			break;
		case 'd':
			want = optarg;
			break;
		case 's':
			dir = optarg;
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	if (want) {
		if (!want[0] || strchr(want, '/') || strlen(want) >= sizeof(dev))
			die("bad device name '%s'", want);
		if (!is_edu(dir, want))
			die("%s/%s is not an edu device (PCI %04x:%04x)", dir,
			    want, EDU_VENDOR, EDU_DEVICE);
		strcpy(dev, want);
	} else {
		find_edu(dir, dev, sizeof(dev));
	}
	enable(dir, dev);
	reg = map_bar0(dir, dev);

	id = reg[EDU_ID / 4];
	if ((id & 0xff) != 0xed)
		die("%s: identification register reads 0x%08x, not 0x....00ed",
		    dev, id);
	reg[EDU_LIVENESS / 4] = 0x12345678;
	v = reg[EDU_LIVENESS / 4];
	if (v != ~0x12345678u)
		die("%s: liveness check failed: wrote 0x12345678, read 0x%08x "
		    "(want 0x%08x)", dev, v, ~0x12345678u);

	/* Each store is one exit to the device's handler under TCG. */
	t = now();
	for (i = 0; i < count; i++)
		reg[EDU_LIVENESS / 4] = (uint32_t)i;
	stores = count / (now() - t);
	v = reg[EDU_LIVENESS / 4];
	if (v != ~(uint32_t)(count - 1))
		die("%s: after the stores the register reads 0x%08x, not 0x%08x",
		    dev, v, ~(uint32_t)(count - 1));

	t = now();
	for (i = 0; i < count; i++)
		sum += reg[EDU_LIVENESS / 4];
	loads = count / (now() - t);
	if (sum != (uint32_t)(count * ~(uint32_t)(count - 1)))
		die("%s: the loads read something else than was stored", dev);

	printf("edu: device %s (version %u.%u), register 0x%02x, %lu stores "
	       "and %lu loads\n", dev, id >> 24, (id >> 16) & 0xff,
	       EDU_LIVENESS, count, count);
	printf("edu: stores/s: %.0f\n", stores);
	printf("edu: loads/s: %.0f\n", loads);
	return 0;
}
