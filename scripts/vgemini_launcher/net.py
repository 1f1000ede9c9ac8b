# SPDX-License-Identifier: GPL-2.0-only
"""The baselines' devices of 'vgemini up' (what `make bench` compares the
fabric with): --net, one Ethernet segment shared by every node (a
virtio-net interface each, QEMU's '-netdev dgram' unix sockets joined by
the vgemini-ethhub learning switch), and --edu, QEMU's 'edu' test device
(the rate of a guest's stores to an emulated register).  Their addresses,
QEMU arguments and the hub's program and command line.  Also the
addresses of --ipogif's ipogif0, IP over the fabric itself (the guests'
ipogif.ko, Documentation/ipogif.rst).
"""

import os
import subprocess

from .common import EXIT_USAGE, REPO, Failure, qopt

# Node n's MAC is 52:54:00:ee:XX:YY with XX:YY = n (16 bits): QEMU's
# locally administered prefix, 0xee for "vgemini Ethernet".
MAC_PREFIX = "52:54:00:ee"
# Node n's address is 10.200.H/16 with H = n + 1 (high byte, low byte),
# so that no node gets the network's own address, 10.200.0.0.
NET_PREFIX = (10, 200)
NET_BITS = 16
# The hub's limit (MAX_PORTS in scripts/vgemini-ethhub.c).
MAX_NET_NODES = 1024
NETDEV_ID = "net0"
EDU_ID = "edu0"
# sizeof(struct sockaddr_un.sun_path) - 1
SUN_PATH_MAX = 107

# --ipogif: node n's ipogif0 is 10.128.0.0/14 + n + 1 (guest/ipogif-up,
# the same H as the segment's), its MAC 00:01:01 and its NIC address
# (uGNI's convention; the NIC address of node n is n << 2, NIC id 0).
IPOGIF_ARG = "vgemini.ipogif=1"
IPOGIF_BITS = 14
IPOGIF_MAC_PREFIX = "00:01:01"

HUB_SOURCE = os.path.join(REPO, "scripts", "vgemini-ethhub.c")
HUB_BINARY = os.path.join(REPO, "build", "host", "vgemini-ethhub")
# The same as the Makefile's rule for it.
HUB_CFLAGS = ["-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", "-pthread"]


def node_mac(n):
    """Node n's MAC address."""
    if not 0 <= n <= 0xffff:
        raise ValueError(f"node {n} has no MAC address")
    return f"{MAC_PREFIX}:{n >> 8:02x}:{n & 0xff:02x}"


def node_ip(n):
    """Node n's IPv4 address (without the prefix length)."""
    h = n + 1
    if n < 0 or h > 0xfffe:
        raise ValueError(f"node {n} has no IP address")
    return f"{NET_PREFIX[0]}.{NET_PREFIX[1]}.{h >> 8}.{h & 0xff}"


def ipogif_ip(n):
    """Node n's address on ipogif0 (without the prefix length)."""
    h = n + 1
    if n < 0 or h > (1 << (32 - IPOGIF_BITS)) - 2:
        raise ValueError(f"node {n} has no ipogif0 address")
    return f"10.{128 + (h >> 16)}.{(h >> 8) & 0xff}.{h & 0xff}"


def ipogif_mac(n):
    """Node n's MAC on ipogif0."""
    if not 0 <= n <= 0xffff:
        raise ValueError(f"node {n} has no NIC address")
    pe = n << 2
    return (f"{IPOGIF_MAC_PREFIX}:{pe >> 16:02x}:{(pe >> 8) & 0xff:02x}:"
            f"{pe & 0xff:02x}")


def check_net(fab, nnodes):
    """Failure when the hub cannot serve nnodes, or a socket's path is too
    long."""
    if nnodes > MAX_NET_NODES:
        raise Failure(f"--net: at most {MAX_NET_NODES} nodes (the Ethernet "
                      f"hub's limit), not {nnodes}", EXIT_USAGE)
    for p in (fab.hub_sock, fab.net_sock(nnodes - 1)):
        if len(p) > SUN_PATH_MAX:
            raise Failure(f"run directory path {fab.rundir} too long for "
                          f"unix sockets ({p})")


def qemu_args(fab, n, net, edu):
    """Node n's QEMU arguments for the segment (net) and the edu device."""
    argv = []
    if net:
        # QEMU binds its own socket and sends every frame to the hub's.
        argv += ["-netdev",
                 f"dgram,id={NETDEV_ID},local.type=unix,"
                 f"local.path={qopt(fab.net_sock(n))},remote.type=unix,"
                 f"remote.path={qopt(fab.hub_sock)}",
                 # romfile=: no PXE option ROM (and none to install)
                 "-device", f"virtio-net-pci,netdev={NETDEV_ID},"
                 f"mac={node_mac(n)},romfile="]
    if edu:
        argv += ["-device", f"edu,id={EDU_ID}"]
    return argv


def ethhub_argv(binary, fab, nnodes):
    """The hub's command line: port n is node n's socket."""
    return ([binary, "--pidfile", fab.ethhub_pidfile, fab.hub_sock] +
            [fab.net_sock(n) for n in range(nnodes)])


def ethhub_binary():
    """The hub's program: $VGEMINI_ETHHUB, or build/host/vgemini-ethhub,
    compiled here when it is missing or older than its source (`make`
    builds it too)."""
    b = os.environ.get("VGEMINI_ETHHUB")
    if b:
        if not (os.path.isfile(b) and os.access(b, os.X_OK)):
            raise Failure(f"Ethernet hub {b} ($VGEMINI_ETHHUB) not found")
        return b
    try:
        fresh = (os.path.getmtime(HUB_BINARY) >=
                 os.path.getmtime(HUB_SOURCE)) and os.access(HUB_BINARY,
                                                             os.X_OK)
    except OSError:
        fresh = False
    if not fresh:
        build_ethhub(HUB_SOURCE, HUB_BINARY)
    return HUB_BINARY


def build_ethhub(src, out):
    """Compile the hub into out (through a temporary file, so that two
    launchers at once do not meet half a program)."""
    os.makedirs(os.path.dirname(out), exist_ok=True)
    tmp = f"{out}.tmp{os.getpid()}"
    try:
        p = subprocess.run(["gcc"] + HUB_CFLAGS + [src, "-o", tmp],
                           stdin=subprocess.DEVNULL, capture_output=True,
                           text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise Failure(f"cannot build the Ethernet hub {out}: {e} (run "
                      "'make', or set VGEMINI_ETHHUB)")
    if p.returncode != 0:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise Failure(f"cannot build the Ethernet hub {out}:\n"
                      f"{p.stdout}{p.stderr}")
    os.replace(tmp, out)
