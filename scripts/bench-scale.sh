#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# `make bench-scale`: P5 for the larger tori, which take longer than
# `make bench` should (about 10 minutes for both on 2 cores).  For each
# of SCALE_DIMS (default "3x3x3 4x4x4"), one after the other, with 128 MiB
# guests: the boot time (`vgemini up` to every agent answering, next to
# the target of 10 minutes), the QEMUs' resident memory, the share of the
# host CPU the idle torus uses over 10 s (the 5% target is make bench's,
# for 8 nodes), and
# an all-to-all of PUTs: ugni_putget on one rank per node, each rank
# PUTting to and GETting from every rank, checked byte for byte, timed.
# Rows go to build/bench/scale.json as make bench's do to results.json.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
VGEMINI=$REPO/scripts/vgemini
OUT=$REPO/build/bench
DIMS_LIST=${SCALE_DIMS:-3x3x3 4x4x4}
MEM=${SCALE_MEM:-128}
export VGEMINI_FABRIC=${VGEMINI_FABRIC:-scale-$$}
mkdir -p "$OUT"
RESULTS=$OUT/scale.tsv
: >"$RESULTS"

. "$REPO/scripts/bench-lib.sh"

trap '"$VGEMINI" down >/dev/null 2>&1 || true' EXIT
echo "vgemini bench-scale: tori of $DIMS_LIST, ${MEM} MiB TCG guests"
printf '%-4s %-44s %12s %-9s %12s %8s\n' "" "" "figure" "unit" "baseline" "ratio"
for dims in $DIMS_LIST; do
	n=$(echo "$dims" | awk -Fx '{ print $1 * $2 * $3 }')
	t0=$(date +%s.%N)
	"$VGEMINI" up --dims "$dims" --mem "$MEM" --timeout 900 \
		>"$OUT/up-$dims.log" 2>&1 || {
		cat "$OUT/up-$dims.log"
		fail "the $dims torus did not boot"
	}
	boot_s=$(since "$t0")
	record P5 "boot of the $n-node torus" "$boot_s" s \
		"target: at most" 600 "$(ratio "$boot_s" 600)"
	record P5 "resident memory of its $n QEMUs" "$(qemu_rss_mib)" MiB - - -
	idle=$(torus_cpu_10s)
	record P5 "host CPU used by the idle $n-node torus" "$idle" % - - -
	t0=$(date +%s.%N)
	run_job "$OUT/alltoall-$dims.log" -n "$n" ugni_putget --sizes 1 --offsets 1
	passed=$(grep -c "checks passed" "$OUT/alltoall-$dims.log" || true)
	[ "$passed" = "$n" ] || fail "all-to-all on $dims: $passed of $n ranks passed"
	record P5 "all-to-all PUT+GET job, $n ranks ($((n * n)) pairs)" \
		"$(since "$t0")" s - - -
	"$VGEMINI" down >/dev/null 2>&1 || fail "down of the $dims torus failed"
done
write_json "$OUT/scale.json" "$DIMS_LIST"
echo "(results: $OUT/scale.json; logs: $OUT/)"
