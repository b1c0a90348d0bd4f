"""A reader that leaves early (`seksenbir simulate | head -1`) ends the command quietly: exit 0
and no traceback, as `export` already did (every verb goes through `entrypoints.cli.main`)."""

from __future__ import annotations

import subprocess
import sys


def test_a_reader_that_leaves_early_gets_no_traceback() -> None:
    command = [sys.executable, "-m", "entrypoints.cli", "simulate", "--seed", "7"]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.readline()
        proc.stdout.close()  # as `head -1` does after its line
        err = proc.stderr.read().decode()
        code = proc.wait(timeout=120)
    assert "Traceback" not in err, err
    assert code == 0, (code, err)
