// SPDX-License-Identifier: GPL-2.0-only
/*
 * kgni: the router's and the NIC's counters.
 *
 * The control block has seven blocks of 64-bit counters: one per torus
 * port (counted on input, as Gemini's tile counters are) and one for the
 * NIC.  A counter is named "<block>:<counter>", e.g. "X+:VC0_PHITS" or
 * "NIC:REQ_PKTS_OUT" (uapi/kgni_ioctl.h).  They are shown three ways:
 *
 *   KGNI_IOC_COUNTER_READ       one counter, by id or by name
 *   KGNI_IOC_COUNTER_SNAPSHOT   all of them into a user array
 *   /sys/kernel/debug/kgniN/counters and /sys/class/gni/kgniN/counters
 *                               one line per block: "X+ VC0_PHITS=12 ..."
 */
#include <linux/debugfs.h>
#include <linux/io-64-nonatomic-lo-hi.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "kgni.h"

static_assert(KGNI_COUNTER_BLOCKS == VGEMINI_COUNTER_BLOCKS);
static_assert(KGNI_PORT_NIC == VGEMINI_COUNTER_BLK_NIC);
static_assert(VGEMINI_PC_NUM <= VGEMINI_COUNTERS_PER_BLK);
static_assert(VGEMINI_NC_NUM <= VGEMINI_COUNTERS_PER_BLK);

static const char * const kgni_port_counter_names[VGEMINI_PC_NUM] = {
	VGEMINI_PORT_COUNTER_LIST(VGEMINI_PC_ID_INIT)
};

static const char * const kgni_nic_counter_names[VGEMINI_NC_NUM] = {
	VGEMINI_NIC_COUNTER_LIST(VGEMINI_NC_ID_INIT)
};

/*
 * Longest line of the text forms: a block name, then for each of at most
 * VGEMINI_COUNTERS_PER_BLK counters " NAME=value" with a name under
 * KGNI_COUNTER_NAME_LEN and a value of at most 20 digits.  Seven lines of
 * it stay well under PAGE_SIZE (the sysfs limit) at today's 13 and 11
 * counters of at most 13 characters: about 390 bytes a line.
 */
#define KGNI_COUNTER_LINE	512

static const char *kgni_block_name(unsigned int blk)
{
	return blk == KGNI_PORT_NIC ? "NIC" : kgni_port_name(blk);
}

/* Name of counter @idx of block @blk, or NULL if it has none. */
static const char *kgni_counter_name(unsigned int blk, unsigned int idx)
{
	if (blk < GEMINI_NUM_TORUS_PORTS) {
		if (idx < ARRAY_SIZE(kgni_port_counter_names))
			return kgni_port_counter_names[idx];
	} else if (blk == KGNI_PORT_NIC) {
		if (idx < ARRAY_SIZE(kgni_nic_counter_names))
			return kgni_nic_counter_names[idx];
	}
	return NULL;
}

static u64 kgni_counter_rd(struct kgni_dev *kdev, unsigned int blk,
			   unsigned int idx)
{
	return readq(kdev->ctl + VGEMINI_CTL_COUNTER(blk, idx));
}

/* "<block>:<counter>" into @blk and @idx; -ENOENT if no counter has it. */
static int kgni_counter_lookup(const char *name, unsigned int *blk,
			       unsigned int *idx)
{
	const char *colon = strchr(name, ':');
	const char *cname;
	unsigned int b, i;
	size_t blen;

	if (!colon)
		return -ENOENT;
	blen = colon - name;
	for (b = 0; b < KGNI_COUNTER_BLOCKS; b++) {
		if (strlen(kgni_block_name(b)) == blen &&
		    !strncmp(kgni_block_name(b), name, blen))
			break;
	}
	if (b == KGNI_COUNTER_BLOCKS)
		return -ENOENT;
	for (i = 0; i < VGEMINI_COUNTERS_PER_BLK; i++) {
		cname = kgni_counter_name(b, i);
		if (cname && !strcmp(cname, colon + 1)) {
			*blk = b;
			*idx = i;
			return 0;
		}
	}
	return -ENOENT;
}

/**
 * kgni_ioctl_counter_read() - KGNI_IOC_COUNTER_READ
 * @ucmd: the call; @ucmd->cmd is a struct kgni_counter_read
 *
 * Return: 0, -EINVAL, -ENOENT or -EFAULT.
 */
int kgni_ioctl_counter_read(struct kgni_ucmd *ucmd)
{
	struct kgni_counter_read *cmd = ucmd->cmd;
	unsigned int blk, idx;
	const char *name;
	int ret;

	if (cmd->flags & ~KGNI_COUNTER_BY_NAME)
		return -EINVAL;

	if (cmd->flags & KGNI_COUNTER_BY_NAME) {
		if (!memchr(cmd->name, '\0', sizeof(cmd->name)))
			return -EINVAL;
		ret = kgni_counter_lookup(cmd->name, &blk, &idx);
		if (ret)
			return ret;
	} else {
		blk = cmd->block;
		idx = cmd->index;
	}
	name = kgni_counter_name(blk, idx);
	if (!name)
		return -ENOENT;

	cmd->block = blk;
	cmd->index = idx;
	memset(cmd->name, 0, sizeof(cmd->name));
	snprintf(cmd->name, sizeof(cmd->name), "%s:%s", kgni_block_name(blk),
		 name);
	cmd->value = kgni_counter_rd(ucmd->kdev, blk, idx);
	return kgni_ucmd_respond(ucmd, sizeof(*cmd));
}

/**
 * kgni_ioctl_counter_snapshot() - KGNI_IOC_COUNTER_SNAPSHOT
 * @ucmd: the call; @ucmd->cmd is a struct kgni_counter_snapshot
 *
 * Return: 0, -EINVAL, -EFAULT, or -EMSGSIZE when the user's array is too
 * small (the structure is written back then too).
 */
int kgni_ioctl_counter_snapshot(struct kgni_ucmd *ucmd)
{
	struct kgni_counter_snapshot *cmd = ucmd->cmd;
	const unsigned int per_block = VGEMINI_COUNTERS_PER_BLK;
	const unsigned int total = KGNI_COUNTER_BLOCKS * per_block;
	u64 __user *uvalues = u64_to_user_ptr(cmd->values);
	u64 vals[VGEMINI_COUNTERS_PER_BLK];
	unsigned int blk, idx, room, n;
	int ret;

	if (cmd->flags || cmd->reserved)
		return -EINVAL;

	room = min(cmd->count, total);
	for (blk = 0; blk * per_block < room; blk++) {
		for (idx = 0; idx < per_block; idx++)
			vals[idx] = kgni_counter_name(blk, idx) ?
				    kgni_counter_rd(ucmd->kdev, blk, idx) : 0;
		n = min(per_block, room - blk * per_block);
		if (copy_to_user(uvalues + blk * per_block, vals,
				 n * sizeof(vals[0])))
			return -EFAULT;
	}

	ret = cmd->count < total ? -EMSGSIZE : 0;
	cmd->num_blocks = KGNI_COUNTER_BLOCKS;
	cmd->per_block = per_block;
	cmd->count = total;
	if (kgni_ucmd_respond(ucmd, sizeof(*cmd)))
		return -EFAULT;
	return ret;
}

/* One line, "X+ VC0_PHITS=1 VC1_PHITS=2 ...\n", into @buf; its length. */
static size_t kgni_counters_line(struct kgni_dev *kdev, unsigned int blk,
				 char *buf, size_t size)
{
	const char *name;
	unsigned int idx;
	size_t len;

	len = scnprintf(buf, size, "%s", kgni_block_name(blk));
	for (idx = 0; idx < VGEMINI_COUNTERS_PER_BLK; idx++) {
		name = kgni_counter_name(blk, idx);
		if (name)
			len += scnprintf(buf + len, size - len, " %s=%llu",
					 name, kgni_counter_rd(kdev, blk, idx));
	}
	len += scnprintf(buf + len, size - len, "\n");
	return len;
}

/**
 * kgni_counters_emit() - the text of the sysfs attribute "counters"
 * @kdev: the device
 * @buf: the PAGE_SIZE buffer of a sysfs show()
 *
 * Return: bytes written to @buf.
 */
ssize_t kgni_counters_emit(struct kgni_dev *kdev, char *buf)
{
	unsigned int blk;
	size_t len = 0;

	for (blk = 0; blk < KGNI_COUNTER_BLOCKS; blk++)
		len += kgni_counters_line(kdev, blk, buf + len,
					  PAGE_SIZE - len);
	return len;
}

static int kgni_counters_show(struct seq_file *m, void *unused)
{
	struct kgni_dev *kdev = m->private;
	char line[KGNI_COUNTER_LINE];
	unsigned int blk;

	for (blk = 0; blk < KGNI_COUNTER_BLOCKS; blk++) {
		kgni_counters_line(kdev, blk, line, sizeof(line));
		seq_puts(m, line);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(kgni_counters);

/*
 * /sys/kernel/debug/kgniN/counters.  Like every debugfs file it is
 * optional: failures are not reported.  debugfs_remove_recursive() waits
 * for reads in progress, so remove calls it before unmapping BAR0.
 */
void kgni_counters_debugfs_add(struct kgni_dev *kdev)
{
	kdev->debugfs = debugfs_create_dir(dev_name(&kdev->dev), NULL);
	debugfs_create_file("counters", 0444, kdev->debugfs, kdev,
			    &kgni_counters_fops);
}

void kgni_counters_debugfs_del(struct kgni_dev *kdev)
{
	debugfs_remove_recursive(kdev->debugfs);
	kdev->debugfs = NULL;
}
