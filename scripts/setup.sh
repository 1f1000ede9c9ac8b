#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Install every Debian package vgemini needs. Idempotent; skips apt when
# everything is already present.
set -euo pipefail

PKGS=(
	build-essential pkg-config git python3 ca-certificates
	ninja-build meson libglib2.0-dev libpixman-1-dev libfdt-dev
	flex bison python3-venv dpkg-dev
	qemu-system-data seabios
	linux-headers-amd64 linux-source-6.1
	busybox-static cpio gzip kmod xz-utils zstd
	socat strace
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
if [ "$need_src" -eq 1 ]; then
	cat >/etc/apt/sources.list.d/vgemini-src.sources <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
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
echo "setup: packages ready"
