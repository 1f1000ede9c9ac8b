#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""What the MPI test (mpi.py) and the MPI bench (scripts/bench-mpi.sh)
share: running a job on the fabric of VGEMINI_FABRIC, sampling the
counters around it, and what one message size costs the fabric.

Run as a program it is the bench's protocol sweep (Documentation/mpi.rst,
"Where Open MPI switches protocol"): for every size, a job of
mpi_pingpong --only SIZE --count K between nodes 0 and 1, the counters of
every node read before and after it, less those of a job of no round
trip; one row per size, per round trip, as TSV:

    scripts/tests/mpi_lib.py sweep PROG OUT.tsv [--count K] [SIZE...]
"""

import argparse
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import fabric_lib as fl  # noqa: E402

JOB_TIMEOUT = 600
# Only btl/ugni between ranks: nothing goes over TCP.
UGNI_ONLY = {"OMPI_MCA_btl": "self,ugni"}
ENGINES = ("fma_put_pkts", "fma_get_pkts", "bte_put_pkts", "bte_get_pkts")
# What crosses the links: requests on VC0, responses on VC1.
LINK = ("vc0_pkts", "vc0_phits", "vc1_pkts", "vc1_phits")


def run(*args, env=None, cwd=fl.REPO):
    """(exit status, stdout, stderr, seconds) of vgemini run ARGS, with
    @env added to this process's environment."""
    return fl.run_job(*args, cwd=cwd, env=env, timeout=JOB_TIMEOUT)


def save_counters(path):
    """Whether every node's counters were saved to @path."""
    rc, out, err = fl.vg("counters", "--save", path, timeout=120)
    return rc == 0


def counters_since(path):
    """({counter: sum over the nodes} of ENGINES and LINK (the links'
    counters summed over every port) since the sample at @path, "") or
    (None, why)."""
    rc, d, err = fl.vg_json("counters", "--since", path, "--json",
                            timeout=120)
    if rc != 0 or not d:
        return None, err
    tot = dict.fromkeys(ENGINES + LINK, 0)
    for c in d["nodes"].values():
        for k in ENGINES:
            tot[k] += (c.get("nic") or {}).get(k, 0)
        for pc in (c.get("ports") or {}).values():
            for k in LINK:
                tot[k] += pc.get(k, 0)
    return tot, ""


def job_counters(prog, size, count, tmp, env):
    """The fabric's counters over one job of @count round trips of @size
    bytes between ranks 0 and 1 (nodes 0 and 1): ({counter: value}, the
    job's stdout) or (None, what failed)."""
    path = os.path.join(tmp, f"size-{size}-{count}.json")
    if not save_counters(path):
        return None, "counters --save failed"
    rc, out, err, t = run("-n", 2, prog, "--only", size, "--count", count,
                          env=dict(UGNI_ONLY, **env))
    if rc != 0 or f"size {size} round_trips {count} " not in out:
        return None, f"mpi_pingpong --only {size} --count {count}: exit " \
            f"{rc}\n{out[-2000:]}{err[-2000:]}"
    tot, why = counters_since(path)
    return (tot, out) if tot is not None else \
        (None, "counters --since failed: " + why)


def per_round_trip(prog, size, count, tmp, env, base=None):
    """({counter: per round trip}, base) for @size: a job of @count round
    trips less @base (the counters of a job of none, measured when None:
    MPI_Init's and MPI_Finalize's own traffic); (None, what failed)."""
    if base is None:
        base, why = job_counters(prog, 1, 0, tmp, env)
        if base is None:
            return None, why
    got, why = job_counters(prog, size, count, tmp, env)
    if got is None:
        return None, why
    return {k: (got[k] - base[k]) / count for k in got}, base


def sweep(args):
    sizes = args.sizes or [1 << i for i in range(23)]
    env = json.loads(args.env) if args.env else {}
    cols = ENGINES + LINK
    rows = []
    with tempfile.TemporaryDirectory(prefix="vgemini-mpi-sweep-") as tmp:
        base = None
        for size in sizes:
            per, base_or_why = per_round_trip(args.prog, size, args.count,
                                              tmp, env, base)
            if per is None:
                print(f"mpi_lib: {size} B: {base_or_why}", file=sys.stderr)
                return 1
            base = base_or_why
            rows.append([size] + [per[k] for k in cols])
            print(f"mpi_lib: {size} B: " + " ".join(
                f"{k} {per[k]:.1f}" for k in cols), flush=True)
    with open(args.out, "w") as f:
        f.write("# per round trip, less an empty job's\n")
        f.write("#size\t" + "\t".join(cols) + "\n")
        for r in rows:
            f.write(f"{r[0]}\t" + "\t".join(f"{v:.2f}" for v in r[1:])
                    + "\n")
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("sweep", help="the fabric's counters per round "
                       "trip of every message size")
    s.add_argument("prog", help="mpi_pingpong, built with Open MPI")
    s.add_argument("out", help="the TSV file to write")
    s.add_argument("--count", type=int, default=50,
                   help="round trips a size (default 50)")
    s.add_argument("--env", help="more environment, as a JSON object")
    s.add_argument("sizes", nargs="*", type=int,
                   help="sizes in bytes (default 1 B .. 4 MiB, powers of 2)")
    return sweep(p.parse_args())


if __name__ == "__main__":
    sys.exit(main())
