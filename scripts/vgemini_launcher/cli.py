# SPDX-License-Identifier: GPL-2.0-only
"""The command line: argparse for every subcommand, the dispatch to the
cmd_* functions, and main(), which turns a Failure into its message and
exit code.
"""

import argparse
import os
import sys

from .common import (DEFAULT_CONNECT_TIMEOUT, DEFAULT_QMP_TIMEOUT,
                     DEFAULT_SELFTEST_TIMEOUT, DEFAULT_UP_TIMEOUT, EXIT_FAIL,
                     PROG, Failure, warn)
from .boot import cmd_up
from .nodes import cmd_console, cmd_down, cmd_exec, cmd_kill, cmd_status
from .jobs import PTAG_USER_END, PTAG_USER_START, RUN_CONNECT_TIMEOUT, cmd_run
from .selftest import cmd_selftest
from .diag import DIAG_MAX_LEN, cmd_ping
from .counters import cmd_counters, cmd_state
from .faults import cmd_fault
from .supervisor import (SUPERVISOR_HOLD, SUPERVISOR_INTERVAL, cmd_reroute,
                         cmd_supervise)


def positive(s):
    try:
        v = float(s)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{s}' is not a number")
    if v <= 0:
        raise argparse.ArgumentTypeError("must be > 0")
    return v


def vcpu_nice(s):
    try:
        v = int(s)
    except ValueError:
        v = -1
    if not 0 <= v <= 19:
        raise argparse.ArgumentTypeError(f"'{s}': expected 0..19")
    return v


def build_parser():
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--fabric", default=argparse.SUPPRESS,
                        help="fabric name (default: $VGEMINI_FABRIC or "
                        "'default')")
    p = argparse.ArgumentParser(
        prog=PROG, parents=[common],
        description="Boot, drive and tear down a torus of emulated Cray "
        "Gemini nodes (one QEMU VM per node).",
        epilog="See Documentation/vgemini.rst.")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    s = sub.add_parser("up", parents=[common], help="boot a fabric")
    s.add_argument("--dims", required=True, help="torus shape XxYxZ")
    s.add_argument("--mem", default="256M", help="guest memory per node "
                   "(default 256M; 1G for LNet or Lustre work)")
    s.add_argument("--timeout", type=positive, default=DEFAULT_UP_TIMEOUT,
                   help="seconds to wait for all nodes (default 300)")
    s.add_argument("--append", default=os.environ.get("VGEMINI_APPEND", ""),
                   help="extra kernel command line (e.g. kgni.debug=1)")
    s.add_argument("--qemu-args", default=os.environ.get("VGEMINI_QEMU_ARGS"),
                   help="extra QEMU arguments (shell-quoted string)")
    s.add_argument("--no-gemini", action="store_true",
                   help="boot without the cray-gemini device")
    s.add_argument("--vcpu-nice", type=vcpu_nice,
                   default=os.environ.get("VGEMINI_VCPU_NICE", "5"),
                   metavar="N", help="nice value of the guests' vCPU "
                   "threads, 0..19 (default 5; 0 leaves them as the "
                   "QEMUs' other threads)")
    s.add_argument("--share", action="append", default=[], metavar="DIR",
                   help="share the host's DIR with every guest, read-only, "
                   "at the same path (repeatable; the host's /usr, the "
                   "repository and the current directory always are)")
    s.add_argument("--share-rw", action="append", default=[], metavar="DIR",
                   help="share the host's DIR with every guest, writable "
                   "(repeatable): where ranks may write on the host")
    s.add_argument("--no-share", action="store_true",
                   help="share no host directory with the guests, nor "
                   "the kernel's module tree (modprobe then finds only "
                   "the image's few modules)")
    s.add_argument("--net", action="store_true",
                   help="give every node a virtio-net interface on one "
                   "shared Ethernet segment (node N: MAC 52:54:00:ee:00:00 "
                   "+ N, IP 10.200.0.0/16 + N + 1), the TCP/UDP baselines "
                   "of 'make bench'")
    s.add_argument("--edu", action="store_true",
                   help="give every node QEMU's edu test device (the "
                   "store-rate baseline, guest tool edu_store)")
    s.add_argument("--ipogif", action="store_true",
                   help="bring up ipogif0, IP over the fabric, in every "
                   "node (ipogif.ko; node N: MAC 00:01:01 + its NIC "
                   "address, IP 10.128.0.0/14 + N + 1)")
    s.set_defaults(func=cmd_up)

    s = sub.add_parser("status", parents=[common], help="show the nodes")
    s.add_argument("--json", action="store_true", help="JSON output")
    s.add_argument("--timeout", type=positive, default=10.0,
                   help="seconds to wait for each agent (default 10)")
    s.set_defaults(func=cmd_status)

    s = sub.add_parser("exec", parents=[common],
                       help="run a command on a node or on all")
    s.add_argument("node", metavar="NODE|all",
                   help="node index, x,y,z, or 'all'")
    s.add_argument("--timeout", type=positive, default=None,
                   help="kill the command after this many seconds")
    s.add_argument("--connect-timeout", type=positive,
                   default=DEFAULT_CONNECT_TIMEOUT,
                   help="seconds to wait for the agent (default 30)")
    s.add_argument("-i", "--stdin", action="store_true",
                   help="send this program's stdin to the command "
                   "(default: /dev/null)")
    s.add_argument("cmd", nargs="*", metavar="-- CMD",
                   help="the command: one word runs as /bin/sh -c WORD, "
                   "several as an argument vector")
    s.set_defaults(func=cmd_exec)

    s = sub.add_parser("run", parents=[common],
                       help="run a job: N ranks across the nodes, with PMI "
                       "(aprun-like)")
    s.add_argument("-n", type=int, required=True, metavar="N",
                   help="number of ranks")
    s.add_argument("--ppn", type=int, default=1, metavar="K",
                   help="ranks per node (default 1); ranks fill the nodes "
                   "in order")
    s.add_argument("--timeout", type=positive, default=None,
                   help="kill every rank after this many seconds (exit 124)")
    s.add_argument("--ptag", type=int, default=None,
                   help=f"the job's ptag ({PTAG_USER_START}.."
                   f"{PTAG_USER_END}; default: derived from the job id)")
    s.add_argument("--cookie", default=None,
                   help="the job's cookie (32 bits; default: derived from "
                   "the job id)")
    s.add_argument("--alt-domain", action="store_true",
                   help="also configure a second (ptag, cookie) on the "
                   "job's nodes, given to the ranks as VGEMINI_ALT_PTAG and "
                   "VGEMINI_ALT_COOKIE (for isolation tests)")
    s.add_argument("--connect-timeout", type=positive,
                   default=RUN_CONNECT_TIMEOUT,
                   help="seconds to wait for each node's agent (default 60)")
    s.add_argument("--local", action="store_true",
                   help="run the ranks on this host through local agents "
                   "(no fabric; for testing PMI programs)")
    s.add_argument("-v", "--verbose", action="store_true",
                   help="say where the job runs and with which credentials")
    s.add_argument("cmd", nargs=argparse.REMAINDER, metavar="PROG ARGS",
                   help="the program (looked up in the guests' PATH) and "
                   "its arguments")
    s.set_defaults(func=cmd_run)

    s = sub.add_parser("down", parents=[common], help="tear a fabric down")
    s.set_defaults(func=cmd_down)

    s = sub.add_parser("kill", parents=[common],
                       help="kill one node's QEMU (failure tests)")
    s.add_argument("node", metavar="NODE", help="node index or x,y,z")
    s.add_argument("--signal", default="KILL",
                   help="signal to send (default KILL)")
    s.set_defaults(func=cmd_kill)

    s = sub.add_parser("console", parents=[common],
                       help="print a node's serial console log")
    s.add_argument("node", metavar="NODE", help="node index or x,y,z")
    s.add_argument("-n", "--lines", type=int, default=0,
                   help="only the last LINES lines")
    s.set_defaults(func=cmd_console)

    s = sub.add_parser("selftest", parents=[common],
                       help="run the guests' selftests on every node")
    s.add_argument("tests", nargs="*", metavar="TEST",
                   help="only these programs of /selftests")
    s.add_argument("--tap", metavar="FILE", help="write a TAP report")
    s.add_argument("--timeout", type=positive,
                   default=DEFAULT_SELFTEST_TIMEOUT,
                   help="seconds per test program (default 300)")
    s.add_argument("--connect-timeout", type=positive,
                   default=DEFAULT_CONNECT_TIMEOUT,
                   help="seconds to wait for each agent (default 30)")
    s.add_argument("-v", "--verbose", action="store_true",
                   help="stream output as it comes")
    s.set_defaults(func=cmd_selftest)

    s = sub.add_parser("ping", parents=[common],
                       help="diagnostic ping from one router to another")
    s.add_argument("src", nargs="?", metavar="A",
                   help="sending node (index or x,y,z)")
    s.add_argument("dest", nargs="?", metavar="B",
                   help="destination node (index or x,y,z)")
    s.add_argument("--all", action="store_true",
                   help="ping every ordered pair, print a matrix of hops")
    s.add_argument("--len", type=int, default=DIAG_MAX_LEN,
                   help=f"payload bytes 0..{DIAG_MAX_LEN} (default "
                   f"{DIAG_MAX_LEN})")
    s.add_argument("--count", type=int, default=1,
                   help="pings back to back (default 1)")
    s.add_argument("--timeout", type=positive, default=None,
                   help="seconds to wait for the result (default 30 + "
                   "2.5 per ping)")
    s.add_argument("--json", action="store_true", help="JSON output")
    s.add_argument("-v", "--verbose", action="store_true",
                   help="--all: also print every pair's paths")
    s.set_defaults(func=cmd_ping)

    s = sub.add_parser("counters", parents=[common],
                       help="the routers' link counters")
    s.add_argument("node", nargs="?", default="all", metavar="NODE|all",
                   help="node index, x,y,z, or 'all' (default)")
    g = s.add_mutually_exclusive_group()
    g.add_argument("--diff", type=positive, metavar="SECONDS",
                   help="print what the counters counted in SECONDS")
    g.add_argument("--since", metavar="FILE",
                   help="print the difference to a sample saved by --save")
    s.add_argument("--save", metavar="FILE",
                   help="save this sample (JSON) for a later --since")
    s.add_argument("--json", action="store_true", help="JSON output")
    s.add_argument("--timeout", type=positive, default=DEFAULT_QMP_TIMEOUT,
                   help="seconds to wait for each node (default 30)")
    s.set_defaults(func=cmd_counters)

    s = sub.add_parser("state", parents=[common],
                       help="the devices' live FMA descriptors and CQs")
    s.add_argument("node", nargs="?", default="all", metavar="NODE|all",
                   help="node index, x,y,z, or 'all' (default)")
    s.add_argument("--timeout", type=positive, default=DEFAULT_QMP_TIMEOUT,
                   help="seconds to wait for each node (default 30)")
    s.set_defaults(func=cmd_state)

    s = sub.add_parser("fault", parents=[common],
                       help="set, clear or show a link's fault injector")
    s.add_argument("node", metavar="NODE", help="node index or x,y,z")
    s.add_argument("port", nargs="?", metavar="PORT",
                   help="X+, X-, Y+, Y-, Z+ or Z- (default: show all six)")
    s.add_argument("spec", nargs="?", metavar="SPEC",
                   help="corrupt=F,drop=F,delay=F,delay-ms=N,down=0|1,"
                   "seed=N, or 'none' (default: show)")
    s.add_argument("--timeout", type=positive, default=DEFAULT_QMP_TIMEOUT,
                   help="seconds to wait for the node (default 30)")
    s.set_defaults(func=cmd_fault)

    s = sub.add_parser("reroute", parents=[common],
                       help="load new routing tables around failed links")
    s.add_argument("--fail", action="append", default=[],
                   metavar="NODE:PORT",
                   help="avoid this link from now on (repeatable)")
    s.add_argument("--restore", action="append", default=[],
                   metavar="NODE:PORT",
                   help="stop avoiding a link given to --fail before")
    s.add_argument("--clear", action="store_true",
                   help="forget every link given to --fail before")
    s.add_argument("--auto", action="store_true",
                   help="only if the set of links to avoid changed")
    s.add_argument("--timeout", type=positive, default=DEFAULT_QMP_TIMEOUT,
                   help="seconds to wait for each node (default 30)")
    s.set_defaults(func=cmd_reroute)

    s = sub.add_parser("supervise", parents=[common],
                       help="the supervisor daemon ('up' starts it)")
    s.add_argument("--pidfile", help="write the daemon's pid here (default "
                   "RUN/supervisor.pid)")
    s.add_argument("--interval", type=positive, default=SUPERVISOR_INTERVAL,
                   help="seconds between polls (default 1)")
    s.add_argument("--hold", type=positive, default=SUPERVISOR_HOLD,
                   help="seconds a link must stay down or up before "
                   "rerouting (default 5)")
    s.set_defaults(func=cmd_supervise)
    return p


def subcommand(argv):
    """The command word of a vgemini command line (None if there is
    none): the first word that is no option nor --fabric's value."""
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--fabric":
            i += 2
        elif a.startswith("-"):
            i += 1
        else:
            return a
    return None


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    # The run directory, logs and sockets: the launcher's alone (a QMP
    # socket is as good as root).
    os.umask(0o077)
    # Everything after the first "--" is the command of 'exec'; 'run' takes
    # all words after its options as the program and its arguments.
    cmd = None
    if "--" in argv and subcommand(argv) != "run":
        i = argv.index("--")
        argv, cmd = argv[:i], argv[i + 1:]
    p = build_parser()
    args = p.parse_args(argv)
    if not hasattr(args, "fabric"):
        args.fabric = os.environ.get("VGEMINI_FABRIC") or "default"
    if args.command == "run" and args.cmd[:1] == ["--"]:
        args.cmd = args.cmd[1:]
    if cmd is not None:
        if args.command != "exec":
            p.error("'--' is for the command of 'exec'")
        if args.cmd:
            p.error("put the whole command after '--'")
        args.cmd = cmd
    try:
        return args.func(args)
    except Failure as e:
        warn(str(e))
        return e.code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        try:
            sys.stdout = None
        except Exception:
            pass
        return EXIT_FAIL
