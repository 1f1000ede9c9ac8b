// SPDX-License-Identifier: GPL-2.0-only
/*
 * kgni: the diagnostic ping (KGNI_IOC_DIAG_PING).
 *
 * The control block has one diagnostic slot for the guest: DEST and LEN,
 * a command register, and a STATUS that reads PENDING until the response
 * is back or VGEMINI_DIAG_TIMEOUT_MS have passed; the result stays until
 * the next ping.  Pings of one device therefore take turns on diag.lock.
 * The device raises diag_vector when a ping ends; the caller sleeps on
 * diag_wq until STATUS is no longer PENDING, for at most a second more
 * than the device's own timeout.
 */
#include <linux/jiffies.h>

#include "kgni.h"

/* The device ends every ping within its timeout; a second more for TCG. */
#define KGNI_DIAG_WAIT_MS	(VGEMINI_DIAG_TIMEOUT_MS + 1000)

/* DIAG_HOPS fields */

static_assert(VGEMINI_DIAG_MAX_TRACE <= KGNI_DIAG_MAX_TRACE);

/* Trace records carry the device's port numbers unchanged. */
static_assert((int)KGNI_PORT_XP == (int)GEMINI_PORT_XP);
static_assert((int)KGNI_PORT_XM == (int)GEMINI_PORT_XM);
static_assert((int)KGNI_PORT_YP == (int)GEMINI_PORT_YP);
static_assert((int)KGNI_PORT_YM == (int)GEMINI_PORT_YM);
static_assert((int)KGNI_PORT_ZP == (int)GEMINI_PORT_ZP);
static_assert((int)KGNI_PORT_ZM == (int)GEMINI_PORT_ZM);
static_assert((int)KGNI_PORT_NIC == (int)GEMINI_NUM_TORUS_PORTS);

/* Route the completion interrupt; before /dev/kgniN appears. */
void kgni_diag_start(struct kgni_dev *kdev)
{
	kgni_wr(kdev, VGEMINI_CTL_DIAG_IRQ, kdev->irq.diag);
}

/* No more completion interrupts; the caller frees the vectors after this. */
void kgni_diag_stop(struct kgni_dev *kdev)
{
	kgni_wr(kdev, VGEMINI_CTL_DIAG_IRQ, VGEMINI_IRQ_NONE);
	/* Flush the posted write before the vectors go. */
	kgni_rd(kdev, VGEMINI_CTL_DIAG_IRQ);
}

static bool kgni_diag_settled(struct kgni_dev *kdev)
{
	return READ_ONCE(kdev->gone) ||
	       kgni_rd(kdev, VGEMINI_CTL_DIAG_STATUS) != VGEMINI_DIAG_PENDING;
}

/*
 * Wait until the device has no ping pending.  Return: 0; -ENODEV when the
 * device is being removed; -EINTR on a signal; -EIO, logged, when a ping is
 * still pending after KGNI_DIAG_WAIT_MS, longer than the device may take.
 */
static int kgni_diag_wait(struct kgni_dev *kdev)
{
	long left;

	left = wait_event_interruptible_timeout(kdev->diag.wq,
						kgni_diag_settled(kdev),
						msecs_to_jiffies(KGNI_DIAG_WAIT_MS));
	if (left < 0)
		return -EINTR;
	if (READ_ONCE(kdev->gone))
		return -ENODEV;
	if (!left) {
		dev_warn_ratelimited(&kdev->pdev->dev,
				     "diagnostic ping to Gemini %u still pending after %u ms\n",
				     kgni_rd(kdev, VGEMINI_CTL_DIAG_DEST),
				     KGNI_DIAG_WAIT_MS);
		return -EIO;
	}
	return 0;
}

/*
 * The ABI status and errno of a final device status; -EIO for a status
 * that is not final or not known.
 */
static int kgni_diag_result(u32 hw, u32 *status)
{
	switch (hw) {
	case VGEMINI_DIAG_DONE:
		*status = KGNI_DIAG_OK;
		return 0;
	case VGEMINI_DIAG_ERR_TIMEOUT:
		*status = KGNI_DIAG_TIMEOUT;
		return -ETIMEDOUT;
	case VGEMINI_DIAG_ERR_DEST:
		*status = KGNI_DIAG_NO_NODE;
		return -ENXIO;
	case VGEMINI_DIAG_ERR_LEN:
		*status = KGNI_DIAG_BAD_LEN;
		return -EINVAL;
	case VGEMINI_DIAG_ERR_BUSY:
		*status = KGNI_DIAG_BUSY;
		return -EBUSY;
	case VGEMINI_DIAG_ERR_NO_ROUTE:
		*status = KGNI_DIAG_NO_ROUTE;
		return -EHOSTUNREACH;
	default:
		return -EIO;
	}
}

/* Read the result of the ended ping into @cmd. */
static void kgni_diag_read_result(struct kgni_dev *kdev,
				  struct kgni_diag_ping *cmd)
{
	unsigned int i, n;
	u32 hops, rec;

	hops = kgni_rd(kdev, VGEMINI_CTL_DIAG_HOPS);
	cmd->req_hops = VGEMINI_DIAG_HOPS_REQ(hops);
	cmd->rsp_hops = VGEMINI_DIAG_HOPS_RSP(hops);
	cmd->rtt_ns = kgni_rd(kdev, VGEMINI_CTL_DIAG_RTT_NS);
	cmd->seq = kgni_rd(kdev, VGEMINI_CTL_DIAG_SEQ);
	cmd->reserved = 0;

	/* The device records what the payload had room for. */
	n = min_t(unsigned int, kgni_rd(kdev, VGEMINI_CTL_DIAG_NTRACE),
		  VGEMINI_DIAG_MAX_TRACE);
	cmd->num_trace = n;
	memset(cmd->trace, 0, sizeof(cmd->trace));
	for (i = 0; i < n; i++) {
		struct kgni_diag_hop *hop = &cmd->trace[i];

		rec = kgni_rd(kdev, VGEMINI_CTL_DIAG_TRACE + 4 * i);
		hop->node = VGEMINI_TRACE_NODE(rec);
		hop->out_port = VGEMINI_TRACE_OUT(rec);
		hop->in_port = VGEMINI_TRACE_IN(rec);
		hop->vclass = VGEMINI_TRACE_CLASS(rec);
		hop->response = VGEMINI_TRACE_RSP(rec);
	}
}

/**
 * kgni_ioctl_diag_ping() - KGNI_IOC_DIAG_PING
 * @ucmd: the call; @ucmd->cmd is a struct kgni_diag_ping
 *
 * Return: 0 when the response came back, the errno of the device's status
 * when the ping ended otherwise (the structure written back in both
 * cases), or an errno of the checks or of the wait, or -EIO.
 */
int kgni_ioctl_diag_ping(struct kgni_ucmd *ucmd)
{
	struct kgni_diag_ping *cmd = ucmd->cmd;
	struct kgni_dev *kdev = ucmd->kdev;
	int ret, result;
	u32 hw;

	if (cmd->flags || cmd->reserved)
		return -EINVAL;
	if (cmd->len > KGNI_DIAG_MAX_LEN)
		return -EINVAL;
	if (cmd->dest > GEMINI_ID_MASK)
		return -ENXIO;

	if (mutex_lock_interruptible(&kdev->diag.lock))
		return -EINTR;

	/* A ping whose caller was interrupted may still be pending. */
	ret = kgni_diag_wait(kdev);
	if (ret)
		goto out_unlock;

	kgni_wr(kdev, VGEMINI_CTL_DIAG_DEST, cmd->dest);
	kgni_wr(kdev, VGEMINI_CTL_DIAG_LEN, cmd->len);
	/* The first STATUS read after this write sees this ping. */
	kgni_wr(kdev, VGEMINI_CTL_DIAG_CMD, VGEMINI_DIAG_CMD_PING);

	ret = kgni_diag_wait(kdev);
	if (ret)
		goto out_unlock;

	hw = kgni_rd(kdev, VGEMINI_CTL_DIAG_STATUS);
	result = kgni_diag_result(hw, &cmd->status);
	if (result == -EIO) {
		dev_warn_ratelimited(&kdev->pdev->dev,
				     "diagnostic ping to Gemini %u ended with unknown DIAG_STATUS %u\n",
				     cmd->dest, hw);
		ret = -EIO;
		goto out_unlock;
	}
	kgni_diag_read_result(kdev, cmd);
	mutex_unlock(&kdev->diag.lock);

	ret = kgni_ucmd_respond(ucmd, sizeof(*cmd));
	return ret ? ret : result;

out_unlock:
	mutex_unlock(&kdev->diag.lock);
	return ret;
}
