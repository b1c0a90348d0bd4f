"""A sender that hands its messages to the broker on a thread of its own (issue 27, ADR-125).

Dramatiq's brokers are synchronous: `broker.enqueue` writes to Redis (or publishes to RabbitMQ
and waits for the confirm) and blocks until the answer. Called by a request on the API's event
loop, every Divan request stopped the whole process for that round trip: under load, when the
broker's server waited for a core itself, for milliseconds, and every other request in flight
waited with it (bench.season_flood: a quarter of the loop's stalls over 6 ms with three trial
seasons asking for Divans back to back). A `Handover` takes the message on the loop (a queue
put, microseconds) and one thread of its own sends them, in the order they came.

Nothing waits for that thread: the request answers as it did (the Divan request's 202 never
depended on the enqueue: a broker that refuses it is logged and the scheduler hands the Divan
over from `due_work`, RELIABILITY 15). A failed send is passed to `failed` on the thread, as is
an item refused because `limit` items are already waiting (a broker down for long must not
grow the queue without bound; `limit=None`: no bound). `close` sends what is waiting, then
stops the thread. The serving API's log lines are handed over so too (shared.logs), each time
all that waits at once (`batch`, ADR-129): a thread that wakes for every item takes the GIL
from the event loop once an item.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")

_STOP = object()  # close's marker, after every item put before it
LIMIT = 10_000  # items waiting at most; more are refused (`failed`)
BATCH = 1_000  # items given to `batch` at most in one call
CLOSE_WAIT_S = 10.0  # close waits this long for the items still waiting


class QueueFull(Exception):
    """The item was refused: `limit` items were waiting already."""


class Handover(Generic[T]):
    """`handover(item)`: `send(item)` on the handover's thread, in order; `failed(item, exc)`
    there when it raises (or at once, with QueueFull, when `limit` items wait). With `batch`,
    the thread calls `batch(items)` instead, with every item waiting when it wakes (up to
    BATCH, in order; when it raises, `failed` for each of them)."""

    def __init__(
        self,
        send: Callable[[T], None],
        failed: Callable[[T, Exception], None],
        *,
        name: str,
        limit: int | None = LIMIT,
        batch: Callable[[list[T]], None] | None = None,
    ) -> None:
        self._send, self._failed, self._limit, self._batch = send, failed, limit, batch
        self._items: queue.SimpleQueue[object] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def __call__(self, item: T) -> None:
        if self._limit is not None and self._items.qsize() >= self._limit:
            self._failed(item, QueueFull(f"{self._limit} items waiting"))
            return
        self._items.put(item)

    def _run(self) -> None:
        if self._batch is not None:
            self._run_batches(self._batch)
            return
        while (item := self._items.get()) is not _STOP:
            try:
                self._send(item)  # type: ignore[arg-type]
            except Exception as exc:  # the thread goes on: the next item may pass
                self._failed(item, exc)  # type: ignore[arg-type]

    def _run_batches(self, batch: Callable[[list[T]], None]) -> None:
        stopped = False
        while not stopped:
            items = [self._items.get()]
            while len(items) < BATCH:
                try:
                    items.append(self._items.get_nowait())
                except queue.Empty:
                    break
            end = next((k for k, item in enumerate(items) if item is _STOP), None)
            if end is not None:  # close's marker comes after every item put before it
                items, stopped = items[:end], True
            if not items:
                continue
            try:
                batch(items)  # type: ignore[arg-type]
            except Exception as exc:  # the thread goes on: the next items may pass
                for item in items:
                    self._failed(item, exc)  # type: ignore[arg-type]

    def close(self, timeout: float = CLOSE_WAIT_S) -> None:
        """Send what waits (for up to `timeout` seconds), then stop the thread."""
        self._items.put(_STOP)
        self._thread.join(timeout)
