"""The command API under /v1: seasons, orders, spending, treaties, Divans, Kurultay, tokens."""

from __future__ import annotations

import secrets
import uuid
from dataclasses import dataclass
from typing import Annotated, Any

import structlog
from litestar import Request, Response, get, post
from litestar.openapi import ResponseSpec
from litestar.openapi.spec import Operation, Reference, RequestBody
from litestar.params import HeaderParameter

from services.command import auth
from services.command.handling import load, respond, run, services
from services.command.problems import Problem
from services.command.schemas import (
    Accepted,
    AnswerIn,
    CreatedOut,
    CreateSeasonIn,
    DivanIn,
    DivanRequestedOut,
    MeOut,
    OfferIn,
    OrdersIn,
    OrdersOut,
    SeasonStatus,
    SpendIn,
    TokenOut,
    VoteIn,
)
from shared.app import tokens
from shared.app.openapi import BEARER, COMMAND_PROBLEMS
from shared.domain import codec
from shared.domain import commands as c
from shared.domain import events as ev
from shared.domain.decide import decide, next_divan, upcoming_divan
from shared.domain.evolve import evolve
from shared.domain.map import game_map
from shared.domain.state import SeasonState, perde
from shared.eventstore import ConcurrencyError, EventMetadata

Key = Annotated[
    str | None,
    HeaderParameter(
        name="Idempotency-Key", description="Retry-safe key (≤ 200 characters)", max_length=200
    ),
]
P = COMMAND_PROBLEMS
log = structlog.get_logger(__name__)


def _accepted(events: list[ev.Event], version: int, _state: SeasonState) -> tuple[int, Any]:
    return 200, Accepted("accepted", [codec.event_type(e) for e in events], version)


@post("/seasons", status_code=201, summary="Create a trial season and join it", responses=P)
async def create_season(
    request: Request[Any, Any, Any], data: CreateSeasonIn
) -> Response[CreatedOut]:
    """R-1.2, R-1.4, R-1.5: one human bey, 18 computer beys; the token is shown once."""
    svc = services(request)
    body = data
    if body.memleket not in game_map():
        raise Problem(422, "unknown_province", f"{body.memleket} plakalı il yok")
    chosen = int(body.seed) if body.seed is not None else None
    if chosen is not None and not 0 <= chosen < 2**63:
        raise Problem(422, "invalid_body", "Tohum 0 … 2^63 − 1 olmalı / seed must be 0 … 2^63 − 1")
    season_id = tokens.new_season_id()  # the shape a bey token's season part must have
    seed = chosen if chosen is not None else secrets.randbits(63)
    create = c.CreateSeason(
        season_id=season_id,
        seed=seed,
        mode="trial",
        seed_salt=secrets.token_hex(16),
        counts_on_boards=body.seed is None,
    )
    state = SeasonState()
    events: list[ev.Event] = []
    for cmd in (create, c.JoinSeason(memleket=body.memleket), c.CloseRegistration()):
        result = decide(state, cmd)
        assert isinstance(result, list), result
        for e in result:
            state = evolve(state, e)
        events.extend(result)
    seat = next(b.seat for b in state.beys if not b.computer)
    token = auth.new_token(season_id, seat)
    events.insert(2, ev.TokenRotated(seat=seat, by="bey", token_hash=auth.token_hash(token)))
    meta = EventMetadata(actor="seat", seat=str(seat), command_id=f"create/{season_id}")
    await svc.seasons.append(season_id, 0, "create", events, meta)
    out = CreatedOut(season_id, seat, token, state.seed_commitment)
    return Response(codec.encode(out), status_code=201, media_type="application/json")


@get("/seasons/{season_id:str}", summary="Season status", responses=P)
async def season_status(request: Request[Any, Any, Any], season_id: str) -> Response[SeasonStatus]:
    loaded = await load(services(request), season_id)
    s = loaded.state
    over = s.phase == "over"
    nxt = upcoming_divan(s)
    status = SeasonStatus(
        season_id=season_id,
        mode=s.mode,
        phase=s.phase,
        divan=s.divan,
        next_divan=nxt,
        perde=perde(max(1, nxt or s.divan)),
        resolving=s.locked_divan is not None,
        version=loaded.version,
        rules_version=s.rules_version,
        seed_commitment=s.seed_commitment,
        han=s.han,
        seed=str(s.seed) if over else None,
        seed_salt=s.seed_salt if over else None,
    )
    return respond(200, codec.encode(status))


@get("/seasons/{season_id:str}/me", summary="A bey's own view", responses=P, security=BEARER)
async def me(request: Request[Any, Any, Any], season_id: str) -> Response[MeOut]:
    loaded = await load(services(request), season_id)
    s = loaded.state
    seat = auth.bey(request, season_id, s)
    bey = s.bey(seat)
    assert bey is not None
    n = upcoming_divan(s)
    out = MeOut(
        seat=seat,
        memleket=bey.memleket,
        gold=bey.gold,
        exiled=s.exiled(seat),
        hain_through=bey.hain_through,
        missions=list(bey.missions),
        missions_done=list(bey.missions_done),
        next_divan=n,
        orders=list(s.orders.get(n, {}).get(seat, ())) if n is not None else [],
        offers_in=[
            {"from": o.frm, "kind": o.kind, "answer": o.answer} for o in s.offers if o.to == seat
        ],
        offers_out=[{"to": o.to, "kind": o.kind} for o in s.offers if o.frm == seat],
    )
    return respond(200, codec.encode(out))


@post(
    "/seasons/{season_id:str}/orders",
    status_code=200,
    summary="Give orders for a Divan",
    responses=P,
    security=BEARER,
)
async def submit_orders(
    request: Request[Any, Any, Any], season_id: str, data: OrdersIn, idempotency_key: Key = None
) -> Response[OrdersOut]:
    """R-4.1: the set replaces the bey's earlier set for that Divan; the answer names the Divan."""
    body = data

    def build(state: SeasonState, seat: int) -> c.Command:
        divan = body.divan if body.divan is not None else next_divan(state)
        return c.SubmitOrders(seat=seat, divan=divan, orders=tuple(body.orders))

    def answer(events: list[ev.Event], _v: int, state: SeasonState) -> tuple[int, Any]:
        e = events[0]
        assert isinstance(e, ev.OrdersSubmitted)
        return 200, OrdersOut(e.divan, len(e.orders))

    return await run(request, season_id, build, answer, key_required=False)


@post(
    "/seasons/{season_id:str}/spend",
    status_code=200,
    summary="Spend gold (R-7.9)",
    responses=P,
    security=BEARER,
)
async def spend(
    request: Request[Any, Any, Any], season_id: str, data: SpendIn, idempotency_key: Key = None
) -> Response[Accepted]:
    """Immediate; the Idempotency-Key header is required."""
    body = data
    kinds = {"sur": c.BuildSur, "paralı_asker": c.HireMercenaries, "satın_alma": c.PurchaseProvince}

    def build(_state: SeasonState, seat: int) -> c.Command:
        return kinds[body.kind](seat=seat, province=body.province)

    return await run(request, season_id, build, _accepted, key_required=True)


@post(
    "/seasons/{season_id:str}/offers",
    status_code=200,
    summary="Offer a pact or alliance (R-6.1)",
    responses=P,
    security=BEARER,
)
async def offer(
    request: Request[Any, Any, Any], season_id: str, data: OfferIn, idempotency_key: Key = None
) -> Response[Accepted]:
    """The Idempotency-Key header is required."""
    body = data
    return await run(
        request,
        season_id,
        lambda _s, seat: c.OfferTreaty(seat=seat, to=body.to, kind=body.kind),
        _accepted,
        key_required=True,
    )


@post(
    "/seasons/{season_id:str}/offers/{to:int}/withdraw",
    status_code=200,
    summary="Withdraw an offer",
    responses=P,
    security=BEARER,
)
async def withdraw(
    request: Request[Any, Any, Any], season_id: str, to: int, idempotency_key: Key = None
) -> Response[Accepted]:
    return await run(
        request,
        season_id,
        lambda _s, seat: c.WithdrawOffer(seat=seat, to=to),
        _accepted,
        key_required=False,
    )


@post(
    "/seasons/{season_id:str}/offers/{frm:int}/answer",
    status_code=200,
    summary="Answer an offer",
    responses=P,
    security=BEARER,
)
async def answer_offer(
    request: Request[Any, Any, Any],
    season_id: str,
    frm: int,
    data: AnswerIn,
    idempotency_key: Key = None,
) -> Response[Accepted]:
    body = data
    return await run(
        request,
        season_id,
        lambda _s, seat: c.AnswerOffer(seat=seat, frm=frm, answer=body.answer),
        _accepted,
        key_required=False,
    )


@post(
    "/seasons/{season_id:str}/kurultay/vote",
    status_code=200,
    summary="Vote at the Kurultay (R-10.4)",
    responses=P,
    security=BEARER,
)
async def vote(
    request: Request[Any, Any, Any], season_id: str, data: VoteIn, idempotency_key: Key = None
) -> Response[Accepted]:
    body = data
    return await run(
        request,
        season_id,
        lambda _s, seat: c.CastVote(seat=seat, candidate=body.candidate),
        _accepted,
        key_required=False,
    )


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
    request: Request[Any, Any, Any],
    season_id: str,
    data: DivanIn | None = None,
    idempotency_key: Key = None,
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
    n = data.divan
    svc = services(request)

    def answer(_events: list[ev.Event], _v: int, state: SeasonState) -> tuple[int, Any]:
        if state.divan >= n:  # decided on the state before the events: resolved already
            return 200, DivanRequestedOut(n, "resolved")
        return 202, DivanRequestedOut(n, "resolving")

    response = await run(
        request,
        season_id,
        lambda _s, seat: c.RequestDivan(seat=seat, divan=n),
        answer,
        key_required=False,
    )
    if response.status_code == 202:
        try:
            svc.enqueue(season_id, n)
        except Exception:  # the request is stored: the scheduler hands it over (runbook)
            log.warning("divan.enqueue_failed", season_id=season_id, divan=n)
    return response


@post(
    "/seasons/{season_id:str}/token",
    status_code=200,
    summary="Rotate one's own token",
    responses=P,
    security=BEARER,
)
async def rotate_token(request: Request[Any, Any, Any], season_id: str) -> Response[TokenOut]:
    """The old token stops working at once; the new one is shown only in this answer."""
    svc = services(request)
    loaded = await load(svc, season_id)
    seat = auth.bey(request, season_id, loaded.state)
    # Re-checked on every attempt: a racing rotation may have retired this token meanwhile.
    return await _set_token(
        svc, season_id, seat, "bey", lambda state: auth.bey(request, season_id, state)
    )


@post(
    "/ops/seasons/{season_id:str}/beys/{seat:int}/token",
    status_code=200,
    summary="Ops: reissue a bey's token",
    responses=P,
    security=BEARER,
)
async def reissue_token(
    request: Request[Any, Any, Any], season_id: str, seat: int
) -> Response[TokenOut]:
    """Ops reissue a lost token; the reissue is an audited event."""
    svc = services(request)
    auth.ops_only(request, svc.ops, svc.auditors)
    await load(svc, season_id)
    return await _set_token(svc, season_id, seat, "ops")


async def _set_token(
    svc: Any, season_id: str, seat: int, by: str, check: Any = None
) -> Response[Any]:
    for _attempt in range(svc.retries + 1):
        loaded = await load(svc, season_id)
        if check is not None:
            check(loaded.state)
        token = auth.new_token(season_id, seat)
        cmd = c.RotateToken(seat=seat, token_hash=auth.token_hash(token), by=by)  # type: ignore[arg-type]
        result = decide(loaded.state, cmd)
        if isinstance(result, c.Rejection):
            raise Problem.of(result)
        actor = "seat" if by == "bey" else "ops"
        meta = EventMetadata(actor=actor, seat=str(seat), command_id=f"token/{uuid.uuid4()}")  # type: ignore[arg-type]
        try:
            await svc.seasons.append(season_id, loaded.version, meta.command_id, result, meta)
        except ConcurrencyError:
            continue
        return respond(200, codec.encode(TokenOut(seat, token)))
    raise Problem(409, "conflict", "Sezon çok meşgul; tekrar deneyin")


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
