# SPDX-License-Identifier: GPL-2.0-only
"""'vgemini up': boot a fabric, in named steps (check the inputs, claim
the run directory, start the Ethernet hub of --net, start the QEMUs, load
the first routing tables, wait for the agents, start the supervisor); on
any failure the fabric is torn down again.
"""

import os
import queue
import re
import shlex
import shutil
import signal
import subprocess
import threading
import time

from .common import (EXIT_FAIL, EXIT_OK, EXIT_TIMEOUT, EXIT_USAGE, PROG, REPO,
                     _raise_interrupt, Failure, header_define, Interrupted,
                     parallel, say, tail, warn)
from .torus import DIMS, coord_of, neighbour, parse_dims
from .agent import AGENT_PORTS, Agent, AgentError
from .qmp import QMP, QMPError
from .procs import (check_trusted, find_qemus, image_dir, parse_mem,
                    proc_starttime, qemu_argv, qemu_binary, qemu_devices,
                    qemu_netdevs, qemu_sandbox_ok, qemu_user, start_daemon)
from .fabric import Fabric, teardown
from .routing import compute_tables, load_first_tables, routes_tool
from .supervisor import start_supervisor
from . import net as net_devices
from . import shares as host_shares


def cmd_up(args):
    fab = Fabric(args.fabric)
    dims = parse_dims(args.dims)
    mem = parse_mem(args.mem)
    qemu = qemu_binary()
    image = image_dir()
    nnodes = dims[0] * dims[1] * dims[2]
    gemini = not args.no_gemini
    net, edu = getattr(args, "net", False), getattr(args, "edu", False)
    ipogif = getattr(args, "ipogif", False)
    if ipogif and not gemini:
        raise Failure("--ipogif needs the cray-gemini device (not with "
                      "--no-gemini)", EXIT_USAGE)
    user = qemu_user()
    tools = check_tools(qemu, gemini, net, edu)
    extra = shlex.split(args.qemu_args or "")
    link_size = header_define("vgemini_link.h", "VGEMINI_LINK_FILE_SIZE")
    share_rw = getattr(args, "share_rw", [])
    if args.no_share and (args.share or share_rw):
        raise Failure("--share or --share-rw with --no-share", EXIT_USAGE)
    # The kernel's module tree, read-only (none with --no-share).
    modules = host_shares.modules_share(image, not args.no_share)
    # A guest must not be able to change what the launcher runs or keeps,
    # nor the modules its kernel loads.
    protected = [REPO, fab.base, fab.linkdir, image] + tools
    if modules:
        protected.append(modules["path"])
    shares = host_shares.plan(args.share, os.getcwd(), not args.no_share,
                              share_rw, protected,
                              user and (user[1], user[2], user[0]))
    check_host(fab, nnodes, mem)
    if net:
        net_devices.check_net(fab, nnodes)
    topo = claim_fabric(fab, dims, mem, qemu, image, gemini, link_size,
                        shares, net, edu, ipogif, user and user[0], modules)
    return boot_fabric(fab, topo, args, extra)


def check_tools(qemu, gemini, net=False, edu=False):
    """Fail before booting anything when the QEMU lacks a device the
    fabric needs (cray-gemini, virtio-net-pci and the dgram back-end for
    --net, edu for --edu) or its seccomp filter, or the routing-table
    tool is missing (with cray-gemini); the programs the launcher will
    run (QEMU, the routing-table tool, the Ethernet hub), each checked
    to be changeable by nobody but root and the caller."""
    devices = qemu_devices(qemu)
    if gemini and "cray-gemini" not in devices:
        raise Failure(f"{qemu} has no cray-gemini device (rebuild QEMU with "
                      "scripts/build-qemu.sh, or boot without it: "
                      "--no-gemini)")
    if net and ("virtio-net-pci" not in devices or
                "dgram" not in qemu_netdevs(qemu)):
        raise Failure(f"--net: {qemu} has no virtio-net-pci device or no "
                      "'dgram' network back-end (QEMU 7.2 or later has)")
    if edu and "edu" not in devices:
        raise Failure(f"--edu: {qemu} has no edu device (QEMU's "
                      "CONFIG_EDU, with its test devices)")
    if not qemu_sandbox_ok(qemu):
        raise Failure(f"{qemu} has no -sandbox (QEMU built without "
                      "seccomp: rebuild it with scripts/build-qemu.sh)")
    tools = [qemu]
    if gemini:
        tools.append(routes_tool())     # fail before booting anything
    if net:
        tools.append(net_devices.ethhub_binary())
    for t in tools:
        check_trusted(t, "program")
    return tools


def check_host(fab, nnodes, mem):
    """The run directory's sockets must have short enough paths; warn
    when the nodes may not fit in the host's memory."""
    if len(fab.agent_sock(nnodes - 1, AGENT_PORTS - 1)) + 5 > 107:
        raise Failure(f"run directory path {fab.rundir} too long for unix "
                      "sockets")
    try:
        with open("/proc/meminfo") as f:
            avail = int(re.search(r"MemAvailable:\s+(\d+)",
                                  f.read()).group(1)) // 1024
        if nnodes * (mem + 150) > avail:
            warn(f"warning: {nnodes} nodes x {mem} MiB may not fit in "
                 f"{avail} MiB of available memory")
    except (OSError, AttributeError):
        pass


def claim_fabric(fab, dims, mem, qemu, image, gemini, link_size, shares,
                 net=False, edu=False, ipogif=False, user=None,
                 modules=None):
    """Under the base directory's lock: refuse a fabric that is up, remove
    the leftovers of one that is not, create the run directory (with its
    net/ for --net), the link files and the topology record (saved, and
    returned)."""
    nnodes = dims[0] * dims[1] * dims[2]
    lockfd = fab.lock()
    try:
        live = fab.live_nodes() if os.path.exists(fab.topofile) else []
        if live or find_qemus(fab.rundir):
            raise Failure(f"fabric '{fab.name}' is already up "
                          f"({fab.rundir}); run '{PROG} --fabric "
                          f"{fab.name} down' first")
        if fab.exists():
            warn(f"removing leftovers of fabric '{fab.name}'")
            fab.remove_dirs()
        os.makedirs(fab.rundir, mode=0o700)
        os.makedirs(os.path.dirname(fab.linkdir), exist_ok=True)
        os.mkdir(fab.linkdir, mode=0o700)     # never an existing one
        if net:
            os.makedirs(fab.netdir, mode=0o700)
        for n in range(nnodes):
            for d in DIMS:
                fd = os.open(fab.link(n, d),
                             os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
                os.ftruncate(fd, link_size)   # zero-filled
                os.close(fd)
        topo = topology_record(fab, dims, mem, qemu, image, gemini, shares,
                               net, edu, ipogif, user, modules)
        fab.save(topo)
    finally:
        os.close(lockfd)
    return topo


def topology_record(fab, dims, mem, qemu, image, gemini, shares,
                    net=False, edu=False, ipogif=False, user=None,
                    modules=None):
    """The new fabric's topology.json (no process started yet); "modules"
    is the share of the kernel's module tree (None: the image's modules
    only)."""
    nnodes = dims[0] * dims[1] * dims[2]
    topo = {
        "version": 1, "fabric": fab.name, "dims": dims, "mem_mib": mem,
        "qemu": qemu, "image": image, "gemini": gemini,
        "rundir": fab.rundir, "linkdir": fab.linkdir,
        "agent_ports": AGENT_PORTS, "created": time.time(),
        "shares": shares, "modules": modules, "net": net, "edu": edu,
        "ipogif": ipogif, "qemu_user": user, "nodes": [],
    }
    for n in range(nnodes):
        nd = {"node": n, "coord": coord_of(n, dims), "pid": None,
              "starttime": None,
              "console": fab.path(n, "console"),
              "qmp": fab.path(n, "qmp"),
              "agent": fab.agent_sock(n),
              "neighbours": {}, "links": {}}
        if net:
            nd["mac"] = net_devices.node_mac(n)
            nd["ip"] = net_devices.node_ip(n)
            nd["net_sock"] = fab.net_sock(n)
        if ipogif:
            nd["ipogif_mac"] = net_devices.ipogif_mac(n)
            nd["ipogif_ip"] = net_devices.ipogif_ip(n)
        for d in DIMS:
            nd["neighbours"][d + "p"] = neighbour(n, dims, d, +1)
            nd["neighbours"][d + "m"] = neighbour(n, dims, d, -1)
            if gemini:
                nd["links"][d + "p"] = fab.link(n, d)
                nd["links"][d + "m"] = fab.link(
                    neighbour(n, dims, d, -1), d)
        topo["nodes"].append(nd)
    return topo


def boot_fabric(fab, topo, args, extra):
    """Boot the claimed fabric; on any failure or interrupt, say why and
    tear it down.  The exit status."""
    dims, gemini = topo["dims"], topo["gemini"]
    nnodes = len(topo["nodes"])
    old = {s: signal.signal(s, _raise_interrupt)
           for s in (signal.SIGTERM, signal.SIGHUP)}
    t0 = time.monotonic()
    ok = False
    code, msg = EXIT_FAIL, "failed: tearing the fabric down"
    try:
        say(f"{PROG}: fabric '{fab.name}': booting {nnodes} node"
            f"{'s' if nnodes > 1 else ''} ({'x'.join(map(str, dims))})"
            f"{'' if gemini else ' without cray-gemini'}")
        if gemini:
            tabdir = first_tables(fab, dims)
        if topo.get("net"):
            _, topo["ethhub"] = start_ethhub(fab, nnodes)
            fab.save(topo)
            ips = net_devices.node_ip(0)
            if nnodes > 1:
                ips += " to " + net_devices.node_ip(nnodes - 1)
            say(f"  Ethernet hub pid {topo['ethhub']['pid']}: nodes {ips}"
                f"/{net_devices.NET_BITS} (log {fab.ethhub_log})")
        if topo.get("ipogif"):
            ips = net_devices.ipogif_ip(0)
            if nnodes > 1:
                ips += " to " + net_devices.ipogif_ip(nnodes - 1)
            say(f"  ipogif0: nodes {ips}/{net_devices.IPOGIF_BITS} "
                f"({net_devices.IPOGIF_ARG})")
        procs = start_qemus(fab, topo, args.append, extra)
        deadline = t0 + args.timeout

        if gemini:
            # The supervisor's first duty: routing tables, before the
            # guests' drivers look at the fabric.
            load_tables(fab, procs, dims, deadline, tabdir, t0)
        wait_for_agents(fab, procs, dims, deadline, args.timeout, t0)
        nice = getattr(args, "vcpu_nice", DEFAULT_VCPU_NICE)
        if nice:
            vcpus_nice(fab, procs, nice, deadline)
        if gemini:
            _, topo["supervisor"] = start_supervisor(fab)
            fab.save(topo)
            say(f"  supervisor pid {topo['supervisor']['pid']} (log "
                f"{fab.supervisor_log})")
        say(f"{PROG}: fabric '{fab.name}' up: {nnodes} node"
            f"{'s' if nnodes > 1 else ''} in {time.monotonic() - t0:.1f} s")
        ok = True
        return EXIT_OK
    except Failure as e:
        code, msg = e.code, str(e)
    except (KeyboardInterrupt, Interrupted):
        code, msg = 130, "interrupted: tearing the fabric down"
    except BaseException as e:      # never leave QEMUs behind
        code, msg = EXIT_FAIL, f"{e!r}: tearing the fabric down"
    finally:
        if not ok:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            for s in old:
                signal.signal(s, signal.SIG_IGN)
            try:
                warn(msg)
            except Exception:
                pass
            teardown(fab, quiet=True)
    return code


# The nice value of the guests' vCPU threads (see vcpus_nice).
DEFAULT_VCPU_NICE = 5


def vcpus_nice(fab, procs, nice, deadline):
    """Give every guest's vCPU threads the nice value @nice, so that the
    QEMUs' other threads (the device's thread, which runs its link
    input, forwarding and DMA; the main loop, virtio-net's) preempt a
    spinning guest at once: on a host with fewer cores than guests, a
    guest that polls its memory otherwise holds a core for its whole
    time slice while the packet it waits for sits in a neighbour's
    device.  Among themselves the guests share the cores as before.
    Why 5 and not more: Documentation/vgemini.rst, --vcpu-nice."""
    errors = {}

    def one(n):
        sock = fab.qmp_sock(n)
        q = QMP(sock, sock + ".lock")
        try:
            q.connect(max(1.0, deadline - time.monotonic()),
                      alive=lambda: procs[n].poll() is None)
            for cpu in q.execute("query-cpus-fast"):
                os.setpriority(os.PRIO_PROCESS, int(cpu["thread-id"]), nice)
        except (QMPError, OSError, KeyError, TypeError, ValueError) as e:
            errors[n] = str(e)
        finally:
            q.close()
    parallel(one, list(procs))
    if errors:
        n = min(errors)
        warn(f"vCPU threads of node {n} keep their priority: {errors[n]}"
             + (f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""))


def first_tables(fab, dims):
    """Compute routing-table generation 1 for the whole torus; its
    directory."""
    tabdir, unreachable, text = compute_tables(fab, dims, [], 1)
    if unreachable:
        raise Failure("vgemini-routes finds unreachable nodes in a "
                      f"whole {'x'.join(map(str, dims))} torus:\n"
                      + text)
    return tabdir


def start_ethhub(fab, nnodes):
    """Start the Ethernet hub of --net in a session of its own (output in
    RUN/ethhub.log) and wait until its socket is bound, which its pid file
    says; its topology record.  'down' stops it (its --pidfile is in the
    run directory); it also exits by itself when its socket is removed.
    (Popen, record)."""
    argv = net_devices.ethhub_argv(net_devices.ethhub_binary(), fab, nnodes)
    p = start_daemon(argv, fab.ethhub_log, fab.ethhub_pidfile,
                     "Ethernet hub", poll=0.02)
    # The QEMUs, unprivileged, send every frame to the hub's socket.
    fab.socket_to_qemus(fab.hub_sock)
    return p, {"pid": p.pid, "starttime": proc_starttime(p.pid),
               "pidfile": fab.ethhub_pidfile, "log": fab.ethhub_log,
               "sock": fab.hub_sock}


def start_qemus(fab, topo, append, extra):
    """Start one QEMU per node (its command line in RUN/nodeN.cmdline, its
    output in RUN/nodeN.log) and record their pids in the topology;
    {node: Popen}."""
    dims, gemini = topo["dims"], topo["gemini"]
    qemu, image, mem = topo["qemu"], topo["image"], topo["mem_mib"]
    procs = {}
    for n in range(len(topo["nodes"])):
        argv = qemu_argv(fab, qemu, image, n, dims, mem, gemini,
                         append, extra, topo.get("shares", []),
                         topo.get("net", False), topo.get("edu", False),
                         topo.get("ipogif", False), topo.get("qemu_user"),
                         topo.get("modules"))
        with open(fab.path(n, "cmdline"), "w") as f:
            f.write(" ".join(shlex.quote(a) for a in argv) + "\n")
        with open(fab.path(n, "log"), "wb") as log:
            p = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                                 stdout=log, stderr=log,
                                 start_new_session=True)
        procs[n] = p
        st = None
        for _ in range(100):
            st = proc_starttime(p.pid)
            if st is not None or p.poll() is not None:
                break
            time.sleep(0.01)
        topo["nodes"][n]["pid"] = p.pid
        topo["nodes"][n]["starttime"] = st
    fab.save(topo)
    return procs


def load_tables(fab, procs, dims, deadline, tabdir, t0):
    """Load generation 1 into every router as its QMP socket answers, and
    write the routing record."""
    nnodes = len(procs)
    errors = load_first_tables(fab, procs, dims, deadline)
    for n in sorted(errors):
        rc = procs[n].poll()
        if rc is not None:
            raise Failure(_boot_failure(
                fab, n, dims, f"QEMU exited with status {rc}"))
    if errors:
        n = min(errors)
        raise Failure(f"cannot load the routing tables: node {n} "
                      f"({','.join(map(str, coord_of(n, dims)))}): "
                      f"{errors[n]}"
                      + (f" (and {len(errors) - 1} more node"
                         f"{'s' if len(errors) > 2 else ''})"
                         if len(errors) > 1 else ""))
    fab.save_routing({
        "generation": 1, "attempted": 1, "loaded": True,
        "failed": [], "down": [], "admin": [], "dir": tabdir,
        "by": "up", "time": time.time(), "unreachable": False,
        "not_loaded": {}, "errors": {}})
    say(f"  routing tables (generation 1) loaded into {nnodes} "
        f"router{'s' if nnodes > 1 else ''} after "
        f"{time.monotonic() - t0:.1f} s")


def wait_for_agents(fab, procs, dims, deadline, timeout, t0):
    """Wait until every node's agent answers (a node is ready); Failure
    when a QEMU exits or deadline passes first."""
    nnodes = len(procs)
    ready = queue.Queue()

    def waiter(n):
        try:
            a = Agent(fab.agent_sock(n))
            # A little longer than the main loop waits, so that it
            # reports the time-out.
            a.connect(max(1.0, deadline + 5 - time.monotonic()),
                      alive=lambda: procs[n].poll() is None)
            a.close()
            ready.put((n, None))
        except AgentError as e:
            ready.put((n, str(e)))

    for n in range(nnodes):
        threading.Thread(target=waiter, args=(n,), daemon=True).start()
    pending = set(range(nnodes))
    while pending:
        for n in sorted(pending):
            rc = procs[n].poll()
            if rc is not None:
                raise Failure(_boot_failure(
                    fab, n, dims, f"QEMU exited with status {rc}"))
        if time.monotonic() >= deadline:
            n = min(pending)
            raise Failure(_boot_failure(
                fab, n, dims, f"not ready after {timeout:.0f} s "
                f"({len(pending)} node(s) not ready)"), EXIT_TIMEOUT)
        try:
            n, err = ready.get(timeout=0.2)
        except queue.Empty:
            continue
        if err is not None:
            try:
                rc = procs[n].wait(timeout=2)
                err = f"QEMU exited with status {rc}"
            except subprocess.TimeoutExpired:
                pass
            raise Failure(_boot_failure(fab, n, dims, err))
        pending.discard(n)
        c = ",".join(map(str, coord_of(n, dims)))
        say(f"  node {n} ({c}) ready after "
            f"{time.monotonic() - t0:.1f} s")


def _boot_failure(fab, n, dims, why):
    c = ",".join(map(str, coord_of(n, dims)))
    panic = ""
    try:
        with open(fab.path(n, "console"), "rb") as f:
            for line in f.read().decode(errors="replace").splitlines():
                if "Kernel panic" in line:
                    panic = f"    {line.strip()}\n    ...\n"
                    break
    except OSError:
        pass
    return (f"node {n} ({c}) failed to boot: {why}\n"
            f"--- QEMU output ({fab.path(n, 'log')}):\n"
            f"{tail(fab.path(n, 'log'), 10)}\n"
            f"--- console ({fab.path(n, 'console')}):\n"
            f"{panic}{tail(fab.path(n, 'console'), 20)}\n"
            f"{PROG}: tearing the fabric down")
