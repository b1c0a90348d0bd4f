"""Hypothesis strategies: mid-season states and legal order sets built from the map."""

from __future__ import annotations

from hypothesis import strategies as st

from shared.domain.map import game_map
from shared.domain.state import Bey, Order, Province, SeasonState, Treaty

GM = game_map()


@st.composite
def states(draw: st.DrawFn, max_beys: int = 19) -> SeasonState:
    """A running season at a random Divan: beys with memlekets, owned land, treaties, gold."""
    n = draw(st.integers(2, max_beys))
    memlekets = draw(st.lists(st.integers(1, 81), min_size=n, max_size=n, unique=True))
    provinces = [Province(units=draw(st.integers(1, GM.full_milis[p] + 1))) for p in range(1, 82)]
    beys = []
    for seat, m in enumerate(memlekets, start=1):
        provinces[m - 1] = Province(seat, draw(st.integers(1, 12)), draw(st.booleans()))
        beys.append(
            Bey(
                seat=seat,
                memleket=m,
                computer=draw(st.booleans()),
                gold=draw(st.integers(0, 20)),
                hain_through=draw(st.none() | st.integers(1, 16)),
                missions=tuple(draw(st.permutations([f"M-{i}" for i in range(1, 11)]))[:2]),
            )
        )
    for plate in draw(st.lists(st.integers(1, 81), max_size=40, unique=True)):
        if plate not in memlekets:
            provinces[plate - 1] = Province(
                draw(st.integers(1, n)), draw(st.integers(1, 12)), draw(st.booleans())
            )
    divan = draw(st.integers(1, 16))
    treaties = {}
    for a, b in draw(st.lists(st.tuples(st.integers(1, n), st.integers(1, n)), max_size=8)):
        if a != b and divan <= 12:
            kind = draw(st.sampled_from(["pact", "alliance"]))
            pair = (min(a, b), max(a, b))
            treaties[pair] = Treaty(kind, *pair, draw(st.integers(divan, 12)))
    return SeasonState(
        season_id="prop",
        seed=draw(st.integers(0, 2**63)),
        phase="running",
        divan=divan - 1,
        beys=tuple(beys),
        provinces=tuple(provinces),
        treaties=tuple(sorted(treaties.values(), key=Treaty.pair)),
        ceasefire_divan=divan if draw(st.booleans()) else None,
    )


@st.composite
def order_sets(draw: st.DrawFn, state: SeasonState) -> dict[int, tuple[Order, ...]]:
    """Legal orders (own province, neighbour target, N ≥ 1) for a random subset of provinces."""
    orders: dict[int, list[Order]] = {}
    for plate, p in enumerate(state.provinces, start=1):
        if p.owner is None or not draw(st.booleans()):
            continue
        kind = draw(st.sampled_from(["advance", "advance", "support", "hold"]))
        target = draw(st.sampled_from(GM.neighbours(plate)))
        orders.setdefault(p.owner, []).append(Order(plate, kind, target, draw(st.integers(1, 12))))
    return {seat: tuple(os) for seat, os in orders.items()}
