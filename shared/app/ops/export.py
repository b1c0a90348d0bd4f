"""Season exports (`seksenbir-export/2`, /1 still read; docs/export.md) and their offline check
(R-12.3, R-1.5, R-14).

An export is JSON Lines: a header naming the format, then every event of one season in version
order with its hash-chain fields. `check` needs nothing but the file: it re-links the chain,
compares it with the header's head, re-runs every Divan from the events and checks the seed
commitment once the seed is revealed, and names the first event that does not match. A
redacted export (an auditor's during a season, R-14) leaves out the data of the events that
hold what auditors may not see and keeps each one's data digest, which chain version 2 covers
(ADR-52): its chain is proven, its Divans cannot be re-run. Nothing here does I/O; the command
line (entrypoints/audit.py) reads and writes the bytes. This module writes an export; reading
one is export_read.py, checking it export_check.py.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC
from typing import TYPE_CHECKING, Any

import msgspec

from shared.app.ops.export_chat import (
    ChatSection,
    chat_part,
)
from shared.app.ops.export_lists import hidden_from_auditors
from shared.domain.messages import Said
from shared.eventstore import (
    GENESIS,
    SCHEMES,
    NewEvent,
    RecordedEvent,
    data_digest,
    infer_chain,
)
from shared.eventstore.chat_log import ChatRecord

if TYPE_CHECKING:
    from shared.domain import events as ev

FORMAT = "seksenbir-export/2"
FORMATS = ("seksenbir-export/1", FORMAT)  # what `parse` reads
CHAIN = SCHEMES[1].decode()  # chain version 1's scheme (shared/eventstore/hashing.py)
CHAIN_NAMES = {v: scheme.decode() for v, scheme in SCHEMES.items()}
REDACTED = "R-14"  # the `redacted` mark of an event line whose data was left out


def season_over(records: Sequence[RecordedEvent]) -> bool:
    """After the Kurultay (its event recorded) everyone may have the full export (R-14)."""
    return any(r.type == "kurultay_held.v1" for r in records)


class RedactionUnavailable(Exception):
    """A season chained with version 1 covers each event's data itself: leaving data out would
    leave its chain unprovable, so no redacted export of it exists (ADR-52)."""


class ExportError(Exception):
    """A file that is not a readable seksenbir-export (not a verdict on the season)."""

    def __init__(self, line: int, reason: Said) -> None:
        self.line = line
        self.reason = reason
        self.said = Said("export.at_line", line=line, reason=reason)
        super().__init__(self.said)


@dataclass(frozen=True)
class Export:
    """One season as exported: the header's fields and the events in file order."""

    season_id: str
    head: bytes | None  # the trusted chain head the header names (None: no header, online)
    count: int | None  # the event count the header names
    records: list[RecordedEvent]
    header: dict[str, Any] = field(default_factory=dict)
    chain: int | None = None  # the chain version (None: inferred from the first event)
    # per event: the data digest a line declares (None: none declared). A redacted event's
    # record has empty data and its index in `redacted`.
    digests: list[bytes | None] = field(default_factory=list)
    redacted: frozenset[int] = frozenset()
    chat: ChatSection | None = None  # the season's chat (ADR-106; None: the file has none)


def header(
    season_id: str,
    records: Sequence[RecordedEvent],
    head: bytes,
    chain: int = 2,
    redacted: int | None = None,
) -> dict[str, Any]:
    """The first line: format, season, rules version, mode, commitment, count, chain scheme and
    head, and whether (how many events) the export is redacted."""
    created = created_event(records)
    return {
        "format": FORMAT,
        "season_id": season_id,
        "rules_version": created.rules_version if created else None,
        "mode": created.mode if created else None,
        "seed_commitment": created.seed_commitment if created else None,
        "events": len(records),
        "chain": CHAIN_NAMES[chain],
        "genesis": GENESIS.hex(),
        "head": head.hex(),
        "redacted": None if redacted is None else {"rule": REDACTED, "events": redacted},
    }


def event_line(record: RecordedEvent, chain: int = 2, *, redact: bool = False) -> dict[str, Any]:
    """One event: its version, ids, type, data (the exact stored bytes), the data's digest
    (chain version 2 covers it) and chain fields; with `redact`, no data, only its digest."""
    line: dict[str, Any] = {
        "version": record.version,
        "position": record.position,
        "event_id": str(record.event_id),
        "type": record.type,
    }
    if redact:
        line["redacted"] = REDACTED
    else:
        try:
            line["data"] = record.data.decode("utf-8")
        except UnicodeDecodeError:  # the store keeps opaque bytes; the domain's are UTF-8 JSON
            line["data_b64"] = _b64(record.data)
    if chain == 2:
        line["data_digest"] = data_digest(record.data).hex()
    line["metadata"] = msgspec.to_builtins(record.metadata)
    line["recorded_at"] = record.recorded_at.astimezone(UTC).isoformat()
    line["prev_hash"] = record.prev_hash.hex()
    line["hash"] = record.hash.hex()
    return line


def export_lines(
    season_id: str,
    records: Iterable[RecordedEvent],
    head: bytes,
    *,
    chain: int | None = None,
    redact: bool = False,
    chat: Sequence[ChatRecord] = (),
) -> Iterator[bytes]:
    """The whole export, one `\\n`-terminated UTF-8 line at a time (header first).

    `chain` is the season's chain version (None: from its first event). With `redact` (an
    auditor's export of a season not over, R-14) the events `hidden_from_auditors` keep only
    their data digest; RedactionUnavailable (at once, before any line) for a season on chain
    version 1. After the Kurultay `redact` leaves the season whole: everyone may have it then.
    `chat`, the season's chat stream (checked), follows the events (ADR-106); with `redact`,
    before the Kurultay or after it, what concerns a private or group channel is left out of
    it (R-15.3). A season without chat exports as it did before chat existed."""
    records = list(records)
    if chain is None:
        chain = infer_chain(records[0]) if records else 2
    season = redact and not season_over(records)
    if season and chain == 1:
        raise RedactionUnavailable(season_id)
    chat_head, chat_lines = chat_part(chat, private=redact)
    return _lines(
        season_id,
        records,
        head,
        chain=chain,
        redact=season,
        chat_head=chat_head,
        chat_lines=chat_lines,
    )


def _lines(
    season_id: str,
    records: list[RecordedEvent],
    head: bytes,
    *,
    chain: int,
    redact: bool,
    chat_head: dict[str, Any] | None,
    chat_lines: list[dict[str, Any]],
) -> Iterator[bytes]:
    hide = [redact and hidden_from_auditors(r.type) for r in records]
    first = header(season_id, records, head, chain, sum(hide) if redact else None)
    yield _dump(first if chat_head is None else {**first, "chat": chat_head})
    for record, hidden in zip(records, hide, strict=True):
        yield _dump(event_line(record, chain, redact=hidden))
    for line in chat_lines:
        yield _dump(line)


def _dump(obj: dict[str, Any]) -> bytes:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


def _b64(data: bytes) -> str:
    import base64

    return base64.b64encode(data).decode("ascii")


def to_new(records: Sequence[RecordedEvent]) -> list[NewEvent]:
    """What an import appends: the same ids, types, data and metadata (so the same hashes)."""
    return [
        NewEvent(event_id=r.event_id, type=r.type, data=r.data, metadata=r.metadata)
        for r in records
    ]


def created_event(records: Sequence[RecordedEvent]) -> ev.SeasonCreated | None:
    from shared.domain import codec
    from shared.domain import events as ev

    for r in records[:1]:
        try:
            first = codec.decode_event(r.data)
        except (msgspec.DecodeError, msgspec.ValidationError, ValueError):
            return None
        if isinstance(first, ev.SeasonCreated):
            return first
    return None
