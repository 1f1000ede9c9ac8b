# SPDX-License-Identifier: GPL-2.0-only
"""Processes and QEMU arguments: finding, watching and killing the
processes of a run directory, and the QEMU command line of one node.
"""

import grp
import os
import pwd
import re
import signal
import stat
import subprocess
import time

from .common import EXIT_USAGE, REPO, Failure, qopt, tail
from .torus import DIMS, PORTS, coord_of, neighbour
from .agent import AGENT_PORT_NAME, AGENT_PORTS
from .qmp import GEMINI_ID
from . import net as net_devices
from . import shares as host_shares


def proc_starttime(pid):
    """Start time of pid (clock ticks since boot), None if it is gone or
    a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
    except OSError:
        return None
    fields = stat[stat.rfind(")") + 2:].split()
    if fields[0] in ("Z", "X"):
        return None
    return int(fields[19])


def start_daemon(argv, logpath, pidfile, what, poll=0.05, timeout=30.0):
    """Start a daemon of the fabric (the supervisor, the Ethernet hub) in
    a session of its own, its output appended to logpath, and wait until
    it writes its own pid into pidfile (it does once it is ready); the
    Popen.  Failure, with the log's end, if it exits or is not ready in
    time."""
    with open(logpath, "ab") as log:
        p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log,
                             stderr=log, start_new_session=True,
                             close_fds=True, cwd="/")
    end = time.monotonic() + timeout
    while True:
        try:
            with open(pidfile) as f:
                if f.read().strip() == str(p.pid):
                    return p
        except OSError:
            pass
        if p.poll() is not None:
            raise Failure(f"the {what} exited with status "
                          f"{p.returncode}:\n{tail(logpath, 10)}")
        if time.monotonic() >= end:
            raise Failure(f"the {what} did not start:\n" + tail(logpath, 10))
        time.sleep(poll)


def proc_alive(pid, starttime):
    return bool(pid) and proc_starttime(pid) == starttime


def find_qemus(rundir):
    """pids of the processes started for this run directory: the QEMUs,
    the supervisor daemon and the Ethernet hub (matched by their -pidfile
    or --pidfile argument), mapped to that pid file."""
    found = {}
    prefix = rundir.rstrip("/") + "/"
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/cmdline", "rb") as f:
                args = f.read().split(b"\0")
        except OSError:
            continue
        for i, a in enumerate(args[:-1]):
            if a in (b"-pidfile", b"--pidfile"):
                p = os.fsdecode(args[i + 1])
                # Anyone can name our pid file; only our processes
                # have their pid written in it.
                if p.startswith(prefix) and p.endswith(".pid") and \
                        _pidfile_says(p, int(d)):
                    found[int(d)] = p
    return found


def _pidfile_says(path, pid):
    try:
        with open(path) as f:
            return f.read().strip() == str(pid)
    except (OSError, ValueError):
        return False


def kill_and_wait(pids, grace=5.0):
    """SIGTERM, then SIGKILL after grace seconds; wait until all are gone."""
    pids = {p: proc_starttime(p) for p in pids}
    pids = {p: t for p, t in pids.items() if t is not None}
    for p in pids:
        try:
            os.kill(p, signal.SIGTERM)
        except ProcessLookupError:
            pass
    end = time.monotonic() + grace
    killed = False
    gone = list(pids)
    while pids:
        _reap()
        pids = {p: t for p, t in pids.items() if proc_alive(p, t)}
        if not pids:
            break
        if time.monotonic() >= end:
            if killed:
                raise Failure("processes %s do not die" %
                              ", ".join(map(str, pids)))
            for p in pids:
                try:
                    os.kill(p, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            killed = True
            end = time.monotonic() + 5.0
        time.sleep(0.05)
    # Dead QEMUs we did not start are zombies until init reaps them; give it
    # a moment, so that 'down' leaves a clean process table.
    end = time.monotonic() + 3.0
    while time.monotonic() < end and any(os.path.exists(f"/proc/{p}")
                                         for p in gone):
        _reap()
        time.sleep(0.05)


def _reap():
    """Reap our own exited children (QEMUs started by this process)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def parse_mem(s):
    m = re.fullmatch(r"(\d+)([MG]?)", s.upper().rstrip("B").rstrip("I"))
    if not m:
        raise Failure(f"bad --mem '{s}': want e.g. 256M or 1G", EXIT_USAGE)
    mib = int(m.group(1)) * (1024 if m.group(2) == "G" else 1)
    if mib < 64:
        raise Failure(f"--mem {s}: at least 64M", EXIT_USAGE)
    return mib


def qemu_binary():
    q = os.environ.get("VGEMINI_QEMU") or os.path.join(
        REPO, "build/qemu/build/qemu-system-x86_64")
    if not (os.path.isfile(q) and os.access(q, os.X_OK)):
        raise Failure(f"QEMU binary {q} not found (build it with "
                      "scripts/build-qemu.sh, or set VGEMINI_QEMU)")
    return q


# The host user every QEMU runs as when the launcher runs as root
# (setup.sh adds it); the options of QEMU's seccomp filter: obsolete system
# calls and starting programs refused.  set*id stays allowed for -runas's
# own drop, after which the process cannot regain root; scheduling stays
# allowed for the device's real-time thread.
QEMU_USER = "vgemini"
SANDBOX = "on,obsolete=deny,spawn=deny"


def qemu_user():
    """(name, uid, gid, groups) of the host user the QEMUs run as:
    $VGEMINI_QEMU_USER or vgemini when the launcher is root; None when it
    is not (the QEMUs are then the caller's, unprivileged already)."""
    if os.geteuid() != 0:
        return None
    name = os.environ.get("VGEMINI_QEMU_USER") or QEMU_USER
    try:
        pw = pwd.getpwnam(name)
    except KeyError:
        raise Failure(f"the host user {name} that the QEMUs run as does not "
                      "exist: 'make setup' adds it (or set "
                      "VGEMINI_QEMU_USER to an unprivileged user)")
    if pw.pw_uid == 0 or pw.pw_gid == 0:
        raise Failure(f"the QEMUs' user {name} ($VGEMINI_QEMU_USER) is "
                      "root: name an unprivileged user")
    groups = {g.gr_gid for g in grp.getgrall() if name in g.gr_mem}
    return name, pw.pw_uid, {pw.pw_gid} | groups


def check_trusted(path, what):
    """Failure unless @path, a program the launcher runs (as root when it
    is), and every directory above it belong to root or the caller and
    nobody else may change them (a world-writable directory only with its
    sticky bit, as /tmp): a guest, a rank or another host user must not be
    able to plant a program there."""
    me = os.geteuid()
    p = os.path.realpath(path)
    while True:
        try:
            st = os.stat(p)
        except OSError as e:
            raise Failure(f"{what} {path}: {e.strerror} ({p})")
        open_to_others = st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
        sticky_dir = stat.S_ISDIR(st.st_mode) and st.st_mode & stat.S_ISVTX
        if st.st_uid not in (0, me) or (open_to_others and not sticky_dir):
            raise Failure(f"{what} {path}: {p} may be changed by others "
                          f"(owner uid {st.st_uid}, mode "
                          f"{stat.filemode(st.st_mode)}): the launcher "
                          "runs it only from a path that root or you alone "
                          "can change")
        if p == "/":
            return
        p = os.path.dirname(p)


def qemu_sandbox_ok(qemu):
    """Whether @qemu has the seccomp filter of -sandbox."""
    try:
        p = subprocess.run([qemu, "-sandbox", SANDBOX, "-version"],
                           capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return p.returncode == 0


def image_dir():
    d = os.environ.get("VGEMINI_IMAGE") or os.path.join(REPO, "build/image")
    for f in ("vmlinuz", "initrd.img"):
        if not os.path.isfile(os.path.join(d, f)):
            raise Failure(f"guest image {d}/{f} not found (build it with "
                          "scripts/build-image.sh, or set VGEMINI_IMAGE)")
    return d


def kernel_file(image):
    """The image's ELF kernel if build-image.sh extracted one: QEMU boots
    it at its PVH entry, and the guest skips the bzImage's decompressor
    (seconds of every boot under TCG); else the bzImage."""
    elf = os.path.join(image, "vmlinux")
    return elf if os.path.isfile(elf) else os.path.join(image, "vmlinuz")


def _qemu_help(qemu, what):
    try:
        return subprocess.run([qemu, what, "help"], capture_output=True,
                              text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired) as e:
        raise Failure(f"cannot run {qemu}: {e}")


def qemu_devices(qemu):
    """The device types of a QEMU binary ('-device help')."""
    return set(re.findall(r'^name "([^"]+)"', _qemu_help(qemu, "-device"),
                          re.M))


def qemu_netdevs(qemu):
    """The network back-ends of a QEMU binary ('-netdev help')."""
    return {ln.strip() for ln in _qemu_help(qemu, "-netdev").splitlines()
            if re.fullmatch(r"\s*[a-z][a-z0-9-]*\s*", ln)}


def qemu_has_gemini(qemu):
    return "cray-gemini" in qemu_devices(qemu)


def qemu_argv(fab, qemu, image, n, dims, mem, gemini, append, extra,
              shares=(), net=False, edu=False, ipogif=False, user=None,
              modules=None):
    x, y, z = coord_of(n, dims)
    cmdline = (f"console=ttyS0 panic=-1 quiet mitigations=off "
               f"no_timer_check vgemini.fabric={fab.name} vgemini.node={n} "
               f"vgemini.coord={x},{y},{z} "
               f"vgemini.dims={dims[0]},{dims[1]},{dims[2]} "
               f"vgemini.ports={AGENT_PORTS}")
    if shares:
        cmdline += " " + host_shares.kernel_arg(shares)
    if modules:
        cmdline += " " + host_shares.modules_arg(modules)
    if ipogif:
        cmdline += " " + net_devices.IPOGIF_ARG
    if append:
        cmdline += " " + append
    argv = [qemu, "-name", qopt(f"vgemini-{fab.name}-node{n}"),
            "-M", "q35", "-cpu", "qemu64,phys-bits=42",
            "-global", "q35-pcihost.pci-hole64-size=512G",
            "-accel", "tcg", "-m", f"{mem}M", "-smp", "1",
            "-display", "none", "-no-reboot", "-nodefaults",
            "-L", "/usr/share/qemu", "-L", "/usr/share/seabios",
            "-kernel", kernel_file(image),
            "-initrd", os.path.join(image, "initrd.img"),
            "-append", cmdline,
            "-serial", "file:" + fab.path(n, "console"),
            "-qmp", f"unix:{qopt(fab.qmp_sock(n))},server=on,wait=off",
            "-qmp", f"unix:{qopt(fab.qmp_sock(n, sup=True))},server=on,"
            "wait=off",
            "-device", "virtio-serial-pci,id=vser0"]
    for k in range(AGENT_PORTS):
        name = AGENT_PORT_NAME if k == 0 else f"{AGENT_PORT_NAME}.{k}"
        argv += ["-chardev", f"socket,id=agent{k},path="
                 f"{qopt(fab.agent_sock(n, k))},server=on,wait=off",
                 "-device", f"virtserialport,bus=vser0.0,chardev=agent{k},"
                 f"name={name}"]
    if gemini:
        links = {}
        for d in DIMS:
            links[d + "p"] = fab.link(n, d)
            links[d + "m"] = fab.link(neighbour(n, dims, d, -1), d)
        dev = (f"cray-gemini,id={GEMINI_ID},x={x},y={y},z={z},"
               f"dim-x={dims[0]},dim-y={dims[1]},dim-z={dims[2]}")
        for p in PORTS:
            dev += f",link-{p}={qopt(links[p])}"
        argv += ["-device", dev]
    argv += net_devices.qemu_args(fab, n, net, edu)
    argv += host_shares.qemu_args(list(shares) + ([modules] if modules
                                                  else []))
    argv += ["-pidfile", fab.path(n, "pid")]
    # Unprivileged and sandboxed once set up: what it opened as root (links,
    # sockets, the shares' roots, the console) it keeps.
    argv += ["-sandbox", SANDBOX]
    if user:
        argv += ["-runas", user]
    argv += extra
    return argv
