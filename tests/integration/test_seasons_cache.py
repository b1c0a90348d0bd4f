"""The fold cache of `Seasons` (shared/app/repository/seasons.py): `load` is `since` from the
cached fold (one read and fold of what came after it), and neither sets the cache back behind
a newer fold that another coroutine of the process left there while it read."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from shared.app.repository.seasons import SeasonNotFound, Seasons
from shared.domain.evolve import fold
from shared.eventstore import InMemoryEventStore
from tests.clock import StepClock
from tests.http.support import state_of
from tests.integration.test_resolver_rebase import OTHER, live_season, orders_for


async def test_a_load_slower_than_an_append_leaves_the_newer_fold_cached(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = InMemoryEventStore(clock=StepClock())
    beys, _, _ = await live_season(store)
    sid = beys[0].season_id
    seasons = Seasons(store)
    first = await seasons.load(sid)
    inner, read, go = store.read_stream, asyncio.Event(), asyncio.Event()

    async def slow(season_id: str, **kw: Any) -> Any:
        records = await inner(season_id, **kw)
        read.set()  # read before the append below: answered late
        await go.wait()
        return records

    monkeypatch.setattr(store, "read_stream", slow)
    slow_load = asyncio.create_task(seasons.load(sid))
    await _until(read, slow_load)
    monkeypatch.setattr(store, "read_stream", inner)
    made = orders_for(1, before=True)(first.state, 0)
    await seasons.append(sid, first.version, "other/0", made, OTHER)
    ahead = seasons.peek(sid)
    assert ahead is not None and ahead.version == first.version + len(made)
    go.set()
    assert (await slow_load).version == first.version  # the head as it read it
    assert seasons.peek(sid) is ahead  # not set back: the next command decides on the newer
    assert (await seasons.load(sid)).state == (await state_of(store, sid))[0]


async def _until(flag: asyncio.Event, task: asyncio.Task[Any]) -> None:
    """Wait for `flag`, or fail with the task's own error if it ends first (a patched store
    method it could not call would otherwise leave the test waiting for ever)."""
    waiter = asyncio.ensure_future(flag.wait())
    await asyncio.wait({waiter, task}, return_when=asyncio.FIRST_COMPLETED)
    if not waiter.done():
        waiter.cancel()
        task.result()  # raises the task's error
        raise AssertionError("the load ended before it read the stream")


async def test_load_catches_the_cache_up_with_another_process_appends() -> None:
    store = InMemoryEventStore(clock=StepClock())
    beys, _, _ = await live_season(store)
    sid = beys[0].season_id
    ours, theirs = Seasons(store), Seasons(store)
    first = await ours.load(sid)
    made = orders_for(1, before=True)(first.state, 0)
    await theirs.append(sid, first.version, "other/0", made, OTHER)
    assert ours.peek(sid) is first  # behind: another process appended
    caught = await ours.load(sid)
    assert caught.version == first.version + len(made) and ours.peek(sid) is caught
    assert caught.state == (await state_of(store, sid))[0]
    assert await ours.load(sid) is caught  # nothing new: the same fold, no copy


async def test_an_unknown_season_is_not_found_and_leaves_nothing_cached() -> None:
    seasons = Seasons(InMemoryEventStore(clock=StepClock()))
    with pytest.raises(SeasonNotFound):
        await seasons.load("0" * 32)
    assert seasons.peek("0" * 32) is None


async def test_adr_141_an_append_keeps_the_callers_fold_only_on_the_state_it_was_made_on() -> None:
    """ADR-141: `append(folded=(base, after))` keeps `after` as the season's fold when the cached
    fold is `base` itself (the resolver's own run: no second fold); on any other cached state
    (a newer head the events went in at, ADR-128) it folds the events on that state."""
    store = InMemoryEventStore(clock=StepClock())
    beys, _, _ = await live_season(store)
    sid = beys[0].season_id
    seasons = Seasons(store)
    first = await seasons.load(sid)
    made = orders_for(1, before=True)(first.state, 0)
    after = fold(made, first.state)
    await seasons.append(sid, first.version, "ours/0", made, OTHER, folded=(first.state, after))
    kept = seasons.peek(sid)
    assert kept is not None and kept.state is after and kept.version == first.version + len(made)
    more = orders_for(1, before=True)(after, 1)
    stale = fold(more, first.state)  # made on a state that is not the cached one
    await seasons.append(sid, kept.version, "ours/1", more, OTHER, folded=(first.state, stale))
    head = seasons.peek(sid)
    assert head is not None and head.state is not stale
    assert head.state == fold(more, after) == (await state_of(store, sid))[0]
