"""Event streams (SSE) without a Redis connection each: one subscriber per process, fanned out.

Before, every open `GET /seasons/{id}/events` held a pub/sub connection of the read pool, so
100 streams from one anonymous client emptied the pool and every read answered 500. Now
(docs/decisions.md, ADR-32):

- One `StreamHub` per API process holds ONE Redis connection of its own, outside the read
  pool, in subscribed mode. A channel is subscribed while at least one open stream wants it.
- Each open stream is a `Subscription`: a bounded queue filled by the hub. A client that
  cannot keep up (its queue is full: its socket is not draining) is disconnected, never
  buffered without limit.
- A stream is admitted only after Redis confirmed its channels' SUBSCRIBE: every message
  published after the stream's `ready` event reaches it, as with a connection of its own.
- Redis lost (a read error, or no answer to the hub's PING in time): every open stream is
  ended (EventSource reconnects by itself) rather than left open with a silent gap; the hub
  connects again for the next stream. Pub/sub never replays; a reconnecting client resumes
  from the projection's log of the messages instead (services/projections/streamlog.py).
- A season read that waits for a version (`?min_version=`, a first projection: issue 20)
  subscribes the season's `projected` channel on the same connection (`watch`): no stream
  slot, at most WAITERS at once per process (over it the read answers at once), and it is
  released when the read answers.
- Caps: `streams_per_client` open streams per client address (over it: 429
  `too_many_streams`) and `streams_per_process` in all (over it: 503 `streams_full`), both
  with Retry-After.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import Counter, deque
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import structlog
from redis.exceptions import RedisError

log = structlog.get_logger(__name__)

RETRY_AFTER_S = 5  # Retry-After of a refused stream: a stream lasts long, slots free slowly
QUEUE_SIZE = 64  # messages waiting for one stream's client; one more and it is disconnected
CONFIRM_S = 5.0  # connecting and the SUBSCRIBE confirmation; then 503 read_unavailable
POLL_S = 1.0  # the subscriber's read wakes this often to check the connection's liveness
PING_S = 5.0  # nothing heard for this long: PING
DEAD_S = 15.0  # nothing heard (not even the PONG) for this long: the connection is lost
WAITERS = 1_000  # reads of one process waiting for a season version at once (`watch`)

_REPLY = {"SUBSCRIBE": "subscribe", "UNSUBSCRIBE": "unsubscribe", "PING": "pong"}
# Queued to the writer when its link is done with. Cancelling alone is not enough: on Python
# 3.11 the asyncio.wait_for inside redis-py's send can swallow a cancellation that arrives as
# the send completes, and the writer would wait on its queue for ever (a shutdown that hangs).
_STOP = "STOP"
_Frame = TypeVar("_Frame")
Connect = Callable[[], Awaitable[Any]]  # a new, connected redis.asyncio Connection


class StreamRefused(Exception):
    """A stream that cannot be opened now; the query API answers it as a problem."""

    def __init__(self, status: int, key: str, **params: object) -> None:
        super().__init__(key)
        self.status, self.key, self.params = status, key, params


def unavailable() -> StreamRefused:
    return StreamRefused(503, "read_unavailable")


class Subscription:
    """One open stream: the messages of its channels, waiting for its client (bounded)."""

    def __init__(self, hub: StreamHub, client: str, channels: tuple[str, ...], size: int) -> None:
        self.hub, self.client, self.channels, self.size = hub, client, channels, size
        self.messages: deque[bytes] = deque()
        self.closed: str | None = None  # why the hub ended it: "slow_client", "redis_lost"
        self._wake = asyncio.Event()
        self._released = False
        # asked before a message is queued: False leaves it out (a chat wake-up that holds
        # nothing for the stream's bey: services/projections/stream_chat.py)
        self.wanted: Callable[[bytes], bool] | None = None

    def push(self, data: bytes) -> None:
        if self.closed is not None or (self.wanted is not None and not self.wanted(data)):
            return
        if len(self.messages) >= self.size:
            self.messages.clear()
            log.warning("stream.slow_client_disconnected", queued=self.size)
            self.end("slow_client")
            return
        self.messages.append(data)
        self._wake.set()

    def end(self, reason: str) -> None:
        """The hub ends this stream; its client sees the response end."""
        if self.closed is None:
            self.closed = reason
        self._wake.set()
        self.release()

    def release(self) -> None:
        """Give back the stream's slots and channels (idempotent; the stream's own finally)."""
        if not self._released:
            self._released = True
            self.hub._release(self)

    async def next(self, timeout: float) -> list[bytes] | None:
        """The messages queued now, waiting up to `timeout` for one; None if none came;
        [] once the stream is ended."""
        if not self.messages and self.closed is None:
            self._wake.clear()
            try:
                async with asyncio.timeout(timeout):  # no task of its own, as wait_for's
                    await self._wake.wait()
            except TimeoutError:
                return None
        batch = list(self.messages)
        self.messages.clear()
        return batch


class Quiet:
    """When a stream last sent a frame: its keep-alive is due `keep_alive` seconds after."""

    def __init__(self, keep_alive: float) -> None:
        self._loop = asyncio.get_running_loop()
        self._keep_alive = keep_alive
        self._last = self._loop.time()

    def sent(self, frame: _Frame) -> _Frame:
        self._last = self._loop.time()
        return frame

    def wait(self, at_most: float | None) -> float:
        """How long the stream may wait for a message: until its keep-alive, or `at_most`."""
        left = max(0.0, self._last + self._keep_alive - self._loop.time())
        return left if at_most is None else min(left, at_most)

    def due(self) -> bool:
        return self._loop.time() - self._last >= self._keep_alive


class _Channel:
    __slots__ = ("confirmed", "subs")

    def __init__(self, confirmed: asyncio.Future[None]) -> None:
        self.subs: set[Subscription] = set()
        self.confirmed = confirmed


class _Link:
    """The hub's connection: its reader and writer tasks, and the replies it waits for."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn
        self.outbox: asyncio.Queue[tuple[str, str | None, asyncio.Future[None] | None]] = (
            asyncio.Queue()
        )
        # Redis answers SUBSCRIBE, UNSUBSCRIBE and PING in the order they were sent (one
        # channel a command): each reply is matched with the head of this queue.
        self.pending: deque[tuple[str, str | None, asyncio.Future[None] | None]] = deque()
        self.heard = time.monotonic()
        self.pinging = False
        self.tasks: list[asyncio.Task[None]] = []


class StreamHub:
    """The process's one Redis subscriber and the caps on open streams (see the module doc)."""

    def __init__(
        self,
        connect: Connect,
        *,
        per_client: int,
        per_process: int,
        queue_size: int = QUEUE_SIZE,
        waiters: int = WAITERS,
    ) -> None:
        self._connect = connect
        self.per_client, self.per_process, self.queue_size = per_client, per_process, queue_size
        self.waiters = waiters
        self._open: set[Subscription] = set()
        self._waiters: set[Subscription] = set()  # reads waiting for a version (`watch`)
        self._by_client: Counter[str] = Counter()
        self._channels: dict[str, _Channel] = {}
        self._link: _Link | None = None
        self._connecting = asyncio.Lock()
        self.pongs = 0  # answers to the liveness PING (for the tests and a debugger)

    @property
    def open_streams(self) -> int:
        return len(self._open)

    def admit(self, client: str) -> None:
        """StreamRefused if `client` may not open a stream now (checked again by `open`)."""
        if self._by_client[client] >= self.per_client:
            raise StreamRefused(429, "too_many_streams", limit=self.per_client)
        if len(self._open) >= self.per_process:
            log.warning("stream.process_full", open=len(self._open))
            raise StreamRefused(503, "streams_full")

    async def open(self, client: str, channels: list[str]) -> Subscription:
        """A subscription to `channels` once Redis confirmed them, or StreamRefused."""
        self.admit(client)
        sub = Subscription(self, client, tuple(channels), self.queue_size)
        self._open.add(sub)
        self._by_client[client] += 1
        await self._subscribe(sub)
        return sub

    async def watch(self, channels: list[str]) -> Subscription | None:
        """A subscription for a read that waits for a season version (`?min_version=`, a
        first projection): on the hub's one connection, but no stream slot of its client's.
        None when `waiters` reads wait already: the read answers at once then (bounded);
        StreamRefused (503 read_unavailable) if Redis does not confirm the subscription."""
        if len(self._waiters) >= self.waiters:
            log.warning("read.waiters_full", waiting=len(self._waiters))
            return None
        sub = Subscription(self, "", tuple(channels), self.queue_size)
        self._waiters.add(sub)
        await self._subscribe(sub)
        return sub

    async def _subscribe(self, sub: Subscription) -> None:
        """Subscribe `sub`'s channels (each once for the process) and wait for Redis to
        confirm them; on failure the subscription is released and StreamRefused raised."""
        try:
            async with asyncio.timeout(CONFIRM_S):
                link = await self._linked()
                loop = asyncio.get_running_loop()
                waits = []
                for name in sub.channels:
                    entry = self._channels.get(name)
                    if entry is None:
                        entry = self._channels[name] = _Channel(loop.create_future())
                        link.outbox.put_nowait(("SUBSCRIBE", name, entry.confirmed))
                    entry.subs.add(sub)
                    waits.append(asyncio.shield(entry.confirmed))
                await asyncio.gather(*waits)
        except (TimeoutError, RedisError, OSError) as exc:
            sub.release()
            log.warning("stream.subscribe_failed", error=type(exc).__name__)
            raise unavailable() from None
        except BaseException:
            sub.release()
            raise

    async def _linked(self) -> _Link:
        async with self._connecting:
            if self._link is None:
                link = _Link(await self._connect())
                link.tasks = [
                    asyncio.create_task(self._read(link)),
                    asyncio.create_task(self._write(link)),
                ]
                self._link = link
            return self._link

    def _release(self, sub: Subscription) -> None:
        if sub in self._waiters:
            self._waiters.discard(sub)
        else:
            self._open.discard(sub)
            self._by_client[sub.client] -= 1
            if self._by_client[sub.client] <= 0:
                del self._by_client[sub.client]
        for name in sub.channels:
            entry = self._channels.get(name)
            if entry is None:
                continue
            entry.subs.discard(sub)
            if not entry.subs:
                del self._channels[name]
                if self._link is not None:  # replies come in order: a later SUBSCRIBE is safe
                    self._link.outbox.put_nowait(("UNSUBSCRIBE", name, None))

    async def _write(self, link: _Link) -> None:
        try:
            while True:
                kind, name, fut = await link.outbox.get()
                if kind == _STOP:
                    return
                link.pending.append((kind, name, fut))
                await link.conn.send_command(kind, *([name] if name is not None else []))
        except (RedisError, OSError) as exc:
            await self._lost(link, exc)

    async def _read(self, link: _Link) -> None:
        try:
            while True:
                reply = await link.conn.read_response(timeout=POLL_S, push_request=True)
                now = time.monotonic()
                if reply is None:
                    if now - link.heard >= DEAD_S:
                        raise TimeoutError("no answer from Redis")
                    if now - link.heard >= PING_S and not link.pinging:
                        link.pinging = True
                        link.outbox.put_nowait(("PING", None, None))
                    continue
                link.heard = now
                self._dispatch(link, reply)
        except Exception as exc:  # a read error, a dead link, a reply out of order
            await self._lost(link, exc)

    def _dispatch(self, link: _Link, reply: Any) -> None:
        kind = reply[0] if isinstance(reply, list) and reply else reply
        kind = kind.decode().lower() if isinstance(kind, bytes) else str(kind).lower()
        if kind == "message":
            entry = self._channels.get(reply[1].decode())
            for sub in list(entry.subs if entry else ()):
                sub.push(reply[2])
            return
        sent, _name, fut = link.pending.popleft() if link.pending else ("", None, None)
        if kind != _REPLY.get(sent):
            raise ValueError(f"unexpected reply {kind!r} to {sent!r}")
        if kind == "pong":
            link.pinging = False
            self.pongs += 1
        if fut is not None and not fut.done():
            fut.set_result(None)

    async def _lost(self, link: _Link, exc: BaseException) -> None:
        """The connection failed: end every stream (no silent gap) and connect anew later."""
        if self._link is not link:
            return
        self._link = None
        log.warning("stream.subscriber_lost", error=type(exc).__name__, open=len(self._open))
        waiting = [f for _k, _n, f in link.pending if f is not None]
        for fut in [*waiting, *(e.confirmed for e in self._channels.values())]:
            if not fut.done():
                fut.set_exception(unavailable())
                fut.exception()  # retrieved: the streams waiting on it see it, nobody else must
        self._channels.clear()
        for sub in [*self._open, *self._waiters]:
            sub.end("redis_lost")
        link.outbox.put_nowait((_STOP, None, None))
        current = asyncio.current_task()
        for task in link.tasks:
            if task is not current:
                task.cancel()
        with contextlib.suppress(Exception):
            await link.conn.disconnect()

    async def close(self) -> None:
        for sub in [*self._open, *self._waiters]:
            sub.end("shutdown")
        link, self._link = self._link, None
        if link is not None:
            link.outbox.put_nowait((_STOP, None, None))
            for task in link.tasks:
                task.cancel()
            for task in link.tasks:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
            with contextlib.suppress(Exception):
                await link.conn.disconnect()
