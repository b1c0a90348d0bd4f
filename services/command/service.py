"""The command service: one function per use case, no HTTP in it (entrypoint → service → UoW).

Each function takes the intent of a request and a `Context` (who claims to be acting, in which
season, under which Idempotency-Key) and returns an `Outcome` (status, typed body) or raises a
`Problem`. The unit of work is `Services.seasons` (the season's folded-state cache and the event
store): `_UnitOfWork` decides on a fold, appends with the expected version under the season's
in-process writer lock, retries conflicts on fresh reads, and records the Idempotency-Key's
answer in the same commit.
"""

from __future__ import annotations

import asyncio
import random
import secrets
import uuid
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Generic, Literal, TypeVar

import msgspec
import structlog

from services.command.schemas import (
    Accepted,
    AdminAction,
    AdminActOut,
    AdminDoneOut,
    AnswerRecordedOut,
    CorrectionIn,
    CorrectionOut,
    CreatedOut,
    CreatorOut,
    DivanRequestedOut,
    ForkedOut,
    JoinedOut,
    LiveCreatedOut,
    OpsReadOut,
    OpsReadsOut,
    OrdersAcceptedOut,
    SeasonStatus,
    TokenOut,
)
from shared.app import divan_tools, tokens
from shared.app.calendar_answer import calendar_out, lock_status
from shared.app.divan_tools import ExplainOut
from shared.app.export import RedactionUnavailable, export_lines, season_over
from shared.app.fork_origin import forked_from
from shared.app.ops_replay import ReplayError
from shared.app.private_view import PrivateView, private_view
from shared.app.problems import Problem, store_busy
from shared.app.request_auth import BeyClaim
from shared.app.seasons import (
    Loaded,
    SeasonNotFound,
    Seasons,
    UndecodableEvent,
    close_key,
    close_metadata,
)
from shared.domain import calendar as cal
from shared.domain import codec, live
from shared.domain import commands as c
from shared.domain import events as ev
from shared.domain.decide import counting_divan, decide, upcoming_divan
from shared.domain.evolve import evolve, fold
from shared.domain.fork import after_divan, fork_events
from shared.domain.map import game_map
from shared.domain.messages import Lang
from shared.domain.state import (
    DIVANS,
    NAMED_REPORT_VERSION,
    AdminAct,
    Order,
    SeasonState,
    TreatyKind,
    perde,
)
from shared.eventstore import (
    ChainError,
    ConcurrencyError,
    EventMetadata,
    Found,
    IdempotencyKeyTaken,
    IdempotencyRecord,
    InProgress,
    Mismatch,
    RecordedEvent,
    Replay,
    StoreBusyError,
    verify_chain,
)

log = structlog.get_logger(__name__)
# Refusals that a retry with the same key may turn into success: never stored under the key.
TRANSIENT = frozenset({"divan_locked", "conflict", "store_busy"})
# Answers about the key itself: never stored under it either.
KEY_CODES = frozenset({"idempotency_key_reused", "idempotency_key_in_flight"})
T = TypeVar("T", bound=msgspec.Struct)


def utc_now() -> datetime:
    return datetime.now(UTC)


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

    @property
    def staff(self) -> tuple[str, ...]:
        return (*self.ops, *self.auditors)


@dataclass(frozen=True, slots=True)
class Key:
    """An Idempotency-Key and the hash of the request it came with (method, path, body)."""

    value: str
    request_hash: bytes


@dataclass(frozen=True, slots=True)
class Context:
    """Who acts (a bey's claim, checked on the fold decided on), where, and under which key."""

    claim: BeyClaim
    key: Key | None = None
    correlation_id: str | None = None
    instance: str = ""  # what a stored refusal names as its `instance` (the request's path)
    lang: Lang = "tr"  # the language the request asked for: a stored refusal's (docs/api.md)

    @property
    def season_id(self) -> str:
        return self.claim.season_id


@dataclass(frozen=True, slots=True)
class Outcome(Generic[T]):
    """A command's answer: the status (200 / 201 / 202) and its typed body."""

    status: int
    body: T


# --- reads --------------------------------------------------------------------------------


async def load(svc: Services, season_id: str) -> Loaded:
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


async def export_season(
    svc: Services, season_id: str, role: Callable[[bool], str] | None = None
) -> Iterator[bytes]:
    """The season as seksenbir-export/2 lines (docs/export.md), header first, after its chain
    checks out against the stored head; 404 for no season, 409 `chain_broken` for a chain that
    fails. Without `role`: ops (the route's guard), the full export. With `role`, called with
    whether the season is over, answers 'ops' (full), 'auditor' (redacted while the
    season is not over, R-14; 409 `redaction_unavailable` for a season on chain version 1) or
    'anyone' (only after the Kurultay, full); it raises the 401/403 problem otherwise. A full
    export holds the seed and every bey's orders, so the read is logged."""
    store = svc.seasons.store
    try:
        # the events and the head from one snapshot: a season appended to while it is read
        # still gives a file whose header head is its last event's (docs/export.md)
        records, stored, chain = await store.read_with_head(season_id)
        if not records:
            raise Problem(404, "season_not_found")
        who = "ops" if role is None else role(season_over(records))
        head = verify_chain(records, chain=chain)
        if head != stored:
            raise ChainError(season_id, len(records), "chain does not end at the stream head")
    except StoreBusyError:
        raise store_busy() from None
    except ChainError as exc:
        raise Problem(
            409, "chain_broken", params={"error": str(exc), "season": season_id}
        ) from None
    redact = who == "auditor" and not season_over(records)
    try:
        lines = export_lines(season_id, records, head, chain=chain, redact=redact)
    except RedactionUnavailable:
        raise Problem(409, "redaction_unavailable", params={"season": season_id}) from None
    what = "export.redacted" if redact else "export"
    log.info(f"{who}.read", season=season_id, what=what, events=len(records))
    return lines


async def _season_events(svc: Services, season_id: str) -> list[ev.Event]:
    try:
        records = await svc.seasons.store.read_stream(season_id)
    except StoreBusyError:
        raise store_busy() from None
    if not records:
        raise Problem(404, "season_not_found")
    return decoded(season_id, records)


def decoded(season_id: str, records: Sequence[RecordedEvent]) -> list[ev.Event]:
    """The stored events decoded for explain, what-if and fork; an event that does not decode
    (written behind the store's back, or by another build) is 409 `chain_broken` naming it, as
    the export answers: `seksenbir verify` says the rest. It was a 500."""
    events = []
    for r in records:
        try:
            events.append(codec.decode_stored(r.data, r.type))
        except ValueError as exc:  # msgspec's DecodeError and ValidationError are ValueErrors
            error = f"version {r.version} ({r.type}) does not decode: {exc}"
            raise Problem(
                409, "chain_broken", params={"error": error, "season": season_id}
            ) from None
    return events


async def explain_divan(
    svc: Services, season_id: str, divan: int, provinces: Sequence[int] = ()
) -> ExplainOut:
    """Ops: Divan `divan` verified (re-run, R-12.3) and explained battle by battle (R-5.8).
    It shows every bey's orders of that Divan, so the read is logged (R-14); 404
    `divan_not_found` for a Divan not locked yet. Dice show their key, never the seed."""
    events = await _season_events(svc, season_id)
    try:
        out = divan_tools.explain(season_id, events, divan, provinces)
    except ReplayError:
        raise Problem(404, "divan_not_found", params={"divan": divan}) from None
    log.info("ops.read", season=season_id, divan=divan, what="explain")
    return out


async def what_if(
    svc: Services, season_id: str, divan: int, data: divan_tools.WhatIfIn
) -> divan_tools.WhatIfOut:
    """Ops: Divan `divan` re-run with orders changed or dice pinned, beside the record; it
    writes nothing. 422 `invalid_body` for a change that could not have been given (a seat not
    in the season, an order R-4 refuses, two changes for one province, a die pinned twice)."""
    events = await _season_events(svc, season_id)
    try:
        out = divan_tools.what_if(season_id, events, divan, data)
    except ReplayError:
        raise Problem(404, "divan_not_found", params={"divan": divan}) from None
    except divan_tools.WhatIfRefused as refused:
        raise Problem(422, refused.key, params=refused.params) from None
    log.info("ops.read", season=season_id, divan=divan, what="what_if", changed=out.changed)
    return out


async def fork_season(
    svc: Services,
    source_id: str,
    divan: int,
    seat: int,
    role: str | None,
    *,
    record: Callable[[], Awaitable[None]] | None = None,
) -> ForkedOut:
    """Issue 13, D-32: a new trial season from the state after Divan `divan` of `source_id`,
    the human in `seat`; anyone may fork a season that is over (all of it is public then,
    R-14), ops any season at any time. The fork's first events hold the position and where it
    came from (SeasonForked); it never counts on the boards; the token is shown once. Ops
    forking a season still running read its secrets (gold, missions, treaties as they stood):
    `record` writes the ops-read record first (R-14, ADR-53), before anything is appended."""
    store = svc.seasons.store
    try:
        records = await store.read_stream(source_id)
    except StoreBusyError:
        raise store_busy() from None
    if not records:
        raise Problem(404, "season_not_found")
    events = decoded(source_id, records)
    over = fold(events).phase == "over"
    if role != "ops" and not over:
        raise Problem(403, "forbidden.fork_running")
    upto = after_divan(events, divan)
    if upto is None:
        raise Problem(404, "divan_not_found", params={"divan": divan})
    if record is not None and not over:
        await record()
    season_id = tokens.new_season_id()
    head = records[upto - 1].hash.hex()
    result = fork_events(
        fold(events[:upto]),
        upto,
        head,
        divan=divan,
        seat=seat,
        season_id=season_id,
        seed=secrets.randbits(63),
        salt=secrets.token_hex(16),
    )
    if isinstance(result, c.Rejection):
        raise Problem.of(result)
    state = fold(result)
    token = tokens.new_token(season_id, seat)
    state = _decided(
        state, result, c.RotateToken(seat=seat, token_hash=tokens.token_hash(token), by="bey")
    )
    now = svc.clock()
    meta = EventMetadata(
        actor="seat", seat=str(seat), command_id=f"fork/{season_id}", at=stamp(now)
    )
    await svc.seasons.append(season_id, 0, "create", result, meta)
    log.info("season.forked", season=season_id, source=source_id, divan=divan, by=role or "anyone")
    return ForkedOut(season_id, seat, token, state.seed_commitment, source_id, divan, head)


async def ops_reads(svc: Services, season_id: str, after: int, limit: int) -> OpsReadsOut:
    """The season's recorded ops reads after `after` (ADR-53); 404 for no season."""
    store = svc.seasons.store
    try:
        if await store.stream_version(season_id) == 0:
            raise Problem(404, "season_not_found")
        rows = await store.ops_reads.list(season_id, after=after, limit=limit + 1)
    except StoreBusyError:
        raise store_busy() from None
    page = rows[:limit]
    return OpsReadsOut(
        season_id=season_id,
        reads=[
            OpsReadOut(id=r.id, what=r.what, actor=r.actor, at=r.at.astimezone(cal.ISTANBUL))
            for r in page
        ],  # D-22: every instant shown with +03:00
        next_after=page[-1].id if len(rows) > limit else None,
    )


def _seat(claim: BeyClaim, state: SeasonState) -> int:
    seat = claim.seat(state.tokens.get, state.admin_token)
    _not_a_computer_bey(state, seat)
    return seat


def _not_a_computer_bey(state: SeasonState, seat: int) -> None:
    """R-11.2: a computer bey's acts are computed from the state and the season randomness
    only, so its seat takes no token and no command from anyone (403 `forbidden`)."""
    bey = state.bey(seat)
    if bey is not None and bey.computer:
        raise Problem(403, "forbidden.computer_bey", seat=seat)


async def season_status(svc: Services, season_id: str) -> SeasonStatus:
    loaded = await load(svc, season_id)
    s = loaded.state
    over = s.phase == "over"
    nxt = upcoming_divan(s)
    status = SeasonStatus(
        season_id=season_id,
        mode=s.mode,
        phase=s.phase,
        divan=s.divan,
        next_divan=nxt,
        perde=perde(max(1, nxt or s.divan)),
        resolving=s.locked_divan is not None,
        version=loaded.version,
        rules_version=s.rules_version,
        seed_commitment=s.seed_commitment,
        ceasefire=nxt is not None and s.ceasefire_divan == nxt,
        han=s.han,
        seed=str(s.seed) if over else None,
        seed_salt=s.seed_salt if over else None,
        forked_from=forked_from(s),
    )
    return _live_status(status, s, svc.clock())


def act_out(act: AdminAct) -> AdminActOut:
    return AdminActOut(act=act.act, reason=act.reason, at=cal.iso(act.at), by=act.by)


def _live_status(status: SeasonStatus, s: SeasonState, now: datetime) -> SeasonStatus:
    """A live season's status fields at `now` (none for a trial season: its answer unchanged)."""
    if s.mode != "live" or s.calendar is None:
        return status
    lock = lock_status(s, now)  # shared with the read side's summary
    return msgspec.structs.replace(
        status,
        calendar=calendar_out(s.calendar),
        next_divan_at=lock.next_divan_at,
        locked=lock.locked,
        seconds_to_lock=lock.seconds_to_lock,
        seconds_to_kurultay_close=lock.seconds_to_kurultay_close,
        paused=s.paused_at is not None,
        cancelled=s.cancelled,
        admin_acts=[act_out(a) for a in s.admin_acts],
    )


async def bey_view(svc: Services, claim: BeyClaim) -> PrivateView:
    """A bey's own view (R-14), on a fresh read: the PrivateView the read side's /private
    answers too (shared.app.private_view; without the private reports the read side keeps)."""
    loaded = await load(svc, claim.season_id)
    s = loaded.state
    n: int | None = counting_divan(s, svc.clock())  # a live season's by its calendar
    if n is not None and n > DIVANS:
        n = None
    return private_view(s, _seat(claim, s), loaded.version, divan=n)


# --- creating a season ----------------------------------------------------------------------


async def create_season(svc: Services, memleket: int, seed: int | None) -> CreatedOut:
    """R-1.2, R-1.4, R-1.5: one human bey, 18 computer beys; the token is shown once."""
    if memleket not in game_map():
        raise Problem(422, "unknown_province", params={"province": memleket})
    if seed is not None and not 0 <= seed < 2**63:
        raise Problem(422, "invalid_body.seed", field="$.seed")  # as the schema's refusals do
    season_id = tokens.new_season_id()  # the shape a bey token's season part must have
    now = svc.clock()
    create = c.CreateSeason(
        season_id=season_id,
        seed=seed if seed is not None else secrets.randbits(63),
        mode="trial",
        seed_salt=secrets.token_hex(16),
        report_version=NAMED_REPORT_VERSION,  # sealed orders (ADR-57), one language (ADR-62)
        counts_on_boards=seed is None,
        at=now,
    )
    state, events = SeasonState(), list[ev.Event]()

    def apply(cmd: c.Command) -> None:
        nonlocal state
        result = decide(state, cmd)
        assert isinstance(result, list), result
        state = fold(result, state)
        events.extend(result)

    apply(create)
    apply(c.JoinSeason(memleket=memleket, at=now))
    seat = next(b.seat for b in state.beys if not b.computer)
    token = tokens.new_token(season_id, seat)  # the human's token, before the computers join
    apply(c.RotateToken(seat=seat, token_hash=tokens.token_hash(token), by="bey"))
    apply(c.CloseRegistration(at=now))
    meta = EventMetadata(
        actor="seat", seat=str(seat), command_id=f"create/{season_id}", at=stamp(now)
    )
    await svc.seasons.append(season_id, 0, "create", events, meta)
    return CreatedOut(season_id, seat, token, state.seed_commitment)


# --- live seasons: creating, joining, season admin (issue 12) --------------------------------


def _decided(state: SeasonState, events: list[ev.Event], cmd: c.Command) -> SeasonState:
    """Decide `cmd` on `state`, keep its events in `events`, answer the state after them."""
    result = decide(state, cmd)
    if isinstance(result, c.Rejection):
        raise Problem.of(result)
    events.extend(result)
    return fold(result, state)


async def create_live_season(
    svc: Services,
    memleket: int | None,
    registration_closes_at: datetime | None,
    interval_seconds: int | None,
) -> LiveCreatedOut:
    """R-1.3, R-1.4, R-1.5: a live season, its provisional calendar and its season-admin token
    (shown once, stored hashed); the creator joins only when it names a memleket. The seed is
    drawn from `secrets` and only its salted commitment is public. (Ops only may ask for a
    compressed calendar: the route's check.)"""
    season_id = tokens.new_season_id()
    now = svc.clock()
    events: list[ev.Event] = []
    state = _decided(
        SeasonState(),
        events,
        c.CreateSeason(
            season_id=season_id,
            seed=secrets.randbits(63),
            mode="live",
            seed_salt=secrets.token_hex(16),
            report_version=NAMED_REPORT_VERSION,  # sealed orders (ADR-57), one language (ADR-62)
            counts_on_boards=True,  # the domain drops it for a compressed calendar
            registration_closes_at=registration_closes_at,
            divan_interval_seconds=interval_seconds,
            at=now,
        ),
    )
    admin_token = tokens.new_admin_token(season_id)
    state = _decided(state, events, c.SetAdminToken(token_hash=tokens.token_hash(admin_token)))
    creator = None
    if memleket is not None:
        state = _decided(state, events, c.JoinSeason(memleket=memleket, at=now))
        seat = max(b.seat for b in state.beys)
        token = tokens.new_token(season_id, seat)
        state = _decided(
            state, events, c.RotateToken(seat=seat, token_hash=tokens.token_hash(token))
        )
        creator = CreatorOut(seat, token, memleket)
    meta = EventMetadata(actor="system", command_id=f"create/{season_id}", at=stamp(now))
    try:
        await svc.seasons.append(season_id, 0, "create", events, meta)
    except StoreBusyError:
        raise store_busy() from None
    assert state.calendar is not None
    log.info(
        "season.created", season_id=season_id, mode="live", compressed=state.calendar.compressed
    )
    return LiveCreatedOut(
        season_id=season_id,
        admin_token=admin_token,
        calendar=calendar_out(state.calendar),
        seed_commitment=state.seed_commitment,
        creator=creator,
    )


async def join_season(svc: Services, season_id: str, memleket: int) -> JoinedOut:
    """R-1.4: first come, first served, decided on a fresh read at the server's instant; the
    append's expected version decides a race (the loser decides again on the winner's state,
    and is refused `memleket_taken` or `season_full`). The 19th join closes registration."""

    def join(state: SeasonState, at: datetime) -> tuple[list[ev.Event], str, int]:
        events: list[ev.Event] = []
        _decided(state, events, c.JoinSeason(memleket=memleket, at=at))
        joined = events[0]
        assert isinstance(joined, ev.BeyJoined)
        token = tokens.new_token(season_id, joined.seat)
        rotated = decide(
            evolve(state, joined),
            c.RotateToken(seat=joined.seat, token_hash=tokens.token_hash(token)),
        )
        assert isinstance(rotated, list), rotated
        return [joined, *rotated, *events[1:]], token, joined.seat

    async def attempt(loaded: Loaded, at: datetime) -> JoinedOut | None:
        events, token, seat = join(loaded.state, at)
        command_id = f"join/{_new_id()}"
        meta = EventMetadata(actor="seat", seat=str(seat), command_id=command_id, at=stamp(at))
        try:
            await svc.seasons.append(season_id, loaded.version, command_id, events, meta)
        except ConcurrencyError:
            return None
        after = fold(events, loaded.state)
        assert after.calendar is not None
        log.info("season.joined", season_id=season_id, seat=seat, events=len(events))
        return JoinedOut(season_id, seat, token, memleket, calendar_out(after.calendar))

    return await _fresh_attempts(svc, season_id, attempt)


R = TypeVar("R")


async def _fresh_attempts(
    svc: Services, season_id: str, attempt: Callable[[Loaded, datetime], Awaitable[R | None]]
) -> R:
    """Run `attempt(loaded, at)` on a fresh read at a fresh instant under the season's writer
    lock until it appends (None: a conflict, decided again), at most `retries` + 1 times."""
    try:
        async with svc.seasons.writing(season_id):
            for n in range(svc.retries + 1):
                loaded = await load(svc, season_id)
                done = await attempt(loaded, svc.clock())
                if done is not None:
                    return done
                log.info("command.conflict", season_id=season_id, attempt=n)
                await asyncio.sleep(random.uniform(0, 0.002 * (n + 1)))
    except StoreBusyError:
        raise store_busy() from None
    raise Problem(409, "conflict")


def _admin_by(state: SeasonState, svc: Services, token: str | None) -> str:
    """Who acts on a live season's admin endpoint: 'ops' or 'admin', or a 401/403 problem.

    401 without a token or for one that is nobody's; 403 for an auditor's, or a bey's of this
    season (a known caller in the wrong place)."""
    if token is None:
        raise Problem.refused(tokens.missing_token("missing_token.admin"))
    role = tokens.staff_role(token, svc.ops, svc.auditors)
    if role == "ops":
        return "ops"
    if state.admin_token and tokens.same_hash(state.admin_token, tokens.token_hash(token)):
        return "admin"
    bey = tokens.parse(token)
    is_bey = (
        bey is not None
        and bey.season_id == state.season_id
        and tokens.same_hash(state.tokens.get(bey.seat, ""), tokens.token_hash(token))
    )
    if role == "auditor" or is_bey:
        raise Problem(403, "forbidden.admin")
    raise Problem.refused(tokens.bad_token())


async def season_admin(
    svc: Services,
    season_id: str,
    *,
    token: str | None,
    act: AdminAction,
    reason: str,
    registration_closes_at: datetime | None,
) -> AdminDoneOut:
    """D-29 … D-31: postpone, cancel, pause or resume a live season, by its season-admin token
    or the ops token; the act is an event with its reason and instant, shown in the status."""
    await load(svc, season_id)  # an unknown season is 404 before any token

    async def attempt(loaded: Loaded, at: datetime) -> AdminDoneOut | None:
        by = _admin_by(loaded.state, svc, token)
        overdue = live.overdue_close(loaded.state, at)
        if overdue is not None:  # closed at its instant, recorded or not yet
            await _record_close(svc, season_id, loaded, overdue)
            return None  # decided again, on the closed season
        cmd = c.SeasonAdmin(
            act=act,
            reason=reason,
            by="ops" if by == "ops" else "admin",
            registration_closes_at=registration_closes_at,
            at=at,
        )
        events: list[ev.Event] = []
        after = _decided(loaded.state, events, cmd)
        command_id = f"admin/{_new_id()}"
        meta = EventMetadata(
            actor="ops" if by == "ops" else "system", command_id=command_id, at=stamp(at)
        )
        try:
            await svc.seasons.append(season_id, loaded.version, command_id, events, meta)
        except ConcurrencyError:
            return None
        assert after.calendar is not None
        log.info("season.admin", season_id=season_id, act=act, by=by)
        return AdminDoneOut(
            act=act_out(after.admin_acts[-1]),
            calendar=calendar_out(after.calendar),
            version=loaded.version + len(events),
        )

    return await _fresh_attempts(svc, season_id, attempt)


async def apply_correction(svc: Services, season_id: str, data: CorrectionIn) -> CorrectionOut:
    """ADR-53: ops fix a defect with a compensating event and a reason, never a rewrite; the
    domain decides it (shared/domain/corrections.py) on a fresh read at the server instant."""
    await load(svc, season_id)

    async def attempt(loaded: Loaded, at: datetime) -> CorrectionOut | None:
        if data.refers_to is not None and data.refers_to > loaded.version:
            # the event it compensates must be one of the season's: never a dangling reference
            raise Problem.of(
                c.reject(
                    "invalid_correction.refers_to",
                    refers_to=data.refers_to,
                    version=loaded.version,
                )
            )
        cmd = c.ApplyCorrection(
            correction=data.correction.fix(), reason=data.reason, at=at, refers_to=data.refers_to
        )
        events: list[ev.Event] = []
        _decided(loaded.state, events, cmd)
        command_id = f"correction/{_new_id()}"
        meta = EventMetadata(actor="ops", command_id=command_id, at=stamp(at))
        try:
            await svc.seasons.append(season_id, loaded.version, command_id, events, meta)
        except ConcurrencyError:
            return None
        done = events[0]
        assert isinstance(done, ev.CorrectionApplied)
        log.info(
            "season.corrected",
            season_id=season_id,
            kind=type(done.correction).__name__,
            divan=done.divan,
            refers_to=done.refers_to,
        )
        return CorrectionOut(
            correction=data.correction,
            reason=done.reason,
            divan=done.divan,
            at=done.at.astimezone(cal.ISTANBUL),
            refers_to=done.refers_to,
            version=loaded.version + len(events),
        )

    return await _fresh_attempts(svc, season_id, attempt)


# --- a bey's commands -----------------------------------------------------------------------

Decide = Callable[[SeasonState, int, datetime], c.Command]  # (state, seat, the instant)
Answer = Callable[[list[ev.Event], int, SeasonState], tuple[int, T]]


async def _record_close(
    svc: Services, season_id: str, loaded: Loaded, close: c.CloseRegistration
) -> None:
    """A live season's registration close whose instant has passed, recorded by the bey's
    command that found it so (R-1.4): the scheduler's own events, key and metadata
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


def _accepted(events: list[ev.Event], version: int, _state: SeasonState) -> tuple[int, Accepted]:
    """The recorded events; a live offer, answer or withdrawal names its Divan (R-4.4)."""
    divan = getattr(events[0], "divan", None) if events else None
    accepted = Accepted("accepted", [codec.event_type(e) for e in events], version)
    return 200, accepted if divan is None else msgspec.structs.replace(accepted, divan=divan)


async def submit_orders(
    svc: Services, ctx: Context, divan: int | None, orders: tuple[Order, ...]
) -> Outcome[OrdersAcceptedOut]:
    """R-4.1: the set replaces the bey's earlier set for that Divan; the answer names it."""

    def command(state: SeasonState, seat: int, at: datetime) -> c.Command:
        # without `divan`: the one it counts for at the instant (a live season's calendar)
        given = divan if divan is not None else counting_divan(state, at)
        return c.SubmitOrders(seat=seat, divan=given, orders=orders, at=at)

    def answer(
        events: list[ev.Event], version: int, _s: SeasonState
    ) -> tuple[int, OrdersAcceptedOut]:
        e = events[0]
        assert isinstance(e, ev.OrdersSubmitted)
        return 200, OrdersAcceptedOut(e.divan, len(e.orders), version)

    return await _UnitOfWork(svc, ctx, OrdersAcceptedOut).run(command, answer, key_required=False)


SPENDING: dict[str, type[c.BuildSur | c.HireMercenaries | c.PurchaseProvince]] = {
    "sur": c.BuildSur,
    "paralı_asker": c.HireMercenaries,
    "satın_alma": c.PurchaseProvince,
}


async def spend(svc: Services, ctx: Context, kind: str, province: int) -> Outcome[Accepted]:
    """R-7.9: immediate; the Idempotency-Key is required."""
    make = SPENDING[kind]
    return await _UnitOfWork(svc, ctx, Accepted).run(
        lambda _s, seat, at: make(seat=seat, province=province, at=at),
        _accepted,
        key_required=True,
    )


async def offer_treaty(svc: Services, ctx: Context, to: int, kind: TreatyKind) -> Outcome[Accepted]:
    """R-6.1; the Idempotency-Key is required."""
    return await _UnitOfWork(svc, ctx, Accepted).run(
        lambda _s, seat, at: c.OfferTreaty(seat=seat, to=to, kind=kind, at=at),
        _accepted,
        key_required=True,
    )


async def withdraw_offer(svc: Services, ctx: Context, to: int) -> Outcome[Accepted]:
    return await _UnitOfWork(svc, ctx, Accepted).run(
        lambda _s, seat, at: c.WithdrawOffer(seat=seat, to=to, at=at),
        _accepted,
        key_required=False,
    )


async def answer_offer(
    svc: Services, ctx: Context, frm: int, answer: Literal["accept", "reject"]
) -> Outcome[AnswerRecordedOut]:
    """R-6.1: the answer is recorded now and takes effect at the Divan's step 2; the answer
    names it (ADR-71: "status" is the command's, never the offer's outcome)."""

    def recorded(
        events: list[ev.Event], version: int, state: SeasonState
    ) -> tuple[int, AnswerRecordedOut]:
        e = events[0]
        assert isinstance(e, ev.OfferAnswered)
        _status, done = _accepted(events, version, state)
        out = AnswerRecordedOut("accepted", e.answer, done.events, done.version)
        return 200, out if e.divan is None else msgspec.structs.replace(out, divan=e.divan)

    return await _UnitOfWork(svc, ctx, AnswerRecordedOut).run(
        lambda _s, seat, at: c.AnswerOffer(seat=seat, frm=frm, answer=answer, at=at),
        recorded,
        key_required=False,
    )


async def cast_vote(svc: Services, ctx: Context, candidate: int) -> Outcome[Accepted]:
    """R-10.4."""
    return await _UnitOfWork(svc, ctx, Accepted).run(
        lambda _s, seat, at: c.CastVote(seat=seat, candidate=candidate, at=at),
        _accepted,
        key_required=False,
    )


async def request_divan(svc: Services, ctx: Context, divan: int) -> Outcome[DivanRequestedOut]:
    """R-1.2, trial: 202 `resolving` (and the resolution enqueued), 200 once resolved.

    A retry never advances the season: the Divan already requested answers the same 202 and
    appends nothing. Every 202 enqueues the resolution (the resolver is idempotent; enqueueing
    again also recovers a message the broker lost); if the broker is unreachable the request
    stands and the scheduler enqueues it (`seksenbir scheduler`).
    """

    def answer(_e: list[ev.Event], _v: int, state: SeasonState) -> tuple[int, DivanRequestedOut]:
        if state.divan >= divan:  # decided on the state before the events: resolved already
            return 200, DivanRequestedOut(divan, "resolved")
        return 202, DivanRequestedOut(divan, "resolving")

    outcome = await _UnitOfWork(svc, ctx, DivanRequestedOut).run(
        lambda _s, seat, _at: c.RequestDivan(seat=seat, divan=divan), answer, key_required=False
    )
    if outcome.status == 202:
        try:
            svc.enqueue(ctx.season_id, divan)
        except Exception:  # the request is stored: the scheduler hands it over (runbook)
            log.warning("divan.enqueue_failed", season_id=ctx.season_id, divan=divan)
    return outcome


# --- tokens ---------------------------------------------------------------------------------


async def rotate_token(svc: Services, claim: BeyClaim) -> TokenOut:
    """The old token stops working at once; the new one is shown only in this answer."""
    seat = _seat(claim, (await load(svc, claim.season_id)).state)
    # Re-checked on every attempt: a racing rotation may have retired this token meanwhile.
    return await _set_token(svc, claim.season_id, seat, "bey", claim)


async def reissue_token(svc: Services, season_id: str, seat: int) -> TokenOut:
    """Ops reissue a lost token (the caller is ops: the route's guard); an audited event. A
    computer bey's seat has none to reissue (R-11.2)."""
    _not_a_computer_bey((await load(svc, season_id)).state, seat)
    return await _set_token(svc, season_id, seat, "ops", None)


async def _set_token(
    svc: Services, season_id: str, seat: int, by: Literal["bey", "ops"], claim: BeyClaim | None
) -> TokenOut:
    """Rotate `seat`'s token on a fresh read each attempt; no Idempotency-Key (a new secret
    each time), so a conflict simply decides again."""
    for _attempt in range(svc.retries + 1):
        loaded = await load(svc, season_id)
        if claim is not None:
            _seat(claim, loaded.state)
        token = tokens.new_token(season_id, seat)
        result = decide(
            loaded.state, c.RotateToken(seat=seat, token_hash=tokens.token_hash(token), by=by)
        )
        if isinstance(result, c.Rejection):
            raise Problem.of(result)
        command_id = f"token/{_new_id()}"
        meta = EventMetadata(
            actor="seat" if by == "bey" else "ops", seat=str(seat), command_id=command_id
        )
        try:
            await svc.seasons.append(season_id, loaded.version, command_id, result, meta)
        except ConcurrencyError:
            continue
        return TokenOut(seat, token)
    raise Problem(409, "conflict")


def _new_id() -> str:
    return str(uuid.uuid4())


def stamp(at: datetime) -> str:
    """The decision instant as the events' metadata records it: ISO-8601, +03:00, to the µs."""
    return at.astimezone(cal.ISTANBUL).isoformat()


# --- the unit of work -----------------------------------------------------------------------


def _in_flight() -> Problem:
    return Problem(409, "idempotency_key_in_flight")


class _UnitOfWork(Generic[T]):
    """One bey command: authorise, Idempotency-Key, decide, append with retries, answer `T`.

    One statement in the common case: the bey is authorised and the command decided on this
    process's cached fold of the season, and the append's expected version proves that fold
    current. Whatever the cache cannot prove is checked on a fresh read: a token the cache
    refuses, every attempt after a conflict (so a token rotated in another process stops
    working as soon as the append sees the rotation), a refusal, and a stored answer replayed.
    """

    __slots__ = ("ctx", "out", "svc")

    def __init__(self, svc: Services, ctx: Context, out: type[T]) -> None:
        self.svc, self.ctx, self.out = svc, ctx, out

    async def run(self, command: Decide, answer: Answer[T], *, key_required: bool) -> Outcome[T]:
        svc, ctx = self.svc, self.ctx
        seat, first = await self._authorise()
        key = ctx.key
        if key_required and (key is None or not key.value):
            raise Problem(400, "idempotency_key_required")
        if key is None:
            return await self._decide_and_append(seat, command, answer, first)
        # (the key's length is the route's to check: a header parameter of at most 200)
        scope = f"{ctx.season_id}:{seat}"
        flight = (scope, key.value)
        if flight in svc.in_flight:  # a copy is running in this process (RELIABILITY 2)
            raise _in_flight()
        svc.in_flight.add(flight)
        try:
            return await self._decide_and_append(seat, command, answer, first)
        except Problem as p:
            if p.raw is not None or p.status >= 500 or p.code in KEY_CODES:
                raise  # an answer already stored, an outage, or about the key itself
            # A stored answer wins over a refusal decided now (the first request may have spent
            # the gold); a lasting refusal is stored as the key's answer, a transient one is not.
            keys = svc.seasons.store.idempotency
            if p.code in TRANSIENT:
                found = await keys.look(scope, key.value, key.request_hash)
            else:
                body = p.body(ctx.instance, ctx.lang)
                found = await keys.record(scope, key.value, key.request_hash, p.status, body)
            if found is None:
                raise
            return await self._found(found, fresh=True)
        finally:
            svc.in_flight.discard(flight)

    async def _authorise(self) -> tuple[int, tuple[Loaded, bool]]:
        """The bey's seat, the fold it was checked on, and whether that fold is a fresh read."""
        season_id, claim = self.ctx.season_id, self.ctx.claim
        cached = self.svc.seasons.peek(season_id)
        if cached is not None:
            try:
                return _seat(claim, cached.state), (cached, False)
            except Problem as p:
                if p.code != "bad_token":  # refusals that do not depend on the season's state
                    raise
        loaded = await load(self.svc, season_id)  # an unknown season is 404 before any token
        return _seat(claim, loaded.state), (loaded, True)

    async def _found(self, found: Found, *, fresh: bool) -> Outcome[T]:
        """Answer from what a taken key holds; only to a bey whose token holds on a fresh read."""
        if not fresh:
            _seat(self.ctx.claim, (await load(self.svc, self.ctx.season_id)).state)
        match found:
            case Replay():
                if found.status >= 400:  # a stored refusal, answered as it was stored
                    raise Problem.stored(found.status, found.body)
                return Outcome(found.status, msgspec.json.decode(found.body, type=self.out))
            case Mismatch():
                raise Problem(422, "idempotency_key_reused")
            case InProgress():
                raise _in_flight()

    async def _decide_and_append(
        self, seat: int, command: Decide, answer: Answer[T], first: tuple[Loaded, bool]
    ) -> Outcome[T]:
        # Event ids derive from (season, seat, key): a retried keyed command re-appends the
        # same ids (an idempotent hit in the store); without a key every request is new.
        key = self.ctx.key
        meta = EventMetadata(
            actor="seat",
            seat=str(seat),
            command_id=key.value if key else _new_id(),
            correlation_id=self.ctx.correlation_id,
        )
        try:
            async with self.svc.seasons.writing(self.ctx.season_id):
                return await self._attempts(seat, command, answer, meta, first)
        except StoreBusyError:  # outside the lock, which must see it (queued writers give up too)
            raise store_busy() from None

    async def _closed_at_its_instant(
        self, loaded: Loaded, fresh: bool, at: datetime
    ) -> tuple[Loaded, bool]:
        """The season to decide on at `at`: `loaded`, or, when its registration's instant has
        passed and no close is recorded yet (R-1.4), the season read afresh once the close is
        recorded (by this command or by whoever got there first)."""
        svc, season_id = self.svc, self.ctx.season_id
        for _attempt in range(svc.retries + 1):
            overdue = live.overdue_close(loaded.state, at)
            if overdue is None:
                return loaded, fresh
            await _record_close(svc, season_id, loaded, overdue)
            loaded, fresh = await load(svc, season_id), True
            _seat(self.ctx.claim, loaded.state)
        raise Problem(409, "conflict")

    async def _attempts(
        self,
        seat: int,
        command: Decide,
        answer: Answer[T],
        meta: EventMetadata,
        first: tuple[Loaded, bool],
    ) -> Outcome[T]:
        """Decide and append, retrying conflicts; runs under the season's in-process lock."""
        # The first attempt decides on the fold the bey was authorised on, or on the cache if
        # this process appended meanwhile (its own appends all pass through the per-season
        # lock). The expected version catches any staleness; later attempts read afresh and
        # authorise again.
        svc, season_id, key = self.svc, self.ctx.season_id, self.ctx.key
        loaded: Loaded | None
        loaded, fresh = first
        cached = svc.seasons.peek(season_id)
        if cached is not None and cached is not loaded:
            loaded, fresh = cached, False
        for attempt in range(svc.retries + 1):
            if loaded is None:
                loaded, fresh = await load(svc, season_id), True
                _seat(self.ctx.claim, loaded.state)
            at = svc.clock()  # each attempt is decided, and stamped, at its own instant
            loaded, fresh = await self._closed_at_its_instant(loaded, fresh, at)
            result = decide(loaded.state, command(loaded.state, seat, at))
            if isinstance(result, c.Rejection):
                if not fresh:  # a refusal decided on the cache is decided again on a fresh read
                    loaded = None
                    continue
                log.info("command.rejected", season_id=season_id, seat=seat, code=result.code)
                raise Problem.of(result)
            if not result:  # already in effect (a retried Divan request): nothing to append
                if not fresh:  # the cache may be behind: answer from a fresh read
                    loaded = None
                    continue
                status, body = answer(result, loaded.version, loaded.state)
                log.info("command.in_effect", season_id=season_id, seat=seat)
                return Outcome(status, body)
            status, body = answer(result, loaded.version + len(result), loaded.state)
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
            except ConcurrencyError:
                loaded = None
                log.info("command.conflict", season_id=season_id, seat=seat, attempt=attempt)
                await asyncio.sleep(random.uniform(0, 0.002 * (attempt + 1)))  # spread retries
                continue
            except IdempotencyKeyTaken as taken:
                return await self._found(taken.found, fresh=fresh)
            log.info(
                "command.accepted",
                season_id=season_id,
                seat=seat,
                command_id=meta.command_id,
                events=[codec.event_type(e) for e in result],
            )
            return Outcome(status, body)
        raise Problem(409, "conflict")
