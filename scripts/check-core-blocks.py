#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Check that each block of the device core touches only its own state.

    scripts/check-core-blocks.py          exit 1 and list what is wrong

struct gemini_nic (qemu-device/core/gemini_core.h) puts the state of
every block of the core in one allocation.  A block's files may use their
own members of it; the other blocks' they reach through those blocks'
APIs (their headers).  OWNERS below says which files own which member;
IDENTITY are the device's own members (its ops, configuration and ids),
which every block reads.

Checked:
  - every member of struct gemini_nic is in OWNERS or IDENTITY, and
    every name there is a member (a new member needs an owner);
  - in each core .c file, every use of a member through a struct
    gemini_nic (nic->member, GEMINI_CTL_FIELD(member...)) is its own or
    an identity member;
  - identity members are assigned only in gemini_core.c.

The tests (qemu-device/core/tests/) look at every block's state on
purpose and are not checked.
"""
import os
import re
import sys

CORE = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..',
                    'qemu-device', 'core')

IDENTITY = {'ops', 'opaque', 'cfg', 'gemini_id', 'pe', 'num_nodes'}

OWNERS = {
    'own': {'gemini_bus.c'},
    'ctl': {'gemini_ctl.c'},
    'port': {'gemini_port.c', 'gemini_lcb.c'},
    'link_irq': {'gemini_port.c', 'gemini_lcb.c'},
    'fault': {'gemini_fault.c'},
    'router': {'gemini_router.c'},
    'nic_ctr': {'gemini_nic.c'},
    'diag': {'gemini_diag.c'},
    'nat': {'gemini_nat.c'},
    'cq': {'gemini_cq.c'},
    'cq_stats': {'gemini_cq.c'},
    'rmt': {'gemini_rmt.c'},
    'rmt_seq': {'gemini_rmt.c'},
    'fma': {'gemini_fma.c', 'gemini_fma_seq.c', 'gemini_fma_regs.c'},
    'bte': {'gemini_bte.c', 'gemini_bte_xfer.c', 'gemini_bte_rx.c'},
}

# nic->member, nic.member (any variable named nic, n or ending in "nic"),
# and the control register tables' GEMINI_CTL_FIELD(member...).
USE = re.compile(r'\b(?:\w*nic|n)(?:->|\.)([a-z_]\w*)\b'
                 r'|GEMINI_CTL_FIELD\(\s*([a-z_]\w*)')
ASSIGN = re.compile(r'\b(?:\w*nic|n)->([a-z_]\w*)\s*(?:\[[^]]*\]\s*)*'
                    r'(?:\.\w+\s*)*(?:[-+*/|&^]?=(?!=)|\+\+|--)')


def members():
    """The members of struct gemini_nic, from gemini_core.h."""
    src = open(os.path.join(CORE, 'gemini_core.h')).read()
    m = re.search(r'^struct gemini_nic \{\n(.*?)^\};', src, re.S | re.M)
    if not m:
        sys.exit('gemini_core.h: no struct gemini_nic')
    body = re.sub(r'/\*.*?\*/', '', m.group(1), flags=re.S)
    names = set()
    for decl in body.split(';'):
        decl = decl.strip()
        if decl:
            names.add(re.match(r'.*?\**(\w+)\s*(\[[^]]*\])*$', decl,
                               re.S).group(1))
    return names


def strip_comments(src):
    src = re.sub(r'/\*.*?\*/', lambda m: '\n' * m.group(0).count('\n'),
                 src, flags=re.S)
    return re.sub(r'//[^\n]*', '', src)


def main():
    errors = []
    have = members()
    named = IDENTITY | set(OWNERS)
    for name in sorted(have - named):
        errors.append(f'gemini_core.h: struct gemini_nic member {name} '
                      'has no owner in scripts/check-core-blocks.py')
    for name in sorted(named - have):
        errors.append(f'scripts/check-core-blocks.py: {name} is no member '
                      'of struct gemini_nic')
    for fn in sorted(os.listdir(CORE)):
        if not fn.endswith('.c'):
            continue
        src = strip_comments(open(os.path.join(CORE, fn)).read())
        for lineno, line in enumerate(src.split('\n'), 1):
            for m in USE.finditer(line):
                name = m.group(1) or m.group(2)
                if name not in have or name in IDENTITY:
                    continue
                if fn not in OWNERS.get(name, set()):
                    owner = ', '.join(sorted(OWNERS[name]))
                    errors.append(f'{fn}:{lineno}: uses {name}, the state '
                                  f'of {owner}: call its API')
            if fn == 'gemini_core.c':
                continue
            for m in ASSIGN.finditer(line):
                if m.group(1) in IDENTITY:
                    errors.append(f'{fn}:{lineno}: writes {m.group(1)}, '
                                  'which only gemini_core.c sets')
    for e in errors:
        print(e)
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())
