# SPDX-License-Identifier: GPL-2.0-only
"""The command line: parsing, defaults, '--' and main()'s exit codes."""

import argparse
import io
import os
import unittest
from unittest import mock

from vgemini_launcher import cli
from vgemini_launcher.common import EXIT_NOT_UP, Failure

from .helpers import ScratchTest, captured


def parse(*argv):
    with captured():
        return cli.build_parser().parse_args(list(argv))


class Positive(unittest.TestCase):
    def test_numbers(self):
        self.assertEqual(cli.positive("1.5"), 1.5)
        self.assertEqual(cli.positive("30"), 30.0)

    def test_refused(self):
        for s, msg in (("0", "must be > 0"), ("-2", "must be > 0"),
                       ("abc", "'abc' is not a number")):
            with self.assertRaises(argparse.ArgumentTypeError) as cm:
                cli.positive(s)
            self.assertEqual(str(cm.exception), msg)


class Subcommand(unittest.TestCase):
    def test_first_word_that_is_no_option(self):
        self.assertEqual(cli.subcommand(["exec", "0", "--", "ls"]), "exec")
        self.assertEqual(cli.subcommand(["--fabric", "run", "status"]),
                         "status")
        self.assertEqual(cli.subcommand(["-h", "run", "-n", "2"]), "run")
        self.assertIsNone(cli.subcommand(["--fabric", "x"]))
        self.assertIsNone(cli.subcommand([]))


class Parser(unittest.TestCase):
    def test_every_command_has_its_function(self):
        for argv, func in ((["up", "--dims", "2x2x1"], "cmd_up"),
                           (["status"], "cmd_status"),
                           (["exec", "0"], "cmd_exec"),
                           (["run", "-n", "1", "x"], "cmd_run"),
                           (["down"], "cmd_down"),
                           (["kill", "0"], "cmd_kill"),
                           (["console", "0"], "cmd_console"),
                           (["selftest"], "cmd_selftest"),
                           (["ping", "0", "1"], "cmd_ping"),
                           (["counters"], "cmd_counters"),
                           (["state"], "cmd_state"),
                           (["fault", "0"], "cmd_fault"),
                           (["reroute"], "cmd_reroute"),
                           (["supervise"], "cmd_supervise")):
            args = parse(*argv)
            self.assertEqual(args.func.__name__, func)
            self.assertEqual(args.command, argv[0])

    def test_up_defaults(self):
        with mock.patch.dict(os.environ, {"VGEMINI_APPEND": "kgni.debug=1",
                                          "VGEMINI_QEMU_ARGS": "-s"}):
            a = parse("up", "--dims", "2x2x1")
        self.assertEqual((a.dims, a.mem, a.timeout, a.append, a.qemu_args,
                          a.no_gemini),
                         ("2x2x1", "256M", 300.0, "kgni.debug=1", "-s", False))

    def test_up_vcpu_nice(self):
        with mock.patch.dict(os.environ):
            os.environ.pop("VGEMINI_VCPU_NICE", None)
            self.assertEqual(parse("up", "--dims", "2").vcpu_nice, 5)
            os.environ["VGEMINI_VCPU_NICE"] = "0"
            self.assertEqual(parse("up", "--dims", "2").vcpu_nice, 0)
        self.assertEqual(parse("up", "--dims", "2", "--vcpu-nice", "19")
                         .vcpu_nice, 19)
        for bad in ("-1", "20", "x", ""):
            with self.assertRaises(SystemExit) as cm, \
                    mock.patch("sys.stderr", new=io.StringIO()):
                parse("up", "--dims", "2", "--vcpu-nice", bad)
            self.assertEqual(cm.exception.code, 2)

    def test_up_needs_dims(self):
        with self.assertRaises(SystemExit) as cm:
            parse("up")
        self.assertEqual(cm.exception.code, 2)

    def test_fabric_before_or_after_the_command(self):
        self.assertEqual(parse("--fabric", "f", "status").fabric, "f")
        self.assertEqual(parse("status", "--fabric", "g").fabric, "g")
        self.assertFalse(hasattr(parse("status"), "fabric"))

    def test_exec(self):
        a = parse("exec", "-i", "--timeout", "5", "all", "echo hi")
        self.assertEqual((a.node, a.stdin, a.timeout, a.connect_timeout,
                          a.cmd), ("all", True, 5.0, 30.0, ["echo hi"]))

    def test_run_takes_the_rest(self):
        a = parse("run", "-n", "4", "--ppn", "2", "prog", "-x", "--ppn", "9")
        self.assertEqual((a.n, a.ppn, a.cmd), (4, 2, ["prog", "-x", "--ppn",
                                                      "9"]))
        self.assertEqual((a.ptag, a.cookie, a.timeout, a.connect_timeout,
                          a.local, a.alt_domain), (None, None, None, 60.0,
                                                   False, False))

    def test_ping_defaults(self):
        a = parse("ping", "0", "1,1,0")
        self.assertEqual((a.src, a.dest, a.len, a.count, a.timeout, a.all),
                         ("0", "1,1,0", 64, 1, None, False))

    def test_counters(self):
        a = parse("counters")
        self.assertEqual((a.node, a.diff, a.since, a.timeout),
                         ("all", None, None, 30.0))
        self.assertEqual(parse("counters", "--diff", "2").diff, 2.0)
        with self.assertRaises(SystemExit):
            parse("counters", "--diff", "1", "--since", "f")
        with self.assertRaises(SystemExit):
            parse("counters", "--diff", "0")

    def test_reroute_repeats(self):
        a = parse("reroute", "--fail", "0:X+", "--fail", "1:Y-",
                  "--restore", "2:Z+")
        self.assertEqual((a.fail, a.restore, a.clear, a.auto),
                         (["0:X+", "1:Y-"], ["2:Z+"], False, False))

    def test_supervise_defaults(self):
        a = parse("supervise")
        self.assertEqual((a.pidfile, a.interval, a.hold), (None, 1.0, 5.0))

    def test_unknown_command(self):
        with self.assertRaises(SystemExit) as cm:
            parse("frobnicate")
        self.assertEqual(cm.exception.code, 2)


class Main(ScratchTest):
    def run_main(self, argv, **funcs):
        """main(argv) with some cmd_* replaced; (status, stdout, stderr)."""
        patches = [mock.patch.object(cli, name, f)
                   for name, f in funcs.items()]
        for p in patches:
            p.start()
            self.addCleanup(p.stop)
        with captured() as (out, err):
            rc = cli.main(argv)
        return rc, out.getvalue(), err.getvalue()

    def test_not_up(self):
        with mock.patch.dict(os.environ, {"VGEMINI_FABRIC": ""}):
            rc, out, err = self.run_main(["status"])
        self.assertEqual(rc, EXIT_NOT_UP)
        self.assertEqual(out, "")
        self.assertEqual(err, "vgemini: fabric 'default' is not up (no "
                         f"{self.rundir}/default/topology.json)\n")

    def test_fabric_from_the_environment(self):
        seen = []
        with mock.patch.dict(os.environ, {"VGEMINI_FABRIC": "envfab"}):
            self.run_main(["status"], cmd_status=seen.append)
            self.run_main(["--fabric", "opt", "status"],
                          cmd_status=seen.append)
        self.assertEqual([a.fabric for a in seen], ["envfab", "opt"])

    def test_exec_command_after_dashdash(self):
        seen = []
        rc, _, _ = self.run_main(["exec", "0", "--", "ls", "-l", "--", "x"],
                                 cmd_exec=lambda a: seen.append(a) or 7)
        self.assertEqual(rc, 7)
        self.assertEqual(seen[0].cmd, ["ls", "-l", "--", "x"])
        self.assertEqual(seen[0].node, "0")

    def test_run_keeps_dashdash_words(self):
        seen = []
        self.run_main(["run", "-n", "2", "--", "prog", "--", "a"],
                      cmd_run=seen.append)
        self.assertEqual(seen[0].cmd, ["prog", "--", "a"])

    def test_dashdash_is_only_for_exec(self):
        with self.assertRaises(SystemExit) as cm:
            self.run_main(["status", "--", "x"])
        self.assertEqual(cm.exception.code, 2)
        with self.assertRaises(SystemExit):
            self.run_main(["exec", "0", "a", "--", "b"])

    def test_failure_becomes_message_and_code(self):
        def boom(args):
            raise Failure("it broke", 42)
        rc, out, err = self.run_main(["down"], cmd_down=boom)
        self.assertEqual((rc, out, err), (42, "", "vgemini: it broke\n"))

    def test_interrupt_is_130(self):
        def intr(args):
            raise KeyboardInterrupt
        rc, _, _ = self.run_main(["down"], cmd_down=intr)
        self.assertEqual(rc, 130)
