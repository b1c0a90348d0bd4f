"""Computer beys make offers (R-6.1, D-28): whom, which kind, when; recorded like their orders.

`bot_offers/*.json` are hand-written cases for one computer bey at one Divan's lock, with the
two keyed draws pinned through the percents (100: the draw succeeds, 0: it fails); the rest of
the file plays whole computer turns and Divans.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shared.domain import bots, lifecycle
from shared.domain import commands as c
from shared.domain import events as ev
from shared.domain.codec import encode
from shared.domain.decide import decide
from shared.domain.evolve import evolve, fold
from shared.domain.lifecycle import computer_turn, inputs_of, lock, played_turn, run_divan
from shared.domain.map import game_map
from shared.domain.replay import verify
from shared.domain.resolve import resolve_divan
from shared.domain.simulate import season
from shared.domain.state import (
    RULES_1,
    RULES_VERSION,
    Bey,
    Offer,
    Province,
    SeasonState,
    Treaty,
    offer_key,
    perde,
    unowned_map,
)
from tests.domain.strategies import states

GM = game_map()
CASES = sorted((Path(__file__).parent / "bot_offers").glob("*.json"))
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
ANKARA, ESKISEHIR, KONYA = 6, 26, 42


def case_state(case: dict[str, Any]) -> SeasonState:
    """The state before Divan `divan`'s lock: memlekets owned with 6 units unless `provinces`
    says otherwise, every other il unowned at full milis."""
    provinces = list(unowned_map())
    beys = []
    for b in case["beys"]:
        beys.append(
            Bey(b["seat"], b["memleket"], computer=b["computer"], hain_through=b["hain_through"])
        )
        provinces[b["memleket"] - 1] = Province(b["seat"], 6)
    for plate, p in case["provinces"].items():
        provinces[int(plate) - 1] = Province(p["owner"], p["units"])
    treaties = tuple(Treaty(t["kind"], *t["beys"], t["through_divan"]) for t in case["treaties"])
    offers = tuple(Offer(o["kind"], o["from"], o["to"]) for o in case["offers"])
    return SeasonState(
        season_id="offers",
        seed=11,
        phase="running",
        divan=case["divan"] - 1,
        beys=tuple(beys),
        provinces=tuple(provinces),
        treaties=treaties,
        offers=offers,
    )


def pin(monkeypatch: pytest.MonkeyPatch, offer: int, alliance: int) -> None:
    monkeypatch.setattr(bots, "OFFER_PERCENT", offer)
    monkeypatch.setattr(bots, "ALLIANCE_OFFER_PERCENT", alliance)


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_case(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each case's expected offer (or none), and the recorded event a turn makes of it."""
    case = json.loads(path.read_text())
    assert case["rules"] and case["reasoning"], "a case names its rule and says why"
    pin(monkeypatch, case["percent"]["offer"], case["percent"]["alliance"])
    state, k, seat = case_state(case), case["divan"], case["seat"]
    made = bots.plan_offer(state, seat, k)
    recorded = lifecycle.computer_offer(state, seat, k)
    want = case["expected"]
    if want is None:
        assert made is None
        assert recorded == []
        return
    assert made is not None
    targets = want["to"] if isinstance(want["to"], list) else [want["to"]]
    assert (made.frm, made.kind) == (seat, want["kind"])
    assert made.to in targets
    # D-25, D-28: recorded as the bey's TreatyOffered, settled at the next Divan
    assert recorded == [ev.TreatyOffered(frm=seat, to=made.to, kind=made.kind, divan=k + 1)]


def trial(seed: int = 7, rules: str | None = None) -> tuple[SeasonState, list[ev.Event]]:
    """A trial season (one human at Ankara) just after registration closed, and its events."""
    create = c.CreateSeason(season_id="t", seed=seed)
    if rules is not None:
        create = msgspec.structs.replace(create, rules_version=rules)
    state, events = SeasonState(), []
    for cmd in (create, c.JoinSeason(memleket=ANKARA), c.CloseRegistration()):
        result = decide(state, cmd)
        assert isinstance(result, list), result
        state = fold(result, state)
        events.extend(result)
    return state, events


def human_of(state: SeasonState) -> int:
    return next(b.seat for b in state.beys if not b.computer)


def play_until_offered(state: SeasonState, human: int) -> tuple[SeasonState, list[ev.Event]]:
    """Whole Divans (the human gives no orders) until a computer bey offers the human."""
    events: list[ev.Event] = []
    for _ in range(11):
        divan = run_divan(state)
        state = fold(divan, state)
        events.extend(divan)
        if any(o.to == human for o in state.offers):
            return state, events
    raise AssertionError("no computer bey offered the human anything in 11 Divans")


def test_r6_1_a_computer_offer_to_a_human_waits_for_the_humans_answer() -> None:
    """R-6.1, D-25, D-28: an offer a computer bey made at Divan k's lock is not in Divan k's
    inputs; it stands open, the human accepts it, and step 2 of Divan k+1 makes the treaty."""
    start, created = trial()
    human = human_of(start)
    state, events = play_until_offered(start, human)
    k = state.divan
    offer = next(o for o in state.offers if o.to == human)
    made = next(
        e for e in events if isinstance(e, ev.TreatyOffered) and (e.frm, e.to) == (offer.frm, human)
    )
    assert made.divan == k + 1 == state.offer_divans[offer_key(offer.frm, human)]
    locked = next(e for e in events if isinstance(e, ev.DivanLocked) and e.divan == k)
    assert offer not in locked.offers
    answered = decide(state, c.AnswerOffer(seat=human, frm=offer.frm, answer="accept"))
    assert isinstance(answered, list), answered
    state = fold(answered, state)
    nxt = run_divan(state)
    (settled,) = [
        e
        for e in nxt
        if isinstance(e, ev.OfferSettled) and (e.offer.frm, e.offer.to) == (made.frm, human)
    ]
    assert settled.divan == k + 1 and settled.outcome == "accepted"
    assert settled.treaty is not None and settled.treaty.kind == offer.kind
    _, problems = verify([*created, *events, *answered, *nxt])
    assert problems == []


def test_r6_1_an_unanswered_computer_offer_to_a_human_expires_at_the_next_divan() -> None:
    """R-6.1: the human says nothing; the offer expires at Divan k+1, no treaty."""
    start, _ = trial()
    human = human_of(start)
    state, _ = play_until_offered(start, human)
    offer = next(o for o in state.offers if o.to == human)
    nxt = run_divan(state)
    (settled,) = [e for e in nxt if isinstance(e, ev.OfferSettled) and e.offer.to == human]
    assert (settled.offer.frm, settled.outcome, settled.divan) == (
        offer.frm,
        "expired",
        state.divan + 1,
    )


def test_r6_3_computer_to_computer_offers_are_answered_by_the_draw() -> None:
    """R-6.3, D-10: an offer between computer beys is settled by the receiver's keyed draw at
    the next Divan (accepted or rejected, never expired)."""
    state, _ = trial(seed=3)
    outcomes = set()
    for _ in range(8):
        divan = run_divan(state)
        computer = {b.seat for b in state.beys if b.computer}
        for e in divan:
            if isinstance(e, ev.OfferSettled) and e.offer.to in computer:
                outcomes.add(e.outcome)
        state = fold(divan, state)
    assert outcomes == {"accepted", "rejected"}


def test_d28_rules_1_seasons_get_no_computer_offers(monkeypatch: pytest.MonkeyPatch) -> None:
    """D-28: a season created under seksenbir-rules/1 replays its turns without offers, even
    when every draw would make one."""
    pin(monkeypatch, 100, 0)
    made = {}
    for rules in (RULES_1, None):
        state, _ = trial(rules=rules)
        offers = []
        for _ in range(6):
            divan = run_divan(state)
            offers += [e for e in divan if isinstance(e, ev.TreatyOffered)]
            state = fold(divan, state)
        made[state.rules_version] = offers
    assert made[RULES_1] == []
    assert made["seksenbir-rules/2"], "the same season under rules/2 makes offers"


def test_d28_new_seasons_are_rules_2_and_unknown_versions_are_refused() -> None:
    """D-28: new seasons record seksenbir-rules/2; a version the engine does not know is
    refused at creation (it could not be replayed)."""
    assert trial()[0].rules_version == "seksenbir-rules/2"
    refused = decide(SeasonState(), c.CreateSeason(season_id="x", seed=1, rules_version="r/9"))
    assert isinstance(refused, c.Rejection)
    assert refused.code == "unknown_rules_version"


def test_r12_3_a_dropped_computer_offer_is_reported_by_verify() -> None:
    """R-12.3: computer offers are part of the recorded turn; a record without one of them
    differs from the re-derivation and is reported, not repaired."""
    state, events = trial()
    for _ in range(4):
        divan = run_divan(state)
        state = fold(divan, state)
        events.extend(divan)
    i = next(i for i, e in enumerate(events) if isinstance(e, ev.TreatyOffered))
    tampered = [*events[:i], *events[i + 1 :]]
    _, problems = verify(tampered)
    assert any("computer beys' turn" in p.what for p in problems)


@st.composite
def turns(draw: st.DrawFn) -> SeasonState:
    """A random running state with some open offers, some settled at a later Divan (D-25)."""
    state = draw(states())
    seats = [b.seat for b in state.beys]
    offers: dict[tuple[int, int], Offer] = {}
    later: dict[str, int] = {}
    for a, b in draw(
        st.lists(st.tuples(st.sampled_from(seats), st.sampled_from(seats)), max_size=4)
    ):
        if a != b and (min(a, b), max(a, b)) not in offers:
            offers[(min(a, b), max(a, b))] = Offer(
                draw(st.sampled_from(["pact", "alliance"])), a, b
            )
            if draw(st.booleans()):
                later[offer_key(a, b)] = state.divan + 2
    return msgspec.structs.replace(state, offers=tuple(offers.values()), offer_divans=later)


@SETTINGS
@given(turns())
def test_r6_1_r6_6_computer_offers_are_legal_unique_per_pair_and_reach_the_receiver(
    state: SeasonState,
) -> None:
    """R-6.1, R-6.6, D-28: a computer turn's offers are made by computer beys to neighbours,
    never for perde 3, never a second open offer per pair, counted for the next Divan (so not
    in this Divan's locked inputs), and stand as the receiver's offers in afterwards."""
    k = state.divan + 1
    turn = computer_turn(state, k)
    offered = [e for e in turn if isinstance(e, ev.TreatyOffered)]
    after = fold(turn, state)
    if perde(k + 1) == 3:
        assert offered == []
    computer = {b.seat for b in state.beys if b.computer}
    for e in offered:
        assert e.frm in computer and e.divan == k + 1
        assert state.offer_between(e.frm, e.to) is None  # none was open before
        mine = after.owned_by(e.frm)  # after the turn's purchases, which come first
        assert any(GM.are_neighbours(p, q) for p in mine for q in after.owned_by(e.to))
        assert Offer(e.kind, e.frm, e.to) in [o for o in after.offers if o.to == e.to]
    pairs = [o.pair() for o in after.offers]
    assert len(pairs) == len(set(pairs))
    locked = lock(after, k)
    assert not {(e.frm, e.to) for e in offered} & {(o.frm, o.to) for o in locked.offers}


@SETTINGS
@given(turns())
def test_r6_5_a_whole_computer_turn_makes_no_computer_bey_hain(state: SeasonState) -> None:
    """R-6.5, ADR-29: the rules/2 turn (spend, order, offer) played through its Divan makes no
    computer bey a traitor, whatever treaties and offers stand and whatever others buy."""
    k = state.divan + 1
    after = fold(computer_turn(state, k), state)
    locked = lock(after, k)
    locked_state = evolve(after, locked)
    computer = {b.seat for b in state.beys if b.computer}
    for e in resolve_divan(locked_state, inputs_of(locked_state, locked)):
        if isinstance(e, ev.BattlesResolved):
            assert not [b for b in e.betrayals if b.traitor in computer]


def test_r6_5_a_partners_purchase_is_seen_before_the_orders_are_given() -> None:
    """R-6.5, R-7.9, D-28: computer beys 1 and 2 are at peace; Kırşehir (40, milis 1) borders
    both. Bey 1 would take it; bey 2 buys it. Under rules/2 every bey spends before any bey
    orders, so bey 1 sees its partner's new il and leaves it alone. The rules/1 turn (bey by
    bey) ordered bey 1's attack first and so made it a traitor: kept only for replays."""
    kirsehir, kirikkale = 40, 71
    walled = {n: 12 for p in (ANKARA, kirikkale) for n in GM.neighbours(p)}
    provinces = list(unowned_map({**walled, kirsehir: 1}))
    provinces[ANKARA - 1] = Province(1, 12)
    provinces[kirikkale - 1] = Province(2, 6)
    state = SeasonState(
        season_id="buy",
        seed=5,
        phase="running",
        divan=2,
        beys=(
            Bey(1, ANKARA, computer=True, gold=0),
            Bey(2, kirikkale, computer=True, gold=4),
        ),
        provinces=tuple(provinces),
        treaties=(Treaty("pact", 1, 2, 5),),
    )

    def traitors(state: SeasonState) -> list[int]:
        after = fold(computer_turn(state, 3), state)
        locked = lock(after, 3)
        at_lock = evolve(after, locked)
        battles = next(
            e
            for e in resolve_divan(at_lock, inputs_of(at_lock, locked))
            if isinstance(e, ev.BattlesResolved)
        )
        assert after.province(kirsehir).owner == 2  # bey 2 bought it in both turns
        return [b.traitor for b in battles.betrayals]

    assert traitors(state) == []
    assert traitors(msgspec.structs.replace(state, rules_version=RULES_1)) == [1]


def test_d25_d28_a_live_computer_offer_is_answered_before_the_next_divans_instant() -> None:
    """D-25, D-28: in a live season a computer bey's offer made when Divan k is held counts
    for Divan k+1; the human may answer it until Divan k+1's instant, then it is locked."""
    from datetime import timedelta

    from tests.domain.test_live import apply, instant, running

    state = running()  # seats 1 (Ankara) and 2 are human
    for n in range(1, 12):
        state = fold(run_divan(state, now=instant(state, n) + timedelta(seconds=2)), state)
        if any(o.to == 1 for o in state.offers):
            break
    offer = next(o for o in state.offers if o.to == 1)
    k = state.divan
    assert state.offer_divans[offer_key(offer.frm, 1)] == k + 1
    before = instant(state, k + 1) - timedelta(minutes=1)
    _, answered = apply(state, c.AnswerOffer(seat=1, frm=offer.frm, answer="accept", at=before))
    assert answered == [ev.OfferAnswered(frm=offer.frm, to=1, answer="accept", divan=k + 1)]
    late = c.AnswerOffer(seat=1, frm=offer.frm, answer="accept", at=instant(state, k + 1))
    refused = decide(state, late)
    assert isinstance(refused, c.Rejection) and refused.code == "divan_locked"


@pytest.mark.parametrize("rules_version", [RULES_1, RULES_VERSION])
def test_adr_135_the_turn_s_own_fold_is_the_fold_of_its_events(rules_version: str) -> None:
    """ADR-135: `run_divan` takes the state the computer turn folded as it went instead of
    folding the turn's events again; that state is the fold of those events, byte for byte,
    on every state before a Divan of a whole season (both turn orders: rules/1's and D-28's)."""
    befores = [s.state for s in season(11, rules_version=rules_version)][:16]
    assert len(befores) == 16
    for state in befores:
        events, after = played_turn(state, state.divan + 1)
        assert events == computer_turn(state, state.divan + 1)
        assert encode(after) == encode(fold(events, state))
