# SPDX-License-Identifier: GPL-2.0-only
"""QMP: the supervisor's channel to each node's cray-gemini device (a
small QMP client and the device's properties read and written through
it).
"""

import json
import re
import select
import time

from .common import flock_wait
from .unixclient import UnixClient


# The cray-gemini device: its QOM path (the launcher gives it id=gemini0).
# Its torus ports as it names them are torus.PORT_LABELS.
GEMINI_ID = "gemini0"
GEMINI_QOM = f"/machine/peripheral/{GEMINI_ID}"


class QMPError(Exception):
    """A QMP command failed (cls: QMP's error class) or the connection
    did (cls None)."""

    def __init__(self, msg, cls=None):
        super().__init__(msg)
        self.cls = cls


class QMP(UnixClient):
    """A small QMP client on a unix socket.

    QEMU's monitor serves one client at a time: a second connection is
    accepted by the kernel but gets no greeting until the first client
    leaves.  Clients of one socket therefore take its host-side lock file
    first, so that they queue here with a time-out instead of hanging."""

    error = QMPError

    def __init__(self, sockpath, lockpath=None):
        super().__init__(sockpath, lockpath)
        self.next_id = 0

    def close(self):
        super().close()
        self.buf.clear()

    def connect(self, timeout, alive=None):
        """Connect, read the greeting and leave capabilities negotiation
        mode; QMPError when that does not happen within timeout seconds
        or alive() turns false."""
        deadline = time.monotonic() + timeout
        if self.lockpath:
            try:
                self.lockfd = flock_wait(self.lockpath, deadline)
            except OSError as e:
                raise QMPError(f"{self.lockpath}: {e.strerror or e}")
            if self.lockfd is None:
                raise QMPError(f"{self.sockpath} is busy (another vgemini "
                               f"command holds it for over {timeout:g} s)")
        try:
            self._connect_socket(deadline, alive, poll=0.05,
                                 alive_first=True)
            while True:
                msg = self._read(deadline, alive)
                if msg is None:
                    raise QMPError(f"no QMP greeting on {self.sockpath} "
                                   f"within {timeout:.0f} s (QEMU busy, or "
                                   "another client holds the monitor)")
                if "QMP" in msg:
                    break
            self.execute("qmp_capabilities",
                         timeout=max(1.0, deadline - time.monotonic()))
        except BaseException:
            self.close()
            raise

    def _read(self, deadline, alive=None):
        """The next JSON object from QEMU, None on timeout."""
        while True:
            i = self.buf.find(b"\n")
            if i >= 0:
                line = bytes(self.buf[:i]).strip()
                del self.buf[:i + 1]
                if not line:
                    continue
                try:
                    msg = json.loads(line)
                except ValueError:
                    raise QMPError("protocol error: QEMU sent "
                                   f"{line[:80]!r}")
                if isinstance(msg, dict):
                    return msg
                continue
            t = deadline - time.monotonic()
            if t <= 0:
                return None
            r, _, _ = select.select([self.sock], [], [], min(t, 0.5))
            if not r:
                if alive and not alive():
                    raise QMPError("QEMU is not running")
                continue
            self._recv(65536, "QMP ")

    def execute(self, command, arguments=None, timeout=10.0):
        """Run one command; its "return" value, or QMPError."""
        if self.sock is None:
            raise QMPError("not connected")
        deadline = time.monotonic() + timeout
        self.next_id += 1
        rid = f"vgemini-{self.next_id}"
        msg = {"execute": command, "id": rid}
        if arguments is not None:
            msg["arguments"] = arguments
        data = json.dumps(msg).encode() + b"\n"
        try:
            self.sock.settimeout(max(0.1, timeout))
            self.sock.sendall(data)
        except OSError as e:
            self.close()
            raise QMPError(f"QMP send failed: {e.strerror or e}")
        finally:
            if self.sock:
                self.sock.settimeout(None)
        while True:
            try:
                r = self._read(deadline)
            except QMPError:
                self.close()
                raise
            if r is None:
                # The answer may still come: the connection is out of step.
                self.close()
                raise QMPError(f"QEMU did not answer {command} within "
                               f"{timeout:.0f} s")
            if "event" in r or r.get("id") != rid:
                continue
            if "error" in r:
                err = r["error"] if isinstance(r["error"], dict) else {}
                raise QMPError(str(err.get("desc", r["error"])),
                               err.get("class"))
            return r.get("return")


def qom_get(q, prop, timeout=10.0):
    """A property of the node's cray-gemini device."""
    try:
        return q.execute("qom-get", {"path": GEMINI_QOM, "property": prop},
                         timeout)
    except QMPError as e:
        raise device_error(e, prop)


def qom_set(q, prop, value, timeout=10.0):
    try:
        q.execute("qom-set", {"path": GEMINI_QOM, "property": prop,
                              "value": value}, timeout)
    except QMPError as e:
        raise device_error(e, prop)


def qom_json(q, prop, timeout=10.0):
    """A property whose value is JSON text, parsed."""
    v = qom_get(q, prop, timeout)
    if not isinstance(v, str):
        return v
    try:
        return json.loads(v)
    except ValueError:
        raise QMPError(f"the device's '{prop}' is not JSON: {v[:80]!r}")


def device_error(e, prop):
    """A clearer QMPError for a device that lacks what we need."""
    if e.cls is None:
        return e
    desc = str(e)
    if e.cls == "DeviceNotFound" or (GEMINI_QOM in desc and
                                     "not found" in desc):
        return QMPError(f"no cray-gemini device at {GEMINI_QOM} (fabric "
                        "booted without the device or by an older "
                        "vgemini?)", e.cls)
    if re.search(r"Property '[^']*' not found", desc):
        return QMPError(f"the cray-gemini device has no '{prop}' property "
                        "(a QEMU built before the device got its router? "
                        "rebuild it with scripts/build-qemu.sh)", e.cls)
    return QMPError(f"{prop}: {desc}", e.cls)
