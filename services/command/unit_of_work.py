"""A bey's command executed: one function, `execute`, in a straight line.

authorise → the Idempotency-Key → (under the season's writer lock, retried on a conflict:
services.command.service.write) read → close what is overdue → decide → answer → append with
the key's answer in the same commit. The command is data (services/command/bey_commands.py):
it names the domain command it stands for and derives its answer from the events it decided.

The common case is one statement: the bey is authorised and the command decided on this
process's cached fold of the season, and the append's expected version proves that fold
current. Whatever the cache cannot prove is decided again on a fresh read: a token the cache
refuses, every attempt after the first (so a token rotated in another process stops working as
soon as the append sees the rotation), a refusal or a no-op, and a stored answer replayed.
"""

from __future__ import annotations

from collections.abc import Awaitable, Sequence
from datetime import datetime
from typing import Protocol, TypeVar

import msgspec
import structlog

from services.command.service import (
    Context,
    Outcome,
    Services,
    held,
    load,
    new_id,
    record_close,
    seat_of,
    stamp,
    write,
)
from shared.app.http.problems import Problem
from shared.app.repository.seasons import DecideAgain, Loaded
from shared.domain import codec, live
from shared.domain import commands as c
from shared.domain import events as ev
from shared.domain.decide import decide
from shared.domain.state import SeasonState
from shared.eventstore import (
    EventMetadata,
    Found,
    IdempotencyKeyTaken,
    IdempotencyRecord,
)
from shared.logs import info_line

log = structlog.get_logger(__name__)
# Refusals that a retry with the same key may turn into success: never stored under the key.
TRANSIENT = frozenset({"divan_locked", "conflict", "store_busy"})
# Answers about the key itself: never stored under it either.
KEY_CODES = frozenset({"idempotency_key_reused", "idempotency_key_in_flight"})
T = TypeVar("T", bound=msgspec.Struct)
T_co = TypeVar("T_co", bound=msgspec.Struct, covariant=True)


class BeyCommand(Protocol[T_co]):
    """A bey's command as data: what it decides and what it answers (bey_commands.py)."""

    @property
    def key_required(self) -> bool:
        """Whether the Idempotency-Key is required (R-7.9, R-6.1: spending and offers)."""
        ...

    @property
    def out(self) -> type[T_co]:
        """The answer's type (a stored answer is decoded into it)."""
        ...

    def command(self, state: SeasonState, seat: int, at: datetime) -> c.Command:
        """The domain command it stands for, for `seat` at the instant `at`."""
        ...

    def answer(self, events: list[ev.Event], version: int, before: SeasonState) -> tuple[int, T_co]:
        """Its status and answer from the events decided (none: already in effect), the
        season version after them, and the state they were decided on."""
        ...


async def execute(svc: Services, ctx: Context, cmd: BeyCommand[T]) -> Outcome[T]:
    """Authorise, check the Idempotency-Key, decide, append with retries, answer (see above)."""
    seat, first = await _authorise(svc, ctx)
    key = ctx.key
    if cmd.key_required and (key is None or not key.value):
        raise Problem(400, "idempotency_key_required")
    flight = _in_flight(svc, ctx, seat)
    try:
        meta = _metadata(ctx, seat)
        return await write(
            svc,
            ctx.season_id,
            lambda n: _attempt(svc, ctx, cmd, seat, meta=meta, read=_read(svc, ctx, first, n)),
            seat=seat,
        )
    except Problem as p:
        return await _stored_instead(svc, ctx, cmd, seat, p)
    finally:
        if flight is not None:
            svc.in_flight.discard(flight)


class _Read(msgspec.Struct, frozen=True):  # a Struct: built in C (ADR-145)
    """A fold of the season and where it came from: read from the store just now (`fresh`),
    or this process's cache (possibly behind another process's appends)."""

    loaded: Loaded
    fresh: bool
    authorised: bool = False  # the bey's token was checked on this very fold (`_authorise`)


async def _authorise(svc: Services, ctx: Context) -> tuple[int, _Read]:
    """The bey's seat and the fold it was checked on: the cached fold, or a fresh read when
    there is none or it refuses the token (an unknown season is 404 before any token)."""
    cached = svc.seasons.peek(ctx.season_id)
    if cached is not None:
        try:
            return seat_of(ctx.claim, cached.state), _Read(cached, False, authorised=True)
        except Problem as p:
            if p.code != "bad_token":  # refusals that do not depend on the season's state
                raise
    loaded = await load(svc, ctx.season_id)
    return seat_of(ctx.claim, loaded.state), _Read(loaded, True, authorised=True)


def _in_flight(svc: Services, ctx: Context, seat: int) -> tuple[str, str] | None:
    """A keyed command runs once at a time in this process (RELIABILITY 2): a copy arriving
    while it runs is 409 `idempotency_key_in_flight`. (The key's length is the route's.) The
    key's entry in `svc.in_flight`, which `execute` discards when the command ends (a
    try/finally there: a contextmanager's generator and its two calls cost ~4 k
    instructions an order, ADR-145); None for a command without a key."""
    if ctx.key is None:
        return None
    flight = (f"{ctx.season_id}:{seat}", ctx.key.value)
    if flight in svc.in_flight:
        raise Problem(409, "idempotency_key_in_flight")
    svc.in_flight.add(flight)
    return flight


def _metadata(ctx: Context, seat: int) -> EventMetadata:
    """Event ids derive from (season, seat, key): a retried keyed command re-appends the same
    ids (an idempotent hit in the store); without a key every request is new."""
    return EventMetadata(
        actor="seat",
        seat=str(seat),
        command_id=ctx.key.value if ctx.key else new_id(),
        correlation_id=ctx.correlation_id,
    )


async def _read(svc: Services, ctx: Context, first: _Read, n: int) -> _Read:
    """The fold attempt `n` decides on. The first: the one the bey was authorised on, or the
    cache if this process appended meanwhile (its own appends all pass through the writer
    lock). Later ones: a fresh read, on which the bey is authorised again."""
    if n == 0:
        cached = svc.seasons.peek(ctx.season_id)
        if cached is not None and cached is not first.loaded:
            return _Read(cached, fresh=False)
        return first
    return _Read(await load(svc, ctx.season_id), fresh=True)


async def _attempt(
    svc: Services,
    ctx: Context,
    cmd: BeyCommand[T],
    seat: int,
    *,
    meta: EventMetadata,
    read: Awaitable[_Read],
) -> Outcome[T]:
    """One attempt: read, close what is overdue, decide, answer, append (at its own instant).
    A refusal or a no-op decided on the cache, or a token the cache refuses, is decided
    again on a fresh read (DecideAgain): the cache may be behind."""
    season_id = ctx.season_id
    fold = await read
    loaded, fresh = fold.loaded, fold.fresh
    _authorised(ctx, fold, seat)
    at = svc.clock()  # each attempt is decided, and stamped, at its own instant
    overdue = live.overdue_close(loaded.state, at)
    if overdue is not None:  # closed at its instant, recorded or not yet
        await record_close(svc, season_id, loaded, overdue)
        raise DecideAgain  # decided again, on the closed season read afresh
    result = decide(loaded.state, cmd.command(loaded.state, seat, at))
    # a Rejection is what is not a list: list's check is by exact type, a Struct class's a
    # looked-up __instancecheck__ (~750 instructions when it fails, ADR-168)
    if not isinstance(result, list):
        if not fresh:
            raise DecideAgain  # the cache may be behind: refuse from a fresh read
        log.info("command.rejected", season_id=season_id, seat=seat, code=result.code)
        raise Problem.of(result)
    if not fresh and not result:
        raise DecideAgain  # the cache may be behind: answer "in effect" from a fresh read
    status, body = cmd.answer(result, loaded.version + len(result), loaded.state)
    if not result:  # already in effect (a retried Divan request): nothing to append
        log.info("command.in_effect", season_id=season_id, seat=seat)
        return Outcome(status, body)
    key = ctx.key
    record = (
        IdempotencyRecord(
            f"{season_id}:{seat}", key.value, key.request_hash, status, codec.encode(body)
        )
        if key
        else None
    )
    try:
        await svc.seasons.append(
            season_id,
            loaded.version,
            f"cmd/{seat}/{meta.command_id}",
            result,
            msgspec.structs.replace(meta, at=stamp(at)),
            idempotency=record,
        )
    except IdempotencyKeyTaken as taken:
        if not fresh:  # a stored answer goes only to a bey whose token holds on a fresh read
            seat_of(ctx.claim, (await load(svc, season_id)).state)
        return _replayed(cmd, taken.found)
    _accepted(season_id, seat, meta.command_id, result)
    return Outcome(status, body)


def _accepted(
    season_id: str, seat: int, command_id: str | None, result: Sequence[ev.Event]
) -> None:
    """The accepted command's line: log.info's, without structlog's per-call dispatch (ADR-140)."""
    info_line(
        log,
        "command.accepted",
        season_id=season_id,
        seat=seat,
        command_id=command_id,
        events=[codec.event_type(e) for e in result],
    )


def _authorised(ctx: Context, fold: _Read, seat: int) -> None:
    """The token checked on the fold decided on (not twice on the fold the bey was just
    authorised on: it is immutable); one the cache refuses is decided again."""
    if fold.authorised:
        return
    try:
        seat_of(ctx.claim, fold.loaded.state)
    except Problem as p:
        if fold.fresh or p.code != "bad_token":
            raise
        raise DecideAgain from None


async def _stored_instead(
    svc: Services, ctx: Context, cmd: BeyCommand[T], seat: int, p: Problem
) -> Outcome[T]:
    """A refusal, or what the key already holds instead of it. A stored answer wins over a
    refusal decided now (the first request may have spent the gold); a lasting refusal is
    stored as the key's answer, a transient one is not."""
    key = ctx.key
    if key is None or p.raw is not None or p.status >= 500 or p.code in KEY_CODES:
        raise p  # no key, an answer already stored, an outage, or about the key itself
    keys = svc.seasons.store.idempotency
    scope = f"{ctx.season_id}:{seat}"
    if p.code in TRANSIENT:
        found = await keys.look(scope, key.value, key.request_hash)
    else:
        body = p.body(ctx.instance, ctx.lang)
        found = await keys.record(scope, key.value, key.request_hash, p.status, body)
    if found is None:
        raise p
    return _replayed(cmd, found)


def _replayed(cmd: BeyCommand[T], found: Found) -> Outcome[T]:
    """The answer a taken key holds (service.held)."""
    return Outcome(*held(found, cmd.out))
