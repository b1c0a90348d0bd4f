"""An export's lines as the OpenAPI document describes them (docs/export.md): the header, then
one line per event, then one line per chat event (ADR-106)."""

from __future__ import annotations

from typing import Literal

import msgspec


class ExportRedaction(msgspec.Struct, frozen=True):
    """A redacted export's mark: under which rule, how many events' data it leaves out."""

    rule: Literal["R-14"]
    events: int


class ExportChatRedaction(msgspec.Struct, frozen=True):
    """The chat's mark in an auditor's or the public export: how many chat lines' data R-15.3
    left out (what concerns a private or group channel, a mute)."""

    rule: Literal["R-15.3"]
    events: int


class ExportChat(msgspec.Struct, frozen=True):
    """The header's `chat`, present when the season has chat (ADR-106): its chain scheme,
    count and trusted head, and whether private words were left out (null: ops' export)."""

    chain: Literal["seksenbir/chat-chain/1"]
    events: int
    genesis: str
    head: str
    redacted: ExportChatRedaction | None = None


class ExportHeader(msgspec.Struct, frozen=True):
    """Line 1 of a seksenbir-export/2 (docs/export.md): the format, the season, its chain scheme
    and trusted head, and whether it is redacted (null: a full export)."""

    format: Literal["seksenbir-export/2"]
    season_id: str
    rules_version: str | None
    mode: str | None
    seed_commitment: str | None
    events: int
    chain: Literal["seksenbir/event-chain/1", "seksenbir/event-chain/2"]
    genesis: str
    head: str
    redacted: ExportRedaction | None = None
    chat: ExportChat | None = None  # absent for a season without chat


class ExportEvent(msgspec.Struct, frozen=True):
    """Lines 2 …: one event with its hash-chain fields; `data` is the exact stored bytes as a
    string (or `data_b64` for bytes that are not UTF-8); sha256 over the documented envelope."""

    version: int
    position: int
    event_id: str
    type: str
    metadata: dict[str, str | int | None]
    recorded_at: str
    prev_hash: str
    hash: str
    data: str | None = None
    data_b64: str | None = None
    data_digest: str | None = None  # sha256 of the data, hex (chain version 2 covers it)
    redacted: Literal["R-14"] | None = None  # the data was left out (an auditor's export)


class ExportChatEvent(msgspec.Struct, frozen=True):
    """After the events: one chat event with its chain fields (`seksenbir/chat-chain/1`), the
    text kept beside it, or why it is `withheld` (`erased`, `hidden`, `R-15.3`); a line whose
    data R-15.3 left out has `redacted` and its `data_digest` only (docs/export.md "Chat")."""

    chat: int
    event_id: str
    type: str
    data_digest: str
    recorded_at: str
    prev_hash: str
    hash: str
    data: str | None = None
    redacted: Literal["R-15.3"] | None = None
    text: str | None = None
    withheld: Literal["erased", "hidden", "R-15.3"] | None = None
