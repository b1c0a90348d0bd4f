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
            meta = {k.decode(): decode(v) for k, v in meta_raw.items()}
            return meta, rest
    raise NotReady(season_id)


async def read_metas(
    redis: aioredis.Redis, prefix: str, season_ids: list[str]
) -> dict[str, dict[str, Any] | None]:
    """Many seasons' meta in two round trips (the active generations, then the metas); a
    season whose generation switched in between is read again alone. None: not ready."""
    if not season_ids:
        return {}
    gens = await redis.mget([Keys.active(prefix, s) for s in season_ids])
    pipe = redis.pipeline(transaction=False)
    ready = [(s, int(g)) for s, g in zip(season_ids, gens, strict=True) if g is not None]
    for season_id, gen in ready:
        pipe.hgetall(Keys(prefix, season_id, gen).meta)
    found: dict[str, dict[str, Any] | None] = dict.fromkeys(season_ids)
    for (season_id, _gen), raw in zip(ready, await pipe.execute(), strict=True):
        if raw:
            found[season_id] = {k.decode(): decode(v) for k, v in raw.items()}
        else:  # switched meanwhile: the one-season read retries on the new generation
            with contextlib.suppress(NotReady):
                found[season_id] = (await read(redis, prefix, season_id, lambda k, p: None))[0]
    return found
