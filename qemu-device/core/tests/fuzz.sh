#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The device core's libFuzzer targets, as qemu-device/core/tests/fuzz.mk
# runs them (BUILD, FUZZ_OUT and FUZZ_CORPUS come from there).
#
#   fuzz.sh run SECONDS      fuzz_core for 9/10 of SECONDS, fuzz_packet for
#                            the rest; one worker; the committed corpus is
#                            read, new inputs go to FUZZ_OUT/<target>/
#   fuzz.sh replay SECONDS   run every committed input once, then fuzz for
#                            SECONDS in all; TAP; non-zero on any finding
#   fuzz.sh cov              coverage build over the committed corpus: line
#                            coverage of every qemu-device/core/*.c
#
# Crashing inputs are kept in BUILD/fuzz-findings/.
set -u

BUILD=${BUILD:?set BUILD}
FUZZ_OUT=${FUZZ_OUT:-$BUILD/fuzz}
FUZZ_CORPUS=${FUZZ_CORPUS:?set FUZZ_CORPUS}
FINDINGS=$BUILD/fuzz-findings
REPO=$(cd "$(dirname "$0")/../../.." && pwd)

# Options per target: input size, a per-input time limit, memory.
opts() {
	case $1 in
	fuzz_core) echo "-max_len=4096 -timeout=30 -rss_limit_mb=2048" ;;
	*) echo "-max_len=128 -timeout=10 -rss_limit_mb=1024" ;;
	esac
}

# The committed inputs of @1, one per line (none is fine).
inputs() {
	find "$FUZZ_CORPUS/$1" -maxdepth 1 -type f 2>/dev/null | sort
}

# fuzz TARGET SECONDS SCRATCH LOG: fuzz, new inputs into SCRATCH.
fuzz() {
	local t=$1 secs=$2 scratch=$3 log=$4

	mkdir -p "$scratch" "$FINDINGS" "$FUZZ_CORPUS/$t"
	# shellcheck disable=SC2046
	"$BUILD/core/$t" $(opts "$t") -max_total_time="$secs" \
		-print_final_stats=1 -artifact_prefix="$FINDINGS/$t-" \
		"$scratch" "$FUZZ_CORPUS/$t" >"$log" 2>&1
}

# replay TARGET LOG: every committed input once.
replay() {
	local t=$1 log=$2 files

	mapfile -t files < <(inputs "$t")
	[ "${#files[@]}" -eq 0 ] && { echo "no inputs" >"$log"; return 0; }
	mkdir -p "$FINDINGS"
	# shellcheck disable=SC2046
	"$BUILD/core/$t" $(opts "$t") -artifact_prefix="$FINDINGS/$t-" \
		"${files[@]}" >"$log" 2>&1
}

# The execution count and rate a libFuzzer log ends with.
stats() {
	local runs rate

	runs=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+)/\1/p' "$1" | tail -n 1)
	rate=$(sed -nE 's/^stat::average_exec_per_sec: *([0-9]+)/\1/p' "$1" | tail -n 1)
	echo "${runs:-?} executions, ${rate:-?}/s"
}

# Why a run failed: the oracle's or the sanitizer's line, the artifact.
why() {
	grep -E 'ORACLE|INVARIANT|ERROR: |runtime error|SUMMARY|Test unit written' "$1" |
		head -n 6 | sed 's/^/#   /'
}

cmd=${1:-}
case $cmd in
run)
	secs=${2:-600}
	core=$((secs * 9 / 10))
	pkt=$((secs - core))
	[ "$pkt" -lt 1 ] && pkt=1
	rc=0
	for tp in "fuzz_core $core" "fuzz_packet $pkt"; do
		set -- $tp
		echo "fuzz: $1 for $2 s (log $FUZZ_OUT/$1.log)"
		if fuzz "$1" "$2" "$FUZZ_OUT/$1" "$FUZZ_OUT/$1.log"; then
			echo "fuzz: $1: no finding, $(stats "$FUZZ_OUT/$1.log")"
		else
			echo "fuzz: $1: FINDING"
			why "$FUZZ_OUT/$1.log"
			rc=1
		fi
	done
	exit $rc
	;;
replay)
	secs=${2:-60}
	core=$((secs * 5 / 6))
	pkt=$((secs - core))
	[ "$pkt" -lt 1 ] && pkt=1
	mkdir -p "$FUZZ_OUT/replay"
	echo "TAP version 13"
	echo "1..4"
	n=0
	failed=0
	step() {
		local desc=$1 log=$2

		shift 2
		n=$((n + 1))
		if "$@"; then
			echo "ok $n - $desc"
		else
			echo "not ok $n - $desc"
			why "$log"
			echo "#   log: $log"
			failed=$((failed + 1))
		fi
	}
	for t in fuzz_core fuzz_packet; do
		step "$t: the $(inputs $t | wc -l) committed inputs run clean" \
			"$FUZZ_OUT/replay/$t-corpus.log" \
			replay "$t" "$FUZZ_OUT/replay/$t-corpus.log"
	done
	for tp in "fuzz_core $core" "fuzz_packet $pkt"; do
		set -- $tp
		rm -rf "$FUZZ_OUT/replay/$1"
		step "$1: $2 s of fuzzing find nothing" \
			"$FUZZ_OUT/replay/$1.log" \
			fuzz "$1" "$2" "$FUZZ_OUT/replay/$1" "$FUZZ_OUT/replay/$1.log"
		echo "#   $(stats "$FUZZ_OUT/replay/$1.log")"
	done
	echo "# $((n - failed)) passed, $failed failed"
	[ "$failed" -eq 0 ]
	;;
cov)
	profdata=$(command -v llvm-profdata-14 || command -v llvm-profdata)
	llvmcov=$(command -v llvm-cov-14 || command -v llvm-cov)
	[ -n "$profdata" ] && [ -n "$llvmcov" ] ||
		{ echo "fuzz-cov: llvm-profdata and llvm-cov needed (package llvm)" >&2; exit 1; }
	dir=$FUZZ_OUT/cov
	rm -rf "$dir"
	mkdir -p "$dir"
	mapfile -t files < <(inputs fuzz_core)
	echo "fuzz-cov: replaying ${#files[@]} inputs of fuzz_core"
	LLVM_PROFILE_FILE="$dir/core-%p.profraw" \
		"$BUILD/core/fuzz_core_cov" $(opts fuzz_core) "${files[@]}" \
		>"$dir/replay.log" 2>&1 ||
		{ echo "fuzz-cov: the replay failed (see $dir/replay.log)" >&2; exit 1; }
	"$profdata" merge -sparse "$dir"/core-*.profraw -o "$dir/core.profdata" || exit 1
	cd "$REPO" || exit 1
	"$llvmcov" report "$BUILD/core/fuzz_core_cov" -instr-profile="$dir/core.profdata" \
		qemu-device/core/*.c | tee "$dir/report.txt"
	# Line coverage per file, and which are below 85 %.
	awk '$1 ~ /\.c$/ {
		cov = $(NF - 3); sub(/%/, "", cov)
		printf "fuzz-cov: %-18s lines %6s%%%s\n", $1, cov,
		       (cov + 0 < 85 ? "  (below 85%)" : "")
	     }' "$dir/report.txt"
	echo "fuzz-cov: uncovered lines: $llvmcov show $BUILD/core/fuzz_core_cov -instr-profile=$dir/core.profdata -show-line-counts-or-regions qemu-device/core/FILE.c"
	;;
*)
	echo "usage: $0 run SECONDS | replay SECONDS | cov" >&2
	exit 2
	;;
esac
