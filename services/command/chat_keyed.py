"""A chat message with an Idempotency-Key (ADR-175), as a command's (docs/api.md): the bey's
scope of keys (`season:seat`, its commands'); 409 `idempotency_key_in_flight` while a copy
runs in this process; a key taken answers what it holds (the first answer, or 422
`idempotency_key_reused` for another body); a lasting refusal is the key's answer too, a
transient one (`store_busy`, 429 `chat_rate_limited`) is not. The key is recorded with the
message in the statement that appends it (shared/eventstore/chat_keys.py)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import NamedTuple

import msgspec

from services.command.chat_schemas import MessageOut
from services.command.service import Context, Key, Services, held, load, seat_of
from services.command.unit_of_work import KEY_CODES
from shared.app.http.problems import Problem, store_busy
from shared.eventstore import (
    Found,
    IdempotencyKeyTaken,
    StoreBusyError,
)
from shared.eventstore.chat_keys import ChatKey


class ChatIdem(NamedTuple):
    """A send's Idempotency-Key and the scope of the bey's keys it is recorded in."""

    scope: str
    key: Key

    def key_for(self, channel: str, at: str) -> ChatKey:
        """The key recorded with the message, its answer made at the version it is given."""

        def answer(version: int) -> bytes:
            return msgspec.json.encode(MessageOut(message_id=version, channel_id=channel, at=at))

        return ChatKey(self.scope, self.key.value, self.key.request_hash, 201, answer)


async def keyed(
    svc: Services, ctx: Context, send: Callable[[ChatIdem], Awaitable[MessageOut]]
) -> MessageOut:
    """`send` under the key of `ctx` (not None), or what the key holds instead."""
    key = ctx.key
    if key is None:
        raise TypeError("a keyed send needs its key")
    seat = seat_of(ctx.claim, (await load(svc, ctx.claim.season_id)).state)
    scope = f"{ctx.claim.season_id}:{seat}"
    flight = (scope, key.value)
    if flight in svc.in_flight:
        raise Problem(409, "idempotency_key_in_flight")
    svc.in_flight.add(flight)
    keys = svc.seasons.store.idempotency
    try:
        found = await keys.look(scope, key.value, key.request_hash)
        if found is not None:
            return _replayed(found)
        return await send(ChatIdem(scope, key))
    except IdempotencyKeyTaken as taken:  # a copy in another process recorded it first
        return _replayed(taken.found)
    except StoreBusyError:
        raise store_busy() from None
    except Problem as p:
        if p.raw is not None or p.status >= 500 or p.status == 429 or p.code in KEY_CODES:
            raise
        try:
            found = await keys.record(
                scope, key.value, key.request_hash, p.status, p.body(ctx.instance, ctx.lang)
            )
        except StoreBusyError:
            raise store_busy() from None
        if found is None:
            raise
        return _replayed(found)
    finally:
        svc.in_flight.discard(flight)


def _replayed(found: Found) -> MessageOut:
    """The answer a taken key holds (service.held, for a message)."""
    return held(found, MessageOut)[1]
