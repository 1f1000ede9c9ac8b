# SPDX-License-Identifier: GPL-2.0-only
"""The host side of the guest agent's protocol (its numbers read from
uapi/vgemini_agent.h; what the frames mean in the comment at the top of
guest/agent.c): one connection to a node's agent, running a command and
relaying its output.
"""

import os
import random
import select
import socket
import struct
import threading
import time

from .common import (EXIT_NO_AGENT, EXIT_TIMEOUT, Failure, header_define,
                     header_define_str)
from .unixclient import UnixClient


AGENT_PORTS = 4                 # virtio-serial ports (agents) per node


def _agent(name):
    return header_define("vgemini_agent.h", "VGEMINI_AGENT_" + name)


# The wire constants, from uapi/vgemini_agent.h.
AGENT_PORT_NAME = header_define_str("vgemini_agent.h",
                                    "VGEMINI_AGENT_PORT_NAME")
MAGIC = _agent("MAGIC")
VERSION = _agent("HOST_VERSION")            # what our HELLO announces
VERSION_LIMITS = _agent("VERSION_LIMITS")   # HELLO_ACK has max_requests
MAX_REQUESTS = _agent("MAX_REQUESTS")
MAX_PAYLOAD = _agent("MAX_PAYLOAD")
# magic, type, flags, reserved, id, len: struct vgemini_agent_hdr
HDR = struct.Struct("<IBBHII")
if HDR.size != _agent("HDR_LEN"):
    raise Failure("uapi/vgemini_agent.h: a frame header of "
                  f"{_agent('HDR_LEN')} bytes, the launcher's is {HDR.size}")
T_HELLO, T_EXEC, T_STDIN, T_SIGNAL, T_PMI = map(_agent, (
    "HELLO", "EXEC", "STDIN", "SIGNAL", "PMI"))
T_HELLO_ACK, T_STDOUT, T_STDERR, T_EXIT, T_ERROR, T_PMI_OUT = map(_agent, (
    "HELLO_ACK", "STDOUT", "STDERR", "EXIT", "ERROR", "PMI_OUT"))
EXEC_F_STDIN, EXEC_F_PMI, EXEC_F_ENV = map(_agent, (
    "EXEC_STDIN", "EXEC_PMI", "EXEC_ENV"))
HOW_EXITED, HOW_SIGNALED, HOW_TIMEOUT, HOW_NOSTART, HOW_ABORTED = map(
    _agent, ("EXITED", "SIGNALED", "TIMEOUT", "NOSTART", "ABORTED"))
STDIN_CHUNK = 32768


class AgentError(Exception):
    pass


class Agent(UnixClient):
    """One connection to a node's agent.  Not thread-safe except that one
    thread may feed stdin while another reads the result."""

    error = AgentError

    def __init__(self, sockpath, lockpath=None):
        super().__init__(sockpath, lockpath)
        self.wlock = threading.Lock()
        self.clean = False      # no request or frame left unfinished
        self.version = 0        # the agent's, from its HELLO_ACK
        self.max_requests = 1   # requests it runs at once (version 2)

    def _release(self, lockfd):
        """A client that finished its request leaves the port 'clean' so
        that the next one need not resynchronise."""
        if self.clean:
            os.pwrite(lockfd, b"clean\n", 0)
            os.ftruncate(lockfd, 6)

    def connect(self, timeout, alive=None, pad=False):
        """Connect and say HELLO; AgentError when the agent does not
        answer within timeout seconds or alive() turns false.  pad: first
        complete a frame that a killed client may have left half-sent."""
        deadline = time.monotonic() + timeout
        self._connect_socket(deadline, alive, poll=0.1, alive_first=False)
        hid = random.getrandbits(32)
        hello = HDR.pack(MAGIC, T_HELLO, 0, 0, hid, 4) + \
            struct.pack("<I", VERSION)
        # Zero bytes are no frame; they only fill up a truncated one.
        data = (bytes(MAX_PAYLOAD + HDR.size) if pad else b"") + hello
        self._send_raw(data, deadline)
        while not self._find_ack(hid):
            if alive and not alive():
                raise AgentError("QEMU is not running")
            if time.monotonic() >= deadline:
                raise AgentError(f"no answer within {timeout:.0f} s")
            self._fill(min(deadline, time.monotonic() + 0.5))

    def _send_raw(self, data, deadline):
        view = memoryview(data)
        while view:
            t = deadline - time.monotonic()
            if t <= 0:
                raise AgentError("the agent does not read its port")
            _, w, _ = select.select([], [self.sock], [], min(t, 0.5))
            if not w:
                continue
            try:
                n = self.sock.send(view, socket.MSG_DONTWAIT)
            except BlockingIOError:
                continue
            except OSError as e:
                raise AgentError(f"send failed: {e.strerror or e}")
            view = view[n:]

    def _find_ack(self, hid):
        pat = HDR.pack(MAGIC, T_HELLO_ACK, 0, 0, hid, 0)[:12]
        i = self.buf.find(pat)
        if i < 0:
            del self.buf[:max(0, len(self.buf) - 11)]
            return False
        if len(self.buf) - i < HDR.size:
            return False
        n = struct.unpack_from("<I", self.buf, i + 12)[0]
        if len(self.buf) - i < HDR.size + n:
            return False
        if n >= 4:
            self.version = struct.unpack_from("<I", self.buf, i + 16)[0]
        if n >= 12:
            self.max_requests = struct.unpack_from("<I", self.buf, i + 24)[0]
        del self.buf[:i + HDR.size + n]
        return True

    def _fill(self, deadline):
        """Read more bytes; False on timeout; AgentError on EOF."""
        t = deadline - time.monotonic() if deadline is not None else None
        if t is not None and t <= 0:
            return False
        r, _, _ = select.select([self.sock], [], [], t)
        if not r:
            return False
        self._recv(1 << 17)
        return True

    def _send(self, typ, rid, payload=b""):
        with self.wlock:
            try:
                self.sock.sendall(HDR.pack(MAGIC, typ, 0, 0, rid, len(payload))
                                  + payload)
            except OSError as e:
                raise AgentError(f"send failed: {e.strerror or e}")

    def _frame(self, deadline):
        while True:
            if len(self.buf) >= HDR.size:
                magic, typ, fl, rsv, rid, n = HDR.unpack_from(self.buf)
                if magic != MAGIC or n > MAX_PAYLOAD:
                    raise AgentError("protocol error: bad frame from agent")
                if len(self.buf) >= HDR.size + n:
                    payload = bytes(self.buf[HDR.size:HDR.size + n])
                    del self.buf[:HDR.size + n]
                    return typ, rid, payload
            if not self._fill(deadline):
                return None

    def run(self, argv, timeout=None, stdin=None, on_stdout=None,
            on_stderr=None):
        """Run argv; returns (how, value).  stdin: None, bytes or a binary
        file object.  on_stdout/on_stderr get bytes as they arrive."""
        rid = random.getrandbits(32)
        payload = struct.pack("<III", int((timeout or 0) * 1000),
                              EXEC_F_STDIN if stdin is not None else 0,
                              len(argv))
        payload += b"".join(os.fsencode(a) + b"\0" for a in argv)
        if len(payload) > MAX_PAYLOAD:
            raise AgentError("command line too long")
        self.clean = False
        self._send(T_EXEC, rid, payload)
        feeder = None
        if stdin is not None:
            feeder = threading.Thread(target=self._feed, args=(rid, stdin),
                                      daemon=True)
            feeder.start()
        # The agent enforces the timeout; this is only against a hung guest.
        deadline = (time.monotonic() + timeout + 60) if timeout else None
        while True:
            fr = self._frame(deadline)
            if fr is None:
                raise AgentError("the agent stopped answering")
            typ, frid, p = fr
            if frid != rid:
                continue        # a late frame of an earlier request
            if typ == T_STDOUT:
                if on_stdout:
                    on_stdout(p)
            elif typ == T_STDERR:
                if on_stderr:
                    on_stderr(p)
            elif typ == T_EXIT and len(p) == 8:
                if feeder:
                    feeder.join(1.0)
                self.clean = not (feeder and feeder.is_alive())
                return struct.unpack("<Ii", p)
            elif typ == T_ERROR:
                self.clean = not (feeder and feeder.is_alive())
                raise AgentError("agent refused: " +
                                 p.decode(errors="replace"))

    def _feed(self, rid, stdin):
        try:
            if isinstance(stdin, (bytes, bytearray)):
                for i in range(0, len(stdin), STDIN_CHUNK):
                    self._send(T_STDIN, rid, bytes(stdin[i:i + STDIN_CHUNK]))
            else:
                while True:
                    d = stdin.read1(STDIN_CHUNK) if hasattr(stdin, "read1") \
                        else stdin.read(STDIN_CHUNK)
                    if not d:
                        break
                    self._send(T_STDIN, rid, d)
            self._send(T_STDIN, rid, b"")
        except (AgentError, OSError, ValueError):
            pass

    def signal(self, rid, sig):
        self._send(T_SIGNAL, rid, struct.pack("<I", sig))


def exit_code(how, value):
    if how == HOW_EXITED:
        return value
    if how == HOW_SIGNALED:
        return 128 + value
    if how == HOW_TIMEOUT:
        return EXIT_TIMEOUT
    return EXIT_NO_AGENT


def describe(how, value):
    if how == HOW_EXITED:
        return f"exit status {value}"
    if how == HOW_SIGNALED:
        return f"killed by signal {value}"
    if how == HOW_TIMEOUT:
        return "timed out"
    if how == HOW_NOSTART:
        return f"could not start: {os.strerror(value)}"
    return "aborted by the agent (connection reset)"
