"""Dramatiq's Redis broker with consumers that block on a wake-up instead of polling (ADR-54).

Dramatiq's Redis consumer polls: an empty fetch sleeps (an exponential backoff capped at the
worker timeout), then fetches again. With the 20 ms worker timeout the trial Divan's latency
needed, each idle worker process spent 7-8 % of a core asking Redis "anything?" 100 times a
second. Here:

- every enqueue (and every requeue of a stopping worker) also pushes a token on the queue's
  wake-up list `{namespace}:{queue}.wake`, trimmed to WAKE_TOKENS;
- an idle consumer, after an empty fetch, waits in `BLPOP` on that list for at most
  `idle_block_ms` (1 s), or until the next delayed message it holds is due; a token wakes it at
  once and it fetches. A token pushed between its empty fetch and its BLPOP stays in
  the list, so no wake-up is lost; one that wakes a consumer for a message another one took
  costs one empty fetch;
- a consumer whose prefetch is full (every message it holds in flight) waits for one of its
  acks on an in-process event instead of sleeping, and heartbeats meanwhile (a fetch of 0
  messages, each wait that times out) so a long resolution never looks like a dead worker;
  an ack that ends the wait is followed by the fetch of the room it made, itself a heartbeat
  (ADR-150);
- maintenance (a dead worker's unacked messages back on the queue) runs on a fetch at least
  every `maintenance_every_ms` per queue, not only by chance per broker call: with consumers
  that call Redis about once a second, Dramatiq's per-call chance alone would run it every
  quarter of an hour.

- a stopping worker (Dramatiq's `before_worker_shutdown`) wakes its own consumers through a
  list of its own, `{namespace}:__wake__.{broker_id}`, which each one also blocks on, and they
  stop blocking: an idle worker stops in about the worker timeout after SIGTERM, not after a
  worker timeout plus a block.

The delivery guarantees are Dramatiq's own: the fetch, ack, nack and requeue are its Lua
script's, and a message is removed only by its ack. The tokens carry nothing; losing them all
(a FLUSHDB) costs at most one worker timeout of latency.
"""

from __future__ import annotations

import heapq
import threading
import time
from collections.abc import Sequence
from typing import Any
from uuid import uuid4

import redis
from dramatiq.broker import Broker, MessageProxy
from dramatiq.brokers.redis import RedisBroker, _RedisConsumer
from dramatiq.common import current_millis
from dramatiq.errors import ConnectionClosed
from dramatiq.message import Message
from dramatiq.middleware import Middleware

WAKE_TOKENS = 64  # tokens kept per queue: enough to wake every idle consumer of a burst
STOPPING_POLL_S = 0.05  # a stopping worker's consumers fetch this often until they are stopped


def wake_key(namespace: str, queue_name: str) -> str:
    return f"{namespace}:{queue_name}.wake"


class WakeupRedisBroker(RedisBroker):
    """A RedisBroker whose enqueues wake the consumers blocked on the queue (see the module)."""

    def __init__(
        self, *, maintenance_every_ms: int = 2_000, idle_block_ms: int = 1_000, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)  # type: ignore[no-untyped-call]
        self.maintenance_every_ms = maintenance_every_ms
        self.idle_block_ms = idle_block_ms
        self._last_maintenance: dict[str, float] = {}
        self.stopping = threading.Event()
        self.own_wakeups = f"{self.namespace}:__wake__.{self.broker_id}"
        # A BLPOP must answer before the client's socket timeout (redis-py's default is 5 s).
        pool = self.client.connection_pool
        socket_timeout = pool.connection_class(**pool.connection_kwargs).socket_timeout  # unopened
        self.block_cap_s = 0.8 * float(socket_timeout) if socket_timeout else None
        self.add_middleware(_WakeOnShutdown())

    def stop_blocking(self) -> None:
        """This worker is stopping: its consumers stop blocking, and the blocked ones wake."""
        self.stopping.set()
        pipe = self.client.pipeline(transaction=False)
        pipe.rpush(self.own_wakeups, *([b"1"] * max(1, 2 * len(self.queues))))
        pipe.expire(self.own_wakeups, 60)
        try:
            pipe.execute()
        except redis.RedisError as exc:  # the consumers then stop after one block at most
            self.logger.warning("Could not wake this worker's consumers: %s", exc)

    @property
    def consumer_class(self) -> type[_WakeupConsumer]:
        return _WakeupConsumer

    def wake(self, queue_name: str, count: int = 1) -> None:
        """Push `count` tokens on the queue's wake-up list (one round trip). A failure is only
        logged: the message is already stored, and a consumer finds it within idle_block_ms."""
        key = wake_key(self.namespace, queue_name)
        pipe = self.client.pipeline(transaction=False)
        pipe.rpush(key, *([b"1"] * min(count, WAKE_TOKENS)))
        pipe.ltrim(key, -WAKE_TOKENS, -1)
        try:
            pipe.execute()
        except redis.RedisError as exc:
            self.logger.warning("Could not wake the consumers of %r: %s", queue_name, exc)

    def do_enqueue(self, queue_name: str, message_id: str, data: bytes) -> Any:
        return self._enqueue_all(queue_name, [(message_id, data)])[0]

    def enqueue_many(self, messages: Sequence[Message[Any]]) -> None:
        """Enqueue `messages` (none delayed) as Dramatiq's `enqueue` does one by one, in one
        round trip per queue with its wake-up tokens (ADR-112: the scheduler's hand-over of a
        surge's thousand Divans took a thousand pairs of round trips)."""
        by_queue: dict[str, list[Message[Any]]] = {}
        for message in messages:
            # as RedisBroker.enqueue: each enqueue its own id in Redis (a retry is a new one)
            copy = message.copy(options={"redis_message_id": str(uuid4())})
            self.emit_before("enqueue", copy, None)
            by_queue.setdefault(copy.queue_name, []).append(copy)
        for queue_name, held in by_queue.items():
            self._enqueue_all(
                queue_name, [(m.options["redis_message_id"], m.encode()) for m in held]
            )
            for copy in held:
                self.emit_after("enqueue", copy, None)

    def _enqueue_all(self, queue_name: str, items: Sequence[tuple[str, bytes]]) -> list[Any]:
        """Dramatiq's dispatch script's `enqueue` of each (id, data), then the wake-up tokens:
        one pipelined round trip. A script Redis does not know (restarted, flushed) is loaded
        and the enqueues it refused are made again, one by one; a failed wake-up is only
        logged, as in `wake`."""
        dispatch = self.scripts["dispatch"]
        pipe = self.client.pipeline(transaction=False)
        for message_id, data in items:
            pipe.evalsha(
                dispatch.sha,
                1,
                self.namespace,
                *self._dispatch_args("enqueue", queue_name, message_id, data),
            )
        key = wake_key(self.namespace, queue_name)
        pipe.rpush(key, *([b"1"] * min(len(items), WAKE_TOKENS)))
        pipe.ltrim(key, -WAKE_TOKENS, -1)
        replies = pipe.execute(raise_on_error=False)
        results = replies[: len(items)]
        for n, reply in enumerate(results):
            if isinstance(reply, redis.exceptions.NoScriptError):
                results[n] = self._dispatch("enqueue")(queue_name, *items[n])
            elif isinstance(reply, Exception):
                raise reply
        for reply in replies[len(items) :]:
            if isinstance(reply, Exception):
                self.logger.warning("Could not wake the consumers of %r: %s", queue_name, reply)
        return results

    def _maintenance_due(self, command: str, queue_name: str) -> int:
        """Dramatiq's chance per call, or at least every maintenance_every_ms on a fetch."""
        if self._should_do_maintenance(command):
            self._last_maintenance[queue_name] = time.monotonic()
            return 1
        if command != "fetch":
            return 0
        now = time.monotonic()
        if (now - self._last_maintenance.get(queue_name, 0.0)) * 1000 >= self.maintenance_every_ms:
            self._last_maintenance[queue_name] = now
            return 1
        return 0

    def _dispatch_args(self, command: str, queue_name: str, *args: Any) -> list[Any]:
        """The dispatch script's arguments: Dramatiq's own (brokers/redis.py), with the
        maintenance decision per queue and time."""
        return [
            command,
            current_millis(),
            queue_name,
            self.broker_id,
            self.heartbeat_timeout,
            self.dead_message_ttl,
            self._maintenance_due(command, queue_name),
            self._max_unpack_size(),  # type: ignore[no-untyped-call]
            *args,
        ]

    def _dispatch(self, command: str) -> Any:
        dispatch = self.scripts["dispatch"]
        keys = [self.namespace]

        def do_dispatch(queue_name: str, *args: Any) -> Any:
            return dispatch(args=self._dispatch_args(command, queue_name, *args), keys=keys)

        return do_dispatch


class _WakeOnShutdown(Middleware):
    def before_worker_shutdown(self, broker: Broker, worker: Any) -> None:
        if isinstance(broker, WakeupRedisBroker):
            broker.stop_blocking()


class _WakeupConsumer(_RedisConsumer):
    """Dramatiq's Redis consumer, blocking on the queue's wake-up list when it is empty."""

    def __init__(
        self, broker: WakeupRedisBroker, queue_name: str, prefetch: int, timeout: int
    ) -> None:
        super().__init__(broker, queue_name, prefetch, timeout)  # type: ignore[no-untyped-call]
        self.wakeups = [wake_key(broker.namespace, queue_name), broker.own_wakeups]
        self.etas: list[float] = []  # delayed messages handed out, due at these epoch ms
        self.settled = threading.Event()  # set by each ack/nack: room to prefetch again

    def ack(self, message: MessageProxy) -> None:
        try:
            super().ack(message)  # type: ignore[no-untyped-call]
        finally:
            self.settled.set()

    def nack(self, message: MessageProxy) -> None:
        try:
            super().nack(message)  # type: ignore[no-untyped-call]
        finally:
            self.settled.set()

    def requeue(self, messages: Any) -> None:
        messages = list(messages)
        super().requeue(messages)  # type: ignore[no-untyped-call]
        if messages:
            self.broker.wake(self.queue_name, len(messages))

    def _wait_s(self) -> float:
        """At most idle_block_ms (STOPPING_POLL_S once the worker stops), and no later than the
        next delayed message is due (the consumer thread moves it to its queue when this
        consumer returns)."""
        wait = self.broker.idle_block_ms / 1000
        if self.broker.block_cap_s is not None:
            wait = min(wait, self.broker.block_cap_s)
        if self.broker.stopping.is_set():
            wait = STOPPING_POLL_S
        now = current_millis()
        while self.etas and self.etas[0] <= now:
            heapq.heappop(self.etas)
        if self.etas:
            wait = min(wait, (self.etas[0] - now) / 1000)
        return max(float(wait), 0.001)

    def __next__(self) -> MessageProxy | None:
        try:
            while True:
                if self.message_cache:
                    data = self.message_cache.pop(0)
                    if data is None:  # as Dramatiq's consumer: a body gone from the hash
                        continue
                    message = Message.decode(data)
                    eta = message.options.get("eta")
                    if isinstance(eta, int | float):
                        heapq.heappush(self.etas, float(eta))
                    self.queued_message_ids.add(message.message_id)
                    return MessageProxy(message)
                room = self.prefetch - self.outstanding_message_count
                if room <= 0:
                    # Every message held is in flight: wait for an ack, heartbeating meanwhile.
                    # An ack that ends the wait made room: the fetch on the next call heartbeats
                    # too, so only a wait that timed out sends a heartbeat of its own (ADR-150).
                    self.settled.clear()
                    if self.outstanding_message_count >= self.prefetch and not self.settled.wait(
                        self._wait_s()
                    ):
                        self.broker.do_fetch(self.queue_name, 0)  # a heartbeat, fetches nothing
                    return None
                self.message_cache = self.broker.do_fetch(self.queue_name, room)
                if not self.message_cache:
                    if self.broker.stopping.is_set():
                        time.sleep(STOPPING_POLL_S)
                    else:
                        self.broker.client.blpop(self.wakeups, timeout=self._wait_s())
                    return None
        except redis.ConnectionError as e:
            raise ConnectionClosed(e) from None  # type: ignore[no-untyped-call]
