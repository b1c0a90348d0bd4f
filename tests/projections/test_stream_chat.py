"""Issue 24 (ADR-94, R-15.3): new chat messages reach a channel's members over their ticketed
event stream as `chat_message` notices (channel and message id, never the text), with resume.

A live season with beys A, B, C, D: D mutes A; A writes canaries to the public channel, to a
private channel with B and to a group with B and C; then B writes to the public channel. B's
stream gets every one of them; D's gets only B's (not A's: muted; not the private or group
one: not a member); the public stream gets no chat at all; no frame carries a text. A stream
resumed after one of B's ids (`V-k.cN`) gets exactly the notices after it, once.

The streams' safety poll is pushed out of reach (`POLL_S`): every notice here comes by the
season's chat wake-up (ADR-107), none by waiting for a poll.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
import redis.asyncio as aioredis

from services.projections import stream_chat
from services.projections.projector import Projector
from shared.app.answers.chat_book import Book, ChatBooks, ChatDelivered, within_limit
from shared.app.messaging.chat_wakeup import publisher, wake_payload
from shared.domain import chat
from shared.domain import chat_events as ce
from shared.eventstore import InMemoryEventStore
from shared.eventstore.chat_log import ChatNew, ChatRecord
from shared.eventstore.chat_memory import InMemoryChatLog
from tests.http.support import Api, Bey, api_clock
from tests.http.test_live_seasons import create_live, joined
from tests.projections.sse import Frame, Stream, served
from tests.projections.support import Gateway

PLATES = (6, 34, 42, 35)
NEVER = 3600.0  # the safety poll's interval here: far past every wait of these tests


@pytest.fixture(autouse=True)
def no_poll(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stream_chat, "POLL_S", NEVER)


CANARY = ("kanarya-PUBLIC-5e1", "kanarya-PRIVATE-8a2", "kanarya-GROUP-3c9", "kanarya-B-4d7")


async def _ticket(client: httpx.AsyncClient, bey: Bey) -> str:
    r = await client.post(bey.url("/tickets"), headers=bey.auth())
    assert r.status_code == 201, r.text
    ticket: str = r.json()["ticket"]
    return ticket


async def _notices(stream: Stream, last: int) -> list[Frame]:
    """The chat notices of `stream` up to the one of message `last` (whatever came between)."""
    out: list[Frame] = []
    async with asyncio.timeout(10):
        while True:
            frame = await stream.queue.get()
            if frame.event == "chat_message":
                out.append(frame)
                if json.loads(frame.data[0])["message_id"] == last:
                    return out


def _said(frames: list[Frame]) -> list[tuple[str, int]]:
    return [
        (json.loads(f.data[0])["channel_id"], json.loads(f.data[0])["message_id"]) for f in frames
    ]


async def _send(api: Api, bey: Bey, to: object, text: str) -> tuple[str, int]:
    r = await api.client.post(
        bey.url("/messages"), json={"to": to, "text": text}, headers=bey.auth()
    )
    assert r.status_code == 201, r.text
    return r.json()["channel_id"], r.json()["message_id"]


async def test_members_get_chat_notices_others_and_the_public_stream_never(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
) -> None:
    clock = api_clock()
    gw = Gateway(memory_store, redis, prefix, clock)
    async with served(gw) as client:
        api = Api(client=client, store=memory_store, clock=clock)
        sid = (await create_live(api))["season_id"]
        a, b, c, d = [await joined(api, sid, p) for p in PLATES]
        await Projector(memory_store, redis, prefix).catch_up(sid)
        r = await client.post(d.url(f"/mutes/{a.seat}"), json={"muted": True}, headers=d.auth())
        assert r.status_code in (200, 201), r.text
        path = f"/v1/seasons/{sid}/events"
        streams = {
            "b": Stream(client, f"{path}?ticket={await _ticket(client, b)}"),
            "d": Stream(client, f"{path}?ticket={await _ticket(client, d)}"),
            "public": Stream(client, path),
        }
        try:
            for s in streams.values():
                await s.until("ready")
            sent = [
                await _send(api, a, "all", CANARY[0]),
                await _send(api, a, [b.seat], CANARY[1]),
                await _send(api, a, [b.seat, c.seat], CANARY[2]),
                await _send(api, b, "all", CANARY[3]),
            ]
            assert [ch for ch, _ in sent[1:3]] == [
                chat.channel_of(frozenset({a.seat, b.seat})),
                chat.channel_of(frozenset({a.seat, b.seat, c.seat})),
            ]
            last = sent[-1][1]
            to_b = await _notices(streams["b"], last)
            assert _said(to_b) == sent
            for f in to_b:  # both positions in every id: `V-k.cN`
                season_part, _, chat_part = f.id.partition(".c")
                assert int(chat_part) == json.loads(f.data[0])["message_id"], f.id
                assert season_part.split("-")[0].isdigit()
            assert _said(await _notices(streams["d"], last)) == [sent[-1]]
            seen = [
                streams["public"].queue.get_nowait() for _ in range(streams["public"].queue.qsize())
            ]
            assert [f for f in seen if f.event == "chat_message"] == []
            for s in streams.values():
                while not s.queue.empty():
                    to_b.append(s.queue.get_nowait())
            assert not any(t in "".join(f.data) for f in to_b for t in CANARY)

            # resumed after B's first notice: the rest, each once; an id without `.cN`
            # (an old client's) is chat version 0: every notice since the start
            for given, expected in ((to_b[0].id, sent[1:]), (to_b[0].id.split(".c")[0], sent)):
                resumed = Stream(
                    client,
                    f"{path}?ticket={await _ticket(client, b)}",
                    headers={"Last-Event-ID": given},
                )
                try:
                    assert _said(await _notices(resumed, last)) == expected, given
                finally:
                    await resumed.close()
        finally:
            for s in streams.values():
                await s.close()


async def test_a_message_sent_through_one_process_wakes_a_stream_open_on_another(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
) -> None:
    """R-15.1, ADR-107: two API processes (each its own chat fold and stream hub) on one store
    and one Redis; a message sent through the first reaches the member's stream open on the
    second by the season's chat wake-up, not by a poll; a non-member's stream there gets
    nothing of it, and the wake-up carries no text."""
    clock = api_clock()
    sender, reader = (
        Gateway(memory_store, redis, prefix, clock),
        Gateway(memory_store, redis, prefix, clock),
    )
    heard: list[bytes] = []
    async with served(sender) as one, served(reader) as two, redis.pubsub() as spy:
        await spy.psubscribe(f"{prefix}:chat:*")
        api = Api(client=one, store=memory_store, clock=clock)
        sid = (await create_live(api))["season_id"]
        a, b, c = [await joined(api, sid, p) for p in PLATES[:3]]
        await Projector(memory_store, redis, prefix).catch_up(sid)
        path = f"/v1/seasons/{sid}/events"
        to_b = Stream(two, f"{path}?ticket={await _ticket(two, b)}")
        to_c = Stream(two, f"{path}?ticket={await _ticket(two, c)}")
        try:
            await to_b.until("ready")
            await to_c.until("ready")
            said = await _send(api, a, [b.seat], CANARY[1])
            assert _said(await _notices(to_b, said[1])) == [said]
            public = await _send(api, a, "all", CANARY[0])
            assert _said(await _notices(to_c, public[1])) == [public]  # after the private one
            assert _said(await _notices(to_b, public[1])) == [public]
            async with asyncio.timeout(10):
                while len(heard) < 2:
                    m = await spy.get_message(ignore_subscribe_messages=True, timeout=1)
                    if m is not None:
                        heard.append(m["data"])
            assert not any(t.encode() in h for h in heard for t in CANARY)
        finally:
            await to_b.close()
            await to_c.close()


async def test_streams_woken_together_share_one_read_and_none_when_the_fold_has_it() -> None:
    """ADR-107: a wake-up costs one chat read per process, whatever the open streams, and none
    where the message was sent (its append is folded at once); a read without a version
    (a request, the safety poll) always reads."""
    log = InMemoryChatLog(clock=api_clock())
    reads: list[int] = []

    async def read(season_id: str, after: int) -> list[ChatRecord]:
        reads.append(after)
        await asyncio.sleep(0)  # a real read yields: the other streams come meanwhile
        return await log.read(season_id, after)

    (first,) = await log.append("s", [_message("one")])
    books = ChatBooks()
    woken = await asyncio.gather(*(books.book("s", read, at_least=1) for _ in range(19)))
    assert reads == [0] and {b.version for b in woken} == {1}
    books.added("s", await log.append("s", [_message("two")]))  # sent through this process
    assert (await books.book("s", read, at_least=2)).version == 2 and reads == [0]
    await books.book("s", read)
    assert reads == [0, 2] and first.version == 1


def _message(text: str) -> ChatNew:
    """A public message with an id of its own (derived from its text)."""
    event = ce.MessageSent(at="2026-12-01T12:00:00+03:00", channel="all", seat=1, digest="d")
    return ChatNew(
        event_id=uuid.uuid5(uuid.NAMESPACE_URL, text),
        type=ce.tag_of(event),
        data=ce.encode_chat(event),
        seat=1,
        text=text,
    )


def _sent(text: str, channel: str, seat: int, at: str = "2026-12-01T12:00:00+03:00") -> ChatNew:
    event = ce.MessageSent(at=at, channel=channel, seat=seat, digest="d")
    return ChatNew(
        event_id=uuid.uuid5(uuid.NAMESPACE_URL, text),
        type=ce.tag_of(event),
        data=ce.encode_chat(event),
        seat=seat,
        text=text,
    )


async def test_a_wake_up_wakes_the_streams_of_its_members_only() -> None:
    """ADR-118: the hub asks a ticketed stream's feed before it queues a chat wake-up; a
    message folded here wakes its channel's members, not the season's other streams (each
    would wake, look and send nothing); a version not folded here yet, or any other payload,
    wakes every stream (it reads, as before)."""
    log = InMemoryChatLog(clock=api_clock())
    books = ChatBooks()
    private = chat.channel_of(frozenset({1, 2}))
    books.added("s", await log.append("s", [_sent("p", private, 1)]))

    async def book(at_least: int | None) -> Any:
        return await books.book("s", log.read, at_least=at_least)

    feeds = {
        seat: stream_chat.ChatFeed(seat, 0, book, "c", lambda: books.peek("s"))
        for seat in (1, 2, 3)
    }
    assert [feeds[s].wants(wake_payload(1)) for s in (1, 2, 3)] == [True, True, False]
    assert feeds[3].wants(b"3-1\n{}")  # the season's own messages always
    assert feeds[3].wants(wake_payload(2))  # not folded here yet: the stream reads
    books.added("s", await log.append("s", [_sent("pub", chat.PUBLIC, 2)]))
    assert feeds[3].wants(wake_payload(2))
    assert [v for v, _ in await feeds[3].pending(2)] == [2]  # the private one never
    assert [v for v, _ in await feeds[1].pending(2)] == [1, 2]


async def test_a_wake_up_scans_the_fold_once_and_encodes_each_notice_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """ADR-126: the scan `wants` made for a wake-up it let through serves the `pending` that
    wake-up causes (one scan, not two), and a message's notice is encoded once for all the
    members told of it; what each bey is told is unchanged."""
    log = InMemoryChatLog(clock=api_clock())
    books = ChatBooks()

    async def book(at_least: int | None) -> Any:
        return await books.book("s2", log.read, at_least=at_least)

    feeds = {
        seat: stream_chat.ChatFeed(seat, 0, book, "c", lambda: books.peek("s2"))
        for seat in (1, 2, 3)
    }
    books.added("s2", await log.append("s2", [_sent("pub-1", chat.PUBLIC, 1)]))
    scans = 0
    scan = stream_chat.ChatFeed._new

    def counted(self: stream_chat.ChatFeed, b: Book) -> list[tuple[int, str]]:
        nonlocal scans
        scans += 1
        return scan(self, b)

    monkeypatch.setattr(stream_chat.ChatFeed, "_new", counted)
    assert all(f.wants(wake_payload(1)) for f in feeds.values())
    said = {seat: await f.pending(1) for seat, f in feeds.items()}
    assert scans == 3  # one a stream: `pending` used what `wants` found
    expected = json.dumps(
        {"type": "chat_message", "channel_id": chat.PUBLIC, "message_id": 1},
        separators=(",", ":"),
    )
    assert all(s == [(1, expected)] for s in said.values())
    assert said[1][0][1] is said[2][0][1] is said[3][0][1]  # one encoding for all
    # the fold moved on between the wake-up and the read: the read scans again
    private = chat.channel_of(frozenset({1, 2}))
    books.added("s2", await log.append("s2", [_sent("pub-2", chat.PUBLIC, 3)]))
    assert feeds[3].wants(wake_payload(2))
    books.added("s2", await log.append("s2", [_sent("p-3", private, 1)]))
    assert [v for v, _ in await feeds[3].pending(3)] == [2]
    assert [v for v, _ in await feeds[1].pending(3)] == [2, 3]
    assert await feeds[3].pending(3) == []  # nothing twice


async def test_an_unmute_announces_nothing_sent_while_muted() -> None:
    """ADR-126 (R-15.2): a message sent while its sender was muted by the bey is never
    announced to it, whether or not its stream looked meanwhile; after the unmute the next
    messages are, and the page and unread count show the muted time's at once."""
    log = InMemoryChatLog(clock=api_clock())
    books = ChatBooks()

    async def book(at_least: int | None) -> Any:
        return await books.book("s3", log.read, at_least=at_least)

    def muted(on: bool) -> ChatNew:
        event = ce.BeyMuted(
            at=datetime(2026, 12, 1, tzinfo=UTC).isoformat(), seat=2, muted=1, on=on
        )
        return ChatNew(
            event_id=uuid.uuid5(uuid.NAMESPACE_URL, f"mute-{on}"),
            type=ce.tag_of(event),
            data=ce.encode_chat(event),
            seat=2,
        )

    feed = stream_chat.ChatFeed(2, 0, book, "c", lambda: books.peek("s3"))
    books.added("s3", await log.append("s3", [muted(True)]))
    books.added("s3", await log.append("s3", [_sent("while-muted", chat.PUBLIC, 1)]))
    books.added("s3", await log.append("s3", [muted(False)]))  # no look at the stream meanwhile
    books.added("s3", await log.append("s3", [_sent("after", chat.PUBLIC, 1)]))
    assert [v for v, _ in await feed.pending(4)] == [4]
    b = await book(4)
    assert [m.id for m in b.visible_to(2, chat.PUBLIC)] == [2, 4]
    assert b.unread(2, chat.PUBLIC, 0) == 2


async def test_wake_ups_in_flight_together_are_one_publish_of_the_newest() -> None:
    """ADR-126: at most one wake-up PUBLISH in flight a season: the messages that come while
    one is in flight leave their versions for it, and one publish of the newest follows;
    unhurried, each message is published by its own send, before it answers."""
    published: list[tuple[str, bytes]] = []
    gate = asyncio.Event()

    class Slow:
        async def publish(self, channel: str, payload: bytes) -> None:
            published.append((channel, payload))
            await gate.wait()

    wake = publisher(Slow(), "p")
    first = asyncio.create_task(wake(ChatDelivered("s", 1, chat.PUBLIC, 1, ())))
    await asyncio.sleep(0)
    for v in (2, 3, 4):
        await wake(ChatDelivered("s", v, chat.PUBLIC, 1, ()))  # returns: one is in flight
    assert published == [("p:chat:s", wake_payload(1))]
    gate.set()
    await first
    assert published == [("p:chat:s", wake_payload(1)), ("p:chat:s", wake_payload(4))]
    await wake(ChatDelivered("s", 5, chat.PUBLIC, 1, ()))  # nothing in flight: its own
    assert published[-1] == ("p:chat:s", wake_payload(5)) and len(published) == 3


def test_a_notice_frame_is_the_bytes_litestar_would_write() -> None:
    """ADR-126: a chat notice's frame writes its bytes directly, exactly as
    `ServerSentEventMessage.encode` writes the same id, event and data."""
    from litestar.response import ServerSentEventMessage

    data = stream_chat.notice(12, "group-1-4-9")
    (frame,) = stream_chat.chat_frames([(12, data)], 7 * stream_chat.STEP + 2)
    plain = ServerSentEventMessage(data=data, event="chat_message", id="7-2.c12")
    assert frame.encode() == plain.encode()
    assert (frame.id, frame.event, frame.data) == (plain.id, plain.event, plain.data)
    said = [(12, data), (13, stream_chat.notice(13, "all"))]
    (chunk,) = stream_chat.chat_frames(said, 7 * stream_chat.STEP + 2)  # one look, one write
    plain_13 = ServerSentEventMessage(data=said[1][1], event="chat_message", id="7-2.c13")
    assert chunk.encode() == plain.encode() + plain_13.encode()


def test_the_per_minute_limit_reads_the_seats_newest_instants_only() -> None:
    """ADR-118: within_limit answers from the seat's newest chat.PER_MINUTE instants (O(1) in
    the season's chat), as the count over every message did, instants out of order too."""
    book = Book()
    base = datetime(2026, 12, 1, 12, tzinfo=UTC)
    seconds = [50, 0, 10, 5, *range(11, 11 + chat.PER_MINUTE - 3)]  # one out of order
    for v, s in enumerate(seconds, 1):
        at = (base + timedelta(seconds=s)).isoformat()
        event = ce.MessageSent(at=at, channel=chat.PUBLIC, seat=7, digest="d")
        book.add(_record(v, ce.encode_chat(event)))
    now = base + timedelta(seconds=58)
    recent = sorted(base + timedelta(seconds=s) for s in seconds)
    assert len(recent) == chat.PER_MINUTE + 1
    oldest = recent[-chat.PER_MINUTE]
    assert within_limit(book, 7, now) == int((oldest + timedelta(seconds=60) - now).seconds) + 1
    assert within_limit(book, 8, now) is None
    assert within_limit(book, 7, base + timedelta(seconds=71)) is None  # four left the window
    book.messages.clear()  # not read: the limit keeps what it needs
    assert within_limit(book, 7, now) is not None


def _record(version: int, data: bytes) -> ChatRecord:
    return ChatRecord(
        season_id="s",
        version=version,
        event_id=uuid.UUID(int=version),
        type="message_sent.v1",
        data=data,
        seat=7,
        recorded_at=datetime(2026, 12, 1, tzinfo=UTC),
        prev_hash=bytes(32),
        hash=bytes(32),
    )
