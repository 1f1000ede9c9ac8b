#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The demo behind `make demo`: boot a 2x2x2 torus, show its links, read
# every node's sysfs through kgni, ping across the fabric, watch the
# counters, run a PMI job and uGNI jobs on every node, break a link and
# let the supervisor route around it, tear down.
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

step "vgemini ping 0 7   (a diagnostic ping through two routers and back)"
"$VGEMINI" ping 0 7

step "vgemini ping --all   (hops there/back between every pair)"
"$VGEMINI" ping --all

step "vgemini counters 0 --diff 2   (what node 0's links saw while node 0 pings node 3)"
"$VGEMINI" ping 0 3 --count 200 >/dev/null &
"$VGEMINI" counters 0 --diff 2
wait

step "vgemini exec 0 -- (the routing state as the guest's kgni reads it: fabric_state, route_gen)"
"$VGEMINI" exec 0 -- sh -c 'cat /sys/class/gni/kgni0/fabric_state /sys/class/gni/kgni0/route_gen'

step "vgemini run -n 8 pmi_test --expect-size 8   (a job: one rank per node; the launcher serves PMI)"
"$VGEMINI" run -n 8 pmi_test --expect-size 8 | grep -E 'pmi_test: rank|not ok'

step "vgemini run -n 8 ugni_amo   (a uGNI program: 8 ranks hammer one word on rank 0 with remote atomics, OS-bypass)"
"$VGEMINI" run -n 8 ugni_amo --count 50 | grep -E 'ugni_amo: rank|not ok'

step "vgemini run -n 2 ugni_bench   (8-byte PUT latency and issue rate between neighbours)"
"$VGEMINI" run -n 2 ugni_bench | grep -E 'bench:|not ok'

step "vgemini fault 0 X+ down=1   (cut a cable; the supervisor reroutes in ~5 s)"
"$VGEMINI" fault 0 X+ down=1
for _ in $(seq 60); do
	"$VGEMINI" status | grep -q 'avoiding 1 failed link' && break
	sleep 1
done
"$VGEMINI" status | tail -n 2
"$VGEMINI" ping 0 1

step "vgemini down"
"$VGEMINI" down
trap - EXIT
echo "demo finished: every process and link file is gone"
