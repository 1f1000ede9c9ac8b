# SPDX-License-Identifier: GPL-2.0-only
"""Counters: samples of the routers' link and NIC counters, their
differences, the table 'vgemini counters' prints, and 'vgemini state'
(the devices' live FMA and CQ state).
"""

import json
import os
import sys
import time

from .common import (EXIT_FAIL, EXIT_OK, EXIT_USAGE, Failure, header_table,
                     parallel, warn)
from .torus import PORT_LABELS, PORTS, coord_of, port_step
from .qmp import QMPError, qom_json
from .fabric import Fabric, need_gemini, nodes_arg


# The device's counter names (its JSON keys), in its order
# (uapi/vgemini_names.h).
PORT_COUNTERS = header_table("vgemini_names.h", "VGEMINI_PORT_COUNTER_LIST",
                             "vgemini_ctl.h", "VGEMINI_PC_")
NIC_COUNTERS = header_table("vgemini_names.h", "VGEMINI_NIC_COUNTER_LIST",
                            "vgemini_ctl.h", "VGEMINI_NC_")
# The table's columns: heading, port counter, what the HH (host) line shows.
COUNTER_COLUMNS = [("VC0_PHITS", "vc0_phits", "req_phits_out"),
                   ("VC1_PHITS", "vc1_phits", "rsp_phits_out"),
                   ("VC0_PKTS", "vc0_pkts", "req_pkts_out"),
                   ("VC1_PKTS", "vc1_pkts", "rsp_pkts_out"),
                   ("INQ_STALL", "inq_stall", None),
                   ("CREDIT_STALL", "credit_stall", None),
                   ("RETRY", "retry", None),
                   ("CRC_ERR", "crc_err", None)]


def sample_counters(fab, nodes, timeout):
    """{'fabric', 'dims', 'time', 'nodes': {'N': the device's counters}};
    a node that cannot be read gets {'error': why}."""
    def one(n):
        try:
            with fab.qmp(n, timeout) as q:
                c = qom_json(q, "counters")
            if not isinstance(c, dict):
                raise QMPError(f"counters reads {c!r}")
            return c
        except QMPError as e:
            return {"error": str(e)}
    t = time.time()
    res = parallel(one, nodes)
    return {"version": 1, "fabric": fab.name,
            "dims": fab.topology()["dims"], "time": t,
            "nodes": {str(n): c for n, c in zip(nodes, res)}}


def diff_counters(new, old):
    """new - old for every number in new (recursively); other values as
    in new."""
    if isinstance(new, dict):
        o = old if isinstance(old, dict) else {}
        return {k: diff_counters(v, o.get(k)) for k, v in new.items()}
    if isinstance(new, (int, float)) and not isinstance(new, bool) and \
            isinstance(old, (int, float)) and not isinstance(old, bool):
        return new - old
    return new


def diff_samples(new, old):
    d = dict(new)
    d["since"] = old.get("time")
    d["interval"] = new["time"] - old["time"] if \
        isinstance(old.get("time"), (int, float)) else None
    d["nodes"] = {}
    for n, c in new["nodes"].items():
        if "error" in c:
            d["nodes"][n] = c
        elif n not in old.get("nodes", {}) or "error" in old["nodes"][n]:
            d["nodes"][n] = {"error": "not in the earlier sample"}
        else:
            for key in ("node", "coord"):
                if key in c and key in old["nodes"][n] and \
                        c[key] != old["nodes"][n][key]:
                    raise Failure(f"node {n}: the earlier sample is of "
                                  "another node")
            d["nodes"][n] = diff_counters(c, old["nodes"][n])
            # Not counters: as they are now.
            for key in ("node", "coord", "generation"):
                if key in c:
                    d["nodes"][n][key] = c[key]
    return d


def print_counters(sample, what):
    dims = sample["dims"]
    heads = ["", "SRC_COORD"] + [h for h, _, _ in COUNTER_COLUMNS]
    print(f"# fabric {sample['fabric']} "
          f"({'x'.join(map(str, dims))}): {what}")
    rows = [["#", "DEST_COORD"] + [""] * len(COUNTER_COLUMNS),
            ["#"] + heads[1:]]
    notes = {}
    for key in sorted(sample["nodes"], key=int):
        n = int(key)
        c = sample["nodes"][key]
        rows.append([str(n), f"({','.join(map(str, coord_of(n, dims)))})"]
                    + [""] * len(COUNTER_COLUMNS))
        if "error" in c:
            notes[len(rows) - 1] = f"node {n}: {c['error']}"
            continue
        ports = c.get("ports") or {}
        for p, label in zip(PORTS, PORT_LABELS):
            pc = ports.get(label) or {}
            rc = coord_of(port_step(n, p, dims), dims)
            rows.append([label, f"({','.join(map(str, rc))})"]
                        + [str(pc.get(k, "-")) for _, k, _ in
                           COUNTER_COLUMNS])
        nic = c.get("nic") or {}
        rows.append(["HH", f"({','.join(map(str, coord_of(n, dims)))})"]
                    + [str(nic.get(h, "-")) if h else "-"
                       for _, _, h in COUNTER_COLUMNS])
        other = []
        for label in PORT_LABELS:
            pc = ports.get(label) or {}
            nz = [f"{k}={pc[k]}" for k in PORT_COUNTERS
                  if k in pc and k not in [k2 for _, k2, _ in
                                           COUNTER_COLUMNS]
                  and k != "tx_pkts" and pc[k]]
            if nz:
                other.append(f"{label} " + " ".join(nz))
        nz = [f"{k}={nic[k]}" for k in NIC_COUNTERS
              if nic.get(k) and k not in [h for _, _, h in COUNTER_COLUMNS]]
        if nz:
            other.append("nic " + " ".join(nz))
        if other:
            notes[len(rows) - 1] = "   also: " + "; ".join(other)
    w = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for i, r in enumerate(rows):
        cells = [r[0].ljust(max(w[0], 2)), r[1].ljust(w[1])] + \
            [v.rjust(w[j + 2]) for j, v in enumerate(r[2:])]
        print("  ".join(cells).rstrip())
        if i in notes:
            print(notes[i])


def load_sample(path, fab):
    try:
        with open(path) as f:
            s = json.load(f)
    except (OSError, ValueError) as e:
        raise Failure(f"{path}: {e}")
    if not isinstance(s, dict) or not isinstance(s.get("nodes"), dict):
        raise Failure(f"{path}: not a counters sample of vgemini counters "
                      "--save")
    if s.get("dims") != fab.topology()["dims"]:
        raise Failure(f"{path}: a sample of a "
                      f"{'x'.join(map(str, s.get('dims') or []))} fabric, "
                      "not of this one")
    return s


def cmd_state(args):
    """The device's live FMA and CQ state (the 'state' property), as JSON:
    what a stalled job's descriptors and completion queues hold."""
    fab = Fabric(args.fabric)
    need_gemini(fab)
    nodes = nodes_arg(fab, args.node)

    def one(n):
        try:
            with fab.qmp(n, args.timeout) as q:
                return qom_json(q, "state")
        except QMPError as e:
            return {"error": str(e)}
    res = parallel(one, nodes)
    json.dump({str(n): v for n, v in zip(nodes, res)}, sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0 if not any("error" in v for v in res) else EXIT_FAIL


def cmd_counters(args):
    fab = Fabric(args.fabric)
    need_gemini(fab)
    nodes = nodes_arg(fab, args.node)
    if args.diff is not None and args.since:
        raise Failure("--diff and --since exclude each other", EXIT_USAGE)
    old = load_sample(args.since, fab) if args.since else None
    if args.diff is not None:
        old = sample_counters(fab, nodes, args.timeout)
        time.sleep(args.diff)
    new = sample_counters(fab, nodes, args.timeout)
    if args.save:
        tmp = args.save + ".tmp"
        try:
            with open(tmp, "w") as f:
                json.dump(new, f, indent=1)
                f.write("\n")
            os.replace(tmp, args.save)
        except OSError as e:
            raise Failure(f"{args.save}: {e.strerror or e}")
    if old is not None:
        missing = [n for n in new["nodes"] if n not in old["nodes"]]
        if missing:
            raise Failure(f"{args.since}: no sample of node "
                          + ", ".join(missing))
        out = diff_samples(new, old)
        what = (f"difference over {out['interval']:.2f} s"
                if out.get("interval") is not None else "difference")
        if args.since:
            what += f" since {args.since}"
    else:
        out, what = new, "totals since the QEMUs started"
    if args.json:
        json.dump(out, sys.stdout, indent=1)
        print()
    else:
        print_counters(out, what)
    bad = [n for n, c in new["nodes"].items() if "error" in c]
    for n in bad:
        warn(f"node {n}: {new['nodes'][n]['error']}")
    return EXIT_FAIL if bad else EXIT_OK
