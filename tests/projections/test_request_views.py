"""ADR-141: a batch of a trial Divan's request alone keeps every view that does not read the
Divan it locks (R-1.2), and projects what it would have projected had it made them anew."""

from __future__ import annotations

import json

import msgspec

from services.projections.keys import Keys
from services.projections.reducers import Snapshot, project
from services.projections.views import (
    all_views,
    j,
    only_the_lock_moved,
    private_fields,
    province_view,
)
from shared.app.answers.private_view import STORED, private_view
from shared.domain import bots
from shared.domain import commands as c
from shared.domain import events as ev
from shared.domain.decide import decide
from shared.domain.evolve import fold
from shared.domain.lifecycle import run_divan
from shared.domain.simulate import season
from shared.domain.state import DIVANS, SeasonState

ANKARA = 6


def _trial(seed: int) -> tuple[SeasonState, int, int]:
    """A trial season with one human bey (Ankara), registration closed; its version."""
    state, version = SeasonState(), 0
    for cmd in (c.CreateSeason(season_id="v", seed=seed), c.JoinSeason(memleket=ANKARA)):
        result = decide(state, cmd)
        assert isinstance(result, list)
        state, version = fold(result, state), version + len(result)
    closed = decide(state, c.CloseRegistration())
    assert isinstance(closed, list)
    human = next(b.seat for b in state.beys if not b.computer)
    return fold(closed, state), version + len(closed), human


def _step(state: SeasonState, cmd: c.Command) -> tuple[SeasonState, list[ev.Event]]:
    result = decide(state, cmd)
    assert isinstance(result, list), result
    return fold(result, state), result


def test_adr_141_a_request_batch_keeps_the_views_it_does_not_change() -> None:
    """Every Divan of two trial seasons: the human gives orders, then asks for the Divan. The
    request's batch keeps the map, beys, titles, treaties and auth views as they were (the same
    objects) and its views and operations are those made from scratch: meta and each bey's
    next Divan and orders anew (the human's orders for the locked Divan leave its view)."""
    keys = Keys("t", "v", 1)
    for seed in (7, 11):
        state, version, human = _trial(seed)
        for n in range(1, DIVANS + 1):
            orders = bots.plan_orders(state, human, n)
            if orders:
                state, made = _step(state, c.SubmitOrders(seat=human, divan=n, orders=orders))
                version += len(made)
            _ops, before = project(keys, Snapshot(), state, (), version, live=True)
            asked, request = _step(state, c.RequestDivan(seat=human, divan=n))
            assert only_the_lock_moved(state, asked)
            version += len(request)
            ops, after = project(keys, before, asked, request, version, live=True)
            fresh_ops, fresh = project(
                keys, Snapshot(before.views, before.ranks), asked, request, version, live=True
            )
            assert ops == fresh_ops
            assert (after.views, after.ranks) == (fresh.views, fresh.ranks)
            assert (after.views, after.ranks) == all_views(asked, version)
            for name in ("map", "beys", "titles", "treaties", "auth"):
                assert after.views[name] is before.views[name]
            mine = json.loads(after.views[f"private:{human}"]["orders"])
            assert mine["divan"] == (n + 1 if n < DIVANS else None)
            resolved = run_divan(asked)
            if orders:
                assert json.loads(before.views[f"private:{human}"]["orders"])["orders"]
                assert not only_the_lock_moved(asked, fold(resolved, asked))
            state, version = fold(resolved, asked), version + len(resolved)


def test_adr_141_the_map_and_private_views_are_js_bytes_without_its_copy() -> None:
    """The map's il records and a bey's private fields are encoded as they are (views.plain),
    not copied by to_builtins first: the same bytes as `j` makes, on every state of two
    seasons (both rules versions' turns, treaties, offers, missions, exile)."""
    for seed in (7, 11):
        for step in season(seed):
            state = step.state
            assert province_view(state) == {
                str(plate): j(
                    {"owner": None, "milis": p.units, "memleket_of": _home(state, plate)}
                    if p.owner is None
                    else {
                        "owner": p.owner,
                        "units": p.units,
                        "sur": p.sur,
                        "memleket_of": _home(state, plate),
                    }
                )
                for plate, p in enumerate(state.provinces, start=1)
            }
            for b in state.beys:
                view = private_view(state, b.seat, 0)
                built = msgspec.to_builtins(view)
                assert private_fields(state, b.seat) == {f: j(built[f]) for f in STORED}


def _home(state: SeasonState, plate: int) -> int | None:
    return next((b.seat for b in state.beys if b.memleket == plate), None)
