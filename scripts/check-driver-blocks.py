#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Check that each file of kgni touches only its own part of the device.

    scripts/check-driver-blocks.py        exit 1 and list what is wrong

struct kgni_dev (driver/kgni.h) holds the state of every role of the
driver: a few members are the device's own (IDENTITY below: its devices,
its BARs, its removal), which every file uses; each of the others is
one role's sub-struct (struct kgni_bte_state bte, ...), which its own
files use, and the other files reach through their functions.  OWNERS
says which files own which member.  A key "member.field" (dp.lock)
gives one field of a sub-struct owners of its own; the sub-struct's
other fields keep the member's.

Where a file of another role does use a member, it is listed among the
owners with a comment saying why.

Checked:
  - every member of struct kgni_dev is in OWNERS or IDENTITY, and every
    name there is a member (a new member needs an owner);
  - in each driver file (driver/*.c, driver/*.h, driver/ipogif/), every
    use of a member through a struct kgni_dev (kdev->member,
    kdev->member.field, container_of(..., struct kgni_dev, member...))
    is one the file owns, or an identity member;
  - every file OWNERS lists for a member uses it (no stale owner).
"""
import glob
import os
import re
import sys

DRIVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..',
                      'driver')

IDENTITY = {'dev', 'cdev', 'pdev', 'minor', 'ctl', 'nic_phys', 'mmr',
            'fma_priv', 'ctl_rwsem', 'gone', 'debugfs'}

# Data path files that take dp.lock around their own state.
DP_LOCK = {'kgni_mem.c', 'kgni_mem_map.c', 'kgni_mem_user.c',
           'kgni_mem_hold.c', 'kgni_kmem.c', 'kgni_job.c',
           'kgni_job_suspend.c', 'kgni_ntt.c', 'kgni_bi.c', 'kgni_cq.c',
           'kgni_kcq.c', 'kgni_fma.c', 'kgni_bte.c', 'kgni_mmap.c',
           'kgni_dgram.c', 'kgni_dgram_xport.c', 'kgni_kdom.c',
           'kgni_err_user.c', 'kgni_main.c'}

OWNERS = {
    'irq': {'kgni_pci.c', 'kgni_selftest.c',
            # each programs its own interrupt's vector into the device
            'kgni_port.c', 'kgni_diag.c', 'kgni_cq.c'},
    'link': {'kgni_port.c', 'kgni_fabric.c',
             # the MSI-X handler schedules the link work; teardown
             # cancels it after freeing the vectors
             'kgni_pci.c'},
    'kapi': {'kgni_kdom.c',
             # kapi.lock protects the error subscriptions too
             'kgni_err.c', 'kgni_err_user.c'},
    'err': {'kgni_err.c', 'kgni_err_user.c'},
    'hold': {'kgni_mem_hold.c',
             # a kernel client's deregistration finds and releases its
             # hold under mem.lock, where it may not sleep
             'kgni_kmem.c'},
    'kcq': {'kgni_kcq.c'},
    'diag': {'kgni_diag.c',
             # kgni_dev_alloc() initialises the lock and the wait queue
             'kgni_main.c',
             # the MSI-X handler and remove wake its waiter
             'kgni_pci.c', 'kgni_ioctl.c'},
    'dp': {'kgni_job.c', 'kgni_job_suspend.c',
           # kgni_dev_alloc() initialises the lists and the wait queue
           'kgni_main.c',
           # remove wakes the waiters of a suspended job
           'kgni_ioctl.c',
           # a mapping's fault waits for a suspended job to resume
           'kgni_mmap.c',
           # a job's quotas and NTT block, read by the file that counts
           # them or translates through them
           'kgni_cq.c', 'kgni_ntt.c',
           # revoking a released job walks every domain for its objects
           'kgni_mem.c', 'kgni_fma.c'},
    'dp.lock': DP_LOCK,
    'mem': {'kgni_mem.c', 'kgni_mem_map.c', 'kgni_mem_hold.c',
            'kgni_kmem.c',
            # kgni_dev_alloc() initialises the lock, list and work
            'kgni_main.c',
            # a BTE orphan holds its MDH (mdd_map) until it is idle
            'kgni_bte.c'},
    'cq': {'kgni_cq.c',
           # mapping the tables reserves CQ 0 for the MDDs' cqh 0
           'kgni_mem_map.c',
           # the MSI-X handler and remove wake the waiters;
           # kgni_dev_alloc() initialises the wait queue
           'kgni_pci.c', 'kgni_ioctl.c', 'kgni_main.c'},
    'fma': {'kgni_fma.c',
            # kgni_dev_alloc() initialises the list and the work
            'kgni_main.c',
            # a posted BTE orphan arms the same drain work
            'kgni_bte.c',
            # a suspended job's FMAs may still be draining
            'kgni_job_suspend.c'},
    'ntt': {'kgni_ntt.c'},
    'bi': {'kgni_bi.c'},
    'bte': {'kgni_bte.c',
            # the datagram service runs over its own BTE channel and RX
            # ring
            'kgni_dgram_xport.c',
            # the drain work looks at the BTE's orphans until it stops
            'kgni_fma.c'},
    'dg': {'kgni_dgram.c', 'kgni_dgram_proto.c', 'kgni_dgram_xport.c',
           'kgni_dgram.h',
           # kgni_dev_alloc() initialises it; remove wakes its waiters;
           # teardown cancels its work after freeing the vectors
           'kgni_main.c', 'kgni_ioctl.c', 'kgni_pci.c'},
}

# kdev->member[.field], and container_of(..., struct kgni_dev, member...)
USE = re.compile(r'\bkdev\s*->\s*([a-z_]\w*)(?:\s*\.\s*([a-z_]\w*))?'
                 r'|struct\s+kgni_dev\s*,\s*([a-z_]\w*)(?:\.([a-z_]\w*))?')


def members():
    """The members of struct kgni_dev, from kgni.h."""
    src = open(os.path.join(DRIVER, 'kgni.h')).read()
    m = re.search(r'^struct kgni_dev \{\n(.*?)^\};', src, re.S | re.M)
    if not m:
        sys.exit('kgni.h: no struct kgni_dev')
    body = re.sub(r'/\*.*?\*/', '', m.group(1), flags=re.S)
    names = set()
    for decl in body.split(';'):
        decl = decl.strip()
        if not decl:
            continue
        bitmap = re.match(r'DECLARE_BITMAP\(\s*(\w+)', decl)
        names.add(bitmap.group(1) if bitmap else
                  re.match(r'.*?\**(\w+)\s*(\[[^]]*\])*$', decl,
                           re.S).group(1))
    return names


def strip_comments(src):
    src = re.sub(r'/\*.*?\*/', lambda m: '\n' * m.group(0).count('\n'),
                 src, flags=re.S)
    return re.sub(r'//[^\n]*', '', src)


def files():
    for path in sorted(glob.glob(os.path.join(DRIVER, '*.[ch]')) +
                       glob.glob(os.path.join(DRIVER, 'ipogif', '*.[ch]'))):
        yield os.path.relpath(path, DRIVER), path


def main():
    errors = []
    have = members()
    named = IDENTITY | {k.split('.')[0] for k in OWNERS}
    for name in sorted(have - named):
        errors.append(f'driver/kgni.h: struct kgni_dev member {name} has '
                      'no owner in scripts/check-driver-blocks.py')
    for name in sorted(named - have):
        errors.append(f'scripts/check-driver-blocks.py: {name} is no '
                      'member of struct kgni_dev')
    used = {key: set() for key in OWNERS}
    for rel, path in files():
        fn = os.path.basename(rel)
        src = strip_comments(open(path).read())
        for lineno, line in enumerate(src.split('\n'), 1):
            for m in USE.finditer(line):
                name = m.group(1) or m.group(3)
                field = m.group(2) or m.group(4)
                if name not in have or name in IDENTITY:
                    continue
                key = f'{name}.{field}'
                if key not in OWNERS:
                    key = name
                used[key].add(fn)
                if fn not in OWNERS[key]:
                    owner = ', '.join(sorted(OWNERS[key]))
                    errors.append(f'driver/{rel}:{lineno}: uses {key}, '
                                  f'the state of {owner}: call its '
                                  'functions')
    for key in sorted(OWNERS):
        for fn in sorted(OWNERS[key] - used[key]):
            errors.append(f'scripts/check-driver-blocks.py: {fn} is an '
                          f'owner of {key} but does not use it')
    for e in errors:
        print(e)
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())
