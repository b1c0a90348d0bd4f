"""Sealed orders (ADR-57, D-35): each bey's locked orders get a salted digest at the lock.

At every Divan of a season of report version 3 or later (SEALED_REPORT_VERSION), the first
outcome event is an `OrdersSealed` naming, for every bey seated at the lock (humans and
computer beys alike, D-35), the digest of the order set the Divan resolves for it (the empty
set when it locked none):

    salt   = HMAC-SHA256(key = UTF-8 "seksenbir/sealed-orders/1:{seed_salt}:{seed}",
                         msg = UTF-8 "{season_id}:{divan}:{seat}")
    digest = lower-case hex SHA-256(salt || canonical(orders))

canonical(orders) is the UTF-8 JSON array of the orders sorted by province, each an object with
exactly the keys kind, province, target, units in that (sorted) order, no spaces, `target` null
when the order has none, `units` 0 when not given, integers in decimal (docs/export.md "Sealed
orders" has the recipe in a few lines of Python and tests/audit/test_sealed_orders.py runs it).

The public report lists every digest; the bey's own private report gives it its salt and
digest, so it can recompute the digest of what it sent. Other beys cannot: the salt is keyed by
the season's secret seed salt (R-1.5), so a small order set cannot be brute-forced from its
digest. Once the Kurultay reveals the seed and its salt, anyone holding the full export can
recompute every salt and digest. Pure: no clock, no I/O, no random state.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import msgspec

from shared.domain import events as ev
from shared.domain.state import SEALED_REPORT_VERSION, Order, SeasonState

SCHEME = "seksenbir/sealed-orders/1"
_encoder = msgspec.json.Encoder(order="sorted")


def seals_orders(report_version: int) -> bool:
    """ADR-57: seasons of report version 3 or later seal each Divan's orders at the lock."""
    return report_version >= SEALED_REPORT_VERSION


def canonical(orders: Iterable[Order]) -> bytes:
    """The canonical encoding of one bey's order set: sorted by province (one order per
    province, R-4.1), every key present and sorted, no spaces; `[]` for the empty set."""
    rows = [
        {"kind": o.kind, "province": o.province, "target": o.target, "units": o.units}
        for o in sorted(orders, key=lambda o: o.province)
    ]
    return _encoder.encode(rows)


def salt(seed_salt: str, seed: int, season_id: str, divan: int, seat: int) -> bytes:
    """The bey's salt for Divan `divan`: secret while the seed salt is (R-1.5). The key's
    prefix keeps it apart from the commitment's text `salt:seed` (HMAC hashes a long key)."""
    key = f"{SCHEME}:{seed_salt}:{seed}".encode()
    return hmac.new(key, f"{season_id}:{divan}:{seat}".encode(), hashlib.sha256).digest()


def digest(salt_bytes: bytes, orders: Iterable[Order]) -> str:
    """Lower-case hex SHA-256 of the salt followed by the canonical encoding of the orders."""
    return hashlib.sha256(salt_bytes + canonical(orders)).hexdigest()


def seat_salt(state: SeasonState, divan: int, seat: int) -> bytes:
    return salt(state.seed_salt, state.seed, state.season_id, divan, seat)


def seal(state: SeasonState, divan: int, orders: Mapping[int, Sequence[Order]]) -> ev.OrdersSealed:
    """D-35: a digest for every bey at the lock, of the set locked for it (empty if none)."""
    digests = {
        b.seat: digest(seat_salt(state, divan, b.seat), orders.get(b.seat, ()))
        for b in sorted(state.beys, key=lambda b: b.seat)
    }
    return ev.OrdersSealed(divan=divan, digests=digests, scheme=SCHEME)


@dataclass(frozen=True)
class SealProblem:
    """A Divan whose orders resolved are not its orders sealed: `at` indexes the event named
    (the lock, the seal or the report), `what` says why in English (the catalogue's text)."""

    divan: int
    what: str
    at: int


def _published(resolved: ev.DivanResolved | None) -> dict[int, str]:
    """The digests Divan n's public report lists (its `orders_sealed` lines)."""
    if resolved is None:
        return {}
    out: dict[int, str] = {}
    for line in resolved.public:
        if line.kind == "orders_sealed":
            seat, value = line.data.get("seat"), line.data.get("digest")
            if isinstance(seat, int) and isinstance(value, str):
                out[seat] = value
    return out


def check_divan(
    state: SeasonState,
    locked: ev.DivanLocked,
    lock_at: int,
    following: Sequence[ev.Event],
) -> SealProblem | None:
    """Whether the orders Divan `locked.divan` resolved are the orders it sealed.

    `state` is the season just before the lock and `following` the events after it (from index
    lock_at + 1): the seal must be the first of them. Each bey's digest is recomputed from the
    lock and compared with the seal and with the public report; the event named is the one
    the others contradict: the lock when the seal and the report agree (an order altered after
    sealing), the seal when the lock and the report agree (an altered digest), else the report.
    """
    n = locked.divan
    first = following[0] if following else None
    if not isinstance(first, ev.OrdersSealed) or first.divan != n:
        return SealProblem(n, "the lock is not followed by its orders_sealed event", lock_at)
    sealed = first
    report_at, resolved = next(
        (
            (k, e)
            for k, e in enumerate(following)
            if isinstance(e, ev.DivanResolved) and e.divan == n
        ),
        (None, None),
    )
    seal_index = lock_at + 1
    report_index = lock_at + 1 + report_at if report_at is not None else seal_index
    published = _published(resolved)
    seats = [b.seat for b in sorted(state.beys, key=lambda b: b.seat)]
    for seat in sorted(set(seats) | set(sealed.digests) | set(locked.orders)):
        want = digest(seat_salt(state, n, seat), locked.orders.get(seat, ()))
        got, said = sealed.digests.get(seat), published.get(seat)
        if seat not in seats:
            return SealProblem(n, f"seat {seat} is sealed or locked but has no bey", seal_index)
        if want == got == said:
            continue
        if got == said:
            return SealProblem(
                n,
                f"seat {seat}'s locked orders are not the orders sealed and published: "
                "an order was changed after the seal",
                lock_at,
            )
        if want == said:
            return SealProblem(
                n,
                f"seat {seat}'s sealed digest is neither its locked orders' nor the one the "
                "report published: the seal was changed",
                seal_index,
            )
        return SealProblem(
            n,
            f"the digest the report published for seat {seat} is not the one sealed",
            report_index,
        )
    return None
