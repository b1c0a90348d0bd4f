"""The Kurultay and the Han (R-10.4, R-10.5), and M-6."""

from __future__ import annotations

import msgspec

from shared.domain import commands as c
from shared.domain import events as ev
from shared.domain.decide import decide
from shared.domain.evolve import evolve, fold
from shared.domain.season import hold_kurultay
from shared.domain.state import Bey, Province, SeasonState, unowned_map

replace = msgspec.structs.replace


def kurultay_state(owned: dict[int, list[int]], beys: list[Bey], **kw: object) -> SeasonState:
    provinces = list(unowned_map())
    for seat, plates in owned.items():
        for p in plates:
            provinces[p - 1] = Province(seat, 3)
    return SeasonState(
        season_id="k",
        seed=9,
        phase="kurultay",
        divan=16,
        beys=tuple(beys),
        provinces=tuple(provinces),
        mode="live",
        **kw,
    )  # type: ignore[arg-type]


def held(state: SeasonState) -> ev.KurultayHeld:
    result = hold_kurultay(state)
    assert isinstance(result, list)
    return result[0]  # type: ignore[return-value]


def test_r10_4_all_tied_leaders_get_halk_sevgisi_and_three_points() -> None:
    beys = [Bey(seat=s, memleket=m) for s, m in ((1, 6), (2, 34), (3, 35), (4, 1))]
    state = kurultay_state({1: [6], 2: [34], 3: [35], 4: [1]}, beys, votes={1: 2, 2: 3, 3: 2, 4: 3})
    k = held(state)
    assert k.halk_sevgisi == (2, 3)
    scores = dict(k.scores)
    assert scores[2] == scores[3] == 1 + 2 + 3 and scores[1] == scores[4] == 1 + 2


def test_r10_4_computer_beys_vote_for_a_treaty_partner() -> None:
    beys = [
        Bey(seat=1, memleket=6, computer=True),
        Bey(seat=2, memleket=34),
        Bey(seat=3, memleket=35),
    ]
    state = kurultay_state({1: [6], 2: [34], 3: [35]}, beys, partners={1: (3,)}, votes={2: 1, 3: 1})
    assert held(state).votes[1] == 3


def test_r10_5_han_by_score_then_provinces_then_memleket_then_lot() -> None:
    beys = [Bey(seat=1, memleket=6), Bey(seat=2, memleket=34), Bey(seat=3, memleket=35)]
    # Bey 3 lost its memleket but holds more land: 4 + 0 = 4; bey 1: 2 + 2 = 4; bey 2: 1 + 2 = 3.
    state = kurultay_state({1: [6, 71], 2: [34], 3: [7, 15, 32, 20]}, beys, votes={})
    k = held(state)
    assert k.scores[0] == (3, 4) and k.scores[1] == (1, 4) and k.han == 3
    assert not k.lot_used


def test_r10_5_a_full_tie_is_broken_by_the_seeded_lot() -> None:
    beys = [Bey(seat=1, memleket=6), Bey(seat=2, memleket=34)]
    state = kurultay_state({1: [6], 2: [34]}, beys, votes={})
    k = held(state)
    assert k.lot_used and k.han in (1, 2)
    assert held(replace(state, seed=9)).han == k.han  # the lot is the season's, not the process's


def test_r10_1_m6_completes_at_the_kurultay_only_for_who_never_lost_the_memleket() -> None:
    beys = [
        Bey(seat=1, memleket=6, missions=("M-6", "M-3")),
        Bey(seat=2, memleket=34, missions=("M-6", "M-1"), lost_memleket_before=True),
    ]
    state = kurultay_state({1: [6], 2: [34]}, beys, votes={})
    k = held(state)
    assert k.m6 == (1,)
    after = evolve(state, k)
    b1, b2 = after.bey(1), after.bey(2)
    assert b1 is not None and "M-6" in b1.missions_done
    assert b2 is not None and "M-6" not in b2.missions_done
    assert dict(k.scores)[1] == 1 + 2 + 5


def test_r10_4_in_trial_the_human_vote_holds_the_kurultay_and_reveals_the_seed() -> None:
    beys = [Bey(seat=1, memleket=6), Bey(seat=2, memleket=34, computer=True)]
    state = replace(kurultay_state({1: [6], 2: [34]}, beys), mode="trial", seed_salt="s")
    result = decide(state, c.CastVote(seat=1, candidate=2))
    assert isinstance(result, list)
    assert [type(e) for e in result] == [ev.VoteCast, ev.KurultayHeld, ev.SeedRevealed]
    after = state
    after = fold(result, after)
    assert after.phase == "over" and after.han is not None
