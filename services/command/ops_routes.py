"""The command API's ops routes: token reissue, export, explain, what-if, fork, correction and
the ops-read record (ADR-53); guarded for ops (or staff where said)."""

from __future__ import annotations

from typing import Annotated, Any, cast

from litestar import Request, Response, get, post
from litestar.datastructures import ResponseHeader
from litestar.openapi import ResponseSpec
from litestar.params import Parameter as QueryParameter
from litestar.response import Stream

from services.command import (
    name_reset,
    ops_tools,
    token_rotation,
)
from services.command.command_refusals import (
    CORRECTION,
    DESCRIPTION_RESET,
    NAME_RESET,
)
from services.command.export_schemas import ExportChatEvent, ExportEvent, ExportHeader
from services.command.request_context import ops_guard, staff_guard
from services.command.route_parts import versioned
from services.command.schemas import (
    CorrectionIn,
    CorrectionOut,
    ForkedOut,
    ForkIn,
    OpsReadsOut,
    ReasonIn,
    TokenOut,
)
from services.command.service import Services
from shared.app.access import request_auth as auth
from shared.app.access.ops_audit import record_ops_read
from shared.app.http.bounds import BOUNDS, JSON_SAFE_INTEGER, Plate, ReadDivanPath, SeatPath
from shared.app.http.openapi import (
    APPEND,
    BEARER,
    BODY,
    EVERY,
    OPS_READ,
    OPTIONAL_BEARER,
    PATH,
    RATE,
    SEASON_VERSION,
    STAFF_AUTH,
    STORE,
    answers,
)
from shared.app.ops.divan_tools import ExplainOut, WhatIfIn, WhatIfOut
from shared.eventstore.ops_read_log import MAX_LIST


@post(
    "/ops/seasons/{season_id:str}/beys/{seat:int}/token",
    status_code=200,
    summary="Ops: reissue a bey's token",
    responses=answers(EVERY, RATE, STAFF_AUTH, STORE, APPEND, PATH),
    security=BEARER,
    guards=[ops_guard],
)
async def reissue_token(services: Services, season_id: str, seat: SeatPath) -> TokenOut:
    """Ops reissue a lost token; the reissue is an audited event."""
    return await token_rotation.reissue_token(services, season_id, seat)


# An export line is either; typed `type[Any]` as ResponseSpec asks (with pydantic installed,
# a dev tool's dependency, mypy reads its union of container types strictly)
EXPORT_LINE = cast("type[Any]", ExportHeader | ExportEvent | ExportChatEvent)


@get(
    "/ops/seasons/{season_id:str}/export",
    summary="Ops: the season's export, seksenbir-export/2 as NDJSON (docs/export.md)",
    responses={
        **answers(EVERY, RATE, STAFF_AUTH, STORE, OPS_READ, "chain_broken"),
        200: ResponseSpec(
            data_container=EXPORT_LINE,
            media_type="application/x-ndjson",
            description="one JSON object per line: the ExportHeader, then an ExportEvent per "
            "event in version order, then an ExportChatEvent per chat event (docs/export.md)",
            generate_examples=False,
        ),
    },
    security=BEARER,
    guards=[ops_guard],
    media_type="application/x-ndjson",
)
async def export_season(
    services: Services, season_id: str, request: Request[Any, Any, Any]
) -> Stream:
    """Every event with its hash-chain fields, the header line first, streamed line by line:
    the same bytes as `seksenbir export`. Holds the seed and all orders (R-14): ops only, and
    recorded in the ops-read trail before the first line (ADR-53)."""
    lines = await ops_tools.export_season(services, season_id)
    await record_ops_read(services.seasons.store.ops_reads, request, season_id, "export")
    return Stream(lines, media_type="application/x-ndjson")


@get(
    "/seasons/{season_id:str}/export",
    summary="The season's export for auditors (redacted under R-14 until the Kurultay), ops, "
    "and after the Kurultay everyone (docs/export.md)",
    responses={
        **answers(
            EVERY, RATE, STAFF_AUTH, STORE, OPS_READ, "chain_broken", "redaction_unavailable"
        ),
        200: ResponseSpec(
            data_container=EXPORT_LINE,
            media_type="application/x-ndjson",
            description="one JSON object per line: the ExportHeader, then an ExportEvent per "
            "event in version order, then an ExportChatEvent per chat event; during a season "
            "an auditor's leaves out the data of the events R-14 hides, keeping each one's "
            "data_digest, and everyone's but ops' leaves out private and group chat (R-15.3, "
            "docs/export.md)",
            generate_examples=False,
        ),
    },
    security=BEARER,
    media_type="application/x-ndjson",
)
async def export_audited(
    services: Services, season_id: str, request: Request[Any, Any, Any]
) -> Stream:
    """R-14: during a season ops get the full export and auditors a redacted one (its chain
    still proven by the data digests, ADR-52); after the Kurultay anyone gets the full one.
    A bey's token is 403 during the season, no token 401. Ops' full export of a season not
    over holds the seed and every order: recorded in the ops-read trail before the first line,
    as on /ops/seasons/{id}/export (ADR-53)."""
    secret: list[bool] = []

    def role(over: bool) -> str:
        if over and auth.staff_role(request, services.ops, services.auditors) is None:
            return "anyone"
        who = auth.require_staff(
            request, services.ops, services.auditors, missing="missing_token.staff"
        )
        secret.append(who == "ops" and not over)
        return who

    lines = await ops_tools.export_season(services, season_id, role)
    if any(secret):
        await record_ops_read(services.seasons.store.ops_reads, request, season_id, "export")
    return Stream(lines, media_type="application/x-ndjson")


_PLATES_PARAMETER = {
    "type": "array",
    "items": {"type": "integer", "minimum": BOUNDS["plate"].low, "maximum": BOUNDS["plate"].high},
}


@get(
    "/ops/seasons/{season_id:str}/divans/{divan:int}/explain",
    summary="Ops: one Divan verified and explained battle by battle (R-5.8, R-12.3)",
    responses=answers(
        EVERY, RATE, STAFF_AUTH, STORE, PATH, OPS_READ, "divan_not_found", "chain_broken"
    ),
    security=BEARER,
    guards=[ops_guard],
)
async def explain_divan(
    services: Services,
    season_id: str,
    divan: ReadDivanPath,
    request: Request[Any, Any, Any],
    province: Annotated[
        list[Plate] | None,
        QueryParameter(
            description="only the battles for these plates (repeatable), each 1 … 81 (D-27)",
            # Litestar drops the items' bounds of a list query parameter: state them
            schema_extra={"oneOf": [_PLATES_PARAMETER, {"type": "null"}]},
        ),
    ] = None,
) -> ExplainOut:
    """The re-run of the Divan compared with the record, and for every battle: each advance,
    each support with how R-5.3 classified it and why one did not count, the defence bonuses,
    each fate die with its key (Divan, purpose, key; never the seed), the rules and the
    outcome. `?province=P` (repeatable) narrows it to those battles. Ops only: it shows orders,
    so the read is recorded in the ops-read trail before it is answered (R-14, ADR-53)."""
    out = await ops_tools.explain_divan(services, season_id, divan, province or ())
    await record_ops_read(
        services.seasons.store.ops_reads, request, season_id, f"divans/{divan}/explain"
    )
    return out


@post(
    "/ops/seasons/{season_id:str}/divans/{divan:int}/what-if",
    status_code=200,
    summary="Ops: re-run one Divan with orders changed or dice pinned; writes nothing",
    responses=answers(
        EVERY, STAFF_AUTH, BODY, STORE, PATH, OPS_READ, "divan_not_found", "chain_broken"
    ),
    security=BEARER,
    guards=[ops_guard],
)
async def what_if(
    services: Services,
    season_id: str,
    divan: ReadDivanPath,
    data: WhatIfIn,
    request: Request[Any, Any, Any],
) -> WhatIfOut:
    """The Divan re-run from the state it was resolved from with the recorded orders changed,
    added or removed (`kind` "remove") and fate dice pinned; the answer is the difference from
    the record: battles, provinces, beys, treaties and report lines. Nothing is written but
    the ops-read record (R-14, ADR-53: it shows what the recorded orders did)."""
    out = await ops_tools.what_if(services, season_id, divan, data)
    await record_ops_read(
        services.seasons.store.ops_reads, request, season_id, f"divans/{divan}/what-if"
    )
    return out


@post(
    "/seasons/{season_id:str}/fork",
    status_code=201,
    summary="Fork a season: a new trial season from the state after one of its Divans",
    # unknown_seat is the domain's too, unreachable here (D-27: every seat 1 … 19 has a bey)
    responses=answers(EVERY, BODY, STORE, OPS_READ, "forbidden", "divan_not_found", "chain_broken"),
    response_headers=[
        ResponseHeader(
            name="Location", description="/v1/seasons/{season_id}", documentation_only=True
        )
    ],
    security=OPTIONAL_BEARER,
)
async def fork_season(
    services: Services, season_id: str, data: ForkIn, request: Request[Any, Any, Any]
) -> Response[ForkedOut]:
    """Issue 13, D-32: a trial season that starts from the source's state after Divan
    `divan` (0: before Divan 1), the human in `seat`, every other bey a computer bey. Anyone may
    fork a season that is over; ops (their token) any season at any time (403 otherwise). The
    fork records where it came from (source, Divan, chain head), draws a seed of its own, never
    counts on the boards, and answers like a trial create: the token is shown once."""
    role = auth.staff_role(request, services.ops, services.auditors)

    async def record() -> None:  # ops forking a running season read its secrets (ADR-53)
        what = f"fork/{data.divan}"
        await record_ops_read(services.seasons.store.ops_reads, request, season_id, what)

    out = await ops_tools.fork_season(
        services, season_id, data.divan, data.seat, role, record=record
    )
    return Response(out, status_code=201, headers={"Location": f"/v1/seasons/{out.season_id}"})


@post(
    "/ops/seasons/{season_id:str}/corrections",
    status_code=201,
    summary="Ops: correct a defect with a compensating event and a reason (ADR-53)",
    responses=answers(EVERY, STAFF_AUTH, BODY, STORE, APPEND, *CORRECTION),
    security=BEARER,
    guards=[ops_guard],
    response_headers=[SEASON_VERSION],
)
async def apply_correction(
    services: Services, season_id: str, data: CorrectionIn
) -> Response[CorrectionOut]:
    """Set a province (owner, units, sur), a bey's gold, or remove a Hain badge, between Divans
    of a running season or during the Kurultay's vote: a `correction_applied.v1` event with
    the reason, after the season's last Divan; the record before it is never changed. A
    repeat of the same correction changes nothing and is refused (`invalid_correction`)."""
    return versioned(await ops_tools.apply_correction(services, season_id, data), 201)


@post(
    "/ops/seasons/{season_id:str}/beys/{seat:int}/name/reset",
    status_code=200,
    summary="Ops: reset a bey's name, with a reason (R-15.2)",
    responses=answers(EVERY, STAFF_AUTH, BODY, STORE, APPEND, PATH, *NAME_RESET),
    security=BEARER,
    guards=[ops_guard],
    response_headers=[SEASON_VERSION],
)
async def reset_name(
    services: Services, season_id: str, seat: SeatPath, data: ReasonIn
) -> Response[name_reset.NameResetOut]:
    """R-15.2, R-15.5: an insulting name reset by ops: a `bey_named.v1` event with `by` ops,
    the reason and the instant; the bey is shown by its seat again. 422 `invalid_name` for a
    seat without a chosen name, `reason_required` for a blank reason."""
    return versioned(await name_reset.reset_name(services, season_id, seat, data.reason))


@post(
    "/ops/seasons/{season_id:str}/description/reset",
    status_code=200,
    summary="Ops: reset a live season's lobby description, with a reason (R-15.2)",
    responses=answers(EVERY, STAFF_AUTH, BODY, STORE, APPEND, *DESCRIPTION_RESET),
    security=BEARER,
    guards=[ops_guard],
    response_headers=[SEASON_VERSION],
)
async def reset_description(
    services: Services, season_id: str, data: ReasonIn
) -> Response[name_reset.DescriptionResetOut]:
    """R-15.2, ADR-105: an insulting lobby description reset by ops, as a name is: a
    `season_listed.v1` event with `by` ops, the reason and the instant; the season stays listed
    or not and the lobby shows no description. 409 `no_description` for a season without one,
    403 `not_allowed_in_mode` for a trial season, 422 `reason_required` for a blank reason."""
    return versioned(await name_reset.reset_description(services, season_id, data.reason))


@get(
    "/seasons/{season_id:str}/audit/ops-reads",
    summary="Auditor or ops: every recorded ops read of this season's secrets (ADR-53)",
    responses=answers(EVERY, RATE, STAFF_AUTH, STORE, "invalid_parameter"),  # after, limit
    security=BEARER,
    guards=[staff_guard],
)
async def ops_reads(
    services: Services,
    season_id: str,
    after: Annotated[
        int, QueryParameter(ge=0, le=JSON_SAFE_INTEGER, description="the last id seen")
    ] = 0,
    limit: Annotated[int, QueryParameter(ge=1, le=MAX_LIST, description="at most this many")] = 100,
) -> OpsReadsOut:
    """R-14: what ops read of the season's secrets, when and with which token (its fingerprint),
    from the store's own trail: never the season's stream (its version and ETag stay put)."""
    return await ops_tools.ops_reads(services, season_id, after, limit)


# in the order the OpenAPI document lists them (services/command/routes.py)
OPS_ROUTES: list[Any] = [
    reissue_token,
    export_season,
    export_audited,
    explain_divan,
    what_if,
    fork_season,
    apply_correction,
    reset_name,
    reset_description,
    ops_reads,
]
