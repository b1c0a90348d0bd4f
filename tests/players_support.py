"""Issue 23: a live season whose humans are bound to players, played to its end in the domain."""

from __future__ import annotations

from shared.domain import commands as c
from shared.domain import events as ev
from shared.domain.evolve import fold
from shared.domain.lifecycle import run_divan
from shared.domain.simulate import must
from shared.domain.state import SeasonState
from tests.live_calendar import LIVE

MEMLEKETS = (6, 34, 35, 1, 7, 16, 21, 25, 27, 42)


def bound_season(
    season_id: str, players: list[str], *, divans: int = 16, seed: int = 5, **create: object
) -> tuple[SeasonState, list[ev.Event]]:
    """A counted live season, one human per player (bound), computer beys in the rest, played
    `divans` Divans at their instants, then its Kurultay (after 16)."""
    state, events = must(
        SeasonState(),
        c.CreateSeason(
            season_id=season_id,
            seed=seed,
            mode="live",
            seed_salt=f"salt-{seed}",
            counts_on_boards=True,
            **{**LIVE, **create},  # type: ignore[arg-type]
        ),
    )
    for player, memleket in zip(players, MEMLEKETS, strict=False):
        state, joined = must(state, c.JoinSeason(memleket=memleket, at=LIVE["at"]))
        seat = next(e.seat for e in joined if isinstance(e, ev.BeyJoined))
        state, bound = must(state, c.BindPlayer(seat=seat, player_id=player))
        events += joined + bound
    state, more = must(state, c.CloseRegistration())
    events += more
    for _ in range(divans):
        on_time = state.calendar.at(state.divan + 1) if state.calendar else None
        held = run_divan(state, now=on_time)
        state = fold(held, state)
        events += held
    if state.phase == "kurultay":
        state, held = must(state, c.HoldKurultay())
        events += held
    return state, events
