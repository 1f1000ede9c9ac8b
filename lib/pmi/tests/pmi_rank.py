#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""A hand-written PMI client for host tests of the launcher's PMI server:
it speaks the wire protocol of uapi/pmi_wire.h directly on $PMI_FD,
well-formed or not, as one SCENARIO says.  Run by host-test.py as the
ranks of "vgemini run --local".

usage: pmi_rank.py SCENARIO

Scenarios that expect an answer check it and exit 0 when it is the
expected one, 1 otherwise; the others break the protocol and expect the
launcher to end the job.
"""

import os
import re
import struct
import sys
import time

HERE = os.path.dirname(os.path.realpath(__file__))
WIRE = os.path.join(HERE, "..", "..", "..", "uapi", "pmi_wire.h")
PMI_H = os.path.join(HERE, "..", "pmi.h")


def defines(path, prefix):
    with open(path) as f:
        text = f.read()
    return {m.group(1): int(m.group(2), 0) for m in re.finditer(
        r"^#define\s+%s(\w+)\s+(-?0x[0-9a-fA-F]+|-?\d+)u?\b" % prefix,
        text, re.M)}


W = defines(WIRE, "VGEMINI_PMI_")
E = defines(PMI_H, "PMI_")
HDR = struct.Struct("<IHHiI")
FD = int(os.environ["PMI_FD"])
RANK = int(os.environ["PMI_RANK"])
SIZE = int(os.environ["PMI_SIZE"])


def send(typ, payload=b"", magic=None, flags=0, status=0, length=None):
    os.write(FD, HDR.pack(W["MAGIC"] if magic is None else magic, typ,
                          flags, status,
                          len(payload) if length is None else length)
             + payload)


def recv_exact(n):
    b = b""
    while len(b) < n:
        d = os.read(FD, n - len(b))
        if not d:
            raise EOFError("PMI channel closed")
        b += d
    return b


def reply(typ):
    magic, rtyp, flags, status, n = HDR.unpack(recv_exact(HDR.size))
    if magic != W["MAGIC"] or rtyp != typ | W["REPLY"] or flags:
        raise ValueError(f"bad reply header {magic:#x} {rtyp} {flags}")
    return status, recv_exact(n)


def call(typ, payload=b""):
    send(typ, payload)
    return reply(typ)


def init(rank=None, version=None):
    return call(W["INIT"], struct.pack(
        "<Ii", W["VERSION"] if version is None else version,
        RANK if rank is None else rank))


def put(key, val):
    return call(W["PUT"], struct.pack("<II", len(key), len(val)) + key + val)


def expect(what, got, want):
    if got != want:
        print(f"pmi_rank {RANK}: {what}: got {got}, want {want}")
        sys.exit(1)


def main():
    sc = sys.argv[1]
    # --- answered with error codes (not fatal) -------------------------
    if sc == "codes":
        st, p = init(version=W["VERSION"] + 1)
        expect("INIT of another version", st, E["ERR_INIT"])
        st, p = init()
        expect("INIT", st, E["SUCCESS"])
        version, rank, size = struct.unpack_from("<Iii", p)
        expect("INIT rank/size", (version, rank, size),
               (W["VERSION"], RANK, SIZE))
        key = f"k{RANK}".encode()
        expect("put", put(key, b"v")[0], E["SUCCESS"])
        expect("duplicate put", put(key, b"w")[0], E["ERR_INVALID_KEY"])
        expect("put of a key with NUL", put(b"a\0b", b"v")[0],
               E["ERR_INVALID_KEY"])
        expect("put of an empty key", put(b"", b"v")[0],
               E["ERR_INVALID_KEY_LENGTH"])
        expect("put of a value with NUL", put(b"kk%d" % RANK, b"a\0")[0],
               E["ERR_INVALID_VAL"])
        expect("put of a too long value",
               put(b"kl%d" % RANK, b"v" * W["VAL_MAX"])[0],
               E["ERR_INVALID_VAL_LENGTH"])
        expect("get of a missing key", call(W["GET"], b"nope")[0],
               E["FAIL"])
        expect("get of an empty key", call(W["GET"], b"")[0],
               E["ERR_INVALID_KEY_LENGTH"])
        expect("barrier", call(W["BARRIER"])[0], E["SUCCESS"])
        other = f"k{(RANK + 1) % SIZE}".encode()
        expect("get of a peer's key", call(W["GET"], other),
               (E["SUCCESS"], b"v"))
        # Allgathers of different lengths: refused for everyone.
        expect("allgather of unequal lengths",
               call(W["ALLGATHER"], b"x" * (RANK + 1))[0],
               E["ERR_INVALID_LENGTH"])
        big = W["ALLGATHER_TOTAL_MAX"] // SIZE + 1
        if big <= W["ALLGATHER_MAX"]:
            expect("allgather over the total",
                   call(W["ALLGATHER"], b"x" * big)[0],
                   E["ERR_INVALID_LENGTH"])
        st, p = call(W["ALLGATHER"], bytes([RANK]) * 3)
        expect("allgather", (st, p),
               (E["SUCCESS"], b"".join(bytes([r]) * 3 for r in range(SIZE))))
        # Allgatherv: every rank's length, then the bytes, in rank order
        st, p = call(W["ALLGATHERV"], bytes([RANK]) * RANK)
        expect("allgatherv", (st, p),
               (E["SUCCESS"], struct.pack(f"<{SIZE}I", *range(SIZE)) +
                b"".join(bytes([r]) * r for r in range(SIZE))))
        # The mapping is there from the start; nobody replaces it
        st, p = call(W["GET"], b"PMI_process_mapping")
        expect("the process mapping", (st, p),
               (E["SUCCESS"], f"(vector,(0,{SIZE},1))".encode()))
        expect("put of the mapping", put(b"PMI_process_mapping", b"x")[0],
               E["ERR_INVALID_KEY"])
        # Node attributes: one node per rank here (--ppn 1)
        st, _ = call(W["NODE_PUT"], struct.pack("<II", 4, 1) + b"node" +
                     bytes([48 + RANK]))
        expect("node put", st, E["SUCCESS"])
        expect("node get", call(W["NODE_GET"], b"node"),
               (E["SUCCESS"], bytes([48 + RANK])))
        expect("node attribute not in the KVS", call(W["GET"], b"node")[0],
               E["FAIL"])
        expect("node get of a missing name", call(W["NODE_GET"], b"x")[0],
               E["FAIL"])
        expect("finalize", call(W["FINALIZE"])[0], E["SUCCESS"])
        return 0
    # --- protocol errors: the launcher ends the job ---------------------
    if sc == "bad-magic":
        send(W["INIT"], b"\0" * 8, magic=0x12345678)
    elif sc == "bad-flags":
        send(W["INIT"], struct.pack("<Ii", W["VERSION"], RANK), flags=1)
    elif sc == "bad-type":
        send(99)
    elif sc == "oversize":
        send(W["GET"], length=W["KEY_MAX"] + 100)
    elif sc == "huge":
        send(W["ALLGATHER"], length=0xffffffff)
    elif sc == "huge-v":
        init()
        send(W["ALLGATHERV"], length=W["ALLGATHER_MAX"] + 1)
    elif sc == "node-put-mismatch":
        init()
        send(W["NODE_PUT"], struct.pack("<II", 1, 1) + b"abc")
    elif sc == "mismatch-v":
        init()
        if RANK == 0:
            send(W["ALLGATHER"], b"x")
        else:
            time.sleep(0.3)
            send(W["ALLGATHERV"], b"x")
    elif sc == "put-mismatch":
        init()
        send(W["PUT"], struct.pack("<II", 3, 100) + b"abcv")
    elif sc == "wrong-rank":
        send(W["INIT"], struct.pack("<Ii", W["VERSION"], RANK + 1))
    elif sc == "before-init":
        send(W["BARRIER"])
    elif sc == "second-init":
        init()
        init()
    elif sc == "after-finalize":
        init()
        call(W["FINALIZE"])
        send(W["BARRIER"])
    elif sc == "while-pending":
        init()
        if RANK == 0:
            send(W["BARRIER"])
            send(W["BARRIER"])
    elif sc == "mismatch":
        init()
        if RANK == 0:
            send(W["BARRIER"])
        else:
            time.sleep(0.3)
            send(W["ALLGATHER"], b"x")
    elif sc == "exit-in-barrier":
        init()
        if RANK == 0:
            send(W["BARRIER"])
        else:
            return 0
    else:
        print(f"pmi_rank: unknown scenario {sc}", file=sys.stderr)
        return 2
    time.sleep(30)      # the launcher kills us
    return 0


if __name__ == "__main__":
    sys.exit(main())
