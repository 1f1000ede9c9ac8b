#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# `make bench-mpi` (and the end of `make bench`): Open MPI between two
# nodes of a 2x1x1 torus booted with --net.
#
# 1. Ping-pong latency and bandwidth over btl/ugni, next to the same
#    program over btl/tcp on the virtio-net Ethernet between the same two
#    VMs, in the same run (as Figures 5 and 6 of the Open MPI on Gemini
#    paper compare transports): selftests/mpi/mpi_pingpong (OSU-style,
#    1 B .. MAX bytes, default 4 MiB).  Rows in build/bench/mpi.json (as
#    make bench's), the curves in build/bench/mpi.png.
# 2. Where Open MPI switches protocol: for each size a job of 50 round
#    trips, the fabric's counters read around it (scripts/tests/mpi_lib.py
#    sweep): packets per round trip of each engine (FMA PUT, FMA GET, BTE
#    PUT, BTE GET) and VC0/VC1 traffic on the links, in
#    build/bench/mpi-protocols.tsv and build/bench/mpi-protocols.png, as
#    the counters paper showed Cray MPI's protocols by VC0 and VC1 traffic.
# 3. Many ranks next to two (selftests/mpi/mpi_coll on 2x2x2, btl/ugni,
#    one rank per node): P8, an 8-byte allreduce on 8 ranks next to an
#    8-byte ping-pong round trip on 2; P7, all-to-all of 1 MiB per pair
#    on 8 ranks, the bytes that cross between ranks per second, next to
#    the same on 2 ranks (one pair).  Rows in build/bench/mpi-coll.json.
#
# Open MPI is built by scripts/build-ompi.sh (make ompi) when missing.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
VGEMINI=$REPO/scripts/vgemini
OUT=$REPO/build/bench
OMPI=$REPO/build/ompi/install
MAX=${BENCH_MPI_MAX:-4194304}
export VGEMINI_FABRIC=${VGEMINI_FABRIC:-bench-mpi-$$}
mkdir -p "$OUT"
RESULTS=$OUT/mpi.tsv
: >"$RESULTS"

. "$REPO/scripts/bench-lib.sh"

[ -x "$OMPI/bin/mpicc" ] || "$REPO/scripts/build-ompi.sh"
command -v gnuplot >/dev/null || fail "gnuplot not found (run 'make setup')"
"$OMPI/bin/mpicc" -O2 -Wall -Wextra -Werror -o "$OUT/mpi_pingpong" \
	"$REPO/selftests/mpi/mpi_pingpong.c"

trap '"$VGEMINI" down >/dev/null 2>&1 || true' EXIT
"$VGEMINI" up --dims 2x1x1 --net >"$OUT/up-mpi.log" 2>&1 || {
	cat "$OUT/up-mpi.log"
	exit 1
}

# sweep NAME [VAR=VALUE...]: mpi_pingpong with those variables; its lines
# "size B latency_us X bandwidth_MBps Y" in $OUT/mpi-NAME.dat
sweep() {
	local name=$1
	shift
	(cd "$OUT" && env "$@" "$VGEMINI" run -n 2 --timeout 1500 ./mpi_pingpong \
		--max "$MAX") >"$OUT/mpi-$name.log" 2>&1 || {
		cat "$OUT/mpi-$name.log"
		fail "mpi_pingpong over $name failed"
	}
	sed -n 's/^\[0\] size \([0-9]*\) latency_us \([0-9.]*\) bandwidth_MBps \([0-9.]*\)$/\1 \2 \3/p' \
		"$OUT/mpi-$name.log" >"$OUT/mpi-$name.dat"
	[ -s "$OUT/mpi-$name.dat" ] || fail "no figures from mpi_pingpong over $name"
}
sweep ugni OMPI_MCA_btl=self,ugni
# The guests' Ethernet (vgemini up --net) is 10.200.0.0/16; no uGNI at all.
sweep tcp OMPI_MCA_btl=self,tcp OMPI_MCA_btl_tcp_if_include=10.200.0.0/16

echo "vgemini bench-mpi: Open MPI ping-pong between nodes 0 and 1 (1 hop), btl/ugni next to btl/tcp over virtio-net"
printf '%-4s %-44s %12s %-9s %12s %8s\n' "" "" "figure" "unit" "baseline" "ratio"
while read -r size lat bw; do
	read -r _ tlat tbw < <(awk -v s="$size" '$1 == s' "$OUT/mpi-tcp.dat")
	[ -n "${tlat:-}" ] || continue
	record MPI "latency, $size B" "$lat" us "btl/tcp over virtio-net" \
		"$tlat" "$(ratio "$lat" "$tlat")"
	record MPI "bandwidth, $size B" "$bw" MB/s "btl/tcp over virtio-net" \
		"$tbw" "$(ratio "$bw" "$tbw")"
done <"$OUT/mpi-ugni.dat"
write_json "$OUT/mpi.json" 2x1x1

# panels PNG TITLE: gnuplot with two log-log panels by message size; the
# panels' own lines come on stdin
panels() {
	{
		cat <<GP
set terminal png size 1200,480
set output "$1"
set multiplot layout 1,2 title "$2"
set logscale x 2
set format x "%.0b%BB"
set xlabel "message size"
set key top left
set grid
set logscale y 10
GP
		cat
		echo "unset multiplot"
	} | gnuplot
}

panels "$OUT/mpi.png" "Open MPI ping-pong between two vgemini nodes (TCG guests)" <<GP
set ylabel "latency (us)"
set title "latency (half round trip)"
plot "$OUT/mpi-ugni.dat" using 1:2 with linespoints title "btl/ugni", \
     "$OUT/mpi-tcp.dat" using 1:2 with linespoints title "btl/tcp, virtio-net"
set ylabel "bandwidth (MB/s)"
set title "bandwidth (window of 64)"
plot "$OUT/mpi-ugni.dat" using 1:3 with linespoints title "btl/ugni", \
     "$OUT/mpi-tcp.dat" using 1:3 with linespoints title "btl/tcp, virtio-net"
GP

echo "vgemini bench-mpi: the fabric's counters per round trip of each size (btl/ugni)"
"$REPO/scripts/tests/mpi_lib.py" sweep "$OUT/mpi_pingpong" \
	"$OUT/mpi-protocols.tsv" >"$OUT/mpi-protocols.log" 2>&1 || {
	cat "$OUT/mpi-protocols.log"
	fail "the protocol sweep failed"
}
grep -v "^# " "$OUT/mpi-protocols.tsv" | column -t

panels "$OUT/mpi-protocols.png" "Open MPI over btl/ugni: what one round trip costs the fabric, by message size" <<GP
set ylabel "packets per round trip"
set title "packets by engine (all NICs)"
plot "$OUT/mpi-protocols.tsv" using 1:(\$2 > 0 ? \$2 : 1/0) with linespoints title "FMA PUT (SMSG, eager)", \
     "" using 1:(\$3 > 0 ? \$3 : 1/0) with linespoints title "FMA GET", \
     "" using 1:(\$4 > 0 ? \$4 : 1/0) with linespoints title "BTE PUT", \
     "" using 1:(\$5 > 0 ? \$5 : 1/0) with linespoints title "BTE GET"
set ylabel "phits per round trip"
set title "link traffic (all ports)"
plot "$OUT/mpi-protocols.tsv" using 1:(\$7 > 0 ? \$7 : 1/0) with linespoints title "VC0 (requests)", \
     "" using 1:(\$9 > 0 ? \$9 : 1/0) with linespoints title "VC1 (responses)"
GP
# --- many ranks: P7 and P8 on 2x2x2 ----------------------------------------
"$OMPI/bin/mpicc" -O2 -Wall -Wextra -Werror -o "$OUT/mpi_coll" \
	"$REPO/selftests/mpi/mpi_coll.c"
"$VGEMINI" down >/dev/null 2>&1 || fail "down of the 2x1x1 torus failed"
"$VGEMINI" up --dims 2x2x2 >"$OUT/up-mpi-coll.log" 2>&1 || {
	cat "$OUT/up-mpi-coll.log"
	exit 1
}
# coll N: mpi_coll on N ranks, its output in $OUT/mpi-coll-N.log
coll() {
	(cd "$OUT" && OMPI_MCA_btl=self,ugni "$VGEMINI" run -n "$1" \
		--timeout 900 ./mpi_coll) >"$OUT/mpi-coll-$1.log" 2>&1 &&
		grep -q "^\[0\] mpi_coll: data checked" "$OUT/mpi-coll-$1.log" || {
		cat "$OUT/mpi-coll-$1.log"
		fail "mpi_coll on $1 ranks failed"
	}
}
# coll_value N KEY: the number after KEY in rank 0's output of coll N
coll_value() {
	sed -n "s/^\[0\] .*$2 \([0-9.]*\).*$/\1/p" "$OUT/mpi-coll-$1.log"
}
coll 2
coll 8
RESULTS=$OUT/mpi-coll.tsv
: >"$RESULTS"
echo "vgemini bench-mpi: many ranks next to two, Open MPI over btl/ugni on 2x2x2"
printf '%-4s %-44s %12s %-9s %12s %8s\n' "" "" "figure" "unit" "baseline" "ratio"
rt2=$(coll_value 2 round_trip_us)
ar8=$(coll_value 8 latency_us)
a2a2=$(coll_value 2 aggregate_MBps)
a2a8=$(coll_value 8 aggregate_MBps)
record P8 "allreduce of 8 B, 8 ranks" "$ar8" us \
	"ping-pong round trip of 8 B, 2 ranks" "$rt2" "$(ratio "$ar8" "$rt2")"
record P7 "all-to-all of 1 MiB per pair, 8 ranks" "$a2a8" MB/s \
	"the same, 2 ranks (one pair)" "$a2a2" "$(ratio "$a2a8" "$a2a2")"
write_json "$OUT/mpi-coll.json" 2x2x2

echo "(results: $OUT/mpi.json, $OUT/mpi-coll.json, plots: $OUT/mpi.png," \
	"$OUT/mpi-protocols.png; table: $OUT/mpi-protocols.tsv; logs: $OUT/)"
