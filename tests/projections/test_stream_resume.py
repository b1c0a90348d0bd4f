"""Issue 11: the event stream carries `id:` lines (the season version) and resumes from
Last-Event-ID without loss or duplicates; it ends after `season_over` (R-14: the private part
only with the bey's ticket)."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
import redis.asyncio as aioredis

from services.projections.projector import Projector
from shared.app.access import tokens
from shared.domain import codec
from shared.domain import events as ev
from shared.eventstore import InMemoryEventStore
from tests.projections.sse import Frame, Stream, described_events, served, undocumented
from tests.projections.support import (
    Gateway,
    append_chunk,
    bearer,
    new_bey_token,
    season_chunks,
)

SEAT = 1  # the bey whose ticket the private streams use


def _seen(frames: list[Frame]) -> list[tuple[str | None, str | None, list[str]]]:
    """The named messages of a stream (not `ready`, not keep-alive comments)."""
    return [(f.id, f.event, f.data) for f in frames if f.event not in (None, "ready")]


async def _ticket(client: httpx.AsyncClient, season_id: str, token: str) -> str:
    r = await client.post(f"/v1/seasons/{season_id}/tickets", headers=bearer(token))
    assert r.status_code == 201, r.text
    ticket: str = r.json()["ticket"]
    return ticket


class _Season:
    """A computer-bey season appended chunk by chunk (setup, Divans 1–16, the Kurultay), with a
    token for seat 1 so its private stream can be opened."""

    def __init__(self, store: InMemoryEventStore, redis: aioredis.Redis, prefix: str) -> None:
        self.store, self.projector = store, Projector(store, redis, prefix)
        self.season_id = tokens.new_season_id()
        self.chunks = list(season_chunks(11, self.season_id))
        self.token = ""
        self.sent = 0

    async def start(self) -> None:
        self.token, rotated = new_bey_token(self.season_id, SEAT)
        await self.append([*self.chunks[0], rotated])
        self.sent = 1

    async def append(self, events: list[ev.Event]) -> None:
        await append_chunk(self.store, self.season_id, events, f"chunk/{self.sent}")
        await self.projector.catch_up(self.season_id)

    async def next(self, n: int = 1) -> None:
        for _ in range(n):
            await self.append(self.chunks[self.sent])
            self.sent += 1

    async def version_of(self, kind: type[ev.Event], divan: int | None = None) -> int:
        """The stream version of the first `kind` event (of Divan `divan`)."""
        for rec in await self.store.read_stream(self.season_id):
            e = codec.decode_event(rec.data)
            if isinstance(e, kind) and (divan is None or getattr(e, "divan", None) == divan):
                return rec.version
        raise AssertionError(f"no {kind.__name__}")


async def test_a_stream_resumed_with_last_event_id_gets_exactly_the_missed_messages_once(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
) -> None:
    """Disconnect, two Divans resolved meanwhile, reconnect with Last-Event-ID (and a new
    ticket): every public and own message of those Divans arrives once, in id order, and then
    the live ones, with nothing repeated."""
    season = _Season(memory_store, redis, prefix)
    gw = Gateway(memory_store, redis, prefix)
    async with served(gw) as client:
        await season.start()
        path = f"/v1/seasons/{season.season_id}/events"
        witness = Stream(
            client, f"{path}?ticket={await _ticket(client, season.season_id, season.token)}"
        )
        first = Stream(
            client, f"{path}?ticket={await _ticket(client, season.season_id, season.token)}"
        )
        try:
            await witness.until("ready")
            await first.until("ready")
            await season.next()  # Divan 1
            _frame, got = await first.until("private_report")
            await first.close()  # the client goes away
            last = got[-1].id
            assert last is not None
            await season.next(2)  # Divans 2 and 3, missed
            resumed = Stream(
                client,
                f"{path}?ticket={await _ticket(client, season.season_id, season.token)}",
                headers={"Last-Event-ID": last},
            )
            try:
                ready, _ = await resumed.until("ready")
                assert ready.id == last  # the position it delivers everything after
                await season.next()  # Divan 4, live
                _f, everything = await witness.until("private_report")
                while len([f for f in everything if f.event == "private_report"]) < 4:
                    _f, more = await witness.until("private_report")
                    everything += more
                _f, after = await resumed.until("private_report")
                while len([f for f in after if f.event == "private_report"]) < 3:
                    _f, more = await resumed.until("private_report")
                    after += more
                ids = [m[0] for m in _seen(everything)]
                missed_and_live = _seen(everything)[ids.index(last) + 1 :]
                assert _seen(after) == missed_and_live
                assert [m[0] for m in missed_and_live] == sorted(
                    {m[0] for m in missed_and_live}, key=lambda i: tuple(map(int, i.split("-")))
                )  # each once, in id order
                told = [json.loads(m[2][0]) for m in missed_and_live]
                assert {m["divan"] for m in told if m["type"] != "offer_received"} == {2, 3, 4}
                # an offer a computer bey made at Divan n is settled at Divan n + 1
                assert {m["divan"] for m in told if m["type"] == "offer_received"} <= {3, 4, 5}
            finally:
                await resumed.close()
        finally:
            await witness.close()
            await first.close()


async def test_ids_are_the_season_version_and_every_position_resumes_to_the_end(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
) -> None:
    """A whole season on one stream: each id is `V-k`, V the stream version of the event that
    caused it; the stream ends after `season_over`. Resumed from any id it saw (also between
    two messages of one version) or from a bare season version, a stream sends exactly what
    followed, then ends; at the end (or a fresh stream of a season that is over) it is 204."""
    season = _Season(memory_store, redis, prefix)
    gw = Gateway(memory_store, redis, prefix)
    async with served(gw) as client:
        await season.start()
        path = f"/v1/seasons/{season.season_id}/events"
        ticket = await _ticket(client, season.season_id, season.token)
        whole = Stream(client, f"{path}?ticket={ticket}")
        try:
            await whole.until("ready")
            await season.next(len(season.chunks) - 1)
            frames = _seen(await whole.rest(30))  # it ends by itself
        finally:
            await whole.close()
        assert frames[-1][1] == "season_over"
        # every message validates against its event's payload in the served document
        described = await described_events(client)
        for _id, event, data in [("0", "ready", ['{"channels":2}']), *frames]:
            assert undocumented(described, Frame(event=event, id=_id, data=data)) == [], event
        divan_1 = await season.version_of(ev.DivanResolved, 1)
        assert frames[0][:2] == (f"{divan_1}-0", "divan_report")
        assert (f"{divan_1}-1", "private_report") in [m[:2] for m in frames]  # seat 1's place
        kurultay = await season.version_of(ev.KurultayHeld)
        assert [m[:2] for m in frames[-2:]] == [
            (f"{kurultay}-0", "kurultay_report"),
            (f"{kurultay}-1", "season_over"),
        ]
        ids = [m[0] for m in frames]
        assert len(set(ids)) == len(ids)
        positions = {
            ids[0]: frames[1:],
            ids[1]: frames[2:],  # between the two messages of Divan 1's version
            ids[len(ids) // 2]: frames[len(ids) // 2 + 1 :],
            str(divan_1): [m for m in frames if int(m[0].split("-")[0]) > divan_1],
            "0": frames,
        }
        for position, expected in positions.items():
            ticket = await _ticket(client, season.season_id, season.token)
            resumed = Stream(client, f"{path}?ticket={ticket}", headers={"Last-Event-ID": position})
            try:
                assert _seen(await resumed.rest(10)) == expected, position
            finally:
                await resumed.close()
        # the query parameter does the same, for a new EventSource
        tail = Stream(client, f"{path}?last_event_id={ids[-3]}")
        try:
            assert _seen(await tail.rest(10)) == frames[-2:]
        finally:
            await tail.close()
        for headers in ({"Last-Event-ID": ids[-1]}, {}):
            r = await client.get(path, headers=headers)
            assert r.status_code == 204, (headers, r.text)
            assert r.content == b""


@pytest.mark.parametrize(
    "given", ["x", "12-", "-1", "1-2-3", "1-99999", "1.5", "1-2.c01", "1.c", "1.cx", "x.c1"]
)
async def test_a_malformed_last_event_id_is_400_bad_last_event_id(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str, given: str
) -> None:
    """An id the stream never gave is refused (a silent fresh start could lose messages)."""
    season = _Season(memory_store, redis, prefix)
    gw = Gateway(memory_store, redis, prefix)
    async with served(gw) as client:
        await season.start()
        for kw in ({"headers": {"Last-Event-ID": given}}, {"params": {"last_event_id": given}}):
            r = await asyncio.wait_for(
                client.get(f"/v1/seasons/{season.season_id}/events", **kw), 10
            )
            assert r.status_code == 400, r.text
            assert r.headers["content-type"].startswith("application/problem+json")
            assert r.json()["code"] == "bad_last_event_id"
