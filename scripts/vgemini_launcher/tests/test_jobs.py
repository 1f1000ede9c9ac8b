# SPDX-License-Identifier: GPL-2.0-only
"""A job's arguments, id and credentials."""

import argparse
import os
import unittest
from unittest import mock

from vgemini_launcher import jobs
from vgemini_launcher.common import EXIT_USAGE, Failure

from .helpers import ScratchTest, c_define


class Cookie(unittest.TestCase):
    def test_good(self):
        self.assertEqual(jobs.parse_cookie("0x12340000"), 0x12340000)
        self.assertEqual(jobs.parse_cookie("1"), 1)
        self.assertEqual(jobs.parse_cookie("0xffffffff"), 0xffffffff)
        self.assertEqual(jobs.parse_cookie("0o17"), 15)

    def test_bad(self):
        for s in ("0", "-1", "0x100000000", "abc", "", "1.5"):
            with self.assertRaises(Failure) as cm:
                jobs.parse_cookie(s)
            self.assertEqual(cm.exception.code, EXIT_USAGE)
            self.assertIn(f"bad --cookie '{s}'", str(cm.exception))


class Credentials(unittest.TestCase):
    def test_ptag_cycles_through_the_user_range(self):
        lo, hi = jobs.PTAG_USER_START, jobs.PTAG_USER_END
        self.assertEqual((lo, hi), (3, 253))
        span = hi - lo + 1
        self.assertEqual(jobs.job_credentials(1)[0], lo)
        self.assertEqual(jobs.job_credentials(2)[0], lo + 1)
        self.assertEqual(jobs.job_credentials(span)[0], hi)
        self.assertEqual(jobs.job_credentials(span + 1)[0], lo)

    def test_cookie_is_a_random_pkey(self):
        for jid in range(1, 50):
            cookie = jobs.job_credentials(jid)[1]
            self.assertEqual(cookie & 0xffff, 0)
            self.assertTrue(0x100 <= cookie >> 16 <= 0xffff)
        with mock.patch.object(jobs.secrets, "randbelow", return_value=0):
            self.assertEqual(jobs.job_credentials(1)[1], 0x100 << 16)

    def test_given_values_stand(self):
        self.assertEqual(jobs.job_credentials(9, 77, 0x5555), (77, 0x5555))

    def test_alt_domain_differs_in_both_halves(self):
        with mock.patch.object(jobs.secrets, "randbelow", return_value=0):
            # Job 1's alternate takes job id 2: ptag 4, cookie 0x01000000.
            self.assertEqual(jobs.alt_credentials(None, 1, 3, 5),
                             (4, 0x01000000))
            self.assertEqual(jobs.alt_credentials(None, 1, 4, 0x01000000),
                             (5, 0x01010000))
            # Job 250: the alternate 253 collides, moves on to 3 (wraps).
            self.assertEqual(jobs.alt_credentials(None, 250, 253, 1),
                             (3, 0x01000000))

    def test_cgroup(self):
        self.assertEqual(jobs.job_cgroup(12), "vgemini-job-12")


class HostEnv(unittest.TestCase):
    def test_session_variables_stay_behind(self):
        env = {"HOME": "/root", "VGEMINI_FABRIC": "f", "PMI_RANK": "3",
               "SSH_TTY": "/dev/pts/0", "OMPI_MCA_btl": "self,ugni",
               "VGEMINI_IDLE_POLLS": "0", "VGEMINI_UDREG_WATCH": "0",
               "LD_LIBRARY_PATH": "/opt/lib"}
        with mock.patch.dict(os.environ, env, clear=True):
            got = jobs.host_env()
        for k in ("HOME", "OMPI_MCA_btl", "VGEMINI_IDLE_POLLS",
                  "VGEMINI_UDREG_WATCH"):
            self.assertEqual(got[k], env[k])
        for k in ("VGEMINI_FABRIC", "PMI_RANK", "SSH_TTY"):
            self.assertNotIn(k, got)
        self.assertTrue(got["LD_LIBRARY_PATH"].endswith("/build/lib:/opt/lib"))


class JobIds(ScratchTest):
    def test_counter_in_the_run_directory(self):
        fab = argparse.Namespace(rundir=self.tmp)
        self.assertEqual([jobs.next_job_id(fab) for _ in range(3)],
                         [1, 2, 3])
        with open(os.path.join(self.tmp, "jobs.seq")) as f:
            self.assertEqual(f.read(), "3\n")
        with open(os.path.join(self.tmp, "jobs.seq"), "w") as f:
            f.write("garbage")
        self.assertEqual(jobs.next_job_id(fab), 1)


class RunArgs(unittest.TestCase):
    def args(self, **kw):
        a = dict(cmd=["prog"], n=4, ppn=1, ptag=None, cookie=None)
        a.update(kw)
        return argparse.Namespace(**a)

    def refused(self, msg, **kw):
        with self.assertRaises(Failure) as cm:
            jobs.check_run_args(self.args(**kw))
        self.assertEqual(cm.exception.code, EXIT_USAGE)
        self.assertEqual(str(cm.exception), msg)

    def test_good(self):
        self.assertIsNone(jobs.check_run_args(self.args()))
        self.assertEqual(jobs.check_run_args(self.args(cookie="0x10000")),
                         0x10000)
        self.assertIsNone(jobs.check_run_args(self.args(ptag=253, ppn=2)))

    def test_refused(self):
        top = c_define("uapi/pmi_wire.h", "VGEMINI_PMI_MAX_RANKS")
        most = c_define("uapi/vgemini_agent.h", "VGEMINI_AGENT_MAX_REQUESTS")
        self.refused("no program given (vgemini run -n N PROG ARGS...)",
                     cmd=[])
        self.refused("bad -n 0: a job has at least 1 rank", n=0)
        self.refused(f"bad -n {top + 1}: at most {top} ranks", n=top + 1)
        self.refused(f"bad --ppn 0: 1 to {most} (the agent's limit of "
                     "commands at once)", ppn=0)
        self.refused(f"bad --ppn {most + 1}: 1 to {most} (the agent's limit "
                     "of commands at once)", ppn=most + 1)
        self.refused("bad --ptag 2: user ptags are 3..253", ptag=2)
        self.refused("bad --ptag 254: user ptags are 3..253", ptag=254)
        self.refused("bad --cookie 'x': want a 32-bit value, e.g. "
                     "0x12340000", cookie="x")

    def test_local_placement(self):
        fab, nodes, jobid = jobs.job_placement(
            argparse.Namespace(local=True, n=3, ppn=2), 2)
        self.assertEqual((fab, nodes, jobid), (None, [0, 1], os.getpid()))


class Ptags(ScratchTest):
    """Ptags are the fabric's: a live job's is refused to another job."""

    def test_claim_and_release(self):
        fab = argparse.Namespace(rundir=self.tmp)
        lo = jobs.PTAG_USER_START
        self.assertEqual(jobs.claim_ptag(fab, 1), lo)
        # Job 252 would take ptag 3 again (252 - 1 = the range's size):
        # job 1 holds it, so it takes the next.
        self.assertEqual(jobs.claim_ptag(fab, 252), lo + 1)
        with self.assertRaises(Failure) as cm:
            jobs.claim_ptag(fab, 7, lo)
        self.assertIn(f"--ptag {lo}: job 1 of this fabric holds it",
                      str(cm.exception))
        self.assertEqual(jobs.claim_ptag(fab, 8, 100), 100)
        # From job 8's own (lo + 7) on, but not one it holds already.
        self.assertEqual(jobs.claim_ptag(fab, 8, None, (lo + 7,)), lo + 8)
        jobs.release_ptags(fab, 1)
        self.assertEqual(jobs.claim_ptag(fab, 9, lo), lo)

    def test_dead_holders_do_not_count(self):
        fab = argparse.Namespace(rundir=self.tmp)
        with open(os.path.join(self.tmp, "ptags.json"), "w") as f:
            f.write('{"3": {"job": 1, "pid": 1, "start": -1}, "4": 5}')
        self.assertEqual(jobs.claim_ptag(fab, 1), jobs.PTAG_USER_START)

    def test_rank_ids(self):
        with mock.patch.object(jobs.os, "geteuid", return_value=0):
            self.assertEqual(jobs.rank_ids(7), (100007, 100007))
            self.assertEqual(jobs.rank_ids(100003), (100003, 100003))
        with mock.patch.object(jobs.os, "geteuid", return_value=1000), \
                mock.patch.object(jobs.os, "getuid", return_value=1000), \
                mock.patch.object(jobs.os, "getgid", return_value=100):
            self.assertEqual(jobs.rank_ids(7), (1000, 100))
