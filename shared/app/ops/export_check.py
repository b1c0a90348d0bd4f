"""Checking an export offline (docs/export.md): the hash chain, every Divan re-run, the seed
commitment, the published chain heads, the chat chain and its texts (ADR-106)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any
from uuid import UUID

import msgspec

from shared.app.ops.export import Export
from shared.app.ops.export_chat_check import check_chat
from shared.app.ops.export_read import decode_problem, event_problem
from shared.app.ops.export_verdict import BadEvent, Verdict
from shared.app.ops.ops_replay import correction_notes
from shared.domain import codec
from shared.domain import events as ev
from shared.domain.event_bounds import DivanNo, Version
from shared.domain.messages import Said, said_from_english
from shared.domain.replay import Mismatch, Unapplied
from shared.domain.replay import verify as replay_verify
from shared.domain.seal import seals_orders
from shared.domain.season import seed_commitment
from shared.domain.state import SeasonState
from shared.eventstore import (
    GENESIS,
    ChainError,
    RecordedEvent,
    data_digest,
    infer_chain,
    verify_chain,
)


# --- checking ------------------------------------------------------------------------------
class PublishedHead(msgspec.Struct, frozen=True):
    """A chain head a Divan report published (`chain_head` of GET /v1/seasons/{id}/reports):
    the hash of the season's event at `version`, its `divan_resolved.v1`."""

    divan: DivanNo
    version: Version
    hash: Annotated[str, msgspec.Meta(pattern="^[0-9a-fA-F]{64}$")]


def parse_heads(obj: Any) -> list[PublishedHead]:
    """Published heads from a heads file (docs/export.md "Chain heads"): a list of
    {divan, version, hash}, an object with such a list under `heads`, or a saved answer of
    GET /v1/seasons/{id}/reports (each Divan report's `chain_head`). HeadsError (a ValueError)
    otherwise, and for a file holding no head at all: nothing would be checked."""
    if isinstance(obj, dict) and isinstance(obj.get("reports"), list):
        # a Divan report's chain_head that is there but no object is refused, not skipped
        obj = [
            {"divan": r.get("divan"), **head} if isinstance(head, dict) else head
            for r in obj["reports"]
            if isinstance(r, dict)
            and r.get("kind") == "divan"
            and (head := r.get("chain_head")) is not None
        ]
    elif isinstance(obj, dict) and "heads" in obj:
        obj = obj["heads"]
    try:
        heads = msgspec.convert(obj, list[PublishedHead])
    except msgspec.ValidationError as exc:
        raise HeadsError(Said("export.heads_not_list", why=decode_problem(exc))) from None
    if not heads:  # nothing to check is not "ok" (ADR-161): no Divan report, or an empty list
        raise HeadsError(Said("export.heads_none"))
    return heads


class HeadsError(ValueError):
    """A heads file that is not a list of published heads: why, in words (`said`)."""

    def __init__(self, said: Said) -> None:
        super().__init__(said)
        self.said = said


def check(export: Export, heads: Sequence[PublishedHead] | None = None) -> Verdict:
    """Chain, header head and count, re-run of every Divan, seed commitment (R-12.3, R-1.5),
    and, given `heads`, the chain heads the Divan reports published. A redacted export (R-14)
    is checked as far as it can be: chain, digests, heads; its `replay` says why not more."""
    records = export.records
    verdict = Verdict(export.season_id, len(records), redacted=len(export.redacted))
    chain_ok = _check_chain(export, verdict)
    _check_chat(export, verdict)
    if chain_ok and heads is not None:
        _check_heads(records, heads, verdict)
    if export.redacted:
        n = len(export.redacted)
        verdict.replay = Said("export.replay_redacted", n=n)
        verdict.seed_commitment = Said("export.seed_redacted")
        verdict.sealed_orders = Said("export.sealed_redacted")
        return verdict
    decoded = _decoded(records, verdict)
    if decoded is None:
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
    try:  # the one fold: an event no state can take is caught where it is folded
        state, problems = replay_verify(decoded)
    except Unapplied as exc:
        verdict.bad.append(_bad(records, exc.index, Said("export.not_applicable")))
        verdict.replay = Said("export.replay_not_applied")
        return verdict
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


def _decoded(records: Sequence[RecordedEvent], verdict: Verdict) -> list[ev.Event] | None:
    """Every event decoded and checked (codec.decode_checked), or None after naming the first
    that is not: data no event can hold (its bounds, shared/domain/event_bounds.py) is not a
    season's event at all (exit 2); a possible event relabelled or re-encoded is a forgery."""
    decoded: list[ev.Event] = []
    for i, record in enumerate(records):
        try:
            decoded.append(codec.decode_checked(record.data, record.type))
        except ValueError as exc:  # msgspec's DecodeError and ValidationError are ValueErrors
            verdict.bad.append(_bad(records, i, event_problem(exc)))
            possible = isinstance(exc, codec.OtherType | codec.NotCanonical)
            verdict.replay = Said(
                "export.replay_not_decoded" if possible else "export.replay_impossible"
            )
            return None
    return decoded


def _check_chat(export: Export, verdict: Verdict) -> None:
    """ADR-106: the chat chain and its texts; a bad chat event is named after the season's
    events (its line in a file follows theirs)."""
    verdict.chat, bad = check_chat(export.season_id, export.chat)
    if bad is not None:
        why = Said("export.chat_broken", version=bad.version, why=bad.why)
        index = len(export.records) + bad.index
        verdict.bad.append(BadEvent(index, bad.version, bad.event_id, bad.type, why, chat=True))


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
