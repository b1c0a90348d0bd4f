"""Chat wake-ups: a new message reaches the members' open event streams without a poll (ADR-107).

After a message's append commits, the command side PUBLISHes its chat version on the season's
chat channel (`chat_channel`), on the read side's Redis. Every API process's stream hub
(services/projections/streams.py, one subscriber connection a process) hears it, and each open
ticketed stream of that season then reads the process's folded chat past the last version it
sent (services/projections/stream_chat.py): the payload is a version, never a channel, a seat
or a text (R-15.3). A wake-up is a hint: one lost (Redis down at the publish, a process gone
between its commit and its publish) is made good by the stream's slow safety poll, or by the
next wake-up of the season, which catches up everything past what was sent.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from shared.app.answers.chat_book import ChatDelivered

_WAKE = b"chat:"


def chat_channel(prefix: str, season_id: str) -> str:
    """The pub/sub channel of a season's chat wake-ups (a channel, not a key)."""
    return f"{prefix}:chat:{season_id}"


def wake_payload(version: int) -> bytes:
    return _WAKE + str(version).encode()


def woken(payload: bytes) -> int | None:
    """The chat version a published payload wakes the streams for; None: not a chat wake-up
    (a logged stream message `V-k\\n…` or a rebuild's notice)."""
    if not payload.startswith(_WAKE):
        return None
    digits = payload[len(_WAKE) :]
    return int(digits) if digits.isdigit() else None


def publisher(redis: Any, prefix: str) -> Callable[[ChatDelivered], Awaitable[None]]:
    """The command side's listener (Services.chat_listeners) that wakes the season's streams.

    At most one PUBLISH in flight a season (ADR-126): a message whose season has one in flight
    leaves its version for it and returns; when it is done, the newest version left is
    published, one wake-up for all of them (a stream reads everything past what it sent, so
    the newest is enough). Unhurried, each message is published by its own send, before it
    answers, as before; a flood pays fewer publishes, and each one fewer wakes the members'
    streams. A publish that fails is the send's (logged by it); a version left for it is
    published by the season's next message (a wake-up is a hint: the safety poll)."""
    newest: dict[str, int] = {}  # a season's newest version not published yet
    flying: set[str] = set()  # the seasons with a publish in flight

    async def wake(delivered: ChatDelivered) -> None:
        season_id = delivered.season_id
        newest[season_id] = max(newest.get(season_id, 0), delivered.message_id)
        if season_id in flying:
            return
        flying.add(season_id)
        try:
            while (version := newest.pop(season_id, None)) is not None:
                await redis.publish(chat_channel(prefix, season_id), wake_payload(version))
        finally:
            flying.discard(season_id)

    return wake
