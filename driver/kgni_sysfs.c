// SPDX-License-Identifier: GPL-2.0-only
/*
 * kgni: sysfs attributes.
 *
 *   /sys/class/gni/version            driver version, build, revision
 *   /sys/class/gni/kgniN/nic_address  18-bit PE, "0x%x"
 *   /sys/class/gni/kgniN/gemini_id    decimal
 *   /sys/class/gni/kgniN/coord        "x y z"
 *   /sys/class/gni/kgniN/dims         "X Y Z"
 *   /sys/class/gni/kgniN/route_gen    routing table generation, decimal
 *   /sys/class/gni/kgniN/fabric_state "no-table", "running" or "quiesced"
 *   /sys/class/gni/kgniN/reachable    nodes the routing table reaches,
 *                                     a list such as "0-5,7" ("" if none)
 *   /sys/class/gni/kgniN/counters     one line per counter block
 *   /sys/class/gni/kgniN/ports/<p>_{state,peer,expected,changes}
 *
 * Every value is read from the control block when the file is read.  The
 * class device is deleted before BAR0 is unmapped, and device_del() waits
 * for readers, so a read never finds the mapping gone.
 */
#include <generated/utsrelease.h>

#include "kgni.h"

#ifndef KGNI_BUILD_REV
#define KGNI_BUILD_REV "unknown"
#endif

static ssize_t version_show(KGNI_CONST_CLASS struct class *class,
			    struct class_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "0x%08x\nvgemini kgni for Linux %s\n%s\n",
			  kgni_driver_version, UTS_RELEASE, KGNI_BUILD_REV);
}
static CLASS_ATTR_RO(version);

static struct attribute *kgni_class_attrs[] = {
	&class_attr_version.attr,
	NULL
};

static const struct attribute_group kgni_class_group = {
	.attrs = kgni_class_attrs,
};

const struct attribute_group *kgni_class_groups[] = {
	&kgni_class_group,
	NULL
};

static ssize_t nic_address_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	struct kgni_dev *kdev = to_kgni_dev(dev);

	return sysfs_emit(buf, "0x%x\n", kgni_rd(kdev, VGEMINI_CTL_NODE_PE));
}
static DEVICE_ATTR_RO(nic_address);

static ssize_t gemini_id_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	struct kgni_dev *kdev = to_kgni_dev(dev);
	u32 pe = kgni_rd(kdev, VGEMINI_CTL_NODE_PE);

	return sysfs_emit(buf, "%u\n", GEMINI_PE_GEMINI_ID(pe));
}
static DEVICE_ATTR_RO(gemini_id);

static ssize_t kgni_emit_xyz(char *buf, u32 v)
{
	return sysfs_emit(buf, "%u %u %u\n", VGEMINI_COORD_X(v),
			  VGEMINI_COORD_Y(v), VGEMINI_COORD_Z(v));
}

static ssize_t coord_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	return kgni_emit_xyz(buf, kgni_rd(to_kgni_dev(dev), VGEMINI_CTL_COORD));
}
static DEVICE_ATTR_RO(coord);

static ssize_t dims_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	return kgni_emit_xyz(buf, kgni_rd(to_kgni_dev(dev), VGEMINI_CTL_DIMS));
}
static DEVICE_ATTR_RO(dims);

static ssize_t route_gen_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n",
			  kgni_rd(to_kgni_dev(dev), VGEMINI_CTL_ROUTE_GEN));
}
static DEVICE_ATTR_RO(route_gen);

static const char * const kgni_fabric_state_names[] = {
	[VGEMINI_FABRIC_NO_TABLE] = "no-table",
	[VGEMINI_FABRIC_RUNNING] = "running",
	[VGEMINI_FABRIC_QUIESCED] = "quiesced",
};

static ssize_t fabric_state_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	u32 state = kgni_rd(to_kgni_dev(dev), VGEMINI_CTL_FABRIC_STATE);

	if (state < ARRAY_SIZE(kgni_fabric_state_names))
		return sysfs_emit(buf, "%s\n", kgni_fabric_state_names[state]);
	return sysfs_emit(buf, "unknown\n");
}
static DEVICE_ATTR_RO(fabric_state);

/* The nodes the loaded table reaches, as a list: "0-5,7" (page-sized). */
static ssize_t reachable_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	unsigned long *map = bitmap_zalloc(GEMINI_MAX_NODES, GFP_KERNEL);
	unsigned int n;
	ssize_t ret;

	if (!map)
		return -ENOMEM;
	n = kgni_fabric_read_reach(to_kgni_dev(dev), map);
	ret = sysfs_emit(buf, "%*pbl\n", n, map);
	bitmap_free(map);
	return ret;
}
static DEVICE_ATTR_RO(reachable);

static ssize_t counters_show(struct device *dev,
			     struct device_attribute *attr, char *buf)
{
	return kgni_counters_emit(to_kgni_dev(dev), buf);
}
static DEVICE_ATTR_RO(counters);

static struct attribute *kgni_dev_attrs[] = {
	&dev_attr_nic_address.attr,
	&dev_attr_gemini_id.attr,
	&dev_attr_coord.attr,
	&dev_attr_dims.attr,
	&dev_attr_route_gen.attr,
	&dev_attr_fabric_state.attr,
	&dev_attr_reachable.attr,
	&dev_attr_counters.attr,
	NULL
};

static const struct attribute_group kgni_dev_group = {
	.attrs = kgni_dev_attrs,
};

/*
 * ports/: for each port, one file per register of its VGEMINI_CTL_PORT()
 * block, named "<port>_<register>" (xp_state, xp_peer, ...).
 */
static const char * const kgni_port_prefix[GEMINI_NUM_TORUS_PORTS] = {
	VGEMINI_PORT_LIST(VGEMINI_PORT_SHORT_INIT)
};

static const struct {
	const char *suffix;
	unsigned int reg;
} kgni_port_regs[] = {
	{ "state", VGEMINI_PORT_STATE },
	{ "peer", VGEMINI_PORT_PEER },
	{ "expected", VGEMINI_PORT_EXPECTED },
	{ "changes", VGEMINI_PORT_CHANGES },
};

#define KGNI_PORT_FILES	(GEMINI_NUM_TORUS_PORTS * ARRAY_SIZE(kgni_port_regs))

struct kgni_port_attr {
	struct device_attribute attr;
	unsigned int port;
	unsigned int reg;
	char name[16];
};

static struct kgni_port_attr kgni_port_files[KGNI_PORT_FILES];
static struct attribute *kgni_port_attrs[KGNI_PORT_FILES + 1];

static ssize_t kgni_port_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	struct kgni_port_attr *pa = container_of(attr, struct kgni_port_attr,
						 attr);
	u32 val = kgni_port_rd(to_kgni_dev(dev), pa->port, pa->reg);

	switch (pa->reg) {
	case VGEMINI_PORT_STATE:
		return sysfs_emit(buf, "%s\n", kgni_port_state_name(val));
	case VGEMINI_PORT_PEER:
	case VGEMINI_PORT_EXPECTED:
		if (val == VGEMINI_PEER_NONE)
			return sysfs_emit(buf, "none\n");
		return sysfs_emit(buf, "0x%x\n", val);
	default:
		return sysfs_emit(buf, "%u\n", val);
	}
}

static const struct attribute_group kgni_port_group = {
	.name = "ports",
	.attrs = kgni_port_attrs,
};

/* Name the port files; before the first class device is added. */
void kgni_sysfs_init(void)
{
	struct kgni_port_attr *pa = kgni_port_files;
	unsigned int port, r;

	for (port = 0; port < GEMINI_NUM_TORUS_PORTS; port++) {
		for (r = 0; r < ARRAY_SIZE(kgni_port_regs); r++, pa++) {
			snprintf(pa->name, sizeof(pa->name), "%s_%s",
				 kgni_port_prefix[port],
				 kgni_port_regs[r].suffix);
			sysfs_attr_init(&pa->attr.attr);
			pa->attr.attr.name = pa->name;
			pa->attr.attr.mode = 0444;
			pa->attr.show = kgni_port_show;
			pa->port = port;
			pa->reg = kgni_port_regs[r].reg;
			kgni_port_attrs[pa - kgni_port_files] = &pa->attr.attr;
		}
	}
}

const struct attribute_group *kgni_dev_groups[] = {
	&kgni_dev_group,
	&kgni_port_group,
	NULL
};
