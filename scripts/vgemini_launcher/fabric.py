# SPDX-License-Identifier: GPL-2.0-only
"""Fabric state: the run directory and link directory of a fabric, the
state files in it (topology.json, routing.json, locks), the node and
agent/QMP connections they lead to, and the tear-down that removes them.
"""

import fcntl
import json
import os
import pwd
import re
import shutil
import time

from .common import (DEFAULT_CONNECT_TIMEOUT, DEFAULT_QMP_TIMEOUT, EXIT_NOT_UP,
                     EXIT_USAGE, PROG, Failure, flock_wait)
from .agent import AGENT_PORTS, Agent, AgentError
from .qmp import QMP, QMPError
from .procs import find_qemus, kill_and_wait, proc_alive


class Fabric:
    def __init__(self, name):
        if not re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}", name):
            raise Failure(f"bad fabric name '{name}': letters, digits, "
                          "'_', '.', '-' (at most 64)", EXIT_USAGE)
        self.name = name
        self.base = os.path.abspath(os.environ.get("VGEMINI_RUNDIR",
                                                   "/run/vgemini"))
        self.rundir = os.path.join(self.base, name)
        shm = os.path.abspath(os.environ.get("VGEMINI_SHMDIR", "/dev/shm"))
        self.linkdir = os.path.join(shm, f"vgemini-{name}")
        self.topofile = os.path.join(self.rundir, "topology.json")
        self.routingfile = os.path.join(self.rundir, "routing.json")
        self.supervisor_pidfile = os.path.join(self.rundir, "supervisor.pid")
        self.supervisor_log = os.path.join(self.rundir, "supervisor.log")
        # The Ethernet segment of 'up --net' (net.py): the hub's and the
        # nodes' datagram sockets, the hub's pid file and log.
        self.netdir = os.path.join(self.rundir, "net")
        self.hub_sock = os.path.join(self.netdir, "hub.sock")
        self.ethhub_pidfile = os.path.join(self.rundir, "ethhub.pid")
        self.ethhub_log = os.path.join(self.rundir, "ethhub.log")
        self._topo = None

    # paths
    def path(self, n, what):
        return os.path.join(self.rundir, f"node{n}.{what}")

    def agent_sock(self, n, k=0):
        return self.path(n, "agent" if k == 0 else f"agent.{k}")

    def net_sock(self, n):
        """Node n's QEMU socket on the Ethernet segment."""
        return os.path.join(self.netdir, f"{n}.sock")

    def link(self, n, d):
        return os.path.join(self.linkdir, f"link-{n}-{d}")

    def qmp_sock(self, n, sup=False):
        """Node n's QMP socket: one for commands, one ('qmp-sup') that
        only the supervisor daemon uses, so that neither waits for the
        other."""
        return self.path(n, "qmp-sup" if sup else "qmp")

    def tables_dir(self, gen):
        return os.path.join(self.rundir, "routes", f"gen-{gen}")

    def lock(self):
        """An exclusive lock on the base directory while we change it."""
        while True:
            os.makedirs(self.base, exist_ok=True)
            try:
                fd = os.open(self.base, os.O_RDONLY | os.O_DIRECTORY)
            except FileNotFoundError:
                continue        # a 'down' just removed it
            fcntl.flock(fd, fcntl.LOCK_EX)
            if os.path.isdir(self.base):
                return fd
            os.close(fd)

    def topology(self):
        if self._topo is None:
            try:
                with open(self.topofile) as f:
                    self._topo = json.load(f)
            except FileNotFoundError:
                raise Failure(f"fabric '{self.name}' is not up "
                              f"(no {self.topofile})", EXIT_NOT_UP)
            except (OSError, ValueError) as e:
                raise Failure(f"{self.topofile}: {e}")
        return self._topo

    def save(self, topo):
        tmp = self.topofile + ".tmp"
        with open(tmp, "w") as f:
            json.dump(topo, f, indent=1)
            f.write("\n")
        os.replace(tmp, self.topofile)
        self._topo = topo

    def _qemu_gid(self, within):
        """The group of the QEMUs' user, after letting it pass through the
        base directory, RUN and the directories from RUN down to @within
        (mode 0710: through, not listing); None when the QEMUs are the
        caller's own."""
        name = self.topology().get("qemu_user")
        if not name:
            return None
        gid = pwd.getpwnam(name).pw_gid
        dirs = [self.base, self.rundir]
        rel = os.path.relpath(within, self.rundir).split(os.sep)
        for k in range(1, len(rel) + 1):
            dirs.append(os.path.join(self.rundir, *rel[:k]))
        for d in dirs:
            os.chown(d, -1, gid)
            os.chmod(d, 0o710)
        return gid

    def open_to_qemus(self, path):
        """Let the QEMUs, which run as an unprivileged user, read the
        routing tables in @path (a directory under RUN/routes), which the
        device opens by name: the tree becomes that user's group's to
        read.  Nothing when the QEMUs are the caller's own."""
        gid = self._qemu_gid(os.path.dirname(path))
        if gid is None:
            return
        for top, dirs, files in os.walk(path):
            os.chown(top, -1, gid)
            os.chmod(top, 0o750)
            for f in files:
                os.chown(os.path.join(top, f), -1, gid)
                os.chmod(os.path.join(top, f), 0o640)

    def socket_to_qemus(self, sock):
        """Let the QEMUs send to @sock, a socket under RUN that a daemon of
        the launcher's bound (the Ethernet hub's): the QEMUs' group may
        write it.  Nothing when the QEMUs are the caller's own."""
        gid = self._qemu_gid(os.path.dirname(sock))
        if gid is None:
            return
        os.chown(sock, -1, gid)
        os.chmod(sock, 0o660)

    def live_nodes(self):
        try:
            topo = self.topology()
        except Failure:
            return []
        return [nd["node"] for nd in topo["nodes"]
                if proc_alive(nd.get("pid"), nd.get("starttime"))]

    def exists(self):
        return os.path.lexists(self.rundir) or os.path.lexists(self.linkdir)

    def remove_dirs(self):
        """Remove the run and link directories; a symbolic link left in
        their place (the link directory's name in /dev/shm is known to
        every host user) is removed, never followed."""
        for d in (self.rundir, self.linkdir):
            if os.path.islink(d):
                os.unlink(d)
            else:
                shutil.rmtree(d, ignore_errors=True)
        for d in (self.rundir, self.linkdir):
            if os.path.lexists(d):
                raise Failure(f"cannot remove {d}")

    def node_arg(self, s):
        """A node index from 'N' or 'x,y,z'."""
        topo = self.topology()
        dx, dy, dz = topo["dims"]
        if re.fullmatch(r"\d+", s):
            n = int(s)
        else:
            m = re.fullmatch(r"(\d+),(\d+),(\d+)", s)
            if not m:
                raise Failure(f"bad node '{s}': want an index or x,y,z",
                              EXIT_USAGE)
            x, y, z = map(int, m.groups())
            if x >= dx or y >= dy or z >= dz:
                raise Failure(f"node {s} is outside the {dx}x{dy}x{dz} "
                              "torus", EXIT_USAGE)
            n = x + dx * (y + dy * z)
        if n >= dx * dy * dz:
            raise Failure(f"node {n} does not exist (the fabric has "
                          f"{dx * dy * dz} nodes)", EXIT_USAGE)
        return n

    def node(self, n):
        return self.topology()["nodes"][n]

    def alive(self, n):
        nd = self.node(n)
        return proc_alive(nd.get("pid"), nd.get("starttime"))

    def gemini(self):
        return self.topology().get("gemini", True)

    def qmp(self, n, timeout=DEFAULT_QMP_TIMEOUT, sup=False):
        """A connected QMP client on node n (waits for the socket's lock
        when another vgemini command uses it)."""
        if not self.alive(n):
            raise QMPError("node is down (QEMU not running)")
        sock = self.qmp_sock(n, sup)
        q = QMP(sock, sock + ".lock")
        q.connect(timeout, alive=lambda: self.alive(n))
        return q

    def routing(self):
        """The routing record (routing.json), {} when there is none."""
        try:
            with open(self.routingfile) as f:
                r = json.load(f)
            return r if isinstance(r, dict) else {}
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as e:
            raise Failure(f"{self.routingfile}: {e}")

    def save_routing(self, r):
        tmp = self.routingfile + ".tmp"
        with open(tmp, "w") as f:
            json.dump(r, f, indent=1)
            f.write("\n")
        os.replace(tmp, self.routingfile)

    def routes_lock(self, timeout=120.0):
        """Held while routing tables change (a context manager): the
        supervisor daemon and 'vgemini reroute' take turns."""
        fab = self

        class Lock:
            def __enter__(self):
                self.fd = flock_wait(os.path.join(fab.rundir, "routes.lock"),
                                     time.monotonic() + timeout)
                if self.fd is None:
                    raise Failure("another reroute has been running for "
                                  f"over {timeout:.0f} s")
                return self

            def __exit__(self, *exc):
                os.close(self.fd)
        return Lock()

    def supervisor(self):
        """(pid, starttime) of the supervisor daemon if it runs."""
        sv = self.topology().get("supervisor") or {}
        if proc_alive(sv.get("pid"), sv.get("starttime")):
            return sv["pid"], sv["starttime"]
        return None

    def agent(self, n, timeout=DEFAULT_CONNECT_TIMEOUT):
        """A connected Agent on a free port of node n (a host-side flock
        per port; waits for one to free up when all are taken)."""
        if not self.alive(n):
            raise AgentError("node is down (QEMU not running)")
        deadline = time.monotonic() + timeout
        lockfd = None
        while lockfd is None:
            for k in range(AGENT_PORTS):
                fd = os.open(self.agent_sock(n, k) + ".lock",
                             os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    lockfd = fd
                    break
                except BlockingIOError:
                    os.close(fd)
            else:
                if time.monotonic() >= deadline:
                    raise AgentError(f"all {AGENT_PORTS} agent ports are "
                                     "busy")
                time.sleep(0.05)
        timeout = max(1.0, deadline - time.monotonic())
        a = Agent(self.agent_sock(n, k))
        a.lockfd = lockfd
        try:
            pad = os.pread(lockfd, 16, 0) not in (b"", b"clean\n")
            os.pwrite(lockfd, b"dirty\n", 0)
            a.connect(timeout, alive=lambda: self.alive(n), pad=pad)
            a.clean = True
        except BaseException:
            a.close()
            raise
        return a


def teardown(fab, quiet=False):
    """Kill the supervisor daemon, every QEMU of the fabric and its
    Ethernet hub, and remove its files; idempotent."""
    lockfd = fab.lock()
    try:
        found = find_qemus(fab.rundir)
        sup = {p for p, f in found.items() if f == fab.supervisor_pidfile}
        hub = {p for p, f in found.items() if f == fab.ethhub_pidfile}
        pids = set(found) - sup - hub
        try:
            with open(fab.topofile) as f:
                topo = json.load(f)
            for nd in topo.get("nodes", []):
                if proc_alive(nd.get("pid"), nd.get("starttime")):
                    pids.add(nd["pid"])
            sv = topo.get("supervisor") or {}
            if proc_alive(sv.get("pid"), sv.get("starttime")):
                sup.add(sv["pid"])
            eh = topo.get("ethhub") or {}
            if proc_alive(eh.get("pid"), eh.get("starttime")):
                hub.add(eh["pid"])
        except (OSError, ValueError, AttributeError):
            pass
        # The supervisor first, so that it does not reroute around the
        # links that go down as the QEMUs stop.
        if sup and not quiet:
            print(f"{PROG}: stopping the supervisor", flush=True)
        kill_and_wait(sup)
        pids -= sup
        if pids and not quiet:
            print(f"{PROG}: stopping {len(pids)} QEMU process"
                  f"{'es' if len(pids) > 1 else ''}", flush=True)
        kill_and_wait(pids)
        # The hub last: it only forwards between the QEMUs.
        hub -= sup | pids
        if hub and not quiet:
            print(f"{PROG}: stopping the Ethernet hub", flush=True)
        kill_and_wait(hub)
        existed = fab.exists()
        fab.remove_dirs()
        try:
            os.rmdir(fab.base)      # only if no other fabric is there
        except OSError:
            pass
        return existed or bool(pids) or bool(hub)
    finally:
        os.close(lockfd)


def nodes_arg(fab, s):
    if s == "all":
        return list(range(len(fab.topology()["nodes"])))
    return [fab.node_arg(s)]


def need_gemini(fab):
    if not fab.gemini():
        raise Failure(f"fabric '{fab.name}' was booted with --no-gemini: "
                      "it has no routers")
