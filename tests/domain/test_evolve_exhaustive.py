"""evolve handles every event type: the union names each one, and mypy checks the match."""

from __future__ import annotations

import pytest

from shared.domain import events as ev
from shared.domain.evolve import evolve
from shared.domain.state import SeasonState


def _subclasses(cls: type[ev.Event]) -> set[type[ev.Event]]:
    found: set[type[ev.Event]] = set()
    for sub in cls.__subclasses__():
        if sub.__module__.startswith("shared.domain."):  # not a test's stray class
            found |= {sub, *_subclasses(sub)}
    return found


def test_every_event_type_is_in_the_union_evolve_matches_on():
    """An event class left out of ev.AnyEvent would escape the exhaustiveness check."""
    assert _subclasses(ev.Event) == set(ev.EVENT_TYPES)


def test_an_event_of_no_known_type_is_refused():
    class Stray(ev.Event, frozen=True, tag="stray.v1"):
        pass

    with pytest.raises(AssertionError):
        evolve(SeasonState(), Stray())
