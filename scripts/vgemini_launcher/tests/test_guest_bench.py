# SPDX-License-Identifier: GPL-2.0-only
"""The guest tools of guest/bench/, run on the host: udp_pingpong over
loopback (UDP and TCP, blocking and polled, output, time-outs, usage), edu_store against a
made-up sysfs tree (finding the device, enabling it, refusing one that is
no edu device), tcp_stream and icmp_echo over loopback (the bytes
checked, a difference found, usage).  In the guests they run against the
Ethernet segment of 'up --net', the edu device of 'up --edu' and ipogif0
of 'up --ipogif'."""

import os
import re
import shutil
import socket
import struct
import subprocess
import tempfile
import time
import unittest

from .helpers import REPO

CFLAGS = ["-std=c11", "-O2", "-Wall", "-Wextra", "-Werror"]
_BIN = {}


def tool(name):
    """guest/bench/NAME.c, compiled once (warnings are errors)."""
    if name not in _BIN:
        if shutil.which("gcc") is None:
            raise unittest.SkipTest("no gcc")
        if "dir" not in _BIN:
            _BIN["dir"] = tempfile.mkdtemp(prefix="vgemini-bench-")
        out = os.path.join(_BIN["dir"], name)
        p = subprocess.run(["gcc"] + CFLAGS + [
            os.path.join(REPO, "guest", "bench", name + ".c"), "-o", out],
            capture_output=True, text=True)
        if p.returncode:
            raise AssertionError(f"{name}.c does not build:\n{p.stderr}")
        _BIN[name] = out
    return _BIN[name]


def tearDownModule():
    if "dir" in _BIN:
        shutil.rmtree(_BIN["dir"], ignore_errors=True)


def free_port(kind):
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


RESULT = r"^%s: round trip us: min ([0-9.]+) avg ([0-9.]+) max ([0-9.]+)$"


class PingPong(unittest.TestCase):
    def run_tool(self, *args, timeout=60):
        return subprocess.run([tool("udp_pingpong"), *args],
                              capture_output=True, text=True,
                              timeout=timeout)

    def pair(self, proto, count, size, client_first=False, poll=False):
        kind = socket.SOCK_DGRAM if proto == "udp" else socket.SOCK_STREAM
        port = str(free_port(kind))
        opt = ["-p"] if poll else []
        server = opt + ["server" if proto == "udp" else "tcp-server", port]
        client = opt + ["client" if proto == "udp" else "tcp-client",
                        "127.0.0.1", port, str(count), str(size)]
        c = None
        if client_first:
            c = subprocess.Popen([tool("udp_pingpong"), *client],
                                 stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
            time.sleep(0.3)
        s = subprocess.Popen([tool("udp_pingpong"), "-t", "20", *server],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
        if c is None:
            c = subprocess.Popen([tool("udp_pingpong"), *client],
                                 stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
        cout, cerr = c.communicate(timeout=60)
        sout, serr = s.communicate(timeout=30)
        self.assertEqual((c.returncode, cerr), (0, ""))
        self.assertEqual((s.returncode, sout, serr), (0, "", ""))
        m = re.fullmatch(RESULT % proto, cout.strip())
        self.assertIsNotNone(m, cout)
        lo, avg, hi = map(float, m.groups())
        self.assertTrue(0 < lo <= avg <= hi, cout)

    def test_udp(self):
        self.pair("udp", 200, 64)

    def test_udp_sizes_and_client_first(self):
        self.pair("udp", 20, 1, client_first=True)
        self.pair("udp", 20, 65507)

    def test_tcp(self):
        self.pair("tcp", 200, 64)

    def test_tcp_sizes_and_client_first(self):
        self.pair("tcp", 20, 1, client_first=True)
        self.pair("tcp", 20, 65536)

    def test_polled(self):
        """-p: each side polls its socket; the same answers."""
        self.pair("udp", 200, 8, poll=True)
        self.pair("udp", 20, 65507, client_first=True, poll=True)
        self.pair("tcp", 200, 8, poll=True)
        self.pair("tcp", 20, 65536, client_first=True, poll=True)

    def test_time_outs(self):
        port = str(free_port(socket.SOCK_DGRAM))
        for args, msg in (
                (("client", "127.0.0.1", port, "5", "8"), "no answer from"),
                (("server", port), "no datagram for 0.5 s"),
                (("-p", "server", port), "no datagram for 0.5 s"),
                (("tcp-client", "127.0.0.1", port, "5", "8"),
                 "cannot connect to"),
                (("tcp-server", port), "no connection within 0.5 s")):
            t = time.monotonic()
            r = self.run_tool("-t", "0.5", *args)
            self.assertEqual(r.returncode, 1, args)
            self.assertIn(msg, r.stderr)
            self.assertLess(time.monotonic() - t, 5)

    def test_usage(self):
        for args in ((), ("server",), ("server", "0"), ("server", "70000"),
                     ("client", "127.0.0.1", "5", "0", "8"),
                     ("client", "127.0.0.1", "5", "5", "0"),
                     ("client", "127.0.0.1", "5", "5", "65508"),
                     ("tcp-client", "127.0.0.1", "5", "5", "65537"),
                     ("client", "1.2.3", "5", "5", "5"),
                     ("client", "127.0.0.1", "-5", "5", "5"),
                     ("-t", "0", "server", "5"), ("-t", "x", "server", "5"),
                     ("-p",), ("-p", "-t", "1", "server", "5"),
                     ("bogus", "1")):
            r = self.run_tool(*args)
            self.assertEqual(r.returncode, 2, args)
            self.assertIn("usage: udp_pingpong", r.stderr)


class TcpStream(unittest.TestCase):
    RECV = (r"^tcp_stream: received (\d+) bytes as sent in [0-9.]+ s "
            r"\([0-9.]+ MB/s\)$")

    def recv(self, port, nbytes, seed="5", wait="20"):
        return subprocess.Popen([tool("tcp_stream"), "-t", wait, "recv",
                                 str(port), str(nbytes), seed],
                                stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)

    def test_stream(self):
        for nbytes in (1, 65536, 3000001):
            port = free_port(socket.SOCK_STREAM)
            r = self.recv(port, nbytes)
            s = subprocess.run([tool("tcp_stream"), "send", "127.0.0.1",
                                str(port), str(nbytes), "5"],
                               capture_output=True, text=True, timeout=60)
            rout, rerr = r.communicate(timeout=60)
            self.assertEqual((r.returncode, rerr), (0, ""))
            m = re.fullmatch(self.RECV, rout.strip())
            self.assertIsNotNone(m, rout)
            self.assertEqual(int(m.group(1)), nbytes)
            self.assertEqual((s.returncode, s.stderr), (0, ""))
            self.assertRegex(s.stdout, rf"^tcp_stream: sent {nbytes} bytes ")

    def test_difference_and_short_stream(self):
        port = free_port(socket.SOCK_STREAM)
        r = self.recv(port, 1000)
        subprocess.run([tool("tcp_stream"), "send", "127.0.0.1", str(port),
                        "1000", "6"], capture_output=True, timeout=60)
        _, err = r.communicate(timeout=60)
        self.assertEqual(r.returncode, 1)
        self.assertRegex(err, r"byte \d+ is 0x[0-9a-f]{2}, not 0x")
        port = free_port(socket.SOCK_STREAM)
        r = self.recv(port, 1000)
        subprocess.run([tool("tcp_stream"), "send", "127.0.0.1", str(port),
                        "999", "5"], capture_output=True, timeout=60)
        _, err = r.communicate(timeout=60)
        self.assertEqual(r.returncode, 1)
        self.assertIn("the stream ended after 999 of 1000 bytes", err)

    def test_time_out_and_usage(self):
        port = free_port(socket.SOCK_STREAM)
        r = self.recv(port, 10, wait="0.5")
        _, err = r.communicate(timeout=30)
        self.assertEqual(r.returncode, 1)
        self.assertIn("no connection within 0.5 s", err)
        for args in ((), ("recv", "5"), ("recv", "0", "5"),
                     ("recv", "5", "0"), ("send", "1.2.3", "5", "5"),
                     ("send", "127.0.0.1", "5", "5", "4294967296"),
                     ("bogus", "1", "2")):
            p = subprocess.run([tool("tcp_stream"), *args],
                               capture_output=True, text=True, timeout=30)
            self.assertEqual(p.returncode, 2, args)
            self.assertIn("usage: tcp_stream", p.stderr)


class IcmpEcho(unittest.TestCase):
    def run_tool(self, *args):
        return subprocess.run([tool("icmp_echo"), *args],
                              capture_output=True, text=True, timeout=60)

    def test_loopback(self):
        for size in (8, 4038, 65507):
            p = self.run_tool("127.0.0.1", str(size), "3", "9")
            if "raw ICMP socket" in p.stderr:
                self.skipTest("no raw socket here: " + p.stderr.strip())
            self.assertEqual((p.returncode, p.stderr), (0, ""))
            self.assertRegex(p.stdout, rf"^icmp_echo: 3 replies of {size} "
                             r"bytes as sent; round trip us: min [0-9.]+ "
                             r"avg [0-9.]+ max [0-9.]+\n$")

    def test_usage(self):
        for args in ((), ("127.0.0.1", "7", "1"), ("127.0.0.1", "65508", "1"),
                     ("127.0.0.1", "8", "0"), ("1.2.3", "8", "1"),
                     ("-t", "0", "127.0.0.1", "8", "1")):
            p = self.run_tool(*args)
            self.assertEqual(p.returncode, 2, args)
            self.assertIn("usage: icmp_echo", p.stderr)


class EduStore(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="vgemini-sysfs-")
        self.addCleanup(shutil.rmtree, self.dir, True)

    def device(self, name, vendor=0x1234, device=0x11e8, command=0x2):
        d = os.path.join(self.dir, name)
        os.makedirs(d)
        for attr, v in (("vendor", vendor), ("device", device)):
            with open(os.path.join(d, attr), "w") as f:
                f.write(f"0x{v:04x}\n")
        with open(os.path.join(d, "config"), "wb") as f:
            f.write(bytes(4) + struct.pack("<H", command) + bytes(58))
        with open(os.path.join(d, "resource0"), "wb") as f:
            f.write(struct.pack("<I", 0x010000ed) + bytes(4096))
        open(os.path.join(d, "enable"), "w").close()
        return d

    def run_tool(self, *args):
        return subprocess.run([tool("edu_store"), *args],
                              capture_output=True, text=True, timeout=30)

    def test_absent(self):
        self.device("0000:00:03.0", vendor=0x8086)
        r = self.run_tool("-s", self.dir)
        self.assertEqual(r.returncode, 1)
        self.assertIn("no edu device (PCI 1234:11e8)", r.stderr)
        self.assertIn("vgemini up --edu", r.stderr)
        r = self.run_tool("-s", self.dir, "-d", "0000:00:03.0")
        self.assertEqual(r.returncode, 1)
        self.assertIn("is not an edu device", r.stderr)

    def test_found_and_checked(self):
        # A file is no device: what it stores it reads back unchanged,
        # which the liveness check (complement) catches.
        d = self.device("0000:00:05.0", command=0)
        self.device("0000:00:04.0", device=0x1000)
        r = self.run_tool("-s", self.dir, "-n", "10")
        self.assertEqual(r.returncode, 1)
        self.assertIn("0000:00:05.0: liveness check failed: wrote "
                      "0x12345678, read 0x12345678 (want 0xedcba987)",
                      r.stderr)
        # memory decoding was off: it asked the kernel to enable it
        with open(os.path.join(d, "enable")) as f:
            self.assertEqual(f.read(), "1")

    def test_not_an_edu_register_file(self):
        d = self.device("0000:00:05.0")
        with open(os.path.join(d, "resource0"), "r+b") as f:
            f.write(struct.pack("<I", 0x12345678))
        r = self.run_tool("-s", self.dir)
        self.assertEqual(r.returncode, 1)
        self.assertIn("identification register reads 0x12345678",
                      r.stderr)

    def test_usage(self):
        for args in (("-n", "0"), ("-n", "x"), ("-n", "-1"), ("extra",),
                     ("-q",)):
            r = self.run_tool(*args)
            self.assertEqual(r.returncode, 2, args)
            self.assertIn("usage: edu_store", r.stderr)
        r = self.run_tool("-d", "../x")
        self.assertEqual(r.returncode, 1)
        self.assertIn("bad device name", r.stderr)


if __name__ == "__main__":
    unittest.main()
