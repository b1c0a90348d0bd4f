"""The session's service fixtures give a private PostgreSQL database and a private Redis db."""

from __future__ import annotations

from urllib.parse import urlsplit

import asyncpg
import pytest
import redis.asyncio as aioredis

pytestmark = pytest.mark.integration


async def test_the_session_database_is_its_own(pg_dsn: str):
    conn = await asyncpg.connect(pg_dsn)
    try:
        name = await conn.fetchval("SELECT current_database()")
    finally:
        await conn.close()
    assert name.startswith("seksenbir_test_")
    assert urlsplit(pg_dsn).path == "/" + name


async def test_redis_answers_on_the_sessions_db(redis_url: str, redis_key_prefix: str):
    client = aioredis.from_url(redis_url)
    try:
        await client.set(redis_key_prefix + "probe", "1", ex=60)
        assert await client.get(redis_key_prefix + "probe") == b"1"
    finally:
        await client.aclose()
