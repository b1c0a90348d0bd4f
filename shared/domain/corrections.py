"""Corrections (issue 13, ADR-53): a defect that verification found is fixed by ops with a
compensating event and a reason, never by rewriting the record. Pure.

A correction can do three things, each the smallest that undoes a wrong outcome:
- `province`: set a province's owner, units and sur (a battle decided wrongly);
- `gold`: set a bey's gold (production or a spend counted wrongly);
- `revoke_hain`: remove a bey's Hain badge (a betrayal counted that was none, R-6.5).

It is taken between Divans of a running season (or during the Kurultay's vote), never while a
Divan is locked and never after the Kurultay (its result is final: R-10.4). The event keeps
the Divan after which it applies; every later Divan is resolved from the corrected state, so
replay and verification re-run them as recorded, and both the original outcome and the
correction stay in the stream, the export and the verification's output.
"""

from __future__ import annotations

from shared.domain import commands as c
from shared.domain import events as ev
from shared.domain.calendar import is_aware
from shared.domain.map import MAX_UNITS
from shared.domain.state import Province, SeasonState

Result = list[ev.Event] | c.Rejection
_reject = c.reject


def decide_correction(state: SeasonState, cmd: c.ApplyCorrection) -> Result:  # noqa: PLR0911 — one guard per refusal, in order
    """ADR-53: the correction as an event, or why it cannot be applied now."""
    if state.cancelled:
        return _reject("season_cancelled")
    if state.phase not in ("running", "kurultay"):
        return _reject("wrong_phase.correction")
    if state.locked_divan is not None:
        return _reject("divan_locked.correction", divan=state.locked_divan)
    if (refused := c.reason_refused(cmd.reason)) is not None:
        return refused
    if cmd.at is None or not is_aware(cmd.at):
        return _reject("invalid_instant")
    why = _invalid(state, cmd.correction)
    if why is not None:
        return why
    return [
        ev.CorrectionApplied(
            correction=cmd.correction,
            reason=cmd.reason,
            divan=state.divan,
            at=cmd.at,
            refers_to=cmd.refers_to,
        )
    ]


def _invalid(state: SeasonState, fix: ev.Fix) -> c.Rejection | None:  # noqa: PLR0911 — one answer per refusal of each kind
    match fix:
        case ev.ProvinceFix():
            return _invalid_province(state, fix)
        case ev.GoldFix():
            bey = state.bey(fix.seat)
            if bey is None:
                return _reject("unknown_seat", seat=fix.seat)
            if fix.gold < 0:
                return _reject("invalid_correction.gold")
            return _reject("invalid_correction.no_change") if bey.gold == fix.gold else None
        case ev.HainRevoke():
            bey = state.bey(fix.seat)
            if bey is None:
                return _reject("unknown_seat", seat=fix.seat)
            if bey.hain_through is None or bey.hain_through <= state.divan:
                return _reject("invalid_correction.not_hain", seat=fix.seat)
            return None


def _invalid_province(state: SeasonState, fix: ev.ProvinceFix) -> c.Rejection | None:
    if not 1 <= fix.province <= len(state.provinces):
        return _reject("unknown_province", province=fix.province)
    if fix.owner is not None and state.bey(fix.owner) is None:
        return _reject("unknown_seat", seat=fix.owner)
    if not 0 <= fix.units <= MAX_UNITS or (fix.owner is not None and fix.units < 1):
        return _reject("invalid_correction.units", maximum=MAX_UNITS)
    if fix.owner is None and fix.sur:
        return _reject("invalid_correction.unowned_sur")
    if state.province(fix.province) == Province(fix.owner, fix.units, fix.sur):
        return _reject("invalid_correction.no_change")
    return None
