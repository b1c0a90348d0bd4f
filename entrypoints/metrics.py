"""Operational metrics in Prometheus format: `GET /metrics` on the gateway (ARCHITECTURE).

- Requests: `seksenbir_requests_total` by method, route template (never a season id or a
  token) and status, `seksenbir_request_duration_seconds` by method and route template, and
  `seksenbir_requests_in_progress`; kept in plain dicts by a small middleware (~2 µs a request,
  where prometheus_client's labelled metrics cost ~20) and rendered at scrape time.
- Queues: `seksenbir_queue_messages{queue, state}`, ready / delayed / dead (Dramatiq's lists
  and dead-letter set in Redis), read at scrape time.
- Appends: `seksenbir_append_statements_total`, `seksenbir_appends_total` (their ratio is how
  many appends group commit puts in a statement) and `seksenbir_append_group_splits_total`
  (groups an error refused, written one append at a time), this process's since it started.
- Read side: `seksenbir_projection_seasons_behind` and `seksenbir_projection_events_behind`,
  how far the read models trail the event store (a released season trails nothing), and
  `seksenbir_seasons`, read at scrape time (one PostgreSQL query and a few pipelined Redis
  round trips however many seasons there are); `seksenbir_projection_seasons_held` and
  `seksenbir_projection_seasons_released`: the projected seasons Redis holds and those
  released after a quiet period (ADR-158).

Nothing a player sent reaches a label: routes are templates, and no metric is per season.

The same middleware writes the access log, one line per request once it is answered
(shared.logs.access_log: method, route template, status, duration, the season id the path
names, if well formed; never a token, a query string, a header or a body). Probes and scrapes
(UNTIMED) are neither timed nor logged.
"""

from __future__ import annotations

import time
from bisect import bisect_left
from collections.abc import Callable, Iterator
from typing import Any

import redis.asyncio as aioredis
from litestar import Request, Response, get
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Gauge,
    generate_latest,
)
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)

from services.projections.keys import seasons_index
from services.projections.positions import Positions
from services.projections.release import released_key
from shared.app.access.tokens import is_season_id
from shared.app.messaging.queues import DIVANS_QUEUE, PROJECTIONS_QUEUE
from shared.eventstore import EventStore, GroupStats
from shared.logs import access_log

BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
UNTIMED = frozenset({"/metrics", "/health", "/ready"})
ASGIApp = Callable[..., Any]


class _Series:
    __slots__ = ("buckets", "count", "total")

    def __init__(self) -> None:
        self.count = 0
        self.total = 0.0
        self.buckets = [0] * (len(BUCKETS) + 1)  # per bucket, not cumulative; the last is +Inf


class RequestMetrics:
    """HTTP request counts and latencies of this process, collected by Prometheus at scrape."""

    def __init__(self) -> None:
        self._counts: dict[tuple[str, str, str], int] = {}
        self._latency: dict[tuple[str, str], _Series] = {}
        self.in_progress = 0

    def observe(self, method: str, path: str, status: int, seconds: float) -> None:
        key = (method, path, str(status))
        self._counts[key] = self._counts.get(key, 0) + 1
        series = self._latency.get((method, path))
        if series is None:
            series = self._latency[(method, path)] = _Series()
        series.count += 1
        series.total += seconds
        series.buckets[bisect_left(BUCKETS, seconds)] += 1

    def collect(self) -> Iterator[Metric]:
        counts = CounterMetricFamily(
            "seksenbir_requests", "HTTP requests answered", labels=["method", "path", "status"]
        )
        for labels, n in sorted(self._counts.items()):
            counts.add_metric(list(labels), n)
        yield counts
        latency = HistogramMetricFamily(
            "seksenbir_request_duration_seconds",
            "Time from request to the end of the answer",
            labels=["method", "path"],
        )
        for (method, path), series in sorted(self._latency.items()):
            cumulative: list[tuple[str, float]] = []
            running = 0
            for bound, n in zip((*map(str, BUCKETS), "+Inf"), series.buckets, strict=True):
                running += n
                cumulative.append((bound, running))
            latency.add_metric([method, path], cumulative, series.total)
        yield latency
        yield GaugeMetricFamily(
            "seksenbir_requests_in_progress", "HTTP requests being answered", self.in_progress
        )


REQUESTS = RequestMetrics()
REGISTRY.register(REQUESTS)


def begun() -> float:
    """A timed request begins: one more in progress; its start on the performance clock."""
    started = time.perf_counter()
    REQUESTS.in_progress += 1
    return started


def ended(scope: dict[str, Any], status: int, started: float) -> None:
    """A timed request `begun` at `started` is over with `status` (500 if it sent none): it is
    observed by its route template and logged (access_log). The order fast path calls the two
    itself (services/command/fast_orders.py, ADR-151): one line, the same fields, for both."""
    REQUESTS.in_progress -= 1
    path = scope.get("path_template") or "unmatched"
    seconds = time.perf_counter() - started
    REQUESTS.observe(scope["method"], path, status, seconds)
    # Only a well-formed season id: a path segment is whatever the client sent
    sid = scope.get("path_params", {}).get("season_id")
    season_id = sid if isinstance(sid, str) and is_season_id(sid) else None
    access_log(scope["method"], path, status, seconds, season_id)


def timed(app: ASGIApp) -> ASGIApp:
    """Litestar middleware: time each HTTP request into REQUESTS by its route template, and
    log it (access_log) after the answer has been sent."""

    async def middleware(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["path"] in UNTIMED:
            await app(scope, receive, send)
            return
        status = 500

        async def watch(message: dict[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        started = begun()
        try:
            await app(scope, receive, watch)
        finally:
            ended(scope, status, started)

    return middleware


QUEUE = Gauge(
    "seksenbir_queue_messages",
    "Messages in a Dramatiq queue: ready, delayed (retries, backoff) or dead (dead-lettered)",
    ["queue", "state"],
)
SEASONS = Gauge("seksenbir_seasons", "Seasons in the event store")
BEHIND_SEASONS = Gauge(
    "seksenbir_projection_seasons_behind", "Seasons whose read model trails the event store"
)
HELD = Gauge(
    "seksenbir_projection_seasons_held",
    "Projected seasons whose read models Redis holds (not released, ADR-158)",
)
RELEASED = Gauge(
    "seksenbir_projection_seasons_released",
    "Seasons whose read models were released from Redis after a quiet period (ADR-158)",
)
BEHIND_EVENTS = Gauge(
    "seksenbir_projection_events_behind", "Events stored but not projected yet, over all seasons"
)


async def queue_depths(redis: aioredis.Redis, namespace: str) -> None:
    pipe = redis.pipeline(transaction=False)
    queues = (DIVANS_QUEUE, PROJECTIONS_QUEUE)
    for q in queues:
        pipe.llen(f"{namespace}:{q}")
        pipe.llen(f"{namespace}:{q}.DQ")
        pipe.zcard(f"{namespace}:{q}.XQ")
    counts = await pipe.execute()
    for i, q in enumerate(queues):
        for j, state in enumerate(("ready", "delayed", "dead")):
            QUEUE.labels(queue=q, state=state).set(counts[3 * i + j])


class Backlog:
    """How far the read models trail the store, read as the sweep reads it (ADR-147): after a
    scrape's first read, only the seasons appended to since the last and those behind then.
    Before, every scrape read every season ever made (~0.3–0.6 s of this process's CPU at
    20,000 seasons, the API's event loop held for it)."""

    def __init__(self, store: EventStore, redis: aioredis.Redis, prefix: str) -> None:
        self._positions = Positions(store, redis, prefix)
        self._store, self._redis, self._prefix = store, redis, prefix
        self.behind: dict[str, int] = {}  # season -> events behind, at the last read

    async def read(self) -> None:
        found = await self._positions.read(self.behind)
        if self._positions.full:
            self.behind = {}
        for season_id, (version, checkpoint) in found.items():
            if version > (checkpoint or 0):
                self.behind[season_id] = version - (checkpoint or 0)
            else:
                self.behind.pop(season_id, None)
        SEASONS.set(await self._store.season_count())
        BEHIND_SEASONS.set(len(self.behind))
        BEHIND_EVENTS.set(sum(self.behind.values()))
        pipe = self._redis.pipeline(transaction=False)
        pipe.zcard(seasons_index(self._prefix))
        pipe.hlen(released_key(self._prefix))
        projected, released = await pipe.execute()
        HELD.set(max(0, projected - released))
        RELEASED.set(released)


class _Appends:
    """This process's group-commit counts, as Prometheus counters (read from the store)."""

    def __init__(self, stats: GroupStats) -> None:
        self._stats = stats

    def collect(self) -> Iterator[Metric]:
        s = self._stats
        yield CounterMetricFamily(
            "seksenbir_append_statements", "Append statements written", value=s.statements
        )
        yield CounterMetricFamily(
            "seksenbir_appends", "Appends in those statements", value=s.appends
        )
        yield CounterMetricFamily(
            "seksenbir_append_group_splits",
            "Groups of appends an error refused, then written one append at a time",
            value=s.splits,
        )


def append_counts(store: EventStore) -> bytes:
    """The store's group-commit counters in text format (none for a store without them)."""
    stats = getattr(store, "group_stats", None)
    if stats is None:
        return b""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Appends(stats()))
    return generate_latest(registry)


# Prometheus' exposition type without its charset: Litestar appends `; charset=utf-8` to every
# text/ type, so CONTENT_TYPE_LATEST as it is named the charset twice.
METRICS_TYPE = "; ".join(p for p in CONTENT_TYPE_LATEST.split("; ") if not p.startswith("charset="))


@get("/metrics", include_in_schema=False, media_type=METRICS_TYPE)
async def metrics(request: Request[Any, Any, Any]) -> Response[bytes]:
    """Prometheus text format; the scrape-time gauges are read first."""
    state = request.app.state
    query = getattr(state, "query", None)
    services = getattr(state, "services", None)
    namespace = getattr(state, "broker_namespace", None)
    if query is not None:
        if namespace is not None:
            await queue_depths(query.redis, namespace)
        if services is not None:
            backlog = getattr(state, "backlog", None)
            if backlog is None:
                backlog = state.backlog = Backlog(services.seasons.store, query.redis, query.prefix)
            await backlog.read()
    body = generate_latest(REGISTRY)
    if services is not None:
        body += append_counts(services.seasons.store)
    return Response(body, media_type=METRICS_TYPE)
