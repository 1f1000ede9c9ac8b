# SPDX-License-Identifier: GPL-2.0-only
"""Processes and the QEMU command line of a node."""

import os
import subprocess
import sys
import time
import unittest

from vgemini_launcher import procs
from vgemini_launcher.common import EXIT_USAGE, Failure
from vgemini_launcher.fabric import Fabric

from .helpers import ScratchTest


class Mem(unittest.TestCase):
    def test_good(self):
        for s, mib in (("256M", 256), ("1G", 1024), ("512MiB", 512),
                       ("1gb", 1024), ("64", 64), ("2g", 2048)):
            self.assertEqual(procs.parse_mem(s), mib, s)

    def test_bad(self):
        for s, msg in (("lots", "want e.g. 256M or 1G"),
                       ("1T", "want e.g. 256M or 1G"),
                       ("63M", "at least 64M")):
            with self.assertRaises(Failure) as cm:
                procs.parse_mem(s)
            self.assertEqual(cm.exception.code, EXIT_USAGE)
            self.assertIn(msg, str(cm.exception))


class Processes(unittest.TestCase):
    def test_start_time_identifies_a_process(self):
        st = procs.proc_starttime(os.getpid())
        self.assertIsInstance(st, int)
        self.assertTrue(procs.proc_alive(os.getpid(), st))
        self.assertFalse(procs.proc_alive(os.getpid(), st + 1))
        self.assertFalse(procs.proc_alive(None, None))
        self.assertIsNone(procs.proc_starttime(2 ** 22 + 1))


class QemuArgv(ScratchTest):
    def argv(self, n, dims, gemini=True, append="", extra=()):
        fab = Fabric("f")
        return fab, procs.qemu_argv(fab, "/q", "/img", n, dims, 128, gemini,
                                    append, list(extra))

    def opt(self, argv, name):
        return [argv[i + 1] for i, a in enumerate(argv) if a == name]

    def test_qopt(self):
        self.assertEqual(procs.qopt("a,b,,c"), "a,,b,,,,c")
        self.assertEqual(procs.qopt(3), "3")

    def test_node_and_links(self):
        fab, argv = self.argv(1, [2, 2, 1], append="kgni.debug=1",
                              extra=["-s"])
        self.assertEqual(argv[0], "/q")
        self.assertEqual(argv[-5:], ["-pidfile", fab.path(1, "pid"),
                                     "-sandbox", procs.SANDBOX, "-s"])
        self.assertNotIn("-runas", argv)
        self.assertEqual(self.opt(argv, "-m"), ["128M"])
        self.assertEqual(self.opt(argv, "-append"), [
            "console=ttyS0 panic=-1 quiet mitigations=off no_timer_check "
            "vgemini.fabric=f "
            "vgemini.node=1 vgemini.coord=1,0,0 vgemini.dims=2,2,1 "
            "vgemini.ports=4 kgni.debug=1"])
        dev = [d for d in self.opt(argv, "-device")
               if d.startswith("cray-gemini")]
        link = os.path.join(self.shmdir, "vgemini-f", "link-")
        self.assertEqual(dev, [
            "cray-gemini,id=gemini0,x=1,y=0,z=0,dim-x=2,dim-y=2,dim-z=1,"
            f"link-xp={link}1-x,link-xm={link}0-x,link-yp={link}1-y,"
            f"link-ym={link}3-y,link-zp={link}1-z,link-zm={link}1-z"])
        self.assertEqual(len(self.opt(argv, "-chardev")), 4)
        self.assertIn("virtserialport,bus=vser0.0,chardev=agent3,"
                      "name=vgemini.agent.3", self.opt(argv, "-device"))
        self.assertEqual(self.opt(argv, "-qmp"), [
            f"unix:{self.rundir}/f/node1.qmp,server=on,wait=off",
            f"unix:{self.rundir}/f/node1.qmp-sup,server=on,wait=off"])

    def test_module_tree(self):
        fab = Fabric("f")
        usr = {"tag": "vgs0", "path": "/usr", "readonly": True}
        mods = {"tag": "vgsmod", "path": "/img/m/6.1.0-9-amd64",
                "readonly": True, "kver": "6.1.0-9-amd64"}
        argv = procs.qemu_argv(fab, "/q", "/img", 0, [1, 1, 1], 128, True,
                               "", [], [usr], modules=mods)
        self.assertEqual(self.opt(argv, "-fsdev"), [
            "local,id=vgs0,path=/usr,security_model=none,readonly=on",
            "local,id=vgsmod,path=/img/m/6.1.0-9-amd64,security_model=none,"
            "readonly=on"])
        self.assertIn("virtio-9p-pci,fsdev=vgsmod,mount_tag=vgsmod",
                      self.opt(argv, "-device"))
        words = self.opt(argv, "-append")[0].split()
        self.assertIn("vgemini.shares=vgs0:/usr:ro", words)
        self.assertIn("vgemini.modules=vgsmod", words)
        # --no-share: neither
        argv = procs.qemu_argv(fab, "/q", "/img", 0, [1, 1, 1], 128, True,
                               "", [], [], modules=None)
        self.assertEqual(self.opt(argv, "-fsdev"), [])
        self.assertNotIn("vgemini.modules", self.opt(argv, "-append")[0])

    def test_without_the_device(self):
        _, argv = self.argv(0, [1, 1, 1], gemini=False)
        self.assertFalse(any(a.startswith("cray-gemini") for a in argv))

    def test_commas_in_paths_are_escaped(self):
        os.environ["VGEMINI_RUNDIR"] = self.rundir + ",x"
        _, argv = self.argv(0, [1, 1, 1])
        self.assertEqual(self.opt(argv, "-qmp")[0],
                         f"unix:{self.rundir},,x/f/node0.qmp,server=on,"
                         "wait=off")
        self.assertIn(f"file:{self.rundir},x/f/node0.console",
                      self.opt(argv, "-serial"))


class Unprivileged(ScratchTest):
    def test_runas_and_sandbox(self):
        fab = Fabric("f")
        argv = procs.qemu_argv(fab, "/q", "/img", 0, [1, 1, 1], 128, True,
                               "", [], user="vgemini")
        i = argv.index("-runas")
        self.assertEqual(argv[i + 1], "vgemini")
        self.assertEqual(argv[argv.index("-sandbox") + 1],
                         "on,obsolete=deny,spawn=deny")

    def test_trusted_paths(self):
        d = os.path.join(self.tmp, "bin")
        os.makedirs(d)
        tool = os.path.join(d, "tool")
        open(tool, "w").close()
        os.chmod(self.tmp, 0o755)
        os.chmod(d, 0o755)
        procs.check_trusted(tool, "tool")
        os.chmod(d, 0o777)          # anyone could swap the tool
        with self.assertRaises(Failure) as cm:
            procs.check_trusted(tool, "tool")
        self.assertIn("may be changed by others", str(cm.exception))
        os.chmod(d, 0o1777)         # as /tmp: others cannot rename ours
        procs.check_trusted(tool, "tool")
        os.chmod(tool, 0o666)
        with self.assertRaises(Failure):
            procs.check_trusted(tool, "tool")

    def test_pidfile_must_name_the_process(self):
        fab = Fabric("f")
        os.makedirs(fab.rundir)
        pidfile = fab.path(0, "pid")
        # One process that keeps its command line (sh -c may exec sleep)
        p = subprocess.Popen([sys.executable, "-c",
                              "import time; time.sleep(30)",
                              "-pidfile", pidfile])
        try:
            # Popen returns once exec has closed the child's descriptors,
            # which is before the kernel has set its command line.
            for _ in range(500):
                with open(f"/proc/{p.pid}/cmdline", "rb") as f:
                    if b"-pidfile" in f.read():
                        break
                time.sleep(0.01)
            self.assertNotIn(p.pid, procs.find_qemus(fab.rundir))
            with open(pidfile, "w") as f:
                f.write(f"{p.pid}\n")
            self.assertEqual(procs.find_qemus(fab.rundir), {p.pid: pidfile})
        finally:
            p.kill()
            p.wait()
