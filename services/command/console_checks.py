"""What the ops console asks of a season beyond explain and what-if (issue 26, ADR-104): a
correction's dry run (what it would change, nothing written) and `verify` of the stored
season over HTTP, the same checks as `seksenbir verify SEASON` on the database.

Pure: both read values already loaded and answer typed values (msgspec Structs).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from shared.app.ops.divan_tools import BeyChange, ProvinceChange, state_changes
from shared.app.ops.export import Export
from shared.app.ops.export_chat import ChatSection
from shared.app.ops.export_check import chain_error, check
from shared.app.ops.export_verdict import BadEvent, Verdict
from shared.app.ops.ops_replay import CorrectionNote, state_json
from shared.domain.messages import Said
from shared.domain.state import SeasonState
from shared.eventstore import GENESIS, ChainError, RecordedEvent, verify_chain


class CorrectionPreviewOut(msgspec.Struct, frozen=True):
    """A correction decided on the season as it stands and not applied: the Divan after which
    it would apply, and every province and bey it would change (before and after). `version`:
    the season's version it was decided on (a correction applied later may find it moved)."""

    reason: str
    divan: int
    refers_to: int | None
    version: int
    changed: bool
    provinces: list[ProvinceChange]
    beys: list[BeyChange]


def correction_preview(
    before: SeasonState,
    after: SeasonState,
    *,
    reason: str,
    divan: int,
    refers_to: int | None,
    version: int,
) -> CorrectionPreviewOut:
    """The difference a decided correction makes (ADR-53's compensating event, not written)."""
    provinces, beys = state_changes(state_json(before, version), state_json(after, version))
    changed = bool(provinces or beys)
    return CorrectionPreviewOut(reason, divan, refers_to, version, changed, provinces, beys)


class BadEventOut(msgspec.Struct, frozen=True):
    version: int | None
    event_id: str | None
    type: str | None
    why: str


class MismatchOut(msgspec.Struct, frozen=True, omit_defaults=True):
    """A Divan whose record differs from its re-run, or whose seal does not hold (ADR-57)."""

    divan: int
    what: str
    version: int | None = None  # the first event that differs, None: not one event
    check: str | None = None  # "sealed_orders" when the seal check found it


class VerifyOut(msgspec.Struct, frozen=True):
    """`seksenbir verify SEASON` over HTTP (docs/export.md "Verify" names each field): the
    stored chain against the streams table's head, every Divan re-run (R-12.3), the sealed
    orders (ADR-57), the seed commitment (R-1.5), the corrections (ADR-53), the chat chain and
    its texts (ADR-106). Texts in English, as the CLI's JSON (stable like a code)."""

    season: str
    events: int
    divan: int | None
    phase: str | None
    hash_chain: str
    head: str | None
    replay: str
    mismatches: list[MismatchOut]
    corrections: list[CorrectionNote]
    seed_commitment: str
    sealed_orders: str
    chat: str
    first_bad_event: BadEventOut | None
    ok: bool


def verified(
    season_id: str,
    records: Sequence[RecordedEvent],
    stored: bytes | None,
    chain: int | None,
    chat: ChatSection | None = None,
) -> VerifyOut:
    """The stored season (and its `chat`) checked as the CLI checks it
    (entrypoints/audit_verify.py): a chain that links but does not end at the stored head is a
    cut or changed tail."""
    try:
        head = verify_chain(records, chain=chain)
        problem = None
        if head != (stored or GENESIS):
            raise ChainError(season_id, len(records), "chain does not end at the stream head")
    except ChainError as exc:
        problem = chain_error(exc)
    export = Export(season_id, None, None, list(records), chain=chain, chat=chat)
    verdict = check(export)
    if problem is not None and verdict.ok:
        last = len(records) - 1
        r = records[last]
        why = Said("export.stored_head", error=problem)
        verdict.hash_chain = Said("cli.chain_broken", error=why)
        verdict.bad.append(BadEvent(last, r.version, str(r.event_id), r.type, why))
    return _out(verdict)


def _plain(value: Any) -> Any:
    """Said values as their English text, containers walked (JSON for scripts)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return str(value) if isinstance(value, str) else value


def _out(v: Verdict) -> VerifyOut:
    first = v.first_bad
    bad = BadEventOut(first.version, first.event_id, first.type, str(first.why)) if first else None
    state = v.state
    return VerifyOut(
        season=v.season_id,
        events=v.events,
        divan=state.divan if state else None,
        phase=state.phase if state else None,
        hash_chain=str(v.hash_chain),
        head=v.head,
        replay=str(v.replay),
        mismatches=msgspec.convert(_plain(v.mismatches), list[MismatchOut]),
        corrections=msgspec.convert(_plain(v.corrections), list[CorrectionNote]),
        seed_commitment=str(v.seed_commitment),
        sealed_orders=str(v.sealed_orders),
        chat=str(v.chat),
        first_bad_event=bad,
        ok=v.ok,
    )
