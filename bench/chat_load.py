"""The chat side of `bench.chat_flood` (issue 24, ADR-107), run in a process of its own.

The 19 beys' ticketed event streams, open for the whole bench (each `chat_message` notice's
arrival by message id), and the flood: messages at a rate, open loop, each sent on its own,
public, private and group in turn, from every bey in turn. The orders' side asks for a flood
until an instant (`time.perf_counter`, the system's monotonic clock, the same in both
processes) and gets the messages sent back; at the end, every notice's arrivals.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any

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


@dataclass
class ChatLoad:
    """The chat side (a process of its own): the flood and the beys' streams."""

    client: httpx.AsyncClient
    sid: str
    beys: list[dict[str, Any]]
    listening: set[int]  # the seats whose stream is open
    heard: dict[int, list[float]] = field(default_factory=dict)  # message id -> arrivals


async def listen(load: ChatLoad, bey: dict[str, Any], ready: asyncio.Event) -> None:
    """A bey's ticketed stream, open all along: each chat notice's arrival by message id
    (opened again until the season is projected: 503 not_yet_projected before)."""
    while True:
        r = await load.client.post(f"/v1/seasons/{load.sid}/tickets", headers=bey["auth"])
        r.raise_for_status()
        url = f"/v1/seasons/{load.sid}/events?ticket={r.json()['ticket']}"
        async with load.client.stream("GET", url, timeout=None) as stream:
            if stream.status_code != 200:
                await asyncio.sleep(0.2)
                continue
            event = ""
            async for line in stream.aiter_lines():
                if line.startswith("event: "):
                    event = line[7:]
                    if event == "ready":
                        ready.set()
                elif line.startswith("data: ") and event == "chat_message":
                    message = msgspec.json.decode(line[6:])["message_id"]
                    load.heard.setdefault(message, []).append(time.perf_counter())
            return


async def send(load: ChatLoad, run: Run, n: int) -> None:
    """Message n of the flood: from bey n, to all, to the next bey, or to the next two."""
    beys = load.beys
    bey, others = beys[n % 19], [beys[(n + k) % 19]["seat"] for k in (1, 2)]
    to: str | list[int] = ("all", others[:1], others)[n % GROUPS]
    t = time.perf_counter()
    r = await load.client.post(
        f"/v1/seasons/{load.sid}/messages", json={"to": to, "text": f"söz {n}"}, headers=bey["auth"]
    )
    if r.status_code == 201:
        message = r.json()["message_id"]
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


def chat_side(conn: Any, base: str, sid: str, beys: list[dict[str, Any]], args: Any) -> None:
    """The chat side's process: the streams open, then a flood whenever the orders' side asks
    (until the stop it names); at the end, every notice's arrivals."""
    from bench.api_orders import quiet_json_logs

    quiet_json_logs()

    async def main() -> None:
        async with httpx.AsyncClient(base_url=base, timeout=30) as client:
            load = ChatLoad(client, sid, beys, {b["seat"] for b in beys[: args.streams]})
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
