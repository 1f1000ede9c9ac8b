# SPDX-License-Identifier: GPL-2.0-only
"""The supervisor's view of the links, and what the daemon decides from
it."""

import json
import os
import struct
import unittest

from vgemini_launcher import routing
from vgemini_launcher.supervisor import LinkWatch

from .helpers import ScratchTest, captured


class Fab:
    """The part of a Fabric that the link view needs."""

    def __init__(self, dead=()):
        self.dead = set(dead)

    def alive(self, n):
        return n not in self.dead


class Q:
    """A QMP client whose device has ports in the states of ports."""

    def __init__(self, ports):
        self.ports = ports

    def execute(self, command, arguments=None, timeout=10.0):
        assert command == "qom-get" and arguments["property"] == "ports"
        return json.dumps([{"port": p, "state": s}
                           for p, s in self.ports.items()])


class Sess:
    """Sessions on nodes whose ports are in states[n]."""

    def __init__(self, states):
        self.states = states

    def call(self, n, fn):
        if n not in self.states:
            raise routing.QMPError("no answer")
        return fn(Q(self.states[n]))


UP = {"X+": "up", "X-": "up", "Y+": "up", "Y-": "up", "Z+": "up",
      "Z-": "up"}


class LinkView(unittest.TestCase):
    def test_bad_links(self):
        view = {"a": ("up", "up"), "b": ("up", "down"), "c": (None, "up"),
                "d": ("dead", None), "e": (None, None)}
        self.assertEqual(routing.bad_links(view), {"b", "d"})

    def test_view_of_both_ends(self):
        dims = [2, 1, 1]
        seen = {0: {"xp": "up", "xm": "training"}}
        view = routing.link_view(Fab(dead={1}), dims, seen)
        self.assertEqual(view, {"0:X+": ("up", "dead"),
                                "1:X+": ("dead", "training")})

    def test_observe_ports(self):
        sess = Sess({0: dict(UP, **{"X+": "down"}), 2: UP})
        seen = routing.observe_ports(sess, [0, 1, 2])
        self.assertEqual(sorted(seen), [0, 2])
        self.assertEqual(seen[0]["xp"], "down")
        self.assertEqual(seen[2], {k: "up" for k in
                                   ("xp", "xm", "yp", "ym", "zp", "zm")})

    def test_failed_summary(self):
        self.assertEqual(routing.failed_summary({}, [2, 1, 1]),
                         "no failed links")
        self.assertEqual(routing.failed_summary({"failed": ["1:X+"]},
                                                [2, 1, 1]),
                         "avoiding 1 failed link: 1(1,0,0) X+ <-> "
                         "0(0,0,0) X-")


class Tables(ScratchTest):
    def table(self, gen, n, hdr, entries):
        d = os.path.join(self.tmp, f"gen-{gen}")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, f"router-{n}.bin"), "wb") as f:
            f.write(struct.pack("<QI", gen, hdr) + bytes(hdr - 12)
                    + entries)
        return d

    def test_tables_changed_counts_entries_not_headers(self):
        a = [self.table(1, n, 16, bytes([n, 1])) for n in range(3)][0]
        b = self.table(2, 0, 16, bytes([0, 1]))
        self.table(2, 1, 24, bytes([1, 1]))        # other header only
        self.table(2, 2, 16, bytes([2, 9]))        # other entries
        self.assertEqual(routing.tables_changed(a, b, [0, 1, 2]), 1)
        self.assertEqual(routing.tables_changed(a, b, [0, 1]), 0)
        self.assertIsNone(routing.tables_changed(None, b, [0]))
        self.assertIsNone(routing.tables_changed(a, b, [3]))


class Watch(unittest.TestCase):
    """LinkWatch: which links the supervisor daemon wants avoided."""

    def watch(self):
        return LinkWatch(None, [2, 1, 1], None, hold=5.0)

    def test_down_for_the_hold_time(self):
        w = self.watch()
        w.bad_since = {"0:X+": 6.0}
        w.good_since = {"1:X+": 0.0}
        self.assertEqual(w.wanted({}, {"0:X+"}, 10.9), set())
        self.assertEqual(w.wanted({}, {"0:X+"}, 11.0), {"0:X+"})

    def test_avoided_until_up_for_the_hold_time(self):
        w = self.watch()
        w.good_since = {"0:X+": 6.0, "1:X+": 0.0}
        rec = {"down": ["0:X+"]}
        self.assertEqual(w.wanted(rec, set(), 10.9), {"0:X+"})
        self.assertEqual(w.wanted(rec, set(), 11.0), set())

    def test_avoided_and_down_stays(self):
        w = self.watch()
        w.bad_since = {"0:X+": 10.0}
        self.assertEqual(w.wanted({"down": ["0:X+"]}, {"0:X+"}, 10.0),
                         {"0:X+"})

    def test_poll_logs_changes(self):
        states = {0: dict(UP), 1: dict(UP)}
        w = LinkWatch(Fab(), [2, 1, 1], Sess(states), hold=5.0)
        with captured() as (out, _):
            bad, t0 = w.poll([0, 1])
        self.assertEqual((bad, out.getvalue()), (set(), ""))
        self.assertEqual(set(w.good_since), {"0:X+", "1:X+"})
        states[0]["X+"] = "down"
        del states[1]
        with captured() as (out, _):
            bad, t1 = w.poll([0, 1])
        self.assertEqual(bad, {"0:X+"})
        self.assertEqual(w.bad_since, {"0:X+": t1})
        self.assertEqual(w.silent, {1})
        lines = [ln[20:] for ln in out.getvalue().splitlines()]
        self.assertEqual(lines, [
            "node 1(1,0,0) does not answer on QMP",
            "link 0(0,0,0) X+ <-> 1(1,0,0) X- seen down (X+ down, X- ?)"])
        states[0]["X+"] = "up"
        states[1] = dict(UP)
        with captured() as (out, _):
            bad, t2 = w.poll([0, 1])
        lines = [ln[20:] for ln in out.getvalue().splitlines()]
        self.assertEqual(lines, ["node 1(1,0,0) answers again",
                                 "link 0(0,0,0) X+ <-> 1(1,0,0) X- seen up"])
        self.assertEqual((bad, w.bad_since, w.good_since["0:X+"]),
                         (set(), {}, t2))
