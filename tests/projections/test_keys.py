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
