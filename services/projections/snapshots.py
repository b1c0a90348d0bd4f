"""A season's views as the sink left them, read back from Redis: the cold start of a projector
that holds no fold of the season (ADR-112).

The sink writes every view with the checkpoint in one atomic step (sink.py), so the views at
the checkpoint are exactly those `views.all_views` derives from the state at that version:
reading them back is the snapshot the next batch diffs against, at one pipelined round trip
instead of deriving every view of the season a second time (about a third of a cold catch-up's
CPU; at a surge, with several projections processes, half the seasons start cold).
"""

from __future__ import annotations

import redis.asyncio as aioredis

from services.projections.keys import VIEW_NAMES, Keys
from services.projections.reducers import Snapshot
from shared.domain.state import SeasonState


def view_names(state: SeasonState) -> list[str]:
    """The hash views `views.all_views` derives for `state` (the private ones by seat)."""
    return [*sorted(VIEW_NAMES), *(f"private:{b.seat}" for b in state.beys)]


async def stored_snapshot(redis: aioredis.Redis, keys: Keys, state: SeasonState) -> Snapshot:
    """The views and leaderboard scores of generation `keys` as stored, for `state` (the fold
    at the generation's checkpoint)."""
    names = view_names(state)
    pipe = redis.pipeline(transaction=False)
    for name in names:
        pipe.hgetall(keys.any_view(name))
    pipe.zrange(keys.leaderboard, 0, -1, withscores=True)
    *hashes, board = await pipe.execute()
    views = {
        name: {f.decode(): v for f, v in fields.items()}
        for name, fields in zip(names, hashes, strict=True)
        if fields
    }
    return Snapshot(views, {m.decode(): float(score) for m, score in board})
