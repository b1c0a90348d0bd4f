"""Computer beys (R-11): orders and spending from the state and keyed draws only (R-11.2, R-12)."""

from __future__ import annotations

from bisect import bisect_left, insort
from functools import cache
from itertools import accumulate, compress
from operator import is_not

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
    Province,
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
JITTER = 8  # a target's keyed jitter is uniform in {0, …, 7}, breaking near-ties


class Turn:
    """What the computer beys of one turn at Divan `divan` read alike (ADR-59): the board, the
    treaties and offers that stand, and their keyed draws, built once and shared by every bey
    instead of once per bey and plan.

    Each reading remembers the state fields it was built from and is rebuilt as soon as a
    state given to it holds other ones (a purchase replaces `provinces`, an offer `offers`):
    those fields are frozen tuples and dicts the reading keeps alive, so an identity check
    says exactly whether it still reads the same state. The draws are pure functions of
    (seed, Divan, key), cached by key. Nothing here outlives the turn (no module state), and
    a plan given no Turn builds its own: the outcome is the same with or without one.
    """

    __slots__ = ("_accepts", "_board", "_deals", "_streams", "divan", "jitters", "seed")

    def __init__(self, seed: int, divan: int) -> None:
        self.seed, self.divan = seed, divan
        self._board: _Board | None = None
        self._deals: _Deals | None = None
        self.jitters: dict[tuple[int, int], int] = {}  # (seat, target) -> jitter
        self._streams: dict[int, rng.Stream] = {}
        self._accepts: dict[tuple[int, int, int], bool] = {}

    def board(self, state: SeasonState) -> _Board:
        board = self._board
        if board is None:
            board = self._board = _Board.of(state)
        elif board.provinces is not state.provinces or board.beys is not state.beys:
            board = self._board = board.after(state)
        return board

    def deals(self, state: SeasonState) -> _Deals:
        deals = self._deals
        if deals is None or not deals.reads(state):
            deals = self._deals = _Deals(state, self)
        return deals

    def jitter(self, seat: int, target: int) -> int:
        """R-12.1: `rng.uniform_int(seed, divan, "bot", JITTER, seat, "target", target)`."""
        key = (seat, target)
        value = self.jitters.get(key)
        if value is None:
            stream = self._streams.get(seat)
            if stream is None:
                stream = self._streams[seat] = rng.Stream(
                    self.seed, self.divan, "bot", seat, "target"
                )
            value = self.jitters[key] = stream.uniform_int(JITTER, str(target))
        return value

    def accepts(self, frm: int, to: int, percent: int) -> bool:
        """R-6.3: a computer receiver's keyed answer, `Draws(seed, divan).offer(...)`."""
        key = (frm, to, percent)
        answer = self._accepts.get(key)
        if answer is None:
            answer = self._accepts[key] = Draws(self.seed, self.divan).offer(frm, to, percent)
        return answer


def _turn(state: SeasonState, divan: int, turn: Turn | None) -> Turn:
    """The turn's shared reading, or a fresh one when none (or another Divan's) is given."""
    if turn is None or turn.seed != state.seed or turn.divan != divan:
        return Turn(state.seed, divan)
    return turn


class _Board:
    """The provinces as plate-indexed lists (0 unused), each seat's land, the beys by seat.
    Never changed once built: a later state gets a new board (`after`), so a view that reads
    one never sees it move."""

    __slots__ = ("beys", "by_seat", "land", "memleket_of", "owner", "provinces", "sur", "units")

    provinces: tuple[Province, ...]
    beys: tuple[Bey, ...]
    owner: list[int | None]
    units: list[int]
    sur: list[bool]
    land: dict[int, list[int]]  # seat -> its plates, ascending; only seats with land
    memleket_of: dict[int, int]
    by_seat: dict[int, Bey]

    @classmethod
    def of(cls, state: SeasonState) -> _Board:
        board = cls()
        board.provinces = provinces = state.provinces
        board.owner = owner = [None, *[p.owner for p in provinces]]
        board.units = [0, *[p.units for p in provinces]]
        board.sur = [False, *[p.sur for p in provinces]]
        land: dict[int, list[int]] = {}
        for plate, seat in enumerate(owner):
            if seat is not None:
                if seat in land:
                    land[seat].append(plate)
                else:
                    land[seat] = [plate]
        board.land = land
        board._read_beys(state.beys)
        return board

    def after(self, state: SeasonState) -> _Board:
        """The board of a later state of the turn: only the provinces that are other objects
        are read again (a spend replaces one), the rest is this board's."""
        old, new = self.provinces, state.provinces
        if len(old) != len(new):
            return _Board.of(state)
        board = _Board()
        board.provinces = new
        board.owner, board.units, board.sur, board.land = (
            self.owner,
            self.units,
            self.sur,
            self.land,
        )
        changed = list(compress(range(1, len(new) + 1), map(is_not, old, new)))
        if changed:
            owner, units, sur = list(self.owner), list(self.units), list(self.sur)
            land = dict(self.land)
            for plate in changed:
                p, before = new[plate - 1], owner[plate]
                owner[plate], units[plate], sur[plate] = p.owner, p.units, p.sur
                if p.owner == before:
                    continue
                if before is not None:
                    rest = [q for q in land[before] if q != plate]
                    if rest:
                        land[before] = rest
                    else:
                        del land[before]
                if p.owner is not None:
                    land[p.owner] = sorted([*land.get(p.owner, ()), plate])
            board.owner, board.units, board.sur, board.land = owner, units, sur, land
        if state.beys is self.beys:
            board.beys, board.memleket_of, board.by_seat = self.beys, self.memleket_of, self.by_seat
        else:
            board._read_beys(state.beys)
        return board

    def _read_beys(self, beys: tuple[Bey, ...]) -> None:
        self.beys = beys
        self.memleket_of = {b.seat: b.memleket for b in beys}
        by_seat: dict[int, Bey] = {}
        for b in beys:
            by_seat.setdefault(b.seat, b)  # the first, as SeasonState.bey finds it
        self.by_seat = by_seat


class _Deals:
    """The treaties in force at Divan `divan` and the offers step 2 will accept (R-6.4, R-6.5,
    R-6.6), as (pair, kind, treaty?) for the beys' friends and allies."""

    __slots__ = ("beys", "offer_divans", "offers", "rules_version", "standing", "treaties")

    def __init__(self, state: SeasonState, turn: Turn) -> None:
        self.treaties, self.offers, self.offer_divans = (
            state.treaties,
            state.offers,
            state.offer_divans,
        )
        self.beys, self.rules_version = state.beys, state.rules_version
        divan = turn.divan
        standing: list[tuple[int, int, bool]] = []  # (a, b, an alliance in force)
        if divan <= LAST_TREATY_DIVAN:  # no treaty from Divan 13 on
            for t in state.treaties:
                if t.through_divan >= divan:
                    standing.append((t.a, t.b, t.kind == "alliance"))
            for o in state.offers:
                if _settled_at(state, o, divan) and _accepted(state, o, divan, turn):
                    standing.append((*o.pair(), False))
        self.standing = standing

    def reads(self, state: SeasonState) -> bool:
        return (
            self.treaties is state.treaties
            and self.offers is state.offers
            and self.offer_divans is state.offer_divans
            # the beys are read for the receivers of offers only (a spend replaces them)
            and (not self.offers or self.beys is state.beys)
            and self.rules_version == state.rules_version
        )


class _View:
    """One bey's reading of the board before Divan `divan`; plate-indexed lists (0 unused).
    A view that spends (`own_lists`) works on its own copies of the board's lists."""

    __slots__ = (
        "allies",
        "base",
        "bey",
        "ceasefire",
        "divan",
        "friends",
        "gm",
        "memleket_of",
        "mine",
        "owner",
        "pending",
        "rival_home",
        "seat",
        "seed",
        "sur",
        "threat",
        "turn",
        "units",
    )

    def __init__(
        self, state: SeasonState, bey: Bey, divan: int, turn: Turn, own_lists: bool
    ) -> None:
        self.gm = gm = game_map()
        self.seed, self.divan, self.bey, self.seat, self.turn = (
            state.seed,
            divan,
            bey,
            bey.seat,
            turn,
        )
        seat = bey.seat
        board = turn.board(state)
        if own_lists:
            self.owner, self.units, self.sur = list(board.owner), list(board.units), list(board.sur)
        else:
            self.owner, self.units, self.sur = board.owner, board.units, board.sur
        self.mine = list(board.land.get(seat, ()))
        self.memleket_of = board.memleket_of
        friends, allies = set(), set()
        for a, b, alliance in turn.deals(state).standing:
            if seat in (a, b):
                other = a + b - seat
                friends.add(other)
                if alliance:
                    allies.add(other)
        # never attacked: a treaty in force, or an offer step 2 will accept
        self.friends, self.allies = friends, allies
        self.ceasefire = state.ceasefire_divan == divan
        self.pending = pending = frozenset(bey.missions) - frozenset(bey.missions_done)
        self.base = _base_values(bey.memleket, "M-2" in pending, "M-4" in pending)
        self.rival_home = 0  # no plate: _value's M-9 bonus goes nowhere
        if "M-9" in pending:
            home_row = gm.dist_at[bey.memleket]
            near = [(home_row[b.memleket], b.seat, b.memleket) for b in state.beys]
            # M-9: the other bey whose memleket is nearest (ties: lower seat)
            self.rival_home = min([r for r in near if r[1] != seat] or [(0, 0, 0)])[2]
        self.threat = _threats(self)


def _settled_at(state: SeasonState, offer: Offer, divan: int) -> bool:
    """Whether step 2 of Divan `divan` settles the offer (D-25). From rules/2 on (D-28), an
    offer left for a later Divan (one a bey made at this lock) shields nobody now; rules/1
    seasons keep reading every open offer, as they were recorded."""
    if not computer_beys_offer(state.rules_version):
        return True
    return state.offer_divans.get(offer_key(offer.frm, offer.to), divan) <= divan


def _accepted(state: SeasonState, offer: Offer, divan: int, turn: Turn) -> bool:
    """Whether step 2 of Divan `divan` will accept the offer (R-6.1, R-6.3).

    A computer receiver answers with the season's keyed draw, which it can read beforehand as
    its own intention (R-11.2: state and season randomness only); a human receiver with its
    stored answer. A bot spares the offerer only then: an offer it is going to refuse shields
    nobody, so a human cannot stay safe by offering every bot a pact every Divan.
    """
    receiver = state.bey(offer.to)
    if receiver is not None and receiver.computer:
        return turn.accepts(offer.frm, offer.to, ACCEPT_PERCENT[offer.kind])
    return offer.answer == "accept"


def _view(state: SeasonState, seat: int, divan: int, turn: Turn, own_lists: bool) -> _View | None:
    """The bey's view; None when it is unknown or landless (R-9.2: nothing to order)."""
    board = turn.board(state)
    bey = board.by_seat.get(seat)
    landed = seat in board.land
    return _View(state, bey, divan, turn, own_lists) if bey is not None and landed else None


def _bonus(v: _View, plate: int) -> int:
    """R-5.4: memleket +2, sur +1, hemşehri +1 for the plate's owner (0 when unowned)."""
    owner = v.owner[plate]
    if owner is None:
        return 0
    memleket = v.memleket_of[owner]
    region = v.gm.region_at
    return (2 if plate == memleket else 0) + v.sur[plate] + (region[plate] == region[memleket])


def _threat(v: _View, plate: int) -> int:
    """The strongest one-bey strike into `plate` (units − 1 of its bordering provinces);
    none in a ceasefire (R-6.7), none by allies (R-6.4)."""
    if v.ceasefire:
        return 0
    owner, units, seat, allies = v.owner, v.units, v.seat, v.allies
    per_bey: dict[int, int] = {}
    for q in v.gm.neighbours_at[plate]:
        o = owner[q]
        if o is not None and o != seat and o not in allies:
            per_bey[o] = per_bey.get(o, 0) + units[q] - 1
    return max(per_bey.values(), default=0)


def _threats(v: _View) -> dict[int, int]:
    """`_threat` of every province of the bey, in one pass."""
    if v.ceasefire:
        return dict.fromkeys(v.mine, 0)
    nb, owner, units, seat, allies = v.gm.neighbours_at, v.owner, v.units, v.seat, v.allies
    out = {}
    for plate in v.mine:
        first, strike = None, 0  # the usual case: one bey borders the plate, or none
        per_bey: dict[int, int] | None = None
        for q in nb[plate]:
            o = owner[q]
            if o is None or o == seat or o in allies:
                continue
            if first is None:
                first, strike = o, units[q] - 1
            elif o == first and per_bey is None:
                strike += units[q] - 1
            else:
                if per_bey is None:
                    per_bey = {first: strike}
                per_bey[o] = per_bey.get(o, 0) + units[q] - 1
        out[plate] = max(per_bey.values()) if per_bey else strike
    return out


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


@cache
def _base_values(home: int, m2: bool, m4: bool) -> tuple[int, ...]:
    """The part of `_value` that depends on the map alone, for a bey at home in `home` with
    missions M-2 / M-4 pending: a table by plate (0 unused), built once per process."""
    gm = game_map()
    region, far = gm.region_at[home], gm.dist_at[home]
    out = [0]
    for t in range(1, len(gm.region_at)):
        value = 10 + 4 * gm.gold_at[t]
        value += 10 if gm.big_city_at[t] and m2 else 0
        value += 3 if gm.region_at[t] == region or m4 else 0
        value -= 4 if far[t] >= GURBET else 0
        value += 30 if t == home else 0
        out.append(value)
    return tuple(out)


def _value(v: _View, t: int) -> int:
    """What taking `t` is worth: a province (R-10.3), its gold (R-2.4), the home region
    (hemşehri, Bölge Beyi), missions M-2/M-4/M-9, memlekets (R-9.1); gurbet costs (R-7.3).
    The map's part is `_base_values`; an other bey's memleket adds 8, the M-9 rival's 28."""
    value = v.base[t]
    owner = v.owner[t]
    if owner is not None and t != v.bey.memleket and v.memleket_of.get(owner) == t:
        value += 28 if t == v.rival_home else 8
    return value


def _scored_targets(v: _View, spare: list[int]) -> list[tuple[int, int, int]]:
    """(−score, target, units needed) of every target `_ranked_targets` ranks, sorted, where
    score is value per unit (value × 100 // (defence + 2)) before the keyed jitter; `spare`:
    what each plate may send (index plate). `_bonus` and `_value` are inlined: this is the
    turn's innermost loop."""
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
        if sum([spare[p] for p in nb[t]]) < need:
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
    first = _jittered(v, _scored_targets(v, [MAX_UNITS] * len(v.owner)), first_only=True)
    return first[0] if first else 0


def _attack(v: _View, avail: dict[int, int], orders: dict[int, Order]) -> None:
    """R-11.2: expand, one order per province; several provinces join one group (R-5.2)."""
    nb = v.gm.neighbours_at
    for t, need in _ranked_targets(v, avail):
        origins = sorted(
            (p for p in nb[t] if avail.get(p, 0) > 0 and p not in orders),
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
    nb, units = v.gm.neighbours_at, v.units
    for q in plates:
        short = _short(v, q, units[q] - (orders[q].units if q in orders else 0))
        if short <= 0:
            continue  # no helper is sent: the loop below would stop at once
        helpers = sorted(
            (p for p in nb[q] if avail.get(p, 0) > 0 and p not in orders),
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
    _defend(v, sorted(v.mine, key=lambda p: (-threat[p], p)), avail, orders)
    _advance_inland(v, avail, orders)
    return tuple(orders[p] for p in sorted(orders))


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
    _walls(v, sorted(v.mine, key=lambda p: (-threat[p], p)), gold, out)
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
