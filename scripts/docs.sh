#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Render Documentation/ to build/docs/html with Sphinx (Debian's
# python3-sphinx), every warning an error.
#
#   scripts/docs.sh          build; print the warnings; exit 1 if any
#   scripts/docs.sh --tap    the same as one TAP line, warnings as "# "
#                            lines (the docs stage of scripts/check.sh)
#
# The kernel-doc of uapi/*.h comes in through the kernel's own tools,
# scripts/kernel-doc and Documentation/sphinx/kerneldoc.py (with its
# kernellog.py), which are taken out of Debian's linux-source tarball into
# build/docs-tools/ as selftests/Makefile takes kselftest_harness.h; they
# are never copied into the repository.  Anything sphinx-build prints on
# stderr counts as a warning, kernel-doc's messages included.
set -u

REPO=$(cd "$(dirname "$0")/.." && pwd)
OUT=$REPO/build/docs
TOOLS=$REPO/build/docs-tools
tap=0
[ "${1:-}" = --tap ] && tap=1

TOOL_FILES=(scripts/kernel-doc Documentation/sphinx/kerneldoc.py
	Documentation/sphinx/kernellog.py)

# fail MESSAGE...: report that the documentation could not be built
fail() {
	if [ "$tap" -eq 1 ]; then
		echo "not ok 1 - documentation builds with no warning"
		printf '%s\n' "$@" | sed 's/^/# /'
	else
		printf 'docs: %s\n' "$@" >&2
	fi
	exit 1
}

command -v sphinx-build >/dev/null ||
	fail "no sphinx-build (package python3-sphinx): run 'make setup'"

# The tools, again whenever the tarball is newer than what was taken out.
why=$("$REPO/scripts/linux-source-files.sh" "$TOOLS" "${TOOL_FILES[@]}" 2>&1) ||
	fail "$why"

mkdir -p "$OUT" || fail "cannot create $OUT"
log=$OUT/warnings.log
# -E: a fresh environment every time, so that every page is read and
# every reference resolved again (a page that did not change may still
# name something that went away).  conf.py sets nitpicky: a reference
# that resolves to nothing is a warning too.
VGEMINI_DOCS_TOOLS=$TOOLS sphinx-build -E -W --keep-going -q \
	-d "$OUT/doctrees" -b html "$REPO/Documentation" "$OUT/html" 2>"$log"
rc=$?

if [ "$rc" -eq 0 ] && [ ! -s "$log" ]; then
	if [ "$tap" -eq 1 ]; then
		echo "ok 1 - documentation builds with no warning"
	else
		echo "docs: $OUT/html/index.html"
	fi
	exit 0
fi
if [ "$tap" -eq 1 ]; then
	echo "not ok 1 - documentation builds with no warning"
	sed "s|$REPO/||g; s/^/# /" "$log"
	[ -s "$log" ] || echo "# sphinx-build exit status $rc"
else
	sed "s|$REPO/||g" "$log" >&2
	echo "docs: warnings (above): the documentation must build without any" >&2
fi
exit 1
