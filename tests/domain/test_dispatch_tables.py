"""ADR-168: `decide` and `evolve` look a bey's command and a command's or a Divan's event up by
its exact type before their match; the table must send each type where the match does."""

from __future__ import annotations

import inspect
from typing import get_args

from shared.domain import commands as c
from shared.domain import decide, evolve
from shared.domain import events as ev


def _classes(module: object, base: type) -> list[type]:
    return [
        o
        for o in vars(module).values()
        if inspect.isclass(o) and issubclass(o, base) and o is not base
    ]


def test_adr168_no_command_or_event_class_subclasses_another() -> None:
    """An exact-type look-up picks what the match picks only while no class of a table is a
    subclass of another case's class (the match would take the first case that matches)."""
    for classes in (_classes(c, c.Command), _classes(ev, ev.Event)):
        assert [(a, b) for a in classes for b in classes if a is not b and issubclass(a, b)] == []


def test_adr168_evolve_groups_each_command_and_divan_event_as_its_match_does() -> None:
    grouped = evolve._GROUPED
    assert {t for t, f in grouped.items() if f is evolve._apply_command} == set(
        get_args(evolve.CommandEvent)
    )
    assert {t for t, f in grouped.items() if f is evolve._apply_divan} == set(
        get_args(evolve.DivanEvent)
    )
    assert len(grouped) == len(get_args(evolve.CommandEvent)) + len(get_args(evolve.DivanEvent))


def test_adr168_decide_sends_each_bey_command_to_its_cases_function() -> None:
    source = inspect.getsource(decide._decide)
    for command, function in decide._BEY_COMMANDS.items():
        # the match's case for this class calls the same function
        case = next(line for line in source.splitlines() if f"c.{command.__name__}()" in line)
        after = source[source.index(case) :].splitlines()[1]
        assert f"return {function.__name__}(state, command)" in after, (command, after)
