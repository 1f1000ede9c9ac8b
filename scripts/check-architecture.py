#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Documentation/architecture.rst names every layer of the tree: every
top-level folder (but the dot folders), every folder of lib/ and every uapi/ header, each as a
literal (``name/`` for a folder, ``name.h`` for a header).  One TAP line
per thing named, so that a new folder or layout header without its line
in the architecture fails `make check` (its "architecture" stage).

    scripts/check-architecture.py
"""
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(REPO, "Documentation", "architecture.rst")


def tracked():
    """The tracked files' paths, or every file when git cannot say."""
    try:
        out = subprocess.run(["git", "-C", REPO, "ls-files"],
                             capture_output=True, text=True, check=True)
        return out.stdout.split()
    except (OSError, subprocess.CalledProcessError):
        paths = []
        for top, dirs, files in os.walk(REPO):
            dirs[:] = [d for d in dirs if d not in (".git", "build")]
            paths += [os.path.relpath(os.path.join(top, f), REPO)
                      for f in files]
        return paths


def main():
    text = open(DOC, encoding="utf-8").read()
    paths = tracked()
    wanted = set()
    for p in paths:
        parts = p.split("/")
        if len(parts) > 1 and not parts[0].startswith("."):
            wanted.add(("folder", parts[0] + "/"))
        if len(parts) > 2 and parts[0] == "lib":
            wanted.add(("folder", "lib/" + parts[1] + "/"))
        if len(parts) == 2 and parts[0] == "uapi" and p.endswith(".h"):
            wanted.add(("uapi header", parts[1]))
    n = 0
    bad = 0
    for kind, name in sorted(wanted):
        n += 1
        good = f"``{name}``" in text
        bad += not good
        print(f"{'ok' if good else 'not ok'} {n} - architecture.rst "
              f"names the {kind} {name}")
    print(f"1..{n}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
