"""Fork: a new trial season from the state after Divan n of another season (issue 13, D-32).

Pure: from the source's events and the point asked for, the fork's first events — its own
SeasonCreated (a new seed, drawn by the caller, with its commitment; it never counts on the
boards, R-1.5) and a SeasonForked holding the position whole, so the fork replays from its own
stream alone (R-12.3). The human takes `seat`; every other bey plays as a computer bey.
"""

from __future__ import annotations

from collections.abc import Sequence

from msgspec.structs import replace

from shared.domain import commands as c
from shared.domain import events as ev
from shared.domain.decide import decide
from shared.domain.season import seed_commitment
from shared.domain.state import API_REPORT_VERSION, DIVANS, SeasonState


def after_divan(events: Sequence[ev.Event], divan: int) -> int | None:
    """How many of the source's events make its state after Divan `divan` (0: as Divan 1 is
    about to be played); None when the source has not resolved that Divan."""
    if divan == 0:
        for i, e in enumerate(events):
            if isinstance(e, ev.RegistrationClosed):
                return i + 1
        return None
    for i, e in enumerate(events):
        if isinstance(e, ev.DivanResolved) and e.divan == divan:
            return i + 1
    return None


def fork_events(
    source: SeasonState,
    source_version: int,
    source_head: str,
    *,
    divan: int,
    seat: int,
    season_id: str,
    seed: int,
    salt: str,
) -> list[ev.Event] | c.Rejection:
    """The fork's first events from `source` (the source folded to after Divan `divan`, its
    `source_version` events ending at `source_head`). Refuses a seat that is not in it."""
    if source.bey(seat) is None:
        return c.reject("unknown_seat", seat=seat)
    if not 0 <= divan < DIVANS or source.divan != divan:
        return c.reject("divan_not_found", divan=divan)
    created = decide(
        SeasonState(),
        c.CreateSeason(
            season_id=season_id,
            seed=seed,
            mode="trial",
            seed_salt=salt,
            seed_commitment=seed_commitment(seed, salt),
            rules_version=source.rules_version,
            report_version=API_REPORT_VERSION,  # a new season: ADR-57, ADR-62, ADR-157
            counts_on_boards=False,
        ),
    )
    assert isinstance(created, list), created
    forked = ev.SeasonForked(
        source_season=source.season_id,
        source_divan=divan,
        source_version=source_version,
        source_head=source_head,
        seat=seat,
        divan=divan,
        beys=tuple(replace(b, computer=b.seat != seat) for b in source.beys),
        provinces=source.provinces,
        treaties=source.treaties,
        offers=source.offers,
        ceasefire_divan=source.ceasefire_divan,
        deck=source.deck,
        partners=source.partners,
    )
    return [*created, forked]
