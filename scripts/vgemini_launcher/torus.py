# SPDX-License-Identifier: GPL-2.0-only
"""Torus geometry: node indices and coordinates, neighbours, ports
('xp' / 'X+'), links (cables, named 'N:X+') and distances; --dims.
Pure functions of the torus shape.
"""

import re

from .common import EXIT_USAGE, Failure, header_define, header_table


DIMS = "xyz"
# The six torus ports in enum gemini_port order (uapi/vgemini_names.h):
# the launcher's keys ("xp"), and the names the cray-gemini device gives
# them ("X+").
PORTS = header_table("vgemini_names.h", "VGEMINI_PORT_LIST", "gemini_hw.h",
                     "GEMINI_PORT_", 2)
PORT_LABELS = header_table("vgemini_names.h", "VGEMINI_PORT_LIST",
                           "gemini_hw.h", "GEMINI_PORT_", 1)


def parse_dims(s):
    m = re.fullmatch(r"(\d+)[xX](\d+)[xX](\d+)", s)
    if not m:
        raise Failure(f"bad --dims '{s}': want XxYxZ, e.g. 2x2x1", EXIT_USAGE)
    dims = [int(v) for v in m.groups()]
    top = header_define("vgemini_ctl.h", "VGEMINI_MAX_DIM")
    if any(d < 1 or d > top for d in dims):
        raise Failure(f"bad --dims '{s}': each size must be 1..{top}",
                      EXIT_USAGE)
    return dims


def coord_of(n, dims):
    dx, dy, _ = dims
    return [n % dx, (n // dx) % dy, n // (dx * dy)]


def index_of(c, dims):
    return c[0] + dims[0] * (c[1] + dims[1] * c[2])


def neighbour(n, dims, d, step):
    c = coord_of(n, dims)
    i = DIMS.index(d)
    c[i] = (c[i] + step) % dims[i]
    return index_of(c, dims)


def port_label(p):
    """'xp' -> 'X+'."""
    return PORT_LABELS[PORTS.index(p)]


def port_key(label):
    """'X+' -> 'xp'."""
    return PORTS[PORT_LABELS.index(label)]


def parse_port(s):
    """X+, x-, xp, XM, ... -> 'xp' etc."""
    k = s.strip().lower()
    for key, label in zip(PORTS, PORT_LABELS):
        if k in (key, label.lower()):
            return key
    raise Failure(f"bad port '{s}': want {', '.join(PORT_LABELS[:-1])} or "
                  f"{PORT_LABELS[-1]}", EXIT_USAGE)


def node_str(n, dims):
    c = coord_of(n, dims)
    return f"{n}({c[0]},{c[1]},{c[2]})"


def port_step(n, p, dims):
    """The node that node n's port p ('xp' ...) leads to."""
    return neighbour(n, dims, p[0], +1 if p[1] == "p" else -1)


def torus_distance(a, b, dims):
    ca, cb = coord_of(a, dims), coord_of(b, dims)
    return sum(min((cb[i] - ca[i]) % k, (ca[i] - cb[i]) % k)
               for i, k in enumerate(dims))


def cable_of(n, p, dims):
    """The key ('N:X+') of the link on node n's port p."""
    if p[1] == "m":
        n, p = neighbour(n, dims, p[0], -1), p[0] + "p"
    return f"{n}:{port_label(p)}"


def cable_ends(key, dims):
    """((node, port), (node, port)) of a link key: its + and - ends."""
    n, label = key.rsplit(":", 1)
    n, p = int(n), port_key(label)
    return (n, p), (neighbour(n, dims, p[0], +1), p[0] + "m")


def cable_str(key, dims):
    (a, pa), (b, pb) = cable_ends(key, dims)
    return (f"{node_str(a, dims)} {port_label(pa)} <-> "
            f"{node_str(b, dims)} {port_label(pb)}")


def cable_sort(key):
    n, label = key.rsplit(":", 1)
    return int(n), PORT_LABELS.index(label)


def all_cables(dims):
    """Every link of the torus (none in a dimension of size 1, whose
    ports are cabled to themselves and unused)."""
    return [f"{n}:{port_label(d + 'p')}"
            for n in range(dims[0] * dims[1] * dims[2])
            for i, d in enumerate(DIMS) if dims[i] > 1]
