"""The command API's bey routes: a bey's own view and commands, each a command as data
(services/command/bey_commands.py) run by services.command.unit_of_work.execute."""

from __future__ import annotations

from typing import Any

from litestar import Response, get, post
from litestar.openapi import ResponseSpec

from services.command import (
    bey_commands,
    season_reads,
    token_rotation,
)
from services.command.bey_commands import (
    Offer,
    OfferAnswer,
    Orders,
    Spending,
    Vote,
    Withdrawal,
)
from services.command.command_refusals import (
    COMMAND,
    DIVAN,
    OFFER,
    OFFER_VERB,
    ORDERS,
    SPEND,
    VOTE,
)
from services.command.request_context import AnyRequest, command_of
from services.command.route_parts import BodyRequired, Key, KeyRequired, answered, versioned
from services.command.schemas import (
    Accepted,
    AnswerIn,
    AnswerRecordedOut,
    DivanIn,
    DivanRequestedOut,
    OfferIn,
    OrdersAcceptedOut,
    OrdersIn,
    SpendIn,
    TokenIn,
    TokenOut,
    VoteIn,
)
from services.command.service import Services
from services.command.unit_of_work import execute
from shared.app.access.request_auth import BeyClaim
from shared.app.answers.private_view import PrivateView
from shared.app.http.bounds import SeatPath
from shared.app.http.openapi import (
    APPEND,
    BEARER,
    BEY_AUTH,
    BODY,
    EVERY,
    KEY_REQUIRED,
    PATH,
    RATE,
    SEASON_VERSION,
    STORE,
    answers,
)
from shared.app.http.problems import Problem


@get(
    "/seasons/{season_id:str}/me",
    summary="A bey's own view",
    responses=answers(EVERY, RATE, BEY_AUTH, STORE),
    security=BEARER,
    response_headers=[SEASON_VERSION],
)
async def me(services: Services, claim: BeyClaim) -> Response[PrivateView]:
    return versioned(await season_reads.bey_view(services, claim))


@post(
    "/seasons/{season_id:str}/orders",
    status_code=200,
    summary="Give orders for a Divan",
    responses=answers(*COMMAND, BODY, ORDERS),
    security=BEARER,
    response_headers=[SEASON_VERSION],
)
async def submit_orders(
    request: AnyRequest, season_id: str, data: OrdersIn, idempotency_key: Key = None
) -> Response[OrdersAcceptedOut]:
    """R-4.1: the set replaces the bey's earlier set for that Divan; the answer names the Divan."""
    orders = orders_of(data)
    return answered(await execute(*await command_of(request, season_id), orders))


def orders_of(data: OrdersIn) -> Orders:
    """submit_orders' command (the order fast path's too, ADR-134)."""
    return Orders(data.divan, tuple(o.order() for o in data.orders))


@post(
    "/seasons/{season_id:str}/spend",
    status_code=200,
    summary="Spend gold (R-7.9)",
    responses=answers(*COMMAND, KEY_REQUIRED, BODY, SPEND),
    security=BEARER,
    response_headers=[SEASON_VERSION],
    operation_class=KeyRequired,
)
async def spend(
    request: AnyRequest, season_id: str, data: SpendIn, idempotency_key: Key = None
) -> Response[Accepted]:
    """Immediate; the Idempotency-Key header is required."""
    return answered(
        await execute(*await command_of(request, season_id), Spending(data.kind, data.province))
    )


@post(
    "/seasons/{season_id:str}/offers",
    status_code=200,
    summary="Offer a pact or alliance (R-6.1)",
    responses=answers(*COMMAND, KEY_REQUIRED, BODY, OFFER),
    security=BEARER,
    response_headers=[SEASON_VERSION],
    operation_class=KeyRequired,
)
async def offer(
    request: AnyRequest, season_id: str, data: OfferIn, idempotency_key: Key = None
) -> Response[Accepted]:
    """The Idempotency-Key header is required."""
    return answered(await execute(*await command_of(request, season_id), Offer(data.to, data.kind)))


@post(
    "/seasons/{season_id:str}/offers/{to:int}/withdraw",
    status_code=200,
    summary="Withdraw an offer",
    responses=answers(*COMMAND, PATH, OFFER_VERB),
    security=BEARER,
    response_headers=[SEASON_VERSION],
)
async def withdraw(
    request: AnyRequest, season_id: str, to: SeatPath, idempotency_key: Key = None
) -> Response[Accepted]:
    return answered(await execute(*await command_of(request, season_id), Withdrawal(to)))


@post(
    "/seasons/{season_id:str}/offers/{frm:int}/answer",
    status_code=200,
    summary="Answer an offer",
    responses=answers(*COMMAND, PATH, BODY, OFFER_VERB),
    security=BEARER,
    response_headers=[SEASON_VERSION],
)
async def answer_offer(
    request: AnyRequest,
    season_id: str,
    frm: SeatPath,
    data: AnswerIn,
    idempotency_key: Key = None,
) -> Response[AnswerRecordedOut]:
    """R-6.1: `answer` is the answer recorded (accept or reject), which takes effect at the
    Divan's step 2; `status` "accepted" says the command was recorded (ADR-71)."""
    return answered(
        await execute(*await command_of(request, season_id), OfferAnswer(frm, data.answer))
    )


@post(
    "/seasons/{season_id:str}/kurultay/vote",
    status_code=200,
    summary="Vote at the Kurultay (R-10.4)",
    responses=answers(*COMMAND, BODY, VOTE),
    security=BEARER,
    response_headers=[SEASON_VERSION],
)
async def vote(
    request: AnyRequest, season_id: str, data: VoteIn, idempotency_key: Key = None
) -> Response[Accepted]:
    return answered(await execute(*await command_of(request, season_id), Vote(data.candidate)))


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
    operation_class=BodyRequired,
)
async def request_divan(
    request: AnyRequest, season_id: str, data: DivanIn | None = None, idempotency_key: Key = None
) -> Response[DivanRequestedOut]:
    """R-1.2: names the Divan asked for; 202 at once while it resolves, 200 once resolved.

    A retry never advances the season: the Divan already requested answers the same 202 and
    appends nothing. Every 202 enqueues the resolution (the resolver is idempotent; enqueueing
    again also recovers a message the broker lost); if the broker is unreachable the request
    stands and the scheduler enqueues it (`seksenbir scheduler`). Poll the status.
    """
    if data is None:
        raise Problem(422, "invalid_body.divan")
    return answered(
        await bey_commands.request_divan(*await command_of(request, season_id), data.divan)
    )


@post(
    "/seasons/{season_id:str}/token",
    status_code=200,
    summary="Rotate one's own token",
    # no Idempotency-Key: a new secret each time, or the client's own (ADR-178)
    responses=answers(EVERY, RATE, BEY_AUTH, BODY, STORE, APPEND),
    security=BEARER,
)
async def rotate_token(
    services: Services, claim: BeyClaim, data: TokenIn | None = None
) -> TokenOut:
    """The old token stops working at once; the new one is shown only in this answer. With a
    `token_secret` (ADR-178: drawn by the client, kept before sending) the new token ends with
    it, and the rotation sent again with the old token after a lost answer is 200 with the
    same new token (exactly that case: the seat holds the token the secret makes), appending
    nothing."""
    secret = data.token_secret if data is not None else None
    return await token_rotation.rotate_token(services, claim, secret)


# in the order the OpenAPI document lists them (services/command/routes.py)
BEY_ROUTES: list[Any] = [
    me,
    submit_orders,
    spend,
    offer,
    withdraw,
    answer_offer,
    vote,
    request_divan,
    rotate_token,
]
