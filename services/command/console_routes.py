"""The command API's routes the ops console adds (issue 26, ADR-104): a correction's dry run
and `verify` of a season; ops only, each recorded in the ops-read trail before it is
answered (a dry run shows a bey's gold, verify every correction's: R-14, ADR-53)."""

from __future__ import annotations

from typing import Any

from litestar import Request, Response, get, post

from services.command import console_tools
from services.command.command_refusals import CORRECTION
from services.command.console_checks import CorrectionPreviewOut, VerifyOut
from services.command.request_context import ops_guard
from services.command.route_parts import versioned
from services.command.schemas import CorrectionIn
from services.command.service import Services
from shared.app.access.ops_audit import record_ops_read
from shared.app.http.openapi import (
    BEARER,
    BODY,
    EVERY,
    OPS_READ,
    RATE,
    SEASON_VERSION,
    STAFF_AUTH,
    STORE,
    answers,
)


@post(
    "/ops/seasons/{season_id:str}/corrections/dry-run",
    status_code=200,
    summary="Ops: a correction decided and not applied: what it would change (writes nothing)",
    responses=answers(EVERY, STAFF_AUTH, BODY, STORE, OPS_READ, *CORRECTION),
    security=BEARER,
    guards=[ops_guard],
    response_headers=[SEASON_VERSION],
)
async def correction_dry_run(
    services: Services, season_id: str, data: CorrectionIn, request: Request[Any, Any, Any]
) -> Response[CorrectionPreviewOut]:
    """The body of `POST …/corrections`, decided the same way on the season as it stands, with
    the same refusals; the answer is every province and bey it would change, before and after.
    Nothing is appended: only the ops-read record (`corrections/dry-run`)."""
    out = await console_tools.correction_dry_run(services, season_id, data)
    await record_ops_read(
        services.seasons.store.ops_reads, request, season_id, "corrections/dry-run"
    )
    return versioned(out)


@get(
    "/ops/seasons/{season_id:str}/verify",
    summary="Ops: the stored season verified, as `seksenbir verify SEASON` (R-12.3)",
    responses=answers(EVERY, RATE, STAFF_AUTH, STORE, OPS_READ),
    security=BEARER,
    guards=[ops_guard],
)
async def verify_season(
    services: Services, season_id: str, request: Request[Any, Any, Any]
) -> VerifyOut:
    """The hash chain against the stored head, every Divan re-run from its lock and the seed,
    the sealed orders, the seed commitment, the corrections with their gold amounts; `ok`
    when nothing failed. Recorded in the ops-read trail (`verify`) before it is answered, as
    the CLI's verify on the database records it."""
    out = await console_tools.verify_season(services, season_id)
    await record_ops_read(services.seasons.store.ops_reads, request, season_id, "verify")
    return out


CONSOLE_ROUTES: list[Any] = [correction_dry_run, verify_season]
