"""The ops console's own tools on a season (issue 26, ADR-104): a correction's dry run and
`verify` over HTTP. The routes guard them (ops); each reads, never writes the season."""

from __future__ import annotations

import structlog

from services.command.console_checks import (
    CorrectionPreviewOut,
    VerifyOut,
    correction_preview,
    verified,
)
from services.command.schemas import CorrectionIn
from services.command.service import Services, decided, load
from shared.app.http.problems import Problem, store_busy
from shared.app.ops.export_chat import stored_section
from shared.domain import commands as c
from shared.domain import events as ev
from shared.eventstore import StoreBusyError

log = structlog.get_logger(__name__)


async def correction_dry_run(
    svc: Services, season_id: str, data: CorrectionIn
) -> CorrectionPreviewOut:
    """ADR-53's correction decided exactly as `POST …/corrections` decides it (the same
    refusals: 409 `wrong_phase`, `divan_locked`, 422 `invalid_correction`, `reason_required`)
    on the season as it stands at the server instant, and not appended: what it would change."""
    loaded, at = await load(svc, season_id), svc.clock()
    if data.refers_to is not None and data.refers_to > loaded.version:
        raise Problem.of(
            c.reject(
                "invalid_correction.refers_to", refers_to=data.refers_to, version=loaded.version
            )
        )
    cmd = c.ApplyCorrection(
        correction=data.correction.fix(), reason=data.reason, at=at, refers_to=data.refers_to
    )
    events: list[ev.Event] = []
    after = decided(loaded.state, events, cmd)
    done = events[0]
    assert isinstance(done, ev.CorrectionApplied)
    log.info("ops.read", season=season_id, what="correction_dry_run")
    return correction_preview(
        loaded.state,
        after,
        reason=done.reason,
        divan=done.divan,
        refers_to=done.refers_to,
        version=loaded.version,
    )


async def verify_season(svc: Services, season_id: str) -> VerifyOut:
    """The stored season verified (`seksenbir verify SEASON`), its chat too (ADR-106); 404 for
    no season."""
    store = svc.seasons.store
    try:
        records, stored, chain = await store.read_with_head(season_id)
        if not records:
            raise Problem(404, "season_not_found")
        copy = await store.audit_copy(season_id)
        chat = stored_section(await store.chat.read(season_id), audit_copy=copy)
    except StoreBusyError:
        raise store_busy() from None
    out = verified(season_id, records, stored, chain, chat)
    log.info("ops.read", season=season_id, what="verify", ok=out.ok)
    return out
