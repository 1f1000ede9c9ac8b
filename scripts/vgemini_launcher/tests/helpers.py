# SPDX-License-Identifier: GPL-2.0-only
"""Helpers of the launcher's unit tests: a scratch run directory, C
#define lookup done independently of the launcher, captured output."""

import contextlib
import io
import os
import re
import shutil
import tempfile
import unittest
from unittest import mock

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.realpath(__file__)))))


def c_define(relpath, name):
    """'#define NAME value' of a header of the repository, parsed here."""
    with open(os.path.join(REPO, relpath)) as f:
        m = re.search(r"^#define\s+%s\s+(\S+?)u?\s*(/\*.*)?$" % name, f.read(),
                      re.M)
    return int(m.group(1), 0)


class ScratchTest(unittest.TestCase):
    """A test with its own VGEMINI_RUNDIR and VGEMINI_SHMDIR."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="vgemini-unit-")
        self.rundir = os.path.join(self.tmp, "run")
        self.shmdir = os.path.join(self.tmp, "shm")
        env = mock.patch.dict(os.environ, {"VGEMINI_RUNDIR": self.rundir,
                                           "VGEMINI_SHMDIR": self.shmdir})
        env.start()
        self.addCleanup(env.stop)
        self.addCleanup(shutil.rmtree, self.tmp, True)


@contextlib.contextmanager
def captured():
    """(stdout, stderr) StringIO objects that collect what is printed."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        yield out, err
