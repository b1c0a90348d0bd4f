"""The mutable working copy one Divan's resolution runs on; never escapes `resolve`."""

from __future__ import annotations

from collections import _count_elements  # type: ignore[attr-defined]
from dataclasses import dataclass, field
from itertools import compress
from operator import attrgetter, ne

import msgspec

from shared.domain.events import GoldDelta, ProvinceSet
from shared.domain.map import GameMap, game_map
from shared.domain.state import Bey, Province, SeasonState, Treaty

_SEAT = attrgetter("seat")
_INDEX = range(82)  # index 0 is unused and the same in every snapshot

# Counter's own C counting loop, into any dict (private to collections: the one place it is
# imported; scoring counts with it too, issue 27)
count_into = _count_elements


class BeyWork(msgspec.Struct):
    """A bey as the working copy holds it, mutable (gold, hain, missions done). A msgspec
    struct, not a slotted dataclass: 19 built per Divan by C instead of a Python `__init__`
    each (issue 12); never encoded, never escapes `resolve`."""

    seat: int
    memleket: int
    computer: bool
    gold: int
    hain_through: int | None
    lost_before: bool
    missions: tuple[str, ...]
    done: list[str]
    halk_sevgisi: bool

    def freeze(self) -> Bey:
        return Bey(
            seat=self.seat,
            memleket=self.memleket,
            computer=self.computer,
            gold=self.gold,
            hain_through=self.hain_through,
            lost_memleket_before=self.lost_before,
            missions=self.missions,
            missions_done=tuple(self.done),
            halk_sevgisi=self.halk_sevgisi,
        )


@dataclass(slots=True)
class Board:
    """Owner, units and sur per plate (index 0 unused), beys by seat, treaties by pair.
    `beys` is in ascending seat order (`of` builds it so and no step adds a bey): a step that
    goes through the beys in seat order reads it as it is, unsorted (issue 27)."""

    divan: int
    seed: int
    gm: GameMap
    owner: list[int | None]
    units: list[int]
    sur: list[bool]
    beys: dict[int, BeyWork]
    treaties: dict[tuple[int, int], Treaty]
    # Values derived from the owners alone (counts, titles) and the owners they were derived
    # from: see `by_owners`.
    owners_seen: list[int | None] = field(default_factory=list)
    derived: dict[str, object] = field(default_factory=dict)

    @classmethod
    def of(cls, state: SeasonState, divan: int) -> Board:
        beys = {
            b.seat: BeyWork(
                b.seat,
                b.memleket,
                b.computer,
                b.gold,
                b.hain_through,
                b.lost_memleket_before,
                b.missions,
                list(b.missions_done),
                b.halk_sevgisi,
            )
            for b in sorted(state.beys, key=_SEAT)
        }
        # One pass over the provinces, not map(attrgetter): the interpreter reads a struct field
        # in a few instructions where attrgetter takes the generic attribute lookup (issue 12);
        # one loop, not a comprehension a column (issue 27: three passes).
        owner: list[int | None] = [None]
        units = [0]
        sur = [False]
        for p in state.provinces:
            owner.append(p.owner)
            units.append(p.units)
            sur.append(p.sur)
        return cls(
            divan=divan,
            seed=state.seed,
            gm=game_map(),
            owner=owner,
            units=units,
            sur=sur,
            beys=beys,
            treaties={(t.a, t.b): t for t in state.treaties},
        )

    def snapshot(self) -> tuple[list[int | None], list[int], list[bool]]:
        return (self.owner[:], self.units[:], self.sur[:])

    def changes_since(
        self, before: tuple[list[int | None], list[int], list[bool]]
    ) -> tuple[ProvinceSet, ...]:
        owner, units, sur = before
        now_owner, now_units, now_sur = self.owner, self.units, self.sur
        if owner == now_owner and sur == now_sur:
            if units == now_units:
                return ()
            changed = compress(_INDEX, map(ne, units, now_units))  # the plates, ascending
        else:
            was = zip(owner, units, sur, strict=True)
            changed = compress(
                _INDEX, map(ne, was, zip(now_owner, now_units, now_sur, strict=True))
            )
        return tuple([ProvinceSet(p, now_owner[p], now_units[p], now_sur[p]) for p in changed])

    def by_owners(self) -> dict[str, object]:
        """The values derived from the owners as they are now, by name: emptied when an owner
        changed since they were derived. One list comparison in C, where a key of the owners'
        tuple was 82 items copied and hashed at every lookup, and compared at every hit
        (issue 27)."""
        if self.owner != self.owners_seen:
            self.owners_seen = self.owner[:]
            self.derived = {}
        return self.derived

    def province_counts(self) -> dict[int, int]:
        """Provinces per seat: every bey (0 for the landless), then any other owner by plate."""
        derived = self.by_owners()
        cached: dict[int, int] | None = derived.get("counts")  # type: ignore[assignment]
        if cached is None:
            cached = dict.fromkeys(self.beys, 0)
            # Counted by Counter's own C loop into a plain dict (not a Counter: its Python
            # __init__ and ABC check, issue 12; not a Python loop per plate, issue 27); an owner
            # that is no bey is added at its first plate, as Counter's order was.
            count_into(cached, self.owner)
            cached.pop(None, None)  # type: ignore[call-overload]  # unowned: no seat
            derived["counts"] = cached
        return dict(cached)

    def holds_memleket(self, seat: int) -> bool:
        return self.owner[self.beys[seat].memleket] == seat

    def set_unowned(self, plate: int, milis: int) -> None:
        self.owner[plate] = None
        self.units[plate] = milis
        self.sur[plate] = False

    def take(self, plate: int, seat: int, units: int) -> None:
        """Ownership passes; the sur falls with the province (R-5.5, R-7.9)."""
        previous = self.owner[plate]
        self.owner[plate] = seat
        self.units[plate] = units
        self.sur[plate] = False
        if previous is not None and self.beys[previous].memleket == plate:
            self.beys[previous].lost_before = True

    def add_gold(self, seat: int, amount: int, reason: str, out: list[GoldDelta]) -> None:
        self.beys[seat].gold += amount
        out.append(GoldDelta(seat, amount, reason))  # type: ignore[arg-type]

    def allied(self, a: int, b: int) -> bool:
        t = self.treaties.get((a, b) if a < b else (b, a))  # no min/max: 3.11 parses kwargs
        return t is not None and t.kind == "alliance"

    def treaty(self, a: int, b: int) -> Treaty | None:
        return self.treaties.get((a, b) if a < b else (b, a))

    def freeze_provinces(self) -> tuple[Province, ...]:
        return tuple(Province(self.owner[p], self.units[p], self.sur[p]) for p in range(1, 82))
