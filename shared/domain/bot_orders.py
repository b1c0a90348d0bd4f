"""Computer beys (R-11.2): the orders, from targets by value, threats and keyed jitter (R-12.1)."""

from __future__ import annotations

from bisect import bisect_left
from itertools import accumulate

from shared.domain.bot_view import (
    JITTER,
    WORST_DIE,
    Turn,
    _bonus,
    _turn,
    _View,
    _view,
)
from shared.domain.map import MAX_UNITS
from shared.domain.state import (
    Order,
    SeasonState,
)


def _short(v: _View, plate: int, left: int) -> int:
    """Units `plate` lacks to hold its threat even with the attacker's best die (R-5.4, R-5.6)."""
    threat = v.threat.get(plate, 0)
    return max(0, threat + WORST_DIE - left - _bonus(v, plate)) if threat else 0


def _available(v: _View) -> dict[int, int]:
    """Units each province may send (≤ units − 1, R-4.2); the memleket keeps what holds it
    against its threat whatever the dice (R-11.2: keep the memleket)."""
    units = v.units
    home, avail = v.bey.memleket, {p: units[p] - 1 for p in v.mine}
    if home in avail:
        spare = units[home] + _bonus(v, home) - v.threat[home] - WORST_DIE
        avail[home] = max(0, min(avail[home], spare))
    return avail


def _value(v: _View, t: int) -> int:
    """What taking `t` is worth: a province (R-10.3), its gold (R-2.4), the home region
    (hemşehri, Bölge Beyi), missions M-2/M-4/M-9, memlekets (R-9.1); gurbet costs (R-7.3).
    The map's part is `_base_values`; an other bey's memleket adds 8, the M-9 rival's 28."""
    value = v.base[t]
    owner = v.owner[t]
    if owner is not None and t != v.bey.memleket and v.memleket_of.get(owner) == t:
        value += 28 if t == v.rival_home else 8
    return value


def _scored_targets(v: _View, spare: list[int] | None) -> list[tuple[int, int, int]]:
    """(−score, target, units needed) of every target `_ranked_targets` ranks, sorted, where
    score is value per unit (value × 100 // (defence + 2)) before the keyed jitter; `spare`:
    what each plate may send (index plate), None for MAX_UNITS from every plate (what
    `_best_target` asks: their sum is MAX_UNITS a neighbour). `_bonus` and `_value` are
    inlined: this is the turn's innermost loop."""
    nb, owner, units, sur, seat = v.gm.neighbours_at, v.owner, v.units, v.sur, v.seat
    region, memleket_of, base = v.gm.region_at, v.memleket_of, v.base
    home, rival, friends, ceasefire = v.bey.memleket, v.rival_home, v.friends, v.ceasefire
    # a dict, not a set: it iterates in insertion order (RELIABILITY 23); any order would do,
    # as the keys hold t and the sort decides alone
    border = {t: None for p in v.mine for t in nb[p] if owner[t] != seat}
    scored = []
    for t in border:
        o = owner[t]
        value = base[t]
        if o is None:
            defence = units[t]  # milis has no bonus
        elif o in friends or ceasefire:
            continue
        else:
            memleket = memleket_of[o]
            if t == memleket:
                defence = units[t] + 3 + sur[t]  # memleket +2 and its own region's +1
                if t != home:
                    value += 28 if t == rival else 8
            else:
                defence = units[t] + sur[t] + (region[t] == region[memleket])
        need = defence + WORST_DIE + 1
        if (MAX_UNITS * len(nb[t]) if spare is None else sum(map(spare.__getitem__, nb[t]))) < need:
            continue
        scored.append((-(value * 100 // (defence + 2)), t, need))
    scored.sort()
    return scored


def _jittered(v: _View, scored: list[tuple[int, int, int]], first_only: bool) -> list[int]:
    """The targets of `scored` in the order of their keys −(score + jitter), then plate, the
    jitter a keyed draw in [0, JITTER) per bey, target and Divan (R-12.1).

    A jitter moves a target past another only when their scores differ by less than JITTER:
    where two neighbours in score order are JITTER or more apart, every target before the gap
    stays before every one after it, whatever the draws. So the draws are made only inside
    runs of near-ties, and sorting each run by the whole key gives the order sorting them all
    by it would (with `first_only`, the first run alone: the first target)."""
    turn, seat, seen = v.turn, v.seat, v.turn.jitters
    out: list[int] = []
    i, n = 0, len(scored)
    while i < n:
        j = i + 1
        while j < n and scored[j][0] - scored[j - 1][0] < JITTER:
            j += 1
        if j == i + 1:
            out.append(scored[i][1])
        else:
            run = []
            for key, t, _ in scored[i:j]:
                jitter = seen.get((seat, t))
                if jitter is None:
                    jitter = turn.jitter(seat, t)
                run.append((key - jitter, t))
            run.sort()
            out.extend(t for _, t in run)
        if first_only:
            break
        i = j
    return out


def _ranked_targets(v: _View, avail: dict[int, int]) -> list[tuple[int, int]]:
    """(target, units to win even with dice 0 against 2, R-5.4) within reach, best value per
    unit first. A treaty partner's il (R-6.4, R-6.5) and, in a ceasefire, any bey's (R-6.7)
    are never targets; keyed jitter breaks near-ties per bey and Divan (R-12.1)."""
    spare = [0] * len(v.owner)
    for p, n in avail.items():
        spare[p] = n
    scored = _scored_targets(v, spare)
    need = {t: units for _, t, units in scored}
    return [(t, need[t]) for t in _jittered(v, scored, first_only=False)]


def _best_target(v: _View) -> int:
    """The first of `_ranked_targets` if every province could send MAX_UNITS; 0 if none."""
    first = _jittered(v, _scored_targets(v, None), first_only=True)
    return first[0] if first else 0


def _attack(v: _View, avail: dict[int, int], orders: dict[int, Order]) -> None:
    """R-11.2: expand, one order per province; several provinces join one group (R-5.2)."""
    nb = v.gm.neighbours_at
    for t, need in _ranked_targets(v, avail):
        origins = sorted(  # by (−avail, plate): a stable sort of ascending plates
            [p for p in nb[t] if avail.get(p, 0) > 0 and p not in orders],
            key=avail.__getitem__,
            reverse=True,
        )
        reach = list(accumulate(avail[p] for p in origins))
        if not reach or reach[-1] < need:
            continue
        for p in origins[: bisect_left(reach, need) + 1]:
            orders[p] = Order(p, "advance", t, avail[p])
            avail[p] = 0


def _defend(v: _View, plates: list[int], avail: dict[int, int], orders: dict[int, Order]) -> None:
    """R-5.3: Destek from neighbours with spare units to an own province short of holding."""
    nb, units = v.gm.neighbours_at, v.units
    for q in plates:
        short = _short(v, q, units[q] - (orders[q].units if q in orders else 0))
        if short <= 0:
            continue  # no helper is sent: the loop below would stop at once
        helpers = sorted(  # by (−avail, plate), as origins in _attack
            [p for p in nb[q] if avail.get(p, 0) > 0 and p not in orders],
            key=avail.__getitem__,
            reverse=True,
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
    nb, owner, seat = v.gm.neighbours_at, v.owner, v.seat
    dist: dict[int, int] = {}
    for p in v.mine:
        for q in nb[p]:
            if owner[q] != seat:
                dist[p] = 0
                break
    layer = list(dist)  # ascending: v.mine is
    while layer:
        nxt = [q for p in layer for q in nb[p] if owner[q] == seat and q not in dist]
        dist.update(dict.fromkeys(nxt, dist[layer[0]] + 1))
        layer = sorted(set(nxt))
    return dist


def _advance_inland(v: _View, avail: dict[int, int], orders: dict[int, Order]) -> None:
    """R-11.2: interior provinces move their spare units one step toward the frontier,
    to the most threatened neighbour that is closer (R-4.1: a move)."""
    dist = _frontier_distance(v)
    nb, threat, units = v.gm.neighbours_at, v.threat, v.units
    for p in v.mine:
        if p in orders or avail[p] <= 0 or dist.get(p, 0) == 0:
            continue
        here = dist[p]
        closer = [q for q in nb[p] if dist.get(q, here) < here]
        best = min(closer, key=lambda q: (-threat[q], units[q], q))
        orders[p] = Order(p, "advance", best, avail[p])


def plan_orders(
    state: SeasonState, seat: int, divan: int, turn: Turn | None = None
) -> tuple[Order, ...]:
    """R-11.2: the computer bey's orders for Divan `divan`: keep the memleket, expand into the
    best-value neighbours it surely beats, support threatened provinces, bring interior units
    forward. Pure in the state and keyed draws (R-12.1); landless: no orders (R-9.2).
    `turn`: the reading the turn's beys share (ADR-59); the orders are the same without it."""
    v = _view(state, seat, divan, _turn(state, divan, turn), own_lists=False)
    if v is None:
        return ()
    avail = _available(v)
    orders: dict[int, Order] = {}
    if v.bey.memleket in avail:
        _defend(v, [v.bey.memleket], avail, orders)
    _attack(v, avail, orders)
    threat = v.threat
    # by (−threat, plate): v.mine is ascending and the sort stable, reversed too
    _defend(v, sorted(v.mine, key=threat.__getitem__, reverse=True), avail, orders)
    _advance_inland(v, avail, orders)
    return tuple(orders[p] for p in sorted(orders))
