"""Season start (R-1.4, R-3, R-8.1, R-10.1, R-11.1) and the commands before Divan 1."""

from __future__ import annotations

from collections import Counter

import msgspec
import pytest

from shared.domain import commands as c
from shared.domain.decide import decide
from shared.domain.map import game_map
from shared.domain.season import news_deck
from shared.domain.simulate import must, start
from shared.domain.state import SeasonState

GM = game_map()


def created(seed: int = 1) -> SeasonState:
    state, _ = must(SeasonState(), c.CreateSeason(season_id="s", seed=seed, seed_salt="salt"))
    return state


def test_r3_1_a_bey_starts_with_its_memleket_six_units_and_two_gold() -> None:
    state, _ = must(created(), c.JoinSeason(memleket=6))
    bey = state.bey(1)
    assert bey is not None and bey.gold == 2 and bey.memleket == 6
    assert state.province(6).owner == 1 and state.province(6).units == 6


def test_r3_2_unowned_provinces_start_at_half_milis_rounded_up() -> None:
    state = created()
    assert state.province(34).units == 9 and state.province(69).units == 1


def test_r1_4_a_taken_memleket_is_refused_with_its_free_neighbours() -> None:
    state, _ = must(created(), c.JoinSeason(memleket=6))
    state = msgspec.structs.replace(state, mode="live")
    result = decide(state, c.JoinSeason(memleket=6))
    assert isinstance(result, c.Rejection) and result.code == "memleket_taken"
    assert sorted(result.details["free_neighbours"]) == sorted(GM.neighbours(6))  # type: ignore[arg-type]
    second = decide(state, c.JoinSeason(memleket=71))
    assert isinstance(second, list) and second[0].seat == 2  # type: ignore[attr-defined]


def test_r1_2_a_trial_season_takes_one_human() -> None:
    state, _ = must(created(), c.JoinSeason(memleket=6))
    result = decide(state, c.JoinSeason(memleket=35))
    assert isinstance(result, c.Rejection) and result.code == "not_allowed_in_mode"


def test_d38_a_join_to_a_trial_season_after_its_registration_is_not_allowed_in_its_mode() -> None:
    """D-38: a trial season closes registration as it is created (R-1.2), so a join to it was
    `registration_closed`, as if a live season had closed: it is the mode that refuses it."""
    state, _ = must(created(), c.JoinSeason(memleket=6))
    state, _ = must(state, c.CloseRegistration())
    result = decide(state, c.JoinSeason(memleket=35))
    assert isinstance(result, c.Rejection), result
    assert (result.code, result.key) == ("not_allowed_in_mode", "not_allowed_in_mode.one_human")


def test_r11_1_computer_beys_fill_the_seats_away_from_taken_memlekets() -> None:
    state, _ = must(created(5), c.JoinSeason(memleket=6))
    state, _ = must(state, c.CloseRegistration())
    assert len(state.beys) == 19 and sum(b.computer for b in state.beys) == 18
    memlekets = [b.memleket for b in state.beys]
    assert len(set(memlekets)) == 19
    # Until no calm province is left, no computer memleket borders an earlier one.
    for i, b in enumerate(sorted(state.beys, key=lambda b: b.seat)):
        earlier = [x.memleket for x in sorted(state.beys, key=lambda b: b.seat)[:i]]
        calm_left = any(
            p not in earlier and not any(GM.are_neighbours(p, t) for t in earlier)
            for p in range(1, 82)
        )
        if b.computer and calm_left:
            assert not any(GM.are_neighbours(b.memleket, t) for t in earlier)


def test_r10_1_everyone_is_dealt_two_different_missions() -> None:
    state, _ = start(8)
    for b in state.beys:
        assert len(b.missions) == 2 and len(set(b.missions)) == 2
        assert all(m in {f"M-{i}" for i in range(1, 11)} for m in b.missions)


def test_r8_1_the_deck_has_25_cards_and_is_shuffled_by_the_seed() -> None:
    deck = news_deck()
    counts = Counter(card.card for card in deck)
    assert len(deck) == 25
    assert counts == {
        "kuraklik": 7,
        "hasat": 7,
        "bayram": 2,
        "yerel_isyan": 3,
        "seyyah_tuccar": 3,
        "deprem": 3,
    }
    a, _ = start(1)
    b, _ = start(2)
    assert sorted(map(repr, a.deck)) == sorted(map(repr, deck))
    assert a.deck != b.deck


@pytest.mark.parametrize("seed", [1, 2])
def test_r1_5_setup_is_a_function_of_the_seed(seed: int) -> None:
    assert start(seed)[0] == start(seed)[0]
