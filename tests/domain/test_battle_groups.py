"""R-5.2, R-5.3: one bey's advances in origin order (as classified) make their group without
the general grouping by bloc (issue 27): the same group as that grouping makes of them given
in any other order."""

from __future__ import annotations

import pytest

from shared.domain.rules import battle_groups
from shared.domain.rules.kinds import Advance, Support

SUPPORTS = [
    Support(5, 11, 7, 2, False, 1),  # backs bloc 1
    Support(6, 12, 7, 1, True),  # the defence's
    Support(8, 13, 7, 4, False, 8),  # another bloc's
    Support(2, 14, 7, 3, False, 1),  # backs bloc 1, after the first: the order given is kept
]


@pytest.mark.parametrize("betrayal", [False, True])
@pytest.mark.parametrize("n", [1, 2, 3])
def test_one_beys_advances_make_the_group_the_general_grouping_makes(
    n: int, betrayal: bool
) -> None:
    attacks = [Advance(3, 20 + i, 7, 2 + i, betrayal and i == n - 1) for i in range(n)]
    bloc_of = {3: 1, 5: 1, 2: 1, 6: 6, 8: 8}
    assert battle_groups.one_bey_in_order(attacks)
    groups, records = battle_groups.groups(attacks, SUPPORTS, bloc_of)
    if n > 1:  # given out of order: the general grouping sorts them
        assert not battle_groups.one_bey_in_order(attacks[::-1])
        want_groups, want_records = battle_groups.groups(attacks[::-1], SUPPORTS, bloc_of)
        assert groups == want_groups
        assert records == want_records
    (record,) = records
    assert record.beys == (3,)
    assert record.advances == tuple((3, 20 + i, 2 + i) for i in range(n))
    assert record.support == ((5, 11, 2), (2, 14, 3))
    assert record.strength == sum(2 + i for i in range(n)) + 5
    assert record.traitor is betrayal


def test_two_beys_advances_are_grouped_by_bloc() -> None:
    attacks = [Advance(3, 20, 7, 2), Advance(4, 21, 7, 5)]
    assert not battle_groups.one_bey_in_order(attacks)
    _groups, records = battle_groups.groups(attacks, SUPPORTS, {3: 1, 4: 4, 5: 1, 2: 1, 6: 6, 8: 8})
    assert [r.beys for r in records] == [(3,), (4,)]
    assert [r.strength for r in records] == [7, 5]
