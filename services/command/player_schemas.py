"""Bodies of the player routes (issue 23, ADR-87), apart from the command API's other schemas
(services/command/schemas.py) so both stay short; the read side's are in its responses."""

from __future__ import annotations

from typing import Annotated

import msgspec

from services.command.client_secrets import ClientSecret

Strict = {"forbid_unknown_fields": True, "frozen": True}

PlayerKeyText = Annotated[
    str,
    msgspec.Meta(
        max_length=100,
        description="a player key (POST /v1/players): the seat is bound to that player",
    ),
]
# a player's public name, by the one rule of names (shared.domain.names.name_refusal):
# 422 `invalid_name`, `name_reserved`; unlike a bey's, it need not be unique
PlayerName = Annotated[
    str,
    msgspec.Meta(
        max_length=200,
        description="a public name, by the rule of a bey's name (R-15.5): 2 … 24 letters, "
        "digits, spaces and . - _ '; seat forms, Han, ops, sistem, admin … and their "
        "lookalikes are reserved; not unique among players",
        examples=["Ayşe"],
    ),
]


# --- players (issue 23, ADR-87) ---------------------------------------------------------------
class PlayerIn(msgspec.Struct, **Strict):
    """A new player: an optional public name, checked as a bey's name is (R-15.5)."""

    name: PlayerName | None = None
    # ADR-178: the key's secret, drawn by the client; with an Idempotency-Key the same request
    # again answers the same player and key
    key_secret: ClientSecret | None = None


class PlayerKeyIn(msgspec.Struct, **Strict):
    """A key rotation's new key's secret, drawn by the client (ADR-178): the rotation sent
    again with the old key after a lost answer is answered with the same new key."""

    key_secret: ClientSecret | None = None


class PlayerKeyOut(msgspec.Struct, frozen=True):
    """The player's public id and its key, shown once (only its hash is kept)."""

    player_id: str
    player_key: str


class PlayerLeftOut(msgspec.Struct, frozen=True):
    player_id: str
    left: bool
