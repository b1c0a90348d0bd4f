"""A season's live events over Server-Sent Events (docs/api.md): the ticket and the stream."""

from __future__ import annotations

import weakref
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Annotated, Any, Union, cast

import msgspec
import structlog
from litestar import Request, Response, post
from litestar.background_tasks import BackgroundTask
from litestar.openapi import ResponseSpec
from litestar.openapi.spec import Discriminator, Example, OpenAPIResponse, Operation, Schema
from litestar.params import HeaderParameter, Parameter, QueryParameter
from litestar.response import ServerSentEventMessage
from redis.exceptions import RedisError

from services.projections import stream_chat, stream_tickets, streamlog
from services.projections.context import ctx, season_read
from services.projections.keys import Keys, channel
from services.projections.query_answers import _enc
from services.projections.query_examples import EXAMPLES
from services.projections.read_route import read
from services.projections.responses import (
    TicketOut,
)
from services.projections.sse_frames import Frames, give_back
from services.projections.stream_chat import ChatFeed, chat_frames, with_chat
from services.projections.stream_tickets import TICKET_TTL_S
from services.projections.streamlog import STEP
from services.projections.streams import RETRY_AFTER_S as STREAM_RETRY_AFTER_S
from services.projections.streams import Quiet, StreamRefused, Subscription
from shared.app.http.client_address import client_address
from shared.app.http.openapi import STREAM
from shared.app.http.problems import Problem

log = structlog.get_logger(__name__)

KEEP_ALIVE_S = 15.0  # a comment when nothing else was sent for this long


@read(
    "/seasons/{season_id:str}/tickets",
    who="bey",
    method=post,
    status_code=201,
    summary="A one-use ticket for the private stream",
    what="201 `{ticket, expires_in: 30}`: single use",
    examples=EXAMPLES["ticket"],
)
async def ticket(request: Request[Any, Any, Any], season_id: str, seat: int) -> TicketOut:
    """Browsers authenticate their event stream with this, never with the token in a URL
    (bound to this token: services/projections/stream_tickets.py)."""
    return TicketOut(await stream_tickets.issue(request, season_id, seat), TICKET_TTL_S)


@dataclass
class _StreamOperation(Operation):
    """The event stream's operation, with its event names and payloads as `x-events`."""

    x_events: dict[str, object] = field(
        default_factory=streamlog.schemas, metadata={"alias": "x-events"}
    )

    def __post_init__(self) -> None:
        """The 200 answer is one of the stream's messages, told apart by `event` (issue 20)."""
        ok = (self.responses or {}).get("200")
        media = (ok.content or {}).get(STREAM_MEDIA) if isinstance(ok, OpenAPIResponse) else None
        if media is not None and isinstance(media.schema, Schema):
            media.schema.discriminator = Discriminator(
                property_name="event",
                mapping={
                    name: f"#/components/schemas/{message.__name__}"
                    for name, message in streamlog.MESSAGES.items()
                },
            )


STREAM_MEDIA = "text/event-stream"


# (typed `type[Any]` as ResponseSpec asks: a union of Structs is a type to Litestar)
SEASON_EVENT = cast("type[Any]", Union.__getitem__(tuple(streamlog.MESSAGES.values())))


STREAM_DESCRIPTION = """\
Server-sent events (text/event-stream) of one season, public; with `?ticket=` (from
`POST /seasons/{id}/tickets`: single use, 30 s) also the bey's own. Each message has an
`event:` name, an `id:` and one `data:` line of JSON; `x-events` gives every name's payload,
and the 200 answer's schema is one message (`<Event>Message`), told apart by `event`:

- `ready` (first, once subscribed; data `{"channels": 1|2}`): its id is the position the stream
  delivers everything after;
- `chat_message` `{type, channel_id, message_id}` (with a ticket only): a new message in one of
  the bey's chat channels, never its text (read the channel's page); never a muted bey's;
- `divan_report` `{type, divan}`, `betrayals` `{type, divan, betrayals: [{traitor, victim,
  province}]}`, `private_report` `{type, divan}` (the bey's own: with a ticket only),
  `offer_received` `{type, divan, from, kind}` (the bey's own: an offer was made to it, to be
  settled at Divan `divan`), `offer_withdrawn` `{type, divan, from}` (the bey's own: an offer
  made to it was withdrawn), `offer_answered` `{type, divan, to, answer}` (the bey's own: an
  offer it made to `to` was `accepted` or `rejected` before Divan `divan`, or `withdrawn` by
  itself, told to its other devices),
  `kurultay_report` `{type}`, then `season_over` `{type, han}`, after which the stream ends.

An id is `V-k`: V the season version the message was projected at (the `version` of the reads),
k its place among that version's messages. On reconnecting, EventSource sends the last id it saw
as `Last-Event-ID`; the stream then sends every message after it, exactly once, before the new
ones. Once chat was sent, a ticketed stream's ids are `V-k.cN` (N: the last chat version sent;
a bare `V-k` or `V` is N = 0), resuming both sources. A new EventSource (a ticket is single
use) passes it as `?last_event_id=`; a season
version `V` is a position too (everything after version V: open the stream with the `version`
of a read). Without either the stream starts at the season's current version. A season that is
over with nothing left to send answers 204 (EventSource then stops reconnecting). Comments
(`: keep-alive`) come every 15 s when nothing else does. Read models rebuilt (after a flush): an
open stream sends what the rebuilt log holds past its last id (nothing is skipped), or ends if
it cannot read it, and EventSource resumes with its `Last-Event-ID`.
"""


@read(
    "/seasons/{season_id:str}/events",
    who="anyone",
    callers="anyone; with a ticket also the bey's own",
    summary="Server-sent events: Divan reports, betrayals, season (resumable)",
    what="server-sent events, resumable (`?ticket=…`, `?last_event_id=…`; "
    "[below](#the-event-stream)): `ready`, `divan_report`, `betrayals`, `private_report`, "
    "`offer_received`, `offer_withdrawn`, `offer_answered`, `kurultay_report`, then "
    "`season_over` and the end",
    examples=EXAMPLES["events"],
    description=STREAM_DESCRIPTION,
    refusals=[STREAM, "bad_last_event_id", "invalid_parameter"],
    responses={
        200: ResponseSpec(
            SEASON_EVENT,
            media_type=STREAM_MEDIA,
            description="The stream: `event:`, `id:` and `data:` lines per message; the schema "
            "is one message (`data` is its line of JSON), `event` tells them apart (x-events)",
            generate_examples=False,
            examples=[
                Example(
                    summary="ready, then a Divan's report",
                    value='event: ready\nid: 30\ndata: {"channels":1}\n\n'
                    'event: divan_report\nid: 59-0\ndata: {"divan":1,"type":"divan_report"}\n\n',
                )
            ],
        ),
        204: ResponseSpec(
            None,
            description="The season is over and nothing is left to send after the position",
        ),
    },
    media_type="text/event-stream",
    operation_class=_StreamOperation,
)
async def events(
    request: Request[Any, Any, Any],
    season_id: str,
    ticket: Annotated[
        str | None,
        Parameter(description="single-use ticket (POST …/tickets): adds the bey's own events"),
    ] = None,
    last_event_id: Annotated[
        str | None,
        HeaderParameter(
            name="Last-Event-ID",
            description="resume after this id (`V-k`, `V-k.cN`) or season version (`V`); sent by "
            "EventSource when it reconnects",
            required=False,
        ),
    ] = None,
    last_event_id_query: Annotated[
        str | None,
        QueryParameter(
            name="last_event_id",
            description="the same as Last-Event-ID, for a new EventSource (the header wins)",
            required=False,
        ),
    ] = None,
) -> Response[Any]:
    """Public announcements; with `?ticket=` also the bey's private ones (STREAM_DESCRIPTION)."""
    c = ctx(request)
    meta, _ = await season_read(request, season_id, lambda k, p: None)
    given = last_event_id if last_event_id is not None else last_event_id_query
    after, since, chat_after = _resume_point(meta, given)
    client = client_address(cast("dict[str, Any]", request.scope), c.trusted)
    seat: int | None = None
    holds: stream_tickets.Holds | None = None
    try:
        c.streams.admit(client)  # before the ticket is used up
        channels = [channel(c.prefix, season_id)]
        if ticket:
            seat, holds = await stream_tickets.use(request, season_id, ticket)
            channels.append(channel(c.prefix, season_id, seat))
        feed = await stream_chat.feed(c, season_id, seat, chat_after)
        if meta["phase"] == "over":
            # Nothing more will be published: the log is all there is, no subscription needed.
            backlog = await _backlog(request, season_id, seat, after)
            start = feed.sent if feed is not None else 0
            said = await feed.pending() if feed is not None else []
            if not backlog and not said:
                return Response(None, status_code=204)  # nothing will come: EventSource stops
            ready = _ready(len(channels), with_chat(since, start))
            chat_sent = feed.sent if feed is not None else 0
            return Frames(_replayed(ready, (after, chat_sent), backlog, said))
        sub = await c.streams.open(client, [*channels, *([feed.channel] if feed else [])])
        if feed is not None:
            sub.wanted = feed.wants  # a chat wake-up wakes the stream of its members only
    except StreamRefused as exc:
        raise Problem(
            exc.status, exc.key, retry_after=STREAM_RETRY_AFTER_S, params=exc.params
        ) from None
    return await _live(request, season_id, seat, (since, after), sub, feed=feed, holds=holds)


async def _live(
    request: Request[Any, Any, Any],
    season_id: str,
    seat: int | None,
    point: tuple[str, int],
    sub: Subscription,
    *,
    feed: ChatFeed | None = None,
    holds: stream_tickets.Holds | None = None,
) -> Frames:
    """The stream of a subscription: the log since `point`, then what is published."""
    since, after = point
    try:
        # Subscribed first, then the log read: whatever is published from now on reaches the
        # subscription, whatever came before is in the log (duplicates are skipped by id).
        backlog = await _backlog(request, season_id, seat, after)
    except BaseException:
        sub.release()
        raise
    stream = _stream(
        sub,
        since,
        after,
        backlog,
        lambda past: _backlog(request, season_id, seat, past),
        feed=feed,
        holds=holds,
    )
    weakref.finalize(stream, sub.release)  # a response that never started still frees its slot
    # … and one that ends before its generator ran to a `finally` (a client gone at once, a
    # HEAD: ADR-61) frees it as the response ends, not when the collector finds the generator
    return Frames(stream, background=BackgroundTask(give_back, sub))


def _resume_point(meta: dict[str, Any], given: str | None) -> tuple[int, str, int | None]:
    """Where a stream starts: after the id or version the client gave, else after the season's
    current version; the `since` its ready frame names; the chat version it resumes after
    (`V-k.cN`; 0 for an id without one, None without an id: the present, ADR-94)."""
    if given is None:
        return meta["version"] * STEP + STEP - 1, str(meta["version"]), None
    season_part, chat_after = stream_chat.split_id(given)
    after = streamlog.position(season_part)
    if after is None:
        raise Problem(400, "bad_last_event_id")
    return after, season_part.strip(), chat_after or 0


async def _backlog(
    request: Request[Any, Any, Any], season_id: str, seat: int | None, after: int
) -> list[tuple[int, str, str]]:
    """The logged messages after `after` (public, and the bey's own), in id order."""

    def fetch(k: Keys, p: Any) -> None:
        p.zrangebyscore(k.stream_log(), f"({after}", "+inf")
        if seat is not None:
            p.zrangebyscore(k.stream_log(seat), f"({after}", "+inf")

    _meta, logs = await season_read(request, season_id, fetch)
    return sorted(streamlog.split(m) for log in logs for m in log)


def _frame(message_id: str, data: str) -> ServerSentEventMessage:
    kind = msgspec.json.decode(data)["type"]
    return ServerSentEventMessage(event=kind, data=data, id=message_id)


def _ready(channels: int, since: str) -> ServerSentEventMessage:
    return ServerSentEventMessage(
        event="ready", data=_enc.encode({"channels": channels}).decode(), id=since
    )


async def _replayed(
    ready: ServerSentEventMessage,
    point: tuple[int, int],
    backlog: list[tuple[int, str, str]],
    said: list[tuple[int, str]],
) -> AsyncIterator[ServerSentEventMessage]:
    """The stream of a season that is over: `ready`, the chat and what the log holds after
    its position (`point`: the season score and the chat version), the end."""
    after, chat_sent = point
    yield ready
    for frame in chat_frames(said, after):
        yield frame
    for _score, message_id, data in backlog:
        yield _frame(with_chat(message_id, chat_sent), data)


Backlog = list[tuple[int, str, str]]  # logged messages: (score, id text, payload text)


async def _stream(
    sub: Subscription,
    since: str,
    after: int,
    backlog: Backlog,
    logged: Callable[[int], Awaitable[Backlog]],
    *,
    feed: ChatFeed | None = None,
    holds: stream_tickets.Holds | None = None,
) -> AsyncIterator[ServerSentEventMessage]:
    """The stream's frames: `ready` once subscribed (its id: the position `since`), what the
    log holds after it, then its channels' messages (from the process's one subscriber,
    services/projections/streams.py) past what was sent, keep-alives in between; it ends
    after `season_over`.

    A rebuild (after a flush lost the read models and the log) publishes nothing of what it
    projects; it announces `streamlog.REBUILT` instead, and the stream then sends what the new
    log (`logged`) holds past what it sent. If that log cannot be read (Redis gone again, the
    season being rebuilt anew), the stream ends: EventSource reconnects with the last id it
    got, and the new stream sends the rest. Never a silent gap (issue 20).

    With a chat `feed` (ADR-94) it also sends the bey's new chat notices, looked for once
    subscribed, on each of the season's chat wake-ups (ADR-107) and after `stream_chat.POLL_S`
    of silence; every id then carries both positions. A rotated token ends it (ADR-171)."""
    try:
        chat_sent = feed.sent if feed is not None else 0
        shown = len(sub.channels) - (feed is not None)  # the chat's channel is not counted
        yield _ready(shown, with_chat(since, chat_sent))
        sent, pending, look, woken = after, backlog, True, None
        quiet = Quiet(KEEP_ALIVE_S)
        while True:
            said = await _said(feed if look else None, woken, sent)
            if not await stream_tickets.still_held(holds, bool(said), pending, sent):
                return  # its token was rotated: nothing more of the bey's own
            for frame in said:
                yield quiet.sent(frame)
            chat_sent = feed.sent if feed is not None else chat_sent
            for score, message_id, data in pending:
                if score <= sent:  # logged before the backlog was read: sent already
                    continue
                sent = score
                frame = quiet.sent(_frame(with_chat(message_id, chat_sent), data))
                yield frame
                if frame.event == streamlog.LAST:
                    return
            batch = await sub.next(timeout=quiet.wait(stream_chat.POLL_S if feed else None))
            if batch is None:  # silent: a keep-alive when due, and the chat read anyway
                if quiet.due():
                    # a comment only: an empty data line would reach EventSource as empty
                    yield quiet.sent(ServerSentEventMessage(comment="keep-alive", data=None))
                pending, look, woken = [], True, None
                continue
            woken, batch = stream_chat.wake_ups(batch)
            look = woken is not None
            got = await _published(batch, sent, logged) if batch or not look else []
            if got is None:
                return  # ended: EventSource resumes from its last id
            pending = got
    finally:
        sub.release()


async def _said(
    feed: ChatFeed | None, woken: int | None, sent: int
) -> list[ServerSentEventMessage]:
    """The chat notices a stream sends now (none without a `feed` to look at)."""
    return chat_frames(await feed.pending(woken), sent) if feed is not None else []


async def _published(
    batch: list[bytes], sent: int, logged: Callable[[int], Awaitable[Backlog]]
) -> Backlog | None:
    """The messages of a published batch; after a rebuild's notice, what the new log holds
    past what was sent. None: the stream ends (ended by the hub: a slow client, Redis lost, a
    shutdown; or a rebuilt log it cannot read)."""
    if not batch:
        return None
    pending: Backlog = []
    for raw in batch:
        if raw != streamlog.REBUILT:
            pending.append(streamlog.split(raw))
            continue
        try:  # everything logged after what was sent (or is about to be), in id order
            pending += await logged(max([sent, *(p[0] for p in pending)]))
        except (Problem, RedisError) as exc:
            log.warning("stream.rebuilt_unread", error=type(exc).__name__)
            return None
    return pending
