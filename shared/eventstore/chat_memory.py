"""The chat log in lists (issue 24, ADR-91): the in-memory store's, with the contract of
shared.eventstore.chat_log.PostgresChatLog (tests/integration/test_chat_log.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import msgspec

from shared.eventstore.chat_keys import keys_of
from shared.eventstore.chat_log import GENESIS, ChatNew, ChatRecord, Seen, _chained
from shared.eventstore.clock import Clock, utc
from shared.eventstore.errors import IdempotencyKeyTaken
from shared.eventstore.taken_keys import Found


class _Keys(Protocol):
    async def look(self, scope: str, key: str, request_hash: bytes) -> Found | None: ...
    async def record(
        self, scope: str, key: str, request_hash: bytes, status: int, body: bytes
    ) -> Found | None: ...


class InMemoryChatLog:
    """The chat log in lists, for the in-memory store; each call runs without an await."""

    def __init__(self, *, clock: Clock, keys: _Keys | None = None) -> None:
        self._clock = clock
        self._keys = keys  # the store's Idempotency-Keys, which keyed events record (ADR-175)
        self._streams: dict[str, list[ChatRecord]] = {}
        self._marks: dict[tuple[str, int, str], int] = {}

    async def append(
        self, season_id: str, events: Sequence[ChatNew], *, seen: Seen | None = None
    ) -> list[ChatRecord]:
        keyed = keys_of(events)
        keys = self._keys
        if keyed and keys is None:
            raise ValueError("a keyed chat event needs the store's keys")
        for k in keyed:  # taken: nothing appended
            found = await keys.look(k.scope, k.key, k.request_hash) if keys else None
            if found is not None:
                raise IdempotencyKeyTaken(k.scope, k.key, found)
        stream = self._streams.setdefault(season_id, [])
        prev = stream[-1].hash if stream else GENESIS
        new = _chained(season_id, len(stream), prev, events, utc(self._clock()))
        stream.extend(new)
        for e, r in zip(events, new, strict=True):
            if e.key is not None and keys is not None:
                k = e.key
                await keys.record(k.scope, k.key, k.request_hash, k.status, k.answer(r.version))
        for e in events:
            for v in e.erases:
                stream[v - 1] = msgspec.structs.replace(stream[v - 1], text=None)
        return new

    async def read(self, season_id: str, after: int = 0) -> list[ChatRecord]:
        return list(self._streams.get(season_id, [])[after:])

    def head_seen(self, season_id: str) -> Seen | None:
        """None: its callers read before they decide (one store, any number of folds)."""
        return None

    async def marks(self, season_id: str, seat: int) -> dict[str, int]:
        return {c: v for (s, t, c), v in self._marks.items() if s == season_id and t == seat}

    async def mark(self, season_id: str, seat: int, channel: str, version: int) -> int:
        key = (season_id, seat, channel)
        self._marks[key] = max(self._marks.get(key, 0), version)
        return self._marks[key]

    def tamper(self, season_id: str, version: int, data: bytes) -> None:
        """Tests only: change a stored event's data (verify must then fail)."""
        stream = self._streams[season_id]
        stream[version - 1] = msgspec.structs.replace(stream[version - 1], data=data)
