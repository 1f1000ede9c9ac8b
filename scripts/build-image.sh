#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build the vgemini guest image: build/image/vmlinuz, build/image/vmlinux (the
# same kernel as an ELF file, which the launcher boots at its PVH entry, so
# that no guest decompresses it) and build/image/initrd.img (a gzip'd cpio
# initramfs with busybox, /init, the command agent, kgni-job, ipogif-up, the
# tools of guest/bench/, kgni.ko, the kernel API's test client
# kgni_ktest.ko, ipogif.ko, the selftests, the job programs of lib/ and the
# few kernel modules the guest needs).
#
# The kernel is Debian's own, the same version as the installed
# linux-headers-amd64 (which the module is built against).  Its package is
# downloaded into build/image/cache/ and unpacked there; nothing is installed
# on the host.
#
# Usage: scripts/build-image.sh [--kgni FILE | --no-kgni]
#            [--ktest FILE | --no-ktest] [--ipogif FILE | --no-ipogif]
#            [--selftests DIR | --no-selftests] [--lib DIR | --no-lib]
#            [--extra SRC:/DST]... [--force]
# Environment (same meaning): KGNI_KO, KTEST_KO, IPOGIF_KO, SELFTESTS_DIR,
# LIB_GUEST
# (each may be "none"), EXTRA_FILES (space separated SRC:/DST pairs),
# IMAGE_DIR (default build/image).  Without --kgni/KGNI_KO, driver/kgni.ko
# is used if it exists; without --ktest/KTEST_KO, build/ktest/kgni_ktest.ko
# (made by `make ktest`; installed as /lib/modules/kgni_ktest.ko, loaded
# only by the selftest kapi_test) is used if it exists; without
# --ipogif/IPOGIF_KO, build/ipogif/ipogif.ko (made by `make ipogif`;
# installed as /lib/modules/ipogif.ko, loaded by /init with
# vgemini.ipogif=1) is used if it exists; without
# --selftests/SELFTESTS_DIR, build/selftests is used if it exists; without
# --lib/LIB_GUEST, build/lib/guest (a tree made by lib/lib.mk, copied onto
# the image's root: usr/bin/pmi_test) is used if it exists.
#
# The image is rebuilt only when an input changed (a hash of every input is
# kept in IMAGE_DIR/.stamp).  Dynamically linked programs get the shared
# libraries they need copied from the host (same Debian release).
#
# The image carries only the kernel modules that boot needs before 9p is
# up; the whole module tree of the kernel package, indexed by depmod,
# stays unpacked in the cache and IMAGE_DIR/modules links to it: "vgemini
# up" shares it read-only with every guest, whose /init mounts it over
# /lib/modules/KVER, so that modprobe finds any module of the kernel.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
cd "$REPO"

KGNI_KO=${KGNI_KO-}
KTEST_KO=${KTEST_KO-}
IPOGIF_KO=${IPOGIF_KO-}
SELFTESTS_DIR=${SELFTESTS_DIR-}
LIB_GUEST=${LIB_GUEST-}
EXTRA_FILES=${EXTRA_FILES-}
IMAGE_DIR=${IMAGE_DIR:-build/image}
FORCE=0

die() { echo "build-image: $*" >&2; exit 1; }
say() { echo "build-image: $*"; }

while [ $# -gt 0 ]; do
	case "$1" in
	--kgni) KGNI_KO=${2:?--kgni needs a file}; shift 2 ;;
	--kgni=*) KGNI_KO=${1#*=}; shift ;;
	--ktest) KTEST_KO=${2:?--ktest needs a file}; shift 2 ;;
	--ktest=*) KTEST_KO=${1#*=}; shift ;;
	--no-ktest) KTEST_KO=none; shift ;;
	--ipogif) IPOGIF_KO=${2:?--ipogif needs a file}; shift 2 ;;
	--ipogif=*) IPOGIF_KO=${1#*=}; shift ;;
	--no-ipogif) IPOGIF_KO=none; shift ;;
	--selftests) SELFTESTS_DIR=${2:?--selftests needs a directory}; shift 2 ;;
	--selftests=*) SELFTESTS_DIR=${1#*=}; shift ;;
	--lib) LIB_GUEST=${2:?--lib needs a directory}; shift 2 ;;
	--lib=*) LIB_GUEST=${1#*=}; shift ;;
	--no-lib) LIB_GUEST=none; shift ;;
	--extra) EXTRA_FILES="$EXTRA_FILES ${2:?--extra needs SRC:DST}"; shift 2 ;;
	--extra=*) EXTRA_FILES="$EXTRA_FILES ${1#*=}"; shift ;;
	--no-kgni) KGNI_KO=none; shift ;;
	--no-selftests) SELFTESTS_DIR=none; shift ;;
	--force) FORCE=1; shift ;;
	-h|--help) sed -n '3,43p' "$REPO/scripts/build-image.sh" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
done

kgni_explicit=1
if [ "$KGNI_KO" = none ]; then
	KGNI_KO=
elif [ -z "$KGNI_KO" ]; then
	kgni_explicit=0
	[ -f driver/kgni.ko ] && KGNI_KO=driver/kgni.ko
fi
ktest_explicit=1
if [ "$KTEST_KO" = none ]; then
	KTEST_KO=
elif [ -z "$KTEST_KO" ]; then
	ktest_explicit=0
	[ -f build/ktest/kgni_ktest.ko ] && KTEST_KO=build/ktest/kgni_ktest.ko
fi
ipogif_explicit=1
if [ "$IPOGIF_KO" = none ]; then
	IPOGIF_KO=
elif [ -z "$IPOGIF_KO" ]; then
	ipogif_explicit=0
	[ -f build/ipogif/ipogif.ko ] && IPOGIF_KO=build/ipogif/ipogif.ko
fi
st_explicit=1
if [ "$SELFTESTS_DIR" = none ]; then
	SELFTESTS_DIR=
elif [ -z "$SELFTESTS_DIR" ]; then
	st_explicit=0
	[ -d build/selftests ] && SELFTESTS_DIR=build/selftests
fi
lib_explicit=1
if [ "$LIB_GUEST" = none ]; then
	LIB_GUEST=
elif [ -z "$LIB_GUEST" ]; then
	lib_explicit=0
	[ -d build/lib/guest ] && LIB_GUEST=build/lib/guest
fi
if [ -n "$LIB_GUEST" ] && [ ! -d "$LIB_GUEST" ]; then
	die "lib directory '$LIB_GUEST' not found"
fi
if [ -n "$KGNI_KO" ] && [ ! -f "$KGNI_KO" ]; then
	die "kgni module '$KGNI_KO' not found"
fi
if [ -n "$KTEST_KO" ] && [ ! -f "$KTEST_KO" ]; then
	die "kgni_ktest module '$KTEST_KO' not found"
fi
if [ -n "$IPOGIF_KO" ] && [ ! -f "$IPOGIF_KO" ]; then
	die "ipogif module '$IPOGIF_KO' not found"
fi
if [ -n "$SELFTESTS_DIR" ] && [ ! -d "$SELFTESTS_DIR" ]; then
	die "selftests directory '$SELFTESTS_DIR' not found"
fi
for t in busybox cpio gzip depmod modinfo dpkg-deb dpkg-query apt-get gcc strip sha256sum ldd; do
	command -v "$t" >/dev/null || die "'$t' missing: run scripts/setup.sh"
done
BUSYBOX=$(command -v busybox)
LC_ALL=C ldd "$BUSYBOX" >/dev/null 2>&1 &&
	die "$BUSYBOX is not static: install busybox-static"

# --- The kernel: the version of the installed headers -----------------------
dep=$(dpkg-query -W -f='${Depends}' linux-headers-amd64 2>/dev/null) ||
	die "linux-headers-amd64 not installed: run scripts/setup.sh"
# "linux-headers-6.1.0-56-amd64 (= 6.1.192-2)"
KVER=$(sed -n 's/^linux-headers-\([^ ,]*\).*/\1/p' <<<"$dep")
PKGVER=$(sed -n 's/^[^(]*(= \([^)]*\)).*/\1/p' <<<"$dep")
[ -n "$KVER" ] || die "cannot parse the kernel version from '$dep'"
IMGPKG=linux-image-$KVER

CACHE=${IMAGE_CACHE:-build/image/cache}
mkdir -p "$CACHE"
first_deb() {
	local d
	for d in "$CACHE/${IMGPKG}"_*.deb; do
		[ -f "$d" ] && { echo "$d"; return 0; }
	done
	return 0	# none yet: an empty answer, not a failure under set -e
}
deb=$(first_deb)
if [ -z "$deb" ]; then
	say "downloading $IMGPKG${PKGVER:+ $PKGVER}"
	( cd "$CACHE" &&
	  { apt-get download -q -o APT::Sandbox::User=root "$IMGPKG${PKGVER:+=$PKGVER}" ||
	    apt-get download -q -o APT::Sandbox::User=root "$IMGPKG"; } ) ||
		die "apt-get download $IMGPKG failed"
	deb=$(first_deb)
	[ -n "$deb" ] || die "apt-get download left no $IMGPKG .deb in $CACHE"
fi
KROOT=$CACHE/$IMGPKG
KMODDIR=$KROOT/lib/modules/$KVER
VMLINUZ=$KROOT/boot/vmlinuz-$KVER
unpack() {
	say "unpacking $(basename "$deb")"
	rm -rf "$KROOT"
	mkdir -p "$KROOT"
	dpkg-deb -x "$deb" "$KROOT"
	[ -d "$KMODDIR" ] || die "no lib/modules/$KVER in $deb"
	[ -f "$VMLINUZ" ] || die "no boot/vmlinuz-$KVER in $deb"
	touch "$KROOT/.unpacked"
	unpacked=1
	index_modules
}
# modules.dep and the other indexes of the whole tree (the package has
# none: its postinst runs depmod), for the guests' modprobe.
index_modules() {
	say "indexing the kernel's modules (depmod -b $KROOT $KVER)"
	depmod -b "$KROOT" "$KVER" || die "depmod of $KMODDIR failed"
}
unpacked=0
if [ ! -e "$KROOT/.unpacked" ] || [ "$deb" -nt "$KROOT/.unpacked" ] ||
   [ ! -f "$VMLINUZ" ] || [ ! -f "$KMODDIR/modules.order" ] ||
   [ ! -f "$KMODDIR/modules.builtin" ]; then
	unpack
fi
[ -f "$KMODDIR/modules.dep" ] || index_modules
# What "vgemini up" shares with the guests as their /lib/modules/KVER.
mkdir -p "$IMAGE_DIR"
ln -sfn "$(realpath "$KMODDIR")" "$IMAGE_DIR/modules"

for ko in ${KGNI_KO:+"$KGNI_KO"} ${KTEST_KO:+"$KTEST_KO"} ${IPOGIF_KO:+"$IPOGIF_KO"}; do
	vm=$(modinfo -F vermagic "$ko" 2>/dev/null | awk '{print $1}')
	[ "$vm" = "$KVER" ] ||
		die "$ko is built for '${vm:-?}', the guest kernel is $KVER"
done

# --- Up to date? -----------------------------------------------------------
GUEST=guest
# The command agent's sources (its header: $GUEST/agent.h).
AGENT_SRC=("$GUEST"/agent.c "$GUEST"/agent_frame.c "$GUEST"/agent_exec.c)
# The baselines of `make bench` that run in the guests, one file each, and
# the ipogif test's checkers (a TCP stream and a ping checked byte for
# byte).
BENCH_SRC=("$GUEST"/bench/udp_pingpong.c "$GUEST"/bench/edu_store.c
	"$GUEST"/bench/tcp_stream.c "$GUEST"/bench/icmp_echo.c)
# and the helpers they share
BENCH_HDR=("$GUEST"/bench/bench_util.h "$GUEST"/bench/bench_net.h)
hash_inputs() {
	{
		echo "kver $KVER $(basename "$deb")"
		sha256sum scripts/build-image.sh scripts/extract-vmlinux.py \
			"$GUEST"/init "$GUEST"/ipogif-up "${AGENT_SRC[@]}" \
			"$GUEST"/agent.h "$GUEST"/kgni-job.c uapi/kgni_ioctl.h \
			uapi/kgni_ioctl_diag.h uapi/kgni_ioctl_dp.h \
			uapi/kgni_ioctl_dgram.h uapi/vgemini_agent.h uapi/vgemini_le.h "$BUSYBOX" \
			"${BENCH_SRC[@]}" "${BENCH_HDR[@]}"
		[ -n "$KGNI_KO" ] && sha256sum "$KGNI_KO"
		[ -n "$KTEST_KO" ] && echo ktest && sha256sum "$KTEST_KO"
		[ -n "$IPOGIF_KO" ] && echo ipogif && sha256sum "$IPOGIF_KO"
		if [ -n "$SELFTESTS_DIR" ]; then
			(cd "$SELFTESTS_DIR" && find . -type f -print0 | sort -z |
				xargs -0r sha256sum)
		fi
		if [ -n "$LIB_GUEST" ]; then
			echo lib
			(cd "$LIB_GUEST" && find . -type f -print0 | sort -z |
				xargs -0r sha256sum)
		fi
		for e in $EXTRA_FILES; do
			echo "extra $e"
			src=${e%%:*}
			if [ -d "$src" ]; then
				(cd "$src" && find . -type f -print0 | sort -z |
					xargs -0r sha256sum)
			else
				sha256sum "$src"
			fi
		done
	} | sha256sum | cut -d' ' -f1
}
for e in $EXTRA_FILES; do
	case "$e" in *:/*) ;; *) die "--extra '$e': want SRC:/guest/path" ;; esac
	[ -e "${e%%:*}" ] || die "--extra '$e': ${e%%:*} not found"
done
STAMP=$IMAGE_DIR/.stamp
want=$(hash_inputs)
if [ "$FORCE" = 0 ] && [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$want" ] &&
   [ -f "$IMAGE_DIR/vmlinuz" ] && [ -f "$IMAGE_DIR/initrd.img" ]; then
	say "image up to date ($IMAGE_DIR)"
	exit 0
fi

# --- Stage the root file system ---------------------------------------------
ROOT=$IMAGE_DIR/root
rm -rf "$ROOT"
mkdir -p "$ROOT"/{bin,sbin,usr/bin,usr/sbin,lib/modules,proc,sys,dev,run,tmp,root,etc,selftests}
chmod 1777 "$ROOT/tmp"
# The kernel opens /dev/console for /init before devtmpfs is mounted.
mknod -m 600 "$ROOT/dev/console" c 5 1 2>/dev/null ||
	say "note: cannot create dev/console (not root); early boot messages of /init are lost"

cp "$BUSYBOX" "$ROOT/bin/busybox"
for applet in $("$BUSYBOX" --list-full); do
	[ -e "$ROOT/$applet" ] || ln -s /bin/busybox "$ROOT/$applet"
done

install -m 0755 "$GUEST/init" "$ROOT/init"
# ipogif0's set-up, run by /init with vgemini.ipogif=1 (and by hand after
# an rmmod of ipogif)
install -m 0755 "$GUEST/ipogif-up" "$ROOT/sbin/ipogif-up"
gcc -static -O2 -Wall -Wextra -Werror -s -Iuapi -o "$ROOT/sbin/vgemini-agent" \
	"${AGENT_SRC[@]}"
# The job domain tool "vgemini run" runs on every node (Documentation/jobs.rst).
gcc -static -O2 -Wall -Wextra -Werror -s -Iuapi -o "$ROOT/usr/bin/kgni-job" \
	"$GUEST/kgni-job.c"
# udp_pingpong (over the Ethernet segment of "vgemini up --net"),
# edu_store (the edu device of "vgemini up --edu"), tcp_stream and
# icmp_echo (over ipogif0 of "vgemini up --ipogif").
for src in "${BENCH_SRC[@]}"; do
	gcc -static -O2 -Wall -Wextra -Werror -s \
		-o "$ROOT/usr/bin/$(basename "$src" .c)" "$src"
done

cat >"$ROOT/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/bin/sh
EOF
cat >"$ROOT/etc/group" <<'EOF'
root:x:0:
EOF

# Kernel modules: virtio_console, virtio_pci, 9p and virtio_net with their
# dependencies, and whatever kgni.ko depends on; depmod makes busybox
# modprobe work.  Only these: what boot needs before the guest mounts the
# whole tree (IMAGE_DIR/modules, shared by "vgemini up") over this
# directory, and all that a guest of "vgemini up --no-share" has.
declare -A seen=()
mods=()
find_mod() {
	local f
	f=$(find "$KMODDIR/kernel" -name "$1.ko*" -print -quit)
	[ -n "$f" ] || f=$(find "$KMODDIR/kernel" -name "${1//_/-}.ko*" -print -quit)
	echo "$f"
}
add_mod() {
	local m=${1//-/_} f d
	[ -n "$m" ] && [ -z "${seen[$m]-}" ] || return 0
	seen[$m]=1
	if grep -qE "/${m}\.ko" "$KMODDIR/modules.builtin"; then
		return 0
	fi
	f=$(find_mod "$m")
	if [ -z "$f" ] && [ "$unpacked" = 0 ]; then
		unpack		# the cache lost files: unpack it again
		f=$(find_mod "$m")
	fi
	[ -n "$f" ] || die "kernel module $m not found in $IMGPKG"
	for d in $(modinfo -F depends "$f" | tr ',' ' '); do
		add_mod "$d"
	done
	mods+=("$f")
}
add_mod virtio_pci
add_mod virtio_console
# virtio-9p: the host's directories that "vgemini up" shares
add_mod 9pnet_virtio
add_mod 9p
# virtio-net: the Ethernet segment of "vgemini up --net" (the baselines)
add_mod virtio_net
if [ -n "$KGNI_KO" ]; then
	for d in $(modinfo -F depends "$KGNI_KO" | tr ',' ' '); do
		add_mod "$d"
	done
fi
GMODDIR=$ROOT/lib/modules/$KVER
mkdir -p "$GMODDIR"
for f in "${mods[@]}"; do
	rel=${f#"$KMODDIR"/}
	mkdir -p "$GMODDIR/$(dirname "$rel")"
	cp "$f" "$GMODDIR/$rel"
done
cp "$KMODDIR"/modules.builtin "$KMODDIR"/modules.builtin.modinfo "$KMODDIR"/modules.order "$GMODDIR/"
depmod -b "$ROOT" "$KVER"

# Our modules go in without their debug information (kgni.ko 6.7 MB ->
# under 1 MB): the root file system lives in every guest's RAM, and a job
# that pins 128 MiB of a 256 MiB guest (ugni_rdma) needs that room.  The
# build trees keep the full modules for decoding.
if [ -n "$KGNI_KO" ]; then
	strip --strip-debug -o "$ROOT/lib/modules/kgni.ko" "$KGNI_KO"
	say "kgni: $KGNI_KO"
elif [ "$kgni_explicit" = 0 ]; then
	say "kgni: none (driver/kgni.ko not built; the image has no kgni module)"
fi
# Not loaded at boot: selftests/kgni/kapi_test.c loads and unloads it.
if [ -n "$KTEST_KO" ]; then
	strip --strip-debug -o "$ROOT/lib/modules/kgni_ktest.ko" "$KTEST_KO"
	say "ktest: $KTEST_KO"
elif [ "$ktest_explicit" = 0 ]; then
	say "ktest: none (build/ktest/kgni_ktest.ko not built: make ktest)"
fi
# Loaded by /init when the command line says vgemini.ipogif=1.
if [ -n "$IPOGIF_KO" ]; then
	strip --strip-debug -o "$ROOT/lib/modules/ipogif.ko" "$IPOGIF_KO"
	say "ipogif: $IPOGIF_KO"
elif [ "$ipogif_explicit" = 0 ]; then
	say "ipogif: none (build/ipogif/ipogif.ko not built: make ipogif)"
fi
if [ -n "$SELFTESTS_DIR" ]; then
	cp -a "$SELFTESTS_DIR"/. "$ROOT/selftests/"
	# Debug information stays on the host; symbols stay for backtraces.
	find "$ROOT/selftests" -type f -perm -u+x -print0 |
		while IFS= read -r -d '' f; do
			if head -c 4 "$f" | grep -q ELF; then
				strip --strip-debug "$f"
			fi
		done
	say "selftests: $SELFTESTS_DIR ($(find "$ROOT/selftests" -type f | wc -l) files)"
elif [ "$st_explicit" = 0 ]; then
	say "selftests: none (build/selftests does not exist)"
fi
if [ -n "$LIB_GUEST" ]; then
	# Files only (directories are made as needed): the tree may not
	# replace the image's own directories or links.
	(cd "$LIB_GUEST" && find . -type f -print0) |
		while IFS= read -r -d '' f; do
			mkdir -p "$ROOT/$(dirname "$f")"
			cp --remove-destination "$LIB_GUEST/$f" "$ROOT/$f"
			if head -c 4 "$ROOT/$f" | grep -q ELF; then
				strip --strip-debug "$ROOT/$f"
			fi
		done
	say "lib: $LIB_GUEST ($(find "$LIB_GUEST" -type f | wc -l) files)"
elif [ "$lib_explicit" = 0 ]; then
	say "lib: none (build/lib/guest does not exist)"
fi
for e in $EXTRA_FILES; do
	src=${e%%:*} dst=${e#*:}
	mkdir -p "$ROOT$(dirname "$dst")"
	cp -a "$src" "$ROOT$dst"
	say "extra: $src -> $dst"
done

# Shared libraries of dynamically linked programs (selftests, extras).
copy_lib() {
	local l=$1 real
	[ -e "$ROOT$l" ] && return 0
	real=$(readlink -f "$l")
	mkdir -p "$ROOT$(dirname "$l")"
	cp "$real" "$ROOT$l"
}
while IFS= read -r -d '' f; do
	head -c 4 "$f" | grep -q 'ELF' || continue
	LC_ALL=C ldd "$f" >/dev/null 2>&1 || continue	# static or not ours
	while read -r line; do
		case "$line" in
		*"not found"*) die "$f: shared library ${line%% *} not found on the host" ;;
		*"=> /"*) lib=${line#*=> }; copy_lib "${lib%% (*}" ;;
		/*) copy_lib "${line%% (*}" ;;
		esac
	done < <(LC_ALL=C ldd "$f")
done < <(find "$ROOT/selftests" "$ROOT/usr" "$ROOT/opt" -type f -perm -u+x -print0 2>/dev/null)

# --- Pack -------------------------------------------------------------------
( cd "$ROOT" && find . -mindepth 1 -print0 | LC_ALL=C sort -z |
	cpio --null --create --format=newc --owner=0:0 --reproducible --quiet ) |
	gzip -9 -n >"$IMAGE_DIR/initrd.img.tmp"
mv "$IMAGE_DIR/initrd.img.tmp" "$IMAGE_DIR/initrd.img"
cp "$VMLINUZ" "$IMAGE_DIR/vmlinuz.tmp"
mv "$IMAGE_DIR/vmlinuz.tmp" "$IMAGE_DIR/vmlinuz"
# The ELF kernel inside, booted at its PVH entry: no decompression in the
# guest, which costs seconds of every boot under TCG.
rm -f "$IMAGE_DIR/vmlinux"
if python3 scripts/extract-vmlinux.py "$IMAGE_DIR/vmlinuz" \
	"$IMAGE_DIR/vmlinux.tmp"; then
	mv "$IMAGE_DIR/vmlinux.tmp" "$IMAGE_DIR/vmlinux"
else
	rm -f "$IMAGE_DIR/vmlinux.tmp"
	say "note: no PVH kernel extracted; guests boot the bzImage (slower)"
fi
echo "$KVER" >"$IMAGE_DIR/kernel-version"
echo "$want" >"$STAMP"
say "$IMAGE_DIR/vmlinuz ($KVER, $(du -k "$IMAGE_DIR/vmlinuz" | cut -f1) KiB)," \
	"$IMAGE_DIR/initrd.img ($(du -k "$IMAGE_DIR/initrd.img" | cut -f1) KiB)"
