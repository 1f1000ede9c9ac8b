# SPDX-License-Identifier: GPL-2.0-only
"""Unit tests of the launcher's pure parts (no QEMU, no guest): run
run_tap.py, or python3 -m unittest discover -s
scripts/vgemini_launcher/tests -t scripts."""
