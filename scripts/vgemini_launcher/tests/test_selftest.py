# SPDX-License-Identifier: GPL-2.0-only
"""Counting a selftest's TAP output."""

import unittest

from vgemini_launcher.agent import HOW_EXITED, HOW_SIGNALED, HOW_TIMEOUT
from vgemini_launcher.selftest import KSFT_SKIP, tap_count


class TapCount(unittest.TestCase):
    def test_results_and_directives(self):
        text = ("TAP version 13\n1..5\nok 1 - a\nnot ok 2 - b\n"
                "ok 3 - c # SKIP no device\nnot ok 4 - d # TODO later\n"
                "not ok 5 - e # XFAIL\n# a comment\n")
        self.assertEqual(tap_count(text, HOW_EXITED, 1),
                         (2, 2, 1, ["exit status 1"]))

    def test_all_passed(self):
        self.assertEqual(tap_count("1..2\nok 1\nok 2 - x\n", HOW_EXITED, 0),
                         (2, 0, 0, []))

    def test_missing_results_fail(self):
        self.assertEqual(tap_count("1..3\nok 1\nok 2\n", HOW_EXITED, 0),
                         (2, 1, 0, ["1 of 3 results missing"]))

    def test_bad_exit_counts_once(self):
        self.assertEqual(tap_count("ok 1\n", HOW_SIGNALED, 11),
                         (1, 1, 0, ["killed by signal 11"]))
        self.assertEqual(tap_count("not ok 1\n", HOW_EXITED, 1),
                         (0, 1, 0, ["exit status 1"]))

    def test_skip_exit_status_is_fine(self):
        self.assertEqual(tap_count("ok 1 # SKIP x\n", HOW_EXITED, KSFT_SKIP),
                         (0, 0, 1, []))

    def test_no_tap(self):
        self.assertEqual(tap_count("hello\n", HOW_EXITED, 0), (1, 0, 0, []))
        self.assertEqual(tap_count("", HOW_EXITED, KSFT_SKIP), (0, 0, 1, []))
        self.assertEqual(tap_count("", HOW_EXITED, 2),
                         (0, 1, 0, ["exit status 2"]))

    def test_no_answer_and_timeout(self):
        self.assertEqual(tap_count("", None, "node is down"),
                         (0, 1, 0, ["no answer: node is down"]))
        self.assertEqual(tap_count("ok 1\n", HOW_TIMEOUT, 9),
                         (1, 1, 0, ["timed out"]))

    def test_only_the_first_plan_counts(self):
        self.assertEqual(tap_count("1..1\nok 1\n1..5\n", HOW_EXITED, 0),
                         (1, 0, 0, []))
