"""Season streams over the event store: load (folded, cached), append at an expected version,
one writer per season per process, and `retrying`, the one retry loop of every writer (the
command side, a Divan's resolution, the timed closes: load, decide, append, again on a conflict)."""

from __future__ import annotations

import asyncio
import hashlib
import uuid
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterator, Sequence
from typing import TypeVar

import asyncpg
import msgspec
import structlog

from shared.domain import codec
from shared.domain import events as ev
from shared.domain.evolve import fold
from shared.domain.state import SeasonState
from shared.eventstore import (
    ConcurrencyError,
    EventMetadata,
    EventStore,
    KeyWrite,
    NewEvent,
    RecordedEvent,
    StoreBusyError,
    StoredData,
)

log = structlog.get_logger(__name__)
NAMESPACE = uuid.UUID("6f1d1c5e-81a1-4b1e-9a51-5e45eb1f0081")  # of event ids (event_id)
# Seasons whose fold a process keeps. A folded season is ~14 KB of objects (tracemalloc over
# decoded states at Divans 1, 8 and 16), so 4096 cost ~60 MB. Beyond it the least recently used
# season is dropped, and its next command re-reads and re-folds its whole stream.
CACHE_SEASONS = 4096
R = TypeVar("R")


class SeasonNotFound(Exception):
    """No stream for this season id."""


class UndecodableEvent(Exception):
    """A stored event of the season does not decode (written behind the store's back, or by
    another build): the season cannot be folded; `seksenbir verify` names the rest."""

    def __init__(self, season_id: str, version: int, type_: str, error: str) -> None:
        super().__init__(f"version {version} ({type_}) does not decode: {error}")
        self.season_id = season_id
        self.version = version


def _decoded(season_id: str, records: Sequence[StoredData | RecordedEvent]) -> Iterator[ev.Event]:
    for rec in records:
        try:
            yield codec.decode_stored(rec.data, rec.type)
        except ValueError as exc:  # msgspec's DecodeError and ValidationError are ValueErrors
            raise UndecodableEvent(season_id, rec.version, rec.type, str(exc)) from None


class AuditCopyRefused(Exception):
    """The season is an imported audit copy (`seksenbir import`, ADR-58): it is read, replayed
    and verified, never written: no command, no Divan, no Kurultay."""

    def __init__(self, season_id: str) -> None:
        self.season_id = season_id
        super().__init__(f"{season_id!r} is an audit copy: read-only")


class Loaded(msgspec.Struct, frozen=True):  # a Struct: built in C (ADR-145)
    state: SeasonState
    version: int


def close_key(kind: str) -> str:
    """The key of a live season's timed close (`registration`, `kurultay`): its event ids and
    command id, whoever records it (the scheduler's worker, or for the registration a bey's
    command that finds the instant past), so that both write the same record."""
    return f"close/{kind}"


def close_metadata(kind: str) -> EventMetadata:
    key = close_key(kind)
    return EventMetadata(actor="system", command_id=key, causation_id=key)


# uuid5 without its per-call set-up (issue 27: 8.5 % of the command path): the namespace's
# SHA-1 state copied, not rehashed, and the UUID built from its int as UUID.__init__ does
# (object.__setattr__), without the argument checks. tests/domain/test_event_ids.py holds it
# equal to uuid.uuid5.
_NAMESPACE_SHA1 = hashlib.sha1(NAMESPACE.bytes, usedforsecurity=False)
_V5_CLEAR = ~((0xF000 << 64) | (0xC000 << 48))  # the version and variant bits
_V5_SET = (5 << 76) | (0x8000 << 48)  # version 5, RFC 4122 variant
_UNKNOWN = uuid.SafeUUID.unknown


def event_id(season_id: str, key: str, index: int) -> uuid.UUID:
    """Deterministic ids: a retried command or a re-run Divan writes the same ids (test 3):
    uuid.uuid5(NAMESPACE, f"{season_id}/{key}/{index}")."""
    sha1 = _NAMESPACE_SHA1.copy()
    sha1.update(f"{season_id}/{key}/{index}".encode())
    value = int.from_bytes(sha1.digest()[:16]) & _V5_CLEAR | _V5_SET
    made = object.__new__(uuid.UUID)
    object.__setattr__(made, "int", value)
    object.__setattr__(made, "is_safe", _UNKNOWN)
    return made


def to_new(
    season_id: str, key: str, events: Sequence[ev.Event], metadata: EventMetadata
) -> list[NewEvent]:
    return [
        NewEvent(
            event_id=event_id(season_id, key, i),
            type=codec.event_type(e),
            data=codec.encode(e),
            metadata=metadata,
        )
        for i, e in enumerate(events)
    ]


# How long a command may wait for its season's in-process writer lock by default: the pool's
# default lock_timeout (PoolSettings), so that the queue adds at most what the row lock may.
QUEUE_WAIT_S = 5.0


class _Turns:
    """One season's writer lock, and how many times a writer gave up behind a held row lock."""

    __slots__ = ("lock", "refused")

    def __init__(self) -> None:
        self.lock = asyncio.Lock()
        self.refused = 0


class _Writing:
    """`async with seasons.writing(id)`: the season's lock, dropped when nobody holds or waits.

    Waiting is bounded (issue 9 item 7, RELIABILITY 6): a writer waits at most `wait` seconds
    in the queue, then StoreBusyError; and when the writer holding the lock gives up because
    the season's stream row is locked (lock_timeout: a zombie transaction, another process),
    every writer queued behind it gives up at once too (StoreBusyError), rather than each
    waiting its own lock_timeout at the same lock in turn. So under a held row lock each
    request answers 503 within about one lock_timeout, whatever its place in the queue
    (at most the queue wait plus one lock_timeout in any case).
    A class rather than @asynccontextmanager: every command passes through it.
    """

    __slots__ = ("_locks", "_season_id", "_turns", "_wait")

    def __init__(self, locks: dict[str, _Turns], season_id: str, wait: float) -> None:
        self._locks = locks
        self._season_id = season_id
        self._wait = wait
        turns = locks.get(season_id)
        if turns is None:
            turns = locks[season_id] = _Turns()
        self._turns = turns

    async def __aenter__(self) -> None:
        turns = self._turns
        lock = turns.lock
        if not lock.locked() and not lock._waiters:
            await lock.acquire()  # free and nobody ahead: no wait to bound (the common case)
            return
        refused = turns.refused
        try:
            async with asyncio.timeout(self._wait):
                await lock.acquire()
        except TimeoutError:
            self._forget()
            raise StoreBusyError(
                f"season {self._season_id!r}: still queued after {self._wait} s"
            ) from None
        except BaseException:
            self._forget()
            raise
        if turns.refused != refused:  # the writer ahead met a held row lock meanwhile
            lock.release()
            self._forget()
            raise StoreBusyError(f"season {self._season_id!r}: its stream row is locked")

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, _tb: object
    ) -> None:
        if exc is not None and _behind_a_row_lock(exc):
            self._turns.refused += 1
        self._turns.lock.release()
        self._forget()

    def _forget(self) -> None:
        lock = self._turns.lock
        if not lock.locked() and not lock._waiters:
            self._locks.pop(self._season_id, None)


def _behind_a_row_lock(exc: BaseException) -> bool:
    """A StoreBusyError from lock_timeout (its cause is PostgreSQL's lock_not_available)."""
    return isinstance(exc, StoreBusyError) and isinstance(
        exc.__cause__, asyncpg.LockNotAvailableError
    )


class Seasons:
    """A folded-state cache per season, caught up from the store on every load."""

    def __init__(self, store: EventStore, *, queue_wait: float = QUEUE_WAIT_S) -> None:
        self.store = store
        self._cache: OrderedDict[str, Loaded] = OrderedDict()
        self._locks: dict[str, _Turns] = {}
        self._queue_wait = queue_wait
        # season -> is an audit copy (ADR-58); it never changes once the season has an event
        self._copies: dict[str, bool] = {}

    def writing(self, season_id: str) -> _Writing:
        """One writer per season in this process: writers queue instead of racing and retrying.

        Other processes still race; the store's expected version keeps that correct. The wait
        is bounded (`queue_wait`, and see _Writing): StoreBusyError, as the row lock's own.
        """
        return _Writing(self._locks, season_id, self._queue_wait)

    async def load(self, season_id: str) -> Loaded:
        """The season at its head: the cached fold caught up with one read (`since`)."""
        loaded, _ = await self.since(
            season_id, self._cache.get(season_id) or Loaded(SeasonState(), 0)
        )
        if loaded.version == 0:
            raise SeasonNotFound(season_id)
        return loaded

    async def since(self, season_id: str, loaded: Loaded) -> tuple[Loaded, list[ev.Event]]:
        """The events appended after `loaded` (one read of the store, of what a fold needs:
        ADR-142) and the season folded on to its new head; the cache follows unless another
        load left it further ahead."""
        records = await self.store.read_data(season_id, from_version=loaded.version)
        later = list(_decoded(season_id, records))
        if records:
            loaded = Loaded(fold(later, loaded.state), records[-1].version)
        cached = self._cache.get(season_id)
        if loaded.version and (cached is None or cached.version <= loaded.version):
            self._remember(season_id, loaded)
        return loaded, later

    def _remember(self, season_id: str, loaded: Loaded) -> None:
        if loaded.state.phase == "over":  # nothing more is played in it: keep no fold of it
            # (issue 14: a soak's seasons end and are replaced, and the LRU alone let a
            # process grow until CACHE_SEASONS were held)
            self.forget(season_id)
            return
        self._cache[season_id] = loaded
        self._cache.move_to_end(season_id)
        while len(self._cache) > CACHE_SEASONS:
            self._cache.popitem(last=False)

    async def append(
        self,
        season_id: str,
        expected: int,
        key: str,
        events: Sequence[ev.Event],
        metadata: EventMetadata,
        *,
        idempotency: KeyWrite | None = None,
        folded: tuple[SeasonState, SeasonState] | None = None,
    ) -> list[RecordedEvent]:
        """Append `events` at `expected`; the cached fold follows when it stood at `expected`.

        `folded` (ADR-141): (the state the events were decided on, the state they fold it to),
        already computed by the caller: kept instead of folding them again when the cached
        fold is that very state (not a newer head they were appended on, ADR-128)."""
        if expected > 0 and await self._audit_copy(season_id):
            raise AuditCopyRefused(season_id)
        recorded = await self.store.append(
            season_id, expected, to_new(season_id, key, events, metadata), idempotency=idempotency
        )
        cached = self._cache.get(season_id)
        if (
            cached is not None
            and cached.version == expected
            and recorded
            and (
                recorded[0].version == expected + 1
                and recorded[-1].version == expected + len(events)
            )
        ):
            if folded is not None and folded[0] is cached.state:
                state = folded[1]
            else:
                state = fold(events, cached.state)
            self._remember(season_id, Loaded(state, expected + len(events)))
        return recorded

    async def refuse_audit_copy(self, season_id: str) -> None:
        """AuditCopyRefused if the season is an imported audit copy: a write beside the
        season's own stream (its chat: ADR-118) is refused as its appends are."""
        if await self._audit_copy(season_id):
            raise AuditCopyRefused(season_id)

    async def _audit_copy(self, season_id: str) -> bool:
        """One look per season and process: an import marks its season before the first event
        (ADR-58), so a season with events is or is not a copy for good."""
        known = self._copies.get(season_id)
        if known is None:
            if len(self._copies) >= 4 * CACHE_SEASONS:
                self._copies.clear()
            known = self._copies[season_id] = await self.store.audit_copy(season_id)
        return known

    def forget(self, season_id: str) -> None:
        """Keep no fold of this season (its next load reads and folds its whole stream)."""
        self._cache.pop(season_id, None)

    def peek(self, season_id: str) -> Loaded | None:
        """The cached fold, possibly behind the store (another process may have appended)."""
        return self._cache.get(season_id)


class DecideAgain(Exception):
    """An attempt's decision is not to be kept (made on a cached fold that may be behind, or
    on a season whose timed close was just recorded): `retrying` runs the next attempt at once,
    which reads the season afresh."""


async def retrying(
    season_id: str,
    retries: int,
    attempt: Callable[[int], Awaitable[R]],
    *,
    on_conflict: Callable[[int], Awaitable[None]] | None = None,
) -> R:
    """Run `attempt(n)` (load, decide, append) for n = 0 … `retries` until it answers.

    A ConcurrencyError from it (the append's expected version was stale: another writer got
    there first) runs it again after `on_conflict(n)` (a log line, a spread of the retries);
    DecideAgain runs it again at once. After `retries` + 1 attempts: ConcurrencyError."""
    for n in range(retries + 1):
        try:
            return await attempt(n)
        except ConcurrencyError:
            if on_conflict is not None:
                await on_conflict(n)
        except DecideAgain:
            continue
    raise ConcurrencyError(season_id, -1, None)
