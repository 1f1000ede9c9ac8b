# SPDX-License-Identifier: GPL-2.0-only
"""The host directories shared with the guests, and which programs run in
the host's file tree."""

import os
import tempfile
import unittest

from vgemini_launcher import shares
from vgemini_launcher.common import EXIT_USAGE, REPO, Failure
from .helpers import captured


class Plan(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(dir="/var/tmp")
        self.dir = os.path.realpath(self.tmp.name)
        os.mkdir(os.path.join(self.dir, "sub"))

    def tearDown(self):
        self.tmp.cleanup()

    def test_default_usr_repo_cwd(self):
        got = shares.plan([], self.dir)
        self.assertEqual([(s["path"], s["readonly"]) for s in got],
                         sorted([("/usr", True), (REPO, True),
                                 (self.dir, True)],
                                key=lambda s: len(s[0])))
        self.assertEqual([s["tag"] for s in got],
                         [f"vgs{i}" for i in range(3)])

    def test_nested_and_repeated_kept_once(self):
        sub = os.path.join(self.dir, "sub")
        got = shares.plan([sub, self.dir + "/", self.dir], sub)
        self.assertEqual([s["path"] for s in got].count(self.dir), 1)
        self.assertNotIn(sub, [s["path"] for s in got])

    def test_inside_repo_not_shared_again(self):
        got = shares.plan([], os.path.join(REPO, "scripts"))
        self.assertEqual(len(got), 2)

    def test_cwd_that_cannot_be_shared_is_left_out(self):
        got = shares.plan([], "/tmp")
        self.assertEqual([s["path"] for s in got], ["/usr", REPO])

    def test_disabled(self):
        self.assertEqual(shares.plan(["/nonexistent"], self.dir, False), [])

    def test_refused(self):
        bad = os.path.join(self.dir, "a,b")
        os.mkdir(bad)
        for d, msg in (("/nonexistent-vgemini", "not a directory"),
                       (bad, "may not contain ','"),
                       ("/usr/lib", "shared read-only anyway"),
                       ("/", "guests' own /"), ("/tmp", "guests' own /tmp"),
                       ("/etc", "guests' own /etc"),
                       ("/proc/self", "guests' own /proc"),
                       ("/run", "guests' own /run")):
            with self.assertRaises(Failure) as cm:
                shares.plan([d], self.dir)
            self.assertEqual(cm.exception.code, EXIT_USAGE, d)
            self.assertIn(msg, str(cm.exception), d)

    def test_qemu_and_kernel_args(self):
        got = shares.plan([], "/", rw=[self.dir])
        argv = shares.qemu_args(got)
        self.assertEqual(argv.count("-fsdev"), 3)
        self.assertIn("local,id=vgs0,path=/usr,security_model=none,"
                      "readonly=on", argv)
        self.assertIn(f"local,id=vgs2,path={self.dir},"
                      "security_model=mapped-xattr", argv)
        # Only a read-only share passes the host's modes through.
        self.assertEqual([a for a in argv if "security_model=none" in a
                          and "readonly=on" not in a], [])
        self.assertIn("virtio-9p-pci,fsdev=vgs1,mount_tag=vgs1", argv)
        self.assertEqual(shares.kernel_arg(got), "vgemini.shares=" + ",".join(
            f"{s['tag']}:{s['path']}:{'ro' if s['readonly'] else 'rw'}"
            for s in got))
        self.assertTrue(shares.kernel_arg(got).endswith(f"{self.dir}:rw"))
        self.assertEqual(shares.kernel_arg([]), "")

    def test_only_share_rw_is_writable(self):
        sub = os.path.join(self.dir, "sub")
        got = shares.plan([self.dir], "/", rw=[sub])
        self.assertEqual([(s["path"], s["readonly"]) for s in got][-2:],
                         [(self.dir, True), (sub, False)])
        # Read-only inside writable: the writable one covers it.
        got = shares.plan([sub], sub, rw=[self.dir])
        self.assertEqual([(s["path"], s["readonly"]) for s in got][-1:],
                         [(self.dir, False)])
        # One directory both ways: writable.
        got = shares.plan([self.dir], self.dir, rw=[self.dir])
        self.assertEqual([s["readonly"] for s in got
                          if s["path"] == self.dir], [False])

    def test_share_rw_refused(self):
        tool = os.path.join(self.dir, "sub", "tool")
        open(tool, "w").close()
        for d, prot, msg in ((REPO, [REPO], "a guest could change"),
                             (os.path.join(REPO, "scripts"), [REPO],
                              "a guest could change"),
                             (self.dir, [tool], "a guest could change")):
            with self.assertRaises(Failure) as cm:
                shares.plan([], "/", rw=[d], protected=prot)
            self.assertEqual(cm.exception.code, EXIT_USAGE, d)
            self.assertIn(msg, str(cm.exception), d)
        os.chmod(self.dir, 0o755)
        with self.assertRaises(Failure) as cm:
            shares.plan([], "/", rw=[self.dir], writer=(65534, {65534},
                                                          "nobody"))
        self.assertIn("who cannot write it", str(cm.exception))
        os.chmod(self.dir, 0o1777)
        got = shares.plan([], "/", rw=[self.dir],
                          writer=(65534, {65534}, "nobody"))
        self.assertEqual(got[-1], {"tag": "vgs2", "path": self.dir,
                                   "readonly": False})


class Modules(unittest.TestCase):
    """The kernel's module tree: the image's IMAGE/modules link."""

    KVER = "6.1.0-99-amd64"

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(dir="/var/tmp")
        self.dir = os.path.realpath(self.tmp.name)
        self.image = os.path.join(self.dir, "image")
        self.tree = os.path.join(self.dir, "cache", "lib", "modules",
                                 self.KVER)
        os.makedirs(self.image)
        os.makedirs(self.tree)
        with open(os.path.join(self.image, "kernel-version"), "w") as f:
            f.write(self.KVER + "\n")
        os.symlink(self.tree, os.path.join(self.image, "modules"))

    def tearDown(self):
        self.tmp.cleanup()

    def indexed(self):
        open(os.path.join(self.tree, "modules.dep"), "w").close()

    def share(self, enabled=True):
        with captured() as (out, err):
            got = shares.modules_share(self.image, enabled)
        return got, err.getvalue()

    def test_shared_read_only(self):
        self.indexed()
        got, err = self.share()
        self.assertEqual(got, {"tag": "vgsmod", "path": self.tree,
                               "readonly": True, "kver": self.KVER})
        self.assertEqual(err, "")
        self.assertEqual(shares.modules_arg(got), "vgemini.modules=vgsmod")
        self.assertEqual(shares.modules_arg(None), "")
        argv = shares.qemu_args([got])
        self.assertEqual(argv, [
            "-fsdev", f"local,id=vgsmod,path={self.tree},"
            "security_model=none,readonly=on",
            "-device", "virtio-9p-pci,fsdev=vgsmod,mount_tag=vgsmod"])
        # Not a share at a host path: vgemini.shares does not name it.
        self.assertEqual(shares.kernel_arg([]), "")

    def test_none_with_no_share(self):
        self.indexed()
        self.assertEqual(self.share(False), (None, ""))

    def test_none_without_an_index_or_for_another_kernel(self):
        got, err = self.share()
        self.assertIsNone(got)
        self.assertIn("not an indexed module tree", err)
        self.assertIn("only the image's modules", err)
        self.indexed()
        with open(os.path.join(self.image, "kernel-version"), "w") as f:
            f.write("6.1.0-1-amd64\n")
        got, err = self.share()
        self.assertIsNone(got)
        self.assertIn(f"holds the modules of {self.KVER}", err)
        os.unlink(os.path.join(self.image, "modules"))
        self.assertIsNone(self.share()[0])

    def test_commas_in_the_path_are_escaped(self):
        got = {"tag": "vgsmod", "path": "/a,b", "readonly": True}
        self.assertIn("local,id=vgsmod,path=/a,,b,security_model=none,"
                      "readonly=on", shares.qemu_args([got]))


class HostProgram(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(dir="/var/tmp")
        self.dir = os.path.realpath(self.tmp.name)
        self.prog = os.path.join(self.dir, "prog")
        open(self.prog, "w").close()
        self.shares = [{"tag": "vgs0", "path": "/usr", "readonly": True},
                       {"tag": "vgs1", "path": self.dir, "readonly": False}]

    def tearDown(self):
        self.tmp.cleanup()

    def test_bare_name_is_the_image_s(self):
        self.assertIsNone(shares.host_program(self.shares, "pmi_test", "/"))

    def test_relative_and_absolute(self):
        self.assertEqual(shares.host_program(self.shares, "./prog",
                                             self.dir),
                         (self.prog, self.dir))
        self.assertEqual(shares.host_program(self.shares, self.prog,
                                             self.dir),
                         (self.prog, self.dir))
        self.assertEqual(shares.host_program(self.shares, "/usr/bin/env",
                                             self.dir),
                         ("/usr/bin/env", self.dir))

    def test_refused(self):
        for prog, cwd, msg in (
                ("./nothing", self.dir, "no such file on the host"),
                (self.prog, "/", "the current directory / is not shared"),
                ("/etc/passwd", self.dir, "is not in a directory shared"),
                ("./prog", self.dir + "-x", "no such file")):
            with self.assertRaises(Failure) as cm:
                shares.host_program(self.shares, prog, cwd)
            self.assertEqual(cm.exception.code, EXIT_USAGE)
            self.assertIn(msg, str(cm.exception))

    def test_no_shares(self):
        with self.assertRaises(Failure) as cm:
            shares.host_program([], self.prog, self.dir)
        self.assertIn("(shared: none)", str(cm.exception))


if __name__ == "__main__":
    unittest.main()
