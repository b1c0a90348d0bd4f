"""The projector's in-memory folds are bounded: a long-running worker does not grow with every
season it has ever projected (issue 14, the soak's memory; docs/benchmarks.md).

Each Projector keeps one cursor (the season's fold and its derived views, about 80 KiB for a
whole season) per season it projects, so its next batch needs only what is new. Before this
bound a worker kept one for every season it had ever seen: growth without bound over a soak
in which finished seasons are replaced by new ones. Now the least recently projected cursor
goes once `cursors` are held, and a season that is over goes at once; a season whose cursor
went is folded again from the store on its next batch, which stays rebuild-equal.
"""

from __future__ import annotations

import asyncio

import redis.asyncio as aioredis

from entrypoints import bootstrap
from services.command import bey_commands, season_commands
from services.command.service import Context, Services
from services.projections import projector as projector_module
from services.projections.projector import Cursors, Projector
from services.resolver.divan import resolve
from shared.app.access.request_auth import BeyClaim
from shared.app.repository.seasons import Seasons
from shared.domain.state import DIVANS
from shared.eventstore import InMemoryEventStore
from shared.settings import Settings
from tests.projections.support import (
    append_chunk,
    generation_dump,
    rebuilt_dump,
    season_chunks,
)

BOUND = 3


async def test_the_projector_keeps_at_most_its_bound_of_season_folds(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
):
    """Seven seasons projected Divan by Divan, round robin, by one projector bounded at three:
    it never holds more than three folds, and every season stays rebuild-equal, including
    the ones whose fold was dropped and refolded from the store (a cold start)."""
    projector = Projector(memory_store, redis, prefix, cursors=BOUND)
    seasons = {f"bounded-{n}": season_chunks(40 + n, f"bounded-{n}", divans=2) for n in range(7)}
    held = []
    for n in range(3):  # the setup, then Divans 1 and 2 of every season
        for season_id, chunks in seasons.items():
            await append_chunk(memory_store, season_id, next(chunks), f"chunk/{n}")
            await projector.catch_up(season_id)
            held.append(projector.cursors)
    assert max(held) == BOUND, held  # filled up to the bound, never past it
    for season_id in seasons:
        live = await generation_dump(redis, prefix, season_id)
        assert live == await rebuilt_dump(memory_store, redis, prefix, season_id), season_id


async def test_a_season_that_is_over_leaves_no_fold_behind(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
):
    """A whole season, to the Kurultay: once it is over the projector holds no fold of it."""
    assert projector_module.CURSORS >= 256  # the default leaves room for a busy server
    projector = Projector(memory_store, redis, prefix)
    season_id = "over"
    for n, chunk in enumerate(season_chunks(7, season_id)):
        await append_chunk(memory_store, season_id, chunk, f"chunk/{n}")
        await projector.catch_up(season_id)
        if n == 1:
            assert projector.cursors == 1  # under way: its fold is kept for the next batch
    assert projector.cursors == 0
    live = await generation_dump(redis, prefix, season_id)
    assert live == await rebuilt_dump(memory_store, redis, prefix, season_id)


async def test_the_seasons_cache_keeps_no_fold_of_a_season_that_is_over(
    memory_store: InMemoryEventStore,
):
    """The resolver's and the command API's fold cache (shared.app.repository.seasons, an LRU of
    CACHE_SEASONS): a season under way is kept, one that is over is dropped; loading it again
    folds it from the store, the same state."""
    seasons = Seasons(memory_store)
    season_id = "over-cache"
    chunks = list(season_chunks(7, season_id))
    for n, chunk in enumerate(chunks):
        await append_chunk(memory_store, season_id, chunk, f"chunk/{n}")
        loaded = await seasons.load(season_id)
        if n == 1:
            assert seasons.peek(season_id) is loaded  # under way: kept for the next command
    assert loaded.state.phase == "over"
    assert seasons.peek(season_id) is None
    assert await seasons.load(season_id) == loaded


async def test_the_resolver_keeps_no_fold_of_a_trial_season_after_its_last_divan(
    memory_store: InMemoryEventStore,
):
    """Issue 14: a trial season's Kurultay is held by its bey's vote in the command API, so the
    resolver never sees it over; it forgets the season once its last Divan is resolved (the
    soak's resolver grew by one fold per finished trial season until CACHE_SEASONS)."""
    api = Services(seasons=Seasons(memory_store))
    resolver = Seasons(memory_store)
    made = await season_commands.create_season(api, 6, seed=7)
    ctx = Context(BeyClaim(made.season_id, f"Bearer {made.token}", {}, ()))
    for divan in range(1, DIVANS + 1):
        await bey_commands.request_divan(api, ctx, divan)
        assert await resolve(resolver, made.season_id, divan) == "resolved"
        if divan == 1:
            assert resolver.peek(made.season_id) is not None  # under way: kept
    assert (await api.seasons.load(made.season_id)).state.phase == "kurultay"
    assert resolver.peek(made.season_id) is None


async def test_the_projectors_of_a_process_share_one_table_of_folds(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
):
    """Issue 14: a worker's three projectors (messages, wake-ups, sweeper) take a season's
    batches by turns; with one table between them the one that projects the Kurultay leaves
    no fold behind, where a table each left two stale folds per finished season."""
    folds = Cursors()
    projectors = [Projector(memory_store, redis, prefix, cursors=folds) for _ in range(3)]
    for s in range(3):
        season_id = f"shared-{s}"
        for n, chunk in enumerate(season_chunks(20 + s, season_id)):
            await append_chunk(memory_store, season_id, chunk, f"chunk/{n}")
            await projectors[(n + s) % 3].catch_up(season_id)
            if n == 1:
                assert len(folds) == 1  # under way: one fold, whichever projector made it
        live = await generation_dump(redis, prefix, season_id)
        assert live == await rebuilt_dump(memory_store, redis, prefix, season_id)
    assert [p.cursors for p in projectors] == [0, 0, 0]


def test_the_projections_worker_gives_its_three_projectors_one_table(monkeypatch):
    """The wiring: bootstrap.projections_worker opens the messages, sweeper and wake-up
    projectors over the same `Cursors` (issue 14)."""
    seen: list[Cursors | None] = []

    async def fake_open(_settings: object, _role: str, cursors: Cursors | None = None):
        seen.append(cursors)

    def run_now(opener, *_args):  # the threads would call the opener on their loops
        asyncio.run(opener())

    monkeypatch.setattr(bootstrap, "worker_broker", lambda _s: None)
    monkeypatch.setattr(bootstrap, "open_projector", fake_open)
    monkeypatch.setattr(bootstrap, "start_sweeper", run_now)
    monkeypatch.setattr(bootstrap, "start_listener", lambda _dsn, opener: run_now(opener))
    monkeypatch.setattr(
        bootstrap.projection_actors, "declare", lambda _b, get: run_now(get) or (None, None)
    )
    bootstrap.projections_worker(Settings())
    assert len(seen) == 3
    assert all(isinstance(c, Cursors) for c in seen)
    assert seen[0] is seen[1] is seen[2]
