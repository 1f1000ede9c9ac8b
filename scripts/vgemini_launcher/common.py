# SPDX-License-Identifier: GPL-2.0-only
"""Shared by every part of the launcher: where the repository is, the
exit codes and default time-outs, the Failure error, messages (warn, say,
prefixed output lines), C #define lookup, QEMU option escaping, file locks
and threads.
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


def qopt(s):
    """Escape a value for a QEMU comma-separated option."""
    return str(s).replace(",", ",,")


def _read_header(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError as e:
        raise Failure(f"cannot read {path}: {e.strerror}")


_NUMBER = r"(-?0x[0-9a-fA-F]+|-?\d+)[uUlL]*"


def file_define(path, name):
    """The integer value of '#define NAME value', or of an enumerator
    'NAME = value,' on a line of its own, in a C header."""
    text = _read_header(path)
    n = re.escape(name)
    m = re.search(r"^#define\s+%s\s+%s\b" % (n, _NUMBER), text, re.M) or \
        re.search(r"^[ \t]*%s[ \t]*=[ \t]*%s[ \t]*,?[ \t]*(?:/\*.*)?$" %
                  (n, _NUMBER), text, re.M)
    if not m:
        raise Failure(f"{name} not found in {path}")
    return int(m.group(1), 0)


def file_define_str(path, name):
    """The string of '#define NAME "string"' in a C header (no escapes)."""
    m = re.search(r'^#define\s+%s\s+"([^"\\]*)"' % re.escape(name),
                  _read_header(path), re.M)
    if not m:
        raise Failure(f"{name} not found in {path}")
    return m.group(1)


def file_xlist(path, name):
    """The entries of an X-macro list in a C header,
    '#define NAME(X) \\' then one 'X(a, "b", ...) \\' a line: a list of
    tuples of the arguments, strings without their quotes."""
    text = _read_header(path)
    m = re.search(r"^#define\s+%s\(X\)[ \t]*\\\n((?:.*\\\n)*.*)$" %
                  re.escape(name), text, re.M)
    if not m:
        raise Failure(f"{name} not found in {path}")
    rows = []
    for line in m.group(1).split("\n"):
        e = re.fullmatch(r'\s*X\(([^()]*)\)\s*\\?\s*', line)
        if not e:
            raise Failure(f"{path}: {name}: cannot read {line.strip()!r}")
        args = [a.strip() for a in e.group(1).split(",")]
        rows.append(tuple(a[1:-1] if len(a) >= 2 and a[0] == a[-1] == '"'
                          else a for a in args))
    return rows


def header_path(header):
    """A uapi header's path."""
    return os.path.join(REPO, "uapi", header)


def header_define(header, name):
    """The integer value of '#define NAME value' (or of an enumerator)
    in a uapi header."""
    return file_define(header_path(header), name)


def header_define_str(header, name):
    """The string of '#define NAME "string"' in a uapi header."""
    return file_define_str(header_path(header), name)


def header_xlist(header, name):
    """The entries of X-macro list NAME in a uapi header (file_xlist)."""
    return file_xlist(header_path(header), name)


def header_table(header, name, enum_header, prefix, column=1):
    """Column `column` of X-macro list NAME of a uapi header, as a list
    indexed by the enumerator prefix + the entry's first argument (its
    value in enum_header): the names of the ports and counters
    (vgemini_names.h) in the order the device numbers them."""
    rows = header_xlist(header, name)
    out = [None] * len(rows)
    for row in rows:
        i = header_define(enum_header, prefix + row[0])
        if not 0 <= i < len(rows) or out[i] is not None:
            raise Failure(f"{header}: {name}: {prefix}{row[0]} is {i}")
        out[i] = row[column]
    return out


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
