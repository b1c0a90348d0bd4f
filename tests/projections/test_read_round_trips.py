"""Issue 27, ADR-125: a season read is one Redis round trip once the process knows the season's
active generation, and still reads one whole generation (R-14: a read says the version it
reflects, consistently)."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
import redis.asyncio as aioredis

from services.projections.keys import Keys
from services.projections.reads import ActiveGens, NotReady, read

SEASON = "trips"


class _Counting:
    """The client's round trips: a command alone, or a pipeline's execute."""

    def __init__(self, client: aioredis.Redis) -> None:
        self.client, self.trips = client, 0

    async def get(self, key: str) -> Any:
        self.trips += 1
        return await self.client.get(key)

    def pipeline(self, transaction: bool = True) -> Any:
        pipe = self.client.pipeline(transaction=transaction)
        run = pipe.execute

        async def execute() -> Any:
            self.trips += 1
            return await run()

        pipe.execute = execute  # type: ignore[method-assign]
        return pipe


async def _generation(redis: aioredis.Redis, prefix: str, gen: int, version: int) -> None:
    keys = Keys(prefix, SEASON, gen)
    enc = msgspec.json.encode
    await redis.hset(keys.meta, mapping={"version": enc(version), "gen": enc(gen)})
    await redis.hset(keys.map, mapping={"6": enc({"owner": gen})})
    await redis.set(Keys.active(prefix, SEASON), gen)


def _map(k: Keys, p: Any) -> None:
    p.hgetall(k.map)


async def test_adr_125_a_known_seasons_read_is_one_round_trip(
    redis: aioredis.Redis, prefix: str
) -> None:
    """ADR-125: the first read of a season asks for its generation, then reads (two round
    trips); the next ones read and check the generation in one transaction (one)."""
    await _generation(redis, prefix, 1, 7)
    client, gens = _Counting(redis), ActiveGens()
    meta, (provinces,) = await read(client, prefix, SEASON, _map, gens)  # type: ignore[arg-type]
    assert (meta["version"], client.trips) == (7, 2)
    meta, (again,) = await read(client, prefix, SEASON, _map, gens)  # type: ignore[arg-type]
    assert (meta["version"], again, client.trips) == (7, provinces, 3)


async def test_adr_125_a_switched_generation_is_read_whole(
    redis: aioredis.Redis, prefix: str
) -> None:
    """R-14: after a rebuild's switch the read answers the new generation, never the one the
    process remembered (nor a mix of the two)."""
    await _generation(redis, prefix, 1, 7)
    gens = ActiveGens()
    await read(redis, prefix, SEASON, _map, gens)
    await _generation(redis, prefix, 2, 9)  # the old generation's keys are still there
    meta, (provinces,) = await read(redis, prefix, SEASON, _map, gens)
    assert meta == {"version": 9, "gen": 2}
    assert provinces == {b"6": b'{"owner":2}'}
    assert gens.get(prefix, SEASON) == 2


async def test_adr_125_a_season_gone_from_redis_is_not_ready_and_forgotten(
    redis: aioredis.Redis, prefix: str
) -> None:
    """R-14 (RELIABILITY 22): a season whose active generation is gone (Redis flushed) is not
    ready, whatever the process remembered."""
    await _generation(redis, prefix, 1, 7)
    gens = ActiveGens()
    await read(redis, prefix, SEASON, _map, gens)
    await redis.delete(Keys.active(prefix, SEASON))
    with pytest.raises(NotReady):
        await read(redis, prefix, SEASON, _map, gens)
    assert gens.get(prefix, SEASON) is None


def test_adr_125_active_gens_keeps_the_most_recently_read() -> None:
    """ADR-125: the memory is bounded; the season read longest ago goes first."""
    gens = ActiveGens(size=2)
    gens.remember("p", "a", 1)
    gens.remember("p", "b", 1)
    gens.remember("p", "a", 2)
    gens.remember("p", "c", 1)
    assert (gens.get("p", "a"), gens.get("p", "b"), gens.get("p", "c")) == (2, None, 1)
