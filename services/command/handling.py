"""One command's path: parse, authorise, Idempotency-Key, decide, append with retries, respond."""

from __future__ import annotations

import asyncio
import random
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import structlog
from litestar import Request, Response

from services.command import auth
from services.command.problems import PROBLEM, Problem, problem_response
from shared.app.seasons import Loaded, SeasonNotFound, Seasons
from shared.domain import codec
from shared.domain import events as ev
from shared.domain.commands import Command, Rejection
from shared.domain.decide import decide
from shared.domain.state import SeasonState
from shared.eventstore import (
    ConcurrencyError,
    EventMetadata,
    Found,
    IdempotencyKeyTaken,
    IdempotencyRecord,
    InProgress,
    Mismatch,
    Replay,
    StoreBusyError,
    request_hash,
)

log = structlog.get_logger(__name__)
# Refusals that a retry with the same key may turn into success: never stored under the key.
TRANSIENT = frozenset({"divan_locked", "conflict", "store_busy"})
# Answers about the key itself: never stored under it either.
KEY_CODES = frozenset({"idempotency_key_reused", "idempotency_key_in_flight"})
JSON = "application/json"


@dataclass
class Services:
    """What the handlers need, opened in the app's lifespan and kept on app.state."""

    seasons: Seasons
    enqueue: Callable[[str, int], None] = lambda season_id, divan: None
    ops: tuple[str, ...] = ()
    auditors: tuple[str, ...] = ()
    retries: int = 5
    in_flight: set[tuple[str, str]] = field(default_factory=set)  # (scope, key) running here


def services(request: Request[Any, Any, Any]) -> Services:
    return request.app.state.services  # type: ignore[no-any-return]


async def load(svc: Services, season_id: str) -> Loaded:
    try:
        return await svc.seasons.load(season_id)
    except SeasonNotFound:
        raise Problem(404, "season_not_found", "Böyle bir sezon yok / no such season") from None
    except StoreBusyError:
        raise _busy() from None


def _busy() -> Problem:
    p = Problem(503, "store_busy", "Sunucu meşgul, biraz sonra tekrar deneyin / try again")
    p.headers["Retry-After"] = "1"
    return p


def respond(status: int, body: bytes) -> Response[bytes]:
    media = PROBLEM if status >= 400 else JSON
    return Response(body, status_code=status, media_type=media)


async def run(
    request: Request[Any, Any, Any],
    season_id: str,
    build: Callable[[SeasonState, int], Command],
    answer: Callable[[list[ev.Event], int, SeasonState], tuple[int, Any]],
    *,
    key_required: bool,
) -> Response[bytes]:
    """Authorise the bey, decide, and append; an Idempotency-Key is recorded in the same commit.

    One statement in the common case: the bey is authorised and the command decided on this
    process's cached fold of the season, and the append's expected version proves that fold
    current. Whatever the cache cannot prove is checked on a fresh read: a token the cache
    refuses, every attempt after a conflict (so a token rotated in another process stops
    working as soon as the append sees the rotation), a refusal, and a stored answer replayed.
    """
    svc = services(request)
    seat, loaded, fresh = await _authorise(svc, request, season_id)
    key = request.headers.get("idempotency-key")
    if key_required and not key:
        raise Problem(400, "idempotency_key_required", "Bu komut Idempotency-Key başlığı ister")
    if key is None:
        return await _decide_and_append(
            request, svc, season_id, seat, None, build, answer, (loaded, fresh)
        )
    if len(key) > 200:
        raise Problem(400, "bad_idempotency_key", "Idempotency-Key en fazla 200 karakter")
    keyed = _Key(
        f"{season_id}:{seat}",
        key,
        request_hash(request.method, request.scope["path"], await request.body()),
    )
    if keyed.flight in svc.in_flight:  # a copy is running in this process (RELIABILITY 2)
        raise _in_flight()
    svc.in_flight.add(keyed.flight)
    try:
        return await _decide_and_append(
            request, svc, season_id, seat, keyed, build, answer, (loaded, fresh)
        )
    except Problem as p:
        if p.status >= 500 or p.code in KEY_CODES:
            raise
        # A stored answer wins over a refusal decided now (the first request may have spent
        # the gold); a lasting refusal is stored as the key's answer, a transient one is not.
        keys = svc.seasons.store.idempotency
        if p.code in TRANSIENT:
            found = await keys.look(keyed.scope, key, keyed.request_hash)
        else:
            body = _problem_bytes(request, p)
            found = await keys.record(keyed.scope, key, keyed.request_hash, p.status, body)
        if found is None:
            raise
        return await _found(svc, request, season_id, found, fresh=True)
    finally:
        svc.in_flight.discard(keyed.flight)


@dataclass(frozen=True, slots=True)
class _Key:
    scope: str
    value: str
    request_hash: bytes

    @property
    def flight(self) -> tuple[str, str]:
        return (self.scope, self.value)


async def _authorise(
    svc: Services, request: Request[Any, Any, Any], season_id: str
) -> tuple[int, Loaded, bool]:
    """The bey's seat, the fold it was checked on, and whether that fold is a fresh read."""
    cached = svc.seasons.peek(season_id)
    if cached is not None:
        try:
            return auth.bey(request, season_id, cached.state), cached, False
        except Problem as p:
            if p.code != "bad_token":  # refusals that do not depend on the season's state
                raise
    loaded = await load(svc, season_id)  # an unknown season is 404 before any token check
    return auth.bey(request, season_id, loaded.state), loaded, True


async def _found(
    svc: Services, request: Request[Any, Any, Any], season_id: str, found: Found, *, fresh: bool
) -> Response[bytes]:
    """Answer from what a taken key holds; only to a bey whose token holds on a fresh read."""
    if not fresh:
        auth.bey(request, season_id, (await load(svc, season_id)).state)
    match found:
        case Replay():
            return respond(found.status, found.body)
        case Mismatch():
            raise Problem(422, "idempotency_key_reused", "Bu anahtar başka bir istekle kullanıldı")
        case InProgress():
            raise _in_flight()


def _in_flight() -> Problem:
    return Problem(409, "idempotency_key_in_flight", "Bu anahtarla ilk istek hâlâ sürüyor")


def _problem_bytes(request: Request[Any, Any, Any], p: Problem) -> bytes:
    return bytes(problem_response(request, p).content)


async def _decide_and_append(
    request: Request[Any, Any, Any],
    svc: Services,
    season_id: str,
    seat: int,
    key: _Key | None,
    build: Callable[[SeasonState, int], Command],
    answer: Callable[[list[ev.Event], int, SeasonState], tuple[int, Any]],
    first: tuple[Loaded, bool],
) -> Response[bytes]:
    # Event ids derive from (season, seat, key): a retried keyed command re-appends the same ids
    # (an idempotent hit in the store); without a key every request is a new command.
    meta = EventMetadata(
        actor="seat",
        seat=str(seat),
        command_id=key.value if key else _fresh_id(),
        correlation_id=request.headers.get("x-request-id"),
    )
    try:
        async with svc.seasons.writing(season_id):
            return await _attempts(request, svc, season_id, seat, key, build, answer, meta, first)
    except StoreBusyError:  # outside the lock, which must see it (queued writers give up too)
        raise _busy() from None


async def _attempts(
    request: Request[Any, Any, Any],
    svc: Services,
    season_id: str,
    seat: int,
    key: _Key | None,
    build: Callable[[SeasonState, int], Command],
    answer: Callable[[list[ev.Event], int, SeasonState], tuple[int, Any]],
    meta: EventMetadata,
    first: tuple[Loaded, bool],
) -> Response[bytes]:
    """Decide and append, retrying conflicts; runs under the season's in-process lock."""
    # The first attempt decides on the fold the bey was authorised on, or on the cache if this
    # process appended meanwhile (its own appends all pass through the per-season lock). The
    # expected version catches any staleness; later attempts read afresh and authorise again.
    loaded: Loaded | None
    loaded, fresh = first
    cached = svc.seasons.peek(season_id)
    if cached is not None and cached is not loaded:
        loaded, fresh = cached, False
    for attempt in range(svc.retries + 1):
        if loaded is None:
            loaded, fresh = await load(svc, season_id), True
            auth.bey(request, season_id, loaded.state)
        result = decide(loaded.state, build(loaded.state, seat))
        if isinstance(result, Rejection):
            if not fresh:  # a refusal decided on the cache is decided again on a fresh read
                loaded = None
                continue
            log.info("command.rejected", season_id=season_id, seat=seat, code=result.code)
            raise Problem.of(result)
        if not result:  # already in effect (a retried Divan request): nothing to append
            if not fresh:  # the cache may be behind: answer from a fresh read
                loaded = None
                continue
            status, payload = answer(result, loaded.version, loaded.state)
            log.info("command.in_effect", season_id=season_id, seat=seat)
            return respond(status, codec.encode(payload))
        status, payload = answer(result, loaded.version + len(result), loaded.state)
        body = codec.encode(payload) if payload is not None else b""
        record = (
            IdempotencyRecord(key.scope, key.value, key.request_hash, status, body) if key else None
        )
        try:
            await svc.seasons.append(
                season_id, loaded.version, f"cmd/{seat}/{meta.command_id}", result, meta, record
            )
        except ConcurrencyError:
            loaded = None
            log.info("command.conflict", season_id=season_id, seat=seat, attempt=attempt)
            await asyncio.sleep(random.uniform(0, 0.002 * (attempt + 1)))  # spread the retries
            continue
        except IdempotencyKeyTaken as taken:
            return await _found(svc, request, season_id, taken.found, fresh=fresh)
        log.info(
            "command.accepted",
            season_id=season_id,
            seat=seat,
            command_id=meta.command_id,
            events=[codec.event_type(e) for e in result],
        )
        return respond(status, body)
    raise Problem(409, "conflict", "Sezon çok meşgul; tekrar deneyin / too many concurrent writes")


def _fresh_id() -> str:
    return str(uuid.uuid4())
