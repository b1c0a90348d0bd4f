"""ADR-54: the broker's idle consumers block on a wake-up instead of polling Redis.

An in-process Dramatiq worker on `make_broker` (shared.app.wakeup_broker) whose idle consumers
block up to 3 s: a message is picked up at once because its enqueue wakes the consumer (a polling
consumer would take up to the timeout), a delayed message runs when it is due (not at the next
timeout), an idle consumer calls Redis about once per timeout, a consumer whose prefetch is full
keeps heartbeating, and a dead worker's message is redelivered by the timed maintenance.
"""

from __future__ import annotations

import contextlib
import secrets
import threading
import time  # noqa: TID251 - measures a real worker's latency
from collections.abc import Iterator
from typing import Any

import dramatiq
import pytest
import redis

from shared.app.queues import make_broker
from shared.app.wakeup_broker import WAKE_TOKENS, WakeupRedisBroker, wake_key

pytestmark = pytest.mark.integration

TIMEOUT_MS = 3_000  # far above every latency asserted below: a poll could not meet them


@contextlib.contextmanager
def worker_on(
    redis_url: str, ns: str, threads: int = 1, **broker: Any
) -> Iterator[tuple[WakeupRedisBroker, dramatiq.Worker]]:
    b = make_broker(redis_url, namespace=ns, **broker)
    assert isinstance(b, WakeupRedisBroker)
    b.idle_block_ms = TIMEOUT_MS
    w = dramatiq.Worker(b, worker_threads=threads, worker_timeout=TIMEOUT_MS)
    try:
        yield b, w
    finally:
        w.stop(timeout=20_000)
        b.close()


@pytest.fixture
def ns(redis_url: str) -> Iterator[str]:
    name = f"sbtest-wake-{secrets.token_hex(4)}"
    yield name
    client = redis.Redis.from_url(redis_url)
    for key in client.scan_iter(f"{name}:*"):
        client.delete(key)
    client.close()


def _actor(b: dramatiq.Broker, seen: list[float], done: threading.Event) -> Any:
    @dramatiq.actor(broker=b, queue_name="q", actor_name="note", max_retries=0)
    def note(n: int) -> None:
        seen.append(time.monotonic())
        done.set()

    return note


def test_an_enqueue_wakes_an_idle_consumer_at_once(redis_url: str, ns: str) -> None:
    seen: list[float] = []
    done = threading.Event()
    with worker_on(redis_url, ns) as (b, w):
        note = _actor(b, seen, done)
        w.start()
        time.sleep(1.0)  # the consumer has fetched nothing and is blocked on its wake-up
        sent = time.monotonic()
        note.send(1)
        assert done.wait(TIMEOUT_MS / 1000 / 2), "not processed"
    assert seen[0] - sent < 0.5, f"picked up after {seen[0] - sent:.3f} s: polled, not woken"


def test_a_delayed_message_runs_when_due_not_at_the_next_timeout(redis_url: str, ns: str) -> None:
    seen: list[float] = []
    done = threading.Event()
    with worker_on(redis_url, ns) as (b, w):
        note = _actor(b, seen, done)
        w.start()
        time.sleep(0.5)
        sent = time.monotonic()
        note.send_with_options(args=(1,), delay=800)
        assert done.wait(TIMEOUT_MS / 1000), "not processed"
    waited = seen[0] - sent
    assert 0.75 <= waited < 2.0, f"a delay of 0.8 s ran after {waited:.3f} s"


def test_an_idle_consumer_calls_redis_about_once_per_timeout(redis_url: str, ns: str) -> None:
    calls: list[str] = []
    with worker_on(redis_url, ns) as (b, w):
        _actor(b, [], threading.Event())
        real = b._dispatch

        def counting(command: str) -> Any:
            inner = real(command)

            def call(queue_name: str, *args: Any) -> Any:
                calls.append(f"{command}:{queue_name}")
                return inner(queue_name, *args)

            return call

        b._dispatch = counting  # type: ignore[method-assign]
        w.start()
        time.sleep(3.0)
        fetches = [c for c in calls if c.startswith("fetch:")]  # before the stop's own
    # two consumers (q and q.DQ), each one fetch, then a block of up to 3 s: a 20 ms poll
    # would have made about 300 calls in these 3 s
    assert 1 <= len(fetches) <= 6, calls


def test_tokens_are_bounded_and_a_pending_token_is_not_lost(redis_url: str, ns: str) -> None:
    b = make_broker(redis_url, namespace=ns)
    try:
        assert isinstance(b, WakeupRedisBroker)
        b.wake("q", 1000)
        b.wake("q")
        assert b.client.llen(wake_key(ns, "q")) == WAKE_TOKENS
    finally:
        b.close()


def test_a_full_consumer_heartbeats_while_its_messages_run(redis_url: str, ns: str) -> None:
    """A long message with prefetch 1: the consumer holds one message and fetches no more, yet
    it calls the broker each timeout (a fetch of 0 messages: a heartbeat), so a long Divan never
    looks like a dead worker to the others' maintenance, and it fetches at once after the ack."""
    release = threading.Event()
    started = threading.Event()
    seen: list[float] = []
    done = threading.Event()
    calls: list[tuple[str, tuple[Any, ...]]] = []
    with worker_on(redis_url, ns, heartbeat_timeout=60_000) as (b, w):
        w.queue_prefetch = 1
        note = _actor(b, seen, done)

        @dramatiq.actor(broker=b, queue_name="q", actor_name="long", max_retries=0)
        def long(n: int) -> None:
            started.set()
            release.wait(20)

        real = b._dispatch

        def counting(command: str) -> Any:
            inner = real(command)

            def call(queue_name: str, *args: Any) -> Any:
                if command == "fetch" and queue_name == "q":
                    calls.append((command, args))
                return inner(queue_name, *args)

            return call

        b._dispatch = counting  # type: ignore[method-assign]
        w.start()
        long.send(1)
        assert started.wait(5)
        note.send(2)  # waits on the queue: the consumer's prefetch is full
        time.sleep(TIMEOUT_MS / 1000 + 1.5)
        heartbeats = [c for c in calls if c[1] == (0,)]
        released = time.monotonic()
        release.set()
        assert done.wait(TIMEOUT_MS / 1000 / 2), "the waiting message was not fetched"
    assert len(heartbeats) >= 1, calls
    assert seen[0] - released < 1.0, "the consumer slept instead of waking on the ack"


def test_a_dead_workers_message_comes_back_by_the_timed_maintenance(
    redis_url: str, ns: str
) -> None:
    """A message fetched by a worker that never acks (it died): another worker's consumer puts
    it back after heartbeat_timeout, by the timed maintenance, with Dramatiq's per-call chance
    at 0."""
    dead = make_broker(redis_url, namespace=ns, heartbeat_timeout=1_000)
    dead.declare_queue("q")
    seen: list[float] = []
    done = threading.Event()
    try:
        with worker_on(redis_url, ns, heartbeat_timeout=1_000, maintenance_every_ms=250) as (b, w):
            b.maintenance_chance = 0
            note = _actor(b, seen, done)
            msg = note.message(7)
            dead.enqueue(msg)
            fetched = dead.do_fetch("q", 1)  # type: ignore[attr-defined]
            assert len(fetched) == 1  # held by the dead broker, unacked
            killed = time.monotonic()
            w.start()
            assert done.wait(10), "the dead worker's message never came back"
        assert seen[0] - killed < 1.0 + 0.25 + TIMEOUT_MS / 1000 + 1.0
    finally:
        dead.close()
