"""A throwaway `redis-server` of a test's own: on a free port and a temporary folder, stopped in
teardown. For tests that flush, stop or restart Redis: the shared server is never touched."""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import tempfile
import time  # noqa: TID251 - waits on a real process, not the domain
from collections.abc import Iterator
from pathlib import Path

import redis

from tests.integration.processes import free_port

START_TIMEOUT_S = 20.0


class OwnRedis:
    """One redis-server process; `stop()` and `start()` again keep its port (a restart)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        assert self.proc is None, "already running"
        binary = shutil.which("redis-server")
        assert binary is not None, "redis-server is not on PATH"
        log = (self.folder / "redis.log").open("ab")
        self.proc = subprocess.Popen(
            [
                binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.folder),
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        log.close()
        client = redis.Redis(port=self.port, socket_connect_timeout=0.5)
        deadline = time.monotonic() + START_TIMEOUT_S
        try:
            while True:
                assert self.proc.poll() is None, (self.folder / "redis.log").read_text()
                with contextlib.suppress(redis.ConnectionError, redis.TimeoutError):
                    if client.ping():
                        return
                assert time.monotonic() < deadline, "redis-server did not answer in time"
                time.sleep(0.05)
        finally:
            client.close()

    def stop(self) -> None:
        if self.proc is None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)
        self.proc = None


@contextlib.contextmanager
def own_redis() -> Iterator[OwnRedis]:
    """A started redis-server (no persistence) that is stopped and removed afterwards."""
    folder = Path(tempfile.mkdtemp(prefix="seksenbir-own-redis-"))
    server = OwnRedis(folder)
    try:
        server.start()
        yield server
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)
