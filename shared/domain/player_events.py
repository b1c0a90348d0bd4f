"""Players (issue 23, ADR-87): a public id and a key that outlast one season, no account.

A player's own events are a log of their own (shared/eventstore/players.py), apart from the
seasons': created (a public name, the key's SHA-256), key rotated, left. A season links a seat to
a player with `SeatBound` (shared.domain.events); nothing else of a player is in a season.
Pure: the key and its hash are made and checked at the edge (shared/app/access/player_keys.py).
"""

from __future__ import annotations

import msgspec


class PlayerEvent(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    """Base of a player's events; the tag is the stored type name."""


class PlayerCreated(PlayerEvent, frozen=True, tag="player_created.v1"):
    player_id: str
    key_hash: str  # SHA-256 of the player key (never the key)
    name: str | None = None


class PlayerKeyRotated(PlayerEvent, frozen=True, tag="player_key_rotated.v1"):
    key_hash: str


class PlayerLeft(PlayerEvent, frozen=True, tag="player_left.v1"):
    """The key's holder left: the record leaves every view, the key stops working; seasons
    keep their seats, and ratings keep an anonymous stand-in (ADR-88)."""


AnyPlayerEvent = PlayerCreated | PlayerKeyRotated | PlayerLeft
_decoder = msgspec.json.Decoder(AnyPlayerEvent)


def encode(event: PlayerEvent) -> bytes:
    return msgspec.json.encode(event)


def decode(data: bytes) -> PlayerEvent:
    return _decoder.decode(data)


class PlayerState(msgspec.Struct, frozen=True):
    player_id: str = ""
    name: str | None = None
    key_hash: str = ""
    left: bool = False


def fold_player(events: list[PlayerEvent]) -> PlayerState:
    state = PlayerState()
    for e in events:
        match e:
            case PlayerCreated():
                state = PlayerState(e.player_id, e.name, e.key_hash)
            case PlayerKeyRotated():
                state = msgspec.structs.replace(state, key_hash=e.key_hash)
            case PlayerLeft():
                state = msgspec.structs.replace(state, left=True, key_hash="", name=None)
    return state
