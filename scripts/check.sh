#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Run every test of vgemini (after `make build`) and end with one line
# "N passed, N failed".  Each stage's full output is kept in build/check/.
#
# Stages print TAP ("ok N ...", "not ok N ...", "# SKIP") or, for the guest
# selftests, the launcher's own "N passed, N failed" summary.  A stage that
# dies or times out counts as a failure even if it printed nothing.
set -u

REPO=$(cd "$(dirname "$0")/.." && pwd)
cd "$REPO" || exit 1
LOG=$REPO/build/check
mkdir -p "$LOG"
VGEMINI=$REPO/scripts/vgemini
export VGEMINI_FABRIC=check-$$

passed=0
failed=0
skipped=0
t0=$(date +%s)

cleanup() {
	"$VGEMINI" down >/dev/null 2>&1
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# stage NAME TIMEOUT_SECONDS COMMAND...
stage() {
	local name=$1 limit=$2 start rc p f s summary
	shift 2
	start=$(date +%s)
	printf '%-28s ' "$name"
	timeout --kill-after=30 "$limit" "$@" >"$LOG/$name.log" 2>&1
	rc=$?
	summary=$(grep -E '^(# )?[0-9]+ passed, [0-9]+ failed' "$LOG/$name.log" | tail -n 1)
	if [ -n "$summary" ] && ! grep -qE '^(not )?ok [0-9]+' "$LOG/$name.log"; then
		p=$(sed -E 's/^(# )?([0-9]+) passed.*/\2/' <<<"$summary")
		f=$(sed -E 's/^.* ([0-9]+) failed.*/\1/' <<<"$summary")
		s=$(sed -nE 's/^.* ([0-9]+) skipped.*/\1/p' <<<"$summary")
		s=${s:-0}
	else
		p=$(grep -E '^ok [0-9]+' "$LOG/$name.log" | grep -vc '# SKIP')
		s=$(grep -E '^ok [0-9]+' "$LOG/$name.log" | grep -c '# SKIP')
		f=$(grep -cE '^not ok [0-9]+' "$LOG/$name.log")
	fi
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	skipped=$((skipped + s))
	printf '%3d passed, %d failed, %d skipped  (%ds)\n' "$p" "$f" "$s" \
		$(($(date +%s) - start))
	if [ "$f" -ne 0 ]; then
		[ "$rc" -eq 124 ] && echo "    timed out after ${limit}s"
		[ "$rc" -ne 0 ] && echo "    exit status $rc"
		grep -E '^(\[[^]]*\] *)?not ok|Bail out|ERROR|FAIL' "$LOG/$name.log" |
			head -n 20 | sed 's/^/    /'
		echo "    full output: $LOG/$name.log"
	fi
}

QEMU_BUILD=$REPO/build/qemu/build
export QTEST_QEMU_BINARY=$QEMU_BUILD/qemu-system-x86_64

echo "vgemini check: logs in $LOG"
stage core-unit 300 "$REPO/build/core/test_core"
stage core-packet 300 "$REPO/build/core/test_packet"
stage core-fabric 600 "$REPO/build/core/test_fabric"
stage core-nic 300 "$REPO/build/core/test_nic"
stage core-fma 300 "$REPO/build/core/test_fma"
stage core-nat 300 "$REPO/build/core/test_nat"
stage core-cq 300 "$REPO/build/core/test_cq"
stage core-fault 300 "$REPO/build/core/test_fault"
stage core-bte 300 "$REPO/build/core/test_bte"
stage core-bte-xfer 300 "$REPO/build/core/test_bte_xfer"
stage core-bte-4g 600 "$REPO/build/core/test_bte_4g"
stage firmware-unit 300 "$REPO/build/firmware/test_routes"
stage firmware-cli 300 "$REPO/firmware/tests/test_cli.sh" "$REPO/build/firmware/vgemini-routes"
stage lib-host 300 "$REPO/lib/pmi/tests/host-test.py" "$REPO/build/lib"
stage lib-ugni 300 "$REPO/lib/ugni/tests/host-test.py" "$REPO/build/lib"
stage lib-alps 300 "$REPO/lib/alps/tests/host-test.py" "$REPO/build/lib"
stage lib-udreg 300 "$REPO/lib/udreg/tests/host-test.py" "$REPO/build/lib"
stage kernel-build 300 "$REPO/scripts/tests/kernel-build.py"
stage launcher-unit 300 "$REPO/scripts/vgemini_launcher/tests/run_tap.py"
stage docs 600 "$REPO/scripts/docs.sh" --tap
stage architecture 60 "$REPO/scripts/check-architecture.py"
stage style 300 "$REPO/scripts/style.sh"
stage qtest 600 "$QEMU_BUILD/tests/qtest/cray-gemini-test" --tap
stage core-fuzz 600 make -C "$REPO" --no-print-directory fuzz-replay
# The single node gets 768 MiB: room for a registration larger than the GART.
stage guest-selftests-1x1x1 1500 "$REPO/scripts/tests/guest-selftests.sh" 1x1x1 768M
for dims in 3x2x1 2x2x2; do
	stage "guest-selftests-$dims" 1500 "$REPO/scripts/tests/guest-selftests.sh" "$dims"
done
stage fabric-faults-2x2x2 1500 "$REPO/scripts/tests/fabric-test.py" 2x2x2
stage ipogif-2x2x2 600 "$REPO/scripts/tests/ipogif.py" 2x2x2
for dims in 2x2x2 4x2x1 3x3x1; do
	stage "fabric-routing-$dims" 1500 "$REPO/scripts/tests/fabric-routing.py" "$dims"
done
stage fabric-counters 1500 "$REPO/scripts/tests/fabric-counters.py"
stage fabric-link-retry 1800 "$REPO/scripts/tests/fabric-faults.py"
stage jobs 1500 "$REPO/scripts/tests/jobs.py"
stage host-programs 600 "$REPO/scripts/tests/host-programs.py"
stage containment 600 "$REPO/scripts/tests/containment.py"
stage ugni-jobs 900 "$REPO/scripts/tests/ugni-jobs.py"
stage mpi 1500 "$REPO/scripts/tests/mpi.py"
stage soak 900 "$REPO/scripts/tests/soak.py" --seconds 30 --baseline 10

echo "total time $(($(date +%s) - t0))s"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
