"""Checking a season's chat chain and texts (ADR-106; docs/export.md "Chat"), in an export file
or in the store: the chain links every chat event (versions 1 … n, each hash over the data's
digest), ends at the header's chat head and count, each data decodes one way only, and each text
present is the one its event's digest names; a text absent must be withheld for the reason the
chain gives (an erasure or a hide act of that message, or R-15.3 in an auditor's or the public
export). Pure: no I/O.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from shared.app.ops.export_chat import (
    ChatFacts,
    ChatSection,
    decode_line,
    stored_section,
    text_digest,
)
from shared.domain.chat_events import AnyChatEvent
from shared.domain.messages import Said
from shared.eventstore.chat_log import GENESIS, ChatRecord, chat_link


@dataclass(frozen=True)
class ChatBad:
    """The first chat event that does not hold: its index among the chat lines, and why."""

    index: int
    version: int | None
    event_id: str | None
    type: str | None
    why: Said


def check_chat(season_id: str, section: ChatSection | None) -> tuple[Said, ChatBad | None]:
    """The chat's verdict for people (`ok: …`, `none: …` or `broken: …`) and its first bad
    event (None: it holds)."""
    if section is None or (not section.records and section.count in (None, 0)):
        return Said("export.chat_none"), None
    events, bad = _chain(season_id, section)
    if bad is None:
        bad = _texts(section, events)
    if bad is not None:
        return Said("export.chat_broken", version=bad.version, why=bad.why), bad
    texts = sum(r.text is not None for r in section.records)
    return Said(
        "export.chat_ok",
        events=len(section.records),
        texts=texts,
        withheld=len(section.withheld),
        redacted=len(section.redacted),
    ), None


def _bad(records: list[ChatRecord], index: int, why: Said) -> ChatBad:
    r = records[index]
    return ChatBad(index, r.version, str(r.event_id), r.type, why)


def _chain(
    season_id: str, section: ChatSection
) -> tuple[list[AnyChatEvent | None], ChatBad | None]:
    """Link every line to the one before, then the count and the head; decode each data."""
    records = section.records
    digests = section.digests or [None] * len(records)
    prev = GENESIS
    seen: set[str] = set()
    events: list[AnyChatEvent | None] = []
    for i, r in enumerate(records):
        hidden = i in section.redacted
        declared = digests[i]
        digest = declared if hidden and declared is not None else hashlib.sha256(r.data).digest()
        why = _link_problem(season_id, section, i, prev, digest, declared, seen)
        if why is not None:
            return events, _bad(records, i, why)
        seen.add(str(r.event_id))
        prev = r.hash
        if hidden:
            events.append(None)
            continue
        try:
            events.append(decode_line(r))
        except ValueError as exc:  # msgspec's DecodeError and ValidationError are ValueErrors
            from shared.app.ops.export_read import event_problem

            return events, _bad(records, i, event_problem(exc))
    return events, _ends(section, prev)


def _link_problem(  # noqa: PLR0917 — one line's facts, checked in order
    season_id: str,
    section: ChatSection,
    i: int,
    prev: bytes,
    digest: bytes,
    declared: bytes | None,
    seen: set[str],
) -> Said | None:
    """Why line i does not link (None: it does): a left-out data the header does not announce,
    a declared digest not its data's, a version out of place, an id twice, a broken link."""
    r = section.records[i]
    hidden = i in section.redacted
    link = chat_link(prev, season_id, r.version, event_id=r.event_id, type_=r.type, digest=digest)
    problems: tuple[tuple[bool, str, dict[str, object]], ...] = (
        (hidden and not section.private, "export.chat_redacted_unannounced", {}),
        (not hidden and declared not in (None, digest), "export.digest_wrong", {}),
        (r.version != i + 1, "export.version_gap", {"version": r.version, "want": i + 1}),
        (str(r.event_id) in seen, "export.event_id_twice", {"event_id": str(r.event_id)}),
        (r.prev_hash != prev, "chain.prev_hash", {}),
        (r.hash != link, "chain.hash", {}),
    )
    return next((Said(key, **details) for bad, key, details in problems if bad), None)


def _ends(section: ChatSection, head: bytes) -> ChatBad | None:
    """The header's chat count and head against the lines (a file; the store has neither)."""
    records = section.records
    if section.count is not None and section.count != len(records):
        why = Said("export.count", count=section.count, held=len(records))
        if section.count < len(records):
            return _bad(records, section.count, why)
        return ChatBad(len(records), len(records) + 1, None, None, why)
    if section.head is not None and section.head != head:
        why = Said("export.head", got=head.hex(), want=section.head.hex())
        return (
            _bad(records, len(records) - 1, why) if records else ChatBad(0, None, None, None, why)
        )
    return None


def _texts(section: ChatSection, events: list[AnyChatEvent | None]) -> ChatBad | None:
    """Each text present is its event's (sha256 = the digest the chain covers); each absent one
    is withheld for the reason the chain gives, and nothing else is (ADR-106)."""
    records = section.records
    facts = ChatFacts.of(records, events)
    for i, (r, e) in enumerate(zip(records, events, strict=True)):
        mark = section.withheld.get(i)
        if e is None:  # its data left out: no text may stand beside it
            why = Said("export.chat_text_redacted") if r.text or mark else None
        elif text_digest(e) is None:
            why = Said("export.chat_text_undigested") if r.text is not None or mark else None
        else:
            want = facts.withheld(r.version, e, section.private, section.hidden_kept)
            if section.stored and r.text is None:
                mark = want  # the store says no more than NULL
            why = _text_problem(r, e, mark, want)
        if why is not None:
            return _bad(records, i, why)
    return None


def _text_problem(
    r: ChatRecord, e: AnyChatEvent, mark: str | None, want: str | None
) -> Said | None:
    """A text present must be its event's and one the export may hold; one absent must be
    withheld for the reason the chain gives (`want`)."""
    if r.text is not None:
        if mark is not None or want is not None:
            return Said("export.chat_text_kept", why=mark or want)
        if hashlib.sha256(r.text.encode()).hexdigest() != text_digest(e):
            return Said("export.chat_text_digest")
        return None
    if want is not None and mark == want:
        return None
    if mark is None:
        return Said("export.chat_text_missing")
    return Said("export.chat_withheld_wrong", got=mark, want=want or "—")


def stored_chat_problem(
    season_id: str, records: list[ChatRecord], *, audit_copy: bool = False
) -> Said | None:
    """What is wrong with a season's stored chat (chain, data, texts), or None: an export
    refuses to write a chat that does not hold, as it refuses a broken season chain."""
    section = stored_section(records, audit_copy=audit_copy)
    _, bad = check_chat(season_id, section)
    return None if bad is None else Said("export.chat_broken", version=bad.version, why=bad.why)
