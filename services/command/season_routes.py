"""The command API's season routes: create (trial or live), status, join, season admin."""

from __future__ import annotations

from typing import Any

from litestar import Request, Response, get, post
from litestar.datastructures import ResponseHeader

from services.command import (
    player_commands,
    season_commands,
    season_reads,
)
from services.command.client_secrets import distinct
from services.command.command_refusals import (
    ADMIN,
    CREATE_LIVE,
    CREATED_AGAIN,
    JOIN,
)
from services.command.created_again import LiveSecrets
from services.command.request_context import key_of
from services.command.route_parts import Key, versioned
from services.command.schemas import (
    AdminAction,
    AdminDoneOut,
    AdminIn,
    CreatedOut,
    CreateSeasonIn,
    JoinedOut,
    JoinIn,
    LiveCreatedOut,
    ReasonIn,
    SeasonStatus,
)
from services.command.service import Key as KeyOf
from services.command.service import Services
from shared.app.access import request_auth as auth
from shared.app.http.openapi import (
    APPEND,
    BEARER,
    BODY,
    EVERY,
    RATE,
    SEASON_VERSION,
    STAFF_AUTH,
    STORE,
    answers,
)
from shared.app.http.problems import Problem
from shared.domain.admin import ADMIN_ACTS, AdminActSpec


@post(
    "/seasons",
    status_code=201,
    summary="Create a trial season and join it, or a live season",
    responses=answers(EVERY, RATE, BODY, CREATED_AGAIN, "store_busy", *CREATE_LIVE),
    response_headers=[
        ResponseHeader(
            name="Location", description="/v1/seasons/{season_id}", documentation_only=True
        )
    ],
)
async def create_season(
    services: Services,
    data: CreateSeasonIn,
    request: Request[Any, Any, Any],
    idempotency_key: Key = None,
) -> Response[CreatedOut | LiveCreatedOut]:
    """R-1.2, R-1.4, R-1.5: a trial season, one human bey and 18 computer beys (CreatedOut); or,
    with `"mode": "live"`, a live season (LiveCreatedOut: the season-admin token, shown once,
    and the provisional calendar). Tokens are shown once. The answer's Location names the new
    season's status.

    ADR-178: `token_secret` (the bey's token: a trial's human, a live season's creator with a
    memleket) and `admin_secret` (a live season's admin token), drawn by the client and kept
    before sending, end the tokens answered. With an Idempotency-Key, the same request again
    after a lost answer is 201 with the same season and tokens, made from those secrets; a
    retry whose tokens the server drew is 409 `secret_not_replayable`, never a second season."""
    key = await key_of(request) if idempotency_key is not None else None
    distinct(token_secret=data.token_secret, admin_secret=data.admin_secret)
    created: CreatedOut | LiveCreatedOut
    if data.mode == "live":
        created = await _create_live(services, data, request, key)
    else:
        if data.memleket is None:
            raise Problem(
                422, "invalid_body.memleket_required", field="$.memleket", minimum=1, maximum=81
            )
        if data.registration_closes_at is not None or data.divan_interval_seconds is not None:
            raise Problem(403, "not_allowed_in_mode.trial_calendar")
        if data.player_key is not None:  # a trial never counts for a player (issue 23)
            raise Problem(403, "not_allowed_in_mode.trial_player")
        if data.press is not None:
            raise Problem(403, "not_allowed_in_mode.trial_press")  # a trial has no chat
        if not data.listed or data.description is not None:  # the lobby is for live seasons
            raise Problem(403, "not_allowed_in_mode.lobby_live_only")
        if data.admin_secret is not None:  # a trial has no season-admin token
            raise Problem(422, "invalid_body.secret_unused", field="$.admin_secret")
        seed = int(data.seed) if data.seed is not None else None
        created = await season_commands.create_season(
            services, data.memleket, seed, data.name, key=key, secret=data.token_secret
        )
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


# --- live seasons: creating, joining, season admin (issue 12) --------------------------------


async def _create_live(
    services: Services, data: CreateSeasonIn, request: Request[Any, Any, Any], key: KeyOf | None
) -> LiveCreatedOut:
    """A live season: no seed from the caller (R-1.5); a compressed calendar for ops only."""
    if data.seed is not None:
        raise Problem(403, "not_allowed_in_mode.live_seed")
    if data.divan_interval_seconds is not None:
        role = auth.staff_role(request, services.ops, services.auditors)
        if role != "ops":
            raise Problem(403, "forbidden.compressed_calendar")
    if data.name is not None and data.memleket is None:  # a name is a bey's: it joins
        raise Problem(422, "invalid_name.without_memleket", field="$.name")
    if data.player_key is not None and data.memleket is None:  # no seat to bind (issue 23)
        raise Problem(422, "invalid_body.player_key_seat", field="$.player_key")
    if data.token_secret is not None and data.memleket is None:  # no bey token to make
        raise Problem(422, "invalid_body.secret_unused", field="$.token_secret")
    player_id = await player_commands.player_of(services, data.player_key)
    listing = season_commands.Listing(
        data.name, data.listed, data.description, data.press or "full"
    )
    return await season_commands.create_live_season(
        services,
        data.memleket,
        data.registration_closes_at,
        data.divan_interval_seconds,
        listing,
        player_id=player_id,
        key=key,
        client=LiveSecrets(data.token_secret, data.admin_secret),
    )


@post(
    "/seasons/{season_id:str}/join",
    status_code=201,
    summary="Join a live season (R-1.4)",
    responses=answers(EVERY, RATE, BODY, STORE, APPEND, *JOIN),
)
async def join_season(services: Services, season_id: str, data: JoinIn) -> JoinedOut:
    """First come, first served: the seat, the bey's token (shown once) and the calendar.
    409 `memleket_taken` (with `free_neighbours`), `season_full`, `registration_closed`;
    with a `name` (R-15.5): 422 `invalid_name`, `name_reserved`, 409 `name_taken` (of two
    joins racing with one name, one wins); with a `player_key` (issue 23): 401
    `bad_player_key`, 409 `player_already_seated`. With a `token_secret` (ADR-178: drawn by
    the client, kept before sending) the same join sent again after a lost answer is 201 with
    the same seat and token, before any of those refusals, and appends nothing."""
    player_id = await player_commands.player_of(services, data.player_key)
    return await season_commands.join_season(
        services, season_id, data.memleket, data.name, player_id, secret=data.token_secret
    )


def _admin_route(act: AdminAction, spec: AdminActSpec) -> Any:
    """POST /v1/seasons/{id}/admin/<act>: one handler per act, so OpenAPI names each path."""

    async def with_close(
        services: Services, season_id: str, data: AdminIn, request: Request[Any, Any, Any]
    ) -> Response[AdminDoneOut]:
        return versioned(
            await season_commands.season_admin(
                services,
                season_id,
                token=auth.bearer(request),
                act=act,
                reason=data.reason,
                registration_closes_at=data.registration_closes_at,
            )
        )

    async def reason_only(
        services: Services, season_id: str, data: ReasonIn, request: Request[Any, Any, Any]
    ) -> Response[AdminDoneOut]:
        return versioned(
            await season_commands.season_admin(
                services,
                season_id,
                token=auth.bearer(request),
                act=act,
                reason=data.reason,
                registration_closes_at=None,
            )
        )

    handler = with_close if spec.takes_close else reason_only  # a postponement takes a close

    handler.__doc__ = (
        f"{spec.summary} (D-29 … D-31). Authorised by the season-admin token or the ops token; "
        "the act is recorded with its reason and the server instant and shown in the status."
    )
    handler.__name__ = handler.__qualname__ = f"season_admin_{act}"
    return post(
        f"/seasons/{{season_id:str}}/admin/{act}",
        status_code=200,
        summary=f"Season admin: {act}",
        responses=answers(EVERY, RATE, STAFF_AUTH, BODY, STORE, APPEND, *ADMIN[act]),
        security=BEARER,
        operation_id=f"SeasonAdmin{act.capitalize()}",
        response_headers=[SEASON_VERSION],
    )(handler)


# one route per act, in ADMIN_ACTS' order (shared/domain/admin.py)
ADMIN_ROUTES = [_admin_route(act, spec) for act, spec in ADMIN_ACTS.items()]

# in the order the OpenAPI document lists them (services/command/routes.py)
SEASON_ROUTES: list[Any] = [
    create_season,
    join_season,
    *ADMIN_ROUTES,
    season_status,
]
