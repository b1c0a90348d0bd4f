"""Resolve one Divan: load, fold, no-op if done, run the pure pipeline, append at the
version, retried on a conflict (shared.app.repository.seasons.retrying); a conflict with
later Divans' orders only appends the same run at the new head (ADR-128)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

import structlog

from shared.app.repository.seasons import (
    AuditCopyRefused,
    Loaded,
    SeasonNotFound,
    Seasons,
    retrying,
)
from shared.domain import codec, live
from shared.domain import events as ev
from shared.domain.lifecycle import keeps_divan, played_divan
from shared.domain.state import SeasonState
from shared.eventstore import ConcurrencyError, EventMetadata
from shared.faults import fault

# played_divan and keeps_divan are looked up through this module at each call: the seams the
# resolver's tests and benches (bench.divan_flood, bench.divan_work) wrap, named here so the
# type checker holds them to the names this module really has.
__all__ = ["REBASES", "SYSTEM", "Outcome", "keeps_divan", "played_divan", "resolve"]
log = structlog.get_logger(__name__)
Outcome = Literal[
    "resolved", "already_resolved", "not_requested", "not_due", "not_found", "audit_copy"
]
SYSTEM = EventMetadata(actor="system")
# Appends of one run at a newer head, past conflicts with later Divans' orders only (ADR-128),
# before the run is decided again: a bound on one attempt under an endless flood of orders.
REBASES = 64


async def resolve(
    seasons: Seasons,
    season_id: str,
    divan: int,
    retries: int = 5,
    *,
    now: datetime | None = None,
) -> Outcome:
    """Idempotent: a repeated or late message changes nothing (R-12.3, ARCHITECTURE.md).

    The computer turn, the lock with its inputs of record and the outcome are appended in one
    append at the version the season was loaded at; a conflict with later Divans' orders only
    appends the same events at the new head (ADR-128), any other reloads and decides again.
    A trial Divan is resolved once requested (R-1.2); a live one once its scheduled instant
    has passed at `now` (the worker's injected clock, R-1.3), locked at that instant however
    late; a trial Divan reads no clock.
    """

    async def attempt(_n: int) -> Outcome:
        try:
            loaded = await seasons.load(season_id)
        except SeasonNotFound:
            log.warning("resolver.season_not_found", season_id=season_id, divan=divan)
            return "not_found"
        held = _not_to_resolve(season_id, loaded.state, divan, now)
        if held is not None:
            return held
        state = loaded.state
        # the computer turn, the lock and the resolution of `divan` (live: held at `now`)
        events, after = played_divan(state, now=now if state.mode == "live" else None)
        fault("mid_resolve")
        meta = EventMetadata(
            actor="system", command_id=f"divan/{divan}", causation_id=f"divan/{divan}"
        )
        try:
            folded = (state, after) if after is not None else None
            at = await _append(seasons, season_id, loaded, divan, events, meta=meta, folded=folded)
        except AuditCopyRefused:  # an imported copy is never resolved (ADR-58)
            log.warning("resolver.audit_copy", season_id=season_id, divan=divan)
            return "audit_copy"
        fault("after_append")
        _forget_a_finished_trial(seasons, season_id, state.mode)
        log.info(
            "resolver.resolved",
            season_id=season_id,
            divan=divan,
            events=len(events),
            version=at + len(events),
            types=sorted({codec.event_type(e) for e in events}),
        )
        return "resolved"

    async def conflict(n: int) -> None:
        log.info("resolver.conflict", season_id=season_id, divan=divan, attempt=n)

    return await retrying(season_id, retries, attempt, on_conflict=conflict)


async def _append(
    seasons: Seasons,
    season_id: str,
    loaded: Loaded,
    divan: int,
    events: list[ev.Event],
    *,
    meta: EventMetadata,
    folded: tuple[SeasonState, SeasonState] | None = None,
) -> int:
    """Append Divan `divan`'s run, decided on `loaded`, and answer the version it went in at.

    ADR-128: when the append conflicts and everything appended meanwhile is orders for later
    Divans (lifecycle.keeps_divan: R-4.4, received after the lock), a run on the new head would
    be these same events, so they are appended there (at most REBASES times, each one a read
    of what came and an append). Anything else: ConcurrencyError, and the run is decided again.
    """
    rebases = 0
    while True:
        try:
            await seasons.append(
                season_id, loaded.version, f"divan/{divan}", events, meta, folded=folded
            )
        except ConcurrencyError:
            if rebases == REBASES:
                raise
            head, later = await seasons.since(season_id, loaded)
            if not later or not keeps_divan(later, divan):
                raise
            rebases += 1
            log.info(
                "resolver.rebased",
                season_id=season_id,
                divan=divan,
                version=head.version,
                orders=len(later),
                rebase=rebases,
            )
            loaded = head
            continue
        return loaded.version


def _not_to_resolve(
    season_id: str, state: SeasonState, divan: int, now: datetime | None
) -> Outcome | None:
    """Why Divan `divan` is not resolved now (logged), or None: resolve it."""
    if state.divan >= divan:
        log.info("resolver.already_resolved", season_id=season_id, divan=divan)
        return "already_resolved"
    if state.mode == "live":
        if now is None:
            raise ValueError("a live Divan is held by the clock: give the worker's `now`")
        if not live.divan_due(state, divan, now):
            log.info("resolver.not_due", season_id=season_id, divan=divan)
            return "not_due"
    # a request locks the next Divan only (decide.request_divan), so divan == state.divan + 1
    elif state.locked_divan != divan or divan != state.divan + 1 or state.phase != "running":
        log.info(
            "resolver.not_requested", season_id=season_id, divan=divan, locked=state.locked_divan
        )
        return "not_requested"
    return None


def _forget_a_finished_trial(seasons: Seasons, season_id: str, mode: str) -> None:
    """Issue 14: a trial season's Kurultay is held by its bey's vote in the command API
    (R-10.4), so once its Divans are over this process never loads it again; a fold kept for
    it stayed until CACHE_SEASONS were held (the soak's resolver grew by one a season so)."""
    after = seasons.peek(season_id)
    if mode == "trial" and (after is None or after.state.phase != "running"):
        seasons.forget(season_id)
