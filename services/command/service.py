"""The command service's core: what every use case receives (`Services`, `Context`) and
answers (`Outcome`), the season read, the bey's seat check, and `write`, the command side's
retry loop (shared.app.repository.seasons.retrying under the season's writer lock).

The use cases, one module per job, no HTTP in them: a bey's commands are data
(services/command/bey_commands.py) executed by one function (services/command/unit_of_work.py);
seasons are created, joined and administered in season_commands.py; tokens in
token_rotation.py; reads in season_reads.py; ops tools in ops_tools.py.
"""

from __future__ import annotations

import asyncio
import random
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Generic, TypeVar, cast

import msgspec
import structlog

from services.command.chat_system import SystemLines
from shared.app.access.request_auth import BeyClaim
from shared.app.answers.chat_book import ChatBooks, ChatDelivered
from shared.app.http.problems import Problem, store_busy
from shared.app.messaging.notify_store import MemoryNotifyStore, NotifyStore
from shared.app.messaging.outbound import Policy
from shared.app.repository.seasons import (
    Loaded,
    SeasonNotFound,
    Seasons,
    UndecodableEvent,
    close_key,
    close_metadata,
    retrying,
)
from shared.domain import calendar as cal
from shared.domain import commands as c
from shared.domain import events as ev
from shared.domain.decide import decide
from shared.domain.evolve import fold
from shared.domain.messages import Lang
from shared.domain.state import SeasonState
from shared.eventstore import ConcurrencyError, Found, InProgress, Mismatch, Replay, StoreBusyError

log = structlog.get_logger(__name__)
T = TypeVar("T", bound=msgspec.Struct)
R = TypeVar("R")


def utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True, slots=True)
class Receivers:
    """What registering webhooks and push subscriptions needs (issue 25): the outbound policy
    their URLs are checked against, and the VAPID public key (None: Web Push is off)."""

    policy: Policy = field(default_factory=Policy)
    push_key: str | None = None


@dataclass
class Services:
    """What the service needs, opened in the app's lifespan and kept on app.state."""

    seasons: Seasons
    enqueue: Callable[[str, int], None] = lambda season_id, divan: None
    ops: tuple[str, ...] = ()
    auditors: tuple[str, ...] = ()
    retries: int = 5
    # The server's clock: every command decided here is stamped with its instant (`at`), which
    # a live season's calendar decides on. Tests inject a fake (never sleep).
    clock: Callable[[], datetime] = utc_now
    in_flight: set[tuple[str, str]] = field(default_factory=set)  # (scope, key) running here
    notify: NotifyStore = field(default_factory=MemoryNotifyStore)  # ADR-98
    receivers: Receivers = field(default_factory=Receivers)
    # issue 24: each season's chat folded in this process, and its treaties' system lines
    chats: ChatBooks = field(default_factory=ChatBooks)
    chat_system: SystemLines = field(default_factory=SystemLines)
    # the seam for notifications (issue 24: "chat message unread"): each is called after a
    # message is appended with its ChatDelivered (never its text); a failing one is logged
    chat_listeners: list[Callable[[ChatDelivered], Awaitable[None]]] = field(default_factory=list)

    @property
    def staff(self) -> tuple[str, ...]:
        return (*self.ops, *self.auditors)


class Key(msgspec.Struct, frozen=True):  # a Struct: built in C (ADR-145)
    """An Idempotency-Key and the hash of the request it came with (method, path, body)."""

    value: str
    request_hash: bytes


def held(found: Found, out: type[T]) -> tuple[int, T]:
    """What a taken Idempotency-Key holds for its request: the stored status and body (as
    `out`); a stored refusal is answered as it was stored, another request under the key is
    422 `idempotency_key_reused`, and one whose first copy still runs 409
    `idempotency_key_in_flight` (every keyed route: a command, a chat message, a creation)."""
    match found:
        case Replay():
            if found.status >= 400:
                raise Problem.stored(found.status, found.body)
            return found.status, msgspec.json.decode(found.body, type=out)
        case Mismatch():
            raise Problem(422, "idempotency_key_reused")
        case InProgress():
            raise Problem(409, "idempotency_key_in_flight")


class Context(msgspec.Struct, frozen=True):  # a Struct: built in C (ADR-145)
    """Who acts (a bey's claim, checked on the fold decided on), where, and under which key."""

    claim: BeyClaim
    key: Key | None = None
    correlation_id: str | None = None
    instance: str = ""  # what a stored refusal names as its `instance` (the request's path)
    lang: Lang = "tr"  # the language the request asked for: a stored refusal's (docs/api.md)

    @property
    def season_id(self) -> str:
        return self.claim.season_id


class Outcome(msgspec.Struct, Generic[T], frozen=True):  # a Struct: built in C (ADR-145)
    """A command's answer: the status (200 / 201 / 202) and its typed body."""

    status: int
    body: T


def new_id() -> str:
    return str(uuid.uuid4())


def stamp(at: datetime) -> str:
    """The decision instant as the events' metadata records it: ISO-8601, +03:00, to the µs.

    `at.astimezone(cal.ISTANBUL).isoformat()` written by msgspec (its datetime form is
    isoformat's for an aware datetime: the fraction left out at 0 µs, the offset as ±HH:MM):
    ~4 k instructions instead of ~16 k an event's metadata (ADR-145;
    tests/http/test_order_pieces.py holds the two equal)."""
    return cast("str", msgspec.to_builtins(at.astimezone(cal.ISTANBUL)))


async def load(svc: Services, season_id: str) -> Loaded:
    """The season read afresh (its cached fold caught up); 404, 503 or 409 as a problem."""
    try:
        return await svc.seasons.load(season_id)
    except SeasonNotFound:
        raise Problem(404, "season_not_found") from None
    except StoreBusyError:
        raise store_busy() from None
    except UndecodableEvent as exc:  # as the export and the ops tools answer: not a 500
        raise Problem(
            409, "chain_broken", params={"error": str(exc), "season": season_id}
        ) from None


def seat_of(claim: BeyClaim, state: SeasonState) -> int:
    """The seat the bey's token holds on `state` (401/403 otherwise)."""
    seat = claim.seat(state.tokens.get, state.admin_token)
    not_a_computer_bey(state, seat)
    return seat


def not_a_computer_bey(state: SeasonState, seat: int) -> None:
    """R-11.2: a computer bey's acts are computed from the state and the season randomness
    only, so its seat takes no token and no command from anyone (403 `forbidden`)."""
    bey = state.bey(seat)
    if bey is not None and bey.computer:
        raise Problem(403, "forbidden.computer_bey", seat=seat)


def decided(state: SeasonState, events: list[ev.Event], cmd: c.Command) -> SeasonState:
    """Decide `cmd` on `state`, keep its events in `events`, answer the state after them."""
    result = decide(state, cmd)
    if isinstance(result, c.Rejection):
        raise Problem.of(result)
    events.extend(result)
    return fold(result, state)


async def record_close(
    svc: Services, season_id: str, loaded: Loaded, close: c.CloseRegistration
) -> None:
    """A live season's registration close whose instant has passed, recorded by the command
    that found it so (R-1.4): the scheduler's own events, key and metadata
    (services/resolver/closes.py), so the record is the same whoever gets there first; a
    concurrent close (the worker's, another command's) is a conflict, and the caller reads
    afresh either way."""
    events = decide(loaded.state, close)
    if isinstance(events, c.Rejection):  # live.overdue_close checked the phase
        raise RuntimeError(f"registration close refused: {events.code}")
    try:
        await svc.seasons.append(
            season_id,
            loaded.version,
            close_key("registration"),
            events,
            close_metadata("registration"),
        )
    except ConcurrencyError:
        log.info("command.close_conflict", season_id=season_id)
        return
    log.info("command.registration_closed", season_id=season_id)


async def write(
    svc: Services,
    season_id: str,
    attempt: Callable[[int], Awaitable[R]],
    *,
    queued: bool = True,
    **ids: Any,
) -> R:
    """The command side's writer: `attempt(n)` (load, decide, append) under the season's
    in-process writer lock (`queued`), retried on a conflict after a short random spread
    (shared.app.repository.seasons.retrying, `svc.retries` + 1 attempts); then 409 `conflict`. A
    store that does not answer in time is 503 `store_busy`. `ids` go into the conflict's log
    line."""

    async def conflict(n: int) -> None:
        log.info("command.conflict", season_id=season_id, **ids, attempt=n)
        if queued:
            await asyncio.sleep(random.uniform(0, 0.002 * (n + 1)))  # spread retries

    try:
        if not queued:
            return await retrying(season_id, svc.retries, attempt, on_conflict=conflict)
        async with svc.seasons.writing(season_id):
            return await retrying(season_id, svc.retries, attempt, on_conflict=conflict)
    except StoreBusyError:  # outside the lock, which must see it (queued writers give up too)
        raise store_busy() from None
    except ConcurrencyError:
        raise Problem(409, "conflict") from None
