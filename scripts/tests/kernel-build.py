#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The kernel-build stage of scripts/check.sh: out-of-tree kernel clients
of kgni build against what `make module` installs, on the host, in
seconds (Documentation/kernel-api.rst, "Building a client").

    scripts/tests/kernel-build.py

Through pkg-config (build/lib/pkgconfig) only, as Lustre's gnilnd build
does: GNICPPFLAGS from `pkg-config --cflags cray-gni cray-gni-headers
cray-krca lsb-cray-hss` (the gate of its Debian DKMS build),
KBUILD_EXTRA_SYMBOLS from `pkg-config --variable=symvers cray-gni`.  It
checks the modules, the installed headers and Module.symvers (every gni_*
export EXPORT_SYMBOL, the krca_* and send_hb_2_l0 there), then builds in
build/kernel-build/:

  * scripts/tests/kernel-build/: kgni_sigcheck.ko, which assigns every
    exported gni_*, krca_* function and send_hb_2_l0 to a pointer of its
    type in the spec (-Werror), and kgni_probe.ko and kgni_rca_probe.ko,
    gnilnd's two configure probes; modpost must resolve every symbol.  The
    functions kgni_sigcheck.c names must be exactly the gni_*, krca_* and
    send_hb_2_l0 of Module.symvers.  Two builds that must fail show the checks
    bite: one parameter type changed (KGNI_SIGCHECK_BREAK), and no
    KBUILD_EXTRA_SYMBOLS (modpost: functions undefined, the object
    referring to every checked one);
  * selftests/kgni/ktest/ with its own Makefile: kgni_ktest.ko, which
    depends on kgni (scripts/style.sh checks that it includes no header
    of kgni's but gni_pub.h);
  * driver/ipogif/ likewise: ipogif.ko, IP over the fabric, which
    depends on kgni alone (gni_pub.h and krca_lib.h, the four pkg-config
    modules).

TAP (scripts/tests/tap.py).  Needs `make module` and the pkg-config
module cray-gni-headers (`make lib`).
"""

import filecmp
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.realpath(__file__))
sys.path.insert(0, HERE)
from tap import Tap  # noqa: E402

REPO = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(REPO, "build", "kernel-build")
PKG_PATH = os.path.join(REPO, "build", "lib", "pkgconfig")
MODS_SRC = os.path.join(HERE, "kernel-build")
KTEST_SRC = os.path.join(REPO, "selftests", "kgni", "ktest")
IPOGIF_SRC = os.path.join(REPO, "driver", "ipogif")
HEADER = os.path.join(REPO, "lib", "ugni", "gni_pub.h")
# The API's functions in Module.symvers and kgni_sigcheck.c
API_FN = re.compile(r"^(gni_\w+|krca_\w+|send_hb_2_l0)$")
# What a client's build output may not say
BAD = re.compile(r"warning|undefined", re.I)


def run(argv, env=None, cwd=None):
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, env=env, cwd=cwd)
    return p.returncode, p.stdout


def pkg_env():
    env = dict(os.environ)
    env["PKG_CONFIG_PATH"] = PKG_PATH
    return env


def pkg(*args):
    return run(["pkg-config", *args], env=pkg_env())


def kbuild(kdir, moddir, cflags, symvers):
    """make modules for the external module in moddir; (rc, output)."""
    argv = ["make", "-C", kdir, f"M={moddir}", f"GNICPPFLAGS={cflags}",
            "modules"]
    if symvers:
        argv.insert(-1, f"KBUILD_EXTRA_SYMBOLS={symvers}")
    return run(argv)


def fresh_copy(src, dst, names):
    shutil.rmtree(dst, ignore_errors=True)
    os.makedirs(dst)
    for n in names:
        shutil.copy2(os.path.join(src, n), dst)


def symvers_exports(path):
    """{symbol: export kind} of a Module.symvers."""
    out = {}
    with open(path) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) >= 4:
                out[parts[1]] = parts[3]
    return out


def main():
    tap = Tap(diag_lines=30)
    rc, kver = run([os.path.join(REPO, "scripts", "kver.sh")])
    kdir = f"/usr/src/linux-headers-{kver.strip()}"
    if not tap.ok(rc == 0 and os.path.isdir(kdir),
                  f"kernel headers {kdir}", kver):
        return tap.finish()

    mods4 = ["cray-gni", "cray-gni-headers", "cray-krca", "lsb-cray-hss"]
    rc, out = pkg("--cflags", *mods4)
    cflags = out.strip()
    incdir = os.path.join(REPO, "build", "kgni", "include")
    tap.ok(rc == 0 and "-DCONFIG_CRAY_GEMINI" in cflags.split() and
           f"-I{incdir}" in cflags.split(),
           f"pkg-config --cflags {' '.join(mods4)}: {cflags}", out)
    rc, out = pkg("--variable=symvers", "cray-gni")
    symvers = out.strip()
    if not tap.ok(rc == 0 and os.path.isfile(symvers),
                  f"pkg-config --variable=symvers cray-gni: {symvers}",
                  out + "\nrun make module"):
        return tap.finish()
    installed = os.path.join(incdir, "gni_pub.h")
    tap.ok(os.path.isfile(installed) and
           filecmp.cmp(installed, HEADER, shallow=False),
           "build/kgni/include/gni_pub.h is lib/ugni/gni_pub.h")
    rca_h = ["krca_lib.h", os.path.join("rsms", "rs_sm_states.h")]
    tap.ok(all(os.path.isfile(os.path.join(incdir, h)) and
               filecmp.cmp(os.path.join(incdir, h),
                           os.path.join(REPO, "driver", "include", h),
                           shallow=False) for h in rca_h),
           "build/kgni/include has driver/include's krca_lib.h and "
           "rsms/rs_sm_states.h")

    exports = symvers_exports(symvers)
    gni = {s: k for s, k in exports.items() if s.startswith("gni_")}
    tap.ok(gni and all(k == "EXPORT_SYMBOL" for k in gni.values()) and
           exports.get("kgni_driver_version") == "EXPORT_SYMBOL_GPL",
           f"Module.symvers: {len(gni)} gni_* functions, each "
           "EXPORT_SYMBOL, and kgni_driver_version EXPORT_SYMBOL_GPL "
           "(symbol_get() takes no other)", repr(exports))
    api = {s for s in exports if API_FN.match(s)}
    rca = {s for s in api if not s.startswith("gni_")}
    tap.ok(len(rca) == 11, f"Module.symvers: {len(rca)} RCA functions "
           "(the 10 krca_* of krca_lib.h and send_hb_2_l0)", repr(rca))
    with open(os.path.join(MODS_SRC, "kgni_sigcheck.c")) as f:
        checked = {s for s in re.findall(r"__used = (\w+);", f.read())
                   if API_FN.match(s)}
    tap.ok(checked == api,
           f"kgni_sigcheck.c checks every exported function ({len(checked)})",
           f"exported, not checked: {sorted(api - checked)}\n"
           f"checked, not exported: {sorted(checked - api)}")

    # The signature check and gnilnd's probe, as a client builds them
    mods = os.path.join(OUT, "mods")
    names = ["Kbuild", "kgni_sigcheck.c", "kgni_probe.c", "kgni_rca_probe.c"]
    fresh_copy(MODS_SRC, mods, names)
    rc, out = kbuild(kdir, mods, cflags, symvers)
    tap.ok(rc == 0 and not BAD.search(out) and
           all(os.path.isfile(os.path.join(mods, m))
               for m in ("kgni_sigcheck.ko", "kgni_probe.ko",
                         "kgni_rca_probe.ko")),
           "kgni_sigcheck.ko, kgni_probe.ko and kgni_rca_probe.ko: "
           "-Werror, every symbol resolved", out)
    rc, out = run(["modinfo", "-F", "depends",
                   os.path.join(mods, "kgni_sigcheck.ko")])
    tap.ok(out.strip() == "kgni", f"kgni_sigcheck.ko depends on "
           f"'{out.strip()}'", out)

    # The checks bite: no symbols, then a wrong signature
    os.unlink(os.path.join(mods, "Module.symvers"))
    rc, out = kbuild(kdir, mods, cflags, None)
    missing = set(re.findall(r'"(\w+)" \[\S*kgni_sigcheck\.ko\] '
                             r'undefined', out))
    # modpost names the first 10 unresolved symbols only: the object's
    # undefined references say that the others are the checked ones too
    _, nm = run(["nm", "-u", os.path.join(mods, "kgni_sigcheck.o")])
    refs = {s for s in re.findall(r"\bU (\w+)", nm) if API_FN.match(s)}
    tap.ok(rc != 0 and missing and missing <= checked and refs == checked,
           f"without KBUILD_EXTRA_SYMBOLS modpost finds the functions "
           f"undefined ({len(missing)} named, {len(refs)} referenced)",
           out)
    broken = os.path.join(OUT, "broken")
    fresh_copy(MODS_SRC, broken, names)
    rc, out = kbuild(kdir, broken, cflags + " -DKGNI_SIGCHECK_BREAK",
                     symvers)
    tap.ok(rc != 0 and "incompatible-pointer-types" in out and
           "gni_cdm_create" in out,
           "a wrong parameter type (KGNI_SIGCHECK_BREAK) fails the build",
           out)

    # The test client, with its own Makefile, as a user would
    ktest = os.path.join(OUT, "ktest")
    fresh_copy(KTEST_SRC, ktest, ["Kbuild", "Makefile"] + sorted(
        f for f in os.listdir(KTEST_SRC)
        if f.endswith((".c", ".h")) and not f.endswith(".mod.c")))
    rc, out = run(["make", "-C", ktest, f"KDIR={kdir}"], env=pkg_env())
    ko = os.path.join(ktest, "kgni_ktest.ko")
    tap.ok(rc == 0 and not BAD.search(out) and os.path.isfile(ko),
           "kgni_ktest.ko through its Makefile and pkg-config", out)
    rc, out = run(["modinfo", "-F", "depends", ko])
    tap.ok(out.strip() == "kgni", f"kgni_ktest.ko depends on "
           f"'{out.strip()}'", out)

    # ipogif, the same way
    ipogif = os.path.join(OUT, "ipogif")
    fresh_copy(IPOGIF_SRC, ipogif,
               [n for n in sorted(os.listdir(IPOGIF_SRC))
                if n in ("Kbuild", "Makefile") or n.endswith((".c", ".h"))])
    rc, out = run(["make", "-C", ipogif, f"KDIR={kdir}"], env=pkg_env())
    ko = os.path.join(ipogif, "ipogif.ko")
    tap.ok(rc == 0 and not BAD.search(out) and os.path.isfile(ko),
           "ipogif.ko through its Makefile and pkg-config", out)
    rc, out = run(["modinfo", "-F", "depends", ko])
    tap.ok(out.strip() == "kgni", f"ipogif.ko depends on '{out.strip()}'",
           out)
    return tap.finish()


if __name__ == "__main__":
    sys.exit(main())
