"""A season or a player created again (ADR-178): the same creation sent after its answer was
lost, under the same Idempotency-Key, answers the season or player the first created.

The server draws a new season's or player's id, so a retry cannot find it by id: the key's
record (the Idempotency-Key store, `idempotency_keys`, a scope of its own per kind) holds the
id and the creator's seat, never a secret. The answer's tokens are made again from the
request's own secrets (the request hash is over the body: the same hash, the same secrets);
a token the server drew cannot be made again, so such a retry is 409 `secret_not_replayable`
instead of a second season or player.
"""

from __future__ import annotations

import msgspec
import structlog

from services.command.schemas import CreatedOut, CreatorOut, LiveCreatedOut
from services.command.service import Key, Services, held, load
from shared.app.access import tokens
from shared.app.answers.calendar_answer import calendar_out
from shared.app.http.problems import Problem, store_busy
from shared.domain import events as ev
from shared.eventstore import (
    ConcurrencyError,
    EventMetadata,
    Found,
    IdempotencyKeyTaken,
    IdempotencyRecord,
    StoreBusyError,
)

log = structlog.get_logger(__name__)
SEASONS = "create:season"  # the key's scope of `POST /v1/seasons`
PLAYERS = "create:player"  # … and of `POST /v1/players`


class Created(msgspec.Struct, frozen=True):
    """What a keyed creation's record holds: the id the server drew and the creator's seat
    (none: a live season its creator does not play in, or a player). Never a secret."""

    id: str
    seat: int | None = None


def record(scope: str, key: Key | None, created: Created) -> IdempotencyRecord | None:
    """The key's record, written in the creation's own append (None without a key)."""
    if key is None:
        return None
    return IdempotencyRecord(scope, key.value, key.request_hash, 201, msgspec.json.encode(created))


def created_of(found: Found) -> Created:
    """What the key holds for this request, or the key's own refusal (service.held)."""
    return held(found, Created)[1]


async def earlier(svc: Services, scope: str, key: Key | None) -> Created | None:
    """The creation this key already made for this very request (None: a new one)."""
    if key is None:
        return None
    try:
        found = await svc.seasons.store.idempotency.look(scope, key.value, key.request_hash)
    except StoreBusyError:
        raise store_busy() from None
    return None if found is None else created_of(found)


def replayable(*secrets: str | None) -> None:
    """Every token of the answer is made from the client's own secret, or 409: the server's
    drawn secrets are kept nowhere (ADR-178), and no second season or player is made."""
    if any(secret is None for secret in secrets):
        raise Problem(409, "secret_not_replayable")


async def append_created(
    svc: Services,
    season_id: str,
    events: list[ev.Event],
    meta: EventMetadata,
    *,
    key: Key | None,
    created: Created,
) -> Created | None:
    """A new season's first append, with the key's record in its commit; None when it is
    appended, else what a copy of the request under the same key created first (a race)."""
    try:
        await svc.seasons.append(
            season_id, 0, "create", events, meta, idempotency=record(SEASONS, key, created)
        )
    except StoreBusyError:
        raise store_busy() from None
    except IdempotencyKeyTaken as taken:
        return created_of(taken.found)
    except ConcurrencyError:  # PostgreSQL: the key's row written by a copy at the same instant
        first = await earlier(svc, SEASONS, key)
        if first is None:
            raise
        return first
    return None


async def trial_again(svc: Services, created: Created, secret: str | None) -> CreatedOut:
    """A trial season's answer made again: its bey's token from the request's secret."""
    replayable(secret)
    assert created.seat is not None  # a trial's human always has a seat
    state = (await load(svc, created.id)).state
    token = tokens.new_token(created.id, created.seat, secret)
    log.info("season.created_again", season_id=created.id, mode="trial")
    return CreatedOut(created.id, created.seat, token, state.seed_commitment)


async def live_again(
    svc: Services, created: Created, secrets: LiveSecrets, memleket: int | None
) -> LiveCreatedOut:
    """A live season's answer made again: its season-admin token and its creator's bey token
    (when it plays) from the request's secrets; its calendar as it is now."""
    replayable(secrets.admin, *((secrets.token,) if created.seat is not None else ()))
    state = (await load(svc, created.id)).state
    assert state.calendar is not None
    creator = None
    if created.seat is not None and memleket is not None:
        token = tokens.new_token(created.id, created.seat, secrets.token)
        creator = CreatorOut(created.seat, token, memleket)
    log.info("season.created_again", season_id=created.id, mode="live")
    return LiveCreatedOut(
        season_id=created.id,
        admin_token=tokens.new_admin_token(created.id, secrets.admin),
        calendar=calendar_out(state.calendar),
        seed_commitment=state.seed_commitment,
        creator=creator,
    )


class LiveSecrets(msgspec.Struct, frozen=True):
    """A live creation's secrets of the client's own (ADR-178): its bey token's (the creator
    plays) and its season-admin token's; None: the server draws it."""

    token: str | None = None
    admin: str | None = None
