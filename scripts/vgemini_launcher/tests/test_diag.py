# SPDX-License-Identifier: GPL-2.0-only
"""Diagnostic pings: paths, times and the lines 'vgemini ping' prints."""

import argparse
import unittest

from vgemini_launcher import diag
from vgemini_launcher.common import EXIT_USAGE, Failure


class Fab:
    def __init__(self, dims):
        self.dims = dims

    def topology(self):
        return {"dims": self.dims}


def rec(node, out, d="req"):
    return {"node": node, "out": out, "dir": d}


class Paths(unittest.TestCase):
    dims = [3, 2, 1]

    def test_a_path_that_follows_the_ports(self):
        recs = [rec(0, "X+"), rec(1, "Y+")]
        self.assertEqual(diag.render_path(recs, 0, 2, self.dims),
                         "0(0,0,0) -X+-> 1(1,0,0) -Y+-> 4(1,1,0)")

    def test_marks(self):
        # A record that does not follow from the one before.
        self.assertEqual(diag.render_path([rec(0, "X+"), rec(2, "Y+")], 0,
                                          2, self.dims),
                         "0(0,0,0) -X+-> ?2(2,0,0) -Y+-> 5(2,1,0)")
        # Not starting where the ping started; shorter than its hops.
        self.assertEqual(diag.render_path([rec(1, "X-")], 0, 3, self.dims),
                         "? 1(1,0,0) -X--> 0(0,0,0) ...")
        self.assertEqual(diag.render_path([rec(1, "Q")], 1, 1, self.dims),
                         "1(1,0,0) -Q-> ?")

    def test_no_records(self):
        self.assertEqual(diag.render_path([], 3, 0, self.dims), "3(0,1,0)")
        self.assertEqual(diag.render_path([], 3, 2, self.dims),
                         "(no path recorded)")

    def test_path_records_by_direction(self):
        r = {"path": [rec(0, "X+", "req"), "junk", rec(1, "X-", "rsp")]}
        self.assertEqual(diag.path_records(r, "rsp"), [rec(1, "X-", "rsp")])
        self.assertEqual(diag.path_records({}, "req"), [])


class Lines(unittest.TestCase):
    def test_fmt_us(self):
        self.assertEqual(diag.fmt_us(12345), "12.3")
        self.assertEqual(diag.fmt_us(999.0), "1.0")
        self.assertEqual(diag.fmt_us(None), "?")
        self.assertEqual(diag.fmt_us(True), "?")

    def test_answered(self):
        ok = {"state": "done", "ok": 3, "failed": 0}
        self.assertTrue(diag.ping_answered(ok, 3))
        self.assertFalse(diag.ping_answered(ok, 4))
        self.assertFalse(diag.ping_answered(dict(ok, failed=1), 3))
        self.assertFalse(diag.ping_answered(dict(ok, error="x"), 3))
        self.assertFalse(diag.ping_answered(dict(ok, state="error"), 3))

    def test_one_ping(self):
        r = {"state": "done", "ok": 1, "failed": 0, "hops": [1, 1],
             "rtt_ns": 25300, "path": [rec(0, "X+"), rec(1, "X-", "rsp")]}
        self.assertEqual(diag.ping_lines(Fab([2, 1, 1]), 0, 1, 64, 1, r),
                         ["0(0,0,0) -> 1(1,0,0), 64 bytes: 1 hop there, "
                          "1 back, rtt 25.3 us",
                          "  there: 0(0,0,0) -X+-> 1(1,0,0)",
                          "  back:  1(1,0,0) -X--> 0(0,0,0)"])

    def test_no_answer(self):
        r = {"state": "error", "error": "timed out"}
        self.assertEqual(diag.ping_lines(Fab([2, 1, 1]), 0, 1, 8, 1, r),
                         ["0(0,0,0) -> 1(1,0,0), 8 bytes: no answer "
                          "(timed out)"])

    def test_burst(self):
        r = {"state": "done", "ok": 2, "failed": 1, "done": 3,
             "error": "1 lost", "hops": [2, 0], "rtt_ns_min": 1000,
             "rtt_ns_avg": 1500, "rtt_ns_max": 2000}
        lines = diag.ping_lines(Fab([4, 1, 1]), 0, 2, 0, 5, r)
        self.assertEqual(lines[0], "0(0,0,0) -> 2(2,0,0), 0 bytes x 5: 2 "
                         "answered, 1 failed (1 lost), stopped after 3; "
                         "last: 2 hops there, 0 back; rtt min/avg/max "
                         "1.0/1.5/2.0 us")
        self.assertEqual(lines[1:], ["  there: (no path recorded)",
                                     "  back:  2(2,0,0)"])

    def test_timeout_grows_with_the_count(self):
        self.assertEqual(diag.ping_timeout(1), 32.5)
        self.assertEqual(diag.ping_timeout(10), 55.0)

    def test_argument_limits(self):
        ok = argparse.Namespace(len=64, count=1)
        diag.check_ping_args(ok)
        for a, msg in (({"len": 65}, "--len 65: 0 to 64 bytes"),
                       ({"len": -1}, "--len -1: 0 to 64 bytes"),
                       ({"count": 0}, "--count 0: 1 to 1000000"),
                       ({"count": 1000001}, "--count 1000001: 1 to 1000000")):
            with self.assertRaises(Failure) as cm:
                diag.check_ping_args(argparse.Namespace(**dict(vars(ok),
                                                               **a)))
            self.assertEqual((str(cm.exception), cm.exception.code),
                             (msg, EXIT_USAGE))
