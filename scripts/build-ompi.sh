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
#   openmpi-<ver>/    Debian's source, patched by Debian, its build system
#                     regenerated as Debian's rules do (autogen.pl; needs
#                     autoconf, automake and libtool)
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

src=$(find "$OUT" -maxdepth 1 -type d -name 'openmpi-*' | head -n 1)
if [ -z "$src" ] || [ ! -f "$src/autogen.pl" ]; then
	echo "build-ompi: fetching Open MPI's Debian source package"
	(cd "$OUT" && apt-get source -qq openmpi >"$OUT/apt-source.log" 2>&1) || {
		cat "$OUT/apt-source.log" >&2
		fail "'apt-get source openmpi' failed" \
			"(is a deb-src entry set? run 'make setup')"
	}
	src=$(find "$OUT" -maxdepth 1 -type d -name 'openmpi-*' | head -n 1)
fi

# Debian's patches change configure.ac and Makefile.am files: regenerate
# the build system once, as debian/rules does.
if [ ! -f "$src/.vgemini-autogen" ]; then
	for t in autoconf automake libtoolize autom4te; do
		command -v "$t" >/dev/null ||
			fail "$t not found: install autoconf, automake and libtool"
	done
	echo "build-ompi: regenerating the build system" \
		"(autogen.pl, log $OUT/autogen.log)"
	(cd "$src/config" &&
	 autom4te --language=m4sh opal_get_version.m4sh -o opal_get_version.sh &&
	 cd .. && ./autogen.pl --force) >"$OUT/autogen.log" 2>&1 ||
		step_failed autogen.pl "$OUT/autogen.log"
	touch "$src/.vgemini-autogen"
fi

args=(
	--prefix="$PREFIX"
	--with-platform="$PLATFORM"
	LDFLAGS="-Wl,-rpath,$LIB_OUT"
)
# Configure again when any of these change: the options, the platform
# files, and what the pkg-config modules say.
key=$( {
	printf '%s\n' "${args[@]}"
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
