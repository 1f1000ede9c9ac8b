# SPDX-License-Identifier: GPL-2.0-only
"""'up --net' and 'up --edu': addresses, QEMU arguments, the checks, the
topology record, the hub's program and command line (its behaviour:
test_ethhub.py)."""

import os
import re
import shutil
import stat
import subprocess
import tempfile
import unittest
from unittest import mock

from vgemini_launcher import boot, net, procs
from vgemini_launcher.common import EXIT_USAGE, Failure
from vgemini_launcher.fabric import Fabric

from .helpers import REPO, ScratchTest, c_define


class Addresses(unittest.TestCase):
    def test_mac(self):
        for n, m in ((0, "52:54:00:ee:00:00"), (1, "52:54:00:ee:00:01"),
                     (255, "52:54:00:ee:00:ff"), (258, "52:54:00:ee:01:02"),
                     (65535, "52:54:00:ee:ff:ff")):
            self.assertEqual(net.node_mac(n), m)
        for n in (-1, 65536):
            with self.assertRaises(ValueError):
                net.node_mac(n)

    def test_mac_is_unicast_and_local(self):
        first = int(net.node_mac(7).split(":")[0], 16)
        self.assertEqual(first & 1, 0)          # not a group address
        self.assertEqual(first & 2, 2)          # locally administered

    def test_ip(self):
        for n, ip in ((0, "10.200.0.1"), (1, "10.200.0.2"),
                      (254, "10.200.0.255"), (255, "10.200.1.0"),
                      (65533, "10.200.255.254")):
            self.assertEqual(net.node_ip(n), ip)
        for n in (-1, 65534):
            with self.assertRaises(ValueError):
                net.node_ip(n)

    def test_hub_limit_is_the_c_one(self):
        self.assertEqual(net.MAX_NET_NODES,
                         c_define("scripts/vgemini-ethhub.c", "MAX_PORTS"))


class GuestInit(unittest.TestCase):
    """guest/init's net_up, run by busybox sh on a made-up sysfs tree with
    stand-ins for modprobe and ip: the addresses are the launcher's."""

    def net_up(self, node, device="0x1000"):
        busybox = shutil.which("busybox")
        if busybox is None:
            self.skipTest("no busybox")
        tmp = tempfile.mkdtemp(prefix="vgemini-init-")
        self.addCleanup(shutil.rmtree, tmp, True)
        pci = os.path.join(tmp, "pci")
        for dev, did, iface in (("0000:00:01.0", "0x1003", None),
                                ("0000:00:02.0", device, "eth0")):
            os.makedirs(os.path.join(pci, dev, "virtio1", "net", iface)
                        if iface else os.path.join(pci, dev))
            for attr, v in (("vendor", "0x1af4"), ("device", did)):
                with open(os.path.join(pci, dev, attr), "w") as f:
                    f.write(v + "\n")
        with open(os.path.join(REPO, "guest", "init")) as f:
            init = f.read()
        m = re.search(r"^net_up\(\) \{\n.*?^\}\n", init, re.M | re.S)
        self.assertIsNotNone(m, "no net_up() in guest/init")
        env = os.path.join(tmp, "env")
        script = ("log() { echo \"log: $*\"; }\n"
                  "modprobe() { echo \"modprobe $*\"; }\n"
                  "ip() { echo \"ip $*\"; }\n"
                  f"VGEMINI_NODE={node}\n"
                  + m.group(0).replace("/sys/bus/pci/devices", pci)
                  .replace("/run/vgemini.env", env)
                  + 'net_up; echo "rc $? $VGEMINI_NET_IP"\n')
        out = subprocess.run([busybox, "sh", "-c", script],
                             capture_output=True, text=True,
                             timeout=30).stdout
        try:
            with open(env) as f:
                return out, f.read()
        except FileNotFoundError:
            return out, ""

    def test_address_rule(self):
        for n in (0, 1, 254, 255, 1023, 65533):
            out, env = self.net_up(n)
            ip = net.node_ip(n)
            self.assertEqual(out, f"modprobe virtio_net\n"
                             f"ip addr add {ip}/16 dev eth0\n"
                             f"ip link set eth0 up\nrc 0 {ip}\n")
            self.assertEqual(env, f"VGEMINI_NET_IP={ip}\n")

    def test_modern_device(self):
        out, _ = self.net_up(2, device="0x1041")
        self.assertIn("ip addr add 10.200.0.3/16 dev eth0", out)

    def test_nothing_without_the_device(self):
        out, env = self.net_up(2, device="0x1001")      # a block device
        self.assertEqual((out, env), ("rc 0 \n", ""))

    def test_bad_node(self):
        for node in ("65534", "01", "x", "''"):
            out, env = self.net_up(node)
            self.assertIn("rc 1", out)
            self.assertNotIn("modprobe", out)
            self.assertEqual(env, "")


class IpogifAddresses(unittest.TestCase):
    def test_ip(self):
        for n, ip in ((0, "10.128.0.1"), (1, "10.128.0.2"),
                      (254, "10.128.0.255"), (255, "10.128.1.0"),
                      (65535, "10.129.0.0"), (262141, "10.131.255.254")):
            self.assertEqual(net.ipogif_ip(n), ip)
        for n in (-1, 262142):
            with self.assertRaises(ValueError):
                net.ipogif_ip(n)

    def test_mac(self):
        for n, m in ((0, "00:01:01:00:00:00"), (1, "00:01:01:00:00:04"),
                     (7, "00:01:01:00:00:1c"), (300, "00:01:01:00:04:b0"),
                     (65535, "00:01:01:03:ff:fc")):
            self.assertEqual(net.ipogif_mac(n), m)
        for n in (-1, 65536):
            with self.assertRaises(ValueError):
                net.ipogif_mac(n)


class IpogifUp(unittest.TestCase):
    """guest/ipogif-up, run by busybox sh with stand-ins for insmod and
    ip and its /proc, /sys and /run files in a scratch directory: the
    address is the launcher's, IPv6 is off before the link comes up."""

    def run_up(self, node, loaded=False, netdev=True, cmdline="quiet"):
        busybox = shutil.which("busybox")
        if busybox is None:
            self.skipTest("no busybox")
        tmp = tempfile.mkdtemp(prefix="vgemini-ipogif-")
        self.addCleanup(shutil.rmtree, tmp, True)
        paths = {"/proc/cmdline": "cmdline", "/run/vgemini.env": "env",
                 "/proc/sys/net/ipv6/conf/ipogif0/disable_ipv6": "ipv6",
                 "/sys/module/ipogif": "module",
                 "/sys/class/net/ipogif0": "netdev"}
        with open(os.path.join(tmp, "cmdline"), "w") as f:
            f.write(cmdline + "\n")
        if loaded:
            os.mkdir(os.path.join(tmp, "module"))
        if netdev:
            os.mkdir(os.path.join(tmp, "netdev"))
        with open(os.path.join(REPO, "guest", "ipogif-up")) as f:
            script = f.read()
        for real, mine in paths.items():
            script = script.replace(real, os.path.join(tmp, mine))
        ipv6 = os.path.join(tmp, "ipv6")
        script = ("insmod() { echo \"insmod $*\"; }\n"
                  f"ip() {{ echo \"ip $* (ipv6 off: $(cat {ipv6}))\"; }}\n"
                  + script.split("\n", 1)[1])
        env = {"PATH": os.environ["PATH"]}
        if node is not None:
            env["VGEMINI_NODE"] = str(node)
        p = subprocess.run([busybox, "sh", "-c", script], env=env,
                           capture_output=True, text=True, timeout=30)
        try:
            with open(os.path.join(tmp, "env")) as f:
                saved = f.read()
        except FileNotFoundError:
            saved = ""
        return p.returncode, p.stdout, p.stderr, saved

    def test_address_rule(self):
        for n in (0, 1, 254, 255, 65535):
            ip = net.ipogif_ip(n)
            rc, out, err, env = self.run_up(n)
            self.assertEqual((rc, err), (0, ""))
            self.assertEqual(out, "insmod /lib/modules/ipogif.ko\n"
                             f"ip addr add {ip}/14 dev ipogif0 "
                             "(ipv6 off: 1)\n"
                             "ip link set ipogif0 up (ipv6 off: 1)\n")
            self.assertEqual(env, f"VGEMINI_IPOGIF_IP={ip}\n")

    def test_parameters_and_loaded(self):
        rc, out, _, _ = self.run_up(3, cmdline="quiet ipogif.smsg_max=2048 "
                                    "kgni.debug=1 ipogif.credits=8")
        self.assertEqual(rc, 0)
        self.assertIn("insmod /lib/modules/ipogif.ko smsg_max=2048 "
                      "credits=8\n", out)
        rc, out, _, _ = self.run_up(3, loaded=True)
        self.assertEqual(rc, 0)
        self.assertNotIn("insmod", out)

    def test_failures(self):
        for node in ("x", "01", "262142", ""):
            rc, out, err, env = self.run_up(node)
            self.assertEqual((rc, out, env), (1, "", ""), node)
            self.assertIn("ipogif-up:", err)
        rc, out, err, env = self.run_up(2, netdev=False)
        self.assertEqual((rc, env), (1, ""))
        self.assertIn("no ipogif0", err)


class QemuArgv(ScratchTest):
    def argv(self, n, **kw):
        fab = Fabric("f")
        return fab, procs.qemu_argv(fab, "/q", "/img", n, [2, 2, 1], 128,
                                    True, "", ["-s"], **kw)

    def test_net(self):
        fab, argv = self.argv(3, net=True)
        i = argv.index("-netdev")
        self.assertEqual(argv[i:i + 4], [
            "-netdev", "dgram,id=net0,local.type=unix,"
            f"local.path={self.rundir}/f/net/3.sock,remote.type=unix,"
            f"remote.path={self.rundir}/f/net/hub.sock",
            "-device", "virtio-net-pci,netdev=net0,mac=52:54:00:ee:00:03,"
            "romfile="])
        self.assertEqual(argv.count("-netdev"), 1)
        self.assertNotIn("edu,id=edu0", argv)
        # before the pid file and the user's own arguments
        self.assertEqual(argv[-5:-2], ["-pidfile", fab.path(3, "pid"),
                                       "-sandbox"])
        self.assertEqual(argv[-1], "-s")

    def test_edu(self):
        _, argv = self.argv(0, edu=True)
        self.assertEqual([argv[i + 1] for i, a in enumerate(argv)
                          if a == "-device" and argv[i + 1].startswith("edu")],
                         ["edu,id=edu0"])
        self.assertNotIn("-netdev", argv)

    def test_both_and_neither(self):
        _, argv = self.argv(1, net=True, edu=True)
        self.assertIn("edu,id=edu0", argv)
        self.assertIn("-netdev", argv)
        _, argv = self.argv(1)
        self.assertNotIn("-netdev", argv)
        self.assertFalse(any(a.startswith(("edu", "virtio-net"))
                             for a in argv))

    def test_ipogif(self):
        _, argv = self.argv(2, ipogif=True)
        cmdline = argv[argv.index("-append") + 1].split()
        self.assertIn("vgemini.ipogif=1", cmdline)
        self.assertIn("vgemini.node=2", cmdline)
        _, argv = self.argv(2)
        self.assertNotIn("vgemini.ipogif=1",
                         argv[argv.index("-append") + 1].split())

    def test_commas_in_paths_are_escaped(self):
        os.environ["VGEMINI_RUNDIR"] = self.rundir + ",x"
        _, argv = self.argv(0, net=True)
        self.assertIn(f"local.path={self.rundir},,x/f/net/0.sock,",
                      argv[argv.index("-netdev") + 1])


class Checks(ScratchTest):
    def test_node_count_and_paths(self):
        fab = Fabric("f")
        net.check_net(fab, net.MAX_NET_NODES)
        with self.assertRaises(Failure) as cm:
            net.check_net(fab, net.MAX_NET_NODES + 1)
        self.assertEqual(cm.exception.code, EXIT_USAGE)
        self.assertIn("at most 1024 nodes", str(cm.exception))
        os.environ["VGEMINI_RUNDIR"] = "/" + "r" * 100
        with self.assertRaises(Failure) as cm:
            net.check_net(Fabric("f"), 8)
        self.assertIn("too long for unix sockets", str(cm.exception))

    def fake_qemu(self, devices, netdevs):
        """A 'QEMU' that only answers -device help and -netdev help."""
        q = os.path.join(self.tmp, "qemu")
        with open(q, "w") as f:
            f.write("#!/bin/sh\n"
                    'if [ "$1" = -device ]; then\n'
                    + "".join(f"  echo 'name \"{d}\", bus PCI'\n"
                              for d in devices) +
                    "else\n  echo 'Available netdev backend types:'\n"
                    + "".join(f"  echo {n}\n" for n in netdevs) + "fi\n")
        os.chmod(q, os.stat(q).st_mode | stat.S_IXUSR)
        return q

    def test_qemu_devices(self):
        q = self.fake_qemu(["virtio-net-pci", "edu"], ["socket", "dgram"])
        self.assertEqual(procs.qemu_devices(q), {"virtio-net-pci", "edu"})
        self.assertEqual(procs.qemu_netdevs(q), {"socket", "dgram"})
        boot.check_tools(q, False, True, True)

    def test_missing_devices(self):
        for devices, netdevs, what, msg in (
                (["edu"], ["dgram"], "net", "no virtio-net-pci device"),
                (["virtio-net-pci"], ["socket"], "net", "no 'dgram'"),
                (["virtio-net-pci"], ["dgram"], "edu", "no edu device"),
                (["edu"], ["dgram"], "gemini", "no cray-gemini device")):
            q = self.fake_qemu(devices, netdevs)
            with self.assertRaises(Failure) as cm:
                boot.check_tools(q, what == "gemini", what == "net",
                                 what == "edu")
            self.assertIn(msg, str(cm.exception))


class Topology(ScratchTest):
    def claim(self, net_on, edu_on, dims=(3, 1, 1)):
        fab = Fabric("f")
        topo = boot.claim_fabric(fab, list(dims), 128, "/q", "/img", False,
                                 4096, [], net_on, edu_on)
        return fab, topo

    def test_net_record_and_directory(self):
        fab, topo = self.claim(True, True)
        self.assertEqual((topo["net"], topo["edu"]), (True, True))
        self.assertEqual([(nd["mac"], nd["ip"], nd["net_sock"])
                          for nd in topo["nodes"]],
                         [(net.node_mac(n), net.node_ip(n), fab.net_sock(n))
                          for n in range(3)])
        self.assertEqual(stat.S_IMODE(os.stat(fab.netdir).st_mode), 0o700)
        self.assertEqual(fab.topology()["nodes"][2]["ip"], "10.200.0.3")

    def test_qemus_get_the_devices(self):
        fab, topo = self.claim(True, True, dims=(2, 1, 1))
        started = []

        class FakeQemu:
            pid = os.getpid()

            def __init__(self, argv, **kw):
                started.append(argv)

            def poll(self):
                return None
        with mock.patch.object(boot.subprocess, "Popen", FakeQemu):
            boot.start_qemus(fab, topo, "", [])
        self.assertEqual(len(started), 2)
        for n, argv in enumerate(started):
            self.assertEqual(argv, procs.qemu_argv(
                fab, "/q", "/img", n, [2, 1, 1], 128, False, "", [], [],
                True, True))
            self.assertIn(f"mac={net.node_mac(n)}", argv[argv.index(
                "virtio-net-pci,netdev=net0,mac=" + net.node_mac(n)
                + ",romfile=")])
            with open(fab.path(n, "cmdline")) as f:
                self.assertIn("edu,id=edu0", f.read())

    def test_module_tree_record(self):
        fab = Fabric("f")
        mods = {"tag": "vgsmod", "path": "/img/m/6.1.0-9-amd64",
                "readonly": True, "kver": "6.1.0-9-amd64"}
        topo = boot.claim_fabric(fab, [1, 1, 1], 128, "/q", "/img", False,
                                 4096, [], modules=mods)
        self.assertEqual(fab.topology()["modules"], mods)
        started = []

        class FakeQemu:
            pid = os.getpid()

            def __init__(self, argv, **kw):
                started.append(argv)

            def poll(self):
                return None
        with mock.patch.object(boot.subprocess, "Popen", FakeQemu):
            boot.start_qemus(fab, topo, "", [])
        self.assertIn("virtio-9p-pci,fsdev=vgsmod,mount_tag=vgsmod",
                      started[0])
        self.assertIn("vgemini.modules=vgsmod",
                      started[0][started[0].index("-append") + 1])

    def test_ipogif_record(self):
        fab = Fabric("f")
        topo = boot.claim_fabric(fab, [2, 1, 1], 128, "/q", "/img", True,
                                 4096, [], False, False, True)
        self.assertTrue(topo["ipogif"])
        self.assertEqual([(nd["ipogif_mac"], nd["ipogif_ip"])
                          for nd in topo["nodes"]],
                         [("00:01:01:00:00:00", "10.128.0.1"),
                          ("00:01:01:00:00:04", "10.128.0.2")])
        started = []

        class FakeQemu:
            pid = os.getpid()

            def __init__(self, argv, **kw):
                started.append(argv)

            def poll(self):
                return None
        with mock.patch.object(boot.subprocess, "Popen", FakeQemu):
            boot.start_qemus(fab, topo, "", [])
        for argv in started:
            self.assertIn("vgemini.ipogif=1",
                          argv[argv.index("-append") + 1].split())

    def test_without(self):
        fab, topo = self.claim(False, False)
        self.assertFalse(topo["ipogif"])
        self.assertEqual((topo["net"], topo["edu"]), (False, False))
        self.assertNotIn("mac", topo["nodes"][0])
        self.assertFalse(os.path.exists(fab.netdir))

    def test_paths(self):
        fab = Fabric("f")
        self.assertEqual(fab.netdir, f"{self.rundir}/f/net")
        self.assertEqual(fab.hub_sock, f"{self.rundir}/f/net/hub.sock")
        self.assertEqual(fab.net_sock(5), f"{self.rundir}/f/net/5.sock")
        self.assertEqual(fab.ethhub_pidfile, f"{self.rundir}/f/ethhub.pid")
        self.assertEqual(fab.ethhub_log, f"{self.rundir}/f/ethhub.log")


class HubProgram(ScratchTest):
    def test_argv(self):
        fab = Fabric("f")
        self.assertEqual(net.ethhub_argv("/hub", fab, 3), [
            "/hub", "--pidfile", fab.ethhub_pidfile, fab.hub_sock,
            fab.net_sock(0), fab.net_sock(1), fab.net_sock(2)])

    def test_environment_override(self):
        os.environ["VGEMINI_ETHHUB"] = "/nonexistent/hub"
        with self.assertRaises(Failure) as cm:
            net.ethhub_binary()
        self.assertIn("$VGEMINI_ETHHUB", str(cm.exception))
        os.environ["VGEMINI_ETHHUB"] = "/bin/true"
        self.assertEqual(net.ethhub_binary(), "/bin/true")

    def test_built_when_missing_or_stale(self):
        os.environ.pop("VGEMINI_ETHHUB", None)
        out = os.path.join(self.tmp, "host", "vgemini-ethhub")
        built = []
        with mock.patch.object(net, "HUB_BINARY", out), \
                mock.patch.object(net, "build_ethhub",
                                  lambda s, o: built.append((s, o))):
            self.assertEqual(net.ethhub_binary(), out)
            self.assertEqual(built, [(net.HUB_SOURCE, out)])
            os.makedirs(os.path.dirname(out))
            with open(out, "w"):
                pass
            os.chmod(out, 0o755)
            src = os.path.getmtime(net.HUB_SOURCE)
            os.utime(out, (src - 10, src - 10))
            net.ethhub_binary()
            self.assertEqual(len(built), 2)         # older than its source
            os.utime(out, (src + 10, src + 10))
            net.ethhub_binary()
            self.assertEqual(len(built), 2)         # up to date

    def test_build_failure(self):
        src = os.path.join(self.tmp, "bad.c")
        with open(src, "w") as f:
            f.write("int main(void) { int unused; return 0; }\n")
        out = os.path.join(self.tmp, "out", "hub")
        if not any(os.access(os.path.join(d, "gcc"), os.X_OK)
                   for d in os.environ.get("PATH", "").split(":") if d):
            self.skipTest("no gcc")
        with self.assertRaises(Failure) as cm:
            net.build_ethhub(src, out)          # -Werror
        self.assertIn("cannot build the Ethernet hub", str(cm.exception))
        self.assertIn("unused", str(cm.exception))
        self.assertEqual(os.listdir(os.path.dirname(out)), [])


class Cli(unittest.TestCase):
    def test_options(self):
        from .test_cli import parse
        a = parse("up", "--dims", "2x1x1")
        self.assertEqual((a.net, a.edu), (False, False))
        a = parse("up", "--dims", "2x1x1", "--net", "--edu")
        self.assertEqual((a.net, a.edu), (True, True))


if __name__ == "__main__":
    unittest.main()
