"""Step 3 order handling: drop, clamp and classify orders before anyone moves (R-4, R-5)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from shared.domain.board import Board
from shared.domain.state import Order


@dataclass(frozen=True, slots=True)
class Advance:
    seat: int
    origin: int
    target: int
    units: int
    betrayal: bool = False


@dataclass(frozen=True, slots=True)
class Support:
    seat: int
    origin: int
    target: int
    units: int
    defence: bool
    bloc: int | None = None  # the bloc of the attack group it counts for


@dataclass(slots=True)
class Classified:
    moves: list[Advance] = field(default_factory=list)
    attacks: list[Advance] = field(default_factory=list)
    supports: list[Support] = field(default_factory=list)
    cancelled: list[tuple[int, int, int, str]] = field(default_factory=list)
    void: list[tuple[int, int, int]] = field(default_factory=list)


def effective_orders(
    board: Board, orders: Mapping[int, Sequence[Order]]
) -> list[tuple[int, Order]]:
    """R-4.1, R-4.2, R-4.5: the last order per owned province, clamped to units − 1, N ≥ 1."""
    chosen: dict[int, tuple[int, Order]] = {}
    for seat in sorted(orders):
        for order in orders[seat]:
            if board.owner[order.province] == seat:
                chosen[order.province] = (seat, order)
    result = []
    for origin in sorted(chosen):
        seat, order = chosen[origin]
        if order.kind == "hold" or order.target is None:
            continue
        if not board.gm.are_neighbours(origin, order.target):
            continue
        units = min(order.units, board.units[origin] - 1)
        if units >= 1:
            result.append((seat, Order(origin, order.kind, order.target, units)))
    return result


def blocs(board: Board) -> dict[int, int]:
    """R-5.2: each seat's bloc id (lowest seat of its alliance component)."""
    parent = {s: s for s in board.beys}

    def find(s: int) -> int:
        while parent[s] != s:
            parent[s] = parent[parent[s]]
            s = parent[s]
        return s

    for (a, b), t in sorted(board.treaties.items()):
        if t.kind == "alliance" and a in parent and b in parent:
            ra, rb = find(a), find(b)
            parent[max(ra, rb)] = min(ra, rb)
    return {s: find(s) for s in parent}


def classify(
    board: Board, orders: list[tuple[int, Order]], ceasefire: bool, bloc_of: dict[int, int]
) -> Classified:
    """R-5.1: cancel advances (R-6.4, R-6.7), mark betrayals (R-6.5), classify supports (R-5.3)."""
    out = Classified()
    _classify_advances(board, orders, ceasefire, out)
    betrays = {(a.seat, board.owner[a.target]) for a in out.attacks if a.betrayal}
    _classify_supports(board, orders, betrays, bloc_of, out)
    return out


def _classify_advances(
    board: Board, orders: list[tuple[int, Order]], ceasefire: bool, out: Classified
) -> None:
    """R-6.4, R-6.7: advances on an ally or in a ceasefire are cancelled; R-6.5: betrayals."""
    for seat, o in orders:
        if o.kind != "advance":
            continue
        assert o.target is not None
        owner = board.owner[o.target]
        if owner == seat:
            out.moves.append(Advance(seat, o.province, o.target, o.units))
        elif owner is None:
            out.attacks.append(Advance(seat, o.province, o.target, o.units))
        elif board.allied(seat, owner):
            out.cancelled.append((seat, o.province, o.target, "ittifak"))
        elif ceasefire:
            out.cancelled.append((seat, o.province, o.target, "bayram"))
        else:
            betrayal = board.treaty(seat, owner) is not None
            out.attacks.append(Advance(seat, o.province, o.target, o.units, betrayal))


def _classify_supports(
    board: Board,
    orders: list[tuple[int, Order]],
    betrays: set[tuple[int, int | None]],
    bloc_of: dict[int, int],
    out: Classified,
) -> None:
    """R-5.3: each support order against the attacks classified before it."""
    attackers: dict[int, list[Advance]] = {}
    for a in out.attacks:
        attackers.setdefault(a.target, []).append(a)
    for seat, o in orders:
        if o.kind != "support":
            continue
        assert o.target is not None
        support = _classify_support(
            board, attackers.get(o.target, []), betrays, bloc_of, seat=seat, o=o
        )
        if support is None:
            out.void.append((seat, o.province, o.target))
        else:
            out.supports.append(support)


def _classify_support(
    board: Board,
    attacks: list[Advance],
    betrays: set[tuple[int, int | None]],
    bloc_of: dict[int, int],
    *,
    seat: int,
    o: Order,
) -> Support | None:
    assert o.target is not None
    owner = board.owner[o.target]
    if owner == seat or (
        owner is not None and board.treaty(seat, owner) is not None and (seat, owner) not in betrays
    ):
        return Support(seat, o.province, o.target, o.units, defence=True)
    for a in attacks:  # the advances into T, in seat and origin order
        if a.seat != seat and board.allied(seat, a.seat):
            return Support(seat, o.province, o.target, o.units, False, bloc_of[a.seat])
    return None


@dataclass(frozen=True, slots=True)
class Dropped:
    """An order a rule cancelled or dropped before anyone moved, for its bey's report (R-13)."""

    seat: int
    origin: int
    target: int | None
    kind: str  # "advance" | "support"
    units: int  # as given, or as clamped when the clamp is not what dropped it
    reason: str  # "ally" | "ceasefire" | "void_support" | "not_owned" | "no_units"
    owner: int | None = None  # the target's owner as step 3 began


def dropped_orders(
    board: Board,
    orders: Mapping[int, Sequence[Order]],
    c: Classified,
    effective: list[tuple[int, Order]],
) -> list[Dropped]:
    """Every order that did nothing for a rule, with the reason: R-4.5 (the province is no
    longer the bey's), R-4.2 (no unit to spare), R-6.4 (an ally's province), R-6.7 (Bayram),
    R-5.3 (a void support). Same reading of the orders as `effective_orders` (whose answer the
    pipeline passes in as `effective`, computed once)."""
    out: list[Dropped] = []
    last: dict[tuple[int, int], Order] = {}
    for seat in sorted(orders):
        for order in orders[seat]:
            last[(seat, order.province)] = order
    for (seat, origin), o in sorted(last.items()):
        if o.kind == "hold" or o.target is None:
            continue
        if board.owner[origin] != seat:
            out.append(Dropped(seat, origin, o.target, o.kind, o.units, "not_owned"))
        elif (
            board.gm.are_neighbours(origin, o.target) and min(o.units, board.units[origin] - 1) < 1
        ):
            out.append(Dropped(seat, origin, o.target, o.kind, o.units, "no_units"))
    units = {(seat, o.province): o.units for seat, o in effective}
    why = {"ittifak": "ally", "bayram": "ceasefire"}
    for seat, origin, target, reason in c.cancelled:
        owner = board.owner[target]
        n = units.get((seat, origin), 0)
        out.append(Dropped(seat, origin, target, "advance", n, why.get(reason, reason), owner))
    for seat, origin, target in c.void:
        n = units.get((seat, origin), 0)
        out.append(Dropped(seat, origin, target, "support", n, "void_support", board.owner[target]))
    return sorted(out, key=lambda d: (d.seat, d.origin))
