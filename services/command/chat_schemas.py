"""Request and response bodies of the chat (issue 24, R-15): msgspec, unknown fields refused."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from shared.app.http.bounds import Message, Seat
from shared.domain import chat

Strict = {"forbid_unknown_fields": True, "frozen": True}
# No `max_length` in the schema: the text check (chat.text_refusal) is the one rule and answers
# any text too long with 422 `chat_text` (limit, length); a bound here answered `invalid_body`
# past it instead. The body's own bound (64 KiB, 413) caps what is read; the published schema
# still says the limit (`maxLength`).
ChatText = Annotated[
    str,
    msgspec.Meta(
        extra_json_schema={"maxLength": chat.MAX_CHARS},
        description=f"plain text, 1 … {chat.MAX_CHARS} characters, at most {chat.MAX_LINES} "
        "lines (`\\n`); no other control, format or direction character; never markup",
        examples=["Selam, Ankara'ya dokunma, ben de Konya'ya dokunmam."],
    ),
]
Reason = Annotated[str, msgspec.Meta(extra_json_schema={"maxLength": chat.MAX_CHARS})]
Recipients = Annotated[
    Literal["all"] | Annotated[list[Seat], msgspec.Meta(min_length=1, max_length=19)],
    msgspec.Meta(description='"all" (the public channel), or the seats besides the sender'),
]


class MessageIn(msgspec.Struct, **Strict):
    to: Recipients
    text: ChatText


class MessageOut(msgspec.Struct, frozen=True):
    message_id: int
    channel_id: str
    at: str


class ChannelOut(msgspec.Struct, frozen=True):
    channel_id: str
    kind: Literal["public", "private", "group"]
    members: list[int]  # every seat of the season for the public channel
    unread: int
    read_to: int
    last_message_id: int | None


class ChannelsOut(msgspec.Struct, frozen=True):
    season_id: str
    press: Literal["full", "public", "none"]
    writable: bool
    muted: list[int]
    channels: list[ChannelOut]


class ChatLineOut(msgspec.Struct, frozen=True):
    """A message (`kind` message) or a system line (`kind` system: a treaty between the
    channel's two beys offered, made, ended or broken; no seat). A hidden message has no
    text and `hidden` true ("hidden by moderation")."""

    message_id: int
    kind: Literal["message", "system"]
    seat: int | None
    at: str
    text: str | None
    hidden: bool = False


class MessagesOut(msgspec.Struct, frozen=True):
    channel_id: str
    messages: list[ChatLineOut]
    next_before: int | None  # pass as `before` for the next (older) page


class ReadIn(msgspec.Struct, **Strict):
    read_to: Message


class ReadOut(msgspec.Struct, frozen=True):
    channel_id: str
    read_to: int
    unread: int


class ReportIn(msgspec.Struct, **Strict):
    reason: Reason | None = None


class ReportOut(msgspec.Struct, frozen=True):
    report_id: int
    message_id: int


class MuteIn(msgspec.Struct, **Strict):
    muted: bool


class MuteOut(msgspec.Struct, frozen=True):
    seat: int
    muted: bool


class HideIn(msgspec.Struct, **Strict):
    reason: Reason
    erase_text: bool = False


class HiddenOut(msgspec.Struct, frozen=True):
    act_id: int
    message_id: int
    erased: bool


class ReportedOut(msgspec.Struct, frozen=True):
    """A reported message for ops, with its context (the lines around it in its channel)."""

    report_id: int
    message_id: int
    channel_id: str
    reported_by: int
    reason: str | None
    at: str
    hidden: bool
    context: list[ChatLineOut]


class ChatReportsOut(msgspec.Struct, frozen=True):
    season_id: str
    reports: list[ReportedOut]


class ActOut(msgspec.Struct, frozen=True):
    act_id: int
    act: Literal["reported", "hidden", "erased"]
    message_id: int
    channel_kind: Literal["public", "private", "group"]
    by: str
    at: str


class ActsOut(msgspec.Struct, frozen=True):
    season_id: str
    acts: list[ActOut]
