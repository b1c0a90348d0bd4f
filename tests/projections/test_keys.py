"""Redis key names are explicit: a typo is an error, never a new key."""

from __future__ import annotations

import pytest

from services.projections.keys import VIEW_NAMES, Keys


def test_an_unknown_key_name_raises_instead_of_naming_a_new_key():
    keys = Keys("sb", "s1", 3)
    with pytest.raises(AttributeError):
        _ = keys.leaderbaord  # type: ignore[attr-defined]  # the typo is the test
    with pytest.raises(KeyError):
        keys.view("leaderbaord")


def test_every_view_has_its_key_in_the_seasons_hash_slot():
    keys = Keys("sb", "s1", 3)
    assert {keys.view(name) for name in VIEW_NAMES} == {
        f"sb:{{s:s1}}:g3:{name}" for name in VIEW_NAMES
    }
    assert keys.view("meta") == keys.meta
    assert keys.leaderboard == "sb:{s:s1}:g3:leaderboard"
    assert keys.private(2) == "sb:{s:s1}:g3:private:2"


def test_the_cross_season_keys_share_one_hash_tag_that_is_no_seasons():
    """Issue 14: the season index, the boards and the sweep marker sit on one Redis Cluster
    slot of their own, written in a step apart from any season's atomic step."""
    from services.projections.keys import (
        board,
        cross,
        han_memleket,
        seasons_index,
        sweep_mark,
        swept,
    )

    names = [
        seasons_index("sb"),
        board("sb", "han_scores"),
        han_memleket("sb", 6),
        swept("sb"),
        sweep_mark("sb", "reader"),
    ]
    assert names == [
        "sb:{x}:seasons",
        "sb:{x}:boards:han_scores",
        "sb:{x}:boards:han_memleket:6",
        "sb:{x}:swept",
        "sb:{x}:sweep-mark:reader",
    ]
    assert all(n.startswith(cross("sb", "")) for n in names)
    assert "{x}" not in Keys("sb", "x", 1).base  # a season called x has a tag of its own
