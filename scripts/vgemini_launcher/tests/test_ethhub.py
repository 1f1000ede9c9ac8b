# SPDX-License-Identifier: GPL-2.0-only
"""The Ethernet hub of 'up --net' (scripts/vgemini-ethhub.c), run on unix
datagram sockets in a scratch directory, the test playing the QEMUs:
flooding, learning, forwarding, what it drops, its counters, how it exits,
and its start and stop by the launcher.

The hub is compiled here with the launcher's own flags (-Werror), or taken
from $VGEMINI_TEST_ETHHUB (e.g. a build with sanitizers).
"""

import os
import random
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import unittest

from vgemini_launcher import net
from vgemini_launcher.common import Failure

from .helpers import ScratchTest

FRAME_MAX = 9018
BCAST = b"\xff" * 6
ETHERTYPE = b"\x88\xb5"         # local experimental
_HUB = {}


def hub_binary():
    """The hub under test, compiled once for all the tests."""
    if "path" not in _HUB:
        env = os.environ.get("VGEMINI_TEST_ETHHUB")
        if env:
            _HUB["path"] = env
        elif shutil.which("gcc") is None:
            _HUB["path"] = None
        else:
            d = tempfile.mkdtemp(prefix="vgemini-ethhub-")
            _HUB["dir"] = d
            _HUB["path"] = os.path.join(d, "vgemini-ethhub")
            net.build_ethhub(net.HUB_SOURCE, _HUB["path"])
    if _HUB["path"] is None:
        raise unittest.SkipTest("no gcc to build the hub")
    return _HUB["path"]


def tearDownModule():
    if "dir" in _HUB:
        shutil.rmtree(_HUB["dir"], ignore_errors=True)


def mac(n):
    return bytes.fromhex(net.node_mac(n).replace(":", ""))


def frame(dst, src, payload=b"hello", size=None):
    f = dst + src + ETHERTYPE + payload
    if size is not None:
        f = (f + bytes(size))[:size]
    return f


def wait_exit(p, timeout=5.0):
    try:
        return p.wait(timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        raise AssertionError(f"the hub did not exit within {timeout} s")


class Hub(unittest.TestCase):
    """A hub with NPORTS node sockets; self.node[i] is node i's socket,
    bound (as QEMU binds it) unless i is in ABSENT."""
    NPORTS = 4
    ABSENT = ()

    def setUp(self):
        binary = hub_binary()
        self.dir = tempfile.mkdtemp(prefix="vgemini-hub-")
        self.addCleanup(shutil.rmtree, self.dir, True)
        self.hub = os.path.join(self.dir, "hub.sock")
        self.pidfile = os.path.join(self.dir, "ethhub.pid")
        self.log = os.path.join(self.dir, "ethhub.log")
        self.paths = [os.path.join(self.dir, f"{i}.sock")
                      for i in range(self.NPORTS)]
        self.node = {}
        self.sent = 0           # datagrams sent to the hub
        for i, p in enumerate(self.paths):
            if i in self.ABSENT:
                continue
            s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            s.bind(p)
            s.settimeout(5)
            self.addCleanup(s.close)
            self.node[i] = s
        self.p = self.start(binary)

    def start(self, binary, extra=(), pidfile=None):
        pidfile = pidfile or self.pidfile
        with open(self.log, "ab") as log:
            p = subprocess.Popen([binary, "--pidfile", pidfile, *extra,
                                  self.hub, *self.paths],
                                 stdin=subprocess.DEVNULL, stdout=log,
                                 stderr=log)
        self.addCleanup(self.stop, p)
        end = time.monotonic() + 10
        while True:
            try:
                with open(pidfile) as f:
                    if f.read().strip() == str(p.pid):
                        return p
            except OSError:
                pass
            if p.poll() is not None:
                self.fail(f"the hub exited with {p.returncode}:\n"
                          + self.logtext())
            if time.monotonic() > end:
                self.fail("the hub did not write its pid file")
            time.sleep(0.01)

    def stop(self, p):
        if p.poll() is None:
            p.kill()
            p.wait()

    def logtext(self):
        try:
            with open(self.log) as f:
                return f.read()
        except OSError:
            return ""

    def send(self, i, data):
        self.node[i].sendto(data, self.hub)
        self.sent += 1

    def recv(self, i):
        return self.node[i].recv(65536)

    def expect(self, want):
        """Node i receives exactly the frames want[i], for each i of want,
        and then a marker that another node broadcasts after them (the hub
        keeps the order); then every queue is emptied."""
        others = [i for i in self.node if i not in want]
        # A node does not hear its own marker: when every node is checked,
        # a second marker, from another node, covers the first sender.
        srcs = others[:1] or sorted(want)[:2]
        markers = {}
        for src in srcs:
            m = frame(BCAST, mac(src), b"marker %d" % random.getrandbits(32))
            self.send(src, m)
            for i in self.node:
                if i != src:
                    markers.setdefault(i, m)
        for i, frames in want.items():
            for w in frames:
                self.assertEqual(self.recv(i), w, f"node {i}")
            self.assertEqual(self.recv(i), markers[i],
                             f"node {i}: more frames than expected")
        self.settle()

    def counters(self):
        """The hub's counters (SIGUSR1), as {name: value}."""
        before = self.logtext().count("counters:")
        self.p.send_signal(signal.SIGUSR1)
        end = time.monotonic() + 5
        while self.logtext().count("counters:") == before:
            self.assertLess(time.monotonic(), end, "no counters line")
            time.sleep(0.01)
        line = [ln for ln in self.logtext().splitlines()
                if "counters:" in ln][-1]
        return parse_counters(line)

    def settle(self):
        """Wait until the hub has dealt with every datagram sent to it
        (each ends in one of the counters below, once it is sent), then
        empty every node's queue."""
        end = time.monotonic() + 10
        while True:
            c = self.counters()
            done = sum(c[k] for k in (
                "unicast", "flooded", "short", "long", "from unknown sockets",
                "with a group source", "for their own port"))
            if done == self.sent:
                break
            self.assertLess(time.monotonic(), end,
                            f"the hub dealt with {done} of {self.sent}")
            time.sleep(0.005)
        for s in self.node.values():
            s.settimeout(0)
            try:
                while True:
                    s.recv(65536)
            except BlockingIOError:
                pass
            s.settimeout(5)

    def learn(self, *ports):
        """Teach the hub that mac(i) is behind port i."""
        for i in ports:
            self.send(i, frame(BCAST, mac(i), b"learn"))
        self.settle()


def parse_counters(line):
    body = line.split(": ", 2)[2]
    return {k.strip(): int(v) for v, k in
            re.findall(r"(\d+) ([a-z][a-z ]*?)(?=[,;()]|$)", body)}


class Forwarding(Hub):
    def test_flood_then_learn(self):
        a, b = mac(0), mac(1)
        # Nothing learnt: a frame for b goes to every port but its own.
        f1 = frame(b, a, b"one")
        self.send(0, f1)
        self.expect({0: [], 1: [f1], 2: [f1], 3: [f1]})
        # b answers: a was learnt on port 0, so only node 0 gets it.
        f2 = frame(a, b, b"two")
        self.send(1, f2)
        self.expect({0: [f2], 1: [], 2: [], 3: []})
        # and b was learnt on port 1.
        f3 = frame(b, a, b"three")
        self.send(0, f3)
        self.expect({0: [], 1: [f3], 2: [], 3: []})
        c = self.counters()
        self.assertEqual((c["unicast"], c["for their own port"]), (2, 0))

    def test_broadcast_and_multicast_flood(self):
        for dst in (BCAST, bytes.fromhex("01005e000001"),
                    bytes.fromhex("333300000001")):
            f = frame(dst, mac(2), b"group")
            self.send(2, f)
            self.expect({0: [f], 1: [f], 2: [], 3: [f]})

    def test_unknown_unicast_floods_after_learning_others(self):
        self.learn(0, 2, 3)
        f = frame(mac(77), mac(1))
        self.send(1, f)
        self.expect({0: [f], 1: [], 2: [f], 3: [f]})

    def test_a_mac_that_moves_is_followed(self):
        self.send(0, frame(BCAST, mac(9)))      # mac 9 behind port 0
        self.settle()
        self.send(3, frame(BCAST, mac(9)))      # now behind port 3
        self.settle()
        f = frame(mac(9), mac(1))
        self.send(1, f)
        self.expect({0: [], 1: [], 2: [], 3: [f]})

    def test_sizes(self):
        a, b = mac(0), mac(1)
        self.learn(1)
        for size, passes in ((0, False), (1, False), (13, False),
                             (14, True), (60, True), (1514, True),
                             (FRAME_MAX, True), (FRAME_MAX + 1, False),
                             (65000, False)):
            f = frame(b, a, size=size)
            self.assertEqual(len(f), size)
            self.send(0, f)
            self.expect({1: [f] if passes else [], 2: [], 3: []})
        c = self.counters()
        self.assertEqual((c["short"], c["long"]), (3, 2))

    def test_frames_of_strangers_are_dropped(self):
        stranger = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.addCleanup(stranger.close)
        stranger.bind(os.path.join(self.dir, "stranger.sock"))
        stranger.sendto(frame(BCAST, mac(5)), self.hub)
        unbound = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.addCleanup(unbound.close)
        unbound.sendto(frame(BCAST, mac(6)), self.hub)
        abstract = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.addCleanup(abstract.close)
        abstract.bind(b"\0vgemini-hub-test-%d" % os.getpid())
        abstract.sendto(frame(BCAST, mac(7)), self.hub)
        self.sent += 3
        self.expect({0: [], 1: [], 2: [], 3: []})
        self.assertEqual(self.counters()["from unknown sockets"], 3)
        # and their MACs were not learnt: a frame for one still floods.
        f = frame(mac(5), mac(0))
        self.send(0, f)
        self.expect({1: [f], 2: [f], 3: [f]})

    def test_group_source_and_own_port_dropped(self):
        self.send(0, frame(BCAST, bytes.fromhex("010203040506")))
        self.expect({1: [], 2: [], 3: []})
        self.learn(0)
        self.send(0, frame(mac(0), mac(10)))    # mac 0 is behind port 0
        self.expect({0: [], 1: [], 2: [], 3: []})
        c = self.counters()
        self.assertEqual((c["with a group source"], c["for their own port"]),
                         (1, 1))

    def test_garbage_never_stops_it(self):
        rnd = random.Random(7)
        for _ in range(500):
            n = rnd.choice((0, 1, 13, 14, 15, 64, 1500, 9018, 9019, 20000))
            data = bytes(rnd.getrandbits(8) for _ in range(min(n, 64)))
            self.send(rnd.randrange(4), (data + bytes(n))[:n])
        self.settle()
        self.assertIsNone(self.p.poll())
        self.assertEqual(self.counters()["frames in"], 500)
        f = frame(BCAST, mac(3), b"still here")
        self.send(3, f)
        self.expect({0: [f], 1: [f], 2: [f]})

    def test_idle_is_free(self):
        def cpu():
            with open(f"/proc/{self.p.pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            return int(fields[11]) + int(fields[12])
        t = cpu()
        time.sleep(1.0)
        self.assertLessEqual(cpu() - t, 1)      # clock ticks
        for t in os.listdir(f"/proc/{self.p.pid}/task"):
            with open(f"/proc/{self.p.pid}/task/{t}/stat") as f:
                self.assertEqual(f.read().rsplit(")", 1)[1].split()[0], "S")


class AbsentAndFullPorts(Hub):
    NPORTS = 4
    ABSENT = (3,)

    def test_an_absent_qemu_is_skipped(self):
        f = frame(BCAST, mac(0))
        self.send(0, f)
        for i in (1, 2):
            self.assertEqual(self.recv(i), f)
        self.settle()
        self.assertEqual(self.counters()["to an absent port"], 1)

    def test_a_full_queue_holds_up_no_one(self):
        self.send(1, frame(BCAST, mac(1)))
        self.send(2, frame(BCAST, mac(2)))
        self.settle()
        # Node 1 reads nothing: its queue fills, the hub drops the rest.
        for k in range(1000):
            self.send(0, frame(mac(1), mac(0), b"%d" % k))
        f = frame(mac(2), mac(0), b"for node 2")
        self.send(0, f)
        self.assertEqual(self.recv(2), f)
        c = self.counters()
        self.assertGreater(c["to a full queue"], 0)
        self.assertEqual(c["frames in"], 1003)
        got = 0
        self.node[1].settimeout(0)
        try:
            while True:
                self.node[1].recv(65536)
                got += 1
        except BlockingIOError:
            pass
        self.assertEqual(got + c["to a full queue"], 1000)


class Exits(Hub):
    NPORTS = 2

    def gone(self):
        self.assertFalse(os.path.exists(self.hub))
        self.assertFalse(os.path.exists(self.pidfile))

    def test_sigterm(self):
        self.p.send_signal(signal.SIGTERM)
        self.assertEqual(wait_exit(self.p), 0)
        self.gone()
        self.assertIn("exiting on TERM", self.logtext())

    def test_socket_removed(self):
        os.unlink(self.hub)
        self.assertEqual(wait_exit(self.p), 0)
        self.assertFalse(os.path.exists(self.pidfile))
        self.assertIn("the hub socket is gone", self.logtext())

    def test_directory_removed(self):
        # (the hub may remove its pid file while rmtree does)
        shutil.rmtree(self.dir, ignore_errors=True)
        self.assertEqual(wait_exit(self.p), 0)

    def test_socket_replaced_by_another_hub(self):
        second = self.start(hub_binary(), pidfile=self.pidfile + "2")
        self.assertEqual(wait_exit(self.p), 0)
        self.assertFalse(os.path.exists(self.pidfile))
        # The first one left the second one's socket alone.
        self.assertIsNone(second.poll())
        f = frame(BCAST, mac(0))
        self.send(0, f)
        self.assertEqual(self.recv(1), f)

    def test_parent_exits(self):
        self.stop(self.p)
        parent = subprocess.Popen(["sleep", "60"])
        self.addCleanup(self.stop, parent)
        p = self.start(hub_binary(), ["--parent", str(parent.pid)])
        self.assertIsNone(p.poll())
        parent.kill()
        parent.wait()
        self.assertEqual(wait_exit(p), 0)
        self.assertIn("the parent process exited", self.logtext())


class Usage(unittest.TestCase):
    def run_hub(self, *args):
        return subprocess.run([hub_binary(), *args], capture_output=True,
                              text=True, timeout=10)

    def test_refused(self):
        d = tempfile.mkdtemp(prefix="vgemini-hub-")
        self.addCleanup(shutil.rmtree, d, True)
        hub, a = os.path.join(d, "hub.sock"), os.path.join(d, "a.sock")
        regular = os.path.join(d, "file")
        open(regular, "w").close()
        for args, code, msg in (
                ((), 2, "want HUB_SOCK and at least one NODE_SOCK"),
                ((hub,), 2, "want HUB_SOCK"),
                (("--bogus", hub, a), 2, "unknown option"),
                (("--parent", "x", hub, a), 2, "bad --parent"),
                (("--parent", "0", hub, a), 2, "bad --parent"),
                (("--pidfile",), 2, "--pidfile wants a file"),
                ((hub, hub), 2, "a node socket is the hub socket"),
                ((hub, a, a), 1, "given twice"),
                ((hub, "/" + "x" * 120), 1, "too long"),
                (("/" + "x" * 120, a), 1, "too long"),
                ((regular, a), 1, "exists and is not a socket"),
                ((os.path.join(d, "no", "hub.sock"), a), 1, "cannot bind"),
                ((hub,) + tuple(f"{d}/{i}" for i in range(1025)), 2,
                 "too many")):
            r = self.run_hub(*args)
            self.assertEqual(r.returncode, code, (args[:3], r.stderr))
            self.assertIn(msg, r.stderr, args[:3])
        self.assertTrue(os.path.isfile(regular))
        r = self.run_hub("--help")
        self.assertEqual(r.returncode, 0)
        self.assertIn("usage: vgemini-ethhub", r.stdout)

    def test_parent_not_running(self):
        p = subprocess.Popen(["true"])
        p.wait()
        d = tempfile.mkdtemp(prefix="vgemini-hub-")
        self.addCleanup(shutil.rmtree, d, True)
        r = self.run_hub("--parent", str(p.pid), f"{d}/h", f"{d}/a")
        self.assertEqual(r.returncode, 1)
        self.assertIn("is not running", r.stderr)


class Launcher(ScratchTest):
    """'up' starts the hub (boot.start_ethhub), 'down' stops it."""

    def test_start_and_teardown(self):
        from vgemini_launcher.boot import start_ethhub
        from vgemini_launcher.fabric import Fabric, teardown
        from vgemini_launcher.procs import find_qemus, proc_alive
        os.environ["VGEMINI_ETHHUB"] = hub_binary()
        fab = Fabric("f")
        os.makedirs(fab.netdir)
        # As 'up' saves it before the hub starts; QEMUs as the caller's.
        fab.save({"qemu_user": None})
        p, rec = start_ethhub(fab, 3)
        self.addCleanup(p.wait)
        self.assertTrue(proc_alive(rec["pid"], rec["starttime"]))
        self.assertEqual(find_qemus(fab.rundir),
                         {rec["pid"]: fab.ethhub_pidfile})
        self.assertEqual((rec["pidfile"], rec["log"], rec["sock"]),
                         (fab.ethhub_pidfile, fab.ethhub_log, fab.hub_sock))
        with open(f"/proc/{rec['pid']}/cmdline", "rb") as f:
            self.assertEqual(f.read().split(b"\0")[:-1], [
                os.fsencode(a) for a in net.ethhub_argv(hub_binary(), fab,
                                                        3)])
        # The QEMUs' sockets: node 0 floods, nodes 1 and 2 hear it.
        socks = []
        for n in range(3):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            s.bind(fab.net_sock(n))
            s.settimeout(5)
            self.addCleanup(s.close)
            socks.append(s)
        f = frame(BCAST, mac(0))
        socks[0].sendto(f, fab.hub_sock)
        self.assertEqual(socks[1].recv(9100), f)
        self.assertEqual(socks[2].recv(9100), f)
        self.assertTrue(teardown(fab, quiet=True))
        self.assertFalse(proc_alive(rec["pid"], rec["starttime"]))
        self.assertFalse(os.path.exists(fab.rundir))

    def test_start_failure_is_reported(self):
        from vgemini_launcher.boot import start_ethhub
        from vgemini_launcher.fabric import Fabric
        os.environ["VGEMINI_ETHHUB"] = hub_binary()
        fab = Fabric("f")
        os.makedirs(fab.rundir)         # but no net/: cannot bind
        with self.assertRaises(Failure) as cm:
            start_ethhub(fab, 2)
        self.assertIn("the Ethernet hub exited with status 1",
                      str(cm.exception))
        self.assertIn("cannot bind", str(cm.exception))


if __name__ == "__main__":
    unittest.main()
