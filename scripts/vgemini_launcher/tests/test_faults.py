# SPDX-License-Identifier: GPL-2.0-only
"""The fault injector spec of 'vgemini fault'."""

import unittest

from vgemini_launcher.common import EXIT_USAGE, Failure
from vgemini_launcher.faults import FAULT_KEYS, check_fault_spec


class FaultSpec(unittest.TestCase):
    def test_none(self):
        for s in ("", "none", " NONE ", "None"):
            self.assertEqual(check_fault_spec(s), "")

    def test_good_specs_come_back_stripped(self):
        for s in ("drop=0.5", "corrupt=0", "delay=1.0", "down=1", "down=0",
                  "seed=0x10", "seed=0", "delay-ms=250",
                  "corrupt=0.1,drop=0.2,delay=0.3,delay-ms=4,down=0,seed=9"):
            self.assertEqual(check_fault_spec(f"  {s} "), s)

    def test_every_key_is_known(self):
        self.assertEqual(set(FAULT_KEYS), {"corrupt", "drop", "delay",
                                           "delay-ms", "down", "seed"})

    def test_bad_values(self):
        for s, want in (("drop=1.5", "drop wants a fraction 0..1"),
                        ("drop=-0.1", "drop wants a fraction 0..1"),
                        ("corrupt=x", "corrupt wants a fraction 0..1"),
                        ("down=2", "down wants 0 or 1"),
                        ("down=yes", "down wants 0 or 1"),
                        ("seed=-1", "seed wants a whole number >= 0"),
                        ("delay-ms=1.5", "delay-ms wants a whole number")):
            with self.assertRaises(Failure) as cm:
                check_fault_spec(s)
            self.assertEqual(cm.exception.code, EXIT_USAGE)
            self.assertEqual(str(cm.exception).split(": ", 1)[0],
                             f"bad fault '{s}'")
            self.assertIn(want, str(cm.exception))

    def test_bad_keys(self):
        for s in ("bogus=1", "drop", "drop=0.5,", "=1", "drop:0.5"):
            with self.assertRaises(Failure) as cm:
                check_fault_spec(s)
            self.assertEqual(cm.exception.code, EXIT_USAGE)
            self.assertIn("want KEY=VALUE with KEY one of corrupt, drop, "
                          "delay, delay-ms, down, seed", str(cm.exception))

    def test_one_bad_item_spoils_the_spec(self):
        with self.assertRaises(Failure) as cm:
            check_fault_spec("drop=0.1,down=3")
        self.assertIn("bad fault 'down=3'", str(cm.exception))
