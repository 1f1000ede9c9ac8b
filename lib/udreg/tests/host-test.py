#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Host tests of vgemini's libudreg (udreg_pub.h, cray-udreg), no fabric
needed: the unit test (test_udreg, under ASan+UBSan), as it is, with the
watcher turned off (VGEMINI_UDREG_WATCH=0) and, when run as root, as an
unprivileged user; the header in C and C++ with -pedantic, and the calls
of its clients compiled; the exported symbols against the version map
and the header; the soname and the static library; the pkg-config module;
and udreg_prog built through it, dynamic and static, and run.  Prints
TAP.

usage: host-test.py [LIB_OUT]     (default build/lib)
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.realpath(__file__))
UDREG = os.path.dirname(HERE)
REPO = os.path.dirname(os.path.dirname(UDREG))
OUT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                      os.path.join(REPO, "build", "lib"))
ENV = dict(os.environ, PKG_CONFIG_PATH=os.path.join(OUT, "pkgconfig"))
ENV.pop("VGEMINI_UDREG_WATCH", None)
WARN = ["-Wall", "-Wextra", "-Werror", "-pedantic"]
TMP = tempfile.mkdtemp(prefix="udreg-host-test.")
NODE = "UDREG_1.0"
UNIT_TESTS = 14

sys.path.insert(0, os.path.join(REPO, "scripts", "tests"))
from tap import Tap  # noqa: E402

TAP = Tap(diag_lines=40)


def ok(cond, name, diag=""):
    return TAP.ok(cond, name, diag)


def sh(argv, env=ENV, timeout=300):
    try:
        p = subprocess.run(argv, capture_output=True, text=True, env=env,
                           stdin=subprocess.DEVNULL, timeout=timeout)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return 124, "", f"timed out after {timeout} s"


def pkg(*args):
    rc, out, err = sh(["pkg-config", *args])
    return rc, out.split(), err


# 1. the unit test: its results, renumbered into ours, then the same run
# with the watcher off and, as root, as nobody (userfaultfd unprivileged)
def unit(how, argv, env=ENV):
    rc, out, err = sh(argv, env=env)
    lines = [ln for ln in out.splitlines() if re.match(r"(not )?ok \d+", ln)]
    for ln in lines:
        m = re.match(r"(not )?ok \d+ - (.*)", ln)
        ok(not m.group(1), f"unit{how}: {m.group(2)}")
    for ln in out.splitlines():
        if ln.startswith("#"):
            print(ln)
    ok(rc == 0 and len(lines) == UNIT_TESTS,
       f"test_udreg{how} exits 0 ({len(lines)} tests)", out[-3000:] + err)
    return out


test = os.path.join(OUT, "tests", "test_udreg")
unit("", [test])
out = unit(" (VGEMINI_UDREG_WATCH=0)", [test],
           dict(ENV, VGEMINI_UDREG_WATCH="0"))
ok("watching: unavailable" in out,
   "VGEMINI_UDREG_WATCH=0: the test knows nothing is watched", out)
setpriv = shutil.which("setpriv")
if os.geteuid() == 0 and setpriv:
    unit(" (as nobody)", [setpriv, "--reuid=65534", "--regid=65534",
                          "--clear-groups", test])
else:
    TAP.note("not root: the unprivileged run is the first one")

# 2. the header, alone and twice, in C and C++; then the calls its clients
# make, compiled as they write them
inc = "-I" + os.path.join(OUT, "include")
src = os.path.join(TMP, "twice.c")
with open(src, "w") as f:
    f.write("#include <udreg_pub.h>\n#include <udreg_pub.h>\n"
            "int main(void) { return UDREG_RC_SUCCESS; }\n")
for cc, std in (("gcc", "c99"), ("gcc", "c11"), ("g++", "c++11"),
                ("g++", "c++17")):
    lang = ["-x", "c++"] if "++" in cc else []
    rc, o, e = sh([cc, f"-std={std}", *WARN, inc, *lang, "-fsyntax-only",
                   src])
    ok(rc == 0, f"udreg_pub.h: {cc} -std={std} -pedantic", o + e)

CLIENTS = r"""
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <udreg_pub.h>

struct mine { int x; };
static void *reg(void *addr, uint64_t len, void *ctx)
{
	struct mine *m = UDREG_DEVICE_REG_FAILED;	/* Open MPI */
	(void)addr; (void)len;
	return ctx ? (void *)m : NULL;
}
static uint32_t dereg(void *dd, void *ctx) { (void)dd; (void)ctx; return 0; }
static void destructor(void *ctx) { (void)ctx; }

int main(void)
{
	void *handle_store = NULL;		/* Open MPI keeps a void * */
	udreg_cache_handle_t h;
	struct udreg_cache_attr a;		/* GASNet, Open MPI */
	udreg_cache_attr_t b = {		/* libfabric */
		.cache_name = {"gnix_app_cache"},
		.max_entries = 16,
		.modes = UDREG_CC_MODE_USE_LARGE_PAGES,
		.debug_mode = 0,
		.debug_rank = 0,
		.reg_context = NULL,
		.dreg_context = NULL,
		.destructor_context = NULL,
		.device_reg_func = reg,
		.device_dereg_func = dereg,
		.destructor_callback = destructor,
	};
	udreg_entry_t *e = NULL;
	udreg_return_t rc;
	uint64_t hit = 0;
	void *data = 1 ? NULL : UDREG_DEVICE_REG_FAILED;	/* GASNet */

	memset(&a, 0, sizeof(a));
	strncpy(a.cache_name, "gasnet", UDREG_MAX_CACHENAME_LEN);
	a.modes = UDREG_CC_MODE_USE_KERNEL_CACHE | UDREG_CC_MODE_USE_LAZY_DEREG |
		UDREG_CC_MODE_USE_EVICT_W_UNREG;
	a.device_reg_func = reg;
	a.device_dereg_func = dereg;
	(void)UDREG_CacheCreate(&a);
	rc = UDREG_CacheCreate(&b);
	switch (rc) {
	case UDREG_RC_INVALID_PARAM: case UDREG_RC_ERROR_NO_DEVICE:
	case UDREG_RC_NO_SPACE: case UDREG_RC_NO_MATCH:
	case UDREG_RC_INVALID_CACHE_NAME: case UDREG_RC_OOM:
	case UDREG_RC_CACHE_EXHAUSTED: case UDREG_RC_SUCCESS:
		break;
	}
	rc = UDREG_CacheAccess(a.cache_name, (udreg_cache_handle_t *)&handle_store);
	h = handle_store;
	rc = UDREG_Register(h, (void *)&hit, sizeof(hit), &e);
	if (rc == UDREG_RC_SUCCESS && e->device_data && e->len && e->address)
		e->device_data = data;
	(void)UDREG_Unregister(h, e);
	(void)UDREG_DecrRefcount(h, e);
	(void)UDREG_Evict(h);
	(void)UDREG_GetStat(h, UDREG_STAT_CACHE_HIT, &hit);
	(void)UDREG_GetStat(h, UDREG_STAT_CACHE_MISS, &hit);
	(void)UDREG_GetStat(h, UDREG_STAT_CACHE_EVICTED, &hit);
	(void)UDREG_CacheRelease(h);
	return UDREG_CacheDestroy(h) != UDREG_RC_SUCCESS;
}
"""
src = os.path.join(TMP, "clients.c")
with open(src, "w") as f:
    f.write(CLIENTS)
rc, o, e = sh(["gcc", "-std=gnu99", "-Wall", "-Wextra", "-Werror", inc,
               "-fsyntax-only", src])
ok(rc == 0, "the calls of Open MPI, GASNet and libfabric compile", o + e)

# 3. the symbols: exactly the map's and the header's, each versioned
so = os.path.join(OUT, "libudreg.so.1")
rc, o, e = sh(["nm", "-D", "--defined-only", so])
exported = {}
for ln in o.splitlines():
    parts = ln.split()
    if len(parts) == 3 and "@" in parts[2] and parts[1] != "A":
        name, _, ver = parts[2].partition("@")
        exported[name] = ver.lstrip("@")
with open(os.path.join(UDREG, "libudreg.map")) as f:
    mapped = set(re.findall(r"^\s+(\w+);", f.read(), re.M))
with open(os.path.join(UDREG, "udreg_pub.h")) as f:
    declared = set(re.findall(r"^udreg_return_t\s+(\w+)\(", f.read(), re.M))
ok(rc == 0 and set(exported) == mapped == declared and len(mapped) == 9 and
   set(exported.values()) == {NODE},
   f"libudreg.so.1 exports exactly the {len(mapped)} functions of its map "
   f"and header, version {NODE}",
   f"{o}{e}exported {sorted(exported)} map {sorted(mapped)} header "
   f"{sorted(declared)}")
rc, o, e = sh(["readelf", "-d", so])
ok("Library soname: [libudreg.so.1]" in o and
   "Shared library: [libc.so.6]" in o, "soname libudreg.so.1, needs libc",
   o + e)
rc, o, e = sh(["nm", "--defined-only", os.path.join(OUT, "libudreg.a")])
glob = {ln.split()[2] for ln in o.splitlines()
        if len(ln.split()) == 3 and ln.split()[1] in "TDB"}
ok(rc == 0 and glob == mapped,
   "libudreg.a defines the API and nothing else global", sorted(glob))

# 4. the pkg-config module libfabric's and Open MPI's configure ask for
rc, flags, e = pkg("--cflags", "--libs", "cray-udreg")
rc2, v, e2 = pkg("--modversion", "cray-udreg")
ok(rc == 0 and inc in flags and "-ludreg" in flags and
   "-L" + OUT in flags and v == ["1.0.0"],
   "pkg-config cray-udreg: " + " ".join(flags), e + e2)
rc, sflags, e = pkg("--static", "--libs", "cray-udreg")
ok(rc == 0 and "-pthread" in sflags,
   "pkg-config --static --libs cray-udreg: " + " ".join(sflags), e)

# 5. udreg_prog built as a user builds it, dynamic and static, and run
rc, cflags, e = pkg("--cflags", "cray-udreg")
prog = os.path.join(TMP, "udreg_prog")
rc, o, e = sh(["gcc", "-std=c11", *WARN, *cflags,
               os.path.join(HERE, "udreg_prog.c"), "-o", prog, *flags,
               "-Wl,-rpath," + OUT])
ok(rc == 0, "udreg_prog built with pkg-config cray-udreg", o + e)
rc, o, e = sh(["readelf", "-d", prog])
ok("Shared library: [libudreg.so.1]" in o, "udreg_prog needs libudreg.so.1",
   o + e)
sprog = os.path.join(TMP, "udreg_prog_static")
rc, o, e = sh(["gcc", "-std=c11", *WARN, *cflags,
               os.path.join(HERE, "udreg_prog.c"), "-o", sprog, "-static",
               *sflags])
ok(rc == 0, "udreg_prog linked statically (pkg-config --static)", o + e)
for p, how in ((prog, "dynamic"), (sprog, "static")):
    for watch in ("1", "0"):
        rc, o, e = sh([p], env=dict(ENV, VGEMINI_UDREG_WATCH=watch))
        ok(rc == 0 and re.search(r"^udreg_prog: \d+ checks passed$", o,
                                 re.M),
           f"udreg_prog ({how}, VGEMINI_UDREG_WATCH={watch}) passes",
           o + e)

shutil.rmtree(TMP, ignore_errors=True)
sys.exit(TAP.finish())
