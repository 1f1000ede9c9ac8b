#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# `make bench`: the fabric's figures, each next to a baseline measured in
# the same run on the same machine, and their ratio; also written as JSON
# to build/bench/results.json (one object per figure) so that they can be
# tracked.  One 4x2x1 torus, booted with --net (every node on one virtio-net
# Ethernet segment), --edu (QEMU's edu device in every node) and --ipogif
# (IP over the fabric, ipogif0, in every node):
#
#   P1  8-byte PUT ping-pong round trip between neighbours (ugni_bench:
#       flag polled in memory, nothing sleeps), next to a UDP ping-pong
#       round trip over virtio-net between the same two VMs (and TCP);
#   P3  8-byte PUT issue rate (silent, and GLOBAL events reaped 64 at a
#       time), next to the same guest's store rate to the edu device's
#       register;
#   P4  PUT one-way latency at 1, 2 and 3 hops (ugni_bench --peer) and the
#       extra latency per hop, next to the 1-hop latency;
#   P2  RDMA (BTE) PUT and GET of 4 MiB at 1 and 3 hops, and the FMA/RDMA
#       crossover (ugni_bw), next to host memcpy of 4 MiB;
#   P5  this 8-node torus: boot time, the QEMUs' resident memory, the host
#       CPU its idle QEMUs use (their own time in /proc/PID/stat over 10 s);
#   IP  TCP and UDP 8-byte round trips over ipogif0 between neighbours,
#       each side polling its socket (udp_pingpong -p), next to the same
#       over virtio-net between the same two VMs; a TCP stream checked
#       byte for byte (tcp_stream) over ipogif0 at 1 and 3 hops, next to
#       the same over virtio-net between the same VMs;
#   SMSG 8-byte half round trip and message rate (ugni_bench), next to
#       half the UDP round trip over virtio-net and its messages/s;
#   the device's diagnostic ping per hop count (no guest involved), next
#       to a UDP round trip between two host processes on loopback.
#
# Larger tori (P5 for 27 and 64 nodes) take longer than this bench should:
# `make bench-scale` (scripts/bench-scale.sh) measures them.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
VGEMINI=$REPO/scripts/vgemini
OUT=$REPO/build/bench
COUNT=${BENCH_COUNT:-2000}
STREAM=${BENCH_STREAM:-8388608}	# bytes of each TCP stream of the IP rows
DIMS=4x2x1
export VGEMINI_FABRIC=${VGEMINI_FABRIC:-bench-$$}
mkdir -p "$OUT"
RESULTS=$OUT/results.tsv
: >"$RESULTS"

gcc -O2 -Wall -Wextra -Werror -o "$OUT/udp_rtt" "$REPO/guest/bench/udp_rtt.c"
gcc -O2 -Wall -Wextra -Werror -o "$OUT/memcpy_bw" "$REPO/guest/bench/memcpy_bw.c"

. "$REPO/scripts/bench-lib.sh"

# The value of rank 0's line "bench: WHAT: VALUE UNIT" in LOG
bench_value() {
	local v
	v=$(sed -n "s/^\[0\] bench: $2: \([0-9.]*\) .*/\1/p" "$1" | tail -n 1)
	[ -n "$v" ] || fail "no '$2' in $1"
	echo "$v"
}

trap '"$VGEMINI" down >/dev/null 2>&1 || true' EXIT
t0=$(date +%s.%N)
"$VGEMINI" up --dims "$DIMS" --net --edu --ipogif >"$OUT/up.log" 2>&1 || {
	cat "$OUT/up.log"
	exit 1
}
boot_s=$(since "$t0")

echo "vgemini bench: $DIMS torus, TCG guests; each figure, its baseline of this run, and figure/baseline"
printf '%-4s %-44s %12s %-9s %12s %8s\n' "" "" "figure" "unit" "baseline" "ratio"

# --- P1: PUT ping-pong between neighbours vs UDP over virtio-net ---------
# ranks 0 and 1 are on nodes 0 and 1, neighbours in X.
run_job "$OUT/ugni_bench.log" -n 2 ugni_bench --iters "$COUNT"
node_ip() {	# NODE KEY: the node's address, "ip" (virtio-net) or "ipogif_ip"
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["nodes"][int(sys.argv[2])][sys.argv[3]])' \
		"/run/vgemini/$VGEMINI_FABRIC/topology.json" "$1" "$2"
}
ip1=$(node_ip 1 ip)
pingpong() {	# MODE PORT: rank 1's server, rank 0's client; the avg in us
	"$VGEMINI" exec 1 -- udp_pingpong -t 30 "$1-server" "$2" \
		>"$OUT/$1-server.log" 2>&1 &
	local srv=$!
	"$VGEMINI" exec 0 -- udp_pingpong -t 30 "$1-client" "$ip1" "$2" \
		"$COUNT" 8 >"$OUT/$1-client.log" 2>&1 ||
		{ cat "$OUT/$1-client.log" >&2; fail "$1 ping-pong failed"; }
	wait "$srv" || true
	sed -n 's/^.*round trip us: min [0-9.]* avg \([0-9.]*\) max .*/\1/p' \
		"$OUT/$1-client.log"
}
# (udp_pingpong's UDP modes are plain "server" and "client")
"$VGEMINI" exec 1 -- udp_pingpong -t 30 server 5000 >"$OUT/udp-server.log" 2>&1 &
srv=$!
"$VGEMINI" exec 0 -- udp_pingpong -t 30 client "$ip1" 5000 "$COUNT" 8 \
	>"$OUT/udp-client.log" 2>&1 ||
	{ cat "$OUT/udp-client.log"; fail "UDP ping-pong failed"; }
wait "$srv" || true
udp_rt=$(sed -n 's/^udp: round trip us: min [0-9.]* avg \([0-9.]*\) max .*/\1/p' \
	"$OUT/udp-client.log")
tcp_rt=$(pingpong tcp 5001)
[ -n "$udp_rt" ] && [ -n "$tcp_rt" ] || fail "no UDP or TCP round trip"
put_half=$(bench_value "$OUT/ugni_bench.log" "put8 ping-pong half round trip")
put_rt=$(awk -v h="$put_half" 'BEGIN { printf "%.1f", 2 * h }')
record P1 "put8 ping-pong round trip, 1 hop" "$put_rt" us \
	"UDP round trip over virtio-net, 8 B" "$udp_rt" "$(ratio "$put_rt" "$udp_rt")"
record P1 "put8 ping-pong round trip, 1 hop (vs TCP)" "$put_rt" us \
	"TCP round trip over virtio-net, 8 B" "$tcp_rt" "$(ratio "$put_rt" "$tcp_rt")"

# --- IP: over ipogif0 vs over virtio-net, between the same VMs ------------
# Round trips between nodes 0 and 1 (1 hop), both sides polling (-p);
# streams from node 0 to node 1 (1 hop) and to node 6 (3 hops).
polled_rt() {	# TAG PROTO IP PORT: node 0 to node 1 at IP; the avg in us
	local srv_mode=server cli_mode=client srv
	[ "$2" = udp ] || { srv_mode=tcp-server; cli_mode=tcp-client; }
	"$VGEMINI" exec 1 -- udp_pingpong -t 30 -p "$srv_mode" "$4" \
		>"$OUT/ip-$1-server.log" 2>&1 &
	srv=$!
	"$VGEMINI" exec 0 -- udp_pingpong -t 30 -p "$cli_mode" "$3" "$4" \
		"$COUNT" 8 >"$OUT/ip-$1-client.log" 2>&1 ||
		{ cat "$OUT/ip-$1-client.log" >&2; fail "$1 ping-pong failed"; }
	wait "$srv" || true
	sed -n "s/^$2: round trip us: min [0-9.]* avg \([0-9.]*\) max .*/\1/p" \
		"$OUT/ip-$1-client.log"
}
stream_mbs() {	# TAG NODE IP PORT: STREAM bytes from node 0; the receiver's MB/s
	local rcv
	"$VGEMINI" exec "$2" -- tcp_stream -t 60 recv "$4" "$STREAM" \
		>"$OUT/stream-$1-recv.log" 2>&1 &
	rcv=$!
	"$VGEMINI" exec 0 -- tcp_stream -t 60 send "$3" "$4" "$STREAM" \
		>"$OUT/stream-$1-send.log" 2>&1 ||
		{ cat "$OUT/stream-$1-send.log" >&2; fail "$1 stream failed"; }
	wait "$rcv" ||
		{ cat "$OUT/stream-$1-recv.log" >&2; fail "$1 stream failed"; }
	sed -n 's/^tcp_stream: received .* (\([0-9.]*\) MB\/s)$/\1/p' \
		"$OUT/stream-$1-recv.log"
}
ipog1=$(node_ip 1 ipogif_ip)
for proto in udp tcp; do
	P=${proto^^}
	eth=$(polled_rt "$proto-eth" "$proto" "$ip1" 5010)
	ipog=$(polled_rt "$proto-ipogif" "$proto" "$ipog1" 5011)
	[ -n "$eth" ] && [ -n "$ipog" ] || fail "no polled $P round trip"
	record IP "$P round trip over ipogif0, 8 B, 1 hop" "$ipog" us \
		"$P round trip over virtio-net, 8 B, same VMs (polled)" "$eth" \
		"$(ratio "$ipog" "$eth")"
done
for job in "1 1 hop" "6 3 hops"; do
	set -- $job
	eth=$(stream_mbs "eth-$2" "$1" "$(node_ip "$1" ip)" 5012)
	ipog=$(stream_mbs "ipogif-$2" "$1" "$(node_ip "$1" ipogif_ip)" 5013)
	[ -n "$eth" ] && [ -n "$ipog" ] || fail "no TCP stream rate"
	record IP "TCP stream over ipogif0, $2 $3" "$ipog" MB/s \
		"TCP stream over virtio-net, same VMs" "$eth" "$(ratio "$ipog" "$eth")"
done

# --- P3: PUT issue rate vs stores to an emulated register ---------------
"$VGEMINI" exec 0 -- edu_store >"$OUT/edu.log" 2>&1 ||
	{ cat "$OUT/edu.log"; fail "edu_store failed"; }
edu=$(sed -n 's/^edu: stores\/s: \([0-9.]*\).*/\1/p' "$OUT/edu.log")
[ -n "$edu" ] || fail "no edu store rate"
for what in "silent" "events reaped in batches of 64"; do
	rate=$(bench_value "$OUT/ugni_bench.log" "put8 issue rate, $what")
	record P3 "put8 issue rate, $what" "$rate" posts/s \
		"stores/s to the edu device's register" "$edu" "$(ratio "$rate" "$edu")"
done

# --- P4: latency per hop ---------------------------------------------------
# node 2 is 2 hops from node 0 (X), node 6 3 hops (2 in X, 1 in Y).
lat1=$put_half
for job in "3 2 2" "7 6 3"; do
	set -- $job
	run_job "$OUT/ugni_bench-hops$3.log" -n "$1" ugni_bench --peer "$2" \
		--pingpong-only --iters "$COUNT"
	lat=$(bench_value "$OUT/ugni_bench-hops$3.log" "put8 ping-pong half round trip")
	extra=$(awk -v a="$lat" -v b="$lat1" -v h="$3" \
		'BEGIN { printf "%.1f", (a - b) / (h - 1) }')
	record P4 "put8 one-way latency, $3 hops" "$lat" us \
		"one-way latency, 1 hop" "$lat1" "$(ratio "$lat" "$lat1")"
	record P4 "extra latency per hop, $3 hops" "$extra" us \
		"one-way latency, 1 hop" "$lat1" "$(ratio "$extra" "$lat1")"
done

# --- P2: RDMA bandwidth vs memcpy ------------------------------------------
read -r memcpy_mbs _ < <("$OUT/memcpy_bw")
for job in "2 1 1 hop" "7 6 3 hops"; do
	set -- $job
	run_job "$OUT/ugni_bw-$1.log" -n "$1" ugni_bw --peer "$2" --reps 2
	for what in put get; do
		mbs=$(bench_value "$OUT/ugni_bw-$1.log" "rdma $what 4 MiB")
		record P2 "rdma $what 4 MiB, $3 $4" "$mbs" MB/s \
			"host memcpy of 4 MiB" "$memcpy_mbs" "$(ratio "$mbs" "$memcpy_mbs")"
	done
	if [ "$1" = 2 ]; then
		cross=$(sed -n 's/^\[0\] bench: fma\/rdma crossover: \([0-9]*\).*/\1/p' \
			"$OUT/ugni_bw-$1.log")
		record P2 "fma/rdma crossover, 1 hop" "${cross:--}" bytes - - -
	fi
done

# --- SMSG vs UDP over virtio-net -------------------------------------------
smsg_us=$(bench_value "$OUT/ugni_bench.log" "smsg8 ping-pong half round trip")
smsg_rate=$(bench_value "$OUT/ugni_bench.log" "smsg8 message rate")
udp_half=$(awk -v n="$udp_rt" 'BEGIN { printf "%.1f", n / 2 }')
udp_rate=$(awk -v n="$udp_rt" 'BEGIN { printf "%.0f", 2e6 / n }')
record SMSG "smsg8 half round trip, 1 hop" "$smsg_us" us \
	"half the UDP round trip over virtio-net" "$udp_half" "$(ratio "$smsg_us" "$udp_half")"
record SMSG "smsg8 messages/s, 1 hop" "$smsg_rate" msgs/s \
	"UDP ping-pong messages/s over virtio-net" "$udp_rate" "$(ratio "$smsg_rate" "$udp_rate")"

# --- the device's diagnostic ping vs UDP on the host's loopback ------------
read -r bmin bavg bmax < <("$OUT/udp_rtt" "$COUNT")
loop_us=$(awk -v n="$bavg" 'BEGIN { printf "%.1f", n / 1000 }')
# Node 0 to nodes at torus distance 0, 1, 2 and 3: 0, 1, 2 (X), 6 (X2 Y1).
for pair in "0 0" "0 1" "0 2" "0 6"; do
	set -- $pair
	json=$("$VGEMINI" ping "$1" "$2" --count "$COUNT" --json)
	read -r hops avg < <(python3 - "$json" "$COUNT" <<'PY'
import json, sys
r = json.loads(sys.argv[1])["result"]
if r["ok"] != int(sys.argv[2]):
    sys.exit(f"bench: only {r['ok']} of {sys.argv[2]} pings answered")
print(r["hops"][0], f"{r['rtt_ns_avg'] / 1000:.1f}")
PY
)
	record PING "device ping round trip, $hops hops each way" "$avg" us \
		"UDP round trip on the host's loopback" "$loop_us" "$(ratio "$avg" "$loop_us")"
done

# --- P5: this torus, idle ----------------------------------------------------
rss_mib=$(qemu_rss_mib)
idle_cpu=$(torus_cpu_10s)
record P5 "boot, 8 nodes (up --net --edu --ipogif)" "$boot_s" s - - -
record P5 "resident memory of its 8 QEMUs" "$rss_mib" MiB - - -
record P5 "host CPU used by the idle torus" "$idle_cpu" % \
	"target: at most" 5 "$(ratio "$idle_cpu" 5)"

write_json "$OUT/results.json" "$DIMS"
echo "(results: $OUT/results.json; logs: $OUT/)"
