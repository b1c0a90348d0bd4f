"""ADR-126: a chat send is decided on the process's fold without a chat read while that fold is
at the end the process's last append left, and decided again after a read when another process
appended since: the per-minute limit (R-15.2) still counts a bey's messages sent through every
process, and nothing is appended twice or out of order."""

from __future__ import annotations

from typing import Any

import asyncpg
import pytest
import redis.asyncio as aioredis

from shared.domain import chat
from shared.eventstore import PostgresEventStore
from shared.eventstore.chat_log import verify_chat
from tests.http.support import Api, api_clock
from tests.http.test_live_seasons import create_live, joined
from tests.projections.sse import served
from tests.projections.support import Gateway


async def test_a_send_reads_no_chat_while_its_fold_is_current_and_decides_again_when_not(
    pg_pool: asyncpg.Pool, redis: aioredis.Redis, prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = api_clock()
    here, there = PostgresEventStore(pg_pool, clock=clock), PostgresEventStore(pg_pool, clock=clock)
    monkeypatch.setattr(chat, "PER_MINUTE", 2)
    reads = 0
    read = here.chat.read

    async def counted(*args: Any) -> Any:
        nonlocal reads
        reads += 1
        return await read(*args)

    monkeypatch.setattr(here.chat, "read", counted)
    async with (
        served(Gateway(here, redis, prefix, clock)) as one,
        served(Gateway(there, redis, prefix, clock)) as two,
    ):
        api = Api(client=one, store=here, clock=clock)
        sid = (await create_live(api))["season_id"]
        a, b = [await joined(api, sid, p) for p in (6, 34)]

        async def send(client: Any, bey: Any, text: str) -> Any:
            return await client.post(
                bey.url("/messages"), json={"to": "all", "text": text}, headers=bey.auth()
            )

        assert (await send(one, a, "bir")).status_code == 201  # nothing appended here: a read
        before = reads
        assert (await send(one, b, "iki")).status_code == 201
        assert reads == before  # the fold is at this process's last append: no read
        assert (await send(two, a, "üç")).status_code == 201  # a's second, elsewhere
        r = await send(one, a, "dört")  # decided on the fold, refused at the append, again
        assert r.status_code == 429, r.text  # … after a read that counts a's second
        assert reads > before
        assert (await send(one, b, "beş")).status_code == 201
    stored = await here.chat.read(sid)
    assert [r.text for r in stored] == ["bir", "iki", "üç", "beş"]
    verify_chat(stored)
