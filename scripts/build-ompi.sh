#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Fetch Open MPI's Debian source package and build it as for a Cray XE
# (btl/ugni, Cray PMI, ALPS) against vgemini's libraries, which configure
# finds only through the pkg-config modules a Cray offers, in
# build/lib/pkgconfig ("make lib" first).  Open MPI's source is built, never
# patched: what fails is fixed in our libraries.  Incremental: a second
# run configures again only when the options, the platform files or the
# pkg-config modules changed, and make rebuilds only what changed.
#
# Layout under build/ompi/:
#   openmpi_<ver>*    Debian's source package, as apt fetched it
#   upstream/openmpi-<ver>/  its upstream tarball, unpacked
#   build/            the build directory (out of the source tree)
#   install/          the installation: bin/ompi_info, bin/mpicc,
#                     lib/libmpi.so, lib/openmpi/mca_*.so, ...
#   *.log             each step's output
#
# The options are those of lib/ompi/vgemini-xe (a platform file after
# LANL's Cray XE6 one); LDFLAGS adds build/lib to the run path of every
# library and component, so that they find libugni.so.1, libpmi.so.1 and
# the ALPS libraries without LD_LIBRARY_PATH: the guests see the host's
# /usr and the repository at the same paths.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
OUT=$REPO/build/ompi
BUILD=$OUT/build
PREFIX=$OUT/install
LIB_OUT=$REPO/build/lib
PLATFORM=$REPO/lib/ompi/vgemini-xe
JOBS=${JOBS:-$(nproc)}
MODULES=(cray-ugni cray-pmi cray-alpslli cray-alpsutil cray-alps
	cray-wlm_detect)
export PKG_CONFIG_PATH=$LIB_OUT/pkgconfig
mkdir -p "$OUT"

fail() {
	echo "build-ompi: $*" >&2
	exit 1
}

# The last lines of a step's log, and the step's name.
step_failed() {
	tail -n "${3:-30}" "$2" >&2
	fail "$1 failed, see $2"
}

for m in "${MODULES[@]}"; do
	pkg-config --exists "$m" ||
		fail "pkg-config module $m not found in $PKG_CONFIG_PATH (run 'make lib')"
done

# The upstream release tarball that Debian's source package carries
# (openmpi_<ver>.orig.tar.xz, its hashes checked by apt against the .dsc),
# without Debian's patches: those touch only other architectures, man
# pages, Fortran wrappers, the library directory's name and the build's
# verbosity, and applying them means regenerating the build system
# (autogen.pl: about 16 minutes on 2 cores).
src=$OUT/upstream/$(ls "$OUT" 2>/dev/null |
	sed -n 's/^openmpi_\(.*\)\.orig\.tar\.xz$/openmpi-\1/p' | head -n 1)
if [ "$src" = "$OUT/upstream/" ] || [ ! -f "$src/configure" ]; then
	echo "build-ompi: fetching Open MPI's Debian source package"
	(cd "$OUT" && apt-get source --download-only -qq openmpi \
		>"$OUT/apt-source.log" 2>&1) || {
		cat "$OUT/apt-source.log" >&2
		fail "'apt-get source openmpi' failed" \
			"(is a deb-src entry set? run 'make setup')"
	}
	tarball=$(ls "$OUT"/openmpi_*.orig.tar.xz | head -n 1)
	rm -rf "$OUT/upstream"
	mkdir -p "$OUT/upstream"
	tar -C "$OUT/upstream" -xf "$tarball" ||
		fail "cannot unpack $tarball"
	src=$(find "$OUT/upstream" -maxdepth 1 -type d -name 'openmpi-*' |
		head -n 1)
	[ -f "$src/configure" ] || fail "$tarball has no configure script"
fi

args=(
	--prefix="$PREFIX"
	--with-platform="$PLATFORM"
	LDFLAGS="-Wl,-rpath,$LIB_OUT"
)
# Configure again when any of these change: the source, the options, the
# platform files, and what the pkg-config modules say.
key=$( {
	printf '%s\n' "$src" "${args[@]}"
	cat "$PLATFORM" "$PLATFORM.conf"
	for m in "${MODULES[@]}"; do
		pkg-config --modversion --cflags --libs --static "$m"
	done
} | sha256sum | cut -d' ' -f1)
if [ ! -f "$BUILD/config.status" ] ||
   [ "$(cat "$BUILD/.vgemini-config" 2>/dev/null)" != "$key" ]; then
	echo "build-ompi: configuring in $BUILD (log $OUT/configure.log)"
	rm -rf "$BUILD"
	mkdir -p "$BUILD"
	(cd "$BUILD" && "$src/configure" "${args[@]}") >"$OUT/configure.log" 2>&1 ||
		step_failed configure "$OUT/configure.log" 40
	echo "$key" >"$BUILD/.vgemini-config"
fi

echo "build-ompi: building with $JOBS jobs (log $OUT/make.log)"
make -C "$BUILD" -j "$JOBS" >"$OUT/make.log" 2>&1 || {
	grep -E -B2 -A8 'error:|Error [0-9]' "$OUT/make.log" | head -n 60 >&2
	fail "make failed, see $OUT/make.log"
}
make -C "$BUILD" install >"$OUT/install.log" 2>&1 ||
	step_failed "make install" "$OUT/install.log"

echo "build-ompi: $PREFIX; its Cray components:"
"$PREFIX/bin/ompi_info" | grep -i "ugni\|cray\|alps" || true
