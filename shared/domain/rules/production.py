"""Divan step 5: units, milis growth and gold (R-7, R-3.2)."""

from __future__ import annotations

from collections.abc import Iterable

from shared.domain.board import Board
from shared.domain.events import Allotment, GoldDelta, ProductionApplied
from shared.domain.map import MAX_UNITS, PLATES
from shared.domain.scoring import region_titles, scores
from shared.domain.state import NewsCard, perde

GURBET_DISTANCE = 3
KURTULUS_BEYS = 3


class _Alloc:
    """Units allotted per plate (index 0 unused), by kind, with their running total."""

    __slots__ = ("base", "bonus", "harvest", "kurtulus", "total")

    def __init__(self) -> None:
        self.base = [0] * 82
        self.harvest = [0] * 82
        self.bonus = [0] * 82
        self.kurtulus = [0] * 82
        self.total = [0] * 82


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
    landed = [s for s in board.beys if counts.get(s, 0) > 0]
    return sorted(landed, key=lambda s: (sc[s], counts[s], -s))[:KURTULUS_BEYS]


def _base_and_harvest(
    board: Board, owned: list[int], drought: str | None, harvest: str | None
) -> _Alloc:
    """R-7.1, R-7.2: memleket 2, near it 1, gurbet 0; harvest +1; nothing in a drought."""
    gm = board.gm
    alloc = _Alloc()
    region_at, dist = gm.region_at, gm.dist_at
    memleket_of = {s: b.memleket for s, b in board.beys.items()}
    owner = board.owner
    for p in owned:
        region = region_at[p]
        if region == drought:
            continue
        memleket = memleket_of[owner[p]]  # type: ignore[index]
        base = 2 if p == memleket else 1 if dist[memleket][p] < GURBET_DISTANCE else 0
        grown = 1 if region == harvest else 0
        alloc.base[p] = base
        alloc.harvest[p] = grown
        alloc.total[p] = base + grown
    return alloc


def _income(board: Board, owned: list[int]) -> list[GoldDelta]:
    """Each owned province's gold yield to its owner, seat by seat."""
    gold_at, owner = board.gm.gold_at, board.owner
    gold: list[GoldDelta] = []
    income: dict[int, int] = {}
    for p in owned:
        holder = owner[p]
        assert holder is not None
        income[holder] = income.get(holder, 0) + gold_at[p]
    for seat in sorted(income):
        if income[seat]:
            board.add_gold(seat, income[seat], "income", gold)
    return gold


def produce(board: Board, news: NewsCard | None) -> ProductionApplied:
    """R-7.1 … R-7.8 in their order: base and harvest, region bonus, Kurtuluş, doubling."""
    gm = board.gm
    drought = news.region if news is not None and news.card == "kuraklik" else None
    harvest = news.region if news is not None and news.card == "hasat" else None
    owner, units = board.owner, board.units
    owned = [p for p in PLATES if owner[p] is not None]
    alloc = _base_and_harvest(board, owned, drought, harvest)
    for region, (seat, kind) in sorted(region_titles(board).items()):
        if region != drought:
            plates = [p for p in gm.region_plates[region] if owner[p] == seat]
            place(board, alloc, plates, 3 if kind == "hakimi" else 1, alloc.bonus)
    region_at, total = gm.region_at, alloc.total
    kurtulus = kurtulus_seats(board)
    for seat in kurtulus:
        plates = [p for p in owned if owner[p] == seat]
        produced = sum([total[p] for p in plates])
        extra = produced * 3 // 2 - produced
        outside = [p for p in plates if region_at[p] != drought]
        place(board, alloc, outside, extra, alloc.kurtulus)
    factor = 2 if perde(board.divan) == 3 else 1
    before = board.snapshot()
    allotments = []
    base, grown, bonus, kurtulus_units = alloc.base, alloc.harvest, alloc.bonus, alloc.kurtulus
    for p in owned:
        gained = total[p] * factor
        over = units[p] + gained - MAX_UNITS
        if over > 0:  # units beyond 12 are lost
            units[p] = MAX_UNITS
        else:
            units[p] += gained
        if gained or over > 0:
            doubled = total[p] if factor == 2 else 0
            lost = max(0, over)
            allotments.append(
                Allotment(p, base[p], grown[p], bonus[p], kurtulus_units[p], doubled, lost)
            )
    full_milis = gm.full_milis_at
    for p in PLATES:
        if owner[p] is None and units[p] < full_milis[p]:
            units[p] += 1
    gold = _income(board, owned)
    return ProductionApplied(
        divan=board.divan,
        allotments=tuple(allotments),
        kurtulus=tuple(kurtulus),
        changes=board.changes_since(before),
        gold=tuple(gold),
    )
