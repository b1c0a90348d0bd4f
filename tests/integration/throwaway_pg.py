"""A PostgreSQL server of the test's own, on a free port, to kill and restart (RELIABILITY 8).

The shared server on 5432 must never be stopped; a fault test that crashes PostgreSQL starts
this one instead: `initdb` and `pg_ctl` from the PostgreSQL 15 binaries, run as the `postgres`
user (the server refuses root) via `runuser`, with its data directory in a temporary folder
owned by postgres, fsync on. Everything it starts it stops, by process id, in `destroy()`.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import time  # noqa: TID251 - waits on real processes, not the domain
from pathlib import Path

from tests.integration.processes import free_port

PG_BIN = Path(os.environ.get("SEKSENBIR_TEST_PG_BIN", "/usr/lib/postgresql/15/bin"))


def unavailable() -> str | None:
    """Why a throwaway server cannot be started here (None: it can)."""
    if not (PG_BIN / "pg_ctl").exists():
        return f"no PostgreSQL binaries in {PG_BIN}"
    if shutil.which("runuser") is None:
        return "no runuser to start PostgreSQL as the postgres user"
    if os.geteuid() != 0:
        return "not root: cannot run PostgreSQL as the postgres user"
    return None


class ThrowawayPostgres:
    """One cluster in a temporary directory: init, start, kill -9, stop, restart, destroy."""

    def __init__(self, **settings: str) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="seksenbir-pg-fault-"))
        self.data = self.root / "data"
        self.log = self.root / "server.log"
        self.port = free_port()
        self.settings = {"fsync": "on", "synchronous_commit": "on", **settings}
        shutil.chown(self.root, "postgres", "postgres")
        self._as_postgres(
            "initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8"
        )
        # In the configuration file, not on the command line: ALTER SYSTEM can then change
        # them (the durability test turns fsync off).
        with (self.data / "postgresql.conf").open("a") as conf:
            for name, value in self.settings.items():
                conf.write(f"{name} = '{value}'\n")

    @property
    def dsn(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _as_postgres(self, tool: str, *args: str, timeout: float = 120) -> str:
        done = subprocess.run(
            ["runuser", "-u", "postgres", "--", str(PG_BIN / tool), *args],
            cwd=self.root,  # a directory the postgres user may enter
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        if done.returncode != 0:
            raise RuntimeError(f"{tool} {args} failed: {done.stdout}{done.stderr}\n{self.output()}")
        return done.stdout

    def _options(self) -> str:
        return f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1"

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def start(self) -> None:
        """Start and wait until it accepts connections (crash recovery included)."""
        self._as_postgres(
            "pg_ctl", "-D", str(self.data), "-l", str(self.log), "-w", "-t", "120",
            "-o", self._options(), "start",
        )  # fmt: skip

    def stop(self, mode: str = "fast") -> None:
        """`pg_ctl stop -m MODE` (immediate: a crash as far as the data is concerned)."""
        self._as_postgres("pg_ctl", "-D", str(self.data), "-w", "-t", "120", "-m", mode, "stop")

    def restart(self, mode: str = "fast") -> None:
        """`pg_ctl restart -m MODE`: stop, then start again, waiting for both."""
        self._as_postgres(
            "pg_ctl", "-D", str(self.data), "-l", str(self.log), "-w", "-t", "120",
            "-m", mode, "-o", self._options(), "restart",
        )  # fmt: skip

    def postmaster_pid(self) -> int | None:
        pid_file = self.data / "postmaster.pid"
        with contextlib.suppress(FileNotFoundError, ValueError, IndexError):
            pid = int(pid_file.read_text().splitlines()[0])
            if _alive(pid):
                return pid
        return None

    def kill_postmaster(self, timeout: float = 60) -> None:
        """`kill -9` the postmaster, then wait until its children (backends, checkpointer…),
        which notice its death, are gone: only then may a new postmaster start on the data."""
        pid = self.postmaster_pid()
        assert pid is not None, "the server is not running"
        children = _children(pid)
        os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + timeout
        while any(_alive(c) for c in children):
            if time.monotonic() > deadline:  # ours, by id: they outlived their postmaster
                for child in children:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(child, signal.SIGKILL)
                deadline = time.monotonic() + timeout
            time.sleep(0.05)
        # The dead postmaster is reaped by init; until then the new one would take its zombie
        # for a live server holding the lock file. Wait for the reaping, a while.
        reaped = time.monotonic() + 10
        while Path(f"/proc/{pid}").exists() and time.monotonic() < reaped:
            time.sleep(0.05)
        if Path(f"/proc/{pid}").exists():  # never reaped: the lock file is stale, its
            (self.data / "postmaster.pid").unlink(missing_ok=True)  # children are gone

    def destroy(self) -> None:
        """Stop it whatever its state, and remove its directory."""
        pid = self.postmaster_pid()
        if pid is not None:
            with contextlib.suppress(RuntimeError, subprocess.TimeoutExpired):
                self.stop("immediate")
            if self.postmaster_pid() is not None:
                self.kill_postmaster()
        shutil.rmtree(self.root, ignore_errors=True)


def _alive(pid: int) -> bool:
    """Running and not a zombie waiting for its parent."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError, ProcessLookupError):
        return False
    return state != "Z"


def _children(pid: int) -> list[int]:
    """Processes whose parent is `pid` (the postmaster's backends and auxiliary processes)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(FileNotFoundError, IndexError, ProcessLookupError):
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            if int(fields[1]) == pid:
                found.append(int(entry.name))
    return found
