"""The command API under /v1: parse → command → service call → typed response.

Each handler only maps HTTP onto services/command/service.py: its path and body become the
service call's arguments, its authentication a dependency (services/command/auth.py: `context`
and `claim` for a bey, `ops_guard` for ops), its answer a typed Struct that Litestar encodes,
so the OpenAPI document below is the real contract. Refusals are shared.app.problems.Problem.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Annotated, TypeVar

from litestar import Response, get, post
from litestar.datastructures import ResponseHeader
from litestar.openapi import ResponseSpec
from litestar.openapi.spec import Operation, Parameter, Reference, RequestBody
from litestar.params import HeaderParameter
from msgspec import Struct

from services.command import service
from services.command.auth import ops_guard
from services.command.schemas import (
    Accepted,
    AnswerIn,
    CreatedOut,
    CreateSeasonIn,
    DivanIn,
    DivanRequestedOut,
    OfferIn,
    OrdersIn,
    OrdersOut,
    SeasonStatus,
    SpendIn,
    TokenOut,
    VoteIn,
)
from services.command.service import Context, Outcome, Services
from shared.app.auth import BeyClaim
from shared.app.openapi import BEARER, COMMAND_PROBLEMS
from shared.app.private_view import PrivateView
from shared.app.problems import Problem

Key = Annotated[
    str | None,
    HeaderParameter(
        name="Idempotency-Key", description="Retry-safe key (≤ 200 characters)", max_length=200
    ),
]
P = COMMAND_PROBLEMS
T = TypeVar("T", bound=Struct)


def _answer(outcome: Outcome[T]) -> Response[T]:
    return Response(outcome.body, status_code=outcome.status)


@post(
    "/seasons",
    status_code=201,
    summary="Create a trial season and join it",
    responses=P,
    response_headers=[
        ResponseHeader(
            name="Location", description="/v1/seasons/{season_id}", documentation_only=True
        )
    ],
)
async def create_season(services: Services, data: CreateSeasonIn) -> Response[CreatedOut]:
    """R-1.2, R-1.4, R-1.5: one human bey, 18 computer beys; the token is shown once. The
    answer's Location names the new season's status."""
    seed = int(data.seed) if data.seed is not None else None
    created = await service.create_season(services, data.memleket, seed)
    return Response(
        created, status_code=201, headers={"Location": f"/v1/seasons/{created.season_id}"}
    )


@get("/seasons/{season_id:str}", summary="Season status", responses=P)
async def season_status(services: Services, season_id: str) -> SeasonStatus:
    return await service.season_status(services, season_id)


@get("/seasons/{season_id:str}/me", summary="A bey's own view", responses=P, security=BEARER)
async def me(services: Services, claim: BeyClaim) -> PrivateView:
    return await service.bey_view(services, claim)


@post(
    "/seasons/{season_id:str}/orders",
    status_code=200,
    summary="Give orders for a Divan",
    responses=P,
    security=BEARER,
)
async def submit_orders(
    services: Services, context: Context, data: OrdersIn, idempotency_key: Key = None
) -> Response[OrdersOut]:
    """R-4.1: the set replaces the bey's earlier set for that Divan; the answer names the Divan."""
    return _answer(await service.submit_orders(services, context, data.divan, tuple(data.orders)))


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
    responses=P,
    security=BEARER,
    operation_class=_KeyRequired,
)
async def spend(
    services: Services, context: Context, data: SpendIn, idempotency_key: Key = None
) -> Response[Accepted]:
    """Immediate; the Idempotency-Key header is required."""
    return _answer(await service.spend(services, context, data.kind, data.province))


@post(
    "/seasons/{season_id:str}/offers",
    status_code=200,
    summary="Offer a pact or alliance (R-6.1)",
    responses=P,
    security=BEARER,
    operation_class=_KeyRequired,
)
async def offer(
    services: Services, context: Context, data: OfferIn, idempotency_key: Key = None
) -> Response[Accepted]:
    """The Idempotency-Key header is required."""
    return _answer(await service.offer_treaty(services, context, data.to, data.kind))


@post(
    "/seasons/{season_id:str}/offers/{to:int}/withdraw",
    status_code=200,
    summary="Withdraw an offer",
    responses=P,
    security=BEARER,
)
async def withdraw(
    services: Services, context: Context, to: int, idempotency_key: Key = None
) -> Response[Accepted]:
    return _answer(await service.withdraw_offer(services, context, to))


@post(
    "/seasons/{season_id:str}/offers/{frm:int}/answer",
    status_code=200,
    summary="Answer an offer",
    responses=P,
    security=BEARER,
)
async def answer_offer(
    services: Services, context: Context, frm: int, data: AnswerIn, idempotency_key: Key = None
) -> Response[Accepted]:
    return _answer(await service.answer_offer(services, context, frm, data.answer))


@post(
    "/seasons/{season_id:str}/kurultay/vote",
    status_code=200,
    summary="Vote at the Kurultay (R-10.4)",
    responses=P,
    security=BEARER,
)
async def vote(
    services: Services, context: Context, data: VoteIn, idempotency_key: Key = None
) -> Response[Accepted]:
    return _answer(await service.cast_vote(services, context, data.candidate))


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
        **P,
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
        raise Problem(
            422, "invalid_body", 'Gövde {"divan": n} gerekli / body {"divan": n} required'
        )
    return _answer(await service.request_divan(services, context, data.divan))


@post(
    "/seasons/{season_id:str}/token",
    status_code=200,
    summary="Rotate one's own token",
    responses=P,
    security=BEARER,
)
async def rotate_token(services: Services, claim: BeyClaim) -> TokenOut:
    """The old token stops working at once; the new one is shown only in this answer."""
    return await service.rotate_token(services, claim)


@post(
    "/ops/seasons/{season_id:str}/beys/{seat:int}/token",
    status_code=200,
    summary="Ops: reissue a bey's token",
    responses=P,
    security=BEARER,
    guards=[ops_guard],
)
async def reissue_token(services: Services, season_id: str, seat: int) -> TokenOut:
    """Ops reissue a lost token; the reissue is an audited event."""
    return await service.reissue_token(services, season_id, seat)


ROUTES = [
    create_season,
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
]
