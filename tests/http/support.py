"""Helpers for the HTTP tests: an in-loop client, seasons made over HTTP or from events, snapshots."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, cast

import httpx
import msgspec
from litestar import Litestar

from entrypoints.gateway import create_app
from services.resolver.divan import resolve
from shared.app.access import tokens as auth
from shared.app.access.tokens import token_hash
from shared.app.repository.seasons import Seasons
from shared.domain import commands as c
from shared.domain import events as ev
from shared.domain.decide import decide
from shared.domain.evolve import fold
from shared.domain.lifecycle import run_divan
from shared.domain.state import SeasonState
from shared.eventstore import EventMetadata, EventStore
from shared.settings import Settings
from tests.clock import StepClock
from tests.documented import check_every_problem
from tests.live_calendar import CREATED_AT, LIVE

OPS_TOKEN = "ops-token-for-the-http-tests-0123456789"
AUDITOR_TOKEN = "auditor-token-for-the-http-tests-0123456789"
SEED = 7  # a trial season with a given seed: every test season plays the same way
ANKARA = 6  # the trial bey's memleket in most tests; neighbours 14, 18, 26, 40, 42, 68, 71
ISTANBUL = 34  # far from Ankara: never a neighbour, never the trial bey's
PROBLEM = "application/problem+json"
SYSTEM = EventMetadata(actor="system", command_id="test-setup")


# Where the apps under test count failed tokens, under a namespace of their own: the session's
# own Redis db for an integration test (tests/http/conftest.py sets it), else a closed port.
NO_REDIS = "redis://127.0.0.1:9/0"
REDIS_URL = {"url": NO_REDIS}


def settings(**overrides: Any) -> Settings:
    """Settings with one ops and one auditor token (kept, as in production, only as hashes)."""
    return Settings(
        ops_token_hashes=(token_hash(OPS_TOKEN),),
        auditor_token_hashes=(token_hash(AUDITOR_TOKEN),),
        # each app its own Redis namespace: the failed-token buckets are shared through Redis
        **{
            "broker_namespace": f"test-{secrets.token_hex(4)}",
            "redis_url": REDIS_URL["url"],
            # the tests seat up to 38 players from one test client: joins are not limited here
            # (tests/http/test_rate_limit.py sets the limits it tests)
            "joins_per_minute": 0,
            # … nor reads: a test polls and reads far more than a phone (the read limits'
            # own tests set them)
            "reads_per_minute": 0,
            "reads_per_token_per_minute": 0,
            **overrides,
        },
    )


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def api_clock() -> StepClock:
    """The command edge's injected clock in the HTTP tests: a fake that starts an hour after a
    test live season's registration closes (tests.live_calendar), well before its Divan 1, so
    no test depends on the machine's date; a test moves it (`advance`), never sleeps."""
    return StepClock(CREATED_AT + timedelta(hours=2))


@dataclass
class Api:
    """The app under test, its client, its store and the Divans it asked the resolver for."""

    client: httpx.AsyncClient
    store: EventStore
    enqueued: list[tuple[str, int]] = field(default_factory=list)
    app: Any = None  # the Litestar app (its state holds the running services)
    clock: StepClock = field(default_factory=api_clock)


@asynccontextmanager
async def lifespan(app: Litestar) -> AsyncIterator[None]:
    """Run the app's ASGI lifespan on the current event loop (startup, then shutdown)."""
    inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    outbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    scope = {"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}
    task = asyncio.create_task(app(scope, inbox.get, outbox.put))  # type: ignore[arg-type]
    await inbox.put({"type": "lifespan.startup"})
    started = await asyncio.wait_for(outbox.get(), 10)
    assert started["type"] == "lifespan.startup.complete", started
    try:
        yield
    finally:
        await inbox.put({"type": "lifespan.shutdown"})
        await asyncio.wait_for(outbox.get(), 10)
        await asyncio.wait_for(task, 10)


@asynccontextmanager
async def open_api(
    store: EventStore,
    config: Settings | None = None,
    *,
    api_store: EventStore | None = None,
    clock: StepClock | None = None,
    limiter_clock: Callable[[], float] | None = None,
    timing: bool = False,
) -> AsyncIterator[Api]:
    """create_app on `api_store` (default: `store`) with a list-appending enqueue, served in-loop
    (`timing`: every request timed and its access line written, as `seksenbir serve` does).

    httpx's ASGITransport runs the app on the test's own event loop, so requests really run
    concurrently under asyncio.gather and the asyncpg pool of the fixture stays on its loop.
    """
    enqueued: list[tuple[str, int]] = []
    clock = clock or api_clock()
    extra: dict[str, Any] = {"limiter_clock": limiter_clock} if limiter_clock is not None else {}
    app = create_app(
        config or settings(),
        reads=False,
        store=api_store or store,
        enqueue=lambda season_id, divan: enqueued.append((season_id, divan)),
        clock=clock,
        timing=timing,
        **extra,
    )
    transport = httpx.ASGITransport(app=cast(Any, app))  # Litestar's ASGI types are narrower
    async with (
        lifespan(app),
        httpx.AsyncClient(transport=transport, base_url="http://testserver") as client,
    ):
        check_every_problem(client, app)
        yield Api(client, store, enqueued, app, clock)


@dataclass(frozen=True)
class Bey:
    """A human seat of a season, as its client knows it."""

    season_id: str
    seat: int
    token: str
    memleket: int

    def auth(self, key: str | None = None) -> dict[str, str]:
        """The bey's token, its Idempotency-Key if given, and the Content-Type every body must
        have (ADR-75: a body without one is 415)."""
        headers = {**bearer(self.token), "Content-Type": "application/json"}
        if key is not None:
            headers["Idempotency-Key"] = key
        return headers

    def url(self, tail: str = "") -> str:
        return f"/v1/seasons/{self.season_id}{tail}"


async def create_trial(client: httpx.AsyncClient, memleket: int = ANKARA, seed: int = SEED) -> Bey:
    """POST /v1/seasons: a trial season with one human bey (R-1.2)."""
    r = await client.post("/v1/seasons", json={"memleket": memleket, "seed": str(seed)})
    assert r.status_code == 201, r.text
    body = r.json()
    return Bey(body["season_id"], body["seat"], body["token"], memleket)


async def build_season(
    store: EventStore, memlekets: list[int], *, mode: str = "live", seed: int = SEED
) -> list[Bey]:
    """A season with a human bey per memleket, folded from domain events and appended directly.

    The API only creates trial seasons (one human); this is how a live season with many
    humans looks after registration: SeasonCreated, BeyJoined ×n, RegistrationClosed (empty
    seats filled by computer beys, R-11.1) and a TokenRotated per human seat (hash only).
    """
    season_id = secrets.token_hex(16)
    state, events = SeasonState(), []
    commands: list[c.Command] = [
        c.CreateSeason(
            season_id=season_id,
            seed=seed,
            mode=mode,  # type: ignore[arg-type]
            seed_salt="salt",
            **(LIVE if mode == "live" else {}),  # type: ignore[arg-type]
        )
    ]
    commands += [c.JoinSeason(memleket=m) for m in memlekets]
    commands.append(c.CloseRegistration())
    for command in commands:
        if isinstance(command, c.CloseRegistration) and state.phase != "registration":
            continue  # a 19th seat taken closed registration at once
        result = decide(state, command)
        assert isinstance(result, list), result
        state = fold(result, state)
        events.extend(result)
    beys = []
    for bey in state.beys:
        if not bey.computer:
            token = auth.new_token(season_id, bey.seat)
            events.append(
                ev.TokenRotated(seat=bey.seat, by="ops", token_hash=auth.token_hash(token))
            )
            beys.append(Bey(season_id, bey.seat, token, bey.memleket))
    await Seasons(store).append(season_id, 0, "setup", events, SYSTEM)
    return beys


async def state_of(store: EventStore, season_id: str) -> tuple[SeasonState, int]:
    loaded = await Seasons(store).load(season_id)
    return loaded.state, loaded.version


def request_divan(
    client: httpx.AsyncClient, bey: Bey, divan: int, key: str | None = None
) -> Awaitable[httpx.Response]:
    """POST /divans naming Divan `divan` (R-1.2: the request names the Divan it asks for)."""
    return client.post(bey.url("/divans"), headers=bey.auth(key), json={"divan": divan})


async def play_divans(api: Api, bey: Bey, count: int) -> None:
    """Trial: POST /divans (202, enqueued) and let the real resolver resolve it, `count` times."""
    seasons = Seasons(api.store)
    for _ in range(count):
        state, _version = await state_of(api.store, bey.season_id)
        divan = state.divan + 1
        r = await request_divan(api.client, bey, divan)
        assert (r.status_code, r.json()) == (202, {"divan": divan, "status": "resolving"}), r.text
        assert api.enqueued[-1] == (bey.season_id, divan)
        assert await resolve(seasons, bey.season_id, divan) == "resolved"


async def play_live_divans(store: EventStore, season_id: str, count: int) -> None:
    """Live: what the scheduler and resolver do at each Divan instant (lock + resolve), appended."""
    seasons = Seasons(store)
    for _ in range(count):
        loaded = await seasons.load(season_id)
        n = loaded.state.divan + 1
        calendar = loaded.state.calendar
        # a live Divan is held at an instant: its own, on time
        events = run_divan(loaded.state, now=calendar.at(n) if calendar is not None else None)
        meta = EventMetadata(actor="system", command_id=f"divan/{n}")
        await seasons.append(season_id, loaded.version, f"divan/{n}", events, meta)


async def log_bytes(store: EventStore) -> bytes:
    """Every stream of the store, byte for byte (events, envelopes, hashes, metadata)."""
    streams = {s: await store.read_stream(s) for s in await store.list_seasons()}
    return msgspec.json.encode(streams)


async def stream_types(store: EventStore, season_id: str, from_version: int = 0) -> list[str]:
    return [e.type for e in await store.read_stream(season_id, from_version)]


async def hold_kurultay(store: EventStore, season_id: str) -> None:
    """Live: what the scheduler does when the Kurultay's 24 hours are over (R-10.4)."""
    seasons = Seasons(store)
    loaded = await seasons.load(season_id)
    events = decide(loaded.state, c.HoldKurultay())
    assert isinstance(events, list), events
    meta = EventMetadata(actor="system", command_id="kurultay")
    await seasons.append(season_id, loaded.version, "kurultay", events, meta)


def echoed(orders: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Orders as the API shows them back: every field (defaults filled), canonical key order."""
    return [dict(sorted({"target": None, "units": 0, **o}.items())) for o in orders]


def assert_problem(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    """RFC 9457: problem+json with the HTTP status, a stable code and a human detail."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith(PROBLEM), response.headers
    body = response.json()
    assert body["status"] == status
    assert body["code"] == code, body
    assert isinstance(body["detail"], str)
    assert body["detail"]
    return body  # type: ignore[no-any-return]


class GatedStore:
    """A store whose appends wait at a gate: makes the first of two concurrent requests slow."""

    def __init__(self, inner: EventStore) -> None:
        self.inner = inner
        self.entered = asyncio.Event()
        self.release = asyncio.Event()
        self.closed = True

    @property
    def idempotency(self) -> Any:
        return self.inner.idempotency

    async def append(self, *args: Any, **kwargs: Any) -> Any:
        if self.closed:
            self.entered.set()
            await self.release.wait()
        return await self.inner.append(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


class BarrierStore:
    """A store whose first `parties` appends wait for each other: every racer has decided
    on the same state before any of them writes (a deterministic lost-update race)."""

    def __init__(self, inner: EventStore, parties: int = 2) -> None:
        self.inner = inner
        self.parties = parties
        self.waiting = 0
        self.all_here = asyncio.Event()

    @property
    def idempotency(self) -> Any:
        return self.inner.idempotency

    async def append(self, *args: Any, **kwargs: Any) -> Any:
        if not self.all_here.is_set():
            self.waiting += 1
            if self.waiting >= self.parties:
                self.all_here.set()
            await asyncio.wait_for(self.all_here.wait(), 10)
        return await self.inner.append(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


class FailingStore:
    """A store whose chosen method raises: for the 409 conflict and 503 store_busy answers."""

    def __init__(self, inner: EventStore, method: str, error: Callable[[], Exception]) -> None:
        self.inner = inner
        self.method = method
        self.error = error
        self.calls = 0

    @property
    def idempotency(self) -> Any:
        return self.inner.idempotency

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self.inner, name)
        if name != self.method:
            return attr

        async def failing(*args: Any, **kwargs: Any) -> Any:
            self.calls += 1
            raise self.error()

        return failing


async def unchanged(store: EventStore, request: Awaitable[httpx.Response]) -> httpx.Response:
    """Send a request that must be refused; assert every stream is byte-for-byte unchanged."""
    before = await log_bytes(store)
    response = await request
    assert await log_bytes(store) == before, "a refused command changed the event log"
    return response


@asynccontextmanager
async def open_litestar_client(
    store: EventStore, config: Settings | None = None, *, clock: StepClock | None = None
) -> AsyncIterator[Api]:
    """The same app under Litestar's own AsyncTestClient (for loop-free stores only).

    Litestar 2's AsyncTestClient runs the app on a blocking portal in another thread with its
    own event loop and blocks the caller per request: fine for InMemoryEventStore, but an
    asyncpg pool made on the test's loop cannot be used there, and requests never overlap.
    """
    from litestar.testing import AsyncTestClient

    enqueued: list[tuple[str, int]] = []
    clock = clock or api_clock()
    app = create_app(
        config or settings(),
        reads=False,
        store=store,
        enqueue=lambda season_id, divan: enqueued.append((season_id, divan)),
        clock=clock,
    )
    async with AsyncTestClient(app) as client:
        check_every_problem(client, app)
        yield Api(client, store, enqueued, app, clock)
