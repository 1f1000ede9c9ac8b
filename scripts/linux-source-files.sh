#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Take files out of Debian's linux-source tarball (package linux-source-6.1)
# into a build folder, again whenever the tarball is newer than what was
# taken out.  The kernel's tools and headers that vgemini uses (kernel-doc,
# checkpatch.pl, kselftest_harness.h) come in this way: they are never
# copied into the repository.
#
#   scripts/linux-source-files.sh DEST FILE...
#
# FILE is a path inside the kernel tree (scripts/kernel-doc); it lands at
# DEST/FILE.  LINUX_SOURCE names the tarball (default: the newest
# /usr/src/linux-source-*.tar.xz).  On failure, says why on stderr and
# exits 1.
set -u

[ $# -ge 2 ] || { echo "usage: $0 DEST FILE..." >&2; exit 2; }
dest=$1
shift
src=${LINUX_SOURCE:-$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -n 1)}

if [ -e "$dest/.stamp" ] && { [ -z "$src" ] || [ ! "$src" -nt "$dest/.stamp" ]; }; then
	exit 0
fi
if [ -z "$src" ]; then
	echo "no /usr/src/linux-source-*.tar.xz (package linux-source-6.1): run 'make setup'" >&2
	exit 1
fi
top=$(basename "$src" .tar.xz)
if ! { rm -rf "$dest" && mkdir -p "$dest"; }; then
	echo "cannot create $dest" >&2
	exit 1
fi
if ! tar -xJf "$src" -C "$dest" --strip-components=1 "${@/#/$top/}"; then
	echo "cannot extract $* from $src" >&2
	exit 1
fi
touch "$dest/.stamp"
