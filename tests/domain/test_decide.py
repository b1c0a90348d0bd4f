"""Every refusal of decide() has a stable code and changes nothing (R-4.2, R-6, R-7.9, R-10.4)."""

from __future__ import annotations

import msgspec
import pytest

from shared.domain import commands as c
from shared.domain import events as ev
from shared.domain.decide import decide
from shared.domain.evolve import evolve, fold
from shared.domain.simulate import start
from shared.domain.state import Order, Province, SeasonState, Treaty

replace = msgspec.structs.replace


@pytest.fixture(scope="module")
def base() -> SeasonState:
    """A running 19-bey season before Divan 1, bey 1 human with 10 gold."""
    state, _ = start(3)
    beys = tuple(
        replace(b, computer=b.seat != 1, gold=10 if b.seat == 1 else b.gold) for b in state.beys
    )
    return replace(state, beys=beys, mode="trial")


def mine(state: SeasonState) -> int:
    bey = state.bey(1)
    assert bey is not None
    return bey.memleket


def neighbour_not_mine(state: SeasonState) -> int:
    from shared.domain.map import game_map

    return next(n for n in game_map().neighbours(mine(state)) if state.province(n).owner != 1)


def non_neighbour(state: SeasonState) -> int:
    from shared.domain.map import game_map

    m = mine(state)
    return next(p for p in range(1, 82) if p != m and not game_map().are_neighbours(m, p))


def code(state: SeasonState, cmd: c.Command) -> str:
    result = decide(state, cmd)
    assert isinstance(result, c.Rejection), f"expected a refusal, got {result}"
    assert result.message
    return result.code


def test_r4_2_orders_own_province_neighbour_target_whole_n(base: SeasonState) -> None:
    m = mine(base)
    other = next(b.memleket for b in base.beys if b.seat == 2)
    assert (
        code(base, c.SubmitOrders(seat=1, divan=1, orders=(Order(other, "hold"),)))
        == "not_your_province"
    )
    far = non_neighbour(base)
    assert (
        code(base, c.SubmitOrders(seat=1, divan=1, orders=(Order(m, "advance", far, 2),)))
        == "not_a_neighbour"
    )
    t = neighbour_not_mine(base)
    assert (
        code(base, c.SubmitOrders(seat=1, divan=1, orders=(Order(m, "advance", t, 0),)))
        == "bad_units"
    )
    assert (
        code(base, c.SubmitOrders(seat=1, divan=1, orders=(Order(99, "hold"),)))
        == "unknown_province"
    )
    assert code(base, c.SubmitOrders(seat=1, divan=2, orders=())) == "wrong_divan"
    ok = decide(base, c.SubmitOrders(seat=1, divan=1, orders=(Order(m, "advance", t, 50),)))
    assert isinstance(ok, list)  # N larger than the units is clamped at resolution, not refused


def test_r4_1_a_set_with_two_orders_for_one_province_is_refused_naming_it(
    base: SeasonState,
) -> None:
    m = mine(base)
    target = neighbour_not_mine(base)
    twice = (Order(m, "advance", target, 2), Order(m, "hold"))
    result = decide(base, c.SubmitOrders(seat=1, divan=1, orders=twice))
    assert isinstance(result, c.Rejection)
    assert (result.code, result.details) == ("duplicate_province", {"province": m})
    from shared.domain.map import game_map

    assert game_map()[m].name in result.message


def test_r4_4_after_the_lock_orders_count_for_the_next_divan(base: SeasonState) -> None:
    locked = evolve(base, ev.DivanRequested(divan=1))
    m = mine(base)
    assert (
        code(locked, c.SubmitOrders(seat=1, divan=1, orders=(Order(m, "hold"),))) == "wrong_divan"
    )
    assert isinstance(
        decide(locked, c.SubmitOrders(seat=1, divan=2, orders=(Order(m, "hold"),))), list
    )


def test_r7_9_spending_costs_caps_and_the_lock(base: SeasonState) -> None:
    m = mine(base)
    poor = replace(base, beys=tuple(replace(b, gold=1) if b.seat == 1 else b for b in base.beys))
    assert code(poor, c.BuildSur(seat=1, province=m)) == "not_enough_gold"
    walled = replace(
        base,
        provinces=tuple(
            replace(p, sur=True) if i == m - 1 else p for i, p in enumerate(base.provinces)
        ),
    )
    assert code(walled, c.BuildSur(seat=1, province=m)) == "sur_exists"
    full = replace(
        base,
        provinces=tuple(
            replace(p, units=11) if i == m - 1 else p for i, p in enumerate(base.provinces)
        ),
    )
    assert code(full, c.HireMercenaries(seat=1, province=m)) == "over_cap"
    assert code(base, c.PurchaseProvince(seat=1, province=non_neighbour(base))) == "not_purchasable"
    assert (
        code(base, c.BuildSur(seat=1, province=next(b.memleket for b in base.beys if b.seat == 2)))
        == "not_your_province"
    )
    locked = evolve(base, ev.DivanRequested(divan=1))
    assert code(locked, c.HireMercenaries(seat=1, province=m)) == "divan_locked"


def test_r7_9_a_purchase_takes_an_unowned_neighbour_with_milis_at_most_two(
    base: SeasonState,
) -> None:
    t = neighbour_not_mine(base)
    weak = replace(
        base,
        provinces=tuple(
            Province(units=2) if i == t - 1 else p for i, p in enumerate(base.provinces)
        ),
    )
    events = decide(weak, c.PurchaseProvince(seat=1, province=t))
    assert isinstance(events, list)
    after = evolve(weak, events[0])
    assert after.province(t) == Province(owner=1, units=1)
    bey = after.bey(1)
    assert bey is not None and bey.gold == 6
    strong = replace(
        base,
        provinces=tuple(
            Province(units=3) if i == t - 1 else p for i, p in enumerate(base.provinces)
        ),
    )
    assert code(strong, c.PurchaseProvince(seat=1, province=t)) == "not_purchasable"


def test_r6_1_offers_one_per_pair_none_to_oneself_withdraw_and_answer(base: SeasonState) -> None:
    assert code(base, c.OfferTreaty(seat=1, to=1, kind="pact")) == "bad_partner"
    assert code(base, c.OfferTreaty(seat=1, to=42, kind="pact")) == "bad_partner"
    events = decide(base, c.OfferTreaty(seat=1, to=2, kind="pact"))
    assert isinstance(events, list)
    offered = evolve(base, events[0])
    assert code(offered, c.OfferTreaty(seat=1, to=2, kind="alliance")) == "offer_exists"
    assert code(offered, c.OfferTreaty(seat=2, to=1, kind="pact")) == "offer_exists"
    assert code(offered, c.WithdrawOffer(seat=2, to=1)) == "no_offer"
    assert code(offered, c.AnswerOffer(seat=1, frm=2, answer="accept")) == "no_offer"
    assert isinstance(decide(offered, c.WithdrawOffer(seat=1, to=2)), list)


def test_r6_2_no_pact_offer_while_allied_and_r6_6_none_in_perde_3(base: SeasonState) -> None:
    allied = replace(base, treaties=(Treaty("alliance", 1, 2, 4),))
    assert code(allied, c.OfferTreaty(seat=1, to=2, kind="pact")) == "allied_already"
    assert isinstance(decide(allied, c.OfferTreaty(seat=1, to=2, kind="alliance")), list)
    late = replace(base, divan=12)
    assert code(late, c.OfferTreaty(seat=1, to=2, kind="pact")) == "perde_3"


def test_r10_4_votes_only_at_the_kurultay_for_another_bey_once(base: SeasonState) -> None:
    assert code(base, c.CastVote(seat=1, candidate=2)) == "wrong_phase"
    kurultay = replace(base, phase="kurultay", divan=16, mode="live")
    assert code(kurultay, c.CastVote(seat=1, candidate=1)) == "vote_self"
    assert code(kurultay, c.CastVote(seat=1, candidate=77)) == "unknown_seat"
    voted = evolve(kurultay, ev.VoteCast(seat=1, candidate=2))
    assert code(voted, c.CastVote(seat=1, candidate=3)) == "already_voted"


def test_r10_4_a_vote_after_the_kurultay_is_already_voted_or_told_it_is_over(
    base: SeasonState,
) -> None:
    """After the Kurultay a bey who voted is told so; one who did not is told it is over."""
    kurultay = replace(base, phase="kurultay", divan=16, mode="live")
    voted = evolve(kurultay, ev.VoteCast(seat=1, candidate=2))
    held = decide(voted, c.HoldKurultay())
    assert isinstance(held, list)
    over = voted
    over = fold(held, over)
    assert over.phase == "over"
    assert code(over, c.CastVote(seat=1, candidate=3)) == "already_voted"
    silent = replace(over, votes={s: v for s, v in over.votes.items() if s != 2})
    refusal = decide(silent, c.CastVote(seat=2, candidate=3))
    assert isinstance(refusal, c.Rejection)
    assert refusal.code == "wrong_phase"
    assert "sona erdi" in refusal.message
    assert refusal.text("en") == "The Kurultay is over"


def test_r1_2_trial_divans_one_at_a_time_never_past_16(base: SeasonState) -> None:
    locked = evolve(base, ev.DivanRequested(divan=1))
    assert code(locked, c.RequestDivan(seat=1, divan=2)) == "divan_locked"
    assert (
        code(replace(base, mode="live"), c.RequestDivan(seat=1, divan=1)) == "not_allowed_in_mode"
    )
    assert code(replace(base, divan=16), c.RequestDivan(seat=1, divan=17)) == "wrong_phase"
    assert code(base, c.RequestDivan(seat=42, divan=1)) == "unknown_seat"


def _resolved(state: SeasonState, n: int) -> SeasonState:
    """The state just after Divan n's resolution (what DivanResolved leaves: divan n, unlocked)."""
    return replace(state, divan=n, locked_divan=None)


# the request names its Divan, so a client's retry never advances the season.
# (state, n) -> the decision: "request" (DivanRequested n appended), "none" (nothing to
# append: the request is already in effect), or a refusal code with its details.
REQUEST_CASES = [
    ("fresh season, n the next Divan", 0, None, 1, "request", {}),
    ("after Divan 3, n the next Divan", 3, None, 4, "request", {}),
    ("Divan 1 requested, retried", 0, 1, 1, "none", {}),
    ("Divan 1 resolved, retried", 1, None, 1, "none", {}),
    ("Divan 5 resolved, an old retry of Divan 2", 5, None, 2, "none", {}),
    ("Divan 5 resolving, an old retry of Divan 2", 4, 5, 2, "none", {}),
    ("Divan 1 requested, asked for 2 already", 0, 1, 2, "divan_locked", {}),
    ("Divan 1 requested, asked for 3", 0, 1, 3, "wrong_divan", {"divan": 1}),
    ("fresh season, asked for 2", 0, None, 2, "wrong_divan", {"divan": 1}),
    ("after Divan 3, asked for 9", 3, None, 9, "wrong_divan", {"divan": 4}),
    ("fresh season, asked for 0", 0, None, 0, "wrong_divan", {"divan": 1}),
    ("fresh season, asked for -1", 0, None, -1, "wrong_divan", {"divan": 1}),
    ("after Divan 16, asked for 17", 16, None, 17, "wrong_phase", {}),
    ("after Divan 16, Divan 16 retried", 16, None, 16, "none", {}),
]


@pytest.mark.parametrize(
    ("divan", "locked", "n", "want", "details"),
    [case[1:] for case in REQUEST_CASES],
    ids=[case[0] for case in REQUEST_CASES],
)
def test_r1_2_a_divan_request_names_its_divan(
    base: SeasonState,
    divan: int,
    locked: int | None,
    n: int,
    want: str,
    details: dict[str, int],
) -> None:
    state = replace(base, divan=divan, locked_divan=locked)
    result = decide(state, c.RequestDivan(seat=1, divan=n))
    if want == "request":
        assert result == [ev.DivanRequested(divan=n)]
    elif want == "none":
        assert result == []
    else:
        assert isinstance(result, c.Rejection), result
        assert (result.code, result.details) == (want, details)


def test_r1_2_a_retried_request_after_resolution_appends_nothing(base: SeasonState) -> None:
    """Folded through the events: requested, resolved, then the same request again."""
    state = evolve(base, ev.DivanRequested(divan=1))
    assert decide(state, c.RequestDivan(seat=1, divan=1)) == []
    state = _resolved(state, 1)
    assert decide(state, c.RequestDivan(seat=1, divan=1)) == []
    assert decide(state, c.RequestDivan(seat=1, divan=2)) == [ev.DivanRequested(divan=2)]


# A bey's command outside the running phase is `wrong_phase`, with a text that says which phase
# the season is in and what it takes now ("the season does not take this command now" told
# nobody why): registration, the Kurultay after Divan 16, the season over
# . (phase, divan) -> the catalogue key; the code stays `wrong_phase`.
PHASE_CASES = [
    ("registration", 0, "wrong_phase.registration"),
    ("kurultay", 16, "wrong_phase.kurultay_open"),
    ("over", 16, "wrong_phase.over"),
]


@pytest.mark.parametrize(("phase", "divan", "key"), PHASE_CASES)
def test_r1_4_r10_4_a_command_outside_the_running_phase_says_which_phase_it_is(
    base: SeasonState, phase: str, divan: int, key: str
) -> None:
    state = replace(base, phase=phase, divan=divan)  # type: ignore[arg-type]
    for cmd in (
        c.SubmitOrders(seat=1, divan=divan + 1, orders=()),
        c.BuildSur(seat=1, province=6),
        c.HireMercenaries(seat=1, province=6),
        c.OfferTreaty(seat=1, to=2, kind="pact"),
        c.WithdrawOffer(seat=1, to=2),
        c.AnswerOffer(seat=1, frm=2, answer="accept"),
        c.RequestDivan(seat=1, divan=divan + 1),
    ):
        refusal = decide(state, cmd)
        assert isinstance(refusal, c.Rejection), (phase, cmd)
        assert (refusal.code, refusal.key) == ("wrong_phase", key), (phase, cmd)
