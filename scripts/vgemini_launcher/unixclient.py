# SPDX-License-Identifier: GPL-2.0-only
"""The one unix-socket client helper under the QMP client and the guest
agent client: connecting to a QEMU's socket (waiting while QEMU creates
it), reading into a buffer, and closing the socket and the host-side lock
file that serialises the socket's users.
"""

import os
import socket
import time


class UnixClient:
    """A client of one of a QEMU's unix sockets (sockpath), with the fd of
    a host-side lock file (lockfd) held while connected, and a receive
    buffer.  Subclasses set 'error', the exception class they raise."""

    error = OSError

    def __init__(self, sockpath, lockpath=None):
        self.sockpath = sockpath
        self.lockpath = lockpath
        self.sock = None
        self.lockfd = None
        self.buf = bytearray()

    def close(self):
        """Close the socket, then release the lock file (after
        _release(fd) had its say); idempotent."""
        if self.sock:
            try:
                self.sock.close()
            except OSError:
                pass
            self.sock = None
        if self.lockfd is not None:
            self._release(self.lockfd)
            os.close(self.lockfd)
            self.lockfd = None

    def _release(self, lockfd):
        """What to leave in the lock file before it is closed."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _connect_socket(self, deadline, alive=None, poll=0.05,
                        alive_first=True):
        """Connect self.sock to self.sockpath, trying again every poll
        seconds while the socket is missing or refuses (QEMU is starting);
        self.error when deadline (time.monotonic()) passes, or alive()
        turns false: checked before the deadline when alive_first, after
        it otherwise."""
        while True:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                s.connect(self.sockpath)
                break
            except (FileNotFoundError, ConnectionRefusedError):
                s.close()
                if alive_first and alive and not alive():
                    raise self.error("QEMU is not running")
                if time.monotonic() >= deadline:
                    raise self.error(f"cannot connect to {self.sockpath}")
                if not alive_first and alive and not alive():
                    raise self.error("QEMU is not running")
                time.sleep(poll)
            except OSError as e:
                s.close()
                raise self.error(f"{self.sockpath}: {e.strerror or e}")
        self.sock = s

    def _recv(self, size, what=""):
        """Append up to size bytes from the socket to self.buf (the
        caller knows that some are there); self.error when the connection
        fails or ends.  what: the error messages' prefix."""
        try:
            data = self.sock.recv(size)
        except OSError as e:
            raise self.error(f"{what}connection lost: {e.strerror or e}")
        if not data:
            raise self.error(f"{what}connection closed (QEMU exited?)")
        self.buf += data
