#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Host tests of libugni, no device needed: the unit tests (test_ugni, and
test_gnicore of the engine it is built on, lib/gnicore/tests/, both under
ASan+UBSan), gni_pub.h in C and C++ with -pedantic, the exported symbols
against libugni.map and the header, the soname, the static library, and
programs built through pkg-config (cray-ugni, cray-gni-headers).  Prints
TAP.

usage: host-test.py [LIB_OUT]     (default build/lib)
"""

import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.realpath(__file__))
UGNI = os.path.dirname(HERE)
REPO = os.path.dirname(os.path.dirname(UGNI))
OUT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                      os.path.join(REPO, "build", "lib"))
SO = os.path.join(OUT, "libugni.so.1")
ENV = dict(os.environ, PKG_CONFIG_PATH=os.path.join(OUT, "pkgconfig"))
WARN = ["-Wall", "-Wextra", "-Werror", "-pedantic"]
TMP = tempfile.mkdtemp(prefix="ugni-host-test.")

sys.path.insert(0, os.path.join(REPO, "scripts", "tests"))
from tap import Tap  # noqa: E402

TAP = Tap(diag_lines=40)


def ok(cond, name, diag=""):
    return TAP.ok(cond, name, diag)


def sh(argv, env=ENV):
    p = subprocess.run(argv, capture_output=True, text=True, env=env,
                       stdin=subprocess.DEVNULL, timeout=120)
    return p.returncode, p.stdout, p.stderr


def pkg(*args):
    rc, out, err = sh(["pkg-config", *args])
    return rc, out.split(), err


# 1. the unit tests: their results, renumbered into ours
for prog, prefix, least in (("test_ugni", "unit", 200),
                            ("test_gnicore", "gnicore", 10)):
    rc, out, err = sh([os.path.join(OUT, "tests", prog)])
    lines = [l for l in out.splitlines() if re.match(r"(not )?ok \d+", l)]
    for l in lines:
        m = re.match(r"(not )?ok \d+ - (.*)", l)
        ok(not m.group(1), prefix + ": " + m.group(2))
    for l in out.splitlines():
        if l.startswith("#"):
            print(l)
    ok(rc == 0 and len(lines) >= least,
       f"{prog} exits 0 ({len(lines)} tests)", out[-2000:] + err)

# 2. gni_pub.h compiles alone in every C and C++ dialect, -pedantic
hdr = os.path.join(TMP, "only.c")
with open(hdr, "w") as f:
    f.write("#include <gni_pub.h>\n#include <gni_pub.h>\n"
            "int main(void) { return GNI_RC_SUCCESS; }\n")
inc = "-I" + os.path.join(OUT, "include")
for cc, std, src in (("gcc", "c99", hdr), ("gcc", "c11", hdr),
                     ("clang", "c99", hdr), ("g++", "c++98", hdr),
                     ("g++", "c++11", hdr), ("g++", "c++17", hdr),
                     ("clang++", "c++11", hdr)):
    lang = ["-x", "c++"] if "++" in cc else []
    rc, o, e = sh([cc, f"-std={std}", *WARN, inc, *lang, "-fsyntax-only",
                   src])
    ok(rc == 0, f"gni_pub.h: {cc} -std={std} -pedantic", o + e)

# 3. exported symbols == version map == the header's functions
rc, o, e = sh(["nm", "-D", "--defined-only", SO])
exported = {}
for l in o.splitlines():
    parts = l.split()
    if len(parts) == 3 and "@" in parts[2]:
        name, _, ver = parts[2].partition("@")
        exported[name] = ver.lstrip("@")
with open(os.path.join(UGNI, "libugni.map")) as f:
    mapped = set(re.findall(r"^\s+(\w+);", f.read(), re.M)) - {"local"}
exported.pop("UGNI_1.0", None)
ok(set(exported) == mapped,
   f"nm -D libugni.so.1: exactly the {len(mapped)} symbols of libugni.map",
   f"extra {sorted(set(exported) - mapped)} "
   f"missing {sorted(mapped - set(exported))}")
ok(set(exported.values()) == {"UGNI_1.0"}, "every symbol is UGNI_1.0",
   exported)
with open(os.path.join(UGNI, "gni_pub.h")) as f:
    text = f.read()
# The kernel API's part is kgni.ko's (the kernel-build stage checks it).
text = re.sub(r"^#ifdef __KERNEL__\n/\* --- The kernel API .*?"
              r"^#endif /\* __KERNEL__ \*/$", "", text, flags=re.M | re.S)
declared = set(re.findall(r"^(?:gni_return_t|uint64_t|void|unsigned)\s+"
                          r"(\w+)\(", text, re.M))
declared |= set(re.findall(r"^extern const char \*(\w+)\[\]", text, re.M))
ok(declared == mapped, f"libugni.map == functions and tables of gni_pub.h "
   f"({len(declared)})", f"header-only {sorted(declared - mapped)} "
   f"map-only {sorted(mapped - declared)}")
rc, o, e = sh(["readelf", "-d", SO])
ok("Library soname: [libugni.so.1]" in o, "soname libugni.so.1", o + e)
rc, o, e = sh(["nm", "--defined-only", os.path.join(OUT, "libugni.a")])
static = set(l.split()[2] for l in o.splitlines()
             if len(l.split()) == 3 and l.split()[1] in "TDR")
ok(mapped <= static, "libugni.a defines the API", sorted(mapped - static))

# 4. pkg-config and programs that include only gni_pub.h
rc, flags, e = pkg("--cflags", "--libs", "cray-ugni")
ok(rc == 0 and "-lugni" in flags and inc in flags,
   "pkg-config --cflags --libs cray-ugni: " + " ".join(flags), e)
rc, hflags, e = pkg("--cflags", "--libs", "cray-gni-headers")
ok(rc == 0 and hflags == [inc],
   "pkg-config --cflags --libs cray-gni-headers: " + " ".join(hflags), e)
rc, v, e = pkg("--modversion", "cray-ugni")
ok(rc == 0 and v == ["1.0.0"], "cray-ugni version 1.0.0", v)

prog = os.path.join(TMP, "header_c")
rc, o, e = sh(["gcc", "-std=c99", *WARN, os.path.join(HERE, "header_c.c"),
               "-o", prog, *flags, "-Wl,-rpath," + OUT])
if ok(rc == 0, "C program built with pkg-config cray-ugni", o + e):
    rc, o, e = sh([prog])
    ok(rc == 0 and "CdmAttach: GNI_RC_NO_MATCH" in o,
       "it runs against libugni.so.1: " + o.replace("\n", "; "), o + e)
    rc, o, e = sh(["readelf", "-d", prog])
    ok("Shared library: [libugni.so.1]" in o, "it needs libugni.so.1", o)
prog = os.path.join(TMP, "header_c_static")
rc, lf, e = pkg("--static", "--libs", "cray-ugni")
lf = ["-l:libugni.a" if x == "-lugni" else x for x in lf]
rc, o, e = sh(["gcc", "-std=c99", *WARN, os.path.join(HERE, "header_c.c"),
               "-o", prog, inc, *lf])
ok(rc == 0 and sh([prog])[0] == 0, "C program linked with -l:libugni.a runs",
   o + e)
prog = os.path.join(TMP, "header_cxx")
rc, o, e = sh(["g++", "-std=c++11", *WARN,
               os.path.join(HERE, "header_cxx.cc"), "-o", prog, *flags,
               "-Wl,-rpath," + OUT])
ok(rc == 0 and sh([prog])[0] == 0,
   "C++ program (extern \"C\") links and runs", o + e)

sys.exit(TAP.finish())
