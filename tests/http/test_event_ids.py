"""Event ids are uuid5 of (season, key, index) under the store's namespace (ADR-10): the fast
construction in shared.app.repository.seasons.event_id is the same UUID, bit for bit (ADR-111)."""

from __future__ import annotations

import uuid

from hypothesis import given
from hypothesis import strategies as st

from shared.app.repository.seasons import NAMESPACE, event_id


def test_adr10_event_id_is_uuid5_of_season_key_and_index() -> None:
    made = event_id("0123456789abcdef0123456789abcdef", "cmd/3/w1-2", 0)
    expected = uuid.uuid5(NAMESPACE, "0123456789abcdef0123456789abcdef/cmd/3/w1-2/0")
    assert made == expected
    assert (str(made), made.bytes, made.version, made.variant, hash(made)) == (
        str(expected),
        expected.bytes,
        5,
        uuid.RFC_4122,
        hash(expected),
    )
    assert made.is_safe is expected.is_safe


@given(st.text(max_size=40), st.text(max_size=60), st.integers(min_value=0, max_value=10_000))
def test_adr10_event_id_equals_uuid5_for_any_name(season_id: str, key: str, index: int) -> None:
    try:
        expected = uuid.uuid5(NAMESPACE, f"{season_id}/{key}/{index}")
    except UnicodeEncodeError:  # a lone surrogate: neither builds an id
        return
    assert event_id(season_id, key, index) == expected
