"""Divan step 6: missions, Hain expiry and treaty expiry (R-10.1, R-10.2, R-6.2)."""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from shared.domain.board import Board
from shared.domain.events import Event, HainExpired, MissionCompleted
from shared.domain.map import game_map
from shared.domain.rules.battle import Outcome
from shared.domain.scoring import region_counts, region_titles

M8_GOLD = 15
M3_PROVINCES = 10
M4_OUTSIDE = 3
M7_HELD = 2


def nearest_beys(memlekets: Iterable[tuple[int, int]]) -> dict[int, int]:
    """M-9: each bey's nearest other bey, by memleket (ties: lower seat), from (seat, memleket)
    pairs; a bey alone has none. The one reading of M-9's target: the mission's check and the
    computer beys' aim both ask here."""
    return _nearest(tuple(sorted(memlekets)))


# Seasons whose nearest-bey table is kept: one season's is computed once (its memlekets never
# change), and a long-running worker sees seasons without end, so the cache is bounded (an
# unbounded @cache kept one entry per season ever resolved; issue 14, the soak's memory).
NEAREST_SEASONS = 256


@lru_cache(maxsize=NEAREST_SEASONS)
def _nearest(memlekets: tuple[tuple[int, int], ...]) -> dict[int, int]:
    """Memlekets never change (R-3.3), so a season computes this once."""
    dist_at = game_map().dist_at  # the table itself: a miss costs 0.34 M instructions, not 0.65 M
    out = {}
    for seat, mine in memlekets:
        row = dist_at[mine]
        best: tuple[int, int] | None = None
        for s, m in memlekets:
            if s != seat and (best is None or (row[m], s) < best):
                best = (row[m], s)
        if best is not None:
            out[seat] = best[1]
    return out


def _achieved(
    board: Board, outcome: Outcome, hain_at_start: dict[int, bool]
) -> set[tuple[int, str]]:
    return _standing(board, outcome) | _conquered(board, outcome, hain_at_start)


def _standing(board: Board, outcome: Outcome) -> set[tuple[int, str]]:
    """M-1, M-3, M-4, M-7, M-8: what a bey holds after the Divan."""
    done: set[tuple[int, str]] = set()
    region_at = board.gm.region_at
    counts = board.province_counts()
    titles = region_titles(board)
    # Provinces outside the memleket's region, per seat: its provinces less those in its region.
    in_region = region_counts(board)
    held = outcome.held
    for seat, bey in board.beys.items():
        home = region_at[bey.memleket]
        title = titles.get(home)
        if title is not None and title[0] == seat:
            done.add((seat, "M-1"))
        n = counts.get(seat, 0)
        if n >= M3_PROVINCES:
            done.add((seat, "M-3"))
        if n - in_region[home].get(seat, 0) >= M4_OUTSIDE:
            done.add((seat, "M-4"))
        if held.get(seat, 0) >= M7_HELD:
            done.add((seat, "M-7"))
        if bey.gold >= M8_GOLD:
            done.add((seat, "M-8"))
    return done


def _conquered(
    board: Board, outcome: Outcome, hain_at_start: dict[int, bool]
) -> set[tuple[int, str]]:
    """M-2, M-5, M-9, M-10: what a conquest of this Divan earns its taker or its group."""
    done: set[tuple[int, str]] = set()
    if not outcome.conquests:
        return done
    big_city = board.gm.big_city_at
    nearest = nearest_beys((s, b.memleket) for s, b in board.beys.items())
    for target, taker, defender, members in outcome.conquests:
        if big_city[target]:
            done.add((taker, "M-2"))
        if defender is not None and hain_at_start.get(defender, False):
            done.add((taker, "M-5"))
        near = nearest.get(taker)
        if near is not None and board.beys[near].memleket == target:
            done.add((taker, "M-9"))
        if len(members) > 1:
            done.update((m, "M-10") for m in members)
    return done


def check(board: Board, outcome: Outcome, hain_at_start: dict[int, bool]) -> list[Event]:
    """R-10.1 (dealt, not yet done) and R-10.2 (a badge whose last Divan is this one goes)."""
    events: list[Event] = []
    for seat, mission in sorted(_achieved(board, outcome, hain_at_start)):
        bey = board.beys[seat]
        if mission in bey.missions and mission not in bey.done:
            bey.done.append(mission)
            events.append(MissionCompleted(divan=board.divan, seat=seat, mission=mission))
    for seat, bey in board.beys.items():  # in seat order (`Board.beys`)
        if bey.hain_through is not None and bey.hain_through <= board.divan:
            bey.hain_through = None
            events.append(HainExpired(divan=board.divan, seat=seat))
    return events
