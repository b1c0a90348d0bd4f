"""A treaty as every answer of either API shapes it (issue 20, ADR-72): one schema."""

from __future__ import annotations

import msgspec

from shared.domain.state import TreatyKind


class Treaty(msgspec.Struct, frozen=True):
    """A treaty, the one shape every answer gives it: its kind, its two beys (lower seat
    first), the Divan it was accepted at (null: not in the records at hand, e.g. a fork's
    treaty from its source, or a what-if's) and the last Divan it holds (R-6.2)."""

    kind: TreatyKind
    beys: list[int]
    from_divan: int | None
    through_divan: int
