"""A throwaway `redis-server` of a test's own: on a free port and a temporary folder, stopped in
teardown. For tests that flush, stop or restart Redis: the shared server is never touched."""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import tempfile
import time  # noqa: TID251 - waits on a real process, not the domain
from collections.abc import Callable, Iterator
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


def _cluster_ports(count: int) -> list[int]:
    """`count` ports each free together with its cluster bus port (the port + 10000)."""
    ports: list[int] = []
    while len(ports) < count:
        port = free_port()
        if port + 10_000 > 65_535 or port in ports:
            continue
        with socket.socket() as bus:
            try:
                bus.bind(("127.0.0.1", port + 10_000))
            except OSError:
                continue
        ports.append(port)
    return ports


class OwnCluster:
    """`count` redis-server processes in cluster mode (no replicas), joined into one cluster
    by `redis-cli --cluster create`, each slot on one of them."""

    def __init__(self, folder: Path, count: int = 3) -> None:
        self.folder = folder
        self.ports = _cluster_ports(count)
        self.procs: list[subprocess.Popen[bytes]] = []

    @property
    def url(self) -> str:
        """One node's URL: a cluster client discovers the others from it."""
        return f"redis://127.0.0.1:{self.ports[0]}/0"

    def start(self) -> None:
        binary, cli = shutil.which("redis-server"), shutil.which("redis-cli")
        assert binary is not None and cli is not None, "redis-server/redis-cli not on PATH"
        for port in self.ports:
            node = self.folder / str(port)
            node.mkdir()
            with (node / "redis.log").open("ab") as log:
                self.procs.append(
                    subprocess.Popen(
                        [binary, "--port", str(port), "--bind", "127.0.0.1",
                         "--cluster-enabled", "yes",
                         "--cluster-config-file", str(node / "nodes.conf"),
                         "--save", "", "--appendonly", "no", "--dir", str(node)],
                        stdout=log, stderr=subprocess.STDOUT,
                    )
                )  # fmt: skip
        for port in self.ports:
            _wait_for(lambda p=port: _ask(p, "PING"))
        created = subprocess.run(
            [cli, "--cluster", "create", *(f"127.0.0.1:{p}" for p in self.ports),
             "--cluster-replicas", "0", "--cluster-yes"],
            capture_output=True, timeout=60, check=False,
        )  # fmt: skip
        assert created.returncode == 0, created.stdout.decode() + created.stderr.decode()

        def ready() -> bool:  # every node agrees every slot is served
            return all(b"cluster_state:ok" in _ask(p, "CLUSTER", "INFO") for p in self.ports)

        _wait_for(ready)

    def stop(self) -> None:
        for proc in self.procs:
            proc.terminate()
        for proc in self.procs:
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)
        self.procs = []


def _ask(port: int, *command: str) -> bytes:
    """One command to one node on a connection of its own, closed again; the raw answer."""
    client = redis.Redis(port=port, socket_connect_timeout=0.5)
    try:
        answer = client.execute_command(*command)
    finally:
        client.close()
    return answer if isinstance(answer, bytes) else str(answer).encode()


def _wait_for(check: Callable[[], object]) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while True:
        with contextlib.suppress(redis.ConnectionError, redis.TimeoutError, redis.ResponseError):
            if check():
                return
        assert time.monotonic() < deadline, "the Redis cluster did not come up in time"
        time.sleep(0.05)


@contextlib.contextmanager
def own_cluster(count: int = 3) -> Iterator[OwnCluster]:
    """A started Redis Cluster of `count` nodes, stopped and removed afterwards."""
    folder = Path(tempfile.mkdtemp(prefix="seksenbir-own-cluster-"))
    cluster = OwnCluster(folder, count)
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()
        shutil.rmtree(folder, ignore_errors=True)
