"""A whole season of computer beys, Divan by Divan, ending with the Kurultay (R-1.1, R-11)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from shared.domain import commands as c
from shared.domain import events as ev
from shared.domain.board import Board
from shared.domain.decide import decide
from shared.domain.evolve import fold
from shared.domain.lifecycle import Planner, run_divan
from shared.domain.scoring import standings
from shared.domain.season import seed_commitment
from shared.domain.state import DIVANS, REPORT_VERSION, RULES_VERSION, SeasonState


@dataclass(frozen=True)
class DivanStep:
    divan: int
    events: list[ev.Event]
    state: SeasonState


def must(state: SeasonState, cmd: c.Command) -> tuple[SeasonState, list[ev.Event]]:
    """Apply a command the caller knows is valid; a rejection is a programming error."""
    result = decide(state, cmd)
    if isinstance(result, c.Rejection):
        raise ValueError(f"{type(cmd).__name__} rejected: {result.code}: {result.message}")
    state = fold(result, state)
    return state, result


def start(
    seed: int,
    season_id: str = "sim",
    rules_version: str = RULES_VERSION,
    report_version: int = REPORT_VERSION,
) -> tuple[SeasonState, list[ev.Event]]:
    """A trial season with every seat a computer bey, registration closed, under the given
    rules version (D-28: an older one plays as seasons recorded under it did) and report
    version (the default, 2, is the golden digests'; SEALED_REPORT_VERSION seals orders)."""
    state, events = must(
        SeasonState(),
        c.CreateSeason(
            season_id=season_id,
            seed=seed,
            # the salt committed to is the salt revealed at the Kurultay
            seed_commitment=seed_commitment(seed, "sim"),
            seed_salt="sim",
            rules_version=rules_version,
            report_version=report_version,
        ),
    )
    state, more = must(state, c.CloseRegistration())
    return state, events + more


def season(
    seed: int,
    divans: int = DIVANS,
    planners: dict[int, Planner] | None = None,
    check: Callable[[SeasonState], None] | None = None,
    rules_version: str = RULES_VERSION,
    *,
    report_version: int = REPORT_VERSION,
) -> Iterator[DivanStep]:
    """Yield each Divan's events and state; after Divan 16, the Kurultay as divan 17."""
    if not 0 <= divans <= DIVANS:
        raise ValueError(f"a season has Divans 1 … {DIVANS} (R-1.1), not {divans}")
    state, events = start(seed, rules_version=rules_version, report_version=report_version)
    yield DivanStep(0, events, state)
    for _ in range(divans):
        events = run_divan(state, planners)
        state = fold(events, state)
        if check:
            check(state)
        yield DivanStep(state.divan, events, state)
    if state.phase == "kurultay":
        state, events = must(state, c.HoldKurultay())
        yield DivanStep(DIVANS + 1, events, state)


def current_standings(state: SeasonState) -> list[tuple[int, int]]:
    return standings(Board.of(state, state.divan))
