#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Run the launcher's unit tests (test_*.py next to this file) and print
TAP: one 'ok N - name' or 'not ok N - name' per test, the reason of a
failure as '#' lines, the plan ('1..N') at the end, and a last line
'# N passed, N failed, N skipped'.  Exit status 0 when nothing failed.

usage: run_tap.py [-v]     (-v: also print each test's own output)
"""

import os
import sys
import traceback
import unittest

HERE = os.path.dirname(os.path.realpath(__file__))
SCRIPTS = os.path.dirname(os.path.dirname(HERE))


class TapResult(unittest.TestResult):
    """Prints a TAP line as each test ends; the tests' own output is
    held back (buffer) and shown only with a failure."""

    def __init__(self, stream, verbose):
        super().__init__()
        self.stream = stream
        self.buffer = not verbose
        self.n = 0
        self.counts = {"passed": 0, "failed": 0, "skipped": 0}

    def line(self, text):
        self.stream.write(text + "\n")
        self.stream.flush()

    def name(self, test):
        return test.id().removeprefix("vgemini_launcher.tests.")

    def result(self, test, ok, directive="", why=None):
        self.n += 1
        self.line(f"{'ok' if ok else 'not ok'} {self.n} - {self.name(test)}"
                  + (f" # {directive}" if directive else ""))
        if why:
            for ln in why.rstrip("\n").splitlines():
                self.line(f"#   {ln}")

    def addSuccess(self, test):
        super().addSuccess(test)
        self.counts["passed"] += 1
        self.result(test, True)

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self.counts["failed"] += 1
        self.result(test, False, why=self.failures[-1][1])

    def addError(self, test, err):
        super().addError(test, err)
        self.counts["failed"] += 1
        self.result(test, False, why=self.errors[-1][1])

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self.counts["skipped"] += 1
        self.result(test, True, f"SKIP {reason}")

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self.counts["passed"] += 1
        self.result(test, True, "TODO expected failure")

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self.counts["failed"] += 1
        self.result(test, False, why="unexpected success")

    def addSubTest(self, test, subtest, err):
        super().addSubTest(test, subtest, err)
        if err is not None:
            # Reported as its own failed result; the test itself still
            # gets one line when it ends.
            self.counts["failed"] += 1
            self.result(subtest, False,
                        why="".join(traceback.format_exception(*err)))


def main(argv):
    verbose = "-v" in argv
    sys.path.insert(0, SCRIPTS)
    out = sys.stdout
    print("TAP version 13", flush=True)
    try:
        suite = unittest.defaultTestLoader.discover(HERE, pattern="test_*.py",
                                                    top_level_dir=SCRIPTS)
    except Exception:
        print("Bail out! cannot load the tests", flush=True)
        traceback.print_exc(file=out)
        return 1
    result = TapResult(out, verbose)
    suite.run(result)
    c = result.counts
    print(f"1..{result.n}", flush=True)
    print(f"# {c['passed']} passed, {c['failed']} failed, "
          f"{c['skipped']} skipped", flush=True)
    return 0 if c["failed"] == 0 and result.n > 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
