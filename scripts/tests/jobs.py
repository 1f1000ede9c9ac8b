#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Host-side job tests: "vgemini run" with PMI across real guests.

Boots a fabric of its own (2x2x2, then 2x1x1), runs the image's pmi_test
(lib/pmi/tests/pmi_test.c, built against pmi.h only) as every rank and
checks its results, the "[rank] " prefixes, each rank's environment
against the node it runs on, the exit status of a failing rank, of
PMI_Abort and of --timeout, that no rank is left running in any guest
afterwards ("vgemini exec all -- ps"), and usage errors; that the job's
domain is configured in kgni (every rank's "kgni-job attach" gets its
node's PE, a wrong cookie is refused) and released when the job ends,
and so is --alt-domain's second domain; always tears the fabric down.
Prints TAP.

usage: jobs.py [DIMS...]      (default: 2x2x2 2x1x1)
"""

import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import fabric_lib as fl  # noqa: E402

PROG = "pmi_test"       # in the image's /usr/bin (lib/lib.mk)


def run(*args, timeout=600):
    t0 = time.time()
    rc, out, err = fl.vg("run", *args, timeout=timeout)
    return rc, out, err, time.time() - t0


def passed(out, n):
    """'' when every rank of n printed its pass line and no failure."""
    return fl.ranks_passed(out, n, PROG)


def nothing_left(tap, what):
    """No pmi_test process in any guest."""
    rc, out, err = fl.vg("exec", "all", "--", "ps", timeout=300)
    left = [ln for ln in out.splitlines() if PROG in ln]
    tap.ok(rc == 0 and not left, f"{what}: no rank left running in any "
           "guest", out + err if rc else "\n".join(left))


def pmi_job(tap, n, ppn, nodes):
    args = ["-n", n] + (["--ppn", ppn] if ppn > 1 else [])
    rc, out, err, t = run(*args, PROG, "--expect-size", n, "--ppn", ppn)
    why = passed(out, n)
    tap.ok(rc == 0 and not why, f"run {' '.join(map(str, args))} {PROG}: "
           f"every rank passed ({t:.1f}s)",
           fl.job_details(rc == 0 and not why, f"exit {rc}: {why}\n{out}{err}"))

    # Each rank's environment, against its node's own sysfs.
    rc, out, err, t = run(*args, "--", "sh", "-c",
                          'echo "$PMI_RANK $PMI_SIZE $VGEMINI_NODE '
                          '$PMI_GNI_DEV_ID $PMI_GNI_LOC_ADDR '
                          '$(cat /sys/class/gni/kgni0/nic_address) '
                          '$PMI_GNI_PTAG $PMI_GNI_COOKIE $PMI_FD"')
    lines = fl.by_rank(out, n)
    bad = []
    creds = set()
    if rc != 0 or lines is None:
        bad.append(f"exit {rc}")
    else:
        for r in range(n):
            f = lines[r][0].split() if len(lines[r]) == 1 else []
            if len(f) != 9:
                bad.append(f"rank {r}: {lines[r]}")
                continue
            node = r // ppn
            if f[:4] != [str(r), str(n), str(node), "0"] or \
                    int(f[4]) != node << 2 or int(f[5], 16) != node << 2 \
                    or f[8] != "3":
                bad.append(f"rank {r}: {f}")
            creds.add((f[6], f[7]))
        if len(creds) != 1:
            bad.append(f"ptag/cookie differ between ranks: {creds}")
        else:
            ptag, cookie = map(int, creds.pop())
            if not 3 <= ptag <= 253 or not 0 < cookie < 1 << 32:
                bad.append(f"ptag {ptag} cookie {cookie}")
    tap.ok(not bad, f"run {' '.join(map(str, args))}: ranks {ppn} per node "
           f"on nodes 0..{nodes - 1}, PMI_GNI_LOC_ADDR = the node's "
           "nic_address, one ptag and cookie", "\n".join(bad) + "\n" + out +
           err)


def job_creds(err):
    """(ptag, cookie) of a job run with -v, from its stderr, or None."""
    m = re.search(r"ptag (\d+), cookie (0x[0-9a-f]+)", err)
    return (int(m.group(1)), int(m.group(2), 16)) if m else None


def attach_fails(tap, creds, what):
    """After the job of creds ended, its domain is released: attaching to
    it on node 0 fails with EPERM."""
    if creds is None:
        tap.ok(False, f"{what}: domain released", "no ptag/cookie (run -v)")
        return
    p, c = creds
    rc, out, err = fl.vg("exec", 0, "--", "kgni-job", "attach", p, c,
                         timeout=120)
    tap.ok(rc == 1 and "errno 1)" in err, f"{what}: kgni-job attach {p} "
           f"{c:#x} on node 0 fails with EPERM (domain released)",
           f"exit {rc}\n{out}{err}")


def domain_job(tap, n, ppn, nodes):
    """vgemini run configures the job's (ptag, cookie) in kgni on every
    node: each rank attaches a CDM with it and gets its node's PE."""
    rc, out, err = fl.vg("exec", "all", "--", "cat",
                         "/sys/class/gni/kgni0/nic_address", timeout=120)
    addr = {}
    for line in out.splitlines():
        m = re.fullmatch(r"\[(\d+)\] ((?:0x)?[0-9a-fA-F]+)", line.strip())
        if m:
            addr[int(m.group(1))] = int(m.group(2), 16)
    args = ["-n", n] + (["--ppn", ppn] if ppn > 1 else [])
    rc, out, err, t = run("-v", *args, "kgni-job", "attach")
    creds = job_creds(err)
    lines = fl.by_rank(out, n)
    bad = []
    if rc != 0 or lines is None or creds is None:
        bad.append(f"exit {rc}, creds {creds}")
    else:
        for r in range(n):
            node = r // ppn
            m = re.fullmatch(r"kgni-job: attached ptag (\d+) cookie "
                             r"(0x[0-9a-f]+) inst (\d+): pe (0x[0-9a-f]+)",
                             lines[r][0]) if len(lines[r]) == 1 else None
            if not m or (int(m.group(1)), int(m.group(2), 16)) != creds or \
                    int(m.group(3)) != r or node not in addr or \
                    int(m.group(4), 16) != addr[node]:
                bad.append(f"rank {r} (node {node}, nic_address "
                           f"{addr.get(node)}): {lines[r]}")
    tap.ok(not bad, f"run {' '.join(map(str, args))} kgni-job attach: every "
           f"rank attaches, PE = its node's nic_address ({t:.1f}s)",
           "\n".join(bad) + "\n" + out + err)
    attach_fails(tap, creds, "after the job")

    # A rank with a wrong cookie cannot attach; the others can.  Rank 1
    # fails only after rank 0 had time to attach and print: a failing rank
    # ends the job and kills the others.
    rc, out, err, t = run("-v", "-n", 2, "--", "sh", "-c",
                          'if [ "$PMI_RANK" = 1 ]; then sleep 4; exec kgni-job '
                          'attach "$PMI_GNI_PTAG" $((PMI_GNI_COOKIE ^ '
                          '0x10000)); else exec kgni-job attach; fi')
    tap.ok(rc == 1 and re.search(r"\[1\] kgni-job: attach .*errno 1\)",
                                 err) and
           "rank 1 (node " in err and "[0] kgni-job: attached" in out,
           f"a rank with a wrong cookie fails to attach (EPERM): run exits 1 "
           f"({t:.1f}s)", f"exit {rc}\n{out}{err}")

    # Knowing the pair is not enough, and a rank, not being root, cannot
    # leave the job's cgroup nor become another user (kgni's refusal of
    # both, with root's help, is isolation_test's who_may_attach).
    rc, out, err, t = run("-v", "-n", 2, "--", "sh", "-c",
                          'kgni-job attach || exit 9; '
                          '(echo 0 > /sys/fs/cgroup/cgroup.procs && '
                          'exec kgni-job attach); echo "outside:$?"; '
                          'cg=$(cut -d/ -f2 /proc/self/cgroup); '
                          'kgni-job run "$cg" 65534 -- kgni-job attach; '
                          'echo "otheruid:$?"')
    lines = fl.by_rank(out, 2)
    tap.ok(rc == 0 and lines is not None and
           all(lines[r][1:] == ["outside:1", "otheruid:127"]
               for r in range(2)) and "errno 1)" not in err,
           f"a rank cannot leave its job's cgroup or become another user "
           f"to attach ({t:.1f}s)", f"exit {rc}\n{out}{err}")

    # --alt-domain: a second domain, distinct in ptag and cookie, that
    # every rank can attach to as well, released with the job's own.
    rc, out, err, t = run("-v", *args, "--alt-domain", "--", "sh", "-c",
                          'exec kgni-job attach "$VGEMINI_ALT_PTAG" '
                          '"$VGEMINI_ALT_COOKIE"')
    creds = job_creds(err)
    m = re.search(r"alternate domain: ptag (\d+), cookie (0x[0-9a-f]+)", err)
    alt = (int(m.group(1)), int(m.group(2), 16)) if m else None
    tap.ok(rc == 0 and out.count("kgni-job: attached") == n and
           alt is not None and creds is not None and
           alt[0] != creds[0] and alt[1] != creds[1],
           f"run {' '.join(map(str, args))} --alt-domain: every rank "
           f"attaches to the alternate domain {alt}, distinct from the "
           f"job's {creds} ({t:.1f}s)", f"exit {rc}\n{out}{err}")
    attach_fails(tap, alt, "after the --alt-domain job, its alternate "
                 "domain")

    # Released on --timeout too (the clean-up path that kills the ranks).
    rc, out, err, t = run("-v", *args, "--timeout", 5, "--", "sh", "-c",
                          "kgni-job attach && exec sleep 1000")
    creds = job_creds(err)
    tap.ok(rc == 124 and out.count("kgni-job: attached") == n,
           f"--timeout 5 on attached ranks: exit 124 ({t:.1f}s)",
           f"exit {rc}\n{out}{err}")
    attach_fails(tap, creds, "after --timeout")


def test_2x2x2(tap, fab):
    if not fab.up(tap, "2x2x2"):
        return
    pmi_job(tap, 8, 1, 8)
    domain_job(tap, 8, 1, 8)

    rc, out, err, t = run("-n", 8, PROG, "--exit-rank", 5, "--exit-code", 3)
    tap.ok(rc == 3 and "rank 5 (node 5): exit status 3" in err,
           f"rank 5 exits with status 3: run exits 3 ({t:.1f}s)",
           f"exit {rc}\n{out}{err}")
    nothing_left(tap, "after a failed rank")

    rc, out, err, t = run("-n", 8, PROG, "--abort-rank", 2)
    tap.ok(rc == 7 and "rank 2 (node 2) called PMI_Abort(7)" in err,
           f"PMI_Abort(7) in rank 2: run exits 7 ({t:.1f}s)",
           f"exit {rc}\n{out}{err}")
    nothing_left(tap, "after PMI_Abort")

    rc, out, err, t = run("-n", 8, "--timeout", 6, PROG, "--sleep", 1000)
    tap.ok(rc == 124 and re.search(r"timed out after 6 s; still running: "
                                   r"ranks 0-7 \(nodes 0-7\)", err),
           f"--timeout 6 on sleeping ranks: exit 124, names them "
           f"({t:.1f}s)", f"exit {rc}\n{out}{err}")
    nothing_left(tap, "after --timeout")

    for args, what in ((["-n", 0], "-n 0"), (["-n", 9], "-n 9 > 8 nodes"),
                       (["-n", 17, "--ppn", 2], "-n 17 > 8 nodes x 2")):
        rc, out, err, t = run(*args, PROG)
        tap.ok(rc == 2 and "bad -n" in err, f"usage error: {what} (exit 2)",
               f"exit {rc}\n{out}{err}")


def test_2x1x1(tap, fab):
    if not fab.up(tap, "2x1x1"):
        return
    pmi_job(tap, 4, 2, 2)
    domain_job(tap, 4, 2, 2)
    rc, out, err, t = run("-n", 3, "--ppn", 2, PROG, "--expect-size", 3,
                          "--ppn", 2, "--barriers", 100)
    why = passed(out, 3)
    tap.ok(rc == 0 and not why, f"run -n 3 --ppn 2: cliques of 2 and 1, "
           f"100 barriers ({t:.1f}s)", f"exit {rc}: {why}\n{out}{err}")
    rc, out, err, t = run("-n", 5, "--ppn", 2, PROG)
    tap.ok(rc == 2 and "bad -n" in err, "usage error: -n 5 > 2 nodes x 2",
           f"exit {rc}\n{out}{err}")
    nothing_left(tap, "after the jobs")


TESTS = {"2x2x2": test_2x2x2, "2x1x1": test_2x1x1}


def main():
    dims = sys.argv[1:] or list(TESTS)
    for d in dims:
        if d not in TESTS:
            print(f"usage: jobs.py [{'|'.join(TESTS)}]...", file=sys.stderr)
            return 2

    def body(tap, fab):
        for i, d in enumerate(dims):
            if i:
                fab.down(tap)
            TESTS[d](tap, fab)
    fl.run_test("jobs", body)


if __name__ == "__main__":
    sys.exit(main())
