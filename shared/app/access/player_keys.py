"""Player keys (issue 23, ADR-87): `sbp1.<player_id>.<secret>`, shown once, kept as a hash.

The player id is 32 lowercase hexadecimal digits (uuid4().hex) and public; the secret has 192
bits. Only the SHA-256 of the whole key is stored (in the player's own log, never a season's);
it is compared in constant time, as a bey token's is (shared/app/access/tokens.py).
"""

from __future__ import annotations

import re
import uuid

from shared.app.access.tokens import holds, same_hash, secret_of, token_hash
from shared.app.http.problems import Problem
from shared.domain import player_events as players
from shared.eventstore.player_log import PlayerLog

PREFIX = "sbp1"
_ID = re.compile(r"[0-9a-f]{32}")
_KEY = re.compile(r"sbp1\.([0-9a-f]{32})\.[A-Za-z0-9_-]{32}")


def new_player_id() -> str:
    return uuid.uuid4().hex


def is_player_id(value: str) -> bool:
    return _ID.fullmatch(value) is not None


def new_key(player_id: str, secret: str | None = None) -> str:
    """`sbp1.<player_id>.<secret>`: the secret the client's own when it brings one (ADR-178:
    the same 32 characters of the URL-safe base64 alphabet), else 192 new bits."""
    if not is_player_id(player_id):
        raise ValueError("not a player id")
    return f"{PREFIX}.{player_id}.{secret_of(secret)}"


def key_hash(key: str) -> str:
    return token_hash(key)


async def load(log: PlayerLog, player_id: str) -> tuple[players.PlayerState, int]:
    """The player's state folded from its log, and its version (0: no such player)."""
    rows = await log.read(player_id)
    return players.fold_player([players.decode(data) for _type, data in rows]), len(rows)


async def rotated(log: PlayerLog, player_id: str, key: str | None, secret: str) -> str | None:
    """ADR-178: a key rotation sent again after its answer was lost carries the old key,
    refused now. Exactly this case is let through: the bearer is a well-formed key of this
    player, who has not left, and the player's key is the one `secret` makes. That key; None
    otherwise (the bearer is then checked as ever)."""
    m = _KEY.fullmatch(key) if key is not None else None
    if m is None or m[1] != player_id:
        return None
    state, version = await load(log, player_id)
    made = new_key(player_id, secret)
    if version == 0 or state.left or not holds(state.key_hash, made):
        return None
    return made


async def holder(log: PlayerLog, key: str | None) -> tuple[players.PlayerState, int]:
    """The player whose key this is, or 401 `bad_player_key` (no such key, a rotated one, a
    player who left: the key stops working)."""
    m = _KEY.fullmatch(key) if key is not None else None
    if m is None:
        raise Problem(401, "bad_player_key")
    state, version = await load(log, m[1])
    if version == 0 or state.left or not same_hash(state.key_hash, key_hash(key or "")):
        raise Problem(401, "bad_player_key")
    return state, version
