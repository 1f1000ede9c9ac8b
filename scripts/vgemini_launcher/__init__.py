# SPDX-License-Identifier: GPL-2.0-only
"""vgemini_launcher: the vgemini launcher (scripts/vgemini is its entry
point), one module per role; Documentation/vgemini.rst lists them.
"""
