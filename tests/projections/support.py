"""Helpers for the read-side tests: simulated seasons as event chunks, canonical dumps, the app."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import asynccontextmanager
from datetime import datetime
from typing import Any, cast

import httpx
import msgspec
import redis.asyncio as aioredis

from entrypoints.gateway import create_app
from services.projections.keys import Keys, board, cross, seasons_index
from services.projections.projector import Projector
from shared.app.access import tokens as auth
from shared.app.access.tokens import token_hash
from shared.app.repository.seasons import Seasons
from shared.domain import commands as c
from shared.domain import events as ev
from shared.domain.evolve import fold
from shared.domain.lifecycle import run_divan
from shared.domain.simulate import must
from shared.domain.state import DIVANS, SeasonState
from shared.eventstore import EventMetadata, EventStore
from shared.settings import Settings
from tests.documented import check_every_problem
from tests.http.support import lifespan
from tests.live_calendar import LIVE, SEASON_NOW

OPS_TOKEN = "ops-token-for-the-projection-tests-0123456789"
AUDITOR_TOKEN = "auditor-token-for-the-projection-tests-0123456789"
SYSTEM = EventMetadata(actor="system", command_id="projection-tests")
GENERATION_KEYS = (
    "generations",
)  # per-season counters that differ between a prefix and a scratch one


# --- event streams -------------------------------------------------------------------------------
def season_chunks(
    seed: int, season_id: str, *, divans: int = DIVANS, counts_on_boards: bool = True
) -> Iterator[list[ev.Event]]:
    """A whole computer-bey season as the store sees it: setup, one chunk per Divan, Kurultay.

    Like shared.domain.simulate.season, but the events carry the stream's own season id (the
    projection indexes seasons by it) and the season may count on the cross-season boards.
    """
    state, events = must(
        SeasonState(),
        c.CreateSeason(
            season_id=season_id,
            seed=seed,
            mode="live",
            **LIVE,  # type: ignore[arg-type]
            seed_salt=f"salt-{seed}",
            counts_on_boards=counts_on_boards,
        ),
    )
    state, more = must(state, c.CloseRegistration())
    yield events + more
    for _ in range(divans):
        # a live Divan is held at its scheduled instant (on time)
        on_time = state.calendar.at(state.divan + 1) if state.calendar else None
        events = run_divan(state, now=on_time)
        state = fold(events, state)
        yield events
    if state.phase == "kurultay":
        _state, events = must(state, c.HoldKurultay())
        yield events


async def append_chunk(
    store: EventStore, season_id: str, events: Sequence[ev.Event], key: str
) -> int:
    """Append one chunk at the stream's current version; answers the new version."""
    version = await store.stream_version(season_id)
    await Seasons(store).append(season_id, version, key, list(events), SYSTEM)
    return version + len(events)


async def append_season(store: EventStore, seed: int, season_id: str, **kw: Any) -> int:
    version = 0
    for n, chunk in enumerate(season_chunks(seed, season_id, **kw)):
        version = await append_chunk(store, season_id, chunk, f"chunk/{n}")
    return version


# --- canonical dumps -----------------------------------------------------------------------------
def _s(raw: bytes | str) -> str:
    return raw.decode() if isinstance(raw, bytes) else raw


async def _value(redis: aioredis.Redis, key: str) -> Any:
    kind = _s(await redis.type(key))
    if kind == "hash":
        return {_s(k): _s(v) for k, v in sorted((await redis.hgetall(key)).items())}
    if kind == "zset":
        scored = cast(list[tuple[bytes, float]], await redis.zrange(key, 0, -1, withscores=True))
        return [[_s(m), s] for m, s in scored]
    if kind == "list":
        return [_s(v) for v in await redis.lrange(key, 0, -1)]
    if kind == "string":
        value = await redis.get(key)
        assert value is not None, key  # its type was just read as "string"
        return _s(value)
    if kind == "none":
        return None
    raise AssertionError(f"unexpected type {kind} of {key}")


async def keys_matching(redis: aioredis.Redis, pattern: str) -> list[str]:
    return sorted([_s(k) async for k in redis.scan_iter(match=pattern, count=1000)])


async def generation_dump(
    redis: aioredis.Redis, prefix: str, season_id: str, gen: int | None = None
) -> dict[str, Any]:
    """Every key of one generation (the active one by default): relative name -> typed value."""
    if gen is None:
        raw = await redis.get(Keys.active(prefix, season_id))
        assert raw is not None, f"no active generation of {season_id}"
        gen = int(raw)
    base = Keys(prefix, season_id, gen).base
    out = {}
    for key in await keys_matching(redis, f"{_glob(base)}:*"):
        out[key.removeprefix(base + ":")] = await _value(redis, key)
    return out


async def global_dump(redis: aioredis.Redis, prefix: str) -> dict[str, Any]:
    """The cross-season keys: the season index, the boards, the betrayal history's index."""
    out = {"seasons": await _value(redis, seasons_index(prefix))}
    for key in await keys_matching(redis, _glob(board(prefix, "")) + "*"):
        out[key.removeprefix(cross(prefix, ""))] = await _value(redis, key)
    for key in await keys_matching(redis, _glob(cross(prefix, "betrayals:")) + "*"):  # issue 13
        out[key.removeprefix(cross(prefix, ""))] = await _value(redis, key)
    return out


def _glob(text: str) -> str:
    """Escape a literal for a SCAN MATCH pattern (the hash tags carry braces, not globs)."""
    return "".join("\\" + ch if ch in "*?[]\\" else ch for ch in text)


def canonical(dump: dict[str, Any]) -> str:
    return json.dumps(dump, sort_keys=True, ensure_ascii=False, indent=0)


async def rebuilt_dump(
    store: EventStore, redis: aioredis.Redis, prefix: str, season_id: str
) -> dict[str, Any]:
    """A from-zero rebuild of one season into a scratch prefix, dumped (and removed again)."""
    scratch = f"{prefix}-scratch"
    try:
        await Projector(store, redis, scratch).rebuild(season_id)
        return await generation_dump(redis, scratch, season_id)
    finally:
        await delete_prefix(redis, scratch)


async def rebuilt_globals(store: EventStore, redis: aioredis.Redis, prefix: str) -> dict[str, Any]:
    scratch = f"{prefix}-scratch"
    try:
        projector = Projector(store, redis, scratch)
        for season_id in await store.list_seasons():
            await projector.rebuild(season_id)
        return await global_dump(redis, scratch)
    finally:
        await delete_prefix(redis, scratch)


async def assert_rebuild_equal(
    store: EventStore, redis: aioredis.Redis, prefix: str, season_id: str
) -> None:
    live = await generation_dump(redis, prefix, season_id)
    fresh = await rebuilt_dump(store, redis, prefix, season_id)
    assert canonical(live) == canonical(fresh)
    assert live["checkpoint"] == str(await store.stream_version(season_id))


async def delete_prefix(redis: aioredis.Redis, prefix: str) -> None:
    keys = [k async for k in redis.scan_iter(match=f"{_glob(prefix)}:*", count=1000)]
    for start in range(0, len(keys), 500):
        await redis.unlink(*keys[start : start + 500])


# --- the app -------------------------------------------------------------------------------------
def settings(prefix: str, redis_url: str = "redis://127.0.0.1:6379/0") -> Settings:
    return Settings(
        redis_url=redis_url,
        broker_namespace=f"{prefix}-broker",  # the failed-token buckets too
        projection_prefix=prefix,
        ops_token_hashes=(token_hash(OPS_TOKEN),),
        auditor_token_hashes=(token_hash(AUDITOR_TOKEN),),
        # reads are not limited here: a test reads far more than a phone (tests/http/
        # test_read_limits.py sets them)
        reads_per_minute=0,
        reads_per_token_per_minute=0,
    )


def bearer(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


class Gateway:
    """The gateway app (command + query API) on a store and a Redis client, and what it asked for."""

    def __init__(
        self,
        store: EventStore,
        redis: aioredis.Redis,
        prefix: str,
        clock: Callable[[], datetime] | None = None,
        **overrides: Any,
    ) -> None:
        """`overrides`: Settings fields (e.g. the stream caps) for this app; `clock`: the
        server's instant for both APIs (the summary's lock countdown)."""
        self.store = store
        self.redis = redis
        self.prefix = prefix
        self.enqueued: list[tuple[str, int]] = []
        self.rebuilds: list[str] = []
        kw = redis.connection_pool.connection_kwargs  # the test's own Redis db, for the limiter
        url = (
            f"unix://{kw['path']}?db={kw.get('db', 0)}"
            if "path" in kw
            else f"redis://{kw.get('host', '127.0.0.1')}:{kw.get('port', 6379)}/{kw.get('db', 0)}"
        )
        extra: dict[str, Any] = {"clock": clock} if clock is not None else {}
        self.app = create_app(
            msgspec.structs.replace(settings(prefix, url), **overrides),
            store=store,
            enqueue=lambda season_id, divan: self.enqueued.append((season_id, divan)),
            redis=redis,
            rebuild=self.rebuilds.append,
            **extra,
        )


@asynccontextmanager
async def open_gateway(
    store: EventStore,
    redis: aioredis.Redis,
    prefix: str,
    clock: Callable[[], datetime] = lambda: SEASON_NOW,
    **overrides: Any,
) -> AsyncIterator[tuple[Gateway, httpx.AsyncClient]]:
    """The gateway served in-loop through httpx's ASGI transport (plain request/response only).

    Its clock stands still at SEASON_NOW unless the test gives one: no test reads the wall
    clock, so none changes its outcome with the date it runs on."""
    gw = Gateway(store, redis, prefix, clock, **overrides)
    transport = httpx.ASGITransport(app=cast(Any, gw.app))  # Litestar's ASGI types are narrower
    async with (
        lifespan(gw.app),
        httpx.AsyncClient(transport=transport, base_url="http://testserver", timeout=10) as client,
    ):
        check_every_problem(client, gw.app)  # every refusal is one its operation lists
        yield gw, client


def new_bey_token(season_id: str, seat: int) -> tuple[str, ev.TokenRotated]:
    token = auth.new_token(season_id, seat)
    return token, ev.TokenRotated(seat=seat, by="ops", token_hash=auth.token_hash(token))
