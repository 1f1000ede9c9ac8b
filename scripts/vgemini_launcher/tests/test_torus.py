# SPDX-License-Identifier: GPL-2.0-only
"""Torus geometry: coordinates, neighbours, ports, links, distances and
--dims."""

import unittest

from vgemini_launcher import torus
from vgemini_launcher.common import EXIT_USAGE, Failure

from .helpers import c_define

SHAPES = ([1, 1, 1], [2, 1, 1], [2, 2, 2], [3, 2, 1], [4, 3, 5])


def nodes(dims):
    return range(dims[0] * dims[1] * dims[2])


class Coordinates(unittest.TestCase):
    def test_x_varies_fastest_then_y_then_z(self):
        dims = [3, 2, 2]
        self.assertEqual(torus.coord_of(0, dims), [0, 0, 0])
        self.assertEqual(torus.coord_of(1, dims), [1, 0, 0])
        self.assertEqual(torus.coord_of(3, dims), [0, 1, 0])
        self.assertEqual(torus.coord_of(6, dims), [0, 0, 1])
        self.assertEqual(torus.coord_of(11, dims), [2, 1, 1])

    def test_index_of_inverts_coord_of(self):
        for dims in SHAPES:
            seen = set()
            for n in nodes(dims):
                c = torus.coord_of(n, dims)
                self.assertTrue(all(0 <= c[i] < dims[i] for i in range(3)),
                                (n, dims, c))
                self.assertEqual(torus.index_of(c, dims), n)
                seen.add(tuple(c))
            self.assertEqual(len(seen), len(nodes(dims)))

    def test_node_str(self):
        self.assertEqual(torus.node_str(5, [3, 2, 1]), "5(2,1,0)")
        self.assertEqual(torus.node_str(0, [1, 1, 1]), "0(0,0,0)")


class Neighbours(unittest.TestCase):
    def test_wrap_around(self):
        dims = [3, 2, 1]
        self.assertEqual(torus.neighbour(0, dims, "x", +1), 1)
        self.assertEqual(torus.neighbour(2, dims, "x", +1), 0)
        self.assertEqual(torus.neighbour(0, dims, "x", -1), 2)
        self.assertEqual(torus.neighbour(0, dims, "y", +1), 3)
        self.assertEqual(torus.neighbour(3, dims, "y", +1), 0)
        self.assertEqual(torus.neighbour(3, dims, "y", -1), 0)

    def test_size_one_is_its_own_neighbour(self):
        self.assertEqual(torus.neighbour(4, [3, 2, 1], "z", +1), 4)
        self.assertEqual(torus.neighbour(4, [3, 2, 1], "z", -1), 4)

    def test_plus_then_minus_comes_back(self):
        for dims in SHAPES:
            for n in nodes(dims):
                for d in "xyz":
                    m = torus.neighbour(n, dims, d, +1)
                    self.assertEqual(torus.neighbour(m, dims, d, -1), n)

    def test_neighbour_changes_one_coordinate(self):
        dims = [4, 3, 5]
        for n in nodes(dims):
            for i, d in enumerate("xyz"):
                a = torus.coord_of(n, dims)
                b = torus.coord_of(torus.neighbour(n, dims, d, +1), dims)
                for j in range(3):
                    want = (a[j] + 1) % dims[j] if j == i else a[j]
                    self.assertEqual(b[j], want)

    def test_port_step(self):
        dims = [3, 2, 1]
        self.assertEqual(torus.port_step(0, "xm", dims), 2)
        self.assertEqual(torus.port_step(0, "xp", dims), 1)
        self.assertEqual(torus.port_step(0, "yp", dims), 3)
        self.assertEqual(torus.port_step(5, "zm", dims), 5)


class Ports(unittest.TestCase):
    def test_labels_and_keys(self):
        self.assertEqual(torus.port_label("xp"), "X+")
        self.assertEqual(torus.port_label("zm"), "Z-")
        self.assertEqual(torus.port_key("Y-"), "ym")
        for p in torus.PORTS:
            self.assertEqual(torus.port_key(torus.port_label(p)), p)
        self.assertEqual(torus.PORT_LABELS,
                         ["X+", "X-", "Y+", "Y-", "Z+", "Z-"])

    def test_parse_port_spellings(self):
        for s, want in (("X+", "xp"), ("x-", "xm"), ("xp", "xp"),
                        ("XM", "xm"), (" y+ ", "yp"), ("Zm", "zm"),
                        ("z+", "zp")):
            self.assertEqual(torus.parse_port(s), want, s)

    def test_parse_port_refuses(self):
        for s in ("W+", "x", "X*", "", "xp+", "1+"):
            with self.assertRaises(Failure) as cm:
                torus.parse_port(s)
            self.assertEqual(cm.exception.code, EXIT_USAGE)
            self.assertIn(f"bad port '{s}'", str(cm.exception))


class Distances(unittest.TestCase):
    def test_wrap_is_shorter(self):
        self.assertEqual(torus.torus_distance(0, 3, [4, 1, 1]), 1)
        self.assertEqual(torus.torus_distance(0, 2, [4, 1, 1]), 2)
        self.assertEqual(torus.torus_distance(0, 10, [4, 4, 1]), 4)
        self.assertEqual(torus.torus_distance(0, 0, [4, 4, 1]), 0)

    def test_sums_the_dimensions(self):
        dims = [3, 3, 2]
        a = torus.index_of([0, 0, 0], dims)
        b = torus.index_of([2, 1, 1], dims)
        self.assertEqual(torus.torus_distance(a, b, dims), 1 + 1 + 1)

    def test_symmetric_and_one_to_neighbours(self):
        dims = [4, 3, 2]
        for a in nodes(dims):
            for d in "xyz":
                b = torus.neighbour(a, dims, d, +1)
                self.assertEqual(torus.torus_distance(a, b, dims),
                                 0 if a == b else 1)
            for b in nodes(dims):
                self.assertEqual(torus.torus_distance(a, b, dims),
                                 torus.torus_distance(b, a, dims))


class Cables(unittest.TestCase):
    def test_a_minus_port_is_named_by_its_plus_end(self):
        dims = [3, 1, 1]
        self.assertEqual(torus.cable_of(0, "xp", dims), "0:X+")
        self.assertEqual(torus.cable_of(1, "xm", dims), "0:X+")
        self.assertEqual(torus.cable_of(0, "xm", dims), "2:X+")
        self.assertEqual(torus.cable_of(2, "yp", [3, 2, 1]), "2:Y+")

    def test_cable_ends(self):
        self.assertEqual(torus.cable_ends("2:X+", [3, 1, 1]),
                         ((2, "xp"), (0, "xm")))
        self.assertEqual(torus.cable_ends("1:Y+", [2, 2, 1]),
                         ((1, "yp"), (3, "ym")))

    def test_cable_str(self):
        self.assertEqual(torus.cable_str("0:X+", [2, 1, 1]),
                         "0(0,0,0) X+ <-> 1(1,0,0) X-")

    def test_cable_sort_is_numeric_then_port_order(self):
        keys = ["1:X+", "0:Y+", "0:X+", "10:X+", "2:Z+", "2:X+"]
        self.assertEqual(sorted(keys, key=torus.cable_sort),
                         ["0:X+", "0:Y+", "1:X+", "2:X+", "2:Z+", "10:X+"])

    def test_all_cables_counts(self):
        self.assertEqual(torus.all_cables([1, 1, 1]), [])
        self.assertEqual(torus.all_cables([2, 1, 1]), ["0:X+", "1:X+"])
        self.assertEqual(len(torus.all_cables([2, 2, 1])), 8)
        self.assertEqual(len(torus.all_cables([3, 3, 2])), 18 * 3)

    def test_both_ends_name_the_cable(self):
        for dims in SHAPES:
            keys = torus.all_cables(dims)
            self.assertEqual(len(set(keys)), len(keys))
            for k in keys:
                (a, pa), (b, pb) = torus.cable_ends(k, dims)
                self.assertEqual(torus.cable_of(a, pa, dims), k)
                self.assertEqual(torus.cable_of(b, pb, dims), k)
                self.assertEqual(torus.port_step(a, pa, dims), b)
                self.assertEqual(torus.port_step(b, pb, dims), a)


class Dims(unittest.TestCase):
    def test_good(self):
        self.assertEqual(torus.parse_dims("2x3x4"), [2, 3, 4])
        self.assertEqual(torus.parse_dims("2X2x1"), [2, 2, 1])
        self.assertEqual(torus.parse_dims("1x1x1"), [1, 1, 1])

    def test_bad_shape(self):
        for s in ("2x2", "axbxc", "2x2x1x1", "", "2x2x-1", " 2x2x1"):
            with self.assertRaises(Failure) as cm:
                torus.parse_dims(s)
            self.assertEqual(cm.exception.code, EXIT_USAGE)
            self.assertIn("want XxYxZ", str(cm.exception))

    def test_limits_come_from_the_header(self):
        top = c_define("uapi/vgemini_ctl.h", "VGEMINI_MAX_DIM")
        self.assertEqual(torus.parse_dims(f"{top}x1x1"), [top, 1, 1])
        for s in (f"{top + 1}x1x1", "0x1x1", f"1x1x{top + 1}"):
            with self.assertRaises(Failure) as cm:
                torus.parse_dims(s)
            self.assertEqual(cm.exception.code, EXIT_USAGE)
            self.assertIn(f"each size must be 1..{top}", str(cm.exception))
