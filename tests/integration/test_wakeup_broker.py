"""ADR-54: the broker's idle consumers block on a wake-up instead of polling Redis.

An in-process Dramatiq worker on `make_broker` (shared.app.messaging.wakeup_broker), its Redis calls
recorded: an idle consumer blocks in BLPOP on its queue's wake-up list and an enqueue's token
wakes it (a polling consumer would never be woken by a token); a consumer holding a delayed
message blocks no longer than the message's delay (not the whole timeout); an idle consumer makes
one fetch per block, not a poll; a consumer whose prefetch is full keeps heartbeating and is
woken by the ack; and a dead worker's message is redelivered by the timed maintenance. Every
wait is on a condition with a deadline; nothing is timed.
"""

from __future__ import annotations

import contextlib
import secrets
import threading
import time  # noqa: TID251 - deadlines of the polls on a real worker
from collections.abc import Callable, Iterator
from typing import Any

import dramatiq
import pytest
import redis

from shared.app.messaging import wakeup_broker
from shared.app.messaging.queues import make_broker
from shared.app.messaging.wakeup_broker import WAKE_TOKENS, WakeupRedisBroker, wake_key

pytestmark = pytest.mark.integration

TIMEOUT_MS = 3_000  # an idle consumer's block: far longer than any wait below needs
DEADLINE_S = 20.0  # how long a poll waits for its condition before the test fails


@contextlib.contextmanager
def worker_on(
    redis_url: str, ns: str, threads: int = 1, block_ms: int = TIMEOUT_MS, **broker: Any
) -> Iterator[tuple[WakeupRedisBroker, dramatiq.Worker]]:
    b = make_broker(redis_url, namespace=ns, **broker)
    assert isinstance(b, WakeupRedisBroker)
    b.idle_block_ms = block_ms
    w = dramatiq.Worker(b, worker_threads=threads, worker_timeout=block_ms)
    try:
        yield b, w
    finally:
        w.stop(timeout=20_000)
        b.close()


def poll(condition: Callable[[], bool], what: str) -> None:
    """Wait for the condition (never a fixed sleep); fail after DEADLINE_S."""
    deadline = time.monotonic() + DEADLINE_S
    while not condition():
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.01)


class Blocks:
    """The broker's BLPOP calls on the wake-up lists: (keys, timeout in s, answer)."""

    def __init__(self, b: WakeupRedisBroker) -> None:
        self.calls: list[tuple[tuple[str, ...], float, Any]] = []
        self.entered: list[tuple[str, ...]] = []
        real = b.client.blpop

        def blpop(keys: list[str], timeout: float = 0) -> Any:
            self.entered.append(tuple(keys))
            answer = real(keys, timeout=timeout)
            self.calls.append((tuple(keys), timeout, answer))
            return answer

        b.client.blpop = blpop  # type: ignore[method-assign]

    def on(self, key: str) -> list[tuple[float, Any]]:
        return [(timeout, answer) for keys, timeout, answer in list(self.calls) if key in keys]


def record_dispatch(b: WakeupRedisBroker, calls: list[tuple[str, str, tuple[Any, ...]]]) -> None:
    """Record every Lua dispatch (command, queue, arguments) the broker makes."""
    real = b._dispatch

    def counting(command: str) -> Any:
        inner = real(command)

        def call(queue_name: str, *args: Any) -> Any:
            calls.append((command, queue_name, args))
            return inner(queue_name, *args)

        return call

    b._dispatch = counting  # type: ignore[method-assign]


@pytest.fixture
def ns(redis_url: str) -> Iterator[str]:
    name = f"sbtest-wake-{secrets.token_hex(4)}"
    yield name
    client = redis.Redis.from_url(redis_url)
    for key in client.scan_iter(f"{name}:*"):
        client.delete(key)
    client.close()


def _actor(b: dramatiq.Broker, seen: list[int], done: threading.Event) -> Any:
    @dramatiq.actor(broker=b, queue_name="q", actor_name="note", max_retries=0)
    def note(n: int) -> None:
        seen.append(n)
        done.set()

    return note


def test_an_enqueue_wakes_an_idle_consumer_at_once(redis_url: str, ns: str) -> None:
    """The consumer, blocked on its wake-up list, is answered by the enqueue's token: it does
    not wait out its block (a polling consumer is never woken by a token)."""
    seen: list[int] = []
    done = threading.Event()
    key = wake_key(ns, "q")
    with worker_on(redis_url, ns) as (b, w):
        blocks = Blocks(b)
        note = _actor(b, seen, done)
        w.start()
        poll(lambda: any(key in keys for keys in blocks.entered), "the consumer blocks")
        note.send(1)
        assert done.wait(DEADLINE_S), "not processed"
        answers = [answer for _, answer in blocks.on(key)]
    assert seen == [1]
    assert (key.encode(), b"1") in answers, f"no wake-up token answered a block: {answers}"


def test_a_delayed_message_runs_when_due_not_at_the_next_timeout(redis_url: str, ns: str) -> None:
    """A consumer holding a message delayed 0.8 s blocks at most until it is due, never for
    its whole 3 s timeout, so the worker moves it to its queue when due; the message runs."""
    seen: list[int] = []
    done = threading.Event()
    delayed = wake_key(ns, "q.DQ")
    with worker_on(redis_url, ns) as (b, w):
        blocks = Blocks(b)
        note = _actor(b, seen, done)
        w.start()
        poll(lambda: any(delayed in keys for keys in blocks.entered), "the consumer blocks")
        before = len(blocks.on(delayed))
        note.send_with_options(args=(1,), delay=800)
        assert done.wait(DEADLINE_S), "not processed"
        after = [timeout for timeout, _ in blocks.on(delayed)[before:]]
    assert seen == [1]
    assert after, "the delay queue's consumer never blocked again"
    assert any(timeout <= 0.8 for timeout in after), f"it blocked {after} s, past the due time"


def test_an_idle_consumer_fetches_once_per_block_never_polls(redis_url: str, ns: str) -> None:
    """Idle, each consumer (q and q.DQ) alternates one empty fetch and one block of the whole
    timeout that no token answers; a poll would fetch again and again without blocking."""
    calls: list[tuple[str, str, tuple[Any, ...]]] = []
    key = wake_key(ns, "q")
    with worker_on(redis_url, ns, block_ms=200) as (b, w):
        blocks = Blocks(b)
        _actor(b, [], threading.Event())
        record_dispatch(b, calls)
        w.start()
        poll(lambda: len(blocks.on(key)) >= 3, "three blocks of the idle consumer")
        waited = blocks.on(key)[:3]
        fetches = [c for c in list(calls) if c[0] == "fetch" and c[1] == "q"]
    assert all(answer is None and timeout == 0.2 for timeout, answer in waited), waited
    # every fetch but the one in flight when the third block ended was followed by a block
    assert len(fetches) <= len(blocks.on(key)) + 1, (len(fetches), len(blocks.on(key)))


def test_tokens_are_bounded_and_a_pending_token_is_not_lost(redis_url: str, ns: str) -> None:
    b = make_broker(redis_url, namespace=ns)
    try:
        assert isinstance(b, WakeupRedisBroker)
        b.wake("q", 1000)
        b.wake("q")
        assert b.client.llen(wake_key(ns, "q")) == WAKE_TOKENS
    finally:
        b.close()


@contextlib.contextmanager
def _held(
    redis_url: str, ns: str, calls: list[tuple[str, str, tuple[Any, ...]]], **worker: Any
) -> Iterator[tuple[threading.Event, threading.Event, list[int]]]:
    """A worker of prefetch 1 whose one slot a long message holds, and a second message waiting
    on the queue (the consumer is full), its dispatches recorded in `calls`: yields (release,
    done, seen): `release` lets the long one end, `done` is set once the second ran."""
    release, started, done = threading.Event(), threading.Event(), threading.Event()
    seen: list[int] = []
    with worker_on(redis_url, ns, heartbeat_timeout=60_000, **worker) as (b, w):
        w.queue_prefetch = 1
        note = _actor(b, seen, done)

        @dramatiq.actor(broker=b, queue_name="q", actor_name="long", max_retries=0)
        def long(n: int) -> None:
            started.set()
            release.wait(DEADLINE_S)

        record_dispatch(b, calls)
        w.start()
        long.send(1)
        assert started.wait(DEADLINE_S)
        note.send(2)  # waits on the queue: the consumer's prefetch is full
        yield release, done, seen


def test_a_full_consumer_heartbeats_while_its_messages_run(
    redis_url: str, ns: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A long message with prefetch 1: the consumer holds one message and fetches no more, yet
    it calls the broker each timeout (a fetch of 0 messages: a heartbeat), so a long Divan never
    looks like a dead worker to the others' maintenance; the ack, not a timeout, wakes it to
    fetch the waiting message."""
    woken: list[bool] = []  # each wait of the full consumer for an ack: was it set?
    settled: list[int] = []  # each signal of an ack or nack to the consumer

    class Recorded(threading.Event):
        def wait(self, timeout: float | None = None) -> bool:
            answer = super().wait(timeout)
            woken.append(answer)
            return answer

        def set(self) -> None:
            settled.append(1)
            super().set()

    class Consumer(wakeup_broker._WakeupConsumer):
        def __init__(self, *args: Any) -> None:
            super().__init__(*args)
            self.settled = Recorded()

    monkeypatch.setattr(WakeupRedisBroker, "consumer_class", property(lambda self: Consumer))
    calls: list[tuple[str, str, tuple[Any, ...]]] = []
    with _held(redis_url, ns, calls, block_ms=200) as (release, done, seen):

        def heartbeats() -> int:
            return sum(1 for c in list(calls) if c[:2] == ("fetch", "q") and c[2] == (0,))

        poll(lambda: heartbeats() >= 2 and len(woken) >= 2, "two heartbeats while full")
        assert not any(woken) and not settled, "woken with nothing settled"
        release.set()
        assert done.wait(DEADLINE_S), "the waiting message was not fetched"
    assert seen == [2]
    # the ack signals the waiting consumer (a wait in progress then returns at once)
    assert settled, "the ack did not wake the consumer"


def test_adr_150_an_ack_that_wakes_a_full_consumer_is_followed_by_its_fetch_not_a_heartbeat(
    redis_url: str, ns: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ADR-150: a consumer whose prefetch is full, woken by an ack, fetches at once (a fetch of
    the room the ack made, which heartbeats as every dispatch does); the fetch of 0 messages it
    sent before that fetch was a second round trip a message under load (0.58 a Divan at 100
    trial seasons). A wait that times out still heartbeats (the test above)."""
    seq: list[tuple[str, str, tuple[Any, ...]]] = []  # the consumer's waits and dispatches
    full = threading.Event()  # the consumer waits for an ack

    class Recorded(threading.Event):
        def wait(self, timeout: float | None = None) -> bool:
            full.set()
            answer = super().wait(timeout)
            seq.append(("wait", "q", (answer,)))
            return answer

    class Consumer(wakeup_broker._WakeupConsumer):
        def __init__(self, *args: Any) -> None:
            super().__init__(*args)
            self.settled = Recorded()

    monkeypatch.setattr(WakeupRedisBroker, "consumer_class", property(lambda self: Consumer))
    with _held(redis_url, ns, seq) as (release, done, seen):
        assert full.wait(DEADLINE_S), "the consumer never waited for an ack"
        release.set()
        assert done.wait(DEADLINE_S), "the waiting message was not fetched"
    assert seen == [2]
    mine = [(c, a) for c, q, a in seq if q == "q" and c in ("wait", "fetch")]
    woken = mine.index(("wait", (True,)))  # the wait the ack ended
    assert mine[woken + 1] == ("fetch", (1,)), mine[woken : woken + 3]


def test_a_dead_workers_message_comes_back_by_the_timed_maintenance(
    redis_url: str, ns: str
) -> None:
    """A message fetched by a worker that never acks (it died): another worker's consumer puts
    it back after heartbeat_timeout, by the timed maintenance, with Dramatiq's per-call chance
    at 0 (so nothing else could bring it back)."""
    dead = make_broker(redis_url, namespace=ns, heartbeat_timeout=1_000)
    dead.declare_queue("q")
    seen: list[int] = []
    done = threading.Event()
    try:
        with worker_on(redis_url, ns, heartbeat_timeout=1_000, maintenance_every_ms=250) as (b, w):
            b.maintenance_chance = 0
            note = _actor(b, seen, done)
            msg = note.message(7)
            dead.enqueue(msg)
            fetched = dead.do_fetch("q", 1)  # type: ignore[attr-defined]
            assert len(fetched) == 1  # held by the dead broker, unacked
            w.start()
            assert done.wait(DEADLINE_S), "the dead worker's message never came back"
        assert seen == [7]
    finally:
        dead.close()


def test_a_batch_of_enqueues_delivers_each_message_once_even_after_a_script_flush(
    redis_url: str, ns: str
) -> None:
    """ADR-112: `enqueue_many` (the scheduler's hand-over of a surge) pipelines Dramatiq's own
    enqueue script and the wake-up tokens; each message runs once, and a Redis that forgot the
    script (restarted, SCRIPT FLUSH) gets it loaded again and the refused enqueues made."""
    seen: list[int] = []
    with worker_on(redis_url, ns, threads=2) as (b, w):

        @dramatiq.actor(broker=b, queue_name="q", actor_name="count", max_retries=0)
        def count(n: int) -> None:
            seen.append(n)

        w.start()
        b.enqueue_many([count.message(n) for n in range(20)])
        poll(lambda: len(seen) >= 20, "the first batch runs")
        b.client.script_flush()
        b.enqueue_many([count.message(n) for n in range(20, 25)])
        poll(lambda: len(seen) >= 25, "the batch after the flush runs")
        w.join()
    assert sorted(seen) == list(range(25))
