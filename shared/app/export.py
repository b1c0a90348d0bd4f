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
from typing import Any, BinaryIO, Final
from uuid import UUID

import msgspec

from shared.app.bodies import unique_pairs
from shared.app.replay_view import correction_notes
from shared.domain import codec
from shared.domain import events as ev
from shared.domain.messages import Said, said_from_english
from shared.domain.replay import Mismatch
from shared.domain.replay import verify as replay_verify
from shared.domain.seal import seals_orders
from shared.domain.season import seed_commitment
from shared.domain.state import SeasonState
from shared.eventstore import (
    GENESIS,
    SCHEMES,
    ChainError,
    EventMetadata,
    NewEvent,
    RecordedEvent,
    data_digest,
    infer_chain,
    verify_chain,
)

FORMAT = "seksenbir-export/2"
FORMATS = ("seksenbir-export/1", FORMAT)  # what `parse` reads
CHAIN = SCHEMES[1].decode()  # chain version 1's scheme (shared/eventstore/hashing.py)
CHAIN_NAMES = {v: scheme.decode() for v, scheme in SCHEMES.items()}
REDACTED = "R-14"  # the `redacted` mark of an event line whose data was left out

# R-14, docs/export.md "Redacted exports": during a season an auditor sees no orders that
# fought no battle, no missions, no gold, no seed, no bey's private report. The export leaves
# out the whole data of every event that holds any of it (the auditor reads what R-14 grants
# of those, e.g. betrayals' battle records, from the query API); an event type not listed as
# visible is left out too, so a new event is hidden until someone decides otherwise.
VISIBLE_TO_AUDITORS = frozenset(
    {
        "bey_joined.v1",
        "calendar_set.v1",
        "calendar_set.v2",  # ADR-58
        "deadline_set.v1",
        "season_admin_acted.v1",
        "treaty_offered.v1",
        "offer_withdrawn.v1",
        "offer_answered.v1",
        "divan_requested.v1",
        "divan_held.v1",
        "offer_settled.v1",
        "treaties_dissolved.v1",
        "rebellions_run.v1",
        "mission_completed.v1",
        "hain_expired.v1",
        "treaty_expired.v1",
        # ADR-57: digests only, listed in the public report; the salts are in the private ones
        "orders_sealed.v1",
    }
)
HIDDEN_WHY = {
    "season_created.v1": "the seed and its salt (R-1.5)",
    "registration_closed.v1": "the missions dealt and the news deck's order",
    "orders_submitted.v1": "a bey's orders",
    "divan_locked.v1": "every bey's orders",
    "sur_built.v1": "a bey's gold spent",
    "mercenaries_hired.v1": "a bey's gold spent",
    "province_purchased.v1": "a bey's gold spent",
    "vote_cast.v1": "a Kurultay vote",
    "token_rotated.v1": "a token's hash",
    "admin_token_set.v1": "a token's hash",
    "news_revealed.v1": "gold paid to beys",
    "battles_resolved.v1": "gold (tribute) and the records of battles without a betrayal",
    "production_applied.v1": "gold income",
    "divan_resolved.v1": "each bey's private report",
}


def hidden_from_auditors(type_: str) -> bool:
    """Whether an auditor's export during a season leaves this event's data out (R-14)."""
    return type_ not in VISIBLE_TO_AUDITORS


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


# --- writing -------------------------------------------------------------------------------
def header(
    season_id: str,
    records: Sequence[RecordedEvent],
    head: bytes,
    chain: int = 2,
    redacted: int | None = None,
) -> dict[str, Any]:
    """The first line: format, season, rules version, mode, commitment, count, chain scheme and
    head, and whether (how many events) the export is redacted."""
    created = _created(records)
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
) -> Iterator[bytes]:
    """The whole export, one `\\n`-terminated UTF-8 line at a time (header first).

    `chain` is the season's chain version (None: from its first event). With `redact` (an
    auditor's export of a season not over, R-14) the events `hidden_from_auditors` keep only
    their data digest; RedactionUnavailable (at once, before any line) for a season on chain
    version 1. After the Kurultay `redact` changes nothing: everyone may have everything then."""
    records = list(records)
    if chain is None:
        chain = infer_chain(records[0]) if records else 2
    redact = redact and not season_over(records)
    if redact and chain == 1:
        raise RedactionUnavailable(season_id)
    return _lines(season_id, records, head, chain, redact)


def _lines(
    season_id: str, records: list[RecordedEvent], head: bytes, chain: int, redact: bool
) -> Iterator[bytes]:
    hide = [redact and hidden_from_auditors(r.type) for r in records]
    yield _dump(header(season_id, records, head, chain, sum(hide) if redact else None))
    for record, hidden in zip(records, hide, strict=True):
        yield _dump(event_line(record, chain, redact=hidden))


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
    records: list[RecordedEvent] = []
    digests: list[bytes | None] = []
    redacted: set[int] = set()
    for number, raw in enumerate(it, start=2):
        if not raw.strip():
            continue
        obj = _json(raw, number)
        record, digest, hidden = _record(season_id, obj, number, chain)
        if hidden:
            redacted.add(len(records))
        records.append(record)
        digests.append(digest)
    return Export(season_id, head, count, records, head_obj, chain, digests, frozenset(redacted))


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
    """A whole number as the writer writes it: a JSON integer (not true, 1.0 or "1")."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name} must be an integer, not {value!r:.40}")
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


# --- checking ------------------------------------------------------------------------------
@dataclass(frozen=True)
class BadEvent:
    """The first event that does not match, and why."""

    index: int  # in the export's event list; its line in a file is index + 2
    version: int | None
    event_id: str | None
    type: str | None
    why: Said

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
    hash_chain: Said = field(default_factory=lambda: Said("cli.chain_ok"))
    head: str | None = None
    state: SeasonState | None = None
    mismatches: list[dict[str, Any]] = field(default_factory=list)
    seed_commitment: Said = field(default_factory=lambda: Said("export.seed_hidden"))
    replay: Said = field(default_factory=lambda: Said("cli.chain_ok"))
    bad: list[BadEvent] = field(default_factory=list)
    redacted: int = 0  # events whose data the export left out
    heads: Said = field(default_factory=lambda: Said("export.heads_unchecked"))
    # ADR-57: the orders resolved at each Divan are the orders sealed at its lock
    sealed_orders: Said = field(default_factory=lambda: Said("export.sealed_not_run"))
    # ADR-53: every correction applied by ops, beside any mismatch it compensates
    corrections: list[dict[str, Any]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Nothing that was checked failed (a redacted export: its chain, digests and heads)."""
        return not self.bad

    @property
    def complete(self) -> bool:
        """Everything was checkable: a full export (a redacted one's Divans cannot be re-run)."""
        return self.redacted == 0

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
            "heads": self.heads,
            "sealed_orders": self.sealed_orders,
            "redacted": self.redacted,
            "first_bad_event": first.as_json(in_file) if first else None,
            "ok": self.ok,
            "complete": self.complete,
        }


class PublishedHead(msgspec.Struct, frozen=True):
    """A chain head a Divan report published (`chain_head` of GET /v1/seasons/{id}/reports):
    the hash of the season's event at `version`, its `divan_resolved.v1`."""

    divan: int
    version: int
    hash: str


def parse_heads(obj: Any) -> list[PublishedHead]:
    """Published heads from a heads file (docs/export.md "Chain heads"): a list of
    {divan, version, hash}, an object with such a list under `heads`, or a saved answer of
    GET /v1/seasons/{id}/reports (each Divan report's `chain_head`). ValueError otherwise."""
    if isinstance(obj, dict) and isinstance(obj.get("reports"), list):
        obj = [
            {"divan": r["divan"], **r["chain_head"]}
            for r in obj["reports"]
            if isinstance(r, dict) and r.get("kind") == "divan" and r.get("chain_head")
        ]
    elif isinstance(obj, dict) and "heads" in obj:
        obj = obj["heads"]
    try:
        return msgspec.convert(obj, list[PublishedHead])
    except msgspec.ValidationError as exc:
        raise ValueError(f"not a list of published heads: {exc}") from None


def check(export: Export, heads: Sequence[PublishedHead] | None = None) -> Verdict:
    """Chain, header head and count, re-run of every Divan, seed commitment (R-12.3, R-1.5),
    and, given `heads`, the chain heads the Divan reports published. A redacted export (R-14)
    is checked as far as it can be: chain, digests, heads; its `replay` says why not more."""
    records = export.records
    verdict = Verdict(export.season_id, len(records), redacted=len(export.redacted))
    chain_ok = _check_chain(export, verdict)
    if chain_ok and heads is not None:
        _check_heads(records, heads, verdict)
    if export.redacted:
        n = len(export.redacted)
        verdict.replay = Said("export.replay_redacted", n=n)
        verdict.seed_commitment = Said("export.seed_redacted")
        verdict.sealed_orders = Said("export.sealed_redacted")
        return verdict
    decoded: list[ev.Event] = []
    for i, record in enumerate(records):
        try:
            decoded.append(codec.decode_checked(record.data, record.type))
        except (msgspec.DecodeError, msgspec.ValidationError, ValueError) as exc:
            verdict.bad.append(_bad(records, i, Said("export.not_an_event", error=str(exc))))
            verdict.replay = Said("export.replay_not_decoded")
            return verdict
    created = decoded[0] if decoded else None
    if isinstance(created, ev.SeasonCreated) and created.season_id != export.season_id:
        # the server stores a season under its own id: another id is a season re-labelled
        # (and re-chained, the envelope covering the id) as one it is not
        why = Said("export.other_season", own=created.season_id, stream=export.season_id)
        verdict.bad.append(_bad(records, 0, why))
        verdict.replay = Said("export.replay_other_season")
        return verdict
    if not chain_ok:
        # Folding a broken sequence would only name symptoms of the break found already.
        verdict.replay = Said("export.replay_chain_broken")
        return verdict
    state, problems = replay_verify(decoded)
    verdict.state = state
    # each with its season version and its line in Turkish and English (ops' line: `verify`
    # reads a full export or the store, never a redacted one's hidden data)
    verdict.corrections = [
        msgspec.to_builtins(msgspec.structs.replace(n, version=records[n.version - 1].version))
        for n in correction_notes(decoded, len(decoded))
    ]
    _sealed_verdict(decoded, state, problems, verdict)
    _mismatches(records, problems, verdict)
    rerun = [p for p in problems if not p.sealed]
    if rerun:
        verdict.replay = Said("export.divans_differ", count=len(rerun))
    _check_seed(decoded, records, verdict)
    return verdict


def _mismatches(
    records: Sequence[RecordedEvent], problems: Sequence[Mismatch], verdict: Verdict
) -> None:
    """Each Divan that differs from its re-run (or whose seal does not hold), and its event."""
    for p in problems:
        entry: dict[str, Any] = {"divan": p.divan, "what": p.what}
        if p.sealed:
            entry["check"] = "sealed_orders"
        what = mismatch(p.what)
        if p.at is not None:
            entry["version"] = p.at + 1
            if p.at < len(records):
                why = Said("export.divan_problem", divan=p.divan, what=what)
                verdict.bad.append(_bad(records, p.at, why))
            else:
                why = Said("export.divan_missing", divan=p.divan, what=what)
                verdict.bad.append(BadEvent(p.at, p.at + 1, None, None, why))
        verdict.mismatches.append(entry)


def _sealed_verdict(
    decoded: Sequence[ev.Event], state: SeasonState, problems: Sequence[Mismatch], v: Verdict
) -> None:
    """ADR-57: `sealed_orders` says whether every Divan's orders resolved are its orders sealed
    (replay.verify recomputes each bey's digest from the lock, the seed and its salt)."""
    if not seals_orders(state.report_version):
        v.sealed_orders = Said("export.sealed_none", version=state.report_version)
        return
    broken = next((p for p in problems if p.sealed), None)
    if broken is not None:
        v.sealed_orders = Said(
            "export.sealed_broken", divan=broken.divan, what=mismatch(broken.what)
        )
        return
    seals = [e for e in decoded if isinstance(e, ev.OrdersSealed)]
    digests = sum(len(e.digests) for e in seals)
    v.sealed_orders = Said("export.sealed_ok", divans=len(seals), digests=digests)


def mismatch(what: str) -> Said:
    """The replay check's mismatch text (shared/domain/replay.py, English) for people."""
    return said_from_english("replay.", what) or Said("replay.other", what=what)


def chain_error(exc: ChainError) -> Said:
    """The event store's chain refusal (English, with its season and version) for people."""
    return Said(
        "chain.error", season=repr(exc.season_id), version=exc.version, reason=chain_reason(exc)
    )


def chain_reason(exc: ChainError) -> Said:
    """The event store's reason (shared/eventstore/hashing.py, English) for people."""
    return said_from_english("chain.", exc.reason) or Said("chain.other", reason=exc.reason)


def _bad(records: Sequence[RecordedEvent], index: int, why: Said) -> BadEvent:
    r = records[index]
    return BadEvent(index, r.version, str(r.event_id), r.type, why)


def _check_heads(
    records: Sequence[RecordedEvent], heads: Sequence[PublishedHead], verdict: Verdict
) -> None:
    """Each published head is the hash of the export's event at its version, a Divan's
    `divan_resolved.v1`: a season rewritten after players saw the head shows at that event."""
    for h in sorted(heads, key=lambda x: x.version):
        if not 1 <= h.version <= len(records):
            why = Said("export.heads_cut", divan=h.divan, version=h.version, events=len(records))
            verdict.heads = Said("export.heads_broken", why=why)
            index = len(records) - 1
            if records:
                verdict.bad.append(_bad(records, index, why))
            else:
                verdict.bad.append(BadEvent(0, None, None, None, why))
            return
        r = records[h.version - 1]
        if r.hash.hex() != h.hash.lower() or r.type != "divan_resolved.v1":
            why = Said(
                "export.heads_rewritten",
                divan=h.divan,
                hash=h.hash,
                version=h.version,
                got=r.hash.hex(),
                type=r.type,
            )
            verdict.heads = Said("export.heads_broken", why=why)
            verdict.bad.append(_bad(records, h.version - 1, why))
            return
    verdict.heads = Said("export.heads_ok", count=len(heads))


def check_chain(export: Export) -> Said | None:
    """The chain alone, with the header's count and head (no decoding, no re-run): None when
    they hold, else why not, naming the first event. What `replay` warns about."""
    verdict = Verdict(export.season_id, len(export.records), redacted=len(export.redacted))
    if _check_chain(export, verdict):
        return None
    return verdict.bad[0].why if verdict.bad else verdict.hash_chain


def _line_problem(
    i: int, record: RecordedEvent, digest_covers: bool, declared: bytes | None, seen: set[UUID]
) -> Said | None:
    """What is wrong with event line i before its link is checked: a declared data digest that
    is not its data's (chain version 2, a line that keeps its data), a version out of place,
    an event id seen before (ids are unique across every season, RELIABILITY 3)."""
    if digest_covers and declared is not None and declared != data_digest(record.data):
        return Said("export.digest_wrong")
    if record.version != i + 1:
        return Said("export.version_gap", version=record.version, want=i + 1)
    if record.event_id in seen:
        return Said("export.event_id_twice", event_id=str(record.event_id))
    seen.add(record.event_id)
    return None


def _check_chain(export: Export, verdict: Verdict) -> bool:
    """Link each event to the one before (versions 1, 2, …), then the head and the count.

    Chain version 2: a line's declared data digest must be the digest of its data; a redacted
    line's declared digest is what the link covers."""
    records = export.records
    chain = export.chain or (infer_chain(records[0]) if records else 2)
    digests = export.digests or [None] * len(records)
    prev = GENESIS
    seen: set[UUID] = set()
    for i, record in enumerate(records):
        declared = digests[i]
        hidden = i in export.redacted
        why = _line_problem(i, record, chain == 2 and not hidden, declared, seen)
        if why is not None:
            verdict.hash_chain = Said("cli.chain_broken", error=why)
            verdict.bad.append(_bad(records, i, why))
            return False
        try:
            prev = verify_chain(
                [record], anchor=prev, chain=chain, digests=[declared if hidden else None]
            )
        except ChainError as exc:
            verdict.hash_chain = Said("cli.chain_broken", error=chain_error(exc))
            verdict.bad.append(_bad(records, i, chain_reason(exc)))
            return False
    verdict.head = prev.hex()
    if export.count is not None and export.count != len(records):
        why = Said("export.count", count=export.count, held=len(records))
        verdict.hash_chain = Said("cli.chain_broken", error=why)
        index = min(export.count, len(records))
        if index < len(records):
            verdict.bad.append(_bad(records, index, why))
        else:
            missing = Said("export.count_missing", count=export.count, held=len(records))
            verdict.bad.append(BadEvent(index, index + 1, None, None, missing))
        return False
    if export.head is not None and export.head != prev:
        why = Said("export.head", got=prev.hex(), want=export.head.hex())
        verdict.hash_chain = Said("cli.chain_broken", error=why)
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
            why = Said("export.seed_uncommitted")
        elif seed_commitment(e.seed, e.salt) != created.seed_commitment:
            why = Said("export.seed_commitment")
        elif e.seed != created.seed:
            why = Said("export.seed_other")
        else:
            v.seed_commitment = Said(
                "export.seed_ok", commitment=created.seed_commitment, version=records[i].version
            )
            return
        v.seed_commitment = Said("cli.chain_broken", error=why)
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
