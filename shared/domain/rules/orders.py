"""Step 3 order handling: drop, clamp and classify orders before anyone moves (R-4, R-5)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from operator import attrgetter

from shared.domain.board import Board
from shared.domain.rules.kinds import ORDER_KINDS, Classified, Dropped
from shared.domain.state import Order


def effective_orders(
    board: Board, orders: Mapping[int, Sequence[Order]]
) -> list[tuple[int, Order]]:
    """R-4.1, R-4.2, R-4.5: the last order per owned province, clamped to units − 1, N ≥ 1."""
    return read_orders(board, orders)[0]


# The kinds that name a target, as a set: one membership test an order (issue 27).
_TARGETED = frozenset(kind for kind, spec in ORDER_KINDS.items() if spec.targeted)


def read_orders(
    board: Board, orders: Mapping[int, Sequence[Order]]
) -> tuple[list[tuple[int, Order]], list[Dropped]]:
    """One reading of the locked orders: the effective ones by origin (R-4.1: a bey's last order
    for a province; R-4.5: only the owner's count; R-4.2: clamped to units − 1, N ≥ 1), and the
    ones dropped before classification, for their beys' reports: R-4.5 (the province is no
    longer the bey's) and R-4.2 (no unit to spare). Holds and non-neighbour targets do nothing.
    """
    owners, units, neighbours = board.owner, board.units, board.gm.neighbour_sets
    # By origin plate (index 0 unused; an order's province is a plate, `decide` refuses any
    # other): read in plate order by one C filter, where a dict of the origins grew, was
    # sorted and read back key by key (issue 27).
    chosen: list[tuple[int, Order] | None] = [None] * 82
    dropped: list[Dropped] = []
    # The seat whose orders last read each plate: a seat's own earlier orders for a province
    # are passed over (issue 27: a set a seat, and a call to add each origin).
    read_by: list[int | None] = [None] * 82
    for seat in sorted(orders):
        # the last order for a province counts: read from the last, each province once
        # (where a dict comprehension a seat cost a quarter of the reading; issue 27).
        # `dropped` is in no order within a seat: `dropped_orders` sorts it.
        for o in reversed(orders[seat]):
            origin = o.province
            if read_by[origin] == seat:
                continue
            read_by[origin] = seat
            target = o.target
            if target is None or o.kind not in _TARGETED:
                continue
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
    return list(filter(None, chosen)), dropped


def blocs(board: Board) -> dict[int, int]:
    """R-5.2: each seat's bloc id (lowest seat of its alliance component)."""
    bloc = {s: s for s in board.beys}  # a seat in no alliance is its own bloc
    # The union-find holds the seats that are not their component's root only (issue 27: it held
    # every seat, and every seat's root was read back from it).
    parent: dict[int, int] = {}

    def find(s: int) -> int:
        while (up := parent.get(s, s)) != s:
            parent[s] = parent.get(up, up)
            s = up
        return s

    treaties = board.treaties
    # The pairs alone sorted (each is one treaty's: no two compare equal, no treaty compared);
    # the lower root kept by a comparison, not min/max (a keyword parse each in 3.11; issue 27).
    for a, b in sorted(treaties):
        if treaties[a, b].kind == "alliance" and a in bloc and b in bloc:
            ra, rb = find(a), find(b)
            if ra < rb:
                parent[rb] = ra
            elif rb < ra:
                parent[ra] = rb
    for s in parent:
        bloc[s] = find(s)
    return bloc


def classify(
    board: Board, orders: list[tuple[int, Order]], ceasefire: bool, bloc_of: dict[int, int]
) -> Classified:
    """R-5.1: each kind's classification (`ORDER_KINDS`), in the table's order: advances
    cancelled (R-6.4, R-6.7) or marked as betrayals (R-6.5), then supports (R-5.3)."""
    out = Classified()
    by_kind: dict[str, list[tuple[int, Order]]] = {kind: [] for kind in ORDER_KINDS}
    for pair in orders:  # the pair as read, not unpacked and built again (issue 27)
        by_kind[pair[1].kind].append(pair)
    for kind, spec in ORDER_KINDS.items():
        given = by_kind.get(kind)
        if given and spec.classify is not None:
            spec.classify(board, given, ceasefire, bloc_of, out)
    return out


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
    return sorted([*unread, *c.dropped], key=_SEAT_ORIGIN)


_SEAT_ORIGIN = attrgetter("seat", "origin")
