"""Computer beys (R-11): legal, treaty-abiding, sensible and deterministic orders and spending."""

from __future__ import annotations

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shared.domain import bot_orders, bot_view, bots, rng
from shared.domain import commands as c
from shared.domain import events as ev
from shared.domain.decide import decide
from shared.domain.evolve import fold
from shared.domain.map import game_map
from shared.domain.resolve import DivanInputs, adjudicate
from shared.domain.state import (
    Bey,
    Offer,
    Order,
    Province,
    SeasonState,
    Treaty,
    start_map,
    unowned_map,
)
from tests.domain.strategies import states

GM = game_map()
SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
ESKISEHIR, ANKARA, BILECIK, BURSA, AFYON, KUTAHYA = 26, 6, 11, 16, 3, 43
PLANNERS = (bots.plan_orders, bots.plan_random, bots.plan_hold)


def season(
    owned: dict[int, tuple[int, int]],
    beys: tuple[Bey, ...],
    milis: dict[int, int] | None = None,
    divan: int = 3,
    start: bool = False,
    **changes: object,
) -> SeasonState:
    """A running season before Divan `divan`: owned plates are {plate: (seat, units)}; the
    rest at starting milis (R-3.2) or else at full milis with `milis` overrides."""
    provinces = list(start_map() if start else unowned_map(milis))
    for plate, (seat, units) in owned.items():
        provinces[plate - 1] = Province(seat, units)
    state = SeasonState(
        season_id="bots",
        seed=7,
        phase="running",
        divan=divan - 1,
        beys=beys,
        provinces=tuple(provinces),
    )
    return msgspec.structs.replace(state, **changes)


def walled_in(*plates: int, milis: int = 12) -> dict[int, int]:
    """Every unowned neighbour of `plates` at a milis no bey can take (no tempting targets)."""
    return {n: milis for p in plates for n in GM.neighbours(p)}


def left_home(state: SeasonState, orders: tuple[Order, ...], plate: int) -> int:
    sent = sum(o.units for o in orders if o.province == plate and o.kind != "hold")
    return state.province(plate).units - sent


@st.composite
def states_with_offers(draw: st.DrawFn) -> SeasonState:
    state = draw(states())
    seats = [b.seat for b in state.beys]
    pairs = draw(st.lists(st.tuples(st.sampled_from(seats), st.sampled_from(seats)), max_size=3))
    offers = {tuple(sorted(p)): Offer("pact", *p) for p in pairs if p[0] != p[1]}
    return msgspec.structs.replace(state, offers=tuple(offers.values()))


def partners(state: SeasonState, seat: int, divan: int) -> set[int]:
    """Seats whose provinces an advance would betray or be cancelled against (R-6.4, R-6.5)."""
    if divan > 12:
        return set()
    return {
        t.a + t.b - seat for t in state.treaties if seat in t.pair() and t.through_divan >= divan
    }


@SETTINGS
@given(states_with_offers())
def test_r4_2_every_bot_order_is_legal(state: SeasonState) -> None:
    """R-4.1, R-4.2: own province, a neighbour target, 1 ≤ N ≤ units − 1, one order per il."""
    divan = state.divan + 1
    for planner in PLANNERS:
        for bey in state.beys:
            orders = planner(state, bey.seat, divan)
            assert len({o.province for o in orders}) == len(orders)
            for o in orders:
                p = state.province(o.province)
                assert p.owner == bey.seat
                assert o.kind in ("advance", "support")
                assert o.target is not None and GM.are_neighbours(o.province, o.target)
                assert 1 <= o.units <= p.units - 1
            verdict = decide(state, c.SubmitOrders(seat=bey.seat, divan=divan, orders=orders))
            assert not isinstance(verdict, c.Rejection), verdict


@SETTINGS
@given(states_with_offers())
def test_r6_4_r6_5_r6_7_bot_never_advances_into_partner_or_under_ceasefire(
    state: SeasonState,
) -> None:
    """R-6.4, R-6.5: no advance into a treaty partner's il; R-6.7: none into any bey's in a
    ceasefire. Moves into its own provinces and attacks on milis stay allowed."""
    divan = state.divan + 1
    for bey in state.beys:
        avoid = partners(state, bey.seat, divan)
        for o in bots.plan_orders(state, bey.seat, divan):
            owner = state.province(o.target or 0).owner
            if o.kind != "advance" or owner in (None, bey.seat):
                continue
            assert owner not in avoid
            assert state.ceasefire_divan != divan


def test_r6_5_no_attack_on_weak_pact_partner() -> None:
    """R-6.5: a pact partner's 1-unit il next to a 12-unit memleket is left alone."""
    beys = (Bey(seat=1, memleket=ESKISEHIR), Bey(seat=2, memleket=ANKARA))
    owned = {ESKISEHIR: (1, 12), ANKARA: (2, 1)}
    state = season(owned, beys, walled_in(ESKISEHIR), treaties=(Treaty("pact", 1, 2, 4),))
    assert all(o.target != ANKARA for o in bots.plan_orders(state, 1, 3))
    without = msgspec.structs.replace(state, treaties=())
    assert any(o.target == ANKARA and o.kind == "advance" for o in bots.plan_orders(without, 1, 3))


def test_r6_3_a_bot_spares_an_offerer_only_when_step_2_will_accept_the_offer() -> None:
    """R-6.3, R-6.5: a weak human next to a strong bot offers it a pact. The bot leaves the
    human alone exactly when step 2 accepts the pact (no betrayal then); an offer it will
    refuse is no shield. Checked over seeds until both answers have come up."""
    beys = (Bey(seat=1, memleket=ESKISEHIR, computer=True), Bey(seat=2, memleket=ANKARA))
    owned = {ESKISEHIR: (1, 12), ANKARA: (2, 1)}
    seen = set()
    for seed in range(1, 60):
        state = season(owned, beys, walled_in(ESKISEHIR), seed=seed, offers=(Offer("pact", 2, 1),))
        orders = bots.plan_orders(state, 1, 3)
        events, _board = adjudicate(
            state, DivanInputs(divan=3, orders={1: orders}, offers=state.offers)
        )
        (settled,) = [e for e in events if isinstance(e, ev.OfferSettled)]
        (battles,) = [e for e in events if isinstance(e, ev.BattlesResolved)]
        attacked = any(o.target == ANKARA and o.kind == "advance" for o in orders)
        assert attacked == (settled.outcome == "rejected"), (seed, settled.outcome)
        assert not battles.betrayals
        seen.add(settled.outcome)
        if seen == {"accepted", "rejected"}:
            return
    raise AssertionError(f"only {seen} in 59 seeds")


@SETTINGS
@given(states_with_offers())
def test_r6_5_computer_beys_never_betray(state: SeasonState) -> None:
    """R-6.5: whatever offers are open, a Divan played with the bots' own orders makes no
    computer bey Hain (an offer it will accept is respected from step 2 on)."""
    divan = state.divan + 1
    orders = {b.seat: bots.plan_orders(state, b.seat, divan) for b in state.beys if b.computer}
    events, _board = adjudicate(state, DivanInputs(divan=divan, orders=orders, offers=state.offers))
    computer = {b.seat for b in state.beys if b.computer}
    for e in events:
        if isinstance(e, ev.BattlesResolved):
            assert not [b for b in e.betrayals if b.traitor in computer]


def test_r6_7_ceasefire_spares_beys_but_not_milis() -> None:
    """R-6.7: under the Bayram ceasefire the bot leaves the weak bey alone, still expands."""
    beys = (Bey(seat=1, memleket=ESKISEHIR), Bey(seat=2, memleket=ANKARA))
    milis = {**walled_in(ESKISEHIR), AFYON: 1}
    state = season({ESKISEHIR: (1, 12), ANKARA: (2, 1)}, beys, milis, ceasefire_divan=3)
    orders = bots.plan_orders(state, 1, 3)
    assert [(o.target, o.kind) for o in orders] == [(AFYON, "advance")]


def test_r11_2_expands_into_weak_unowned_neighbour_with_a_sure_win() -> None:
    """R-11.2, R-5.4: 6 units at the start take a milis-1 neighbour with ≥ milis + 3 units."""
    state = season({ESKISEHIR: (1, 6)}, (Bey(seat=1, memleket=ESKISEHIR),), divan=1, start=True)
    orders = bots.plan_orders(state, 1, 1)
    assert len(orders) == 1 and orders[0].kind == "advance"
    target = state.province(orders[0].target or 0)
    assert target.owner is None and orders[0].units >= target.units + 3


def test_r11_2_prefers_the_gold_yielding_big_city() -> None:
    """R-2.4, R-11.2: with milis equal, Ankara (gold 2, big city) beats zero-yield neighbours."""
    beys = (Bey(seat=1, memleket=ESKISEHIR, missions=("M-2", "M-3")),)
    state = season({ESKISEHIR: (1, 5)}, beys, dict.fromkeys(GM.neighbours(ESKISEHIR), 1))
    assert bots.plan_orders(state, 1, 3) == (Order(ESKISEHIR, "advance", ANKARA, 4),)


def test_r11_2_no_attack_without_a_sure_win() -> None:
    """R-5.4: 4 units against milis 2 could lose on the dice (0 against 2): the bot holds."""
    beys = (Bey(seat=1, memleket=ESKISEHIR),)
    state = season({ESKISEHIR: (1, 5)}, beys, walled_in(ESKISEHIR, milis=2))
    assert bots.plan_orders(state, 1, 3) == ()


def test_r11_2_keeps_the_memleket_against_a_strong_neighbour() -> None:
    """R-11.2, R-5.4: alone it sends 11 of 12 units; with a 9-unit bey next door the memleket
    keeps enough to hold whatever the dice, and still expands with what it can spare."""
    beys = (Bey(seat=1, memleket=ESKISEHIR), Bey(seat=2, memleket=ANKARA))
    alone = season({ESKISEHIR: (1, 12)}, beys[:1], dict.fromkeys(range(1, 82), 1))
    assert left_home(alone, bots.plan_orders(alone, 1, 3), ESKISEHIR) == 1
    state = season({ESKISEHIR: (1, 12), ANKARA: (2, 9)}, beys, dict.fromkeys(range(1, 82), 1))
    orders = bots.plan_orders(state, 1, 3)
    assert orders and all(o.target != ANKARA for o in orders)
    threat, bonus = 9 - 1, 2 + 1  # memleket +2, hemşehri +1
    assert left_home(state, orders, ESKISEHIR) + bonus >= threat + 2


def test_r11_2_attacks_a_weak_bey_only_when_it_surely_wins() -> None:
    """R-5.4: Ankara (memleket +2, hemşehri +1) with 2 units needs 2 + 3 + 2 + 1 = 8 units."""
    beys = (Bey(seat=1, memleket=ESKISEHIR), Bey(seat=2, memleket=ANKARA))
    for units, attacks in ((8, False), (9, True)):
        state = season({ESKISEHIR: (1, units), ANKARA: (2, 2)}, beys, walled_in(ESKISEHIR))
        orders = bots.plan_orders(state, 1, 3)
        assert any(o.target == ANKARA and o.units >= 8 for o in orders) is attacks


def test_r6_4_an_allys_units_are_no_threat() -> None:
    """R-6.4: an ally's advance would be cancelled, so its 12 units next door hold nobody back."""
    beys = (Bey(seat=1, memleket=ESKISEHIR), Bey(seat=2, memleket=ANKARA))
    milis = dict.fromkeys(range(1, 82), 1)
    state = season({ESKISEHIR: (1, 12), ANKARA: (2, 12)}, beys, milis)
    allied = msgspec.structs.replace(state, treaties=(Treaty("alliance", 1, 2, 6),))
    assert left_home(state, bots.plan_orders(state, 1, 3), ESKISEHIR) == 12
    assert left_home(allied, bots.plan_orders(allied, 1, 3), ESKISEHIR) == 1


def test_r5_2_two_provinces_join_one_attack() -> None:
    """R-5.2: one bey's advances into one il form one group: 3 + 3 units beat milis 2 surely."""
    beys = (Bey(seat=1, memleket=ESKISEHIR),)
    milis = {**walled_in(ESKISEHIR, BILECIK), KUTAHYA: 2}
    state = season({ESKISEHIR: (1, 4), BILECIK: (1, 4)}, beys, milis)
    assert bots.plan_orders(state, 1, 3) == (
        Order(BILECIK, "advance", KUTAHYA, 3),
        Order(ESKISEHIR, "advance", KUTAHYA, 3),
    )


def test_r11_2_supports_a_threatened_province_from_a_safe_neighbour() -> None:
    """R-5.3, R-11.2: Bilecik faces Bursa's 12 units; Eskişehir sends Destek."""
    beys = (Bey(seat=1, memleket=ESKISEHIR), Bey(seat=2, memleket=BURSA))
    owned = {ESKISEHIR: (1, 10), BILECIK: (1, 3), BURSA: (2, 12)}
    state = season(owned, beys, walled_in(ESKISEHIR, BILECIK))
    orders = bots.plan_orders(state, 1, 3)
    assert orders == (Order(ESKISEHIR, "support", BILECIK, 9),)


def test_r11_2_interior_units_move_toward_the_frontier() -> None:
    """R-11.2: Eskişehir, all of whose neighbours are its own, moves its spare units out."""
    ring = GM.neighbours(ESKISEHIR)
    owned = {ESKISEHIR: (1, 9), **dict.fromkeys(ring, (1, 1))}
    state = season(owned, (Bey(seat=1, memleket=ESKISEHIR),), walled_in(*ring))
    orders = bots.plan_orders(state, 1, 3)
    assert [(o.province, o.kind, o.units) for o in orders] == [(ESKISEHIR, "advance", 8)]
    assert orders[0].target in ring


def test_r9_2_landless_exile_gives_no_orders_and_spends_nothing() -> None:
    """R-9.1, R-9.2: a Sürgün with no province has nothing to order or spend from."""
    beys = (Bey(seat=1, memleket=ESKISEHIR, gold=20), Bey(seat=2, memleket=ANKARA))
    state = season({ESKISEHIR: (2, 5), ANKARA: (2, 5)}, beys)
    assert bots.plan_orders(state, 1, 3) == ()
    assert bots.plan_spending(state, 1, 3) == []


@SETTINGS
@given(states_with_offers(), st.randoms(use_true_random=False))
def test_r12_1_r12_2_bots_are_deterministic_and_order_independent(state, rnd) -> None:  # type: ignore[no-untyped-def]
    """R-11.2, R-12: same state, same plan; permuting beys, treaties and offers changes nothing."""
    beys, treaties, offers = list(state.beys), list(state.treaties), list(state.offers)
    for items in (beys, treaties, offers):
        rnd.shuffle(items)
    permuted = msgspec.structs.replace(
        state, beys=tuple(beys), treaties=tuple(treaties), offers=tuple(offers)
    )
    divan = state.divan + 1
    for bey in state.beys:
        for plan in (*PLANNERS, bots.plan_spending):
            first = plan(state, bey.seat, divan)
            assert first == plan(state, bey.seat, divan) == plan(permuted, bey.seat, divan)


@SETTINGS
@given(states_with_offers())
def test_r7_9_spending_is_affordable_and_every_command_valid(state: SeasonState) -> None:
    """R-7.9: applied in list order, every command is accepted and gold never goes negative."""
    divan = state.divan + 1
    for bey in state.beys:
        current = state
        for cmd in bots.plan_spending(state, bey.seat, divan):
            verdict = decide(current, cmd)
            assert not isinstance(verdict, c.Rejection), (cmd, verdict)
            current = fold(verdict, current)
            gold = current.bey(bey.seat)
            assert gold is not None and gold.gold >= 0


def test_r7_9_buys_cheap_neighbours_first_and_chains() -> None:
    """R-7.9: 8 gold buys two milis-≤2 ils; the second may border only the first."""
    beys = (Bey(seat=1, memleket=ESKISEHIR, gold=9),)
    state = season({ESKISEHIR: (1, 6)}, beys, walled_in(ESKISEHIR, milis=2))
    cmds = bots.plan_spending(state, 1, 3)
    assert [type(x) for x in cmds] == [c.PurchaseProvince, c.PurchaseProvince]


def test_r10_1_m8_keeps_fifteen_gold() -> None:
    """R-10.1 M-8: holding the mission, a bey with 18 gold spends at most 3 of it."""
    beys = (Bey(seat=1, memleket=ESKISEHIR, gold=18, missions=("M-8", "M-3")),)
    state = season({ESKISEHIR: (1, 6)}, beys, walled_in(ESKISEHIR, milis=2))
    assert [type(x) for x in bots.plan_spending(state, 1, 3)] == []
    rich = msgspec.structs.replace(state, beys=(msgspec.structs.replace(beys[0], gold=19),))
    assert [type(x) for x in bots.plan_spending(rich, 1, 3)] == [c.PurchaseProvince]


def test_r7_9_sur_then_mercenaries_on_a_threatened_memleket() -> None:
    """R-7.9, R-11.2: nothing to buy; Ankara's 12 units threaten: sur first, then paralı asker."""
    beys = (Bey(seat=1, memleket=ESKISEHIR, gold=7), Bey(seat=2, memleket=ANKARA))
    state = season({ESKISEHIR: (1, 6), ANKARA: (2, 12)}, beys, walled_in(ESKISEHIR, milis=5))
    cmds = bots.plan_spending(state, 1, 3)
    assert cmds == [
        c.BuildSur(seat=1, province=ESKISEHIR),
        c.HireMercenaries(seat=1, province=ESKISEHIR),
        c.HireMercenaries(seat=1, province=ESKISEHIR),
    ]


def test_r11_3_hold_baseline_orders_nothing() -> None:
    state = season({ESKISEHIR: (1, 12)}, (Bey(seat=1, memleket=ESKISEHIR),))
    assert bots.plan_hold(state, 1, 3) == ()


def test_r12_1_random_baseline_draws_every_kind_and_is_keyed_by_seed() -> None:
    """R-12.1: the random baseline uses keyed draws: all kinds appear; the seed changes them."""
    owned = dict.fromkeys(range(1, 82), (1, 12))
    state = season(owned, (Bey(seat=1, memleket=ESKISEHIR),))
    orders = bots.plan_random(state, 1, 3)
    assert {o.kind for o in orders} == {"advance", "support"}
    assert 30 < len(orders) < 81
    assert orders != bots.plan_random(msgspec.structs.replace(state, seed=8), 1, 3)


@st.composite
def states_with_answered_offers(draw: st.DrawFn) -> SeasonState:
    """States with offers human or computer receivers answer, some left for a later Divan."""
    state = draw(states_with_offers())
    offers = tuple(
        msgspec.structs.replace(o, answer=draw(st.sampled_from([None, "accept", "reject"])))
        for o in state.offers
    )
    later = {
        f"{o.frm}-{o.to}": state.divan + 1 + draw(st.integers(0, 1))
        for o in offers
        if draw(st.booleans())
    }
    return msgspec.structs.replace(state, offers=offers, offer_divans=later)


@SETTINGS
@given(states_with_answered_offers())
def test_adr59_one_turn_shared_by_every_bey_plans_what_each_bey_alone_would(
    state: SeasonState,
) -> None:
    """ADR-59: a computer turn's beys share one reading of the board (bots.Turn), rebuilt or
    patched as each bey's purchases, sur and mercenaries change the state and as offers are
    made; every plan made with it equals the plan made from the state alone (R-12.1)."""
    divan = state.divan + 1
    turn = bots.Turn(state.seed, divan)
    unlocked = msgspec.structs.replace(state, locked_divan=None)
    computer = [b.seat for b in state.beys if b.computer]
    for seat in computer:  # round 1: spending, folded bey by bey (lifecycle.computer_turn)
        shared = bots.plan_spending(unlocked, seat, divan, turn)
        assert shared == bots.plan_spending(unlocked, seat, divan)
        for cmd in shared:
            result = decide(unlocked, cmd)
            if not isinstance(result, c.Rejection):
                unlocked = fold(result, unlocked)
    for seat in computer:  # round 2: orders on the board every purchase made
        assert bots.plan_orders(unlocked, seat, divan, turn) == bots.plan_orders(
            unlocked, seat, divan
        )
    for seat in computer:  # round 3: offers, each one changing the offers the next reads
        offer = bots.plan_offer(unlocked, seat, divan, turn)
        assert offer == bots.plan_offer(unlocked, seat, divan)
        if offer is not None and unlocked.offer_between(seat, offer.to) is None:
            made = ev.TreatyOffered(kind=offer.kind, frm=seat, to=offer.to, divan=divan + 1)
            unlocked = fold([made], unlocked)


def _ranked_by_full_sort(v: bot_view._View, avail: dict[int, int]) -> list[tuple[int, int]]:
    """The target order as main had it before ADR-59: every target's jitter drawn with
    rng.uniform_int, the whole list sorted by −(score + jitter), plate."""
    keyed = []
    for _, t, need in bot_orders._scored_targets(v, [avail.get(p, 0) for p in range(82)]):
        defence = v.units[t] + bot_view._bonus(v, t)
        jitter = rng.uniform_int(v.seed, v.divan, "bot", 8, v.seat, "target", t)
        keyed.append((-(bot_orders._value(v, t) * 100 // (defence + 2) + jitter), t, need))
    return [(t, need) for _, t, need in sorted(keyed)]


@SETTINGS
@given(states_with_offers())
def test_r12_1_jitter_drawn_only_in_near_tie_runs_orders_targets_as_drawing_all(
    state: SeasonState,
) -> None:
    """R-12.1: the keyed jitter (0 … 7) breaks near-ties; drawing it only for targets whose
    scores are less than 8 apart gives the order drawing it for all gave, and the first
    target of that order is the hiring bey's best one."""
    divan = state.divan + 1
    for bey in state.beys:
        v = bot_view._view(state, bey.seat, divan, bots.Turn(state.seed, divan), own_lists=False)
        if v is None:
            continue
        for avail in (bot_orders._available(v), dict.fromkeys(range(1, 82), 12)):
            assert bot_orders._ranked_targets(v, avail) == _ranked_by_full_sort(v, avail)
        first = _ranked_by_full_sort(v, dict.fromkeys(range(1, 82), 12))
        assert bot_orders._best_target(v) == (first[0][0] if first else 0)


@SETTINGS
@given(states_with_offers())
def test_adr_176_the_plates_the_bots_sort_by_most_come_in_ascending_order(
    state: SeasonState,
) -> None:
    """ADR-176: the bots sort plates by (−threat, plate) and (−units to spare, plate) as a
    stable sort by the count alone, reversed; that is the same order only because the plates
    come ascending: a bey's plates (its view's, before and after its purchases) and every
    il's neighbours."""
    assert all(list(n) == sorted(set(n)) for n in game_map().neighbours_at)
    divan = state.divan + 1
    turn = bots.Turn(state.seed, divan)
    for bey in state.beys:
        for own_lists in (False, True):
            v = bot_view._view(state, bey.seat, divan, turn, own_lists=own_lists)
            if v is None:
                continue
            assert v.mine == sorted(set(v.mine))
            if own_lists:
                bots._buy(v, 40, [])
                assert v.mine == sorted(set(v.mine))
            threat = v.threat
            by_most = sorted(v.mine, key=threat.__getitem__, reverse=True)
            assert by_most == sorted(v.mine, key=lambda p: (-threat[p], p))
