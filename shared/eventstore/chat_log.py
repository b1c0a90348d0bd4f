"""A season's chat, in a stream of its own (issue 24, ADR-91, ADR-92).

Each season has a chat stream beside its event stream: its own versions 1 … n and its own hash
chain (`seksenbir/chat-chain/1`), so a flood of messages never makes a command or a Divan
conflict (they append to the season's stream) and never waits on its lock. A message is
decided on the season's state (membership, press mode), never on the chat so far, so it can
always go at the end: an append goes at the end as this process last saw it, and when another
process's append took that version first (the primary key refuses it) it goes again after
that one (ADR-107; ADR-91 took a transaction-scoped advisory lock instead).

A message's text lives beside its event (`chat_texts`), not in the hashed data, which carries
only the text's sha256: ops can erase an unlawful text (an event saying so, with its reason)
and the chain still verifies. Nothing else is ever removed. A bey's last-read marker per
channel is a row of `chat_marks`, in PostgreSQL, so a flushed Redis loses no unread count.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
from collections.abc import Sequence
from datetime import datetime
from typing import Any, NamedTuple, Protocol
from uuid import UUID

import asyncpg
import msgspec

from shared.eventstore.busy import Checkout, as_busy, is_busy
from shared.eventstore.chat_keys import (
    KEY_TAKEN,
    ChatKey,
    key_columns,
    keyed_sql,
    keys_of,
    taken_out,
)
from shared.eventstore.clock import Clock, utc
from shared.eventstore.errors import ChainError, StoreBusyError

SCHEME = b"seksenbir/chat-chain/1"
GENESIS = bytes(32)


class ChatNew(msgspec.Struct, frozen=True, kw_only=True):
    """A chat event to append: its tag, hashed data, the acting seat, the text kept beside it
    (None: none), and the versions whose texts this event erases (a `text_erased` act)."""

    event_id: UUID
    type: str
    data: bytes
    seat: int | None = None
    text: str | None = None
    erases: tuple[int, ...] = ()
    key: ChatKey | None = None  # not hashed: the request's, not the chat's


class ChatRecord(msgspec.Struct, frozen=True, kw_only=True):
    """A chat event as stored, with the text beside it (None: none, or erased)."""

    season_id: str
    version: int
    event_id: UUID
    type: str
    data: bytes
    seat: int | None
    recorded_at: datetime
    prev_hash: bytes
    hash: bytes
    text: str | None = None


def _field(value: bytes) -> bytes:
    return len(value).to_bytes(4, "big") + value


def chat_hash(prev: bytes, season_id: str, version: int, e: ChatNew | ChatRecord) -> bytes:
    """sha256(prev || envelope); the envelope is chain version 2's layout with SCHEME: scheme,
    season, version (8 bytes), event id (16), type, sha256(data), each variable field
    length-prefixed (docs/eventstore.md "Hash chain")."""
    digest = hashlib.sha256(e.data).digest()
    return chat_link(prev, season_id, version, event_id=e.event_id, type_=e.type, digest=digest)


def chat_link(
    prev: bytes, season_id: str, version: int, *, event_id: UUID, type_: str, digest: bytes
) -> bytes:
    """The link of chat_hash from the data's digest alone: what a checker of an export whose
    data was left out (R-15.3) computes (docs/export.md "Chat")."""
    envelope = b"".join(
        (
            _field(SCHEME),
            _field(season_id.encode()),
            version.to_bytes(8, "big"),
            event_id.bytes,
            _field(type_.encode()),
            _field(digest),
        )
    )
    return hashlib.sha256(prev + envelope).digest()


def verify_chat(records: Sequence[ChatRecord]) -> bytes:
    """The chat chain's head (GENESIS for none), or ChainError at the first broken link. The
    texts are not part of it: an erased text leaves the chain whole (ADR-92)."""
    prev = GENESIS
    for n, r in enumerate(records, 1):
        if r.version != n or r.prev_hash != prev:
            raise ChainError(r.season_id, r.version, "chat chain: link broken")
        if r.hash != chat_hash(prev, r.season_id, r.version, r):
            raise ChainError(r.season_id, r.version, "chat chain: hash differs")
        prev = r.hash
    return prev


class ChatMoved(Exception):
    """A strict append (`ChatLog.append(seen=…)`) found that another process may have appended
    to the season's chat since its caller decided: nothing of it was written, and its caller
    decides again on a fresh read (ADR-126)."""


class Seen(NamedTuple):
    """The end of a season's chat as this process's last append left it (`version`), and the
    count of this process's appends overtaken by another's before it (`epoch`): while the
    epoch stays, no other process appended past this end (ADR-126)."""

    version: int
    epoch: int


class ChatLog(Protocol):
    async def append(
        self, season_id: str, events: Sequence[ChatNew], *, seen: Seen | None = None
    ) -> list[ChatRecord]: ...
    def head_seen(self, season_id: str) -> Seen | None: ...
    async def read(self, season_id: str, after: int = 0) -> list[ChatRecord]: ...
    async def marks(self, season_id: str, seat: int) -> dict[str, int]: ...
    async def mark(self, season_id: str, seat: int, channel: str, version: int) -> int: ...


def _chained(
    season_id: str, start: int, prev: bytes, events: Sequence[ChatNew], at: datetime
) -> list[ChatRecord]:
    out = []
    for n, e in enumerate(events, start + 1):
        h = chat_hash(prev, season_id, n, e)
        out.append(
            ChatRecord(
                season_id=season_id,
                version=n,
                event_id=e.event_id,
                type=e.type,
                data=e.data,
                seat=e.seat,
                recorded_at=at,
                prev_hash=prev,
                hash=h,
                text=e.text,
            )
        )
        prev = h
    return out


_HEAD = "SELECT version, hash FROM chat_events WHERE season_id = $1 ORDER BY version DESC LIMIT 1"
# A batch's events and texts in one statement (the texts' foreign key is checked at its end)
_APPEND = """
WITH e AS (
    INSERT INTO chat_events (season_id, version, event_id, type, data, seat, recorded_at,
                             prev_hash, hash)
    SELECT $1, u.version, u.event_id, u.type, u.data, u.seat, $2, u.prev_hash, u.hash
    FROM unnest($3::bigint[], $4::uuid[], $5::text[], $6::bytea[], $7::smallint[],
                $8::bytea[], $9::bytea[]) AS u(version, event_id, type, data, seat, prev_hash,
                                               hash)
)
INSERT INTO chat_texts (season_id, version, text)
SELECT $1, t.version, t.text FROM unnest($10::bigint[], $11::text[]) AS t(version, text)"""
_APPEND_KEYED = keyed_sql(_APPEND)  # … with its keyed events' Idempotency-Keys (ADR-175)
_TAKEN = ("chat_events_pkey", "chat_texts_pkey")  # a version another append holds already
ATTEMPTS = 10  # a batch's appends overtaken by another process's before it answers busy
_ERASE = "UPDATE chat_texts SET text = NULL, erased_at = $3 WHERE season_id = $1 AND version = $2"
_READ = """
SELECT e.version, e.event_id, e.type, e.data, e.seat, e.recorded_at, e.prev_hash, e.hash, t.text
FROM chat_events e LEFT JOIN chat_texts t USING (season_id, version)
WHERE e.season_id = $1 AND e.version > $2 ORDER BY e.version"""
_MARKS = "SELECT channel, read_to FROM chat_marks WHERE season_id = $1 AND seat = $2"
_MARK = """
INSERT INTO chat_marks (season_id, seat, channel, read_to) VALUES ($1, $2, $3, $4)
ON CONFLICT (season_id, seat, channel)
DO UPDATE SET read_to = greatest(chat_marks.read_to, excluded.read_to)
RETURNING read_to"""


async def import_chat(
    conn: asyncpg.Connection, season_id: str, records: Sequence[ChatRecord], at: datetime
) -> None:
    """An exported chat stream into an audit copy, inside the import's transaction (ADR-106):
    the same ids, types, data and texts, so the same hashes (ChainError before a write if a
    recomputed hash is not the record's); an erased or hidden text the file withheld is NULL."""
    if not records:
        return
    new = [
        ChatNew(event_id=r.event_id, type=r.type, data=r.data, seat=r.seat, text=r.text)
        for r in records
    ]
    chained = _chained(season_id, 0, GENESIS, new, at)
    for want, got in zip(records, chained, strict=True):
        if want.hash != got.hash:
            raise ChainError(season_id, want.version, "chat chain: hash differs")
    await conn.execute(_APPEND, season_id, at, *_columns(chained))  # as an append writes them


# an append waiting for its statement: its events, its caller's future, and for a strict one
# the epoch it was decided in (ADR-126)
Waiting = list[tuple[Sequence[ChatNew], "asyncio.Future[list[ChatRecord]]", int | None]]


class PostgresChatLog:
    """Rows of `chat_events`, `chat_texts` and `chat_marks` (migration 0012).

    A season's chat appends go out one statement at a time per process (ADR-107): the appends
    that arrive while one is in flight wait in this process, not on pooled connections, and go
    together in the next statement (one checkout, one round trip, one commit for all). A
    flood of one season's chat so holds at most one connection of the pool the season's
    commands need, whatever the number of senders.

    A strict append (ADR-126, `seen`) was decided on this process's fold of the chat without a
    read, the fold being at `head_seen`, the end of this process's last append: it is written
    only if no append of this process was overtaken by another process's since (the epoch:
    a statement at the end this process last saw is refused by the primary key when another
    process wrote there), else it fails with ChatMoved, nothing of it written, and the rest
    of its statement goes at the new end as before.
    """

    def __init__(self, pool: asyncpg.Pool, *, clock: Clock) -> None:
        self._pool = pool
        self._clock = clock
        self._waiting: dict[str, Waiting] = {}
        self._writers: dict[str, asyncio.Task[None]] = {}
        self._heads: dict[str, tuple[int, bytes]] = {}  # each season's last append seen here
        self._epochs: dict[str, int] = {}  # each season's appends overtaken here (Seen.epoch)
        self.statements = 0  # chat append statements sent (group commit's figure, for tests)

    async def append(
        self, season_id: str, events: Sequence[ChatNew], *, seen: Seen | None = None
    ) -> list[ChatRecord]:
        """The events appended at the end of the season's chat stream, in one statement
        with whatever else this process appends to it meanwhile. A caller cancelled before its
        events were written has them dropped; after, they stay appended. `seen` (the
        `head_seen` its caller decided at): only if no other process appended past it since
        (else ChatMoved, nothing written)."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[list[ChatRecord]] = loop.create_future()
        epoch = seen.epoch if seen is not None else None
        self._waiting.setdefault(season_id, []).append((events, future, epoch))
        if season_id not in self._writers:
            self._writers[season_id] = loop.create_task(self._drain(season_id))
        return await future

    async def _drain(self, season_id: str) -> None:
        """Write what waits for `season_id`, a transaction at a time, until nothing does."""
        try:
            while batch := [w for w in self._waiting.pop(season_id, []) if not w[1].done()]:
                try:
                    kept, written = await self._write(season_id, batch)
                except BaseException as exc:
                    for _events, future, _epoch in batch:
                        if not future.done():
                            future.set_exception(
                                as_busy(exc) if is_busy(exc) else _one_for_each(exc)
                            )
                    if not isinstance(exc, Exception):
                        raise
                    continue
                _answer(season_id, batch, kept, written)
        finally:
            del self._writers[season_id]
            for _events, future, _epoch in self._waiting.pop(season_id, []):  # cancelled
                if not future.done():
                    future.set_exception(_one_for_each(asyncio.CancelledError()))

    async def _write(self, season_id: str, batch: Waiting) -> tuple[Waiting, list[ChatRecord]]:
        """One statement (with an erase: one transaction) at the end of the chat stream as this
        process last saw it; another process's append there first (the primary key refuses
        the version): the strict appends left out (ChatMoved), the head read again, the
        chain made again, once more. The appends written and their records, in order."""
        at = utc(self._clock())
        for _ in range(ATTEMPTS):
            epoch = self._epochs.get(season_id, 0)  # a strict append decided in another: out
            batch = [w for w in batch if w[2] is None or w[2] == epoch]
            events = [e for es, _, _ in batch for e in es]
            if not events:
                return batch, []
            erased = [(season_id, v, at) for e in events for v in e.erases]
            self.statements += 1
            keys = keys_of(events)
            async with Checkout(self._pool) as conn:
                head = self._heads.get(season_id) or await self._head(conn, season_id)
                new = _chained(season_id, *head, events, at)
                try:
                    async with conn.transaction() if erased else contextlib.nullcontext():
                        keyed = key_columns(events, new) if keys else ()
                        sql = _APPEND_KEYED if keys else _APPEND
                        await conn.execute(sql, season_id, at, *_columns(new), *keyed)
                        if erased:
                            await conn.executemany(_ERASE, erased)
                except asyncpg.UniqueViolationError as exc:
                    if exc.constraint_name == KEY_TAKEN:  # nothing written: the copies out
                        batch = await taken_out(conn, batch)
                        continue
                    self._overtaken(season_id)
                    if exc.constraint_name not in _TAKEN:
                        raise
                    continue
            self._heads[season_id] = (new[-1].version, new[-1].hash)
            return batch, new
        raise StoreBusyError(f"chat {season_id}: {ATTEMPTS} appends overtaken by others")

    def _overtaken(self, season_id: str) -> None:
        """The end this process saw is not the end: read it again; a new epoch."""
        self._heads.pop(season_id, None)
        self._epochs[season_id] = self._epochs.get(season_id, 0) + 1

    def head_seen(self, season_id: str) -> Seen | None:
        """The end of the season's chat as this process's last append left it, with its epoch
        (None: not known since an append was overtaken, or yet): a fold at this version may
        decide a strict append."""
        head = self._heads.get(season_id)
        return Seen(head[0], self._epochs.get(season_id, 0)) if head is not None else None

    @staticmethod
    async def _head(conn: asyncpg.Connection, season_id: str) -> tuple[int, bytes]:
        head = await conn.fetchrow(_HEAD, season_id)
        return (head["version"], bytes(head["hash"])) if head else (0, GENESIS)

    async def read(self, season_id: str, after: int = 0) -> list[ChatRecord]:
        async with Checkout(self._pool) as conn:
            rows = await conn.fetch(_READ, season_id, after)
        return [
            ChatRecord(
                season_id=season_id,
                version=r["version"],
                event_id=r["event_id"],
                type=r["type"],
                data=bytes(r["data"]),
                seat=r["seat"],
                recorded_at=utc(r["recorded_at"]),
                prev_hash=bytes(r["prev_hash"]),
                hash=bytes(r["hash"]),
                text=r["text"],
            )
            for r in rows
        ]

    async def marks(self, season_id: str, seat: int) -> dict[str, int]:
        async with Checkout(self._pool) as conn:
            rows = await conn.fetch(_MARKS, season_id, seat)
        return {r["channel"]: r["read_to"] for r in rows}

    async def mark(self, season_id: str, seat: int, channel: str, version: int) -> int:
        async with Checkout(self._pool) as conn:
            return int(await conn.fetchval(_MARK, season_id, seat, channel, version))


def _answer(season_id: str, batch: Waiting, kept: Waiting, written: list[ChatRecord]) -> None:
    """Each append of a statement its records; a strict one left out of it ChatMoved."""
    for events, future, _epoch in kept:
        mine, written = written[: len(events)], written[len(events) :]
        if not future.done():
            future.set_result(mine)
    for _events, future, _epoch in batch:
        if not future.done():  # left out: another process moved the end
            future.set_exception(ChatMoved(season_id))


def _columns(new: Sequence[ChatRecord]) -> tuple[list[Any], ...]:
    """_APPEND's array parameters $3 … $11 for the records `new`."""
    texts = [r for r in new if r.text is not None]
    return (
        [r.version for r in new],
        [r.event_id for r in new],
        [r.type for r in new],
        [r.data for r in new],
        [r.seat for r in new],
        [r.prev_hash for r in new],
        [r.hash for r in new],
        [r.version for r in texts],
        [r.text for r in texts],
    )


def _one_for_each(exc: BaseException) -> Exception:
    """What each caller of a failed chat transaction hears (a cancellation: busy)."""
    if isinstance(exc, Exception):
        return exc
    return StoreBusyError("the chat transaction was cancelled")
