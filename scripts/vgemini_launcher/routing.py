# SPDX-License-Identifier: GPL-2.0-only
"""Routing: the supervisor's part (Cray's HSS).  The links' state as the
routers see it, routing tables computed by the firmware tool
(vgemini-routes) and loaded into the routers over QMP (quiesce, load,
resume), and the routing record (RUN/routing.json).
"""

import json
import os
import shlex
import shutil
import struct
import subprocess
import threading
import time

from .common import DEFAULT_QMP_TIMEOUT, EXIT_USAGE, REPO, Failure, parallel
from .torus import (DIMS, PORT_LABELS, all_cables, cable_ends, cable_of,
                    cable_sort, cable_str, node_str, parse_port, port_key,
                    port_label)
from .qmp import QMP, QMPError, qom_get, qom_json, qom_set

# A link (cable) is named by the node whose + port is side 0 of its link
# file, "N:X+": node N's X+ and its X+ neighbour's X- are the same cable.
# The routing record, RUN/routing.json, says which table generation the
# routers have and which links the tables avoid:
#
#   generation  the generation loaded last (0 or absent: none)
#   attempted   the highest generation ever computed (never reused)
#   loaded      every running router took that generation
#   failed      the links the tables avoid ("N:X+", sorted) = down + admin
#   down        links avoided because they were seen down
#   admin       links avoided because 'vgemini reroute --fail' said so
#   dir         the tables (RUN/routes/gen-N/router-<id>.bin)
#   by, time    who loaded them, and when (time.time())
#   unreachable the tables leave some pairs of nodes unconnected
#   not_loaded  {node: why} routers left out (QEMU gone, not answering)
#   errors      {node: why} routers that failed to take the table


def parse_link_arg(fab, s):
    """'NODE:PORT' (NODE an index or x,y,z) -> link key."""
    dims = fab.topology()["dims"]
    if ":" not in s:
        raise Failure(f"bad link '{s}': want NODE:PORT, e.g. 0:X+ or "
                      "1,0,0:Y-", EXIT_USAGE)
    node, port = s.rsplit(":", 1)
    n, p = fab.node_arg(node), parse_port(port)
    if dims[DIMS.index(p[0])] == 1:
        raise Failure(f"node {n} has no {port_label(p)} link: the torus is "
                      f"1 wide in {p[0].upper()}", EXIT_USAGE)
    return cable_of(n, p, dims)


class Sessions:
    """QMP connections to the nodes of a fabric, opened on first use and
    kept until close().  One thread per node at a time."""

    def __init__(self, fab, sup=False, timeout=DEFAULT_QMP_TIMEOUT):
        self.fab = fab
        self.sup = sup
        self.timeout = timeout
        self.qs = {}
        self.lock = threading.Lock()

    def call(self, n, fn):
        """fn(q) on node n's connection; a connection that failed is
        dropped, to be opened again next time."""
        with self.lock:
            q = self.qs.get(n)
        if q is None or q.sock is None:
            q = self.fab.qmp(n, self.timeout, self.sup)
            with self.lock:
                self.qs[n] = q
        try:
            return fn(q)
        except QMPError as e:
            if e.cls is None:
                self.drop(n)
            raise

    def drop(self, n):
        with self.lock:
            q = self.qs.pop(n, None)
        if q:
            q.close()

    def close(self):
        with self.lock:
            qs, self.qs = self.qs, {}
        for q in qs.values():
            q.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def observe_ports(sess, nodes, timeout=5.0):
    """{n: {'xp': state, ...}} from the 'ports' property of the nodes
    whose device answered."""
    def one(n):
        try:
            lst = sess.call(n, lambda q: qom_json(q, "ports", timeout))
            return {port_key(e["port"]): str(e.get("state"))
                    for e in lst if e.get("port") in PORT_LABELS}
        except (QMPError, KeyError, TypeError, AttributeError):
            return None
    res = parallel(one, nodes)
    return {n: r for n, r in zip(nodes, res) if r is not None}


def link_view(fab, dims, seen):
    """{link key: (state at its + end, state at its - end)}: the port
    state the device reports, 'dead' when that node's QEMU is gone, None
    when the node did not answer."""
    view = {}
    for key in all_cables(dims):
        ends = []
        for n, p in cable_ends(key, dims):
            if not fab.alive(n):
                ends.append("dead")
            else:
                ends.append((seen.get(n) or {}).get(p))
        view[key] = tuple(ends)
    return view


def bad_links(view):
    """The links that either end sees other than up."""
    return {k for k, ends in view.items()
            if any(s is not None and s != "up" for s in ends)}


def routes_tool():
    t = os.environ.get("VGEMINI_ROUTES") or os.path.join(
        REPO, "build/firmware/vgemini-routes")
    if not (os.path.isfile(t) and os.access(t, os.X_OK)):
        raise Failure(f"routing-table tool {t} not found: the routers "
                      "forward nothing without tables (build it with "
                      "'make', or set VGEMINI_ROUTES)")
    return t


def compute_tables(fab, dims, failed, gen):
    """Run vgemini-routes for generation gen around the failed links;
    (directory, unreachable, the tool's output)."""
    tool = routes_tool()
    out = fab.tables_dir(gen)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    argv = [tool, "--dims", "x".join(map(str, dims)),
            "--generation", str(gen), "--out", out]
    for k in failed:
        argv += ["--fail", k]
    try:
        p = subprocess.run(argv, stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise Failure(f"cannot run {tool}: {e}")
    text = (p.stdout + p.stderr).strip()
    with open(out + ".log", "w") as f:
        f.write(" ".join(shlex.quote(a) for a in argv) + "\n")
        f.write(text + "\n" if text else "")
        f.write(f"exit status {p.returncode}\n")
    if p.returncode not in (0, 3):
        raise Failure(f"{os.path.basename(tool)} failed with exit status "
                      f"{p.returncode} (generation {gen}, dims "
                      f"{'x'.join(map(str, dims))}, failed links "
                      f"{' '.join(failed) or 'none'}):\n"
                      + "\n".join("    " + ln
                                  for ln in text.splitlines()[-10:]))
    missing = [n for n in range(dims[0] * dims[1] * dims[2])
               if not os.path.isfile(os.path.join(out, f"router-{n}.bin"))]
    if missing:
        raise Failure(f"{os.path.basename(tool)} wrote no table for "
                      f"router{'s' if len(missing) > 1 else ''} "
                      + ", ".join(map(str, missing[:10])) + f" in {out}")
    fab.open_to_qemus(out)
    return out, p.returncode == 3, text


def wait_fabric_state(q, want, timeout=10.0):
    end = time.monotonic() + timeout
    while True:
        st = qom_get(q, "fabric")
        if st == want:
            return
        if time.monotonic() >= end:
            raise QMPError(f"router is '{st}', not '{want}', after "
                           f"{timeout:.0f} s")
        time.sleep(0.02)


def dev_quiesce(q):
    qom_set(q, "fabric", "quiesce")
    wait_fabric_state(q, "quiesced")


def dev_load(q, path, gen):
    qom_set(q, "routes", path, timeout=30.0)
    r = qom_json(q, "routes")
    if not (isinstance(r, dict) and r.get("loaded") and
            r.get("generation") == gen):
        raise QMPError(f"after loading generation {gen} the router reports "
                       f"{json.dumps(r)}")


def dev_resume(q):
    st = qom_get(q, "fabric")
    if st == "quiesced":
        qom_set(q, "fabric", "resume")
        wait_fabric_state(q, "running")
    elif st != "running":
        raise QMPError(f"router is '{st}' after loading its table")


def apply_tables(sess, nodes, tabdir, gen, quiesce=True):
    """Quiesce the routers of nodes, load generation gen from tabdir into
    each, resume them all.  (loaded, skipped, errors): skipped {n: why}
    are routers that could not be quiesced (left alone, or resumed as
    they were), errors {n: why} those that did not take their table."""
    def run(fn, ns):
        def one(n):
            try:
                sess.call(n, lambda q: fn(n, q))
                return None
            except (QMPError, OSError) as e:
                return str(e)
        res = parallel(one, ns)
        return {n: e for n, e in zip(ns, res) if e}

    targets = list(nodes)
    skipped = {}
    if quiesce:
        skipped = run(lambda n, q: dev_quiesce(q), targets)
        targets = [n for n in targets if n not in skipped]
    errors = run(lambda n, q: dev_load(
        q, os.path.join(tabdir, f"router-{n}.bin"), gen), targets)
    # Resume even where loading failed: the old table is still there,
    # better than a router that holds its traffic for ever.
    rerr = run(lambda n, q: dev_resume(q), targets)
    run(lambda n, q: dev_resume(q), list(skipped))
    for n, e in rerr.items():
        errors.setdefault(n, e)
    loaded = [n for n in targets if n not in errors]
    return loaded, skipped, errors


def tables_changed(old_dir, new_dir, nodes):
    """How many of the routers' tables (entries, not headers) differ
    between two generations; None when the old ones are gone."""
    if not old_dir or not os.path.isdir(old_dir):
        return None
    changed = 0
    for n in nodes:
        tabs = []
        for d in (old_dir, new_dir):
            try:
                with open(os.path.join(d, f"router-{n}.bin"), "rb") as f:
                    data = f.read()
                hdr = struct.unpack_from("<I", data, 8)[0]
                tabs.append(data[hdr:])
            except (OSError, struct.error):
                return None
        changed += tabs[0] != tabs[1]
    return changed


def do_reroute(fab, sess, down, admin, by):
    """Load generation+1 tables that avoid the links down | admin into
    every running router.  The caller holds fab.routes_lock().  Returns
    (the new routing record, lines that say what changed)."""
    dims = fab.topology()["dims"]
    nnodes = dims[0] * dims[1] * dims[2]
    old = fab.routing()
    gen = max(int(old.get("generation") or 0),
              int(old.get("attempted") or 0)) + 1
    failed = sorted(set(down) | set(admin), key=cable_sort)
    rec = dict(old)
    rec["attempted"] = gen
    fab.save_routing(rec)
    tabdir, unreachable, text = compute_tables(fab, dims, failed, gen)
    nodes = [n for n in range(nnodes) if fab.alive(n)]
    loaded, skipped, errors = apply_tables(sess, nodes, tabdir, gen)
    not_loaded = {str(n): "QEMU not running" for n in range(nnodes)
                  if n not in nodes}
    not_loaded.update({str(n): e for n, e in skipped.items()})
    new = {"generation": gen, "attempted": gen, "loaded": not errors,
           "failed": failed, "down": sorted(down, key=cable_sort),
           "admin": sorted(admin, key=cable_sort), "dir": tabdir,
           "by": by, "time": time.time(), "unreachable": unreachable,
           "not_loaded": not_loaded,
           "errors": {str(n): e for n, e in errors.items()}}
    changed = tables_changed(old.get("dir"), tabdir, loaded)
    fab.save_routing(new)
    if not errors:
        # Keep only the tables the routers have.
        top = os.path.dirname(tabdir)
        for name in os.listdir(top):
            path = os.path.join(top, name)
            if name.startswith("gen-") and path not in (tabdir,
                                                        tabdir + ".log"):
                if os.path.isdir(path):
                    shutil.rmtree(path, ignore_errors=True)
                else:
                    try:
                        os.unlink(path)
                    except OSError:
                        pass

    lines = [f"routing generation {old.get('generation') or 0} -> {gen} "
             f"({by}): loaded on {len(loaded)} of {nnodes} router"
             f"{'s' if nnodes > 1 else ''}"
             + ("" if changed is None else
                f", tables changed on {changed}")]
    was = set(old.get("failed") or [])

    def why(k):
        return ", ".join(w for w, s in (("down", down), ("--fail", admin))
                         if k in s)
    for k in failed:
        if k not in was:
            lines.append(f"  now avoided:  {cable_str(k, dims)} ({why(k)})")
    for k in sorted(was - set(failed), key=cable_sort):
        lines.append(f"  back in use:  {cable_str(k, dims)}")
    lines.append("  " + failed_summary(new, dims))
    if text:
        lines.append("  " + text.splitlines()[0])
    if unreachable:
        last = text.splitlines()[-1] if text else ""
        lines.append("  warning: some nodes cannot reach each other"
                     + (f" ({last})" if last else ""))
    for n, e in sorted(not_loaded.items(), key=lambda i: int(i[0])):
        lines.append(f"  not loaded on {node_str(int(n), dims)}: {e}")
    for n, e in sorted(errors.items()):
        lines.append(f"  ERROR: router {node_str(n, dims)}: {e}")
    return new, lines


def failed_summary(rec, dims):
    failed = rec.get("failed") or []
    if not failed:
        return "no failed links"
    return (f"avoiding {len(failed)} failed link"
            f"{'s' if len(failed) > 1 else ''}: "
            + "; ".join(cable_str(k, dims) for k in failed))


def load_first_tables(fab, procs, dims, deadline):
    """At 'up': compute generation 1 (computed before the QEMUs start, so
    that a missing tool fails early) and load it into every router as
    soon as its QMP socket answers."""
    tabdir = fab.tables_dir(1)
    errors = {}

    def one(n):
        sock = fab.qmp_sock(n)
        q = QMP(sock, sock + ".lock")
        try:
            q.connect(max(1.0, deadline - time.monotonic()),
                      alive=lambda: procs[n].poll() is None)
            dev_load(q, os.path.join(tabdir, f"router-{n}.bin"), 1)
            dev_resume(q)
        except QMPError as e:
            errors[n] = str(e)
        finally:
            q.close()
    parallel(one, list(procs))
    return errors
