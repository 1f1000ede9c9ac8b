# SPDX-License-Identifier: GPL-2.0-only
# What scripts/bench.sh and scripts/bench-scale.sh share: sourced, with
# RESULTS (a TSV file) and VGEMINI set.

fail() {
	echo "bench: $*" >&2
	exit 1
}

# record ID WHAT VALUE UNIT BASELINE_WHAT BASELINE_VALUE RATIO [RUNS
# [BASELINE_RUNS]] (empty fields as "-"; RUNS: the space-separated values
# of every run when VALUE is their median): one figure, printed with the
# runs' range and kept for the JSON.
record() {
	local runs=${8:--} bruns=${9:--} range=""
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" \
		"$6" "$7" "$runs" "$bruns" >>"$RESULTS"
	[ "$runs" = - ] || range=$(spread $runs)
	printf '%-4s %-44s %12s %-9s %12s %8s  %s\n' "$1" "$2" "$3" "$4" "$6" "$7" "$range"
}

# median VALUES...: the middle one (the mean of the middle two)
median() {
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 }
		END { if (NR % 2) { print v[(NR + 1) / 2]; exit }
		      m = (v[NR / 2] + v[NR / 2 + 1]) / 2
		      printf(m >= 1000 ? "%.0f\n" : "%.2f\n", m) }'
}

# spread VALUES...: "min-max (n runs)"
spread() {
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 }
		END { printf "%s-%s (%d runs)\n", v[1], v[NR], NR }'
}

# record_runs ID WHAT RUNS UNIT BASELINE_WHAT BASELINE_RUNS: a figure
# measured several times ("v1 v2 ..."): the medians, their ratio, and
# each side's runs.  One run varies between boots more than the changes
# worth seeing (Documentation/testing.rst, "Benchmarks").
record_runs() {
	local v b
	v=$(median $3)
	b=$(median $6)
	record "$1" "$2" "$v" "$4" "$5" "$b" "$(ratio "$v" "$b")" "$3" "$6"
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

# The share (%) of the host's CPU that this fabric's QEMUs use over the
# next 10 s: their own user and system time (/proc/PID/stat, all their
# threads) against the host's CPUs, so that another program's load on the
# host does not count as the torus'.
torus_cpu_10s() {
	local pids t0 t1 hz ncpu
	pids=$(pgrep -f "qemu-system-x86_64.*$VGEMINI_FABRIC" || true)
	[ -n "$pids" ] || fail "no QEMU of fabric $VGEMINI_FABRIC"
	cpu_ticks() {
		local pid sum=0 v
		for pid in $pids; do
			# fields 14 and 15, after the ")" that ends the name
			v=$(sed 's/^.*) //' "/proc/$pid/stat" 2>/dev/null |
				awk '{ print $12 + $13 }')
			sum=$((sum + ${v:-0}))
		done
		echo "$sum"
	}
	hz=$(getconf CLK_TCK)
	ncpu=$(nproc)
	t0=$(cpu_ticks)
	sleep 10
	t1=$(cpu_ticks)
	awk -v d="$((t1 - t0))" -v hz="$hz" -v n="$ncpu" \
		'BEGIN { printf "%.1f", 100 * d / (hz * 10 * n) }'
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
    k, what, v, unit, bwhat, bv, r, runs, bruns = line.rstrip("\n").split("\t")
    row = {"id": k, "what": what, "value": num(v), "unit": unit,
           "baseline": None if bwhat == "-" else bwhat,
           "baseline_value": num(bv), "ratio": num(r)}
    # a figure measured several times: value is the runs' median
    if runs != "-":
        row["runs"] = [num(x) for x in runs.split()]
    if bruns != "-":
        row["baseline_runs"] = [num(x) for x in bruns.split()]
    rows.append(row)
json.dump({"dims": sys.argv[3], "time": time.time(), "results": rows},
          open(sys.argv[2], "w"), indent=1)
PY
}
