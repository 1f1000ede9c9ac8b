// SPDX-License-Identifier: GPL-2.0-only
/*
 * kgni: the fabric as this node sees it: which nodes it can reach.
 *
 * The device raises the link-change vector for fabric changes too (a
 * routing table loaded, a quiesce, a resume), and counts them in
 * VGEMINI_CTL_FABRIC_CHANGES.  After each, kgni reads which nodes the
 * loaded table reaches (VGEMINI_CTL_REACH) and logs those that became
 * unreachable or reachable again.  The supervisor leaves a node out of
 * every table once all its links are down or its QEMU is gone, and puts
 * it back when it returns: these are the node-down and node-up events that
 * kernel clients get through RCA (kgni_rca.c).  The first table is the
 * baseline, not logged.
 *
 * It also reads VGEMINI_CTL_FABRIC_STATE: gni_get_quiesce_status() is 1
 * from the change that finds the fabric quiesced to the one that finds it
 * running again, which calls the kernel NICs' quiesce callbacks with the
 * quiesce's length (kgni_kapi_quiesce_end()).  A quiesce that begins and
 * ends before the work reads the state is not seen.
 *
 * A new table and a quiesce's end are INFORMATIONAL error events for the
 * kernel API's subscribers (kgni_err.c).
 */
#include "kgni.h"
#include "kgni_kapi.h"

/* Nodes of the torus: X * Y * Z (at most GEMINI_MAX_NODES). */
unsigned int kgni_num_nodes(struct kgni_dev *kdev)
{
	u32 dims = kgni_rd(kdev, VGEMINI_CTL_DIMS);

	return min_t(unsigned int, GEMINI_MAX_NODES,
		     VGEMINI_COORD_X(dims) * VGEMINI_COORD_Y(dims) *
		     VGEMINI_COORD_Z(dims));
}

/**
 * kgni_fabric_read_reach() - the nodes the loaded routing table reaches
 * @kdev: the device
 * @map: a bitmap of GEMINI_MAX_NODES bits; bit n is set if node n is
 *       reachable from this NIC (this node included once a table is loaded)
 *
 * Return: the number of nodes of the torus.
 */
unsigned int kgni_fabric_read_reach(struct kgni_dev *kdev, unsigned long *map)
{
	unsigned int n = kgni_num_nodes(kdev);
	unsigned int w, bit;

	bitmap_zero(map, GEMINI_MAX_NODES);
	for (w = 0; w < DIV_ROUND_UP(n, 32); w++) {
		u32 v = kgni_rd(kdev, VGEMINI_CTL_REACH + 4 * w);

		for (bit = 0; bit < 32 && w * 32 + bit < n; bit++)
			if (v & BIT(bit))
				__set_bit(w * 32 + bit, map);
	}
	return n;
}

/* Log the nodes in @a but not in @b as @what; @tmp is scratch. */
static void kgni_fabric_log(struct kgni_dev *kdev, const unsigned long *a,
			    const unsigned long *b, unsigned long *tmp,
			    unsigned int n, const char *what)
{
	if (bitmap_andnot(tmp, a, b, n))
		dev_info(&kdev->pdev->dev, "nodes %*pbl %s\n", n, tmp, what);
}

/* A quiesce ended: the kernel NICs' callbacks, the subscribers' event */
static void kgni_fabric_resumed(struct kgni_dev *kdev, s64 msecs)
{
	kgni_kapi_quiesce_end(kdev, msecs);
	kgni_err_post(kdev, GNI_ERRMASK_INFORMATIONAL, KGNI_ERR_QUIESCE_END,
		      0, msecs, 0, 0);
}

/**
 * kgni_fabric_quiesced() - was the fabric quiesced when the link work
 *                          last looked?
 * @kdev: the device
 *
 * Context: any.
 */
bool kgni_fabric_quiesced(struct kgni_dev *kdev)
{
	return READ_ONCE(kdev->link.quiesced);
}

/* A quiesce begun or ended since the work last looked? */
static void kgni_fabric_quiesce(struct kgni_dev *kdev)
{
	bool quiesced = kgni_rd(kdev, VGEMINI_CTL_FABRIC_STATE) ==
			VGEMINI_FABRIC_QUIESCED;
	ktime_t now = ktime_get();

	if (quiesced == kdev->link.quiesced)
		return;
	WRITE_ONCE(kdev->link.quiesced, quiesced);
	if (quiesced)
		kdev->link.quiesce_start = now;
	else
		kgni_fabric_resumed(kdev,
				    ktime_ms_delta(now,
						   kdev->link.quiesce_start));
}

/**
 * kgni_fabric_changed() - after a link-change interrupt: a new table, a
 *                         quiesce?
 * @kdev: the device
 *
 * Context: link_work (process context, one at a time).
 */
void kgni_fabric_changed(struct kgni_dev *kdev)
{
	u32 changes = kgni_rd(kdev, VGEMINI_CTL_FABRIC_CHANGES);
	unsigned long *now, *tmp;
	unsigned int n;
	u32 gen;

	if (changes == kdev->link.fabric_changes)
		return;
	kgni_fabric_quiesce(kdev);
	now = bitmap_zalloc(GEMINI_MAX_NODES, GFP_KERNEL);
	tmp = bitmap_zalloc(GEMINI_MAX_NODES, GFP_KERNEL);
	if (!now || !tmp)
		goto out;	/* the next change tries again */
	kdev->link.fabric_changes = changes;
	n = kgni_fabric_read_reach(kdev, now);
	gen = kgni_rd(kdev, VGEMINI_CTL_ROUTE_GEN);
	if (!gen)
		goto out;	/* no table: nothing to compare yet */
	if (gen != kdev->link.route_gen)
		kgni_err_post(kdev, GNI_ERRMASK_INFORMATIONAL,
			      KGNI_ERR_ROUTE_LOAD, 0, gen,
			      bitmap_weight(now, n), 0);
	kdev->link.route_gen = gen;
	kgni_rca_fabric(kdev, now, n);
	if (kdev->link.reach_known) {
		kgni_fabric_log(kdev, kdev->link.reach, now, tmp, n,
				"unreachable");
		kgni_fabric_log(kdev, now, kdev->link.reach, tmp, n,
				"reachable again");
	}
	bitmap_copy(kdev->link.reach, now, GEMINI_MAX_NODES);
	kdev->link.reach_known = true;
out:
	bitmap_free(tmp);
	bitmap_free(now);
}

/* At probe, before interrupts: the baseline, not logged. */
void kgni_fabric_init(struct kgni_dev *kdev)
{
	kdev->link.fabric_changes = ~kgni_rd(kdev, VGEMINI_CTL_FABRIC_CHANGES);
	kdev->link.reach_known = false;
	kgni_fabric_changed(kdev);
}
