# SPDX-License-Identifier: GPL-2.0-only
# What scripts/bench.sh and scripts/bench-scale.sh share: sourced, with
# RESULTS (a TSV file) and VGEMINI set.

fail() {
	echo "bench: $*" >&2
	exit 1
}

# record ID WHAT VALUE UNIT BASELINE_WHAT BASELINE_VALUE RATIO
# (empty fields as "-"): one figure, printed and kept for the JSON.
record() {
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >>"$RESULTS"
	printf '%-4s %-44s %12s %-9s %12s %8s\n' "$1" "$2" "$3" "$4" "$6" "$7"
}

# run_job LOG ARGS...: a uGNI job, its output kept
run_job() {
	local log=$1
	shift
	"$VGEMINI" run --timeout 600 "$@" >"$log" 2>&1 || {
		cat "$log"
		fail "job '$*' failed"
	}
}

# a / b with 3 significant digits
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print "-"; else printf "%.3g", a / b }'
}

# Seconds since T0 (a `date +%s.%N`), one decimal
since() {
	awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'
}

# The resident memory (MiB) of the QEMUs of fabric $VGEMINI_FABRIC
qemu_rss_mib() {
	local pid kb=0
	for pid in $(pgrep -f "qemu-system-x86_64.*$VGEMINI_FABRIC" || true); do
		kb=$((kb + $(awk '/^VmRSS/ { print $2 }' "/proc/$pid/status" 2>/dev/null || echo 0)))
	done
	echo $((kb / 1024))
}

# The share (%) of the host's CPU used over the next 10 s, from /proc/stat
host_cpu_10s() {
	local busy0 all0 busy1 all1
	cpu_sample() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8, $2 + $3 + $4 + $5 + $6 + $7 + $8 }' /proc/stat; }
	read -r busy0 all0 < <(cpu_sample)
	sleep 10
	read -r busy1 all1 < <(cpu_sample)
	awk -v b="$((busy1 - busy0))" -v a="$((all1 - all0))" \
		'BEGIN { printf "%.1f", a ? 100 * b / a : 0 }'
}

# write_json OUT DIMS: RESULTS as JSON, one object per figure
write_json() {
	python3 - "$RESULTS" "$1" "$2" <<'PY'
import json, sys, time
def num(s):
    try:
        return float(s)
    except ValueError:
        return None
rows = []
for line in open(sys.argv[1]):
    k, what, v, unit, bwhat, bv, r = line.rstrip("\n").split("\t")
    rows.append({"id": k, "what": what, "value": num(v), "unit": unit,
                 "baseline": None if bwhat == "-" else bwhat,
                 "baseline_value": num(bv), "ratio": num(r)})
json.dump({"dims": sys.argv[3], "time": time.time(), "results": rows},
          open(sys.argv[2], "w"), indent=1)
PY
}
