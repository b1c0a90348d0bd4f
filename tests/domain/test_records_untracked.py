"""The values a Divan builds by the hundred are not tracked by the cycle collector (issue 27),
and that changes nothing a reader sees: each holds values that cannot lead back to it."""

from __future__ import annotations

import gc

import msgspec

from shared.domain.event_records import (
    Allotment,
    BattleRecord,
    GoldDelta,
    GroupRecord,
    ProvinceSet,
    ReportLine,
)
from shared.domain.rules.kinds import Advance, Dropped, Support

GROUP = GroupRecord(beys=(3,), advances=((3, 10, 4),), support=(), strength=4)
UNTRACKED = [
    ProvinceSet(7, 3, 5, True),
    GoldDelta(3, 2, "income"),
    GROUP,
    BattleRecord(7, None, 2, 0, (), (GROUP,), "standoff"),
    Allotment(7, 2, 1),
    ReportLine("battle", {"target": 7, "attackers": [3]}, "tr", "en"),
    Advance(3, 10, 7, 4),
    Support(3, 10, 7, 4, True),
    Dropped(3, 10, 7, "advance", 4, "ally", 5),
]


def test_a_divans_records_are_not_tracked_by_the_cycle_collector() -> None:
    assert [type(v).__name__ for v in UNTRACKED if gc.is_tracked(v)] == []


def test_an_untracked_record_encodes_and_compares_as_before() -> None:
    for value in UNTRACKED:
        again = msgspec.json.decode(msgspec.json.encode(value), type=type(value))
        assert again == value
        assert msgspec.json.encode(again) == msgspec.json.encode(value)
