"""The command API under /v1: parse → command → service call → typed response.

Each handler only maps HTTP onto services/command/service.py: its path and body become the
service call's arguments, its authentication a dependency (services/command/auth.py: `context`
and `claim` for a bey, `ops_guard` for ops), its answer a typed Struct that Litestar encodes,
so the OpenAPI document below is the real contract. Refusals are shared.app.problems.Problem.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Annotated, Any, TypeVar, cast

from litestar import Request, Response, get, post
from litestar.datastructures import ResponseHeader
from litestar.openapi import ResponseSpec
from litestar.openapi.spec import Operation, Parameter, Reference, RequestBody
from litestar.params import HeaderParameter
from litestar.params import Parameter as QueryParameter
from litestar.response import Stream
from msgspec import Struct

from services.command import (
    bey_commands,
    ops_tools,
    season_commands,
    season_reads,
    token_rotation,
)
from services.command.auth import ops_guard, staff_guard
from services.command.bey_commands import (
    Offer,
    OfferAnswer,
    Orders,
    Spending,
    Vote,
    Withdrawal,
)
from services.command.examples import EXAMPLES
from services.command.schemas import (
    Accepted,
    AdminAction,
    AdminDoneOut,
    AdminIn,
    AnswerIn,
    AnswerRecordedOut,
    CorrectionIn,
    CorrectionOut,
    CreatedOut,
    CreateSeasonIn,
    DivanIn,
    DivanRequestedOut,
    ExportEvent,
    ExportHeader,
    ForkedOut,
    ForkIn,
    JoinedOut,
    JoinIn,
    LiveCreatedOut,
    OfferIn,
    OpsReadsOut,
    OrdersAcceptedOut,
    OrdersIn,
    ReasonIn,
    SeasonStatus,
    SpendIn,
    TokenOut,
    VoteIn,
)
from services.command.service import Context, Outcome, Services
from services.command.unit_of_work import execute
from shared.app import auth
from shared.app.auth import BeyClaim
from shared.app.bounds import BOUNDS, JSON_SAFE_INTEGER, Plate, ReadDivanPath, SeatPath
from shared.app.divan_tools import ExplainOut, WhatIfIn, WhatIfOut
from shared.app.openapi import (
    APPEND,
    BEARER,
    BEY_AUTH,
    BODY,
    EVERY,
    KEY,
    KEY_REQUIRED,
    OPS_READ,
    OPTIONAL_BEARER,
    PATH,
    RATE,
    SEASON_VERSION,
    STAFF_AUTH,
    STORE,
    answers,
    with_examples,
)
from shared.app.ops_audit import record_ops_read
from shared.app.private_view import PrivateView
from shared.app.problems import Problem
from shared.eventstore.audit import MAX_LIST

Key = Annotated[
    str | None,
    HeaderParameter(
        name="Idempotency-Key",
        description="Retry-safe key (1 … 200 characters; empty is 400 bad_idempotency_key)",
        min_length=1,
        max_length=200,
    ),
]
# What each command can answer besides its 2xx: the edge's groups it passes through
# (shared.app.openapi) and the domain's refusals of the command it decides
# (shared/domain/decide.py), in the served document and docs/api.md ("Answers per operation").
# Codes the domain has but the edge's bounds keep out (unknown_province, unknown_seat: D-27)
# are not listed. A bey command: its token, the season, its Idempotency-Key, its append.
COMMAND = (EVERY, RATE, BEY_AUTH, STORE, KEY, APPEND, "season_cancelled")  # a cancelled live season
ORDERS: tuple[str, ...] = ("wrong_phase", "wrong_divan", "duplicate_province", "not_your_province")
ORDERS += ("missing_target", "not_a_neighbour", "bad_units")
SPEND: tuple[str, ...] = (
    "wrong_phase",
    "divan_locked",
    "not_your_province",
    "not_purchasable",
    "sur_exists",
)
SPEND += ("over_cap", "not_enough_gold")
OFFER = ("wrong_phase", "bad_partner", "perde_3", "offer_exists", "allied_already")
OFFER_VERB = ("wrong_phase", "no_offer", "divan_locked")  # withdraw, answer (D-25)
VOTE = ("wrong_phase", "already_voted", "vote_self")
DIVAN = ("not_allowed_in_mode", "wrong_phase", "divan_locked", "wrong_divan")
# Live seasons (issue 12): creation's own refusals (a seed or a compressed calendar asked for
# by someone not ops, a calendar for a trial season, the domain's calendar checks) …
CREATE_LIVE: tuple[str, ...] = ("not_allowed_in_mode", "forbidden", "registration_close_required")
CREATE_LIVE += ("registration_too_soon", "invalid_instant", "bad_interval")
JOIN: tuple[str, ...] = ("registration_closed", "season_full", "memleket_taken", "season_cancelled")
JOIN += ("not_allowed_in_mode",)
# … and each season-admin act's (shared/domain/admin.py, D-29 … D-31)
ADMIN_COMMON = ("not_allowed_in_mode", "season_cancelled", "reason_required")
ADMIN: dict[str, tuple[str, ...]] = {
    "postpone": (
        *ADMIN_COMMON,
        "registration_closed",
        "registration_close_required",
        "invalid_instant",
        "not_later",
        "registration_too_soon",
    ),
    "cancel": (*ADMIN_COMMON, "wrong_phase"),
    "pause": (*ADMIN_COMMON, "wrong_phase", "already_paused", "divan_locked"),
    "resume": (*ADMIN_COMMON, "not_paused"),
}
# ADR-53: a correction's refusals (shared/domain/corrections.py)
CORRECTION = (
    "wrong_phase",
    "divan_locked",
    "season_cancelled",
    "reason_required",
    "invalid_correction",
)
T = TypeVar("T", bound=Struct)


def _answer(outcome: Outcome[T]) -> Response[T]:
    """The command's answer; one that names the season version after it says it in
    X-Season-Version too, as the reads do (issue 20: read your writes)."""
    version = getattr(outcome.body, "version", None)
    headers = {"X-Season-Version": str(version)} if isinstance(version, int) else None
    return Response(outcome.body, status_code=outcome.status, headers=headers)


@post(
    "/seasons",
    status_code=201,
    summary="Create a trial season and join it, or a live season",
    responses=answers(EVERY, RATE, BODY, "store_busy", *CREATE_LIVE),
    response_headers=[
        ResponseHeader(
            name="Location", description="/v1/seasons/{season_id}", documentation_only=True
        )
    ],
)
async def create_season(
    services: Services, data: CreateSeasonIn, request: Request[Any, Any, Any]
) -> Response[CreatedOut | LiveCreatedOut]:
    """R-1.2, R-1.4, R-1.5: a trial season, one human bey and 18 computer beys (CreatedOut); or,
    with `"mode": "live"`, a live season (LiveCreatedOut: the season-admin token, shown once,
    and the provisional calendar). Tokens are shown once. The answer's Location names the new
    season's status."""
    created: CreatedOut | LiveCreatedOut
    if data.mode == "live":
        created = await _create_live(services, data, request)
    else:
        if data.memleket is None:
            raise Problem(
                422, "invalid_body.memleket_required", field="$.memleket", minimum=1, maximum=81
            )
        if data.registration_closes_at is not None or data.divan_interval_seconds is not None:
            raise Problem(403, "not_allowed_in_mode.trial_calendar")
        seed = int(data.seed) if data.seed is not None else None
        created = await season_commands.create_season(services, data.memleket, seed)
    return Response(
        created, status_code=201, headers={"Location": f"/v1/seasons/{created.season_id}"}
    )


@get(
    "/seasons/{season_id:str}",
    summary="Season status",
    responses=answers(EVERY, RATE, STORE),
    response_headers=[SEASON_VERSION],
)
async def season_status(services: Services, season_id: str) -> Response[SeasonStatus]:
    """The season as the store holds it now; its `version` (and X-Season-Version) is the one
    a read's `?min_version=` waits for, e.g. once it says Divan n is resolved."""
    status = await season_reads.season_status(services, season_id)
    return Response(status, headers={"X-Season-Version": str(status.version)})


@get(
    "/seasons/{season_id:str}/me",
    summary="A bey's own view",
    responses=answers(EVERY, RATE, BEY_AUTH, STORE),
    security=BEARER,
)
async def me(services: Services, claim: BeyClaim) -> PrivateView:
    return await season_reads.bey_view(services, claim)


@post(
    "/seasons/{season_id:str}/orders",
    status_code=200,
    summary="Give orders for a Divan",
    responses=answers(*COMMAND, BODY, ORDERS),
    security=BEARER,
    response_headers=[SEASON_VERSION],
)
async def submit_orders(
    services: Services, context: Context, data: OrdersIn, idempotency_key: Key = None
) -> Response[OrdersAcceptedOut]:
    """R-4.1: the set replaces the bey's earlier set for that Divan; the answer names the Divan."""
    return _answer(
        await execute(services, context, Orders(data.divan, tuple(o.order() for o in data.orders)))
    )


@dataclass
class _KeyRequired(Operation):
    """The OpenAPI operation of a command that refuses a request without an Idempotency-Key
    (400 idempotency_key_required, after the token check): the document says it is required.
    The parameter stays optional for Litestar, so the token is still checked first."""

    def __post_init__(self) -> None:
        self.parameters = [
            replace(p, required=True)
            if isinstance(p, Parameter) and p.name.lower() == "idempotency-key"
            else p
            for p in self.parameters or []
        ] or None


@post(
    "/seasons/{season_id:str}/spend",
    status_code=200,
    summary="Spend gold (R-7.9)",
    responses=answers(*COMMAND, KEY_REQUIRED, BODY, SPEND),
    security=BEARER,
    response_headers=[SEASON_VERSION],
    operation_class=_KeyRequired,
)
async def spend(
    services: Services, context: Context, data: SpendIn, idempotency_key: Key = None
) -> Response[Accepted]:
    """Immediate; the Idempotency-Key header is required."""
    return _answer(await execute(services, context, Spending(data.kind, data.province)))


@post(
    "/seasons/{season_id:str}/offers",
    status_code=200,
    summary="Offer a pact or alliance (R-6.1)",
    responses=answers(*COMMAND, KEY_REQUIRED, BODY, OFFER),
    security=BEARER,
    response_headers=[SEASON_VERSION],
    operation_class=_KeyRequired,
)
async def offer(
    services: Services, context: Context, data: OfferIn, idempotency_key: Key = None
) -> Response[Accepted]:
    """The Idempotency-Key header is required."""
    return _answer(await execute(services, context, Offer(data.to, data.kind)))


@post(
    "/seasons/{season_id:str}/offers/{to:int}/withdraw",
    status_code=200,
    summary="Withdraw an offer",
    responses=answers(*COMMAND, PATH, OFFER_VERB),
    security=BEARER,
    response_headers=[SEASON_VERSION],
)
async def withdraw(
    services: Services, context: Context, to: SeatPath, idempotency_key: Key = None
) -> Response[Accepted]:
    return _answer(await execute(services, context, Withdrawal(to)))


@post(
    "/seasons/{season_id:str}/offers/{frm:int}/answer",
    status_code=200,
    summary="Answer an offer",
    responses=answers(*COMMAND, PATH, BODY, OFFER_VERB),
    security=BEARER,
    response_headers=[SEASON_VERSION],
)
async def answer_offer(
    services: Services,
    context: Context,
    frm: SeatPath,
    data: AnswerIn,
    idempotency_key: Key = None,
) -> Response[AnswerRecordedOut]:
    """R-6.1: `answer` is the answer recorded (accept or reject), which takes effect at the
    Divan's step 2; `status` "accepted" says the command was recorded (ADR-71)."""
    return _answer(await execute(services, context, OfferAnswer(frm, data.answer)))


@post(
    "/seasons/{season_id:str}/kurultay/vote",
    status_code=200,
    summary="Vote at the Kurultay (R-10.4)",
    responses=answers(*COMMAND, BODY, VOTE),
    security=BEARER,
    response_headers=[SEASON_VERSION],
)
async def vote(
    services: Services, context: Context, data: VoteIn, idempotency_key: Key = None
) -> Response[Accepted]:
    return _answer(await execute(services, context, Vote(data.candidate)))


@dataclass
class _BodyRequired(Operation):
    """The OpenAPI operation of a route whose body parameter is optional only so that the
    route itself answers a missing body (422 invalid_body): the document says it is required
    and never null."""

    def __post_init__(self) -> None:
        body = self.request_body
        if isinstance(body, RequestBody):
            for media in body.content.values():
                one_of = getattr(media.schema, "one_of", None)
                if one_of:
                    refs = [s for s in one_of if isinstance(s, Reference)]
                    media.schema = refs[0] if len(refs) == 1 else media.schema
            body.required = True


@post(
    "/seasons/{season_id:str}/divans",
    status_code=202,
    summary="Trial: resolve the next Divan",
    responses={
        **answers(*COMMAND, BODY, DIVAN),
        200: ResponseSpec(
            data_container=DivanRequestedOut,
            description="That Divan is resolved already (a retried request): nothing changes",
            generate_examples=False,
        ),
    },
    security=BEARER,
    operation_class=_BodyRequired,
)
async def request_divan(
    services: Services, context: Context, data: DivanIn | None = None, idempotency_key: Key = None
) -> Response[DivanRequestedOut]:
    """R-1.2: names the Divan asked for; 202 at once while it resolves, 200 once resolved.

    A retry never advances the season: the Divan already requested answers the same 202 and
    appends nothing. Every 202 enqueues the resolution (the resolver is idempotent; enqueueing
    again also recovers a message the broker lost); if the broker is unreachable the request
    stands and the scheduler enqueues it (`seksenbir scheduler`). Poll the status.
    """
    if data is None:
        raise Problem(422, "invalid_body.divan")
    return _answer(await bey_commands.request_divan(services, context, data.divan))


@post(
    "/seasons/{season_id:str}/token",
    status_code=200,
    summary="Rotate one's own token",
    responses=answers(
        EVERY, RATE, BEY_AUTH, STORE, APPEND
    ),  # no Idempotency-Key: a new secret each time
    security=BEARER,
)
async def rotate_token(services: Services, claim: BeyClaim) -> TokenOut:
    """The old token stops working at once; the new one is shown only in this answer."""
    return await token_rotation.rotate_token(services, claim)


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
EXPORT_LINE = cast("type[Any]", ExportHeader | ExportEvent)


@get(
    "/ops/seasons/{season_id:str}/export",
    summary="Ops: the season's export, seksenbir-export/2 as NDJSON (docs/export.md)",
    responses={
        **answers(EVERY, RATE, STAFF_AUTH, STORE, OPS_READ, "chain_broken"),
        200: ResponseSpec(
            data_container=EXPORT_LINE,
            media_type="application/x-ndjson",
            description="one JSON object per line: the ExportHeader, then an ExportEvent per "
            "event in version order (docs/export.md)",
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
            "event in version order; during a season an auditor's leaves out the data of the "
            "events R-14 hides, keeping each one's data_digest (docs/export.md)",
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
)
async def apply_correction(services: Services, season_id: str, data: CorrectionIn) -> CorrectionOut:
    """Set a province (owner, units, sur), a bey's gold, or remove a Hain badge, between Divans
    of a running season or during the Kurultay's vote: a `correction_applied.v1` event with
    the reason, after the season's last Divan; the record before it is never changed. A
    repeat of the same correction changes nothing and is refused (`invalid_correction`)."""
    return await ops_tools.apply_correction(services, season_id, data)


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


# --- live seasons: creating, joining, season admin (issue 12) --------------------------------


async def _create_live(
    services: Services, data: CreateSeasonIn, request: Request[Any, Any, Any]
) -> LiveCreatedOut:
    """A live season: no seed from the caller (R-1.5); a compressed calendar for ops only."""
    if data.seed is not None:
        raise Problem(403, "not_allowed_in_mode.live_seed")
    if data.divan_interval_seconds is not None:
        role = auth.staff_role(request, services.ops, services.auditors)
        if role != "ops":
            raise Problem(403, "forbidden.compressed_calendar")
    return await season_commands.create_live_season(
        services, data.memleket, data.registration_closes_at, data.divan_interval_seconds
    )


@post(
    "/seasons/{season_id:str}/join",
    status_code=201,
    summary="Join a live season (R-1.4)",
    responses=answers(EVERY, RATE, BODY, STORE, APPEND, *JOIN),
)
async def join_season(services: Services, season_id: str, data: JoinIn) -> JoinedOut:
    """First come, first served: the seat, the bey's token (shown once) and the calendar.
    409 `memleket_taken` (with `free_neighbours`), `season_full`, `registration_closed`."""
    return await season_commands.join_season(services, season_id, data.memleket)


def _admin_route(act: AdminAction, summary: str) -> Any:
    """POST /v1/seasons/{id}/admin/<act>: one handler per act, so OpenAPI names each path."""

    async def postpone(
        services: Services, season_id: str, data: AdminIn, request: Request[Any, Any, Any]
    ) -> AdminDoneOut:
        return await season_commands.season_admin(
            services,
            season_id,
            token=auth.bearer(request),
            act=act,
            reason=data.reason,
            registration_closes_at=data.registration_closes_at,
        )

    async def other(
        services: Services, season_id: str, data: ReasonIn, request: Request[Any, Any, Any]
    ) -> AdminDoneOut:
        return await season_commands.season_admin(
            services,
            season_id,
            token=auth.bearer(request),
            act=act,
            reason=data.reason,
            registration_closes_at=None,
        )

    handler = postpone if act == "postpone" else other  # only a postponement takes a close

    handler.__doc__ = (
        f"{summary} (D-29 … D-31). Authorised by the season-admin token or the ops token; the "
        "act is recorded with its reason and the server instant and shown in the status."
    )
    handler.__name__ = handler.__qualname__ = f"season_admin_{act}"
    return post(
        f"/seasons/{{season_id:str}}/admin/{act}",
        status_code=200,
        summary=f"Season admin: {act}",
        responses=answers(EVERY, RATE, STAFF_AUTH, BODY, STORE, APPEND, *ADMIN[act]),
        security=BEARER,
        operation_id=f"SeasonAdmin{act.capitalize()}",
    )(handler)


ADMIN_ROUTES = [
    _admin_route(
        "postpone",
        "Postpone the registration close to `registration_closes_at` (only in registration)",
    ),
    _admin_route("cancel", "Cancel a live season before Divan 1; every command is refused then"),
    _admin_route("pause", "Pause a running season: no Divan locks or resolves while paused"),
    _admin_route(
        "resume",
        "Resume a paused season: the next Divan on its weekday 21:00 at least 24 hours away "
        "(compressed: one interval after the resume); later Divans move with it",
    ),
]


ROUTES = with_examples(
    [
        create_season,
        join_season,
        *ADMIN_ROUTES,
        season_status,
        me,
        submit_orders,
        spend,
        offer,
        withdraw,
        answer_offer,
        vote,
        request_divan,
        rotate_token,
        reissue_token,
        export_season,
        export_audited,
        explain_divan,
        what_if,
        fork_season,
        apply_correction,
        ops_reads,
    ],
    EXAMPLES,
)
