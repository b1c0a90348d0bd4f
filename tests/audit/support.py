"""Seasons for the export, verify, import and replay tests, and the edits an attacker makes.

`season_records` plays a whole season of computer beys (all 16 Divans and the Kurultay) through
an in-memory event store, the way the resolver appends it; a live one reveals its seed and salt
at the Kurultay (R-1.5). The tamper helpers edit an export's lines, and `rechain` recomputes the
hashes from a line on, and the header's head, as a forger who rewrites the file would.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from shared.app.ops.export import export_lines, to_new
from shared.app.repository.seasons import Seasons
from shared.domain import commands as c
from shared.domain.decide import decide
from shared.domain.evolve import fold
from shared.domain.lifecycle import run_divan
from shared.domain.simulate import must
from shared.domain.state import DIVANS, REPORT_VERSION, SeasonState
from shared.eventstore import EventMetadata, EventStore, InMemoryEventStore, RecordedEvent
from tests.live_calendar import LIVE

SYSTEM = EventMetadata(actor="system")
LATE_DIVAN = 5  # of a live season: held late, so its report says so (issue 12)
Line = dict[str, Any]


async def store_season(
    store: EventStore,
    season_id: str,
    seed: int,
    *,
    live: bool = False,
    divans: int = DIVANS,
    report_version: int = REPORT_VERSION,
) -> None:
    """Create the season, close registration, resolve `divans` Divans, hold the Kurultay.
    `report_version` SEALED_REPORT_VERSION: its orders sealed at each lock (ADR-57)."""
    seasons = Seasons(store)
    extra: dict[str, Any] = {"mode": "live", "seed_salt": "pepper", **LIVE} if live else {}
    extra["report_version"] = report_version
    state, events = must(SeasonState(), c.CreateSeason(season_id=season_id, seed=seed, **extra))
    state, more = must(state, c.CloseRegistration())
    version = len(await seasons.append(season_id, 0, "setup", [*events, *more], SYSTEM))
    for n in range(1, divans + 1):
        # a live Divan is held at its instant; LATE_DIVAN an hour late, after downtime
        at = state.calendar.at(n) if state.calendar is not None else None
        if at is not None and n == LATE_DIVAN:
            at += timedelta(hours=1)
        divan = run_divan(state, now=at)
        state = fold(divan, state)
        version += len(await seasons.append(season_id, version, f"divan/{n}", divan, SYSTEM))
    if divans == DIVANS:
        held = decide(state, c.HoldKurultay())
        assert isinstance(held, list), held
        await seasons.append(season_id, version, "kurultay", held, SYSTEM)


def season_records(
    season_id: str, seed: int, *, live: bool = False, report_version: int = REPORT_VERSION
) -> list[RecordedEvent]:
    async def run() -> list[RecordedEvent]:
        store = InMemoryEventStore(clock=lambda: datetime(2026, 12, 1, tzinfo=UTC))
        await store_season(store, season_id, seed, live=live, report_version=report_version)
        return await store.read_stream(season_id)

    return asyncio.run(run())


def season_records_v1(season_id: str, seed: int) -> list[RecordedEvent]:
    """The same season as `season_records`, chained with version 1 (as seasons stored before
    migration 0007 are): stored by a store asked for chain version 1."""
    return asyncio.run(records_v1(season_id, seed))


async def records_v1(season_id: str, seed: int) -> list[RecordedEvent]:
    scratch = InMemoryEventStore(clock=lambda: datetime(2026, 12, 1, tzinfo=UTC))
    await store_season(scratch, season_id, seed, live=True)
    store = InMemoryEventStore(clock=lambda: datetime(2026, 12, 1, tzinfo=UTC))
    await store.append(season_id, 0, to_new(await scratch.read_stream(season_id)), chain=1)
    return await store.read_stream(season_id)


def export_of(season_id: str, records: list[RecordedEvent], *, redact: bool = False) -> list[Line]:
    """The export as parsed JSON lines (header first); `redact`: an auditor's (R-14)."""
    return [
        json.loads(x) for x in export_lines(season_id, records, records[-1].hash, redact=redact)
    ]


def dump(lines: list[Line]) -> bytes:
    return b"".join(json.dumps(x, ensure_ascii=False).encode() + b"\n" for x in lines)


def index_of(lines: list[Line], test: Callable[[Line], bool]) -> int:
    """The first event line (index into `lines`, the header is 0) `test` accepts."""
    return next(i for i, x in enumerate(lines) if i > 0 and test(x))


def edit_data(line: Line, change: Callable[[Any], None]) -> None:
    """Change an event line's data, and its data_digest with it (as a forger would)."""
    data = json.loads(line["data"])
    change(data)
    line["data"] = json.dumps(data, separators=(",", ":"), sort_keys=True, ensure_ascii=False)
    if "data_digest" in line:
        line["data_digest"] = hashlib.sha256(line["data"].encode()).hexdigest()


def rechain(lines: list[Line], start: int = 1) -> None:
    """Recompute prev_hash and hash from line `start` on, and the header's head and count,
    following docs/export.md with hashlib only (as a forger, or an auditor, would)."""
    season, chain = lines[0]["season_id"], lines[0]["chain"]
    prev = bytes.fromhex(lines[start - 1]["hash"]) if start > 1 else bytes(32)
    for line in lines[start:]:
        line["prev_hash"] = prev.hex()
        prev = hashlib.sha256(prev + envelope(season, line, chain)).digest()
        line["hash"] = prev.hex()
    lines[0]["head"] = lines[-1]["hash"]
    lines[0]["events"] = len(lines) - 1


def envelope(season: str, line: Line, chain: str = "seksenbir/event-chain/2") -> bytes:
    """The chain envelope of one event line, from docs/export.md alone: chain version 1 covers
    the data, version 2 its sha256 (a redacted line's data_digest)."""

    def field(b: bytes) -> bytes:
        return len(b).to_bytes(4, "big") + b

    import uuid

    if chain == "seksenbir/event-chain/1":
        covered = line["data"].encode()
    elif "data" in line:
        covered = hashlib.sha256(line["data"].encode()).digest()
    else:
        covered = bytes.fromhex(line["data_digest"])
    return b"".join(
        (
            field(chain.encode()),
            field(season.encode()),
            int(line["version"]).to_bytes(8, "big"),
            uuid.UUID(line["event_id"]).bytes,
            field(line["type"].encode()),
            field(covered),
        )
    )
