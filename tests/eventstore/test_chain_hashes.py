"""chain_hashes, written out in one join an append (issue 27, ADR-138), links each event as
`envelope` and `event_hash` (the layouts docs/eventstore.md documents) do, for both chain
versions; tests/integration/test_hash_chain.py holds those against the golden heads."""

from __future__ import annotations

import uuid

import pytest
from hypothesis import given
from hypothesis import strategies as st

from shared.eventstore.hashing import (
    CHAIN_VERSIONS,
    GENESIS,
    chain_hashes,
    envelope,
    event_hash,
)
from shared.eventstore.model import EventMetadata, NewEvent

META = EventMetadata(actor="system", command_id="c")
events_st = st.lists(
    st.builds(
        NewEvent,
        event_id=st.uuids(),
        type=st.text(min_size=1, max_size=40),
        data=st.binary(max_size=300),
        metadata=st.just(META),
    ),
    min_size=1,
    max_size=6,
)


def _by_envelope(
    prev: bytes, season: str, expected: int, events: list[NewEvent], chain: int
) -> list[tuple[bytes, bytes]]:
    links = []
    for version, e in enumerate(events, start=expected + 1):
        env = envelope(chain, season, version, e.event_id, e.type, data=e.data)
        digest = event_hash(prev, env)
        links.append((prev, digest))
        prev = digest
    return links


@given(
    chain=st.sampled_from(CHAIN_VERSIONS),
    prev=st.one_of(st.just(GENESIS), st.binary(min_size=32, max_size=32)),
    season=st.text(min_size=1, max_size=100),
    expected=st.integers(min_value=0, max_value=2**40),
    events=events_st,
)
def test_chain_hashes_are_the_envelopes_hashes(chain, prev, season, expected, events):
    assert chain_hashes(prev, season, expected, events, chain) == _by_envelope(
        prev, season, expected, events, chain
    )


def test_an_unknown_chain_version_is_refused():
    one = [NewEvent(event_id=uuid.UUID(int=1), type="x.v1", data=b"{}", metadata=META)]
    with pytest.raises(ValueError, match="unknown chain version"):
        chain_hashes(GENESIS, "s1", 0, one, 3)
