"""The broker under test (issue 28, ADR-95): Redis by default, RabbitMQ with `--broker rabbitmq`.

A test that requests the `broker_url` fixture runs on whichever broker the session picked and
is marked `broker` at collection; `make test-rabbitmq` runs those tests again on RabbitMQ.

RabbitMQ: each test session gets a virtual host of its own (`rabbitmqctl add_vhost`, deleted
at the end), and every test starts and ends with that vhost's queues deleted, so no message of
one test reaches another. A session that asked for RabbitMQ and cannot have it fails, saying
why (it never falls back to Redis silently).

`probe(url, namespace)` reads what the broker holds, the same questions on both brokers:
messages stored (queued, delayed or in flight), messages held unacked, dead letters.
"""

from __future__ import annotations

import contextlib
import secrets
import shutil
import subprocess
from collections.abc import Iterator
from typing import Any, Protocol
from urllib.parse import quote

import msgspec
import pika

from entrypoints import deadletters_rabbitmq
from shared.app.messaging.queues import DIVANS_QUEUE, PROJECTIONS_QUEUE
from shared.app.messaging.rabbit_broker import is_amqp, vhost_of
from tests.integration.resolver_support import BrokerKeys

AMQP_BASE = "amqp://guest:guest@127.0.0.1:5672"
QUEUES = (DIVANS_QUEUE, PROJECTIONS_QUEUE)


def _rabbitmqctl(*args: str) -> subprocess.CompletedProcess[str]:
    if shutil.which("rabbitmqctl") is None:
        raise RuntimeError("--broker rabbitmq: rabbitmqctl is not installed (it makes each vhost)")
    return subprocess.run(
        ["rabbitmqctl", "-q", *args], capture_output=True, text=True, timeout=60, check=False
    )


def _ctl(*args: str) -> str:
    done = _rabbitmqctl(*args)
    if done.returncode != 0:
        raise RuntimeError(f"rabbitmqctl {' '.join(args)} failed: {done.stderr.strip()}")
    return done.stdout


@contextlib.contextmanager
def session_vhost(name: str, base: str = AMQP_BASE) -> Iterator[str]:
    """A RabbitMQ virtual host of this session's, guest allowed everything; its URL."""
    _ctl("add_vhost", name)
    try:
        _ctl("set_permissions", "-p", name, "guest", ".*", ".*", ".*")
        yield f"{base}/{quote(name, safe='')}"
    finally:
        _rabbitmqctl("delete_vhost", name)


@contextlib.contextmanager
def broker_of(kind: str, redis_url: str, amqp: str = AMQP_BASE) -> Iterator[str]:
    """A bench's broker URL (`--broker redis|rabbitmq`): `redis_url`, or a RabbitMQ virtual
    host of the run's own on `amqp`'s server, deleted afterwards."""
    if kind == "redis":
        yield redis_url
        return
    with session_vhost(f"sbbench-{secrets.token_hex(4)}", amqp.rstrip("/")) as url:
        yield url


def all_queues(queues: tuple[str, ...] = QUEUES) -> list[str]:
    return [f"{q}{suffix}" for q in queues for suffix in ("", ".DQ", ".XQ")]


def delete_queues(url: str) -> None:
    """Delete every queue of Dramatiq's for our queues on the broker `url` (a test's start)."""
    connection = pika.BlockingConnection(pika.URLParameters(url))
    try:
        channel = connection.channel()
        for name in all_queues():
            channel.queue_delete(queue=name)
    finally:
        connection.close()


class Probe(Protocol):
    """What a test asks of the broker, the same on Redis and RabbitMQ."""

    requeues_at_once: bool  # a dead consumer's messages come back without a heartbeat timeout

    def pending(self) -> int: ...
    def unacked(self) -> set[str]: ...
    def dead_letters(self) -> dict[str, dict[str, Any]]: ...
    def cleanup(self) -> None: ...


class RedisProbe(BrokerKeys):
    requeues_at_once = False


class RabbitProbe:
    """RabbitMQ's counts from `rabbitmqctl list_queues` (no management plugin needed): it
    names no unacked message, so `unacked()` is one placeholder per unacked message."""

    requeues_at_once = True

    def __init__(self, url: str, queue: str = DIVANS_QUEUE) -> None:
        self.url = url
        self.queue = queue

    def _counts(self) -> dict[str, tuple[int, int]]:
        out = _ctl(
            "list_queues", "-p", vhost_of(self.url), "name", "messages", "messages_unacknowledged"
        )
        counts: dict[str, tuple[int, int]] = {}
        for line in out.splitlines():
            fields = line.split()
            if len(fields) == 3 and fields[1].isdigit():
                counts[fields[0]] = (int(fields[1]), int(fields[2]))
        return counts

    def pending(self) -> int:
        counts = self._counts()
        return sum(counts.get(q, (0, 0))[0] for q in (self.queue, f"{self.queue}.DQ"))

    def unacked(self) -> set[str]:
        counts = self._counts()
        held = sum(counts.get(q, (0, 0))[1] for q in (self.queue, f"{self.queue}.DQ"))
        return {f"unacked-{n}" for n in range(held)}

    def dead_letters(self) -> dict[str, dict[str, Any]]:
        """Dead-lettered messages (`<queue>.XQ`) by Dramatiq message id, read and put back."""
        connection = pika.BlockingConnection(pika.URLParameters(self.url))
        try:
            held = deadletters_rabbitmq.held(connection.channel(), self.queue)
            bodies = [msgspec.json.decode(body) for _, _, body in held]
        finally:
            connection.close()
        return {m["message_id"]: m for m in bodies}

    def cleanup(self) -> None:
        delete_queues(self.url)


def probe(url: str, namespace: str, queue: str = DIVANS_QUEUE) -> Probe:
    """The probe of the broker at `url` (`namespace`: the Redis broker's key prefix)."""
    if is_amqp(url):
        return RabbitProbe(url, queue)
    return RedisProbe(url, namespace, queue)
