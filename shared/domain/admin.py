"""Season admin of a live season (D-29 … D-31): postpone, cancel, pause, resume. Pure.

Each act is decided on the season's state and the server instant stamped on the command (`at`),
and recorded as a `SeasonAdminActed` event with its reason; an act that moves the calendar
(a postponement, a resume) is followed by the new `CalendarSet`.

`ADMIN_ACTS` declares each act once (ADR-115): its decision, its effect on the state (evolve),
its public report line's words, its notice, its refusals, its route's summary and body, its
example reason. The fold, the report line, the notices, the routes, their documented answers
and examples, and the tests' lists of acts all derive from it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import msgspec

from shared.domain import calendar as cal
from shared.domain import commands as c
from shared.domain import events as ev
from shared.domain import live
from shared.domain.state import AdminAct, AdminActKind, Calendar, SeasonState

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


# The refusals every act shares (decide_admin's guards; an invalid `at` is the edge's, never
# a caller's): each act's own follow in its ADMIN_ACTS entry.
ADMIN_REFUSALS: tuple[str, ...] = ("not_allowed_in_mode", "season_cancelled", "reason_required")


def decide_admin(state: SeasonState, cmd: c.SeasonAdmin) -> Result:
    """D-29 … D-31: one act, or why it cannot be done now: the guards every act shares, in
    order, then the act's own decision (its ADMIN_ACTS entry)."""
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
    return ADMIN_ACTS[cmd.act].decide(state, cmd, ev.SeasonAdminActed(act=act))


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


def _kept(state: SeasonState, _act: AdminAct) -> SeasonState:
    """A postponement changes nothing more: the CalendarSet that follows moves the calendar."""
    return state


def _cancelled(state: SeasonState, _act: AdminAct) -> SeasonState:
    """D-29: a cancel ends the season; every command is refused after it."""
    return msgspec.structs.replace(state, cancelled=True)


def _paused(state: SeasonState, act: AdminAct) -> SeasonState:
    """D-30: a pause stops the season's clock at the act's instant."""
    return msgspec.structs.replace(state, paused_at=act.at)


def _resumed(state: SeasonState, _act: AdminAct) -> SeasonState:
    """D-31: a resume restarts the clock (the moved calendar is the CalendarSet that follows)."""
    return msgspec.structs.replace(state, paused_at=None)


@dataclass(frozen=True, slots=True, kw_only=True)
class AdminActSpec:
    """One season-admin act: everything the rest of the code knows of it."""

    decide: Callable[[SeasonState, c.SeasonAdmin, ev.Event], Result]  # after the shared guards
    effect: Callable[[SeasonState, AdminAct], SeasonState]  # evolve's, once the act is kept
    refusals: tuple[str, ...]  # its own refusal codes after ADMIN_REFUSALS, as documented
    words: tuple[str, str]  # its public report line's words (tr, en): report_lines.season_admin
    notice: tuple[str, str, str] | None  # the season's notice: its name, tr, en (issue 25)
    summary: str  # its route's summary (POST /v1/seasons/{id}/admin/<act>)
    takes_close: bool  # its body carries `registration_closes_at` (AdminIn), else ReasonIn
    example_reason: str  # the reason its OpenAPI examples show


ADMIN_ACTS: dict[AdminActKind, AdminActSpec] = {
    "postpone": AdminActSpec(
        decide=_postpone,
        effect=_kept,
        refusals=(
            "registration_closed",
            "registration_close_required",
            "invalid_instant",
            "not_later",
            "registration_too_soon",
        ),
        words=("kayıt kapanışı ertelendi", "registration close postponed"),
        notice=("season_postponed", "Sezon ertelendi.", "The season is postponed."),
        summary="Postpone the registration close to `registration_closes_at` (only in "
        "registration)",
        takes_close=True,
        example_reason="few players yet",
    ),
    "cancel": AdminActSpec(
        decide=_cancel,
        effect=_cancelled,
        refusals=("wrong_phase",),
        words=("sezon iptal edildi", "season cancelled"),
        notice=("season_cancelled", "Sezon iptal edildi.", "The season is cancelled."),
        summary="Cancel a live season before Divan 1; every command is refused then",
        takes_close=False,
        example_reason="not enough players",
    ),
    "pause": AdminActSpec(
        decide=_pause,
        effect=_paused,
        refusals=("wrong_phase", "already_paused", "divan_locked"),
        words=("sezon durduruldu", "season paused"),
        notice=("season_paused", "Sezon duraklatıldı.", "The season is paused."),
        summary="Pause a running season: no Divan locks or resolves while paused",
        takes_close=False,
        example_reason="server move",
    ),
    "resume": AdminActSpec(
        decide=_resume,
        effect=_resumed,
        refusals=("not_paused",),
        words=("sezon sürdürüldü", "season resumed"),
        notice=("season_resumed", "Sezon sürüyor.", "The season is resumed."),
        summary="Resume a paused season: the next Divan on its weekday 21:00 at least 24 hours "
        "away (compressed: one interval after the resume); later Divans move with it",
        takes_close=False,
        example_reason="server moved",
    ),
}
