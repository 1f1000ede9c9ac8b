# SPDX-License-Identifier: GPL-2.0-only
"""'vgemini selftest': run the guests' kselftests on every node and
count their TAP results.
"""

import re
import sys

from .common import EXIT_FAIL, EXIT_OK, Failure, LinePrinter, parallel, warn
from .agent import HOW_EXITED, HOW_TIMEOUT, AgentError, describe
from .fabric import Fabric


TAP_RESULT = re.compile(r"^(not ok|ok)\b\s*(\d+)?\s*-?\s*([^#]*?)\s*"
                        r"(?:#\s*(\w+)\b\s*(.*))?$")
TAP_PLAN = re.compile(r"^1\.\.(\d+)")
KSFT_SKIP = 4


def tap_count(text, how, val):
    """(passed, failed, skipped, notes) for one test binary's output."""
    passed = failed = skipped = 0
    plan = None
    results = 0
    notes = []
    for line in text.splitlines():
        m = TAP_PLAN.match(line)
        if m and plan is None:
            plan = int(m.group(1))
            continue
        m = TAP_RESULT.match(line)
        if not m:
            continue
        results += 1
        ok = m.group(1) == "ok"
        directive = (m.group(4) or "").upper()
        if directive == "SKIP":
            skipped += 1
        elif directive in ("TODO", "XFAIL"):
            passed += 1 if ok or directive == "TODO" else 0
            failed += 0 if ok or directive == "TODO" else 1
        elif ok:
            passed += 1
        else:
            failed += 1
    if how is None:
        notes.append(f"no answer: {val}")
        failed += 1
    elif how == HOW_TIMEOUT:
        notes.append("timed out")
        failed += 1
    elif results == 0:
        if how == HOW_EXITED and val == 0:
            passed += 1
        elif how == HOW_EXITED and val == KSFT_SKIP:
            skipped += 1
        else:
            failed += 1
            notes.append(describe(how, val))
    else:
        if plan is not None and results < plan:
            failed += plan - results
            notes.append(f"{plan - results} of {plan} results missing")
        if not (how == HOW_EXITED and val in (0, KSFT_SKIP)):
            notes.append(describe(how, val))
            if failed == 0:
                failed += 1
    return passed, failed, skipped, notes


def cmd_selftest(args):
    fab = Fabric(args.fabric)
    topo = fab.topology()
    nodes = list(range(len(topo["nodes"])))
    out = sys.stdout.buffer
    tests = selftest_list(fab, args.tests, args.connect_timeout)

    totals = [0, 0, 0]
    tap = []        # (node, test, ok, output)
    bad_nodes = set()
    for t in tests:
        print(f"# selftest {t} on {len(nodes)} node"
              f"{'s' if len(nodes) > 1 else ''}", flush=True)

        def run(n):
            buf = []
            pr = LinePrinter(f"[{n}] ", out)

            def both(d):
                buf.append(d)
                if args.verbose:
                    pr(d)
            try:
                with fab.agent(n, args.connect_timeout) as a:
                    how, val = a.run(["/bin/sh", "-c",
                                      f"cd /selftests && exec ./{t} 2>&1"],
                                     timeout=args.timeout,
                                     on_stdout=both, on_stderr=both)
            except AgentError as e:
                how, val = None, str(e)
            pr.flush()
            return n, how, val, b"".join(buf).decode(errors="replace")

        results = parallel(run, nodes)
        for n, how, val, text in results:
            if not args.verbose:
                for line in text.splitlines():
                    out.write(f"[{n}] {line}\n".encode())
            p, f, s, notes = tap_count(text, how, val)
            if how is None:
                bad_nodes.add(n)
            for note in notes:
                out.write(f"[{n}] # {t}: {note}\n".encode())
            totals[0] += p
            totals[1] += f
            totals[2] += s
            tap.append((n, t, f == 0, p, f, s, notes, text))
            out.write(f"[{n}] # {t}: {p} passed, {f} failed, {s} skipped\n"
                      .encode())
        out.flush()

    if args.tap:
        write_tap(args.tap, tap)
    print(f"{totals[0]} passed, {totals[1]} failed, {totals[2]} skipped "
          f"({len(tests)} test program{'s' if len(tests) > 1 else ''} on "
          f"{len(nodes)} node{'s' if len(nodes) > 1 else ''})", flush=True)
    if bad_nodes:
        warn("nodes that did not answer: " +
             ", ".join(map(str, sorted(bad_nodes))))
    return EXIT_OK if totals[1] == 0 and not bad_nodes else EXIT_FAIL


def selftest_list(fab, wanted, connect_timeout):
    """The test programs to run: wanted (each checked), or every one in
    node 0's /selftests."""
    # The test list, from node 0's /selftests.
    listing = []
    try:
        with fab.agent(0, connect_timeout) as a:
            how, val = a.run(["/bin/sh", "-c",
                              'cd /selftests 2>/dev/null || exit 0; '
                              'for f in *; do [ -f "$f" ] && [ -x "$f" ] && '
                              'echo "$f"; done'],
                             timeout=60, on_stdout=listing.append)
    except AgentError as e:
        raise Failure(f"node 0: {e}")
    tests = b"".join(listing).decode().split()
    if wanted:
        missing = [t for t in wanted if t not in tests]
        if missing:
            raise Failure("no such selftest: " + ", ".join(missing))
        tests = wanted
    if not tests:
        raise Failure("no selftests in the guests' /selftests (was the image "
                      "built with SELFTESTS_DIR?)")
    return tests


def write_tap(path, tap):
    """The TAP report of --tap: one result per (node, test program), with
    the program's output as a subtest."""
    with open(path, "w") as f:
        f.write("TAP version 13\n")
        f.write(f"1..{len(tap)}\n")
        for i, (n, t, ok, p, fl, s, notes, text) in enumerate(tap, 1):
            f.write(f"# node {n} {t}: {p} passed, {fl} failed, "
                    f"{s} skipped\n")
            f.write(f"    # Subtest: node{n}/{t}\n")
            for line in text.splitlines():
                f.write(f"    {line}\n")
            for note in notes:
                f.write(f"    # {note}\n")
            skip = " # SKIP" if ok and p == 0 and s > 0 else ""
            f.write(f"{'ok' if ok else 'not ok'} {i} node{n}/{t}{skip}\n")
