"""Region titles, score and standings (R-10.2, R-10.3, R-10.5)."""

from __future__ import annotations

from collections.abc import Sequence

from shared.domain.board import Board
from shared.domain.map import REGIONS

MISSION_POINTS = 5
HALK_SEVGISI_POINTS = 3
MEMLEKET_POINTS = 2


def region_titles(board: Board) -> dict[str, tuple[int, str]]:
    """R-7.2, R-10.2: per region, the seat that is Bölge Beyi ("beyi") or Hakimi ("hakimi")."""
    key = ("titles", tuple(board.owner))
    cached = board.cache.get(key)
    if cached is not None:
        return cached  # type: ignore[return-value]
    titles = {}
    for region in REGIONS:
        plates = board.gm.region_plates[region]
        counts: dict[int, int] = {}
        for p in plates:
            o = board.owner[p]
            if o is not None:
                counts[o] = counts.get(o, 0) + 1
        for seat, n in counts.items():
            if n == len(plates):
                titles[region] = (seat, "hakimi")
            elif 2 * n > len(plates):
                titles[region] = (seat, "beyi")
    board.cache[key] = titles
    return titles


def scores(board: Board) -> dict[int, int]:
    """R-10.3: provinces + region titles + 2 for the memleket + 5 per mission + 3 Halk Sevgisi."""
    counts = board.province_counts()
    result = {}
    for seat, bey in board.beys.items():
        total = counts.get(seat, 0)
        total += MEMLEKET_POINTS if board.holds_memleket(seat) else 0
        total += MISSION_POINTS * len(bey.done)
        total += HALK_SEVGISI_POINTS if bey.halk_sevgisi else 0
        result[seat] = total
    for holder, kind in region_titles(board).values():
        result[holder] += 3 if kind == "hakimi" else 1
    return result


def standings(board: Board, lots: Sequence[int] | None = None) -> list[tuple[int, int]]:
    """R-10.5: score, then provinces, then holding the memleket, then the lot (else the seat)."""
    sc = scores(board)
    counts = board.province_counts()
    rank = {s: i for i, s in enumerate(lots)} if lots is not None else {s: s for s in sc}
    order = sorted(
        sc,
        key=lambda s: (-sc[s], -counts.get(s, 0), not board.holds_memleket(s), rank[s]),
    )
    return [(s, sc[s]) for s in order]
