"""Computer beys (R-11): what one bey sees of the season at a Divan, read once per turn (ADR-59)."""

from __future__ import annotations

from functools import cache
from itertools import compress
from operator import is_not

from shared.domain import rng
from shared.domain.draws import Draws
from shared.domain.map import game_map
from shared.domain.rules.missions import nearest_beys
from shared.domain.rules.treaties import ACCEPT_PERCENT
from shared.domain.state import (
    LAST_TREATY_DIVAN,
    Bey,
    Offer,
    Province,
    SeasonState,
    computer_beys_offer,
    offer_key,
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
        self.gm = game_map()
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
            home_of = {b.seat: b.memleket for b in state.beys}
            rival = nearest_beys(home_of.items()).get(seat)  # M-9's target, as the rule reads it
            if rival is not None:
                self.rival_home = home_of[rival]
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
