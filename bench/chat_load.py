"""The chat side of `bench.chat_flood` (issue 24, ADR-107), run in a process of its own.

The 19 beys' ticketed event streams, open for the whole bench (each `chat_message` notice's
arrival by message id), and the flood: messages at a rate, open loop, each sent on its own,
public, private and group in turn, from every bey in turn. The orders' side asks for a flood
until an instant (`time.perf_counter`, the system's monotonic clock, the same in both
processes) and gets the messages sent back; at the end, every notice's arrivals.

The sends and the streams speak HTTP/1.1 on raw asyncio connections (`Wire`: the request's
bytes written, the status line, Content-Length and body read back; a stream's lines scanned
for `chat_message` notices), not through httpx: on a 2-core box the flood's client shares
the CPU with the app and the order loops, and httpx cost the chat side about as much CPU a
message as the API's own (0.06 of a core at 19 messages/s, ADR-127): that was the client's
load on the orders, not the product's. Tickets and the season's setup still go through httpx.
"""

from __future__ import annotations

import asyncio
import re
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import httpx
import msgspec

GROUPS = 3  # public, private, group in turn


@dataclass
class Run:
    orders: list[float] = field(default_factory=list)  # each accepted order's milliseconds
    started: dict[int, float] = field(default_factory=dict)  # message id -> its send's start
    members: dict[int, int] = field(default_factory=dict)  # message id -> members told
    seconds: float = 0.0
    divans: list[Any] = field(default_factory=list)  # each Divan's (bench.chat_flood.Divan)
    cpu: tuple[float, ...] = ()  # CPU seconds a second: the API, the chat side, the orders


Conn = tuple[asyncio.StreamReader, asyncio.StreamWriter]
_MESSAGE_ID = re.compile(rb'"message_id":([0-9]+)')


class Wire:
    """Plain HTTP/1.1 to the bench's API on kept-alive asyncio connections: requests written
    as bytes, answers read by their status line and Content-Length (the API's answers to a
    send carry one). A lean client: its CPU is not the product's."""

    def __init__(self, base: str, local: str | None = None) -> None:
        url = urlsplit(base)
        self.host, self.port = url.hostname or "127.0.0.1", url.port or 80
        self.local = (local, 0) if local is not None else None  # the address it connects from
        self.idle: list[Conn] = []

    async def connect(self) -> Conn:
        return await asyncio.open_connection(self.host, self.port, local_addr=self.local)

    def close(self) -> None:
        """Close the idle connections."""
        for _reader, writer in self.idle:
            writer.close()
        self.idle.clear()

    def request(self, method: str, path: str, headers: dict[str, str], body: bytes = b"") -> bytes:
        lines = [f"{method} {path} HTTP/1.1", f"host: {self.host}:{self.port}"]
        lines += [f"{k}: {v}" for k, v in headers.items()]
        if body or method == "POST":
            lines.append(f"content-length: {len(body)}")
        return ("\r\n".join(lines) + "\r\n\r\n").encode() + body

    @staticmethod
    async def head(reader: asyncio.StreamReader) -> tuple[int, dict[bytes, bytes]]:
        """An answer's status and headers (names lower-cased)."""
        raw = await reader.readuntil(b"\r\n\r\n")
        status, *fields = raw[:-4].split(b"\r\n")
        headers = {}
        for f in fields:
            name, _, value = f.partition(b":")
            headers[name.strip().lower()] = value.strip()
        return int(status.split(b" ", 2)[1]), headers

    async def post(self, path: str, headers: dict[str, str], body: bytes) -> tuple[int, bytes]:
        """A POST on an idle connection (a new one if none, or if the server had closed the
        idle one: its keep-alive ends between floods): its status and body."""
        request = self.request("POST", path, headers, body)
        while True:
            reused = bool(self.idle)
            conn = self.idle.pop() if reused else await self.connect()
            reader, writer = conn
            writer.write(request)
            try:
                status, fields = await self.head(reader)
                break
            except (asyncio.IncompleteReadError, ConnectionError):
                writer.close()
                if not reused:
                    raise
        answer = await reader.readexactly(int(fields.get(b"content-length", b"0")))
        if fields.get(b"connection", b"").lower() == b"close":
            writer.close()
        else:
            self.idle.append(conn)
        return status, answer


@dataclass
class ChatLoad:
    """The chat side (a process of its own): the flood and the beys' streams."""

    client: httpx.AsyncClient  # the tickets
    wire: Wire  # the sends and the streams
    sid: str
    beys: list[dict[str, Any]]
    listening: set[int]  # the seats whose stream is open
    heard: dict[int, list[float]] = field(default_factory=dict)  # message id -> arrivals


async def listen(load: ChatLoad, bey: dict[str, Any], ready: asyncio.Event) -> None:
    """A bey's ticketed stream, open all along: each chat notice's arrival by message id
    (opened again until the season is projected: 503 not_yet_projected before). Its lines
    are scanned as they come (a chunk's size line between frames is no `event:` or `data:`
    line, and a frame is one chunk)."""
    while True:
        r = await load.client.post(f"/v1/seasons/{load.sid}/tickets", headers=bey["auth"])
        r.raise_for_status()
        path = f"/v1/seasons/{load.sid}/events?ticket={r.json()['ticket']}"
        reader, writer = await load.wire.connect()
        try:
            writer.write(load.wire.request("GET", path, {"accept": "text/event-stream"}))
            status, _ = await load.wire.head(reader)
            if status != 200:
                await asyncio.sleep(0.2)
                continue
            event, rest = b"", b""
            while chunk := await reader.read(65536):
                now = time.perf_counter()
                *lines, rest = (rest + chunk).split(b"\r\n")
                for line in lines:
                    if line.startswith(b"event: "):
                        event = line[7:]
                        if event == b"ready":
                            ready.set()
                    elif line.startswith(b"data: ") and event == b"chat_message":
                        found = _MESSAGE_ID.search(line)
                        assert found is not None, line
                        load.heard.setdefault(int(found.group(1)), []).append(now)
            return
        finally:
            writer.close()


async def send(load: ChatLoad, run: Run, n: int) -> None:
    """Message n of the flood: from bey n, to all, to the next bey, or to the next two."""
    beys = load.beys
    bey, others = beys[n % 19], [beys[(n + k) % 19]["seat"] for k in (1, 2)]
    to: str | list[int] = ("all", others[:1], others)[n % GROUPS]
    body = msgspec.json.encode({"to": to, "text": f"söz {n}"})
    headers = {**bey["auth"], "content-type": "application/json"}
    t = time.perf_counter()
    status, answer = await load.wire.post(f"/v1/seasons/{load.sid}/messages", headers, body)
    if status == 201:
        message = msgspec.json.decode(answer)["message_id"]
        run.started[message] = t
        members = {b["seat"] for b in beys} if to == "all" else {bey["seat"], *to}
        run.members[message] = len(members & load.listening)


async def flood(load: ChatLoad, run: Run, rate: float, stop: float) -> None:
    """Messages at `rate` a second in all, each sent on its own (open loop)."""
    sends: set[asyncio.Task[None]] = set()
    n, start = 0, time.perf_counter()
    while (due := start + n / rate) < stop:
        await asyncio.sleep(max(0.0, due - time.perf_counter()))
        task = asyncio.create_task(send(load, run, n))
        sends.add(task)
        task.add_done_callback(sends.discard)
        n += 1
    await asyncio.gather(*sends)
    for _, writer in load.wire.idle:  # the server's keep-alive would end them before the next
        writer.close()
    load.wire.idle.clear()


def chat_side(conn: Any, base: str, sid: str, beys: list[dict[str, Any]], args: Any) -> None:
    """The chat side's process: the streams open, then a flood whenever the orders' side asks
    (until the stop it names); at the end, every notice's arrivals."""
    from bench.api_orders import quiet_json_logs

    quiet_json_logs()

    async def main() -> None:
        async with httpx.AsyncClient(base_url=base, timeout=30) as client:
            listening = {b["seat"] for b in beys[: args.streams]}
            load = ChatLoad(client, Wire(base), sid, beys, listening)
            readies = [asyncio.Event() for _ in beys[: args.streams]]
            streams = [
                asyncio.create_task(listen(load, b, e)) for b, e in zip(beys, readies, strict=False)
            ]
            async with asyncio.timeout(60):
                await asyncio.gather(*(e.wait() for e in readies))
            conn.send("ready")
            while (asked := await asyncio.to_thread(conn.recv))[0] == "flood":
                run = Run()
                await flood(load, run, args.rate, asked[1])
                conn.send((run.started, run.members))
            await asyncio.sleep(args.drain)  # the last run's notices still on their way
            for s in streams:
                s.cancel()
            await asyncio.gather(*streams, return_exceptions=True)
            conn.send(load.heard)

    asyncio.run(main())
