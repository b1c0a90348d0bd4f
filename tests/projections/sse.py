"""A server-sent event client for the tests: the gateway on uvicorn, frames parsed per the spec."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import jsonschema_rs
import uvicorn

from services.projections.projector import Projector
from tests.projections.pact_season import Live, create_live
from tests.projections.support import Gateway, bearer


@dataclass
class Frame:
    event: str | None = None
    id: str | None = None
    data: list[str] = field(default_factory=list)
    comments: list[str] = field(default_factory=list)


async def frames(response: httpx.Response) -> AsyncIterator[Frame]:
    """Parse a text/event-stream into frames (RFC: fields until a blank line)."""
    frame = Frame()
    async for line in response.aiter_lines():
        if line == "":
            yield frame
            frame = Frame()
        elif line.startswith(":"):
            frame.comments.append(line[1:].strip())
        else:
            name, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if name == "event":
                frame.event = value
            elif name == "id":
                frame.id = value
            elif name == "data":
                frame.data.append(value)


EVENTS_OP = ("/v1/seasons/{season_id}/events", "get")


async def described_events(client: httpx.AsyncClient) -> dict[str, dict[str, Any]]:
    """The stream operation's `x-events` in the served document: name -> {description, data},
    and `message`: the schema its 200 answer gives that name's message (issue 20: the
    discriminator's mapping on `event`), with the document's components to resolve it."""
    doc = (await client.get("/v1/schema/openapi.json")).json()
    path, method = EVENTS_OP
    op = doc["paths"][path][method]
    events: dict[str, dict[str, Any]] = op["x-events"]
    answer = op["responses"]["200"]["content"]["text/event-stream"]["schema"]
    for name, ref in answer["discriminator"]["mapping"].items():
        if name in events:
            events[name]["message"] = {"$ref": ref, "components": doc["components"]}
    return events


def undocumented(described: dict[str, dict[str, Any]], frame: Frame) -> list[str]:
    """Why a named frame does not match the document (an unknown name, a payload that does
    not validate against `x-events` or the message against the 200 answer's schema); [] for
    one that does, and for comments."""
    if frame.event is None:
        return []
    if frame.event not in described or "message" not in described[frame.event]:
        return [f"event {frame.event!r} is not documented"]
    validator = jsonschema_rs.Draft202012Validator(described[frame.event]["data"])
    message = jsonschema_rs.Draft202012Validator(described[frame.event]["message"])
    whole = [{"event": frame.event, "id": frame.id, "data": json.loads(d)} for d in frame.data]
    return [str(e) for d in frame.data for e in validator.iter_errors(json.loads(d))] + [
        str(e) for m in whole for e in message.iter_errors(m)
    ]


class Stream:
    """A connected SSE client: its frames arrive on a queue, read with a timeout."""

    def __init__(
        self, client: httpx.AsyncClient, url: str, headers: dict[str, str] | None = None
    ) -> None:
        self.client, self.url, self.headers = client, url, headers or {}
        self.queue: asyncio.Queue[Frame] = asyncio.Queue()
        self.status: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self.task = asyncio.create_task(self._run())

    async def _run(self) -> None:
        async with self.client.stream("GET", self.url, headers=self.headers) as response:
            self.status.set_result(response.status_code)
            if response.status_code != 200:
                return
            async for frame in frames(response):
                await self.queue.put(frame)

    async def until(self, event: str, timeout: float = 10) -> tuple[Frame, list[Frame]]:
        """Frames up to the first named `event`; all of them, to check what came before."""
        seen = []
        async with asyncio.timeout(timeout):
            while True:
                frame = await self.queue.get()
                seen.append(frame)
                if frame.event == event:
                    return frame, seen

    async def rest(self, timeout: float = 10) -> list[Frame]:
        """Every frame until the server ends the stream (after `season_over`)."""
        await asyncio.wait_for(asyncio.shield(self.task), timeout)
        out = []
        while not self.queue.empty():
            out.append(self.queue.get_nowait())
        return out

    async def close(self) -> None:
        self.task.cancel()
        with contextlib.suppress(asyncio.CancelledError, httpx.HTTPError):
            await self.task


@contextlib.asynccontextmanager
async def served(gw: Gateway) -> AsyncIterator[httpx.AsyncClient]:
    """The gateway on a real uvicorn server on a free localhost port, on this event loop."""
    config = uvicorn.Config(
        gw.app,
        host="127.0.0.1",
        port=0,
        log_level="warning",
        log_config=None,  # shared.logs owns logging; uvicorn's dictConfig would detach its loggers
        lifespan="on",
        timeout_graceful_shutdown=2,
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    try:
        async with asyncio.timeout(10):
            while not server.started:
                assert not task.done(), "uvicorn did not start"
                await asyncio.sleep(0.01)
        port = server.servers[0].sockets[0].getsockname()[1]
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=10) as client:
            yield client
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 15)


@contextlib.asynccontextmanager
async def private_stream(client: httpx.AsyncClient, live: Live, seat: int) -> AsyncIterator[Stream]:
    """Bey `seat`'s private stream, opened with a ticket its token asked for, past `ready`."""
    r = await client.post(live.url("/tickets"), headers=bearer(live.tokens[seat]))
    assert r.status_code == 201, r.text
    stream = Stream(client, live.url(f"/events?ticket={r.json()['ticket']}"))
    try:
        assert await asyncio.wait_for(stream.status, 10) == 200
        await stream.until("ready")
        yield stream
    finally:
        await stream.close()


@dataclass
class Offered:
    """A live season of two seated beys served on a real server, its projection caught up,
    and a one-use ticket for bey 2's private stream (the offers' tests)."""

    client: httpx.AsyncClient
    live: Live
    projector: Projector
    described: dict[str, dict[str, Any]]  # the stream's documented events (described_events)
    ticket: str


@contextlib.asynccontextmanager
async def offered_live(store: Any, redis: Any, prefix: str) -> AsyncIterator[Offered]:
    """`Offered` for the tests of what an offer's recipient is told on its stream."""
    gw = Gateway(store, redis, prefix)
    projector = Projector(store, redis, prefix)
    live = await create_live(store)
    await projector.catch_up(live.season_id)
    async with served(gw) as client:
        described = await described_events(client)
        r = await client.post(live.url("/tickets"), headers=bearer(live.tokens[2]))
        assert r.status_code == 201, r.text
        yield Offered(client, live, projector, described, r.json()["ticket"])
