"""Computer beys (R-11): orders and spending from the state and keyed draws only (R-11.2, R-12)."""

from __future__ import annotations

from bisect import bisect_left
from itertools import accumulate

from shared.domain import rng
from shared.domain.commands import BuildSur, Command, HireMercenaries, PurchaseProvince
from shared.domain.draws import Draws
from shared.domain.map import MAX_UNITS, game_map
from shared.domain.rules.treaties import ACCEPT_PERCENT
from shared.domain.state import (
    DIVANS,
    LAST_TREATY_DIVAN,
    Bey,
    Offer,
    Order,
    SeasonState,
    Treaty,
    TreatyKind,
    computer_beys_offer,
    offer_key,
    perde,
)

WORST_DIE = 2  # the fate die is uniform in {0, 1, 2}
SUR_COST, MERCENARY_COST, PURCHASE_COST = 3, 2, 4
MERCENARY_UNITS, PURCHASE_MILIS = 2, 2  # +2 units; satın alma up to milis 2
M8_GOLD = 15  # M-8
GURBET = 3
OFFER_PERCENT = 30  # D-28: the chance a computer bey makes an offer at a Divan's lock
ALLIANCE_OFFER_PERCENT = 30  # D-28: an offer to a bey without a treaty is an alliance


class _View:
    """One bey's reading of the board before Divan `divan`; plate-indexed lists (0 unused)."""

    def __init__(self, state: SeasonState, bey: Bey, divan: int) -> None:
        self.gm = gm = game_map()
        self.seed, self.divan, self.bey, self.seat = state.seed, divan, bey, bey.seat
        seat = bey.seat
        self.owner: list[int | None] = [None, *[p.owner for p in state.provinces]]
        self.units = [0, *[p.units for p in state.provinces]]
        self.sur = [False, *[p.sur for p in state.provinces]]
        self.mine = [p for p, o in enumerate(self.owner) if o == seat]
        self.memleket_of = {b.seat: b.memleket for b in state.beys}
        in_force = divan <= LAST_TREATY_DIVAN  # no treaty from Divan 13 on
        treaties = [t for t in state.treaties if in_force and t.through_divan >= divan]
        offers = [  # only the bey's own offers matter below: no draw for anyone else's
            o
            for o in state.offers
            if in_force
            and seat in (o.frm, o.to)
            and _settled_at(state, o, divan)
            and _accepted(state, o, divan)
        ]
        deals: list[Treaty | Offer] = [*treaties, *offers]
        ours = [(sum(d.pair()) - seat, d) for d in deals if seat in d.pair()]
        # never attacked: a treaty in force, or an offer step 2 will accept
        self.friends = frozenset(s for s, _ in ours)
        self.allies = frozenset(s for s, d in ours if d.kind == "alliance" and d in treaties)
        self.ceasefire = state.ceasefire_divan == divan
        self.pending = frozenset(bey.missions) - frozenset(bey.missions_done)
        near = [(gm.distance(bey.memleket, b.memleket), b.seat, b.memleket) for b in state.beys]
        # M-9: the other bey whose memleket is nearest (ties: lower seat)
        self.rival_home = min([r for r in near if r[1] != seat] or [(0, 0, 0)])[2]
        self.threat = {p: _threat(self, p) for p in self.mine}


def _settled_at(state: SeasonState, offer: Offer, divan: int) -> bool:
    """Whether step 2 of Divan `divan` settles the offer (D-25). From rules/2 on (D-28), an
    offer left for a later Divan (one a bey made at this lock) shields nobody now; rules/1
    seasons keep reading every open offer, as they were recorded."""
    if not computer_beys_offer(state.rules_version):
        return True
    return state.offer_divans.get(offer_key(offer.frm, offer.to), divan) <= divan


def _accepted(state: SeasonState, offer: Offer, divan: int) -> bool:
    """Whether step 2 of Divan `divan` will accept the offer (R-6.1, R-6.3).

    A computer receiver answers with the season's keyed draw, which it can read beforehand as
    its own intention (R-11.2: state and season randomness only); a human receiver with its
    stored answer. A bot spares the offerer only then: an offer it is going to refuse shields
    nobody, so a human cannot stay safe by offering every bot a pact every Divan.
    """
    receiver = state.bey(offer.to)
    if receiver is not None and receiver.computer:
        return Draws(state.seed, divan).offer(offer.frm, offer.to, ACCEPT_PERCENT[offer.kind])
    return offer.answer == "accept"


def _view(state: SeasonState, seat: int, divan: int) -> _View | None:
    """The bey's view; None when it is unknown or landless (R-9.2: nothing to order)."""
    bey = state.bey(seat)
    landed = any(p.owner == seat for p in state.provinces)
    return _View(state, bey, divan) if bey is not None and landed else None


def _bonus(v: _View, plate: int) -> int:
    """R-5.4: memleket +2, sur +1, hemşehri +1 for the plate's owner (0 when unowned)."""
    owner = v.owner[plate]
    if owner is None:
        return 0
    memleket = v.memleket_of[owner]
    region = v.gm.region_of
    return (2 if plate == memleket else 0) + v.sur[plate] + (region[plate] == region[memleket])


def _threat(v: _View, plate: int) -> int:
    """The strongest one-bey strike into `plate` (units − 1 of its bordering provinces);
    none in a ceasefire (R-6.7), none by allies (R-6.4)."""
    if v.ceasefire:
        return 0
    per_bey: dict[int, int] = {}
    for q in v.gm.neighbours(plate):
        o = v.owner[q]
        if o is not None and o != v.seat and o not in v.allies:
            per_bey[o] = per_bey.get(o, 0) + v.units[q] - 1
    return max(per_bey.values(), default=0)


def _short(v: _View, plate: int, left: int) -> int:
    """Units `plate` lacks to hold its threat even with the attacker's best die (R-5.4, R-5.6)."""
    threat = v.threat.get(plate, 0)
    return max(0, threat + WORST_DIE - left - _bonus(v, plate)) if threat else 0


def _available(v: _View) -> dict[int, int]:
    """Units each province may send (≤ units − 1, R-4.2); the memleket keeps what holds it
    against its threat whatever the dice (R-11.2: keep the memleket)."""
    home, avail = v.bey.memleket, {p: v.units[p] - 1 for p in v.mine}
    if home in avail:
        spare = v.units[home] + _bonus(v, home) - v.threat[home] - WORST_DIE
        avail[home] = max(0, min(avail[home], spare))
    return avail


def _value(v: _View, t: int) -> int:
    """What taking `t` is worth: a province (R-10.3), its gold (R-2.4), the home region
    (hemşehri, Bölge Beyi), missions M-2/M-4/M-9, memlekets (R-9.1); gurbet costs (R-7.3)."""
    gm, home = v.gm, v.bey.memleket
    value = 10 + 4 * gm[t].gold_yield
    value += 10 if gm[t].big_city and "M-2" in v.pending else 0
    in_region = gm.region_of[t] == gm.region_of[home]
    value += 3 if in_region or "M-4" in v.pending else 0
    value -= 4 if gm.distance(t, home) >= GURBET else 0
    owner = v.owner[t]
    if t == home:
        value += 30
    elif owner is not None and v.memleket_of.get(owner) == t:
        value += 8
        value += 20 if "M-9" in v.pending and t == v.rival_home else 0
    return value


def _ranked_targets(v: _View, avail: dict[int, int]) -> list[tuple[int, int]]:
    """(target, units to win even with dice 0 against 2, R-5.4) within reach, best value per
    unit first. A treaty partner's il (R-6.4, R-6.5) and, in a ceasefire, any bey's (R-6.7)
    are never targets; keyed jitter breaks near-ties per bey and Divan (R-12.1)."""
    gm = v.gm
    border = {t for p in v.mine for t in gm.neighbours(p) if v.owner[t] != v.seat}
    keyed = []
    for t in sorted(border):
        owner = v.owner[t]
        if owner is not None and (owner in v.friends or v.ceasefire):
            continue
        defence = v.units[t] + _bonus(v, t)
        need = defence + WORST_DIE + 1
        if sum(avail.get(p, 0) for p in gm.neighbours(t)) < need:
            continue
        jitter = rng.uniform_int(v.seed, v.divan, "bot", 8, v.seat, "target", t)
        keyed.append((-(_value(v, t) * 100 // (defence + 2) + jitter), t, need))
    return [(t, need) for _, t, need in sorted(keyed)]


def _attack(v: _View, avail: dict[int, int], orders: dict[int, Order]) -> None:
    """R-11.2: expand, one order per province; several provinces join one group (R-5.2)."""
    for t, need in _ranked_targets(v, avail):
        origins = sorted(
            (p for p in v.gm.neighbours(t) if avail.get(p, 0) > 0 and p not in orders),
            key=lambda p: (-avail[p], p),
        )
        reach = list(accumulate(avail[p] for p in origins))
        if not reach or reach[-1] < need:
            continue
        for p in origins[: bisect_left(reach, need) + 1]:
            orders[p] = Order(p, "advance", t, avail[p])
            avail[p] = 0


def _defend(v: _View, plates: list[int], avail: dict[int, int], orders: dict[int, Order]) -> None:
    """R-5.3: Destek from neighbours with spare units to an own province short of holding."""
    for q in plates:
        short = _short(v, q, v.units[q] - (orders[q].units if q in orders else 0))
        helpers = sorted(
            (p for p in v.gm.neighbours(q) if avail.get(p, 0) > 0 and p not in orders),
            key=lambda p: (-avail[p], p),
        )
        for p in helpers:
            if short <= 0:
                break
            sent = min(avail[p], short)
            orders[p] = Order(p, "support", q, sent)
            avail[p] -= sent
            short -= sent


def _frontier_distance(v: _View) -> dict[int, int]:
    """Steps over own provinces to the nearest one bordering an il that is not the bey's."""
    mine = set(v.mine)
    dist = {p: 0 for p in v.mine if any(q not in mine for q in v.gm.neighbours(p))}
    layer = sorted(dist)
    while layer:
        nxt = [q for p in layer for q in v.gm.neighbours(p) if q in mine and q not in dist]
        dist.update(dict.fromkeys(nxt, dist[layer[0]] + 1))
        layer = sorted(set(nxt))
    return dist


def _advance_inland(v: _View, avail: dict[int, int], orders: dict[int, Order]) -> None:
    """R-11.2: interior provinces move their spare units one step toward the frontier,
    to the most threatened neighbour that is closer (R-4.1: a move)."""
    dist = _frontier_distance(v)
    for p in v.mine:
        if p in orders or avail[p] <= 0 or dist.get(p, 0) == 0:
            continue
        closer = [q for q in v.gm.neighbours(p) if dist.get(q, dist[p]) < dist[p]]
        best = min(closer, key=lambda q: (-v.threat[q], v.units[q], q))
        orders[p] = Order(p, "advance", best, avail[p])


def plan_orders(state: SeasonState, seat: int, divan: int) -> tuple[Order, ...]:
    """R-11.2: the computer bey's orders for Divan `divan`: keep the memleket, expand into the
    best-value neighbours it surely beats, support threatened provinces, bring interior units
    forward. Pure in the state and keyed draws (R-12.1); landless: no orders (R-9.2)."""
    v = _view(state, seat, divan)
    if v is None:
        return ()
    avail = _available(v)
    orders: dict[int, Order] = {}
    if v.bey.memleket in avail:
        _defend(v, [v.bey.memleket], avail, orders)
    _attack(v, avail, orders)
    _defend(v, sorted(v.mine, key=lambda p: (-v.threat[p], p)), avail, orders)
    _advance_inland(v, avail, orders)
    return tuple(orders[p] for p in sorted(orders))


def _reserve(v: _View) -> int:
    """M-8 (R-10.1): keep 15 gold while the mission is pending and still reachable."""
    income = sum(v.gm[p].gold_yield for p in v.mine) * (DIVANS - v.divan + 1)
    return M8_GOLD if "M-8" in v.pending and v.bey.gold + income >= M8_GOLD else 0


def _purchasable(v: _View) -> list[int]:
    """R-7.9: unowned neighbours with milis ≤ 2; away from other beys, then by value."""
    gm = v.gm
    border = {t for p in v.mine for t in gm.neighbours(p) if v.owner[t] is None}
    keyed = []
    for t in sorted(border):
        if v.units[t] <= PURCHASE_MILIS:
            exposed = any(v.owner[q] not in (None, v.seat) for q in gm.neighbours(t))
            keyed.append((exposed, -_value(v, t), t))
    return [t for *_, t in sorted(keyed)]


def _buy(v: _View, gold: int, out: list[Command]) -> int:
    """Satın alma while gold allows; each purchase opens new neighbours (list order)."""
    while gold >= PURCHASE_COST and (choices := _purchasable(v)):
        t = choices[0]
        out.append(PurchaseProvince(seat=v.seat, province=t))
        v.owner[t], v.units[t] = v.seat, 1
        v.mine = sorted([*v.mine, t])
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
    every = dict.fromkeys(range(1, 82), MAX_UNITS)
    best = next(iter(_ranked_targets(v, every)), (0, 0))[0] if gold >= MERCENARY_COST else 0
    while gold >= MERCENARY_COST:
        room = [p for p in v.mine if v.units[p] + MERCENARY_UNITS <= MAX_UNITS]
        short = [(-_short(v, p, v.units[p]), p) for p in room if _short(v, p, v.units[p])]
        near = [p for p in room if best and v.gm.are_neighbours(p, best)]
        if short:
            site = min(short)[1]
        elif _purchasable(v) or not near:
            return gold  # saving for satın alma is the better buy
        else:
            site = min(near, key=lambda p: (-v.units[p], p))
        out.append(HireMercenaries(seat=v.seat, province=site))
        v.units[site] += MERCENARY_UNITS
        gold -= MERCENARY_COST
    return gold


def plan_spending(state: SeasonState, seat: int, divan: int) -> list[Command]:
    """R-7.9, R-11.2: spending before Divan `divan`, applied in list order: cheap neighbours
    bought, a sur on a threatened memleket, mercenaries where the threat is worst, then sur on
    other threatened provinces. Never more than the gold, nor below the M-8 reserve (R-10.1)."""
    v = _view(state, seat, divan)
    if v is None:
        return []
    out: list[Command] = []
    gold = _buy(v, v.bey.gold - _reserve(v), out)
    home = [v.bey.memleket] if v.bey.memleket in v.threat else []
    gold = _hire(v, _walls(v, home, gold, out), out)
    _walls(v, sorted(v.mine, key=lambda p: (-v.threat[p], p)), gold, out)
    return out


def _offer_partners(state: SeasonState, seat: int, nxt: int) -> list[tuple[int, bool]]:
    """D-28: (seat, pact in force) of every bey owning an il bordering the bey's land, in seat
    order, that it may offer something for Divan `nxt` (R-6.1, R-6.2): no open offer of the
    pair, no alliance in force then, no Hain badge worn then (R-6.5: a traitor is not trusted).
    """
    gm = game_map()
    mine = state.owned_by(seat)
    near = {state.province(q).owner for p in mine for q in gm.neighbours(p)} - {None, seat}
    out = []
    for other in sorted(s for s in near if s is not None):
        bey = state.bey(other)
        if bey is None or (bey.hain_through is not None and bey.hain_through >= nxt):
            continue
        if state.offer_between(seat, other) is not None:
            continue
        t = state.treaty_between(seat, other)
        in_force = t is not None and t.through_divan >= nxt
        if in_force and t is not None and t.kind == "alliance":
            continue
        out.append((other, in_force))
    return out


def plan_offer(state: SeasonState, seat: int, divan: int) -> Offer | None:
    """D-28 (R-6.1): at Divan `divan`'s lock a computer bey may offer one neighbour a treaty,
    settled at Divan `divan` + 1, humans and computer beys alike: with probability 30 %, a
    neighbour drawn uniformly among those it may offer to; an alliance to a pact partner, else
    an alliance with probability 30 % and a pact otherwise. Never for perde 3 (R-6.6), never by
    a landless bey (R-9.2). Keyed draws ("bot", divan, seat, "offer" …), R-12.1."""
    nxt = divan + 1
    if nxt > LAST_TREATY_DIVAN or perde(nxt) == 3 or not state.owned_by(seat):
        return None
    if not rng.chance(state.seed, divan, "bot", OFFER_PERCENT, seat, "offer"):
        return None
    chosen = rng.choose(state.seed, divan, "bot", _offer_partners(state, seat, nxt), seat, "to")
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
