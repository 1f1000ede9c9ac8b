#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The kernel's checkpatch.pl, --strict, over every source file of kgni.ko:
# one TAP line per file, its complaints as "# " lines after a "not ok"
# (the style stage of scripts/check.sh).
#
#   scripts/style.sh
#
# checkpatch.pl and the two files it reads (spelling.txt,
# const_structs.checkpatch) are taken out of Debian's linux-source tarball
# into build/style-tools/, as scripts/docs.sh takes kernel-doc; they are
# never copied into the repository.
#
# Ignored: LINUX_VERSION_CODE.  kgni.ko is built out of tree against more
# than one kernel; the few places where their APIs differ must test the
# version (driver/kgni.h).  An in-tree driver has no such test.
set -u

REPO=$(cd "$(dirname "$0")/.." && pwd)
TOOLS=$REPO/build/style-tools
CHECKPATCH=$TOOLS/scripts/checkpatch.pl
IGNORE=LINUX_VERSION_CODE

LINUX_SOURCE=${LINUX_SOURCE:-$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -n 1)}
TOOL_FILES=(scripts/checkpatch.pl scripts/spelling.txt
	scripts/const_structs.checkpatch)

# fail MESSAGE...: report that checkpatch could not be run
fail() {
	echo "1..1"
	echo "not ok 1 - checkpatch --strict driver/"
	printf '# %s\n' "$@"
	exit 1
}

command -v perl >/dev/null || fail "no perl"

# The tools, again whenever the tarball is newer than what was taken out.
if [ ! -e "$TOOLS/.stamp" ] || { [ -n "$LINUX_SOURCE" ] && [ "$LINUX_SOURCE" -nt "$TOOLS/.stamp" ]; }; then
	[ -n "$LINUX_SOURCE" ] ||
		fail "no /usr/src/linux-source-*.tar.xz (package linux-source-6.1): run 'make setup'"
	top=$(basename "$LINUX_SOURCE" .tar.xz)
	rm -rf "$TOOLS" && mkdir -p "$TOOLS" || fail "cannot create $TOOLS"
	tar -xJf "$LINUX_SOURCE" -C "$TOOLS" --strip-components=1 \
		"${TOOL_FILES[@]/#/$top/}" ||
		fail "cannot extract ${TOOL_FILES[*]} from $LINUX_SOURCE"
	touch "$TOOLS/.stamp"
fi

# The sources; kgni.mod.c is written by the kernel's build.
files=()
for f in "$REPO"/driver/*.[ch]; do
	case $f in *.mod.c) continue ;; esac
	files+=("${f#"$REPO"/}")
done
[ "${#files[@]}" -gt 0 ] || fail "no driver/*.[ch]"

echo "1..${#files[@]}"
n=0 failed=0
for f in "${files[@]}"; do
	n=$((n + 1))
	# --no-tree: not run from a kernel tree; --file: a file, not a patch
	out=$(cd "$REPO" && perl "$CHECKPATCH" --strict --no-tree --terse \
		--show-types --no-summary --ignore "$IGNORE" --file "$f" 2>&1)
	if [ $? -eq 0 ] && [ -z "$out" ]; then
		echo "ok $n - checkpatch --strict $f"
	else
		echo "not ok $n - checkpatch --strict $f"
		printf '%s\n' "$out" | sed 's/^/# /'
		failed=$((failed + 1))
	fi
done
[ "$failed" -eq 0 ]
