# SPDX-License-Identifier: GPL-2.0-only
"""A fabric's names, paths and state files."""

import json
import os

from vgemini_launcher.common import EXIT_NOT_UP, EXIT_USAGE, Failure
from vgemini_launcher.fabric import Fabric, nodes_arg

from .helpers import ScratchTest


class Names(ScratchTest):
    def test_good_names_and_paths(self):
        fab = Fabric("my_fab-1.x")
        self.assertEqual(fab.rundir, os.path.join(self.rundir, "my_fab-1.x"))
        self.assertEqual(fab.linkdir,
                         os.path.join(self.shmdir, "vgemini-my_fab-1.x"))
        self.assertEqual(fab.path(3, "console"),
                         f"{fab.rundir}/node3.console")
        self.assertEqual(fab.agent_sock(3), f"{fab.rundir}/node3.agent")
        self.assertEqual(fab.agent_sock(3, 2), f"{fab.rundir}/node3.agent.2")
        self.assertEqual(fab.qmp_sock(0), f"{fab.rundir}/node0.qmp")
        self.assertEqual(fab.qmp_sock(0, sup=True),
                         f"{fab.rundir}/node0.qmp-sup")
        self.assertEqual(fab.link(2, "y"), f"{fab.linkdir}/link-2-y")
        self.assertEqual(fab.tables_dir(4), f"{fab.rundir}/routes/gen-4")
        Fabric("a" * 64)

    def test_bad_names(self):
        for name in ("", "a/b", ".hidden", "-x", "a b", "a" * 65):
            with self.assertRaises(Failure) as cm:
                Fabric(name)
            self.assertEqual(cm.exception.code, EXIT_USAGE)


class State(ScratchTest):
    def up(self, dims=(3, 2, 1)):
        fab = Fabric("f")
        os.makedirs(fab.rundir)
        n = dims[0] * dims[1] * dims[2]
        fab.save({"dims": list(dims), "nodes": [
            {"node": i, "pid": None, "starttime": None} for i in range(n)]})
        return fab

    def test_not_up(self):
        fab = Fabric("f")
        self.assertFalse(fab.exists())
        with self.assertRaises(Failure) as cm:
            fab.topology()
        self.assertEqual(cm.exception.code, EXIT_NOT_UP)
        self.assertEqual(fab.live_nodes(), [])
        self.assertEqual(fab.routing(), {})

    def test_topology_round_trip(self):
        fab = self.up()
        self.assertTrue(fab.exists())
        self.assertEqual(Fabric("f").topology()["dims"], [3, 2, 1])
        self.assertTrue(fab.gemini())
        self.assertEqual(fab.live_nodes(), [])
        self.assertFalse(fab.alive(0))
        self.assertIsNone(fab.supervisor())
        with open(fab.topofile) as f:
            self.assertEqual(json.load(f)["nodes"][5]["node"], 5)

    def test_bad_topology(self):
        fab = self.up()
        with open(fab.topofile, "w") as f:
            f.write("{")
        with self.assertRaises(Failure) as cm:
            Fabric("f").topology()
        self.assertTrue(str(cm.exception).startswith(fab.topofile))

    def test_routing_record(self):
        fab = self.up()
        fab.save_routing({"generation": 2})
        self.assertEqual(fab.routing(), {"generation": 2})
        with open(fab.routingfile, "w") as f:
            f.write("[1]")
        self.assertEqual(fab.routing(), {})

    def test_node_arg(self):
        fab = self.up()
        self.assertEqual(fab.node_arg("4"), 4)
        self.assertEqual(fab.node_arg("2,1,0"), 5)
        self.assertEqual(nodes_arg(fab, "all"), [0, 1, 2, 3, 4, 5])
        self.assertEqual(nodes_arg(fab, "1,1,0"), [4])
        for s, msg in (("6", "node 6 does not exist (the fabric has 6 "
                        "nodes)"),
                       ("3,0,0", "node 3,0,0 is outside the 3x2x1 torus"),
                       ("1,1", "bad node '1,1': want an index or x,y,z"),
                       ("x", "bad node 'x': want an index or x,y,z")):
            with self.assertRaises(Failure) as cm:
                fab.node_arg(s)
            self.assertEqual((str(cm.exception), cm.exception.code),
                             (msg, EXIT_USAGE))

    def test_node_down_has_no_connections(self):
        from vgemini_launcher.agent import AgentError
        from vgemini_launcher.qmp import QMPError
        fab = self.up()
        with self.assertRaises(QMPError) as cm:
            fab.qmp(0)
        self.assertEqual(str(cm.exception), "node is down (QEMU not running)")
        with self.assertRaises(AgentError):
            fab.agent(0)


class Leftovers(ScratchTest):
    def test_planted_symlink_is_removed_not_followed(self):
        fab = Fabric("f")
        victim = os.path.join(self.tmp, "victim")
        os.makedirs(victim)
        open(os.path.join(victim, "keep"), "w").close()
        os.makedirs(os.path.dirname(fab.linkdir))
        os.symlink(victim, fab.linkdir)
        self.assertTrue(fab.exists())
        fab.remove_dirs()
        self.assertFalse(os.path.lexists(fab.linkdir))
        self.assertTrue(os.path.exists(os.path.join(victim, "keep")))

    def test_qemus_reach_only_what_they_open_by_name(self):
        fab = Fabric("f")
        os.makedirs(os.path.join(fab.rundir, "net"), mode=0o700)
        os.makedirs(os.path.join(fab.rundir, "routes", "gen-1"))
        open(os.path.join(fab.rundir, "routes", "gen-1", "r.bin"),
             "w").close()
        sock = os.path.join(fab.rundir, "net", "hub.sock")
        open(sock, "w").close()
        fab.save({"qemu_user": None})
        before = os.stat(sock).st_mode
        fab.socket_to_qemus(sock)       # the QEMUs are the caller's
        self.assertEqual(os.stat(sock).st_mode, before)
        fab.save({"qemu_user": "root"})
        fab.socket_to_qemus(sock)
        fab.open_to_qemus(os.path.join(fab.rundir, "routes", "gen-1"))
        modes = {p: os.stat(os.path.join(fab.rundir, p)).st_mode & 0o777
                 for p in (".", "net", "net/hub.sock", "routes",
                           "routes/gen-1", "routes/gen-1/r.bin")}
        self.assertEqual(modes, {".": 0o710, "net": 0o710,
                                 "net/hub.sock": 0o660, "routes": 0o710,
                                 "routes/gen-1": 0o750,
                                 "routes/gen-1/r.bin": 0o640})
        self.assertEqual(os.stat(fab.base).st_mode & 0o777, 0o710)
