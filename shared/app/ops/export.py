"""Season exports (`seksenbir-export/2`, /1 still read; docs/export.md) and their offline check
(R-12.3, R-1.5, R-14).

An export is JSON Lines: a header naming the format, then every event of one season in version
order with its hash-chain fields. `check` needs nothing but the file: it re-links the chain,
compares it with the header's head, re-runs every Divan from the events and checks the seed
commitment once the seed is revealed, and names the first event that does not match. A
redacted export (an auditor's during a season, R-14) leaves out the data of the events that
hold what auditors may not see and keeps each one's data digest, which chain version 2 covers
(ADR-52): its chain is proven, its Divans cannot be re-run. Nothing here does I/O; the command
line (entrypoints/audit.py) reads and writes the bytes.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, BinaryIO, Final
from uuid import UUID

import msgspec

from shared.app.http.bodies import unique_pairs
from shared.app.ops.export_chat import (
    ChatLineError,
    ChatReader,
    ChatSection,
    chat_line,
    chat_part,
    chat_reader,
)
from shared.app.ops.export_lists import hidden_from_auditors
from shared.domain.messages import Said
from shared.eventstore import (
    GENESIS,
    SCHEMES,
    EventMetadata,
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


# --- reading -------------------------------------------------------------------------------
# The longest line a reader takes (docs/export.md "An event line"): the longest line of a whole
# simulated season (a Divan's `divan_resolved.v1`) is about 27 KB; 1 MiB is over 30 times that.
MAX_LINE_BYTES: Final = 1 << 20
# The fields of an event line (`event_line`); any other is refused, never dropped.
EVENT_FIELDS: Final = frozenset(
    {
        "version",
        "position",
        "event_id",
        "type",
        "redacted",
        "data",
        "data_b64",
        "data_digest",
        "metadata",
        "recorded_at",
        "prev_hash",
        "hash",
    }
)


def bounded_lines(f: BinaryIO, limit: int = MAX_LINE_BYTES) -> Iterator[bytes]:
    """The lines of a binary file, each read with at most `limit` + 1 bytes in memory: a line
    longer than `limit` (its newline not counted) is an ExportError for it as soon as that is
    known, before the rest of it is read (a 60 MB line took 212 MB to be refused as JSON)."""
    number = 0
    while line := f.readline(limit + 1):
        number += 1
        if len(line) > limit and not line.endswith(b"\n"):
            raise ExportError(number, Said("export.line_too_long", limit=limit))
        yield line


def parse(lines: Iterable[bytes | str]) -> Export:
    """Read an export (/2, or /1); ExportError for a file that is not one (wrong format, bad
    JSON, a chain scheme the format does not allow)."""
    it = iter(lines)
    first = next(it, None)
    if first is None:
        raise ExportError(1, Said("export.empty"))
    head_obj = _json(first, 1)
    fmt = head_obj.get("format")
    if fmt not in FORMATS:
        want = ", ".join(map(repr, FORMATS))
        raise ExportError(1, Said("export.format_one_of", got=repr(fmt), want=want))
    allowed = {1: CHAIN} if fmt == FORMATS[0] else CHAIN_NAMES
    chain = next((v for v, name in allowed.items() if name == head_obj.get("chain")), None)
    if chain is None:
        want = " / ".join(repr(name) for name in allowed.values())  # one, or either of two
        raise ExportError(
            1, Said("export.chain_scheme", got=repr(head_obj.get("chain")), want=want)
        )
    season_id = head_obj.get("season_id")
    if not isinstance(season_id, str) or not season_id:
        raise ExportError(1, Said("export.no_season"))
    try:
        head = bytes.fromhex(head_obj["head"])
        count = _int(head_obj["events"], "events")
    except (KeyError, TypeError, ValueError) as exc:
        raise ExportError(1, Said("export.bad_header", error=str(exc))) from None
    try:
        chat = chat_reader(season_id, head_obj)
    except ChatLineError as exc:
        raise ExportError(1, exc.said) from None
    records, digests, redacted = _events(season_id, it, chain, chat)
    section = chat.section() if chat is not None else None
    marks = frozenset(redacted)
    return Export(season_id, head, count, records, head_obj, chain, digests, marks, section)


def _events(
    season_id: str, it: Iterator[bytes | str], chain: int, chat: ChatReader | None
) -> tuple[list[RecordedEvent], list[bytes | None], set[int]]:
    """An export's lines after its header: the season's events (their digests, and which were
    redacted), the chat lines read into `chat`."""
    records: list[RecordedEvent] = []
    digests: list[bytes | None] = []
    redacted: set[int] = set()
    for number, raw in enumerate(it, start=2):
        if not raw.strip():
            continue
        obj = _json(raw, number)
        try:
            if chat_line(chat, obj):
                continue
        except ChatLineError as exc:
            raise ExportError(number, exc.said) from None
        record, digest, hidden = _record(season_id, obj, number, chain)
        if hidden:
            redacted.add(len(records))
        records.append(record)
        digests.append(digest)
    return records, digests, redacted


def _json(raw: bytes | str, number: int) -> dict[str, Any]:
    """One line as a JSON object, read one way only: a name twice in one object (which parsers
    resolve differently, so one file could verify as two seasons), NaN or Infinity (not JSON,
    RFC 8259) and nesting too deep to parse are refused, each as an ExportError for that line."""
    try:
        obj = json.loads(raw, object_pairs_hook=unique_pairs, parse_constant=_no_constant)
    except (ValueError, RecursionError) as exc:
        error = str(exc) if isinstance(exc, ValueError) else "nested too deeply"
        raise ExportError(number, Said("export.not_json", error=error)) from None
    if not isinstance(obj, dict):
        raise ExportError(number, Said("export.not_object"))
    return obj


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _int(value: Any, name: str) -> int:
    """A whole number as the writer writes it: a JSON integer (not true, 1.0 or "1") that a
    bigint and the chain's 8-byte version field hold (0 … 2^63 − 1; 2^70 was a traceback)."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**63:
        raise ValueError(f"{name} must be an integer 0 … 2^63 − 1, not {value!r:.40}")
    return value


class _KnownMetadata(EventMetadata, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """EventMetadata read strictly: a field this build does not know is refused, not dropped
    (an import would otherwise keep less than the file holds; docs/export.md)."""


def _metadata(raw: object) -> EventMetadata:
    msgspec.convert(raw, _KnownMetadata)  # the check; the record keeps the plain type
    return msgspec.convert(raw, EventMetadata)


def _record(
    season_id: str, obj: dict[str, Any], number: int, chain: int
) -> tuple[RecordedEvent, bytes | None, bool]:
    """An event line: its record (empty data when redacted), its declared digest, redacted;
    a field an event line does not have is refused (it was dropped, so an import kept less
    than the file held), as an unknown metadata field is."""
    unknown = sorted(set(obj) - EVENT_FIELDS)
    if unknown:
        shown = ", ".join(repr(name)[:64] for name in unknown[:3])
        raise ExportError(number, Said("export.unknown_field", names=shown))
    try:
        digest = bytes.fromhex(obj["data_digest"]) if "data_digest" in obj else None
        hidden = obj.get("redacted") is not None
        if hidden:
            if chain != 2 or digest is None or len(digest) != 32:
                raise ValueError("a redacted event needs chain version 2 and its data_digest")
            data = b""
        elif "data" in obj:
            data = str(obj["data"]).encode("utf-8")
        else:
            import base64

            data = base64.b64decode(obj["data_b64"], validate=True)
        record = RecordedEvent(
            season_id=season_id,
            version=_int(obj["version"], "version"),
            position=_int(obj.get("position", 0), "position"),
            event_id=UUID(obj["event_id"]),
            type=str(obj["type"]),
            data=data,
            metadata=_metadata(obj.get("metadata", {"actor": "system"})),
            recorded_at=datetime.fromisoformat(obj["recorded_at"]),
            prev_hash=bytes.fromhex(obj["prev_hash"]),
            hash=bytes.fromhex(obj["hash"]),
        )
    except (KeyError, TypeError, ValueError, msgspec.ValidationError) as exc:
        raise ExportError(number, Said("export.not_event", error=repr(exc))) from None
    return record, digest, hidden


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
