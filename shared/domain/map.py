"""The 81 provinces of record: neighbours, regions, distances, milis, gold (R-2)."""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass
from functools import cache

REGIONS: tuple[str, ...] = (
    "Marmara",
    "Ege",
    "Akdeniz",
    "İç Anadolu",
    "Karadeniz",
    "Doğu Anadolu",
    "Güneydoğu Anadolu",
)
PLATES: tuple[int, ...] = tuple(range(1, 82))
MAX_UNITS = 12
ISTANBUL = 34


def round_half_up(numerator: int, denominator: int) -> int:
    """Integer round-half-up of a non-negative fraction (no float drift)."""
    return (2 * numerator + denominator) // (2 * denominator)


@dataclass(frozen=True, slots=True)
class Il:
    """One province with its derived game values."""

    plate: int
    name: str
    region: str
    population: int
    neighbours: tuple[int, ...]

    @property
    def full_milis(self) -> int:
        """R-2.2: 1 + round_half_up(population / 1,000,000)."""
        return 1 + round_half_up(self.population, 1_000_000)

    @property
    def start_milis(self) -> int:
        """R-3.2: max(1, ceil(full milis / 2))."""
        return max(1, -(-self.full_milis // 2))

    @property
    def gold_yield(self) -> int:
        """R-2.4: İstanbul 3; > 3M 2; > 1M 1; else 0."""
        if self.plate == ISTANBUL:
            return 3
        if self.population > 3_000_000:
            return 2
        return 1 if self.population > 1_000_000 else 0

    @property
    def big_city(self) -> bool:
        """R-2.4: population ≥ 3,000,000."""
        return self.population >= 3_000_000


class GameMap:
    """The neighbour graph and its precomputed distances (R-2.1, R-2.3)."""

    def __init__(self, provinces: list[Il]) -> None:
        self.by_plate: dict[int, Il] = {p.plate: p for p in provinces}
        self._neighbour_sets = {p.plate: frozenset(p.neighbours) for p in provinces}
        self.region_plates: dict[str, tuple[int, ...]] = {
            r: tuple(sorted(p.plate for p in provinces if p.region == r)) for r in REGIONS
        }
        self._dist = {p: self._bfs(p) for p in self.by_plate}
        self.full_milis = {p.plate: p.full_milis for p in provinces}
        self.region_of = {p.plate: p.region for p in provinces}
        self.gold_yield = {p.plate: p.gold_yield for p in provinces}  # read every Divan
        # The same static facts as tuples indexed by plate (index 0 unused), precomputed once
        # for the Divan pipeline's inner loops, which index them by plate.
        self.names: tuple[str, ...] = ("-", *(self.by_plate[p].name for p in PLATES))
        self.region_at: tuple[str, ...] = ("", *(self.region_of[p] for p in PLATES))
        self.full_milis_at: tuple[int, ...] = (0, *(self.full_milis[p] for p in PLATES))
        self.gold_at: tuple[int, ...] = (0, *(self.gold_yield[p] for p in PLATES))
        self.big_city_at: tuple[bool, ...] = (False, *(self.by_plate[p].big_city for p in PLATES))
        self.neighbour_sets: tuple[frozenset[int], ...] = (
            frozenset(),
            *(self._neighbour_sets[p] for p in PLATES),
        )
        self.neighbours_at: tuple[tuple[int, ...], ...] = (
            (),
            *(self.by_plate[p].neighbours for p in PLATES),
        )
        self.dist_at: tuple[tuple[int, ...], ...] = (
            (),
            *(tuple(self._dist[a].get(b, -1) for b in range(82)) for a in PLATES),
        )

    def _bfs(self, start: int) -> dict[int, int]:
        seen = {start: 0}
        queue = deque([start])
        while queue:
            cur = queue.popleft()
            for nxt in self.by_plate[cur].neighbours:
                if nxt not in seen:
                    seen[nxt] = seen[cur] + 1
                    queue.append(nxt)
        return seen

    def __getitem__(self, plate: int) -> Il:
        return self.by_plate[plate]

    def __contains__(self, plate: object) -> bool:
        return plate in self.by_plate

    def are_neighbours(self, a: int, b: int) -> bool:
        """R-2.1: a shared land border."""
        return b in self._neighbour_sets.get(a, frozenset())

    def distance(self, a: int, b: int) -> int:
        """R-2.3: steps on the neighbour graph, whatever the ownership."""
        return self._dist[a][b]

    def distances_from(self, a: int) -> dict[int, int]:
        """R-2.3: every plate's distance from `a` (a read-only view; do not mutate)."""
        return self._dist[a]

    def neighbours(self, plate: int) -> tuple[int, ...]:
        return self.by_plate[plate].neighbours


@cache
def game_map() -> GameMap:
    """The map of record, loaded once from the package data."""
    from importlib import resources  # with its tempfile and shutil: when the map is first read

    raw = json.loads(resources.files("shared.domain").joinpath("data/provinces.json").read_text())
    provinces = [
        Il(
            plate=p["plate"],
            name=p["name"],
            region=p["region"],
            population=p["population"],
            neighbours=tuple(sorted(p["neighbors"])),
        )
        for p in raw["provinces"]
    ]
    return GameMap(provinces)
