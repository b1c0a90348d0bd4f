"""The chat log on PostgreSQL (issue 24, ADR-91, ADR-92): its own versions and chain per
season, texts beside the hashed data, erasure that leaves the chain whole, durable markers."""

from __future__ import annotations

import asyncio
import itertools
import uuid

import asyncpg
import msgspec
import pytest

from shared.domain import chat_events as ce
from shared.domain.chat import text_digest
from shared.eventstore import PoolSettings, PostgresEventStore, create_pool
from shared.eventstore.chat_keys import ChatKey
from shared.eventstore.chat_log import ChatMoved, ChatNew, PostgresChatLog, verify_chat
from shared.eventstore.errors import ChainError, IdempotencyKeyTaken
from shared.eventstore.taken_keys import Replay
from tests.clock import StepClock
from tests.integration.support import wait_until

_IDS = itertools.count(1)


def new_id() -> uuid.UUID:
    return uuid.UUID(int=next(_IDS))


def sent(text: str, seat: int = 1) -> ChatNew:
    event = ce.MessageSent(
        at="2026-12-01T12:00:00+03:00", channel="all", seat=seat, digest=text_digest(text)
    )
    return ChatNew(
        event_id=new_id(),
        type=ce.tag_of(event),
        data=ce.encode_chat(event),
        seat=seat,
        text=text,
    )


async def test_the_chat_stream_chains_and_an_erased_text_leaves_it_whole(
    event_store: PostgresEventStore,
) -> None:
    chat = event_store.chat
    await chat.append("s1", [sent("one"), sent("two")])
    await chat.append("s2", [sent("other season")])
    assert [r.version for r in await chat.read("s1")] == [1, 2]
    assert [r.version for r in await chat.read("s2")] == [1]
    erase = ce.TextErased(at="2026-12-01T12:01:00+03:00", message=1, reason="R-15.2", by="ops")
    await chat.append(
        "s1",
        [
            ChatNew(
                event_id=new_id(),
                type=ce.tag_of(erase),
                data=ce.encode_chat(erase),
                erases=(1,),
            )
        ],
    )
    records = await chat.read("s1")
    assert [r.text for r in records] == [None, "two", None]
    verify_chat(records)
    assert [r.version for r in await chat.read("s1", 2)] == [3]
    assert await event_store.stream_version("s1") == 0  # the season's own stream is untouched


async def test_a_changed_chat_event_fails_verification(event_store: PostgresEventStore) -> None:
    await event_store.chat.append("s1", [sent("one"), sent("two")])
    async with event_store._pool.acquire() as conn:
        await conn.execute("UPDATE chat_events SET data = '{}' WHERE version = 1")
    with pytest.raises(ChainError):
        verify_chat(await event_store.chat.read("s1"))


async def test_read_markers_are_durable_and_only_move_forward(
    event_store: PostgresEventStore,
) -> None:
    """Issue 24: a bey's last-read marker lives in PostgreSQL (a flushed Redis loses none)."""
    chat = event_store.chat
    assert await chat.mark("s1", 2, "all", 5) == 5
    assert await chat.mark("s1", 2, "all", 3) == 5
    assert await chat.marks("s1", 2) == {"all": 5}
    assert await chat.marks("s1", 3) == {}


async def test_seksenbir_verify_covers_the_seasons_chat_chain(
    migrated_pg_dsn: str, event_store: PostgresEventStore
) -> None:
    """ADR-94: `seksenbir verify SEASON` checks the season's chat chain too: a changed chat
    event fails it (exit 1), as a changed season event does."""
    from shared.app.repository.seasons import Seasons
    from shared.domain.simulate import start
    from shared.eventstore import EventMetadata
    from tests.integration.test_verify_cli import verify

    _state, events = start(7, season_id="chatty")
    await Seasons(event_store).append("chatty", 0, "setup", events, EventMetadata(actor="system"))
    await event_store.chat.append("chatty", [sent("one"), sent("two")])
    code, verdict = verify(migrated_pg_dsn, "chatty")
    assert code == 0, verdict
    async with event_store._pool.acquire() as conn:
        await conn.execute("UPDATE chat_events SET data = '{}' WHERE version = 2")
    code, verdict = verify(migrated_pg_dsn, "chatty")
    assert code == 1 and verdict["chat"].startswith("broken: chat version 2: "), verdict
    bad = verdict["first_bad_event"]
    assert bad["stream"] == "chat" and bad["version"] == 2, verdict


async def test_a_flood_of_one_seasons_chat_holds_one_pooled_connection(
    migrated_pg_dsn: str, pg_pool: asyncpg.Pool, clock: StepClock
) -> None:
    """Issue 24 (ADR-107): however many senders, one season's chat appends wait in the process,
    not on pooled connections blocked in PostgreSQL; the season's commands still find a
    connection, and what waited goes out together in one statement, in order, after the
    append that held the version (another process's) is given up."""
    pool = await create_pool(migrated_pg_dsn, PoolSettings(min_size=1, max_size=2))
    chat = PostgresChatLog(pool, clock=clock)
    holder = await asyncpg.connect(migrated_pg_dsn)
    try:
        other = holder.transaction()  # another process's append of version 1, not committed
        await other.start()
        await holder.execute(_HOLD, b"\0" * 32)
        sends = [asyncio.create_task(chat.append("s1", [sent(f"m{i}")])) for i in range(6)]

        async def waiting() -> bool:
            return bool(await pg_pool.fetchval(_LOCK_WAITERS))

        await wait_until(waiting)
        async with asyncio.timeout(10):  # without a free connection this never answers
            assert await PostgresEventStore(pool, clock=clock).stream_version("s2") == 0
        assert await pg_pool.fetchval(_LOCK_WAITERS) == 1
        await other.rollback()
        done = await asyncio.gather(*sends)
    finally:
        await holder.close()
        await pool.close()
    assert [r.version for (r,) in done] == [1, 2, 3, 4, 5, 6]
    stored = await PostgresChatLog(pg_pool, clock=clock).read("s1")
    assert [r.text for r in stored] == [f"m{i}" for i in range(6)]
    verify_chat(stored)
    assert chat.statements == 1  # all six waited together behind the version's holder


async def test_an_append_overtaken_by_another_process_goes_after_it(
    event_store: PostgresEventStore, pg_pool: asyncpg.Pool, clock: StepClock
) -> None:
    """ADR-107: two processes' chat logs on one season: each appends at the end it last saw;
    one overtaken (its version taken) reads the head again and goes after; the chain holds."""
    one, two = event_store.chat, PostgresChatLog(pg_pool, clock=clock)
    await one.append("s1", [sent("a")])
    await two.append("s1", [sent("b")])  # `two` reads the head: version 2
    await one.append("s1", [sent("c")])  # `one` thinks 1 is the end: refused, then 3
    await two.append("s1", [sent("d")])  # `two` thinks 2 is the end: refused, then 4
    stored = await one.read("s1")
    assert [(r.version, r.text) for r in stored] == [(1, "a"), (2, "b"), (3, "c"), (4, "d")]
    verify_chat(stored)


async def test_a_strict_append_is_refused_when_another_process_appended_since(
    event_store: PostgresEventStore, pg_pool: asyncpg.Pool, clock: StepClock
) -> None:
    """ADR-126: an append decided on this process's fold without a read (`seen`: the end its
    last append left) is written while no other process appended past that end; once one
    did, it is refused (ChatMoved), nothing of it written, and an ordinary append beside it
    in the same statement still goes after the other process's; then the end is read again."""
    one, two = event_store.chat, PostgresChatLog(pg_pool, clock=clock)
    assert one.head_seen("s1") is None  # nothing appended here yet: its callers read
    await one.append("s1", [sent("a")])
    seen = one.head_seen("s1")
    assert seen is not None and seen.version == 1
    (b,) = await one.append("s1", [sent("b")], seen=seen)  # nobody else: written
    assert b.version == 2
    seen = one.head_seen("s1")
    assert seen is not None and seen.version == 2
    await two.append("s1", [sent("c")])  # another process: version 3
    strict = asyncio.create_task(one.append("s1", [sent("x")], seen=seen))
    plain = asyncio.create_task(one.append("s1", [sent("d")]))
    with pytest.raises(ChatMoved):
        await strict
    assert [r.version for r in await plain] == [4]
    stored = await one.read("s1")
    assert [(r.version, r.text) for r in stored] == [(1, "a"), (2, "b"), (3, "c"), (4, "d")]
    verify_chat(stored)
    again = one.head_seen("s1")
    assert again is not None and again.version == 4 and again.epoch == seen.epoch + 1
    with pytest.raises(ChatMoved):  # decided before the overtaking: refused however late
        await one.append("s1", [sent("y")], seen=seen)
    assert [r.version for r in await one.append("s1", [sent("e")], seen=again)] == [5]


_HOLD = """
INSERT INTO chat_events (season_id, version, event_id, type, data, seat, recorded_at,
                         prev_hash, hash)
VALUES ('s1', 1, gen_random_uuid(), 'message_sent.v1', '{}', 1, now(), $1, $1)"""
_LOCK_WAITERS = """
SELECT count(*) FROM pg_stat_activity
WHERE datname = current_database() AND wait_event_type = 'Lock'"""


async def test_a_keyed_message_is_written_with_its_key_or_not_at_all(
    event_store: PostgresEventStore, pg_pool: asyncpg.Pool, clock: StepClock
) -> None:
    """ADR-175: a keyed message's Idempotency-Key is recorded in the statement that appends
    it, its answer made at the version given; a copy in another process (its own chat log,
    no in-flight guard between them) is refused with what the key holds and writes nothing,
    and the unkeyed message in the same statement is written all the same."""
    one, two = event_store.chat, PostgresChatLog(pg_pool, clock=clock)

    def keyed(text: str) -> ChatNew:
        key = ChatKey("s1:1", "k", b"h" * 32, 201, lambda v: b'{"message_id":%d}' % v)
        return msgspec.structs.replace(sent(text), key=key)

    await one.append("s1", [sent("a")])
    (first,) = await one.append("s1", [keyed("once")])
    assert first.version == 2
    assert await event_store.idempotency.look("s1:1", "k", b"h" * 32) == Replay(
        201, b'{"message_id":2}'
    )
    copy, other = await asyncio.gather(
        two.append("s1", [keyed("once")]), two.append("s1", [sent("b")]), return_exceptions=True
    )
    assert isinstance(copy, IdempotencyKeyTaken), copy
    assert copy.found == Replay(201, b'{"message_id":2}')
    assert isinstance(other, list), other
    stored = await one.read("s1")
    assert [r.text for r in stored] == ["a", "once", "b"]
    verify_chat(stored)
