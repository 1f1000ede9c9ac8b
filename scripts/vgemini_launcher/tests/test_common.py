# SPDX-License-Identifier: GPL-2.0-only
"""Small shared helpers: C #defines, prefixed output, threads, tail."""

import io
import os
import threading
import unittest

from vgemini_launcher import common
from vgemini_launcher.common import Failure

from .helpers import REPO, ScratchTest


class Defines(ScratchTest):
    def test_file_define(self):
        h = os.path.join(self.tmp, "x.h")
        with open(h, "w") as f:
            f.write("#define A 12\n#define B\t0x1Fu /* c */\n"
                    "#define C -3L\n#define AB 7\n  #define D 1\n"
                    "#define E (1 << 3)\n")
        self.assertEqual(common.file_define(h, "A"), 12)
        self.assertEqual(common.file_define(h, "B"), 31)
        self.assertEqual(common.file_define(h, "C"), -3)
        self.assertEqual(common.file_define(h, "AB"), 7)
        for name in ("D", "E", "F"):
            with self.assertRaises(Failure) as cm:
                common.file_define(h, name)
            self.assertEqual(str(cm.exception), f"{name} not found in {h}")
        with self.assertRaises(Failure) as cm:
            common.file_define(h + ".no", "A")
        self.assertEqual(str(cm.exception), f"cannot read {h}.no: "
                         "No such file or directory")

    def test_repo_and_header_define(self):
        self.assertEqual(common.REPO, REPO)
        self.assertEqual(common.LAUNCHER,
                         os.path.join(REPO, "scripts", "vgemini"))
        self.assertGreater(common.header_define("vgemini_link.h",
                                                "VGEMINI_LINK_FILE_SIZE"), 0)


class Output(unittest.TestCase):
    def test_line_printer(self):
        s = io.BytesIO()
        p = common.LinePrinter("[3] ", s)
        p(b"ab")
        self.assertEqual(s.getvalue(), b"")
        p(b"c\nd\n\ne")
        self.assertEqual(s.getvalue(), b"[3] abc\n[3] d\n[3] \n")
        p.flush()
        p.flush()
        self.assertEqual(s.getvalue(), b"[3] abc\n[3] d\n[3] \n[3] e\n")

    def test_raw_writer(self):
        s = io.BytesIO()
        common.raw_writer(s)(b"no\nprefix")
        self.assertEqual(s.getvalue(), b"no\nprefix")


class Parallel(unittest.TestCase):
    def test_results_in_order(self):
        barrier = threading.Barrier(5, timeout=5)

        def f(i):
            barrier.wait()      # all five run at once
            return i * i
        self.assertEqual(common.parallel(f, list(range(5))),
                         [0, 1, 4, 9, 16])
        self.assertEqual(common.parallel(f, []), [])

    def test_exception_comes_through(self):
        def f(i):
            if i == 2:
                raise Failure("two")
            return i
        with self.assertRaises(Failure):
            common.parallel(f, [1, 2, 3])


class Tail(ScratchTest):
    def test_tail(self):
        p = os.path.join(self.tmp, "log")
        self.assertEqual(common.tail(p), "(no file)")
        open(p, "w").close()
        self.assertEqual(common.tail(p), "    (empty)")
        with open(p, "w") as f:
            f.write("".join(f"line {i}\n" for i in range(30)))
        self.assertEqual(common.tail(p, 2), "    line 28\n    line 29")
