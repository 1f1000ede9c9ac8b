#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Link faults and rerouting on a 2x2x2 torus:

1. corrupt=0.1 on node 0's X+ (requests 0 -> 1 cross it; responses come
   back through the other X cable): 10000 pings all answered, node 0's
   X+ retried and node 1's X- counted CRC errors; then cleared;
2. node 0's X+ taken down (down=1) while a ping burst runs: the
   supervisor reroutes by itself (generation 2, avoiding that link),
   every pair answers again, no path crosses the link, the burst's
   ok + failed == count;
3. 'vgemini reroute' on command, with and without --fail, and --restore;
4. the link brought back: the supervisor reroutes to use it again.

No response may be answered twice: stale_rsp stays 0 on every node and
ok + failed == count for every burst.  Prints TAP.

usage: fabric-faults.py
"""

import json
import subprocess
import time

from fabric_lib import (VGEMINI, name, records, render, run_test, step, vg,
                        vg_json)

DIMS = "2x2x2"
A, B = 0, 1                     # (0,0,0) and (1,0,0)
LINK = "0:X+"                   # A's X+ <-> B's X-
BURST = 10000


def routing():
    rc, st, err = vg_json("status", "--json", timeout=300)
    return (st or {}).get("routing") or {}


def wait_routing(pred, timeout):
    """Poll the routing record until pred(record); (record, seconds) or
    (last record, None)."""
    t0 = time.time()
    r = {}
    while time.time() - t0 < timeout:
        r = routing()
        if pred(r):
            return r, time.time() - t0
        time.sleep(1)
    return r, None


def counters():
    rc, c, err = vg_json("counters", "--json", timeout=300)
    if rc != 0 or not c:
        raise RuntimeError(f"counters failed: {err}")
    return c


def stale(c):
    return {n: (v.get("nic") or {}).get("stale_rsp")
            for n, v in c["nodes"].items()
            if (v.get("nic") or {}).get("stale_rsp") != 0}


def crosses(result, dims, link_ends):
    """The records of a ping that use one of the (node, port) ends."""
    return [r for r in result.get("path") or []
            if (r.get("node"), r.get("out")) in link_ends]


def body(tap, fab):
    dims = [2, 2, 2]
    bursts = []         # (what, count, result) of every burst, for the end
    if not fab.up(tap, DIMS):
        return
    ends = {(A, "X+"), (B, "X-")}       # the link, seen from either end

    # --- 1. corruption: the link's retry hides it --------------------------
    rc, out, err = vg("fault", A, "X+", "corrupt=0.1", timeout=120)
    tap.ok(rc == 0 and "corrupt=0.1" in out,
           f"fault {A} X+ corrupt=0.1", out + err)
    before = counters()
    rc, p, err = vg_json("ping", A, B, "--count", BURST, "--json",
                         timeout=3600)
    r = (p or {}).get("result") or {}
    bursts.append((f"{BURST} pings over the corrupting link", BURST, r))
    tap.ok(rc == 0 and r.get("ok") == BURST and r.get("failed") == 0,
           f"{BURST} pings {name(A, dims)} -> {name(B, dims)} across it "
           "all answered", f"ok {r.get('ok')}, failed {r.get('failed')}, "
           f"error {r.get('error')} {err}")
    tap.ok(r and not crosses(r, dims, {(B, "X-")}) and
           crosses(r, dims, {(A, "X+")}),
           "requests cross the corrupting direction, responses the other "
           "cable", render(records(r, "req"), dims) + "\n" +
           render(records(r, "rsp"), dims))
    after = counters()

    def delta(n, label, key):
        return after["nodes"][str(n)]["ports"][label][key] - \
            before["nodes"][str(n)]["ports"][label][key]
    retry, crc = delta(A, "X+", "retry"), delta(B, "X-", "crc_err")
    tap.ok(retry > 0 and crc > 0,
           f"the sender's X+ retried ({retry}) and the receiver's X- "
           f"counted CRC errors ({crc})",
           f"faults {delta(A, 'X+', 'faults')}, nak {delta(B, 'X-', 'nak')}")
    tap.note(f"corrupt=0.1: {retry} retries, {crc} CRC errors for "
             f"{BURST} requests; rtt avg {r.get('rtt_ns_avg')} ns, max "
             f"{r.get('rtt_ns_max')} ns")
    rc, out, err = vg("fault", A, "X+", "none", timeout=120)
    tap.ok(rc == 0 and "no faults" in out, f"fault {A} X+ none clears it",
           out + err)

    # --- 2. the link goes down: automatic reroute --------------------------
    gen0 = routing().get("generation")
    rc, out, err = vg("fault", A, "X+", "down=1", timeout=120)
    t_down = time.time()
    tap.ok(rc == 0, f"fault {A} X+ down=1", out + err)
    # A burst that straddles the outage and the reroute.
    n_out = 100
    burst = subprocess.Popen([VGEMINI, "ping", str(A), str(B), "--count",
                              str(n_out), "--json"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    rec, took = wait_routing(lambda r: (r.get("generation") or 0) > gen0
                             and LINK in (r.get("failed") or []) and
                             r.get("loaded"), 90)
    tap.ok(took is not None,
           "the supervisor reroutes around the dead link by itself "
           f"({'never' if took is None else '%.1fs' % (time.time() - t_down)}"
           " after down=1)", json.dumps(rec) + "\n" + fab.supervisor_log())
    tap.ok(rec.get("failed") == [LINK] and rec.get("down") == [LINK],
           f"the tables avoid exactly {LINK}", json.dumps(rec))
    try:
        out, err = burst.communicate(timeout=n_out * 3 + 120)
    except subprocess.TimeoutExpired:
        burst.kill()
        out, err = burst.communicate()
    try:
        r = json.loads(out)["result"]
    except (ValueError, KeyError, TypeError):
        r = {}
    bursts.append(("the burst across the reroute", n_out, r))
    tap.ok(r.get("ok", 0) >= 1 and r.get("state") in ("done", "error"),
           f"the burst across the outage ended: {r.get('ok')} answered, "
           f"{r.get('failed')} failed", err)

    rc, res, err = vg_json("ping", "--all", "--json", timeout=900)
    pairs = (res or {}).get("pairs") or []
    failed = [p for p in pairs if not p.get("answered")]
    tap.ok(rc == 0 and len(pairs) == 56 and not failed,
           "after the reroute every pair answers",
           "\n".join(f"{p['src']} -> {p['dest']}: {p['result']}"
                     for p in failed[:10]) + err)
    using = [f"{p['src']} -> {p['dest']}: " +
             render(records(p["result"], "req"), dims) + " / " +
             render(records(p["result"], "rsp"), dims)
             for p in pairs if crosses(p["result"], dims, ends)]
    tap.ok(pairs and not using, f"no path crosses {LINK} any more",
           "\n".join(using[:10]))
    c = counters()
    tap.ok(not stale(c), "no stale responses anywhere", json.dumps(stale(c)))

    # --- 3. reroute on command ---------------------------------------------
    gen = routing().get("generation") or 0
    rc, out, err = vg("reroute", timeout=300)
    rec = routing()
    tap.ok(rc == 0 and rec.get("generation") == gen + 1 and
           rec.get("failed") == [LINK],
           f"vgemini reroute: generation {gen + 1}, still avoiding the "
           "dead link", out + err + json.dumps(rec))
    other = "2:Y+"                  # (0,1,0) Y+ <-> (0,0,0) Y-
    rc, out, err = vg("reroute", "--fail", "0,0,0:Y-", timeout=300)
    rec = routing()
    tap.ok(rc == 0 and rec.get("generation") == gen + 2 and
           set(rec.get("failed") or []) == {LINK, other} and
           rec.get("admin") == [other],
           f"vgemini reroute --fail 0,0,0:Y- avoids {other} too",
           out + err + json.dumps(rec))
    rc, res, err = vg_json("ping", "--all", "--json", timeout=900)
    pairs = (res or {}).get("pairs") or []
    bad = [p for p in pairs if not p.get("answered") or
           crosses(p["result"], dims, ends | {(2, "Y+"), (A, "Y-")})]
    tap.ok(rc == 0 and len(pairs) == 56 and not bad,
           "every pair answers around both links",
           "\n".join(f"{p['src']} -> {p['dest']}: {p['result']}"
                     for p in bad[:10]) + err)
    rc, out, err = vg("reroute", "--auto", timeout=300)
    tap.ok(rc == 0 and "unchanged" in out and
           routing().get("generation") == gen + 2,
           "vgemini reroute --auto changes nothing when nothing changed",
           out + err)
    rc, out, err = vg("reroute", "--restore", other, timeout=300)
    rec = routing()
    tap.ok(rc == 0 and rec.get("failed") == [LINK] and
           not rec.get("admin"), f"vgemini reroute --restore {other}",
           out + err + json.dumps(rec))

    # --- 4. the link comes back ----------------------------------------------
    gen = rec.get("generation") or 0
    rc, out, err = vg("fault", A, "X+", "down=0", timeout=120)
    t_up = time.time()
    tap.ok(rc == 0, f"fault {A} X+ down=0 brings the link back", out + err)
    rec, took = wait_routing(lambda r: (r.get("generation") or 0) > gen and
                             not r.get("failed") and r.get("loaded"), 90)
    tap.ok(took is not None,
           "the supervisor reroutes to use the link again "
           f"({'never' if took is None else '%.1fs' % (time.time() - t_up)}"
           " after it came back)", json.dumps(rec) + "\n" +
           fab.supervisor_log())
    rc, p, err = vg_json("ping", A, B, "--count", 10, "--json", timeout=300)
    r = (p or {}).get("result") or {}
    bursts.append(("10 pings after the link came back", 10, r))
    first = records(r, "req")[:1]
    tap.ok(rc == 0 and r.get("ok") == 10 and first and
           first[0].get("out") == "X+" and
           step(A, "X+", dims) == B,
           f"pings {name(A, dims)} -> {name(B, dims)} take X+ again",
           render(records(r, "req"), dims) + err)

    rc, out, err = vg("fault", A, "X+", "none", timeout=120)
    tap.ok(rc == 0 and "no faults" in out, f"fault {A} X+ none", out + err)

    wrong = [f"{what}: ok {r.get('ok')} + failed {r.get('failed')} != "
             f"{count}" for what, count, r in bursts
             if (r.get("ok") or 0) + (r.get("failed") or 0) != count]
    tap.ok(not wrong, "every burst: ok + failed == count",
           "\n".join(wrong))
    c = counters()
    tap.ok(not stale(c), "stale_rsp is 0 on every node at the end",
           json.dumps(stale(c)))


if __name__ == "__main__":
    run_test("faults", body)
