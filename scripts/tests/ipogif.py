#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""ipogif0, IP over the fabric (Documentation/ipogif.rst), on a torus of
its own booted with --ipogif: every node has ipogif0 with its MAC
(00:01:01 + its NIC address), its address (10.128.0.0/14 + NID + 1), the
MTU of 65520 and IPv6 off; every node pings every other at once (all
ordered pairs, 0% loss, the connections made on demand, many of them
simultaneous); pings of a full short message (inline), of 60000 bytes
and near the MTU (one frame each by RDMA rendezvous), and of two
fragments, checked byte for byte across the three hops from (0,0,0) to
(1,1,1); 64 MiB over TCP between them checked byte for byte; the ARP
tables hold the 00:01:01 MACs; the counters (ip -s link) agree: every
packet and byte sent was received, none dropped or in error; so do the
rendezvous's (debugfs: every frame sent so received, no GET failed,
every TX slot free again); 64 MiB
again with 10% of the packets corrupted on a link of the path (its retry
and CRC error counters rise, the data arrive unchanged), and again with
that link taken down 4 s into the stream (the supervisor reroutes, the
same TCP connection delivers every byte); the far node alone reloads
ipogif while the others hold connections to it: they connect to its new
module (at most the first ping lost); then it loses every link: RCA
tells node 0, which drops its connections and frames for it and tries
none, until RCA says it is back and every node reaches it again; node 0
and the far node reload ipogif with a TX pool of 2 slots and 16 MiB over
TCP between them, stopping and waking the queue, arrive checked; "rmmod
ipogif" on every node at once while a TCP stream runs leaves nothing
behind (no object kgni frees for it, kgni unused) within a bound, and
after ipogif-up the pings go through again; then, idle with its
connections open, the fabric counts nothing; no BUG, WARNING or Oops in
any node's kernel log; down leaves nothing. The MACs and addresses are
computed here, never read from the launcher. Prints TAP.

usage: ipogif.py [DIMS]      (default 2x2x2)
"""

import json
import os
import re
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import fabric_lib as fl  # noqa: E402
# The device's counters, their one list (uapi/vgemini_names.h)
from vgemini_launcher.counters import (NIC_COUNTERS,  # noqa: E402
                                       PORT_COUNTERS)

SMSG_MAX = 4096                 # ipogif's default smsg_max
HDR = 16                        # struct ipogif_hdr
INLINE = SMSG_MAX - HDR         # the largest frame one message holds
MTU = 65520                     # frames above INLINE by RDMA rendezvous
POOL = 32                       # ipogif's default pool (TX slots)
INLINE_FULL = INLINE - 14 - 20 - 8  # an ICMP payload that fills a message
RDV = 60000                     # an ICMP payload of one rendezvous frame
BIG = MTU - 20 - 8              # an ICMP payload that fills one frame
FRAGMENTED = 65507              # the largest ICMP payload: two fragments
PINGS = 3                       # per ordered pair
TCP_BYTES = 64 << 20            # a TCP stream, checked at the receiver
TCP_FAULT_BYTES = 64 << 20      # with a link corrupting, or lost
LINK_DOWN_AFTER = 4             # seconds into the stream
TCP_PORT = 5201
# What kgni logs when a client leaves objects behind at gni_cdm_destroy()
KGNI_LEFT = "a kernel client destroyed its CDM with"


def mac(n):
    pe = n << 2                 # NID n's NIC address: Gemini id n, NIC 0
    return f"00:01:01:{pe >> 16:02x}:{(pe >> 8) & 0xff:02x}:{pe & 0xff:02x}"


def ip(n):
    h = n + 1
    return f"10.{128 + (h >> 16)}.{(h >> 8) & 0xff}.{h & 0xff}"


def on_all(script, timeout=300):
    """{node: [lines]} of a shell script run on every node at once, and
    (exit status, stderr)."""
    rc, out, err = fl.vg("exec", "all", "--timeout", timeout, "--", script,
                         timeout=timeout + 60)
    lines = {}
    for line in out.splitlines():
        m = re.match(r"\[(\d+)\] (.*)$", line)
        if m:
            lines.setdefault(int(m.group(1)), []).append(m.group(2))
    return lines, rc, err


def on(n, script, timeout=300):
    return fl.vg("exec", n, "--timeout", timeout, "--", script,
                 timeout=timeout + 60)


def ping_all(nodes, targets, count=PINGS, lost=0, interval=0.2):
    """Every node pings its targets (a function of the node) one after
    the other, all nodes at once; ({(src, dst): (loss, rtt)}, problems):
    a pair that lost more than @lost of its @count pings."""
    script = ("for t in $TARGETS; do "
              f"o=$(ping -c {count} -i {interval} -W 5 -q $t 2>&1); "
              "l=$(echo \"$o\" | "
              "sed -n 's/.* \\([0-9.]*\\)% packet loss.*/\\1/p'); "
              "r=$(echo \"$o\" | sed -n 's|.*= \\([0-9./]*\\) ms.*|\\1|p'); "
              "echo \"P $t ${l:-?} ${r:--}\"; done")
    case = " ".join(f"{n}) TARGETS='{' '.join(ip(m) for m in targets(n))}' ;;"
                    for n in nodes)
    lines, rc, err = on_all(f"case $VGEMINI_NODE in {case} esac; " + script)
    seen, bad = {}, []
    by_ip = {ip(m): m for m in nodes}
    for n in nodes:
        for line in lines.get(n, []):
            f = line.split()
            if len(f) == 4 and f[0] == "P" and f[1] in by_ip:
                seen[(n, by_ip[f[1]])] = (f[2], f[3])
    for n in nodes:
        for m in targets(n):
            loss, rtt = seen.get((n, m), ("no answer", "-"))
            try:
                over = float(loss) * count > lost * 100 + 1
            except ValueError:
                over = True
            if over:
                bad.append(f"{n} -> {m}: {loss}% loss")
    if rc:
        bad.append(f"exec all: exit {rc}: {err.strip()}")
    return seen, bad


def rtt_summary(seen):
    """min/avg/max of the pings' averages, in ms."""
    avgs = [float(r.split("/")[1]) for _, r in seen.values()
            if r.count("/") == 2]
    if not avgs:
        return "no round trips"
    return (f"{min(avgs):.2f}/{sum(avgs) / len(avgs):.2f}/{max(avgs):.2f} "
            "ms (min/avg/max of the pairs' averages)")


STATS = ("rx_packets", "tx_packets", "rx_bytes", "tx_bytes", "rx_dropped",
         "tx_dropped", "rx_errors", "tx_errors")
# iproute2's ip, from the host's /usr the guests see (busybox ip has no -s)
IP_S_LINK = "chroot /run/vgemini/host /usr/bin/ip -s link show dev ipogif0"


def parse_ip_s_link(lines):
    """{counter: value} of ip -s link's RX: and TX: blocks."""
    out = {}
    for i, line in enumerate(lines[:-1]):
        f = line.split()
        if f and f[0] in ("RX:", "TX:"):
            d = f[0][:2].lower()
            v = lines[i + 1].split()
            for k, name in enumerate(f[1:5]):
                if k < len(v) and v[k].isdigit():
                    out[f"{d}_{name}"] = int(v[k])
    return out


def counters(nodes):
    """{node: {counter: value}} of ipogif0, as ip -s link shows them."""
    lines, rc, err = on_all(IP_S_LINK)
    return {n: parse_ip_s_link(lines.get(n, [])) for n in nodes}


def idle_counters(nodes, tries=10):
    """The counters once two reads a second apart agree (nothing in
    flight); the last read if they never do."""
    last = counters(nodes)
    for _ in range(tries):
        time.sleep(1)
        now = counters(nodes)
        if now == last:
            return now, True
        last = now
    return last, False


def check_counters(tap, nodes, what):
    c, still = idle_counters(nodes)
    missing = [n for n in nodes if set(c[n]) != set(STATS)]
    tot = {k: sum(c[n].get(k, 0) for n in nodes) for k in STATS}
    tap.ok(still and not missing and
           tot["tx_packets"] == tot["rx_packets"] > 0 and
           tot["tx_bytes"] == tot["rx_bytes"] > 0 and
           all(c[n].get("rx_packets") and c[n].get("tx_packets")
               for n in nodes) and
           not any(tot[k] for k in STATS[4:]),
           f"{what}: ip -s link's counters agree: {tot['tx_packets']} "
           "packets, "
           f"{tot['tx_bytes']} bytes sent and received, none dropped or "
           "in error", f"idle {still}, no counters on {missing}, totals "
           f"{tot}, per node {c}")


def arp_tables(tap, nodes):
    lines, rc, err = on_all("cat /proc/net/arp")
    bad = []
    for n in nodes:
        have = {}
        for line in lines.get(n, []):
            f = line.split()
            if len(f) == 6 and f[5] == "ipogif0":
                have[f[0]] = (f[3], f[2])
        for m in nodes:
            if m == n:
                continue
            got = have.get(ip(m))
            if got != (mac(m), "0x2"):
                bad.append(f"node {n}: {ip(m)} is {got}, want "
                           f"({mac(m)}, 0x2)")
    tap.ok(rc == 0 and not bad, f"ARP: every node has every other's "
           f"00:01:01 MAC on ipogif0 ({len(nodes) * (len(nodes) - 1)} "
           "entries)", "\n".join(bad[:30]) + err)


def moved(delta):
    """Every counter of a difference that moved, as 'node port key=value'
    (the device's counters, their one list in the launcher)."""
    out = []
    for n, c in sorted(delta["nodes"].items(), key=lambda i: int(i[0])):
        if "error" in c:
            out.append(f"node {n}: {c['error']}")
            continue
        for label in fl.LABELS:
            pc = (c.get("ports") or {}).get(label) or {}
            out += [f"node {n} {label} {k}={pc[k]}" for k in PORT_COUNTERS
                    if pc.get(k)]
        out += [f"node {n} nic {k}={c['nic'][k]}" for k in NIC_COUNTERS
                if (c.get("nic") or {}).get(k)]
    return out


def idle_fabric(tap, windows=8, seconds=3):
    """With every connection open and ipogif0 up, the fabric falls silent
    (the neighbour tables' last probes, unicast ARP a few seconds after
    the traffic, are IP's own): a window in which nothing moved."""
    got = []
    for k in range(windows):
        rc, delta, err = fl.vg_json("counters", "--diff", seconds, "--json",
                                    timeout=300)
        got = moved(delta) if rc == 0 and delta else [f"exit {rc}: {err}"]
        if not got:
            break
    tap.ok(not got, f"idle, with ipogif0 up and its connections open, the "
           f"fabric counts nothing in {seconds} s (window {k + 1} of at "
           f"most {windows})", "\n".join(got[:40]))


def peers(tap, nodes):
    """Every node's debugfs ipogif/peers: every other node up, nothing
    waiting; how many pairs connected both ways at once (two
    connections), as a note."""
    lines, rc, err = on_all("cat /sys/kernel/debug/ipogif/peers")
    bad, double = [], 0
    for n in nodes:
        seen = {}
        for line in lines.get(n, []):
            f = line.split()
            if len(f) >= 6 and f[0].isdigit():
                seen[int(f[0])] = f
        for m in nodes:
            f = seen.get(m)
            if m == n:
                continue
            if not f or f[2] != "up" or f[5] != "0" or len(f) > 6:
                bad.append(f"node {n}: peer {m}: {f}")
            elif f[3].count("-") == 0:
                double += 1
    tap.ok(rc == 0 and not bad, "every node has every other up, nothing "
           "waiting (debugfs ipogif/peers)", "\n".join(bad) + err)
    tap.note(f"{double // 2} of {len(nodes) * (len(nodes) - 1) // 2} pairs "
             "connected both ways at once and kept two connections")


def interfaces(tap, nodes):
    lines, rc, err = on_all(
        "d=/sys/class/net/ipogif0; echo \"mac $(cat $d/address)\"; "
        "echo \"mtu $(cat $d/mtu)\"; "
        "echo \"ipv6 $(cat /proc/sys/net/ipv6/conf/ipogif0/disable_ipv6)\"; "
        "ip -4 -o addr show dev ipogif0 | "
        "sed -n 's/.* inet \\([^ ]*\\).*/addr \\1/p'; "
        "echo \"state $(cat $d/operstate)\"")
    bad = []
    for n in nodes:
        got = dict(line.split(" ", 1) for line in lines.get(n, [])
                   if " " in line)
        want = {"mac": mac(n), "mtu": str(MTU), "ipv6": "1",
                "addr": ip(n) + "/14", "state": "unknown"}
        for k, v in want.items():
            if got.get(k) != v and not (k == "state" and got.get(k) == "up"):
                bad.append(f"node {n}: {k} {got.get(k)!r}, want {v!r}")
    tap.ok(rc == 0 and not bad, f"ipogif0 on every node: its MAC, "
           f"10.128.0.0/14 + NID + 1, MTU {MTU}, IPv6 off, up",
           "\n".join(bad) + err)


# What no node's kernel log may say (the call traces of RCU stall
# reports, a host too busy for a guest, are only noted)
BAD_LOG = re.compile(r"BUG|WARNING|Oops|allocation failure|blocked for "
                     r"more than|" + KGNI_LEFT)


def kernel_logs(tap, nodes, what):
    lines, rc, err = on_all("dmesg")
    bad, context, traces = [], [], []
    for n in nodes:
        log = lines.get(n, [])
        for i, line in enumerate(log):
            if BAD_LOG.search(line):
                bad.append(f"node {n}: {line}")
                if not context:
                    context = [f"node {n}:"] + log[max(0, i - 5):i + 30]
            elif "Call Trace" in line:
                traces.append(f"node {n}: " +
                              " | ".join(log[max(0, i - 3):i]))
    tap.ok(rc == 0 and not bad, f"{what}: no BUG, WARNING, Oops or object "
           "left in any node's kernel log",
           "\n".join(bad[:20] + context) + err)
    for t in traces[:3]:
        tap.note(f"a call trace ({what}): {t}")


def big_pings(tap, src, dst):
    for size, what in ((INLINE_FULL, "a full message, inline"),
                       (RDV, "one frame by rendezvous"),
                       (BIG, "one full frame by rendezvous"),
                       (FRAGMENTED, "two IP fragments")):
        rc, out, err = on(src, f"icmp_echo -t 10 {ip(dst)} {size} 5 {size}")
        tap.ok(rc == 0 and " replies of " in out,
               f"{fl.distance(src, dst, DIMS_L)}-hop ping {src} -> {dst} "
               f"of {size} bytes ({what}), 5 replies checked byte for byte",
               out + err)
        if rc == 0:
            tap.note(out.strip())


RDV_LINE = re.compile(r"rdv_tx (\d+) rdv_rx (\d+) rdv_no_slot (\d+) "
                      r"rdv_busy (\d+) rdv_failed (\d+) rdv_reclaimed "
                      r"(\d+) tx_slots_free (\d+)/(\d+)")


def rdv_counters(nodes):
    """{node: (rdv_tx, rdv_rx, no_slot, busy, failed, reclaimed, free,
    pool)} from debugfs ipogif/peers."""
    lines, rc, err = on_all("cat /sys/kernel/debug/ipogif/peers")
    out = {}
    for n in nodes:
        for line in lines.get(n, []):
            m = RDV_LINE.match(line)
            if m:
                out[n] = tuple(int(x) for x in m.groups())
    return out


def rdv_check(tap, nodes, src, dst, what):
    """The big frames went by rendezvous, src -> dst, none failed, and
    every TX slot is free again (every RDMA_DONE came back)."""
    c = rdv_counters(nodes)
    tot = [sum(c[n][k] for n in c) for k in range(6)]
    tap.ok(len(c) == len(nodes) and c[src][0] > 0 and c[dst][1] > 0 and
           tot[0] == tot[1] and not tot[4] and
           all(c[n][6] == c[n][7] == POOL for n in c),
           f"{what}: the big frames went by rendezvous ({tot[0]} sent, "
           f"{tot[1]} received, {tot[2]} waits for a TX slot), none "
           f"failed, every node's {POOL} TX slots free again (debugfs)",
           f"{c}")


def tcp_run(src, dst, nbytes, seed, wait=60, during=None, limit=None,
            port=TCP_PORT):
    """A TCP stream of nbytes from src to dst, checked byte for byte by
    the receiver (tcp_stream -t WAIT: no side waits longer for the
    other); during(), if given, runs while it flows; each side is killed
    after @limit seconds if given (a stream that is to fail).  (ok, the
    receiver's figure or what failed, the diagnostics, seconds)."""
    recv = {}
    limit = limit or wait + 600

    def receiver():
        recv["r"] = on(dst, f"tcp_stream -t {wait} recv {port} "
                       f"{nbytes} {seed}", timeout=limit)
    t0 = time.time()
    t = threading.Thread(target=receiver)
    t.start()
    send = {}

    def sender():
        send["r"] = on(src, f"tcp_stream -t {wait} send {ip(dst)} "
                       f"{port} {nbytes} {seed}", timeout=limit)
    s = threading.Thread(target=sender)
    s.start()
    extra = during() if during else None
    s.join(wait + 700)
    t.join(wait + 700)
    took = time.time() - t0
    rc, out, err = send.get("r", (None, "", "no answer"))
    rrc, rout, rerr = recv.get("r", (None, "", "no answer"))
    ok = rc == 0 and rrc == 0 and f"received {nbytes} bytes as sent" in rout
    m = re.search(r"in ([0-9.]+ s \([0-9.]+ MB/s\))", rout)
    figure = m.group(1) if ok and m else "failed"
    return ok, figure, (f"sender {rc}: {out}{err}\nreceiver {rrc}: "
                        f"{rout}{rerr}"), took, extra


def tcp_stream(tap, src, dst, nbytes=TCP_BYTES):
    ok, figure, diag, took, _ = tcp_run(src, dst, nbytes, 42)
    tap.ok(ok, f"TCP {src} -> {dst} ({fl.distance(src, dst, DIMS_L)} hops): "
           f"{nbytes >> 20} MiB checked byte for byte ({figure})", diag)


def port_counters():
    rc, c, err = fl.vg_json("counters", "--json", timeout=300)
    return c if rc == 0 and c else None


def port_count(c, node, label, key):
    try:
        return c["nodes"][str(node)]["ports"][label][key]
    except (KeyError, TypeError):
        return None


def routing():
    rc, st, err = fl.vg_json("status", "--json", timeout=300)
    return (st or {}).get("routing") or {}


def wait_routing(pred, limit):
    """(record, seconds) once pred(routing record), or (last, None)."""
    t0 = time.time()
    r = {}
    while time.time() - t0 < limit:
        r = routing()
        if pred(r):
            return r, time.time() - t0
        time.sleep(1)
    return r, None


def tcp_corrupted(tap, src, dst, node, label, nbytes):
    """The stream again with corrupt=0.1 on node's label, a link of its
    path: the link's CRC and retry repair it, the data arrive unchanged."""
    peer, back = fl.step(node, label, DIMS_L), fl.opposite(label)
    rc, out, err = fl.vg("fault", node, label, "corrupt=0.1", timeout=120)
    tap.ok(rc == 0 and "corrupt=0.1" in out,
           f"fault {node} {label} corrupt=0.1 (a link of the path "
           f"{src} -> {dst})", out + err)
    before = port_counters()
    try:
        ok, figure, diag, took, _ = tcp_run(src, dst, nbytes, 43)
    finally:
        fl.vg("fault", node, label, "none", timeout=120)
    after = port_counters()
    retry = crc = None
    if before and after:
        retry = port_count(after, node, label, "retry") - \
            port_count(before, node, label, "retry")
        crc = port_count(after, peer, back, "crc_err") - \
            port_count(before, peer, back, "crc_err")
    tap.ok(ok, f"TCP {src} -> {dst} with 10% of the packets on {node} "
           f"{label} corrupted: {nbytes >> 20} MiB checked byte for byte "
           f"({figure})", diag)
    tap.ok(retry and crc and retry > 0 and crc > 0,
           f"the link repaired them: {node} {label} retried ({retry}), "
           f"{peer} {back} counted CRC errors ({crc})")


def tcp_link_down(tap, src, dst, node, label, nbytes):
    """The stream again; a link of its path goes down mid-transfer: the
    supervisor reroutes, and the same TCP connection goes on and
    delivers every byte intact.  The link then comes back."""
    link = f"{node}:{label}"
    gen0 = routing().get("generation") or 0

    def fault():
        time.sleep(LINK_DOWN_AFTER)
        rc, out, err = fl.vg("fault", node, label, "down=1", timeout=120)
        t_down = time.time()
        rec, took = wait_routing(lambda r: (r.get("generation") or 0) >
                                 gen0 and link in (r.get("failed") or [])
                                 and r.get("loaded"), 90)
        return rc, took, time.time() - t_down, rec, out + err
    ok, figure, diag, took, (frc, rtook, since, rec, fout) = tcp_run(
        src, dst, nbytes, 44, wait=90, during=fault)
    tap.ok(frc == 0 and rtook is not None,
           f"fault {node} {label} down=1 {LINK_DOWN_AFTER} s into the "
           f"stream: the supervisor rerouted around {link} "
           f"({since:.1f} s after)", json.dumps(rec) + "\n" + fout)
    tap.ok(ok, f"TCP {src} -> {dst} through the link's loss and the "
           f"reroute: one connection, {nbytes >> 20} MiB checked byte for "
           f"byte ({figure}; {took:.1f} s in all)", diag)
    rc, out, err = fl.vg("fault", node, label, "none", timeout=120)
    rec, back = wait_routing(lambda r: r.get("loaded") and not
                             r.get("failed") and not r.get("down"), 90)
    tap.ok(rc == 0 and back is not None, f"{link} back in the routes "
           f"({'never' if back is None else '%.1f s' % back})",
           json.dumps(rec) + out + err)


def peer_line(n, m):
    """Node n's debugfs ipogif/peers line of peer m, split; [] if none."""
    rc, out, err = on(n, "cat /sys/kernel/debug/ipogif/peers")
    for line in out.splitlines():
        f = line.split()
        if f and f[0] == str(m):
            return f
    return []


def wait_peer(n, m, cond, limit):
    """Seconds until cond(node n's line of peer m), or None; the line."""
    t0 = time.time()
    f = []
    while time.time() - t0 < limit:
        f = peer_line(n, m)
        if cond(f):
            return time.time() - t0, f
        time.sleep(1)
    return None, f


def node_lost(tap, nodes, n, src):
    """Node n loses every link: once the supervisor's routes leave it out,
    RCA tells src (ec_node_unavailable), whose connections to it and
    frames for it go, and which sends it nothing more (tx_dropped, no
    connection made); its links back, RCA says so (ec_node_available)
    and every other node reaches it again over new connections."""
    for label in fl.LABELS:
        fl.vg("fault", n, label, "down=1", timeout=120)
    took, f = wait_peer(src, n, lambda f: "down" in f[6:], 60)
    tap.ok(took is not None and f[2] == "idle" and f[3] == "--" and
           f[5] == "0", f"node {n} with every link down: RCA tells node "
           f"{src}, which drops its connections to it and its frames "
           f"({'never' if took is None else '%.1f s' % took})",
           " ".join(f))
    before = counters([src])[src].get("tx_dropped", 0)
    rc, out, err = on(src, f"ping -c 3 -i 0.2 -W 1 -q {ip(n)}")
    after = counters([src])[src].get("tx_dropped", 0)
    f = peer_line(src, n)
    tap.ok(rc != 0 and after > before and f[2:4] == ["idle", "--"],
           f"node {src}'s pings to it are dropped at once (tx_dropped "
           f"{before} -> {after}), no connection tried",
           " ".join(f) + out + err)
    for label in fl.LABELS:
        fl.vg("fault", n, label, "none", timeout=120)
    took, f = wait_peer(src, n, lambda f: f and "down" not in f[6:], 60)
    tap.ok(took is not None, f"its links back: RCA tells node {src} "
           f"({'never' if took is None else '%.1f s' % took})", " ".join(f))
    wait_routing(lambda r: r.get("loaded") and not r.get("failed") and
                 not r.get("down"), 60)
    seen, bad = ping_all(nodes, lambda m: [n] if m != n else [])
    tap.ok(not bad, f"every other node pings node {n} again: 0% loss",
           "\n".join(bad))


UPTIME = "cut -d' ' -f1 /proc/uptime"
RMMOD_LIMIT = 20                # seconds an rmmod may take


def reload(tap, nodes, src, dst):
    """rmmod ipogif on every node at once while a TCP stream src -> dst
    runs (and so the connections carry traffic): each unload ends within
    RMMOD_LIMIT seconds and leaves nothing (no object kgni frees for it,
    kgni unused); the stream fails, as it must; ipogif-up again."""
    def unload():
        time.sleep(3)
        return on_all(
            f"a=$({UPTIME}); rmmod ipogif; r=$?; b=$({UPTIME}); "
            "echo \"took $a $b rc $r\"; "
            "! [ -e /sys/class/net/ipogif0 ] && "
            "! [ -d /sys/module/ipogif ] && "
            "[ \"$(cat /sys/module/kgni/refcnt)\" = 0 ] && echo gone",
            timeout=120)
    ok, figure, diag, took, (lines, rc, err) = tcp_run(
        src, dst, TCP_BYTES, 45, wait=8, during=unload, limit=10)
    gone = [n for n in nodes if "gone" in lines.get(n, [])]
    times = {}
    for n in nodes:
        for line in lines.get(n, []):
            m = re.match(r"took ([0-9.]+) ([0-9.]+) rc 0$", line)
            if m:
                times[n] = float(m.group(2)) - float(m.group(1))
    slow = {n: t for n, t in times.items() if t > RMMOD_LIMIT}
    tap.ok(rc == 0 and len(gone) == len(nodes) and len(times) ==
           len(nodes) and not slow,
           f"rmmod ipogif on every node at once while TCP {src} -> {dst} "
           "flows: ipogif0 and the module gone, kgni unused, within "
           f"{max(times.values(), default=0):.2f} s",
           f"gone on {gone}, times {times}: {err}\n{lines}")
    tap.ok(not ok, "the stream, cut by the unload, fails", diag)
    kernel_logs(tap, nodes, "after rmmod under traffic")
    lines, rc, err = on_all("ipogif-up && echo up")
    up = [n for n in nodes if "up" in lines.get(n, [])]
    tap.ok(rc == 0 and len(up) == len(nodes), "ipogif-up again on every "
           "node", f"up on {up}: {err}")


def reload_alone(tap, nodes, n, src):
    """Node n alone unloads and loads ipogif again, while the others hold
    connections to its old module: they take its new one's datagrams
    (another load stamp) for a new connection, so pings from every other
    node, and TCP from src, reach it."""
    seen, bad = ping_all(nodes, lambda m: [n] if m != n else [])
    ok, figure, diag, took, _ = tcp_run(src, n, 1 << 20, 46)
    tap.ok(not bad and ok, f"every other node pings node {n}, and TCP "
           f"{src} -> {n}: the connections to it open",
           "\n".join(bad) + diag)
    rc, out, err = on(n, "rmmod ipogif && ipogif-up && echo up")
    tap.ok(rc == 0 and "up" in out, f"node {n} alone: rmmod ipogif, "
           "ipogif-up", out + err)
    # The first ping goes into the old module's mailbox: kgni fails it
    # past its retransmissions (tens of ms), which breaks the old
    # connection; the next, a second later, goes on a new one.
    seen, bad = ping_all(nodes, lambda m: [n] if m != n else [], count=4,
                         lost=1, interval=1)
    tap.ok(not bad, f"every other node pings node {n}, reloaded alone: "
           "4 pings each, a second apart, none lost but the first (sent "
           "on the old connection)", "\n".join(bad))
    lines, rc, err = on_all("cat /sys/kernel/debug/ipogif/peers")
    renewed = [m for m in nodes if m != n and any(
        re.match(rf"polls .* retired [1-9]", line)
        for line in lines.get(m, []))]
    tap.ok(len(renewed) == len(nodes) - 1, "each of them retired its "
           f"connection to node {n}'s old module (debugfs: retired)",
           f"retired on {renewed}: {lines}")
    ok, figure, diag, took, _ = tcp_run(src, n, 4 << 20, 47)
    tap.ok(ok, f"TCP {src} -> {n} (reloaded alone): 4 MiB checked byte "
           f"for byte ({figure})", diag)


def flow_control(tap, nodes, src, dst):
    """src and dst reload ipogif with a TX pool of 2 slots: a TCP stream
    each way between them at once finds the pool empty again and again
    (the queue stops, RDMA_DONE wakes it; each side's RDMA_DONEs must go
    past its frames that wait for a slot, or both wait for ever) and
    still delivers every byte; every slot is free again after it."""
    script = ("rmmod ipogif && insmod /lib/modules/ipogif.ko pool=2 && "
              "ipogif-up && echo up")
    res = {}

    def reload(n):
        res[n] = on(n, script)
    ts = [threading.Thread(target=reload, args=(n,)) for n in (src, dst)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    ok = all(res.get(n, (1, "", ""))[0] == 0 and "up" in res[n][1]
             for n in (src, dst))
    if not tap.ok(ok, f"nodes {src} and {dst}: ipogif reloaded with pool=2",
                  f"{res}"):
        return
    back = {}

    def reverse():
        back["r"] = tcp_run(dst, src, 16 << 20, 49, port=TCP_PORT + 1)
    rt = threading.Thread(target=reverse)
    rt.start()
    ok, figure, diag, took, _ = tcp_run(src, dst, 16 << 20, 48)
    rt.join(1400)
    rok, rfigure, rdiag, _, _ = back.get("r", (False, "no answer", "", 0,
                                               None))
    c = rdv_counters([src, dst])
    tap.ok(ok and rok and src in c and dst in c and c[src][2] > 0 and
           c[dst][2] > 0 and not c[src][4] and not c[dst][4] and
           all(c[n][6] == c[n][7] == 2 for n in c),
           f"TCP {src} -> {dst} and {dst} -> {src} at once with TX pools "
           f"of 2 slots: 16 MiB each way checked byte for byte ({figure}; "
           f"{rfigure}); the pools found empty {c.get(src, [0] * 8)[2]} "
           f"and {c.get(dst, [0] * 8)[2]} times, no GET failed, every "
           "slot free again (debugfs)", f"{c}" + diag + rdiag)


DIMS_L = [2, 2, 2]


def body(tap, fab, dims):
    global DIMS_L
    DIMS_L = fl.parse_dims(dims)
    nodes = list(range(DIMS_L[0] * DIMS_L[1] * DIMS_L[2]))
    far = max(nodes, key=lambda m: fl.distance(0, m, DIMS_L))
    if not fab.up(tap, dims, extra=["--ipogif"]):
        return
    interfaces(tap, nodes)

    t0 = time.time()
    seen, bad = ping_all(nodes, lambda n: [m for m in nodes if m != n])
    npairs = len(nodes) * (len(nodes) - 1)
    tap.ok(not bad, f"ping between all {npairs} ordered pairs, all nodes "
           f"at once, {PINGS} each: 0% loss ({time.time() - t0:.1f}s)",
           "\n".join(bad))
    tap.note("ipogif0 round trip, 56-byte ping: " + rtt_summary(seen))
    peers(tap, nodes)

    big_pings(tap, 0, far)
    rc, out, err = on(0, f"icmp_echo {ip(far)} 56 20 1")
    if tap.ok(rc == 0, f"20 checked 56-byte pings 0 -> {far}", out + err):
        tap.note(out.strip())
    tcp_stream(tap, 0, far)
    arp_tables(tap, nodes)
    check_counters(tap, nodes, "after the traffic")
    rdv_check(tap, nodes, 0, far, "after the traffic")

    # A link of the path 0 -> far (dimension order: X+, Y+, Z+): the
    # middle one
    path = fl.dor_path(0, far, DIMS_L)
    node, label = path[len(path) // 2]
    tcp_corrupted(tap, 0, far, node, label, TCP_FAULT_BYTES)
    tcp_link_down(tap, 0, far, node, label, TCP_FAULT_BYTES)

    kernel_logs(tap, nodes, "after the traffic")
    reload_alone(tap, nodes, far, 0)
    node_lost(tap, nodes, far, 0)
    flow_control(tap, nodes, 0, far)
    reload(tap, nodes, 0, far)
    seen, bad = ping_all(nodes, lambda n: [(n + 1) % len(nodes),
                                           (n + len(nodes) // 2 + 1) %
                                           len(nodes)])
    tap.ok(not bad, "after the reload each node pings two others: 0% loss",
           "\n".join(bad))
    big_pings(tap, far, 0)
    check_counters(tap, nodes, "after the reload")
    idle_fabric(tap)
    kernel_logs(tap, nodes, "at the end")


def main():
    dims = sys.argv[1] if len(sys.argv) > 1 else "2x2x2"
    if subprocess.run([fl.VGEMINI, "--help"], capture_output=True).returncode:
        print("Bail out! vgemini does not run")
        sys.exit(1)
    fl.run_test("ipogif", lambda tap, fab: body(tap, fab, dims))


if __name__ == "__main__":
    main()
