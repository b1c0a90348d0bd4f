"""The events of a season's chat stream (issue 24, ADR-91): not season events, never folded
into a SeasonState (R-15.1: words change no outcome). Each is hashed into the chat chain; a
text is never in one, only its sha256 (`digest`, ADR-92): the text is kept beside it."""

from __future__ import annotations

import msgspec

from shared.domain.event_bounds import Seat, Version


class ChatEvent(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    """Base of every chat event; the tag is the stored type name. `at`: the server instant."""

    at: str


class MessageSent(ChatEvent, frozen=True, tag="message_sent.v1"):
    """A bey's message to a channel (shared.domain.chat): the digest of its text."""

    channel: str
    seat: Seat
    digest: str


class MessageReported(ChatEvent, frozen=True, tag="message_reported.v1"):
    """R-15.2: a bey reports message `message` (its chat version); the optional reason's
    digest (its text beside, seen by ops only)."""

    message: Version  # a chat version
    seat: Seat
    digest: str | None = None


class MessageHidden(ChatEvent, frozen=True, tag="message_hidden.v1"):
    """R-15.2: ops hide a message, with a reason: its channel shows "hidden by moderation"."""

    message: Version  # a chat version
    reason: str
    by: str  # the ops token's fingerprint, never the token


class TextErased(ChatEvent, frozen=True, tag="text_erased.v1"):
    """ADR-92: ops erase an unlawful text kept beside message `message` (its digest stays in
    the chain, so the chain still verifies); the message is hidden too."""

    message: Version  # a chat version
    reason: str
    by: str


class BeyMuted(ChatEvent, frozen=True, tag="bey_muted.v1"):
    """A bey mutes (`on`) or unmutes another for itself: a private act of the muter."""

    seat: Seat
    muted: Seat
    on: bool


AnyChatEvent = MessageSent | MessageReported | MessageHidden | TextErased | BeyMuted
CHAT_EVENT_TYPES: tuple[type[ChatEvent], ...] = AnyChatEvent.__args__
# what an auditor's export and the public export keep whole (moderation acts, R-15.2); the
# others keep their digests only
MODERATION_TYPES = frozenset({"message_reported.v1", "message_hidden.v1", "text_erased.v1"})

_encoder = msgspec.json.Encoder(order="sorted")
_decoder = msgspec.json.Decoder(AnyChatEvent)


def encode_chat(event: ChatEvent) -> bytes:
    return _encoder.encode(event)


def decode_chat(data: bytes) -> AnyChatEvent:
    return _decoder.decode(data)


def tag_of(event: ChatEvent) -> str:
    """The event's type tag (`message_sent.v1`): its struct's configured tag, read from the
    class (msgspec.inspect.type_info builds a whole type description each call)."""
    return str(type(event).__struct_config__.tag)
