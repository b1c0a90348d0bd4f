"""Beys' names as every answer shows them (issue 23, R-15.5): one shape for the command side's
status and the read side's views. A bey's `name` is its chosen one, a computer bey's given one
("Konya Beyi"), or its seat form ("3. bey"); `chosen` says whether a person chose it."""

from __future__ import annotations

import msgspec

from shared.domain.names import display_name
from shared.domain.state import SeasonState


class NamedBey(msgspec.Struct, frozen=True):
    """A bey as others see it: seat, memleket, computer or not, and its name (R-15.5)."""

    seat: int
    memleket: int
    computer: bool
    name: str
    chosen: bool


def named_beys(state: SeasonState) -> list[NamedBey]:
    """Every seated bey with its name, by seat."""
    return [
        NamedBey(
            seat=b.seat,
            memleket=b.memleket,
            computer=b.computer,
            name=display_name(state.names, b.seat, b.memleket, b.computer),
            chosen=b.seat in state.names,
        )
        for b in state.beys
    ]


def names_by_seat(state: SeasonState) -> dict[int, str]:
    """seat -> the name shown, for answers that refer to seats (reports, treaties, titles)."""
    return {b.seat: b.name for b in named_beys(state)}
