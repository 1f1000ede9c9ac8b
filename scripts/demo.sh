#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The demo behind `make demo`: boot a 2x2x2 torus, show its links, read
# every node's sysfs through kgni, tear down.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
VGEMINI=$REPO/scripts/vgemini
export VGEMINI_FABRIC=${VGEMINI_FABRIC:-demo}

trap '"$VGEMINI" down >/dev/null 2>&1 || true' EXIT

step() { printf '\n=== %s\n' "$*"; }

step "vgemini up --dims 2x2x2   (8 QEMU processes, 24 shared-memory links)"
"$VGEMINI" up --dims 2x2x2

step "vgemini status   (ports as each guest's kgni sees them)"
"$VGEMINI" status

step "vgemini exec all -- (read /sys/class/gni/kgni0 on every node)"
"$VGEMINI" exec all -- sh -c '
	d=/sys/class/gni/kgni0
	printf "nic %s gemini_id %s coord (%s) dims %s |" \
		"$(cat $d/nic_address)" "$(cat $d/gemini_id)" \
		"$(cat $d/coord)" "$(cat $d/dims | tr " " x)"
	for p in xp xm yp ym zp zm; do
		printf " %s:%s>%s" $p "$(cat $d/ports/${p}_state)" "$(cat $d/ports/${p}_peer)"
	done
	echo'

step "vgemini down"
"$VGEMINI" down
trap - EXIT
echo "demo finished: every process and link file is gone"
