"""Issue 24 (ADR-94, R-15.3): new chat messages reach a channel's members over their ticketed
event stream as `chat_message` notices (channel and message id, never the text), with resume.

A live season with beys A, B, C, D: D mutes A; A writes canaries to the public channel, to a
private channel with B and to a group with B and C; then B writes to the public channel. B's
stream gets every one of them; D's gets only B's (not A's: muted; not the private or group
one: not a member); the public stream gets no chat at all; no frame carries a text. A stream
resumed after one of B's ids (`V-k.cN`) gets exactly the notices after it, once.
"""

from __future__ import annotations

import asyncio
import json

import httpx
import redis.asyncio as aioredis

from services.projections.projector import Projector
from shared.domain import chat
from shared.eventstore import InMemoryEventStore
from tests.http.support import Api, Bey, api_clock
from tests.http.test_live_seasons import create_live, joined
from tests.projections.sse import Frame, Stream, served
from tests.projections.support import Gateway

PLATES = (6, 34, 42, 35)
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
