# SPDX-License-Identifier: GPL-2.0-only
"""Commands on the nodes themselves: status, exec, kill, console and
down.
"""

import json
import os
import shutil
import signal
import sys
import time

from .common import (EXIT_FAIL, EXIT_NO_AGENT, EXIT_OK, EXIT_USAGE, PROG,
                     Failure, LinePrinter, parallel, raw_writer, tail, warn)
from .torus import PORTS
from .agent import (HOW_EXITED, HOW_NOSTART, HOW_TIMEOUT, AgentError, describe,
                    exit_code)
from .qmp import QMPError, qom_get, qom_json
from .procs import proc_alive
from .fabric import Fabric, nodes_arg, teardown
from .routing import failed_summary


STATUS_SCRIPT = r"""
d=/sys/class/gni/kgni0/ports
for p in @PORTS@; do
  s=$(cat "$d/${p}_state" 2>/dev/null) || s=-
  q=$(cat "$d/${p}_peer" 2>/dev/null) || q=-
  printf '%s\t%s\t%s\n' "$p" "${s:--}" "${q:--}"
done
""".replace("@PORTS@", " ".join(PORTS))


def node_status(fab, n, timeout):
    nd = fab.node(n)
    r = {"node": n, "coord": nd["coord"], "qemu": fab.alive(n),
         "agent": False, "state": "down", "ports": {}}
    for p in PORTS:
        r["ports"][p] = {"state": "-", "peer": "-",
                         "expected_node": nd["neighbours"][p]}
    if not r["qemu"]:
        return r
    if fab.gemini():
        try:
            with fab.qmp(n, timeout) as q:
                rt = qom_json(q, "routes")
                r["routes"] = {"generation": rt.get("generation"),
                               "loaded": rt.get("loaded"),
                               "fabric": qom_get(q, "fabric")}
        except (QMPError, AttributeError) as e:
            r["routes"] = {"error": str(e)}
    out = []
    try:
        with fab.agent(n, timeout) as a:
            how, val = a.run(["/bin/sh", "-c", STATUS_SCRIPT],
                             timeout=timeout, on_stdout=out.append)
        r["agent"] = True
        r["state"] = "up"
    except AgentError as e:
        r["state"] = "no-agent"
        r["error"] = str(e)
        return r
    for line in b"".join(out).decode(errors="replace").splitlines():
        f = line.split("\t")
        if len(f) == 3 and f[0] in r["ports"]:
            r["ports"][f[0]]["state"] = f[1].strip() or "-"
            r["ports"][f[0]]["peer"] = f[2].strip() or "-"
    return r


def cmd_status(args):
    fab = Fabric(args.fabric)
    topo = fab.topology()
    nodes = list(range(len(topo["nodes"])))
    res = parallel(lambda n: node_status(fab, n, args.timeout), nodes)
    nup = sum(1 for r in res if r["state"] == "up")
    gemini = topo.get("gemini", True)
    routing = fab.routing() if gemini else {}
    sv = fab.supervisor() if gemini else None
    if args.json:
        out = {"fabric": fab.name, "dims": topo["dims"], "gemini": gemini,
               "nodes": res}
        if gemini:
            out["routing"] = routing
            out["supervisor"] = {"running": sv is not None,
                                 "pid": sv[0] if sv else None,
                                 "log": fab.supervisor_log}
        json.dump(out, sys.stdout, indent=1)
        print()
    else:
        print_status(fab, topo, res, nup, routing, sv)
    return EXIT_OK if nup == len(res) else EXIT_FAIL


def print_status(fab, topo, res, nup, routing, sv):
    """cmd_status's text: a table of the nodes (res: node_status()'s), then
    the routing record and the supervisor (with the device)."""
    gemini = topo.get("gemini", True)
    dims = "x".join(map(str, topo["dims"]))
    print(f"fabric {fab.name}: {dims}, {len(res)} node"
          f"{'s' if len(res) > 1 else ''}, {nup} up")
    head = ["NODE", "COORD", "STATE"] + (["ROUTES"] if gemini else []) \
        + [p.upper() for p in PORTS]
    rows = []
    for r in res:
        cells = [str(r["node"]), ",".join(map(str, r["coord"])),
                 r["state"]]
        if gemini:
            rt = r.get("routes") or {}
            if "error" in rt:
                cells.append("?")
            elif not rt:
                cells.append("-")
            elif rt.get("loaded"):
                cells.append(f"g{rt.get('generation')}"
                             + ("" if rt.get("fabric") == "running"
                                else f"({rt.get('fabric')})"))
            else:
                cells.append(str(rt.get("fabric") or "none"))
        for p in PORTS:
            s = r["ports"][p]
            cells.append(s["state"] if s["peer"] == "-"
                         else f"{s['state']}({s['peer']})")
        rows.append(cells)
    w = [max(len(c[i]) for c in [head] + rows) for i in range(len(head))]
    for c in [head] + rows:
        print("  ".join(v.ljust(w[i]) for i, v in enumerate(c)).rstrip())
    for r in res:
        if r.get("error"):
            print(f"node {r['node']}: {r['error']}")
        if (r.get("routes") or {}).get("error"):
            print(f"node {r['node']}: routes: {r['routes']['error']}")
    if gemini:
        dims = topo["dims"]
        if routing.get("generation"):
            extra = ""
            if not routing.get("loaded"):
                extra = " (NOT loaded everywhere)"
            elif routing.get("attempted", 0) > routing["generation"]:
                extra = (f" (generation {routing['attempted']} is being "
                         "loaded, or failed)")
            print(f"routing: generation {routing['generation']}"
                  f"{extra}, by {routing.get('by', '?')}, "
                  f"{failed_summary(routing, dims)}")
            if routing.get("unreachable"):
                print("routing: some nodes cannot reach each other")
            for n, e in sorted((routing.get("not_loaded") or {}).items(),
                               key=lambda i: int(i[0])):
                print(f"routing: not loaded on node {n}: {e}")
        else:
            print("routing: no tables loaded")
        print(f"supervisor: running, pid {sv[0]}, log "
              f"{fab.supervisor_log}" if sv else
              "supervisor: NOT running (links that go down are not "
              "routed around until 'vgemini reroute')")


def command_argv(cmd):
    if not cmd:
        raise Failure("no command given (vgemini exec NODE -- CMD...)",
                      EXIT_USAGE)
    if len(cmd) == 1:
        return ["/bin/sh", "-c", cmd[0]]
    return cmd


def cmd_exec(args):
    fab = Fabric(args.fabric)
    nodes = nodes_arg(fab, args.node)
    argv = command_argv(args.cmd)
    if args.stdin and len(nodes) > 1:
        raise Failure("--stdin works with one node only", EXIT_USAGE)
    out, err = sys.stdout.buffer, sys.stderr.buffer

    def one(n, prefixed):
        if prefixed:
            po, pe = LinePrinter(f"[{n}] ", out), LinePrinter(f"[{n}] ", err)
        else:
            po, pe = raw_writer(out), raw_writer(err)
        try:
            with fab.agent(n, args.connect_timeout) as a:
                how, val = a.run(argv, timeout=args.timeout,
                                 stdin=sys.stdin.buffer if args.stdin
                                 else None,
                                 on_stdout=po, on_stderr=pe)
        except AgentError as e:
            how, val = None, str(e)
        if prefixed:
            po.flush()
            pe.flush()
        if how is None:
            warn(f"node {n}: {val}")
            return EXIT_NO_AGENT
        if how == HOW_TIMEOUT:
            warn(f"node {n}: timed out after {args.timeout:g} s (killed)")
        elif how == HOW_NOSTART:
            warn(f"node {n}: {describe(how, val)}")
        elif prefixed and (how != HOW_EXITED or val != 0):
            warn(f"node {n}: {describe(how, val)}")
        return exit_code(how, val)

    if len(nodes) == 1 and args.node != "all":
        return one(nodes[0], False)
    return max(parallel(lambda n: one(n, True), nodes))


def cmd_down(args):
    fab = Fabric(args.fabric)
    if teardown(fab):
        print(f"{PROG}: fabric '{fab.name}' down")
    else:
        print(f"{PROG}: fabric '{fab.name}' was not up")
    return EXIT_OK


def cmd_kill(args):
    fab = Fabric(args.fabric)
    n = fab.node_arg(args.node)
    nd = fab.node(n)
    sig = signal.Signals["SIG" + args.signal.upper().removeprefix("SIG")] \
        if not args.signal.isdigit() else int(args.signal)
    if not proc_alive(nd.get("pid"), nd.get("starttime")):
        raise Failure(f"node {n} is already down")
    os.kill(nd["pid"], sig)
    if sig in (signal.SIGKILL, signal.SIGTERM):
        end = time.monotonic() + 10
        while proc_alive(nd["pid"], nd["starttime"]) and \
                time.monotonic() < end:
            time.sleep(0.05)
    print(f"{PROG}: node {n} ({','.join(map(str, nd['coord']))}): "
          f"sent {signal.Signals(sig).name} to QEMU pid {nd['pid']}")
    return EXIT_OK


def cmd_console(args):
    fab = Fabric(args.fabric)
    n = fab.node_arg(args.node)
    path = fab.path(n, "console")
    if args.lines:
        print(tail(path, args.lines).replace("\n    ", "\n")[4:])
        return EXIT_OK
    try:
        with open(path, "rb") as f:
            shutil.copyfileobj(f, sys.stdout.buffer)
    except OSError as e:
        raise Failure(f"{path}: {e.strerror}")
    return EXIT_OK
