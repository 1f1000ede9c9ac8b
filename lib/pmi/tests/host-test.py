#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Host tests of libpmi and of the launcher's PMI server, no fabric
needed: the exported symbols and pkg-config module, pmi_test as a
singleton, and jobs of "vgemini run --local" (ranks on this host, through
vgemini-agent on pseudo-terminals): pmi_test under ASan and against
libpmi.so, a failing rank, PMI_Abort, --timeout, usage errors, the
environment, and a hand-written client (pmi_rank.py) that breaks the
protocol in every way the server must catch.  Prints TAP.

usage: host-test.py [LIB_OUT]     (default build/lib)
"""

import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.realpath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
VGEMINI = os.path.join(REPO, "scripts", "vgemini")
OUT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                      os.path.join(REPO, "build", "lib"))
ASAN = os.path.join(OUT, "tests", "pmi_test_asan")
DYN = os.path.join(OUT, "tests", "pmi_test_dyn")
STATIC = os.path.join(OUT, "guest", "usr", "bin", "pmi_test")
RANK_PY = os.path.join(HERE, "pmi_rank.py")
os.environ["VGEMINI_AGENT"] = os.path.join(OUT, "tests", "vgemini-agent")

sys.path.insert(0, os.path.join(REPO, "scripts", "tests"))
from tap import Tap  # noqa: E402

TAP = None


def ok(cond, name, diag=""):
    return TAP.ok(cond, name, diag)


def sh(argv, timeout=120, env=None):
    t0 = time.monotonic()
    try:
        p = subprocess.run(argv, capture_output=True, text=True,
                           timeout=timeout, stdin=subprocess.DEVNULL,
                           env=env)
        return p.returncode, p.stdout, p.stderr, time.monotonic() - t0
    except subprocess.TimeoutExpired as e:
        return 124, str(e.stdout), f"timed out after {timeout} s", timeout


def run(*args, timeout=120):
    return sh([VGEMINI, "run", "--local", *map(str, args)], timeout)


def rank_lines(out, n):
    """{rank: [lines]} of prefixed output; None if a line has no prefix."""
    by = {r: [] for r in range(n)}
    for line in out.splitlines():
        m = re.match(r"\[(\d+)\] (.*)", line)
        if not m or int(m.group(1)) not in by:
            return None
        by[int(m.group(1))].append(m.group(2))
    return by


def all_passed(out, n):
    by = rank_lines(out, n)
    if by is None:
        return False
    for r in range(n):
        if not any(re.fullmatch(rf"pmi_test: rank {r} of {n}: \d+ checks "
                                "passed", ln) for ln in by[r]):
            return False
        if any(ln.startswith("not ok") for ln in by[r]):
            return False
    return True


def procs_with(marker):
    found = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if marker in cmd:
            found.append(f"{d}: {cmd}")
    return found


def main():
    global TAP
    TAP = Tap(diag_lines=40)

    # --- the library as built -------------------------------------------
    so = os.path.join(OUT, "libpmi.so")
    rc, out, err, _ = sh(["nm", "-D", "--defined-only", so])
    syms = {}
    for ln in out.splitlines():
        name, _, ver = ln.split()[-1].partition("@@")
        if ln.split()[1] != "A":
            syms[name] = ver
    with open(os.path.join(HERE, "..", "libpmi.map")) as f:
        nodes = re.findall(r"^(PMI_[\d.]+) \{(.*?)\}", f.read(), re.M | re.S)
    want = {name: node for node, body in nodes
            for name in re.findall(r"^\s+(PMI2?_\w+);", body, re.M)}
    ok(rc == 0 and syms == want and
       set(want.values()) == {"PMI_1.0", "PMI_1.1", "PMI_1.2"},
       f"libpmi.so exports exactly the {len(want)} functions of "
       "libpmi.map, each with its version (PMI_1.0, PMI_1.1, PMI_1.2)",
       f"{out}{err}\nextra {sorted(set(syms) - set(want))} missing "
       f"{sorted(set(want) - set(syms))}")
    declared = set()
    for h in ("pmi.h", "pmi2.h", "pmi_cray.h"):
        with open(os.path.join(HERE, "..", h)) as f:
            declared |= set(re.findall(r"^int (PMI2?_\w+)\(", f.read(),
                                       re.M))
    ok(declared == set(want), f"libpmi.map == the functions of pmi.h, "
       f"pmi2.h and pmi_cray.h ({len(declared)})", f"header-only "
       f"{sorted(declared - set(want))} map-only "
       f"{sorted(set(want) - declared)}")
    rc, out, err, _ = sh(["objdump", "-p", so])
    ok(re.search(r"SONAME\s+libpmi\.so\.1\b", out), "soname libpmi.so.1",
       out + err)
    env = dict(os.environ, PKG_CONFIG_PATH=os.path.join(OUT, "pkgconfig"))
    rc, out, err, _ = sh(["pkg-config", "--cflags", "--libs", "cray-pmi"],
                         env=env)
    inc = re.search(r"-I(\S+)", out)
    ok(rc == 0 and inc and all(os.path.isfile(os.path.join(inc.group(1), h))
                               for h in ("pmi.h", "pmi2.h"))
       and "-lpmi" in out, f"pkg-config cray-pmi: {out.strip()}", err)
    for std in ("c99", "c11"):
        rc, o, e, _ = sh(["gcc", f"-std={std}", "-Wall", "-Wextra", "-Werror",
                          "-pedantic", "-fsyntax-only", "-I" + inc.group(1),
                          "-include", "pmi.h", "-include", "pmi2.h", "-x",
                          "c", "/dev/null"] if inc else ["false"])
        ok(rc == 0, f"pmi.h and pmi2.h together: gcc -std={std} -pedantic",
           o + e)

    # --- singleton ------------------------------------------------------
    clean = {k: v for k, v in os.environ.items() if not k.startswith("PMI_")}
    for prog in (ASAN, STATIC):
        for pmi2 in (0, 1):
            rc, out, err, _ = sh([prog, "--expect-size", "1", "--pmi2",
                                  str(pmi2)], env=clean)
            ok(rc == 0 and "pmi_test: rank 0 of 1:" in out and
               "not ok" not in out, f"{os.path.basename(prog)} as a "
               f"singleton{', PMI2_Init' if pmi2 else ''}", out + err)

    # --- jobs -------------------------------------------------------------
    rc, out, err, t = run("-n", 4, ASAN, "--expect-size", 4)
    ok(rc == 0 and all_passed(out, 4),
       f"run -n 4 pmi_test (ASan): every rank passed ({t:.1f}s)", out + err)
    rc, out, err, t = run("-n", 6, "--ppn", 4, DYN, "--expect-size", 6,
                          "--ppn", 4)
    ok(rc == 0 and all_passed(out, 6),
       f"run -n 6 --ppn 4 pmi_test (libpmi.so): cliques of 4 and 2 "
       f"({t:.1f}s)", out + err)
    rc, out, err, t = run("-n", 5, "--ppn", 5, STATIC, "--expect-size", 5,
                          "--ppn", 5, "--barriers", 200)
    ok(rc == 0 and all_passed(out, 5),
       f"run -n 5 --ppn 5 pmi_test (static): 200 barriers ({t:.1f}s)",
       out + err)
    rc, out, err, t = run("-n", 9, "--ppn", 4, ASAN, "--expect-size", 9,
                          "--ppn", 4, "--pmi2", 1)
    ok(rc == 0 and all_passed(out, 9),
       f"run -n 9 --ppn 4 pmi_test --pmi2 1 (ASan): PMI2_Init, mapping "
       f"(vector,(0,2,4),(2,1,1)), node attributes ({t:.1f}s)", out + err)
    rc, out, err, t = run("-n", 1, DYN, "--expect-size", 1, "--ppn", 1,
                          "--pmi2", 1)
    ok(rc == 0 and all_passed(out, 1),
       f"run -n 1 pmi_test --pmi2 1 (libpmi.so) ({t:.1f}s)", out + err)
    rc, out, err, t = run("-n", 3, "--ppn", 2, "--ptag", 77, "--cookie",
                          "0x12340000", "--", "sh", "-c",
                          'echo "$PMI_RANK $PMI_SIZE $PMI_GNI_PTAG '
                          '$PMI_GNI_COOKIE $PMI_GNI_DEV_ID $PMI_GNI_LOC_ADDR '
                          '$PMI_FD $PMI_LOCAL_RANK $PMI_LOCAL_SIZE"')
    by = rank_lines(out, 3)
    want = {0: "0 3 77 305397760 0 0 3 0 2", 1: "1 3 77 305397760 0 0 3 1 2",
            2: "2 3 77 305397760 0 4 3 0 1"}
    ok(rc == 0 and by == {r: [w] for r, w in want.items()},
       "each rank's environment: PMI_RANK, PMI_SIZE, PMI_GNI_* (decimal), "
       "PMI_FD, PMI_LOCAL_*", out + err)
    rc, out, err, t = run("-n", 2, "--", "sh", "-c",
                          'printf "out-$PMI_RANK\\nno newline"; '
                          'echo "err-$PMI_RANK" >&2')
    ok(rc == 0 and sorted(out.splitlines()) ==
       ["[0] no newline", "[0] out-0", "[1] no newline", "[1] out-1"] and
       sorted(err.splitlines()) == ["[0] err-0", "[1] err-1"],
       "stdout and stderr lines prefixed with the rank, on their own "
       "streams", out + err)

    # --- ends ---------------------------------------------------------------
    rc, out, err, t = run("-n", 4, ASAN, "--exit-rank", 2, "--exit-code", 3)
    ok(rc == 3 and "rank 2 (node 2): exit status 3" in err,
       f"a rank exiting with status 3: run exits 3 ({t:.1f}s)", out + err)
    rc, out, err, t = run("-n", 4, ASAN, "--abort-rank", 1)
    ok(rc == 7 and "rank 1 (node 1) called PMI_Abort(7): pmi_test: abort "
       "requested" in err, f"PMI_Abort(7): run exits 7 ({t:.1f}s)",
       out + err)
    rc, out, err, t = run("-n", 4, ASAN, "--pmi2", 1, "--abort-rank", 1)
    ok(rc == 7 and "rank 1 (node 1) called PMI_Abort(7): pmi_test: abort "
       "requested" in err, f"PMI2_Abort(7, ...), as Open MPI calls it: run "
       f"exits 7 ({t:.1f}s)", out + err)
    rc, out, err, t = run("-n", 3, "--timeout", 2, ASAN, "--sleep", 4242)
    left = procs_with("--sleep 4242")
    ok(rc == 124 and "timed out after 2 s; still running: ranks 0-2" in err
       and not left and t < 20,
       f"--timeout 2: exit 124, names the ranks, kills them ({t:.1f}s)",
       out + err + "\n".join(left))
    rc, out, err, t = run("-n", 2, "no-such-program-here")
    ok(rc == 127 and "cannot run 'no-such-program-here'" in err,
       "a program that does not exist: exit 127", out + err)
    rc, out, err, t = run("-n", 2, "--", "sh", "-c",
                          '[ "$PMI_RANK" = 1 ] && kill -TERM $$; sleep 30')
    ok(rc == 128 + 15 and t < 20,
       f"a rank killed by SIGTERM: exit 143, the other killed ({t:.1f}s)",
       out + err)

    # --- usage ---------------------------------------------------------------
    for args, what in ((["-n", 0, "true"], "-n 0"),
                       (["-n", 2, "--ppn", 0, "true"], "--ppn 0"),
                       (["-n", 2, "--ppn", 65, "true"], "--ppn 65"),
                       (["-n", 2, "--ptag", 254, "true"], "--ptag 254"),
                       (["-n", 2, "--cookie", "x", "true"], "--cookie x"),
                       (["-n", 2], "no program"),
                       (["-n", "many", "true"], "-n many")):
        rc, out, err, t = run(*args)
        ok(rc == 2 and err.strip(), f"usage error: {what}", out + err)

    # --- the PMI server against a hostile client ---------------------------
    rc, out, err, t = run("-n", 3, sys.executable, RANK_PY, "codes")
    ok(rc == 0, f"bad values answered with PMI error codes ({t:.1f}s)",
       out + err)
    for sc, n, msg in (
            ("bad-magic", 1, "PMI protocol error: bad frame header"),
            ("bad-flags", 1, "PMI protocol error: bad frame header"),
            ("bad-type", 1, "PMI protocol error: unknown request type 99"),
            ("oversize", 1, "PMI protocol error: request type 5 of 164 bytes"),
            ("huge", 1, "PMI protocol error: request type 6 of 4294967295"),
            ("huge-v", 1, "PMI protocol error: request type 8 of 65537 "
             "bytes"),
            ("node-put-mismatch", 1, "PMI protocol error: PUT of 11 bytes "
             "with key 1 and value 1"),
            ("mismatch-v", 2, "rank 1 called PMI_Allgatherv while rank 0 is "
             "in PMI_Allgather"),
            ("put-mismatch", 1, "PMI protocol error: PUT of 12 bytes"),
            ("wrong-rank", 2, "PMI protocol error: INIT as rank"),
            ("before-init", 1, "PMI protocol error: request type 3 before "
             "INIT"),
            ("second-init", 1, "PMI protocol error: a second INIT"),
            ("after-finalize", 1, "PMI protocol error: request type 3 after "
             "FINALIZE"),
            ("while-pending", 2, "PMI protocol error: request type 3 while "
             "in PMI_Barrier"),
            ("mismatch", 2, "rank 1 called PMI_Allgather while rank 0 is in "
             "PMI_Barrier"),
            ("exit-in-barrier", 2, "rank 1 ended while rank 0 waits in "
             "PMI_Barrier")):
        rc, out, err, t = run("-n", n, sys.executable, RANK_PY, sc)
        ok(rc == 1 and msg in err and t < 20,
           f"{sc}: the job ends with exit 1 ({t:.1f}s)", out + err)
    left = procs_with(RANK_PY)
    ok(not left, "no rank left running", "\n".join(left))

    return TAP.finish()


if __name__ == "__main__":
    sys.exit(main())
