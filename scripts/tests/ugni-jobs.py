#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Host-side uGNI job tests: the programs of selftests/ugni/ (written
against gni_pub.h and pmi.h only, in the image's /usr/bin) run as jobs
with "vgemini run" on a 2x2x2 torus of its own (384 MiB a node):

  ugni_putget     -n 2, -n 8: PUT/GET of 1..64 bytes at unaligned offsets
                  between every ordered pair, byte for byte; unaligned
                  GETs refused
  ugni_amo        -n 8, and -n 16 --ppn 2: every Gemini AMO's result; 8
                  (16) ranks hammering one word with FADD and CSWAP
  ugni_cq         -n 8: local and remote events, GNI_EpSetEventData,
                  GNI_PostCqWrite, CQ overrun, blocking CQ
  ugni_isolation  -n 2 --alt-domain: deregistered, forged, out-of-bounds
                  and read-only handles, another domain's CDM
  ugni_memcalls   -n 2: GNI_GetNttGran; GNI_SetMddResources and
                  registrations at a vMDH index; rank 0 PUTs (FMA and
                  RDMA) into and GETs from rank 1's buffer through a
                  handle GNI_RebuildMemHndl made from its own, no handle
                  exchanged, byte for byte, and a wrong index ends in an
                  error event; GNI_MemQueryHndls walks each rank's
                  registrations; the refusals of all four
  ugni_suspend    -n 2: GNI_SuspendJob, GNI_ResumeJob and the launcher's
                  GNI_Configure* refused to a rank (PERMISSION_ERROR);
                  GNI_CdmCheckpoint and
                  GNI_CdmResume: the job's CDM works again after them
                  (an FMA PUT and GET byte for byte), a checkpointed
                  CDM's endpoint, CQ and CDM are freed without a system
                  call on its file
  ugni_bi         -n 2: balanced injection as NAMD sets it: the default,
                  20 percent, 4 ORB entries under 64 KiB FMA PUTs and
                  GETs checked byte for byte, the refusals, the default
                  again
  ugni_errors     -n 2: GNI_SubscribeErrors and the calls on its
                  handle: masks, nothing pending (NOT_DONE, a wait ended
                  by a signal), the refusals (another ptag's, every
                  ptag's: PERMISSION_ERROR); RDMA PUTs into a peer's
                  deregistered handle are TRANSACTION events of the job's
                  ptag (GNI_GetErrorEvent, GNI_WaitErrorEvents with its
                  coalescing TIMEOUT), masked no more; the peer sees none
  ugni_nosys      -n 2: PUT, GET, AMOs, CQ write, CQ polling, an SMSG
                  and a MSGQ round trip from a process in seccomp's
                  strict mode (a system call kills it)
  ugni_rdma       -n 8: RDMA (BTE) PUT and GET between pairs: sizes 1 B
                  .. 1 MiB byte for byte, every cq_mode, alignment
                  errors, segmented registrations, a deregistered
                  target, FENCE, ERROR_RESOURCE; every ordered pair
                  around the powers of two; 4 KiB .. 64 MiB to a
                  neighbour and 3 hops away, and 64 MiB unaligned; a
                  local buffer registered through another CDM
  ugni_udreg      -n 2: Cray's registration cache (cray-udreg) over
                  GNI_MemRegister: PUTs from a cached handle, a hit, lazy
                  deregistration; the buffer unmapped and mapped again at
                  the same address: a new registration, the new bytes
                  arrive; UDREG_Evict leaves no registration
  ugni_cdms       -n 2, -n 8: two CDMs per process on the job's ptag and
                  cookie (Open MPI's and UCX's instance ids), each with
                  its own CQs, mailboxes and endpoints connected by its
                  own datagrams, running SMSG, FMA PUT with remote
                  events, RDMA PUT and FMA GET to the next rank's
                  matching CDM at once: no event, message or byte
                  crosses over
  ugni_dgram      -n 8: datagrams: connection set-up between every
                  ordered pair, bound to bound 0..128 bytes, bound to a
                  wildcard found by probing, a datagram there before its
                  target's post, cancel, timeouts, to oneself, a wrong
                  inst_id, a too small buffer, the library's refusals
  ugni_smsg       -n 8: SMSG in the four mailbox shapes clients use
                  (32 x 8192, 8 x 2048, 128 x 1024, 256 x 2048):
                  ping-pong of every size with a neighbour, across 3
                  hops, seven ranks streaming to one past their credits,
                  remote and local events; a broken connection (the
                  peer's mailboxes deregistered: TRANSACTION_ERROR after
                  the retransmissions, then INVALID_STATE); then the
                  stream again with 10% of the packets corrupted on the
                  links of its path, and with both links down mid-stream
  ugni_ring       -n 2, 4, 8: each rank's PMI_Get_nid (its node's Gemini
                  id), rca_get_meshcoord and rca_get_max_dimension
                  against kgni's sysfs; then an SMSG ring (each rank one
                  24-byte message to the next per round, its local
                  event, the message from the one before, a PMI
                  barrier), every message checked; the round time as a
                  note
  ugni_msgq       -n 4 --ppn 2, -n 8 --ppn 2: the shared message queue
                  (MSGQ) on 2 and 4 nodes: the
                  lowest rank of each node connects it by datagrams;
                  every rank to every rank of the other node, 0..128
                  bytes byte for byte, in order, once, with local events;
                  a full queue (NOT_DONE), blocking Progress, a callback
                  stopping Progress, the refusals, GNI_MsgqSize, and
                  PERMISSION_ERROR in a mount namespace without hugetlbfs;
                  then 1500 messages to each with both links between
                  nodes 0 and 1 down mid-stream (failed sequences sent
                  again)
  ugni_bw         -n 2: RDMA bandwidth of 4 MiB and the FMA/RDMA
                  crossover (notes, not checked; the data is)
  ugni_bench      -n 2: 8-byte PUT latency and issue rate (printed as
                  "# bench: ..." notes, not checked)

Each job passes when every rank printed its "<prog>: rank R of N: K
checks passed" line and no "not ok" line, and "vgemini run" exits 0; a
failed job's diagnostics end with every guest's recent kernel log (its
OOM, kill, BUG and WARNING lines, and its tail).
Afterwards: the job's alternate domain is released, no ugni_* process is
left in any guest.  Always tears the fabric down.  Prints TAP.

usage: ugni-jobs.py [--quick]     (--quick: fewer sizes and counts)
"""

import json
import os
import re
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import fabric_lib as fl  # noqa: E402

JOB_TIMEOUT = 300       # vgemini run --timeout, per job


def failures(out, n, prog):
    """'' when every rank of n printed its pass line and no failure; else
    why not, with the failing lines."""
    lines = fl.by_rank(out, n)
    if lines is None:
        return "a line without a valid [rank] prefix"
    why = []
    for r in range(n):
        if not any(re.fullmatch(rf"{prog}: rank {r} of {n}: \d+ checks "
                                "passed", ln) for ln in lines[r]):
            why.append(f"rank {r} did not pass")
        bad = [i for i, ln in enumerate(lines[r])
               if ln.startswith("not ok") or ln.startswith("# bail out")]
        for i in bad[:5]:
            why.append(f"[{r}] {lines[r][i]}")
            # the diagnostics just before the failed check
            for d in lines[r][max(0, i - 3):i]:
                if d.startswith("#"):
                    why.append(f"[{r}]   {d}")
    return "\n".join(why)


def counts(out):
    """(checks passed, checks failed) over every rank's TAP lines."""
    ok = len(re.findall(r"^\[\d+\] ok \d+ ", out, re.M))
    nok = len(re.findall(r"^\[\d+\] not ok \d+ ", out, re.M))
    return ok, nok


def job(tap, n, prog, *prog_args, ppn=1, launcher=()):
    args = ["-n", n] + (["--ppn", ppn] if ppn > 1 else []) + list(launcher)
    t0 = time.time()
    rc, out, err = fl.vg("run", *args, "--timeout", JOB_TIMEOUT, prog,
                         *prog_args, timeout=JOB_TIMEOUT + 120)
    t = time.time() - t0
    why = failures(out, n, prog)
    ok, nok = counts(out)
    # A failure names its first failed check in the line itself: CI
    # summaries keep only the lines of the failed tests.
    first = f" [first: {why.splitlines()[0][:200]}]" if why else ""
    passed = rc == 0 and not why
    # A rank killed (by the OOM killer?) says why only in its guest's
    # kernel log: a failure shows every guest's.
    tap.ok(passed,
           f"run {' '.join(map(str, args))} {prog} "
           f"{' '.join(map(str, prog_args))}".rstrip() +
           f": every rank passed, {ok} checks ok, {nok} not ok ({t:.1f}s)"
           + first,
           "" if passed else fl.job_details(
               False, f"exit {rc}\n{why}\n--- stderr:\n{err[-3000:]}"))
    return rc, out, err


def alt_creds(err):
    """The alternate (ptag, cookie) of a job run with -v, or None."""
    m = re.search(r"alternate domain: ptag (\d+), cookie (0x[0-9a-f]+)",
                  err)
    return (int(m.group(1)), int(m.group(2), 16)) if m else None


def released(tap, creds, what):
    """After the job, attaching to creds on node 0 fails with EPERM."""
    if creds is None:
        tap.ok(False, f"{what}: released", "no alternate ptag/cookie in "
               "the -v output")
        return
    p, c = creds
    rc, out, err = fl.vg("exec", 0, "--", "kgni-job", "attach", p, c,
                         timeout=120)
    tap.ok(rc == 1 and "errno 1)" in err, f"{what}: kgni-job attach {p} "
           f"{c:#x} on node 0 fails with EPERM (released)",
           f"exit {rc}\n{out}{err}")


def fma_counters():
    """{node: the device's fma counters}, or None if they cannot be read."""
    rc, out, err = fl.vg("counters", "--json", timeout=300)
    try:
        nodes = json.loads(out)["nodes"]
        return {n: c["fma"] for n, c in nodes.items()}
    except (ValueError, KeyError, TypeError):
        return None


def nothing_left(tap):
    rc, out, err = fl.vg("exec", "all", "--", "ps", timeout=300)
    left = [ln for ln in out.splitlines() if "ugni_" in ln]
    tap.ok(rc == 0 and not left, "no ugni_* process left in any guest",
           out + err if rc else "\n".join(left))


def bench_notes(tap, out):
    """Rank 0's "bench:" lines, as TAP notes."""
    for line in out.splitlines():
        m = re.match(r"\[0\] bench: (.*)$", line)
        if m:
            tap.note(f"bench: {m.group(1)}")


# The links between nodes 0 and 1, both ways: on every path to rank 0
# from rank 1, and of rank 0's credit returns and answers
SMSG_FAULT_LINKS = [(0, "X+"), (0, "X-"), (1, "X+"), (1, "X-")]


def smsg_corrupted(tap):
    """ugni_smsg --stream-only with 10% of the packets of those links
    corrupted: the link's retry hides it, every message arrives once, in
    order, whole."""
    ok = True
    for node, port in SMSG_FAULT_LINKS:
        rc, out, err = fl.vg("fault", node, port, "corrupt=0.1", timeout=120)
        ok = ok and rc == 0
    tap.ok(ok, "corrupt=0.1 on both links between nodes 0 and 1, "
           "both ways")
    before = link_errors()
    try:
        job(tap, 8, "ugni_smsg", "--stream-only")
    finally:
        for node, port in SMSG_FAULT_LINKS:
            fl.vg("fault", node, port, "none", timeout=120)
    after = link_errors()
    tap.ok(before is not None and after is not None and after > before,
           f"the links corrupted packets on the way: CRC errors on nodes "
           f"0 and 1 went from {before} to {after}")


# link_down(): the links go down this far into the job, and stay down at
# least this long (the supervisor routes around them within about 7 s).
LINK_DOWN_AFTER_S = 3
LINK_DOWN_HOLD_S = 10


def link_down(tap, prog, *prog_args, ppn=1):
    """PROG (8 ranks) while both links between nodes 0 and 1 go down in
    the middle of its stream: the supervisor reroutes, messages caught on
    the dead links are sent again (SMSG's MBOX_AUTO_RETRANSMIT, MSGQ's
    failed sequences), and every one still arrives once, in order, whole."""
    result = {}

    def run():
        result["r"] = job(tap, 8, prog, *prog_args, ppn=ppn)

    gen0 = routing_generation()
    t0 = time.time()
    t = threading.Thread(target=run)
    t.start()
    # Into the stream, past the job's start; the stream is long enough
    # to be running then at any speed so far (4-18 s for ugni_smsg's 60
    # rounds, 29-63 s for ugni_msgq's 1500 messages).
    time.sleep(LINK_DOWN_AFTER_S)
    downs = [fl.vg("fault", 1, port, "down=1", timeout=120)[0]
             for port in ("X+", "X-")]
    running = t.is_alive()
    into = time.time() - t0
    t.join()
    # Down long enough for the supervisor to route around them, however
    # soon the job ends.
    time.sleep(max(0.0, LINK_DOWN_HOLD_S - (time.time() - t0 - into)))
    for port in ("X+", "X-"):
        fl.vg("fault", 1, port, "none", timeout=120)
    tap.ok(downs == [0, 0] and running, f"{prog}: both links between "
           f"nodes 0 and 1 went down during the stream ({into:.1f}s into "
           "the job)", "" if running else "the job had ended by then")
    # The supervisor routes around them, then back once they are up: the
    # next jobs need the routes settled (a reroute quiesces the routers).
    t0 = time.time()
    while time.time() - t0 < 120 and routing_generation() < gen0 + 2:
        time.sleep(1)
    tap.ok(routing_generation() >= gen0 + 2, f"{prog}: the supervisor "
           f"rerouted around the links and back ({time.time() - t0:.0f}s "
           "after they came back)")
    out = result.get("r", (1, "", ""))[1]
    again = sum(int(n) for n in re.findall(
        r"sent again.*\(GNI_STAT_SMSG_RETRANS_COUNT\): (\d+)", out))
    tap.note(f"{prog}: messages sent again after the links went down: "
             f"{again}")


def routing_generation():
    """The routing tables' generation, once loaded everywhere; else -1."""
    rc, out, err = fl.vg("status", "--json", timeout=300)
    try:
        r = json.loads(out).get("routing") or {}
    except ValueError:
        return -1
    if not r.get("loaded") or r.get("failed"):
        return -1
    return r.get("generation") or 0


def link_errors():
    """CRC errors counted by the ports of nodes 0 and 1, or None."""
    rc, out, err = fl.vg("counters", "--json", timeout=300)
    try:
        nodes = json.loads(out)["nodes"]
        return sum(p["crc_err"] for n in ("0", "1")
                   for p in nodes[n]["ports"].values())
    except (ValueError, KeyError, TypeError):
        return None


def body(tap, fab, quick):
    # ugni_rdma pins 128 MiB of a guest whose root file system (every
    # test program) also lives in RAM: 256 MiB is too tight.
    if not fab.up(tap, "2x2x2", extra=("--mem", "384M")):
        return
    sizes = ["--sizes", 16, "--offsets", 3] if quick else []
    count = ["--count", 50] if quick else []

    job(tap, 2, "ugni_putget", *sizes)
    job(tap, 8, "ugni_putget", *sizes)
    job(tap, 8, "ugni_amo", *count)
    job(tap, 16, "ugni_amo", *(count or ["--count", 100]), ppn=2)
    job(tap, 8, "ugni_cq")
    rc, out, err = job(tap, 2, "ugni_isolation",
                       launcher=["--alt-domain", "-v"])
    released(tap, alt_creds(err), "the isolation job's alternate domain")
    job(tap, 2, "ugni_memcalls")
    job(tap, 2, "ugni_errors")
    job(tap, 2, "ugni_suspend")
    job(tap, 2, "ugni_bi")
    job(tap, 2, "ugni_nosys")
    job(tap, 8, "ugni_rdma")
    job(tap, 2, "ugni_udreg")
    job(tap, 2, "ugni_cdms", "--rounds", 20 if quick else 100)
    job(tap, 8, "ugni_cdms", "--rounds", 10 if quick else 40)
    job(tap, 8, "ugni_dgram")
    job(tap, 8, "ugni_smsg")
    smsg_corrupted(tap)
    link_down(tap, "ugni_smsg", "--stream-only", 60)
    for n in (2, 4, 8):
        rc, out, err = job(tap, n, "ugni_ring", "--rounds",
                           50 if quick else 200)
        bench_notes(tap, out)
    job(tap, 4, "ugni_msgq", *count, ppn=2)
    job(tap, 8, "ugni_msgq", *count, ppn=2)
    link_down(tap, "ugni_msgq", "--count", 1500, ppn=2)
    rc, out, err = job(tap, 2, "ugni_bw", "--reps", 1 if quick else 2)
    bench_notes(tap, out)
    before = fma_counters()
    rc, out, err = job(tap, 2, "ugni_bench")
    after = fma_counters()
    refused = {n: after[n]["priv_refused"] - before[n]["priv_refused"]
               for n in after if n in before} if before and after else None
    tap.ok(refused is not None and not any(refused.values()),
           "ugni_bench: no FMA register write of libugni's is refused "
           "(priv_refused unchanged on every node)", f"{refused}")
    bench_notes(tap, out)
    nothing_left(tap)


def main():
    quick = "--quick" in sys.argv[1:]
    if [a for a in sys.argv[1:] if a != "--quick"]:
        print("usage: ugni-jobs.py [--quick]", file=sys.stderr)
        return 2
    fl.run_test("ugni-jobs", lambda tap, fab: body(tap, fab, quick))


if __name__ == "__main__":
    sys.exit(main())
