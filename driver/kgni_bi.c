// SPDX-License-Identifier: GPL-2.0-only
/*
 * kgni: balanced injection (KGNI_IOC_BI_CONFIG; uGNI's GNI_GetBIConfig,
 * GNI_SetBIConfig and GNI_BISyncWait).
 *
 * On a Gemini, balanced injection throttles what a node injects into the
 * torus by capping its outstanding requests (ORB entries, 992 at most);
 * a percentage is a share of that.  Applications lower it themselves at
 * start (NAMD, ChaNGa and OpenAtom through Charm++ do), so any process
 * may read and set it.  kgni writes the cap to the device
 * (VGEMINI_CTL_ORB_LIMIT): FMA requests past it wait in the ORB for
 * answers.  There is no HSS here to apply a setting later: every setting
 * is applied at once, so the two sequence numbers always agree.  When
 * the NIC's last job is released the system default comes back.
 */
#include <linux/uaccess.h>

#include "kgni_dp.h"

/* The system default: no throttle */
#define KGNI_BI_SYS_BW		KGNI_BI_BW_MAX
#define KGNI_BI_SYS_AOT_BW	KGNI_BI_BW_MAX

/* ORB entries for @bw percent; at least one, so that requests still go. */
static u16 kgni_bi_norbs(u16 bw)
{
	u32 n = (u32)bw * KGNI_BI_ORB_MAX / KGNI_BI_BW_MAX;

	return n ? n : 1;
}

/* Write the cap of @bi to the device (dp.lock held); the full ORB: none. */
static void kgni_bi_apply(struct kgni_dev *kdev)
{
	struct kgni_bi *bi = &kdev->bi;

	bi->cle_seq++;
	if (!READ_ONCE(kdev->gone))
		kgni_wr(kdev, VGEMINI_CTL_ORB_LIMIT,
			bi->norbs >= KGNI_BI_ORB_MAX ? 0 : bi->norbs);
	bi->hss_seq = bi->cle_seq;
}

/**
 * kgni_bi_init() - the system default, as the device's reset left it
 * @kdev: the device, being made
 */
void kgni_bi_init(struct kgni_dev *kdev)
{
	kdev->bi.bw = KGNI_BI_SYS_BW;
	kdev->bi.aot_bw = KGNI_BI_SYS_AOT_BW;
	kdev->bi.norbs = KGNI_BI_ORB_MAX;
}

/**
 * kgni_bi_reset() - the system default again
 * @kdev: the device
 *
 * Context: dp.lock held (the NIC's last job was released), or probe.
 */
void kgni_bi_reset(struct kgni_dev *kdev)
{
	struct kgni_bi *bi = &kdev->bi;

	if (bi->bw == KGNI_BI_SYS_BW && bi->aot_bw == KGNI_BI_SYS_AOT_BW &&
	    bi->norbs == KGNI_BI_ORB_MAX)
		return;
	bi->bw = KGNI_BI_SYS_BW;
	bi->aot_bw = KGNI_BI_SYS_AOT_BW;
	bi->norbs = KGNI_BI_ORB_MAX;
	bi->modes = KGNI_BI_USE_DEFAULT_SETTINGS;
	kgni_bi_apply(kdev);
}

/* Take a setting of @cmd (checked); dp.lock held. */
static void kgni_bi_set(struct kgni_dev *kdev,
			const struct kgni_bi_config *cmd)
{
	struct kgni_bi *bi = &kdev->bi;

	if (cmd->modes & KGNI_BI_USE_DEFAULT_SETTINGS) {
		bi->bw = KGNI_BI_SYS_BW;
		bi->aot_bw = KGNI_BI_SYS_AOT_BW;
		bi->norbs = KGNI_BI_ORB_MAX;
	} else if (cmd->modes & KGNI_BI_VALUE_IS_NUM_ORB_ENTRIES) {
		bi->norbs = cmd->bw ? cmd->bw : 1;
		bi->bw = DIV_ROUND_UP((u32)bi->norbs * KGNI_BI_BW_MAX,
				      KGNI_BI_ORB_MAX);
		bi->aot_bw = cmd->aot_bw;
	} else {
		bi->bw = cmd->bw;
		bi->norbs = kgni_bi_norbs(cmd->bw);
		bi->aot_bw = cmd->aot_bw;
	}
	bi->modes = cmd->modes;
	kgni_bi_apply(kdev);
}

/**
 * kgni_ioctl_bi_config() - KGNI_IOC_BI_CONFIG
 * @ucmd: the call; @ucmd->cmd is a struct kgni_bi_config
 *
 * Return: 0 with the NIC's setting written back (after the change, with
 * KGNI_BI_SET), -EINVAL for bad flags, modes or values, -ENODEV once
 * the device is gone, -EFAULT.
 */
int kgni_ioctl_bi_config(struct kgni_ucmd *ucmd)
{
	const u32 modes = KGNI_BI_APPLY_NOW | KGNI_BI_APPLY_AFTER_THROTTLE |
			  KGNI_BI_USE_DEFAULT_SETTINGS |
			  KGNI_BI_VALUE_IS_NUM_ORB_ENTRIES;
	struct kgni_bi_config *cmd = ucmd->cmd;
	struct kgni_dev *kdev = ucmd->kdev;
	struct kgni_bi *bi = &kdev->bi;
	u32 max;

	if (cmd->flags & ~KGNI_BI_SET || cmd->reserved || cmd->reserved2)
		return -EINVAL;
	if (cmd->flags & KGNI_BI_SET) {
		max = cmd->modes & KGNI_BI_VALUE_IS_NUM_ORB_ENTRIES ?
		      KGNI_BI_ORB_MAX : KGNI_BI_BW_MAX;
		if (cmd->modes & ~modes || cmd->bw > max ||
		    cmd->aot_bw > KGNI_BI_BW_MAX)
			return -EINVAL;
	} else if (cmd->modes || cmd->bw || cmd->aot_bw) {
		return -EINVAL;
	}
	mutex_lock(&kdev->dp.lock);
	if (cmd->flags & KGNI_BI_SET)
		kgni_bi_set(kdev, cmd);
	cmd->current_bw = bi->bw;
	cmd->current_aot_bw = bi->aot_bw;
	cmd->current_norbs = bi->norbs;
	cmd->current_modes = bi->modes;
	cmd->sys_def_bw = KGNI_BI_SYS_BW;
	cmd->sys_def_aot_bw = KGNI_BI_SYS_AOT_BW;
	cmd->cle_seqnum = bi->cle_seq;
	cmd->hss_seqnum = bi->hss_seq;
	mutex_unlock(&kdev->dp.lock);
	return kgni_ucmd_respond(ucmd, sizeof(*cmd));
}
