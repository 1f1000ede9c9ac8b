#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# One C style per tree, checked (the style stage of scripts/check.sh): one
# TAP line per file, its complaints as "# " lines after a "not ok".
#
#   scripts/style.sh
#
#   driver/             the kernel's scripts/checkpatch.pl --strict
#   selftests/kgni/ktest/, scripts/tests/kernel-build/, driver/ipogif/
#                       kernel clients of kgni built out of tree: the
#                       same, and they include no header of kgni's but
#                       <gni_pub.h> and the RCA headers (what any client
#                       can do, they do); a quoted include must name a
#                       header of the client's own, next to the file
#   qemu-device/core/   the same, with the checks that only make sense
#                       inside a kernel ignored (CORE_IGNORE below); and
#                       so is testlib/, the C tests' TAP harness, and
#                       lib/gnicore/, built into kgni.ko and libugni
#                       (its two environment headers name their types)
#   qemu-device/qemu/   QEMU's scripts/checkpatch.pl, run from the QEMU
#                       source tree build-qemu.sh overlays, on the files'
#                       paths there (so that tests/qtest/ is judged as a
#                       test, as QEMU judges its own)
#
# and three more lines: qemu-device/qemu/trace-events' guest-error events
# are what scripts/gen-trace-events.py makes of the core's list of them
# (qemu-device/core/gemini_guest_error.h), each block of the core touches
# only its own state (scripts/check-core-blocks.py), and each file of the
# driver only its own members of struct kgni_dev
# (scripts/check-driver-blocks.py).
#
# The core is kernel-style C because it is not QEMU code: the same files
# build into QEMU, the host unit tests and the fuzzers, with no QEMU
# header (Documentation/architecture.rst).  The glue is QEMU code.
#
# The kernel's checkpatch.pl and the two files it reads (spelling.txt,
# const_structs.checkpatch) are taken out of Debian's linux-source tarball
# into build/style-tools/, as scripts/docs.sh takes kernel-doc; they are
# never copied into the repository.  QEMU's comes with its source package
# (make qemu).
#
# Ignored in driver/: LINUX_VERSION_CODE.  kgni.ko is built out of tree
# against more than one kernel; the few places where their APIs differ
# must test the version (driver/kgni.h).  An in-tree driver has no such
# test.
set -u

REPO=$(cd "$(dirname "$0")/.." && pwd)
TOOLS=$REPO/build/style-tools
CHECKPATCH=$TOOLS/scripts/checkpatch.pl
IGNORE=LINUX_VERSION_CODE
# The core is user-space C11 as well: <stdint.h> types, no BIT_ULL,
# ARRAY_SIZE or __printf; its link memory is shared with another process
# (volatile, with explicit atomics).
CORE_IGNORE=LINUX_VERSION_CODE,PREFER_KERNEL_TYPES,BIT_MACRO,ARRAY_SIZE
CORE_IGNORE=$CORE_IGNORE,PREFER_DEFINED_ATTRIBUTE_MACRO,VOLATILE
# The list of guest errors (gemini_guest_error.h) is an X-macro, one
# message per entry, never split so that it can be found.
CORE_LIST_IGNORE=$CORE_IGNORE,COMPLEX_MACRO,MACRO_ARG_REUSE,LONG_LINE
# gnicore's environment headers name the lock and counter types of each
# side (lib/gnicore/gnicore_env.h).
GNICORE_IGNORE=$CORE_IGNORE,NEW_TYPEDEFS
# Its tests also name libFuzzer's entry point (LLVMFuzzerTestOneInput),
# and fake_bus.h's macro defines whole functions, returns and all.
CORE_TEST_IGNORE=$CORE_IGNORE,CAMELCASE,MACRO_WITH_FLOW_CONTROL
QEMU_SRC=$(find "$REPO/build/qemu/" -maxdepth 1 -type d -name 'qemu-*' 2>/dev/null | head -n 1)

TOOL_FILES=(scripts/checkpatch.pl scripts/spelling.txt
	scripts/const_structs.checkpatch)

# fail MESSAGE...: report that checkpatch could not be run
fail() {
	echo "1..1"
	echo "not ok 1 - checkpatch --strict driver/"
	printf '%s\n' "$@" | sed 's/^/# /'
	exit 1
}

command -v perl >/dev/null || fail "no perl"

# The tools, again whenever the tarball is newer than what was taken out.
why=$("$REPO/scripts/linux-source-files.sh" "$TOOLS" "${TOOL_FILES[@]}" 2>&1) ||
	fail "$why"

# The files, as "kind path" (kind: kernel, client, core, corelist, coretest,
# gnicore or qemu); kgni.mod.c is written by the kernel's build.
files=()
for f in "$REPO"/driver/*.[ch]; do
	case $f in *.mod.c) continue ;; esac
	files+=("kernel ${f#"$REPO"/}")
done
for f in "$REPO"/selftests/kgni/ktest/*.[ch] "$REPO"/scripts/tests/kernel-build/*.c \
	"$REPO"/driver/ipogif/*.[ch]; do
	case $f in *.mod.c) continue ;; esac
	files+=("client ${f#"$REPO"/}")
done
for f in "$REPO"/qemu-device/core/*.[ch]; do
	case $f in
	*/gemini_guest_error.h) files+=("corelist ${f#"$REPO"/}") ;;
	*) files+=("core ${f#"$REPO"/}") ;;
	esac
done
for f in "$REPO"/qemu-device/core/tests/*.[ch]; do
	files+=("coretest ${f#"$REPO"/}")
done
# The C tests' TAP harness (testlib/), user-space C as the core is.
for f in "$REPO"/testlib/*.[ch]; do
	files+=("core ${f#"$REPO"/}")
done
for f in "$REPO"/lib/gnicore/*.[ch]; do
	files+=("gnicore ${f#"$REPO"/}")
done
for f in "$REPO"/qemu-device/qemu/*.[ch] "$REPO"/qemu-device/qemu/tests/*.c; do
	files+=("qemu ${f#"$REPO"/}")
done
[ "${#files[@]}" -gt 3 ] || fail "no driver/*.[ch] or qemu-device/*.[ch]"

# check KIND PATH: the complaints about PATH, none if clean; non-zero if
# the checker could not run.
check() {
	case $1 in
	client)
		# Quoted includes and kgni's or the device's headers are the
		# driver's own: a client has gni_pub.h only, and headers of
		# its own (a quoted name of a file in its directory).
		local line inc
		grep -nE '^#[[:space:]]*include[[:space:]]*("|<[^>]*(kgni|gemini))' \
			"$REPO/$2" | while IFS= read -r line; do
			inc=$(sed -nE 's/.*include[[:space:]]*"([^"/]+)".*/\1/p' <<<"$line")
			[ -n "$inc" ] && [ -f "$REPO/${2%/*}/$inc" ] && continue
			echo "not a client's header: $line"
		done
		check kernel "$2"
		;;
	kernel | core | corelist | coretest | gnicore)
		local ignore=$IGNORE
		[ "$1" = core ] && ignore=$CORE_IGNORE
		[ "$1" = gnicore ] && ignore=$GNICORE_IGNORE
		[ "$1" = corelist ] && ignore=$CORE_LIST_IGNORE
		[ "$1" = coretest ] && ignore=$CORE_TEST_IGNORE
		# --no-tree: not run from a kernel tree; --file: a file
		(cd "$REPO" && perl "$CHECKPATCH" --strict --no-tree --terse \
			--show-types --no-summary --ignore "$ignore" --file "$2" 2>&1)
		;;
	qemu)
		local intree
		if [ -z "$QEMU_SRC" ] || [ ! -x "$QEMU_SRC/scripts/checkpatch.pl" ]; then
			echo "no QEMU source with scripts/checkpatch.pl: run 'make qemu'"
			return 1
		fi
		# Where build-qemu.sh links it into QEMU's tree
		case $2 in
		qemu-device/qemu/tests/*) intree=tests/qtest/${2##*/} ;;
		*) intree=hw/vgemini/$2 ;;
		esac
		[ -e "$QEMU_SRC/$intree" ] || {
			echo "$intree is not in $QEMU_SRC: run 'make qemu'"
			return 1
		}
		# Its exit status says only whether it complained: the
		# output says that too
		(cd "$QEMU_SRC" && perl scripts/checkpatch.pl --no-tree --terse \
			-f "$intree" 2>&1) | grep -v '^total: 0 errors, 0 warnings'
		return 0
		;;
	esac
}

# Three more lines: the trace events generated from the core's list of
# guest errors are the ones committed (scripts/gen-trace-events.py), the
# core's blocks keep to their own state (scripts/check-core-blocks.py), and
# the driver's files to their own members of struct kgni_dev
# (scripts/check-driver-blocks.py).
# checkpatch takes a second or two a file: run one per CPU, then report
# in order.
out_dir=$(mktemp -d)
trap 'rm -rf "$out_dir"' EXIT
jobs_max=$(nproc 2>/dev/null || echo 2)
i=0
for kf in "${files[@]}"; do
	i=$((i + 1))
	while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do
		wait -n
	done
	(
		check "${kf%% *}" "${kf#* }" >"$out_dir/$i.out"
		echo $? >"$out_dir/$i.rc"
	) &
done
wait

echo "1..$((${#files[@]} + 3))"
n=0 failed=0
for kf in "${files[@]}"; do
	n=$((n + 1))
	kind=${kf%% *} f=${kf#* }
	what="checkpatch --strict"
	[ "$kind" = qemu ] && what="QEMU's checkpatch"
	[ "$kind" = client ] && what="checkpatch --strict, gni_pub.h alone,"
	out=$(cat "$out_dir/$n.out")
	if [ "$(cat "$out_dir/$n.rc")" = 0 ] && [ -z "$out" ]; then
		echo "ok $n - $what $f"
	else
		echo "not ok $n - $what $f"
		printf '%s\n' "$out" | sed 's/^/# /'
		failed=$((failed + 1))
	fi
done
n=$((n + 1))
if out=$(python3 "$REPO/scripts/gen-trace-events.py" --check 2>&1); then
	echo "ok $n - trace-events in step with gemini_guest_error.h"
else
	echo "not ok $n - trace-events in step with gemini_guest_error.h"
	printf '%s\n' "$out" "run scripts/gen-trace-events.py --update" |
		sed 's/^/# /'
	failed=$((failed + 1))
fi
n=$((n + 1))
if out=$(python3 "$REPO/scripts/check-core-blocks.py" 2>&1); then
	echo "ok $n - each core block touches only its own state"
else
	echo "not ok $n - each core block touches only its own state"
	printf '%s\n' "$out" | sed 's/^/# /'
	failed=$((failed + 1))
fi
n=$((n + 1))
if out=$(python3 "$REPO/scripts/check-driver-blocks.py" 2>&1); then
	echo "ok $n - each driver file touches only its own kgni_dev members"
else
	echo "not ok $n - each driver file touches only its own kgni_dev members"
	printf '%s\n' "$out" | sed 's/^/# /'
	failed=$((failed + 1))
fi
# The kernel's checkpatch caches CamelCase names from git here.
rm -f "$REPO"/.checkpatch-camelcase.git.*
[ "$failed" -eq 0 ]
