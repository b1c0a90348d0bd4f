"""The command API's player routes (issue 23, ADR-87): create a player, rotate its key, leave.

The key is shown once; it is the bearer of the rotation and of the leave (`Authorization:
Bearer sbp1.…`), and a create or a join names it in its body (`player_key`)."""

from __future__ import annotations

from typing import Any

from litestar import Request, Response, post
from litestar.datastructures import ResponseHeader

from services.command import player_commands
from services.command.command_refusals import CREATED_AGAIN, PLAYER_NAME
from services.command.player_schemas import PlayerIn, PlayerKeyIn, PlayerKeyOut, PlayerLeftOut
from services.command.request_context import key_of
from services.command.route_parts import Key
from services.command.service import Services
from shared.app.access import request_auth as auth
from shared.app.access.player_keys import is_player_id
from shared.app.http.openapi import BEARER, BODY, EVERY, RATE, answers
from shared.app.http.problems import Problem

KEYED: tuple[tuple[str, ...] | str, ...] = (EVERY, RATE, "bad_player_key", "player_not_found")
KEYED += ("not_found", "token_in_query", "store_busy")


def _known(player_id: str) -> None:
    if not is_player_id(player_id):
        raise Problem(404, "player_not_found")


@post(
    "/players",
    status_code=201,
    summary="Create a player: a public id and a key that outlasts one season",
    responses=answers(EVERY, RATE, BODY, CREATED_AGAIN, "store_busy", *PLAYER_NAME),
    response_headers=[
        ResponseHeader(
            name="Location", description="/v1/players/{player_id}", documentation_only=True
        )
    ],
)
async def create_player(
    services: Services, data: PlayerIn, request: Request[Any, Any, Any], idempotency_key: Key = None
) -> Response[PlayerKeyOut]:
    """No account, no personal data: an optional public `name`, checked as a bey's name is
    (R-15.5: 2 … 24 letters, digits, spaces and . - _ '; 422 `invalid_name` naming what is
    wrong, `name_reserved` for a reserved whole name or its lookalike); not unique. The key is
    shown once and kept only as its hash; name it as `player_key` when creating or joining a
    live season to bind that seat to the player. ADR-178: with a `key_secret` (drawn by the
    client, kept before sending) the key ends with it; with an Idempotency-Key too, the same
    request again after a lost answer is 201 with the same player and key (without the
    secret: 409 `secret_not_replayable`, never a second player)."""
    key = await key_of(request) if idempotency_key is not None else None
    out = await player_commands.create_player(services, data.name, key=key, secret=data.key_secret)
    return Response(out, status_code=201, headers={"Location": f"/v1/players/{out.player_id}"})


@post(
    "/players/{player_id:str}/key",
    status_code=200,
    summary="Rotate a player's key (the old one stops working)",
    security=BEARER,
    responses=answers(*KEYED, BODY, "conflict"),
)
async def rotate_player_key(
    services: Services,
    player_id: str,
    request: Request[Any, Any, Any],
    data: PlayerKeyIn | None = None,
) -> PlayerKeyOut:
    """The bearer is the player's key; the answer holds the new one, shown once. With a
    `key_secret` (ADR-178) the new key ends with it, and the rotation sent again with the old
    key after a lost answer is 200 with the same new key (exactly that case), appending
    nothing."""
    _known(player_id)
    secret = data.key_secret if data is not None else None
    return await player_commands.rotate_key(services, player_id, auth.bearer(request), secret)


@post(
    "/players/{player_id:str}/leave",
    status_code=200,
    summary="Leave: the player's record leaves every view, the key stops working",
    security=BEARER,
    responses=answers(*KEYED, "conflict"),
)
async def leave_player(
    services: Services, player_id: str, request: Request[Any, Any, Any]
) -> PlayerLeftOut:
    """The bearer is the player's key. Seasons keep their seats and the names played in them;
    other players' ratings are not recomputed without the player (an anonymous stand-in)."""
    _known(player_id)
    return await player_commands.leave(services, player_id, auth.bearer(request))


PLAYER_ROUTES: list[Any] = [create_player, rotate_player_key, leave_player]
