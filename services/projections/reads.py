"""Consistent reads of one season's projection: the active generation, read in one round trip."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

import msgspec
import redis.asyncio as aioredis

from services.projections.keys import Keys


class NotReady(Exception):
    """The projection is missing or being rebuilt (HTTP 503 with Retry-After)."""


_dec = msgspec.json.Decoder()


def decode(raw: bytes | None) -> Any:
    return None if raw is None else _dec.decode(raw)


async def read(
    redis: aioredis.Redis, prefix: str, season_id: str, fetch: Callable[[Keys, Any], None]
) -> tuple[dict[str, Any], list[Any]]:
    """Run `fetch(keys, pipeline)` on the active generation with its meta; retry once on a switch.

    Answers (meta, results of the fetches). Raises NotReady when no generation is complete.
    """
    for _attempt in range(2):
        raw = await redis.get(Keys.active(prefix, season_id))
        if raw is None:
            raise NotReady(season_id)
        keys = Keys(prefix, season_id, int(raw))
        pipe = redis.pipeline(transaction=True)
        pipe.hgetall(keys.meta)
        fetch(keys, pipe)
        meta_raw, *rest = await pipe.execute()
        if meta_raw:
            return _meta(meta_raw), rest
    raise NotReady(season_id)


async def active_gens(
    redis: aioredis.Redis, prefix: str, season_ids: list[str]
) -> list[int | None]:
    """Each season's active generation (None: no complete one), in one pipelined round trip
    (GETs, not MGET: each season's keys sit on a Redis Cluster slot of their own)."""
    pipe = redis.pipeline(transaction=False)
    for season_id in season_ids:
        pipe.get(Keys.active(prefix, season_id))
    return [None if raw is None else int(raw) for raw in await pipe.execute()]


async def read_metas(
    redis: aioredis.Redis, prefix: str, season_ids: list[str]
) -> dict[str, dict[str, Any] | None]:
    """Many seasons' meta in two round trips (the active generations, then the metas); a
    season whose generation switched in between is read again alone. None: not ready."""
    if not season_ids:
        return {}
    gens = await active_gens(redis, prefix, season_ids)
    ready = [(s, g) for s, g in zip(season_ids, gens, strict=True) if g is not None]
    pipe = redis.pipeline(transaction=False)
    for season_id, gen in ready:
        pipe.hgetall(Keys(prefix, season_id, gen).meta)
    found: dict[str, dict[str, Any] | None] = dict.fromkeys(season_ids)
    for (season_id, _gen), raw in zip(ready, await pipe.execute(), strict=True):
        if raw:
            found[season_id] = _meta(raw)
        else:  # switched meanwhile: the one-season read retries on the new generation
            with contextlib.suppress(NotReady):
                found[season_id] = (await read(redis, prefix, season_id, lambda k, p: None))[0]
    return found


def _meta(raw: dict[bytes, bytes]) -> dict[str, Any]:
    return {k.decode(): decode(v) for k, v in raw.items()}
