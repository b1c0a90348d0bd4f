"""Region titles, score and standings (R-10.2, R-10.3, R-10.5)."""

from __future__ import annotations

from collections.abc import Sequence

from shared.domain.board import Board, count_into
from shared.domain.map import REGIONS

MISSION_POINTS = 5
HALK_SEVGISI_POINTS = 3
MEMLEKET_POINTS = 2


def region_counts(board: Board) -> dict[str, dict[int | None, int]]:
    """Per region, how many of its provinces each owner holds (None: unowned), owners in the
    order of their first plate; an owner holding none of a region is absent (read with .get).
    Plain dicts counted by `Counter`'s C loop: a `Counter` per region cost twice as much (its
    `__init__`/`update` in Python, an ABC isinstance check each; issue 12), a Python loop per
    plate more again (issue 27)."""
    derived = board.by_owners()
    cached = derived.get("region_counts")
    if cached is not None:
        return cached  # type: ignore[return-value]
    owner = board.owner
    counts: dict[str, dict[int | None, int]] = {}
    holder = owner.__getitem__
    for r, plates in board.gm.region_plates.items():
        n: dict[int | None, int] = {}
        count_into(n, map(holder, plates))  # Counter's C loop, no Python loop per plate
        counts[r] = n
    derived["region_counts"] = counts
    return counts


def region_titles(board: Board) -> dict[str, tuple[int, str]]:
    """R-7.2, R-10.2: per region, the seat that is Bölge Beyi ("beyi") or Hakimi ("hakimi")."""
    derived = board.by_owners()
    cached = derived.get("titles")
    if cached is not None:
        return cached  # type: ignore[return-value]
    titles = {}
    counts = region_counts(board)
    region_plates = board.gm.region_plates
    for region in REGIONS:
        size = len(region_plates[region])
        # More than half of a region's provinces: at most one owner has that many (found by a
        # plain pass; `most_common` went through heapq in Python for the same answer).
        for seat, n in counts[region].items():
            if 2 * n > size:
                if seat is not None:
                    titles[region] = (seat, "hakimi" if n == size else "beyi")
                break
    derived["titles"] = titles
    return titles


def scores(board: Board) -> dict[int, int]:
    """R-10.3: provinces + region titles + 2 for the memleket + 5 per mission + 3 Halk Sevgisi."""
    counts = board.province_counts()
    owner = board.owner
    result = {}
    for seat, bey in board.beys.items():
        total = counts.get(seat, 0) + MISSION_POINTS * len(bey.done)
        if owner[bey.memleket] == seat:  # Board.holds_memleket
            total += MEMLEKET_POINTS
        if bey.halk_sevgisi:
            total += HALK_SEVGISI_POINTS
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
