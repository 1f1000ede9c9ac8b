# SPDX-License-Identifier: GPL-2.0-only
"""Shared by every part of the launcher: where the repository is, the
exit codes and default time-outs, the Failure error, messages (warn, say,
prefixed output lines), C #define lookup, file locks and threads.
"""

import fcntl
import os
import queue
import re
import signal
import sys
import threading
import time

# The repository: this package is its scripts/vgemini_launcher/.
REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.realpath(__file__))))
# The entry point (what the supervisor daemon is started as).
LAUNCHER = os.path.join(REPO, "scripts", "vgemini")
PROG = "vgemini"

# Exit codes (documented in Documentation/vgemini.rst).
EXIT_OK = 0
EXIT_FAIL = 1
EXIT_USAGE = 2
EXIT_NOT_UP = 3
EXIT_TIMEOUT = 124
EXIT_NO_AGENT = 255

DEFAULT_UP_TIMEOUT = 300.0
DEFAULT_CONNECT_TIMEOUT = 30.0
DEFAULT_SELFTEST_TIMEOUT = 300.0
DEFAULT_QMP_TIMEOUT = 30.0


class Failure(Exception):
    """An error to report as 'vgemini: MESSAGE' with an exit code."""

    def __init__(self, msg, code=EXIT_FAIL):
        super().__init__(msg)
        self.code = code


def warn(msg):
    print(f"{PROG}: {msg}", file=sys.stderr, flush=True)


def say(msg):
    """Progress on stdout; a closed stdout does not stop the work."""
    try:
        print(msg, flush=True)
    except OSError:
        pass


def file_define(path, name):
    """The integer value of '#define NAME value' in a C header."""
    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        raise Failure(f"cannot read {path}: {e.strerror}")
    m = re.search(r"^#define\s+%s\s+(-?0x[0-9a-fA-F]+|-?\d+)[uUlL]*\b" %
                  name, text, re.M)
    if not m:
        raise Failure(f"{name} not found in {path}")
    return int(m.group(1), 0)


def header_define(header, name):
    """The integer value of '#define NAME value' in a uapi header."""
    return file_define(os.path.join(REPO, "uapi", header), name)


def flock_wait(path, deadline):
    """An fd holding an exclusive flock on path (created if needed), or
    None if another holder keeps it past deadline (time.monotonic())."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except BlockingIOError:
            if time.monotonic() >= deadline:
                os.close(fd)
                return None
            time.sleep(0.02)


def parallel(fn, items):
    """[fn(i) for i in items], one daemon thread each, so that an interrupt
    of the main thread is not held up by threads blocked on a guest."""
    results = {}
    done = queue.Queue()

    def run(i, item):
        try:
            done.put((i, fn(item), None))
        except BaseException as e:
            done.put((i, None, e))
    for i, item in enumerate(items):
        threading.Thread(target=run, args=(i, item), daemon=True).start()
    for _ in items:
        while True:
            try:
                i, r, e = done.get(timeout=0.5)
                break
            except queue.Empty:
                continue
        if e is not None:
            raise e
        results[i] = r
    return [results[i] for i in range(len(items))]


def tail(path, lines=25):
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - 64 * 1024))
            data = f.read().decode(errors="replace")
    except OSError:
        return "(no file)"
    out = data.splitlines()[-lines:]
    return "\n".join("    " + ln for ln in out) if out else "    (empty)"


class LinePrinter:
    """Prefix complete lines with '[n] ' and write them under a lock."""
    lock = threading.Lock()

    def __init__(self, prefix, stream):
        self.prefix = prefix.encode()
        self.stream = stream
        self.part = b""

    def __call__(self, data):
        data = self.part + data
        lines = data.split(b"\n")
        self.part = lines.pop()
        if lines:
            with self.lock:
                self.stream.write(b"".join(self.prefix + ln + b"\n"
                                           for ln in lines))
                self.stream.flush()

    def flush(self):
        if self.part:
            with self.lock:
                self.stream.write(self.prefix + self.part + b"\n")
                self.stream.flush()
            self.part = b""


def raw_writer(stream):
    def w(data):
        stream.write(data)
        stream.flush()
    return w


class Interrupted(Exception):
    pass


def _raise_interrupt(signum, frame):
    raise Interrupted(signal.Signals(signum).name)
