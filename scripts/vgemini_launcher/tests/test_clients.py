# SPDX-License-Identifier: GPL-2.0-only
"""The agent and QMP clients (and the unix-socket helper under both),
each against a small scripted server on a unix socket."""

import fcntl
import json
import os
import socket
import struct
import threading
import time

from vgemini_launcher import qmp as qmpmod
from vgemini_launcher.agent import (EXEC_F_STDIN, HDR, HOW_EXITED, MAGIC,
                                    MAX_PAYLOAD, T_EXEC, T_EXIT, T_HELLO,
                                    T_HELLO_ACK, T_STDERR, T_STDIN,
                                    T_STDOUT, Agent, AgentError, describe,
                                    exit_code)
from vgemini_launcher.common import EXIT_NO_AGENT, EXIT_TIMEOUT
from vgemini_launcher.qmp import QMP, QMPError

from .helpers import ScratchTest


class Server:
    """Serve one connection on a unix socket with handler(conn) in a
    thread."""

    def __init__(self, path, handler):
        self.path = path
        self.error = None
        self.ls = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.ls.bind(path)
        self.ls.listen(1)
        self.t = threading.Thread(target=self.run, args=(handler,),
                                  daemon=True)
        self.t.start()

    def run(self, handler):
        conn, _ = self.ls.accept()
        try:
            handler(conn)
        except Exception as e:      # reported by join()
            self.error = e
        finally:
            conn.close()
            self.ls.close()

    def join(self):
        self.t.join(5)
        if self.error:
            raise self.error


def recv_exact(conn, n):
    data = b""
    while len(data) < n:
        d = conn.recv(n - len(data))
        if not d:
            raise EOFError
        data += d
    return data


def read_frame(conn):
    magic, typ, fl, rsv, rid, n = HDR.unpack(recv_exact(conn, HDR.size))
    assert magic == MAGIC and fl == 0 and rsv == 0, "bad frame"
    return typ, rid, recv_exact(conn, n)


def frame(typ, rid, payload=b""):
    return HDR.pack(MAGIC, typ, 0, 0, rid, len(payload)) + payload


class AgentClient(ScratchTest):
    def setUp(self):
        super().setUp()
        self.sock = os.path.join(self.tmp, "agent")
        self.seen = {}

    def agent_server(self, conn, stdout=b"out\n", status=(HOW_EXITED, 5),
                     zeros=0):
        """HELLO (after zeros padding bytes), then one EXEC answered with
        stdout, stderr and EXIT."""
        if zeros:
            self.seen["zeros"] = recv_exact(conn, zeros)
        typ, hid, p = read_frame(conn)
        self.seen["hello"] = (typ, struct.unpack("<I", p)[0])
        # Stale frames of an earlier client come first.
        conn.sendall(b"garbage" + frame(T_STDOUT, 1, b"stale")
                     + frame(T_HELLO_ACK, hid ^ 1, bytes(12))
                     + frame(T_HELLO_ACK, hid, struct.pack("<III", 2,
                                                           MAX_PAYLOAD, 64)))
        typ, rid, p = read_frame(conn)
        tmo, flags, argc = struct.unpack_from("<III", p)
        self.seen["exec"] = (typ, tmo, flags,
                             p[12:].split(b"\0")[:argc])
        if flags & EXEC_F_STDIN:
            data = b""
            while True:
                typ, r, d = read_frame(conn)
                assert (typ, r) == (T_STDIN, rid)
                if not d:
                    break
                data += d
            self.seen["stdin"] = data
        conn.sendall(frame(T_STDOUT, rid ^ 7, b"not mine")
                     + frame(T_STDOUT, rid, stdout)
                     + frame(T_STDERR, rid, b"err\n")
                     + frame(T_EXIT, rid, struct.pack("<Ii", *status)))

    def test_hello_and_run(self):
        srv = Server(self.sock, self.agent_server)
        out, err = [], []
        with Agent(self.sock) as a:
            a.connect(5)
            self.assertEqual((a.version, a.max_requests), (2, 64))
            r = a.run(["prog", "x y"], timeout=2.5, on_stdout=out.append,
                      on_stderr=err.append)
        srv.join()
        self.assertEqual(r, (HOW_EXITED, 5))
        self.assertEqual(b"".join(out), b"out\n")
        self.assertEqual(b"".join(err), b"err\n")
        self.assertEqual(self.seen["hello"], (T_HELLO, 1))
        self.assertEqual(self.seen["exec"], (T_EXEC, 2500, 0,
                                             [b"prog", b"x y"]))
        self.assertIsNone(a.sock)

    def test_stdin_is_fed(self):
        srv = Server(self.sock, self.agent_server)
        with Agent(self.sock) as a:
            a.connect(5)
            a.run(["cat"], stdin=b"x" * 70000)
        srv.join()
        self.assertEqual(self.seen["exec"][2], EXEC_F_STDIN)
        self.assertEqual(self.seen["stdin"], b"x" * 70000)

    def test_pad_completes_a_truncated_frame(self):
        srv = Server(self.sock, lambda c: self.agent_server(
            c, zeros=MAX_PAYLOAD + HDR.size))
        a = Agent(self.sock)
        a.connect(5, pad=True)
        a.run(["true"])
        a.close()
        srv.join()
        self.assertEqual(self.seen["zeros"], bytes(MAX_PAYLOAD + HDR.size))

    def test_lock_file_says_clean_after_a_finished_request(self):
        for clean, want in ((True, b"clean\n"), (False, b"dirty\n")):
            lock = os.path.join(self.tmp, f"lock{clean}")
            with open(lock, "wb") as f:
                f.write(b"dirty\n")
            a = Agent(self.sock)
            a.lockfd = os.open(lock, os.O_RDWR)
            a.clean = clean
            a.close()
            a.close()       # idempotent
            self.assertIsNone(a.lockfd)
            with open(lock, "rb") as f:
                self.assertEqual(f.read(), want)

    def test_no_socket(self):
        t = time.monotonic()
        with self.assertRaises(AgentError) as cm:
            Agent(self.sock).connect(0.3)
        self.assertEqual(str(cm.exception), f"cannot connect to {self.sock}")
        self.assertGreaterEqual(time.monotonic() - t, 0.3)

    def test_qemu_gone(self):
        with self.assertRaises(AgentError) as cm:
            Agent(self.sock).connect(5, alive=lambda: False)
        self.assertEqual(str(cm.exception), "QEMU is not running")

    def test_connection_closed_mid_request(self):
        def server(conn):
            typ, hid, p = read_frame(conn)
            conn.sendall(frame(T_HELLO_ACK, hid, struct.pack("<I", 1)))
            read_frame(conn)
        srv = Server(self.sock, server)
        a = Agent(self.sock)
        a.connect(5)
        self.assertEqual((a.version, a.max_requests), (1, 1))
        with self.assertRaises(AgentError) as cm:
            a.run(["x"])
        self.assertEqual(str(cm.exception),
                         "connection closed (QEMU exited?)")
        a.close()
        srv.join()

    def test_exit_codes(self):
        self.assertEqual(exit_code(HOW_EXITED, 3), 3)
        self.assertEqual(exit_code(1, 9), 137)
        self.assertEqual(exit_code(2, 9), EXIT_TIMEOUT)
        self.assertEqual(exit_code(3, 2), EXIT_NO_AGENT)
        self.assertEqual(exit_code(4, 0), EXIT_NO_AGENT)
        self.assertEqual(describe(HOW_EXITED, 3), "exit status 3")
        self.assertEqual(describe(1, 9), "killed by signal 9")
        self.assertEqual(describe(2, 9), "timed out")
        self.assertEqual(describe(3, 2), "could not start: "
                         + os.strerror(2))
        self.assertEqual(describe(4, 0),
                         "aborted by the agent (connection reset)")


class QMPClient(ScratchTest):
    def setUp(self):
        super().setUp()
        self.sock = os.path.join(self.tmp, "qmp")
        self.commands = []

    def qmp_server(self, answers):
        """Greeting, then for each command the answer answers(cmd, args)
        (a dict without id, or None to hang up)."""
        def handler(conn):
            f = conn.makefile("rwb")
            f.write(b'{"QMP": {"version": {}}}\n')
            f.flush()
            for line in f:
                msg = json.loads(line)
                self.commands.append((msg["execute"],
                                      msg.get("arguments")))
                if msg["execute"] == "qmp_capabilities":
                    ans = {"return": {}}
                else:
                    ans = answers(msg["execute"], msg.get("arguments"))
                if ans is None:
                    return
                f.write(b'{"event": "X"}\n\n[1]\n{"id": "other"}\n')
                f.write(json.dumps(dict(ans, id=msg["id"])).encode()
                        + b"\n")
                f.flush()
        return Server(self.sock, handler)

    def test_execute(self):
        srv = self.qmp_server(lambda c, a: {"return": {"c": c, "a": a}})
        with QMP(self.sock) as q:
            q.connect(5)
            self.assertEqual(q.execute("query-x", {"k": 1}),
                             {"c": "query-x", "a": {"k": 1}})
            self.assertEqual(q.execute("query-y"), {"c": "query-y",
                                                    "a": None})
            q.buf += b'{"event": "half-read'
        srv.join()
        self.assertEqual(self.commands, [("qmp_capabilities", None),
                                         ("query-x", {"k": 1}),
                                         ("query-y", None)])
        self.assertIsNone(q.sock)
        self.assertEqual(q.buf, b"")

    def test_device_properties(self):
        props = {"ports": '[{"port": "X+", "state": "up"}]', "fabric":
                 "running", "bad": "{not json"}

        def answers(cmd, a):
            if cmd == "qom-set":
                return {"return": {}}
            if a["property"] in props:
                return {"return": props[a["property"]]}
            return {"error": {"class": "GenericError",
                              "desc": f"Property '{a['property']}' "
                              "not found"}}
        srv = self.qmp_server(answers)
        with QMP(self.sock) as q:
            q.connect(5)
            self.assertEqual(qmpmod.qom_json(q, "ports"),
                             [{"port": "X+", "state": "up"}])
            self.assertEqual(qmpmod.qom_get(q, "fabric"), "running")
            qmpmod.qom_set(q, "fabric", "quiesce")
            with self.assertRaises(QMPError) as cm:
                qmpmod.qom_json(q, "bad")
            self.assertIn("the device's 'bad' is not JSON",
                          str(cm.exception))
            with self.assertRaises(QMPError) as cm:
                qmpmod.qom_get(q, "nope")
            self.assertEqual(cm.exception.cls, "GenericError")
            self.assertTrue(str(cm.exception).startswith(
                "the cray-gemini device has no 'nope' property"))
        srv.join()
        self.assertEqual(self.commands[3],
                         ("qom-set", {"path": "/machine/peripheral/gemini0",
                                      "property": "fabric",
                                      "value": "quiesce"}))

    def test_device_error_wording(self):
        e = qmpmod.device_error(QMPError("Device 'x' not found",
                                         "DeviceNotFound"), "p")
        self.assertTrue(str(e).startswith("no cray-gemini device at "
                                          "/machine/peripheral/gemini0"))
        e = qmpmod.device_error(QMPError("busy", "GenericError"), "p")
        self.assertEqual((str(e), e.cls), ("p: busy", "GenericError"))
        plain = QMPError("connection lost")
        self.assertIs(qmpmod.device_error(plain, "p"), plain)

    def test_connection_closed_mid_command(self):
        srv = self.qmp_server(lambda c, a: None)
        q = QMP(self.sock)
        q.connect(5)
        with self.assertRaises(QMPError) as cm:
            q.execute("query-x")
        self.assertEqual(str(cm.exception),
                         "QMP connection closed (QEMU exited?)")
        self.assertIsNone(cm.exception.cls)
        self.assertIsNone(q.sock)       # closed on the way out
        srv.join()

    def test_no_greeting(self):
        done = threading.Event()
        srv = Server(self.sock, lambda conn: done.wait(10))
        try:
            with self.assertRaises(QMPError) as cm:
                QMP(self.sock).connect(0.3)
        finally:
            done.set()
        self.assertTrue(str(cm.exception).startswith(
            f"no QMP greeting on {self.sock} within 0 s"))
        srv.join()

    def test_no_socket_and_qemu_gone(self):
        with self.assertRaises(QMPError) as cm:
            QMP(self.sock).connect(0.2)
        self.assertEqual(str(cm.exception), f"cannot connect to {self.sock}")
        with self.assertRaises(QMPError) as cm:
            QMP(self.sock).connect(5, alive=lambda: False)
        self.assertEqual(str(cm.exception), "QEMU is not running")
        with self.assertRaises(QMPError) as cm:
            QMP(self.sock).execute("x")
        self.assertEqual(str(cm.exception), "not connected")

    def test_busy_lock(self):
        lock = self.sock + ".lock"
        fd = os.open(lock, os.O_RDWR | os.O_CREAT)
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            q = QMP(self.sock, lock)
            with self.assertRaises(QMPError) as cm:
                q.connect(0.2)
            self.assertEqual(str(cm.exception), f"{self.sock} is busy "
                             "(another vgemini command holds it for over "
                             "0.2 s)")
            self.assertIsNone(q.lockfd)
        finally:
            os.close(fd)

    def test_lock_is_held_while_connected(self):
        lock = self.sock + ".lock"
        srv = self.qmp_server(lambda c, a: {"return": 1})
        q = QMP(self.sock, lock)
        q.connect(5)
        fd = os.open(lock, os.O_RDWR)
        try:
            with self.assertRaises(BlockingIOError):
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            q.close()
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        finally:
            os.close(fd)
        srv.join()
