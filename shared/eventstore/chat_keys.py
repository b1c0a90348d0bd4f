"""A chat message's Idempotency-Key, written in the chat log's statement (ADR-175): never the
message without its key, nor the key without its message."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

import asyncpg

from shared.eventstore.errors import IdempotencyKeyTaken
from shared.eventstore.idempotency import look_in

KEY_TAKEN = "idempotency_keys_pkey"  # a key another process's copy recorded first
W = TypeVar("W", bound=tuple[Any, ...])


class Keyed(Protocol):  # a chat event to append (chat_log.ChatNew)
    @property
    def key(self) -> ChatKey | None: ...


class Versioned(Protocol):  # a chat event appended (chat_log.ChatRecord)
    @property
    def version(self) -> int: ...


@dataclass(frozen=True, slots=True)
class ChatKey:
    """An Idempotency-Key recorded with a chat event, in the statement that appends it (ADR-175):
    never the message without its key, nor the key without its message. Its answer is made
    from the version the event is given (`answer(version)`: the response body)."""

    scope: str
    key: str
    request_hash: bytes
    status: int
    answer: Callable[[int], bytes]


def keyed_sql(append: str) -> str:
    """The chat log's append statement that also records its keyed events' keys ($12 … $16)."""
    return append.replace(
        "\nINSERT INTO chat_texts",
        """, k AS (
    INSERT INTO idempotency_keys (scope, key, request_hash, status, response_status,
                                  response_body, created_at, completed_at)
    SELECT k.scope, k.key, k.request_hash, 'done', k.status, k.body, $2, $2
    FROM unnest($12::text[], $13::text[], $14::bytea[], $15::integer[], $16::bytea[])
        AS k(scope, key, request_hash, status, body)
)
INSERT INTO chat_texts""",
    )


def keys_of(events: Sequence[Keyed]) -> list[ChatKey]:
    return [e.key for e in events if e.key is not None]


def key_columns(events: Sequence[Keyed], new: Sequence[Versioned]) -> tuple[list[Any], ...]:
    """_APPEND_KEYED's parameters $12 … $16: each keyed event's key, with its answer at the
    version the event is given."""
    keyed = [(e.key, r.version) for e, r in zip(events, new, strict=True) if e.key is not None]
    return (
        [k.scope for k, _ in keyed],
        [k.key for k, _ in keyed],
        [k.request_hash for k, _ in keyed],
        [k.status for k, _ in keyed],
        [k.answer(v) for k, v in keyed],
    )


async def taken_out(conn: asyncpg.Connection, batch: list[W]) -> list[W]:
    """The batch without its appends whose key another process recorded first (a copy of the
    request): each of those fails with IdempotencyKeyTaken, what the key holds."""
    kept: list[W] = []
    for waiting in batch:
        events, future, _epoch = waiting
        taken = None
        for k in keys_of(events):
            found = await look_in(conn, k.scope, k.key, k.request_hash)
            if found is not None:
                taken = IdempotencyKeyTaken(k.scope, k.key, found)
        if taken is None:
            kept.append(waiting)
        elif not future.done():
            future.set_exception(taken)
    return kept
