"""A season's chat stream folded into what its readers ask (issue 24): channels, pages of lines,
unread counts, mutes, reports and moderation acts. Pure over the records; the caller keeps one
per season and feeds it the records past its version (`ChatBooks`).

Who sees what (R-15.3): a line's text only to its channel's members (and ops); a hidden
message's text to nobody but ops ("hidden by moderation"); an erased text to nobody; a muted
bey's messages not to its muter (on the stream too).
"""

from __future__ import annotations

import asyncio
import bisect
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

import msgspec

from shared.domain import chat
from shared.domain.chat_events import (
    BeyMuted,
    MessageHidden,
    MessageReported,
    MessageSent,
    TextErased,
    decode_chat,
)
from shared.eventstore.chat_log import ChatRecord

HIDDEN = "hidden by moderation"


class ChatDelivered(msgspec.Struct, frozen=True):
    """What a listener (notifications) is told of a new message: where, from whom, to whom
    (the channel's other members), never the text (R-15.3)."""

    season_id: str
    message_id: int
    channel_id: str
    sender: int
    recipients: tuple[int, ...]


@dataclass
class Message:
    id: int  # its chat version
    channel: str
    seat: int
    at: datetime
    digest: str
    text: str | None
    hidden: str | None = None  # the moderation reason (ops only)
    erased: bool = False
    # the seats that had muted the sender when it was sent: never announced to them, even
    # after an unmute (ADR-126; the pages and unread counts follow the mutes as they are)
    muted_by: frozenset[int] = frozenset()


@dataclass
class Report:
    id: int  # the report's chat version
    message: int
    seat: int
    at: datetime
    reason: str | None


@dataclass
class Act:
    """A moderation act as auditors see it (R-15.2): what, on which message, when, by whom."""

    id: int
    act: str  # "reported" | "hidden" | "erased"
    message: int
    at: datetime
    by: str  # a seat ("seat 3") for a report, the ops fingerprint for a hide or erase


@dataclass
class Book:
    version: int = 0
    messages: dict[int, Message] = field(default_factory=dict)
    channels: dict[str, list[int]] = field(default_factory=dict)
    mutes: dict[int, set[int]] = field(default_factory=dict)
    reports: list[Report] = field(default_factory=list)
    acts: list[Act] = field(default_factory=list)
    # seat -> the instants of its newest chat.PER_MINUTE messages, oldest first: the
    # per-minute limit's whole memory (within_limit reads it, never the season's chat)
    recent: dict[int, list[datetime]] = field(default_factory=dict)

    def add(self, r: ChatRecord) -> None:
        event = decode_chat(r.data)
        at = datetime.fromisoformat(event.at)  # the command edge's instant, as decided
        match event:
            case MessageSent():
                m = Message(r.version, event.channel, event.seat, at, event.digest, r.text)
                m.muted_by = frozenset(s for s, ms in self.mutes.items() if event.seat in ms)
                self.messages[r.version] = m
                self.channels.setdefault(event.channel, []).append(r.version)
                self._sent(event.seat, at)
            case MessageReported():
                self.reports.append(Report(r.version, event.message, event.seat, at, r.text))
                self.acts.append(
                    Act(r.version, "reported", event.message, at, f"seat {event.seat}")
                )
            case MessageHidden() | TextErased():
                target = self.messages.get(event.message)
                erased = isinstance(event, TextErased)
                if target is not None:
                    target.hidden = event.reason
                    if erased:
                        target.erased, target.text = True, None
                act = "erased" if erased else "hidden"
                self.acts.append(Act(r.version, act, event.message, at, event.by))
            case BeyMuted():
                muted = self.mutes.setdefault(event.seat, set())
                (muted.add if event.on else muted.discard)(event.muted)
        self.version = r.version

    def _sent(self, seat: int, at: datetime) -> None:
        """Keep `at` among the seat's newest chat.PER_MINUTE instants (an instant decided in
        another process may come a little out of order: kept sorted)."""
        kept = self.recent.setdefault(seat, [])
        bisect.insort(kept, at)
        if len(kept) > chat.PER_MINUTE:
            del kept[0]

    def visible_to(self, seat: int | None, channel: str) -> list[Message]:
        """The channel's messages `seat` is shown (None: ops), oldest first, muted left out."""
        muted = self.mutes.get(seat, set()) if seat is not None else set()
        return [
            self.messages[v]
            for v in self.channels.get(channel, [])
            if self.messages[v].seat not in muted
        ]

    def unread(self, seat: int, channel: str, read_to: int) -> int:
        return sum(1 for m in self.visible_to(seat, channel) if m.id > read_to and m.seat != seat)

    def channels_of(self, seat: int) -> list[str]:
        """The channels `seat` is a member of that have a message (the public one always)."""
        mine = [
            c
            for c in self.channels
            if c != chat.PUBLIC and seat in (chat.members_of(c) or frozenset())
        ]
        return [chat.PUBLIC, *sorted(mine)]


def page(lines: Sequence[Message], before: int | None, limit: int) -> list[Message]:
    """Newest first: the `limit` lines before message `before` (None: the newest)."""
    older = [m for m in lines if before is None or m.id < before]
    return list(reversed(older[-limit:])) if limit > 0 else []


def within_limit(book: Book, seat: int, now: datetime) -> int | None:
    """None, or the seconds until `seat` may send again (chat.PER_MINUTE in any 60 s).

    O(1) in the season's chat: only the seat's newest PER_MINUTE instants can decide it (the
    limit is reached when the oldest of them is within the window)."""
    window = timedelta(seconds=60)
    kept = book.recent.get(seat, [])
    if len(kept) < chat.PER_MINUTE or kept[-chat.PER_MINUTE] <= now - window:
        return None
    oldest = kept[-chat.PER_MINUTE]
    return max(1, int((oldest + window - now).total_seconds()) + 1)


class ChatBooks:
    """One Book per season in this process, caught up from the chat log before each use."""

    def __init__(self) -> None:
        self._books: dict[str, Book] = {}
        self._woken: dict[str, asyncio.Lock] = {}
        self._senders: dict[tuple[str, int], asyncio.Lock] = {}

    def sender(self, season_id: str, seat: int) -> asyncio.Lock:
        """One bey's sends in this process go one at a time: each is decided, its per-minute
        limit included, on a fold that holds the one before it (sent all at once, 30 were 29
        taken, each decided before the others were appended)."""
        return self._senders.setdefault((season_id, seat), asyncio.Lock())

    async def book(
        self,
        season_id: str,
        read: Callable[[str, int], Awaitable[list[ChatRecord]]],
        *,
        at_least: int | None = None,
    ) -> Book:
        """The season's book caught up with one read; with `at_least` (a wake-up's version:
        ADR-107) no read when it holds that version already, and the streams woken together
        share one read."""
        book = self._books.setdefault(season_id, Book())
        if at_least is None:
            self.added(season_id, await read(season_id, book.version))
            return book
        if book.version >= at_least:  # folded here already (sent here, or read): no lock
            return book
        async with self._woken.setdefault(season_id, asyncio.Lock()):
            if book.version < at_least:
                self.added(season_id, await read(season_id, book.version))
        return book

    def peek(self, season_id: str) -> Book | None:
        """The season's book as folded now (None: none yet), no read."""
        return self._books.get(season_id)

    def added(self, season_id: str, records: Sequence[ChatRecord]) -> None:
        """Fold records into the season's book (those that follow its version: a record
        appended by this process is folded at once, no read needed)."""
        book = self._books.setdefault(season_id, Book())
        for r in records:
            if r.version == book.version + 1:
                book.add(r)


def record_view(r: ChatRecord) -> dict[str, object]:
    """A chat record's envelope as an export line (without its text)."""
    return {
        "version": r.version,
        "event_id": str(r.event_id),
        "type": r.type,
        "data": msgspec.json.decode(r.data),
        "recorded_at": r.recorded_at.isoformat(),
        "prev_hash": r.prev_hash.hex(),
        "hash": r.hash.hex(),
    }
