#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Routing across a whole torus: boot it, check that the supervisor loaded
generation 1 everywhere, ping every ordered pair of nodes with the
routers' diagnostic ping, and check every reported hop count (there and
back) against the torus distance and every recorded path for
consistency (starts at the sender, each hop's port leads to the next
router, ends at the destination) and for dimension order (X, then Y, then
Z, the shorter way round, + on a tie).  Prints TAP.

usage: fabric-routing.py DIMS     (e.g. 2x2x2, 4x2x1, 3x3x1)
"""

import sys

from fabric_lib import (distance, dor_path, name, parse_dims, path_problems,
                        records, render, run_test, vg, vg_json)


def body(tap, fab, dims_s):
    dims = parse_dims(dims_s)
    nnodes = dims[0] * dims[1] * dims[2]
    if not fab.up(tap, dims_s):
        return

    rc, st, err = vg_json("status", "--json", timeout=300)
    bad = []
    if not st:
        bad.append(f"no status: {err}")
    else:
        r = st.get("routing") or {}
        if r.get("generation") != 1 or not r.get("loaded") or \
                r.get("failed"):
            bad.append(f"routing record {r}")
        if not (st.get("supervisor") or {}).get("running"):
            bad.append("the supervisor is not running")
        for nd in st["nodes"]:
            rt = nd.get("routes") or {}
            if rt.get("generation") != 1 or not rt.get("loaded") or \
                    rt.get("fabric") != "running":
                bad.append(f"node {nd['node']}: router reports {rt}")
    tap.ok(not bad, "every router runs routing generation 1, no failed "
           "links, the supervisor runs", "\n".join(bad[:20]))

    # Generous: TCG, and each pair is a few QMP round trips.
    rc, res, err = vg_json("ping", "--all", "--json",
                           timeout=120 + 10 * nnodes * nnodes)
    if res is None:
        tap.ok(False, "ping --all", err)
        return
    pairs = res.get("pairs") or []
    failed = [p for p in pairs if not p.get("answered")]
    tap.ok(rc == 0 and len(pairs) == nnodes * (nnodes - 1) and not failed,
           f"ping --all: {len(pairs) - len(failed)} of "
           f"{nnodes * (nnodes - 1)} ordered pairs answered",
           "\n".join(f"{name(p['src'], dims)} -> {name(p['dest'], dims)}: "
                     f"{p['result']}" for p in failed[:10]) + err)

    answered = [p for p in pairs if p.get("answered")]
    wrong = []
    for p in answered:
        a, b, r = p["src"], p["dest"], p["result"]
        want = distance(a, b, dims)
        if list(r.get("hops") or []) != [want, want]:
            wrong.append(f"{name(a, dims)} -> {name(b, dims)}: hops "
                         f"{r.get('hops')}, torus distance {want}")
    tap.ok(answered and not wrong, "every hop count, there and back, is "
           "the torus distance", "\n".join(wrong[:20]))

    wrong = []
    for p in answered:
        a, b, r = p["src"], p["dest"], p["result"]
        for w in path_problems(r, a, b, dims):
            wrong.append(f"{name(a, dims)} -> {name(b, dims)}: {w}")
    tap.ok(answered and not wrong, "every path starts at the sender, "
           "follows its ports hop by hop and ends at the destination",
           "\n".join(wrong[:20]))

    wrong = []
    for p in answered:
        a, b, r = p["src"], p["dest"], p["result"]
        for direction, s, d in (("req", a, b), ("rsp", b, a)):
            got = [(x.get("node"), x.get("out"))
                   for x in records(r, direction)]
            want = dor_path(s, d, dims)
            if got != want:
                want_recs = [{"node": n, "out": o} for n, o in want]
                wrong.append(f"{name(a, dims)} -> {name(b, dims)} "
                             f"{direction}: "
                             f"{render(records(r, direction), dims)}; "
                             f"dimension order: {render(want_recs, dims)}")
    tap.ok(answered and not wrong, "paths are dimension-ordered (X, Y, Z; "
           "shorter way round; + on a tie)", "\n".join(wrong[:20]))

    # The text form of one ping, to the farthest node.
    far = max(range(nnodes), key=lambda n: (distance(0, n, dims), n))
    rc, out, err = vg("ping", "0", str(far), timeout=120)
    if tap.ok(rc == 0 and "there:" in out and "back:" in out,
              f"vgemini ping 0 {far} prints the ping", out + err):
        tap.note(out)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    run_test("routing", lambda tap, fab: body(tap, fab, sys.argv[1]))
