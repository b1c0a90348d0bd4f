"""Season start and end: registration close (R-1.4, R-11.1), Kurultay and Han (R-10.4, R-10.5)."""

from __future__ import annotations

import hashlib
from datetime import datetime

from shared.domain import commands as c
from shared.domain import events as ev
from shared.domain import live, rng
from shared.domain.board import Board
from shared.domain.map import REGIONS, game_map
from shared.domain.scoring import standings
from shared.domain.state import (
    DIVANS,
    REPORT_VERSIONS,
    RULES_VERSIONS,
    SEATS,
    NewsCard,
    SeasonState,
)

MISSIONS = tuple(f"M-{i}" for i in range(1, 11))
SETUP = 0  # the Divan number keyed draws use before Divan 1
KURULTAY = DIVANS + 1


def seed_commitment(seed: int, salt: str) -> str:
    """R-1.5: the public, salted commitment to a secret seed."""
    return hashlib.sha256(f"{salt}:{seed}".encode()).hexdigest()


def news_deck() -> tuple[NewsCard, ...]:
    """R-8.1: 25 cards in a defined order, before shuffling."""
    cards = [NewsCard("kuraklik", r) for r in REGIONS] + [NewsCard("hasat", r) for r in REGIONS]
    cards += [NewsCard("bayram")] * 2 + [NewsCard("yerel_isyan")] * 3
    cards += [NewsCard("seyyah_tuccar")] * 3 + [NewsCard("deprem")] * 3
    return tuple(cards)


def create(state: SeasonState, cmd: c.CreateSeason) -> list[ev.Event] | c.Rejection:
    """R-1.2, R-1.3, R-1.5; a live season also gets its provisional calendar."""
    if state.season_id:
        return c.reject("season_exists")
    if cmd.rules_version not in RULES_VERSIONS:
        return c.reject(
            "unknown_rules_version",
            rules_version=cmd.rules_version,
            known=", ".join(RULES_VERSIONS),
        )
    if cmd.report_version not in REPORT_VERSIONS:  # set by callers in code, never over HTTP
        raise ValueError(f"unknown report version {cmd.report_version}")
    calendar = None
    if cmd.mode == "live":
        made = live.new_calendar(cmd)
        if isinstance(made, c.Rejection):
            return made
        calendar = made
    elif cmd.registration_closes_at is not None or cmd.divan_interval_seconds is not None:
        return c.reject("not_allowed_in_mode.trial_calendar")
    if cmd.press != "full" and cmd.mode != "live":
        return c.reject("not_allowed_in_mode.trial_press")
    created: list[ev.Event] = [
        ev.SeasonCreated(
            season_id=cmd.season_id,
            seed=cmd.seed,
            mode=cmd.mode,
            rules_version=cmd.rules_version,
            report_version=cmd.report_version,
            seed_commitment=cmd.seed_commitment or seed_commitment(cmd.seed, cmd.seed_salt),
            seed_salt=cmd.seed_salt,
            # an operator's compressed calendar never counts on the cross-season boards
            counts_on_boards=cmd.counts_on_boards and cmd.divan_interval_seconds is None,
        )
    ]
    if calendar is not None:
        created.append(ev.CalendarSet.of(calendar, "created"))
    if cmd.press != "full":  # the default is no event: a season's bytes stay as before
        created.append(ev.PressModeSet(press=cmd.press))
    return created


def computer_memlekets(state: SeasonState) -> tuple[tuple[int, int], ...]:
    """R-11.1: each empty seat, in seat order, takes a free il not next to a taken memleket."""
    gm = game_map()
    taken = {b.memleket for b in state.beys}
    seats = sorted(set(range(1, SEATS + 1)) - {b.seat for b in state.beys})
    picks = []
    for seat in seats:
        free = [p for p in range(1, 82) if p not in taken]
        calm = [p for p in free if not any(gm.are_neighbours(p, t) for t in taken)]
        choice = rng.choose(state.seed, SETUP, "memleket", calm or free, seat)
        assert choice is not None
        taken.add(choice)
        picks.append((seat, choice))
    return tuple(picks)


def close_registration(
    state: SeasonState, at: datetime | None = None
) -> list[ev.Event] | c.Rejection:
    """R-1.4: fill empty seats, deal two different missions each (R-10.1), shuffle the deck;
    a live season's calendar becomes final (moved if the close is early)."""
    if state.phase != "registration":
        return c.reject("registration_closed.already")
    computer = computer_memlekets(state)
    seats = sorted({b.seat for b in state.beys} | {s for s, _ in computer})
    missions = {
        s: tuple(rng.shuffled(state.seed, SETUP, f"missions:{s}", MISSIONS)[:2]) for s in seats
    }
    deck = tuple(rng.shuffled(state.seed, SETUP, "deck", news_deck()))
    closed: list[ev.Event] = [
        ev.RegistrationClosed(computer_beys=computer, missions=missions, deck=deck)
    ]
    if state.mode == "live":
        final = live.closing_calendar(state, at)
        closed.append(ev.CalendarSet.of(final, "registration_closed"))
    return closed


def computer_vote(state: SeasonState, seat: int) -> int:
    """R-10.4: for a bey it has had a treaty with, else any other bey, by the season randomness."""
    partners = [p for p in state.partners.get(seat, ()) if p != seat]
    others = partners or [b.seat for b in state.beys if b.seat != seat]
    choice = rng.choose(state.seed, KURULTAY, "vote", others, seat)
    assert choice is not None
    return choice


def hold_kurultay(state: SeasonState) -> list[ev.Event] | c.Rejection:
    """R-10.4 votes and Halk Sevgisi, M-6, then the Han by R-10.5 with a seeded lot."""
    if state.phase != "kurultay":
        return c.reject("wrong_phase.kurultay_not_open")
    votes = dict(state.votes)
    for b in state.beys:
        if b.computer and b.seat not in votes:
            votes[b.seat] = computer_vote(state, b.seat)
    tally: dict[int, int] = {}
    for candidate in votes.values():
        tally[candidate] = tally.get(candidate, 0) + 1
    top = max(tally.values(), default=0)
    winners = tuple(sorted(s for s, n in tally.items() if n == top and top > 0))
    m6 = tuple(
        b.seat
        for b in state.beys
        if "M-6" in b.missions and "M-6" not in b.missions_done and not b.lost_memleket_before
    )
    board = Board.of(state, KURULTAY)
    for seat in winners:
        board.beys[seat].halk_sevgisi = True
    for seat in m6:
        board.beys[seat].done.append("M-6")
    lots = rng.shuffled(state.seed, KURULTAY, "lot", sorted(board.beys))
    final = standings(board, lots)
    counts = board.province_counts()
    key = [(sc, counts.get(s, 0), board.holds_memleket(s)) for s, sc in final[:2]]
    lot_used = len(key) == 2 and key[0] == key[1]
    return [
        ev.KurultayHeld(
            votes=votes,
            halk_sevgisi=winners,
            m6=m6,
            scores=tuple(final),
            han=final[0][0],
            lot_used=lot_used,
        )
    ]
