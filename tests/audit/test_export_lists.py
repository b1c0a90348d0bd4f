"""R-14: the auditor export's two lists (shared/app/ops/export_lists.py) are held to the event registry.

Every event type the domain can emit (`events.AnyEvent`) and every old tag an upcaster still
reads from stored seasons is in exactly one of VISIBLE_TO_AUDITORS and HIDDEN_WHY, and the lists
name nothing else: a new event type fails here until someone decides, under R-14, whether an
auditor sees its data during a season (docs/export.md "Redacted exports").
"""

from __future__ import annotations

import pytest

from shared.app.ops.export_lists import HIDDEN_WHY, VISIBLE_TO_AUDITORS, hidden_from_auditors
from shared.domain.events import EVENT_TYPES
from shared.domain.upcast import UPCASTERS

EMITTED = frozenset(str(t.__struct_config__.tag) for t in EVENT_TYPES)
KNOWN = EMITTED | frozenset(UPCASTERS)


def test_the_registry_is_read() -> None:
    """The tags come from the registry itself (a guard against an empty set passing below)."""
    assert "season_created.v1" in EMITTED and "calendar_set.v2" in EMITTED
    assert "calendar_set.v1" in KNOWN - EMITTED


@pytest.mark.parametrize("tag", sorted(KNOWN))
def test_every_event_type_is_decided_once(tag: str) -> None:
    """R-14: each type is either visible or hidden with a reason, never both, never neither."""
    assert (tag in VISIBLE_TO_AUDITORS) != (tag in HIDDEN_WHY), tag
    assert hidden_from_auditors(tag) == (tag in HIDDEN_WHY)


def test_the_lists_name_only_known_types() -> None:
    """A stale or misspelt entry (e.g. a tag renamed to .v2 without an upcaster) fails."""
    assert not VISIBLE_TO_AUDITORS - KNOWN, VISIBLE_TO_AUDITORS - KNOWN
    assert not set(HIDDEN_WHY) - KNOWN, set(HIDDEN_WHY) - KNOWN
    assert all(why.strip() for why in HIDDEN_WHY.values())


@pytest.mark.parametrize(
    "tag", ["season_created.v1", "season_forked.v1", "seed_revealed.v1", "correction_applied.v1"]
)
def test_what_holds_the_seed_gold_or_missions_is_hidden(tag: str) -> None:
    """R-14, R-1.5: the seed, a bey's gold and its missions never reach an auditor mid-season."""
    assert hidden_from_auditors(tag)
