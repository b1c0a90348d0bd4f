"""Beys' names as every answer shows them (issue 23, R-15.5): one shape for the command side's
status and the read side's views. A bey's `name` is its chosen one, a computer bey's given one
("Konya Beyi"), or its seat form ("3. bey"); `chosen` says whether a person chose it."""

from __future__ import annotations

from typing import Annotated

import msgspec

from shared.domain.names import display_name
from shared.domain.state import SeasonState

# a bey's display name; what it may hold is the domain's check (shared.domain.names):
# 422 `invalid_name`, `name_reserved`, 409 `name_taken`.
BeyName = Annotated[
    str,
    msgspec.Meta(
        max_length=200,
        description="a display name: 2 … 24 letters, digits, spaces and . - _ ' (R-15.5); "
        "unique in the season by its Unicode confusable skeleton; seat forms, Han, ops, "
        "sistem, admin … and their lookalikes are reserved",
        examples=["Ayşe"],
    ),
]
# Issue 23: a live season's description in the lobby (one line of visible text)
Description = Annotated[
    str,
    msgspec.Meta(
        max_length=1000,
        description="1 … 280 characters, one line with something visible in it (ADR-77)",
        examples=["Akşamları oynayanlar için"],
    ),
]


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
