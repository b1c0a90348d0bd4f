"""R-5.2, R-5.3: a battle's attackers in groups, one per bloc, each with its attack support
(the battle step, rules/battle.py, fights them)."""

from __future__ import annotations

from operator import attrgetter

from shared.domain.events import GroupRecord
from shared.domain.rules.kinds import Advance, Support

_SEAT_ORIGIN = attrgetter("seat", "origin")


def groups(
    attacks: list[Advance], supports: list[Support], bloc_of: dict[int, int]
) -> tuple[list[list[Advance]], list[GroupRecord]]:
    """R-5.2, R-5.3: one target's attackers by bloc (in bloc order), each with the attack
    support for it."""
    if one_bey_in_order(attacks):  # the usual battle: one bey's advances, one group
        return [attacks], [_one_bey(attacks, supports, bloc_of)]
    by_bloc: dict[int, list[Advance]] = {}
    for a in sorted(attacks, key=_SEAT_ORIGIN):
        by_bloc.setdefault(bloc_of[a.seat], []).append(a)
    # attack support by bloc, in the order given
    backing_of: dict[int | None, list[tuple[int, int, int]]] = {}
    for s in supports:
        if not s.defence:
            backing_of.setdefault(s.bloc, []).append((s.seat, s.origin, s.units))
    groups = []
    records = []
    for key in sorted(by_bloc) if len(by_bloc) > 1 else by_bloc:
        advs = by_bloc[key]
        backing = backing_of.get(key, [])
        advances = []
        seats: list[int] = []  # ascending and unique: the group's advances are in seat order
        strength = 0
        traitor = False
        for a in advs:  # one pass (each comprehension is a function call of its own)
            advances.append((a.seat, a.origin, a.units))
            if a.seat not in seats:
                seats.append(a.seat)
            strength += a.units
            traitor = traitor or a.betrayal
        for _s, _o, u in backing:
            strength += u
        groups.append(advs)
        # Positional: the fields in their declared order (no keyword matching per record).
        records.append(
            GroupRecord(tuple(seats), tuple(advances), tuple(backing), strength, traitor)
        )
    return groups, records


def one_bey_in_order(attacks: list[Advance]) -> bool:
    """Whether every advance is one bey's, in origin order (as classified): then they are in
    (seat, origin) order already, and one group."""
    seat = attacks[0].seat
    origin = 0
    for a in attacks:
        if a.seat != seat or a.origin <= origin:
            return False
        origin = a.origin
    return True


def _one_bey(
    attacks: list[Advance], supports: list[Support], bloc_of: dict[int, int]
) -> GroupRecord:
    """R-5.2, R-5.3: the one group of one bey's advances (in origin order), with the attack
    support of its bloc, in the order given: no sort, no grouping by bloc (issue 27)."""
    seat = attacks[0].seat
    bloc = bloc_of[seat]
    backing = [(s.seat, s.origin, s.units) for s in supports if not s.defence and s.bloc == bloc]
    advances = []
    strength = 0
    traitor = False
    for a in attacks:
        advances.append((a.seat, a.origin, a.units))
        strength += a.units
        traitor = traitor or a.betrayal
    for _s, _o, u in backing:
        strength += u
    # Positional: the fields in their declared order (no keyword matching per record).
    return GroupRecord((seat,), tuple(advances), tuple(backing), strength, traitor)
