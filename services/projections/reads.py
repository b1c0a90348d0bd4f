"""Consistent reads of one season's projection: the active generation, read in one round trip."""

from __future__ import annotations

import contextlib
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import msgspec
import redis.asyncio as aioredis

from services.projections.keys import Keys


class NotReady(Exception):
    """The projection is missing or being rebuilt (HTTP 503 with Retry-After)."""


_dec = msgspec.json.Decoder()
# A read notes the season's `seen` at most this often per API process (a command in the read's
# own transaction: no round trip more); the release pass's period is days (ADR-158).
NOTE_EVERY_S = 60.0


def decode(raw: bytes | None) -> Any:
    return None if raw is None else _dec.decode(raw)


class ActiveGens:
    """The active generation this process last read of each season (at most `size`, the most
    recently read kept): a read of a known season asks for it inside its own transaction and
    checks it there, one round trip instead of two in series (issue 27, ADR-125)."""

    def __init__(self, size: int = 10_000) -> None:
        self._size = size
        self._gens: OrderedDict[tuple[str, str], int] = OrderedDict()
        self._noted: OrderedDict[tuple[str, str], float] = OrderedDict()

    def note_due(self, prefix: str, season_id: str, now: float) -> bool:
        """Whether a read of the season at `now` notes itself (`Keys.seen`, the release pass's
        clock, ADR-158): at most once every NOTE_EVERY_S per season and process."""
        last = self._noted.get((prefix, season_id))
        if last is not None and now - last < NOTE_EVERY_S:
            return False
        self._noted[(prefix, season_id)] = now
        self._noted.move_to_end((prefix, season_id))
        if len(self._noted) > self._size:
            self._noted.popitem(last=False)
        return True

    def get(self, prefix: str, season_id: str) -> int | None:
        return self._gens.get((prefix, season_id))

    def remember(self, prefix: str, season_id: str, gen: int) -> None:
        self._gens[(prefix, season_id)] = gen
        self._gens.move_to_end((prefix, season_id))
        if len(self._gens) > self._size:
            self._gens.popitem(last=False)

    def forget(self, prefix: str, season_id: str) -> None:
        self._gens.pop((prefix, season_id), None)


async def read(
    redis: aioredis.Redis,
    prefix: str,
    season_id: str,
    fetch: Callable[[Keys, Any], None],
    gens: ActiveGens | None = None,
) -> tuple[dict[str, Any], list[Any]]:
    """Run `fetch(keys, pipeline)` on the active generation with its meta, in one transaction
    that reads the active generation too: what it read is that generation's whole. The
    generation comes from `gens` (one round trip) or a GET first (two); a switch meanwhile
    (a rebuild) reads the new one again.

    Answers (meta, results of the fetches). Raises NotReady when no generation is complete.
    """
    active = Keys.active(prefix, season_id)
    gen = gens.get(prefix, season_id) if gens is not None else None
    for _attempt in range(3):
        if gen is None:
            raw = await redis.get(active)
            if raw is None:
                break
            gen = int(raw)
        keys = Keys(prefix, season_id, gen)
        pipe = redis.pipeline(transaction=True)
        wall = time.time()
        noted = gens is not None and gens.note_due(prefix, season_id, wall)
        if noted:  # the release pass's clock (ADR-158), in the same round trip
            pipe.set(Keys.seen(prefix, season_id), str(int(wall)))
        pipe.get(active)
        pipe.hgetall(keys.meta)
        fetch(keys, pipe)
        now_raw, meta_raw, *rest = (await pipe.execute())[1 if noted else 0 :]
        if now_raw is None:
            break
        now = int(now_raw)
        if now == gen and meta_raw:
            if gens is not None:
                gens.remember(prefix, season_id, gen)
            return _meta(meta_raw), rest
        gen = now if now != gen else None  # switched: read the new one; else look again
    if gens is not None:
        gens.forget(prefix, season_id)
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
