"""Reading a season export (docs/export.md): its lines, each read one way only, into an Export;
the header's fields checked against the lines they describe; and why an event's data is not a
possible event, in words (shared/domain/event_bounds.py's bounds, a wrong kind, a field missing).

The format and the writer are shared/app/ops/export.py, the offline check export_check.py.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime
from typing import Any, BinaryIO, Final
from uuid import UUID

import msgspec

from shared.app.http import decode_refusal
from shared.app.http.bodies import DuplicateKey, unique_pairs
from shared.app.ops.export import (
    CHAIN,
    CHAIN_NAMES,
    FORMATS,
    REDACTED,
    Export,
    ExportError,
)
from shared.app.ops.export_chat import ChatLineError, ChatReader, chat_line, chat_reader
from shared.domain.messages import Said
from shared.eventstore import GENESIS, EventMetadata, RecordedEvent

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
    known, before the rest of it is read (a 60 MB line took 212 MB to be refused as JSON). A
    byte order mark or a CR before the LF is refused: an export is read as written (ADR-161)."""
    number = 0
    while line := f.readline(limit + 1):
        number += 1
        if len(line) > limit and not line.endswith(b"\n"):
            raise ExportError(number, Said("export.line_too_long", limit=limit))
        if (bom := line.startswith(b"\xef\xbb\xbf")) or line.endswith((b"\r\n", b"\r")):
            raise ExportError(number, Said("export.bom" if bom else "export.crlf"))
        yield line


def parse(lines: Iterable[bytes | str]) -> Export:
    """Read an export (/2, or /1); ExportError for a file that is not one (wrong format, bad
    JSON, a chain scheme the format does not allow, a header whose `genesis` or `redacted`
    does not describe its lines)."""
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
    _field(head_obj, "season_id", 1, _text, "export.want_text")  # no lone surrogate
    head = _hash(head_obj, "head", 1)
    count = _int(head_obj.get("events"), "events", 1)
    _genesis(head_obj, fmt == FORMATS[0])
    try:
        chat = chat_reader(season_id, head_obj)
    except ChatLineError as exc:
        raise ExportError(1, exc.said) from None
    records, digests, redacted = _events(season_id, it, chain, chat)
    _redacted_count(head_obj, len(redacted))
    section = chat.section() if chat is not None else None
    marks = frozenset(redacted)
    return Export(season_id, head, count, records, head_obj, chain, digests, marks, section)


def _genesis(head_obj: dict[str, Any], old: bool) -> None:
    """`genesis` is the `prev_hash` of version 1, 32 zero bytes (a /1 file may leave it out):
    a header naming another would describe a chain this file's first line does not start."""
    if old and "genesis" not in head_obj:
        return
    if _hash(head_obj, "genesis", 1) != GENESIS:
        raise ExportError(1, Said("export.genesis", want=GENESIS.hex()))


def _redacted_count(head_obj: dict[str, Any], held: int) -> None:
    """`redacted` is null for a full export, `{"rule": "R-14", "events": N}` for one that
    leaves out N events' data: it must say what the lines do (a /1 file has no such field), so
    a reader of the header alone is never told a redacted file is whole, or the reverse."""
    mark = head_obj.get("redacted")
    if mark is None:
        if held:
            raise ExportError(1, Said("export.redacted_unsaid", held=held))
        return
    if not isinstance(mark, dict) or set(mark) != {"rule", "events"} or mark["rule"] != REDACTED:
        raise ExportError(1, Said("export.redacted_header", rule=REDACTED))
    said = _int(mark["events"], "redacted.events", 1)
    if said != held:
        raise ExportError(1, Said("export.redacted_count", said=said, held=held))


def _hash(obj: dict[str, Any], name: str, number: int) -> bytes:
    """A 32-byte hash written as 64 hex digits (`head`, `genesis`, `prev_hash`, `hash`)."""
    value = obj.get(name)
    if not isinstance(value, str) or len(value) != 64:
        raise ExportError(number, Said("export.not_hash", field=name))
    try:
        return bytes.fromhex(value)
    except ValueError:
        raise ExportError(number, Said("export.not_hash", field=name)) from None


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
    RFC 8259) and nesting too deep to parse are refused, each as an ExportError for that line
    that says why in words (never the parser's own English)."""
    try:
        obj = json.loads(raw, object_pairs_hook=unique_pairs, parse_constant=_no_constant)
    except DuplicateKey as exc:
        raise ExportError(number, Said("export.name_twice", name=repr(exc.key)[:64])) from None
    except _NotANumber as exc:
        raise ExportError(number, Said("export.not_a_number", name=exc.name)) from None
    except json.JSONDecodeError as exc:
        raise ExportError(number, Said("export.not_json", at=exc.pos + 1)) from None
    except UnicodeDecodeError as exc:
        raise ExportError(number, Said("export.not_utf8", at=exc.start + 1)) from None
    except (ValueError, RecursionError) as exc:  # too deep, or an integer of over 4,300 digits
        key = "export.too_deep" if isinstance(exc, RecursionError) else "export.number_too_long"
        raise ExportError(number, Said(key)) from None
    if not isinstance(obj, dict):
        raise ExportError(number, Said("export.not_object"))
    return obj


class _NotANumber(ValueError):
    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


def _no_constant(name: str) -> Any:
    raise _NotANumber(name)


def _int(value: Any, name: str, number: int) -> int:
    """A whole number as the writer writes it: a JSON integer (not true, 1.0 or "1") that a
    bigint and the chain's 8-byte version field hold (0 … 2^63 − 1; 2^70 was a traceback)."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**63:
        raise ExportError(number, Said("export.not_count", field=name))
    return value


class _KnownMetadata(EventMetadata, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """EventMetadata read strictly: a field this build does not know is refused, not dropped
    (an import would otherwise keep less than the file holds; docs/export.md)."""


def _metadata(raw: object, number: int) -> EventMetadata:
    try:
        known = msgspec.convert(raw, _KnownMetadata)  # the check; the record keeps the plain type
    except msgspec.ValidationError as exc:
        why = Said("export.metadata", why=decode_problem(exc))
        raise ExportError(number, why) from None
    for name in known.__struct_fields__:  # each a str or None: none with a lone surrogate
        value = getattr(known, name)
        if isinstance(value, str):
            _field({name: value}, name, number, _text, "export.want_text")
    return msgspec.convert(raw, EventMetadata)


def _record(
    season_id: str, obj: dict[str, Any], number: int, chain: int
) -> tuple[RecordedEvent, bytes | None, bool]:
    """An event line: its record (empty data when redacted), its declared digest, redacted;
    a field an event line does not have is refused (it was dropped, so an import kept less
    than the file held), as an unknown metadata field is; a field missing or of another kind
    is named, in words."""
    unknown = sorted(set(obj) - EVENT_FIELDS)
    if unknown:
        shown = ", ".join(repr(name)[:64] for name in unknown[:3])
        raise ExportError(number, Said("export.unknown_field", names=shown))
    for name in ("version", "event_id", "type", "recorded_at", "prev_hash", "hash"):
        if name not in obj:  # named in the order a line has them
            raise ExportError(number, Said("export.field_missing", field=name))
    digest = _hash(obj, "data_digest", number) if "data_digest" in obj else None
    hidden = obj.get("redacted") is not None
    if hidden:
        if obj["redacted"] != REDACTED or chain != 2 or digest is None:
            raise ExportError(number, Said("export.redacted_line", rule=REDACTED))
        if "data" in obj or "data_b64" in obj:
            raise ExportError(number, Said("export.redacted_data"))
        data = b""
    elif "data" in obj:
        data = _field(obj, "data", number, _utf8, "export.want_text")
    elif "data_b64" not in obj:
        raise ExportError(number, Said("export.field_missing", field="data"))
    else:
        data = _field(obj, "data_b64", number, _base64, "export.want_base64")
    record = RecordedEvent(
        season_id=season_id,
        version=_int(obj.get("version"), "version", number),
        position=_int(obj.get("position", 0), "position", number),
        event_id=_field(obj, "event_id", number, UUID, "export.want_uuid"),
        type=_field(obj, "type", number, _text, "export.want_text"),
        data=data,
        metadata=_metadata(obj.get("metadata", {"actor": "system"}), number),
        recorded_at=_field(obj, "recorded_at", number, _instant, "export.want_instant"),
        prev_hash=_hash(obj, "prev_hash", number),
        hash=_hash(obj, "hash", number),
    )
    return record, digest, hidden


def _field(obj: dict[str, Any], name: str, number: int, read: Any, want: str) -> Any:
    """`read(obj[name])`, or an ExportError naming the field and what it should be."""
    if name not in obj:
        raise ExportError(number, Said("export.field_missing", field=name))
    try:
        return read(obj[name])
    except (TypeError, ValueError, AttributeError):
        raise ExportError(number, Said("export.field_bad", field=name, want=Said(want))) from None


def _text(value: Any) -> str:
    """A string of Unicode characters: JSON's `\\ud800` escape reads as a lone surrogate, which
    no UTF-8 holds (the chain's envelope would fail on it: UnicodeEncodeError, a ValueError)."""
    _utf8(value)
    return str(value)


def _utf8(value: Any) -> bytes:
    if not isinstance(value, str):
        raise TypeError(value)
    return value.encode("utf-8")


def _base64(value: Any) -> bytes:
    import base64
    import binascii

    try:
        return base64.b64decode(_text(value), validate=True)
    except binascii.Error as exc:
        raise ValueError(value) from exc


def _instant(value: Any) -> datetime:
    """An ISO 8601 instant with its offset, as the writer writes it (`…+00:00`)."""
    instant = datetime.fromisoformat(_text(value))
    if instant.tzinfo is None:
        raise ValueError(value)
    return instant


# --- why data is not a possible event, in words ---------------------------------------------
# msgspec's messages (its English, read by shared.app.http.decode_refusal) said as the catalogue's
# keys: the bound or kind the field breaks, and the field's path (`$.seat`,
# `$.computer_beys[0][1]`, `key in $.missions`).
_OPS = {"<=": "≤", ">=": "≥", "<": "<", ">": ">"}


def decode_problem(exc: Exception) -> Said:
    """Why an event's data (or metadata) is not a possible one, for people in either language:
    the field and the bound it breaks (`$.seat` ≤ 19), the kind it should be, a field missing,
    a value no event has, or bytes that are not JSON; never msgspec's or Python's own text."""
    if isinstance(exc, msgspec.DecodeError) and not isinstance(exc, msgspec.ValidationError):
        return Said("decode.not_json")
    r = decode_refusal.read(str(exc))
    field = r.path or "$"
    if r.within:  # a dict's key: `key` in `$.missions`
        field = f"{r.within}.<key>" if r.path == "key" else field
    say = _SAYINGS.get(r.reading)
    return Said("decode.other", field=field) if say is None else say(field, r)


def _bound(field: str, r: decode_refusal.Refusal) -> Said:
    return Said("decode.bound", field=field, op=_OPS[r.op or ""], limit=r.limit)


def _length(field: str, r: decode_refusal.Refusal) -> Said:
    return Said("decode.length", field=field, op=_OPS.get(r.op or "", "="), limit=r.limit)


def _missing(field: str, r: decode_refusal.Refusal) -> Said:
    return Said("decode.missing", field=f"{field}.{r.name}")


def _value(field: str, r: decode_refusal.Refusal) -> Said:
    value = (r.value or "")[:80]
    if field == "$.type":  # the tag: no event has this type
        return Said("decode.unknown_type", value=value)
    return Said("decode.value", field=field, value=value)


def _wrong_kind(field: str, r: decode_refusal.Refusal) -> Said:
    return Said("decode.kind", field=field, want=decode_refusal.kind_words(r.kind or ""))


_SAYINGS: dict[str, Callable[[str, decode_refusal.Refusal], Said]] = {
    "bound": _bound,
    "length": _length,
    "missing": _missing,
    "value": _value,
    "kind": _wrong_kind,
}


def event_problem(exc: ValueError) -> Said:
    """Why an event line's data is not the event it says (codec.decode_checked, decode_stored):
    not its own type, not the canonical bytes, or not a possible event at all (decode_problem)."""
    from shared.domain import codec

    if isinstance(exc, codec.OtherType):
        return Said("export.other_type", stored=repr(exc.stored)[:80], own=repr(exc.own)[:80])
    if isinstance(exc, codec.NotCanonical):
        return Said("export.not_canonical")
    problem = decode_problem(exc)
    if problem.key in ("decode.unknown_type", "decode.not_json"):
        return Said("export.not_an_event", error=problem)
    return Said("export.impossible_event", error=problem)
