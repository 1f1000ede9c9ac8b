#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Fetch QEMU's Debian source package, overlay the cray-gemini device and
# build a small x86_64-softmmu QEMU with it.  Incremental: a second run
# only rebuilds what changed under qemu-device/ or uapi/.
#
# Layout under build/qemu/:
#   qemu-<ver>/            Debian's QEMU source, patched, with the overlay:
#     hw/vgemini/qemu-device -> <repo>/qemu-device   (symlink)
#     hw/vgemini/uapi        -> <repo>/uapi           (symlink)
#     tests/qtest/cray-gemini-test.c -> <repo>/qemu-device/qemu/tests/...
#   build/                 the meson build directory
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
OUT=$REPO/build/qemu
BUILD=$OUT/build
JOBS=${JOBS:-$(nproc)}
mkdir -p "$OUT"

src=$(find "$OUT" -maxdepth 1 -type d -name 'qemu-*' | head -n 1)
if [ -z "$src" ] || [ ! -x "$src/configure" ]; then
	echo "build-qemu: fetching QEMU's Debian source package"
	(cd "$OUT" && apt-get source -qq qemu >"$OUT/apt-source.log" 2>&1) || {
		cat "$OUT/apt-source.log" >&2
		echo "build-qemu: 'apt-get source qemu' failed (is a deb-src entry set? run 'make setup')" >&2
		exit 1
	}
	src=$(find "$OUT" -maxdepth 1 -type d -name 'qemu-*' | head -n 1)
fi

# Overlay: link our folders into the tree and hook them into its build.
# Each hook is added once, so this step can run every time.
overlay() {
	mkdir -p "$src/hw/vgemini"
	ln -sfn "$REPO/qemu-device" "$src/hw/vgemini/qemu-device"
	ln -sfn "$REPO/uapi" "$src/hw/vgemini/uapi"
	ln -sfn "$REPO/qemu-device/qemu/tests/cray-gemini-test.c" \
		"$src/tests/qtest/cray-gemini-test.c"

	grep -q "vgemini/qemu-device/qemu" "$src/hw/meson.build" ||
		echo "subdir('vgemini/qemu-device/qemu')" >>"$src/hw/meson.build"
	grep -q "vgemini/qemu-device/qemu" "$src/hw/Kconfig" ||
		echo "source vgemini/qemu-device/qemu/Kconfig" >>"$src/hw/Kconfig"
	grep -q "hw/vgemini/qemu-device/qemu" "$src/meson.build" ||
		sed -i "s|^    'hw/misc',\$|    'hw/misc',\n    'hw/vgemini/qemu-device/qemu',|" "$src/meson.build"
	grep -q "hw/vgemini/qemu-device/qemu" "$src/meson.build" || {
		echo "build-qemu: could not hook trace events into $src/meson.build" >&2
		exit 1
	}
	grep -q "cray-gemini-test" "$src/tests/qtest/meson.build" ||
		sed -i "s|^qtests_x86_64 = qtests_i386\$|qtests_x86_64 = qtests_i386 + \\\\\n  (config_all_devices.has_key('CONFIG_CRAY_GEMINI') ? ['cray-gemini-test'] : [])|" \
			"$src/tests/qtest/meson.build"
	grep -q "cray-gemini-test" "$src/tests/qtest/meson.build" || {
		echo "build-qemu: could not hook the qtest into $src/tests/qtest/meson.build" >&2
		exit 1
	}
}
if [ -f "$REPO/qemu-device/qemu/meson.build" ]; then
	overlay
fi

# shellcheck source=scripts/qemu-configure.sh
. "$REPO/scripts/qemu-configure.sh"
qemu_configure "$src" "$BUILD" "$OUT/configure.log" || {
	echo "build-qemu: configure failed, see $OUT/configure.log" >&2
	exit 1
}

# Let meson regenerate first, so that a new overlay's targets are known.
ninja -C "$BUILD" build.ninja >"$OUT/ninja.log" 2>&1 || {
	tail -n 30 "$OUT/ninja.log" >&2
	exit 1
}
targets=(qemu-system-x86_64)
if grep -q "cray-gemini-test" "$BUILD/build.ninja" 2>/dev/null; then
	targets+=(tests/qtest/cray-gemini-test)
fi
echo "build-qemu: building ${targets[*]}"
ninja -C "$BUILD" -j "$JOBS" "${targets[@]}" >>"$OUT/ninja.log" 2>&1 || {
	grep -E -A5 'error|FAILED' "$OUT/ninja.log" | head -n 60 >&2
	echo "build-qemu: build failed, see $OUT/ninja.log" >&2
	exit 1
}
# QEMU run from its build tree looks for firmware in its qemu-bundle:
# link in Debian's SeaBIOS and option ROMs (the source package ships none).
fw=$BUILD/qemu-bundle/usr/local/share/qemu
mkdir -p "$fw"
for f in /usr/share/seabios/* /usr/share/qemu/*; do
	if [ -f "$f" ] && [ ! -e "$fw/$(basename "$f")" ]; then
		ln -s "$f" "$fw/$(basename "$f")"
	fi
done
echo "build-qemu: $BUILD/qemu-system-x86_64"
