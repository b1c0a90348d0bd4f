"""Computer beys (R-11): orders and spending from the state and keyed draws only (R-11.2, R-12)."""

from __future__ import annotations

from bisect import insort

from shared.domain import rng
from shared.domain.bot_orders import (
    _best_target,
    _short,
    _value,
    plan_orders,
)
from shared.domain.bot_view import (
    ALLIANCE_OFFER_PERCENT,
    M8_GOLD,
    MERCENARY_COST,
    MERCENARY_UNITS,
    OFFER_PERCENT,
    PURCHASE_COST,
    PURCHASE_MILIS,
    SUR_COST,
    Turn,
    _Board,
    _threat,
    _turn,
    _View,
    _view,
)
from shared.domain.commands import BuildSur, Command, HireMercenaries, PurchaseProvince
from shared.domain.map import MAX_UNITS, game_map
from shared.domain.state import (
    DIVANS,
    LAST_TREATY_DIVAN,
    Offer,
    Order,
    SeasonState,
    Treaty,
    TreatyKind,
    perde,
)

# The computer beys' one door (lifecycle, the resolver, benches): orders live in bot_orders,
# what a bey sees in bot_view.
__all__ = ["Turn", "plan_hold", "plan_offer", "plan_orders", "plan_random", "plan_spending"]


def _reserve(v: _View) -> int:
    """M-8 (R-10.1): keep 15 gold while the mission is pending and still reachable."""
    if "M-8" not in v.pending:
        return 0
    gold = v.gm.gold_at
    income = sum([gold[p] for p in v.mine]) * (DIVANS - v.divan + 1)
    return M8_GOLD if v.bey.gold + income >= M8_GOLD else 0


def _cheapest(v: _View) -> int | None:
    """R-7.9: the first unowned neighbour with milis ≤ 2, away from other beys, then by
    value (the order `_buy` takes them in); None when there is none."""
    nb, owner, units, seat = v.gm.neighbours_at, v.owner, v.units, v.seat
    border = {t: None for p in v.mine for t in nb[p] if owner[t] is None}  # as in _keyed_targets
    best = None
    for t in border:  # any order: the keys hold t, so the minimum is one plate
        if units[t] <= PURCHASE_MILIS:
            exposed = False
            for q in nb[t]:
                o = owner[q]
                if o is not None and o != seat:
                    exposed = True
                    break
            key = (exposed, -_value(v, t), t)
            if best is None or key < best:
                best = key
    return None if best is None else best[2]


def _buy(v: _View, gold: int, out: list[Command]) -> int:
    """Satın alma while gold allows; each purchase opens new neighbours (list order)."""
    while gold >= PURCHASE_COST and (t := _cheapest(v)) is not None:
        out.append(PurchaseProvince(seat=v.seat, province=t))
        v.owner[t], v.units[t] = v.seat, 1
        insort(v.mine, t)
        v.threat[t] = _threat(v, t)
        gold -= PURCHASE_COST
    return gold


def _walls(v: _View, plates: list[int], gold: int, out: list[Command]) -> int:
    """Sur, once per province (R-7.9), where a threat could take the province."""
    for p in plates:
        if gold >= SUR_COST and not v.sur[p] and _short(v, p, v.units[p] - 1) > 0:
            out.append(BuildSur(seat=v.seat, province=p))
            v.sur[p] = True
            gold -= SUR_COST
    return gold


def _hire(v: _View, gold: int, out: list[Command]) -> int:
    """Paralı asker on the most threatened province (never above 12); with no threat and
    nothing left to buy, on the strongest province bordering the best target."""
    if gold < MERCENARY_COST:
        return gold
    best = _best_target(v)
    beside = v.gm.neighbour_sets[best] if best else frozenset()
    buyable: bool | None = None  # hiring moves no il's owner: what may be bought stays put
    units = v.units
    while gold >= MERCENARY_COST:
        short, near = [], []
        for p in v.mine:
            if units[p] + MERCENARY_UNITS <= MAX_UNITS:
                lacks = _short(v, p, units[p])
                if lacks:
                    short.append((-lacks, p))
                if p in beside:
                    near.append(p)
        if short:
            site = min(short)[1]
        else:
            if buyable is None:
                buyable = _cheapest(v) is not None
            if buyable or not near:
                return gold  # saving for satın alma is the better buy
            site = min(near, key=lambda p: (-units[p], p))
        out.append(HireMercenaries(seat=v.seat, province=site))
        units[site] += MERCENARY_UNITS
        gold -= MERCENARY_COST
    return gold


def plan_spending(
    state: SeasonState, seat: int, divan: int, turn: Turn | None = None
) -> list[Command]:
    """R-7.9, R-11.2: spending before Divan `divan`, applied in list order: cheap neighbours
    bought, a sur on a threatened memleket, mercenaries where the threat is worst, then sur on
    other threatened provinces. Never more than the gold, nor below the M-8 reserve (R-10.1).
    `turn`: the reading the turn's beys share (ADR-59); the spending is the same without it."""
    v = _view(state, seat, divan, _turn(state, divan, turn), own_lists=True)
    if v is None:
        return []
    out: list[Command] = []
    gold = _buy(v, v.bey.gold - _reserve(v), out)
    home = [v.bey.memleket] if v.bey.memleket in v.threat else []
    gold = _hire(v, _walls(v, home, gold, out), out)
    threat = v.threat
    # by (−threat, plate): v.mine is ascending and the sort stable, reversed too
    _walls(v, sorted(v.mine, key=threat.__getitem__, reverse=True), gold, out)
    return out


def _offer_partners(
    state: SeasonState, seat: int, nxt: int, board: _Board
) -> list[tuple[int, bool]]:
    """D-28: (seat, pact in force) of every bey owning an il bordering the bey's land, in seat
    order, that it may offer something for Divan `nxt` (R-6.1, R-6.2): no open offer of the
    pair, no alliance in force then, no Hain badge worn then (R-6.5: a traitor is not trusted).
    """
    nb, owner = game_map().neighbours_at, board.owner
    near = {owner[q] for p in board.land.get(seat, ()) for q in nb[p]} - {None, seat}
    out = []
    open_pairs = {o.pair() for o in state.offers}  # SeasonState.offer_between, once
    treaties: dict[tuple[int, int], Treaty] = {}  # SeasonState.treaty_between: the first
    for treaty in state.treaties:
        treaties.setdefault(treaty.pair(), treaty)
    for other in sorted(s for s in near if s is not None):
        bey = board.by_seat.get(other)
        if bey is None or (bey.hain_through is not None and bey.hain_through >= nxt):
            continue
        pair = (min(seat, other), max(seat, other))
        if pair in open_pairs:
            continue
        t = treaties.get(pair)
        in_force = t is not None and t.through_divan >= nxt
        if in_force and t is not None and t.kind == "alliance":
            continue
        out.append((other, in_force))
    return out


def plan_offer(state: SeasonState, seat: int, divan: int, turn: Turn | None = None) -> Offer | None:
    """D-28 (R-6.1): at Divan `divan`'s lock a computer bey may offer one neighbour a treaty,
    settled at Divan `divan` + 1, humans and computer beys alike: with probability 30 %, a
    neighbour drawn uniformly among those it may offer to; an alliance to a pact partner, else
    an alliance with probability 30 % and a pact otherwise. Never for perde 3 (R-6.6), never by
    a landless bey (R-9.2). Keyed draws ("bot", divan, seat, "offer" …), R-12.1."""
    nxt = divan + 1
    if nxt > LAST_TREATY_DIVAN or perde(nxt) == 3:
        return None
    board = _turn(state, divan, turn).board(state)
    if seat not in board.land:
        return None
    if not rng.chance(state.seed, divan, "bot", OFFER_PERCENT, seat, "offer"):
        return None
    partners = _offer_partners(state, seat, nxt, board)
    chosen = rng.choose(state.seed, divan, "bot", partners, seat, "to")
    if chosen is None:
        return None
    other, pact_in_force = chosen
    alliance = pact_in_force or rng.chance(
        state.seed, divan, "bot", ALLIANCE_OFFER_PERCENT, seat, "offer", "kind"
    )
    kind: TreatyKind = "alliance" if alliance else "pact"
    return Offer(kind, seat, other)


def plan_hold(state: SeasonState, seat: int, divan: int) -> tuple[Order, ...]:
    """Baseline: Bekle everywhere (R-4.1, R-11.3)."""
    return ()


def plan_random(state: SeasonState, seat: int, divan: int) -> tuple[Order, ...]:
    """Baseline: every province with ≥ 2 units draws hold, advance or support to a uniform
    neighbour with 1 … units − 1 units (R-4.2), by keyed draws (R-12.1)."""
    gm, seed = game_map(), state.seed
    orders = []
    for plate, p in enumerate(state.provinces, start=1):
        if p.owner != seat or p.units < 2:
            continue
        kind = rng.uniform_int(seed, divan, "bot", 3, seat, "random", plate, "kind")
        target = rng.choose(seed, divan, "bot", gm.neighbours(plate), seat, "random", plate)
        if kind == 0 or target is None:
            continue
        units = 1 + rng.uniform_int(seed, divan, "bot", p.units - 1, seat, "random", plate, "n")
        orders.append(Order(plate, "advance" if kind == 1 else "support", target, units))
    return tuple(orders)
