"""The chat source of a bey's ticketed event stream (issue 24, ADR-94).

A ticketed stream carries, besides the season's messages, a `chat_message` notice for each new
message in a channel the bey is a member of: its channel and its id, never its text (the client
fetches the page, `GET …/channels/{channel_id}/messages`, which applies every read rule). A
muted bey's messages are not announced to its muter (R-15.2), nor after an unmute those sent
while it was muted (they come back in pages and unread counts at once; the stream announces
only what is new: ADR-126); the public stream carries no chat.

Chat lives in the command side's PostgreSQL stream (`chat_events`, ADR-91), not in the
projection: the stream reads it past the last chat version it sent, through this process's
folded `ChatBooks`, once subscribed, then whenever the season's chat channel wakes it
(shared.app.messaging.chat_wakeup: the command side publishes each message's version after its
commit; ADR-107): no read when the fold holds that version already, one read for all the streams of
the process woken together. A wake-up is a hint: the stream also reads when it was silent for
`POLL_S` (its keep-alive), so a lost one delays a notice, never drops it. An id is `V-k.cN`:
the season position and the last chat version sent (`.c0` left out, so an id without it is
chat version 0).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import cast

from litestar.response import ServerSentEventMessage

from services.projections.context import QueryContext
from services.projections.query_answers import _enc
from services.projections.streamlog import STEP
from shared.app.answers.chat_book import Book
from shared.app.messaging.chat_wakeup import chat_channel, woken
from shared.domain import chat

POLL_S = 15.0  # a ticketed stream silent this long reads the chat anyway (a lost wake-up)
_CHAT = re.compile(r"(.*)\.c(0|[1-9][0-9]{0,15})")


def split_id(text: str) -> tuple[str, int | None]:
    """A Last-Event-ID's season part and its chat version (None when it names none)."""
    m = _CHAT.fullmatch(text.strip())
    if m is None:
        return text, None
    return m.group(1), int(m.group(2))


def with_chat(season_part: str, sent: int) -> str:
    """The id of a frame: the season position, then `.cN` unless no chat was sent yet."""
    return season_part if sent == 0 else f"{season_part}.c{sent}"


def season_text(score: int) -> str:
    """A log score as the `V-k` position it is."""
    return f"{score // STEP}-{score % STEP}"


@dataclass
class ChatFeed:
    """The chat messages one bey is told of, past `sent` (the last chat version sent)."""

    seat: int
    sent: int
    book: Callable[[int | None], Awaitable[Book]]  # the season's, holding at least a version
    channel: str = ""  # the season's chat wake-ups (shared.app.messaging.chat_wakeup)
    peek: Callable[[], Book | None] = lambda: None  # the season's fold as it is, no read
    checked: int = 0  # the versions up to this one hold nothing for the bey past `sent`
    # what `wants` found for the wake-up it let through: (the fold's version, the messages)
    _found: tuple[int, list[tuple[int, str]]] | None = field(default=None, repr=False)

    def wants(self, payload: bytes) -> bool:
        """Whether a published payload should wake the bey's stream (the hub asks before it
        queues one: services/projections/streams.py). A chat wake-up whose version this
        process has folded already wakes it only if a message past what was sent is in one of
        the bey's channels: a private or group message wakes its members' streams, not the
        season's other ones. Anything else, or a version not folded here yet, wakes it. What
        the scan found is kept for the `pending` it wakes (one scan a wake-up, not two)."""
        version = woken(payload)
        if version is None:
            return True
        b = self.peek()
        if b is None or b.version < version:
            return True
        new = self._new(b)
        if new:
            self._found = (b.version, new)
            return True
        self.checked = b.version
        return False

    def _new(self, b: Book) -> list[tuple[int, str]]:
        """The messages of the bey's channels past `sent` (and past `checked`), oldest
        first, left out those of a sender the bey mutes now or muted when it was sent (an
        unmute announces nothing of the muted time: ADR-126)."""
        muted = b.mutes.get(self.seat, set())
        new = []
        for version in reversed(b.messages):
            if version <= self.sent or version <= self.checked:
                break
            m = b.messages[version]
            if (
                m.seat not in muted
                and self.seat not in m.muted_by
                and _member(self.seat, m.channel)
            ):
                new.append((version, m.channel))
        new.reverse()
        return new

    async def pending(self, at_least: int | None = None) -> list[tuple[int, str]]:
        """The new messages for the bey, oldest first: (chat version, notice JSON); `sent`
        moves past them. `at_least`: the version a wake-up named (None: read the log). The
        scan `wants` made for this wake-up is used when the fold has not moved since."""
        b = await self.book(at_least)
        found, self._found = self._found, None
        new = found[1] if found is not None and found[0] == b.version else self._new(b)
        new = [(v, c) for v, c in new if v > self.sent]  # a resume may have moved `sent` on
        if new:
            self.sent = new[-1][0]
        return [(v, notice(v, c)) for v, c in new]


_NOTICES: dict[tuple[int, str], str] = {}  # (chat version, channel) -> its notice's JSON
_NOTICES_KEPT = 4096


def notice(version: int, channel: str) -> str:
    """A message's `chat_message` notice, encoded once for all the members told of it (the
    same for every member: the channel and the id, never a text; a function of these two
    alone, so seasons may share an entry)."""
    key = (version, channel)
    text = _NOTICES.get(key)
    if text is None:
        if len(_NOTICES) >= _NOTICES_KEPT:
            _NOTICES.clear()
        text = _NOTICES[key] = _enc.encode(
            {"type": "chat_message", "channel_id": channel, "message_id": version}
        ).decode()
    return text


def _member(seat: int, channel: str) -> bool:
    if channel == chat.PUBLIC:
        return True
    members = chat.members_of(channel)
    return members is not None and seat in members


async def feed(
    c: QueryContext, season_id: str, seat: int | None, chat_after: int | None
) -> ChatFeed | None:
    """The chat source of a ticketed stream (`seat`), past `chat_after` (None: the present)."""
    if seat is None or c.chat is None:
        return None

    async def book(at_least: int | None) -> Book:
        return await c.chats.book(season_id, c.chat.read, at_least=at_least)

    start = chat_after if chat_after is not None else (await book(None)).version
    return ChatFeed(
        seat, start, book, chat_channel(c.prefix, season_id), lambda: c.chats.peek(season_id)
    )


def wake_ups(batch: list[bytes]) -> tuple[int | None, list[bytes]]:
    """A published batch split: the newest chat version its wake-ups name (None: none), and
    the stream's own messages (shared.app.messaging.chat_wakeup)."""
    newest: int | None = None
    rest = []
    for raw in batch:
        version = woken(raw)
        if version is None:
            rest.append(raw)
        else:
            newest = max(version, newest or 0)
    return newest, rest


class Notice(ServerSentEventMessage):
    """A chat notice's frame, its bytes written directly: its id (no line break: `V-k.cN`),
    its event and its one line of JSON (no line break either: msgspec escapes them), as
    `ServerSentEventMessage.encode` would write them, without its buffer and expressions."""

    def encode(self) -> bytes:
        data = cast("str", self.data)  # a notice's JSON (stream_chat.notice)
        return f"id: {self.id}\r\nevent: chat_message\r\ndata: {data}\r\n\r\n".encode()


class Notices(ServerSentEventMessage):
    """Several chat notices found by one look, written in one chunk (one ASGI send, one
    socket write): the same bytes as their frames one after the other (ADR-126)."""

    def __init__(self, frames: list[Notice]) -> None:
        super().__init__(data=None, event="chat_message", id=frames[-1].id)
        self.frames = frames

    def encode(self) -> bytes:
        return b"".join(f.encode() for f in self.frames)


def chat_frames(said: list[tuple[int, str]], sent: int) -> list[ServerSentEventMessage]:
    """Chat notices as frames: each id the season position sent and its chat version (the
    notice's JSON is encoded once for every member: stream_chat.notice); several at once (a
    stream behind a flood) go as one chunk."""
    at = season_text(sent)
    frames = [Notice(data=data, event="chat_message", id=with_chat(at, v)) for v, data in said]
    return [Notices(frames)] if len(frames) > 1 else list(frames)
