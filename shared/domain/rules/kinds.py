"""What is particular to each order kind, declared once (R-4.1, R-5.3, R-6.4, R-6.5, R-6.7).

`ORDER_KINDS` holds one `OrderKindSpec` per `OrderKind` (state.py), as godip keeps one file per
order kind: whether the order names a target (what `decide.order_refusal` checks and
`rules.orders.read_orders` reads), how step 3 classifies it (`rules.orders.classify` runs each
kind's classifier in the table's order, so a kind sees what the kinds before it classified:
supports are classified against the attacks), the words a bey's report gives a dropped one
(`report_lines.order_dropped`) and whether explain lists it, void or dropped, under the battle
at its target (`explain`). Its fight is `rules/battle.py`'s, its names in the ops texts are the
catalogue's `explain.kind.<kind>` (tests/domain/test_order_kinds.py holds both to this table).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

import msgspec

from shared.domain.board import Board
from shared.domain.state import Order, OrderKind


# gc=False: numbers and strings only, never in a cycle; untracked, as the event records are
# (shared/domain/event_records.py, issue 27).
class Advance(msgspec.Struct, frozen=True, gc=False):
    seat: int
    origin: int
    target: int
    units: int
    betrayal: bool = False


class Support(msgspec.Struct, frozen=True, gc=False):
    seat: int
    origin: int
    target: int
    units: int
    defence: bool
    bloc: int | None = None  # the bloc of the attack group it counts for


class Dropped(msgspec.Struct, frozen=True, gc=False):
    """An order a rule cancelled or dropped before anyone moved, for its bey's report (R-13)."""

    seat: int
    origin: int
    target: int | None
    kind: OrderKind
    units: int  # as given, or as clamped when the clamp is not what dropped it
    reason: str  # "ally" | "ceasefire" | "void_support" | "not_owned" | "no_units"
    owner: int | None = None  # the target's owner as step 3 began


@dataclass(slots=True)
class Classified:
    moves: list[Advance] = field(default_factory=list)
    attacks: list[Advance] = field(default_factory=list)
    supports: list[Support] = field(default_factory=list)
    cancelled: list[tuple[int, int, int, str]] = field(default_factory=list)
    void: list[tuple[int, int, int]] = field(default_factory=list)
    # Each cancelled or void order as its bey's report names it.
    dropped: list[Dropped] = field(default_factory=list)
    # The attacks and the supports by target, in classification order: grouped as they are
    # classified (a classifier that appends to `attacks` or `supports` appends here too), read
    # by the supports' classification and the battle step (issue 27: each grouped them again).
    attacks_at: dict[int, list[Advance]] = field(default_factory=dict)
    supports_at: dict[int, list[Support]] = field(default_factory=dict)


# A kind's step 3: (board, its effective orders in origin order, ceasefire, bloc of each seat,
# what the kinds before it classified, to add to).
Classify = Callable[[Board, list[tuple[int, Order]], bool, dict[int, int], Classified], None]


@dataclass(frozen=True, slots=True)
class OrderKindSpec:
    """One order kind. `targeted`: it names a neighbour target and N ≥ 1 units (R-4.1, R-4.2),
    else it needs neither and does nothing at step 3 (Bekle). `classify`: its step 3, None for
    a kind step 3 does not read. `yours`: a dropped one in its bey's report, Turkish and English
    ("your advance"). `battle_support`: its units go into the battle at its target (R-5.3):
    explain lists it there, counted, void or dropped."""

    targeted: bool
    classify: Classify | None = None
    yours: tuple[str, str] | None = None
    battle_support: bool = False


def _advances(
    board: Board,
    orders: list[tuple[int, Order]],
    ceasefire: bool,
    bloc_of: dict[int, int],
    out: Classified,
) -> None:
    """R-6.4, R-6.7: advances on an ally or in a ceasefire are cancelled; R-6.5: betrayals."""
    owners, treaties = board.owner, board.treaties
    moves, attacks, cancelled, dropped = out.moves, out.attacks, out.cancelled, out.dropped
    attacks_at = out.attacks_at
    for seat, o in orders:
        target: int = o.target  # type: ignore[assignment]
        owner = owners[target]
        if owner == seat:
            moves.append(Advance(seat, o.province, target, o.units))
            continue
        if owner is None:
            a = Advance(seat, o.province, target, o.units)
        else:
            treaty = treaties.get((seat, owner) if seat < owner else (owner, seat))
            if treaty is not None and treaty.kind == "alliance":
                cancelled.append((seat, o.province, target, "ittifak"))
                dropped.append(Dropped(seat, o.province, target, o.kind, o.units, "ally", owner))
                continue
            if ceasefire:
                cancelled.append((seat, o.province, target, "bayram"))
                dropped.append(
                    Dropped(seat, o.province, target, o.kind, o.units, "ceasefire", owner)
                )
                continue
            a = Advance(seat, o.province, target, o.units, treaty is not None)
        attacks.append(a)
        at = attacks_at.get(target)
        if at is None:
            attacks_at[target] = [a]
        else:
            at.append(a)


def _supports(
    board: Board,
    orders: list[tuple[int, Order]],
    ceasefire: bool,
    bloc_of: dict[int, int],
    out: Classified,
) -> None:
    """R-5.3: each support order against the attacks classified before it: a defence of the
    bey's own province or a treaty partner's it is not betraying (R-6.5), else the first
    advance into T (in seat and origin order) of an ally, else void."""
    owners, treaties = board.owner, board.treaties
    betrays = {(a.seat, owners[a.target]) for a in out.attacks if a.betrayal}
    partners: set[tuple[int, int]] = set()  # (seat, other) for every treaty, both ways
    allies: set[tuple[int, int]] = set()
    for (x, y), t in treaties.items():
        partners.add((x, y))
        partners.add((y, x))
        if t.kind == "alliance":
            allies.add((x, y))
            allies.add((y, x))
    partners -= betrays
    attackers = out.attacks_at
    supports, void, dropped, supports_at = out.supports, out.void, out.dropped, out.supports_at
    for seat, o in orders:
        target: int = o.target  # type: ignore[assignment]
        owner = owners[target]
        if owner == seat or (seat, owner) in partners:
            s = Support(seat, o.province, target, o.units, True)  # defence
        else:
            for a in attackers.get(target, ()):
                if (seat, a.seat) in allies:
                    s = Support(seat, o.province, target, o.units, False, bloc_of[a.seat])
                    break
            else:
                void.append((seat, o.province, target))
                dropped.append(
                    Dropped(seat, o.province, target, o.kind, o.units, "void_support", owner)
                )
                continue
        supports.append(s)
        at = supports_at.get(target)
        if at is None:
            supports_at[target] = [s]
        else:
            at.append(s)


# In the order step 3 classifies them (R-5.3: supports after the advances they may back).
ORDER_KINDS: Final[dict[OrderKind, OrderKindSpec]] = {
    "advance": OrderKindSpec(True, _advances, ("ilerleyişiniz", "advance")),
    "support": OrderKindSpec(True, _supports, ("desteğiniz", "support"), battle_support=True),
    "hold": OrderKindSpec(False),
}
