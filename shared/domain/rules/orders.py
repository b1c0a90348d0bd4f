"""Step 3 order handling: drop, clamp and classify orders before anyone moves (R-4, R-5)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from operator import attrgetter

import msgspec

from shared.domain.board import Board
from shared.domain.state import Order


class Advance(msgspec.Struct, frozen=True):
    seat: int
    origin: int
    target: int
    units: int
    betrayal: bool = False


class Support(msgspec.Struct, frozen=True):
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
    # The units of each cancelled advance and void support, by (seat, origin), for its report.
    dropped_units: dict[tuple[int, int], int] = field(default_factory=dict)


def effective_orders(
    board: Board, orders: Mapping[int, Sequence[Order]]
) -> list[tuple[int, Order]]:
    """R-4.1, R-4.2, R-4.5: the last order per owned province, clamped to units − 1, N ≥ 1."""
    return read_orders(board, orders)[0]


def read_orders(
    board: Board, orders: Mapping[int, Sequence[Order]]
) -> tuple[list[tuple[int, Order]], list[Dropped]]:
    """One reading of the locked orders: the effective ones by origin (R-4.1: a bey's last order
    for a province; R-4.5: only the owner's count; R-4.2: clamped to units − 1, N ≥ 1), and the
    ones dropped before classification, for their beys' reports: R-4.5 (the province is no
    longer the bey's) and R-4.2 (no unit to spare). Holds and non-neighbour targets do nothing.
    """
    owners, units, neighbours = board.owner, board.units, board.gm.neighbour_sets
    chosen: dict[int, tuple[int, Order]] = {}
    dropped: list[Dropped] = []
    for seat in sorted(orders):
        given: Iterable[Order] = orders[seat]
        if len(orders[seat]) > 1:  # a later order for a province replaces an earlier one
            # (a comprehension: zip's strict= is a keyword parse per call in 3.11, issue 12)
            given = {o.province: o for o in given}.values()
        for o in given:
            target = o.target
            if target is None or o.kind == "hold":
                continue
            origin = o.province
            if owners[origin] != seat:
                dropped.append(Dropped(seat, origin, target, o.kind, o.units, "not_owned"))
                continue
            if target not in neighbours[origin]:
                continue
            if o.units >= units[origin]:  # clamped to the units it can spare
                n = units[origin] - 1
                if n < 1:
                    dropped.append(Dropped(seat, origin, target, o.kind, o.units, "no_units"))
                    continue
                o = Order(origin, o.kind, target, n)  # noqa: PLW2901 — the clamped order
            elif o.units < 1:
                dropped.append(Dropped(seat, origin, target, o.kind, o.units, "no_units"))
                continue
            chosen[origin] = (seat, o)  # only the owner's order for a province counts
    return list(map(chosen.__getitem__, sorted(chosen))), dropped


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
    return {s: s if parent[s] == s else find(s) for s in parent}  # a root needs no call


def classify(
    board: Board, orders: list[tuple[int, Order]], ceasefire: bool, bloc_of: dict[int, int]
) -> Classified:
    """R-5.1: cancel advances (R-6.4, R-6.7), mark betrayals (R-6.5), classify supports (R-5.3)."""
    out = Classified()
    supports = _classify_advances(board, orders, ceasefire, out)
    betrays = {(a.seat, board.owner[a.target]) for a in out.attacks if a.betrayal}
    _classify_supports(board, supports, betrays, bloc_of, out)
    return out


def _classify_advances(
    board: Board, orders: list[tuple[int, Order]], ceasefire: bool, out: Classified
) -> list[tuple[int, Order]]:
    """R-6.4, R-6.7: advances on an ally or in a ceasefire are cancelled; R-6.5: betrayals.
    Answers the support orders, in the order given, for `_classify_supports`."""
    owners, treaties = board.owner, board.treaties
    moves, attacks, cancelled = out.moves, out.attacks, out.cancelled
    supports = []
    for seat, o in orders:
        if o.kind != "advance":
            if o.kind == "support":
                supports.append((seat, o))
            continue
        target: int = o.target  # type: ignore[assignment]
        owner = owners[target]
        if owner == seat:
            moves.append(Advance(seat, o.province, target, o.units))
        elif owner is None:
            attacks.append(Advance(seat, o.province, target, o.units))
        else:
            treaty = treaties.get((seat, owner) if seat < owner else (owner, seat))
            if treaty is not None and treaty.kind == "alliance":
                cancelled.append((seat, o.province, target, "ittifak"))
                out.dropped_units[seat, o.province] = o.units
            elif ceasefire:
                cancelled.append((seat, o.province, target, "bayram"))
                out.dropped_units[seat, o.province] = o.units
            else:
                attacks.append(Advance(seat, o.province, target, o.units, treaty is not None))
    return supports


def _classify_supports(
    board: Board,
    orders: list[tuple[int, Order]],
    betrays: set[tuple[int, int | None]],
    bloc_of: dict[int, int],
    out: Classified,
) -> None:
    """R-5.3: each support order against the attacks classified before it: a defence of the
    bey's own province or a treaty partner's it is not betraying, else the first advance into T
    (in seat and origin order) of an ally, else void."""
    owners, treaties = board.owner, board.treaties
    partners: set[tuple[int, int]] = set()  # (seat, other) for every treaty, both ways
    allies: set[tuple[int, int]] = set()
    for (x, y), t in treaties.items():
        partners.add((x, y))
        partners.add((y, x))
        if t.kind == "alliance":
            allies.add((x, y))
            allies.add((y, x))
    partners -= betrays
    attackers: dict[int, list[Advance]] = {}
    for a in out.attacks:
        attackers.setdefault(a.target, []).append(a)
    supports, void = out.supports, out.void
    for seat, o in orders:
        target: int = o.target  # type: ignore[assignment]
        owner = owners[target]
        if owner == seat or (seat, owner) in partners:
            supports.append(Support(seat, o.province, target, o.units, True))  # defence
            continue
        for a in attackers.get(target, ()):
            if (seat, a.seat) in allies:
                supports.append(Support(seat, o.province, target, o.units, False, bloc_of[a.seat]))
                break
        else:
            void.append((seat, o.province, target))
            out.dropped_units[seat, o.province] = o.units


class Dropped(msgspec.Struct, frozen=True):
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
    unread: list[Dropped],
    c: Classified,
    effective: list[tuple[int, Order]],
) -> list[Dropped]:
    """Every order that did nothing for a rule, with the reason, by seat and origin: R-4.5 (the
    province is no longer the bey's) and R-4.2 (no unit to spare), which `read_orders` found
    (`unread`), then R-6.4 (an ally's province), R-6.7 (Bayram), R-5.3 (a void support) from
    the classification. Each (seat, origin) gives at most one, so the sort alone orders them."""
    owners = board.owner
    out = list(unread)
    if c.cancelled or c.void:
        units = c.dropped_units
        why = {"ittifak": "ally", "bayram": "ceasefire"}
        for seat, origin, target, why_cancelled in c.cancelled:
            n = units.get((seat, origin), 0)
            reason = why.get(why_cancelled, why_cancelled)
            out.append(Dropped(seat, origin, target, "advance", n, reason, owners[target]))
        for seat, origin, target in c.void:
            n = units.get((seat, origin), 0)
            out.append(Dropped(seat, origin, target, "support", n, "void_support", owners[target]))
    return sorted(out, key=_SEAT_ORIGIN)


_SEAT_ORIGIN = attrgetter("seat", "origin")
