"""One command's path: parse, authorise, Idempotency-Key, decide, append with retries, respond."""

from __future__ import annotations

import asyncio
import random
import uuid
from collections.abc import Callable
from dataclasses import dataclass
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
    Begun,
    ConcurrencyError,
    EventMetadata,
    IdempotencyCompletion,
    InProgress,
    Mismatch,
    Replay,
    StoreBusyError,
    request_hash,
)

log = structlog.get_logger(__name__)
# Refusals that a retry with the same key may turn into success: never stored under the key.
TRANSIENT = frozenset({"divan_locked", "conflict", "store_busy"})
JSON = "application/json"


@dataclass
class Services:
    """What the handlers need, opened in the app's lifespan and kept on app.state."""

    seasons: Seasons
    notify: Callable[[str, list[ev.Event]], None] = lambda season_id, events: None
    enqueue: Callable[[str, int], None] = lambda season_id, divan: None
    ops: tuple[str, ...] = ()
    auditors: tuple[str, ...] = ()
    retries: int = 5


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
    """Authorise the bey, then decide and append under its Idempotency-Key, if any."""
    svc = services(request)
    loaded = await load(svc, season_id)
    seat = auth.bey(request, season_id, loaded.state)
    body = await request.body()
    key = request.headers.get("idempotency-key")
    if key_required and not key:
        raise Problem(400, "idempotency_key_required", "Bu komut Idempotency-Key başlığı ister")
    scope = f"{season_id}:{seat}"
    if key:
        if len(key) > 200:
            raise Problem(400, "bad_idempotency_key", "Idempotency-Key en fazla 200 karakter")
        begun = await svc.seasons.store.idempotency.begin(
            scope, key, request_hash(request.method, request.url.path, body)
        )
        match begun:
            case Replay():
                return respond(begun.status, begun.body)
            case Mismatch():
                raise Problem(
                    422, "idempotency_key_reused", "Bu anahtar başka bir istekle kullanıldı"
                )
            case InProgress():
                raise Problem(
                    409, "idempotency_key_in_flight", "Bu anahtarla ilk istek hâlâ sürüyor"
                )
            case Begun():
                pass
    try:
        return await _decide_and_append(request, svc, season_id, seat, key, scope, build, answer)
    except Problem as p:
        if key and p.status < 500 and p.code not in TRANSIENT:
            await svc.seasons.store.idempotency.complete(
                scope, key, p.status, _problem_bytes(request, p)
            )
        elif key:
            await svc.seasons.store.idempotency.abandon(scope, key)
        raise
    except BaseException:
        if key:
            await svc.seasons.store.idempotency.abandon(scope, key)
        raise


def _problem_bytes(request: Request[Any, Any, Any], p: Problem) -> bytes:
    return bytes(problem_response(request, p).content)


async def _decide_and_append(
    request: Request[Any, Any, Any],
    svc: Services,
    season_id: str,
    seat: int,
    key: str | None,
    scope: str,
    build: Callable[[SeasonState, int], Command],
    answer: Callable[[list[ev.Event], int, SeasonState], tuple[int, Any]],
) -> Response[bytes]:
    # Event ids derive from (season, seat, key): a retried keyed command re-appends the same ids
    # (an idempotent hit in the store); without a key every request is a new command.
    command_key = key or _fresh_id()
    meta = EventMetadata(
        actor="seat",
        seat=str(seat),
        command_id=command_key,
        correlation_id=request.headers.get("x-request-id"),
    )
    async with svc.seasons.writing(season_id):
        return await _attempts(svc, season_id, seat, key, scope, build, answer, meta)


async def _attempts(
    svc: Services,
    season_id: str,
    seat: int,
    key: str | None,
    scope: str,
    build: Callable[[SeasonState, int], Command],
    answer: Callable[[list[ev.Event], int, SeasonState], tuple[int, Any]],
    meta: EventMetadata,
) -> Response[bytes]:
    """Decide and append, retrying conflicts; runs under the season's in-process lock."""
    command_key = meta.command_id
    # The first attempt decides on this process's cached fold (kept current by its own appends,
    # which all pass through the per-season lock); the expected version catches any staleness.
    # A conflict, or a refusal decided on the cache, is decided again on a fresh read.
    trust_cache = True
    for attempt in range(svc.retries + 1):
        cached = svc.seasons.peek(season_id) if trust_cache else None
        loaded = cached or await load(svc, season_id)
        result = decide(loaded.state, build(loaded.state, seat))
        if isinstance(result, Rejection):
            if cached is not None:
                trust_cache = False
                continue
            log.info("command.rejected", season_id=season_id, seat=seat, code=result.code)
            raise Problem.of(result)
        status, payload = answer(result, loaded.version + len(result), loaded.state)
        body = codec.encode(payload) if payload is not None else b""
        done = IdempotencyCompletion(scope, key, status, body) if key else None
        try:
            await svc.seasons.append(
                season_id, loaded.version, f"cmd/{seat}/{command_key}", result, meta, done
            )
        except ConcurrencyError:
            trust_cache = False
            log.info("command.conflict", season_id=season_id, seat=seat, attempt=attempt)
            await asyncio.sleep(random.uniform(0, 0.002 * (attempt + 1)))  # spread the retries
            continue
        except StoreBusyError:
            raise _busy() from None
        log.info(
            "command.accepted",
            season_id=season_id,
            seat=seat,
            command_id=command_key,
            events=[codec.event_type(e) for e in result],
        )
        svc.notify(season_id, result)
        return respond(status, body)
    raise Problem(409, "conflict", "Sezon çok meşgul; tekrar deneyin / too many concurrent writes")


def _fresh_id() -> str:
    return str(uuid.uuid4())
