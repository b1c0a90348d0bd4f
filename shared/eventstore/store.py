"""PostgreSQL event store: one append-only table, per-season versions, parallel appends."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence

import asyncpg

from shared.eventstore import sql
from shared.eventstore.append import Batch, EventIdTaken, insert
from shared.eventstore.busy import Checkout
from shared.eventstore.chat_log import ChatRecord, PostgresChatLog, import_chat
from shared.eventstore.clock import Clock, utc
from shared.eventstore.commit_order import CommitOrderReads
from shared.eventstore.errors import (
    ChainError,
    ConcurrencyError,
    DuplicateEventError,
    IdempotencyKeyTaken,
)
from shared.eventstore.group_commit import GROUP_FLUSHES, GroupCommit, GroupStats
from shared.eventstore.hashing import (
    CHAIN_VERSION,
    CHAIN_VERSIONS,
    GENESIS,
    chain_hashes,
    verify_chain,
)
from shared.eventstore.idempotency import PostgresIdempotencyStore
from shared.eventstore.model import (
    IdempotencyRecord,
    KeyWrite,
    NewEvent,
    RecordedEvent,
    StoredData,
    settle_duplicates,
    validate_batch,
)
from shared.eventstore.ops_read_log import PostgresOpsReads
from shared.eventstore.player_log import PostgresPlayerLog
from shared.eventstore.wakeups import NOTIFY_CHANNEL, NOTIFY_WINDOW, Waker
from shared.logs import get_logger

log = get_logger(__name__)

__all__ = ["NOTIFY_CHANNEL", "GroupStats", "PostgresEventStore"]

_KNOWN_HEADS = 10_000  # seasons whose last seen head this process keeps


class PostgresEventStore(CommitOrderReads):
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
        notify_window: float | None = NOTIFY_WINDOW,
        group_commit: int = GROUP_FLUSHES,
    ):
        self._pool = pool
        self._clock = clock
        self._keys = PostgresIdempotencyStore(pool, clock=clock)
        self._ops_reads = PostgresOpsReads(pool, clock=clock)
        self._players = PostgresPlayerLog(pool, clock=clock)
        self._chat = PostgresChatLog(pool, clock=clock)
        # season -> (version, hash of the event at that version), from this store's own appends
        # and reads. A version's hash never changes, so an entry can be old but never wrong;
        # it saves the head read when the season is still where this process left it.
        self._heads: OrderedDict[str, tuple[int, bytes]] = OrderedDict()
        # season -> its chain version (streams.chain, migration 0007): never changes once set
        self._chains: dict[str, int] = {}
        # None: no wake-ups (a store on one borrowed connection, which a sender would share)
        self._waker = Waker(pool, notify_window) if notify_window is not None else None
        # 0: every append is its own statement; n: appends waiting while n groups are being
        # written go out together in the next one (see group_commit.GroupCommit)
        self._group = GroupCommit(pool, clock, group_commit) if group_commit > 0 else None

    async def drain(self) -> None:
        """Send the wake-ups this store's appends still owe (NOTIFY after commit): call before
        closing its pool (entrypoints.bootstrap.event_store does), else they are lost to it."""
        if self._waker is not None:
            await self._waker.drain()

    def group_stats(self) -> GroupStats:
        """What group commit has written so far: how well appends group, how often it split."""
        return self._group.stats if self._group is not None else GroupStats()

    @property
    def pool(self) -> asyncpg.Pool:
        """The pool, for the application layer's tables beside the log (the notify store)."""
        return self._pool

    @property
    def idempotency(self) -> PostgresIdempotencyStore:
        """The Idempotency-Key store sharing this pool."""
        return self._keys

    @property
    def ops_reads(self) -> PostgresOpsReads:
        """The ops-read audit trail sharing this pool (ADR-53): not season events."""
        return self._ops_reads

    @property
    def players(self) -> PostgresPlayerLog:
        """Players' own event log sharing this pool (ADR-87): not season events."""
        return self._players

    @property
    def chat(self) -> PostgresChatLog:
        """The seasons' chat streams sharing this pool (issue 24, ADR-91): not season events."""
        return self._chat

    async def append(
        self,
        season_id: str,
        expected_version: int,
        events: Sequence[NewEvent],
        *,
        idempotency: KeyWrite | None = None,
        chain: int | None = None,
    ) -> list[RecordedEvent]:
        """Append all events or none; with `idempotency`, write that key in the same commit.

        `chain` is the chain version of a new season (expected_version 0; default
        CHAIN_VERSION); only an import of a version-1 export passes 1 (ADR-52).

        An IdempotencyRecord records a new key as done with its answer. Raises ConcurrencyError
        (stream not at expected_version), DuplicateEventError (an event id recorded
        differently), IdempotencyKeyTaken (the key is taken already), StoreBusyError
        (lock/statement timeout); in each case nothing is appended. Re-appending already
        recorded events is an idempotent hit: nothing is written and the first recording is
        returned.
        """
        validate_batch(season_id, expected_version, events)
        if chain is not None and (expected_version != 0 or chain not in CHAIN_VERSIONS):
            raise ValueError("a chain version is chosen by a new season's first append")
        try:
            return await self._write(season_id, expected_version, events, idempotency, chain)
        except (ConcurrencyError, EventIdTaken) as exc:
            if idempotency is not None:  # a copy may have won the race
                await self._raise_if_taken(idempotency)
            hit = settle_duplicates(season_id, events, await self._by_ids(events))
            if hit is None and isinstance(exc, EventIdTaken):
                raise DuplicateEventError([e.event_id for e in events]) from exc
            if hit is None:
                raise
        log.info("eventstore.idempotent_hit", season_id=season_id, version=hit[-1].version)
        if idempotency is not None:
            r = idempotency
            found = await self._keys.record(r.scope, r.key, r.request_hash, r.status, r.body)
            if found is not None:
                raise IdempotencyKeyTaken(r.scope, r.key, found)
        return hit

    async def import_stream(
        self,
        season_id: str,
        events: Sequence[NewEvent],
        *,
        chain: int | None,
        head: bytes,
        batch: int = 500,
        chat: Sequence[ChatRecord] = (),
    ) -> list[RecordedEvent]:
        """Store a whole exported season and its chat (ADR-106) as an audit copy, all or nothing.

        One transaction marks the season in `audit_copies` (ADR-58; before its first event, so
        the due-work trigger tracks none of its deadlines), appends the events in statements of
        `batch` on chain version `chain` (None: CHAIN_VERSION) and commits once: a failed import
        leaves nothing half-written. Raises ConcurrencyError (the season exists),
        DuplicateEventError (an event id recorded elsewhere) or asyncpg's error, writing nothing."""
        if not events:
            raise ValueError("an import needs at least one event")
        chain = CHAIN_VERSION if chain is None else chain
        if chain not in CHAIN_VERSIONS:
            raise ValueError(f"unknown chain version {chain}")
        for start in range(0, len(events), batch):
            validate_batch(season_id, start, events[start : start + batch])
        recorded_at = utc(self._clock())
        stored: list[RecordedEvent] = []
        positions: list[int] = []
        last_hash = GENESIS
        try:
            async with Checkout(self._pool) as conn, conn.transaction():
                if not await conn.fetchval(sql.AUDIT_COPY, season_id):
                    await conn.execute(sql.MARK_AUDIT_COPY, season_id, head)
                for start in range(0, len(events), batch):
                    part = events[start : start + batch]
                    links = chain_hashes(last_hash, season_id, start, part, chain)
                    one = Batch(season_id, start, part, recorded_at, links)
                    got = await insert(conn, one, last_hash, None, self._clock)
                    if start == 0 and chain != CHAIN_VERSION:
                        await conn.execute(sql.SET_CHAIN, season_id, chain)
                    stored += one.recorded(got)
                    positions += got
                    last_hash = links[-1][1]
                await import_chat(conn, season_id, chat, recorded_at)
        except asyncpg.UniqueViolationError as exc:
            # a second import of this season at once: its mark waited for the first's commit
            raise ConcurrencyError(season_id, 0, None) from exc
        except EventIdTaken as exc:  # rolled back: name the ids another season holds
            taken = [r.event_id for r in await self._by_ids(events)]
            raise DuplicateEventError(taken or [e.event_id for e in events]) from exc
        self._remember_head(season_id, len(events), last_hash)
        self._chains[season_id] = chain
        if self._waker is not None:
            self._waker.committed(season_id, positions[-1])
        return stored

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
        chain: int | None = None,
    ) -> list[RecordedEvent]:
        recorded_at = utc(self._clock())
        last_hash = self._known_hash(season_id, expected)
        known_chain = self._chains.get(season_id) if expected else (chain or CHAIN_VERSION)
        if last_hash is None or known_chain is None:
            async with Checkout(self._pool) as conn:
                head = await conn.fetchrow(sql.STREAM_HEAD, season_id)
            version, last_hash = (head["version"], head["last_hash"]) if head else (0, GENESIS)
            if version != expected:
                raise ConcurrencyError(season_id, expected, version)
            known_chain = int(head["chain"]) if head else (chain or CHAIN_VERSION)
        links = chain_hashes(last_hash, season_id, expected, events, known_chain)
        batch = Batch(season_id, expected, events, recorded_at, links)
        # one autocommit statement, key completion included: no round trip under a lock
        try:
            if chain is not None and chain != CHAIN_VERSION:
                # an import's older chain: the stream row gets it in the first append's commit
                async with Checkout(self._pool) as conn, conn.transaction():
                    positions = await insert(conn, batch, last_hash, idempotency, self._clock)
                    await conn.execute(sql.SET_CHAIN, season_id, chain)
            elif self._group is not None:
                positions = await self._group.submit(batch, last_hash, idempotency)
            else:
                async with Checkout(self._pool) as conn:
                    positions = await insert(conn, batch, last_hash, idempotency, self._clock)
        except ConcurrencyError:
            self._heads.pop(season_id, None)  # someone else moved the season on
            raise
        self._remember_head(season_id, expected + len(events), links[-1][1])
        self._chains[season_id] = known_chain
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

    async def _by_ids(self, events: Sequence[NewEvent]) -> list[RecordedEvent]:
        return await self._fetch(sql.BY_IDS, [e.event_id for e in events])

    async def read_stream(self, season_id: str, from_version: int = 0) -> list[RecordedEvent]:
        """The season's events after stream version `from_version` (0: all), in version order."""
        events = await self._fetch(sql.READ_STREAM, season_id, from_version)
        if events:
            self._remember_head(season_id, events[-1].version, events[-1].hash)
        return events

    async def read_data(self, season_id: str, from_version: int = 0) -> list[StoredData]:
        """What a fold needs of the season's events after `from_version` (read_stream's rows
        without their envelope but the version, chain hash and position: ADR-142, ADR-141),
        in version order."""
        async with Checkout(self._pool) as conn:
            rows = await conn.fetch(sql.READ_DATA, season_id, from_version)
        if not rows:
            return []
        out = [StoredData(*row) for row in rows]
        last = out[-1]
        self._remember_head(season_id, last.version, last.hash)
        return out

    async def stream_version(self, season_id: str) -> int:
        """The season's current version (its number of events; 0 when it has none)."""
        async with Checkout(self._pool) as conn:
            version = await conn.fetchval(sql.STREAM_VERSION, season_id)
        return int(version or 0)

    async def stream_versions(self) -> dict[str, int]:
        """Every season's current version, in one query (for metrics and sweeps)."""
        async with Checkout(self._pool) as conn:
            rows = await conn.fetch(sql.STREAM_VERSIONS)
        return {row["season_id"]: int(row["version"]) for row in rows}

    async def season_count(self) -> int:
        """How many seasons have events (the metrics' gauge: counted by PostgreSQL)."""
        async with Checkout(self._pool) as conn:
            return int(await conn.fetchval(sql.SEASON_COUNT))

    async def list_seasons(self) -> list[str]:
        """Every season with at least one event, sorted."""
        async with Checkout(self._pool) as conn:
            rows = await conn.fetch(sql.LIST_SEASONS)
        return [row["season_id"] for row in rows]

    async def verify_chain(self, season_id: str) -> bytes:
        """Verify the season's chain and that it ends at the stream head; return the head hash."""
        return (await self.read_verified(season_id))[1]

    async def read_verified(self, season_id: str) -> tuple[list[RecordedEvent], bytes]:
        """The season's events and its head, both from one snapshot, after checking that the
        chain links them and ends at the stream head (ChainError otherwise): what an export
        writes, so a season appended to meanwhile never gives a header whose head is not its
        last event's (a false "the season was rewritten")."""
        events, stored, chain = await self.read_with_head(season_id)
        head = verify_chain(events, chain=chain)
        if head != (stored or GENESIS):
            raise ChainError(season_id, len(events), "chain does not end at the stream head")
        return events, head

    async def read_with_head(self, season_id: str) -> tuple[list[RecordedEvent], bytes | None, int]:
        """The season's events, the stream head (`streams.last_hash`, None for no season) and
        its chain version, all from one snapshot (a concurrent append is in all or none)."""
        async with (
            Checkout(self._pool) as conn,
            conn.transaction(isolation="repeatable_read", readonly=True),
        ):
            events = [sql.recorded(row) for row in await conn.fetch(sql.READ_SEASON, season_id)]
            row = await conn.fetchrow(sql.STREAM_LAST_HASH, season_id)
        stored, chain = (row["last_hash"], int(row["chain"])) if row else (None, CHAIN_VERSION)
        return events, stored, chain

    async def chain_version(self, season_id: str) -> int:
        """The season's chain version (1 or 2, ADR-52); CHAIN_VERSION for an unknown season."""
        known = self._chains.get(season_id)
        if known is None:
            async with Checkout(self._pool) as conn:
                found = await conn.fetchval(sql.STREAM_CHAIN, season_id)
            if found is None:
                return CHAIN_VERSION
            known = self._chains[season_id] = int(found)
        return known

    async def audit_copy(self, season_id: str) -> bool:
        """Whether the season is an imported audit copy (ADR-58): read-only, never scheduled."""
        async with Checkout(self._pool) as conn:
            return bool(await conn.fetchval(sql.AUDIT_COPY, season_id))

    async def mark_audit_copy(self, season_id: str, head: bytes) -> None:
        """Record an import's season as an audit copy before its first event (ADR-58): the
        due-work trigger then tracks none of its deadlines. Raises if it is one already."""
        async with Checkout(self._pool) as conn:
            await conn.execute(sql.MARK_AUDIT_COPY, season_id, head)

    async def _fetch(self, query: str, *args: object) -> list[RecordedEvent]:
        async with Checkout(self._pool) as conn:
            rows = await conn.fetch(query, *args)
        return [sql.recorded(row) for row in rows]
