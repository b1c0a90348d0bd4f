"""PostgreSQL event store: one append-only table, per-season versions, parallel appends."""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Awaitable, Sequence
from datetime import datetime, timedelta
from typing import Any, NamedTuple
from uuid import UUID

import asyncpg
import msgspec
import structlog

from shared.eventstore import sql
from shared.eventstore.busy import Checkout, as_busy, is_busy, lost_connection
from shared.eventstore.errors import (
    ChainError,
    ConcurrencyError,
    DuplicateEventError,
    IdempotencyKeyTaken,
    IdempotencyStateError,
    StoreBusyError,
)
from shared.eventstore.hashing import GENESIS, chain_hashes, verify_chain
from shared.eventstore.idempotency import DEFAULT_LEASE, PostgresIdempotencyStore, look_in
from shared.eventstore.model import (
    Clock,
    EventMetadata,
    IdempotencyCompletion,
    IdempotencyRecord,
    KeyWrite,
    NewEvent,
    RecordedEvent,
    settle_duplicates,
    utc,
    validate_batch,
)

log = structlog.get_logger(__name__)

NOTIFY_CHANNEL = sql.NOTIFY_CHANNEL

_meta_decoder = msgspec.json.Decoder(EventMetadata)
_encoder = msgspec.json.Encoder()
_KNOWN_HEADS = 10_000  # seasons whose last seen head this process keeps
NOTIFY_WINDOW = 0.02  # seconds: under load, appends' wake-ups within one window share a NOTIFY
GROUP_FLUSHES = 2  # group commit: statements in flight at once (0: no grouping)
GROUP_LIMIT = 64  # group commit: appends at most in one statement


class _EventIdTaken(Exception):
    """Internal: the unique index on event_id refused the insert."""


class _Batch(msgspec.Struct, frozen=True):
    """One append's events with their envelope, before and after the positions are known."""

    season_id: str
    expected: int
    events: Sequence[NewEvent]
    recorded_at: datetime
    links: list[tuple[bytes, bytes]]

    def params(self, last_hash: bytes) -> tuple[object, ...]:
        """The $1..$11 of sql._APPEND (see the comment above sql._CLAIM_NEXT)."""
        es = self.events
        return (
            self.season_id,
            last_hash,
            self.expected,
            [e.event_id for e in es],
            [e.type for e in es],
            [e.data for e in es],
            [_encoder.encode(e.metadata).decode() for e in es],
            self.recorded_at,
            [prev for prev, _ in self.links],
            self.links[-1][1],
            [digest for _, digest in self.links],
        )

    def recorded(self, positions: Sequence[int]) -> list[RecordedEvent]:
        """The events as stored, given their positions (increasing with the versions)."""
        triples = zip(self.events, self.links, positions, strict=True)
        return [
            RecordedEvent(
                season_id=self.season_id,
                version=self.expected + n,
                position=position,
                event_id=e.event_id,
                type=e.type,
                data=e.data,
                metadata=e.metadata,
                recorded_at=self.recorded_at,
                prev_hash=prev,
                hash=digest,
            )
            for n, (e, (prev, digest), position) in enumerate(triples, start=1)
        ]


class PostgresEventStore:
    """The event store on an asyncpg pool (make it with `pool.create_pool`).

    Versions: a stream's version is its number of events; events are numbered 1..n; an empty
    stream is at 0. Positions: global and unique, from a sequence (holes where an append rolled
    back); `read_all` hands events out in a commit-safe order (docs/eventstore.md).
    """

    def __init__(
        self,
        pool: asyncpg.Pool,
        *,
        clock: Clock,
        lease: timedelta = DEFAULT_LEASE,
        notify_window: float | None = NOTIFY_WINDOW,
        group_commit: int = GROUP_FLUSHES,
    ):
        self._pool = pool
        self._clock = clock
        self._keys = PostgresIdempotencyStore(pool, clock=clock, lease=lease)
        # season -> (version, hash of the event at that version), from this store's own appends
        # and reads. A version's hash never changes, so an entry can be old but never wrong;
        # it saves the head read when the season is still where this process left it.
        self._heads: OrderedDict[str, tuple[int, bytes]] = OrderedDict()
        # None: no wake-ups (a store on one borrowed connection, which a sender would share)
        self._waker = _Waker(pool, notify_window) if notify_window is not None else None
        # 0: every append is its own statement; n: appends waiting while n groups are being
        # written go out together in the next one (see _GroupCommit)
        self._group = _GroupCommit(self, group_commit) if group_commit > 0 else None

    def group_stats(self) -> GroupStats:
        """What group commit has written so far: how well appends group, how often it split."""
        return self._group.stats if self._group is not None else GroupStats()

    @property
    def idempotency(self) -> PostgresIdempotencyStore:
        """The Idempotency-Key store sharing this pool."""
        return self._keys

    async def append(
        self,
        season_id: str,
        expected_version: int,
        events: Sequence[NewEvent],
        *,
        idempotency: KeyWrite | None = None,
    ) -> list[RecordedEvent]:
        """Append all events or none; with `idempotency`, write that key in the same commit.

        An IdempotencyCompletion completes a key begun before; an IdempotencyRecord records a
        new key as done (one step). Raises ConcurrencyError (stream not at expected_version),
        DuplicateEventError (an event id recorded differently), IdempotencyStateError (begun
        key not in progress), IdempotencyKeyTaken (recorded key taken already), StoreBusyError
        (lock/statement timeout); in each case nothing is appended. Re-appending already
        recorded events is an idempotent hit: nothing is written and the first recording is
        returned.
        """
        validate_batch(season_id, expected_version, events)
        try:
            return await self._write(season_id, expected_version, events, idempotency)
        except (ConcurrencyError, _EventIdTaken) as exc:
            if isinstance(idempotency, IdempotencyRecord):  # a copy may have won the race
                await self._raise_if_taken(idempotency)
            hit = settle_duplicates(season_id, events, await self._by_ids(events))
            if hit is None and isinstance(exc, _EventIdTaken):
                raise DuplicateEventError([e.event_id for e in events]) from exc
            if hit is None:
                raise
        log.info("eventstore.idempotent_hit", season_id=season_id, version=hit[-1].version)
        if isinstance(idempotency, IdempotencyCompletion):
            await self._keys.complete(
                idempotency.scope, idempotency.key, idempotency.status, idempotency.body
            )
        elif idempotency is not None:
            r = idempotency
            found = await self._keys.record(r.scope, r.key, r.request_hash, r.status, r.body)
            if found is not None:
                raise IdempotencyKeyTaken(r.scope, r.key, found)
        return hit

    async def _raise_if_taken(self, record: IdempotencyRecord) -> None:
        found = await self._keys.look(record.scope, record.key, record.request_hash)
        if found is not None:
            raise IdempotencyKeyTaken(record.scope, record.key, found)

    async def _write(
        self,
        season_id: str,
        expected: int,
        events: Sequence[NewEvent],
        idempotency: KeyWrite | None,
    ) -> list[RecordedEvent]:
        recorded_at = utc(self._clock())
        last_hash = self._known_hash(season_id, expected)
        if last_hash is None:
            async with Checkout(self._pool) as conn:
                head = await conn.fetchrow(sql.STREAM_HEAD, season_id)
            version, last_hash = (head["version"], head["last_hash"]) if head else (0, GENESIS)
            if version != expected:
                raise ConcurrencyError(season_id, expected, version)
        links = chain_hashes(last_hash, season_id, expected, events)
        batch = _Batch(season_id, expected, events, recorded_at, links)
        # one autocommit statement, key completion included: no round trip under a lock
        try:
            if self._group is not None and not isinstance(idempotency, IdempotencyCompletion):
                positions = await self._group.submit(batch, last_hash, idempotency)
            else:
                async with Checkout(self._pool) as conn:
                    positions = await self._insert(conn, batch, last_hash, idempotency)
        except ConcurrencyError:
            self._heads.pop(season_id, None)  # someone else moved the season on
            raise
        self._remember_head(season_id, expected + len(events), links[-1][1])
        if self._waker is not None:
            self._waker.committed(season_id, positions[-1])
        return batch.recorded(positions)

    def _known_hash(self, season_id: str, version: int) -> bytes | None:
        if version == 0:
            return GENESIS
        known = self._heads.get(season_id)
        return known[1] if known is not None and known[0] == version else None

    def _remember_head(self, season_id: str, version: int, digest: bytes) -> None:
        known = self._heads.get(season_id)
        if known is None or known[0] < version:
            self._heads[season_id] = (version, digest)
        self._heads.move_to_end(season_id)
        while len(self._heads) > _KNOWN_HEADS:
            self._heads.popitem(last=False)

    async def _insert(
        self,
        conn: asyncpg.Connection,
        batch: _Batch,
        last_hash: bytes,
        done: KeyWrite | None,
    ) -> list[int]:
        params = batch.params(last_hash)
        first = batch.expected == 0
        if done is None:
            query = sql.APPEND_FIRST if first else sql.APPEND_NEXT
        else:
            params += (done.scope, done.key, done.status, done.body, utc(self._clock()))
            if isinstance(done, IdempotencyRecord):
                query = sql.APPEND_FIRST_RECORDED if first else sql.APPEND_NEXT_RECORDED
                params += (done.request_hash,)
            else:
                query = sql.APPEND_FIRST_KEYED if first else sql.APPEND_NEXT_KEYED
        try:
            row = await conn.fetchrow(query, *params)
        except asyncpg.UniqueViolationError as exc:
            if exc.constraint_name == "events_event_id_key":
                raise _EventIdTaken from exc
            # the streams row (a first append raced), or a recorded key a copy committed first
            raise ConcurrencyError(batch.season_id, batch.expected, None) from exc
        return await _settle(conn, batch, done, row["positions"], row["key_held"])

    async def _by_ids(self, events: Sequence[NewEvent]) -> list[RecordedEvent]:
        return await self._fetch(sql.BY_IDS, [e.event_id for e in events])

    async def read_stream(self, season_id: str, from_version: int = 0) -> list[RecordedEvent]:
        """The season's events after stream version `from_version` (0: all), in version order."""
        events = await self._fetch(sql.READ_STREAM, season_id, from_version)
        if events:
            self._remember_head(season_id, events[-1].version, events[-1].hash)
        return events

    async def read_all(self, after_position: int = 0, limit: int = 1000) -> list[RecordedEvent]:
        """Up to `limit` events after the event at `after_position` (0: from the start).

        The order is commit-safe, not numeric: events come in (transaction id, position) order
        and only up to the oldest transaction that may still be writing, so an event that
        commits later always comes after every event already returned. A catch-up reader
        passes the position of the last event it got; positions are unique, so that names its
        place in the order. Raises ValueError for a position that is no event's.
        """
        if limit < 1:
            raise ValueError("limit must be positive")
        async with Checkout(self._pool) as conn:
            rows = await conn.fetch(sql.READ_ALL, after_position, limit)
        if not rows:
            raise ValueError(f"{after_position} is not the position of a recorded event")
        return [_recorded(row) for row in rows if row["position"] is not None]

    async def stream_version(self, season_id: str) -> int:
        """The season's current version (its number of events; 0 when it has none)."""
        async with Checkout(self._pool) as conn:
            version = await conn.fetchval(
                "SELECT version FROM streams WHERE season_id = $1", season_id
            )
        return int(version or 0)

    async def stream_versions(self) -> dict[str, int]:
        """Every season's current version, in one query (for metrics and sweeps)."""
        async with Checkout(self._pool) as conn:
            rows = await conn.fetch("SELECT season_id, version FROM streams")
        return {row["season_id"]: int(row["version"]) for row in rows}

    async def head_position(self) -> int:
        """The position of the last event a reader can get now (0 when there is none).

        `read_all(head_position())` reads only what commits from now on.
        """
        async with Checkout(self._pool) as conn:
            return int(await conn.fetchval(sql.HEAD_POSITION))

    async def list_seasons(self) -> list[str]:
        """Every season with at least one event, sorted."""
        async with Checkout(self._pool) as conn:
            rows = await conn.fetch("SELECT season_id FROM streams ORDER BY season_id")
        return [row["season_id"] for row in rows]

    async def verify_season(self, season_id: str) -> bytes:
        """Verify the season's chain and that it ends at the stream head; return the head hash."""
        # one snapshot for both reads, so a concurrent append is no false alarm
        async with (
            Checkout(self._pool) as conn,
            conn.transaction(isolation="repeatable_read", readonly=True),
        ):
            events = [_recorded(row) for row in await conn.fetch(sql.READ_SEASON, season_id)]
            stored = await conn.fetchval(
                "SELECT last_hash FROM streams WHERE season_id = $1", season_id
            )
        head = verify_chain(events)
        if head != (stored or GENESIS):
            raise ChainError(season_id, len(events), "chain does not end at the stream head")
        return head

    async def _fetch(self, query: str, *args: object) -> list[RecordedEvent]:
        async with Checkout(self._pool) as conn:
            rows = await conn.fetch(query, *args)
        return [_recorded(row) for row in rows]


async def _settle(
    conn: asyncpg.Connection,
    batch: _Batch,
    done: KeyWrite | None,
    positions: Sequence[int] | None,
    key_held: bool,
) -> list[int]:
    """An append statement's answer for one append: its positions, or why there are none."""
    if isinstance(done, IdempotencyRecord) and not key_held:
        found = await look_in(conn, done.scope, done.key, done.request_hash)
        if found is not None:
            raise IdempotencyKeyTaken(done.scope, done.key, found)
        raise ConcurrencyError(batch.season_id, batch.expected, None)  # gone again: retry
    if isinstance(done, IdempotencyCompletion) and not key_held:
        log.warning("idempotency.complete_refused", scope=done.scope, key=done.key)
        raise IdempotencyStateError(f"key {done.key!r} in {done.scope!r} is not in progress")
    if positions is None:
        raise ConcurrencyError(batch.season_id, batch.expected, None)
    return list(positions)


def _group_params(
    group: Sequence[tuple[_Batch, bytes, IdempotencyRecord | None]], clock: Clock
) -> tuple[tuple[list[Any], ...], tuple[list[Any], ...]]:
    """sql.APPEND_GROUP's item columns ($1..$12) and event columns ($13..$20), made from each
    append's own one-append parameters (_Batch.params)."""
    now = utc(clock())
    items: tuple[list[Any], ...] = tuple([] for _ in range(12))
    events: tuple[list[Any], ...] = tuple([] for _ in range(8))
    for idx, (batch, last_hash, key) in enumerate(group, start=1):
        season, last, expected, ids, types, data, metas, at, prevs, new_hash, hashes = batch.params(
            last_hash
        )
        keyed = (
            (key.scope, key.key, key.request_hash, key.status, key.body, now)
            if key is not None
            else (None,) * 6
        )
        row = (season, last, expected, len(ids), new_hash, at, *keyed)
        for column, value in zip(items, row, strict=True):
            column.append(value)
        numbered = ([idx] * len(ids), range(1, len(ids) + 1))
        for column, values in zip(
            events, (*numbered, ids, types, data, metas, prevs, hashes), strict=True
        ):
            column.extend(values)
    return items, events


def _for_each(exc: BaseException) -> Exception:
    """What one caller of a failed group hears: busy failures as a StoreBusyError of its own."""
    if not isinstance(exc, Exception):
        return StoreBusyError("the group's write was cancelled")
    return as_busy(exc) if is_busy(exc) else exc


def _recorded(row: asyncpg.Record) -> RecordedEvent:
    return RecordedEvent(
        season_id=row["season_id"],
        version=row["version"],
        position=row["position"],
        event_id=UUID(bytes=row["event_id"].bytes),
        type=row["type"],
        data=row["data"],
        metadata=_meta_decoder.decode(row["metadata"]),
        recorded_at=row["recorded_at"],
        prev_hash=row["prev_hash"],
        hash=row["hash"],
    )


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

    def __init__(self, batch: _Batch, last_hash: bytes, key: IdempotencyRecord | None) -> None:
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


class _GroupCommit:
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

    def __init__(self, store: PostgresEventStore, flushes: int) -> None:
        self._store = store
        self._flushes = flushes
        self._running = 0
        self._queue: list[_Pending] = []
        self._busy: set[str] = set()
        self._tasks: set[asyncio.Task[None]] = set()  # the loop keeps only weak references
        self.stats = GroupStats()

    async def submit(
        self, batch: _Batch, last_hash: bytes, key: IdempotencyRecord | None
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
        self, batch: _Batch, last_hash: bytes, key: IdempotencyRecord | None
    ) -> list[int]:
        """A free slot and nothing waiting: the caller writes its own append, no task between
        (one-append statement), and hands what queued meanwhile to a drain task."""
        self._running += 1
        self._busy.add(batch.season_id)
        self.stats = self.stats.add(1)
        try:
            async with Checkout(self._store._pool) as conn:
                return await self._store._insert(conn, batch, last_hash, key)
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
            async with Checkout(self._store._pool) as conn:
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
        items, events = _group_params(params, self._store._clock)
        try:
            rows = await conn.fetch(sql.APPEND_GROUP, *items, *events)
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
                settled = _settle(conn, p.batch, p.key, row["positions"], row["key_held"])
                lost = await p.answer(settled) or lost
        if lost is not None:
            raise lost
        # Seasons another transaction was writing: alone now, so that only they wait for it
        # (a zombie lock holds up its own season's appends, never a whole group).
        for p in skipped:
            await self._one(conn, p)

    async def _one(self, conn: asyncpg.Connection, p: _Pending) -> None:
        """Write one waiting append alone, in the one-append statement, and answer it."""
        lost = await p.answer(self._store._insert(conn, p.batch, p.last_hash, p.key))
        if lost is not None:
            raise lost


class _Waker:
    """Wake-ups for appends: at once when the store is quiet, at most one per `window` when busy.

    Every committed append is followed by a NOTIFY sent after its commit, naming its season. The
    first commit after a quiet spell starts a task that sends its wake-up at once, then sleeps
    `window` seconds; seasons committed meanwhile go out together when it wakes, and so on until
    a sleep passes with no commit. So a lone append is heard a round trip after its commit, and
    under load NOTIFYs cost a round trip per window, not per append (sql.wakeup_payloads).
    """

    def __init__(self, pool: asyncpg.Pool, window: float) -> None:
        self._pool = pool
        self._window = window
        self._seasons: set[str] = set()
        self._newest = 0  # the largest position committed so far
        self._task: asyncio.Task[None] | None = None

    def committed(self, season_id: str, position: int) -> None:
        self._newest = max(self._newest, position)
        self._seasons.add(season_id)
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._send())

    async def _send(self) -> None:
        while self._seasons:
            seasons, self._seasons = sorted(self._seasons), set()  # later commits: next round
            try:
                async with Checkout(self._pool) as conn:
                    for payload in sql.wakeup_payloads(self._newest, seasons):
                        await _wake_up(conn, payload)
            except (asyncpg.PostgresError, StoreBusyError) as exc:
                log.warning("eventstore.notify_failed", error=f"{type(exc).__name__}: {exc}")
            await asyncio.sleep(self._window)


async def _wake_up(conn: asyncpg.Connection, payload: str) -> None:
    """NOTIFY after the commit, in a transaction of its own (it writes no WAL, so the queue lock
    it takes is not held across a flush). Only a hint: a failure loses a wake-up, not an event."""
    try:
        await conn.execute(sql.NOTIFY, NOTIFY_CHANNEL, payload)
    except asyncpg.PostgresError as exc:
        if is_busy(exc):
            raise  # the checkout maps it, and discards a lost connection
        log.warning("eventstore.notify_failed", error=f"{type(exc).__name__}: {exc}")
