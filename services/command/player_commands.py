"""Players (issue 23, ADR-87): created, their key rotated, left; a seat bound to a player.

A player is a public id and a key (shown once, kept as its hash) in a log of its own
(shared/eventstore/player_log.py); no account, no personal data: an optional public name only.
"""

from __future__ import annotations

import unicodedata

import structlog

from services.command import created_again as again
from services.command.player_schemas import PlayerKeyOut, PlayerLeftOut
from services.command.service import Key, Services
from shared.app.access import player_keys
from shared.app.http.problems import Problem, store_busy
from shared.domain import names
from shared.domain import player_events as pe
from shared.eventstore import ConcurrencyError, StoreBusyError

log = structlog.get_logger(__name__)


def _row(event: pe.PlayerEvent) -> tuple[str, bytes]:
    return event.__struct_config__.tag, pe.encode(event)  # type: ignore[return-value]


async def _append(svc: Services, player_id: str, version: int, event: pe.PlayerEvent) -> None:
    try:
        await svc.seasons.store.players.append(player_id, version, [_row(event)])
    except StoreBusyError:
        raise store_busy() from None
    except ConcurrencyError:  # the same key used twice at once: one wins
        raise Problem(409, "conflict.player") from None  # the player's words, not a season's


async def create_player(
    svc: Services, name: str | None, *, key: Key | None = None, secret: str | None = None
) -> PlayerKeyOut:
    """A new player: its public id and its key (shown once; only its hash is kept). Its public
    name, if any, goes through the one rule of names (R-15.5: 422 `invalid_name`,
    `name_reserved`) and is kept as NFC; it need not be unique.

    ADR-178: the key's secret may be the client's own; under an Idempotency-Key the same
    request again answers the player the first created. The key's record (id only) is written
    before the player's first event, which has no key of its own: a retry finding the record
    and no player creates it then (no answer was given), else answers it again."""
    if name is not None:
        refused = names.name_refusal(name)
        if refused is not None:
            raise Problem.of(refused)
        name = unicodedata.normalize("NFC", name)
    before = await again.earlier(svc, again.PLAYERS, key)
    if before is None:
        player_id = player_keys.new_player_id()
        before = await _recorded(svc, key, again.Created(player_id))
        if before is None:
            return await _created_or_copy(svc, player_id, name, key=key, secret=secret)
    _state, version = await player_keys.load(svc.seasons.store.players, before.id)
    if version == 0:  # recorded, never appended (the store failed between): no answer given
        return await _created_or_copy(svc, before.id, name, key=key, secret=secret)
    return _answered_again(before.id, secret)


def _answered_again(player_id: str, secret: str | None) -> PlayerKeyOut:
    """The player a keyed creation made, answered again with the key its secret makes (409
    `secret_not_replayable` when the server drew it)."""
    again.replayable(secret)
    log.info("player.created_again", player_id=player_id)
    return PlayerKeyOut(player_id, player_keys.new_key(player_id, secret))


async def _created_or_copy(
    svc: Services, player_id: str, name: str | None, *, key: Key | None, secret: str | None
) -> PlayerKeyOut:
    """`_created`; under a key, a copy of this request that created the same player first
    (both found the key's record and no player) is answered as that copy was, not 409."""
    try:
        return await _created(svc, player_id, name, secret)
    except Problem as p:
        if key is None or p.code != "conflict":
            raise
        return _answered_again(player_id, secret)


async def _recorded(svc: Services, key: Key | None, created: again.Created) -> again.Created | None:
    """The key recorded for this creation (None), or what a copy recorded first."""
    if key is None:
        return None
    record = again.record(again.PLAYERS, key, created)
    assert record is not None
    try:
        found = await svc.seasons.store.idempotency.record(
            record.scope, record.key, record.request_hash, record.status, record.body
        )
    except StoreBusyError:
        raise store_busy() from None
    return None if found is None else again.created_of(found)


async def _created(
    svc: Services, player_id: str, name: str | None, secret: str | None
) -> PlayerKeyOut:
    key = player_keys.new_key(player_id, secret)
    created = pe.PlayerCreated(player_id=player_id, key_hash=player_keys.key_hash(key), name=name)
    await _append(svc, player_id, 0, created)
    log.info("player.created", player_id=player_id)
    return PlayerKeyOut(player_id, key)


async def rotate_key(
    svc: Services, player_id: str, key: str | None, secret: str | None = None
) -> PlayerKeyOut:
    """A new key for the key's holder; the old one stops working at once. ADR-178: with the
    client's own `secret`, the rotation sent again with the old key after a lost answer is
    answered with the same new key, appending nothing."""
    again = await _key_rotated_before(svc, player_id, key, secret)
    if again is not None:
        return again
    state, version = await player_keys.holder(svc.seasons.store.players, key)
    if state.player_id != player_id:
        raise Problem(401, "bad_player_key")
    new = player_keys.new_key(player_id, secret)
    rotated = pe.PlayerKeyRotated(key_hash=player_keys.key_hash(new))
    try:
        await _append(svc, player_id, version, rotated)
    except Problem as p:
        if p.code != "conflict":
            raise
        # a copy of this very rotation (the same secret) appended first: answered as it was
        again = await _key_rotated_before(svc, player_id, key, secret)
        if again is None:
            raise
        return again
    log.info("player.key_rotated", player_id=player_id)
    return PlayerKeyOut(player_id, new)


async def _key_rotated_before(
    svc: Services, player_id: str, key: str | None, secret: str | None
) -> PlayerKeyOut | None:
    """The answer of the rotation this one repeats (ADR-178): the player's key is already the
    one the client's secret makes; None otherwise (no secret, or not yet rotated to it)."""
    if secret is None:
        return None
    made = await player_keys.rotated(svc.seasons.store.players, player_id, key, secret)
    if made is None:
        return None
    log.info("player.key_rotation_answered_again", player_id=player_id)
    return PlayerKeyOut(player_id, made)


async def leave(svc: Services, player_id: str, key: str | None) -> PlayerLeftOut:
    """The key's holder leaves: the record leaves every view and the key stops working (an
    event); the seasons keep their seats, the ratings an anonymous stand-in (ADR-88)."""
    state, version = await player_keys.holder(svc.seasons.store.players, key)
    if state.player_id != player_id:
        raise Problem(401, "bad_player_key")
    await _append(svc, player_id, version, pe.PlayerLeft())
    log.info("player.left", player_id=player_id)
    return PlayerLeftOut(player_id, left=True)


async def player_of(svc: Services, key: str | None) -> str | None:
    """The player a create or a join names by its key (None without one), or 401."""
    if key is None:
        return None
    state, _version = await player_keys.holder(svc.seasons.store.players, key)
    return state.player_id
