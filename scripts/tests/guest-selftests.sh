#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Boot a torus of the given shape, run the kselftests in every guest,
# tear down.  Ends with the launcher's "N passed, N failed" line.
#
# usage: guest-selftests.sh DIMS [MEM]   (e.g. 2x2x2; MEM as vgemini up
#        --mem, e.g. 768M: the tests that need a guest larger than the
#        GART's 256 MiB run only then)
set -u
REPO=$(cd "$(dirname "$0")/../.." && pwd)
VGEMINI=$REPO/scripts/vgemini

trap '"$VGEMINI" down >/dev/null 2>&1' EXIT
start=$(date +%s)
if ! "$VGEMINI" up --dims "$1" ${2:+--mem "$2"}; then
	echo "0 passed, 1 failed"
	exit 1
fi
echo "# boot of $1: $(($(date +%s) - start))s"
"$VGEMINI" selftest
rc=$?
"$VGEMINI" down
exit $rc
