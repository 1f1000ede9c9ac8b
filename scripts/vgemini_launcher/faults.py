# SPDX-License-Identifier: GPL-2.0-only
"""Faults: the link fault injector specs and 'vgemini fault'.
"""

from .common import EXIT_OK, EXIT_USAGE, Failure
from .torus import PORTS, node_str, parse_port, port_label
from .qmp import QMPError, qom_get, qom_set
from .fabric import Fabric, need_gemini


FAULT_KEYS = {"corrupt": "fraction", "drop": "fraction", "delay": "fraction",
              "delay-ms": "count", "down": "bool", "seed": "count"}


def check_fault_spec(spec):
    """The spec, checked; '' for none."""
    spec = spec.strip()
    if spec.lower() in ("", "none"):
        return ""
    for item in spec.split(","):
        k, eq, v = item.partition("=")
        k = k.strip()
        kind = FAULT_KEYS.get(k)
        if kind is None or not eq:
            raise Failure(f"bad fault '{item}': want KEY=VALUE with KEY one "
                          f"of {', '.join(FAULT_KEYS)}", EXIT_USAGE)
        try:
            if kind == "fraction":
                ok = 0.0 <= float(v) <= 1.0
            elif kind == "bool":
                ok = v.strip() in ("0", "1")
            else:
                ok = int(v, 0) >= 0
        except ValueError:
            ok = False
        if not ok:
            want = {"fraction": "a fraction 0..1", "bool": "0 or 1",
                    "count": "a whole number >= 0"}[kind]
            raise Failure(f"bad fault '{item}': {k} wants {want}",
                          EXIT_USAGE)
    return spec


def cmd_fault(args):
    fab = Fabric(args.fabric)
    dims = fab.topology()["dims"]
    need_gemini(fab)
    n = fab.node_arg(args.node)
    ports = [parse_port(args.port)] if args.port else PORTS
    spec = None if args.spec is None else check_fault_spec(args.spec)
    if spec is not None and not args.port:
        raise Failure("which port? vgemini fault NODE PORT SPEC",
                      EXIT_USAGE)
    try:
        with fab.qmp(n, args.timeout) as q:
            if spec is not None:
                qom_set(q, f"fault-{ports[0]}", spec or "none")
            for p in ports:
                cur = qom_get(q, f"fault-{p}")
                cur = cur if cur and cur != "none" else "no faults"
                print(f"{node_str(n, dims)} {port_label(p)}: {cur}")
    except QMPError as e:
        raise Failure(f"node {n}: {e}")
    return EXIT_OK
