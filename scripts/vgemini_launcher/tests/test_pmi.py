# SPDX-License-Identifier: GPL-2.0-only
"""The PMI server of 'vgemini run': the wire encoding of requests and
replies (uapi/pmi_wire.h), the KVS, collectives and protocol errors,
and the agent frames it queues, driven without any agent."""

import io
import re
import signal
import struct
import unittest

from vgemini_launcher import pmi
from vgemini_launcher.agent import (EXEC_F_ENV, EXEC_F_PMI, HDR, HOW_EXITED,
                                    HOW_SIGNALED, MAGIC, MAX_PAYLOAD, T_EXEC,
                                    T_EXIT, T_PMI, T_SIGNAL, T_STDERR,
                                    T_STDOUT)
from vgemini_launcher.common import EXIT_FAIL, EXIT_TIMEOUT

from .helpers import c_define, captured

WIRE = "uapi/pmi_wire.h"


def wire(name):
    return c_define(WIRE, "VGEMINI_PMI_" + name)


def code(name):
    return c_define("lib/pmi/pmi.h", "PMI_" + name)


PMAGIC = wire("MAGIC")
INIT, FINALIZE, BARRIER, PUT, GET, ALLGATHER, ABORT = (
    wire(n) for n in ("INIT", "FINALIZE", "BARRIER", "PUT", "GET",
                      "ALLGATHER", "ABORT"))
ALLGATHERV, NODE_PUT, NODE_GET = (
    wire(n) for n in ("ALLGATHERV", "NODE_PUT", "NODE_GET"))
REPLY = wire("REPLY")
PHDR = struct.Struct("<IHHiI")
MAPPING = b"PMI_process_mapping"


def request(typ, payload=b"", magic=None, flags=0, status=0):
    return PHDR.pack(PMAGIC if magic is None else magic, typ, flags, status,
                     len(payload)) + payload


def agent_frames(buf):
    """[(type, id, payload)] of the agent frames in buf."""
    out = []
    i = 0
    while i < len(buf):
        magic, typ, fl, rsv, rid, n = HDR.unpack_from(buf, i)
        assert magic == MAGIC and fl == 0 and rsv == 0
        out.append((typ, rid, bytes(buf[i + HDR.size:i + HDR.size + n])))
        i += HDR.size + n
    assert i == len(buf)
    return out


class JobTest(unittest.TestCase):
    """A job of size ranks, ppn per node, on fake connections."""

    def make_job(self, size=2, ppn=1, kvsname="kvs_9", timeout=None):
        self.out, self.err = io.BytesIO(), io.BytesIO()
        job = pmi.Job(size, ppn, ["prog", "a b"], {"A": "1"}, kvsname,
                      timeout, self.out, self.err)
        nnodes = (size + ppn - 1) // ppn
        self.conns = {n: pmi.JobConn(n, -1, None, None)
                      for n in range(nnodes)}
        job.place(self.conns)
        job.start(lambda rank: {"PMI_RANK": rank.r})
        for c in self.conns.values():
            c.outbuf.clear()
        return job

    def replies(self, rank):
        """The PMI replies queued for rank: [(type, status, payload)]; the
        connection's queue is emptied."""
        data, rest = b"", b""
        for typ, rid, p in agent_frames(rank.conn.outbuf):
            if typ == T_PMI and rid == rank.rid:
                data += p
            else:
                rest += HDR.pack(MAGIC, typ, 0, 0, rid, len(p)) + p
        rank.conn.outbuf[:] = rest
        out = []
        while data:
            magic, typ, fl, st, n = PHDR.unpack_from(data)
            self.assertEqual((magic, fl), (PMAGIC, 0))
            out.append((typ, st, data[PHDR.size:PHDR.size + n]))
            data = data[PHDR.size + n:]
        return out

    def clear(self):
        for c in self.conns.values():
            c.outbuf.clear()

    def init(self, job, *ranks):
        for r in ranks or range(job.size):
            rank = job.ranks[r]
            job.pmi_feed(rank, request(INIT, struct.pack("<Ii", 1, r)))
            self.assertEqual(self.replies(rank)[0][:2],
                             (INIT | REPLY, code("SUCCESS")))
        self.clear()


class Constants(unittest.TestCase):
    def test_read_from_the_headers(self):
        c = pmi.PMIConsts.get()
        self.assertEqual(c.MAGIC, 0x494d5056)
        for n in ("VERSION", "HDR_LEN", "INIT", "ABORT", "REPLY", "KEY_MAX",
                  "VAL_MAX", "ALLGATHER_TOTAL_MAX", "KVS_MAX_BYTES"):
            self.assertEqual(getattr(c, n), wire(n), n)
        for n in ("SUCCESS", "FAIL", "ERR_INVALID_KEY", "ERR_NOMEM",
                  "ERR_INVALID_LENGTH"):
            self.assertEqual(getattr(c, n), code(n), n)
        self.assertEqual((c.ALLGATHERV, c.NODE_PUT, c.NODE_GET), (8, 9, 10))
        self.assertEqual(c.KEY_MAPPING, MAPPING)
        self.assertEqual(c.HDR_LEN, pmi.PMI_HDR.size)
        self.assertIs(pmi.PMIConsts.get(), c)


class Helpers(unittest.TestCase):
    def test_rank_ranges(self):
        self.assertEqual(pmi.rank_ranges([0, 1, 2, 3, 5, 7, 8]),
                         "0-3,5,7-8")
        self.assertEqual(pmi.rank_ranges({4}), "4")
        self.assertEqual(pmi.rank_ranges([3, 1, 2, 2]), "1-3")
        self.assertEqual(pmi.rank_ranges([]), "")

    def test_process_mapping(self):
        for (size, ppn), want in (
                ((1, 1), "(vector,(0,1,1))"), ((8, 1), "(vector,(0,8,1))"),
                ((3, 4), "(vector,(0,1,3))"), ((8, 4), "(vector,(0,2,4))"),
                ((6, 4), "(vector,(0,1,4),(1,1,2))"),
                ((9, 4), "(vector,(0,2,4),(2,1,1))"),
                ((65536, 64), "(vector,(0,1024,64))")):
            self.assertEqual(pmi.process_mapping(size, ppn), want)

    def test_process_mapping_places_every_rank(self):
        """Read back as MPICH's notation says (a block (base, H, L) holds
        H nodes from base with L ranks each, ranks counted node after
        node), every job puts rank r on node r // ppn."""
        for size in range(1, 20):
            for ppn in range(1, 7):
                text = pmi.process_mapping(size, ppn)
                self.assertRegex(text, r"^\(vector(,\(\d+,\d+,\d+\))+\)$")
                node_of = []
                for base, h, ln in re.findall(r"\((\d+),(\d+),(\d+)\)",
                                              text):
                    for n in range(int(h)):
                        node_of += [int(base) + n] * int(ln)
                self.assertEqual(node_of, [r // ppn for r in range(size)],
                                 text)
                self.assertLess(len(text), wire("VAL_MAX"))

    def test_printable(self):
        self.assertEqual(pmi.printable(b"ok\n\x1b[2Jx\xff"), "ok??[2Jx\ufffd")


class Conn(unittest.TestCase):
    def test_frames_whole_partial_and_queued(self):
        c = pmi.JobConn(0, -1, None, None)
        f1 = HDR.pack(MAGIC, T_STDOUT, 0, 0, 7, 3) + b"abc"
        f2 = HDR.pack(MAGIC, T_EXIT, 0, 0, 7, 8) + struct.pack("<Ii", 0, 0)
        c.inbuf += f1 + f2[:5]
        self.assertEqual(list(c.frames()), [(T_STDOUT, 7, b"abc")])
        c.inbuf += f2[5:]
        self.assertEqual(list(c.frames()), [(T_EXIT, 7, f2[16:])])
        self.assertEqual(c.inbuf, b"")
        c.frame(T_SIGNAL, 9, b"xy")
        self.assertEqual(bytes(c.outbuf), HDR.pack(MAGIC, T_SIGNAL, 0, 0, 9,
                                                   2) + b"xy")

    def test_bad_frame_kills_the_connection(self):
        for hdr in (HDR.pack(MAGIC ^ 1, T_STDOUT, 0, 0, 1, 0),
                    HDR.pack(MAGIC, T_STDOUT, 1, 0, 1, 0),
                    HDR.pack(MAGIC, T_STDOUT, 0, 0, 1, MAX_PAYLOAD + 1)):
            c = pmi.JobConn(0, -1, None, None)
            c.inbuf += hdr
            self.assertEqual(list(c.frames()), [])
            self.assertIn("protocol error", c.dead)
            c.frame(T_SIGNAL, 1)       # nothing more goes out
            self.assertEqual(c.outbuf, b"")


class Start(JobTest):
    def test_exec_frames(self):
        job = pmi.Job(3, 2, ["prog", "a b"], {"A": "1"}, "kvs", None,
                      io.BytesIO(), io.BytesIO())
        conns = {5: pmi.JobConn(5, -1, None, None),
                 2: pmi.JobConn(2, -1, None, None)}
        job.place(conns)
        self.assertEqual([(r.r, r.node) for r in job.ranks],
                         [(0, 2), (1, 2), (2, 5)])
        self.assertEqual(job.conns, [conns[2], conns[5]])
        job.start(lambda rank: {"PMI_RANK": rank.r})
        for node, ranks in ((2, [0, 1]), (5, [2])):
            frames = agent_frames(conns[node].outbuf)
            self.assertEqual(len(frames), len(ranks))
            for (typ, rid, p), r in zip(frames, ranks):
                self.assertEqual(typ, T_EXEC)
                self.assertEqual(job.ranks[r].rid, rid)
                self.assertIs(conns[node].ranks[rid], job.ranks[r])
                self.assertEqual(p, struct.pack("<III", 0,
                                                EXEC_F_PMI | EXEC_F_ENV, 2)
                                 + b"prog\0a b\0A=1\0"
                                 + f"PMI_RANK={r}\0".encode())

    def test_clique(self):
        job = self.make_job(size=5, ppn=2)
        self.assertEqual([job.clique(r) for r in job.ranks],
                         [[0, 1], [0, 1], [2, 3], [2, 3], [4]])


class Init(JobTest):
    def test_reply_layout(self):
        job = self.make_job(size=3, ppn=2, kvsname="kvs_9")
        rank = job.ranks[2]
        job.pmi_feed(rank, request(INIT, struct.pack("<Ii", 1, 2)))
        (typ, st, p), = self.replies(rank)
        self.assertEqual((typ, st), (INIT | REPLY, code("SUCCESS")))
        fixed = wire("INIT_REPLY_LEN")
        self.assertEqual(struct.unpack_from("<IiiiiIIIIII", p),
                         (1, 2, 3, 3, 0, wire("KVSNAME_MAX"), wire("KEY_MAX"),
                          wire("VAL_MAX"), wire("ALLGATHER_MAX"),
                          wire("ALLGATHER_TOTAL_MAX"), 1))
        self.assertEqual(p[fixed:], struct.pack("<i", 2) + b"kvs_9")
        self.assertTrue(rank.inited)

    def test_byte_by_byte(self):
        job = self.make_job()
        rank = job.ranks[1]
        for b in request(INIT, struct.pack("<Ii", 1, 1)):
            job.pmi_feed(rank, bytes([b]))
        self.assertEqual([r[:2] for r in self.replies(rank)],
                         [(INIT | REPLY, code("SUCCESS"))])

    def test_two_requests_in_one_chunk(self):
        job = self.make_job()
        rank = job.ranks[0]
        job.pmi_feed(rank, request(INIT, struct.pack("<Ii", 1, 0))
                     + request(GET, b"nokey"))
        self.assertEqual([r[:2] for r in self.replies(rank)],
                         [(INIT | REPLY, code("SUCCESS")),
                          (GET | REPLY, code("FAIL"))])

    def test_other_version(self):
        job = self.make_job()
        rank = job.ranks[0]
        job.pmi_feed(rank, request(INIT, struct.pack("<Ii", 99, 0)))
        self.assertEqual(self.replies(rank),
                         [(INIT | REPLY, code("ERR_INIT"), b"")])
        self.assertFalse(rank.inited)


class ProtocolErrors(JobTest):
    def fails(self, job, rank, data, why):
        with captured() as (_, err):
            job.pmi_feed(rank, data)
        msg = f"rank {rank.r} (node {rank.node}): PMI protocol error: {why}"
        self.assertEqual(job.failure, (msg, EXIT_FAIL))
        self.assertTrue(err.getvalue().startswith(f"vgemini: {msg}"),
                        err.getvalue())
        self.assertTrue(rank.pmi_dead)
        # Every running rank gets SIGKILL.
        for r in job.ranks:
            self.assertIn((T_SIGNAL, r.rid,
                           struct.pack("<I", signal.SIGKILL)),
                          agent_frames(r.conn.outbuf))
        self.assertEqual(job.exit_status(), 255)    # nobody reported yet

    def test_request_before_init(self):
        job = self.make_job()
        self.fails(job, job.ranks[0], request(BARRIER),
                   f"request type {BARRIER} before INIT")

    def test_init_as_another_rank(self):
        job = self.make_job()
        self.fails(job, job.ranks[0], request(INIT, struct.pack("<Ii", 1, 1)),
                   "INIT as rank 1")

    def test_second_init(self):
        job = self.make_job()
        self.init(job, 0)
        self.fails(job, job.ranks[0], request(INIT, struct.pack("<Ii", 1, 0)),
                   "a second INIT")

    def test_bad_header(self):
        job = self.make_job()
        self.fails(job, job.ranks[0], request(INIT, magic=PMAGIC + 1),
                   "bad frame header")
        job = self.make_job()
        self.fails(job, job.ranks[1], request(INIT, flags=1),
                   "bad frame header")

    def test_unknown_type(self):
        job = self.make_job()
        self.fails(job, job.ranks[0], request(0x55),
                   "unknown request type 85")

    def test_oversized_request(self):
        job = self.make_job()
        top = wire("KEY_MAX") - 1
        self.fails(job, job.ranks[0], request(GET, b"k" * (top + 1)),
                   f"request type {GET} of {top + 1} bytes (at most {top})")

    def test_oversized_new_requests(self):
        job = self.make_job()
        self.init(job)
        top = wire("ALLGATHER_MAX")
        self.fails(job, job.ranks[0], request(ALLGATHERV, b"x" * (top + 1)),
                   f"request type {ALLGATHERV} of {top + 1} bytes (at most "
                   f"{top})")
        job = self.make_job()
        self.init(job)
        top = wire("KEY_MAX") - 1
        self.fails(job, job.ranks[1], request(NODE_GET, b"k" * (top + 1)),
                   f"request type {NODE_GET} of {top + 1} bytes (at most "
                   f"{top})")

    def test_node_put_lengths_disagree(self):
        job = self.make_job()
        self.init(job)
        self.fails(job, job.ranks[0],
                   request(NODE_PUT, struct.pack("<II", 2, 1) + b"kv"),
                   "PUT of 10 bytes with key 2 and value 1")

    def test_put_lengths_disagree(self):
        job = self.make_job()
        self.init(job)
        self.fails(job, job.ranks[1],
                   request(PUT, struct.pack("<II", 1, 5) + b"kv"),
                   "PUT of 10 bytes with key 1 and value 5")

    def test_after_finalize(self):
        job = self.make_job()
        self.init(job)
        job.pmi_feed(job.ranks[0], request(FINALIZE))
        self.assertEqual(self.replies(job.ranks[0])[0][:2],
                         (FINALIZE | REPLY, code("SUCCESS")))
        self.fails(job, job.ranks[0], request(GET, b"k"),
                   f"request type {GET} after FINALIZE")


class Kvs(JobTest):
    def put(self, job, r, key, val):
        job.pmi_feed(job.ranks[r], request(
            PUT, struct.pack("<II", len(key), len(val)) + key + val))
        (typ, st, p), = self.replies(job.ranks[r])
        self.assertEqual((typ, p), (PUT | REPLY, b""))
        return st

    def get(self, job, r, key):
        job.pmi_feed(job.ranks[r], request(GET, key))
        (typ, st, p), = self.replies(job.ranks[r])
        self.assertEqual(typ, GET | REPLY)
        return st, p

    def test_put_then_get_anywhere(self):
        job = self.make_job()
        self.init(job)
        self.assertEqual(self.put(job, 0, b"key", b"value"), code("SUCCESS"))
        self.assertEqual(self.get(job, 1, b"key"), (code("SUCCESS"),
                                                    b"value"))
        self.assertEqual(self.put(job, 1, b"empty", b""), code("SUCCESS"))
        self.assertEqual(self.get(job, 0, b"empty"), (code("SUCCESS"), b""))
        mapping = len(MAPPING) + len(b"(vector,(0,2,1))")
        self.assertEqual(job.kvs_bytes, mapping + 3 + 5 + 5)
        self.assertEqual(job.kvs_keys, 3)

    def test_mapping_is_there_from_the_start(self):
        job = self.make_job(size=6, ppn=4)
        self.init(job)
        for r in (0, 5):
            self.assertEqual(self.get(job, r, MAPPING),
                             (code("SUCCESS"), b"(vector,(0,1,4),(1,1,2))"))
        self.assertEqual(self.put(job, 2, MAPPING, b"(vector,(0,6,1))"),
                         code("ERR_INVALID_KEY"))

    def test_refusals(self):
        job = self.make_job()
        self.init(job)
        self.assertEqual(self.put(job, 0, b"k", b"v"), code("SUCCESS"))
        self.assertEqual(self.put(job, 1, b"k", b"w"),
                         code("ERR_INVALID_KEY"))
        self.assertEqual(self.get(job, 0, b"k"), (code("SUCCESS"), b"v"))
        self.assertEqual(self.put(job, 0, b"", b"v"),
                         code("ERR_INVALID_KEY_LENGTH"))
        self.assertEqual(self.put(job, 0, b"k" * wire("KEY_MAX"), b""),
                         code("ERR_INVALID_KEY_LENGTH"))
        self.assertEqual(self.put(job, 0, b"k2", b"v" * wire("VAL_MAX")),
                         code("ERR_INVALID_VAL_LENGTH"))
        self.assertEqual(self.put(job, 0, b"a\0b", b"v"),
                         code("ERR_INVALID_KEY"))
        self.assertEqual(self.put(job, 0, b"k3", b"v\0"),
                         code("ERR_INVALID_VAL"))
        self.assertEqual(self.get(job, 0, b"missing"), (code("FAIL"), b""))
        self.assertEqual(self.get(job, 0, b""),
                         (code("ERR_INVALID_KEY_LENGTH"), b""))
        self.assertEqual(self.get(job, 0, b"a\0"),
                         (code("ERR_INVALID_KEY"), b""))
        self.assertEqual(list(job.kvs), [MAPPING, b"k"])
        self.assertIsNone(job.failure)

    def test_kvs_full(self):
        job = self.make_job()
        self.init(job)
        job.c = _Consts(job.c, KVS_MAX_KEYS=3)     # the mapping is one
        self.assertEqual(self.put(job, 0, b"a", b"1"), code("SUCCESS"))
        self.assertEqual(self.node_put(job, 1, b"n", b"2"), code("SUCCESS"))
        self.assertEqual(self.put(job, 0, b"b", b"3"), code("ERR_NOMEM"))
        self.assertEqual(self.node_put(job, 0, b"m", b"4"),
                         code("ERR_NOMEM"))
        job.c = _Consts(job.c, KVS_MAX_BYTES=job.kvs_bytes + 3)
        self.assertEqual(self.put(job, 0, b"c", b"45"), code("ERR_NOMEM"))

    def node_put(self, job, r, key, val):
        job.pmi_feed(job.ranks[r], request(
            NODE_PUT, struct.pack("<II", len(key), len(val)) + key + val))
        (typ, st, p), = self.replies(job.ranks[r])
        self.assertEqual((typ, p), (NODE_PUT | REPLY, b""))
        return st

    def node_get(self, job, r, key):
        job.pmi_feed(job.ranks[r], request(NODE_GET, key))
        (typ, st, p), = self.replies(job.ranks[r])
        self.assertEqual(typ, NODE_GET | REPLY)
        return st, p

    def test_node_attributes_stay_on_their_node(self):
        job = self.make_job(size=5, ppn=2)         # nodes 0,0,1,1,2
        self.init(job)
        self.assertEqual(self.node_put(job, 1, b"shm", b"node0"),
                         code("SUCCESS"))
        self.assertEqual(self.node_put(job, 2, b"shm", b"node1"),
                         code("SUCCESS"))
        self.assertEqual(self.node_get(job, 0, b"shm"),
                         (code("SUCCESS"), b"node0"))
        self.assertEqual(self.node_get(job, 3, b"shm"),
                         (code("SUCCESS"), b"node1"))
        self.assertEqual(self.node_get(job, 4, b"shm"), (code("FAIL"), b""))
        # Once per node; not in the job's KVS, nor the other way round
        self.assertEqual(self.node_put(job, 0, b"shm", b"again"),
                         code("ERR_INVALID_KEY"))
        self.assertEqual(self.get(job, 0, b"shm"), (code("FAIL"), b""))
        self.assertEqual(self.node_get(job, 0, MAPPING), (code("FAIL"), b""))
        self.assertEqual(self.node_put(job, 4, MAPPING, b"x"),
                         code("SUCCESS"))
        # The refusals of PUT and GET
        self.assertEqual(self.node_put(job, 4, b"", b"v"),
                         code("ERR_INVALID_KEY_LENGTH"))
        self.assertEqual(self.node_put(job, 4, b"a\0", b"v"),
                         code("ERR_INVALID_KEY"))
        self.assertEqual(self.node_put(job, 4, b"k", b"v\0"),
                         code("ERR_INVALID_VAL"))
        self.assertEqual(self.node_put(job, 4, b"k", b"v" * wire("VAL_MAX")),
                         code("ERR_INVALID_VAL_LENGTH"))
        self.assertEqual(self.node_get(job, 4, b""),
                         (code("ERR_INVALID_KEY_LENGTH"), b""))
        self.assertEqual(self.node_get(job, 4, b"a\0"),
                         (code("ERR_INVALID_KEY"), b""))
        self.assertIsNone(job.failure)


class _Consts:
    """PMIConsts with some limits changed."""

    def __init__(self, base, **changes):
        self.__dict__.update(vars(base))
        self.__dict__.update(changes)


class Collectives(JobTest):
    def test_barrier_waits_for_everyone(self):
        job = self.make_job(size=3, ppn=2)
        self.init(job)
        for r in (2, 0):
            job.pmi_feed(job.ranks[r], request(BARRIER))
        self.assertEqual([self.replies(r) for r in job.ranks], [[], [], []])
        self.assertEqual(job.ranks[0].pending, "barrier")
        job.pmi_feed(job.ranks[1], request(BARRIER))
        for r in job.ranks:
            self.assertEqual(self.replies(r),
                             [(BARRIER | REPLY, code("SUCCESS"), b"")])
            self.assertIsNone(r.pending)
        self.assertIsNone(job.coll)

    def test_allgather_in_rank_order(self):
        job = self.make_job(size=3)
        self.init(job)
        for r, d in ((1, b"B1"), (2, b"C2"), (0, b"A0")):
            job.pmi_feed(job.ranks[r], request(ALLGATHER, d))
        for r in job.ranks:
            self.assertEqual(self.replies(r),
                             [(ALLGATHER | REPLY, code("SUCCESS"),
                               b"A0B1C2")])

    def test_allgather_lengths_differ(self):
        job = self.make_job(size=2)
        self.init(job)
        job.pmi_feed(job.ranks[0], request(ALLGATHER, b"abc"))
        job.pmi_feed(job.ranks[1], request(ALLGATHER, b"ab"))
        for r in job.ranks:
            self.assertEqual(self.replies(r),
                             [(ALLGATHER | REPLY,
                               code("ERR_INVALID_LENGTH"), b"")])

    def test_allgather_too_big_for_the_job(self):
        job = self.make_job(size=2)
        self.init(job)
        job.c = _Consts(job.c, ALLGATHER_TOTAL_MAX=7)
        job.pmi_feed(job.ranks[0], request(ALLGATHER, b"abcd"))
        self.assertEqual(self.replies(job.ranks[0]),
                         [(ALLGATHER | REPLY, code("ERR_INVALID_LENGTH"),
                           b"")])
        self.assertIsNone(job.coll)

    def test_big_reply_is_split_into_agent_frames(self):
        job = self.make_job(size=2)
        self.init(job)
        job.pmi_feed(job.ranks[0], request(ALLGATHER, b"x" * 40000))
        job.pmi_feed(job.ranks[1], request(ALLGATHER, b"y" * 40000))
        rank = job.ranks[1]
        sizes = [len(p) for typ, rid, p in agent_frames(rank.conn.outbuf)
                 if rid == rank.rid]
        self.assertEqual(sizes, [MAX_PAYLOAD, 16 + 80000 - MAX_PAYLOAD])
        self.assertEqual(self.replies(rank)[0][2],
                         b"x" * 40000 + b"y" * 40000)

    def test_allgatherv_lengths_then_data_in_rank_order(self):
        job = self.make_job(size=4, ppn=2)
        self.init(job)
        data = {0: b"", 1: b"B", 2: b"CCC", 3: b""}
        for r in (3, 1, 0, 2):
            job.pmi_feed(job.ranks[r], request(ALLGATHERV, data[r]))
        want = struct.pack("<4I", 0, 1, 3, 0) + b"BCCC"
        for r in job.ranks:
            self.assertEqual(self.replies(r),
                             [(ALLGATHERV | REPLY, code("SUCCESS"), want)])
            self.assertIsNone(r.pending)

    def test_allgatherv_too_big_for_the_job(self):
        job = self.make_job(size=3)
        self.init(job)
        job.c = _Consts(job.c, ALLGATHER_TOTAL_MAX=5)
        for r, d in ((0, b"ab"), (1, b"cd"), (2, b"ef")):
            job.pmi_feed(job.ranks[r], request(ALLGATHERV, d))
        for r in job.ranks:
            self.assertEqual(self.replies(r),
                             [(ALLGATHERV | REPLY,
                               code("ERR_INVALID_LENGTH"), b"")])

    def test_allgatherv_while_others_allgather(self):
        job = self.make_job(size=2)
        self.init(job)
        job.pmi_feed(job.ranks[0], request(ALLGATHER, b"x"))
        with captured():
            job.pmi_feed(job.ranks[1], request(ALLGATHERV, b"x"))
        self.assertEqual(job.failure,
                         ("rank 1 called PMI_Allgatherv while rank 0 is in "
                          "PMI_Allgather", EXIT_FAIL))

    def test_mixed_collectives_fail(self):
        job = self.make_job(size=3)
        self.init(job)
        job.pmi_feed(job.ranks[0], request(BARRIER))
        with captured() as (_, err):
            job.pmi_feed(job.ranks[1], request(ALLGATHER, b"x"))
        self.assertEqual(job.failure,
                         ("rank 1 called PMI_Allgather while rank 0 is in "
                          "PMI_Barrier", EXIT_FAIL))
        self.assertIn("killing ranks 0-2", err.getvalue())

    def test_finalize_while_others_wait(self):
        job = self.make_job(size=3)
        self.init(job)
        job.pmi_feed(job.ranks[0], request(BARRIER))
        job.pmi_feed(job.ranks[2], request(BARRIER))
        with captured():
            job.pmi_feed(job.ranks[1], request(FINALIZE))
        self.assertEqual(job.failure,
                         ("rank 1 called PMI_Finalize while ranks 0,2 wait "
                          "in PMI_Barrier", EXIT_FAIL))

    def test_rank_ends_while_one_waits(self):
        job = self.make_job(size=2)
        self.init(job)
        job.pmi_feed(job.ranks[0], request(BARRIER))
        with captured():
            job.rank_ended(job.ranks[1], HOW_EXITED, 0)
        self.assertEqual(job.failure,
                         ("rank 1 ended while rank 0 waits in PMI_Barrier",
                          EXIT_FAIL))


class Ends(JobTest):
    def end(self, job, r, how, val):
        rank = job.ranks[r]
        job.dispatch(rank.conn, T_EXIT, rank.rid, struct.pack("<Ii", how,
                                                              val))

    def test_all_exit_zero(self):
        job = self.make_job(size=3)
        for r in range(3):
            self.end(job, r, HOW_EXITED, 0)
        self.assertEqual(job.running(), [])
        self.assertEqual(job.exit_status(), 0)
        self.assertIsNone(job.failure)

    def test_one_fails_the_others_are_killed(self):
        job = self.make_job(size=3)
        with captured() as (_, err):
            self.end(job, 1, HOW_EXITED, 3)
        self.assertEqual(err.getvalue(), "vgemini: rank 1 (node 1): exit "
                         "status 3; killing ranks 0,2\n")
        self.assertTrue(job.ranks[0].killed and job.ranks[2].killed)
        self.assertIsNotNone(job.kill_deadline)
        self.end(job, 0, HOW_SIGNALED, 9)
        self.end(job, 2, HOW_SIGNALED, 9)
        self.assertEqual(job.exit_status(), 3)

    def test_abort(self):
        job = self.make_job(size=2)
        self.init(job)
        with captured() as (_, err):
            job.pmi_feed(job.ranks[1], request(
                ABORT, struct.pack("<i", 7) + b"gave up\n"))
        self.assertEqual(job.abort, (1, 7, "gave up?"))
        self.assertIn("rank 1 (node 1) called PMI_Abort(7): gave up?",
                      err.getvalue())
        self.assertEqual(job.exit_status(), 7)
        job.abort = (1, 0, "x")
        self.assertEqual(job.exit_status(), EXIT_FAIL)
        job.abort = (1, 256, "x")
        self.assertEqual(job.exit_status(), EXIT_FAIL)

    def test_timeout(self):
        job = self.make_job(size=2, timeout=5)
        with captured() as (_, err):
            job.on_timeout()
        self.assertEqual(err.getvalue(), "vgemini: timed out after 5 s; "
                         "still running: ranks 0-1 (nodes 0-1); killing "
                         "them\n")
        self.assertEqual(job.exit_status(), EXIT_TIMEOUT)

    def test_lost_connection(self):
        job = self.make_job(size=2, ppn=2)
        conn = job.ranks[0].conn
        conn.dead = "connection closed (QEMU exited?)"
        with captured():
            job.conn_lost(conn)
        self.assertTrue(all(r.done for r in job.ranks))
        self.assertEqual(job.failure[0], "rank 0 (node 0): node 0's agent: "
                         "connection closed (QEMU exited?)")
        self.assertEqual(job.exit_status(), 255)

    def test_output_is_prefixed_by_rank(self):
        job = self.make_job(size=2)
        r1 = job.ranks[1]
        job.dispatch(r1.conn, T_STDOUT, r1.rid, b"hel")
        job.dispatch(r1.conn, T_STDOUT, r1.rid, b"lo\nwor")
        job.dispatch(r1.conn, T_STDERR, r1.rid, b"oops\n")
        job.dispatch(r1.conn, T_STDOUT, r1.rid + 1, b"stale\n")
        self.assertEqual(self.out.getvalue(), b"[1] hello\n")
        self.end(job, 1, HOW_EXITED, 0)
        self.assertEqual(self.out.getvalue(), b"[1] hello\n[1] wor\n")
        self.assertEqual(self.err.getvalue(), b"[1] oops\n")
