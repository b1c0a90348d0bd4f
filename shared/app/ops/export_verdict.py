"""What the offline check of an export finds (export_check.py): the first event that does not
match and why, and the verdict `seksenbir verify` prints (docs/export.md "The verdict")."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from shared.domain.messages import Said
from shared.domain.state import SeasonState


@dataclass(frozen=True)
class BadEvent:
    """The first event that does not match, and why."""

    index: int  # in the export's event list; its line in a file is index + 2
    version: int | None
    event_id: str | None
    type: str | None
    why: Said
    chat: bool = False  # a chat event (ADR-106): `version` is its chat version

    def as_json(self, in_file: bool) -> dict[str, Any]:
        out: dict[str, Any] = {"stream": "chat"} if self.chat else {}
        out["version"] = self.version
        if in_file:
            out["line"] = self.index + 2
        return {
            **out,
            "event_id": self.event_id,
            "type": self.type,
            "why": self.why,
            "code": self.why.key,
        }


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
    # ADR-106: the chat chain and its texts
    chat: Said = field(default_factory=lambda: Said("export.chat_none"))

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
            "chat": self.chat,
            "redacted": self.redacted,
            "first_bad_event": first.as_json(in_file) if first else None,
            "ok": self.ok,
            "complete": self.complete,
        }
