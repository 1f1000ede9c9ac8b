# SPDX-License-Identifier: GPL-2.0-only
# Sourced by scripts/build-qemu.sh and scripts/qemu-fuzz.sh: the one list of
# QEMU configure options vgemini builds with, and configuring a build
# directory again only when its options changed.

# A small x86_64-softmmu QEMU: only what the launcher's machines use
# (virtio-9p shares the host's directories with the guests; seccomp for
# -sandbox, which the launcher always passes).
QEMU_CONFIG_ARGS=(
	--target-list=x86_64-softmmu
	--without-default-features
	--enable-fdt=system
	--enable-virtfs --enable-attr --enable-cap-ng
	--enable-seccomp
	--disable-docs
	--disable-werror
	--disable-install-blobs
	--with-git-submodules=ignore
)

# qemu_configure SRC BUILD LOG [EXTRA_OPTION...]: configure SRC's QEMU in
# BUILD with QEMU_CONFIG_ARGS and the extra options, unless BUILD was
# configured with exactly those (recorded in BUILD/.vgemini-config); says
# so when it configures.
# Non-zero, with configure's last lines on stderr, if configure fails.
qemu_configure() {
	local src=$1 build=$2 log=$3
	shift 3
	local args=("${QEMU_CONFIG_ARGS[@]}" "$@")

	if [ -f "$build/build.ninja" ] &&
	   [ "$(cat "$build/.vgemini-config" 2>/dev/null)" = "${args[*]}" ]; then
		return 0
	fi
	echo "configuring QEMU in $build (log $log)"
	rm -rf "$build"
	mkdir -p "$build"
	if ! (cd "$build" && "$src/configure" "${args[@]}" >"$log" 2>&1); then
		tail -n 30 "$log" >&2
		return 1
	fi
	echo "${args[*]}" >"$build/.vgemini-config"
}
