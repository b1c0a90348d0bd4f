"""The chat through the audit verbs on PostgreSQL (issue 24, ADR-106): `seksenbir export` writes
the chat section (ops' whole, `--redact` without private words, R-15.3), `verify` proves a file
and a stored season's chat chain and texts, `import` stores the chat of an ops export in the
same transaction, and a text changed or removed behind the store's back is named.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import asyncpg

from shared.domain import chat_events as ce
from shared.domain.chat import text_digest
from shared.eventstore import PostgresEventStore
from shared.eventstore.chat_log import ChatNew
from tests.audit.support import store_season
from tests.conftest import SESSION
from tests.integration.test_audit_cli import other_database, run_cli

AT = "2026-12-01T12:00:00+03:00"
PUBLIC = "kanarya-PUBLIC-c3d"
PRIVATE = "kanarya-PRIVATE-81a"
HIDDEN = "kanarya-HIDDEN-f02"


def _new(n: int, event: ce.ChatEvent, seat: int | None, text: str | None = None) -> ChatNew:
    return ChatNew(
        event_id=uuid.UUID(int=1000 + n),
        type=ce.tag_of(event),
        data=ce.encode_chat(event),
        seat=seat,
        text=text,
    )


async def season_with_chat(store: PostgresEventStore, season_id: str) -> None:
    """A live season at Divan 1; its chat: 1 public, 2 private, 3 public hidden by 4."""
    await store_season(store, season_id, 21, live=True, divans=1)
    said = [("all", PUBLIC), ("pair-1-2", PRIVATE), ("all", HIDDEN)]
    sent = [
        _new(n, ce.MessageSent(at=AT, channel=ch, seat=1, digest=text_digest(t)), 1, t)
        for n, (ch, t) in enumerate(said, 1)
    ]
    hide = _new(4, ce.MessageHidden(at=AT, message=3, reason="R-15.2", by="ops:ab12"), None)
    await store.chat.append(season_id, [*sent, hide])


async def test_chat_exports_verifies_and_imports_with_its_season(
    migrated_pg_dsn: str, pg_server_dsn: str, event_store: PostgresEventStore, tmp_path: Path
) -> None:
    """ADR-106: ops' export carries the chat and verifies; an auditor's leaves private words
    out (R-15.3) and cannot be imported; an ops export's chat is stored by the import, its
    hidden text withheld, and the audit copy verifies."""
    await season_with_chat(event_store, "chatted")
    whole, redacted = tmp_path / "whole.jsonl", tmp_path / "redacted.jsonl"
    done = await run_cli("export", "chatted", "--dsn", migrated_pg_dsn, "-o", str(whole))
    assert done.returncode == 0, done.stderr
    done = await run_cli(
        "export", "chatted", "--redact", "--dsn", migrated_pg_dsn, "-o", str(redacted)
    )
    assert done.returncode == 0, done.stderr
    text = whole.read_text()
    assert PUBLIC in text and PRIVATE in text and HIDDEN not in text
    assert json.loads(text.splitlines()[0])["chat"]["events"] == 4
    assert PUBLIC in redacted.read_text() and PRIVATE not in redacted.read_text()

    done = await run_cli("verify", str(whole))
    assert done.returncode == 0, done.stdout
    assert json.loads(done.stdout)["chat"].startswith("ok: 4 chat events, 2 texts")
    done = await run_cli("verify", str(redacted))
    assert done.returncode == 3, done.stdout  # R-14's part: the Divans need a full export
    assert json.loads(done.stdout)["chat"].startswith(
        "ok: 4 chat events, 1 text matches its digest"
    )

    async with other_database(pg_server_dsn, f"seksenbir_chatcopy_{SESSION}") as copy:
        refused = await run_cli("import", str(redacted), "--dsn", copy)
        assert refused.returncode == 1 and "redacted" in refused.stderr
        changed = tmp_path / "changed.jsonl"
        changed.write_text(text.replace(PRIVATE, "başka bir söz"))
        refused = await run_cli("import", str(changed), "--dsn", copy)
        assert refused.returncode == 1 and "chat version 2" in refused.stderr, refused.stderr
        done = await run_cli("import", str(whole), "--dsn", copy)
        assert done.returncode == 0, done.stderr
        done = await run_cli("verify", "chatted", "--dsn", copy)
        assert done.returncode == 0, done.stdout
        assert json.loads(done.stdout)["chat"].startswith("ok: 4 chat events, 2 texts")
        conn = await asyncpg.connect(copy)
        try:
            rows = await conn.fetch(
                "SELECT e.version, e.seat, t.text FROM chat_events e LEFT JOIN chat_texts t "
                "USING (season_id, version) WHERE season_id = 'chatted' ORDER BY e.version"
            )
        finally:
            await conn.close()
        assert [(r["version"], r["seat"], r["text"]) for r in rows] == [
            (1, 1, PUBLIC),
            (2, 1, PRIVATE),
            (3, 1, None),  # hidden: withheld by the export, so not in the copy
            (4, None, None),
        ]
        again = await run_cli("export", "chatted", "--dsn", copy)
        assert again.returncode == 0, again.stderr
        hashes = [json.loads(x)["hash"] for x in text.splitlines() if '"chat":' in x[:9]]
        copied = [json.loads(x)["hash"] for x in again.stdout.splitlines() if '"chat":' in x[:9]]
        assert len(hashes) == 4 and copied == hashes  # the same chain, recomputed


async def test_a_text_changed_or_removed_in_the_store_is_named_by_verify_and_export(
    migrated_pg_dsn: str, event_store: PostgresEventStore
) -> None:
    """ADR-106: the text beside an event is outside the chain (ADR-92) but its digest is in it:
    a text changed behind the store's back fails `verify SEASON` at its chat version, and so
    does a text removed without an erasure; the export refuses such a chat (exit 1)."""
    await season_with_chat(event_store, "edited")
    async with event_store._pool.acquire() as conn:
        await conn.execute(
            "UPDATE chat_texts SET text = 'başka' WHERE season_id = 'edited' AND version = 2"
        )
    done = await run_cli("verify", "edited", "--dsn", migrated_pg_dsn)
    assert done.returncode == 1, done.stdout
    bad = json.loads(done.stdout)["first_bad_event"]
    assert bad["stream"] == "chat" and bad["version"] == 2
    assert "the text's sha256 is not the digest its event carries" in bad["why"]
    refused = await run_cli("export", "edited", "--dsn", migrated_pg_dsn)
    assert refused.returncode == 1 and "chat version 2" in refused.stderr
    assert refused.stdout == ""

    async with event_store._pool.acquire() as conn:
        await conn.execute(
            "UPDATE chat_texts SET text = NULL WHERE season_id = 'edited' AND version = 2"
        )
    done = await run_cli("verify", "edited", "--dsn", migrated_pg_dsn)
    assert done.returncode == 1, done.stdout
    assert "the text is missing" in json.loads(done.stdout)["first_bad_event"]["why"]
