#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# `make bench`: fabric figures next to a baseline measured in the same run.
#
#   diagnostic ping round trip per hop count on a 4x2x1 torus (the device's
#   own clock, bursts of host pings through QMP: no guest involved);
#   the issue rate of back-to-back pings;
#   baseline: a 64-byte UDP round trip between two host processes on
#   loopback (what a socket-based link would pay per hop);
#   RDMA (BTE) PUT and GET bandwidth of 4 MiB between neighbours and over
#   3 hops, and the FMA/RDMA crossover (ugni_bw, a uGNI job), next to
#   host memcpy bandwidth of 4 MiB;
#   SMSG 8-byte half round trip and message rate between neighbours
#   (ugni_bench), next to the UDP loopback ping-pong.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
VGEMINI=$REPO/scripts/vgemini
OUT=$REPO/build/bench
COUNT=${BENCH_COUNT:-2000}
export VGEMINI_FABRIC=${VGEMINI_FABRIC:-bench-$$}
mkdir -p "$OUT"

gcc -O2 -Wall -Wextra -Werror -o "$OUT/udp_rtt" "$REPO/guest/bench/udp_rtt.c"
gcc -O2 -Wall -Wextra -Werror -o "$OUT/memcpy_bw" "$REPO/guest/bench/memcpy_bw.c"

trap '"$VGEMINI" down >/dev/null 2>&1 || true' EXIT
"$VGEMINI" up --dims 4x2x1 >"$OUT/up.log" 2>&1 || { cat "$OUT/up.log"; exit 1; }

read -r bmin bavg bmax < <("$OUT/udp_rtt" "$COUNT")

us() { awk -v n="$1" 'BEGIN { printf "%.1f", n / 1000 }'; }

echo "vgemini bench: 4x2x1 torus, $COUNT pings of 64 bytes per row, TCG guests idle"
printf '%-34s %10s %10s %10s %12s\n' "" "min us" "avg us" "max us" "pings/s"
# Node 0 to nodes at torus distance 0, 1, 2 and 3: 0, 1, 2 (X), 6 (X2 Y1).
for pair in "0 0" "0 1" "0 2" "0 6"; do
	set -- $pair
	t0=$(date +%s.%N)
	json=$("$VGEMINI" ping "$1" "$2" --count "$COUNT" --json)
	t1=$(date +%s.%N)
	python3 - "$json" "$t0" "$t1" "$COUNT" <<'PY'
import json, sys
r = json.loads(sys.argv[1])["result"]
hops = r["hops"][0]
if r["ok"] != int(sys.argv[4]):
    sys.exit(f"bench: only {r['ok']} of {sys.argv[4]} pings answered")
rate = r["ok"] / (float(sys.argv[3]) - float(sys.argv[2]))
print(f"{'ping, ' + str(hops) + ' hop' + ('' if hops == 1 else 's') + ' each way':<34} "
      f"{r['rtt_ns_min'] / 1000:10.1f} {r['rtt_ns_avg'] / 1000:10.1f} "
      f"{r['rtt_ns_max'] / 1000:10.1f} {rate:12.0f}")
PY
done
printf '%-34s %10s %10s %10s %12s\n' "baseline: UDP loopback round trip" \
	"$(us "$bmin")" "$(us "$bavg")" "$(us "$bmax")" "-"
echo "(pings/s includes the launcher's QMP polling; the round trips are the device's)"

# RDMA bandwidth: ranks 0 and 1 are on nodes 0 and 1 (neighbours); with
# 7 ranks, rank 6 is on node 6, 3 hops from node 0 (2 in X, 1 in Y).
read -r memcpy_mbs _ < <("$OUT/memcpy_bw")
echo
printf '%-34s %10s %10s %10s\n' "" "MB/s" "memcpy" "ratio"
for job in "2 1 1 hop" "7 6 3 hops"; do
	set -- $job
	"$VGEMINI" run -n "$1" --timeout 600 ugni_bw --peer "$2" --reps 2 \
		>"$OUT/ugni_bw-$1.log" 2>&1 || {
		cat "$OUT/ugni_bw-$1.log"
		exit 1
	}
	for what in put get; do
		mbs=$(sed -n "s/^\[0\] bench: rdma $what 4 MiB: \([0-9.]*\) MB\/s/\1/p" \
			"$OUT/ugni_bw-$1.log")
		printf '%-34s %10s %10s %10s\n' "rdma $what 4 MiB, $3 $4" "$mbs" \
			"$memcpy_mbs" "$(awk -v a="$mbs" -v b="$memcpy_mbs" \
				'BEGIN { printf "%.4f", a / b }')"
	done
	if [ "$1" = 2 ]; then
		sed -n 's/^\[0\] bench: fma\/rdma crossover: /fma\/rdma crossover, 1 hop: /p' \
			"$OUT/ugni_bw-$1.log"
	fi
done
echo "(baseline: host memcpy of 4 MiB; the RDMA figures are a guest's, posts waited for one by one)"

# SMSG between neighbours (ranks 0 and 1 on nodes 0 and 1): ugni_bench
"$VGEMINI" run -n 2 --timeout 600 ugni_bench >"$OUT/ugni_bench.log" 2>&1 || {
	cat "$OUT/ugni_bench.log"
	exit 1
}
smsg_us=$(sed -n 's/^\[0\] bench: smsg8 ping-pong half round trip: \([0-9.]*\) us/\1/p' \
	"$OUT/ugni_bench.log")
smsg_rate=$(sed -n 's/^\[0\] bench: smsg8 message rate: \([0-9.]*\) messages\/s/\1/p' \
	"$OUT/ugni_bench.log")
udp_half=$(awk -v n="$bavg" 'BEGIN { printf "%.1f", n / 2000 }')
udp_rate=$(awk -v n="$bavg" 'BEGIN { printf "%.0f", 2e9 / n }')
echo
printf '%-34s %10s %10s %10s\n' "" "figure" "baseline" "ratio"
printf '%-34s %10s %10s %10s\n' "smsg 8 B half round trip, us" "$smsg_us" \
	"$udp_half" "$(awk -v a="$smsg_us" -v b="$udp_half" \
		'BEGIN { printf "%.2f", a / b }')"
printf '%-34s %10s %10s %10s\n' "smsg 8 B messages/s, 1 hop" "$smsg_rate" \
	"$udp_rate" "$(awk -v a="$smsg_rate" -v b="$udp_rate" \
		'BEGIN { printf "%.4f", a / b }')"
echo "(baseline: the UDP loopback ping-pong above, half its round trip and its messages/s)"
