"""The chat in a season's export and its check (issue 24, ADR-94, ADR-106; docs/export.md "Chat").

A season with a chat of every kind: public, private and group messages with canary texts, a
report with a reason, a hidden public message, an erased one, a mute. Ops' export holds every
text but the hidden and the erased one; an auditor's (R-14) and the public one after the
Kurultay keep every chat line and its data digest but nothing that concerns a private or group
channel (R-15.3: neither its text nor its digest); verify proves the chat chain and every text
against its event's digest, and names the first chat event that was changed, removed or moved.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from entrypoints.cli import main
from shared.app.ops.export import ExportError, export_lines
from shared.app.ops.export_check import check
from shared.app.ops.export_read import parse
from shared.app.ops.export_verdict import Verdict
from shared.domain import chat_events as ce
from shared.domain.chat import text_digest
from shared.eventstore import InMemoryEventStore, RecordedEvent
from shared.eventstore.chat_log import ChatNew, ChatRecord
from shared.eventstore.chat_memory import InMemoryChatLog
from tests.audit.support import dump, season_records, store_season

CANARY = {
    "public": "kanarya-PUBLIC-4b1",
    "private": "kanarya-PRIVATE-77e",
    "group": "kanarya-GROUP-0c9",
    "reason": "kanarya-REASON-a12",
    "hidden": "kanarya-HIDDEN-3f0",
    "erased": "kanarya-ERASED-e55",
}
SECRET = ("private", "group", "reason", "hidden", "erased")
AT = "2026-12-01T12:00:00+03:00"
Line = dict[str, Any]


def _new(event: ce.ChatEvent, seat: int | None = None, text: str | None = None) -> ChatNew:
    erases = (event.message,) if isinstance(event, ce.TextErased) else ()
    data = ce.encode_chat(event)
    return ChatNew(
        event_id=uuid.uuid5(uuid.NAMESPACE_OID, data.decode()),
        type=ce.tag_of(event),
        data=data,
        seat=seat,
        text=text,
        erases=erases,
    )


def _sent(seat: int, channel: str, text: str) -> ChatNew:
    event = ce.MessageSent(at=AT, channel=channel, seat=seat, digest=text_digest(text))
    return _new(event, seat, text)


def chat_events() -> list[ChatNew]:
    """Versions: 1 public, 2 private, 3 group, 4 report of 2 (reason), 5 public hidden by 6,
    7 public erased by 8, 9 a mute, 10 a report of 1 without a reason."""
    return [
        _sent(1, "all", CANARY["public"]),
        _sent(1, "pair-1-2", CANARY["private"]),
        _sent(2, "group-1-2-3", CANARY["group"]),
        _new(
            ce.MessageReported(at=AT, message=2, seat=2, digest=text_digest(CANARY["reason"])),
            2,
            CANARY["reason"],
        ),
        _sent(3, "all", CANARY["hidden"]),
        _new(ce.MessageHidden(at=AT, message=5, reason="R-15.2", by="ops:ab12")),
        _sent(4, "all", CANARY["erased"]),
        _new(ce.TextErased(at=AT, message=7, reason="R-15.2", by="ops:ab12")),
        _new(ce.BeyMuted(at=AT, seat=1, muted=3, on=True), 1),
        _new(ce.MessageReported(at=AT, message=1, seat=4), 4),
    ]


def stored_chat(season_id: str) -> list[ChatRecord]:
    async def run() -> list[ChatRecord]:
        log = InMemoryChatLog(clock=lambda: datetime(2026, 12, 1, 9, tzinfo=UTC))
        await log.append(season_id, chat_events())
        return await log.read(season_id)

    return asyncio.run(run())


@pytest.fixture(scope="module")
def during() -> tuple[list[RecordedEvent], list[ChatRecord]]:
    """A live season at its first Divan, with the chat above."""

    async def run() -> list[RecordedEvent]:
        store = InMemoryEventStore(clock=lambda: datetime(2026, 12, 1, tzinfo=UTC))
        await store_season(store, "talky", 5, live=True, divans=1)
        return await store.read_stream("talky")

    return asyncio.run(run()), stored_chat("talky")


@pytest.fixture(scope="module")
def over() -> tuple[list[RecordedEvent], list[ChatRecord]]:
    """A whole live season, its Kurultay held, with the chat above."""
    return season_records("talked", 8, live=True), stored_chat("talked")


def export(season: tuple[list[RecordedEvent], list[ChatRecord]], *, redact: bool = False) -> bytes:
    records, chat = season
    sid = records[0].season_id
    return b"".join(export_lines(sid, records, records[-1].hash, redact=redact, chat=chat))


def lines_of(blob: bytes) -> list[Line]:
    return [json.loads(x) for x in blob.splitlines()]


def verdict_of(lines: list[Line]) -> Verdict:
    return check(parse(dump(lines).splitlines()))


def chat_lines(lines: list[Line]) -> list[Line]:
    return [x for x in lines if "chat" in x and "format" not in x]


def test_a_season_without_chat_exports_byte_for_byte_as_before(
    during: tuple[list[RecordedEvent], list[ChatRecord]],
) -> None:
    """ADR-106: the chat is an addition: no chat, no `chat` in the header, no chat line."""
    records, _ = during
    sid = records[0].season_id
    for redact in (False, True):
        before = b"".join(export_lines(sid, records, records[-1].hash, redact=redact))
        assert before == export((records, []), redact=redact)
        assert b'"chat"' not in before


def test_ops_export_holds_every_chat_event_and_text_but_hidden_and_erased_ones(
    during: tuple[list[RecordedEvent], list[ChatRecord]],
) -> None:
    """R-15.2, R-15.3, ADR-106: ops get every line with its data; a hidden or erased text is in
    no export (the line says `withheld`); verify proves the chain and every text."""
    blob = export(during)
    lines = lines_of(blob)
    records, chat = during
    header = lines[0]
    assert header["events"] == len(records)
    assert header["chat"] == {
        "chain": "seksenbir/chat-chain/1",
        "events": 10,
        "genesis": "00" * 32,
        "head": chat[-1].hash.hex(),
        "redacted": None,
    }
    assert [x["version"] for x in lines[1 : len(records) + 1]] == list(range(1, len(records) + 1))
    mine = chat_lines(lines)
    assert [x["chat"] for x in mine] == list(range(1, 11))
    assert all("data" in x and "redacted" not in x for x in mine)
    texts = {x["chat"]: x.get("text") for x in mine}
    assert texts[1] == CANARY["public"] and texts[2] == CANARY["private"]
    assert texts[3] == CANARY["group"] and texts[4] == CANARY["reason"]
    assert (mine[4]["withheld"], mine[6]["withheld"]) == ("hidden", "erased")
    for gone in ("hidden", "erased"):
        assert CANARY[gone].encode() not in blob
    assert "text" not in mine[5] and "withheld" not in mine[5]  # a hide has no text
    verdict = verdict_of(lines)
    assert verdict.ok and verdict.complete, verdict.as_json(True)
    assert verdict.chat.startswith("ok: 10 chat events, 4 texts match their digests, 2 withheld")


def _no_secret(blob: bytes) -> None:
    """R-15.3: no private, group, reason, hidden or erased text; no digest of a private or
    group text or of a report's reason (a public message's digest stays, hidden or erased:
    ADR-92, the digest proves what was there)."""
    for kind in SECRET:
        assert CANARY[kind].encode() not in blob, kind
    for kind in ("private", "group", "reason"):
        assert hashlib.sha256(CANARY[kind].encode()).hexdigest().encode() not in blob, kind


def test_r15_3_an_auditor_export_keeps_every_chat_line_and_no_private_word(
    during: tuple[list[RecordedEvent], list[ChatRecord]],
) -> None:
    """R-15.3 (the exception to R-14): the chain is proven from every line's data digest; what
    concerns a private or group channel keeps nothing else; public texts stay."""
    blob = export(during, redact=True)
    _no_secret(blob)
    lines = lines_of(blob)
    assert lines[0]["redacted"]["rule"] == "R-14"
    assert lines[0]["chat"]["redacted"] == {"rule": "R-15.3", "events": 4}
    mine = chat_lines(lines)
    assert len(mine) == 10 and all(len(x["data_digest"]) == 64 for x in mine)
    left_out = [x["chat"] for x in mine if x.get("redacted") == "R-15.3"]
    assert left_out == [2, 3, 4, 9]  # private, group, a report of a private one, a mute
    assert mine[0]["text"] == CANARY["public"]
    assert mine[9]["type"] == "message_reported.v1" and "data" in mine[9]  # who reported
    verdict = verdict_of(lines)
    assert verdict.ok and not verdict.complete, verdict.as_json(True)  # R-14's part: exit 3
    assert "4 lines' data left out (R-15.3)" in verdict.chat


def test_r15_3_after_the_kurultay_the_public_export_is_whole_but_private_words(
    over: tuple[list[RecordedEvent], list[ChatRecord]], tmp_path: Path
) -> None:
    """R-14: after the Kurultay everyone gets every event; R-15.3: not private or group words.
    The file verifies completely (exit 0): the Divans re-run, the chat chain proven."""
    blob = export(over, redact=True)
    _no_secret(blob)
    lines = lines_of(blob)
    assert lines[0]["redacted"] is None and lines[0]["chat"]["redacted"]["rule"] == "R-15.3"
    path = tmp_path / "public.jsonl"
    path.write_bytes(blob)
    assert main(["verify", str(path), "--lang", "en"]) == 0
    assert CANARY["private"].encode() in export(over)  # ops' export


def _rechain_chat(lines: list[Line], start: int, *, head: bool = False) -> None:
    """A forger's re-chaining of the chat lines from chat line `start` on (docs/export.md
    "Chat": chain version 2's envelope with `seksenbir/chat-chain/1`); with `head`, the
    header's chat head and count too (else they stay the server's)."""
    season = lines[0]["season_id"]
    mine = chat_lines(lines)
    prev = bytes.fromhex(mine[start - 2]["hash"]) if start > 1 else bytes(32)

    def field(b: bytes) -> bytes:
        return len(b).to_bytes(4, "big") + b

    for line in mine[start - 1 :]:
        if "data" in line:
            line["data_digest"] = hashlib.sha256(line["data"].encode()).hexdigest()
        digest = bytes.fromhex(line["data_digest"])
        envelope = b"".join(
            (
                field(b"seksenbir/chat-chain/1"),
                field(season.encode()),
                line["chat"].to_bytes(8, "big"),
                uuid.UUID(line["event_id"]).bytes,
                field(line["type"].encode()),
                field(digest),
            )
        )
        line["prev_hash"] = prev.hex()
        prev = hashlib.sha256(prev + envelope).digest()
        line["hash"] = prev.hex()
    if head:
        lines[0]["chat"]["head"] = mine[-1]["hash"] if mine else "00" * 32
        lines[0]["chat"]["events"] = len(mine)


def _at(lines: list[Line], version: int) -> Line:
    return next(x for x in chat_lines(lines) if x["chat"] == version)


def _changed_text(lines: list[Line]) -> None:
    _at(lines, 1)["text"] = "kanarya-PUBLIC-4b2"


def _changed_private_text(lines: list[Line]) -> None:
    _at(lines, 2)["text"] = "başka bir söz"


def _changed_event(lines: list[Line]) -> None:
    line = _at(lines, 10)
    line["data"] = line["data"].replace('"seat":4', '"seat":3')


def _changed_event_rechained(lines: list[Line]) -> None:
    _changed_event(lines)
    _rechain_chat(lines, 10)


def _text_and_digest_changed_rechained(lines: list[Line]) -> None:
    line = _at(lines, 1)
    line["text"] = "sahte"
    line["data"] = line["data"].replace(text_digest(CANARY["public"]), text_digest("sahte"))
    _rechain_chat(lines, 1)


def _removed_event(lines: list[Line]) -> None:
    lines.remove(_at(lines, 3))


def _removed_event_rechained(lines: list[Line]) -> None:
    _removed_event(lines)
    for line in chat_lines(lines)[2:]:
        line["chat"] -= 1
    _rechain_chat(lines, 3)


def _reordered(lines: list[Line]) -> None:
    a, b = lines.index(_at(lines, 2)), lines.index(_at(lines, 3))
    lines[a], lines[b] = lines[b], lines[a]


def _removed_text(lines: list[Line]) -> None:
    del _at(lines, 1)["text"]


def _text_withheld_as_erased(lines: list[Line]) -> None:
    line = _at(lines, 1)
    del line["text"]
    line["withheld"] = "erased"


def _erased_text_put_back(lines: list[Line]) -> None:
    line = _at(lines, 7)
    del line["withheld"]
    line["text"] = CANARY["erased"]


def _cut_tail(lines: list[Line]) -> None:
    lines.remove(_at(lines, 10))


TAMPERS = {
    # name: (change, chat version named, why)
    "changed text": (_changed_text, 1, "the text's sha256 is not the digest its event carries"),
    "changed private text": (_changed_private_text, 2, "the text's sha256 is not the digest"),
    "changed event": (_changed_event, 10, "data_digest is not the sha256"),
    "changed event, re-chained": (_changed_event_rechained, 10, "the chain ends at"),
    "text and digest, re-chained": (_text_and_digest_changed_rechained, 10, "the chain ends at"),
    "removed event": (_removed_event, 4, "version 4 where version 3 belongs"),
    "removed event, re-chained": (_removed_event_rechained, 10, "the header names 10 events"),
    "reordered": (_reordered, 3, "version 3 where version 2 belongs"),
    "removed public text": (_removed_text, 1, "the text is missing and nothing in the chain"),
    "public text withheld as erased": (_text_withheld_as_erased, 1, "withheld as erased"),
    "erased text put back": (_erased_text_put_back, 7, "a text this export must not hold"),
    "cut tail": (_cut_tail, 10, "the header names 10 events, the file holds 9"),
}


@pytest.mark.parametrize("name", list(TAMPERS))
def test_verify_names_the_first_chat_event_changed_removed_or_moved(
    during: tuple[list[RecordedEvent], list[ChatRecord]], name: str
) -> None:
    """ADR-106: a tampered chat event or text fails verify (exit 1) and is named, with its chat
    version; a forger who re-chains the chat still fails at the header's chat head and count
    (the trusted head the server wrote, as the season's `head`)."""
    change, version, why = TAMPERS[name]
    lines = lines_of(export(during))
    change(lines)
    verdict = verdict_of(lines)
    assert not verdict.ok, name
    first = verdict.first_bad
    assert first is not None and first.chat and first.version == version, verdict.as_json(True)
    shown = first.as_json(True)
    assert shown["stream"] == "chat" and why in shown["why"], shown
    assert verdict.chat.startswith(f"broken: chat version {version}: ")


def test_the_chat_head_in_the_header_pins_the_chat(
    during: tuple[list[RecordedEvent], list[ChatRecord]],
) -> None:
    """A re-chained chat passes its links but not the header's trusted chat head; one who
    rewrites that head too is caught only by a head kept from before (docs/export.md)."""
    lines = lines_of(export(during))
    _changed_event(lines)
    _rechain_chat(lines, 10, head=True)
    assert verdict_of(lines).ok
    lines = lines_of(export(during))
    head = lines[0]["chat"]["head"]
    _changed_event(lines)
    _rechain_chat(lines, 10)
    lines[0]["chat"]["head"] = head
    verdict = verdict_of(lines)
    assert not verdict.ok and "the chain ends at" in verdict.chat


def test_a_redacted_line_needs_the_headers_redaction_mark(
    during: tuple[list[RecordedEvent], list[ChatRecord]],
) -> None:
    """A file cannot pass a chat line off as left out under R-15.3 when its header says the
    chat is whole (ops' export)."""
    lines = lines_of(export(during))
    line = _at(lines, 2)
    del line["data"], line["text"]
    line["redacted"] = "R-15.3"
    verdict = verdict_of(lines)
    assert not verdict.ok and verdict.first_bad is not None and verdict.first_bad.version == 2


@pytest.mark.parametrize(
    ("change", "why"),
    [
        (lambda ls: ls[0].pop("chat"), "a chat line in an export whose header names no chat"),
        (lambda ls: ls.append(dict(ls[1])), "an event line after the chat lines"),
        (lambda ls: ls[-1].update(comment="x"), "a field a chat line does not have"),
        (lambda ls: ls[-1].update(chat="3"), "not a chat line"),
        (lambda ls: ls[0]["chat"].update(chain="x"), "the header's chat is malformed"),
        (lambda ls: ls[-1].update(withheld="lost"), "not a chat line"),
    ],
)
def test_a_file_whose_chat_section_cannot_be_read_is_refused(
    during: tuple[list[RecordedEvent], list[ChatRecord]], change: Any, why: str
) -> None:
    lines = lines_of(export(during))
    change(lines)
    with pytest.raises(ExportError) as refused:
        parse(dump(lines).splitlines())
    assert why in str(refused.value)
