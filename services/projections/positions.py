"""Where each season's read model stands against its stream: the sweep's and the metrics' read.

`positions` reads every season's; `Positions` reads, after its first read, only the seasons
appended to since its previous read and those it is told to look at again (ADR-147), so a
periodic reader's cost follows what moved, not every season ever made.
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Iterable

import redis.asyncio as aioredis

from services.projections.keys import Keys, sweep_mark
from services.projections.reads import active_gens
from services.projections.release import released_versions
from shared.eventstore import EventStore

# A periodic reader reads every season's position on every this many reads (ADR-147): a belt
# to the incremental reads' braces, at the sweep's 2 s once every two minutes.
FULL_SWEEP = 60
# A reader's mark outlives it by this much (each full read sets it again): a process that
# stopped leaves one small key for a day.
MARK_TTL_MS = 86_400_000
Found = dict[str, tuple[int, int | None]]  # season -> (stream version, checkpoint or None)


async def positions(
    store: EventStore,
    redis: aioredis.Redis,
    prefix: str,
    versions: dict[str, int] | None = None,
) -> Found:
    """Every season's (or those of `versions`') stream version and projected checkpoint (None:
    not projected), in season order: one PostgreSQL query and three Redis round trips however
    many seasons. A released season (ADR-158) is left out unless its stream moved past the
    version it was released at: nothing trails it, and no sweep rebuilds it."""
    if versions is None:  # every season: every released one
        versions = await store.stream_versions()
        released = await released_versions(redis, prefix)
    else:  # those named only (an incremental read: the seasons that moved)
        released = await released_versions(redis, prefix, list(versions))
    seasons = sorted(s for s, v in versions.items() if v > released.get(s, -1))
    gens = await active_gens(redis, prefix, seasons)
    pipe = redis.pipeline(transaction=False)
    for season_id, gen in zip(seasons, gens, strict=True):
        if gen is not None:
            pipe.get(Keys(prefix, season_id, gen).checkpoint)
    checkpoints = iter(await pipe.execute())
    return {
        season_id: (versions[season_id], _int(next(checkpoints)) if gen is not None else None)
        for season_id, gen in zip(seasons, gens, strict=True)
    }


class Positions:
    """A periodic reader's positions (the worker's sweep, the metrics' scrape; ADR-147).

    A read answers the seasons with events since the previous read and those of `again` (the
    caller's: the seasons behind at its previous read): a season caught up then and without an
    event since is caught up now. Every season: the first read, every `FULL_SWEEP`-th, after a
    Redis wipe (no `sweep_mark`: a full read sets its reader's own before it reads, so no
    other reader's full read can hide a wipe from it) and when the log no longer has the
    event at the previous read's place (a truncated or restored log).
    """

    def __init__(self, store: EventStore, redis: aioredis.Redis, prefix: str) -> None:
        self.store, self.redis, self.prefix = store, redis, prefix
        self._mark = sweep_mark(prefix, secrets.token_hex(8))
        self._reads = 0  # since the last full read
        self._after: int | None = None  # where in the log the previous read read to
        self.full = True  # whether the last read was of every season

    async def read(self, again: Iterable[str]) -> Found:
        if (
            self._after is not None
            and self._reads % FULL_SWEEP
            and await self.redis.exists(self._mark)
        ):
            with contextlib.suppress(ValueError):  # a truncated log: every season
                head, versions = await self.store.changed_streams(self._after, list(again))
                self._reads, self._after, self.full = self._reads + 1, head, False
                return await positions(self.store, self.redis, self.prefix, versions)
        await self.redis.set(self._mark, "1", px=MARK_TTL_MS)  # before the read: a wipe after
        head = await self.store.head_position()  # it takes the mark: the next read is full
        found = await positions(self.store, self.redis, self.prefix)
        self._reads, self._after, self.full = 1, head, True
        return found


def _int(raw: bytes | None) -> int | None:
    return None if raw is None else int(raw)
