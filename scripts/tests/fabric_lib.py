# SPDX-License-Identifier: GPL-2.0-only
"""Helpers shared by the host-side fabric tests (fabric-routing.py,
fabric-counters.py, fabric-faults.py): TAP output, running vgemini,
booting a fabric of the test's own and always tearing it down, and the
torus arithmetic the tests check the fabric against (computed here, never
read from the device or the launcher; only the ports' names come from
their one source, uapi/vgemini_names.h).

Not a test itself.
"""

import json
import os
import re
import signal
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.realpath(__file__))))
VGEMINI = os.path.join(REPO, "scripts", "vgemini")
sys.path.insert(0, os.path.join(REPO, "scripts"))
# The port names ("X+" ...) in the device's order: an interface, read from
# its one source (uapi/vgemini_names.h), not a fact the tests check.
from vgemini_launcher.torus import PORT_LABELS as LABELS  # noqa: E402
from tap import Tap  # noqa: E402,F401  (the tests' one TAP writer)


def vg(*args, timeout=600):
    """(exit status, stdout, stderr) of vgemini ARGS; 124 on time-out."""
    try:
        # A job may print anything: bytes that are not UTF-8 are shown,
        # not raised.
        p = subprocess.run([VGEMINI, *map(str, args)], capture_output=True,
                           text=True, errors="replace", timeout=timeout,
                           stdin=subprocess.DEVNULL)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(
            e.stdout, bytes) else (e.stdout or "")
        err = e.stderr.decode(errors="replace") if isinstance(
            e.stderr, bytes) else (e.stderr or "")
        return 124, out, err + f"\n(vgemini {' '.join(map(str, args))} "\
            f"timed out after {timeout} s)"


def vg_json(*args, timeout=600):
    """(exit status, parsed JSON or None, stderr) of vgemini ARGS."""
    rc, out, err = vg(*args, timeout=timeout)
    try:
        return rc, json.loads(out), err
    except ValueError:
        return rc, None, err + "\n(no JSON on stdout: " + out[:500] + ")"


class Fabric:
    """A fabric of the test's own: a unique VGEMINI_FABRIC name (the
    environment's, if any, only as a prefix), exported for every vgemini
    call."""

    def __init__(self, prefix):
        base = os.environ.get("VGEMINI_FABRIC") or "test"
        self.name = f"{base}-{prefix}-{os.getpid()}"[-64:].lstrip(".-")
        os.environ["VGEMINI_FABRIC"] = self.name
        self.rundir = os.path.join(
            os.path.abspath(os.environ.get("VGEMINI_RUNDIR",
                                           "/run/vgemini")), self.name)
        self.linkdir = os.path.join(
            os.path.abspath(os.environ.get("VGEMINI_SHMDIR", "/dev/shm")),
            f"vgemini-{self.name}")

    def up(self, tap, dims, timeout=900, extra=()):
        """vgemini up --dims DIMS [EXTRA...] as a TAP line."""
        t0 = time.time()
        rc, out, err = vg("up", "--dims", dims, "--timeout", timeout - 60,
                          *extra, timeout=timeout)
        self.boot = time.time() - t0
        tap.ok(rc == 0, f"up --dims {dims}{''.join(' ' + e for e in extra)} "
               f"({self.boot:.1f}s)", "" if rc == 0 else out + err)
        return rc == 0

    def supervisor_log(self, lines=30):
        try:
            with open(os.path.join(self.rundir, "supervisor.log")) as f:
                return "".join(f.readlines()[-lines:])
        except OSError as e:
            return f"(no supervisor log: {e})"

    def leftovers(self):
        """(processes, paths) of this fabric that still exist."""
        procs = []
        for d in os.listdir("/proc"):
            if not d.isdigit() or int(d) == os.getpid():
                continue
            try:
                with open(f"/proc/{d}/cmdline", "rb") as f:
                    cmd = f.read().replace(b"\0", b" ").decode(
                        errors="replace")
            except OSError:
                continue
            if self.rundir + "/" in cmd:
                procs.append(f"{d}: {cmd[:120]}")
        paths = [p for p in (self.rundir, self.linkdir) if os.path.exists(p)]
        return procs, paths

    def down(self, tap):
        rc, out, err = vg("down", timeout=300)
        tap.ok(rc == 0, "down", "" if rc == 0 else out + err)
        procs, paths = self.leftovers()
        tap.ok(not procs and not paths,
               "down leaves no process, socket, link file or doorbell",
               f"processes {procs}, paths {paths}")


def run_test(prefix, body):
    """Run body(tap, fabric), always tear the fabric down, exit with the
    TAP result."""
    tap = Tap()
    fab = Fabric(prefix)
    downed = False

    def stop(signum, frame):
        raise KeyboardInterrupt(signal.Signals(signum).name)
    # SIGTERM (e.g. from timeout(1)) too must tear the fabric down.
    for s in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, stop)
    try:
        body(tap, fab)
        fab.down(tap)
        downed = True
    except BaseException as e:  # report, clean up, fail
        import traceback
        tap.ok(False, f"test raised {type(e).__name__}: {e}",
               traceback.format_exc())
    finally:
        if not downed:
            try:
                fab.down(tap)
            except Exception as e:
                tap.ok(False, f"down raised {e!r}")
    sys.exit(tap.finish())


# --- torus arithmetic -------------------------------------------------------


def parse_dims(s):
    return [int(v) for v in s.lower().split("x")]


def coord(n, dims):
    return [n % dims[0], (n // dims[0]) % dims[1], n // (dims[0] * dims[1])]


def index(c, dims):
    return c[0] + dims[0] * (c[1] + dims[1] * c[2])


def step(n, label, dims):
    """The node that node n's port label ('X+' ...) leads to."""
    c = coord(n, dims)
    d = "XYZ".index(label[0])
    c[d] = (c[d] + (1 if label[1] == "+" else -1)) % dims[d]
    return index(c, dims)


def opposite(label):
    return label[0] + ("-" if label[1] == "+" else "+")


def distance(a, b, dims):
    ca, cb = coord(a, dims), coord(b, dims)
    return sum(min((cb[i] - ca[i]) % k, (ca[i] - cb[i]) % k)
               for i, k in enumerate(dims))


def dor_path(a, b, dims):
    """The dimension-order route a -> b on a whole torus: X, then Y, then
    Z, each the shorter way round, the + way when both are as short.
    [(node, out label), ...]."""
    path = []
    cur = a
    cb = coord(b, dims)
    for i, name in enumerate("XYZ"):
        k = dims[i]
        fwd = (cb[i] - coord(cur, dims)[i]) % k
        if fwd == 0:
            continue
        plus = fwd <= k - fwd
        label = name + ("+" if plus else "-")
        for _ in range(fwd if plus else k - fwd):
            path.append((cur, label))
            cur = step(cur, label, dims)
    assert cur == b
    return path


def name(n, dims):
    c = coord(n, dims)
    return f"{n}({c[0]},{c[1]},{c[2]})"


def records(result, direction):
    return [r for r in (result.get("path") or []) if r.get("dir") ==
            direction]


def path_problems(result, a, b, dims):
    """What is wrong with the path records of one answered ping a -> b
    (request a -> b, response b -> a); [] when consistent."""
    bad = []
    hops = result.get("hops") or [None, None]
    for direction, src, dst, h in (("req", a, b, hops[0]),
                                   ("rsp", b, a, hops[1])):
        recs = records(result, direction)
        if len(recs) != h:
            bad.append(f"{direction}: {len(recs)} records for {h} hops")
        if not recs:
            if src != dst:
                bad.append(f"{direction}: no records")
            continue
        if recs[0].get("node") != src:
            bad.append(f"{direction}: starts at {recs[0].get('node')}, "
                       f"not {src}")
        if recs[0].get("in") != "NIC":
            bad.append(f"{direction}: first record comes in on "
                       f"{recs[0].get('in')}, not NIC")
        for i, r in enumerate(recs):
            if r.get("out") not in LABELS:
                bad.append(f"{direction}: record {i} has out "
                           f"{r.get('out')!r}")
                break
            nxt = step(r["node"], r["out"], dims)
            if i + 1 < len(recs):
                if recs[i + 1].get("node") != nxt:
                    bad.append(f"{direction}: {name(r['node'], dims)} "
                               f"-{r['out']}-> leads to {nxt}, the next "
                               f"record is at {recs[i + 1].get('node')}")
                if recs[i + 1].get("in") != opposite(r["out"]):
                    bad.append(f"{direction}: record {i + 1} comes in on "
                               f"{recs[i + 1].get('in')}, not "
                               f"{opposite(r['out'])}")
            elif nxt != dst:
                bad.append(f"{direction}: ends at {name(nxt, dims)}, not "
                           f"{name(dst, dims)}")
    return bad


def render(recs, dims):
    if not recs:
        return "(none)"
    s = name(recs[0]["node"], dims)
    for r in recs:
        s += f" -{r.get('out')}-> " + (
            name(step(r["node"], r["out"], dims), dims)
            if r.get("out") in LABELS else "?")
    return s


def by_rank(out, n):
    """{rank: [lines]}, or None when a line lacks a valid "[r] " prefix."""
    lines = {r: [] for r in range(n)}
    for line in out.splitlines():
        m = re.match(r"\[(\d+)\] (.*)$", line)
        if not m or int(m.group(1)) not in lines:
            return None
        lines[int(m.group(1))].append(m.group(2))
    return lines


def ranks_passed(out, n, prog):
    """'' when each of the n ranks of a job's @out printed "PROG: rank R
    of N: K checks passed" and no "not ok" line; else what is wrong."""
    lines = by_rank(out, n)
    if lines is None:
        return "a line without a valid [rank] prefix"
    for r in range(n):
        if not any(re.fullmatch(rf"{re.escape(prog)}: rank {r} of {n}: "
                                r"\d+ checks passed", ln) for ln in lines[r]):
            return f"rank {r} did not pass"
        bad = [ln for ln in lines[r] if ln.startswith("not ok")]
        if bad:
            return f"rank {r}: {bad[0]}"
    return ""


# The kernel log lines that can explain a failed job: the OOM killer and
# the processes it killed (a rank "killed by signal 9"), a kernel bug or
# warning, a crash, a hung task, a failed allocation.
NOTABLE_KERNEL_LINE = re.compile(
    r"(?i:out of memory|\boom|killed|segfault|general protection|"
    r"blocked for more than|allocation failure)|BUG|WARNING|Oops|"
    r"Call Trace")


def kernel_logs(tail=10, most=30, timeout=120):
    """Each guest's recent kernel log, for the diagnostics of a failure:
    its lines of note (NOTABLE_KERNEL_LINE, the last @most of them) and
    its last @tail lines.  A node whose agent does not answer (its guest
    may be dying) is read from its serial console file on the host, which
    under "quiet" holds the kernel's errors (the OOM killer's among
    them)."""
    rundir = os.path.join(os.path.abspath(
        os.environ.get("VGEMINI_RUNDIR", "/run/vgemini")),
        os.environ.get("VGEMINI_FABRIC", ""))
    try:
        with open(os.path.join(rundir, "topology.json")) as f:
            nodes = range(len(json.load(f)["nodes"]))
    except (OSError, ValueError, KeyError, TypeError) as e:
        return f"--- no kernel logs: no topology of the fabric ({e})"
    rc, out, err = vg("exec", "all", "--timeout", timeout, "--", "dmesg",
                      timeout=timeout + 60)
    logs = by_rank(out, len(nodes)) or {}
    text = []
    for n in nodes:
        log, where = logs.get(n), "dmesg"
        if not log:
            where = f"node{n}.console (no dmesg: exit {rc})"
            try:
                with open(os.path.join(rundir, f"node{n}.console"),
                          errors="replace") as f:
                    log = f.read().splitlines()
            except OSError as e:
                text.append(f"--- node {n}: no kernel log ({e})")
                continue
        notable = [ln for ln in log[:-tail] if NOTABLE_KERNEL_LINE.search(ln)]
        text.append(f"--- node {n}'s kernel log ({where}): "
                    f"{len(notable)} lines of note before the last {tail}")
        text += notable[-most:] + ["..."] * bool(notable) + log[-tail:]
    return "\n".join(text)


def job_details(passed, details):
    """A job's TAP diagnostics: @details, and if it failed every guest's
    recent kernel log (kernel_logs()), which alone says why a rank was
    killed (the OOM killer) or a node stopped answering."""
    return details if passed else f"{details}\n{kernel_logs()}"


def run_job(*args, cwd=REPO, env=None, timeout=300):
    """(exit status, stdout, stderr, seconds) of vgemini run --timeout
    @timeout ARGS in @cwd, with @env added to this process's
    environment."""
    t0 = time.time()
    try:
        p = subprocess.run([VGEMINI, "run", "--timeout", str(timeout),
                            *map(str, args)], cwd=cwd,
                           env=dict(os.environ, **(env or {})),
                           capture_output=True, text=True, errors="replace",
                           timeout=timeout + 120, stdin=subprocess.DEVNULL)
        rc, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        rc, out, err = 124, "", "vgemini run did not end"
    return rc, out, err, time.time() - t0
