"""ADR-117 (issue 21): what is particular to an order kind is declared once, in
`shared.domain.rules.kinds.ORDER_KINDS`; decide, step 3's reading and classification, the
report's words and explain dispatch through it. These tests fail when an `OrderKind` has no
spec, when a spec is not whole, and when the table's order stops being step 3's (R-5.3)."""

from __future__ import annotations

from typing import get_args

import pytest

from shared.domain import messages as m
from shared.domain.board import Board
from shared.domain.decide import order_refusal
from shared.domain.map import game_map
from shared.domain.report_lines import order_dropped
from shared.domain.rules.kinds import ORDER_KINDS, Dropped
from shared.domain.rules.orders import blocs, classify, read_orders
from shared.domain.state import Bey, Order, OrderKind, Province, SeasonState, Treaty

GM = game_map()
TARGETED = [k for k, spec in ORDER_KINDS.items() if spec.targeted]


def _state(
    provinces: dict[int, Province], beys: tuple[Bey, ...], treaties: tuple[Treaty, ...] = ()
) -> SeasonState:
    return SeasonState(
        divan=3,
        beys=beys,
        treaties=treaties,
        provinces=tuple(provinces.get(p, Province(units=GM.full_milis[p])) for p in range(1, 82)),
    )


def test_every_order_kind_has_exactly_one_spec() -> None:
    """A new `OrderKind` literal without its spec fails here (typing does not force it)."""
    assert sorted(ORDER_KINDS) == sorted(get_args(OrderKind))


@pytest.mark.parametrize("kind", sorted(ORDER_KINDS))
def test_a_spec_is_whole(kind: OrderKind) -> None:
    """A targeted kind is read and classified at step 3, has its bey's report words and its
    ops name (`explain.kind.<kind>`); a kind without a target (Bekle) has none of them."""
    spec = ORDER_KINDS[kind]
    if spec.targeted:
        assert spec.classify is not None
        assert spec.yours is not None
        assert all(spec.yours)
        assert f"explain.kind.{kind}" in m.CATALOGUE
    else:
        assert (spec.classify, spec.yours, spec.battle_support) == (None, None, False)


@pytest.mark.parametrize("kind", sorted(ORDER_KINDS))
def test_decide_asks_a_target_only_of_a_targeted_kind(kind: OrderKind) -> None:
    """R-4.1: an order without a target is refused `missing_target` exactly when its kind names
    one; Bekle needs none."""
    state = _state({6: Province(1, 5)}, (Bey(seat=1, memleket=6),))
    refusal = order_refusal(state, 1, Order(6, kind), set())
    if ORDER_KINDS[kind].targeted:
        assert refusal is not None
        assert refusal.code == "missing_target"
    else:
        assert refusal is None


@pytest.mark.parametrize("kind", TARGETED)
def test_a_dropped_order_names_its_kind_in_its_bey_report(kind: OrderKind) -> None:
    """R-6.7: the report's line for a cancelled order says its kind's own words."""
    words = ORDER_KINDS[kind].yours
    assert words is not None
    line = order_dropped(Dropped(1, 6, 71, kind, 2, "ceasefire", 2))
    assert words[0] in line.tr
    assert words[1] in line.en
    assert line.data["order"] == kind


def test_step_3_reads_no_untargeted_order() -> None:
    """R-4.1: Bekle does nothing, even given a target."""
    board = Board.of(_state({6: Province(1, 5)}, (Bey(seat=1, memleket=6),)), 4)
    untargeted = [k for k, spec in ORDER_KINDS.items() if not spec.targeted]
    effective, dropped = read_orders(board, {1: [Order(6, k, 71, 2) for k in untargeted]})
    assert (effective, dropped) == ([], [])


def test_supports_are_classified_after_every_advance_whatever_their_origin() -> None:
    """R-5.3 and the table's order: a support from Ankara (6) into Çankırı (18), a lower
    origin than its ally's advance from Kırıkkale (71), is read first yet counts as that
    advance's attack support, since every advance is classified before any support."""
    beys = (Bey(seat=1, memleket=6), Bey(seat=2, memleket=71))
    state = _state({6: Province(1, 5), 71: Province(2, 5)}, beys, (Treaty("alliance", 1, 2, 12),))
    board = Board.of(state, 4)
    orders = {1: [Order(6, "support", 18, 2)], 2: [Order(71, "advance", 18, 3)]}
    effective, _ = read_orders(board, orders)
    assert [o.kind for _s, o in effective] == ["support", "advance"]  # by origin: 6 before 71
    c = classify(board, effective, False, blocs(board))
    assert [(s.seat, s.defence, s.bloc) for s in c.supports] == [(1, False, 1)]
    assert (c.void, c.dropped) == ([], [])


def test_r5_3_the_lower_seat_of_a_pact_defends_its_partner() -> None:
    """R-5.3: a support into a treaty partner's province is a defence, whichever of the two has
    the lower seat (the treaty is stored once, as seats a < b). Bey 1 (Ankara, 6) has a pact with
    bey 2 and backs Kırıkkale (71) against bey 3's advance from Çankırı (18)."""
    beys = (Bey(seat=1, memleket=6), Bey(seat=2, memleket=71), Bey(seat=3, memleket=18))
    provinces = {6: Province(1, 5), 71: Province(2, 5), 18: Province(3, 5)}
    state = _state(provinces, beys, (Treaty("pact", 1, 2, 12),))
    board = Board.of(state, 4)
    orders = {1: [Order(6, "support", 71, 2)], 3: [Order(18, "advance", 71, 3)]}
    effective, _ = read_orders(board, orders)
    c = classify(board, effective, False, blocs(board))
    assert [(s.seat, s.origin, s.target, s.units, s.defence) for s in c.supports] == [
        (1, 6, 71, 2, True)
    ]
    assert (c.void, c.dropped) == ([], [])


def test_r5_3_every_support_is_read_after_one_that_backs_an_ally() -> None:
    """R-5.3: bey 1 backs its ally bey 2's advance from Kırıkkale (71) into bey 3's Çankırı (18)
    from Ankara (6), then supports from Konya (42) into bey 3's Eskişehir (26), which no ally
    of its attacks: that second support is void, and its record names Eskişehir's owner (3),
    as the bey's report does (R-13)."""
    beys = (Bey(seat=1, memleket=6), Bey(seat=2, memleket=71), Bey(seat=3, memleket=18))
    provinces = {
        6: Province(1, 5),
        42: Province(1, 5),
        71: Province(2, 5),
        18: Province(3, 5),
        26: Province(3, 5),
    }
    state = _state(provinces, beys, (Treaty("alliance", 1, 2, 12),))
    board = Board.of(state, 4)
    orders = {
        1: [Order(6, "support", 18, 2), Order(42, "support", 26, 4)],
        2: [Order(71, "advance", 18, 3)],
    }
    effective, _ = read_orders(board, orders)
    c = classify(board, effective, False, blocs(board))
    assert [(s.seat, s.origin, s.target, s.defence, s.bloc) for s in c.supports] == [
        (1, 6, 18, False, blocs(board)[2])
    ]
    assert c.void == [(1, 42, 26)]
    assert c.dropped == [Dropped(1, 42, 26, "support", 4, "void_support", 3)]
