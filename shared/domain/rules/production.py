"""Divan step 5: units, milis growth and gold (R-7, R-3.2)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache
from itertools import compress
from operator import add

from shared.domain.board import Board
from shared.domain.events import Allotment, GoldDelta, ProductionApplied, ProvinceSet
from shared.domain.map import MAX_UNITS, game_map
from shared.domain.scoring import region_titles, scores
from shared.domain.state import NewsCard, perde

GURBET_DISTANCE = 3
KURTULUS_BEYS = 3


_INDEX = range(82)  # plates, with the unused index 0


class _Alloc:
    """Units allotted per plate (index 0 unused), by kind, with their running total."""

    __slots__ = ("base", "bonus", "harvest", "kurtulus", "total")

    def __init__(self, base: list[int], harvest: list[int], total: list[int]) -> None:
        self.base = base
        self.harvest = harvest
        self.bonus = [0] * 82
        self.kurtulus = [0] * 82
        self.total = total


def place(board: Board, alloc: _Alloc, plates: Iterable[int], n: int, kind: list[int]) -> None:
    """R-7.2: one unit at a time, ascending plate, round-robin, skipping full provinces.
    `kind` is the allotment list the units count in (one of `alloc`'s)."""
    units, total = board.units, alloc.total
    ring = sorted(plates)
    while n > 0:
        open_ = [p for p in ring if units[p] + total[p] < MAX_UNITS]
        if not open_:
            return
        for p in open_:
            if n == 0:
                return
            if units[p] + total[p] < MAX_UNITS:
                kind[p] += 1
                total[p] += 1
                n -= 1


def kurtulus_seats(board: Board) -> list[int]:
    """R-7.5: the three lowest by score, then provinces, ascending, then seat descending."""
    counts = board.province_counts()
    sc = scores(board)
    # The sort keys built by one comprehension, not a key lambda called per bey (issue 12).
    ranked = sorted([(sc[s], counts[s], -s) for s in board.beys if counts.get(s, 0) > 0])
    return [-s for _score, _n, s in ranked[:KURTULUS_BEYS]]


@cache
def _base_row(memleket: int) -> tuple[int, ...]:
    """R-7.1: the base allotment of each plate to a bey of this memleket: the memleket 2,
    nearer than the gurbet distance 1, gurbet 0 (memleketler never change, R-3.3)."""
    dist = game_map().dist_at[memleket]
    return tuple(2 if p == memleket else 1 if dist[p] < GURBET_DISTANCE else 0 for p in range(82))


@cache
def _base_rows() -> tuple[tuple[int, ...], ...]:
    """`_base_row` of every plate as a memleket, by plate (index 0 unused): one cached call a
    Divan, not one a bey (issue 27)."""
    return tuple(_base_row(m) if m else () for m in _INDEX)


class _Plates:
    """What production reads of the owners, found in one pass over the plates (issue 27: it
    was six passes, each about as dear as a Python loop of 82): the unowned plates, ascending,
    whether an owned one holds more than 12 units already, each plate's base allotment (R-7.1)
    and the plates of each Kurtuluş seat (R-7.5), ascending. The owned plates themselves only
    the rare path above 12 reads (`owned`): not collected in the pass."""

    __slots__ = ("above", "base", "land", "unowned")

    def __init__(self, board: Board, kurtulus: list[int]) -> None:
        owner, units = board.owner, board.units
        by_memleket = _base_rows()
        rows = {s: by_memleket[b.memleket] for s, b in board.beys.items()}
        base = [0] * 82
        unowned: list[int] = []
        land: dict[int, list[int]] = {s: [] for s in kurtulus}
        above = False
        for p in _PLATES:
            seat = owner[p]
            if seat is None:
                unowned.append(p)
                continue
            base[p] = rows[seat][p]
            if units[p] > MAX_UNITS:
                above = True
            if seat in land:
                land[seat].append(p)
        self.base, self.unowned, self.above, self.land = base, unowned, above, land

    @staticmethod
    def owned(board: Board) -> list[int]:
        """The owned plates, ascending."""
        owner = board.owner
        return [p for p in _PLATES if owner[p] is not None]


_PLATES = range(1, 82)


def _base_and_harvest(
    board: Board, base: list[int], drought: str | None, harvest: str | None
) -> _Alloc:
    """R-7.1, R-7.2: memleket 2, near it 1, gurbet 0 (`base`, the owned plates'); harvest +1;
    nothing in a drought."""
    region_plates = board.gm.region_plates
    owner = board.owner
    if drought is not None:
        for p in region_plates[drought]:
            base[p] = 0
    grown = [0] * 82
    if harvest is not None:
        for p in region_plates[harvest]:
            if owner[p] is not None:
                grown[p] = 1
        return _Alloc(base, grown, list(map(add, base, grown)))
    return _Alloc(base, grown, base[:])


def _income(board: Board) -> list[GoldDelta]:
    """Each owned province's gold yield to its owner, seat by seat."""
    gold_at, owner = board.gm.gold_at, board.owner
    gold: list[GoldDelta] = []
    income: dict[int, int] = {}
    for p in _gold_plates():
        holder = owner[p]
        if holder is not None:
            income[holder] = income.get(holder, 0) + gold_at[p]
    beys = board.beys
    for seat in sorted(income):  # `Board.add_gold` inline: one call less per bey
        amount = income[seat]
        beys[seat].gold += amount
        gold.append(GoldDelta(seat, amount, "income"))
    return gold


@cache
def _gold_plates() -> tuple[int, ...]:
    """The plates that yield gold (R-2.4), ascending."""
    return tuple(compress(_INDEX, game_map().gold_at))


def _allot_each(
    units: list[int], owned: list[int], alloc: _Alloc, factor: int
) -> tuple[Allotment, ...]:
    """R-7.6, R-7.7 plate by plate: every owned plate that gains units, or holds more than 12
    already, gets its allotment (what `produce` does at once when no owned plate is above 12)."""
    total = alloc.total
    allotments = []
    for p in owned:
        gained = total[p] * factor
        over = units[p] + gained - MAX_UNITS
        if over > 0:  # units beyond 12 are lost
            units[p] = MAX_UNITS
        else:
            units[p] += gained
        if gained or over > 0:
            doubled = total[p] if factor == 2 else 0
            allotments.append(
                Allotment(
                    p,
                    alloc.base[p],
                    alloc.harvest[p],
                    alloc.bonus[p],
                    alloc.kurtulus[p],
                    doubled,
                    max(0, over),
                )
            )
    return tuple(allotments)


def produce(board: Board, news: NewsCard | None) -> ProductionApplied:
    """R-7.1 … R-7.8 in their order: base and harvest, region bonus, Kurtuluş, doubling."""
    gm = board.gm
    drought = news.region if news is not None and news.card == "kuraklik" else None
    harvest = news.region if news is not None and news.card == "hasat" else None
    owner, units = board.owner, board.units
    # R-7.5's seats read the owners, beys and missions only, so they are known before any
    # allotment: the one pass over the plates collects their land too.
    kurtulus = kurtulus_seats(board)
    read = _Plates(board, kurtulus)
    alloc = _base_and_harvest(board, read.base, drought, harvest)
    for region, (seat, kind) in sorted(region_titles(board).items()):
        if region != drought:
            plates = [p for p in gm.region_plates[region] if owner[p] == seat]
            place(board, alloc, plates, 3 if kind == "hakimi" else 1, alloc.bonus)
    region_at, total = gm.region_at, alloc.total
    for seat in kurtulus:
        land = read.land[seat]
        produced = sum(map(total.__getitem__, land))
        extra = produced * 3 // 2 - produced
        outside = [p for p in land if region_at[p] != drought] if drought else land
        place(board, alloc, outside, extra, alloc.kurtulus)
    factor = 2 if perde(board.divan) == 3 else 1
    # Only a plate with units allotted, or an owned one above 12 already, has an allotment.
    if read.above:
        before = board.snapshot()
        allotments = _allot_each(units, _Plates.owned(board), alloc, factor)
        _grow_milis(units, read.unowned, gm.full_milis_at)
        changes = board.changes_since(before)
    else:
        allotments, changed = _allot_all(units, alloc, factor)
        changed += _grow_milis(units, read.unowned, gm.full_milis_at)
        changes = _changes(board, changed)
    gold = _income(board)
    return ProductionApplied(
        divan=board.divan,
        allotments=allotments,
        kurtulus=tuple(kurtulus),
        changes=changes,
        gold=tuple(gold),
    )


def _allot_all(
    units: list[int], alloc: _Alloc, factor: int
) -> tuple[tuple[Allotment, ...], list[int]]:
    """R-7.6, R-7.7 when no owned plate is above 12: each plate with units allotted gets its
    allotment. Answers them and the plates whose units it changed, ascending: every one but a
    plate at 12 already that loses what it is allotted (what `Board.changes_since` would find,
    without a snapshot and a pass over every plate; issue 27)."""
    base, grown, bonus, kurtulus = alloc.base, alloc.harvest, alloc.bonus, alloc.kurtulus
    total = alloc.total
    # One plain loop: `map(min, …)`/`map(max, …)` cost a keyword-argument parse per
    # element in 3.11's min/max (about 1,000 instructions each, issue 12).
    made: list[Allotment] = []
    add = made.append
    changed: list[int] = []
    again = factor - 1  # a doubled allotment counts its units once more
    for p in compress(_INDEX, total):
        allotted = total[p]
        held = units[p]
        raised = held + allotted * factor
        over = raised - MAX_UNITS
        if over > 0:  # units beyond 12 are lost
            units[p] = MAX_UNITS
            if held != MAX_UNITS:
                changed.append(p)
        else:
            units[p] = raised
            changed.append(p)
            if allotted == base[p] and not again:  # its base alone: the usual allotment
                add(_BASE_ONLY[allotted][p])
                continue
            over = 0
        add(Allotment(p, base[p], grown[p], bonus[p], kurtulus[p], allotted * again, over))
    return tuple(made), changed


# An allotment of its base alone (R-7.1: 1 or 2; no harvest, bonus, Kurtuluş, doubling or loss),
# for every plate: made once, as the battle lines' words are (`Allotment` is frozen and holds
# numbers only). Most of a Divan's allotments are one of these (59 of the bench's 69): a lookup
# where a record was built and freed (issue 27).
_BASE_ONLY = tuple(tuple(Allotment(p, base) for p in _INDEX) for base in range(3))


def _grow_milis(units: list[int], unowned: list[int], full: Sequence[int]) -> list[int]:
    """R-3.2: each unowned plate below its full milis grows by one; answers those grown."""
    grown: list[int] = []
    for p in unowned:
        if units[p] < full[p]:
            units[p] += 1
            grown.append(p)
    return grown


def _changes(board: Board, changed: list[int]) -> tuple[ProvinceSet, ...]:
    """The provinces set by production, from the plates it changed: owned ones ascending, then
    unowned ones ascending (one merge sorts them; no owner or sur changes at step 5)."""
    owner, units, sur = board.owner, board.units, board.sur
    return tuple([ProvinceSet(p, owner[p], units[p], sur[p]) for p in sorted(changed)])
