"""A reader that leaves early (`seksenbir simulate | head -1`) ends the command quietly: exit 0
and no traceback, as `export` already did (every verb goes through `entrypoints.cli.main`)."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

from entrypoints.audit_sources import write_whole


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


def test_export_to_a_path_that_is_no_regular_file_writes_into_it_never_over_it(
    tmp_path: Path,
) -> None:
    """Probe (session 20): `seksenbir export S -o /dev/full`, run as root, renamed its scratch
    file over the device (exit 0, /dev/full a regular file afterwards): `-o` writes whole or not
    at all by a rename, which only a regular file takes. A FIFO (or a device) is written into,
    as `>` would: its reader gets the export, and it stays what it was."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []

    def read() -> None:
        with open(fifo, "rb") as f:
            got.append(f.read())

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    write_whole(str(fifo), [b"a\n", b"b\n"])
    reader.join(5)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert got == [b"a\nb\n"]
    assert [p.name for p in tmp_path.iterdir()] == ["pipe"]  # no scratch file left beside it
