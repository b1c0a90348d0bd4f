"""The client's own work for one group append statement (sql.APPEND_GROUP), for counting
instructions under valgrind: what an order pays on the PostgreSQL path that the in-memory
`bench.orders_path` never runs (the parameters, asyncpg's encoding of them, the answer's rows).

Run: .venv/bin/python -m bench.group_append [--statements 200] [--group 6] [--dsn …]

A scratch database (migrated, dropped afterwards) gets STATEMENTS group statements of GROUP
keyed one-event appends each, every append the first of a season of its own (as
`group_commit.GroupCommit._write_group` sends them: `group_params`, then `conn.fetch`). After a
warm-up of the same statements, they run inside one `functools.reduce`, so callgrind can count
that window alone:

    PYTHONHASHSEED=0 valgrind --tool=callgrind --collect-atstart=no \
        --toggle-collect=functools_reduce --callgrind-out-file=/dev/null \
        .venv/bin/python -m bench.group_append --statements 200

and an append's instructions are "Collected" over STATEMENTS × GROUP. Without valgrind it
prints the process CPU an append (PostgreSQL's own work is another process: not counted) and
the wall time a statement (with PostgreSQL's work and the round trip).
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import gc
import os
import time
import uuid
from datetime import UTC, datetime
from typing import Any, cast

import asyncpg

from bench.api_orders import DEFAULT_DSN, scratch_database
from shared.eventstore import sql
from shared.eventstore.append import Batch
from shared.eventstore.group_commit import group_params
from shared.eventstore.model import EventMetadata, IdempotencyRecord, NewEvent

ZERO = bytes(32)
META = EventMetadata(actor="seat", seat="3", command_id="c0ffee", at="2026-12-07T15:00:00+03:00")


def appends(first: int, count: int) -> list[tuple[Batch, bytes, IdempotencyRecord | None]]:
    """`count` keyed one-event appends, each the first of a season of its own."""
    at = datetime(2026, 12, 7, 12, 0, 0, 123456, tzinfo=UTC)
    group: list[tuple[Batch, bytes, IdempotencyRecord | None]] = []
    for n in range(first, first + count):
        event = NewEvent(
            event_id=uuid.UUID(int=n),
            type="orders_submitted.v1",
            data=b'{"seat":3,"orders":[{"unit":"A","kind":"hold","at":34}]}',
            metadata=META,
        )
        links = [(ZERO, n.to_bytes(32, "big"))]
        key = IdempotencyRecord(
            scope=f"orders:{n}",
            key=f"key-{n}",
            request_hash=bytes(32),
            status=202,
            body=b'{"accepted":true}',
        )
        group.append((Batch(f"g{n:08d}", 0, [event], at, links), ZERO, key))
    return group


def counted(args: argparse.Namespace) -> None:
    """The window inside one functools.reduce, on a loop of its own (run_until_complete)."""

    loop = asyncio.new_event_loop()
    conn = loop.run_until_complete(asyncpg.connect(args.db))
    now = datetime(2026, 12, 7, 12, 0, 1, tzinfo=UTC)
    clock = lambda: now  # noqa: E731 - the keys' completed_at, read once a group
    # made before the window: what the store hands group commit, not what it does with it
    groups = iter([appends(n * args.group, args.group) for n in range(2 * args.statements)])

    async def statement() -> None:
        items, events = cast(Any, group_params(next(groups), clock))
        if isinstance(items, str):
            rows = await conn.fetch(sql.APPEND_GROUP, items, events)
        else:  # a tree before ADR-163 (A/B): twelve item arrays and eight event arrays
            rows = await conn.fetch(sql.APPEND_GROUP, *items, *events)
        assert all(row["positions"] for row in rows), rows

    for _ in range(args.statements):
        loop.run_until_complete(statement())
    gc.collect()
    gc.freeze()
    started, wall = time.process_time(), time.perf_counter()
    functools.reduce(
        lambda _, __: loop.run_until_complete(statement()), range(args.statements), None
    )
    spent, wall = time.process_time() - started, time.perf_counter() - wall
    loop.run_until_complete(conn.close())
    loop.close()
    print(
        f"{spent / (args.statements * args.group) * 1e6:.1f} µs CPU an append (this process),"
        f" {wall / args.statements * 1e3:.2f} ms a statement (wall: PostgreSQL's work and the"
        " round trip included)"
    )


async def with_db(args: argparse.Namespace) -> None:
    async with scratch_database(args.dsn, "bench_group") as dsn:
        args.db = dsn
        await asyncio.to_thread(counted, args)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--statements", type=int, default=200)
    parser.add_argument("--group", type=int, default=6)
    parser.add_argument("--dsn", default=os.environ.get("SEKSENBIR_PG_DSN", DEFAULT_DSN))
    asyncio.run(with_db(parser.parse_args()))
