#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Host tests of vgemini's ALPS libraries (libalpslli, libalpsutil,
libwlm_detect) and of librca, no fabric needed: the unit test (test_alps, under
ASan+UBSan), the headers in C and C++ with -pedantic, the exported
symbols against the version maps and the headers, the sonames, the static
libraries, the pkg-config modules Open MPI's configure asks for, and
alps_rank, built through them, as the ranks of "vgemini run --local"
jobs.  Prints TAP.

usage: host-test.py [LIB_OUT]     (default build/lib)
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.realpath(__file__))
ALPS = os.path.dirname(HERE)
REPO = os.path.dirname(os.path.dirname(ALPS))
OUT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                      os.path.join(REPO, "build", "lib"))
VGEMINI = os.path.join(REPO, "scripts", "vgemini")
ENV = dict(os.environ, PKG_CONFIG_PATH=os.path.join(OUT, "pkgconfig"),
           VGEMINI_AGENT=os.path.join(OUT, "tests", "vgemini-agent"))
WARN = ["-Wall", "-Wextra", "-Werror", "-pedantic"]
TMP = tempfile.mkdtemp(prefix="alps-host-test.")
MODULES = ("cray-alpslli", "cray-alpsutil", "cray-alps", "cray-wlm_detect",
           "cray-rca")
LIBS = {  # library: (version node, headers declaring its functions)
    "alpslli": ("ALPSLLI_1.0", ["libalpslli.h"]),
    "alpsutil": ("ALPSUTIL_1.0", ["libalpsutil.h"]),
    "wlm_detect": ("WLM_DETECT_1.0", ["wlm_detect.h"]),
    "rca": ("RCA_1.0", ["rca_lib.h"]),
}

sys.path.insert(0, os.path.join(REPO, "scripts", "tests"))
from tap import Tap  # noqa: E402

TAP = Tap(diag_lines=40)


def ok(cond, name, diag=""):
    return TAP.ok(cond, name, diag)


def sh(argv, env=ENV, timeout=120):
    try:
        p = subprocess.run(argv, capture_output=True, text=True, env=env,
                           stdin=subprocess.DEVNULL, timeout=timeout)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return 124, "", f"timed out after {timeout} s"


def pkg(*args):
    rc, out, err = sh(["pkg-config", *args])
    return rc, out.split(), err


# 1. the unit test: its results, renumbered into ours
rc, out, err = sh([os.path.join(OUT, "tests", "test_alps")])
lines = [ln for ln in out.splitlines() if re.match(r"(not )?ok \d+", ln)]
for ln in lines:
    m = re.match(r"(not )?ok \d+ - (.*)", ln)
    ok(not m.group(1), "unit: " + m.group(2))
for ln in out.splitlines():
    if ln.startswith("#"):
        print(ln)
ok(rc == 0 and len(lines) >= 11, f"test_alps exits 0 ({len(lines)} tests)",
   out[-2000:] + err)

# 2. the headers, alone and together, in C and C++
inc = "-I" + os.path.join(OUT, "include")
src = os.path.join(TMP, "all.c")
with open(src, "w") as f:
    for h in ("alps/alps.h", "alps/alps_toolAssist.h", "alps/libalpsutil.h",
              "alps/libalpslli.h", "alps/apInfo.h", "wlm_detect.h",
              "rca_lib.h"):
        f.write(f"#include <{h}>\n#include <{h}>\n")
    f.write("int main(void) { return ALPS_APP_LLI_ALPS_STAT_OK + "
            "ALPS_APPINFO_VERSION - 3; }\n")
for cc, std in (("gcc", "c99"), ("gcc", "c11"), ("g++", "c++11"),
                ("g++", "c++17")):
    lang = ["-x", "c++"] if "++" in cc else []
    rc, o, e = sh([cc, f"-std={std}", *WARN, inc, *lang, "-fsyntax-only",
                   src])
    ok(rc == 0, f"the ALPS headers: {cc} -std={std} -pedantic", o + e)

# 3. each library: its symbols == its map == its header's functions
for lib, (node, headers) in LIBS.items():
    so = os.path.join(OUT, f"lib{lib}.so.1")
    rc, o, e = sh(["nm", "-D", "--defined-only", so])
    exported = {}
    for ln in o.splitlines():
        parts = ln.split()
        if len(parts) == 3 and "@" in parts[2] and parts[1] != "A":
            name, _, ver = parts[2].partition("@")
            exported[name] = ver.lstrip("@")
    with open(os.path.join(ALPS, f"lib{lib}.map")) as f:
        mapped = set(re.findall(r"^\s+(\w+);", f.read(), re.M))
    declared = set()
    for h in headers:
        with open(os.path.join(ALPS, h)) as f:
            declared |= set(re.findall(r"^(?:int|char \*)\s*(\w+)\(",
                                       f.read(), re.M))
    ok(rc == 0 and set(exported) == mapped == declared and
       set(exported.values()) == {node},
       f"lib{lib}.so.1 exports exactly the {len(mapped)} functions of its "
       f"map and header, version {node}",
       f"{o}{e}exported {sorted(exported)} map {sorted(mapped)} header "
       f"{sorted(declared)}")
    rc, o, e = sh(["readelf", "-d", so])
    ok(f"Library soname: [lib{lib}.so.1]" in o, f"soname lib{lib}.so.1",
       o + e)
    rc, o, e = sh(["nm", "--defined-only", os.path.join(OUT, f"lib{lib}.a")])
    static = {ln.split()[2] for ln in o.splitlines()
              if len(ln.split()) == 3 and ln.split()[1] == "T"}
    ok(mapped <= static and all(s in mapped or s.startswith("vgemini_alps_")
                                for s in static),
       f"lib{lib}.a defines the API, its helpers prefixed vgemini_alps_",
       sorted(static))

# 4. the pkg-config modules Open MPI's configure (opal_check_alps.m4) asks
for mod in MODULES:
    rc, flags, e = pkg("--cflags", "--libs", mod)
    rc2, v, e2 = pkg("--modversion", mod)
    want = {"cray-alpslli": "-lalpslli", "cray-alpsutil": "-lalpsutil",
            "cray-wlm_detect": "-lwlm_detect", "cray-rca": "-lrca"}.get(mod)
    ok(rc == 0 and inc in flags and (want in flags if want else
                                     not any(x.startswith("-l")
                                             for x in flags))
       and v == ["1.0.0"], f"pkg-config {mod}: {' '.join(flags)}", e + e2)
rc, flags, e = pkg("--static", "--libs", "cray-alpslli")
ok(rc == 0 and "-pthread" in flags,
   "pkg-config --static --libs cray-alpslli: " + " ".join(flags), e)

# 5. alps_rank built as a user builds it, run as the ranks of jobs
rc, flags, e = pkg("--cflags", "--libs", "cray-alpslli", "cray-alpsutil",
                   "cray-wlm_detect")
prog = os.path.join(TMP, "alps_rank")
rc, o, e = sh(["gcc", "-std=c11", *WARN, os.path.join(HERE, "alps_rank.c"),
               "-o", prog, *flags, "-Wl,-rpath," + OUT])
ok(rc == 0, "alps_rank built with pkg-config cray-alpslli cray-alpsutil "
   "cray-wlm_detect", o + e)
rc, sflags, e = pkg("--static", "--libs", "cray-alpslli", "cray-alpsutil",
                    "cray-wlm_detect")
sprog = os.path.join(TMP, "alps_rank_static")
rc, o, e = sh(["gcc", "-std=c11", *WARN, os.path.join(HERE, "alps_rank.c"),
               "-o", sprog, inc, "-static", *sflags])
ok(rc == 0, "alps_rank linked statically", o + e)


def job(n, ppn, prog, how):
    """A job of alps_rank; how: "as is" (what the launcher sets), "set"
    (VGEMINI_PPN forced to ppn) or "unset"."""
    pre = {"as is": "", "set": f"VGEMINI_PPN={ppn} ",
           "unset": "unset VGEMINI_PPN; "}[how]
    rc, o, e = sh([VGEMINI, "run", "--local", "--timeout", "60", "-n",
                   str(n), "--ppn", str(ppn), "--", "sh", "-c",
                   f"{pre}exec {prog} {n} {ppn}"])
    passed = re.findall(r"^\[(\d+)\] alps_rank: rank \1 of %d: \d+ checks "
                        r"passed$" % n, o, re.M)
    ok(rc == 0 and sorted(map(int, passed)) == list(range(n)),
       f"run -n {n} --ppn {ppn} {os.path.basename(prog)}, VGEMINI_PPN "
       f"{how}: every rank passed", o + e)


for n, ppn, p, how in ((6, 4, prog, "as is"), (6, 4, prog, "set"),
                       (6, 4, prog, "unset"), (9, 2, prog, "set"),
                       (3, 4, sprog, "set"), (1, 1, sprog, "as is")):
    job(n, ppn, p, how)

# 6. outside a job: every answer is a clear error, nothing crashes
clean = {k: v for k, v in ENV.items()
         if not k.startswith(("PMI_", "ALPS_", "VGEMINI_PPN"))}
rc, o, e = sh([prog, "1", "1"], env=clean)
ok(rc == 1 and "APID response: status 4, 0 bytes" in o and
   "GNI response: status 4, 0 bytes" in o and
   "arrays: -1 (errno 2)" in o and "Sanitizer" not in e,
   "alps_rank outside a job: status UNAVAIL, placement refused, exit 1",
   o + e)

shutil.rmtree(TMP, ignore_errors=True)
sys.exit(TAP.finish())
