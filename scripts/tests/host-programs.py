#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Programs built on the host run in the guests unchanged
(Documentation/jobs.rst, "Programs built on the host").

Builds selftests/ugni/ugni_dgram.c on the host as a Cray user would, linked
dynamically through pkg-config (cray-ugni, cray-pmi), boots a 2x2x2 fabric
of its own with a scratch directory shared writable (--share-rw), and
checks:
- every guest mounts the host's /usr and the repository read-only and the
  shared directory writable, at their own paths;
- "vgemini run -n 8 build/host-programs/ugni_dgram" (and -n 16 --ppn 2)
  passes on every rank, with no rebuilt image;
- a script in the shared directory run as "./rank.sh" from there starts in
  that directory with the caller's environment, runs the host's /bin/sh,
  and the files each rank writes there are on the host byte for byte; a
  rank cannot write into the host's /usr; each rank finds /proc/job and
  task_is_app in its /proc/PID/task/PID (and the kernel's files there),
  and PMI_NO_FORK, as Open MPI's Cray support wants;
- a program linked with Debian's libhugetlbfs (selftests/hugetlbfs/
  hugetlb_alloc.c), as MSGQ users allocate huge pages, gets a huge page
  backed by the guest's hugetlbfs on 2 nodes;
- a bare program name is still the image's (pmi_test);
- usage errors: a program or current directory that is not shared, a
  program that does not exist.
Always tears the fabric down and removes what it made.  Prints TAP.
"""

import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import fabric_lib as fl  # noqa: E402

REPO = os.path.realpath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT = os.path.join(REPO, "build", "host-programs")
PROG = "ugni_dgram"
JOB_TIMEOUT = 300


def build(tap):
    """ugni_dgram built on the host, dynamically, through pkg-config."""
    os.makedirs(OUT, exist_ok=True)
    env = dict(os.environ,
               PKG_CONFIG_PATH=os.path.join(REPO, "build", "lib",
                                            "pkgconfig"))

    def pkg(*args):
        return subprocess.run(["pkg-config", *args, "cray-ugni", "cray-pmi"],
                              env=env, capture_output=True, text=True,
                              check=True).stdout.split()
    exe = os.path.join(OUT, PROG)
    cmd = (["cc", "-std=gnu11", "-O2", "-g", "-Wall", "-Wextra", "-Werror"]
           + pkg("--cflags") + [os.path.join(REPO, "selftests", "ugni",
                                             PROG + ".c"), "-o", exe]
           + pkg("--libs"))
    p = subprocess.run(cmd, capture_output=True, text=True)
    needed = subprocess.run(["readelf", "-d", exe], capture_output=True,
                            text=True).stdout if p.returncode == 0 else ""
    dyn = all(f"[{lib}]" in needed for lib in ("libugni.so.1",
                                               "libpmi.so.1", "libc.so.6"))
    tap.ok(p.returncode == 0 and dyn, f"{PROG} built on the host, linked "
           "to libugni.so.1, libpmi.so.1 and libc.so.6",
           " ".join(cmd) + "\n" + p.stderr + needed)
    return p.returncode == 0 and dyn


def run(*args, cwd=REPO, env=None):
    """(exit status, stdout, stderr, seconds) of vgemini run ARGS in
    @cwd, with @env added to this process's environment."""
    return fl.run_job(*args, cwd=cwd, env=env, timeout=JOB_TIMEOUT)


def passed(out, n):
    return fl.ranks_passed(out, n, PROG)


def mounts(tap, share):
    rc, out, err = fl.vg("exec", "all", "--", "sh", "-c",
                         "grep ' 9p ' /proc/mounts", timeout=300)
    want = [(f"/run/vgemini/host/usr", "ro"), (REPO, "ro"), (share, "rw")]
    bad = []
    for n in range(8):
        lines = [ln for ln in out.splitlines() if ln.startswith(f"[{n}] ")]
        for path, mode in want:
            if not any(f" {path} 9p {mode}," in ln for ln in lines):
                bad.append(f"node {n}: {path} ({mode}) not mounted")
    tap.ok(rc == 0 and not bad, "every guest mounts the host's /usr and "
           "the repository read-only, the shared directory writable",
           f"exit {rc}\n" + "\n".join(bad) + "\n" + out + err)


def shared_dir_job(tap, share):
    script = os.path.join(share, "rank.sh")
    with open(script, "w") as f:
        f.write('#!/bin/sh\n'
                't=/proc/$$/task/$$\n'
                'echo "$PMI_RANK $(pwd) $HOSTPROG_TEST $(readlink -f /bin/sh)'
                ' $PMI_SIZE $PMI_NO_FORK $(cat $t/task_is_app) $(cat $t/comm)'
                ' $(test -r /proc/job && echo proc-job)"\n'
                'printf "rank %s of %s\\n" "$PMI_RANK" "$PMI_SIZE" '
                '>"out.$PMI_RANK"\n'
                'if touch /usr/vgemini-host-programs 2>/dev/null; then\n'
                '  echo "wrote into /usr"; exit 1\n'
                'fi\n')
    os.chmod(script, 0o755)
    env = {"HOSTPROG_TEST": "from-the-caller"}
    rc, out, err, t = run("-n", 8, "./rank.sh", cwd=share, env=env)
    lines = fl.by_rank(out, 8)
    sh = os.path.realpath("/bin/sh")
    bad = []
    if rc != 0 or lines is None:
        bad.append(f"exit {rc}")
    else:
        for r in range(8):
            want = f"{r} {share} from-the-caller {sh} 8 1 1 rank.sh proc-job"
            if lines[r] != [want]:
                bad.append(f"rank {r}: {lines[r]} (want {want!r})")
    tap.ok(not bad, f"./rank.sh in the shared directory: each rank starts "
           f"there, with the caller's environment, runs the host's /bin/sh, "
           f"is an application task (task_is_app, /proc/job, PMI_NO_FORK) "
           f"and cannot write into /usr ({t:.1f}s)",
           "\n".join(bad) + "\n" + out + err)
    wrong = []
    for r in range(8):
        try:
            with open(os.path.join(share, f"out.{r}")) as f:
                data = f.read()
        except OSError as e:
            data = str(e)
        if data != f"rank {r} of 8\n":
            wrong.append(f"out.{r}: {data!r}")
    tap.ok(not wrong and not os.path.exists("/usr/vgemini-host-programs"),
           "the files the ranks wrote are on the host, byte for byte",
           "\n".join(wrong))


def hugetlbfs_job(tap, share):
    """hugetlb_alloc, built on the host against libhugetlbfs, run from
    the shared directory on 2 nodes."""
    exe = os.path.join(share, "hugetlb_alloc")
    cmd = ["cc", "-std=gnu11", "-O2", "-Wall", "-Wextra", "-Werror",
           os.path.join(REPO, "selftests", "hugetlbfs", "hugetlb_alloc.c"),
           "-o", exe, "-lhugetlbfs"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if not tap.ok(p.returncode == 0, "hugetlb_alloc built on the host with "
                  "-lhugetlbfs", " ".join(cmd) + "\n" + p.stderr):
        return
    rc, out, err, t = run("-n", 2, "./hugetlb_alloc", cwd=share)
    tap.ok(rc == 0 and fl.by_rank(out, 2) == {0: ["hugetlb_alloc: ok"],
                                              1: ["hugetlb_alloc: ok"]},
           f"hugetlb_alloc on 2 nodes: a huge page of the guest's hugetlbfs "
           f"through libhugetlbfs ({t:.1f}s)", f"exit {rc}\n{out}{err}")


def usage_errors(tap, share):
    outside = tempfile.mkdtemp(prefix="vgemini-unshared-", dir="/var/tmp")
    try:
        shutil.copy(os.path.join(share, "rank.sh"), outside)
        cases = [
            (["-n", 2, "./rank.sh"], outside, "is not in a directory "
             "shared with the guests", "a program that is not shared"),
            (["-n", 2, os.path.join(share, "rank.sh")], outside,
             "the current directory", "a current directory that is not "
             "shared"),
            (["-n", 2, "./no-such-program"], share, "no such file on the "
             "host", "a program that does not exist"),
        ]
        for args, cwd, msg, what in cases:
            rc, out, err, t = run(*args, cwd=cwd)
            tap.ok(rc == 2 and msg in err, f"usage error: {what} (exit 2)",
                   f"exit {rc}\n{out}{err}")
    finally:
        shutil.rmtree(outside, ignore_errors=True)


def body(tap, fab, share):
    if not build(tap):
        return
    t0 = time.time()
    rc, out, err = fl.vg("up", "--dims", "2x2x2", "--share-rw", share,
                         timeout=900)
    tap.ok(rc == 0, f"up --dims 2x2x2 --share-rw {share} "
           f"({time.time() - t0:.1f}s)", out + err)
    if rc != 0:
        return
    mounts(tap, share)
    for args in (["-n", 8], ["-n", 16, "--ppn", 2]):
        n = args[1]
        rc, out, err, t = run(*args, os.path.join("build", "host-programs",
                                                  PROG))
        why = passed(out, n)
        tap.ok(rc == 0 and not why, f"run {' '.join(map(str, args))} "
               f"build/host-programs/{PROG}: every rank passed ({t:.1f}s)",
               fl.job_details(rc == 0 and not why, f"exit {rc}: {why}\n"
                              f"{out[-3000:]}{err[-3000:]}"))
    shared_dir_job(tap, share)
    hugetlbfs_job(tap, share)
    rc, out, err, t = run("-n", 2, "pmi_test", "--expect-size", 2)
    tap.ok(rc == 0 and out.count("checks passed") == 2, "a bare name is "
           f"still the image's program (pmi_test, {t:.1f}s)",
           f"exit {rc}\n{out}{err}")
    rc, out, err, t = run("-n", 2, "--", "sh", "-c",
                          "cat /proc/$$/task/$$/task_is_app /proc/job; "
                          "cat /proc/$$/task/$$/comm; exit 0")
    lines = fl.by_rank(out, 2)
    tap.ok(rc == 0 and lines == {0: ["1", "sh"], 1: ["1", "sh"]},
           "a rank of the image's programs is an application task too",
           f"exit {rc}\n{out}{err}")
    usage_errors(tap, share)


def main():
    share = tempfile.mkdtemp(prefix="vgemini-share-", dir="/var/tmp")
    # Ranks run as a user of their job's (the launcher is root here).
    os.chmod(share, 0o1777)
    try:
        fl.run_test("host-programs", lambda tap, fab: body(tap, fab, share))
    finally:
        shutil.rmtree(share, ignore_errors=True)


if __name__ == "__main__":
    main()
