"""Season exports (`seksenbir-export/1`, docs/export.md) and their offline check (R-12.3, R-1.5).

An export is JSON Lines: a header naming the format, then every event of one season in version
order with its hash-chain fields. `check` needs nothing but the file: it re-links the chain,
compares it with the header's head, re-runs every Divan from the events and checks the seed
commitment once the seed is revealed, and names the first event that does not match. Nothing
here does I/O; the command line (entrypoints/audit.py) reads and writes the bytes.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

import msgspec

from shared.domain import codec
from shared.domain import events as ev
from shared.domain.replay import verify as replay_verify
from shared.domain.season import seed_commitment
from shared.domain.state import SeasonState
from shared.eventstore import (
    GENESIS,
    ChainError,
    EventMetadata,
    NewEvent,
    RecordedEvent,
    verify_chain,
)

FORMAT = "seksenbir-export/1"
CHAIN = "seksenbir/event-chain/1"  # shared/eventstore/hashing.py SCHEME, docs/eventstore.md


class ExportError(Exception):
    """A file that is not a readable seksenbir-export/1 (not a verdict on the season)."""

    def __init__(self, line: int, reason: str) -> None:
        self.line = line
        self.reason = reason
        super().__init__(f"line {line}: {reason}")


@dataclass(frozen=True)
class Export:
    """One season as exported: the header's fields and the events in file order."""

    season_id: str
    head: bytes | None  # the trusted chain head the header names (None: no header, online)
    count: int | None  # the event count the header names
    records: list[RecordedEvent]
    header: dict[str, Any] = field(default_factory=dict)


# --- writing -------------------------------------------------------------------------------
def header(season_id: str, records: Sequence[RecordedEvent], head: bytes) -> dict[str, Any]:
    """The first line: format, season, rules version, mode, commitment, count and chain head."""
    created = _created(records)
    return {
        "format": FORMAT,
        "season_id": season_id,
        "rules_version": created.rules_version if created else None,
        "mode": created.mode if created else None,
        "seed_commitment": created.seed_commitment if created else None,
        "events": len(records),
        "chain": CHAIN,
        "genesis": GENESIS.hex(),
        "head": head.hex(),
    }


def event_line(record: RecordedEvent) -> dict[str, Any]:
    """One event: its version, ids, type, data (the exact stored bytes) and chain fields."""
    line: dict[str, Any] = {
        "version": record.version,
        "position": record.position,
        "event_id": str(record.event_id),
        "type": record.type,
    }
    try:
        line["data"] = record.data.decode("utf-8")
    except UnicodeDecodeError:  # the store keeps opaque bytes; the domain's are UTF-8 JSON
        line["data_b64"] = _b64(record.data)
    line["metadata"] = msgspec.to_builtins(record.metadata)
    line["recorded_at"] = record.recorded_at.astimezone(UTC).isoformat()
    line["prev_hash"] = record.prev_hash.hex()
    line["hash"] = record.hash.hex()
    return line


def export_lines(season_id: str, records: Iterable[RecordedEvent], head: bytes) -> Iterator[bytes]:
    """The whole export, one `\\n`-terminated UTF-8 line at a time (header first)."""
    records = list(records)
    yield _dump(header(season_id, records, head))
    for record in records:
        yield _dump(event_line(record))


def _dump(obj: dict[str, Any]) -> bytes:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


def _b64(data: bytes) -> str:
    import base64

    return base64.b64encode(data).decode("ascii")


# --- reading -------------------------------------------------------------------------------
def parse(lines: Iterable[bytes | str]) -> Export:
    """Read an export; ExportError for a file that is not one (wrong format, bad JSON)."""
    it = iter(lines)
    first = next(it, None)
    if first is None:
        raise ExportError(1, "empty file: no seksenbir-export header")
    head_obj = _json(first, 1)
    if head_obj.get("format") != FORMAT:
        raise ExportError(1, f"format {head_obj.get('format')!r} is not {FORMAT!r}")
    if head_obj.get("chain") != CHAIN:
        raise ExportError(1, f"chain scheme {head_obj.get('chain')!r} is not {CHAIN!r}")
    season_id = head_obj.get("season_id")
    if not isinstance(season_id, str) or not season_id:
        raise ExportError(1, "the header names no season_id")
    try:
        head = bytes.fromhex(head_obj["head"])
        count = int(head_obj["events"])
    except (KeyError, TypeError, ValueError) as exc:
        raise ExportError(1, f"the header's head or events is malformed: {exc}") from None
    records = []
    for number, raw in enumerate(it, start=2):
        if not raw.strip():
            continue
        records.append(_record(season_id, _json(raw, number), number))
    return Export(season_id, head, count, records, head_obj)


def _json(raw: bytes | str, number: int) -> dict[str, Any]:
    try:
        obj = json.loads(raw)
    except ValueError as exc:
        raise ExportError(number, f"not JSON: {exc}") from None
    if not isinstance(obj, dict):
        raise ExportError(number, "not a JSON object")
    return obj


def _record(season_id: str, obj: dict[str, Any], number: int) -> RecordedEvent:
    try:
        if "data" in obj:
            data = str(obj["data"]).encode("utf-8")
        else:
            import base64

            data = base64.b64decode(obj["data_b64"], validate=True)
        return RecordedEvent(
            season_id=season_id,
            version=int(obj["version"]),
            position=int(obj.get("position", 0)),
            event_id=UUID(obj["event_id"]),
            type=str(obj["type"]),
            data=data,
            metadata=msgspec.convert(obj.get("metadata", {"actor": "system"}), EventMetadata),
            recorded_at=datetime.fromisoformat(obj["recorded_at"]),
            prev_hash=bytes.fromhex(obj["prev_hash"]),
            hash=bytes.fromhex(obj["hash"]),
        )
    except (KeyError, TypeError, ValueError, msgspec.ValidationError) as exc:
        raise ExportError(number, f"not an event line: {exc!r}") from None


def to_new(records: Sequence[RecordedEvent]) -> list[NewEvent]:
    """What an import appends: the same ids, types, data and metadata (so the same hashes)."""
    return [
        NewEvent(event_id=r.event_id, type=r.type, data=r.data, metadata=r.metadata)
        for r in records
    ]


# --- checking ------------------------------------------------------------------------------
@dataclass(frozen=True)
class BadEvent:
    """The first event that does not match, and why."""

    index: int  # in the export's event list; its line in a file is index + 2
    version: int | None
    event_id: str | None
    type: str | None
    why: str

    def as_json(self, in_file: bool) -> dict[str, Any]:
        out: dict[str, Any] = {"version": self.version}
        if in_file:
            out["line"] = self.index + 2
        return {**out, "event_id": self.event_id, "type": self.type, "why": self.why}


@dataclass
class Verdict:
    """What `check` found; `ok` only when chain, head, every Divan and the commitment agree."""

    season_id: str
    events: int
    hash_chain: str = "ok"
    head: str | None = None
    state: SeasonState | None = None
    mismatches: list[dict[str, Any]] = field(default_factory=list)
    seed_commitment: str = "not revealed yet (the seed and salt are revealed at the Kurultay)"
    replay: str = "ok"
    bad: list[BadEvent] = field(default_factory=list)
    # ADR-53: every correction applied by ops, beside any mismatch it compensates
    corrections: list[dict[str, Any]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.bad

    @property
    def first_bad(self) -> BadEvent | None:
        return min(self.bad, key=lambda b: b.index) if self.bad else None

    def as_json(self, in_file: bool) -> dict[str, Any]:
        state = self.state
        first = self.first_bad
        return {
            "season": self.season_id,
            "events": self.events,
            "divan": state.divan if state else None,
            "phase": state.phase if state else None,
            "rules_version": state.rules_version if state else None,
            "hash_chain": self.hash_chain,
            "head": self.head,
            "replay": self.replay,
            "mismatches": self.mismatches,
            "corrections": self.corrections,
            "seed_commitment": self.seed_commitment,
            "first_bad_event": first.as_json(in_file) if first else None,
            "ok": self.ok,
        }


def check(export: Export) -> Verdict:
    """Chain, header head and count, re-run of every Divan, seed commitment (R-12.3, R-1.5)."""
    records = export.records
    verdict = Verdict(export.season_id, len(records))
    chain_ok = _check_chain(export, verdict)
    decoded: list[ev.Event] = []
    for i, record in enumerate(records):
        try:
            decoded.append(codec.decode_event(record.data))
        except (msgspec.DecodeError, msgspec.ValidationError, ValueError) as exc:
            verdict.bad.append(_bad(records, i, f"data is not a known event: {exc}"))
            verdict.replay = "not run: an event does not decode"
            return verdict
    if not chain_ok:
        # Folding a broken sequence would only name symptoms of the break found already.
        verdict.replay = "not run: the hash chain is broken"
        return verdict
    state, problems = replay_verify(decoded)
    verdict.state = state
    verdict.corrections = [
        {
            "version": r.version,
            "divan": e.divan,
            "correction": msgspec.to_builtins(e.correction),
            "reason": e.reason,
            "refers_to": e.refers_to,
        }
        for r, e in zip(records, decoded, strict=True)
        if isinstance(e, ev.CorrectionApplied)
    ]
    for p in problems:
        entry: dict[str, Any] = {"divan": p.divan, "what": p.what}
        if p.at is not None:
            entry["version"] = p.at + 1
            if p.at < len(records):
                verdict.bad.append(_bad(records, p.at, f"Divan {p.divan}: {p.what}"))
            else:
                verdict.bad.append(
                    BadEvent(p.at, p.at + 1, None, None, f"Divan {p.divan}: {p.what}; missing")
                )
        verdict.mismatches.append(entry)
    if problems:
        verdict.replay = f"{len(problems)} Divan(s) differ from a re-run"
    _check_seed(decoded, records, verdict)
    return verdict


def _bad(records: Sequence[RecordedEvent], index: int, why: str) -> BadEvent:
    r = records[index]
    return BadEvent(index, r.version, str(r.event_id), r.type, why)


def _check_chain(export: Export, verdict: Verdict) -> bool:
    """Link each event to the one before (versions 1, 2, …), then the head and the count."""
    records = export.records
    prev = GENESIS
    for i, record in enumerate(records):
        if record.version != i + 1:
            why = (
                f"version {record.version} where version {i + 1} belongs: an event before it "
                "is missing, or the events are out of order"
            )
            verdict.hash_chain = f"broken: {why}"
            verdict.bad.append(_bad(records, i, why))
            return False
        try:
            prev = verify_chain([record], anchor=prev)
        except ChainError as exc:
            verdict.hash_chain = f"broken: {exc}"
            verdict.bad.append(_bad(records, i, exc.reason))
            return False
    verdict.head = prev.hex()
    if export.count is not None and export.count != len(records):
        why = f"the header names {export.count} events, the file holds {len(records)}"
        verdict.hash_chain = f"broken: {why}"
        index = min(export.count, len(records))
        if index < len(records):
            verdict.bad.append(_bad(records, index, why))
        else:
            verdict.bad.append(BadEvent(index, index + 1, None, None, f"{why}: missing"))
        return False
    if export.head is not None and export.head != prev:
        why = (
            f"the chain ends at {prev.hex()}, the header's head is {export.head.hex()}: the "
            "last events were changed or cut"
        )
        verdict.hash_chain = f"broken: {why}"
        verdict.bad.append(
            _bad(records, len(records) - 1, why) if records else BadEvent(0, None, None, None, why)
        )
        return False
    return True


def _check_seed(decoded: Sequence[ev.Event], records: Sequence[RecordedEvent], v: Verdict) -> None:
    """R-1.5: once revealed, sha256(f"{salt}:{seed}") is the commitment made at creation and
    the seed is the one every Divan was re-run with."""
    created = next((e for e in decoded if isinstance(e, ev.SeasonCreated)), None)
    for i, e in enumerate(decoded):
        if not isinstance(e, ev.SeedRevealed):
            continue
        if created is None:
            why = "a seed is revealed but no season_created event commits to one"
        elif seed_commitment(e.seed, e.salt) != created.seed_commitment:
            why = "sha256(salt:seed) of the revealed seed is not the season's seed_commitment"
        elif e.seed != created.seed:
            why = "the revealed seed is not the seed the season was played with"
        else:
            v.seed_commitment = (
                f"ok: sha256(salt:seed) = {created.seed_commitment}, revealed at version "
                f"{records[i].version}"
            )
            return
        v.seed_commitment = f"broken: {why}"
        v.bad.append(_bad(records, i, why))
        return


def _created(records: Sequence[RecordedEvent]) -> ev.SeasonCreated | None:
    for r in records[:1]:
        try:
            first = codec.decode_event(r.data)
        except (msgspec.DecodeError, msgspec.ValidationError, ValueError):
            return None
        if isinstance(first, ev.SeasonCreated):
            return first
    return None
