# SPDX-License-Identifier: GPL-2.0-only
"""The one TAP writer of vgemini's Python tests (the fabric and job tests
in scripts/tests/, the libraries' host tests in lib/*/tests/): "TAP
version 13", one "ok N - name" or "not ok N - name" per check with its
diagnostics as "#" lines after a failure, notes, and the plan at the end.

    tap = Tap()
    tap.ok(rc == 0, "up", out + err)
    sys.exit(tap.finish())
"""


class Tap:
    """Prints as it goes; finish() prints the plan and gives the exit
    status: 0 when at least one check ran and none failed."""

    def __init__(self, diag_lines=None):
        """diag_lines: show only the last so many lines of a failure's
        diagnostics (None: all)."""
        self.results = []
        self.diag_lines = diag_lines
        print("TAP version 13", flush=True)

    def ok(self, cond, name, diag=""):
        cond = bool(cond)
        self.results.append(cond)
        print(f"{'ok' if cond else 'not ok'} {len(self.results)} - {name}",
              flush=True)
        if diag and not cond:
            lines = str(diag).splitlines()
            if self.diag_lines:
                lines = lines[-self.diag_lines:]
            for line in lines:
                print(f"#   {line}", flush=True)
        return cond

    def note(self, text):
        for line in str(text).splitlines():
            print(f"# {line}", flush=True)

    def finish(self):
        print(f"1..{len(self.results)}", flush=True)
        return 0 if self.results and all(self.results) else 1
