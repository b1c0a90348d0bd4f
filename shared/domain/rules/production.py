"""Divan step 5: units, milis growth and gold (R-7, R-3.2)."""

from __future__ import annotations

from collections.abc import Iterable

from shared.domain.board import Board
from shared.domain.events import Allotment, GoldDelta, ProductionApplied
from shared.domain.map import MAX_UNITS
from shared.domain.scoring import region_titles, scores
from shared.domain.state import NewsCard, perde

GURBET_DISTANCE = 3
KURTULUS_BEYS = 3


class _Alloc:
    __slots__ = ("base", "bonus", "harvest", "kurtulus")

    def __init__(self) -> None:
        self.base = self.harvest = self.bonus = self.kurtulus = 0

    def total(self) -> int:
        return self.base + self.harvest + self.bonus + self.kurtulus


def place(board: Board, alloc: dict[int, _Alloc], plates: Iterable[int], n: int, kind: str) -> None:
    """R-7.2: one unit at a time, ascending plate, round-robin, skipping full provinces."""
    ring = sorted(plates)
    while n > 0:
        open_ = [p for p in ring if board.units[p] + alloc[p].total() < MAX_UNITS]
        if not open_:
            return
        for p in open_:
            if n == 0:
                return
            if board.units[p] + alloc[p].total() < MAX_UNITS:
                setattr(alloc[p], kind, getattr(alloc[p], kind) + 1)
                n -= 1


def kurtulus_seats(board: Board) -> list[int]:
    """R-7.5: the three lowest by score, then provinces, ascending, then seat descending."""
    counts = board.province_counts()
    sc = scores(board)
    landed = [s for s in board.beys if counts.get(s, 0) > 0]
    return sorted(landed, key=lambda s: (sc[s], counts[s], -s))[:KURTULUS_BEYS]


def _base_and_harvest(
    board: Board, owned: list[int], drought: str | None, harvest: str | None
) -> dict[int, _Alloc]:
    """R-7.1, R-7.2: memleket 2, near it 1, gurbet 0; harvest +1; nothing in a drought."""
    gm = board.gm
    alloc = {p: _Alloc() for p in owned}
    region_of = gm.region_of
    for p in owned:
        region = region_of[p]
        if region == drought:
            continue
        a = alloc[p]
        memleket = board.beys[board.owner[p]].memleket  # type: ignore[index]
        if p == memleket:
            a.base = 2
        elif gm.distances_from(memleket)[p] < GURBET_DISTANCE:
            a.base = 1
        a.harvest = 1 if region == harvest else 0
    return alloc


def _income(board: Board, owned: list[int]) -> list[GoldDelta]:
    """Each owned province's gold yield to its owner, seat by seat."""
    gm = board.gm
    gold: list[GoldDelta] = []
    income: dict[int, int] = {}
    for p in owned:
        holder = board.owner[p]
        assert holder is not None
        income[holder] = income.get(holder, 0) + gm.gold_yield[p]
    for seat in sorted(income):
        if income[seat]:
            board.add_gold(seat, income[seat], "income", gold)
    return gold


def produce(board: Board, news: NewsCard | None) -> ProductionApplied:
    """R-7.1 … R-7.8 in their order: base and harvest, region bonus, Kurtuluş, doubling."""
    gm = board.gm
    drought = news.region if news is not None and news.card == "kuraklik" else None
    harvest = news.region if news is not None and news.card == "hasat" else None
    owned = [p for p in range(1, 82) if board.owner[p] is not None]
    alloc = _base_and_harvest(board, owned, drought, harvest)
    for region, (seat, kind) in sorted(region_titles(board).items()):
        if region != drought:
            plates = [p for p in gm.region_plates[region] if board.owner[p] == seat]
            place(board, alloc, plates, 3 if kind == "hakimi" else 1, "bonus")
    kurtulus = kurtulus_seats(board)
    for seat in kurtulus:
        plates = [p for p in owned if board.owner[p] == seat]
        produced = sum(alloc[p].total() for p in plates)
        extra = produced * 3 // 2 - produced
        place(board, alloc, [p for p in plates if gm.region_of[p] != drought], extra, "kurtulus")
    factor = 2 if perde(board.divan) == 3 else 1
    before = board.snapshot()
    allotments = []
    units = board.units
    for p in owned:
        a = alloc[p]
        total = a.base + a.harvest + a.bonus + a.kurtulus
        gained = total * factor
        lost = max(0, units[p] + gained - MAX_UNITS)
        units[p] += gained - lost
        if gained or lost:
            allotments.append(
                Allotment(
                    p, a.base, a.harvest, a.bonus, a.kurtulus, total if factor == 2 else 0, lost
                )
            )
    for p in range(1, 82):
        if board.owner[p] is None and board.units[p] < gm.full_milis[p]:
            board.units[p] += 1
    gold = _income(board, owned)
    return ProductionApplied(
        divan=board.divan,
        allotments=tuple(allotments),
        kurtulus=tuple(kurtulus),
        changes=board.changes_since(before),
        gold=tuple(gold),
    )
