"""Season admin of a live season (D-29 … D-31): postpone, cancel, pause, resume. Pure.

Each act is decided on the season's state and the server instant stamped on the command (`at`),
and recorded as a `SeasonAdminActed` event with its reason; an act that moves the calendar
(a postponement, a resume) is followed by the new `CalendarSet`.
"""

from __future__ import annotations

import msgspec

from shared.domain import calendar as cal
from shared.domain import commands as c
from shared.domain import events as ev
from shared.domain import live
from shared.domain.state import AdminAct, Calendar, SeasonState

Result = list[ev.Event] | c.Rejection


_reject = c.reject  # _reject(key, **details): the text is shared.domain.messages' (key's)


def cancelled() -> c.Rejection:
    """D-29: every command on a cancelled season."""
    return _reject("season_cancelled")


def set_token(state: SeasonState, cmd: c.SetAdminToken) -> Result:
    """The season-admin token of a live season, once, when it is created."""
    if state.mode != "live":
        return _reject("not_allowed_in_mode.admin_live_only")
    if state.admin_token:
        return _reject("season_exists.admin_token")
    return [ev.AdminTokenSet(token_hash=cmd.token_hash)]


def decide_admin(state: SeasonState, cmd: c.SeasonAdmin) -> Result:  # noqa: PLR0911 — the guards every act shares, in order
    """D-29 … D-31: one act, or why it cannot be done now."""
    if state.mode != "live" or state.calendar is None:
        return _reject("not_allowed_in_mode.admin_live_only")
    if state.cancelled:
        return cancelled()
    if not cal.is_aware(cmd.at):
        return _reject("invalid_instant")
    if (refused := c.reason_refused(cmd.reason)) is not None:
        return refused
    assert cmd.at is not None
    act = AdminAct(act=cmd.act, reason=cmd.reason, at=cmd.at, by=cmd.by)
    done = ev.SeasonAdminActed(act=act)
    match cmd.act:
        case "postpone":
            return _postpone(state, cmd, done)
        case "cancel":
            return _cancel(state, cmd, done)
        case "pause":
            return _pause(state, cmd, done)
        case "resume":
            return _resume(state, cmd, done)


def _postpone(state: SeasonState, cmd: c.SeasonAdmin, done: ev.Event) -> Result:
    """D-29: only during registration, to a later close at least the creation's lead ahead;
    the provisional calendar moves with it."""
    planned = state.calendar
    assert planned is not None and cmd.at is not None
    if state.phase != "registration" or live.registration_over(state, cmd.at):
        return _reject("registration_closed")
    close = cmd.registration_closes_at
    if close is None:
        return _reject("registration_close_required.postpone")
    if not cal.is_aware(close):
        return _reject("invalid_instant")
    if close <= planned.registration_closes_at:
        # the close as the calendar shows it (to the microsecond when it has one)
        return _reject(
            "not_later", registration_closes_at=cal.exact(planned.registration_closes_at)
        )
    interval = planned.interval_seconds
    if (refused := live.close_refusal(close, cmd.at, interval)) is not None:
        return refused
    moved: Calendar = cal.live(close) if interval is None else cal.compressed(close, interval)
    moved = msgspec.structs.replace(moved, provisional=True)
    return [done, ev.CalendarSet.of(moved, "postponed")]


def _cancel(state: SeasonState, cmd: c.SeasonAdmin, done: ev.Event) -> Result:
    """D-29: only before Divan 1 (its instant not yet passed, nothing resolved)."""
    if state.phase not in ("registration", "running") or state.divan > 0:
        return _reject("wrong_phase.cancel_before_divan_1")
    assert state.calendar is not None and cmd.at is not None
    if state.paused_at is None and cmd.at >= state.calendar.at(1):
        return _reject("wrong_phase.cancel_before_divan_1")
    return [done]


def _pause(state: SeasonState, cmd: c.SeasonAdmin, done: ev.Event) -> Result:
    """D-30: a running season, not paused, with no Divan locked and unresolved."""
    if state.phase != "running":
        return _reject("wrong_phase.pause_running")
    if state.paused_at is not None:
        return _reject("already_paused")
    n = live.locked(state, cmd.at)
    if n is not None or state.locked_divan is not None:
        return _reject("divan_locked.pause", divan=n or state.locked_divan)
    return [done]


def _resume(state: SeasonState, cmd: c.SeasonAdmin, done: ev.Event) -> Result:
    """D-31: Divan n (the next) at the first Tuesday (odd) or Friday (even) 21:00 at least
    24 hours away (compressed: one interval after the resume), later Divans with it."""
    if state.paused_at is None:
        return _reject("not_paused")
    assert state.calendar is not None and cmd.at is not None
    moved = cal.resumed(state.calendar, state.divan + 1, cmd.at)
    return [done, ev.CalendarSet.of(moved, "resumed")]
