#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Install every Debian package vgemini needs. Idempotent; skips apt when
# everything is already present.
set -euo pipefail

PKGS=(
	build-essential pkg-config git python3 ca-certificates clang g++
	llvm libclang-rt-14-dev		# libFuzzer, make fuzz-cov
	ninja-build meson libglib2.0-dev libpixman-1-dev libfdt-dev
	libcap-ng-dev			# QEMU's virtio-9p: the host's files in guests
	libseccomp-dev			# QEMU's -sandbox (Documentation/security.rst)
	flex bison python3-venv dpkg-dev
	qemu-system-data seabios
	linux-headers-amd64 linux-source-6.1
	busybox-static cpio gzip kmod xz-utils zstd
	socat strace
	python3-sphinx perl	# make docs (and linux-source-6.1's kernel-doc)
	gnuplot-nox		# make bench: the MPI curves (build/bench/mpi.png)
	libhugetlbfs0 libhugetlbfs-dev	# huge pages as Cray programs get them
)

if [ "$(id -u)" -ne 0 ]; then
	echo "setup: must run as root (apt-get install)" >&2
	exit 1
fi

# apt-get source qemu needs a deb-src entry for bookworm.
need_src=1
if grep -rqsE '^(deb-src|Types:.*deb-src)' /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null; then
	need_src=0
fi
# Mirror the machine's own bookworm "deb" entries (deb822 stanzas, or
# one-line entries) as "deb-src", so that the source package comes from
# the archive apt already uses.
mirror_deb_src() {
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk 'BEGIN { RS = ""; ORS = "\n\n" }
		     /(^|\n)Types:[ \t]*(deb-src[ \t]+)?deb([ \t]|\n|$)/ &&
		     /Suites:[^\n]*bookworm/ &&
		     !/Suites:[^\n]*security/ {
			sub(/Types:[^\n]*/, "Types: deb-src"); print
		     }' "$f"
	done
	if [ -f /etc/apt/sources.list ]; then
		awk '$1 == "deb" && $0 ~ / bookworm / {
			$1 = "deb-src"; print "# one-line entry"; print
		     }' /etc/apt/sources.list
	fi
}
if [ "$need_src" -eq 1 ]; then
	entries=$(mirror_deb_src)
	if [ -z "$entries" ]; then
		echo "setup: no bookworm 'deb' entry in /etc/apt to mirror as deb-src" >&2
		exit 1
	fi
	if grep -q '^# one-line entry' <<<"$entries"; then
		grep -v '^# one-line entry' <<<"$entries" |
			grep '^deb-src ' >/etc/apt/sources.list.d/vgemini-src.list
	fi
	grep -v '^# one-line entry' <<<"$entries" | grep -v '^deb-src ' |
		cat -s >/etc/apt/sources.list.d/vgemini-src.sources
	[ -s /etc/apt/sources.list.d/vgemini-src.sources ] ||
		rm -f /etc/apt/sources.list.d/vgemini-src.sources
fi

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

stamp=/var/lib/apt/periodic/vgemini-update-stamp
if [ "${#missing[@]}" -gt 0 ] || [ "$need_src" -eq 1 ] || [ ! -e "$stamp" ]; then
	echo "setup: apt-get update"
	apt-get update -qq
	mkdir -p "$(dirname "$stamp")" && touch "$stamp"
fi
if [ "${#missing[@]}" -gt 0 ]; then
	echo "setup: installing ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# The unprivileged host user every QEMU runs as when the launcher runs as
# root (qemu -runas; Documentation/security.rst).
if ! getent passwd vgemini >/dev/null; then
	echo "setup: adding the system user vgemini (QEMU runs as it)"
	useradd --system --user-group --no-create-home --home-dir /nonexistent \
		--shell /usr/sbin/nologin vgemini
fi
echo "setup: packages ready"
