# SPDX-License-Identifier: GPL-2.0-only
"""Jobs' PMI server: the PMI wire protocol (uapi/pmi_wire.h, checked
field by field), one node's agent connection during a job, the ranks,
and the Job with its event loop.

A job is N ranks placed in order on the first nodes, K per node.  Each
node's ranks run as concurrent requests of one agent connection, with
EXEC_F_PMI: the agent gives each rank a socket on descriptor 3 (PMI_FD)
and relays its bytes in PMI frames.  The launcher is the PMI server: it
parses every rank's requests, answers them, and prints the ranks' output
with "[rank] " prefixes.  See Documentation/jobs.rst.
"""

import os
import random
import select
import signal
import socket
import struct
import time

from .common import (EXIT_FAIL, EXIT_NO_AGENT, EXIT_TIMEOUT, EXIT_USAGE, REPO,
                     Failure, file_define, header_define, header_define_str,
                     LinePrinter, warn)
from .agent import (EXEC_F_ENV, EXEC_F_PMI, HDR, HOW_EXITED, MAGIC,
                    MAX_PAYLOAD, T_ERROR, T_EXEC, T_EXIT, T_PMI, T_PMI_OUT,
                    T_SIGNAL, T_STDERR, T_STDOUT, describe, exit_code)


PMI_H = os.path.join(REPO, "lib", "pmi", "pmi.h")
PMI_HDR = struct.Struct("<IHHiI")       # magic, type, flags, status, len

JOB_KILL_GRACE = 15.0   # seconds for killed ranks to report their end


class PMIConsts:
    """The wire constants, read once from uapi/pmi_wire.h and pmi.h."""
    _names = ("MAGIC", "VERSION", "HDR_LEN", "INIT", "FINALIZE", "BARRIER",
              "PUT", "GET", "ALLGATHER", "ABORT", "ALLGATHERV", "NODE_PUT",
              "NODE_GET", "REPLY",
              "INIT_REPLY_LEN", "KVSNAME_MAX", "KEY_MAX", "VAL_MAX",
              "ABORT_MSG_MAX", "ALLGATHER_MAX", "ALLGATHER_TOTAL_MAX",
              "MAX_RANKS", "REQ_MAX", "KVS_MAX_KEYS", "KVS_MAX_BYTES")
    _codes = ("SUCCESS", "FAIL", "ERR_INIT", "ERR_NOMEM", "ERR_INVALID_ARG",
              "ERR_INVALID_KEY", "ERR_INVALID_KEY_LENGTH", "ERR_INVALID_VAL",
              "ERR_INVALID_VAL_LENGTH", "ERR_INVALID_LENGTH")
    _loaded = None

    @classmethod
    def get(cls):
        if cls._loaded is None:
            c = cls()
            for n in cls._names:
                setattr(c, n, header_define("pmi_wire.h", "VGEMINI_PMI_" + n))
            for n in cls._codes:
                setattr(c, n, file_define(PMI_H, "PMI_" + n))
            c.KEY_MAPPING = header_define_str(
                "pmi_wire.h", "VGEMINI_PMI_KEY_MAPPING").encode()
            if c.HDR_LEN != PMI_HDR.size:
                raise Failure(f"uapi/pmi_wire.h: header length {c.HDR_LEN}, "
                              f"the launcher knows {PMI_HDR.size}")
            cls._loaded = c
        return cls._loaded


def rank_ranges(ranks):
    """'0-3,5,7-8' for a collection of integers."""
    rs = sorted(set(ranks))
    out = []
    i = 0
    while i < len(rs):
        j = i
        while j + 1 < len(rs) and rs[j + 1] == rs[j] + 1:
            j += 1
        out.append(str(rs[i]) if i == j else f"{rs[i]}-{rs[j]}")
        i = j + 1
    return ",".join(out)


def process_mapping(size, ppn):
    """Where the ranks of a job run, in MPICH's notation for
    PMI_process_mapping: "(vector,(first node,nodes,ranks per node),...)".
    Ranks fill nodes in order, ppn on each, the last node what is left."""
    full, rest = divmod(size, ppn)
    blocks = []
    if full:
        blocks.append(f"(0,{full},{ppn})")
    if rest:
        blocks.append(f"({full},1,{rest})")
    return "(vector," + ",".join(blocks) + ")"


def printable(b):
    """Guest text made safe for one line of the host's terminal."""
    t = b.decode("utf-8", errors="replace")
    return "".join(ch if ch.isprintable() else "?" for ch in t)


class JobConn:
    """One node's agent connection during a job: a non-blocking byte
    stream (a socket to a guest's agent, or a pty to a local agent) with
    frame buffers both ways."""

    def __init__(self, node, fd, recv, send, buf=b"", close=None):
        self.node = node
        self.fd = fd
        self._recv = recv
        self._send = send
        self._close = close
        self.inbuf = bytearray(buf)
        self.outbuf = bytearray()
        self.dead = None        # why the connection is gone
        self.ranks = {}         # request id -> Rank

    def frame(self, typ, rid, payload=b""):
        if self.dead is None:
            self.outbuf += HDR.pack(MAGIC, typ, 0, 0, rid, len(payload))
            self.outbuf += payload

    def flush(self):
        try:
            n = self._send(self.outbuf)
        except (BlockingIOError, InterruptedError):
            return
        except OSError as e:
            self.dead = f"send failed: {e.strerror or e}"
            return
        del self.outbuf[:n]

    def fill(self):
        try:
            data = self._recv()
        except (BlockingIOError, InterruptedError):
            return
        except OSError as e:
            self.dead = f"connection lost: {e.strerror or e}"
            return
        if not data:
            self.dead = "connection closed (QEMU exited?)"
            return
        self.inbuf += data

    def frames(self):
        """The complete frames received so far."""
        while self.dead is None and len(self.inbuf) >= HDR.size:
            magic, typ, fl, rsv, rid, n = HDR.unpack_from(self.inbuf)
            if magic != MAGIC or fl or rsv or n > MAX_PAYLOAD:
                self.dead = "protocol error: bad frame from the agent"
                return
            if len(self.inbuf) < HDR.size + n:
                return
            payload = bytes(self.inbuf[HDR.size:HDR.size + n])
            del self.inbuf[:HDR.size + n]
            yield typ, rid, payload

    def close(self):
        if self._close:
            self._close(self)
            self._close = None


def agent_conn(fab, n, agent):
    """A JobConn on a connected Agent of node n (guest)."""
    sock = agent.sock
    sock.setblocking(False)

    def recv():
        return sock.recv(1 << 17)

    def send(buf):
        return sock.send(buf, socket.MSG_DONTWAIT)

    def close(c):
        # A job that ended with every request done leaves the port clean.
        agent.clean = c.dead is None and not c.outbuf and \
            all(r.done for r in c.ranks.values())
        agent.close()
    return JobConn(n, sock.fileno(), recv, send, bytes(agent.buf), close)


class Rank:
    def __init__(self, r, node, conn, out, err):
        self.r = r
        self.node = node
        self.conn = conn
        self.rid = None
        self.out = LinePrinter(f"[{r}] ", out)
        self.err = LinePrinter(f"[{r}] ", err)
        self.pbuf = bytearray()     # PMI bytes not parsed yet
        self.pmi_dead = False
        self.inited = False
        self.finalized = False
        self.pending = None         # the collective it waits in
        self.done = False
        self.how = None
        self.val = None
        self.killed = False         # by the launcher


class Job:
    """The ranks of one job, its PMI server and its event loop."""

    COLL_NAMES = {"barrier": "PMI_Barrier", "allgather": "PMI_Allgather",
                  "allgatherv": "PMI_Allgatherv"}

    def __init__(self, nranks, ppn, argv, env, kvsname, timeout, out, err):
        self.c = PMIConsts.get()
        self.size = nranks
        self.ppn = ppn
        self.argv = argv
        self.env = env
        self.kvsname = kvsname
        self.timeout = timeout
        self.out = out
        self.err = err
        self.ranks = []
        self.conns = []
        self.kvs = {}
        self.nodes_kvs = {}         # node -> its attributes (PMI-2)
        self.kvs_keys = 0           # in kvs and nodes_kvs
        self.kvs_bytes = 0
        # What MPICH's launcher puts too: PMI2_Info_GetJobAttr answers it.
        self.store(self.kvs, self.c.KEY_MAPPING,
                   process_mapping(nranks, ppn).encode())
        self.coll = None            # (kind, {rank: data})
        self.failure = None         # (message, exit code or None)
        self.abort = None           # (rank, code, message)
        self.timed_out = False
        self.kill_deadline = None

    # --- set-up -------------------------------------------------------
    def place(self, conns_by_node):
        """Ranks in order, ppn per node, on the nodes given (in order)."""
        nodes = sorted(conns_by_node)
        for r in range(self.size):
            n = nodes[r // self.ppn]
            conn = conns_by_node[n]
            rank = Rank(r, n, conn, self.out, self.err)
            self.ranks.append(rank)
        self.conns = [conns_by_node[n] for n in nodes]

    def clique(self, rank):
        first = rank.r // self.ppn * self.ppn
        return list(range(first, min(self.size, first + self.ppn)))

    def start(self, rank_env):
        """Queue one EXEC per rank; rank_env(rank) gives its variables."""
        for rank in self.ranks:
            rid = random.getrandbits(32)
            while rid in rank.conn.ranks:
                rid = random.getrandbits(32)
            rank.rid = rid
            rank.conn.ranks[rid] = rank
            env = dict(self.env)
            env.update(rank_env(rank))
            payload = struct.pack("<III", 0, EXEC_F_PMI | EXEC_F_ENV,
                                  len(self.argv))
            payload += b"".join(os.fsencode(a) + b"\0" for a in self.argv)
            payload += b"".join(os.fsencode(f"{k}={v}") + b"\0"
                                for k, v in env.items())
            if len(payload) > MAX_PAYLOAD:
                raise Failure("command line and environment too long "
                              f"(over {MAX_PAYLOAD} bytes)", EXIT_USAGE)
            rank.conn.frame(T_EXEC, rid, payload)

    # --- ends ---------------------------------------------------------
    def running(self):
        return [r for r in self.ranks if not r.done]

    def kill_all(self):
        """SIGKILL every rank still running (its whole process group)."""
        for rank in self.running():
            if not rank.killed:
                rank.killed = True
                rank.conn.frame(T_SIGNAL, rank.rid,
                                struct.pack("<I", signal.SIGKILL))
        if self.kill_deadline is None:
            self.kill_deadline = time.monotonic() + JOB_KILL_GRACE

    def fail(self, msg, code=None):
        """The job cannot go on: say why (once) and kill every rank."""
        if self.failure is None:
            self.failure = (msg, code)
            left = [r.r for r in self.running() if not r.killed]
            if msg:
                warn(msg + (f"; killing rank{'s' if len(left) > 1 else ''} "
                            f"{rank_ranges(left)}" if left else ""))
        self.kill_all()

    def rank_ended(self, rank, how, val):
        if rank.done:
            return
        rank.out.flush()
        rank.err.flush()
        rank.done = True
        rank.how, rank.val = how, val
        ok = how == HOW_EXITED and val == 0
        if not ok and not rank.killed:
            what = describe(how, val) if how is not None else val
            self.fail(f"rank {rank.r} (node {rank.node}): {what}")
        self.check_collective()

    def conn_lost(self, conn):
        for rank in conn.ranks.values():
            if not rank.done:
                self.rank_ended(rank, None, f"node {conn.node}'s agent: "
                                f"{conn.dead}")
        conn.outbuf.clear()

    def on_timeout(self):
        self.timed_out = True
        left = self.running()
        nodes = sorted({r.node for r in left})
        warn(f"timed out after {self.timeout:g} s; still running: rank"
             f"{'s' if len(left) > 1 else ''} {rank_ranges(r.r for r in left)}"
             f" (node{'s' if len(nodes) > 1 else ''} {rank_ranges(nodes)});"
             " killing them")
        if self.failure is None:
            self.failure = ("timed out", EXIT_TIMEOUT)
        self.kill_all()

    def exit_status(self):
        if self.timed_out:
            return EXIT_TIMEOUT
        if self.abort is not None:
            code = self.abort[1]
            return code if 1 <= code <= 255 else EXIT_FAIL
        worst = 0
        for rank in self.ranks:
            if rank.killed and rank.done and rank.how is not None:
                continue
            if not rank.done or rank.how is None:
                worst = max(worst, EXIT_NO_AGENT)
            else:
                worst = max(worst, exit_code(rank.how, rank.val))
        if self.failure and self.failure[1]:
            worst = max(worst, self.failure[1])
        return worst

    # --- PMI server -----------------------------------------------------
    def reply(self, rank, typ, status, payload=b""):
        c = self.c
        data = PMI_HDR.pack(c.MAGIC, typ | c.REPLY, 0, status, len(payload))
        data += payload
        for i in range(0, len(data), MAX_PAYLOAD):
            rank.conn.frame(T_PMI, rank.rid, data[i:i + MAX_PAYLOAD])

    def pmi_error(self, rank, msg):
        rank.pmi_dead = True
        rank.pbuf.clear()
        self.fail(f"rank {rank.r} (node {rank.node}): PMI protocol error: "
                  f"{msg}", EXIT_FAIL)

    def max_request(self, typ):
        c = self.c
        put = 8 + c.KEY_MAX - 1 + c.VAL_MAX - 1
        return {c.INIT: 8, c.FINALIZE: 0, c.BARRIER: 0,
                c.PUT: put, c.GET: c.KEY_MAX - 1,
                c.ALLGATHER: c.ALLGATHER_MAX, c.ABORT: 4 + c.ABORT_MSG_MAX,
                c.ALLGATHERV: c.ALLGATHER_MAX, c.NODE_PUT: put,
                c.NODE_GET: c.KEY_MAX - 1}.get(typ)

    def store(self, kvs, key, val):
        self.kvs_keys += 1
        self.kvs_bytes += len(key) + len(val)
        kvs[key] = val

    def put(self, rank, typ, p, kvs):
        """A PUT or NODE_PUT into kvs: the job's, or the node's."""
        c = self.c
        if len(p) < 8:
            return self.pmi_error(rank, "short PUT")
        klen, vlen = struct.unpack_from("<II", p)
        if 8 + klen + vlen != len(p):
            return self.pmi_error(rank, f"PUT of {len(p)} bytes with "
                                  f"key {klen} and value {vlen}")
        key, val = p[8:8 + klen], p[8 + klen:]
        if not 1 <= klen < c.KEY_MAX:
            return self.reply(rank, typ, c.ERR_INVALID_KEY_LENGTH)
        if vlen >= c.VAL_MAX:
            return self.reply(rank, typ, c.ERR_INVALID_VAL_LENGTH)
        if b"\0" in key:
            return self.reply(rank, typ, c.ERR_INVALID_KEY)
        if b"\0" in val:
            return self.reply(rank, typ, c.ERR_INVALID_VAL)
        if key in kvs:
            return self.reply(rank, typ, c.ERR_INVALID_KEY)
        if self.kvs_keys >= c.KVS_MAX_KEYS or \
                self.kvs_bytes + klen + vlen > c.KVS_MAX_BYTES:
            return self.reply(rank, typ, c.ERR_NOMEM)
        self.store(kvs, key, val)
        return self.reply(rank, typ, c.SUCCESS)

    def get(self, rank, typ, p, kvs):
        """A GET or NODE_GET from kvs."""
        c = self.c
        if not p or b"\0" in p:
            return self.reply(rank, typ, c.ERR_INVALID_KEY_LENGTH
                              if not p else c.ERR_INVALID_KEY)
        val = kvs.get(p)
        if val is None:
            return self.reply(rank, typ, c.FAIL)
        return self.reply(rank, typ, c.SUCCESS, val)

    def pmi_feed(self, rank, data):
        if rank.pmi_dead:
            return
        rank.pbuf += data
        c = self.c
        while len(rank.pbuf) >= PMI_HDR.size and not rank.pmi_dead:
            magic, typ, flags, status, n = PMI_HDR.unpack_from(rank.pbuf)
            if magic != c.MAGIC or flags or status:
                return self.pmi_error(rank, "bad frame header")
            top = self.max_request(typ)
            if top is None:
                return self.pmi_error(rank, f"unknown request type {typ}")
            if n > top:
                return self.pmi_error(rank, f"request type {typ} of {n} "
                                      f"bytes (at most {top})")
            if len(rank.pbuf) < PMI_HDR.size + n:
                return
            p = bytes(rank.pbuf[PMI_HDR.size:PMI_HDR.size + n])
            del rank.pbuf[:PMI_HDR.size + n]
            self.pmi_request(rank, typ, p)

    def pmi_request(self, rank, typ, p):
        c = self.c
        if typ == c.ABORT:
            if len(p) < 4:
                return self.pmi_error(rank, "short ABORT")
            code = struct.unpack_from("<i", p)[0]
            msg = printable(p[4:]) or "(no message)"
            if self.abort is None:
                self.abort = (rank.r, code, msg)
                warn(f"rank {rank.r} (node {rank.node}) called "
                     f"PMI_Abort({code}): {msg}")
                self.fail(None)
            return
        if typ == c.INIT:
            if rank.inited:
                return self.pmi_error(rank, "a second INIT")
            if len(p) != 8:
                return self.pmi_error(rank, f"INIT of {len(p)} bytes")
            version, claimed = struct.unpack("<Ii", p)
            if claimed != rank.r:
                return self.pmi_error(rank, f"INIT as rank {claimed}")
            if version != c.VERSION:
                return self.reply(rank, typ, c.ERR_INIT)
            rank.inited = True
            cl = self.clique(rank)
            name = self.kvsname.encode()
            payload = struct.pack("<IiiiiIIIIII", c.VERSION, rank.r,
                                  self.size, self.size, 0, c.KVSNAME_MAX,
                                  c.KEY_MAX, c.VAL_MAX, c.ALLGATHER_MAX,
                                  c.ALLGATHER_TOTAL_MAX, len(cl))
            payload += struct.pack(f"<{len(cl)}i", *cl) + name
            return self.reply(rank, typ, c.SUCCESS, payload)
        if not rank.inited:
            return self.pmi_error(rank, f"request type {typ} before INIT")
        if rank.finalized:
            return self.pmi_error(rank, f"request type {typ} after FINALIZE")
        if rank.pending:
            return self.pmi_error(rank, f"request type {typ} while in "
                                  f"{self.COLL_NAMES[rank.pending]}")
        if typ == c.FINALIZE:
            rank.finalized = True
            self.reply(rank, typ, c.SUCCESS)
            return self.check_collective()
        if typ == c.BARRIER:
            return self.enter("barrier", rank, b"")
        if typ == c.ALLGATHER:
            if len(p) * self.size > c.ALLGATHER_TOTAL_MAX:
                return self.reply(rank, typ, c.ERR_INVALID_LENGTH)
            return self.enter("allgather", rank, p)
        if typ == c.ALLGATHERV:
            return self.enter("allgatherv", rank, p)
        if typ == c.PUT:
            return self.put(rank, typ, p, self.kvs)
        if typ == c.GET:
            return self.get(rank, typ, p, self.kvs)
        if typ == c.NODE_PUT:
            return self.put(rank, typ, p,
                            self.nodes_kvs.setdefault(rank.node, {}))
        if typ == c.NODE_GET:
            return self.get(rank, typ, p, self.nodes_kvs.get(rank.node, {}))
        return self.pmi_error(rank, f"unknown request type {typ}")

    def enter(self, kind, rank, data):
        if self.coll is None:
            self.coll = (kind, {})
        elif self.coll[0] != kind:
            other = min(self.coll[1])
            return self.fail(
                f"rank {rank.r} called {self.COLL_NAMES[kind]} while rank "
                f"{other} is in {self.COLL_NAMES[self.coll[0]]}", EXIT_FAIL)
        rank.pending = kind
        self.coll[1][rank.r] = data
        self.check_collective()

    def check_collective(self):
        if self.coll is None or self.failure is not None:
            return
        kind, arrived = self.coll
        c = self.c
        if len(arrived) < self.size:
            gone = [r for r in self.ranks if r.r not in arrived and
                    (r.done or r.finalized)]
            if gone:
                g = gone[0]
                self.fail(f"rank {g.r} "
                          f"{'ended' if g.done else 'called PMI_Finalize'} "
                          f"while rank{'s' if len(arrived) > 1 else ''} "
                          f"{rank_ranges(arrived)} wait"
                          f"{'' if len(arrived) > 1 else 's'} in "
                          f"{self.COLL_NAMES[kind]}", EXIT_FAIL)
            return
        self.coll = None
        typ = {"barrier": c.BARRIER, "allgather": c.ALLGATHER,
               "allgatherv": c.ALLGATHERV}[kind]
        status, payload = c.SUCCESS, b""
        data = [arrived[r] for r in range(self.size)]
        if kind == "allgather":
            if len({len(d) for d in data}) == 1:
                payload = b"".join(data)
            else:
                status = c.ERR_INVALID_LENGTH
        elif kind == "allgatherv":
            # Each rank's length first, so that each can check its all_lens
            if sum(map(len, data)) <= c.ALLGATHER_TOTAL_MAX:
                payload = struct.pack(f"<{self.size}I", *map(len, data)) + \
                    b"".join(data)
            else:
                status = c.ERR_INVALID_LENGTH
        for rank in self.ranks:
            rank.pending = None
            if not rank.done:
                self.reply(rank, typ, status, payload)

    # --- the loop -------------------------------------------------------
    def dispatch(self, conn, typ, rid, p):
        rank = conn.ranks.get(rid)
        if rank is None or rank.done:
            return          # a stale frame of an earlier client
        if typ == T_STDOUT:
            rank.out(p)
        elif typ == T_STDERR:
            rank.err(p)
        elif typ == T_PMI_OUT:
            self.pmi_feed(rank, p)
        elif typ == T_EXIT and len(p) == 8:
            how, val = struct.unpack("<Ii", p)
            self.rank_ended(rank, how, val)
        elif typ == T_ERROR:
            self.rank_ended(rank, None, "the agent refused to start it: " +
                            printable(p))

    def loop(self, alive=None):
        """Serve until every rank ended; alive(conn) may report a dead
        peer that the stream itself does not show."""
        deadline = time.monotonic() + self.timeout if self.timeout else None
        checked = 0.0
        while self.running():
            now = time.monotonic()
            probe = alive is not None and now - checked >= 1.0
            if probe:
                checked = now
            if deadline is not None and now >= deadline and \
                    not self.timed_out:
                self.on_timeout()
            if self.kill_deadline is not None and now >= self.kill_deadline:
                break
            for conn in self.conns:
                if conn.dead is None and probe and not alive(conn):
                    conn.dead = "the node's QEMU is not running"
                if conn.dead is not None and \
                        any(not r.done for r in conn.ranks.values()):
                    self.conn_lost(conn)
            live = [c for c in self.conns if c.dead is None]
            if not live:
                break
            waits = [1.0]
            if deadline is not None and not self.timed_out:
                waits.append(deadline - now)
            if self.kill_deadline is not None:
                waits.append(self.kill_deadline - now)
            t = max(0.0, min(waits))
            rl = [c.fd for c in live]
            wl = [c.fd for c in live if c.outbuf]
            try:
                r, w, _ = select.select(rl, wl, [], t)
            except InterruptedError:
                continue
            for conn in live:
                if conn.fd in w:
                    conn.flush()
                if conn.fd in r:
                    conn.fill()
                    for typ, rid, p in conn.frames():
                        self.dispatch(conn, typ, rid, p)
        # What is still queued (replies, kills) goes out before closing.
        end = time.monotonic() + 2.0
        while time.monotonic() < end:
            pend = [c for c in self.conns if c.dead is None and c.outbuf]
            if not pend:
                break
            try:
                _, w, _ = select.select([], [c.fd for c in pend], [], 0.2)
            except InterruptedError:
                continue
            for conn in pend:
                if conn.fd in w:
                    conn.flush()
        left = self.running()
        if left:
            warn(f"rank{'s' if len(left) > 1 else ''} "
                 f"{rank_ranges(r.r for r in left)} did not report "
                 "their end; closing the connections makes the agents kill "
                 "them")
        for rank in self.ranks:
            rank.out.flush()
            rank.err.flush()

    def close(self):
        for conn in self.conns:
            try:
                conn.close()
            except OSError:
                pass
