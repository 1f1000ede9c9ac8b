#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Open MPI, built as for a Cray XE (scripts/build-ompi.sh), runs its
programs across a 2x2x2 torus, launched by vgemini run as aprun launched
them (Documentation/mpi.rst).

Checks, with every program built on the host by the installed mpicc and
run from the repository (shared with the guests), never in the image:
- ompi_info lists btl ugni and the Cray components (Cray PMI, ALPS);
- Open MPI's own examples hello_c and ring_c on 8 ranks with btl
  self,ugni (no TCP anywhere);
- selftests/mpi/mpi_check (every size 0 B .. 16 MiB blocking, to 1 MiB
  non-blocking, byte for byte; barrier, allreduce, alltoall) on 8 ranks,
  and on 16 (--ppn 2) with messages up to 64 KiB (time: 8 guests on 2
  cores move about 3 MB/s between them all); the NIC counters around the
  8-rank job show traffic on every engine: SMSG (FMA PUT), FMA GET, BTE
  GET, and BTE PUT (ob1's put fallback: its buffers are at odd offsets);
- each protocol of btl/ugni, one message size at a time
  (mpi_pingpong --only), read from the counters: eager SMSG, the eager
  GET (FMA GET, then the BTE), the rendezvous GET (BTE) and the
  rendezvous in eager GETs of 8 KiB for a length that is not a multiple
  of 4;
- selftests/mpi/mpi_coll (the bench's ping-pong, allreduce and all-to-all
  of many ranks) on 8 ranks, with small all-to-all blocks, every byte
  checked;
- a rank that calls MPI_Abort(7) ends the job with status 7, no rank
  left running.
Always tears the fabric down.  Prints TAP.
"""

import glob
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import fabric_lib as fl  # noqa: E402
from mpi_lib import (ENGINES, UGNI_ONLY, counters_since,  # noqa: E402
                     per_round_trip, run, save_counters)

REPO = fl.REPO
OMPI = os.path.join(REPO, "build", "ompi", "install")
OUT = os.path.join(REPO, "build", "mpi-tests")


def build(tap):
    """The programs, built by Open MPI's mpicc; {name: path} of those
    that built."""
    os.makedirs(OUT, exist_ok=True)
    examples = glob.glob(os.path.join(REPO, "build", "ompi", "upstream",
                                      "openmpi-*", "examples"))
    srcs = {"mpi_check": os.path.join(REPO, "selftests", "mpi",
                                      "mpi_check.c"),
            "mpi_pingpong": os.path.join(REPO, "selftests", "mpi",
                                         "mpi_pingpong.c"),
            "mpi_coll": os.path.join(REPO, "selftests", "mpi",
                                     "mpi_coll.c")}
    for ex in ("hello_c", "ring_c"):
        srcs[ex] = os.path.join(examples[0] if examples else "(none)",
                                ex + ".c")
    progs = {}
    for name, src in srcs.items():
        exe = os.path.join(OUT, name)
        cmd = [os.path.join(OMPI, "bin", "mpicc"), "-O2", "-Wall", src,
               "-o", exe]
        p = subprocess.run(cmd, capture_output=True, text=True)
        needed = subprocess.run(["readelf", "-d", exe], capture_output=True,
                                text=True).stdout if p.returncode == 0 \
            else ""
        good = p.returncode == 0 and "[libmpi.so.40]" in needed
        tap.ok(good, f"mpicc builds {name}, linked to libmpi.so.40",
               " ".join(cmd) + "\n" + p.stdout + p.stderr)
        if good:
            progs[name] = exe
    return progs


def ompi_info(tap):
    p = subprocess.run([os.path.join(OMPI, "bin", "ompi_info"),
                        "--parsable"], capture_output=True, text=True)
    have = set(re.findall(r"^mca:(\w+):(\w+):version:", p.stdout, re.M))
    want = [("btl", "ugni"), ("btl", "self"), ("btl", "tcp"),
            ("pmix", "cray"), ("ess", "alps"), ("plm", "alps"),
            ("ras", "alps"), ("odls", "alps")]
    missing = [f"{f}/{c}" for f, c in want if (f, c) not in have]
    tap.ok(p.returncode == 0 and not missing,
           "ompi_info lists btl ugni and the Cray components (pmix cray; "
           "ess, plm, ras and odls alps)",
           f"exit {p.returncode}, missing {missing}\n{p.stderr}")


def examples(tap, progs):
    if "hello_c" in progs:
        rc, out, err, t = run("-n", 8, progs["hello_c"], env=UGNI_ONLY)
        lines = fl.by_rank(out, 8)
        bad = "a line without a valid [rank] prefix" if lines is None else \
            ", ".join(str(r) for r in range(8) if not any(
                ln.startswith(f"Hello, world, I am {r} of 8, (Open MPI "
                              "v4.1") for ln in lines[r]))
        tap.ok(rc == 0 and not bad, f"hello_c on 8 ranks, btl self,ugni "
               f"({t:.1f}s)", f"exit {rc}, not greeting: {bad}\n{out}{err}")
    if "ring_c" in progs:
        rc, out, err, t = run("-n", 8, progs["ring_c"], env=UGNI_ONLY)
        lines = fl.by_rank(out, 8)
        bad = "a line without a valid [rank] prefix" if lines is None else \
            ", ".join(str(r) for r in range(8)
                      if f"Process {r} exiting" not in lines[r])
        if lines is not None and \
                "Process 0 decremented value: 0" not in lines[0]:
            bad += " (rank 0 never saw the value reach 0)"
        tap.ok(rc == 0 and not bad, f"ring_c on 8 ranks, btl self,ugni: "
               f"the message goes round 10 times ({t:.1f}s)",
               f"exit {rc}, not exiting: {bad}\n{out}{err}")


def mpi_check_passed(out, n):
    return fl.ranks_passed(out, n, "mpi_check")


def mpi_check(tap, prog, tmp):
    before = os.path.join(tmp, "before.json")
    sampled = save_counters(before)
    # Non-blocking to 2 MiB (1 MiB + 3 the largest below): the blocking
    # part has sent 4 and 16 MiB already, and 4 x 4 + 16 MiB in flight
    # cost 100 s of the stage.
    rc, out, err, t = run("-n", 8, prog, "--distances", 1, "--nb-max-size",
                          2 << 20, env=UGNI_ONLY)
    why = mpi_check_passed(out, 8)
    tap.ok(rc == 0 and not why, f"mpi_check on 8 ranks, btl self,ugni: "
           f"every size 0 B .. 16 MiB over 1 to 3 hops blocking, to 1 MiB "
           f"non-blocking, and the collectives ({t:.1f}s)",
           fl.job_details(rc == 0 and not why, f"exit {rc}: {why}\n"
                          f"{out[-4000:]}{err[-3000:]}"))
    tot, err2 = counters_since(before) if sampled else (None, "no sample")
    tap.ok(tot is not None and all(tot[k] > 0 for k in ENGINES),
           "its NIC counters: traffic on every engine: "
           + (", ".join(f"{k} {tot[k]}" for k in ENGINES) if tot else ""),
           f"{tot} {err2}")

    rc, out, err, t = run("-n", 16, "--ppn", 2, prog, "--distances", 1,
                          "--max-size", 65536, env=UGNI_ONLY)
    why = mpi_check_passed(out, 16)
    tap.ok(rc == 0 and not why, f"mpi_check on 16 ranks (--ppn 2), btl "
           f"self,ugni: messages up to 64 KiB, within a node and across, "
           f"and the collectives ({t:.1f}s)",
           fl.job_details(rc == 0 and not why, f"exit {rc}: {why}\n"
                          f"{out[-4000:]}{err[-3000:]}"))


# One size per protocol of btl/ugni 4.1 (opal/mca/btl/ugni) and ob1: on
# a small job btl/ugni's SMSG limit is 8 KiB and its FMA GET limit 2 KiB;
# a message over the SMSG limit but within the eager one is sent as a
# descriptor by SMSG and the receiver GETs it (the eager GET, rounded up
# to 4 bytes); a rendezvous message of a length that is a multiple of 4
# is one GET (ob1's RGET), any other is sent in 8 KiB pieces, each an
# eager GET.  A small SMSG limit makes the eager GET rows.
SMALL_SMSG = {"OMPI_MCA_btl_ugni_smsg_limit": "512"}
PROTOCOLS = [
    # (what, size, extra environment, engines that must carry the data,
    #  engines that must not)
    ("eager SMSG", 4096, {}, ("fma_put_pkts",),
     ("fma_get_pkts", "bte_get_pkts", "bte_put_pkts")),
    ("eager GET by FMA", 2048, SMALL_SMSG, ("fma_get_pkts",),
     ("bte_get_pkts", "bte_put_pkts")),
    ("eager GET by the BTE", 4096, SMALL_SMSG, ("bte_get_pkts",),
     ("fma_get_pkts", "bte_put_pkts")),
    ("rendezvous GET by the BTE", 65536, {}, ("bte_get_pkts",),
     ("fma_get_pkts", "bte_put_pkts")),
    ("rendezvous in 8 KiB eager GETs by the BTE", 65535, {},
     ("bte_get_pkts",), ("fma_get_pkts", "bte_put_pkts")),
]
COUNT = 50


def protocols(tap, prog, tmp):
    """Each protocol's engines, from the counters of a job of COUNT round
    trips of its size less those of a job of none (MPI_Init's and
    MPI_Finalize's own traffic)."""
    base = {}
    for what, size, env, use, avoid in PROTOCOLS:
        key = json.dumps(env, sort_keys=True)
        per, b = per_round_trip(prog, size, COUNT, tmp, env, base.get(key))
        if per is None:
            tap.ok(False, f"{what}: {size} B", b)
            continue
        base[key] = b
        # 2 messages a round trip; a protocol's engine moves the data.
        ok = all(per[k] >= 2 for k in use) and \
            all(per[k] < 1 for k in avoid)
        tap.ok(ok, f"{what}: {size} B messages, per round trip "
               + ", ".join(f"{k.replace('_pkts', '')} {per[k]:.1f}"
                           for k in ENGINES),
               f"expected packets on {use}, none on {avoid}; env {env}; "
               f"per round trip {per}, empty job {b}")


def abort(tap, prog):
    rc, out, err, t = run("-n", 8, prog, "--abort-rank", 3, env=UGNI_ONLY)
    passed_barrier = "passed a barrier after the abort" in out
    tap.ok(rc == 7 and not passed_barrier and "rank 3 calls MPI_Abort(7)"
           in out, f"MPI_Abort(7) in rank 3 ends the job with status 7 "
           f"({t:.1f}s)", f"exit {rc}\n{out[-3000:]}{err[-3000:]}")
    rc, out, err = fl.vg("exec", "all", "--", "ps", "-e", "-o", "comm",
                         timeout=300)
    left = [ln for ln in out.splitlines() if "mpi_check" in ln]
    tap.ok(rc == 0 and not left, "after MPI_Abort: no rank left running "
           "in any guest", out + err if rc else "\n".join(left))


def coll(tap, prog):
    """mpi_coll (the bench's P7 and P8) on 8 ranks: its data checked"""
    rc, out, err, t = run("-n", 8, prog, "--iters", 20, "--a2a-bytes",
                          65536 + 3, "--a2a-iters", 2, env=UGNI_ONLY)
    good = rc == 0 and "mpi_coll: data checked" in out
    tap.ok(good, f"mpi_coll on 8 ranks, btl self,ugni: ping-pong, "
           f"allreduce and all-to-all of 64 KiB + 3 per pair, every byte "
           f"checked ({t:.1f}s)",
           fl.job_details(good, f"exit {rc}\n{out[-3000:]}{err[-3000:]}"))


def body(tap, fab):
    if not os.access(os.path.join(OMPI, "bin", "mpicc"), os.X_OK):
        tap.ok(False, "Open MPI is built (scripts/build-ompi.sh, make ompi)")
        return
    ompi_info(tap)
    progs = build(tap)
    if not fab.up(tap, "2x2x2"):
        return
    examples(tap, progs)
    with tempfile.TemporaryDirectory(prefix="vgemini-mpi-") as tmp:
        if "mpi_check" in progs:
            mpi_check(tap, progs["mpi_check"], tmp)
        if "mpi_pingpong" in progs:
            protocols(tap, progs["mpi_pingpong"], tmp)
    if "mpi_coll" in progs:
        coll(tap, progs["mpi_coll"])
    if "mpi_check" in progs:
        abort(tap, progs["mpi_check"])


if __name__ == "__main__":
    fl.run_test("mpi", body)
