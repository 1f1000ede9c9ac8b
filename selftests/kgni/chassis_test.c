// SPDX-License-Identifier: GPL-2.0-only
/*
 * kgni chassis test: the NIC's identity and place in the torus as kgni
 * shows them in /dev and /sys/class/gni, checked against the torus
 * arithmetic done here and against the launcher's kernel command line
 * (vgemini.coord=x,y,z vgemini.dims=X,Y,Z).
 */
#define _GNU_SOURCE
#include <sys/sysmacros.h>

#include "kgni_test.h"

/* Other nodes boot at their own pace: how long ports may take to come up. */
#define PORTS_UP_TIMEOUT_S	30

FIXTURE(chassis) {
	bool absent;	/* setup SKIPped; 6.1's harness still runs the test */
	unsigned int coord[3];
	unsigned int dims[3];
	unsigned long gemini_id;
	unsigned long pe;
};

FIXTURE_SETUP(chassis)
{
	char buf[128];
	unsigned int i;

	if (!kgni_fixture_setup(_metadata, 0, &self->absent, NULL, NULL))
		return;

	ASSERT_EQ(0, kgni_read_attr("coord", buf, sizeof(buf)));
	ASSERT_TRUE(kgni_parse_triple(buf, ' ', self->coord))
		TH_LOG("coord is \"%s\", want \"x y z\"", buf);
	ASSERT_EQ(0, kgni_read_attr("dims", buf, sizeof(buf)));
	ASSERT_TRUE(kgni_parse_triple(buf, ' ', self->dims))
		TH_LOG("dims is \"%s\", want \"X Y Z\"", buf);
	for (i = 0; i < 3; i++) {
		ASSERT_LE(1u, self->dims[i]);
		ASSERT_GE((unsigned int)VGEMINI_MAX_DIM, self->dims[i]);
		ASSERT_LT(self->coord[i], self->dims[i])
			TH_LOG("coordinate %u is %u, dimension %u", i,
			       self->coord[i], self->dims[i]);
	}
	ASSERT_EQ(0, kgni_read_attr("gemini_id", buf, sizeof(buf)));
	ASSERT_TRUE(kgni_parse_uint(buf, &self->gemini_id))
		TH_LOG("gemini_id is \"%s\", want a decimal number", buf);
	ASSERT_EQ(0, kgni_read_attr("nic_address", buf, sizeof(buf)));
	ASSERT_TRUE(kgni_parse_hex(buf, &self->pe))
		TH_LOG("nic_address is \"%s\", want 0x<hex>", buf);
}

FIXTURE_TEARDOWN(chassis)
{
}


TEST_F(chassis, dev_node)
{
	char buf[64];
	unsigned int maj, min;
	struct stat st;
	int fd, n;

	if (self->absent)
		return;
	ASSERT_EQ(0, stat(KGNI_DEV, &st));
	ASSERT_TRUE(S_ISCHR(st.st_mode));
	ASSERT_EQ(0, kgni_read_attr("dev", buf, sizeof(buf)));
	n = 0;
	ASSERT_EQ(2, sscanf(buf, "%u:%u%n", &maj, &min, &n));
	ASSERT_EQ(strlen(buf), (size_t)n);
	EXPECT_EQ(maj, major(st.st_rdev));
	EXPECT_EQ(min, minor(st.st_rdev));

	fd = open(KGNI_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd) TH_LOG("open %s: %s", KGNI_DEV, strerror(errno));
	/* Not a seekable file. */
	EXPECT_EQ(-1, lseek(fd, 0, SEEK_SET));
	EXPECT_EQ(ESPIPE, errno);
	EXPECT_EQ(0, close(fd));

	/* Two opens at once, as two processes of a job would. */
	fd = open(KGNI_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	n = open(KGNI_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, n);
	EXPECT_EQ(0, close(n));
	EXPECT_EQ(0, close(fd));
}

TEST_F(chassis, class_version)
{
	char buf[512], *line2, *line3;
	unsigned long version;

	if (self->absent)
		return;
	ASSERT_EQ(0, kgni_read_file(KGNI_CLASS "/version", buf, sizeof(buf)));
	line2 = strchr(buf, '\n');
	ASSERT_NE(NULL, line2) TH_LOG("version has one line: \"%s\"", buf);
	*line2++ = '\0';
	line3 = strchr(line2, '\n');
	ASSERT_NE(NULL, line3) TH_LOG("version has two lines");
	*line3++ = '\0';
	EXPECT_EQ(NULL, strchr(line3, '\n')) TH_LOG("version has > 3 lines");

	ASSERT_EQ(10u, strlen(buf)) TH_LOG("version \"%s\", want 0x%%08x", buf);
	ASSERT_TRUE(kgni_parse_hex(buf, &version));
	EXPECT_LE(KGNI_MIN_DRIVER_VERSION, version)
		TH_LOG("version 0x%08lx, gnilnd needs 0x%08x", version,
		       KGNI_MIN_DRIVER_VERSION);
	EXPECT_NE(0u, strlen(line2)) TH_LOG("empty build string");
	EXPECT_NE(0u, strlen(line3)) TH_LOG("empty build revision");
}

TEST_F(chassis, identity)
{
	unsigned int id;

	if (self->absent)
		return;
	id = kgni_gemini_id(self->coord, self->dims);
	EXPECT_EQ(id, self->gemini_id)
		TH_LOG("node (%u,%u,%u) of %ux%ux%u should be Gemini %u",
		       self->coord[0], self->coord[1], self->coord[2],
		       self->dims[0], self->dims[1], self->dims[2], id);
	EXPECT_EQ(GEMINI_PE(self->gemini_id, 0), self->pe);
	EXPECT_EQ(0ul, self->pe & ~(unsigned long)GEMINI_PE_MASK);
}

/*
 * The launcher's word for where this node is; "vgemini.coord" and
 * "vgemini.dims" are not kernel parameters, so they only show here.
 */
static bool cmdline_triple(const char *cmdline, const char *key,
			   unsigned int v[3], bool *valid)
{
	char want[64], tok[64];
	const char *p = cmdline;
	size_t n, klen;

	snprintf(want, sizeof(want), "%s=", key);
	klen = strlen(want);
	while (*p) {
		p += strspn(p, " \t\n");
		n = strcspn(p, " \t\n");
		if (n > klen && !strncmp(p, want, klen) && n < sizeof(tok)) {
			memcpy(tok, p + klen, n - klen);
			tok[n - klen] = '\0';
			*valid = kgni_parse_triple(tok, ',', v);
			return true;
		}
		p += n;
	}
	return false;
}

TEST_F(chassis, cmdline_topology)
{
	unsigned int coord[3], dims[3];
	bool coord_ok = false, dims_ok = false;
	char cmdline[4096];
	unsigned int i;

	if (self->absent)
		return;
	ASSERT_EQ(0, kgni_read_file("/proc/cmdline", cmdline, sizeof(cmdline)));
	if (!cmdline_triple(cmdline, "vgemini.coord", coord, &coord_ok) ||
	    !cmdline_triple(cmdline, "vgemini.dims", dims, &dims_ok))
		SKIP(return, "no vgemini.coord= and vgemini.dims= on the kernel command line");
	ASSERT_TRUE(coord_ok) TH_LOG("bad vgemini.coord= in \"%s\"", cmdline);
	ASSERT_TRUE(dims_ok) TH_LOG("bad vgemini.dims= in \"%s\"", cmdline);
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(coord[i], self->coord[i])
			TH_LOG("axis %u: command line %u, sysfs %u", i,
			       coord[i], self->coord[i]);
		EXPECT_EQ(dims[i], self->dims[i])
			TH_LOG("axis %u: command line %u, sysfs %u", i,
			       dims[i], self->dims[i]);
	}
}

static bool is_port_state(const char *s)
{
	return !strcmp(s, "unused") || !strcmp(s, "down") || !strcmp(s, "up") ||
	       !strcmp(s, "miswired");
}

TEST_F(chassis, ports_expected)
{
	char buf[64], want[32];
	unsigned long changes;
	unsigned int port;

	if (self->absent)
		return;
	for (port = 0; port < GEMINI_NUM_TORUS_PORTS; port++) {
		snprintf(want, sizeof(want), "0x%x",
			 kgni_neighbour_pe(self->coord, self->dims, port));
		ASSERT_EQ(0, kgni_read_port(port, "expected", buf, sizeof(buf)));
		EXPECT_STREQ(want, buf)
			TH_LOG("port %s", kgni_port_prefix[port]);

		ASSERT_EQ(0, kgni_read_port(port, "state", buf, sizeof(buf)));
		EXPECT_TRUE(is_port_state(buf))
			TH_LOG("port %s state \"%s\"", kgni_port_prefix[port],
			       buf);

		ASSERT_EQ(0, kgni_read_port(port, "peer", buf, sizeof(buf)));
		EXPECT_TRUE(!strcmp(buf, "none") ||
			    kgni_parse_hex(buf, &changes))
			TH_LOG("port %s peer \"%s\"", kgni_port_prefix[port],
			       buf);

		ASSERT_EQ(0, kgni_read_port(port, "changes", buf, sizeof(buf)));
		EXPECT_TRUE(kgni_parse_uint(buf, &changes))
			TH_LOG("port %s changes \"%s\"", kgni_port_prefix[port],
			       buf);
	}
}

static bool all_ports_up(char state[][32])
{
	unsigned int port;
	bool up = true;

	for (port = 0; port < GEMINI_NUM_TORUS_PORTS; port++) {
		if (kgni_read_port(port, "state", state[port], 32))
			snprintf(state[port], 32, "unreadable");
		if (strcmp(state[port], "up"))
			up = false;
	}
	return up;
}

TEST_F_TIMEOUT(chassis, ports_up, PORTS_UP_TIMEOUT_S + 30)
{
	char state[GEMINI_NUM_TORUS_PORTS][32];
	char buf[64], want[32];
	unsigned long changes;
	unsigned int port;
	double deadline;
	bool up;

	if (self->absent)
		return;
	deadline = kgni_now() + PORTS_UP_TIMEOUT_S;
	while (!(up = all_ports_up(state)) && kgni_now() < deadline)
		usleep(200 * 1000);
	ASSERT_TRUE(up) {
		for (port = 0; port < GEMINI_NUM_TORUS_PORTS; port++)
			TH_LOG("port %s %s after %d s", kgni_port_prefix[port],
			       state[port], PORTS_UP_TIMEOUT_S);
	}

	for (port = 0; port < GEMINI_NUM_TORUS_PORTS; port++) {
		snprintf(want, sizeof(want), "0x%x",
			 kgni_neighbour_pe(self->coord, self->dims, port));
		ASSERT_EQ(0, kgni_read_port(port, "peer", buf, sizeof(buf)));
		EXPECT_STREQ(want, buf)
			TH_LOG("port %s: peer learnt by handshake",
			       kgni_port_prefix[port]);
		ASSERT_EQ(0, kgni_read_port(port, "changes", buf, sizeof(buf)));
		ASSERT_TRUE(kgni_parse_uint(buf, &changes));
		EXPECT_LE(1ul, changes)
			TH_LOG("port %s is up after %lu state changes",
			       kgni_port_prefix[port], changes);
	}
}

TEST_HARNESS_MAIN
