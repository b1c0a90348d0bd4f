"""Group commit: appends that arrive while statements are in flight go out in one statement."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Sequence
from datetime import datetime
from typing import NamedTuple

import asyncpg
import msgspec

from shared.eventstore import sql
from shared.eventstore.append import Batch, LoneEvent, insert, settle
from shared.eventstore.busy import Checkout, as_busy, is_busy, lost_connection
from shared.eventstore.clock import Clock, utc
from shared.eventstore.errors import StoreBusyError
from shared.eventstore.model import IdempotencyRecord
from shared.logs import get_logger

log = get_logger(__name__)

GROUP_FLUSHES = 2  # statements in flight at once (0: no grouping)
GROUP_LIMIT = 64  # appends at most in one statement


class Item(msgspec.Struct):
    """One append of a group as sql.APPEND_GROUP reads it ($1), the key's fields None without
    a key. Bytes go as base64, instants as RFC 3339 (msgspec's own encodings), decoded by the
    statement into the values the one-append statement is given."""

    idx: int
    season_id: str
    last_hash: bytes
    expected: int
    n: int
    new_hash: bytes
    recorded_at: datetime
    scope: str | None
    key: str | None
    request_hash: bytes | None
    status: int | None
    body: bytes | None
    completed_at: datetime | None


class GroupEvent(LoneEvent):
    """One event of a group's append as sql.APPEND_GROUP reads it ($2): a lone append's event
    (its number in the item, then the columns written) and its item's idx (read by name)."""

    item: int


_group_encoder = msgspec.json.Encoder()
_NO_KEY = (None,) * 6


def group_params(
    group: Sequence[tuple[Batch, bytes, IdempotencyRecord | None]], clock: Clock
) -> tuple[str, str]:
    """sql.APPEND_GROUP's items ($1) and events ($2), each a JSON array: the values of each
    append's own one-append parameters (Batch.params), key included.

    Not arrays of each column (ADR-163): asyncpg checks every element of an array parameter
    against collections.abc in Python (`_is_array_iterable`), ~1.7 k instructions a check, ~43
    checks a keyed one-event append; a text parameter is copied as it is.
    """
    now = utc(clock())
    items: list[Item] = []
    events: list[GroupEvent] = []
    for idx, (batch, last_hash, key) in enumerate(group, start=1):
        links = batch.links
        keyed = (
            (key.scope, key.key, key.request_hash, key.status, key.body, now)
            if key is not None
            else _NO_KEY
        )
        items.append(
            Item(
                idx,
                batch.season_id,
                last_hash,
                batch.expected,
                len(batch.events),
                links[-1][1],
                batch.recorded_at,
                *keyed,
            )
        )
        for n, (e, (prev, digest)) in enumerate(zip(batch.events, links, strict=True), start=1):
            events.append(
                GroupEvent(n, e.event_id, e.type, e.data, e.metadata, prev, digest, item=idx)
            )
    return _group_encoder.encode(items).decode(), _group_encoder.encode(events).decode()


def _for_each(exc: BaseException) -> Exception:
    """What one caller of a failed group hears: busy failures as a StoreBusyError of its own."""
    if not isinstance(exc, Exception):
        return StoreBusyError("the group's write was cancelled")
    return as_busy(exc) if is_busy(exc) else exc


class GroupStats(NamedTuple):
    """Counts of group commit (PostgresEventStore.group_stats)."""

    statements: int = 0  # append statements written by group commit, one-append ones included
    appends: int = 0  # appends in them
    splits: int = 0  # groups an error refused, then written one append at a time

    def add(self, appends: int) -> GroupStats:
        return self._replace(statements=self.statements + 1, appends=self.appends + appends)


class _Pending:
    """One append waiting for its group: what to write, and the future its caller awaits."""

    __slots__ = ("batch", "future", "key", "last_hash")

    def __init__(self, batch: Batch, last_hash: bytes, key: IdempotencyRecord | None) -> None:
        self.batch = batch
        self.last_hash = last_hash
        self.key = key
        self.future: asyncio.Future[list[int]] = asyncio.get_running_loop().create_future()

    async def answer(self, outcome: Awaitable[list[int]]) -> Exception | None:
        """Settle the future with the outcome's positions or its exception.

        Returns the exception if it is a lost connection: the caller answers whoever it still
        can without the connection, then raises it, so that the checkout discards the
        connection and the appends still waiting get StoreBusyError.
        """
        try:
            positions = await outcome
        except Exception as exc:  # handed to the caller, who raises it
            if not self.future.done():
                self.future.set_exception(as_busy(exc) if is_busy(exc) else exc)
            return exc if lost_connection(exc) else None
        if not self.future.done():
            self.future.set_result(positions)
        return None


class GroupCommit:
    """Group commit: appends that arrive while `flushes` statements are in flight wait, and go
    out together in the next statement, one commit for all (sql.APPEND_GROUP).

    While a slot is free and nothing waits, the caller writes its append itself, in the
    one-append statement: grouping costs no latency when the store is quiet, nor for a few
    busy seasons whose appends come one at a time. Under load, one round trip, one commit
    and one pool checkout serve many appends. Each append is still claimed and answered on
    its own: a stale one gets ConcurrencyError, the others commit. A season has at most one
    append in flight here (its later appends wait for the next statement, so they see the
    first one's outcome).
    """

    def __init__(self, pool: asyncpg.Pool, clock: Clock, flushes: int) -> None:
        self._pool = pool
        self._clock = clock
        self._flushes = flushes
        self._running = 0
        self._queue: list[_Pending] = []
        self._busy: set[str] = set()
        self._tasks: set[asyncio.Task[None]] = set()  # the loop keeps only weak references
        self.stats = GroupStats()

    async def submit(
        self, batch: Batch, last_hash: bytes, key: IdempotencyRecord | None
    ) -> list[int]:
        season_id = batch.season_id
        if self._running < self._flushes and not self._queue and season_id not in self._busy:
            return await self._alone(batch, last_hash, key)
        pending = _Pending(batch, last_hash, key)
        self._queue.append(pending)
        if self._running < self._flushes:
            self._start()
        return await pending.future

    async def _alone(
        self, batch: Batch, last_hash: bytes, key: IdempotencyRecord | None
    ) -> list[int]:
        """A free slot and nothing waiting: the caller writes its own append, no task between
        (one-append statement), and hands what queued meanwhile to a drain task."""
        self._running += 1
        self._busy.add(batch.season_id)
        self.stats = self.stats.add(1)
        try:
            async with Checkout(self._pool) as conn:
                return await insert(conn, batch, last_hash, key, self._clock)
        finally:
            self._busy.discard(batch.season_id)
            self._running -= 1
            if self._queue and self._running < self._flushes:
                self._start()

    def _start(self) -> None:
        self._running += 1
        task = asyncio.get_running_loop().create_task(self._drain())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _take(self) -> list[_Pending]:
        """The next group: an even share of what waits, so that PostgreSQL writes one group
        while this process prepares the next, rather than all waiting for one big statement."""
        group: list[_Pending] = []
        rest: list[_Pending] = []
        seasons = self._busy
        limit = min(GROUP_LIMIT, -(-len(self._queue) // self._flushes))
        for p in self._queue:
            sid = p.batch.season_id
            if len(group) < limit and sid not in seasons and not p.future.done():
                seasons.add(sid)
                group.append(p)
            elif not p.future.done():
                rest.append(p)
        self._queue = rest
        return group

    async def _drain(self) -> None:
        try:
            while group := self._take():
                try:
                    await self._write(group)
                finally:
                    for p in group:
                        self._busy.discard(p.batch.season_id)
        finally:
            # What waits now is for seasons another task is writing: that task takes it next.
            self._running -= 1

    async def _write(self, group: list[_Pending]) -> None:
        self.stats = self.stats.add(len(group))
        try:
            async with Checkout(self._pool) as conn:
                if len(group) == 1:
                    await self._one(conn, group[0])
                else:
                    await self._write_group(conn, group)
        except BaseException as exc:  # lost connection, timeout, cancelled: every caller hears
            for p in group:
                if not p.future.done():
                    p.future.set_exception(_for_each(exc))
            if not isinstance(exc, Exception):
                raise

    async def _write_group(self, conn: asyncpg.Connection, group: list[_Pending]) -> None:
        """Write a group in one statement and answer each append; one by one if it fails."""
        params = [(p.batch, p.last_hash, p.key) for p in group]
        items, events = group_params(params, self._clock)
        try:
            rows = await conn.fetch(sql.APPEND_GROUP, items, events)
        except asyncpg.PostgresError as exc:
            if is_busy(exc):
                raise
            # an event id taken, a key a copy committed meanwhile, a deadlock: one by one
            log.info("eventstore.group_split", appends=len(group), error=type(exc).__name__)
            self.stats = self.stats._replace(splits=self.stats.splits + 1)
            for p in group:
                await self._one(conn, p)
            return
        skipped = []
        lost = None
        for p, row in zip(group, rows, strict=True):
            if row["skipped"]:
                skipped.append(p)
            else:  # committed ones are answered even if a look-up for another one fails
                settled = settle(conn, p.batch, p.key, row["positions"], row["key_held"])
                lost = await p.answer(settled) or lost
        if lost is not None:
            raise lost
        # Seasons another transaction was writing: alone now, so that only they wait for it
        # (a zombie lock holds up its own season's appends, never a whole group).
        for p in skipped:
            await self._one(conn, p)

    async def _one(self, conn: asyncpg.Connection, p: _Pending) -> None:
        """Write one waiting append alone, in the one-append statement, and answer it."""
        written = insert(conn, p.batch, p.last_hash, p.key, self._clock)
        lost = await p.answer(written)
        if lost is not None:
            raise lost
