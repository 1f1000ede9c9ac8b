#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# QEMU's own generic fuzzer (tests/qtest/fuzz/generic_fuzz.c) on the
# cray-gemini device, through the whole of QEMU: PCI config space, MMIO to
# BAR0 and BAR2, and the DMA the device does, whose guest memory the fuzzer
# fills as the device reads it.  Not part of `make check` (a clang fuzzing
# build of QEMU takes about 15 minutes on 2 cores); the device core alone
# is fuzzed much faster by `make fuzz` (Documentation/testing.rst).
#
#   scripts/qemu-fuzz.sh build              clang + libFuzzer + ASan/UBSan
#                                           build of QEMU in build/qemu-fuzz/
#                                           (needs `make qemu` first: it
#                                           uses the same overlaid source)
#   scripts/qemu-fuzz.sh run [SECONDS] [libFuzzer options...]
#                                           fuzz (default 600 s); inputs in
#                                           build/qemu-fuzz/corpus/, crashes
#                                           in build/qemu-fuzz/findings/
#   scripts/qemu-fuzz.sh repro FILE         run one input again, with the
#                                           qtest commands it stands for
#
# The configuration: one cray-gemini on q35 with BAR2 shrunk to 128 MiB
# (window-size), because the fuzzer's PCI helper sizes BARs by their low
# 32 bits and places them below 4 GiB; the local block (MMRs, descriptor
# tables, CQ and MDD set-up, BTE, diagnostics) is all inside it, the FMA
# windows (64 GiB up) are not: those are fuzzed by fuzz_core.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
SRC=$(find "$REPO/build/qemu" -maxdepth 1 -type d -name 'qemu-*' | head -n 1)
OUT=$REPO/build/qemu-fuzz
BUILD=$OUT/build
JOBS=${JOBS:-$(nproc)}

export QEMU_FUZZ_ARGS="-M q35 -nodefaults -m 256M \
-device cray-gemini,x=1,y=0,z=0,dim-x=2,window-size=0x8000000"
export QEMU_FUZZ_OBJECTS="cray-gemini*"
FIRMWARE="-L /usr/share/qemu -L /usr/share/seabios"
# shellcheck source=scripts/qemu-configure.sh
. "$REPO/scripts/qemu-configure.sh"

build() {
	if [ -z "$SRC" ] || ! grep -q vgemini "$SRC/hw/meson.build"; then
		echo "qemu-fuzz: no overlaid QEMU source: run 'make qemu' first" >&2
		exit 1
	fi
	qemu_configure "$SRC" "$BUILD" "$OUT/configure.log" \
		--cc=clang --cxx=clang++ --enable-fuzzing --enable-sanitizers
	echo "qemu-fuzz: building qemu-fuzz-x86_64 (see $OUT/ninja.log)"
	ninja -C "$BUILD" -j "$JOBS" qemu-fuzz-x86_64 >"$OUT/ninja.log" 2>&1 || {
		grep -E -A5 'error|FAILED' "$OUT/ninja.log" | head -n 40 >&2
		exit 1
	}
	echo "qemu-fuzz: $BUILD/qemu-fuzz-x86_64"
}

binary() {
	if [ ! -x "$BUILD/qemu-fuzz-x86_64" ]; then
		echo "qemu-fuzz: not built: scripts/qemu-fuzz.sh build" >&2
		exit 1
	fi
}

case ${1:-} in
build)
	build
	;;
run)
	binary
	secs=${2:-600}
	shift $(($# >= 2 ? 2 : 1))
	mkdir -p "$OUT/corpus" "$OUT/findings"
	# q35 loads its BIOS at start, even under qtest: Debian's, as the
	# launcher uses.
	QEMU_FUZZ_ARGS="$QEMU_FUZZ_ARGS $FIRMWARE" \
		"$BUILD/qemu-fuzz-x86_64" --fuzz-target=generic-fuzz \
		-max_total_time="$secs" -print_final_stats=1 \
		-artifact_prefix="$OUT/findings/" "$@" "$OUT/corpus"
	;;
repro)
	binary
	[ -f "${2:-}" ] || { echo "usage: $0 repro FILE" >&2; exit 2; }
	QEMU_FUZZ_ARGS="$QEMU_FUZZ_ARGS $FIRMWARE" \
		QTEST_LOG=1 FUZZ_SERIALIZE_QTEST=1 \
		"$BUILD/qemu-fuzz-x86_64" --fuzz-target=generic-fuzz "$2"
	;;
*)
	sed -n '4,27p' "$0" | sed 's/^# \{0,1\}//'
	exit 2
	;;
esac
