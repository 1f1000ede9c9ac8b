# SPDX-License-Identifier: GPL-2.0-only
"""Diagnostics: the routers' diagnostic ping ('vgemini ping'), one pair
or every pair, with the path each packet took.
"""

import json
import os
import sys
import threading
import time

from .common import (EXIT_FAIL, EXIT_OK, EXIT_TIMEOUT, EXIT_USAGE, Failure,
                     flock_wait, parallel)
from .torus import (PORT_LABELS, coord_of, node_str, port_key, port_step,
                    torus_distance)
from .qmp import QMPError, qom_json, qom_set
from .fabric import Fabric, need_gemini


DIAG_MAX_LEN = 64
DIAG_MAX_COUNT = 1000000
DIAG_TIMEOUT_S = 2.0            # the device gives up on one ping after this


def ping_timeout(count):
    """How long a burst may take: every ping may time out in the device."""
    return 30.0 + count * (DIAG_TIMEOUT_S + 0.5)


def diag_ping(fab, a, b, length=DIAG_MAX_LEN, count=1, timeout=None):
    """Ping node b from node a's NIC through the device's diag-ping
    property and wait for the result (the device's JSON, a dict).
    Failure when it cannot be started or does not end in time."""
    dims = fab.topology()["dims"]
    if timeout is None:
        timeout = ping_timeout(count)
    deadline = time.monotonic() + timeout
    where = f"ping {node_str(a, dims)} -> {node_str(b, dims)}"
    lockfd = flock_wait(fab.path(a, "diag.lock"), deadline)
    if lockfd is None:
        raise Failure(f"{where}: another vgemini ping from node {a} ran "
                      f"for {timeout:.0f} s")
    q = None

    def session():
        nonlocal q, opened
        if q is not None:
            q.close()
        q = fab.qmp(a, max(1.0, deadline - time.monotonic()))
        opened = time.monotonic()
        return q
    opened = 0.0
    try:
        session()
        snap = qom_json(q, "diag-ping")
        if not isinstance(snap, dict):
            raise QMPError(f"diag-ping reads {snap!r}")
        # An interrupted burst of an earlier vgemini ping may still run.
        while snap.get("state") == "pending":
            if time.monotonic() >= deadline:
                raise Failure(f"{where}: node {a} is still busy with an "
                              "earlier diagnostic ping")
            time.sleep(0.2)
            if time.monotonic() - opened > 1.0:
                session()
            snap = qom_json(q, "diag-ping")
        qom_set(q, "diag-ping", f"{b},{length},{count}")
        started = time.monotonic()
        delay = 0.002
        while True:
            r = qom_json(q, "diag-ping")
            if not isinstance(r, dict):
                raise QMPError(f"diag-ping reads {r!r}")
            if r.get("state") in ("done", "error") and \
                    (r.get("seq") != snap.get("seq") or r != snap):
                return r
            if r.get("state") != "pending" and \
                    time.monotonic() - started > 3.0:
                raise Failure(f"{where}: the device did not start the "
                              f"ping (its result stays {json.dumps(r)})")
            if time.monotonic() >= deadline:
                raise Failure(f"{where}: no result after {timeout:.0f} s "
                              f"(last: {json.dumps(r)})", EXIT_TIMEOUT)
            time.sleep(delay)
            delay = min(delay * 2, 0.25)
            # Let other commands have the QMP socket now and then.
            if time.monotonic() - opened > 1.0:
                session()
    except QMPError as e:
        raise Failure(f"{where}: {e}")
    finally:
        if q is not None:
            q.close()
        os.close(lockfd)


def ping_answered(r, count):
    return (r.get("state") == "done" and not r.get("error") and
            r.get("ok") == count and not r.get("failed"))


def path_records(r, direction):
    return [e for e in (r.get("path") or [])
            if isinstance(e, dict) and e.get("dir") == direction]


def render_path(recs, start, hops, dims):
    """'0(0,0,0) -X+-> 1(1,0,0) -Y+-> 3(1,1,0)' from path records; a '?'
    marks a record that does not follow from the one before, '...' a
    trace shorter than the hop count."""
    if not recs:
        return node_str(start, dims) if not hops else "(no path recorded)"
    out = node_str(recs[0].get("node", start), dims)
    if recs[0].get("node") != start:
        out = "? " + out
    for i, e in enumerate(recs):
        label = e.get("out")
        if label in PORT_LABELS and isinstance(e.get("node"), int):
            nxt = port_step(e["node"], port_key(label), dims)
        else:
            nxt = None
        if i + 1 < len(recs):
            rec_next = recs[i + 1].get("node")
            mark = "" if rec_next == nxt else "?"
            out += f" -{label}-> {mark}{node_str(rec_next, dims)}"
        else:
            out += f" -{label}-> " + (node_str(nxt, dims) if nxt is not None
                                      else "?")
    if isinstance(hops, int) and hops > len(recs):
        out += " ..."
    return out


def fmt_us(v):
    """Nanoseconds as microseconds, '?' when not a number."""
    if not isinstance(v, (int, float)) or isinstance(v, bool):
        return "?"
    return f"{v / 1000:.1f}"


def ping_lines(fab, a, b, length, count, r):
    dims = fab.topology()["dims"]
    head = f"{node_str(a, dims)} -> {node_str(b, dims)}, {length} bytes"
    if count > 1:
        head += f" x {count}"
    hops = r.get("hops") or [None, None]
    if count == 1 and not ping_answered(r, count):
        return [f"{head}: no answer ({r.get('error') or r.get('state')})"]
    lines = []
    if count == 1:
        lines.append(f"{head}: {hops[0]} hop{'s' if hops[0] != 1 else ''} "
                     f"there, {hops[1]} back, rtt {fmt_us(r.get('rtt_ns'))} "
                     "us")
    else:
        s = f"{head}: {r.get('ok')} answered, {r.get('failed')} failed"
        if r.get("error"):
            s += f" ({r['error']})"
        done = r.get("done")
        if isinstance(done, int) and done < count:
            s += f", stopped after {done}"
        if r.get("ok"):
            s += (f"; last: {hops[0]} hop{'s' if hops[0] != 1 else ''} "
                  f"there, {hops[1]} back; rtt "
                  f"min/avg/max {fmt_us(r.get('rtt_ns_min'))}/"
                  f"{fmt_us(r.get('rtt_ns_avg'))}/"
                  f"{fmt_us(r.get('rtt_ns_max'))} us")
        lines.append(s)
    if r.get("ok"):
        lines.append("  there: " + render_path(path_records(r, "req"), a,
                                               hops[0], dims))
        lines.append("  back:  " + render_path(path_records(r, "rsp"), b,
                                               hops[1], dims))
    return lines


def check_ping_args(args):
    if not 0 <= args.len <= DIAG_MAX_LEN:
        raise Failure(f"--len {args.len}: 0 to {DIAG_MAX_LEN} bytes",
                      EXIT_USAGE)
    if not 1 <= args.count <= DIAG_MAX_COUNT:
        raise Failure(f"--count {args.count}: 1 to {DIAG_MAX_COUNT}",
                      EXIT_USAGE)


def cmd_ping(args):
    fab = Fabric(args.fabric)
    topo = fab.topology()
    need_gemini(fab)
    dims = topo["dims"]
    check_ping_args(args)
    if args.all:
        if args.src is not None:
            raise Failure("ping --all takes no nodes", EXIT_USAGE)
        return ping_all(fab, args)
    if args.dest is None:
        raise Failure("ping needs two nodes, A and B (or --all)",
                      EXIT_USAGE)
    a, b = fab.node_arg(args.src), fab.node_arg(args.dest)
    r = diag_ping(fab, a, b, args.len, args.count, args.timeout)
    ok = ping_answered(r, args.count)
    if args.json:
        json.dump({"src": a, "dest": b, "src_coord": coord_of(a, dims),
                   "dest_coord": coord_of(b, dims), "len": args.len,
                   "count": args.count, "distance": torus_distance(a, b, dims),
                   "answered": ok, "result": r}, sys.stdout, indent=1)
        print()
    else:
        for ln in ping_lines(fab, a, b, args.len, args.count, r):
            print(ln)
    return EXIT_OK if ok else EXIT_FAIL


def ping_all(fab, args):
    topo = fab.topology()
    dims = topo["dims"]
    nodes = list(range(len(topo["nodes"])))
    out_lock = threading.Lock()

    def from_node(a):
        res = {}
        for b in nodes:
            if b == a:
                continue
            try:
                res[b] = diag_ping(fab, a, b, args.len, args.count,
                                   args.timeout)
            except Failure as e:
                res[b] = {"state": "error", "error": str(e)}
            if args.verbose and not args.json:
                with out_lock:
                    for ln in ping_lines(fab, a, b, args.len, args.count,
                                         res[b]):
                        print(ln, flush=True)
        return res
    results = dict(zip(nodes, parallel(from_node, nodes)))
    pairs = []
    for a in nodes:
        for b in nodes:
            if a != b:
                r = results[a][b]
                pairs.append({"src": a, "dest": b,
                              "distance": torus_distance(a, b, dims),
                              "answered": ping_answered(r, args.count),
                              "result": r})
    nok = sum(p["answered"] for p in pairs)
    if args.json:
        json.dump({"dims": dims, "len": args.len, "count": args.count,
                   "pairs": pairs, "answered": nok,
                   "failed": len(pairs) - nok}, sys.stdout, indent=1)
        print()
        return EXIT_OK if nok == len(pairs) else EXIT_FAIL
    print("hops there/back from each row's node to each column's node "
          "(x: no answer, *: longer than the torus distance)")
    cells = {}
    for p in pairs:
        r = p["result"]
        if not p["answered"]:
            cells[p["src"], p["dest"]] = "x"
        else:
            h = r.get("hops") or ["?", "?"]
            longer = any(isinstance(v, int) and v > p["distance"] for v in h)
            cells[p["src"], p["dest"]] = f"{h[0]}/{h[1]}" + \
                ("*" if longer else "")
    labels = [node_str(n, dims) for n in nodes]
    w0 = max(len(s) for s in labels)
    w = max([len(str(n)) for n in nodes] + [len(c) for c in cells.values()])
    print(" " * w0 + "".join(f"  {n:>{w}}" for n in nodes))
    for a in nodes:
        print(f"{labels[a]:<{w0}}" + "".join(
            f"  {cells.get((a, b), '.'):>{w}}" for b in nodes))
    rtts = [p["result"].get("rtt_ns_avg") or p["result"].get("rtt_ns")
            for p in pairs if p["answered"]]
    rtts = [v for v in rtts if isinstance(v, (int, float))]
    print(f"{len(pairs)} pairs: {nok} answered, {len(pairs) - nok} failed"
          + (f"; rtt avg {fmt_us(sum(rtts) / len(rtts))} us" if rtts
             else ""))
    for p in pairs:
        if not p["answered"]:
            r = p["result"]
            why = r.get("error") or r.get("state")
            if args.count > 1 and "ok" in r:
                why = f"{r.get('ok')} answered, {r.get('failed')} failed" \
                    + (f", {r['error']}" if r.get("error") else "")
            print(f"no answer: {node_str(p['src'], dims)} -> "
                  f"{node_str(p['dest'], dims)}: {why}")
    return EXIT_OK if nok == len(pairs) else EXIT_FAIL
