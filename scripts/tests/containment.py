#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Containment (Documentation/security.rst): a guest cannot reach the
host, a job cannot reach another job.

Boots a 2x1x1 fabric of its own with a scratch directory shared writable
(--share-rw) and an Ethernet segment (--net), and checks, each against
what the attack would do if it worked:
- every QEMU runs as the unprivileged host user (not root), under its
  seccomp filter; the run and link directories are 0700, the console logs
  0600; the Ethernet hub's socket still takes the QEMUs' frames;
- the guests mount every share nosuid,nodev, read-only but the one named
  writable;
- every guest mounts the kernel's module tree read-only (nosuid, nodev,
  noexec) over its /lib/modules/KVER, and guest root cannot write it; root
  loads sunrpc, which the image does not carry (lnet.ko needs it), with
  modprobe;
- guest root, in the writable share, makes a device node, a set-user-id
  root-owned file and a file it chowns to root: on the host none is a
  device, set-user-id or root's; it cannot write the repository;
- a victim job (started by 'vgemini run', ptag and cookie given) sleeps,
  then runs ugni_putget, data checked; meanwhile a hostile job's ranks try
  to read the victim's environment (its cookie), join its cgroup, attach
  to its domain with its ptag and cookie, load a module (insmod of the
  image's, modprobe of the tree's), open BAR0 through sysfs and write the
  repository: each fails, and the hostile ranks are
  not root; a third job asking for the victim's ptag is refused; the
  victim passes.
Always tears the fabric down and removes what it made.  Prints TAP.
"""

import glob
import json
import os
import pwd
import shutil
import stat
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import fabric_lib as fl  # noqa: E402

REPO = fl.REPO
VICTIM_PTAG = 200
VICTIM_COOKIE = 0x5a5a0000
PLANTED = os.path.join(REPO, "build", "planted-by-a-guest")
sys.path.insert(0, os.path.join(REPO, "scripts"))
from vgemini_launcher.net import node_ip  # noqa: E402
NODE1_IP = node_ip(1)

# The hostile ranks' script: one "ok WHAT" or "LEAK WHAT" line per attack.
HOSTILE = r'''
me=$(cat /proc/self/cgroup)
victim=
for c in /sys/fs/cgroup/vgemini-job-*; do
	[ "0::/${c##*/}" = "$me" ] || victim=${c##*/}
done
pid=$(head -n 1 /sys/fs/cgroup/$victim/cgroup.procs 2>/dev/null)
[ -n "$victim" ] && echo "ok found $victim" || echo "LEAK no victim"
if [ -n "$pid" ] && grep -qa PMI_GNI_COOKIE /proc/$pid/environ 2>/dev/null
then echo "LEAK environ"; else echo "ok environ"; fi
if (echo $$ >/sys/fs/cgroup/$victim/cgroup.procs) 2>/dev/null
then echo "LEAK cgroup"; else echo "ok cgroup"; fi
if kgni-job attach $1 $2 >/dev/null 2>&1
then echo "LEAK attach"; else echo "ok attach"; fi
if insmod /lib/modules/kgni_ktest.ko 2>/dev/null
then echo "LEAK insmod"; rmmod kgni_ktest; else echo "ok insmod"; fi
modprobe crc_itu_t 2>/dev/null
if [ -d /sys/module/crc_itu_t ]
then echo "LEAK modprobe"; else echo "ok modprobe"; fi
if (: <>/sys/class/gni/kgni0/device/resource0) 2>/dev/null
then echo "LEAK bar0"; else echo "ok bar0"; fi
if touch $3 2>/dev/null; then echo "LEAK repository"
else echo "ok repository"; fi
u=$(id -u)
[ "$u" != 0 ] && echo "ok uid $u" || echo "LEAK uid 0"
'''


def status_fields(pid):
    with open(f"/proc/{pid}/status") as f:
        return dict(ln.split(":\t", 1) for ln in f.read().splitlines()
                    if ":\t" in ln)


def qemu_pids(fab):
    try:
        with open(os.path.join(fab.rundir, "topology.json")) as f:
            return [nd["pid"] for nd in json.load(f)["nodes"]]
    except (OSError, ValueError, KeyError, TypeError):
        return []


def host_side(tap, fab):
    user = pwd.getpwnam(os.environ.get("VGEMINI_QEMU_USER") or "vgemini")
    bad = []
    pids = qemu_pids(fab)
    for pid in pids:
        try:
            st = status_fields(pid)
        except OSError as e:
            bad.append(f"{pid}: {e}")
            continue
        uids = st.get("Uid", "").split()
        if set(uids) != {str(user.pw_uid)}:
            bad.append(f"QEMU {pid} runs as uids {uids}")
        if st.get("Seccomp", "").strip() != "2":
            bad.append(f"QEMU {pid}: Seccomp {st.get('Seccomp')}")
        if st.get("CapEff", "").strip() != "0000000000000000":
            bad.append(f"QEMU {pid}: capabilities {st.get('CapEff')}")
    tap.ok(len(pids) == 2 and not bad, f"every QEMU runs as host user "
           f"{user.pw_name}, no capability, under seccomp",
           f"pids {pids}\n" + "\n".join(bad))
    modes = {}
    for p in (fab.rundir, fab.linkdir):
        modes[p] = stat.S_IMODE(os.stat(p).st_mode)
    for f in os.listdir(fab.rundir):
        if f.endswith(".console"):
            p = os.path.join(fab.rundir, f)
            modes[p] = stat.S_IMODE(os.stat(p).st_mode)
    # The run directory's group (the QEMUs') may only pass through it,
    # to the routing tables.
    wrong = {p: oct(m) for p, m in modes.items()
             if m & 0o067 or (m & 0o010 and p != fab.rundir)}
    tap.ok(len(modes) == 4 and not wrong, "the run and link directories and "
           "the console logs are the launcher's alone",
           f"{ {p: oct(m) for p, m in modes.items()} }")


def mounts(tap, rw):
    rc, out, err = fl.vg("exec", "all", "--", "sh", "-c",
                         "grep ' 9p ' /proc/mounts", timeout=120)
    bad = []
    lines = [ln for ln in out.splitlines() if " 9p " in ln]
    for ln in lines:
        f = ln.split()
        path, opts = f[2], f[4].split(",")
        want_rw = path.endswith(rw)
        if "nosuid" not in opts or "nodev" not in opts:
            bad.append(f"not nosuid,nodev: {ln}")
        if ("rw" in opts) != want_rw:
            bad.append(f"{'not ' if want_rw else ''}writable: {ln}")
    tap.ok(rc == 0 and len(lines) >= 8 and not bad, "every share is "
           "nosuid,nodev, read-only but the one named writable",
           "\n".join(bad) + "\n" + out + err)


# Each node: its module tree's mount line, whether guest root could write
# there; node 0 also loads sunrpc (not in the image; lnet.ko needs it).
MODULES = r'''
k=/lib/modules/$(uname -r)
grep " $k 9p " /proc/mounts
if touch $k/planted 2>/dev/null; then echo "wrote $k"; rm -f $k/planted; fi
if [ "$(hostname)" = node0 ]; then
	[ -d /sys/module/sunrpc ] && echo "sunrpc before"
	modprobe sunrpc && [ -d /sys/module/sunrpc ] && echo "sunrpc loaded"
fi
true
'''


def kernel_modules(tap):
    """The kernel's module tree (Documentation/vgemini.rst): read-only,
    and modprobe finds a module the image does not carry."""
    rc, out, err = fl.vg("exec", "all", "--", "sh", "-c", MODULES,
                         timeout=120)
    lines = fl.by_rank(out, 2) or {}
    bad = []
    for n in range(2):
        mnt = [ln for ln in lines.get(n, []) if " 9p " in ln]
        opts = mnt[0].split()[3].split(",") if len(mnt) == 1 else []
        if not mnt or not {"ro", "nosuid", "nodev", "noexec"} <= set(opts):
            bad.append(f"node {n}: module tree not mounted ro,nosuid,nodev,"
                       f"noexec: {mnt}")
        if any(ln.startswith("wrote") for ln in lines.get(n, [])):
            bad.append(f"node {n}: guest root wrote into the module tree")
    tap.ok(rc == 0 and not bad, "every guest mounts the kernel's module "
           "tree over /lib/modules/KVER read-only, nosuid,nodev,noexec",
           "\n".join(bad) + f"\nexit {rc}\n{out}{err}")
    got = lines.get(0, [])
    # What the image carries (build-image.sh's staging tree), if it is here
    image = glob.glob(os.path.join(REPO, "build", "image", "root", "lib",
                                   "modules", "*", "modules.dep"))
    carried = []
    for dep in image:
        with open(dep) as f:
            carried += [ln for ln in f if "/sunrpc.ko:" in ln]
    tap.ok(rc == 0 and "sunrpc loaded" in got and "sunrpc before" not in got
           and not carried,
           "modprobe sunrpc (not in the image) loads it from the tree",
           f"exit {rc}\n{out}{err}\nin the image: {carried}")


def guest_root(tap, rw):
    """Guest root in the writable share and in the repository."""
    script = (f"cd {rw} && mknod dev c 1 3; touch suid && chown 0:0 suid && "
              "chmod 4755 suid; touch own && chown 0:0 own; "
              f"ls -ln {rw} >&2; touch {PLANTED} && echo planted; true")
    rc, out, err = fl.vg("exec", "0", "--", "sh", "-c", script, timeout=120)
    bad = []
    for name in ("dev", "suid", "own"):
        p = os.path.join(rw, name)
        try:
            st = os.lstat(p)
        except OSError as e:
            bad.append(f"{name}: {e}")
            continue
        if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode):
            bad.append(f"{name} is a device node on the host")
        if st.st_mode & (stat.S_ISUID | stat.S_ISGID):
            bad.append(f"{name} is set-user-id on the host "
                       f"({stat.filemode(st.st_mode)})")
        if st.st_uid == 0:
            bad.append(f"{name} belongs to root on the host")
    tap.ok(rc == 0 and not bad, "guest root makes a device node, a "
           "set-user-id root file and a root file in the writable share: on "
           "the host none is a device, set-user-id or root's",
           "\n".join(bad) + f"\nexit {rc}\n{out}{err}")
    tap.ok("planted" not in out and not os.path.exists(PLANTED),
           "guest root cannot write the repository", out + err)


def jobs(tap, rw):
    victim = subprocess.Popen(
        [fl.VGEMINI, "run", "--timeout", "300", "-n", "2", "--ptag",
         str(VICTIM_PTAG), "--cookie", hex(VICTIM_COOKIE), "--",
         "sh", "-c", "sleep 20; exec ugni_putget"],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL, text=True)
    try:
        # The victim's ranks are in their cgroup on node 1 once it has one.
        end = time.monotonic() + 120
        live = False
        while time.monotonic() < end and victim.poll() is None:
            rc, out, err = fl.vg("exec", "1", "--", "sh", "-c",
                                 "cat /sys/fs/cgroup/vgemini-job-*/"
                                 "cgroup.procs", timeout=60)
            if rc == 0 and out.strip():
                live = True
                break
            time.sleep(0.5)
        tap.ok(live, "the victim job's ranks are running")
        rc, out, err, t = fl.run_job("-n", 2, "--", "sh", "-c", HOSTILE,
                                     "hostile", VICTIM_PTAG,
                                     hex(VICTIM_COOKIE), PLANTED, cwd=rw)
        lines = fl.by_rank(out, 2) or {}
        for what in ("found", "environ", "cgroup", "attach", "insmod",
                     "modprobe", "bar0", "repository", "uid"):
            got = [ln for r in lines for ln in lines[r]
                   if ln.split()[1:2] == [what]]
            tap.ok(len(got) == 2 and all(ln.startswith("ok ") for ln in got),
                   f"a hostile rank: {what} refused", f"exit {rc}\n{out}{err}")
        rc, out, err, t = fl.run_job("-n", 1, "--ptag", VICTIM_PTAG, "true")
        tap.ok(rc != 0 and f"--ptag {VICTIM_PTAG}" in err,
               "a job asking for a live job's ptag is refused",
               f"exit {rc}\n{out}{err}")
        try:
            out, err = victim.communicate(timeout=400)
        except subprocess.TimeoutExpired:
            victim.kill()
            out, err = victim.communicate()
        why = fl.ranks_passed(out, 2, "ugni_putget")
        tap.ok(victim.returncode == 0 and not why, "the victim job "
               "passes, data checked", f"exit {victim.returncode}: {why}\n"
               f"{out[-3000:]}{err[-3000:]}")
    finally:
        if victim.poll() is None:
            victim.kill()
            victim.wait()


def ethernet(tap):
    """The Ethernet hub's socket is the QEMUs' to send to, unprivileged."""
    rc, out, err = fl.vg("exec", "0", "--", "ping", "-c", "2", "-W", "10",
                         NODE1_IP, timeout=120)
    tap.ok(rc == 0, "--net: node 0 pings node 1 through the hub with the "
           "QEMUs unprivileged", f"exit {rc}\n{out}{err}")


def body(tap, fab, rw):
    if not fab.up(tap, "2x1x1", extra=("--share-rw", rw, "--net")):
        return
    host_side(tap, fab)
    ethernet(tap)
    mounts(tap, rw)
    kernel_modules(tap)
    guest_root(tap, rw)
    jobs(tap, rw)


def main():
    rw = tempfile.mkdtemp(prefix="vgemini-rw-", dir="/var/tmp")
    os.chmod(rw, 0o1777)
    try:
        if os.path.exists(PLANTED):
            os.unlink(PLANTED)
        fl.run_test("containment", lambda tap, fab: body(tap, fab, rw))
    finally:
        shutil.rmtree(rw, ignore_errors=True)


if __name__ == "__main__":
    main()
