"""Ops tools on a season (the routes guard them: ops, or an auditor where said): the export,
a Divan explained or re-run with changes, a fork, a correction, the ops-read record (ADR-53)."""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable, Iterator, Sequence
from datetime import datetime

import structlog

from services.command.schemas import (
    CorrectionIn,
    CorrectionOut,
    ForkedOut,
    OpsReadOut,
    OpsReadsOut,
)
from services.command.service import (
    Services,
    decided,
    load,
    new_id,
    stamp,
    write,
)
from shared.app.access import tokens
from shared.app.http.problems import Problem, store_busy
from shared.app.ops import divan_tools
from shared.app.ops.divan_tools import ExplainOut
from shared.app.ops.export import RedactionUnavailable, export_lines, season_over
from shared.app.ops.export_chat_check import stored_chat_problem
from shared.app.ops.ops_replay import ReplayError
from shared.domain import calendar as cal
from shared.domain import codec
from shared.domain import commands as c
from shared.domain import events as ev
from shared.domain.evolve import fold
from shared.domain.fork import after_divan, fork_events
from shared.domain.state import (
    SeasonState,
)
from shared.eventstore import (
    ChainError,
    EventMetadata,
    RecordedEvent,
    StoreBusyError,
    verify_chain,
)
from shared.eventstore.chat_log import ChatRecord

log = structlog.get_logger(__name__)


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
    chat = await _checked_chat(svc, season_id)
    redact = who == "auditor" and not season_over(records)
    try:  # an auditor's and the public export leave private and group chat out
        lines = export_lines(season_id, records, head, chain=chain, redact=who != "ops", chat=chat)
    except RedactionUnavailable:
        raise Problem(409, "redaction_unavailable", params={"season": season_id}) from None
    what = "export.redacted" if redact else "export"
    log.info(f"{who}.read", season=season_id, what=what, events=len(records))
    return lines


async def _checked_chat(svc: Services, season_id: str) -> list[ChatRecord]:
    """The season's chat for its export, after its chain and texts check out (ADR-106); 409
    `chain_broken` naming the chat version otherwise."""
    store = svc.seasons.store
    try:
        chat = await store.chat.read(season_id)
        copy = await store.audit_copy(season_id)
    except StoreBusyError:
        raise store_busy() from None
    problem = stored_chat_problem(season_id, chat, audit_copy=copy)
    if problem is not None:
        raise Problem(409, "chain_broken", params={"error": problem, "season": season_id})
    return chat


async def _season_records(svc: Services, season_id: str) -> list[RecordedEvent]:
    try:
        records = await svc.seasons.store.read_stream(season_id)
    except StoreBusyError:
        raise store_busy() from None
    if not records:
        raise Problem(404, "season_not_found")
    return records


async def _season_events(svc: Services, season_id: str) -> list[ev.Event]:
    return decoded(season_id, await _season_records(svc, season_id))


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
    records = await _season_records(svc, season_id)
    events = decoded(season_id, records)
    instants = [r.metadata.at for r in records]  # ADR-103: each order set's submitted_at
    try:
        out = divan_tools.explain(season_id, events, divan, provinces, instants)
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
    state = decided(
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


async def apply_correction(svc: Services, season_id: str, data: CorrectionIn) -> CorrectionOut:
    """ADR-53: ops fix a defect with a compensating event and a reason, never a rewrite; the
    domain decides it (shared/domain/corrections.py) on a fresh read at the server instant."""
    await load(svc, season_id)

    async def attempt(_n: int) -> CorrectionOut:
        loaded, at = await load(svc, season_id), svc.clock()
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
        decided(loaded.state, events, cmd)
        command_id = f"correction/{new_id()}"
        meta = EventMetadata(actor="ops", command_id=command_id, at=stamp(at))
        await svc.seasons.append(season_id, loaded.version, command_id, events, meta)
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

    return await write(svc, season_id, attempt)


# --- a bey's commands -----------------------------------------------------------------------

Decide = Callable[[SeasonState, int, datetime], c.Command]  # (state, seat, the instant)
