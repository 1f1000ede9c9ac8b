#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Host-side fabric test: boot a torus, check every link and neighbour;
connect kernel clients across it (kgni_ktest's peer commands: datagrams,
SMSG, RDMA) and keep their traffic going through a link fault and
through a node that loses all its links; kill a node and watch its
neighbours notice, tear down and check that nothing is left.  Prints TAP.

usage: fabric-test.py DIMS     (e.g. 2x2x2)
"""

import json
import os
import re
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
OOPS = re.compile(r"\bBUG\b|WARNING|Oops|Call Trace|general protection")


def ktest(n, *cmds):
    """Load the kernel API's test client on node n if need be, give it
    each command; the last one's result (its debugfs file) or None."""
    script = ("[ -e %s ] || insmod /lib/modules/kgni_ktest.ko || exit 1; " %
              KTEST + "; ".join(f"echo {c} >{KTEST}/ctl || exit 1"
                                for c in cmds) + f"; cat {KTEST}/result")
    rc, out = vg("exec", str(n), "--", "sh", "-c", script, timeout=120)[:2]
    return out if rc == 0 else None


def peer_conns(out):
    """The 'peer' line of a peer status (or wait) result as a dict, and
    its connections that are not listening, {nid: dict} (the one up if
    there are more), numbers as int."""
    head, conns = {}, {}
    for line in (out or "").splitlines():
        f = line.split()
        if f and f[0] == "peer":
            f = f[1:]
        elif not f or f[0] != "conn":
            continue
        d = {k: int(v) if v.lstrip("-").isdigit() else v
             for k, v in zip(f[::2], f[1::2])}
        if "conn" not in d:
            head = d
        elif d.get("state") != "listen" and (
                conns.get(d["nid"], {}).get("state") != "up"):
            conns[d["nid"]] = d
    return head, conns


def peer_status(n):
    return peer_conns(ktest(n, "peer status"))


def peer_wait(n, seconds=60):
    """Node n's 'peer wait': (done, head, conns)."""
    out = ktest(n, f"peer wait {seconds}") or ""
    return out.startswith("wait done"), *peer_conns(out)


def clean(c, *keys):
    """Connection c counts nothing in keys (default: what would be wrong)."""
    keys = keys or ("bad", "order", "errors", "outstanding", "rdma_bad",
                    "win_bad")
    return c is not None and all(c.get(k) == 0 for k in keys)


def wait_routes_clean(limit):
    """Seconds until the loaded routing avoids no link (the supervisor is
    done with a fault), or None."""
    t0 = time.time()
    while time.time() - t0 < limit:
        r = status().get("routing", {})
        if r.get("loaded") and not r.get("failed") and not r.get("down"):
            return time.time() - t0
        time.sleep(1)
    return None


def wait_for(cond, limit, every=1.0):
    """Seconds until cond() is true, or None."""
    t0 = time.time()
    while time.time() - t0 < limit:
        if cond():
            return time.time() - t0
        time.sleep(every)
    return None


def peers(last):
    """Kernel clients across the fabric: nodes 1 and last listen, node 0
    connects to both (1 and 3 hops), short messages and RDMA both ways,
    each byte checked by the side that gets it."""
    far = [1, last]
    start = {n: ktest(n, "peer listen") for n in far}
    out = ktest(0, "peer connect " + " ".join(map(str, far)))
    up = [f"connect {n} pe 0x{n << 2:x} up" for n in far]
    tap(all((start[n] or "").startswith(f"rc 0 pe 0x{n << 2:x} nid {n}")
            for n in far) and
        all(any(x.startswith(u) for x in (out or "").splitlines())
            for u in up),
        f"kernel clients: nodes 1 and {last} listen (a wildcard datagram), "
        "node 0 connects to both (bound datagrams, 1 and 3 hops)",
        json.dumps({"listen": start, "connect": out}))

    ktest(0, "peer smsg 400", "peer rdma 1048576 2")
    ktest(last, "peer smsg 200")
    done0, head0, c0 = peer_wait(0)
    donel, _, cl = peer_wait(last)
    ktest(0, "peer rdma 12 1")
    done0 &= peer_wait(0)[0]
    head0, c0 = peer_status(0)
    _, c1 = peer_status(1)
    _, cl = peer_status(last)
    sent = all(c0.get(n, {}).get(k) == 400 for n in far
               for k in ("want", "sent", "echoed")) and \
        c1.get(0, {}).get("rx") == 400 and cl.get(0, {}).get("rx") == 400
    tap(done0 and donel and sent and cl.get(0, {}).get("echoed") == 200 and
        c0.get(last, {}).get("rx") == 200 and
        all(clean(c) for c in (c0.get(1), c0.get(last), c1.get(0),
                               cl.get(0))),
        f"SMSG: 400 messages from node 0 to nodes 1 and {last} and 200 "
        f"from node {last} to node 0, each checked byte for byte and in "
        "order where it arrived and echoed back, checked again",
        json.dumps({"0": c0, "1": c1, str(last): cl}))
    tap(all(c0.get(n, {}).get("puts") == 3 and
            c0.get(n, {}).get("gets") == 3 and
            c0.get(n, {}).get("rdma_bytes") == 2 * (2 * 1048576 + 12)
            for n in far) and
        c1.get(0, {}).get("win_checked") == 3 and
        cl.get(0, {}).get("win_checked") == 3,
        "RDMA: 1 MiB twice and 12 bytes PUT from a vmalloc registration "
        "into the peer's window of pages (gni_mem_register_segments), "
        "checked there, then GET back as the peer rewrote it, checked",
        json.dumps({"0": c0, "1": c1, str(last): cl}))
    tap(all(head0.get(k, 0) > 0 for k in ("tx_calls", "rx_calls",
                                           "rdma_calls")) and
        head0.get("bad_calls") == 0 and
        head0.get("overruns") == 0 and head0.get("stray") == 0,
        "every CQ handler call in hard IRQ with device 0; no event lost "
        "(overrun) or naming nothing (stray)", json.dumps(head0))


def link_fault(last):
    """Node 0's X+ link, the first hop to node 1 and to the last node,
    goes down while node 0 streams to both: kgni's SMSG sends fail and
    are sent again until the supervisor reroutes; the streams go on and
    end complete, once, in order."""
    far = [1, last]
    ktest(0, "peer smsg 1000000 1 %d" % last)
    flowing = wait_for(lambda: all(
        c.get("echoed", 0) >= 200 for n, c in peer_status(0)[1].items()
        if n in far), 30)
    vg("fault", "0", "X+", "down=1", timeout=120)
    t_fault = time.time()
    before = {n: c.get("sent", 0) for n, c in peer_status(0)[1].items()}
    # A message sent after the fault was echoed: it went round
    resumed = wait_for(lambda: all(
        peer_status(0)[1].get(n, {}).get("echoed", 0) > before.get(n, 0)
        + 50 for n in far), 60)
    took = time.time() - t_fault
    ktest(0, "peer halt")
    done, _, c0 = peer_wait(0)
    ktest(0, "peer rdma 65536 2 1 %d" % last)
    done &= peer_wait(0)[0]
    _, c0 = peer_status(0)
    rx = {n: peer_status(n)[1].get(0, {}) for n in far}
    tap(flowing is not None and resumed is not None and done and
        all(c0.get(n, {}).get("sent") == c0.get(n, {}).get("echoed") ==
            rx[n].get("rx") and clean(c0.get(n)) and clean(rx[n])
            for n in far),
        f"link 0 X+ down mid-stream: the streams to nodes 1 and {last} "
        f"stalled, went on after the reroute ({took:.1f}s) and ended "
        "complete: each message once, in order, intact, no error event "
        f"({', '.join(str(c0.get(n, {}).get('sent')) for n in far)} sent)",
        json.dumps({"before": before, "0": c0, "far": rx}))
    tap(all(c0.get(n, {}).get("puts") == 5 and
            c0.get(n, {}).get("gets") == 5 for n in far),
        "RDMA over the rerouted paths, checked", json.dumps(c0))
    vg("fault", "0", "X+", "none", timeout=120)
    took = wait_routes_clean(60)
    tap(took is not None, f"the link back in the routes "
        f"({'never' if took is None else '%.1fs' % took})",
        json.dumps(status().get("routing")))


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
    sees the node list say so.  Meanwhile the kernel clients of peers()
    have traffic on: the connections between node 0 and the isolated node
    are lost on both sides, what was in flight ends in error events; node
    0's stream to node 1 goes on; once the node is back, node 0 connects
    to it again.  The clients are unloaded with their connections open."""
    last = total - 1
    rest = list(range(last))
    watch = {n: ktest(n, "rca watch") for n in (0, last)}
    tap(all(w == "rc 0\n" for w in watch.values()),
        f"nodes 0 and {last}: a kernel client registers with RCA and "
        "subscribes to the node events", json.dumps(watch))
    # Traffic on: node 0 streams to node 1, the last node to node 0
    ktest(0, "peer smsg 1000000 1")
    ktest(last, "peer smsg 1000000")
    for p in PORTS:
        vg("fault", str(last), p, "down=1", timeout=120)
    # Posts and sends the dead node cannot answer, before anyone knows
    ktest(0, f"peer rdma 1048576 2 {last}", f"peer smsg 100 {last}")
    ktest(last, "peer rdma 1048576 1 0")
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
    lost = {}

    def both_lost():
        for a, b in ((0, last), (last, 0)):
            lost[a] = peer_status(a)[1].get(b, {})
        return all(c.get("state") == "lost" and c.get("outstanding") == 0
                   for c in lost.values())

    ended = wait_for(both_lost, 30)
    tap(ended is not None and all(
        c.get("why") in ("rca", "error") and c.get("errors", 0) > 0 and
        c.get("timeouts", 0) > 0 for c in lost.values()) and len(lost) == 2,
        f"node {last} down mid-traffic: node 0 reports it lost, and node "
        f"{last} node 0; what each had in flight to the other ended with "
        "error completions (timeouts), none left hanging",
        json.dumps(lost))
    echoed = peer_status(0)[1].get(1, {}).get("echoed", 0)
    on = wait_for(lambda: peer_status(0)[1].get(1, {}).get("echoed", 0) >
                  echoed + 100, 20)
    _, c0 = peer_status(0)
    tap(on is not None and c0.get(1, {}).get("state") == "up" and
        clean(c0.get(1), "bad", "order", "errors"),
        f"node 0's stream to node 1 runs on meanwhile "
        f"({c0.get(1, {}).get('echoed')} messages)", json.dumps(c0))
    for p in PORTS:
        vg("fault", str(last), p, "none", timeout=120)
    took, seen = wait_reachable({n: node_list(range(total))
                                 for n in range(total)}, 60)
    tap(took is not None,
        f"its links back: every node reaches every node again "
        f"({'never' if took is None else '%.1fs' % took})", json.dumps(seen))
    # The supervisor may load a table more (all links back): a transfer
    # across a reload can end in a timeout, so wait for the last one
    wait_routes_clean(60)
    ktest(0, "peer halt")
    done, _, c0 = peer_wait(0)
    r1 = peer_status(1)[1].get(0, {})
    tap(done and c0.get(1, {}).get("sent") == c0.get(1, {}).get("echoed")
        == r1.get("rx") and clean(c0.get(1)) and clean(r1),
        "node 0's stream to node 1 ends complete: each message once, in "
        f"order, intact ({c0.get(1, {}).get('sent')})",
        json.dumps({"0": c0, "1": r1}))
    out = ktest(0, f"peer connect {last}")
    ktest(0, f"peer smsg 300 {last}", f"peer rdma 1048576 2 {last}")
    done, _, c0 = peer_wait(0)
    rl = peer_status(last)[1].get(0, {})
    tap(f"connect {last} pe 0x{last << 2:x} up" in (out or "") and done and
        all(c0.get(last, {}).get(k) == 300 for k in ("sent", "echoed")) and
        c0.get(last, {}).get("gets") == 2 and rl.get("rx") == 300 and
        rl.get("win_checked") == 2 and clean(c0.get(last)) and clean(rl),
        f"node {last} back: node 0 connects to it again, SMSG and RDMA "
        "checked", json.dumps({"connect": out, "0": c0, str(last): rl}))
    end = {n: ktest(n, "rca read") for n in (0, last)}
    tap(rca_events(end[0]) == [("available", last, "0x2")] and
        rca_events(end[last]) == [("available", n, "0x2") for n in rest]
        and not rca_down(end[0]) and not rca_down(end[last]),
        "RCA: then ec_node_available for the same nodes, all listed up",
        json.dumps(end))
    stop = {n: ktest(n, "rca stop") for n in (0, last)}
    # Unloaded with the peer connections open: the client tears them down
    rc = [vg("exec", str(n), "--", "rmmod", "kgni_ktest", timeout=120)[0]
          for n in (0, 1, last)]
    tap(all(x == "rc 0\n" for x in stop.values()) and rc == [0, 0, 0],
        "RCA: unsubscribed, unregistered; the client unloaded on nodes 0, "
        f"1 and {last} with its connections open", json.dumps(stop))
    bad = {n: [x for x in vg("exec", str(n), "--", "dmesg", timeout=60)[1]
               .splitlines() if OOPS.search(x)]
           for n in (0, 1, last)}
    tap(not any(bad.values()), "no BUG, WARNING or oops in their kernel "
        "logs", json.dumps(bad))
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

    last = total - 1
    peers(last)
    link_fault(last)
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
