#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Test of the vgemini-routes command line: exit codes, files written,
# summary, dump and verify.  Prints TAP.
#
#   firmware/tests/test_cli.sh path/to/vgemini-routes
set -u

TOOL=${1:?usage: $0 path/to/vgemini-routes}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/vgemini-routes-cli.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT

n=0
failed=0

# t NAME EXPECTED_EXIT COMMAND...: run, keep stdout/stderr in $TMP/out, err
t() {
	local name=$1 want=$2 rc
	shift 2
	n=$((n + 1))
	"$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	if [ "$rc" -eq "$want" ]; then
		echo "ok $n - $name"
	else
		echo "not ok $n - $name (exit $rc, expected $want)"
		sed 's/^/#   /' "$TMP/out" "$TMP/err"
		failed=$((failed + 1))
	fi
}

# has NAME FILE PATTERN: FILE holds PATTERN (grep -E)
has() {
	n=$((n + 1))
	if grep -qE -- "$3" "$2"; then
		echo "ok $n - $1"
	else
		echo "not ok $n - $1 (no \"$3\")"
		sed 's/^/#   /' "$2"
		failed=$((failed + 1))
	fi
}

count_images() {
	find "$1" -name 'router-*.bin' | wc -l
}

t "--help" 0 "$TOOL" --help
has "--help prints usage" "$TMP/out" "usage: vgemini-routes --dims"
t "no arguments: usage error" 2 "$TOOL"
t "unknown option: usage error" 2 "$TOOL" --dims 2x2x2 --out "$TMP/x" --frobnicate
t "--dims without --out: usage error" 2 "$TOOL" --dims 2x2x2
t "--dims given twice: usage error" 2 "$TOOL" --dims 2x2x2 --dims 2x2x2 --out "$TMP/x"
t "--dims and --dump together: usage error" 2 "$TOOL" --dims 2x2x2 --dump "$TMP/x"
for d in 0x1x1 256x1x1 64x64x32 4x4 4x4x4x4 axbxc ""; do
	t "bad dims \"$d\": usage error" 2 "$TOOL" --dims "$d" --out "$TMP/x"
done
has "bad dims message names the rule" "$TMP/err" "expected XxYxZ"
for f in 64:X+ 0:Q+ 4,0,0:X+ 0:Y+ X+ 0; do
	t "bad link \"$f\" in 4x1x1: usage error" 2 "$TOOL" --dims 4x1x1 --fail "$f" --out "$TMP/x"
done
has "bad link message names the form" "$TMP/err" "expected NODE:PORT"
t "a port of a size-1 dimension: usage error" 2 "$TOOL" --dims 4x1x1 --fail 0:Z- --out "$TMP/x"
has "size-1 port message" "$TMP/err" "dimension Z has size 1"
t "bad generation: usage error" 2 "$TOOL" --dims 2x1x1 --generation -1 --out "$TMP/x"
t "generation 0: usage error" 2 "$TOOL" --dims 2x1x1 --generation 0 --out "$TMP/x"
t "usage errors write nothing" 0 [ ! -e "$TMP/x" ]

t "4x4x4 generated" 0 "$TOOL" --dims 4x4x4 --generation 7 --out "$TMP/a"
has "summary line" "$TMP/out" "^vgemini-routes: 4x4x4: wrote 64 routers to .*, 0 failed links, dimension order XYZ with datelines, max path 6 hops, all pairs reachable$"
t "64 images written" 0 [ "$(count_images "$TMP/a")" -eq 64 ]
t "each image is 64 + 14 * 64 bytes" 0 [ "$(stat -c %s "$TMP/a/router-63.bin")" -eq 960 ]
t "--verify of a good directory" 0 "$TOOL" --verify "$TMP/a"
has "verify summary" "$TMP/out" "4096 of 4096 pairs delivered, max path 6 hops \(all minimal\), deadlock-free"
t "--dump" 0 "$TOOL" --dump "$TMP/a/router-5.bin"
has "dump: gemini id and coordinates" "$TMP/out" "gemini id +5 \(1,1,0\)"
has "dump: generation" "$TMP/out" "generation +7"
has "dump: route to 6 (2,1,0) is X+ class 0" "$TMP/out" "^ +6 \(2,1,0\) +X\+ +class 0"
has "dump: route to 5 is deliver" "$TMP/out" "^ +5 \(1,1,0\) +deliver"

t "one failed link, named as x,y,z and case-insensitive" 0 \
	"$TOOL" --dims 4x4x1 --fail 1,2,0:xm --out "$TMP/b"
has "summary counts the failed link" "$TMP/out" "1 failed link,"
t "--verify with the failed link" 0 "$TOOL" --verify "$TMP/b" --fail 9:X-
t "--verify with the same cable named from its other end" 0 "$TOOL" --verify "$TMP/b" --fail 8:X+
t "--verify with a different failure count" 1 "$TOOL" --verify "$TMP/b" --fail 9:X- --fail 0:Y+
t "--verify: tables that use a link given as failed" 1 "$TOOL" --verify "$TMP/b" --fail 0:X+
has "verify names the failed link in use" "$TMP/err" "failed link"

t "node cut off: exit 3" 3 "$TOOL" --dims 3x3x3 --fail 13:X+ --fail 13:X- \
	--fail 13:Y+ --fail 13:Y- --fail 13:Z+ --fail 13:Z- --out "$TMP/c"
has "unreachable pairs listed" "$TMP/err" "52 of 729 pairs unreachable \(the failed links disconnect the torus\); first: 13->0 13->1 "
has "summary says UNREACHABLE" "$TMP/out" "52 pairs UNREACHABLE"
t "tables still written when pairs are unreachable" 0 [ "$(count_images "$TMP/c")" -eq 27 ]
t "--verify of a disconnected set: exit 3" 3 "$TOOL" --verify "$TMP/c"
t "--verify with the failed links: exit 3" 3 "$TOOL" --verify "$TMP/c" \
	--fail 13:X+ --fail 13:X- --fail 13:Y+ --fail 13:Y- --fail 13:Z+ --fail 13:Z-

t "a smaller torus into the same directory" 0 "$TOOL" --dims 2x2x2 --out "$TMP/a"
has "stale images reported" "$TMP/err" "removed 56 images"
t "only 8 images left" 0 [ "$(count_images "$TMP/a")" -eq 8 ]
t "--verify after shrinking" 0 "$TOOL" --verify "$TMP/a"

printf '\x01' | dd of="$TMP/a/router-3.bin" bs=1 seek=100 conv=notrunc status=none
t "--verify of a corrupted image: exit 1" 1 "$TOOL" --verify "$TMP/a"
has "corruption reported as a CRC error" "$TMP/err" "router-3.bin: entries CRC-32"
t "--dump of a corrupted image: exit 1" 1 "$TOOL" --dump "$TMP/a/router-3.bin"
t "--dump of a missing file: exit 1" 1 "$TOOL" --dump "$TMP/a/router-99.bin"
t "--verify of a missing directory: exit 1" 1 "$TOOL" --verify "$TMP/nonexistent"
mkdir "$TMP/empty"
t "--verify of an empty directory: exit 1" 1 "$TOOL" --verify "$TMP/empty"

echo "1..$n"
echo "# $((n - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
