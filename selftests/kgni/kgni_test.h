/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers shared by the kgni selftests: finding the Gemini, reading and
 * parsing /sys/class/gni, the torus arithmetic, the kernel log, loading
 * and unloading modules.
 *
 * Every fixture's set-up starts with kgni_fixture_setup(), which calls
 * kgni_require_device(): a machine without a Gemini SKIPs, a Gemini that
 * kgni did not bind FAILs.
 */
#ifndef KGNI_TEST_H
#define KGNI_TEST_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "gemini_hw.h"
#include "vgemini_ctl.h"

#define KGNI_DEV		"/dev/kgni0"
#define KGNI_CLASS		"/sys/class/gni"
#define KGNI_SYSFS		KGNI_CLASS "/kgni0"
#define KGNI_PCI_DEVICES	"/sys/bus/pci/devices"
#define KGNI_MODULE_SYSFS	"/sys/module/kgni"

/* The first kgni_driver_version that Lustre's gnilnd runs thread-safe with. */
#define KGNI_MIN_DRIVER_VERSION	0x004400b9u

/* sysfs prefix of each port's files, in enum gemini_port order */
static const char *const kgni_port_prefix[GEMINI_NUM_TORUS_PORTS] = {
	[GEMINI_PORT_XP] = "xp",
	[GEMINI_PORT_XM] = "xm",
	[GEMINI_PORT_YP] = "yp",
	[GEMINI_PORT_YM] = "ym",
	[GEMINI_PORT_ZP] = "zp",
	[GEMINI_PORT_ZM] = "zm",
};

/* Copy @src into @dst, cut to fit: for log text. */
static inline void kgni_copy(char *dst, size_t size, const char *src)
{
	size_t n = strlen(src);

	if (n >= size)
		n = size - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

static inline bool kgni_exists(const char *path)
{
	return access(path, F_OK) == 0;
}

/* Read a whole small file, without its trailing newline; 0 or -errno. */
static inline int kgni_read_file(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	err = errno;
	close(fd);
	if (n < 0)
		return -err;
	buf[n] = '\0';
	if (n > 0 && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return 0;
}

/* Read /sys/class/gni/kgni0/<name>. */
static inline int kgni_read_attr(const char *name, char *buf, size_t size)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", KGNI_SYSFS, name);
	return kgni_read_file(path, buf, size);
}

/* Read ports/<port>_<field>. */
static inline int kgni_read_port(unsigned int port, const char *field,
				 char *buf, size_t size)
{
	char name[64];

	snprintf(name, sizeof(name), "ports/%s_%s", kgni_port_prefix[port],
		 field);
	return kgni_read_attr(name, buf, size);
}

/* Strict parsers: the whole string, nothing before or after. */
static inline bool kgni_parse_uint(const char *s, unsigned long *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	*v = strtoul(s, &end, 10);
	return !errno && *end == '\0';
}

static inline bool kgni_parse_hex(const char *s, unsigned long *v)
{
	char *end;

	if (strncmp(s, "0x", 2) || !s[2] || s[2] == '-' || s[2] == '+')
		return false;
	errno = 0;
	*v = strtoul(s + 2, &end, 16);
	return !errno && *end == '\0';
}

/* "a b c" with single spaces (sysfs) or "a,b,c" (kernel command line). */
static inline bool kgni_parse_triple(const char *s, char sep,
				     unsigned int v[3])
{
	unsigned long x;
	unsigned int i;
	char *end;

	for (i = 0; i < 3; i++) {
		if (*s < '0' || *s > '9')
			return false;
		errno = 0;
		x = strtoul(s, &end, 10);
		if (errno || x > UINT_MAX)
			return false;
		v[i] = x;
		s = end;
		if (i < 2 && *s++ != sep)
			return false;
	}
	return *s == '\0';
}

static inline unsigned int kgni_gemini_id(const unsigned int c[3],
					  const unsigned int d[3])
{
	return c[0] + d[0] * (c[1] + d[1] * c[2]);
}

/*
 * PE of the neighbour on @port: one step along the port's dimension, with
 * wrap-around.  In a dimension of size 1 the port is cabled to the node's
 * own opposite port, so the neighbour is the node itself.
 */
static inline unsigned int kgni_neighbour_pe(const unsigned int c[3],
					     const unsigned int d[3],
					     unsigned int port)
{
	unsigned int n[3] = { c[0], c[1], c[2] };
	unsigned int dim = GEMINI_PORT_DIM(port);

	if (GEMINI_PORT_IS_MINUS(port))
		n[dim] = (n[dim] + d[dim] - 1) % d[dim];
	else
		n[dim] = (n[dim] + 1) % d[dim];
	return GEMINI_PE(kgni_gemini_id(n, d), 0);
}

/* PCI address of the first Gemini function in @addr; false if none. */
static inline bool kgni_find_pci(char *addr, size_t size)
{
	char path[PATH_MAX], val[32];
	unsigned long vendor, device;
	struct dirent *e;
	bool found = false;
	DIR *dir;

	dir = opendir(KGNI_PCI_DEVICES);
	if (!dir)
		return false;
	while (!found && (e = readdir(dir))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/vendor", KGNI_PCI_DEVICES,
			 e->d_name);
		if (kgni_read_file(path, val, sizeof(val)) ||
		    !kgni_parse_hex(val, &vendor) ||
		    vendor != GEMINI_PCI_VENDOR_ID)
			continue;
		snprintf(path, sizeof(path), "%s/%s/device", KGNI_PCI_DEVICES,
			 e->d_name);
		if (kgni_read_file(path, val, sizeof(val)) ||
		    !kgni_parse_hex(val, &device) ||
		    device != GEMINI_PCI_DEVICE_ID)
			continue;
		if (strlen(e->d_name) >= size)
			continue;
		strcpy(addr, e->d_name);
		found = true;
	}
	closedir(dir);
	return found;
}

/* Name of the driver bound to PCI function @addr, or "none". */
static inline void kgni_pci_driver(const char *addr, char *drv, size_t size)
{
	char path[PATH_MAX], link[PATH_MAX];
	const char *name;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%s/driver", KGNI_PCI_DEVICES, addr);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0) {
		snprintf(drv, size, "none");
		return;
	}
	link[n] = '\0';
	name = strrchr(link, '/') ? strrchr(link, '/') + 1 : link;
	if (strlen(name) >= size)
		name = "?";
	strcpy(drv, name);
}

/*
 * The kernel log through /dev/kmsg, one record per read().  Open at the
 * end to see only what comes next, or at the start to see everything.
 */
static inline int kgni_kmsg_open(bool at_end)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0 && at_end)
		lseek(fd, 0, SEEK_END);
	return fd;
}

/*
 * Next record's text in @buf (the "prio,seq,time,flags;" prefix removed)
 * and its level (syslog's: 3 is an error) in @level if not NULL; false at
 * the end of the log.
 */
static inline bool kgni_kmsg_next_level(int fd, char *buf, size_t size,
					unsigned int *level)
{
	char rec[8192];
	ssize_t n;
	char *text;

	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* overwritten records: go on */
		if (n <= 0)
			return false;
		rec[n] = '\0';
		if (level)
			*level = strtoul(rec, NULL, 10) & 7;
		text = strchr(rec, ';');
		text = text ? text + 1 : rec;
		text[strcspn(text, "\n")] = '\0';
		kgni_copy(buf, size, text);
		return true;
	}
}

static inline bool kgni_kmsg_next(int fd, char *buf, size_t size)
{
	return kgni_kmsg_next_level(fd, buf, size, NULL);
}

/* A kernel splat: a BUG, a WARN, an oops, a sanitizer report. */
static inline bool kgni_kmsg_is_splat(const char *text)
{
	static const char *const marks[] = {
		"BUG:", "BUG at", "WARNING:", "Oops", "Call Trace:",
		"UBSAN:", "KASAN:", "kmemleak:",
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(marks); i++)
		if (strstr(text, marks[i]))
			return true;
	return false;
}

/* Log the kernel's lines that mention kgni (at most the last 20). */
static inline void kgni_log_driver_messages(struct __test_metadata *_metadata)
{
	static char lines[20][256];
	unsigned int n = 0, i;
	char text[1024];
	int fd;

	fd = kgni_kmsg_open(false);
	if (fd < 0)
		return;
	while (kgni_kmsg_next(fd, text, sizeof(text)))
		if (strstr(text, "kgni"))
			kgni_copy(lines[n++ % 20], sizeof(lines[0]), text);
	close(fd);
	for (i = n > 20 ? n - 20 : 0; i < n; i++)
		TH_LOG("kernel: %s", lines[i % 20]);
}

/*
 * SKIP when there is no Gemini here at all; FAIL when there is one but no
 * /dev/kgni0 (the driver is not loaded or refused to bind).
 */
static inline bool kgni_require_device(struct __test_metadata *_metadata)
{
	char addr[64] = "", drv[64];
	bool pci, dev;

	dev = kgni_exists(KGNI_DEV);
	pci = kgni_find_pci(addr, sizeof(addr));
	if (!dev && !pci)
		SKIP(return false, "no Gemini: no %s and no PCI device %04x:%04x",
		     KGNI_DEV, GEMINI_PCI_VENDOR_ID, GEMINI_PCI_DEVICE_ID);
	if (!dev) {
		kgni_pci_driver(addr, drv, sizeof(drv));
		TH_LOG("Gemini %s present but no %s: driver %s, module %s",
		       addr, KGNI_DEV, drv,
		       kgni_exists(KGNI_MODULE_SYSFS) ? "loaded" : "not loaded");
		kgni_log_driver_messages(_metadata);
	}
	ASSERT_TRUE(dev);
	return true;
}

/* kgni_fixture_setup() flags */
#define KGNI_FIXTURE_ROOT	0x1	/* SKIP unless root (job set-up) */

/*
 * The start of every fixture's set-up.  @kmsg and @fd (either may be NULL)
 * are -1 first.  A machine without a Gemini SKIPs, and so does a caller
 * that is not root with KGNI_FIXTURE_ROOT; both set @absent (6.1's harness
 * still runs the test and its teardown after a SKIP in set-up).  Then the
 * kernel log is opened at its end into @kmsg (for the teardown's splat
 * check) and /dev/kgni0 into @fd.  False when set-up must return.
 */
static inline bool kgni_fixture_setup(struct __test_metadata *_metadata,
				      unsigned int flags, bool *absent,
				      int *kmsg, int *fd)
{
	if (fd)
		*fd = -1;
	if (kmsg)
		*kmsg = -1;
	if (!kgni_require_device(_metadata)) {
		*absent = true;
		return false;
	}
	if ((flags & KGNI_FIXTURE_ROOT) && geteuid() != 0) {
		*absent = true;
		SKIP(return false, "needs root (KGNI_IOC_JOB_CONFIGURE)");
	}
	if (kmsg) {
		*kmsg = kgni_kmsg_open(true);
		ASSERT_LE(0, *kmsg) TH_LOG("/dev/kmsg: %s", strerror(errno));
	}
	if (fd) {
		*fd = open(KGNI_DEV, O_RDWR | O_CLOEXEC);
		ASSERT_LE(0, *fd) TH_LOG("open %s: %s", KGNI_DEV,
					 strerror(errno));
	}
	return true;
}

static inline double kgni_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The driver's PCI directory, for unbind and bind */
#define KGNI_PCI_DRIVER		"/sys/bus/pci/drivers/kgni"
/* How long a node or file may take to appear or go */
#define KGNI_APPEAR_TIMEOUT_S	10

/* Load the module in file @path; 0 or -errno (finit_module). */
static inline int kgni_insmod(const char *path)
{
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = syscall(__NR_finit_module, fd, "", 0) ? -errno : 0;
	close(fd);
	return ret;
}

/* Unload module @name without waiting; 0 or -errno (delete_module). */
static inline int kgni_rmmod(const char *name)
{
	return syscall(__NR_delete_module, name, O_NONBLOCK) ? -errno : 0;
}

/* Write @text into sysfs file @path; false on a short write. */
static inline bool kgni_write_file(const char *path, const char *text)
{
	ssize_t n, len = strlen(text);
	int fd;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = write(fd, text, len);
	close(fd);
	return n == len;
}

/* The number in file @path (a module parameter, a /proc/sys value), or -1 */
static inline long kgni_read_long(const char *path)
{
	char buf[32] = "";
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 ? strtol(buf, NULL, 10) : -1;
}

/* Write number @v into file @path (sysfs, /proc/sys); 0, or -1 */
static inline int kgni_write_long(const char *path, long v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%ld\n", v);
	return kgni_write_file(path, buf) ? 0 : -1;
}

/* Wait until @path exists (@present) or not; false after the timeout. */
static inline bool kgni_wait_path(const char *path, bool present)
{
	double deadline = kgni_now() + KGNI_APPEAR_TIMEOUT_S;

	while (kgni_exists(path) != present) {
		if (kgni_now() > deadline)
			return false;
		usleep(20 * 1000);
	}
	return true;
}

#endif /* KGNI_TEST_H */
