#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Counters, sonar style (the Gemini counters paper, section V): on a
4x2x1 torus, sample every router's counters, send ONE 64-byte diagnostic
ping from (0,0,0) to (2,1,0), sample again, and check that exactly the
input ports along the request's dimension-order path counted one VC0
packet of 32 phits each, exactly those along the response's path (which
differs: both X ways are as short, both go +) one VC1 packet of 27 phits,
and nothing else moved.  Before that, check that an idle fabric counts
nothing at all.  Prints TAP.

usage: fabric-counters.py
"""

import os
import tempfile
import time

from fabric_lib import (LABELS, dor_path, name, opposite, run_test, step,
                        vg, vg_json)
from vgemini_launcher.counters import NIC_COUNTERS, PORT_COUNTERS

DIMS = "4x2x1"
SRC, DEST = 0, 6                # (0,0,0) -> (2,1,0)
REQ_PHITS, RSP_PHITS = 32, 27   # a 64-byte request, its 64-byte response

# Every counter the device has (its one list, uapi/vgemini_names.h)
PORT_KEYS = PORT_COUNTERS
NIC_KEYS = NIC_COUNTERS


def nonzero(delta):
    """Every non-zero counter of a difference, as 'node port key=value'."""
    out = []
    for n, c in sorted(delta["nodes"].items(), key=lambda i: int(i[0])):
        if "error" in c:
            out.append(f"node {n}: {c['error']}")
            continue
        for label in LABELS:
            pc = (c.get("ports") or {}).get(label) or {}
            for k in PORT_KEYS:
                if pc.get(k):
                    out.append(f"node {n} {label} {k}={pc[k]}")
        for k in NIC_KEYS:
            if (c.get("nic") or {}).get(k):
                out.append(f"node {n} nic {k}={c['nic'][k]}")
    return out


def body(tap, fab):
    dims = [4, 2, 1]
    if not fab.up(tap, DIMS):
        return
    tmp = tempfile.mkdtemp(prefix="vgemini-counters-")
    s0, s1 = os.path.join(tmp, "idle.json"), os.path.join(tmp, "before.json")
    try:
        # An idle fabric is quiet: link heartbeats are not packets.
        rc, out, err = vg("counters", "--save", s0, timeout=300)
        tap.ok(rc == 0 and "HH" in out, "counters prints every node "
               "(and --save works)", "" if rc == 0 else out + err)
        time.sleep(5)
        rc, delta, err = vg_json("counters", "--since", s0, "--json",
                                 timeout=300)
        moved = nonzero(delta) if delta else [err]
        tap.ok(rc == 0 and delta and not moved,
               "an idle fabric counts nothing in 5 s (no background "
               "traffic)", "\n".join(moved[:40]))

        rc, out, err = vg("counters", "--save", s1, timeout=300)
        if not tap.ok(rc == 0, "sample before the ping", out + err):
            return
        rc, ping, err = vg_json("ping", SRC, DEST, "--len", 64, "--json",
                                timeout=120)
        r = (ping or {}).get("result") or {}
        tap.ok(rc == 0 and ping and ping.get("answered") and
               r.get("hops") == [3, 3],
               f"one 64-byte ping {name(SRC, dims)} -> {name(DEST, dims)}: "
               "answered, 3 hops each way", f"{ping} {err}")
        rc, delta, err = vg_json("counters", "--since", s1, "--json",
                                 timeout=300)
        if not tap.ok(rc == 0 and delta, "sample after the ping", err):
            return
        rc2, text, err2 = vg("counters", "--since", s1, timeout=300)
        tap.ok(rc2 == 0 and "VC0_PHITS" in text and "HH" in text,
               "counters --since prints the difference as a table",
               text[-2000:] + err2)
    finally:
        for f in (s0, s1):
            try:
                os.unlink(f)
            except OSError:
                pass
        os.rmdir(tmp)

    req = dor_path(SRC, DEST, dims)
    rsp = dor_path(DEST, SRC, dims)
    tap.note("request path:  " + " ".join(f"{name(n, dims)} -{o}->"
                                          for n, o in req) + f" {DEST}")
    tap.note("response path: " + " ".join(f"{name(n, dims)} -{o}->"
                                          for n, o in rsp) + f" {SRC}")
    # Counted where they arrive: the far end's opposite port.
    want_vc0 = {(step(n, o, dims), opposite(o)) for n, o in req}
    want_vc1 = {(step(n, o, dims), opposite(o)) for n, o in rsp}
    want_tx = {}
    for n, o in req + rsp:
        want_tx[n, o] = want_tx.get((n, o), 0) + 1

    def port(n, label):
        return ((delta["nodes"].get(str(n)) or {}).get("ports") or
                {}).get(label) or {}

    nodes = range(8)
    for vc, want, phits, what in (("vc0", want_vc0, REQ_PHITS, "request"),
                                  ("vc1", want_vc1, RSP_PHITS, "response")):
        wrong = []
        for n in nodes:
            for label in LABELS:
                pc = port(n, label)
                exp = (phits, 1) if (n, label) in want else (0, 0)
                got = (pc.get(f"{vc}_phits"), pc.get(f"{vc}_pkts"))
                if got != exp:
                    wrong.append(f"{name(n, dims)} {label}: {vc} "
                                 f"phits/pkts {got[0]}/{got[1]}, want "
                                 f"{exp[0]}/{exp[1]}")
        tap.ok(not wrong, f"{vc.upper()} ({what}) counted {phits} phits, "
               f"1 packet on exactly the {len(want)} input ports of the "
               f"{what} path", "\n".join(wrong))

    wrong = []
    for n in nodes:
        for label in LABELS:
            got = port(n, label).get("tx_pkts")
            exp = want_tx.get((n, label), 0)
            if got != exp:
                wrong.append(f"{name(n, dims)} {label}: tx_pkts {got}, "
                             f"want {exp}")
    tap.ok(not wrong, "tx_pkts counted on exactly the sending ports",
           "\n".join(wrong))

    wrong = []
    for n in nodes:
        for label in LABELS:
            pc = port(n, label)
            for k in ("inq_stall", "credit_stall", "retry", "crc_err",
                      "seq_err", "nak", "faults", "down_drop"):
                if pc.get(k) != 0:
                    wrong.append(f"{name(n, dims)} {label}: {k}={pc.get(k)}")
    tap.ok(not wrong, "no stalls, retries, errors or drops anywhere",
           "\n".join(wrong))

    want_nic = {SRC: {"req_pkts_out": 1, "req_phits_out": REQ_PHITS,
                      "rsp_pkts_in": 1},
                DEST: {"req_pkts_in": 1, "rsp_pkts_out": 1,
                       "rsp_phits_out": RSP_PHITS, "diag_pings": 1}}
    wrong = []
    for n in nodes:
        nic = (delta["nodes"].get(str(n)) or {}).get("nic") or {}
        for k in NIC_KEYS:
            exp = want_nic.get(n, {}).get(k, 0)
            if nic.get(k) != exp:
                wrong.append(f"{name(n, dims)} nic {k}={nic.get(k)}, "
                             f"want {exp}")
    tap.ok(not wrong, "the NICs counted one request out and in, one "
           "response out and in, nothing else", "\n".join(wrong))


if __name__ == "__main__":
    run_test("counters", body)
