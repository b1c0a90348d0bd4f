"""Deciding beys' names and a live season's lobby entry (issue 23): a name chosen at a join
(R-15.5), a name reset by ops (R-15.2), a season listed or not with its description, and the
description reset by ops (R-15.2, ADR-105)."""

from __future__ import annotations

import unicodedata
from typing import Final

from shared.domain import commands as c
from shared.domain import events as ev
from shared.domain import names, text
from shared.domain.state import SeasonState

DESCRIPTION_MAX: Final = 280

reject = c.reject


def name_refusal(state: SeasonState, name: str) -> c.Rejection | None:
    """R-15.5: why a bey may not take `name` in this season, or None: the one rule of every
    public name (`names.name_refusal`: `invalid_name`, `name_reserved`), or one that another
    bey of the season has, by the confusable keys (`name_taken`)."""
    refused = names.name_refusal(name)
    if refused is not None:
        return refused
    if any(names.same_name(name, taken) for _seat, taken in sorted(state.names.items())):
        return reject("name_taken", field="$.name")
    return None


def named(seat: int, name: str | None) -> list[ev.Event]:
    """The event naming a bey that just joined (none without a name)."""
    if name is None:
        return []
    return [ev.BeyNamed(seat=seat, name=unicodedata.normalize("NFC", name))]


def decide_reset(state: SeasonState, cmd: c.ResetName) -> list[ev.Event] | c.Rejection:
    """R-15.2, R-15.5: ops reset a bey's name, with a reason (the one free-text check); the bey
    is shown by its seat again. A seat without a name has nothing to reset."""
    refused = c.reason_refused(cmd.reason)
    if refused is not None:
        return refused
    if state.bey(cmd.seat) is None:
        return reject("unknown_seat", seat=cmd.seat)
    if cmd.seat not in state.names:
        return reject("invalid_name.unnamed", seat=cmd.seat)
    return [ev.BeyNamed(seat=cmd.seat, name=None, by="ops", reason=cmd.reason, at=cmd.at)]


def decide_description_reset(
    state: SeasonState, cmd: c.ResetDescription
) -> list[ev.Event] | c.Rejection:
    """R-15.2, ADR-105: ops reset a live season's lobby description, with a reason (the one
    free-text check), as a name is reset: the season stays listed or unlisted as it was and
    shows no description. A season without one has nothing to reset (`no_description`)."""
    refused = c.reason_refused(cmd.reason)
    if refused is not None:
        return refused
    if state.mode != "live":
        return reject("not_allowed_in_mode.lobby_live_only")
    if state.description is None:
        return reject("no_description")
    reset = ev.SeasonListed(listed=state.listed, by="ops", reason=cmd.reason, at=cmd.at)
    return [reset]


def description_refusal(description: str) -> c.Rejection | None:
    """A lobby description: one line of 1 … 280 visible characters by the free-text check."""
    found = text.text_problem(description)
    if found is not None or len(description) > DESCRIPTION_MAX:
        return reject("invalid_body.description", field="$.description")
    return None


def decide_listing(state: SeasonState, cmd: c.ListSeason) -> list[ev.Event] | c.Rejection:
    """Issue 23: a live season's lobby entry; nothing when it is the default."""
    if state.mode != "live":
        return reject("not_allowed_in_mode.lobby_live_only")
    if cmd.description is not None:
        refused = description_refusal(cmd.description)
        if refused is not None:
            return refused
    if cmd.listed and cmd.description is None:
        return []
    return [ev.SeasonListed(listed=cmd.listed, description=cmd.description)]
