"""Players (issue 23, ADR-87): a public id and a key that outlast one season, no account.

A player's own events are a log of their own (shared/eventstore/players.py), apart from the
seasons': created (a public name, the key's SHA-256), key rotated, left. A season links a seat to
a player with `SeatBound` (shared.domain.events); nothing else of a player is in a season.
Pure: the key and its hash are made and checked at the edge (shared/app/player_keys.py).
"""

from __future__ import annotations

import re
import unicodedata

import msgspec

from shared.domain.text import text_problem

NAME_MIN, NAME_MAX = 2, 24
# Letters, digits, spaces and . - _ ' (issue 23). The confusables skeleton that makes season
# names unique (h-names) is not applied to a player's name: a player's name is not unique.
_NAME = re.compile(r"[\w .'-]+")


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


def name_problem(name: str) -> bool:
    """Whether a player's name is refused: 2–24 characters after NFC, letters, digits, spaces
    and `. - _ '` only, through the one free-text check (no control, format or bidirectional
    characters), not only spaces."""
    text = unicodedata.normalize("NFC", name)
    if not NAME_MIN <= len(text) <= NAME_MAX or text_problem(text) is not None:
        return True
    return _NAME.fullmatch(text) is None or text.strip() != text
