#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The soak: ugni_soak on 8 ranks of a 2x2x2 torus while its links are
corrupted, dropped and delayed and a node's QEMU is paused now and then;
every completion accounted for exactly once, every byte checked, and the
fabric back to its speed afterwards.

usage: soak.py [--seconds D] [--baseline B]

 1. two clean runs of B seconds (default 20): the throughput before;
 2. D seconds (default 60) with node 0's X+ link corrupting 10% of what it
    sends, node 3's Y- dropping 5%, node 1's Y+ delaying 5% by 2 ms, and
    node 5's QEMU stopped (SIGSTOP) for 0.4 s every 12 s;
 3. the faults cleared, a clean run of B seconds (two if the first is
    slow): the throughput after.

Prints, per run, operations done, errors (error completions: allowed under
faults), completions lost, duplicated and late, data errors (all must be
0), and the throughput.

The ranks of the faulted run spin while they wait (the hardest load: 8
TCG guests spinning on the host's cores); those of the clean runs sleep
in GNI_CqWaitEvent (ugni_soak --wait), so that their throughput measures
the fabric, not how the host happens to schedule 8 spinning vCPUs
against 8 device threads.  "Back to speed" is judged against the spread
of clean runs (Documentation/testing.rst, "soak"): the better of the
runs after must reach half the slower of the runs before, which a fabric
left many times slower by the faults fails and a normal run passes.
`make soak DURATION=600` runs the long one; `make check` a short one.
"""

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import fabric_lib as fl  # noqa: E402

FAULTS = [(0, "X+", "corrupt=0.1"), (3, "Y-", "drop=0.05"),
          (1, "Y+", "delay=0.05,delay-ms=2")]
PAUSED_NODE = 5
PAUSE_S = 0.4
PAUSE_EVERY_S = 12.0
NRANKS = 8
FIELDS = ("ops", "ok", "errors", "lost", "duplicated", "late",
          "data_errors", "rate_first", "rate_last")


def parse(out):
    """{rank: {field: number}} from the ranks' 'soak: rank R: ...' lines."""
    res = {}
    for line in out.splitlines():
        m = re.match(r"\[(\d+)\] soak: rank \d+: (.*)$", line)
        if not m:
            continue
        words = m.group(2).split()
        res[int(m.group(1))] = {words[i]: float(words[i + 1])
                                for i in range(0, len(words) - 1, 2)}
    return res


def totals(res):
    t = {f: sum(r.get(f, 0) for r in res.values()) for f in FIELDS}
    return t


def summary(what, res, seconds):
    t = totals(res)
    rate = t["ops"] / seconds if seconds else 0
    return (f"{what}: {len(res)} ranks, {t['ops']:.0f} operations, "
            f"{t['errors']:.0f} error completions, {t['lost']:.0f} lost, "
            f"{t['duplicated']:.0f} duplicated, {t['late']:.0f} late, "
            f"{t['data_errors']:.0f} data errors, {rate:.0f} ops/s"), rate


def soak_run(seconds, *extra, extra_timeout=180):
    return fl.vg("run", "-n", NRANKS, "--timeout", int(seconds) +
                 extra_timeout, "ugni_soak", "--seconds", seconds, *extra,
                 timeout=seconds + extra_timeout + 60)


def qemu_pid(fab, n):
    try:
        with open(os.path.join(fab.rundir, f"node{n}.pid")) as f:
            return int(f.read().strip())
    except (OSError, ValueError):
        return None


def pauser(pid, stop, log):
    """SIGSTOP the QEMU of @pid for PAUSE_S every PAUSE_EVERY_S until
    @stop is set; always leaves it running."""
    while not stop.wait(PAUSE_EVERY_S):
        try:
            os.kill(pid, signal.SIGSTOP)
            time.sleep(PAUSE_S)
        finally:
            os.kill(pid, signal.SIGCONT)
        log.append(time.time())


def watcher(stop, notes, until):
    """While a run goes on, sample every node's FMA completions each 5 s;
    a node whose count stops while the others' move is stalled: record its
    device state (vgemini state) and counters once, for the report."""
    last, seen = {}, set()
    while not stop.wait(5.0) and time.time() < until:
        rc, out, err = fl.vg("counters", "--json", timeout=60)
        try:
            nodes = json.loads(out)["nodes"]
            cur = {n: c["fma"]["completions"] for n, c in nodes.items()}
        except (ValueError, KeyError, TypeError):
            continue
        moving = [n for n in cur if n in last and cur[n] != last[n]]
        for n in cur:
            if n in last and cur[n] == last[n] and moving and n not in seen:
                seen.add(n)
                _, st, _ = fl.vg("state", n, timeout=60)
                notes.append(f"node {n} stalled at {cur[n]} completions; "
                             f"fma {nodes[n]['fma']}; rmt "
                             f"{nodes[n]['rmt']}; state {st.strip()}")
        last = cur


def clean(tap, what, seconds):
    rc, out, err = soak_run(seconds, "--wait")
    res = parse(out)
    line, rate = summary(what, res, seconds)
    t = totals(res)
    tap.ok(rc == 0 and len(res) == NRANKS and not t["lost"] and
           not t["duplicated"] and not t["data_errors"] and not t["late"],
           line, f"exit {rc}\n{out[-3000:]}{err[-2000:]}")
    return rate


def body(tap, fab, seconds, baseline):
    if not fab.up(tap, "2x2x2"):
        return
    before = min(clean(tap, f"clean run {i} of {baseline} s before the "
                       "faults", baseline) for i in (1, 2))

    for node, port, spec in FAULTS:
        rc, out, err = fl.vg("fault", node, port, spec, timeout=120)
        tap.ok(rc == 0, f"fault {node} {port} {spec}", out + err)
    pid = qemu_pid(fab, PAUSED_NODE)
    tap.ok(pid is not None, f"node {PAUSED_NODE}'s QEMU pid ({pid})")
    stop, pauses = threading.Event(), []
    th = threading.Thread(target=pauser, args=(pid, stop, pauses),
                          daemon=True) if pid else None
    if th:
        th.start()
    notes = []
    wt = threading.Thread(target=watcher, daemon=True,
                          args=(stop, notes, time.time() + seconds - 5))
    wt.start()
    t0 = time.time()
    try:
        rc, out, err = soak_run(seconds)
    finally:
        stop.set()
        if th:
            th.join()
        wt.join()
    for n in notes:
        tap.note(n)
    took = time.time() - t0
    # The whole output, for a post-mortem of a failure.
    logdir = os.path.join(fl.REPO, "build", "soak")
    os.makedirs(logdir, exist_ok=True)
    with open(os.path.join(logdir, "faulted-run.log"), "w") as f:
        f.write(out + err)
    tap.note(f"full output: {logdir}/faulted-run.log")
    res = parse(out)
    line, _ = summary(f"{seconds} s under faults and {len(pauses)} pauses "
                      f"of node {PAUSED_NODE}", res, seconds)
    t = totals(res)
    tap.note(line)
    tap.ok(rc == 0 and len(res) == NRANKS,
           f"faulted run: every rank passed (exit {rc}, {took:.0f} s)",
           f"{out[-4000:]}{err[-2000:]}")
    for f in ("lost", "duplicated", "data_errors", "late"):
        tap.ok(len(res) == NRANKS and not t[f],
               f"faulted run: {t[f]:.0f} {f.replace('_', ' ')}",
               "\n".join(ln for ln in out.splitlines()
                         if "not completed" in ln or "differs" in ln or
                         "fetched" in ln or "no post" in ln)[-4000:])
    tap.ok(t["ops"] > 0, f"faulted run: {t['ops']:.0f} operations, "
           f"{t['errors']:.0f} ended in error completions")

    for node, port, spec in FAULTS:
        rc, out, err = fl.vg("fault", node, port, "none", timeout=120)
        tap.ok(rc == 0, f"fault {node} {port} cleared", out + err)
    after = clean(tap, f"clean run of {baseline} s after the faults",
                  baseline)
    if after < 0.5 * before:
        after = max(after, clean(tap, f"another clean run of {baseline} s "
                                 "after the faults", baseline))
    tap.ok(before > 0 and after >= 0.5 * before,
           f"throughput after the faults {after:.0f} ops/s, at least half "
           f"the slower run before them ({before:.0f} ops/s)")


def main():
    args = sys.argv[1:]
    seconds, baseline = 60, 20
    try:
        while args:
            a = args.pop(0)
            if a == "--seconds":
                seconds = int(args.pop(0))
            elif a == "--baseline":
                baseline = int(args.pop(0))
            else:
                raise ValueError(a)
        if seconds < 1 or baseline < 1:
            raise ValueError("durations")
    except (ValueError, IndexError):
        print("usage: soak.py [--seconds D] [--baseline B]", file=sys.stderr)
        return 2
    fl.run_test("soak", lambda tap, fab: body(tap, fab, seconds, baseline))


if __name__ == "__main__":
    sys.exit(main())
