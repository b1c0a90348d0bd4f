"""A chat flood beside a live season's commands and Divan (issue 24, ADR-91).

Run: .venv/bin/python -m bench.chat_flood [--seconds 5] [--senders 19] [--concurrency 8]
     [--dsn postgresql://postgres@127.0.0.1:5432/test]

A scratch database on the server of --dsn (default $SEKSENBIR_PG_DSN), migrated and dropped
afterwards; the command API (create_app, reads off, no broker: the Divan is resolved in
process by the resolver's own code) on its own pool. One live season of 19 human beys. Two
runs on the same season, each --seconds long: without chat, then with every bey flooding
messages (public, private, group; the per-minute limit lifted for the bench) while the same
order loops run. Figures: orders/s and their p99, messages/s sustained, p99 delivery (send to
the message being on a recipient's page, polled by --pollers recipients), and the Divan's
latency (lock and resolution, `resolve`) after each run. The stream's chat frames are not
built (ADR-94): delivery here is by page poll.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx

from bench.api_orders import MEMLEKETS, in_process, quiet_json_logs, scratch_database
from bench.common import machine
from entrypoints.gateway import create_app
from services.resolver.divan import resolve
from shared.app.seasons import Seasons
from shared.domain import chat
from shared.eventstore import PoolSettings, PostgresEventStore, create_pool
from shared.settings import Settings


def p99(samples: list[float]) -> float:
    return statistics.quantiles(samples, n=100)[98] if len(samples) >= 2 else max(samples or [0])


async def season(client: httpx.AsyncClient) -> tuple[str, list[dict[str, Any]]]:
    closes = (datetime.now(UTC) + timedelta(hours=2)).isoformat()  # bench/ may read the clock
    r = await client.post("/v1/seasons", json={"mode": "live", "registration_closes_at": closes})
    r.raise_for_status()
    sid = r.json()["season_id"]
    beys = []
    for plate in MEMLEKETS:
        j = await client.post(f"/v1/seasons/{sid}/join", json={"memleket": plate})
        j.raise_for_status()
        beys.append({**j.json(), "auth": {"Authorization": f"Bearer {j.json()['token']}"}})
    return sid, beys


async def run(  # noqa: C901 — three nested loops of one measurement
    client: httpx.AsyncClient, sid: str, beys: list[Any], args: Any, flood: bool
) -> dict[str, float]:
    stop = time.perf_counter() + args.seconds
    order_ms: list[float] = []
    sent_at: dict[int, float] = {}
    delivered: list[float] = []
    messages = 0

    async def orders(w: int) -> None:
        n = 0
        while time.perf_counter() < stop:
            bey = beys[(w + n * args.concurrency) % len(beys)]
            body = {"orders": [{"province": bey["memleket"], "kind": "hold"}]}
            t = time.perf_counter()
            r = await client.post(f"/v1/seasons/{sid}/orders", json=body, headers=bey["auth"])
            if r.status_code < 300:
                order_ms.append(1e3 * (time.perf_counter() - t))
            n += 1

    async def sender(i: int) -> None:
        nonlocal messages
        bey, n = beys[i % len(beys)], 0
        while time.perf_counter() < stop:
            other = beys[(i + 1 + n) % len(beys)]["seat"]
            to = (
                "all"
                if n % 3 == 0
                else [other]
                if n % 3 == 1
                else [other, beys[(i + 2) % 19]["seat"]]
            )
            if bey["seat"] in (to if isinstance(to, list) else []):
                to = "all"
            r = await client.post(
                f"/v1/seasons/{sid}/messages",
                json={"to": to, "text": f"söz {i}.{n}"},
                headers=bey["auth"],
            )
            if r.status_code == 201:
                messages += 1
                if to == "all":
                    sent_at[r.json()["message_id"]] = time.perf_counter()
            n += 1

    async def poller(i: int) -> None:
        bey = beys[-1 - i]
        while time.perf_counter() < stop:
            r = await client.get(f"/v1/seasons/{sid}/channels/all/messages", headers=bey["auth"])
            now = time.perf_counter()
            for line in r.json()["messages"]:
                t = sent_at.pop(line["message_id"], None)
                if t is not None:
                    delivered.append(1e3 * (now - t))
            await asyncio.sleep(args.poll_s)

    tasks = [orders(w) for w in range(args.concurrency)]
    if flood:
        tasks += [sender(i) for i in range(args.senders)] + [poller(i) for i in range(args.pollers)]
    started = time.perf_counter()
    await asyncio.gather(*tasks)
    seconds = time.perf_counter() - started
    return {
        "orders_per_s": len(order_ms) / seconds,
        "order_p99_ms": p99(order_ms),
        "messages_per_s": messages / seconds,
        "delivery_p99_ms": p99(delivered),
    }


async def divan_ms(store: PostgresEventStore, sid: str, divan: int) -> float:
    seasons = Seasons(store)
    loaded = await seasons.load(sid)
    assert loaded.state.calendar is not None
    t = time.perf_counter()
    outcome = await resolve(seasons, sid, divan, now=loaded.state.calendar.at(divan))
    assert outcome == "resolved", outcome
    return 1e3 * (time.perf_counter() - t)


async def main(args: argparse.Namespace) -> None:
    quiet_json_logs()
    chat.PER_MINUTE = 10**9  # type: ignore[misc]  # a flood, on purpose: the limit is lifted
    async with scratch_database(args.dsn, "bench_chat") as dsn:
        pool = await create_pool(dsn, PoolSettings(min_size=2, max_size=args.pool))
        store = PostgresEventStore(pool, clock=lambda: datetime.now(UTC))
        settings = Settings(
            pg_dsn=dsn,
            seasons_per_minute=0,
            joins_per_minute=0,
            commands_per_minute=0,
            reads_per_minute=0,
            reads_per_token_per_minute=0,
            auth_failures_per_minute=0,
        )
        app = create_app(settings, reads=False, store=store, enqueue=lambda s, d: None)
        async with in_process(app) as client:
            sid, beys = await season(client)
            quiet = await run(client, sid, beys, args, flood=False)
            quiet["divan_ms"] = await divan_ms(store, sid, 1)
            loud = await run(client, sid, beys, args, flood=True)
            loud["divan_ms"] = await divan_ms(store, sid, 2)
        await pool.close()
    print(f"chat_flood: {machine()}, {args.seconds} s per run, {args.concurrency} order loops")
    for name, figures in (("without chat", quiet), ("with chat", loud)):
        shown = ", ".join(f"{k} {v:.1f}" for k, v in figures.items())
        print(f"  {name}: {shown}")
    ratio = loud["orders_per_s"] / max(quiet["orders_per_s"], 1e-9)
    print(f"  command throughput with/without chat: {ratio:.2f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--senders", type=int, default=19)
    parser.add_argument("--pollers", type=int, default=3)
    parser.add_argument("--poll-s", type=float, default=0.01, help="a poller's pause between pages")
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--pool", type=int, default=10)
    parser.add_argument(
        "--dsn",
        default=os.environ.get("SEKSENBIR_PG_DSN", "postgresql://postgres@127.0.0.1:5432/test"),
    )
    asyncio.run(main(parser.parse_args()))
