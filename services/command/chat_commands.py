"""The chat's use cases (issue 24, R-15.1 … R-15.3): send, list channels, page a channel, move
the last-read marker, report, mute; ops' reports and hide; the moderation acts for auditors.

A message is decided on a fresh read of the season (membership, press mode, the Kurultay's
close) and appended to the season's chat stream (shared.eventstore.chat_log, ADR-91), never to
the season's own stream: it cannot conflict with an order or a Divan. The chat so far is
folded per process (shared.app.answers.chat_book.ChatBooks) and caught up with one read per request.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable

import structlog

from services.command import chat_refusals
from services.command.chat_keyed import ChatIdem
from services.command.chat_schemas import (
    ActOut,
    ActsOut,
    ChannelOut,
    ChannelsOut,
    ChatLineOut,
    ChatReportsOut,
    HiddenOut,
    HideIn,
    MessageIn,
    MessageOut,
    MessagesOut,
    MuteIn,
    MuteOut,
    ReadIn,
    ReadOut,
    ReportedOut,
    ReportIn,
    ReportOut,
)
from services.command.service import Services, load, seat_of, stamp
from shared.app.access.request_auth import BeyClaim
from shared.app.answers.chat_book import Book, ChatDelivered, Message, page, within_limit
from shared.app.http.problems import Problem, store_busy
from shared.domain import chat
from shared.domain import chat_events as ce
from shared.domain.state import SeasonState
from shared.eventstore import StoreBusyError
from shared.eventstore.chat_keys import ChatKey
from shared.eventstore.chat_log import ChatMoved, ChatNew, Seen

log = structlog.get_logger(__name__)
Bey = tuple[SeasonState, int]  # a bey's season state and seat


async def _book(svc: Services, season_id: str) -> Book:
    try:
        return await svc.chats.book(season_id, svc.seasons.store.chat.read)
    except StoreBusyError:
        raise store_busy() from None


async def _current_book(svc: Services, season_id: str) -> tuple[Book, Seen | None]:
    """The season's fold for a send (ADR-126): as it is, no read, when it is at the end this
    process's last append left, with that end (`Seen`) for a strict append, which is refused
    (ChatMoved) if another process appended since; otherwise caught up with one read."""
    seen = svc.seasons.store.chat.head_seen(season_id)
    book = svc.chats.peek(season_id)
    if seen is not None and book is not None and book.version == seen.version:
        return book, seen
    return await _book(svc, season_id), None


async def _append(
    svc: Services,
    season_id: str,
    event: ce.ChatEvent,
    *,
    seat: int | None = None,
    text: str | None = None,
    erases: tuple[int, ...] = (),
    seen: Seen | None = None,
    key: ChatKey | None = None,
) -> int:
    await svc.seasons.refuse_audit_copy(season_id)  # read-only as its own stream (ADR-58)
    new = ChatNew(
        event_id=uuid.uuid4(),
        type=ce.tag_of(event),
        data=ce.encode_chat(event),
        seat=seat,
        text=text,
        erases=erases,
        key=key,
    )
    try:
        (done,) = await svc.seasons.store.chat.append(season_id, [new], seen=seen)
    except StoreBusyError:
        raise store_busy() from None
    svc.chats.added(season_id, [done])
    return done.version


async def _bey(svc: Services, claim: BeyClaim) -> tuple[SeasonState, int, Book]:
    state = (await load(svc, claim.season_id)).state
    seat = seat_of(claim, state)
    return state, seat, await _book(svc, claim.season_id)


async def send(
    svc: Services, claim: BeyClaim, data: MessageIn, idem: ChatIdem | None = None
) -> MessageOut:
    """R-15.1 … R-15.3: a message to the public channel or to chosen beys (a private channel
    of two, a group of 3 … 19); refused with a clear code, nothing appended. Decided on this
    process's fold without a read when no other process can have appended since its last
    append (ADR-126): if one did, nothing is appended and it is decided again after a read.
    `idem`: its Idempotency-Key, recorded with it (services/command/chat_keyed.py)."""
    try:
        return await _send(svc, claim, data, idem, fresh=False)
    except ChatMoved:
        return await _send(svc, claim, data, idem, fresh=True)


async def _send(
    svc: Services, claim: BeyClaim, data: MessageIn, idem: ChatIdem | None, *, fresh: bool
) -> MessageOut:
    state = (await load(svc, claim.season_id)).state
    seat = seat_of(claim, state)
    async with svc.chats.sender(claim.season_id, seat):  # its limit counts the one before
        return await _send_as(svc, claim, data, (state, seat), idem, fresh=fresh)


async def _send_as(
    svc: Services, claim: BeyClaim, data: MessageIn, bey: Bey, idem: ChatIdem | None, *, fresh: bool
) -> MessageOut:
    """`_send` for the bey `(state, seat)`, one of its sends at a time in this process."""
    state, seat = bey
    if fresh:
        book, seen = await _book(svc, claim.season_id), None
    else:
        book, seen = await _current_book(svc, claim.season_id)
    now = svc.clock()
    to: str | list[int] = data.to if isinstance(data.to, str) else list(data.to)
    refusal = chat.recipients_refusal(state, seat, to)
    if refusal is None and not chat.writable(state, now):
        refusal = ("chat_read_only", {})
    if refusal is not None:
        raise chat_refusals.refused(*refusal)
    bad_text = chat.text_refusal(data.text)
    if bad_text is not None:
        raise chat_refusals.text_refused(*bad_text)
    wait = within_limit(book, seat, now)
    if wait is not None:
        raise Problem(429, "chat_rate_limited", retry_after=wait, limit=chat.PER_MINUTE)
    channel = chat.channel_for(seat, to)
    event = ce.MessageSent(
        at=stamp(now), channel=channel, seat=seat, digest=chat.text_digest(data.text)
    )
    key = idem.key_for(channel, event.at) if idem is not None else None
    version = await _append(
        svc, claim.season_id, event, seat=seat, text=data.text, seen=seen, key=key
    )
    log.info("chat.sent", season=claim.season_id, kind=chat.kind_of(channel), id=version)
    humans = chat.human_seats(state)
    others = tuple(s for s in _members(state, channel) if s != seat and s in humans)
    await _tell(svc, ChatDelivered(claim.season_id, version, channel, seat, others))
    return MessageOut(message_id=version, channel_id=channel, at=event.at)


async def _tell(svc: Services, delivered: ChatDelivered) -> None:
    """The notifications seam: every listener hears of the message; one that fails is logged
    and never fails the send (the message is stored)."""
    for listener in svc.chat_listeners:
        try:
            await listener(delivered)
        except Exception as exc:
            log.warning(
                "chat.listener_failed", season=delivered.season_id, error=type(exc).__name__
            )


def _members(state: SeasonState, channel: str) -> list[int]:
    named = chat.members_of(channel)
    return sorted(named) if named is not None else sorted(b.seat for b in state.beys)


async def channels(svc: Services, claim: BeyClaim) -> ChannelsOut:
    """The calling bey's channels with its unread counts (R-15.3: its own channels only)."""
    state, seat, book = await _bey(svc, claim)
    marks = await _marks(svc, claim.season_id, seat)
    press = chat.press_mode(state)
    names = book.channels_of(seat) if press != "none" else []
    out = []
    for name in names:
        read_to = marks.get(name, 0)
        shown = book.visible_to(seat, name)
        out.append(
            ChannelOut(
                channel_id=name,
                kind=chat.kind_of(name),
                members=_members(state, name),
                unread=book.unread(seat, name, read_to),
                read_to=read_to,
                last_message_id=shown[-1].id if shown else None,
            )
        )
    return ChannelsOut(
        season_id=claim.season_id,
        press=press,
        writable=chat.writable(state, svc.clock()),
        muted=sorted(book.mutes.get(seat, set())),
        channels=out,
    )


async def _marks(svc: Services, season_id: str, seat: int) -> dict[str, int]:
    try:
        return await svc.seasons.store.chat.marks(season_id, seat)
    except StoreBusyError:
        raise store_busy() from None


def line_of(m: Message, *, ops: bool = False) -> ChatLineOut:
    hidden = m.hidden is not None
    text = m.text if (ops or not hidden) else None
    return ChatLineOut(
        message_id=m.id,
        kind="message",
        seat=m.seat,
        at=stamp(m.at),
        text=text,
        hidden=hidden,
    )


def _member_or_404(state: SeasonState, seat: int, channel_id: str) -> None:
    if not chat.member(state, seat, channel_id) or chat.press_mode(state) == "none":
        raise Problem(404, "channel_not_found")


async def messages(
    svc: Services, claim: BeyClaim, channel_id: str, before: int | None, limit: int
) -> MessagesOut:
    """A page of a channel, newest first; 404 `channel_not_found` for a channel the bey is not
    a member of (whether it exists is not said: R-15.3)."""
    state, seat, book = await _bey(svc, claim)
    _member_or_404(state, seat, channel_id)
    shown = page(book.visible_to(seat, channel_id), before, limit + 1)
    lines = [line_of(m) for m in shown[:limit]]
    if chat.kind_of(channel_id) == "private" and shown:
        lines = await _with_system(svc, lines, claim.season_id, channel_id, before is None)
    return MessagesOut(
        channel_id=channel_id,
        messages=lines,
        next_before=shown[limit - 1].id if len(shown) > limit else None,
    )


async def _with_system(
    svc: Services, lines: list[ChatLineOut], season_id: str, channel_id: str, newest_page: bool
) -> list[ChatLineOut]:
    """The system lines of the pair between the page's oldest line and its newest (the newest
    page: every one since the oldest line), beside the messages."""
    a, b = sorted(chat.members_of(channel_id) or ())
    try:
        after = await svc.seasons.store.read_stream(season_id, svc.chat_system.version(season_id))
    except StoreBusyError:
        raise store_busy() from None
    svc.chat_system.catch_up(season_id, after)
    system = svc.chat_system.of(season_id, a, b)
    newest, oldest = lines[0].at, lines[-1].at
    extra = [s for s in system if oldest <= s.at and (newest_page or s.at <= newest)]
    return sorted([*lines, *extra], key=lambda x: (x.at, x.message_id), reverse=True)


async def read(svc: Services, claim: BeyClaim, channel_id: str, data: ReadIn) -> ReadOut:
    """The bey's last-read marker of a channel moves forward (never back), durably."""
    state, seat, book = await _bey(svc, claim)
    _member_or_404(state, seat, channel_id)
    up_to = min(data.read_to, book.version)
    await svc.seasons.refuse_audit_copy(claim.season_id)  # a write beside the copy (ADR-126)
    try:
        read_to = await svc.seasons.store.chat.mark(claim.season_id, seat, channel_id, up_to)
    except StoreBusyError:
        raise store_busy() from None
    return ReadOut(channel_id, read_to, book.unread(seat, channel_id, read_to))


def _visible_message(state: SeasonState, seat: int, book: Book, message_id: int) -> Message:
    m = book.messages.get(message_id)
    if m is None or not chat.member(state, seat, m.channel):
        raise Problem(404, "message_not_found")
    return m


async def report(svc: Services, claim: BeyClaim, message_id: int, data: ReportIn) -> ReportOut:
    """R-15.2: a bey reports a message of one of its channels, with an optional reason."""
    state, seat, book = await _bey(svc, claim)
    m = _visible_message(state, seat, book, message_id)
    reason = data.reason or None
    bad_reason = chat.text_refusal(reason) if reason is not None else None
    if bad_reason is not None:
        raise chat_refusals.text_refused(*bad_reason)
    event = ce.MessageReported(
        at=stamp(svc.clock()),
        message=m.id,
        seat=seat,
        digest=chat.text_digest(reason) if reason else None,
    )
    version = await _append(svc, claim.season_id, event, seat=seat, text=reason)
    log.info("chat.reported", season=claim.season_id, message=m.id, report=version)
    return ReportOut(report_id=version, message_id=m.id)


async def mute(svc: Services, claim: BeyClaim, other: int, data: MuteIn) -> MuteOut:
    """A bey mutes (or unmutes) another bey for itself: that bey's messages are not shown to
    it, in pages, unread counts and on the stream."""
    state, seat, book = await _bey(svc, claim)
    if other == seat or state.bey(other) is None:
        raise Problem(422, "bad_recipients")
    if (other in book.mutes.get(seat, set())) != data.muted:
        event = ce.BeyMuted(at=stamp(svc.clock()), seat=seat, muted=other, on=data.muted)
        await _append(svc, claim.season_id, event, seat=seat)
    return MuteOut(seat=other, muted=data.muted)


# --- ops and auditors -------------------------------------------------------------------------


async def _season_book(svc: Services, season_id: str) -> tuple[SeasonState, Book]:
    state = (await load(svc, season_id)).state
    return state, await _book(svc, season_id)


async def reports(svc: Services, season_id: str) -> ChatReportsOut:
    """R-15.2: every reported message with two lines before and after it in its channel."""
    _, book = await _season_book(svc, season_id)
    out = []
    for r in book.reports:
        m = book.messages[r.message]
        lines = book.visible_to(None, m.channel)
        at = next(i for i, x in enumerate(lines) if x.id == m.id)
        context = [line_of(x, ops=True) for x in lines[max(0, at - 2) : at + 3]]
        out.append(
            ReportedOut(
                report_id=r.id,
                message_id=m.id,
                channel_id=m.channel,
                reported_by=r.seat,
                reason=r.reason,
                at=stamp(r.at),
                hidden=m.hidden is not None,
                context=context,
            )
        )
    return ChatReportsOut(season_id=season_id, reports=out)


async def hide(svc: Services, season_id: str, message_id: int, data: HideIn, by: str) -> HiddenOut:
    """R-15.2: ops hide a message with a reason (an event; nothing leaves the log), and with
    `erase_text` erase its text kept beside the event (ADR-92: the chain still verifies). The
    reason is refused as a report's is, 422 `chat_text` (`limit`, `length` when too long), but
    one with nothing visible in it, which is 422 `reason_required` (ADR-165)."""
    _, book = await _season_book(svc, season_id)
    m = book.messages.get(message_id)
    if m is None:
        raise Problem(404, "message_not_found")
    refused = chat.text_refusal(data.reason)
    if refused is not None and refused[0] == "blank":
        raise Problem(422, "reason_required")
    if refused is not None:  # too long, a character, too many lines or marks (ADR-165)
        raise chat_refusals.text_refused(*refused)
    at = stamp(svc.clock())
    event: ce.ChatEvent
    if data.erase_text:
        event = ce.TextErased(at=at, message=m.id, reason=data.reason, by=by)
        version = await _append(svc, season_id, event, erases=(m.id,))
    else:
        event = ce.MessageHidden(at=at, message=m.id, reason=data.reason, by=by)
        version = await _append(svc, season_id, event)
    log.info("chat.moderated", season=season_id, message=m.id, erased=data.erase_text, by=by)
    return HiddenOut(act_id=version, message_id=m.id, erased=data.erase_text)


async def acts(svc: Services, season_id: str) -> ActsOut:
    """R-15.2: who reported, what was done, when; never a text nor a reason (R-15.3)."""
    _, book = await _season_book(svc, season_id)
    kind: Callable[[int], str] = lambda v: chat.kind_of(book.messages[v].channel)  # noqa: E731
    return ActsOut(
        season_id=season_id,
        acts=[
            ActOut(
                act_id=a.id,
                act=a.act,  # type: ignore[arg-type]
                message_id=a.message,
                channel_kind=kind(a.message),  # type: ignore[arg-type]
                by=a.by,
                at=stamp(a.at),
            )
            for a in book.acts
        ],
    )
