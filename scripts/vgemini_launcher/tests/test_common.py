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

    def test_file_define_enumerator(self):
        h = os.path.join(self.tmp, "e.h")
        with open(h, "w") as f:
            f.write("enum x {\n\tP_A = 3,\n\tP_B=0x10u, /* b */\n"
                    "\tP_C = 7\n\tP_D = P_A + 1,\n\tP_E = 1, P_F = 2,\n};\n"
                    "int P_G = 5;\n#define P_A 9\n")
        self.assertEqual(common.file_define(h, "P_A"), 9)    # #define first
        self.assertEqual(common.file_define(h, "P_B"), 16)
        self.assertEqual(common.file_define(h, "P_C"), 7)
        for name in ("P_D", "P_E", "P_F", "P_G", "P_"):
            with self.assertRaises(Failure):
                common.file_define(h, name)

    def test_file_define_str(self):
        h = os.path.join(self.tmp, "s.h")
        with open(h, "w") as f:
            f.write('#define S "a.b"\n#define N 1\n#define Q "x\\"y"\n')
        self.assertEqual(common.file_define_str(h, "S"), "a.b")
        for name in ("N", "Q", "T"):
            with self.assertRaises(Failure):
                common.file_define_str(h, name)

    def test_file_xlist(self):
        h = os.path.join(self.tmp, "l.h")
        with open(h, "w") as f:
            f.write('#define L(X) \\\n\tX(A, "a+", "ap") \\\n'
                    '\tX(B, "b-", "bm")\n#define M(X) X(A, "a")\n'
                    '#define K(X) \\\n\tX(A, "a") \\\n\tY(B)\n'
                    'enum { E_A = 1, };\n#define E_B 0\n')
        self.assertEqual(common.file_xlist(h, "L"),
                         [("A", "a+", "ap"), ("B", "b-", "bm")])
        for name in ("M", "K", "N"):
            with self.assertRaises(Failure):
                common.file_xlist(h, name)

    def test_header_tables(self):
        """The uapi name tables, in the order of their enumerations."""
        self.assertEqual(common.header_table(
            "vgemini_names.h", "VGEMINI_PORT_LIST", "gemini_hw.h",
            "GEMINI_PORT_"), ["X+", "X-", "Y+", "Y-", "Z+", "Z-"])
        self.assertEqual(common.header_table(
            "vgemini_names.h", "VGEMINI_PORT_LIST", "gemini_hw.h",
            "GEMINI_PORT_", 2), ["xp", "xm", "yp", "ym", "zp", "zm"])
        pc = common.header_table("vgemini_names.h",
                                 "VGEMINI_PORT_COUNTER_LIST",
                                 "vgemini_ctl.h", "VGEMINI_PC_")
        self.assertEqual(len(pc), common.header_define("vgemini_ctl.h",
                                                       "VGEMINI_PC_NUM"))
        self.assertEqual(pc[common.header_define(
            "vgemini_ctl.h", "VGEMINI_PC_CRC_ERR")], "crc_err")
        nc = common.header_table("vgemini_names.h",
                                 "VGEMINI_NIC_COUNTER_LIST",
                                 "vgemini_ctl.h", "VGEMINI_NC_")
        self.assertEqual(len(nc), common.header_define("vgemini_ctl.h",
                                                       "VGEMINI_NC_NUM"))
        self.assertEqual(nc[0], "req_pkts_out")
        states = common.header_table("vgemini_names.h",
                                     "VGEMINI_PORT_STATE_LIST",
                                     "vgemini_ctl.h", "VGEMINI_PORT_")
        self.assertEqual(states, ["unused", "down", "up", "miswired"])

    def test_header_table_order_checked(self):
        d = os.path.join(self.tmp, "uapi")
        os.mkdir(d)
        with open(os.path.join(d, "n.h"), "w") as f:
            f.write('#define L(X) \\\n\tX(A, "a") \\\n\tX(B, "b")\n')
        with open(os.path.join(d, "e.h"), "w") as f:
            f.write("enum {\n\tE_A = 1,\n\tE_B = 1,\n};\n")
        old = common.REPO
        common.REPO = self.tmp
        try:
            with self.assertRaises(Failure) as cm:
                common.header_table("n.h", "L", "e.h", "E_")
        finally:
            common.REPO = old
        self.assertIn("E_B is 1", str(cm.exception))

    def test_wire_constants_from_headers(self):
        """What the launcher reads from uapi/ and lib/ugni/gni_pub.h."""
        from vgemini_launcher import agent, jobs, torus
        self.assertEqual((jobs.PTAG_USER_START, jobs.PTAG_USER_END), (3, 253))
        self.assertEqual(agent.MAGIC, 0x47414756)
        self.assertEqual(agent.HDR.size, 16)
        self.assertEqual((agent.T_HELLO, agent.T_HELLO_ACK, agent.T_PMI_OUT),
                         (0x01, 0x81, 0x86))
        self.assertEqual((agent.HOW_EXITED, agent.HOW_ABORTED), (0, 4))
        self.assertEqual((agent.EXEC_F_STDIN, agent.EXEC_F_PMI,
                          agent.EXEC_F_ENV), (1, 2, 4))
        self.assertEqual(agent.MAX_PAYLOAD, 65536)
        self.assertEqual(agent.AGENT_PORT_NAME, "vgemini.agent")
        self.assertEqual((agent.VERSION, agent.VERSION_LIMITS), (1, 2))
        self.assertEqual(torus.PORT_LABELS[torus.PORTS.index("zm")], "Z-")

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
