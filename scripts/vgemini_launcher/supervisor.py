# SPDX-License-Identifier: GPL-2.0-only
"""The supervisor: the daemon that 'up' starts ('vgemini supervise'),
which polls every router's ports and reroutes around links that stay
down, and 'vgemini reroute', the same on command.
"""

import os
import signal
import sys
import time

from .common import (EXIT_FAIL, EXIT_OK, LAUNCHER, PROG, Failure,
                     flock_wait, Interrupted, say, warn)
from .torus import (all_cables, cable_ends, cable_sort, cable_str, node_str,
                    port_label)
from .procs import proc_starttime, start_daemon
from .fabric import Fabric, need_gemini
from .routing import (bad_links, do_reroute, failed_summary, link_view,
                      observe_ports, parse_link_arg, Sessions)


SUPERVISOR_INTERVAL = 1.0       # seconds between two polls of the ports
SUPERVISOR_HOLD = 5.0           # a link must stay down (up) this long


def start_supervisor(fab):
    """Start the supervisor daemon (vgemini supervise) in a session of its
    own, logging to RUN/supervisor.log; its topology record."""
    argv = [sys.executable, LAUNCHER, "supervise",
            "--fabric", fab.name, "--pidfile", fab.supervisor_pidfile]
    p = start_daemon(argv, fab.supervisor_log, fab.supervisor_pidfile,
                     "supervisor daemon")
    return p, {"pid": p.pid, "starttime": proc_starttime(p.pid),
               "pidfile": fab.supervisor_pidfile,
               "log": fab.supervisor_log}


def log_line(msg):
    """One line of the supervisor's log (its stdout), time-stamped."""
    say(time.strftime("%Y-%m-%d %H:%M:%S ") + msg)


def cmd_supervise(args):
    """The supervisor daemon: poll every router's ports each second over
    the second QMP socket; reroute when a link has been down (or back up)
    for the hold time."""
    fab = Fabric(args.fabric)
    topo = fab.topology()
    need_gemini(fab)
    dims = topo["dims"]
    nnodes = len(topo["nodes"])
    lockfd = flock_wait(os.path.join(fab.rundir, "supervisor.lock"),
                        time.monotonic())
    if lockfd is None:
        raise Failure(f"a supervisor already runs for fabric '{fab.name}'")

    # A signal stops the daemon at once, except in the middle of a reroute,
    # which it finishes first (not to leave routers quiesced).
    busy = {"rerouting": False, "stop": None}
    catch_stop_signals(busy)
    pidfile = args.pidfile or fab.supervisor_pidfile
    record_supervisor(fab, topo, pidfile)
    log_line(f"supervisor of fabric '{fab.name}' "
             f"({'x'.join(map(str, dims))}), pid {os.getpid()}: polling "
             f"every {args.interval:g} s, rerouting after {args.hold:g} s")
    sess = Sessions(fab, sup=True, timeout=5.0)
    watch = LinkWatch(fab, dims, sess, args.hold)
    code = EXIT_OK
    try:
        while True:
            t = time.monotonic()
            if not os.path.exists(fab.topofile):
                log_line("the fabric is gone; exiting")
                break
            alive = [n for n in range(nnodes) if fab.alive(n)]
            if not alive:
                log_line("no QEMU of the fabric is running; exiting")
                break
            bad, now = watch.poll(alive)
            watch.reroute(bad, now, busy)
            time.sleep(max(0.05, t + args.interval - time.monotonic()))
    except (Interrupted, KeyboardInterrupt) as e:
        log_line(f"stopped ({e or 'interrupt'})")
    except Exception as e:
        log_line(f"supervisor failed: {e!r}")
        code = EXIT_FAIL
    finally:
        sess.close()
        try:
            with open(pidfile) as f:
                mine = f.read().strip() == str(os.getpid())
            if mine:
                os.unlink(pidfile)
        except OSError:
            pass
        os.close(lockfd)
    return code


def catch_stop_signals(busy):
    """SIGTERM, SIGHUP and SIGINT raise Interrupted, or only set
    busy["stop"] while busy["rerouting"]."""
    def on_signal(signum, frame):
        name = signal.Signals(signum).name
        if busy["rerouting"]:
            busy["stop"] = name
        else:
            raise Interrupted(name)
    for sg in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(sg, on_signal)


def record_supervisor(fab, topo, pidfile):
    """Record this daemon in the topology (for 'status' and 'down'), then
    write the pid file, which 'up' waits for."""
    topo["supervisor"] = {"pid": os.getpid(),
                          "starttime": proc_starttime(os.getpid()),
                          "pidfile": pidfile, "log": fab.supervisor_log}
    fab.save(topo)
    with open(pidfile + ".tmp", "w") as f:
        f.write(f"{os.getpid()}\n")
    os.replace(pidfile + ".tmp", pidfile)


class LinkWatch:
    """What the supervisor daemon keeps from one poll to the next: which
    links were seen down (up) since when, which nodes do not answer, and
    when to try a failed reroute again."""

    def __init__(self, fab, dims, sess, hold):
        self.fab = fab
        self.dims = dims
        self.sess = sess
        self.hold = hold
        self.cables = all_cables(dims)
        self.bad_since, self.good_since = {}, {}
        self.was_bad = set()
        self.silent = set()
        self.retry_at = 0.0
        self.backoff = 5.0

    def poll(self, alive):
        """Read the ports of the nodes alive and log what changed; (the
        links seen down, when)."""
        fab, dims = self.fab, self.dims
        seen = observe_ports(self.sess, alive, timeout=2.0)
        for n in alive:
            if n not in seen and n not in self.silent:
                log_line(f"node {node_str(n, dims)} does not answer on QMP")
            elif n in seen and n in self.silent:
                log_line(f"node {node_str(n, dims)} answers again")
        self.silent = set(alive) - set(seen)
        view = link_view(fab, dims, seen)
        bad = bad_links(view)
        now = time.monotonic()
        for k in self.cables:
            if k in bad:
                self.good_since.pop(k, None)
                self.bad_since.setdefault(k, now)
            else:
                self.bad_since.pop(k, None)
                self.good_since.setdefault(k, now)
        for k in sorted(bad - self.was_bad, key=cable_sort):
            (_, pa), (_, pb) = cable_ends(k, dims)
            log_line(f"link {cable_str(k, dims)} seen down "
                     f"({port_label(pa)} {view[k][0] or '?'}, "
                     f"{port_label(pb)} {view[k][1] or '?'})")
        for k in sorted(self.was_bad - bad, key=cable_sort):
            log_line(f"link {cable_str(k, dims)} seen up")
        self.was_bad = bad
        return bad, now

    def wanted(self, rec, bad, now):
        """The links the tables should avoid as down: those down for the
        hold time, or already avoided and not up for the hold time."""
        cur = set(rec.get("down") or [])
        return {k for k in self.cables
                if (k in bad and (k in cur or
                                  now - self.bad_since[k] >= self.hold))
                or (k not in bad and k in cur and
                    now - self.good_since[k] < self.hold)}

    def reroute(self, bad, now, busy):
        """Load new tables when the links to avoid changed or the last
        tables did not load everywhere; a failed reroute is tried again
        after a back-off (5 s, doubling up to 60 s)."""
        fab = self.fab
        rec = fab.routing()
        if rec.get("generation") and now >= self.retry_at and (
                self.wanted(rec, bad, now) != set(rec.get("down") or []) or
                not rec.get("loaded")):
            try:
                busy["rerouting"] = True
                with fab.routes_lock():
                    rec = fab.routing()     # 'reroute' may have run
                    want = self.wanted(rec, bad, now)
                    if want != set(rec.get("down") or []) or \
                            not rec.get("loaded"):
                        new, lines = do_reroute(
                            fab, self.sess, want, rec.get("admin") or [],
                            "supervisor")
                        for ln in lines:
                            log_line(ln)
                        if not new["loaded"]:
                            raise Failure("not every router took "
                                          "the tables")
                self.backoff = 5.0
            except Exception as e:
                log_line(f"reroute failed: {e}; trying again in "
                         f"{self.backoff:.0f} s")
                self.retry_at = time.monotonic() + self.backoff
                self.backoff = min(self.backoff * 2, 60.0)
            finally:
                busy["rerouting"] = False
            if busy["stop"]:
                raise Interrupted(busy["stop"])


def cmd_reroute(args):
    fab = Fabric(args.fabric)
    topo = fab.topology()
    need_gemini(fab)
    dims = topo["dims"]
    add = [parse_link_arg(fab, s) for s in args.fail]
    rem = [parse_link_arg(fab, s) for s in args.restore]
    nnodes = len(topo["nodes"])
    with fab.routes_lock(), Sessions(fab, timeout=args.timeout) as sess:
        old = fab.routing()
        admin = set() if args.clear else set(old.get("admin") or [])
        for k in rem:
            if k not in admin:
                warn(f"link {cable_str(k, dims)} was not failed by "
                     "'reroute --fail'")
        admin = (admin | set(add)) - set(rem)
        alive = [n for n in range(nnodes) if fab.alive(n)]
        seen = observe_ports(sess, alive, timeout=args.timeout)
        for n in alive:
            if n not in seen:
                warn(f"node {node_str(n, dims)} does not answer on QMP; "
                     "its neighbours' view of its links is used")
        down = bad_links(link_view(fab, dims, seen))
        if args.auto and old.get("loaded") and \
                (admin | down) == set(old.get("failed") or []) and \
                admin == set(old.get("admin") or []):
            say(f"{PROG}: routing unchanged: generation "
                f"{old.get('generation')}, {failed_summary(old, dims)}")
            return EXIT_OK
        # Not interrupted half-way (routers left quiesced): signals wait.
        sigs = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}
        signal.pthread_sigmask(signal.SIG_BLOCK, sigs)
        try:
            new, lines = do_reroute(fab, sess, down, admin,
                                    "vgemini reroute")
        finally:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, sigs)
    for ln in lines:
        say(ln)
    if not new["loaded"]:
        raise Failure(f"generation {new['generation']} is not loaded "
                      "everywhere (see above)")
    return EXIT_OK
