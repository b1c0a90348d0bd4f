"""Season streams over the event store: load (folded, cached), decide, append with retries."""

from __future__ import annotations

import asyncio
import uuid
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

import structlog

from shared.domain import codec
from shared.domain import events as ev
from shared.domain.evolve import evolve
from shared.domain.state import SeasonState
from shared.eventstore import (
    EventMetadata,
    EventStore,
    KeyWrite,
    NewEvent,
    RecordedEvent,
)

log = structlog.get_logger(__name__)
NAMESPACE = uuid.UUID("6f1d1c5e-81a1-4b1e-9a51-5e45eb1f0081")
# Seasons whose fold a process keeps. A folded season is ~14 KB of objects (tracemalloc over
# decoded states at Divans 1, 8 and 16), so 4096 cost ~60 MB. Beyond it the least recently used
# season is dropped, and its next command re-reads and re-folds its whole stream.
CACHE_SEASONS = 4096


class SeasonNotFound(Exception):
    """No stream for this season id."""


@dataclass(frozen=True, slots=True)
class Loaded:
    state: SeasonState
    version: int


def event_id(season_id: str, key: str, index: int) -> uuid.UUID:
    """Deterministic ids: a retried command or a re-run Divan writes the same ids (test 3)."""
    return uuid.uuid5(NAMESPACE, f"{season_id}/{key}/{index}")


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


class _Writing:
    """`async with seasons.writing(id)`: the season's lock, dropped when nobody holds or waits.

    A class rather than @asynccontextmanager: every command passes through it.
    """

    __slots__ = ("_lock", "_locks", "_season_id")

    def __init__(self, locks: dict[str, asyncio.Lock], season_id: str) -> None:
        self._locks = locks
        self._season_id = season_id
        self._lock = locks.setdefault(season_id, asyncio.Lock())

    async def __aenter__(self) -> None:
        try:
            await self._lock.acquire()
        except BaseException:
            self._forget()
            raise

    async def __aexit__(self, *_exc: object) -> None:
        self._lock.release()
        self._forget()

    def _forget(self) -> None:
        lock = self._lock
        if not lock.locked() and not lock._waiters:  # type: ignore[attr-defined]
            self._locks.pop(self._season_id, None)


class Seasons:
    """A folded-state cache per season, caught up from the store on every load."""

    def __init__(self, store: EventStore) -> None:
        self.store = store
        self._cache: OrderedDict[str, Loaded] = OrderedDict()
        self._locks: dict[str, asyncio.Lock] = {}

    def writing(self, season_id: str) -> _Writing:
        """One writer per season in this process: writers queue instead of racing and retrying.

        Other processes still race; the store's expected version keeps that correct.
        """
        return _Writing(self._locks, season_id)

    async def load(self, season_id: str) -> Loaded:
        cached = self._cache.get(season_id)
        state, version = (cached.state, cached.version) if cached else (SeasonState(), 0)
        for rec in await self.store.read_stream(season_id, from_version=version):
            state = evolve(state, codec.decode_event(rec.data))
            version = rec.version
        if version == 0:
            raise SeasonNotFound(season_id)
        loaded = Loaded(state, version)
        self._remember(season_id, loaded)
        return loaded

    def _remember(self, season_id: str, loaded: Loaded) -> None:
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
        idempotency: KeyWrite | None = None,
    ) -> list[RecordedEvent]:
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
            state = cached.state
            for e in events:
                state = evolve(state, e)
            self._remember(season_id, Loaded(state, expected + len(events)))
        return recorded

    def peek(self, season_id: str) -> Loaded | None:
        """The cached fold, possibly behind the store (another process may have appended)."""
        return self._cache.get(season_id)
