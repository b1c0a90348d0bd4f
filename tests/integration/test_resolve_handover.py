"""ADR-160: the API's resolve hand-over sends the Divans that wait when its thread wakes in one
round trip of the Redis broker (`enqueue_many`: each Divan's own enqueue, then the wake-up
tokens), not one round trip each; every Divan is on the queue once, in the order asked.
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest
import redis

from entrypoints import bootstrap
from shared.app.messaging.queues import DIVANS_QUEUE
from shared.app.messaging.wakeup_broker import WakeupRedisBroker
from shared.settings import Settings

pytestmark = pytest.mark.integration
WAIT_S = 10.0


@pytest.fixture
def namespace(redis_url: str) -> Iterator[str]:
    ns = f"handover-{secrets.token_hex(4)}"
    yield ns
    client = redis.Redis.from_url(redis_url)
    try:
        for key in client.scan_iter(f"{ns}:*"):
            client.delete(key)
    finally:
        client.close()


def test_adr_160_divans_waiting_together_go_to_the_broker_in_one_round_trip(
    redis_url: str, namespace: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = Settings(redis_url=redis_url, broker_namespace=namespace)
    real = bootstrap.broker(settings)
    assert isinstance(real, WakeupRedisBroker)
    held, first_in = threading.Event(), threading.Event()
    calls: list[tuple[str, list[tuple[Any, ...]]]] = []
    one, many = real.enqueue, real.enqueue_many

    def enqueue(message: Any, **kw: Any) -> Any:
        calls.append(("enqueue", [message.args]))
        first_in.set()
        assert held.wait(WAIT_S)  # the first Divan's round trip, held while three more come
        return one(message, **kw)

    def enqueue_many(messages: Any) -> None:
        calls.append(("enqueue_many", [m.args for m in messages]))
        many(messages)

    monkeypatch.setattr(real, "enqueue", enqueue)
    monkeypatch.setattr(real, "enqueue_many", enqueue_many)
    monkeypatch.setattr(bootstrap, "broker", lambda _settings, **_kw: real)
    with bootstrap.resolve_queue(settings) as send:
        send("s-1", 1)
        assert first_in.wait(WAIT_S)
        for n in (2, 3, 4):
            send(f"s-{n}", n)
        held.set()
    assert calls == [
        ("enqueue", [("s-1", 1)]),
        ("enqueue_many", [("s-2", 2), ("s-3", 3), ("s-4", 4)]),
    ]
    client = redis.Redis.from_url(redis_url)
    try:
        ids = client.lrange(f"{namespace}:{DIVANS_QUEUE}", 0, -1)
        stored = client.hmget(f"{namespace}:{DIVANS_QUEUE}.msgs", ids)
        tokens = client.llen(f"{namespace}:{DIVANS_QUEUE}.wake")
    finally:
        client.close()
    assert [msgspec.json.decode(m)["args"] for m in stored if m] == [
        ["s-1", 1],
        ["s-2", 2],
        ["s-3", 3],
        ["s-4", 4],
    ]
    assert tokens == 4  # a wake-up token for each, as one by one
