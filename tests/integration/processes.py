"""Running the `seksenbir` CLI as a real process in a test: start it, wait until it serves, stop it."""

from __future__ import annotations

import secrets
import signal
import socket
import subprocess
import sys
import time  # noqa: TID251 - waits on a real process, not the domain
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[2]


def alive_in_groups(pgids: set[int]) -> list[tuple[int, int]]:
    """(pid, pgid) of every process, not a zombie, in one of the process groups `pgids` (each
    role `seksenbir up` starts leads a session and group of its own)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()  # after "pid (comm)": state ppid pgrp ...
        if fields[0] != "Z" and int(fields[2]) in pgids:
            found.append((int(entry.name), int(fields[2])))
    return found


def children(pid: int) -> list[int]:
    """The live processes whose parent is `pid`."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[0] != "Z" and int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


def _ephemeral_range() -> tuple[int, int]:
    try:
        low, high = Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()
        return int(low), int(high)
    except (OSError, ValueError):
        return 32768, 60999  # Linux's default


def free_port(span: int = 1) -> int:
    """The first of `span` consecutive ports nobody listens on now, below the kernel's
    ephemeral range: a port the kernel handed out for `bind(0)` lies in that range, where every
    outgoing connection (a test's asyncpg or Redis client) takes its local port too, so the
    port after it, or the port itself before the server binds it, could be taken (the
    resolver's metrics port + 1 was, once, in a full run)."""
    low, _ = _ephemeral_range()
    for _ in range(1000):
        first = 10_000 + secrets.randbelow(low - span - 10_000)
        sockets: list[socket.socket] = []
        try:
            for port in range(first, first + span):
                s = socket.socket()
                sockets.append(s)
                s.bind(("127.0.0.1", port))
            return first
        except OSError:
            continue
        finally:
            for s in sockets:
                s.close()
    raise RuntimeError(f"no {span} consecutive free ports below {low}")


@dataclass
class Served:
    """A CLI process that answers HTTP on `base`; its output goes to `log`."""

    proc: subprocess.Popen[bytes]
    base: str
    log: Path

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def stop(self, timeout: float = 60) -> int:
        """SIGTERM, as systemd or docker stop would, and the exit code."""
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout=timeout)


@contextmanager
def serving(args: list[str], env: dict[str, str], log: Path, port: int) -> Iterator[Served]:
    """`python -m entrypoints.cli ARGS` until GET /health answers (60 s at most); stopped afterwards,
    with SIGTERM first and SIGKILL only if it does not stop, so no worker it started is left."""
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "entrypoints.cli", *args],
            cwd=REPO,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
        served = Served(proc, f"http://127.0.0.1:{port}", log)
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    if httpx.get(f"{served.base}/health", timeout=1).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                assert proc.poll() is None, served.output()
                assert time.monotonic() < deadline, served.output()
                time.sleep(0.2)
            yield served
        finally:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(timeout=40)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
