#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Host-side fabric test: boot a torus, check every link and neighbour,
kill a node and watch its neighbours notice, tear down and check that
nothing is left.  Prints TAP.

usage: fabric-test.py DIMS     (e.g. 2x2x2)
"""

import json
import os
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.realpath(__file__))))
VGEMINI = os.path.join(REPO, "scripts", "vgemini")
sys.path.insert(0, os.path.join(REPO, "scripts"))
# The launcher's port keys ("xp" ...) in the device's order, from their one
# source (uapi/vgemini_names.h)
from vgemini_launcher.torus import PORTS  # noqa: E402
# The kernel's bitmap list format: "0-5,7"
from vgemini_launcher.pmi import rank_ranges as node_list  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
from tap import Tap  # noqa: E402

TAP = None


def tap(ok, name, diag=""):
    TAP.ok(ok, name, diag)


def vg(*args, timeout=600):
    p = subprocess.run([VGEMINI, *args], capture_output=True, text=True,
                       timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def status():
    rc, out, err = vg("status", "--json", timeout=120)
    try:
        return json.loads(out)
    except ValueError:
        raise RuntimeError(f"status --json gave no JSON (rc {rc}): {err}")


def node_id(c, dims):
    return c[0] + dims[0] * (c[1] + dims[1] * c[2])


def neighbour(c, dims, port):
    """Coordinates of the neighbour through port, computed here, not read
    from the device."""
    d = PORTS.index(port) // 2
    step = -1 if PORTS.index(port) % 2 else 1
    n = list(c)
    n[d] = (n[d] + step) % dims[d]
    return n


def pe_str(c, dims):
    return "0x%x" % (node_id(c, dims) << 2)


def reachable(nodes):
    """Each node's /sys/class/gni/kgni0/reachable."""
    return {n: vg("exec", str(n), "--", "cat",
                  "/sys/class/gni/kgni0/reachable", timeout=60)[1].strip()
            for n in nodes}


def wait_reachable(want, limit):
    """Wait until each node n of @want reads want[n]; seconds taken or None."""
    t0 = time.time()
    seen = {}
    while time.time() - t0 < limit:
        seen = reachable(want)
        if seen == want:
            return time.time() - t0, seen
        time.sleep(1)
    return None, seen


def dmesg_lines(n, word):
    """Node n's kernel log lines that contain @word."""
    out = vg("exec", str(n), "--", "dmesg", timeout=60)[1]
    return [line for line in out.splitlines() if word in line]


KTEST = "/sys/kernel/debug/kgni_ktest"


def ktest(n, *cmds):
    """Load the kernel API's test client on node n if need be, give it
    each command; the last one's result (its debugfs file) or None."""
    script = ("[ -e %s ] || insmod /lib/modules/kgni_ktest.ko || exit 1; " %
              KTEST + "; ".join(f"echo {c} >{KTEST}/ctl || exit 1"
                                for c in cmds) + f"; cat {KTEST}/result")
    rc, out = vg("exec", str(n), "--", "sh", "-c", script, timeout=120)[:2]
    return out if rc == 0 else None


def rca_events(out):
    """[(code, nid, state)] of an 'rca read' result, in order."""
    ev = []
    for line in (out or "").splitlines():
        f = line.split()
        if len(f) == 7 and f[0] == "event":
            ev.append((f[2], int(f[4]), f[6]))
    return ev


def rca_down(out):
    """The nodes an 'rca read' result lists down."""
    return [int(f[1]) for f in (ln.split() for ln in (out or "").splitlines())
            if len(f) == 3 and f[0] == "node" and f[2] == "down"]


def isolate(total):
    """Node total-1 loses all six links, then gets them back: every node's
    kgni reports it unreachable, then reachable again (REACH, LINK_IRQ),
    and a kernel client's RCA (kgni_ktest's rca commands on node 0 and the
    isolated node) gets node-unavailable then node-available events, and
    sees the node list say so."""
    last = total - 1
    rest = list(range(last))
    watch = {n: ktest(n, "rca watch") for n in (0, last)}
    tap(all(w == "rc 0\n" for w in watch.values()),
        f"nodes 0 and {last}: a kernel client registers with RCA and "
        "subscribes to the node events", json.dumps(watch))
    for p in PORTS:
        vg("fault", str(last), p, "down=1", timeout=120)
    took, seen = wait_reachable(
        {**{n: node_list(rest) for n in rest}, last: str(last)}, 60)
    tap(took is not None,
        f"node {last} with every link down: unreachable from the others, "
        f"which it cannot reach ({'never' if took is None else '%.1fs' % took})",
        json.dumps(seen))
    mid = {n: ktest(n, "rca read") for n in (0, last)}
    tap(rca_events(mid[0]) == [("unavailable", last, "0x4")] and
        rca_down(mid[0]) == [last] and
        rca_events(mid[last]) == [("unavailable", n, "0x4") for n in rest]
        and rca_down(mid[last]) == rest,
        f"RCA: node 0 got ec_node_unavailable for node {last} and lists "
        f"it down; node {last} got it for each other node, and lists them "
        "down", json.dumps(mid))
    for p in PORTS:
        vg("fault", str(last), p, "none", timeout=120)
    took, seen = wait_reachable({n: node_list(range(total))
                                 for n in range(total)}, 60)
    tap(took is not None,
        f"its links back: every node reaches every node again "
        f"({'never' if took is None else '%.1fs' % took})", json.dumps(seen))
    end = {n: ktest(n, "rca read") for n in (0, last)}
    tap(rca_events(end[0]) == [("available", last, "0x2")] and
        rca_events(end[last]) == [("available", n, "0x2") for n in rest]
        and not rca_down(end[0]) and not rca_down(end[last]),
        "RCA: then ec_node_available for the same nodes, all listed up",
        json.dumps(end))
    stop = {n: ktest(n, "rca stop") for n in (0, last)}
    rc = [vg("exec", str(n), "--", "rmmod", "kgni_ktest", timeout=120)[0]
          for n in (0, last)]
    tap(all(x == "rc 0\n" for x in stop.values()) and rc == [0, 0],
        "RCA: unsubscribed, unregistered, the client unloaded",
        json.dumps(stop))
    bad = []
    for n in rest:
        lines = dmesg_lines(n, "reachable")
        if [x.split(": ", 1)[-1] for x in lines] != [
                f"nodes {last} unreachable", f"nodes {last} reachable again"]:
            bad.append(f"node {n}: {lines}")
    lines = dmesg_lines(last, "reachable")
    if [x.split(": ", 1)[-1] for x in lines] != [
            f"nodes {node_list(rest)} unreachable",
            f"nodes {node_list(rest)} reachable again"]:
        bad.append(f"node {last}: {lines}")
    tap(not bad, "each node logged the loss and the return once", "\n".join(bad))


def main():
    dims = [int(v) for v in sys.argv[1].split("x")]
    total = dims[0] * dims[1] * dims[2]
    fabric = os.environ.get("VGEMINI_FABRIC", "default")
    linkdir = f"/dev/shm/vgemini-{fabric}"
    rundir = os.path.join(os.environ.get("VGEMINI_RUNDIR", "/run/vgemini"),
                          fabric)
    t0 = time.time()
    rc, out, err = vg("up", "--dims", sys.argv[1])
    boot = time.time() - t0
    tap(rc == 0, f"up --dims {sys.argv[1]} ({boot:.1f}s)", out + err)
    if rc != 0:
        vg("down")
        return

    # Every port up, and its peer the neighbour the torus puts there.
    st = status()
    bad = []
    up = 0
    for node in st["nodes"]:
        c = node["coord"]
        for p in PORTS:
            s = node["ports"][p]
            want = pe_str(neighbour(c, dims, p), dims)
            if s["state"] == "up" and s["peer"] == want:
                up += 1
            else:
                bad.append(f"node {node['node']} {c} {p}: {s}, want up {want}")
    tap(len(st["nodes"]) == total and up == 6 * total,
        f"{total} nodes, {up} of {6 * total} ports up with the right "
        "neighbours", "\n".join(bad[:20]))

    isolate(total)

    # Kill one node; its neighbours must see their ports to it go down
    # within 10 s, and nothing else may change.
    victim = [0, 0, 0]
    rc, out, err = vg("kill", "0")
    killed = time.time()
    tap(rc == 0, "kill node 0", out + err)
    facing = {}
    for p in PORTS:
        n = neighbour(victim, dims, p)
        if n == victim:
            continue
        # The port of n that faces the victim is the opposite one.
        opp = PORTS[PORTS.index(p) ^ 1]
        facing.setdefault(node_id(n, dims), set()).add(opp)
        # In a dimension of size 2 both of n's ports face the victim.
        if dims[PORTS.index(p) // 2] == 2:
            facing[node_id(n, dims)].add(p)
    seen_down = None
    while time.time() - killed < 30:
        st = status()
        down = all(st["nodes"][n]["ports"][p]["state"] == "down"
                   for n, ps in facing.items() for p in ps)
        if down:
            seen_down = time.time() - killed
            break
        time.sleep(0.5)
    tap(seen_down is not None and seen_down <= 10,
        f"neighbours see node 0's links down within 10 s "
        f"({'never' if seen_down is None else '%.1fs' % seen_down})",
        json.dumps({n: sorted(ps) for n, ps in facing.items()}))

    wrong = []
    for node in st["nodes"]:
        n = node["node"]
        if n == 0:
            if node["state"] == "up":
                wrong.append("node 0 still answers")
            continue
        if node["state"] != "up":
            wrong.append(f"node {n} is {node['state']}: {node.get('error')}")
            continue
        for p in PORTS:
            want = "down" if p in facing.get(n, ()) else "up"
            if node["ports"][p]["state"] != want:
                wrong.append(f"node {n} {p}: {node['ports'][p]}, want {want}")
    tap(not wrong, "the other nodes run on, their other ports stay up",
        "\n".join(wrong[:20]))

    # The supervisor reroutes around the dead node; every other node's
    # kgni sees it unreachable and logs it once.
    took, seen = wait_reachable({n: node_list(range(1, total))
                                 for n in range(1, total)},
                                60 - (time.time() - killed))
    tap(took is not None,
        f"after the reroute node 0 is unreachable from every other node "
        f"({'never' if took is None else '%.1fs' % (time.time() - killed)})",
        json.dumps(seen))
    bad = [n for n in range(1, total)
           if len([x for x in dmesg_lines(n, "reachable")
                   if x.endswith("nodes 0 unreachable")]) != 1]
    tap(not bad, "each of them logged 'nodes 0 unreachable' once",
        f"nodes {bad}")

    rc, out, err = vg("exec", "all", "--", "true", timeout=300)
    tap(rc != 0, "exec all fails for the dead node, not silently",
        out + err)

    rc, out, err = vg("down")
    tap(rc == 0, "down", out + err)
    left = subprocess.run(["pgrep", "-f", rundir + "/"],
                          capture_output=True, text=True).stdout.split()
    files = [p for p in (rundir, linkdir) if os.path.exists(p)]
    tap(not left and not files, "down leaves no process, socket or link file",
        f"processes {left}, files {files}")

    print(f"# boot of {sys.argv[1]}: {boot:.1f}s", flush=True)


if __name__ == "__main__":
    TAP = Tap()
    try:
        main()
    except Exception as e:  # report, clean up, fail
        tap(False, f"fabric test raised {type(e).__name__}: {e}")
        vg("down")
    sys.exit(TAP.finish())
