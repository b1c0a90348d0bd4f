"""An export's lines as the OpenAPI document describes them (docs/export.md): the header, then
one line per event."""

from __future__ import annotations

from typing import Literal

import msgspec


class ExportRedaction(msgspec.Struct, frozen=True):
    """A redacted export's mark: under which rule, how many events' data it leaves out."""

    rule: Literal["R-14"]
    events: int


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
