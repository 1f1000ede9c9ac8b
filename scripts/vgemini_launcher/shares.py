# SPDX-License-Identifier: GPL-2.0-only
"""The host's directories that every guest sees at the same path (QEMU's
virtio-9p), as a Cray's compute nodes see the login node's /usr and home
directories: 'vgemini up' shares them, guest/init mounts them, and
'vgemini run ./prog' runs a program built on the host in the host's file
tree (Documentation/jobs.rst, "Programs built on the host").
"""

import os

from .common import EXIT_USAGE, REPO, Failure

# /usr read-only: the host's libraries and tools, for the dynamic loader.
SYSTEM_SHARES = [("/usr", True)]
TAG_PREFIX = "vgs"
# What the guests keep their own (guest/init binds them into the view)
GUEST_OWN = ("/", "/tmp", "/etc", "/bin", "/sbin", "/lib", "/lib64")
GUEST_OWN_TREES = ("/proc", "/sys", "/dev", "/run")
MAX_SHARES = 16


def _inside(path, top):
    return path == top or path.startswith(top.rstrip("/") + "/")


def check_dir(d):
    """The absolute, normalised form of directory @d; Failure if it cannot
    be shared."""
    a = os.path.normpath(os.path.abspath(d))
    if not os.path.isdir(a):
        raise Failure(f"--share {d}: not a directory", EXIT_USAGE)
    # The kernel command line carries TAG:PATH,TAG:PATH separated by blanks.
    bad = [c for c in a if c in ",: \t\n\"'\\" or not c.isprintable()]
    if bad:
        raise Failure(f"--share {d}: the path may not contain {bad[0]!r}",
                      EXIT_USAGE)
    top = "/" + a.split("/")[1]
    if a in GUEST_OWN or top in GUEST_OWN_TREES:
        own = a if a in GUEST_OWN else top
        raise Failure(f"--share {d}: the guests' own {own} is there",
                      EXIT_USAGE)
    if _inside(a, "/usr") or _inside("/usr", a):
        raise Failure(f"--share {d}: the host's /usr is shared read-only "
                      "anyway", EXIT_USAGE)
    return a


def plan(extra, cwd, enabled=True):
    """The shares of a new fabric: [{"tag", "path", "readonly"}], /usr,
    the repository, @extra (--share) and the current directory if it can
    be shared, without one that lies inside another."""
    if not enabled:
        return []
    wanted = [(p, ro) for p, ro in SYSTEM_SHARES]
    for d in [REPO] + list(extra or []):
        wanted.append((check_dir(d), False))
    try:
        wanted.append((check_dir(cwd), False))
    except Failure:
        pass    # e.g. "up" run from / or /tmp: only what was asked for
    kept = []
    for p, ro in sorted(wanted, key=lambda w: len(w[0])):
        if any(_inside(p, k) for k, _ in kept):
            continue
        kept.append((p, ro))
    if len(kept) > MAX_SHARES:
        raise Failure(f"at most {MAX_SHARES} shared directories", EXIT_USAGE)
    return [{"tag": f"{TAG_PREFIX}{i}", "path": p, "readonly": ro}
            for i, (p, ro) in enumerate(kept)]


def qemu_args(shares):
    """QEMU's options for @shares: one fsdev and virtio-9p device each."""
    argv = []
    for s in shares:
        tag = s["tag"]
        # security_model=none: files the guest makes are the host user's;
        # it cannot make set-user-id files or change their owners.
        opt = f"local,id={tag},path={s['path']},security_model=none"
        if s["readonly"]:
            opt += ",readonly=on"
        argv += ["-fsdev", opt,
                 "-device", f"virtio-9p-pci,fsdev={tag},mount_tag={tag}"]
    return argv


def kernel_arg(shares):
    """The kernel parameter that tells guest/init what to mount where."""
    if not shares:
        return ""
    return "vgemini.shares=" + ",".join(f"{s['tag']}:{s['path']}"
                                        for s in shares)


def host_program(shares, prog, cwd):
    """If @prog names a file by path (it has a '/'), the absolute path the
    guests see it at, and the directory to start in (@cwd), both checked to
    be shared; None for a bare name (a program of the guest image)."""
    if "/" not in prog:
        return None
    path = os.path.normpath(os.path.join(cwd, prog))
    dirs = [s["path"] for s in shares]
    where = ", ".join(dirs) if dirs else "none"
    if not os.path.exists(path):
        raise Failure(f"{prog}: no such file on the host", EXIT_USAGE)
    if not any(_inside(path, d) for d in dirs):
        raise Failure(f"{prog}: {path} is not in a directory shared with "
                      f"the guests (shared: {where}); boot with 'vgemini "
                      "up --share DIR'", EXIT_USAGE)
    if not any(_inside(cwd, d) for d in dirs):
        raise Failure(f"the current directory {cwd} is not shared with the "
                      f"guests (shared: {where}): run from a shared "
                      "directory, or boot with 'vgemini up --share DIR'",
                      EXIT_USAGE)
    return path, cwd
