# SPDX-License-Identifier: GPL-2.0-only
"""Counter samples: differences and the table 'vgemini counters' prints."""

import unittest

from vgemini_launcher import counters
from vgemini_launcher.common import Failure

from .helpers import captured


def sample(t, nodes, dims=(2, 1, 1)):
    return {"version": 1, "fabric": "f", "dims": list(dims), "time": t,
            "nodes": nodes}


class Diff(unittest.TestCase):
    def test_numbers_subtract_recursively(self):
        new = {"a": 10, "b": {"c": 5.5, "d": "text", "e": True}, "f": 3}
        old = {"a": 4, "b": {"c": 0.5, "d": "old", "e": False}}
        self.assertEqual(counters.diff_counters(new, old),
                         {"a": 6, "b": {"c": 5.0, "d": "text", "e": True},
                          "f": 3})
        self.assertEqual(counters.diff_counters({"a": 1}, None), {"a": 1})

    def test_samples(self):
        old = sample(100.0, {"0": {"node": 0, "coord": [0, 0, 0],
                                   "generation": 1, "nic": {"x": 1}},
                             "1": {"error": "down"}})
        new = sample(102.5, {"0": {"node": 0, "coord": [0, 0, 0],
                                   "generation": 2, "nic": {"x": 7}},
                             "1": {"node": 1, "nic": {"x": 3}},
                             "2": {"error": "no answer"}})
        d = counters.diff_samples(new, old)
        self.assertEqual((d["since"], d["interval"]), (100.0, 2.5))
        self.assertEqual(d["nodes"], {
            "0": {"node": 0, "coord": [0, 0, 0], "generation": 2,
                  "nic": {"x": 6}},
            "1": {"error": "not in the earlier sample"},
            "2": {"error": "no answer"}})
        self.assertEqual(new["nodes"]["0"]["nic"], {"x": 7})  # untouched

    def test_sample_of_another_node(self):
        old = sample(1, {"0": {"node": 1}})
        new = sample(2, {"0": {"node": 0}})
        with self.assertRaises(Failure) as cm:
            counters.diff_samples(new, old)
        self.assertEqual(str(cm.exception),
                         "node 0: the earlier sample is of another node")


class Table(unittest.TestCase):
    def test_layout(self):
        ports = {label: {k: 0 for k in counters.PORT_COUNTERS}
                 for label in ("X+", "X-", "Y+", "Y-", "Z+", "Z-")}
        ports["X+"].update(vc0_phits=123456, retry=2, nak=4, tx_pkts=9)
        nic = {k: 0 for k in counters.NIC_COUNTERS}
        nic.update(req_phits_out=42, no_route=3)
        s = sample(0, {"0": {"ports": ports, "nic": nic},
                       "1": {"error": "node is down"}})
        with captured() as (out, _):
            counters.print_counters(s, "totals")
        lines = out.getvalue().splitlines()
        self.assertEqual(lines[0], "# fabric f (2x1x1): totals")
        self.assertEqual(lines[1].split(), ["#", "DEST_COORD"])
        self.assertEqual(lines[2].split(),
                         ["#", "SRC_COORD"] + [h for h, _, _ in
                                               counters.COUNTER_COLUMNS])
        self.assertEqual(lines[3].split(), ["0", "(0,0,0)"])
        self.assertEqual(lines[4].split(),
                         ["X+", "(1,0,0)", "123456", "0", "0", "0", "0",
                          "0", "2", "0"])
        self.assertEqual(lines[5].split()[:2], ["X-", "(1,0,0)"])
        self.assertEqual(lines[10].split(),
                         ["HH", "(0,0,0)", "42", "0", "0", "0", "-", "-",
                          "-", "-"])
        self.assertEqual(lines[11], "   also: X+ nak=4; nic no_route=3")
        self.assertEqual(lines[12].split(), ["1", "(1,0,0)"])
        self.assertEqual(lines[13], "node 1: node is down")
        self.assertEqual(len(lines), 14)
        # Columns line up: every value ends where its heading ends.
        end = lines[2].index("VC0_PHITS") + len("VC0_PHITS")
        self.assertEqual(lines[4].index("123456") + len("123456"), end)
