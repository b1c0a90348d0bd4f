"""Invariants that hold after every Divan (issue 2): a broken one is a defect, never repaired."""

from __future__ import annotations

from shared.domain.map import MAX_UNITS
from shared.domain.state import SeasonState


def violations(state: SeasonState) -> list[str]:
    """Owned provinces hold 1 … 12 units (R-2.5), milis ≥ 1, no negative gold, known owners."""
    out = []
    if len(state.provinces) != 81:
        out.append(f"{len(state.provinces)} provinces instead of 81")
    out.extend(_province_violations(state))
    out.extend(_bey_violations(state))
    for t in state.treaties:
        if t.a >= t.b or t.through_divan > 12:
            out.append(f"treaty {t}: malformed")
    if len({t.pair() for t in state.treaties}) != len(state.treaties):
        out.append("two treaties for one pair")
    return out


def _province_violations(state: SeasonState) -> list[str]:
    """R-2.5: owned provinces hold 1 … 12 units and a known owner; unowned ones milis ≥ 1."""
    seats = {b.seat for b in state.beys}
    out = []
    for plate, p in enumerate(state.provinces, start=1):
        if p.owner is None:
            if p.units < 1:
                out.append(f"province {plate}: milis {p.units} < 1")
            if p.sur:
                out.append(f"province {plate}: unowned with a sur")
        else:
            if p.owner not in seats:
                out.append(f"province {plate}: owner {p.owner} is no bey")
            if not 1 <= p.units <= MAX_UNITS:
                out.append(f"province {plate}: {p.units} units outside 1..12")
    return out


def _bey_violations(state: SeasonState) -> list[str]:
    """No negative gold; missions dealt once each, and only dealt ones completed."""
    out = []
    for b in state.beys:
        if b.gold < 0:
            out.append(f"bey {b.seat}: negative gold {b.gold}")
        if len(set(b.missions)) != len(b.missions):
            out.append(f"bey {b.seat}: duplicate missions")
        if not set(b.missions_done) <= set(b.missions):
            out.append(f"bey {b.seat}: completed a mission not dealt")
    return out
