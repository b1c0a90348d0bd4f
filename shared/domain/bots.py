"""Computer beys (R-11): orders and spending from the state and keyed draws only (R-11.2, R-12)."""

from __future__ import annotations

from dataclasses import dataclass, field

from shared.domain import rng
from shared.domain.commands import BuildSur, Command, HireMercenaries, PurchaseProvince
from shared.domain.map import MAX_UNITS, GameMap, game_map
from shared.domain.state import LAST_TREATY_DIVAN, Bey, Order, SeasonState

WORST_DIE = 2  # the fate die is uniform in {0, 1, 2}
SUR_COST, MERCENARY_COST, PURCHASE_COST = 3, 2, 4
MERCENARY_UNITS = 2
PURCHASE_MILIS = 2  # satın alma only up to milis 2
M8_GOLD = 15  # M-8
GURBET = 3
LAST_DIVAN = 16
KEEP_PCT = 0
HELPER_PCT = 0
BEY_EXTRA = 0


@dataclass(slots=True)
class _View:
    """One bey's reading of the board before Divan `divan`: plates index lists (0 unused)."""

    gm: GameMap
    seat: int
    divan: int
    seed: int
    bey: Bey
    owner: list[int | None]
    units: list[int]
    sur: list[bool]
    memleket_of: dict[int, int]
    friends: frozenset[int]  # never attacked: treaty in force or pending offer
    allies: frozenset[int]  # their advances into us are cancelled
    ceasefire: bool
    mine: list[int]
    threat: dict[int, int] = field(default_factory=dict)


def _view(state: SeasonState, seat: int, divan: int) -> _View | None:
    """The bey's view, or None when it is unknown or landless (R-9.2: nothing to order)."""
    bey = state.bey(seat)
    owner: list[int | None] = [None, *(p.owner for p in state.provinces)]
    mine = [p for p in range(1, len(owner)) if owner[p] == seat]
    if bey is None or not mine:
        return None
    in_force = divan <= LAST_TREATY_DIVAN  # every treaty ends at Divan 13
    treaties = [t for t in state.treaties if in_force and t.through_divan >= divan]
    pairs = [(t.pair(), t.kind) for t in treaties]
    pairs += [(o.pair(), "offer") for o in state.offers if in_force]
    friends = {a + b - seat for (a, b), _ in pairs if seat in (a, b)}
    allies = {a + b - seat for (a, b), kind in pairs if seat in (a, b) and kind == "alliance"}
    v = _View(
        gm=game_map(),
        seat=seat,
        divan=divan,
        seed=state.seed,
        bey=bey,
        owner=owner,
        units=[0, *(p.units for p in state.provinces)],
        sur=[False, *(p.sur for p in state.provinces)],
        memleket_of={b.seat: b.memleket for b in state.beys},
        friends=frozenset(friends),
        allies=frozenset(allies),
        ceasefire=state.ceasefire_divan == divan,
        mine=mine,
    )
    v.threat = {p: _threat(v, p) for p in mine}
    return v


def _bonus(v: _View, plate: int) -> int:
    """R-5.4: memleket +2, sur +1, hemşehri +1 for the plate's owner (0 when unowned)."""
    owner = v.owner[plate]
    if owner is None:
        return 0
    memleket = v.memleket_of[owner]
    region = v.gm.region_of
    return (2 if plate == memleket else 0) + v.sur[plate] + (region[plate] == region[memleket])


def _threat(v: _View, plate: int) -> int:
    """Strongest single-bey strike into `plate` (units − 1 of each bordering province);
    none under ceasefire (R-6.7) and none from allies, whose advances are cancelled (R-6.4)."""
    if v.ceasefire:
        return 0
    per_bey: dict[int, int] = {}
    for q in v.gm.neighbours(plate):
        o = v.owner[q]
        if o is not None and o != v.seat and o not in v.allies:
            per_bey[o] = per_bey.get(o, 0) + v.units[q] - 1
    return max(per_bey.values(), default=0)


def _keep(v: _View, plate: int) -> int:
    """Units `plate` keeps home: enough to hold its threat, the memleket even with the
    attacker's best die against its worst (R-5.4, R-11.2: keep the memleket)."""
    threat = v.threat.get(plate, 0)
    if threat == 0:
        return 1
    if plate == v.bey.memleket:
        return max(1, threat + WORST_DIE - _bonus(v, plate))
    return max(1, (threat - _bonus(v, plate)) * KEEP_PCT // 100)


def _available(v: _View) -> dict[int, int]:
    """Units each province may send away: at most units − 1 (R-4.2), above its keep."""
    return {p: max(0, v.units[p] - _keep(v, p)) for p in v.mine}


def _pending(bey: Bey) -> set[str]:
    return set(bey.missions) - set(bey.missions_done)


def _nearest_memleket(v: _View) -> int | None:
    """M-9: the memleket of the other bey whose memleket is nearest (ties: lower seat)."""
    others = [s for s in sorted(v.memleket_of) if s != v.seat]
    home = v.bey.memleket
    near = min(others, key=lambda s: (v.gm.distance(home, v.memleket_of[s]), s), default=None)
    return None if near is None else v.memleket_of[near]


def _value(v: _View, t: int) -> int:
    """What taking `t` is worth: a province (R-10.3), its gold (R-2.4), the home region
    (hemşehri, Bölge Beyi), missions M-2/M-4/M-9, memlekets (R-9.1); gurbet costs (R-7.3)."""
    gm, home = v.gm, v.bey.memleket
    pending = _pending(v.bey)
    value = 10 + 4 * gm[t].gold_yield
    value += 10 if gm[t].big_city and "M-2" in pending else 0
    in_region = gm.region_of[t] == gm.region_of[home]
    value += 3 if in_region or "M-4" in pending else 0
    value -= 4 if gm.distance(t, home) >= GURBET else 0
    owner = v.owner[t]
    if t == home:
        value += 30
    elif owner is not None and v.memleket_of.get(owner) == t:
        value += 8
    if "M-9" in pending and t == _nearest_memleket(v):
        value += 20
    return value


def _defence(v: _View, t: int) -> int | None:
    """Defence of `t` before the die (R-5.4), None when it must not be attacked: a treaty
    partner's (R-6.4, R-6.5) or any bey's under ceasefire (R-6.7). The owner's bordering
    provinces may send Destek or moves, so half of what they could send is counted too."""
    owner = v.owner[t]
    if owner is None:
        return v.units[t]
    if owner == v.seat or owner in v.friends or v.ceasefire:
        return None
    helpers = sum(v.units[q] - 1 for q in v.gm.neighbours(t) if v.owner[q] == owner)
    return v.units[t] + _bonus(v, t) + helpers * HELPER_PCT // 100 + BEY_EXTRA


def _ranked_targets(v: _View) -> list[tuple[int, int]]:
    """(target, units needed to win even with dice 0 against 2), best value per unit first."""
    border = sorted({t for p in v.mine for t in v.gm.neighbours(p) if v.owner[t] != v.seat})
    keyed = []
    for t in border:
        defence = _defence(v, t)
        if defence is None:
            continue
        jitter = rng.uniform_int(v.seed, v.divan, "bot", 8, v.seat, "target", t)
        keyed.append((-(_value(v, t) * 100 // (defence + 2) + jitter), t, defence + WORST_DIE + 1))
    return [(t, need) for _, t, need in sorted(keyed)]


def _attack(v: _View, avail: dict[int, int], orders: dict[int, Order]) -> None:
    """R-11.2: expand, one order per province; several provinces may join one group (R-5.2)."""
    for t, need in _ranked_targets(v):
        origins = sorted(
            (p for p in v.gm.neighbours(t) if p in avail and p not in orders and avail[p] > 0),
            key=lambda p: (-avail[p], p),
        )
        chosen, total = [], 0
        for p in origins:
            if total >= need:
                break
            chosen.append(p)
            total += avail[p]
        if total < need:
            continue
        for p in chosen:
            orders[p] = Order(p, "advance", t, min(avail[p], MAX_UNITS + need))
            avail[p] = 0


def _defend(v: _View, plates: list[int], avail: dict[int, int], orders: dict[int, Order]) -> None:
    """R-5.3: Destek from safe neighbours to a threatened own province short of holding."""
    for q in plates:
        threat = v.threat[q]
        if threat == 0:
            continue
        left = v.units[q] - (orders[q].units if q in orders else 0)
        short = threat + WORST_DIE - left - _bonus(v, q)
        helpers = sorted(
            (p for p in v.gm.neighbours(q) if p in avail and p not in orders and avail[p] > 0),
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
    """Steps over own provinces to the nearest one bordering someone else's (or unowned) il."""
    mine = set(v.mine)
    dist = {p: 0 for p in v.mine if any(q not in mine for q in v.gm.neighbours(p))}
    frontier = sorted(dist)
    while frontier:
        nxt = []
        for p in frontier:
            for q in v.gm.neighbours(p):
                if q in mine and q not in dist:
                    dist[q] = dist[p] + 1
                    nxt.append(q)
        frontier = sorted(nxt)
    return dist


def _advance_inland(v: _View, avail: dict[int, int], orders: dict[int, Order]) -> None:
    """R-11.2: interior provinces move their spare units one step toward the frontier."""
    dist = _frontier_distance(v)
    for p in v.mine:
        if p in orders or avail[p] <= 0 or dist.get(p, 0) == 0:
            continue
        closer = [q for q in v.gm.neighbours(p) if dist.get(q, 99) < dist[p]]
        best = min(closer, key=lambda q: (-v.threat.get(q, 0), v.units[q], q))
        orders[p] = Order(p, "advance", best, avail[p])


def plan_orders(state: SeasonState, seat: int, divan: int) -> tuple[Order, ...]:
    """R-11.2: the computer bey's orders for Divan `divan`: hold the memleket, expand into the
    best-value weak neighbours, support threatened provinces, bring interior units forward.
    A pure function of the state and keyed draws (R-12.1); landless: no orders (R-9.2)."""
    v = _view(state, seat, divan)
    if v is None:
        return ()
    avail = _available(v)
    orders: dict[int, Order] = {}
    home = v.bey.memleket
    if v.owner[home] == seat:
        _defend(v, [home], avail, orders)
    _attack(v, avail, orders)
    _defend(v, sorted(v.mine, key=lambda p: (-v.threat[p], p)), avail, orders)
    _advance_inland(v, avail, orders)
    return tuple(orders[p] for p in sorted(orders))


def _reserve(v: _View) -> int:
    """M-8 (R-10.1): keep 15 gold when the bey holds that mission and can still reach it."""
    if "M-8" not in _pending(v.bey):
        return 0
    income = sum(v.gm[p].gold_yield for p in v.mine)
    reachable = v.bey.gold + income * (LAST_DIVAN - v.divan + 1) >= M8_GOLD
    return M8_GOLD if reachable else 0


def _purchasable(v: _View) -> list[int]:
    """R-7.9: unowned neighbours with milis ≤ 2, best value first, safe from beys first."""
    border = {t for p in v.mine for t in v.gm.neighbours(p) if v.owner[t] is None}
    keyed = []
    for t in border:
        if v.units[t] > PURCHASE_MILIS:
            continue
        exposed = any(
            v.owner[q] not in (None, v.seat) and v.owner[q] not in v.friends
            for q in v.gm.neighbours(t)
        )
        keyed.append((exposed, -_value(v, t), t))
    return [t for *_, t in sorted(keyed)]


def _buy(v: _View, gold: int, out: list[Command]) -> int:
    """Satın alma while gold allows; each purchase opens new neighbours (applied in order)."""
    while gold >= PURCHASE_COST:
        choices = _purchasable(v)
        if not choices:
            break
        t = choices[0]
        out.append(PurchaseProvince(seat=v.seat, province=t))
        v.owner[t], v.units[t] = v.seat, 1
        v.mine = sorted([*v.mine, t])
        v.threat[t] = _threat(v, t)
        gold -= PURCHASE_COST
    return gold


def _wall(v: _View, gold: int, out: list[Command]) -> int:
    """Sur (once per province) on the memleket when its threat could take it (R-5.4)."""
    home = v.bey.memleket
    if gold < SUR_COST or v.owner[home] != v.seat or v.sur[home] or not v.threat[home]:
        return gold
    if v.units[home] + _bonus(v, home) > v.threat[home] + WORST_DIE + 1:
        return gold
    out.append(BuildSur(seat=v.seat, province=home))
    v.sur[home] = True
    return gold - SUR_COST


def _hire(v: _View, gold: int, out: list[Command]) -> None:
    """Paralı asker on the most threatened province (never above 12); with no threat and
    nothing to buy later, on the strongest province bordering the best target."""
    while gold >= MERCENARY_COST:
        open_ = [p for p in v.mine if v.units[p] + MERCENARY_UNITS <= MAX_UNITS]
        short = [
            (-(v.threat[p] + WORST_DIE - v.units[p] - _bonus(v, p)), p)
            for p in open_
            if v.threat[p] and v.threat[p] + WORST_DIE > v.units[p] + _bonus(v, p)
        ]
        if short:
            site = min(short)[1]
        elif _purchasable(v):
            return
        else:
            targets = [t for t, _ in _ranked_targets(v)]
            near = [p for p in open_ if targets and v.gm.are_neighbours(p, targets[0])]
            if not near:
                return
            site = min(near, key=lambda p: (-v.units[p], p))
        out.append(HireMercenaries(seat=v.seat, province=site))
        v.units[site] += MERCENARY_UNITS
        gold -= MERCENARY_COST


def plan_spending(state: SeasonState, seat: int, divan: int) -> list[Command]:
    """R-7.9, R-11.2: spend gold before Divan `divan`, applied in list order: purchases of
    cheap neighbours, a sur on a threatened memleket, mercenaries where the threat is worst.
    Never spends more than the bey's gold, nor below the M-8 reserve (R-10.1)."""
    v = _view(state, seat, divan)
    if v is None:
        return []
    reserve = _reserve(v)
    out: list[Command] = []
    gold = _buy(v, v.bey.gold - reserve, out)
    gold = _wall(v, gold, out)
    _hire(v, gold, out)
    return out


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
