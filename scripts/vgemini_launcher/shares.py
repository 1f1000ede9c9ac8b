# SPDX-License-Identifier: GPL-2.0-only
"""The host's directories that every guest sees at the same path (QEMU's
virtio-9p), as a Cray's compute nodes see the login node's /usr and home
directories: 'vgemini up' shares them, guest/init mounts them, and
'vgemini run ./prog' runs a program built on the host in the host's file
tree (Documentation/jobs.rst, "Programs built on the host").

With them goes the guest kernel's whole module tree (the image's
IMAGE/modules, which build-image.sh links to the kernel package's
lib/modules/KVER, indexed by depmod): guest/init mounts it read-only over
its own /lib/modules/KVER, which holds only what boot needs, so that
modprobe finds any module of the kernel (Documentation/vgemini.rst).

Every share is read-only but the directories the user names writable
(--share-rw); guest/init mounts them all nosuid,nodev, and in a writable
one QEMU keeps what a guest says of owners, modes and device nodes in
extended attributes (security_model=mapped-xattr), so that nothing a guest
does through a share makes a host file set-user-id, a device node or owned
by anyone but the user QEMU runs as (Documentation/security.rst).
"""

import errno
import os
import stat

from .common import EXIT_USAGE, REPO, Failure, warn

# /usr read-only: the host's libraries and tools, for the dynamic loader.
SYSTEM_SHARES = [("/usr", True)]
TAG_PREFIX = "vgs"
# What the guests keep their own (guest/init binds them into the view)
GUEST_OWN = ("/", "/tmp", "/etc", "/bin", "/sbin", "/lib", "/lib64")
GUEST_OWN_TREES = ("/proc", "/sys", "/dev", "/run")
MAX_SHARES = 16
# The kernel's module tree: its 9p tag, and the parameter that names it
MODULES_TAG = "vgsmod"
MODULES_ARG = "vgemini.modules"
XATTR_PROBE = "user.vgemini.probe"


def _inside(path, top):
    return path == top or path.startswith(top.rstrip("/") + "/")


def check_dir(d, opt="--share"):
    """The absolute, normalised form of directory @d; Failure if it cannot
    be shared."""
    a = os.path.normpath(os.path.abspath(d))
    if not os.path.isdir(a):
        raise Failure(f"{opt} {d}: not a directory", EXIT_USAGE)
    # The kernel command line carries TAG:PATH:MODE separated by commas.
    bad = [c for c in a if c in ",: \t\n\"'\\" or not c.isprintable()]
    if bad:
        raise Failure(f"{opt} {d}: the path may not contain {bad[0]!r}",
                      EXIT_USAGE)
    top = "/" + a.split("/")[1]
    if a in GUEST_OWN or top in GUEST_OWN_TREES:
        own = a if a in GUEST_OWN else top
        raise Failure(f"{opt} {d}: the guests' own {own} is there",
                      EXIT_USAGE)
    if _inside(a, "/usr") or _inside("/usr", a):
        raise Failure(f"{opt} {d}: the host's /usr is shared read-only "
                      "anyway", EXIT_USAGE)
    return a


def check_rw(d, protected, writer=None):
    """Directory @d checked for --share-rw: it may neither hold nor lie in
    what the launcher runs or keeps its state in (@protected: paths), its
    file system must keep extended attributes (mapped-xattr), and
    @writer ((uid, gids) of the user QEMU runs as, None for this process)
    must be able to write it.  Its normalised path."""
    a = check_dir(d, "--share-rw")
    real = os.path.realpath(a)
    for p in protected:
        rp = os.path.realpath(p)
        if _inside(rp, real) or _inside(real, rp):
            raise Failure(f"--share-rw {d}: a guest could change {p}, which "
                          "the launcher runs or keeps its state in; name a "
                          "directory outside it", EXIT_USAGE)
    try:
        os.setxattr(a, XATTR_PROBE, b"1")
        os.removexattr(a, XATTR_PROBE)
    except OSError as e:
        if e.errno in (errno.ENOTSUP, errno.EOPNOTSUPP):
            raise Failure(f"--share-rw {d}: its file system keeps no user "
                          "extended attributes, where QEMU records what the "
                          "guests make (owners, modes)", EXIT_USAGE)
        if e.errno != errno.EACCES:
            raise Failure(f"--share-rw {d}: {e.strerror}", EXIT_USAGE)
    if writer is not None and not may_write(a, *writer):
        raise Failure(f"--share-rw {d}: the QEMUs run as host user "
                      f"{writer[2]}, who cannot write it (e.g. 'chmod 1777 "
                      f"{a}', or 'chgrp {writer[2]} {a}' and 'chmod g+rwx "
                      f"{a}')", EXIT_USAGE)
    return a


def may_write(path, uid, gids, _name=None):
    """Whether the user (@uid, @gids) may create files in directory @path
    by its mode bits (what QEMU, as that user, needs of a --share-rw)."""
    st = os.stat(path)
    if uid == 0:
        return True
    if st.st_uid == uid:
        bits = stat.S_IWUSR | stat.S_IXUSR
    elif st.st_gid in gids:
        bits = stat.S_IWGRP | stat.S_IXGRP
    else:
        bits = stat.S_IWOTH | stat.S_IXOTH
    return st.st_mode & bits == bits


def plan(extra, cwd, enabled=True, rw=(), protected=(), writer=None):
    """The shares of a new fabric: [{"tag", "path", "readonly"}]: /usr, the
    repository, @extra (--share) and the current directory if it can be
    shared, all read-only, and @rw (--share-rw, checked by check_rw()
    against @protected and @writer) writable.  A share that lies inside
    another is left out unless it is writable in a read-only one."""
    if not enabled:
        return []
    wanted = [(p, ro) for p, ro in SYSTEM_SHARES]
    for d in [REPO] + list(extra or []):
        wanted.append((check_dir(d), True))
    for d in rw or []:
        wanted.append((check_rw(d, protected, writer), False))
    try:
        wanted.append((check_dir(cwd), True))
    except Failure:
        pass    # e.g. "up" run from / or /tmp: only what was asked for
    kept = []
    # Parents first; of one path, the writable share first.
    for p, ro in sorted(wanted, key=lambda w: (len(w[0]), w[1])):
        if any(_inside(p, k) and (ro or not kro) for k, kro in kept):
            continue
        kept.append((p, ro))
    if len(kept) > MAX_SHARES:
        raise Failure(f"at most {MAX_SHARES} shared directories", EXIT_USAGE)
    return [{"tag": f"{TAG_PREFIX}{i}", "path": p, "readonly": ro}
            for i, (p, ro) in enumerate(kept)]


def modules_share(image, enabled=True):
    """The share of the image's kernel module tree ({"tag", "path",
    "readonly", "kver"}, read-only), or None when @enabled is false
    (--no-share) or the image has no indexed tree for its kernel (built
    before build-image.sh linked one as IMAGE/modules): then the guests
    have only the image's few modules, and a warning says so."""
    if not enabled:
        return None
    link = os.path.join(image, "modules")
    path = os.path.realpath(link)
    try:
        with open(os.path.join(image, "kernel-version")) as f:
            kver = f.read().strip()
    except OSError:
        kver = None
    why = None
    if not os.path.isfile(os.path.join(path, "modules.dep")):
        why = f"{link} is not an indexed module tree"
    elif kver is not None and os.path.basename(path) != kver:
        why = f"{link} holds the modules of {os.path.basename(path)}, " \
            f"the image's kernel is {kver}"
    if why:
        warn(f"warning: {why} (rebuild the image: make image); modprobe in "
             "the guests finds only the image's modules")
        return None
    return {"tag": MODULES_TAG, "path": path, "readonly": True,
            "kver": os.path.basename(path)}


def modules_arg(share):
    """The kernel parameter that tells guest/init which 9p tag holds the
    module tree ("" for none)."""
    return f"{MODULES_ARG}={share['tag']}" if share else ""


def qemu_args(shares):
    """QEMU's options for @shares: one fsdev and virtio-9p device each."""
    argv = []
    for s in shares:
        tag = s["tag"]
        # Writable: mapped-xattr, the owner, mode and kind of what a guest
        # makes are kept in user.virtfs.* attributes; the host file is a
        # plain file or directory of QEMU's user, mode 0600 or 0700.
        # Read-only: none, which follows the host's symbolic links (mapped
        # reads a link's target from a file: /usr's would all fail).
        path = s["path"].replace(",", ",,")     # QEMU's option syntax
        if s["readonly"]:
            opt = f"local,id={tag},path={path},security_model=none," \
                "readonly=on"
        else:
            opt = f"local,id={tag},path={path}," \
                "security_model=mapped-xattr"
        argv += ["-fsdev", opt,
                 "-device", f"virtio-9p-pci,fsdev={tag},mount_tag={tag}"]
    return argv


def kernel_arg(shares):
    """The kernel parameter that tells guest/init what to mount where, and
    whether read-only (TAG:PATH:ro) or not (TAG:PATH:rw)."""
    if not shares:
        return ""
    return "vgemini.shares=" + ",".join(
        f"{s['tag']}:{s['path']}:{'ro' if s['readonly'] else 'rw'}"
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
