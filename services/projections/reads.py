"""Consistent reads of one season's projection: the active generation, read in one round trip."""

from __future__ import annotations

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
