"""Issue 23 (ADR-87, ADR-88): seats bound to players, a finished season's record, ratings."""

from __future__ import annotations

import pytest

from shared.domain import commands as c
from shared.domain import player_events as pe
from shared.domain.decide import decide
from shared.domain.ratings import (
    Book,
    SeasonRecord,
    SeatRecord,
    counts_for_players,
    rate,
    rebuild,
    season_record,
)
from shared.domain.simulate import must
from shared.domain.state import SeasonState
from tests.live_calendar import LIVE
from tests.players_support import bound_season


def _record(season_id: str, scores: dict[str, int]) -> SeasonRecord:
    order = sorted(scores.items(), key=lambda x: -x[1])
    return SeasonRecord(
        season_id,
        tuple(SeatRecord(p, n, n, s, n == 1, 0, 0, 16) for n, (p, s) in enumerate(order, start=1)),
    )


RECORDS = [
    _record("s1", {"a": 30, "b": 20, "c": 10}),
    _record("s2", {"b": 25, "c": 25, "d": 5, "a": 1}),
    _record("s3", {"d": 40, "a": 30}),  # two players: not rated
    _record("s4", {"c": 50, "d": 10, "e": 9}),
]


def test_a_season_is_rated_once_and_a_replay_rates_nobody_twice():
    """ADR-88: a season already in the book changes nothing (a replay, a rebuild)."""
    once = rate(Book(), RECORDS[0])
    assert rate(once, RECORDS[0]) == once
    assert {p: r.seasons for p, r in once.ratings.items()} == {"a": 1, "b": 1, "c": 1}
    assert once.ratings["a"].mu > once.ratings["b"].mu > once.ratings["c"].mu


def test_a_season_with_fewer_than_three_players_is_not_rated():
    assert rate(Book(), RECORDS[2]) == Book()


def test_equal_scores_are_ties():
    book = rate(Book(), _record("t", {"a": 10, "b": 10, "c": 1}))
    assert book.ratings["a"] == book.ratings["b"]


def test_incremental_equals_rebuilt_and_a_repeat_changes_nothing():
    """A projection rebuilt from events: applying seasons one at a time equals the fold from
    nothing, and applying the whole list again adds nothing."""
    book = Book()
    for record in RECORDS:
        book = rate(book, record)
    assert book == rebuild(RECORDS)
    assert rebuild([*RECORDS, *RECORDS]) == book


def test_a_player_holds_at_most_one_seat_of_a_season():
    state, _ = must(SeasonState(), c.CreateSeason(season_id="f" * 32, seed=1, mode="live", **LIVE))  # type: ignore[arg-type]
    for memleket in (6, 34):
        state, _ = must(state, c.JoinSeason(memleket=memleket, at=LIVE["at"]))  # type: ignore[arg-type]
    state, _ = must(state, c.BindPlayer(seat=1, player_id="p1"))
    refused = decide(state, c.BindPlayer(seat=2, player_id="p1"))
    assert isinstance(refused, c.Rejection) and refused.code == "player_already_seated"
    for seat in (1, 3):  # a seat bound already; no bey there (a computer bey's: none)
        refused = decide(state, c.BindPlayer(seat=seat, player_id="p9"))
        assert isinstance(refused, c.Rejection) and refused.code == "unknown_seat"
    state, _ = must(state, c.CloseRegistration(at=LIVE["at"]))  # type: ignore[arg-type]
    computer = next(b.seat for b in state.beys if b.computer)
    refused = decide(state, c.BindPlayer(seat=computer, player_id="p9"))
    assert isinstance(refused, c.Rejection) and refused.code == "unknown_seat"


def test_a_finished_counted_season_records_places_titles_hain_and_missed_divans():
    state, events = bound_season("e" * 32, ["p1", "p2", "p3"])
    assert state.phase == "over" and counts_for_players(state)
    record = season_record(state, events)
    assert record is not None and record.rated
    assert sorted(s.player_id for s in record.seats) == ["p1", "p2", "p3"]
    for seat in record.seats:  # the humans gave no orders: every Divan missed
        assert (seat.missed, seat.played) == (16, 16)
    assert [s.place for s in record.seats] == sorted(s.place for s in record.seats)


@pytest.mark.parametrize("kind", ["trial", "seeded", "compressed"])
def test_trial_seeded_and_compressed_seasons_never_count(kind: str):
    live = {**LIVE}
    if kind == "compressed":
        live["divan_interval_seconds"] = 60  # type: ignore[assignment]
    state, _ = must(
        SeasonState(),
        c.CreateSeason(
            season_id="d" * 32,
            seed=1,
            mode="trial" if kind == "trial" else "live",
            counts_on_boards=kind != "seeded",
            **({} if kind == "trial" else live),  # type: ignore[arg-type]
        ),
    )
    assert not counts_for_players(state)
    assert season_record(state, []) is None


def test_a_player_who_left_keeps_no_name_and_no_key():
    state = pe.fold_player(
        [pe.PlayerCreated(player_id="p", key_hash="h", name="Ayşe"), pe.PlayerLeft()]
    )
    assert (state.left, state.name, state.key_hash) == (True, None, "")
