#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# `make bench`: the fabric's figures, each next to a baseline measured in
# the same run on the same machine, and their ratio; also written as JSON
# to build/bench/results.json (one object per figure) so that they can be
# tracked.  One 4x2x1 torus, booted with --net (every node on one virtio-net
# Ethernet segment), --edu (QEMU's edu device in every node) and --ipogif
# (IP over the fabric, ipogif0, in every node), BENCH_BOOTS times (2); on
# each boot every guest figure and its baseline are measured BENCH_ROUNDS
# times (2), and the rows show the runs' median and range:
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
#   RING the round of an SMSG ring (ugni_ring: a message to the next rank,
#       its local event, the message from the one before, a PMI barrier)
#       of 4 and 8 ranks, next to that of 2 ranks, and of 2 ranks next to
#       the UDP round trip;
#   the device's diagnostic ping per hop count (no guest involved), next
#       to a UDP round trip between two host processes on loopback;
#   CORE the device core alone (bench_core: two NICs in one process, no
#       QEMU): its 8-byte PUT posts/s next to the edu store rate (the
#       ceiling of P3's ratio), its PUT round trip next to P1's.
#
# Larger tori (P5 for 27 and 64 nodes) take longer than this bench should:
# `make bench-scale` (scripts/bench-scale.sh) measures them.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
VGEMINI=$REPO/scripts/vgemini
OUT=$REPO/build/bench
COUNT=${BENCH_COUNT:-2000}
RATE_COUNT=${BENCH_RATE_COUNT:-20000}	# posts or messages of each rate
BOOTS=${BENCH_BOOTS:-2}		# boots of the torus
ROUNDS=${BENCH_ROUNDS:-2}	# runs of each guest figure per boot
STREAM=${BENCH_STREAM:-8388608}	# bytes of each TCP stream of the IP rows
RING_ROUNDS=${BENCH_RING_ROUNDS:-200}	# rounds of each SMSG ring
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
echo "vgemini bench: $DIMS torus, TCG guests; each figure, its baseline of this run, and figure/baseline"
echo "(guest figures: $ROUNDS runs on each of $BOOTS boots; the median of the runs, the ratio of the medians, the runs' range)"
printf '%-4s %-44s %12s %-9s %12s %8s  %s\n' "" "" "figure" "unit" "baseline" "ratio" "range"

node_ip() {	# NODE KEY: the node's address, "ip" (virtio-net) or "ipogif_ip"
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["nodes"][int(sys.argv[2])][sys.argv[3]])' \
		"/run/vgemini/$VGEMINI_FABRIC/topology.json" "$1" "$2"
}
# The round trip of udp_pingpong between node 0 and node 1 at IP; the avg
# in us.  pingpong TAG MODE IP PORT [-p]: MODE "udp" (its plain "server"
# and "client") or "tcp"; -p: both sides poll their socket.
pingpong() {
	local tag=$1 mode=$2 ip=$3 port=$4 srv srv_mode=server cli_mode=client
	shift 4
	[ "$mode" = udp ] || { srv_mode=tcp-server; cli_mode=tcp-client; }
	"$VGEMINI" exec 1 -- udp_pingpong -t 30 "$@" "$srv_mode" "$port" \
		>"$OUT/$tag-server.log" 2>&1 &
	srv=$!
	"$VGEMINI" exec 0 -- udp_pingpong -t 30 "$@" "$cli_mode" "$ip" "$port" \
		"$COUNT" 8 >"$OUT/$tag-client.log" 2>&1 ||
		{ cat "$OUT/$tag-client.log" >&2; fail "$tag ping-pong failed"; }
	wait "$srv" || true
	local v
	v=$(sed -n "s/^$mode: round trip us: min [0-9.]* avg \([0-9.]*\) max .*/\1/p" \
		"$OUT/$tag-client.log")
	[ -n "$v" ] || fail "no round trip in $OUT/$tag-client.log"
	echo "$v"
}
stream_mbs() {	# TAG NODE IP PORT: STREAM bytes from node 0; the receiver's MB/s
	local rcv v
	"$VGEMINI" exec "$2" -- tcp_stream -t 60 recv "$4" "$STREAM" \
		>"$OUT/stream-$1-recv.log" 2>&1 &
	rcv=$!
	"$VGEMINI" exec 0 -- tcp_stream -t 60 send "$3" "$4" "$STREAM" \
		>"$OUT/stream-$1-send.log" 2>&1 ||
		{ cat "$OUT/stream-$1-send.log" >&2; fail "$1 stream failed"; }
	wait "$rcv" ||
		{ cat "$OUT/stream-$1-recv.log" >&2; fail "$1 stream failed"; }
	v=$(sed -n 's/^tcp_stream: received .* (\([0-9.]*\) MB\/s)$/\1/p' \
		"$OUT/stream-$1-recv.log")
	[ -n "$v" ] || fail "no TCP stream rate in $OUT/stream-$1-recv.log"
	echo "$v"
}

# Every guest figure and its baseline are measured in ROUNDS rounds on
# each of BOOTS boots of the torus (how the threads of 8 QEMUs fall on 2
# cores differs from boot to boot: P1 spans 2x between boots, less within
# one), each round measuring both (so that a slow spell of the host falls
# on both), and printed as the runs' median with their range.  The values
# of each figure are collected as "v1 v2 ..." in RUNS[name].  P2, the
# device's ping and P5 are measured on the last boot.
declare -A RUNS
add() {	# NAME VALUE
	RUNS[$1]="${RUNS[$1]:-}${RUNS[$1]:+ }$2"
}
for boot in $(seq "$BOOTS"); do
	[ "$boot" = 1 ] || "$VGEMINI" down >/dev/null 2>&1 ||
		fail "down of boot $((boot - 1)) failed"
	t0=$(date +%s.%N)
	"$VGEMINI" up --dims "$DIMS" --net --edu --ipogif >"$OUT/up-$boot.log" 2>&1 || {
		cat "$OUT/up-$boot.log"
		fail "boot $boot of the torus failed"
	}
	add boot_s "$(since "$t0")"
	ip1=$(node_ip 1 ip)
	ipog1=$(node_ip 1 ipogif_ip)
	for r in $(seq "$ROUNDS"); do
		r=$boot-$r
		# P1, P3, SMSG: ranks 0 and 1 are on nodes 0 and 1, neighbours in X.
		log=$OUT/ugni_bench-$r.log
		run_job "$log" -n 2 ugni_bench --iters "$COUNT" \
			--rate-iters "$RATE_COUNT"
		half=$(bench_value "$log" "put8 ping-pong half round trip")
		add put_half "$half"
		add put_rt "$(awk -v h="$half" 'BEGIN { printf "%.1f", 2 * h }')"
		for what in "silent" "events reaped in batches of 64"; do
			v=$(bench_value "$log" "put8 issue rate, $what")
			add "rate $what" "$v"
		done
		v=$(bench_value "$log" "smsg8 ping-pong half round trip")
		add smsg_half "$v"
		v=$(bench_value "$log" "smsg8 message rate")
		add smsg_rate "$v"
		udp=$(pingpong udp udp "$ip1" 5000)
		add udp_rt "$udp"
		add udp_half "$(awk -v n="$udp" 'BEGIN { printf "%.1f", n / 2 }')"
		add udp_rate "$(awk -v n="$udp" 'BEGIN { printf "%.0f", 2e6 / n }')"
		v=$(pingpong tcp tcp "$ip1" 5001)
		add tcp_rt "$v"

		# IP: round trips between nodes 0 and 1 (1 hop), both sides polling
		# (-p); streams from node 0 to node 1 (1 hop) and to node 6 (3 hops).
		for proto in udp tcp; do
			v=$(pingpong "ip-$proto-eth" "$proto" "$ip1" 5010 -p)
			add "$proto eth" "$v"
			v=$(pingpong "ip-$proto-ipogif" "$proto" "$ipog1" 5011 -p)
			add "$proto ipogif" "$v"
		done
		for node in 1 6; do
			v=$(stream_mbs "eth-$node" "$node" "$(node_ip "$node" ip)" 5012)
			add "stream eth $node" "$v"
			v=$(stream_mbs "ipogif-$node" "$node" "$(node_ip "$node" ipogif_ip)" 5013)
			add "stream ipogif $node" "$v"
		done

		# RING: ranks on nodes 0..n-1, the ring's last hop the longest
		for n in 2 4 8; do
			log=$OUT/ugni_ring-$n-$r.log
			run_job "$log" -n "$n" ugni_ring --rounds "$RING_ROUNDS"
			add "ring $n" "$(bench_value "$log" "smsg ring round, $n ranks")"
		done

		# P3's baseline: the same guest's stores to an emulated register
		"$VGEMINI" exec 0 -- edu_store >"$OUT/edu-$r.log" 2>&1 ||
			{ cat "$OUT/edu-$r.log"; fail "edu_store failed"; }
		edu=$(sed -n 's/^edu: stores\/s: \([0-9.]*\).*/\1/p' "$OUT/edu-$r.log")
		[ -n "$edu" ] || fail "no edu store rate"
		add edu "$edu"

		# P4: node 2 is 2 hops from node 0 (X), node 6 3 hops (2 in X, 1 in
		# Y); the extra per hop against this round's 1-hop latency.
		for job in "3 2 2" "7 6 3"; do
			set -- $job
			log=$OUT/ugni_bench-hops$3-$r.log
			run_job "$log" -n "$1" ugni_bench --peer "$2" --pingpong-only \
				--iters "$COUNT"
			lat=$(bench_value "$log" "put8 ping-pong half round trip")
			add "lat $3" "$lat"
			add "extra $3" "$(awk -v a="$lat" -v b="$half" -v h="$3" \
				'BEGIN { printf "%.1f", (a - b) / (h - 1) }')"
		done
	done
done

record_runs P1 "put8 ping-pong round trip, 1 hop" "${RUNS[put_rt]}" us \
	"UDP round trip over virtio-net, 8 B" "${RUNS[udp_rt]}"
record_runs P1 "put8 ping-pong round trip, 1 hop (vs TCP)" "${RUNS[put_rt]}" us \
	"TCP round trip over virtio-net, 8 B" "${RUNS[tcp_rt]}"
for proto in udp tcp; do
	P=${proto^^}
	record_runs IP "$P round trip over ipogif0, 8 B, 1 hop" \
		"${RUNS[$proto ipogif]}" us \
		"$P round trip over virtio-net, 8 B, same VMs (polled)" \
		"${RUNS[$proto eth]}"
done
for job in "1 1 hop" "6 3 hops"; do
	set -- $job
	record_runs IP "TCP stream over ipogif0, $2 $3" "${RUNS[stream ipogif $1]}" \
		MB/s "TCP stream over virtio-net, same VMs" "${RUNS[stream eth $1]}"
done
record_runs RING "smsg ring round, 2 ranks" "${RUNS[ring 2]}" us \
	"UDP round trip over virtio-net, 8 B" "${RUNS[udp_rt]}"
for n in 4 8; do
	record_runs RING "smsg ring round, $n ranks" "${RUNS[ring $n]}" us \
		"smsg ring round, 2 ranks" "${RUNS[ring 2]}"
done
for what in "silent" "events reaped in batches of 64"; do
	record_runs P3 "put8 issue rate, $what" "${RUNS[rate $what]}" posts/s \
		"stores/s to the edu device's register" "${RUNS[edu]}"
done
# --- CORE: the device core alone, next to P3's and P1's baselines --------
# bench_core (qemu-device/core/tests/bench_core.c): two NICs in one host
# process, no QEMU, no threads, no guest.  Its posts/s over the edu store
# rate is the ceiling of P3's ratio in this design; its round trip next to
# P1's shows how much of P1 is the core's own work.
make --no-print-directory -s -C "$REPO" bench-core >/dev/null ||
	fail "bench_core did not build"
for r in 1 2 3; do
	"$REPO/build/core/bench_core" >"$OUT/bench_core-$r.log" 2>&1 ||
		{ cat "$OUT/bench_core-$r.log"; fail "bench_core failed"; }
	v=$(sed -n 's/^core: put8 posts\/s: \([0-9]*\)$/\1/p' "$OUT/bench_core-$r.log")
	add core_rate "$v"
	v=$(sed -n 's/^core: put8 round trips\/s: \([0-9]*\)$/\1/p' "$OUT/bench_core-$r.log")
	add core_rt "$(awk -v n="$v" 'BEGIN { printf "%.2f", 1e6 / n }')"
done
record_runs CORE "put8 posts/s, device core alone" "${RUNS[core_rate]}" posts/s \
	"stores/s to the edu device's register" "${RUNS[edu]}"
record_runs CORE "put8 round trip, device core alone" "${RUNS[core_rt]}" us \
	"put8 ping-pong round trip, 1 hop (P1)" "${RUNS[put_rt]}"

for hops in 2 3; do
	record_runs P4 "put8 one-way latency, $hops hops" "${RUNS[lat $hops]}" us \
		"one-way latency, 1 hop" "${RUNS[put_half]}"
	record_runs P4 "extra latency per hop, $hops hops" "${RUNS[extra $hops]}" us \
		"one-way latency, 1 hop" "${RUNS[put_half]}"
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
record_runs SMSG "smsg8 half round trip, 1 hop" "${RUNS[smsg_half]}" us \
	"half the UDP round trip over virtio-net" "${RUNS[udp_half]}"
record_runs SMSG "smsg8 messages/s, 1 hop" "${RUNS[smsg_rate]}" msgs/s \
	"UDP ping-pong messages/s over virtio-net" "${RUNS[udp_rate]}"

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
record P5 "boot, 8 nodes (up --net --edu --ipogif)" "$(median ${RUNS[boot_s]})" s \
	- - - "${RUNS[boot_s]}"
record P5 "resident memory of its 8 QEMUs" "$rss_mib" MiB - - -
record P5 "host CPU used by the idle torus" "$idle_cpu" % \
	"target: at most" 5 "$(ratio "$idle_cpu" 5)"

write_json "$OUT/results.json" "$DIMS"
echo "(results: $OUT/results.json; logs: $OUT/)"
